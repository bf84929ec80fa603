#!/usr/bin/env bash
# SV-COMP-style verification of the team's programs in bench/sv (each C
# file's first line says `// expect: TRUE` or `// expect: FALSE`): `braid
# bench` runs `braid verify` under each engine, replays every test (braid's
# interpreter and wasmi), and scores with SV-COMP's rule: +2 correct TRUE,
# +1 correct FALSE, -16 wrong FALSE, -32 wrong TRUE, 0 UNKNOWN. It exits 1
# on a wrong verdict or a FALSE without a replaying test.
#   bench/sv/score.sh [ENGINES] [MAX_TIME]     (default: dse,multise 30)
set -euo pipefail
cd "$(dirname "$0")/../.."
engines=${1:-dse,multise}
max_time=${2:-30}
cargo build --release --quiet
braid=${CARGO_TARGET_DIR:-target}/release/braid
exec "$braid" bench bench/sv --engines "$engines" --max-time "$max_time"
