//! MuSE's partial solutions from optimisation (seed 002, §3.4): a query is
//! turned into a distance that is zero exactly where every constraint holds
//! (XSat's: for a comparison of floats the number of representable values
//! between its sides, of integers their difference; conjunctions add,
//! disjunctions take the least), and minimised by local search with
//! restarts (basin hopping). Each local minimum it gets stuck in satisfies
//! part of the query: a partial solution. A point of distance zero is a
//! solution.
//!
//! The local search is coordinate descent with a line search on a log
//! scale: each variable in turn moves by ±2^k units in the last place (for
//! floats; by ±2^k for integers and bit-vectors) for every k, to the value
//! the other side of a comparison has, or to another variable's value, and
//! takes the best of these; a joint move shifts every float by the same
//! amount. Steps of every size matter because a float's distances span
//! sixty orders of two: a tolerance of 1e-9 relative to values near 1e6
//! is a few thousand units in the last place, a move from 1 to 1e6 some
//! 2^60. Where no move improves, the point is a local minimum; the search
//! hops from it by a random large step. The random source is a fixed-seed
//! xorshift, so runs repeat.

use braid_term::{EvalMemo, Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashSet;

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Optimized {
    pub solution: Option<Model>,
    /// The points the descent passed through and the local minima, in the
    /// order found (a local minimum is the last point of its descent).
    pub partials: Vec<Model>,
    pub evaluations: usize,
}

/// Limits of one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub evaluations: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { evaluations: 3_000 }
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
        _ => None,
    }
}

fn from_ordered(sort: Sort, o: i128) -> Value {
    match sort {
        Sort::F32 => {
            let o = o.clamp(-(i32::MAX as i128), i32::MAX as i128);
            Value::F32(if o < 0 { (-o) as u32 | 1 << 31 } else { o as u32 })
        }
        _ => {
            let o = o.clamp(-(i64::MAX as i128), i64::MAX as i128);
            Value::F64(if o < 0 { (-o) as u64 | 1 << 63 } else { o as u64 })
        }
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

/// How far apart two sides of a violated comparison are: units in the last
/// place between floats, the difference of numbers otherwise.
fn gap(a: Value, b: Value, unsigned: bool) -> f64 {
    if let (Some(x), Some(y)) = (ordered(a), ordered(b)) {
        return (x - y).unsigned_abs() as f64;
    }
    match (number(a, unsigned), number(b, unsigned)) {
        (Some(x), Some(y)) => (x - y).abs(),
        _ => 0.0,
    }
}

/// A variable the search moves.
#[derive(Clone, Copy)]
struct Var {
    sym: SymId,
    term: TermId,
    sort: Sort,
}

impl Var {
    /// How many step sizes (powers of two) its line search tries.
    fn scales(self) -> u32 {
        match self.sort {
            Sort::F64 => 63,
            Sort::F32 => 31,
            Sort::Bv(w) => u32::from(w).min(64),
            _ => 62,
        }
    }

    /// `v` as a value of this float variable's sort; `None` for other sorts.
    fn float(self, v: f64) -> Option<Value> {
        match self.sort {
            Sort::F64 => Some(Value::F64(v.to_bits())),
            Sort::F32 => Some(Value::F32((v as f32).to_bits())),
            _ => None,
        }
    }

    /// `cur` moved up or down by 2^k (units in the last place for floats).
    fn step(self, cur: Value, up: bool, k: u32) -> Value {
        let sign = if up { 1 } else { -1 };
        match (self.sort, cur) {
            (Sort::F64 | Sort::F32, v) => {
                from_ordered(self.sort, ordered(v).unwrap_or(0).saturating_add(sign * (1i128 << k)))
            }
            (Sort::Bv(w), Value::Bv { bits, .. }) => {
                let d = 1u64.wrapping_shl(k);
                Value::bv(w, if up { bits.wrapping_add(d) } else { bits.wrapping_sub(d) })
            }
            (_, Value::Int(n)) => Value::Int(n.saturating_add(sign * (1i128 << k))),
            (_, v) => v,
        }
    }
}

struct Search<'s> {
    store: &'s TermStore,
    constraints: &'s [TermId],
    vars: Vec<Var>,
    seed: u64,
    evaluations: usize,
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
            (op, _) if op.is_comparison() && !bool_args => {
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
                // Violated: the gap to close, and a little more (a strict
                // bound, or an equality off by less than one).
                let d = gap(a, b, unsigned) + 1.0;
                if d.is_finite() {
                    d.min(FAR)
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

    fn objective(&mut self, model: &Model) -> f64 {
        self.evaluations += 1;
        let mut memo = EvalMemo::default();
        self.constraints
            .iter()
            .map(|c| self.distance(*c, true, model, &mut memo, 0))
            .fold(0.0, |s, d| (s + d).min(FAR))
    }

    fn value(model: &Model, v: Var) -> Value {
        model.get(&v.sym).copied().unwrap_or(Value::default_of(v.sort))
    }

    /// Values the sides of comparisons have whose other side is `var`:
    /// setting `var` to one often satisfies a comparison.
    fn targets(&self, model: &Model, var: Var) -> Vec<Value> {
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
                        if me == var.term {
                            if let Some(v) = self.eval(other, model, &mut memo) {
                                if v.sort() == var.sort {
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

    /// The points one move of `var` away from `cur`.
    fn moves(&self, cur: &Model, var: Var) -> Vec<Value> {
        let now = Self::value(cur, var);
        let mut out: Vec<Value> = (0..var.scales())
            .flat_map(|k| [var.step(now, true, k), var.step(now, false, k)])
            .collect();
        out.extend(self.targets(cur, var));
        out.extend(
            self.vars
                .iter()
                .filter(|o| o.sym != var.sym && o.sort == var.sort)
                .map(|o| Self::value(cur, *o)),
        );
        out.retain(|v| *v != now);
        out
    }

    /// The best point among `cur`'s neighbours, if it is better than `f`.
    fn descend(&mut self, cur: &Model, f: f64, limit: usize) -> Option<(Model, f64)> {
        let mut best: Option<(Model, f64)> = None;
        let n = self.vars.len() as u64;
        let start = (self.next() % n) as usize;
        for i in 0..self.vars.len() {
            let var = self.vars[(start + i) % self.vars.len()];
            for v in self.moves(cur, var) {
                if self.evaluations >= limit {
                    return best;
                }
                let mut m = cur.clone();
                m.insert(var.sym, v);
                let fm = self.objective(&m);
                if fm < best.as_ref().map_or(f, |b| b.1) {
                    best = Some((m, fm));
                }
            }
            // Greedy per variable: the first variable that improves moves.
            if best.is_some() {
                return best;
            }
        }
        // Every float shifted together (a scale that the sides of a
        // relative comparison share).
        let floats: Vec<Var> = self
            .vars
            .iter()
            .copied()
            .filter(|v| ordered(Self::value(cur, *v)).is_some())
            .collect();
        if floats.len() > 1 {
            for k in 0..63 {
                for up in [true, false] {
                    if self.evaluations >= limit {
                        return best;
                    }
                    let mut m = cur.clone();
                    for v in &floats {
                        m.insert(v.sym, v.step(Self::value(cur, *v), up, k));
                    }
                    let fm = self.objective(&m);
                    if fm < best.as_ref().map_or(f, |b| b.1) {
                        best = Some((m, fm));
                    }
                }
            }
        }
        best
    }

    /// A random large step of one or two variables away from `cur`; or,
    /// one time in four, a fresh point where every float is a number of
    /// moderate size (a product of tiny numbers underflows to zero, where
    /// distances measured in units in the last place are smallest: a
    /// search that hops only by steps stays there).
    fn hop(&mut self, cur: &Model) -> Model {
        let mut m = cur.clone();
        if self.next().is_multiple_of(4) {
            for var in self.vars.clone() {
                let mantissa = 1.0 + (self.next() % 1024) as f64 / 1024.0;
                let exp = (self.next() % 41) as i32 - 20;
                if let Some(v) = var.float(mantissa * 2f64.powi(exp)) {
                    m.insert(var.sym, v);
                }
            }
            return m;
        }
        for _ in 0..1 + self.next() % 2 {
            let i = (self.next() % self.vars.len() as u64) as usize;
            let var = self.vars[i];
            let k = (self.next() % var.scales() as u64) as u32;
            let up = self.next().is_multiple_of(2);
            m.insert(var.sym, var.step(Self::value(cur, var), up, k));
        }
        m
    }
}

/// Minimises the distance of `constraints` from `start` (symbols it leaves
/// out take their defaults), moving the symbols the constraints mention.
pub fn minimize(store: &TermStore, constraints: &[TermId], start: &Model, limits: Limits) -> Optimized {
    minimize_from(store, constraints, std::slice::from_ref(start), limits)
}

/// [`minimize`] from the best of several starting points.
pub fn minimize_from(store: &TermStore, constraints: &[TermId], starts: &[Model], limits: Limits) -> Optimized {
    let mut vars: Vec<Var> = Vec::new();
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
                    vars.push(Var { sym: *s, term: t, sort });
                }
            }
            Node::App(_, args) => stack.extend(args.iter().copied()),
            Node::Const(_) => {}
        }
    }
    vars.sort_by_key(|v| v.sym);
    let mut out = Optimized::default();
    if vars.is_empty() {
        return out;
    }
    let mut search = Search {
        store,
        constraints,
        vars,
        seed: 0x9E37_79B9_7F4A_7C15,
        evaluations: 0,
    };
    // Besides the caller's starts, every float 1.0 (see `hop`).
    let ones: Model = search
        .vars
        .iter()
        .filter_map(|v| Some((v.sym, v.float(1.0)?)))
        .collect();
    let mut cur = Model::default();
    let mut f = f64::INFINITY;
    for s in starts.iter().chain([&ones]) {
        let fs = search.objective(s);
        if fs < f {
            (cur, f) = (s.clone(), fs);
        }
    }
    while f > 0.0 && search.evaluations < limits.evaluations {
        match search.descend(&cur, f, limits.evaluations) {
            Some((m, fm)) => {
                // Each point the descent passes through satisfies part of
                // the query too, as a simplex's assignment before a pivot.
                if fm > 0.0 {
                    out.partials.push(m.clone());
                }
                (cur, f) = (m, fm)
            }
            None => {
                // A local minimum (already a partial solution): hop away.
                cur = search.hop(&cur);
                f = search.objective(&cur);
            }
        }
    }
    if f == 0.0 {
        out.solution = Some(cur);
    }
    out.evaluations = search.evaluations;
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A store with two double inputs named `a` and `b`.
    pub(crate) fn doubles(a: &str, b: &str) -> (TermStore, TermId, TermId) {
        let mut s = TermStore::new();
        let x = s.symbol_term(a, Sort::F64);
        let y = s.symbol_term(b, Sort::F64);
        (s, x, y)
    }

    /// The double constant `v`.
    pub(crate) fn double(s: &mut TermStore, v: f64) -> TermId {
        s.constant(Value::F64(v.to_bits()))
    }

    /// Seed 002 §3.4: Figure 2 over floats, x + y ≥ 2 ∧ 2y − x ≥ 1 ∧
    /// 2x − y ≥ 0, found by search from (0, 0).
    #[test]
    fn figure_2_over_doubles() {
        let (mut s, x, y) = doubles("x", "y");
        let (two, one, zero) = (double(&mut s, 2.0), double(&mut s, 1.0), double(&mut s, 0.0));
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

    /// bench/muse/triangle.c's right isosceles triangle: `a·a + a·a` within
    /// a relative 1e-9 of `b·b`, with `a` past 1000 (so `b` is `a·√2`
    /// to nine digits), found from a tiny start: a tolerance among values
    /// near 1e6 is thousands of units in the last place, which only steps
    /// of every size reach.
    #[test]
    fn a_relative_tolerance_is_met_at_any_scale() {
        let (mut s, a, b) = doubles("a", "b");
        let (eps, thousand) = (double(&mut s, 1e-9), double(&mut s, 1000.0));
        let aa = s.app(Op::Mul, &[a, a]).unwrap();
        let lhs = s.app(Op::Add, &[aa, aa]).unwrap();
        let rhs = s.app(Op::Mul, &[b, b]).unwrap();
        let diff = s.app(Op::Sub, &[lhs, rhs]).unwrap();
        let sum = s.app(Op::Add, &[lhs, rhs]).unwrap();
        let tol = s.app(Op::Mul, &[eps, sum]).unwrap();
        let under = s.app(Op::Le, &[diff, tol]).unwrap();
        let neg = s.app(Op::Sub, &[rhs, lhs]).unwrap();
        let over = s.app(Op::Le, &[neg, tol]).unwrap();
        let big = s.app(Op::Gt, &[a, thousand]).unwrap();
        let query = [under, over, big];
        let tiny: Model = [
            (SymId(0), Value::F64(1e-300f64.to_bits())),
            (SymId(1), Value::F64(3e-300f64.to_bits())),
        ]
        .into_iter()
        .collect();
        let r = minimize(&s, &query, &tiny, Limits { evaluations: 20_000 });
        let sol = r.solution.expect("found");
        assert!(s.satisfies(&query, &sol));
        assert!(!r.partials.is_empty(), "the points on the way are partial solutions");
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
