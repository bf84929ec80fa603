//! One engine interface: every engine explores under a [`Budget`], hands
//! each test to a [`Recorder`] as soon as it exists, and when stopped early
//! turns its frontier into tests. The command line, `braid bench` and the
//! property tests choose an engine here and nowhere else.

use crate::dse::merging::{Merging, Similarity, Strategy};
use crate::dse::{concolic, Dse};
use crate::multise::{self, Multise};
use crate::record::Recorder;
use crate::results::RunResult;
use crate::{Config, EngineError};
use braid_budget::Budget;
use braid_ir::{FuncId, Module};
use std::fmt;

/// The engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// Forking symbolic execution, one state per path (KLEE).
    Dse,
    /// Static state merging (seed 004, Algorithm 1).
    Ssm,
    /// Dynamic state merging (seed 004, Algorithm 2).
    Dsm,
    /// Value summaries (seed 000).
    Multise,
    /// Concolic execution with MuSE's partial solutions (seed 002).
    Concolic,
}

impl EngineKind {
    pub const ALL: [EngineKind; 5] = [
        EngineKind::Dse,
        EngineKind::Ssm,
        EngineKind::Dsm,
        EngineKind::Multise,
        EngineKind::Concolic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Dse => "dse",
            EngineKind::Ssm => "ssm",
            EngineKind::Dsm => "dsm",
            EngineKind::Multise => "multise",
            EngineKind::Concolic => "concolic",
        }
    }

    pub fn parse(s: &str) -> Option<EngineKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Whether the engine merges states (and so turns merged paths into
    /// tests of their own).
    pub fn merges(self) -> bool {
        matches!(self, EngineKind::Ssm | EngineKind::Dsm | EngineKind::Multise)
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine and its settings.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub kind: EngineKind,
    /// `ssm` and `dsm`: which states merge, and how they are brought together.
    pub merging: Option<Merging>,
    /// `multise`'s options.
    pub multise: multise::Options,
    /// `concolic`'s options.
    pub concolic: concolic::Options,
}

impl EngineSpec {
    /// An engine with its default settings.
    pub fn new(kind: EngineKind) -> EngineSpec {
        let merging = Merging::of;
        EngineSpec {
            kind,
            merging: match kind {
                EngineKind::Ssm => Some(merging(Strategy::Static)),
                EngineKind::Dsm => Some(merging(Strategy::Dynamic {
                    delta: 8,
                    driver: crate::dse::merging::DSM_DRIVER,
                })),
                _ => None,
            },
            multise: multise::Options::default(),
            concolic: concolic::Options::default(),
        }
    }

    /// The variants `braid bench --engines` names.
    pub const BENCH_NAMES: [&'static str; 17] = [
        "dse",
        "ssm",
        "ssm-none",
        "ssm-all",
        "ssm-qce",
        "dsm",
        "dsm-all",
        "multise",
        "multise-always",
        "multise-auto",
        "multise-no-coalesce",
        "concolic",
        "concolic-p",
        "concolic-bfs",
        "concolic-bfs-p",
        "concolic-generational",
        "concolic-generational-p",
    ];

    /// A variant by its `braid bench` name (`ssm-all`, `multise-no-coalesce`, …).
    pub fn named(name: &str) -> Option<EngineSpec> {
        let (kind, variant) = name.split_once('-').unwrap_or((name, ""));
        let mut spec = EngineSpec::new(EngineKind::parse(kind)?);
        match (spec.kind, variant) {
            (_, "") => {}
            (EngineKind::Ssm | EngineKind::Dsm, v) => {
                spec.merging.as_mut()?.similarity = Similarity::parse(v)?;
                if spec.kind == EngineKind::Dsm && v == "none" {
                    return None;
                }
            }
            (EngineKind::Multise, "no-coalesce") => spec.multise.coalesce = false,
            (EngineKind::Multise, "always") => spec.multise.joins = multise::Joins::All,
            (EngineKind::Multise, "auto") => spec.multise.joins = multise::Joins::Similar,
            (EngineKind::Concolic, v) => {
                let (strategy, p) = match v.strip_suffix("p") {
                    Some(s) => (s.strip_suffix('-').unwrap_or(s), true),
                    None => (v, false),
                };
                spec.concolic.partial_solutions = p;
                if !strategy.is_empty() {
                    spec.concolic.strategy = concolic::Strategy::parse(strategy)?;
                }
            }
            _ => return None,
        }
        Some(spec)
    }

    /// The `braid run` arguments that select this variant.
    pub fn run_args(&self) -> Vec<String> {
        let mut args = vec!["--engine".to_string(), self.kind.name().to_string()];
        if let Some(m) = &self.merging {
            let similarity = match m.similarity {
                Similarity::None => "none",
                Similarity::All => "all",
                Similarity::Qce => "qce",
            };
            args.extend(["--merge".to_string(), similarity.to_string()]);
        }
        if self.kind == EngineKind::Multise {
            let coalesce = match (self.multise.coalesce, self.multise.joins) {
                (false, _) => "never",
                (true, multise::Joins::All) => "always",
                (true, multise::Joins::Similar) => "auto",
            };
            args.extend(["--coalesce".to_string(), coalesce.to_string()]);
        }
        if self.kind == EngineKind::Concolic {
            args.extend(["--search".to_string(), self.concolic.strategy.name().to_string()]);
            if self.concolic.partial_solutions {
                args.push("--partial-solutions".to_string());
            }
        }
        args
    }

    /// The engine, ready to run on `entry` of `module`.
    pub fn build<'m>(
        &self,
        module: &'m Module,
        entry: FuncId,
        program: &str,
        config: Config,
    ) -> Result<Box<dyn Engine + 'm>, EngineError> {
        Ok(match self.kind {
            EngineKind::Dse => Box::new(Dse::new(module, entry, program, config)),
            EngineKind::Ssm | EngineKind::Dsm => {
                let merging = self.merging.ok_or(EngineError::MissingSettings(self.kind))?;
                Box::new(Dse::new(module, entry, program, config).with_merging(merging))
            }
            EngineKind::Multise => Box::new(Multise::new(module, entry, program, config, self.multise.clone())),
            EngineKind::Concolic => {
                Box::new(Dse::new(module, entry, program, config).with_concolic(self.concolic.clone()))
            }
        })
    }
}

/// What every engine does.
pub trait Engine {
    fn kind(&self) -> EngineKind;

    /// Explores until done or until `budget` stops it, handing each test to
    /// `rec` as it comes; a stopped run turns its frontier into tests before
    /// it returns. The result's tests, bugs and coverage are filled in by
    /// [`explore`].
    fn run(self: Box<Self>, budget: &Budget, rec: &mut Recorder) -> Result<RunResult, EngineError>;
}

/// Runs `engine` under `budget`: its result with the tests, bugs and
/// coverage the recorder saw, and the budget's stop reason if it stopped.
pub fn explore(engine: Box<dyn Engine + '_>, budget: &Budget, rec: &mut Recorder) -> Result<RunResult, EngineError> {
    let mut r = engine.run(budget, rec)?;
    budget.sample_memory();
    r.stats.peak_rss_mb = budget.peak_rss() >> 20;
    if let Some(reason) = budget.reason() {
        r.incomplete_reasons.insert(reason.to_string());
    }
    r.tests = rec.tests();
    r.frontier_tests = rec.frontier_tests();
    r.bugs = rec.bugs().to_vec();
    r.branches_covered = rec.covered().len();
    r.branches_total = 2 * rec.module().branch_count();
    r.stats.wall_ms = budget.elapsed().as_millis() as u64;
    r.stats.tests_not_reproduced = rec.not_reproduced();
    r.stats.tests_not_written = rec.not_written();
    Ok(r)
}

/// Runs `spec` on `entry` of `module` under `budget`, keeping the tests in
/// memory (for libraries and tests; the command line streams them to disk).
pub fn explore_collect(
    module: &Module,
    entry: FuncId,
    program: &str,
    config: Config,
    spec: &EngineSpec,
    budget: &Budget,
) -> Result<(RunResult, Vec<crate::TestCase>), EngineError> {
    let engine = spec.build(module, entry, program, config)?;
    let mut sink = crate::Collect::default();
    let mut rec = Recorder::new(module, entry, program, Vec::new(), budget.clone(), &mut sink);
    let result = explore(engine, budget, &mut rec)?;
    Ok((result, sink.tests))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_names_round_trip() {
        for name in EngineSpec::BENCH_NAMES {
            let spec = EngineSpec::named(name).unwrap_or_else(|| panic!("{name}"));
            assert!(spec.run_args().contains(&spec.kind.name().to_string()));
        }
        assert!(EngineSpec::named("multise-all").is_none());
        assert!(EngineSpec::named("dsm-none").is_none());
        assert!(EngineSpec::named("ssm-qce").is_some_and(|s| s.merging.is_some()));
    }
}
