//! The `braid` command line: `run`, `replay`, `show`, `qce`, `bench`.
//!
//! Exit status of `run`: 0 no bug found, 1 bug found, 2 bad input or usage.
//! `replay`: 0 iff every test reproduces its recorded outcome.

mod bench;
mod cc;
mod output;
mod testcomp;

use anyhow::{anyhow, bail, Context, Result};
use braid_engine::dse::concolic::Strategy as ConcolicStrategy;
use braid_engine::dse::merging::{Merging, Similarity, Strategy};
use braid_engine::multise::{Fallback, Joins, Pick, FALLBACK};
use braid_engine::qce::{Qce, QceParams};
use braid_engine::replay::Replayer;
use braid_engine::{explore, Budget, Config, EngineKind, EngineSpec, Limits, Recorder, SearchKind, TestCase};
use braid_guard::VarOrder;
use braid_ir::{BugKind, FuncId, Module};
use braid_wasm::wasi::Config as WasiConfig;
use braid_wasm::wasmi_replay::Prepared;
use braid_wasm::Convention;
use clap::{Args, Parser, Subcommand};
use output::{ProgressMode, Report, RunSink};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Parser)]
#[command(name = "braid", version, about = "Symbolic execution that lets paths share work")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore a program symbolically: tests, bugs, coverage.
    Run(Box<RunArgs>),
    /// SV-COMP's unreach-call: is `reach_error()` reachable? Prints TRUE,
    /// FALSE (with the test that reaches it) or UNKNOWN (with why). The
    /// convention is SV-COMP's unless --convention says otherwise. Exit 0
    /// TRUE, 1 FALSE, 3 UNKNOWN.
    Verify(Box<RunArgs>),
    /// Run tests concretely; exit 0 iff each reproduces its recorded outcome.
    Replay {
        program: PathBuf,
        /// Test files, or directories whose `.json` files are tests (a
        /// run's `--out DIR/tests`).
        #[arg(required = true)]
        tests: Vec<PathBuf>,
    },
    /// Print the program's IR as .bir text.
    Show { program: PathBuf },
    /// Every program of a suite under every engine, side by side: times,
    /// solver and merging statistics, ratios, and whether the engines agree.
    Bench {
        /// A directory of programs (.bir, .wasm, and C files that are
        /// SV-COMP tasks: first line `// expect: TRUE|FALSE`), or one program.
        suite: PathBuf,
        /// Comma-separated: dse, ssm-none, ssm-all, ssm-qce, dsm, dsm-all,
        /// multise, multise-no-coalesce. Ratios are first over second.
        #[arg(long, default_value = "dse,multise", value_delimiter = ',')]
        engines: Vec<String>,
        /// Print one JSON object instead of markdown tables.
        #[arg(long)]
        json: bool,
        /// Time limit per run in seconds (a run that hits it shows `>T`).
        #[arg(long, default_value_t = 60.0)]
        max_time: f64,
        /// Searcher of dse (and of the dse ssm, dsm and multise race or hand over to): dfs,
        /// bfs, random-path, covnew, interleaved, auto.
        #[arg(long, default_value = "dfs")]
        search: String,
        /// dsm's driving searcher (default: interleaved, as `braid run`'s).
        #[arg(long)]
        driver: Option<String>,
    },
    /// Query count estimates (QCE) per labelled statement: Q_t, Q_add, hot variables.
    Qce {
        program: PathBuf,
        /// Hot if Q_add > alpha * Q_t.
        #[arg(long, default_value_t = 0.5)]
        alpha: f64,
        /// Probability that a branch side is feasible.
        #[arg(long, default_value_t = 0.6)]
        beta: f64,
        /// Loop unrolling bound.
        #[arg(long, default_value_t = 1)]
        kappa: u32,
    },
}

#[derive(Args, Clone)]
struct RunArgs {
    program: PathBuf,
    /// A C program's further sources (.c, .i), compiled and linked with it.
    sources: Vec<PathBuf>,
    /// Function to explore; its typed parameters become symbolic inputs
    /// (default: `main`, else the first function).
    #[arg(long)]
    entry: Option<String>,
    /// Exploration engine.
    #[arg(long, default_value = "dse")]
    engine: String,
    /// Searcher (dse; ssm's, dsm's and multise's: that of the dse they race or hand the run
    /// over to): dfs, bfs, random-path, covnew, interleaved (random-path, covnew and dfs in
    /// turns), auto (dfs for 2 s, then interleaved; the default); concolic's open branches:
    /// dfs, bfs, generational (the default).
    #[arg(long)]
    search: Option<String>,
    /// dsm: the searcher that drives dynamic merging (picks the states fast-forwarding does
    /// not): dfs, bfs, random-path, covnew, interleaved (the default; as a driver, random-path
    /// and dfs in turns), auto.
    #[arg(long)]
    driver: Option<String>,
    /// concolic: MuSE — the assignments the solver passes through (partial
    /// solutions) become test inputs too.
    #[arg(long)]
    partial_solutions: bool,
    /// concolic: the first input from FILE: a braid test (.json; its
    /// inputs by name), else the file's bytes (the k-th symbolic byte a run
    /// reads takes the k-th byte).
    #[arg(long, value_name = "FILE")]
    seed_input: Option<PathBuf>,
    /// ssm, dsm: which states at one location merge: none, all, qce.
    #[arg(long)]
    merge: Option<String>,
    /// ssm, dsm: solver time (ms) a merged state may take before it is
    /// split back into the states it was merged from.
    #[arg(long, value_name = "MS")]
    split_after: Option<u32>,
    /// ssm, dsm, multise: MS (a number; the default 50, multise's 1000)
    /// or off. After merging has run MS alone, dse explores from the start
    /// alongside it (see --race-in: on a thread of its own, or in turns,
    /// merging taking half of dse's time under ssm and dsm, as much as
    /// dse's under multise, the head start included), and whichever
    /// finishes first ends the run: on programs where merging does not
    /// pay, the run takes about dse's time and the head start on a second
    /// core (1.5 to 2 times dse's in turns) rather than much more.
    #[arg(long, value_name = "MS|off")]
    race_after: Option<String>,
    /// ssm, dsm, multise: where dse races: `thread` (multise's default; a
    /// thread of its own, on a second core where the machine has one: the
    /// run takes about the faster side's time, up to twice the CPU time,
    /// and both sides' memory at once) or `turns` (ssm's and dsm's
    /// default; in turns on the run's thread).
    #[arg(long, value_name = "thread|turns")]
    race_in: Option<String>,
    /// dsm: block starts of history kept per state (δ).
    #[arg(long)]
    delta: Option<usize>,
    /// ssm, dsm with --merge qce: a variable is hot if Q_add > alpha * Q_t.
    #[arg(long)]
    alpha: Option<f64>,
    /// ssm, dsm with --merge qce: probability that a branch side is feasible.
    #[arg(long)]
    beta: Option<f64>,
    /// ssm, dsm with --merge qce: loop unrolling bound of the estimate.
    #[arg(long)]
    kappa: Option<u32>,
    /// Seed for the randomised searchers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Jumps to one label per call (and recursive calls) allowed per path.
    #[arg(long)]
    loop_bound: Option<u32>,
    /// Stop after this many seconds (exploration stops a little before, to
    /// turn the frontier into tests and write the results).
    #[arg(long)]
    max_time: Option<f64>,
    /// Stop when resident memory reaches this many MiB (default: half the
    /// physical memory, within nine tenths of what is available and of what
    /// the process's control groups leave).
    #[arg(long, value_name = "MB")]
    max_memory: Option<u64>,
    /// Progress on stderr: auto (a status line on a terminal, else a line
    /// every 5 s), always (a line every second), never.
    #[arg(long, default_value = "auto")]
    progress: String,
    /// At most this many live states; further forks are dropped.
    #[arg(long)]
    max_states: Option<usize>,
    /// Per-query solver timeout in milliseconds (default: a tenth of --max-time, at least 1000;
    /// none without --max-time; concolic: 1000 per open branch).
    #[arg(long)]
    solver_timeout: Option<u32>,
    /// on: the solver layer keeps the unsat cores of its solver calls and
    /// answers a query that contains one as unsat without a call; off:
    /// only exact repeats are cached.
    #[arg(long, default_value = "on", value_name = "on|off")]
    unsat_cores: String,
    /// on: the solver keeps the constraints that consecutive queries share
    /// asserted (Z3 push/pop), so it reuses what it learnt; off: each query
    /// is asserted afresh.
    #[arg(long, default_value = "on", value_name = "on|off")]
    incremental: String,
    /// on: a question the caches do not answer goes to braid's own
    /// procedures first: difference bounds (comparisons that contradict
    /// one another: unsat with a minimal core), the simplex (integers read
    /// as integers, table lookups refined by array axioms, MuSE §3.2-3.3)
    /// and, over floats, XSat's search; to Z3 only when none of them
    /// answers; off: straight to Z3.
    #[arg(long, default_value = "on", value_name = "on|off")]
    simplex: String,
    /// A second solver raced against Z3 on the questions over floats that
    /// Z3 has not answered in 10 ms, and on those over bit-vectors alone
    /// once Z3's incremental solver has not answered in 50 ms: bitwuzla (in the environment
    /// scripts/install-deps.sh makes), cvc5, or a command that reads an
    /// SMT-LIB 2 script on its standard input; auto: the first of bitwuzla
    /// and cvc5 installed; none: Z3 alone.
    #[arg(long, default_value = "auto", value_name = "auto|bitwuzla|cvc5|none|COMMAND")]
    float_solver: String,
    /// dse, ssm, dsm, multise: on: the states reaching a loop head are
    /// merged across iterations (seed 003) and a state (multise: the part
    /// of a state) that an earlier one stands for stops, so loops whose
    /// states repeat are explored for every trip count; off: loops are
    /// unrolled.
    #[arg(long, default_value = "on", value_name = "on|off")]
    loop_merge: String,
    /// on: statements that compute on machine values alone run in the
    /// concrete interpreter, and the state comes back to the engine at the
    /// first one that touches a symbolic value, reads an input, may be a
    /// bug, or reaches a loop head loop-head merging still watches (ssm,
    /// dsm: only while the state is the only one; multise: with one pc
    /// entry); off: the engine runs every statement.
    #[arg(long, default_value = "on", value_name = "on|off")]
    run_ahead: String,
    /// Write every solver call to DIR as an SMT-LIB 2 file (with braid's
    /// answer and time in a comment), to replay through other solvers
    /// (ssm, dsm and multise raced against dse: dse's calls in DIR/dse).
    #[arg(long, value_name = "DIR")]
    dump_queries: Option<PathBuf>,
    /// Write tests and summary.json under this directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object to stdout.
    #[arg(long)]
    json: bool,
    /// Testing the budget's backstop: once exploring ends, the run's thread
    /// never comes back (as when a solver call ignores its interrupt).
    #[arg(long, hide = true)]
    stall: bool,
    /// WebAssembly: an import braid does not know returns a fresh symbolic
    /// value on each call (the run is then incomplete) instead of being an error.
    #[arg(long)]
    allow_unknown_imports: bool,
    /// WebAssembly: whose harness semantics apply: auto (the program's:
    /// SV-COMP if it calls or defines `reach_error` or calls
    /// `__VERIFIER_*`, Owi if it imports `symbolic`, else KLEE), svcomp
    /// (`abort()` ends the path; only `reach_error()` is a bug), klee, owi
    /// (`abort()` is a bug).
    #[arg(long, default_value = "auto")]
    convention: String,
    /// C sources: extra clang flags, e.g. --cflags "-O2 -DN=4" (braid
    /// compiles .c and .i files to wasm32 with clang first).
    #[arg(long, allow_hyphen_values = true)]
    cflags: Option<String>,
    /// WASI: up to N symbolic command-line arguments of up to L bytes each
    /// after argv[0] (KLEE's meaning).
    #[arg(long, num_args = 2, value_names = ["N", "L"])]
    sym_args: Option<Vec<u32>>,
    /// WASI: a stdin of N symbolic bytes.
    #[arg(long, value_name = "N")]
    sym_stdin: Option<u32>,
    /// multise: keep equal values apart in value summaries (runs as DSE);
    /// the same as --coalesce never.
    #[arg(long)]
    no_coalesce: bool,
    /// multise: which paths merge where they meet: always (every join, as
    /// MultiSE), auto (where QCE's similarity says merged values stay cheap;
    /// the others are kept apart), never (DSE).
    #[arg(long)]
    coalesce: Option<String>,
    /// multise: which pc entry runs next: topo, dfs, bfs.
    #[arg(long, default_value = "topo")]
    pick: String,
    /// multise: concretise non-linear integer arithmetic (§3.3).
    #[arg(long)]
    linear_only: bool,
    /// multise: concretise symbolic floating point (§3.3).
    #[arg(long)]
    no_float: bool,
    /// multise: print the final value summaries.
    #[arg(long)]
    dump_state: bool,
    /// multise: the order of BDD variables: inputs (a predicate on one
    /// input with that input, in input order) or creation.
    #[arg(long)]
    bdd_order: Option<String>,
    /// multise: what a BDD variable stands for: bits (the default: a
    /// predicate over one byte the function of its 8 bits it is, so
    /// predicates over a byte know each other exactly) or predicates (each
    /// branch predicate one variable).
    #[arg(long)]
    bdd_atoms: Option<String>,
    /// multise: reorder the BDD variables by sifting when the nodes have
    /// doubled, at garbage collections (a quarter of the BDD time at most).
    #[arg(long)]
    bdd_reorder: bool,
    /// multise: print each executed statement and its guard to stderr.
    #[arg(long)]
    trace: bool,
    /// multise, ssm, dsm: dse (give merging up and explore with dse from
    /// the start once memory is past half its limit, or under multise once
    /// BDD operations have taken 85 % of the run's first half second or
    /// more) or none.
    #[arg(long)]
    fallback: Option<String>,
}

/// Runs the command line and returns the process exit status.
pub fn main() -> i32 {
    // Output piped into `head` and the like ends quietly when the reader
    // goes away, as for other command-line tools (Rust ignores SIGPIPE).
    // SAFETY: restoring a signal's default disposition before any thread
    // starts has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        // Memories of megabytes (an 8 MiB C stack) are allocated zeroed for
        // every concrete run: from fresh pages, whose zeroing the kernel does
        // for those a run touches, not from freed heap memory that calloc
        // clears whole (glibc raises the threshold once such a block is
        // freed, unless it is set).
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // The work runs on a thread with a stack of its own: multise runs each
    // call of the program as a nested call of its own (function-bounded),
    // several KiB of Rust stack each, and programs may recurse up to
    // MAX_CALL_DEPTH calls deep (C has an 8 MiB stack). Only the pages used
    // are committed.
    const STACK: usize = 512 << 20;
    let command = std::sync::Arc::new(std::sync::Mutex::new(Some(cli.command)));
    let take = |c: &std::sync::Mutex<Option<Command>>| c.lock().ok().and_then(|mut c| c.take());
    let theirs = command.clone();
    let outcome = match std::thread::Builder::new()
        .name("braid".into())
        .stack_size(STACK)
        .spawn(move || take(&theirs).map(dispatch))
    {
        Ok(worker) => match worker.join() {
            Ok(outcome) => outcome,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        // No thread (an address-space limit, say): here, on the main stack.
        Err(_) => take(&command).map(dispatch),
    };
    let outcome = outcome.unwrap_or_else(|| Err(anyhow!("the command was lost")));
    outcome.unwrap_or_else(|e| {
        eprintln!("braid: {e:#}");
        2
    })
}

/// Runs one command; the exit code, or the error to report.
fn dispatch(command: Command) -> Result<i32> {
    match command {
        Command::Run(args) => run(*args),
        Command::Verify(args) => verify(*args),
        Command::Replay { program, tests } => replay_tests(&program, &tests),
        Command::Show { program } => load(&program, &ProgramArgs::default()).map(|l| {
            print!("{}", braid_ir::print(&l.module));
            0
        }),
        Command::Qce {
            program,
            alpha,
            beta,
            kappa,
        } => qce(&program, QceParams { alpha, beta, kappa }),
        Command::Bench {
            suite,
            engines,
            json,
            max_time,
            search,
            driver,
        } => bench_command(suite, engines, json, max_time, &search, driver),
    }
}

/// A program ready to explore: its IR, the entry function, and why runs
/// of it are incomplete whatever happens (unknown imports made symbolic).
pub(crate) struct Loaded {
    pub module: Module,
    pub entry: FuncId,
    pub incomplete: Option<String>,
    /// The WebAssembly module, for programs that are (or compile to) one.
    pub wasm: Option<Vec<u8>>,
}

/// What lowers a program besides its file. Tests record it (their
/// `run_args`) so replay lowers the program alike; an example gives it on
/// its `// braid-args:` line.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProgramArgs {
    pub entry: Option<String>,
    pub wasi: WasiConfig,
    pub convention: Convention,
    /// C sources: extra clang flags (`--cflags`).
    pub cflags: Option<String>,
    /// A C program's further sources, as given.
    pub sources: Vec<String>,
}

impl ProgramArgs {
    /// These settings among `braid run` arguments; others are ignored.
    pub fn parse(args: &[String]) -> Result<ProgramArgs> {
        let mut p = ProgramArgs::default();
        let mut words = args.iter();
        let number = |words: &mut std::slice::Iter<String>, flag: &str| -> Result<u32> {
            words
                .next()
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| anyhow!("{flag} needs a number"))
        };
        while let Some(w) = words.next() {
            match w.as_str() {
                "--sym-args" => p.wasi.sym_args = Some((number(&mut words, w)?, number(&mut words, w)?)),
                "--sym-stdin" => p.wasi.sym_stdin = number(&mut words, w)?,
                "--entry" => p.entry = words.next().cloned(),
                "--convention" => p.convention = convention_of(words.next().map_or("", |w| w.as_str()))?,
                "--cflags" => p.cflags = words.next().cloned(),
                "--source" => p.sources.extend(words.next().cloned()),
                _ => {}
            }
        }
        Ok(p)
    }

    /// As `braid run` arguments, but for the entry (tests record it apart).
    pub fn run_args(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.convention != Convention::Auto {
            out.extend([
                "--convention".to_string(),
                format!("{:?}", self.convention).to_lowercase(),
            ]);
        }
        if let Some((n, l)) = self.wasi.sym_args {
            out.extend(["--sym-args".to_string(), n.to_string(), l.to_string()]);
        }
        if self.wasi.sym_stdin > 0 {
            out.extend(["--sym-stdin".to_string(), self.wasi.sym_stdin.to_string()]);
        }
        if let Some(f) = &self.cflags {
            out.extend(["--cflags".to_string(), f.clone()]);
        }
        for s in &self.sources {
            out.extend(["--source".to_string(), s.clone()]);
        }
        out
    }
}

/// Reads a program: `.bir` text, or WebAssembly (`.wasm`, or `.wat` text)
/// lowered with `entry` as the export to run. Errors name the file and the
/// line and column, or the byte offset.
pub(crate) fn load_program(
    path: &Path,
    args: &ProgramArgs,
    allow_unknown_imports: bool,
    need_entry: bool,
) -> Result<Loaded> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if args.cflags.is_some() && !cc::is_source(path) {
        bail!("--cflags applies to C and C++ sources (.c, .i, .cpp, .cc, .cxx) only");
    }
    if !args.sources.is_empty() && !cc::is_source(path) {
        bail!("further sources apply to a C or C++ program (.c, .i, .cpp, .cc, .cxx) only");
    }
    let src = if cc::is_source(path) {
        cc::compile(path, &args.sources, args.cflags.as_deref())?
    } else {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    if ext == "wasm" || ext == "wat" || cc::is_source(path) {
        let shown = path.display();
        let bytes = if ext == "wat" {
            let text = String::from_utf8(src).map_err(|e| anyhow!("{shown}: not UTF-8 text ({e})"))?;
            braid_wasm::from_text(&text).map_err(|e| anyhow!("{shown}: {e}"))?
        } else {
            src
        };
        let opts = braid_wasm::Options {
            entry: args.entry.clone(),
            allow_unknown_imports,
            wasi: args.wasi,
            convention: args.convention,
        };
        let p = braid_wasm::load(&bytes, &opts).map_err(|e| anyhow!("{shown}: {e}"))?;
        let entry = match p.entry {
            Some(e) => e,
            // Any entry serves replay and `show`; a run needs the user's.
            None if !need_entry => p.module.func_index("$init").unwrap_or(FuncId(0)),
            None => bail!(
                "{shown}: no `_start`, `main` or `__main_argc_argv` export and no start function: choose one with --entry (exported functions: {})",
                if p.functions.is_empty() {
                    "none".to_string()
                } else {
                    p.functions
                        .iter()
                        .map(|(n, ..)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        };
        return Ok(Loaded {
            module: p.module,
            entry,
            incomplete: p.incomplete,
            wasm: Some(bytes),
        });
    }
    let src = String::from_utf8(src).map_err(|e| anyhow!("{}: not UTF-8 text ({e})", path.display()))?;
    let module = braid_ir::parse(&path.display().to_string(), &src)?;
    let entry = entry_of(&module, args.entry.as_deref())?;
    Ok(Loaded {
        module,
        entry,
        incomplete: None,
        wasm: None,
    })
}

/// A program's IR (WebAssembly: with every unknown import made symbolic,
/// as replay and `show` need; every export has its entry `$f`).
fn load(path: &Path, args: &ProgramArgs) -> Result<Loaded> {
    let is_wasm = is_wasm(path);
    let args = ProgramArgs {
        entry: None,
        ..args.clone()
    };
    load_program(path, &args, is_wasm, false)
}

/// WebAssembly, or C or C++, which braid compiles to it.
fn is_wasm(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("wasm" | "wat")) || cc::is_source(path)
}

fn entry_of(m: &Module, name: Option<&str>) -> Result<FuncId> {
    match name {
        Some(n) => m
            .func_index(n)
            .ok_or_else(|| anyhow!("the program has no function `{n}` (--entry)")),
        None => m
            .func_index("main")
            .or((!m.functions.is_empty()).then_some(FuncId(0)))
            .ok_or_else(|| anyhow!("the program has no functions")),
    }
}

/// `--max-time` as a duration: a non-negative number of seconds that a
/// clock can hold.
fn max_time(seconds: Option<f64>) -> Result<Option<Duration>> {
    /// A century: longer limits are a mistake, and would overflow a clock.
    const MAX_SECONDS: f64 = 100.0 * 365.25 * 86_400.0;
    match seconds {
        None => Ok(None),
        Some(t) if t.is_finite() && (0.0..=MAX_SECONDS).contains(&t) => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => bail!("--max-time must be a number of seconds from 0 to {MAX_SECONDS:.0} (got {t})"),
    }
}

/// The searcher `flag` names (`--search`, `--driver`).
fn searcher(flag: &str, name: &str) -> Result<SearchKind> {
    SearchKind::parse(name).ok_or_else(|| match name {
        "generational" => anyhow!("{flag} generational applies to --engine concolic only"),
        _ => anyhow!("unknown searcher `{name}` for {flag} (dfs, bfs, random-path, covnew, interleaved, auto)"),
    })
}

/// A question's share of the run's time limit when `--solver-timeout` is
/// not given, and its floor: one question Z3 does not decide must not take
/// a run's whole time (stb_image's TGA loader under dse: a question over a
/// width times a height divided into `INT_MAX` ran 8.5 s of a 10 s run, and
/// the run ended with one path). The branch side it asked about is given
/// up and the run says so (`solver: …`), as under `--solver-timeout`.
const SOLVER_SHARE: u32 = 10;
const SOLVER_FLOOR_MS: u32 = 1_000;

/// The per-question solver time without `--solver-timeout`: a tenth of the
/// time limit, at least a second (none without a time limit; concolic's
/// own default otherwise).
fn default_solver_timeout(kind: EngineKind, time: Option<Duration>) -> Option<u32> {
    if kind == EngineKind::Concolic {
        return None;
    }
    let share = time?.as_millis() / SOLVER_SHARE as u128;
    Some(share.clamp(SOLVER_FLOOR_MS as u128, u32::MAX as u128) as u32)
}

/// `--max-memory` in MiB, or the default that protects the machine.
fn max_memory(mb: Option<u64>) -> Result<Option<u64>> {
    match mb {
        Some(0) => bail!("--max-memory must be at least 1 (MiB)"),
        Some(mb) if mb > 1 << 40 => bail!("--max-memory is in MiB: {mb} is more than any machine has"),
        Some(mb) => Ok(Some(mb)),
        None => Ok(braid_budget::default_memory_mb()),
    }
}

/// The engine and its settings from `braid run`'s flags.
fn engine_spec(args: &RunArgs) -> Result<EngineSpec> {
    let kind = EngineKind::parse(&args.engine).ok_or_else(|| {
        anyhow!(
            "unknown engine `{}` ({})",
            args.engine,
            EngineKind::ALL.map(EngineKind::name).join(", ")
        )
    })?;
    let multise_only = [
        (args.no_coalesce, "--no-coalesce"),
        (args.coalesce.is_some(), "--coalesce"),
        (args.pick != "topo", "--pick"),
        (args.linear_only, "--linear-only"),
        (args.no_float, "--no-float"),
        (args.dump_state, "--dump-state"),
        (args.trace, "--trace"),
        (args.bdd_order.is_some(), "--bdd-order"),
        (args.bdd_atoms.is_some(), "--bdd-atoms"),
        (args.bdd_reorder, "--bdd-reorder"),
    ];
    if args.fallback.is_some() && !matches!(kind, EngineKind::Multise | EngineKind::Ssm | EngineKind::Dsm) {
        bail!("--fallback applies to --engine multise, ssm and dsm only");
    }
    if args.race_after.is_some() && !matches!(kind, EngineKind::Multise | EngineKind::Ssm | EngineKind::Dsm) {
        bail!("--race-after applies to --engine multise, ssm and dsm only");
    }
    if args.race_in.is_some() && !matches!(kind, EngineKind::Multise | EngineKind::Ssm | EngineKind::Dsm) {
        bail!("--race-in applies to --engine multise, ssm and dsm only");
    }
    if kind != EngineKind::Multise {
        if let Some((_, flag)) = multise_only.iter().find(|(on, _)| *on) {
            bail!("{flag} applies to --engine multise only");
        }
    }
    let concolic_only = [
        (args.partial_solutions, "--partial-solutions"),
        (args.seed_input.is_some(), "--seed-input"),
    ];
    if kind != EngineKind::Concolic {
        if let Some((_, flag)) = concolic_only.iter().find(|(on, _)| *on) {
            bail!("{flag} applies to --engine concolic only");
        }
    }
    let mut spec = EngineSpec::new(kind);
    spec.merging = merging_of(args)?;
    if kind == EngineKind::Concolic {
        let c = &mut spec.concolic;
        let name = args.search.as_deref().unwrap_or("generational");
        c.strategy = ConcolicStrategy::parse(name)
            .ok_or_else(|| anyhow!("unknown searcher `{name}` for --engine concolic (dfs, bfs, generational)"))?;
        c.partial_solutions = args.partial_solutions;
        if let Some(f) = &args.seed_input {
            let bytes = std::fs::read(f).with_context(|| format!("cannot read the seed input {}", f.display()))?;
            if f.extension().is_some_and(|e| e == "json") {
                let test: TestCase = serde_json::from_slice(&bytes)
                    .with_context(|| format!("{}: not a braid test (a .json seed is one)", f.display()))?;
                c.seed_inputs = test.inputs;
            } else {
                c.seed_bytes = Some(bytes);
            }
        }
    }
    let o = &mut spec.multise;
    match (args.coalesce.as_deref(), args.no_coalesce) {
        (Some("never"), _) | (None, true) => o.coalesce = false,
        (Some("always"), false) => o.joins = Joins::All,
        (Some("auto"), false) => o.joins = Joins::Similar,
        (None, false) => {}
        (Some(_), true) => bail!("--no-coalesce is --coalesce never: give one of them"),
        (Some(other), false) => bail!("unknown --coalesce `{other}` (always, auto, never)"),
    }
    o.pick = Pick::parse(&args.pick).ok_or_else(|| anyhow!("unknown pick `{}` (topo, dfs, bfs)", args.pick))?;
    o.linear_only = args.linear_only;
    o.no_float = args.no_float;
    o.trace = args.trace;
    o.dump_state = args.dump_state;
    o.var_order = match args.bdd_order.as_deref() {
        None | Some("inputs") => VarOrder::Inputs,
        Some("creation") => VarOrder::Creation,
        Some(other) => bail!("unknown --bdd-order `{other}` (inputs, creation)"),
    };
    o.bit_atoms = match args.bdd_atoms.as_deref() {
        Some("predicates") => false,
        None | Some("bits") => true,
        Some(other) => bail!("unknown --bdd-atoms `{other}` (predicates, bits)"),
    };
    o.reorder = args.bdd_reorder;
    let race = match args.race_after {
        None => FALLBACK.race_after,
        Some(_) => race_after(args)?.map(|ms| std::time::Duration::from_millis(ms as u64)),
    };
    let threads = race_in_thread(args, FALLBACK.threads)?;
    o.fallback = fallback_on(args)?.then_some(Fallback {
        race_after: race,
        threads,
        ..FALLBACK
    });
    Ok(spec)
}

fn run(args: RunArgs) -> Result<i32> {
    let (report, dump) = explore_program(&args, Convention::Auto, testcomp::Goal::Branches, print_run)?;
    print_run(&args, &report, dump)
}

/// How `braid run` and `braid verify` print a report (also the backstop's,
/// [`explore_program`]), and the exit status it gives.
type Print = fn(&RunArgs, &Report, Option<String>) -> Result<i32>;

/// `braid run`'s report: exit status 1 if it found a bug.
fn print_run(args: &RunArgs, report: &Report, dump: Option<String>) -> Result<i32> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report.json())?);
    } else {
        print!("{}", report.human());
    }
    if let Some(state) = dump {
        if args.json {
            eprint!("{state}");
        } else {
            print!("{state}");
        }
    }
    Ok(if report.result.bugs.is_empty() { 0 } else { 1 })
}

/// What a run whose thread did not come back by its limit handed over
/// ([`explore_program`]'s backstop): its tests, bugs and coverage, and why
/// it is incomplete.
fn overrun_result(
    budget: &Budget,
    tally: &braid_engine::Tally,
    engine: String,
    branches_total: usize,
    loaded_incomplete: Option<String>,
) -> braid_engine::RunResult {
    use std::sync::atomic::Ordering::Relaxed;
    let mut r = braid_engine::RunResult {
        engine,
        paths: tally.paths.load(Relaxed),
        tests: tally.tests.load(Relaxed),
        frontier_tests: tally.frontier_tests.load(Relaxed),
        bugs: tally.bugs.lock().map(|b| b.clone()).unwrap_or_default(),
        branches_covered: tally.branches_covered.load(Relaxed),
        branches_total,
        ..Default::default()
    };
    if let Some(reason) = budget.reason() {
        r.incomplete_reasons.insert(reason.to_string());
    }
    r.incomplete_reasons.insert(format!(
        "the run did not end by its limit (its thread did not come back: a solver call that ignores its interrupt, or a large state being freed): ended after {:.1}s with what it had handed over",
        budget.elapsed().as_secs_f64()
    ));
    r.incomplete_reasons.extend(loaded_incomplete);
    r.stats.wall_ms = budget.elapsed().as_millis() as u64;
    r.stats.peak_rss_mb = budget.peak_rss() >> 20;
    r
}

/// `braid verify`: the verdict on unreach-call. FALSE needs a `reach_error`
/// bug (its test replays); TRUE a complete exploration in which no path
/// ends in a bug at all, since a trap may be an artefact of the compiled
/// module (a small stack) that hides the rest of a path; else UNKNOWN.
fn verify(args: RunArgs) -> Result<i32> {
    let (report, _) = explore_program(&args, Convention::Svcomp, testcomp::Goal::ErrorCall, print_verdict)?;
    print_verdict(&args, &report, None)
}

/// `braid verify`'s verdict: exit status 0 TRUE, 1 FALSE, 3 UNKNOWN.
fn print_verdict(args: &RunArgs, report: &Report, _: Option<String>) -> Result<i32> {
    let r = &report.result;
    let reach = r.bugs.iter().find(|b| b.kind == BugKind::ReachError);
    let (verdict, code, why): (&str, i32, Vec<String>) = match reach {
        Some(b) => {
            let test = match &args.out {
                Some(dir) => format!("test {}", dir.join(&b.test).display()),
                None => "--out DIR writes its test".to_string(),
            };
            ("FALSE", 1, vec![format!("reach_error at {} ({test})", b.location)])
        }
        None if !r.complete() => ("UNKNOWN", 3, r.incomplete_reasons.iter().cloned().collect()),
        None if !r.bugs.is_empty() => (
            "UNKNOWN",
            3,
            r.bugs
                .iter()
                .map(|b| {
                    format!(
                        "a path ends in {} at {}, so what follows it is unexplored",
                        b.kind, b.location
                    )
                })
                .collect(),
        ),
        None => ("TRUE", 0, vec![format!("every path explored ({} paths)", r.paths)]),
    };
    if args.json {
        let mut j = report.json();
        j["verdict"] = serde_json::json!(verdict);
        j["why"] = serde_json::json!(why);
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!("{verdict}");
        for w in &why {
            println!("  {w}");
        }
    }
    Ok(code)
}

/// Explores `args.program` as `braid run` does (writing tests under
/// `--out`); `default` is the convention `--convention auto` means here,
/// `goal` the specification of the Test-Comp test suite it writes. If the
/// run's thread does not come back by the limit (a solver call that ignores
/// its interrupt), the budget's backstop writes what the run handed over,
/// prints it with `print` and ends the process.
fn explore_program(
    args: &RunArgs,
    default: Convention,
    goal: testcomp::Goal,
    print: Print,
) -> Result<(Report, Option<String>)> {
    let spec = engine_spec(args)?;
    let search_name = match spec.kind {
        EngineKind::Concolic => "dfs",
        // The merging engines' searcher is that of the dse they race or
        // hand the run over to (dsm's driver is `--driver`).
        _ => args.search.as_deref().unwrap_or("auto"),
    };
    let search = searcher("--search", search_name)?;
    let progress = ProgressMode::parse(&args.progress)
        .ok_or_else(|| anyhow!("unknown --progress `{}` (auto, always, never)", args.progress))?;
    let budget_limits = braid_budget::Limits {
        time: max_time(args.max_time)?,
        memory_mb: max_memory(args.max_memory)?,
    };
    // The limit covers everything from here: compiling a C source and
    // loading the module too.
    braid_budget::install_signal_handlers();
    let budget = Budget::start(budget_limits);
    let convention = match convention_of(&args.convention)? {
        Convention::Auto => default,
        c => c,
    };
    let program_args = ProgramArgs {
        entry: args.entry.clone(),
        wasi: wasi_of(args)?,
        convention,
        cflags: args.cflags.clone(),
        sources: args.sources.iter().map(|p| p.display().to_string()).collect(),
    };
    let Loaded {
        module,
        entry,
        incomplete,
        ..
    } = load_program(&args.program, &program_args, args.allow_unknown_imports, true)?;
    let on_off = |flag: &str, value: &str| match value {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(anyhow!("unknown {flag} `{other}` (on, off)")),
    };
    let unsat_cores = on_off("--unsat-cores", &args.unsat_cores)?;
    let incremental = on_off("--incremental", &args.incremental)?;
    let simplex = on_off("--simplex", &args.simplex)?;
    let loop_merge = on_off("--loop-merge", &args.loop_merge)?;
    let float_solver = match args.float_solver.trim() {
        "auto" => braid_solver::Helper::detect(),
        "none" => None,
        "bitwuzla" => Some(braid_solver::Helper::bitwuzla().ok_or_else(|| {
            anyhow!("--float-solver bitwuzla: no Bitwuzla environment (scripts/install-deps.sh makes it)")
        })?),
        "cvc5" => {
            Some(braid_solver::Helper::cvc5().ok_or_else(|| anyhow!("--float-solver cvc5: no cvc5 on the PATH"))?)
        }
        command => {
            Some(braid_solver::Helper::from_command(command).ok_or_else(|| anyhow!("--float-solver: empty command"))?)
        }
    };
    let run_ahead = match on_off("--run-ahead", &args.run_ahead)? {
        true => braid_engine::RunAhead::On,
        false => braid_engine::RunAhead::Off,
    };
    if let Some(dir) = &args.dump_queries {
        std::fs::create_dir_all(dir).with_context(|| format!("--dump-queries {}", dir.display()))?;
    }
    let config = Config {
        search,
        seed: args.seed,
        unsat_cores,
        incremental,
        simplex,
        loop_merge,
        run_ahead,
        dump_queries: args.dump_queries.clone(),
        float_solver,
        limits: Limits {
            loop_bound: args.loop_bound,
            max_states: args.max_states,
            solver_timeout_ms: args
                .solver_timeout
                .or_else(|| default_solver_timeout(spec.kind, budget_limits.time)),
        },
    };
    let program = args.program.display().to_string();
    let entry_name = module.func(entry).name.clone();
    let engine = spec.build(&module, entry, &program, config)?;
    let testcomp = is_wasm(&args.program).then_some((args.program.as_path(), entry_name.as_str(), goal));
    let mut sink = RunSink::new(args.out.as_deref(), testcomp, progress)?;
    sink.stop_on_error(&budget);
    let closer = sink.closer();
    let mut rec = Recorder::new(
        &module,
        entry,
        &program,
        program_args.run_args(),
        budget.clone(),
        &mut sink,
    );
    let order = match spec.kind {
        EngineKind::Multise => args.pick.clone(),
        EngineKind::Ssm => "topological".into(),
        EngineKind::Concolic => spec.concolic.strategy.name().into(),
        // dsm's order is its driver's (fast-forwarding aside).
        EngineKind::Dsm => match spec.merging.as_ref().map(|m| m.strategy) {
            Some(Strategy::Dynamic { driver, .. }) => driver.name().into(),
            _ => search.name().into(),
        },
        _ => search.name().into(),
    };
    let tally = rec.tally();
    let (mine, engine_name, order_name) = (args.clone(), spec.kind.name().to_string(), order.clone());
    let branches_total = 2 * module.branch_count();
    let loaded_incomplete = incomplete.clone();
    budget.backstop(move |budget| {
        if let Some(c) = closer {
            c.close(Duration::from_millis(500));
        }
        let report = Report::new(
            &mine.program.display().to_string(),
            &order_name,
            overrun_result(budget, &tally, engine_name, branches_total, loaded_incomplete),
        );
        if let Some(dir) = &mine.out {
            if let Err(e) = report.write_summary(dir) {
                eprintln!("braid: {e:#}");
            }
        }
        let code = print(&mine, &report, None).unwrap_or(2);
        braid_budget::end_process(code)
    });
    let result = explore(engine, &budget, &mut rec);
    // `--stall`, the backstop's test: a run whose thread never comes back.
    // Otherwise the thread claims the run's end, unless the backstop is
    // ending the process already.
    if args.stall || !budget.ending() {
        loop {
            std::thread::park();
        }
    }
    drop(rec);
    sink.finish();
    let mut result = result?;
    if let Some(e) = sink.error.take() {
        return Err(e);
    }
    result.incomplete_reasons.extend(incomplete);
    let dump = result.state_dump.take();
    let report = Report::new(&program, &order, result);
    if let Some(dir) = &args.out {
        report.write_summary(dir)?;
    }
    Ok((report, dump))
}

fn bench_command(
    suite: PathBuf,
    engines: Vec<String>,
    json: bool,
    max_time: f64,
    search: &str,
    driver: Option<String>,
) -> Result<i32> {
    let search = searcher("--search", search)?;
    let driver = driver.map(|name| searcher("--driver", &name)).transpose()?;
    if max_time == 0.0 {
        bail!("--max-time must be a positive number of seconds");
    }
    bench::bench(bench::BenchArgs {
        suite,
        engines,
        json,
        max_time: self::max_time(Some(max_time))?,
        search,
        driver,
    })
}

fn convention_of(s: &str) -> Result<Convention> {
    Convention::parse(s).ok_or_else(|| anyhow!("unknown --convention `{s}` (auto, svcomp, klee, owi)"))
}

/// `--sym-args` and `--sym-stdin`, for WebAssembly programs only.
fn wasi_of(args: &RunArgs) -> Result<WasiConfig> {
    let sym_args = match args.sym_args.as_deref() {
        Some([n, l]) => Some((*n, *l)),
        _ => None,
    };
    let c = WasiConfig {
        sym_args,
        sym_stdin: args.sym_stdin.unwrap_or(0),
    };
    if c != WasiConfig::default() && !is_wasm(&args.program) {
        bail!("--sym-args and --sym-stdin apply to WebAssembly programs only");
    }
    if sym_args.is_some_and(|(n, l)| n > 64 || l > 1024) || c.sym_stdin > 65536 {
        bail!("--sym-args takes at most 64 arguments of 1024 bytes, --sym-stdin at most 65536 bytes");
    }
    Ok(c)
}

/// The state-merging settings of `ssm` and `dsm` (`None` for other engines,
/// which reject the merging flags).
fn merging_of(args: &RunArgs) -> Result<Option<Merging>> {
    let engine = args.engine.as_str();
    let flags = [
        (args.merge.is_some(), "--merge"),
        (args.alpha.is_some(), "--alpha"),
        (args.beta.is_some(), "--beta"),
        (args.kappa.is_some(), "--kappa"),
        (args.split_after.is_some(), "--split-after"),
    ];
    if !matches!(engine, "ssm" | "dsm") {
        if let Some((_, flag)) = flags.iter().find(|(on, _)| *on) {
            bail!("{flag} applies to --engine ssm and dsm only");
        }
    }
    if args.delta.is_some() && engine != "dsm" {
        bail!("--delta applies to --engine dsm only");
    }
    if args.driver.is_some() && engine != "dsm" {
        bail!("--driver applies to --engine dsm only (--search sets the searcher of the others)");
    }
    let driver = match args.driver.as_deref() {
        None => braid_engine::dse::merging::DSM_DRIVER,
        Some(name) => searcher("--driver", name)?,
    };
    let strategy = match engine {
        "ssm" => Strategy::Static,
        "dsm" => match args.delta {
            Some(0) => bail!("--delta must be at least 1"),
            d => Strategy::Dynamic {
                delta: d.unwrap_or(8),
                driver,
            },
        },
        _ => return Ok(None),
    };
    if args.delta.is_some_and(|d| d > 1 << 20) {
        bail!("--delta must be at most {}", 1 << 20);
    }
    let name = args.merge.as_deref().unwrap_or("qce");
    let similarity = Similarity::parse(name).ok_or_else(|| anyhow!("unknown --merge `{name}` (none, all, qce)"))?;
    let defaults = QceParams::default();
    let qce = QceParams {
        alpha: args.alpha.unwrap_or(defaults.alpha),
        beta: args.beta.unwrap_or(defaults.beta),
        kappa: args.kappa.unwrap_or(defaults.kappa),
    };
    check_qce_params(&qce)?;
    Ok(Some(Merging {
        strategy,
        similarity,
        qce,
        split_after_ms: args.split_after.unwrap_or(braid_engine::dse::merging::SPLIT_AFTER_MS),
        fallback: fallback_on(args)?.then_some(braid_engine::dse::merging::FALLBACK),
        race_after_ms: race_after(args)?,
        race_threads: race_in_thread(args, false)?,
        merge_for_ms: None,
    }))
}

/// `--race-after`: milliseconds (50 by default) or off.
fn race_after(args: &RunArgs) -> Result<Option<u32>> {
    match args.race_after.as_deref() {
        None => Ok(Some(braid_engine::dse::merging::RACE_AFTER_MS)),
        Some("off") => Ok(None),
        Some(ms) => match ms.parse::<u32>() {
            Ok(ms) => Ok(Some(ms)),
            Err(_) => bail!("--race-after takes milliseconds or `off`, not `{ms}`"),
        },
    }
}

/// `--race-in`: on a thread or in turns (`default`: on a thread).
fn race_in_thread(args: &RunArgs, default: bool) -> Result<bool> {
    match args.race_in.as_deref() {
        None => Ok(default),
        Some("thread") => Ok(true),
        Some("turns") => Ok(false),
        Some(other) => bail!("unknown --race-in `{other}` (thread, turns)"),
    }
}

/// `--fallback`: dse (the default) or none.
fn fallback_on(args: &RunArgs) -> Result<bool> {
    match args.fallback.as_deref() {
        None | Some("dse") => Ok(true),
        Some("none") => Ok(false),
        Some(other) => bail!("unknown --fallback `{other}` (dse, none)"),
    }
}

fn check_qce_params(params: &QceParams) -> Result<()> {
    if !(params.alpha.is_finite() && params.beta.is_finite() && (0.0..=1.0).contains(&params.beta)) {
        bail!("--alpha must be a number and --beta a probability (0..1)");
    }
    Ok(())
}

fn qce(program: &Path, params: QceParams) -> Result<i32> {
    check_qce_params(&params)?;
    let m = load(program, &ProgramArgs::default())?.module;
    let q = Qce::new(&m, params);
    println!(
        "QCE with alpha = {}, beta = {}, kappa = {}",
        params.alpha, params.beta, params.kappa
    );
    for (i, f) in m.functions.iter().enumerate() {
        let g = FuncId(i as u32);
        let mut at: Vec<u32> = f.labels.iter().map(|(_, s)| *s).collect();
        at.insert(0, 0);
        at.dedup();
        for s in at {
            let name = |v: braid_ir::VarId| f.vars[v.0 as usize].as_str();
            let cell = |(b, k): braid_engine::qce::Cell| format!("*({}+{k})", name(b));
            let hot: Vec<&str> = q.hot(g, s).into_iter().map(name).collect();
            let mut adds: Vec<String> = (0..f.vars.len() as u32)
                .map(braid_ir::VarId)
                .map(|v| (v, q.added(g, s, v)))
                .filter(|(_, a)| *a > 0.0)
                .map(|(v, a)| format!("{}={a:.4}", name(v)))
                .collect();
            adds.extend(
                q.cells(g)
                    .iter()
                    .map(|c| (*c, q.cell_added(g, s, *c)))
                    .filter(|(_, a)| *a > 0.0)
                    .map(|(c, a)| format!("{}={a:.4}", cell(c))),
            );
            let mut addressed: Vec<String> = (0..f.vars.len() as u32)
                .map(braid_ir::VarId)
                .filter(|v| q.addressed(g, s, *v))
                .map(|v| name(v).to_string())
                .collect();
            addressed.extend(
                q.cells(g)
                    .iter()
                    .filter(|c| q.cell_addressed(g, s, **c))
                    .map(|c| cell(*c)),
            );
            let list = |items: &[String]| {
                if items.is_empty() {
                    "-".to_string()
                } else {
                    items.join(" ")
                }
            };
            println!(
                "{}  Q_t={:.4}  H={{{}}}  Q_add: {}  addresses: {}",
                f.location(s),
                q.total(g, s),
                hot.join(", "),
                list(&adds),
                list(&addressed)
            );
        }
    }
    Ok(0)
}

/// The program as a test's run arguments lower it, its concrete code
/// ([`Replayer`]) and, for WebAssembly, the module made ready for wasmi.
struct Replaying {
    loaded: Loaded,
    replayer: Replayer,
    wasmi: Option<Result<Prepared, String>>,
}

fn replay_tests(program: &Path, tests: &[PathBuf]) -> Result<i32> {
    // The program as each test's run arguments lower it. WebAssembly tests
    // (C compiles to it) also run in wasmi, an independent runtime.
    let mut modules: std::collections::BTreeMap<Vec<String>, Replaying> = Default::default();
    let mut failed = 0;
    let mut files = Vec::new();
    // `braid replay main.c lib.c DIR` as `braid run main.c lib.c` was
    // typed: the further sources must be the ones the tests record.
    let is_source = |p: &Path| !p.is_dir() && cc::is_source(p);
    let sources: Vec<&PathBuf> = tests.iter().filter(|t| is_source(t)).collect();
    for t in tests.iter().filter(|t| !is_source(t)) {
        if t.is_dir() {
            let mut in_dir: Vec<PathBuf> = std::fs::read_dir(t)
                .with_context(|| format!("cannot read {}", t.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            in_dir.sort();
            files.extend(in_dir);
        } else {
            files.push(t.clone());
        }
    }
    for path in &files {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let test: TestCase =
            serde_json::from_str(&text).with_context(|| format!("{}: not a braid test", path.display()))?;
        let args = ProgramArgs::parse(&test.run_args).with_context(|| format!("{}: run_args", path.display()))?;
        let recorded: Vec<&String> = test
            .run_args
            .windows(2)
            .filter(|w| w[0] == "--source")
            .map(|w| &w[1])
            .collect();
        if let Some(s) = sources
            .iter()
            .find(|s| !recorded.iter().any(|r| Path::new(r) == s.as_path()))
        {
            bail!(
                "{}: {} is not a source of this test's run (it records {}); the tests compile their recorded sources themselves",
                path.display(),
                s.display(),
                if recorded.is_empty() { "none".to_string() } else { recorded.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ") }
            );
        }
        let Replaying {
            loaded,
            replayer,
            wasmi,
        } = match modules.entry(test.run_args.clone()) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let loaded = load(program, &args)?;
                let wasmi = loaded.wasm.as_ref().map(|bytes| Prepared::new(bytes, args.convention));
                e.insert(Replaying {
                    loaded,
                    replayer: Replayer::default(),
                    wasmi,
                })
            }
        };
        let module = &loaded.module;
        let mut verdict = replayer
            .replay(module, &test)
            .and_then(|run| same_output("braid", &test, &run.stdout, &run.stderr));
        if let (Ok(()), Some(wasmi)) = (&verdict, wasmi) {
            verdict = wasmi
                .as_ref()
                .map_err(String::clone)
                .and_then(|wasmi| wasmi_agrees(module, wasmi, &test, &args.wasi));
        }
        match verdict {
            Ok(()) => println!("ok {}", path.display()),
            Err(why) => {
                failed += 1;
                println!("FAIL {}: {why}", path.display());
            }
        }
    }
    println!("{} passed, {} failed", files.len() - failed, failed);
    Ok(if failed == 0 { 0 } else { 1 })
}

/// Whether a run printed what the test recorded.
fn same_output(runtime: &str, test: &TestCase, stdout: &[u8], stderr: &[u8]) -> Result<(), String> {
    for (name, recorded, actual) in [("stdout", &test.stdout, stdout), ("stderr", &test.stderr, stderr)] {
        let actual = String::from_utf8_lossy(actual);
        if recorded.as_deref().unwrap_or("") != actual {
            return Err(format!(
                "{runtime}: recorded {name} {:?}, the run printed {actual:?}",
                recorded.as_deref().unwrap_or("")
            ));
        }
    }
    Ok(())
}

/// Whether wasmi, fed the test's inputs, ends the way the test recorded
/// and prints the same.
pub(crate) fn wasmi_agrees(
    module: &Module,
    wasmi: &Prepared,
    test: &TestCase,
    wasi: &WasiConfig,
) -> Result<(), String> {
    use braid_engine::Outcome;
    use braid_wasm::wasmi_replay::Ending;
    let inputs: Vec<(String, braid_term::Value)> = test
        .inputs
        .iter()
        .filter_map(|i| i.parsed().map(|v| (i.name.clone(), v)))
        .collect();
    // `$init` is the entry of a module run by its start function.
    let export = (test.entry != "$init").then(|| test.entry.trim_start_matches('$'));
    let run = wasmi.run(export, &inputs, wasi)?;
    let agrees = match (&test.outcome, &run.ending) {
        (Outcome::Bug { bug, .. }, Ending::Bug(kind)) => bug == kind,
        (Outcome::End { returned, .. }, Ending::Returned(v)) => *returned == v.as_ref().map(|v| module.render_value(v)),
        // `proc_exit(code)` is `halt code`: the outcome's value.
        (Outcome::End { returned, .. }, Ending::Exited(code)) => {
            *returned == Some(module.render_value(&braid_term::Value::bv(32, *code as u32 as u64)))
        }
        (Outcome::End { returned: None, .. }, Ending::Halted) => true,
        _ => false,
    };
    if agrees {
        same_output("wasmi", test, &run.stdout, &run.stderr)
    } else {
        let recorded = serde_json::to_string(&test.outcome).unwrap_or_default();
        Err(format!("wasmi: recorded {recorded}, wasmi gave {:?}", run.ending))
    }
}
