//! Bug kinds: one vocabulary from the IR's `error` statement through the
//! engines' checks and the WebAssembly frontend's traps and harness
//! functions to replay, tests and the JSON, spelled as [`BugKind::name`]
//! gives.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What went wrong at the end of a path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum BugKind {
    /// `assert` failed (also KLEE's and Owi's assertions, C's `assert`).
    Assertion,
    DivisionByZero,
    /// Load or store through a value that is not an address (e.g. undefined).
    InvalidAddress,
    /// Load or store outside its allocation.
    OutOfBounds,
    TypeError,
    IntegerOverflow,
    InvalidConversion,
    BadAllocation,
    StackOverflow,
    /// Only replay reports these: the recorded path assumed otherwise.
    AssumeViolated,
    StepLimit,
    /// WebAssembly's `unreachable` executed.
    Unreachable,
    /// SV-COMP's `reach_error()` called: the property unreach-call violated.
    ReachError,
    /// `abort()` where it is a bug (KLEE's and Owi's conventions).
    Abort,
    /// An indirect call through a table slot that holds no function.
    UndefinedElement,
    /// An indirect call to a function of another signature.
    IndirectCallSignatureMismatch,
    /// A kind a program names itself (`error "user-error"` in .bir).
    Other(String),
}

impl BugKind {
    /// Every kind braid knows by name.
    pub const KNOWN: [BugKind; 16] = [
        BugKind::Assertion,
        BugKind::DivisionByZero,
        BugKind::InvalidAddress,
        BugKind::OutOfBounds,
        BugKind::TypeError,
        BugKind::IntegerOverflow,
        BugKind::InvalidConversion,
        BugKind::BadAllocation,
        BugKind::StackOverflow,
        BugKind::AssumeViolated,
        BugKind::StepLimit,
        BugKind::Unreachable,
        BugKind::ReachError,
        BugKind::Abort,
        BugKind::UndefinedElement,
        BugKind::IndirectCallSignatureMismatch,
    ];

    pub fn name(&self) -> &str {
        match self {
            BugKind::Assertion => "assertion",
            BugKind::DivisionByZero => "division-by-zero",
            BugKind::InvalidAddress => "invalid-address",
            BugKind::OutOfBounds => "out-of-bounds",
            BugKind::TypeError => "type-error",
            BugKind::IntegerOverflow => "integer-overflow",
            BugKind::InvalidConversion => "invalid-conversion",
            BugKind::BadAllocation => "bad-allocation",
            BugKind::StackOverflow => "stack-overflow",
            BugKind::AssumeViolated => "assume-violated",
            BugKind::StepLimit => "step-limit",
            BugKind::Unreachable => "unreachable",
            BugKind::ReachError => "reach_error",
            BugKind::Abort => "abort",
            BugKind::UndefinedElement => "undefined-element",
            BugKind::IndirectCallSignatureMismatch => "indirect-call-signature-mismatch",
            BugKind::Other(name) => name,
        }
    }

    /// The kind spelled `name`: a known one, else a program's own.
    pub fn from_name(name: &str) -> BugKind {
        BugKind::KNOWN
            .into_iter()
            .find(|k| k.name() == name)
            .unwrap_or_else(|| BugKind::Other(name.to_string()))
    }
}

impl fmt::Display for BugKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<String> for BugKind {
    fn from(name: String) -> BugKind {
        BugKind::from_name(&name)
    }
}

impl From<BugKind> for String {
    fn from(k: BugKind) -> String {
        k.name().to_string()
    }
}

impl PartialEq<str> for BugKind {
    fn eq(&self, other: &str) -> bool {
        self.name() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name_and_other_names_stay_a_programs_own() {
        for k in BugKind::KNOWN {
            assert_eq!(BugKind::from_name(k.name()), k);
            let json = serde_json::to_string(&k).expect("serialises");
            assert_eq!(json, format!("\"{}\"", k.name()));
            assert_eq!(serde_json::from_str::<BugKind>(&json).expect("parses"), k);
        }
        assert_eq!(BugKind::from_name("user-error"), BugKind::Other("user-error".into()));
        assert_eq!(BugKind::from_name("user-error").name(), "user-error");
    }
}
