//! `braid bench SUITE --engines a,b,...`: every program of a suite under
//! every engine, in one run, side by side. Each engine runs as its own
//! `braid run` process (so one run's memory or crash cannot touch the
//! others, and its peak memory and overrun of the time limit are measured);
//! its tests are then replayed here: the engines must agree on the branches
//! their tests cover and on the bugs they find. Markdown tables by default,
//! one JSON object with `--json`.

use anyhow::{anyhow, bail, Context, Result};
use braid_engine::replay::Replayer;
use braid_engine::results::Branch;
use braid_engine::{EngineKind, EngineSpec, SearchKind, TestCase};
use braid_wasm::wasmi_replay::Prepared;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct BenchArgs {
    pub suite: PathBuf,
    pub engines: Vec<String>,
    pub json: bool,
    pub max_time: Option<Duration>,
    pub search: SearchKind,
    /// dsm's driving searcher (`None`: `braid run`'s default).
    pub driver: Option<SearchKind>,
}

/// The statistics the tables show, read off a run's `--json` object.
#[derive(Default)]
struct RunStats {
    wall_ms: u64,
    complete: bool,
    timed_out: bool,
    paths: u64,
    paths_exact: bool,
    tests: u64,
    frontier_tests: u64,
    solver_queries: u64,
    solver_calls: u64,
    solver_ms: u64,
    bdd_ms: u64,
    operations: u64,
    statements: u64,
    states_merged: u64,
    merge_attempts: u64,
    fast_forwards: u64,
    fast_forwards_merged: u64,
    ite_queries: u64,
    branches_explored: Option<u64>,
    avg_value_summary_size: f64,
    sharing_factor: f64,
}

impl RunStats {
    fn read(j: &Value) -> RunStats {
        let s = &j["stats"];
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let reasons: Vec<&str> = j["incomplete_reasons"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        RunStats {
            wall_ms: n(&s["wall_ms"]),
            complete: j["complete"].as_bool().unwrap_or(false),
            timed_out: reasons.iter().any(|r| r.starts_with("time limit")),
            paths: n(&j["paths"]),
            paths_exact: j["paths_exact"].as_bool().unwrap_or(false),
            tests: n(&j["tests"]),
            frontier_tests: n(&j["frontier_tests"]),
            solver_queries: n(&s["solver_queries"]),
            solver_calls: n(&s["solver_calls"]),
            solver_ms: n(&s["solver_ms"]),
            bdd_ms: n(&s["bdd_ms"]),
            operations: n(&s["operations"]),
            statements: n(&s["statements"]),
            states_merged: n(&s["states_merged"]),
            merge_attempts: n(&s["merge_attempts"]),
            fast_forwards: n(&s["fast_forwards"]),
            fast_forwards_merged: n(&s["fast_forwards_merged"]),
            ite_queries: n(&s["ite_queries"]),
            branches_explored: s["branches_explored"].as_u64(),
            avg_value_summary_size: s["avg_value_summary_size"].as_f64().unwrap_or(0.0),
            sharing_factor: s["sharing_factor"].as_f64().unwrap_or(0.0),
        }
    }
}

/// One engine's run of one program, as the tables show it.
struct Summary {
    engine: String,
    result: RunStats,
    /// Wall time of the whole `braid run` process, and its peak resident memory.
    process_ms: u64,
    peak_rss_mb: u64,
    /// How the process ended when it did not exit normally.
    failure: Option<String>,
    covered: BTreeSet<Branch>,
    /// Where each covered branch is in the source (`Module::location`),
    /// to name the branches engines disagree on.
    places: BTreeMap<Branch, String>,
    bugs: BTreeSet<(braid_ir::BugKind, String)>,
    replay_failures: usize,
    /// `braid verify`'s verdict (SV-COMP tasks): TRUE, FALSE or UNKNOWN.
    verdict: Option<String>,
    /// `braid verify`'s reasons for its verdict (an UNKNOWN's: why not).
    why: Vec<String>,
}

impl Summary {
    fn json(&self, limit: Option<Duration>) -> Value {
        let s = &self.result;
        let pct = |part: u64| {
            if s.wall_ms == 0 {
                0.0
            } else {
                100.0 * part as f64 / s.wall_ms as f64
            }
        };
        json!({
            "engine": self.engine,
            "time_ms": s.wall_ms,
            "process_ms": self.process_ms,
            "overrun_ms": self.overrun_ms(limit),
            "peak_rss_mb": self.peak_rss_mb,
            "failure": self.failure,
            "complete": s.complete,
            "timed_out": s.timed_out,
            "paths": s.paths,
            "paths_exact": s.paths_exact,
            "tests": s.tests,
            "frontier_tests": s.frontier_tests,
            "replay_failures": self.replay_failures,
            "verdict": self.verdict,
            "bugs": self.bugs.len(),
            "branches_covered": self.covered.len(),
            "branches_explored": s.branches_explored,
            "solver_queries": s.solver_queries,
            "solver_calls": s.solver_calls,
            "solver_ms": s.solver_ms,
            "solver_pct": pct(s.solver_ms),
            "bdd_ms": s.bdd_ms,
            "bdd_pct": pct(s.bdd_ms),
            "operations": s.operations,
            "statements": s.statements,
            "states_merged": s.states_merged,
            "merge_attempts": s.merge_attempts,
            "fast_forwards": s.fast_forwards,
            "fast_forwards_merged": s.fast_forwards_merged,
            "ite_queries": s.ite_queries,
            "avg_value_summary_size": s.avg_value_summary_size,
            "sharing_factor": s.sharing_factor,
        })
    }

    /// How far past the time limit the process ended (0 if it did not).
    fn overrun_ms(&self, limit: Option<Duration>) -> u64 {
        limit.map_or(0, |l| self.process_ms.saturating_sub(l.as_millis() as u64))
    }

    /// Average time of one solver call (ms).
    fn call_ms(&self) -> f64 {
        let s = &self.result;
        s.solver_ms as f64 / s.solver_calls.max(1) as f64
    }
}

struct Row {
    program: String,
    /// The verdict an SV-COMP task expects.
    expected: Option<Verdict>,
    engines: Vec<Summary>,
}

/// An SV-COMP verdict for the property unreach-call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    True,
    False,
}

impl Verdict {
    fn name(self) -> &'static str {
        match self {
            Verdict::True => "TRUE",
            Verdict::False => "FALSE",
        }
    }

    /// SV-COMP's score of answering `answer` where `self` is right: +2 a
    /// correct TRUE, +1 a correct FALSE, -16 a wrong FALSE, -32 a wrong
    /// TRUE, 0 anything else (UNKNOWN, a failed run).
    fn score(self, answer: Option<&str>) -> i64 {
        match (self, answer) {
            (Verdict::True, Some("TRUE")) => 2,
            (Verdict::False, Some("FALSE")) => 1,
            (Verdict::True, Some("FALSE")) => -16,
            (Verdict::False, Some("TRUE")) => -32,
            _ => 0,
        }
    }
}

/// The verdict a C program expects: its first line `// expect: TRUE` or
/// `// expect: FALSE`.
fn expected_verdict(path: &Path) -> Option<Verdict> {
    if path.extension().is_none_or(|e| e != "c") {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    match text.lines().next()?.strip_prefix("// expect:")?.trim() {
        "TRUE" => Some(Verdict::True),
        "FALSE" => Some(Verdict::False),
        _ => None,
    }
}

/// An engine's SV-COMP results over a suite's tasks.
#[derive(Default)]
struct Score {
    score: i64,
    correct: usize,
    wrong: usize,
    unknown: usize,
    /// FALSE answers whose test does not replay (in braid or in wasmi).
    unbacked: usize,
}

impl Score {
    fn of(rows: &[Row], engine: usize) -> Score {
        let mut sc = Score::default();
        for row in rows {
            let (Some(expected), Some(e)) = (row.expected, row.engines.get(engine)) else {
                continue;
            };
            let answer = e.verdict.as_deref().filter(|_| e.failure.is_none());
            sc.score += expected.score(answer);
            match answer {
                Some(a) if a == expected.name() => sc.correct += 1,
                Some("TRUE" | "FALSE") => sc.wrong += 1,
                _ => sc.unknown += 1,
            }
            if answer == Some("FALSE") && (e.replay_failures > 0 || e.bugs.is_empty()) {
                sc.unbacked += 1;
            }
        }
        sc
    }

    fn json(&self) -> Value {
        json!({
            "score": self.score,
            "correct": self.correct,
            "wrong": self.wrong,
            "unknown": self.unknown,
            "false_without_replaying_test": self.unbacked,
        })
    }
}

impl Row {
    /// Whether every engine's tests replay and cover the first engine's
    /// branches and bugs; `None` when some run is incomplete (nothing to
    /// compare).
    fn agree(&self) -> Option<bool> {
        if self.engines.iter().any(|e| !e.result.complete) {
            return None;
        }
        let first = &self.engines[0];
        Some(
            self.engines
                .iter()
                .all(|e| e.replay_failures == 0 && e.covered == first.covered && e.bugs == first.bugs),
        )
    }

    /// What each engine covers or finds that the first does not, and the
    /// other way round, and the tests that do not replay, where they
    /// disagree: one line each.
    fn disagreements(&self) -> Vec<String> {
        let first = &self.engines[0];
        let mut lines = Vec::new();
        let mut say = |what: String, items: Vec<String>| {
            if !items.is_empty() {
                lines.push(format!("{}: {what}: {}", self.program, items.join("; ")));
            }
        };
        for e in &self.engines[1..] {
            for (a, b) in [(first, e), (e, first)] {
                let branches = (a.covered.difference(&b.covered))
                    .map(|br| {
                        let place = a.places.get(br).map_or("?", String::as_str);
                        format!("{place} {}", if br.2 { "taken" } else { "not taken" })
                    })
                    .collect();
                say(format!("{} covers, {} does not", a.engine, b.engine), branches);
                let bugs = (a.bugs.difference(&b.bugs))
                    .map(|(kind, at)| format!("{kind} at {at}"))
                    .collect();
                say(format!("{} finds, {} does not", a.engine, b.engine), bugs);
            }
        }
        for e in self.engines.iter().filter(|e| e.replay_failures > 0) {
            say(
                format!("{}'s tests that do not replay", e.engine),
                vec![e.replay_failures.to_string()],
            );
        }
        lines
    }

    /// `first / second` of a measure, when both are positive.
    fn ratio(&self, f: impl Fn(&Summary) -> f64) -> Option<f64> {
        let [a, b, ..] = self.engines.as_slice() else {
            return None;
        };
        let (x, y) = (f(a), f(b));
        (x > 0.0 && y > 0.0).then(|| x / y)
    }

    /// The program's number of paths, when a complete run counted them
    /// exactly (then every complete run explored that many).
    fn exact_paths(&self) -> Option<u64> {
        self.engines
            .iter()
            .find(|e| e.result.paths_exact && e.result.complete)
            .map(|e| e.result.paths)
    }

    fn json(&self, limit: Option<Duration>) -> Value {
        let engines: serde_json::Map<String, Value> =
            self.engines.iter().map(|e| (e.engine.clone(), e.json(limit))).collect();
        let ms = |e: &Summary| e.result.wall_ms as f64;
        let solver_ms = |e: &Summary| e.result.solver_ms as f64;
        let ops = |e: &Summary| e.result.operations as f64;
        json!({
            "program": self.program,
            "expected": self.expected.map(Verdict::name),
            "engines": engines,
            "exact_paths": self.exact_paths(),
            "time_ratio": self.ratio(ms),
            "solver_time_ratio": self.ratio(solver_ms),
            "solver_call_ratio": self.ratio(Summary::call_ms),
            "ops_ratio": self.ratio(ops),
            "agree": self.agree(),
        })
    }
}

/// The suite's programs: `.bir` files of a directory (names compared with
/// their numbers as numbers), or one file.
fn programs(suite: &Path) -> Result<Vec<PathBuf>> {
    if suite.is_file() {
        return Ok(vec![suite.to_path_buf()]);
    }
    let dir = std::fs::read_dir(suite).with_context(|| format!("cannot read the suite {}", suite.display()))?;
    // A C source is a program of its own when it is an SV-COMP task;
    // otherwise it is the source of the .bir or .wasm beside it.
    let mut files: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "bir" || e == "wasm")
                || expected_verdict(p).is_some()
                    && !p.with_extension("bir").exists()
                    && !p.with_extension("wasm").exists()
        })
        .collect();
    files.sort_by_key(|p| natural_key(&p.display().to_string()));
    if files.is_empty() {
        bail!(
            "{}: no programs in the suite (.bir or .wasm files, or C files whose first line is `// expect: TRUE|FALSE`)",
            suite.display()
        );
    }
    Ok(files)
}

/// `echo-10-4` after `echo-9-4`: digit runs compare as numbers.
fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut n = c.to_digit(10).unwrap_or(0) as u64;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d as u64);
                chars.next();
            }
            key.push((std::mem::take(&mut text), n));
        } else {
            text.push(c);
        }
    }
    key.push((text, 0));
    key
}

/// The extra `braid run` arguments of a suite program: the first
/// `// braid-args:` line of the C source beside it.
fn example_words(path: &Path) -> Vec<String> {
    let Ok(src) = std::fs::read_to_string(path.with_extension("c")) else {
        return Vec::new();
    };
    src.lines()
        .find_map(|l| l.strip_prefix("// braid-args:"))
        .map(|a| a.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// Runs one engine on one program in a `braid run` process of its own, and
/// replays the tests it wrote.
fn run_engine(path: &Path, engine: &str, args: &BenchArgs) -> Result<Summary> {
    let spec = EngineSpec::named(engine).ok_or_else(|| unknown_engine(engine))?;
    let words = example_words(path);
    let task = expected_verdict(path).is_some();
    let mut program_args = crate::ProgramArgs::parse(&words)?;
    if task && program_args.convention == braid_wasm::Convention::Auto {
        // What `braid verify` makes of `--convention auto`.
        program_args.convention = braid_wasm::Convention::Svcomp;
    }
    let loaded = crate::load_program(path, &program_args, false, true)?;
    let module = &loaded.module;
    let dir = scratch_dir()?;
    let mut cmd = std::process::Command::new(std::env::current_exe().context("cannot find the braid binary")?);
    cmd.arg(if task { "verify" } else { "run" })
        .arg(path)
        .args(["--json", "--progress", "never", "--out"])
        .arg(&dir)
        .args(spec.run_args())
        .args(&words);
    if !matches!(spec.kind, EngineKind::Concolic) {
        cmd.args(["--search", args.search.name()]);
    }
    if let (EngineKind::Dsm, Some(driver)) = (spec.kind, args.driver) {
        cmd.args(["--driver", driver.name()]);
    }
    if let Some(t) = args.max_time {
        cmd.args(["--max-time", &t.as_secs_f64().to_string()]);
    }
    let stdout = std::fs::File::create(dir.join("stdout.json"))?;
    let stderr = std::fs::File::create(dir.join("stderr.txt"))?;
    cmd.stdout(stdout).stderr(stderr);
    let start = Instant::now();
    let child = cmd.spawn().context("cannot start braid run")?;
    // Past its limit and a grace, the run is killed.
    let kill_after = args.max_time.map(|t| t + (t / 5).max(Duration::from_secs(10)));
    let (status, peak_rss_mb) = wait_measured(child.id() as libc::pid_t, start, kill_after);
    let process_ms = start.elapsed().as_millis() as u64;
    let text = std::fs::read_to_string(dir.join("stdout.json")).unwrap_or_default();
    let json: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let failure = match status {
        ExitStatus::Exited(0 | 1) if !json.is_null() => None,
        // `braid verify`'s UNKNOWN.
        ExitStatus::Exited(3) if task && !json.is_null() => None,
        ExitStatus::Exited(code) => {
            let err = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
            Some(format!("exit {code}: {}", err.trim()))
        }
        ExitStatus::Signalled(sig) => Some(format!("killed by signal {sig}")),
    };
    let mut covered = BTreeSet::new();
    let mut replay_failures = 0;
    let mut bugs = BTreeSet::new();
    let mut replayer = Replayer::default();
    let wasmi = loaded
        .wasm
        .as_ref()
        .map(|bytes| Prepared::new(bytes, program_args.convention));
    for t in test_files(&dir) {
        let test: Option<TestCase> = std::fs::read_to_string(&t)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        let replayed = test.map(|test| {
            let run = replayer.replay(module, &test)?;
            if let Some(wasmi) = &wasmi {
                let wasmi = wasmi.as_ref().map_err(String::clone)?;
                crate::wasmi_agrees(module, wasmi, &test, &program_args.wasi)?;
            }
            Ok::<_, String>((test, run))
        });
        match replayed {
            Some(Ok((test, run))) => {
                covered.extend(run.covered);
                if let braid_engine::Outcome::Bug { bug, location, .. } = test.outcome {
                    bugs.insert((bug, location));
                }
            }
            _ => replay_failures += 1,
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let places = covered
        .iter()
        .map(|&(f, stmt, taken)| ((f, stmt, taken), module.location(f, stmt)))
        .collect();
    Ok(Summary {
        engine: engine.to_string(),
        result: RunStats::read(&json),
        process_ms,
        peak_rss_mb,
        failure,
        covered,
        places,
        bugs,
        replay_failures,
        verdict: json["verdict"].as_str().map(String::from),
        why: json["why"]
            .as_array()
            .map(|w| w.iter().filter_map(|x| x.as_str().map(String::from)).collect())
            .unwrap_or_default(),
    })
}

fn unknown_engine(name: &str) -> anyhow::Error {
    anyhow!(
        "unknown engine `{name}` (known: {})",
        EngineSpec::BENCH_NAMES.join(", ")
    )
}

/// A fresh directory for one run's tests: under `TMPDIR` when it is set,
/// else in memory (`/dev/shm`) where there is one, else under `/tmp`.
/// Each run's tests are deleted once replayed, and on ext4 without a
/// journal (this project's machines) creating files for a few minutes after
/// deleting many passes over the freed inodes: dse on Table 1's Queue took
/// 0.65 s without tests, 0.91 s writing its 8 192 to `/dev/shm` and 6.1-7.2
/// s writing them to `/tmp` just after the previous run's were deleted, so
/// the times said more about the previous run's deletions than about the
/// engines.
fn scratch_dir() -> Result<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("braid-bench-{}-{n}", std::process::id());
    if std::env::var_os("TMPDIR").is_none() {
        let dir = Path::new("/dev/shm").join(&name);
        let _ = std::fs::remove_dir_all(&dir);
        if std::fs::create_dir_all(&dir).is_ok() {
            return Ok(dir);
        }
    }
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn test_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("tests"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    files
}

enum ExitStatus {
    Exited(i32),
    Signalled(i32),
}

/// Waits for the child `pid`, killing it at `kill_after` (from `start`):
/// how it ended and its peak resident memory in MiB.
fn wait_measured(pid: libc::pid_t, start: Instant, kill_after: Option<Duration>) -> (ExitStatus, u64) {
    let mut killed = false;
    loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 writes into the status and rusage we pass.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            let rss = usage.ru_maxrss.max(0) as u64 / 1024;
            let how = if libc::WIFEXITED(status) {
                ExitStatus::Exited(libc::WEXITSTATUS(status))
            } else {
                ExitStatus::Signalled(libc::WTERMSIG(status))
            };
            return (how, rss);
        }
        if r < 0 {
            return (ExitStatus::Exited(-1), 0);
        }
        if !killed && kill_after.is_some_and(|k| start.elapsed() > k) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `braid bench`: exit 0 when the engines agree on every program where
/// all runs completed, 1 otherwise.
pub fn bench(args: BenchArgs) -> Result<i32> {
    if args.engines.is_empty() {
        bail!(
            "--engines needs at least one engine ({})",
            EngineSpec::BENCH_NAMES.join(", ")
        );
    }
    if let Some(bad) = args.engines.iter().find(|e| EngineSpec::named(e).is_none()) {
        return Err(unknown_engine(bad));
    }
    let files = programs(&args.suite)?;
    let total = (files.len() * args.engines.len()) as u64;
    let bar = if !args.json && std::io::stderr().is_terminal() {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}").expect("a valid template"));
    let mut rows = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into_owned());
        let mut engines = Vec::new();
        for e in &args.engines {
            bar.set_message(format!("{name} under {e}"));
            engines.push(run_engine(f, e, &args)?);
            bar.inc(1);
        }
        rows.push(Row {
            program: name,
            expected: expected_verdict(f),
            engines,
        });
    }
    bar.finish_and_clear();
    if args.json {
        let mut out = json!({ "rows": rows.iter().map(|r| r.json(args.max_time)).collect::<Vec<Value>>() });
        if rows.iter().any(|r| r.expected.is_some()) {
            let scores: serde_json::Map<String, Value> = (args.engines.iter().enumerate())
                .map(|(i, e)| (e.clone(), Score::of(&rows, i).json()))
                .collect();
            out["sv_scores"] = Value::Object(scores);
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", markdown(&rows, &args));
        if rows.iter().any(|r| r.expected.is_some()) {
            print!("{}", verdict_table(&rows, &args));
        }
    }
    // A wrong verdict (a false alarm, a missed bug) fails the bench as a
    // disagreement does; so does a FALSE without a replaying test.
    let sound = (0..args.engines.len()).all(|i| {
        let sc = Score::of(&rows, i);
        sc.wrong == 0 && sc.unbacked == 0
    });
    Ok(if sound && rows.iter().all(|r| r.agree() != Some(false)) {
        0
    } else {
        1
    })
}

/// The SV-COMP tasks' verdicts per engine, and each engine's score.
fn verdict_table(rows: &[Row], args: &BenchArgs) -> String {
    let mut s = String::from("\nSV-COMP verdicts (unreach-call; +2 correct TRUE, +1 correct FALSE, -16 wrong FALSE, -32 wrong TRUE):\n\n| program | expected |");
    for e in &args.engines {
        let _ = write!(s, " {e} |");
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---|".repeat(args.engines.len()));
    s.push('\n');
    for row in rows {
        let Some(expected) = row.expected else {
            continue;
        };
        let _ = write!(s, "| {} | {} |", row.program, expected.name());
        for e in &row.engines {
            let answer = match (&e.failure, e.verdict.as_deref()) {
                (Some(_), _) => "FAILED".to_string(),
                (None, Some(v)) if v == expected.name() => format!("{v} ({:.1} s)", e.result.wall_ms as f64 / 1000.0),
                (None, Some(v @ ("TRUE" | "FALSE"))) => format!("**{v} (wrong)**"),
                (None, v) => v.unwrap_or("-").to_string(),
            };
            let replay = if e.replay_failures > 0 {
                format!(" ({} FAIL replay)", e.replay_failures)
            } else {
                String::new()
            };
            let _ = write!(s, " {answer}{replay} |");
        }
        s.push('\n');
    }
    let _ = write!(s, "| **score** (correct / wrong / unknown) | |");
    for i in 0..args.engines.len() {
        let sc = Score::of(rows, i);
        let _ = write!(s, " {} ({} / {} / {}) |", sc.score, sc.correct, sc.wrong, sc.unknown);
    }
    s.push('\n');
    // Why each UNKNOWN is one (a run that ended early says so).
    let mut first = true;
    for row in rows.iter().filter(|r| r.expected.is_some()) {
        for e in row.engines.iter().filter(|e| e.verdict.as_deref() == Some("UNKNOWN")) {
            if std::mem::take(&mut first) {
                s.push_str("\nUNKNOWN, why:\n\n");
            }
            let why = e.why.first().map_or("no reason given", String::as_str);
            let _ = writeln!(s, "- {} ({}): {}", row.program, e.engine, why.replace('\n', " "));
        }
    }
    s
}

fn markdown(rows: &[Row], args: &BenchArgs) -> String {
    let mut s = String::new();
    let limit = args.max_time.map(|t| t.as_secs_f64());
    let _ = writeln!(
        s,
        "| program | engine | time ms | overrun s | peak MB | paths | paths/s | tests | frontier | queries | Z3 calls | solver % | BDD % | VS size | sharing | operations | merged | covered | explored | bugs |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for row in rows {
        let exact = row.exact_paths();
        for e in &row.engines {
            let r = &e.result;
            if let Some(why) = &e.failure {
                let _ = writeln!(
                    s,
                    "| {} | {} | FAILED: {} |",
                    row.program,
                    e.engine,
                    why.replace('|', "/")
                );
                continue;
            }
            let time = match (r.timed_out, limit) {
                (true, Some(t)) => format!(">{t}s"),
                _ => r.wall_ms.to_string(),
            };
            let paths = if r.paths == u64::MAX {
                "~2^64+".to_string()
            } else if r.paths_exact {
                r.paths.to_string()
            } else {
                format!("~{}", r.paths)
            };
            let rate = match exact {
                Some(p) if r.complete => format!("{:.0}", p as f64 / (r.wall_ms.max(1) as f64 / 1000.0)),
                _ => "-".into(),
            };
            let pct = |x: u64| format!("{:.0}", 100.0 * x as f64 / r.wall_ms.max(1) as f64);
            // The sharing factor divides the path count; a saturated
            // estimate says nothing.
            let sharing = match (r.paths_exact, r.paths) {
                (_, u64::MAX) => "-".to_string(),
                (true, _) => format!("{:.1}", r.sharing_factor),
                (false, _) => format!("~{:.1}", r.sharing_factor),
            };
            let replay = if e.replay_failures > 0 {
                format!(" ({} FAIL replay)", e.replay_failures)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "| {} | {} | {time} | {:.1} | {} | {paths} | {rate} | {}{replay} | {} | {} | {} | {} | {} | {:.1} | {sharing} | {} | {} | {} | {} | {} |",
                row.program,
                e.engine,
                e.overrun_ms(args.max_time) as f64 / 1000.0,
                e.peak_rss_mb,
                r.tests,
                r.frontier_tests,
                r.solver_queries,
                r.solver_calls,
                pct(r.solver_ms),
                pct(r.bdd_ms),
                r.avg_value_summary_size,
                r.operations,
                r.states_merged,
                e.covered.len(),
                r.branches_explored.map_or("-".into(), |b| b.to_string()),
                e.bugs.len(),
            );
        }
    }
    if args.engines.len() >= 2 {
        let (a, b) = (&args.engines[0], &args.engines[1]);
        let _ = writeln!(s, "\nRatios {a} / {b}:\n");
        let _ = writeln!(
            s,
            "| program | time | solver time | solver-call time | operations | agree |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        let show = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}"));
        let mut logs = Vec::new();
        for row in rows {
            let ms = |e: &Summary| e.result.wall_ms as f64;
            let time = row.ratio(ms);
            if row.engines.iter().all(|e| e.result.complete) {
                logs.extend(time.map(f64::ln));
            }
            let agree = match row.agree() {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "n/a (incomplete)",
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {agree} |",
                row.program,
                show(time),
                show(row.ratio(|e| e.result.solver_ms as f64)),
                show(row.ratio(Summary::call_ms)),
                show(row.ratio(|e| e.result.operations as f64)),
            );
        }
        if !logs.is_empty() {
            let geo = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
            let _ = writeln!(s, "\nGeometric mean of the time ratio over complete rows: {geo:.2}");
        }
        let differ: Vec<String> = (rows.iter())
            .filter(|r| r.agree() == Some(false))
            .flat_map(Row::disagreements)
            .collect();
        if !differ.is_empty() {
            let _ = writeln!(s, "\nWhere the engines disagree:\n");
            for line in differ {
                let _ = writeln!(s, "- {line}");
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_ir::FuncId;

    fn summary(engine: &str, covered: &[(u32, u32, bool)], bugs: &[&str], replay_failures: usize) -> Summary {
        let covered: BTreeSet<Branch> = covered.iter().map(|&(f, s, d)| (FuncId(f), s, d)).collect();
        Summary {
            engine: engine.into(),
            result: RunStats {
                complete: true,
                ..RunStats::default()
            },
            process_ms: 0,
            peak_rss_mb: 0,
            failure: None,
            places: covered
                .iter()
                .map(|b| (*b, format!("f{}:#{} (p.c:{}:1)", b.0 .0, b.1, b.1)))
                .collect(),
            covered,
            bugs: bugs
                .iter()
                .map(|at| (braid_ir::BugKind::Assertion, at.to_string()))
                .collect(),
            replay_failures,
            verdict: None,
            why: Vec::new(),
        }
    }

    /// Engines that disagree are told apart by the branches (with their
    /// source lines), bugs and replay failures one has and the other not.
    #[test]
    fn a_disagreement_names_the_branches_and_bugs_on_each_side() {
        let row = Row {
            program: "p.wasm".into(),
            expected: None,
            engines: vec![
                summary("dse", &[(0, 3, true), (0, 3, false), (1, 7, true)], &["f1:#9"], 0),
                summary("concolic", &[(0, 3, true), (0, 3, false), (0, 5, false)], &[], 2),
            ],
        };
        assert_eq!(row.agree(), Some(false));
        assert_eq!(
            row.disagreements(),
            [
                "p.wasm: dse covers, concolic does not: f1:#7 (p.c:7:1) taken",
                "p.wasm: dse finds, concolic does not: assertion at f1:#9",
                "p.wasm: concolic covers, dse does not: f0:#5 (p.c:5:1) not taken",
                "p.wasm: concolic's tests that do not replay: 2",
            ]
        );
        let same = Row {
            program: "q.wasm".into(),
            expected: None,
            engines: vec![
                summary("dse", &[(0, 1, true)], &[], 0),
                summary("ssm", &[(0, 1, true)], &[], 0),
            ],
        };
        assert_eq!((same.agree(), same.disagreements().len()), (Some(true), 0));
    }
}
