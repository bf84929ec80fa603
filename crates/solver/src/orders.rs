//! Questions that only compare wide symbols, decided over their orderings.
//!
//! A sort's or a search tree's keys are compared to one another and to a
//! few constants, and a merged state's values are `ite`s over such
//! comparisons. Whether a set of those holds depends only on how the
//! symbols order among themselves and the constants, so searching the
//! orderings decides it ([`check`]), however wide the symbols are:
//!
//! - the symbols are placed one at a time, each tied with a block of the
//!   ordering so far (a constant's, or other symbols') or in a new block
//!   between two, so every ordering with ties is reached once;
//! - each placement gives the blocks values that keep their order (the
//!   constants' own, consecutive values next to them), or is cut when a
//!   gap between two constants has too few values for its blocks;
//! - a constraint that is already false under the symbols placed
//!   ([`Compiled::partial`], Kleene's three values) cuts the branch. The
//!   constraints that cut form the unsat core.
//!
//! A set that compares signed and unsigned alike is searched under the
//! signed order for a model only: an ordering's values then cover no
//! negative numbers, so that no ordering satisfies the set proves nothing.
//!
//! On bench/multise, ssm's, dsm's and multise's merged questions over a
//! priority queue, a red-black tree, a binary search tree and heap sort
//! went to Z3 before, and Z3's context alone touches 17 MB, as much as
//! dse's whole run (15-17 MB).

use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// The most symbols searched.
pub const MAX_SYMBOLS: usize = 64;

/// The most node evaluations a search may cost (one pass over the set's
/// nodes per placement): 8 M took 10-20 ms.
pub const MAX_WORK: u64 = 1 << 23;

pub use crate::enumerate::Found;

/// One node of the set over bits: a Boolean is 0 or 1, a bit-vector its
/// bits; arguments are indices of earlier nodes.
enum Step {
    Const(u64),
    Sym(usize),
    App(Op, [u32; 3]),
}

/// The set compiled for evaluation under partial placements.
struct Compiled {
    steps: Vec<Step>,
    /// Each constraint's node.
    roots: Vec<usize>,
    vals: Vec<u64>,
    /// Which of `vals` the symbols placed decide.
    known: Vec<bool>,
    /// 64 less the bit-vectors' width (signed comparisons sign-extend).
    shift: u32,
}

impl Compiled {
    /// `x op y` for a binary operation of a set that only compares.
    fn binary(op: Op, x: u64, y: u64, shift: u32) -> u64 {
        let (sx, sy) = ((x << shift) as i64, (y << shift) as i64);
        (match op {
            Op::And => return x & y,
            Op::Or => return x | y,
            Op::Xor => return x ^ y,
            Op::Eq => x == y,
            Op::Ne => x != y,
            Op::Lt => sx < sy,
            Op::Le => sx <= sy,
            Op::Gt => sx > sy,
            Op::Ge => sx >= sy,
            Op::ULt => x < y,
            Op::ULe => x <= y,
            Op::UGt => x > y,
            Op::UGe => x >= y,
            _ => unreachable!("a set that only compares"),
        }) as u64
    }

    /// Every node's value where the symbols placed (`place`: bits) decide
    /// it: `and` is false where one side is, `or` true where one side is,
    /// an `ite` known where its condition is or its branches agree.
    fn partial(&mut self, place: &[Option<u64>]) {
        for i in 0..self.steps.len() {
            let (v, k) = match self.steps[i] {
                Step::Const(v) => (v, true),
                Step::Sym(s) => place[s].map_or((0, false), |b| (b, true)),
                Step::App(op, [a, b, c]) => {
                    let (x, kx) = (self.vals[a as usize], self.known[a as usize]);
                    let (y, ky) = (self.vals[b as usize], self.known[b as usize]);
                    match op {
                        Op::Not => ((x == 0) as u64, kx),
                        Op::And if kx && x == 0 || ky && y == 0 => (0, true),
                        Op::Or if kx && x != 0 || ky && y != 0 => (1, true),
                        Op::Ite if kx && x != 0 => (y, ky),
                        Op::Ite if kx => (self.vals[c as usize], self.known[c as usize]),
                        Op::Ite => {
                            let (z, kz) = (self.vals[c as usize], self.known[c as usize]);
                            (y, ky && kz && y == z)
                        }
                        _ => (Self::binary(op, x, y, self.shift), kx && ky),
                    }
                }
            };
            self.vals[i] = v;
            self.known[i] = k;
        }
    }

    /// The first constraint false under the placement, if one is.
    fn refuted(&self) -> Option<usize> {
        self.roots.iter().position(|&r| self.known[r] && self.vals[r] == 0)
    }
}

/// How values order: keys are the bits with the sign bit flipped under
/// the signed order, so that keys compare as unsigned numbers.
#[derive(Clone, Copy)]
struct Keys {
    signed: bool,
    width: u8,
}

impl Keys {
    fn flip(self) -> u64 {
        if self.signed {
            1u64 << (self.width - 1)
        } else {
            0
        }
    }

    fn key(self, bits: u64) -> u64 {
        bits ^ self.flip()
    }

    fn bits(self, key: u64) -> u64 {
        key ^ self.flip()
    }

    fn max(self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }
}

/// A block of the ordering: symbols tied, with a constant's key or not.
struct Block {
    key: Option<u64>,
    syms: Vec<usize>,
}

struct Search {
    set: Compiled,
    keys: Keys,
    blocks: Vec<Block>,
    symbols: usize,
    cut_by: Vec<bool>,
    left: u64,
}

impl Search {
    /// Each block's key: a constant's own; the symbol blocks between two
    /// constants consecutive after the lower one (before the higher one
    /// when none is below). `None`: a gap has too few values.
    fn block_keys(&self) -> Option<Vec<u64>> {
        let max = self.keys.max();
        let mut out = vec![0u64; self.blocks.len()];
        let mut i = 0;
        let mut below: Option<u64> = None;
        while i < self.blocks.len() {
            if let Some(k) = self.blocks[i].key {
                out[i] = k;
                below = Some(k);
                i += 1;
                continue;
            }
            // A run of symbol blocks, up to the next constant.
            let end = (i..self.blocks.len())
                .find(|&j| self.blocks[j].key.is_some())
                .unwrap_or(self.blocks.len());
            let run = (end - i) as u64;
            let above = self.blocks.get(end).and_then(|b| b.key);
            let first = match (below, above) {
                (Some(lo), Some(hi)) if hi - lo > run => lo + 1,
                (Some(lo), None) if max - lo >= run => lo + 1,
                (None, Some(hi)) if hi >= run => hi - run,
                (None, None) => 0,
                _ => return None,
            };
            for (j, o) in out[i..end].iter_mut().enumerate() {
                *o = first + j as u64;
            }
            i = end;
        }
        Some(out)
    }

    /// The bits of every symbol placed.
    fn placement(&self) -> Option<Vec<Option<u64>>> {
        let keys = self.block_keys()?;
        let mut place = vec![None; self.symbols];
        for (block, key) in self.blocks.iter().zip(keys) {
            for &x in &block.syms {
                place[x] = Some(self.keys.bits(key));
            }
        }
        Some(place)
    }

    /// Whether the ordering so far extends to a model with the symbols
    /// from `next` on (`None`: out of budget). On `true` the blocks are
    /// the model's.
    fn extend(&mut self, next: usize) -> Option<bool> {
        let cost = self.set.steps.len() as u64;
        if self.left < cost {
            return None;
        }
        self.left -= cost;
        let Some(place) = self.placement() else {
            return Some(false);
        };
        self.set.partial(&place);
        if let Some(c) = self.set.refuted() {
            self.cut_by[c] = true;
            return Some(false);
        }
        if next == self.symbols {
            return Some(true);
        }
        for b in 0..self.blocks.len() {
            self.blocks[b].syms.push(next);
            if self.extend(next + 1)? {
                return Some(true);
            }
            self.blocks[b].syms.pop();
        }
        for gap in 0..=self.blocks.len() {
            self.blocks.insert(
                gap,
                Block {
                    key: None,
                    syms: vec![next],
                },
            );
            if self.extend(next + 1)? {
                return Some(true);
            }
            self.blocks.remove(gap);
        }
        Some(false)
    }
}

/// Decides `set` over its symbols' orderings, if it only compares: its
/// symbols are bit-vectors of one width (2 bits or more) and its nodes
/// symbols, constants of that width or Booleans, Boolean connectives,
/// `ite`, equalities and ordered comparisons.
pub fn check(store: &TermStore, set: &[TermId]) -> Found {
    let mut syms: Vec<SymId> = set.iter().flat_map(|c| store.symbols(*c).iter().copied()).collect();
    syms.sort_unstable();
    syms.dedup();
    let width = match syms.first().map(|s| store.symbol(*s).sort) {
        Some(Sort::Bv(w)) if w >= 2 => w,
        _ => return Found::Nothing,
    };
    if syms.len() > MAX_SYMBOLS || syms.iter().any(|s| store.symbol(*s).sort != Sort::Bv(width)) {
        return Found::Nothing;
    }
    let order = store.postorder(set);
    let bits_sort = |t: TermId| store.sort(t) == Sort::Bv(width);
    let (mut signed, mut unsigned) = (false, false);
    let mut consts = Vec::new();
    for &t in &order {
        if store.sort(t) != Sort::Bool && !bits_sort(t) {
            return Found::Nothing;
        }
        match store.node(t) {
            Node::Sym(_) | Node::Const(Value::Bool(_)) => {}
            Node::Const(Value::Bv { bits, .. }) => consts.push(*bits),
            Node::App(Op::And | Op::Or | Op::Not | Op::Xor, _) if store.sort(t) == Sort::Bool => {}
            Node::App(Op::Ite | Op::Eq | Op::Ne, _) => {}
            Node::App(Op::Lt | Op::Le | Op::Gt | Op::Ge, a) if bits_sort(a[0]) => signed = true,
            Node::App(Op::ULt | Op::ULe | Op::UGt | Op::UGe, a) if bits_sort(a[0]) => unsigned = true,
            _ => return Found::Nothing,
        }
    }
    let keys = Keys { signed, width };
    let index: FxHashMap<TermId, u32> = order.iter().enumerate().map(|(i, t)| (*t, i as u32)).collect();
    let sym_at: FxHashMap<SymId, usize> = syms.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let steps: Vec<Step> = order
        .iter()
        .map(|t| match store.node(*t) {
            Node::Const(Value::Bool(b)) => Step::Const(*b as u64),
            Node::Const(Value::Bv { bits, .. }) => Step::Const(*bits & keys.max()),
            Node::Const(_) => unreachable!("checked above"),
            Node::Sym(s) => Step::Sym(sym_at[s]),
            Node::App(op, args) => {
                let mut a = [0u32; 3];
                for (slot, arg) in a.iter_mut().zip(args.iter()) {
                    *slot = index[arg];
                }
                Step::App(*op, a)
            }
        })
        .collect();
    let mut const_keys: Vec<u64> = consts.iter().map(|b| keys.key(*b & keys.max())).collect();
    const_keys.sort_unstable();
    const_keys.dedup();
    let n = steps.len();
    let mut search = Search {
        set: Compiled {
            roots: set.iter().map(|c| index[c] as usize).collect(),
            vals: vec![0; n],
            known: vec![false; n],
            shift: 64 - width as u32,
            steps,
        },
        keys,
        blocks: const_keys
            .into_iter()
            .map(|k| Block {
                key: Some(k),
                syms: Vec::new(),
            })
            .collect(),
        symbols: syms.len(),
        cut_by: vec![false; set.len()],
        left: MAX_WORK,
    };
    match search.extend(0) {
        None => Found::Nothing,
        Some(true) => {
            let place = search.placement().expect("a model's placement fits");
            Found::Sat(
                syms.iter()
                    .zip(place)
                    .map(|(s, bits)| (*s, Value::bv(width, bits.expect("every symbol placed"))))
                    .collect::<Model>(),
            )
        }
        Some(false) if signed && unsigned => Found::Nothing,
        Some(false) => Found::Unsat(
            search
                .cut_by
                .iter()
                .zip(set)
                .filter(|(cut, _)| **cut)
                .map(|(_, c)| *c)
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_symbols_only_compared_are_decided_over_their_orderings() {
        let mut s = TermStore::new();
        let [x, y, z] = ["x", "y", "z"].map(|n| s.symbol_term(n, Sort::Bv(32)));
        let lt = |s: &mut TermStore, a, b| s.app(Op::Lt, &[a, b]).unwrap();
        let (xy, yz, zx) = (lt(&mut s, x, y), lt(&mut s, y, z), lt(&mut s, z, x));
        // A cycle is unsat, with the cycle as the core.
        assert_eq!(check(&s, &[xy, yz, zx]), Found::Unsat(vec![xy, yz, zx]));
        // The largest of the three, through `ite`s, is above the others.
        let m = s.app(Op::Ite, &[xy, y, x]).unwrap();
        let mz = lt(&mut s, m, z);
        let set = [mz, yz];
        match check(&s, &set) {
            Found::Sat(m) => assert!(s.satisfies(&set, &m)),
            other => panic!("{other:?}"),
        }
        // Constants take their place in the order: 5 < x < 7 has x = 6,
        // 5 < x < 6 nothing.
        let c = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        let (c5, c6, c7) = (c(&mut s, 5), c(&mut s, 6), c(&mut s, 7));
        let (above5, below6, below7) = (lt(&mut s, c5, x), lt(&mut s, x, c6), lt(&mut s, x, c7));
        let eq_y = s.app(Op::Eq, &[x, y]).unwrap();
        match check(&s, &[above5, below7, eq_y]) {
            Found::Sat(m) => {
                let fixed = s.constant(Value::bv(32, 6));
                let six = s.app(Op::Eq, &[x, fixed]).unwrap();
                assert!(s.satisfies(&[six], &m), "{m:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(check(&s, &[above5, below6, eq_y]), Found::Unsat(vec![above5, below6]));
        // A gap between constants holds as many blocks as it has values:
        // 5 < x < y < 7 has none; at the ends of the unsigned order,
        // x <u 0 has none and x >u max - 1 only max.
        let (x_y, y_below7) = (lt(&mut s, x, y), lt(&mut s, y, c7));
        assert!(matches!(check(&s, &[above5, x_y, y_below7]), Found::Unsat(_)));
        let (c0, top1) = (c(&mut s, 0), c(&mut s, u32::MAX as u64 - 1));
        let below0 = s.app(Op::ULt, &[x, c0]).unwrap();
        assert_eq!(check(&s, &[below0]), Found::Unsat(vec![below0]));
        let above_top1 = s.app(Op::UGt, &[x, top1]).unwrap();
        match check(&s, &[above_top1]) {
            Found::Sat(m) => assert!(s.satisfies(&[above_top1], &m)),
            other => panic!("{other:?}"),
        }
        // Signed: nothing is below i32::MIN.
        let min = c(&mut s, 1 << 31);
        let below_min = lt(&mut s, x, min);
        assert_eq!(check(&s, &[below_min]), Found::Unsat(vec![below_min]));
        // Signed and unsigned together: orderings of small values do not
        // cover -1 <s 0 with 0 <u -1, so no unsat is claimed.
        let ult = s.app(Op::ULt, &[y, x]).unwrap();
        assert!(!matches!(check(&s, &[xy, ult, eq_y]), Found::Unsat(_)));
        assert_eq!(check(&s, &[xy, ult]), Found::Nothing);
    }

    #[test]
    fn orderings_of_many_symbols_are_searched() {
        let mut s = TermStore::new();
        let k: Vec<TermId> = (0..12).map(|i| s.symbol_term(&format!("k{i}"), Sort::Bv(32))).collect();
        // k0 < k1 < ... < k11: one ordering of 12 symbols (of 28 091 567 595).
        let chain: Vec<TermId> = k.windows(2).map(|w| s.app(Op::Lt, &[w[0], w[1]]).unwrap()).collect();
        match check(&s, &chain) {
            Found::Sat(m) => assert!(s.satisfies(&chain, &m)),
            other => panic!("{other:?}"),
        }
        // Closing the chain into a cycle: unsat, and every link is needed.
        let back = s.app(Op::Le, &[k[11], k[0]]).unwrap();
        let mut cycle = chain.clone();
        cycle.push(back);
        match check(&s, &cycle) {
            Found::Unsat(core) => {
                let mut want = cycle.clone();
                want.sort_unstable();
                let mut got = core;
                got.sort_unstable();
                assert_eq!(got, want);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn orderings_agree_with_z3() {
        use crate::{SatResult, Solver};
        use rand::Rng;
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(28);
        let mut s = TermStore::new();
        let syms: Vec<TermId> = (0..5).map(|i| s.symbol_term(&format!("k{i}"), Sort::Bv(32))).collect();
        let consts: Vec<TermId> = [0u64, 3, 4, u32::MAX as u64]
            .iter()
            .map(|k| s.constant(Value::bv(32, *k)))
            .collect();
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let (mut sat, mut unsat, mut nothing) = (0, 0, 0);
        for i in 0..200 {
            let signed_only = i % 2 == 0;
            let leaf = |s: &mut TermStore, rng: &mut rand::rngs::SmallRng| {
                let a = if rng.gen_bool(0.2) {
                    consts[rng.gen_range(0..consts.len())]
                } else {
                    syms[rng.gen_range(0..3 + i % 3)]
                };
                if rng.gen_bool(0.3) {
                    let b = syms[rng.gen_range(0..syms.len())];
                    let c = s.app(Op::Lt, &[a, b]).unwrap();
                    s.app(Op::Ite, &[c, b, a]).unwrap()
                } else {
                    a
                }
            };
            let mut set = Vec::new();
            for _ in 0..rng.gen_range(1..5) {
                let ops: &[Op] = if signed_only {
                    &[Op::Lt, Op::Le, Op::Eq, Op::Ne]
                } else {
                    &[Op::Lt, Op::ULt, Op::Ge, Op::UGe]
                };
                let atom = |s: &mut TermStore, rng: &mut rand::rngs::SmallRng| {
                    let (a, b) = (leaf(s, rng), leaf(s, rng));
                    s.app(ops[rng.gen_range(0..ops.len())], &[a, b]).unwrap()
                };
                let p = atom(&mut s, &mut rng);
                let c = if rng.gen_bool(0.4) {
                    let q = atom(&mut s, &mut rng);
                    s.app(Op::Or, &[p, q]).unwrap()
                } else {
                    p
                };
                set.push(c);
            }
            set.sort_unstable();
            set.dedup();
            match (check(&s, &set), z3.check(&s, &set)) {
                (Found::Sat(m), SatResult::Sat(_)) => {
                    assert!(s.satisfies(&set, &m), "{set:?}: {m:?}");
                    sat += 1;
                }
                (Found::Unsat(core), SatResult::Unsat) => {
                    assert_eq!(z3.check(&s, &core), SatResult::Unsat, "core {core:?} of {set:?}");
                    unsat += 1;
                }
                (Found::Nothing, _) => nothing += 1,
                (mine, theirs) => panic!("{set:?}: {mine:?} against Z3's {theirs:?}"),
            }
        }
        assert!(sat > 50 && unsat > 10, "{sat} sat, {unsat} unsat, {nothing} undecided");
    }
}
