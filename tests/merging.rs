//! State merging end to end (seed 004): `ssm` and `dsm` agree with `dse`
//! on every example, merged states get tests that replay, the statistics
//! are reported, and `braid bench` compares engines side by side.

mod common;

use common::*;

const PROGRAMS: [&str; 9] = [
    "examples/paper/figure1.bir",
    "examples/paper/function-values.bir",
    "examples/paper/aliasing.bir",
    "examples/paper/echo.bir",
    "examples/paper/muse-start.bir",
    "examples/bir/bugs.bir",
    "examples/bir/guarded-division.bir",
    "bench/merging/echo-3-4.bir",
    "bench/merging/sleep-2-3.bir",
];

#[test]
fn ssm_and_dsm_agree_with_dse_on_every_example_and_their_tests_replay() {
    for program in PROGRAMS {
        let p = example(program);
        let dir = tempfile::tempdir().expect("temp dir");
        // dse unrolling every loop; the merging engines with loop-head
        // merging on (the default) find the same bugs and cover the same.
        let (_, dse, _) = run_json(&p, &dir.path().join("dse"), &["--loop-merge", "off"]);
        let expected = bugs_and_coverage(&dse);
        let mut runs: Vec<Vec<&str>> = ["none", "all", "qce"]
            .iter()
            .map(|m| vec!["--engine", "ssm", "--merge", m])
            .collect();
        // Without any merging, ssm is dse, path for path.
        runs[0].extend(["--loop-merge", "off"]);
        for search in ["dfs", "bfs", "covnew"] {
            for m in ["all", "qce"] {
                runs.push(vec!["--engine", "dsm", "--driver", search, "--merge", m]);
            }
        }
        for (i, args) in runs.iter().enumerate() {
            let out = dir.path().join(format!("run{i}"));
            let (_, json, _) = run_json(&p, &out, args);
            assert_eq!(json["complete"], true, "{program} {args:?}");
            assert_eq!(bugs_and_coverage(&json), expected, "{program} {args:?}");
            replay_all(&p, &out);
            if args.contains(&"none") {
                assert_eq!(json["paths"], dse["paths"], "{program}: ssm --merge none is dse");
                assert_eq!(json["paths_exact"], true);
            }
        }
    }
}

#[test]
fn merged_states_give_tests_that_replay_down_one_of_the_merged_paths() {
    let p = example("examples/paper/echo.bir");
    let dir = tempfile::tempdir().expect("temp dir");
    // Merging alone: raced, dse could finish first on a slow host.
    let (_, json, tests) = run_json(&p, dir.path(), &["--engine", "ssm", "--race-after", "off"]);
    let stats = &json["stats"];
    assert!(stats["states_merged"].as_u64().expect("merged") > 0, "{json}");
    assert!(stats["merge_attempts"].as_u64() >= stats["states_merged"].as_u64());
    // Reported; here 0: the merged counters are choices of constants
    // (`ite(c, 2, 1)`), and a comparison with one is a formula over `c`.
    assert!(stats["ite_queries"].as_u64().is_some(), "{json}");
    assert_eq!(json["paths_exact"], false);
    // Fewer tests than dse's 36 paths, each from a merged state's
    // disjunctive path condition, and each replays to its outcome.
    assert!(tests.len() < 36, "{}", tests.len());
    let merged = tests
        .iter()
        .filter(|t| {
            t["path_condition"]
                .as_array()
                .is_some_and(|pc| pc.iter().any(|c| c.as_str().is_some_and(|c| c.contains(" | "))))
        })
        .count();
    assert!(merged > 0, "no test comes from a merged path condition");
    replay_all(&p, dir.path());
}

#[test]
fn dsm_fast_forwards_states_into_merges() {
    let p = example("bench/merging/echo-3-4.bir");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, _) = run_json(
        &p,
        dir.path(),
        &["--engine", "dsm", "--driver", "covnew", "--race-after", "off"],
    );
    let s = &json["stats"];
    let forwarded = s["fast_forwards"].as_u64().expect("fast forwards");
    let merged = s["fast_forwards_merged"].as_u64().expect("merged fast forwards");
    assert!(
        forwarded > 0 && merged > 0 && merged <= s["states_merged"].as_u64().expect("merged"),
        "{json}"
    );
    assert_eq!(json["search"], "covnew");
}

#[test]
fn dsm_by_default_merges_the_two_sides_of_a_branch() {
    // Table 1's Find Max: under a dfs driver the sibling a fork leaves
    // behind moves only after the other's whole subtree, so no two states
    // of one iteration ever meet; the default driver moves it too.
    let p = example("bench/multise/findmax.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, _) = run_json(&p, dir.path(), &["--engine", "dsm", "--race-after", "off"]);
    assert_eq!(json["complete"], true, "{json}");
    assert_eq!(json["search"], "interleaved", "{json}");
    assert!(json["stats"]["states_merged"].as_u64().expect("merged") > 0, "{json}");
    let (_, dse, _) = run_json(&p, &dir.path().join("dse"), &[]);
    assert_eq!(bugs_and_coverage(&json), bugs_and_coverage(&dse));
}

#[test]
fn merging_flags_are_checked() {
    let figure1 = example("examples/paper/figure1.bir");
    for args in [
        vec!["run", &figure1, "--merge", "all"],
        vec!["run", &figure1, "--engine", "ssm", "--merge", "some"],
        vec!["run", &figure1, "--engine", "ssm", "--search", "warp"],
        vec!["run", &figure1, "--engine", "ssm", "--delta", "4"],
        vec!["run", &figure1, "--engine", "dsm", "--delta", "0"],
        vec!["run", &figure1, "--engine", "dsm", "--driver", "warp"],
        vec!["run", &figure1, "--engine", "ssm", "--driver", "dfs"],
        vec!["bench", &figure1, "--driver", "warp"],
        vec!["run", &figure1, "--engine", "dsm", "--beta", "2"],
        vec!["run", &figure1, "--engine", "multise", "--alpha", "0.1"],
        vec!["run", &figure1, "--engine", "dse", "--fallback", "none"],
        vec!["run", &figure1, "--engine", "ssm", "--fallback", "always"],
        vec!["run", &figure1, "--engine", "ssm", "--race-after", "soon"],
        vec!["run", &figure1, "--engine", "dse", "--race-after", "100"],
        vec!["run", &figure1, "--engine", "dse", "--race-in", "thread"],
        vec!["run", &figure1, "--engine", "ssm", "--race-in", "later"],
        vec!["bench", &figure1, "--engines", "dse,warp"],
        vec!["bench", "/nonexistent/suite"],
    ] {
        let o = braid(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked") && !err.is_empty(), "{args:?}: {err}");
    }
}

#[test]
fn bench_runs_engines_side_by_side_and_checks_that_they_agree() {
    let suite = example("examples/paper");
    let o = braid(&[
        "bench",
        &suite,
        "--engines",
        "dse,ssm-qce,dsm",
        "--json",
        "--max-time",
        "20",
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let rows = json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 5, "one row per program");
    for row in rows {
        assert_eq!(row["agree"], true, "{row}");
        for engine in ["dse", "ssm-qce", "dsm"] {
            let e = &row["engines"][engine];
            assert_eq!(e["complete"], true, "{row}");
            assert_eq!(e["replay_failures"], 0, "{row}");
        }
        assert_eq!(row["exact_paths"], row["engines"]["dse"]["paths"]);
        assert!(row.get("time_ratio").is_some() && row.get("ops_ratio").is_some());
    }
    let md = braid(&["bench", &example("examples/paper/echo.bir"), "--engines", "dse,ssm-qce"]);
    assert_eq!(code(&md), 0);
    let text = String::from_utf8_lossy(&md.stdout);
    assert!(
        text.contains("| echo.bir | dse |") && text.contains("Ratios dse / ssm-qce"),
        "{text}"
    );
}

/// A run of ssm or dsm that gives merging up (here at once: its share of
/// the memory limit is zero) hands its paths under way over as tests and
/// ends as dse from the start, under the same recorder: dse's bugs,
/// coverage and paths, tests that replay, and the statistics say so.
#[test]
fn ssm_and_dsm_that_give_merging_up_end_as_dse() {
    use braid_budget::Limits;
    use braid_engine::replay::replay;
    use braid_engine::{explore_collect, Budget, Config, EngineKind, EngineSpec};
    let budget = Budget::start(Limits {
        time: None,
        memory_mb: Some(1 << 20),
    });
    for program in ["examples/bir/bugs.bir", "examples/paper/echo.bir"] {
        let (module, entry) = parsed_example(program);
        let run = |spec: &EngineSpec| {
            explore_collect(&module, entry, program, Config::default(), spec, &budget).expect("runs")
        };
        let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
        for kind in [EngineKind::Ssm, EngineKind::Dsm] {
            let mut spec = EngineSpec::new(kind);
            let merging = spec.merging.as_mut().expect("merging");
            merging.fallback = Some(0.0);
            let (r, tests) = run(&spec);
            assert!(r.stats.merging_given_up.is_some(), "{program} {kind:?}");
            assert_eq!(r.engine, kind.name());
            assert!(r.complete(), "{program}: {:?}", r.incomplete_reasons);
            assert_eq!(r.branches_covered, dse.branches_covered, "{program} {kind:?}");
            assert_eq!(bug_set(&r), bug_set(&dse), "{program} {kind:?}");
            assert_eq!(r.paths, dse.paths, "{program} {kind:?}");
            for t in &tests {
                replay(&module, t).unwrap_or_else(|why| panic!("{program}: a test does not replay: {why}"));
            }
            // Merging to the end (and alone: raced, dse could finish first).
            let merging = spec.merging.as_mut().expect("merging");
            merging.fallback = None;
            merging.race_after_ms = None;
            let (r, _) = run(&spec);
            assert!(r.stats.merging_given_up.is_none(), "{program} {kind:?}");
        }
    }
}

/// ssm and dsm raced against dse from their first statement: whichever
/// finishes first, the run is complete with dse's bugs and coverage, its
/// tests replay, and the statistics say who won. Merging bounded in its
/// own time (`Merging::merge_for_ms`, multise's ssm after its guards were
/// given up) and given up at once ends as dse from the start, and says
/// why.
#[test]
fn ssm_and_dsm_raced_against_dse_agree_with_dse() {
    use braid_budget::Limits;
    use braid_engine::replay::replay;
    use braid_engine::{explore_collect, Budget, Config, EngineKind, EngineSpec};
    let budget = Budget::start(Limits {
        time: None,
        memory_mb: Some(1 << 20),
    });
    for program in PROGRAMS {
        let text = std::fs::read_to_string(example(program)).expect("example");
        let module = braid_ir::parse(program, &text).expect("parses");
        let entry = module.func_index("main").unwrap_or(braid_ir::FuncId(0));
        let run = |spec: &EngineSpec| {
            explore_collect(&module, entry, program, Config::default(), spec, &budget).expect("runs")
        };
        let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
        // dse on a thread of its own, and in turns on the run's; merging
        // for no time (ssm).
        for (kind, threads, bounded) in [EngineKind::Ssm, EngineKind::Dsm]
            .into_iter()
            .flat_map(|k| [(k, true, false), (k, false, false)])
            .chain([(EngineKind::Ssm, true, true), (EngineKind::Ssm, false, true)])
        {
            let mut spec = EngineSpec::new(kind);
            let merging = spec.merging.as_mut().expect("merging");
            merging.race_after_ms = Some(0);
            merging.race_threads = threads;
            merging.merge_for_ms = bounded.then_some(0);
            let (r, tests) = run(&spec);
            let at = format!("{program} {kind:?}, threads {threads}, bounded {bounded}");
            assert!(r.complete(), "{at}: {:?}", r.incomplete_reasons);
            assert_eq!(r.engine, kind.name());
            assert_eq!(r.branches_covered, dse.branches_covered, "{at}");
            assert_eq!(r.bugs.len(), dse.bugs.len(), "{at}");
            if bounded {
                // On its thread, dse may finish a small program before the
                // run's thread sees merging's bound (seen once in CI on
                // figure1.bir); either way the run ends as dse's.
                let why = r.stats.merging_given_up.as_deref().unwrap_or("");
                let dse_first = threads && why.contains("dse, raced alongside, finished first");
                assert!(why.contains("merging took its 0 ms") || dse_first, "{at}: {why}");
                assert_eq!(r.paths, dse.paths, "{at}");
            }
            let race = r.stats.race.as_ref().expect("raced");
            match race.winner.as_deref() {
                Some("dse") => {
                    assert_eq!(r.paths, dse.paths, "{at}");
                    assert!(r.stats.merging_given_up.is_some(), "{at}");
                }
                Some("merging") => assert!(r.stats.merging_given_up.is_none(), "{at}"),
                other => panic!("{at}: winner {other:?}"),
            }
            for t in &tests {
                replay(&module, t).unwrap_or_else(|why| panic!("{at}: a test does not replay: {why}"));
            }
        }
    }
}
