//! State merging in the forking engine (seed 004): static (`ssm`, states
//! picked in topological order and merged where they meet) and dynamic
//! (`dsm`, a driving searcher plus fast-forwarding of states that lag behind
//! a similar predecessor of another state).
//!
//! Two states at the same block start merge into one whose path condition
//! is the common prefix of theirs plus the disjunction of the rest, and
//! whose differing variables and memory cells become `ite(rest₁, v₁, v₂)`.
//! They must agree on everything that is not a value: the call stack, the
//! allocations and their sizes, the inputs read, and (under a loop bound)
//! the loop-head visits. Similarity decides whether a possible merge is
//! made: always (`--merge all`), never (`none`), or by query count
//! estimation (`qce`, equation 1): every hot variable equal in both states
//! or symbolic in at least one.
//!
//! A merged state gives one test; paths merged into it that first covered a
//! branch keep their condition (an [`Alt`]), and when the state ends each
//! such path that no test covers yet gets a test of its own. So the tests
//! cover what the exploration covered, as dse's do.

use super::state::{Alt, Merge, PageMemo, State};
use super::Dse;
use crate::config::SearchKind;
use crate::qce::{Cell, Counts, Qce, QceParams};
use crate::results::Branch;
use crate::search::{Searcher, StateId, StateInfo};
use braid_ir::{natural_loops, Module, Stmt, StmtIdx, VarId};
use braid_term::{TermId, TermStore};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::collections::{BTreeSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Which of two mergeable states are merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Similarity {
    None,
    All,
    Qce,
}

impl Similarity {
    pub fn parse(s: &str) -> Option<Similarity> {
        match s {
            "none" => Some(Similarity::None),
            "all" => Some(Similarity::All),
            "qce" => Some(Similarity::Qce),
            _ => None,
        }
    }
}

/// How merge partners are brought together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Topological order of the CFG (Algorithm 1 with a static pick).
    Static,
    /// Algorithm 2: the driving searcher, overridden by fast-forwarding of
    /// states similar to one of another state's last `delta` block starts.
    Dynamic { delta: usize, driver: SearchKind },
}

/// dsm's driving searcher unless `--driver` names one. Fast-forwarding
/// brings a lagging state to a state ahead of it only once the lagging
/// state stands where the other has been; after a fork the sibling left
/// behind stands at the other side of the branch, where the state ahead
/// never was, and under dfs it moves only after the state ahead's whole
/// subtree is done: on Table 1 dsm driven by dfs merged nothing on Array
/// Index, Find Max and Kadane (662 attempts on Kadane, none similar: states
/// of different iterations). Kuznetsov et al. drove it with KLEE's random
/// searchers, which move the sibling too. random-path alone merged most
/// but held 3x dse's memory on Heap Sort (its breadth); random-path and
/// dfs in turns stayed within 2x of dse's time and memory on every row
/// (bench/RESULTS.md).
pub const DSM_DRIVER: SearchKind = SearchKind::Interleaved;

#[derive(Clone, Copy, Debug)]
pub struct Merging {
    pub strategy: Strategy,
    pub similarity: Similarity,
    pub qce: QceParams,
    /// Time one query on a merged state may take before the state is split
    /// back instead, in milliseconds.
    pub split_after_ms: u32,
    /// `Some(share)`: give merging up and explore with dse from the start
    /// once resident memory is past `share` of the run's limit
    /// ([`FALLBACK`]); `None`: merge to the end.
    pub fallback: Option<f64>,
    /// `Some(ms)`: after merging has run `ms` alone, dse explores from the
    /// start alongside it, in turns that give merging [`RACE_SHARE`] of
    /// dse's time, and whichever finishes first ends the run; `None`:
    /// merging alone.
    pub race_after_ms: Option<u32>,
    /// dse races on a thread of its own where the machine has a second
    /// core (`second.rs`, `Dse::race_on_thread`), rather than in turns on
    /// the run's thread. Off by default: on Table 1 (bench/RESULTS.md,
    /// forty-eighth session) the thread took ssm's geometric mean against
    /// dse from 2.72 to 4.22 and dsm's from 1.55 to 1.98, but the peak
    /// past twice dse's on four rows of 17-46 MB (a second Z3 context, and
    /// both explorations' memory at once; the red-black tree under dsm
    /// 2.58x), where the turns stay within it but on Calc Parser under
    /// ssm (2.08x).
    pub race_threads: bool,
    /// `Some(ms)`: merging is given up once its own slices have taken `ms`
    /// (dse, raced, goes on alone); `None`: no such bound.
    pub merge_for_ms: Option<u32>,
}

impl Merging {
    /// ssm's or dsm's default settings (`strategy`).
    pub fn of(strategy: Strategy) -> Merging {
        Merging {
            strategy,
            similarity: Similarity::Qce,
            qce: QceParams::default(),
            split_after_ms: SPLIT_AFTER_MS,
            fallback: Some(FALLBACK),
            race_after_ms: Some(RACE_AFTER_MS),
            race_threads: false,
            merge_for_ms: None,
        }
    }
}

/// The default of [`Merging::fallback`], multise's memory bound too: merged
/// states hold `ite` values, and the topological order keeps every state
/// that waits for its partners alive. On a printf implementation's format
/// parser (4 symbolic characters, `--max-memory 300`) ssm stopped at the
/// limit with 371 branches covered where dse covered 412 in 10 s; handed
/// to dse at 152 MB, it covers 412.
pub const FALLBACK: f64 = braid_guard::GIVE_UP_MEMORY;

/// The default of [`Merging::race_after_ms`]. When dse wins, the run takes
/// about `1 + RACE_SHARE` times dse's time plus the head start, past 2x
/// where dse needs less than twice the head start: with 200 ms, the
/// containers' B-tree (dse 120-150 ms) took 310-350 ms under ssm and dsm;
/// with 50 ms, 160-180 ms. Merging's wins within the head start that it
/// no longer covers take up to `1 + 1 / RACE_SHARE` times as long (Table
/// 1's Heap Sort under ssm 70 -> 190-220 ms, dse 1.1-1.4 s; Queue 80 ->
/// 160-230 ms, dse 0.8-0.9 s).
pub const RACE_AFTER_MS: u32 = 50;

/// Merging's time in the race, as a share of dse's (once its head start
/// is spent). When dse finishes first, the run took about `1 + RACE_SHARE`
/// times what dse alone takes; when merging does, about `1 + 1 /
/// RACE_SHARE` times merging's own time. With equal turns (1.0) the first
/// was 2x and more (Table 1's Quick Sort under ssm: 1.47-1.98 s against
/// dse's 0.70-0.77 s), past the bound of 2x dse; merging's wins are
/// large where it wins (most finish within the head start), so a third of
/// them can go.
pub const RACE_SHARE: f64 = 0.5;

/// The memory an exploration holds, as the races count it: this thread's
/// live heap and what Z3 holds for questions (made by Z3's own allocator,
/// which the heap's count does not see; its contexts' own memory left
/// out, as the first question of either racer makes it). dsm on
/// bench/multise's symarith: 8 merged questions, and Z3's memory for
/// them, took the run to 129 MB against dse's 62 while merging's heap
/// stayed under dse's.
pub(crate) fn footprint() -> i64 {
    braid_budget::heap::live_bytes() + braid_solver::z3_working() as i64
}

/// An engine's state dropped (merging given up), its memory goes back to
/// the system: Z3's contexts on this thread that no solver uses any more
/// ([`braid_solver::renew_contexts`]), then what the allocators keep free.
pub(crate) fn release_memory(budget: &braid_budget::Budget) {
    braid_solver::renew_contexts();
    budget.release_memory();
}

/// The races' memory rule: once dse has run as long as merging, both alive
/// cost more than twice dse's memory when merging's growth of its
/// [`footprint`] outgrows dse's plus the memory in use before both
/// (`base`); [`HEAP_SHARE`] of that, since resident memory is more than
/// what the heap holds (Calc Parser under ssm and dsm peaked at 128-149 MB
/// against dse's 65-70 with the whole of it). Why merging is then given
/// up, if it is.
pub(crate) fn heap_outgrown(
    (merging_heap, merging_time): (i64, std::time::Duration),
    (dse_heap, dse_time): (i64, std::time::Duration),
    base: i64,
) -> Option<String> {
    (dse_time >= merging_time && heap_over(merging_heap, dse_heap, base))
        .then(|| outgrown_reason(merging_heap, merging_time, dse_heap, base))
}

/// Whether merging's heap growth is past [`HEAP_SHARE`] of dse's and the
/// memory in use before both (`base`).
pub(crate) fn heap_over(merging_heap: i64, dse_heap: i64, base: i64) -> bool {
    merging_heap as f64 > HEAP_SHARE * (base + dse_heap) as f64
}

/// Why [`heap_over`] gave merging up, having run `merging_time`.
pub(crate) fn outgrown_reason(
    merging_heap: i64,
    merging_time: std::time::Duration,
    dse_heap: i64,
    base: i64,
) -> String {
    let mb = |b: i64| b.max(0) >> 20;
    format!(
        "merging held {} MB at {} ms, more than three quarters of dse's {} MB and the {} MB in use before; dse goes on alone",
        mb(merging_heap),
        merging_time.as_millis(),
        mb(dse_heap),
        mb(base)
    )
}

/// What merging's heap may grow to in a race, as a share of dse's growth
/// and the memory in use before both ([`heap_outgrown`]).
pub(crate) const HEAP_SHARE: f64 = 0.75;

/// The default of [`Merging::split_after_ms`].
pub const SPLIT_AFTER_MS: u32 = 250;
/// Frames from the top whose QCE counts decide similarity, and from the
/// bottom that order states topologically.
const QCE_FRAMES: usize = 64;

/// A state's place in topological order: per frame, outermost first, for
/// each loop around its statement (outermost first) the loop head's
/// reverse-post-order rank and visits, then the statement's rank. So states
/// in an earlier iteration come first, and a loop's states all come before
/// the states past it (an inner loop sits at its head's place).
type TopoKey = Vec<Vec<(u32, u32)>>;

/// Something whose values decide similarity: a variable of a frame, or a
/// memory cell at a constant offset from the address a variable holds.
/// Frames count from the top (0: the running one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Hot {
    Var(usize, VarId),
    Cell(usize, Cell),
}

/// A hot item's value as similarity sees it: a constant, some symbolic
/// value (similar to anything), or none (a cell whose base is not a
/// concrete address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sig {
    Const(TermId),
    Symbolic,
    Missing,
}

/// What merging knows about the program, and its per-run bookkeeping.
pub(crate) struct Merger<'m> {
    pub config: Merging,
    qce: Qce<'m>,
    /// Per function and statement: its reverse-post-order rank.
    rank: Vec<Vec<u32>>,
    /// Per function and statement: the heads of the loops around it,
    /// outermost first.
    nest: Vec<Vec<Vec<StmtIdx>>>,
    /// Per function and statement: whether a block starts there (entry,
    /// label target, after a branch or a call), the points where states are
    /// merged and histories recorded.
    block_start: Vec<Vec<bool>>,
    module: &'m Module,
    /// Per function: live variables, made when first needed.
    live: Vec<std::cell::OnceCell<braid_ir::Liveness>>,
    /// Branches some written test is known to cover.
    pub test_covered: FxHashSet<Branch>,
    /// Live states at each block-start location (stale ids are dropped
    /// lazily), the newest [`MAX_PEERS`] of them at least.
    pub at_location: FxHashMap<u64, Vec<StateId>>,
    /// Locations where merging made a query too hard, and no longer merges.
    pub given_up: FxHashSet<u64>,
    /// The hot items per call stack of locations (function, statement).
    hot_at: FxHashMap<Vec<(u32, StmtIdx)>, Rc<[Hot]>>,
}

impl<'m> Merger<'m> {
    pub fn new(module: &'m Module, config: Merging) -> Merger<'m> {
        let mut rank = Vec::new();
        let mut nest = Vec::new();
        for f in &module.functions {
            let (mut loops, order) = natural_loops(f);
            let mut r: Vec<u32> = order.into_iter().map(|x| x as u32).collect();
            r.push(u32::MAX);
            rank.push(r);
            loops.sort_by_key(|l| std::cmp::Reverse(l.body.iter().filter(|b| **b).count()));
            nest.push(
                (0..f.stmts.len())
                    .map(|s| loops.iter().filter(|l| l.body[s]).map(|l| l.head).collect())
                    .collect(),
            );
        }
        let block_start = module
            .functions
            .iter()
            .map(|f| {
                let mut b = vec![false; f.stmts.len() + 1];
                b[0] = true;
                for (_, s) in &f.labels {
                    b[*s as usize] = true;
                }
                for (i, s) in f.stmts.iter().enumerate() {
                    if matches!(s, Stmt::If { .. } | Stmt::Call { .. }) {
                        b[i + 1] = true;
                    }
                }
                b
            })
            .collect();
        Merger {
            config,
            qce: Qce::new(module, config.qce),
            rank,
            nest,
            block_start,
            module,
            live: module.functions.iter().map(|_| std::cell::OnceCell::new()).collect(),
            test_covered: FxHashSet::default(),
            at_location: FxHashMap::default(),
            given_up: FxHashSet::default(),
            hot_at: FxHashMap::default(),
        }
    }

    /// Whether variable `v` of frame `k` may still be read: at the top
    /// frame's statement, or at a caller's return location.
    fn live(&self, st: &State, k: usize, v: usize) -> bool {
        let f = &st.frames[k];
        let at = if k + 1 == st.frames.len() { f.at } else { f.at + 1 };
        self.live[f.func.0 as usize]
            .get_or_init(|| braid_ir::Liveness::new(self.module.func(f.func)))
            .at(at)
            .contains(v)
    }

    pub fn at_block_start(&self, st: &State) -> bool {
        let f = st.top();
        self.block_start[f.func.0 as usize]
            .get(f.at as usize)
            .copied()
            .unwrap_or(false)
    }

    pub fn topo_key(&self, st: &State) -> TopoKey {
        // The outermost frames only: below them a deep recursion's states
        // keep the order of their ids (a key of the whole stack at every
        // step took quadratic time: 27 s for 9 000 nested calls).
        st.frames
            .iter()
            .take(QCE_FRAMES)
            .map(|f| {
                let g = f.func.0 as usize;
                let rank = |s: StmtIdx| self.rank[g].get(s as usize).copied().unwrap_or(u32::MAX);
                let mut key: Vec<(u32, u32)> = self.nest[g]
                    .get(f.at as usize)
                    .into_iter()
                    .flatten()
                    .map(|h| (rank(*h), f.visits.get(h).copied().unwrap_or(0)))
                    .collect();
                key.push((rank(f.at), 0));
                key
            })
            .collect()
    }

    /// A hash of the call stack's locations.
    pub fn location_hash(st: &State) -> u64 {
        let mut h = FxHasher::default();
        for f in &st.frames {
            (f.func.0, f.at, f.ret_dst.map(|v| v.0)).hash(&mut h);
        }
        h.finish()
    }

    /// The run's budget bounds the QCE analysis too.
    pub fn set_budget(&mut self, budget: &braid_budget::Budget) {
        self.qce.set_budget(budget);
    }

    /// The hot variables and cells of the whole call stack (§3.2): local
    /// counts at the top frame's statement and at each caller's return
    /// location, summed into the global `Q_t`; those with
    /// `Q_add > α·Q_t`, and those a later address depends on. `None` when
    /// the budget stopped the analysis.
    pub fn hot(&mut self, st: &State) -> Option<Rc<[Hot]>> {
        let key: Vec<(u32, StmtIdx)> = Self::qce_frames(st).iter().map(|f| (f.func.0, f.at)).collect();
        if let Some(h) = self.hot_at.get(&key) {
            return Some(h.clone());
        }
        let hot: Rc<[Hot]> = self.hot_items(st)?.into();
        self.hot_at.insert(key, hot.clone());
        Some(hot)
    }

    /// The frames whose counts QCE sums: the top [`QCE_FRAMES`] (a deep
    /// recursion's callers far below count for little, and a key of its
    /// whole stack per block start would cost quadratic time and memory).
    fn qce_frames(st: &State) -> &[super::state::Frame] {
        &st.frames[st.frames.len().saturating_sub(QCE_FRAMES)..]
    }

    fn hot_items(&mut self, st: &State) -> Option<Vec<Hot>> {
        let frames = Self::qce_frames(st);
        let last = frames.len() - 1;
        // From the top: frame `i` of `frames` is `last - i` down.
        let counts: Vec<Rc<Counts>> = frames
            .iter()
            .enumerate()
            .map(|(i, f)| self.qce.counts(f.func, if i == last { f.at } else { f.at + 1 }))
            .collect::<Option<_>>()?;
        let threshold = self.config.qce.alpha * counts.iter().map(|c| c.total).sum::<f64>();
        let mut hot = Vec::new();
        for (i, c) in counts.iter().enumerate() {
            for &(v, add, addressed) in &c.vars {
                if add > threshold || addressed {
                    hot.push(Hot::Var(last - i, v));
                }
            }
            for (cell, add, addressed) in &c.cells {
                if *add > threshold || *addressed {
                    hot.push(Hot::Cell(last - i, *cell));
                }
            }
        }
        Some(hot)
    }

    /// The value of a hot item in `st` (`None`: a cell whose base does not
    /// hold a concrete address, or lies outside its allocation).
    fn value(store: &TermStore, st: &State, item: Hot) -> Option<TermId> {
        match item {
            Hot::Var(d, v) => Some(st.frames[st.frames.len() - 1 - d].vars[v.0 as usize]),
            Hot::Cell(d, (base, k)) => {
                let p = st.frames[st.frames.len() - 1 - d].vars[base.0 as usize];
                let Some(braid_term::Value::Addr { alloc, offset }) = store.as_const(p) else {
                    return None;
                };
                let at = usize::try_from(offset.checked_add(k)?).ok()?;
                st.memory.get(alloc as usize)?.get(at)
            }
        }
    }

    /// `h` of §4.3: a hash of the values of the hot variables and cells
    /// (the state's signature), symbolic ones all hashing alike.
    pub fn store_hash(st: &State) -> u64 {
        let mut h = FxHasher::default();
        for sig in st.signature.as_deref().unwrap_or_default() {
            match sig {
                Sig::Const(t) => Some(*t),
                Sig::Symbolic | Sig::Missing => None,
            }
            .hash(&mut h);
        }
        h.finish()
    }

    /// The values of `st`'s hot items (`None`: QCE has no counts there).
    /// A state computes them once per arrival at a block start
    /// ([`State::signature`]) rather than once per state it meets there.
    pub fn signature(&mut self, store: &TermStore, st: &State) -> Option<Rc<[Sig]>> {
        if self.config.similarity != Similarity::Qce {
            return None;
        }
        let hot = self.hot(st)?;
        let sig = hot.iter().map(|&item| match Self::value(store, st, item) {
            None => Sig::Missing,
            Some(t) if store.as_const(t).is_some() => Sig::Const(t),
            Some(_) => Sig::Symbolic,
        });
        Some(sig.collect())
    }

    /// `~` of Algorithm 1: whether two mergeable states should merge. With
    /// QCE, every hot variable and cell must be equal in both states or
    /// symbolic in at least one (equation 1).
    pub fn similar(&mut self, store: &TermStore, a: &State, b: &State) -> bool {
        match self.config.similarity {
            Similarity::None => false,
            Similarity::All => true,
            Similarity::Qce => {
                let sig = |me: &mut Self, st: &State| st.signature.clone().or_else(|| me.signature(store, st));
                let (Some(x), Some(y)) = (sig(self, a), sig(self, b)) else {
                    return false;
                };
                let hot_agree = x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| p == q || *p == Sig::Symbolic || *q == Sig::Symbolic);
                hot_agree && !concrete_cells_differ(store, a, b)
            }
        }
    }
}

/// The states a state arriving at a location tries to merge with: the
/// newest this many there. A parser's loop head gathers thousands of states
/// that differ in a concrete cell (its position) and never merge; trying
/// each arrival against all of them made merging quadratic (62 million
/// attempts in a 10 s run on a JSON tokenizer).
pub const MAX_PEERS: usize = 32;

/// Whether some memory cell holds a different constant in `a` and in `b`.
/// The analysis does not see which cells are hot (a compiled program keeps
/// its locals and its data structures in memory), so every cell counts as
/// hot: a merge would make a concrete value (a pointer, a count, a flag) a
/// choice that every later use of it branches on again.
fn concrete_cells_differ(store: &TermStore, a: &State, b: &State) -> bool {
    a.memory.iter().zip(&b.memory).any(|(x, y)| {
        x.unshared(y).any(|(p, q)| {
            p.iter()
                .zip(q.iter())
                .any(|(s, t)| s != t && store.as_const(*s).is_some() && store.as_const(*t).is_some())
        })
    })
}

/// Whether `a` and `b` can become one state: equal call stacks (and loop
/// visits under a loop bound), allocations and inputs, and path conditions
/// that differ after their common prefix.
fn mergeable(a: &State, b: &State, loop_bound: bool) -> bool {
    a.frames.len() == b.frames.len()
        && a.frames.iter().zip(&b.frames).all(|(f, g)| {
            f.func == g.func && f.at == g.at && f.ret_dst == g.ret_dst && (!loop_bound || f.visits == g.visits)
        })
        && a.memory.len() == b.memory.len()
        && a.memory.iter().zip(&b.memory).all(|(x, y)| x.len() == y.len())
        && a.inputs == b.inputs
        && a.path != b.path
}

impl Dse<'_> {
    /// Fast-forwarding statistics for a state about to run.
    pub(super) fn note_forwarding(&mut self, st: &mut State, forwarded: bool) {
        if forwarded && !st.forwarding {
            self.result.stats.fast_forwards += 1;
        }
        st.forwarding = forwarded;
    }

    /// A state that just ran: at a block start it records where it is (its
    /// history for dynamic merging) and merges with the states waiting
    /// there that it is similar to.
    pub(super) fn arrive(
        &mut self,
        mut s: State,
        states: &mut FxHashMap<StateId, State>,
        sched: &mut Scheduler,
    ) -> State {
        let merger = self.merger.as_mut().expect("merging is on");
        s.signature = None;
        if let Some(prev) = s.current.take() {
            if let Some(delta) = sched.delta() {
                s.history.push_back(prev);
                while s.history.len() > delta {
                    s.history.pop_front();
                }
            }
        }
        if !merger.at_block_start(&s) {
            return s;
        }
        let loc = Merger::location_hash(&s);
        let peers: Vec<StateId> = match merger.at_location.get_mut(&loc) {
            // Merges here made queries too hard once: no more of them.
            _ if merger.given_up.contains(&loc) => Vec::new(),
            Some(ids) => {
                ids.retain(|id| states.contains_key(id));
                ids[ids.len().saturating_sub(MAX_PEERS)..].to_vec()
            }
            None => Vec::new(),
        };
        if !peers.is_empty() {
            s.signature = merger.signature(&self.store, &s);
        }
        for id in peers {
            let Some(peer) = states.get(&id) else { continue };
            if let Some(mut m) = self.try_merge(peer, &s, loc) {
                let merger = self.merger.as_mut().expect("merging is on");
                m.signature = merger.signature(&self.store, &m);
                let peer = states.remove(&id).expect("a live peer");
                sched.forget(id, &peer);
                self.live -= 1;
                if peer.forwarding || s.forwarding {
                    self.result.stats.fast_forwards_merged += 1;
                }
                s = m;
            }
        }
        if s.signature.is_none() {
            let merger = self.merger.as_mut().expect("merging is on");
            s.signature = merger.signature(&self.store, &s);
        }
        s.current = Some((loc, Merger::store_hash(&s)));
        s
    }

    /// `a` and `b` merged, if they are mergeable and similar.
    fn try_merge(&mut self, a: &State, b: &State, location: u64) -> Option<State> {
        let loop_bound = self.config.limits.loop_bound.is_some();
        if !mergeable(a, b, loop_bound) {
            return None;
        }
        self.result.stats.merge_attempts += 1;
        let merger = self.merger.as_mut().expect("merging is on");
        if !merger.similar(&self.store, a, b) {
            return None;
        }
        let m = self.merge(a, b, location)?;
        self.result.stats.states_merged += 1;
        Some(m)
    }

    /// The merged state, or `None` when some differing values cannot form
    /// one `ite` (values of different sorts).
    fn merge(&mut self, a: &State, b: &State, location: u64) -> Option<State> {
        let common = a.path.iter().zip(&b.path).take_while(|(x, y)| x == y).count();
        let conj = |store: &mut TermStore, cs: &[TermId]| {
            let t = store.bool(true);
            cs.iter().fold(t, |acc, c| store.and(acc, *c))
        };
        if common == a.path.len() || common == b.path.len() {
            // One path condition contains the other: not two distinct paths.
            return None;
        }
        // Conjuncts both paths have after the common prefix (the branches
        // they took alike after they parted) stay conjuncts of the merged
        // path; only what differs goes into the disjunction, which is then
        // often `x ∨ ¬x`, true. Each side's selecting condition is its own
        // remaining conjuncts: under the merged path they are equivalent to
        // its whole rest.
        let (rest_a, rest_b) = (&a.path[common..], &b.path[common..]);
        let (in_a, in_b): (FxHashSet<TermId>, FxHashSet<TermId>) =
            (rest_a.iter().copied().collect(), rest_b.iter().copied().collect());
        let shared: Vec<TermId> = rest_a.iter().copied().filter(|c| in_b.contains(c)).collect();
        let own = |rest: &[TermId], other: &FxHashSet<TermId>| -> Vec<TermId> {
            rest.iter().copied().filter(|c| !other.contains(c)).collect()
        };
        let (own_a, own_b) = (own(rest_a, &in_b), own(rest_b, &in_a));
        // Two paths part on complementary conditions, so each keeps one of
        // its own; if not, nothing is hoisted.
        let hoist = !own_a.is_empty() && !own_b.is_empty();
        let (ca, cb) = if hoist {
            (conj(&mut self.store, &own_a), conj(&mut self.store, &own_b))
        } else {
            (conj(&mut self.store, rest_a), conj(&mut self.store, rest_b))
        };
        let mut m = a.clone();
        m.path.truncate(common);
        if hoist {
            m.path.extend(shared.iter().copied());
        }
        let either = self.store.or(ca, cb);
        if !self.store.is_true(either) {
            m.path.push(either);
        }
        for (k, (f, g)) in a.frames.iter().zip(&b.frames).enumerate() {
            for (i, (x, y)) in f.vars.iter().zip(&g.vars).enumerate() {
                if x == y {
                    continue;
                }
                // A dead variable is never read again: its merged value
                // only serves the tests' final values.
                let merger = self.merger.as_ref().expect("merging is on");
                m.frames[k].vars[i] = if merger.live(a, k, i) {
                    self.store.app(braid_term::Op::Ite, &[ca, *x, *y]).ok()?
                } else {
                    self.store.choice(ca, *x, *y)
                };
            }
        }
        for (k, (x, y)) in a.memory.iter().zip(&b.memory).enumerate() {
            if Rc::ptr_eq(x, y) || x.shares_all(y) || x == y {
                continue;
            }
            let merged = x.zip_with(y, |p, q| {
                if p == q {
                    Some(p)
                } else {
                    self.store.app(braid_term::Op::Ite, &[ca, p, q]).ok()
                }
            })?;
            m.memory[k] = Rc::new(merged);
        }
        m.multiplicity = a.multiplicity.saturating_add(b.multiplicity);
        m.steps_since_cover = a.steps_since_cover.min(b.steps_since_cover);
        m.fresh = Vec::new();
        m.alts = Vec::new();
        self.lift_alts(a, ca, &mut m.alts);
        self.lift_alts(b, cb, &mut m.alts);
        m.forwarding = false;
        m.current = None;
        m.merges.push(Merge {
            cond: ca,
            location,
            other: b.model.clone(),
            other_merges: b.merges.iter().cloned().collect(),
            common,
            merged_len: m.path.len(),
            own_path: a.path.iter().copied().collect(),
            other_path: b.path.iter().copied().collect(),
        });
        Some(m)
    }

    /// `s`'s paths that may need a test of their own, as alternatives of a
    /// state that `s` merges into under condition `c`. Forked states share
    /// their parent's alternatives, so when they merge again the copies
    /// become one, under the disjunction of their conditions (the path may
    /// have continued on either side).
    fn lift_alts(&mut self, s: &State, c: TermId, out: &mut Vec<Alt>) {
        let covered = &self.merger.as_ref().expect("merging is on").test_covered;
        let needed = |fresh: &[Branch]| fresh.iter().any(|b| !covered.contains(b));
        let mut lifted: Vec<Alt> = s.alts.iter().filter(|a| needed(&a.fresh)).cloned().collect();
        if needed(&s.fresh) {
            let t = self.store.bool(true);
            lifted.push(Alt {
                cond: t,
                fresh: s.fresh.clone(),
                model: s.model.clone(),
            });
        }
        for alt in lifted {
            let cond = self.store.and(c, alt.cond);
            match out.iter_mut().find(|o| o.fresh == alt.fresh) {
                Some(same) => same.cond = self.store.or(same.cond, cond),
                None => out.push(Alt { cond, ..alt }),
            }
        }
    }
}

impl Dse<'_> {
    /// Split where it hurts: a merged state whose query the solver did not
    /// answer in time becomes the two states its last merge joined again
    /// (every `ite` of that merge resolved to one side), and the location of
    /// that merge merges no more. Each side keeps a model that satisfies its
    /// path (the merged one, the other side's from the merge, or the
    /// solver's); a side with none is dropped. A side that is itself merged
    /// and whose question the solver does not answer within the split's
    /// time is split in turn (the priority queue of Table 1: a side's
    /// question over nine keys took Z3 146 ms and its 17 MB context, under
    /// ssm whose other questions braid answered itself).
    pub(super) fn unmerge(&mut self, mut st: State) -> Vec<State> {
        let Some(merge) = st.merges.pop() else {
            return vec![st];
        };
        self.result.stats.splits += 1;
        if let Some(m) = &mut self.merger {
            // Neither where the merge was made nor here, where the parts
            // would meet again at once.
            m.given_up.insert(merge.location);
            m.given_up.insert(Merger::location_hash(&st));
        }
        let mut out = Vec::new();
        for holds in [true, false] {
            let (mut memo, mut pages) = (FxHashMap::default(), PageMemo::default());
            let mut side = st.clone();
            let side_cond = if holds { merge.cond } else { self.store.not(merge.cond) };
            let store = &mut self.store;
            let mut pick = |t: TermId| store.select_side(t, merge.cond, holds, &mut memo);
            for f in &mut side.frames {
                for v in &mut f.vars {
                    *v = pick(*v);
                }
            }
            for a in &mut side.memory {
                let cells = a
                    .map(&mut pages, |c| Some(pick(c)))
                    .expect("picking a side never fails");
                if !cells.shares_all(a) {
                    *a = Rc::new(cells);
                }
            }
            // The side's own path condition where the merged one has the
            // common prefix and the disjunction, then what came after.
            let own = if holds { &merge.own_path } else { &merge.other_path };
            let mut path: Vec<TermId> = if side.path.len() >= merge.merged_len
                && merge.own_path.get(..merge.common) == side.path.get(..merge.common)
            {
                let after: Vec<TermId> = side.path[merge.merged_len..].iter().map(|c| pick(*c)).collect();
                own.iter().copied().chain(after).collect()
            } else {
                let mut path: Vec<TermId> = side.path.iter().map(|c| pick(*c)).collect();
                path.push(side_cond);
                path
            };
            for alt in &mut side.alts {
                alt.cond = pick(alt.cond);
            }
            if !holds {
                side.merges = merge.other_merges.to_vec();
            }
            if path.iter().any(|c| self.store.is_false(*c)) {
                continue;
            }
            path.retain(|c| !self.store.is_true(*c));
            side.path = path;
            side.alts.retain(|a| !self.store.is_false(a.cond));
            let model = [&st.model, &merge.other]
                .into_iter()
                .find(|m| self.store.satisfies(&side.path, m))
                .cloned();
            side.model = match model {
                Some(m) => m,
                None => {
                    // A side merged from earlier merges too is asked as a
                    // merged state's branch is: within the split's time,
                    // and split again where that is not enough, down to
                    // sides whose questions are a forking engine's.
                    let nested = !side.merges.is_empty();
                    self.solver.kind = braid_solver::QueryKind::Merge;
                    if nested {
                        self.merged_question(true);
                    }
                    let answer = self.solver.model(&self.store, &side.path);
                    if nested {
                        self.merged_question(false);
                    }
                    self.solver.kind = braid_solver::QueryKind::Branch;
                    match answer {
                        braid_solver::SatResult::Sat(m) => Rc::new(m),
                        braid_solver::SatResult::Unsat => continue,
                        braid_solver::SatResult::Unknown(_) if nested && !self.budget.poll() => {
                            out.extend(self.unmerge(side));
                            continue;
                        }
                        // The side's paths are not explored: said so,
                        // unless the run's own stop cut the question.
                        braid_solver::SatResult::Unknown(reason) => {
                            if !self.budget.poll() {
                                self.incomplete(format!("solver: a split state's side undecided: {reason}"));
                            }
                            continue;
                        }
                    }
                }
            };
            out.push(side);
        }
        out
    }
}

/// The most states static merging holds back for the later ones to catch up
/// with. A parser's states differ in a concrete position and seldom meet:
/// the topological wave then grows with every input byte (224 910 states,
/// 2.9 GB and no finished path in 30 s on a JSON tokenizer of 8 bytes).
pub const MAX_WAVE: usize = 1024;

/// Which state runs next, for plain and merging exploration.
pub(crate) enum Scheduler {
    Plain(Box<dyn Searcher>),
    /// States by topological key.
    Topological(BTreeSet<(TopoKey, StateId)>),
    Dynamic {
        driver: Box<dyn Searcher>,
        delta: usize,
        forwarding: Forwarding,
    },
}

/// A `(location, store)` hash.
type Place = (u64, u64);

/// Dynamic merging's forwarding set F: the live states at a block start
/// whose `(location, store)` hash is in another live state's recent
/// history, kept up to date as states come and go. (Found afresh before
/// every step, by a pass over every live state that built each one's
/// topological key, it made dsm on Table 1's symbolic arithmetic take
/// 13.4 s instead of 4.5.)
#[derive(Default)]
pub(crate) struct Forwarding {
    /// How many live states have each hash in their history.
    seen: FxHashMap<Place, u32>,
    /// Per live state at a block start: its hash, how often its own
    /// history holds that hash, its topological key, and whether it is in F.
    at: FxHashMap<StateId, (Place, u32, TopoKey, bool)>,
    /// The live states at each hash.
    by_place: FxHashMap<Place, FxHashSet<StateId>>,
    /// F, topologically first first.
    set: BTreeSet<(TopoKey, StateId)>,
    /// The live states that joined.
    joined: FxHashSet<StateId>,
}

impl Forwarding {
    /// A state joins: `current`, its hash if it is at a block start,
    /// `history` its recent hashes and `key` its topological key.
    fn add(&mut self, id: StateId, current: Option<Place>, history: &VecDeque<Place>, key: TopoKey) {
        self.joined.insert(id);
        for h in history {
            *self.seen.entry(*h).or_insert(0) += 1;
        }
        if let Some(k) = current {
            let own = history.iter().filter(|h| **h == k).count() as u32;
            self.at.insert(id, (k, own, key, false));
            self.by_place.entry(k).or_default().insert(id);
            self.recheck(k);
        }
        self.recheck_history(history);
    }

    /// A state leaves (`history` as when it joined).
    fn forget(&mut self, id: StateId, history: &VecDeque<Place>) {
        if !self.joined.remove(&id) {
            // Merged into another part of the slice that made it, before
            // it joined: nothing of it is counted.
            return;
        }
        if let Some((k, _, key, inside)) = self.at.remove(&id) {
            if inside {
                self.set.remove(&(key, id));
            }
            if let Some(ids) = self.by_place.get_mut(&k) {
                ids.remove(&id);
                if ids.is_empty() {
                    self.by_place.remove(&k);
                }
            }
        }
        for h in history {
            if let Some(n) = self.seen.get_mut(h) {
                *n -= 1;
                if *n == 0 {
                    self.seen.remove(h);
                }
            }
        }
        self.recheck_history(history);
    }

    /// Membership in F of the states at each hash of `history` (whose
    /// counts changed).
    fn recheck_history(&mut self, history: &VecDeque<Place>) {
        for (i, h) in history.iter().enumerate() {
            if !history.iter().take(i).any(|g| g == h) {
                self.recheck(*h);
            }
        }
    }

    /// Membership in F of the states at hash `k`.
    fn recheck(&mut self, k: Place) {
        let Some(ids) = self.by_place.get(&k) else { return };
        let n = self.seen.get(&k).copied().unwrap_or(0);
        for id in ids {
            let (_, own, key, inside) = self.at.get_mut(id).expect("a state at a block start");
            if *inside != (n > *own) {
                *inside = n > *own;
                let entry = (key.clone(), *id);
                if *inside {
                    self.set.insert(entry);
                } else {
                    self.set.remove(&entry);
                }
            }
        }
    }

    /// The topologically first state of F.
    fn first(&self) -> Option<StateId> {
        self.set.first().map(|(_, id)| *id)
    }
}

impl Scheduler {
    /// The next state, and whether it was picked for fast-forwarding.
    pub fn select(&mut self, states: &FxHashMap<StateId, State>, info: &dyn StateInfo) -> Option<(StateId, bool)> {
        match self {
            Scheduler::Plain(s) => s.select(info).map(|id| (id, false)),
            // Past the wave's bound the state furthest ahead runs: it goes
            // on to its end as in depth-first search, and the wave shrinks.
            Scheduler::Topological(q) if q.len() > MAX_WAVE => q.pop_last().map(|(_, id)| (id, false)),
            Scheduler::Topological(q) => q.pop_first().map(|(_, id)| (id, false)),
            Scheduler::Dynamic { driver, forwarding, .. } => match forwarding.first() {
                // The forwarding set F: the topologically first of it runs.
                Some(id) => Some((id, true)),
                None => loop {
                    let id = driver.select(info)?;
                    if states.contains_key(&id) {
                        return Some((id, false));
                    }
                },
            },
        }
    }

    /// Registers the states `parent` became.
    pub fn add(
        &mut self,
        parent: Option<StateId>,
        ids: &[StateId],
        states: &FxHashMap<StateId, State>,
        merger: Option<&Merger>,
    ) {
        match self {
            Scheduler::Plain(s) => s.update(parent, ids),
            Scheduler::Topological(q) => {
                let merger = merger.expect("static merging has a merger");
                for id in ids {
                    q.insert((merger.topo_key(&states[id]), *id));
                }
            }
            Scheduler::Dynamic { driver, forwarding, .. } => {
                driver.update(parent, ids);
                let merger = merger.expect("dynamic merging has a merger");
                for id in ids {
                    let st = &states[id];
                    forwarding.add(*id, st.current, &st.history, merger.topo_key(st));
                }
            }
        }
    }

    /// Forgets state `id` leaving the worklist (run, merged away or dropped).
    pub fn forget(&mut self, id: StateId, st: &State) {
        if let Scheduler::Dynamic { forwarding, .. } = self {
            forwarding.forget(id, &st.history);
        }
    }

    /// Dynamic merging's history length.
    pub fn delta(&self) -> Option<usize> {
        match self {
            Scheduler::Dynamic { delta, .. } => Some(*delta),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The forwarding set kept up to date as states join and leave is the
    /// one found afresh by its definition (a live state at a block start
    /// whose hash is in the histories of the live states more often than in
    /// its own), topologically first first, over random runs of joins and
    /// leaves on a few hashes (so that states share them), with leaves of
    /// states that never joined (merged into another part of the same
    /// slice), which count nothing.
    #[test]
    fn the_forwarding_set_kept_up_to_date_is_the_one_found_afresh() {
        type Live = (Option<Place>, VecDeque<Place>, TopoKey);
        for seed in 0..200u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut f = Forwarding::default();
            let mut live: FxHashMap<StateId, Live> = FxHashMap::default();
            let mut next: StateId = 0;
            for _ in 0..200 {
                let place = |rng: &mut rand::rngs::StdRng| (rng.gen_range(0..4u64), rng.gen_range(0..2u64));
                if live.is_empty() || rng.gen_bool(0.55) {
                    next += 1;
                    let current = rng.gen_bool(0.7).then(|| place(&mut rng));
                    let history: VecDeque<Place> = (0..rng.gen_range(0..4)).map(|_| place(&mut rng)).collect();
                    let key = vec![vec![(rng.gen_range(0..3), rng.gen_range(0..3))]];
                    if rng.gen_bool(0.05) {
                        // Merged away before it joined: its leaving changes
                        // no count.
                        let seen = f.seen.clone();
                        f.forget(next, &history);
                        assert_eq!(f.seen, seen);
                    } else {
                        f.add(next, current, &history, key.clone());
                        live.insert(next, (current, history, key));
                    }
                } else {
                    let ids: Vec<StateId> = live.keys().copied().collect();
                    let id = ids[rng.gen_range(0..ids.len())];
                    let (_, history, _) = live.remove(&id).expect("live");
                    f.forget(id, &history);
                }
                let afresh: Vec<(TopoKey, StateId)> = live
                    .iter()
                    .filter(|(_, (current, history, _))| {
                        current.is_some_and(|k| {
                            let own = history.iter().filter(|h| **h == k).count() as u32;
                            f.seen.get(&k).is_some_and(|n| *n > own)
                        })
                    })
                    .map(|(id, (_, _, key))| (key.clone(), *id))
                    .collect();
                assert_eq!(f.first(), afresh.iter().min().map(|(_, id)| *id), "seed {seed}");
                assert_eq!(f.set.len(), afresh.len(), "seed {seed}");
            }
        }
    }
}
