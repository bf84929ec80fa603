//! One MultiSE-like guard workload (pc guards conjoined with branch atoms,
//! merged by disjunction, negated) run on braid-guard and on oxidd.
use braid_guard::{Guard, Guards};
use braid_term::{Op, Sort, TermStore, Value};
use oxidd::bdd::BDDFunction;
use oxidd::{BooleanFunction, Manager, ManagerRef};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

#[derive(Clone, Copy)]
enum Step { Atom(usize), And(usize, usize), Or(usize, usize), Not(usize) }

/// Pool index of atom `v` (atoms are added first).
fn atoms_at(v: usize) -> usize { v }

fn workload(vars: usize, ops: usize, seed: u64) -> Vec<Step> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pool = vars;
    let mut steps: Vec<Step> = (0..vars).map(Step::Atom).collect();
    for i in 0..ops {
        let k = rng.gen_range(0..10);
        // Recent guards are used most, as pc entries are.
        let pick = |rng: &mut SmallRng, pool: usize| pool - 1 - rng.gen_range(0..pool.min(64));
        let s = match k {
            0 => Step::Not(atoms_at(rng.gen_range(0..vars))),
            // A pc guard conjoined with a branch atom (or its negation).
            1..=5 => Step::And(pick(&mut rng, pool), atoms_at(rng.gen_range(0..vars.min(i / 50 + 1)))),
            6..=8 => Step::Or(pick(&mut rng, pool), pick(&mut rng, pool)),
            _ => Step::Not(pick(&mut rng, pool)),
        };
        steps.push(s);
        pool += 1;
    }
    steps
}

fn run_braid(steps: &[Step], vars: usize) -> (f64, Vec<Guard>) {
    let mut store = TermStore::new();
    let zero = store.constant(Value::Int(0));
    let preds: Vec<_> = (0..vars).map(|i| { let x = store.symbol_term(&format!("x{i}"), Sort::Int); store.app(Op::Gt, &[x, zero]).unwrap() }).collect();
    let mut g = Guards::new();
    let start = Instant::now();
    let mut pool = Vec::with_capacity(steps.len());
    for s in steps {
        let r = match *s {
            Step::Atom(v) => g.atom(&mut store, preds[v]),
            Step::And(a, b) => g.and(pool[a], pool[b]),
            Step::Or(a, b) => g.or(pool[a], pool[b]),
            Step::Not(a) => g.not(pool[a]),
        };
        pool.push(r);
    }
    (start.elapsed().as_secs_f64() * 1000.0, pool)
}

fn run_oxidd(steps: &[Step], vars: usize) -> (f64, Vec<bool>) {
    let mref = oxidd::bdd::new_manager(1 << 24, 1 << 22, 1);
    let vs: Vec<BDDFunction> = mref.with_manager_exclusive(|m| {
        m.add_vars(vars as u32);
        (0..vars).map(|i| BDDFunction::var(m, i as u32).unwrap()).collect()
    });
    let start = Instant::now();
    let mut pool: Vec<BDDFunction> = Vec::with_capacity(steps.len());
    for s in steps {
        let r = match *s {
            Step::Atom(v) => vs[v].clone(),
            Step::And(a, b) => pool[a].and(&pool[b]).unwrap(),
            Step::Or(a, b) => pool[a].or(&pool[b]).unwrap(),
            Step::Not(a) => pool[a].not().unwrap(),
        };
        pool.push(r);
    }
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let falses = pool.iter().map(|f| !f.satisfiable()).collect();
    (ms, falses)
}

fn main() {
    for (vars, ops) in [(8, 200_000), (12, 200_000), (16, 200_000), (20, 100_000)] {
        let steps = workload(vars, ops, 7);
        let (tb, gb) = run_braid(&steps, vars);
        let (to, fo) = run_oxidd(&steps, vars);
        let agree = gb.iter().zip(&fo).all(|(g, f)| g.is_false() == *f);
        println!("vars {vars:4} ops {ops}: braid-guard {tb:8.1} ms   oxidd {to:8.1} ms   (false guards agree: {agree})");
    }
}
