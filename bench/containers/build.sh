#!/usr/bin/env bash
# Rebuilds bench/containers/*.wasm (containers with symbolic keys and N
# operations, issue: merging never loses) from the C sources with Debian's
# clang and lld (installed when missing), at -O0 so the branches under
# test stay. Run the suite with
#   braid bench bench/containers --engines dse,multise,ssm-qce,dsm --max-time 60
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
