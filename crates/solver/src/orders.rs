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
//!   constants' own, the others spread over the gaps between them), or is
//!   cut when a gap has fewer values than blocks;
//! - a constraint that is already false under the symbols placed cuts the
//!   branch ([`Compiled::partial`]: each node's least and greatest value,
//!   a symbol not placed yet taking any). The constraints that cut form
//!   the unsat core.
//!
//! A symbol read only through one mask by a constant (`kind & 1`, `op %u
//! 3`) is searched as the mask's value, within its range: the B-tree's
//! harness picks insert or lookup by `kind & 1`, and ssm's merged
//! questions there went to Z3 for it (12 calls, 54 MB against dse's 16).
//!
//! A set that compares signed and unsigned alike is searched under the
//! signed order for a model only: the unsigned comparisons are decided on
//! the values an ordering happens to get, so that no ordering satisfies
//! the set proves nothing.
//!
//! On bench/multise, ssm's merged questions on PL/0 Parser and the
//! red-black tree, dsm's on Heap Sort and multise's loop merge on the
//! binary search tree all went to Z3 before, and none does now; making
//! Z3's context alone touches 17 MB, as much as dse's whole run (15-17
//! MB). A question the search gives up on (Z3 took 65-280 ms on the
//! priority queue's, once `unknown`) that is a merged state's branch
//! splits the state instead ([`decide`]'s second answer;
//! `QuerySolver::split_hard`). Formulas over comparisons with a Boolean
//! structure of their own (a merged path condition's `or`s) go to
//! clause learning first ([`crate::cdcl`]), which decides most of them in
//! under a millisecond; the search is for what that leaves: masks, words
//! of bytes, and symbols compared both signed and unsigned.

use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::{FxHashMap, FxHashSet};

/// The most symbols searched.
pub const MAX_SYMBOLS: usize = 64;

/// The most node evaluations a search may cost (one pass over the set's
/// nodes per placement): 8 M take 40-90 ms. Four times as many did not
/// decide the priority queue's hard question either.
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
    /// Per node, the least and the greatest value it can take under the
    /// placement so far: a bit-vector's as keys ([`Keys`]), a Boolean's as
    /// 0 or 1. Equal bounds: the value is decided.
    lo: Vec<u64>,
    hi: Vec<u64>,
    keys: Keys,
}

impl Compiled {
    /// The bounds of every node under a placement (`place`: keys): a
    /// comparison is decided where the bounds of its sides do not
    /// overlap, an `ite` whose condition is not decided takes both
    /// branches' bounds, `and` is false where one side is, `or` true where
    /// one side is. A comparison of the other signedness than the keys'
    /// is decided once both sides are.
    fn partial(&mut self, place: &[Option<u64>]) {
        let keys = self.keys;
        for i in 0..self.steps.len() {
            let (l, h) = match self.steps[i] {
                Step::Const(v) => (v, v),
                Step::Sym(s) => place[s].map_or((0, keys.max()), |k| (k, k)),
                Step::App(op, [a, b, c]) => {
                    let (a, b, c) = (a as usize, b as usize, c as usize);
                    let (xl, xh, yl, yh) = (self.lo[a], self.hi[a], self.lo[b], self.hi[b]);
                    let both = xl == xh && yl == yh;
                    let decided = |d: Option<bool>| d.map_or((0, 1), |t| (t as u64, t as u64));
                    // x < y (strict) or x <= y, over keys.
                    let less = |strict: bool, (xl, xh, yl, yh): (u64, u64, u64, u64)| {
                        if xh < yl || !strict && xh <= yl {
                            Some(true)
                        } else if xl > yh || strict && xl >= yh {
                            Some(false)
                        } else {
                            None
                        }
                    };
                    let ordered = matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge) == keys.signed;
                    match op {
                        Op::Not => (1 - xh, 1 - xl),
                        Op::And => (xl & yl, xh & yh),
                        Op::Or => (xl | yl, xh | yh),
                        Op::Xor if both => (xl ^ yl, xl ^ yl),
                        Op::Xor => (0, 1),
                        Op::Ite if xl == 1 => (yl, yh),
                        Op::Ite if xh == 0 => (self.lo[c], self.hi[c]),
                        Op::Ite => (yl.min(self.lo[c]), yh.max(self.hi[c])),
                        Op::Eq | Op::Ne => {
                            let eq = if both {
                                Some(xl == yl)
                            } else if xh < yl || yh < xl {
                                Some(false)
                            } else {
                                None
                            };
                            decided(eq.map(|e| e == (op == Op::Eq)))
                        }
                        Op::Lt | Op::ULt if ordered => decided(less(true, (xl, xh, yl, yh))),
                        Op::Le | Op::ULe if ordered => decided(less(false, (xl, xh, yl, yh))),
                        Op::Gt | Op::UGt if ordered => decided(less(true, (yl, yh, xl, xh))),
                        Op::Ge | Op::UGe if ordered => decided(less(false, (yl, yh, xl, xh))),
                        _ if both => {
                            let v = binary(op, keys.bits(xl), keys.bits(yl), 64 - keys.width as u32) as u64;
                            (v, v)
                        }
                        _ => (0, 1),
                    }
                }
            };
            self.lo[i] = l;
            self.hi[i] = h;
        }
    }

    /// The first constraint false under the placement, if one is.
    fn refuted(&self) -> Option<usize> {
        self.roots.iter().position(|&r| self.hi[r] == 0)
    }
}

/// `x op y` for a comparison of bits, the signed ones sign-extended by
/// `shift`.
fn binary(op: Op, x: u64, y: u64, shift: u32) -> bool {
    let (sx, sy) = ((x << shift) as i64, (y << shift) as i64);
    match op {
        Op::Lt => sx < sy,
        Op::Le => sx <= sy,
        Op::Gt => sx > sy,
        Op::Ge => sx >= sy,
        Op::ULt => x < y,
        Op::ULe => x <= y,
        Op::UGt => x > y,
        Op::UGe => x >= y,
        _ => unreachable!("a comparison"),
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
    /// Per symbol, whether the set compares it with constants only.
    free: Vec<bool>,
    cut_by: Vec<bool>,
    left: u64,
}

impl Search {
    /// Each block's key: a constant's own; the symbol blocks between two
    /// constants (or the ends of the order) spread evenly over the gap,
    /// so that a symbol placed later can still go anywhere, and a placed
    /// key is at an end of the order only where no later symbol could go
    /// past it (see [`Compiled::partial`]: a symbol not placed can take
    /// any key). `None`: a gap has fewer values than blocks.
    fn block_keys(&self) -> Option<Vec<u64>> {
        let mut out = vec![0u64; self.blocks.len()];
        let mut i = 0;
        // The key below the gap (-1: the order's start).
        let mut below: i128 = -1;
        while i < self.blocks.len() {
            if let Some(k) = self.blocks[i].key {
                out[i] = k;
                below = k as i128;
                i += 1;
                continue;
            }
            // A run of symbol blocks, up to the next constant.
            let end = (i..self.blocks.len())
                .find(|&j| self.blocks[j].key.is_some())
                .unwrap_or(self.blocks.len());
            let run = (end - i) as i128;
            let above = self
                .blocks
                .get(end)
                .and_then(|b| b.key)
                .map_or(self.keys.max() as i128 + 1, |k| k as i128);
            if above - below - 1 < run {
                return None;
            }
            for (j, o) in out[i..end].iter_mut().enumerate() {
                *o = (below + (j as i128 + 1) * (above - below) / (run + 1)) as u64;
            }
            i = end;
        }
        Some(out)
    }

    /// The key of every symbol placed.
    fn placement(&self) -> Option<Vec<Option<u64>>> {
        let keys = self.block_keys()?;
        let mut place = vec![None; self.symbols];
        for (block, key) in self.blocks.iter().zip(keys) {
            for &x in &block.syms {
                place[x] = Some(key);
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
        if self.free[next] {
            return self.extend_free(next);
        }
        for b in 0..self.blocks.len() {
            if self.tied(b, next)? {
                return Some(true);
            }
        }
        for gap in 0..=self.blocks.len() {
            if self.alone(gap, next)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// [`Search::extend`] with symbol `next` tied with block `b`.
    fn tied(&mut self, b: usize, next: usize) -> Option<bool> {
        self.blocks[b].syms.push(next);
        let found = self.extend(next + 1)?;
        if !found {
            self.blocks[b].syms.pop();
        }
        Some(found)
    }

    /// [`Search::extend`] with symbol `next` in a new block at `gap`.
    fn alone(&mut self, gap: usize, next: usize) -> Option<bool> {
        self.blocks.insert(
            gap,
            Block {
                key: None,
                syms: vec![next],
            },
        );
        let found = self.extend(next + 1)?;
        if !found {
            self.blocks.remove(gap);
        }
        Some(found)
    }

    /// [`Search::extend`] for a symbol compared with constants only: it
    /// ties with each constant, or goes into each gap between two, tied
    /// with the gap's first block of symbols if it has one (whichever
    /// block it joins there, every constraint reads the same, and it adds
    /// no block for the gap to hold), else alone.
    fn extend_free(&mut self, next: usize) -> Option<bool> {
        for b in 0..self.blocks.len() {
            if self.blocks[b].key.is_some() && self.tied(b, next)? {
                return Some(true);
            }
        }
        for gap in 0..=self.blocks.len() {
            if gap > 0 && self.blocks[gap - 1].key.is_none() {
                continue;
            }
            let found = if self.blocks.get(gap).is_some_and(|b| b.key.is_none()) {
                self.tied(gap, next)?
            } else {
                self.alone(gap, next)?
            };
            if found {
                return Some(true);
            }
        }
        Some(false)
    }
}

/// [`decide`]'s answer alone.
#[cfg(test)]
fn check(store: &TermStore, set: &[TermId]) -> Found {
    decide(store, set).0
}

/// Decides `set` over its symbols' orderings, if it only compares: its
/// symbols are bit-vectors of one width (2 bits or more) and its nodes
/// symbols, constants of that width or Booleans, Boolean connectives,
/// `ite`, equalities and ordered comparisons, and a symbol may be read
/// through one mask instead ([`Mask`]: `kind & 1`). The second answer: `set`
/// only compares, and the search ran out of its budget ([`MAX_WORK`])
/// before it decided.
pub fn decide(store: &TermStore, set: &[TermId]) -> (Found, bool) {
    decide_within(store, set, MAX_WORK)
}

/// A symbol the set reads only through one term that takes every value of
/// a range as the symbol does (`kind & 1`, `op %u 3`, `x % 4`): the term is
/// searched in the symbol's place, within its range. A container's
/// harness picks each operation by such a term and compares keys.
struct Mask {
    term: TermId,
    sym: SymId,
    /// The least and the greatest value, as signed numbers.
    lo: i64,
    hi: i64,
}

/// The range `t` takes as its one symbol does, if `t` is a mask of a
/// symbol by a constant: `s & (2^k - 1)`, `s %u m`, or `s % m` (signed,
/// `m > 0`), below the signed order's top.
fn mask_range(store: &TermStore, t: TermId, width: u8) -> Option<(SymId, i64, i64)> {
    let Node::App(op, args) = store.node(t) else {
        return None;
    };
    let sym = |x: TermId| match store.node(x) {
        Node::Sym(s) => Some(*s),
        _ => None,
    };
    let konst = |x: TermId| match store.node(x) {
        Node::Const(Value::Bv { bits, .. }) => Some(*bits),
        _ => None,
    };
    let half = 1u64 << (width - 1);
    match (op, &args[..]) {
        (Op::And, &[a, b]) => {
            let (s, m) = match (sym(a), konst(b), sym(b), konst(a)) {
                (Some(s), Some(m), _, _) | (_, _, Some(s), Some(m)) => (s, m),
                _ => return None,
            };
            (m > 0 && m < half && (m + 1).is_power_of_two()).then_some((s, 0, m as i64))
        }
        (Op::URem, &[a, b]) => {
            let (s, m) = (sym(a)?, konst(b)?);
            (m >= 2 && m <= half).then_some((s, 0, m as i64 - 1))
        }
        (Op::Rem, &[a, b]) => {
            let (s, m) = (sym(a)?, konst(b)?);
            (m >= 2 && m < half).then_some((s, 1 - m as i64, m as i64 - 1))
        }
        _ => None,
    }
}

/// The symbols of `order` read only through one mask ([`Mask`]).
fn masks(store: &TermStore, order: &[TermId], width: u8) -> Vec<Mask> {
    // Per symbol, its one mask so far, or `None` once it is read otherwise.
    let mut seen: FxHashMap<SymId, Option<(TermId, i64, i64)>> = FxHashMap::default();
    for &t in order {
        let Node::App(_, args) = store.node(t) else {
            continue;
        };
        let range = mask_range(store, t, width);
        for &a in args.iter() {
            let Node::Sym(s) = store.node(a) else {
                continue;
            };
            let through = range.filter(|(m, _, _)| m == s).map(|(_, lo, hi)| (t, lo, hi));
            let entry = seen.entry(*s).or_insert(through);
            if *entry != through {
                *entry = None;
            }
        }
    }
    let mut out: Vec<Mask> = seen
        .into_iter()
        .filter_map(|(sym, m)| m.map(|(term, lo, hi)| Mask { term, sym, lo, hi }))
        .collect();
    out.sort_unstable_by_key(|m| m.sym);
    out
}

/// A word put together from bytes that the set reads only through it
/// (`zext(b0) | zext(b1) << 8 | …`, the wasm frontend's little-endian load
/// of a KLEE-style symbolic array): the bytes are distinct symbols, one for
/// each byte of the word, so the word takes every value of its width as
/// they do, and it is searched in their place. A sort over
/// `klee_make_symbolic(a, sizeof a)` compares such words only; its merged
/// states' questions went to Z3 without them (examples/c/sort.c: 50-170 ms
/// each).
struct Word {
    term: TermId,
    /// The symbol of each byte, lowest first.
    bytes: Vec<SymId>,
    /// The nodes inside the word (its `or`s, shifts and widenings, and the
    /// bytes), which nothing else in the set may read.
    inner: Vec<TermId>,
}

/// `t` as a word of bytes ([`Word`]), if it is one.
fn word(store: &TermStore, t: TermId) -> Option<Word> {
    let Sort::Bv(w) = store.sort(t) else {
        return None;
    };
    if w < 16 || w % 8 != 0 || !matches!(store.node(t), Node::App(Op::Or, _)) {
        return None;
    }
    let mut bytes: Vec<Option<SymId>> = vec![None; w as usize / 8];
    let mut inner = Vec::new();
    let mut stack = vec![t];
    while let Some(x) = stack.pop() {
        if let Node::App(Op::Or, args) = store.node(x) {
            inner.push(x);
            stack.extend(args.iter().copied());
            continue;
        }
        // A byte, widened and shifted to its place.
        let (wide, at) = match store.node(x) {
            Node::App(Op::Shl, a) => match store.node(a[1]) {
                Node::Const(Value::Bv { bits, .. }) if bits % 8 == 0 && *bits < w as u64 => {
                    inner.push(x);
                    (a[0], (*bits / 8) as usize)
                }
                _ => return None,
            },
            _ => (x, 0),
        };
        let Node::App(Op::ZExt(_), a) = store.node(wide) else {
            return None;
        };
        inner.extend([wide, a[0]]);
        // The byte, or its narrowing to its own width (a symbolic buffer's
        // bytes as the frontend stores them).
        let byte = match store.node(a[0]) {
            Node::App(Op::Trunc(8), n) => {
                inner.push(n[0]);
                n[0]
            }
            _ => a[0],
        };
        let Node::Sym(b) = store.node(byte) else {
            return None;
        };
        if store.symbol(*b).sort != Sort::Bv(8) || bytes[at].is_some() {
            return None;
        }
        bytes[at] = Some(*b);
    }
    let bytes: Vec<SymId> = bytes.into_iter().collect::<Option<_>>()?;
    let mut distinct = bytes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != bytes.len() {
        return None;
    }
    inner.retain(|&x| x != t);
    Some(Word { term: t, bytes, inner })
}

/// The words of `order` ([`Word`]) that nothing else in the set looks
/// into, and the nodes inside them; `None` if a byte of one is read
/// elsewhere too.
fn words(store: &TermStore, order: &[TermId]) -> Option<(Vec<Word>, FxHashSet<TermId>)> {
    let mut found: Vec<Word> = Vec::new();
    let mut inner: FxHashSet<TermId> = FxHashSet::default();
    // The outermost `or` of a word comes last in postorder.
    for &t in order.iter().rev() {
        if inner.contains(&t) {
            continue;
        }
        if let Some(w) = word(store, t) {
            inner.extend(w.inner.iter().copied());
            found.push(w);
        }
    }
    if found.is_empty() {
        return Some((found, inner));
    }
    // Nothing outside a word reads what is inside one.
    let terms: FxHashSet<TermId> = found.iter().map(|w| w.term).collect();
    for &t in order {
        if inner.contains(&t) || terms.contains(&t) {
            continue;
        }
        if let Node::App(_, args) = store.node(t) {
            if args.iter().any(|a| inner.contains(a)) {
                return None;
            }
        }
    }
    // A byte in two words (a load of 2 bytes and one of 4 from one
    // array) would get two values.
    let mut bytes: Vec<SymId> = found.iter().flat_map(|w| w.bytes.iter().copied()).collect();
    let all = bytes.len();
    bytes.sort_unstable();
    bytes.dedup();
    if bytes.len() != all {
        return None;
    }
    found.sort_unstable_by_key(|w| w.bytes[0]);
    Some((found, inner))
}

/// Per searched node, whether the set compares it with constants only
/// (`op > 0`): its place among the constants is all that matters, not the
/// one among the other symbols ([`Search::extend`]).
fn compared_with_constants_only(store: &TermStore, order: &[TermId], searched: &[(TermId, SymId)]) -> Vec<bool> {
    let at: FxHashMap<TermId, usize> = searched.iter().enumerate().map(|(i, (t, _))| (*t, i)).collect();
    let mut free = vec![true; searched.len()];
    for &t in order {
        let Node::App(op, args) = store.node(t) else {
            continue;
        };
        let compares = matches!(
            op,
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::ULt | Op::ULe | Op::UGt | Op::UGe
        );
        for (k, a) in args.iter().enumerate() {
            let Some(&i) = at.get(a) else {
                continue;
            };
            let other = args[1 - k.min(1)];
            if !(compares && args.len() == 2 && store.as_const(other).is_some()) {
                free[i] = false;
            }
        }
    }
    free
}

/// [`decide`] within `budget` node evaluations.
fn decide_within(store: &TermStore, set: &[TermId], budget: u64) -> (Found, bool) {
    let all = store.postorder(set);
    let Some((words, inner)) = words(store, &all) else {
        return (Found::Nothing, false);
    };

    // The set without the insides of its words, which stand for them.
    let order: Vec<TermId> = all.iter().copied().filter(|t| !inner.contains(t)).collect();
    let in_words: FxHashSet<SymId> = words.iter().flat_map(|w| w.bytes.iter().copied()).collect();
    let mut syms: Vec<SymId> = set.iter().flat_map(|c| store.symbols(*c).iter().copied()).collect();
    syms.retain(|s| !in_words.contains(s));
    syms.sort_unstable();
    syms.dedup();
    let mut sorts = syms
        .iter()
        .map(|s| store.symbol(*s).sort)
        .chain(words.iter().map(|w| store.sort(w.term)));
    let width = match sorts.next() {
        Some(Sort::Bv(w)) if w >= 2 => w,
        _ => return (Found::Nothing, false),
    };
    if syms.len() + words.len() > MAX_SYMBOLS || sorts.any(|s| s != Sort::Bv(width)) {
        return (Found::Nothing, false);
    }
    let word_at: FxHashMap<TermId, &Word> = words.iter().map(|w| (w.term, w)).collect();
    // What the set reads outside its words.
    let mut read: FxHashSet<TermId> = set.iter().copied().collect();
    for &t in &order {
        if let (Node::App(_, args), false) = (store.node(t), word_at.contains_key(&t)) {
            read.extend(args.iter().copied());
        }
    }
    let masks = masks(store, &order, width);
    let mask_of: FxHashMap<TermId, usize> = masks.iter().enumerate().map(|(i, m)| (m.term, i)).collect();
    let masked: Vec<SymId> = masks.iter().map(|m| m.sym).collect();
    let bits_sort = |t: TermId| store.sort(t) == Sort::Bv(width);
    let (mut signed, mut unsigned) = (false, false);
    let mut consts = Vec::new();
    for &t in &order {
        if store.sort(t) != Sort::Bool && !bits_sort(t) {
            return (Found::Nothing, false);
        }
        if mask_of.contains_key(&t) || word_at.contains_key(&t) {
            continue;
        }
        match store.node(t) {
            Node::Sym(_) | Node::Const(Value::Bool(_)) => {}
            // A word's shifts are not the set's constants.
            Node::Const(Value::Bv { .. }) if !read.contains(&t) => {}
            Node::Const(Value::Bv { bits, .. }) => consts.push(*bits),
            Node::App(Op::And | Op::Or | Op::Not | Op::Xor, _) if store.sort(t) == Sort::Bool => {}
            Node::App(Op::Ite | Op::Eq | Op::Ne, _) => {}
            Node::App(Op::Lt | Op::Le | Op::Gt | Op::Ge, a) if bits_sort(a[0]) => signed = true,
            Node::App(Op::ULt | Op::ULe | Op::UGt | Op::UGe, a) if bits_sort(a[0]) => unsigned = true,
            _ => return (Found::Nothing, false),
        }
    }
    // A range below zero is one range in the signed order only.
    if masks.iter().any(|m| m.lo < 0) {
        if unsigned {
            return (Found::Nothing, false);
        }
        signed = true;
    }
    let keys = Keys { signed, width };
    let index: FxHashMap<TermId, u32> = order.iter().enumerate().map(|(i, t)| (*t, i as u32)).collect();
    // What is searched: each plain symbol's node, each mask's and each
    // word's, with the symbol it gives a value to (a word: its first
    // byte's; the model gives every byte its own).
    let mut searched: Vec<(TermId, SymId)> = masks.iter().map(|m| (m.term, m.sym)).collect();
    searched.extend(order.iter().filter_map(|t| match store.node(*t) {
        _ if word_at.contains_key(t) => Some((*t, word_at[t].bytes[0])),
        Node::Sym(s) if !masked.contains(s) => Some((*t, *s)),
        _ => None,
    }));
    let free = compared_with_constants_only(store, &order, &searched);
    // The masks first (a few values each, and a question's cases turn on
    // them), then the symbols compared with constants only, then the rest.
    let mut rank: Vec<usize> = (0..searched.len()).collect();
    rank.sort_by_key(|&i| (i >= masks.len(), !free[i]));
    let free: Vec<bool> = rank.iter().map(|&i| free[i]).collect();
    let searched: Vec<(TermId, SymId)> = rank.iter().map(|&i| searched[i]).collect();
    let at: FxHashMap<TermId, usize> = searched.iter().enumerate().map(|(i, (t, _))| (*t, i)).collect();
    let mut steps: Vec<Step> = order
        .iter()
        .map(|t| match store.node(*t) {
            _ if at.contains_key(t) => Step::Sym(at[t]),
            Node::Const(Value::Bool(b)) => Step::Const(*b as u64),
            Node::Const(Value::Bv { bits, .. }) => Step::Const(keys.key(*bits & keys.max())),
            Node::Const(_) => unreachable!("checked above"),
            // Read through its mask only, which stands for it.
            Node::Sym(_) => Step::Const(0),
            Node::App(op, args) => {
                let mut a = [0u32; 3];
                for (slot, arg) in a.iter_mut().zip(args.iter()) {
                    *slot = index[arg];
                }
                Step::App(*op, a)
            }
        })
        .collect();
    let mut roots: Vec<usize> = set.iter().map(|c| index[c] as usize).collect();
    // Each mask within its range: constraints after the set's, which the
    // symbol meets whatever its value, so they are never in a core.
    let le = if signed { Op::Le } else { Op::ULe };
    for m in &masks {
        let at = index[&m.term];
        for (bound, below) in [(m.lo, true), (m.hi, false)] {
            let bits = bound as u64 & keys.max();
            consts.push(bits);
            steps.push(Step::Const(keys.key(bits)));
            let k = (steps.len() - 1) as u32;
            steps.push(Step::App(le, if below { [k, at, 0] } else { [at, k, 0] }));
            roots.push(steps.len() - 1);
        }
    }
    let mut const_keys: Vec<u64> = consts.iter().map(|b| keys.key(*b & keys.max())).collect();
    const_keys.sort_unstable();
    const_keys.dedup();
    let n = steps.len();
    let cut_by = vec![false; roots.len()];
    let mut search = Search {
        set: Compiled {
            roots,
            lo: vec![0; n],
            hi: vec![0; n],
            keys,
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
        symbols: searched.len(),
        free,
        cut_by,
        left: budget,
    };
    let found = match search.extend(0) {
        None => return (Found::Nothing, true),
        Some(true) => {
            // A mask's value is its symbol's: within the range, the mask
            // gives it back.
            let place = search.placement().expect("a model's placement fits");
            let mut model = Model::default();
            for ((t, s), key) in searched.iter().zip(place) {
                let bits = keys.bits(key.expect("every symbol placed"));
                match word_at.get(t) {
                    Some(w) => model.extend(
                        (w.bytes.iter().enumerate()).map(|(i, b)| (*b, Value::bv(8, (bits >> (8 * i)) & 0xff))),
                    ),
                    None => {
                        model.insert(*s, Value::bv(width, bits));
                    }
                }
            }
            Found::Sat(model)
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
    };
    (found, false)
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
        // (x <u 0 is false as made: its bounds decide it.)
        let below0 = s.app(Op::ULt, &[x, c0]).unwrap();
        assert!(s.is_false(below0));
        let above_top1 = s.app(Op::UGt, &[x, top1]).unwrap();
        match check(&s, &[above_top1]) {
            Found::Sat(m) => assert!(s.satisfies(&[above_top1], &m)),
            other => panic!("{other:?}"),
        }
        // Signed: nothing is below i32::MIN.
        let min = c(&mut s, 1 << 31);
        let below_min = lt(&mut s, x, min);
        assert_eq!(check(&s, &[below_min]), Found::Unsat(vec![below_min]));
        // Signed and unsigned together: the keys are signed, so x <s y
        // with y <u x has a model (x negative, y not)...
        let ult = s.app(Op::ULt, &[y, x]).unwrap();
        match check(&s, &[xy, ult]) {
            Found::Sat(m) => assert!(s.satisfies(&[xy, ult], &m)),
            other => panic!("{other:?}"),
        }
        // ...but where no ordering is found, no unsat is claimed: the
        // signed order's keys do not decide the unsigned comparisons.
        let ult_back = s.app(Op::ULt, &[x, y]).unwrap();
        assert_eq!(check(&s, &[xy, ult, ult_back]), Found::Nothing);
    }

    /// `zext(b0) | zext(b1) << 8 | …`, as the wasm frontend loads a word.
    fn word_of_bytes(s: &mut TermStore, name: &str, width: u8) -> TermId {
        word_at(s, name, 0, width)
    }

    /// The word of bytes `name{first}`, `name{first + 1}` …
    fn word_at(s: &mut TermStore, name: &str, first: u8, width: u8) -> TermId {
        let mut acc = s.constant(Value::bv(width, 0));
        for i in 0..width / 8 {
            let b = s.symbol_term(&format!("{name}{}", first + i), Sort::Bv(8));
            let wide = s.app(Op::ZExt(width), &[b]).unwrap();
            let sh = s.constant(Value::bv(width, 8 * i as u64));
            let shifted = s.app(Op::Shl, &[wide, sh]).unwrap();
            acc = s.app(Op::Or, &[acc, shifted]).unwrap();
        }
        acc
    }

    #[test]
    fn words_of_symbolic_bytes_are_searched_as_symbols() {
        let mut s = TermStore::new();
        let [x, y, z] = ["x", "y", "z"].map(|n| word_of_bytes(&mut s, n, 32));
        let lt = |s: &mut TermStore, a, b| s.app(Op::Lt, &[a, b]).unwrap();
        let (xy, yz, zx) = (lt(&mut s, x, y), lt(&mut s, y, z), lt(&mut s, z, x));
        assert_eq!(check(&s, &[xy, yz, zx]), Found::Unsat(vec![xy, yz, zx]));
        // A merged state's value: the larger of x and y, below z, and a
        // constant the words' shifts do not stand for.
        let m = s.app(Op::Ite, &[xy, y, x]).unwrap();
        let mz = lt(&mut s, m, z);
        let c = s.constant(Value::bv(32, 16));
        let below = lt(&mut s, z, c);
        let set = [mz, below];
        match check(&s, &set) {
            Found::Sat(model) => {
                assert!(s.satisfies(&set, &model), "{model:?}");
                assert_eq!(model.len(), 12, "every byte has a value: {model:?}");
            }
            other => panic!("{other:?}"),
        }
        // A byte in two words: not searched.
        // (x0..x3 and x1..x4, an unaligned load: x < y holds with x4 > x0,
        // and the bytes are not free to take any two values.)
        let mut s2 = TermStore::new();
        let (x, y) = (word_at(&mut s2, "x", 0, 32), word_at(&mut s2, "x", 1, 32));
        let lt2 = s2.app(Op::Lt, &[x, y]).unwrap();
        assert_eq!(check(&s2, &[lt2]), Found::Nothing);
        // A byte read outside its word: not searched.
        let b = s.symbol_term("x0", Sort::Bv(8));
        let zero = s.constant(Value::bv(8, 0));
        let alone = s.app(Op::Eq, &[b, zero]).unwrap();
        assert_eq!(check(&s, &[xy, alone]), Found::Nothing);
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
        // Out of budget: undecided, and said so.
        assert_eq!(decide_within(&s, &chain, 100), (Found::Nothing, true));
        assert!(!decide(&s, &chain).1);
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
        agree_with_z3(28, false, false);
    }

    #[test]
    fn words_of_bytes_agree_with_z3() {
        agree_with_z3(30, false, true);
    }

    #[test]
    fn masked_symbols_agree_with_z3() {
        agree_with_z3(29, true, false);
    }

    #[test]
    fn a_symbol_read_through_a_mask_is_searched_within_its_range() {
        let mut s = TermStore::new();
        let [kind, x, y] = ["kind", "x", "y"].map(|n| s.symbol_term(n, Sort::Bv(32)));
        let c = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        let (c0, c1, c2, c4) = (c(&mut s, 0), c(&mut s, 1), c(&mut s, 2), c(&mut s, 4));
        let odd = s.app(Op::And, &[kind, c1]).unwrap();
        let is_even = s.app(Op::Eq, &[odd, c0]).unwrap();
        let is_odd = s.app(Op::Eq, &[odd, c1]).unwrap();
        let is_two = s.app(Op::Eq, &[odd, c2]).unwrap();
        let xy = s.app(Op::Lt, &[x, y]).unwrap();
        let yx = s.app(Op::Lt, &[y, x]).unwrap();
        // A merged question: the keys' order chosen by the operation's kind.
        let key = s.app(Op::Ite, &[is_even, x, y]).unwrap();
        let above = s.app(Op::Lt, &[key, c4]).unwrap();
        let set = [is_odd, xy, above];
        match check(&s, &set) {
            Found::Sat(m) => assert!(s.satisfies(&set, &m), "{m:?}"),
            other => panic!("{other:?}"),
        }
        // Both parities are unsat: the range is no part of the core.
        assert_eq!(check(&s, &[is_even, is_odd, xy]), Found::Unsat(vec![is_even, is_odd]));
        // (A parity of 2 is false as made: its bounds decide it.)
        assert!(s.is_false(is_two));
        // A signed remainder ranges below zero: x % 4 can be -3, not -4.
        let rem = s.app(Op::Rem, &[kind, c4]).unwrap();
        let (m3, m4) = (c(&mut s, (-3i32) as u32 as u64), c(&mut s, (-4i32) as u32 as u64));
        let is_m3 = s.app(Op::Eq, &[rem, m3]).unwrap();
        match check(&s, &[is_m3, xy]) {
            Found::Sat(m) => assert!(s.satisfies(&[is_m3, xy], &m), "{m:?}"),
            other => panic!("{other:?}"),
        }
        let is_m4 = s.app(Op::Eq, &[rem, m4]).unwrap();
        assert_eq!(check(&s, &[is_m4, yx]), Found::Unsat(vec![is_m4]));
        // Compared with constants only, `op` is placed among them alone,
        // and a gap's room is not used up by it: 5 < op < 7 with 5 < x < 7
        // has a model (both 6), and x != y with both in the gap has none.
        let op = s.symbol_term("op", Sort::Bv(32));
        let (c5, c7) = (c(&mut s, 5), c(&mut s, 7));
        let within = |s: &mut TermStore, t: TermId| {
            let above = s.app(Op::Lt, &[c5, t]).unwrap();
            let below = s.app(Op::Lt, &[t, c7]).unwrap();
            [above, below]
        };
        let (op_in, x_in, y_in) = (within(&mut s, op), within(&mut s, x), within(&mut s, y));
        let eq = s.app(Op::Eq, &[x, y]).unwrap();
        let set: Vec<TermId> = op_in.iter().chain(&x_in).chain(&y_in).copied().chain([eq]).collect();
        match check(&s, &set) {
            Found::Sat(m) => assert!(s.satisfies(&set, &m), "{m:?}"),
            other => panic!("{other:?}"),
        }
        let ne = s.app(Op::Ne, &[x, y]).unwrap();
        let set: Vec<TermId> = op_in.iter().chain(&x_in).chain(&y_in).copied().chain([ne]).collect();
        assert!(matches!(check(&s, &set), Found::Unsat(_)));
        // Read plainly too, the symbol is searched as itself: `& 1` is
        // then outside the language.
        let plain = s.app(Op::Lt, &[kind, x]).unwrap();
        assert_eq!(check(&s, &[is_odd, plain]), Found::Nothing);
    }

    /// 600 random sets of comparisons (with `masks`, of keys and of
    /// symbols read through masks), each decided by the search and by Z3:
    /// every model satisfies the set, every core is unsat to Z3. `words`:
    /// the keys are words of symbolic bytes ([`Word`]).
    fn agree_with_z3(seed: u64, masks: bool, words: bool) {
        use rand::Rng;
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut s = TermStore::new();
        let syms: Vec<TermId> = (0..5)
            .map(|i| match words {
                true => word_of_bytes(&mut s, &format!("k{i}_"), 32),
                false => s.symbol_term(&format!("k{i}"), Sort::Bv(32)),
            })
            .collect();
        let consts: Vec<TermId> = [0u64, 3, 4, u32::MAX as u64]
            .iter()
            .map(|k| s.constant(Value::bv(32, *k)))
            .collect();
        // Symbols read through masks: `& 1`, `& 3`, `%u 3`, `% 4`.
        let mut masked = Vec::new();
        if masks {
            for (i, (op, m)) in [(Op::And, 1u64), (Op::And, 3), (Op::URem, 3), (Op::Rem, 4)]
                .into_iter()
                .enumerate()
            {
                let sym = s.symbol_term(&format!("op{i}"), Sort::Bv(32));
                let m = s.constant(Value::bv(32, m));
                masked.push(s.app(op, &[sym, m]).unwrap());
            }
        }
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        for i in 0..600 {
            let signed_only = i % 2 == 0;
            let leaf = |s: &mut TermStore, rng: &mut rand::rngs::SmallRng| {
                let a = if rng.gen_bool(0.2) {
                    consts[rng.gen_range(0..consts.len())]
                } else if masks && rng.gen_bool(0.4) {
                    masked[rng.gen_range(0..masked.len())]
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
            crate::enumerate::agrees_with_z3(&s, &set, check(&s, &set), &mut z3, &mut counts);
        }
        let (sat, unsat, nothing) = counts;
        assert!(sat > 50 && unsat > 10, "{sat} sat, {unsat} unsat, {nothing} undecided");
    }
}
