//! Replay: run a test's inputs concretely and compare the outcome with the
//! recorded one. Coverage is measured the same way, so every engine is
//! judged by one ruler.

use crate::concrete::{run_concrete, run_concrete_with, Code, ConcreteRun};
use crate::results::{Branch, TestCase};
use braid_ir::Module;
use std::collections::BTreeSet;

/// Replays `test` to its end, however long it runs (the engines have no
/// step limit either); `Err` says how the outcome differed.
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
    let run = run_concrete(module, entry, &test.inputs, None).ok_or("the run was stopped")?;
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
    let mut code: Option<Code> = None;
    for t in tests {
        let Some(entry) = module.func_index(&t.entry) else {
            continue;
        };
        let code = match &code {
            Some(c) if c.entry == Some(entry) => c,
            _ => code.insert(Code::new(module, Some(entry))),
        };
        if let Some(run) = run_concrete_with(code, module, entry, &t.inputs, None, None) {
            covered.extend(run.covered);
        }
    }
    covered
}
