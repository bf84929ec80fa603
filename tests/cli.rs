//! The command-line contract: exit codes, bug reports, bad input.

mod common;

use common::*;

#[test]
fn bugs_are_reported_with_reproducing_tests_and_exit_1() {
    let program = example("examples/bir/bugs.bir");
    for search in SEARCHERS {
        let dir = tempfile::tempdir().expect("temp dir");
        let (code, json, tests) = run_json(&program, dir.path(), &["--search", search]);
        assert_eq!(code, 1, "{search}: {json}");
        let kinds: std::collections::BTreeSet<&str> = json["bugs"]
            .as_array()
            .expect("bugs")
            .iter()
            .map(|b| b["kind"].as_str().expect("kind"))
            .collect();
        assert_eq!(
            kinds,
            ["assertion", "division-by-zero", "out-of-bounds", "user-error"].into()
        );
        for b in json["bugs"].as_array().expect("bugs") {
            let test = dir.path().join(b["test"].as_str().expect("test file"));
            let t: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(test).expect("test")).expect("json");
            assert_eq!(t["outcome"]["bug"], b["kind"]);
        }
        assert_eq!(json["paths"].as_u64(), Some(tests.len() as u64));
        replay_all(&program, dir.path());
    }
}

#[test]
fn replay_fails_when_an_outcome_does_not_reproduce() {
    let program = example("examples/paper/figure1.bir");
    let dir = tempfile::tempdir().expect("temp dir");
    run_json(&program, dir.path(), &[]);
    let file = &test_files(dir.path())[0];
    let mut t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).expect("test")).expect("json");
    t["outcome"]["values"]["x"] = "12345".into();
    std::fs::write(file, t.to_string()).expect("write");
    let o = braid(&["replay", &program, file]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stdout).contains("FAIL"));
}

#[test]
fn bad_input_exits_2_with_a_located_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.bir");
    std::fs::write(&bad, "fn main() {\n  x = 1 +\n}\n").expect("write");
    let o = braid(&["run", &bad.display().to_string()]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.bir:2:10: expected an operand"), "{err}");
    assert!(!err.contains("panicked"));

    let missing = braid(&["run", "/nonexistent/prog.bir"]);
    assert_eq!(code(&missing), 2);
    let figure1 = example("examples/paper/figure1.bir");
    // Not a braid test, though it ends in .json.
    let figure1_json = dir.path().join("figure1.json").display().to_string();
    std::fs::write(&figure1_json, "fn main() {}").expect("write");
    for args in [
        vec!["run", &figure1, "--search", "sideways"],
        vec!["run", &figure1, "--engine", "quantum"],
        vec!["run", &figure1, "--entry", "nope"],
        vec!["run", &figure1, "--max-time", "-1"],
        vec!["run", &figure1, "--no-such-flag"],
        vec!["run", &figure1, "--partial-solutions"],
        vec!["run", &figure1, "--search", "generational"],
        vec!["run", &figure1, "--engine", "concolic", "--search", "covnew"],
        vec![
            "run",
            &figure1,
            "--engine",
            "concolic",
            "--seed-input",
            "/nonexistent/seed",
        ],
        vec!["run", &figure1, "--engine", "concolic", "--seed-input", &figure1_json],
        vec!["run", &figure1, "--unsat-cores", "maybe"],
        vec!["run", &figure1, "--incremental", "sometimes"],
        vec!["run", &figure1, "--simplex", "maybe"],
        vec!["run", &figure1, "--dump-queries", "/proc/no-such-dir"],
        vec!["frobnicate"],
    ] {
        let o = braid(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"), "{args:?}");
    }
}

#[test]
fn limits_are_reported_as_incomplete() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "loop.bir",
        "fn main() {\n  n = input int \"n\"\n  i = 0\nL: c = i < n\n  if c goto B\n  halt\nB: i = i + 1\n  goto L\n}\n",
    );
    let (code, json, _) = run_json(&p, &dir.path().join("out"), &["--loop-bound", "3"]);
    assert_eq!(code, 0);
    assert_eq!(json["complete"], false);
    let reasons = json["incomplete_reasons"].to_string();
    assert!(reasons.contains("loop bound 3"), "{reasons}");
    // The body runs at most 3 times: n <= 0, 1, 2, 3 end normally.
    assert_eq!(json["paths"], 4);
    let (_, json, _) = run_json(&p, &dir.path().join("out2"), &["--max-time", "0.5"]);
    assert_eq!(json["complete"], false);
    assert!(json["incomplete_reasons"].to_string().contains("time limit"), "{json}");
}

#[test]
fn show_prints_parseable_ir() {
    let o = braid(&["show", &example("examples/paper/figure1.bir")]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("x = 2 * x"), "{text}");
    braid_ir::parse("shown.bir", &text).expect("show's output parses");
}

#[test]
fn every_solver_call_is_logged_as_smtlib() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("queries");
    let (code, json, _) = run_json(
        &example("examples/paper/figure1.bir"),
        &dir.path().join("out"),
        // (The simplex answers all of Figure 1's questions without a call.)
        &["--dump-queries", &log.display().to_string(), "--simplex", "off"],
    );
    assert_eq!(code, 0, "{json}");
    let calls = json["stats"]["solver_calls"].as_u64().expect("solver_calls");
    let mut files: Vec<_> = std::fs::read_dir(&log)
        .expect("log dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(calls > 0);
    assert_eq!(files.len() as u64, calls);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        assert!(text.starts_with("; braid query"), "{text}");
        assert!(
            text.contains("(set-info :status sat)") || text.contains("(set-info :status unsat)"),
            "{text}"
        );
        assert!(
            text.contains("(assert ") && text.trim_end().ends_with("(check-sat)"),
            "{text}"
        );
    }
}

#[test]
fn solver_timeouts_make_the_run_incomplete_not_unsat() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hard = dir.path().join("cubes.bir");
    // x³ + y³ + z³ = 33 took decades of search to solve: a short timeout
    // cannot decide it, and the branch must not be dropped as infeasible.
    std::fs::write(
        &hard,
        "fn main(x: int, y: int, z: int) {\n  a = x * x\n  a = a * x\n  b = y * y\n  b = b * y\n  c = z * z\n  c = c * z\n  s = a + b\n  s = s + c\n  t = s == 33\n  if t goto Found\n  halt\nFound: error \"found\"\n}\n",
    )
    .expect("write");
    let (code, json, _) = run_json(
        &hard.display().to_string(),
        &dir.path().join("out"),
        &["--solver-timeout", "200"],
    );
    assert_eq!(code, 0);
    assert_eq!(json["complete"], false, "{json}");
    assert!(json["incomplete_reasons"].to_string().contains("solver"), "{json}");
}

#[test]
fn a_float_divided_by_integer_zero_is_infinity_not_a_bug() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("fdiv.bir");
    std::fs::write(&src, "fn main(x: int) {\n  y = 1.5 / x\n  z = x / x\n  halt\n}\n").expect("write");
    let p = src.display().to_string();
    for engine in ["dse", "multise"] {
        let out = dir.path().join(engine);
        let (code, json, _) = run_json(&p, &out, &["--engine", engine]);
        // Only `x / x` (integer division) divides by zero.
        assert_eq!(code, 1, "{json}");
        let bugs = json["bugs"].as_array().expect("bugs");
        assert_eq!(bugs.len(), 1, "{json}");
        assert!(bugs[0]["location"].as_str().unwrap_or("").contains("line 3"), "{json}");
        replay_all(&p, &out);
    }
}

#[test]
fn qce_prints_the_papers_numbers_for_echo() {
    let o = braid(&[
        "qce",
        &example("examples/paper/echo.bir"),
        "--alpha",
        "0.5",
        "--beta",
        "0.6",
        "--kappa",
        "1",
    ]);
    assert_eq!(code(&o), 0);
    let out = String::from_utf8_lossy(&o.stdout);
    let l7 = out.lines().find(|l| l.starts_with("main:L7 ")).expect("a line for L7");
    assert!(l7.contains("Q_t=2.9200") && l7.contains("H={arg}"), "{l7}");
    assert!(l7.contains("r=1.3200") && l7.contains("arg=1.6000"), "{l7}");
    let bad = braid(&["qce", &example("examples/paper/echo.bir"), "--beta", "2"]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn a_second_run_into_the_same_directory_leaves_only_its_own_results() {
    let dir = tempfile::tempdir().expect("temp dir");
    let program = example("examples/c/svcomp.wasm");
    let (_, first, _) = run_json(&program, dir.path(), &[]);
    assert!(first["tests"].as_u64().expect("tests") > 1);
    // Files an earlier run might have left past this run's last test, and
    // a file of the user's, which stays.
    std::fs::write(dir.path().join("tests/009999.json"), "{}").expect("write");
    std::fs::write(dir.path().join("test-suite/test009999.xml"), "<testcase/>").expect("write");
    let (_, second, tests) = run_json(&program, dir.path(), &[]);
    assert_eq!(second["tests"].as_u64(), Some(tests.len() as u64), "{second}");
    assert!(!dir.path().join("tests/009999.json").exists());
    let xml = std::fs::read_dir(dir.path().join("test-suite")).expect("suite").count();
    assert_eq!(xml, tests.len() + 1, "the tests and metadata.xml");
    replay_all(&program, dir.path());
    // A directory holding other files keeps them.
    std::fs::write(dir.path().join("tests/notes.txt"), "mine").expect("write");
    let (_, third, tests) = run_json(&program, dir.path(), &[]);
    assert_eq!(third["tests"].as_u64(), Some(tests.len() as u64), "{third}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tests/notes.txt")).expect("kept"),
        "mine"
    );
    // The Test-Comp archive lists this run's tests alone.
    let zip = std::fs::read(dir.path().join("test-suite.zip")).expect("test-suite.zip");
    let listed = String::from_utf8_lossy(&zip);
    assert!(!listed.contains("test009999.xml"));
    assert_eq!(listed.matches("PK\x01\x02").count(), tests.len() + 1);
}
