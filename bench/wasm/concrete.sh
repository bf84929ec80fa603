#!/usr/bin/env bash
# Concrete execution speed: an input-free, compute-heavy wasm program
# (primes.c, built here with clang) run once in wasmi and explored by
# braid's engines (one path, every value concrete), and the one test replayed
# by braid's concrete interpreter (which also runs it in wasmi), side by side.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v clang >/dev/null || ! command -v wasm-ld >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld
fi
clang --target=wasm32 -O0 -nostdlib -Wl,--no-entry -Wl,--export-all -Wl,--allow-undefined \
    -o bench/wasm/primes.wasm bench/wasm/primes.c
cargo build --release --quiet
cargo build --release --quiet -p braid-wasm --example wasmi_time
echo "| runtime | result | ms |"
echo "|---|---|---|"
w=$(./target/release/examples/wasmi_time bench/wasm/primes.wasm)
echo "| wasmi 2.0.0 | ${w% * ms} | $(echo "$w" | awk '{print $(NF-1)}') |"
for engine in dse multise; do
    ./target/release/braid run bench/wasm/primes.wasm --engine "$engine" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["stats"]
print("| braid %s | %d IR statements | %d |" % (sys.argv[1], s["statements"], s["wall_ms"]))' "$engine"
done
out=$(mktemp -d)
./target/release/braid run bench/wasm/primes.wasm --out "$out" >/dev/null
start=$(date +%s%N)
./target/release/braid replay bench/wasm/primes.wasm "$out"/tests/*.json >/dev/null
end=$(date +%s%N)
echo "| braid replay (interpreter + wasmi) | 1 test | $(( (end - start) / 1000000 )) |"
rm -rf "$out"
