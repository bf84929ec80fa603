//! `concolic`: Multiplex Symbolic Execution (seed 002, Algorithm 1).
//!
//! Test inputs run one at a time on the forking engine's semantics, with
//! every decision taken by evaluating under the input instead of asking the
//! solver: each run follows exactly one path and records its path condition
//! and, at every decision, the sides it did not take (its open branches).
//! A search strategy picks the next open branch; its path condition (the
//! prefix up to it and the flipped side) goes to the solver, whose model,
//! over the parent run's input, is the next input.
//!
//! With `--partial-solutions` the solver also returns the assignments it
//! passed through: the simplex of [`braid_solver::partial`] solves the
//! query's linear part from the all-zero assignment, and each assignment
//! before a pivot is an input to run (§3.2); if its final assignment
//! satisfies the whole query, it is the solution and Z3 is not asked. For a
//! query over floats the simplex cannot answer, [`braid_solver::optimize`]
//! searches, and its local minima are partial solutions too (§3.4).
//! A partial solution whose concrete run follows a path already seen is
//! dropped before any symbolic work (§3.6). A call's partial solutions run
//! before its solution, whose open branches are then the newest; without a
//! solution they run before Z3 is asked, and if one of their runs took the
//! flipped branch, Z3 is not asked at all. Partial solutions are asked for
//! while they pay ([`Gate`]).
//!
//! Exploration is complete when no open branch is left: a branch whose
//! prefix some run already followed is not solved again, every satisfiable
//! one is run, so every feasible path is; a path completed twice (by a
//! partial solution, then by the solution) gives one test.

use super::{Dse, State};
use crate::record::Recorder;
use crate::results::TestInput;
use braid_solver::optimize::{self, minimize};
use braid_solver::partial::solve_linear;
use braid_solver::{simplex, QueryKind, SatResult};
use braid_term::{EvalError, EvalMemo, Model, Node, Sort, TermId, Value};
use rustc_hash::FxHashSet;
use serde::Serialize;
use std::collections::{BinaryHeap, VecDeque};
use std::rc::Rc;

/// Which open branch is flipped next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// The deepest open branch of the latest run.
    Dfs,
    /// The shallowest open branch of the earliest run.
    Bfs,
    /// SAGE's generational search: open branches of the runs that covered
    /// the most new branches first (earliest first among equals). The
    /// default: in 5 s on twelve real C parsers it covered more branches
    /// than `dfs` on ten (mjson 67 -> 245, picohttpparser 51 -> 125), fewer
    /// on two (semver 141 -> 136, puff 85 -> 76).
    #[default]
    Generational,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Dfs, Strategy::Bfs, Strategy::Generational];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Dfs => "dfs",
            Strategy::Bfs => "bfs",
            Strategy::Generational => "generational",
        }
    }

    pub fn parse(s: &str) -> Option<Strategy> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// `concolic`'s settings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub strategy: Strategy,
    /// MuSE: every partial solution of a solver call becomes an input.
    pub partial_solutions: bool,
    /// The first input's bytes: the k-th 8-bit input a run reads takes the
    /// k-th byte (while there are bytes), unless the input sets it.
    pub seed_bytes: Option<Vec<u8>>,
    /// The first input's values by input name (a braid test's inputs), for
    /// inputs the run's input leaves unset.
    pub seed_inputs: Vec<TestInput>,
}

impl Options {
    fn seeded(&self) -> bool {
        self.seed_bytes.is_some() || !self.seed_inputs.is_empty()
    }
}

/// What concolic execution did, for `--json` and `bench/RESULTS.md`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConcolicStats {
    pub strategy: String,
    pub partial_solutions_on: bool,
    /// Inputs run symbolically (each one path).
    pub runs: u64,
    /// Runs cut for their length ([`run_limit`]).
    pub runs_cut: u64,
    /// Open branches sent to the solver (the paper's solver calls), and of
    /// those: satisfiable, and answered by the simplex's final assignment
    /// without Z3.
    pub solver_calls: u64,
    pub sat: u64,
    pub solved_by_simplex: u64,
    /// Of those with floats: answered by the optimising search (§3.4).
    pub solved_by_search: u64,
    /// Open branches taken by a run of one of their own partial solutions,
    /// so that Z3 was not asked.
    pub solved_by_partials: u64,
    /// Time in the solvers that return partial solutions (the simplex and
    /// the float search), ms.
    pub partial_solver_ms: f64,
    /// Open branches solved without partial solutions because, over the
    /// last calls, they cost more per new path than the rest ([`Gate`]).
    pub partials_paused: u64,
    /// Open branches skipped because a run already followed their prefix.
    pub flips_already_covered: u64,
    /// Partial solutions: found, dropped by the concrete filter (their path
    /// was seen), run, and of the runs those that gave a test (a new path).
    pub partial_solutions: u64,
    pub partials_dropped: u64,
    pub partial_runs: u64,
    pub partial_tests: u64,
    /// Branches first covered by the runs of partial solutions.
    pub partial_new_branches: u64,
    /// Figure 8: solver calls by their number of partial solutions
    /// (`0`, `1`, `2-4`, `5-16`, `17-64`, `>64`).
    pub partials_per_call: Vec<(String, u64)>,
    /// Coverage over time: (milliseconds, branches covered, solver calls
    /// so far) whenever it grew.
    pub coverage: Vec<(u64, usize, u64)>,
    /// When exploration began (ms; compiling and loading the program came
    /// before): the paper's times are the exploration's.
    pub explore_start_ms: u64,
}

const PER_CALL_BUCKETS: [(&str, usize); 6] = [
    ("0", 0),
    ("1", 1),
    ("2-4", 4),
    ("5-16", 16),
    ("17-64", 64),
    (">64", usize::MAX),
];

/// Offsets runs take at one point of a path before concolic searches
/// for the point's feasible offsets ([`Dse::concolic_table`]).
const TABLE_AFTER: usize = 16;

/// The solver's time per open branch when the user sets none (ms): an
/// undecided branch makes the run incomplete, and the others go on.
pub const SOLVER_TIMEOUT_MS: u32 = 1_000;

/// The optimising search's evaluations per open branch with floats.
const SEARCH_EVALUATIONS: usize = 20_000;

/// Partial solutions taken from one solver call, at most.
const MAX_PARTIALS: usize = 256;

/// Whether partial solutions pay: per new path, what they cost (the
/// solvers that return them, the concrete runs that filter them, the
/// symbolic runs of those that take new paths) against what the rest costs
/// (Z3's answers and the solutions' runs). At the end of each window of
/// calls with partial solutions the two are compared; past [`GATE_RATIO`]
/// times the rest's, the next calls ([`GATE_WINDOW`], then twice as many
/// each time it repeats, up to 2^10 times) go to Z3 alone. A window is
/// [`GATE_FIRST`] calls after a pause (or at the start) and doubles up to
/// `GATE_WINDOW` while they pay. A solution the simplex or the float
/// search found counts on the partial solutions' side, as their time does
/// (counted on Z3's, it closed the float search of bench/muse's quadratic
/// after 8 calls: bfs+P to the baseline's coverage in 4.4 s against 48
/// ms). On real parsers the simplex alone took 2.4-4.7 s of 10 s (a
/// scratch harness over tiny-regex's `re_match`; under dfs 1 398 paths
/// against 3 524 without partial solutions). On bench/muse's float
/// programs they pay and stay on; on its parsers most calls go without
/// (bmp under dfs: 960 of 1 177 with 64-call windows).
#[derive(Default)]
struct Gate {
    partial_time: std::time::Duration,
    partial_paths: u64,
    plain_time: std::time::Duration,
    plain_paths: u64,
    calls: u64,
    /// The window under way, in calls (0: [`GATE_FIRST`]).
    window: u64,
    closed_for: u64,
    backoff: u32,
}

const GATE_FIRST: u64 = 8;
const GATE_WINDOW: u64 = 64;
const GATE_RATIO: f64 = 2.0;

impl Gate {
    /// Whether this call gets partial solutions.
    fn open(&mut self) -> bool {
        if self.closed_for > 0 {
            self.closed_for -= 1;
            return false;
        }
        true
    }

    /// A call with partial solutions was made; at a window's end, the
    /// comparison.
    fn called(&mut self) {
        self.calls += 1;
        let window = self.window.max(GATE_FIRST);
        if self.calls < window {
            return;
        }
        let per_path = |t: std::time::Duration, n: u64| t.as_secs_f64() / n.max(1) as f64;
        let mut next = (window * 2).min(GATE_WINDOW);
        if per_path(self.partial_time, self.partial_paths) > GATE_RATIO * per_path(self.plain_time, self.plain_paths) {
            self.closed_for = GATE_WINDOW << self.backoff;
            self.backoff = (self.backoff + 1).min(10);
            next = GATE_FIRST;
        } else {
            self.backoff = 0;
        }
        *self = Gate {
            window: next,
            closed_for: self.closed_for,
            backoff: self.backoff,
            ..Gate::default()
        };
    }
}

/// Work queued before the next open branch is flipped.
enum Pending {
    /// An input to run (a partial solution, or a solution); `gated`: its
    /// cost and new path count on partial solutions' side of the [`Gate`]
    /// (theirs, or a solution the simplex or the float search found, whose
    /// time is counted there).
    Run { model: Model, partial: bool, gated: bool },
    /// A flip whose partial solutions run first: Z3 is asked only if none
    /// of their runs took its branch.
    Solve(Flip),
}

/// An open branch: `cond` at the end of `path[..len]`, left by a run on
/// `parent`'s input.
struct Flip {
    path: Rc<Vec<TermId>>,
    len: usize,
    cond: TermId,
    hash: u64,
    parent: Rc<Model>,
    /// Generational: new branches the run covered; order among equals.
    score: u64,
    order: u64,
}

impl PartialEq for Flip {
    fn eq(&self, o: &Flip) -> bool {
        (self.score, self.order) == (o.score, o.order)
    }
}
impl Eq for Flip {}
impl PartialOrd for Flip {
    fn partial_cmp(&self, o: &Flip) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Flip {
    fn cmp(&self, o: &Flip) -> std::cmp::Ordering {
        // A max-heap: higher score first, then earlier.
        self.score.cmp(&o.score).then(o.order.cmp(&self.order))
    }
}

enum Flips {
    Stack(Vec<Flip>),
    Queue(VecDeque<Flip>),
    Heap(BinaryHeap<Flip>),
}

impl Flips {
    fn push(&mut self, f: Flip) {
        match self {
            Flips::Stack(v) => v.push(f),
            Flips::Queue(q) => q.push_back(f),
            Flips::Heap(h) => h.push(f),
        }
    }

    fn pop(&mut self) -> Option<Flip> {
        match self {
            Flips::Stack(v) => v.pop(),
            Flips::Queue(q) => q.pop_front(),
            Flips::Heap(h) => h.pop(),
        }
    }
}

/// The run going on: its path so far, open branches and final input.
#[derive(Default)]
struct Run {
    path: Vec<TermId>,
    /// `open[i] = (len, cond)`: `cond` was not taken after `path[..len]`.
    open: Vec<(usize, TermId)>,
    model: Option<Rc<Model>>,
    /// 8-bit inputs read so far (for the seed's bytes).
    bytes_read: usize,
    /// The run's terms evaluated under its input: the input does not change
    /// along the run (a fresh input takes its value before any term reads
    /// it), so a branch condition or an address built on earlier ones costs
    /// its new nodes only ([`Dse::eval_in_run`]).
    memo: EvalMemo,
}

pub(crate) struct Concolic {
    pub options: Options,
    todo: VecDeque<Pending>,
    flips: Flips,
    /// Hashes of every decision prefix a run followed or a flip was solved for.
    explored: FxHashSet<u64>,
    /// Hashes of the partial solutions filtered so far (one that repeats
    /// is dropped without a concrete run).
    partials_seen: FxHashSet<u64>,
    /// Hashes of the completed paths (path condition and where it ended).
    completed: FxHashSet<u64>,
    /// The offsets runs took at a symbolic offset too wide to fork on, by
    /// where it was met ([`Dse::offsets_elsewhere`]).
    offsets_taken: rustc_hash::FxHashMap<OffsetPoint, Vec<i128>>,
    /// The feasible offsets found at such a point ([`Dse::concolic_table`]).
    tables: rustc_hash::FxHashMap<OffsetPoint, Option<(i128, i128)>>,
    run: Run,
    /// The statements of the longest run that ended ([`run_limit`]).
    longest_run: u64,
    order: u64,
    gate: Gate,
    pub stats: ConcolicStats,
}

/// The statements a run may take once one has ended: [`RUN_STEPS_FACTOR`]
/// times the longest that ended, and at least [`MIN_RUN_STEPS`]. A run past
/// it is cut, without a test (as a frontier test past its bound is not
/// written), and the exploration is incomplete; its open branches are
/// flipped as any run's. An input for which the program loops for ever
/// otherwise held the rest of the exploration: cesanta/slre's matcher
/// given the regex `\x01[\\` (a set that ends in a backslash: the
/// matcher's loop moves on by 0 bytes), found by concolic's 30th run over a
/// symbolic 3-byte regex, ran until the time limit (29 paths; dse, whose
/// loop-head merging finds the state repeating, 2 879).
fn run_limit(longest: u64) -> Option<u64> {
    (longest > 0).then(|| longest.saturating_mul(RUN_STEPS_FACTOR).max(MIN_RUN_STEPS))
}

const RUN_STEPS_FACTOR: u64 = 64;
const MIN_RUN_STEPS: u64 = 1 << 24;

/// A model's hash, independent of the map's order.
fn model_hash(m: &Model) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut entries: Vec<_> = m.iter().collect();
    entries.sort_unstable_by_key(|(s, _)| **s);
    let mut h = rustc_hash::FxHasher::default();
    entries.hash(&mut h);
    h.finish()
}

fn mix(h: u64, t: TermId) -> u64 {
    (h.rotate_left(11) ^ t.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The hash of `path`'s prefixes of each length (`out[k]` for `path[..k]`).
/// The hash of the empty decision prefix.
const EMPTY_PREFIX: u64 = 0x5851_F42D_4C95_7F2D;

/// The hash of a whole decision sequence (the last of its prefix hashes).
fn path_hash(path: &[TermId]) -> u64 {
    path.iter().fold(EMPTY_PREFIX, |h, t| mix(h, *t))
}

/// The hash of where a state is: its path's decisions and its statement.
fn place_hash(st: &State) -> u64 {
    let f = st.top();
    path_hash(&st.path) ^ ((f.func.0 as u64) << 32 | f.at as u64)
}

/// Where a run meets a symbolic offset `off` under `guard`
/// ([`Dse::offsets_elsewhere`], [`Dse::concolic_table`]).
pub(super) type OffsetPoint = (u64, TermId, TermId);

pub(super) fn offset_point(st: &State, guard: TermId, off: TermId) -> OffsetPoint {
    (place_hash(st), guard, off)
}

fn prefix_hashes(path: &[TermId]) -> Vec<u64> {
    let mut out = Vec::with_capacity(path.len() + 1);
    let mut h = EMPTY_PREFIX;
    out.push(h);
    for t in path {
        h = mix(h, *t);
        out.push(h);
    }
    out
}

impl Concolic {
    pub fn new(options: Options) -> Concolic {
        let flips = match options.strategy {
            Strategy::Dfs => Flips::Stack(Vec::new()),
            Strategy::Bfs => Flips::Queue(VecDeque::new()),
            Strategy::Generational => Flips::Heap(BinaryHeap::new()),
        };
        let stats = ConcolicStats {
            strategy: options.strategy.name().to_string(),
            partial_solutions_on: options.partial_solutions,
            partials_per_call: PER_CALL_BUCKETS.iter().map(|(n, _)| (n.to_string(), 0)).collect(),
            ..ConcolicStats::default()
        };
        Concolic {
            options,
            todo: VecDeque::new(),
            flips,
            explored: FxHashSet::default(),
            partials_seen: FxHashSet::default(),
            completed: FxHashSet::default(),
            offsets_taken: Default::default(),
            tables: Default::default(),
            run: Run::default(),
            longest_run: 0,
            order: 0,
            gate: Gate::default(),
            stats,
        }
    }
}

impl Dse<'_> {
    /// Concolic decisions: whether `cond` holds under the run's input; the
    /// other sides are recorded as the run's open branches.
    pub(super) fn decide_concretely(&mut self, st: &State, cond: TermId) -> Option<Model> {
        let holds = self.eval_in_run(cond, &st.model) == Ok(Value::Bool(true));
        let c = self.concolic.as_mut().expect("concolic");
        let run = &mut c.run;
        debug_assert!(run.path.len() < st.path.len() || run.path[..st.path.len()] == st.path[..]);
        if run.path.len() < st.path.len() {
            run.path.extend_from_slice(&st.path[run.path.len()..]);
        }
        if holds {
            Some(Model::default())
        } else {
            run.open.push((st.path.len(), cond));
            None
        }
    }

    /// `t`'s value under `model`, a state's own input: in a concolic run
    /// (whose one state keeps its input) through the run's memo, else
    /// through the memo of evaluations under the state's model
    /// ([`Dse::hint_memo`]).
    pub(super) fn eval_in_run(&mut self, t: TermId, model: &Rc<Model>) -> Result<Value, EvalError> {
        match self.concolic.as_mut() {
            Some(c) if !self.probing => self.store.eval_with(t, model, &mut c.run.memo),
            _ => self
                .store
                .eval_with(t, model, super::memo_for(&mut self.hint_memo, model)),
        }
    }

    /// A fresh input of a concolic run takes its seed value (by name, or
    /// the next seed byte) if the run's input leaves it unset.
    pub(super) fn seed_input(&mut self, st: &mut State, t: TermId) {
        let Some(c) = self.concolic.as_mut().filter(|c| c.options.seeded()) else {
            return;
        };
        let Node::Sym(s) = *self.store.node(t) else { return };
        let sort = self.store.sort(t);
        let mut value = None;
        if sort == Sort::Bv(8) {
            let k = c.run.bytes_read;
            c.run.bytes_read += 1;
            value = c
                .options
                .seed_bytes
                .as_ref()
                .and_then(|b| b.get(k))
                .map(|&byte| Value::Bv {
                    width: 8,
                    bits: byte as u64,
                });
        }
        let name = &self.store.symbol(s).name;
        if let Some(v) = c
            .options
            .seed_inputs
            .iter()
            .find(|i| i.name == *name)
            .and_then(TestInput::parsed)
        {
            value = Some(v);
        }
        match value {
            Some(v) if v.sort() == sort && !st.model.contains_key(&s) => {
                Rc::make_mut(&mut st.model).insert(s, v);
            }
            _ => {}
        }
    }

    /// A concolic run took offset `k` of the offset at `point`, one of more
    /// than the run forks on: the open branch of the other offsets, which
    /// excludes every offset a run took at this point of this path. (The
    /// other offsets as `off != k` alone let the next run's flip come back
    /// to `k`: a scratch harness over tinf's inflate, over 2 bytes, never
    /// decoded 4 of the fixed Huffman codes' first symbols that dse did,
    /// and called its exploration complete.)
    pub(super) fn offsets_elsewhere(&mut self, point: OffsetPoint, k: i128) -> TermId {
        let off = point.2;
        let c = self.concolic.as_mut().expect("concolic");
        let taken = c.offsets_taken.entry(point).or_default();
        if !taken.contains(&k) {
            taken.push(k);
        }
        let taken = taken.clone();
        let mut elsewhere = self.store.bool(true);
        for v in taken {
            let vt = self.store.constant(Value::Int(v));
            let is_v = self.store.eq(off, vt);
            let not_v = self.store.not(is_v);
            elsewhere = self.store.and(elsewhere, not_v);
        }
        elsewhere
    }

    /// The feasible offsets of the offset at `point` (the run's path so
    /// far, the statement, the guard and the offset), searched for (as dse does) once runs have taken
    /// [`TABLE_AFTER`] offsets there, and once per point: past that many the
    /// point reads a table, whose offsets one run per offset would explore
    /// (the caller reads them as one array when they hold constants).
    pub(super) fn concolic_table(
        &mut self,
        st: &State,
        point: OffsetPoint,
        k: i128,
        (last, span): (i128, usize),
    ) -> Option<(i128, i128)> {
        let c = self.concolic.as_ref()?;
        if c.offsets_taken.get(&point).is_none_or(|t| t.len() < TABLE_AFTER) {
            return None;
        }
        if let Some(w) = c.tables.get(&point) {
            return *w;
        }
        let (_, guard, off) = point;
        let w = self.offset_range(st, guard, off, k, last, span);
        self.concolic.as_mut()?.tables.insert(point, w);
        w
    }

    /// A concolic run's path ended: records its final input, and whether
    /// the path is new. (A solution runs after the partial solutions of its
    /// call, and one of them may have taken its path already.)
    pub(super) fn concolic_finish(&mut self, st: &State) -> bool {
        let Some(c) = self.concolic.as_mut() else {
            return true;
        };
        if c.run.path.len() < st.path.len() {
            c.run.path.extend_from_slice(&st.path[c.run.path.len()..]);
        }
        c.run.model = Some(st.model.clone());
        let end = place_hash(st);
        c.completed.insert(end)
    }

    /// Algorithm 1: run inputs, collect their open branches, flip one by
    /// the strategy, solve, repeat until none is left or the budget stops.
    pub(super) fn explore_concolic(&mut self, rec: &mut Recorder) -> Result<(), super::EngineError> {
        self.initial_state()?;
        let started = self.budget.elapsed().as_millis() as u64;
        let c = self.concolic.as_mut().expect("concolic");
        c.stats.explore_start_ms = started;
        c.todo.push_back(Pending::Run {
            model: Model::default(),
            partial: false,
            gated: false,
        });
        while !self.budget.stopped() {
            let c = self.concolic.as_mut().expect("concolic");
            match c.todo.pop_front() {
                Some(Pending::Run { model, partial, gated }) => {
                    let began = std::time::Instant::now();
                    let tests = rec.tests();
                    self.run_input(model, partial, rec)?;
                    let (took, new) = (began.elapsed(), (rec.tests() - tests) as u64);
                    let g = &mut self.concolic.as_mut().expect("concolic").gate;
                    match gated {
                        true => (g.partial_time += took, g.partial_paths += new),
                        false => (g.plain_time += took, g.plain_paths += new),
                    };
                    continue;
                }
                Some(Pending::Solve(flip)) => {
                    // A partial solution's run that took the branch filed
                    // its prefix: the branch is explored without Z3.
                    if !c.explored.insert(flip.hash) {
                        c.stats.solved_by_partials += 1;
                    } else {
                        self.solve_with_z3(flip);
                    }
                    continue;
                }
                None => {}
            }
            let Some(flip) = c.flips.pop() else { break };
            if !c.explored.insert(flip.hash) {
                c.stats.flips_already_covered += 1;
                continue;
            }
            self.solve_flip(flip);
        }
        self.flush(rec);
        // A run cut short by the stop covers branches too (its input is a
        // test at the frontier): the record over time ends at the final
        // coverage.
        let c = self.concolic.as_ref().expect("concolic");
        if rec.covered().len() > c.stats.coverage.last().map_or(0, |at| at.1) {
            self.note_coverage(rec);
        }
        Ok(())
    }

    /// A point of the coverage over time: now, the branches covered, the
    /// solver calls so far.
    fn note_coverage(&mut self, rec: &Recorder) {
        let elapsed = self.budget.elapsed().as_millis() as u64;
        let c = self.concolic.as_mut().expect("concolic");
        c.stats
            .coverage
            .push((elapsed, rec.covered().len(), c.stats.solver_calls));
    }

    /// Runs one input along its path (unless it is a partial solution whose
    /// path was seen), then files its open branches.
    fn run_input(&mut self, model: Model, partial: bool, rec: &mut Recorder) -> Result<(), super::EngineError> {
        if partial {
            let c = self.concolic.as_mut().expect("concolic");
            if !c.partials_seen.insert(model_hash(&model)) {
                c.stats.partials_dropped += 1;
                return Ok(());
            }
            let inputs: Vec<TestInput> = model
                .iter()
                .map(|(s, v)| TestInput::new(&self.store.symbol(*s).name, *v))
                .collect();
            match rec.new_path(&inputs) {
                None => return Ok(()),
                Some(false) => {
                    self.concolic.as_mut().expect("concolic").stats.partials_dropped += 1;
                    return Ok(());
                }
                Some(true) => {}
            }
        }
        let covered_before = rec.covered().len();
        let tests_before = rec.tests();
        let input = Rc::new(model);
        let mut st = self.initial_state()?;
        st.model = input.clone();
        {
            let c = self.concolic.as_mut().expect("concolic");
            c.run = Run::default();
            c.stats.runs += 1;
            // The entry's parameters were read before the run began.
            if c.options.seeded() {
                for t in st.inputs.terms() {
                    self.seed_input(&mut st, t);
                }
            }
        }
        let mut live = Some(st);
        let start = self.result.stats.statements;
        let limit = run_limit(self.concolic.as_ref().expect("concolic").longest_run);
        let mut cut = false;
        while let Some(st) = live.take() {
            if self.budget.stopped() {
                // The stopped run's input becomes a test at the frontier.
                self.flush(rec);
                self.frontier(vec![st], rec);
                return Ok(());
            }
            let steps = self.result.stats.statements - start;
            if let Some(limit) = limit.filter(|l| steps > *l) {
                self.incomplete(format!(
                    "concolic: a run passed {limit} statements, {RUN_STEPS_FACTOR} times the longest that \
                     ended (a loop that may not end): cut, without a test"
                ));
                self.concolic.as_mut().expect("concolic").stats.runs_cut += 1;
                cut = true;
                break;
            }
            let mut parts = self.run_slice(st);
            debug_assert!(parts.len() <= 1, "a concolic run follows one path");
            live = parts.pop();
        }
        let c = self.concolic.as_mut().expect("concolic");
        if !cut {
            c.longest_run = c.longest_run.max(self.result.stats.statements - start);
        } else {
            // A cut run's branches repeat: each condition is flipped at its
            // first place only (a loop at one state for ever left 190 000
            // open branches, the same one at each turn).
            let mut seen = FxHashSet::default();
            c.run.open.retain(|(_, cond)| seen.insert(*cond));
        }
        self.flush(rec);
        let gained = (rec.covered().len() - covered_before) as u64;
        let c = self.concolic.as_mut().expect("concolic");
        if partial {
            c.stats.partial_runs += 1;
            c.stats.partial_tests += (rec.tests() - tests_before) as u64;
            c.stats.partial_new_branches += gained;
        }
        if gained > 0 {
            self.note_coverage(rec);
        }
        let c = self.concolic.as_mut().expect("concolic");
        let run = std::mem::take(&mut c.run);
        let hashes = prefix_hashes(&run.path);
        c.explored.extend(hashes.iter().skip(1).copied());
        let path = Rc::new(run.path);
        let parent = run.model.unwrap_or(input);
        for (len, cond) in run.open {
            let hash = mix(hashes[len], cond);
            if c.explored.contains(&hash) {
                continue;
            }
            c.order += 1;
            c.flips.push(Flip {
                path: path.clone(),
                len,
                cond,
                hash,
                parent: parent.clone(),
                score: gained,
                order: c.order,
            });
        }
        rec.progress(self.result.paths, 1);
        Ok(())
    }

    /// Asks for an input that takes `flip`: the simplex first when partial
    /// solutions are on and pay ([`Gate`]; its partial solutions become
    /// inputs too), else or then Z3. The solver's assignment overrides the
    /// parent's input.
    ///
    /// The partial solutions run before Z3 is asked (seed 002's point: one
    /// call, many paths): if one of their runs takes the flipped branch, the
    /// branch is explored and Z3 is not asked at all.
    fn solve_flip(&mut self, flip: Flip) {
        let c = self.concolic.as_mut().expect("concolic");
        c.stats.solver_calls += 1;
        if !c.options.partial_solutions || !c.gate.open() {
            if c.options.partial_solutions {
                c.stats.partials_paused += 1;
            }
            c.stats.partials_per_call[0].1 += 1;
            self.solve_with_z3(flip);
            return;
        }
        c.gate.called();
        let over = |m: &Model| over_parent(&flip.parent, m);
        let mut solution = None;
        let mut query = flip.path[..flip.len].to_vec();
        query.push(flip.cond);
        let began = std::time::Instant::now();
        let linear = solve_linear(&self.store, &query, &flip.parent, simplex::Limits::default());
        if let Some(m) = &linear.solution {
            let m = over(m);
            if self.store.satisfies(&query, &m) {
                solution = Some(m);
                self.concolic.as_mut().expect("concolic").stats.solved_by_simplex += 1;
            }
        }
        let mut partials: Vec<Model> = linear.partials.iter().take(MAX_PARTIALS).map(over).collect();
        // Floating point: the search's local minima (§3.4).
        let floats = query.iter().any(|c| {
            self.store
                .symbols(*c)
                .iter()
                .any(|s| matches!(self.store.symbol(*s).sort, Sort::F32 | Sort::F64))
        });
        if solution.is_none() && floats {
            let limits = optimize::Limits {
                evaluations: SEARCH_EVALUATIONS,
            };
            let found = minimize(&self.store, &query, &flip.parent, limits);
            if let Some(m) = found.solution.filter(|m| self.store.satisfies(&query, m)) {
                solution = Some(m);
                self.concolic.as_mut().expect("concolic").stats.solved_by_search += 1;
            }
            partials.extend(found.partials.into_iter().take(MAX_PARTIALS));
        }
        let c = self.concolic.as_mut().expect("concolic");
        let took = began.elapsed();
        c.stats.partial_solver_ms += took.as_secs_f64() * 1e3;
        c.gate.partial_time += took;
        let bucket = PER_CALL_BUCKETS
            .iter()
            .position(|(_, max)| partials.len() <= *max)
            .expect("the last bucket has no bound");
        c.stats.partials_per_call[bucket].1 += 1;
        c.stats.partial_solutions += partials.len() as u64;
        // Partial solutions run first and the solution (or the question to
        // Z3) last, so that the strategy finds the solution's open branches
        // newest: with them on, dfs still goes where it would without, the
        // partial solutions' paths covered on the way.
        let none = partials.is_empty();
        for m in partials {
            c.todo.push_back(Pending::Run {
                model: m,
                partial: true,
                gated: true,
            });
        }
        match solution {
            Some(m) => {
                c.stats.sat += 1;
                c.todo.push_back(Pending::Run {
                    model: m,
                    partial: false,
                    gated: true,
                });
            }
            None if none => self.solve_with_z3(flip),
            None => {
                // Not explored until a run takes it or Z3 has answered.
                c.explored.remove(&flip.hash);
                c.todo.push_back(Pending::Solve(flip));
            }
        }
    }

    /// Asks Z3 for an input that takes `flip`, queued to run if there is one.
    fn solve_with_z3(&mut self, flip: Flip) {
        let began = std::time::Instant::now();
        self.ask_z3(flip);
        self.concolic.as_mut().expect("concolic").gate.plain_time += began.elapsed();
    }

    fn ask_z3(&mut self, flip: Flip) {
        self.solver.kind = QueryKind::Branch;
        let prefix = &flip.path[..flip.len];
        // The flips of a run share its input: their questions evaluate it
        // through one memo (tinyexpr over 3 bytes: a third of the run
        // evaluated each flip's question afresh).
        let memo = super::memo_for(&mut self.hint_memo, &flip.parent);
        match self
            .solver
            .check_memo(&self.store, prefix, flip.cond, Some((&flip.parent, memo)))
        {
            SatResult::Sat(m) => {
                let c = self.concolic.as_mut().expect("concolic");
                c.stats.sat += 1;
                c.todo.push_back(Pending::Run {
                    model: over_parent(&flip.parent, &m),
                    partial: false,
                    gated: false,
                });
            }
            SatResult::Unsat => {}
            SatResult::Unknown(reason) => {
                if !self.budget.poll() {
                    self.incomplete(format!("solver: {reason}"));
                }
            }
        }
    }
}

/// The parent's input with `m`'s values over it.
fn over_parent(parent: &Model, m: &Model) -> Model {
    let mut input = parent.clone();
    input.extend(m.iter().map(|(s, v)| (*s, *v)));
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Calls with partial solutions until the gate compares, each call's
    /// partial solutions and the rest costing (ms, new paths) as given;
    /// returns how many.
    fn window(g: &mut Gate, partial: (u64, u64), plain: (u64, u64)) -> u64 {
        let mut calls = 0;
        loop {
            assert!(g.open(), "the gate is open within a window");
            g.partial_time += Duration::from_millis(partial.0);
            g.partial_paths += partial.1;
            g.plain_time += Duration::from_millis(plain.0);
            g.plain_paths += plain.1;
            calls += 1;
            g.called();
            if g.calls == 0 {
                return calls;
            }
        }
    }

    /// Partial solutions that pay keep the gate open, its windows growing
    /// from 8 calls to 64; once they cost more than twice the rest per new
    /// path, the next 64 calls (then 128, ...) go without, and the window
    /// after each pause is 8 calls.
    #[test]
    fn the_gate_closes_soon_where_partial_solutions_do_not_pay() {
        let mut g = Gate::default();
        let paying = [8, 16, 32, 64, 64].map(|_| window(&mut g, (1, 1), (1, 1)));
        assert_eq!(paying, [8, 16, 32, 64, 64]);
        assert_eq!((g.closed_for, g.backoff), (0, 0));
        // The window under way when they stop paying is 64 calls; after a
        // pause, 8.
        for (round, (calls, paused)) in [(64, 64), (8, 128), (8, 256)].into_iter().enumerate() {
            assert_eq!(window(&mut g, (10, 0), (1, 1)), calls, "round {round}");
            let mut closed = 0;
            while !g.open() {
                closed += 1;
            }
            assert_eq!(closed, paused, "round {round}");
        }
        // Paying again: the backoff goes, and the windows grow again.
        assert_eq!(window(&mut g, (1, 1), (1, 1)), 8);
        assert_eq!(g.backoff, 0);
        assert_eq!(window(&mut g, (1, 1), (1, 1)), 16);
    }
}
