//! The concrete interpreter's executable form (fused address chains and
//! comparisons, copy propagation, dead copies dropped) against the same
//! interpreter with one instruction per statement and no rewrites: every
//! test an exploration finds, run under both, ends with the same outcome,
//! covers the same branches, takes the same path and prints the same.

use braid_engine::concrete::{run_concrete_with, Code};
use braid_engine::{explore_collect, Budget, Config, EngineKind, EngineSpec, TestCase};
use braid_ir::{parse, random_memory_program, random_program, FuncId, Module};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Tests of `entry` from a short dse exploration (at most `limit` of them).
fn tests_of(module: &Module, entry: FuncId, seconds: u64, limit: usize) -> Vec<TestCase> {
    let budget = Budget::start(braid_budget::Limits {
        time: Some(Duration::from_secs(seconds)),
        memory_mb: None,
    });
    let (_, mut tests) = explore_collect(
        module,
        entry,
        "program",
        Config::default(),
        &EngineSpec::new(EngineKind::Dse),
        &budget,
    )
    .expect("the exploration runs");
    tests.truncate(limit);
    tests
}

/// Runs every test under both forms and compares what the runs show;
/// returns how many statements the tests executed.
fn agree(what: &str, module: &Module, entry: FuncId, tests: &[TestCase]) -> u64 {
    let rewritten = Code::new(module, Some(entry));
    let plain = Code::unoptimised(module, Some(entry));
    let mut steps = 0;
    for (i, t) in tests.iter().enumerate() {
        let a = run_concrete_with(&rewritten, module, entry, &t.inputs, None, Some(50_000_000)).expect("no budget");
        let b = run_concrete_with(&plain, module, entry, &t.inputs, None, Some(50_000_000)).expect("no budget");
        assert_eq!(a.outcome, b.outcome, "{what}, test {i}: outcome");
        assert_eq!(a.covered, b.covered, "{what}, test {i}: covered branches");
        assert_eq!(a.trace, b.trace, "{what}, test {i}: path");
        assert_eq!((a.stdout, a.stderr), (b.stdout, b.stderr), "{what}, test {i}: output");
        steps += b.steps;
    }
    steps
}

fn wasm_programs(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root().join(dir))
        .expect("the directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    v.sort();
    v
}

/// A C program's `// braid-args:` line: `None` when it asks for WASI
/// arguments or stdin (a lowering these plain loads do not make), else the
/// entry it names, if any.
fn entry_of(wasm: &Path) -> Option<Option<String>> {
    let src = std::fs::read_to_string(wasm.with_extension("c")).unwrap_or_default();
    let args: Vec<&str> = src
        .lines()
        .find_map(|l| l.strip_prefix("// braid-args:"))
        .map(|a| a.split_whitespace().collect())
        .unwrap_or_default();
    if args.iter().any(|a| a.starts_with("--sym-")) {
        return None;
    }
    Some(
        args.iter()
            .position(|a| *a == "--entry")
            .and_then(|i| args.get(i + 1))
            .map(|e| e.to_string()),
    )
}

#[test]
fn rewritten_code_runs_the_teams_wasm_programs_as_the_statements_do() {
    let mut programs = 0;
    for dir in ["examples/c", "bench/limits", "bench/multise"] {
        for wasm in wasm_programs(dir) {
            let Some(entry) = entry_of(&wasm) else {
                continue;
            };
            let bytes = std::fs::read(&wasm).expect("the module");
            let options = braid_wasm::Options {
                entry,
                ..braid_wasm::Options::default()
            };
            let program = braid_wasm::load(&bytes, &options).expect("a valid module");
            let entry = program.entry.expect("an entry");
            let tests = tests_of(&program.module, entry, 1, 60);
            assert!(!tests.is_empty(), "{}: some tests", wasm.display());
            let steps = agree(&wasm.display().to_string(), &program.module, entry, &tests);
            assert!(steps > 0);
            programs += 1;
        }
    }
    assert!(programs >= 25, "{programs} programs compared");
}

#[test]
fn rewritten_code_runs_random_programs_as_the_statements_do() {
    for seed in 0..48 {
        for src in [random_program(seed), random_memory_program(seed)] {
            let module = parse("random.bir", &src).expect("generated programs parse");
            let entry = module.func_index("main").expect("a main function");
            let tests = tests_of(&module, entry, 5, 200);
            agree(&format!("seed {seed}"), &module, entry, &tests);
        }
    }
}
