//! Anytime and bounded: every engine stops on its limits (time, memory, a
//! signal), hands over what it explored as tests that replay, and writes
//! them as they come. The programs are bench/limits' parsers, which no
//! engine finishes.

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ENGINES: [&str; 6] = [
    "dse",
    "ssm",
    "dsm",
    "multise",
    "concolic",
    "concolic --partial-solutions",
];

/// The reasons a run's JSON gives for being incomplete.
fn reasons(json: &serde_json::Value) -> Vec<String> {
    json["incomplete_reasons"]
        .as_array()
        .expect("reasons")
        .iter()
        .map(|r| r.as_str().expect("a reason").to_string())
        .collect()
}

/// The written summary, which must parse whole.
fn summary(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json is written");
    serde_json::from_str(&text).expect("summary.json is whole JSON")
}

#[test]
fn every_engine_stops_on_time_and_leaves_tests_that_replay() {
    let program = example("bench/limits/json.wasm");
    for engine in ENGINES {
        let dir = tempfile::tempdir().expect("temp dir");
        let start = Instant::now();
        let mut args: Vec<&str> = vec!["--max-time", "2", "--engine"];
        args.extend(engine.split(' '));
        let (code, json, tests) = run_json(&program, dir.path(), &args);
        let took = start.elapsed();
        assert_eq!(code, 0, "{engine}: {json}");
        // max(1 s, 5 %) past the limit, and a second for starting a process
        // on a loaded machine.
        assert!(took < Duration::from_secs(4), "{engine} took {took:?}");
        assert!(
            reasons(&json).iter().any(|r| r == "time limit of 2s reached"),
            "{engine}: {json}"
        );
        assert!(!tests.is_empty(), "{engine} wrote no test");
        assert_eq!(json["tests"].as_u64(), Some(tests.len() as u64), "{engine}");
        assert!(json["coverage"]["branches_covered"].as_u64() > Some(0), "{engine}");
        assert_eq!(summary(dir.path())["tests"], json["tests"], "{engine}");
        replay_all(&program, dir.path());
    }
}

#[test]
fn the_frontier_of_a_stopped_merging_run_becomes_tests() {
    // multise and ssm finish no path of this parser in a second: every
    // test comes from the frontier, run concretely to the end.
    let program = example("bench/limits/ini.wasm");
    for engine in ["multise", "ssm"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, json, tests) = run_json(&program, dir.path(), &["--engine", engine, "--max-time", "1"]);
        let frontier = tests.iter().filter(|t| t["frontier"] == true).count();
        assert!(frontier > 0, "{engine}: {json}");
        assert_eq!(json["frontier_tests"].as_u64(), Some(frontier as u64));
        replay_all(&program, dir.path());
    }
}

/// A path not explored to its end may never end: its frontier input's
/// concrete run is capped, and the inputs after it still become tests.
/// multise, its merged state waiting at the join for the spinning path,
/// ended a cut-off run with no test at all: the spinning input, the newest
/// model, ran until the budget was exhausted.
#[test]
fn a_frontier_input_that_never_ends_costs_the_others_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let program = dir.path().join("spin.bir");
    let text = "fn main() {\n    x = input int \"x\"\n    n = 0\n    y = 1\n    c = x == 7\n    if c goto Spin\n    \
                y = 2\n    goto Join\nSpin: n = n + 1\n    d = n < 0\n    if d goto Join\n    goto Spin\nJoin: ret y\n}\n";
    std::fs::write(&program, text).expect("program written");
    let program = program.display().to_string();
    for engine in ["multise", "dse"] {
        let out = dir.path().join(engine);
        let (code, json, tests) = run_json(&program, &out, &["--engine", engine, "--max-time", "1"]);
        assert_eq!(code, 0, "{engine}: {json}");
        assert!(!json["complete"].as_bool().expect("complete"), "{engine}: {json}");
        assert!(!tests.is_empty(), "{engine}: {json}");
        // Each took the path that ends (an input left out is 0).
        assert!(
            tests.iter().all(|t| t["outcome"]["returned"] == "2"),
            "{engine}: {json}"
        );
        replay_all(&program, &out);
    }
}

/// Starts `braid run PROGRAM --out DIR ARGS...` in the background.
fn spawn(program: &str, dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_braid"))
        .args(["run", program, "--json", "--progress", "never", "--out"])
        .arg(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("braid starts")
}

#[test]
fn sigterm_stops_the_run_gracefully() {
    let program = example("bench/limits/url.wasm");
    for engine in ["dse", "multise", "concolic"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let child = spawn(&program, dir.path(), &["--engine", engine]);
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let start = Instant::now();
        let out = child.wait_with_output().expect("braid ends");
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{engine} took {:?}",
            start.elapsed()
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s = summary(dir.path());
        assert_eq!(reasons(&s), vec!["interrupted".to_string()], "{engine}");
        assert!(s["tests"].as_u64() > Some(0), "{engine}: {s}");
        replay_all(&program, dir.path());
    }
}

/// A run whose thread does not come back (`--stall` stands for a solver
/// call that ignores its interrupt) is ended by the watchdog's backstop at
/// its time limit, or a second after the grace of a SIGTERM, with its
/// report, its summary and its tests, which replay.
#[test]
fn a_run_that_does_not_come_back_is_ended_at_its_limit() {
    let program = example("bench/limits/json.wasm");
    let overran = |json: &serde_json::Value| {
        reasons(json)
            .iter()
            .any(|r| r.starts_with("the run did not end by its limit"))
    };
    for engine in ["dse", "multise"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let start = Instant::now();
        let (code, json, tests) = run_json(
            &program,
            dir.path(),
            &["--engine", engine, "--max-time", "2", "--stall"],
        );
        let took = start.elapsed();
        assert_eq!(code, 0, "{engine}: {json}");
        assert!(took < Duration::from_secs(4), "{engine} took {took:?}");
        assert!(overran(&json), "{engine}: {json}");
        assert!(
            reasons(&json).iter().any(|r| r == "time limit of 2s reached"),
            "{engine}: {json}"
        );
        assert!(!tests.is_empty(), "{engine} wrote no test");
        assert_eq!(json["tests"].as_u64(), Some(tests.len() as u64), "{engine}: {json}");
        assert!(json["coverage"]["branches_covered"].as_u64() > Some(0), "{engine}");
        assert_eq!(summary(dir.path())["tests"], json["tests"], "{engine}");
        replay_all(&program, dir.path());
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let child = spawn(&program, dir.path(), &["--stall"]);
    std::thread::sleep(Duration::from_millis(1000));
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let start = Instant::now();
    let out = child.wait_with_output().expect("braid ends");
    assert!(start.elapsed() < Duration::from_secs(4), "took {:?}", start.elapsed());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let s = summary(dir.path());
    assert!(overran(&s) && reasons(&s).contains(&"interrupted".to_string()), "{s}");
    replay_all(&program, dir.path());
}

#[test]
fn tests_are_on_disk_before_the_run_ends() {
    // Killed outright, a run has no chance to write anything more: the
    // tests it found so far are already there, whole.
    let program = example("bench/limits/base64.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = spawn(&program, dir.path(), &[]);
    std::thread::sleep(Duration::from_millis(2000));
    child.kill().expect("kill");
    child.wait().expect("reaped");
    assert!(!dir.path().join("summary.json").exists());
    let files = test_files(dir.path());
    assert!(!files.is_empty(), "no test on disk after 2 s");
    // Every test file is whole JSON (one being written is a `.tmp` file).
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        serde_json::from_str::<serde_json::Value>(&text).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    replay_all(&program, dir.path());
}

#[test]
fn a_memory_limit_stops_a_blow_up() {
    // DFS reads characters forever here, and each fork copies a longer
    // model: memory grows by hundreds of MB a second. Shedding live states
    // slows the growth down (one path's model grows, and the terms), and
    // the run ends at the memory limit or at its time limit, within both.
    let program = example("bench/limits/words.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let start = Instant::now();
    let (code, json, tests) = run_json(&program, dir.path(), &["--max-memory", "150", "--max-time", "20"]);
    assert_eq!(code, 0, "{json}");
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    let reasons = reasons(&json);
    assert!(reasons.iter().any(|r| r.starts_with("memory")), "{reasons:?}");
    assert!(json["stats"]["peak_rss_mb"].as_u64() <= Some(150), "{json}");
    assert!(!tests.is_empty());
    replay_all(&program, dir.path());
}

#[test]
fn live_states_are_shed_before_the_memory_limit() {
    // bfs keeps every state of a JSON tokenizer's input alive: past 60 % of
    // the limit, the half that covered nothing for longest become tests
    // (concrete runs), and the run goes on. The limit is
    // low and the time long because how fast memory grows is the machine's:
    // a debug build among other tests, writing to a slow disk, peaked at
    // 66 MB in 8 s (under 60 % of 120 MB); on a free machine it passes
    // 48 MB (60 % of 80) in 2 s and then stays near 50 MB.
    let program = example("bench/limits/json.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, json, tests) = run_json(
        &program,
        dir.path(),
        &["--search", "bfs", "--max-memory", "80", "--max-time", "12"],
    );
    assert_eq!(code, 0, "{json}");
    // Shed, the run goes on: to its end (about 9 s with tests written on a
    // thread of their own) or its time limit, never to the memory limit.
    let reasons = reasons(&json);
    assert_eq!(
        reasons[0], "memory: live states past 60% of the 80 MB limit were ended by concrete runs (stats.states_shed)",
        "{reasons:?} {}",
        json["stats"]
    );
    assert!(
        reasons[1..].iter().all(|r| r == "time limit of 12s reached"),
        "{reasons:?} {}",
        json["stats"]
    );
    assert!(json["stats"]["states_shed"].as_u64() > Some(0), "{}", json["stats"]);
    assert!(!tests.is_empty());
    replay_all(&program, dir.path());
}

/// One question over products of doubles makes Z3 bit-blast past 700 MB.
/// Under a 300 MB limit Z3's allocations stop at half of it (the check
/// answers unknown, the run goes on) and the helper solver, under what the
/// limit leaves, answers it: the run completes within the limit.
#[test]
fn a_solver_query_stays_within_the_memory_limit() {
    let program = example("bench/muse/quadratic.c");
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, json, _) = run_json(&program, dir.path(), &["--max-memory", "300", "--max-time", "120"]);
    assert_eq!(code, 0, "{json}");
    assert!(json["stats"]["peak_rss_mb"].as_u64() < Some(330), "{}", json["stats"]);
    assert_eq!(json["complete"], true, "{}", json["incomplete_reasons"]);
    replay_all(&program, dir.path());
}

#[test]
fn out_of_range_limits_exit_2_without_a_panic() {
    let program = example("examples/paper/figure1.bir");
    for args in [
        vec!["--max-time", "1e19"],
        vec!["--max-time", "1e30"],
        vec!["--max-time", "nan"],
        vec!["--max-time", "inf"],
        vec!["--max-memory", "0"],
        vec!["--max-memory", "99999999999999"],
        vec!["--max-states", "99999999999999999999999"],
        vec!["--loop-bound", "4294967296"],
        vec!["--progress", "sometimes"],
        vec!["--engine", "dsm", "--delta", "18446744073709551615"],
    ] {
        let mut all = vec!["run", program.as_str()];
        all.extend(&args);
        let o = braid(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let o = braid(&["bench", &program, "--max-time", "1e19"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn progress_is_reported_off_a_terminal() {
    let program = example("bench/limits/regex.wasm");
    // Lines come a second apart: 4 s leave room for two on a loaded machine.
    let o = braid(&["run", &program, "--max-time", "4", "--progress", "always"]);
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("braid: ")).collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(lines[0].contains("tests") && lines[0].contains("coverage") && lines[0].contains("memory"));
}
