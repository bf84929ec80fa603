#!/usr/bin/env python3
"""Replays braid query logs (`braid run --dump-queries DIR`) through several
SMT solvers and compares their solving time and answers.

Every query is solved from scratch. Z3 (Debian's 4.8.12 through
python3-z3, and a newer one from PyPI's z3-solver) and Bitwuzla (PyPI) run
in-process and only `check` is timed; cvc5 1.0.3 (Debian's CLI) runs once
per query and its time is the process's minus an empty script's. An answer
that contradicts the one recorded in the log (sat against unsat) is counted
as a disagreement; `unknown` includes per-query timeouts. A solver that is
missing is left out; `compare.sh` installs them.

Usage: compare.py [--timeout-ms MS] DIR [DIR ...]
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

VENV = os.environ.get("BRAID_SOLVER_VENV", os.path.expanduser("~/.cache/braid-solver-venv"))

Z3_WORKER = """
import sys, time, json, z3
out = []
for f in sys.argv[2:]:
    s = z3.Solver()
    s.set("timeout", int(sys.argv[1]))
    try:
        s.from_file(f)
    except Exception:
        out.append(("error", 0.0))
        continue
    t = time.perf_counter()
    r = s.check()
    out.append((str(r), time.perf_counter() - t))
print(json.dumps({"version": z3.get_version_string(), "results": out}))
"""

BITWUZLA_WORKER = """
import sys, time, json, bitwuzla
out = []
for f in sys.argv[2:]:
    opts = bitwuzla.Options()
    opts.set(bitwuzla.Option.TIME_LIMIT_PER, int(sys.argv[1]))
    tm = bitwuzla.TermManager()
    p = bitwuzla.Parser(tm, opts)
    try:
        p.parse(f, True, True)
    except Exception:
        out.append(("error", 0.0))
        continue
    b = p.bitwuzla()
    t = time.perf_counter()
    r = b.check_sat()
    out.append((str(r), time.perf_counter() - t))
print(json.dumps({"version": bitwuzla.__version__ if hasattr(bitwuzla, "__version__") else "0.9", "results": out}))
"""


def portable(text):
    """Z3 writes a float's bits as `(fp.to_ieee_bv x)`, its own extension:
    for a declared float symbol x, that becomes a bit-vector symbol with
    `(= x ((_ to_fp e s) bits))` (which leaves NaN's bits free, as Z3's
    operator does), so that other solvers read the query."""
    floats = dict(
        (m.group(1), (int(m.group(2)), int(m.group(3))))
        for m in re.finditer(r"\(declare-fun (\|[^|]*\||\S+) \(\) \(_ FloatingPoint (\d+) (\d+)\)\)", text)
    )
    extra = []
    for name, (e, sig) in floats.items():
        use = f"(fp.to_ieee_bv {name})"
        if use in text:
            bits = name[:-1] + "_bits|" if name.endswith("|") else name + "_bits"
            text = text.replace(use, bits)
            extra.append(f"(declare-fun {bits} () (_ BitVec {e + sig}))\n(assert (= {name} ((_ to_fp {e} {sig}) {bits})))\n")
    if not extra:
        return text
    at = text.index("(assert") if "(assert" in text else text.index("(check-sat)")
    return text[:at] + "".join(extra) + text[at:]


def worker(python, code, timeout_ms, files):
    p = subprocess.run([python, "-c", code, str(timeout_ms)] + files, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1:] or ["failed"]
    d = json.loads(p.stdout)
    return d["version"], d["results"]


def cvc5(timeout_ms, files):
    def one(f):
        t = time.perf_counter()
        p = subprocess.run(["cvc5", f"--tlimit-per={timeout_ms}", "--lang=smt2", f], capture_output=True, text=True)
        took = time.perf_counter() - t
        words = [w for w in p.stdout.split() if w in ("sat", "unsat", "unknown")]
        return (words[-1] if words else "unknown"), took

    with tempfile.NamedTemporaryFile("w", suffix=".smt2", delete=False) as f:
        f.write("(check-sat)\n")
    base = statistics.median(one(f.name)[1] for _ in range(21))
    os.unlink(f.name)
    return [(a, max(t - base, 0.0)) for a, t in map(one, files)]


def solvers(timeout_ms):
    """(name, run) where run(files) gives [(answer, seconds)] or an error."""
    out = []
    system_py = "/usr/bin/python3"
    venv_py = os.path.join(VENV, "bin", "python3")
    for py in (system_py, venv_py):
        if os.path.exists(py) and subprocess.run([py, "-c", "import z3"], capture_output=True).returncode == 0:
            v = subprocess.run([py, "-c", "import z3; print(z3.get_version_string())"], capture_output=True, text=True)
            out.append((f"z3 {v.stdout.strip()}", lambda fs, py=py: worker(py, Z3_WORKER, timeout_ms, fs)[1]))
    if shutil.which("cvc5"):
        out.append(("cvc5 1.0.3", lambda fs: cvc5(timeout_ms, fs)))
    if os.path.exists(venv_py) and subprocess.run([venv_py, "-c", "import bitwuzla"], capture_output=True).returncode == 0:
        out.append(("bitwuzla", lambda fs: worker(venv_py, BITWUZLA_WORKER, timeout_ms, fs)[1]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout-ms", type=int, default=10000)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    found = solvers(args.timeout_ms)
    print("| log | queries (sat/unsat) | Z3 in braid | " + " | ".join(n for n, _ in found) + " |")
    print("|---|---|---|" + "---|" * len(found))
    work = tempfile.mkdtemp()
    for d in args.dirs:
        originals = sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".smt2"))
        files = []
        for f in originals:
            files.append(os.path.join(work, os.path.basename(f)))
            with open(files[-1], "w") as out:
                out.write(portable(open(f).read()))
        expected, braid_s = [], 0.0
        for f in originals:
            head = open(f).read(400)
            m = re.search(r"\(set-info :status (\w+)\)", head)
            expected.append(m.group(1) if m else "unknown")
            m = re.search(r"in ([0-9.]+) ms", head)
            braid_s += float(m.group(1)) / 1000 if m else 0.0
        cells = []
        for _, run in found:
            results = run(files)
            if not results or isinstance(results[0], str):
                cells.append(f"failed: {results[0][:50] if results else ''}")
                continue
            errors = sum(1 for a, _ in results if a == "error")
            total = sum(t for _, t in results)
            wrong = sum(1 for (a, _), e in zip(results, expected) if {a, e} == {"sat", "unsat"})
            unknown = sum(1 for a, _ in results if a not in ("sat", "unsat", "error"))
            cell = f"{total:.2f} s"
            if unknown:
                cell += f", {unknown} unknown"
            if wrong:
                cell += f", {wrong} DISAGREE"
            if errors:
                cell += f", {errors} not read"
            cells.append(cell)
        sat = expected.count("sat")
        unsat = expected.count("unsat")
        print(f"| {os.path.basename(d.rstrip('/'))} | {len(files)} ({sat}/{unsat}) | {braid_s:.2f} s | " + " | ".join(cells) + " |", flush=True)
        for f in files:
            os.unlink(f)
    os.rmdir(work)


if __name__ == "__main__":
    sys.exit(main())
