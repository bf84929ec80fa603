//! Exploration settings shared by the engines. Time and memory are the
//! run's [`braid_budget::Budget`].

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchKind {
    Dfs,
    Bfs,
    /// KLEE's random-path: walk the execution tree from the root, each
    /// branch with equal probability.
    RandomPath,
    /// KLEE's nurs:covnew: states that recently covered new code are more likely.
    CovNew,
    /// random-path and dfs in turns (as KLEE interleaves random-path with
    /// covnew): random-path's choices reach the program's shallow branches
    /// that dfs leaves behind a deep subtree, dfs's finish paths.
    Interleaved,
    /// dfs for the exploration's first [`crate::search::AUTO_DFS`], then
    /// interleaved: `braid run`'s default for dse (and the dse ssm and
    /// multise race or hand over to).
    Auto,
}

impl SearchKind {
    pub const ALL: [SearchKind; 6] = [
        SearchKind::Dfs,
        SearchKind::Bfs,
        SearchKind::RandomPath,
        SearchKind::CovNew,
        SearchKind::Interleaved,
        SearchKind::Auto,
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
            SearchKind::Interleaved => "interleaved",
            SearchKind::Auto => "auto",
        }
    }
}

/// Limits on the exploration itself (time and memory: the budget).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Arrivals at one loop head per call (so a loop body runs at most this
    /// many times per call), and active frames per function (recursion).
    pub loop_bound: Option<u32>,
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
    /// The solver layer keeps unsat cores and answers queries that contain
    /// one without a solver call.
    pub unsat_cores: bool,
    /// The solver keeps the constraints consecutive queries share asserted.
    pub incremental: bool,
    /// The solver layer asks braid's simplex (with abstraction refinement)
    /// for a model before Z3.
    pub simplex: bool,
    /// Write every solver call here as SMT-LIB.
    pub dump_queries: Option<std::path::PathBuf>,
    /// Merge the states at each loop head across iterations (seed 003), and
    /// stop those an earlier state stands for.
    pub loop_merge: bool,
    /// Run a state's statements that compute on machine values alone in
    /// the concrete interpreter (`concrete::ahead`; every engine, see
    /// `Dse::run_ahead` and `multise::ahead`). `Eager` hands a
    /// state over at every chance (for tests); `On` waits out runs that did
    /// not pay.
    pub run_ahead: RunAhead,
    /// A solver raced against Z3 on the questions over floats
    /// (braid_solver::Helper; default: Bitwuzla, else cvc5, when installed).
    pub float_solver: Option<braid_solver::Helper>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunAhead {
    Off,
    On,
    Eager,
}

impl Config {
    /// The solver layer these settings ask for, over Z3.
    pub fn query_solver(&self) -> braid_solver::QuerySolver {
        let (timeout, helper) = (self.limits.solver_timeout_ms, self.float_solver.clone());
        // Z3 is made at the first question that reaches it (braid_solver::Lazy).
        let backend = braid_solver::Lazy::new(move || {
            let mut z3 = braid_solver::Z3Solver::new(timeout);
            z3.set_helper(helper);
            Box::new(z3)
        });
        let mut solver = braid_solver::QuerySolver::new(Box::new(backend));
        solver.set_unsat_cores(self.unsat_cores);
        solver.set_incremental(self.incremental);
        solver.set_simplex(self.simplex);
        if let Some(dir) = &self.dump_queries {
            solver.dump_queries(dir.clone());
        }
        solver
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            search: SearchKind::Dfs,
            limits: Limits::default(),
            seed: 0,
            unsat_cores: true,
            incremental: true,
            simplex: true,
            dump_queries: None,
            loop_merge: true,
            run_ahead: RunAhead::On,
            float_solver: braid_solver::Helper::detect(),
        }
    }
}
