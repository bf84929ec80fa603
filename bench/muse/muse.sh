#!/usr/bin/env bash
# MuSE (seed 002): concolic execution with and without partial solutions on
# binary-format parsers written by the team (BMP, WAV, PGM, GIF, PCX headers,
# a bytecode verifier, a base64-armoured record whose characters decode
# through a lookup table), every input byte symbolic, each started from a
# valid seed file (bench/muse/*.seed), and on floating-point programs
# (triangle, quadratic, thermostat; started from zeros). Configurations
# dfs, dfs+P, bfs, bfs+P (+P: --partial-solutions), each cut off at
# MAX_TIME seconds (default 30); concolic's solver time per open branch is
# its default (1 s).
#
# Columns: final branch coverage; new branches covered after the first run
# (the seed's path); paths; solver calls (open branches solved); and, for +P
# rows, the time and the solver calls +P needed to reach the baseline's
# final coverage, with the baseline's own time and calls to its final
# coverage for comparison. Times come from each run's coverage-over-time
# record (ms since the start), so they include runs, filters and solving.
# PLOT=FILE.svg also draws each program's coverage over time (log time axis),
# the four configurations as four lines. PROGRAMS="b64 pgm" runs some only.
set -euo pipefail
cd "$(dirname "$0")/../.."
max_time=${MAX_TIME:-30}
cargo build --release --quiet
# Tests under /dev/shm unless TMPDIR says where: on ext4 without a journal,
# creating files just after many were deleted costs up to 0.6 ms each.
tmp=$(mktemp -d -p "${TMPDIR:-/dev/shm}" 2>/dev/null || mktemp -d)
# The binary copied aside (a /dev/shm mounted noexec cannot run it), so a
# rebuild during the run does not change it.
bin=$(mktemp -d)
trap 'rm -rf "$tmp" "$bin"' EXIT
cp "${CARGO_TARGET_DIR:-target}/release/braid" "$bin/braid"
programs=${PROGRAMS:-"bmp wav pgm gif pcx bytecode b64 triangle quadratic thermostat"}
for p in $programs; do
    seed=()
    if [ -f "bench/muse/$p.seed" ]; then seed=(--seed-input "bench/muse/$p.seed"); fi
    for s in dfs bfs; do
        for flag in "" --partial-solutions; do
            tag=$s${flag:+-p}
            "$bin/braid" run "bench/muse/$p.c" --engine concolic --search "$s" $flag "${seed[@]}" \
                --max-time "$max_time" --json --progress never \
                --out "$tmp/$p-$tag" >"$tmp/$p-$tag.json" 2>/dev/null || true
            "$bin/braid" replay "bench/muse/$p.c" "$tmp/$p-$tag/tests" >"$tmp/$p-$tag.replay" 2>&1 ||
                echo "replay failed: $p $tag" >&2
        done
    done
done
python3 - "$tmp" "$max_time" "${PLOT:-}" $programs <<'EOF'
import json, math, sys
tmp, max_time, plot, programs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def load(p, tag):
    j = json.load(open(f"{tmp}/{p}-{tag}.json"))
    c = j["stats"]["concolic"]
    cov = c["coverage"]
    start = c["explore_start_ms"]
    return dict(final=j["coverage"]["branches_covered"], total=j["coverage"]["branches_total"],
                first=cov[0][1] if cov else 0, paths=j["paths"], calls=c["solver_calls"],
                complete=j["complete"], cov=[(ms - start, n, k) for ms, n, k in cov], partials=c["partial_solutions"],
                ptests=c["partial_tests"], simplex=c["solved_by_simplex"], search=c["solved_by_search"],
                hist=c["partials_per_call"], ms=j["stats"]["wall_ms"] - start,
                by_partials=c["solved_by_partials"])
def reach(r, target):
    """(ms, solver calls) at which run r first covered `target` branches."""
    for ms, covered, calls in r["cov"]:
        if covered >= target:
            return ms, calls
    return None
print(f"MAX_TIME={max_time}s per run\n")
print("| program | config | coverage | new after first run | paths | solver calls | partial solutions (new paths) | to baseline's final coverage: ms (calls) | baseline: ms (calls) |")
print("|---|---|---|---|---|---|---|---|---|")
speed, calls_ratio = [], []
for p in programs:
    for s in ["dfs", "bfs"]:
        base = load(p, s)
        for tag in [s, s + "-p"]:
            r = load(p, tag)
            done = "" if r["complete"] else " (incomplete)"
            cell, bcell = "", ""
            if tag.endswith("-p"):
                b = reach(base, base["final"])
                x = reach(r, base["final"])
                bcell = f"{b[0]} ({b[1]})" if b else "-"
                cell = f"{x[0]} ({x[1]})" if x else "not reached"
                if b and x:
                    speed.append(max(b[0], 1) / max(x[0], 1))
                    calls_ratio.append(max(b[1], 1) / max(x[1], 1))
            print(f"| {p} | {tag.replace('-p', '+P')} | {r['final']}/{r['total']}{done} | {r['final'] - r['first']} | {r['paths']} | {r['calls']} | {r['partials']} ({r['ptests']}) | {cell} | {bcell} |")
print("\nFigure 8: solver calls by their number of partial solutions (+P runs), and the calls the simplex or")
print("the float search answered without Z3, and those whose branch a run of one of their partial solutions")
print("took before Z3 was asked.\n")
buckets = [b for b, _ in load(programs[0], "dfs-p")["hist"]]
print("| program | config | " + " | ".join(buckets) + " | by simplex | by search | by partial solutions |")
print("|---|---|" + "---|" * (len(buckets) + 3))
for p in programs:
    for s in ["dfs", "bfs"]:
        r = load(p, s + "-p")
        print(f"| {p} | {s}+P | " + " | ".join(str(n) for _, n in r["hist"]) + f" | {r['simplex']} | {r['search']} | {r['by_partials']} |")
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print(f"\nGeometric mean over programs and strategies where both reach the baseline's final coverage:"
      f" time ratio baseline/+P {gm(speed):.2f}x, solver-call ratio baseline/+P {gm(calls_ratio):.2f}x ({len(speed)} pairs)")

def svg(path):
    """Small multiples: covered branches over log time, one panel per program."""
    W, H, cols, pad = 300, 190, 3, 34
    rows = (len(programs) + cols - 1) // cols
    tmax = int(max_time) * 1000
    styles = {"dfs": ("#1f77b4", ""), "dfs-p": ("#1f77b4", "5,3"), "bfs": ("#d62728", ""), "bfs-p": ("#d62728", "5,3")}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * W}" height="{rows * H + 30}" font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>']
    for i, p in enumerate(programs):
        ox, oy = (i % cols) * W, (i // cols) * H
        runs = {t: load(p, t) for t in styles}
        lo = min(r["first"] for r in runs.values())
        hi = max(r["final"] for r in runs.values())
        hi = hi if hi > lo else lo + 1
        x = lambda ms: ox + pad + (W - pad - 10) * math.log10(max(ms, 1)) / math.log10(tmax)
        y = lambda c: oy + H - pad + 6 - (H - pad - 20) * (c - lo) / (hi - lo)
        out.append(f'<text x="{ox + pad}" y="{oy + 14}" font-weight="bold">{p}</text>')
        out.append(f'<rect x="{ox + pad}" y="{oy + 20}" width="{W - pad - 10}" height="{H - pad - 14}" fill="none" stroke="#999"/>')
        for ms, label in [(1, "1ms"), (1000, "1s"), (tmax, f"{max_time}s")]:
            out.append(f'<text x="{x(ms):.1f}" y="{oy + H - 12}" text-anchor="middle">{label}</text>')
        out.append(f'<text x="{ox + pad - 4}" y="{y(lo):.1f}" text-anchor="end">{lo}</text>')
        out.append(f'<text x="{ox + pad - 4}" y="{y(hi) + 8:.1f}" text-anchor="end">{hi}</text>')
        for tag, (colour, dash) in styles.items():
            r = runs[tag]
            pts, last = [], r["first"]
            for ms, covered, _ in r["cov"]:
                pts += [(x(ms), y(last)), (x(ms), y(covered))]
                last = covered
            end = min(max(r["ms"], 1), tmax)
            pts.append((x(end), y(last)))
            d = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            out.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="1.5"'
                       + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
    ly = rows * H + 18
    for j, (tag, (colour, dash)) in enumerate(styles.items()):
        lx = 20 + j * 150
        out.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 30}" y2="{ly - 4}" stroke="{colour}" stroke-width="1.5"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.append(f'<text x="{lx + 36}" y="{ly}">{tag.replace("-p", "+P")}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")

if plot:
    svg(plot)
    print(f"\nCoverage over time: {plot}")
EOF
