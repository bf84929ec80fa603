//! Pieces of the IR's meaning that every engine and the concrete interpreter
//! share: bug kinds, byte layout of wide memory accesses, fixed limits.

use braid_term::{EvalError, Node, Op, Sort, TermId, TermStore, Value};

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

// ---- memory at symbolic offsets --------------------------------------------
//
// An access whose offset is symbolic and may reach many cells goes through
// array terms, as KLEE's and Owi's memories do: a load reads
// `read(off, default, k1, v1, …)` over the cells it may reach, a store turns
// every cell it may reach into `ite(off == k, byte, old)`. Every engine uses
// these, so their memories mean the same.

/// A symbolic offset whose shape bounds it to fewer cells than this forks
/// per offset (a field of a small struct, an array of three); one that may
/// reach more reads and writes through array terms (below), as KLEE does
/// within an object.
pub const SMALL_FORK: usize = 8;
/// Array terms span the cells an offset's shape bounds it to when they are
/// fewer than this; past it, its feasible values are searched for first.
pub const TIGHT_SPAN: usize = 4096;
/// Where array terms cannot hold the cells (mixed sorts), a symbolic offset
/// whose feasible values span at most this many cells forks per offset,
/// and is concretised past it.
pub const MAX_OFFSET_FORK: usize = 64;
/// Reads through array terms reach at most this many cells (an `ite` chain
/// over 100 000 ints took Z3 past a minute and 3.6 GB), writes at most
/// `MAX_SYMBOLIC_WRITE` (each cell a choice): past that the offset is
/// concretised, and the run says so.
pub const MAX_SYMBOLIC_READ: usize = 1 << 15;
pub const MAX_SYMBOLIC_WRITE: usize = 4096;

/// Where an access lands in its allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offset {
    At(usize),
    /// A symbolic offset whose feasible values lie in `lo..=hi`.
    Within(TermId, usize, usize),
}

/// Whether cells of these sorts can share an array: one sort, and for a
/// `wide` access (bytes) undefined cells too, which read as zero bytes.
pub fn one_sort(sorts: impl IntoIterator<Item = Sort>, wide: bool) -> bool {
    let mut seen = None;
    for s in sorts {
        match s {
            Sort::Undef if wide => {}
            Sort::Bv(_) | Sort::Int | Sort::Bool if seen.is_none_or(|t| t == s) => seen = Some(s),
            _ => return false,
        }
    }
    true
}

/// The array operands `[default, k1, v1, …]` of `read` over `cells`, the
/// cells from offset `lo` on: the most common value is the default, the
/// others are listed. With `bytes` (a wide access) an undefined cell reads
/// as a zero byte and every cell must be a byte; otherwise cells must share
/// one sort. `None` if not.
pub fn array_of(store: &mut TermStore, lo: usize, cells: &[TermId], bytes: bool) -> Option<Vec<TermId>> {
    let sort = if bytes {
        Sort::Bv(8)
    } else {
        cells.iter().map(|c| store.sort(*c)).find(|s| *s != Sort::Undef)?
    };
    let zero = store.constant(match sort {
        Sort::Bv(w) => Value::bv(w, 0),
        Sort::Int => Value::Int(0),
        Sort::Bool => Value::Bool(false),
        _ => return None,
    });
    let mut values = Vec::with_capacity(cells.len());
    for &c in cells {
        match store.sort(c) {
            Sort::Undef if bytes => values.push(zero),
            s if s == sort => values.push(c),
            _ => return None,
        }
    }
    let mut counts: rustc_hash::FxHashMap<TermId, usize> = rustc_hash::FxHashMap::default();
    for v in &values {
        *counts.entry(*v).or_default() += 1;
    }
    let default = counts
        .iter()
        .max_by_key(|(v, n)| (**n, std::cmp::Reverse(**v)))
        .map(|(v, _)| *v)?;
    let mut array = vec![default];
    for (i, v) in values.into_iter().enumerate() {
        if v != default {
            array.push(store.constant(Value::Int((lo + i) as i128)));
            array.push(v);
        }
    }
    Some(array)
}

/// The value a load of `width` bits (`None`: one cell) reads at the
/// symbolic offset `off` from `array` (see [`array_of`]): little-endian
/// bytes put together.
pub fn read_wide(store: &mut TermStore, array: &[TermId], off: TermId, width: Option<u8>) -> TermId {
    let read = |store: &mut TermStore, i: usize| {
        let k = store.constant(Value::Int(i as i128));
        let at = store.app(Op::Add, &[off, k]).expect("offsets are Int");
        let args: Vec<TermId> = std::iter::once(at).chain(array.iter().copied()).collect();
        store.app(Op::Read, &args).expect("arrays are well-sorted")
    };
    let Some(w) = width else {
        return read(store, 0);
    };
    let bytes: Vec<TermId> = (0..w as usize / 8).map(|i| read(store, i)).collect();
    word_of(store, w, &bytes).expect("arrays of bytes")
}

/// The `w`-bit little-endian value of `bytes` put together (an undefined
/// byte counts as 0); `None` if a cell is not a byte. Bytes a store of `v`
/// wrote, in order, give back `v` itself (store-to-load forwarding).
pub fn word_of(store: &mut TermStore, w: u8, bytes: &[TermId]) -> Option<TermId> {
    if let Some(v) = stored_whole(store, bytes, w) {
        return Some(v);
    }
    let mut acc = store.constant(Value::bv(w, 0));
    for (i, &byte) in bytes.iter().enumerate() {
        match store.sort(byte) {
            Sort::Bv(8) => {}
            Sort::Undef => continue,
            _ => return None,
        }
        let wide = store.app(Op::ZExt(w), &[byte]).expect("bv8 widens");
        let sh = store.constant(Value::bv(w, 8 * i as u64));
        let shifted = store.app(Op::Shl, &[wide, sh]).expect("same width");
        acc = store.app(Op::Or, &[acc, shifted]).expect("same width");
    }
    Some(acc)
}

/// Store-to-load forwarding: the `w`-bit value `v` when `bytes` are the
/// bytes a store of `v` wrote (`trunc8(v >> 8i)` at `i`), in order.
pub fn stored_whole(store: &TermStore, bytes: &[TermId], w: u8) -> Option<TermId> {
    if bytes.len() != w as usize / 8 {
        return None;
    }
    let mut whole = None;
    for (i, &b) in bytes.iter().enumerate() {
        let Node::App(Op::Trunc(8), arg) = store.node(b) else {
            return None;
        };
        let v = match store.node(arg[0]) {
            Node::App(Op::LShr, a) if store.as_const(a[1]) == Some(Value::bv(w, 8 * i as u64)) => a[0],
            _ if i == 0 => arg[0],
            _ => return None,
        };
        if store.sort(v) != Sort::Bv(w) || whole.is_some_and(|u| u != v) {
            return None;
        }
        whole = Some(v);
    }
    whole
}

/// The cells a store of `v` writes, little-endian bytes for a `width`-bit
/// store (`None` unless `v` is a `width`-bit value), else `v` itself.
pub fn bytes_of(store: &mut TermStore, v: TermId, width: Option<u8>) -> Option<Vec<TermId>> {
    let Some(w) = width else {
        return Some(vec![v]);
    };
    if store.sort(v) != Sort::Bv(w) {
        return None;
    }
    Some(
        (0..w as usize / 8)
            .map(|i| {
                let sh = store.constant(Value::bv(w, 8 * i as u64));
                let moved = store.app(Op::LShr, &[v, sh]).expect("same width");
                store.app(Op::Trunc(8), &[moved]).expect("narrows")
            })
            .collect(),
    )
}

/// Cell `c`'s value after a store of `bytes` at a symbolic offset `off`
/// whose values lie in `lo..=hi`: byte `i` where `off + i == c`, else `old`
/// (for a `wide` store, an undefined old byte is zero). A written value of
/// another sort than the old one makes a choice that only evaluates, as a
/// merged dead variable does.
pub fn written(
    store: &mut TermStore,
    off: TermId,
    (lo, hi): (usize, usize),
    c: usize,
    bytes: &[TermId],
    old: TermId,
    wide: bool,
) -> TermId {
    let mut new = match store.sort(old) {
        Sort::Undef if wide => store.constant(Value::bv(8, 0)),
        _ => old,
    };
    for (i, &b) in bytes.iter().enumerate() {
        let Some(j) = c.checked_sub(i).filter(|j| (lo..=hi).contains(j)) else {
            continue;
        };
        let jt = store.constant(Value::Int(j as i128));
        let at = store.eq(off, jt);
        new = store.choice(at, b, new);
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-bit store at a symbolic offset, then 16-bit loads at symbolic
    /// offsets, through array terms: under every assignment of the two
    /// offsets, the same bytes as a concrete memory gives.
    #[test]
    fn array_terms_mean_what_concrete_memory_does() {
        let mut s = TermStore::new();
        let initial: Vec<u64> = vec![7, 0, 0, 3, 0, 9, 0, 0, 1, 0];
        let mut cells: Vec<TermId> = initial.iter().map(|b| s.constant(Value::bv(8, *b))).collect();
        cells[1] = s.constant(Value::Undef);
        let (w, r) = (s.symbol_term("w", Sort::Int), s.symbol_term("r", Sort::Int));
        let v = s.constant(Value::bv(16, 0xab_cd));
        let bytes = bytes_of(&mut s, v, Some(16)).unwrap();
        // The store may reach offsets 2..=6.
        let stored: Vec<TermId> = (0..cells.len())
            .map(|c| {
                if (2..=7).contains(&c) {
                    written(&mut s, w, (2, 6), c, &bytes, cells[c], true)
                } else {
                    cells[c]
                }
            })
            .collect();
        let array = array_of(&mut s, 0, &stored, true).unwrap();
        let read = read_wide(&mut s, &array, r, Some(16));
        let sym = |s: &TermStore, t: TermId| match s.node(t) {
            braid_term::Node::Sym(x) => *x,
            _ => unreachable!(),
        };
        let (ws, rs) = (sym(&s, w), sym(&s, r));
        for at in 2..=6u64 {
            let mut memory = initial.clone();
            memory[1] = 0;
            memory[at as usize] = 0xcd;
            memory[at as usize + 1] = 0xab;
            for from in 0..=8i128 {
                let m: braid_term::Model = [(ws, Value::Int(at as i128)), (rs, Value::Int(from))]
                    .into_iter()
                    .collect();
                let want = memory[from as usize] | memory[from as usize + 1] << 8;
                assert_eq!(
                    s.eval(read, &m),
                    Ok(Value::bv(16, want)),
                    "store at {at}, load at {from}"
                );
            }
        }
    }

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
