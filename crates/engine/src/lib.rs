//! braid's engines and what they share: exploration settings, searchers,
//! the concrete interpreter used for replay and coverage, and result types.

pub mod concrete;
pub mod config;
pub mod dse;
pub mod multise;
pub mod qce;
pub mod replay;
pub mod results;
pub mod search;
pub mod semantics;

use std::time::Duration;
use thiserror::Error;

pub use config::{Config, Limits, SearchKind};
pub use results::{Outcome, RunResult, TestCase};

#[derive(Debug, Error)]
pub enum EngineError {
    #[error("parameter `{1}` of entry function `{0}` needs a sort (e.g. `{1}: int`) to become a symbolic input")]
    UntypedEntryParameter(String, String),
}

/// Periodic progress of a run, for a progress bar.
#[derive(Clone, Debug)]
pub struct Progress {
    pub paths: u64,
    pub live_states: usize,
    pub elapsed: Duration,
}
