//! Questions over a few input bits, decided by trying every value.
//!
//! A parser's branch question often mentions one or two input bytes once
//! independence has sliced the path condition, yet its terms can be hard
//! for Z3: an expression evaluator's question over one `char` that went
//! through `strtod`'s doubles took Z3 1.8 s (unsat) where the 256 values of
//! the byte are evaluated in well under a millisecond. When every symbol of
//! the set is a Boolean or a bit-vector and their widths add up to at most
//! [`MAX_BITS`], every assignment is evaluated, within a bound on the nodes
//! evaluated ([`MAX_WORK`] for questions over floats or products, whose
//! terms can be large and hard for Z3; [`MAX_EASY_WORK`], and only where
//! the values times the nodes stay within it, for the others). A
//! constraint's value under its own symbols' values is kept from one
//! question to the next ([`Tables`]), and an assignment evaluates only up
//! to the first constraint that refutes it:
//!
//! - the first that makes every constraint true is a model (sat);
//! - when each one makes some constraint false, the set is unsat, and the
//!   constraints that refuted them form an unsat core (every assignment
//!   falsifies one of them). Constraints already in the core are tried
//!   first, and afterwards each is dropped whose fellows still refute
//!   every assignment (within a few times the work bound), so the core
//!   stays small;
//! - an assignment that no constraint refutes and on which one does not
//!   evaluate (a float out of an integer's range, truncated) leaves the
//!   question to the other procedures. A division by zero has SMT-LIB's
//!   value ([`divided_by_zero`]), which is what Z3 would decide with.
//!
//! Evaluation is `eval_op`'s, which is what Z3's translation means (the
//! test `trying_every_value_agrees_with_z3` below compares the answers on
//! random questions, floats included), and a model is checked again by
//! the caller.

use braid_term::{eval_bv, eval_op, Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::sync::Arc;
use std::time::Duration;

/// The most assignments tried (65 536), and the most input bits of a
/// question without floats or products.
pub const MAX_BITS: u32 = 16;

/// The most input bits of a question with floats or products, whose
/// symbols' own constraints leave at most 2^[`MAX_BITS`] assignments.
pub const MAX_HARD_BITS: u32 = 64;

/// The most nodes a question over floats or products may evaluate. On
/// the real parsers tried (bench/RESULTS.md) an answer took
/// 0.15 ms on average (semver.c: 427 in 66 ms).
pub const MAX_WORK: u64 = 1 << 21;

/// The bound for questions without floats, products or quotients, which
/// Z3's kept solver answers in a millisecond or two: 2²¹ evaluations took
/// 38 ms a question (an LZ-style decoder's 16-bit distances: 127 questions,
/// 4.9 s of a 5.5 s run).
pub const MAX_EASY_WORK: u64 = 1 << 17;

/// Each constraint's value under the assignments of its own symbols met
/// so far, kept from one question to the next: a path's constraints come
/// back in every later question on its symbols (concolic execution asks
/// one per branch of the path), and a large one is then evaluated once per
/// value rather than once per value and question. (An expression
/// evaluator over two `char`s, its constraints through `strtod`: 239
/// questions took 7.1 s of a 9.3 s run.)
#[derive(Default)]
pub struct Tables {
    /// Per constraint, its table's place in `tables`.
    slot_of: FxHashMap<TermId, u32>,
    /// Two bits per assignment of a constraint's symbols (in the store's
    /// order, the first lowest): unknown, false, true, or does not
    /// evaluate.
    tables: Vec<Vec<u64>>,
    /// Per read met, its cells when they are all constants ([`ConstRead`]).
    reads: FxHashMap<TermId, Option<Arc<ConstRead>>>,
    /// The same cells by the read's operands past its index: the reads of
    /// one table at different indices share them.
    arrays: FxHashMap<Box<[TermId]>, Arc<ConstRead>>,
    /// Bytes held, all tables together, with each one's bookkeeping.
    bytes: u64,
}

/// A read whose default and cells are constants: a function of its index
/// alone, looked up by binary search over its keys. Its pairs are neither
/// nodes of a question nor evaluated one by one (a codebook's table of
/// 254 string pointers is a read of 1 016 pairs, and each byte a decoder
/// reads through one of them is a read of the strings' 700 cells: a
/// question over one byte took 0.35-0.43 ms in this procedure).
struct ConstRead {
    default: Value,
    keys: Box<[i128]>,
    values: Box<[Value]>,
}

impl ConstRead {
    /// `read`'s cells, if it is a read of constants.
    fn of(store: &TermStore, read: TermId) -> Option<ConstRead> {
        let Node::App(Op::Read, args) = store.node(read) else {
            return None;
        };
        let default = store.as_const(args[1])?;
        let mut keys = Vec::with_capacity(args.len() / 2);
        let mut values = Vec::with_capacity(args.len() / 2);
        for kv in args[2..].chunks_exact(2) {
            let Some(Value::Int(k)) = store.as_const(kv[0]) else {
                return None;
            };
            keys.push(k);
            values.push(store.as_const(kv[1])?);
        }
        Some(ConstRead {
            default,
            keys: keys.into(),
            values: values.into(),
        })
    }

    /// The value at `index` (the keys ascend, [`Op::Read`]).
    fn at(&self, index: i128) -> Value {
        match self.keys.binary_search(&index) {
            Ok(i) => self.values[i],
            Err(_) => self.default,
        }
    }
}

impl Tables {
    /// The most bytes held (4 MiB) when a question starts; past them the
    /// tables start afresh.
    const MAX_BYTES: u64 = 1 << 22;

    /// A table's bookkeeping besides its entries (the map's slot, the
    /// vector's header and allocation).
    const OVERHEAD: u64 = 64;

    const UNKNOWN: u64 = 0;
    const FALSE: u64 = 1;
    const TRUE: u64 = 2;
    const ERR: u64 = 3;

    /// Starts a question: the tables start afresh if they hold too much
    /// (between questions only, so that the places a question found stay
    /// valid until it ends).
    fn start(&mut self) {
        if self.bytes > Self::MAX_BYTES {
            *self = Tables::default();
        }
    }

    /// `read`'s cells if they are constants, found once per read.
    fn const_read(&mut self, store: &TermStore, read: TermId) -> Option<Arc<ConstRead>> {
        if let Some(r) = self.reads.get(&read) {
            return r.clone();
        }
        let Node::App(_, args) = store.node(read) else {
            return None;
        };
        let r = match self.arrays.get(&args[1..]) {
            Some(r) => Some(r.clone()),
            None => {
                let r = ConstRead::of(store, read).map(Arc::new);
                if let Some(r) = &r {
                    self.arrays.insert(args[1..].into(), r.clone());
                    let entry = 4 + 16 + std::mem::size_of::<Value>() as u64;
                    self.bytes += r.keys.len() as u64 * entry;
                }
                r
            }
        };
        self.bytes += Self::OVERHEAD;
        self.reads.insert(read, r.clone());
        r
    }

    /// Constraint `c`'s table's place, if it has one.
    fn place(&self, c: TermId) -> Option<u32> {
        self.slot_of.get(&c).copied()
    }

    /// A new table for constraint `c` over `bits` bits, all unknown.
    fn make(&mut self, c: TermId, bits: u32) -> u32 {
        let words = (1u64 << bits).div_ceil(32);
        self.bytes += words * 8 + Self::OVERHEAD;
        let at = self.tables.len() as u32;
        self.tables.push(vec![0; words as usize]);
        self.slot_of.insert(c, at);
        at
    }

    #[inline]
    fn get(&self, at: u32, idx: u64) -> u64 {
        (self.tables[at as usize][(idx / 32) as usize] >> (2 * (idx % 32))) & 3
    }

    #[inline]
    fn set(&mut self, at: u32, idx: u64, v: u64) {
        self.tables[at as usize][(idx / 32) as usize] |= v << (2 * (idx % 32));
    }
}

/// Per symbol of `order` (a set's nodes): `Some(k)` when every node that
/// reads it is `sym & (2^k - 1)` or `sym %u 2^k` with `k` at most
/// [`MAX_BITS`] (the widest such `k`), `None` when one reads it otherwise.
/// Such a symbol is tried over its `k` low bits only, the others zero:
/// the set sees nothing else of it. A hash table's slot is the key's hash
/// under the table's mask (klib's khash over 32-bit keys: every question
/// of a lookup went to Z3, 9 ms each).
fn masked_bits(store: &TermStore, order: &[TermId]) -> FxHashMap<SymId, Option<u32>> {
    let mut out: FxHashMap<SymId, Option<u32>> = FxHashMap::default();
    let low_bits = |t: TermId| -> Option<u32> {
        let Some(Value::Bv { bits, .. }) = store.as_const(t) else {
            return None;
        };
        Some(bits.trailing_ones()).filter(|&k| (1..=MAX_BITS).contains(&k) && bits >> k == 0)
    };
    let power = |t: TermId| -> Option<u32> {
        let Some(Value::Bv { bits, .. }) = store.as_const(t) else {
            return None;
        };
        Some(bits.trailing_zeros()).filter(|&k| bits.is_power_of_two() && (1..=MAX_BITS).contains(&k))
    };
    for &t in order {
        let Node::App(op, args) = store.node(t) else {
            continue;
        };
        let mask = match (op, args.as_slice()) {
            (Op::And, [a, b]) => match (low_bits(*a), low_bits(*b)) {
                (_, Some(k)) => Some((*a, k)),
                (Some(k), None) => Some((*b, k)),
                _ => None,
            },
            (Op::URem, [a, b]) => power(*b).map(|k| (*a, k)),
            _ => None,
        };
        for &a in args.iter() {
            let Node::Sym(s) = store.node(a) else {
                continue;
            };
            let entry = out.entry(*s).or_insert(Some(0));
            *entry = match (mask, *entry) {
                (Some((m, k)), Some(j)) if m == a => Some(j.max(k)),
                _ => None,
            };
        }
    }
    out
}

/// Per symbol, how many of its low bits constraint `c`'s value depends
/// on (at most its width; Boolean symbols are left out): the low `k` bits
/// of a sum, difference, product, negation or bitwise operation depend on
/// the low `k` bits of its operands only (of a conjunction with a constant
/// on the bits up to the constant's highest), of a shift left by a
/// constant on fewer, of an extension or truncation on its operand's low
/// bits, of a choice on its sides' and every bit its condition reads; an
/// equation or comparison depends on every bit of its sides. A hash
/// table's slot, `hash(key) & (n - 1)`, depends on the low bits of the
/// key's bytes however the hash mixes them with sums, products and
/// exclusive ors, and so does what a program reads through the slot.
fn low_reads(store: &TermStore, c: TermId, acc: &mut FxHashMap<SymId, u32>) {
    let mut seen = rustc_hash::FxHashSet::default();
    bool_reads(store, c, acc, &mut seen);
}

fn bv_width(store: &TermStore, t: TermId) -> Option<u32> {
    match store.sort(t) {
        Sort::Bv(w) => Some(u32::from(w)),
        _ => None,
    }
}

/// What the whole value of `t` depends on.
fn full_reads(store: &TermStore, t: TermId, acc: &mut FxHashMap<SymId, u32>, seen: &mut FxHashSet<(TermId, u32)>) {
    match store.sort(t) {
        Sort::Bv(_) => bits_reads(store, t, u32::MAX, acc, seen),
        Sort::Bool => bool_reads(store, t, acc, seen),
        _ => {
            if !seen.insert((t, u32::MAX)) {
                return;
            }
            if let Node::App(_, args) = store.node(t) {
                for &a in args {
                    full_reads(store, a, acc, seen);
                }
            }
        }
    }
}

/// [`low_reads`] of a Boolean term.
fn bool_reads(store: &TermStore, t: TermId, acc: &mut FxHashMap<SymId, u32>, seen: &mut FxHashSet<(TermId, u32)>) {
    if !seen.insert((t, u32::MAX)) {
        return;
    }
    match store.node(t) {
        Node::Const(_) | Node::Sym(_) => {}
        Node::App(_, args) => {
            for &a in args {
                full_reads(store, a, acc, seen);
            }
        }
    }
}

/// What the low `k` bits of bit-vector term `t` depend on.
fn bits_reads(
    store: &TermStore,
    t: TermId,
    k: u32,
    acc: &mut FxHashMap<SymId, u32>,
    seen: &mut FxHashSet<(TermId, u32)>,
) {
    let Some(w) = bv_width(store, t) else {
        return full_reads(store, t, acc, seen);
    };
    let k = k.min(w);
    if k == 0 || !seen.insert((t, k)) {
        return;
    }
    let constant = |a: TermId| match store.as_const(a) {
        Some(Value::Bv { bits, .. }) => Some(bits),
        _ => None,
    };
    match store.node(t) {
        Node::Const(_) => {}
        Node::Sym(s) => {
            let e = acc.entry(*s).or_insert(0);
            *e = (*e).max(k);
        }
        // Bits above a mask's highest are zero whatever the operand's are.
        Node::App(Op::And, args) if let Some(m) = args.iter().find_map(|a| constant(*a)) => {
            let k = k.min(64 - m.leading_zeros());
            for &a in args {
                bits_reads(store, a, k, acc, seen);
            }
        }
        Node::App(
            Op::Add | Op::Sub | Op::Mul | Op::Neg | Op::And | Op::Or | Op::Xor | Op::Not | Op::Trunc(_),
            args,
        ) => {
            for &a in args {
                bits_reads(store, a, k, acc, seen);
            }
        }
        Node::App(Op::ZExt(_) | Op::SExt(_), args) => bits_reads(store, args[0], k, acc, seen),
        Node::App(Op::Shl, args) if args.len() == 2 => match constant(args[1]) {
            Some(bits) if bits >= u64::from(w) => {}
            Some(bits) => bits_reads(store, args[0], k.saturating_sub(bits as u32), acc, seen),
            None => args.iter().for_each(|a| full_reads(store, *a, acc, seen)),
        },
        Node::App(Op::Ite, args) if args.len() == 3 => {
            bool_reads(store, args[0], acc, seen);
            bits_reads(store, args[1], k, acc, seen);
            bits_reads(store, args[2], k, acc, seen);
        }
        Node::App(_, args) => {
            for &a in args {
                full_reads(store, a, acc, seen);
            }
        }
    }
}

/// A bit of a bit-vector term as [`pinned_bits`] follows it: a constant,
/// a bit of one of the question's symbols (`BIT + 64 * symbol + bit`), or
/// anything else.
const ZERO: u32 = 0;
const ONE: u32 = 1;
const OTHER: u32 = 2;
const BIT: u32 = 3;

/// Per symbol of `syms` (bit-vectors of at most 64 bits), the bits the
/// set's constraints fix — `(mask, value)` — and the constraints that fix
/// them; or two constraints that fix one bit both ways (an unsat core).
///
/// The bits of a term are followed through constants, symbols,
/// extensions, truncations, shifts by constants and bitwise operations,
/// where each of its bits is a constant or one bit of one symbol; a
/// constraint `a == b` (alone or in a conjunction) then fixes each bit of
/// a symbol that one side has where the other has a constant, and
/// `a <u 2^k` the bits of `a` from `k` up to zero. A bit reader's
/// questions are of that shape: an inflater tests `(tag >> n) & 1` where
/// `tag` holds two input bytes, so no constraint is over one symbol alone
/// although each fixes one bit of one.
fn pinned_bits(store: &TermStore, set: &[TermId], syms: &[SymId]) -> Result<Vec<Pins>, [usize; 2]> {
    let sym_at: FxHashMap<SymId, u32> = syms.iter().enumerate().map(|(i, s)| (*s, i as u32)).collect();
    // Each bit-vector node's bits, in one arena: the nodes under the sides
    // of the comparisons that can pin bits, through the operations whose
    // bits are followed (a codebook's table read is one node of unknown
    // bits, whose index's nodes are not looked at; the questions of a
    // decoder's reads through its tables spent a third of this procedure's
    // time on every node's bits).
    let mut arena: Vec<u32> = Vec::new();
    let mut at: FxHashMap<TermId, (u32, u8)> = FxHashMap::default();
    for t in bit_nodes(store, &compared_sides(store, set)) {
        let Sort::Bv(w) = store.sort(t) else {
            continue;
        };
        if w > 64 {
            continue;
        }
        let bits_of = |a: TermId| bits_in(&at, &arena, a);
        let mut out: SmallVec<[u32; 64]> = SmallVec::new();
        match store.node(t) {
            Node::Const(Value::Bv { bits, .. }) => out.extend((0..w).map(|i| ((bits >> i) & 1) as u32)),
            Node::Sym(s) => match sym_at.get(s) {
                Some(&i) => out.extend((0..w).map(|b| BIT + 64 * i + u32::from(b))),
                None => out.extend((0..w).map(|_| OTHER)),
            },
            Node::App(op, args) => {
                let a = bits_of(args[0]);
                let b = args.get(1).and_then(|b| bits_of(*b));
                let amount = args.get(1).and_then(|b| match store.as_const(*b) {
                    Some(Value::Bv { bits, .. }) => Some(bits),
                    _ => None,
                });
                let w = usize::from(w);
                match (op, a, b, amount) {
                    (Op::ZExt(_), Some(a), _, _) => out.extend((0..w).map(|i| a.get(i).copied().unwrap_or(ZERO))),
                    (Op::SExt(_), Some(a), _, _) => {
                        out.extend((0..w).map(|i| a.get(i).or(a.last()).copied().unwrap_or(OTHER)))
                    }
                    (Op::Trunc(_), Some(a), _, _) => out.extend((0..w).map(|i| a.get(i).copied().unwrap_or(OTHER))),
                    // `and` is absorbed by 0 and leaves the other bit where one is 1; `or` the other way round.
                    (Op::And | Op::Or, Some(a), Some(b), _) => {
                        let (absorbing, identity) = if *op == Op::And { (ZERO, ONE) } else { (ONE, ZERO) };
                        out.extend(a.iter().zip(b).map(|(&x, &y)| match (x, y) {
                            _ if x == absorbing || y == absorbing => absorbing,
                            _ if x == identity || x == y => y,
                            _ if y == identity => x,
                            _ => OTHER,
                        }))
                    }
                    (Op::Xor, Some(a), Some(b), _) => out.extend(a.iter().zip(b).map(|(&x, &y)| match (x, y) {
                        (ZERO, y) => y,
                        (x, ZERO) => x,
                        (ONE, ONE) => ZERO,
                        _ => OTHER,
                    })),
                    (Op::Shl, Some(a), _, Some(k)) => out.extend((0..w).map(|i| match k < w as u64 && i as u64 >= k {
                        true => a[i - k as usize],
                        false => ZERO,
                    })),
                    (Op::LShr, Some(a), _, Some(k)) => out.extend((0..w).map(|i| match (i as u64).checked_add(k) {
                        Some(j) if j < w as u64 => a[j as usize],
                        _ => ZERO,
                    })),
                    (Op::AShr, Some(a), _, Some(k)) => out.extend((0..w).map(|i| match (i as u64).checked_add(k) {
                        Some(j) if j < w as u64 => a[j as usize],
                        _ => a[w - 1],
                    })),
                    _ => out.extend((0..w).map(|_| OTHER)),
                }
            }
            _ => continue,
        }
        at.insert(t, (arena.len() as u32, w));
        arena.extend_from_slice(&out);
    }
    let bits_of = |a: TermId| bits_in(&at, &arena, a);
    // (symbol, bit, value, constraint), from every constraint.
    let mut pins: Vec<(u32, u32, bool, usize)> = Vec::new();
    for (c, &root) in set.iter().enumerate() {
        let mut stack = vec![root];
        while let Some(t) = stack.pop() {
            let Node::App(op, args) = store.node(t) else {
                continue;
            };
            let mut pin = |x: u32, v: bool| {
                if x >= BIT {
                    pins.push(((x - BIT) / 64, (x - BIT) % 64, v, c));
                }
            };
            match (op, args.as_slice()) {
                (Op::And, _) if store.sort(t) == Sort::Bool => stack.extend(args.iter().copied()),
                (Op::Eq, [a, b]) => {
                    if let (Some(a), Some(b)) = (bits_of(*a), bits_of(*b)) {
                        for (&x, &y) in a.iter().zip(b) {
                            match (x, y) {
                                (x, ZERO | ONE) => pin(x, y == ONE),
                                (ZERO | ONE, y) => pin(y, x == ONE),
                                _ => {}
                            }
                        }
                    }
                }
                // `a != b` where they differ in at most one bit, of a
                // symbol against a constant: that bit is the other value
                // (`(s & 0x20) != 0`, a bit test of a byte's guard).
                (Op::Ne, [a, b]) => {
                    if let Some(x) = bits_of(*a).zip(bits_of(*b)).and_then(|(a, b)| one_free_bit(a, b)) {
                        pin(x.0, x.1);
                    }
                }
                (Op::ULt, [a, k]) => {
                    if let (Some(a), Some(Value::Bv { bits, .. })) = (bits_of(*a), store.as_const(*k)) {
                        if bits.is_power_of_two() {
                            for &x in &a[bits.trailing_zeros() as usize..] {
                                pin(x, false);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut out: Vec<Pins> = vec![Pins::default(); syms.len()];
    let mut by: FxHashMap<(u32, u32), (bool, usize)> = FxHashMap::default();
    for (sym, bit, v, c) in pins {
        match by.get(&(sym, bit)) {
            Some(&(w, d)) if w != v => return Err([d.min(c), d.max(c)]),
            Some(_) => {}
            None => {
                by.insert((sym, bit), (v, c));
                let p = &mut out[sym as usize];
                p.mask |= 1 << bit;
                p.value |= u64::from(v) << bit;
                if !p.by.contains(&c) {
                    p.by.push(c);
                }
            }
        }
    }
    Ok(out)
}

/// Where `a` and `b` (bits in [`pinned_bits`]'s arena) are equal
/// constants at every place but one, a symbol's bit against a constant:
/// that bit and the value `a != b` gives it.
fn one_free_bit(a: &[u32], b: &[u32]) -> Option<(u32, bool)> {
    let constant = |x: u32| x == ZERO || x == ONE;
    let mut free = None;
    for (&x, &y) in a.iter().zip(b) {
        let (bit, k) = match (x, y) {
            _ if constant(x) && constant(y) && x == y => continue,
            _ if x >= BIT && constant(y) => (x, y),
            _ if y >= BIT && constant(x) => (y, x),
            _ => return None,
        };
        if free.is_some() {
            return None;
        }
        free = Some((bit, k == ZERO));
    }
    free
}

/// The sides of `set`'s comparisons whose bits [`pinned_bits`] reads:
/// of the equations, disequations and `<u` comparisons of its constraints
/// and of their conjunctions.
fn compared_sides(store: &TermStore, set: &[TermId]) -> Vec<TermId> {
    let mut sides = Vec::new();
    let mut stack: Vec<TermId> = set.to_vec();
    while let Some(t) = stack.pop() {
        let Node::App(op, args) = store.node(t) else {
            continue;
        };
        match (op, args.as_slice()) {
            (Op::And, _) if store.sort(t) == Sort::Bool => stack.extend(args.iter().copied()),
            (Op::Eq | Op::Ne, [a, b]) => sides.extend([*a, *b]),
            (Op::ULt, [a, _]) => sides.push(*a),
            _ => {}
        }
    }
    sides
}

/// The nodes from `roots` down through the operations whose bits
/// [`pinned_bits`] follows, children before parents: a node of another
/// operation is one of them, its operands are not.
fn bit_nodes(store: &TermStore, roots: &[TermId]) -> Vec<TermId> {
    store.postorder_below(roots, |store, t| match store.node(t) {
        Node::App(
            Op::ZExt(_) | Op::SExt(_) | Op::Trunc(_) | Op::And | Op::Or | Op::Xor | Op::Shl | Op::LShr | Op::AShr,
            _,
        ) => usize::MAX,
        _ => 0,
    })
}

/// Node `t`'s bits in [`pinned_bits`]'s arena, if it has them.
fn bits_in<'a>(at: &FxHashMap<TermId, (u32, u8)>, arena: &'a [u32], t: TermId) -> Option<&'a [u32]> {
    at.get(&t)
        .map(|&(from, w)| &arena[from as usize..from as usize + w as usize])
}

/// The bits of a symbol its question fixes, and the constraints that fix
/// them ([`pinned_bits`]).
#[derive(Clone, Default)]
struct Pins {
    mask: u64,
    value: u64,
    by: SmallVec<[usize; 4]>,
}

impl Pins {
    /// The `i`-th value of the `width` bits with the pinned ones fixed:
    /// `i`'s bits deposited in the free ones.
    fn nth(&self, width: u32, i: u64) -> u64 {
        let mut free = !self.mask & width_mask(width);
        let (mut v, mut i) = (self.value & width_mask(width), i);
        while free != 0 && i != 0 {
            let low = free & free.wrapping_neg();
            if i & 1 == 1 {
                v |= low;
            }
            i >>= 1;
            free &= free - 1;
        }
        v
    }

    /// The free bits among `width`.
    fn free(&self, width: u32) -> u32 {
        (!self.mask & width_mask(width)).count_ones()
    }
}

fn width_mask(width: u32) -> u64 {
    match width {
        64.. => u64::MAX,
        w => (1u64 << w) - 1,
    }
}

/// What trying every value found.
#[derive(Debug, PartialEq)]
pub enum Found {
    Sat(Model),
    /// Unsat, with a core (a subset of the set).
    Unsat(Vec<TermId>),
    /// Not decided: too many values, a sort other than bits, or an
    /// assignment no constraint refutes where one does not evaluate.
    Nothing,
}

/// One node of the set, its arguments as indices of earlier nodes.
enum Step {
    Const(Value),
    /// The i-th symbol of the assignment.
    Sym(usize),
    App(Op, SmallVec<[u32; 3]>),
    /// A read of constants ([`ConstRead`]) at its index node.
    Table(u32, Arc<ConstRead>),
}

/// A constraint is evaluated on demand ([`Evaluator::holds_on_demand`])
/// where at least one of this many of its nodes is a choice: on demand a
/// node costs more (it is visited twice, its arguments looked at each
/// time) and saves only what the sides not taken and the operands past a
/// deciding one hold. (parson's questions under dse are 70 % choices:
/// 0.9-1.0 s in this procedure with this share or with any choice, 1.6-1.9
/// s in order.)
const ON_DEMAND_SHARE: usize = 4;

/// Whether a test has every constraint evaluated in order.
#[cfg(test)]
fn in_order() -> bool {
    tests::IN_ORDER.with(|o| o.get())
}

#[cfg(not(test))]
fn in_order() -> bool {
    false
}

/// The set compiled for evaluation under one assignment at a time.
struct Evaluator {
    steps: Vec<Step>,
    /// Each constraint's own nodes in post-order, so that one constraint
    /// is evaluated without the others: found when it is first evaluated
    /// ([`Evaluator::own_nodes`]; most are decided by their tables, and
    /// walking each constraint's shared subterms again cost a concolic run
    /// over an expression parser an eighth of its time).
    own: Vec<Option<Vec<u32>>>,
    /// Per constraint, whether it is evaluated on demand
    /// ([`Evaluator::holds_on_demand`]): choices (`ite`) are a large share
    /// of its own nodes ([`ON_DEMAND_SHARE`]).
    on_demand: Vec<bool>,
    /// The stack of [`Evaluator::holds_on_demand`], kept between calls.
    stack: Vec<u32>,
    /// Each constraint's node.
    roots: Vec<u32>,
    /// Nodes met by the walk of [`Evaluator::own_nodes`] under way: those
    /// whose stamp is `walk`.
    walked: Vec<u32>,
    walk: u32,
    /// The symbols' bits tried (0: a Boolean, or a bit-vector of which
    /// the constraints read no bit, [`low_reads`]): a symbol's width, or
    /// for one read only through a mask, the mask's ([`masked_bits`]).
    widths: Vec<u32>,
    /// The symbols' bit-vector widths (0: a Boolean).
    sorts: Vec<u8>,
    assignment: Vec<Value>,
    /// Nodes evaluated (`Err`: does not evaluate), valid under the
    /// current assignment where their stamp is `now`: a new assignment
    /// costs nothing for the nodes it does not reach.
    slots: Vec<Result<Value, ()>>,
    stamps: Vec<u32>,
    now: u32,
    /// Nodes evaluated so far, under every assignment.
    work: u64,
    /// The current assignment's bits.
    k: u64,
    /// Per constraint, where its table's index comes from.
    index: Vec<Projection>,
    /// Per constraint, its table's place in the [`Tables`], once it has
    /// one.
    places: Vec<Option<u32>>,
}

/// A constraint's term, the width of its symbols' bits, and per symbol of
/// it where its bits are in the assignment and how many.
type Projection = (TermId, u32, SmallVec<[(u32, u32); 2]>);

impl Evaluator {
    /// Sets the symbols to the bits of `k` (the first symbol lowest).
    fn assign(&mut self, k: u64) {
        self.k = k;
        let mut rest = k;
        for (i, &w) in self.widths.iter().enumerate() {
            self.assignment[i] = if self.sorts[i] == 0 {
                let b = rest & 1 == 1;
                rest >>= 1;
                Value::Bool(b)
            } else if w == 0 {
                // A bit-vector none of whose bits the constraints read:
                // zero, in a bit of its own that is never set.
                rest >>= 1;
                Value::bv(self.sorts[i], 0)
            } else {
                let v = Value::bv(self.sorts[i], rest & ((1u64 << w) - 1));
                rest >>= w;
                v
            };
        }
        self.now += 1;
    }

    /// Where constraint `c`'s table holds the current assignment's value
    /// (`None`: it keeps no table, being over more bits than are tried).
    fn table_index(&self, c: usize) -> Option<u64> {
        let (_, bits, ref at) = self.index[c];
        if bits > MAX_BITS {
            return None;
        }
        let idx = at.iter().fold((0u64, 0u32), |(idx, shift), &(from, w)| {
            let v = (self.k >> from) & ((1u64 << w) - 1);
            (idx | v << shift, shift + w)
        });
        Some(idx.0)
    }

    /// Constraint `c`'s value under the current assignment as its table
    /// has it (unknown without a table).
    fn known(&self, c: usize, tables: &Tables) -> u64 {
        match (self.places[c], self.table_index(c)) {
            (Some(at), Some(idx)) => tables.get(at, idx),
            _ => Tables::UNKNOWN,
        }
    }

    /// Constraint `c` under the current assignment, from its table if it
    /// has been evaluated under the same values of its symbols before.
    fn holds_kept(&mut self, c: usize, tables: &mut Tables) -> Result<bool, ()> {
        // Over more bits, a table would be larger than the values tried.
        let Some(idx) = self.table_index(c) else {
            return self.holds(c);
        };
        if let Some(at) = self.places[c] {
            match tables.get(at, idx) {
                Tables::FALSE => return Ok(false),
                Tables::TRUE => return Ok(true),
                Tables::ERR => return Err(()),
                _ => {}
            }
        }
        let r = self.holds(c);
        let v = match r {
            Ok(false) => Tables::FALSE,
            Ok(true) => Tables::TRUE,
            Err(()) => Tables::ERR,
        };
        let at = match self.places[c] {
            Some(at) => at,
            None => {
                let at = tables.make(self.index[c].0, self.index[c].1);
                self.places[c] = Some(at);
                at
            }
        };
        tables.set(at, idx, v);
        r
    }

    /// The first of `order`'s constraints that the current assignment
    /// makes false, and whether one does not evaluate under it. The
    /// tables are read first: a constraint is evaluated only when none
    /// of them refutes the assignment (a question repeats its path's
    /// constraints, evaluated by earlier questions, and adds one).
    fn refuter(&mut self, order: &[usize], tables: &mut Tables) -> (Option<usize>, bool) {
        let mut undecided = false;
        // A look-up counts as a node evaluated: the work bound holds
        // where every value is in the tables.
        self.work += order.len() as u64;
        for &c in order {
            match self.known(c, tables) {
                Tables::FALSE => return (Some(c), false),
                Tables::ERR => undecided = true,
                _ => {}
            }
        }
        for &c in order {
            match self.holds_kept(c, tables) {
                Ok(true) => {}
                Ok(false) => return (Some(c), false),
                Err(()) => undecided = true,
            }
        }
        (None, undecided)
    }

    /// Finds constraint `c`'s own nodes, in post-order (constants left out
    /// but for the constraint itself).
    fn own_nodes(&mut self, c: usize) {
        if self.own[c].is_some() {
            return;
        }
        self.walk += 1;
        let (root, walk) = (self.roots[c], self.walk);
        let mut out = Vec::new();
        let mut stack = vec![(root, false)];
        while let Some((t, expanded)) = stack.pop() {
            if expanded {
                out.push(t);
                continue;
            }
            if self.walked[t as usize] == walk {
                continue;
            }
            self.walked[t as usize] = walk;
            stack.push((t, true));
            match &self.steps[t as usize] {
                Step::App(_, args) => stack.extend(args.iter().rev().map(|a| (*a, false))),
                Step::Table(index, _) => stack.push((*index, false)),
                _ => {}
            }
        }
        out.retain(|&i| i == root || !matches!(self.steps[i as usize], Step::Const(_)));
        let choices = (out.iter())
            .filter(|&&i| matches!(self.steps[i as usize], Step::App(Op::Ite, _)))
            .count();
        self.on_demand[c] = choices * ON_DEMAND_SHARE >= out.len() && !in_order();
        self.own[c] = Some(out);
    }

    /// Constraint `c` under the current assignment.
    fn holds(&mut self, c: usize) -> Result<bool, ()> {
        self.own_nodes(c);
        if self.on_demand[c] {
            return self.holds_on_demand(c);
        }
        let own = self.own[c].take().expect("found above");
        for &i in &own {
            let i = i as usize;
            if self.stamps[i] == self.now {
                continue;
            }
            self.work += 1;
            self.slots[i] = self.compute(i);
            self.stamps[i] = self.now;
        }
        let root = *own.last().expect("a constraint has a node") as usize;
        self.own[c] = Some(own);
        match self.slots[root] {
            Ok(Value::Bool(b)) => Ok(b),
            _ => Err(()),
        }
    }

    /// Whether node `i` has its value under the current assignment.
    #[inline]
    fn ready(&self, i: u32) -> bool {
        self.stamps[i as usize] == self.now || matches!(self.steps[i as usize], Step::Const(_))
    }

    /// Pushes on `stack` the argument nodes `i` needs and does not have
    /// yet: a choice's condition, then only the side it takes; a small
    /// conjunction's (disjunction's) operands one at a time up to the
    /// first false (true) one; every argument of anything else (a table's
    /// read has hundreds, looked at once). Whether it pushed any: if not,
    /// `i` can be computed.
    fn push_needed(&self, i: u32, stack: &mut Vec<u32>) -> bool {
        /// Operands past this many are all evaluated (each look for the
        /// next one starts from the first).
        const ONE_AT_A_TIME: usize = 16;
        let (op, args) = match &self.steps[i as usize] {
            Step::App(op, args) => (op, args),
            Step::Table(index, _) if !self.ready(*index) => {
                stack.push(*index);
                return true;
            }
            _ => return false,
        };
        let one = |stack: &mut Vec<u32>, a: u32| {
            stack.push(a);
            true
        };
        match op {
            Op::Ite if !self.ready(args[0]) => one(stack, args[0]),
            Op::Ite => {
                let side = match self.slots[args[0] as usize] {
                    Ok(Value::Bool(true)) => args[1],
                    Ok(_) => args[2],
                    Err(()) => return false,
                };
                !self.ready(side) && one(stack, side)
            }
            // A read at an `Int` index: the value at its key only (a
            // `strtod`'s table has 512 pairs).
            Op::Read if !self.ready(args[0]) => one(stack, args[0]),
            Op::Read
                if let Ok(Value::Int(index)) = self.slots[args[0] as usize]
                    && let Some(at) = self.read_at(args, index) =>
            {
                !self.ready(at) && one(stack, at)
            }
            Op::And | Op::Or if args.len() <= ONE_AT_A_TIME => {
                let stop = *op == Op::Or;
                for &a in args {
                    if !self.ready(a) {
                        return one(stack, a);
                    }
                    if self.slots[a as usize] == Ok(Value::Bool(stop)) {
                        return false;
                    }
                }
                false
            }
            _ => {
                let before = stack.len();
                stack.extend(args.iter().copied().filter(|a| !self.ready(*a)));
                stack.len() > before
            }
        }
    }

    /// Constraint `c` under the current assignment, its nodes evaluated
    /// as they are needed from its root down ([`Evaluator::push_needed`]): a
    /// choice evaluates the side it takes only. A value of several
    /// merged paths is a chain of choices (multise's `choose`: a
    /// decoder's value looked up through a table of 22 characters for
    /// each of two bytes, 1 000 nodes of which about 50 are on the way to
    /// one value).
    fn holds_on_demand(&mut self, c: usize) -> Result<bool, ()> {
        let root = self.roots[c];
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(root);
        while let Some(&i) = stack.last() {
            if self.ready(i) {
                stack.pop();
                continue;
            }
            if !self.push_needed(i, &mut stack) {
                stack.pop();
                self.work += 1;
                let i = i as usize;
                self.slots[i] = self.compute(i);
                self.stamps[i] = self.now;
            }
        }
        self.stack = stack;
        match self.slots[root as usize] {
            Ok(Value::Bool(b)) => Ok(b),
            _ => Err(()),
        }
    }

    /// The node a read (`args`: index, default, then key and value pairs,
    /// the keys `Int` constants in ascending order) takes at `index`;
    /// `None` if a key it looks at has no value yet (not a constant).
    fn read_at(&self, args: &[u32], index: i128) -> Option<u32> {
        let key = |k: u32| match self.slots[k as usize] {
            _ if !self.ready(k) => None,
            Ok(Value::Int(k)) => Some(k),
            _ => Some(i128::MAX),
        };
        braid_term::read_at(args, index, key)
    }

    /// Node `i`'s value from its arguments' (those it needs, see
    /// [`Evaluator::push_needed`], are evaluated).
    fn compute(&self, i: usize) -> Result<Value, ()> {
        let slot = |a: u32| self.slots[a as usize];
        match &self.steps[i] {
            Step::Const(v) => Ok(*v),
            Step::Sym(s) => Ok(self.assignment[*s]),
            Step::Table(index, read) => match slot(*index) {
                Ok(Value::Int(k)) => Ok(read.at(k)),
                _ => Err(()),
            },
            Step::App(Op::Ite, args) => match slot(args[0]) {
                Ok(Value::Bool(true)) => slot(args[1]),
                Ok(_) => slot(args[2]),
                Err(()) => Err(()),
            },
            // A conjunction or disjunction (of truth values, not bits):
            // the first false (true) operand decides, whatever the
            // others are (one that does not evaluate included), and
            // those past it are not looked at (evaluated on demand,
            // they are not evaluated: [`Evaluator::push_needed`]).
            Step::App(op @ (Op::And | Op::Or), args) if !matches!(slot(args[0]), Ok(Value::Bv { .. })) => {
                let stop = *op == Op::Or;
                let mut out = Ok(Value::Bool(!stop));
                for a in args.iter() {
                    match slot(*a) {
                        Ok(Value::Bool(b)) if b == stop => return Ok(Value::Bool(stop)),
                        Ok(Value::Bool(_)) => {}
                        _ => out = Err(()),
                    }
                }
                out
            }
            // Two bit-vectors of one width: their bits, read in place
            // (`eval_bv`, which agrees with `eval_op` where it answers;
            // copying each operand's value out first took a third of an
            // inflater's run, whose questions are over 16 input bits).
            Step::App(op, args) if let Some(v) = self.bits_op(*op, args) => Ok(v),
            // Up to three arguments on the stack (collected, they
            // took a quarter of a concolic run over an expression
            // evaluator).
            Step::App(op, args) if args.len() <= 3 => {
                let mut vals = [Value::Bool(false); 3];
                let mut ok = true;
                for (v, a) in vals.iter_mut().zip(args.iter()) {
                    match slot(*a) {
                        Ok(x) => *v = x,
                        Err(()) => {
                            ok = false;
                            break;
                        }
                    }
                }
                let vals = &vals[..args.len()];
                match ok {
                    true => eval_op(*op, vals).or_else(|_| divided_by_zero(*op, vals)),
                    false => Err(()),
                }
            }
            // A read at an index: the value at its key, the others
            // not collected (a `strtod`'s table: 512 pairs).
            // The keys are `Int` constants in ascending order.
            Step::App(Op::Read, args) => match slot(args[0]) {
                Ok(Value::Int(index)) => self.read_at(args, index).map_or(Err(()), slot),
                Ok(index) => args[2..]
                    .chunks_exact(2)
                    .find(|kv| slot(kv[0]) == Ok(index))
                    .map_or(slot(args[1]), |kv| slot(kv[1])),
                Err(()) => Err(()),
            },
            Step::App(op, args) => args
                .iter()
                .map(|a| slot(*a))
                .collect::<Result<SmallVec<[Value; 3]>, ()>>()
                .and_then(|vals| eval_op(*op, &vals).or_else(|_| divided_by_zero(*op, &vals))),
        }
    }

    /// `op` over two evaluated bit-vectors of one width, where
    /// [`eval_bv`] answers.
    fn bits_op(&self, op: Op, args: &[u32]) -> Option<Value> {
        let [a, b] = args else { return None };
        match (&self.slots[*a as usize], &self.slots[*b as usize]) {
            (Ok(Value::Bv { width, bits: x }), Ok(Value::Bv { width: w, bits: y })) if width == w => {
                eval_bv(op, *width, *x, *y)
            }
            _ => None,
        }
    }

    /// Whether every assignment makes one of `subset` false, found before
    /// the work done reaches `limit` (past it: no).
    fn refute_all(&mut self, keys: &[u64], subset: &[usize], limit: u64, tables: &mut Tables) -> bool {
        keys.iter().all(|&k| {
            self.assign(k);
            self.work <= limit && self.refuter(subset, tables).0.is_some()
        })
    }
}

/// Per symbol, the constants an equation of the set's nodes compares it
/// with (`s == k`), sorted.
fn compared_with(store: &TermStore, order: &[TermId]) -> FxHashMap<SymId, Vec<u64>> {
    let mut out: FxHashMap<SymId, Vec<u64>> = FxHashMap::default();
    for &t in order {
        let Node::App(Op::Eq, args) = store.node(t) else {
            continue;
        };
        let [a, b] = args[..] else { continue };
        let (sym, k) = match (store.node(a), store.node(b)) {
            (Node::Sym(s), Node::Const(Value::Bv { bits, .. }))
            | (Node::Const(Value::Bv { bits, .. }), Node::Sym(s)) => (*s, *bits),
            _ => continue,
        };
        out.entry(sym).or_default().push(k);
    }
    for ks in out.values_mut() {
        ks.sort_unstable();
        ks.dedup();
    }
    out
}

/// A bit-vector division or remainder by zero as SMT-LIB (and so Z3, to
/// which braid's terms translate them as `bvudiv`, `bvurem`, `bvsdiv`,
/// `bvsrem`) defines it: the quotient all ones (signed: 1 for a negative
/// dividend), the remainder the dividend. `eval_op` has no value there
/// (WebAssembly traps); the question is Z3's, so these answer as Z3 would.
fn divided_by_zero(op: Op, args: &[Value]) -> Result<Value, ()> {
    let [Value::Bv { width, bits }, Value::Bv { bits: 0, .. }] = *args else {
        return Err(());
    };
    let ones = Value::bv(width, u64::MAX);
    let negative = width > 0 && (bits >> (width - 1)) & 1 == 1;
    match op {
        Op::UDiv => Ok(ones),
        Op::Div if negative => Ok(Value::bv(width, 1)),
        Op::Div => Ok(ones),
        Op::URem | Op::Rem => Ok(args[0]),
        _ => Err(()),
    }
}

/// Every assignment of the set's symbols, tried (see the module's doc),
/// with tables of its own.
#[cfg(test)]
pub fn check(store: &TermStore, set: &[TermId]) -> Found {
    check_kept(store, set, &mut Tables::default(), MAX_EASY_WORK)
}

/// The bound on the nodes a question without floats or products may
/// evaluate when the backend takes `per_call` a call on such questions:
/// about the nodes evaluated in that time (2²¹ took 38 ms, so 32 a
/// microsecond leaves room), within [`MAX_EASY_WORK`] and [`MAX_WORK`].
/// Where Z3 answers in a millisecond or two, as on an LZ-style decoder's
/// questions, that is [`MAX_EASY_WORK`]; an inflater's questions over two
/// bytes took it 20 ms a call.
pub fn easy_bound(per_call: Duration) -> u64 {
    const NODES_PER_MICROSECOND: u64 = 32;
    (per_call.as_micros() as u64)
        .saturating_mul(NODES_PER_MICROSECOND)
        .clamp(MAX_EASY_WORK, MAX_WORK)
}

/// [`check`], with the constraints' values kept in `tables` from one
/// question to the next, and `easy` the bound on the nodes a question
/// without floats or products evaluates ([`easy_bound`]).
pub fn check_kept(store: &TermStore, set: &[TermId], tables: &mut Tables, easy: u64) -> Found {
    match check_narrowed(store, set, tables, easy, None) {
        Found::Nothing => check_low_bits(store, set, tables, easy),
        found => found,
    }
}

/// Where trying every value of the symbols is too much: the constraints
/// that read only their symbols' low bits ([`low_reads`]), over those bits
/// alone (the others zero, which they do not see), when they are at most
/// [`MAX_BITS`]. Unsat there is unsat for the whole set, with a core among
/// them; a model is one of the set's where they are all of it.
fn check_low_bits(store: &TermStore, set: &[TermId], tables: &mut Tables, easy: u64) -> Found {
    let mut narrow: FxHashMap<SymId, u32> = FxHashMap::default();
    let mut subset = Vec::new();
    for &c in set {
        let mut reads = FxHashMap::default();
        low_reads(store, c, &mut reads);
        let low = reads
            .iter()
            .all(|(s, &k)| matches!(store.symbol(*s).sort, Sort::Bv(w) if k < u32::from(w)));
        if !low || reads.is_empty() {
            continue;
        }
        for (s, k) in reads {
            let e = narrow.entry(s).or_insert(0);
            *e = (*e).max(k);
        }
        subset.push(c);
    }
    if subset.is_empty() || narrow.values().sum::<u32>() > MAX_BITS {
        return Found::Nothing;
    }
    match check_narrowed(store, &subset, tables, easy, Some(&narrow)) {
        Found::Sat(model) if subset.len() == set.len() => Found::Sat(model),
        Found::Unsat(core) => Found::Unsat(core),
        _ => Found::Nothing,
    }
}

/// The set's nodes, children before parents, each once
/// ([`TermStore::postorder`]); a read of constants ([`ConstRead`]) is
/// entered through its index alone.
fn set_nodes(store: &TermStore, set: &[TermId], tables: &mut Tables) -> Vec<TermId> {
    store.postorder_below(set, |store, t| match store.node(t) {
        Node::App(Op::Read, _) if tables.const_read(store, t).is_some() => 1,
        _ => usize::MAX,
    })
}

/// [`check_kept`], each symbol of `narrow` tried over that many low bits.
fn check_narrowed(
    store: &TermStore,
    set: &[TermId],
    tables: &mut Tables,
    easy: u64,
    narrow: Option<&FxHashMap<SymId, u32>>,
) -> Found {
    tables.start();
    // The symbols and their widths.
    let mut syms: Vec<SymId> = set.iter().flat_map(|c| store.symbols(*c).iter().copied()).collect();
    syms.sort_unstable();
    syms.dedup();
    // The set's nodes in post-order (arguments first), numbered.
    let order = set_nodes(store, set, tables);
    let masked = masked_bits(store, &order);
    let (mut widths, mut sorts) = (Vec::with_capacity(syms.len()), Vec::with_capacity(syms.len()));
    for &s in &syms {
        match store.symbol(s).sort {
            Sort::Bool => {
                widths.push(0u32);
                sorts.push(0u8);
            }
            // A symbol narrow enough is tried whole, as before masks were
            // (its constraints keep their tables).
            Sort::Bv(w) => {
                let bits = match (narrow.map(|n| n.get(&s)), u32::from(w) > MAX_BITS) {
                    // Bytes of a key that the mask cuts away are read in
                    // none of their bits (they are not in `narrow`): tried
                    // at zero alone (two keys of 4 bytes under `& 15`
                    // through uthash's hash: 2^8 assignments instead of
                    // 2^56, and Z3 took up to 2 s a question).
                    (Some(k), _) => k.copied().unwrap_or(0).min(u32::from(w)),
                    (None, true) => masked.get(&s).copied().flatten().unwrap_or(u32::from(w)),
                    (None, false) => u32::from(w),
                };
                if bits > MAX_BITS {
                    return Found::Nothing;
                }
                widths.push(bits);
                sorts.push(w);
            }
            _ => return Found::Nothing,
        }
    }
    // The bits the constraints fix are not tried ([`pinned_bits`]).
    let pins = match pinned_bits(store, set, &syms) {
        Ok(pins) => pins,
        Err([a, b]) if a == b => return Found::Unsat(vec![set[a]]),
        Err(both) => return Found::Unsat(both.iter().map(|&c| set[c]).collect()),
    };
    let free: Vec<u32> = widths
        .iter()
        .zip(&pins)
        .zip(&sorts)
        .map(|((&w, p), &sort)| if sort == 0 { 1 } else { p.free(w) })
        .collect();
    let bits: u32 = free.iter().sum();
    // An assignment holds every symbol's bits, fixed or free, in 64.
    let held: u32 = widths.iter().map(|w| (*w).max(1)).sum();
    if bits > MAX_HARD_BITS || held > MAX_HARD_BITS {
        return Found::Nothing;
    }
    let hard = || {
        order.iter().any(|t| {
            matches!(store.sort(*t), Sort::F32 | Sort::F64)
                || matches!(
                    store.node(*t),
                    Node::App(Op::Mul | Op::Div | Op::Rem | Op::UDiv | Op::URem, _)
                )
        })
    };
    // A question Z3 answers at once is tried only where every value
    // costs little; another one (floats, products) is tried within the
    // work it turns out to cost, which is much less than every node under
    // every value where small constraints refute most values before the
    // large ones are reached (an expression evaluator's question over one
    // `char` through `strtod`: 48 constraints, 5.5 MB as SMT-LIB, 0.4 s
    // and hundreds of MB in Z3), and over several symbols when their own
    // constraints leave each a few values.
    //
    // A question Z3 answers at once and over too many values is still
    // tried where each symbol's values cost little to try one symbol at a
    // time: its own constraints often leave it one or a few (a bit reader
    // tests an input byte bit by bit, `(b >> k) & 1 == 0`; an inflater's
    // questions over two bytes, 300 nodes each, took Z3 1-100 ms a call),
    // and the product of what they leave is then held to the same bound
    // (the work of both within the bound).
    let easy_work = |values: u64| values.saturating_mul(order.len() as u64) <= easy;
    let one_at_a_time = |free: &[u32]| free.iter().map(|f| 1u64 << f).sum::<u64>() <= 1 << MAX_BITS;
    let hard = if bits > MAX_BITS || !easy_work(1u64 << bits) {
        match hard() {
            true => true,
            false if one_at_a_time(&free) => false,
            false => return Found::Nothing,
        }
    } else {
        hard()
    };
    let budget = if hard { MAX_WORK } else { easy };
    let index: FxHashMap<TermId, u32> = order.iter().enumerate().map(|(i, t)| (*t, i as u32)).collect();
    let sym_at: FxHashMap<SymId, usize> = syms.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let mut ev = Evaluator {
        steps: order
            .iter()
            .map(|t| match store.node(*t) {
                Node::Const(v) => Step::Const(*v),
                Node::Sym(s) => Step::Sym(sym_at[s]),
                Node::App(Op::Read, args) if let Some(read) = tables.const_read(store, *t) => {
                    Step::Table(index[&args[0]], read)
                }
                Node::App(op, args) => Step::App(*op, args.iter().map(|a| index[a]).collect()),
            })
            .collect(),
        // Constants have their values from the start, and only a
        // constraint that is one evaluates one (a read's table has a
        // thousand).
        own: vec![None; set.len()],
        on_demand: vec![false; set.len()],
        stack: Vec::new(),
        roots: set.iter().map(|c| index[c]).collect(),
        walked: vec![0; order.len()],
        walk: 0,
        widths,
        sorts,
        assignment: vec![Value::Bool(false); syms.len()],
        slots: order
            .iter()
            .map(|t| match store.node(*t) {
                Node::Const(v) => Ok(*v),
                _ => Err(()),
            })
            .collect(),
        stamps: vec![0; order.len()],
        now: 0,
        work: 0,
        k: 0,
        index: Vec::with_capacity(set.len()),
        places: set.iter().map(|c| tables.place(*c)).collect(),
    };
    // Where each symbol's bits are in an assignment.
    let mut from = Vec::with_capacity(syms.len());
    let mut next = 0u32;
    for w in &ev.widths {
        from.push(next);
        next += (*w).max(1);
    }
    for &c in set {
        let at: SmallVec<[(u32, u32); 2]> = store
            .symbols(c)
            .iter()
            .map(|s| (from[sym_at[s]], ev.widths[sym_at[s]].max(1)))
            .collect();
        // A table is by the values of the constraint's symbols at their
        // widths; a masked symbol's bits depend on the question (the
        // widest mask of it there), so its constraints keep no table.
        let narrowed = |s: &SymId| ev.widths[sym_at[s]] != u32::from(ev.sorts[sym_at[s]]) && ev.sorts[sym_at[s]] > 0;
        let bits = match store.symbols(c).iter().any(narrowed) {
            true => u32::MAX,
            false => at.iter().map(|(_, w)| w).sum(),
        };
        ev.index.push((c, bits, at));
    }
    // Each symbol's values that the constraints over it alone allow; the
    // constraints that refuted the others belong to any core.
    let mut allowed: Vec<Vec<u64>> = Vec::with_capacity(syms.len());
    let mut pruned_by: Vec<usize> = Vec::new();
    let compared = compared_with(store, &order);
    // Per symbol, how many of its allowed values (the first ones) it is
    // compared with (all of them where none).
    let mut compared_first: Vec<usize> = Vec::with_capacity(syms.len());
    for (i, &sym) in syms.iter().enumerate() {
        // The last constraint that refuted a value is tried first, so that
        // a run of values one constraint refutes looks no further.
        let mut own: Vec<usize> = (0..set.len()).filter(|&c| store.symbols(set[c]) == [sym]).collect();
        let mut values = Vec::new();
        let mut refuters = Vec::new();
        // The pinned bits' constraints refute the other values.
        let pinned = ev.widths[i] > 0 && pins[i].free(ev.widths[i]) < ev.widths[i];
        if pinned {
            refuters.extend(pins[i].by.iter().copied());
        }
        for n in 0..1u64 << free[i] {
            if ev.work > budget {
                return Found::Nothing;
            }
            let v = match ev.widths[i] {
                0 => n,
                w => pins[i].nth(w, n),
            };
            ev.assign(v << from[i]);
            match ev.refuter(&own, tables).0 {
                Some(c) => {
                    if !refuters.contains(&c) {
                        refuters.push(c);
                    }
                    if own[0] != c {
                        let at = own.iter().position(|&o| o == c).expect("a refuter is one of them");
                        own[..=at].rotate_right(1);
                    }
                }
                None => values.push(v),
            }
        }
        if values.is_empty() {
            refuters.sort_unstable();
            return Found::Unsat(refuters.into_iter().map(|c| set[c]).collect());
        }
        // The values the symbol is compared with first: a sat question
        // over bytes a parser tests against characters has its models
        // among them.
        let mut these = values.len();
        if let Some(first) = compared.get(&sym) {
            let (mut cmp, rest): (Vec<u64>, Vec<u64>) =
                values.into_iter().partition(|v| first.binary_search(v).is_ok());
            if !cmp.is_empty() {
                these = cmp.len();
            }
            cmp.extend(rest);
            values = cmp;
        }
        compared_first.push(these);
        for c in refuters {
            if !pruned_by.contains(&c) {
                pruned_by.push(c);
            }
        }
        allowed.push(values);
    }
    // Every assignment of allowed values, as bits, tried within the work
    // bound, with no estimate first: an assignment stops at its first
    // refuting constraint, often a table's entry or a small constraint,
    // so values times nodes overstates the work (an inflater's questions
    // over two bytes, 150-400 nodes over 8 192 assignments, took 5 ms an
    // answer against Z3's 20 ms a call), and giving up costs the bound,
    // which follows Z3's time per call.
    let product = allowed.iter().try_fold(1u64, |n, a| n.checked_mul(a.len() as u64));
    // The assignments of values compared with come first, then the rest.
    let keys: Vec<u64> = match product {
        Some(n) if n <= 1 << MAX_BITS => {
            let mut keys = vec![(0u64, true)];
            for ((a, &shift), &these) in allowed.iter().zip(&from).zip(&compared_first) {
                keys = keys
                    .iter()
                    .flat_map(|&(k, first)| {
                        a.iter()
                            .enumerate()
                            .map(move |(i, v)| (k | v << shift, first && i < these))
                    })
                    .collect();
            }
            let first = keys.iter().filter(|k| k.1);
            first.chain(keys.iter().filter(|k| !k.1)).map(|k| k.0).collect()
        }
        _ => return Found::Nothing,
    };
    // Constraints that refuted an assignment so far, tried first.
    let mut core: Vec<usize> = Vec::new();
    let (mut tried, mut order_changed): (Vec<usize>, bool) = (Vec::new(), true);
    for &k in &keys {
        if ev.work > budget {
            return Found::Nothing;
        }
        ev.assign(k);
        // Constraints that refuted an assignment first.
        if order_changed {
            tried = core
                .iter()
                .copied()
                .chain((0..set.len()).filter(|c| !core.contains(c)))
                .collect();
            order_changed = false;
        }
        let (refuter, undecided) = ev.refuter(&tried, tables);
        match (refuter, undecided) {
            (Some(c), _) if core.contains(&c) => {}
            (Some(c), _) => {
                core.push(c);
                order_changed = true;
            }
            (None, true) => return Found::Nothing,
            (None, false) => {
                return Found::Sat(syms.iter().copied().zip(ev.assignment.iter().copied()).collect());
            }
        }
    }
    // The first refuter of each assignment need not be needed: each one
    // is dropped whose fellows refute every assignment without it, while
    // the work stays within a few times the bound (a smaller core answers
    // more later questions).
    if core.len() > 1 {
        let limit = ev.work + budget * 4;
        let mut i = 0;
        while i < core.len() && core.len() > 1 && ev.work <= limit {
            let without: Vec<usize> = core.iter().copied().filter(|&c| c != core[i]).collect();
            if ev.refute_all(&keys, &without, limit, tables) {
                core = without;
            } else {
                i += 1;
            }
        }
    }
    for c in pruned_by {
        if !core.contains(&c) {
            core.push(c);
        }
    }
    core.sort_unstable();
    Found::Unsat(core.into_iter().map(|c| set[c]).collect())
}

/// Tests: `found`, braid's answer to `set`, against Z3's: a model
/// satisfies the set, a core is unsat to Z3, and an answer is not the
/// opposite of Z3's. Counted in `(sat, unsat, undecided)`.
#[cfg(test)]
pub(crate) fn agrees_with_z3(
    s: &TermStore,
    set: &[TermId],
    found: Found,
    z3: &mut crate::Z3Solver,
    counts: &mut (u32, u32, u32),
) {
    use crate::{SatResult, Solver};
    match (found, z3.check(s, set)) {
        (Found::Sat(m), SatResult::Sat(_)) => {
            assert!(s.satisfies(set, &m), "{set:?}: {m:?}");
            counts.0 += 1;
        }
        (Found::Unsat(core), SatResult::Unsat) => {
            assert_eq!(z3.check(s, &core), SatResult::Unsat, "core {core:?} of {set:?}");
            counts.1 += 1;
        }
        (Found::Nothing, _) => counts.2 += 1,
        (mine, theirs) => panic!("{set:?}: {mine:?} against Z3's {theirs:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byte_gt(s: &mut TermStore, x: TermId, k: u64) -> TermId {
        let c = s.constant(Value::bv(8, k));
        s.app(Op::UGt, &[x, c]).unwrap()
    }

    /// A bit reader over bytes `x`, `y`, `z`: `tag = x | y << 8 | z << 16`
    /// (32 bits), bit `n` of it tested against `v`.
    fn tag_bit(s: &mut TermStore, bytes: &[TermId], n: u64, v: u64) -> TermId {
        let mut tag = s.constant(Value::bv(32, 0));
        for (i, &b) in bytes.iter().enumerate() {
            let wide = s.app(Op::ZExt(32), &[b]).unwrap();
            let by = s.constant(Value::bv(32, 8 * i as u64));
            let shifted = s.app(Op::Shl, &[wide, by]).unwrap();
            tag = s.app(Op::Or, &[tag, shifted]).unwrap();
        }
        let k = s.constant(Value::bv(32, n));
        let one = s.constant(Value::bv(32, 1));
        let shifted = s.app(Op::LShr, &[tag, k]).unwrap();
        let bit = s.app(Op::And, &[shifted, one]).unwrap();
        let v = s.constant(Value::bv(32, v));
        s.app(Op::Eq, &[bit, v]).unwrap()
    }

    #[test]
    fn a_bit_test_that_fails_pins_its_bit() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(8));
        let syms = [s.symbols(x)[0], s.symbols(y)[0]];
        let [bit5, bit0, zero, two] = [0x20u64, 1, 0, 2].map(|v| s.constant(Value::bv(8, v)));
        // `x & 0x20 != 0`: bit 5 set; `!(x & 1 == 0)`: bit 0 set.
        let m5 = s.app(Op::And, &[x, bit5]).unwrap();
        let set5 = s.app(Op::Ne, &[m5, zero]).unwrap();
        let m0 = s.app(Op::And, &[x, bit0]).unwrap();
        let clear0 = s.app(Op::Eq, &[m0, zero]).unwrap();
        let set0 = s.not(clear0);
        // `y & 2 != 2`: bit 1 clear. `x != y` pins nothing.
        let m1 = s.app(Op::And, &[y, two]).unwrap();
        let clear1 = s.app(Op::Ne, &[m1, two]).unwrap();
        let apart = s.app(Op::Ne, &[x, y]).unwrap();
        let set = [set5, set0, clear1, apart];
        let pins = pinned_bits(&s, &set, &syms).unwrap_or_else(|_| panic!("no conflict"));
        assert_eq!((pins[0].mask, pins[0].value), (0b10_0001, 0b10_0001));
        assert_eq!((pins[1].mask, pins[1].value), (0b10, 0));
    }

    #[test]
    fn bits_a_bit_reader_fixes_are_not_tried() {
        let mut s = TermStore::new();
        let bytes: Vec<TermId> = ["x", "y", "z"].iter().map(|n| s.symbol_term(n, Sort::Bv(8))).collect();
        let syms: Vec<SymId> = bytes.iter().map(|b| s.symbols(*b)[0]).collect();
        // Bit 9 of the tag is bit 1 of y; bit 3 is bit 3 of x.
        let y1 = tag_bit(&mut s, &bytes, 9, 1);
        let x3 = tag_bit(&mut s, &bytes, 3, 0);
        // `trunc8(x >> 4) <u 2`: x's bits 5 to 7 are clear.
        let four = s.constant(Value::bv(8, 4));
        let two = s.constant(Value::bv(8, 2));
        let high = s.app(Op::LShr, &[bytes[0], four]).unwrap();
        let small = s.app(Op::ULt, &[high, two]).unwrap();
        let set = [y1, x3, small];
        let pins = pinned_bits(&s, &set, &syms).unwrap_or_else(|_| panic!("no conflict"));
        assert_eq!((pins[0].mask, pins[0].value), (0b1110_1000, 0));
        assert_eq!(pins[0].by.as_slice(), &[1, 2]);
        assert_eq!((pins[1].mask, pins[1].value), (0b10, 0b10));
        assert_eq!(pins[2].mask, 0);
        // The i-th value fills the free bits in order.
        assert_eq!(pins[0].nth(8, 0), 0);
        assert_eq!(pins[0].nth(8, 0b1111), 0b1_0111);
        // A bit fixed both ways: the two constraints are a core.
        let y1_clear = tag_bit(&mut s, &bytes, 9, 0);
        let set = [y1, x3, y1_clear];
        assert!(matches!(pinned_bits(&s, &set, &syms), Err([0, 2])));
        assert_eq!(check(&s, &set), Found::Unsat(vec![y1, y1_clear]));
        // 24 input bits, 16 of them fixed: decided, as Z3 decides, where
        // without the pins there were too many values to try.
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        let mut set: Vec<TermId> = (0..16).map(|n| tag_bit(&mut s, &bytes, n, n % 3 / 2)).collect();
        // A constraint over all three: x + y + z == 40 (in 8 bits).
        let sum = s.app(Op::Add, &[bytes[0], bytes[1]]).unwrap();
        let sum = s.app(Op::Add, &[sum, bytes[2]]).unwrap();
        let forty = s.constant(Value::bv(8, 40));
        set.push(s.app(Op::Eq, &[sum, forty]).unwrap());
        agrees_with_z3(&s, &set, check(&s, &set), &mut z3, &mut counts);
        let c200 = s.constant(Value::bv(8, 200));
        set.push(s.app(Op::UGt, &[bytes[2], c200]).unwrap());
        set.push(s.app(Op::ULt, &[bytes[2], four]).unwrap());
        agrees_with_z3(&s, &set, check(&s, &set), &mut z3, &mut counts);
        assert_eq!(counts, (1, 1, 0));
        // Nine bytes, every bit fixed: 72 bits do not fit an assignment.
        let nine: Vec<TermId> = symbols(&mut s, 9, "b", Sort::Bv(8));
        let seven = s.constant(Value::bv(8, 7));
        let set: Vec<TermId> = nine.iter().map(|&b| s.app(Op::Eq, &[b, seven]).unwrap()).collect();
        assert_eq!(check(&s, &set), Found::Nothing);
    }

    #[test]
    fn every_value_of_a_byte_decides_and_the_core_is_what_refutes() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        // (Twelve bits: sixteen take more evaluations than an easy
        // question is worth, MAX_EASY_WORK.)
        let y = s.symbol_term("y", Sort::Bv(4));
        let gt_200 = byte_gt(&mut s, x, 200);
        let c10 = s.constant(Value::bv(4, 10));
        let gt_10 = s.app(Op::UGt, &[y, c10]).unwrap();
        let c100 = s.constant(Value::bv(8, 100));
        let lt_100 = s.app(Op::ULt, &[x, c100]).unwrap();
        // Sat: a model that satisfies both.
        match check(&s, &[gt_200, gt_10]) {
            Found::Sat(m) => assert!(s.satisfies(&[gt_200, gt_10], &m)),
            other => panic!("{other:?}"),
        }
        // Unsat: the core leaves out the constraint on y.
        assert_eq!(check(&s, &[gt_200, gt_10, lt_100]), Found::Unsat(vec![gt_200, lt_100]));
    }

    /// A random 32-bit term over `x` (8 bits) and `y` (4 bits), through
    /// floats in places if `floats`.
    fn random_bv(
        s: &mut TermStore,
        rng: &mut impl rand::Rng,
        (x, y): (TermId, TermId),
        floats: bool,
        depth: u32,
    ) -> TermId {
        use Op::*;
        if depth == 0 || rng.gen_bool(0.2) {
            return match rng.gen_range(0..4) {
                0 => s.app(ZExt(32), &[x]).unwrap(),
                1 => s.app(SExt(32), &[x]).unwrap(),
                2 => s.app(ZExt(32), &[y]).unwrap(),
                _ => {
                    let k = [
                        0,
                        1,
                        2,
                        7,
                        31,
                        32,
                        100,
                        0x80,
                        0xff,
                        0x7fff_ffff,
                        0x8000_0000,
                        0xffff_ffff,
                    ];
                    s.constant(Value::bv(32, k[rng.gen_range(0..k.len())]))
                }
            };
        }
        let a = random_bv(s, rng, (x, y), floats, depth - 1);
        let b = random_bv(s, rng, (x, y), floats, depth - 1);
        let binary = [Add, Sub, Mul, Div, Rem, UDiv, URem, And, Or, Xor, Shl, LShr, AShr];
        match rng.gen_range(0..10) {
            // (A constant divided by zero does not build.)
            0..=5 => s.app(binary[rng.gen_range(0..binary.len())], &[a, b]).unwrap_or(a),
            6 => {
                let op = [Neg, Not][rng.gen_range(0..2)];
                s.app(op, &[a]).unwrap()
            }
            7 | 8 => {
                let c = s.app([ULt, Lt, Eq][rng.gen_range(0..3)], &[a, b]).unwrap();
                s.app(Ite, &[c, b, a]).unwrap()
            }
            9 if !floats => s.app(Xor, &[a, b]).unwrap(),
            _ => {
                // Through floats: converted, an operation, and back.
                let w = [32u8, 64][rng.gen_range(0..2)];
                let fa = s.app([ConvertS(w), ConvertU(w)][rng.gen_range(0..2)], &[a]).unwrap();
                let fb = s.app(ConvertS(w), &[b]).unwrap();
                let op = [Add, Sub, Mul, Div, FMin, FMax][rng.gen_range(0..6)];
                let f = s.app(op, &[fa, fb]).unwrap();
                let f = match rng.gen_range(0..4) {
                    0 => s.app(FSqrt, &[f]).unwrap(),
                    1 => s.app(FNearest, &[f]).unwrap(),
                    2 => s.app(FFloor, &[f]).unwrap(),
                    _ => f,
                };
                match rng.gen_range(0..3) {
                    0 => s.app(TruncSatS(32), &[f]).unwrap_or(a),
                    1 => s.app(TruncS(32), &[f]).unwrap_or(a),
                    _ => {
                        let bits = s.app(Reinterpret, &[f]).unwrap();
                        if w == 64 {
                            s.app(Trunc(32), &[bits]).unwrap()
                        } else {
                            bits
                        }
                    }
                }
            }
        }
    }

    /// A random source seeded with `seed`, and a store with the inputs
    /// `x` (8 bits) and `y` (4 bits).
    fn twelve_bits(seed: u64) -> (rand::rngs::SmallRng, TermStore, TermId, TermId) {
        use rand::SeedableRng;
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(4));
        (rand::rngs::SmallRng::seed_from_u64(seed), s, x, y)
    }

    /// A byte looked up through a table of pointers and then a table of
    /// strings (a codebook decoder's `strlen(book[c])`): both reads are of
    /// constants, so the question's nodes leave their pairs out, each
    /// read's table is made once, and the answers are right.
    #[test]
    fn reads_of_constants_are_looked_up_not_compiled() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let int = |s: &mut TermStore, k: i128| s.constant(Value::Int(k));
        let byte = |s: &mut TermStore, v: u64| s.constant(Value::bv(8, v));
        // book[c]: where string c starts, 3 bytes apart; the strings' bytes.
        let zero32 = s.constant(Value::bv(32, 0));
        let index = s.app(Op::ToInt, &[x]).unwrap();
        let mut book = vec![index, zero32];
        for c in 0..200 {
            book.push(int(&mut s, c));
            book.push(s.constant(Value::bv(32, 3 * c as u64)));
        }
        let start = s.app(Op::Read, &book).unwrap();
        let zero8 = byte(&mut s, 0);
        let mut chars = Vec::new();
        for at in 0..600 {
            let k = int(&mut s, at);
            // String c is `c % 7 + 1`, `c % 5`, then 0.
            let c = at / 3;
            let v = [(c % 7 + 1) as u64, (c % 5) as u64, 0][at as usize % 3];
            chars.extend([k, byte(&mut s, v)]);
        }
        let char_at = |s: &mut TermStore, i: u64| {
            let off = s.constant(Value::bv(32, i));
            let at = s.app(Op::Add, &[start, off]).unwrap();
            let at = s.app(Op::ToInt, &[at]).unwrap();
            let mut args = vec![at, zero8];
            args.extend_from_slice(&chars);
            s.app(Op::Read, &args).unwrap()
        };
        let (c0, c1, c2) = (char_at(&mut s, 0), char_at(&mut s, 1), char_at(&mut s, 2));
        let six = byte(&mut s, 6);
        let first = s.app(Op::Eq, &[c0, six]).unwrap();
        let second = s.app(Op::Ne, &[c1, zero8]).unwrap();
        let ends = s.app(Op::Eq, &[c2, zero8]).unwrap();
        let hundred = byte(&mut s, 100);
        let small = s.app(Op::ULt, &[x, hundred]).unwrap();
        let mut tables = Tables::default();
        let nodes = set_nodes(&s, &[first, second, ends, small], &mut tables);
        assert!(nodes.len() < 40, "{} nodes", nodes.len());
        // Each read's pairs are those its index may reach (the store
        // trims them), so the strings' three reads are three tables.
        assert_eq!(tables.reads.len(), 4);
        assert!(tables.reads.values().all(Option::is_some));
        // Every value of x tried by evaluation (Z3 did not decide the
        // second set in 5 s): c % 7 == 5 and c % 5 != 0 hold at c = 12, 19,
        // ..., never with c % 5 == 0.
        let c5 = byte(&mut s, 5);
        let mult = s.app(Op::URem, &[x, c5]).unwrap();
        let five_divides = s.app(Op::Eq, &[mult, zero8]).unwrap();
        let sym = s.symbols(x)[0];
        let holds =
            |s: &TermStore, set: &[TermId], v: u64| s.satisfies(set, &Model::from_iter([(sym, Value::bv(8, v))]));
        let sets = [
            vec![first, second, ends, small],
            vec![first, second, small, five_divides],
            vec![first, ends],
        ];
        for (set, sat) in sets.iter().zip([true, false, true]) {
            assert_eq!((0..256).any(|v| holds(&s, set, v)), sat);
            match check_kept(&s, set, &mut tables, MAX_EASY_WORK) {
                Found::Sat(m) => assert!(sat && s.satisfies(set, &m)),
                Found::Unsat(core) => assert!(!sat && (0..256).all(|v| !holds(&s, &core, v)), "{core:?}"),
                Found::Nothing => panic!("undecided"),
            }
        }
    }

    thread_local! {
        /// Set: every constraint is evaluated in order, none on demand.
        pub(super) static IN_ORDER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// A random truth value over `x` and `y` made mostly of choices: a
    /// chain of `ite`s over comparisons of the inputs with constants (a
    /// merged value, as multise's `choose` builds), conjunctions and
    /// disjunctions of those, and reads of a table at an input.
    fn random_choices(s: &mut TermStore, rng: &mut rand::rngs::SmallRng, (x, y): (TermId, TermId)) -> TermId {
        use rand::Rng;
        let wide = |s: &mut TermStore, t: TermId| s.app(Op::ZExt(32), &[t]).unwrap();
        let chain = |s: &mut TermStore, rng: &mut rand::rngs::SmallRng| {
            let mut v = s.constant(Value::bv(32, rng.gen_range(0..300)));
            for _ in 0..rng.gen_range(1..24) {
                let sym = [x, y][rng.gen_range(0..2)];
                let w = if sym == x { 8 } else { 4 };
                let k = s.constant(Value::bv(w, rng.gen_range(0..16)));
                let c = s.app([Op::Eq, Op::ULt][rng.gen_range(0..2)], &[sym, k]).unwrap();
                let then = match rng.gen_range(0..3) {
                    0 => wide(s, sym),
                    1 => {
                        // A table's read at `x` (Int keys, in order).
                        let index = s.app(Op::ToInt, &[x]).unwrap();
                        let mut args = vec![index, s.constant(Value::bv(32, 7))];
                        for key in (-128..128).step_by(rng.gen_range(1..9)) {
                            args.push(s.constant(Value::Int(key)));
                            args.push(s.constant(Value::bv(32, rng.gen_range(0..50))));
                        }
                        s.app(Op::Read, &args).unwrap()
                    }
                    _ => s.constant(Value::bv(32, rng.gen_range(0..300))),
                };
                v = s.app(Op::Ite, &[c, then, v]).unwrap();
            }
            v
        };
        let mut parts = Vec::new();
        for _ in 0..rng.gen_range(1..4) {
            let a = chain(s, rng);
            let b = chain(s, rng);
            let op = [Op::Eq, Op::Ne, Op::ULt, Op::Lt][rng.gen_range(0..4)];
            parts.push(s.app(op, &[a, b]).unwrap());
        }
        parts
            .into_iter()
            .reduce(|a, b| s.app([Op::And, Op::Or][rng.gen_range(0..2)], &[a, b]).unwrap())
            .unwrap()
    }

    /// Constraints evaluated on demand (mostly choices: only the side a
    /// choice takes, a conjunction up to its first false operand, a read's
    /// value at its index) give the answers, models and cores of the same
    /// constraints evaluated in order where that decides within the work
    /// bound, and Z3's.
    #[test]
    fn evaluating_on_demand_answers_as_in_order() {
        use crate::{SatResult, Solver};
        let (mut rng, mut s, x, y) = twelve_bits(2027);
        let mut z3 = crate::Z3Solver::new(Some(2000));
        let (mut sat, mut unsat, mut nothing) = (0, 0, 0);
        for _ in 0..120 {
            let mut set: Vec<TermId> = (0..rand::Rng::gen_range(&mut rng, 1..3))
                .map(|_| random_choices(&mut s, &mut rng, (x, y)))
                .collect();
            set.sort_unstable();
            set.dedup();
            let on_demand = check(&s, &set);
            IN_ORDER.with(|o| o.set(true));
            let in_order = check(&s, &set);
            IN_ORDER.with(|o| o.set(false));
            // In order, more nodes are evaluated, and the work bound may
            // end it first.
            if in_order != Found::Nothing {
                assert_eq!(on_demand, in_order, "{set:?}");
            }
            match (on_demand, z3.check(&s, &set)) {
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
        assert!(sat > 50 && unsat > 5, "{sat} sat, {unsat} unsat, {nothing} undecided");
    }

    /// A merged value looked up through a table of characters for each of
    /// two bytes (`examples/c/lookup.c` under multise with bits as BDD
    /// variables), asked whether it can be one value: 22 x 22 values
    /// compared with, 32 768 assignments in all. Evaluated on demand and
    /// the compared values first, the model is found within the bound
    /// (in order and in numeric order, the question went to Z3: 27 ms).
    #[test]
    fn a_lookup_through_two_bytes_is_found_among_the_values_compared_with() {
        let mut s = TermStore::new();
        let (a, b) = (s.symbol_term("a", Sort::Bv(8)), s.symbol_term("b", Sort::Bv(8)));
        let digits: Vec<u64> = (b'0'..=b'9')
            .chain(b'A'..=b'F')
            .chain(b'a'..=b'f')
            .map(u64::from)
            .collect();
        let value = |c: u64| match c as u8 {
            d @ b'0'..=b'9' => u64::from(d - b'0'),
            d @ b'A'..=b'F' => u64::from(d - b'A' + 10),
            d => u64::from(d - b'a' + 10),
        };
        let eq = |s: &mut TermStore, t: TermId, k: u64| {
            let k = s.constant(Value::bv(8, k));
            s.app(Op::Eq, &[t, k]).unwrap()
        };
        let mut outer = s.constant(Value::bv(32, 0x1ff));
        for &hi in &digits {
            let mut inner = s.constant(Value::bv(32, 0x1ff));
            for &lo in &digits {
                let c = eq(&mut s, b, lo);
                let v = s.constant(Value::bv(32, value(hi) * 16 + value(lo)));
                inner = s.app(Op::Ite, &[c, v, inner]).unwrap();
            }
            let c = eq(&mut s, a, hi);
            outer = s.app(Op::Ite, &[c, inner, outer]).unwrap();
        }
        let top = s.constant(Value::bv(8, 0x80));
        let zero = s.constant(Value::bv(8, 0));
        let masked = s.app(Op::And, &[a, top]).unwrap();
        let ascii = s.app(Op::Eq, &[masked, zero]).unwrap();
        let want = s.constant(Value::bv(32, 0xaa));
        let is = s.app(Op::Eq, &[outer, want]).unwrap();
        let set = vec![ascii, is];
        match check(&s, &set) {
            Found::Sat(m) => assert!(s.satisfies(&set, &m), "{m:?}"),
            other => panic!("{other:?}"),
        }
        IN_ORDER.with(|o| o.set(true));
        let in_order = check(&s, &set);
        IN_ORDER.with(|o| o.set(false));
        assert!(matches!(in_order, Found::Sat(_) | Found::Nothing), "{in_order:?}");
    }

    /// Trying every value answers as Z3 does on random questions over 12
    /// bits (integer and float operations), and its cores are unsat to Z3.
    #[test]
    fn trying_every_value_agrees_with_z3() {
        use crate::{SatResult, Solver};
        let (mut rng, mut s, x, y) = twelve_bits(2026);
        // Z3 may give up where every value is tried in microseconds (with
        // floats, on many questions after a second): those questions are
        // not compared.
        let mut z3 = crate::Z3Solver::new(Some(500));
        let (mut sat, mut unsat, mut nothing, mut unknown) = (0, 0, 0, 0);
        for i in 0..150 {
            let mut set = Vec::new();
            for _ in 0..rand::Rng::gen_range(&mut rng, 1..4) {
                let floats = i % 4 == 0;
                let a = random_bv(&mut s, &mut rng, (x, y), floats, 3);
                let b = random_bv(&mut s, &mut rng, (x, y), floats, 2);
                let op = [Op::Eq, Op::Ne, Op::Lt, Op::ULt, Op::Ge, Op::UGe][rand::Rng::gen_range(&mut rng, 0..6)];
                set.push(s.app(op, &[a, b]).unwrap());
            }
            set.sort_unstable();
            set.dedup();
            match (check(&s, &set), z3.check(&s, &set)) {
                (Found::Sat(m), SatResult::Sat(_)) => {
                    // The model, to Z3 (eval has no value where a divisor
                    // is zero).
                    let mut fixed = set.clone();
                    for (k, v) in &m {
                        let (t, c) = (s.symbol_term_of(*k), s.constant(*v));
                        fixed.push(s.app(Op::Eq, &[t, c]).unwrap());
                    }
                    let again = z3.check(&s, &fixed);
                    assert!(
                        matches!(again, SatResult::Sat(_) | SatResult::Unknown(_)),
                        "{set:?}: {m:?}"
                    );
                    sat += 1;
                }
                (Found::Unsat(core), SatResult::Unsat) => {
                    let again = z3.check(&s, &core);
                    assert!(
                        matches!(again, SatResult::Unsat | SatResult::Unknown(_)),
                        "core {core:?} of {set:?}: {again:?}"
                    );
                    unsat += 1;
                }
                (Found::Nothing, _) => nothing += 1,
                (_, SatResult::Unknown(_)) => unknown += 1,
                (mine, theirs) => panic!("{set:?}: {mine:?} against Z3's {theirs:?}"),
            }
        }
        // Most questions are decided (those that divide by zero where
        // nothing else refutes are not).
        assert!(
            sat > 60 && unsat > 30,
            "{sat} sat, {unsat} unsat, {nothing} undecided, {unknown} Z3 gave up on"
        );
    }

    /// Tables kept across questions answer as fresh ones do, with each
    /// constraint met again beside others, over other symbols.
    #[test]
    fn kept_tables_answer_as_fresh_ones() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(4));
        let z = s.symbol_term("z", Sort::Bv(4));
        let b = s.symbol_term("b", Sort::Bool);
        let mut pool = Vec::new();
        for i in 0..40 {
            let pair = [(x, y), (y, z), (z, x)][i % 3];
            let l = random_bv(&mut s, &mut rng, pair, i % 5 == 0, 2);
            let r = random_bv(&mut s, &mut rng, pair, false, 1);
            let op = [Op::Eq, Op::Ne, Op::Lt, Op::ULt, Op::Ge][rng.gen_range(0..5)];
            let c = s.app(op, &[l, r]).unwrap();
            pool.push(if i % 7 == 0 {
                s.app(Op::And, &[c, b]).unwrap()
            } else {
                c
            });
        }
        let mut tables = Tables::default();
        let (mut decided, mut kept_hits) = (0, 0);
        for _ in 0..300 {
            let mut set: Vec<TermId> = (0..rng.gen_range(1..4))
                .map(|_| pool[rng.gen_range(0..pool.len())])
                .collect();
            set.sort_unstable();
            set.dedup();
            kept_hits += set.iter().filter(|c| tables.place(**c).is_some()).count();
            let fresh = check(&s, &set);
            decided += (fresh != Found::Nothing) as u32;
            // The same answer and model; an unsat core may differ (a
            // table refutes an assignment before a constraint evaluated
            // first when fresh), and is unsat on its own.
            match (check_kept(&s, &set, &mut tables, MAX_EASY_WORK), &fresh) {
                (Found::Unsat(core), Found::Unsat(_)) => {
                    assert!(matches!(check(&s, &core), Found::Unsat(_)), "{set:?}: {core:?}")
                }
                (kept, fresh) => assert_eq!(&kept, fresh, "{set:?}"),
            }
        }
        assert!(
            decided > 200 && kept_hits > 300,
            "{decided} decided, {kept_hits} tables met again"
        );
    }

    /// Four bytes (32 bits) with products: each byte's own constraints
    /// leave it a few values, and the rest is tried over those; the
    /// answers agree with Z3's, cores included.
    #[test]
    fn several_bytes_pruned_by_their_own_constraints_agree_with_z3() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut s = TermStore::new();
        let bytes: Vec<TermId> = symbols(&mut s, 4, "b", Sort::Bv(8));
        let c8 = |s: &mut TermStore, k: u64| s.constant(Value::bv(8, k));
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        for _ in 0..60 {
            let mut set = Vec::new();
            for &b in &bytes {
                // b % m == r: a few values of each byte.
                let (m, r) = (rng.gen_range(20..60), rng.gen_range(0..20));
                let (m, r) = (c8(&mut s, m), c8(&mut s, r));
                let rem = s.app(Op::URem, &[b, m]).unwrap();
                set.push(s.app(Op::Eq, &[rem, r]).unwrap());
            }
            for _ in 0..rng.gen_range(1..4) {
                let (i, j) = (rng.gen_range(0..4), rng.gen_range(0..4));
                let k = c8(&mut s, rng.gen_range(1..8));
                let p = s.app(Op::Mul, &[bytes[i], k]).unwrap();
                let sum = s.app(Op::Add, &[p, bytes[j]]).unwrap();
                let bound = c8(&mut s, rng.gen_range(0..256));
                set.push(
                    s.app([Op::ULt, Op::UGe, Op::Eq][rng.gen_range(0..3)], &[sum, bound])
                        .unwrap(),
                );
            }
            set.sort_unstable();
            set.dedup();
            crate::enumerate::agrees_with_z3(&s, &set, check(&s, &set), &mut z3, &mut counts);
        }
        let (sat, unsat, nothing) = counts;
        assert!(sat > 5 && unsat > 5, "{sat} sat, {unsat} unsat, {nothing} undecided");
    }

    /// Wide keys read only under a table's mask (`k & 3`, `k %u 8`), as a
    /// hash table's slots are: tried over the mask's bits, with models and
    /// cores as Z3's; a key read plainly as well is left alone.
    #[test]
    fn wide_symbols_read_through_masks_agree_with_z3() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(13);
        let mut s = TermStore::new();
        let keys: Vec<TermId> = symbols(&mut s, 3, "k", Sort::Bv(32));
        let c32 = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        for _ in 0..200 {
            let mut set = Vec::new();
            for _ in 0..rng.gen_range(1..5) {
                let (i, j) = (rng.gen_range(0..3), rng.gen_range(0..3));
                let slot = |s: &mut TermStore, rng: &mut rand::rngs::SmallRng, key: TermId| {
                    if rng.gen_bool(0.5) {
                        let m = c32(s, (1 << rng.gen_range(1..5)) - 1);
                        s.app(Op::And, &[key, m]).unwrap()
                    } else {
                        let m = c32(s, 1 << rng.gen_range(1..5));
                        s.app(Op::URem, &[key, m]).unwrap()
                    }
                };
                let (a, b) = (slot(&mut s, &mut rng, keys[i]), slot(&mut s, &mut rng, keys[j]));
                // A probe: the next slot of one key against another's.
                let one = c32(&mut s, rng.gen_range(0..3));
                let next = s.app(Op::Add, &[a, one]).unwrap();
                let shift = c32(&mut s, rng.gen_range(0..3));
                let moved = s.app(Op::Shl, &[next, shift]).unwrap();
                let op = [Op::ULt, Op::Eq, Op::Ne, Op::UGe][rng.gen_range(0..4)];
                set.push(s.app(op, &[moved, b]).unwrap());
            }
            set.sort_unstable();
            set.dedup();
            let found = check(&s, &set);
            assert!(found != Found::Nothing, "{set:?}: every key is read through a mask");
            crate::enumerate::agrees_with_z3(&s, &set, found, &mut z3, &mut counts);
        }
        let (sat, unsat, _) = counts;
        assert!(sat > 20 && unsat > 20, "{sat} sat, {unsat} unsat");
        // The key read plainly too: not tried.
        let m = c32(&mut s, 3);
        let slot = s.app(Op::And, &[keys[0], m]).unwrap();
        let two = c32(&mut s, 2);
        let a = s.app(Op::Eq, &[slot, two]).unwrap();
        let seven = c32(&mut s, 7);
        let b = s.app(Op::UGt, &[keys[0], seven]).unwrap();
        assert_eq!(check(&s, &[a, b]), Found::Nothing);
        assert!(matches!(check(&s, &[a]), Found::Sat(_)));
    }

    /// Keys of one or two bytes hashed as djb2 does (`h * 33 ^ c`), their
    /// slots compared under a table's mask and the bytes compared whole:
    /// up to six bytes are too many to try, but the slots' constraints
    /// read one or two low bits of each, and where those alone are unsat
    /// so is the question, with a core among them; a question of slots
    /// alone is tried over those bits, with its models.
    #[test]
    fn slots_of_hashed_bytes_are_tried_over_their_low_bits() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(17);
        let mut s = TermStore::new();
        let bytes: Vec<TermId> = symbols(&mut s, 6, "b", Sort::Bv(8));
        let c32 = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        let hashes: Vec<TermId> = (0..3)
            .map(|i| {
                let mut h = c32(&mut s, 5381);
                for &b in &bytes[2 * i..2 * i + 2] {
                    let k = c32(&mut s, 33);
                    let times = s.app(Op::Mul, &[h, k]).unwrap();
                    let wide = s.app(Op::SExt(32), &[b]).unwrap();
                    h = s.app(Op::Xor, &[times, wide]).unwrap();
                }
                h
            })
            .collect();
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        let mut whole = 0;
        for _ in 0..200 {
            let mut set = Vec::new();
            let bits = rng.gen_range(1..3);
            let mask = c32(&mut s, (1 << bits) - 1);
            for _ in 0..rng.gen_range(2..6) {
                let (i, j) = (rng.gen_range(0..3), rng.gen_range(0..3));
                let a = s.app(Op::And, &[hashes[i], mask]).unwrap();
                let b = match rng.gen_bool(0.5) {
                    true => s.app(Op::And, &[hashes[j], mask]).unwrap(),
                    false => c32(&mut s, rng.gen_range(0..1 << bits)),
                };
                let op = [Op::Eq, Op::Ne, Op::ULt][rng.gen_range(0..3)];
                set.push(s.app(op, &[a, b]).unwrap());
            }
            if rng.gen_bool(0.5) {
                // A byte compared whole.
                let (i, j) = (rng.gen_range(0..6), rng.gen_range(0..6));
                set.push(s.app(Op::Ne, &[bytes[i], bytes[j]]).unwrap());
                whole += 1;
            }
            set.sort_unstable();
            set.dedup();
            let found = check(&s, &set);
            crate::enumerate::agrees_with_z3(&s, &set, found, &mut z3, &mut counts);
        }
        let (sat, unsat, nothing) = counts;
        assert!(
            sat > 20 && unsat > 20 && whole > 50,
            "{sat} sat, {unsat} unsat, {nothing} undecided"
        );
    }

    /// Two `int` keys of four input bytes each, cut to their low four
    /// bits (`key & 15`, as a harness bounds the keys of a hash table) and
    /// mixed as Jenkins's hash does, with right shifts that make every bit
    /// of the mix depend on every other: the questions read four bits of
    /// the first byte of each key and none of the other six bytes, which
    /// are tried at zero alone (before, each took its eight bits, 2^56
    /// assignments, and uthash's lookups over two such keys went to Z3 at
    /// up to 2 s a question). Every answer agrees with Z3's, and most are
    /// decided.
    #[test]
    fn bytes_a_mask_cuts_away_are_not_tried() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(23);
        let mut s = TermStore::new();
        let bytes: Vec<TermId> = symbols(&mut s, 8, "k", Sort::Bv(8));
        let c32 = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        let fifteen = c32(&mut s, 15);
        let keys: Vec<TermId> = (0..2)
            .map(|i| {
                let mut key = s.app(Op::ZExt(32), &[bytes[4 * i]]).unwrap();
                for j in 1..4 {
                    let wide = s.app(Op::ZExt(32), &[bytes[4 * i + j]]).unwrap();
                    let by = c32(&mut s, 8 * j as u64);
                    let shifted = s.app(Op::Shl, &[wide, by]).unwrap();
                    key = s.app(Op::Or, &[key, shifted]).unwrap();
                }
                s.app(Op::And, &[key, fifteen]).unwrap()
            })
            .collect();
        let mix = |s: &mut TermStore, key: TermId| {
            let (mut a, mut b) = (c32(s, 0x9e37_79b9), c32(s, 0xfeed_beef));
            a = s.app(Op::Add, &[a, key]).unwrap();
            for (left, right) in [(13u64, 8u64), (12, 16), (5, 3)] {
                let sub = s.app(Op::Sub, &[a, b]).unwrap();
                let (l, r) = (c32(s, left), c32(s, right));
                let down = s.app(Op::LShr, &[b, l]).unwrap();
                a = s.app(Op::Xor, &[sub, down]).unwrap();
                let back = s.app(Op::Sub, &[b, a]).unwrap();
                let up = s.app(Op::Shl, &[a, r]).unwrap();
                b = s.app(Op::Xor, &[back, up]).unwrap();
            }
            b
        };
        let slots: Vec<TermId> = keys
            .iter()
            .map(|&k| {
                let h = mix(&mut s, k);
                let seven = c32(&mut s, 7);
                s.app(Op::And, &[h, seven]).unwrap()
            })
            .collect();
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        for _ in 0..100 {
            let mut set = Vec::new();
            for _ in 0..rng.gen_range(1..4) {
                let i = rng.gen_range(0..2);
                let other = match rng.gen_range(0..3) {
                    0 => slots[1 - i],
                    1 => keys[1 - i],
                    _ => c32(&mut s, rng.gen_range(0..8)),
                };
                let mine = if other == keys[1 - i] { keys[i] } else { slots[i] };
                let op = [Op::Eq, Op::Ne, Op::ULt][rng.gen_range(0..3)];
                set.push(s.app(op, &[mine, other]).unwrap());
            }
            set.sort_unstable();
            set.dedup();
            let found = check(&s, &set);
            crate::enumerate::agrees_with_z3(&s, &set, found, &mut z3, &mut counts);
        }
        let (sat, unsat, nothing) = counts;
        assert!(
            sat > 30 && unsat > 10 && nothing < 10,
            "{sat} sat, {unsat} unsat, {nothing} undecided"
        );
    }

    /// `n` symbols of `sort` named `name0`, `name1`, ...
    fn symbols(s: &mut TermStore, n: usize, name: &str, sort: Sort) -> Vec<TermId> {
        (0..n).map(|i| s.symbol_term(&format!("{name}{i}"), sort)).collect()
    }

    #[test]
    fn too_many_bits_or_other_sorts_are_left_alone() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let c = s.constant(Value::bv(32, 7));
        let eq = s.app(Op::Eq, &[x, c]).unwrap();
        assert_eq!(check(&s, &[eq]), Found::Nothing);
        let i = s.symbol_term("i", Sort::Int);
        let zero = s.constant(Value::Int(0));
        let lt = s.app(Op::Lt, &[i, zero]).unwrap();
        assert_eq!(check(&s, &[lt]), Found::Nothing);
    }

    #[test]
    fn a_division_by_zero_is_smtlibs_and_a_trap_nothing_refutes_leaves_the_question_open() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let one = s.constant(Value::bv(8, 1));
        let q = s.app(Op::UDiv, &[one, x]).unwrap();
        // 1 / x == 255 only for x == 0, by SMT-LIB's all-ones quotient.
        let ones = s.constant(Value::bv(8, 255));
        let eq = s.app(Op::Eq, &[q, ones]).unwrap();
        let zero = Value::bv(8, 0);
        assert_eq!(check(&s, &[eq]), Found::Sat([(SymId(0), zero)].into_iter().collect()));
        // A float out of an 8-bit integer's range, truncated, traps: for
        // x > 100 nothing refutes `trunc(x) == 0`, and it does not evaluate.
        let f = s.app(Op::ConvertU(64), &[x]).unwrap();
        let t = s.app(Op::TruncS(8), &[f]).unwrap();
        let zero = s.constant(zero);
        let is_zero = s.app(Op::Eq, &[t, zero]).unwrap();
        let hundred = s.constant(Value::bv(8, 100));
        let big = s.app(Op::UGt, &[x, hundred]).unwrap();
        assert_eq!(check(&s, &[is_zero, big]), Found::Nothing);
    }
}
