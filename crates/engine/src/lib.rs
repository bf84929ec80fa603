//! braid's engines and what they share: exploration settings, searchers,
//! the concrete interpreter used for replay and coverage, and result types.

pub mod concrete;
pub mod config;
pub mod dse;
pub mod multise;
pub mod qce;
pub mod record;
pub mod replay;
pub mod results;
pub mod run;
pub mod search;
pub mod semantics;

use std::time::Duration;
use thiserror::Error;

pub use braid_budget::{Budget, StopReason};
pub use config::{Config, Limits, RunAhead, SearchKind};
pub use record::{Collect, Recorder, Sink, Tally};
pub use results::{Outcome, RunResult, TestCase};
pub use run::{explore, explore_collect, Engine, EngineKind, EngineSpec};

#[derive(Debug, Error)]
pub enum EngineError {
    #[error("parameter `{1}` of entry function `{0}` needs a sort (e.g. `{1}: int`) to become a symbolic input")]
    UntypedEntryParameter(String, String),
    #[error("engine `{0}` needs its settings")]
    MissingSettings(EngineKind),
}

/// Periodic progress of a run, for a progress bar or status line.
#[derive(Clone, Debug)]
pub struct Progress {
    pub elapsed: Duration,
    pub paths: u64,
    pub live_states: usize,
    pub tests: usize,
    pub branches_covered: usize,
    pub branches_total: usize,
    pub rss_bytes: u64,
}
