#!/usr/bin/env bash
# Loop-head merging (seed 003) on the team's loop programs: each C file's
# first line says `// expect: TRUE` or `// expect: FALSE`. Every program runs
# under `braid verify` per engine with --loop-merge off and on; a cell is
# the verdict, the time, and with merging on the summary entries made and
# the arrivals they stood for (subsumed). Every test written is replayed
# (`braid replay`); a test that does not reproduce fails the script.
#   bench/loops/loops.sh [ENGINES] [MAX_TIME]    (default: dse,ssm 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
engines=${1:-dse,ssm}
max_time=${2:-10}
cargo build --release --quiet
braid=${CARGO_TARGET_DIR:-target}/release/braid
# Tests under /dev/shm unless TMPDIR says where: on ext4 without a journal,
# creating files just after many were deleted costs up to 0.6 ms each.
out=$(mktemp -d -p "${TMPDIR:-/dev/shm}" 2>/dev/null || mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| program | expected |'
for e in ${engines//,/ }; do printf ' %s off | %s on |' "$e" "$e"; done
printf '\n|---|---|'
for e in ${engines//,/ }; do printf -- '---|---|'; done
printf '\n'
declare -A correct
failed=0
for src in bench/loops/*.c; do
    name=$(basename "$src" .c)
    expected=$(sed -n '1s/^\/\/ expect: //p' "$src")
    printf '| %s | %s |' "$name" "$expected"
    for e in ${engines//,/ }; do
        for lm in off on; do
            dir="$out/$name-$e-$lm"
            start=$EPOCHREALTIME
            verdict=$("$braid" verify "$src" --engine "$e" --loop-merge "$lm" --max-time "$max_time" \
                --out "$dir" 2>/dev/null | head -1 || true)
            cell=$(awk -v v="${verdict:-error}" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%s %.1f s", v, b - a }')
            if [ "$lm" = on ]; then
                cell="$cell $(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"].get("loops") or {}
print("(%d entries, %d subsumed%s)" % (s.get("entries", 0), s.get("subsumed", 0),
      ", unrolled" if s.get("unrolled") else ""))' "$dir/summary.json")"
            fi
            if [ "$verdict" = "$expected" ]; then
                correct[$e-$lm]=$(( ${correct[$e-$lm]:-0} + 1 ))
            elif [ "$verdict" = TRUE ] || [ "$verdict" = FALSE ]; then
                cell="**$cell (wrong)**"
                failed=1
            fi
            if ls "$dir"/tests/*.json >/dev/null 2>&1 && ! "$braid" replay "$src" "$dir"/tests/*.json >/dev/null 2>&1; then
                cell="$cell **(a test does not replay)**"
                failed=1
            fi
            printf ' %s |' "$cell"
        done
    done
    printf '\n'
done
total=$(ls bench/loops/*.c | wc -l)
printf '| **correct** (of %s) | |' "$total"
for e in ${engines//,/ }; do printf ' %s | %s |' "${correct[$e-off]:-0}" "${correct[$e-on]:-0}"; done
printf '\n'
exit "$failed"
