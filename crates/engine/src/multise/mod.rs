//! `multise`: symbolic execution with value summaries (seed 000, MultiSE).
//!
//! One consolidated state maps every variable, every memory cell, the
//! per-path counters (inputs read, allocations made) and `pc` to value
//! summaries whose guards are BDDs over branch predicates. Each step picks a
//! `pc` entry `(φ, ℓ)` and executes statement `ℓ` for all paths in `φ` at
//! once, updating the state with `⊎_φ` (Figure 3). Equal values coalesce, so
//! paths that meet share their state and later statements run once for all
//! of them; `--no-coalesce` keeps them apart and makes this DSE (§3.4).
//!
//! Exploration is function-bounded (§5): a call runs the callee's `pc`
//! entries to completion and merges them at its exit before the caller goes
//! on. New `pc` entries get a BDD check, then an SMT check; other summaries
//! only the BDD check. Every satisfiable SMT check yields a test input, and
//! every bug one more; a test's expected outcome is read off the final
//! state under its input.

mod ahead;
mod cells;
mod loops;
mod race;
mod summary;

use summary::SummaryBuilder;
pub use summary::{guarded_update, ValueSummary};

use crate::concrete::{input_name, is_integer_division, render_memory};
use crate::config::Config;
use crate::dse::explore_from_start;
use crate::dse::merging::{release_memory, Merging, Strategy};
use crate::qce::Qce;
use crate::record::Recorder;
use crate::results::{Outcome, RaceStats, RunResult, TestCase, TestInput};
use crate::run::{Engine, EngineKind};
use crate::semantics::{
    bug_kind, BugKind, Offset, MAX_ALLOC, MAX_CALL_DEPTH, MAX_OFFSET_FORK, MAX_SYMBOLIC_WRITE, SMALL_FORK, TIGHT_SPAN,
};
use crate::EngineError;
use braid_budget::{catch_stop, Budget};
use braid_guard::{GaveUp, Guard, Guards, VarOrder, Walk};
use braid_ir::{FuncId, Module, Operand, Rhs, Stmt, StmtIdx, VarId};
use braid_solver::{QuerySolver, SatResult};
use braid_term::{EvalMemo, Model, Node, Op, Sort, TermId, TermStore, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::rc::Rc;

/// Which `pc` entry runs next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The entry earliest in reverse post-order of the current function:
    /// every path into a join is there before it runs (maximal sharing).
    Topo,
    /// The newest entry.
    Dfs,
    /// The oldest entry.
    Bfs,
}

impl Pick {
    pub fn parse(s: &str) -> Option<Pick> {
        match s {
            "topo" => Some(Pick::Topo),
            "dfs" => Some(Pick::Dfs),
            "bfs" => Some(Pick::Bfs),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Coalesce equal values in `⊎` (off: the engine runs as DSE, §3.4).
    pub coalesce: bool,
    pub pick: Pick,
    /// Concretise non-linear integer arithmetic (§3.3).
    pub linear_only: bool,
    /// Concretise symbolic floating point instead of asking the solver (§3.3).
    pub no_float: bool,
    /// Print each executed statement and its guard to stderr.
    pub trace: bool,
    /// Render the final value summaries (`--dump-state`).
    pub dump_state: bool,
    /// BDD nodes below which no garbage collection runs (tests set it low
    /// to collect at nearly every step).
    pub gc_min_nodes: usize,
    /// The order of the guards' BDD variables.
    pub var_order: VarOrder,
    /// Reorder the variables by sifting at garbage collections
    /// ([`REORDER_SHARE`]; `--bdd-reorder`).
    pub reorder: bool,
    /// BDD nodes from which a collection reorders (tests set it low).
    pub reorder_min_nodes: usize,
    /// Predicates over one byte as functions of its bits (`--bdd-atoms
    /// bits`, the default; `predicates` makes each predicate a variable).
    pub bit_atoms: bool,
    /// Which `pc` entries at one statement merge (with `coalesce`).
    pub joins: Joins,
    /// `Some(f)`: merging can be given up for `dse` ([`Fallback`],
    /// [`FALLBACK`]); `None`: merge to the end.
    pub fallback: Option<Fallback>,
}

/// When multise gives merging up and hands the run to `dse` (`--fallback
/// dse`, the default, with `--race-after`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fallback {
    /// `Some(after)`: after merging has run `after` alone, a dse exploration
    /// from the start takes turns with it (as in ssm's and dsm's race,
    /// `dse::merging::Merging::race_after_ms`; the shares are those of
    /// `multise/race.rs`),
    /// and whichever finishes first ends the run. `None`: no race.
    pub race_after: Option<std::time::Duration>,
    /// Past its turn by this much inside one step (a BDD operation on
    /// guards as large as the paths they stand for), merging is given up
    /// and dse goes on alone.
    pub overrun: std::time::Duration,
    /// `Some((after, share))`: once `after` has passed since exploring
    /// began and BDD operations have taken `share` of that time or more,
    /// merging is given up.
    pub bdd_share: Option<(std::time::Duration, f64)>,
    /// dse races on a thread of its own where the machine has a second
    /// core (`dse/second.rs`), rather than in turns on the run's thread.
    pub threads: bool,
    /// How long ssm merges beside dse after the BDD share gave merging up
    /// ([`SSM_FOR`]), before multise merges again beside dse (after a
    /// guard too large to decide, ssm merges to the end).
    pub ssm_for: std::time::Duration,
    /// `Some(grace)`: where the BDD share gives merging up before dse's
    /// thread started, merging pauses between two steps for ssm's window
    /// and then goes on where it was ([`Multise::pause_for_ssm`]); inside a
    /// step the share unwinds once it has been due for `grace` ([`SHARE_GRACE`]),
    /// and merging starts again from the start after ssm. `None`: it
    /// always starts again.
    pub share_grace: Option<std::time::Duration>,
}

/// `--coalesce always` (MultiSE: every join) or `auto` (where QCE's
/// similarity says the merged values stay cheap to use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joins {
    All,
    Similar,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            coalesce: true,
            pick: Pick::Topo,
            linear_only: false,
            no_float: false,
            trace: false,
            dump_state: false,
            gc_min_nodes: GC_MIN_NODES,
            var_order: VarOrder::Inputs,
            reorder: false,
            reorder_min_nodes: REORDER_MIN_NODES,
            bit_atoms: true,
            joins: Joins::All,
            fallback: Some(FALLBACK),
        }
    }
}

/// Entries past which a summary of numbers becomes one value ([`Multise::narrow`]).
const MAX_WIDTH: usize = 256;

/// Symbolic offsets spanning up to this many cells are split per offset.
const MAX_OFFSET_SPLIT: i128 = MAX_OFFSET_FORK as i128;

/// The largest guard (in BDD nodes) sent whole to the solver.
const MAX_SOLVED_GUARD: usize = 20_000;

/// How many cubes of a guard the feasibility check tries (cutting each
/// unsat one's core out of the guard) before it sends the rest of the guard
/// whole to the solver.
const CUBES_TRIED: usize = 64;

/// How many cubes of a guard too large to send whole (over
/// [`MAX_SOLVED_GUARD`] nodes) the check tries before it gives its paths up.
const CUBES_MAX: usize = 4096;

/// What the cubes tried of a guard tell: a model, that it is infeasible, or
/// what is left of it (after cubes whose cores were wide, or one the solver
/// could not decide).
enum Cubes {
    Sat(Rc<Model>),
    Infeasible,
    /// `stop`: the cubes stopped before they ran out, because the solver
    /// could not decide one or a cut would have grown the guard past what
    /// a guard sent whole may hold ([`MAX_SOLVED_GUARD`]; the guard is
    /// then as before it): what is left goes whole to the solver.
    Left {
        rest: Guard,
        wide: bool,
        stop: bool,
    },
}

/// The most BDD nodes a feasibility check's walk of a guard may visit
/// before the cubes and the solver try it ([`Guards::search_model`]),
/// each walk that fails halving it for the next, down to
/// [`SEARCH_STEPS_LEAST`], and each that decides its guard raising it to
/// twice the nodes it visited. A step takes about a microsecond; the
/// walks that found a model on nodejs/http-parser over 6 bytes took up to
/// 67 000 steps. Doubling after every walk that decided (most decide in a
/// few nodes) kept the bound near its top where most of the walks that
/// fail run out: intel/tinycbor over 3 bytes 12.6-16.0 -> 10.5-11.8 s,
/// cmp over 4 operations 3.5-3.7 -> 1.7-2.4 s (three runs each),
/// http-parser, minmea and yxml within the noise.
const SEARCH_STEPS: usize = 1 << 17;

/// The fewest nodes a walk may visit ([`SEARCH_STEPS`]).
const SEARCH_STEPS_LEAST: usize = 1 << 11;

/// After this many unsat cubes in a row whose cores keep more than half of
/// their literals, the feasibility check sends the rest of the guard whole.
const WIDE_CORES: usize = 4;

/// Below this many BDD nodes, no garbage collection (by default). A node
/// costs about 150 bytes with its share of the unique table and the
/// operation caches, and most nodes of a long run are dead: at 2^20,
/// bench/multise's linked list peaked at 44 MiB (dse: 19) and its
/// red-black tree at 54 (dse: 19); at 2^16, 23 and 30 MiB, and no row
/// of the table ran slower (symarith 427 -> 228 ms).
const GC_MIN_NODES: usize = 1 << 16;

/// BDD nodes from which a garbage collection reorders the variables too
/// (`Options::reorder`), and then each time they have doubled since.
const REORDER_MIN_NODES: usize = 1 << 17;

/// A reordering's time, as a share of the BDD operations' time so far:
/// collections come as the nodes double, so reordering takes about this
/// share of the BDD time overall.
const REORDER_SHARE: f64 = 0.25;

/// How long ssm may merge after multise's guards were given up
/// (`Multise::then_merge`): dse on its thread runs slower while ssm runs
/// beside it (a sorting harness of 6 ints, scratch: dse 7.3 s there
/// against 5.1 s alone, where ssm merged to the end), and ssm's wins
/// there come early (Table 1's Heap Sort in 110-200 ms, the harness of 5
/// ints in 206 ms).
pub const SSM_FOR: std::time::Duration = std::time::Duration::from_millis(500);

/// `Options::fallback` by default.
///
/// - Once BDD operations have taken 85 % of the run's first half second or
///   more, merging is given up: where the paths that meet hold different
///   states (sorting's cells hold orderings of the inputs), the guards grow
///   as large as the paths they stand for, and each operation on them
///   costs more than a forking engine's step on one path (Heap Sort of 7
///   inputs: multise cut off at 60 s with 54 s in BDD operations; dse
///   1 s). No row of Table 1, the merging suite or the containers where
///   multise wins comes near it before it ends.
/// - What follows: ssm from the start beside dse on a thread for
///   [`SSM_FOR`] (or until its memory outgrows dse's), then multise beside
///   dse with no BDD-share rule: the share does not tell every loss from a
///   win, and dse on its thread bounds the run's time where merging loses.
///   rgamble/libcsv's strict parser over 7 and 8 symbolic bytes (scratch
///   harness) sat at 85-87 % at 500 ms: given up for good, dse did not
///   finish in 30 s (1.3 GB); multise from the start again finished in 7.7
///   and 11.8-14.4 s ([`again_beside`]). The share is looked at between
///   steps, where multise pauses for ssm and then goes on where it was
///   ([`Multise::pause_for_ssm`], [`Fallback::share_grace`]): the parser
///   over 7 bytes 4.0-4.5 -> 2.8-4.1 s, over 8 bytes 7.0-7.9 -> 5.4-7.1 s.
///   Inside a step it unwinds after a grace, and multise starts again from
///   the start after ssm ([`Multise::then_merge`]).
/// - The share is of the time since exploring began, not since the run
///   did: a C program compiled and loaded took 250 ms of a run before the
///   first BDD operation (a scratch harness over swenson/sort's heap sort
///   of 7 ints), which kept its share under 80 % until merging had run
///   1.6 s past what dse needs in all.
/// - 85 %, not 80 % (until the forty-fifth session): wins sit at 80 %
///   (jsmn's tokenizer over 8 bytes; a version-string parser, semver.c
///   over 4 and 5 bytes, at 80.0-80.2 % at 500 ms, given up in one run of
///   three where merging alone finishes in 12 s and dse does not in 60),
///   the sorts of Table 1 at 87-89 % (Quick Sort, six runs) and more (Heap Sort);
///   Red-Black, a win, at 83-88 % stays near the cliff on a loaded host
///   (it ends before 500 ms on a quiet one).
/// - Not sooner: a second stage at 93 % after 150 ms gave Heap Sort up at
///   150 ms (1.41 -> 1.11 s, 79 -> 39 MiB), but the same harness over
///   swenson/sort's merge sort, which merging wins (0.63 s against dse's
///   2.98), holds 92-94 % from 200 ms to its end: given up, it took 3.29 s.
///   The shares of wins and losses overlap there (heap sort 93 % at
///   150 ms, 95 % from 200 ms).
/// - After a second, dse races alongside (`multise/race.rs`): a run whose merging
///   pays in neither way (its time in the solver, say) is bounded by a
///   few times dse's. Starting the race at 200 ms, as ssm's and dsm's
///   does, made multise's wins that take longer 1.2-1.8 times slower
///   (Calc Parser, the containers' red-black tree and skip list), without
///   a gain on the sorts.
/// - Past `braid_guard::GIVE_UP_MEMORY` of the memory limit, merging is
///   given up too.
pub const FALLBACK: Fallback = Fallback {
    race_after: Some(std::time::Duration::from_millis(1000)),
    overrun: std::time::Duration::from_millis(500),
    bdd_share: Some((std::time::Duration::from_millis(500), 0.85)),
    threads: true,
    ssm_for: SSM_FOR,
    share_grace: Some(SHARE_GRACE),
};

/// [`Fallback::share_grace`] by default: how long a step may go on once
/// the share is due before it unwinds. On the runs looked at (Table 1's
/// Quick Sort, a red-black tree of 7 keys, libcsv's parser over 7 and 8
/// bytes, cJSON over 3) the share fell due between two steps every time:
/// the grace bounds what a long step delays the give-up by.
pub const SHARE_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Every guard a frame holds: its `pc` entries, variables, returned values
/// and merged exits.
/// The one value `s` has on the paths of `phi`, if it has one.
fn sole_in(guards: &mut Guards, s: &ValueSummary, phi: Guard) -> Option<TermId> {
    for &(g, v) in s.iter() {
        let r = if g == Guard::TRUE { phi } else { guards.and(g, phi) };
        if r == phi {
            return Some(v);
        }
        if !r.is_false() {
            return None;
        }
    }
    None
}

fn frame_guards(frame: &Frame) -> impl Iterator<Item = Guard> + '_ {
    frame
        .pc
        .iter()
        .chain(&frame.halted)
        .map(|e| e.guard)
        .chain(
            frame
                .vars
                .iter()
                .chain([&frame.returned])
                .flat_map(|s| s.iter().map(|e| e.0)),
        )
        .chain(frame.exits.iter().map(|x| x.guard))
}

/// What an active call below the current frame holds while its callee runs:
/// the calling frame itself, moved here until the call returns (none for the
/// summaries a run ahead handed back), and guards of its own. (A copy of the
/// frame's guards and variables at each call was quadratic where a frame
/// holds many entries: under `--no-coalesce`, a printf-style formatter over 2
/// symbolic bytes, calling its output function per character, took 33 s where
/// it now takes 25.)
struct Held {
    caller: Option<Frame>,
    guards: Vec<Guard>,
}

impl Held {
    fn guards(&self) -> impl Iterator<Item = Guard> + '_ {
        self.caller
            .iter()
            .flat_map(frame_guards)
            .chain(self.guards.iter().copied())
    }

    /// The calling frame's variables, if it is a call.
    fn vars(&self) -> &[ValueSummary] {
        self.caller.as_ref().map_or(&[], |f| &f.vars)
    }
}

/// A `pc` entry: the paths in `guard` are at statement `at`.
#[derive(Clone)]
struct PcEntry {
    guard: Guard,
    at: StmtIdx,
    /// How many paths the entry stands for (Kuznetsov's state multiplicity).
    mult: u64,
    /// Arrivals at each loop head, kept only under `--loop-bound`.
    visits: Rc<BTreeMap<StmtIdx, u32>>,
    /// A model of `guard`, tried before the solver.
    model: Rc<Model>,
    /// Creation order, for the `dfs` and `bfs` picks.
    seq: u64,
    /// Merged at the loop head it is at ([`loops`]); it coalesces with no
    /// other entry there.
    merged: bool,
}

struct Frame {
    /// Distinct per call.
    id: u64,
    func: FuncId,
    pc: Vec<PcEntry>,
    vars: Vec<ValueSummary>,
    /// Values returned so far, each under the guard of the paths returning it.
    returned: ValueSummary,
    /// The returning paths: one merged exit (§5), or with `--no-coalesce`
    /// one per returning entry.
    exits: Vec<Exit>,
    /// Entries that reached `halt` (kept for `--dump-state`).
    halted: Vec<PcEntry>,
}

struct Exit {
    guard: Guard,
    mult: u64,
    model: Rc<Model>,
}

struct Allocation {
    size: ValueSummary,
    cells: cells::Cells,
    /// Pages of cells as bytes for running ahead, where every cell of the
    /// page had one byte as its value on the paths of the guard (`None`:
    /// all paths) when last converted and none was written since
    /// ([`Allocation::set`] forgets the page).
    bytes: Vec<Option<BytePage>>,
    /// While loop-head merging watches a loop, each cell's value before its
    /// first write since the journal was last taken ([`loops`]).
    watched: bool,
    journal: Vec<(usize, ValueSummary)>,
    journaled: rustc_hash::FxHashSet<usize>,
}

/// A page of cells as bytes, and the guard it holds under (`None`: every
/// path).
type BytePage = (Option<Guard>, Rc<[u8]>);

impl Allocation {
    fn new(watched: bool) -> Allocation {
        Allocation {
            size: ValueSummary::default(),
            cells: cells::Cells::default(),
            bytes: Vec::new(),
            watched,
            journal: Vec::new(),
            journaled: Default::default(),
        }
    }

    fn set(&mut self, c: usize, s: ValueSummary) {
        let before = self.cells.set(c, s);
        if self.watched && self.journaled.insert(c) {
            self.journal.push((c, before));
        }
        if let Some(p) = self.bytes.get_mut(c / ahead::PAGE) {
            *p = None;
        }
    }
}

enum EventKind {
    /// `halt`, or the entry function returning; `vars` are the ending
    /// frame's (the paths that end keep these values).
    End {
        func: FuncId,
        vars: Vec<ValueSummary>,
        returned: Option<ValueSummary>,
    },
    Bug {
        kind: BugKind,
        func: FuncId,
        stmt: StmtIdx,
    },
}

/// How the paths in `guard` ended.
struct Event {
    guard: Guard,
    kind: EventKind,
}

impl Engine for Multise<'_> {
    fn kind(&self) -> EngineKind {
        EngineKind::Multise
    }

    fn run(mut self: Box<Self>, budget: &Budget, rec: &mut Recorder) -> Result<RunResult, EngineError> {
        self.prepare(budget);
        // A dse racing on a thread of its own borrows the module there.
        std::thread::scope(|scope| self.run_in(scope, budget, rec))
    }
}

/// multise from the start again beside `second`, dse on its thread under
/// way, once ssm took its time beside it ([`crate::dse::ssm_beside`]): its
/// guards were given up for their BDD operations' share, which is no
/// longer looked at (ssm's time has passed, and dse on its thread bounds
/// the run's), while the race's rules still hold (its memory, a step's
/// overrun, dse finishing first). The BDD share does not tell a merge
/// that pays from one that does not: rgamble/libcsv's parser in strict
/// mode over 7 to 10 symbolic bytes (scratch harness) had 85-87 % in BDD
/// operations at 500 ms, as Table 1's sorts, which merging loses, have
/// 87-98 %; multise alone finishes the parser over 8 bytes in 7.7 s and
/// 59 MB, and dse does not in 30 s (1.2 GB). (Where the share falls due
/// between two steps, merging pauses instead and goes on where it was:
/// [`Multise::pause_for_ssm`].)
#[allow(clippy::too_many_arguments)]
fn again_beside<'m, 'scope>(
    module: &'m Module,
    entry: FuncId,
    program: &str,
    config: Config,
    opts: Options,
    beside: (crate::dse::second::Second, i64),
    scope: &'scope std::thread::Scope<'scope, '_>,
    budget: &Budget,
    rec: &mut Recorder,
    solver: braid_solver::SolverStats,
) -> Result<RunResult, EngineError>
where
    'm: 'scope,
{
    let fallback = opts.fallback.map(|f| Fallback {
        bdd_share: None,
        race_after: Some(std::time::Duration::ZERO),
        ..f
    });
    let mut again = Box::new(Multise::new(
        module,
        entry,
        program,
        config,
        Options { fallback, ..opts },
    ));
    again.prepare(budget);
    again.solver.stats = solver;
    again.beside = Some(beside);
    again.run_in(scope, budget, rec)
}

impl<'m> Multise<'m> {
    /// Runs under `budget`, with the guards' options.
    fn prepare(&mut self, budget: &Budget) {
        self.budget = budget.clone();
        self.solver.set_budget(budget);
        self.guards.set_budget(budget);
        self.guards.set_order(self.opts.var_order);
        self.guards.set_bit_atoms(self.opts.bit_atoms);
    }

    /// [`Engine::run`] within `scope`, where dse's thread may run.
    fn run_in<'scope>(
        mut self: Box<Self>,
        scope: &'scope std::thread::Scope<'scope, '_>,
        budget: &Budget,
        rec: &mut Recorder,
    ) -> Result<RunResult, EngineError>
    where
        'm: 'scope,
    {
        if let (Some(fallback), true) = (self.opts.fallback, self.opts.coalesce) {
            self.start_race(fallback, scope);
        }
        let frame = self.explore(rec)?;
        if let Some(ended) = self.ended.take() {
            // ssm or dse, beside which merging paused, ended the run.
            let mut r = ended?;
            if budget.stopped() {
                self.frontier(rec);
            }
            (r.stats.bdd_ms, r.stats.bdd_nodes) = self.bdd_stats();
            return Ok(r);
        }
        let went_on = self.went_on.take();
        let mut r = self.after_explore(frame, scope, budget, rec)?;
        if let Some(why) = went_on {
            r.stats.merging_given_up = Some(crate::dse::then_given_up(why, r.stats.merging_given_up.take()));
        }
        Ok(r)
    }

    /// The BDD operations' time (ms) and the most nodes alive, for the
    /// statistics of a run another engine ended.
    fn bdd_stats(&self) -> (u64, u64) {
        (
            self.guards.time_spent().as_millis() as u64,
            self.guards.peak_nodes as u64,
        )
    }

    /// What follows [`Multise::explore`] in [`Multise::run_in`]: the
    /// exploration's end, or what goes on where merging was given up.
    fn after_explore<'scope>(
        mut self: Box<Self>,
        frame: Option<Frame>,
        scope: &'scope std::thread::Scope<'scope, '_>,
        budget: &Budget,
        rec: &mut Recorder,
    ) -> Result<RunResult, EngineError>
    where
        'm: 'scope,
    {
        self.guards.set_give_up(None);
        let mut race = self.race.take();
        if let Some(second) = race.as_mut().and_then(|r| r.second.as_mut()) {
            // Merging's operations ran under a budget that dse's end
            // cancels; what follows runs under the run's.
            self.guards.set_budget(budget);
            self.solver.set_budget(budget);
            second.take_tests(rec);
        }
        if let Some(r) = race.as_mut() {
            if frame.is_none() && r.second.as_ref().is_some_and(|s| s.finished()) {
                r.dse_won = true;
            }
        }
        // Merging's time ends here (handing over its paths is not racing).
        let merging_time = race.as_ref().map(|r| self.merging_time(r));
        let race_why = race.as_ref().and_then(|r| {
            if r.dse_won {
                Some("dse, raced alongside, finished first".to_string())
            } else if budget.stopped() {
                None
            } else if let Some(why) = &r.given_up {
                Some(why.clone())
            } else if self.guards.gave_up() == Some(GaveUp::Deadline) {
                Some(self.overrun_reason(r))
            } else {
                None
            }
        });
        let gave_up = (self.guards.gave_up().is_some() || race_why.is_some()) && !budget.stopped();
        if gave_up {
            let raced = race.as_ref().is_some_and(|r| r.joined());
            let then = self.then_merge(raced, race_why.is_some());
            let beside = self.merge_beside(race.as_ref());
            let why = race_why.unwrap_or_else(|| self.give_up_reason(raced, then.is_some(), false));
            let self_gave_up = self.guards.gave_up();
            // The tests found so far are the recorder's, and the paths
            // under way hand over their models as the frontier does
            // (unless dse finished first, which explored them); the rest
            // of the state goes before `dse` goes on or starts.
            self.flush(rec);
            if !race.as_ref().is_some_and(|r| r.dse_won) {
                self.frontier(rec);
            }
            let (module, entry, config, opts) = (self.module, self.entry, self.config.clone(), self.opts.clone());
            let program = std::mem::take(&mut self.program);
            let (bdd_ms, bdd_nodes) = self.bdd_stats();
            if let Some(s) = &self.loop_solver {
                self.solver.stats.absorb(&s.stats);
            }
            let solver_before = std::mem::take(&mut self.solver.stats);
            let stats = race.as_ref().zip(merging_time).map(|(r, t)| r.stats(t, None));
            let rival = race.as_mut().and_then(|r| r.rival.take());
            let base = race.as_ref().map_or(0, |r| r.base);
            let second = race.as_mut().and_then(|r| r.second.take());
            drop(frame);
            drop(self);
            let alone = std::time::Instant::now();
            let raced = |r: &mut RunResult| {
                // dse's time (its turns, or its thread's) and its time
                // alone; its paths in all.
                r.stats.race = stats.clone().map(|s| RaceStats {
                    dse_ms: s.dse_ms + alone.elapsed().as_millis() as u64,
                    dse_paths: r.paths,
                    winner: (!budget.stopped()).then(|| "dse".to_string()),
                    ..s
                });
            };
            // ssm beside dse on its thread: dse under way (merging given up
            // in the race), or started now, when ssm given up hands its
            // thread back for multise to merge again beside it, unless a
            // guard too large to decide gave merging up: multise again
            // meets it again (Table 1's priority queue of 8 operations
            // took ssm's memory rule back to multise, which gave up at
            // the same guard after 500 ms more).
            let again = self_gave_up != Some(GaveUp::Guard);
            let ssm = match (second, beside, then) {
                (Some(s), Some(merging), _) if !s.finished() => Ok((s, merging, false)),
                (Some(s), None, Some(merging)) if !s.started() => Ok((s, merging, again)),
                (second, _, _) => Err(second),
            };
            let second = match ssm {
                Err(second) => second.filter(|s| s.started()),
                Ok((s, merging, hand_back)) => {
                    let beside = crate::dse::ssm_beside(
                        module,
                        entry,
                        &program,
                        config.clone(),
                        merging,
                        (s, base),
                        hand_back,
                        budget,
                        rec,
                        why.clone(),
                        solver_before,
                    )?;
                    let r = match beside {
                        crate::dse::Beside::Ended(mut r) => {
                            (r.stats.bdd_ms, r.stats.bdd_nodes) = (bdd_ms, bdd_nodes);
                            *r
                        }
                        crate::dse::Beside::HandedBack(s, solver, ssm) => {
                            let mut r = again_beside(
                                module,
                                entry,
                                &program,
                                config,
                                opts,
                                (s, base),
                                scope,
                                budget,
                                rec,
                                *solver,
                            )?;
                            let again = format!(
                                "{why}; ssm given up after {} ms, multise from the start again beside dse",
                                ssm.as_millis()
                            );
                            r.stats.merging_given_up =
                                Some(crate::dse::then_given_up(again, r.stats.merging_given_up.take()));
                            r
                        }
                    };
                    return Ok(r);
                }
            };
            let finished = second.and_then(|s| {
                release_memory(budget);
                s.finish(rec, EngineKind::Multise, why.clone(), &solver_before)
            });
            let mut r = match (rival, finished) {
                (_, Some(mut r)) => {
                    raced(&mut r);
                    r
                }
                (Some(rival), None) => {
                    release_memory(budget);
                    let mut r = rival.finish(rec, EngineKind::Multise, why, &solver_before);
                    raced(&mut r);
                    r
                }
                (None, None) => explore_from_start(
                    module,
                    entry,
                    &program,
                    config,
                    then,
                    budget,
                    rec,
                    EngineKind::Multise,
                    why,
                    solver_before,
                )?,
            };
            (r.stats.bdd_ms, r.stats.bdd_nodes) = (bdd_ms, bdd_nodes);
            return Ok(r);
        }
        // Neither finished: the run ended at least the paths dse did.
        let mut dse_paths = 0;
        if let Some(mut r) = race.filter(|r| r.joined()) {
            let winner = (!budget.stopped()).then_some("merging");
            self.result.stats.race = merging_time.map(|t| r.stats(t, winner));
            if let Some(rival) = r.rival.take() {
                if budget.stopped() {
                    dse_paths = rival.paths();
                    rival.stop(rec);
                }
            }
            // Dropped, it stops dse (merging finished first).
            if let Some(second) = r.second.take() {
                if budget.stopped() {
                    dse_paths = second.paths();
                    second.stop(rec);
                }
            }
        }
        if budget.stopped() {
            self.frontier(rec);
        } else {
            self.match_pending();
            self.flush(rec);
        }
        if self.opts.dump_state {
            // Rendering guards is BDD work: past the budget it unwinds, and
            // the dump is left out.
            self.result.state_dump = frame.as_ref().and_then(|f| catch_stop(|| self.render_state(f)).ok());
        }
        self.finish_stats(frame.as_ref());
        self.result.paths = self.result.paths.max(dse_paths);
        Ok(self.result)
    }
}

pub struct Multise<'m> {
    module: &'m Module,
    entry: FuncId,
    program: String,
    config: Config,
    opts: Options,
    store: TermStore,
    guards: Guards,
    solver: QuerySolver,
    memory: Vec<Allocation>,
    /// Per-path counters as summaries: reads of each input name, allocations.
    counters: FxHashMap<String, ValueSummary>,
    events: Vec<Event>,
    /// Test inputs whose paths have not ended yet: one per satisfiable SMT
    /// check and per bug. A path's test is written when its event comes.
    pending: Vec<Rc<Model>>,
    /// The inputs of every model that became a test or is pending.
    seen_models: std::collections::BTreeSet<Vec<(braid_term::SymId, Value)>>,
    /// Tests found since the recorder last took them.
    found: Vec<TestCase>,
    rank: Vec<Vec<usize>>,
    loop_heads: Vec<Vec<bool>>,
    seq: u64,
    result: RunResult,
    budget: Budget,
    summaries_processed: u64,
    entries_processed: u64,
    /// Functions of the active calls below the current frame.
    depth: Vec<FuncId>,
    /// Per active call below the current frame, what it still needs (roots
    /// of the garbage collection, and for loop-head merging the callers'
    /// variables).
    suspended: Vec<Held>,
    /// BDD nodes past which the next collection runs.
    gc_threshold: usize,
    /// The nodes the next feasibility check's walk may visit
    /// ([`SEARCH_STEPS`]).
    search_steps: usize,
    /// The BDD nodes alive after the last reordering.
    reordered_at: usize,
    /// Query count estimation, for `--coalesce auto` (made when first needed).
    qce: Option<Qce<'m>>,
    /// Running the frame's one entry ahead in the concrete interpreter, when on.
    ahead: Option<ahead::Ahead>,
    /// Loop-head merging, when on.
    loops: Option<loops::LoopHeads>,
    /// Its solver, apart from the branch queries' (whose incremental
    /// stack and caches its queries would disturb), made when first needed.
    loop_solver: Option<QuerySolver>,
    /// Frames made so far (their ids).
    frames_made: u64,
    /// Per function, its live variables (`braid_ir::Liveness`), made
    /// when first needed ([`Multise::live_of`]).
    live: FxHashMap<FuncId, Rc<braid_ir::Liveness>>,
    /// Per function, whether a run's outcome shows its final variables (the
    /// entry, and any function that can `halt`): its dead values stay.
    shown: Vec<bool>,
    /// dse raced alongside, when on ([`race`]).
    race: Option<race::Race<'m>>,
    /// dse on its thread under way, and the memory in use before the
    /// first merging engine explored, for the race ([`again_beside`]).
    beside: Option<(crate::dse::second::Second, i64)>,
    /// When exploring began (after the program was loaded): BDD
    /// operations' share is of the time since.
    explore_start: std::time::Instant,
    /// The run's result where ssm or dse, beside which merging paused
    /// ([`Multise::pause_for_ssm`]), ended it.
    ended: Option<Result<RunResult, EngineError>>,
    /// Why merging paused, once it went on ([`Multise::pause_for_ssm`]).
    went_on: Option<String>,
}

const ALLOCS: &str = "allocations";

impl<'m> Multise<'m> {
    pub fn new(module: &'m Module, entry: FuncId, program: &str, config: Config, opts: Options) -> Multise<'m> {
        let solver = config.query_solver();
        let rank = module
            .functions
            .iter()
            .map(|f| {
                let mut r = vec![0; f.stmts.len()];
                for (i, s) in braid_ir::reverse_post_order(f).into_iter().enumerate() {
                    r[s as usize] = i;
                }
                r
            })
            .collect();
        let engine = if opts.coalesce {
            "multise"
        } else {
            "multise --no-coalesce"
        };
        let gc_threshold = opts.gc_min_nodes;
        let config_loop_merge = config.loop_merge;
        let ahead = match config.run_ahead {
            crate::config::RunAhead::Off => None,
            crate::config::RunAhead::On => Some(ahead::Ahead::new(module, entry, false)),
            crate::config::RunAhead::Eager => Some(ahead::Ahead::new(module, entry, true)),
        };
        Multise {
            module,
            entry,
            program: program.to_string(),
            config,
            opts,
            store: TermStore::new(),
            guards: Guards::new(),
            solver,
            memory: Vec::new(),
            counters: FxHashMap::default(),
            search_steps: SEARCH_STEPS,
            events: Vec::new(),
            pending: Vec::new(),
            seen_models: Default::default(),
            found: Vec::new(),
            rank,
            loop_heads: module.functions.iter().map(braid_ir::loop_heads).collect(),
            seq: 0,
            result: RunResult {
                engine: engine.into(),
                paths_exact: false,
                ..RunResult::default()
            },
            budget: Budget::unlimited(),
            summaries_processed: 0,
            entries_processed: 0,
            depth: Vec::new(),
            suspended: Vec::new(),
            gc_threshold,
            reordered_at: 0,
            qce: None,
            ahead,
            loops: config_loop_merge.then(Default::default),
            frames_made: 0,
            loop_solver: None,
            live: FxHashMap::default(),
            shown: module
                .functions
                .iter()
                .enumerate()
                .map(|(i, f)| FuncId(i as u32) == entry || f.stmts.iter().any(|s| matches!(s, Stmt::Halt(_))))
                .collect(),
            race: None,
            beside: None,
            explore_start: std::time::Instant::now(),
            ended: None,
            went_on: None,
        }
    }

    /// Explores until done or stopped; the entry frame, if exploration got
    /// past setting it up.
    fn explore(&mut self, rec: &mut Recorder) -> Result<Option<Frame>, EngineError> {
        let f = self.module.func(self.entry);
        let undef = self.store.constant(Value::Undef);
        let mut vars = vec![ValueSummary::single(Guard::TRUE, undef); f.vars.len()];
        for p in &f.params {
            let name = &f.vars[p.var.0 as usize];
            let sort = p
                .sort
                .ok_or_else(|| EngineError::UntypedEntryParameter(f.name.clone(), name.clone()))?;
            vars[p.var.0 as usize] = self.read_input(Guard::TRUE, name, sort);
        }
        let zero = self.store.constant(Value::Int(0));
        self.counters
            .insert(ALLOCS.into(), ValueSummary::single(Guard::TRUE, zero));
        let initial = Rc::new(Model::default());
        self.add_model(initial.clone());
        let root = self.entry_at(Guard::TRUE, 0, 1, Rc::default(), initial);
        let mut frame = self.new_frame(self.entry, vars, root);
        // A BDD operation that outlives the budget unwinds to here; the
        // frame is then half-updated, but tests only come from ended paths
        // and from the pending models.
        // The term store unwinds too, before a table grows past the memory
        // limit, while the exploration runs here (only here: what comes
        // after does not unwind).
        self.store.set_budget(Some(self.budget.clone()));
        let done = catch_stop(|| self.run_frame(&mut frame, rec));
        self.store.set_budget(None);
        self.flush(rec);
        Ok(done.ok().map(|()| frame))
    }

    /// A stopped run's frontier as tests: the models of paths that have
    /// not ended (each reaches the code its SMT check explored), newest
    /// first, run concretely to the end until the budget is exhausted.
    fn frontier(&mut self, rec: &mut Recorder) {
        for m in std::mem::take(&mut self.pending).into_iter().rev() {
            if self.budget.poll_exhausted() {
                break;
            }
            rec.complete(self.inputs_of(&m));
        }
    }

    /// Hands the tests found so far to the recorder.
    fn flush(&mut self, rec: &mut Recorder) {
        for t in self.found.drain(..) {
            rec.test(t);
        }
    }

    /// Collects the BDD nodes no guard of the state uses, once they are
    /// twice as many as after the last collection. Between two steps every
    /// guard alive is in `frame`, the suspended calls, memory, the counters
    /// and the ended paths' events.
    fn maybe_collect(&mut self, frame: &Frame) {
        if self.guards.node_count() < self.gc_threshold {
            return;
        }
        // A collection that would end past exploration's deadline is left
        // out: it cannot be interrupted, and the run ends before the memory
        // it would free matters.
        if self
            .budget
            .explore_time_left()
            .is_some_and(|left| left < self.guards.collection_time())
        {
            return;
        }
        let summaries = |s: &ValueSummary| s.iter().map(|e| e.0).collect::<Vec<_>>();
        let roots = frame_guards(frame)
            .chain(self.suspended.iter().flat_map(Held::guards))
            .chain(
                self.memory
                    .iter()
                    .flat_map(|a| a.cells.summaries().chain([&a.size]))
                    .flat_map(summaries),
            )
            .chain(self.counters.values().flat_map(summaries))
            .chain(self.loops.iter().flat_map(|l| l.guards()))
            .chain(
                self.memory
                    .iter()
                    .flat_map(|a| a.journal.iter().flat_map(|(_, s)| summaries(s))),
            )
            .chain(self.events.iter().flat_map(|e| {
                let mut gs = vec![e.guard];
                if let EventKind::End { vars, returned, .. } = &e.kind {
                    gs.extend(vars.iter().chain(returned).flat_map(summaries));
                }
                gs
            }));
        let nodes = self.guards.node_count();
        if self.opts.reorder && nodes >= self.opts.reorder_min_nodes.max(2 * self.reordered_at) {
            // Sifting's time: a share of the BDD operations' so far.
            let budget = self
                .guards
                .time_spent()
                .saturating_sub(self.guards.reorder_time)
                .mul_f64(REORDER_SHARE);
            let (_, after) = self.guards.reorder(roots, budget);
            self.reordered_at = after;
        } else {
            self.guards.collect(roots);
        }
        // A collected guard's node may come back as another guard.
        for a in &mut self.memory {
            for p in &mut a.bytes {
                if p.as_ref().is_some_and(|(g, _)| g.is_some()) {
                    *p = None;
                }
            }
        }
        self.gc_threshold = (2 * self.guards.node_count()).max(self.opts.gc_min_nodes);
    }

    /// A model becomes a test input, unless one with the same inputs exists.
    fn add_model(&mut self, m: Rc<Model>) {
        let mut syms: Vec<_> = m.iter().map(|(s, v)| (*s, *v)).collect();
        syms.sort_unstable();
        if self.seen_models.insert(syms) {
            self.pending.push(m);
        }
    }

    /// The test inputs a model gives, in symbol order.
    fn inputs_of(&self, m: &Model) -> Vec<TestInput> {
        let mut syms: Vec<_> = m.iter().map(|(s, v)| (*s, *v)).collect();
        syms.sort_unstable();
        syms.iter()
            .map(|(s, v)| TestInput::new(&self.store.symbol(*s).name, *v))
            .collect()
    }

    fn entry_at(
        &mut self,
        guard: Guard,
        at: StmtIdx,
        mult: u64,
        visits: Rc<BTreeMap<StmtIdx, u32>>,
        model: Rc<Model>,
    ) -> PcEntry {
        self.seq += 1;
        PcEntry {
            guard,
            at,
            mult,
            visits,
            model,
            seq: self.seq,
            merged: false,
        }
    }

    fn new_frame(&mut self, func: FuncId, vars: Vec<ValueSummary>, first: PcEntry) -> Frame {
        self.frames_made += 1;
        Frame {
            id: self.frames_made,
            func,
            pc: vec![first],
            vars,
            returned: ValueSummary::default(),
            exits: Vec::new(),
            halted: Vec::new(),
        }
    }

    fn incomplete(&mut self, reason: String) {
        self.result.incomplete_reasons.insert(reason);
    }

    /// Runs `frame`'s `pc` entries until none is left (function-bounded).
    fn run_frame(&mut self, frame: &mut Frame, rec: &mut Recorder) {
        let mut fast = false;
        while !frame.pc.is_empty() {
            if self.budget.stopped() {
                return;
            }
            // The clock is read after a step, and at every 64th statement
            // of the fast path only.
            if !fast || self.result.stats.statements.is_multiple_of(64) {
                self.race_turn(rec, frame.pc.len());
                self.pause_for_ssm(rec);
                self.guards.give_up_if_due();
            }
            fast = false;
            self.maybe_collect(frame);
            // The entry that runs next (running ahead and the fast path
            // take a lone entry only, and leave it be when they do not).
            let i = self.pick(frame);
            if self.head_due(frame, i) {
                self.merge_at_head(frame, i, rec);
                self.flush(rec);
                continue;
            }
            if self.run_ahead(frame, rec) {
                self.flush(rec);
                continue;
            }
            if self.step_fast(frame).is_some() {
                fast = true;
                // The clock is read at every 1024th fast step only.
                if self.result.stats.statements.is_multiple_of(1024) {
                    rec.progress(self.result.paths, 1);
                }
                continue;
            }
            let e = frame.pc.swap_remove(i);
            self.step(frame, e, rec);
            self.flush(rec);
            rec.progress(self.result.paths, frame.pc.len());
        }
        self.forget_loops(frame);
    }

    /// Between two steps, where BDD operations took their share
    /// ([`FALLBACK`]) before dse's thread started: ssm explores from the
    /// start beside dse on its thread for its window ([`SSM_FOR`],
    /// `crate::dse::ssm_beside`) while this exploration waits where it is
    /// (its frames and the steps of the calls below them on this thread's
    /// stack), then goes on beside dse, no longer under the share, once
    /// ssm is given up. Inside a step the share unwinds (once it has been
    /// due for [`Fallback::share_grace`]), and merging starts again
    /// from the start after ssm ([`again_beside`]). Where ssm or dse
    /// finishes first, or the run stops, their result is the run's
    /// ([`Multise::ended`]) and this exploration unwinds.
    fn pause_for_ssm(&mut self, rec: &mut Recorder) {
        // (At every step: the clock, which the share reads, last.)
        let Some(fallback) = self.opts.fallback.filter(|f| f.threads && f.share_grace.is_some()) else {
            return;
        };
        let Some(race) = self.race.as_mut().filter(|r| r.second.is_some() && !r.joined()) else {
            return;
        };
        if !self.guards.share_due() {
            return;
        }
        let Some(second) = race.second.take() else {
            return;
        };
        let (base, heap_start) = (race.base, race.heap_start);
        let why = self.give_up_reason(false, true, true);
        self.flush(rec);
        let merging = Merging {
            race_after_ms: Some(0),
            race_threads: true,
            merge_for_ms: Some(fallback.ssm_for.as_millis() as u32),
            ..Merging::of(Strategy::Static)
        };
        let solver_before = std::mem::take(&mut self.solver.stats);
        let (budget, program) = (self.budget.clone(), self.program.clone());
        let beside = crate::dse::ssm_beside(
            self.module,
            self.entry,
            &program,
            self.config.clone(),
            merging,
            (second, base),
            true,
            &budget,
            rec,
            why.clone(),
            solver_before,
        );
        match beside {
            Ok(crate::dse::Beside::HandedBack(second, solver, ssm)) => {
                self.solver.stats = *solver;
                self.went_on = Some(format!(
                    "{why}; ssm given up after {} ms, multise went on beside dse",
                    ssm.as_millis()
                ));
                let fallback = Fallback {
                    bdd_share: None,
                    race_after: Some(std::time::Duration::ZERO),
                    ..fallback
                };
                self.opts.fallback = Some(fallback);
                self.race_beside(fallback, Some(second), base, std::time::Instant::now());
                // The memory rule counts merging's heap from its start.
                if let Some(r) = self.race.as_mut() {
                    r.heap_start = heap_start;
                }
            }
            Ok(crate::dse::Beside::Ended(r)) => {
                self.ended = Some(Ok(*r));
                braid_budget::unwind();
            }
            Err(e) => {
                self.ended = Some(Err(e));
                braid_budget::unwind();
            }
        }
    }

    /// Why merging was given up, for the statistics (see [`FALLBACK`]).
    /// `raced`: dse has been racing alongside (it goes on rather than
    /// starting).
    /// How the run goes on from the start when merging is given up before
    /// dse raced (`raced`) for its BDD operations' share (not for a reason
    /// of the race's, `race_why`): as ssm, whose race runs dse on a
    /// thread of its own from the start, where the race would have run
    /// there. Guards over the orderings of compared inputs grow as large as
    /// the paths they stand for (Table 1's sorts), but the values merged
    /// as `ite` terms stay small: ssm finishes Heap Sort in 0.15-0.4 s
    /// where dse takes 2 s; where ssm does not pay (Quick Sort),
    /// dse on its thread finishes first. `None`: dse alone.
    fn then_merge(&self, raced: bool, race_why: bool) -> Option<Merging> {
        let fallback = self.opts.fallback?;
        // (A guard too large to decide is the same loss as the share.)
        let why = self.guards.gave_up();
        let share = matches!(why, Some(GaveUp::Share | GaveUp::Guard));
        // multise again after ssm would meet the same guard (its
        // exploration does not depend on time): ssm merges to the end.
        // bench/merging's sleep-6-3, whose ssm finishes in 300-500 ms,
        // took it 26-36 s in four runs of eight when ssm ran past its
        // window (dse alone: 20-22 s), the guard given up again.
        let merge_for = (why != Some(GaveUp::Guard)).then_some(fallback.ssm_for.as_millis() as u32);
        (share && !raced && !race_why && fallback.threads && crate::dse::second::possible()).then(|| Merging {
            race_after_ms: Some(0),
            race_threads: true,
            merge_for_ms: merge_for,
            ..Merging::of(Strategy::Static)
        })
    }

    /// How the run's thread goes on when a step of merging's ran past its
    /// turn while dse raced on its thread (the solver's questions over
    /// merged states): ssm explores from the start beside dse, which goes
    /// on where it is, until one of them finishes or ssm's memory outgrows
    /// dse's (the race's memory rule). A step past the head start, before
    /// dse's thread started, goes on the same way, dse starting beside
    /// ssm (sleep-6-3 was given up so at 1.5 s in one run of seven, and
    /// dse alone took 29 s where ssm beside it finishes in 3.2-4.2).
    /// `None`: the run's thread waits for dse. bench/merging's sleep-5-3
    /// and sleep-6-3 (merged sums of parsed numbers, whose questions took
    /// multise's merging past its turn at about 2 s): 6.1 and 36.3 s
    /// before (dse: 4.9 and 32.2), 2.7 and
    /// 4.3-4.5 s with ssm beside, where ssm's merges took 161 ms and 2.1 s
    /// of its own. Where ssm does not pay, dse on its thread runs beside it
    /// a little slower (a printf formatter's harness over 3 characters:
    /// 10.7 -> 11.1 s, dse alone 10.0) than beside a thread that waits.
    fn merge_beside(&self, race: Option<&race::Race>) -> Option<Merging> {
        let race = race?;
        let overrun = self.guards.gave_up() == Some(GaveUp::Deadline) && race.given_up.is_none();
        (race.second.is_some() && overrun && !race.dse_won).then(|| Merging {
            race_after_ms: Some(0),
            race_threads: true,
            ..Merging::of(Strategy::Static)
        })
    }

    /// (`paused`: merging waits between two steps while ssm explores,
    /// [`Multise::pause_for_ssm`].)
    fn give_up_reason(&self, raced: bool, merge: bool, paused: bool) -> String {
        let (bdd, elapsed) = (
            self.guards.time_spent().as_millis(),
            self.explore_start.elapsed().as_millis(),
        );
        let memory = match self.budget.limits().memory_mb {
            Some(mb) => format!(", {} of {mb} MB in use", self.budget.rss() >> 20),
            None => String::new(),
        };
        let then = if raced {
            "dse goes on alone"
        } else if paused {
            "multise paused, ssm explored from the start, dse beside it on a thread"
        } else if merge {
            "ssm explored from the start, dse beside it on a thread"
        } else {
            "dse explored from the start"
        };
        if self.guards.gave_up() == Some(GaveUp::Guard) {
            return format!(
                "a path guard of more than {MAX_SOLVED_GUARD} BDD nodes and {CUBES_MAX} cubes at {elapsed} ms of exploring; {then}"
            );
        }
        format!("BDD operations took {bdd} of the first {elapsed} ms of exploring{memory}; {then}")
    }

    fn pick(&self, frame: &Frame) -> usize {
        let rank = &self.rank[frame.func.0 as usize];
        let key = |e: &PcEntry| match self.opts.pick {
            Pick::Topo => (rank.get(e.at as usize).copied().unwrap_or(usize::MAX) as u64, e.seq),
            Pick::Dfs => (0, u64::MAX - e.seq),
            Pick::Bfs => (0, e.seq),
        };
        (0..frame.pc.len()).min_by_key(|&i| key(&frame.pc[i])).unwrap_or(0)
    }

    /// Adds an entry to `pc` with `⊎`: it coalesces with an entry at the same
    /// statement (and loop-head history) unless `--no-coalesce`.
    fn add_pc(&mut self, frame: &mut Frame, e: PcEntry) {
        if e.guard.is_false() {
            return;
        }
        if self.opts.coalesce {
            let candidates: Vec<usize> = (0..frame.pc.len())
                .filter(|&i| frame.pc[i].at == e.at && frame.pc[i].visits == e.visits && !frame.pc[i].merged)
                .collect();
            let mut kept_apart = false;
            for i in candidates {
                if self.opts.joins == Joins::Similar && !self.similar_at(frame, frame.pc[i].guard, e.guard, e.at) {
                    kept_apart = true;
                    continue;
                }
                let o = &mut frame.pc[i];
                o.guard = self.guards.or(o.guard, e.guard);
                o.mult = o.mult.saturating_add(e.mult);
                self.result.stats.states_merged += 1;
                return;
            }
            if kept_apart {
                self.result.stats.joins_kept_apart += 1;
            }
        }
        if let Some(max) = self.config.limits.max_states {
            if frame.pc.len() >= max {
                self.incomplete(format!("state limit of {max} pc entries reached: entries dropped"));
                return;
            }
        }
        frame.pc.push(e);
    }

    // ---- feasibility ------------------------------------------------------

    /// The SMT check of a new `pc` guard (after its BDD check): a model, or
    /// `None` if infeasible or undecided (then the run is incomplete).
    fn feasible(&mut self, g: Guard, hint: &Model) -> Option<Rc<Model>> {
        if g.is_false() {
            return None;
        }
        self.guard_checks().checks += 1;
        // The entry's own model often decides the new guard already.
        if self.guards.eval(&self.store, g, hint) == Some(true) {
            self.guard_checks().by_model += 1;
            self.solver.stats.queries += 1;
            self.solver.stats.cex_hits += 1;
            return Some(Rc::new(hint.clone()));
        }
        // A walk of the guard that evaluates its atoms ([`Guards::search_model`]).
        let walk = self.guards.search_model(&self.store, g, hint, self.search_steps);
        self.search_steps = if walk == Walk::Unknown {
            (self.search_steps / 2).max(SEARCH_STEPS_LEAST)
        } else {
            self.search_steps.max(2 * self.guards.walk_visits()).min(SEARCH_STEPS)
        };
        match walk {
            Walk::Model(m) => {
                self.guard_checks().by_search += 1;
                self.solver.stats.queries += 1;
                return Some(Rc::new(m));
            }
            Walk::Infeasible => {
                self.guard_checks().infeasible_by_search += 1;
                self.solver.stats.queries += 1;
                return None;
            }
            Walk::Unknown => {}
        }
        // The guard's cubes one at a time, the one nearest the hint first:
        // conjunctions of branch predicates, which the solver layer slices
        // and caches as it does a forking engine's path conditions. An
        // unsat cube's core (a few of its literals that contradict each
        // other) is cut out of the guard, which removes every cube that
        // contains it: a lazy DPLL(T) over the BDD, where a guard of many
        // cubes that the theory rules out (orders of inputs) would otherwise
        // go whole to the solver as one large formula.
        let mut tried = CUBES_TRIED;
        let mut left = self.try_cubes(g, hint, CUBES_TRIED);
        let (rest, wide) = loop {
            match left {
                Cubes::Sat(m) => return Some(m),
                Cubes::Infeasible => {
                    // Every cube is infeasible: so is the guard.
                    self.guard_checks().infeasible_by_cores += 1;
                    return None;
                }
                Cubes::Left { rest, wide, stop } => {
                    // A guard too large to send whole is not given up while
                    // cubes are left to try: as many again, up to CUBES_MAX
                    // in all.
                    if stop
                        || tried >= CUBES_MAX
                        || rest.is_false()
                        || self.budget.poll()
                        || !self.guards.larger_than(rest, MAX_SOLVED_GUARD)
                    {
                        break (rest, wide);
                    }
                    left = self.try_cubes(rest, hint, tried);
                    tried *= 2;
                }
            }
        };
        if rest.is_false() {
            self.guard_checks().infeasible_by_cores += 1;
            return None;
        }
        let g = rest;
        // A guard past this size would be a term the solver cannot take in
        // (nor the run build in time): merging is given up where it can be
        // (dse explores those paths), else the paths it holds are.
        if self.guards.larger_than(g, MAX_SOLVED_GUARD) {
            // (Past the run's stop, the stop is the reason.)
            if !self.budget.poll() {
                self.guards.give_up_for_guard();
                self.incomplete(format!(
                    "a path guard of more than {MAX_SOLVED_GUARD} BDD nodes and {CUBES_MAX} cubes was not sent to the solver"
                ));
            }
            return None;
        }
        self.guard_checks().whole += 1;
        if wide {
            self.guard_checks().wide_cores += 1;
        }
        let parts = self.guards.conjuncts(&mut self.store, g);
        match self.solver.model(&self.store, &parts) {
            SatResult::Sat(m) => {
                let mut full = hint.clone();
                full.extend(m);
                Some(Rc::new(full))
            }
            SatResult::Unsat => None,
            SatResult::Unknown(why) => {
                // Cut at the end of merging's turn in the race: merging is
                // given up.
                self.guards.give_up_if_due();
                // A query cut short by the run's stop is not the solver's failure.
                if !self.budget.poll() {
                    self.incomplete(format!("solver: {why}"));
                }
                None
            }
        }
    }

    /// Up to `n` cubes of `rest`, one at a time, each unsat one's core cut
    /// out of it (see [`Multise::feasible`]).
    fn try_cubes(&mut self, mut rest: Guard, hint: &Model, n: usize) -> Cubes {
        let mut wide = 0;
        for _ in 0..n {
            let Some(cube) = self.guards.cubes(&self.store, rest, hint, 1).pop() else {
                // Every cube is infeasible: so is the guard.
                return Cubes::Infeasible;
            };
            let mut known = Vec::with_capacity(2 * cube.len());
            let literals: Vec<TermId> = cube
                .into_iter()
                .map(|(atom, holds)| {
                    let not = self.store.not(atom);
                    known.extend([(atom, holds), (not, !holds)]);
                    if holds {
                        atom
                    } else {
                        not
                    }
                })
                .collect();
            let cube_len = literals.len();
            // Each literal as the others leave it: a value merged from
            // paths the cube decides is that path's value.
            let assumed = self.store.assume(&literals, &known);
            let asked: Vec<TermId> = assumed.iter().map(|(t, _)| *t).collect();
            match self.solver.model(&self.store, &asked) {
                SatResult::Sat(m) => {
                    self.guard_checks().by_cube += 1;
                    let mut full = hint.clone();
                    full.extend(m);
                    return Cubes::Sat(Rc::new(full));
                }
                SatResult::Unsat => {
                    self.guard_checks().cores_cut += 1;
                    // The core's literals, and those whose atoms they had
                    // inside (see `TermStore::assume`).
                    let core = self.solver.last_core();
                    let core: Vec<TermId> = if !core.is_empty() && core.iter().all(|c| asked.contains(c)) {
                        let mut at = vec![false; cube_len];
                        for (i, (t, used)) in assumed.iter().enumerate() {
                            if core.contains(t) {
                                at[i] = true;
                                used.iter().for_each(|k| at[k / 2] = true);
                            }
                        }
                        (0..cube_len).filter(|&i| at[i]).map(|i| literals[i]).collect()
                    } else {
                        literals
                    };
                    let is_wide = core.len() * 2 > cube_len;
                    let mut conflict = Guard::TRUE;
                    for l in core {
                        let a = self.guards.atom(&mut self.store, l);
                        conflict = self.guards.and(conflict, a);
                    }
                    let allowed = self.guards.not(conflict);
                    // A cut whose literals sit far apart in the order copies
                    // the guard's nodes between them, and cut after cut of
                    // such pairs doubles it each time (3.5 million nodes
                    // after ten cuts, picohttpparser's chunked decoder
                    // before `n <=u 0` became `n == 0`): past
                    // what one guard sent whole may hold, the guard goes
                    // whole as it was.
                    let (before, nodes) = (rest, self.guards.node_count());
                    rest = self.guards.and(rest, allowed);
                    if self.guards.node_count() > nodes + MAX_SOLVED_GUARD {
                        self.guard_checks().cuts_grown += 1;
                        return Cubes::Left {
                            rest: before,
                            wide: false,
                            stop: true,
                        };
                    }
                    // A core of most of its cube's literals cuts out little
                    // more than that cube: the guard's cubes are ruled out one
                    // by one (bench/merging's sleep-5-3: cores of 18 of 21
                    // literals, ~70 cubes per infeasible guard); the rest of
                    // the guard goes whole, as one query.
                    wide = if is_wide { wide + 1 } else { 0 };
                    if wide == WIDE_CORES {
                        return Cubes::Left {
                            rest,
                            wide: true,
                            stop: false,
                        };
                    }
                }
                // Undecided: the whole guard goes to the solver (unless
                // cut at the end of merging's turn, which gives it up).
                SatResult::Unknown(_) => {
                    self.guards.give_up_if_due();
                    return Cubes::Left {
                        rest,
                        wide: false,
                        stop: true,
                    };
                }
            }
        }
        Cubes::Left {
            rest,
            wide: false,
            stop: false,
        }
    }

    fn guard_checks(&mut self) -> &mut crate::results::GuardChecks {
        self.result.stats.guard_checks.get_or_insert_with(Default::default)
    }

    /// A model for a `pc` entry with guard `g` split from `parent`: the
    /// parent's when the guard is unchanged, else the SMT check's (§5), which
    /// also becomes a test input. `None`: infeasible or undecided.
    fn entry_model(&mut self, g: Guard, parent: &PcEntry) -> Option<Rc<Model>> {
        if g == parent.guard {
            return Some(parent.model.clone());
        }
        let m = self.feasible(g, &parent.model)?;
        self.add_model(m.clone());
        Some(m)
    }

    /// Records a bug for the paths in `g` if any is feasible.
    fn bug(&mut self, g: Guard, hint: &Model, kind: BugKind, func: FuncId, stmt: StmtIdx) {
        self.solver.kind = braid_solver::QueryKind::BugCheck;
        let feasible = self.feasible(g, hint);
        self.solver.kind = braid_solver::QueryKind::Branch;
        if let Some(m) = feasible {
            self.add_model(m);
            let event = Event {
                guard: g,
                kind: EventKind::Bug { kind, func, stmt },
            };
            self.ended(event);
            self.result.paths += 1;
        }
    }

    // ---- values -----------------------------------------------------------

    fn operand(&mut self, frame: &Frame, o: &Operand) -> ValueSummary {
        match o {
            Operand::Var(v) => frame.vars[v.0 as usize].clone(),
            Operand::Const(c) => {
                let t = self.store.constant(*c);
                ValueSummary::single(Guard::TRUE, t)
            }
        }
    }

    /// The entries of `s` restricted to `phi`, dropping those that vanish.
    fn restrict(&mut self, s: &ValueSummary, phi: Guard) -> Vec<(Guard, TermId)> {
        self.summaries_processed += 1;
        let mut out = Vec::with_capacity(s.len());
        for &(g, v) in s.iter() {
            let r = self.guards.and(g, phi);
            if !r.is_false() {
                out.push((r, v));
            }
        }
        self.entries_processed += out.len() as u64;
        out
    }

    fn assign(&mut self, frame: &mut Frame, dst: VarId, phi: Guard, new: &ValueSummary) {
        if self.dead_elsewhere(frame, dst) {
            // Only the paths of `phi` will read `dst` again: the others'
            // values go (the wasm lowering's stack slots otherwise keep
            // every value any path left in them, and each write pays for
            // all of them).
            let mut out = SummaryBuilder::new(self.opts.coalesce);
            for &(g, v) in new.iter() {
                let h = self.guards.and(g, phi);
                out.push(&mut self.guards, h, v);
            }
            let s = out.finish();
            frame.vars[dst.0 as usize] = self.narrow(s);
            self.result.stats.dead_values_dropped += 1;
            return;
        }
        let old = &frame.vars[dst.0 as usize];
        let s = guarded_update(&mut self.guards, old, phi, new, self.opts.coalesce);
        frame.vars[dst.0 as usize] = self.narrow(s);
    }

    /// A summary of more than [`MAX_WIDTH`] numbers or truth values
    /// becomes one value under its entries' union (as state merging's
    /// values are): past that width every operation on it paid per entry,
    /// and its guards for every use (summing six parsed numbers made
    /// thousands of entries). The value is a decision diagram over the
    /// guards' atoms that tests only what tells the entries apart
    /// ([`Guards::choose`]): an `ite` chain over the whole guards put every
    /// path's prefix into every query that compares the value (sleep-5-3 of
    /// bench/merging: 13.4 s, 1 064 Z3 calls, against 7.8 s). Addresses,
    /// labels and functions stay apart: loads, jumps and calls resolve
    /// them by their guards.
    fn narrow(&mut self, s: ValueSummary) -> ValueSummary {
        if !self.opts.coalesce || s.len() <= MAX_WIDTH {
            return s;
        }
        let sort = self.store.sort(s.0[0].1);
        if !matches!(sort, Sort::Bool | Sort::Int | Sort::Bv(_)) || s.iter().any(|e| self.store.sort(e.1) != sort) {
            return s;
        }
        let Some(value) = self.guards.choose(&mut self.store, &s.0) else {
            return s;
        };
        let mut all = Guard::FALSE;
        for &(g, _) in s.iter() {
            all = self.guards.or(all, g);
        }
        self.result.stats.summaries_narrowed += 1;
        ValueSummary::single(all, value)
    }

    /// Whether no other path of `frame` may read `v` before writing it: `v`
    /// is dead at every other `pc` entry's statement. (Paths that left the
    /// frame read none of its variables, but where a path's final variables
    /// are shown, in the entry function and in one that can `halt`, every
    /// value stays.)
    fn dead_elsewhere(&mut self, frame: &Frame, v: VarId) -> bool {
        /// A row of `variables` bits per statement asked about: not for
        /// larger functions.
        const MAX_CELLS: usize = 1 << 24;
        let f = self.module.func(frame.func);
        if self.shown[frame.func.0 as usize] || f.stmts.len().saturating_mul(f.vars.len()) > MAX_CELLS {
            return false;
        }
        let live = self.live_of(frame.func);
        frame.pc.iter().all(|e| !live.at(e.at).contains(v.0 as usize))
    }

    /// The live variables of `func`'s statements.
    fn live_of(&mut self, func: FuncId) -> Rc<braid_ir::Liveness> {
        let module = self.module;
        self.live
            .entry(func)
            .or_insert_with(|| Rc::new(braid_ir::Liveness::new(module.func(func))))
            .clone()
    }

    /// Reads input `name` for the paths in `phi`: the k-th read on a path is
    /// the symbol `name#k`, where k is that path's counter (a summary too).
    fn read_input(&mut self, phi: Guard, name: &str, sort: Sort) -> ValueSummary {
        let key = format!("input {name}");
        let zero = self.store.constant(Value::Int(0));
        let count = self
            .counters
            .get(&key)
            .cloned()
            .unwrap_or_else(|| ValueSummary::single(Guard::TRUE, zero));
        let mut value = ValueSummary::default();
        let mut next = ValueSummary::default();
        for (g, k) in self.restrict(&count, phi) {
            let Some(Value::Int(k)) = self.store.as_const(k) else {
                continue;
            };
            let sym = self.store.symbol_term(&input_name(name, k as u32), sort);
            value.push(&mut self.guards, g, sym, self.opts.coalesce);
            let k1 = self.store.constant(Value::Int(k + 1));
            next.push(&mut self.guards, g, k1, self.opts.coalesce);
        }
        let updated = guarded_update(&mut self.guards, &count, phi, &next, self.opts.coalesce);
        self.counters.insert(key, updated);
        value
    }

    /// Applies `op` to every combination of operand entries (BINARY
    /// OPERATION). Ill-typed combinations and zero integer divisors are bugs
    /// under their guard.
    /// Returns the result and the guard of the paths that go on.
    fn apply(&mut self, ctx: &StepCtx, phi: Guard, op: Op, args: &[ValueSummary]) -> (ValueSummary, Guard) {
        let mut combos: Vec<(Guard, Vec<TermId>)> = vec![(phi, Vec::new())];
        for a in args {
            let mut next = Vec::new();
            for (g, vs) in combos {
                self.budget.check_unwind();
                for (h, v) in self.restrict(a, g) {
                    let mut vs2 = vs.clone();
                    vs2.push(v);
                    next.push((h, vs2));
                }
            }
            combos = next;
        }
        let mut out = SummaryBuilder::new(self.opts.coalesce);
        let mut go_on = phi;
        for (g, vs) in combos {
            // Summaries of thousands of entries make millions of
            // combinations, most of them cheap BDD work that never reaches
            // the guard manager's own budget check.
            self.budget.check_unwind();
            let (mut g, vs) = match self.approximate(ctx, op, g, vs) {
                Some(x) => x,
                None => continue,
            };
            // An integer division's zero divisor is a bug on its paths.
            if let [n, d] = vs[..] {
                if is_integer_division(op, self.store.sort(n), self.store.sort(d)) {
                    let zero = self.store.constant(Value::default_of(self.store.sort(d)));
                    let is_zero = self.store.eq(d, zero);
                    let z = self.guards.atom(&mut self.store, is_zero);
                    let bad = self.guards.and(g, z);
                    self.bug(bad, &ctx.model, BugKind::DivisionByZero, ctx.func, ctx.at);
                    let ok = self.guards.not(bad);
                    go_on = self.guards.and(go_on, ok);
                    g = self.guards.and(g, ok);
                    if g.is_false() {
                        continue;
                    }
                }
            }
            match self.store.app(op, &vs) {
                Ok(t) => out.push(&mut self.guards, g, t),
                Err(e) => {
                    self.bug(g, &ctx.model, bug_kind(&e), ctx.func, ctx.at);
                    let not_g = self.guards.not(g);
                    go_on = self.guards.and(go_on, not_g);
                }
            }
        }
        (out.finish(), go_on)
    }

    /// §3.3: an operation the solver is not asked to handle (non-linear
    /// integer arithmetic under `--linear-only`, floating point under
    /// `--no-float`) gets a symbolic operand replaced by its value in a model
    /// of the combination's guard, which is narrowed to that value: the
    /// other values' paths are dropped and the run is incomplete.
    fn approximate(&mut self, ctx: &StepCtx, op: Op, g: Guard, mut vs: Vec<TermId>) -> Option<(Guard, Vec<TermId>)> {
        let symbolic = |s: &TermStore, t: TermId| s.as_const(t).is_none();
        let non_linear = self.opts.linear_only
            && matches!(op, Op::Mul | Op::Div | Op::Rem)
            && vs.len() == 2
            && vs
                .iter()
                .all(|t| self.store.sort(*t) == Sort::Int && symbolic(&self.store, *t));
        let float = self.opts.no_float
            && vs
                .iter()
                .any(|t| self.store.sort(*t).is_float() && symbolic(&self.store, *t));
        if !non_linear && !float {
            return Some((g, vs));
        }
        let mut g = g;
        for t in vs.iter_mut() {
            let pick = if non_linear {
                self.store.sort(*t) == Sort::Int
            } else {
                self.store.sort(*t).is_float()
            };
            if !pick || !symbolic(&self.store, *t) {
                continue;
            }
            let m = self.feasible(g, &ctx.model)?;
            let value = self.store.eval(*t, &m).ok()?;
            let c = self.store.constant(value);
            let fixed = self.store.eq(*t, c);
            let fixed = self.guards.atom(&mut self.store, fixed);
            g = self.guards.and(g, fixed);
            *t = c;
            if non_linear {
                break;
            }
        }
        let what = if non_linear {
            "non-linear integer arithmetic (--linear-only)"
        } else {
            "floating point (--no-float)"
        };
        self.incomplete(format!("{what} concretised"));
        Some((g, vs))
    }

    // ---- statements -------------------------------------------------------

    /// The one value `o` has on the paths of `phi`, if it has one.
    fn sole(&mut self, frame: &Frame, o: &Operand, phi: Guard) -> Option<TermId> {
        match o {
            Operand::Const(c) => Some(self.store.constant(*c)),
            Operand::Var(v) => sole_in(&mut self.guards, &frame.vars[v.0 as usize], phi),
        }
    }

    /// The allocation and offset of `cells` cells at the known address `p`,
    /// when its size on the paths of `phi` is one number and they are in it.
    fn known_cells(&mut self, p: TermId, cells: usize, phi: Guard) -> Option<(usize, usize)> {
        let Some(Value::Addr { alloc, offset }) = self.store.as_const(p) else {
            return None;
        };
        let a = self.memory.get(alloc as usize)?;
        let Value::Int(n) = self.store.as_const(sole_in(&mut self.guards, &a.size, phi)?)? else {
            return None;
        };
        (offset >= 0 && offset + cells as i128 <= n).then_some((alloc as usize, offset as usize))
    }

    /// A load at a known address whose cells have one value each on the
    /// paths of `phi`: the value [`Multise::load`] composes.
    fn fast_load(&mut self, p: TermId, width: Option<u8>, phi: Guard) -> Option<TermId> {
        let (k, o) = self.known_cells(p, width.map_or(1, |w| w as usize / 8), phi)?;
        let Some(w) = width else {
            return sole_in(&mut self.guards, &self.memory[k].cells[o], phi);
        };
        let bytes: SmallVec<[TermId; 8]> = (0..w as usize / 8)
            .map(|i| sole_in(&mut self.guards, &self.memory[k].cells[o + i], phi))
            .collect::<Option<_>>()?;
        crate::semantics::word_of(&mut self.store, w, &bytes)
    }

    /// A store of `v` at a known address: the cells [`Multise::store_through`]
    /// writes. `None` (nothing written) if it would fail.
    fn fast_store(&mut self, p: TermId, v: TermId, width: Option<u8>, phi: Guard) -> Option<()> {
        let (k, o) = self.known_cells(p, width.map_or(1, |w| w as usize / 8), phi)?;
        let bytes: SmallVec<[TermId; 8]> = match width {
            None => [v].into_iter().collect(),
            Some(w) if self.store.sort(v) == Sort::Bv(w) => (0..w as u64 / 8)
                .map(|i| {
                    let sh = self.store.constant(Value::bv(w, 8 * i));
                    let moved = self.store.app(Op::LShr, &[v, sh]).expect("same width");
                    self.store.app(Op::Trunc(8), &[moved]).expect("narrows")
                })
                .collect(),
            Some(_) => return None,
        };
        for (i, b) in bytes.into_iter().enumerate() {
            let new = ValueSummary::single(phi, b);
            let cell = &self.memory[k].cells[o + i];
            let s = guarded_update(&mut self.guards, cell, phi, &new, self.opts.coalesce);
            self.memory[k].set(o + i, s);
        }
        Some(())
    }

    /// The concrete fast path: with one `pc` entry, a statement whose
    /// operands each have one value on its paths, and that can neither
    /// split them nor fail (arithmetic, a branch on a known condition), runs
    /// here with no summary combinations, no guard for a next entry and no
    /// solver: the entry moves on in place. It leaves the same summaries
    /// and entry [`Multise::step`] would. `None` leaves the statement,
    /// untouched, to it.
    fn step_fast(&mut self, frame: &mut Frame) -> Option<()> {
        let [e] = frame.pc.as_slice() else { return None };
        let (phi, at) = (e.guard, e.at);
        let stmt = self.module.func(frame.func).stmts.get(at as usize)?;
        if self.opts.trace {
            return None;
        }
        let read;
        let to = match stmt {
            Stmt::Assign { dst, rhs } => {
                let mut args = [TermId(0); 3];
                let (op, ops) = match rhs {
                    Rhs::Copy(a) => (None, std::slice::from_ref(a)),
                    Rhs::Unary(op, a) => (Some(*op), std::slice::from_ref(a)),
                    Rhs::Binary(op, a, b) => {
                        args[1] = self.sole(frame, b, phi)?;
                        (Some(*op), std::slice::from_ref(a))
                    }
                    Rhs::Select(c, a, b) => {
                        args[1] = self.sole(frame, a, phi)?;
                        args[2] = self.sole(frame, b, phi)?;
                        (Some(Op::Ite), std::slice::from_ref(c))
                    }
                    Rhs::Load { addr, width } => {
                        let p = self.sole(frame, addr, phi)?;
                        let t = self.fast_load(p, *width, phi)?;
                        self.assign(frame, *dst, phi, &ValueSummary::single(phi, t));
                        return self.fast_next(frame, at + 1, 1);
                    }
                    _ => return None,
                };
                args[0] = self.sole(frame, &ops[0], phi)?;
                let n = match rhs {
                    Rhs::Copy(_) | Rhs::Unary(..) => 1,
                    Rhs::Binary(..) => 2,
                    _ => 3,
                };
                let args = &args[..n];
                let t = match op {
                    None => args[0],
                    // Selects split paths by guard (no `ite` terms): a known condition only.
                    Some(Op::Ite) => match self.store.as_const(args[0])? {
                        Value::Bool(true) => args[1],
                        Value::Bool(false) => args[2],
                        _ => return None,
                    },
                    Some(op) => {
                        let symbolic = args.iter().any(|t| self.store.as_const(*t).is_none());
                        // `--linear-only` and `--no-float` may concretise (`approximate`).
                        if symbolic && (self.opts.linear_only || self.opts.no_float) {
                            return None;
                        }
                        if let [a, d] = *args {
                            let (sa, sd) = (self.store.sort(a), self.store.sort(d));
                            let nonzero = self.store.as_const(d).is_some_and(|v| v != Value::default_of(sd));
                            if is_integer_division(op, sa, sd) && !nonzero {
                                return None;
                            }
                        }
                        self.store.app(op, args).ok()?
                    }
                };
                read = n as u64;
                let new = ValueSummary::single(phi, t);
                self.assign(frame, *dst, phi, &new);
                at + 1
            }
            Stmt::If { cond, target } => {
                let c = self.sole(frame, cond, phi)?;
                let Value::Bool(taken) = self.store.as_const(c)? else {
                    return None;
                };
                read = 1 + taken as u64;
                if taken {
                    let t = self.sole(frame, target, phi)?;
                    self.fast_jump(frame.func, t)?
                } else {
                    at + 1
                }
            }
            Stmt::Goto(target) => {
                let t = self.sole(frame, target, phi)?;
                read = 1;
                self.fast_jump(frame.func, t)?
            }
            Stmt::Store { addr, value, width } => {
                let (p, v) = (self.sole(frame, addr, phi)?, self.sole(frame, value, phi)?);
                self.fast_store(p, v, *width, phi)?;
                read = 2;
                at + 1
            }
            _ => return None,
        };
        self.fast_next(frame, to, read)
    }

    /// The fast path's step done: the entry moves on to `to`.
    fn fast_next(&mut self, frame: &mut Frame, to: StmtIdx, read: u64) -> Option<()> {
        self.result.stats.statements += 1;
        self.summaries_processed += read;
        self.entries_processed += read;
        self.seq += 1;
        let e = &mut frame.pc[0];
        e.at = to;
        e.seq = self.seq;
        e.merged = false;
        Some(())
    }

    /// Where a jump to the known label `t` goes, unless a loop bound counts
    /// the visits of a loop head there (see [`Multise::conditional`]).
    fn fast_jump(&self, func: FuncId, t: TermId) -> Option<StmtIdx> {
        let Some(Value::Label { func: g, label }) = self.store.as_const(t) else {
            return None;
        };
        let dest = (g == func.0).then(|| self.module.func(func).label_target(label))??;
        let counted = self.config.limits.loop_bound.is_some() && self.loop_heads[func.0 as usize][dest as usize];
        (!counted).then_some(dest)
    }

    fn step(&mut self, frame: &mut Frame, e: PcEntry, rec: &mut Recorder) {
        let (func, at) = (frame.func, e.at);
        let f = self.module.func(func);
        self.result.stats.statements += 1;
        if self.opts.trace {
            let g = self.guards.display(&mut self.store, e.guard);
            eprintln!("exec {} under {g}", self.module.location(func, at));
        }
        let ctx = StepCtx {
            phi: e.guard,
            func,
            at,
            model: e.model.clone(),
        };
        let Some(stmt) = f.stmts.get(at as usize) else {
            self.ret(frame, &e, None);
            return;
        };
        // The entry for the next statement. When bugs split paths off, its
        // guard is new: it gets the SMT check (§5), and a test input.
        let next = |me: &mut Self, frame: &mut Frame, g: Guard| {
            let Some(model) = me.entry_model(g, &e) else { return };
            let n = me.entry_at(g, at + 1, e.mult, e.visits.clone(), model);
            me.add_pc(frame, n);
        };
        match stmt {
            Stmt::Assign { dst, rhs } => {
                let go_on = self.assign_rhs(frame, &ctx, *dst, rhs);
                next(self, frame, go_on);
            }
            Stmt::Store { addr, value, width } => {
                let (p, v) = (self.operand(frame, addr), self.operand(frame, value));
                let go_on = self.store_through(&ctx, &p, &v, *width);
                next(self, frame, go_on);
            }
            Stmt::Call { dst, callee, args } => {
                let callee = self.operand(frame, callee);
                let args: Vec<ValueSummary> = args.iter().map(|a| self.operand(frame, a)).collect();
                self.call(frame, &e, &ctx, &callee, &args, *dst, rec);
            }
            Stmt::If { cond, target } => {
                let (c, t) = (self.operand(frame, cond), self.operand(frame, target));
                self.conditional(frame, &e, &ctx, &c, &t);
            }
            Stmt::Goto(target) => {
                let t = self.operand(frame, target);
                let tru = self.store.bool(true);
                self.conditional(frame, &e, &ctx, &ValueSummary::single(Guard::TRUE, tru), &t);
            }
            Stmt::Ret(v) => {
                let v = v.as_ref().map(|o| self.operand(frame, o));
                self.ret(frame, &e, v);
            }
            Stmt::Assume(c) => {
                let c = self.operand(frame, c);
                let (holds, go_on) = self.condition(&ctx, &c);
                let g = self.guards.and(go_on, holds);
                next(self, frame, g);
            }
            Stmt::Assert(c) => {
                let c = self.operand(frame, c);
                let (holds, go_on) = self.condition(&ctx, &c);
                let fails = self.guards.not(holds);
                let bad = self.guards.and(go_on, fails);
                self.bug(bad, &e.model, BugKind::Assertion, func, at);
                let ok = self.guards.and(go_on, holds);
                next(self, frame, ok);
            }
            Stmt::Error(kind) => self.bug(e.guard, &e.model, kind.clone(), func, at),
            Stmt::Output { .. } => next(self, frame, e.guard),
            Stmt::Grow { addr, cells, fill } => {
                let (p, n, v) = (
                    self.operand(frame, addr),
                    self.operand(frame, cells),
                    self.operand(frame, fill),
                );
                let go_on = self.grow(&ctx, &p, &n, &v);
                next(self, frame, go_on);
            }
            Stmt::Halt(code) => {
                let vars = frame.vars.clone();
                let returned = code.as_ref().map(|o| self.operand(frame, o));
                let event = Event {
                    guard: e.guard,
                    kind: EventKind::End { func, vars, returned },
                };
                self.ended(event);
                self.result.paths = self.result.paths.saturating_add(e.mult);
                match frame.halted.iter_mut().find(|h| h.at == e.at) {
                    Some(h) if self.opts.coalesce => h.guard = self.guards.or(h.guard, e.guard),
                    _ => frame.halted.push(e),
                }
            }
        }
    }

    /// The guard under which a Bool summary holds (within `ctx.phi`), and the
    /// guard of the paths that go on (non-Bool entries are type errors).
    fn condition(&mut self, ctx: &StepCtx, c: &ValueSummary) -> (Guard, Guard) {
        let mut holds = Guard::FALSE;
        let mut go_on = ctx.phi;
        for (g, v) in self.restrict(c, ctx.phi) {
            if self.store.sort(v) == Sort::Bool {
                let a = self.guards.atom(&mut self.store, v);
                let h = self.guards.and(g, a);
                holds = self.guards.or(holds, h);
            } else {
                self.bug(g, &ctx.model, BugKind::TypeError, ctx.func, ctx.at);
                let not_g = self.guards.not(g);
                go_on = self.guards.and(go_on, not_g);
            }
        }
        (holds, go_on)
    }

    /// CONDITIONAL: `if x goto y` with computed targets; new `pc` entries
    /// get the BDD check and, when they split the entry, the SMT check.
    fn conditional(&mut self, frame: &mut Frame, e: &PcEntry, ctx: &StepCtx, c: &ValueSummary, target: &ValueSummary) {
        let (holds, go_on) = self.condition(ctx, c);
        let fails = self.guards.not(holds);
        let mut parts: Vec<(Guard, StmtIdx, bool)> = Vec::new();
        for (gy, label) in self.restrict(target, holds) {
            match self.store.as_const(label) {
                Some(Value::Label { func, label }) if func == ctx.func.0 => {
                    match self.module.func(ctx.func).label_target(label) {
                        Some(s) => parts.push((self.guards.and(gy, go_on), s, true)),
                        None => self.bug(gy, &ctx.model, BugKind::TypeError, ctx.func, ctx.at),
                    }
                }
                _ => self.bug(gy, &ctx.model, BugKind::TypeError, ctx.func, ctx.at),
            }
        }
        let fall = self.guards.and(go_on, fails);
        let is_goto = matches!(self.module.func(ctx.func).stmts[ctx.at as usize], Stmt::Goto(_));
        if !is_goto {
            parts.push((fall, ctx.at + 1, false));
        }
        for (g, to, jumped) in parts {
            if g.is_false() {
                continue;
            }
            let Some(model) = self.entry_model(g, e) else { continue };
            let mut visits = e.visits.clone();
            if let Some(bound) = self.config.limits.loop_bound {
                if jumped && self.loop_heads[ctx.func.0 as usize][to as usize] {
                    let n = visits.get(&to).copied().unwrap_or(0) + 1;
                    if n > bound {
                        let at = self.module.location(ctx.func, to);
                        self.incomplete(format!("loop bound {bound} reached at {at}"));
                        continue;
                    }
                    Rc::make_mut(&mut visits).insert(to, n);
                }
            }
            let n = self.entry_at(g, to, e.mult, visits, model);
            self.add_pc(frame, n);
        }
    }

    fn ret(&mut self, frame: &mut Frame, e: &PcEntry, v: Option<ValueSummary>) {
        let undef = self.store.constant(Value::Undef);
        let v = v.unwrap_or_else(|| ValueSummary::single(Guard::TRUE, undef));
        frame.returned = guarded_update(&mut self.guards, &frame.returned, e.guard, &v, self.opts.coalesce);
        if self.depth.is_empty() {
            // The entry returns: these paths end here.
            let event = Event {
                guard: e.guard,
                kind: EventKind::End {
                    func: self.entry,
                    vars: frame.vars.clone(),
                    returned: Some(frame.returned.clone()),
                },
            };
            self.ended(event);
            self.result.paths = self.result.paths.saturating_add(e.mult);
            return;
        }
        if self.opts.coalesce {
            // Exits merge into one (§5); with `--coalesce auto`, only those
            // returning similar values (the caller goes on with them).
            for i in 0..frame.exits.len() {
                let g = frame.exits[i].guard;
                if self.opts.joins == Joins::Similar && !self.values_similar(&frame.returned, g, e.guard) {
                    continue;
                }
                let x = &mut frame.exits[i];
                x.guard = self.guards.or(x.guard, e.guard);
                x.mult = x.mult.saturating_add(e.mult);
                return;
            }
        }
        frame.exits.push(Exit {
            guard: e.guard,
            mult: e.mult,
            model: e.model.clone(),
        });
    }

    /// Seed 004's similarity (equation 1) of the paths in `a` and `b` at
    /// statement `at` of `frame`'s function: every variable and memory cell
    /// that QCE finds hot there (many later queries depend on it, or a later
    /// address does) has the same value on both, or a symbolic one on
    /// either. Merging such paths adds few and cheap queries; merging others
    /// makes values the next branches and addresses depend on multiplexed,
    /// and their guards large.
    fn similar_at(&mut self, frame: &Frame, a: Guard, b: Guard, at: StmtIdx) -> bool {
        let qce = self
            .qce
            .get_or_insert_with(|| Qce::new(self.module, Default::default()));
        qce.set_budget(&self.budget);
        let Some(c) = qce.counts(frame.func, at) else {
            return true;
        };
        let threshold = qce.params.alpha * c.total;
        for &(v, add, addressed) in &c.vars {
            if (add > threshold || addressed) && !self.values_similar(&frame.vars[v.0 as usize], a, b) {
                return false;
            }
        }
        for &((base, k), add, addressed) in &c.cells {
            if !(add > threshold || addressed) {
                continue;
            }
            let cell = |me: &mut Self, g: Guard| -> Option<ValueSummary> {
                let [(_, p)] = me.values_under(&frame.vars[base.0 as usize], g)[..] else {
                    return None;
                };
                let (alloc, off) = me.store.addr_parts(p)?;
                let off = usize::try_from(me.store.as_const(off)?.as_int()?.checked_add(k)?).ok()?;
                me.memory.get(alloc as usize)?.cells.get(off).cloned()
            };
            if let (Some(x), Some(y)) = (cell(self, a), cell(self, b)) {
                let joined = ValueSummary(x.0.into_iter().chain(y.0).collect());
                if !self.values_similar(&joined, a, b) {
                    return false;
                }
            }
        }
        true
    }

    /// The entries of `s` under `g` (not counted as operations).
    fn values_under(&mut self, s: &ValueSummary, g: Guard) -> Vec<(Guard, TermId)> {
        let mut out = Vec::new();
        for &(h, v) in s.iter() {
            let r = self.guards.and(h, g);
            if !r.is_false() {
                out.push((r, v));
            }
        }
        out
    }

    /// Equation 1 for one summary: under `a` and under `b` it holds the same
    /// values, or a symbolic one on either side.
    fn values_similar(&mut self, s: &ValueSummary, a: Guard, b: Guard) -> bool {
        let va = self.values_under(s, a);
        let vb = self.values_under(s, b);
        let symbolic = |me: &Self, vs: &[(Guard, TermId)]| vs.iter().any(|(_, t)| me.store.as_const(*t).is_none());
        if symbolic(self, &va) || symbolic(self, &vb) {
            return true;
        }
        let mut xa: Vec<TermId> = va.iter().map(|x| x.1).collect();
        let mut xb: Vec<TermId> = vb.iter().map(|x| x.1).collect();
        xa.sort_unstable();
        xa.dedup();
        xb.sort_unstable();
        xb.dedup();
        xa == xb
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        frame: &mut Frame,
        e: &PcEntry,
        ctx: &StepCtx,
        callee: &ValueSummary,
        args: &[ValueSummary],
        dst: Option<VarId>,
        rec: &mut Recorder,
    ) {
        // Function values resolve by their guards: no solver call (§2.4).
        let targets = self.restrict(callee, ctx.phi);
        for (k, &(g, fv)) in targets.iter().enumerate() {
            let target = match self.store.as_const(fv) {
                Some(Value::Func(i)) => Some(FuncId(i)),
                _ => None,
            };
            let Some(g_id) = target.filter(|t| self.module.func(*t).params.len() == args.len()) else {
                self.bug(g, &ctx.model, BugKind::TypeError, ctx.func, ctx.at);
                continue;
            };
            if self.call_too_deep(g_id) {
                continue;
            }
            let callee_fn = self.module.func(g_id);
            let undef = self.store.constant(Value::Undef);
            let mut vars = vec![ValueSummary::single(Guard::TRUE, undef); callee_fn.vars.len()];
            for (p, a) in callee_fn.params.iter().zip(args) {
                let mut restricted = ValueSummary::default();
                for (h, v) in self.restrict(a, g) {
                    restricted.push(&mut self.guards, h, v, self.opts.coalesce);
                }
                vars[p.var.0 as usize] = restricted;
            }
            let first = self.entry_at(g, 0, e.mult, Rc::default(), e.model.clone());
            let mut inner = self.new_frame(g_id, vars, first);
            // While the callee runs, what this call still needs is held here
            // for the garbage collector.
            let held: Vec<Guard> = [e.guard, ctx.phi]
                .into_iter()
                .chain(targets[k + 1..].iter().map(|t| t.0))
                .chain(args.iter().flat_map(|a| a.iter().map(|x| x.0)))
                .collect();
            self.suspend(frame, held, g_id);
            self.run_frame(&mut inner, rec);
            self.resume(frame);
            self.returned(frame, e, ctx.at, &inner, dst);
        }
    }

    /// A call of `callee` from `frame` starts: the calling frame waits in
    /// [`Multise::suspended`] with the call's guards `held` until
    /// [`Multise::resume`].
    fn suspend(&mut self, frame: &mut Frame, held: Vec<Guard>, callee: FuncId) {
        let empty = Frame {
            id: frame.id,
            func: frame.func,
            pc: Vec::new(),
            vars: Vec::new(),
            returned: ValueSummary::default(),
            exits: Vec::new(),
            halted: Vec::new(),
        };
        let caller = std::mem::replace(frame, empty);
        self.suspended.push(Held {
            caller: Some(caller),
            guards: held,
        });
        self.depth.push(callee);
    }

    /// The call [`Multise::suspend`] started ended: `frame` is the caller again.
    fn resume(&mut self, frame: &mut Frame) {
        self.depth.pop();
        *frame = self
            .suspended
            .pop()
            .and_then(|h| h.caller)
            .expect("the caller is where its call put it");
    }

    /// The exits of a call's callee frame `inner` go on after the call at
    /// `at`, its returned values in `dst`.
    fn returned(&mut self, frame: &mut Frame, e: &PcEntry, at: StmtIdx, inner: &Frame, dst: Option<VarId>) {
        for x in &inner.exits {
            if let Some(d) = dst {
                self.assign(frame, d, x.guard, &inner.returned);
            }
            let n = self.entry_at(x.guard, at + 1, x.mult, e.visits.clone(), x.model.clone());
            self.add_pc(frame, n);
        }
    }
}

impl Multise<'_> {
    /// Recursion bound and call-stack exhaustion: whether a call of `g` is too deep.
    fn call_too_deep(&mut self, g: FuncId) -> bool {
        if self.depth.len() >= MAX_CALL_DEPTH {
            self.incomplete("call depth limit reached".into());
            return true;
        }
        if let Some(bound) = self.config.limits.loop_bound {
            if self.depth.iter().filter(|f| **f == g).count() as u32 >= bound.max(1) {
                let name = self.module.func(g).name.clone();
                self.incomplete(format!("loop bound {bound} reached at recursive call of {name}"));
                return true;
            }
        }
        false
    }

    /// The right-hand side's value for the paths in `ctx.phi`, assigned to
    /// `dst`; returns the guard of the paths that go on (bugs split off).
    fn assign_rhs(&mut self, frame: &mut Frame, ctx: &StepCtx, dst: VarId, rhs: &Rhs) -> Guard {
        let phi = ctx.phi;
        let (value, go_on) = match rhs {
            Rhs::Copy(a) => (self.operand(frame, a), phi),
            Rhs::Input { sort, name } => (self.read_input(phi, name, *sort), phi),
            Rhs::Unary(op, a) => {
                let a = self.operand(frame, a);
                self.apply(ctx, phi, *op, &[a])
            }
            Rhs::Binary(op, a, b) => {
                let (a, b) = (self.operand(frame, a), self.operand(frame, b));
                self.apply(ctx, phi, *op, &[a, b])
            }
            Rhs::Select(c, a, b) => {
                let (c, a, b) = (self.operand(frame, c), self.operand(frame, a), self.operand(frame, b));
                let (holds, go) = self.condition(ctx, &c);
                let fails = self.guards.not(holds);
                let (yes, no) = (self.guards.and(go, holds), self.guards.and(go, fails));
                let mut out = ValueSummary::default();
                for (g, v) in self.restrict(&a, yes).into_iter().chain(self.restrict(&b, no)) {
                    out.push(&mut self.guards, g, v, self.opts.coalesce);
                }
                (out, go)
            }
            Rhs::Load { addr, width } => {
                let p = self.operand(frame, addr);
                self.load(ctx, &p, *width)
            }
            Rhs::Alloc(n, fill) => {
                let n = self.operand(frame, n);
                let fill = fill.as_ref().map(|v| self.operand(frame, v));
                self.alloc(ctx, &n, fill.as_ref())
            }
        };
        self.assign(frame, dst, go_on, &value);
        go_on
    }

    /// `p = alloc n` (`, v`): on each path, the next allocation (numbered
    /// per path, as a concrete run numbers them) gets `n` cells, undefined
    /// (or holding `v`).
    fn alloc(&mut self, ctx: &StepCtx, n: &ValueSummary, fill: Option<&ValueSummary>) -> (ValueSummary, Guard) {
        let mut out = ValueSummary::default();
        let mut go = ctx.phi;
        let undef = self.store.constant(Value::Undef);
        let fill = fill
            .cloned()
            .unwrap_or_else(|| ValueSummary::single(Guard::TRUE, undef));
        for (gn, size) in self.restrict(n, ctx.phi) {
            let cells = match self.store.as_const(size) {
                Some(Value::Int(k)) if (0..=MAX_ALLOC as i128).contains(&k) => k as usize,
                Some(Value::Bv { bits, .. }) if bits <= MAX_ALLOC => bits as usize,
                _ => {
                    // Symbolic or bad sizes: a bug (the concrete run agrees
                    // for bad ones; symbolic sizes are not supported here).
                    if self.store.as_const(size).is_none() {
                        self.incomplete("symbolic allocation size".into());
                    } else {
                        self.bug(gn, &ctx.model, BugKind::BadAllocation, ctx.func, ctx.at);
                    }
                    let not_g = self.guards.not(gn);
                    go = self.guards.and(go, not_g);
                    continue;
                }
            };
            let count = self.counters[ALLOCS].clone();
            let mut next = ValueSummary::default();
            for (gc, k) in self.restrict(&count, gn) {
                let Some(Value::Int(k)) = self.store.as_const(k) else {
                    continue;
                };
                let k = k as usize;
                if k == self.memory.len() {
                    let watched = self.loops.as_ref().is_some_and(|l| l.active());
                    self.memory.push(Allocation::new(watched));
                }
                self.resize(k, gc, 0, cells, &fill);
                let addr = self.store.constant(Value::Addr {
                    alloc: k as u32,
                    offset: 0,
                });
                out.push(&mut self.guards, gc, addr, self.opts.coalesce);
                let k1 = self.store.constant(Value::Int(k as i128 + 1));
                next.push(&mut self.guards, gc, k1, self.opts.coalesce);
            }
            let updated = guarded_update(&mut self.guards, &count, gn, &next, self.opts.coalesce);
            self.counters.insert(ALLOCS.into(), updated);
        }
        (out, go)
    }

    /// On the paths of `g`, allocation `k` has `size` cells, and cells
    /// `from..size` hold `fill` (a new allocation, or a grown one).
    fn resize(&mut self, k: usize, g: Guard, from: usize, size: usize, fill: &ValueSummary) {
        let size_t = self.store.constant(Value::Int(size as i128));
        let a = &mut self.memory[k];
        a.size = guarded_update(
            &mut self.guards,
            &a.size,
            g,
            &ValueSummary::single(Guard::TRUE, size_t),
            self.opts.coalesce,
        );
        a.cells.grow_to(size);
        a.bytes.clear();
        let (guards, coalesce) = (&mut self.guards, self.opts.coalesce);
        a.cells
            .update(from, size, |c| guarded_update(guards, c, g, fill, coalesce));
    }

    /// `grow p, n, v`: on each path, `p`'s allocation gets `n` more cells
    /// holding `v`. The guard of the paths that go on.
    fn grow(&mut self, ctx: &StepCtx, p: &ValueSummary, n: &ValueSummary, fill: &ValueSummary) -> Guard {
        let mut go = ctx.phi;
        let stop = |me: &mut Self, go: &mut Guard, g: Guard| {
            let not_g = me.guards.not(g);
            *go = me.guards.and(*go, not_g);
        };
        for (gp, a) in self.restrict(p, ctx.phi) {
            let k = match self.store.addr_parts(a) {
                Some((k, _)) if (k as usize) < self.memory.len() => k as usize,
                _ => {
                    self.bug(gp, &ctx.model, BugKind::InvalidAddress, ctx.func, ctx.at);
                    stop(self, &mut go, gp);
                    continue;
                }
            };
            for (gn, count) in self.restrict(n, gp) {
                let Some(count) = self.store.as_const(count).and_then(|v| v.as_int()) else {
                    self.incomplete("symbolic memory growth".into());
                    stop(self, &mut go, gn);
                    continue;
                };
                let sizes = self.memory[k].size.clone();
                for (gs, size) in self.restrict(&sizes, gn) {
                    let old = self.store.as_const(size).and_then(|v| v.as_int()).unwrap_or(0);
                    let new = old + count;
                    if count < 0 || new > MAX_ALLOC as i128 {
                        self.bug(gs, &ctx.model, BugKind::BadAllocation, ctx.func, ctx.at);
                        stop(self, &mut go, gs);
                        continue;
                    }
                    self.resize(k, gs, old as usize, new as usize, fill);
                }
            }
        }
        go
    }

    /// The cells an access of `width` bits (`None`: one cell) through the
    /// address summary `p` touches: `(guard, allocation, offset)`, plus the
    /// guard of the paths that go on. Non-addresses and out-of-bounds
    /// offsets are bugs; a symbolic offset splits into one guarded target
    /// per feasible offset, or, when it may reach `SMALL_FORK` cells or more
    /// of one sort, is one target [`Offset::Within`] read and written
    /// through array terms; so is a `load`'s offset over any span of words
    /// in arithmetic progression ([`crate::semantics::affine_read`]).
    fn targets(
        &mut self,
        ctx: &StepCtx,
        p: &ValueSummary,
        width: Option<u8>,
        load: bool,
    ) -> (Vec<(Guard, usize, Offset)>, Guard) {
        let (cells, wide) = (width.map_or(1, |w| w as usize / 8), width.is_some());
        let mut out = Vec::new();
        let mut go = ctx.phi;
        for (g, a) in self.address_leaves(p, ctx.phi) {
            let parts = self
                .store
                .addr_parts(a)
                .filter(|(k, _)| (*k as usize) < self.memory.len());
            let Some((k, off)) = parts else {
                self.bug(g, &ctx.model, BugKind::InvalidAddress, ctx.func, ctx.at);
                let not_g = self.guards.not(g);
                go = self.guards.and(go, not_g);
                continue;
            };
            let sizes = self.memory[k as usize].size.clone();
            for (gs, size) in self.restrict(&sizes, g) {
                let Some(Value::Int(n)) = self.store.as_const(size) else {
                    continue;
                };
                let last = n - cells as i128;
                let bad = match self.store.as_const(off) {
                    Some(Value::Int(o)) if (0..=last).contains(&o) => {
                        out.push((gs, k as usize, Offset::At(o as usize)));
                        continue;
                    }
                    Some(_) => gs,
                    None => {
                        let lo = self.store.constant(Value::Int(0));
                        let hi = self.store.constant(Value::Int(last));
                        let below = self.store.app(Op::Lt, &[off, lo]).expect("offsets are Int");
                        let above = self.store.app(Op::Gt, &[off, hi]).expect("offsets are Int");
                        let outside = self.store.or(below, above);
                        let outside = self.guards.atom(&mut self.store, outside);
                        self.guards.and(gs, outside)
                    }
                };
                self.bug(bad, &ctx.model, BugKind::OutOfBounds, ctx.func, ctx.at);
                let ok = self.guards.not(bad);
                go = self.guards.and(go, ok);
                if self.store.as_const(off).is_some() || last < 0 {
                    continue;
                }
                let inside = self.guards.and(gs, ok);
                let mut concretised = false;
                // As in dse: a few cells split; more are read and written
                // as an array when they hold values of one sort; else a split
                // per feasible offset, or one offset when they are too many.
                let (slo, shi) = match self.store.value_range(off) {
                    Some((a, b)) => (a.max(0), b.min(last)),
                    None => (0, last),
                };
                let candidates: Vec<i128> = if shi - slo < SMALL_FORK as i128 {
                    (slo..=shi).collect()
                } else {
                    let o0 = match self.feasible(inside, &ctx.model).map(|m| self.store.eval(off, &m)) {
                        Some(Ok(Value::Int(o))) => o,
                        _ => continue,
                    };
                    let span = MAX_SYMBOLIC_WRITE as i128;
                    let window = if shi - slo < TIGHT_SPAN as i128 {
                        Some((slo, shi))
                    } else {
                        self.offset_range(inside, off, &ctx.model, o0, last, span)
                            .map(|(a, b)| (a.max(slo), b.min(shi)))
                    };
                    match window {
                        Some((a, b))
                            if self.cells_of_one_sort(k as usize, (a, b + cells as i128 - 1), inside, wide) =>
                        {
                            out.push((inside, k as usize, Offset::Within(off, a as usize, b as usize)));
                            Vec::new()
                        }
                        Some((a, b)) if b - a < MAX_OFFSET_SPLIT => (a..=b).collect(),
                        _ => {
                            // Past the array terms' span, a load may still
                            // read words in progression.
                            let w = width.filter(|_| load);
                            let affine = w.and_then(|w| {
                                self.progression(k as usize, inside, off, &ctx.model, (o0, last), window, w)
                            });
                            if let Some((a, b)) = affine {
                                out.push((inside, k as usize, Offset::Within(off, a, b)));
                                continue;
                            }
                            match self.offset_range(inside, off, &ctx.model, o0, last, MAX_OFFSET_SPLIT) {
                                Some((lo, hi)) => (lo..=hi).collect(),
                                None => {
                                    concretised = true;
                                    let at = self.module.location(ctx.func, ctx.at);
                                    self.incomplete(format!(
                                        "symbolic offset ranging over more than {MAX_OFFSET_SPLIT} cells of an allocation of {n} cells, of mixed sorts or beyond {span} cells, concretised at {at}"
                                    ));
                                    vec![o0]
                                }
                            }
                        }
                    }
                };
                // Offsets whose low bits are zero skip the cells between.
                let (m, r) = crate::semantics::offset_stride(&self.store, off);
                for o in candidates.into_iter().filter(|o| o.rem_euclid(m) == r) {
                    let ot = self.store.constant(Value::Int(o));
                    let at = self.store.eq(off, ot);
                    let at = self.guards.atom(&mut self.store, at);
                    let g = self.guards.and(inside, at);
                    if !g.is_false() {
                        out.push((g, k as usize, Offset::At(o as usize)));
                    }
                }
                if concretised {
                    // Paths at the other offsets are dropped.
                    let covered = out
                        .iter()
                        .filter(|t| t.1 == k as usize)
                        .fold(Guard::FALSE, |acc, t| self.guards.or(acc, t.0));
                    let dropped = self.guards.not(covered);
                    let dropped = self.guards.and(inside, dropped);
                    let keep = self.guards.not(dropped);
                    go = self.guards.and(go, keep);
                }
            }
        }
        let out = out
            .into_iter()
            .map(|(g, k, o)| (self.guards.and(g, go), k, o))
            .filter(|t| !t.0.is_false())
            .collect();
        (out, go)
    }

    /// The feasible values of the symbolic offset `off` under `inside`
    /// (`k` is one), when they span at most `span` cells.
    fn offset_range(
        &mut self,
        inside: Guard,
        off: TermId,
        model: &Model,
        k: i128,
        last: i128,
        span: i128,
    ) -> Option<(i128, i128)> {
        crate::semantics::offset_range(k, last, span, |op, v| {
            let vt = self.store.constant(Value::Int(v));
            let c = self.store.app(op, &[off, vt]).ok()?;
            let c = self.guards.atom(&mut self.store, c);
            let g = self.guards.and(inside, c);
            if g.is_false() {
                return Some(None);
            }
            let Some(m) = self.feasible(g, model) else {
                return Some(None);
            };
            Some(Some(match self.guards.eval(&self.store, g, &m) {
                Some(true) => crate::semantics::witness(&self.store, off, &m, op, v),
                _ => v,
            }))
        })
    }

    /// The entries of the address summary `p` under `phi`, with an address
    /// that is a choice (`ite(c, a1, a2)`, as operations on choices of
    /// constants and merged loads make them) split into its leaves under
    /// `c` and `¬c`.
    fn address_leaves(&mut self, p: &ValueSummary, phi: Guard) -> Vec<(Guard, TermId)> {
        let mut work = self.restrict(p, phi);
        let mut out = Vec::with_capacity(work.len());
        while let Some((g, a)) = work.pop() {
            let Node::App(Op::Ite, args) = self.store.node(a) else {
                out.push((g, a));
                continue;
            };
            let (c, yes, no) = (args[0], args[1], args[2]);
            let c = self.guards.atom(&mut self.store, c);
            let not_c = self.guards.not(c);
            for (side, v) in [(c, yes), (not_c, no)] {
                let h = self.guards.and(g, side);
                if !h.is_false() {
                    work.push((h, v));
                }
            }
        }
        out
    }

    /// The feasible offsets `lo..=hi` of a `w`-bit load at `off` under
    /// `inside` (`window`, else found by probes; `k` is one of them) when
    /// the words there are in arithmetic progression and `off` is aligned
    /// to them ([`crate::semantics::affine_read`]).
    #[allow(clippy::too_many_arguments)]
    fn progression(
        &mut self,
        alloc: usize,
        inside: Guard,
        off: TermId,
        model: &Model,
        (k, last): (i128, i128),
        window: Option<(i128, i128)>,
        w: u8,
    ) -> Option<(usize, usize)> {
        let (a, b) = match window {
            Some(r) => r,
            None => self.offset_range(inside, off, model, k, last, last + 1)?,
        };
        let (a, b) = (a as usize, b as usize);
        let cells: Vec<TermId> = (a..b + w as usize / 8)
            .map(|c| self.cell_term(alloc, c, inside))
            .collect();
        crate::semantics::affine_read(&mut self.store, a, &cells, off, w)?;
        Some((a, b))
    }

    /// Cell `c` of allocation `k` under `phi` as one term: its values there
    /// chosen by their guards.
    fn cell_term(&mut self, k: usize, c: usize, phi: Guard) -> TermId {
        // A load over hundreds of cells of many entries each can build
        // millions of terms: the run's stop unwinds from here.
        self.budget.check_unwind();
        let cell = self.memory[k].cells[c].clone();
        // The entries that hold under `phi`, each by its own guard: on the
        // paths of `phi` it is true where its restriction to `phi` is, and
        // its term is made once for every load of the cell, where the
        // restriction's was made again for each `phi` (heatshrink's
        // decoder over 6 bytes, a window read at a symbolic index per
        // output byte: 57 % of multise's time turning restricted guards
        // into terms).
        let mut entries = Vec::with_capacity(cell.len());
        for &(g, v) in cell.iter() {
            if phi == Guard::TRUE || !self.guards.and(g, phi).is_false() {
                entries.push((g, v));
            }
        }
        let Some(&(_, mut t)) = entries.last() else {
            return self.store.constant(Value::Undef);
        };
        for &(g, v) in entries.iter().rev().skip(1) {
            let g = self.guards.to_term(&mut self.store, g);
            t = self.store.choice(g, v, t);
        }
        t
    }

    /// Whether cells `lo..=hi` of allocation `k` hold values of one sort
    /// under `phi`, so that an array term can hold them.
    fn cells_of_one_sort(&mut self, k: usize, (lo, hi): (i128, i128), phi: Guard, wide: bool) -> bool {
        // Where every entry on every path has one sort, so have those under
        // `phi`, with no guard operation (heatshrink's window, read at a
        // symbolic index per output byte: 17 % of multise's time in the
        // restrictions here).
        let cells = &self.memory[k].cells;
        let all = (lo as usize..=hi as usize).flat_map(|c| cells[c].iter().map(|&(_, v)| self.store.sort(v)));
        if crate::semantics::one_sort(all, wide) {
            return true;
        }
        let mut sorts = Vec::new();
        for c in lo as usize..=hi as usize {
            let cell = self.memory[k].cells[c].clone();
            sorts.extend(self.restrict(&cell, phi).into_iter().map(|(_, v)| self.store.sort(v)));
        }
        crate::semantics::one_sort(sorts, wide)
    }

    /// LOAD through an address summary; wide loads compose byte cells.
    fn load(&mut self, ctx: &StepCtx, p: &ValueSummary, width: Option<u8>) -> (ValueSummary, Guard) {
        let cells = width.map_or(1, |w| w as usize / 8);
        let (targets, mut go) = self.targets(ctx, p, width, true);
        let mut out = ValueSummary::default();
        for (gt, k, o) in targets {
            let o = match o {
                Offset::At(o) => o,
                Offset::Within(off, lo, hi) => {
                    let terms: Vec<TermId> = (lo..hi + cells).map(|c| self.cell_term(k, c, gt)).collect();
                    let affine = width.and_then(|w| crate::semantics::affine_read(&mut self.store, lo, &terms, off, w));
                    if let Some(v) = affine {
                        out.push(&mut self.guards, gt, v, self.opts.coalesce);
                        continue;
                    }
                    match crate::semantics::array_of(&mut self.store, lo, &terms, width.is_some()) {
                        Some(array) => {
                            let v = crate::semantics::read_wide(&mut self.store, &array, off, width);
                            out.push(&mut self.guards, gt, v, self.opts.coalesce);
                        }
                        None => {
                            self.bug(gt, &ctx.model, BugKind::TypeError, ctx.func, ctx.at);
                            let not_gt = self.guards.not(gt);
                            go = self.guards.and(go, not_gt);
                        }
                    }
                    continue;
                }
            };
            let Some(w) = width else {
                let cell = self.memory[k].cells[o].clone();
                for (g, v) in self.restrict(&cell, gt) {
                    out.push(&mut self.guards, g, v, self.opts.coalesce);
                }
                continue;
            };
            // Each combination of the cells' entries, its bytes put
            // together at the end (so the bytes one store wrote give back
            // its value). Each combination keeps the guard of the last
            // entry it took, which its own guard lies within: where the
            // next cell has an entry of that guard (the cells one store
            // wrote have the same guards), that entry is all the cell
            // holds under it, since a summary's entries are disjoint. (A
            // 64-bit load of cells of 150-350 entries each took 50-550 ms
            // restricting every entry by every combination: mjson's
            // tokenizer over 4 bytes.)
            let mut acc: Vec<(Guard, Guard, SmallVec<[TermId; 8]>)> = vec![(gt, Guard::TRUE, SmallVec::new())];
            for i in 0..cells {
                let cell = self.memory[k].cells[o + i].clone();
                let index: FxHashMap<Guard, usize> = match acc.len() > 1 && cell.len() > 1 {
                    true => cell.iter().enumerate().map(|(j, (h, _))| (*h, j)).collect(),
                    false => FxHashMap::default(),
                };
                let mut next = Vec::new();
                for (g, within, a) in acc {
                    // The product can be large (a UTF-8 decoder's load ran
                    // past the time limit): the run's stop unwinds from here
                    // as from a BDD operation.
                    self.budget.check_unwind();
                    let parts: SmallVec<[(Guard, Guard, TermId); 2]> = match index.get(&within) {
                        Some(&j) => {
                            debug_assert!(cell
                                .iter()
                                .all(|&(h, _)| h == within || self.guards.and(g, h).is_false()));
                            self.summaries_processed += 1;
                            self.entries_processed += 1;
                            smallvec::smallvec![(g, within, cell.0[j].1)]
                        }
                        None => {
                            self.summaries_processed += 1;
                            let mut parts = SmallVec::new();
                            for &(h, v) in cell.iter() {
                                let r = self.guards.and(g, h);
                                if !r.is_false() {
                                    parts.push((r, h, v));
                                }
                            }
                            self.entries_processed += parts.len() as u64;
                            parts
                        }
                    };
                    for (h, within, byte) in parts {
                        match self.store.sort(byte) {
                            Sort::Undef | Sort::Bv(8) => {
                                let mut bytes = a.clone();
                                bytes.push(byte);
                                next.push((h, within, bytes));
                            }
                            _ => {
                                self.bug(h, &ctx.model, BugKind::TypeError, ctx.func, ctx.at);
                                let not_h = self.guards.not(h);
                                go = self.guards.and(go, not_h);
                            }
                        }
                    }
                }
                acc = next;
            }
            for (g, _, bytes) in acc {
                self.budget.check_unwind();
                let v = crate::semantics::word_of(&mut self.store, w, &bytes).expect("bytes or undefined cells");
                let g = self.guards.and(g, go);
                out.push(&mut self.guards, g, v, self.opts.coalesce);
            }
        }
        (out, go)
    }

    /// STORE: a strong update of every cell the address summary may name,
    /// each under its own guard.
    fn store_through(&mut self, ctx: &StepCtx, p: &ValueSummary, v: &ValueSummary, width: Option<u8>) -> Guard {
        let cells = width.map_or(1, |w| w as usize / 8);
        let mut go = ctx.phi;
        let value: Vec<ValueSummary> = match width {
            None => vec![v.clone()],
            Some(w) => {
                let mut bytes = vec![ValueSummary::default(); cells];
                for (g, val) in self.restrict(v, ctx.phi) {
                    if self.store.sort(val) != Sort::Bv(w) {
                        self.bug(g, &ctx.model, BugKind::TypeError, ctx.func, ctx.at);
                        let not_g = self.guards.not(g);
                        go = self.guards.and(go, not_g);
                        continue;
                    }
                    for (i, b) in bytes.iter_mut().enumerate() {
                        let sh = self.store.constant(Value::bv(w, 8 * i as u64));
                        let moved = self.store.app(Op::LShr, &[val, sh]).expect("same width");
                        let byte = self.store.app(Op::Trunc(8), &[moved]).expect("narrows");
                        b.push(&mut self.guards, g, byte, self.opts.coalesce);
                    }
                }
                bytes
            }
        };
        let inner = StepCtx { phi: go, ..ctx.clone() };
        let (targets, go) = self.targets(&inner, p, width, false);
        for (gt, k, o) in targets {
            let o = match o {
                Offset::At(o) => o,
                Offset::Within(off, lo, hi) => {
                    self.store_within(gt, k, (off, lo, hi), v, width);
                    continue;
                }
            };
            for (i, val) in value.iter().enumerate() {
                let a = &mut self.memory[k];
                let s = guarded_update(&mut self.guards, &a.cells[o + i], gt, val, self.opts.coalesce);
                a.set(o + i, s);
            }
        }
        go
    }

    /// A store of `v` under `gt` at the symbolic offset `off` of allocation
    /// `k` (its values in `lo..=hi`): every cell it may reach becomes a
    /// choice between the byte written there and its old value.
    fn store_within(
        &mut self,
        gt: Guard,
        k: usize,
        (off, lo, hi): (TermId, usize, usize),
        v: &ValueSummary,
        width: Option<u8>,
    ) {
        let n = width.map_or(1, |w| w as usize / 8);
        for (gv, val) in self.restrict(v, gt) {
            let Some(bytes) = crate::semantics::bytes_of(&mut self.store, val, width) else {
                continue; // reported as a type error by the caller
            };
            for c in lo..hi + n {
                let cell = self.memory[k].cells[c].clone();
                let mut new = ValueSummary::default();
                for (h, old) in self.restrict(&cell, gv) {
                    let t = crate::semantics::written(&mut self.store, off, (lo, hi), c, &bytes, old, width.is_some());
                    new.push(&mut self.guards, h, t, self.opts.coalesce);
                }
                let a = &mut self.memory[k];
                let s = guarded_update(&mut self.guards, &a.cells[c], gv, &new, self.opts.coalesce);
                a.set(c, s);
            }
        }
    }

    // ---- results -----------------------------------------------------------

    /// The value a summary has under `model` (the entry whose guard holds).
    fn value_under(&self, s: &ValueSummary, model: &Model, memo: &mut EvalMemo) -> Option<(TermId, Value)> {
        let (_, t) = s
            .iter()
            .find(|(g, _)| self.guards.eval_with(&self.store, *g, model, memo) == Some(true))?;
        Some((*t, self.store.eval_with(*t, model, memo).ok()?))
    }

    fn outcome_under(&self, e: &Event, m: &Model) -> (Outcome, BTreeMap<String, String>) {
        let memo = &mut EvalMemo::default();
        let mut expressions = BTreeMap::new();
        match &e.kind {
            EventKind::Bug { kind, func, stmt } => (Outcome::bug(self.module, kind.clone(), *func, *stmt), expressions),
            EventKind::End { func, vars, returned } => {
                let f = self.module.func(*func);
                let mut values = BTreeMap::new();
                for (name, s) in f.vars.iter().zip(vars) {
                    if let Some((t, v)) = self.value_under(s, m, memo) {
                        if v != Value::Undef {
                            values.insert(name.clone(), self.module.render_value(&v));
                            expressions.insert(name.clone(), self.store.display(t));
                        }
                    }
                }
                let count = match self.value_under(&self.counters[ALLOCS], m, memo) {
                    Some((_, Value::Int(n))) => n as usize,
                    _ => 0,
                };
                let cells = self.memory[..count.min(self.memory.len())].iter().map(|a| {
                    let size = match self.value_under(&a.size, m, memo) {
                        Some((_, Value::Int(n))) => n as usize,
                        _ => 0,
                    };
                    (size.min(a.cells.len()), &a.cells)
                });
                let cells: Vec<(usize, &cells::Cells)> = cells.collect();
                let memory = render_memory(self.module, cells.iter().map(|(n, c)| (*n, c.iter().take(*n))), |c| {
                    self.value_under(c, m, memo).map_or(Value::Undef, |x| x.1)
                });
                let returned = returned
                    .as_ref()
                    .and_then(|r| self.value_under(r, m, memo))
                    // A `ret` without a value returns nothing.
                    .filter(|(_, v)| *v != Value::Undef)
                    .map(|(_, v)| self.module.render_value(&v));
                let outcome = Outcome::End {
                    function: f.name.clone(),
                    values,
                    memory,
                    returned,
                };
                (outcome, expressions)
            }
        }
    }

    /// Paths in `event.guard` have ended: the pending models among them
    /// become tests now. Their values never change afterwards (updates are
    /// guarded by the running entry's guard, disjoint from theirs), so the
    /// outcome read off the state now is final.
    fn ended(&mut self, event: Event) {
        let mut memo = EvalMemo::default();
        let pending = std::mem::take(&mut self.pending);
        for m in pending {
            memo.clear();
            if self.guards.eval_with(&self.store, event.guard, &m, &mut memo) == Some(true) {
                self.write_test(&event, &m);
            } else {
                self.pending.push(m);
            }
        }
        self.events.push(event);
    }

    /// The test `m` gives a path that ended with `event`.
    fn write_test(&mut self, event: &Event, m: &Model) {
        let (outcome, expressions) = self.outcome_under(event, m);
        let pc = self.guards.display(&mut self.store, event.guard);
        let test = TestCase::new(
            self.program.clone(),
            self.module.func(self.entry).name.clone(),
            self.inputs_of(m),
            outcome,
            expressions,
            vec![pc],
        );
        self.found.push(test);
    }

    /// Models still pending when exploration is over: those whose path ended
    /// in an earlier event get its test.
    fn match_pending(&mut self) {
        let events = std::mem::take(&mut self.events);
        for m in std::mem::take(&mut self.pending) {
            match events
                .iter()
                .find(|e| self.guards.eval(&self.store, e.guard, &m) == Some(true))
            {
                Some(e) => self.write_test(e, &m),
                None => self.pending.push(m),
            }
        }
        self.events = events;
    }

    fn finish_stats(&mut self, frame: Option<&Frame>) {
        if let Some(s) = &self.loop_solver {
            self.solver.stats.absorb(&s.stats);
        }
        let st = &mut self.result.stats;
        st.record_solver(&self.solver.stats);
        st.terms = self.store.len() as u64;
        st.bdd_nodes = self.guards.peak_nodes as u64;
        st.bdd_collections = self.guards.collections;
        st.bdd_ms = self.guards.time_spent().as_millis() as u64;
        st.operations = self.entries_processed;
        st.loops = self.loops.as_ref().map(|l| l.stats.clone());
        if let Some(a) = &self.ahead {
            st.run_ahead = a.pacing.runs;
            st.statements_ahead = a.pacing.steps;
            st.ahead_ms = a.pacing.time.as_millis() as u64;
        }
        st.avg_value_summary_size = if self.summaries_processed == 0 {
            0.0
        } else {
            self.entries_processed as f64 / self.summaries_processed as f64
        };
        // (entries, summaries) over the non-empty final summaries; a page
        // that is one summary counts once per cell.
        let (entries, summaries) = frame
            .into_iter()
            .flat_map(|f| f.vars.iter().map(|s| (s.len(), 1)))
            .chain(
                self.memory
                    .iter()
                    .flat_map(|a| a.cells.runs().map(|(_, n, s)| (s.len(), n))),
            )
            .filter(|(len, _)| *len > 0)
            .fold((0u64, 0u64), |(e, k), (len, n)| (e + (len * n) as u64, k + n as u64));
        st.summary_entries = entries;
        let avg_final = if summaries == 0 {
            1.0
        } else {
            entries as f64 / summaries as f64
        };
        // Seed 000 §5.2: paths per distinct value in the final summaries.
        st.sharing_factor = self.result.paths as f64 / avg_final;
    }

    /// The final state in the paper's notation, e.g. `z ↦ {(φ, r0 - 1), …}`.
    fn render_state(&mut self, frame: &Frame) -> String {
        let f = self.module.func(frame.func);
        let mut out = String::new();
        let pc: Vec<String> = frame
            .halted
            .iter()
            .chain(&frame.pc)
            .map(|e| {
                let label = f.label_of(e.at).map_or(format!("#{}", e.at), String::from);
                (e.guard, label)
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|(g, l)| format!("({}, {l})", self.guards.display(&mut self.store, g)))
            .collect();
        let _ = writeln!(out, "pc ↦ {{{}}}", pc.join(", "));
        let summaries: Vec<(String, ValueSummary)> = f
            .vars
            .iter()
            .cloned()
            .zip(frame.vars.iter().cloned())
            .chain(self.memory.iter().enumerate().flat_map(|(k, a)| {
                a.cells
                    .runs()
                    .map(move |(i, n, c)| match n {
                        1 => (format!("a{k}[{i}]"), c.clone()),
                        _ => (format!("a{k}[{i}..{}]", i + n), c.clone()),
                    })
                    .collect::<Vec<_>>()
            }))
            .collect();
        for (name, s) in summaries {
            let entries: Vec<String> = s
                .iter()
                .map(|(g, v)| {
                    let v = match self.store.node(*v) {
                        Node::Const(c) => self.module.render_value(c),
                        _ => self.store.display(*v),
                    };
                    format!("({}, {v})", self.guards.display(&mut self.store, *g))
                })
                .collect();
            let _ = writeln!(out, "{name} ↦ {{{}}}", entries.join(", "));
        }
        out
    }
}

/// What a statement's rules need to know about the entry running it.
#[derive(Clone)]
struct StepCtx {
    phi: Guard,
    func: FuncId,
    at: StmtIdx,
    model: Rc<Model>,
}
