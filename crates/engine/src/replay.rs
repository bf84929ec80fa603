//! Replay: run a test's inputs concretely and compare the outcome with the
//! recorded one. Coverage is measured the same way, so every engine is
//! judged by one ruler.

use crate::concrete::{run_concrete_with, Code, ConcreteRun};
use crate::results::{Branch, TestCase};
use braid_ir::{FuncId, Module};
use std::collections::BTreeSet;

/// Replays many tests of one module, building its concrete code once per
/// entry rather than once per test: building it (liveness, copies dropped)
/// took 45 % of replaying a CSV parser's 6-byte tests, each of which runs
/// in microseconds.
#[derive(Default)]
pub struct Replayer {
    code: Option<Code>,
}

impl Replayer {
    /// The code for runs from `entry`, built when the entry changes.
    fn code(&mut self, module: &Module, entry: FuncId) -> &Code {
        if self.code.as_ref().is_some_and(|c| c.entry != Some(entry)) {
            self.code = None;
        }
        self.code.get_or_insert_with(|| Code::new(module, Some(entry)))
    }

    /// Replays `test` on `module` to its end, however long it runs (the
    /// engines have no step limit either); `Err` says how the outcome
    /// differed.
    pub fn replay(&mut self, module: &Module, test: &TestCase) -> Result<ConcreteRun, String> {
        let entry = module
            .func_index(&test.entry)
            .ok_or_else(|| format!("the program has no function `{}`", test.entry))?;
        for i in &test.inputs {
            if i.parsed().is_none() {
                return Err(format!(
                    "input `{}` has no valid {} value `{}`",
                    i.name, i.sort, i.value
                ));
            }
        }
        let code = self.code(module, entry);
        let run = run_concrete_with(code, module, entry, &test.inputs, None, None).ok_or("the run was stopped")?;
        if test.outcome.reproduced_by(&run.outcome) {
            Ok(run)
        } else {
            let show = |o| serde_json::to_string(o).unwrap_or_default();
            Err(format!(
                "recorded {}, replay gave {}",
                show(&test.outcome),
                show(&run.outcome)
            ))
        }
    }
}

/// Replays one test (see [`Replayer::replay`]; many tests of one module
/// should share a [`Replayer`]).
pub fn replay(module: &Module, test: &TestCase) -> Result<ConcreteRun, String> {
    Replayer::default().replay(module, test)
}

/// The branches the tests cover when run concretely.
pub fn coverage(module: &Module, tests: &[TestCase]) -> BTreeSet<Branch> {
    let mut covered = BTreeSet::new();
    let mut replayer = Replayer::default();
    for t in tests {
        let Some(entry) = module.func_index(&t.entry) else {
            continue;
        };
        let code = replayer.code(module, entry);
        if let Some(run) = run_concrete_with(code, module, entry, &t.inputs, None, None) {
            covered.extend(run.covered);
        }
    }
    covered
}
