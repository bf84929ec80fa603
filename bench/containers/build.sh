#!/usr/bin/env bash
# Rebuilds bench/containers/*.wasm (containers with symbolic keys and N
# operations, issue: merging never loses) from the C sources with Debian's
# clang and lld (installed when missing), at -O0 so the branches under
# test stay. Run the suite with
#   braid bench bench/containers --engines dse,multise,ssm-qce,dsm --max-time 60
set -euo pipefail
exec "$(dirname "$0")/../build-c.sh" "$(dirname "$0")"
