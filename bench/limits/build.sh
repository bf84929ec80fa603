#!/usr/bin/env bash
# Rebuilds bench/limits/*.wasm from the C sources with Debian's clang and
# lld (installed when missing), at -O0. These programs do not finish: the
# suite is run under a short time limit to see what every engine hands over,
#   braid bench bench/limits --engines dse,ssm,dsm,multise --max-time 20
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v clang >/dev/null || ! command -v wasm-ld >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld
fi
for src in *.c; do
    clang --target=wasm32 -O0 -nostdlib -Wl,--no-entry -Wl,--export-all -Wl,--allow-undefined \
        -o "${src%.c}.wasm" "$src"
    echo "built ${src%.c}.wasm"
done
