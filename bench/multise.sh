#!/usr/bin/env bash
# MultiSE benchmark (issue: the multise engine): figure1 and echo at growing
# argv sizes under dse, multise and multise --no-coalesce, side by side in one
# run. Prints a markdown table. Needs a release build and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
braid=./target/release/braid
programs=(examples/paper/figure1.bir bench/echo/echo-1-3.bir bench/echo/echo-2-3.bir bench/echo/echo-2-4.bir
          bench/echo/echo-3-3.bir bench/echo/echo-3-4.bir bench/echo/echo-4-4.bir)
echo "| program | engine | paths | tests | statements | operations | solver queries | Z3 calls | solver ms | BDD ms | total ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${programs[@]}"; do
    for engine in "--engine dse" "--engine multise" "--engine multise --no-coalesce"; do
        # shellcheck disable=SC2086
        "$braid" run "$p" $engine --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["stats"]
est = "" if d["paths_exact"] else " (est.)"
cols = [sys.argv[1], d["engine"], str(d["paths"]) + est, d["tests"], s["statements"], s["operations"],
        s["solver_queries"], s["solver_calls"], s["solver_ms"], s["bdd_ms"], s["wall_ms"]]
print("| " + " | ".join(str(c) for c in cols) + " |")
' "$(basename "$p")"
    done
done
