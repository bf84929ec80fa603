#!/usr/bin/env bash
# Rebuilds bench/solver/*.wasm from the C sources (Debian's clang and lld,
# installed when missing), one module per size: NAME-N.wasm has N
# operations (B-tree) or N inserted keys (red-black tree, skip list).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v clang >/dev/null || ! command -v wasm-ld >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld
fi
build() {
    local src=$1 n=$2
    clang --target=wasm32 -O0 -nostdlib -Wl,--no-entry -Wl,--export-all -Wl,--allow-undefined \
        -DN="$n" -o "$src-$n.wasm" "$src.c"
    echo "built $src-$n.wasm"
}
for n in 2 3 4 5 6 7; do build btree "$n"; done
for n in 3 4 5 6; do build rbtree "$n"; done
for n in 3 4 5 6; do build skiplist "$n"; done
