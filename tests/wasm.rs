//! WebAssembly end to end: the C examples (examples/c, built by
//! examples/c/build.sh) under dse, multise and ssm, traps as bugs, harness
//! conventions, and bad modules rejected with located messages.

mod common;

use common::*;
use std::path::Path;

/// The extra `braid run` arguments of an example (its `// braid-args:` line).
fn example_args(wasm: &Path) -> Vec<String> {
    let src = std::fs::read_to_string(wasm.with_extension("c")).expect("the C source");
    src.lines()
        .find_map(|l| l.strip_prefix("// braid-args:"))
        .map(|a| a.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

fn examples() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root().join("examples/c"))
        .expect("examples/c")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    v.sort();
    assert!(v.len() >= 12, "a dozen examples");
    v
}

#[test]
fn every_c_example_runs_under_dse_multise_and_ssm_which_agree_and_whose_tests_replay() {
    for wasm in examples() {
        let p = wasm.display().to_string();
        let extra = example_args(&wasm);
        let dir = tempfile::tempdir().expect("temp dir");
        let mut expected = None;
        // On the two programs with wasi-libc linked in, ssm merges all
        // states (the quicker of the two there; QCE is tested elsewhere).
        let libc = extra.iter().any(|a| a.starts_with("--sym-"));
        for engine in ["dse", "multise", "ssm"] {
            let out = dir.path().join(engine);
            let mut args: Vec<&str> = vec!["--engine", engine];
            if engine == "ssm" && libc {
                args.extend(["--merge", "all"]);
            }
            args.extend(extra.iter().map(String::as_str));
            let (_, json, _) = run_json(&p, &out, &args);
            assert_eq!(json["complete"], true, "{p} {engine}: {}", json["incomplete_reasons"]);
            let got = bugs_and_coverage(&json);
            match &expected {
                None => expected = Some(got),
                Some(e) => assert_eq!(&got, e, "{p}: {engine} vs dse"),
            }
            replay_all(&p, &out);
        }
    }
}

/// The bug kinds a dse run of an example finds.
fn bug_kinds(name: &str) -> Vec<String> {
    let wasm = root().join("examples/c").join(name);
    let p = wasm.display().to_string();
    let dir = tempfile::tempdir().expect("temp dir");
    let extra = example_args(&wasm);
    let args: Vec<&str> = extra.iter().map(String::as_str).collect();
    let (code, json, _) = run_json(&p, dir.path(), &args);
    let kinds: Vec<String> = json["bugs"]
        .as_array()
        .expect("bugs")
        .iter()
        .map(|b| b["kind"].as_str().expect("kind").to_string())
        .collect();
    assert_eq!(code, if kinds.is_empty() { 0 } else { 1 }, "{name}");
    kinds
}

#[test]
fn traps_and_harness_failures_are_bugs_with_tests() {
    assert_eq!(bug_kinds("owi.wasm"), ["assertion"]);
    assert_eq!(bug_kinds("svcomp.wasm"), ["reach_error"]);
    assert_eq!(bug_kinds("klee.wasm"), ["abort"]);
    assert_eq!(bug_kinds("div.wasm"), ["division-by-zero"]);
    assert_eq!(bug_kinds("overflow.wasm"), ["integer-overflow"]);
    assert_eq!(bug_kinds("unreachable.wasm"), ["unreachable"]);
    assert_eq!(bug_kinds("switch.wasm"), ["reach_error"]);
    assert_eq!(bug_kinds("array.wasm"), ["reach_error"]);
    assert_eq!(bug_kinds("bits.wasm"), ["reach_error"]);
    assert_eq!(bug_kinds("float.wasm"), ["reach_error"]);
    let mut fnptr = bug_kinds("fnptr.wasm");
    fnptr.sort();
    assert_eq!(fnptr, ["division-by-zero", "integer-overflow"]);
    assert!(bug_kinds("sort.wasm").is_empty());
    assert!(bug_kinds("params.wasm").is_empty());
    // SV-COMP: the call to a reach_error the program defines is the bug;
    // abort() (after it, in assume_abort_if_not) ends a path silently.
    assert_eq!(bug_kinds("svabort.wasm"), ["reach_error"]);
    // KLEE: abort() is a bug, exit(3) ends the path with code 3.
    assert_eq!(bug_kinds("exit.wasm"), ["abort"]);
}

/// The bug kinds, and the values returned at the ends, of a dse run with `args`.
fn run_with(p: &str, args: &[&str]) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, tests) = run_json(p, dir.path(), args);
    replay_all(p, dir.path());
    let mut kinds: Vec<String> = json["bugs"]
        .as_array()
        .expect("bugs")
        .iter()
        .map(|b| b["kind"].as_str().expect("kind").to_string())
        .collect();
    kinds.sort();
    let mut returned: Vec<String> = tests
        .iter()
        .filter_map(|t| t["outcome"]["returned"].as_str().map(String::from))
        .collect();
    returned.sort();
    (kinds, returned)
}

#[test]
fn conventions_decide_what_abort_exit_and_reach_error_mean_and_tests_replay_under_them() {
    let exit = example("examples/c/exit.wasm");
    // main(argc, argv) is the entry (`__main_argc_argv`, argc 0).
    assert_eq!(
        run_with(&exit, &[]),
        (vec!["abort".into()], vec!["0:bv32".into(), "3:bv32".into()])
    );
    let (bugs, _) = run_with(&exit, &["--convention", "svcomp"]);
    assert!(bugs.is_empty(), "{bugs:?}");
    let svabort = example("examples/c/svabort.wasm");
    let (bugs, _) = run_with(&svabort, &["--convention", "klee"]);
    assert_eq!(bugs, ["abort", "abort"]);
    let o = braid(&["run", &exit, "--convention", "bogus"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--convention"));
}

#[test]
fn c_sources_are_compiled_with_clang_and_their_tests_replay() {
    let svcomp = example("examples/c/svcomp.c");
    let (bugs, _) = run_with(&svcomp, &[]);
    assert_eq!(bugs, ["reach_error"]);
    // Bugs are located at C lines (the module's DWARF).
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, _) = run_json(&svcomp, dir.path(), &[]);
    let at = json["bugs"][0]["location"].as_str().expect("a location");
    assert!(at.ends_with("(svcomp.c:12:34)"), "{at}");
    // braid.h declares the harness; --cflags reach clang (and the tests).
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "div.c",
        "#include \"braid.h\"\nint main(void) {\n  int x = klee_int(\"x\");\n  return 100 / (x - LIMIT);\n}\n",
    );
    let (bugs, _) = run_with(&p, &["--cflags", "-DLIMIT=7"]);
    assert_eq!(bugs, ["division-by-zero"]);
    // A directory of tests replays whole.
    let out = dir.path().join("out");
    let (_, json, _) = run_json(&p, &out, &["--cflags", "-DLIMIT=7"]);
    let o = braid(&["replay", &p, &out.join("tests").display().to_string()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(code(&o), 0, "{text}");
    assert!(
        text.ends_with(&format!("{} passed, 0 failed\n", json["tests"])),
        "{text}"
    );
    let o = braid(&["run", &p]);
    assert_eq!(code(&o), 2, "LIMIT undefined: clang fails");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("clang failed") && err.contains("LIMIT"), "{err}");
    // A header of the program's own that clang does not find is named as
    // such, not as a C library to install (the C library is installed here:
    // `stdio.h` is included).
    let own = written(
        dir.path(),
        "own.c",
        "#include <stdio.h>\n#include <own_header.h>\nint main(void) { return 0; }\n",
    );
    let o = braid(&["run", &own]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("own_header.h") && err.contains("-I DIR") && !err.contains("apt-get"),
        "{err}"
    );
    let o = braid(&["run", &example("examples/c/svcomp.wasm"), "--cflags", "-O2"]);
    assert_eq!(code(&o), 2);
    // A program in two sources: both compiled, and recorded for replay.
    let lib = dir.path().join("lib.c");
    std::fs::write(&lib, "int limit(void) { return 7; }\n").expect("write");
    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "#include \"braid.h\"\nint limit(void);\nint main(void) {\n  int x = klee_int(\"x\");\n  return 100 / (x - limit());\n}\n",
    )
    .expect("write");
    let (m, l) = (main.display().to_string(), lib.display().to_string());
    let out = dir.path().join("two");
    let (_, json, _) = run_json(&m, &out, &[&l]);
    assert_eq!(json["bugs"][0]["kind"], "division-by-zero", "{json}");
    replay_all(&m, &out);
    // Replayed with the sources typed as for the run; a source the run did
    // not compile is an error.
    let tests = out.join("tests").display().to_string();
    let o = braid(&["replay", &m, &l, &tests]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let o = braid(&[
        "replay",
        &m,
        &main.with_file_name("other.c").display().to_string(),
        &tests,
    ]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a source of this test's run"));
    let o = braid(&["run", &m]);
    assert_eq!(code(&o), 2, "limit undefined: the link fails");
    let o = braid(&["run", &example("examples/c/svcomp.wasm"), &l]);
    assert_eq!(code(&o), 2, "further sources of a module");
}

#[test]
fn verify_answers_true_false_or_unknown_and_never_turns_a_trap_into_a_verdict() {
    let verdict = |p: &str, extra: &[&str]| {
        let mut args = vec!["verify", p];
        args.extend(extra);
        let o = braid(&args);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        (code(&o), out.lines().next().unwrap_or("").to_string(), out)
    };
    let (c, v, out) = verdict(&example("examples/c/svabort.c"), &[]);
    assert_eq!((c, v.as_str()), (1, "FALSE"), "{out}");
    assert!(out.contains("svabort.c:17"), "{out}");
    let (c, v, _) = verdict(&example("examples/c/exit.c"), &[]);
    assert_eq!((c, v.as_str()), (0, "TRUE"));
    // A loop that does not end in the limit.
    let (c, v, out) = verdict(&example("bench/sv/loop_long.c"), &["--max-time", "1"]);
    assert_eq!((c, v.as_str()), (3, "UNKNOWN"), "{out}");
    // A trap of the compiled module (linked with wasm-ld's default 64 KiB
    // stack, too small) is no verdict.
    let small_stack = ["--max-time", "20", "--cflags", "-Wl,-z,stack-size=65536"];
    let (c, v, out) = verdict(&example("bench/sv/big_stack.c"), &small_stack);
    assert_eq!((c, v.as_str()), (3, "UNKNOWN"), "{out}");
    assert!(out.contains("out-of-bounds"), "{out}");
    // With braid's 8 MiB stack it runs; its index over 400 000 cells
    // reads words in progression (`a[i] = i`), a term of the index.
    let (c, v, out) = verdict(&example("bench/sv/big_stack.c"), &["--max-time", "20"]);
    assert_eq!((c, v.as_str()), (0, "TRUE"), "{out}");
    // Squares are no progression: that index is concretised, and the run
    // says so instead of giving a verdict.
    let dir = tempfile::tempdir().expect("temp dir");
    let squares = dir.path().join("squares.c");
    std::fs::write(
        &squares,
        std::fs::read_to_string(example("bench/sv/big_stack.c"))
            .expect("big_stack.c")
            .replace("a[i] = i;", "a[i] = i * i;")
            .replace("a[k] != (int)k", "a[k] != (int)(k * k)"),
    )
    .expect("write");
    let (c, v, out) = verdict(&squares.display().to_string(), &["--max-time", "20"]);
    assert_eq!((c, v.as_str()), (3, "UNKNOWN"), "{out}");
    assert!(out.contains("concretised"), "{out}");
}

/// A recursion 3 000 calls deep, which C's 8 MiB stack holds: the engines
/// reach the bug below it (multise, whose calls nest its own, overflowed
/// the main thread's stack at 2 000 before it ran on a thread of its own;
/// ssm is left out for time: 8.4 s at 5 000 calls in a release build, its
/// time growing with the square of the depth).
#[test]
fn deep_recursion_reaches_its_bug() {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = written(
        dir.path(),
        "deep.c",
        r#"#include "braid.h"
int depth(int n, int x) {
  if (n == 0) return x;
  return depth(n - 1, x + 1) + 1;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assume(x >= 0 && x < 10);
  if (depth(3000, x) == 6005) reach_error();
  return 0;
}
"#,
    );
    for engine in ["dse", "multise", "dsm"] {
        let o = braid(&["verify", &c, "--engine", engine, "--max-time", "60"]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!((code(&o), out.lines().next()), (1, Some("FALSE")), "{engine}: {out}");
    }
}

#[test]
fn a_module_with_only_a_start_function_runs_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let wat = dir.path().join("start.wat");
    std::fs::write(
        &wat,
        r#"(module
  (import "symbolic" "i32_symbol" (func $sym (result i32)))
  (import "symbolic" "assert" (func $assert (param i32)))
  (func $main (call $assert (i32.ne (call $sym) (i32.const 42))))
  (start $main))"#,
    )
    .expect("write");
    let (bugs, _) = run_with(&wat.display().to_string(), &[]);
    assert_eq!(bugs, ["assertion"]);
}

#[test]
fn svcomp_reach_error_test_gives_the_inputs_that_reach_it() {
    let p = example("examples/c/svcomp.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, tests) = run_json(&p, dir.path(), &[]);
    let test = &json["bugs"][0]["test"];
    let idx: usize = test.as_str().expect("a test file")[6..12]
        .parse::<usize>()
        .expect("number")
        - 1;
    let t = &tests[idx];
    let value = |name: &str| {
        let i = t["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .find(|i| i["name"] == name)
            .expect(name);
        i["value"]
            .as_str()
            .expect("value")
            .split(':')
            .next()
            .expect("bits")
            .parse::<u64>()
            .expect("number")
    };
    assert_eq!(value("__VERIFIER_nondet_int"), 671);
    assert_eq!(value("__VERIFIER_nondet_uchar"), b'Z' as u64);
    // The same test in Test-Comp's format.
    let suite = dir.path().join("test-suite");
    let metadata = std::fs::read_to_string(suite.join("metadata.xml")).expect("metadata.xml");
    assert!(metadata.contains("<programfile>svcomp.wasm</programfile>") && metadata.contains("<programhash>"));
    assert!(metadata.contains("<entryfunction>main</entryfunction>") && metadata.contains("<creationtime>20"));
    assert!(metadata.contains("<specification>COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )</specification>"));
    // `braid verify` writes its suite for Test-Comp's error coverage.
    let verified = dir.path().join("verified");
    let o = braid(&["verify", &p, "--out", &verified.display().to_string()]);
    assert_eq!(code(&o), 1, "{}", String::from_utf8_lossy(&o.stdout));
    let metadata = std::fs::read_to_string(verified.join("test-suite/metadata.xml")).expect("metadata.xml");
    assert!(
        metadata.contains("<specification>COVER( init(main()), FQL(COVER EDGES(@CALL(reach_error))) )</specification>"),
        "{metadata}"
    );
    // Zipped as Test-Comp submits it: every file under test-suite/.
    let zip = std::fs::read(dir.path().join("test-suite.zip")).expect("test-suite.zip");
    assert!(zip.starts_with(b"PK\x03\x04"));
    let listed = String::from_utf8_lossy(&zip);
    assert!(
        listed.contains("test-suite/metadata.xml") && listed.contains(&format!("test-suite/test{:06}.xml", idx + 1))
    );
    let xml = std::fs::read_to_string(suite.join(format!("test{:06}.xml", idx + 1))).expect("the test's XML");
    assert!(xml.contains("<input>671</input>\n  <input>90</input>"), "{xml}");
}

#[test]
fn exported_functions_take_symbolic_parameters() {
    let p = example("examples/c/params.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, tests) = run_json(&p, dir.path(), &["--entry", "classify"]);
    assert_eq!(json["paths"], 4);
    let returned: std::collections::BTreeSet<String> = tests
        .iter()
        .map(|t| t["outcome"]["returned"].as_str().expect("a returned value").to_string())
        .collect();
    let expected: std::collections::BTreeSet<String> = ["0:bv32", "1:bv32", "2:bv32", "4294967295:bv32"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(returned, expected);
    let o = braid(&["run", &p, "--entry", "nope"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("exports no function `nope`"));
}

#[test]
fn bad_modules_exit_2_with_a_located_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = std::fs::read(root().join("examples/c/div.wasm")).expect("div.wasm");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated.wasm", good[..good.len() / 2].to_vec(), "byte offset"),
        ("garbage.wasm", b"\0asm\x01\0\0\0\xff\xff".to_vec(), "byte offset"),
        ("text.wasm", b"hello".to_vec(), "byte offset"),
        (
            "simd.wat",
            b"(module (func (export \"main\") (drop (v128.const i64x2 0 0))))".to_vec(),
            "SIMD",
        ),
        (
            "tail.wat",
            b"(module (func $f (return_call $f)) (export \"main\" (func $f)))".to_vec(),
            "tail",
        ),
        (
            "import.wat",
            b"(module (import \"env\" \"mystery\" (func (result i32))) (func (export \"main\")))".to_vec(),
            "unknown imports: env.mystery",
        ),
        (
            "noentry.wat",
            b"(module (func (export \"f\")))".to_vec(),
            "exported functions: f",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).expect("write");
        let o = braid(&["run", &path.display().to_string()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(code(&o), 2, "{name}: {err}");
        assert!(err.contains(name) && err.contains(expected), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

#[test]
fn unknown_imports_can_be_made_symbolic_and_the_run_is_incomplete() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(dir.path(), "m.wat", "(module (import \"env\" \"mystery\" (func $m (result i32)))\n\
         (func (export \"main\") (result i32) (if (result i32) (i32.eq (call $m) (i32.const 7)) (then (unreachable)) (else (i32.const 0)))))");
    let (code, json, _) = run_json(&p, &dir.path().join("out"), &["--allow-unknown-imports"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["complete"], false);
    assert!(json["incomplete_reasons"][0]
        .as_str()
        .expect("a reason")
        .contains("env.mystery"));
}

#[test]
fn functions_with_several_results_return_them_all() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(dir.path(), "divmod.wat", "(module (import \"symbolic\" \"i32_symbol\" (func $sym (result i32)))\n\
         (func $divmod (param i32 i32) (result i32 i32) (i32.div_u (local.get 0) (local.get 1)) (i32.rem_u (local.get 0) (local.get 1)))\n\
         (func (export \"main\") (result i32) (local $q i32) (local $r i32)\n\
           (call $divmod (call $sym) (i32.const 7)) (local.set $r) (local.set $q)\n\
           (if (i32.and (i32.eq (local.get $q) (i32.const 5)) (i32.eq (local.get $r) (i32.const 3))) (then unreachable))\n\
           (block (result i32 i32) (i32.const 1) (i32.const 2)) (i32.add)))");
    let out = dir.path().join("out");
    let (code, json, tests) = run_json(&p, &out, &[]);
    assert_eq!(code, 1, "{json}");
    let bug = tests
        .iter()
        .find(|t| t["outcome"]["kind"] == "bug")
        .expect("the unreachable test");
    assert_eq!(bug["inputs"][0]["value"], "38:bv32");
    assert!(tests.iter().any(|t| t["outcome"]["returned"] == "3:bv32"));
    replay_all(&p, &out);
}

/// The tests' (stdout, stderr, returned) of a run.
fn printed(tests: &[serde_json::Value]) -> Vec<(String, String, String)> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    let mut v: Vec<_> = tests
        .iter()
        .map(|t| (text(&t["stdout"]), text(&t["stderr"]), text(&t["outcome"]["returned"])))
        .collect();
    v.sort();
    v
}

#[test]
fn wasi_programs_get_symbolic_arguments_and_stdin_and_tests_record_output_and_exit_codes() {
    let dir = tempfile::tempdir().expect("temp dir");
    // echo with up to two arguments of up to two bytes.
    let echo = example("examples/c/echo.wasm");
    let out = dir.path().join("echo");
    let (_, json, tests) = run_json(&echo, &out, &["--sym-args", "2", "2"]);
    assert_eq!(json["complete"], true);
    let outputs: Vec<String> = printed(&tests).into_iter().map(|(o, _, _)| o).collect();
    assert!(
        outputs.contains(&"\n".to_string()),
        "echo with no arguments prints a newline: {outputs:?}"
    );
    assert!(outputs.contains(&String::new()), "echo -n prints nothing: {outputs:?}");
    assert!(
        outputs
            .iter()
            // (Characters: a byte that is not UTF-8 prints as one `�`.)
            .any(|o| o.chars().count() == 4 && o.ends_with('\n') && o.chars().nth(1) == Some(' ')),
        "two one-byte arguments, a space between: {outputs:?}"
    );
    assert!(tests
        .iter()
        .all(|t| t["run_args"] == serde_json::json!(["--sym-args", "2", "2"])));
    replay_all(&echo, &out);
    // A command read from four bytes of stdin.
    let stdin = example("examples/c/stdin.wasm");
    let out = dir.path().join("stdin");
    let (_, _, tests) = run_json(&stdin, &out, &["--sym-stdin", "4"]);
    let got = printed(&tests);
    let has = |o: &str, e: &str, r: &str| got.contains(&(o.into(), e.into(), r.into()));
    assert!(has("hello\n", "", ""), "{got:?}");
    assert!(has("", "", "3:bv32"), "quit exits with 3: {got:?}");
    assert!(has("", "unknown command\n", "1:bv32"), "{got:?}");
    replay_all(&stdin, &out);
    // Replay compares what both runtimes print with the recorded output.
    let test = test_files(&out)
        .into_iter()
        .find(|f| std::fs::read_to_string(f).expect("test").contains("hello"));
    let test = test.expect("the greeting's test");
    let text = std::fs::read_to_string(&test).expect("test");
    std::fs::write(&test, text.replace("hello", "howdy")).expect("write");
    let o = braid(&["replay", &stdin, &test]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stdout).contains("recorded stdout"), "{o:?}");
}

#[test]
fn memory_grows_up_to_its_maximum() {
    let text = "(module (memory 1 3)\n\
                (func (export \"f\") (param i32) (result i32)\n\
                (if (i32.eq (memory.grow (local.get 0)) (i32.const -1)) (then (return (i32.const -1))))\n\
                (i32.store (i32.const 70000) (i32.const 7))\n\
                (i32.add (memory.size) (i32.load (i32.const 70000)))))";
    let dir = tempfile::tempdir().expect("temp dir");
    let wat = dir.path().join("grow.wat");
    std::fs::write(&wat, text).expect("write");
    let p = wat.display().to_string();
    for engine in ["dse", "multise"] {
        let out = dir.path().join(engine);
        let (_, json, tests) = run_json(&p, &out, &["--entry", "f", "--engine", engine]);
        assert_eq!(json["complete"], true, "{engine}");
        let mut returned: Vec<String> = printed(&tests).into_iter().map(|(_, _, r)| r).collect();
        returned.sort();
        returned.dedup();
        // No growth: the store is out of bounds; 1 or 2 more pages: size +
        // 7; 3 or more: refused.
        assert_eq!(returned, ["", "10:bv32", "4294967295:bv32", "9:bv32"], "{engine}");
        assert_eq!(json["bugs"][0]["kind"], "out-of-bounds", "{engine}");
        replay_all(&p, &out);
    }
}

#[test]
fn bench_runs_sv_comp_tasks_under_verify_and_scores_their_verdicts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let task = |name: &str, expect: &str, check: &str| {
        let src = format!(
            "// expect: {expect}\nextern int __VERIFIER_nondet_int(void);\nextern void abort(void);\n\
             void reach_error(void) {{}}\nint main(void) {{\n  int x = __VERIFIER_nondet_int();\n  \
             if (x < 0 || x > 9) abort();\n  if ({check}) reach_error();\n  return 0;\n}}\n"
        );
        std::fs::write(dir.path().join(name), src).expect("write");
    };
    task("safe.c", "TRUE", "x > 9");
    task("unsafe.c", "FALSE", "x == 7");
    let suite = dir.path().display().to_string();
    let o = braid(&[
        "bench",
        &suite,
        "--engines",
        "dse,multise",
        "--max-time",
        "20",
        "--json",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(code(&o), 0, "{text}");
    let j: serde_json::Value = serde_json::from_str(&text).expect("json");
    for e in ["dse", "multise"] {
        let s = &j["sv_scores"][e];
        assert_eq!(
            (s["score"].as_i64(), s["correct"].as_u64()),
            (Some(3), Some(2)),
            "{e}: {s}"
        );
        assert_eq!(s["false_without_replaying_test"], 0, "{e}: {s}");
    }
    let rows = j["rows"].as_array().expect("rows");
    assert_eq!(rows[1]["expected"], "FALSE");
    assert_eq!(rows[1]["engines"]["dse"]["verdict"], "FALSE");
    assert_eq!(rows[1]["engines"]["dse"]["replay_failures"], 0);
    // A task that expects the wrong verdict: the answer is scored as
    // SV-COMP scores a false alarm, and the bench fails.
    task("wrong.c", "TRUE", "x == 3");
    let o = braid(&["bench", &suite, "--engines", "dse", "--max-time", "20"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(code(&o), 1, "{text}");
    assert!(text.contains("| wrong.c | TRUE | **FALSE (wrong)** |"), "{text}");
    assert!(
        text.contains("| **score** (correct / wrong / unknown) | | -13 (2 / 1 / 0) |"),
        "{text}"
    );
    // An UNKNOWN says why under the table: here a path that traps
    // (a division by zero at x == 4) hides what follows it.
    std::fs::remove_file(dir.path().join("wrong.c")).expect("remove");
    task("trap.c", "TRUE", "100 / (x - 4) == 1");
    let o = braid(&["bench", &suite, "--engines", "dse", "--max-time", "20"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(code(&o), 0, "{text}");
    assert!(text.contains("| trap.c | TRUE | UNKNOWN |"), "{text}");
    assert!(text.contains("- trap.c (dse): a path ends in"), "{text}");
}

#[test]
fn klee_inputs_keep_the_names_the_program_gives_them_and_replay_in_both_runtimes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(dir.path(), "names.c", "#include \"braid.h\"\nint main(void) {\n  int key;\n  char tag[2];\n  char dynamic[4] = {'d', 'y', 'n', 0};\n  \
         klee_make_symbolic(&key, sizeof key, \"key\");\n  klee_make_symbolic(tag, sizeof tag, \"tag\");\n  \
         int n = klee_int(\"count\");\n  int r = klee_range(0, 10, \"choice\");\n  int extra;\n  \
         klee_make_symbolic(&extra, sizeof extra, dynamic);\n  \
         if (key == 0x01020304 && tag[1] == 'z' && n == -5 && r == 7 && extra == 9) klee_assert(0);\n  return 0;\n}\n");
    let out = dir.path().join("out");
    let (_, json, tests) = run_json(&p, &out, &[]);
    assert_eq!(json["bugs"][0]["kind"], "assertion", "{json}");
    let names: std::collections::BTreeSet<String> = tests
        .iter()
        .flat_map(|t| t["inputs"].as_array().expect("inputs").clone())
        .map(|i| i["name"].as_str().expect("name").to_string())
        .collect();
    // The k-th read of a name is `name#k` (the first, plain `name`).
    for name in ["key", "key#3", "tag#1", "count", "choice"] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    // A name that is no string literal (here an array filled at run time)
    // is not known where braid lowers the call: the inputs keep the
    // function's name, in braid and in wasmi alike.
    assert!(names.contains("klee_make_symbolic#3"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("dyn")), "{names:?}");
    replay_all(&p, &out);
}

#[test]
fn older_sv_comp_and_more_klee_harness_functions_mean_what_they_mean_there() {
    let dir = tempfile::tempdir().expect("temp dir");
    // `__VERIFIER_error()` was SV-COMP's property before 2020; KLEE's
    // printing and hinting functions do nothing, `klee_get_value_i32` gives
    // the value, `klee_silent_exit` ends the path, `klee_abort` fails.
    let p = written(
        dir.path(),
        "old.c",
        "#include \"braid.h\"\nint main(void) {\n  \
         int x = __VERIFIER_nondet_int();\n  klee_warning(\"w\");\n  klee_print_expr(\"x\", x);\n  \
         klee_open_merge();\n  klee_close_merge();\n  if (klee_get_value_i32(x) == 7) __VERIFIER_error();\n  \
         if (x == 8) klee_silent_exit(3);\n  return 0;\n}\n",
    );
    let (bugs, returned) = run_with(&p, &[]);
    assert_eq!(bugs, ["reach_error"]);
    assert_eq!(returned, ["0:bv32", "3:bv32"]);
    let o = braid(&["verify", &p]);
    assert_eq!(
        (code(&o), String::from_utf8_lossy(&o.stdout).lines().next()),
        (1, Some("FALSE"))
    );
    let p = written(
        dir.path(),
        "kabort.c",
        "#include \"braid.h\"\nint main(void) {\n  \
         int x = klee_int(\"x\");\n  if (x == 3) klee_abort();\n  \
         if (x == 4) klee_report_error(\"f.c\", 1, \"bad\", \"user.err\");\n  return 0;\n}\n",
    );
    assert_eq!(run_with(&p, &[]).0, ["abort", "assertion"]);
    // C compiled to wasm32 has no setjmp: the error says so.
    let p = written(
        dir.path(),
        "jmp.c",
        "#include <setjmp.h>\nstatic jmp_buf env;\nint main(void) {\n  \
         if (setjmp(env)) return 1;\n  longjmp(env, 1);\n}\n",
    );
    let o = braid(&["run", &p]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("setjmp and longjmp are not available"));
}

/// A complete `engine` run of `p` (its tests under `dir/engine`) that
/// found a bug (exit 1), after its tests replay.
fn complete_with_a_bug(p: &str, dir: &Path, engine: &str) -> serde_json::Value {
    let out = dir.join(engine);
    let (code, json, _) = run_json(p, &out, &["--engine", engine]);
    assert_eq!((code, json["complete"].as_bool()), (1, Some(true)), "{engine}: {json}");
    replay_all(p, &out);
    json
}

/// [`complete_with_a_bug`] under each of `engines`, the bug of kind `kind`.
fn every_engine_finds(p: &str, dir: &Path, engines: &[&str], kind: &str) {
    for engine in engines {
        let json = complete_with_a_bug(p, dir, engine);
        assert_eq!(json["bugs"][0]["kind"], kind, "{engine}: {json}");
    }
}

#[test]
fn cpp_sources_are_compiled_with_clang_plus_plus_and_their_tests_replay() {
    // Virtual calls, `new` and `delete`, a template; and C++'s standard
    // library (libc++): a vector sorted, a string appended to.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "shapes.cpp",
        "#include \"braid.h\"\nstruct Shape { virtual int area(int x) const = 0; virtual ~Shape() {} };\n\
         struct Sq : Shape { int area(int x) const override { return x * x; } };\n\
         struct Tri : Shape { int area(int x) const override { return x * 3; } };\n\
         template <typename T> struct Stack {\n  T items[4];\n  int n = 0;\n  \
         bool push(T v) { if (n == 4) return false; items[n++] = v; return true; }\n};\n\
         int main() {\n  int k = __VERIFIER_nondet_int();\n  Shape *p = (k & 1) ? (Shape *)new Sq : (Shape *)new Tri;\n  \
         Stack<int> s;\n  for (int i = 0; i < (k & 7); i++) s.push(i);\n  int a = p->area(k);\n  delete p;\n  \
         if (a == 49 && s.n == 4) reach_error();\n  return s.n;\n}\n",
    );
    every_engine_finds(&p, dir.path(), &["dse", "multise", "concolic"], "reach_error");
    let dir = tempfile::tempdir().expect("temp dir");
    let v = written(
        dir.path(),
        "v.cpp",
        "#include \"braid.h\"\n#include <algorithm>\n#include <string>\n#include <vector>\nint main() {\n  \
         std::vector<int> v;\n  for (int i = 0; i < 3; i++) v.push_back(__VERIFIER_nondet_int());\n  \
         std::sort(v.begin(), v.end());\n  std::string s = \"ab\";\n  if (v[0] == 1 && v[1] == 2 && v[2] == 3) s += \"c\";\n  \
         if (s.size() == 3 && v.back() == 3) reach_error();\n  return (int)s.size();\n}\n",
    );
    every_engine_finds(&v, dir.path(), &["dse", "concolic"], "reach_error");
}

#[test]
fn a_harness_written_for_owi_includes_owi_h_and_its_narrow_symbols_replay() {
    // Owi's header, and its 8-bit and Boolean symbols (sign-extended chars).
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "owi.c",
        "#include <owi.h>\nint main(void) {\n  char c = owi_char();\n  owi_assume(c < 0);\n  \
         int r = owi_range(3, 6);\n  owi_assume(r > 4);\n  \
         if (owi_bool()) owi_assert(c != -5 || owi_i8() != r + 2);\n  return c;\n}\n",
    );
    every_engine_finds(&p, dir.path(), &["dse", "multise"], "assertion");
}

#[test]
fn concolic_takes_its_inputs_offset_where_the_shape_does_not_bound_it_and_runs_the_others() {
    // An LZ-style decoder: a back-reference's 16-bit distance makes the
    // copy's offset range over 64 Ki cells by its shape. dse searches for
    // the feasible ones and reads the few as an array; a concolic run takes
    // its input's and leaves the others to runs of their own: the same
    // bugs and branches, at least dse's paths.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "lz.c",
        "#include \"braid.h\"\nint main(void) {\n  unsigned char in[5];\n  char out[16];\n  int o = 0, i = 0;\n  \
         for (int j = 0; j < 5; j++) in[j] = __VERIFIER_nondet_uchar();\n  while (i < 5) {\n    \
         unsigned char t = in[i++];\n    if (t < 128) {\n      if (o < 16) out[o++] = t;\n    } else if (i + 2 <= 5) {\n      \
         int d = in[i] | in[i + 1] << 8;\n      i += 2;\n      if (d == 0 || d > o) return 1;\n      \
         for (int k = 0; k < 2 && o < 16; k++, o++) out[o] = out[o - d];\n    }\n  }\n  \
         if (o == 3 && out[2] == 'x') reach_error();\n  return o;\n}\n",
    );
    let mut runs = Vec::new();
    for engine in ["dse", "concolic"] {
        let json = complete_with_a_bug(&p, dir.path(), engine);
        let (bugs, covered) = bugs_and_coverage(&json);
        let kinds: Vec<String> = bugs.into_iter().map(|(kind, _)| kind).collect();
        runs.push((kinds, covered, json["paths"].as_u64().expect("paths")));
    }
    assert_eq!((&runs[0].0, &runs[0].1), (&runs[1].0, &runs[1].1));
    assert_eq!(runs[0].0, ["reach_error"]);
    assert!(runs[1].2 >= runs[0].2, "{runs:?}");
}

#[test]
fn concolic_runs_every_offset_a_table_is_read_at_before_it_calls_itself_complete() {
    // `tab[a * b]` ranges over 64 Ki cells by its shape, and the path
    // bounds it to 8 x 8: each concolic run takes its input's offset, and
    // the open branch of the others excludes every offset taken there.
    // With `offset != k` alone, the run after the first came back to the
    // first's offset and concolic called 9 of dse's 12 branches complete.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "table.c",
        "#include \"braid.h\"\nunsigned char tab[5000];\nint main(void) {\n  \
         for (int i = 0; i < 5000; i++) tab[i] = (unsigned char)(i % 7);\n  \
         unsigned a = __VERIFIER_nondet_uchar(), b = __VERIFIER_nondet_uchar();\n  \
         if (a >= 8 || b >= 8) return 0;\n  unsigned char v = tab[a * b];\n  \
         if (v == 3) return 1;\n  if (v == 5) return 2;\n  if (v == 6) reach_error();\n  return 3;\n}\n",
    );
    let mut runs = Vec::new();
    for engine in ["dse", "concolic"] {
        let json = complete_with_a_bug(&p, dir.path(), engine);
        runs.push(bugs_and_coverage(&json));
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn a_concolic_run_that_loops_for_ever_is_cut_and_the_runs_after_it_go_on() {
    // Input 7 keeps the loop at the same state for ever (as a regex
    // matcher's set that ends in a backslash did): that run passes the
    // statements allowed once a run has ended and is cut, without a test,
    // and the next input (9) still runs. Stuck, the run would have ended at
    // the time limit with no test for 9.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "spin.c",
        "#include \"braid.h\"\nint main(void) {\n  unsigned char x = __VERIFIER_nondet_uchar();\n  \
         int i = 0;\n  while (i < 4) {\n    if (x == 7) continue;\n    i++;\n  }\n  \
         if (x == 9) return 2;\n  return 1;\n}\n",
    );
    let out = dir.path().join("out");
    let (code, json, tests) = run_json(&p, &out, &["--engine", "concolic", "--max-time", "300"]);
    assert_eq!((code, json["complete"].as_bool()), (0, Some(false)), "{json}");
    let reasons = json["incomplete_reasons"].to_string();
    assert!(
        reasons.contains("a loop that may not end") && !reasons.contains("time limit"),
        "{reasons}"
    );
    assert_eq!(json["stats"]["concolic"]["runs_cut"], 1, "{json}");
    let mut xs: Vec<i128> = tests.iter().map(|t| input_int(t, "__VERIFIER_nondet_uchar")).collect();
    xs.sort_unstable();
    assert!(xs.contains(&9) && !xs.contains(&7), "{xs:?}");
    replay_all(&p, &out);
}

#[test]
fn tables_read_as_progressions_with_exceptions_give_replaying_verdicts_under_every_engine() {
    // A 256-entry class table that is zero but for three entries, read at
    // an input, feeds the index of a second table: the read is a choice of
    // constants, and so is every address computed from it.
    for program in ["bench/sv/state_table.c", "bench/sv/array_progression_bug.c"] {
        for engine in ["dse", "multise", "ssm"] {
            let dir = tempfile::tempdir().expect("temp dir");
            let p = example(program);
            let out = dir.path().display().to_string();
            let o = braid(&["verify", &p, "--engine", engine, "--max-time", "30", "--out", &out]);
            let text = String::from_utf8_lossy(&o.stdout);
            assert_eq!(
                (code(&o), text.lines().next()),
                (1, Some("FALSE")),
                "{program} {engine}: {text}"
            );
            replay_all(&p, dir.path());
        }
    }
}

#[test]
fn multise_proves_finite_state_c_loops_by_loop_head_merging_and_finds_their_bugs() {
    // seed 003: the state at the head after an iteration is one an earlier
    // iteration had (modulo the inputs it reads): the loop is explored for
    // every trip count. Without merging the same runs are cut off.
    let cases = [
        ("bench/loops/countdown.c", "TRUE", 0),
        ("bench/loops/locks_4.c", "TRUE", 0),
        ("bench/loops/modcount.c", "TRUE", 0),
        ("bench/loops/locks_4_bug.c", "FALSE", 1),
        ("bench/loops/toggle_bug.c", "FALSE", 1),
    ];
    for (program, verdict, exit) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = example(program);
        let out = dir.path().display().to_string();
        let o = braid(&[
            "verify",
            &p,
            "--engine",
            "multise",
            "--max-time",
            "30",
            "--out",
            &out,
            "--json",
        ]);
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(
            (code(&o), json["verdict"].as_str()),
            (exit, Some(verdict)),
            "{program}: {json}"
        );
        assert!(
            json["stats"]["loops"]["subsumed"].as_u64() > Some(0),
            "{program}: {json}"
        );
        replay_all(&p, dir.path());
    }
    let p = example("bench/loops/locks_4.c");
    let o = braid(&[
        "verify",
        &p,
        "--engine",
        "multise",
        "--max-time",
        "2",
        "--loop-merge",
        "off",
    ]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().next(), Some("UNKNOWN"));
}

/// A loop that fills an array with values computed from inputs splits
/// each arrival at its head by those values, for nothing: no later
/// arrival repeats a state. Split for good, each split doubled the paths
/// after the loop (594 against 70 here); a split none of whose parts
/// an entry stands for now goes on as one state.
#[test]
fn loop_head_splits_that_cut_nothing_do_not_multiply_the_paths() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "fill.c",
        r#"#include "braid.h"
int a[8];
int main(void) {
  for (int i = 0; i < 8; i++) a[i] = i * 3 + (__VERIFIER_nondet_int() & 1);
  int s = 0;
  for (int i = 0; i < 6; i++) {
    unsigned char c = __VERIFIER_nondet_uchar();
    if (c > 'm') s += a[i & 7]; else s -= 1;
  }
  if (s == 17) reach_error();
  return s;
}
"#,
    );
    let (_, off, _) = run_json(&p, &dir.path().join("off"), &["--loop-merge", "off"]);
    let (_, on, _) = run_json(&p, &dir.path().join("on"), &[]);
    assert_eq!(on["complete"], true);
    assert_eq!(bugs_and_coverage(&on), bugs_and_coverage(&off));
    assert!(on["stats"]["loops"]["splits"].as_u64() > Some(0), "{on}");
    assert_eq!(on["paths"], off["paths"], "{on}");
    replay_all(&p, &dir.path().join("on"));
}

#[test]
fn a_switch_over_a_character_range_is_branches_on_the_runs_of_its_table() {
    // clang -O0 makes this switch a br_table of 84 entries (`"` to `u`)
    // with nine cases; its runs of equal targets are 17.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "escape.c",
        r#"#include "braid.h"
static int escape(char c) {
  switch (c) {
  case '"': return '"';
  case '/': return '/';
  case '\\': return '\\';
  case 'b': return 8;
  case 'f': return 12;
  case 'n': return 10;
  case 'r': return 13;
  case 't': return 9;
  case 'u': return -2;
  default: return -1;
  }
}
int main(void) {
  char s[2];
  klee_make_symbolic(s, 2, "s");
  int a = escape(s[0]), b = escape(s[1]);
  if (a == -2 && b == 10) klee_assert(0);
  return a + b;
}
"#,
    );
    let mut expected = None;
    for engine in ["dse", "multise", "ssm", "dsm"] {
        let out = dir.path().join(engine);
        let (_, json, _) = run_json(&p, &out, &["--engine", engine]);
        assert_eq!(json["complete"], true, "{engine}: {}", json["incomplete_reasons"]);
        if engine == "dse" {
            // One path per run of each lookup (a computed jump made one per
            // table entry: 85 x 85).
            assert_eq!(json["paths"], 17 * 17, "{json}");
            // The 16 comparisons that pick a run are branches.
            let total = json["coverage"]["branches_total"].as_u64().expect("a total");
            assert!(total >= 2 * 16, "{total}");
        }
        let got = bugs_and_coverage(&json);
        assert_eq!(got.0.len(), 1, "{engine}: the assertion is reached");
        match &expected {
            None => expected = Some(got),
            Some(e) => assert_eq!(&got, e, "{engine} vs dse"),
        }
        replay_all(&p, &out);
    }
}

#[test]
fn string_functions_of_the_c_library_agree_with_their_specification_and_a_programs_own_win() {
    // Every path checks strlen, strchr, strrchr, strcmp, strncmp, memchr,
    // strspn and strcspn against loops written here: no assertion fails.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "strings.c",
        r#"#include <string.h>
#include "braid.h"
int main(void) {
  char s[4];
  klee_make_symbolic(s, 3, "s");
  s[3] = 0;
  size_t n = 0;
  while (s[n]) n++;
  klee_assert(strlen(s) == n);
  size_t a = 0;
  while (a < n && s[a] != 'a') a++;
  char *p = strchr(s, 'a');
  klee_assert(a < n ? p == s + a : p == 0);
  klee_assert(strchr(s, 0) == s + n);
  klee_assert(memchr(s, 'a', 3) == (a < n ? s + a : memchr(s + n, 'a', 3 - n)));
  char *r = strrchr(s, 'b');
  klee_assert(r == 0 || (*r == 'b' && strchr(r + 1, 'b') == 0));
  int c = strcmp(s, "ab");
  klee_assert((c == 0) == (n == 2 && s[0] == 'a' && s[1] == 'b'));
  klee_assert((strncmp(s, "ab", 1) == 0) == (s[0] == 'a'));
  klee_assert(c < 0 ? (unsigned char)s[0] < 'a' || (s[0] == 'a' && (unsigned char)s[1] < 'b')
                    : 1);
  size_t sp = strspn(s, "ab"), cs = strcspn(s, "ab");
  klee_assert(sp <= n && cs <= n && (sp == 0 || cs == 0 || n == 0));
  return 0;
}
"#,
    );
    let out = dir.path().join("out");
    let (_, json, _) = run_json(&p, &out, &["--engine", "dse"]);
    assert_eq!(json["complete"], true, "{}", json["incomplete_reasons"]);
    assert_eq!(json["bugs"].as_array().map(Vec::len), Some(0), "{json}");
    replay_all(&p, &out);
    // A program's own definition wins over braid's.
    let own = written(
        dir.path(),
        "own.c",
        "#include <string.h>\n#include \"braid.h\"\nsize_t strlen(const char *s) { (void)s; return 42; }\nint main(void) {\n  char b[2];\n  klee_make_symbolic(b, 2, \"b\");\n  klee_assert(strlen(b) != 42);\n  return 0;\n}\n",
    );
    let (_, json, _) = run_json(&own, &dir.path().join("own"), &[]);
    assert_eq!(json["bugs"][0]["kind"], "assertion", "{json}");
}

/// Questions over products of doubles that Z3 4.8.12 takes minutes on go to
/// a helper solver too (Bitwuzla or cvc5, installed by
/// scripts/install-deps.sh), raced against Z3: the quadratic-roots program
/// is explored completely, some answers are the helper's, and every test
/// replays.
#[test]
fn a_helper_solver_decides_the_float_questions_z3_is_slow_on() {
    let p = example("bench/muse/quadratic.c");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, json, _) = run_json(&p, dir.path(), &["--max-time", "120"]);
    assert_eq!(json["complete"], true, "{}", json["incomplete_reasons"]);
    let helped: u64 = json["stats"]["solver_detail"]["by_kind"]
        .as_array()
        .expect("kinds")
        .iter()
        .map(|k| k["helper_answers"].as_u64().expect("a count"))
        .sum();
    assert!(helped > 0, "no answer from cvc5");
    replay_all(&p, dir.path());
}

/// A library whose own header includes a system header builds against the
/// C library even when the harness includes only the library's header (as
/// picohttpparser.h includes <sys/types.h>).
#[test]
fn a_system_header_included_by_a_librarys_header_builds_with_the_c_library() {
    let dir = tempfile::tempdir().expect("temp dir");
    written(
        dir.path(),
        "count.h",
        "#include <sys/types.h>\nsize_t count_a(const char *s, size_t n);\n",
    );
    let lib = written(
        dir.path(),
        "count.c",
        "#include \"count.h\"\nsize_t count_a(const char *s, size_t n) {\n  size_t k = 0;\n  for (size_t i = 0; i < n; i++) k += s[i] == 'a';\n  return k;\n}\n",
    );
    let p = written(
        dir.path(),
        "main.c",
        "#include \"braid.h\"\n#include \"count.h\"\nint main(void) {\n  char b[3];\n  klee_make_symbolic(b, 3, \"b\");\n  klee_assert(count_a(b, 3) != 3);\n  return 0;\n}\n",
    );
    let out = dir.path().join("out");
    let (_, json, _) = run_json(&p, &out, &[&lib]);
    assert_eq!(json["bugs"][0]["kind"], "assertion", "{json}");
    let o = braid(&["replay", &p, &lib, &out.join("tests").display().to_string()]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stdout));
}

/// A KLEE-style array of symbolic ints (`klee_make_symbolic(a, sizeof a)`)
/// is read as words put together from its bytes; a sort compares them
/// only, so the search of orderings decides its questions — merged states'
/// `ite`s over the words too — and no engine calls Z3 (before, ssm's and
/// dsm's merged questions took Z3 50-170 ms each). The engines agree on
/// coverage and bugs, and every test replays.
/// The questions of a run's `--json` that one of the solver layer's own
/// procedures answered (its `{procedure}_sat` and `{procedure}_unsat`).
fn answered_by(json: &serde_json::Value, procedure: &str) -> u64 {
    let kinds = json["stats"]["solver_detail"]["by_kind"].as_array().expect("kinds");
    let count = |k: &serde_json::Value, answer: &str| k[format!("{procedure}_{answer}")].as_u64().unwrap_or(0);
    kinds.iter().map(|k| count(k, "sat") + count(k, "unsat")).sum()
}

#[test]
fn a_sort_of_symbolic_bytes_read_as_words_needs_no_z3_call() {
    let p = example("examples/c/sort.wasm");
    let mut covered = Vec::new();
    for engine in ["dse", "ssm", "dsm", "multise"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, json, _) = run_json(&p, dir.path(), &["--engine", engine]);
        assert_eq!(json["complete"], true, "{engine}: {}", json["incomplete_reasons"]);
        assert_eq!(json["stats"]["solver_calls"], 0, "{engine}: {}", json["stats"]);
        // multise's guards over the bytes' bits are walked first
        // (`Guards::search_model`), the rest over orderings.
        let walked = json["stats"]["guard_checks"]["by_search"].as_u64().unwrap_or(0);
        let decided = answered_by(&json, "orders") + walked;
        assert!(decided > 0, "{engine}: no question decided over orderings or by a walk");
        assert_eq!(json["bugs"].as_array().map(Vec::len), Some(0), "{engine}");
        covered.push(json["coverage"]["branches_covered"].clone());
        replay_all(&p, dir.path());
    }
    assert!(covered.windows(2).all(|w| w[0] == w[1]), "{covered:?}");
}

/// Table 1's priority queue under ssm and dsm, merging alone: its merged
/// questions (a path condition's `or`s over ten keys, `ite` values) are
/// decided by clause learning over difference bounds, with no Z3 call,
/// and the exploration covers what dse's does; every test replays.
#[test]
fn merged_questions_over_comparisons_are_decided_by_clause_learning() {
    let p = example("bench/multise/priorityqueue.wasm");
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, dse, _) = run_json(&p, dir.path(), &["--engine", "dse"]);
    for engine in ["ssm", "dsm"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let (_, json, _) = run_json(&p, dir.path(), &["--engine", engine, "--race-after", "off"]);
        assert_eq!(json["complete"], true, "{engine}: {}", json["incomplete_reasons"]);
        assert_eq!(json["stats"]["solver_calls"], 0, "{engine}: {}", json["stats"]);
        let decided = answered_by(&json, "cdcl");
        assert!(decided > 0, "{engine}: no question decided by clause learning");
        assert_eq!(
            json["coverage"]["branches_covered"], dse["coverage"]["branches_covered"],
            "{engine}"
        );
        assert_eq!(json["bugs"], dse["bugs"], "{engine}");
        replay_all(&p, dir.path());
    }
}

#[test]
fn a_query_cut_by_the_per_query_timeout_names_that_limit() {
    // Factoring a 64-bit product of two 32-bit primes: Z3 takes seconds.
    let dir = tempfile::tempdir().expect("temp dir");
    let p = written(
        dir.path(),
        "factor.c",
        "extern unsigned __VERIFIER_nondet_uint(void);\nextern void reach_error(void);\n\
         int main(void) {\n  unsigned x = __VERIFIER_nondet_uint(), y = __VERIFIER_nondet_uint();\n  \
         if (x > 1 && y > 1 && (unsigned long long)x * y == 18446743979220271189ULL)\n    reach_error();\n  return 0;\n}\n",
    );
    let out = dir.path().join("out");
    let (code, json, _) = run_json(&p, &out, &["--solver-timeout", "50"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["complete"], false, "{json}");
    let reasons = json["incomplete_reasons"].to_string();
    assert!(
        reasons.contains("per-query timeout of 50 ms (--solver-timeout)"),
        "{json}"
    );
    replay_all(&p, &out);
}
