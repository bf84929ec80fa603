//! Exploration settings shared by the engines.

use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchKind {
    Dfs,
    Bfs,
    /// KLEE's random-path: walk the execution tree from the root, each
    /// branch with equal probability.
    RandomPath,
    /// KLEE's nurs:covnew: states that recently covered new code are more likely.
    CovNew,
}

impl SearchKind {
    pub const ALL: [SearchKind; 4] = [
        SearchKind::Dfs,
        SearchKind::Bfs,
        SearchKind::RandomPath,
        SearchKind::CovNew,
    ];

    pub fn parse(s: &str) -> Option<SearchKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            SearchKind::Dfs => "dfs",
            SearchKind::Bfs => "bfs",
            SearchKind::RandomPath => "random-path",
            SearchKind::CovNew => "covnew",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Arrivals at one loop head per call (so a loop body runs at most this
    /// many times per call), and active frames per function (recursion).
    pub loop_bound: Option<u32>,
    pub max_time: Option<Duration>,
    /// Live states at once; forks beyond it are dropped.
    pub max_states: Option<usize>,
    pub solver_timeout_ms: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub search: SearchKind,
    pub limits: Limits,
    /// Seed of the randomised searchers.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            search: SearchKind::Dfs,
            limits: Limits::default(),
            seed: 0,
        }
    }
}

/// A run's time limit: once it has passed, the run stops.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    deadline: Option<std::time::Instant>,
    limit: Option<Duration>,
    stopped: bool,
}

impl Clock {
    /// Starts the clock of a run with time limit `limit`.
    pub fn start(limit: Option<Duration>) -> Clock {
        Clock {
            deadline: limit.map(|t| std::time::Instant::now() + t),
            limit,
            stopped: false,
        }
    }

    pub fn deadline(&self) -> Option<std::time::Instant> {
        self.deadline
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Whether the run must stop; the first time it must, the reason to
    /// report it incomplete.
    pub fn check(&mut self) -> (bool, Option<String>) {
        if !self.stopped && self.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            self.stopped = true;
            let secs = self.limit.map_or(0.0, |t| t.as_secs_f64());
            return (true, Some(format!("time limit of {secs}s reached")));
        }
        (self.stopped, None)
    }
}
