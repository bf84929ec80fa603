#!/usr/bin/env bash
# Rebuilds bench/limits/*.wasm from the C sources with Debian's clang and
# lld (installed when missing), at -O0. These programs do not finish: the
# suite is run under a short time limit to see what every engine hands over,
#   braid bench bench/limits --engines dse,ssm,dsm,multise --max-time 20
set -euo pipefail
exec "$(dirname "$0")/../build-c.sh" "$(dirname "$0")"
