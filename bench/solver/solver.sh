#!/usr/bin/env bash
# bench/solver: dse on ordered containers over symbolic keys, growing, under
# four solver-layer settings side by side in one run:
#   exact     only exact repeats cached (--unsat-cores off --incremental off --simplex off)
#   cores     + KLEE's subset rule on Z3 unsat cores (--incremental off --simplex off)
#   cores+inc + the common prefix of consecutive queries kept asserted (--simplex off)
#   +simplex  + braid's simplex asked before Z3 (braid's default)
# SETTINGS="cores+inc +simplex" runs only the settings named.
# Columns: paths, Z3 calls, calls per path, Z3 time, wall time; `*` marks a
# run cut off by MAX_TIME (seconds, default 60).
# Usage: bash bench/solver/solver.sh [NAME-N ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
BRAID=${BRAID:-target/release/braid}
MAX_TIME=${MAX_TIME:-60}
[ -x "$BRAID" ] || cargo build --release -q
if [ $# -gt 0 ]; then
    progs=("$@")
else
    progs=(btree-2 btree-3 btree-4 btree-5 btree-6 btree-7 rbtree-3 rbtree-4 rbtree-5 rbtree-6
        skiplist-3 skiplist-4 skiplist-5 skiplist-6)
fi
configs=()
for c in "exact:--unsat-cores off --incremental off --simplex off" "cores:--incremental off --simplex off" \
    "cores+inc:--simplex off" "+simplex:"; do
    case " ${SETTINGS:-exact cores cores+inc +simplex} " in *" ${c%%:*} "*) configs+=("$c") ;; esac
done
echo "| program | setting | paths | Z3 calls | calls/path | Z3 s | wall s |"
echo "|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
    for c in "${configs[@]}"; do
        name=${c%%:*}
        # shellcheck disable=SC2086
        "$BRAID" run "bench/solver/$p.wasm" --max-time "$MAX_TIME" --progress never ${c#*:} --json \
            >"$tmp" || true
        python3 - "$p" "$name" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[3]))
s = d["stats"]
paths = d["paths"]
cut = "" if d["complete"] else "*"
calls = s["solver_calls"]
print(f"| {sys.argv[1]} | {sys.argv[2]} | {paths}{cut} | {calls} | {calls / max(paths, 1):.2f} | "
      f"{s['solver_ms'] / 1000:.1f} | {s['wall_ms'] / 1000:.1f}{cut} |")
PY
    done
done
