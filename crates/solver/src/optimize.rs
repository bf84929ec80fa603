//! MuSE's partial solutions from optimisation (seed 002, §3.4): a query is
//! turned into a distance that is zero exactly where every constraint holds
//! (XSat's: for a comparison of floats the number of representable values
//! between its sides, of integers their difference; conjunctions add,
//! disjunctions take the least), and minimised by local search with
//! restarts from the caller's input (basin hopping). Each local minimum it
//! gets stuck in satisfies part of the query: a partial solution. A point of
//! distance zero is a solution.
//!
//! Moves change one variable at a time: by a power of two (in units in the
//! last place, for floats), to the value the other side of a violated
//! comparison has, or to a random value after a restart. The random source
//! is a fixed-seed xorshift, so runs repeat.

use braid_term::{EvalMemo, Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashSet;

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Optimized {
    pub solution: Option<Model>,
    /// Local minima, distinct, in the order found.
    pub partials: Vec<Model>,
    pub evaluations: usize,
}

/// Limits of one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub evaluations: usize,
    /// Moves without improvement before the point counts as a local minimum.
    pub patience: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            evaluations: 3_000,
            patience: 60,
        }
    }
}

/// A float's bits on a line where neighbours differ by one unit in the
/// last place (negative values mirrored below zero).
fn ordered(v: Value) -> Option<i128> {
    match v {
        Value::F64(b) if b >> 63 == 1 => Some(-((b & !(1 << 63)) as i128)),
        Value::F64(b) => Some(b as i128),
        Value::F32(b) if b >> 31 == 1 => Some(-((b & !(1 << 31)) as i128)),
        Value::F32(b) => Some(b as i128),
        Value::Int(n) => Some(n),
        Value::Bv { .. } => None,
        _ => None,
    }
}

fn from_ordered(sort: Sort, o: i128) -> Value {
    match sort {
        Sort::F64 => {
            let o = o.clamp(-(i64::MAX as i128), i64::MAX as i128);
            Value::F64(if o < 0 { (-o) as u64 | 1 << 63 } else { o as u64 })
        }
        Sort::F32 => {
            let o = o.clamp(-(i32::MAX as i128), i32::MAX as i128);
            Value::F32(if o < 0 { (-o) as u32 | 1 << 31 } else { o as u32 })
        }
        Sort::Bv(w) => Value::bv(w, o as u64),
        _ => Value::Int(o),
    }
}

fn is_nan(v: Value) -> bool {
    match v {
        Value::F64(b) => f64::from_bits(b).is_nan(),
        Value::F32(b) => f32::from_bits(b).is_nan(),
        _ => false,
    }
}

/// The number a comparison's side stands for: bit-vectors signed or
/// unsigned as the comparison reads them.
fn number(v: Value, unsigned: bool) -> Option<f64> {
    match v {
        Value::Bv { bits, .. } if unsigned => Some(bits as f64),
        Value::Bv { width, bits } => Some(Value::bv_signed(width, bits) as f64),
        Value::Int(n) => Some(n as f64),
        Value::F64(b) => Some(f64::from_bits(b)),
        Value::F32(b) => Some(f32::from_bits(b) as f64),
        _ => None,
    }
}

struct Search<'s> {
    store: &'s TermStore,
    constraints: &'s [TermId],
    seed: u64,
}

/// The distance of what cannot be measured (NaN, a value of no number).
const FAR: f64 = 1e300;

impl Search<'_> {
    fn next(&mut self) -> u64 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed
    }

    fn eval(&self, t: TermId, model: &Model, memo: &mut EvalMemo) -> Option<Value> {
        self.store.eval_with(t, model, memo).ok()
    }

    /// How far `model` is from making `t` (or, `positive` false, its
    /// negation) true; 0 exactly when it does.
    fn distance(&self, t: TermId, positive: bool, model: &Model, memo: &mut EvalMemo, depth: u32) -> f64 {
        let holds = |me: &Self, memo: &mut EvalMemo| me.eval(t, model, memo) == Some(Value::Bool(positive));
        let Node::App(op, args) = self.store.node(t) else {
            return if holds(self, memo) { 0.0 } else { 1.0 };
        };
        if depth > 32 {
            return if holds(self, memo) { 0.0 } else { 1.0 };
        }
        let (op, args) = (*op, args.clone());
        let bool_args = args.iter().all(|a| self.store.sort(*a) == Sort::Bool);
        match (op, positive) {
            (Op::Not, _) => self.distance(args[0], !positive, model, memo, depth + 1),
            (Op::And, true) | (Op::Or, false) if bool_args => args
                .iter()
                .map(|a| self.distance(*a, positive, model, memo, depth + 1))
                .fold(0.0, |s, d| (s + d).min(FAR)),
            (Op::Or, true) | (Op::And, false) if bool_args => args
                .iter()
                .map(|a| self.distance(*a, positive, model, memo, depth + 1))
                .fold(FAR, f64::min),
            (Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::ULt | Op::ULe | Op::UGt | Op::UGe, _)
                if !bool_args =>
            {
                if holds(self, memo) {
                    return 0.0;
                }
                let (Some(a), Some(b)) = (self.eval(args[0], model, memo), self.eval(args[1], model, memo)) else {
                    return FAR;
                };
                if is_nan(a) || is_nan(b) {
                    return FAR;
                }
                let unsigned = matches!(op, Op::ULt | Op::ULe | Op::UGt | Op::UGe);
                let (Some(x), Some(y)) = (number(a, unsigned), number(b, unsigned)) else {
                    return 1.0;
                };
                // Violated: the gap to close, and a little more (a strict
                // bound, or an equality off by less than one).
                let gap = (x - y).abs();
                if gap.is_finite() {
                    (gap + 1.0).min(FAR)
                } else {
                    FAR
                }
            }
            _ => {
                if holds(self, memo) {
                    0.0
                } else {
                    1.0
                }
            }
        }
    }

    fn objective(&self, model: &Model) -> f64 {
        let mut memo = EvalMemo::default();
        self.constraints
            .iter()
            .map(|c| self.distance(*c, true, model, &mut memo, 0))
            .fold(0.0, |s, d| (s + d).min(FAR))
    }

    /// Values the sides of violated comparisons have that mention `var`'s
    /// other side: setting `var` to one often satisfies a comparison.
    fn targets(&self, model: &Model, var: TermId) -> Vec<Value> {
        let mut out = Vec::new();
        let mut memo = EvalMemo::default();
        let mut stack: Vec<TermId> = self.constraints.to_vec();
        let mut seen = FxHashSet::default();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) || out.len() >= 8 {
                continue;
            }
            if let Node::App(op, args) = self.store.node(t) {
                if op.is_comparison() && args.len() == 2 {
                    for (me, other) in [(args[0], args[1]), (args[1], args[0])] {
                        if me == var {
                            if let Some(v) = self.eval(other, model, &mut memo) {
                                if v.sort() == self.store.sort(var) {
                                    out.push(v);
                                }
                            }
                        }
                    }
                }
                if self.store.sort(t) == Sort::Bool {
                    stack.extend(args.iter().copied());
                }
            }
        }
        out
    }

    /// One move: `var` changed by a power of two, or to a target value.
    fn mutate(&mut self, model: &Model, vars: &[(SymId, TermId, Sort)]) -> Model {
        let (s, t, sort) = vars[(self.next() % vars.len() as u64) as usize];
        let cur = model.get(&s).copied().unwrap_or(Value::default_of(sort));
        let new = match self.next() % 4 {
            0 => {
                let targets = self.targets(model, t);
                if targets.is_empty() {
                    None
                } else {
                    Some(targets[(self.next() % targets.len() as u64) as usize])
                }
            }
            _ => None,
        };
        let sign = if self.next().is_multiple_of(2) { 1.0 } else { -1.0 };
        let new = new.unwrap_or_else(|| match (sort, cur) {
            // Floats: a step in value (2^-12 .. 2^20), or a few units in
            // the last place.
            (Sort::F64 | Sort::F32, _) if !self.next().is_multiple_of(4) => {
                let step = sign * 2f64.powi((self.next() % 33) as i32 - 12);
                match cur {
                    Value::F64(b) => Value::F64((f64::from_bits(b) + step).to_bits()),
                    Value::F32(b) => Value::F32((f32::from_bits(b) + step as f32).to_bits()),
                    v => v,
                }
            }
            (Sort::F64 | Sort::F32, _) => {
                let ulps = sign as i128 * (1i128 << (self.next() % 20));
                from_ordered(sort, ordered(cur).unwrap_or(0).saturating_add(ulps))
            }
            (Sort::Bv(w), Value::Bv { bits, .. }) => {
                let step = 1u64 << (self.next() % w.min(63) as u64);
                Value::bv(
                    w,
                    if sign > 0.0 {
                        bits.wrapping_add(step)
                    } else {
                        bits.wrapping_sub(step)
                    },
                )
            }
            (_, Value::Int(n)) => {
                let step = 1i128 << (self.next() % 62);
                Value::Int(n.saturating_add(sign as i128 * step))
            }
            (_, v) => v,
        });
        let mut m = model.clone();
        m.insert(s, new);
        m
    }
}

/// Minimises the distance of `constraints` from `start` (symbols it leaves
/// out take their defaults), moving the symbols the constraints mention.
pub fn minimize(store: &TermStore, constraints: &[TermId], start: &Model, limits: Limits) -> Optimized {
    let mut vars: Vec<(SymId, TermId, Sort)> = Vec::new();
    let mut seen = FxHashSet::default();
    let mut stack = constraints.to_vec();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match store.node(t) {
            Node::Sym(s) => {
                let sort = store.symbol(*s).sort;
                if matches!(sort, Sort::F32 | Sort::F64 | Sort::Int | Sort::Bv(_)) {
                    vars.push((*s, t, sort));
                }
            }
            Node::App(_, args) => stack.extend(args.iter().copied()),
            Node::Const(_) => {}
        }
    }
    vars.sort_by_key(|(s, ..)| *s);
    let mut out = Optimized::default();
    if vars.is_empty() {
        return out;
    }
    let mut search = Search {
        store,
        constraints,
        seed: 0x9E37_79B9_7F4A_7C15,
    };
    let mut cur = start.clone();
    let mut f = search.objective(&cur);
    out.evaluations = 1;
    let mut stuck = 0;
    while out.evaluations < limits.evaluations {
        if f == 0.0 {
            out.solution = Some(cur);
            return out;
        }
        let cand = search.mutate(&cur, &vars);
        let fc = search.objective(&cand);
        out.evaluations += 1;
        if fc < f {
            (cur, f, stuck) = (cand, fc, 0);
            continue;
        }
        stuck += 1;
        if stuck >= limits.patience {
            // A local minimum: a partial solution; hop away from it.
            if !out.partials.contains(&cur) {
                out.partials.push(cur.clone());
            }
            for _ in 0..3 {
                cur = search.mutate(&cur, &vars);
            }
            f = search.objective(&cur);
            out.evaluations += 1;
            stuck = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 002 §3.4: Figure 2 over floats, x + y ≥ 2 ∧ 2y − x ≥ 1 ∧
    /// 2x − y ≥ 0, found by search from (0, 0).
    #[test]
    fn figure_2_over_doubles() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::F64);
        let y = s.symbol_term("y", Sort::F64);
        let k = |s: &mut TermStore, v: f64| s.constant(Value::F64(v.to_bits()));
        let (two, one, zero) = (k(&mut s, 2.0), k(&mut s, 1.0), k(&mut s, 0.0));
        let sum = s.app(Op::Add, &[x, y]).unwrap();
        let c1 = s.app(Op::Ge, &[sum, two]).unwrap();
        let y2 = s.app(Op::Mul, &[two, y]).unwrap();
        let d = s.app(Op::Sub, &[y2, x]).unwrap();
        let c2 = s.app(Op::Ge, &[d, one]).unwrap();
        let x2 = s.app(Op::Mul, &[two, x]).unwrap();
        let e = s.app(Op::Sub, &[x2, y]).unwrap();
        let c3 = s.app(Op::Ge, &[e, zero]).unwrap();
        let r = minimize(&s, &[c1, c2, c3], &Model::default(), Limits::default());
        let sol = r.solution.expect("found");
        assert!(s.satisfies(&[c1, c2, c3], &sol));
    }

    #[test]
    fn an_equality_on_a_float_is_hit_exactly() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::F32);
        let c = s.constant(Value::F32(2.71875f32.to_bits()));
        let three = s.constant(Value::F32(3.0f32.to_bits()));
        let prod = s.app(Op::Mul, &[x, three]).unwrap();
        let eq = s.app(Op::Eq, &[x, c]).unwrap();
        let gt = s.app(Op::Gt, &[prod, c]).unwrap();
        let r = minimize(&s, &[gt, eq], &Model::default(), Limits::default());
        assert!(r.solution.is_some_and(|m| s.satisfies(&[gt, eq], &m)));
    }
}
