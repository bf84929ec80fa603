//! `dse`: forking symbolic execution, one state per path, as in KLEE.
//!
//! A state runs until it reaches a branch with two feasible sides, where it
//! forks; each side is checked by the solver (through constraint independence
//! and the caches) unless the state's own model already decides it. Bugs are
//! checked where they can happen (failed `assert`, division by zero, memory
//! access through a non-address or out of bounds): a feasible bug ends a copy
//! of the state with a reproducing test, and the state goes on under the
//! negated bug condition. Every completed path gives one test.

mod ahead;
pub mod concolic;
pub mod loops;
pub mod merging;
pub(crate) mod second;
mod state;

use crate::config::Config;
use crate::record::Recorder;
use crate::results::{Branch, Outcome, RaceStats, RunResult, TestCase, TestInput};
use crate::run::{Engine, EngineKind};
use crate::search::{make_driver, make_searcher, StateId, StateInfo};
use crate::semantics::{
    bug_kind, compose_bytes, one_sort, split_bytes, BugKind, Offset, MAX_ALLOC, MAX_CALL_DEPTH, MAX_OFFSET_FORK,
    MAX_SYMBOLIC_READ, MAX_SYMBOLIC_WRITE, SMALL_FORK, TIGHT_SPAN,
};
use crate::EngineError;
use braid_budget::Budget;
use braid_ir::{FuncId, Module, Operand, Rhs, Stmt, StmtIdx as At, VarId};
use braid_solver::{QueryKind, QuerySolver, SatResult};
use braid_term::{Node, Op, Sort, TermId, TermStore, Value};
use merging::{Merger, Merging, Scheduler, Similarity, Strategy, SPLIT_AFTER_MS};
use rustc_hash::{FxHashMap, FxHashSet};
use state::{Cells, Frame, State};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Statements a state runs before the searcher chooses again.
const SLICE: u64 = 10_000;
/// The share of the memory limit at which dse sheds live states
/// ([`Dse::shed`]).
const SHED_FROM: f64 = 0.6;
/// A shedding that frees less than this share of the heap is the last
/// ([`Dse::shed`]): half of the states held less than twice as much.
const SHED_FUTILE: f64 = 0.1;
/// Merge conditions a load looks through to put a word's bytes together
/// as a choice of words (see `assemble`); at 3, the B-tree of
/// bench/containers under ssm read keys as four choices of bytes, which
/// neither the difference bounds nor Z3 reason about well.
const ASSEMBLE_DEPTH: u32 = 16;
struct States(FxHashMap<StateId, State>);

/// An exploration under way: its live states and the order they run in.
struct Exploration {
    states: States,
    sched: Scheduler,
    next_id: StateId,
}

impl StateInfo for States {
    fn steps_since_cover(&self, id: StateId) -> u64 {
        self.0.get(&id).map_or(0, |s| s.steps_since_cover)
    }
}

/// The end of a run that gave merging up (`engine`: multise, ssm or dsm;
/// `why`: when and why): its state is gone and the allocator's free memory
/// handed back; `dse` explores from the start under the same budget and
/// recorder (with `merging`, ssm's or dsm's: multise's guards that grew
/// too large to pay can still be merged as values), and its result is
/// reported as `engine`'s. (Beside a dse on its thread: [`ssm_beside`].)
#[allow(clippy::too_many_arguments)]
pub(crate) fn explore_from_start(
    module: &Module,
    entry: FuncId,
    program: &str,
    config: Config,
    merging: Option<Merging>,
    budget: &Budget,
    rec: &mut Recorder,
    engine: EngineKind,
    why: String,
    solver_before: braid_solver::SolverStats,
) -> Result<RunResult, EngineError> {
    merging::release_memory(budget);
    let mut dse = Dse::new(module, entry, program, config);
    if let Some(m) = merging {
        dse = dse.with_merging(m);
    }
    let mut dse = Box::new(dse);
    // The run's solver statistics count the merging engine's questions too.
    dse.solver.stats = solver_before;
    let mut r = dse.run(budget, rec)?;
    r.engine = engine.name().into();
    r.stats.merging_given_up = Some(then_given_up(why, r.stats.merging_given_up.take()));
    Ok(r)
}

/// Why merging was given up, and then why the next engine's was.
pub(crate) fn then_given_up(why: String, then: Option<String>) -> String {
    match then {
        Some(then) => format!("{why}; then {then}"),
        None => why,
    }
}

/// What [`ssm_beside`] ends with.
pub(crate) enum Beside {
    /// The run's result (ssm or dse finished, or the budget stopped).
    Ended(Box<RunResult>),
    /// ssm was given up and dse goes on on its thread, handed back; the
    /// solver statistics so far, and ssm's time.
    HandedBack(second::Second, Box<braid_solver::SolverStats>, Duration),
}

/// multise's merging given up: ssm (`merging`) explores from the start
/// beside `second`, dse on its thread (under way, or started now), with
/// `base` the memory in use before multise explored
/// ([`Dse::race_beside`]), and whichever finishes first ends the run: the
/// run's thread, idle while dse explored alone, merges as values what
/// multise could not as guards. With `hand_back` (multise's guards given
/// up for their BDD operations' share before dse raced), once ssm is given
/// up (it took its `merge_for_ms`, or its memory outgrew dse's) dse's
/// thread is handed back, for multise to merge again beside it; otherwise
/// dse goes on alone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn ssm_beside(
    module: &Module,
    entry: FuncId,
    program: &str,
    config: Config,
    merging: Merging,
    (second, base): (second::Second, i64),
    hand_back: bool,
    budget: &Budget,
    rec: &mut Recorder,
    why: String,
    solver_before: braid_solver::SolverStats,
) -> Result<Beside, EngineError> {
    merging::release_memory(budget);
    let mut dse = Box::new(Dse::new(module, entry, program, config).with_merging(merging));
    // The run's solver statistics count multise's questions too.
    dse.solver.stats = solver_before;
    dse.prepare(budget);
    dse.hand_back = hand_back;
    let raced = dse.race_beside(second, Duration::ZERO, Some(base), rec)?;
    if let Some(second) = dse.handed_back.take() {
        let (stats, explored) = (Box::new(std::mem::take(&mut dse.solver.stats)), dse.explored);
        drop(dse);
        merging::release_memory(budget);
        return Ok(Beside::HandedBack(second, stats, explored));
    }
    let mut r = dse.after_race(raced, budget, rec)?;
    r.engine = EngineKind::Multise.name().into();
    let why = format!("{why}; ssm explored from the start beside it");
    r.stats.merging_given_up = Some(then_given_up(why, r.stats.merging_given_up.take()));
    Ok(Beside::Ended(Box::new(r)))
}

/// How often a race on a thread notes merging's heap ([`Dse::race_on_thread`]).
const HEAP_SAMPLE: Duration = Duration::from_millis(5);

/// A dse exploration from the start that runs a slice at a time beside
/// another engine's (the races of ssm and dsm, [`Dse::race`], and of
/// multise, [`crate::multise::Options::fallback`]): its tests go to the
/// same recorder, which from its start keeps one test per path.
pub(crate) struct Rival<'m> {
    dse: Box<Dse<'m>>,
    ex: Exploration,
}

/// The configuration of a dse raced against merging: its solver's log
/// (`--dump-queries`) beside the other engine's.
fn rival_config(mut config: Config) -> Config {
    if let Some(dir) = &mut config.dump_queries {
        *dir = dir.join("dse");
        let _ = std::fs::create_dir_all(&*dir);
    }
    config
}

impl<'m> Rival<'m> {
    pub(crate) fn start(
        module: &'m Module,
        entry: FuncId,
        program: &str,
        config: Config,
        budget: &Budget,
        rec: &mut Recorder,
    ) -> Result<Rival<'m>, EngineError> {
        let mut dse = Box::new(Dse::new(module, entry, program, rival_config(config)));
        dse.prepare(budget);
        // Most paths are found twice now.
        rec.keep_distinct_paths();
        let ex = dse.begin()?;
        Ok(Rival { dse, ex })
    }

    /// Runs one slice; `false` once dse has finished. `peer`: the other
    /// engine's paths and live states, for the progress line.
    pub(crate) fn slice(&mut self, rec: &mut Recorder, peer: (u64, usize)) -> bool {
        self.dse.peer = peer;
        self.dse.next_slice(&mut self.ex, rec)
    }

    pub(crate) fn paths(&self) -> u64 {
        self.dse.result.paths
    }

    /// dse's result as the run's (`engine`'s, with why the other engine's
    /// was not): it explores on alone until it finishes or the budget
    /// stops it, its live states then becoming tests. `solver_before`: the
    /// other engine's solver statistics, counted in.
    pub(crate) fn finish(
        self,
        rec: &mut Recorder,
        engine: EngineKind,
        why: String,
        solver_before: &braid_solver::SolverStats,
    ) -> RunResult {
        let Rival { mut dse, mut ex } = self;
        dse.peer = (0, 0);
        while !dse.budget.stopped() && dse.next_slice(&mut ex, rec) {}
        dse.end(ex, rec);
        dse.solver.stats.absorb(solver_before);
        let mut r = dse.into_result();
        r.engine = engine.name().into();
        r.stats.merging_given_up = Some(why);
        r
    }

    /// A stopped run: dse's live states become tests.
    pub(crate) fn stop(self, rec: &mut Recorder) {
        let Rival { mut dse, ex } = self;
        dse.end(ex, rec);
    }
}

impl Engine for Dse<'_> {
    fn kind(&self) -> EngineKind {
        self.engine_kind()
    }

    fn run(mut self: Box<Self>, budget: &Budget, rec: &mut Recorder) -> Result<RunResult, EngineError> {
        self.prepare(budget);
        if self.concolic.is_some() {
            self.explore_concolic(rec)?;
        } else if let Some(after) = self.merger.as_ref().and_then(|m| m.config.race_after_ms) {
            let after = Duration::from_millis(after as u64);
            let threads = self.merger.as_ref().is_some_and(|m| m.config.race_threads) && second::possible();
            let raced = if threads {
                // dse's thread borrows the module.
                std::thread::scope(|scope| self.race_on_thread(after, scope, rec))?
            } else {
                self.race_in_turns(after, rec)?
            };
            return self.after_race(raced, budget, rec);
        } else {
            self.explore(rec)?;
        }
        self.after_exploring(budget, rec)
    }
}

impl<'m> Dse<'m> {
    /// The run's result after a race (`raced`: as [`Dse::race`] returns).
    fn after_race(
        mut self: Box<Self>,
        raced: Option<(RunResult, String)>,
        budget: &Budget,
        rec: &mut Recorder,
    ) -> Result<RunResult, EngineError> {
        let Some((mut r, why)) = raced else {
            return self.after_exploring(budget, rec);
        };
        // dse finished first, or merging was given up: dse's result is the
        // run's, its solver statistics counting merging's.
        let engine = self.engine_kind();
        let (merged, splits) = (self.result.stats.states_merged, self.result.stats.splits);
        let race = self.result.stats.race.take();
        drop(self);
        r.engine = engine.name().into();
        r.stats.merging_given_up = Some(why);
        r.stats.states_merged = merged;
        r.stats.splits = splits;
        // The race was noted when merging was given up; dse went on alone
        // and finished, or the budget stopped it.
        r.stats.race = race.map(|s| RaceStats {
            winner: s.winner.filter(|_| !budget.stopped()),
            dse_paths: s.dse_paths.max(r.paths),
            ..s
        });
        Ok(r)
    }

    /// The run's result once it has explored (merging given up: dse from
    /// the start).
    fn after_exploring(mut self: Box<Self>, budget: &Budget, rec: &mut Recorder) -> Result<RunResult, EngineError> {
        if let Some(why) = self.merging_given_up.take() {
            // The paths under way handed over their models as tests.
            let merged = self.result.stats.states_merged;
            let (module, entry, config) = (self.module, self.entry, self.config.clone());
            let (engine, program) = (self.engine_kind(), std::mem::take(&mut self.program));
            let solver_before = std::mem::take(&mut self.solver.stats);
            drop(self);
            let mut r = explore_from_start(
                module,
                entry,
                &program,
                config,
                None,
                budget,
                rec,
                engine,
                why,
                solver_before,
            )?;
            r.stats.states_merged = merged;
            return Ok(r);
        }
        Ok(self.into_result())
    }
}

pub struct Dse<'m> {
    module: &'m Module,
    entry: FuncId,
    program: String,
    config: Config,
    store: TermStore,
    solver: QuerySolver,
    result: RunResult,
    covered: FxHashSet<Branch>,
    live: usize,
    /// Whether the state running its slice is the only one (no other state
    /// it could be merged with).
    alone: bool,
    /// Time spent in this engine's own slices, each side's time in a race
    /// ([`Dse::race`]): a dse raced against merging shares the run's time,
    /// and loop-head merging's share of time
    /// ([`loops::GIVE_UP_SHARE`]) is of this one (of the run's, loop-head
    /// merging in a dse that started after merging's head start never took
    /// a quarter, and Calc Parser's raced dse kept 4 600 entries it gives
    /// up alone: 140 MB against 81).
    explored: Duration,
    /// Per function, which statements are loop heads (for the loop bound).
    loop_heads: Vec<Vec<bool>>,
    budget: Budget,
    /// Tests found since the recorder last took them.
    found: Vec<TestCase>,
    /// State merging (`ssm`, `dsm`), when on.
    merger: Option<Merger<'m>>,
    /// Why merging was given up (see [`Merging::fallback`]).
    merging_given_up: Option<String>,
    /// Whether a term contains `ite` (for the statistics of merging).
    has_ite: FxHashMap<TermId, bool>,
    /// Path constraints as tests show them, by term: consecutive tests share
    /// most of their path (a B-tree of 7 operations writes 387 000 tests).
    shown: FxHashMap<TermId, String>,
    /// A query on a merged state ran out of its time: split the state.
    split_requested: bool,
    /// Whether a step is running (and so can be undone to split its state).
    stepping: bool,
    /// Branches the running step covered first (undone if it is).
    step_covered: Vec<Branch>,

    /// Completed merged states with merged paths still to test.
    pending: Vec<(State, Ending, Vec<usize>)>,

    /// Concolic execution (MuSE), when on: decisions follow the input.
    concolic: Option<Box<concolic::Concolic>>,
    /// A query that must reach the solver even in a concolic run (the
    /// feasible range of a symbolic offset).
    probing: bool,
    /// Loop-head merging (seed 003), when on.
    loops: Option<loops::LoopMerge>,
    /// States loop-head merging stopped that first covered branches: their
    /// inputs, and those branches (a test is made if no test covers them).
    stopped_at_heads: Vec<(Vec<TestInput>, Vec<Branch>)>,
    /// Live variables per statement of the functions loop-head merging
    /// looked at (dead variables do not tell states apart).
    live_vars: FxHashMap<FuncId, braid_ir::Liveness>,
    /// Running states ahead in the concrete interpreter, when on.
    ahead: Option<ahead::Ahead>,
    /// In a race ([`Dse::race`]), the other exploration's paths and live
    /// states, for the progress line.
    peer: (u64, usize),
    /// In a race, once dse has started: the bytes merging may still grow
    /// by before the race's memory rule gives it up ([`merging::heap_outgrown`]).
    race_room: Option<i64>,
    /// Whether [`Dse::race_beside`] hands dse's thread back once merging
    /// is given up ([`ssm_beside`]), and the thread handed back.
    hand_back: bool,
    handed_back: Option<second::Second>,
    /// This thread's live heap when states were last shed ([`Dse::shed`];
    /// `i64::MAX` once a shedding freed too little to go on).
    shed_heap: i64,
    /// Evaluations of terms under the model of the state last asked about
    /// ([`Dse::decide`]), kept while that model is (the same `Rc`, which
    /// holding it here keeps from being changed in place).
    hint_memo: Option<(Rc<braid_term::Model>, braid_term::EvalMemo)>,
}

/// The most evaluations [`Dse::hint_memo`] keeps before it starts over.
const HINT_MEMO_MAX: usize = 1 << 17;

/// The memo of evaluations under `model` in `slot`, emptied if it was
/// another model's or has grown past [`HINT_MEMO_MAX`].
fn memo_for<'a>(
    slot: &'a mut Option<(Rc<braid_term::Model>, braid_term::EvalMemo)>,
    model: &Rc<braid_term::Model>,
) -> &'a mut braid_term::EvalMemo {
    match slot {
        Some((m, memo)) if Rc::ptr_eq(m, model) && memo.len() <= HINT_MEMO_MAX => {}
        _ => *slot = Some((model.clone(), braid_term::EvalMemo::default())),
    }
    &mut slot.as_mut().expect("just set").1
}

/// Loop-head merging's implication check, by one solver query: `path`
/// implies the goals if `path ∧ ¬(goals)` is unsat.
struct ImpliesBySolver<'a> {
    solver: &'a mut QuerySolver,
    model: &'a braid_term::Model,
}

impl loops::Implies for ImpliesBySolver<'_> {
    fn implies(&mut self, store: &mut TermStore, path: &[TermId], goals: &[TermId]) -> bool {
        let all = goals[1..].iter().fold(goals[0], |acc, g| store.and(acc, *g));
        let violated = store.not(all);
        let kind = std::mem::replace(&mut self.solver.kind, QueryKind::LoopMerge);
        let answer = self.solver.check(store, path, violated, Some(self.model));
        self.solver.kind = kind;
        answer == SatResult::Unsat
    }
}

/// How a path ends: with a bug of a kind, or normally (returning a value).
#[derive(Clone)]
enum Ending {
    Bug(BugKind),
    End(Option<TermId>),
}

/// What one statement did to a state. (`Continue` is the common case, run
/// once per statement: boxing its state would cost an allocation each time.)
#[allow(clippy::large_enum_variant)]
enum Step {
    Continue(State),
    /// The state split; each part has executed the statement.
    Fork(Vec<State>),
    Done,
}

impl<'m> Dse<'m> {
    pub fn new(module: &'m Module, entry: FuncId, program: &str, config: Config) -> Dse<'m> {
        let solver = config.query_solver();
        let loops = config.loop_merge.then(loops::LoopMerge::default);
        let ahead = match config.run_ahead {
            crate::config::RunAhead::Off => None,
            crate::config::RunAhead::On => Some(ahead::Ahead::new(module, entry, false)),
            crate::config::RunAhead::Eager => Some(ahead::Ahead::new(module, entry, true)),
        };
        Dse {
            module,
            entry,
            program: program.to_string(),
            config,
            store: TermStore::new(),
            solver,
            result: RunResult {
                engine: "dse".into(),
                paths_exact: true,
                ..RunResult::default()
            },
            covered: FxHashSet::default(),
            live: 0,
            shed_heap: 0,
            hint_memo: None,
            alone: false,
            explored: Duration::ZERO,
            loop_heads: module.functions.iter().map(braid_ir::loop_heads).collect(),
            budget: Budget::unlimited(),
            found: Vec::new(),
            merger: None,
            merging_given_up: None,
            has_ite: FxHashMap::default(),
            shown: FxHashMap::default(),
            pending: Vec::new(),
            split_requested: false,
            step_covered: Vec::new(),
            stepping: false,
            concolic: None,
            probing: false,
            loops,
            stopped_at_heads: Vec::new(),
            live_vars: FxHashMap::default(),
            ahead,
            peer: (0, 0),
            race_room: None,
            hand_back: false,
            handed_back: None,
        }
    }

    fn engine_kind(&self) -> EngineKind {
        if self.concolic.is_some() {
            return EngineKind::Concolic;
        }
        match self.merger.as_ref().map(|m| m.config.strategy) {
            None => EngineKind::Dse,
            Some(Strategy::Static) => EngineKind::Ssm,
            Some(Strategy::Dynamic { .. }) => EngineKind::Dsm,
        }
    }

    /// Turns on state merging: `ssm` (static) or `dsm` (dynamic).
    pub fn with_merging(mut self, merging: Merging) -> Self {
        self.result.engine = match merging.strategy {
            Strategy::Static => "ssm".into(),
            Strategy::Dynamic { .. } => "dsm".into(),
        };
        self.result.paths_exact = merging.similarity == Similarity::None;
        // Static merging merges every state that reaches a join, so a merged
        // state's questions are its own: no other state asks them again, and
        // their cores do not pay for their second check. Cores of merge
        // questions that answered a later question, bench/containers: under
        // ssm 1 of 68 (B-tree), 0 of 302 (skip list), 0 of 376 (red-black
        // tree); under dsm, whose unmerged states share the merged ones'
        // prefixes, 323 of 443 (skip list). Without them ssm's B-tree run
        // spends 483 ms in Z3 instead of 1 040 (113 calls against 112).
        if merging.strategy == Strategy::Static {
            self.solver.set_merge_cores(false);
        }
        self.merger = Some(Merger::new(self.module, merging));
        self
    }

    /// Turns on concolic execution (MuSE, `concolic`).
    pub fn with_concolic(mut self, options: concolic::Options) -> Self {
        self.result.engine = "concolic".into();
        self.concolic = Some(Box::new(concolic::Concolic::new(options)));
        // A run follows one input: there is no set of states to merge.
        self.loops = None;
        // One open branch the solver cannot decide must not stall the
        // others: without a per-query limit of the user's, it gets one.
        if self.config.limits.solver_timeout_ms.is_none() {
            self.config.limits.solver_timeout_ms = Some(concolic::SOLVER_TIMEOUT_MS);
            self.solver.set_timeout(Some(concolic::SOLVER_TIMEOUT_MS));
        }
        self
    }

    /// Takes `budget` as the run's limits.
    fn prepare(&mut self, budget: &Budget) {
        self.budget = budget.clone();
        self.solver.set_budget(budget);
        if let Some(m) = &mut self.merger {
            m.set_budget(budget);
        }
    }

    /// The run's result, its statistics filled in.
    fn into_result(mut self: Box<Self>) -> RunResult {
        let stats = &mut self.result.stats;
        stats.concolic = self.concolic.as_ref().map(|c| c.stats.clone());
        stats.loops = self.loops.as_ref().map(|l| l.stats.clone());
        if let Some(a) = &self.ahead {
            stats.run_ahead = a.pacing.runs;
            stats.statements_ahead = a.pacing.steps;
            stats.ahead_ms = a.pacing.time.as_millis() as u64;
        }
        // Paths stopped at loop heads are not counted.
        if stats.loops.as_ref().is_some_and(|l| l.subsumed > 0) {
            self.result.paths_exact = false;
        }
        stats.record_solver(&self.solver.stats);
        stats.terms = self.store.len() as u64;
        stats.avg_value_summary_size = 1.0;
        stats.sharing_factor = 1.0;
        stats.branches_explored = Some(self.covered.len() as u64);
        self.result
    }

    /// Explores until done or stopped, handing tests to `rec` after every
    /// slice; a stopped run's live states become tests ([`Dse::frontier`]).
    fn explore(&mut self, rec: &mut Recorder) -> Result<(), EngineError> {
        let mut ex = self.begin()?;
        while !self.budget.stopped() && self.next_slice(&mut ex, rec) {}
        self.end(ex, rec);
        Ok(())
    }

    /// An exploration from the program's first statement.
    fn begin(&mut self) -> Result<Exploration, EngineError> {
        let init = self.initial_state()?;
        let mut states = States(FxHashMap::default());
        let seed = self.config.seed;
        let mut sched = match self.merger.as_ref().map(|m| m.config.strategy) {
            None => Scheduler::Plain(make_searcher(self.config.search, seed)),
            Some(Strategy::Static) => Scheduler::Topological(Default::default()),
            Some(Strategy::Dynamic { delta, driver }) => Scheduler::Dynamic {
                driver: make_driver(driver, seed),
                delta,
                forwarding: Default::default(),
            },
        };
        states.0.insert(0, init);
        sched.add(None, &[0], &states.0, self.merger.as_ref());
        self.live = 1;
        Ok(Exploration {
            states,
            sched,
            next_id: 0,
        })
    }

    /// Runs the next state's slice; `false` once no state is left or
    /// merging is to be given up.
    fn next_slice(&mut self, ex: &mut Exploration, rec: &mut Recorder) -> bool {
        let start = Instant::now();
        let more = self.explore_slice(ex, rec);
        self.explored += start.elapsed();
        more
    }

    fn explore_slice(&mut self, ex: &mut Exploration, rec: &mut Recorder) -> bool {
        let Exploration { states, sched, next_id } = ex;
        let Some((id, forwarded)) = sched.select(&states.0, states) else {
            return false;
        };
        let Some(mut st) = states.0.remove(&id) else {
            return true;
        };
        sched.forget(id, &st);
        if self.merger.is_some() {
            self.note_forwarding(&mut st, forwarded);
        }
        self.alone = states.0.is_empty();
        let survivors = self.run_slice(st);
        self.live = self.live + survivors.len() - 1;
        self.result.stats.states_created += survivors.len().saturating_sub(1) as u64;
        let mut ids = Vec::with_capacity(survivors.len());
        for (k, mut s) in survivors.into_iter().enumerate() {
            if self.merger.is_some() && !self.budget.stopped() {
                if k > 0 {
                    s.forwarding = false;
                }
                s = self.arrive(s, &mut states.0, sched);
            }
            *next_id += 1;
            if let (Some(m), Some((loc, _))) = (&mut self.merger, s.current) {
                let peers = m.at_location.entry(loc).or_default();
                peers.push(*next_id);
                if peers.len() > 2 * merging::MAX_PEERS {
                    peers.drain(..peers.len() - merging::MAX_PEERS);
                }
            }
            states.0.insert(*next_id, s);
            ids.push(*next_id);
        }
        // A part may have merged into another one of this slice.
        ids.retain(|id| states.0.contains_key(id));
        sched.add(Some(id), &ids, &states.0, self.merger.as_ref());
        if self.merger.is_none() {
            self.shed(states, rec);
        }
        self.flush(rec);
        rec.progress(self.result.paths.max(self.peer.0), self.live + self.peer.1);
        if let Some(why) = self.merging_to_give_up() {
            self.merging_given_up = Some(why);
            return false;
        }
        true
    }

    /// The end of an exploration: a finished one tests its merged paths
    /// still pending; a stopped one, or one that gave merging up, hands its
    /// live states over as tests.
    fn end(&mut self, ex: Exploration, rec: &mut Recorder) {
        let live = || ex.states.0.into_values().collect::<Vec<State>>();
        if self.merging_given_up.is_some() {
            self.frontier(live(), rec);
            return;
        }
        if !self.budget.stopped() {
            self.test_pending();
        }
        self.flush(rec);
        if self.budget.stopped() {
            self.frontier(live(), rec);
        }
    }

    /// Past [`SHED_FROM`] of the memory limit, the half of the live states
    /// that went longest without covering a branch end: each one's model is
    /// run concretely to the end, and becomes a test if that covers a new
    /// branch (as a stopped run's frontier does, where every state gets a
    /// test), and the exploration goes on with the others (KLEE kills
    /// states at its memory cap). The next shedding waits until the
    /// heap has grown back to what it was: resident memory lags behind the
    /// heap (freed pages go back after a delay), and a threshold that rose
    /// with each shedding reached the limit's stop on bench/limits/json.c
    /// (150 MB, 5 sheddings, the heap at 31 to 67 MB). A shedding that
    /// freed less than [`SHED_FUTILE`] of the heap is the last: the states
    /// do not hold the memory, and the heap is back at its level at once.
    /// (tinyxml2 under a 300 MB limit: 81 live states, 1 of 115 MB freed,
    /// and eight more sheddings in 130 ms ended every state 4 s into a 10 s
    /// run.)
    fn shed(&mut self, states: &mut States, rec: &mut Recorder) {
        if states.0.len() < 2
            || braid_budget::heap::live_bytes() < self.shed_heap
            || self.budget.memory_share().is_none_or(|m| m < SHED_FROM)
            || self.budget.stopped()
        {
            return;
        }
        self.shed_heap = braid_budget::heap::live_bytes();
        let mut order: Vec<(u64, StateId)> = states.0.iter().map(|(id, s)| (s.steps_since_cover, *id)).collect();
        order.sort_unstable();
        let gone: Vec<State> = order[order.len() / 2..]
            .iter()
            .filter_map(|(_, id)| states.0.remove(id))
            .collect();
        self.live -= gone.len();
        self.result.stats.states_shed += gone.len() as u64;
        let limit = self.budget.limits().memory_mb.unwrap_or(0);
        self.incomplete(format!(
            "memory: live states past {}% of the {limit} MB limit were ended by concrete runs (stats.states_shed)",
            (SHED_FROM * 100.0) as u32
        ));
        for st in &gone {
            if self.budget.poll() {
                break;
            }
            rec.complete_if_new(self.inputs_under(st, &st.model));
        }
        let before = braid_budget::heap::live_bytes();
        drop(gone);
        let freed = before - braid_budget::heap::live_bytes();
        if (freed as f64) < SHED_FUTILE * before as f64 {
            self.shed_heap = i64::MAX;
        }
        self.budget.release_memory();
    }

    /// Merging raced against dse ([`Merging::race_after_ms`]): merging runs
    /// alone for `after`, then a dse exploration from the start takes turns
    /// with it, one slice a turn: merging's while its time so far is at most
    /// [`merging::RACE_SHARE`] of dse's, else dse's. Whichever finishes
    /// first ends the run, so it takes at most about 1.5 times what dse
    /// alone needs, and 3 times what merging alone needs. Merging is given
    /// up when its heap outgrows dse's and the memory in use before both.
    /// Returns dse, its exploration ended, where its result is the run's
    /// (with why): it finished first, or merging was given up (memory), or
    /// the budget stopped the run after merging was given up. Otherwise
    /// merging finished first, or the budget stopped both, and both handed
    /// their live states over as tests.
    #[allow(clippy::type_complexity)]
    fn race(&mut self, after: Duration, rec: &mut Recorder) -> Result<Option<(Box<Dse<'m>>, String)>, EngineError> {
        // Memory in use before either explores, and each one's growth of
        // the heap over its own turns.
        let base = braid_budget::memory_use().map_or(0, |(rss, _)| rss as i64);
        let (mut merging_heap, mut dse_heap) = (0i64, 0i64);
        let mut mine = Some(self.begin()?);
        let mut rival: Option<(Box<Dse<'m>>, Exploration)> = None;
        // Each side's time is its own slices' ([`Dse::explored`]).
        let dse_time =
            |rival: &Option<(Box<Dse<'m>>, Exploration)>| rival.as_ref().map_or(Duration::ZERO, |(d, _)| d.explored);
        let note = |me: &mut Self, rival: &Option<(Box<Dse<'m>>, Exploration)>, winner: Option<&str>| {
            let Some((dse, _)) = rival else { return };
            me.result.stats.race = Some(RaceStats {
                after_ms: after.as_millis() as u64,
                merging_ms: me.explored.as_millis() as u64,
                dse_ms: dse.explored.as_millis() as u64,
                dse_paths: dse.result.paths,
                winner: winner.map(str::to_string),
            });
        };
        while !self.budget.stopped() {
            let merging_time = self.explored;
            if let Some(ex) = mine
                .as_mut()
                .filter(|_| merging_time < after || merging_time <= dse_time(&rival).mul_f64(merging::RACE_SHARE))
            {
                self.peer = rival.as_ref().map_or((0, 0), |(d, _)| (d.result.paths, d.live));
                self.race_room = rival.as_ref().map(|_| base + dse_heap - merging_heap);
                let heap = merging::footprint();
                let more = self.next_slice(ex, rec);
                merging_heap += merging::footprint() - heap;
                if more {
                    continue;
                }
                if self.merging_given_up.is_none() {
                    note(self, &rival, Some("merging"));
                    let ex = mine.take().expect("merging's turn");
                    self.end(ex, rec);
                    return Ok(None);
                }
                // Given up: its states go, and dse goes on alone (it covers
                // what they would).
                self.drop_merging(&mut mine);
                continue;
            }
            let (dse, ex) = match &mut rival {
                Some(r) => r,
                None => {
                    let config = self.config.clone();
                    let Rival { dse, ex } =
                        Rival::start(self.module, self.entry, &self.program, config, &self.budget, rec)?;
                    rival.insert((dse, ex))
                }
            };
            dse.peer = match mine {
                Some(_) => (self.result.paths, self.live),
                None => (0, 0),
            };
            let heap = merging::footprint();
            let more = dse.next_slice(ex, rec);
            dse_heap += merging::footprint() - heap;
            if let Some(why) = mine
                .as_ref()
                .and_then(|_| merging::heap_outgrown((merging_heap, self.explored), (dse_heap, dse.explored), base))
            {
                self.merging_given_up = Some(why);
                self.drop_merging(&mut mine);
            }
            if !more {
                note(self, &rival, Some("dse"));
                let (mut dse, ex) = rival.take().expect("dse's turn");
                dse.end(ex, rec);
                let why = self.merging_given_up.take();
                return Ok(Some((
                    dse,
                    why.unwrap_or_else(|| "dse, raced alongside, finished first".into()),
                )));
            }
        }
        note(self, &rival, None);
        if let Some(ex) = mine {
            self.end(ex, rec);
        }
        let Some((mut dse, ex)) = rival else {
            return Ok(None);
        };
        dse.end(ex, rec);
        // Neither finished: the run ended at least the paths dse did.
        self.result.paths = self.result.paths.max(dse.result.paths);
        Ok(self.merging_given_up.take().map(|why| (dse, why)))
    }

    /// [`Dse::race`], with dse's result (its solver statistics counting
    /// merging's) where it is the run's.
    fn race_in_turns(
        &mut self,
        after: Duration,
        rec: &mut Recorder,
    ) -> Result<Option<(RunResult, String)>, EngineError> {
        Ok(self.race(after, rec)?.map(|(mut rival, why)| {
            rival.solver.stats.absorb(&self.solver.stats);
            (rival.into_result(), why)
        }))
    }

    /// [`Dse::race`] with dse on a thread of its own (`second.rs`, as
    /// multise's race where the machine has a second core): merging runs
    /// its slices on the run's thread, dse starts on its own once
    /// merging's head start is spent, and whichever finishes first ends
    /// the run (dse's end cancels the budget merging runs under, its
    /// solver calls and splits included, and the run ends at merging's
    /// next step).
    /// The turns' memory rule holds at equal times: merging's growth of
    /// the heap over its slices when it had run as long as dse has now,
    /// against dse's on its thread ([`merging::heap_outgrown`]); merging's
    /// questions get the room that leaves. Returns as [`Dse::race`] does,
    /// with dse's result.
    fn race_on_thread<'s>(
        &mut self,
        after: Duration,
        scope: &'s std::thread::Scope<'s, '_>,
        rec: &mut Recorder,
    ) -> Result<Option<(RunResult, String)>, EngineError>
    where
        'm: 's,
    {
        let Ok(second) = second::Second::spawn(scope, self.module, self.entry, &self.budget.clone()) else {
            return self.race_in_turns(after, rec);
        };
        self.race_beside(second, after, None, rec)
    }

    /// [`Dse::race_on_thread`] against `second`, spawned and perhaps
    /// started already (it has explored since: multise's race, whose
    /// merging was given up, [`ssm_beside`]). `base`: the memory in
    /// use before either explored, where another engine explored since
    /// (multise: the process keeps what it freed, and counted as in use
    /// before, it let ssm beside dse grow to twice dse's peak on a protobuf
    /// decoder's harness, nanopb over 6 bytes: 226 MB against dse's 120).
    /// The memory rule then waits for the run to pass the peak that engine
    /// reached: on bench/merging's sleep-6-3, ssm's first 38 ms of heap (16
    /// MB against dse's none and 9 MB before both) gave it up in one run of
    /// three, and dse alone took 32.6 s where ssm finishes in 2.5-3.5.
    fn race_beside(
        &mut self,
        mut second: second::Second,
        after: Duration,
        base: Option<i64>,
        rec: &mut Recorder,
    ) -> Result<Option<(RunResult, String)>, EngineError> {
        let run_budget = self.budget.clone();
        let mut mine = Some(self.begin()?);
        if second.started() {
            self.prepare(&second.merging_budget().clone());
        }
        // Memory in use before either explores (less what dse, started
        // already, has grown its heap by), and merging's growth of its heap
        // as its time went (a sample each few milliseconds).
        let base = base.unwrap_or_else(|| braid_budget::memory_use().map_or(0, |(rss, _)| rss as i64) - second.heap());
        // The rule holds only where the run is past the largest resident
        // memory the watchdog had seen before the race (multise's phase,
        // which no rule against dse sees): below that, merging raises no
        // peak.
        let peak_before = run_budget.peak_rss();
        let mut heap = 0i64;
        let mut history: Vec<(Duration, i64)> = Vec::new();
        let note = |me: &mut Self, second: &second::Second, winner: Option<&str>| {
            if second.started() {
                me.result.stats.race = Some(RaceStats {
                    after_ms: after.as_millis() as u64,
                    merging_ms: me.explored.as_millis() as u64,
                    dse_ms: second.time().as_millis() as u64,
                    dse_paths: second.paths(),
                    winner: winner.map(str::to_string),
                });
            }
        };
        while !run_budget.stopped() {
            if !second.started() && (self.explored >= after || mine.is_none()) {
                second.start(self.config.clone(), &self.program, rec.run_args().to_vec(), &run_budget);
                rec.keep_distinct_paths();
                // Merging runs under a budget dse's end cancels: a split
                // of a state merged many times over (each side's question
                // within the split's time) ran 31 s past dse's end on a
                // sorting harness of 6 ints, multise's fallback.
                self.prepare(&second.merging_budget().clone());
            }
            second.take_tests(rec);
            if second.failed() {
                // dse cannot start where merging did: merging alone.
                self.prepare(&run_budget);
                drop(second);
                let Some(mut ex) = mine else {
                    return Ok(None);
                };
                while !run_budget.stopped() && self.next_slice(&mut ex, rec) {}
                self.end(ex, rec);
                return Ok(None);
            }
            if second.finished() {
                break;
            }
            let Some(ex) = mine.as_mut() else {
                // Merging was given up: dse goes on alone.
                break;
            };
            self.peer = (second.paths(), 0);
            // The growth over merging's own slices: dse's tests, made on
            // its thread, are freed on this one. Z3's memory counts (its
            // allocations are not the heap's): ssm beside dse on
            // kgabis/parson over 4 bytes grew to 278 MB with 15 s of Z3
            // calls on merged questions, where dse alone peaks at 79 MB.
            // (Z3's count is the process's: what dse's calls grow it by
            // during the slice counts as merging's.)
            let before = merging::footprint();
            let more = self.next_slice(ex, rec);
            heap += merging::footprint() - before;
            if history.last().is_none_or(|&(t, _)| self.explored >= t + HEAP_SAMPLE) {
                history.push((self.explored, heap));
            }
            if second.started() {
                let (dse_time, dse_heap) = (second.time(), second.heap());
                self.race_room = Some(base + dse_heap - heap);
                let then = history.partition_point(|&(t, _)| t <= dse_time);
                if let Some(why) = then
                    .checked_sub(1)
                    .and_then(|i| merging::heap_outgrown((history[i].1, history[i].0), (dse_heap, dse_time), base))
                    .filter(|_| run_budget.rss() >= peak_before)
                {
                    self.merging_given_up = Some(why);
                    self.drop_merging(&mut mine);
                    continue;
                }
            }
            if more || second.finished() {
                continue;
            }
            if self.merging_given_up.is_some() {
                // Its states go, and dse goes on alone (it covers what
                // they would).
                self.drop_merging(&mut mine);
                continue;
            }
            // Merging finished first: dse's thread is cancelled as it goes.
            note(self, &second, Some("merging"));
            self.prepare(&run_budget);
            self.race_room = None;
            let ex = mine.take().expect("merging's slice");
            self.end(ex, rec);
            second.take_tests(rec);
            return Ok(None);
        }
        self.prepare(&run_budget);
        if run_budget.stopped() {
            // Neither finished: both hand their live states over as tests.
            note(self, &second, None);
            if let Some(ex) = mine {
                self.end(ex, rec);
            }
            let paths = second.paths();
            if let Some(why) = self.merging_given_up.take() {
                let r = second.finish(rec, self.engine_kind(), why.clone(), &self.solver.stats);
                return Ok(r.map(|r| (r, why)));
            }
            second.stop(rec);
            self.result.paths = self.result.paths.max(paths);
            return Ok(None);
        }
        if self.hand_back && mine.is_none() && !second.finished() {
            // Merging was given up: dse's thread goes back to multise.
            note(self, &second, None);
            self.handed_back = Some(second);
            return Ok(None);
        }
        note(self, &second, Some("dse"));
        // dse finished first, or merging was given up (and dse finishes
        // now); merging's states need no tests.
        if mine.is_some() {
            self.drop_merging(&mut mine);
        }
        let why = self
            .merging_given_up
            .take()
            .unwrap_or_else(|| "dse, raced alongside, finished first".into());
        let r = second.finish(rec, self.engine_kind(), why.clone(), &self.solver.stats);
        Ok(r.map(|r| (r, why)))
    }

    /// Merging given up in the race: its exploration and what it leaves
    /// behind go, and their memory back to the system.
    fn drop_merging(&mut self, mine: &mut Option<Exploration>) {
        *mine = None;
        self.pending.clear();
        self.store = TermStore::new();
        self.hint_memo = None;
        self.loops = None;
        self.ahead = None;
        self.has_ite = Default::default();
        self.shown = Default::default();
        // Its solver too: Z3's memory for the merged questions is Z3's
        // allocator's, returned only when the solver goes (Calc Parser
        // under dsm: 97 -> 84 MB resident with it, against dse's 37 then).
        let mut solver = std::mem::replace(&mut self.solver, self.config.query_solver());
        self.solver.stats = std::mem::take(&mut solver.stats);
        self.solver.set_budget(&self.budget);
        drop(solver);
        merging::release_memory(&self.budget);
    }

    /// Why merging is to be given up now, if it is ([`Merging::fallback`]).
    fn merging_to_give_up(&self) -> Option<String> {
        let config = &self.merger.as_ref()?.config;
        if let Some(ms) = config
            .merge_for_ms
            .filter(|&ms| self.explored.as_millis() >= ms as u128)
        {
            return Some(format!("merging took its {ms} ms; dse goes on alone"));
        }
        let share = config.fallback?;
        let over = !self.budget.stopped() && self.budget.memory_share().is_some_and(|m| m >= share);
        over.then(|| {
            let (rss, limit) = (self.budget.rss() >> 20, self.budget.limits().memory_mb.unwrap_or(0));
            let ms = self.budget.elapsed().as_millis();
            // A dse racing merging goes on from where it is.
            let then = match self.race_room {
                Some(_) => "dse goes on alone",
                None => "dse explored from the start",
            };
            format!("{rss} of {limit} MB in use at {ms} ms; {then}")
        })
    }

    /// Hands the tests found so far to the recorder.
    fn flush(&mut self, rec: &mut Recorder) {
        for t in self.found.drain(..) {
            rec.test(t);
        }
        // A state stopped at a loop head gets a test of its own only if it
        // first covered a branch that no test covers.
        for (inputs, branches) in std::mem::take(&mut self.stopped_at_heads) {
            if branches.iter().any(|b| !rec.covered().contains(b)) {
                rec.complete_within(inputs, Some(loops::COMPLETION_STEPS));
            }
        }
    }

    /// A stopped run's frontier as tests: each live state's model, and the
    /// models of merged paths whose first-covered branches no test covers
    /// yet, run concretely to the end (paths that covered something new
    /// recently first), until the budget is exhausted.
    fn frontier(&mut self, live: Vec<State>, rec: &mut Recorder) {
        // (recency, state, the model: None for the state's own, else an alt's)
        let mut todo: Vec<(u64, &State, Option<usize>)> = Vec::new();
        let needed = |me: &Self, fresh: &[Branch]| {
            me.merger
                .as_ref()
                .is_some_and(|m| fresh.iter().any(|b| !m.test_covered.contains(b)))
        };
        let pending = std::mem::take(&mut self.pending);
        for (st, _, alts) in &pending {
            for &i in alts {
                if needed(self, &st.alts[i].fresh) {
                    todo.push((0, st, Some(i)));
                }
            }
        }
        for st in &live {
            for (i, alt) in st.alts.iter().enumerate() {
                if needed(self, &alt.fresh) {
                    todo.push((0, st, Some(i)));
                }
            }
            todo.push((st.steps_since_cover, st, None));
        }
        todo.sort_by_key(|(recent, ..)| *recent);
        for (_, st, alt) in todo {
            if self.budget.poll_exhausted() {
                break;
            }
            let model = match alt {
                Some(i) => &st.alts[i].model,
                None => &st.model,
            };
            rec.complete(self.inputs_under(st, model));
        }
    }

    /// `st`'s inputs as `model` gives them.
    fn inputs_under(&self, st: &State, model: &braid_term::Model) -> Vec<TestInput> {
        st.inputs
            .terms()
            .into_iter()
            .map(|t| {
                let name = match self.store.node(t) {
                    Node::Sym(s) => self.store.symbol(*s).name.as_str(),
                    _ => "?",
                };
                TestInput::new(name, self.store.eval(t, model).unwrap_or(Value::Undef))
            })
            .collect()
    }

    fn incomplete(&mut self, reason: String) {
        // A step about to be undone (its state split) reports nothing.
        if !self.split_requested {
            self.result.incomplete_reasons.insert(reason);
        }
    }

    fn initial_state(&mut self) -> Result<State, EngineError> {
        let f = self.module.func(self.entry);
        let mut st = State::new(self.entry, f.vars.len(), self.store.constant(Value::Undef));
        for p in &f.params {
            let name = &f.vars[p.var.0 as usize];
            let sort = p
                .sort
                .ok_or_else(|| EngineError::UntypedEntryParameter(f.name.clone(), name.clone()))?;
            let t = st.fresh_input(&mut self.store, name, sort);
            st.top_mut().vars[p.var.0 as usize] = t;
        }
        Ok(st)
    }

    /// Runs `st` until it forks, ends, or its slice is used up.
    fn run_slice(&mut self, mut st: State) -> Vec<State> {
        for _ in 0..SLICE {
            if self.budget.stopped() {
                return vec![st];
            }
            if self.run_ahead(&mut st) || self.step_fast(&mut st) {
                if self.at_loop_head(&st) {
                    match self.at_loop_heads(Step::Continue(st)) {
                        Step::Continue(next) => st = next,
                        Step::Fork(parts) => return parts,
                        Step::Done => return vec![],
                    }
                }
                if self.merger.as_ref().is_some_and(|m| m.at_block_start(&st)) {
                    return vec![st];
                }
                continue;
            }
            // A merged state may be split back before this statement: it
            // runs again in each part.
            // Calls of a known function and returns to a caller ask the
            // solver nothing, so nothing can ask for a split there: no copy
            // (a copy of a deep recursion's stack at each call and return
            // made ssm quadratic in the depth).
            let asks = |st: &State| {
                let top = st.top();
                match self.module.func(top.func).stmts.get(top.at as usize) {
                    Some(Stmt::Call {
                        callee: Operand::Const(Value::Func(_)),
                        ..
                    }) => false,
                    Some(Stmt::Ret(_)) => st.frames.len() == 1,
                    _ => true,
                }
            };
            let before = (!st.merges.is_empty() && asks(&st)).then(|| st.clone());
            self.step_covered.clear();
            self.stepping = true;
            let step = self.step(st);
            self.stepping = false;
            if std::mem::take(&mut self.split_requested) {
                if let Some(before) = before {
                    // The step is undone: the parts will cover its branches.
                    for b in self.step_covered.drain(..) {
                        self.covered.remove(&b);
                    }
                    return self.unmerge(before);
                }
            }
            let step = if self.loops.is_some() {
                self.at_loop_heads(step)
            } else {
                step
            };
            match step {
                // Merging states meet at block starts: stop there.
                Step::Continue(next) if self.merger.as_ref().is_some_and(|m| m.at_block_start(&next)) => {
                    return vec![next]
                }
                Step::Continue(next) => st = next,
                Step::Fork(states) => return states,
                Step::Done => return vec![],
            }
        }
        vec![st]
    }

    /// Runs `st` ahead in the concrete interpreter if it is due
    /// ([`ahead`]): in plain `dse` and concolic runs (the interpreter hands
    /// a state back before any decision on a symbolic value), and in the
    /// merging engines while `st` is the only state (they meet states at
    /// block starts: with no other state there is none to meet); not under
    /// a loop bound (it counts every loop head); and past a loop head only
    /// where loop-head merging no longer merges. Whether it ran.
    fn run_ahead(&mut self, st: &mut State) -> bool {
        let plain = (self.merger.is_none() || self.alone) && self.config.limits.loop_bound.is_none();
        let module = self.module;
        let Some(ahead) = self.ahead.as_mut() else {
            return false;
        };
        if !plain || !ahead.due(module, st) {
            return false;
        }
        let loops = &self.loops;
        let mut pass = |frames: &[(FuncId, At)]| loops.as_ref().is_none_or(|l| l.unrolled(frames));
        let Some(handed) = ahead.run(module, &mut self.store, st, &self.budget, &mut pass) else {
            return false;
        };
        st.steps_since_cover += handed.steps;
        for b in handed.covered {
            if self.covered.insert(b) {
                st.steps_since_cover = 0;
                if self.loops.is_some() {
                    st.fresh.push(b);
                }
            }
        }
        self.result.stats.statements += handed.steps;
        self.result.stats.operations += handed.steps;
        true
    }

    /// Loop-head merging after a step: each part that has just reached a
    /// loop head is merged into the head's summary, and stops if an entry
    /// already stands for it (its merged paths and first-covered branches
    /// get tests from [`Dse::flush`] where no test covers them).
    fn at_loop_heads(&mut self, step: Step) -> Step {
        let states = match step {
            Step::Continue(st) if !self.at_loop_head(&st) => return Step::Continue(st),
            Step::Continue(st) => vec![st],
            Step::Fork(states) => states,
            Step::Done => return Step::Done,
        };
        let started = Instant::now();
        let out = self.merge_at_loop_heads(states);
        let elapsed = self.explored + started.elapsed();
        let loops = self.loops.as_mut().expect("loop-head merging is on");
        loops.spent(started.elapsed(), elapsed);
        self.collect(out)
    }

    /// [`Dse::at_loop_heads`] on each of `states`: those that go on.
    fn merge_at_loop_heads(&mut self, states: Vec<State>) -> Vec<State> {
        let mut out = Vec::with_capacity(states.len());
        for st in states {
            if !self.at_loop_head(&st) {
                out.push(st);
                continue;
            }
            self.loops.as_mut().expect("loop-head merging is on").stats.arrivals += 1;
            let live = self.live_at(&st);
            let parts = match self.find_entry(&st) {
                Some(loops::Verdict::Subsumed { .. }) => {
                    self.stopped_at_head(st);
                    continue;
                }
                Some(_) => {
                    out.push(st);
                    continue;
                }
                None => self.split_values(&st, &live[0..]),
            };
            let Some(parts) = parts else {
                self.add_entry(&st, &live);
                out.push(st);
                continue;
            };
            let verdicts: Vec<_> = parts.iter().map(|p| self.find_entry(p)).collect();
            // A split none of whose parts an entry stands for goes on as
            // the one state it was: its parts are entries (each a part of
            // what the state explores) for later arrivals to match. Split
            // for good, every arrival of an initialising loop
            // (`a[i] = k * i + (x & 1)`) doubled the paths after it: 8
            // splits, 4 667 paths against 527 without loop-head merging.
            if !verdicts
                .iter()
                .any(|v| matches!(v, Some(loops::Verdict::Subsumed { .. })))
            {
                for (part, v) in parts.iter().zip(&verdicts) {
                    if v.is_none() {
                        self.add_entry(part, &live);
                    }
                }
                out.push(st);
                continue;
            }
            for (part, v) in parts.into_iter().zip(verdicts) {
                match v {
                    Some(loops::Verdict::Subsumed { .. }) => self.stopped_at_head(part),
                    Some(_) => out.push(part),
                    None => {
                        self.add_entry(&part, &live);
                        out.push(part);
                    }
                }
            }
        }
        out
    }

    /// Per frame of `st`, the live variables of its function.
    fn live_at(&mut self, st: &State) -> Vec<braid_ir::LiveSet> {
        let module = self.module;
        st.frames
            .iter()
            .map(|f| {
                self.live_vars
                    .entry(f.func)
                    .or_insert_with(|| braid_ir::Liveness::new(module.func(f.func)))
                    .at(f.at)
            })
            .collect()
    }

    /// [`loops::LoopMerge::find`] for `st`.
    fn find_entry(&mut self, st: &State) -> Option<loops::Verdict> {
        let (func, at) = (st.top().func, st.top().at);
        let module = self.module;
        self.solver.set_timeout(Some(self.loop_query_ms()));
        let loops = self.loops.as_mut().expect("loop-head merging is on");
        let mut implies = ImpliesBySolver {
            solver: &mut self.solver,
            model: &st.model,
        };
        let verdict = loops.find(&mut self.store, st, || module.location(func, at), &mut implies);
        self.solver.set_timeout(self.config.limits.solver_timeout_ms);
        verdict
    }

    /// The time a loop-head merging query may take: it only saves work,
    /// so an undecided one costs little (the state goes on).
    fn loop_query_ms(&self) -> u32 {
        self.config
            .limits
            .solver_timeout_ms
            .unwrap_or(u32::MAX)
            .min(loops::QUERY_MS)
    }

    fn add_entry(&mut self, st: &State, live: &[braid_ir::LiveSet]) {
        let visits = st.top().visits.get(&st.top().at).copied().unwrap_or(0);
        let loops = self.loops.as_mut().expect("loop-head merging is on");
        loops.add(&self.store, st, live, visits);
    }

    /// `st` split by the values of its computed cells — live variables of
    /// its top frame and memory cells that hold a term computed from inputs
    /// (not an input or its bytes) — into states where they are constants,
    /// one per feasible combination, if there are at most
    /// [`loops::MAX_SPLIT`]. A loop whose state is a few flags computed
    /// from inputs reaches its fixed point this way. `None` if nothing is
    /// computed, or too much.
    fn split_values(&mut self, st: &State, live: &[braid_ir::LiveSet]) -> Option<Vec<State>> {
        // When states merge (`ssm`, `dsm`), splitting undoes merges, which
        // are then made again (splitting every merged state took `ssm` on
        // `echo` with two symbolic arguments from 8 s to 190 s): there only
        // values whose shape bounds them to a few ([`loops::few_values`]:
        // flags, counters modulo k, bit sets) are split, and matching
        // generalises over the others' `ite` values.
        if !self.loops.as_ref().is_some_and(|l| l.may_split(st)) {
            return None;
        }
        // (frame variable or memory cell (allocation, offset), its term)
        type Cell = (Result<usize, (usize, usize)>, TermId);
        let mut cells: Vec<Cell> = Vec::new();
        let top = st.top();
        for (v, &t) in top.vars.iter().enumerate() {
            if live[live.len() - 1].contains(v) && loops::computed(&self.store, t) {
                cells.push((Ok(v), t));
            }
        }
        let loops = self.loops.as_mut().expect("loop-head merging is on");
        for (a, alloc) in st.memory.iter().enumerate() {
            for (k, page) in alloc.pages().enumerate() {
                if !loops.page_info(&self.store, page).computed {
                    continue;
                }
                for (i, &t) in page.iter().enumerate() {
                    if loops::computed(&self.store, t) {
                        cells.push((Err((a, k * state::PAGE + i)), t));
                        if cells.len() > loops::MAX_SPLIT_CELLS {
                            return None;
                        }
                    }
                }
            }
        }
        if cells.is_empty() || cells.len() > loops::MAX_SPLIT_CELLS {
            return None;
        }
        let terms: Vec<TermId> = cells.iter().map(|(_, t)| *t).collect();
        if self.merger.is_some() && !loops::few_values(&self.store, &terms, loops::MAX_SPLIT as u128) {
            return None;
        }
        // Enumerate the feasible combinations of their values, each with a
        // model: the first is the state's own.
        let kind = std::mem::replace(&mut self.solver.kind, QueryKind::LoopMerge);
        self.solver.set_timeout(Some(self.loop_query_ms()));
        let mut combos: Vec<(Vec<Value>, braid_term::Model)> = Vec::new();
        let mut model = (*st.model).clone();
        let mut excluded = self.store.bool(true);
        let started = std::time::Instant::now();
        let mut slow = false;
        let complete = loop {
            if started.elapsed() > std::time::Duration::from_millis(loops::SPLIT_MS) {
                slow = true;
                break false;
            }
            let values: Option<Vec<Value>> = cells.iter().map(|(_, t)| self.store.eval(*t, &model).ok()).collect();
            let Some(values) = values else { break false };
            let mut same = self.store.bool(true);
            for ((_, t), v) in cells.iter().zip(&values) {
                let c = self.store.constant(*v);
                let eq = self.store.eq(*t, c);
                same = self.store.and(same, eq);
            }
            combos.push((values, model.clone()));
            if combos.len() > loops::MAX_SPLIT {
                break false;
            }
            let other = self.store.not(same);
            excluded = self.store.and(excluded, other);
            match self.solver.check(&self.store, &st.path, excluded, Some(&st.model)) {
                SatResult::Sat(m) => {
                    model = (*st.model).clone();
                    model.extend(m);
                }
                SatResult::Unsat => break true,
                SatResult::Unknown(_) => break false,
            }
        };
        self.solver.kind = kind;
        self.solver.set_timeout(self.config.limits.solver_timeout_ms);
        let loops = self.loops.as_mut().expect("loop-head merging is on");
        if !complete {
            loops.split_failed(st, slow);
            return None;
        }
        loops.split_done(st, combos.len());
        let parts = combos
            .into_iter()
            .map(|(values, model)| {
                let mut part = st.clone();
                let mut same = self.store.bool(true);
                for ((at, t), v) in cells.iter().zip(values) {
                    let c = self.store.constant(v);
                    let eq = self.store.eq(*t, c);
                    same = self.store.and(same, eq);
                    match *at {
                        Ok(var) => part.top_mut().vars[var] = c,
                        Err((a, i)) => Rc::make_mut(&mut part.memory[a]).set(i, c),
                    }
                }
                part.assume(&self.store, same, model);
                part
            })
            .collect();
        Some(parts)
    }

    /// A model of `st`'s path whose machine-integer inputs lie in
    /// [-64, 64] (signed), if the solver finds one.
    fn small_model(&mut self, st: &State) -> Option<braid_term::Model> {
        let mut small = self.store.bool(true);
        for t in st.inputs.terms() {
            let Sort::Bv(width) = self.store.sort(t) else { continue };
            if width <= 8 {
                continue;
            }
            let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
            let lo = self.store.constant(Value::Bv {
                width,
                bits: (-64i64 as u64) & mask,
            });
            let hi = self.store.constant(Value::Bv { width, bits: 64 });
            let above = self.store.app(Op::Le, &[lo, t]).ok()?;
            let below = self.store.app(Op::Le, &[t, hi]).ok()?;
            let both = self.store.and(above, below);
            small = self.store.and(small, both);
        }
        if self.store.is_true(small) {
            return None;
        }
        let kind = std::mem::replace(&mut self.solver.kind, QueryKind::LoopMerge);
        let answer = self.solver.check(&self.store, &st.path, small, Some(&st.model));
        self.solver.kind = kind;
        let SatResult::Sat(m) = answer else { return None };
        let mut model = (*st.model).clone();
        model.extend(m);
        Some(model)
    }

    /// Whether loop-head merging is on and `st` is at a loop head (however
    /// it came there: a jump, falling through, a return).
    fn at_loop_head(&self, st: &State) -> bool {
        self.loops.as_ref().is_some_and(|l| !l.given_up) && {
            let f = st.top();
            self.loop_heads[f.func.0 as usize].get(f.at as usize) == Some(&true)
        }
    }

    /// Keeps what a state stopped at a loop head still owes: tests for the
    /// branches it (or a path merged into it) covered first.
    fn stopped_at_head(&mut self, st: State) {
        if !st.fresh.is_empty() {
            // Its own model may run the loop for billions of iterations
            // (a counter from an input): inputs of small magnitude first.
            let model = self.small_model(&st);
            let inputs = self.inputs_under(&st, model.as_ref().unwrap_or(&st.model));
            self.stopped_at_heads.push((inputs, st.fresh.clone()));
        }
        for alt in &st.alts {
            if !alt.fresh.is_empty() {
                let inputs = self.inputs_under(&st, &alt.model);
                self.stopped_at_heads.push((inputs, alt.fresh.clone()));
            }
        }
    }

    // ---- values -------------------------------------------------------

    /// An operand's value; each read counts as one operation (a forking
    /// engine's value summaries have one entry).
    fn operand(&mut self, st: &State, o: &Operand) -> TermId {
        self.result.stats.operations += 1;
        match o {
            Operand::Var(v) => st.top().vars[v.0 as usize],
            Operand::Const(c) => self.store.constant(*c),
        }
    }

    /// The `(guard, leaf)` pairs of an `ite` tree over values the solver does
    /// not reason about (labels, functions, addresses): one per distinct
    /// leaf, whose guard is the disjunction of the ways to it (a merged
    /// value's choices share subtrees, so leaves repeat).
    fn leaves(&mut self, t: TermId) -> Vec<(TermId, TermId)> {
        // The `ite` nodes in an order where each comes after every `ite`
        // above it (reverse post-order), and the leaves in order of reach.
        let mut post = Vec::new();
        let mut leaves = Vec::new();
        let mut seen = FxHashSet::default();
        let mut stack = vec![(t, false)];
        while let Some((u, done)) = stack.pop() {
            if done {
                post.push(u);
                continue;
            }
            if !seen.insert(u) {
                continue;
            }
            match self.store.node(u) {
                Node::App(Op::Ite, a) => {
                    let (yes, no) = (a[1], a[2]);
                    stack.push((u, true));
                    stack.push((no, false));
                    stack.push((yes, false));
                }
                _ => leaves.push(u),
            }
        }
        let mut guard: FxHashMap<TermId, TermId> = FxHashMap::default();
        guard.insert(t, self.store.bool(true));
        for u in post.into_iter().rev() {
            let g = guard[&u];
            let Node::App(Op::Ite, a) = self.store.node(u).clone() else {
                continue;
            };
            let not_c = self.store.not(a[0]);
            for (child, c) in [(a[1], a[0]), (a[2], not_c)] {
                let reach = self.store.and(g, c);
                let both = match guard.get(&child) {
                    Some(h) => self.store.or(*h, reach),
                    None => reach,
                };
                guard.insert(child, both);
            }
        }
        leaves.into_iter().map(|l| (guard[&l], l)).collect()
    }

    // ---- feasibility and forking -----------------------------------------

    /// Whether `st`'s path condition allows `cond`: a model of both, or
    /// `Err(())` when the solver could not tell (the run is then incomplete).
    fn decide(&mut self, st: &State, cond: TermId) -> Result<Option<braid_term::Model>, ()> {
        if self.concolic.is_some() && !self.probing {
            return Ok(self.decide_concretely(st, cond));
        }
        if self.merger.is_some() && (self.contains_ite(cond) || st.path.iter().any(|c| self.contains_ite(*c))) {
            self.result.stats.ite_queries += 1;
        }
        // A merged state's query may take a short while only: past it, the
        // state is split instead ([`Dse::run_slice`]).
        // Only a step can be undone and rerun on the split parts.
        let merged = !st.merges.is_empty() && self.stepping;
        if !st.merges.is_empty() && self.solver.kind == QueryKind::Branch {
            self.solver.kind = QueryKind::Merge;
        }
        if merged {
            self.merged_question(true);
        }
        let memo = memo_for(&mut self.hint_memo, &st.model);
        let answer = self
            .solver
            .check_memo(&self.store, &st.path, cond, Some((&st.model, memo)));
        if self.solver.kind == QueryKind::Merge {
            self.solver.kind = QueryKind::Branch;
        }
        if merged {
            self.merged_question(false);
        }
        match answer {
            SatResult::Sat(m) => Ok(Some(m)),
            SatResult::Unsat => Ok(None),
            SatResult::Unknown(reason) => {
                if merged && !self.budget.poll() {
                    self.split_requested = true;
                } else if !self.budget.poll() {
                    // A query cut short by the run's stop is not the solver's failure.
                    self.incomplete(format!("solver: {reason}"));
                }
                Err(())
            }
        }
    }

    /// Sets the solver up for a merged state's question (`on`), or back:
    /// the question may take the split's time only ([`Merging::split_after_ms`]),
    /// a question the orderings search gives up on is undecided, and in a
    /// race Z3 may grow by merging's room only
    /// ([`braid_solver::set_question_room`]): undecided, the state is
    /// split instead.
    fn merged_question(&mut self, on: bool) {
        if on {
            let split_after = self.merger.as_ref().map_or(SPLIT_AFTER_MS, |m| m.config.split_after_ms);
            let user = self.config.limits.solver_timeout_ms.unwrap_or(u32::MAX);
            self.solver.set_timeout(Some(user.min(split_after)));
            braid_solver::set_question_room(self.race_room.map(|r| r.max(0) as u64));
        } else {
            self.solver.set_timeout(self.config.limits.solver_timeout_ms);
            braid_solver::set_question_room(None);
        }
        self.solver.split_hard = on;
    }

    /// [`Dse::decide`], with an undecided answer taken as "not here".
    fn feasible(&mut self, st: &State, cond: TermId) -> Option<braid_term::Model> {
        self.decide(st, cond).ok().flatten()
    }

    /// Splits `st` on `conds`, keeping the feasible parts (in order) with the
    /// index of their condition. `exhaustive`: the conditions cover every
    /// case, so the last one needs no query when all others are infeasible.
    fn fork(&mut self, st: State, conds: &[TermId], exhaustive: bool) -> Vec<(State, usize)> {
        let mut out: Vec<(State, usize)> = Vec::new();
        // The last feasible side found so far: it gets a copy of `st` only
        // once another is found, and the last one takes `st` itself (a
        // concolic run has one side: half of its time on a regex matcher
        // went to copying frames and path for the side it took).
        let mut pending = None;
        // Whether every condition so far was shown infeasible (not unknown).
        let mut all_unsat = true;
        for (i, &c) in conds.iter().enumerate() {
            if self.store.is_false(c) {
                continue;
            }
            let implied = exhaustive && all_unsat && i == conds.len() - 1;
            let model = if self.store.is_true(c) || implied {
                Some(Default::default())
            } else {
                let answer = self.decide(&st, c);
                all_unsat &= answer == Ok(None);
                answer.ok().flatten()
            };
            if let Some(m) = model {
                all_unsat = false;
                if let Some((j, cj, mj)) = pending.replace((i, c, m)) {
                    let mut child = st.clone();
                    child.assume(&self.store, cj, mj);
                    out.push((child, j));
                }
            }
        }
        if let Some((i, c, m)) = pending {
            let mut child = st;
            child.assume(&self.store, c, m);
            out.push((child, i));
        }
        if let Some(max) = self.config.limits.max_states {
            if out.len() > 1 && self.live + out.len() - 1 > max {
                out.truncate(1);
                self.incomplete(format!("state limit of {max} reached: forks dropped"));
            }
        }
        out
    }

    /// Checks whether `bug` can hold here: if so, a copy of `st` ends with a
    /// bug test. Returns `st` constrained to `¬bug`, or `None` if the bug is
    /// certain.
    fn check_bug(&mut self, mut st: State, kind: BugKind, bug: TermId) -> Option<State> {
        if self.store.is_false(bug) {
            return Some(st);
        }
        let possible = if self.store.is_true(bug) {
            Ok(Some(Default::default()))
        } else {
            self.solver.kind = QueryKind::BugCheck;
            let answer = self.decide(&st, bug);
            self.solver.kind = QueryKind::Branch;
            answer
        };
        let m = match possible {
            Ok(Some(m)) => m,
            // The bug cannot happen here. (A concolic run only knows that
            // its input avoids it: the path records that decision.)
            Ok(None) => {
                if self.concolic.is_some() {
                    let ok = self.store.not(bug);
                    st.assume(&self.store, ok, Default::default());
                }
                return Some(st);
            }
            // Undecided (the run is incomplete): the state goes on under the
            // assumption that the bug does not happen, if its model agrees;
            // else its own inputs would hit the bug and its test would not
            // replay.
            Err(()) => {
                let ok = self.store.not(bug);
                if self.store.eval(ok, &st.model) != Ok(Value::Bool(true)) {
                    return None;
                }
                st.assume(&self.store, ok, Default::default());
                return Some(st);
            }
        };
        let mut failing = st.clone();
        failing.assume(&self.store, bug, m);
        self.finish(&failing, Ending::Bug(kind));
        let ok = self.store.not(bug);
        if self.store.is_false(ok) {
            return None;
        }
        let m = self.feasible(&st, ok)?;
        st.assume(&self.store, ok, m);
        Some(st)
    }

    fn bug_outcome(&self, st: &State, kind: BugKind) -> Outcome {
        let f = st.top();
        Outcome::bug(self.module, kind, f.func, f.at)
    }

    /// Ends `st` with a certain bug.
    fn fail(&mut self, st: &State, kind: BugKind) -> Step {
        self.finish(st, Ending::Bug(kind));
        Step::Done
    }

    /// Records a completed state: its paths, its test and, for a merged
    /// state, tests of the merged paths that first covered a branch no test
    /// covers yet. Such a path's test comes from a model that already
    /// satisfies it (the state's, or the one the path had when it was
    /// merged); otherwise the solver is asked once the exploration is over
    /// ([`Dse::test_pending`]), by then most of them are covered.
    fn finish(&mut self, st: &State, ending: Ending) {
        if !self.concolic_finish(st) {
            return;
        }
        self.result.paths = self.result.paths.saturating_add(st.multiplicity);
        self.write_test(st, &st.model, None, &ending);
        let Some(merger) = &mut self.merger else { return };
        merger.test_covered.extend(st.fresh.iter().copied());
        let mut deferred = Vec::new();
        for (i, alt) in st.alts.iter().enumerate() {
            let merger = self.merger.as_ref().expect("merging is on");
            if alt.fresh.iter().all(|b| merger.test_covered.contains(b)) {
                continue;
            }
            let holds = |m: &braid_term::Model| self.store.eval(alt.cond, m) == Ok(Value::Bool(true));
            if !holds(&st.model) {
                if holds(&alt.model) && self.store.satisfies(&st.path, &alt.model) {
                    self.write_test(st, &alt.model, Some(alt.cond), &ending);
                } else {
                    deferred.push(i);
                    continue;
                }
            }
            let merger = self.merger.as_mut().expect("merging is on");
            merger.test_covered.extend(alt.fresh.iter().copied());
        }
        if !deferred.is_empty() {
            self.pending.push((st.clone(), ending, deferred));
        }
    }

    /// Tests for merged paths [`Dse::finish`] left pending: the first
    /// completed state in which the solver finds one feasible gives its test.
    fn test_pending(&mut self) {
        for (st, ending, alts) in std::mem::take(&mut self.pending) {
            for i in alts {
                let alt = &st.alts[i];
                let merger = self.merger.as_ref().expect("merging is on");
                if alt.fresh.iter().all(|b| merger.test_covered.contains(b)) {
                    continue;
                }
                if self.budget.stopped() {
                    // The frontier gives the rest their tests.
                    self.pending.push((st.clone(), ending.clone(), vec![i]));
                    continue;
                }
                let Some(m) = self.feasible(&st, alt.cond) else {
                    continue;
                };
                let mut model = (*st.model).clone();
                model.extend(m);
                self.write_test(&st, &model, Some(alt.cond), &ending);
                let merger = self.merger.as_mut().expect("merging is on");
                merger.test_covered.extend(alt.fresh.iter().copied());
            }
        }
    }

    /// Records the test that `model` gives `st` (under `cond` too, for a
    /// merged path's test).
    fn write_test(&mut self, st: &State, model: &braid_term::Model, cond: Option<TermId>, ending: &Ending) {
        let outcome = match ending {
            Ending::Bug(kind) => self.bug_outcome(st, kind.clone()),
            Ending::End(returned) => self.end_outcome(st, model, *returned),
        };
        let inputs = self.inputs_under(st, model);
        let mut expressions = BTreeMap::new();
        if matches!(outcome, Outcome::End { .. }) {
            let f = self.module.func(st.top().func);
            for (name, t) in f.vars.iter().zip(&st.top().vars) {
                if self.store.sort(*t) != Sort::Undef {
                    expressions.insert(name.clone(), self.store.display(*t));
                }
            }
        }
        let test = TestCase::new(
            self.program.clone(),
            self.module.func(self.entry).name.clone(),
            inputs,
            outcome,
            expressions,
            st.path.iter().chain(&cond).map(|c| self.shown(*c)).collect(),
        );
        self.found.push(test);
    }

    /// `t` as a test shows it, kept for the next test.
    fn shown(&mut self, t: TermId) -> String {
        /// Terms kept at most; past it, the cache starts over.
        const SHOWN: usize = 1 << 16;
        if self.shown.len() >= SHOWN {
            self.shown.clear();
        }
        let store = &self.store;
        self.shown.entry(t).or_insert_with(|| store.display(t)).clone()
    }

    /// Whether `t` contains an `ite`.
    fn contains_ite(&mut self, t: TermId) -> bool {
        if let Some(&known) = self.has_ite.get(&t) {
            return known;
        }
        let mut stack = vec![(t, false)];
        while let Some((u, expanded)) = stack.pop() {
            if self.has_ite.contains_key(&u) {
                continue;
            }
            match self.store.node(u) {
                Node::App(op, args) if expanded => {
                    let found = *op == Op::Ite || args.iter().any(|a| self.has_ite[a]);
                    self.has_ite.insert(u, found);
                }
                Node::App(_, args) => {
                    stack.push((u, true));
                    stack.extend(
                        args.iter()
                            .filter(|a| !self.has_ite.contains_key(a))
                            .map(|a| (*a, false)),
                    );
                }
                _ => {
                    self.has_ite.insert(u, false);
                }
            }
        }
        self.has_ite[&t]
    }

    fn end_outcome(&self, st: &State, model: &braid_term::Model, returned: Option<TermId>) -> Outcome {
        let eval = |t: &TermId| self.store.eval(*t, model).unwrap_or(Value::Undef);
        let f = self.module.func(st.top().func);
        let values = f
            .vars
            .iter()
            .zip(&st.top().vars)
            .map(|(n, t)| (n, eval(t)))
            .filter(|(_, v)| *v != Value::Undef)
            .map(|(n, v)| (n.clone(), self.module.render_value(&v)))
            .collect();
        Outcome::End {
            function: f.name.clone(),
            values,
            memory: crate::concrete::render_memory(self.module, st.memory.iter().map(|a| (a.len(), a.iter())), eval),
            returned: returned.map(|t| self.module.render_value(&eval(&t))),
        }
    }

    // ---- statements -----------------------------------------------------

    /// An operand's value, not counted (see [`Dse::step_fast`]).
    fn peek(&mut self, st: &State, o: &Operand) -> TermId {
        match o {
            Operand::Var(v) => st.top().vars[v.0 as usize],
            Operand::Const(c) => self.store.constant(*c),
        }
    }

    /// The concrete fast path: a statement that can neither fork, fail nor
    /// ask the solver (arithmetic, a branch on a known condition, an access
    /// at a known in-bounds address, …) runs here in place, without moving
    /// or copying the state; `false` leaves it, untouched, to [`Dse::step`].
    /// Both count the same statements and operations.
    fn step_fast(&mut self, st: &mut State) -> bool {
        let (func, at) = (st.top().func, st.top().at);
        let module = self.module;
        let Some(stmt) = module.func(func).stmts.get(at as usize) else {
            return false;
        };
        let operands = match stmt {
            Stmt::Assign { dst, rhs } => {
                let value = match rhs {
                    Rhs::Copy(a) => Some(self.peek(st, a)),
                    Rhs::Unary(op, a) => {
                        let a = self.peek(st, a);
                        self.store.app(*op, &[a]).ok()
                    }
                    Rhs::Binary(op, a, b) => {
                        let (a, b) = (self.peek(st, a), self.peek(st, b));
                        let (sa, sb) = (self.store.sort(a), self.store.sort(b));
                        let nonzero = self.store.as_const(b).is_some_and(|d| d != Value::default_of(sb));
                        // A divisor that may be zero is a bug check: the general path's.
                        if crate::concrete::is_integer_division(*op, sa, sb) && !nonzero {
                            None
                        } else {
                            self.store.app(*op, &[a, b]).ok()
                        }
                    }
                    Rhs::Select(c, a, b) => {
                        let (c, a, b) = (self.peek(st, c), self.peek(st, a), self.peek(st, b));
                        self.store.app(Op::Ite, &[c, a, b]).ok()
                    }
                    Rhs::Load { addr, width } => {
                        let p = self.peek(st, addr);
                        let cells = width.map_or(1, |w| w as usize / 8);
                        match self.known_cells(st, p, cells) {
                            Some((alloc, off)) => {
                                let a = &st.memory[alloc];
                                match width {
                                    None => Some(a[off]),
                                    Some(w) => {
                                        let mut values = [Value::Undef; 8];
                                        let known = (0..cells).all(|i| match self.store.as_const(a[off + i]) {
                                            Some(v) => {
                                                values[i] = v;
                                                true
                                            }
                                            None => false,
                                        });
                                        known
                                            .then(|| compose_bytes(*w, &values[..cells]))
                                            .flatten()
                                            .map(|v| self.store.constant(v))
                                    }
                                }
                            }
                            None => None,
                        }
                    }
                    _ => None,
                };
                let Some(value) = value else {
                    return false;
                };
                st.set(*dst, value);
                st.top_mut().at += 1;
                match rhs {
                    Rhs::Binary(..) => 2,
                    Rhs::Select(..) => 3,
                    _ => 1,
                }
            }
            Stmt::Store { addr, value, width } => {
                let (p, v) = (self.peek(st, addr), self.peek(st, value));
                let cells = width.map_or(1, |w| w as usize / 8);
                let Some((alloc, off)) = self.known_cells(st, p, cells) else {
                    return false;
                };
                match width {
                    None => Rc::make_mut(&mut st.memory[alloc]).set(off, v),
                    Some(w) => {
                        let Some(bytes) = self.store.as_const(v).and_then(|v| split_bytes(*w, v)) else {
                            return false;
                        };
                        let bytes: Vec<TermId> = bytes.into_iter().map(|b| self.store.constant(b)).collect();
                        let a = Rc::make_mut(&mut st.memory[alloc]);
                        for (i, b) in bytes.into_iter().enumerate() {
                            a.set(off + i, b);
                        }
                    }
                }
                st.top_mut().at += 1;
                2
            }
            Stmt::If { cond, target } => {
                let (c, t) = (self.peek(st, cond), self.peek(st, target));
                let Some(Value::Bool(taken)) = self.store.as_const(c) else {
                    return false;
                };
                let dest = if taken {
                    match self.known_jump(st, t) {
                        Some(dest) => dest,
                        None => return false,
                    }
                } else {
                    at + 1
                };
                if self.covered.insert((func, at, taken)) {
                    st.steps_since_cover = 0;
                    if self.merger.is_some() || self.loops.is_some() {
                        st.fresh.push((func, at, taken));
                    }
                }
                st.top_mut().at = dest;
                2
            }
            Stmt::Goto(target) => {
                let t = self.peek(st, target);
                let Some(dest) = self.known_jump(st, t) else {
                    return false;
                };
                st.top_mut().at = dest;
                1
            }
            _ => return false,
        };
        st.steps_since_cover += 1;
        self.result.stats.statements += 1;
        self.result.stats.operations += operands;
        true
    }

    /// The allocation and offset of `cells` cells at the address `p`, when
    /// it is a known address and they are in bounds.
    fn known_cells(&self, st: &State, p: TermId, cells: usize) -> Option<(usize, usize)> {
        let Some(Value::Addr { alloc, offset }) = self.store.as_const(p) else {
            return None;
        };
        let size = st.memory.get(alloc as usize)?.len() as i128;
        (offset >= 0 && offset + cells as i128 <= size).then_some((alloc as usize, offset as usize))
    }

    /// Where a jump to the known label `t` goes, unless it is a loop head
    /// whose visits are counted (see [`Dse::jump`]).
    fn known_jump(&self, st: &State, t: TermId) -> Option<At> {
        let func = st.top().func;
        let Some(Value::Label { func: g, label }) = self.store.as_const(t) else {
            return None;
        };
        let dest = (g == func.0).then(|| self.module.func(func).label_target(label))??;
        let counted = self.config.limits.loop_bound.is_some() || self.merger.is_some() || self.loops.is_some();
        (!(counted && self.loop_heads[func.0 as usize][dest as usize])).then_some(dest)
    }

    fn step(&mut self, mut st: State) -> Step {
        st.steps_since_cover += 1;
        self.result.stats.statements += 1;
        let (func, at) = (st.top().func, st.top().at);
        let f = self.module.func(func);
        let Some(stmt) = f.stmts.get(at as usize) else {
            return self.ret(st, None);
        };
        match stmt {
            Stmt::Assign { dst, rhs } => self.assign(st, *dst, rhs),
            Stmt::Store { addr, value, width } => {
                let (p, v) = (self.operand(&st, addr), self.operand(&st, value));
                self.with_address(st, p, *width, MAX_SYMBOLIC_WRITE, false, |me, st, alloc, off| {
                    me.store(st, alloc, off, v, *width)
                })
            }
            Stmt::Call { dst, callee, args } => {
                let callee = self.operand(&st, callee);
                let args: Vec<TermId> = args.iter().map(|a| self.operand(&st, a)).collect();
                let leaves = self.leaves(callee);
                self.split(st, leaves, |me, st, leaf| me.call(st, leaf, &args, *dst))
            }
            Stmt::If { cond, target } => {
                let c = self.operand(&st, cond);
                let target = self.operand(&st, target);
                if self.store.sort(c) != Sort::Bool {
                    return self.fail(&st, BugKind::TypeError);
                }
                let not_c = self.store.not(c);
                let parts = self.fork(st, &[c, not_c], true);
                let mut out = Vec::new();
                for (mut s, i) in parts {
                    let taken = i == 0;
                    if self.covered.insert((func, at, taken)) {
                        self.step_covered.push((func, at, taken));
                        s.steps_since_cover = 0;
                        if self.merger.is_some() || self.loops.is_some() {
                            s.fresh.push((func, at, taken));
                        }
                    }
                    if taken {
                        out.extend(self.jump(s, target));
                    } else {
                        s.top_mut().at += 1;
                        out.push(s);
                    }
                }
                self.collect(out)
            }
            Stmt::Goto(target) => {
                let target = self.operand(&st, target);
                let out = self.jump(st, target);
                self.collect(out)
            }
            Stmt::Ret(v) => {
                let v = v.as_ref().map(|o| self.operand(&st, o));
                self.ret(st, v)
            }
            Stmt::Assume(c) => {
                let c = self.operand(&st, c);
                if self.store.sort(c) != Sort::Bool {
                    return self.fail(&st, BugKind::TypeError);
                }
                match self.fork(st, &[c], false).pop() {
                    Some((mut s, _)) => {
                        s.top_mut().at += 1;
                        Step::Continue(s)
                    }
                    None => Step::Done,
                }
            }
            Stmt::Assert(c) => {
                let c = self.operand(&st, c);
                if self.store.sort(c) != Sort::Bool {
                    return self.fail(&st, BugKind::TypeError);
                }
                let violated = self.store.not(c);
                match self.check_bug(st, BugKind::Assertion, violated) {
                    Some(mut s) => {
                        s.top_mut().at += 1;
                        Step::Continue(s)
                    }
                    None => Step::Done,
                }
            }
            Stmt::Error(kind) => {
                self.finish(&st, Ending::Bug(kind.clone()));
                Step::Done
            }
            Stmt::Halt(code) => {
                let code = code.as_ref().map(|o| self.operand(&st, o));
                self.finish(&st, Ending::End(code));
                Step::Done
            }
            Stmt::Output { .. } => {
                st.top_mut().at += 1;
                Step::Continue(st)
            }
            Stmt::Grow { addr, cells, fill } => {
                let (p, n, v) = (
                    self.operand(&st, addr),
                    self.operand(&st, cells),
                    self.operand(&st, fill),
                );
                self.grow(st, p, n, v)
            }
        }
    }

    /// One state continues as a `Continue`; several as a `Fork`.
    fn collect(&mut self, mut states: Vec<State>) -> Step {
        match states.len() {
            0 => Step::Done,
            1 => Step::Continue(states.pop().expect("one state")),
            _ => Step::Fork(states),
        }
    }

    /// Forks `st` over the guards of `leaves` and runs `then` on each part.
    fn split(
        &mut self,
        st: State,
        leaves: Vec<(TermId, TermId)>,
        mut then: impl FnMut(&mut Self, State, TermId) -> Step,
    ) -> Step {
        if let [(g, leaf)] = leaves.as_slice() {
            if self.store.is_true(*g) {
                return then(self, st, *leaf);
            }
        }
        let guards: Vec<TermId> = leaves.iter().map(|(g, _)| *g).collect();
        let mut out = Vec::new();
        for (s, i) in self.fork(st, &guards, true) {
            match then(self, s, leaves[i].1) {
                Step::Continue(s) => out.push(s),
                Step::Fork(ss) => out.extend(ss),
                Step::Done => {}
            }
        }
        self.collect(out)
    }

    fn jump(&mut self, st: State, target: TermId) -> Vec<State> {
        let leaves = self.leaves(target);
        let step = self.split(st, leaves, |me, mut st, leaf| {
            let func = st.top().func;
            let dest = match me.store.as_const(leaf) {
                Some(Value::Label { func: g, label }) if g == func.0 => me.module.func(func).label_target(label),
                _ => None,
            };
            let Some(dest) = dest else {
                return me.fail(&st, BugKind::TypeError);
            };
            let head = me.loop_heads[func.0 as usize][dest as usize];
            // Visits matter to the loop bound, to merging's order and to
            // loop-head merging only.
            if head && (me.config.limits.loop_bound.is_some() || me.merger.is_some() || me.loops.is_some()) {
                let visits = st.top_mut().visits.entry(dest).or_insert(0);
                *visits += 1;
                let visits = *visits;
                if let Some(bound) = me.config.limits.loop_bound.filter(|b| visits > *b) {
                    let at = me.module.location(func, dest);
                    me.incomplete(format!("loop bound {bound} reached at {at}"));
                    return Step::Done;
                }
            }
            st.top_mut().at = dest;
            Step::Continue(st)
        });
        match step {
            Step::Continue(s) => vec![s],
            Step::Fork(ss) => ss,
            Step::Done => vec![],
        }
    }

    fn call(&mut self, mut st: State, callee: TermId, args: &[TermId], dst: Option<VarId>) -> Step {
        let Some(Value::Func(g)) = self.store.as_const(callee) else {
            return self.fail(&st, BugKind::TypeError);
        };
        let g = FuncId(g);
        let callee_fn = self.module.func(g);
        if callee_fn.params.len() != args.len() {
            return self.fail(&st, BugKind::TypeError);
        }
        if st.frames.len() >= MAX_CALL_DEPTH {
            return self.fail(&st, BugKind::StackOverflow);
        }
        if let Some(bound) = self.config.limits.loop_bound {
            if st.frames.iter().filter(|f| f.func == g).count() as u32 >= bound.max(1) {
                self.incomplete(format!(
                    "loop bound {bound} reached at recursive call of {}",
                    callee_fn.name
                ));
                return Step::Done;
            }
        }
        let undef = self.store.constant(Value::Undef);
        let mut vars = vec![undef; callee_fn.vars.len()];
        for (p, a) in callee_fn.params.iter().zip(args) {
            vars[p.var.0 as usize] = *a;
        }
        st.frames.push(Frame {
            func: g,
            at: 0,
            vars,
            ret_dst: dst,
            visits: FxHashMap::default(),
        });
        Step::Continue(st)
    }

    fn ret(&mut self, mut st: State, v: Option<TermId>) -> Step {
        if st.frames.len() == 1 {
            self.finish(&st, Ending::End(v));
            return Step::Done;
        }
        let done = st.frames.pop().expect("a frame to return from");
        let undef = self.store.constant(Value::Undef);
        let caller = st.top_mut();
        if let Some(d) = done.ret_dst {
            caller.vars[d.0 as usize] = v.unwrap_or(undef);
        }
        caller.at += 1;
        Step::Continue(st)
    }

    fn assign(&mut self, mut st: State, dst: VarId, rhs: &Rhs) -> Step {
        let value = match rhs {
            Rhs::Copy(a) => Ok(self.operand(&st, a)),
            Rhs::Input { sort, name } => {
                let t = st.fresh_input(&mut self.store, name, *sort);
                self.seed_input(&mut st, t);
                Ok(t)
            }
            Rhs::Unary(op, a) => {
                let a = self.operand(&st, a);
                self.store.app(*op, &[a])
            }
            Rhs::Binary(op, a, b) => {
                let (a, b) = (self.operand(&st, a), self.operand(&st, b));
                if crate::concrete::is_integer_division(*op, self.store.sort(a), self.store.sort(b)) {
                    let zero = self.store.constant(Value::default_of(self.store.sort(b)));
                    let is_zero = self.store.eq(b, zero);
                    match self.check_bug(st, BugKind::DivisionByZero, is_zero) {
                        Some(s) => st = s,
                        None => return Step::Done,
                    }
                }
                self.store.app(*op, &[a, b])
            }
            Rhs::Select(c, a, b) => {
                let (c, a, b) = (self.operand(&st, c), self.operand(&st, a), self.operand(&st, b));
                match self.store.app(Op::Ite, &[c, a, b]) {
                    Ok(t) => Ok(t),
                    // Branches of different sorts cannot form one term: split.
                    Err(_) if self.store.sort(c) == Sort::Bool => {
                        let leaves = {
                            let not_c = self.store.not(c);
                            vec![(c, a), (not_c, b)]
                        };
                        return self.split(st, leaves, |_, mut st, v| {
                            st.set(dst, v);
                            Step::Continue(st)
                        });
                    }
                    Err(e) => Err(e),
                }
            }
            Rhs::Load { addr, width } => {
                let p = self.operand(&st, addr);
                return self.with_address(st, p, *width, MAX_SYMBOLIC_READ, true, |me, st, alloc, off| {
                    me.load(st, alloc, off, dst, *width)
                });
            }
            Rhs::Alloc(n, fill) => {
                let n = self.operand(&st, n);
                let fill = match fill {
                    Some(v) => self.operand(&st, v),
                    None => self.store.constant(Value::Undef),
                };
                return self.alloc(st, dst, n, fill);
            }
        };
        match value {
            Ok(t) => {
                st.set(dst, t);
                st.top_mut().at += 1;
                Step::Continue(st)
            }
            Err(e) => self.fail(&st, bug_kind(&e)),
        }
    }

    /// The cell count `n` as a number: a symbolic count is fixed to the
    /// model's value (§3.3-style concretisation), which drops the others.
    fn cell_count(&mut self, st: &mut State, n: TermId) -> Option<usize> {
        let size = match self.store.as_const(n) {
            Some(v) => v,
            None if matches!(self.store.sort(n), Sort::Int | Sort::Bv(_)) => {
                let v = self.store.eval(n, &st.model).unwrap_or(Value::Int(0));
                let c = self.store.constant(v);
                let fixed = self.store.eq(n, c);
                let m = (*st.model).clone();
                st.assume(&self.store, fixed, m);
                self.incomplete("symbolic allocation size concretised".into());
                v
            }
            None => return None,
        };
        match size {
            Value::Int(k) if (0..=MAX_ALLOC as i128).contains(&k) => Some(k as usize),
            Value::Bv { bits, .. } if bits <= MAX_ALLOC => Some(bits as usize),
            _ => None,
        }
    }

    fn alloc(&mut self, mut st: State, dst: VarId, n: TermId, fill: TermId) -> Step {
        let Some(cells) = self.cell_count(&mut st, n) else {
            return self.fail(&st, BugKind::BadAllocation);
        };
        st.memory.push(Rc::new(Cells::new(fill, cells)));
        let a = self.store.constant(Value::Addr {
            alloc: st.memory.len() as u32 - 1,
            offset: 0,
        });
        st.set(dst, a);
        st.top_mut().at += 1;
        Step::Continue(st)
    }

    /// `grow p, n, v`: `n` more cells holding `v` for `p`'s allocation.
    fn grow(&mut self, mut st: State, p: TermId, n: TermId, fill: TermId) -> Step {
        let Some((alloc, _)) = self.store.addr_parts(p) else {
            return self.fail(&st, BugKind::InvalidAddress);
        };
        let Some(cells) = self.cell_count(&mut st, n) else {
            return self.fail(&st, BugKind::BadAllocation);
        };
        let Some(a) = st.memory.get_mut(alloc as usize) else {
            return self.fail(&st, BugKind::InvalidAddress);
        };
        if a.len() + cells > MAX_ALLOC as usize {
            return self.fail(&st, BugKind::BadAllocation);
        }
        Rc::make_mut(a).grow(cells, fill);
        st.top_mut().at += 1;
        Step::Continue(st)
    }

    /// Resolves the address `p` of an access of `width` bits (`None`: one
    /// cell): bug checks for non-addresses and out-of-bounds offsets, then a
    /// fork per feasible (allocation, offset), each running `then`. A
    /// symbolic offset that may reach `SMALL_FORK` cells or more, at most
    /// `span`, holding values of one sort, is one target, [`Offset::Within`];
    /// so is a `load`'s offset over any span of words in arithmetic
    /// progression ([`crate::semantics::affine_read`]).
    fn with_address(
        &mut self,
        st: State,
        p: TermId,
        width: Option<u8>,
        span: usize,
        load: bool,
        mut then: impl FnMut(&mut Self, State, u32, Offset) -> Step,
    ) -> Step {
        let (n, wide) = (width.map_or(1, |w| w as usize / 8), width.is_some());
        let mut st = st;
        let mut targets: Vec<(TermId, u32, Offset)> = Vec::new();
        for (guard, leaf) in self.leaves(p) {
            let Some((alloc, off)) = self.store.addr_parts(leaf) else {
                match self.check_bug(st, BugKind::InvalidAddress, guard) {
                    Some(s) => st = s,
                    None => return Step::Done,
                }
                continue;
            };
            let size = st.memory[alloc as usize].len();
            let last = size as i128 - n as i128;
            let lo = self.store.constant(Value::Int(0));
            let hi = self.store.constant(Value::Int(last));
            let below = self.store.app(Op::Lt, &[off, lo]).expect("offsets are Int");
            let above = self.store.app(Op::Gt, &[off, hi]).expect("offsets are Int");
            let outside = self.store.or(below, above);
            let bad = self.store.and(guard, outside);
            match self.check_bug(st, BugKind::OutOfBounds, bad) {
                Some(s) => st = s,
                None => return Step::Done,
            }
            if let Some(Value::Int(k)) = self.store.as_const(off) {
                if (0..=last).contains(&k) {
                    targets.push((guard, alloc, Offset::At(k as usize)));
                }
                continue;
            }
            // Bounds from the offset's shape (`zext(byte) * 4 + base`): a
            // few cells fork; more are read and written as an array when
            // they hold values of one sort (over the feasible offsets, when
            // the shape says little); else a fork per feasible offset, or
            // one offset when they are too many.
            let (slo, shi) = match self.store.value_range(off) {
                Some((a, b)) => (a.max(0), b.min(last)),
                None => (0, last),
            };
            if slo > shi {
                continue;
            }
            let (lo, hi) = if shi - slo >= SMALL_FORK as i128 {
                // A feasible offset: the state's model's, when it is one
                // (the probes centre on it, and a concretised access takes
                // it), else a model's of the path, the guard and the bounds.
                let in_bounds = self.store.not(outside);
                let inside = self.store.and(guard, in_bounds);
                let own = st.model.clone();
                let k = if self.eval_in_run(inside, &own) == Ok(Value::Bool(true)) {
                    Some(self.eval_in_run(off, &own))
                } else {
                    self.probing = true;
                    let m = self.decide(&st, inside);
                    self.probing = false;
                    m.ok().flatten().map(|m| self.store.eval(off, &m))
                };
                let k = match k {
                    Some(Ok(Value::Int(k))) if (slo..=shi).contains(&k) => k,
                    _ => slo,
                };
                // A concolic run does not search for the bounds (it took a
                // run of LZ4's decoder over 16 bytes 500 questions to Z3):
                // the cells the offset's shape bounds it to, up to `span`,
                // else the input's offset (below), but for a table's.
                // (Windows of 64 or 4 096 cells around it, after two
                // questions each, left the decoder's questions to Z3 too
                // slow: 27 branches in 5 s, against 69 so.)
                let concolic = self.concolic.is_some();
                let window = if shi - slo < TIGHT_SPAN as i128 {
                    Some((slo, shi))
                } else if concolic {
                    (shi - slo < span as i128).then_some((slo, shi))
                } else {
                    self.offset_range(&st, guard, off, k, last, span)
                        .map(|(a, b)| (a.max(slo), b.min(shi)))
                };
                let one = |me: &Self, (a, b): (i128, i128)| {
                    let cells = &st.memory[alloc as usize];
                    one_sort((a as usize..b as usize + n).map(|i| me.store.sort(cells[i])), wide)
                };
                match window {
                    Some(w) if one(self, w) => {
                        targets.push((guard, alloc, Offset::Within(off, w.0 as usize, w.1 as usize)));
                        continue;
                    }
                    Some((a, b)) if b - a < MAX_OFFSET_FORK as i128 => (a, b),
                    // The input's offset, and the others as one open
                    // branch a later run takes; or, at a point where runs
                    // took many offsets, the feasible ones as one array if
                    // they hold constants (a table).
                    _ if concolic => {
                        let point = concolic::offset_point(&st, guard, off);
                        if let Some(w) = self
                            .concolic_table(&st, point, k, (last, span))
                            .map(|(a, b)| (a.max(slo), b.min(shi)))
                            .filter(|&w| w.0 <= w.1 && one(self, w))
                            .filter(|&(a, b)| {
                                let cells = &st.memory[alloc as usize];
                                (a as usize..b as usize + n).all(|i| self.store.as_const(cells[i]).is_some())
                            })
                        {
                            targets.push((guard, alloc, Offset::Within(off, w.0 as usize, w.1 as usize)));
                            continue;
                        }
                        let kt = self.store.constant(Value::Int(k));
                        let at = self.store.eq(off, kt);
                        targets.push((self.store.and(guard, at), alloc, Offset::At(k as usize)));
                        let elsewhere = self.offsets_elsewhere(point, k);
                        targets.push((self.store.and(guard, elsewhere), alloc, Offset::At(k as usize)));
                        continue;
                    }
                    _ => {
                        // Past the array terms' span, a load may still read
                        // words in progression.
                        if let (true, Some(w)) = (load, width) {
                            if let Some((a, b)) = self.progression(&st, guard, alloc, off, (k, last), window, w) {
                                targets.push((guard, alloc, Offset::Within(off, a, b)));
                                continue;
                            }
                        }
                        match self.offset_range(&st, guard, off, k, last, MAX_OFFSET_FORK) {
                            Some(range) => range,
                            None => {
                                let at = self.module.location(st.top().func, st.top().at);
                                self.incomplete(format!(
                                    "symbolic offset ranging over more than {MAX_OFFSET_FORK} cells of an allocation of {size} cells, of mixed sorts or beyond {span} cells, concretised at {at}"
                                ));
                                let kt = self.store.constant(Value::Int(k));
                                let at = self.store.eq(off, kt);
                                targets.push((self.store.and(guard, at), alloc, Offset::At(k as usize)));
                                continue;
                            }
                        }
                    }
                }
            } else {
                (slo, shi)
            };
            // Offsets whose low bits are zero skip the cells between.
            let (m, r) = crate::semantics::offset_stride(&self.store, off);
            for k in (lo..=hi).filter(|k| k.rem_euclid(m) == r) {
                let kt = self.store.constant(Value::Int(k));
                let at = self.store.eq(off, kt);
                let g = self.store.and(guard, at);
                targets.push((g, alloc, Offset::At(k as usize)));
            }
        }
        if let [(g, alloc, off)] = targets.as_slice() {
            if self.store.is_true(*g) {
                return then(self, st, *alloc, *off);
            }
        }
        let guards: Vec<TermId> = targets.iter().map(|t| t.0).collect();
        let mut out = Vec::new();
        for (s, i) in self.fork(st, &guards, false) {
            match then(self, s, targets[i].1, targets[i].2) {
                Step::Continue(s) => out.push(s),
                Step::Fork(ss) => out.extend(ss),
                Step::Done => {}
            }
        }
        self.collect(out)
    }

    /// The feasible offsets `lo..=hi` of a `w`-bit load at `off` (`window`,
    /// else found by probes) when the words there are in arithmetic
    /// progression and `off` is aligned to them
    /// ([`crate::semantics::affine_read`]).
    #[allow(clippy::too_many_arguments)]
    fn progression(
        &mut self,
        st: &State,
        guard: TermId,
        alloc: u32,
        off: TermId,
        (k, last): (i128, i128),
        window: Option<(i128, i128)>,
        w: u8,
    ) -> Option<(usize, usize)> {
        let (a, b) = match window {
            Some(r) => r,
            None => self.offset_range(st, guard, off, k, last, last as usize + 1)?,
        };
        let (a, b) = (a as usize, b as usize);
        let cells = &st.memory[alloc as usize];
        let cells: Vec<TermId> = (a..b + w as usize / 8).map(|i| cells[i]).collect();
        crate::semantics::affine_read(&mut self.store, a, &cells, off, w)?;
        Some((a, b))
    }

    /// The feasible values of a symbolic offset `off` (under `st`'s path
    /// and `guard`; `k` is one of them), when they span at most `span`
    /// cells.
    fn offset_range(
        &mut self,
        st: &State,
        guard: TermId,
        off: TermId,
        k: i128,
        last: i128,
        span: usize,
    ) -> Option<(i128, i128)> {
        crate::semantics::offset_range(k, last, span as i128, |op, v| self.offset_can_be(st, guard, off, op, v))
    }

    /// Whether `off op v` can hold under `st`'s path and `guard`, with a
    /// value it takes there ([`crate::semantics::offset_range`]; `None`:
    /// the solver could not tell).
    fn offset_can_be(&mut self, st: &State, guard: TermId, off: TermId, op: Op, v: i128) -> Option<Option<i128>> {
        let vt = self.store.constant(Value::Int(v));
        let c = self.store.app(op, &[off, vt]).ok()?;
        let c = self.store.and(guard, c);
        self.probing = true;
        let answer = self.decide(st, c);
        self.probing = false;
        let r = answer.ok()?.map(|m| match self.store.eval(c, &m) {
            Ok(Value::Bool(true)) => crate::semantics::witness(&self.store, off, &m, op, v),
            _ => v,
        });
        Some(r)
    }

    fn load(&mut self, st: State, alloc: u32, off: Offset, dst: VarId, width: Option<u8>) -> Step {
        match off {
            Offset::At(k) => self.load_at(st, alloc, k, dst, width),
            Offset::Within(t, lo, hi) => self.load_within(st, alloc, (t, lo, hi), dst, width),
        }
    }

    fn load_at(&mut self, mut st: State, alloc: u32, off: usize, dst: VarId, width: Option<u8>) -> Step {
        let cells = &st.memory[alloc as usize];
        let value = match width {
            None => cells[off],
            Some(w) => {
                let bytes: Vec<TermId> = (0..w as usize / 8).map(|i| cells[off + i]).collect();
                match self.assemble(&bytes, w, ASSEMBLE_DEPTH, &mut FxHashMap::default()) {
                    Some(v) => v,
                    None => return self.fail(&st, BugKind::TypeError),
                }
            }
        };
        st.set(dst, value);
        st.top_mut().at += 1;
        Step::Continue(st)
    }

    /// The `w`-bit little-endian value of `bytes` (`None`: a cell that is
    /// not a byte). Bytes a merge made choices on one condition (each an
    /// `ite(c, …)` or the same on both sides) give the choice of the two
    /// words, `depth` conditions deep, so a merged word reads as
    /// `ite(c, v₁, v₂)` rather than four choices of bytes put together.
    /// `done` keeps the words of the byte tuples met: choices that share
    /// their sides are put together once.
    fn assemble(
        &mut self,
        bytes: &[TermId],
        w: u8,
        depth: u32,
        done: &mut FxHashMap<Vec<TermId>, Option<TermId>>,
    ) -> Option<TermId> {
        if let Some(v) = crate::semantics::stored_whole(&mut self.store, bytes, w) {
            return Some(v);
        }
        if let Some(v) = done.get(bytes) {
            return *v;
        }
        let cond = bytes.iter().find_map(|b| match self.store.node(*b) {
            Node::App(Op::Ite, a) => Some(a[0]),
            _ => None,
        });
        let Some(c) = cond.filter(|_| depth > 0) else {
            // No choice to look through (most loads): nothing to remember.
            return crate::semantics::word_of(&mut self.store, w, bytes);
        };
        let side = |me: &Self, holds: bool| -> Option<Vec<TermId>> {
            bytes
                .iter()
                .map(|b| match me.store.node(*b) {
                    Node::App(Op::Ite, a) if a[0] == c => Some(a[if holds { 1 } else { 2 }]),
                    Node::App(Op::Ite, _) => None,
                    _ => Some(*b),
                })
                .collect()
        };
        let mut word = None;
        if let (Some(yes), Some(no)) = (side(self, true), side(self, false)) {
            let yes = self.assemble(&yes, w, depth - 1, done);
            let no = self.assemble(&no, w, depth - 1, done);
            if let (Some(yes), Some(no)) = (yes, no) {
                word = self.store.app(Op::Ite, &[c, yes, no]).ok();
            }
        }
        let word = word.or_else(|| crate::semantics::word_of(&mut self.store, w, bytes));
        done.insert(bytes.to_vec(), word);
        word
    }

    /// A `w`-bit load at a symbolic offset `off` over `cells` (from `lo`)
    /// whose values step by at least the word's size by its shape
    /// ([`crate::semantics::offset_stride`]): a `read` of the words at the
    /// offsets it can take, each put together as a direct load's is (a
    /// word a store wrote is that word). Reading byte by byte, a hash
    /// table's key at `keys + (h & 3) * 4` was four reads of four-way
    /// choices over bytes at every offset, aligned or not, and Z3 took 9 ms
    /// a question (klib's khash). `None` where the offsets may overlap
    /// words, reach more than [`MAX_OFFSET_FORK`] words (an expression
    /// evaluator's tables of doubles, read so, took dse on it from 132 to
    /// 247 MB), or a cell is not a byte.
    fn aligned_read(&mut self, lo: usize, cells: &[TermId], off: TermId, w: u8) -> Option<TermId> {
        let n = w as usize / 8;
        let (m, r) = crate::semantics::offset_stride(&self.store, off);
        if n < 2 || m < n as i128 || cells.len() > MAX_OFFSET_FORK * m as usize {
            return None;
        }
        let mut done = FxHashMap::default();
        let mut words = Vec::new();
        for p in (0..=cells.len() - n).filter(|p| ((lo + p) as i128).rem_euclid(m) == r) {
            let word = self.assemble(&cells[p..p + n], w, ASSEMBLE_DEPTH, &mut done)?;
            words.push((lo + p, word));
        }
        let array = crate::semantics::sparse_array(&mut self.store, words)?;
        let args: Vec<TermId> = std::iter::once(off).chain(array).collect();
        self.store.app(Op::Read, &args).ok()
    }

    fn store(&mut self, st: State, alloc: u32, off: Offset, v: TermId, width: Option<u8>) -> Step {
        match off {
            Offset::At(k) => self.store_at(st, alloc, k, v, width),
            Offset::Within(t, lo, hi) => self.store_within(st, alloc, (t, lo, hi), v, width),
        }
    }

    /// A load at a symbolic offset `off` (its values in `lo..=hi`): each
    /// byte is a `read` of an array term over the cells it may reach.
    fn load_within(
        &mut self,
        mut st: State,
        alloc: u32,
        (off, lo, hi): (TermId, usize, usize),
        dst: VarId,
        width: Option<u8>,
    ) -> Step {
        let n = width.map_or(1, |w| w as usize / 8);
        let cells: Vec<TermId> = (lo..hi + n).map(|i| st.memory[alloc as usize][i]).collect();
        if let Some(v) = width.and_then(|w| crate::semantics::affine_read(&mut self.store, lo, &cells, off, w)) {
            st.set(dst, v);
            st.top_mut().at += 1;
            return Step::Continue(st);
        }
        if let Some(v) = width.and_then(|w| self.aligned_read(lo, &cells, off, w)) {
            st.set(dst, v);
            st.top_mut().at += 1;
            return Step::Continue(st);
        }
        let Some(array) = crate::semantics::array_of(&mut self.store, lo, &cells, width.is_some()) else {
            return self.fail(&st, BugKind::TypeError);
        };
        let value = crate::semantics::read_wide(&mut self.store, &array, off, width);
        st.set(dst, value);
        st.top_mut().at += 1;
        Step::Continue(st)
    }

    /// A store at a symbolic offset `off` (its values in `lo..=hi`): every
    /// cell it may reach becomes a choice between the byte written there and
    /// the cell's old value.
    fn store_within(
        &mut self,
        mut st: State,
        alloc: u32,
        (off, lo, hi): (TermId, usize, usize),
        v: TermId,
        width: Option<u8>,
    ) -> Step {
        let n = width.map_or(1, |w| w as usize / 8);
        let Some(bytes) = crate::semantics::bytes_of(&mut self.store, v, width) else {
            return self.fail(&st, BugKind::TypeError);
        };
        let a = alloc as usize;
        let new: Vec<TermId> = (lo..hi + n)
            .map(|c| {
                crate::semantics::written(
                    &mut self.store,
                    off,
                    (lo, hi),
                    c,
                    &bytes,
                    st.memory[a][c],
                    width.is_some(),
                )
            })
            .collect();
        let cells = Rc::make_mut(&mut st.memory[a]);
        for (c, t) in (lo..).zip(new) {
            cells.set(c, t);
        }
        st.top_mut().at += 1;
        Step::Continue(st)
    }

    fn store_at(&mut self, mut st: State, alloc: u32, off: usize, v: TermId, width: Option<u8>) -> Step {
        match width {
            None => Rc::make_mut(&mut st.memory[alloc as usize]).set(off, v),
            Some(w) => {
                if self.store.sort(v) != Sort::Bv(w) {
                    return self.fail(&st, BugKind::TypeError);
                }
                for i in 0..w as usize / 8 {
                    let sh = self.store.constant(Value::bv(w, 8 * i as u64));
                    let moved = self.store.app(Op::LShr, &[v, sh]).expect("same width");
                    let byte = self.store.app(Op::Trunc(8), &[moved]).expect("narrows");
                    Rc::make_mut(&mut st.memory[alloc as usize]).set(off + i, byte);
                }
            }
        }
        st.top_mut().at += 1;
        Step::Continue(st)
    }
}
