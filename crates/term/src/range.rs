//! Interval bounds on integer and bit-vector terms, from their shape alone:
//! what an engine uses to size the memory a symbolic offset can reach
//! (`zext(byte) * 4 + 1024` lies in `[1024, 2044]`) without asking a solver.

use crate::op::Op;
use crate::store::{Node, TermId, TermStore};
use crate::value::{Sort, Value};
use rustc_hash::FxHashMap;

/// `[lo, hi]`, inclusive.
type Range = (i128, i128);

impl TermStore {
    /// Bounds on the values `t` can take, as mathematical integers
    /// (bit-vectors read unsigned), or `None` if nothing is known: sound for
    /// every assignment of the symbols, not necessarily tight.
    pub fn value_range(&self, t: TermId) -> Option<Range> {
        let mut memo: FxHashMap<TermId, Option<Range>> = FxHashMap::default();
        for u in self.postorder(&[t]) {
            let r = self.range_of(u, &memo);
            memo.insert(u, r);
        }
        memo[&t]
    }

    fn range_of(&self, t: TermId, memo: &FxHashMap<TermId, Option<Range>>) -> Option<Range> {
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
        let r = |i: usize| memo[&args[i]];
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
                    let (a, b) = memo[v]?;
                    Some((lo.min(a), hi.max(b)))
                },
            ),
            _ => None,
        };
        fits(found)
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
