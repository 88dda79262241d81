#!/usr/bin/env bash
# Installs the package with apt as a user would, starts the installed
# hyatlas headless with its own home, checks it answers and finds its
# launcher entry and icon, then removes the package.
set -euo pipefail
deb="$(readlink -f "${1:?usage: package-test.sh DEB}")"
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get install -y -qq "$deb" >/dev/null
trap '$sudo apt-get remove -y -qq hyatlas >/dev/null' EXIT
test -x /usr/bin/hyatlas
test -f /usr/share/applications/hyatlas.desktop
test -f /usr/share/icons/hicolor/256x256/apps/hyatlas.png
home="$(mktemp -d)"
env -i PATH=/usr/bin:/bin HOME="$home" HYATLAS_GO_PORT=0 HYATLAS_MODE=lite /usr/bin/hyatlas serve >"$home/out.log" 2>&1 &
pid=$!
base=""
for _ in $(seq 100); do
  base="$(grep -o 'serving at http://[0-9.:]*' "$home/out.log" | cut -d' ' -f3 || true)"
  if [ -n "$base" ] && curl -sf "$base/readyz" >/dev/null; then break; fi
  sleep 0.1
done
ok=0
if [ -n "$base" ] && curl -sf -H "Authorization: Bearer $(cat "$home/.config/hyatlas/api-token")" "$base/api/v1/status" | grep -q '"GloVe'; then
  ok=1
fi
kill "$pid"; wait "$pid" || true
if [ "$ok" != 1 ]; then
  echo "FAIL: the installed hyatlas did not serve with its bundled ONNX Runtime and model:"; cat "$home/out.log"; rm -rf "$home"; exit 1
fi
rm -rf "$home"
echo "PASS package: installed with apt, served with the bundled ONNX Runtime and GloVe, removed"
