//! Where an engine's tests go as soon as they exist: the [`Recorder`] runs
//! each test concretely (its coverage, what it prints, whether it reproduces
//! the engine's outcome), keeps the distinct bugs, and hands the test to a
//! [`Sink`] (files under `--out`, a benchmark's table, a test's assertions).
//! It also turns a stopped run's frontier into tests: inputs that reach
//! explored code are run concretely to their end, and the run's outcome is
//! the test's.

use crate::concrete::{run_concrete_until, run_concrete_with, Code, ConcreteRun};
use crate::results::{Branch, BugReport, Outcome, TestCase, TestInput};
use crate::semantics::BugKind;
use crate::Progress;
use braid_budget::Budget;
use braid_ir::{FuncId, Module};
use rustc_hash::{FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What receives a run's tests and progress.
pub trait Sink {
    /// A new test, numbered from 0 in the order tests come, with its
    /// concrete run's output already recorded in it.
    fn test(&mut self, index: usize, test: &TestCase);
    /// A periodic report while the run goes on.
    fn progress(&mut self, _progress: &Progress) {}
    /// [`Sink::test`], with the test's concrete run (a sink that hands
    /// tests to another thread's recorder, [`Recorder::adopt`]).
    fn test_run(&mut self, index: usize, test: TestCase, _run: ConcreteRun) {
        self.test(index, &test);
    }
}

/// A sink that keeps every test in memory (benchmarks, property tests).
#[derive(Default)]
pub struct Collect {
    pub tests: Vec<TestCase>,
}

impl Sink for Collect {
    fn test(&mut self, _: usize, test: &TestCase) {
        self.tests.push(test.clone());
    }
}

/// What a run has handed over so far, readable from another thread: the
/// report a backstop writes when the run's thread does not come back
/// ([`braid_budget::Budget::backstop`]).
#[derive(Default)]
pub struct Tally {
    pub tests: AtomicUsize,
    pub frontier_tests: AtomicUsize,
    pub branches_covered: AtomicUsize,
    /// As the engine last reported them (a few times a second).
    pub paths: AtomicU64,
    pub bugs: Mutex<Vec<BugReport>>,
}

/// How often progress reaches the sink.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

pub struct Recorder<'a> {
    module: &'a Module,
    entry: FuncId,
    program: String,
    /// The `braid run` arguments that shaped the program (tests record them).
    run_args: Vec<String>,
    budget: Budget,
    sink: &'a mut dyn Sink,
    tests: usize,
    frontier_tests: usize,
    not_reproduced: u64,
    /// Another thread's tests handed over after the frontier phase ended,
    /// not written ([`Recorder::adopt`]).
    not_written: u64,
    bugs: Vec<BugReport>,
    covered: FxHashSet<Branch>,
    /// Hashes of the inputs of every test so far (frontier inputs that
    /// repeat one are not run again).
    seen: FxHashSet<u64>,
    /// The paths the tests so far took ([`ConcreteRun::trace`]).
    traces: FxHashSet<u64>,
    last_progress: Instant,
    /// The interpreter's form of the module, kept from test to test.
    code: Code,
    /// Whether a test that takes an earlier test's path is dropped (two
    /// explorations of one program, raced, find most paths twice).
    distinct_paths: bool,
    /// Statements a frontier input's concrete run may take
    /// ([`Recorder::complete`]), and the most a run that ended took.
    frontier_steps: u64,
    longest_completed: u64,
    tally: Option<Arc<Tally>>,
}

/// The statements a frontier input's concrete run may take at first, and
/// at least after one ran past its cap. A path not explored to its end
/// may never end: cesanta/mjson's glob matcher loops forever on a string
/// with `*` where it backtracks, and multise, cut off there, ran its 57
/// pending models concretely, the first until the budget was exhausted:
/// no test at all.
const FRONTIER_STEPS: u64 = crate::dse::loops::COMPLETION_STEPS;
const MIN_FRONTIER_STEPS: u64 = 1 << 20;

impl<'a> Recorder<'a> {
    pub fn new(
        module: &'a Module,
        entry: FuncId,
        program: &str,
        run_args: Vec<String>,
        budget: Budget,
        sink: &'a mut dyn Sink,
    ) -> Recorder<'a> {
        Recorder {
            module,
            entry,
            program: program.to_string(),
            run_args,
            budget,
            sink,
            tests: 0,
            frontier_tests: 0,
            not_reproduced: 0,
            not_written: 0,
            bugs: Vec::new(),
            covered: FxHashSet::default(),
            seen: FxHashSet::default(),
            traces: FxHashSet::default(),
            last_progress: Instant::now(),
            distinct_paths: false,
            frontier_steps: FRONTIER_STEPS,
            longest_completed: 0,
            tally: None,
            code: Code::new(module, Some(entry)),
        }
    }

    /// What this recorder has handed over so far, kept up to date from
    /// now on for another thread to read.
    pub fn tally(&mut self) -> Arc<Tally> {
        self.tally.get_or_insert_with(Default::default).clone()
    }

    pub fn module(&self) -> &'a Module {
        self.module
    }

    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// A test the engine found: run concretely (unless the budget is
    /// exhausted before it ends: then it is dropped) and handed on.
    pub fn test(&mut self, test: TestCase) {
        let Some(run) = self.run(&test.inputs) else { return };
        if !test.outcome.reproduced_by(&run.outcome) {
            self.not_reproduced += 1;
        }
        if self.drops(&run) {
            return;
        }
        self.seen.insert(inputs_hash(&test.inputs));
        self.emit(test, run);
    }

    /// A test for the frontier: `inputs` run concretely to the end of the
    /// program, which gives the outcome. `false` if the inputs repeat an
    /// earlier test's, the budget ran out first, or the run took more
    /// statements than [`FRONTIER_STEPS`] or more than half the time left
    /// before the frontier phase ends; after such a run, the next may
    /// take eight times the most a frontier run that ended took (at least
    /// [`MIN_FRONTIER_STEPS`]): inputs that hang come in numbers.
    pub fn complete(&mut self, inputs: Vec<TestInput>) -> bool {
        self.complete_within(inputs, None)
    }

    /// [`Recorder::complete`], with no test if the concrete run takes more
    /// than `max_steps` statements.
    pub fn complete_within(&mut self, inputs: Vec<TestInput>, max_steps: Option<u64>) -> bool {
        self.complete_where(inputs, max_steps, false)
    }

    /// [`Recorder::complete`], with a test only if the concrete run covers
    /// a branch no test covers or ends in a bug (a state dropped to make
    /// room: a test per state would cost more than the room it makes).
    pub fn complete_if_new(&mut self, inputs: Vec<TestInput>) -> bool {
        self.complete_where(inputs, None, true)
    }

    fn complete_where(&mut self, inputs: Vec<TestInput>, max_steps: Option<u64>, only_new: bool) -> bool {
        if !self.seen.insert(inputs_hash(&inputs)) {
            return false;
        }
        let steps = max_steps.unwrap_or(self.frontier_steps);
        // A frontier run takes at most half the time left before the
        // frontier phase ends, however fast its statements go: a debug
        // build under load ran 20 M statements of a spinning path past
        // the quarter second a one-second run keeps for its frontier.
        let now = Instant::now();
        let until = match max_steps {
            None => self
                .budget
                .deadline()
                .map(|d| now + d.saturating_duration_since(now) / 2),
            Some(_) => None,
        };
        let Some(run) = run_concrete_until(
            &self.code,
            self.module,
            self.entry,
            &inputs,
            Some(&self.budget),
            Some(steps),
            until,
        ) else {
            return false;
        };
        if matches!(&run.outcome, Outcome::Bug { bug, .. } if *bug == BugKind::StepLimit) {
            if max_steps.is_none() {
                self.frontier_steps = (8 * self.longest_completed)
                    .max(MIN_FRONTIER_STEPS)
                    .min(self.frontier_steps);
            }
            return false;
        }
        if max_steps.is_none() {
            self.longest_completed = self.longest_completed.max(run.steps);
        }
        // Inputs the explored prefix left free may break an `assume` further
        // on: no path of the program runs that way, so there is no test.
        if matches!(&run.outcome, Outcome::Bug { bug, .. } if *bug == BugKind::AssumeViolated) {
            return false;
        }
        if self.drops(&run) {
            return false;
        }
        let new =
            || matches!(&run.outcome, Outcome::Bug { .. }) || run.covered.iter().any(|b| !self.covered.contains(b));
        if only_new && !new() {
            return false;
        }
        let mut test = TestCase::new(
            self.program.clone(),
            self.module.func(self.entry).name.clone(),
            inputs,
            run.outcome.clone(),
            Default::default(),
            Vec::new(),
        );
        test.frontier = true;
        self.frontier_tests += 1;
        self.emit(test, run);
        true
    }

    /// Whether `inputs` take a path no test so far took, by a concrete run
    /// (MuSE's cheap filter of partial solutions, seed 002 §3.6); `None` if
    /// the budget ran out first.
    pub fn new_path(&self, inputs: &[TestInput]) -> Option<bool> {
        let run = self.run(inputs)?;
        Some(!self.traces.contains(&run.trace))
    }

    fn run(&self, inputs: &[TestInput]) -> Option<ConcreteRun> {
        run_concrete_with(&self.code, self.module, self.entry, inputs, Some(&self.budget), None)
    }

    fn emit(&mut self, mut test: TestCase, run: ConcreteRun) {
        let text = |b: &[u8]| (!b.is_empty()).then(|| String::from_utf8_lossy(b).into_owned());
        test.stdout = text(&run.stdout);
        test.stderr = text(&run.stderr);
        test.run_args = self.run_args.clone();
        self.traces.insert(run.trace);
        self.covered.extend(run.covered.iter().cloned());
        if let Outcome::Bug {
            bug,
            function,
            location,
            ..
        } = &test.outcome
        {
            if !self.bugs.iter().any(|b| b.kind == *bug && b.location == *location) {
                self.bugs.push(BugReport {
                    kind: bug.clone(),
                    function: function.clone(),
                    location: location.clone(),
                    test_index: self.tests,
                    test: String::new(),
                });
            }
        }
        self.sink.test_run(self.tests, test, run);
        self.tests += 1;
        if let Some(t) = &self.tally {
            t.tests.store(self.tests, Ordering::Relaxed);
            t.frontier_tests.store(self.frontier_tests, Ordering::Relaxed);
            t.branches_covered.store(self.covered.len(), Ordering::Relaxed);
            let mut bugs = t.bugs.lock().unwrap_or_else(|e| e.into_inner());
            if bugs.len() < self.bugs.len() {
                bugs.clone_from(&self.bugs);
            }
        }
    }

    /// A test another thread's recorder ran as `run` (a dse racing on a
    /// thread of its own): handed on as if run here, unless it takes an
    /// earlier test's path ([`Recorder::keep_distinct_paths`]).
    pub fn adopt(&mut self, test: TestCase, run: ConcreteRun) {
        if self.drops(&run) {
            return;
        }
        // Past the frontier phase nothing more is written: the other
        // thread's tests waiting to be handed over go uncounted as tests
        // but counted here. (dse beside multise on a disk that took 1-3 ms
        // a file had thousands queued when SIGTERM came: the run ended 4-17 s
        // after it, past its one-second grace.)
        if self.budget.poll_exhausted() {
            self.not_written += 1;
            return;
        }
        self.seen.insert(inputs_hash(&test.inputs));
        if test.frontier {
            self.frontier_tests += 1;
        }
        self.emit(test, run);
    }

    /// Counts tests another thread's recorder found not to reproduce.
    pub fn add_not_reproduced(&mut self, n: u64) {
        self.not_reproduced += n;
    }

    /// The `braid run` arguments tests record.
    pub fn run_args(&self) -> &[String] {
        &self.run_args
    }

    /// From now on, drops tests that take an earlier test's path.
    pub fn keep_distinct_paths(&mut self) {
        self.distinct_paths = true;
    }

    /// Whether a test whose concrete run is `run` is dropped: it takes an
    /// earlier test's path ([`Recorder::keep_distinct_paths`]).
    fn drops(&self, run: &ConcreteRun) -> bool {
        self.distinct_paths && self.traces.contains(&run.trace)
    }

    /// Reports progress to the sink (at most every quarter second).
    pub fn progress(&mut self, paths: u64, live_states: usize) {
        if self.last_progress.elapsed() < PROGRESS_EVERY {
            return;
        }
        if let Some(t) = &self.tally {
            t.paths.store(paths, Ordering::Relaxed);
        }
        self.last_progress = Instant::now();
        let p = Progress {
            elapsed: self.budget.elapsed(),
            paths,
            live_states,
            tests: self.tests,
            branches_covered: self.covered.len(),
            branches_total: 2 * self.module.branch_count(),
            rss_bytes: self.budget.rss(),
        };
        self.sink.progress(&p);
    }

    pub fn tests(&self) -> usize {
        self.tests
    }

    pub fn frontier_tests(&self) -> usize {
        self.frontier_tests
    }

    /// Tests whose concrete run did not end as the engine recorded (an
    /// engine bug; `braid replay` reports them too).
    pub fn not_reproduced(&self) -> u64 {
        self.not_reproduced
    }

    /// Tests found but handed over too late to be written.
    pub fn not_written(&self) -> u64 {
        self.not_written
    }

    pub fn bugs(&self) -> &[BugReport] {
        &self.bugs
    }

    /// Branch outcomes the tests so far cover, by their concrete runs.
    pub fn covered(&self) -> &FxHashSet<Branch> {
        &self.covered
    }
}

fn inputs_hash(inputs: &[TestInput]) -> u64 {
    let mut h = FxHasher::default();
    for i in inputs {
        (&i.name, &i.sort, &i.value).hash(&mut h);
    }
    h.finish()
}
