#!/usr/bin/env bash
# Concrete speed (issue: a concrete fast path). Input-free, compute-heavy
# programs written by the team (primes: arithmetic and division; sort:
# loads and stores; hash: bytes, shifts, multiplications) run in wasmi and
# in braid's concrete interpreter (three runs each in one process, the
# fastest kept; wasmi in a binary of its own, examples/wasmi_time.rs), and
# explored by dse and multise,
# each running concrete stretches ahead in the interpreter (the default) and
# with --run-ahead off (one path, every value concrete; cut off at MAX_TIME
# seconds, default 60); and checksum.c, a long concrete loop between a few
# symbolic branches, under the same engines. Throughput is IR statements
# per second; `x wasmi` divides wasmi's throughput (the interpreter's
# statement count over wasmi's time on the same program; for checksum the
# mean over the input-free ones) by each runtime's: how many times slower
# than wasmi it is. For checksum, a run-ahead engine's cell also gives the
# throughput on the concrete parts: the statements run ahead over the time
# the hand-overs took (conversions both ways included).
set -euo pipefail
cd "$(dirname "$0")/../.."
max_time=${MAX_TIME:-60}
if ! command -v clang >/dev/null || ! command -v wasm-ld >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld
fi
for p in primes sort hash checksum; do
    clang --target=wasm32 -O0 -nostdlib -Wl,--no-entry -Wl,--export-all -Wl,--allow-undefined \
        -o "bench/wasm/$p.wasm" "bench/wasm/$p.c"
done
cargo build --release --quiet
cargo build --release --quiet -p braid-wasm --example concrete_time --example wasmi_time
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "${CARGO_TARGET_DIR:-target}/release/braid" "$tmp/braid"
engine() { # program engine [run args] -> "statements wall_ms complete statements_ahead ahead_ms"
    local p=$1 e=$2
    shift 2
    "$tmp/braid" run "bench/wasm/$p.wasm" --engine "$e" "$@" --max-time "$max_time" --json 2>/dev/null |
        python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["stats"]
print(s["statements"], s["wall_ms"], "yes" if d.get("complete") else "no", s["statements_ahead"], s["ahead_ms"])'
}
echo "| program | statements | wasmi ms | interpreter ms (x wasmi) | dse Mstmt/s (x wasmi) | dse --run-ahead off Mstmt/s (x wasmi) | multise Mstmt/s (x wasmi) | multise --run-ahead off Mstmt/s (x wasmi) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
rates=()
for p in primes sort hash; do
    read -r _ _ steps ims < <("${CARGO_TARGET_DIR:-target}/release/examples/concrete_time" "bench/wasm/$p.wasm" | grep '^braid-interpreter')
    read -r _ _ _ wms < <("${CARGO_TARGET_DIR:-target}/release/examples/wasmi_time" "bench/wasm/$p.wasm" | awk '{print "x x x", $NF}')
    wrate=$(python3 -c "print($steps / ($wms / 1e3))")
    rates+=("$wrate")
    row="| $p | $steps | $wms | $ims ($(python3 -c "print('%.1f' % ($ims / $wms))")) |"
    for e in dse dse-off multise multise-off; do
        read -r n ms done _ _ < <(engine "$p" "${e%-off}" $([ "${e%-off}" != "$e" ] && echo --run-ahead off))
        rate=$(python3 -c "print($n / ($ms / 1e3))")
        cut=$([ "$done" = yes ] && echo "" || echo ", cut off")
        row="$row $(python3 -c "print('%.1f (%.0f)' % ($rate / 1e6, $wrate / $rate))")$cut |"
    done
    echo "$row"
done
mean=$(python3 -c "import statistics; print(statistics.mean([$(IFS=,; echo "${rates[*]}")]))")
row="| checksum (4 symbolic bytes) | | | |"
for e in dse dse-off multise multise-off; do
    read -r n ms done an ams < <(engine checksum "${e%-off}" $([ "${e%-off}" != "$e" ] && echo --run-ahead off))
    rate=$(python3 -c "print($n / ($ms / 1e3))")
    cut=$([ "$done" = yes ] && echo "" || echo ", cut off")
    ahead=""
    if [ "$an" -gt 0 ]; then
        ahead="; ahead $(python3 -c "r = $an / (max($ams, 1) / 1e3); print('%.1f (%.0f)' % (r / 1e6, $mean / r))")"
    fi
    row="$row $(python3 -c "print('%.1f (%.0f)' % ($rate / 1e6, $mean / $rate))")$ahead$cut |"
done
echo "$row"
