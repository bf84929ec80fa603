//! Unsat by intervals: each bit-vector term of a question gets a range of
//! integers its value lies in, computed from its operands' ranges and
//! narrowed by the question's comparisons with constants and between
//! terms; a term left with no value proves the question unsat.
//!
//! A range is a set of mathematical integers `[lo, hi]`, fewer than `2^w`
//! of them, such that the `w`-bit term's value is one of them modulo `2^w`.
//! Sums, differences, negations and products are then exact on ranges,
//! whatever they wrap to, as long as the result still has fewer than `2^w`
//! integers (else it is the whole width); an unsigned (or signed)
//! comparison reads a range as unsigned (signed) integers only when it
//! does not cross `2^w` (`2^(w−1)`) under that reading. Shifts, quotients
//! and remainders by constants, masks, extensions, truncations, `ite`s and
//! table reads get ranges that contain every value they can take.
//!
//! A decimal number read digit by digit (`v = 10·v + (c − '0')` with a
//! bound `v ≤ 65535` checked at every digit, as netpbm's and HTTP parsers
//! do) gives such chains: asked whether the number can be negative after
//! eleven digits, Z3 took 0.4-0.7 s a question (bench/muse/pgm.c under
//! dfs: 23 such calls, 7 s of a 10 s run); here each bound keeps the next
//! product within 32 bits and the question is refuted in microseconds.
//!
//! Sound: every range contains every value its term takes in any model of
//! the constraints used to narrow it, so an empty one refutes those
//! constraints, which are the core.

use braid_term::{Node, Op, Sort, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// Past this many terms under a question, nothing is claimed.
const MAX_NODES: usize = 1 << 14;
/// Rounds of narrowing: each recomputes the ranges from the narrowed ones.
const ROUNDS: usize = 6;
/// A table read with more entries than this is the whole width.
const MAX_ENTRIES: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lo: i128,
    hi: i128,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    Unsigned,
    Signed,
}

fn top(w: u32) -> Range {
    Range {
        lo: 0,
        hi: (1i128 << w) - 1,
    }
}

/// `r` if it has fewer than `2^w` integers, else the whole width.
fn fit(r: Range, w: u32) -> Range {
    if r.hi - r.lo < (1i128 << w) - 1 && r.lo > -(1i128 << 100) && r.hi < (1i128 << 100) {
        r
    } else {
        top(w)
    }
}

/// `r` under `reading`: shifted by a multiple of `2^w` into the reading's
/// span, if it fits there without crossing its end.
fn read(r: Range, w: u32, reading: Reading) -> Option<Range> {
    let m = 1i128 << w;
    let base = match reading {
        Reading::Unsigned => 0,
        Reading::Signed => -(m >> 1),
    };
    let k = (r.lo - base).div_euclid(m);
    let (lo, hi) = (r.lo - k * m, r.hi - k * m);
    (hi < base + m).then_some(Range { lo, hi })
}

/// The whole span of `reading`.
fn span(w: u32, reading: Reading) -> Range {
    match reading {
        Reading::Unsigned => top(w),
        Reading::Signed => Range {
            lo: -(1i128 << (w - 1)),
            hi: (1i128 << (w - 1)) - 1,
        },
    }
}

/// The values in both `a` and `b` (`None`: none), or one of them when
/// neither reading reads both (then the narrower, which holds them all).
fn meet(a: Range, b: Range, w: u32) -> Option<Range> {
    for reading in [Reading::Unsigned, Reading::Signed] {
        if let (Some(x), Some(y)) = (read(a, w, reading), read(b, w, reading)) {
            let r = Range {
                lo: x.lo.max(y.lo),
                hi: x.hi.min(y.hi),
            };
            return (r.lo <= r.hi).then_some(r);
        }
    }
    Some(if b.hi - b.lo < a.hi - a.lo { b } else { a })
}

fn width(store: &TermStore, t: TermId) -> Option<u32> {
    match store.sort(t) {
        Sort::Bv(w) if (1..=64).contains(&w) => Some(w as u32),
        _ => None,
    }
}

fn constant(store: &TermStore, t: TermId) -> Option<i128> {
    match store.as_const(t) {
        Some(Value::Bv { bits, .. }) => Some(bits as i128),
        _ => None,
    }
}

struct Intervals<'s> {
    store: &'s TermStore,
    /// Ranges narrowed by the constraints (what the forward computation
    /// meets), and this round's computed ranges.
    narrowed: FxHashMap<TermId, Range>,
    memo: FxHashMap<TermId, Range>,
    nodes: usize,
    /// The constraints that narrowed some range (the core, with the last).
    used: Vec<usize>,
    /// A narrowed range that its operands' ranges, narrowed too, miss: the
    /// constraints used so far contradict one another.
    contradiction: bool,
}

/// The outcome of narrowing a term.
enum Narrow {
    Same,
    Changed,
    Empty,
}

impl Intervals<'_> {
    /// `t`'s range (a bit-vector term of width at most 64); `None` once past
    /// the question's size bound.
    fn range(&mut self, t: TermId) -> Option<Range> {
        if let Some(r) = self.memo.get(&t) {
            return Some(*r);
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return None;
        }
        let w = width(self.store, t)?;
        let mut r = self.compute(t, w)?;
        if let Some(n) = self.narrowed.get(&t) {
            r = meet(r, *n, w).unwrap_or_else(|| {
                self.contradiction = true;
                *n
            });
        }
        self.memo.insert(t, r);
        Some(r)
    }

    /// A range of `t` of width `w` from its operands'.
    fn compute(&mut self, t: TermId, w: u32) -> Option<Range> {
        let store = self.store;
        let (op, args) = match store.node(t) {
            Node::Const(Value::Bv { bits, .. }) => {
                return Some(Range {
                    lo: *bits as i128,
                    hi: *bits as i128,
                })
            }
            Node::App(op, args) => (*op, args.clone()),
            _ => return Some(top(w)),
        };
        // An operand's range, or its value if it is a constant.
        let arg = |s: &mut Self, i: usize| -> Option<Range> { s.range(args[i]) };
        let k = |i: usize| constant(store, args[i]);
        let m = 1i128 << w;
        let r = match op {
            Op::Add | Op::Sub => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                match op {
                    Op::Add => fit(
                        Range {
                            lo: a.lo + b.lo,
                            hi: a.hi + b.hi,
                        },
                        w,
                    ),
                    _ => fit(
                        Range {
                            lo: a.lo - b.hi,
                            hi: a.hi - b.lo,
                        },
                        w,
                    ),
                }
            }
            Op::Neg => {
                let a = arg(self, 0)?;
                Range { lo: -a.hi, hi: -a.lo }
            }
            Op::Mul => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                // A constant's nearest representative keeps products small.
                let small = |r: Range| match (r.lo == r.hi, r.lo >= m / 2) {
                    (true, true) => Range {
                        lo: r.lo - m,
                        hi: r.hi - m,
                    },
                    _ => r,
                };
                let (a, b) = (small(a), small(b));
                let under = |r: Range| r.lo.abs().max(r.hi.abs()) < 1 << 63;
                if under(a) && under(b) {
                    let corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
                    let (lo, hi) = (corners.iter().min(), corners.iter().max());
                    fit(Range { lo: *lo?, hi: *hi? }, w)
                } else {
                    top(w)
                }
            }
            Op::Shl => match k(1) {
                Some(s) if s < w as i128 => {
                    let a = arg(self, 0)?;
                    match a.lo.abs().max(a.hi.abs()) < 1 << 64 {
                        true => fit(
                            Range {
                                lo: a.lo << s,
                                hi: a.hi << s,
                            },
                            w,
                        ),
                        false => top(w),
                    }
                }
                _ => top(w),
            },
            Op::LShr | Op::UDiv | Op::URem | Op::AShr => {
                let a = arg(self, 0)?;
                let ua = read(a, w, Reading::Unsigned).unwrap_or(top(w));
                match (op, k(1)) {
                    (Op::LShr, Some(s)) if s < w as i128 => Range {
                        lo: ua.lo >> s,
                        hi: ua.hi >> s,
                    },
                    (Op::UDiv, Some(c)) if c > 0 => Range {
                        lo: ua.lo / c,
                        hi: ua.hi / c,
                    },
                    (Op::URem, Some(c)) if c > 0 => match ua.lo / c == ua.hi / c {
                        true => Range {
                            lo: ua.lo % c,
                            hi: ua.hi % c,
                        },
                        false => Range {
                            lo: 0,
                            hi: c.min(m) - 1,
                        },
                    },
                    (Op::AShr, Some(s)) if s < w as i128 => {
                        let sa = read(a, w, Reading::Signed).unwrap_or(span(w, Reading::Signed));
                        Range {
                            lo: sa.lo >> s,
                            hi: sa.hi >> s,
                        }
                    }
                    // A shift by any amount only lowers; a quotient by a
                    // divisor that may be 0 is anything.
                    (Op::LShr, _) => Range { lo: 0, hi: ua.hi },
                    _ => top(w),
                }
            }
            Op::And | Op::Or | Op::Xor => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                let ua = read(a, w, Reading::Unsigned).unwrap_or(top(w));
                let ub = read(b, w, Reading::Unsigned).unwrap_or(top(w));
                // All ones up to the highest bit either can set.
                let ones = |x: i128| {
                    if x == 0 {
                        0
                    } else {
                        (1i128 << (128 - x.leading_zeros())) - 1
                    }
                };
                match op {
                    Op::And => Range {
                        lo: 0,
                        hi: ua.hi.min(ub.hi),
                    },
                    Op::Or => Range {
                        lo: ua.lo.max(ub.lo),
                        hi: (ua.hi + ub.hi).min(ones(ua.hi.max(ub.hi))).min(m - 1),
                    },
                    _ => Range {
                        lo: 0,
                        hi: ones(ua.hi.max(ub.hi)).min(m - 1),
                    },
                }
            }
            Op::ZExt(_) | Op::SExt(_) => {
                let aw = width(store, args[0])?;
                let a = arg(self, 0)?;
                let reading = if matches!(op, Op::ZExt(_)) {
                    Reading::Unsigned
                } else {
                    Reading::Signed
                };
                read(a, aw, reading).unwrap_or(span(aw, reading))
            }
            Op::Trunc(_) => {
                let a = arg(self, 0)?;
                fit(a, w)
            }
            Op::Ite => {
                let (a, b) = (self.range(args[1])?, self.range(args[2])?);
                hull(a, b, w)
            }
            Op::Read => {
                let values: Vec<TermId> = std::iter::once(args[1])
                    .chain(args[3..].iter().step_by(2).copied())
                    .collect();
                if values.len() > MAX_ENTRIES + 1 {
                    return Some(top(w));
                }
                let mut r: Option<Range> = None;
                for v in values {
                    let x = self.range(v)?;
                    r = Some(r.map_or(x, |r| hull(r, x, w)));
                }
                r.unwrap_or(top(w))
            }
            _ => top(w),
        };
        Some(r)
    }

    /// Narrows `t` to `to`: `Empty` if no value is left.
    fn narrow(&mut self, t: TermId, to: Range, w: u32) -> Option<Narrow> {
        let now = self.range(t)?;
        let Some(r) = meet(now, to, w) else {
            return Some(Narrow::Empty);
        };
        if same(r, now, w) {
            return Some(Narrow::Same);
        }
        self.narrowed.insert(t, r);
        self.memo.insert(t, r);
        // Through an extension, and a sum with a constant, to the operand.
        if let Node::App(op, args) = self.store.node(t) {
            let args = args.clone();
            match *op {
                Op::ZExt(_) | Op::SExt(_) => {
                    let aw = width(self.store, args[0])?;
                    let reading = if matches!(op, Op::ZExt(_)) {
                        Reading::Unsigned
                    } else {
                        Reading::Signed
                    };
                    if let Some(x) = read(r, w, reading) {
                        let x = Range {
                            lo: x.lo.max(span(aw, reading).lo),
                            hi: x.hi.min(span(aw, reading).hi),
                        };
                        if x.lo > x.hi {
                            return Some(Narrow::Empty);
                        }
                        if let Narrow::Empty = self.narrow(args[0], x, aw)? {
                            return Some(Narrow::Empty);
                        }
                    }
                }
                Op::Add | Op::Sub => {
                    let (c, x, sign) = match (constant(self.store, args[0]), constant(self.store, args[1])) {
                        (_, Some(c)) => (c, args[0], if *op == Op::Add { -1 } else { 1 }),
                        (Some(c), None) if *op == Op::Add => (c, args[1], -1),
                        _ => return Some(Narrow::Changed),
                    };
                    let shifted = Range {
                        lo: r.lo + sign * c,
                        hi: r.hi + sign * c,
                    };
                    if let Narrow::Empty = self.narrow(x, shifted, w)? {
                        return Some(Narrow::Empty);
                    }
                }
                _ => {}
            }
        }
        Some(Narrow::Changed)
    }

    /// Narrows by constraint `c` (held when `positive`, else its negation).
    fn constrain(&mut self, c: TermId, positive: bool) -> Option<Narrow> {
        let store = self.store;
        let Node::App(op, args) = store.node(c) else {
            return Some(Narrow::Same);
        };
        let op = *op;
        if op == Op::Not {
            return self.constrain(args[0], !positive);
        }
        if op == Op::And && positive && store.sort(c) == Sort::Bool {
            let mut out = Narrow::Same;
            for &a in args.iter() {
                match self.constrain(a, true)? {
                    Narrow::Empty => return Some(Narrow::Empty),
                    Narrow::Changed => out = Narrow::Changed,
                    Narrow::Same => {}
                }
            }
            return Some(out);
        }
        // `a rel b` as `a ≤ b + shift` (`rel` Le), `a = b` (Eq) or `a ≠ b` (Ne).
        let (a, b) = (args.first().copied(), args.get(1).copied());
        let (Some(a), Some(b)) = (a, b) else {
            return Some(Narrow::Same);
        };
        let Some(w) = width(store, a) else {
            return Some(Narrow::Same);
        };
        let reading = match op {
            Op::ULt | Op::ULe | Op::UGt | Op::UGe => Reading::Unsigned,
            _ => Reading::Signed,
        };
        // Normalised to `x ≤ y + d` (d ∈ {0, −1}), `x = y` or `x ≠ y`.
        enum Rel {
            Le(TermId, TermId, i128),
            Eq,
            Ne,
        }
        let rel = match (op, positive) {
            (Op::Lt | Op::ULt, true) | (Op::Ge | Op::UGe, false) => Rel::Le(a, b, -1),
            (Op::Le | Op::ULe, true) | (Op::Gt | Op::UGt, false) => Rel::Le(a, b, 0),
            (Op::Gt | Op::UGt, true) | (Op::Le | Op::ULe, false) => Rel::Le(b, a, -1),
            (Op::Ge | Op::UGe, true) | (Op::Lt | Op::ULt, false) => Rel::Le(b, a, 0),
            (Op::Eq, true) | (Op::Ne, false) => Rel::Eq,
            (Op::Eq, false) | (Op::Ne, true) => Rel::Ne,
            _ => return Some(Narrow::Same),
        };
        let (ra, rb) = (self.range(a)?, self.range(b)?);
        let mut out = Narrow::Same;
        let mut apply = |s: &mut Self, t: TermId, to: Range| -> Option<bool> {
            match s.narrow(t, to, w)? {
                Narrow::Empty => Some(false),
                Narrow::Changed => {
                    out = Narrow::Changed;
                    Some(true)
                }
                Narrow::Same => Some(true),
            }
        };
        match rel {
            Rel::Le(x, y, d) => {
                let s = span(w, reading);
                let (rx, ry) = if x == a { (ra, rb) } else { (rb, ra) };
                let rx = read(rx, w, reading).unwrap_or(s);
                let ry = read(ry, w, reading).unwrap_or(s);
                // x ≤ y.hi + d and y ≥ x.lo − d.
                if ry.hi + d < s.lo || rx.lo - d > s.hi {
                    return Some(Narrow::Empty);
                }
                let ok = apply(
                    self,
                    x,
                    Range {
                        lo: s.lo,
                        hi: ry.hi + d,
                    },
                )? && apply(
                    self,
                    y,
                    Range {
                        lo: rx.lo - d,
                        hi: s.hi,
                    },
                )?;
                if !ok {
                    return Some(Narrow::Empty);
                }
            }
            Rel::Eq => {
                let ok = apply(self, a, rb)? && apply(self, b, ra)?;
                if !ok {
                    return Some(Narrow::Empty);
                }
            }
            Rel::Ne => {
                // `t ≠ c` at an end of t's range moves that end.
                for (t, rt, other) in [(a, ra, b), (b, rb, a)] {
                    let Some(c) = constant(store, other) else { continue };
                    let Some(u) = read(rt, w, Reading::Unsigned) else {
                        continue;
                    };
                    let to = match (u.lo == c, u.hi == c) {
                        (true, true) => return Some(Narrow::Empty),
                        (true, false) => Range { lo: c + 1, hi: u.hi },
                        (false, true) => Range { lo: u.lo, hi: c - 1 },
                        _ => continue,
                    };
                    if !apply(self, t, to)? {
                        return Some(Narrow::Empty);
                    }
                }
            }
        }
        Some(out)
    }
}

/// Whether `a` and `b` are the same values.
fn same(a: Range, b: Range, w: u32) -> bool {
    let ua = read(a, w, Reading::Unsigned);
    match ua {
        Some(x) => ua == read(b, w, Reading::Unsigned) && x.lo <= x.hi,
        None => a.hi - a.lo == b.hi - b.lo && (a.lo - b.lo).rem_euclid(1 << w) == 0,
    }
}

/// The values of `a` and of `b` in one range (unsigned, else signed, else
/// the whole width).
fn hull(a: Range, b: Range, w: u32) -> Range {
    for reading in [Reading::Unsigned, Reading::Signed] {
        if let (Some(x), Some(y)) = (read(a, w, reading), read(b, w, reading)) {
            return Range {
                lo: x.lo.min(y.lo),
                hi: x.hi.max(y.hi),
            };
        }
    }
    top(w)
}

/// A core of `set` (its constraints that narrowed a range, and the one
/// that emptied one, in `set`'s order) if intervals refute it.
pub fn refutation(store: &TermStore, set: &[TermId]) -> Option<Vec<TermId>> {
    let mut iv = Intervals {
        store,
        narrowed: FxHashMap::default(),
        memo: FxHashMap::default(),
        nodes: 0,
        used: Vec::new(),
        contradiction: false,
    };
    let core = |mut used: Vec<usize>| {
        used.sort_unstable();
        used.dedup();
        Some(used.iter().map(|&i| set[i]).collect())
    };
    for _ in 0..ROUNDS {
        let mut changed = false;
        for (i, &c) in set.iter().enumerate() {
            let narrowed = iv.constrain(c, true)?;
            if iv.contradiction {
                return core(iv.used);
            }
            match narrowed {
                Narrow::Empty => {
                    iv.used.push(i);
                    return core(iv.used);
                }
                Narrow::Changed => {
                    changed = true;
                    iv.used.push(i);
                }
                Narrow::Same => {}
            }
        }
        if !changed {
            return None;
        }
        // Ranges computed before a narrowing below them are recomputed.
        iv.memo.clear();
        iv.nodes = 0;
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn bv(s: &mut TermStore, w: u8, bits: u64) -> TermId {
        s.constant(Value::Bv { width: w, bits })
    }

    /// pgm's digits: `v = 10·v + (c − '0')` over `n` digits, each `c` in
    /// '0'..'9' and every `v` at most 65535 (signed 32-bit compares).
    pub(crate) fn digits(s: &mut TermStore, n: usize) -> (Vec<TermId>, TermId) {
        let mut set = Vec::new();
        let (zero, ten, big) = (bv(s, 32, 0), bv(s, 32, 10), bv(s, 32, 65535));
        let (c0, c9) = (bv(s, 32, 0x30), bv(s, 32, 0x39));
        let mut v = zero;
        for i in 0..n {
            let c = s.symbol_term(&format!("c{i}"), Sort::Bv(8));
            let x = s.app(Op::ZExt(32), &[c]).unwrap();
            set.push(s.app(Op::Ge, &[x, c0]).unwrap());
            set.push(s.app(Op::Le, &[x, c9]).unwrap());
            let d = s.app(Op::Sub, &[x, c0]).unwrap();
            let tv = s.app(Op::Mul, &[v, ten]).unwrap();
            v = s.app(Op::Add, &[tv, d]).unwrap();
            set.push(s.app(Op::Le, &[v, big]).unwrap());
        }
        (set, v)
    }

    #[test]
    fn a_bounded_decimal_number_is_not_negative() {
        let mut s = TermStore::new();
        let (mut set, v) = digits(&mut s, 11);
        let zero = bv(&mut s, 32, 0);
        let negative = s.app(Op::Lt, &[v, zero]).unwrap();
        assert_eq!(refutation(&s, &set), None);
        set.push(negative);
        let core = refutation(&s, &set).expect("refuted");
        assert!(core.contains(&negative));
        // It may be 65535, and it may be 0: nothing refuted.
        for k in [65535u64, 0] {
            let mut set = set[..set.len() - 1].to_vec();
            let kk = bv(&mut s, 32, k);
            set.push(s.app(Op::Eq, &[v, kk]).unwrap());
            assert_eq!(refutation(&s, &set), None, "v = {k}");
        }
        // Without the bounds the products wrap: nothing is claimed.
        let (set, v) = digits(&mut s, 11);
        let mut unbounded: Vec<TermId> = set.iter().copied().filter(|c| !s.symbols(*c).is_empty()).collect();
        unbounded.retain(|c| !matches!(s.node(*c), Node::App(Op::Le, a) if s.as_const(a[1]) == Some(Value::Bv { width: 32, bits: 65535 })));
        unbounded.push(s.app(Op::Lt, &[v, zero]).unwrap());
        assert_eq!(refutation(&s, &unbounded), None);
    }

    #[test]
    fn wrapping_sums_and_unsigned_readings() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        // x + 200 over 8 bits with x ≥ 100 wraps: x + 200 < 60 is possible
        // (x = 100 gives 44), x + 200 ≥ 60 too, x + 200 == 43 not.
        let (k200, k100) = (bv(&mut s, 8, 200), bv(&mut s, 8, 100));
        let sum = s.app(Op::Add, &[x, k200]).unwrap();
        let low = s.app(Op::UGe, &[x, k100]).unwrap();
        let k60 = bv(&mut s, 8, 60);
        let k43 = bv(&mut s, 8, 43);
        let lt = s.app(Op::ULt, &[sum, k60]).unwrap();
        let ge = s.app(Op::UGe, &[sum, k60]).unwrap();
        let eq = s.app(Op::Eq, &[sum, k43]).unwrap();
        assert_eq!(refutation(&s, &[low, lt]), None);
        assert_eq!(refutation(&s, &[low, ge]), None);
        assert_eq!(refutation(&s, &[low, eq]), Some(vec![low, eq]));
        // x ≥ 100, x < y, y ≤ 100: two terms compared narrow each other.
        let y = s.symbol_term("y", Sort::Bv(8));
        let c = [
            low,
            s.app(Op::ULt, &[x, y]).unwrap(),
            s.app(Op::ULe, &[y, k100]).unwrap(),
        ];
        assert_eq!(refutation(&s, &c).map(|core| core.len()), Some(3));
        assert_eq!(refutation(&s, &c[1..]), None);
    }

    /// Random sets of comparisons over random arithmetic on three 4-bit
    /// symbols (sums, differences, products, shifts, quotients and
    /// remainders by constants, masks, extensions to 8 bits and
    /// truncations back, `ite`s), signed and unsigned: every core claimed
    /// has no model among all 4 096 assignments.
    #[test]
    fn every_core_is_unsat_by_enumeration() {
        use rand::Rng;
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut s = TermStore::new();
        let xs: Vec<TermId> = (0..3).map(|k| s.symbol_term(&format!("x{k}"), Sort::Bv(4))).collect();
        let ids: Vec<braid_term::SymId> = xs.iter().map(|x| s.symbols(*x)[0]).collect();
        let models: Vec<braid_term::Model> = (0..4096u64)
            .map(|n| (0..3).map(|k| (ids[k], Value::bv(4, (n >> (4 * k)) & 15))).collect())
            .collect();
        let mut refuted = 0;
        for _ in 0..4000 {
            let mut pool: [Vec<TermId>; 2] = [xs.clone(), Vec::new()];
            for w in [4u8, 8] {
                for _ in 0..2 {
                    let k = rng.gen_range(0..(1u64 << w));
                    pool[(w / 8) as usize].push(bv(&mut s, w, k));
                }
            }
            for _ in 0..rng.gen_range(2..8) {
                let side = rng.gen_range(0..2usize);
                let w = if side == 0 { 4u8 } else { 8 };
                let pick = |rng: &mut rand::rngs::SmallRng, p: &Vec<TermId>| p[rng.gen_range(0..p.len())];
                let a = pick(&mut rng, &pool[side]);
                let b = pick(&mut rng, &pool[side]);
                let k = bv(&mut s, w, rng.gen_range(1..w as u64));
                let t = match rng.gen_range(0..12) {
                    0 => s.app(Op::Add, &[a, b]),
                    1 => s.app(Op::Sub, &[a, b]),
                    2 => s.app(Op::Mul, &[a, b]),
                    3 => s.app(Op::Neg, &[a]),
                    4 => s.app(Op::Shl, &[a, k]),
                    5 => s.app(Op::LShr, &[a, if rng.gen_bool(0.5) { k } else { b }]),
                    6 => s.app(
                        [Op::UDiv, Op::URem, Op::AShr][rng.gen_range(0..3)],
                        &[a, if rng.gen_bool(0.7) { k } else { b }],
                    ),
                    7 => s.app([Op::And, Op::Or, Op::Xor][rng.gen_range(0..3)], &[a, b]),
                    8 if side == 0 => s.app([Op::ZExt(8), Op::SExt(8)][rng.gen_range(0..2)], &[a]),
                    8 => s.app(Op::Trunc(4), &[a]),
                    9 => {
                        let c = s.app(Op::ULt, &[a, b]).unwrap();
                        s.app(Op::Ite, &[c, a, b])
                    }
                    _ => s.app(Op::Add, &[a, k]),
                };
                // (A quotient of constants by zero is not a term.)
                let Ok(t) = t else { continue };
                let tw = if s.sort(t) == Sort::Bv(4) { 0 } else { 1 };
                pool[tw].push(t);
            }
            let mut set = Vec::new();
            for _ in 0..rng.gen_range(1..6) {
                let side = rng.gen_range(0..2usize);
                if pool[side].is_empty() {
                    continue;
                }
                let a = pool[side][rng.gen_range(0..pool[side].len())];
                let b = pool[side][rng.gen_range(0..pool[side].len())];
                let ops = Op::COMPARISONS;
                let mut c = s.app(ops[rng.gen_range(0..ops.len())], &[a, b]).unwrap();
                if rng.gen_bool(0.2) {
                    c = s.app(Op::Not, &[c]).unwrap();
                }
                set.push(c);
            }
            set.sort_unstable();
            set.dedup();
            if let Some(core) = refutation(&s, &set) {
                refuted += 1;
                assert!(core.iter().all(|c| set.contains(c)));
                let model = models.iter().find(|m| s.satisfies(&core, m));
                assert!(model.is_none(), "core {core:?} of {set:?} holds under {model:?}");
            }
        }
        // (195 of the 2 609 sets that have no model, when last counted.)
        assert!(refuted > 100, "{refuted} refuted");
    }
}
