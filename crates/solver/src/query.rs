//! KLEE's query optimisations over any [`Solver`] backend.

use crate::{SatResult, Solver};
use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How many recent models the counterexample cache tries before the backend.
const RECENT_MODELS: usize = 16;
/// Queries the cache holds at most; past it, it starts over (a long run's
/// cache would otherwise grow with every query).
const CACHE_ENTRIES: usize = 1 << 18;
/// Unsat cores kept at most (past it, the index starts over), and how many
/// of them one query tries at most.
const CORE_ENTRIES: usize = 1 << 16;
const CORE_TRIES: usize = 256;

/// A known unsat set, sorted, with its [`signature`].
type Core = (u64, Box<[TermId]>);

/// What an engine asks the solver for; engines set [`QuerySolver::kind`]
/// before they ask, and the statistics are kept per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueryKind {
    /// Can a branch outcome (or a new `pc` entry) be taken?
    #[default]
    Branch,
    /// Can a bug happen here?
    BugCheck,
    /// A question about a merged state (its `ite` terms), or a model of one
    /// side of a merge.
    Merge,
    /// Does an entry of a loop head's summary stand for an arriving state?
    LoopMerge,
}

impl QueryKind {
    pub const ALL: [QueryKind; 4] = [
        QueryKind::Branch,
        QueryKind::BugCheck,
        QueryKind::Merge,
        QueryKind::LoopMerge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            QueryKind::Branch => "branch",
            QueryKind::BugCheck => "bug check",
            QueryKind::Merge => "merge",
            QueryKind::LoopMerge => "loop merge",
        }
    }
}

/// The queries of one kind: how many, how they were answered, and the
/// backend's time on them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindStats {
    pub queries: u64,
    /// Decided without any constraint: the query was a constant.
    pub trivial: u64,
    pub cache_hits: u64,
    pub cex_hits: u64,
    /// Answered unsat because a known unsat set is part of the query.
    pub subset_hits: u64,
    pub solver_calls: u64,
    /// Backend calls that answered unsat.
    pub solver_unsat: u64,
    pub solver_time: Duration,
    /// Questions given to braid's simplex before the backend, those it
    /// found a model for, and its time.
    pub simplex_tries: u64,
    pub simplex_sat: u64,
    pub simplex_time: Duration,
    /// Questions the simplex was not asked, while it did not pay
    /// ([`Gate`]).
    pub simplex_skipped: u64,
    /// Unsat answers with unsat cores on for which the backend gave no
    /// core (its core check ran out of time): the whole set is kept.
    pub cores_missed: u64,
    /// Answered unsat by contradicting difference bounds (no backend call).
    pub difference_unsat: u64,
    /// Answered sat by a model of the comparisons of a case the difference
    /// bounds left standing, which satisfied the whole question.
    pub difference_sat: u64,
    /// The time of all the difference bounds' tries, and the questions
    /// they were not given while they did not pay ([`Gate`]).
    pub difference_time: Duration,
    pub difference_skipped: u64,
    /// Questions over floats given to the search for a model before the
    /// backend, those it answered, and its time.
    pub search_tries: u64,
    pub search_sat: u64,
    pub search_time: Duration,
    /// Backend calls the helper solver raced against Z3 answered first.
    pub helper_answers: u64,
    /// Answered by trying every value of a few input bits
    /// (crate::enumerate), sat and unsat, and the time of all tries.
    pub enumerate_sat: u64,
    pub enumerate_unsat: u64,
    pub enumerate_time: Duration,
    /// Answered by searching the orderings of wide symbols the question
    /// only compares (crate::orders), sat and unsat, and the time of all
    /// tries.
    pub orders_sat: u64,
    pub orders_unsat: u64,
    pub orders_time: Duration,
    /// Questions the search of orderings or clause learning gave up on
    /// that were answered unknown at once ([`QuerySolver::split_hard`]).
    pub orders_gave_up: u64,
    /// Answered by clause learning over difference bounds (crate::cdcl),
    /// sat and unsat, and the time of all tries.
    pub cdcl_sat: u64,
    pub cdcl_unsat: u64,
    pub cdcl_time: Duration,
    /// Answered unsat because the path pins the question's symbols to
    /// values under which it is false ([`pinned_refutation`]).
    pub pinned_unsat: u64,
    /// Answered unsat because the question's unit literals make another
    /// of its constraints false (crate::units).
    pub units_unsat: u64,
    /// Answered unsat because a term's range of values, narrowed by the
    /// question's comparisons, was left empty (crate::intervals).
    pub intervals_unsat: u64,
    /// Questions not given to trying every value while it did not pay
    /// ([`CostGate`]).
    pub enumerate_skipped: u64,
}

impl KindStats {
    /// The answers and time of what a question goes to after the search of
    /// orderings: XSat's search over floats and the backend.
    fn after_orders(&self) -> (u64, Duration) {
        (self.search_sat + self.solver_calls, self.search_time + self.solver_time)
    }

    /// The answers and time of what a question goes to after the simplex:
    /// trying every value, the search of orderings, and
    /// [`KindStats::after_orders`].
    fn after_simplex(&self) -> (u64, Duration) {
        let (answers, time) = self.after_orders();
        (
            answers
                + self.enumerate_sat
                + self.enumerate_unsat
                + self.cdcl_sat
                + self.cdcl_unsat
                + self.orders_sat
                + self.orders_unsat,
            time + self.enumerate_time + self.cdcl_time + self.orders_time,
        )
    }
}

/// Questions with at most this many symbols go to the search of orderings
/// before clause learning.
const FEW_SYMBOLS: usize = 6;

/// Upper bounds (exclusive) of the backend-time histogram's buckets, in
/// milliseconds; the last bucket is everything above.
pub const HISTOGRAM_MS: [u64; 4] = [1, 10, 100, 1000];

/// One of the slowest backend calls.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowQuery {
    pub time: Duration,
    pub kind: QueryKind,
    /// Constraints sent (after independence slicing).
    pub constraints: usize,
    /// `sat`, `unsat` or why it is unknown.
    pub answer: String,
}

/// How many of the slowest calls are kept.
const SLOWEST: usize = 5;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverStats {
    /// Feasibility questions asked by the engine.
    pub queries: u64,
    /// Questions that reached the backend.
    pub solver_calls: u64,
    /// Answered by the exact query cache.
    pub cache_hits: u64,
    /// Answered by a known model (the state's own or a recent one).
    pub cex_hits: u64,
    /// Backend answers that were neither sat nor unsat.
    pub unknowns: u64,
    pub solver_time: Duration,
    /// Path constraints left out of queries because they share no symbol
    /// with the question (independence).
    pub sliced_away: u64,
    /// Per [`QueryKind`] (indexed by its position in `QueryKind::ALL`).
    pub by_kind: [KindStats; 4],
    /// Backend calls per time bucket (see [`HISTOGRAM_MS`]).
    pub histogram: [u64; 5],
    /// The slowest backend calls, slowest first.
    pub slowest: Vec<SlowQuery>,
}

impl SolverStats {
    fn kind(&mut self, k: QueryKind) -> &mut KindStats {
        &mut self.by_kind[k as usize]
    }

    /// Adds another solver's statistics to these (an engine that keeps a
    /// second solver for one kind of query reports one total).
    pub fn absorb(&mut self, other: &SolverStats) {
        self.queries += other.queries;
        self.solver_calls += other.solver_calls;
        self.cache_hits += other.cache_hits;
        self.cex_hits += other.cex_hits;
        self.unknowns += other.unknowns;
        self.solver_time += other.solver_time;
        self.sliced_away += other.sliced_away;
        for (a, b) in self.by_kind.iter_mut().zip(&other.by_kind) {
            a.queries += b.queries;
            a.trivial += b.trivial;
            a.cache_hits += b.cache_hits;
            a.cex_hits += b.cex_hits;
            a.subset_hits += b.subset_hits;
            a.solver_calls += b.solver_calls;
            a.solver_unsat += b.solver_unsat;
            a.solver_time += b.solver_time;
            a.simplex_tries += b.simplex_tries;
            a.simplex_sat += b.simplex_sat;
            a.simplex_time += b.simplex_time;
            a.simplex_skipped += b.simplex_skipped;
            a.cores_missed += b.cores_missed;
            a.difference_unsat += b.difference_unsat;
            a.difference_sat += b.difference_sat;
            a.difference_time += b.difference_time;
            a.difference_skipped += b.difference_skipped;
            a.search_tries += b.search_tries;
            a.search_sat += b.search_sat;
            a.search_time += b.search_time;
            a.helper_answers += b.helper_answers;
            a.enumerate_sat += b.enumerate_sat;
            a.enumerate_unsat += b.enumerate_unsat;
            a.enumerate_time += b.enumerate_time;
            a.orders_sat += b.orders_sat;
            a.orders_unsat += b.orders_unsat;
            a.orders_time += b.orders_time;
            a.orders_gave_up += b.orders_gave_up;
            a.cdcl_sat += b.cdcl_sat;
            a.cdcl_unsat += b.cdcl_unsat;
            a.cdcl_time += b.cdcl_time;
            a.pinned_unsat += b.pinned_unsat;
            a.units_unsat += b.units_unsat;
            a.intervals_unsat += b.intervals_unsat;
            a.enumerate_skipped += b.enumerate_skipped;
        }
        for (a, b) in self.histogram.iter_mut().zip(&other.histogram) {
            *a += b;
        }
        self.slowest.extend(other.slowest.iter().cloned());
        self.slowest.sort_by_key(|q| std::cmp::Reverse(q.time));
        self.slowest.truncate(SLOWEST);
    }
}

pub struct QuerySolver {
    backend: Box<dyn Solver>,
    /// Sorted constraint sets and their answer (`None`: unsat).
    cache: FxHashMap<Box<[TermId]>, Option<Model>>,
    recent: VecDeque<Model>,
    /// Known unsat constraint sets (the backend's unsat cores, sorted),
    /// indexed by their smallest constraint: a query containing one is unsat.
    cores: FxHashMap<TermId, Vec<Core>>,
    core_count: usize,
    use_cores: bool,
    /// Whether merged states' questions get cores from the backend too.
    merge_cores: bool,
    /// The constraints that made the last unsat answer unsat (a core, or the
    /// whole set).
    last_core: Vec<TermId>,
    /// Where every backend call is written as SMT-LIB, and how many were.
    dump: Option<(std::path::PathBuf, u64)>,
    pub stats: SolverStats,
    /// Send only the constraints that share symbols with the query.
    pub independence: bool,
    /// Use the query and counterexample caches.
    pub caching: bool,
    /// What the next questions are for (statistics only).
    pub kind: QueryKind,
    /// Ask braid's simplex before the backend.
    simplex: bool,
    /// Whether the simplex is asked, per kind of question ([`Gate`]).
    gates: [Gate; 4],
    /// The search of orderings' (crate::orders), likewise.
    orders_gates: [Gate; 4],
    /// The difference bounds', likewise.
    difference_gates: [Gate; 4],
    /// Trying every value's, per question kind ([`CostGate`]).
    enumerate_gates: [CostGate; 4],
    /// Constraints' values under their symbols' values, kept for the
    /// trying of every value (crate::enumerate).
    tables: crate::enumerate::Tables,
    /// A question that only compares and that the search of orderings gave
    /// up on is answered unknown rather than asked of the backend: set by
    /// ssm and dsm for a merged state's branch question, where unknown
    /// splits the state back into its parts.
    pub split_hard: bool,
    /// Whether questions over floats go to XSat's search before the
    /// backend: once a backend call on one took [`SLOW_FLOATS`] or more.
    float_search: bool,
}

/// Whether one of braid's own procedures (the simplex, the search of
/// orderings) is asked before the backend: always, while it pays. Once it
/// has taken [`Gate::FREE`] or been asked [`Gate::TRIES`] questions, it
/// does not pay while its time per answer is
/// more than [`Gate::COST_RATIO`] times that of what the same kind of
/// question goes to when it does not answer (the procedures after it and
/// the backend: [`KindStats::after_simplex`]; or, before any of those has
/// answered, while it has answered fewer than one question in
/// [`Gate::RATIO`]); then each
/// question it is asked skips it for the next 1, 2, 4, … up to
/// [`Backoff::MAX_SKIP`] questions, and once it pays again it is asked
/// every question. On hash tables (khash, benhoyt/ht, rxi/map: chains of
/// choices over `hash & mask`) the simplex took 6-8 ms per question and
/// answered 0 to 3 in 650, a fifth of dse's run; on rxi/microtar's header
/// reader (`sscanf("%o")` of symbolic bytes) it answered 8 of 226 in
/// 1 010 ms, 126 ms an answer where Z3 took 7 ms a call, since each answer
/// had started the back-off over; on sheredom/utf8.h's decoder it answered
/// 8 of 224 in 862 ms, where trying every value answered the others at
/// 2.5 ms each and Z3 was called once (55 ms); on the containers and parsers it
/// answers most questions and is never skipped. A search of orderings that
/// runs out of budget takes 40-90 ms, where Z3 may answer in one or two.
#[derive(Default)]
struct Gate {
    tries: u64,
    sat: u64,
    time: Duration,
    skips: Backoff,
}

impl Gate {
    const FREE: Duration = Duration::from_millis(250);
    /// Questions after which it is judged however little time it took: on
    /// a codebook decoder (antirez/smaz's, over 2 bytes under dse) the
    /// difference bounds answered none of the 2 600 branch questions they
    /// were asked before they had taken `FREE`.
    const TRIES: u64 = 64;
    /// The most questions one costly try lets by ([`Gate::tried`]).
    const MAX_COST_SKIP: u128 = 4096;
    const RATIO: u64 = 16;
    const COST_RATIO: u32 = 4;

    /// Whether to ask it this question.
    fn open(&mut self) -> bool {
        !self.skips.skipping()
    }

    /// It was asked a question and took `took`, and answered it or not;
    /// `others` is the answers and time so far of what the kind's
    /// questions go to when it does not answer.
    fn tried(&mut self, found: bool, took: Duration, others: (u64, Duration)) {
        self.tries += 1;
        self.time += took;
        self.sat += u64::from(found);
        let costly = (self.time > Self::FREE || self.tries >= Self::TRIES)
            && match others {
                (0, _) => self.sat * Self::RATIO < self.tries,
                (answers, time) => {
                    let per_answer = self.time / self.sat.clamp(1, u64::from(u32::MAX)) as u32;
                    per_answer > time / answers.min(u64::from(u32::MAX)) as u32 * Self::COST_RATIO
                }
            };
        if costly {
            self.skips.back_off();
            // A try that took as long as the others take for many answers
            // lets as many questions by: on the decoder the difference
            // bounds took up to 90 ms a try on merged cells' choices, 1.1
            // s of a 9 s run at one try in 65.
            if let (answers @ 1.., time) = others {
                let per_answer = time.as_nanos() / u128::from(answers);
                let skip = took.as_nanos() / per_answer.max(1);
                self.skips.skip = self.skips.skip.max(skip.min(Self::MAX_COST_SKIP) as u32);
            }
        } else {
            self.skips.reset();
        }
    }
}

/// The questions a gate lets by a procedure that did not pay: 1, then 2,
/// 4, … up to [`Backoff::MAX_SKIP`] at a time, from 1 again once it pays.
#[derive(Default)]
struct Backoff {
    backoff: u32,
    skip: u32,
}

impl Backoff {
    const MAX_SKIP: u32 = 64;

    /// Whether this question is one to let by (and counts it).
    fn skipping(&mut self) -> bool {
        let skipping = self.skip > 0;
        self.skip = self.skip.saturating_sub(1);
        skipping
    }

    /// The procedure did not pay: the next run of questions let by, twice
    /// as long as the last.
    fn back_off(&mut self) {
        self.backoff = (self.backoff * 2).clamp(1, Self::MAX_SKIP);
        self.skip = self.backoff;
    }

    fn reset(&mut self) {
        self.backoff = 0;
    }
}

/// Whether trying every value pays for one kind of question, against what
/// the backend costs it. A question it does not decide has used up its
/// work bound first: on semver.c's harness under ssm, merged states'
/// questions over two bytes, 1 500 nodes, took 70-220 ms each to give up
/// and 100 ms per answer in all, where Z3 took 13 ms a call (10 of an 18 s
/// run). Once it has spent [`CostGate::FREE`], while its time per answer
/// is more than [`CostGate::RATIO`] times the backend's per call, the next
/// questions of the kind skip it (1, 2, 4, … up to [`Backoff::MAX_SKIP`],
/// as [`Gate`] backs off); its answers are counted as they come, so a
/// procedure that pays again is asked again.
#[derive(Default)]
struct CostGate {
    skips: Backoff,
}

impl CostGate {
    const FREE: Duration = Duration::from_millis(500);
    const RATIO: u32 = 4;

    /// Whether to ask it this question of a kind with statistics `k`.
    fn open(&mut self, k: &KindStats) -> bool {
        if self.skips.skipping() {
            return false;
        }
        let answers = (k.enumerate_sat + k.enumerate_unsat).max(1) as u32;
        let calls = k.solver_calls.max(1) as u32;
        let costly = k.enumerate_time > Self::FREE
            && k.solver_calls > 0
            && k.enumerate_time / answers > k.solver_time / calls * Self::RATIO;
        if costly {
            self.skips.back_off();
        } else {
            self.skips.reset();
        }
        true
    }
}

impl QuerySolver {
    pub fn new(backend: Box<dyn Solver>) -> QuerySolver {
        QuerySolver {
            backend,
            cache: FxHashMap::default(),
            recent: VecDeque::new(),
            cores: FxHashMap::default(),
            core_count: 0,
            use_cores: true,
            merge_cores: true,
            last_core: Vec::new(),
            dump: None,
            stats: SolverStats::default(),
            independence: true,
            caching: true,
            kind: QueryKind::Branch,
            simplex: true,
            gates: Default::default(),
            orders_gates: Default::default(),
            difference_gates: Default::default(),
            enumerate_gates: Default::default(),
            tables: Default::default(),
            split_hard: false,
            float_search: false,
        }
    }

    /// Ask braid's simplex (with abstraction refinement) for a model before
    /// the backend. On by default.
    pub fn set_simplex(&mut self, on: bool) {
        self.simplex = on;
    }

    /// Keep the backend's unsat cores and answer a query that contains one
    /// as unsat without a call (KLEE's subset rule). On by default.
    pub fn set_unsat_cores(&mut self, on: bool) {
        self.backend.set_cores(on);
        self.use_cores = on;
        if !on {
            self.cores.clear();
            self.core_count = 0;
        }
    }

    /// Whether an unsat answer to a merged state's question
    /// ([`QueryKind::Merge`]) asks the backend for a core (on by default;
    /// the whole set is kept otherwise). A core costs a second check about
    /// as long as the question (the constraints again, as assumptions), and
    /// pays only where later questions contain it.
    pub fn set_merge_cores(&mut self, on: bool) {
        self.merge_cores = on;
    }

    /// Write every backend call to `dir` as an SMT-LIB 2 file
    /// (`q000001.smt2`, …) with braid's answer and time in a comment and
    /// `:status`, for replaying the log through other solvers.
    pub fn dump_queries(&mut self, dir: std::path::PathBuf) {
        self.dump = Some((dir, 0));
    }

    fn write_dump(&mut self, store: &TermStore, set: &[TermId], answer: &SatResult, took: Duration) {
        // braid's own script, a definition per term, is linear in the
        // question's size; Z3's printer spelled a question over an
        // expression evaluator's floats (tinyexpr over 6 bytes) for more
        // than 20 s, past the run's limit. Z3's where the script does not
        // write a term (arrays, addresses).
        let own = crate::external::assertions(store, set).map(|(text, _)| text);
        let Some(script) = own.or_else(|| self.backend.smtlib(store, set)) else {
            return;
        };
        let Some((dir, n)) = &mut self.dump else { return };
        *n += 1;
        let status = match answer {
            SatResult::Sat(_) => "sat",
            SatResult::Unsat => "unsat",
            SatResult::Unknown(_) => "unknown",
        };
        let text = format!(
            "; braid query {n}: {} question, {} constraints, Z3 answered {status} in {:.3} ms\n(set-info :status {status})\n{script}(check-sat)\n",
            self.kind.name(),
            set.len(),
            took.as_secs_f64() * 1e3
        );
        // A log that cannot be written is not a reason to stop exploring.
        let _ = std::fs::write(dir.join(format!("q{n:06}.smt2")), text);
    }

    /// Keep the constraints consecutive backend checks share asserted
    /// (Z3 push/pop). On by default.
    pub fn set_incremental(&mut self, on: bool) {
        self.backend.set_incremental(on);
    }

    /// A known unsat set contained in `set` (sorted)?
    fn unsat_subset(&self, set: &[TermId]) -> Option<&[TermId]> {
        if self.cores.is_empty() {
            return None;
        }
        let sig = signature(set);
        let mut tried = 0;
        for (i, first) in set.iter().enumerate() {
            let Some(cores) = self.cores.get(first) else { continue };
            for (core_sig, core) in cores {
                // A core with a term the set lacks is out at once.
                if core_sig & !sig == 0 && is_sorted_subset(&core[1..], &set[i + 1..]) {
                    return Some(core);
                }
                tried += 1;
                if tried >= CORE_TRIES {
                    return None;
                }
            }
        }
        None
    }

    /// After an `Unsat` answer: constraints of the question that are unsat
    /// together (an unsat core when one is known, else all of them).
    pub fn last_core(&self) -> &[TermId] {
        &self.last_core
    }

    fn remember_core(&mut self, mut core: Vec<TermId>) {
        core.sort_unstable();
        core.dedup();
        let Some(&first) = core.first() else { return };
        if self.core_count >= CORE_ENTRIES {
            self.cores.clear();
            self.core_count = 0;
        }
        self.core_count += 1;
        // Smaller cores first: they are the likelier subsets.
        let sig = signature(&core);
        let list = self.cores.entry(first).or_default();
        let at = list.partition_point(|(_, c)| c.len() <= core.len());
        list.insert(at, (sig, core.into_boxed_slice()));
    }

    /// No backend check runs past `deadline`.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.backend.set_deadline(deadline);
    }

    /// Each backend check gives up after `ms` milliseconds.
    pub fn set_timeout(&mut self, ms: Option<u32>) {
        self.backend.set_timeout(ms);
    }

    /// No backend check outlives the run's budget.
    pub fn set_budget(&mut self, budget: &braid_budget::Budget) {
        self.backend.set_budget(budget);
    }

    /// Whether `pc ∧ query` is satisfiable, where `pc` is known satisfiable
    /// and `hint` (if any) is a model of it. A `Sat` model covers the symbols
    /// of the constraints that were sent; since those share no symbol with the
    /// rest of `pc`, the hint overridden by it is a model of `pc ∧ query`.
    pub fn check(&mut self, store: &TermStore, pc: &[TermId], query: TermId, hint: Option<&Model>) -> SatResult {
        let mut memo = braid_term::EvalMemo::default();
        self.check_memo(store, pc, query, hint.map(|h| (h, &mut memo)))
    }

    /// [`QuerySolver::check`], the hint evaluated in `memo`: evaluations
    /// under that model kept from earlier calls. A path's conditions
    /// share their subterms, so a caller asking many questions under one
    /// model evaluates each subterm once (tinyexpr's `strtod` over one
    /// symbolic byte: terms of thousands of nodes, evaluated afresh at
    /// every branch).
    pub fn check_memo(
        &mut self,
        store: &TermStore,
        pc: &[TermId],
        query: TermId,
        hint: Option<(&Model, &mut braid_term::EvalMemo)>,
    ) -> SatResult {
        self.stats.queries += 1;
        let kind = self.kind;
        self.stats.kind(kind).queries += 1;
        match store.as_const(query) {
            Some(Value::Bool(false)) => {
                self.stats.kind(kind).trivial += 1;
                self.last_core = vec![query];
                return SatResult::Unsat;
            }
            Some(Value::Bool(true)) => {
                self.stats.kind(kind).trivial += 1;
                return SatResult::Sat(hint.map(|(h, _)| h.clone()).unwrap_or_default());
            }
            _ => {}
        }
        if let Some((h, memo)) = hint {
            if self.caching && store.eval_with(query, h, memo) == Ok(Value::Bool(true)) {
                self.stats.cex_hits += 1;
                self.stats.kind(kind).cex_hits += 1;
                return SatResult::Sat(h.clone());
            }
        }
        let mut set = if self.independence {
            let slice = independent_slice(store, pc, query);
            self.stats.sliced_away += (pc.len() - slice.len().min(pc.len())) as u64;
            slice
        } else {
            pc.to_vec()
        };
        if let Some(core) = pinned_refutation(store, &set, query) {
            self.stats.kind(kind).pinned_unsat += 1;
            set.push(query);
            set.sort_unstable();
            set.dedup();
            return self.refuted_by_own(set, core);
        }
        set.push(query);
        set.sort_unstable();
        set.dedup();
        self.solve_set(store, set)
    }

    /// A model of all of `pc`: each independent group of constraints is
    /// solved on its own (and cached), and the models are merged.
    pub fn model(&mut self, store: &TermStore, pc: &[TermId]) -> SatResult {
        self.stats.queries += 1;
        let kind = self.kind;
        self.stats.kind(kind).queries += 1;
        let mut merged = Model::default();
        for mut group in independent_groups(store, pc) {
            group.sort_unstable();
            group.dedup();
            match self.solve_set(store, group) {
                SatResult::Sat(m) => merged.extend(m),
                other => return other,
            }
        }
        SatResult::Sat(merged)
    }

    /// Whether `answer`, if it is a model, satisfies `set`. (A constraint
    /// that does not evaluate, e.g. a division by zero on a path it does
    /// not constrain, is not held against it.)
    fn model_holds(&self, store: &TermStore, set: &[TermId], answer: &SatResult) -> bool {
        let SatResult::Sat(m) = answer else {
            return true;
        };
        let mut memo = braid_term::EvalMemo::default();
        !set.iter()
            .any(|c| store.eval_with(*c, m, &mut memo) == Ok(Value::Bool(false)))
    }

    /// A model of `set` that braid's own procedure (simplex, search) found:
    /// cached as the backend's would be, and the answer.
    fn answered_by_own(&mut self, set: Vec<TermId>, m: Model) -> SatResult {
        if self.caching {
            self.remember(set, Some(m.clone()));
        }
        SatResult::Sat(m)
    }

    /// `set` proved unsat by one of braid's own procedures (difference
    /// bounds, trying every value), with `core`.
    fn refuted_by_own(&mut self, set: Vec<TermId>, core: Vec<TermId>) -> SatResult {
        self.last_core = core;
        if self.use_cores {
            self.remember_core(self.last_core.clone());
        }
        self.remember(set, None);
        SatResult::Unsat
    }

    /// The answer of a procedure that tries assignments (crate::enumerate,
    /// crate::orders), counted by `count(stats, sat)`: a model only if it
    /// satisfies `set`.
    fn own_answer(
        &mut self,
        store: &TermStore,
        set: &[TermId],
        found: crate::enumerate::Found,
        count: impl FnOnce(&mut KindStats, bool),
    ) -> Option<SatResult> {
        match found {
            crate::enumerate::Found::Sat(m) => {
                let m = satisfying(store, set, m)?;
                count(self.stats.kind(self.kind), true);
                Some(self.answered_by_own(set.to_vec(), m))
            }
            crate::enumerate::Found::Unsat(core) => {
                count(self.stats.kind(self.kind), false);
                Some(self.refuted_by_own(set.to_vec(), core))
            }
            crate::enumerate::Found::Nothing => None,
        }
    }

    /// The answer of clause learning over difference bounds, if it has one
    /// (unknown where it gave up on a merged state's question).
    fn by_clauses(&mut self, store: &TermStore, set: &[TermId]) -> Option<SatResult> {
        let start = Instant::now();
        let (found, gave_up) = crate::cdcl::decide(store, set);
        self.stats.kind(self.kind).cdcl_time += start.elapsed();
        if gave_up && self.split_hard {
            return Some(self.split_instead("clause learning"));
        }
        let count = |k: &mut KindStats, sat: bool| match sat {
            true => k.cdcl_sat += 1,
            false => k.cdcl_unsat += 1,
        };
        self.own_answer(store, set, found, count)
    }

    /// The difference bounds answered a question of the current kind or
    /// not, in `took`; what answers otherwise is the simplex and what
    /// follows it.
    fn difference_tried(&mut self, found: bool, took: Duration) {
        let kind = self.kind as usize;
        let k = &self.stats.by_kind[kind];
        let (answers, time) = k.after_simplex();
        let others = (answers + k.simplex_sat, time + k.simplex_time);
        self.difference_gates[kind].tried(found, took, others);
    }

    /// The answer of the search of orderings, if it has one, while the
    /// search pays (unknown where it gave up on a merged state's question).
    fn by_orders(&mut self, store: &TermStore, set: &[TermId]) -> Option<SatResult> {
        let kind = self.kind as usize;
        if !self.orders_gates[kind].open() {
            return None;
        }
        let start = Instant::now();
        let (found, gave_up) = crate::orders::decide(store, set);
        let took = start.elapsed();
        let others = self.stats.by_kind[kind].after_orders();
        self.orders_gates[kind].tried(found != crate::orders::Found::Nothing, took, others);
        self.stats.kind(self.kind).orders_time += took;
        if gave_up && self.split_hard {
            return Some(self.split_instead("the search of orderings"));
        }
        let count = |k: &mut KindStats, sat: bool| match sat {
            true => k.orders_sat += 1,
            false => k.orders_unsat += 1,
        };
        self.own_answer(store, set, found, count)
    }

    /// Unknown for a merged state's question that `procedure` gave up on:
    /// the state splits ([`QuerySolver::split_hard`]).
    fn split_instead(&mut self, procedure: &str) -> SatResult {
        self.stats.kind(self.kind).orders_gave_up += 1;
        SatResult::Unknown(format!("{procedure} gave up on a merged state's question"))
    }

    fn remember(&mut self, set: Vec<TermId>, answer: Option<Model>) {
        if self.cache.len() >= CACHE_ENTRIES {
            self.cache.clear();
        }
        self.cache.insert(set.into_boxed_slice(), answer);
    }

    fn solve_set(&mut self, store: &TermStore, set: Vec<TermId>) -> SatResult {
        if self.caching {
            if let Some(answer) = self.cache.get(set.as_slice()).cloned() {
                self.stats.cache_hits += 1;
                self.stats.by_kind[self.kind as usize].cache_hits += 1;
                if answer.is_none() {
                    self.last_core = self.unsat_subset(&set).map_or(set, |core| core.to_vec());
                }
                return answer.map_or(SatResult::Unsat, SatResult::Sat);
            }
            // A known core first: it costs a few lookups, a model a full
            // evaluation, and most queries the backend sees are unsat.
            if let Some(core) = self.unsat_subset(&set).filter(|_| self.use_cores) {
                self.last_core = core.to_vec();
                self.stats.kind(self.kind).subset_hits += 1;
                self.remember(set, None);
                return SatResult::Unsat;
            }
            // A reused model is cut down to the set's symbols: its values for
            // other symbols belong to other paths and would override the
            // caller's model where it must not change.
            let reuse = self
                .recent
                .iter()
                .find(|m| store.satisfies(&set, m))
                .map(|m| project(store, &set, m));
            if let Some(m) = reuse {
                self.stats.cex_hits += 1;
                self.stats.kind(self.kind).cex_hits += 1;
                self.remember(set, Some(m.clone()));
                return SatResult::Sat(m);
            }
        }
        // Comparisons that contradict one another through difference bounds
        // (crate::difference): unsat with a minimal core, no backend call; or
        // a model of a case they leave standing, tried after the simplex.
        let mut candidate = None;
        if self.simplex && self.caching {
            // A side's literal that makes a merged constraint false
            // (crate::units).
            if let Some(core) = crate::units::refutation(store, &set) {
                self.stats.kind(self.kind).units_unsat += 1;
                return self.refuted_by_own(set, core);
            }
            // A merged state's questions need the deepest searches. While
            // they pay: on yxml's tokenizer over 5 symbolic bytes under dse
            // they took 28 % of the run and answered none of 34 680
            // questions.
            let limit = match self.kind {
                QueryKind::Merge | QueryKind::LoopMerge => crate::difference::MAX_CHECKS,
                QueryKind::Branch | QueryKind::BugCheck => crate::difference::MAX_PLAIN_CHECKS,
            };
            if self.difference_gates[self.kind as usize].open() {
                let start = Instant::now();
                let found = crate::difference::check_within(store, &set, limit);
                let took = start.elapsed();
                self.stats.kind(self.kind).difference_time += took;
                match found {
                    crate::difference::Found::Unsat(core) => {
                        self.difference_tried(true, took);
                        self.stats.kind(self.kind).difference_unsat += 1;
                        return self.refuted_by_own(set, core);
                    }
                    // Whether it paid is known once the candidate is tried.
                    crate::difference::Found::Candidate(m) => candidate = Some((m, took)),
                    crate::difference::Found::Nothing => self.difference_tried(false, took),
                }
            } else {
                self.stats.kind(self.kind).difference_skipped += 1;
            }
        }
        // Braid's simplex with abstraction refinement first (§3.2–3.3 of
        // seed 002): a model it finds is checked, and most sat questions on
        // machine integers and table lookups need no backend call.
        if self.simplex && self.gates[self.kind as usize].open() {
            let start = Instant::now();
            let linear =
                crate::partial::solve_linear(store, &set, &Model::default(), crate::simplex::Limits::default());
            let found = linear.solution.and_then(|m| satisfying(store, &set, m));
            let took = start.elapsed();
            let k = self.stats.kind(self.kind);
            k.simplex_tries += 1;
            k.simplex_time += took;
            let others = k.after_simplex();
            self.gates[self.kind as usize].tried(found.is_some(), took, others);
            if let Some(m) = found {
                k.simplex_sat += 1;
                // A candidate of the difference bounds was not needed.
                if let Some((_, took)) = candidate {
                    self.difference_tried(false, took);
                }
                return self.answered_by_own(set, m);
            }
        } else if self.simplex {
            self.stats.kind(self.kind).simplex_skipped += 1;
        }
        if let Some((m, took)) = candidate {
            let found = satisfying(store, &set, m);
            self.difference_tried(found.is_some(), took);
            if let Some(m) = found {
                self.stats.kind(self.kind).difference_sat += 1;
                return self.answered_by_own(set, m);
            }
        }
        // A few input bits: every value tried (crate::enumerate), while it
        // pays.
        let kind = self.kind as usize;
        if self.simplex && self.caching {
            if self.enumerate_gates[kind].open(&self.stats.by_kind[kind]) {
                let start = Instant::now();
                let k = &self.stats.by_kind[kind];
                let per_call = match k.solver_calls {
                    0 => Duration::ZERO,
                    n => k.solver_time / n.min(u64::from(u32::MAX)) as u32,
                };
                let easy = crate::enumerate::easy_bound(per_call);
                let found = crate::enumerate::check_kept(store, &set, &mut self.tables, easy);
                self.stats.kind(self.kind).enumerate_time += start.elapsed();
                let count = |k: &mut KindStats, sat: bool| match sat {
                    true => k.enumerate_sat += 1,
                    false => k.enumerate_unsat += 1,
                };
                if let Some(answer) = self.own_answer(store, &set, found, count) {
                    return answer;
                }
            } else {
                self.stats.kind(self.kind).enumerate_skipped += 1;
            }
            // Formulas over comparisons: clause learning over difference
            // bounds (crate::cdcl) and the search of orderings
            // (crate::orders), the search first where a question has few
            // symbols: up to 6 have at most 4 683 orderings (swenson/sort's
            // merge sort of 6 ints under ssm: 0.6 ms a question against
            // 4 ms), past them their number grows 10 times a symbol (the
            // priority queue's 10 under ssm: the search gave up on 16 of 54
            // after 40-75 ms each, clause learning decides each in a
            // millisecond). A merged state's question that either gives up
            // on splits the state.
            let few = {
                let mut syms: Vec<SymId> = set.iter().flat_map(|c| store.symbols(*c).iter().copied()).collect();
                syms.sort_unstable();
                syms.dedup();
                syms.len() <= FEW_SYMBOLS
            };
            for orders in [few, !few] {
                let answer = match orders {
                    true => self.by_orders(store, &set),
                    false => self.by_clauses(store, &set),
                };
                if let Some(answer) = answer {
                    return answer;
                }
            }
        }
        // Floating point: XSat's search (crate::optimize) before Z3, once Z3
        // has taken seconds on a question over floats. Not from the start:
        // Z3 decides the unsat questions that follow sat ones faster when it
        // has solved those itself (bench/sv/float_half.c: 10 s, against 27 s
        // when the search took its first question). Only a model that
        // satisfies every constraint is taken.
        let floats = self.simplex && mentions_floats(store, &set);
        if floats && self.float_search {
            let start = Instant::now();
            let limits = crate::optimize::Limits { evaluations: 20_000 };
            // From the recent models too: the state's own input satisfies
            // the path's prefix, which is most of a branch question.
            let starts: Vec<Model> = std::iter::once(Model::default())
                .chain(self.recent.iter().cloned())
                .collect();
            let res = crate::optimize::minimize_from(store, &set, &starts, limits);
            let found = res.solution.and_then(|m| satisfying(store, &set, m));
            let k = self.stats.kind(self.kind);
            k.search_tries += 1;
            k.search_time += start.elapsed();
            if let Some(m) = found {
                k.search_sat += 1;
                return self.answered_by_own(set, m);
            }
        }
        // Arithmetic that bounds keep from wrapping (a decimal number read
        // digit by digit, each step at most 65535): last before the
        // backend, since it answers few of the questions the others do.
        if self.simplex && self.caching {
            if let Some(core) = crate::intervals::refutation(store, &set) {
                self.stats.kind(self.kind).intervals_unsat += 1;
                return self.refuted_by_own(set, core);
            }
        }
        self.stats.solver_calls += 1;
        let core_wanted = self.use_cores && (self.merge_cores || self.kind != QueryKind::Merge);
        self.backend.set_cores(core_wanted);
        let start = Instant::now();
        let mut answer = self.backend.check(store, &set);
        let took = start.elapsed();
        if floats && took >= SLOW_FLOATS {
            self.float_search = true;
        }
        if self.dump.is_some() {
            self.write_dump(store, &set, &answer, took);
        }
        self.stats.solver_time += took;
        let kind = self.kind;
        let k = self.stats.kind(kind);
        k.solver_calls += 1;
        k.solver_time += took;
        if answer == SatResult::Unsat {
            k.solver_unsat += 1;
        }
        if self.backend.helper_answered() {
            k.helper_answers += 1;
        }
        let ms = took.as_millis() as u64;
        let bucket = HISTOGRAM_MS.iter().position(|b| ms < *b).unwrap_or(HISTOGRAM_MS.len());
        self.stats.histogram[bucket] += 1;
        // A model is checked before it is trusted: a backend interrupted at
        // the wrong moment (or wrong) must not make a test that does not
        // replay. Z3's kept (incremental) solver has answered sat, with a
        // model that breaks the question, to questions a fresh solver
        // proves unsat (bench/multise's kadane under dse, with two other
        // runs on the machine: 1-2 questions per run): the question is
        // asked once more on a fresh solver, and what that says stands.
        if !self.model_holds(store, &set, &answer) {
            self.backend.reset();
            let start = Instant::now();
            answer = self.backend.check(store, &set);
            let again = start.elapsed();
            self.stats.solver_time += again;
            self.stats.kind(kind).solver_time += again;
            if !self.model_holds(store, &set, &answer) {
                answer = SatResult::Unknown("the solver's model does not satisfy the query".into());
            }
        }
        let slow = &mut self.stats.slowest;
        if slow.len() < SLOWEST || slow.last().is_some_and(|q| q.time < took) {
            let answer = match &answer {
                SatResult::Sat(_) => "sat".to_string(),
                SatResult::Unsat => "unsat".to_string(),
                SatResult::Unknown(why) => format!("unknown: {why}"),
            };
            slow.push(SlowQuery {
                time: took,
                kind,
                constraints: set.len(),
                answer,
            });
            slow.sort_by_key(|q| std::cmp::Reverse(q.time));
            slow.truncate(SLOWEST);
        }
        match &answer {
            SatResult::Sat(m) if self.caching => {
                self.remember(set, Some(m.clone()));
                if self.recent.len() == RECENT_MODELS {
                    self.recent.pop_back();
                }
                self.recent.push_front(m.clone());
            }
            SatResult::Unsat if self.caching => {
                self.last_core = set.clone();
                if self.use_cores {
                    match self.backend.unsat_core() {
                        Some(core) => self.last_core = core,
                        None if core_wanted => self.stats.kind(self.kind).cores_missed += 1,
                        None => {}
                    }
                    self.remember_core(self.last_core.clone());
                }
                self.remember(set, None);
            }
            SatResult::Unsat => {
                self.last_core = self.backend.unsat_core().unwrap_or_else(|| set.clone());
            }
            SatResult::Unknown(_) => self.stats.unknowns += 1,
            _ => {}
        }
        answer
    }
}

/// `m` from one of braid's own procedures, if it satisfies `set`. Every
/// symbol of the set gets its value (those `m` does not set take their
/// default, as evaluation gave them): the caller's model must not fill them
/// in otherwise.
fn satisfying(store: &TermStore, set: &[TermId], mut m: Model) -> Option<Model> {
    for c in set {
        for &x in store.symbols(*c) {
            m.entry(x).or_insert_with(|| Value::default_of(store.symbol(x).sort));
        }
    }
    store.satisfies(set, &m).then_some(m)
}

/// A backend call on floats this slow turns XSat's search on for the run.
const SLOW_FLOATS: Duration = Duration::from_secs(1);

/// Whether a symbol of `set` is a float.
fn mentions_floats(store: &TermStore, set: &[TermId]) -> bool {
    set.iter()
        .flat_map(|c| store.symbols(*c))
        .any(|s| matches!(store.symbol(*s).sort, braid_term::Sort::F32 | braid_term::Sort::F64))
}

/// One bit per term (of 64, by a hash of its number): a set's signature
/// has every bit its subsets' have.
fn signature(set: &[TermId]) -> u64 {
    set.iter().fold(0, |sig, t| {
        sig | 1 << ((t.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
    })
}

/// Whether every element of sorted `a` is in sorted `b`.
fn is_sorted_subset(a: &[TermId], b: &[TermId]) -> bool {
    let mut rest = b;
    for x in a {
        match rest.binary_search(x) {
            Ok(i) => rest = &rest[i + 1..],
            Err(_) => return false,
        }
    }
    true
}

/// `model` restricted to the symbols `constraints` mention, with the default
/// value made explicit for those it leaves out (evaluation used it, and the
/// caller's model may hold another value there).
fn project(store: &TermStore, constraints: &[TermId], model: &Model) -> Model {
    constraints
        .iter()
        .flat_map(|c| store.symbols(*c).iter())
        .map(|s| {
            (
                *s,
                model
                    .get(s)
                    .copied()
                    .unwrap_or_else(|| Value::default_of(store.symbol(*s).sort)),
            )
        })
        .collect()
}

/// The constraints of `pc` transitively sharing a symbol with `query`.
/// A core of `pc` and `query` when `pc` pins every symbol of the query to
/// a value (a constraint `x == 46`, `b` or `not b`) and the query is false
/// under those values: the pins and the query. A parser that matched a
/// byte against a table (`c == '.'`) asks about the same byte at every
/// later branch; on semver.c's harness these were most of dse's branch
/// questions, each sliced, looked up and decided by trying every value.
fn pinned_refutation(store: &TermStore, pc: &[TermId], query: TermId) -> Option<Vec<TermId>> {
    let syms = store.symbols(query);
    if syms.is_empty() || syms.len() > 4 {
        return None;
    }
    let mut pins: SmallVec<[(SymId, Value, TermId); 4]> = SmallVec::new();
    // A float equal to a constant is not pinned to it: IEEE equality holds
    // between 0.0 and -0.0, which other operations tell apart.
    let sym_of = |t: TermId| match store.node(t) {
        Node::Sym(s) if syms.contains(s) && matches!(store.sort(t), Sort::Bool | Sort::Bv(_) | Sort::Int) => Some(*s),
        _ => None,
    };
    for &c in pc {
        let pin = match store.node(c) {
            Node::Sym(s) if syms.contains(s) => Some((*s, Value::Bool(true))),
            Node::App(Op::Not, args) => sym_of(args[0]).map(|s| (s, Value::Bool(false))),
            Node::App(Op::Eq, args) => match (sym_of(args[0]), sym_of(args[1])) {
                (Some(s), None) => store.as_const(args[1]).map(|v| (s, v)),
                (None, Some(s)) => store.as_const(args[0]).map(|v| (s, v)),
                _ => None,
            },
            _ => None,
        };
        if let Some((s, v)) = pin {
            if !pins.iter().any(|p| p.0 == s) {
                pins.push((s, v, c));
            }
        }
    }
    if pins.len() < syms.len() {
        return None;
    }
    let model: Model = pins.iter().map(|&(s, v, _)| (s, v)).collect();
    if store.eval(query, &model) != Ok(Value::Bool(false)) {
        return None;
    }
    let mut core: Vec<TermId> = pins.iter().map(|p| p.2).collect();
    core.push(query);
    core.sort_unstable();
    core.dedup();
    Some(core)
}

fn independent_slice(store: &TermStore, pc: &[TermId], query: TermId) -> Vec<TermId> {
    let mut syms: FxHashSet<SymId> = store.symbols(query).iter().copied().collect();
    let mut chosen = vec![false; pc.len()];
    loop {
        let mut changed = false;
        for (i, &c) in pc.iter().enumerate() {
            if !chosen[i] && store.symbols(c).iter().any(|s| syms.contains(s)) {
                chosen[i] = true;
                syms.extend(store.symbols(c).iter().copied());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    pc.iter().zip(chosen).filter(|(_, k)| *k).map(|(c, _)| *c).collect()
}

/// `pc` split into groups that share no symbol across groups.
fn independent_groups(store: &TermStore, pc: &[TermId]) -> Vec<Vec<TermId>> {
    let mut groups: Vec<(FxHashSet<SymId>, Vec<TermId>)> = Vec::new();
    for &c in pc {
        let syms: FxHashSet<SymId> = store.symbols(c).iter().copied().collect();
        let (touching, mut rest): (Vec<_>, Vec<_>) = groups.into_iter().partition(|(s, _)| !s.is_disjoint(&syms));
        let mut merged = (syms, vec![c]);
        for (s, cs) in touching {
            merged.0.extend(s);
            merged.1.extend(cs);
        }
        rest.push(merged);
        groups = rest;
    }
    groups.into_iter().map(|(_, cs)| cs).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Z3Solver;
    use braid_term::{Op, Sort};

    /// The simplex is asked every question while it is cheap or pays;
    /// past its free time or its first 64 questions, while it does not,
    /// each question skips it for 1, 2, 4, … questions (at most 64), or as
    /// many as the others answer in the time its try took; once it pays,
    /// it is asked again.
    #[test]
    fn the_simplex_is_skipped_while_it_does_not_pay() {
        let slow = Duration::from_millis(10);
        let none = (0, Duration::ZERO);
        let mut gate = Gate::default();
        // 25 failures of 10 ms are within the free time: always asked.
        for _ in 0..25 {
            assert!(gate.open());
            gate.tried(false, slow, none);
        }
        // Past it: each failure skips it for twice as many questions as
        // the last, up to 64.
        let runs = |gate: &mut Gate, found: &dyn Fn(usize) -> bool, others| {
            let (mut runs, mut run) = (Vec::new(), 0);
            for i in 0..400 {
                if gate.open() {
                    gate.tried(found(i), slow, others);
                    if run > 0 {
                        runs.push(run);
                    }
                    run = 0;
                } else {
                    run += 1;
                }
            }
            runs
        };
        assert_eq!(runs(&mut gate, &|_| false, none)[..8], [1, 2, 4, 8, 16, 32, 64, 64]);
        // Before anything after it has answered: one answer in 16
        // questions or more keeps it asked.
        let mut good = Gate::default();
        for i in 0..200 {
            assert!(good.open());
            good.tried(i % 8 == 0, slow, none);
        }
        // Once what comes after it has answered: its time per answer (here
        // 20 ms) against 4 times theirs.
        let mut cheap = Gate::default();
        let others = (10, 10 * Duration::from_millis(6));
        assert!(runs(&mut cheap, &|i| i % 2 == 0, others).is_empty());
        // A try of 10 ms where the others take 4 ms an answer lets two
        // questions by at least.
        let mut costly = Gate::default();
        let others = (10, 10 * Duration::from_millis(4));
        assert_eq!(runs(&mut costly, &|i| i % 2 == 0, others)[..3], [2, 2, 4]);
        // Quick failures are judged after 64 questions, within the free
        // time; one that took as long as 300 of the others' answers lets
        // 300 questions by.
        let mut quick = Gate::default();
        let quick_others = (100, 100 * Duration::from_micros(10));
        for _ in 0..63 {
            assert!(quick.open());
            quick.tried(false, Duration::from_micros(100), quick_others);
        }
        assert!(quick.open());
        quick.tried(false, Duration::from_millis(3), quick_others);
        let skipped = (0..1000).take_while(|_| !quick.open()).count();
        assert_eq!(skipped, 300);
    }

    /// The difference bounds answer while they pay; once they have cost
    /// more than their free time without answering where the simplex did,
    /// questions skip them (and are still answered).
    #[test]
    fn difference_bounds_are_skipped_while_they_do_not_pay() {
        let mut s = TermStore::new();
        let [a, b, c, d, e, f] = ["a", "b", "c", "d", "e", "f"].map(|n| s.symbol_term(n, Sort::Bv(32)));
        let cycle = |s: &mut TermStore, x, y, z| [(x, y), (y, z), (z, x)].map(|(l, r)| s.app(Op::Lt, &[l, r]).unwrap());
        let first = cycle(&mut s, a, b, c);
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        assert_eq!(q.model(&s, &first), SatResult::Unsat);
        assert_eq!(q.stats.by_kind[0].difference_unsat, 1);
        // 300 ms of tries that answered nothing, where the simplex answered
        // ten questions in 10 ms.
        let k = &mut q.stats.by_kind[0];
        (k.simplex_sat, k.simplex_time) = (10, Duration::from_millis(10));
        q.difference_tried(false, Duration::from_millis(300));
        let second = cycle(&mut s, d, e, f);
        assert_eq!(q.model(&s, &second), SatResult::Unsat);
        let k = &q.stats.by_kind[0];
        assert_eq!((k.difference_unsat, k.difference_skipped), (1, 1));
    }

    /// A query solver whose sat questions reach Z3 (these tests count
    /// backend calls; braid's simplex would answer first).
    fn backend_only() -> QuerySolver {
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        q.set_simplex(false);
        q
    }

    /// A backend whose kept state has gone wrong: it answers sat with a
    /// model of zeros until it is reset, and then asks Z3.
    struct Stale {
        stale: bool,
        z3: Z3Solver,
    }

    impl Solver for Stale {
        fn check(&mut self, store: &TermStore, constraints: &[TermId]) -> SatResult {
            if !self.stale {
                return self.z3.check(store, constraints);
            }
            let zeros = constraints
                .iter()
                .flat_map(|c| store.symbols(*c).iter().copied())
                .map(|s| (s, Value::Int(0)))
                .collect();
            SatResult::Sat(zeros)
        }

        fn reset(&mut self) {
            self.stale = false;
        }
    }

    /// A model that breaks the question is not trusted: the question goes
    /// once more to the backend, reset, and its answer stands.
    #[test]
    fn a_model_that_breaks_the_question_is_asked_again_afresh() {
        let mut s = TermStore::new();
        let (a, a_low) = (gt(&mut s, "a", 5), s.symbol_term("a", Sort::Int));
        let three = s.constant(Value::Int(3));
        let below = s.app(Op::Lt, &[a_low, three]).unwrap();
        let stale = Stale {
            stale: true,
            z3: Z3Solver::new(None),
        };
        let mut q = QuerySolver::new(Box::new(stale));
        q.set_simplex(false);
        assert_eq!(q.model(&s, &[a, below]), SatResult::Unsat);
        let b = gt(&mut s, "b", 5);
        assert!(matches!(q.model(&s, &[b]), SatResult::Sat(m) if s.satisfies(&[b], &m)));
    }

    fn gt(s: &mut TermStore, name: &str, k: i128) -> TermId {
        let x = s.symbol_term(name, Sort::Int);
        let c = s.constant(Value::Int(k));
        s.app(Op::Gt, &[x, c]).unwrap()
    }

    #[test]
    fn independence_sends_only_related_constraints_and_caches() {
        let mut s = TermStore::new();
        let a = gt(&mut s, "a", 0);
        let b = gt(&mut s, "b", 5);
        let a2 = gt(&mut s, "a", 3);
        assert_eq!(independent_slice(&s, &[a, b], a2), vec![a]);
        assert_eq!(independent_groups(&s, &[a, b, a2]).len(), 2);

        let mut q = backend_only();
        assert!(q.check(&s, &[a, b], a2, None).is_sat());
        assert_eq!(q.stats.solver_calls, 1);
        assert!(q.check(&s, &[a, b], a2, None).is_sat());
        assert_eq!(q.stats.cache_hits, 1);
        let not_a = s.not(a);
        assert_eq!(q.check(&s, &[a, b], not_a, None), SatResult::Unsat);
        // Statistics per kind of question, and the calls by time.
        assert_eq!(q.stats.sliced_away, 3);
        q.kind = QueryKind::BugCheck;
        let b2 = gt(&mut s, "b", 9);
        assert!(q.check(&s, &[a, b], b2, None).is_sat());
        let [branch, bug, merge, _] = &q.stats.by_kind;
        assert_eq!(
            (
                branch.queries,
                branch.cache_hits,
                bug.queries,
                bug.solver_calls,
                merge.queries
            ),
            (3, 1, 1, 1, 0)
        );
        assert_eq!(q.stats.histogram.iter().sum::<u64>(), q.stats.solver_calls);
        assert_eq!(q.stats.slowest.len() as u64, q.stats.solver_calls);
        assert!(q.stats.slowest.windows(2).all(|w| w[0].time >= w[1].time));
    }

    /// `a < b` and `b < a` over integer symbols `a` and `b`.
    fn opposite_orders(s: &mut TermStore) -> (TermId, TermId) {
        let (a, b) = (s.symbol_term("a", Sort::Int), s.symbol_term("b", Sort::Int));
        (s.app(Op::Lt, &[a, b]).unwrap(), s.app(Op::Lt, &[b, a]).unwrap())
    }

    #[test]
    fn an_unsat_core_answers_every_query_that_contains_it() {
        for cores in [true, false] {
            let mut s = TermStore::new();
            let (a_lt_b, b_lt_a) = opposite_orders(&mut s);
            let mut q = backend_only();
            q.set_unsat_cores(cores);
            // {a > 0, a > 3, a < b} with b < a: the core is {a < b, b < a}.
            let (a0, a3) = (gt(&mut s, "a", 0), gt(&mut s, "a", 3));
            assert_eq!(q.check(&s, &[a0, a3, a_lt_b], b_lt_a, None), SatResult::Unsat);
            assert_eq!(q.stats.solver_calls, 1);
            let mut pair = vec![a_lt_b, b_lt_a];
            pair.sort_unstable();
            if cores {
                assert_eq!(q.last_core(), pair.as_slice());
            }
            // Other path constraints around the same contradiction: the
            // known core is what makes them unsat.
            let (a7, b9) = (gt(&mut s, "a", 7), gt(&mut s, "b", 9));
            assert_eq!(q.check(&s, &[a7, b9, a_lt_b], b_lt_a, None), SatResult::Unsat);
            if cores {
                assert_eq!(q.last_core(), pair.as_slice());
            }
            // Whatever answers it, the core is part of the question.
            assert_eq!(q.check(&s, &[a7, b9, a_lt_b], b_lt_a, None), SatResult::Unsat);
            assert!(q.last_core().iter().all(|c| [a7, b9, a_lt_b, b_lt_a].contains(c)));
            if cores {
                assert_eq!(q.last_core(), pair.as_slice());
            }
            let [branch, ..] = &q.stats.by_kind;
            if cores {
                assert_eq!(
                    (q.stats.solver_calls, branch.subset_hits, branch.solver_unsat),
                    (1, 1, 1)
                );
            } else {
                assert_eq!(
                    (q.stats.solver_calls, branch.subset_hits, branch.solver_unsat),
                    (2, 0, 2)
                );
            }
            // Still satisfiable without the contradiction.
            assert!(q.check(&s, &[a7, b9], a_lt_b, None).is_sat());
        }
    }

    #[test]
    fn merged_questions_keep_the_whole_set_when_their_cores_are_off() {
        for merge_cores in [true, false] {
            let mut s = TermStore::new();
            let (a_lt_b, b_lt_a) = opposite_orders(&mut s);
            let mut q = backend_only();
            q.set_merge_cores(merge_cores);
            q.kind = QueryKind::Merge;
            let a0 = gt(&mut s, "a", 0);
            assert_eq!(q.check(&s, &[a0, a_lt_b], b_lt_a, None), SatResult::Unsat);
            let mut pair = vec![a_lt_b, b_lt_a];
            pair.sort_unstable();
            let mut all = vec![a0, a_lt_b, b_lt_a];
            all.sort_unstable();
            let merge = &q.stats.by_kind[QueryKind::Merge as usize];
            // No core asked for is no core missed.
            assert_eq!(merge.cores_missed, 0);
            let mut core = q.last_core().to_vec();
            core.sort_unstable();
            assert_eq!(core, if merge_cores { pair } else { all });
            // A branch question around the same contradiction: answered by
            // the merged question's core, or by the backend without one.
            q.kind = QueryKind::Branch;
            let b9 = gt(&mut s, "b", 9);
            assert_eq!(q.check(&s, &[b9, a_lt_b], b_lt_a, None), SatResult::Unsat);
            assert_eq!(q.stats.solver_calls, if merge_cores { 1 } else { 2 });
        }
    }

    #[test]
    fn reused_models_cover_only_the_query_symbols() {
        let mut s = TermStore::new();
        let (a, b) = (s.symbol_term("a", Sort::Int), s.symbol_term("b", Sort::Int));
        let a_gt_b = s.app(Op::Gt, &[a, b]).unwrap();
        let mut q = backend_only();
        let SatResult::Sat(_) = q.model(&s, &[a_gt_b]) else {
            panic!("satisfiable")
        };
        // Answered from the recent model of {a > b}: only `a` may be in it.
        let a2 = gt(&mut s, "a", -5);
        let SatResult::Sat(m) = q.check(&s, &[], a2, None) else {
            panic!("satisfiable")
        };
        assert_eq!(q.stats.cex_hits, 1);
        assert_eq!(m.len(), 1);
    }

    /// Comparisons over doubles are answered by the search, with no Z3
    /// call, once Z3 has been slow on floats; a comparison and its negation by
    /// unit literals.
    #[test]
    fn braids_own_procedures_answer_before_z3() {
        let (mut s, x, y) = crate::optimize::tests::doubles("x", "y");
        let k = crate::optimize::tests::double;
        let (two, ten) = (k(&mut s, 2.0), k(&mut s, 10.0));
        let prod = s.app(Op::Mul, &[x, y]).unwrap();
        let c1 = s.app(Op::Gt, &[prod, ten]).unwrap();
        let c2 = s.app(Op::Lt, &[x, two]).unwrap();
        // Z3 first while it is quick on floats.
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        assert!(q.model(&s, &[c2]).is_sat());
        assert_eq!((q.stats.solver_calls, q.stats.by_kind[0].search_tries), (1, 0));
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        q.float_search = true;
        let SatResult::Sat(m) = q.model(&s, &[c1, c2]) else {
            panic!("a model exists")
        };
        assert!(s.satisfies(&[c1, c2], &m));
        assert_eq!((q.stats.solver_calls, q.stats.by_kind[0].search_sat), (0, 1));
        let a = s.symbol_term("a", Sort::Bv(32));
        let b = s.symbol_term("b", Sort::Bv(32));
        let lt = s.app(Op::Lt, &[a, b]).unwrap();
        let ge = s.app(Op::Ge, &[a, b]).unwrap();
        // A comparison and its negation: the unit literals refute them
        // (crate::units) before difference bounds would.
        assert_eq!(q.model(&s, &[lt, ge]), SatResult::Unsat);
        assert_eq!((q.stats.solver_calls, q.stats.by_kind[0].units_unsat), (0, 1));
        let mut core = q.last_core().to_vec();
        core.sort_unstable();
        let mut want = vec![lt, ge];
        want.sort_unstable();
        assert_eq!(core, want);
        // A decimal number of eleven digits, at most 65535 at every one, is
        // not negative: refuted by intervals, where Z3 took 0.4-0.7 s.
        let (mut set, v) = crate::intervals::tests::digits(&mut s, 11);
        let zero = s.constant(Value::bv(32, 0));
        set.push(s.app(Op::Lt, &[v, zero]).unwrap());
        assert_eq!(q.model(&s, &set), SatResult::Unsat);
        assert_eq!((q.stats.solver_calls, q.stats.by_kind[0].intervals_unsat), (0, 1));
    }

    #[test]
    fn trying_every_value_is_skipped_while_it_costs_more_than_the_backend() {
        let mut gate = CostGate::default();
        let mut k = KindStats {
            enumerate_sat: 10,
            enumerate_time: Duration::from_millis(400),
            solver_calls: 10,
            solver_time: Duration::from_millis(20),
            ..KindStats::default()
        };
        // Within its free time: asked, however it compares.
        assert!((0..5).all(|_| gate.open(&k)));
        // 100 ms an answer against 2 ms a call: skipped once, then twice, …
        k.enumerate_time = Duration::from_millis(1000);
        let asked: Vec<bool> = (0..8).map(|_| gate.open(&k)).collect();
        assert_eq!(asked, [true, false, true, false, false, true, false, false]);
        // Paying again (the backend slower): asked every time.
        k.solver_time = Duration::from_secs(10);
        gate.skips.skip = 0;
        assert!((0..5).all(|_| gate.open(&k)));
    }

    #[test]
    fn a_question_over_pinned_symbols_is_refuted_by_the_pins() {
        let mut s = TermStore::new();
        let c = s.symbol_term("c", Sort::Bv(8));
        let d = s.symbol_term("d", Sort::Bv(8));
        let b = s.symbol_term("b", Sort::Bool);
        let k = |s: &mut TermStore, v| s.constant(Value::bv(8, v));
        let (k46, k43, k9) = (k(&mut s, 46), k(&mut s, 43), k(&mut s, 9));
        let pin_c = s.app(Op::Eq, &[c, k46]).unwrap();
        let not_b = s.app(Op::Not, &[b]).unwrap();
        let d_big = s.app(Op::UGt, &[d, k9]).unwrap();
        let pc = [pin_c, not_b, d_big];
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        // c is 46: `c == 43` is false whatever the rest, with the pin as core.
        let is_43 = s.app(Op::Eq, &[c, k43]).unwrap();
        assert_eq!(q.check(&s, &pc, is_43, None), SatResult::Unsat);
        let mut want = vec![pin_c, is_43];
        want.sort_unstable();
        assert_eq!(q.last_core(), want.as_slice());
        // Both pinned: a Boolean's pin too.
        let both = s.app(Op::And, &[is_43, b]).unwrap();
        let either = s.app(Op::Or, &[is_43, b]).unwrap();
        assert_eq!(q.check(&s, &pc, either, None), SatResult::Unsat);
        assert_eq!(q.stats.by_kind[0].pinned_unsat, 2);
        // d is not pinned: the question goes on to the other procedures.
        let sum = s.app(Op::Add, &[c, d]).unwrap();
        let is_9 = s.app(Op::Eq, &[sum, k9]).unwrap();
        assert!(q.check(&s, &pc, is_9, None).is_sat());
        assert_eq!(q.stats.by_kind[0].pinned_unsat, 2);
        // True under the pins: not refuted (and sat).
        let c_ne = s.app(Op::Not, &[is_43]).unwrap();
        assert!(q.check(&s, &pc, c_ne, None).is_sat());
        assert_eq!(q.check(&s, &pc, both, None), SatResult::Unsat);
        assert_eq!(q.stats.by_kind[0].pinned_unsat, 3);
        // A float equal to 0.0 may be -0.0: not pinned.
        let f = s.symbol_term("f", Sort::F64);
        let zero = s.constant(Value::F64(0f64.to_bits()));
        let one = s.constant(Value::F64(1f64.to_bits()));
        let f_zero = s.app(Op::Eq, &[f, zero]).unwrap();
        let f_one = s.app(Op::Eq, &[f, one]).unwrap();
        assert_eq!(q.check(&s, &[f_zero], f_one, None), SatResult::Unsat);
        assert_eq!(q.stats.by_kind[0].pinned_unsat, 3);
    }

    #[test]
    fn models_satisfy_the_whole_path_condition() {
        let mut s = TermStore::new();
        let pc = [gt(&mut s, "a", 10), gt(&mut s, "b", -4), gt(&mut s, "a", 20)];
        let mut q = backend_only();
        let SatResult::Sat(m) = q.model(&s, &pc) else {
            panic!("satisfiable")
        };
        for c in pc {
            assert_eq!(s.eval(c, &m), Ok(Value::Bool(true)));
        }
    }

    #[test]
    fn bitvector_and_float_reasoning_agree_with_eval() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let k = s.constant(Value::bv(8, 3));
        let d = s.app(Op::Div, &[x, k]).unwrap();
        let m1 = s.constant(Value::bv(8, 0xff)); // -1
        let c1 = s.app(Op::Eq, &[d, m1]).unwrap();
        let f = s.symbol_term("f", Sort::F64);
        let half = s.constant(Value::f64(0.5));
        let sum = s.app(Op::Add, &[f, half]).unwrap();
        let three = s.constant(Value::f64(3.0));
        let c2 = s.app(Op::Eq, &[sum, three]).unwrap();
        let mut q = backend_only();
        let SatResult::Sat(m) = q.model(&s, &[c1, c2]) else {
            panic!("satisfiable")
        };
        assert_eq!(s.eval(c1, &m), Ok(Value::Bool(true)));
        assert_eq!(s.eval(c2, &m), Ok(Value::Bool(true)));
    }

    /// A dumped question is braid's own script, one definition per term
    /// (linear in the question however its terms share), and Z3 reads it
    /// back to the answer recorded: a chain of float sums each reading the
    /// one before twice.
    #[test]
    fn a_dumped_question_is_linear_and_replays_to_its_answer() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::F64);
        let mut t = x;
        for _ in 0..5 {
            let one = s.constant(braid_term::Value::f64(1.0));
            let u = s.app(Op::Add, &[t, t]).unwrap();
            t = s.app(Op::Add, &[u, one]).unwrap();
        }
        let big = s.constant(braid_term::Value::f64(1e3));
        let c = s.app(Op::Gt, &[t, big]).unwrap();
        let dir = std::env::temp_dir().join(format!("braid-dump-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut q = QuerySolver::new(Box::new(Z3Solver::new(None)));
        q.dump_queries(dir.clone());
        let answer = q.model(&s, &[c]);
        let text = std::fs::read_to_string(dir.join("q000001.smt2")).expect("a dumped question");
        std::fs::remove_dir_all(&dir).unwrap();
        // One line per term, not 2^5 leaves spelt out.
        assert!(text.lines().count() < 30, "{text}");
        let status = if matches!(answer, SatResult::Sat(_)) {
            "sat"
        } else {
            "unsat"
        };
        assert!(text.contains(&format!("(set-info :status {status})")), "{text}");
        let ctx = z3::Context::new(&z3::Config::new());
        let solver = z3::Solver::new(&ctx);
        solver.from_string(text);
        let z3_says = match solver.check() {
            z3::SatResult::Sat => "sat",
            z3::SatResult::Unsat => "unsat",
            z3::SatResult::Unknown => "unknown",
        };
        assert_eq!(z3_says, status);
    }
}
