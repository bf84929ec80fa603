//! A dse exploration on a thread of its own, raced against merging on the
//! run's thread where the machine has a second core: multise's race
//! (`multise/race.rs`), ssm's and dsm's under `--race-in thread`
//! (`Dse::race_on_thread`), and the ssm that takes over from multise when
//! its guards grow too large to pay (`Multise::then_merge`).
//!
//! The thread is made idle with the run (it borrows the module, so it lives
//! in a scope around the merging engine's run) and starts dse when merging's
//! head start is spent. Its recorder runs each test concretely on that
//! thread and hands it, with the run, to the run's recorder
//! ([`Recorder::adopt`]) whenever merging looks ([`Second::take_tests`]).
//! Either side ends the other: merging cancels dse's budget when it
//! finishes, and dse cancels the budget merging's BDD operations and solver
//! calls run under when it does ([`Budget::cancellable`]); the run's own
//! budget stops both.

use super::{Dse, EngineKind, RunResult};
use crate::concrete::ConcreteRun;
use crate::config::Config;
use crate::record::{Recorder, Sink};
use crate::results::TestCase;
use braid_budget::{Budget, Cancel};
use braid_ir::{FuncId, Module};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::Scope;
use std::time::{Duration, Instant};

/// Whether a race may run dse on a thread of its own: the machine has a
/// second core.
pub(crate) fn possible() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

/// The thread's stack: dse keeps a path's calls on its heap, but terms are
/// walked recursively (only the pages used are committed).
const STACK: usize = 128 << 20;

/// What starts dse on the thread.
struct Start {
    config: Config,
    program: String,
    run_args: Vec<String>,
    budget: Budget,
}

/// From the thread to the run's.
enum Message {
    /// Tests with their concrete runs, in the order found.
    Tests(Vec<(TestCase, ConcreteRun)>),
    /// dse's result (`None`: it could not start).
    End(Option<Box<Ended>>),
}

/// dse's result, its solver's statistics (merging's are added to them),
/// and how many of its tests did not reproduce.
struct Ended {
    result: RunResult,
    solver: braid_solver::SolverStats,
    not_reproduced: u64,
}

/// What the two threads share.
#[derive(Default)]
struct Shared {
    /// dse explored every path.
    finished: AtomicBool,
    /// The paths dse finished.
    paths: AtomicU64,
    /// The growth of dse's thread's live heap since dse started.
    heap: AtomicI64,
}

/// The run's end of the thread.
pub(crate) struct Second {
    start: Option<Sender<Start>>,
    messages: Receiver<Message>,
    shared: Arc<Shared>,
    /// dse's budget's cancel (merging finished first), once started.
    cancel_dse: Option<Cancel>,
    /// The budget merging runs under, which dse cancels when it finishes
    /// first.
    merging_budget: Budget,
    started: Option<Instant>,
    end: Option<Option<Box<Ended>>>,
    /// The bytes dse's tests took with them when this thread freed them
    /// ([`Second::handed`]).
    handed: i64,
}

impl Second {
    /// Makes the thread, idle until [`Second::start`]. `budget`: the run's.
    pub(crate) fn spawn<'scope>(
        scope: &'scope Scope<'scope, '_>,
        module: &'scope Module,
        entry: FuncId,
        budget: &Budget,
    ) -> std::io::Result<Second> {
        let (start_tx, start_rx) = channel::<Start>();
        // Tests go to the run's thread without bound: it takes them at
        // merging's steps, which can be long (a merged question's split
        // time, ssm's splits). With 16 batches at most, dse on its thread
        // beside ssm on Table 1's Quick Sort (multise's fallback) took
        // 2.9 s against 1.7 s alone, waiting on the queue; with 256 (a
        // batch leaves every 20 ms however small), a sorting harness of 6
        // ints (scratch) took 42 s, 20 s without the bound. The queue
        // holds what the recorder keeps anyway.
        let (tx, messages) = channel();
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let (merging_budget, cancel_merging) = budget.cancellable();
        std::thread::Builder::new()
            .name("braid-dse".into())
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                if let Ok(start) = start_rx.recv() {
                    run(module, entry, start, &tx, &theirs, &cancel_merging);
                }
            })?;
        Ok(Second {
            start: Some(start_tx),
            messages,
            shared,
            cancel_dse: None,
            merging_budget,
            started: None,
            end: None,
            handed: 0,
        })
    }

    /// The budget merging's BDD operations and solver calls run under: it
    /// stops when dse finishes first.
    pub(crate) fn merging_budget(&self) -> &Budget {
        &self.merging_budget
    }

    /// Starts dse from the program's start (once).
    pub(crate) fn start(&mut self, config: Config, program: &str, run_args: Vec<String>, budget: &Budget) {
        let Some(tx) = self.start.take() else { return };
        let (budget, cancel) = budget.cancellable();
        let config = super::rival_config(config);
        let start = Start {
            config,
            program: program.to_string(),
            run_args,
            budget,
        };
        if tx.send(start).is_ok() {
            self.cancel_dse = Some(cancel);
            self.started = Some(Instant::now());
        }
    }

    pub(crate) fn started(&self) -> bool {
        self.started.is_some()
    }

    /// How long dse has run.
    pub(crate) fn time(&self) -> Duration {
        self.started.map_or(Duration::ZERO, |t| t.elapsed())
    }

    pub(crate) fn paths(&self) -> u64 {
        self.shared.paths.load(Ordering::Relaxed)
    }

    /// The growth of dse's live heap, on its thread, since it started,
    /// less what its tests took with them to the run's thread.
    pub(crate) fn heap(&self) -> i64 {
        self.shared.heap.load(Ordering::Relaxed) - self.handed
    }

    /// The bytes dse's tests held when the run's thread took them over and
    /// freed them: the heap counts are per thread, so dse's count keeps
    /// them and the run's loses them (the recorder's own growth as it
    /// takes them, a hash each, counts against this). On a protobuf
    /// decoder's harness over 6 bytes (nanopb, scratch), dse's count beside
    /// ssm reached 146 MB, and the run's thread's -33 MB, where dse alone
    /// peaks at 120 MB resident.
    pub(crate) fn handed(&self) -> i64 {
        self.handed
    }

    /// dse explored every path (its tests may still be on their way).
    pub(crate) fn finished(&self) -> bool {
        self.shared.finished.load(Ordering::SeqCst)
    }

    /// dse could not start: there is no race.
    pub(crate) fn failed(&self) -> bool {
        matches!(self.end, Some(None))
    }

    /// Hands the tests dse found so far to `rec`.
    pub(crate) fn take_tests(&mut self, rec: &mut Recorder) {
        while let Ok(m) = self.messages.try_recv() {
            self.receive(m, rec);
        }
    }

    fn receive(&mut self, m: Message, rec: &mut Recorder) {
        match m {
            Message::Tests(tests) => {
                let before = braid_budget::heap::live_bytes();
                for (test, run) in tests {
                    rec.adopt(test, run);
                }
                self.handed += before - braid_budget::heap::live_bytes();
            }
            Message::End(ended) => {
                if let Some(e) = &ended {
                    rec.add_not_reproduced(e.not_reproduced);
                }
                self.end = Some(ended);
            }
        }
    }

    /// Waits for dse's end, handing its tests to `rec` as they come.
    fn wait(&mut self, rec: &mut Recorder) {
        while self.end.is_none() && self.started.is_some() {
            match self.messages.recv() {
                Ok(m) => self.receive(m, rec),
                Err(_) => break,
            }
        }
    }

    /// dse's result as the run's (`engine`'s, with why merging's was not):
    /// it explores on until it finishes or the budget stops it, its live
    /// states then becoming tests. `solver_before`: merging's solver
    /// statistics, counted in. `None` if dse never ran.
    pub(crate) fn finish(
        mut self,
        rec: &mut Recorder,
        engine: EngineKind,
        why: String,
        solver_before: &braid_solver::SolverStats,
    ) -> Option<RunResult> {
        self.wait(rec);
        let Ended {
            result: mut r,
            mut solver,
            ..
        } = *self.end.take()??;
        solver.absorb(solver_before);
        r.stats.record_solver(&solver);
        r.engine = engine.name().into();
        r.stats.merging_given_up = Some(why);
        Some(r)
    }

    /// A stopped run: dse's live states become tests (on its thread).
    pub(crate) fn stop(mut self, rec: &mut Recorder) {
        self.wait(rec);
    }
}

impl Drop for Second {
    /// Merging finished first, or the run unwinds: dse stops, and an idle
    /// thread ends (the scope it runs in waits for it).
    fn drop(&mut self) {
        self.start = None;
        if let Some(c) = &self.cancel_dse {
            c.cancel();
        }
    }
}

/// Hands tests to the run's thread with their concrete runs. One at a
/// time (and cloned), the handing over made dse on its thread take 7.5 s on
/// bench/merging's sleep-5-3 (33 582 tests) against 5.3-5.8 alone, and the
/// run of sleep-6-3 (235 234 tests) 91.9 s against 51.9 now: they go by
/// value in batches of [`BATCH`], or sooner after [`BATCH_AGE`] (looked
/// at as tests come, and at the recorder's progress reports).
struct Forward<'a> {
    tx: &'a Sender<Message>,
    batch: Vec<(TestCase, ConcreteRun)>,
    since: Instant,
}

const BATCH: usize = 64;
const BATCH_AGE: Duration = Duration::from_millis(20);

impl Forward<'_> {
    fn send(&mut self) {
        if !self.batch.is_empty() {
            let _ = self.tx.send(Message::Tests(std::mem::take(&mut self.batch)));
        }
        self.since = Instant::now();
    }
}

impl Sink for Forward<'_> {
    fn test(&mut self, _: usize, _: &TestCase) {}

    fn test_run(&mut self, _: usize, test: TestCase, run: ConcreteRun) {
        self.batch.push((test, run));
        if self.batch.len() >= BATCH || self.since.elapsed() >= BATCH_AGE {
            self.send();
        }
    }

    /// Every quarter second at most: the batch goes, however small.
    fn progress(&mut self, _: &crate::Progress) {
        self.send();
    }
}

/// The thread's work: dse from the start until it finishes (then merging's
/// budget is cancelled), the budget stops (its live states become tests)
/// or merging cancels it.
fn run(module: &Module, entry: FuncId, start: Start, tx: &Sender<Message>, shared: &Shared, cancel_merging: &Cancel) {
    let Start {
        config,
        program,
        run_args,
        budget,
    } = start;
    let mut sink = Forward {
        tx,
        batch: Vec::new(),
        since: Instant::now(),
    };
    let heap_start = braid_budget::heap::live_bytes();
    let mut rec = Recorder::new(module, entry, &program, run_args, budget.clone(), &mut sink);
    let mut dse = Box::new(Dse::new(module, entry, &program, config));
    dse.prepare(&budget);
    let Ok(mut ex) = dse.begin() else {
        let _ = tx.send(Message::End(None));
        return;
    };
    let mut finished = false;
    while !budget.stopped() {
        if !dse.next_slice(&mut ex, &mut rec) {
            finished = true;
            break;
        }
        shared.paths.store(dse.result.paths, Ordering::Relaxed);
        shared
            .heap
            .store(braid_budget::heap::live_bytes() - heap_start, Ordering::Relaxed);
    }
    if finished {
        shared.finished.store(true, Ordering::SeqCst);
        cancel_merging.cancel();
    }
    // Cancelled: merging explored every path, and nothing is left to hand on.
    if finished || !budget.exhausted() {
        dse.end(ex, &mut rec);
    }
    let not_reproduced = rec.not_reproduced();
    drop(rec);
    sink.send();
    let solver = dse.solver.stats.clone();
    let ended = Ended {
        result: dse.into_result(),
        solver,
        not_reproduced,
    };
    let _ = tx.send(Message::End(Some(Box::new(ended))));
}
