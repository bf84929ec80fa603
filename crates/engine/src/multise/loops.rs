//! Loop-head merging in `multise` (seed 003): the counterpart, over value
//! summaries, of the forking engines' [`crate::dse::loops`].
//!
//! `multise` runs a loop's iterations one after another: the paths of one
//! iteration meet at the head as one `pc` entry `(φ, head)` (they coalesce
//! there, the head being first in topological order), the body runs for
//! all of them, and those that stay in the loop come back as the next
//! iteration's entry. Without more, a loop whose trip count depends on
//! inputs never ends.
//!
//! At each arrival, the state on the paths of `φ` — the head's live
//! variables and the memory cells written since the loop was first
//! reached — is split into *parts*: guards `ψ ⊆ φ` under which each of
//! them has one value. The parts of earlier arrivals are kept, with their
//! times (the arrival they were made at), as a nondeterministic value
//! summary: their guards overlap (the paths of the third visit went through
//! the second), and it stands for the union of their concrete states. An
//! arriving part that an earlier part stands for — its values are the
//! earlier part's with the earlier part's inputs read later renamed
//! (subsumption modulo fresh inputs), and its guard implies the earlier
//! guard so renamed — is cut out of the entry: every path from its
//! concrete states is one from the earlier part's, which went on. When
//! every arriving part is cut, the loop is explored for every trip count
//! (a fixed point) and exploration goes past it with the exits.
//!
//! What is not compared is equal by construction: symbols older than the
//! loop (its first arrival in this call) stand for themselves in a match
//! where the cells not written since or the callers' variables hold them
//! (in values or guards; those hold no newer symbol), and the allocations'
//! sizes must be the same. Memory writes are journaled while a loop is watched, so the
//! value a cell had at an earlier arrival is known when it is first
//! written later.
//!
//! The paths cut out are real paths: the models pending among them (one
//! per branch their iterations first took) are run concretely to the end
//! as tests, so their coverage is kept. A loop whose arrivals are never
//! cut (a counter, a parser's loop over its input) stops being watched
//! after [`MAX_BARREN_ARRIVALS`] arrivals and is unrolled (an arrival
//! here is a whole iteration of every path, more than `dse`'s state, so
//! fewer than `dse`'s [`crate::dse::loops::MAX_BARREN_ENTRIES`]).

use super::{Frame, Held, Multise, PcEntry, ValueSummary};
use crate::dse::loops::{
    computed, few_values, LoopStats, Matcher, COMPLETION_STEPS, MAX_ENTRIES, MAX_QUERIES, MAX_REPORTED, MAX_SPLIT,
    MAX_SPLIT_CELLS, QUERY_MS,
};
use crate::record::Recorder;
use braid_budget::catch_stop;
use braid_guard::Guard;
use braid_ir::{FuncId, StmtIdx};
use braid_solver::{QueryKind, SatResult};
use braid_term::{Model, SymId, TermId, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Parts an arrival is split into at most; past it, the arrival is not
/// merged.
const MAX_PARTS: usize = 64;

/// Cells written within a loop that are compared at most; past it, the
/// loop is unrolled.
const MAX_CELLS: usize = 4096;

/// Arrivals at a loop head, none of them cut, before it is unrolled.
const MAX_BARREN_ARRIVALS: usize = 8;

/// Solver queries that splitting computed values may ask per arrival.
const MAX_SPLIT_QUERIES: usize = 64;

/// The largest guards (BDD nodes) whose implication a subsumption query
/// asks the solver: jsmn's tokenizer over 8 bytes asked 31 at its loop
/// heads, all answered no; 6 of the 8 over guards of more than 2 000
/// nodes took 85-275 ms each, the others 0-37 ms.
const MAX_QUERIED_GUARD: usize = 2_000;

/// Every loop head's merging state.
#[derive(Default)]
pub(super) struct LoopHeads {
    heads: FxHashMap<(FuncId, StmtIdx), Head>,
    /// Per call (a frame's id) and loop head in it, its summary.
    summaries: FxHashMap<(u64, FuncId, StmtIdx), Summary>,
    pub stats: LoopStats,
    /// The time merges at loop heads took.
    time: Duration,
    /// Given up (barren, [`LoopStats::barren`]): every head is unrolled.
    given_up: bool,
}

/// What a loop head did over every call of its function.
#[derive(Default)]
struct Head {
    location: String,
    /// Unrolled from now on.
    full: bool,
    entries: usize,
    subsumed: u64,
    /// Arrivals whose computed values had too many values to split (tried
    /// no more after two).
    split_failures: u32,
}

struct Summary {
    /// Symbols numbered below existed when the loop was first reached.
    first_sym: u32,
    /// Of those, the ones that stand for themselves in matches: those the
    /// callers' variables and the cells not written since hold; found anew
    /// once more cells are written (there are fewer then), with how many
    /// were.
    pinned: Option<(usize, Rc<FxHashSet<SymId>>)>,
    /// Cells (allocation, offset) written since the first arrival, in the
    /// order first written, and the values they had before.
    written: Vec<(usize, usize)>,
    originals: FxHashMap<(usize, usize), ValueSummary>,
    snaps: Vec<Snap>,
    arrivals: u32,
}

/// The parts of one arrival that no earlier part stood for.
struct Snap {
    time: u32,
    /// The allocations' sizes then.
    shape: Rc<Vec<ValueSummary>>,
    /// How many cells of [`Summary::written`] its parts' values cover
    /// (after the live variables).
    cells: usize,
    parts: Vec<Part>,
    model: Rc<Model>,
}

#[derive(Clone)]
struct Part {
    guard: Guard,
    values: Vec<TermId>,
    /// Whether the guard is satisfiable, once asked.
    feasible: Option<bool>,
    /// For a piece of a part whose computed values were split
    /// ([`Multise::concretize`]), that part's number and guard.
    piece_of: Option<(usize, Guard)>,
}

impl LoopHeads {
    /// Whether loop-head merging still watches `head` of `func`.
    pub fn watching(&self, func: FuncId, head: StmtIdx) -> bool {
        !self.given_up && self.heads.get(&(func, head)).is_none_or(|h| !h.full)
    }

    /// Merging at loop heads took `took` more, of `exploring` so far: given
    /// up (the summaries dropped, every head unrolled) once barren, as
    /// `dse`'s is. jsmn's tokenizer over 8 bytes: eight heads, none of
    /// them ever subsumed; multise alone took 7.1 s, 3.7 s with loops
    /// unrolled.
    /// Whether it was given up now.
    fn spent(&mut self, took: Duration, exploring: Duration) -> bool {
        self.time += took;
        self.stats.ms = self.time.as_millis() as u64;
        if self.given_up || !self.stats.barren(self.time, exploring) {
            return false;
        }
        self.given_up = true;
        self.stats.given_up_after_ms = Some(exploring.as_millis() as u64);
        self.summaries = FxHashMap::default();
        true
    }

    /// Every guard the summaries hold (roots of the garbage collection).
    pub fn guards(&self) -> impl Iterator<Item = Guard> + '_ {
        self.summaries.values().flat_map(|s| {
            let originals = s.originals.values().flat_map(|v| v.iter().map(|e| e.0));
            let snaps = s.snaps.iter().flat_map(|n| {
                n.parts
                    .iter()
                    .map(|p| p.guard)
                    .chain(n.shape.iter().flat_map(|v| v.iter().map(|e| e.0)))
            });
            originals.chain(snaps)
        })
    }

    /// Whether any summary exists (memory writes are journaled then).
    pub fn active(&self) -> bool {
        !self.summaries.is_empty()
    }

    /// A cell's value before its first write since the journal was last
    /// taken: every summary that had not seen it written keeps it.
    fn written(&mut self, cell: (usize, usize), before: &ValueSummary) {
        for s in self.summaries.values_mut() {
            if let std::collections::hash_map::Entry::Vacant(v) = s.originals.entry(cell) {
                v.insert(before.clone());
                s.written.push(cell);
            }
        }
    }

    /// A call ended: its summaries go.
    pub fn forget(&mut self, frame: u64) {
        self.summaries.retain(|k, _| k.0 != frame);
    }

    /// `head` of `func` is unrolled from now on.
    fn unroll(&mut self, func: FuncId, head: StmtIdx) {
        let h = self.heads.entry((func, head)).or_default();
        if h.full {
            return;
        }
        h.full = true;
        self.stats.unrolled += 1;
        if h.subsumed > 0 {
            self.stats.fixpoints -= 1;
        }
        if self.stats.unrolled_at.len() < MAX_REPORTED && !self.stats.unrolled_at.contains(&h.location) {
            self.stats.unrolled_at.push(h.location.clone());
        }
        self.summaries.retain(|k, _| (k.1, k.2) != (func, head));
    }
}

/// An arriving part, and whether it is cut (an earlier part stands for
/// it).
struct Arriving {
    part: Part,
    cut: bool,
}

impl Multise<'_> {
    /// Whether `frame`'s entry `i` is at a loop head that merging watches
    /// and has not been merged there yet.
    pub(super) fn head_due(&self, frame: &Frame, i: usize) -> bool {
        let (Some(loops), Some(e)) = (self.loops.as_ref(), frame.pc.get(i)) else {
            return false;
        };
        let head = self.loop_heads[frame.func.0 as usize].get(e.at as usize) == Some(&true);
        head && !e.merged && loops.watching(frame.func, e.at)
    }

    /// Takes the journal of cell writes into the summaries.
    fn take_journal(&mut self) {
        let Some(loops) = self.loops.as_mut() else { return };
        for (k, a) in self.memory.iter_mut().enumerate() {
            for (c, before) in a.journal.drain(..) {
                loops.written((k, c), &before);
            }
            a.journaled.clear();
        }
    }

    /// Journals memory writes while a summary exists.
    fn watch_memory(&mut self) {
        let on = self.loops.as_ref().is_some_and(|l| l.active());
        for a in &mut self.memory {
            a.watched = on;
            if !on {
                a.journal.clear();
                a.journaled.clear();
            }
        }
    }

    /// A call ended: its loops' summaries go.
    pub(super) fn forget_loops(&mut self, frame: &Frame) {
        if self.loops.as_ref().is_some_and(|l| l.active()) {
            // The callers' summaries take what the call wrote.
            self.take_journal();
            self.loops.as_mut().expect("checked").forget(frame.id);
            self.watch_memory();
        }
    }

    /// Loop-head merging of `frame`'s entry `i`, at a watched loop head (see
    /// the module doc): the parts an earlier part stands for are cut out of
    /// it (their pending models become tests), the rest joins the head's
    /// summary and goes on.
    pub(super) fn merge_at_head(&mut self, frame: &mut Frame, i: usize, rec: &mut Recorder) {
        let started = Instant::now();
        self.merge_entry_at_head(frame, i, rec);
        let exploring = match &self.race {
            Some(race) => self.merging_time(race),
            None => self.explore_start.elapsed(),
        };
        let loops = self.loops.as_mut().expect("loop-head merging is on");
        if loops.spent(started.elapsed(), exploring) {
            self.watch_memory();
        }
    }

    fn merge_entry_at_head(&mut self, frame: &mut Frame, i: usize, rec: &mut Recorder) {
        let mut e = frame.pc.swap_remove(i);
        e.merged = true;
        self.take_journal();
        let mut loops = self.loops.take().expect("loop-head merging is on");
        let (func, at) = (frame.func, e.at);
        let head = loops.heads.entry((func, at)).or_default();
        if head.location.is_empty() {
            head.location = self.module.location(func, at);
            loops.stats.heads += 1;
        }
        let key = (frame.id, func, at);
        let mut summary = loops.summaries.remove(&key).unwrap_or_else(|| Summary {
            first_sym: self.store.symbol_count() as u32,
            pinned: None,
            written: Vec::new(),
            originals: FxHashMap::default(),
            snaps: Vec::new(),
            arrivals: 0,
        });
        summary.arrivals += 1;
        loops.stats.arrivals += 1;
        let live = self.live_of(func);
        // Its queries go to a solver of their own.
        let mut solver = self.loop_solver.take().unwrap_or_else(|| {
            let mut s = self.config.query_solver();
            s.set_budget(&self.budget);
            s.kind = QueryKind::LoopMerge;
            let timeout = self.config.limits.solver_timeout_ms;
            s.set_timeout(Some(timeout.unwrap_or(u32::MAX).min(QUERY_MS)));
            s
        });
        std::mem::swap(&mut self.solver, &mut solver);
        let may_split = loops.heads[&(func, at)].split_failures < 2;
        let stats = &mut loops.stats;
        // A BDD operation past the budget unwinds: the loops' state and the
        // solvers are put back first.
        let arrived = catch_stop(|| {
            if summary.written.len() > MAX_CELLS {
                return None;
            }
            let (arriving, snap, split_failed) =
                self.arrive(frame, &e, &live.at(at), &mut summary, may_split, stats)?;
            let mut cut = Guard::FALSE;
            let (mut kept, mut subsumed) = (Vec::new(), 0);
            for a in arriving {
                if a.cut {
                    // Pieces are cut all together: as the part they were
                    // split from, whose guard has no `t = v` atom.
                    let g = a.part.piece_of.map_or(a.part.guard, |p| p.1);
                    cut = self.guards.or(cut, g);
                    subsumed += 1;
                } else {
                    kept.push(a.part);
                }
            }
            Some((cut, subsumed, kept, snap, split_failed))
        });
        std::mem::swap(&mut self.solver, &mut solver);
        self.loop_solver = Some(solver);
        let Ok(arrived) = arrived else {
            frame.pc.push(e);
            // A merge past its turn in the race with dse (its solver's
            // questions, up to [`QUERY_MS`] each, are not cut short at the
            // turn): the head is unrolled from now on and merging goes on,
            // dse's turn next making up the overrun. jsmn's tokenizer over 8
            // bytes had head merges of 0.4-1.0 s; giving merging up there
            // left dse cut off at 60 s, where multise alone took 7.9 s.
            if !self.budget.stopped() && self.guards.forgive_deadline(None) {
                self.cut_solver_at(None);
                loops.unroll(func, at);
                self.loops = Some(loops);
                self.watch_memory();
                return;
            }
            self.loops = Some(loops);
            // The budget stopped, or the engine gave up (both unwind on).
            braid_budget::unwind();
        };
        let head = loops.heads.get_mut(&(func, at)).expect("made above");
        let mut cut = Guard::FALSE;
        match arrived {
            Some((c, subsumed, kept, (time, shape), split_failed)) => {
                head.split_failures += split_failed as u32;
                loops.stats.split_failures += split_failed as u64;
                if subsumed > 0 {
                    if head.subsumed == 0 {
                        loops.stats.fixpoints += 1;
                    }
                    head.subsumed += subsumed;
                    loops.stats.subsumed += subsumed;
                    loops.stats.max_time = loops.stats.max_time.max(time);
                    cut = c;
                }
                if !kept.is_empty() {
                    head.entries += 1;
                    loops.stats.entries += kept.len() as u64;
                    summary.snaps.push(Snap {
                        time: summary.arrivals,
                        shape,
                        cells: summary.written.len(),
                        parts: kept,
                        model: e.model.clone(),
                    });
                }
            }
            None => head.entries += 1,
        }
        let head = &loops.heads[&(func, at)];
        let barren = head.subsumed == 0 && head.entries >= MAX_BARREN_ARRIVALS;
        if barren || summary.snaps.len() >= MAX_ENTRIES || summary.written.len() > MAX_CELLS {
            loops.unroll(func, at);
        } else {
            loops.summaries.insert(key, summary);
        }
        self.loops = Some(loops);
        self.watch_memory();
        if !cut.is_false() {
            let not_cut = self.guards.not(cut);
            e.guard = self.guards.and(e.guard, not_cut);
            self.cut_paths(cut, rec);
        }
        if !e.guard.is_false() {
            frame.pc.push(e);
        }
    }

    /// The parts of `e`'s state, each marked cut or not, and the time of
    /// the latest part that stood for one and the allocations' sizes; `None`
    /// if the state splits into too many parts.
    #[allow(clippy::type_complexity)]
    fn arrive(
        &mut self,
        frame: &Frame,
        e: &PcEntry,
        live: &braid_ir::LiveSet,
        summary: &mut Summary,
        may_split: bool,
        stats: &mut LoopStats,
    ) -> Option<(Vec<Arriving>, (u32, Rc<Vec<ValueSummary>>), bool)> {
        let shape: Vec<ValueSummary> = self.memory.iter().map(|a| a.size.clone()).collect();
        let mut items: Vec<ValueSummary> = (0..frame.vars.len())
            .filter(|v| live.contains(*v))
            .map(|v| frame.vars[v].clone())
            .collect();
        items.extend(summary.written.iter().map(|&(k, c)| self.memory[k].cells[c].clone()));
        let parts = self.split(&items, vec![Part::new(e.guard)])?;
        let (parts, split_failed) = if may_split {
            self.concretize(parts, stats)
        } else {
            (parts, false)
        };
        let fixed = Fixed {
            first_sym: summary.first_sym,
            pinned: if summary.snaps.is_empty() {
                Rc::default()
            } else {
                self.pinned(summary)
            },
        };
        let mut queries = 0;
        let mut time = 0;
        let mut arriving = Vec::with_capacity(parts.len());
        for part in parts {
            let mut cut = false;
            for j in (0..summary.snaps.len()).rev() {
                if *summary.snaps[j].shape != shape || !self.extend(summary, j) {
                    continue;
                }
                let snap = &summary.snaps[j];
                let candidates: Vec<usize> = (0..snap.parts.len())
                    .filter(|&p| self.matches(&fixed, &snap.parts[p].values, &part.values).is_some())
                    .collect();
                for p in candidates {
                    if self.stands_for(&fixed, summary, j, p, &part, &mut queries) {
                        cut = true;
                        time = time.max(summary.snaps[j].time);
                        break;
                    }
                }
                if cut || queries >= MAX_QUERIES {
                    break;
                }
            }
            arriving.push(Arriving { part, cut });
        }
        // A piece of a split part is cut only with all the others: cutting
        // some would put their atoms (`t = v`) into the entry's guard.
        let uncut: FxHashSet<usize> = arriving
            .iter()
            .filter(|a| !a.cut)
            .filter_map(|a| a.part.piece_of.map(|p| p.0))
            .collect();
        for a in &mut arriving {
            if a.part.piece_of.is_some_and(|p| uncut.contains(&p.0)) {
                a.cut = false;
            }
        }
        let shape = match summary.snaps.last() {
            Some(s) if *s.shape == shape => s.shape.clone(),
            _ => Rc::new(shape),
        };
        Some((arriving, (time, shape), split_failed))
    }

    /// Each part whose values include some computed from inputs (not an
    /// input or its bytes, [`computed`]) split into parts where they are
    /// constants, one per feasible combination of their values, if there
    /// are at most [`MAX_SPLIT`]: a part `(ψ, t)` becomes the parts
    /// `(ψ ∧ t = v_i, v_i)` for every value `v_i` that `t` takes on `ψ`. A
    /// loop whose state is a few flags computed from inputs reaches its
    /// fixed point this way, as in `dse`. The state itself keeps its
    /// summaries, and pieces are cut only all together, as the part they
    /// came from: the new atoms stay in the summary's parts and reach no
    /// guard of the state (rewriting the summaries put them into every later
    /// guard over those values, and made multise 4x slower on Table 1's BDD
    /// program). Whether some part had too many values.
    fn concretize(&mut self, parts: Vec<Part>, stats: &mut LoopStats) -> (Vec<Part>, bool) {
        let mut out = Vec::with_capacity(parts.len());
        let mut failed = false;
        let mut queries = 0;
        for part in parts {
            let comp: Vec<usize> = (0..part.values.len())
                .filter(|&j| computed(&self.store, part.values[j]))
                .collect();
            if comp.is_empty() || comp.len() > MAX_SPLIT_CELLS || queries > MAX_SPLIT_QUERIES {
                out.push(part);
                continue;
            }
            let terms: Vec<TermId> = comp.iter().map(|&j| part.values[j]).collect();
            if !few_values(&self.store, &terms, MAX_SPLIT as u128) {
                out.push(part);
                continue;
            }
            let Some(combos) = self.enumerate(part.guard, &terms, &mut queries) else {
                failed = true;
                out.push(part);
                continue;
            };
            let mut pieces = Vec::with_capacity(combos.len());
            for combo in &combos {
                let guard = if combos.len() == 1 {
                    part.guard
                } else {
                    let mut same = self.store.bool(true);
                    for (t, v) in terms.iter().zip(combo) {
                        let eq = self.store.eq(*t, *v);
                        same = self.store.and(same, eq);
                    }
                    let a = self.guards.atom(&mut self.store, same);
                    self.guards.and(part.guard, a)
                };
                if guard.is_false() {
                    continue;
                }
                let mut values = part.values.clone();
                for (&j, v) in comp.iter().zip(combo) {
                    values[j] = *v;
                }
                pieces.push(Part {
                    guard,
                    values,
                    feasible: Some(true),
                    piece_of: (combos.len() > 1).then_some((stats.splits as usize, part.guard)),
                });
            }
            stats.splits += 1;
            stats.split_parts += pieces.len() as u64;
            out.extend(pieces);
        }
        (out, failed)
    }

    /// Every combination of values `terms` take on the paths of `g`, as
    /// constants; `None` past [`MAX_SPLIT`] or if the solver cannot say.
    fn enumerate(&mut self, g: Guard, terms: &[TermId], queries: &mut usize) -> Option<Vec<Vec<TermId>>> {
        if self.guards.larger_than(g, super::MAX_SOLVED_GUARD) {
            return None;
        }
        let mut query = self.guards.conjuncts(&mut self.store, g);
        let mut combos = Vec::new();
        loop {
            *queries += 1;
            let mut model = match self.solver.model(&self.store, &query) {
                SatResult::Sat(m) => m,
                // Every combination is found.
                SatResult::Unsat => return Some(combos),
                SatResult::Unknown(_) => return None,
            };
            // Symbols the query leaves free take any value: 0 (their default).
            for &t in terms {
                for &s in self.store.symbols(t) {
                    model
                        .entry(s)
                        .or_insert_with(|| Value::default_of(self.store.symbol(s).sort));
                }
            }
            let values: Option<Vec<Value>> = terms.iter().map(|t| self.store.eval(*t, &model).ok()).collect();
            let combo: Vec<TermId> = values?.into_iter().map(|v| self.store.constant(v)).collect();
            let mut same = self.store.bool(true);
            for (t, v) in terms.iter().zip(&combo) {
                let eq = self.store.eq(*t, *v);
                same = self.store.and(same, eq);
            }
            combos.push(combo);
            if combos.len() > MAX_SPLIT {
                return None;
            }
            let other = self.store.not(same);
            query.push(other);
        }
    }

    /// `parts` split further by the values `items` have on their paths, one
    /// value of each per part; `None` past [`MAX_PARTS`].
    fn split(&mut self, items: &[ValueSummary], mut parts: Vec<Part>) -> Option<Vec<Part>> {
        let undef = self.store.constant(Value::Undef);
        for s in items {
            let mut next = Vec::with_capacity(parts.len());
            for p in parts {
                let values = self.restrict(s, p.guard);
                match values.as_slice() {
                    [(g, v)] if *g == p.guard => {
                        let mut p = p;
                        p.values.push(*v);
                        next.push(p);
                    }
                    _ => {
                        // Paths the summary has no value for hold `undef`.
                        let mut rest = p.guard;
                        for (g, v) in values {
                            let not_g = self.guards.not(g);
                            rest = self.guards.and(rest, not_g);
                            let mut q = Part::new(g);
                            q.values = p.values.clone();
                            q.values.push(v);
                            next.push(q);
                        }
                        if !rest.is_false() {
                            let mut q = Part::new(rest);
                            q.values = p.values.clone();
                            q.values.push(undef);
                            next.push(q);
                        }
                    }
                }
                if next.len() > MAX_PARTS {
                    return None;
                }
            }
            parts = next;
        }
        Some(parts)
    }

    /// Gives snapshot `j`'s parts the values of the cells first written
    /// after it (the values they had before); whether it could.
    fn extend(&mut self, summary: &mut Summary, j: usize) -> bool {
        let n = summary.written.len();
        let from = summary.snaps[j].cells;
        if from == n {
            return !summary.snaps[j].parts.is_empty();
        }
        let items: Vec<ValueSummary> = summary.written[from..]
            .iter()
            .map(|c| summary.originals[c].clone())
            .collect();
        let parts = std::mem::take(&mut summary.snaps[j].parts);
        let known: FxHashMap<Guard, bool> = parts.iter().filter_map(|p| p.feasible.map(|f| (p.guard, f))).collect();
        let snap = &mut summary.snaps[j];
        snap.cells = n;
        match self.split(&items, parts) {
            Some(mut parts) => {
                for p in &mut parts {
                    p.feasible = known.get(&p.guard).copied();
                }
                summary.snaps[j].parts = parts;
                true
            }
            // Too many parts: the snapshot is of no more use.
            None => false,
        }
    }

    /// The symbols that stand for themselves in `summary`'s matches: those,
    /// among the ones older than the loop, that the cells not written since
    /// and the callers' variables hold (in values or in guards).
    fn pinned(&mut self, summary: &mut Summary) -> Rc<FxHashSet<SymId>> {
        match &summary.pinned {
            Some((n, p)) if *n == summary.written.len() => return p.clone(),
            _ => {}
        }
        let mut pinned = FxHashSet::default();
        let mut seen: FxHashSet<Guard> = FxHashSet::default();
        let mut add = |me: &Self, s: &ValueSummary| {
            for &(g, v) in s.iter() {
                pinned.extend(me.store.symbols(v).iter().copied());
                if !g.is_true() && seen.insert(g) {
                    for atom in me.guards.support(g) {
                        pinned.extend(me.store.symbols(atom).iter().copied());
                    }
                }
            }
        };
        for (k, a) in self.memory.iter().enumerate() {
            // A run of several cells is a page nothing wrote: none of its
            // cells is an original.
            for (c, n, cell) in a.cells.runs() {
                if n > 1 || !summary.originals.contains_key(&(k, c)) {
                    add(self, cell);
                }
            }
            add(self, &a.size);
        }
        for s in self.suspended.iter().flat_map(Held::vars) {
            add(self, s);
        }
        let pinned = Rc::new(pinned);
        summary.pinned = Some((summary.written.len(), pinned.clone()));
        pinned
    }

    /// The binding under which `pattern` (an earlier part's values) is
    /// `values`, the symbols `fixed` picks standing for themselves.
    fn matches(&self, fixed: &Fixed, pattern: &[TermId], values: &[TermId]) -> Option<FxHashMap<SymId, TermId>> {
        let differ = |p: TermId, t: TermId| p != t && self.store.symbols(p).is_empty();
        if pattern.len() != values.len() || pattern.iter().zip(values).any(|(p, t)| differ(*p, *t)) {
            return None;
        }
        let is_fixed = |s: SymId| fixed.fixed(s);
        let mut m = Matcher::new(&self.store, &is_fixed);
        pattern
            .iter()
            .zip(values)
            .all(|(p, t)| m.term(*p, *t))
            .then_some(m.binding)
    }

    /// Whether part `p` of snapshot `j` stands for `arriving` (whose values
    /// it matches): with `ρ` the match, its guard `ψ` splits into `A ∧ B`,
    /// `B` over symbols `ρ` leaves free only, and `arriving`'s guard implies
    /// `A` renamed by `ρ`; when `B` is not `true`, `ψ` must be satisfiable.
    fn stands_for(
        &mut self,
        fixed: &Fixed,
        summary: &mut Summary,
        j: usize,
        p: usize,
        arriving: &Part,
        queries: &mut usize,
    ) -> bool {
        let part = &summary.snaps[j].parts[p];
        let Some(binding) = self.matches(fixed, &part.values, &arriving.values) else {
            return false;
        };
        let psi = part.guard;
        let bound = |s: &SymId| fixed.fixed(*s) || binding.contains_key(s);
        let mut free: FxHashSet<TermId> = FxHashSet::default();
        for a in self.guards.support(psi) {
            let syms = self.store.symbols(a);
            let n = syms.iter().filter(|s| bound(s)).count();
            if n == 0 {
                free.insert(a);
            } else if n < syms.len() {
                return false;
            }
        }
        let a = if free.is_empty() {
            psi
        } else {
            let a = self.guards.exists(psi, &|t| free.contains(&t));
            let b = self.guards.exists(psi, &|t| !free.contains(&t));
            if self.guards.and(a, b) != psi {
                return false;
            }
            let feasible = match summary.snaps[j].parts[p].feasible {
                Some(f) => f,
                None => {
                    let model = summary.snaps[j].model.clone();
                    let f = if self.guards.eval(&self.store, psi, &model) == Some(true) {
                        Some(true)
                    } else if *queries < MAX_QUERIES {
                        *queries += 1;
                        self.satisfiable(psi)
                    } else {
                        None
                    };
                    if let Some(f) = f {
                        summary.snaps[j].parts[p].feasible = Some(f);
                    }
                    f == Some(true)
                }
            };
            if !feasible {
                return false;
            }
            a
        };
        let renames = binding.iter().any(|(s, t)| *t != self.store.symbol_term_of(*s));
        if !renames {
            let not_a = self.guards.not(a);
            if self.guards.and(arriving.guard, not_a).is_false() {
                return true;
            }
        }
        if *queries >= MAX_QUERIES
            || self.guards.larger_than(a, MAX_QUERIED_GUARD)
            || self.guards.larger_than(arriving.guard, MAX_QUERIED_GUARD)
        {
            return false;
        }
        *queries += 1;
        let t = self.guards.to_term(&mut self.store, a);
        let Some(t) = (if renames {
            self.store.substitute(t, &binding)
        } else {
            Some(t)
        }) else {
            return false;
        };
        let not_t = self.store.not(t);
        let mut query = self.guards.conjuncts(&mut self.store, arriving.guard);
        query.push(not_t);
        matches!(self.solver.model(&self.store, &query), SatResult::Unsat)
    }

    /// Whether some path takes `g` (`None`: undecided).
    fn satisfiable(&mut self, g: Guard) -> Option<bool> {
        if self.guards.larger_than(g, super::MAX_SOLVED_GUARD) {
            return None;
        }
        let query = self.guards.conjuncts(&mut self.store, g);
        match self.solver.model(&self.store, &query) {
            SatResult::Sat(_) => Some(true),
            SatResult::Unsat => Some(false),
            SatResult::Unknown(_) => None,
        }
    }

    /// The paths in `cut` stop at a loop head: the pending models among
    /// them are run concretely to the end as tests (they reach code their
    /// SMT checks explored).
    fn cut_paths(&mut self, cut: Guard, rec: &mut Recorder) {
        let pending = std::mem::take(&mut self.pending);
        for m in pending {
            if self.guards.eval(&self.store, cut, &m) == Some(true) {
                if !self.budget.poll_exhausted() {
                    rec.complete_within(self.inputs_of(&m), Some(COMPLETION_STEPS));
                }
            } else {
                self.pending.push(m);
            }
        }
    }
}

/// Which symbols stand for themselves in a summary's matches: those older
/// than the loop that `pinned` holds.
struct Fixed {
    first_sym: u32,
    pinned: Rc<FxHashSet<SymId>>,
}

impl Fixed {
    fn fixed(&self, s: SymId) -> bool {
        s.0 < self.first_sym && self.pinned.contains(&s)
    }
}

impl Part {
    fn new(guard: Guard) -> Part {
        Part {
            guard,
            values: Vec::new(),
            feasible: None,
            piece_of: None,
        }
    }
}
