//! The solver layer.
//!
//! [`Solver`] is what a backend implements: satisfiability of a conjunction of
//! Bool terms, with a model. [`QuerySolver`] stacks KLEE's two classic query
//! optimisations on any backend — constraint independence (only the
//! constraints that share symbols with the query are sent) and a query /
//! counterexample cache — and counts queries, cache hits and solver time.
//! `Unknown` (including timeouts) is never taken as unsat: it is reported up,
//! so the run becomes `incomplete` with the reason.

mod cdcl;
mod difference;
mod enumerate;
mod external;
mod intervals;
mod lazy;
pub mod optimize;
mod orders;
pub mod partial;
mod query;
pub mod simplex;
mod units;
mod z3_backend;

pub use external::Helper;
pub use lazy::Lazy;
pub use query::{KindStats, QueryKind, QuerySolver, SlowQuery, SolverStats, HISTOGRAM_MS};
pub use z3_backend::{renew_contexts, set_question_room, z3_working, Z3Solver};

use braid_budget::Budget;
use braid_term::{Model, TermId, TermStore};
use std::time::Instant;

#[derive(Clone, Debug, PartialEq)]
pub enum SatResult {
    Sat(Model),
    Unsat,
    /// The solver gave up (timeout, unsupported theory, …) and says why.
    Unknown(String),
}

impl SatResult {
    pub fn is_sat(&self) -> bool {
        matches!(self, SatResult::Sat(_))
    }
}

/// A decision procedure for conjunctions of Bool terms.
pub trait Solver {
    /// Whether all `constraints` hold together; a model covers at least the
    /// symbols they mention.
    fn check(&mut self, store: &TermStore, constraints: &[TermId]) -> SatResult;

    /// After a check that answered `Unsat`: constraints of it that are
    /// unsat together (an unsat core), if the backend computes them.
    fn unsat_core(&mut self) -> Option<Vec<TermId>> {
        None
    }

    /// Whether checks should compute unsat cores (a backend may ignore it).
    fn set_cores(&mut self, _on: bool) {}

    /// Drops what the backend keeps from one check to the next (an
    /// incremental solver's assertions and state): the next check starts
    /// afresh.
    fn reset(&mut self) {}

    /// The constraints as an SMT-LIB 2 script without `(check-sat)`, for
    /// query logs (`None`: the backend cannot write one).
    fn smtlib(&mut self, _store: &TermStore, _constraints: &[TermId]) -> Option<String> {
        None
    }

    /// Whether the last check was answered by a helper solver raced
    /// against the backend (crate::external), for statistics.
    fn helper_answered(&self) -> bool {
        false
    }

    /// Whether a check may keep the constraints it shares with the previous
    /// one asserted (a backend may ignore it).
    fn set_incremental(&mut self, _on: bool) {}

    /// A point in time no check may run past (the run's time limit); a check
    /// cut short by it answers `Unknown`.
    fn set_deadline(&mut self, _deadline: Option<Instant>) {}

    /// Each check gives up after `ms` milliseconds (`None`: no limit but the
    /// deadline).
    fn set_timeout(&mut self, _ms: Option<u32>) {}

    /// The run's budget: no check runs past its exploration deadline, and a
    /// check running when the budget stops (memory, a signal) is cut short.
    fn set_budget(&mut self, budget: &Budget) {
        self.set_deadline(budget.explore_deadline());
    }
}
