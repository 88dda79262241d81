#!/usr/bin/env bash
# Installs what building and testing HyAtlas needs, idempotently: Debian
# packages (only those missing), the frontend's npm packages (only when the
# lock file changed) and Go modules. Safe to run on every `make`.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Debian packages: the WebKitGTK/GTK build headers, and for the tests a
# virtual X server, D-Bus sessions, xdotool (reads the window title) and
# Chromium (drives the dashboard).
packages=(gcc pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev xvfb xauth xdotool dbus dbus-x11 gnome-keyring chromium curl python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "deps: run as root or install sudo; missing: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Frontend packages, from the lock file.
if [ ! -f frontend/node_modules/.package-lock.json ] ||
   [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  echo "deps: npm ci"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi

# Go modules.
go mod download
