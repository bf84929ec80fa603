#!/usr/bin/env bash
# Installs what building braid needs on Debian 12, when missing:
#   libz3-dev     Z3 (4.8.12) headers and library, linked by the `z3` crate
#   libclang-dev  libclang, which the `z3-sys` build uses (bindgen) to read z3.h
#   clang lld     `braid run prog.c` compiles C to wasm32 with them
#   wasi-libc libclang-rt-dev-wasm32
#                 the C library and runtime for C programs that use libc
#   libc++-dev-wasm32
#                 C++'s standard library (libc++, libc++abi) for wasm32
#   cvc5          a second solver raced against Z3 on questions over floats
#   python3-venv  for Bitwuzla (PyPI's `bitwuzla`), the faster such solver,
#                 installed in a virtual environment braid finds
# Needs root (as on a fresh machine) or sudo. Rust itself comes from rustup.
set -euo pipefail
missing=()
for pkg in libz3-dev libclang-dev clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32 cvc5 python3-venv; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup" >&2; exit 1; }
# Bitwuzla, in the environment crates/solver/src/external.rs looks in.
venv=${BRAID_BITWUZLA_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/braid/bitwuzla}
if ! "$venv/bin/python3" -c "import bitwuzla" 2>/dev/null; then
    echo "installing Bitwuzla (PyPI) in $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q bitwuzla || { echo "Bitwuzla not installed: braid races cvc5 instead" >&2; rm -rf "$venv"; }
fi
