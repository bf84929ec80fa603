#!/usr/bin/env bash
# Query logs from braid's own workloads replayed through Z3 4.8.12 (Debian,
# the one braid links), a newer Z3 and Bitwuzla (PyPI, in a virtual
# environment under ~/.cache) and cvc5 1.0.3 (Debian): item 3 of the
# solver-throughput issue. Installs what is missing.
# Usage: bash bench/solver/compare.sh [TIMEOUT_MS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BRAID=${BRAID:-target/release/braid}
[ -x "$BRAID" ] || cargo build --release -q
if ! command -v cvc5 >/dev/null || ! /usr/bin/python3 -c "import z3" 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cvc5 python3-z3 python3-venv >/dev/null
fi
venv=${BRAID_SOLVER_VENV:-$HOME/.cache/braid-solver-venv}
if [ ! -x "$venv/bin/python3" ]; then
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install -q z3-solver bitwuzla
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
log() { # NAME PROGRAM [braid options]
    local name=$1 prog=$2
    shift 2
    # Z3 alone, so that "Z3 in braid" is Z3's time (no helper solver).
    "$BRAID" run "$prog" --progress never --float-solver none --dump-queries "$logs/$name" "$@" >/dev/null 2>&1 || true
}
log btree-5 bench/solver/btree-5.wasm --max-time 30
log rbtree-4 bench/solver/rbtree-4.wasm --max-time 30
log skiplist-4 bench/solver/skiplist-4.wasm --max-time 30
log json-tokenizer bench/limits/json.wasm --max-time 10
for f in triangle quadratic thermostat; do
    log "$f" "bench/muse/$f.c" --max-time 30 --solver-timeout 10000
done
BRAID_SOLVER_VENV=$venv python3 bench/solver/compare.py --timeout-ms "${1:-10000}" \
    "$logs"/btree-5 "$logs"/rbtree-4 "$logs"/skiplist-4 "$logs"/json-tokenizer \
    "$logs"/triangle "$logs"/quadratic "$logs"/thermostat
