//! The hash-consing term store.

use crate::op::{eval_bv, eval_op, EvalError, Op};
use crate::value::{Sort, Value};
use braid_budget::{Budget, Pace};
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::fmt::Write;
use std::hash::BuildHasher;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymId(pub u32);

/// A symbolic input: a name and a sort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Symbol {
    pub name: String,
    pub sort: Sort,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Const(Value),
    Sym(SymId),
    App(Op, SmallVec<[TermId; 3]>),
}

/// An assignment of values to symbols; symbols it leaves out take their
/// sort's default value.
pub type Model = FxHashMap<SymId, Value>;

/// Evaluations of terms under one model, shared by [`TermStore::eval_with`] calls.
pub type EvalMemo = FxHashMap<TermId, Result<Value, EvalError>>;

/// The most operands [`TermStore::factor`] looks at in a chain.
const FACTOR_WIDTH: usize = 32;

#[derive(Default)]
pub struct TermStore {
    nodes: Vec<Node>,
    sorts: Vec<Sort>,
    /// The symbols each term mentions (for constraint independence): its
    /// set in `symbol_sets`. Terms over the same inputs share one set (a
    /// multise run over 12 input bytes made 3.9 M terms, nearly all over
    /// a few sets, each stored once per term before).
    symbols_of: Vec<u32>,
    /// Every distinct set of symbols some term mentions, sorted; the first
    /// is the empty set.
    symbol_sets: Vec<Box<[SymId]>>,
    /// `symbol_sets` hash-consed: indices into it, hashed by their sets.
    set_ids: HashTable<u32>,
    /// Each term's bounds ([`TermStore::value_range`]), packed.
    pub(crate) ranges: Vec<(i64, i64)>,
    /// Each term's known low bits ([`TermStore::low_bits`]), packed.
    pub(crate) low: Vec<u64>,
    /// The hash-consing table: term ids hashed by their nodes, which
    /// `nodes` holds (so each node is stored once, not again as a key).
    unique: HashTable<TermId>,
    /// The run's budget, when the caller unwinds from a stop
    /// ([`TermStore::set_budget`]): the tables ask it before they grow.
    budget: Option<Budget>,
    /// How fast the tables grow, per byte (rehashing the hash-consing
    /// table hashes every node again).
    growth_pace: Pace,
    symbols: Vec<Symbol>,
    symbol_ids: FxHashMap<Symbol, SymId>,
    /// Recently made constants, direct-mapped by value: concrete code makes
    /// the same few again and again, and this spares the hash table.
    recent: Vec<Option<(Value, TermId)>>,
}

const RECENT_BITS: u32 = 12;

/// The empty set's index in [`TermStore::symbol_sets`].
const EMPTY_SET: u32 = 0;

/// The bytes a term takes in the store's per-term vectors (its node,
/// sort, symbol set, bounds and low bits), what they double by together.
const TERM_BYTES: usize = std::mem::size_of::<Node>()
    + std::mem::size_of::<Sort>()
    + std::mem::size_of::<u32>()
    + std::mem::size_of::<(i64, i64)>()
    + std::mem::size_of::<u64>();

/// Growth of the tables past this many bytes asks the budget first.
const ASK_BYTES: usize = 1 << 20;

fn node_hash(n: &Node) -> u64 {
    FxBuildHasher.hash_one(n)
}

fn set_hash(s: &[SymId]) -> u64 {
    FxBuildHasher.hash_one(s)
}

/// At most this many `ite` nodes to a choice that an operation is lifted
/// into ([`TermStore::lift_choice`]).
const LIFT_NODES: usize = 32;

/// The slot of `v` in [`TermStore::recent`].
fn recent_slot(v: &Value) -> usize {
    let key = match *v {
        Value::Bv { width, bits } => bits ^ ((width as u64) << 57),
        Value::Int(i) => (i as u64) ^ ((i >> 64) as u64) ^ (1 << 56),
        Value::Bool(b) => b as u64 ^ (2 << 56),
        Value::Addr { alloc, offset } => (offset as u64) ^ ((alloc as u64) << 32) ^ (3 << 56),
        Value::Label { func, label } => (label as u64) ^ ((func as u64) << 32) ^ (4 << 56),
        Value::Func(f) => f as u64 ^ (5 << 56),
        Value::F32(x) => x as u64 ^ (6 << 56),
        Value::F64(x) => x ^ (7 << 56),
        Value::Undef => 8 << 56,
    };
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_BITS)) as usize
}

impl TermStore {
    /// `(x, k)` when `t` is `x & k` for a bit-vector constant `k`.
    fn masked(&self, t: TermId) -> Option<(TermId, u64)> {
        match self.node(t) {
            Node::App(Op::And, a) if a.len() == 2 => match self.as_const(a[1]) {
                Some(Value::Bv { bits, .. }) => Some((a[0], bits)),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn new() -> TermStore {
        TermStore::default()
    }

    /// How many symbols exist (each new one gets the next id).
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, t: TermId) -> &Node {
        &self.nodes[t.0 as usize]
    }

    pub fn sort(&self, t: TermId) -> Sort {
        self.sorts[t.0 as usize]
    }

    pub fn symbols(&self, t: TermId) -> &[SymId] {
        &self.symbol_sets[self.symbols_of[t.0 as usize] as usize]
    }

    /// The term of symbol `s` (made when `s` was).
    pub fn symbol_term_of(&self, s: SymId) -> TermId {
        let node = Node::Sym(s);
        let nodes = &self.nodes;
        *self
            .unique
            .find(node_hash(&node), |t| nodes[t.0 as usize] == node)
            .expect("a symbol's term is made with it")
    }

    /// Hands the store the run's budget (`None`: none). Before its tables
    /// grow by a mebibyte or more, the store asks the budget whether the
    /// bytes fit under the memory limit, and unwinds as
    /// [`Budget::check_unwind`] does if not: only for a caller inside
    /// [`braid_budget::catch_stop`]. A table that doubles at millions of
    /// terms takes hundreds of megabytes in one step (multise over a QOI
    /// decoder's 64-entry colour table: 1 360 MB under a 1 000 MB limit).
    pub fn set_budget(&mut self, budget: Option<Budget>) {
        self.budget = budget;
    }

    /// Unwinds unless the growth the next term brings fits under the
    /// budget ([`TermStore::set_budget`]), in memory and in time; returns
    /// the bytes it brings if it was asked (to time the growth with).
    fn room_for_one(&self) -> usize {
        let Some(budget) = &self.budget else { return 0 };
        let mut bytes = 0;
        if self.nodes.len() == self.nodes.capacity() {
            bytes += 2 * self.nodes.capacity() * TERM_BYTES;
        }
        if self.unique.len() == self.unique.capacity() {
            // Buckets hold a term id and a control byte, and are at most
            // seven eighths full.
            bytes += 2 * self.unique.capacity() * 8 / 7 * (std::mem::size_of::<TermId>() + 1);
        }
        if bytes < ASK_BYTES {
            return 0;
        }
        budget.grow(bytes, &self.growth_pace);
        bytes
    }

    /// The index of `set` in `symbol_sets`, added if new.
    fn intern_set(&mut self, set: &[SymId]) -> u32 {
        let h = set_hash(set);
        let sets = &self.symbol_sets;
        if let Some(&i) = self.set_ids.find(h, |&i| *sets[i as usize] == *set) {
            return i;
        }
        let i = self.symbol_sets.len() as u32;
        self.symbol_sets.push(set.into());
        let sets = &self.symbol_sets;
        self.set_ids.insert_unique(h, i, |&i| set_hash(&sets[i as usize]));
        i
    }

    /// The set of the symbols `args` mention: one of theirs when it holds
    /// the others' (nearly always), else their union, interned.
    fn symbols_of_args(&mut self, args: &[TermId]) -> u32 {
        let mut widest = EMPTY_SET;
        for a in args {
            let s = self.symbols_of[a.0 as usize];
            if s != widest && self.symbol_sets[s as usize].len() > self.symbol_sets[widest as usize].len() {
                widest = s;
            }
        }
        let holds = |store: &TermStore, s: u32| {
            let w = &store.symbol_sets[widest as usize];
            s == widest || store.symbol_sets[s as usize].iter().all(|x| w.binary_search(x).is_ok())
        };
        if args.iter().all(|a| holds(self, self.symbols_of[a.0 as usize])) {
            return widest;
        }
        let mut all: Vec<SymId> = args.iter().flat_map(|a| self.symbols(*a).iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        self.intern_set(&all)
    }

    pub fn symbol(&self, s: SymId) -> &Symbol {
        &self.symbols[s.0 as usize]
    }

    pub fn as_const(&self, t: TermId) -> Option<Value> {
        match self.node(t) {
            Node::Const(v) => Some(*v),
            _ => None,
        }
    }

    pub fn is_true(&self, t: TermId) -> bool {
        self.as_const(t) == Some(Value::Bool(true))
    }

    pub fn is_false(&self, t: TermId) -> bool {
        self.as_const(t) == Some(Value::Bool(false))
    }

    fn intern(&mut self, node: Node, sort: Sort) -> TermId {
        let h = node_hash(&node);
        let nodes = &self.nodes;
        if let Some(&t) = self.unique.find(h, |t| nodes[t.0 as usize] == node) {
            return t;
        }
        let growth = self.room_for_one();
        let start = (growth > 0).then(std::time::Instant::now);
        if self.symbol_sets.is_empty() {
            self.intern_set(&[]);
        }
        let symbols = match &node {
            Node::Const(_) => EMPTY_SET,
            Node::Sym(s) => self.intern_set(&[*s]),
            Node::App(_, args) => self.symbols_of_args(args),
        };
        let t = TermId(self.nodes.len() as u32);
        self.nodes.push(node);
        self.sorts.push(sort);
        self.symbols_of.push(symbols);
        self.ranges.push((1, 0));
        self.ranges[t.0 as usize] = self.packed_range(t);
        self.low.push(self.packed_low_bits(t));
        let nodes = &self.nodes;
        self.unique.insert_unique(h, t, |t| node_hash(&nodes[t.0 as usize]));
        if let Some(start) = start {
            self.growth_pace.record(growth, start.elapsed());
        }
        t
    }

    pub fn constant(&mut self, v: Value) -> TermId {
        if self.recent.is_empty() {
            self.recent = vec![None; 1 << RECENT_BITS];
        }
        let slot = recent_slot(&v);
        if let Some((u, t)) = self.recent[slot] {
            if u == v {
                return t;
            }
        }
        let t = self.intern(Node::Const(v), v.sort());
        self.recent[slot] = Some((v, t));
        t
    }

    pub fn bool(&mut self, b: bool) -> TermId {
        self.constant(Value::Bool(b))
    }

    /// The symbolic input `name` of sort `sort` (the same pair gives the same term).
    pub fn symbol_term(&mut self, name: &str, sort: Sort) -> TermId {
        let key = Symbol {
            name: name.to_string(),
            sort,
        };
        let s = match self.symbol_ids.get(&key) {
            Some(&s) => s,
            None => {
                let s = SymId(self.symbols.len() as u32);
                self.symbols.push(key.clone());
                self.symbol_ids.insert(key, s);
                s
            }
        };
        self.intern(Node::Sym(s), sort)
    }

    /// Builds `op(args)`: promotes `Int` operands meeting floats, checks sorts,
    /// folds concrete operands and applies local rewrites.
    pub fn app(&mut self, op: Op, args: &[TermId]) -> Result<TermId, EvalError> {
        // Concrete operands fold at once (`eval_op` checks sorts itself),
        // unless an integer meets a float and is promoted below.
        if args.len() <= 3 {
            let mut values = [Value::Undef; 3];
            if args.iter().zip(&mut values).all(|(a, v)| match self.node(*a) {
                Node::Const(c) => {
                    *v = *c;
                    true
                }
                _ => false,
            }) {
                let values = &values[..args.len()];
                let mixed = op.promotes_numbers()
                    && values.len() == 2
                    && values[0].sort().is_float() != values[1].sort().is_float();
                if !mixed {
                    if matches!(op, Op::Eq | Op::Ne) && values.len() == 2 && values[0].sort() != values[1].sort() {
                        return Ok(self.bool(op == Op::Ne));
                    }
                    let v = eval_op(op, values)?;
                    return Ok(self.constant(v));
                }
            }
        }
        let mut args: SmallVec<[TermId; 3]> = args.iter().copied().collect();
        if op.promotes_numbers() && args.len() == 2 {
            for (i, j) in [(0, 1), (1, 0)] {
                let target = self.sort(args[j]);
                if self.sort(args[i]) == Sort::Int && target.is_float() {
                    let conv = if target == Sort::F32 { Op::ToF32 } else { Op::ToF64 };
                    args[i] = self.app(conv, &[args[i]])?;
                }
            }
        }
        let sorts: SmallVec<[Sort; 3]> = args.iter().map(|a| self.sort(*a)).collect();
        // Values of different sorts are unequal; decide it here so the solver
        // never sees a mixed-sort equality.
        if matches!(op, Op::Eq | Op::Ne) && sorts[0] != sorts[1] {
            return Ok(self.bool(op == Op::Ne));
        }
        let sort = op.result_sort(&sorts)?;
        let consts: Option<SmallVec<[Value; 3]>> = args.iter().map(|a| self.as_const(*a)).collect();
        if let Some(values) = consts {
            let v = eval_op(op, &values)?;
            return Ok(self.constant(v));
        }
        if let Some(t) = self.lift_choice(op, &args) {
            return Ok(t);
        }
        if let Some(t) = self.rewrite(op, &args, sort) {
            return Ok(t);
        }
        debug_assert!(
            op != Op::Read || self.keys_ascend(&args[2..]),
            "a read's keys are Int constants in ascending order"
        );
        Ok(self.intern(Node::App(op, args), sort))
    }

    /// Whether `t` is a choice of constants (`ite` nodes down to constants
    /// or truth values `tobv(b)`) with at most `limit` distinct `ite` nodes.
    fn small_constant_choice(&self, t: TermId, limit: usize) -> bool {
        let mut seen = FxHashSet::default();
        let mut stack = vec![t];
        while let Some(u) = stack.pop() {
            match self.node(u) {
                Node::App(Op::Ite, a) => {
                    if seen.insert(u) {
                        if seen.len() > limit {
                            return false;
                        }
                        stack.extend([a[1], a[2]]);
                    }
                }
                // Constants, and C truth values (0 or 1).
                Node::Const(_) => {}
                Node::App(Op::ToBv(_), _) => {}
                _ => return false,
            }
        }
        true
    }

    /// An operation goes inside a choice of constants: `op(ite(c, 1, 2), 3)`
    /// is `ite(c, op(1, 3), op(2, 3))`, which folds. Merged states keep the
    /// values their paths disagree on as such choices, and so addresses,
    /// sizes and flags computed from them stay choices of constants (an
    /// access through one is an access per value, not at a symbolic offset)
    /// and a word loaded from merged bytes is a choice of words. The first
    /// operand that is a choice of at most [`LIFT_NODES`] `ite` nodes is
    /// lifted (the other operands take the side of each condition they
    /// choose on too); the operation on each of its values lifts the next.
    fn lift_choice(&mut self, op: Op, args: &[TermId]) -> Option<TermId> {
        if op == Op::Ite || !args.iter().any(|a| matches!(self.node(*a), Node::App(Op::Ite, _))) {
            return None;
        }
        // A read's cells are its array, not operands to lift over.
        let operands = if op == Op::Read { &args[..1] } else { args };
        let i = operands.iter().position(|a| {
            matches!(self.node(*a), Node::App(Op::Ite, _)) && self.small_constant_choice(*a, LIFT_NODES)
        })?;
        let mut memo = FxHashMap::default();
        self.lift_into(op, args, i, &mut memo)
    }

    /// `op(args)` with operand `i` a choice of constants, built as the
    /// choice of `op` on each of its values (`memo`: per operand list).
    fn lift_into(
        &mut self,
        op: Op,
        args: &[TermId],
        i: usize,
        memo: &mut FxHashMap<SmallVec<[TermId; 3]>, TermId>,
    ) -> Option<TermId> {
        let key: SmallVec<[TermId; 3]> = args.iter().copied().collect();
        if let Some(r) = memo.get(&key) {
            return Some(*r);
        }
        let r = match self.node(args[i]).clone() {
            Node::App(Op::Ite, choice) => {
                let cond = choice[0];
                let side = |s: &Self, holds: bool| -> SmallVec<[TermId; 3]> {
                    args.iter()
                        .map(|a| match s.node(*a) {
                            Node::App(Op::Ite, c) if c[0] == cond => c[if holds { 1 } else { 2 }],
                            _ => *a,
                        })
                        .collect()
                };
                let (yes, no) = (side(self, true), side(self, false));
                let yes = self.lift_into(op, &yes, i, memo)?;
                let no = self.lift_into(op, &no, i, memo)?;
                self.app(Op::Ite, &[cond, yes, no]).ok()?
            }
            _ => self.app(op, args).ok()?,
        };
        memo.insert(key, r);
        Some(r)
    }

    /// `t` with every `ite(cond, x, y)` (and choice) taken as `x` when
    /// `holds`, else `y`: what a merged value is on one side of its merge.
    /// `memo` is shared between calls for the same `cond` and `holds`.
    pub fn select_side(
        &mut self,
        t: TermId,
        cond: TermId,
        holds: bool,
        memo: &mut FxHashMap<TermId, TermId>,
    ) -> TermId {
        // A term that mentions the first of `cond`'s symbols may contain
        // it; others (constants, most cells of a memory) stay as they are,
        // as do terms not in `memo`'s post-order walk.
        let key = self.symbols(cond).first().copied();
        let order = self.postorder_where(&[t], |s, u| {
            !memo.contains_key(&u) && key.is_none_or(|k| s.symbols(u).binary_search(&k).is_ok())
        });
        let picked = |memo: &FxHashMap<TermId, TermId>, u: TermId| memo.get(&u).copied().unwrap_or(u);
        for u in order {
            let r = match self.node(u).clone() {
                // The condition itself, as a formula (a branch on a merged
                // truth value `ite(c, 1, 0)` became `c`).
                _ if u == cond => self.bool(holds),
                Node::App(Op::Ite, args) if args[0] == cond => picked(memo, args[if holds { 1 } else { 2 }]),
                Node::App(op, args) => {
                    let new: Vec<TermId> = args.iter().map(|a| picked(memo, *a)).collect();
                    if new[..] == args[..] {
                        u
                    } else if op == Op::Ite {
                        self.choice(new[0], new[1], new[2])
                    } else {
                        // The arguments keep their sorts, so the application stays well-typed.
                        self.app(op, &new).unwrap_or(u)
                    }
                }
                _ => u,
            };
            memo.insert(u, r);
        }
        picked(memo, t)
    }

    /// `ite(c, a, b)`, even for values of different sorts (such a choice
    /// takes `a`'s sort and only evaluates: no operation may read it, as for
    /// the merged values of variables that are dead).
    pub fn choice(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        if let Ok(t) = self.app(Op::Ite, &[c, a, b]) {
            return t;
        }
        match self.as_const(c) {
            Some(Value::Bool(true)) => a,
            Some(_) => b,
            None => {
                let sort = self.sort(a);
                self.intern(Node::App(Op::Ite, [c, a, b].into_iter().collect()), sort)
            }
        }
    }

    /// `(allocation, offset)` of an address term in normal form.
    pub fn addr_parts(&mut self, t: TermId) -> Option<(u32, TermId)> {
        match self.node(t).clone() {
            Node::Const(Value::Addr { alloc, offset }) => Some((alloc, self.constant(Value::Int(offset)))),
            Node::App(Op::Addr(alloc), args) => Some((alloc, args[0])),
            _ => None,
        }
    }

    /// `(y, c)` when `t` is the integer `toint(zext(y)) + c`: the unsigned
    /// value of the bit-vector `y` plus a constant (a wasm memory offset),
    /// a constant added to `y` that cannot wrap moved into `c`.
    pub fn unsigned_int(&self, t: TermId) -> Option<(TermId, i128)> {
        let plain = |t: TermId| match self.node(t) {
            Node::App(Op::ToInt, a) => match self.node(a[0]) {
                Node::App(Op::ZExt(w), y) if matches!(self.sort(y[0]), Sort::Bv(v) if v < *w) => Some(y[0]),
                _ => None,
            },
            _ => None,
        };
        let (y, c) = match plain(t) {
            Some(y) => (y, 0),
            None => {
                let Node::App(op @ (Op::Add | Op::Sub), a) = self.node(t) else {
                    return None;
                };
                let konst = |i: usize| match self.as_const(a[i]) {
                    Some(Value::Int(k)) => Some(k),
                    _ => None,
                };
                match op {
                    Op::Add => match (plain(a[0]), konst(1), plain(a[1]), konst(0)) {
                        (Some(y), Some(c), _, _) | (_, _, Some(y), Some(c)) => (y, c),
                        _ => return None,
                    },
                    _ => (plain(a[0])?, konst(1)?.checked_neg()?),
                }
            }
        };
        Some(self.peel_constant(y, c))
    }

    /// `(x, c + k)` for `y = x + k` (bit-vectors, `k` constant) where `x +
    /// k` cannot wrap, so the unsigned value of `y` is that of `x` plus `k`:
    /// an address `base + (i & 3) * 4` read by the index's bits alone.
    fn peel_constant(&self, y: TermId, c: i128) -> (TermId, i128) {
        let Node::App(Op::Add, a) = self.node(y) else {
            return (y, c);
        };
        let Sort::Bv(w) = self.sort(y) else {
            return (y, c);
        };
        let (x, k) = match (self.as_const(a[0]), self.as_const(a[1])) {
            (None, Some(Value::Bv { bits, .. })) => (a[0], bits),
            (Some(Value::Bv { bits, .. }), None) => (a[1], bits),
            _ => return (y, c),
        };
        match self.value_range(x) {
            Some((_, hi)) if hi + i128::from(k) < 1i128 << w => (x, c + i128::from(k)),
            _ => (y, c),
        }
    }

    /// `y op k` for the unsigned value of the bit-vector `y` and an integer `k`.
    fn compare_unsigned(&mut self, op: Op, y: TermId, k: i128) -> Option<TermId> {
        let Sort::Bv(w) = self.sort(y) else { return None };
        let max = (1i128 << w) - 1;
        let decided = match op {
            Op::Eq | Op::Ne if !(0..=max).contains(&k) => Some(op == Op::Ne),
            Op::Lt if k <= 0 || k > max => Some(k > max),
            Op::Le if k < 0 || k >= max => Some(k >= max),
            Op::Gt if k < 0 || k >= max => Some(k < 0),
            Op::Ge if k <= 0 || k > max => Some(k <= 0),
            _ => None,
        };
        if let Some(b) = decided {
            return Some(self.bool(b));
        }
        let unsigned = match op {
            Op::Lt => Op::ULt,
            Op::Le => Op::ULe,
            Op::Gt => Op::UGt,
            Op::Ge => Op::UGe,
            _ => op,
        };
        let kt = self.constant(Value::bv(w, k as u64));
        self.app(unsigned, &[y, kt]).ok()
    }

    /// A narrow bit-vector widened and narrowed or masked again (C's `char`
    /// through WebAssembly's `i32`: `(x << 24) >> 24`, `zext(trunc(sext x))
    /// & 255`) in one form, the widening of `x` itself, and a widened value
    /// compared with a constant as `x` compared with it. So a predicate on a
    /// byte is one term however the program computed it: `c == 0` came in
    /// three forms per input byte of an INI parser, three independent BDD
    /// variables for one fact.
    fn rewrite_width(&mut self, op: Op, args: &[TermId]) -> Option<TermId> {
        let width = |s: &Self, t: TermId| match s.sort(t) {
            Sort::Bv(w) => Some(w),
            _ => None,
        };
        // `(x, signed)` when `t` widens `x`.
        let widened = |s: &Self, t: TermId| match s.node(t) {
            Node::App(Op::ZExt(_), a) => Some((a[0], false)),
            Node::App(Op::SExt(_), a) => Some((a[0], true)),
            _ => None,
        };
        let bits = |s: &Self, t: TermId| match s.as_const(t) {
            Some(Value::Bv { bits, .. }) => Some(bits),
            _ => None,
        };
        let extend = |signed: bool, w: u8| if signed { Op::SExt(w) } else { Op::ZExt(w) };
        match op {
            Op::Trunc(w) => {
                let (x, signed) = widened(self, args[0])?;
                let v = width(self, x)?;
                match v.cmp(&w) {
                    std::cmp::Ordering::Equal => Some(x),
                    std::cmp::Ordering::Greater => self.app(Op::Trunc(w), &[x]).ok(),
                    std::cmp::Ordering::Less => self.app(extend(signed, w), &[x]).ok(),
                }
            }
            Op::ZExt(w) | Op::SExt(w) => {
                // Widening back a narrowed value that fitted the narrow
                // width: the value itself (a masked index stored as bytes and
                // loaded again, `zext(trunc(i & 3))`).
                if let Some(y) = self.fitting_narrowed(args[0], matches!(op, Op::SExt(_))) {
                    match width(self, y)?.cmp(&w) {
                        std::cmp::Ordering::Equal => return Some(y),
                        std::cmp::Ordering::Less => return self.app(Op::ZExt(w), &[y]).ok(),
                        std::cmp::Ordering::Greater => {}
                    }
                }
                // Widening a widened value: one widening (a zero-extended
                // value's top bit is 0, so sign-extending it again is zext).
                // (Not `zext(sext x)`: the sign's copies are kept as bits.)
                let (x, signed) = widened(self, args[0])?;
                if width(self, x)? >= width(self, args[0])? {
                    return None;
                }
                match (op, signed) {
                    (Op::ZExt(_), true) => None,
                    _ => self.app(extend(signed, w), &[x]).ok(),
                }
            }
            Op::And => {
                // `ext(x) & k` keeping every bit of `x` and none above.
                let (e, k) = match (bits(self, args[0]), bits(self, args[1])) {
                    (None, Some(k)) => (args[0], k),
                    (Some(k), None) => (args[1], k),
                    _ => return None,
                };
                // A mask of the low bits that keeps every value `e` can
                // take (`(i & 3) & 15`).
                if k.wrapping_add(1) & k == 0 && self.value_range(e).is_some_and(|(_, hi)| hi <= i128::from(k)) {
                    return Some(e);
                }
                let (x, _) = widened(self, e)?;
                let (v, w) = (width(self, x)?, width(self, e)?);
                (k == crate::value::mask(v) && v < w).then_some(())?;
                self.app(Op::ZExt(w), &[x]).ok()
            }
            Op::AShr | Op::LShr => {
                // `(y << s) >> s` where the low bits of `y` are a narrower `x`.
                let s = bits(self, args[1])?;
                // A zero-extended value shifted right past its bits: 0 (a
                // byte's higher "bytes" when its word is stored and read back).
                if let (Op::LShr, Some((x, false))) = (op, widened(self, args[0])) {
                    let (v, w) = (width(self, x)?, width(self, args[0])?);
                    if s >= u64::from(v) && v < w {
                        return Some(self.constant(Value::bv(w, 0)));
                    }
                }
                let Node::App(Op::Shl, inner) = self.node(args[0]).clone() else {
                    return None;
                };
                if bits(self, inner[1])? != s {
                    return None;
                }
                let w = width(self, args[0])?;
                let (x, _) = widened(self, inner[0])?;
                let v = width(self, x)?;
                if s == 0 || u64::from(w) - u64::from(v) != s {
                    return None;
                }
                self.app(extend(op == Op::AShr, w), &[x]).ok()
            }
            Op::Eq | Op::Ne | Op::ULt | Op::ULe | Op::UGt | Op::UGe | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let k = bits(self, args[1])?;
                let (x, signed) = widened(self, args[0])?;
                let (v, w) = (width(self, x)?, width(self, args[0])?);
                if v >= w {
                    return None;
                }
                let unsigned_op = matches!(op, Op::ULt | Op::ULe | Op::UGt | Op::UGe);
                let signed_op = matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge);
                if (unsigned_op && signed) || (signed_op && !signed) {
                    return None;
                }
                // The constant as a number of the widened value's kind, and
                // the range of values `x` widens to.
                let (k, lo, hi) = if signed {
                    let half = 1i128 << (v - 1);
                    (i128::from(Value::bv_signed(w, k)), -half, half - 1)
                } else {
                    (i128::from(k), 0, (1i128 << v) - 1)
                };
                let decided = match op {
                    Op::Eq | Op::Ne if !(lo..=hi).contains(&k) => Some(op == Op::Ne),
                    Op::ULt | Op::Lt if k > hi || k <= lo => Some(k > hi),
                    Op::ULe | Op::Le if k >= hi || k < lo => Some(k >= hi),
                    Op::UGt | Op::Gt if k >= hi || k < lo => Some(k < lo),
                    Op::UGe | Op::Ge if k > hi || k <= lo => Some(k <= lo),
                    _ => None,
                };
                if let Some(b) = decided {
                    return Some(self.bool(b));
                }
                let narrow = self.constant(Value::bv(v, k as u64));
                self.app(op, &[x, narrow]).ok()
            }
            _ => None,
        }
    }

    /// `f(x) == k` for an `f` undone by a constant as `x == f⁻¹(k)`, for
    /// bit-vectors: `x + c`, `x - c` and `x ^ c` (modulo the width), and `x
    /// << s` where `x` has no bits the shift drops (an address `base + (i &
    /// 3) * 4` compared with one of its cells is `(i & 3) == 1`: the
    /// predicate a branch on the index makes, so both are one BDD
    /// variable and the solver sees the index, not the address).
    fn rewrite_solved_equality(&mut self, op: Op, lhs: TermId, k: TermId) -> Option<TermId> {
        let Some(Value::Bv { width, bits }) = self.as_const(k) else {
            return None;
        };
        let Node::App(f, a) = self.node(lhs) else {
            return None;
        };
        let (f, a) = (*f, [a[0], *a.get(1)?]);
        let konst = |s: &Self, t: TermId| match s.as_const(t) {
            Some(Value::Bv { bits, .. }) => Some(bits),
            _ => None,
        };
        let mask = crate::value::mask(width);
        let (x, solved) = match (f, konst(self, a[0]), konst(self, a[1])) {
            (Op::Add, None, Some(c)) => (a[0], bits.wrapping_sub(c) & mask),
            (Op::Add, Some(c), None) => (a[1], bits.wrapping_sub(c) & mask),
            (Op::Sub, None, Some(c)) => (a[0], bits.wrapping_add(c) & mask),
            (Op::Xor, None, Some(c)) => (a[0], bits ^ c),
            (Op::Xor, Some(c), None) => (a[1], bits ^ c),
            (Op::Shl, None, Some(s)) if s < u64::from(width) => {
                if bits & crate::value::mask(s as u8) != 0 {
                    return Some(self.bool(op == Op::Ne));
                }
                let (_, hi) = self.value_range(a[0])?;
                if hi >= 1i128 << (u64::from(width) - s) {
                    return None;
                }
                (a[0], bits >> s)
            }
            _ => return None,
        };
        let solved = self.constant(Value::bv(width, solved));
        self.app(op, &[x, solved]).ok()
    }

    /// `y` when `t` is `trunc(y)` and every value of `y` fits the narrow
    /// width (`signed`: below its sign bit), so widening `t` gives `y`'s
    /// value back.
    fn fitting_narrowed(&self, t: TermId, signed: bool) -> Option<TermId> {
        let Node::App(Op::Trunc(v), a) = self.node(t) else {
            return None;
        };
        let y = a[0];
        let (_, hi) = self.value_range(y)?;
        (hi < 1i128 << (v - u8::from(signed))).then_some(y)
    }

    /// A read at a known index is the value there; a read of one value is it.
    fn rewrite_read(&mut self, args: &[TermId]) -> Option<TermId> {
        if let Some(k) = self.as_const(args[0]) {
            let hit = args[2..].chunks_exact(2).find(|kv| self.as_const(kv[0]) == Some(k));
            return Some(hit.map_or(args[1], |kv| kv[1]));
        }
        if args.iter().skip(3).step_by(2).all(|v| *v == args[1]) {
            return Some(args[1]);
        }
        // Keys the index cannot equal (its bounds or low bits say so) go.
        let index = args[0];
        let impossible = |s: &Self, k: TermId| s.decided_by_ranges(Op::Eq, index, k) == Some(false);
        if !args[2..].chunks_exact(2).any(|kv| impossible(self, kv[0])) {
            return None;
        }
        let mut kept: SmallVec<[TermId; 3]> = args[..2].iter().copied().collect();
        for kv in args[2..].chunks_exact(2) {
            if !impossible(self, kv[0]) {
                kept.extend_from_slice(kv);
            }
        }
        self.app(Op::Read, &kept).ok()
    }

    /// Address arithmetic and comparison act on offsets, so address terms
    /// stay in the normal form `Addr(a)(offset)`.
    fn rewrite_address(&mut self, op: Op, args: &[TermId], sort: Sort) -> Option<TermId> {
        let (s0, s1) = (self.sort(args[0]), self.sort(args[1]));
        // Arithmetic and comparisons go inside a choice of addresses, so
        // addresses stay `ite` trees over the normal form `Addr(a)(off)`.
        for i in 0..2 {
            if self.sort(args[i]) != Sort::Addr {
                continue;
            }
            if let Node::App(Op::Ite, choice) = self.node(args[i]).clone() {
                let mut yes = args.to_vec();
                let mut no = args.to_vec();
                yes[i] = choice[1];
                no[i] = choice[2];
                let (yes, no) = (self.app(op, &yes).ok()?, self.app(op, &no).ok()?);
                return self.app(Op::Ite, &[choice[0], yes, no]).ok();
            }
        }
        match op {
            Op::Add | Op::Sub if sort == Sort::Addr => {
                let (p, k) = if s0 == Sort::Addr {
                    (args[0], args[1])
                } else {
                    (args[1], args[0])
                };
                let (alloc, off) = self.addr_parts(p)?;
                let k = if self.sort(k) == Sort::Int {
                    k
                } else {
                    self.app(Op::ToInt, &[k]).ok()?
                };
                let moved = self.app(op, &[off, k]).ok()?;
                self.app(Op::Addr(alloc), &[moved]).ok()
            }
            _ if s0 == Sort::Addr && s1 == Sort::Addr => {
                let ((a, o1), (b, o2)) = (self.addr_parts(args[0])?, self.addr_parts(args[1])?);
                match op {
                    Op::Eq | Op::Ne if a != b => Some(self.bool(op == Op::Ne)),
                    _ if a != b => None,
                    _ => self.app(op, &[o1, o2]).ok(),
                }
            }
            _ => None,
        }
    }

    /// Whether `b` is `¬a` as `not` builds it: `!a`, `a` of `!b`, or the
    /// negated comparison. (Looks only; builds nothing.)
    fn negates(&self, a: TermId, b: TermId) -> bool {
        match (self.node(a), self.node(b)) {
            (_, Node::App(Op::Not, inner)) if inner[0] == a => true,
            (Node::App(Op::Not, inner), _) if inner[0] == b => true,
            (Node::App(p, x), Node::App(q, y)) if p.is_comparison() && x == y => {
                let float = self.sort(x[0]).is_float();
                negate_comparison(*p, float) == Some(*q)
            }
            _ => false,
        }
    }

    /// The operands of a chain of `op` (`(a op b) op c`: `[a, b, c]`), or
    /// `None` past [`FACTOR_WIDTH`] of them.
    fn chain(&self, op: Op, t: TermId) -> Option<SmallVec<[TermId; 8]>> {
        let mut out = SmallVec::new();
        let mut stack: SmallVec<[TermId; 8]> = smallvec::smallvec![t];
        while let Some(u) = stack.pop() {
            match self.node(u) {
                Node::App(o, a) if *o == op => stack.extend(a.iter().rev().copied()),
                _ => out.push(u),
            }
            if out.len() + stack.len() > FACTOR_WIDTH {
                return None;
            }
        }
        Some(out)
    }

    /// `a ∨ b` (or dually `a ∧ b`) of two chains of the other connective,
    /// the way merged paths' conditions meet: their common operands come
    /// out (`(c ∧ x) ∨ (c ∧ y)` is `c ∧ (x ∨ y)`, and `c ∨ (c ∧ y)` is
    /// `c`), and a lone operand drops its complement from the other side
    /// (`x ∨ (¬x ∧ y)` is `x ∨ y`). `None`: no rewrite.
    fn factor(&mut self, op: Op, a: TermId, b: TermId) -> Option<TermId> {
        let inner = if op == Op::Or { Op::And } else { Op::Or };
        let (xs, ys) = (self.chain(inner, a)?, self.chain(inner, b)?);
        if xs.len() == 1 && ys.len() == 1 {
            return None;
        }
        let rebuild = |s: &mut Self, ts: &[TermId]| match ts.split_first() {
            Some((first, rest)) => rest.iter().try_fold(*first, |acc, t| s.app(inner, &[acc, *t]).ok()),
            None => Some(s.bool(inner == Op::And)),
        };
        let common: SmallVec<[TermId; 8]> = xs.iter().copied().filter(|x| ys.contains(x)).collect();
        if !common.is_empty() {
            let own = |zs: &[TermId]| -> SmallVec<[TermId; 8]> {
                zs.iter().copied().filter(|z| !common.contains(z)).collect()
            };
            let (own_x, own_y) = (own(&xs), own(&ys));
            let c = rebuild(self, &common)?;
            if own_x.is_empty() || own_y.is_empty() {
                return Some(c);
            }
            let (x, y) = (rebuild(self, &own_x)?, rebuild(self, &own_y)?);
            let rest = self.app(op, &[x, y]).ok()?;
            return self.app(inner, &[c, rest]).ok();
        }
        for (lone, other, other_is_b) in [(&xs, &ys, true), (&ys, &xs, false)] {
            if lone.len() != 1 {
                continue;
            }
            let x = lone[0];
            let Some(i) = other.iter().position(|&z| self.negates(x, z)) else {
                continue;
            };
            let mut kept = other.clone();
            kept.remove(i);
            let y = rebuild(self, &kept)?;
            let (p, q) = if other_is_b { (x, y) } else { (y, x) };
            return self.app(op, &[p, q]).ok();
        }
        None
    }

    /// Local rewrites, kept apart from construction proper.
    fn rewrite(&mut self, op: Op, args: &[TermId], sort: Sort) -> Option<TermId> {
        if op == Op::Read {
            return self.rewrite_read(args);
        }
        // One form per comparison: constants on the right, else the older
        // term first (`3 >= x` is `x <= 3`), so equal predicates are one term.
        if let Some(flipped) = swap_comparison(op) {
            let (a, b) = (args[0], args[1]);
            let (ca, cb) = (self.as_const(a).is_some(), self.as_const(b).is_some());
            if (ca && !cb) || (ca == cb && a > b) {
                return self.app(flipped, &[b, a]).ok();
            }
        }
        // A comparison its operands' bounds decide (a memory access's
        // bounds check on an offset from a masked index).
        if swap_comparison(op).is_some() {
            if let Some(holds) = self.decided_by_ranges(op, args[0], args[1]) {
                return Some(self.bool(holds));
            }
            if let Some((eq, end)) = self.boundary_equality(op, args[0], args[1]) {
                let end = match self.sort(args[0]) {
                    Sort::Bv(w) => Value::bv(w, end as u64),
                    _ => Value::Int(end),
                };
                let end = self.constant(end);
                return self.app(eq, &[args[0], end]).ok();
            }
        }
        if args.len() == 2 && (sort == Sort::Addr || self.sort(args[0]) == Sort::Addr) {
            return self.rewrite_address(op, args, sort);
        }
        // An offset `toint(zext(y)) + c` compared with a constant is `y`
        // compared unsigned: no integer conversion reaches the solver.
        if matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge) {
            // The constant first: most comparisons have none and stop there.
            if let Some(Value::Int(k)) = self.as_const(args[1]) {
                if let Some((y, c)) = self.unsigned_int(args[0]) {
                    return self.compare_unsigned(op, y, k.checked_sub(c)?);
                }
            }
        }
        if let Some(t) = self.rewrite_width(op, args) {
            return Some(t);
        }
        if matches!(op, Op::Eq | Op::Ne) {
            if let Some(t) = self.rewrite_solved_equality(op, args[0], args[1]) {
                return Some(t);
            }
        }
        let c = |s: &Self, i: usize| s.as_const(args[i]);
        let zero = |v: Option<Value>| matches!(v, Some(Value::Int(0)) | Some(Value::Bv { bits: 0, .. }));
        let one = |v: Option<Value>| matches!(v, Some(Value::Int(1)) | Some(Value::Bv { bits: 1, .. }));
        match op {
            Op::Not => match self.node(args[0]).clone() {
                Node::App(Op::Not, inner) => Some(inner[0]),
                Node::App(cmp, inner) if sort == Sort::Bool && cmp.is_comparison() => {
                    let float = self.sort(inner[0]).is_float();
                    let neg = negate_comparison(cmp, float)?;
                    self.app(neg, &inner).ok()
                }
                _ => None,
            },
            Op::And | Op::Or if sort == Sort::Bool => {
                let absorbing = Value::Bool(op == Op::Or);
                for (i, j) in [(0, 1), (1, 0)] {
                    match c(self, i) {
                        Some(v) if v == absorbing => return Some(args[i]),
                        Some(_) => return Some(args[j]),
                        None => {}
                    }
                }
                if args[0] == args[1] {
                    return Some(args[0]);
                }
                // c ∧ ¬c and c ∨ ¬c (paths meeting again after a branch).
                if self.negates(args[0], args[1]) {
                    return Some(self.bool(op == Op::Or));
                }
                self.factor(op, args[0], args[1])
            }
            Op::Ite => {
                let (cond, yes, no) = (args[0], args[1], args[2]);
                if yes == no {
                    return Some(yes);
                }
                if let Some(Value::Bool(b)) = c(self, 0) {
                    return Some(if b { yes } else { no });
                }
                if let Node::App(Op::Not, inner) = self.node(cond).clone() {
                    return self.app(Op::Ite, &[inner[0], no, yes]).ok();
                }
                // A side that chooses on the same condition again is the
                // value on that side.
                let same = |s: &Self, t: TermId, holds: bool| match s.node(t) {
                    Node::App(Op::Ite, inner) if inner[0] == cond => Some(inner[if holds { 1 } else { 2 }]),
                    _ => None,
                };
                if let Some(y) = same(self, yes, true) {
                    return self.app(Op::Ite, &[cond, y, no]).ok();
                }
                if let Some(n) = same(self, no, false) {
                    return self.app(Op::Ite, &[cond, yes, n]).ok();
                }
                // A choice of the truth values is the condition. (Not
                // `ite(c, true, x)` as `c ∨ x`: `x` need not evaluate where
                // `c` holds, a merged variable that one side never set.)
                match (c(self, 1), c(self, 2)) {
                    (Some(Value::Bool(true)), Some(Value::Bool(false))) => Some(cond),
                    (Some(Value::Bool(false)), Some(Value::Bool(true))) => Some(self.not(cond)),
                    _ => None,
                }
            }
            Op::Add | Op::Sub if sort != Sort::Addr && !sort.is_float() => {
                if zero(c(self, 1)) {
                    Some(args[0])
                } else if op == Op::Add && zero(c(self, 0)) {
                    Some(args[1])
                } else {
                    None
                }
            }
            Op::Mul if !sort.is_float() => {
                for (i, j) in [(0, 1), (1, 0)] {
                    if zero(c(self, i)) {
                        return Some(args[i]);
                    }
                    if one(c(self, i)) {
                        return Some(args[j]);
                    }
                }
                None
            }
            Op::Eq | Op::Ne if args[0] == args[1] && !self.sort(args[0]).is_float() => Some(self.bool(op == Op::Eq)),
            // `tobv(b) != 0` is `b`, `tobv(b) == 0` is `¬b` (C's truth
            // values, as WebAssembly's `i32` comparisons produce them).
            // (Constants are on the right, above.)
            Op::Eq | Op::Ne => {
                let (b, k) = (self.bool_of(args[0])?, c(self, 1));
                k?;
                let holds = match (zero(k), one(k)) {
                    (true, _) => op == Op::Ne,
                    (_, true) => op == Op::Eq,
                    _ => return Some(self.bool(op == Op::Ne)),
                };
                Some(if holds { b } else { self.not(b) })
            }
            // A float's bits read back as a float are that float, bit for
            // bit (a `double` stored to memory and loaded again), and the
            // other way round: the solver sees float operations on floats,
            // not Z3's `fp.to_ieee_bv` of every intermediate result.
            Op::Reinterpret => match self.node(args[0]) {
                Node::App(Op::Reinterpret, inner) if self.sort(inner[0]) == sort => Some(inner[0]),
                _ => None,
            },
            Op::Shl | Op::LShr | Op::AShr if zero(c(self, 1)) => Some(args[0]),
            // A value under a mask shifted right past the mask's bits: 0
            // (`(h & 3) >> 4`, a hash table's word of slot flags for four
            // slots). (Constants are on the right, above.)
            Op::LShr
                if matches!((self.masked(args[0]), c(self, 1)), (Some((_, k)), Some(Value::Bv { bits, .. }))
                    if bits < 64 && k >> bits == 0) =>
            {
                Some(self.constant(Value::default_of(sort)))
            }
            // Masks of masks: `(x & k1) & k2` is `x & (k1 & k2)`.
            Op::And if self.masked(args[0]).is_some() && matches!(c(self, 1), Some(Value::Bv { .. })) => {
                let (Some((x, k1)), Some(Value::Bv { bits: k2, width })) = (self.masked(args[0]), c(self, 1)) else {
                    return None;
                };
                let k = self.constant(Value::bv(width, k1 & k2));
                self.app(Op::And, &[x, k]).ok()
            }
            // A C truth value (0 or 1) shifted right by a non-zero amount is
            // 0; narrowed or widened it is the same truth value. (The bytes
            // of a stored flag, and a flag put together from them again.)
            Op::LShr if self.bool_of(args[0]).is_some() && c(self, 1).is_some() => {
                Some(self.constant(Value::default_of(sort)))
            }
            Op::Trunc(w) | Op::ZExt(w) => {
                let b = self.bool_of(args[0])?;
                self.app(Op::ToBv(w), &[b]).ok()
            }
            Op::Or | Op::Xor if matches!(sort, Sort::Bv(_)) && zero(c(self, 0)) => Some(args[1]),
            Op::Or | Op::Xor if matches!(sort, Sort::Bv(_)) && zero(c(self, 1)) => Some(args[0]),
            Op::And if matches!(sort, Sort::Bv(_)) && zero(c(self, 0)) => Some(args[0]),
            Op::And if matches!(sort, Sort::Bv(_)) && zero(c(self, 1)) => Some(args[1]),
            // Connectives of C truth values stay truth values of the Bool
            // connective, so branch predicates reach the guards as formulas.
            Op::And | Op::Or if matches!(sort, Sort::Bv(_)) => {
                let Sort::Bv(w) = sort else { return None };
                if let (Some(a), Some(b)) = (self.bool_of(args[0]), self.bool_of(args[1])) {
                    let both = self.app(op, &[a, b]).ok()?;
                    return self.app(Op::ToBv(w), &[both]).ok();
                }
                // `tobv(b) & 1` is `tobv(b)`.
                let truth = |i: usize| self.bool_of(args[i]).is_some() && one(c(self, 1 - i));
                if op != Op::And {
                    return None;
                }
                [0, 1].into_iter().find(|&i| truth(i)).map(|i| args[i])
            }
            _ => None,
        }
    }

    /// `b` when `t` is `tobv(b)` of a Bool term.
    fn bool_of(&self, t: TermId) -> Option<TermId> {
        match self.node(t) {
            Node::App(Op::ToBv(_), a) if self.sort(a[0]) == Sort::Bool => Some(a[0]),
            _ => None,
        }
    }

    pub fn not(&mut self, t: TermId) -> TermId {
        self.app(Op::Not, &[t]).expect("`not` of a Bool term")
    }

    pub fn and(&mut self, a: TermId, b: TermId) -> TermId {
        self.app(Op::And, &[a, b]).expect("`and` of Bool terms")
    }

    pub fn or(&mut self, a: TermId, b: TermId) -> TermId {
        self.app(Op::Or, &[a, b]).expect("`or` of Bool terms")
    }

    pub fn eq(&mut self, a: TermId, b: TermId) -> TermId {
        self.app(Op::Eq, &[a, b]).expect("equality is defined on all sorts")
    }

    /// `t` with each symbol in `map` replaced by its term (of the symbol's
    /// sort), rebuilt through [`TermStore::app`] so that it folds; `None`
    /// if a folded operation is undefined (a constant division by zero).
    pub fn substitute(&mut self, t: TermId, map: &FxHashMap<SymId, TermId>) -> Option<TermId> {
        let mut done: FxHashMap<TermId, TermId> = FxHashMap::default();
        for u in self.postorder(&[t]) {
            let new = match self.node(u).clone() {
                Node::Const(_) => u,
                Node::Sym(s) => map.get(&s).copied().unwrap_or(u),
                Node::App(op, args) => {
                    let new_args: SmallVec<[TermId; 3]> = args.iter().map(|a| done[a]).collect();
                    self.rebuilt(u, op, &args, &new_args).ok()?
                }
            };
            done.insert(u, new);
        }
        Some(done[&t])
    }

    /// Each of `literals` with the Boolean terms `known` gives a value
    /// replaced where they occur strictly inside it, rebuilt through
    /// [`TermStore::app`] so that it folds (a merged value's `ite` over
    /// conditions the other literals decide takes its side), and, per
    /// literal, the indices into `known` of the terms it had inside.
    ///
    /// A literal's own atom (`b` in `not b`) stays. When `known` holds each
    /// literal's atom, the rewritten literals hold together exactly where
    /// the originals do: the atoms replaced inside a literal are strict
    /// subterms of its atom, so, by induction from the smallest, each
    /// rewritten literal sets its atom as the original does, and the atoms
    /// it replaced hold their values. A set of rewritten
    /// literals that is unsat is so with, for each, the original and the
    /// literals of the atoms it had inside.
    pub fn assume(&mut self, literals: &[TermId], known: &[(TermId, bool)]) -> Vec<(TermId, Vec<usize>)> {
        let at: FxHashMap<TermId, usize> = known.iter().enumerate().map(|(i, (t, _))| (*t, i)).collect();
        let values = [self.bool(false), self.bool(true)];
        // Rebuilt terms, shared by the literals (no known term is inside
        // one that is not its literal's root).
        let mut done: FxHashMap<TermId, TermId> = FxHashMap::default();
        let mut out = Vec::with_capacity(literals.len());
        for &lit in literals {
            // The literal's own atom stays (`not b` is the literal of `b`).
            let own = match self.node(lit) {
                Node::App(Op::Not, a) => a[0],
                _ => lit,
            };
            let replaced = |u: TermId| u != lit && u != own && at.contains_key(&u);
            // Below a known term nothing matters: it is replaced whole.
            let order = self.postorder_where(&[lit], |_, u| !replaced(u));
            // The known terms it has inside (some below subterms rebuilt for
            // earlier literals).
            let mut used: Vec<usize> = order
                .iter()
                .filter_map(|u| match self.node(*u) {
                    Node::App(_, args) => Some(args),
                    _ => None,
                })
                .flat_map(|args| args.iter().filter(|a| replaced(**a)).map(|a| at[a]))
                .collect();
            let mut rebuilt = lit;
            for u in order {
                if u != lit && done.contains_key(&u) {
                    continue;
                }
                let new = match self.node(u).clone() {
                    Node::Const(_) | Node::Sym(_) => u,
                    Node::App(op, args) => {
                        let mut new_args: SmallVec<[TermId; 3]> = SmallVec::new();
                        for a in args.iter() {
                            new_args.push(match at.get(a) {
                                Some(&i) if replaced(*a) => values[usize::from(known[i].1)],
                                _ => done[a],
                            });
                        }
                        // An operation that does not fold (a division by
                        // zero on a side no path takes) stays as it was.
                        self.rebuilt(u, op, &args, &new_args).unwrap_or(u)
                    }
                };
                if u == lit {
                    rebuilt = new;
                } else {
                    done.insert(u, new);
                }
            }
            used.sort_unstable();
            used.dedup();
            out.push((rebuilt, used));
        }
        out
    }

    /// `u = op(args)` with its arguments replaced by `new_args`, through
    /// [`TermStore::app`] so that it folds (`u` itself when none changed).
    fn rebuilt(&mut self, u: TermId, op: Op, args: &[TermId], new_args: &[TermId]) -> Result<TermId, EvalError> {
        if new_args == args {
            Ok(u)
        } else if op == Op::Ite {
            Ok(self.choice(new_args[0], new_args[1], new_args[2]))
        } else {
            self.app(op, new_args)
        }
    }

    /// The terms reachable from `roots`, children before parents, each once.
    pub fn postorder(&self, roots: &[TermId]) -> Vec<TermId> {
        self.postorder_where(roots, |_, _| true)
    }

    /// [`TermStore::postorder`] of the terms `enter` admits: one it turns
    /// away is left out with everything below it reached only through it.
    pub fn postorder_where(&self, roots: &[TermId], enter: impl FnMut(&Self, TermId) -> bool) -> Vec<TermId> {
        self.postorder_with(roots, enter, |_, _| usize::MAX)
    }

    /// Whether a read's `pairs` have `Int` constant keys in ascending order.
    fn keys_ascend(&self, pairs: &[TermId]) -> bool {
        let keys: Option<Vec<i128>> = (pairs.iter().step_by(2))
            .map(|k| match self.node(*k) {
                Node::Const(Value::Int(k)) => Some(*k),
                _ => None,
            })
            .collect();
        keys.is_some_and(|k| k.windows(2).all(|w| w[0] < w[1]))
    }

    /// The term a read (`args`: index, default, then key and value pairs)
    /// takes at `index`, by binary search over its keys, which are `Int`
    /// constants in ascending order ([`Op::Read`]); `None` where a key it
    /// looks at is not one.
    fn read_pick(&self, args: &[TermId], index: Value) -> Option<TermId> {
        let Value::Int(index) = index else { return None };
        let key = |k: TermId| match self.node(k) {
            Node::Const(Value::Int(k)) => Some(*k),
            _ => None,
        };
        crate::op::read_at(args, index, key)
    }

    /// The terms reachable from `roots` through the first `below(t)`
    /// operands of each application `t` (all of them: [`TermStore::postorder`]),
    /// children before parents, each once.
    pub fn postorder_below(&self, roots: &[TermId], below: impl FnMut(&Self, TermId) -> usize) -> Vec<TermId> {
        self.postorder_with(roots, |_, _| true, below)
    }

    /// The terms `enter` admits reachable from `roots` through the first
    /// `below(t)` operands of each application `t`, children before
    /// parents, each once.
    fn postorder_with(
        &self,
        roots: &[TermId],
        mut enter: impl FnMut(&Self, TermId) -> bool,
        mut below: impl FnMut(&Self, TermId) -> usize,
    ) -> Vec<TermId> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut order = Vec::new();
        let mut stack: Vec<(TermId, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
        while let Some((t, expanded)) = stack.pop() {
            if expanded {
                order.push(t);
                continue;
            }
            if !seen.insert(t) || !enter(self, t) {
                continue;
            }
            stack.push((t, true));
            if let Node::App(_, args) = self.node(t) {
                let args = &args[..below(self, t).min(args.len())];
                stack.extend(args.iter().rev().filter(|a| !seen.contains(*a)).map(|a| (*a, false)));
            }
        }
        order
    }

    fn sym_value(&self, s: SymId, model: &Model) -> Value {
        model
            .get(&s)
            .copied()
            .unwrap_or_else(|| Value::default_of(self.symbol(s).sort))
    }

    /// Evaluates `t` under `model`; symbols the model leaves out take their
    /// sort's default value.
    pub fn eval(&self, t: TermId, model: &Model) -> Result<Value, EvalError> {
        self.eval_with(t, model, &mut EvalMemo::default())
    }

    /// Whether `model` makes every one of `constraints` true (sharing the
    /// evaluation of common subterms).
    pub fn satisfies(&self, constraints: &[TermId], model: &Model) -> bool {
        let mut memo = EvalMemo::default();
        constraints
            .iter()
            .all(|c| self.eval_with(*c, model, &mut memo) == Ok(Value::Bool(true)))
    }

    /// [`TermStore::eval`] with a memo of evaluated subterms. An `ite`
    /// evaluates only the branch it takes, so errors stay with their branch
    /// (the other may divide by zero on this model) and merged values cost
    /// one path, not all.
    /// `memo` must only hold evaluations under this `model`; evaluations of
    /// terms that share subterms then share their work.
    pub fn eval_with(&self, t: TermId, model: &Model, memo: &mut EvalMemo) -> Result<Value, EvalError> {
        match self.node(t) {
            Node::Const(v) => return Ok(*v),
            Node::Sym(s) => return Ok(self.sym_value(*s, model)),
            Node::App(..) => {}
        }
        if let Some(v) = memo.get(&t) {
            return v.clone();
        }
        // A constant's or a symbol's value is at hand: only applications
        // go through the memo.
        let leaf = |a: TermId| match self.node(a) {
            Node::Const(v) => Some(Ok(*v)),
            Node::Sym(s) => Some(Ok(self.sym_value(*s, model))),
            Node::App(..) => None,
        };
        let known = |memo: &EvalMemo, a: TermId| leaf(a).or_else(|| memo.get(&a).cloned());
        // The value of operand `v` that `u` (a choice or a read) needs: if
        // it has none yet, `u` waits on the stack for it.
        let operand = |memo: &EvalMemo, stack: &mut Vec<(TermId, bool)>, u: TermId, v: TermId| {
            let r = known(memo, v);
            if r.is_none() {
                stack.push((u, false));
                stack.push((v, false));
            }
            r
        };
        let mut stack: Vec<(TermId, bool)> = vec![(t, false)];
        while let Some((u, expanded)) = stack.pop() {
            if memo.contains_key(&u) {
                continue;
            }
            let Node::App(op, args) = self.node(u) else {
                unreachable!("only applications are pushed")
            };
            let v = match op {
                // Checked when built; a `choice` may mix sorts.
                Op::Ite => {
                    let Some(cond) = operand(memo, &mut stack, u, args[0]) else {
                        continue;
                    };
                    let branch = match cond {
                        Ok(Value::Bool(true)) => args[1],
                        Ok(_) => args[2],
                        Err(e) => {
                            memo.insert(u, Err(e));
                            continue;
                        }
                    };
                    match operand(memo, &mut stack, u, branch) {
                        Some(r) => r,
                        None => continue,
                    }
                }
                // A table read: the value at the index's key (by binary
                // search, the keys being ascending `Int` constants), or the
                // default; only the value it picks is evaluated (a table of
                // a codebook's string pointers has a thousand pairs).
                Op::Read => {
                    let index = match operand(memo, &mut stack, u, args[0]) {
                        Some(Ok(v)) => v,
                        Some(Err(e)) => {
                            memo.insert(u, Err(e));
                            continue;
                        }
                        None => continue,
                    };
                    let Some(value) = self.read_pick(args, index) else {
                        memo.insert(u, Err(EvalError::Type("a read's keys are Int constants".into())));
                        continue;
                    };
                    match operand(memo, &mut stack, u, value) {
                        Some(r) => r,
                        None => continue,
                    }
                }
                _ => {
                    if !expanded {
                        stack.push((u, true));
                        stack.extend(
                            args.iter()
                                .filter(|a| matches!(self.node(**a), Node::App(..)) && !memo.contains_key(a))
                                .map(|a| (*a, false)),
                        );
                        continue;
                    }
                    // A connective decided by one operand is decided even
                    // where another does not evaluate: a merged path's
                    // `own_a ∨ own_b` holds under side a's model although
                    // side b's conditions divide by a value that is zero
                    // there (SMT-LIB's division is total, so the solver
                    // agrees).
                    let absorbing = match op {
                        Op::And => Some(false),
                        Op::Or => Some(true),
                        _ => None,
                    };
                    if let Some(b) = absorbing {
                        if args.iter().any(|a| known(memo, *a) == Some(Ok(Value::Bool(b)))) {
                            memo.insert(u, Ok(Value::Bool(b)));
                            continue;
                        }
                    }
                    let mut vals: SmallVec<[Value; 3]> = SmallVec::with_capacity(args.len());
                    let mut failed = None;
                    for a in args.iter() {
                        match leaf(*a) {
                            Some(Ok(x)) => vals.push(x),
                            _ => match &memo[a] {
                                Ok(x) => vals.push(*x),
                                Err(e) => {
                                    failed = Some(e.clone());
                                    break;
                                }
                            },
                        }
                    }
                    match failed {
                        Some(e) => Err(e),
                        None => eval_op(*op, &vals),
                    }
                }
            };
            memo.insert(u, v);
        }
        memo[&t].clone()
    }

    /// `t`'s value at each value of `sym` (of `width` bits, at most 16),
    /// its only input, as [`TermStore::eval_with`] gives it; `None` if it
    /// fails to evaluate at one. Each node is evaluated for all the values
    /// at once, and its values dropped once the nodes above it have them:
    /// a predicate through tiny-AES-c's rounds (7 000 nodes over one
    /// symbolic byte) took 1.2 s evaluated value by value, with a memo
    /// per value.
    pub fn eval_each(&self, t: TermId, sym: SymId, width: u8) -> Option<Vec<Value>> {
        debug_assert!(width <= 16);
        let n = 1usize << width;
        let order = self.postorder(&[t]);
        let at: FxHashMap<TermId, usize> = order.iter().enumerate().map(|(i, u)| (*u, i)).collect();
        let mut uses = vec![0u32; order.len()];
        for u in &order {
            if let Node::App(_, args) = self.node(*u) {
                for a in args {
                    uses[at[a]] += 1;
                }
            }
        }
        let mut lanes: Vec<Option<Vec<Option<Value>>>> = vec![None; order.len()];
        for (i, &u) in order.iter().enumerate() {
            let lane: Vec<Option<Value>> = match self.node(u) {
                Node::Const(v) => vec![Some(*v); n],
                Node::Sym(s) if *s == sym => (0..n as u64).map(|v| Some(Value::Bv { bits: v, width })).collect(),
                Node::Sym(s) => vec![Some(Value::default_of(self.symbol(*s).sort)); n],
                Node::App(op, args) => {
                    let lane = |a: &TermId| lanes[at[a]].as_ref().expect("an operand's values");
                    match (op, &args[..]) {
                        (Op::Ite, [c, a, b]) => {
                            let (c, a, b) = (lane(c), lane(a), lane(b));
                            (0..n)
                                .map(|k| match c[k] {
                                    Some(Value::Bool(true)) => a[k],
                                    Some(_) => b[k],
                                    None => None,
                                })
                                .collect()
                        }
                        // A table read: the value at the first key equal
                        // to the index, or the default (the keys up to it
                        // and the value it picks evaluated, as in
                        // `eval_with`).
                        (Op::Read, [i, d, pairs @ ..]) => {
                            let (i, d) = (lane(i), lane(d));
                            let pairs: Vec<_> = pairs.chunks_exact(2).map(|kv| (lane(&kv[0]), lane(&kv[1]))).collect();
                            (0..n)
                                .map(|k| {
                                    let index = i[k]?;
                                    for (key, value) in &pairs {
                                        if key[k]? == index {
                                            return value[k];
                                        }
                                    }
                                    d[k]
                                })
                                .collect()
                        }
                        (_, [a]) => {
                            let a = lane(a);
                            (0..n).map(|k| eval_op(*op, &[a[k]?]).ok()).collect()
                        }
                        (_, [a, b]) => {
                            let (a, b) = (lane(a), lane(b));
                            let absorbing = match op {
                                Op::And => Some(Value::Bool(false)),
                                Op::Or => Some(Value::Bool(true)),
                                _ => None,
                            };
                            (0..n)
                                .map(|k| match (a[k], b[k]) {
                                    (x, y) if absorbing.is_some() && (x == absorbing || y == absorbing) => absorbing,
                                    // Bit-vectors of one width straight to `eval_bv` (the
                                    // general path made tiny-AES-c's run a tenth slower).
                                    (Some(Value::Bv { width: w, bits: x }), Some(Value::Bv { width: v, bits: y }))
                                        if w == v =>
                                    {
                                        eval_bv(*op, w, x, y).or_else(|| eval_op(*op, &[a[k]?, b[k]?]).ok())
                                    }
                                    (Some(x), Some(y)) => eval_op(*op, &[x, y]).ok(),
                                    _ => None,
                                })
                                .collect()
                        }
                        _ => {
                            let operands: Vec<&Vec<Option<Value>>> = args.iter().map(lane).collect();
                            (0..n)
                                .map(|k| {
                                    let vals: SmallVec<[Value; 3]> =
                                        operands.iter().map(|l| l[k]).collect::<Option<_>>()?;
                                    eval_op(*op, &vals).ok()
                                })
                                .collect()
                        }
                    }
                }
            };
            if let Node::App(_, args) = self.node(u) {
                for a in args {
                    let j = at[a];
                    uses[j] -= 1;
                    if uses[j] == 0 {
                        lanes[j] = None;
                    }
                }
            }
            lanes[i] = Some(lane);
        }
        lanes.pop()??.into_iter().collect()
    }

    /// Infix rendering, e.g. `2 * x0 > 100`; long terms are cut with `…`.
    pub fn display(&self, t: TermId) -> String {
        let mut out = String::new();
        self.write_term(&mut out, t, 0);
        out
    }

    fn write_term(&self, out: &mut String, t: TermId, depth: usize) {
        if out.len() > 400 {
            out.push('…');
            return;
        }
        match self.node(t) {
            Node::Const(v) => {
                let _ = write!(out, "{v}");
            }
            Node::Sym(s) => out.push_str(&self.symbol(*s).name),
            Node::App(op, args) => {
                let paren = depth > 0;
                if paren {
                    out.push('(');
                }
                match (op, args.len()) {
                    (Op::Read, _) => {
                        // `read i [k1: v1, k2: v2, … else d]`
                        out.push_str("read ");
                        self.write_term(out, args[0], depth + 1);
                        out.push_str(" [");
                        for kv in args[2..].chunks_exact(2) {
                            self.write_term(out, kv[0], depth + 1);
                            out.push_str(": ");
                            self.write_term(out, kv[1], depth + 1);
                            out.push_str(", ");
                        }
                        out.push_str("else ");
                        self.write_term(out, args[1], depth + 1);
                        out.push(']');
                    }
                    (Op::Ite, _) => {
                        out.push_str("ite ");
                        for (i, a) in args.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            self.write_term(out, *a, depth + 1);
                        }
                    }
                    (_, 1) => {
                        let _ = write!(out, "{op} ");
                        self.write_term(out, args[0], depth + 1);
                    }
                    _ => {
                        self.write_term(out, args[0], depth + 1);
                        let _ = write!(out, " {} ", op.symbol());
                        self.write_term(out, args[1], depth + 1);
                    }
                }
                if paren {
                    out.push(')');
                }
            }
        }
    }
}

/// `¬(a op b)` as a comparison, where one exists. For floats only `==`/`!=`
/// negate into each other: `¬(a < b)` is not `a >= b` when a NaN is involved.
/// The comparison that holds of `(b, a)` when `op` holds of `(a, b)`.
fn swap_comparison(op: Op) -> Option<Op> {
    Some(match op {
        Op::Eq | Op::Ne => op,
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        Op::ULt => Op::UGt,
        Op::ULe => Op::UGe,
        Op::UGt => Op::ULt,
        Op::UGe => Op::ULe,
        _ => return None,
    })
}

fn negate_comparison(op: Op, float: bool) -> Option<Op> {
    Some(match op {
        Op::Eq => Op::Ne,
        Op::Ne => Op::Eq,
        _ if float => return None,
        Op::Lt => Op::Ge,
        Op::Le => Op::Gt,
        Op::Gt => Op::Le,
        Op::Ge => Op::Lt,
        Op::ULt => Op::UGe,
        Op::ULe => Op::UGt,
        Op::UGt => Op::ULe,
        Op::UGe => Op::ULt,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_budget::{catch_stop, memory_use, Limits, StopReason};

    /// Evaluating a term at every value of its byte at once gives what
    /// evaluating it value by value gives: table reads, choices (whose
    /// other side fails), connectives one operand decides, widenings, a
    /// division by zero, and a term that fails to evaluate at some values.
    #[test]
    fn evaluating_at_every_value_at_once_agrees_with_one_at_a_time() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let sym = match s.node(x) {
            Node::Sym(v) => *v,
            _ => unreachable!(),
        };
        let k = |s: &mut TermStore, v: u64| s.constant(Value::bv(8, v));
        let (three, seven, zero) = (k(&mut s, 3), k(&mut s, 7), k(&mut s, 0));
        let low = s.app(Op::And, &[x, three]).unwrap();
        let index = s.app(Op::ToInt, &[low]).unwrap();
        let mut table = vec![index, seven];
        for i in 0..3 {
            table.push(s.constant(Value::Int(i)));
            table.push(k(&mut s, 40 + i as u64));
        }
        let read = s.app(Op::Read, &table).unwrap();
        let sum = s.app(Op::Add, &[read, x]).unwrap();
        let wide = s.app(Op::ZExt(32), &[sum]).unwrap();
        let q = s.app(Op::UDiv, &[x, low]).unwrap();
        let small = s.app(Op::ULt, &[x, seven]).unwrap();
        let choice = s.app(Op::Ite, &[small, q, sum]).unwrap();
        let is_zero = s.app(Op::Eq, &[low, zero]).unwrap();
        let big = s.app(Op::UGt, &[choice, seven]).unwrap();
        let either = s.app(Op::Or, &[is_zero, big]).unwrap();
        let i = s.app(Op::ToInt, &[x]).unwrap();
        let n100 = s.constant(Value::Int(100));
        let shifted = s.app(Op::Sub, &[i, n100]).unwrap();
        // A read evaluates the value it picks only: the cell at 1 holds the
        // quotient, which fails where `x & 3` is 0, where the read picks the
        // cell at 0.
        let mut cells = vec![index, seven];
        for (key, cell) in [(0, zero), (1, q), (2, three)] {
            cells.extend([s.constant(Value::Int(key)), cell]);
        }
        let lazy = s.app(Op::Read, &cells).unwrap();
        let mut failed = 0;
        for t in [read, wide, q, choice, either, shifted, lazy] {
            let one: Result<Vec<Value>, EvalError> = (0..256u64)
                .map(|v| {
                    let mut m = Model::default();
                    m.insert(sym, Value::bv(8, v));
                    s.eval(t, &m)
                })
                .collect();
            failed += usize::from(one.is_err());
            assert_eq!(s.eval_each(t, sym, 8), one.ok(), "{}", s.display(t));
        }
        // The quotient by `x & 3` fails where that is 0, and so does the
        // choice that takes it below 7 (at 0 and 4); the disjunction, which
        // `x & 3 == 0` decides there, does not, nor the read.
        assert_eq!(failed, 2);
    }

    /// A term's symbols are its operands' (one set shared by the terms
    /// over the same inputs); hash-consing gives a node made twice its
    /// first term.
    #[test]
    fn terms_share_their_symbol_sets_and_are_made_once() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(8));
        let one = s.constant(Value::bv(8, 1));
        let x1 = s.app(Op::Add, &[x, one]).unwrap();
        let xy = s.app(Op::Mul, &[x1, y]).unwrap();
        let yx = s.app(Op::Sub, &[y, x1]).unwrap();
        assert_eq!(s.symbols(one), &[] as &[SymId]);
        assert_eq!(s.symbols(x1), s.symbols(x));
        assert_eq!(s.symbols(xy).len(), 2);
        assert_eq!(s.symbols_of[xy.0 as usize], s.symbols_of[yx.0 as usize]);
        let n = s.len();
        assert_eq!(s.app(Op::Mul, &[x1, y]).unwrap(), xy);
        assert_eq!(s.len(), n);
        assert_eq!(s.symbol_term_of(s.symbols(y)[0]), y);
    }

    /// With the run's budget, a store whose tables would grow past the
    /// memory limit unwinds before they do, and the run has stopped for
    /// memory.
    #[test]
    fn a_table_that_would_grow_past_the_memory_limit_unwinds_first() {
        let (rss, _) = memory_use().expect("Linux");
        let mb = (rss >> 20) + 64;
        let budget = Budget::start(Limits {
            time: None,
            memory_mb: Some(mb),
        });
        budget.sample_memory();
        let mut s = TermStore::new();
        s.set_budget(Some(budget.clone()));
        let x = s.symbol_term("x", Sort::Int);
        let made = catch_stop(|| {
            for k in 0..10_000_000 {
                let c = s.constant(Value::Int(k));
                s.app(Op::Add, &[x, c]).unwrap();
            }
        });
        assert!(made.is_err());
        assert_eq!(budget.reason(), Some(StopReason::MemoryLimit(mb)));
        // Without it, the store grows on.
        s.set_budget(None);
        let before = s.len();
        s.app(Op::Mul, &[x, x]).unwrap();
        assert_eq!(s.len(), before + 1);
    }

    /// A literal whose merged value chooses on another literal's atom takes
    /// that side; the rewritten set holds where the original does, and each
    /// literal says which atoms it had inside.
    #[test]
    fn literals_assumed_take_the_sides_the_others_decide() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(8));
        let [k0, k1, k5] = [0u64, 1, 5].map(|v| s.constant(Value::bv(8, v)));
        // c: x == 0; the merged value ite(c, y, 5) compared with 1.
        let c = s.app(Op::Eq, &[x, k0]).unwrap();
        let merged = s.choice(c, y, k5);
        let uses = s.app(Op::Eq, &[merged, k1]).unwrap();
        let not_c = s.not(c);
        let not_uses = s.not(uses);
        for (holds_c, holds_uses) in [(true, true), (true, false), (false, true), (false, false)] {
            let lit_c = if holds_c { c } else { not_c };
            let lit_u = if holds_uses { uses } else { not_uses };
            let known = [
                (c, holds_c),
                (not_c, !holds_c),
                (uses, holds_uses),
                (not_uses, !holds_uses),
            ];
            let out = s.assume(&[lit_c, lit_u], &known);
            assert_eq!(out[0], (lit_c, vec![]), "c has no atom inside");
            assert_eq!(out[1].1, vec![0], "the second literal read c (known index 0)");
            let Node::Sym(xs) = *s.node(x) else { unreachable!() };
            let Node::Sym(ys) = *s.node(y) else { unreachable!() };
            for (xv, yv) in [(0, 1), (0, 2), (3, 1), (3, 5)] {
                let m: Model = [(xs, Value::bv(8, xv)), (ys, Value::bv(8, yv))].into_iter().collect();
                let holds = |t: TermId| s.eval(t, &m) == Ok(Value::Bool(true));
                let original = holds(lit_c) && holds(lit_u);
                let rewritten = holds(out[0].0) && holds(out[1].0);
                assert_eq!(original, rewritten, "x={xv} y={yv} c={holds_c} uses={holds_uses}");
            }
        }
        // Under x == 0 the value is y: the literal no longer mentions x.
        let out = s.assume(
            &[c, uses],
            &[(c, true), (not_c, false), (uses, true), (not_uses, false)],
        );
        let want = s.app(Op::Eq, &[y, k1]).unwrap();
        assert_eq!(out[1].0, want);
        // A literal `not b` keeps its own atom `b`, and `b` is replaced in
        // the others.
        let b = s.symbol_term("b", Sort::Bool);
        let not_b = s.not(b);
        let either = s.choice(b, c, uses);
        let known = [(b, false), (not_b, true), (either, true), (s.not(either), false)];
        let out = s.assume(&[not_b, either], &known);
        assert_eq!(out[0], (not_b, vec![]));
        assert_eq!(out[1], (uses, vec![0]));
        // Under x != 0 it is 5 == 1: false.
        let out = s.assume(
            &[not_c, uses],
            &[(c, false), (not_c, true), (uses, true), (not_uses, false)],
        );
        assert_eq!(s.as_const(out[1].0), Some(Value::Bool(false)));
    }

    /// A conjunction with a false operand is false, and a disjunction with
    /// a true one true, even where another operand divides by zero; a
    /// connective that needs the failing operand still fails.
    #[test]
    fn connectives_decided_by_one_operand_evaluate_past_a_division_by_zero() {
        let mut s = TermStore::new();
        let (x, y) = (s.symbol_term("x", Sort::Int), s.symbol_term("y", Sort::Int));
        let (zero, three) = (s.constant(Value::Int(0)), s.constant(Value::Int(3)));
        let q = s.app(Op::Div, &[x, y]).unwrap();
        let divided = s.app(Op::Eq, &[q, three]).unwrap();
        let nonzero = s.app(Op::Ne, &[y, zero]).unwrap();
        let is_zero = s.app(Op::Eq, &[y, zero]).unwrap();
        // Built as apps so that the store's simplifications keep both operands.
        let side_a = s.app(Op::And, &[nonzero, divided]).unwrap();
        let either = s.app(Op::Or, &[side_a, is_zero]).unwrap();
        let Node::Sym(y_sym) = *s.node(y) else { unreachable!() };
        let y_zero: Model = [(y_sym, Value::Int(0))].into_iter().collect();
        assert_eq!(s.eval(side_a, &y_zero), Ok(Value::Bool(false)));
        assert_eq!(s.eval(either, &y_zero), Ok(Value::Bool(true)));
        let (one, two) = (s.constant(Value::Int(1)), s.constant(Value::Int(2)));
        let picked = s.app(Op::Ite, &[side_a, one, two]).unwrap();
        assert_eq!(s.eval(picked, &y_zero), Ok(Value::Int(2)));
        let needs_it = s.app(Op::Or, &[divided, nonzero]).unwrap();
        assert_eq!(s.eval(needs_it, &y_zero), Err(EvalError::DivByZero));
    }

    /// A masked value shifted right past its mask is 0, masks of masks are
    /// one mask, and both mean what the operations do on every value of
    /// the symbol's low byte with a few high bits.
    #[test]
    fn masks_fold_and_keep_their_values() {
        let mut s = TermStore::new();
        let h = s.symbol_term("h", Sort::Bv(32));
        let k = |s: &mut TermStore, v: u64| s.constant(Value::bv(32, v));
        let [three, four, one, twelve, six] = [3, 4, 1, 12, 6].map(|v| k(&mut s, v));
        let low = s.app(Op::And, &[h, three]).unwrap();
        let gone = s.app(Op::LShr, &[low, four]).unwrap();
        assert_eq!(s.as_const(gone), Some(Value::bv(32, 0)));
        let kept = s.app(Op::LShr, &[low, one]).unwrap();
        assert!(s.as_const(kept).is_none(), "bit 1 of the mask survives");
        let outer = s.app(Op::And, &[h, twelve]).unwrap();
        let both = s.app(Op::And, &[outer, six]).unwrap();
        assert!(
            matches!(s.node(both), Node::App(Op::And, a) if a[0] == h && s.as_const(a[1]) == Some(Value::bv(32, 4)))
        );
        let Node::Sym(hs) = *s.node(h) else { unreachable!() };
        for v in (0..256u64).chain([0xffff_ffff, 0x8000_0007, 0x1234_5678]) {
            let m: Model = [(hs, Value::bv(32, v))].into_iter().collect();
            assert_eq!(s.eval(kept, &m), Ok(Value::bv(32, (v & 3) >> 1)), "{v:#x}");
            assert_eq!(s.eval(both, &m), Ok(Value::bv(32, v & 12 & 6)), "{v:#x}");
        }
    }

    /// Every form of a byte widened, narrowed, masked, shifted and compared
    /// that the width rewrites touch gives, for every value of the byte,
    /// what the operations give on that value.
    #[test]
    fn width_rewrites_keep_every_byte_value() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let bv32 = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        /// What is built from the byte.
        #[derive(Clone, Copy, Debug)]
        enum Case {
            /// `outer(inner(x))`.
            Twice(Op, Op),
            /// `ext(x) op k` (for shifts `(ext(x) << k) op k`), `ext` signed or not.
            Around(Op, bool, u64),
        }
        let (sext, zext) = (Op::SExt(32), Op::ZExt(32));
        let mut cases: Vec<Case> = [
            (sext, Op::Trunc(8)),
            (sext, Op::Trunc(16)),
            (zext, Op::Trunc(16)),
            (sext, Op::ZExt(64)),
            (zext, Op::SExt(64)),
            (sext, Op::SExt(64)),
            (zext, Op::ZExt(64)),
        ]
        .into_iter()
        .map(|(inner, outer)| Case::Twice(inner, outer))
        .collect();
        // Masks and shifts on a widened byte, and comparisons with
        // constants inside, at and past the byte's range.
        for signed in [false, true] {
            for op in [Op::And, Op::AShr, Op::LShr] {
                for k in [255u64, 127, 0xffff, 24, 16, 8, 7] {
                    cases.push(Case::Around(op, signed, k));
                }
            }
            for op in Op::COMPARISONS {
                let ks = [
                    0u64,
                    1,
                    10,
                    127,
                    128,
                    200,
                    255,
                    256,
                    0xffff_ff80,
                    0xffff_ff7f,
                    0xffff_ffff,
                    0x7fff_ffff,
                ];
                cases.extend(ks.into_iter().map(|k| Case::Around(op, signed, k)));
            }
        }
        let build = |s: &mut TermStore, x: TermId, case: Case| match case {
            Case::Twice(inner, outer) => {
                let w = s.app(inner, &[x]).unwrap();
                s.app(outer, &[w]).unwrap()
            }
            Case::Around(op, signed, k) => {
                let wide = s.app(if signed { sext } else { zext }, &[x]).unwrap();
                let kt = bv32(s, k);
                match op {
                    Op::AShr | Op::LShr => {
                        let up = s.app(Op::Shl, &[wide, kt]).unwrap();
                        s.app(op, &[up, kt]).unwrap()
                    }
                    _ => s.app(op, &[wide, kt]).unwrap(),
                }
            }
        };
        for case in cases {
            let t = build(&mut s, x, case);
            for v in 0..=255u64 {
                let xv = s.constant(Value::bv(8, v));
                let want = build(&mut s, xv, case);
                let want = s.as_const(want).expect("constants fold");
                let mut m = Model::default();
                m.insert(SymId(0), Value::bv(8, v));
                assert_eq!(s.eval(t, &m), Ok(want), "{case:?} at x = {v}: {}", s.display(t));
            }
        }
        // The three forms of `c == 0` an INI parser computed are one term.
        let sext = s.app(Op::SExt(32), &[x]).unwrap();
        let byte = s.app(Op::Trunc(8), &[sext]).unwrap();
        let zext = s.app(Op::ZExt(32), &[byte]).unwrap();
        let k255 = bv32(&mut s, 255);
        let masked = s.app(Op::And, &[zext, k255]).unwrap();
        let k24 = bv32(&mut s, 24);
        let up = s.app(Op::Shl, &[zext, k24]).unwrap();
        let shifted = s.app(Op::AShr, &[up, k24]).unwrap();
        let zero = bv32(&mut s, 0);
        let a = s.app(Op::Eq, &[masked, zero]).unwrap();
        let b = s.app(Op::Eq, &[shifted, zero]).unwrap();
        let zero8 = s.constant(Value::bv(8, 0));
        let c = s.app(Op::Eq, &[x, zero8]).unwrap();
        assert_eq!((a, b), (c, c));
    }

    #[test]
    fn equal_terms_share_one_id() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x0", Sort::Int);
        let two = s.constant(Value::Int(2));
        let a = s.app(Op::Mul, &[two, x]).unwrap();
        let b = s.app(Op::Mul, &[two, x]).unwrap();
        assert_eq!(a, b);
        assert_eq!(s.symbols(a), &[SymId(0)]);
    }

    /// A float's bits read back as a float are the float, and bits read
    /// as a float and back are the bits; one reinterpretation stays.
    #[test]
    fn reinterpreting_twice_is_the_identity() {
        let mut s = TermStore::new();
        for (f, b) in [(Sort::F32, Sort::Bv(32)), (Sort::F64, Sort::Bv(64))] {
            let x = s.symbol_term(&format!("f{f}"), f);
            let bits = s.app(Op::Reinterpret, &[x]).unwrap();
            assert_eq!(s.sort(bits), b);
            assert_eq!(s.app(Op::Reinterpret, &[bits]), Ok(x));
            let y = s.symbol_term(&format!("b{b}"), b);
            let float = s.app(Op::Reinterpret, &[y]).unwrap();
            assert_eq!(s.sort(float), f);
            assert_eq!(s.app(Op::Reinterpret, &[float]), Ok(y));
        }
    }

    #[test]
    fn merged_conditions_factor() {
        let mut s = TermStore::new();
        let zero = s.constant(Value::Int(0));
        let [c, x, y]: [TermId; 3] = std::array::from_fn(|i| {
            let v = s.symbol_term(&format!("v{i}"), Sort::Int);
            s.app(Op::Gt, &[v, zero]).unwrap()
        });
        let (cx, cy) = (s.and(c, x), s.and(c, y));
        let (x_or_y, factored) = (s.or(x, y), s.or(cx, cy));
        assert_eq!(factored, s.and(c, x_or_y), "(c ∧ x) ∨ (c ∧ y)");
        assert_eq!(s.or(c, cy), c, "c ∨ (c ∧ y)");
        let not_x = s.not(x);
        let not_x_and_y = s.and(not_x, y);
        assert_eq!(s.or(x, not_x_and_y), x_or_y, "x ∨ (¬x ∧ y)");
        let (x_and_c, not_x_and_c) = (s.and(x, c), s.and(not_x, c));
        assert_eq!(s.or(x_and_c, not_x_and_c), c, "paths that part on x and meet again");
    }

    /// Random Boolean combinations of comparisons built through the store
    /// (with its rewrites) evaluate as the same combinations do in Rust.
    #[test]
    fn boolean_rewrites_keep_the_meaning() {
        #[derive(Clone)]
        enum E {
            Atom(usize),
            Not(Box<E>),
            And(Box<E>, Box<E>),
            Or(Box<E>, Box<E>),
        }
        fn value(e: &E, bits: u32) -> bool {
            match e {
                E::Atom(i) => bits >> i & 1 == 1,
                E::Not(a) => !value(a, bits),
                E::And(a, b) => value(a, bits) && value(b, bits),
                E::Or(a, b) => value(a, bits) || value(b, bits),
            }
        }
        fn build(s: &mut TermStore, atoms: &[TermId], e: &E) -> TermId {
            match e {
                E::Atom(i) => atoms[*i],
                E::Not(a) => {
                    let a = build(s, atoms, a);
                    s.not(a)
                }
                E::And(a, b) | E::Or(a, b) => {
                    let (a2, b2) = (build(s, atoms, a), build(s, atoms, b));
                    match e {
                        E::And(..) => s.and(a2, b2),
                        _ => s.or(a2, b2),
                    }
                }
            }
        }
        let mut s = TermStore::new();
        let zero = s.constant(Value::Int(0));
        let syms: Vec<TermId> = (0..4).map(|i| s.symbol_term(&format!("v{i}"), Sort::Int)).collect();
        let atoms: Vec<TermId> = syms.iter().map(|&v| s.app(Op::Gt, &[v, zero]).unwrap()).collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Expressions with their sizes (kept under 64 nodes).
        let mut pool: Vec<(E, usize)> = (0..4).map(|i| (E::Atom(i), 1)).collect();
        for _ in 0..3000 {
            let (a, m) = pool[next() as usize % pool.len()].clone();
            let (b, n) = pool[next() as usize % pool.len()].clone();
            if m + n >= 64 {
                continue;
            }
            let (e, size) = match next() % 5 {
                0 => (E::Not(Box::new(a)), m + 1),
                1 | 2 => (E::And(Box::new(a), Box::new(b)), m + n + 1),
                _ => (E::Or(Box::new(a), Box::new(b)), m + n + 1),
            };
            let t = build(&mut s, &atoms, &e);
            for bits in 0..16u32 {
                let model: Model = syms
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let Node::Sym(id) = s.node(v) else {
                            unreachable!("a symbol")
                        };
                        (*id, Value::Int(if bits >> i & 1 == 1 { 1 } else { -1 }))
                    })
                    .collect();
                assert_eq!(s.eval(t, &model), Ok(Value::Bool(value(&e, bits))));
            }
            if pool.len() < 200 {
                pool.push((e, size));
            } else {
                let i = 4 + next() as usize % (pool.len() - 4);
                pool[i] = (e, size);
            }
        }
    }

    #[test]
    fn concrete_operands_fold() {
        let mut s = TermStore::new();
        let r = s.constant(Value::f64(1.3));
        let one = s.constant(Value::Int(1));
        let gt = s.app(Op::Gt, &[r, one]).unwrap();
        assert!(s.is_true(gt));
    }

    #[test]
    fn negated_comparison_rewrites() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x0", Sort::Int);
        let zero = s.constant(Value::Int(0));
        let gt = s.app(Op::Gt, &[x, zero]).unwrap();
        let ngt = s.not(gt);
        assert_eq!(s.display(ngt), "x0 <= 0");
        assert_eq!(s.not(ngt), gt);
    }

    #[test]
    fn int_meeting_float_is_promoted() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x0", Sort::Int);
        let r = s.constant(Value::f64(0.5));
        let sum = s.app(Op::Add, &[x, r]).unwrap();
        assert_eq!(s.sort(sum), Sort::F64);
    }

    #[test]
    fn address_terms_stay_in_normal_form() {
        let mut s = TermStore::new();
        let i = s.symbol_term("i", Sort::Int);
        let base = s.constant(Value::Addr { alloc: 2, offset: 1 });
        let p = s.app(Op::Add, &[base, i]).unwrap();
        assert_eq!(s.addr_parts(p).map(|(a, _)| a), Some(2));
        let one = s.constant(Value::Int(1));
        let q = s.app(Op::Sub, &[p, one]).unwrap();
        let mut m = Model::default();
        m.insert(SymId(0), Value::Int(5));
        assert_eq!(s.eval(q, &m), Ok(Value::Addr { alloc: 2, offset: 5 }));
        let other = s.constant(Value::Addr { alloc: 3, offset: 0 });
        let eq = s.app(Op::Eq, &[q, other]).unwrap();
        assert!(s.is_false(eq));
    }

    #[test]
    fn comparisons_have_one_form_and_c_truth_values_become_predicates() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let y = s.symbol_term("y", Sort::Bv(32));
        let three = s.constant(Value::bv(32, 3));
        // `3 >= x` is `x <= 3`; `y == x` is `x == y`.
        let a = s.app(Op::Ge, &[three, x]).unwrap();
        assert_eq!(a, s.app(Op::Le, &[x, three]).unwrap());
        assert_eq!(s.app(Op::Eq, &[y, x]).unwrap(), s.app(Op::Eq, &[x, y]).unwrap());
        // `tobv(p) & tobv(q)` compared with 0, as C's `&&` of two comparisons
        // lowers to, is the Bool `¬(p ∧ q)`.
        let p = s.app(Op::Lt, &[x, three]).unwrap();
        let q = s.app(Op::Ne, &[y, three]).unwrap();
        let (bp, bq) = (s.app(Op::ToBv(32), &[p]).unwrap(), s.app(Op::ToBv(32), &[q]).unwrap());
        let both = s.app(Op::And, &[bp, bq]).unwrap();
        let zero = s.constant(Value::bv(32, 0));
        let one = s.constant(Value::bv(32, 1));
        let pq = s.and(p, q);
        let not_pq = s.not(pq);
        assert_eq!(s.app(Op::Eq, &[both, zero]).unwrap(), not_pq);
        assert_eq!(s.app(Op::Ne, &[both, zero]).unwrap(), pq);
        // `tobv(p) & 1` is `tobv(p)`; a truth value is never 3.
        assert_eq!(s.app(Op::And, &[bp, one]).unwrap(), bp);
        let never = s.app(Op::Eq, &[bp, three]).unwrap();
        assert!(s.is_false(never));
        // A comparison with a non-constant stays.
        let kept = s.app(Op::Eq, &[bp, x]).unwrap();
        assert!(s.as_const(kept).is_none());
    }

    #[test]
    fn operations_go_inside_choices_of_constants() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let five = s.constant(Value::bv(32, 5));
        let c = s.app(Op::Lt, &[x, five]).unwrap();
        let bv8 = |s: &mut TermStore, v| s.constant(Value::bv(8, v));
        let (one, two) = (bv8(&mut s, 1), bv8(&mut s, 2));
        // A merged byte widened, shifted and offset is a choice of constants.
        let byte = s.app(Op::Ite, &[c, one, two]).unwrap();
        let wide = s.app(Op::ZExt(32), &[byte]).unwrap();
        let four = s.constant(Value::bv(32, 4));
        let scaled = s.app(Op::Shl, &[wide, four]).unwrap();
        let base = s.constant(Value::bv(32, 1000));
        let addr = s.app(Op::Add, &[scaled, base]).unwrap();
        let (a, b) = (s.constant(Value::bv(32, 1016)), s.constant(Value::bv(32, 1032)));
        assert_eq!(addr, s.app(Op::Ite, &[c, a, b]).unwrap());
        // Compared with a constant, it is the condition.
        let is_a = s.app(Op::Eq, &[addr, a]).unwrap();
        assert_eq!(is_a, c);
        // Two choices on one condition combine side by side.
        let other = s.app(Op::Ite, &[c, b, a]).unwrap();
        let sum = s.app(Op::Add, &[addr, other]).unwrap();
        assert_eq!(s.as_const(sum), Some(Value::bv(32, 2048)));
        // A choice of symbolic values stays one.
        let y = s.symbol_term("y", Sort::Bv(32));
        let xy = s.app(Op::Ite, &[c, x, y]).unwrap();
        let plus = s.app(Op::Add, &[xy, five]).unwrap();
        assert!(matches!(s.node(plus), Node::App(Op::Add, _)));
        // A side choosing on the same condition again, a constant condition.
        let nested = s.app(Op::Ite, &[c, xy, five]).unwrap();
        assert_eq!(nested, s.app(Op::Ite, &[c, x, five]).unwrap());
        let t = s.bool(true);
        assert_eq!(s.app(Op::Ite, &[t, x, y]).unwrap(), x);
        // Picking a side takes the condition itself as a truth value.
        let mut memo = FxHashMap::default();
        assert_eq!(s.select_side(is_a, c, false, &mut memo), s.bool(false));
        let mut memo = FxHashMap::default();
        assert_eq!(
            s.select_side(plus, c, true, &mut memo),
            s.app(Op::Add, &[x, five]).unwrap()
        );
    }

    #[test]
    fn a_stored_truth_value_reads_back_as_itself() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let zero = s.constant(Value::bv(32, 0));
        let gt = s.app(Op::Gt, &[x, zero]).unwrap();
        let flag = s.app(Op::ToBv(32), &[gt]).unwrap();
        // Its bytes: the truth value, then zeros.
        let bytes: Vec<TermId> = (0..4)
            .map(|i| {
                let k = s.constant(Value::bv(32, 8 * i));
                let moved = s.app(Op::LShr, &[flag, k]).unwrap();
                s.app(Op::Trunc(8), &[moved]).unwrap()
            })
            .collect();
        assert_eq!(bytes[0], s.app(Op::ToBv(8), &[gt]).unwrap());
        for b in &bytes[1..] {
            assert_eq!(s.as_const(*b), Some(Value::bv(8, 0)));
        }
        // Put together again, the flag itself.
        let mut word = zero;
        for (i, b) in bytes.iter().enumerate() {
            let wide = s.app(Op::ZExt(32), &[*b]).unwrap();
            let k = s.constant(Value::bv(32, 8 * i as u64));
            let shifted = s.app(Op::Shl, &[wide, k]).unwrap();
            word = s.app(Op::Or, &[word, shifted]).unwrap();
        }
        assert_eq!(word, flag);
    }

    #[test]
    fn evaluation_under_a_model() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x0", Sort::Int);
        let two = s.constant(Value::Int(2));
        let e = s.app(Op::Mul, &[two, x]).unwrap();
        let mut m = Model::default();
        m.insert(SymId(0), Value::Int(21));
        assert_eq!(s.eval(e, &m), Ok(Value::Int(42)));
        assert_eq!(s.eval(e, &Model::default()), Ok(Value::Int(0)));
    }
}
