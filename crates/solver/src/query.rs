//! KLEE's query optimisations over any [`Solver`] backend.

use crate::{SatResult, Solver};
use braid_term::{Model, SymId, TermId, TermStore, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How many recent models the counterexample cache tries before the backend.
const RECENT_MODELS: usize = 16;
/// Queries the cache holds at most; past it, it starts over (a long run's
/// cache would otherwise grow with every query).
const CACHE_ENTRIES: usize = 1 << 18;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverStats {
    /// Feasibility questions asked by the engine.
    pub queries: u64,
    /// Questions that reached the backend.
    pub solver_calls: u64,
    /// Answered by the exact query cache.
    pub cache_hits: u64,
    /// Answered by a known model (the state's own or a recent one).
    pub cex_hits: u64,
    /// Backend answers that were neither sat nor unsat.
    pub unknowns: u64,
    pub solver_time: Duration,
}

pub struct QuerySolver {
    backend: Box<dyn Solver>,
    /// Sorted constraint sets and their answer (`None`: unsat).
    cache: FxHashMap<Box<[TermId]>, Option<Model>>,
    recent: VecDeque<Model>,
    pub stats: SolverStats,
    /// Send only the constraints that share symbols with the query.
    pub independence: bool,
    /// Use the query and counterexample caches.
    pub caching: bool,
}

impl QuerySolver {
    pub fn new(backend: Box<dyn Solver>) -> QuerySolver {
        QuerySolver {
            backend,
            cache: FxHashMap::default(),
            recent: VecDeque::new(),
            stats: SolverStats::default(),
            independence: true,
            caching: true,
        }
    }

    /// No backend check runs past `deadline`.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.backend.set_deadline(deadline);
    }

    /// Each backend check gives up after `ms` milliseconds.
    pub fn set_timeout(&mut self, ms: Option<u32>) {
        self.backend.set_timeout(ms);
    }

    /// No backend check outlives the run's budget.
    pub fn set_budget(&mut self, budget: &braid_budget::Budget) {
        self.backend.set_budget(budget);
    }

    /// Whether `pc ∧ query` is satisfiable, where `pc` is known satisfiable
    /// and `hint` (if any) is a model of it. A `Sat` model covers the symbols
    /// of the constraints that were sent; since those share no symbol with the
    /// rest of `pc`, the hint overridden by it is a model of `pc ∧ query`.
    pub fn check(&mut self, store: &TermStore, pc: &[TermId], query: TermId, hint: Option<&Model>) -> SatResult {
        self.stats.queries += 1;
        match store.as_const(query) {
            Some(Value::Bool(false)) => return SatResult::Unsat,
            Some(Value::Bool(true)) => return SatResult::Sat(hint.cloned().unwrap_or_default()),
            _ => {}
        }
        if let Some(h) = hint {
            if self.caching && store.eval(query, h) == Ok(Value::Bool(true)) {
                self.stats.cex_hits += 1;
                return SatResult::Sat(h.clone());
            }
        }
        let mut set = if self.independence {
            independent_slice(store, pc, query)
        } else {
            pc.to_vec()
        };
        set.push(query);
        set.sort_unstable();
        set.dedup();
        self.solve_set(store, set)
    }

    /// A model of all of `pc`: each independent group of constraints is
    /// solved on its own (and cached), and the models are merged.
    pub fn model(&mut self, store: &TermStore, pc: &[TermId]) -> SatResult {
        self.stats.queries += 1;
        let mut merged = Model::default();
        for mut group in independent_groups(store, pc) {
            group.sort_unstable();
            group.dedup();
            match self.solve_set(store, group) {
                SatResult::Sat(m) => merged.extend(m),
                other => return other,
            }
        }
        SatResult::Sat(merged)
    }

    fn remember(&mut self, set: Vec<TermId>, answer: Option<Model>) {
        if self.cache.len() >= CACHE_ENTRIES {
            self.cache.clear();
        }
        self.cache.insert(set.into_boxed_slice(), answer);
    }

    fn solve_set(&mut self, store: &TermStore, set: Vec<TermId>) -> SatResult {
        if self.caching {
            if let Some(answer) = self.cache.get(set.as_slice()) {
                self.stats.cache_hits += 1;
                return answer.clone().map_or(SatResult::Unsat, SatResult::Sat);
            }
            // A reused model is cut down to the set's symbols: its values for
            // other symbols belong to other paths and would override the
            // caller's model where it must not change.
            let reuse = self
                .recent
                .iter()
                .find(|m| store.satisfies(&set, m))
                .map(|m| project(store, &set, m));
            if let Some(m) = reuse {
                self.stats.cex_hits += 1;
                self.remember(set, Some(m.clone()));
                return SatResult::Sat(m);
            }
        }
        self.stats.solver_calls += 1;
        let start = Instant::now();
        let mut answer = self.backend.check(store, &set);
        self.stats.solver_time += start.elapsed();
        // A model is checked before it is trusted: a backend interrupted at
        // the wrong moment (or wrong) must not make a test that does not
        // replay.
        if let SatResult::Sat(m) = &answer {
            // (A constraint that does not evaluate, e.g. a division by zero
            // on a path it does not constrain, is not held against it.)
            let mut memo = braid_term::EvalMemo::default();
            if set
                .iter()
                .any(|c| store.eval_with(*c, m, &mut memo) == Ok(Value::Bool(false)))
            {
                answer = SatResult::Unknown("the solver's model does not satisfy the query".into());
            }
        }
        match &answer {
            SatResult::Sat(m) if self.caching => {
                self.remember(set, Some(m.clone()));
                if self.recent.len() == RECENT_MODELS {
                    self.recent.pop_back();
                }
                self.recent.push_front(m.clone());
            }
            SatResult::Unsat if self.caching => {
                self.remember(set, None);
            }
            SatResult::Unknown(_) => self.stats.unknowns += 1,
            _ => {}
        }
        answer
    }
}

/// `model` restricted to the symbols `constraints` mention, with the default
/// value made explicit for those it leaves out (evaluation used it, and the
/// caller's model may hold another value there).
fn project(store: &TermStore, constraints: &[TermId], model: &Model) -> Model {
    constraints
        .iter()
        .flat_map(|c| store.symbols(*c).iter())
        .map(|s| {
            (
                *s,
                model
                    .get(s)
                    .copied()
                    .unwrap_or_else(|| Value::default_of(store.symbol(*s).sort)),
            )
        })
        .collect()
}

/// The constraints of `pc` transitively sharing a symbol with `query`.
fn independent_slice(store: &TermStore, pc: &[TermId], query: TermId) -> Vec<TermId> {
    let mut syms: FxHashSet<SymId> = store.symbols(query).iter().copied().collect();
    let mut chosen = vec![false; pc.len()];
    loop {
        let mut changed = false;
        for (i, &c) in pc.iter().enumerate() {
            if !chosen[i] && store.symbols(c).iter().any(|s| syms.contains(s)) {
                chosen[i] = true;
                syms.extend(store.symbols(c).iter().copied());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    pc.iter().zip(chosen).filter(|(_, k)| *k).map(|(c, _)| *c).collect()
}

/// `pc` split into groups that share no symbol across groups.
fn independent_groups(store: &TermStore, pc: &[TermId]) -> Vec<Vec<TermId>> {
    let mut groups: Vec<(FxHashSet<SymId>, Vec<TermId>)> = Vec::new();
    for &c in pc {
        let syms: FxHashSet<SymId> = store.symbols(c).iter().copied().collect();
        let (touching, mut rest): (Vec<_>, Vec<_>) = groups.into_iter().partition(|(s, _)| !s.is_disjoint(&syms));
        let mut merged = (syms, vec![c]);
        for (s, cs) in touching {
            merged.0.extend(s);
            merged.1.extend(cs);
        }
        rest.push(merged);
        groups = rest;
    }
    groups.into_iter().map(|(_, cs)| cs).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Z3Solver;
    use braid_term::{Op, Sort};

    fn gt(s: &mut TermStore, name: &str, k: i128) -> TermId {
        let x = s.symbol_term(name, Sort::Int);
        let c = s.constant(Value::Int(k));
        s.app(Op::Gt, &[x, c]).unwrap()
    }

    #[test]
    fn independence_sends_only_related_constraints_and_caches() {
        let mut s = TermStore::new();
        let a = gt(&mut s, "a", 0);
        let b = gt(&mut s, "b", 5);
        let a2 = gt(&mut s, "a", 3);
        assert_eq!(independent_slice(&s, &[a, b], a2), vec![a]);
        assert_eq!(independent_groups(&s, &[a, b, a2]).len(), 2);

        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        assert!(q.check(&s, &[a, b], a2, None).is_sat());
        assert_eq!(q.stats.solver_calls, 1);
        assert!(q.check(&s, &[a, b], a2, None).is_sat());
        assert_eq!(q.stats.cache_hits, 1);
        let not_a = s.not(a);
        assert_eq!(q.check(&s, &[a, b], not_a, None), SatResult::Unsat);
    }

    #[test]
    fn reused_models_cover_only_the_query_symbols() {
        let mut s = TermStore::new();
        let (a, b) = (s.symbol_term("a", Sort::Int), s.symbol_term("b", Sort::Int));
        let a_gt_b = s.app(Op::Gt, &[a, b]).unwrap();
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        let SatResult::Sat(_) = q.model(&s, &[a_gt_b]) else {
            panic!("satisfiable")
        };
        // Answered from the recent model of {a > b}: only `a` may be in it.
        let a2 = gt(&mut s, "a", -5);
        let SatResult::Sat(m) = q.check(&s, &[], a2, None) else {
            panic!("satisfiable")
        };
        assert_eq!(q.stats.cex_hits, 1);
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn models_satisfy_the_whole_path_condition() {
        let mut s = TermStore::new();
        let pc = [gt(&mut s, "a", 10), gt(&mut s, "b", -4), gt(&mut s, "a", 20)];
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        let SatResult::Sat(m) = q.model(&s, &pc) else {
            panic!("satisfiable")
        };
        for c in pc {
            assert_eq!(s.eval(c, &m), Ok(Value::Bool(true)));
        }
    }

    #[test]
    fn bitvector_and_float_reasoning_agree_with_eval() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let k = s.constant(Value::bv(8, 3));
        let d = s.app(Op::Div, &[x, k]).unwrap();
        let m1 = s.constant(Value::bv(8, 0xff)); // -1
        let c1 = s.app(Op::Eq, &[d, m1]).unwrap();
        let f = s.symbol_term("f", Sort::F64);
        let half = s.constant(Value::f64(0.5));
        let sum = s.app(Op::Add, &[f, half]).unwrap();
        let three = s.constant(Value::f64(3.0));
        let c2 = s.app(Op::Eq, &[sum, three]).unwrap();
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        let SatResult::Sat(m) = q.model(&s, &[c1, c2]) else {
            panic!("satisfiable")
        };
        assert_eq!(s.eval(c1, &m), Ok(Value::Bool(true)));
        assert_eq!(s.eval(c2, &m), Ok(Value::Bool(true)));
    }
}
