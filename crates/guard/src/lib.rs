//! Guards: reduced ordered BDDs over predicate atoms (seed 000 §5.1).
//!
//! One BDD variable per distinct branch predicate, ordered by creation. A
//! predicate and its negation share one variable (`x > 0` is the variable,
//! `x <= 0` its complement), so `φ ∨ ¬φ` is `true` without the solver. The
//! manager keeps a unique table (so equal functions are equal ids) and
//! caches for `and`, `or` and `not`, and turns a guard back into a term for
//! the solver.

mod reorder;

use braid_budget::{Budget, Pace};
use braid_term::{EvalMemo, Model, Node as TermNode, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// A guard: a BDD node id. Equal guards are equal ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Guard(u32);

impl Guard {
    pub const FALSE: Guard = Guard(0);
    pub const TRUE: Guard = Guard(1);

    pub fn is_false(self) -> bool {
        self == Guard::FALSE
    }

    pub fn is_true(self) -> bool {
        self == Guard::TRUE
    }
}

/// The order of BDD variables. A new variable can take any place in the
/// order, since no node uses it yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarOrder {
    /// Atoms in the order they are made (exploration order).
    Creation,
    /// A predicate on one input sits with that input, in input order; a
    /// predicate relating several inputs sits after all inputs read when it
    /// is made. Parsers' multiplexer-shaped guards (`tokens[pos]` where `pos`
    /// depends on earlier tokens) stay small when the selecting inputs come
    /// first; comparisons between inputs (sorting) keep creation order.
    Inputs,
}

/// Predicates over one input of at most this many bits are functions of
/// its bits ([`Guards::bits_atom`]).
pub const BIT_ATOM_WIDTH: u8 = 8;

/// The most ranges of values a group of a narrow input's values is
/// written as ([`Guards::bits_term`]).
const MAX_RANGES: usize = 4;

/// How many atom evaluations [`Guards::search_model`] makes between looks
/// at the budget and the give-up.
const WALK_EVALS_CHECKED: u32 = 16;

/// The terms a walk may evaluate ([`Guards::search_model`]) per node it may
/// visit. A visit takes about a microsecond, an evaluated term (a memo
/// entry made) about as long. Measured while each flip emptied the memo:
/// the walks that found a model on the scratch harnesses (nodejs/http-parser
/// over 6 bytes, cJSON over 3, md4c over 3, yxml over 5) evaluated up to
/// 592 000 terms in up to 67 000 visits, while one that could not end on
/// phoboslab/qoi's decoder (every value of 15 bits of two input bytes,
/// under an atom of 29 terms) evaluated 30 million in 131 072 visits, 1.2 s
/// of a run dse finishes in 0.35 s. Two walks on rxi/fe over 4 bytes and
/// three on tinyexpr over 3 found a model after 9-28 million (0.4-1.4 s
/// each); they now end `Unknown` and the guard's cubes and the solver
/// decide it (both runs as long as before, fe's cut at its limit either
/// way). At 4 (524 288 terms a walk of the most visits) cJSON's largest
/// walk that finds a model would end `Unknown`; on intel/tinycbor over 3
/// bytes 4 took 11.1 s against 8's 13.2 (one run each, the host noisy).
const WALK_TERMS_PER_STEP: usize = 8;

/// Terms whose values at each value of their narrow input a [`Guards`]
/// keeps ([`Guards::values_of`]; 256 values of 32 bytes each), past which
/// it forgets them all.
const MAX_SUBJECTS: usize = 1024;

/// `s` (of `width` bits) is one of `values` (ascending): a disjunction of
/// at most [`MAX_RANGES`] ranges, or a mask test `s & m == v`; `None` if
/// neither fits.
fn values_term(store: &mut TermStore, s: TermId, width: u8, values: &[u64]) -> Option<TermId> {
    let bv = |store: &mut TermStore, v: u64| store.constant(Value::Bv { bits: v, width });
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for &v in values {
        match ranges.last_mut() {
            Some(r) if r.1 + 1 == v => r.1 = v,
            _ => ranges.push((v, v)),
        }
    }
    let all = (1u64 << width) - 1;
    if ranges.len() <= MAX_RANGES {
        let mut t = store.bool(false);
        for (lo, hi) in ranges {
            let part = if lo == hi {
                let k = bv(store, lo);
                store.app(Op::Eq, &[s, k]).ok()?
            } else {
                let (klo, khi) = (bv(store, lo), bv(store, hi));
                let above = if lo == 0 {
                    store.bool(true)
                } else {
                    store.app(Op::UGe, &[s, klo]).ok()?
                };
                let below = if hi == all {
                    store.bool(true)
                } else {
                    store.app(Op::ULe, &[s, khi]).ok()?
                };
                store.and(above, below)
            };
            t = store.or(t, part);
        }
        return Some(t);
    }
    // The bits every value agrees on, and whether the values are all
    // those with them.
    let (first, mut fixed) = (values[0], all);
    for &v in values {
        fixed &= !(v ^ first);
    }
    if values.len() as u64 != 1 << (width as u32 - fixed.count_ones()) {
        return None;
    }
    let (m, k) = (bv(store, fixed), bv(store, first & fixed));
    let masked = store.app(Op::And, &[s, m]).ok()?;
    store.app(Op::Eq, &[masked, k]).ok()
}

/// With a give-up set ([`Guards::set_give_up`]), the share of the run's
/// memory limit past which operations unwind too: what is left must hold
/// the engine that takes over (cJSON over 12 bytes: multise stopped at a
/// 300 MB limit after 1.4 s; dse needs about 100 MB).
pub const GIVE_UP_MEMORY: f64 = 0.5;

/// When operations give up ([`Guards::set_give_up`]), besides memory.
#[derive(Clone, Copy, Debug)]
pub struct GiveUp {
    /// Past this instant (a step of merging past its turn in a race).
    pub deadline: Option<Instant>,
    /// `(start, after, share)`: once `after` has passed since `start` and
    /// BDD operations have taken `share` of that time or more.
    pub share: Option<(Instant, Duration, f64)>,
    /// How long the share may have been due before an operation (or a
    /// look between operations, [`Guards::give_up_if_due`]) unwinds for
    /// it: the engine looks at [`Guards::share_due`] between its steps,
    /// where it can pause its exploration rather than unwind from inside a
    /// step and start again.
    pub share_grace: Duration,
}

/// Which part of a [`GiveUp`] was due, or that the engine found a guard
/// it cannot decide ([`Guards::give_up_for_guard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    Deadline,
    Share,
    Memory,
    Guard,
}

/// An operation cache that forgets: a direct-mapped table of results (as
/// CUDD's computed table), so its memory is bounded and it never pauses to
/// rehash a huge map. It doubles, keeping what it holds, each time it has
/// taken as many insertions as it has slots, up to [`Computed::MAX`].
struct Computed {
    slots: Vec<((Guard, Guard), Guard)>,
    /// Insertions since the table last grew.
    inserted: usize,
}

impl Computed {
    const MIN: usize = 1 << 12;
    const MAX: usize = 1 << 23;
    const PER_NODE: usize = 2;
    /// A key no operation asks for (terminal operands never reach a cache).
    const EMPTY: (Guard, Guard) = (Guard::FALSE, Guard::FALSE);

    fn new() -> Computed {
        Computed {
            slots: vec![(Self::EMPTY, Guard::FALSE); Self::MIN],
            inserted: 0,
        }
    }

    #[inline]
    fn slot(key: (Guard, Guard), len: usize) -> usize {
        let h = (key.0 .0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (key.1 .0 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h >> 24) as usize & (len - 1)
    }

    #[inline]
    fn get(&self, key: (Guard, Guard)) -> Option<Guard> {
        let (k, r) = self.slots[Self::slot(key, self.slots.len())];
        (k == key).then_some(r)
    }

    /// Empties the slots that name a guard `dead` says is gone.
    fn forget(&mut self, dead: impl Fn(Guard) -> bool) {
        for slot in &mut self.slots {
            let ((a, b), r) = *slot;
            if slot.0 != Self::EMPTY && (dead(a) || dead(b) || dead(r)) {
                *slot = (Self::EMPTY, Guard::FALSE);
            }
        }
    }

    /// The bytes the next insertion allocates (0: it does not grow the table).
    fn growth(&self, nodes: usize) -> usize {
        if self.inserted < self.slots.len() {
            return 0;
        }
        let cap = nodes.saturating_mul(Self::PER_NODE).clamp(Self::MIN, Self::MAX);
        if self.slots.len() * 2 <= cap {
            self.slots.len() * 2 * std::mem::size_of::<((Guard, Guard), Guard)>()
        } else {
            0
        }
    }

    /// Caches `r` for `key`. The table doubles after as many insertions as
    /// it has slots, up to `nodes` times [`Computed::PER_NODE`] slots (`nodes`:
    /// the BDD nodes alive): a cache much larger than the node table costs
    /// memory (12 bytes a slot) for results that are cheap to recompute.
    /// At 8 a node (and doubling while under the bound, so past it), the
    /// `and` cache held 12 MiB of the 64 MiB multise peaked at on Heap Sort
    /// with 650 K nodes; at 2 (never past), 6 MiB, and no row of Table 1
    /// ran slower.
    fn insert(&mut self, key: (Guard, Guard), r: Guard, nodes: usize) {
        self.inserted += 1;
        let cap = nodes.saturating_mul(Self::PER_NODE).clamp(Self::MIN, Self::MAX);
        if self.inserted > self.slots.len() && self.slots.len() * 2 <= cap {
            let len = self.slots.len() * 2;
            let mut grown = vec![(Self::EMPTY, Guard::FALSE); len];
            for &(k, v) in &self.slots {
                if k != Self::EMPTY {
                    grown[Self::slot(k, len)] = (k, v);
                }
            }
            self.slots = grown;
            self.inserted = 0;
        }
        let i = Self::slot(key, self.slots.len());
        self.slots[i] = (key, r);
    }
}

/// How fast the node table, the unique table and the operation caches
/// grow ([`Budget::grow`]). The guesses are about what their first large
/// growths take: copying the nodes, rehashing the unique table's ids (the
/// node read for each), moving the caches' entries; and collections.
struct Paces {
    nodes: Pace,
    unique: Pace,
    caches: Pace,
    /// Per node of the table, alive or not.
    collect: Pace,
}

impl Default for Paces {
    fn default() -> Paces {
        Paces {
            nodes: Pace::new(0.2),
            unique: Pace::TABLE,
            caches: Pace::new(0.5),
            collect: Pace::new(20.0),
        }
    }
}

/// The unique table: for each node's `(var, lo, hi)`, its id. Open
/// addressing with linear probing over 8-byte slots, each an id in its low
/// half and its key's hash in its high half (compared before the node is
/// read), 0 for an empty slot (node 0, `false`, is never in the table). A
/// hashbrown map of the keys took 17 bytes a bucket with the key stored in
/// it, and allocated twice as many while it grew: on bench/multise's Heap
/// Sort, 15-26 MiB of a 74 MiB peak at 650 K nodes.
struct Unique {
    slots: Vec<u64>,
    len: usize,
}

impl Unique {
    const MIN: usize = 1 << 10;

    fn new() -> Unique {
        Unique::with_slots(Self::MIN)
    }

    fn with_slots(n: usize) -> Unique {
        Unique {
            slots: vec![0; n],
            len: 0,
        }
    }

    #[inline]
    fn hash(var: u32, lo: Guard, hi: Guard) -> u64 {
        let h = (var as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (lo.0 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ (hi.0 as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
        // A product's low bits depend on the factor's low bits only: mixed
        // (murmur3's finaliser), the slot's bits and the tag's are both good.
        let h = (h ^ (h >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }

    /// A slot's high half: its key's hash tag.
    const TAG: u64 = 0xFFFF_FFFF_0000_0000;

    /// The slot index to start probing at, and the tag stored with an id.
    #[inline]
    fn place(&self, h: u64) -> (usize, u64) {
        ((h as usize) & (self.slots.len() - 1), h & Self::TAG)
    }

    #[inline]
    fn get(&self, nodes: &[Node], var: u32, lo: Guard, hi: Guard) -> Option<Guard> {
        let (mut i, tag) = self.place(Self::hash(var, lo, hi));
        let mask = self.slots.len() - 1;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                return None;
            }
            if slot & Self::TAG == tag {
                let id = slot as u32;
                let n = nodes[id as usize];
                if n.var == var && n.lo == lo && n.hi == hi {
                    return Some(Guard(id));
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether the next insertion grows the table (at three quarters full).
    fn full(&self) -> bool {
        (self.len + 1) * 4 > self.slots.len() * 3
    }

    /// The bytes the next insertion allocates while the table grows.
    fn growth_bytes(&self) -> usize {
        if self.full() {
            self.slots.len() * 2 * std::mem::size_of::<u64>()
        } else {
            0
        }
    }

    /// Puts node `id` (not in the table) in, growing the table first if
    /// it is full.
    fn insert(&mut self, nodes: &[Node], id: u32) {
        if self.full() {
            let mut grown = Unique::with_slots(self.slots.len() * 2);
            for &slot in self.slots.iter().filter(|s| **s != 0) {
                grown.put(nodes, slot as u32);
            }
            *self = grown;
        }
        self.put(nodes, id);
    }

    /// Puts node `id` in the first free slot from its key's place.
    fn put(&mut self, nodes: &[Node], id: u32) {
        let n = nodes[id as usize];
        let (mut i, tag) = self.place(Self::hash(n.var, n.lo, n.hi));
        let mask = self.slots.len() - 1;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = tag | u64::from(id);
        self.len += 1;
    }

    /// The table of the nodes `live` (ids of non-terminal nodes), at most
    /// half full.
    fn rebuild(nodes: &[Node], live: impl Iterator<Item = u32>, count: usize) -> Unique {
        let mut table = Unique::with_slots((count * 2).next_power_of_two().max(Self::MIN));
        for id in live {
            table.put(nodes, id);
        }
        table
    }
}

/// A node with its forced literals beside it, two to a cache line: an
/// operation reads a node's forced literals (the disjointness shortcut)
/// just before its variable and children, and apart they were two misses
/// where one does (multise's BDD time is mostly waiting on memory).
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Node {
    var: u32,
    lo: Guard,
    hi: Guard,
    forced: Forced,
}

impl Node {
    /// A terminal's slot, and a freed one (only slots 0 and 1 are
    /// terminals).
    const FREE: Node = Node {
        var: TERMINAL,
        lo: Guard::FALSE,
        hi: Guard::FALSE,
        forced: Forced::FALSE,
    };
}

const TERMINAL: u32 = u32::MAX;

/// Literals a guard implies, over the first [`Forced::VARS`] variables:
/// `pos` has variable `v`'s bit when every assignment satisfying the guard
/// sets `v`, `neg` when every one clears it. Two guards where one forces a
/// literal and the other its complement are disjoint: `and` answers
/// `false` without walking them, which is most of the work when a load
/// under one path's guard meets a cell written on many other paths.
///
/// 64 variables, not 128: 16 bytes a node instead of 32, 10 MiB of the
/// 74 MiB multise peaked at on bench/multise's Heap Sort (650 K nodes);
/// no run of Table 1, swenson's merge sort, jsmn, minmea, inih or tinyexpr
/// (scratch harnesses) took longer for it.
#[derive(Clone, Copy)]
struct Forced {
    pos: u64,
    neg: u64,
}

impl Forced {
    const VARS: u32 = 64;
    /// `false` forces everything (no assignment satisfies it).
    const FALSE: Forced = Forced {
        pos: u64::MAX,
        neg: u64::MAX,
    };
    const TRUE: Forced = Forced { pos: 0, neg: 0 };

    /// The node `if var then hi else lo`: what both branches force, each
    /// with its own literal of `var`.
    fn node(var: u32, lo: Forced, hi: Forced) -> Forced {
        let bit = if var < Self::VARS { 1u64 << var } else { 0 };
        Forced {
            pos: lo.pos & (hi.pos | bit),
            neg: (lo.neg | bit) & hi.neg,
        }
    }

    fn conflicts(self, other: Forced) -> bool {
        (self.pos & other.neg) | (self.neg & other.pos) != 0
    }
}

/// The two term forms of a guard ([`Guards::to_term`], [`Guards::to_choice_term`]).
#[derive(Clone, Copy)]
enum TermForm {
    Solver,
    Choice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Connective {
    And,
    Or,
}

/// What a walk of a guard found ([`Guards::search_model`]).
#[derive(Debug, PartialEq)]
pub enum Walk {
    Model(Model),
    /// The guard has no model.
    Infeasible,
    /// Out of steps, or the walk did not try every value.
    Unknown,
}

pub struct Guards {
    /// The nodes, each with the literals every one of its paths to `true`
    /// sets ([`Forced`]).
    nodes: Vec<Node>,
    unique: Unique,
    /// Operation caches, one per connective.
    and_cache: Computed,
    or_cache: Computed,
    not_cache: Computed,
    /// The predicate term of each variable.
    atoms: Vec<TermId>,
    atom_of: FxHashMap<TermId, u32>,
    /// Per pair of terms compared (unsigned or not): whether its first
    /// comparison cut strictly (see [`Guards::order_atom`]).
    pair_cut: FxHashMap<(bool, TermId, TermId), bool>,
    /// Predicates over one narrow input become functions of its bits
    /// ([`Guards::bits_atom`]; `--bdd-atoms bits`).
    bit_atoms: bool,
    /// Per predicate over a narrow input, its value at each of the
    /// input's values.
    bit_tables: FxHashMap<TermId, Vec<bool>>,
    /// Per term over one narrow input, its values ([`Guards::values_of`]).
    subject_values: FxHashMap<TermId, std::rc::Rc<[Value]>>,
    /// Per narrow input, the variables of its bits, top first.
    bits_of: FxHashMap<SymId, Vec<u32>>,
    /// Per variable, for a bit variable the input, its width and the
    /// bit's place (indexed by variable: read at every level of a guard
    /// evaluated under a model, for every test written).
    bit_var: Vec<Option<(SymId, u8, u32)>>,
    terms: FxHashMap<Guard, TermId>,
    choice_terms: FxHashMap<Guard, TermId>,
    /// Per variable, its place in the order (see [`VarOrder`]).
    rank: Vec<u64>,
    order: VarOrder,
    /// Slots of collected nodes, reused before the table grows.
    free: Vec<u32>,
    /// The most nodes alive at once, and how many collections ran.
    pub peak_nodes: usize,
    pub collections: u64,
    /// Time spent in BDD operations that returned (see [`Guards::time_spent`]).
    time: Duration,
    /// Of `time`, what reordering took ([`Guards::reorder`]).
    pub reorder_time: Duration,
    /// When the operation under way started.
    running: Option<Instant>,
    /// One operation can take exponential time: its recursive steps look at
    /// the run's budget now and then, and unwind when it stopped.
    budget: Budget,
    paces: Paces,
    steps: u32,
    /// When set, an operation running once it is due unwinds as a stop
    /// does ([`Guards::give_up_if_due`]).
    give_up: Option<GiveUp>,
    /// Why the run unwound for `give_up`.
    gave_up: Option<GaveUp>,
    /// Since when the give-up's BDD share has been due without a break
    /// ([`GiveUp::share_grace`]).
    share_since: std::cell::Cell<Option<Instant>>,
    /// The nodes the last walk visited ([`Guards::search_model`],
    /// [`Guards::walk_visits`]).
    walk_visits: usize,
}

impl Default for Guards {
    fn default() -> Guards {
        Guards::new()
    }
}

impl Guards {
    pub fn new() -> Guards {
        let t = Node {
            forced: Forced::TRUE,
            ..Node::FREE
        };
        Guards {
            nodes: vec![Node::FREE, t],
            unique: Unique::new(),
            and_cache: Computed::new(),
            or_cache: Computed::new(),
            not_cache: Computed::new(),
            atoms: Vec::new(),
            atom_of: FxHashMap::default(),
            pair_cut: FxHashMap::default(),
            bit_atoms: false,
            bit_tables: FxHashMap::default(),
            subject_values: FxHashMap::default(),
            bits_of: FxHashMap::default(),
            bit_var: Vec::new(),
            terms: FxHashMap::default(),
            choice_terms: FxHashMap::default(),
            rank: Vec::new(),
            order: VarOrder::Creation,
            free: Vec::new(),
            peak_nodes: 0,
            collections: 0,
            time: Duration::ZERO,
            reorder_time: Duration::ZERO,
            running: None,
            budget: Budget::unlimited(),
            paces: Paces::default(),
            steps: 0,
            give_up: None,
            gave_up: None,
            share_since: std::cell::Cell::new(None),
            walk_visits: 0,
        }
    }

    /// The run's budget: an operation still building nodes when it stops
    /// unwinds to the engine's [`braid_budget::catch_stop`].
    pub fn set_budget(&mut self, budget: &Budget) {
        self.budget = budget.clone();
    }

    /// Nodes alive (built and not collected), terminals included.
    pub fn node_count(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Garbage collection: keeps the nodes the guards in `roots` use and
    /// frees the others for reuse. Every guard the caller still holds must
    /// be among the roots: a freed node's id is given to a new one. The
    /// operation caches are emptied (they may name freed nodes).
    pub fn collect(&mut self, roots: impl Iterator<Item = Guard>) {
        let start = Instant::now();
        // The tables go first: their new versions are built below, and the
        // old ones alongside them made each collection the run's peak (Heap
        // Sort: 6 MiB over the 52 MiB before it).
        self.unique = Unique::new();
        for cache in [&mut self.and_cache, &mut self.or_cache, &mut self.not_cache] {
            *cache = Computed::new();
        }
        let mut live = vec![false; self.nodes.len()];
        live[0] = true;
        live[1] = true;
        let mut stack: Vec<Guard> = roots.collect();
        while let Some(g) = stack.pop() {
            if live[g.0 as usize] {
                continue;
            }
            live[g.0 as usize] = true;
            let node = self.nodes[g.0 as usize];
            stack.push(node.lo);
            stack.push(node.hi);
        }
        for (i, alive) in live.iter().enumerate() {
            let n = self.nodes[i];
            // Free slots hold the terminal marker (only slots 0 and 1 are terminals).
            if *alive || n.var == TERMINAL {
                continue;
            }
            self.nodes[i] = Node::FREE;
            self.free.push(i as u32);
        }
        let count = self.node_count() - 2;
        let live_ids = (2..self.nodes.len() as u32).filter(|&i| self.nodes[i as usize].var != TERMINAL);
        self.unique = Unique::rebuild(&self.nodes, live_ids, count);
        self.terms.retain(|g, _| live[g.0 as usize]);
        self.choice_terms.retain(|g, _| live[g.0 as usize]);
        self.collections += 1;
        self.time += start.elapsed();
        self.paces.collect.record(live.len(), start.elapsed());
    }

    /// What a collection should take now (it looks at no budget while it
    /// runs: 0.2 s over 5 million nodes on Heap Sort).
    pub fn collection_time(&self) -> Duration {
        self.paces.collect.estimate(self.nodes.len())
    }

    pub fn atom_count(&self) -> usize {
        self.atoms.len()
    }

    fn var(&self, g: Guard) -> u32 {
        self.nodes[g.0 as usize].var
    }

    #[inline]
    fn forced(&self, g: Guard) -> Forced {
        self.nodes[g.0 as usize].forced
    }

    fn mk(&mut self, var: u32, lo: Guard, hi: Guard) -> Guard {
        if lo == hi {
            return lo;
        }
        if let Some(g) = self.unique.get(&self.nodes, var, lo, hi) {
            return g;
        }
        // The node table and the unique table grow by doubling, in one
        // allocation (and rehash) each that no budget check interrupts:
        // they ask first, for the memory and the time.
        let mut node_growth = 0;
        if self.free.is_empty() && self.nodes.len() == self.nodes.capacity() {
            node_growth = self.nodes.capacity() * std::mem::size_of::<Node>();
            self.budget.grow(node_growth, &self.paces.nodes);
        }
        let unique_growth = self.unique.growth_bytes();
        if unique_growth > 0 {
            self.budget.grow(unique_growth, &self.paces.unique);
        }
        // (The clock is read around growths only: this is the hot path.)
        let start = (node_growth > 0).then(Instant::now);
        let g = Guard(self.new_node(var, lo, hi));
        if let Some(t) = start {
            self.paces.nodes.record(node_growth, t.elapsed());
        }
        let start = (unique_growth > 0).then(Instant::now);
        self.unique.insert(&self.nodes, g.0);
        if let Some(t) = start {
            self.paces.unique.record(unique_growth, t.elapsed());
        }
        g
    }

    /// A slot for the node `(var, lo, hi)`, a freed one first, with its
    /// forced literals; the caller indexes it.
    #[inline]
    fn new_node(&mut self, var: u32, lo: Guard, hi: Guard) -> u32 {
        let forced = Forced::node(var, self.forced(lo), self.forced(hi));
        let node = Node { var, lo, hi, forced };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
        };
        self.peak_nodes = self.peak_nodes.max(self.node_count());
        id
    }

    /// Counts a recursive step of an operation; every few thousand, looks
    /// at the budget (and unwinds if it stopped) and at the give-up
    /// ([`Guards::set_give_up`]).
    #[inline]
    fn tick(&mut self) {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(4096) {
            self.budget.check_unwind();
            self.give_up_if_due();
        }
    }

    /// Unwinds (as a budget stop does) if the give-up set by
    /// [`Guards::set_give_up`] is due, and remembers why ([`Guards::gave_up`]).
    pub fn give_up_if_due(&mut self) {
        if let Some(why) = self.due() {
            self.gave_up = Some(why);
            braid_budget::unwind();
        }
    }

    /// Where a give-up is set, unwinds (as [`Guards::give_up_if_due`]
    /// does) for a guard too large to decide: merging gives up where it
    /// would otherwise drop the guard's paths. Returns where none is set.
    pub fn give_up_for_guard(&mut self) {
        if self.give_up.is_some() {
            self.gave_up = Some(GaveUp::Guard);
            braid_budget::unwind();
        }
    }

    /// Why an operation (or [`Guards::give_up_if_due`]) gave up, if one did.
    pub fn gave_up(&self) -> Option<GaveUp> {
        self.gave_up
    }

    /// Forgets a give-up for its deadline, which the caller recovered from
    /// (and moves the deadline on); `false` if none happened or it was for
    /// another reason.
    pub fn forgive_deadline(&mut self, deadline: Option<Instant>) -> bool {
        if self.gave_up != Some(GaveUp::Deadline) {
            return false;
        }
        self.gave_up = None;
        self.set_deadline(deadline);
        true
    }

    /// With `Some(g)`, operations unwind (as when the budget stops) once
    /// `g` is due, or the run's resident memory is past [`GIVE_UP_MEMORY`]
    /// of its limit; [`Guards::give_up_if_due`] looks between operations.
    /// `None`: never.
    pub fn set_give_up(&mut self, give_up: Option<GiveUp>) {
        self.give_up = give_up;
        self.share_since.set(None);
    }

    /// Moves the deadline of a give-up that is set.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        if let Some(g) = &mut self.give_up {
            g.deadline = deadline;
        }
    }

    /// Drops the BDD-share part of a give-up that is set.
    pub fn drop_share(&mut self) {
        if let Some(g) = &mut self.give_up {
            g.share = None;
        }
    }

    /// Why the give-up [`Guards::set_give_up`] set is due, if it is.
    fn due(&self) -> Option<GaveUp> {
        let g = self.give_up?;
        let share = self.over_share(g);
        if !share {
            self.share_since.set(None);
        }
        if share && self.share_held(g.share_grace) {
            Some(GaveUp::Share)
        } else if self.over_memory() {
            Some(GaveUp::Memory)
        } else if g.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(GaveUp::Deadline)
        } else {
            None
        }
    }

    /// Whether the give-up's BDD share is due ([`GiveUp::share`]), grace or
    /// not: the engine's look between its steps.
    pub fn share_due(&self) -> bool {
        self.give_up.is_some_and(|g| self.over_share(g))
    }

    /// Whether the share, due now, has been due for `grace` without a
    /// break (a look that found it not due starts the count again).
    fn share_held(&self, grace: Duration) -> bool {
        if grace.is_zero() {
            return true;
        }
        let now = Instant::now();
        let since = self.share_since.get().unwrap_or(now);
        self.share_since.set(Some(since));
        now.duration_since(since) >= grace
    }

    /// Whether BDD operations took the share of the run `g` sets, past its
    /// time.
    fn over_share(&self, g: GiveUp) -> bool {
        g.share.is_some_and(|(start, after, share)| {
            let elapsed = start.elapsed();
            elapsed >= after && self.time_spent().as_secs_f64() >= share * elapsed.as_secs_f64()
        })
    }

    /// Whether the run's resident memory is past [`GIVE_UP_MEMORY`] of its
    /// limit.
    fn over_memory(&self) -> bool {
        self.budget.memory_share().is_some_and(|m| m >= GIVE_UP_MEMORY)
    }

    /// The guard "predicate `c` holds" for a Bool term `c`.
    pub fn atom(&mut self, store: &mut TermStore, c: TermId) -> Guard {
        match store.as_const(c) {
            Some(Value::Bool(b)) => return if b { Guard::TRUE } else { Guard::FALSE },
            Some(_) => return Guard::FALSE,
            None => {}
        }
        if let Some(&v) = self.atom_of.get(&c) {
            return self.mk(v, Guard::FALSE, Guard::TRUE);
        }
        // Connectives become BDD operations over their operands' atoms, so
        // `p ∧ q` and a later branch on `p` share the variable of `p`.
        if let TermNode::App(op @ (Op::And | Op::Or | Op::Not), args) = store.node(c).clone() {
            let parts: Vec<Guard> = args.iter().map(|a| self.atom(store, *a)).collect();
            return match op {
                Op::And => self.and(parts[0], parts[1]),
                Op::Or => self.or(parts[0], parts[1]),
                _ => self.not(parts[0]),
            };
        }
        if self.bit_atoms {
            if let Some(g) = self.bits_atom(store, c) {
                return g;
            }
        }
        if let Some(g) = self.order_atom(store, c) {
            return g;
        }
        self.literal(store, c)
    }

    /// A predicate over one narrow input (a byte) as the function of that
    /// input's bits it is: one variable per bit, the guard read off the
    /// predicate's value at each of the input's values. Two predicates
    /// over one byte then know each other exactly (`b == ','` and
    /// `b == ';'` are disjoint; `b - 32 <u 95` holds for `b == 'a'`), so no
    /// guard keeps an impossible combination of them, and a guard over
    /// such inputs alone is satisfiable exactly when it is not `false`.
    /// `None`: `c` reads something else, or fails to evaluate somewhere.
    fn bits_atom(&mut self, store: &mut TermStore, c: TermId) -> Option<Guard> {
        let &[sym] = store.symbols(c) else {
            return None;
        };
        let width = match store.symbol(sym).sort {
            Sort::Bv(w) if w <= BIT_ATOM_WIDTH => w,
            _ => return None,
        };
        let bits = self.input_bits(store, sym, width);
        // Evaluated once per predicate: a merged value's term can be large.
        let holds = match self.bit_tables.get(&c) {
            Some(h) => h.clone(),
            None => {
                // A comparison with a constant: its other side's values,
                // kept for the next comparison of it, compared (the index
                // of a table read at an input-dependent place is compared
                // with each of the table's offsets).
                let compared = match store.node(c) {
                    TermNode::App(op, args) if op.is_comparison() && args.len() == 2 => {
                        store.as_const(args[1]).map(|k| (*op, args[0], k))
                    }
                    _ => None,
                };
                let holds: Vec<bool> = match compared {
                    Some((op, t, k)) => {
                        let values = self.values_of(store, t, sym, width)?;
                        values
                            .iter()
                            .map(|v| match braid_term::eval_op(op, &[*v, k]) {
                                Ok(Value::Bool(b)) => Some(b),
                                _ => None,
                            })
                            .collect::<Option<_>>()?
                    }
                    None => store
                        .eval_each(c, sym, width)?
                        .into_iter()
                        .map(|v| match v {
                            Value::Bool(b) => Some(b),
                            _ => None,
                        })
                        .collect::<Option<_>>()?,
                };
                self.bit_tables.insert(c, holds.clone());
                holds
            }
        };
        // The guard, bit by bit from the top (the order `input_bits` made).
        fn build(g: &mut Guards, bits: &[u32], holds: &[bool]) -> Guard {
            match bits.split_first() {
                None => {
                    if holds[0] {
                        Guard::TRUE
                    } else {
                        Guard::FALSE
                    }
                }
                Some((&top, rest)) => {
                    let half = holds.len() / 2;
                    let lo = build(g, rest, &holds[..half]);
                    let hi = build(g, rest, &holds[half..]);
                    g.mk(top, lo, hi)
                }
            }
        }
        // `holds[v]`: the value's top bit selects the upper half.
        Some(build(self, &bits, &holds))
    }

    /// The values of `t`, whose one input is `sym` (of `width` bits), at
    /// each of that input's values ([`TermStore::eval_each`]), kept for
    /// the next comparison of `t` with a constant.
    fn values_of(&mut self, store: &TermStore, t: TermId, sym: SymId, width: u8) -> Option<std::rc::Rc<[Value]>> {
        if let Some(v) = self.subject_values.get(&t) {
            return Some(v.clone());
        }
        let values: std::rc::Rc<[Value]> = store.eval_each(t, sym, width)?.into();
        if self.subject_values.len() >= MAX_SUBJECTS {
            self.subject_values.clear();
        }
        self.subject_values.insert(t, values.clone());
        Some(values)
    }

    /// The variables of `sym`'s bits, top bit first, made together at
    /// their first use: `sym & 2^i != 0`.
    fn input_bits(&mut self, store: &mut TermStore, sym: SymId, width: u8) -> Vec<u32> {
        if let Some(bits) = self.bits_of.get(&sym) {
            return bits.clone();
        }
        let s = store.symbol_term_of(sym);
        let zero = store.constant(Value::Bv { bits: 0, width });
        let bits: Vec<u32> = (0..width)
            .rev()
            .map(|i| {
                let k = store.constant(Value::Bv { bits: 1 << i, width });
                let and = store.app(Op::And, &[s, k]).expect("a mask of a bit-vector");
                let set = store.app(Op::Ne, &[and, zero]).expect("a comparison of bit-vectors");
                let g = self.plain_atom(store, set);
                self.var(g)
            })
            .collect();
        for (i, v) in bits.iter().enumerate() {
            let v = *v as usize;
            if self.bit_var.len() <= v {
                self.bit_var.resize(v + 1, None);
            }
            self.bit_var[v] = Some((sym, width, u32::from(width) - 1 - i as u32));
        }
        self.bits_of.insert(sym, bits.clone());
        bits
    }

    /// `c`'s own variable, or its negation's negated.
    fn literal(&mut self, store: &mut TermStore, c: TermId) -> Guard {
        let neg = store.not(c);
        if let Some(&v) = self.atom_of.get(&neg) {
            return self.mk(v, Guard::TRUE, Guard::FALSE);
        }
        self.plain_atom(store, c)
    }

    /// The variable of predicate `c`, made if new.
    fn plain_atom(&mut self, store: &TermStore, c: TermId) -> Guard {
        if let Some(&v) = self.atom_of.get(&c) {
            return self.mk(v, Guard::FALSE, Guard::TRUE);
        }
        let v = self.atoms.len() as u32;
        self.atoms.push(c);
        self.atom_of.insert(c, v);
        let input = match self.order {
            VarOrder::Creation => 0,
            // A predicate on one input sits with that input; one relating
            // several sits after every input read so far (creation order).
            VarOrder::Inputs => match store.symbols(c) {
                [one] => one.0,
                _ => store.symbol_count() as u32,
            },
        };
        self.rank.push(((input as u64) << 32) | v as u64);
        self.mk(v, Guard::FALSE, Guard::TRUE)
    }

    /// An integer comparison of two terms that cuts them differently from
    /// the pair's first one, as a connective over that one's variable and
    /// `a == b`. Two variables of the pair `a`, `b` (in the store's operand
    /// order) would otherwise be independent: `a < b` and `a > b` (the
    /// negation of `a <= b`) could both hold in a guard, and sorting 7
    /// inputs made guards of millions of nodes out of such impossible
    /// combinations (Quick Sort: 6.2 million nodes, 20 s). So the first of
    /// `a < b` and `a <= b` a run meets (or their negations) is the pair's
    /// variable, and the other is `lt ∨ eq` or `le ∧ ¬eq`: a program that
    /// cuts a pair one way only keeps one variable for it. Unsigned
    /// comparisons are a pair of their own. `None`: not such a comparison
    /// (`c` is then a variable of its own or its negation).
    fn order_atom(&mut self, store: &mut TermStore, c: TermId) -> Option<Guard> {
        let TermNode::App(op, args) = store.node(c).clone() else {
            return None;
        };
        // Whether `c` cuts strictly, negated or not, and is unsigned.
        let (strict, negated, unsigned) = match op {
            Op::Lt => (true, false, false),
            Op::Ge => (true, true, false),
            Op::Le => (false, false, false),
            Op::Gt => (false, true, false),
            Op::ULt => (true, false, true),
            Op::UGe => (true, true, true),
            Op::ULe => (false, false, true),
            Op::UGt => (false, true, true),
            _ => return None,
        };
        // Between two variables only: a bound by a constant keeps its one
        // variable (`c <= 'z'` would need two).
        if args.len() != 2 || store.sort(args[0]).is_float() || args.iter().any(|t| store.as_const(*t).is_some()) {
            return None;
        }
        let (a, b) = (args[0], args[1]);
        // Both must be plain comparisons of `a` and `b` (no rewriting).
        let plain = |store: &TermStore, t: TermId, o: Op| matches!(store.node(t), TermNode::App(p, xs) if *p == o && xs[..] == [a, b]);
        let known = self.pair_cut.get(&(unsigned, a, b)).copied();
        // A pair is known only if its `a == b` was plain (the same next time).
        if known == Some(strict) {
            return None;
        }
        let eq = store.app(Op::Eq, &[a, b]).ok()?;
        if !plain(store, eq, Op::Eq) {
            return None;
        }
        let Some(first) = known else {
            // The pair's `a == b` is made with its first variable, next to
            // it in the order, used or not.
            self.pair_cut.insert((unsigned, a, b), strict);
            let g = self.literal(store, c);
            self.atom(store, eq);
            return Some(g);
        };
        let first_op = match (first, unsigned) {
            (true, false) => Op::Lt,
            (false, false) => Op::Le,
            (true, true) => Op::ULt,
            (false, true) => Op::ULe,
        };
        let var = store.app(first_op, &[a, b]).ok()?;
        if !plain(store, var, first_op) {
            return None;
        }
        let (var, eq) = (self.atom(store, var), self.atom(store, eq));
        let holds = if strict {
            let ne = self.not(eq);
            self.and(var, ne)
        } else {
            self.or(var, eq)
        };
        Some(if negated { self.not(holds) } else { holds })
    }

    /// Where variable `v` sits in the order (terminals last).
    #[inline]
    fn rank_of(&self, v: u32) -> u64 {
        if v == TERMINAL {
            u64::MAX
        } else {
            self.rank[v as usize]
        }
    }

    /// Sets how new variables are ordered (before any atom is made).
    pub fn set_order(&mut self, order: VarOrder) {
        self.order = order;
    }

    /// Whether predicates over one input of at most [`BIT_ATOM_WIDTH`]
    /// bits are functions of its bits (before any atom is made).
    pub fn set_bit_atoms(&mut self, on: bool) {
        self.bit_atoms = on;
    }

    fn cofactors(&self, g: Guard, var: u32) -> (Guard, Guard) {
        let n = self.nodes[g.0 as usize];
        if n.var == var {
            (n.lo, n.hi)
        } else {
            (g, g)
        }
    }

    /// Whether `a ∧ b` is `false` by their forced literals alone (a
    /// constant-time test: `false` means "not known", not "they meet").
    pub fn surely_disjoint(&self, a: Guard, b: Guard) -> bool {
        a.is_false() || b.is_false() || self.forced(a).conflicts(self.forced(b))
    }

    pub fn and(&mut self, a: Guard, b: Guard) -> Guard {
        self.connect(Connective::And, a, b)
    }

    pub fn or(&mut self, a: Guard, b: Guard) -> Guard {
        self.connect(Connective::Or, a, b)
    }

    /// Terminal cases and cache hits are answered before the clock starts:
    /// they cost less than reading it, and timing them would make the BDD
    /// share of a run mostly clock reads.
    fn connect(&mut self, op: Connective, a: Guard, b: Guard) -> Guard {
        match self.shortcut(op, a, b) {
            Some(r) => r,
            None => self.timed(|g| g.expand(op, a, b)),
        }
    }

    /// `a op b` without recursion, when a terminal case or the cache has it.
    fn shortcut(&self, op: Connective, a: Guard, b: Guard) -> Option<Guard> {
        let (absorbing, identity) = match op {
            Connective::And => (Guard::FALSE, Guard::TRUE),
            Connective::Or => (Guard::TRUE, Guard::FALSE),
        };
        if a == absorbing || b == absorbing {
            return Some(absorbing);
        }
        if a == identity || a == b {
            return Some(b);
        }
        if b == identity {
            return Some(a);
        }
        let key = (a.min(b), a.max(b));
        match op {
            Connective::And if self.forced(a).conflicts(self.forced(b)) => Some(Guard::FALSE),
            Connective::And => self.and_cache.get(key),
            Connective::Or => self.or_cache.get(key),
        }
    }

    fn timed(&mut self, f: impl FnOnce(&mut Guards) -> Guard) -> Guard {
        self.timed_value(f)
    }

    fn timed_value<T>(&mut self, f: impl FnOnce(&mut Guards) -> T) -> T {
        let start = Instant::now();
        self.running = Some(start);
        let r = f(self);
        self.running = None;
        self.time += start.elapsed();
        r
    }

    /// Time spent in BDD operations, with one the run's stop unwound from
    /// (it never returned to add its time).
    pub fn time_spent(&self) -> Duration {
        self.time + self.running.map_or(Duration::ZERO, |t| t.elapsed())
    }

    /// `a ∧ b` or `a ∨ b` by Shannon expansion on the smaller variable.
    fn apply(&mut self, op: Connective, a: Guard, b: Guard) -> Guard {
        match self.shortcut(op, a, b) {
            Some(r) => r,
            None => self.expand(op, a, b),
        }
    }

    /// [`Guards::apply`] past its shortcuts: one Shannon step, cached.
    fn expand(&mut self, op: Connective, a: Guard, b: Guard) -> Guard {
        self.tick();
        let key = (a.min(b), a.max(b));
        let (va, vb) = (self.var(a), self.var(b));
        let v = if self.rank_of(va) <= self.rank_of(vb) { va } else { vb };
        let ((a0, a1), (b0, b1)) = (self.cofactors(a, v), self.cofactors(b, v));
        let lo = self.apply(op, a0, b0);
        let hi = self.apply(op, a1, b1);
        let r = self.mk(v, lo, hi);
        let cache = match op {
            Connective::And => &self.and_cache,
            Connective::Or => &self.or_cache,
        };
        let growth = cache.growth(self.nodes.len());
        if growth > 0 {
            self.budget.grow(growth, &self.paces.caches);
        }
        let start = (growth > 0).then(Instant::now);
        match op {
            Connective::And => self.and_cache.insert(key, r, self.nodes.len()),
            Connective::Or => self.or_cache.insert(key, r, self.nodes.len()),
        };
        if let Some(t) = start {
            self.paces.caches.record(growth, t.elapsed());
        }
        r
    }

    pub fn not(&mut self, a: Guard) -> Guard {
        match a {
            Guard::FALSE => Guard::TRUE,
            Guard::TRUE => Guard::FALSE,
            _ => match self.not_cache.get((a, a)) {
                Some(r) => r,
                None => self.timed(|g| g.not_rec(a)),
            },
        }
    }

    fn not_rec(&mut self, a: Guard) -> Guard {
        if a.is_false() {
            return Guard::TRUE;
        }
        if a.is_true() {
            return Guard::FALSE;
        }
        if let Some(r) = self.not_cache.get((a, a)) {
            return r;
        }
        self.tick();
        let n = self.nodes[a.0 as usize];
        let lo = self.not_rec(n.lo);
        let hi = self.not_rec(n.hi);
        let r = self.mk(n.var, lo, hi);
        self.not_cache.insert((a, a), r, self.nodes.len());
        self.not_cache.insert((r, r), a, self.nodes.len());
        r
    }

    /// The guard as a Bool term for the solver: `(a ∧ hi) ∨ (¬a ∧ lo)` per node.
    pub fn to_term(&mut self, store: &mut TermStore, g: Guard) -> TermId {
        self.term_of(store, g, TermForm::Solver)
    }

    /// The guard as a Bool term that evaluates as the BDD does: `ite(a, hi,
    /// lo)` per node, so a model evaluates only the atoms on its own path
    /// (an atom elsewhere may not evaluate under it, as `x / y > 1` with `y`
    /// zero on the model's path, which tests `y` first). For values that
    /// choose by guards ([`Guards::to_term`] is the solver's form).
    pub fn to_choice_term(&mut self, store: &mut TermStore, g: Guard) -> TermId {
        self.term_of(store, g, TermForm::Choice)
    }

    fn term_of(&mut self, store: &mut TermStore, g: Guard, form: TermForm) -> TermId {
        let memo = match form {
            TermForm::Solver => &self.terms,
            TermForm::Choice => &self.choice_terms,
        };
        if let Some(&t) = memo.get(&g) {
            return t;
        }
        let t = match g {
            Guard::FALSE => store.bool(false),
            Guard::TRUE => store.bool(true),
            _ if self.bit_of(self.var(g)).is_some() => {
                self.tick();
                self.bits_term(store, g, form)
            }
            _ => {
                self.tick();
                self.node_term(store, g, form)
            }
        };
        match form {
            TermForm::Solver => self.terms.insert(g, t),
            TermForm::Choice => self.choice_terms.insert(g, t),
        };
        t
    }

    /// Variable `v`'s input, width and bit, if it is a bit variable.
    #[inline]
    fn bit_of(&self, v: u32) -> Option<(SymId, u8, u32)> {
        self.bit_var.get(v as usize).copied().flatten()
    }

    /// The term of a guard whose top variable is a bit of a narrow input
    /// ([`Guards::bits_atom`]): the input's values grouped by the node
    /// their bits lead to below the input's bits, each group a few ranges
    /// of values (`s == ','`, `'0' <= s <= '9'`) rather than a formula
    /// over bits, which the solver layer's procedures read as comparisons.
    /// A group of more than [`MAX_RANGES`] ranges is a mask test if it is
    /// one, else the guard is written bit by bit.
    fn bits_term(&mut self, store: &mut TermStore, g: Guard, form: TermForm) -> TermId {
        let (sym, width, _) = self.bit_of(self.var(g)).expect("a bit variable at the top");
        // Each value's exit below the input's bits.
        let mut exits: Vec<(Guard, Vec<u64>)> = Vec::new();
        for x in 0..1u64 << width {
            let mut at = g;
            while let Some((s, _, shift)) = self.bit_of(self.var(at)) {
                if s != sym {
                    break;
                }
                let n = self.nodes[at.0 as usize];
                at = if x >> shift & 1 == 1 { n.hi } else { n.lo };
            }
            match exits.iter_mut().find(|e| e.0 == at) {
                Some(e) => e.1.push(x),
                None => exits.push((at, vec![x])),
            }
        }
        let s = store.symbol_term_of(sym);
        let mut preds = Vec::with_capacity(exits.len());
        for (_, values) in &exits {
            match values_term(store, s, width, values) {
                Some(p) => preds.push(p),
                None => return self.node_term(store, g, form),
            }
        }
        // The groups cover every value: the last one is what is left.
        let mut parts: Vec<(TermId, TermId)> = Vec::with_capacity(exits.len());
        for ((exit, _), p) in exits.iter().zip(preds) {
            let t = self.term_of(store, *exit, form);
            parts.push((p, t));
        }
        match form {
            TermForm::Choice => {
                let (_, last) = parts.pop().expect("a value leads somewhere");
                parts
                    .into_iter()
                    .rev()
                    .fold(last, |rest, (p, t)| store.choice(p, t, rest))
            }
            TermForm::Solver => parts.into_iter().fold(store.bool(false), |rest, (p, t)| {
                let both = store.and(p, t);
                store.or(rest, both)
            }),
        }
    }

    /// A guard's term from its top node's: `a ∧ hi ∨ ¬a ∧ lo`, or `ite(a,
    /// hi, lo)` (a bit of a byte taken as any other variable).
    fn node_term(&mut self, store: &mut TermStore, g: Guard, form: TermForm) -> TermId {
        let n = self.nodes[g.0 as usize];
        let a = self.atoms[n.var as usize];
        let hi = self.term_of(store, n.hi, form);
        let lo = self.term_of(store, n.lo, form);
        match form {
            TermForm::Choice => store.choice(a, hi, lo),
            TermForm::Solver => {
                let when = store.and(a, hi);
                let not_a = store.not(a);
                let otherwise = store.and(not_a, lo);
                store.or(when, otherwise)
            }
        }
    }

    /// One value for guarded values: a decision diagram over the guards'
    /// atoms, `ite(a, hi, lo)` per node (evaluating as
    /// [`Guards::to_choice_term`] does), with an entry's value where only
    /// that entry is left (or the first entry holds, where guards overlap).
    /// Paths outside every guard are don't-cares, so the atoms the entries
    /// share (their common path prefix) are never tested, and an atom only
    /// one side of which any entry takes is skipped. `None` if an `ite`
    /// does not type (mixed sorts).
    pub fn choose(&mut self, store: &mut TermStore, entries: &[(Guard, TermId)]) -> Option<TermId> {
        let entries: Vec<(Guard, TermId)> = entries.iter().copied().filter(|e| !e.0.is_false()).collect();
        if entries.is_empty() {
            return None;
        }
        let mut memo = FxHashMap::default();
        self.timed_value(|me| me.choose_rec(store, entries, &mut memo))
    }

    fn choose_rec(
        &mut self,
        store: &mut TermStore,
        entries: Vec<(Guard, TermId)>,
        memo: &mut FxHashMap<Vec<(Guard, TermId)>, Option<TermId>>,
    ) -> Option<TermId> {
        let first = entries[0].1;
        if entries[0].0.is_true() || entries.iter().all(|e| e.1 == first) {
            return Some(first);
        }
        if let Some(&t) = memo.get(&entries) {
            return t;
        }
        self.tick();
        // The first entry's guard is not a constant: a variable to test.
        let v = entries
            .iter()
            .map(|e| self.var(e.0))
            .min_by_key(|&v| self.rank_of(v))
            .expect("entries");
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for &(g, t) in &entries {
            let (g0, g1) = self.cofactors(g, v);
            if !g0.is_false() {
                lo.push((g0, t));
            }
            if !g1.is_false() {
                hi.push((g1, t));
            }
        }
        let r = if lo.is_empty() {
            self.choose_rec(store, hi, memo)
        } else if hi.is_empty() {
            self.choose_rec(store, lo, memo)
        } else {
            let a = self.atoms[v as usize];
            let hi = self.choose_rec(store, hi, memo);
            let lo = self.choose_rec(store, lo, memo);
            match (hi, lo) {
                (Some(h), Some(l)) => store.app(Op::Ite, &[a, h, l]).ok(),
                _ => None,
            }
        };
        memo.insert(entries, r);
        r
    }

    /// `g` as a conjunction of terms: the literals every satisfying path
    /// fixes (read off the BDD's top chain), then the rest as one term. The
    /// solver layer can then slice them by shared symbols and cache them.
    pub fn conjuncts(&mut self, store: &mut TermStore, g: Guard) -> Vec<TermId> {
        let mut out = Vec::new();
        let mut g = g;
        while !g.is_true() && !g.is_false() {
            let n = self.nodes[g.0 as usize];
            let a = self.atoms[n.var as usize];
            if n.lo.is_false() {
                out.push(a);
                g = n.hi;
            } else if n.hi.is_false() {
                out.push(store.not(a));
                g = n.lo;
            } else {
                break;
            }
        }
        if !g.is_true() {
            out.push(self.to_term(store, g));
        }
        out
    }

    /// Whether `g` holds under `model` (`None` if an atom does not evaluate).
    pub fn eval(&self, store: &TermStore, g: Guard, model: &Model) -> Option<bool> {
        self.eval_with(store, g, model, &mut EvalMemo::default())
    }

    /// [`Guards::eval`] sharing `memo` (evaluations under `model`). An atom
    /// that does not evaluate (`x / x == 1` at `x = 0`) leaves the guard
    /// undecided only if its two sides disagree: the guard `x == 0 ∨ x / x
    /// == 1` holds at `x = 0` whichever of its atoms the order puts first
    /// (a path with `x == 0` never divides).
    pub fn eval_with(&self, store: &TermStore, g: Guard, model: &Model, memo: &mut EvalMemo) -> Option<bool> {
        let mut g = g;
        // The byte whose bits were read last: a byte's bits come one after
        // another (one look-up in the model per byte, not per bit).
        let mut last: Option<(SymId, u64)> = None;
        loop {
            match g {
                Guard::FALSE => return Some(false),
                Guard::TRUE => return Some(true),
                _ => {
                    let n = self.nodes[g.0 as usize];
                    // A byte's bit: read off the model (an input it leaves
                    // out is 0, as evaluation takes it).
                    if let Some((sym, _, shift)) = self.bit_of(n.var) {
                        let bits = match last {
                            Some((s, bits)) if s == sym => bits,
                            _ => {
                                let bits = match model.get(&sym) {
                                    Some(Value::Bv { bits, .. }) => *bits,
                                    _ => 0,
                                };
                                last = Some((sym, bits));
                                bits
                            }
                        };
                        g = if bits >> shift & 1 == 1 { n.hi } else { n.lo };
                        continue;
                    }
                    g = match store.eval_with(self.atoms[n.var as usize], model, memo) {
                        Ok(Value::Bool(true)) => n.hi,
                        Ok(Value::Bool(false)) => n.lo,
                        Ok(_) => return None,
                        Err(_) => {
                            let hi = self.eval_with(store, n.hi, model, memo)?;
                            return (self.eval_with(store, n.lo, model, memo)? == hi).then_some(hi);
                        }
                    };
                }
            }
        }
    }

    /// Up to `limit` cubes of `g` (paths of its BDD to `true`, as atoms
    /// with their polarity), each a conjunction of literals that implies
    /// `g`. At every node the edge `model` takes comes first, so the first
    /// cube agrees with `model` as far as `g` lets it: the query a forking
    /// engine would send. Fewer than `limit` cubes: these are all of them.
    pub fn cubes(&self, store: &TermStore, g: Guard, model: &Model, limit: usize) -> Vec<Vec<(TermId, bool)>> {
        let mut out = Vec::new();
        let mut memo = EvalMemo::default();
        let mut path = Vec::new();
        // Depth-first: (node, length of the path above it, its edge literal).
        let mut stack = vec![(g, 0, None)];
        while let Some((g, depth, literal)) = stack.pop() {
            if out.len() >= limit {
                break;
            }
            path.truncate(depth);
            path.extend(literal);
            if g.is_true() {
                out.push(path.clone());
            } else if !g.is_false() {
                let n = self.nodes[g.0 as usize];
                let atom = self.atoms[n.var as usize];
                let first = !matches!(store.eval_with(atom, model, &mut memo), Ok(Value::Bool(false)));
                for holds in [!first, first] {
                    let child = if holds { n.hi } else { n.lo };
                    stack.push((child, path.len(), Some((atom, holds))));
                }
            }
        }
        out
    }

    /// A model of `g` found without the solver, or a proof that it has
    /// none, within `steps` nodes visited: a depth-first walk of `g` from
    /// its top that chooses the value of each bit of a narrow input not yet
    /// fixed (`hint`'s first, the other on the way back) where a bit's
    /// variable or an atom reading the input comes, and takes at every
    /// other atom the edge its value gives under the inputs so fixed; a
    /// wider input an atom reads is fixed at `hint`'s value (or its sort's
    /// default). A walk that reaches `true` took each atom's edge as the
    /// model evaluates it, so the model satisfies `g`; one that runs out of
    /// choices having fixed no wider input and evaluated every atom it met
    /// tried every value of the inputs that matter, so `g` has no model.
    /// Where a guard's atoms over several bytes (a parser's state packed
    /// from the bytes read) are decided by its bits, the cubes of
    /// [`Guards::cubes`] set every bit and ask the solver about the atoms
    /// one cube at a time, each unsat with a core of every literal, and the
    /// rest of the guard goes whole to the solver; the walk evaluates.
    /// The walk also ends, as `Unknown`, once it has evaluated
    /// [`WALK_TERMS_PER_STEP`] times `steps` terms.
    pub fn search_model(&mut self, store: &TermStore, g: Guard, hint: &Model, steps: usize) -> Walk {
        let mut model = hint.clone();
        // Whether every value of what the walk fixed was tried.
        let mut complete = true;
        // Per input, the bits fixed so far (a mask); the trail of changes
        // to undo on the way back.
        let mut fixed: FxHashMap<SymId, u64> = FxHashMap::default();
        let mut trail: Vec<(SymId, u64)> = Vec::new();
        // Bit choices: the node to go on from, the bit, the trail's length
        // before it, whether its second value is taken.
        let mut choices: Vec<(Guard, SymId, u32, usize, bool)> = Vec::new();
        let mut memo = EvalMemo::default();
        let mut evals = 0u32;
        let mut terms_left = steps.saturating_mul(WALK_TERMS_PER_STEP);
        let mut at = g;
        for visits in 0..steps {
            self.walk_visits = visits;
            let dead = match at {
                Guard::TRUE => return Walk::Model(model),
                Guard::FALSE => true,
                _ => {
                    let n = self.nodes[at.0 as usize];
                    if let Some((sym, width, shift)) = self.bit_of(n.var) {
                        let mask = fixed.get(&sym).copied().unwrap_or(0);
                        let Value::Bv { bits, .. } = *model.entry(sym).or_insert(Value::Bv { bits: 0, width }) else {
                            return Walk::Unknown;
                        };
                        if mask >> shift & 1 == 0 {
                            // Chosen here: `hint`'s value first.
                            choices.push((at, sym, shift, trail.len(), false));
                            trail.push((sym, mask));
                            fixed.insert(sym, mask | 1 << shift);
                        }
                        at = if bits >> shift & 1 == 1 { n.hi } else { n.lo };
                        false
                    } else {
                        let atom = self.atoms[n.var as usize];
                        // A byte of the atom's with bits not fixed yet:
                        // its top one is chosen here; other inputs are
                        // fixed as they are.
                        let mut open = None;
                        for &s in store.symbols(atom) {
                            let sort = store.symbol(s).sort;
                            let full = match sort {
                                Sort::Bv(w) => braid_term::mask(w),
                                _ => u64::MAX,
                            };
                            let mask = fixed.get(&s).copied().unwrap_or(0);
                            if mask == full {
                                continue;
                            }
                            model.entry(s).or_insert_with(|| Value::default_of(sort));
                            match sort {
                                Sort::Bv(w) if w <= BIT_ATOM_WIDTH => {
                                    let shift = (0..u32::from(w))
                                        .rev()
                                        .find(|i| mask >> i & 1 == 0)
                                        .expect("a bit open");
                                    open = Some((s, shift, mask));
                                    break;
                                }
                                _ => {
                                    complete = false;
                                    trail.push((s, mask));
                                    fixed.insert(s, full);
                                }
                            }
                        }
                        if let Some((s, shift, mask)) = open {
                            choices.push((at, s, shift, trail.len(), false));
                            trail.push((s, mask));
                            fixed.insert(s, mask | 1 << shift);
                            false
                        } else {
                            // An atom's evaluation can be long (a cipher's
                            // rounds over two input bytes): the budget and
                            // the give-up are looked at every few.
                            evals += 1;
                            if evals.is_multiple_of(WALK_EVALS_CHECKED) {
                                self.budget.check_unwind();
                                self.give_up_if_due();
                            }
                            let before = memo.len();
                            let value = store.eval_with(atom, &model, &mut memo);
                            let Some(left) = terms_left.checked_sub(memo.len() - before) else {
                                return Walk::Unknown;
                            };
                            terms_left = left;
                            match value {
                                Ok(Value::Bool(b)) => {
                                    at = if b { n.hi } else { n.lo };
                                    false
                                }
                                _ => {
                                    complete = false;
                                    true
                                }
                            }
                        }
                    }
                }
            };
            if dead {
                // Back to the latest choice with a value left: that value.
                loop {
                    let Some((node, sym, shift, len, second)) = choices.pop() else {
                        return if complete { Walk::Infeasible } else { Walk::Unknown };
                    };
                    for (s, mask) in trail.drain(len..).rev() {
                        fixed.insert(s, mask);
                    }
                    if second {
                        continue;
                    }
                    let Some(Value::Bv { bits, .. }) = model.get_mut(&sym) else {
                        return Walk::Unknown;
                    };
                    *bits ^= 1 << shift;
                    // Only `sym` changed: the terms over other inputs keep
                    // their values (an atom of thousands of terms over a
                    // parser's bytes: fe's and tinyexpr's longest walks
                    // evaluated 23-28 million terms when every flip
                    // emptied the memo).
                    memo.retain(|t, _| store.symbols(*t).binary_search(&sym).is_err());
                    choices.push((node, sym, shift, trail.len(), true));
                    let mask = fixed.get(&sym).copied().unwrap_or(0);
                    trail.push((sym, mask));
                    fixed.insert(sym, mask | 1 << shift);
                    // The node again, the bit now fixed.
                    at = node;
                    break;
                }
            }
        }
        Walk::Unknown
    }

    /// The guard as text, e.g. `x0 > 0 ∧ ¬(z0 == 1)`, for `--dump-state`.
    pub fn display(&mut self, store: &mut TermStore, g: Guard) -> String {
        /// Larger guards are described, not spelled out.
        const SHOWN: usize = 64;
        match g {
            Guard::TRUE => "true".into(),
            Guard::FALSE => "false".into(),
            _ if self.larger_than(g, SHOWN) => format!("(a guard of more than {SHOWN} BDD nodes)"),
            _ => {
                let t = self.to_term(store, g);
                store.display(t)
            }
        }
    }

    /// The predicate atoms `g` depends on.
    pub fn support(&self, g: Guard) -> Vec<TermId> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut vars = rustc_hash::FxHashSet::default();
        let mut stack = vec![g];
        while let Some(x) = stack.pop() {
            if x.0 < 2 || !seen.insert(x) {
                continue;
            }
            let n = self.nodes[x.0 as usize];
            vars.insert(n.var);
            stack.push(n.lo);
            stack.push(n.hi);
        }
        let mut vars: Vec<u32> = vars.into_iter().collect();
        vars.sort_unstable();
        vars.into_iter().map(|v| self.atoms[v as usize]).collect()
    }

    /// `∃a. g` for every atom `a` that `drop` picks, as Boolean variables:
    /// `g` with each such variable's two cofactors or-ed.
    pub fn exists(&mut self, g: Guard, drop: &dyn Fn(TermId) -> bool) -> Guard {
        let mut memo = FxHashMap::default();
        self.timed(|me| me.exists_rec(g, drop, &mut memo))
    }

    fn exists_rec(&mut self, g: Guard, drop: &dyn Fn(TermId) -> bool, memo: &mut FxHashMap<Guard, Guard>) -> Guard {
        if g.0 < 2 {
            return g;
        }
        if let Some(&r) = memo.get(&g) {
            return r;
        }
        self.tick();
        let n = self.nodes[g.0 as usize];
        let lo = self.exists_rec(n.lo, drop, memo);
        let hi = self.exists_rec(n.hi, drop, memo);
        let r = if drop(self.atoms[n.var as usize]) {
            self.apply(Connective::Or, lo, hi)
        } else {
            self.mk(n.var, lo, hi)
        };
        memo.insert(g, r);
        r
    }

    /// The nodes the last walk visited ([`Guards::search_model`]); after a
    /// model or a proof, all it needed.
    pub fn walk_visits(&self) -> usize {
        self.walk_visits
    }

    /// Whether `g` has more than `limit` nodes (counted up to the limit).
    pub fn larger_than(&self, g: Guard, limit: usize) -> bool {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![g];
        while let Some(x) = stack.pop() {
            if x.0 < 2 || !seen.insert(x) {
                continue;
            }
            if seen.len() > limit {
                return true;
            }
            let n = self.nodes[x.0 as usize];
            stack.push(n.lo);
            stack.push(n.hi);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::{Sort, SymId};

    fn setup() -> (TermStore, Guards, TermId, TermId) {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Int);
        let zero = s.constant(Value::Int(0));
        let p = s.app(Op::Gt, &[x, zero]).unwrap();
        let q = s.app(Op::Lt, &[x, zero]).unwrap();
        (s, Guards::new(), p, q)
    }

    /// A give-up for its deadline unwinds and can be forgiven (the caller
    /// recovered), after which operations go on; one for the BDD share
    /// cannot.
    #[test]
    fn a_deadline_give_up_is_forgiven_a_share_one_is_not() {
        let (_, mut g, _, _) = setup();
        let past = Instant::now();
        g.set_give_up(Some(GiveUp {
            deadline: Some(past),
            share: None,
            share_grace: Duration::ZERO,
        }));
        assert!(braid_budget::catch_stop(|| g.give_up_if_due()).is_err());
        assert_eq!(g.gave_up(), Some(GaveUp::Deadline));
        assert!(g.forgive_deadline(None));
        assert_eq!(g.gave_up(), None);
        assert!(
            braid_budget::catch_stop(|| g.give_up_if_due()).is_ok(),
            "no deadline now"
        );
        assert!(!g.forgive_deadline(None), "nothing to forgive");
        g.set_give_up(Some(GiveUp {
            deadline: None,
            share: Some((past, Duration::ZERO, 0.0)),
            share_grace: Duration::ZERO,
        }));
        assert!(braid_budget::catch_stop(|| g.give_up_if_due()).is_err());
        assert!(!g.forgive_deadline(None));
        assert_eq!(g.gave_up(), Some(GaveUp::Share));
    }

    /// A share due for less than its grace does not give up (the engine
    /// looks at it between its steps, [`Guards::share_due`]); due for the
    /// grace without a break, it does.
    #[test]
    fn a_share_gives_up_once_due_for_its_grace() {
        let (_, mut g, _, _) = setup();
        let grace = Duration::from_millis(50);
        g.set_give_up(Some(GiveUp {
            deadline: None,
            share: Some((Instant::now(), Duration::ZERO, 0.0)),
            share_grace: grace,
        }));
        assert!(g.share_due());
        assert!(
            braid_budget::catch_stop(|| g.give_up_if_due()).is_ok(),
            "within the grace"
        );
        assert_eq!(g.gave_up(), None);
        std::thread::sleep(grace);
        assert!(braid_budget::catch_stop(|| g.give_up_if_due()).is_err());
        assert_eq!(g.gave_up(), Some(GaveUp::Share));
    }

    /// A give-up whose BDD share is dropped (dse races on its thread) no
    /// longer falls due for it; its deadline still does.
    #[test]
    fn a_dropped_share_does_not_give_up() {
        let (_, mut g, _, _) = setup();
        let past = Instant::now();
        g.set_give_up(Some(GiveUp {
            deadline: None,
            share: Some((past, Duration::ZERO, 0.0)),
            share_grace: Duration::ZERO,
        }));
        g.drop_share();
        assert!(
            braid_budget::catch_stop(|| g.give_up_if_due()).is_ok(),
            "the share was dropped"
        );
        assert_eq!(g.gave_up(), None);
        g.set_deadline(Some(past));
        assert!(braid_budget::catch_stop(|| g.give_up_if_due()).is_err());
        assert_eq!(g.gave_up(), Some(GaveUp::Deadline));
    }

    #[test]
    fn a_predicate_and_its_negation_share_a_variable() {
        let (mut s, mut g, p, _) = setup();
        let a = g.atom(&mut s, p);
        let np = s.not(p);
        let b = g.atom(&mut s, np);
        assert_eq!(g.not(a), b);
        assert!(g.or(a, b).is_true());
        assert!(g.and(a, b).is_false());
        assert_eq!(g.atom_count(), 1);
    }

    #[test]
    fn comparisons_of_one_pair_know_each_other() {
        let ops = Op::COMPARISONS;
        // Whichever comparison comes first, every guard agrees with its
        // term on every model, and `x < y`, `y < x` are disjoint.
        for first in ops {
            let mut s = TermStore::new();
            let mut g = Guards::new();
            let x = s.symbol_term("x", Sort::Bv(8));
            let y = s.symbol_term("y", Sort::Bv(8));
            let mut made = Vec::new();
            for op in std::iter::once(first).chain(ops) {
                for (a, b) in [(x, y), (y, x)] {
                    let t = s.app(op, &[a, b]).unwrap();
                    made.push((t, g.atom(&mut s, t)));
                }
            }
            for (vx, vy) in [(1u64, 2u64), (2, 1), (3, 3), (0x80, 1), (1, 0x80)] {
                let mut m = Model::default();
                m.insert(SymId(0), Value::Bv { bits: vx, width: 8 });
                m.insert(SymId(1), Value::Bv { bits: vy, width: 8 });
                for (t, guard) in &made {
                    assert_eq!(
                        g.eval(&s, *guard, &m),
                        s.eval(*t, &m).ok().map(|v| v == Value::Bool(true)),
                        "{} under x={vx}, y={vy} (first {first:?})",
                        s.display(*t)
                    );
                }
            }
            let lt = |s: &mut TermStore, g: &mut Guards, op, a, b| {
                let t = s.app(op, &[a, b]).unwrap();
                g.atom(s, t)
            };
            let (xy, yx) = (lt(&mut s, &mut g, Op::Lt, x, y), lt(&mut s, &mut g, Op::Lt, y, x));
            assert!(g.and(xy, yx).is_false());
            let (uxy, uyx) = (lt(&mut s, &mut g, Op::ULt, x, y), lt(&mut s, &mut g, Op::ULt, y, x));
            assert!(g.and(uxy, uyx).is_false());
            // Per signedness one variable for `<`/`<=`, and `==`.
            assert_eq!(g.atom_count(), 3);
        }
    }

    #[test]
    fn a_pair_cut_one_way_keeps_one_variable() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let x = s.symbol_term("x", Sort::Int);
        let y = s.symbol_term("y", Sort::Int);
        let le = s.app(Op::Le, &[x, y]).unwrap();
        let gt = s.app(Op::Lt, &[y, x]).unwrap();
        let (a, b) = (g.atom(&mut s, le), g.atom(&mut s, gt));
        assert_eq!(g.not(a), b);
        assert_eq!(g.support(a).len(), 1);
    }

    #[test]
    fn exists_or_s_the_cofactors_of_the_dropped_atoms() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let atom = |s: &mut TermStore, g: &mut Guards, name: &str| {
            let x = s.symbol_term(name, Sort::Int);
            let zero = s.constant(Value::Int(0));
            let p = s.app(Op::Gt, &[x, zero]).unwrap();
            (p, g.atom(s, p))
        };
        let (pt, p) = atom(&mut s, &mut g, "p");
        let (_, q) = atom(&mut s, &mut g, "q");
        let (_, r) = atom(&mut s, &mut g, "r");
        let pq = g.and(p, q);
        let np = g.not(p);
        let npr = g.and(np, r);
        let f = g.or(pq, npr);
        assert_eq!(g.support(f).len(), 3);
        let without_p = g.exists(f, &|a| a == pt);
        let q_or_r = g.or(q, r);
        assert_eq!(without_p, q_or_r);
        assert_eq!(g.exists(f, &|_| false), f);
        assert!(g.exists(f, &|_| true).is_true());
    }

    /// Atoms `x0 > 0`, `x1 > 0`, …: variables 0 to `n - 1`.
    fn atoms(s: &mut TermStore, g: &mut Guards, n: usize) -> Vec<Guard> {
        (0..n)
            .map(|i| {
                let x = s.symbol_term(&format!("x{i}"), Sort::Int);
                let zero = s.constant(Value::Int(0));
                let p = s.app(Op::Gt, &[x, zero]).unwrap();
                g.atom(s, p)
            })
            .collect()
    }

    /// A table whose growth would end past exploration's deadline stops
    /// the run and unwinds before it grows: at a pace of 5 ms a byte, the
    /// unique table's first doubling (16 KiB) would take 80 s of a 60 s
    /// run.
    #[test]
    fn a_growth_that_would_end_past_the_deadline_unwinds_first() {
        let budget = Budget::start(braid_budget::Limits {
            time: Some(Duration::from_secs(60)),
            memory_mb: None,
        });
        let (mut s, mut g) = (TermStore::new(), Guards::new());
        g.set_budget(&budget);
        g.paces.unique = Pace::new(5e6);
        let xs = atoms(&mut s, &mut g, 64);
        let slots = g.unique.slots.len();
        let grew = braid_budget::catch_stop(|| {
            // `x0 ∧ x32 ∨ x1 ∧ x33 ∨ ...`: exponential in this order, so
            // the table fills.
            (0..32).fold(Guard::FALSE, |acc, i| {
                let pair = g.and(xs[i], xs[i + 32]);
                g.or(acc, pair)
            })
        });
        assert!(grew.is_err(), "the growth unwound");
        assert_eq!(g.unique.slots.len(), slots, "the table did not grow");
        assert_eq!(
            budget.reason(),
            Some(braid_budget::StopReason::TimeLimit(Duration::from_secs(60)))
        );
    }

    /// A xorshift generator from `seed`: the tests' random guards.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Whether `g` holds when variable `v` has bit `v - first` of `bits`.
    fn holds(g: &Guards, mut x: Guard, first: u32, bits: u32) -> bool {
        while x.0 > 1 {
            let n = g.nodes[x.0 as usize];
            x = if bits >> (n.var - first) & 1 == 1 { n.hi } else { n.lo };
        }
        x.is_true()
    }

    #[test]
    fn forced_literals_hold_and_and_agrees_with_the_truth_table() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        // Atoms on both sides of the tracked range (`Forced::VARS`).
        let atoms = atoms(&mut s, &mut g, Forced::VARS as usize + 6);
        let first = Forced::VARS - 4;
        let used = &atoms[first as usize..];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut pool: Vec<Guard> = used.to_vec();
        for _ in 0..400 {
            let (a, b) = (pool[next() as usize % pool.len()], pool[next() as usize % pool.len()]);
            let r = match next() % 4 {
                0 => g.or(a, b),
                1 => g.not(a),
                _ => g.and(a, b),
            };
            pool.push(r);
        }
        let mut conflicts = 0;
        for _ in 0..2000 {
            let (a, b) = (pool[next() as usize % pool.len()], pool[next() as usize % pool.len()]);
            let ab = g.and(a, b);
            let (fa, fb) = (g.forced(a), g.forced(b));
            conflicts += fa.conflicts(fb) as u32;
            for bits in 0..1u32 << used.len() {
                let (ha, hb) = (holds(&g, a, first, bits), holds(&g, b, first, bits));
                assert_eq!(holds(&g, ab, first, bits), ha && hb);
                assert!(!(ha && hb && fa.conflicts(fb)), "a conflict means disjoint");
                for (x, f) in [(ha, fa), (hb, fb)] {
                    if !x {
                        continue;
                    }
                    for v in first..Forced::VARS {
                        let set = bits >> (v - first) & 1 == 1;
                        assert!(f.pos >> v & 1 == 0 || set, "forced positive literal");
                        assert!(f.neg >> v & 1 == 0 || !set, "forced negative literal");
                    }
                }
            }
        }
        assert!(conflicts > 0, "the shortcut was tried");
    }

    #[test]
    fn collection_keeps_the_roots_and_reuses_the_rest() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let atoms = atoms(&mut s, &mut g, 8);
        // (x0 ∧ x1) ∨ (x2 ∧ x3) ∨ …, kept; its negation, dropped.
        let mut keep = Guard::FALSE;
        for pair in atoms.chunks(2) {
            let both = g.and(pair[0], pair[1]);
            keep = g.or(keep, both);
        }
        let dropped = g.not(keep);
        let before = g.node_count();
        g.collect(atoms.iter().copied().chain([keep]));
        assert!(g.node_count() < before, "the negation's nodes are freed");
        // The kept guard means what it meant, and rebuilding gives the same ids.
        let mut again = Guard::FALSE;
        for pair in atoms.chunks(2) {
            let both = g.and(pair[0], pair[1]);
            again = g.or(again, both);
        }
        assert_eq!(again, keep);
        let negated = g.not(keep);
        assert!(g.and(negated, keep).is_false());
        assert!(g.or(negated, keep).is_true());
        let _ = dropped;
    }

    /// The unique table grows past its first size and is rebuilt by each
    /// collection: a guard made again is still the id it was, and no two
    /// live nodes are the same `(var, lo, hi)`.
    #[test]
    fn guards_stay_canonical_across_growth_and_collections() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let atoms = atoms(&mut s, &mut g, 16);
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        // Each guard as a recipe over the atoms, so it can be made again.
        let recipe = |next: &mut dyn FnMut() -> u64| -> Vec<(usize, bool)> {
            (0..6).map(|_| (next() as usize % 16, next() & 1 == 1)).collect()
        };
        let make = |g: &mut Guards, r: &[(usize, bool)]| {
            // (a0 ∧ a1) ∨ (a2 ∧ ¬a3) ∨ … over the recipe's literals.
            let lit = |g: &mut Guards, (i, pos): (usize, bool)| if pos { atoms[i] } else { g.not(atoms[i]) };
            let mut acc = Guard::FALSE;
            for pair in r.chunks(2) {
                let (a, b) = (lit(g, pair[0]), lit(g, pair[1]));
                let both = g.and(a, b);
                acc = g.or(acc, both);
            }
            acc
        };
        let mut kept: Vec<(Vec<(usize, bool)>, Guard)> = Vec::new();
        for round in 0..4 {
            for _ in 0..3000 {
                let r = recipe(&mut next);
                let guard = make(&mut g, &r);
                if next().is_multiple_of(8) {
                    kept.push((r, guard));
                }
            }
            assert!(g.unique.slots.len() > Unique::MIN, "round {round}: the table grew");
            g.collect(atoms.iter().copied().chain(kept.iter().map(|k| k.1)));
            for (r, guard) in &kept {
                assert_eq!(
                    make(&mut g, r),
                    *guard,
                    "round {round}: a kept guard is made again as itself"
                );
            }
            let mut seen = std::collections::HashSet::new();
            let live = (2..g.nodes.len()).filter(|&i| g.nodes[i].var != TERMINAL);
            for i in live {
                let n = g.nodes[i];
                assert!(seen.insert((n.var, n.lo, n.hi)), "round {round}: node {i} is unique");
                assert_eq!(g.unique.get(&g.nodes, n.var, n.lo, n.hi), Some(Guard(i as u32)));
            }
            assert_eq!(g.unique.len, seen.len());
        }
    }

    #[test]
    fn boolean_laws_hold_on_ids() {
        let (mut s, mut g, p, q) = setup();
        let (a, b) = (g.atom(&mut s, p), g.atom(&mut s, q));
        let ab = g.and(a, b);
        let ba = g.and(b, a);
        assert_eq!(ab, ba);
        let nab = g.not(ab);
        let na = g.not(a);
        let nb = g.not(b);
        assert_eq!(nab, g.or(na, nb));
        let t = g.or(ab, na);
        let either = g.or(t, b);
        let back = g.or(na, b);
        assert_eq!(either, back);
    }

    #[test]
    fn conjunctions_of_literals_come_apart() {
        let (mut s, mut g, p, q) = setup();
        let (a, b) = (g.atom(&mut s, p), g.atom(&mut s, q));
        let nb = g.not(b);
        let both = g.and(a, nb);
        let nq = s.not(q);
        assert_eq!(g.conjuncts(&mut s, both), vec![p, nq]);
        let either = g.or(a, b);
        assert_eq!(g.conjuncts(&mut s, either).len(), 1);
        assert!(g.conjuncts(&mut s, Guard::TRUE).is_empty());
    }

    #[test]
    fn cubes_imply_the_guard_and_follow_the_model_first() {
        let (mut s, mut g, p, q) = setup();
        let (a, b) = (g.atom(&mut s, p), g.atom(&mut s, q));
        // a ∨ b: two cubes, a (then anything) and ¬a ∧ b.
        let either = g.or(a, b);
        let x = SymId(0);
        let mut negative = Model::default();
        negative.insert(x, Value::Int(-1));
        let cubes = g.cubes(&s, either, &negative, 4);
        assert_eq!(cubes, vec![vec![(p, false), (q, true)], vec![(p, true)]]);
        // Under x = 1 the model's own edge (x > 0) comes first.
        let mut positive = Model::default();
        positive.insert(x, Value::Int(1));
        assert_eq!(g.cubes(&s, either, &positive, 4)[0], vec![(p, true)]);
        // The limit cuts the enumeration; false has none, true one empty cube.
        assert_eq!(g.cubes(&s, either, &positive, 1).len(), 1);
        assert!(g.cubes(&s, Guard::FALSE, &positive, 4).is_empty());
        assert_eq!(g.cubes(&s, Guard::TRUE, &positive, 4), vec![Vec::new()]);
    }

    #[test]
    fn choice_terms_evaluate_only_the_atoms_on_the_models_path() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let (x, y) = (s.symbol_term("x", Sort::Int), s.symbol_term("y", Sort::Int));
        let zero = s.constant(Value::Int(0));
        let one = s.constant(Value::Int(1));
        // y != 0 ∧ x / y > 1: under y = 0 the quotient does not evaluate.
        let nonzero = s.app(Op::Ne, &[y, zero]).unwrap();
        let quotient = s.app(Op::Div, &[x, y]).unwrap();
        let big = s.app(Op::Gt, &[quotient, one]).unwrap();
        let (a, b) = (g.atom(&mut s, nonzero), g.atom(&mut s, big));
        let guard = g.and(a, b);
        let mut m = Model::default();
        m.insert(SymId(0), Value::Int(5));
        m.insert(SymId(1), Value::Int(0));
        assert_eq!(g.eval(&s, guard, &m), Some(false));
        let t = g.to_term(&mut s, guard);
        // The solver's form is a conjunction of both atoms, decided by the
        // false one although the other does not evaluate.
        assert_eq!(s.eval(t, &m), Ok(Value::Bool(false)));
        let c = g.to_choice_term(&mut s, guard);
        assert_eq!(s.eval(c, &m), Ok(Value::Bool(false)));
        m.insert(SymId(1), Value::Int(2));
        assert_eq!(s.eval(c, &m), Ok(Value::Bool(true)));
    }

    #[test]
    fn chosen_values_agree_with_their_guards_and_skip_the_shared_prefix() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let atoms = atoms(&mut s, &mut g, 6);
        let minterm = |g: &mut Guards, bits: u32| {
            let mut m = Guard::TRUE;
            for (i, &a) in atoms.iter().enumerate() {
                let lit = if bits >> i & 1 == 1 { a } else { g.not(a) };
                m = g.and(m, lit);
            }
            m
        };
        let model = |bits: u32| -> Model {
            (0..6)
                .map(|i| (SymId(i), Value::Int((bits >> i & 1) as i128)))
                .collect()
        };
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            // Each assignment of the six atoms in one of k entries, or in
            // none (a don't-care); entries share values now and then.
            let k = 2 + (next() % 6) as usize;
            let owner: Vec<Option<usize>> = (0..64)
                .map(|_| match next() % (k as u64 + 1) {
                    0 if round % 2 == 0 => None,
                    e => Some(e as usize % k),
                })
                .collect();
            let mut entries: Vec<(Guard, TermId)> = (0..k)
                .map(|e| (Guard::FALSE, s.constant(Value::Int((e % 4) as i128))))
                .collect();
            for (bits, o) in owner.iter().enumerate() {
                if let Some(e) = o {
                    let m = minterm(&mut g, bits as u32);
                    entries[*e].0 = g.or(entries[*e].0, m);
                }
            }
            let Some(t) = g.choose(&mut s, &entries) else {
                assert!(entries.iter().all(|e| e.0.is_false()));
                continue;
            };
            for (bits, o) in owner.iter().enumerate() {
                if let Some(e) = o {
                    assert_eq!(
                        s.eval(t, &model(bits as u32)),
                        Ok(Value::Int((e % 4) as i128)),
                        "round {round}"
                    );
                }
            }
        }
        // Entries under a shared x0 ∧ x1 tell themselves apart by x2 alone.
        let prefix = g.and(atoms[0], atoms[1]);
        let (one, two) = (s.constant(Value::Int(1)), s.constant(Value::Int(2)));
        let a = g.and(prefix, atoms[2]);
        let not_x2 = g.not(atoms[2]);
        let b = g.and(prefix, not_x2);
        let t = g.choose(&mut s, &[(a, one), (b, two)]).unwrap();
        let x2 = g.atoms[g.var(atoms[2]) as usize];
        assert_eq!(t, s.app(Op::Ite, &[x2, one, two]).unwrap());
    }

    #[test]
    fn guards_become_terms_and_evaluate() {
        let (mut s, mut g, p, q) = setup();
        let (a, b) = (g.atom(&mut s, p), g.atom(&mut s, q));
        let nb = g.not(b);
        let guard = g.and(a, nb);
        let mut m = Model::default();
        m.insert(braid_term::SymId(0), Value::Int(3));
        assert_eq!(g.eval(&s, guard, &m), Some(true));
        let t = g.to_term(&mut s, guard);
        assert_eq!(s.eval(t, &m), Ok(Value::Bool(true)));
        m.insert(braid_term::SymId(0), Value::Int(-3));
        assert_eq!(g.eval(&s, guard, &m), Some(false));
        assert_eq!(s.eval(t, &m), Ok(Value::Bool(false)));
    }
}

#[cfg(test)]
mod eval_tests {
    use super::*;
    use braid_term::{Sort, SymId};

    /// `x == 0 ∨ x / x == 1` holds at `x = 0` in either order of its atoms,
    /// although its second atom does not evaluate there (a division by
    /// zero); `x / x == 1` alone is undecided.
    #[test]
    fn an_atom_that_does_not_evaluate_decides_nothing_its_sides_agree_on() {
        for division_first in [false, true] {
            let mut s = TermStore::new();
            let mut g = Guards::new();
            let x = s.symbol_term("x", Sort::Int);
            let (zero, one) = (s.constant(Value::Int(0)), s.constant(Value::Int(1)));
            let is_zero = s.app(Op::Eq, &[x, zero]).unwrap();
            let ratio = s.app(Op::Div, &[x, x]).unwrap();
            let is_one = s.app(Op::Eq, &[ratio, one]).unwrap();
            let (a, b) = if division_first {
                let b = g.atom(&mut s, is_one);
                (g.atom(&mut s, is_zero), b)
            } else {
                let a = g.atom(&mut s, is_zero);
                (a, g.atom(&mut s, is_one))
            };
            let either = g.or(a, b);
            let mut m = Model::default();
            m.insert(SymId(0), Value::Int(0));
            assert_eq!(g.eval(&s, either, &m), Some(true), "division first: {division_first}");
            assert_eq!(g.eval(&s, b, &m), None);
            m.insert(SymId(0), Value::Int(3));
            assert_eq!(g.eval(&s, either, &m), Some(true));
        }
    }
}

#[cfg(test)]
mod bit_atom_tests {
    use super::*;
    use braid_term::{Sort, SymId};

    /// With bit atoms, predicates over one byte know each other exactly,
    /// and both term forms of their guards agree with the guards on every
    /// value of the byte (and of a second, plain input).
    #[test]
    fn predicates_over_a_byte_are_functions_of_its_bits() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        g.set_bit_atoms(true);
        let b = s.symbol_term("b", Sort::Bv(8));
        let x = s.symbol_term("x", Sort::Bv(32));
        let k = |s: &mut TermStore, v: u64| s.constant(Value::bv(8, v));
        let (comma, semi, sp, n95) = (k(&mut s, 44), k(&mut s, 59), k(&mut s, 32), k(&mut s, 95));
        let is_comma = s.app(Op::Eq, &[b, comma]).unwrap();
        let is_semi = s.app(Op::Eq, &[b, semi]).unwrap();
        let shifted = s.app(Op::Sub, &[b, sp]).unwrap();
        let printable = s.app(Op::ULt, &[shifted, n95]).unwrap();
        let zero32 = s.constant(Value::bv(32, 0));
        let positive = s.app(Op::Gt, &[x, zero32]).unwrap();
        let (gc, gs, gp, gx) = (
            g.atom(&mut s, is_comma),
            g.atom(&mut s, is_semi),
            g.atom(&mut s, printable),
            g.atom(&mut s, positive),
        );
        assert!(g.and(gc, gs).is_false(), "',' and ';' at once");
        assert_eq!(g.and(gc, gp), gc, "',' is printable");
        // The byte's eight variables and the plain one.
        assert_eq!(g.atom_count(), 9);
        let either = g.or(gc, gs);
        let np = g.not(gp);
        let mixed = g.and(gx, np);
        let guards = [gc, gs, gp, either, g.or(mixed, gc)];
        for guard in guards {
            let (t, c) = (g.to_term(&mut s, guard), g.to_choice_term(&mut s, guard));
            for v in 0..256u64 {
                for xv in [0u64, 5] {
                    let mut m = Model::default();
                    m.insert(SymId(0), Value::bv(8, v));
                    m.insert(SymId(1), Value::bv(32, xv));
                    let want = g.eval(&s, guard, &m);
                    assert_eq!(s.eval(t, &m).ok(), want.map(Value::Bool), "b = {v}, x = {xv}");
                    assert_eq!(s.eval(c, &m).ok(), want.map(Value::Bool), "b = {v}, x = {xv}");
                }
            }
        }
        // Written as comparisons of the byte, not as its bits.
        let t = g.to_term(&mut s, either);
        assert!(!s.display(t).contains('&'), "{}", s.display(t));
    }

    /// The walk of [`Guards::search_model`] finds models that satisfy the
    /// guard where an atom over two bytes is decided by the bytes' bits
    /// (each of its cubes sets the bits and leaves the atom to the
    /// solver), from any hint; it proves a guard over bytes with no model
    /// infeasible; and a guard over a wide input, which it does not
    /// search, goes by its hint.
    #[test]
    fn a_walk_of_a_guard_evaluates_its_atoms_into_a_model() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        g.set_bit_atoms(true);
        let a = s.symbol_term("a", Sort::Bv(8));
        let b = s.symbol_term("b", Sort::Bv(8));
        let x = s.symbol_term("x", Sort::Bv(32));
        let k = |s: &mut TermStore, w: u8, v: u64| s.constant(Value::bv(w, v));
        // A state packed from both bytes, as a parser's: `a * 256 + b`.
        let (a16, b16) = (s.app(Op::ZExt(16), &[a]).unwrap(), s.app(Op::ZExt(16), &[b]).unwrap());
        let k256 = k(&mut s, 16, 256);
        let high = s.app(Op::Mul, &[a16, k256]).unwrap();
        let packed = s.app(Op::Add, &[high, b16]).unwrap();
        let mut checked = 0;
        for (lo_a, target) in [(60u64, 0x4142u64), (0x30, 0x3a30), (0x61, 0x6161), (0x20, 0x7f01)] {
            let bound = k(&mut s, 8, lo_a);
            let a_above = s.app(Op::UGe, &[a, bound]).unwrap();
            let kt = k(&mut s, 16, target);
            let is_target = s.app(Op::Eq, &[packed, kt]).unwrap();
            let (ga, gt) = (g.atom(&mut s, a_above), g.atom(&mut s, is_target));
            let guard = g.and(ga, gt);
            for hint_a in [0u64, 0x41, 0xff] {
                let mut hint = Model::default();
                hint.insert(SymId(0), Value::bv(8, hint_a));
                hint.insert(SymId(1), Value::bv(8, 0));
                let Walk::Model(m) = g.search_model(&s, guard, &hint, 1 << 20) else {
                    panic!("no model for {target:#x} from {hint_a:#x}");
                };
                assert_eq!(
                    g.eval(&s, guard, &m),
                    Some(true),
                    "target {target:#x}, hint {hint_a:#x}"
                );
                assert_eq!(m[&SymId(0)], Value::bv(8, target >> 8));
                assert_eq!(m[&SymId(1)], Value::bv(8, target & 0xff));
                checked += 1;
            }
            // Below the bound, no model: every value of both bytes tried.
            let na = g.not(ga);
            let none = g.and(na, gt);
            if target >> 8 >= lo_a {
                assert_eq!(g.search_model(&s, none, &Model::default(), 1 << 20), Walk::Infeasible);
                assert_eq!(g.search_model(&s, none, &Model::default(), 1 << 10), Walk::Unknown);
            }
        }
        assert_eq!(checked, 12);
        // A wide input is taken at its hint's value: found where the hint
        // satisfies the atom, not searched otherwise.
        let k7 = k(&mut s, 32, 7);
        let is7 = s.app(Op::Eq, &[x, k7]).unwrap();
        let g7 = g.atom(&mut s, is7);
        let mut hint = Model::default();
        hint.insert(SymId(2), Value::bv(32, 7));
        assert!(matches!(g.search_model(&s, g7, &hint, 1 << 20), Walk::Model(_)));
        hint.insert(SymId(2), Value::bv(32, 8));
        assert_eq!(g.search_model(&s, g7, &hint, 1 << 20), Walk::Unknown);
        // Too few steps: none.
        let k0 = k(&mut s, 16, 0xff00);
        let far = s.app(Op::Eq, &[packed, k0]).unwrap();
        let gf = g.atom(&mut s, far);
        assert_eq!(g.search_model(&s, gf, &Model::default(), 16), Walk::Unknown);
        assert!(matches!(
            g.search_model(&s, gf, &Model::default(), 1 << 20),
            Walk::Model(_)
        ));
        // It needed more than those 16 visits, and says how many.
        assert!((17..1 << 20).contains(&g.walk_visits()), "{} visits", g.walk_visits());
    }

    /// Guards with bit atoms over two bytes, and their 16-bit product.
    fn two_bytes_multiplied() -> (TermStore, Guards, TermId) {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        g.set_bit_atoms(true);
        let a = s.symbol_term("a", Sort::Bv(8));
        let b = s.symbol_term("b", Sort::Bv(8));
        let (a16, b16) = (s.app(Op::ZExt(16), &[a]).unwrap(), s.app(Op::ZExt(16), &[b]).unwrap());
        let product = s.app(Op::Mul, &[a16, b16]).unwrap();
        (s, g, product)
    }

    /// `t mod 251` is 250 and 249: no value of the bytes satisfies both
    /// atoms, which only evaluating them at each value shows.
    fn two_remainders(s: &mut TermStore, g: &mut Guards, t: TermId) -> Guard {
        let k = s.constant(Value::bv(16, 251));
        let rem = s.app(Op::URem, &[t, k]).unwrap();
        let (k250, k249) = (s.constant(Value::bv(16, 250)), s.constant(Value::bv(16, 249)));
        let is250 = s.app(Op::Eq, &[rem, k250]).unwrap();
        let is249 = s.app(Op::Eq, &[rem, k249]).unwrap();
        let (g250, g249) = (g.atom(s, is250), g.atom(s, is249));
        let guard = g.and(g250, g249);
        assert!(!guard.is_false());
        guard
    }

    /// A walk evaluates an atom over two bytes at each of their values,
    /// each evaluation perhaps long (a cipher's rounds): it looks at the
    /// budget as it goes and unwinds once the run has stopped, as a BDD
    /// operation does; before, a walk of tiny-AES-c's rounds over two
    /// symbolic bytes held multise's thread past the run's limit.
    #[test]
    fn a_walk_unwinds_when_the_run_stops() {
        let (mut s, mut g, product) = two_bytes_multiplied();
        let guard = two_remainders(&mut s, &mut g, product);
        let budget = Budget::unlimited();
        g.set_budget(&budget);
        // Unstopped, the walk tries every value of both bytes.
        assert_eq!(g.search_model(&s, guard, &Model::default(), 1 << 20), Walk::Infeasible);
        budget.stop(braid_budget::StopReason::Interrupted);
        let walked = braid_budget::catch_stop(|| g.search_model(&s, guard, &Model::default(), 1 << 20));
        assert!(walked.is_err(), "the walk unwound");
    }

    /// A walk's evaluations count against its steps ([`WALK_TERMS_PER_STEP`]):
    /// the same contradiction over two bytes, read through a long chain of
    /// operations, is left `Unknown` within steps that the short one is
    /// proved infeasible in (phoboslab/qoi's decoder: one walk evaluated
    /// 30 million terms, 1.2 s of a run dse ends in 0.35 s).
    #[test]
    fn a_walk_ends_when_its_evaluations_pass_its_steps() {
        let (mut s, mut g, product) = two_bytes_multiplied();
        let one = s.constant(Value::bv(16, 1));
        let mut chained = product;
        for _ in 0..100 {
            let half = s.app(Op::LShr, &[chained, one]).unwrap();
            chained = s.app(Op::Xor, &[chained, half]).unwrap();
        }
        let short = two_remainders(&mut s, &mut g, product);
        let long = two_remainders(&mut s, &mut g, chained);
        let steps = 1 << 19;
        assert_eq!(g.search_model(&s, short, &Model::default(), steps), Walk::Infeasible);
        assert_eq!(g.search_model(&s, long, &Model::default(), steps), Walk::Unknown);
        assert_eq!(g.search_model(&s, long, &Model::default(), 1 << 22), Walk::Infeasible);
    }
}
