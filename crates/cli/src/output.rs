//! Rendering a run: the `--json` object, the human summary and the `--out`
//! directory (`tests/NNNNNN.json`, `summary.json`).

use anyhow::{Context, Result};
use braid_engine::replay::coverage_recording_output;
use braid_engine::RunResult;
use braid_ir::Module;
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::Path;

pub struct Report {
    pub program: String,
    /// The searcher (dse) or pick strategy (multise).
    pub search: String,
    pub result: RunResult,
    pub branches_covered: usize,
    pub branches_total: usize,
}

/// The file name of the i-th test (0-based) under `--out`.
pub fn test_file(i: usize) -> String {
    format!("tests/{:06}.json", i + 1)
}

impl Report {
    pub fn new(module: &Module, program: &str, search: &str, mut result: RunResult) -> Report {
        let covered = coverage_recording_output(module, &mut result.tests).len();
        for b in &mut result.bugs {
            b.test = test_file(b.test_index);
        }
        Report {
            program: program.to_string(),
            search: search.to_string(),
            result,
            branches_covered: covered,
            branches_total: 2 * module.branch_count(),
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
            "tests": r.tests.len(),
            "bugs": r.bugs,
            "coverage": {"branches_covered": self.branches_covered, "branches_total": self.branches_total},
            "stats": r.stats,
        })
    }

    pub fn human(&self) -> String {
        let r = &self.result;
        let mut s = String::new();
        let _ = writeln!(s, "{}: engine {}, search {}", self.program, r.engine, self.search);
        let state = if r.complete() {
            "complete".to_string()
        } else {
            "incomplete".to_string()
        };
        let _ = writeln!(
            s,
            "paths {}{}  tests {}  bugs {}  ({state})",
            r.paths,
            if r.paths_exact { "" } else { " (estimate)" },
            r.tests.len(),
            r.bugs.len()
        );
        for reason in &r.incomplete_reasons {
            let _ = writeln!(s, "  incomplete: {reason}");
        }
        for b in &r.bugs {
            let _ = writeln!(s, "  bug: {} at {} ({})", b.kind, b.location, b.test);
        }
        let _ = writeln!(s, "coverage {}/{} branches", self.branches_covered, self.branches_total);
        let st = &r.stats;
        let _ = writeln!(
            s,
            "solver {} queries, {} calls, {} cache hits, {} model hits, {} ms; {} operations; {} ms total",
            st.solver_queries,
            st.solver_calls,
            st.solver_cache_hits,
            st.solver_cex_hits,
            st.solver_ms,
            st.operations,
            st.wall_ms
        );
        s
    }

    pub fn write_dir(&self, dir: &Path) -> Result<()> {
        let tests = dir.join("tests");
        std::fs::create_dir_all(&tests).with_context(|| format!("cannot create {}", tests.display()))?;
        for (i, t) in self.result.tests.iter().enumerate() {
            let path = dir.join(test_file(i));
            std::fs::write(&path, serde_json::to_string_pretty(t)?)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let summary = dir.join("summary.json");
        std::fs::write(&summary, serde_json::to_string_pretty(&self.json())?)
            .with_context(|| format!("cannot write {}", summary.display()))?;
        Ok(())
    }
}
