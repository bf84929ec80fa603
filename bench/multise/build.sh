#!/usr/bin/env bash
# Rebuilds bench/multise/*.wasm (MultiSE Table 1 harnesses) from the C
# sources with Debian's clang and lld (installed when missing), at -O0 so
# the branches under test stay. Run the suite with
#   braid bench bench/multise --engines dse,multise
set -euo pipefail
exec "$(dirname "$0")/../build-c.sh" "$(dirname "$0")"
