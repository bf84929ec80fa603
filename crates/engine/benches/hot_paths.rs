//! Micro-benchmarks of the hot paths under the engines: the guarded update
//! `⊎_φ` of value summaries, BDD `and`/`or`/`not` on guards, hash-consing of
//! terms, and a lookup in the solver layer's query cache.
//!
//! `cargo bench -p braid-engine --bench hot_paths`

use braid_engine::multise::{guarded_update, ValueSummary};
use braid_guard::{Guard, Guards};
use braid_solver::{QuerySolver, SatResult, Z3Solver};
use braid_term::{Op, Sort, TermId, TermStore, Value};
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};

/// `n` symbolic 32-bit inputs and the atoms `x_i > i` over them.
fn atoms(store: &mut TermStore, guards: &mut Guards, n: usize) -> (Vec<TermId>, Vec<Guard>) {
    let mut xs = Vec::new();
    let mut gs = Vec::new();
    for i in 0..n {
        let x = store.symbol_term(&format!("x{i}"), Sort::Bv(32));
        let c = store.constant(Value::bv(32, i as u64));
        let p = store.app(Op::Gt, &[x, c]).expect("a well-sorted predicate");
        xs.push(x);
        gs.push(guards.atom(store, p));
    }
    (xs, gs)
}

/// Two guards the size branch conditions of a loop reach: `⋁ (a_i ∧ a_{i+1})`
/// over the even and the odd atoms.
fn operands(guards: &mut Guards, atoms: &[Guard]) -> (Guard, Guard) {
    let mut build = |start: usize| {
        let mut g = Guard::FALSE;
        for w in atoms[start..].windows(2).step_by(2) {
            let both = guards.and(w[0], w[1]);
            g = guards.or(g, both);
        }
        g
    };
    (build(0), build(1))
}

fn bdd(c: &mut Criterion) {
    let setup = || {
        let mut store = TermStore::new();
        let mut guards = Guards::new();
        let (_, gs) = atoms(&mut store, &mut guards, 24);
        let (a, b) = operands(&mut guards, &gs);
        (guards, a, b)
    };
    // Fresh managers each time, so the operation caches start cold.
    c.bench_function("bdd and (24 atoms, cold cache)", |bench| {
        bench.iter_batched(setup, |(mut g, a, b)| black_box(g.and(a, b)), BatchSize::SmallInput)
    });
    c.bench_function("bdd or (24 atoms, cold cache)", |bench| {
        bench.iter_batched(setup, |(mut g, a, b)| black_box(g.or(a, b)), BatchSize::SmallInput)
    });
    c.bench_function("bdd not (24 atoms, cold cache)", |bench| {
        bench.iter_batched(setup, |(mut g, a, _)| black_box(g.not(a)), BatchSize::SmallInput)
    });
    let (mut g, a, b) = setup();
    c.bench_function("bdd and (cached)", |bench| bench.iter(|| black_box(g.and(a, b))));
}

fn update(c: &mut Criterion) {
    let mut store = TermStore::new();
    let mut guards = Guards::new();
    let (xs, gs) = atoms(&mut store, &mut guards, 8);
    // A summary of four values under disjoint guards (a cell after two
    // branches), updated under a third branch with a new value.
    let mut old = ValueSummary::default();
    for (k, &x) in xs.iter().take(4).enumerate() {
        let g0 = if k & 1 == 0 { guards.not(gs[0]) } else { gs[0] };
        let g1 = if k & 2 == 0 { guards.not(gs[1]) } else { gs[1] };
        let g = guards.and(g0, g1);
        old.push(&mut guards, g, x, true);
    }
    let new = ValueSummary::single(Guard::TRUE, xs[4]);
    let phi = guards.and(gs[2], gs[3]);
    c.bench_function("guarded update (4 entries)", |bench| {
        bench.iter(|| black_box(guarded_update(&mut guards, &old, phi, &new, true)))
    });
}

fn hash_consing(c: &mut Criterion) {
    let mut store = TermStore::new();
    let x = store.symbol_term("x", Sort::Bv(32));
    let one = store.constant(Value::bv(32, 1));
    store.app(Op::Add, &[x, one]).expect("well sorted");
    c.bench_function("term hash-consing (existing term)", |bench| {
        bench.iter(|| black_box(store.app(Op::Add, &[x, one])))
    });
    let mut k = 0u64;
    c.bench_function("term hash-consing (new term)", |bench| {
        bench.iter(|| {
            k += 1;
            let c = store.constant(Value::bv(32, k));
            black_box(store.app(Op::Mul, &[x, c]))
        })
    });
}

fn solver_cache(c: &mut Criterion) {
    let mut store = TermStore::new();
    let mut guards = Guards::new();
    let (xs, _) = atoms(&mut store, &mut guards, 6);
    // A path condition over dependent inputs and a query, answered once by
    // Z3; every later check of the same query is a cache lookup.
    let mut pc = Vec::new();
    for w in xs.windows(2) {
        pc.push(store.app(Op::Lt, &[w[0], w[1]]).expect("well sorted"));
    }
    let ten = store.constant(Value::bv(32, 10));
    let query = store.app(Op::Gt, &[xs[5], ten]).expect("well sorted");
    let mut solver = QuerySolver::new(Box::new(Z3Solver::new(None)));
    assert!(matches!(solver.check(&store, &pc, query, None), SatResult::Sat(_)));
    c.bench_function("solver cache lookup (6 constraints)", |bench| {
        bench.iter(|| black_box(solver.check(&store, &pc, query, None)))
    });
    assert_eq!(
        solver.stats.solver_calls, 1,
        "every repeated check was answered by the cache"
    );
}

criterion_group!(benches, bdd, update, hash_consing, solver_cache);
criterion_main!(benches);
