#!/usr/bin/env bash
# SV-COMP-style verification of the team's programs in bench/sv (each C
# file's first line says `// expect: TRUE` or `// expect: FALSE`), under
# each engine with `braid verify`, scored with SV-COMP's rule: +2 correct
# TRUE, +1 correct FALSE, -16 wrong FALSE, -32 wrong TRUE, 0 UNKNOWN.
#   bench/sv/score.sh [ENGINES] [MAX_TIME]     (default: dse,multise 30)
set -euo pipefail
cd "$(dirname "$0")/../.."
engines=${1:-dse,multise}
max_time=${2:-30}
cargo build --release --quiet
braid=${CARGO_TARGET_DIR:-target}/release/braid
printf '| program | expected |'
for e in ${engines//,/ }; do printf ' %s |' "$e"; done
printf '\n|---|---|'
for e in ${engines//,/ }; do printf -- '---|'; done
printf '\n'
declare -A score correct wrong unknown
for src in bench/sv/*.c; do
    expected=$(sed -n '1s/^\/\/ expect: //p' "$src")
    printf '| %s | %s |' "$(basename "$src" .c)" "$expected"
    for e in ${engines//,/ }; do
        verdict=$("$braid" verify "$src" --engine "$e" --max-time "$max_time" 2>/dev/null | head -1 || true)
        case "$verdict:$expected" in
            TRUE:TRUE) s=2 ;;
            FALSE:FALSE) s=1 ;;
            FALSE:TRUE) s=-16 ;;
            TRUE:FALSE) s=-32 ;;
            *) s=0 ;;
        esac
        score[$e]=$(( ${score[$e]:-0} + s ))
        if [ "$verdict" = "$expected" ]; then
            correct[$e]=$(( ${correct[$e]:-0} + 1 ))
        elif [ "$verdict" = TRUE ] || [ "$verdict" = FALSE ]; then
            wrong[$e]=$(( ${wrong[$e]:-0} + 1 ))
            verdict="**$verdict (wrong)**"
        else
            unknown[$e]=$(( ${unknown[$e]:-0} + 1 ))
            verdict=${verdict:-error}
        fi
        printf ' %s |' "$verdict"
    done
    printf '\n'
done
printf '| **score** (correct / wrong / unknown) | |'
for e in ${engines//,/ }; do
    printf ' %s (%s / %s / %s) |' "${score[$e]}" "${correct[$e]:-0}" "${wrong[$e]:-0}" "${unknown[$e]:-0}"
done
printf '\n'
