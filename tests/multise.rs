//! The `multise` engine end to end: the paper's final states (seed 000
//! Figure 1 and §2.4), shared execution, and agreement with `dse` on the
//! papers' programs.

mod common;

use braid_engine::multise::{Fallback, FALLBACK};
use braid_engine::{EngineKind, EngineSpec, RunResult};
use common::*;
use std::collections::BTreeSet;

fn dump(program: &str, extra: &[&str]) -> String {
    let mut args = vec!["run", program, "--engine", "multise", "--dump-state"];
    args.extend_from_slice(extra);
    let o = braid(&args);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The entries `(guard, value)` of `name ↦ {…}` in a dump, as text.
fn summary(dump: &str, name: &str) -> Vec<String> {
    let line = dump
        .lines()
        .find(|l| l.starts_with(&format!("{name} ↦ ")))
        .unwrap_or_else(|| panic!("{name} in {dump}"));
    let body = line
        .split_once('{')
        .map(|(_, b)| b.trim_end_matches('}'))
        .expect("braces");
    // Split at top-level ", (" between entries.
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for ch in body.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The value part of an entry `(guard, value)`.
fn value_of(entry: &str) -> &str {
    entry.trim_end_matches(')').rsplit(", ").next().expect("a value")
}

#[test]
fn figure1_ends_in_the_papers_final_state() {
    let d = dump(&example("examples/paper/figure1.bir"), &[]);
    // seed 000 §2.2, Final State: one pc entry, x one value, z three, r two.
    assert_eq!(summary(&d, "pc"), vec!["(true, L10)"], "{d}");
    assert_eq!(summary(&d, "x"), vec!["(true, 2 * x0)"]);
    let zs = summary(&d, "z");
    let z: BTreeSet<&str> = zs.iter().map(|e| value_of(e)).collect();
    assert_eq!(z, ["0.30000000000000004", "r0 - 1", "z0"].into(), "{d}");
    let rs = summary(&d, "r");
    let r: BTreeSet<&str> = rs.iter().map(|e| value_of(e)).collect();
    assert_eq!(r, ["1.3", "r0"].into());
}

fn executions_of(program: &str, location: &str, extra: &[&str]) -> usize {
    let mut args = vec!["run", program, "--engine", "multise", "--trace"];
    args.extend_from_slice(extra);
    let o = braid(&args);
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with(&format!("exec {location} ")))
        .count()
}

#[test]
fn figure1_runs_z_equals_r_minus_1_once_where_dse_runs_it_three_times() {
    let p = example("examples/paper/figure1.bir");
    // Statement 9 (`z = r - 1`, label L9) is reached by three paths.
    assert_eq!(executions_of(&p, "main:L9", &[]), 1);
    assert_eq!(executions_of(&p, "main:L9", &["--no-coalesce"]), 3);
}

#[test]
fn function_values_resolve_without_the_solver() {
    let p = example("examples/paper/function-values.bir");
    let d = dump(&p, &[]);
    let r: BTreeSet<String> = summary(&d, "r").into_iter().collect();
    assert_eq!(
        r,
        ["(x0 <= 0, -1)".to_string(), "(x0 > 0, 1)".to_string()].into(),
        "{d}"
    );
    let f: BTreeSet<String> = summary(&d, "f").into_iter().collect();
    assert_eq!(f, ["(x0 <= 0, @f2)".to_string(), "(x0 > 0, @f1)".to_string()].into());
    // The two queries are the SMT checks of the conditional's two new pc
    // entries; calling through `f` adds none (§2.4).
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, _) = run_json(&p, dir.path(), &["--engine", "multise"]);
    assert_eq!(json["stats"]["solver_queries"], 2, "{json}");
}

#[test]
fn aliasing_updates_cells_strongly_under_their_guards() {
    let d = dump(&example("examples/paper/aliasing.bir"), &[]);
    let a0: BTreeSet<String> = summary(&d, "a0[0]").into_iter().collect();
    let a1: BTreeSet<String> = summary(&d, "a1[0]").into_iter().collect();
    assert_eq!(
        a0,
        ["(x0 > 0, 4)".to_string(), "(x0 <= 0, 2)".to_string()].into(),
        "{d}"
    );
    assert_eq!(
        a1,
        ["(x0 <= 0, 4)".to_string(), "(x0 > 0, 3)".to_string()].into(),
        "{d}"
    );
}

#[test]
fn multise_agrees_with_dse_on_every_example_and_its_tests_replay() {
    // Path counts compare only without symbolic memory offsets: there dse
    // forks per cell, while MultiSE's STORE updates guarded cells in place.
    for (program, same_paths) in [
        ("examples/paper/figure1.bir", true),
        ("examples/paper/function-values.bir", true),
        ("examples/paper/aliasing.bir", true),
        ("examples/paper/echo.bir", true),
        ("examples/paper/muse-start.bir", true),
        ("examples/bir/bugs.bir", false),
        ("examples/bir/guarded-division.bir", true),
    ] {
        let p = example(program);
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, dse, _) = run_json(&p, &dir.path().join("dse"), &[]);
        let expected = bugs_and_coverage(&dse);
        for pick in ["topo", "dfs", "bfs"] {
            for extra in [&[][..], &["--no-coalesce"][..]] {
                let out = dir.path().join(format!("{pick}{}", extra.len()));
                let mut args = vec!["--engine", "multise", "--pick", pick];
                args.extend_from_slice(extra);
                let (_, json, _) = run_json(&p, &out, &args);
                assert_eq!(json["complete"], true, "{program} {args:?}");
                assert_eq!(bugs_and_coverage(&json), expected, "{program} {args:?}");
                replay_all(&p, &out);
                if same_paths && !extra.is_empty() {
                    assert_eq!(json["paths"], dse["paths"], "{program}: --no-coalesce is dse (§3.4)");
                }
            }
        }
    }
}

/// Programs over bytes under multise with each predicate a BDD variable
/// (bits are the default), and with the BDD variables sifted at every
/// collection: the same bugs and coverage as dse, and every test replays.
#[test]
fn predicate_atoms_and_sifting_agree_with_dse() {
    for program in [
        "examples/c/split.wasm",
        "examples/c/switch.wasm",
        "examples/c/lookup.wasm",
    ] {
        let p = example(program);
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, dse, _) = run_json(&p, &dir.path().join("dse"), &[]);
        for extra in [
            &["--bdd-atoms", "predicates"][..],
            &["--bdd-reorder"][..],
            &["--bdd-atoms", "predicates", "--bdd-reorder"][..],
        ] {
            let out = dir.path().join(extra.join(""));
            let mut args = vec!["--engine", "multise", "--fallback", "none"];
            args.extend_from_slice(extra);
            let (_, json, _) = run_json(&p, &out, &args);
            assert_eq!(json["complete"], true, "{program} {args:?}");
            assert_eq!(bugs_and_coverage(&json), bugs_and_coverage(&dse), "{program} {args:?}");
            replay_all(&p, &out);
        }
    }
}

/// Programs whose cubes read merged memory through input-chosen offsets
/// (their literals are rewritten under one another before the solver,
/// `TermStore::assume`): merging alone finds dse's bugs and coverage, and
/// every test replays.
#[test]
fn cubes_over_merged_memory_agree_with_dse() {
    for program in ["examples/c/hashtable.wasm", "examples/c/lookup.wasm"] {
        let p = example(program);
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, dse, _) = run_json(&p, &dir.path().join("dse"), &[]);
        let out = dir.path().join("multise");
        let (_, json, _) = run_json(&p, &out, &["--engine", "multise", "--fallback", "none"]);
        assert_eq!(json["complete"], true, "{program}");
        assert_eq!(bugs_and_coverage(&json), bugs_and_coverage(&dse), "{program}");
        replay_all(&p, &out);
    }
}

/// A scanner's tokens kept in memory, each a 64-bit value that every path
/// stores and the merged state loads back whole: a load takes, for each
/// combination of bytes so far, the next cell's entry of the guard the
/// combination came from (the debug build checks that no other entry of
/// the cell holds under it). Merging alone finds dse's bug and coverage,
/// and every test replays.
#[test]
fn wide_values_stored_on_many_paths_load_back_whole_after_the_merge() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(dir.path(), "tokens.c", TOKENS);
    let (code, dse, _) = run_json(&p, &dir.path().join("dse"), &[]);
    assert_eq!((code, dse["complete"].as_bool()), (1, Some(true)), "{dse}");
    let out = dir.path().join("multise");
    let (_, json, _) = run_json(&p, &out, &["--engine", "multise", "--fallback", "none"]);
    assert_eq!(json["complete"], true, "{json}");
    assert_eq!(bugs_and_coverage(&json), bugs_and_coverage(&dse));
    replay_all(&p, &out);
}

const TOKENS: &str = r#"// Tokens of a scanner kept in memory: a 64-bit value stored on each path
// and loaded back whole after the paths have merged.
extern void klee_make_symbolic(void *, unsigned long, const char *);
extern void reach_error(void);
#define N 4
struct tok { long long value; int kind; };
static void scan(const char *s, int i, struct tok *t) {
    char c = s[i];
    if (c >= '0' && c <= '9') { t->kind = 1; t->value = (long long)(c - '0') << 40 | i; }
    else if (c == '"') { t->kind = 2; t->value = 0x2200000000LL + i; }
    else if (c == '{' || c == '[') { t->kind = 3; t->value = -1LL - i; }
    else { t->kind = 0; t->value = (long long)c * 0x100000001LL; }
}
int main(void) {
    char s[N];
    klee_make_symbolic(s, N, "s");
    struct tok toks[N];
    for (int i = 0; i < N; i++)
        scan(s, i, &toks[i]);
    long long sum = 0;
    for (int i = 0; i < N; i++) {
        if (toks[i].value < 0) sum -= 1;
        else if ((toks[i].value >> 40) == 7) sum += 100;
        else sum += toks[i].value & 0xff;
    }
    if (toks[0].value == -1 && toks[N - 1].value == (7LL << 40 | (N - 1)))
        reach_error();
    return (int)sum;
}
"#;

#[test]
fn non_linear_arithmetic_is_concretised_under_linear_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "nl.bir",
        "fn main(x: int, y: int) {\n  p = x * y\n  c = p == 12\n  if c goto Hit\n  halt\nHit: error \"hit\"\n}\n",
    );
    let (_, json, _) = run_json(&p, &dir.path().join("o"), &["--engine", "multise", "--linear-only"]);
    assert_eq!(json["complete"], false);
    assert!(json["incomplete_reasons"].to_string().contains("non-linear"), "{json}");
    replay_all(&p, &dir.path().join("o"));
    // Without the flag the solver handles x * y == 12 and finds the error.
    let (code, json, _) = run_json(&p, &dir.path().join("o2"), &["--engine", "multise"]);
    assert_eq!((code, json["complete"].as_bool()), (1, Some(true)), "{json}");
}

#[test]
fn a_summary_past_its_width_becomes_one_value_and_the_tests_still_replay() {
    // Four parsed numbers summed: `seconds` takes more distinct values than
    // a summary keeps apart (256), and becomes one `ite` value.
    let p = example("bench/merging/sleep-4-3.bir");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut seen = Vec::new();
    for engine in ["multise", "ssm"] {
        let out = dir.path().join(engine);
        // Merging to the end: this build may take past the race's start.
        let (_, json, tests) = run_json(&p, &out, &["--engine", engine, "--fallback", "none"]);
        assert_eq!(json["complete"], true, "{engine}: {}", json["incomplete_reasons"]);
        if engine == "multise" {
            assert!(
                json["stats"]["summaries_narrowed"].as_u64() > Some(0),
                "{}",
                json["stats"]
            );
            // Every ending's final values come out of the narrowed value.
            let slept = |t: &serde_json::Value| t["outcome"]["values"]["slept"].as_str().map(String::from);
            assert!(tests.iter().any(|t| slept(t).is_some_and(|v| v != "0")), "a sum slept");
        }
        seen.push(bugs_and_coverage(&json));
        replay_all(&p, &out);
    }
    assert_eq!(seen[0], seen[1], "multise vs ssm");
}

/// dse raced alongside multise from the start: whichever finishes first,
/// the run covers dse's branches, finds its bugs, says how the race went
/// (dse's result being the run's when dse won), and every test replays.
#[test]
fn a_raced_run_ends_with_dse_coverage_and_bugs() {
    use braid_engine::multise::Fallback;
    use braid_engine::replay::replay;
    use braid_engine::{EngineKind, EngineSpec};
    use std::time::Duration;
    for program in [
        "examples/bir/bugs.bir",
        "examples/paper/echo.bir",
        "examples/paper/function-values.bir",
    ] {
        let (module, entry) = parsed_example(program);
        let run = |spec: &EngineSpec| collected(&module, entry, program, spec);
        let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
        // dse on a thread of its own, and in turns on the run's.
        for threads in [true, false] {
            let mut spec = EngineSpec::new(EngineKind::Multise);
            spec.multise.fallback = Some(Fallback {
                race_after: Some(Duration::ZERO),
                overrun: Duration::from_secs(3600),
                bdd_share: None,
                threads,
                ssm_for: braid_engine::multise::SSM_FOR,
                share_grace: None,
            });
            let (r, tests) = run(&spec);
            let at = format!("{program}, threads {threads}");
            assert_eq!(r.engine, "multise");
            assert!(r.complete(), "{at}: {:?}", r.incomplete_reasons);
            assert_eq!(r.branches_covered, dse.branches_covered, "{at}");
            assert_eq!(bug_set(&r), bug_set(&dse), "{at}");
            let race = r.stats.race.as_ref().expect("dse joined at once");
            match race.winner.as_deref() {
                Some("dse") => assert_eq!(r.paths, dse.paths, "{at}"),
                Some("merging") => assert!(r.stats.merging_given_up.is_none(), "{at}"),
                other => panic!("{at}: winner {other:?}"),
            }
            for t in &tests {
                replay(&module, t).unwrap_or_else(|why| panic!("{at}: a test does not replay: {why}"));
            }
        }
    }
}

/// A run that gives merging up (here at once: after no time, at any share
/// of BDD operations) hands the run to dse, which explores from the start
/// under the same recorder (in turns), or to ssm with dse on a thread
/// beside it (where the race would run on a thread): dse's bugs and
/// coverage, tests that replay, and the statistics say so.
#[test]
fn a_run_that_gives_merging_up_ends_as_dse() {
    use braid_engine::replay::replay;
    use braid_engine::{EngineKind, EngineSpec};
    for (program, threads) in ["examples/bir/bugs.bir", "examples/paper/echo.bir"]
        .into_iter()
        .flat_map(|p| [(p, false), (p, true)])
    {
        let (module, entry) = parsed_example(program);
        let run = |spec: &EngineSpec| collected(&module, entry, program, spec);
        let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
        let mut spec = EngineSpec::new(EngineKind::Multise);
        spec.multise.fallback = Some(braid_engine::multise::Fallback {
            race_after: None,
            bdd_share: Some((std::time::Duration::ZERO, 0.0)),
            threads,
            ..braid_engine::multise::FALLBACK
        });
        let (r, tests) = run(&spec);
        let at = format!("{program}, threads {threads}");
        let why = r
            .stats
            .merging_given_up
            .as_deref()
            .unwrap_or_else(|| panic!("{at}: not given up"));
        let by_ssm = threads && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
        assert_eq!(why.contains("ssm explored from the start"), by_ssm, "{at}: {why}");
        assert_eq!(r.engine, "multise");
        assert!(r.complete(), "{at}: {:?}", r.incomplete_reasons);
        assert_eq!(r.branches_covered, dse.branches_covered, "{at}");
        assert_eq!(bug_set(&r), bug_set(&dse), "{at}");
        if !by_ssm {
            assert_eq!(r.paths, dse.paths, "{at}");
        }
        for t in &tests {
            replay(&module, t).unwrap_or_else(|why| panic!("{at}: a test does not replay: {why}"));
        }
        // Merging to the end (the default's threshold is not reached).
        spec.multise.fallback = None;
        let (r, _) = run(&spec);
        assert!(r.stats.merging_given_up.is_none(), "{program}");
    }
}

/// Merging given up for its BDD share (here at once) before dse raced
/// goes on as ssm beside dse on a thread; ssm given up (here after its
/// first slice), dse's thread is handed back and multise merges beside it:
/// where it paused between two steps (the default), or, with no grace for
/// a step, from the start again. On Table 1's array-index and find-max
/// programs, which multise finishes long before dse, multise finishes
/// first either way: dse's coverage and bugs, and every test replays.
#[test]
fn multise_merges_again_beside_dse_after_ssm_gave_up() {
    use braid_engine::multise::{Fallback, FALLBACK};
    use braid_engine::replay::replay;
    use braid_engine::{EngineKind, EngineSpec};
    use std::time::Duration;
    if std::thread::available_parallelism().map_or(true, |n| n.get() < 2) {
        return;
    }
    let programs = ["bench/multise/arrayindex.wasm", "bench/multise/findmax.wasm"];
    for (program, grace) in programs
        .into_iter()
        .flat_map(|p| [(p, FALLBACK.share_grace), (p, None)])
    {
        let (module, entry) = loaded_example(program);
        let run = |spec: &EngineSpec| collected(&module, entry, program, spec);
        let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
        let mut spec = EngineSpec::new(EngineKind::Multise);
        spec.multise.fallback = Some(Fallback {
            bdd_share: Some((Duration::ZERO, 0.0)),
            ssm_for: Duration::ZERO,
            share_grace: grace,
            ..FALLBACK
        });
        let (r, tests) = run(&spec);
        let why = r.stats.merging_given_up.as_deref().unwrap_or_default();
        let then = match grace {
            Some(_) => "multise went on beside dse",
            None => "multise from the start again beside dse",
        };
        assert!(why.contains(then), "{program}: {why}");
        assert_eq!(
            r.stats.race.as_ref().and_then(|s| s.winner.as_deref()),
            Some("merging"),
            "{program}: {why}"
        );
        assert_eq!(r.engine, "multise");
        assert!(r.complete(), "{program}: {:?}", r.incomplete_reasons);
        assert_eq!(r.branches_covered, dse.branches_covered, "{program}");
        assert_eq!(bug_set(&r), bug_set(&dse), "{program}");
        for t in &tests {
            replay(&module, t).unwrap_or_else(|why| panic!("{program}: a test does not replay: {why}"));
        }
    }
}

/// A step of multise's merging past its turn while dse races on a thread
/// (here every step: no overrun allowed) hands the run's thread to ssm,
/// which explores from the start beside dse as it goes on: the run covers
/// dse's branches, finds its bugs, every test replays, and the statistics
/// say how it went.
#[test]
fn ssm_explores_beside_dse_when_a_step_overruns() {
    use braid_engine::multise::Fallback;
    use braid_engine::replay::replay;
    use braid_engine::{EngineKind, EngineSpec};
    use std::time::Duration;
    if std::thread::available_parallelism().map_or(true, |n| n.get() < 2) {
        return;
    }
    let mut beside = 0;
    for program in ["bench/merging/sleep-3-3.bir", "examples/bir/bugs.bir"] {
        let (module, entry) = parsed_example(program);
        let run = |spec: &EngineSpec| collected(&module, entry, program, spec);
        let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
        let mut spec = EngineSpec::new(EngineKind::Multise);
        spec.multise.fallback = Some(Fallback {
            race_after: Some(Duration::ZERO),
            overrun: Duration::ZERO,
            bdd_share: None,
            threads: true,
            ssm_for: braid_engine::multise::SSM_FOR,
            share_grace: None,
        });
        let (r, tests) = run(&spec);
        assert_eq!(r.engine, "multise");
        assert!(r.complete(), "{program}: {:?}", r.incomplete_reasons);
        assert_eq!(r.branches_covered, dse.branches_covered, "{program}");
        assert_eq!(bug_set(&r), bug_set(&dse), "{program}");
        let why = r.stats.merging_given_up.as_deref().unwrap_or_default();
        if why.contains("ssm explored from the start beside it") {
            assert!(why.starts_with("a step of merging ran"), "{program}: {why}");
            beside += 1;
        }
        for t in &tests {
            replay(&module, t).unwrap_or_else(|why| panic!("{program}: a test does not replay: {why}"));
        }
    }
    assert!(beside >= 1, "no run went on with ssm beside dse");
}

/// Table 1's Heap Sort under dse, then under multise with `fallback`
/// (merging to the end where `None`): dse's result, multise's, and why
/// merging was given up. Every test of multise's replays.
fn heap_sort_with(fallback: Option<Fallback>) -> (RunResult, RunResult, String) {
    use braid_engine::replay::replay;
    let program = "bench/multise/heapsort.wasm";
    let (module, entry) = loaded_example(program);
    let run = |spec: &EngineSpec| collected(&module, entry, program, spec);
    let (dse, _) = run(&EngineSpec::new(EngineKind::Dse));
    let mut spec = EngineSpec::new(EngineKind::Multise);
    spec.multise.fallback = fallback;
    let (r, tests) = run(&spec);
    for t in &tests {
        replay(&module, t).unwrap_or_else(|why| panic!("a test does not replay: {why}"));
    }
    let why = r.stats.merging_given_up.clone().unwrap_or_default();
    (dse, r, why)
}

/// Merging paused between two steps for its BDD share (here at once),
/// where ssm beside dse finishes within its window (Table 1's Heap Sort):
/// ssm's result is the run's and the paused exploration unwinds, without
/// going on: complete, dse's coverage and bugs, and every test replays.
#[test]
fn a_paused_multise_ends_where_ssm_finishes_in_its_window() {
    if std::thread::available_parallelism().map_or(true, |n| n.get() < 2) {
        return;
    }
    let (dse, r, why) = heap_sort_with(Some(Fallback {
        bdd_share: Some((std::time::Duration::ZERO, 0.0)),
        ssm_for: std::time::Duration::from_secs(3600),
        ..FALLBACK
    }));
    assert!(why.contains("multise paused, ssm explored from the start"), "{why}");
    assert!(why.contains("ssm explored from the start beside it"), "{why}");
    assert!(!why.contains("went on"), "{why}");
    assert!(r.complete(), "{:?}", r.incomplete_reasons);
    assert_eq!(r.branches_covered, dse.branches_covered);
    assert_eq!(bug_set(&r), bug_set(&dse));
}

/// A path guard too large to send to the solver (Table 1's Heap Sort,
/// where cutting the cores of its cubes would grow it past that) gives
/// merging up, as the BDD share does, rather than dropping the paths it
/// holds: the run ends complete with dse's coverage and bugs, and every
/// test replays. Merging to the end, those paths are dropped and the run
/// says so.
#[test]
fn a_guard_too_large_to_decide_gives_merging_up_instead_of_its_paths() {
    // No race and no BDD-share rule: only the guard can give merging up.
    let (dse, r, why) = heap_sort_with(Some(Fallback {
        race_after: None,
        bdd_share: None,
        threads: false,
        ..FALLBACK
    }));
    assert!(why.starts_with("a path guard of more than"), "{why}");
    assert!(r.complete(), "{:?}", r.incomplete_reasons);
    assert_eq!(r.branches_covered, dse.branches_covered);
    assert_eq!(bug_set(&r), bug_set(&dse));
    assert_eq!(r.paths, dse.paths);
    let (_, r, _) = heap_sort_with(None);
    assert!(
        r.incomplete_reasons
            .iter()
            .any(|w| w.starts_with("a path guard of more than")),
        "{:?}",
        r.incomplete_reasons
    );
}

/// After a guard too large to decide, ssm merges beside dse to the end:
/// multise again would meet the same guard. With a window of 0 ms for ssm,
/// Heap Sort's ssm is still not cut at it.
#[test]
fn after_a_guard_too_large_ssm_is_not_cut_for_multise_again() {
    let (dse, r, why) = heap_sort_with(Some(Fallback {
        race_after: None,
        bdd_share: None,
        ssm_for: std::time::Duration::ZERO,
        ..FALLBACK
    }));
    assert!(why.starts_with("a path guard of more than"), "{why}");
    if std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) {
        assert!(why.contains("ssm explored from the start, dse beside it"), "{why}");
    }
    // Not cut at its window (0 ms here), for dse alone or multise again.
    assert!(!why.contains("merging took its"), "{why}");
    assert!(!why.contains("multise from the start again"), "{why}");
    assert!(r.complete(), "{:?}", r.incomplete_reasons);
    assert_eq!(r.branches_covered, dse.branches_covered);
    assert_eq!(bug_set(&r), bug_set(&dse));
}
