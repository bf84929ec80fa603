//! A run's budget: one deadline, one memory limit and the user's interrupt,
//! watched from one thread and consulted by every long loop of every engine
//! (exploration, QCE, BDD operations, solver calls, concrete runs, output).
//!
//! A run has two phases. Exploration stops at the *exploration deadline*
//! (a little before the time limit), when memory reaches the limit, or on
//! SIGINT/SIGTERM: [`Budget::stopped`]. What is left is for turning the
//! frontier into tests, until a quarter of that reserve before the time
//! limit (or a short grace after a memory or signal stop):
//! [`Budget::exhausted`]; the last quarter is for writing the results,
//! freeing the states and exiting.
//! Checking either is one atomic load.
//!
//! Code that cannot return early without threading a `Result` through every
//! caller (a BDD operation deep in an engine) calls [`Budget::check_unwind`],
//! which unwinds to the engine's [`catch_stop`] without running the panic
//! hook: nothing is printed, and the engine hands over what it has.
//!
//! A call that does not return when interrupted (Z3 inside a push on a kept
//! solver went on for a minute past a ten-second limit, to 5 GB past a
//! 400 MB one) would break both limits. The command line registers a
//! [`Budget::backstop`]: once the run is exhausted and still has not ended
//! a quarter second past the time limit (or a second after the frontier
//! phase of a memory or signal stop, or its memory keeps growing past the
//! limit), the watchdog runs it, and it writes what the run found so far
//! and ends the process.

pub mod heap;
pub mod room;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// Why a run stopped before it finished exploring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StopReason {
    TimeLimit(Duration),
    /// The limit in MiB.
    MemoryLimit(u64),
    /// The machine had this many MiB available, less than
    /// [`room::low_memory_mb`] ([`Budget::sample_machine`]).
    MachineMemory(u64),
    /// The process's memory control group had this many MiB left, less
    /// than [`room::low_group_room`].
    GroupMemory(u64),
    /// A test could not be written (the run ends with that error).
    Output,
    Interrupted,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::TimeLimit(t) => write!(f, "time limit of {}s reached", t.as_secs_f64()),
            StopReason::MemoryLimit(mb) => write!(f, "memory limit of {mb} MB reached"),
            StopReason::MachineMemory(mb) => write!(f, "the machine's memory ran low ({mb} MB available)"),
            StopReason::GroupMemory(mb) => write!(f, "the memory of its control group ran low ({mb} MB left)"),
            StopReason::Output => write!(f, "a test could not be written"),
            StopReason::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// What a run may use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    pub time: Option<Duration>,
    /// Resident memory in MiB.
    pub memory_mb: Option<u64>,
}

/// The part of the time limit kept for turning the frontier into tests and
/// writing results: a tenth, at most ten seconds, and at least a quarter
/// second (or a quarter of a shorter limit): with a tenth of a one-second
/// limit, the frontier had 75 ms, and a process descheduled on a loaded
/// machine across them handed over no test.
pub fn reserve(limit: Duration) -> Duration {
    let floor = MIN_RESERVE.min(limit / 4);
    (limit / 10).clamp(floor, Duration::from_secs(10))
}

/// The least reserve of a limit of a second or more.
const MIN_RESERVE: Duration = Duration::from_millis(250);

/// After a memory or signal stop, how long the frontier may still take.
const GRACE: Duration = Duration::from_secs(1);
/// Exploration stops at this fraction of the memory limit short of it.
const MEMORY_MARGIN: u64 = 10;
/// The bytes at which exploration stops for a limit of `mb` MiB.
fn soft_limit(mb: u64) -> u64 {
    let limit = mb.saturating_mul(1 << 20);
    limit - limit / MEMORY_MARGIN
}

/// How long past the time limit the run's thread may still take to end
/// the run before the [`Budget::backstop`] ends the process. The run's own
/// end is planned a quarter of the reserve before the limit, but freeing
/// a large state takes a while: dsm on bench/limits' words parser with
/// `--max-time 2` came back at 1.95-2.01 s (0.8-0.9 GB of states), and a
/// backstop at the limit itself ended two runs of five with a thinner
/// report.
const OVERRUN: Duration = Duration::from_millis(250);
/// After a memory or signal stop, how long the run may take between the
/// end of its frontier phase and its end (freeing a large state is part of
/// it) before the backstop ends it.
const OVERRUN_STOPPED: Duration = Duration::from_secs(1);
/// The resident memory past the limit (a tenth of it, at least 16 MiB) at
/// which an exhausted run is ended by its backstop at once: ending a run
/// frees memory, it does not take more.
fn overrun_memory(mb: u64) -> u64 {
    let limit = mb.saturating_mul(1 << 20);
    limit.saturating_add((limit / 10).max(16 << 20))
}

/// How often the watchdog looks at the clock, the memory and the signals.
const TICK: Duration = Duration::from_millis(10);

const RUNNING: u8 = 0;
const STOPPED: u8 = 1;
const EXHAUSTED: u8 = 2;

/// [`Inner::ending`]: the run goes on, its thread is ending it, or the
/// backstop is.
const GOING: u8 = 0;
const ENDING: u8 = 1;
const BACKSTOPPED: u8 = 2;

struct Inner {
    start: Instant,
    limits: Limits,
    explore_deadline: Option<Instant>,
    deadline: Option<Instant>,
    /// The address-space limit (`ulimit -v`) less a margin, in bytes: past
    /// it, allocations fail and the process would abort.
    address_space: Option<u64>,
    phase: AtomicU8,
    reason: Mutex<Option<StopReason>>,
    /// When a memory or signal stop ends the frontier phase.
    grace_until: Mutex<Option<Instant>>,
    on_stop: Mutex<Vec<Box<dyn Fn() + Send + Sync>>>,
    rss: AtomicU64,
    peak_rss: AtomicU64,
    /// When the frontier phase ended.
    exhausted_at: Mutex<Option<Instant>>,
    /// Who ends the run ([`GOING`], [`ENDING`], [`BACKSTOPPED`]).
    ending: AtomicU8,
    backstop: Mutex<Option<Backstop>>,
}

/// What ends a run that overran its limits ([`Budget::backstop`]).
type Backstop = Box<dyn FnOnce(&Budget) + Send>;

/// A run's budget; clones share it.
#[derive(Clone)]
pub struct Budget {
    inner: Arc<Inner>,
    /// A share of the run that can end early ([`Budget::cancellable`]).
    cancel: Option<Arc<Cancelled>>,
}

/// What [`Budget::cancellable`]'s clones share: whether they are stopped,
/// and what runs when they are.
#[derive(Default)]
struct Cancelled {
    done: AtomicBool,
    on_cancel: Mutex<Vec<Arc<dyn Fn() + Send + Sync>>>,
}

/// Ends the clones of a [`Budget::cancellable`] (not the run).
#[derive(Clone)]
pub struct Cancel(Arc<Cancelled>);

impl Cancel {
    /// The clones stop as the run's budget does, with no reason of the run's.
    pub fn cancel(&self) {
        if self.0.done.swap(true, Ordering::SeqCst) {
            return;
        }
        for f in lock(&self.0.on_cancel).iter() {
            f();
        }
    }

    pub fn cancelled(&self) -> bool {
        self.0.done.load(Ordering::Relaxed)
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::unlimited()
    }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Budget")
            .field("limits", &self.inner.limits)
            .field("phase", &self.inner.phase.load(Ordering::Relaxed))
            .finish()
    }
}

impl Budget {
    /// A budget without limits and without a watchdog (tests, benchmarks of
    /// parts); it still stops on [`Budget::stop`].
    pub fn unlimited() -> Budget {
        Budget::build(Limits::default(), false)
    }

    /// Starts the clock and the watchdog thread, which ends with the last clone.
    pub fn start(limits: Limits) -> Budget {
        Budget::build(limits, true)
    }

    fn build(limits: Limits, watch: bool) -> Budget {
        let start = Instant::now();
        let deadline = limits.time.and_then(|t| start.checked_add(t - reserve(t) / 4));
        let explore_deadline = limits.time.and_then(|t| start.checked_add(t - reserve(t)));
        let inner = Arc::new(Inner {
            start,
            limits,
            explore_deadline,
            deadline,
            address_space: watch.then(address_space_limit).flatten(),
            phase: AtomicU8::new(RUNNING),
            reason: Mutex::new(None),
            grace_until: Mutex::new(None),
            on_stop: Mutex::new(Vec::new()),
            rss: AtomicU64::new(0),
            peak_rss: AtomicU64::new(0),
            exhausted_at: Mutex::new(None),
            ending: AtomicU8::new(GOING),
            backstop: Mutex::new(None),
        });
        if watch {
            let weak = Arc::downgrade(&inner);
            let spawned = std::thread::Builder::new()
                .name("braid-budget".into())
                .stack_size(64 * 1024)
                .spawn(move || watchdog(weak));
            if spawned.is_err() {
                // No thread: the engines' own clock checks still stop on time.
                eprintln!("braid: could not start the budget watchdog; memory is not watched");
            }
        }
        Budget { inner, cancel: None }
    }

    /// A clone that also stops (and is exhausted) once the [`Cancel`]
    /// given with it is called: one of two explorations racing on their
    /// own threads, ended when the other finishes, while the run goes on.
    pub fn cancellable(&self) -> (Budget, Cancel) {
        let c = Arc::new(Cancelled::default());
        let budget = Budget {
            inner: self.inner.clone(),
            cancel: Some(c.clone()),
        };
        (budget, Cancel(c))
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.done.load(Ordering::Relaxed))
    }

    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// When the clock started.
    pub fn started_at(&self) -> Instant {
        self.inner.start
    }

    pub fn elapsed(&self) -> Duration {
        self.inner.start.elapsed()
    }

    /// When exploration must stop (the solver's calls end by then too).
    pub fn explore_deadline(&self) -> Option<Instant> {
        self.inner.explore_deadline
    }

    /// When the frontier phase ends (a little before the time limit).
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// Exploration must stop: one atomic load. The watchdog also compares
    /// the clock; callers that run rarely can [`Budget::poll`] instead.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.inner.phase.load(Ordering::Relaxed) >= STOPPED || self.cancelled()
    }

    /// Nothing more may run, not even turning the frontier into tests.
    #[inline]
    pub fn exhausted(&self) -> bool {
        self.inner.phase.load(Ordering::Relaxed) >= EXHAUSTED || self.cancelled()
    }

    /// [`Budget::stopped`], looking at the clock itself (for budgets without
    /// a watchdog, and to stop at the exact deadline).
    pub fn poll(&self) -> bool {
        self.advance(Instant::now());
        self.stopped()
    }

    /// [`Budget::exhausted`], looking at the clock itself.
    pub fn poll_exhausted(&self) -> bool {
        self.advance(Instant::now());
        self.exhausted()
    }

    /// Why exploration stopped, if it did.
    pub fn reason(&self) -> Option<StopReason> {
        *lock(&self.inner.reason)
    }

    /// Stops exploration now (the first reason given is kept).
    pub fn stop(&self, reason: StopReason) {
        let inner = &self.inner;
        {
            let mut r = lock(&inner.reason);
            if r.is_some() {
                return;
            }
            *r = Some(reason);
        }
        if !matches!(reason, StopReason::TimeLimit(_)) {
            let grace = Instant::now() + GRACE;
            let until = inner.deadline.map_or(grace, |d| d.min(grace));
            *lock(&inner.grace_until) = Some(until);
        }
        inner.phase.fetch_max(STOPPED, Ordering::SeqCst);
        for f in lock(&inner.on_stop).iter() {
            f();
        }
    }

    /// Ends the frontier phase too.
    pub fn exhaust(&self) {
        if self.inner.phase.swap(EXHAUSTED, Ordering::SeqCst) != EXHAUSTED {
            lock(&self.inner.exhausted_at).get_or_insert_with(Instant::now);
        }
    }

    /// Runs `f` once, from the watchdog thread, if the run overruns its
    /// limits: exhausted, it has not called [`Budget::ending`] by
    /// [`OVERRUN`] past the time limit (by [`OVERRUN_STOPPED`] after the frontier
    /// phase of a memory or signal stop ended), or its memory passed the
    /// limit by a tenth. `f` hands over what the run found and ends the
    /// process ([`end_process`]): whatever keeps the run's thread (a solver
    /// call that ignores its interrupt) is not waited for.
    pub fn backstop(&self, f: impl FnOnce(&Budget) + Send + 'static) {
        *lock(&self.inner.backstop) = Some(Box::new(f));
    }

    /// The run's thread is ending the run itself: the backstop no longer
    /// fires. `false` if it already has (the process is about to end, and
    /// the caller must write nothing more).
    pub fn ending(&self) -> bool {
        match (self.inner.ending).compare_exchange(GOING, ENDING, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => {
                // What the backstop holds goes now (a sender of the queue
                // the test writer waits on until it closes).
                drop(lock(&self.inner.backstop).take());
                true
            }
            Err(who) => who == ENDING,
        }
    }

    /// Whether the run overran its limits at `now` ([`Budget::backstop`]).
    fn overran(&self, now: Instant) -> bool {
        let inner = &self.inner;
        let Some(at) = *lock(&inner.exhausted_at) else {
            return false;
        };
        let late = match (inner.limits.time, self.reason()) {
            (Some(t), Some(StopReason::TimeLimit(_))) => (inner.start + t).max(at) + OVERRUN,
            _ => at + OVERRUN_STOPPED,
        };
        let grown = inner
            .limits
            .memory_mb
            .is_some_and(|mb| inner.rss.load(Ordering::Relaxed) > overrun_memory(mb));
        now >= late || grown
    }

    /// Fires the backstop if the run overran and its thread is not ending
    /// it (the watchdog's tick).
    fn check_overrun(&self, now: Instant) {
        let inner = &self.inner;
        if inner.ending.load(Ordering::Relaxed) != GOING || !self.overran(now) {
            return;
        }
        let Some(f) = lock(&inner.backstop).take() else { return };
        if inner
            .ending
            .compare_exchange(GOING, BACKSTOPPED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            f(self);
        }
    }

    /// Runs `f` (from the watchdog thread) when exploration stops, e.g. to
    /// interrupt a solver call; at once if it already has.
    /// On a [`Budget::cancellable`] clone, also when it is cancelled.
    pub fn on_stop(&self, f: impl Fn() + Send + Sync + 'static) {
        if self.stopped() {
            f();
        }
        let f: Arc<dyn Fn() + Send + Sync> = Arc::new(f);
        if let Some(c) = &self.cancel {
            lock(&c.on_cancel).push(f.clone());
        }
        lock(&self.inner.on_stop).push(Box::new(move || f()));
    }

    /// Time left before exploration must stop (`None`: no limit).
    pub fn explore_time_left(&self) -> Option<Duration> {
        self.inner
            .explore_deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Unwinds to [`catch_stop`] when exploration must stop.
    #[inline]
    pub fn check_unwind(&self) {
        if self.stopped() {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    }

    /// The resident memory the watchdog last read, in bytes.
    pub fn rss(&self) -> u64 {
        self.inner.rss.load(Ordering::Relaxed)
    }

    /// The share of the memory limit [`Budget::rss`] is (`None`: no limit).
    pub fn memory_share(&self) -> Option<f64> {
        let mb = self.inner.limits.memory_mb?;
        Some(self.rss() as f64 / (mb.max(1) << 20) as f64)
    }

    /// The bytes left before exploration stops for memory (the limit less
    /// its margin, less [`Budget::rss`]); `None`: no limit.
    pub fn headroom(&self) -> Option<u64> {
        let mb = self.inner.limits.memory_mb?;
        Some(soft_limit(mb).saturating_sub(self.rss()))
    }

    /// Whether `bytes` more fit under the memory limit (short of it by the
    /// margin exploration stops at). A table about to double asks first:
    /// past the answer `false` the run has stopped for memory, before the
    /// allocation (a BDD's unique table of millions of nodes doubled in one
    /// rehash of 300 ms, growing memory 40 MB past a 500 MB limit, with no
    /// chance to look at the budget in between).
    pub fn reserve(&self, bytes: u64) -> bool {
        let Some(mb) = self.inner.limits.memory_mb else {
            return true;
        };
        if self.rss().saturating_add(bytes) > soft_limit(mb) {
            self.stop(StopReason::MemoryLimit(mb));
            return false;
        }
        true
    }

    /// Whether a step that cannot look at the budget while it runs (a
    /// table doubled in one go) and is expected to take `work` ends before
    /// exploration must stop. If not, exploration stops now for the time
    /// limit, and the caller unwinds instead of starting it: multise on
    /// Heap Sort under `--max-time 3` doubled its BDD's unique table of 4
    /// million nodes at 2.70 s, for 200 ms past the deadline, and the run
    /// ended at 3.16 s, past the frontier's time, with no test.
    pub fn time_for(&self, work: Duration) -> bool {
        let Some(d) = self.inner.explore_deadline else {
            return true;
        };
        if Instant::now() + work <= d {
            return true;
        }
        self.stop(StopReason::TimeLimit(self.inner.limits.time.unwrap_or_default()));
        false
    }

    /// [`Budget::reserve`] and [`Budget::time_for`] for a table about to
    /// grow by `bytes` at `pace` (per byte); unwinds if either says no.
    pub fn grow(&self, bytes: usize, pace: &Pace) {
        if !self.reserve(bytes as u64) || !self.time_for(pace.estimate(bytes)) {
            self.check_unwind();
        }
    }

    /// The largest resident memory the watchdog has seen, in bytes.
    pub fn peak_rss(&self) -> u64 {
        self.inner.peak_rss.load(Ordering::Relaxed)
    }

    /// Moves the phase on as the clock and memory say (the watchdog's tick).
    fn advance(&self, now: Instant) {
        let inner = &self.inner;
        if let Some(d) = inner.explore_deadline {
            if now >= d && !self.stopped() {
                let limit = inner.limits.time.unwrap_or_default();
                self.stop(StopReason::TimeLimit(limit));
            }
        }
        let grace = *lock(&inner.grace_until);
        let hard = [inner.deadline, grace].into_iter().flatten().min();
        if hard.is_some_and(|h| now >= h) {
            self.exhaust();
        }
    }

    /// Hands the memory the allocator keeps free back to the system and
    /// reads the memory use again: after an engine dropped its state (a
    /// run that gives merging up), resident memory stays at its peak
    /// otherwise, and the engine that takes over starts near the limit.
    pub fn release_memory(&self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only returns free pages of glibc's heap (Z3's
        // allocations, and braid's where mimalloc is not the allocator).
        unsafe {
            libc::malloc_trim(0);
        }
        // SAFETY: mimalloc's collection returns the pages it keeps free
        // (the `braid` binary's allocator; without it, an empty heap).
        unsafe {
            libmimalloc_sys::mi_collect(true);
        }
        self.sample_memory();
    }

    /// Reads the memory use now (the watchdog does every few milliseconds),
    /// stopping the run if it is over the limit.
    pub fn sample_memory(&self) {
        let inner = &self.inner;
        let Some((rss, vm)) = memory_use() else { return };
        inner.rss.store(rss, Ordering::Relaxed);
        inner.peak_rss.fetch_max(rss, Ordering::Relaxed);
        if let Some(mb) = inner.limits.memory_mb {
            let limit = mb.saturating_mul(1 << 20);
            // Exploration stops a tenth short of the limit: an engine
            // finishes the step under way and turns its frontier into tests
            // after the stop (multise on a JSON parser, stopped at 502 MB of
            // 500, grew 41 MB more). At the limit itself the frontier phase
            // ends too.
            if rss > soft_limit(mb) {
                self.stop(StopReason::MemoryLimit(mb));
            }
            if rss > limit {
                self.exhaust();
            }
        }
        if let Some(limit) = inner.address_space {
            if vm > limit {
                self.stop(StopReason::MemoryLimit(limit >> 20));
            }
        }
    }

    /// Stops exploration when the machine's available memory falls below
    /// [`room::low_memory_mb`], or the room its tightest memory control
    /// group leaves below [`room::low_group_room`] (other processes, or
    /// files in a tmpfs, took what the limit counted on: the kernel's OOM
    /// killer would end the run without a result), and ends the frontier
    /// phase below half of either.
    pub fn sample_machine(&self) {
        if let Some((available, total)) = room::machine_mb() {
            let low = machine_low(available, room::low_memory_mb(total));
            self.when_low(low, StopReason::MachineMemory(available));
        }
        if let Some((left, limit)) = room::tightest_group() {
            let low = machine_low(left >> 20, room::low_group_room(limit) >> 20);
            self.when_low(low, StopReason::GroupMemory(left >> 20));
        }
    }

    fn when_low(&self, low: Low, reason: StopReason) {
        match low {
            Low::No => {}
            Low::Stop => self.stop(reason),
            Low::Exhaust => {
                self.stop(reason);
                self.exhaust();
            }
        }
    }
}

/// What `available` MiB of the machine's memory (or of a control group's
/// room) call for, `low` being [`room::low_memory_mb`] (or
/// [`room::low_group_room`]).
#[derive(Debug, PartialEq)]
enum Low {
    No,
    /// Exploration stops.
    Stop,
    /// The frontier phase ends too.
    Exhaust,
}

fn machine_low(available: u64, low: u64) -> Low {
    if available >= low {
        Low::No
    } else if available >= low / 2 {
        Low::Stop
    } else {
        Low::Exhaust
    }
}

/// How long a step that cannot be interrupted takes per unit of its size
/// (a table's growth per byte it allocates, a collection per node),
/// learned from the last one: the next one, larger, is about as slow per
/// unit or slower (a larger table misses the caches more), and never
/// counted faster than the guess it starts with.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    guess: f64,
    ns_per_unit: f64,
}

impl Pace {
    pub const fn new(guess_ns_per_unit: f64) -> Pace {
        Pace {
            guess: guess_ns_per_unit,
            ns_per_unit: guess_ns_per_unit,
        }
    }

    /// A table's growth per byte it allocates, about (a hash table's
    /// rehash of millions of entries, read again to be hashed).
    pub const TABLE: Pace = Pace::new(1.0);

    /// The time a step of `units` should take.
    pub fn estimate(&self, units: usize) -> Duration {
        Duration::from_nanos((units as f64 * self.ns_per_unit) as u64)
    }

    /// A step of `units` took `took`.
    pub fn record(&mut self, units: usize, took: Duration) {
        if units > 0 {
            self.ns_per_unit = (took.as_nanos() as f64 / units as f64).max(self.guess);
        }
    }
}

impl Default for Pace {
    fn default() -> Pace {
        Pace::TABLE
    }
}

/// The payload [`Budget::check_unwind`] unwinds with.
#[derive(Debug)]
pub struct Stopped;

/// Unwinds to [`catch_stop`] whatever the budget says (an engine that
/// gives up on its own).
pub fn unwind() -> ! {
    std::panic::resume_unwind(Box::new(Stopped))
}

/// Runs `f`; `Err(Stopped)` if it unwound from [`Budget::check_unwind`].
/// Other panics go on unwinding.
pub fn catch_stop<T>(f: impl FnOnce() -> T) -> Result<T, Stopped> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) if payload.is::<Stopped>() => Err(Stopped),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn watchdog(weak: Weak<Inner>) {
    let mut tick = 0u64;
    loop {
        std::thread::sleep(TICK);
        let Some(inner) = weak.upgrade() else { return };
        let budget = Budget { inner, cancel: None };
        if SIGNALLED.load(Ordering::Relaxed) {
            budget.stop(StopReason::Interrupted);
        }
        // Memory every other tick: reading /proc costs a few microseconds;
        // the machine's every tenth (`/proc/meminfo` costs some more).
        if tick.is_multiple_of(2) {
            budget.sample_memory();
        }
        if tick.is_multiple_of(10) {
            budget.sample_machine();
        }
        let now = Instant::now();
        budget.advance(now);
        budget.check_overrun(now);
        tick += 1;
    }
}

/// Resident and virtual memory of this process in bytes (Linux).
pub fn memory_use() -> Option<(u64, u64)> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mut fields = statm.split_whitespace().map(|f| f.parse::<u64>().ok());
    let vm = fields.next()??;
    let rss = fields.next()??;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let page = if page > 0 { page as u64 } else { 4096 };
    Some((rss * page, vm * page))
}

/// Physical memory in MiB (Linux).
pub fn physical_memory_mb() -> Option<u64> {
    room::meminfo_mb(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemTotal:")
}

/// The default memory limit: half the physical memory, within nine tenths
/// of what the machine has available and of what the process's control
/// groups leave when the run begins ([`room`]), and within the
/// address-space limit if one is set.
pub fn default_memory_mb() -> Option<u64> {
    let most = |room: Option<u64>| room.map(|mb| mb / 10 * 9);
    [
        physical_memory_mb().map(|mb| mb / 2),
        address_space_limit().map(|b| b >> 20),
        most(room::available_memory_mb()),
        most(room::cgroup_room_mb()),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// `ulimit -v` less a fifth (thread stacks, the solver's own allocations
/// and allocator slack live there too), in bytes.
fn address_space_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then(|| lim.rlim_cur / 5 * 4)
}

static SIGNALLED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: libc::c_int) {
    if SIGNALLED.swap(true, Ordering::SeqCst) {
        // A second signal: the user insists; end now as the signal would.
        // SAFETY: signal and raise are async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// SIGINT and SIGTERM stop the run gracefully (results are written); a
/// second one ends the process at once.
pub fn install_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only touches an atomic (async-signal-safe)
        // until it restores the default disposition.
        unsafe {
            libc::signal(sig, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        }
    }
}

/// Writes `bytes` to a child process's input with SIGPIPE blocked on this
/// thread: a child that ends (or is ended by another thread, as a helper
/// solver whose answer is no longer wanted) before reading it all makes the
/// write fail, not the process. The command line restores SIGPIPE's
/// default for its own output, and a helper killed while braid wrote its
/// question ended a run with no report and exit status 141 (semver.c under
/// multise alone over 4 bytes, two runs in three).
pub fn write_to_child(pipe: &mut impl std::io::Write, bytes: &[u8]) -> bool {
    // SAFETY: the signal set is initialised by sigemptyset before use; the
    // calls change this thread's mask only, and restore it.
    unsafe {
        let mut pipe_set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut pipe_set);
        libc::sigaddset(&mut pipe_set, libc::SIGPIPE);
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &pipe_set, &mut old);
        let written = pipe.write_all(bytes).is_ok();
        // A SIGPIPE the write raised waits on this thread: taken here, it
        // is not delivered when the mask comes back.
        let now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        while libc::sigtimedwait(&pipe_set, std::ptr::null_mut(), &now) == libc::SIGPIPE {}
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        written
    }
}

/// Ends the process with `code` at once: no destructor, no handler that
/// runs at exit (a backstop's end, while another thread may still hold
/// the solver's locks); standard output is flushed first.
pub fn end_process(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit ends the process; nothing runs after it.
    unsafe { libc::_exit(code) }
}

/// Whether a SIGINT or SIGTERM has arrived.
pub fn signalled() -> bool {
    SIGNALLED.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_machine_memory_stops_exploring_then_the_frontier() {
        assert_eq!(machine_low(800, 753), Low::No);
        assert_eq!(machine_low(753, 753), Low::No);
        assert_eq!(machine_low(744, 753), Low::Stop);
        assert_eq!(machine_low(376, 753), Low::Stop);
        assert_eq!(machine_low(375, 753), Low::Exhaust);
        assert_eq!(
            StopReason::MachineMemory(744).to_string(),
            "the machine's memory ran low (744 MB available)"
        );
    }

    /// A run whose thread does not come back after its time limit (a solver
    /// call ignoring its interrupt) is ended by its backstop at the limit;
    /// one that ends in time is not, and a run cannot be ended twice.
    #[test]
    fn a_run_that_overruns_its_time_is_ended_by_its_backstop() {
        let fired = |budget: &Budget| {
            let (tx, rx) = std::sync::mpsc::channel();
            budget.backstop(move |_| {
                let _ = tx.send(Instant::now());
            });
            rx
        };
        let limit = Duration::from_millis(400);
        let stuck = Budget::start(Limits {
            time: Some(limit),
            memory_mb: None,
        });
        let when = fired(&stuck)
            .recv_timeout(Duration::from_secs(10))
            .expect("the backstop fires");
        let late = when.duration_since(stuck.started_at());
        assert!(
            late >= limit + OVERRUN && late < limit + Duration::from_secs(2),
            "{late:?}"
        );
        assert!(!stuck.ending(), "the backstop ended the run");

        let ends = Budget::start(Limits {
            time: Some(limit),
            memory_mb: None,
        });
        let rx = fired(&ends);
        while !ends.exhausted() {
            std::thread::sleep(TICK);
        }
        assert!(ends.ending());
        assert!(ends.ending(), "claiming twice is harmless");
        assert_eq!(
            rx.recv_timeout(limit * 2),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected),
            "no backstop once the run is ending, and what it held is dropped"
        );
    }

    /// After an interrupt the frontier phase has its grace, then the run a
    /// second more before its backstop ends it.
    #[test]
    fn a_stopped_run_that_does_not_end_is_ended_by_its_backstop() {
        let budget = Budget::start(Limits::default());
        let (tx, rx) = std::sync::mpsc::channel();
        budget.backstop(move |_| {
            let _ = tx.send(Instant::now());
        });
        let stopped = Instant::now();
        budget.stop(StopReason::Interrupted);
        let when = rx.recv_timeout(Duration::from_secs(10)).expect("the backstop fires");
        let after = when.duration_since(stopped);
        assert!(
            after >= GRACE + OVERRUN_STOPPED && after < GRACE + OVERRUN_STOPPED * 3,
            "{after:?}"
        );
    }

    /// With SIGPIPE's default restored (as the command line does), writing
    /// to a child that ended without reading fails the write and leaves
    /// the process (this test binary) running, with no SIGPIPE left to
    /// deliver later.
    #[test]
    fn a_child_that_ended_fails_the_write_not_the_process() {
        // SAFETY: restoring a signal's default disposition.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
        let mut child = std::process::Command::new("true")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("`true` runs");
        let mut input = child.stdin.take().expect("piped");
        child.wait().expect("`true` ends");
        assert!(!write_to_child(&mut input, &vec![0u8; 1 << 20]));
        assert!(!write_to_child(&mut input, b"again"));
        // SAFETY: restoring Rust's disposition for the other tests.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    }

    /// A step that would end past exploration's deadline stops the run
    /// (for the time limit) instead of starting; one that fits does not.
    #[test]
    fn a_step_that_would_end_past_the_deadline_stops_the_run_first() {
        let b = Budget::start(Limits {
            time: Some(Duration::from_secs(60)),
            memory_mb: None,
        });
        assert!(b.time_for(Duration::from_millis(1)));
        assert!(!b.stopped());
        assert!(!b.time_for(Duration::from_secs(120)));
        assert!(b.stopped());
        assert_eq!(b.reason(), Some(StopReason::TimeLimit(Duration::from_secs(60))));
        // The frontier's time is still there.
        assert!(!b.poll_exhausted());
        assert!(Budget::unlimited().time_for(Duration::from_secs(1 << 20)));
    }

    /// A pace estimates from its last step, never below its guess.
    #[test]
    fn a_pace_learns_from_its_last_step() {
        let mut p = Pace::new(2.0);
        assert_eq!(p.estimate(1000), Duration::from_nanos(2000));
        p.record(1000, Duration::from_micros(10));
        assert_eq!(p.estimate(2000), Duration::from_micros(20));
        p.record(1000, Duration::from_nanos(1));
        assert_eq!(p.estimate(1000), Duration::from_nanos(2000));
    }

    #[test]
    fn exploration_stops_before_the_limit_and_the_frontier_at_it() {
        let b = Budget::start(Limits {
            time: Some(Duration::from_millis(300)),
            memory_mb: None,
        });
        assert!(!b.stopped());
        std::thread::sleep(Duration::from_millis(290));
        assert!(b.poll());
        assert_eq!(b.reason(), Some(StopReason::TimeLimit(Duration::from_millis(300))));
        std::thread::sleep(Duration::from_millis(40));
        assert!(b.poll_exhausted());
    }

    #[test]
    fn a_stop_unwinds_to_catch_stop_and_other_panics_pass() {
        let b = Budget::unlimited();
        assert_eq!(catch_stop(|| 1).ok(), Some(1));
        b.stop(StopReason::Interrupted);
        assert!(catch_stop(|| b.check_unwind()).is_err());
        assert!(std::panic::catch_unwind(|| catch_stop(|| panic!("a bug"))).is_err());
        assert_eq!(b.reason(), Some(StopReason::Interrupted));
    }

    /// A cancelled clone stops (its callbacks run, it unwinds) while the
    /// run's budget and its other clones go on; the run's stop stops it too.
    #[test]
    fn a_cancelled_clone_stops_alone() {
        use std::sync::atomic::AtomicUsize;
        let run = Budget::unlimited();
        let (clone, cancel) = run.cancellable();
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = calls.clone();
        clone.on_stop(move || {
            seen.fetch_add(1, Ordering::SeqCst);
        });
        assert!(!clone.stopped());
        cancel.cancel();
        cancel.cancel();
        assert!(cancel.cancelled() && clone.stopped() && clone.exhausted());
        assert!(catch_stop(|| clone.check_unwind()).is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(!run.stopped() && !run.clone().stopped());
        assert_eq!(run.reason(), None);
        let (other, _) = run.cancellable();
        run.stop(StopReason::Interrupted);
        assert!(other.stopped());
    }

    #[test]
    fn a_memory_limit_stops_with_its_reason() {
        let b = Budget::start(Limits {
            time: None,
            memory_mb: Some(1),
        });
        let start = Instant::now();
        while !b.stopped() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(TICK);
        }
        assert_eq!(b.reason(), Some(StopReason::MemoryLimit(1)));
        assert!(b.peak_rss() > 1 << 20);
        // Past the limit itself, not even the frontier may run.
        assert!(b.exhausted());
    }

    #[test]
    fn an_allocation_that_would_pass_the_limit_stops_the_run_first() {
        let (rss, _) = memory_use().expect("Linux");
        let mb = (rss >> 20) + 400;
        let b = Budget::start(Limits {
            time: None,
            memory_mb: Some(mb),
        });
        b.sample_memory();
        assert!(b.reserve(1 << 20));
        assert!(!b.stopped());
        assert!(!b.reserve(800 << 20));
        assert_eq!(b.reason(), Some(StopReason::MemoryLimit(mb)));
        // The frontier may still run: memory is not past the limit.
        assert!(!b.exhausted());
    }

    #[test]
    fn huge_limits_do_not_overflow() {
        let b = Budget::start(Limits {
            time: Some(Duration::from_secs(u64::MAX / 4)),
            memory_mb: Some(u64::MAX),
        });
        assert!(!b.poll());
    }

    #[test]
    fn reasons_read_well() {
        assert_eq!(
            StopReason::TimeLimit(Duration::from_secs(10)).to_string(),
            "time limit of 10s reached"
        );
        assert_eq!(
            StopReason::MemoryLimit(512).to_string(),
            "memory limit of 512 MB reached"
        );
    }
}
