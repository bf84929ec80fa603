//! Replay in wasmi: the recorded inputs drive the harness imports, and the
//! ending is read off the independent runtime.

use braid_ir::BugKind;
use braid_term::Value;
use braid_wasm::wasmi_replay::{run, Ending};

/// How a run with no WASI settings ends.
fn ending(bytes: &[u8], export: &str, inputs: &[(String, braid_term::Value)]) -> Result<Ending, String> {
    run(bytes, Some(export), inputs, &Default::default(), Default::default()).map(|r| r.ending)
}

fn example(name: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/c/").to_string() + name).expect("example")
}

fn input(name: &str, width: u8, bits: u64) -> (String, Value) {
    (name.to_string(), Value::bv(width, bits))
}

#[test]
fn inputs_feed_the_harness_and_traps_are_read_off_wasmi() {
    let svcomp = example("svcomp.wasm");
    let reach = [
        input("__VERIFIER_nondet_int", 32, 671),
        input("__VERIFIER_nondet_uchar", 8, 90),
    ];
    assert_eq!(ending(&svcomp, "main", &reach), Ok(Ending::Bug(BugKind::ReachError)));
    let miss = [
        input("__VERIFIER_nondet_int", 32, 670),
        input("__VERIFIER_nondet_uchar", 8, 90),
    ];
    assert_eq!(
        ending(&svcomp, "main", &miss),
        Ok(Ending::Returned(Some(Value::bv(32, 0))))
    );
    // x = 0 leaves the path: the harness's assume fails.
    let outside = [input("__VERIFIER_nondet_int", 32, 0)];
    assert_eq!(ending(&svcomp, "main", &outside), Ok(Ending::AssumeViolated));

    let div = example("div.wasm");
    let zero = [
        input("__VERIFIER_nondet_int", 32, 6),
        input("__VERIFIER_nondet_int#1", 32, 6),
    ];
    assert_eq!(ending(&div, "main", &zero), Ok(Ending::Bug(BugKind::DivisionByZero)));

    let overflow = example("overflow.wasm");
    let min = [
        input("__VERIFIER_nondet_int", 32, 0x8000_0000),
        input("__VERIFIER_nondet_int#1", 32, u32::MAX as u64),
    ];
    assert_eq!(
        ending(&overflow, "main", &min),
        Ok(Ending::Bug(BugKind::IntegerOverflow))
    );

    let params = example("params.wasm");
    let args = [input("arg0", 32, 500), input("arg1", 32, 7)];
    assert_eq!(
        ending(&params, "classify", &args),
        Ok(Ending::Returned(Some(Value::bv(32, 2))))
    );
}

#[test]
fn harness_names_with_other_signatures_do_not_break_replay() {
    // `assume` without a parameter and `memset` without a result: replay
    // reads missing arguments as 0 and ends (here: the assume fails).
    let text = "(module (import \"symbolic\" \"assume\" (func $a)) (import \"env\" \"memset\" (func $m (param i32)))\n\
                (memory (export \"memory\") 1) (func (export \"main\") (call $m (i32.const 0)) (call $a)))";
    let bytes = braid_wasm::from_text(text).expect("valid text");
    assert_eq!(ending(&bytes, "main", &[]), Ok(Ending::AssumeViolated));
}

#[test]
fn a_buffer_whose_first_byte_the_test_leaves_out_keeps_its_name() {
    // A merged run's test may leave out `s` (any value does) and give `s#1`:
    // the bytes are still read under the name the harness passes.
    let text = "(module (import \"env\" \"klee_make_symbolic\" (func $s (param i32 i32 i32)))\n\
                (memory (export \"memory\") 1) (data (i32.const 16) \"s\\00\")\n\
                (func (export \"main\") (result i32)\n\
                  (call $s (i32.const 100) (i32.const 2) (i32.const 16))\n\
                  (i32.add (i32.load8_u (i32.const 100)) (i32.load8_u (i32.const 101)))))";
    let bytes = braid_wasm::from_text(text).expect("valid text");
    assert_eq!(
        ending(&bytes, "main", &[input("s#1", 8, 7)]),
        Ok(Ending::Returned(Some(Value::bv(32, 7))))
    );
    // Inputs under the call's own name (a name that was not a literal).
    assert_eq!(
        ending(&bytes, "main", &[input("klee_make_symbolic#1", 8, 9)]),
        Ok(Ending::Returned(Some(Value::bv(32, 9))))
    );
}

#[test]
fn memory_grows_in_wasmi_only_as_far_as_braid_lets_it() {
    // braid's memory holds braid_wasm::MAX_PAGES pages: a malloc past them
    // fails in braid, and must in the replay too.
    let text = "(module (memory (export \"memory\") 1)\n\
                (func (export \"main\") (param i32) (result i32) (memory.grow (local.get 0))))";
    let bytes = braid_wasm::from_text(text).expect("valid text");
    let grow = |pages: u64| ending(&bytes, "main", &[input("arg0", 32, pages)]);
    assert_eq!(grow(10), Ok(Ending::Returned(Some(Value::bv(32, 1)))));
    assert_eq!(
        grow(braid_wasm::MAX_PAGES),
        Ok(Ending::Returned(Some(Value::bv(32, u32::MAX as u64))))
    );
}

#[test]
fn runs_of_one_prepared_module_start_from_its_initial_memory() {
    // The module's memory is one buffer kept from run to run: what a run
    // writes, and the pages it grows, must not reach the next one.
    let text = "(module (memory (export \"memory\") 1) (data (i32.const 100) \"\\05\")\n\
                (func (export \"main\") (result i32) (local $old i32)\n\
                  (local.set $old (i32.load8_u (i32.const 100)))\n\
                  (i32.store8 (i32.const 100) (i32.const 99))\n\
                  (drop (memory.grow (i32.const 1)))\n\
                  (local.set $old (i32.add (local.get $old) (i32.load8_u (i32.const 65536))))\n\
                  (i32.store8 (i32.const 65536) (i32.const 50))\n\
                  (i32.add (local.get $old) (memory.size))))";
    let bytes = braid_wasm::from_text(text).expect("valid text");
    let prepared = braid_wasm::wasmi_replay::Prepared::new(&bytes, Default::default()).expect("prepared");
    for _ in 0..3 {
        let run = prepared.run(Some("main"), &[], &Default::default()).expect("runs");
        // 5 from the data, 0 from the fresh page, 2 pages.
        assert_eq!(run.ending, Ending::Returned(Some(Value::bv(32, 7))));
    }
}
