#!/usr/bin/env bash
# Builds the Debian package from build/bin (make binary fills it):
#   build/bin/hyatlas_<version>_<arch>.deb
# It holds the binary and the ONNX Runtime library side by side in
# /usr/lib/hyatlas (the binary looks next to itself), a /usr/bin/hyatlas
# link, the launcher entry and the icon. The default embedding model is
# inside the binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
version="${1:?usage: package.sh VERSION}"
arch="$(dpkg --print-architecture)"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
install -D -m 0755 build/bin/hyatlas "$root/usr/lib/hyatlas/hyatlas"
install -D -m 0644 build/bin/libonnxruntime.so.1 "$root/usr/lib/hyatlas/libonnxruntime.so.1"
mkdir -p "$root/usr/bin"
ln -s ../lib/hyatlas/hyatlas "$root/usr/bin/hyatlas"
install -D -m 0644 build/appicon.png "$root/usr/share/icons/hicolor/256x256/apps/hyatlas.png"
install -D -m 0644 /dev/stdin "$root/usr/share/applications/hyatlas.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=HyAtlas
GenericName=Memory for AI agents
Comment=See, fix and take back everything your agent remembers
Exec=/usr/bin/hyatlas
Icon=hyatlas
Terminal=false
Categories=Utility;Development;
StartupWMClass=hyatlas
DESKTOP
size="$(du -sk "$root/usr" | cut -f1)"
install -D -m 0644 /dev/stdin "$root/DEBIAN/control" <<CONTROL
Package: hyatlas
Version: ${version}
Architecture: ${arch}
Maintainer: HyAtlas Desktop <hyatlas@localhost>
Installed-Size: ${size}
Depends: libgtk-3-0 | libgtk-3-0t64, libwebkit2gtk-4.1-0
Recommends: gnome-keyring | kwalletmanager
Section: utils
Priority: optional
Description: local memory for AI agents
 HyAtlas keeps what your AI agent should remember on your own machine:
 a desktop app to see, fix and take back every memory, and a loopback
 API that agents such as Hermes write to and recall from.
CONTROL
out="build/bin/hyatlas_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$out" >/dev/null
echo "$out"
