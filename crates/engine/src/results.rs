//! What every engine produces: tests, bugs, coverage and statistics, and the
//! on-disk test format that `braid replay` reads.

use braid_ir::{BugKind, FuncId, Module, StmtIdx};
use braid_term::{Sort, Value};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One input of a test: its name, sort and value, in the order the program
/// reads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestInput {
    pub name: String,
    pub sort: String,
    pub value: String,
}

impl TestInput {
    pub fn new(name: &str, value: Value) -> TestInput {
        TestInput {
            name: name.to_string(),
            sort: value.sort().to_string(),
            value: value.to_string(),
        }
    }

    /// The value, if the recorded sort and spelling make sense together.
    pub fn parsed(&self) -> Option<Value> {
        Value::parse(&self.value, Sort::parse(&self.sort)?)
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// `halt` in `function`, or the entry function returned (`returned`).
    End {
        function: String,
        /// The variables of the ending frame that hold a value.
        values: BTreeMap<String, String>,
        /// Allocations in creation order (`a0`, `a1`, …), cell by cell.
        memory: BTreeMap<String, Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        returned: Option<String>,
    },
    Bug {
        bug: BugKind,
        function: String,
        stmt: StmtIdx,
        location: String,
    },
}

impl Outcome {
    pub fn bug(module: &Module, kind: BugKind, func: FuncId, stmt: StmtIdx) -> Outcome {
        let f = module.func(func);
        Outcome::Bug {
            bug: kind,
            function: f.name.clone(),
            stmt,
            location: module.location(func, stmt),
        }
    }

    /// Whether `self` (recorded) is reproduced by `actual`: same bug kind and
    /// place, or a normal end with the same final values.
    pub fn reproduced_by(&self, actual: &Outcome) -> bool {
        match (self, actual) {
            (
                Outcome::Bug {
                    bug: a,
                    function: f,
                    stmt: s,
                    ..
                },
                Outcome::Bug {
                    bug: b,
                    function: g,
                    stmt: t,
                    ..
                },
            ) => a == b && f == g && s == t,
            _ => self == actual,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    pub program: String,
    pub entry: String,
    pub inputs: Vec<TestInput>,
    pub outcome: Outcome,
    /// The symbolic value of each final variable (informational; not replayed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expressions: BTreeMap<String, String>,
    /// The path condition the inputs satisfy (informational).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path_condition: Vec<String>,
    /// The `braid run` arguments that shape the program (WASI's
    /// `--sym-args N L`, `--sym-stdin N`): replay lowers it the same way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_args: Vec<String>,
    /// What the test's run writes to stdout and stderr (WASI programs), as
    /// braid's interpreter ran it; replay compares both runtimes with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// Written for a stopped run's frontier: inputs that reach explored
    /// code, run concretely to the end, whose run gave the outcome.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub frontier: bool,
}

impl TestCase {
    /// A test as an engine finds it: the run arguments and the output a
    /// concrete run prints are recorded later, by the command line.
    pub fn new(
        program: String,
        entry: String,
        inputs: Vec<TestInput>,
        outcome: Outcome,
        expressions: BTreeMap<String, String>,
        path_condition: Vec<String>,
    ) -> TestCase {
        TestCase {
            program,
            entry,
            inputs,
            outcome,
            expressions,
            path_condition,
            run_args: Vec::new(),
            stdout: None,
            stderr: None,
            frontier: false,
        }
    }
}

/// A distinct bug: kind and location, with the first test reproducing it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BugReport {
    pub kind: BugKind,
    pub function: String,
    pub location: String,
    /// The index of the test that reproduces it.
    #[serde(skip)]
    pub test_index: usize,
    /// The test's file under `--out` (filled when written).
    pub test: String,
}

/// A branch outcome: the `if` statement and whether the jump was taken.
pub type Branch = (FuncId, StmtIdx, bool);

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub wall_ms: u64,
    pub solver_queries: u64,
    pub solver_calls: u64,
    pub solver_cache_hits: u64,
    pub solver_cex_hits: u64,
    pub solver_ms: u64,
    pub bdd_ms: u64,
    /// MultiSE §5.2: per executed statement, the sizes of the value
    /// summaries it reads (a forking engine's have one entry each).
    pub operations: u64,
    /// Statements executed (a multise step runs one for many paths).
    pub statements: u64,
    /// `dse`, `multise`: states handed to the concrete interpreter to run
    /// ahead, the statements (of `statements`) it ran for them, and the
    /// time the hand-overs took (conversions both ways included).
    pub run_ahead: u64,
    pub statements_ahead: u64,
    pub ahead_ms: u64,
    pub states_created: u64,
    /// dse: states ended by a concrete run (a test where it covers a new
    /// branch or finds a bug) to make room under the memory limit
    /// ([`crate::dse`]'s shedding).
    pub states_shed: u64,
    /// State merging: pairs of states merged, and pairs of mergeable states
    /// (same location, stack, allocations and inputs) that were compared.
    pub states_merged: u64,
    pub merge_attempts: u64,
    /// Merged states split back because a query on them was too hard.
    pub splits: u64,
    /// multise with `--coalesce auto`: joins where paths were kept apart.
    pub joins_kept_apart: u64,
    /// Dynamic state merging: states picked for fast-forwarding (a streak
    /// counts once), and how many of those streaks ended in a merge.
    pub fast_forwards: u64,
    pub fast_forwards_merged: u64,
    /// State merging: solver queries whose terms contain `ite`.
    pub ite_queries: u64,
    /// Branch outcomes the exploration found feasible, whether or not a
    /// finished path's test covers them (forking engines; a run stopped by
    /// a limit has live states without tests).
    pub branches_explored: Option<u64>,
    pub avg_value_summary_size: f64,
    pub sharing_factor: f64,
    /// Entries in the final value summaries (variables and memory; multise).
    pub summary_entries: u64,
    pub partial_solutions: u64,
    /// The largest resident memory seen during the run, in MiB.
    pub peak_rss_mb: u64,
    /// Terms built; the most BDD nodes alive at once, and garbage
    /// collections of the BDD manager (multise).
    pub terms: u64,
    pub bdd_nodes: u64,
    pub bdd_collections: u64,
    /// Writes of a variable no other path would read again, which dropped
    /// the other paths' values instead of keeping them (multise).
    pub dead_values_dropped: u64,
    /// Summaries too wide that became one `ite` value (multise).
    pub summaries_narrowed: u64,
    /// Tests whose concrete run ended otherwise than the engine recorded.
    pub tests_not_reproduced: u64,
    /// Tests another thread found (dse beside a merging engine) that were
    /// handed over after the frontier phase ended, and not written.
    pub tests_not_written: u64,
    /// Where the solver's time went.
    pub solver_detail: SolverDetail,
    /// `concolic`: runs, solver calls and partial solutions (MuSE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concolic: Option<crate::dse::concolic::ConcolicStats>,
    /// Loop-head merging (seed 003), when on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loops: Option<crate::dse::loops::LoopStats>,
    /// `multise`, `ssm`, `dsm`: why the run gave merging up and went on as
    /// `dse`, and when (see `multise::Options::fallback`,
    /// `dse::merging::Merging::fallback`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merging_given_up: Option<String>,
    /// `ssm`, `dsm`: the race against dse (`Merging::race_after_ms`), when
    /// it began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<RaceStats>,
    /// `multise`: how the feasibility of new `pc` guards and bug guards was
    /// decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard_checks: Option<GuardChecks>,
}

/// `ssm`, `dsm` raced against dse: the time each exploration ran, and
/// which finished first (`None`: the budget stopped both).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RaceStats {
    /// How long merging ran alone before dse joined.
    pub after_ms: u64,
    pub merging_ms: u64,
    pub dse_ms: u64,
    /// Paths dse finished.
    pub dse_paths: u64,
    /// `merging` or `dse`.
    pub winner: Option<String>,
}

/// How `multise` decided whether new `pc` guards are feasible: by the
/// entry's model, by a satisfiable cube, infeasible once the unsat cores of
/// its cubes were cut out, or by sending what was left of it whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GuardChecks {
    pub checks: u64,
    pub by_model: u64,
    pub by_cube: u64,
    /// Decided by a walk of the guard that evaluates its atoms: a model
    /// found, or every value of the inputs it reads tried.
    pub by_search: u64,
    pub infeasible_by_search: u64,
    /// Unsat cubes whose cores were cut out of their guard.
    pub cores_cut: u64,
    /// Guards found infeasible once every cube was cut out.
    pub infeasible_by_cores: u64,
    /// Guards (what was left of them) sent to the solver whole.
    pub whole: u64,
    /// Of those, sent whole after cores that kept most of their cubes.
    pub wide_cores: u64,
    /// Of those, sent whole as they were before a cut that would have
    /// grown them by more than a guard sent whole may hold.
    pub cuts_grown: u64,
}

/// The solver layer's statistics that explain its time: per kind of
/// question how it was answered, the backend calls by duration, the slowest.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SolverDetail {
    pub by_kind: Vec<KindDetail>,
    /// Path constraints left out of queries by independence.
    pub constraints_sliced_away: u64,
    pub calls_by_time: Vec<TimeBucket>,
    pub slowest: Vec<SlowQueryDetail>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KindDetail {
    pub kind: String,
    pub queries: u64,
    pub trivial: u64,
    pub cache_hits: u64,
    pub model_hits: u64,
    /// Answered unsat by a known unsat subset (KLEE's cache).
    pub subset_hits: u64,
    pub solver_calls: u64,
    /// Of the solver calls, those that answered unsat.
    pub solver_unsat: u64,
    pub solver_ms: u64,
    /// Questions braid's simplex was asked before the solver, those it
    /// answered with a model, and its time.
    pub simplex_tries: u64,
    pub simplex_sat: u64,
    pub simplex_ms: u64,
    /// Questions the simplex was not asked while it did not pay.
    #[serde(default)]
    pub simplex_skipped: u64,
    /// Unsat answers the solver gave no unsat core for (its core check ran
    /// out of time), so the whole set is kept as the known unsat set.
    pub cores_missed: u64,
    /// Answered unsat by comparisons contradicting one another (difference
    /// bounds), without the solver.
    pub difference_unsat: u64,
    /// Answered sat by a model of the comparisons of a case the difference
    /// bounds did not refute, without the solver.
    pub difference_sat: u64,
    /// The difference bounds' time, and the questions they were not given
    /// while they did not pay.
    #[serde(default)]
    pub difference_ms: u64,
    #[serde(default)]
    pub difference_skipped: u64,
    /// Questions over floats given to XSat's search before the solver,
    /// those it found a model for, and its time.
    pub search_tries: u64,
    pub search_sat: u64,
    pub search_ms: u64,
    /// Solver calls the helper solver raced against Z3 on questions over
    /// floats (Bitwuzla or cvc5) answered first.
    pub helper_answers: u64,
    /// Answered by trying every value of a few input bits (at most 16),
    /// sat and unsat, without the solver, and the time of all tries.
    pub enumerate_sat: u64,
    pub enumerate_unsat: u64,
    pub enumerate_ms: u64,
    /// Answered by searching the orderings of wide symbols that the
    /// question only compares (sort keys, merged `ite`s over them), sat
    /// and unsat, without the solver, and the time of all tries.
    pub orders_sat: u64,
    pub orders_unsat: u64,
    pub orders_ms: u64,
    /// Merged states' questions the search of orderings or clause
    /// learning gave up on, answered unknown (the state split) rather than
    /// asked of Z3.
    pub orders_gave_up: u64,
    /// Answered by clause learning over difference bounds (a formula over
    /// comparisons of symbols, constants and `ite`s of them), sat and
    /// unsat, without the solver, and the time of all tries.
    #[serde(default)]
    pub cdcl_sat: u64,
    #[serde(default)]
    pub cdcl_unsat: u64,
    #[serde(default)]
    pub cdcl_ms: u64,
    /// Answered unsat because the path pins the question's symbols to
    /// values (`c == 46`) under which it is false.
    pub pinned_unsat: u64,
    /// Answered unsat because the question's unit literals (`x <= 0`) make
    /// another of its constraints (`ite(x <= 0, false, …)`) false.
    #[serde(default)]
    pub units_unsat: u64,
    /// Answered unsat because a term's range of values, narrowed by the
    /// question's comparisons, was left empty.
    #[serde(default)]
    pub intervals_unsat: u64,
    /// Questions not given to trying every value while it cost more per
    /// answer than the backend per call.
    pub enumerate_skipped: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimeBucket {
    /// `<1ms`, `1-10ms`, `10-100ms`, `100-1000ms`, `>=1000ms`.
    pub range: String,
    pub calls: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SlowQueryDetail {
    pub ms: f64,
    pub kind: String,
    pub constraints: usize,
    pub answer: String,
}

impl Stats {
    /// Records the solver layer's counters.
    pub fn record_solver(&mut self, solver: &braid_solver::SolverStats) {
        self.solver_queries = solver.queries;
        self.solver_calls = solver.solver_calls;
        self.solver_cache_hits = solver.cache_hits;
        self.solver_cex_hits = solver.cex_hits;
        self.solver_ms = solver.solver_time.as_millis() as u64;
        let bounds = braid_solver::HISTOGRAM_MS;
        self.solver_detail = SolverDetail {
            by_kind: braid_solver::QueryKind::ALL
                .iter()
                .zip(&solver.by_kind)
                .map(|(k, s)| KindDetail {
                    kind: k.name().to_string(),
                    queries: s.queries,
                    trivial: s.trivial,
                    cache_hits: s.cache_hits,
                    model_hits: s.cex_hits,
                    subset_hits: s.subset_hits,
                    solver_calls: s.solver_calls,
                    solver_unsat: s.solver_unsat,
                    solver_ms: s.solver_time.as_millis() as u64,
                    simplex_tries: s.simplex_tries,
                    simplex_sat: s.simplex_sat,
                    simplex_ms: s.simplex_time.as_millis() as u64,
                    simplex_skipped: s.simplex_skipped,
                    cores_missed: s.cores_missed,
                    difference_unsat: s.difference_unsat,
                    difference_sat: s.difference_sat,
                    difference_ms: s.difference_time.as_millis() as u64,
                    difference_skipped: s.difference_skipped,
                    search_tries: s.search_tries,
                    search_sat: s.search_sat,
                    search_ms: s.search_time.as_millis() as u64,
                    helper_answers: s.helper_answers,
                    enumerate_sat: s.enumerate_sat,
                    enumerate_unsat: s.enumerate_unsat,
                    enumerate_ms: s.enumerate_time.as_millis() as u64,
                    orders_sat: s.orders_sat,
                    orders_unsat: s.orders_unsat,
                    orders_ms: s.orders_time.as_millis() as u64,
                    orders_gave_up: s.orders_gave_up,
                    cdcl_sat: s.cdcl_sat,
                    cdcl_unsat: s.cdcl_unsat,
                    cdcl_ms: s.cdcl_time.as_millis() as u64,
                    pinned_unsat: s.pinned_unsat,
                    units_unsat: s.units_unsat,
                    intervals_unsat: s.intervals_unsat,
                    enumerate_skipped: s.enumerate_skipped,
                })
                .collect(),
            constraints_sliced_away: solver.sliced_away,
            calls_by_time: solver
                .histogram
                .iter()
                .enumerate()
                .map(|(i, calls)| TimeBucket {
                    range: match i {
                        0 => format!("<{}ms", bounds[0]),
                        i if i == bounds.len() => format!(">={}ms", bounds[i - 1]),
                        i => format!("{}-{}ms", bounds[i - 1], bounds[i]),
                    },
                    calls: *calls,
                })
                .collect(),
            slowest: solver
                .slowest
                .iter()
                .map(|q| SlowQueryDetail {
                    ms: q.time.as_secs_f64() * 1e3,
                    kind: q.kind.name().to_string(),
                    constraints: q.constraints,
                    answer: q.answer.clone(),
                })
                .collect(),
        };
    }
}

/// What a run found. Engines fill in their own part (paths, statistics,
/// why they stopped); [`crate::explore`] adds what the recorder saw.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub engine: String,
    pub incomplete_reasons: BTreeSet<String>,
    /// Completed paths (normal ends and bugs).
    pub paths: u64,
    /// Whether `paths` counts paths exactly (forking engines) or estimates them.
    pub paths_exact: bool,
    /// Tests written, of which `frontier_tests` for a stopped run's frontier.
    pub tests: usize,
    pub frontier_tests: usize,
    pub bugs: Vec<BugReport>,
    /// Branch outcomes the tests cover, by their concrete runs.
    pub branches_covered: usize,
    pub branches_total: usize,
    pub stats: Stats,
    /// `multise --dump-state`: the final value summaries.
    pub state_dump: Option<String>,
}

impl RunResult {
    pub fn complete(&self) -> bool {
        self.incomplete_reasons.is_empty()
    }
}
