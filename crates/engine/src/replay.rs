//! Replay: run a test's inputs concretely and compare the outcome with the
//! recorded one. Coverage is measured the same way, so every engine is
//! judged by one ruler.

use crate::concrete::{run_concrete, ConcreteRun};
use crate::results::{Branch, TestCase};
use braid_ir::Module;
use std::collections::BTreeSet;

/// Statements a replay may run before it gives up.
pub const MAX_REPLAY_STEPS: u64 = 50_000_000;

/// Replays `test`; `Err` says how the outcome differed.
pub fn replay(module: &Module, test: &TestCase) -> Result<ConcreteRun, String> {
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
    let run = run_concrete(module, entry, &test.inputs, MAX_REPLAY_STEPS);
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

/// The branches the tests cover when run concretely.
pub fn coverage(module: &Module, tests: &[TestCase]) -> BTreeSet<Branch> {
    let mut covered = BTreeSet::new();
    for t in tests {
        if let Some(run) = run_test(module, t) {
            covered.extend(run.covered);
        }
    }
    covered
}

/// [`coverage`], recording in each test what its run prints (when it
/// prints anything): one concrete run per test serves both.
pub fn coverage_recording_output(module: &Module, tests: &mut [TestCase]) -> BTreeSet<Branch> {
    let mut covered = BTreeSet::new();
    for t in tests {
        if let Some(run) = run_test(module, t) {
            let text = |b: &[u8]| (!b.is_empty()).then(|| String::from_utf8_lossy(b).into_owned());
            t.stdout = text(&run.stdout);
            t.stderr = text(&run.stderr);
            covered.extend(run.covered);
        }
    }
    covered
}

fn run_test(module: &Module, t: &TestCase) -> Option<ConcreteRun> {
    let entry = module.func_index(&t.entry)?;
    Some(run_concrete(module, entry, &t.inputs, MAX_REPLAY_STEPS))
}
