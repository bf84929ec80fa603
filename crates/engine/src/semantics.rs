//! Pieces of the IR's meaning that every engine and the concrete interpreter
//! share: bug kinds, byte layout of wide memory accesses, fixed limits.

use braid_term::{EvalError, Node, Op, Sort, TermId, TermStore, Value};

/// Allocations larger than this many cells (16 MiB of WebAssembly memory)
/// are rejected as bad allocations. The engines' memories cost the pages
/// written, not their size (see `dse`'s and `multise`'s cells).
pub const MAX_ALLOC: u64 = 1 << 24;
/// Call depth at which a run reports stack exhaustion.
pub const MAX_CALL_DEPTH: usize = 10_000;
/// Allocations up to this size are written into test outcomes.
pub const MAX_RENDERED_CELLS: usize = 256;

pub use braid_ir::BugKind;

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
/// cells: its least and greatest values within `[0, last]`, searched from
/// `k`, a feasible one. `feasible(op, v)` says whether `offset op v` can
/// hold: `Some(Some(w))` with a value `w` it can take there (a model's; `v`
/// itself when there is none), `Some(None)` when it cannot, `None` when the
/// solver could not tell. `None` when the values span more, or an answer
/// was unknown.
///
/// The first question is whether `k` is the only value: an address that
/// depends on the input only through sizes that round alike (a chunk
/// malloc returns after a symbolic-length key's) is one. Then each side
/// alternates a question just past the best value known (`offset < b`:
/// unsat ends the search) with a bisection, and a sat answer moves to its
/// model's value, so that a pointer read from a table of a few nodes takes
/// a question per node. Bisection alone asks 15 questions per side of a
/// 32 768-cell span, each to a fresh Z3 solver when the path reads arrays:
/// half of dse's run on rxi/map (perf), where 415 of 421 branch calls to
/// Z3 answered unsat.
pub fn offset_range(
    k: i128,
    last: i128,
    span: i128,
    mut feasible: impl FnMut(Op, i128) -> Option<Option<i128>>,
) -> Option<(i128, i128)> {
    let other = match feasible(Op::Ne, k)? {
        None => return Some((k, k)),
        Some(w) => w.clamp(0, last),
    };
    // Nothing below k - span, nor above k + span: asked once a side has
    // values past the first one's.
    let (floor, ceil) = ((k - span).max(0), (k + span).min(last));
    // The least value lies in [a, b] (b is feasible or a bound on it).
    let (mut a, mut b, mut tight, mut bounded) = (0, other.min(k), true, false);
    while a < b {
        let probe = if tight { b - 1 } else { a + (b - a) / 2 };
        tight = !tight;
        match feasible(Op::Le, probe)? {
            Some(w) => b = w.clamp(a, probe),
            None => a = probe + 1,
        }
        if !bounded && a < b {
            bounded = true;
            if b < floor || (floor > 0 && feasible(Op::Lt, floor)?.is_some()) {
                return None;
            }
            a = a.max(floor);
        }
    }
    let lo = a;
    // The greatest lies in [a, b].
    let (mut a, mut b, mut tight, mut bounded) = (other.max(k), last, true, false);
    while a < b {
        let probe = if tight { a + 1 } else { a + (b - a + 1) / 2 };
        tight = !tight;
        match feasible(Op::Ge, probe)? {
            Some(w) => a = w.clamp(probe, b),
            None => b = probe - 1,
        }
        if !bounded && a < b {
            bounded = true;
            if a > ceil || (ceil < last && feasible(Op::Gt, ceil)?.is_some()) {
                return None;
            }
            b = b.min(ceil);
        }
    }
    (a - lo < span).then_some((lo, a))
}

/// The value of `off` in `model` when it satisfies `off op v` (a witness
/// for [`offset_range`]), else `v`.
pub fn witness(store: &TermStore, off: TermId, model: &braid_term::Model, op: Op, v: i128) -> i128 {
    match (op, store.eval(off, model)) {
        (Op::Le, Ok(Value::Int(w))) if w <= v => w,
        (Op::Ge, Ok(Value::Int(w))) if w >= v => w,
        (Op::Ne, Ok(Value::Int(w))) if w != v => w,
        _ => v,
    }
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
    for (i, &c) in cells.iter().enumerate() {
        match store.sort(c) {
            Sort::Undef if bytes => values.push((lo + i, zero)),
            s if s == sort => values.push((lo + i, c)),
            _ => return None,
        }
    }
    sparse_array(store, values)
}

/// The array operands `[default, k1, v1, …]` of `read` over `values`, each
/// at its offset (ascending): the most common value is the default, the others
/// are listed. `None` if there is none.
pub fn sparse_array(store: &mut TermStore, values: Vec<(usize, TermId)>) -> Option<Vec<TermId>> {
    let mut counts: rustc_hash::FxHashMap<TermId, usize> = rustc_hash::FxHashMap::default();
    for (_, v) in &values {
        *counts.entry(*v).or_default() += 1;
    }
    let default = counts
        .iter()
        .max_by_key(|(v, n)| (**n, std::cmp::Reverse(**v)))
        .map(|(v, _)| *v)?;
    let mut array = vec![default];
    for (k, v) in values {
        if v != default {
            array.push(store.constant(Value::Int(k as i128)));
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

/// Words of a progression read back by [`affine_read`] may differ from it
/// in at most this many places (each a choice in the term).
pub const PROGRESSION_EXCEPTIONS: usize = 64;

/// A `w`-bit load at the symbolic offset `off` over `cells` (the cells from
/// `lo` on that it may reach) when the words it may read are an arithmetic
/// progression — an array an initialising loop filled with `k * i + m` — as
/// the term `m + k * j` for the word index `j = (off - first) / (w / 8)`,
/// whatever the region's size (where an array term would list every cell),
/// with a choice `ite(j == i, v, …)` for each of at most
/// [`PROGRESSION_EXCEPTIONS`] words that differ. Exact: `None` unless `off`
/// is `toint(zext(y)) + c` with `y` provably a multiple of the word size
/// (its low bits are zero by its shape), every cell is a concrete byte, and
/// the words the offset may reach fit the progression but for a few.
pub fn affine_read(store: &mut TermStore, lo: usize, cells: &[TermId], off: TermId, w: u8) -> Option<TermId> {
    let stride = w as usize / 8;
    let shift = stride.trailing_zeros();
    if !stride.is_power_of_two() || cells.len() < 2 * stride {
        return None;
    }
    let (y, c) = store.unsigned_int(off)?;
    let Sort::Bv(wy) = store.sort(y) else {
        return None;
    };
    if low_zero_bits(store, y, 8) < shift {
        return None;
    }
    // Offsets are `c` modulo the stride: the first one in range, and the
    // words from there a stride apart.
    let first = lo + (c - lo as i128).rem_euclid(stride as i128) as usize;
    let byte = |i: usize| match store.as_const(cells[i]) {
        Some(Value::Bv { width: 8, bits }) => Some(bits),
        Some(Value::Undef) => Some(0),
        _ => None,
    };
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let mut words = Vec::new();
    let mut at = first - lo;
    while at + stride <= cells.len() {
        let mut word = 0u64;
        for i in 0..stride {
            word |= byte(at + i)? << (8 * i);
        }
        words.push(word);
        at += stride;
    }
    if words.len() < 2 {
        return None;
    }
    // The progression through two neighbouring words (the first pairs in
    // turn, in case one of them is an exception), and the words off it.
    let (m, step, exceptions) = (0..words.len().min(4) - 1).find_map(|i| {
        let step = words[i + 1].wrapping_sub(words[i]) & mask;
        let m = words[i].wrapping_sub(step.wrapping_mul(i as u64)) & mask;
        let mut off_it = Vec::new();
        for (j, &x) in words.iter().enumerate() {
            if x != m.wrapping_add(step.wrapping_mul(j as u64)) & mask {
                if off_it.len() == PROGRESSION_EXCEPTIONS {
                    return None;
                }
                off_it.push((j, x));
            }
        }
        Some((m, step, off_it))
    })?;
    // `off - first` as `y + (c - first)` in `y`'s width (no wrap: the
    // offset lies in range), a word index once shifted, in `w` bits.
    let delta = store.constant(Value::bv(wy, (c - first as i128) as u64));
    let from_first = store.app(Op::Add, &[y, delta]).ok()?;
    let sh = store.constant(Value::bv(wy, shift as u64));
    let index = store.app(Op::LShr, &[from_first, sh]).ok()?;
    // The progression modulo 2^w needs the index modulo 2^w only; the
    // exceptions compare the whole index.
    let j = match wy.cmp(&w) {
        std::cmp::Ordering::Less => store.app(Op::ZExt(w), &[index]).ok()?,
        std::cmp::Ordering::Greater => store.app(Op::Trunc(w), &[index]).ok()?,
        std::cmp::Ordering::Equal => index,
    };
    let (k, m) = (store.constant(Value::bv(w, step)), store.constant(Value::bv(w, m)));
    let scaled = store.app(Op::Mul, &[k, j]).ok()?;
    let mut value = store.app(Op::Add, &[m, scaled]).ok()?;
    for (i, x) in exceptions {
        let it = store.constant(Value::bv(wy, i as u64));
        let here = store.eq(index, it);
        let x = store.constant(Value::bv(w, x));
        value = store.app(Op::Ite, &[here, x, value]).ok()?;
    }
    Some(value)
}

/// The offsets `off` can take are `residue` modulo `modulus` by its shape
/// (`toint(zext(y)) + c` with `y`'s low bits zero): a fork per offset
/// skips the cells between (`base + ((h & 3) << 2)`: every fourth).
pub fn offset_stride(store: &TermStore, off: TermId) -> (i128, i128) {
    match store.unsigned_int(off) {
        Some((y, c)) => {
            let m = 1i128 << low_zero_bits(store, y, 8).min(16);
            (m, c.rem_euclid(m))
        }
        None => (1, 0),
    }
}

/// How many low bits of the bit-vector `t` are zero whatever its symbols
/// (a lower bound, from its shape: `x << 2`, `x * 4`, sums of such and of
/// constants), looking `depth` operations deep.
fn low_zero_bits(store: &TermStore, t: TermId, depth: u32) -> u32 {
    let Sort::Bv(w) = store.sort(t) else {
        return 0;
    };
    if let Some(Value::Bv { bits, .. }) = store.as_const(t) {
        return bits.trailing_zeros().min(w as u32);
    }
    if depth == 0 {
        return 0;
    }
    let z = |x: TermId| low_zero_bits(store, x, depth - 1);
    let konst = |x: TermId| match store.as_const(x) {
        Some(Value::Bv { bits, .. }) => Some(bits),
        _ => None,
    };
    let bits = match store.node(t) {
        Node::App(Op::Add | Op::Sub | Op::Or | Op::Xor, a) => z(a[0]).min(z(a[1])),
        Node::App(Op::And, a) => z(a[0]).max(z(a[1])),
        Node::App(Op::Mul, a) => z(a[0]).saturating_add(z(a[1])),
        Node::App(Op::Shl, a) => match konst(a[1]) {
            Some(s) if s < w as u64 => z(a[0]).saturating_add(s as u32),
            _ => 0,
        },
        Node::App(Op::ZExt(_) | Op::SExt(_), a) => z(a[0]),
        Node::App(Op::Trunc(_), a) => z(a[0]),
        Node::App(Op::Ite, a) => z(a[1]).min(z(a[2])),
        _ => 0,
    };
    bits.min(w as u32)
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
/// bytes a store of `v` wrote ([`bytes_of`]), in order: `trunc8(v >> 8i)`
/// at `i`, or for a widened byte the bytes the term store folds them to
/// (`trunc8(sext x)` is `x`, the higher bytes of `zext x` are 0), which a
/// candidate named by a higher byte, or `zext x`, must give again.
pub fn stored_whole(store: &mut TermStore, bytes: &[TermId], w: u8) -> Option<TermId> {
    if bytes.len() != w as usize / 8 || bytes.is_empty() {
        return None;
    }
    // The value byte `i` names, if it is `trunc8(v >> 8i)` of a `w`-bit `v`.
    let named = |store: &TermStore, i: usize, b: TermId| {
        let Node::App(Op::Trunc(8), arg) = store.node(b) else {
            return None;
        };
        let v = match store.node(arg[0]) {
            Node::App(Op::LShr, a) if store.as_const(a[1]) == Some(Value::bv(w, 8 * i as u64)) => a[0],
            _ if i == 0 => arg[0],
            _ => return None,
        };
        (store.sort(v) == Sort::Bv(w)).then_some(v)
    };
    let first = named(store, 0, bytes[0]);
    if let Some(v) = first {
        return bytes
            .iter()
            .enumerate()
            .skip(1)
            .all(|(i, &b)| named(store, i, b) == Some(v))
            .then_some(v);
    }
    // A widened byte: its word is named by a higher byte (sext), or its
    // higher bytes are zeros (zext).
    if w == 8 || store.sort(bytes[0]) != Sort::Bv(8) {
        return None;
    }
    let zero = Value::bv(8, 0);
    let v = match named(store, 1, bytes[1]) {
        Some(v) => v,
        None if bytes[1..].iter().all(|b| store.as_const(*b) == Some(zero)) => {
            store.app(Op::ZExt(w), &[bytes[0]]).ok()?
        }
        None => return None,
    };
    (bytes_of(store, v, Some(w))? == bytes).then_some(v)
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
/// merged dead variable does. Offsets `off` cannot take by its shape
/// ([`offset_stride`]: `base + (h & 3) * 4` is a multiple of 4 from
/// `base`) make no choice: a word stored at an aligned slot then leaves
/// each cell one choice on `off`, the same for the word's bytes, and the
/// word reads back whole.
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
    let (m, r) = offset_stride(store, off);
    for (i, &b) in bytes.iter().enumerate() {
        let Some(j) = c
            .checked_sub(i)
            .filter(|j| (lo..=hi).contains(j) && (*j as i128).rem_euclid(m) == r)
        else {
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

    /// A word stored at `2 + (h & 3) * 4` makes choices at the offsets
    /// that can be written only (2, 6, 10, 14), one per cell, and every
    /// value of `h` reads back the concrete memory's bytes.
    #[test]
    fn a_store_at_an_aligned_symbolic_offset_chooses_among_aligned_offsets_only() {
        let mut s = TermStore::new();
        let h = s.symbol_term("h", Sort::Bv(32));
        let [three, two] = [3u64, 2].map(|v| s.constant(Value::bv(32, v)));
        let low = s.app(Op::And, &[h, three]).unwrap();
        let scaled = s.app(Op::Shl, &[low, two]).unwrap();
        let wide = s.app(Op::ZExt(64), &[scaled]).unwrap();
        let i = s.app(Op::ToInt, &[wide]).unwrap();
        let c = s.constant(Value::Int(2));
        let off = s.app(Op::Add, &[i, c]).unwrap();
        let v = s.constant(Value::bv(32, 0x0403_0201));
        let bytes = bytes_of(&mut s, v, Some(32)).unwrap();
        let zero = s.constant(Value::bv(8, 0));
        let cells: Vec<TermId> = (0..18)
            .map(|c| {
                if (2..=17).contains(&c) {
                    written(&mut s, off, (2, 14), c, &bytes, zero, true)
                } else {
                    zero
                }
            })
            .collect();
        // One choice per written cell: `ite(off == j, byte, 0)`.
        for (c, &cell) in cells.iter().enumerate().skip(2) {
            let Node::App(Op::Ite, a) = s.node(cell) else {
                panic!("cell {c}: {:?}", s.node(cell));
            };
            assert_eq!(s.as_const(a[2]), Some(Value::bv(8, 0)), "cell {c}: a single choice");
        }
        let Node::Sym(hs) = *s.node(h) else { unreachable!() };
        for slot in 0..4u64 {
            let m: braid_term::Model = [(hs, Value::bv(32, slot + 8))].into_iter().collect();
            for (c, &cell) in cells.iter().enumerate() {
                let at = 2 + 4 * slot as usize;
                let want = if (at..at + 4).contains(&c) {
                    (c - at + 1) as u64
                } else {
                    0
                };
                assert_eq!(s.eval(cell, &m), Ok(Value::bv(8, want)), "h = {}, cell {c}", slot + 8);
            }
        }
    }

    /// `base + ((h & 3) << 2)` is a multiple of 4 from `base` (whatever
    /// the base: it cannot wrap, so it is the offset's constant part),
    /// `base + h` anything: the stride a fork per offset steps by.
    #[test]
    fn offsets_of_shifted_indices_step_by_their_stride() {
        let mut s = TermStore::new();
        let h = s.symbol_term("h", Sort::Bv(32));
        let [three, two, base] = [3u64, 2, 0x800631].map(|v| s.constant(Value::bv(32, v)));
        let low = s.app(Op::And, &[h, three]).unwrap();
        let scaled = s.app(Op::Shl, &[low, two]).unwrap();
        let y = s.app(Op::Add, &[base, scaled]).unwrap();
        let off = |s: &mut TermStore, y: TermId, c: i128| {
            let wide = s.app(Op::ZExt(64), &[y]).unwrap();
            let i = s.app(Op::ToInt, &[wide]).unwrap();
            let c = s.constant(Value::Int(c));
            s.app(Op::Add, &[i, c]).unwrap()
        };
        // An odd base: offsets 1 modulo 4.
        let t = off(&mut s, y, 0);
        assert_eq!(offset_stride(&s, t), (4, 1));
        let anything = s.app(Op::Add, &[base, h]).unwrap();
        let t = off(&mut s, anything, 0);
        assert_eq!(offset_stride(&s, t), (1, 0));
        let t = off(&mut s, scaled, 6);
        assert_eq!(offset_stride(&s, t), (4, 2));
        let t = off(&mut s, h, 6);
        assert_eq!(offset_stride(&s, t), (1, 0));
    }

    /// The bounds of an offset's feasible values, against every set of a
    /// few values in a small memory, with the solver's models as a solver
    /// gives them (the nearest value, the farthest, or none): the least
    /// and greatest values when they span less than `span`, else none; a
    /// single value in one question, and a pointer to one of a few nodes in
    /// a question or two per node.
    #[test]
    fn an_offsets_bounds_are_its_least_and_greatest_values_in_few_questions() {
        let last = 200i128;
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for round in 0..3000 {
            let n = 1 + next(5) as usize;
            let values: Vec<i128> = (0..n).map(|_| next(last as u64 + 1) as i128).collect();
            let k = values[next(n as u64) as usize];
            let span = [8, 64, 1000][round % 3];
            let style = next(3);
            let mut questions = 0;
            let got = offset_range(k, last, span, |op, v| {
                questions += 1;
                let mut fit: Vec<i128> = values
                    .iter()
                    .copied()
                    .filter(|&w| match op {
                        Op::Lt => w < v,
                        Op::Le => w <= v,
                        Op::Gt => w > v,
                        Op::Ge => w >= v,
                        Op::Ne => w != v,
                        _ => unreachable!("{op:?}"),
                    })
                    .collect();
                fit.sort_by_key(|w| (w - v).abs());
                Some(match style {
                    _ if fit.is_empty() => None,
                    0 => Some(fit[0]),
                    1 => Some(*fit.last().unwrap()),
                    _ => Some(v),
                })
            });
            let (lo, hi) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
            let want = (hi - lo < span && (k - lo) <= span && (hi - k) <= span).then_some((lo, hi));
            assert_eq!(got, want, "values {values:?} from {k}, span {span}, style {style}");
            let mut distinct = values.clone();
            distinct.sort();
            distinct.dedup();
            if distinct.len() == 1 {
                assert_eq!(questions, 1);
            } else if style == 0 && span == 1000 {
                assert!(
                    questions <= 2 * distinct.len() + 2,
                    "{questions} questions for {values:?}"
                );
            }
        }
    }

    /// An array of ints an initialising loop filled with `3 * i + 5`, read
    /// at `base + (k << 2)` for a symbolic `k`: the word `3 * k + 5`,
    /// exactly, under every `k` in range; a region that breaks the
    /// progression, or an offset not known to be aligned, gives none.
    #[test]
    fn words_in_progression_read_as_their_formula() {
        let mut s = TermStore::new();
        let base = 64usize;
        let mut cells: Vec<TermId> = Vec::new();
        for i in 0..100u64 {
            for b in (3 * i + 5).to_le_bytes().iter().take(4) {
                cells.push(s.constant(Value::bv(8, *b as u64)));
            }
        }
        let k = s.symbol_term("k", Sort::Bv(32));
        let two = s.constant(Value::bv(32, 2));
        let scaled = s.app(Op::Shl, &[k, two]).unwrap();
        let wide = s.app(Op::ZExt(64), &[scaled]).unwrap();
        let y = s.app(Op::ToInt, &[wide]).unwrap();
        let c = s.constant(Value::Int(base as i128));
        let off = s.app(Op::Add, &[y, c]).unwrap();
        let read = affine_read(&mut s, base, &cells, off, 32).expect("a progression");
        let ks = match s.node(k) {
            braid_term::Node::Sym(x) => *x,
            _ => unreachable!(),
        };
        for i in 0..100u64 {
            let mut m = braid_term::Model::default();
            m.insert(ks, Value::bv(32, i));
            assert_eq!(s.eval(read, &m), Ok(Value::bv(32, 3 * i + 5)), "k = {i}");
        }
        // A word off the progression (the first, so that the progression
        // comes from later words) is a choice of its own.
        let mut broken = cells.clone();
        broken[0] = s.constant(Value::bv(8, 0));
        let read = affine_read(&mut s, base, &broken, off, 32).expect("a progression but for one word");
        for i in 0..100u64 {
            let mut m = braid_term::Model::default();
            m.insert(ks, Value::bv(32, i));
            let expected = if i == 0 { 0 } else { 3 * i + 5 };
            assert_eq!(s.eval(read, &m), Ok(Value::bv(32, expected)), "k = {i}");
        }
        // A byte table longer than 256 entries (`t[i] = i`, one changed):
        // the exception is at one index, not at every index with its low
        // byte.
        let mut table: Vec<TermId> = (0..600u64).map(|i| s.constant(Value::bv(8, i & 0xff))).collect();
        table[10] = s.constant(Value::bv(8, 99));
        let at = s.app(Op::ZExt(64), &[k]).unwrap();
        let at = s.app(Op::ToInt, &[at]).unwrap();
        let bytes = affine_read(&mut s, 0, &table, at, 8).expect("bytes in progression");
        for (i, expected) in [(10u64, 99u64), (266, 10), (522, 10), (11, 11)] {
            let mut m = braid_term::Model::default();
            m.insert(ks, Value::bv(32, i));
            assert_eq!(s.eval(bytes, &m), Ok(Value::bv(8, expected)), "t[{i}]");
        }
        // Too many words off it: none.
        for i in 0..=PROGRESSION_EXCEPTIONS {
            broken[4 * (i + 10)] = s.constant(Value::bv(8, 1));
        }
        assert_eq!(affine_read(&mut s, base, &broken, off, 32), None);
        let unaligned = s.app(Op::ZExt(64), &[k]).unwrap();
        let unaligned = s.app(Op::ToInt, &[unaligned]).unwrap();
        let unaligned = s.app(Op::Add, &[unaligned, c]).unwrap();
        assert_eq!(affine_read(&mut s, base, &cells, unaligned, 32), None);
    }

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
    fn a_stored_word_is_read_back_whole() {
        let mut s = TermStore::new();
        let c = s.symbol_term("c", Sort::Bv(8));
        let n = s.symbol_term("n", Sort::Bv(32));
        let zext = s.app(Op::ZExt(32), &[c]).unwrap();
        let sext = s.app(Op::SExt(32), &[c]).unwrap();
        // A word, and a widened byte (whose bytes fold: `c`, then zeros or
        // the sign's copies), stored and loaded again are themselves.
        for v in [n, zext, sext] {
            let bytes = bytes_of(&mut s, v, Some(32)).unwrap();
            assert_eq!(word_of(&mut s, 32, &bytes), Some(v), "{}", s.display(v));
        }
        // Bytes of two stores are put together, not taken for either.
        let mut mixed = bytes_of(&mut s, zext, Some(32)).unwrap();
        mixed[1] = bytes_of(&mut s, n, Some(32)).unwrap()[1];
        let word = word_of(&mut s, 32, &mixed).unwrap();
        assert!(word != zext && word != n);
        let d = s.symbol_term("d", Sort::Bv(8));
        let zero = s.constant(Value::bv(8, 0));
        let other = word_of(&mut s, 32, &[c, zero, zero, d]).unwrap();
        assert!(other != zext);
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
