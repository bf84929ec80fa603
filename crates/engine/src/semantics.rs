//! Pieces of the IR's meaning that every engine and the concrete interpreter
//! share: bug kinds, byte layout of wide memory accesses, fixed limits.

use braid_term::{EvalError, Value};

/// Allocations larger than this many cells are rejected as bad allocations.
pub const MAX_ALLOC: u64 = 1 << 20;
/// Call depth at which a run reports stack exhaustion.
pub const MAX_CALL_DEPTH: usize = 10_000;
/// Allocations up to this size are written into test outcomes.
pub const MAX_RENDERED_CELLS: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BugKind {
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
}

impl BugKind {
    pub fn name(self) -> &'static str {
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
        }
    }
}

pub fn bug_kind(e: &EvalError) -> BugKind {
    match e {
        EvalError::DivByZero => BugKind::DivisionByZero,
        EvalError::Type(_) => BugKind::TypeError,
        EvalError::Overflow => BugKind::IntegerOverflow,
        EvalError::InvalidConversion(_) => BugKind::InvalidConversion,
    }
}

/// A `width`-bit little-endian value from byte cells; undefined bytes read
/// as zero. `None` if a cell holds something other than a byte.
pub fn compose_bytes(width: u8, cells: &[Value]) -> Option<Value> {
    let mut bits = 0u64;
    for (i, c) in cells.iter().enumerate() {
        let byte = match c {
            Value::Bv { width: 8, bits } => *bits,
            Value::Undef => 0,
            _ => return None,
        };
        bits |= byte << (8 * i);
    }
    Some(Value::bv(width, bits))
}

/// The little-endian bytes of a `width`-bit value; `None` if it is not one.
pub fn split_bytes(width: u8, v: Value) -> Option<Vec<Value>> {
    match v {
        Value::Bv { width: w, bits } if w == width => {
            Some((0..width / 8).map(|i| Value::bv(8, bits >> (8 * i as u32))).collect())
        }
        _ => None,
    }
}

/// The feasible values of a symbolic offset, when they span at most `span`
/// cells: its least and greatest values, by binary search from `k`, a
/// feasible one, within `[0, last]`. `feasible(op, v)` says whether
/// `offset op v` can hold (`None`: the solver could not tell). `None` when
/// the values span more, or an answer was unknown.
pub fn offset_range(
    k: i128,
    last: i128,
    span: i128,
    mut feasible: impl FnMut(braid_term::Op, i128) -> Option<bool>,
) -> Option<(i128, i128)> {
    use braid_term::Op;
    // Nothing below k - span, nor above k + span.
    let (floor, ceil) = ((k - span).max(0), (k + span).min(last));
    if floor > 0 && feasible(Op::Lt, floor)? {
        return None;
    }
    if ceil < last && feasible(Op::Gt, ceil)? {
        return None;
    }
    // The least v with `offset <= v` feasible, and the greatest with `offset >= v`.
    let (mut a, mut b) = (floor, k);
    while a < b {
        let mid = a + (b - a) / 2;
        if feasible(Op::Le, mid)? {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    let lo = a;
    let (mut a, mut b) = (k, ceil);
    while a < b {
        let mid = a + (b - a + 1) / 2;
        if feasible(Op::Ge, mid)? {
            a = mid;
        } else {
            b = mid - 1;
        }
    }
    (a - lo < span).then_some((lo, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_values_round_trip_through_bytes() {
        let v = Value::bv(32, 0xdead_beef);
        let bytes = split_bytes(32, v).unwrap();
        assert_eq!(bytes[0], Value::bv(8, 0xef));
        assert_eq!(compose_bytes(32, &bytes), Some(v));
        assert_eq!(
            compose_bytes(16, &[Value::Undef, Value::bv(8, 1)]),
            Some(Value::bv(16, 0x100))
        );
    }
}
