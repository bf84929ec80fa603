//! Interval bounds on integer and bit-vector terms, from their shape alone:
//! what an engine uses to size the memory a symbolic offset can reach
//! (`zext(byte) * 4 + 1024` lies in `[1024, 2044]`) without asking a solver.

use crate::op::Op;
use crate::store::{Node, TermId, TermStore};
use crate::value::{Sort, Value};

/// `[lo, hi]`, inclusive.
type Range = (i128, i128);

/// The low `k` bits set.
fn low_mask(k: u32) -> u64 {
    if k >= 64 {
        u64::MAX
    } else {
        (1u64 << k) - 1
    }
}

impl TermStore {
    /// Bounds on the values `t` can take, as mathematical integers
    /// (bit-vectors read unsigned), or `None` if nothing is known: sound for
    /// every assignment of the symbols, not necessarily tight. Each term's
    /// bounds are made with it ([`TermStore::intern`]), from its operands'.
    pub fn value_range(&self, t: TermId) -> Option<Range> {
        let (lo, hi) = self.ranges[t.0 as usize];
        if lo <= hi {
            return Some((lo as i128, hi as i128));
        }
        match self.sort(t) {
            Sort::Bv(w) => Some((0, (1i128 << w) - 1)),
            _ => None,
        }
    }

    /// `t`'s bounds as kept with it: `(1, 0)` for none, and for a
    /// bit-vector's whole width (which [`TermStore::value_range`] makes
    /// again from the sort) or bounds past `i64`.
    pub(crate) fn packed_range(&self, t: TermId) -> (i64, i64) {
        let whole = match self.sort(t) {
            Sort::Bv(w) => Some((0, (1i128 << w) - 1)),
            _ => None,
        };
        match self.range_of(t) {
            Some(r) if Some(r) != whole => match (i64::try_from(r.0), i64::try_from(r.1)) {
                (Ok(lo), Ok(hi)) => (lo, hi),
                _ => (1, 0),
            },
            _ => (1, 0),
        }
    }

    /// Whether comparison `op` of `a` with `b` is decided by their bounds.
    pub(crate) fn decided_by_ranges(&self, op: Op, a: TermId, b: TermId) -> Option<bool> {
        if matches!(op, Op::Eq | Op::Ne) {
            let ((ka, ra), (kb, rb)) = (self.low_bits(a), self.low_bits(b));
            if (ra ^ rb) & low_mask(ka.min(kb)) != 0 {
                return Some(op == Op::Ne);
            }
        }
        let ((lo_a, hi_a), (lo_b, hi_b)) = (self.value_range(a)?, self.value_range(b)?);
        // Read signed, bounds on one side of a bit-vector's sign bit are
        // the same numbers (below it) or less 2^w (from it).
        let as_signed = |t: TermId, (lo, hi): Range| match self.sort(t) {
            Sort::Bv(w) if hi < 1i128 << (w - 1) => Some((lo, hi)),
            Sort::Bv(w) if lo >= 1i128 << (w - 1) => Some((lo - (1i128 << w), hi - (1i128 << w))),
            Sort::Bv(_) => None,
            _ => Some((lo, hi)),
        };
        let ((lo_a, hi_a), (lo_b, hi_b)) = if matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge) {
            (as_signed(a, (lo_a, hi_a))?, as_signed(b, (lo_b, hi_b))?)
        } else {
            ((lo_a, hi_a), (lo_b, hi_b))
        };
        // `x < y` (`x <= y` with `or_equal`) for every pair of values of the
        // two bounds, for none, or not known.
        let below = |(a0, a1): Range, (b0, b1): Range, or_equal: bool| {
            let k = i128::from(or_equal);
            if a1 < b0 + k {
                Some(true)
            } else if a0 >= b1 + k {
                Some(false)
            } else {
                None
            }
        };
        let (ra, rb) = ((lo_a, hi_a), (lo_b, hi_b));
        match op {
            Op::Lt | Op::ULt => below(ra, rb, false),
            Op::Le | Op::ULe => below(ra, rb, true),
            Op::Gt | Op::UGt => below(rb, ra, false),
            Op::Ge | Op::UGe => below(rb, ra, true),
            Op::Eq | Op::Ne => {
                let eq = if hi_a < lo_b || hi_b < lo_a {
                    Some(false)
                } else if lo_a == hi_a && lo_b == hi_b && lo_a == lo_b {
                    Some(true)
                } else {
                    None
                };
                eq.map(|e| e == (op == Op::Eq))
            }
            _ => None,
        }
    }

    /// A comparison of `a` with the constant `b` that cuts off one end of
    /// `a`'s bounds, as the equality (or disequality) with that end it is:
    /// `x <=u 0` is `x == 0`, `x >u 0` is `x != 0`, `x >= hi` is `x == hi`.
    /// So a program's `n == 0` and `0 < n` on one value are one predicate:
    /// as two, a merged guard kept `n != 0 ∧ n <=u 0` as a path, and each
    /// such pair the feasibility check cut out of it (its core) doubled the
    /// guard (picohttpparser's chunked decoder over 5 bytes: 3.5 million
    /// BDD nodes after ten cuts). `None`: not such a comparison.
    pub(crate) fn boundary_equality(&self, op: Op, a: TermId, b: TermId) -> Option<(Op, i128)> {
        let signed = matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge);
        if !signed && !matches!(op, Op::ULt | Op::ULe | Op::UGt | Op::UGe) {
            return None;
        }
        let (lo, hi, k) = match (self.sort(a), self.as_const(b)?) {
            (Sort::Int, Value::Int(k)) if signed => {
                let (lo, hi) = self.value_range(a)?;
                (lo, hi, k)
            }
            (Sort::Bv(w), Value::Bv { bits, .. }) => {
                let (lo, hi) = self.value_range(a)?;
                let (full, half) = ((1i128 << w) - 1, 1i128 << (w - 1));
                if !signed {
                    (lo, hi, bits as i128)
                } else if hi < half {
                    (lo, hi, i128::from(Value::bv_signed(w, bits)))
                } else if (lo, hi) == (0, full) {
                    (-half, half - 1, i128::from(Value::bv_signed(w, bits)))
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        if lo >= hi {
            return None;
        }
        // `a < k` as `a == lo` or `a != hi`, and the others alike.
        let (below, k) = match op {
            Op::Lt | Op::ULt => (true, k),
            Op::Le | Op::ULe => (true, k + 1),
            Op::Ge | Op::UGe => (false, k),
            _ => (false, k + 1),
        };
        let eq_if = |yes: bool| if yes { Op::Eq } else { Op::Ne };
        if k == lo + 1 {
            Some((eq_if(below), lo))
        } else if k == hi {
            Some((eq_if(!below), hi))
        } else {
            None
        }
    }

    /// `t`'s bounds from its operands' ([`TermStore::value_range`]).
    fn range_of(&self, t: TermId) -> Option<Range> {
        let full = match self.sort(t) {
            Sort::Bv(w) => Some((0, (1i128 << w) - 1)),
            Sort::Bool => Some((0, 1)),
            _ => None,
        };
        let (op, args) = match self.node(t) {
            Node::Const(Value::Int(k)) => return Some((*k, *k)),
            Node::Const(Value::Bv { bits, .. }) => return Some((*bits as i128, *bits as i128)),
            Node::Const(Value::Bool(b)) => return Some((*b as i128, *b as i128)),
            Node::Const(_) | Node::Sym(_) => return full,
            Node::App(op, args) => (op, args),
        };
        let r = |i: usize| self.value_range(args[i]);
        let konst = |i: usize| match self.as_const(args[i]) {
            Some(Value::Int(k)) => Some(k),
            Some(Value::Bv { bits, .. }) => Some(bits as i128),
            _ => None,
        };
        // A bit-vector result must fit its width, else it may have wrapped.
        let fits = |x: Option<Range>| match (x, full) {
            (Some((lo, hi)), Some((_, max))) if lo >= 0 && hi <= max => Some((lo, hi)),
            (Some(x), None) => Some(x),
            _ => full,
        };
        let int_or_bv = matches!(self.sort(t), Sort::Int | Sort::Bv(_));
        let found = match op {
            // Narrowing keeps a value that fits (`fits` checks); widening
            // with the sign keeps one whose sign bit is clear.
            Op::ZExt(_) | Op::Trunc(_) => r(0),
            Op::SExt(_) => match self.sort(args[0]) {
                Sort::Bv(w) => r(0).filter(|(_, hi)| *hi < 1i128 << (w - 1)),
                _ => None,
            },
            Op::ToInt => match self.sort(args[0]) {
                // Signed: the same number below the sign bit.
                Sort::Bv(w) => r(0).filter(|(_, hi)| *hi < 1i128 << (w - 1)),
                Sort::Bool => Some((0, 1)),
                _ => None,
            },
            Op::Add if int_or_bv => {
                let ((a, b), (c, d)) = (r(0)?, r(1)?);
                Some((a.checked_add(c)?, b.checked_add(d)?))
            }
            Op::Sub if self.sort(t) == Sort::Int => {
                let ((a, b), (c, d)) = (r(0)?, r(1)?);
                Some((a.checked_sub(d)?, b.checked_sub(c)?))
            }
            Op::Sub => {
                let ((a, b), (c, d)) = (r(0)?, r(1)?);
                (a >= d).then_some((a - d, b - c))
            }
            Op::Mul if int_or_bv => {
                let ((a, b), (c, d)) = (r(0)?, r(1)?);
                let products = [
                    a.checked_mul(c)?,
                    a.checked_mul(d)?,
                    b.checked_mul(c)?,
                    b.checked_mul(d)?,
                ];
                Some((*products.iter().min()?, *products.iter().max()?))
            }
            Op::Shl => {
                let (a, b) = r(0)?;
                let k = konst(1).filter(|k| (0..64).contains(k))?;
                Some((a.checked_mul(1 << k)?, b.checked_mul(1 << k)?))
            }
            // Signed division, remainder and shift of a non-negative value
            // by a positive constant act as unsigned ones.
            Op::Rem | Op::Div | Op::AShr if !self.non_negative(args[0], r(0)) || konst(1).is_none_or(|k| k <= 0) => {
                None
            }
            Op::Rem => {
                let (_, b) = r(0)?;
                Some((0, b.min(konst(1)? - 1)))
            }
            Op::Div => {
                let (a, b) = r(0)?;
                let k = konst(1)?;
                Some((a / k, b / k))
            }
            Op::LShr | Op::AShr => {
                let (a, b) = r(0)?;
                let k = konst(1).filter(|k| (0..64).contains(k))?;
                Some((a >> k, b >> k))
            }
            Op::And if int_or_bv => {
                let ((_, b), (_, d)) = (r(0)?, r(1)?);
                Some((0, b.min(d)))
            }
            Op::Or | Op::Xor if int_or_bv => {
                let ((a, b), (c, d)) = (r(0)?, r(1)?);
                let bits = 128 - b.max(d).max(0).leading_zeros();
                let low = if *op == Op::Or { a.max(c) } else { 0 };
                (a >= 0 && c >= 0 && bits < 127).then_some((low, (1i128 << bits) - 1))
            }
            Op::URem => {
                let (_, b) = r(0)?;
                let k = konst(1).filter(|k| *k > 0)?;
                Some((0, b.min(k - 1)))
            }
            Op::UDiv => {
                let (a, b) = r(0)?;
                let k = konst(1).filter(|k| *k > 0)?;
                Some((a / k, b / k))
            }
            Op::Ite => {
                let ((a, b), (c, d)) = (r(1)?, r(2)?);
                Some((a.min(c), b.max(d)))
            }
            Op::Read => args[1..].iter().enumerate().filter(|(i, _)| i % 2 == 0).try_fold(
                (i128::MAX, i128::MIN),
                |(lo, hi), (_, v)| {
                    let (a, b) = self.value_range(*v)?;
                    Some((lo.min(a), hi.max(b)))
                },
            ),
            _ => None,
        };
        fits(found)
    }

    /// The low bits of `t` known from its shape: `(k, r)` when every value
    /// of `t` is `r` modulo `2^k` (bit-vectors read unsigned, `k` at most
    /// their width and 63). An address `base + (i & 3) * 4` is a multiple of
    /// 4: it is never `base + 1`.
    pub fn low_bits(&self, t: TermId) -> (u32, u64) {
        let packed = self.low[t.0 as usize];
        let k = 63 - packed.leading_zeros();
        (k, packed & !(1u64 << k))
    }

    /// `t`'s known low bits from its operands' ([`TermStore::low_bits`]),
    /// packed as `2^k | r`.
    pub(crate) fn packed_low_bits(&self, t: TermId) -> u64 {
        let (k, r) = self.low_bits_of(t);
        let k = k.min(63);
        (1u64 << k) | (r & low_mask(k))
    }

    fn low_bits_of(&self, t: TermId) -> (u32, u64) {
        let width = match self.sort(t) {
            Sort::Bv(w) => w as u32,
            Sort::Int => 63,
            _ => return (0, 0),
        };
        let (op, args) = match self.node(t) {
            Node::Const(Value::Int(k)) => return (63, *k as u64),
            Node::Const(Value::Bv { bits, .. }) => return (width.min(63), *bits),
            Node::Const(_) | Node::Sym(_) => return (0, 0),
            Node::App(op, args) => (op, args),
        };
        let lb = |i: usize| self.low_bits(args[i]);
        let shift = |i: usize| match self.as_const(args[i]) {
            Some(Value::Bv { bits, .. }) if bits < width as u64 => Some(bits as u32),
            _ => None,
        };
        // Known bits below the first unknown one: `known` has a 1 where a
        // bit is known; `ones` where it is known to be 1.
        let bits = |(k, r): (u32, u64)| (low_mask(k), r & low_mask(k));
        let from_known = |known: u64, ones: u64| {
            let k = known.trailing_ones();
            (k, ones & low_mask(k))
        };
        let found = match op {
            Op::Add | Op::Sub => {
                let ((k0, r0), (k1, r1)) = (lb(0), lb(1));
                let r = if *op == Op::Add {
                    r0.wrapping_add(r1)
                } else {
                    r0.wrapping_sub(r1)
                };
                (k0.min(k1), r)
            }
            Op::Neg => {
                let (k0, r0) = lb(0);
                (k0, r0.wrapping_neg())
            }
            Op::Mul => {
                let ((k0, r0), (k1, r1)) = (lb(0), lb(1));
                // A product of multiples of 2^a and 2^b is one of 2^(a+b).
                let zeros = |k: u32, r: u64| k.min(r.trailing_zeros());
                let z = zeros(k0, r0) + zeros(k1, r1);
                if z > k0.min(k1) {
                    (z, 0)
                } else {
                    (k0.min(k1), r0.wrapping_mul(r1))
                }
            }
            Op::Shl => match shift(1) {
                Some(c) => {
                    let (k0, r0) = lb(0);
                    (k0 + c, r0 << c)
                }
                None => (0, 0),
            },
            Op::LShr => match shift(1) {
                Some(c) => {
                    let (k0, r0) = lb(0);
                    (k0.saturating_sub(c), r0 >> c)
                }
                None => (0, 0),
            },
            Op::And | Op::Or | Op::Xor if self.sort(t) != Sort::Int => {
                let ((known0, ones0), (known1, ones1)) = (bits(lb(0)), bits(lb(1)));
                let (zeros0, zeros1) = (known0 & !ones0, known1 & !ones1);
                match op {
                    Op::And => from_known((known0 & known1) | zeros0 | zeros1, ones0 & ones1),
                    Op::Or => from_known((known0 & known1) | ones0 | ones1, ones0 | ones1),
                    _ => from_known(known0 & known1, ones0 ^ ones1),
                }
            }
            // Widening, narrowing and reading signed keep the low bits.
            Op::ZExt(_) | Op::SExt(_) | Op::Trunc(_) | Op::ToInt => lb(0),
            Op::ToBv(_) if self.sort(args[0]) == Sort::Int => lb(0),
            Op::Ite => {
                let ((k1, r1), (k2, r2)) = (lb(1), lb(2));
                (k1.min(k2).min((r1 ^ r2).trailing_zeros()), r1)
            }
            _ => (0, 0),
        };
        let k = found.0.min(width);
        (k, found.1 & low_mask(k))
    }

    /// Whether `t` (bounded by `range`) is non-negative read signed.
    fn non_negative(&self, t: TermId, range: Option<Range>) -> bool {
        match (self.sort(t), range) {
            (Sort::Bv(w), Some((lo, hi))) => lo >= 0 && hi < 1i128 << (w - 1),
            (Sort::Int, Some((lo, _))) => lo >= 0,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_of_table_lookups_are_bounded() {
        let mut s = TermStore::default();
        let byte = s.symbol_term("c", Sort::Bv(8));
        let wide = s.app(Op::ZExt(32), &[byte]).unwrap();
        let four = s.constant(Value::bv(32, 4));
        let scaled = s.app(Op::Mul, &[wide, four]).unwrap();
        let at = s.app(Op::ZExt(64), &[scaled]).unwrap();
        let off = s.app(Op::ToInt, &[at]).unwrap();
        let base = s.constant(Value::Int(1024));
        let addr = s.app(Op::Add, &[off, base]).unwrap();
        assert_eq!(s.value_range(addr), Some((1024, 1024 + 255 * 4)));
        let mask = s.constant(Value::bv(32, 15));
        let x = s.symbol_term("x", Sort::Bv(32));
        let low = s.app(Op::And, &[x, mask]).unwrap();
        assert_eq!(s.value_range(low), Some((0, 15)));
        // Narrowing a 64-bit value that fits keeps it; one that may not, not.
        let wide64 = s.app(Op::ZExt(64), &[low]).unwrap();
        let narrow = s.app(Op::Trunc(32), &[wide64]).unwrap();
        assert_eq!(s.value_range(narrow), Some((0, 15)));
        let y = s.symbol_term("y", Sort::Bv(64));
        let cut = s.app(Op::Trunc(32), &[y]).unwrap();
        assert_eq!(s.value_range(cut), Some((0, u32::MAX as i128)));
        // A 32-bit sum may wrap: nothing better than the full range.
        let sum = s.app(Op::Add, &[x, wide]).unwrap();
        assert_eq!(s.value_range(sum), Some((0, u32::MAX as i128)));
        let signed = s.app(Op::ToInt, &[x]).unwrap();
        assert_eq!(s.value_range(signed), None);
        // `(int)byte % 200`, signed, of a non-negative value.
        let k = s.constant(Value::bv(32, 200));
        let rem = s.app(Op::Rem, &[wide, k]).unwrap();
        assert_eq!(s.value_range(rem), Some((0, 199)));
        let rem = s.app(Op::Rem, &[x, k]).unwrap();
        assert_eq!(s.value_range(rem), Some((0, u32::MAX as i128)));
    }

    /// `op(a, b)` folded to a truth value, if it was.
    fn folded(s: &mut TermStore, op: Op, a: TermId, b: TermId) -> Option<bool> {
        let t = s.app(op, &[a, b]).unwrap();
        match s.as_const(t) {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        }
    }

    #[test]
    fn comparisons_their_bounds_decide_fold() {
        let mut s = TermStore::default();
        let x = s.symbol_term("x", Sort::Bv(32));
        let [three, two, base, limit, k421, k424] =
            [3u64, 2, 0x420, 0x1fffc, 0x421, 0x424].map(|v| s.constant(Value::bv(32, v)));
        // `0x420 + (x & 3) << 2` lies in [0x420, 0x42c] and is a multiple of 4.
        let low = s.app(Op::And, &[x, three]).unwrap();
        let scaled = s.app(Op::Shl, &[low, two]).unwrap();
        let addr = s.app(Op::Add, &[base, scaled]).unwrap();
        assert_eq!(s.value_range(addr), Some((0x420, 0x42c)));
        assert_eq!(s.low_bits(addr), (2, 0));
        assert_eq!(folded(&mut s, Op::ULe, addr, limit), Some(true));
        assert_eq!(folded(&mut s, Op::UGt, addr, limit), Some(false));
        assert_eq!(folded(&mut s, Op::Eq, addr, k421), Some(false));
        assert_eq!(folded(&mut s, Op::Ne, addr, k421), Some(true));
        // A value it can take stays a question.
        assert_eq!(folded(&mut s, Op::Eq, addr, k424), None);
        // Signed: decided only where both sides are below the sign bit.
        assert_eq!(folded(&mut s, Op::Lt, addr, limit), Some(true));
        let minus = s.constant(Value::bv(32, u32::MAX as u64));
        assert_eq!(folded(&mut s, Op::Lt, minus, addr), Some(true), "-1 < addr read signed");
        let y = s.symbol_term("y", Sort::Bv(32));
        assert_eq!(folded(&mut s, Op::Lt, y, limit), None);
        // Every value of x satisfies the folded answers.
        let sym = match s.node(x) {
            Node::Sym(v) => *v,
            _ => unreachable!(),
        };
        for v in [0u64, 1, 2, 3, 7, 0xffff_ffff] {
            let mut m = crate::Model::default();
            m.insert(sym, Value::bv(32, v));
            let Ok(Value::Bv { bits, .. }) = s.eval(addr, &m) else {
                panic!()
            };
            assert!((0x420..=0x42c).contains(&bits) && bits % 4 == 0);
        }
    }

    /// A comparison that cuts one end off a value's bounds is the equality
    /// with that end (or its negation), the same term a program's `n == 0`
    /// makes; every value of the operands agrees with the original.
    #[test]
    fn comparisons_at_an_end_of_the_bounds_are_equalities() {
        let mut s = TermStore::default();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(8));
        let three = s.constant(Value::bv(8, 3));
        let masked = s.app(Op::And, &[y, three]).unwrap();
        let eq = |s: &mut TermStore, op: Op, a: TermId, v: u64| {
            let k = s.constant(Value::bv(8, v));
            s.app(op, &[a, k]).unwrap()
        };
        let cases = [
            (Op::ULe, x, 0, Op::Eq, 0),
            (Op::UGt, x, 0, Op::Ne, 0),
            (Op::ULt, x, 1, Op::Eq, 0),
            (Op::UGe, x, 1, Op::Ne, 0),
            (Op::UGe, x, 255, Op::Eq, 255),
            (Op::ULt, x, 255, Op::Ne, 255),
            (Op::Le, x, 0x80, Op::Eq, 0x80),
            (Op::Gt, x, 0x7e, Op::Eq, 0x7f),
            // `y & 3` lies in [0, 3].
            (Op::UGe, masked, 3, Op::Eq, 3),
            (Op::ULe, masked, 2, Op::Ne, 3),
        ];
        for (op, a, k, want_op, want_k) in cases {
            let got = eq(&mut s, op, a, k);
            let want = eq(&mut s, want_op, a, want_k);
            assert_eq!(got, want, "{op:?} {k}: {}", s.display(got));
            for v in 0..256u64 {
                let mut m = crate::Model::default();
                for (i, sym) in [x, y].iter().enumerate() {
                    let Node::Sym(id) = s.node(*sym) else { unreachable!() };
                    m.insert(*id, Value::bv(8, v ^ i as u64));
                }
                let va = s.eval(a, &m).unwrap();
                let plain = crate::op::eval_op(op, &[va, Value::bv(8, k)]).ok();
                assert_eq!(s.eval(got, &m).ok(), plain, "{op:?} {k} at {v}");
            }
        }
        // Inside the bounds, a comparison stays one.
        let mid = eq(&mut s, Op::ULt, x, 7);
        assert!(matches!(s.node(mid), Node::App(Op::ULt, _)));
    }

    #[test]
    fn equalities_are_solved_for_the_index_and_widths_undone() {
        let mut s = TermStore::default();
        let x = s.symbol_term("x", Sort::Bv(32));
        let [three, two, fifteen, base, k] = [3u64, 2, 15, 0x800640, 0x800648].map(|v| s.constant(Value::bv(32, v)));
        let low = s.app(Op::And, &[x, three]).unwrap();
        // `(x & 3) & 15` and `zext(trunc(x & 3))` are `x & 3`.
        assert_eq!(s.app(Op::And, &[low, fifteen]).unwrap(), low);
        let byte = s.app(Op::Trunc(8), &[low]).unwrap();
        assert_eq!(s.app(Op::ZExt(32), &[byte]).unwrap(), low);
        assert_eq!(s.app(Op::SExt(32), &[byte]).unwrap(), low);
        let whole = s.app(Op::Trunc(8), &[x]).unwrap();
        let widened = s.app(Op::ZExt(32), &[whole]).unwrap();
        assert_ne!(widened, x, "x's high bits are not known to be 0");
        // `base + (x & 3) << 2 == base + 8` is `(x & 3) == 2`.
        let scaled = s.app(Op::Shl, &[low, two]).unwrap();
        let addr = s.app(Op::Add, &[base, scaled]).unwrap();
        let at = s.app(Op::Eq, &[addr, k]).unwrap();
        let want = s.app(Op::Eq, &[low, two]).unwrap();
        assert_eq!(at, want);
        // As a memory offset, the address is the index's bits plus the base.
        let wide = s.app(Op::ZExt(64), &[addr]).unwrap();
        let off = s.app(Op::ToInt, &[wide]).unwrap();
        assert_eq!(s.unsigned_int(off), Some((scaled, 0x800640)));
        let unbounded = s.app(Op::Add, &[base, x]).unwrap();
        let wide = s.app(Op::ZExt(64), &[unbounded]).unwrap();
        let off = s.app(Op::ToInt, &[wide]).unwrap();
        assert_eq!(s.unsigned_int(off), Some((unbounded, 0)), "x + base may wrap");
        // A shift's dropped bits: x << 4 == 8 never holds; x << 1 == 8 may
        // wrap, so it stays as it is.
        let four = s.constant(Value::bv(32, 4));
        let one = s.constant(Value::bv(32, 1));
        let eight = s.constant(Value::bv(32, 8));
        let shifted = s.app(Op::Shl, &[x, four]).unwrap();
        assert_eq!(folded(&mut s, Op::Eq, shifted, eight), Some(false));
        let doubled = s.app(Op::Shl, &[x, one]).unwrap();
        let kept = s.app(Op::Eq, &[doubled, eight]).unwrap();
        assert!(matches!(s.node(kept), Node::App(Op::Eq, a) if a[0] == doubled));
        // Every rewrite agrees with the original meaning at sample values.
        let sym = match s.node(x) {
            Node::Sym(v) => *v,
            _ => unreachable!(),
        };
        let minus = s.app(Op::Sub, &[x, eight]).unwrap();
        let sub_eq = s.app(Op::Eq, &[minus, three]).unwrap();
        let xored = s.app(Op::Xor, &[x, fifteen]).unwrap();
        let xor_eq = s.app(Op::Ne, &[xored, two]).unwrap();
        for v in [0u64, 2, 3, 6, 11, 13, 0x8000_0002, 0xffff_fffe] {
            let mut m = crate::Model::default();
            m.insert(sym, Value::bv(32, v));
            let holds = |t: TermId| s.eval(t, &m) == Ok(Value::Bool(true));
            assert_eq!(holds(at), v & 3 == 2);
            assert_eq!(holds(kept), (v << 1) as u32 == 8);
            assert_eq!(holds(sub_eq), (v as u32).wrapping_sub(8) == 3);
            assert_eq!(holds(xor_eq), (v ^ 15) != 2);
        }
    }

    #[test]
    fn low_bits_follow_arithmetic() {
        let mut s = TermStore::default();
        let x = s.symbol_term("x", Sort::Bv(32));
        let y = s.symbol_term("y", Sort::Bv(32));
        let [eight, one, mask] = [8u64, 1, 0xffff_fff0].map(|v| s.constant(Value::bv(32, v)));
        let x8 = s.app(Op::Mul, &[x, eight]).unwrap();
        assert_eq!(s.low_bits(x8), (3, 0));
        let odd = s.app(Op::Add, &[x8, one]).unwrap();
        assert_eq!(s.low_bits(odd), (3, 1));
        let masked = s.app(Op::And, &[y, mask]).unwrap();
        assert_eq!(s.low_bits(masked), (4, 0));
        let c = s.symbol_term("c", Sort::Bool);
        let either = s.app(Op::Ite, &[c, x8, masked]).unwrap();
        assert_eq!(s.low_bits(either), (3, 0));
        let ored = s.app(Op::Or, &[x8, one]).unwrap();
        assert_eq!(s.low_bits(ored), (3, 1));
        // An odd value is never an even one.
        assert_eq!(folded(&mut s, Op::Eq, odd, x8), Some(false));
        let wide = s.app(Op::ZExt(64), &[odd]).unwrap();
        assert_eq!(s.low_bits(wide), (3, 1));
        assert_eq!(s.low_bits(x), (0, 0));
    }

    #[test]
    fn reads_drop_keys_their_index_cannot_equal() {
        let mut s = TermStore::default();
        let x = s.symbol_term("x", Sort::Bv(32));
        let [three, two] = [3u64, 2].map(|v| s.constant(Value::bv(32, v)));
        let low = s.app(Op::And, &[x, three]).unwrap();
        let at = s.app(Op::Shl, &[low, two]).unwrap();
        let at = s.app(Op::ToInt, &[at]).unwrap();
        let [k0, k1, k4, k20] = [0, 1, 4, 20].map(|v| s.constant(Value::Int(v)));
        let [v0, v1, v4, v20] = [5u64, 6, 7, 8].map(|v| s.constant(Value::bv(8, v)));
        let dflt = s.constant(Value::bv(8, 0));
        let read = s.app(Op::Read, &[at, dflt, k0, v0, k1, v1, k4, v4, k20, v20]).unwrap();
        match s.node(read) {
            Node::App(Op::Read, args) => assert_eq!(&args[2..], &[k0, v0, k4, v4]),
            other => panic!("not a read: {other:?}"),
        }
    }

    #[test]
    fn reads_pick_the_value_at_their_index() {
        let mut s = TermStore::default();
        let i = s.symbol_term("i", Sort::Int);
        let [zero, seven, k5] = [0u64, 7, 5].map(|v| s.constant(Value::bv(8, v)));
        let [three, five] = [3, 5].map(|k| s.constant(Value::Int(k)));
        let read = s.app(Op::Read, &[i, zero, three, seven, five, k5]).unwrap();
        assert_eq!(s.sort(read), Sort::Bv(8));
        assert_eq!(s.value_range(read), Some((0, 7)));
        let mut m = crate::Model::default();
        let sym = match s.node(i) {
            Node::Sym(x) => *x,
            _ => unreachable!(),
        };
        for (k, want) in [(3, 7), (5, 5), (4, 0), (-1, 0)] {
            m.insert(sym, Value::Int(k));
            assert_eq!(s.eval(read, &m), Ok(Value::bv(8, want)));
        }
        // A known index picks at once.
        let at = s.app(Op::Read, &[three, zero, three, seven, five, k5]).unwrap();
        assert_eq!(at, seven);
    }
}
