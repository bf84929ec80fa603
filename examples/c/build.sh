#!/usr/bin/env bash
# Rebuilds examples/c/*.wasm from the C sources with Debian's clang, lld and
# wasi-libc (installed when missing). -O0 keeps the branches under test.
# Sources that include a header are WASI programs linked against wasi-libc;
# the others are freestanding harnesses without libc.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v clang >/dev/null || ! command -v wasm-ld >/dev/null \
    || [ ! -e /usr/lib/wasm32-wasi/libc.a ] || ! ls /usr/lib/llvm-*/lib/clang/*/lib/wasi >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld wasi-libc libclang-rt-dev-wasm32
fi
for src in *.c; do
    if grep -q '^#include' "$src"; then
        clang --target=wasm32-wasi -O0 -o "${src%.c}.wasm" "$src"
    else
        clang --target=wasm32 -O0 -nostdlib -Wl,--no-entry -Wl,--export-all -Wl,--allow-undefined \
            -o "${src%.c}.wasm" "$src"
    fi
    echo "built ${src%.c}.wasm"
done
