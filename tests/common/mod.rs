//! Helpers for driving the `braid` binary.

#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn example(rel: &str) -> String {
    root().join(rel).display().to_string()
}

/// An example's IR (`rel` from the repository root) and its `main`.
pub fn parsed_example(rel: &str) -> (braid_ir::Module, braid_ir::FuncId) {
    let text = std::fs::read_to_string(example(rel)).expect("example");
    let module = braid_ir::parse(rel, &text).expect("parses");
    let entry = module.func_index("main").expect("a main function");
    (module, entry)
}

/// A WebAssembly example's IR (`rel` from the repository root) and its entry.
pub fn loaded_example(rel: &str) -> (braid_ir::Module, braid_ir::FuncId) {
    let bytes = std::fs::read(example(rel)).expect("the module");
    let loaded = braid_wasm::load(&bytes, &braid_wasm::Options::default()).expect("a valid module");
    (loaded.module, loaded.entry.expect("an entry"))
}

/// `spec`'s exploration of `program` with the default configuration and
/// no limits: its result and tests.
pub fn collected(
    module: &braid_ir::Module,
    entry: braid_ir::FuncId,
    program: &str,
    spec: &braid_engine::EngineSpec,
) -> (braid_engine::RunResult, Vec<braid_engine::TestCase>) {
    let (config, budget) = (braid_engine::Config::default(), braid_engine::Budget::unlimited());
    braid_engine::explore_collect(module, entry, program, config, spec, &budget).expect("runs")
}

/// A run's distinct bugs: kind and location.
pub fn bug_set(r: &braid_engine::RunResult) -> std::collections::BTreeSet<(String, String)> {
    r.bugs
        .iter()
        .map(|b| (b.kind.to_string(), b.location.clone()))
        .collect()
}

/// Writes `text` to `name` in `dir`; its path.
pub fn written(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

pub fn braid(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_braid"))
        .args(args)
        .output()
        .expect("braid runs")
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("braid exits normally")
}

/// `braid run PROGRAM --json --out DIR EXTRA...`: the JSON object and the tests.
pub fn run_json(program: &str, out: &Path, extra: &[&str]) -> (i32, Value, Vec<Value>) {
    let out_s = out.display().to_string();
    let mut args = vec!["run", program, "--json", "--out", &out_s];
    args.extend_from_slice(extra);
    let o = braid(&args);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&o.stderr)));
    (code(&o), json, tests_in(out))
}

/// The tests under `out/tests` (whole files: a run writes `NNNNNN.json.tmp`
/// and renames it).
pub fn test_files(out: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(out.join("tests"))
        .map(|d| d.map(|e| e.expect("entry").path().display().to_string()).collect())
        .unwrap_or_default();
    files.retain(|f| f.ends_with(".json"));
    files.sort();
    files
}

pub fn tests_in(out: &Path) -> Vec<Value> {
    test_files(out)
        .iter()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f).expect("readable test")).expect("a JSON test"))
        .collect()
}

/// `braid replay` of every test under `out`: asserts exit 0.
pub fn replay_all(program: &str, out: &Path) {
    let files = test_files(out);
    assert!(!files.is_empty(), "tests were written");
    let mut args = vec!["replay", program];
    args.extend(files.iter().map(String::as_str));
    let o = braid(&args);
    assert_eq!(code(&o), 0, "replay: {}", String::from_utf8_lossy(&o.stdout));
}

/// The test's input `name` as an integer.
pub fn input_int(test: &Value, name: &str) -> i128 {
    let inputs = test["inputs"].as_array().expect("inputs");
    let i = inputs
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("input {name} in {test}"));
    let v = i["value"].as_str().expect("a value");
    v.split(':').next().unwrap_or(v).parse().expect("an integer input")
}

pub fn final_value(test: &Value, var: &str) -> String {
    test["outcome"]["values"][var]
        .as_str()
        .unwrap_or_else(|| panic!("{var} in {test}"))
        .to_string()
}

pub const SEARCHERS: [&str; 4] = ["dfs", "bfs", "random-path", "covnew"];

/// Runs `program` under every searcher (`--out` to a fresh directory),
/// replays all its tests, and hands each run to `check(search, exit code,
/// JSON object, tests)`.
pub fn for_each_searcher(program: &str, check: impl Fn(&str, i32, &Value, &[Value])) {
    for search in SEARCHERS {
        let dir = tempfile::tempdir().expect("temp dir");
        let (code, json, tests) = run_json(program, dir.path(), &["--search", search]);
        replay_all(program, dir.path());
        check(search, code, &json, &tests);
    }
}

/// Bugs (kind, location) and covered branches of a run's JSON.
pub fn bugs_and_coverage(json: &Value) -> (std::collections::BTreeSet<(String, String)>, u64) {
    let bugs = json["bugs"]
        .as_array()
        .expect("bugs")
        .iter()
        .map(|b| {
            (
                b["kind"].as_str().unwrap_or("").to_string(),
                b["location"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (bugs, json["coverage"]["branches_covered"].as_u64().expect("coverage"))
}
