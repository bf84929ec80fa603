//! `braid bench SUITE --engines a,b,...`: every program of a suite under
//! every engine, in one run, side by side. Each run's tests are replayed:
//! the engines must agree on the branches their tests cover and on the bugs
//! they find. Markdown tables by default, one JSON object with `--json`.

use anyhow::{anyhow, bail, Context, Result};
use braid_engine::dse::merging::{Merging, Similarity, Strategy};
use braid_engine::dse::Dse;
use braid_engine::multise::{self, Multise};
use braid_engine::qce::QceParams;
use braid_engine::replay::replay;
use braid_engine::results::Branch;
use braid_engine::{Config, Limits, RunResult, SearchKind};
use braid_wasm::wasi::Config as WasiConfig;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The engines `braid bench` knows, by the name `--engines` uses.
const ENGINES: [&str; 8] = [
    "dse",
    "ssm-none",
    "ssm-all",
    "ssm-qce",
    "dsm",
    "dsm-all",
    "multise",
    "multise-no-coalesce",
];

pub struct BenchArgs {
    pub suite: PathBuf,
    pub engines: Vec<String>,
    pub json: bool,
    pub max_time: Option<Duration>,
    pub search: SearchKind,
}

/// One engine's run of one program, as the tables show it.
struct Summary {
    engine: String,
    result: RunResult,
    timed_out: bool,
    covered: BTreeSet<Branch>,
    bugs: BTreeSet<(String, String)>,
    replay_failures: usize,
}

impl Summary {
    fn json(&self) -> Value {
        let r = &self.result;
        let s = &r.stats;
        let pct = |part: u64| {
            if s.wall_ms == 0 {
                0.0
            } else {
                100.0 * part as f64 / s.wall_ms as f64
            }
        };
        json!({
            "engine": self.engine,
            "time_ms": s.wall_ms,
            "complete": r.complete(),
            "timed_out": self.timed_out,
            "paths": r.paths,
            "paths_exact": r.paths_exact,
            "tests": r.tests.len(),
            "replay_failures": self.replay_failures,
            "bugs": self.bugs.len(),
            "branches_covered": self.covered.len(),
            "branches_explored": s.branches_explored,
            "solver_queries": s.solver_queries,
            "solver_calls": s.solver_calls,
            "solver_ms": s.solver_ms,
            "solver_pct": pct(s.solver_ms),
            "bdd_ms": s.bdd_ms,
            "bdd_pct": pct(s.bdd_ms),
            "operations": s.operations,
            "statements": s.statements,
            "states_merged": s.states_merged,
            "merge_attempts": s.merge_attempts,
            "fast_forwards": s.fast_forwards,
            "fast_forwards_merged": s.fast_forwards_merged,
            "ite_queries": s.ite_queries,
            "avg_value_summary_size": s.avg_value_summary_size,
            "sharing_factor": s.sharing_factor,
        })
    }

    /// Average time of one solver call (ms).
    fn call_ms(&self) -> f64 {
        let s = &self.result.stats;
        s.solver_ms as f64 / s.solver_calls.max(1) as f64
    }
}

struct Row {
    program: String,
    engines: Vec<Summary>,
}

impl Row {
    /// Whether every engine's tests replay and cover the first engine's
    /// branches and bugs; `None` when some run is incomplete (nothing to
    /// compare).
    fn agree(&self) -> Option<bool> {
        if self.engines.iter().any(|e| !e.result.complete()) {
            return None;
        }
        let first = &self.engines[0];
        Some(
            self.engines
                .iter()
                .all(|e| e.replay_failures == 0 && e.covered == first.covered && e.bugs == first.bugs),
        )
    }

    /// `first / second` of a measure, when both are positive.
    fn ratio(&self, f: impl Fn(&Summary) -> f64) -> Option<f64> {
        let [a, b, ..] = self.engines.as_slice() else {
            return None;
        };
        let (x, y) = (f(a), f(b));
        (x > 0.0 && y > 0.0).then(|| x / y)
    }

    /// The program's number of paths, when a complete run counted them
    /// exactly (then every complete run explored that many).
    fn exact_paths(&self) -> Option<u64> {
        self.engines
            .iter()
            .find(|e| e.result.paths_exact && e.result.complete())
            .map(|e| e.result.paths)
    }

    fn json(&self) -> Value {
        let engines: serde_json::Map<String, Value> =
            self.engines.iter().map(|e| (e.engine.clone(), e.json())).collect();
        let ms = |e: &Summary| e.result.stats.wall_ms as f64;
        let solver_ms = |e: &Summary| e.result.stats.solver_ms as f64;
        let ops = |e: &Summary| e.result.stats.operations as f64;
        json!({
            "program": self.program,
            "engines": engines,
            "exact_paths": self.exact_paths(),
            "time_ratio": self.ratio(ms),
            "solver_time_ratio": self.ratio(solver_ms),
            "solver_call_ratio": self.ratio(Summary::call_ms),
            "ops_ratio": self.ratio(ops),
            "agree": self.agree(),
        })
    }
}

/// The suite's programs: `.bir` files of a directory (names compared with
/// their numbers as numbers), or one file.
fn programs(suite: &Path) -> Result<Vec<PathBuf>> {
    if suite.is_file() {
        return Ok(vec![suite.to_path_buf()]);
    }
    let dir = std::fs::read_dir(suite).with_context(|| format!("cannot read the suite {}", suite.display()))?;
    let mut files: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "bir" || e == "wasm"))
        .collect();
    files.sort_by_key(|p| natural_key(&p.display().to_string()));
    if files.is_empty() {
        bail!("{}: no programs (.bir files) in the suite", suite.display());
    }
    Ok(files)
}

/// `echo-10-4` after `echo-9-4`: digit runs compare as numbers.
fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut n = c.to_digit(10).unwrap_or(0) as u64;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d as u64);
                chars.next();
            }
            key.push((std::mem::take(&mut text), n));
        } else {
            text.push(c);
        }
    }
    key.push((text, 0));
    key
}

/// The `--entry` and WASI settings of a suite program, from the first
/// `// braid-args:` line of the C source beside it.
fn example_args(path: &Path) -> Result<(Option<String>, WasiConfig)> {
    let Ok(src) = std::fs::read_to_string(path.with_extension("c")) else {
        return Ok((None, WasiConfig::default()));
    };
    let words: Vec<String> = src
        .lines()
        .find_map(|l| l.strip_prefix("// braid-args:"))
        .map(|a| a.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    crate::program_args(&words)
}

/// Runs one engine on one program.
fn run_engine(path: &Path, engine: &str, args: &BenchArgs) -> Result<Summary> {
    let crate::Loaded {
        module,
        entry,
        incomplete,
    } = {
        let (entry, wasi) = example_args(path)?;
        crate::load_program(path, entry.as_deref(), false, true, &wasi)?
    };
    let program = path.display().to_string();
    let config = Config {
        search: args.search,
        seed: 0,
        limits: Limits {
            max_time: args.max_time,
            ..Limits::default()
        },
    };
    let merging = |strategy, similarity| Merging {
        strategy,
        similarity,
        qce: QceParams::default(),
    };
    let dse = |m: Option<Merging>| {
        let d = Dse::new(&module, entry, &program, config.clone());
        match m {
            Some(m) => d.with_merging(m),
            None => d,
        }
        .run(&mut |_| {})
    };
    let dsm = Strategy::Dynamic { delta: 8 };
    let result = match engine {
        "dse" => dse(None)?,
        "ssm-none" => dse(Some(merging(Strategy::Static, Similarity::None)))?,
        "ssm-all" => dse(Some(merging(Strategy::Static, Similarity::All)))?,
        "ssm-qce" => dse(Some(merging(Strategy::Static, Similarity::Qce)))?,
        "dsm" => dse(Some(merging(dsm, Similarity::Qce)))?,
        "dsm-all" => dse(Some(merging(dsm, Similarity::All)))?,
        "multise" | "multise-no-coalesce" => {
            let opts = multise::Options {
                coalesce: engine == "multise",
                ..multise::Options::default()
            };
            Multise::new(&module, entry, &program, config.clone(), opts)
                .run(&mut |_| {}, false)?
                .0
        }
        other => bail!("unknown engine `{other}` (known: {})", ENGINES.join(", ")),
    };
    let mut result = result;
    result.incomplete_reasons.extend(incomplete);
    let timed_out = result.incomplete_reasons.iter().any(|r| r.starts_with("time limit"));
    let mut covered = BTreeSet::new();
    let mut replay_failures = 0;
    for t in &result.tests {
        match replay(&module, t) {
            Ok(run) => covered.extend(run.covered),
            Err(_) => replay_failures += 1,
        }
    }
    let bugs = result
        .bugs
        .iter()
        .map(|b| (b.kind.clone(), b.location.clone()))
        .collect();
    Ok(Summary {
        engine: engine.to_string(),
        result,
        timed_out,
        covered,
        bugs,
        replay_failures,
    })
}

/// `braid bench`: exit 0 when the engines agree on every program where
/// all runs completed, 1 otherwise.
pub fn bench(args: BenchArgs) -> Result<i32> {
    if args.engines.is_empty() {
        bail!("--engines needs at least one engine ({})", ENGINES.join(", "));
    }
    if let Some(bad) = args.engines.iter().find(|e| !ENGINES.contains(&e.as_str())) {
        return Err(anyhow!("unknown engine `{bad}` (known: {})", ENGINES.join(", ")));
    }
    let files = programs(&args.suite)?;
    let total = (files.len() * args.engines.len()) as u64;
    let bar = if !args.json && std::io::stderr().is_terminal() {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}").expect("a valid template"));
    let mut rows = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into_owned());
        let mut engines = Vec::new();
        for e in &args.engines {
            bar.set_message(format!("{name} under {e}"));
            engines.push(run_engine(f, e, &args)?);
            bar.inc(1);
        }
        rows.push(Row { program: name, engines });
    }
    bar.finish_and_clear();
    if args.json {
        let rows: Vec<Value> = rows.iter().map(Row::json).collect();
        println!("{}", serde_json::to_string_pretty(&json!({ "rows": rows }))?);
    } else {
        print!("{}", markdown(&rows, &args));
    }
    Ok(if rows.iter().all(|r| r.agree() != Some(false)) {
        0
    } else {
        1
    })
}

fn markdown(rows: &[Row], args: &BenchArgs) -> String {
    let mut s = String::new();
    let limit = args.max_time.map(|t| t.as_secs_f64());
    let _ = writeln!(
        s,
        "| program | engine | time ms | paths | paths/s | tests | queries | Z3 calls | solver % | BDD % | VS size | sharing | operations | merged | covered | explored | bugs |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for row in rows {
        let exact = row.exact_paths();
        for e in &row.engines {
            let r = &e.result;
            let st = &r.stats;
            let time = match (e.timed_out, limit) {
                (true, Some(t)) => format!(">{t}s"),
                _ => st.wall_ms.to_string(),
            };
            let paths = if r.paths == u64::MAX {
                "~2^64+".to_string()
            } else if r.paths_exact {
                r.paths.to_string()
            } else {
                format!("~{}", r.paths)
            };
            let rate = match exact {
                Some(p) if r.complete() => format!("{:.0}", p as f64 / (st.wall_ms.max(1) as f64 / 1000.0)),
                _ => "-".into(),
            };
            let pct = |x: u64| format!("{:.0}", 100.0 * x as f64 / st.wall_ms.max(1) as f64);
            // The sharing factor divides the path count; a saturated
            // estimate says nothing.
            let sharing = match (r.paths_exact, r.paths) {
                (_, u64::MAX) => "-".to_string(),
                (true, _) => format!("{:.1}", st.sharing_factor),
                (false, _) => format!("~{:.1}", st.sharing_factor),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {time} | {paths} | {rate} | {} | {} | {} | {} | {} | {:.1} | {sharing} | {} | {} | {} | {} | {} |",
                row.program,
                e.engine,
                r.tests.len(),
                st.solver_queries,
                st.solver_calls,
                pct(st.solver_ms),
                pct(st.bdd_ms),
                st.avg_value_summary_size,
                st.operations,
                st.states_merged,
                e.covered.len(),
                st.branches_explored.map_or("-".into(), |b| b.to_string()),
                e.bugs.len(),
            );
        }
    }
    if args.engines.len() >= 2 {
        let (a, b) = (&args.engines[0], &args.engines[1]);
        let _ = writeln!(s, "\nRatios {a} / {b}:\n");
        let _ = writeln!(
            s,
            "| program | time | solver time | solver-call time | operations | agree |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        let show = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}"));
        let mut logs = Vec::new();
        for row in rows {
            let ms = |e: &Summary| e.result.stats.wall_ms as f64;
            let time = row.ratio(ms);
            if row.engines.iter().all(|e| e.result.complete()) {
                logs.extend(time.map(f64::ln));
            }
            let agree = match row.agree() {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "n/a (incomplete)",
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {agree} |",
                row.program,
                show(time),
                show(row.ratio(|e| e.result.stats.solver_ms as f64)),
                show(row.ratio(Summary::call_ms)),
                show(row.ratio(|e| e.result.stats.operations as f64)),
            );
        }
        if !logs.is_empty() {
            let geo = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
            let _ = writeln!(s, "\nGeometric mean of the time ratio over complete rows: {geo:.2}");
        }
    }
    s
}
