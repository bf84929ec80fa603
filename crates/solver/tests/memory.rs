//! A question whose Z3 memory reaches what the run's memory limit leaves is
//! cut short with that reason, and the solver goes on answering: the cut
//! must not leave Z3 half-built (Z3's global allocation cap, thrown inside
//! a push of the kept solver, left it to crash in a later push).
//! One test in its own process: the limit is set just above this process's
//! resident memory.

use braid_budget::{Budget, Limits};
use braid_solver::{SatResult, Solver, Z3Solver};
use braid_term::{Op, Sort, TermStore, Value};
use std::time::Duration;

#[test]
fn a_question_past_the_memory_left_is_cut_and_the_solver_goes_on() {
    let mut store = TermStore::new();
    let x = store.symbol_term("x", Sort::Bv(64));
    let y = store.symbol_term("y", Sort::Bv(64));
    let one = store.constant(Value::bv(64, 1));
    let product = store.app(Op::Mul, &[x, y]).unwrap();
    // Factoring a 64-bit semiprime (4093082899 · 2971215073): Z3 works on
    // it for seconds, and its memory grows while it does.
    let target = store.constant(Value::bv(64, 4093082899u64 * 2971215073));
    let wide = store.constant(Value::bv(64, 1 << 32));
    let factors = [
        store.app(Op::Eq, &[product, target]).unwrap(),
        store.app(Op::UGt, &[x, one]).unwrap(),
        store.app(Op::UGt, &[y, one]).unwrap(),
        store.app(Op::ULt, &[x, wide]).unwrap(),
        store.app(Op::ULt, &[y, wide]).unwrap(),
    ];
    let mut solver = Z3Solver::new(Some(20_000));
    // Warm Z3 up, so that the resident memory read below includes it.
    let small = store.app(Op::Eq, &[x, one]).unwrap();
    assert!(solver.check(&store, &[small]).is_sat());

    // A limit with the resident memory just over 80 % of it: the run goes
    // on (it stops at 90 %), and Z3 may grow by nothing (it stops a further
    // tenth short). 200 MB held make the 10 % between them 25 MB, more
    // than Z3 allocates between two looks of its watchdog.
    let ballast = std::hint::black_box(vec![1u8; 200 << 20]);
    let (rss, _) = braid_budget::memory_use().expect("resident memory (Linux)");
    let limit_mb = ((rss >> 20) as f64 / 0.81).ceil() as u64;
    let budget = Budget::start(Limits {
        time: None,
        memory_mb: Some(limit_mb),
    });
    while budget.rss() == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    solver.set_budget(&budget);
    let answer = solver.check(&store, &factors);
    assert!(!budget.stopped(), "the run itself stopped: {:?}", budget.reason());
    match answer {
        SatResult::Unknown(why) => assert!(why.contains("memory"), "unknown, but not for memory: {why}"),
        other => panic!("answered within no memory: {other:?}"),
    }

    drop(ballast);
    // The same solver under a budget without a memory limit.
    solver.set_budget(&Budget::start(Limits::default()));
    let two = store.constant(Value::bv(64, 2));
    let six = store.constant(Value::bv(64, 6));
    let easy = [
        store.app(Op::Eq, &[product, six]).unwrap(),
        store.app(Op::Eq, &[x, two]).unwrap(),
    ];
    match solver.check(&store, &easy) {
        SatResult::Sat(model) => assert_eq!(model.len(), 2),
        other => panic!("the solver did not go on: {other:?}"),
    }
}
