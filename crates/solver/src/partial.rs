//! MuSE's partial solutions for linear arithmetic (seed 002, §3.2): the
//! linear part of a conjunction of terms, read as integer constraints, is
//! solved by the general simplex ([`crate::simplex`]); the assignments it
//! passes through on the way are partial solutions, each a model to run.
//!
//! Machine integers are read as the paper does for them: as mathematical
//! integers (a bit-vector symbol of width `w` ranges over `[−2^(w−1), 2^w)`,
//! so that signed and unsigned readings both fit, and its value wraps back
//! on the way out); extensions are the identity, and so is a truncation of a
//! value its shape (or an upper bound the query puts on it) shows to fit; a
//! product with a constant, and a shift left, scale; a shift right by a
//! constant and any other truncation are a quotient and a remainder by a
//! power of two (fresh variables); an `or` of values whose bits cannot
//! meet is a sum. Everything else that is not linear (products of symbols,
//! other bit operations, array reads and lookups, floats) becomes an opaque
//! variable, refined by lemmas ([`solve_linear`]), and a constraint that is
//! not a conjunction of linear comparisons (a disjunction, a Bool input) is
//! left out.
//! This is a relaxation, and not even a sound one under wrap-around: partial
//! solutions are only inputs to run, and the final assignment counts as a
//! solution only after the caller has evaluated the whole query under it.

use crate::simplex::{self, Constraint, Limits, Outcome, Rel};
use braid_term::{EvalMemo, Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// What the simplex found on a query's linear part.
#[derive(Clone, Debug, Default)]
pub struct Linear {
    /// The final assignment when the linear part is satisfiable: a
    /// candidate solution of the whole query.
    pub solution: Option<Model>,
    /// Assignments before each pivot, distinct, in the order visited.
    pub partials: Vec<Model>,
    /// Whether the linear part alone (before any refinement) is
    /// unsatisfiable over the integers.
    pub unsat: bool,
    /// Constraints of the query with a linear reading, and pivots made.
    pub linear_constraints: usize,
    pub pivots: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Sym(SymId),
    Opaque(TermId),
    /// The quotient (0) and remainder (1) of a shift right or truncation
    /// of a term by a power of two.
    Aux(TermId, u8),
}

/// `Σ coeff·var + constant`.
#[derive(Clone, Default)]
struct Lin {
    coeffs: FxHashMap<usize, i128>,
    constant: i128,
}

impl Lin {
    fn scaled(mut self, k: i128) -> Option<Lin> {
        for a in self.coeffs.values_mut() {
            *a = a.checked_mul(k)?;
        }
        self.constant = self.constant.checked_mul(k)?;
        Some(self)
    }

    /// The constraint `self ⋈ value` (`None` when `value − constant`
    /// overflows).
    fn compare(&self, rel: Rel, value: i128) -> Option<Constraint> {
        let mut coeffs: Vec<(usize, i128)> = self.coeffs.iter().map(|(x, a)| (*x, *a)).collect();
        coeffs.sort_unstable();
        Some(Constraint {
            coeffs,
            rel,
            bound: value.checked_sub(self.constant)?,
        })
    }

    fn plus(mut self, o: Lin, sign: i128) -> Option<Lin> {
        for (x, a) in o.coeffs {
            let e = self.coeffs.entry(x).or_insert(0);
            *e = e.checked_add(a.checked_mul(sign)?)?;
        }
        self.constant = self.constant.checked_add(o.constant.checked_mul(sign)?)?;
        self.coeffs.retain(|_, a| *a != 0);
        Some(self)
    }
}

/// Bits below the first are zero, and so are those from the second up.
type BitRange = (u32, u32);

struct Linearizer<'s> {
    store: &'s TermStore,
    vars: Vec<Key>,
    index: FxHashMap<Key, usize>,
    bounds: Vec<(Option<i128>, Option<i128>)>,
    constraints: Vec<Constraint>,
    /// Bit-vector constants compared directly read as unsigned (under an
    /// unsigned comparison); else, and in arithmetic, as signed.
    unsigned: bool,
    /// Unsigned upper bounds the query's own comparisons put on terms.
    upper: FxHashMap<TermId, u64>,
    /// [`Linearizer::bit_range`]'s answers, with the depth each was found
    /// at (an answer found deeper was cut sooner, so it serves that depth
    /// and deeper ones only).
    ranges: std::cell::RefCell<FxHashMap<TermId, (u32, BitRange)>>,
}

fn sort_bounds(sort: Sort) -> (Option<i128>, Option<i128>) {
    match sort {
        Sort::Bv(w) if w <= 64 => (Some(-(1i128 << (w - 1))), Some((1i128 << w) - 1)),
        _ => (None, None),
    }
}

impl Linearizer<'_> {
    fn var(&mut self, key: Key, sort: Sort) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.vars.len();
        self.vars.push(key);
        self.index.insert(key, i);
        self.bounds.push(sort_bounds(sort));
        i
    }

    fn opaque(&mut self, t: TermId) -> Option<Lin> {
        let sort = self.store.sort(t);
        if !matches!(sort, Sort::Int | Sort::Bv(_)) {
            return None;
        }
        let x = self.var(Key::Opaque(t), sort);
        Some(Lin {
            coeffs: [(x, 1)].into_iter().collect(),
            constant: 0,
        })
    }

    /// `x = 2^k·q + r` with `0 ≤ r < 2^k` (and `x ≥ 0` unless `signed`,
    /// where `q` is the floored quotient of any integer):
    /// the quotient `q` (a shift right of `x` by `k`) or the remainder `r`
    /// (a truncation of `x` to `k` bits), as fresh variables tied to `t`.
    fn divide(&mut self, t: TermId, x: Lin, k: u32, remainder: bool, signed: bool) -> Option<Lin> {
        if k >= 64 {
            return None;
        }
        let known = self.index.contains_key(&Key::Aux(t, 0));
        let q = self.var(Key::Aux(t, 0), Sort::Int);
        let r = self.var(Key::Aux(t, 1), Sort::Int);
        self.bounds[q] = (if signed { None } else { Some(0) }, None);
        self.bounds[r] = (Some(0), Some((1i128 << k) - 1));
        let result = Lin {
            coeffs: [(if remainder { r } else { q }, 1)].into_iter().collect(),
            constant: 0,
        };
        if known {
            return Some(result);
        }
        if !signed {
            self.constraints.extend(x.compare(Rel::Ge, 0));
        }
        let d = x.plus(
            Lin {
                coeffs: [(q, 1i128 << k), (r, 1)].into_iter().collect(),
                constant: 0,
            },
            -1,
        )?;
        self.constraints.push(d.compare(Rel::Eq, 0)?);
        Some(result)
    }

    /// `t` as a linear form over integer readings.
    fn linear(&mut self, t: TermId, depth: u32) -> Option<Lin> {
        let top = std::mem::take(&mut self.unsigned);
        if depth > 64 {
            return self.opaque(t);
        }
        match self.store.node(t) {
            Node::Const(Value::Int(n)) => Some(Lin {
                constant: *n,
                ..Lin::default()
            }),
            Node::Const(Value::Bv { bits, width }) => Some(Lin {
                constant: if top {
                    *bits as i128
                } else {
                    Value::bv_signed(*width, *bits) as i128
                },
                ..Lin::default()
            }),
            Node::Const(_) => None,
            Node::Sym(s) => {
                let sort = self.store.symbol(*s).sort;
                if !matches!(sort, Sort::Int | Sort::Bv(_)) {
                    return None;
                }
                let x = self.var(Key::Sym(*s), sort);
                Some(Lin {
                    coeffs: [(x, 1)].into_iter().collect(),
                    constant: 0,
                })
            }
            Node::App(op, args) => {
                let args = args.clone();
                let sub = |me: &mut Self, i: usize| me.linear(args[i], depth + 1);
                let konst = |me: &Self, i: usize| match me.store.as_const(args[i]) {
                    Some(Value::Int(n)) => Some(n),
                    Some(Value::Bv { bits, width }) => Some(Value::bv_signed(width, bits) as i128),
                    _ => None,
                };
                let lin = match op {
                    Op::Add => sub(self, 0).zip(sub(self, 1)).and_then(|(a, b)| a.plus(b, 1)),
                    Op::Sub => sub(self, 0).zip(sub(self, 1)).and_then(|(a, b)| a.plus(b, -1)),
                    Op::Neg => sub(self, 0).and_then(|a| a.scaled(-1)),
                    Op::Mul => match (konst(self, 0), konst(self, 1)) {
                        (Some(k), _) => sub(self, 1).and_then(|a| a.scaled(k)),
                        (_, Some(k)) => sub(self, 0).and_then(|a| a.scaled(k)),
                        _ => None,
                    },
                    Op::Shl => match konst(self, 1) {
                        Some(k @ 0..=62) => sub(self, 0).and_then(|a| a.scaled(1 << k)),
                        _ => None,
                    },
                    // A truncation of a value its shape shows to fit is the
                    // value; else its remainder (of any integer: the low
                    // bits of a negative one too).
                    Op::Trunc(w) => {
                        let (_, hi) = self.bit_range(args[0], 0);
                        let x = sub(self, 0);
                        if hi <= *w as u32 {
                            x
                        } else {
                            x.and_then(|x| self.divide(t, x, *w as u32, true, true))
                        }
                    }
                    Op::ZExt(_) | Op::SExt(_) | Op::ToInt | Op::ToBv(_) => sub(self, 0),
                    // `(e << k) >> k` and `e & (2^k − 1)`: extending or
                    // truncating the low bits, read as `e`.
                    Op::AShr | Op::LShr => match (self.store.node(args[0]).clone(), konst(self, 1)) {
                        (Node::App(Op::Shl, inner), Some(k)) if matches!(self.store.as_const(inner[1]), Some(Value::Bv { bits, .. }) if bits as i128 == k) => {
                            self.linear(inner[0], depth + 1)
                        }
                        // A shift: the quotient (floored, of the signed
                        // reading, for an arithmetic one).
                        (_, Some(k @ 0..=63)) => {
                            let signed = *op == Op::AShr;
                            sub(self, 0).and_then(|x| self.divide(t, x, k as u32, false, signed))
                        }
                        _ => None,
                    },
                    // Bytes put together: `a | b` where one side's bits all
                    // lie below the other's lowest possibly set bit is `a + b`.
                    Op::Or if self.disjoint(args[0], args[1]) => {
                        sub(self, 0).zip(sub(self, 1)).and_then(|(a, b)| a.plus(b, 1))
                    }
                    Op::And => match konst(self, 1) {
                        Some(m) if m > 0 && (m + 1) & m == 0 => sub(self, 0),
                        _ => None,
                    },
                    _ => None,
                };
                lin.or_else(|| self.opaque(t))
            }
        }
    }

    /// `(low, high)`: bits below `low` are zero, and so are those from
    /// `high` up (a value below `2^high`), as far as the shape of `t` shows.
    ///
    /// Answers are kept: the walk visits both operands of every `and` and
    /// `or`, so without them a hash's term (khash's `key & mask` over
    /// chains of choices) cost 2^16 visits per question, and concolic ran
    /// 2 s past a 5 s limit in them.
    fn bit_range(&self, t: TermId, depth: u32) -> (u32, u32) {
        if let Some(&(d, r)) = self.ranges.borrow().get(&t) {
            if d <= depth {
                return r;
            }
        }
        let r = self.bit_range_of(t, depth);
        self.ranges.borrow_mut().insert(t, (depth, r));
        r
    }

    fn bit_range_of(&self, t: TermId, depth: u32) -> (u32, u32) {
        let full = match self.store.sort(t) {
            Sort::Bv(w) => w as u32,
            _ => 128,
        };
        if depth > 16 {
            return (0, full);
        }
        let bounded = |(lo, hi): (u32, u32)| match self.upper.get(&t) {
            Some(&u) => (lo, hi.min(64 - u.leading_zeros())),
            None => (lo, hi),
        };
        let node = self.store.node(t);
        bounded(match node {
            Node::Const(Value::Bv { bits, .. }) => (bits.trailing_zeros().min(full), 64 - bits.leading_zeros()),
            Node::App(Op::ZExt(_), a) => match self.store.sort(a[0]) {
                Sort::Bv(w) => {
                    let (lo, hi) = self.bit_range(a[0], depth + 1);
                    (lo, hi.min(w as u32))
                }
                _ => (0, full),
            },
            Node::App(Op::Shl, a) => match self.store.as_const(a[1]) {
                Some(Value::Bv { bits: k, .. }) if k < full as u64 => {
                    let (lo, hi) = self.bit_range(a[0], depth + 1);
                    ((lo + k as u32).min(full), (hi + k as u32).min(full))
                }
                _ => (0, full),
            },
            Node::App(Op::And, a) => {
                let (lo, hi) = self.bit_range(a[0], depth + 1);
                let (mlo, mhi) = self.bit_range(a[1], depth + 1);
                (lo.max(mlo), hi.min(mhi))
            }
            Node::App(Op::Or, a) => {
                let (l0, h0) = self.bit_range(a[0], depth + 1);
                let (l1, h1) = self.bit_range(a[1], depth + 1);
                (l0.min(l1), h0.max(h1))
            }
            Node::App(Op::LShr, a) => match self.store.as_const(a[1]) {
                Some(Value::Bv { bits: k, .. }) if k < full as u64 => {
                    let (lo, hi) = self.bit_range(a[0], depth + 1);
                    (lo.saturating_sub(k as u32), hi.saturating_sub(k as u32))
                }
                _ => (0, full),
            },
            // A choice (a lookup's chain, walked without recursing down it).
            Node::App(Op::Ite, _) => {
                let (mut lo, mut hi) = (full, 0);
                let mut at = t;
                let mut steps = 0;
                while let Node::App(Op::Ite, a) = self.store.node(at) {
                    let (l, h) = self.bit_range(a[1], depth + 1);
                    (lo, hi) = (lo.min(l), hi.max(h));
                    at = a[2];
                    steps += 1;
                    if steps > 1024 {
                        return (0, full);
                    }
                }
                let (l, h) = self.bit_range(at, depth + 1);
                (lo.min(l), hi.max(h))
            }
            _ => (0, full),
        })
    }

    fn disjoint(&self, a: TermId, b: TermId) -> bool {
        let (la, ha) = self.bit_range(a, 0);
        let (lb, hb) = self.bit_range(b, 0);
        ha <= lb || hb <= la
    }

    /// Adds the linear comparisons `t` (or its negation) implies.
    fn atom(&mut self, t: TermId, positive: bool, depth: u32) {
        if depth > 64 {
            return;
        }
        let Node::App(op, args) = self.store.node(t) else {
            return;
        };
        let (op, args) = (*op, args.clone());
        match (op, positive) {
            (Op::Not, _) => self.atom(args[0], !positive, depth + 1),
            (Op::And, true) | (Op::Or, false) if self.store.sort(t) == Sort::Bool => {
                for a in args {
                    self.atom(a, positive, depth + 1);
                }
            }
            _ => {
                let rel = match (op, positive) {
                    (Op::Eq, true) | (Op::Ne, false) => Some((Rel::Eq, 0)),
                    (Op::Lt | Op::ULt, true) | (Op::Ge | Op::UGe, false) => Some((Rel::Le, -1)),
                    (Op::Le | Op::ULe, true) | (Op::Gt | Op::UGt, false) => Some((Rel::Le, 0)),
                    (Op::Gt | Op::UGt, true) | (Op::Le | Op::ULe, false) => Some((Rel::Ge, 1)),
                    (Op::Ge | Op::UGe, true) | (Op::Lt | Op::ULt, false) => Some((Rel::Ge, 0)),
                    _ => None,
                };
                let rel = rel.or(match (op, positive) {
                    (Op::Ne, true) | (Op::Eq, false) => Some((Rel::Ne, 0)),
                    _ => None,
                });
                let Some((rel, bound)) = rel else { return };
                let unsigned = matches!(op, Op::ULt | Op::ULe | Op::UGt | Op::UGe);
                if !matches!(self.store.sort(args[0]), Sort::Int | Sort::Bv(_)) {
                    return;
                }
                self.unsigned = unsigned;
                let Some(l) = self.linear(args[0], depth + 1) else {
                    return;
                };
                self.unsigned = unsigned;
                let Some(r) = self.linear(args[1], depth + 1) else {
                    return;
                };
                // An unsigned comparison reads both sides without wrapping
                // around: each is at least 0.
                if let (true, Sort::Bv(_)) = (unsigned, self.store.sort(args[0])) {
                    for side in [&l, &r] {
                        if !side.coeffs.is_empty() {
                            self.constraints.extend(side.compare(Rel::Ge, 0));
                        }
                    }
                }
                let Some(d) = l.plus(r, -1) else { return };
                if d.coeffs.is_empty() {
                    return;
                }
                self.constraints.extend(d.compare(rel, bound as i128));
            }
        }
    }
}

/// The value a solution gives a variable of `sort`.
fn value_of(sort: Sort, v: i128) -> Value {
    match sort {
        Sort::Bv(w) => {
            let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            Value::Bv {
                width: w,
                bits: (v as u64) & mask,
            }
        }
        _ => Value::Int(v),
    }
}

/// Rounds of abstraction refinement after the first solve (§3.3).
pub const REFINEMENTS: usize = 16;
/// Past this many linear constraints or variables the simplex is not
/// tried (a pivot costs their product), and refinement stops once the
/// solves have taken [`REFINE_TIME`].
pub const MAX_LINEAR: usize = 512;
pub const REFINE_TIME: std::time::Duration = std::time::Duration::from_millis(20);

/// Solves the linear part of `constraints` (all must hold) from the
/// all-zero assignment, with its partial solutions, by abstraction
/// refinement (seed 002, §3.3): array reads and every other term without a
/// linear reading are opaque variables at first; when the assignment gives
/// one a value its evaluation under the assignment (over `base` for the
/// symbols the linear part does not mention) does not have, a lemma pins it
/// and the system is solved again, at most [`REFINEMENTS`] times. A lookup
/// (an array read, or the `ite` chain a load through a small table makes)
/// that should give a value one of its entries gives is pinned to that key
/// (the nearest) with the array axiom there (the read equals the entry), so
/// a lookup through a decoding table is inverted; only when no lookup is
/// pinned is another opaque term pinned to its evaluation, with its
/// operands' linear forms at their values. Each refuted assignment is a partial
/// solution; the pins only narrow the search, so an unsatisfiable refined
/// system proves nothing and the caller asks the complete solver.
pub fn solve_linear(store: &TermStore, constraints: &[TermId], base: &Model, limits: Limits) -> Linear {
    let mut lz = Linearizer {
        store,
        vars: Vec::new(),
        index: FxHashMap::default(),
        bounds: Vec::new(),
        constraints: Vec::new(),
        unsigned: false,
        upper: FxHashMap::default(),
        ranges: Default::default(),
    };
    for &c in constraints {
        upper_bounds(store, c, true, &mut lz.upper, 0);
    }
    for &c in constraints {
        lz.atom(c, true, 0);
    }
    if lz.constraints.is_empty() || lz.constraints.len() > MAX_LINEAR || lz.vars.len() > MAX_LINEAR {
        return Linear::default();
    }
    // Opaque terms with the linear forms of their operands (which may add
    // variables, so the list grows as it is walked).
    let mut opaque: Vec<Opaque> = Vec::new();
    // Variables that stand for operands only (pinned with their term,
    // never checked themselves).
    let mut operand = Vec::new();
    // Variables checked against their terms: those of the query's own
    // terms, and the entries of lookups a lemma has chosen.
    let mut live = vec![true; lz.vars.len()];
    let mut x = 0;
    while x < lz.vars.len() {
        operand.resize(lz.vars.len(), false);
        if let (Key::Opaque(t), false) = (lz.vars[x], operand[x]) {
            let table = table_of(store, t).and_then(|(index, default, entries)| {
                let index = lz.linear(index, 1)?;
                let forms = entries.iter().map(|(_, v)| lz.linear(*v, 1)).collect();
                Some(Table {
                    index,
                    default,
                    default_form: lz.linear(default, 1),
                    entries,
                    forms,
                })
            });
            let args = match (store.node(t), &table) {
                (Node::App(_, args), None) => args.clone(),
                _ => Default::default(),
            };
            let before = lz.vars.len();
            let forms = args
                .iter()
                .map(|&a| match store.sort(a) {
                    Sort::Int | Sort::Bv(_) => lz.linear(a, 1),
                    _ => None,
                })
                .collect();
            operand.resize(before, false);
            operand.resize(lz.vars.len(), true);
            opaque.push(Opaque {
                var: x,
                term: t,
                forms,
                table,
            });
        }
        x += 1;
    }
    live.resize(lz.vars.len(), false);
    // Tables first: their lemmas are the ones that invert a lookup.
    opaque.sort_by_key(|o| o.table.is_none());
    let by_var: FxHashMap<usize, usize> = opaque.iter().enumerate().map(|(i, o)| (o.var, i)).collect();
    // A live lookup's index is live too.
    let revive = |live: &mut Vec<bool>, form: &Lin| {
        let mut todo: Vec<usize> = form.coeffs.keys().copied().collect();
        while let Some(v) = todo.pop() {
            if !std::mem::replace(&mut live[v], true) {
                if let Some(t) = by_var.get(&v).and_then(|&i| opaque[i].table.as_ref()) {
                    todo.extend(t.index.coeffs.keys());
                }
            }
        }
    };
    for o in &opaque {
        if let (true, Some(t)) = (live[o.var], &o.table) {
            revive(&mut live, &t.index.clone());
        }
    }
    let model = |values: &[i128]| -> Model {
        lz.vars
            .iter()
            .zip(values)
            .filter_map(|(k, v)| match k {
                Key::Sym(s) => Some((*s, value_of(store.symbol(*s).sort, *v))),
                Key::Opaque(_) | Key::Aux(..) => None,
            })
            .collect()
    };
    let mut out = Linear {
        linear_constraints: lz.constraints.len(),
        ..Linear::default()
    };
    let add_partial = |out: &mut Linear, m: Model| {
        if !out.partials.contains(&m) {
            out.partials.push(m);
        }
    };
    let mut system = lz.constraints.clone();
    let start = std::time::Instant::now();
    for round in 0..=REFINEMENTS {
        if round > 0 && start.elapsed() > REFINE_TIME {
            break;
        }
        let solved = simplex::solve(lz.vars.len(), &system, &lz.bounds, limits);
        out.pivots += solved.pivots;
        for p in &solved.partials {
            add_partial(&mut out, model(p));
        }
        let values = match solved.outcome {
            Outcome::Sat(v) => v,
            Outcome::Unsat => {
                out.unsat = round == 0;
                break;
            }
            Outcome::GaveUp => break,
        };
        let m = model(&values);
        let mut full = base.clone();
        full.extend(m.iter().map(|(s, v)| (*s, *v)));
        let mut memo = EvalMemo::default();
        let wrong: Vec<(&Opaque, Value)> = opaque
            .iter()
            .filter(|o| live[o.var])
            .filter_map(|o| {
                let actual = store.eval_with(o.term, &full, &mut memo).ok()?;
                (actual != value_of(store.sort(o.term), values[o.var])).then_some((o, actual))
            })
            .collect();
        // (A wrong term may not matter: the query may hold all the same.)
        if wrong.is_empty() || store.satisfies(constraints, &full) {
            out.solution = Some(m);
            break;
        }
        add_partial(&mut out, m);
        let at = |form: &Lin| -> i128 {
            let terms = form.coeffs.iter().map(|(y, a)| a.saturating_mul(values[*y]));
            terms.fold(form.constant, i128::saturating_add)
        };
        let mut pin = |form: &Lin, value: i128| {
            if let Some(c) = form.compare(Rel::Eq, value) {
                if !c.coeffs.is_empty() && !system.contains(&c) {
                    system.push(c);
                }
            }
        };
        let var = |o: &Opaque| Lin {
            coeffs: [(o.var, 1)].into_iter().collect(),
            constant: 0,
        };
        // Every wrong lookup is pinned to a key with the array axiom there
        // (the read is that entry): the key nearest to its index whose
        // entry gives the value the read was given, if any, else its
        // index's when the entry there is not a constant. Only when no
        // lookup was pinned is the first wrong term pinned to what it
        // evaluates to.
        let mut inverted = false;
        for (o, _) in &wrong {
            let Some(t) = &o.table else { continue };
            let wanted = value_of(store.sort(o.term), values[o.var]);
            let now = at(&t.index);
            let found = t.inverse(store, &full, wanted, now);
            let k = found.unwrap_or(now);
            let form = match t.entries.binary_search_by_key(&k, |(key, _)| *key) {
                Ok(e) => t.forms[e].as_ref(),
                Err(_) => t.default_form.as_ref(),
            };
            // (At its index, an entry that is a constant would only
            // contradict the value the read was given.)
            let form = form.filter(|f| found.is_some() || !f.coeffs.is_empty());
            if let Some(f) = form {
                if let Some(d) = var(o).plus(f.clone(), -1) {
                    pin(&t.index, k);
                    pin(&d, 0);
                    revive(&mut live, f);
                    inverted = true;
                }
            }
        }
        if !inverted {
            let (o, actual) = wrong[0];
            for form in o.forms.iter().flatten() {
                pin(form, at(form));
            }
            pin(&var(o), reading(actual));
        }
    }
    out
}

/// The unsigned upper bounds `c` (or its negation) puts on bit-vector
/// terms: `t ≤ k`, `t < k`, `t = k`.
fn upper_bounds(store: &TermStore, c: TermId, positive: bool, upper: &mut FxHashMap<TermId, u64>, depth: u32) {
    let Node::App(op, args) = store.node(c) else { return };
    if depth > 64 {
        return;
    }
    let bound = |i: usize| match store.as_const(args[i]) {
        Some(Value::Bv { bits, .. }) => Some(bits),
        _ => None,
    };
    let (t, k) = match (op, positive) {
        (Op::Not, _) => return upper_bounds(store, args[0], !positive, upper, depth + 1),
        (Op::And, true) | (Op::Or, false) if store.sort(c) == Sort::Bool => {
            for &a in args {
                upper_bounds(store, a, positive, upper, depth + 1);
            }
            return;
        }
        (Op::ULe, true) | (Op::UGt, false) | (Op::Eq, true) => (args[0], bound(1)),
        (Op::ULt, true) | (Op::UGe, false) => (args[0], bound(1).and_then(|k| k.checked_sub(1))),
        _ => return,
    };
    if let Some(k) = k {
        let e = upper.entry(t).or_insert(k);
        *e = (*e).min(k);
    }
}

/// A value as the simplex reads it (bit-vectors signed).
fn reading(v: Value) -> i128 {
    match v {
        Value::Int(n) => n,
        Value::Bv { width, bits } => Value::bv_signed(width, bits) as i128,
        Value::Bool(b) => b as i128,
        _ => 0,
    }
}

/// A term without a linear reading, standing as variable `var`, with the
/// linear forms of its operands, and its table when it is a lookup.
struct Opaque {
    var: usize,
    term: TermId,
    forms: Vec<Option<Lin>>,
    table: Option<Table>,
}

/// A lookup: the value at key `k` of `entries` when `index` is `k`, else
/// `default`; `forms` and `default_form`, their linear forms.
struct Table {
    index: Lin,
    default: TermId,
    default_form: Option<Lin>,
    entries: Vec<(i128, TermId)>,
    forms: Vec<Option<Lin>>,
}

/// A lookup's index, default and entries (by ascending key).
type Lookup = (TermId, TermId, Vec<(i128, TermId)>);

/// `t` as a lookup `(index, default, entries by ascending key)`: an array
/// read, or a chain `ite(i == k1, v1, ite(i == k2, v2, … d))` over one
/// index and constant keys (how a load through a small table reads).
fn table_of(store: &TermStore, t: TermId) -> Option<Lookup> {
    let (index, default, mut entries) = match store.node(t) {
        Node::App(Op::Read, args) => {
            let entries = args[2..]
                .chunks(2)
                .map(|kv| Some((reading(store.as_const(kv[0])?), kv[1])))
                .collect::<Option<Vec<_>>>()?;
            (args[0], args[1], entries)
        }
        Node::App(Op::Ite, _) => {
            let mut index = None;
            let mut entries = Vec::new();
            let mut at = t;
            while let Node::App(Op::Ite, a) = store.node(at) {
                let Node::App(Op::Eq, c) = store.node(a[0]) else { break };
                let Some(k) = store.as_const(c[1]) else { break };
                if *index.get_or_insert(c[0]) != c[0] {
                    break;
                }
                entries.push((reading(k), a[1]));
                at = a[2];
            }
            if entries.len() < 2 {
                return None;
            }
            (index?, at, entries)
        }
        _ => return None,
    };
    // The first entry of a key wins, as in the chain (the sort is stable).
    entries.sort_by_key(|(k, _)| *k);
    entries.dedup_by_key(|(k, _)| *k);
    Some((index, default, entries))
}

impl Table {
    /// The index nearest to `near` at which the lookup gives `wanted` under
    /// `model`: a key whose entry is `wanted`, or, for the default's value,
    /// the nearest index that is not a key. Failing that, the same for an
    /// entry that is itself a lookup (the term store pushes arithmetic into
    /// a lookup's entries) with `wanted` among its values.
    fn inverse(&self, store: &TermStore, model: &Model, wanted: Value, near: i128) -> Option<i128> {
        let mut memo = EvalMemo::default();
        let mut eval = |t: TermId| store.eval_with(t, model, &mut memo).ok();
        let nearest = |ks: &mut dyn Iterator<Item = i128>| ks.min_by_key(|k| (k - near).abs());
        let free = || {
            let free = |k: &i128| self.entries.binary_search_by_key(k, |(key, _)| *key).is_err();
            (0..=self.entries.len() as i128 + 1)
                .flat_map(|d| [near - d, near + d])
                .find(free)
        };
        let now = nearest(
            &mut self
                .entries
                .iter()
                .filter(|(_, v)| eval(*v) == Some(wanted))
                .map(|(k, _)| *k),
        );
        if now.is_some() {
            return now;
        }
        if eval(self.default) == Some(wanted) {
            return free();
        }
        let mut budget = 1 << 12;
        let mut can = |t: TermId| reaches(store, t, wanted, model, &mut budget, &mut memo);
        let later = nearest(&mut self.entries.iter().filter(|(_, v)| can(*v)).map(|(k, _)| *k));
        if later.is_some() {
            return later;
        }
        if can(self.default) {
            return free();
        }
        None
    }
}

/// Whether `t`, a lookup whose entries may be lookups, has `wanted` among
/// its values under `model` (at most `budget` values looked at; `memo`
/// shares the evaluation of the terms they have in common).
fn reaches(
    store: &TermStore,
    t: TermId,
    wanted: Value,
    model: &Model,
    budget: &mut usize,
    memo: &mut EvalMemo,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match table_of(store, t) {
        Some((_, default, entries)) => {
            entries
                .iter()
                .any(|(_, v)| reaches(store, *v, wanted, model, budget, memo))
                || reaches(store, default, wanted, model, budget, memo)
        }
        None => store.eval_with(t, model, memo).ok() == Some(wanted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_2_over_machine_integers() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let y = s.symbol_term("y", Sort::Bv(32));
        let k = |s: &mut TermStore, n: u64| s.constant(Value::Bv { width: 32, bits: n });
        let two = k(&mut s, 2);
        let one = k(&mut s, 1);
        let zero = k(&mut s, 0);
        let sum = s.app(Op::Add, &[x, y]).unwrap();
        let c1 = s.app(Op::Ge, &[sum, two]).unwrap();
        let y2 = s.app(Op::Mul, &[two, y]).unwrap();
        let d = s.app(Op::Sub, &[y2, x]).unwrap();
        let c2 = s.app(Op::Ge, &[d, one]).unwrap();
        let x2 = s.app(Op::Mul, &[two, x]).unwrap();
        let e = s.app(Op::Sub, &[x2, y]).unwrap();
        let c3 = s.app(Op::Ge, &[e, zero]).unwrap();
        let lin = solve_linear(&s, &[c1, c2, c3], &Model::default(), Limits::default());
        let sol = lin.solution.expect("sat");
        assert!(s.satisfies(&[c1, c2, c3], &sol));
        assert_eq!(lin.partials.len(), 2);
        // (0, 0) breaks the first constraint; (2, 0) the second.
        assert!(!s.satisfies(&[c1], &lin.partials[0]));
        assert!(s.satisfies(&[c1], &lin.partials[1]) && !s.satisfies(&[c2], &lin.partials[1]));
    }

    fn sym(s: &TermStore, t: TermId) -> SymId {
        match s.node(t) {
            Node::Sym(id) => *id,
            _ => unreachable!("a symbol"),
        }
    }

    fn bv(s: &mut TermStore, width: u8, bits: u64) -> TermId {
        s.constant(Value::Bv { width, bits })
    }

    /// `dec[c]` over 32 bits: 'A'..'Z' are 0..25, anything else 64; as a
    /// load through a small table reads (`ite` on the index) or as a read.
    fn lookup(s: &mut TermStore, c: TermId, as_read: bool) -> TermId {
        let dec = if as_read {
            let index = s.app(Op::ZExt(64), &[c]).unwrap();
            let index = s.app(Op::ToInt, &[index]).unwrap();
            let mut args = vec![index, bv(s, 8, 64)];
            for k in 0..26u64 {
                args.push(s.constant(Value::Int(65 + k as i128)));
                args.push(bv(s, 8, k));
            }
            s.app(Op::Read, &args).unwrap()
        } else {
            let index = s.app(Op::ZExt(32), &[c]).unwrap();
            let mut chain = bv(s, 8, 64);
            for k in (0..26u64).rev() {
                let key = bv(s, 32, 65 + k);
                let hit = s.app(Op::Eq, &[index, key]).unwrap();
                let value = bv(s, 8, k);
                chain = s.app(Op::Ite, &[hit, value, chain]).unwrap();
            }
            chain
        };
        s.app(Op::ZExt(32), &[dec]).unwrap()
    }

    #[test]
    fn lookups_through_tables_are_inverted() {
        for as_read in [false, true] {
            let mut s = TermStore::new();
            let c0 = s.symbol_term("c0", Sort::Bv(8));
            let c1 = s.symbol_term("c1", Sort::Bv(8));
            let (d0, d1) = (lookup(&mut s, c0, as_read), lookup(&mut s, c1, as_read));
            // Both valid, the first at most 20 and the two adding up to 30.
            let (max, twenty, thirty) = (bv(&mut s, 32, 63), bv(&mut s, 32, 20), bv(&mut s, 32, 30));
            let sum = s.app(Op::Add, &[d0, d1]).unwrap();
            let query = [
                s.app(Op::ULe, &[d0, max]).unwrap(),
                s.app(Op::ULe, &[d1, max]).unwrap(),
                s.app(Op::ULe, &[d0, twenty]).unwrap(),
                s.app(Op::Eq, &[sum, thirty]).unwrap(),
            ];
            let lin = solve_linear(&s, &query, &Model::default(), Limits::default());
            let sol = lin.solution.unwrap_or_else(|| {
                panic!(
                    "as read: {as_read}: {} partials, unsat {}, {} pivots",
                    lin.partials.len(),
                    lin.unsat,
                    lin.pivots
                )
            });
            assert!(s.satisfies(&query, &sol), "as read: {as_read}");
            let digit = |c: TermId| match sol[&sym(&s, c)] {
                Value::Bv { bits, .. } => bits as i64 - 65,
                _ => unreachable!("a byte"),
            };
            assert!(digit(c0) <= 20 && digit(c0) + digit(c1) == 30, "as read: {as_read}");
            // The refuted abstract assignments are partial solutions.
            assert!(!lin.partials.is_empty());
        }
    }

    #[test]
    fn reads_of_symbolic_cells_follow_the_array_axiom() {
        // cells[i] for cells = [y, y + 1, y + 2], read at `i` with i == 1,
        // must be 9: y = 8.
        let mut s = TermStore::new();
        let y = s.symbol_term("y", Sort::Bv(8));
        let i = s.symbol_term("i", Sort::Bv(8));
        let mut args = vec![];
        let index = s.app(Op::ZExt(64), &[i]).unwrap();
        args.push(s.app(Op::ToInt, &[index]).unwrap());
        args.push(bv(&mut s, 8, 0));
        for k in 0..3u64 {
            args.push(s.constant(Value::Int(k as i128)));
            let step = bv(&mut s, 8, k);
            args.push(s.app(Op::Add, &[y, step]).unwrap());
        }
        let read = s.app(Op::Read, &args).unwrap();
        let (one, nine) = (bv(&mut s, 8, 1), bv(&mut s, 8, 9));
        let at = s.app(Op::Eq, &[i, one]).unwrap();
        let is = s.app(Op::Eq, &[read, nine]).unwrap();
        let lin = solve_linear(&s, &[at, is], &Model::default(), Limits::default());
        let sol = lin.solution.expect("solved by refinement");
        assert!(s.satisfies(&[at, is], &sol));
        assert_eq!(sol[&sym(&s, y)], Value::Bv { width: 8, bits: 8 });
    }

    #[test]
    fn shifts_and_truncations_read_exactly() {
        // The bytes of a word: (x >> 8) as a byte is 0x12, x as a byte 0x34,
        // and x >> 16 is 0.
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let (eight, sixteen) = (bv(&mut s, 32, 8), bv(&mut s, 32, 16));
        let high = s.app(Op::LShr, &[x, eight]).unwrap();
        let high = s.app(Op::Trunc(8), &[high]).unwrap();
        let low = s.app(Op::Trunc(8), &[x]).unwrap();
        let top = s.app(Op::LShr, &[x, sixteen]).unwrap();
        let (b12, b34, zero) = (bv(&mut s, 8, 0x12), bv(&mut s, 8, 0x34), bv(&mut s, 32, 0));
        let query = [
            s.app(Op::Eq, &[high, b12]).unwrap(),
            s.app(Op::Eq, &[low, b34]).unwrap(),
            s.app(Op::Eq, &[top, zero]).unwrap(),
        ];
        let lin = solve_linear(&s, &query, &Model::default(), Limits::default());
        let sol = lin.solution.expect("solved");
        assert_eq!(
            sol[&sym(&s, x)],
            Value::Bv {
                width: 32,
                bits: 0x1234
            }
        );
        // The low byte of a negative word: x < −1000 and x as a byte is 5.
        let (minus, five) = (bv(&mut s, 32, (-1000i32) as u32 as u64), bv(&mut s, 8, 5));
        let query = [
            s.app(Op::Lt, &[x, minus]).unwrap(),
            s.app(Op::Eq, &[low, five]).unwrap(),
        ];
        let lin = solve_linear(&s, &query, &Model::default(), Limits::default());
        let sol = lin.solution.expect("solved");
        assert!(s.satisfies(&query, &sol));
    }
}
