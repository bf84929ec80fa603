//! Loop-head merging for the forking engines (seed 003).
//!
//! The states that reach one loop head (in one call context) are kept as a
//! nondeterministic value summary: a set of entries, each a store (every
//! frame's variables and all of memory) under a guard (the path condition
//! that reached it) and a time (the visits to the head in its frame). The
//! guards of different visits overlap — the paths that reach the head a
//! second time reached it a first time — so the summary means "any entry
//! whose guard holds": the union of the entries' concrete states. Merging is
//! that union, so it is symmetric and exact, and each entry keeps its own
//! trace: the time and guard of an entry are the iteration count and the
//! inputs of each iteration of the paths it stands for.
//!
//! A state arriving at the head is merged into the summary. If an entry
//! already stands for every concrete state it stands for (subsumption modulo
//! the fresh inputs of the iteration), the union does not grow and the state
//! stops: everything after it is explored from that entry, since what a
//! program does next depends on its concrete state only (inputs read later
//! are fresh). When every arrival stops, the loop is explored for every trip
//! count: a fixed point, and exploration goes past the loop. Otherwise the
//! state joins the summary and goes on. A summary that reaches
//! [`MAX_ENTRIES`] without converging stops merging: the loop is unrolled,
//! within the limits, and the statistics say so.
//!
//! Subsumption is decided by matching: the entry's store is a pattern whose
//! input symbols may stand for any term, matched against the arriving
//! store. A match `ρ` shows that the entry's store, with its inputs set to
//! `ρ` of the arriving inputs, is the arriving store; the entry's guard must
//! then hold there: its constraints over matched symbols, substituted by
//! `ρ`, must follow from the arriving path condition (syntactically, or by
//! one solver query), and its constraints over unmatched symbols only must
//! share none with the others (they are satisfiable on their own, the entry
//! being feasible). A constraint mixing both is not decided: no subsumption.

use super::state::{Cells, State};
use braid_ir::{FuncId, LiveSet, StmtIdx as At, VarId};
use braid_term::{Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use serde::Serialize;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Entries a summary holds before its loop is unrolled instead.
pub const MAX_ENTRIES: usize = 256;

/// Entries a summary makes without any arrival subsumed before its loop
/// is unrolled instead. A loop over two counters needs more than 16: a
/// glob matcher's (cesanta/mjson's `mjson_globmatch`, pattern `a*c`
/// against 6 symbolic bytes, its state the two positions) had its first
/// arrival subsumed right after its 16th entry, so a slightly different
/// order (dse raced beside dsm) unrolled it, and the run was cut off at
/// 20 s where dse alone takes 2.7 s; at 32, dsm finishes in 1.2 s.
pub(crate) const MAX_BARREN_ENTRIES: usize = 32;

/// A loop head (a statement, in any call context) where this many states
/// were split ([`LoopMerge::may_split`]) and no arrival was subsumed in
/// any of its contexts splits no more. A recursive-descent parser's loops
/// are met in hundreds of call contexts (bench/multise's Calc Parser: 706),
/// and each split its states into their token kinds, for nothing: dse took
/// 7.1 s there where it takes 1.1 s without loop-head merging. (Where
/// splitting pays, bench/multise's BDD, the first arrival is subsumed after
/// 8 splits; and after 300 entries over its contexts, so the barren rule
/// of entries, [`MAX_BARREN_ENTRIES`], stays per context: at 64 or 256
/// over all contexts, BDD lost every subsumption, 913 -> 1 061 paths.)
pub(crate) const MAX_BARREN_SPLITS: u64 = 8;

/// Locations of unrolled heads reported.
pub(crate) const MAX_REPORTED: usize = 16;

/// Statements the concrete run of a stopped state's test may take (its
/// inputs may drive the loop for very long); past it, no test.
pub(crate) const COMPLETION_STEPS: u64 = 20_000_000;

/// A state at a loop head is split by the values of its computed cells if
/// it has at most this many such cells with at most [`MAX_SPLIT`]
/// combinations of values.
pub(crate) const MAX_SPLIT_CELLS: usize = 64;
pub(crate) const MAX_SPLIT: usize = 32;

/// Solver time per loop-head merging query, in milliseconds.
pub(crate) const QUERY_MS: u32 = 200;

/// Time the enumeration of one state's computed values may take
/// ([`MAX_SPLIT`] combinations at most): past it the state is not split.
/// A CRC over four symbolic bytes has a computed 32-bit value with far more
/// than [`MAX_SPLIT`] values, each found by a query of about 250 ms: dse
/// spent 8.3 s of a 10 s run enumerating them twice, and did not finish
/// a program it finishes in 0.6 s without loop-head merging.
pub(crate) const SPLIT_MS: u64 = 2 * QUERY_MS as u64;

/// Failed splits at a head after which its states are split no more.
const MAX_SPLIT_FAILURES: u32 = 2;

/// Failed splits at a loop head over all its call contexts, with no
/// arrival subsumed in any, after which it splits no more. A path library's
/// loops (likle/cwalk's `cwk_path_normalize` over 3 symbolic characters)
/// are met in 149 contexts; each failed twice, every failure up to
/// [`MAX_SPLIT`] queries, and dse took 2.9 s where it takes 0.8 s without
/// loop-head merging.
pub(crate) const MAX_BARREN_SPLIT_FAILURES: u64 = 4;

/// The share of the run's time loop-head merging may take while no
/// arrival has been subsumed anywhere; past it (and past
/// [`GIVE_UP_AFTER_MS`] of that work) loop heads are unrolled for the rest
/// of the run, and run-ahead passes them. Merging at loop heads only saves
/// work when an entry stands for an arrival: until one does, it is
/// speculation, and its cost is bounded. (likle/cwalk's
/// `cwk_path_normalize` over 3 symbolic characters: 149 heads, 1 978
/// entries, 6 241 queries and none subsumed; dse took 2.9 s where it takes
/// 0.8 s without loop-head merging.)
pub(crate) const GIVE_UP_SHARE: f64 = 0.25;
pub(crate) const GIVE_UP_AFTER_MS: u64 = 200;

/// Entries made (over all heads and contexts) before loop-head merging
/// may be given up: the rule's time is the machine's, and on a small
/// program one loop-merge query that runs to its [`QUERY_MS`] (a debug
/// build among other tests, a division in the path) took a quarter of a
/// run of a few entries; the evidence that merging does not pay is the
/// entries that stood for nothing (cwalk: 101 by the time it was given up).
pub(crate) const GIVE_UP_AFTER_ENTRIES: u64 = 64;

/// Entries whose guard needs a solver query, per arrival.
pub(crate) const MAX_QUERIES: usize = 4;

/// What loop-head merging did, for `--json` and the human summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoopStats {
    /// Loop heads (per call context) where states were merged.
    pub heads: u64,
    /// Arrivals that joined a summary as a new entry.
    pub entries: u64,
    /// Arrivals an entry already stood for (iterations saved).
    pub subsumed: u64,
    /// Of those, how many needed a solver query.
    pub subsumed_by_solver: u64,
    /// Heads where some arrival was subsumed and the summary never reached
    /// its size limit (a fixed point, if the run is complete).
    pub fixpoints: u64,
    /// Heads whose summary reached its size limit: unrolled from there,
    /// with their locations.
    pub unrolled: u64,
    pub unrolled_at: Vec<String>,
    /// The largest time (visits to its head) of an entry that subsumed an
    /// arrival.
    pub max_time: u32,
    /// Arrivals whose computed values (not plain inputs) were split into
    /// their concrete values, and the states they were split into.
    pub splits: u64,
    pub split_parts: u64,
    /// States not split: too many combinations of values, or out of time.
    pub split_failures: u64,
    /// When loop-head merging was given up, this many milliseconds into
    /// the run, having taken [`GIVE_UP_SHARE`] of it with no arrival
    /// subsumed ([`LoopMerge::give_up_if_barren`]).
    pub given_up_after_ms: Option<u64>,
    /// Milliseconds taken at loop heads (matching, splitting, adding).
    pub ms: u64,
    /// States (`multise`: `pc` entries) that reached a loop head while
    /// merging was on, before any was split into parts.
    pub arrivals: u64,
}

impl LoopStats {
    /// Whether loop-head merging, having taken `time` of a run `elapsed`
    /// long, is to be given up: [`GIVE_UP_SHARE`] of the run and
    /// [`GIVE_UP_AFTER_MS`], [`GIVE_UP_AFTER_ENTRIES`] entries, and no
    /// arrival subsumed.
    pub(crate) fn barren(&self, time: std::time::Duration, elapsed: std::time::Duration) -> bool {
        self.subsumed == 0
            && self.entries >= GIVE_UP_AFTER_ENTRIES
            && time.as_millis() >= GIVE_UP_AFTER_MS as u128
            && time.as_secs_f64() >= GIVE_UP_SHARE * elapsed.as_secs_f64()
    }
}

/// A frame of an entry: where it is, where its result goes, and its live
/// variables (dead ones `None`).
type FrameSnapshot = (FuncId, At, Option<VarId>, Vec<Option<TermId>>);

/// One entry of a summary: a store under a guard at a time.
pub(crate) struct Entry {
    /// Visits to the head in its frame when the entry was made.
    pub time: u32,
    /// The path condition (conjuncts).
    guard: Vec<TermId>,
    frames: Vec<FrameSnapshot>,
    memory: Vec<Rc<Cells>>,
    /// Per allocation and page: whether a cell of it is not a constant.
    symbolic_pages: Vec<Vec<bool>>,
}

#[derive(Default)]
pub(crate) struct Summary {
    location: String,
    pub entries: Vec<Entry>,
    /// Reached [`MAX_ENTRIES`]: no more merging here.
    pub full: bool,
    subsumed: u64,
    /// Arrivals whose computed values had too many values to split.
    split_failures: u32,
}

/// Whether an arrival stops, and why.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// An entry stands for it: the state stops.
    Subsumed { by_solver: bool, time: u32 },
    /// It joined the summary.
    Added,
    /// The summary is full: unrolled.
    Unrolled,
}

/// What a loop head did over all its call contexts.
#[derive(Default)]
struct Place {
    subsumed: u64,
    splits: u64,
    split_failures: u64,
}

impl Place {
    /// Splitting has not paid here ([`MAX_BARREN_SPLITS`],
    /// [`MAX_BARREN_SPLIT_FAILURES`]).
    fn barren(&self) -> bool {
        self.subsumed == 0 && (self.splits >= MAX_BARREN_SPLITS || self.split_failures >= MAX_BARREN_SPLIT_FAILURES)
    }
}

/// Every loop head's summary.
#[derive(Default)]
pub(crate) struct LoopMerge {
    summaries: FxHashMap<u64, Summary>,
    /// By loop head (the top frame's function and statement).
    places: FxHashMap<(FuncId, At), Place>,
    pub stats: LoopStats,
    /// [`PageInfo`] of memory pages by address (holding the page).
    pages: FxHashMap<usize, (Rc<Vec<TermId>>, PageInfo)>,
    /// Time taken at loop heads (matching, splitting, adding entries;
    /// [`LoopStats::ms`] in milliseconds).
    time: std::time::Duration,
    /// Given up ([`LoopMerge::give_up_if_barren`]): every head is unrolled.
    pub given_up: bool,
}

#[derive(Clone, Copy)]
pub(crate) struct PageInfo {
    pub symbolic: bool,
    pub computed: bool,
}

/// Pages whose [`PageInfo`] is kept.
const PAGE_CACHE: usize = 1 << 14;

/// A decision the solver is asked for: does `path` imply all of `goals`?
pub(crate) trait Implies {
    fn implies(&mut self, store: &mut TermStore, path: &[TermId], goals: &[TermId]) -> bool;
}

impl LoopMerge {
    /// Whether the loop head the top of `frames` (function and statement
    /// per frame) is at no longer merges in that call context: its summary
    /// is full, so an arrival there only goes on.
    pub fn unrolled(&self, frames: &[(FuncId, At)]) -> bool {
        self.given_up
            || self
                .summaries
                .get(&key_of(frames.iter().copied()))
                .is_some_and(|s| s.full)
    }

    /// Gives loop-head merging up for the rest of the run if it has taken
    /// [`GIVE_UP_SHARE`] of the run's time `elapsed` (and
    /// [`GIVE_UP_AFTER_MS`]), and made [`GIVE_UP_AFTER_ENTRIES`] entries,
    /// with no arrival subsumed: the summaries are
    /// dropped (their entries' states go on as states do) and every head is
    /// unrolled from now on. Whether it was given up now.
    /// Loop-head merging took `took` more, `elapsed` into the run (which
    /// may give it up: [`LoopMerge::give_up_if_barren`]).
    pub fn spent(&mut self, took: std::time::Duration, elapsed: std::time::Duration) {
        self.time += took;
        self.stats.ms = self.time.as_millis() as u64;
        self.give_up_if_barren(elapsed);
    }

    fn give_up_if_barren(&mut self, elapsed: std::time::Duration) -> bool {
        if self.given_up || !self.stats.barren(self.time, elapsed) {
            return false;
        }
        self.given_up = true;
        self.stats.given_up_after_ms = Some(elapsed.as_millis() as u64);
        self.summaries = FxHashMap::default();
        self.pages = FxHashMap::default();
        true
    }

    /// Whether an entry of `st`'s head summary stands for `st` (at a loop
    /// head): `Some(Subsumed)`, or `Some(Unrolled)` if the head no longer
    /// merges, else `None`. Only the variables an entry keeps (those live
    /// at the head) are compared; `location` names the head.
    pub fn find(
        &mut self,
        store: &mut TermStore,
        st: &State,
        location: impl FnOnce() -> String,
        solver: &mut dyn Implies,
    ) -> Option<Verdict> {
        let summary = self.summaries.entry(context_key(st)).or_default();
        if summary.location.is_empty() {
            summary.location = location();
            self.stats.heads += 1;
        }
        if summary.full {
            return Some(Verdict::Unrolled);
        }
        let path: FxHashSet<TermId> = st.path.iter().copied().collect();
        let mut queries = 0;
        // The newest entries first: the state's own previous visit is there.
        for e in summary.entries.iter().rev() {
            let Some(binding) = match_store(store, e, st) else {
                continue;
            };
            match guard_follows(store, e, &binding, &path, st, &mut queries, solver) {
                Some(by_solver) => {
                    if summary.subsumed == 0 {
                        self.stats.fixpoints += 1;
                    }
                    summary.subsumed += 1;
                    self.places.entry(place_of(st)).or_default().subsumed += 1;
                    self.stats.subsumed += 1;
                    self.stats.subsumed_by_solver += by_solver as u64;
                    self.stats.max_time = self.stats.max_time.max(e.time);
                    return Some(Verdict::Subsumed {
                        by_solver,
                        time: e.time,
                    });
                }
                None if queries >= MAX_QUERIES => break,
                None => {}
            }
        }
        None
    }

    /// Adds `st` (at a loop head, `visits` visits in its frame, no entry
    /// standing for it) to its head's summary, unless the summary is full:
    /// then the head is unrolled from now on.
    pub fn add(&mut self, store: &TermStore, st: &State, live: &[LiveSet], visits: u32) -> Verdict {
        let summary = self.summaries.entry(context_key(st)).or_default();
        if summary.full {
            return Verdict::Unrolled;
        }
        // A loop whose states never repeat (a parser's loop over its
        // input, a counter) stops merging early: its checks would only
        // cost.
        let barren = summary.subsumed == 0 && summary.entries.len() >= MAX_BARREN_ENTRIES;
        if summary.entries.len() >= MAX_ENTRIES || barren {
            summary.full = true;
            summary.entries = Vec::new();
            self.stats.unrolled += 1;
            if summary.subsumed > 0 {
                self.stats.fixpoints -= 1;
            }
            if self.stats.unrolled_at.len() < MAX_REPORTED && !self.stats.unrolled_at.contains(&summary.location) {
                self.stats.unrolled_at.push(summary.location.clone());
            }
            return Verdict::Unrolled;
        }
        let entry = self.snapshot(store, st, live, visits);
        let summary = self.summaries.entry(context_key(st)).or_default();
        summary.entries.push(entry);
        self.stats.entries += 1;
        Verdict::Added
    }

    /// What the cells of `page` hold: a symbolic term, a computed one (see
    /// [`computed`]). Pages that states share are looked at once.
    pub fn page_info(&mut self, store: &TermStore, page: &Rc<Vec<TermId>>) -> PageInfo {
        let key = Rc::as_ptr(page) as usize;
        if let Some((_, info)) = self.pages.get(&key) {
            return *info;
        }
        let info = PageInfo {
            symbolic: page.iter().any(|c| !store.symbols(*c).is_empty()),
            computed: page.iter().any(|c| computed(store, *c)),
        };
        if self.pages.len() >= PAGE_CACHE {
            self.pages.clear();
        }
        // The cache holds the page, so its address is not reused meanwhile.
        self.pages.insert(key, (page.clone(), info));
        info
    }

    /// `st` as an entry; dead variables are left out (`None`).
    fn snapshot(&mut self, store: &TermStore, st: &State, live: &[LiveSet], time: u32) -> Entry {
        let symbolic_pages = st
            .memory
            .iter()
            .map(|cells| cells.pages().map(|p| self.page_info(store, p).symbolic).collect())
            .collect();
        Entry {
            time,
            guard: st.path.clone(),
            frames: st
                .frames
                .iter()
                .zip(live)
                .map(|(f, live)| {
                    let vars = f
                        .vars
                        .iter()
                        .enumerate()
                        .map(|(i, v)| live.contains(i).then_some(*v))
                        .collect();
                    (f.func, f.at, f.ret_dst, vars)
                })
                .collect(),
            memory: st.memory.clone(),
            symbolic_pages,
        }
    }

    /// Whether splitting `st`'s computed values into their few concrete
    /// values is still tried at its head (it stops after it failed twice,
    /// or once for want of time, and where splitting has not paid in any
    /// context, [`Place::barren`]).
    pub fn may_split(&self, st: &State) -> bool {
        self.summaries
            .get(&context_key(st))
            .is_none_or(|s| !s.full && s.split_failures < MAX_SPLIT_FAILURES)
            && self.places.get(&place_of(st)).is_none_or(|p| !p.barren())
    }

    /// Splitting a state at `st`'s head found too many values, or ran out
    /// of its time (`slow`: then it is not tried there again).
    pub fn split_failed(&mut self, st: &State, slow: bool) {
        let failures = &mut self.summaries.entry(context_key(st)).or_default().split_failures;
        *failures = if slow { MAX_SPLIT_FAILURES } else { *failures + 1 };
        self.places.entry(place_of(st)).or_default().split_failures += 1;
        self.stats.split_failures += 1;
    }

    /// A state (at `st`'s head) was split into `parts` states of concrete
    /// values.
    pub fn split_done(&mut self, st: &State, parts: usize) {
        self.places.entry(place_of(st)).or_default().splits += 1;
        self.stats.splits += 1;
        self.stats.split_parts += parts as u64;
    }
}

/// Whether `t` is computed from inputs: not a constant, and not an input
/// or a piece of one (its bytes, extensions, shifts by constants), which
/// matching generalises over instead. Integers and Booleans only.
pub(crate) fn computed(store: &TermStore, t: TermId) -> bool {
    if store.symbols(t).is_empty() || !matches!(store.sort(t), Sort::Bv(_) | Sort::Bool | Sort::Int) {
        return false;
    }
    let mut t = t;
    loop {
        match store.node(t) {
            Node::Sym(_) => return false,
            Node::App(Op::Trunc(_) | Op::ZExt(_) | Op::SExt(_), args) => t = args[0],
            Node::App(Op::LShr | Op::AShr | Op::Shl, args) if store.symbols(args[1]).is_empty() => t = args[0],
            Node::App(Op::Or, args) => {
                return args.iter().any(|a| computed(store, *a));
            }
            _ => return true,
        }
    }
}

/// Whether `terms` together take at most `limit` combinations of values,
/// by their shape alone (no solver): an over-approximation of each one's
/// number of values and of the bits it may set. The bytes of one word
/// count once.
pub(crate) fn few_values(store: &TermStore, terms: &[TermId], limit: u128) -> bool {
    let mut memo = FxHashMap::default();
    let mut roots = FxHashSet::default();
    for &t in terms {
        let mut t = t;
        while let Node::App(Op::Trunc(_) | Op::LShr, args) = store.node(t) {
            if matches!(store.node(t), Node::App(Op::LShr, _)) && store.as_const(args[1]).is_none() {
                break;
            }
            t = args[0];
        }
        roots.insert(t);
    }
    let mut n: u128 = 1;
    for t in roots {
        n = n.saturating_mul(values_bound(store, t, &mut memo).0);
        if n > limit {
            return false;
        }
    }
    true
}

/// At most how many values `t` takes, and a mask of the bits it may set
/// (bit-vectors of at most 64 bits; Booleans as one bit).
fn values_bound(store: &TermStore, t: TermId, memo: &mut FxHashMap<TermId, (u128, u64)>) -> (u128, u64) {
    if let Some(&b) = memo.get(&t) {
        return b;
    }
    let width = match store.sort(t) {
        Sort::Bv(w) if w <= 64 => w,
        Sort::Bool => 1,
        _ => return (u128::MAX, u64::MAX),
    };
    let all = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let konst = |u: TermId| match store.as_const(u) {
        Some(Value::Bv { bits, .. }) => Some(bits),
        _ => None,
    };
    let (count, ones) = match store.node(t) {
        Node::Const(Value::Bv { bits, .. }) => (1, *bits),
        Node::Const(Value::Bool(b)) => (1, *b as u64),
        Node::App(op, args) => {
            let args = args.clone();
            let mut arg = |i: usize| values_bound(store, args[i], memo);
            match op {
                Op::Trunc(_) => {
                    let (c, o) = arg(0);
                    (c, o & all)
                }
                Op::ZExt(_) => arg(0),
                Op::And => {
                    let ((a, x), (b, y)) = (arg(0), arg(1));
                    (a.saturating_mul(b), x & y)
                }
                Op::Or | Op::Xor => {
                    let ((a, x), (b, y)) = (arg(0), arg(1));
                    (a.saturating_mul(b), x | y)
                }
                Op::Shl | Op::LShr => match konst(args[1]) {
                    Some(k) if k < 64 => {
                        let (c, o) = arg(0);
                        (c, if *op == Op::Shl { (o << k) & all } else { o >> k })
                    }
                    // A shift by one of a few amounts (up to the largest
                    // its bits allow) sets the bits of any of them.
                    _ => {
                        let ((a, x), (b, y)) = (arg(0), arg(1));
                        let mut ones = 0;
                        for k in 0..=y.min(63) {
                            ones |= if *op == Op::Shl { x << k } else { x >> k };
                        }
                        (a.saturating_mul(b), ones & all)
                    }
                },
                Op::URem => match konst(args[1]) {
                    Some(k) if k > 0 => {
                        let (c, _) = arg(0);
                        let bits = 64 - (k - 1).leading_zeros();
                        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                        (c.min(k as u128), mask)
                    }
                    _ => (u128::MAX, all),
                },
                Op::Ite => {
                    let ((a, x), (b, y)) = (arg(1), arg(2));
                    (a.saturating_add(b), x | y)
                }
                Op::ToBv(_) => (2, 1),
                _ if width == 1 && store.sort(t) == Sort::Bool => (2, 1),
                _ => {
                    let mut c: u128 = 1;
                    for i in 0..args.len() {
                        c = c.saturating_mul(arg(i).0);
                    }
                    (c, all)
                }
            }
        }
        _ => (u128::MAX, all),
    };
    let by_bits = 1u128 << ones.count_ones();
    let b = (count.min(by_bits), ones);
    memo.insert(t, b);
    b
}

/// The loop head `st` is at, in any call context.
fn place_of(st: &State) -> (FuncId, At) {
    (st.top().func, st.top().at)
}

/// The call context of a state at a loop head: where each frame is.
fn context_key(st: &State) -> u64 {
    key_of(st.frames.iter().map(|f| (f.func, f.at)))
}

/// [`context_key`] of frames given by function and statement.
fn key_of(frames: impl Iterator<Item = (FuncId, At)>) -> u64 {
    let mut h = FxHasher::default();
    for (func, at) in frames {
        (func.0, at).hash(&mut h);
    }
    h.finish()
}

/// A one-way match of pattern terms (an entry's) against terms (a state's):
/// each pattern symbol stands for one term of its sort, but the symbols
/// `fixed` picks, which stand for themselves only.
pub(crate) struct Matcher<'s> {
    store: &'s TermStore,
    pub binding: FxHashMap<SymId, TermId>,
    /// Pairs already matched (terms are DAGs).
    done: FxHashSet<(TermId, TermId)>,
    fixed: &'s dyn Fn(SymId) -> bool,
}

impl<'s> Matcher<'s> {
    pub fn new(store: &'s TermStore, fixed: &'s dyn Fn(SymId) -> bool) -> Matcher<'s> {
        Matcher {
            store,
            binding: FxHashMap::default(),
            done: FxHashSet::default(),
            fixed,
        }
    }

    /// Whether `p` matches `t`, extending the binding.
    pub fn term(&mut self, p: TermId, t: TermId) -> bool {
        if p == t {
            // The same term: its symbols stand for themselves.
            let syms = self.store.symbols(p);
            if syms.is_empty() {
                return true;
            }
            if self.done.contains(&(p, t)) {
                return true;
            }
            for &s in syms {
                let me = self.store.symbol_term_of(s);
                if *self.binding.entry(s).or_insert(me) != me {
                    return false;
                }
            }
            self.done.insert((p, t));
            return true;
        }
        if self.done.contains(&(p, t)) {
            return true;
        }
        let ok = match (self.store.node(p), self.store.node(t)) {
            (Node::Sym(s), _) if (self.fixed)(*s) => false,
            (Node::Sym(s), _) => self.store.sort(p) == self.store.sort(t) && *self.binding.entry(*s).or_insert(t) == t,
            (Node::App(op, args), Node::App(op2, args2)) if op == op2 && args.len() == args2.len() => {
                let pairs: Vec<(TermId, TermId)> = args.iter().copied().zip(args2.iter().copied()).collect();
                pairs.into_iter().all(|(a, b)| self.term(a, b))
            }
            _ => false,
        };
        if ok {
            self.done.insert((p, t));
        }
        ok
    }
}

/// The binding under which `e`'s store is `st`'s, if there is one.
fn match_store(store: &TermStore, e: &Entry, st: &State) -> Option<FxHashMap<SymId, TermId>> {
    if e.frames.len() != st.frames.len() || e.memory.len() != st.memory.len() {
        return None;
    }
    let shape_ok = e.frames.iter().zip(&st.frames).all(|((func, at, ret, vars), f)| {
        *func == f.func && *at == f.at && *ret == f.ret_dst && vars.len() == f.vars.len()
    }) && e.memory.iter().zip(&st.memory).all(|(a, b)| a.len() == b.len());
    if !shape_ok {
        return None;
    }
    let mut m = Matcher::new(store, &|_| false);
    // Constants first: a differing constant rejects at once.
    let differ = |p: TermId, t: TermId| p != t && store.symbols(p).is_empty();
    // (Frames at the same statements have the same live variables.)
    for ((.., vars), f) in e.frames.iter().zip(&st.frames) {
        if vars.iter().zip(&f.vars).any(|(p, t)| p.is_some_and(|p| differ(p, *t))) {
            return None;
        }
    }
    for (a, b) in e.memory.iter().zip(&st.memory) {
        if Rc::ptr_eq(a, b) {
            continue;
        }
        for (p, q) in a.unshared(b) {
            if p.iter().zip(q.iter()).any(|(x, y)| differ(*x, *y)) {
                return None;
            }
        }
    }
    for ((.., vars), f) in e.frames.iter().zip(&st.frames) {
        if !vars.iter().zip(&f.vars).all(|(p, t)| p.is_none_or(|p| m.term(p, *t))) {
            return None;
        }
    }
    for (k, (a, b)) in e.memory.iter().zip(&st.memory).enumerate() {
        for (i, (p, q)) in a.pages().zip(b.pages()).enumerate() {
            // A shared page of constants matches whatever the binding.
            if Rc::ptr_eq(p, q) && !e.symbolic_pages[k][i] {
                continue;
            }
            if !p.iter().zip(q.iter()).all(|(x, y)| m.term(*x, *y)) {
                return None;
            }
        }
    }
    Some(m.binding)
}

/// Whether `e`'s guard holds under `binding` wherever `st`'s path condition
/// does: `Some(by_solver)` if shown, `None` if not (or undecided).
fn guard_follows(
    store: &mut TermStore,
    e: &Entry,
    binding: &FxHashMap<SymId, TermId>,
    path: &FxHashSet<TermId>,
    st: &State,
    queries: &mut usize,
    solver: &mut dyn Implies,
) -> Option<bool> {
    // Constraints over unmatched symbols only are satisfiable whatever the
    // matched ones are: they share no symbol with the bound part.
    let mut bound_part = Vec::new();
    for &c in &e.guard {
        let syms = store.symbols(c);
        let bound = syms.iter().filter(|s| binding.contains_key(s)).count();
        if bound == syms.len() {
            bound_part.push(c);
        } else if bound > 0 {
            return None;
        }
    }
    let mut goals = Vec::new();
    for c in bound_part {
        let g = store.substitute(c, binding)?;
        if store.is_false(g) {
            return None;
        }
        if !store.is_true(g) && !path.contains(&g) {
            goals.push(g);
        }
    }
    if goals.is_empty() {
        return Some(false);
    }
    if *queries >= MAX_QUERIES {
        return None;
    }
    *queries += 1;
    solver.implies(store, &st.path, &goals).then_some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::{Model, Value};
    use std::collections::BTreeSet;

    const WIDTH: u8 = 4;

    /// Decides implications by trying every value of the (one) input.
    struct Exhaustive(SymId);

    impl Implies for Exhaustive {
        fn implies(&mut self, store: &mut TermStore, path: &[TermId], goals: &[TermId]) -> bool {
            (0..1u64 << WIDTH).all(|bits| {
                let model: Model = [(self.0, Value::Bv { width: WIDTH, bits })].into_iter().collect();
                !store.satisfies(path, &model) || store.satisfies(goals, &model)
            })
        }
    }

    fn bv(store: &mut TermStore, bits: u64) -> TermId {
        store.constant(Value::Bv { width: WIDTH, bits })
    }

    /// The do-while of seed 003, `do { i-- } while (i > 0)`: the state on
    /// entering the loop, `(true | i = i0)`, and after one iteration,
    /// `(i0 > 0 | i = i0 - 1)`, with `i` the state's one variable.
    fn do_while(store: &mut TermStore) -> (State, State, SymId) {
        let undef = store.constant(Value::Undef);
        let i0 = store.symbol_term("i0", braid_term::Sort::Bv(WIDTH));
        let Node::Sym(sym) = *store.node(i0) else {
            unreachable!()
        };
        let mut before = State::new(FuncId(0), 1, undef);
        before.top_mut().at = 3;
        before.set(VarId(0), i0);
        let mut after = before.clone();
        let one = bv(store, 1);
        let zero = bv(store, 0);
        let dec = store.app(Op::Sub, &[i0, one]).expect("i0 - 1");
        let positive = store.app(Op::Gt, &[i0, zero]).expect("i0 > 0");
        after.set(VarId(0), dec);
        after.path.push(positive);
        (before, after, sym)
    }

    /// Every concrete value of `i` the summary at the head stands for.
    fn concrete(store: &TermStore, merge: &LoopMerge, sym: SymId) -> BTreeSet<u64> {
        let mut out = BTreeSet::new();
        for summary in merge.summaries.values() {
            for e in &summary.entries {
                for bits in 0..1u64 << WIDTH {
                    let model: Model = [(sym, Value::Bv { width: WIDTH, bits })].into_iter().collect();
                    if store.satisfies(&e.guard, &model) {
                        let i = e.frames[0].3[0].expect("i is live");
                        let Ok(Value::Bv { bits, .. }) = store.eval(i, &model) else {
                            unreachable!()
                        };
                        out.insert(bits);
                    }
                }
            }
        }
        out
    }

    fn merge(store: &mut TermStore, first: &State, second: &State, sym: SymId) -> (LoopMerge, bool) {
        let live: &[LiveSet] = &[[true].into_iter().collect()];
        let mut merge = LoopMerge::default();
        let mut solver = Exhaustive(sym);
        assert_eq!(merge.find(store, first, || "head".into(), &mut solver), None);
        merge.add(store, first, live, 0);
        let subsumed = match merge.find(store, second, || "head".into(), &mut solver) {
            Some(Verdict::Subsumed { .. }) => true,
            None => {
                merge.add(store, second, live, 1);
                false
            }
            other => panic!("{other:?}"),
        };
        (merge, subsumed)
    }

    #[test]
    fn seed_003_do_while_merges_symmetrically_to_the_union() {
        let mut store = TermStore::new();
        let (before, after, sym) = do_while(&mut store);
        let union: BTreeSet<u64> = (0..1u64 << WIDTH).collect();
        // Before, then after: the state after one iteration is one the loop
        // started in (i0 - 1 for i0 > 0 is some i0): it adds nothing.
        let (ab, subsumed) = merge(&mut store, &before, &after, sym);
        assert!(subsumed);
        assert_eq!(ab.stats.subsumed, 1);
        // After, then before: the entering state is not within the first
        // (i0 - 1 never is 7 = the largest), so both entries stay, with
        // overlapping guards (i0 = 3 satisfies both).
        let (ba, subsumed) = merge(&mut store, &after, &before, sym);
        assert!(!subsumed);
        assert_eq!(ba.stats.entries, 2);
        // Both ways round: the same concrete states, the union of the two.
        assert_eq!(concrete(&store, &ab, sym), union);
        assert_eq!(concrete(&store, &ba, sym), union);
        let after_only: BTreeSet<u64> = (0..7).collect();
        let (only, _) = merge(&mut store, &after, &after, sym);
        assert_eq!(concrete(&store, &only, sym), after_only);
    }

    #[test]
    fn an_entry_whose_guard_constrains_a_matched_input_needs_the_implication() {
        // Entry: (i0 > 0 | i = i0 - 1). Arrival: (true | i = i0 - 1): the
        // same store, but more paths: not subsumed.
        let mut store = TermStore::new();
        let (_, after, sym) = do_while(&mut store);
        let mut wider = after.clone();
        wider.path.clear();
        let (m, subsumed) = merge(&mut store, &after, &wider, sym);
        assert!(!subsumed);
        assert_eq!(m.stats.entries, 2);
        // The other way round it is.
        let (_, subsumed) = merge(&mut store, &wider, &after, sym);
        assert!(subsumed);
    }

    #[test]
    fn merging_at_loop_heads_is_given_up_when_barren_and_costly() {
        let ms = std::time::Duration::from_millis;
        // Under the floor of work, or under its share of the run, or with
        // too few entries: kept.
        let mut m = LoopMerge {
            time: ms(GIVE_UP_AFTER_MS),
            stats: LoopStats {
                entries: GIVE_UP_AFTER_ENTRIES - 1,
                ..LoopStats::default()
            },
            ..LoopMerge::default()
        };
        assert!(!m.give_up_if_barren(ms(GIVE_UP_AFTER_MS)));
        m.stats.entries += 1;
        m.time = ms(GIVE_UP_AFTER_MS - 1);
        assert!(!m.give_up_if_barren(ms(GIVE_UP_AFTER_MS)));
        m.time = ms(GIVE_UP_AFTER_MS);
        assert!(!m.give_up_if_barren(ms(10 * GIVE_UP_AFTER_MS)));
        // An arrival subsumed somewhere: merging pays, whatever it costs.
        m.stats.subsumed = 1;
        assert!(!m.give_up_if_barren(ms(GIVE_UP_AFTER_MS)));
        assert!(!m.given_up);
        // Barren, past the floor and past its share: every head unrolled.
        m.stats.subsumed = 0;
        assert!(m.give_up_if_barren(ms(2 * GIVE_UP_AFTER_MS)));
        assert!(m.given_up && m.summaries.is_empty());
        assert_eq!(m.stats.given_up_after_ms, Some(2 * GIVE_UP_AFTER_MS));
        assert!(m.unrolled(&[]));
        // Once: the first time is the one reported.
        assert!(!m.give_up_if_barren(ms(3 * GIVE_UP_AFTER_MS)));
        assert_eq!(m.stats.given_up_after_ms, Some(2 * GIVE_UP_AFTER_MS));
    }

    #[test]
    fn a_loop_head_whose_splits_fail_in_every_context_splits_no_more() {
        let mut p = Place {
            split_failures: MAX_BARREN_SPLIT_FAILURES - 1,
            ..Place::default()
        };
        assert!(!p.barren());
        p.split_failures += 1;
        assert!(p.barren());
        p.subsumed = 1;
        assert!(!p.barren());
    }

    #[test]
    fn values_are_bounded_by_their_shape_and_their_bits() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let y = s.symbol_term("y", Sort::Bv(32));
        let c = |s: &mut TermStore, n: u64| s.constant(Value::bv(32, n));
        // (x & 1) % 5 + ... % 5: five values at most.
        let one = c(&mut s, 1);
        let five = c(&mut s, 5);
        let bit = s.app(Op::And, &[x, one]).unwrap();
        let sum = s.app(Op::Add, &[y, bit]).unwrap();
        let modulo = s.app(Op::URem, &[sum, five]).unwrap();
        assert!(few_values(&s, &[modulo], 5));
        assert!(!few_values(&s, &[modulo], 4));
        // A set of four bits: 1 << (x & 3) or-ed in, sixteen values.
        let three = c(&mut s, 3);
        let amount = s.app(Op::And, &[x, three]).unwrap();
        let flag = s.app(Op::Shl, &[one, amount]).unwrap();
        let set = s.app(Op::Or, &[modulo, flag]).unwrap();
        let again = s.app(Op::Or, &[set, flag]).unwrap();
        assert!(few_values(&s, &[flag], 4));
        assert!(few_values(&s, &[again], 16));
        // The bytes of one word count once; a sum of inputs has many values.
        let eight = c(&mut s, 8);
        let high = s.app(Op::LShr, &[modulo, eight]).unwrap();
        let bytes = [
            s.app(Op::Trunc(8), &[modulo]).unwrap(),
            s.app(Op::Trunc(8), &[high]).unwrap(),
        ];
        assert!(few_values(&s, &bytes, 5));
        let wide = s.app(Op::Add, &[x, y]).unwrap();
        assert!(!few_values(&s, &[wide], 1 << 20));
    }
}
