#!/usr/bin/env bash
# Rebuilds DIR/*.wasm from DIR/*.c with Debian's clang and lld (installed
# when missing), at -O0 so the branches under test stay:
#   bench/build-c.sh DIR
# (the build.sh of bench/limits, bench/multise and bench/containers).
set -euo pipefail
cd "$1"
if ! command -v clang >/dev/null || ! command -v wasm-ld >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld
fi
for src in *.c; do
    clang --target=wasm32 -O0 -nostdlib -Wl,--no-entry -Wl,--export-all -Wl,--allow-undefined \
        -o "${src%.c}.wasm" "$src"
    echo "built ${src%.c}.wasm"
done
