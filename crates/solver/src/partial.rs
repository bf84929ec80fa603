//! MuSE's partial solutions for linear arithmetic (seed 002, §3.2): the
//! linear part of a conjunction of terms, read as integer constraints, is
//! solved by the general simplex ([`crate::simplex`]); the assignments it
//! passes through on the way are partial solutions, each a model to run.
//!
//! Machine integers are read as the paper does for them: as mathematical
//! integers (a bit-vector symbol of width `w` ranges over `[−2^(w−1), 2^w)`,
//! so that signed and unsigned readings both fit, and its value wraps back
//! on the way out); extensions and truncations are the identity; a product
//! with a constant, and a shift left by one, scale. Everything else that is
//! not linear (products of symbols, bit operations, loads, floats) becomes an
//! opaque variable, and a constraint that is not a conjunction of linear
//! comparisons (a disjunction, a disequality, a Bool input) is left out.
//! This is a relaxation, and not even a sound one under wrap-around: partial
//! solutions are only inputs to run, and the final assignment counts as a
//! solution only after the caller has evaluated the whole query under it.

use crate::simplex::{self, Constraint, Limits, Outcome, Rel};
use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// What the simplex found on a query's linear part.
#[derive(Clone, Debug, Default)]
pub struct Linear {
    /// The final assignment when the linear part is satisfiable: a
    /// candidate solution of the whole query.
    pub solution: Option<Model>,
    /// Assignments before each pivot, distinct, in the order visited.
    pub partials: Vec<Model>,
    /// Whether the linear part alone is unsatisfiable over the integers.
    pub unsat: bool,
    /// Constraints of the query with a linear reading, and pivots made.
    pub linear_constraints: usize,
    pub pivots: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Sym(SymId),
    Opaque(TermId),
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

struct Linearizer<'s> {
    store: &'s TermStore,
    vars: Vec<Key>,
    index: FxHashMap<Key, usize>,
    bounds: Vec<(Option<i128>, Option<i128>)>,
    constraints: Vec<Constraint>,
    /// Bit-vector constants compared directly read as unsigned (under an
    /// unsigned comparison); else, and in arithmetic, as signed.
    unsigned: bool,
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
                    Op::ZExt(_) | Op::SExt(_) | Op::Trunc(_) | Op::ToInt | Op::ToBv(_) => sub(self, 0),
                    // `(e << k) >> k` and `e & (2^k − 1)`: extending or
                    // truncating the low bits, read as `e`.
                    Op::AShr | Op::LShr => match (self.store.node(args[0]).clone(), konst(self, 1)) {
                        (Node::App(Op::Shl, inner), Some(k)) if matches!(self.store.as_const(inner[1]), Some(Value::Bv { bits, .. }) if bits as i128 == k) => {
                            self.linear(inner[0], depth + 1)
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
    fn bit_range(&self, t: TermId, depth: u32) -> (u32, u32) {
        let full = match self.store.sort(t) {
            Sort::Bv(w) => w as u32,
            _ => 128,
        };
        if depth > 16 {
            return (0, full);
        }
        let node = self.store.node(t);
        match node {
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
            _ => (0, full),
        }
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
                            let mut coeffs: Vec<(usize, i128)> = side.coeffs.iter().map(|(x, a)| (*x, *a)).collect();
                            coeffs.sort_unstable();
                            self.constraints.push(Constraint {
                                coeffs,
                                rel: Rel::Ge,
                                bound: -side.constant,
                            });
                        }
                    }
                }
                let Some(d) = l.plus(r, -1) else { return };
                if d.coeffs.is_empty() {
                    return;
                }
                let Some(bound) = (bound as i128).checked_sub(d.constant) else {
                    return;
                };
                let mut coeffs: Vec<(usize, i128)> = d.coeffs.into_iter().collect();
                coeffs.sort_unstable();
                self.constraints.push(Constraint { coeffs, rel, bound });
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

/// Solves the linear part of `constraints` (all must hold) from the
/// all-zero assignment, with its partial solutions.
pub fn solve_linear(store: &TermStore, constraints: &[TermId], limits: Limits) -> Linear {
    let mut lz = Linearizer {
        store,
        vars: Vec::new(),
        index: FxHashMap::default(),
        bounds: Vec::new(),
        constraints: Vec::new(),
        unsigned: false,
    };
    for &c in constraints {
        lz.atom(c, true, 0);
    }
    if lz.constraints.is_empty() {
        return Linear::default();
    }
    let solved = simplex::solve(lz.vars.len(), &lz.constraints, &lz.bounds, limits);
    let model = |values: &[i128]| -> Model {
        lz.vars
            .iter()
            .zip(values)
            .filter_map(|(k, v)| match k {
                Key::Sym(s) => Some((*s, value_of(store.symbol(*s).sort, *v))),
                Key::Opaque(_) => None,
            })
            .collect()
    };
    let mut partials: Vec<Model> = Vec::new();
    for p in &solved.partials {
        let m = model(p);
        if !partials.contains(&m) {
            partials.push(m);
        }
    }
    Linear {
        solution: match &solved.outcome {
            Outcome::Sat(v) => Some(model(v)),
            _ => None,
        },
        unsat: solved.outcome == Outcome::Unsat,
        partials,
        linear_constraints: lz.constraints.len(),
        pivots: solved.pivots,
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
        let lin = solve_linear(&s, &[c1, c2, c3], Limits::default());
        let sol = lin.solution.expect("sat");
        assert!(s.satisfies(&[c1, c2, c3], &sol));
        assert_eq!(lin.partials.len(), 2);
        // (0, 0) breaks the first constraint; (2, 0) the second.
        assert!(!s.satisfies(&[c1], &lin.partials[0]));
        assert!(s.satisfies(&[c1], &lin.partials[1]) && !s.satisfies(&[c2], &lin.partials[1]));
    }
}
