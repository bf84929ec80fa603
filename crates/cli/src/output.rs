//! What a run shows and leaves behind: tests written to `--out DIR` as they
//! come (`tests/NNNNNN.json`, and Test-Comp's `test-suite/` for WebAssembly
//! programs), progress on stderr, and at the end the `--json` object, the
//! human summary and `summary.json`. Files are written whole and renamed
//! into place, so a reader never sees half a file.

use anyhow::{Context, Result};
use braid_engine::{Progress, RunResult, Sink, TestCase};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The file name of the i-th test (0-based) under `--out`.
pub fn test_file(i: usize) -> String {
    format!("tests/{:06}.json", i + 1)
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// Clears what an earlier run left in `dir` (its tests, Test-Comp suite
/// and summary), so that the directory holds this run's results only: a
/// second run into it kept the first one's tests (replayed, zipped and
/// counted as this run's). `tests/` and `test-suite/` holding only files
/// named as braid names them are moved into `dir/.braid-previous/`, which
/// a thread of its own deletes while the run goes on (deleting 127 000
/// files took a 15 s run's whole time); a directory with other files in
/// it keeps them, and only braid's are deleted.
fn clear_previous_run(dir: &Path) -> Result<()> {
    let numbered = |name: &str, prefix: &str, ext: &str| {
        let name = name.strip_suffix(".tmp").unwrap_or(name);
        name.strip_prefix(prefix)
            .and_then(|n| n.strip_suffix(ext))
            .is_some_and(|n| n.len() >= 6 && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let trash = dir.join(".braid-previous");
    for (sub, prefix, ext) in [("tests", "", ".json"), ("test-suite", "test", ".xml")] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let ours = |n: &String| numbered(n, prefix, ext) || (sub == "test-suite" && n.starts_with("metadata.xml"));
        if names.is_empty() {
            continue;
        }
        if names.iter().all(ours) {
            std::fs::create_dir_all(&trash).with_context(|| format!("cannot create {}", trash.display()))?;
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let to = trash.join(format!("{sub}-{}-{nanos}", std::process::id()));
            let from = dir.join(sub);
            std::fs::rename(&from, &to).with_context(|| format!("cannot move {} aside", from.display()))?;
        } else {
            for n in names.iter().filter(|n| ours(n)) {
                let p = dir.join(sub).join(n);
                std::fs::remove_file(&p)
                    .with_context(|| format!("cannot remove {} (from an earlier run)", p.display()))?;
            }
        }
    }
    for name in ["summary.json", "test-suite.zip"] {
        let p = dir.join(name);
        if p.exists() {
            std::fs::remove_file(&p).with_context(|| format!("cannot remove {} (from an earlier run)", p.display()))?;
        }
    }
    if trash.exists() {
        // Detached, and at the lowest priority: the run's own work (and its
        // tests going to disk) comes first. What the run's end leaves of it,
        // the next run deletes.
        std::thread::spawn(move || {
            // SAFETY: plain system calls on this thread's own id.
            unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                libc::setpriority(libc::PRIO_PROCESS, tid, 19);
            }
            std::fs::remove_dir_all(trash)
        });
    }
    Ok(())
}

/// `--progress`: when a run reports how it is going on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A status line that redraws itself on a terminal; off a terminal, a
    /// line every few seconds.
    Auto,
    /// A line every second, wherever stderr goes.
    Always,
    Never,
}

impl ProgressMode {
    pub fn parse(s: &str) -> Option<ProgressMode> {
        match s {
            "auto" => Some(ProgressMode::Auto),
            "always" => Some(ProgressMode::Always),
            "never" => Some(ProgressMode::Never),
            _ => None,
        }
    }
}

/// How progress is shown.
enum Display {
    Bar(ProgressBar),
    /// A line on stderr every so often.
    Lines {
        every: Duration,
        last: Instant,
    },
    Off,
}

/// The sink of `braid run`: each test goes to disk as it comes.
pub struct RunSink {
    writer: Option<Writer>,
    display: Display,
    /// The first error writing a test (reported when the run ends).
    pub error: Option<anyhow::Error>,
    /// The run's budget, stopped when a test cannot be written
    /// ([`RunSink::stop_on_error`]).
    budget: Option<braid_engine::Budget>,
}

/// Tests on their way to `--out`: a thread of its own creates their files,
/// so exploring does not wait on the file system. Creating a file took
/// 0.1-0.6 ms on this project's ext4 machines (no journal) for a few
/// minutes after many files were deleted (the kernel passes over the
/// recently freed inodes), and a test is two files: dse's 8 192 tests of
/// Table 1's Queue took 6.1-7.2 s to write there beside 0.65 s of
/// exploring.
///
/// The run's thread serialises each test into buffers that go to the writer
/// and come back to be filled again ([`Job`]): tests cloned on one thread and
/// freed on the other left the allocator's pages abandoned between threads
/// (a JSON tokenizer's 24 000 tests under bfs: 760 pages, 48 MB at the
/// peak, past an 80 MB limit the run stayed under before). The queue is
/// bounded ([`Writer::QUEUE`]), so what is still to be written when the
/// run ends takes a few tens of milliseconds at most (with 64, klib's kson
/// under multise with `--max-time 5`, written just after the previous
/// run's tests were deleted, ended at 5.08-5.10 s; with 16, 4.90-4.94 s,
/// as with a fresh directory), and an engine that
/// makes tests faster than the disk takes them waits as it did when it
/// wrote them itself.
struct Writer {
    queue: std::sync::mpsc::SyncSender<Job>,
    /// A test could not be written (the writer drops the rest).
    failed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Jobs written, to be filled again.
    spare: std::sync::mpsc::Receiver<Job>,
    /// Test-Comp's XML too (WebAssembly programs).
    testcomp: bool,
    thread: std::thread::JoinHandle<Result<()>>,
    /// The writer has written what it was sent and ended.
    ended: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// One test, serialised.
#[derive(Default)]
struct Job {
    index: usize,
    json: Vec<u8>,
    xml: String,
    /// Not a test: the writer ends here ([`Closer`]).
    last: bool,
}

/// Ends the writer of a run whose thread does not come back (the budget's
/// backstop): the tests queued before are written, Test-Comp's suite
/// zipped.
pub struct Closer {
    queue: std::sync::mpsc::SyncSender<Job>,
    ended: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Closer {
    /// Waits at most `wait` for the writer to end.
    pub fn close(self, wait: Duration) {
        let give_up = Instant::now() + wait;
        let last = Job {
            last: true,
            ..Job::default()
        };
        if self.queue.send(last).is_err() {
            return;
        }
        while !self.ended.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < give_up {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Writer {
    const QUEUE: usize = 16;

    fn start(dir: PathBuf, zip: Option<crate::testcomp::Zip>) -> Result<Writer> {
        let (queue, jobs) = std::sync::mpsc::sync_channel(Self::QUEUE);
        let (done, spare) = std::sync::mpsc::channel();
        let testcomp = zip.is_some();
        let failed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let theirs = failed.clone();
        let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let at_end = ended.clone();
        let thread = std::thread::Builder::new()
            .name("tests".into())
            .spawn(move || {
                let written = write_tests(&dir, zip, jobs, done, &theirs);
                at_end.store(true, std::sync::atomic::Ordering::SeqCst);
                written
            })
            .context("cannot start the thread that writes tests")?;
        Ok(Writer {
            queue,
            failed,
            spare,
            testcomp,
            thread,
            ended,
        })
    }

    fn send(&self, index: usize, test: &TestCase) -> Result<()> {
        let mut job = self.spare.try_recv().unwrap_or_default();
        job.index = index;
        job.json.clear();
        serde_json::to_writer_pretty(&mut job.json, test)?;
        if self.testcomp {
            crate::testcomp::test_xml(test, &mut job.xml);
        }
        // The writer stops only when the run drops the queue.
        let _ = self.queue.send(job);
        Ok(())
    }

    /// Waits for the tests still queued, then finishes Test-Comp's zip.
    fn finish(self) -> Result<()> {
        drop(self.queue);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the thread that writes tests panicked")))
    }
}

/// The writer's loop: every test to its files until the run drops the
/// queue, each job handed back to be filled again; after the first error
/// the rest are dropped (it is reported when the run ends).
fn write_tests(
    dir: &Path,
    mut zip: Option<crate::testcomp::Zip>,
    jobs: std::sync::mpsc::Receiver<Job>,
    done: std::sync::mpsc::Sender<Job>,
    failed: &std::sync::atomic::AtomicBool,
) -> Result<()> {
    let mut error = None;
    for job in jobs {
        if job.last {
            break;
        }
        if error.is_none() {
            error = write_job(dir, zip.as_mut(), &job).err();
            failed.store(error.is_some(), std::sync::atomic::Ordering::Relaxed);
        }
        let _ = done.send(job);
    }
    if let Some(zip) = zip {
        let finished = zip.finish();
        error = error.or(finished.err());
    }
    error.map_or(Ok(()), Err)
}

fn write_job(dir: &Path, zip: Option<&mut crate::testcomp::Zip>, job: &Job) -> Result<()> {
    write_atomically(&dir.join(test_file(job.index)), &job.json)?;
    if let Some(zip) = zip {
        crate::testcomp::write_test(dir, zip, job.index, &job.xml)?;
    }
    Ok(())
}

impl RunSink {
    /// Creates `out/tests/` (and Test-Comp's `test-suite/` with its metadata
    /// for a WebAssembly `program` run from `entry`).
    pub fn new(
        out: Option<&Path>,
        testcomp: Option<(&Path, &str, crate::testcomp::Goal)>,
        progress: ProgressMode,
    ) -> Result<RunSink> {
        let mut writer = None;
        if let Some(dir) = out {
            clear_previous_run(dir)?;
            let tests = dir.join("tests");
            std::fs::create_dir_all(&tests).with_context(|| format!("cannot create {}", tests.display()))?;
            let zip = match testcomp {
                Some((program, entry, goal)) => Some(crate::testcomp::start(dir, program, entry, goal)?),
                None => None,
            };
            writer = Some(Writer::start(dir.to_path_buf(), zip)?);
        }
        let lines = |secs| Display::Lines {
            every: Duration::from_secs(secs),
            last: Instant::now(),
        };
        let display = match progress {
            ProgressMode::Never => Display::Off,
            ProgressMode::Always => lines(1),
            ProgressMode::Auto if std::io::stderr().is_terminal() => {
                let bar = ProgressBar::hidden();
                bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
                Display::Bar(bar)
            }
            ProgressMode::Auto => lines(5),
        };
        Ok(RunSink {
            writer,
            display,
            error: None,
            budget: None,
        })
    }

    /// Stops `budget`'s exploration and its frontier phase once a test
    /// cannot be written (a full disk): the run then ends with the error
    /// at once, the tests written before it kept, rather than exploring
    /// to its limit for tests that go nowhere.
    pub fn stop_on_error(&mut self, budget: &braid_engine::Budget) {
        self.budget = Some(budget.clone());
    }

    /// What ends the writer from another thread (`None` without `--out`).
    pub fn closer(&self) -> Option<Closer> {
        self.writer.as_ref().map(|w| Closer {
            queue: w.queue.clone(),
            ended: w.ended.clone(),
        })
    }

    /// Ends the run's output: the status line cleared, the tests still
    /// queued written, Test-Comp's suite zipped.
    pub fn finish(&mut self) {
        if let Display::Bar(bar) = &self.display {
            bar.finish_and_clear();
        }
        if let Some(writer) = self.writer.take() {
            if let Err(e) = writer.finish() {
                self.error.get_or_insert(e);
            }
        }
    }
}

impl Drop for RunSink {
    /// A run that ends by an error still leaves the tests it made.
    fn drop(&mut self) {
        self.finish();
    }
}

/// One status line: `12.0s  paths 120  tests 56  coverage 78/166  states 4  memory 45 MB`.
pub fn status_line(p: &Progress) -> String {
    format!(
        "{:.1}s  paths {}  tests {}  coverage {}/{}  states {}  memory {} MB",
        p.elapsed.as_secs_f64(),
        p.paths,
        p.tests,
        p.branches_covered,
        p.branches_total,
        p.live_states,
        p.rss_bytes >> 20
    )
}

impl Sink for RunSink {
    fn test(&mut self, index: usize, test: &TestCase) {
        if let (Some(writer), None) = (&self.writer, &self.error) {
            self.error = writer.send(index, test).err();
            let failed = writer.failed.load(std::sync::atomic::Ordering::Relaxed);
            if let (true, Some(budget)) = (failed || self.error.is_some(), &self.budget) {
                budget.stop(braid_engine::StopReason::Output);
                budget.exhaust();
            }
        }
    }

    fn progress(&mut self, p: &Progress) {
        match &mut self.display {
            Display::Bar(bar) if p.elapsed > Duration::from_secs(1) => {
                if bar.is_hidden() {
                    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                }
                bar.set_message(status_line(p));
                bar.tick();
            }
            Display::Lines { every, last } if last.elapsed() >= *every => {
                *last = Instant::now();
                eprintln!("braid: {}", status_line(p));
            }
            _ => {}
        }
    }
}

pub struct Report {
    pub program: String,
    /// The order states run in: the searcher (dse), the driving searcher
    /// (dsm), topological (ssm), the pick (multise), concolic's strategy.
    pub search: String,
    pub result: RunResult,
}

impl Report {
    pub fn new(program: &str, search: &str, mut result: RunResult) -> Report {
        for b in &mut result.bugs {
            b.test = test_file(b.test_index);
        }
        Report {
            program: program.to_string(),
            search: search.to_string(),
            result,
        }
    }

    pub fn json(&self) -> Value {
        let r = &self.result;
        json!({
            "program": self.program,
            "engine": r.engine,
            "search": self.search,
            "complete": r.complete(),
            "incomplete_reasons": r.incomplete_reasons,
            "paths": r.paths,
            "paths_exact": r.paths_exact,
            "tests": r.tests,
            "frontier_tests": r.frontier_tests,
            "bugs": r.bugs,
            "coverage": {"branches_covered": r.branches_covered, "branches_total": r.branches_total},
            "stats": r.stats,
        })
    }

    pub fn human(&self) -> String {
        let r = &self.result;
        let mut s = String::new();
        let _ = writeln!(s, "{}: engine {}, search {}", self.program, r.engine, self.search);
        let state = if r.complete() { "complete" } else { "incomplete" };
        let frontier = if r.frontier_tests > 0 {
            format!(" ({} from the frontier)", r.frontier_tests)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "paths {}{}  tests {}{frontier}  bugs {}  ({state})",
            if r.paths == u64::MAX {
                "2^64 or more".to_string()
            } else {
                r.paths.to_string()
            },
            if r.paths_exact { "" } else { " (estimate)" },
            r.tests,
            r.bugs.len()
        );
        for reason in &r.incomplete_reasons {
            let _ = writeln!(s, "  incomplete: {reason}");
        }
        if let Some(why) = &r.stats.merging_given_up {
            let _ = writeln!(s, "  merging given up: {why}");
        }
        if let Some(race) = &r.stats.race {
            let _ = writeln!(
                s,
                "  raced with dse (from {} ms): merging {} ms, dse {} ms ({} paths); {}",
                race.after_ms,
                race.merging_ms,
                race.dse_ms,
                race.dse_paths,
                match race.winner.as_deref() {
                    Some(w) => format!("{w} finished first"),
                    None => "neither finished".to_string(),
                }
            );
        }
        if r.stats.tests_not_written > 0 {
            let _ = writeln!(
                s,
                "  {} tests found beside merging came after the frontier's time and were not written",
                r.stats.tests_not_written
            );
        }
        if r.stats.tests_not_reproduced > 0 {
            let _ = writeln!(
                s,
                "  warning: {} tests' recorded outcomes differ from their concrete runs (an engine defect; `braid replay` fails them)",
                r.stats.tests_not_reproduced
            );
        }
        for b in &r.bugs {
            let _ = writeln!(s, "  bug: {} at {} ({})", b.kind, b.location, b.test);
        }
        let _ = writeln!(s, "coverage {}/{} branches", r.branches_covered, r.branches_total);
        let st = &r.stats;
        let _ = writeln!(
            s,
            "solver {} queries, {} calls, {} cache hits, {} model hits, {} ms; {} operations; {} ms total; peak memory {} MB",
            st.solver_queries,
            st.solver_calls,
            st.solver_cache_hits,
            st.solver_cex_hits,
            st.solver_ms,
            st.operations,
            st.wall_ms,
            st.peak_rss_mb
        );
        let d = &st.solver_detail;
        if st.solver_queries > 0 {
            let kinds: Vec<String> = d
                .by_kind
                .iter()
                .filter(|k| k.queries > 0)
                .map(|k| {
                    format!(
                        "{} {} ({} sat by the simplex of {} tried in {} ms{}, {} sat by float search of {} tried in {} ms, {} unsat and {} sat by difference bounds in {} ms{}, {} unsat and {} sat by trying every value in {} ms{}, {} unsat and {} sat by clause learning over difference bounds in {} ms, {} unsat and {} sat by searching orderings in {} ms, {} calls of which {} unsat ({} without a core) and {} answered by the helper, {} unsat by a known core, {} unsat by pinned values, {} unsat by unit literals, {} unsat by intervals, {} ms)",
                        k.kind,
                        k.queries,
                        k.simplex_sat,
                        k.simplex_tries,
                        k.simplex_ms,
                        if k.simplex_skipped > 0 {
                            format!(" ({} not tried: it did not pay)", k.simplex_skipped)
                        } else {
                            String::new()
                        },
                        k.search_sat,
                        k.search_tries,
                        k.search_ms,
                        k.difference_unsat,
                        k.difference_sat,
                        k.difference_ms,
                        if k.difference_skipped > 0 {
                            format!(" ({} not tried: it did not pay)", k.difference_skipped)
                        } else {
                            String::new()
                        },
                        k.enumerate_unsat,
                        k.enumerate_sat,
                        k.enumerate_ms,
                        if k.enumerate_skipped > 0 {
                            format!(" ({} not tried: it did not pay)", k.enumerate_skipped)
                        } else {
                            String::new()
                        },
                        k.cdcl_unsat,
                        k.cdcl_sat,
                        k.cdcl_ms,
                        k.orders_unsat,
                        k.orders_sat,
                        k.orders_ms,
                        k.solver_calls,
                        k.solver_unsat,
                        k.cores_missed,
                        k.helper_answers,
                        k.subset_hits,
                        k.pinned_unsat,
                        k.units_unsat,
                        k.intervals_unsat,
                        k.solver_ms
                    )
                })
                .collect();
            let times: Vec<String> = d
                .calls_by_time
                .iter()
                .map(|b| format!("{} {}", b.range, b.calls))
                .collect();
            let _ = writeln!(
                s,
                "  queries: {}; calls by time: {}",
                kinds.join(", "),
                times.join(", ")
            );
            if let Some(q) = d.slowest.first() {
                let _ = writeln!(
                    s,
                    "  slowest call {:.1} ms ({}, {} constraints, {})",
                    q.ms, q.kind, q.constraints, q.answer
                );
            }
        }
        if let Some(c) = &st.concolic {
            let _ = writeln!(
                s,
                "concolic: {} runs ({} cut for their length), {} solver calls ({} sat, {} solved by the simplex, {} by search), {} open branches already covered",
                c.runs, c.runs_cut, c.solver_calls, c.sat, c.solved_by_simplex, c.solved_by_search, c.flips_already_covered
            );
            if c.partial_solutions_on {
                let _ = writeln!(
                    s,
                    "  partial solutions {}: {} dropped (path seen), {} run, {} new paths, {} new branches",
                    c.partial_solutions, c.partials_dropped, c.partial_runs, c.partial_tests, c.partial_new_branches
                );
            }
        }
        if let Some(g) = st.guard_checks.as_ref() {
            let _ = writeln!(
                s,
                "guard checks: {} guards (new pc entries, bug checks): {} by the entry's model, {} by a walk evaluating its atoms and {} found infeasible by it, {} by a cube, {} infeasible once {} unsat cores were cut out, {} sent whole ({} after wide cores)",
                g.checks, g.by_model, g.by_search, g.infeasible_by_search, g.by_cube, g.infeasible_by_cores, g.cores_cut, g.whole, g.wide_cores
            );
        }
        if let Some(l) = st.loops.as_ref().filter(|l| l.heads > 0) {
            let _ = writeln!(
                s,
                "loop merging: {} heads, {} arrivals (before splits), {} entries, {} arrivals subsumed ({} by a solver query), {} fixed points, {} splits into {} states ({} not split: too many values or out of time)",
                l.heads, l.arrivals, l.entries, l.subsumed, l.subsumed_by_solver, l.fixpoints, l.splits, l.split_parts, l.split_failures
            );
            if let Some(ms) = l.given_up_after_ms {
                let _ = writeln!(
                    s,
                    "  given up after {ms} ms: no arrival subsumed in {} entries, and merging at loop heads took a quarter of the run; every loop unrolled from there",
                    l.entries
                );
            }
            for at in &l.unrolled_at {
                let _ = writeln!(
                    s,
                    "  did not converge (no arrival subsumed, or too many entries), unrolled: {at}"
                );
            }
        }
        s
    }

    /// `DIR/summary.json`, written whole.
    pub fn write_summary(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_atomically(
            &dir.join("summary.json"),
            serde_json::to_string_pretty(&self.json())?.as_bytes(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_engine::{Budget, Outcome, StopReason};

    /// Writes that begin to fail mid-run (here the tests' directory goes
    /// away; a full disk does the same) stop the run's exploration and its
    /// frontier phase, and the error is reported when the run ends.
    #[test]
    fn a_test_that_cannot_be_written_stops_the_run() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut sink = RunSink::new(Some(dir.path()), None, ProgressMode::Never).expect("a sink");
        let budget = Budget::start(braid_budget::Limits::default());
        sink.stop_on_error(&budget);
        let outcome = Outcome::End {
            function: "main".into(),
            values: Default::default(),
            memory: Default::default(),
            returned: None,
        };
        let test = TestCase::new(
            "p".into(),
            "main".into(),
            Vec::new(),
            outcome,
            Default::default(),
            Vec::new(),
        );
        std::fs::remove_dir_all(dir.path().join("tests")).expect("the tests' directory removed");
        let give_up = Instant::now() + Duration::from_secs(10);
        let mut index = 0;
        while !budget.stopped() && Instant::now() < give_up {
            index += 1;
            sink.test(index, &test);
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(budget.reason(), Some(StopReason::Output));
        assert!(budget.exhausted());
        sink.finish();
        assert!(sink.error.is_some());
    }
}
