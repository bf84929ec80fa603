//! Unsat by difference bounds: the constraints that compare two
//! bit-vector symbols, or a symbol and a constant (`x < y`, `x <= 5`,
//! `x == y`, signed or unsigned), read exactly as integer constraints
//! `x - y <= k`; a negative cycle among them (`x < y`, `y <= z`, `z < x`)
//! proves the whole set unsat, and the cycle's constraints are its unsat
//! core (minimal: drop one and the rest of the cycle is satisfiable).
//!
//! Sound because each comparison is read exactly (a signed comparison of
//! `w`-bit values is the comparison of their two's-complement integers, an
//! unsigned one of their plain integers; signed and unsigned readings of a
//! symbol are different integers, so they get separate graphs), and a
//! subset of a set that is unsat makes the set unsat. Two more rules use
//! what the bounds imply: an `x != y` (or `x != c`) whose sides the bounds
//! force to be equal is a contradiction (its core: the two shortest paths
//! and the disequality), and a disjunction is refuted case by case (its
//! core: the disjunction and the cases' cores). Everything else
//! (arithmetic, other sorts) is left out, so nothing is claimed for it.
//! Ordered containers over symbolic keys ask thousands of branch
//! questions of this shape that contradict the path (`k1 < k2` against
//! `k1 >= k2`, or through a chain); Z3 answers each in 1-3 ms and its
//! unsat cores, not minimal, answer few later questions.

use braid_term::{Node, Op, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// Past this many symbols in one graph, or comparisons and disjunctions
/// in a question, or disequalities tried, the check claims nothing (the
/// questions it is for have a few dozen of each; a merged state's guard can
/// be a formula of millions of shared nodes, which must not be walked as a
/// tree).
const MAX_NODES: usize = 128;
const MAX_PARTS: usize = 1024;
const MAX_APART: usize = 64;
/// Disjunctions split at most this deep, and at most this many cases in
/// all: past them the check claims nothing.
const MAX_DEPTH: usize = 3;
const MAX_CASES: usize = 64;

/// An unsat core of `set` (constraints of it that cannot hold together)
/// when its comparisons have a negative cycle, force two sides that a
/// disequality keeps apart to be equal, or do either in every case of a
/// disjunction; `None` claims nothing.
pub fn unsat_core(store: &TermStore, set: &[TermId]) -> Option<Vec<TermId>> {
    let mut parts = Parts::default();
    for &c in set {
        parts.collect(store, c, false, c)?;
    }
    let Parts { lits, ors, .. } = parts;
    let mut cases = 0;
    let mut core = refute(store, &lits, &ors, MAX_DEPTH, &mut cases)?;
    core.sort_unstable();
    core.dedup();
    Some(core)
}

/// A comparison (negated when `neg`) and the member of the set it comes from.
#[derive(Clone, Copy)]
struct Lit {
    atom: TermId,
    neg: bool,
    from: TermId,
}

/// A disjunction of the set: its member and its cases (each negated or not).
type Or = (TermId, Vec<(TermId, bool)>);

/// A question's comparisons that must all hold and its disjunctions, one
/// case of which must; each `(term, negated)` once.
#[derive(Default)]
struct Parts {
    lits: Vec<Lit>,
    ors: Vec<Or>,
    seen: rustc_hash::FxHashSet<(TermId, bool)>,
}

impl Parts {
    /// Adds `t` (negated when `neg`, from member `from`); `None` past
    /// [`MAX_PARTS`].
    fn collect(&mut self, store: &TermStore, t: TermId, neg: bool, from: TermId) -> Option<()> {
        if !self.seen.insert((t, neg)) {
            return Some(());
        }
        if self.seen.len() > MAX_PARTS {
            return None;
        }
        let boolean = store.sort(t) == braid_term::Sort::Bool;
        match store.node(t) {
            Node::App(Op::Not, args) if args.len() == 1 => self.collect(store, args[0], !neg, from)?,
            Node::App(op @ (Op::And | Op::Or), args) if boolean => {
                if (*op == Op::And) != neg {
                    // A conjunction: an `and`, or a negated `or`.
                    for &x in args {
                        self.collect(store, x, neg, from)?;
                    }
                } else {
                    self.ors.push((from, args.iter().map(|&x| (x, neg)).collect()));
                }
            }
            _ => self.lits.push(Lit { atom: t, neg, from }),
        }
        Some(())
    }
}

/// A core (members of the set) refuting `lits` with `ors`, splitting the
/// smallest disjunction into its cases when the comparisons alone do not:
/// the set is unsat when every case is, and the disjunction with the cases'
/// cores is its core.
fn refute(store: &TermStore, lits: &[Lit], ors: &[Or], depth: usize, cases: &mut usize) -> Option<Vec<TermId>> {
    *cases += 1;
    if *cases > MAX_CASES {
        return None;
    }
    let mut graphs = [Graph::default(), Graph::default()];
    let mut apart = Vec::new();
    for l in lits {
        add(store, *l, &mut graphs, &mut apart);
    }
    for g in &graphs {
        if let Some(core) = g.negative_cycle() {
            return Some(core);
        }
    }
    for &(a, b, w, from) in apart.iter().take(MAX_APART) {
        for (i, g) in graphs.iter().enumerate() {
            if let Some(mut core) = g.forced_equal(a, b, w, i == 0) {
                core.push(from);
                return Some(core);
            }
        }
    }
    if depth == 0 {
        return None;
    }
    let (at, (from, split)) = ors.iter().enumerate().min_by_key(|(_, (_, cs))| cs.len())?;
    let rest: Vec<Or> = ors[..at].iter().chain(&ors[at + 1..]).cloned().collect();
    let mut core = vec![*from];
    for &(t, neg) in split {
        let mut parts = Parts {
            lits: lits.to_vec(),
            ors: rest.clone(),
            seen: Default::default(),
        };
        parts.collect(store, t, neg, *from)?;
        if parts.lits.len() > MAX_PARTS {
            return None;
        }
        core.extend(refute(store, &parts.lits, &parts.ors, depth - 1, cases)?);
    }
    Some(core)
}

/// A term of a comparison: a symbol or a constant (a `w`-bit value read as
/// an integer, signed or not).
#[derive(Clone, Copy)]
enum Side {
    Sym(SymId),
    Const(i128),
}

fn side(store: &TermStore, t: TermId, signed: bool) -> Option<(Side, u8)> {
    match store.node(t) {
        Node::Sym(s) => match store.sort(t) {
            braid_term::Sort::Bv(w) => Some((Side::Sym(*s), w)),
            _ => None,
        },
        Node::Const(Value::Bv { width, bits }) => {
            let v = if signed {
                Value::bv_signed(*width, *bits) as i128
            } else {
                *bits as i128
            };
            Some((Side::Const(v), *width))
        }
        _ => None,
    }
}

/// Adds comparison `l` to the graph of its reading, or to `apart` (a
/// disequality: its sides as raw bits, their width and its member).
fn add(store: &TermStore, l: Lit, graphs: &mut [Graph; 2], apart: &mut Vec<(Side, Side, u8, TermId)>) {
    let Node::App(op, args) = store.node(l.atom) else {
        return;
    };
    let (signed, strict, flip, eq) = match (op, l.neg) {
        // `a op b` as `a <= b` (`strict`: `a < b`), with `flip`: `b … a`.
        (Op::Lt, false) | (Op::Ge, true) => (true, true, false, false),
        (Op::Le, false) | (Op::Gt, true) => (true, false, false, false),
        (Op::Gt, false) | (Op::Le, true) => (true, true, true, false),
        (Op::Ge, false) | (Op::Lt, true) => (true, false, true, false),
        (Op::ULt, false) | (Op::UGe, true) => (false, true, false, false),
        (Op::ULe, false) | (Op::UGt, true) => (false, false, false, false),
        (Op::UGt, false) | (Op::ULe, true) => (false, true, true, false),
        (Op::UGe, false) | (Op::ULt, true) => (false, false, true, false),
        (Op::Eq, false) | (Op::Ne, true) => (true, false, false, true),
        (Op::Ne, false) | (Op::Eq, true) => {
            if let [x, y] = args[..] {
                if let (Some((a, wa)), Some((b, wb))) = (side(store, x, false), side(store, y, false)) {
                    if wa == wb {
                        apart.push((a, b, wa, l.from));
                    }
                }
            }
            return;
        }
        _ => return,
    };
    if args.len() != 2 {
        return;
    }
    let (Some((a, wa)), Some((b, wb))) = (side(store, args[0], signed), side(store, args[1], signed)) else {
        return;
    };
    if wa != wb || matches!((a, b), (Side::Const(_), Side::Const(_))) {
        return;
    }
    let (a, b) = if flip { (b, a) } else { (a, b) };
    let g = &mut graphs[!signed as usize];
    // a - b <= k (a < b: a - b <= -1).
    g.bound((a, b), wa, signed, -(strict as i128), l.from);
    if eq {
        g.bound((b, a), wa, signed, 0, l.from);
    }
}

/// Constraints `u - v <= k` as edges `v -> u` of weight `k`, each with the
/// constraint it comes from (`None`: a symbol's range, which always
/// holds); node 0 is the integer 0 (constants are bounds against it).
#[derive(Default)]
struct Graph {
    nodes: FxHashMap<SymId, usize>,
    edges: Vec<(usize, usize, i128, Option<TermId>)>,
}

impl Graph {
    /// The node of `s` and the constant it adds; a symbol's first use adds
    /// its range as a `w`-bit integer of the graph's reading.
    fn node(&mut self, s: Side, w: u8, signed: bool) -> (usize, i128) {
        match s {
            Side::Const(v) => (0, v),
            Side::Sym(s) => {
                let next = self.nodes.len() + 1;
                let n = *self.nodes.entry(s).or_insert(next);
                if n == next {
                    let (lo, hi) = if signed {
                        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                    } else {
                        (0, (1i128 << w) - 1)
                    };
                    // n - 0 <= hi and 0 - n <= -lo.
                    self.edges.push((0, n, hi, None));
                    self.edges.push((n, 0, -lo, None));
                }
                (n, 0)
            }
        }
    }

    /// `a - b <= k`, from constraint `c`.
    fn bound(&mut self, (a, b): (Side, Side), w: u8, signed: bool, k: i128, c: TermId) {
        let (u, cu) = self.node(a, w, signed);
        let (v, cv) = self.node(b, w, signed);
        // (u + cu) - (v + cv) <= k  <=>  u - v <= k - cu + cv.
        self.edges.push((v, u, k - cu + cv, Some(c)));
    }

    /// The node of a side already in the graph (constants: node 0), with
    /// the constant it adds in this graph's reading (`raw` constants are
    /// bits of width `w`).
    fn find(&self, s: Side, w: u8, signed: bool) -> Option<(usize, i128)> {
        match s {
            Side::Const(v) if signed && v >= 1i128 << (w - 1) => Some((0, v - (1i128 << w))),
            Side::Const(v) => Some((0, v)),
            Side::Sym(s) => self.nodes.get(&s).map(|&n| (n, 0)),
        }
    }

    /// Shortest paths from `from` (no negative cycle): the distances and
    /// the edge each node's path arrives by.
    fn paths_from(&self, from: usize) -> (Vec<Option<i128>>, Vec<Option<usize>>) {
        let n = self.nodes.len() + 1;
        let mut dist: Vec<Option<i128>> = vec![None; n];
        let mut pred = vec![None; n];
        dist[from] = Some(0);
        for _ in 0..n {
            let mut changed = false;
            for (i, &(v, u, k, _)) in self.edges.iter().enumerate() {
                if let Some(d) = dist[v] {
                    if dist[u].is_none_or(|du| d + k < du) {
                        dist[u] = Some(d + k);
                        pred[u] = Some(i);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        (dist, pred)
    }

    /// The constraints on the path the search from `from` found to `to`.
    fn path(&self, pred: &[Option<usize>], from: usize, to: usize) -> Option<Vec<TermId>> {
        let (mut x, mut out, mut steps) = (to, Vec::new(), 0);
        while x != from {
            let (v, _, _, c) = self.edges[pred[x]?];
            out.extend(c);
            x = v;
            steps += 1;
            if steps > pred.len() {
                return None;
            }
        }
        Some(out)
    }

    /// When the bounds leave `a` and `b` (raw `w`-bit sides) no room but to
    /// be equal: the constraints that force it. Called only on a graph
    /// without a negative cycle.
    fn forced_equal(&self, a: Side, b: Side, w: u8, signed: bool) -> Option<Vec<TermId>> {
        let (u, cu) = self.find(a, w, signed)?;
        let (v, cv) = self.find(b, w, signed)?;
        if u == v {
            // The same symbol, or two constants: equal exactly when the
            // constants are.
            return (cu == cv).then(Vec::new);
        }
        // a - b = (u - v) + (cu - cv): u - v is at most the path v -> u,
        // v - u at most the path u -> v.
        let (to_u, pred_v) = self.paths_from(v);
        let (to_v, pred_u) = self.paths_from(u);
        let (up, down) = (to_u[u]? + cu - cv, to_v[v]? - cu + cv);
        if up > 0 || down > 0 {
            return None;
        }
        let mut core = self.path(&pred_v, v, u)?;
        core.extend(self.path(&pred_u, u, v)?);
        Some(core)
    }

    /// Bellman-Ford from a virtual source joined to every node: the
    /// constraints of a negative cycle, if any.
    fn negative_cycle(&self) -> Option<Vec<TermId>> {
        let n = self.nodes.len() + 1;
        if self.edges.is_empty() || n > MAX_NODES {
            return None;
        }
        let mut dist = vec![0i128; n];
        let mut pred: Vec<Option<usize>> = vec![None; n];
        // With the virtual source there are n + 1 nodes: shortest paths
        // settle within n rounds, so a change in round n + 1 is a cycle.
        let mut last = None;
        for _ in 0..=n {
            last = None;
            for (i, &(v, u, k, _)) in self.edges.iter().enumerate() {
                if dist[v] + k < dist[u] {
                    dist[u] = dist[v] + k;
                    pred[u] = Some(i);
                    last = Some(u);
                }
            }
            last?;
        }
        // Walking back n edges from the last node changed lands on the cycle.
        let mut x = last?;
        for _ in 0..n {
            x = self.edges[pred[x]?].0;
        }
        let (start, mut weight, mut core) = (x, 0i128, Vec::new());
        loop {
            let (from, _, k, c) = self.edges[pred[x]?];
            weight += k;
            core.extend(c);
            x = from;
            if x == start {
                break;
            }
        }
        if weight >= 0 || core.is_empty() {
            return None;
        }
        core.sort_unstable();
        core.dedup();
        Some(core)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::Sort;

    fn store_with(n: usize) -> (TermStore, Vec<TermId>) {
        let mut st = TermStore::new();
        let xs = (0..n).map(|i| st.symbol_term(&format!("x{i}"), Sort::Bv(32))).collect();
        (st, xs)
    }

    fn c(st: &mut TermStore, v: i64) -> TermId {
        st.constant(Value::bv(32, v as u64))
    }

    #[test]
    fn a_comparison_and_its_negation_are_a_core() {
        let (mut st, x) = store_with(3);
        let lt = st.app(Op::Lt, &[x[0], x[1]]).unwrap();
        let ge = st.app(Op::Ge, &[x[0], x[1]]).unwrap();
        let other = st.app(Op::Ne, &[x[1], x[2]]).unwrap();
        let mut core = unsat_core(&st, &[lt, other, ge]).expect("unsat");
        core.sort_unstable();
        let mut want = vec![lt, ge];
        want.sort_unstable();
        assert_eq!(core, want);
        assert_eq!(unsat_core(&st, &[lt, other]), None);
    }

    #[test]
    fn a_chain_through_constants_and_equalities_closes() {
        let (mut st, x) = store_with(3);
        // x0 < x1, x1 == x2, x2 <= 3, x0 >= 3: x0 < x1 = x2 <= 3 <= x0.
        let zero_to = c(&mut st, 3);
        let a = st.app(Op::Lt, &[x[0], x[1]]).unwrap();
        let b = st.app(Op::Eq, &[x[1], x[2]]).unwrap();
        let d = st.app(Op::Le, &[x[2], zero_to]).unwrap();
        let e = st.app(Op::Ge, &[x[0], zero_to]).unwrap();
        assert_eq!(unsat_core(&st, &[a, b, d, e]).map(|c| c.len()), Some(4));
        // Without the last link it has a model (x0 = 1, x1 = x2 = 2).
        assert_eq!(unsat_core(&st, &[a, b, d]), None);
    }

    #[test]
    fn signed_and_unsigned_readings_stay_apart() {
        let (mut st, x) = store_with(2);
        // x0 <s x1 and x1 <u x0 hold together (x0 = -1, x1 = 0).
        let a = st.app(Op::Lt, &[x[0], x[1]]).unwrap();
        let b = st.app(Op::ULt, &[x[1], x[0]]).unwrap();
        assert_eq!(unsat_core(&st, &[a, b]), None);
        // -1 <s x0 is 0 <= x0 (signed); x0 <u 0 alone is unsat.
        let m1 = c(&mut st, -1);
        let z = c(&mut st, 0);
        let p = st.app(Op::Gt, &[x[0], m1]).unwrap();
        let q = st.app(Op::Lt, &[x[0], z]).unwrap();
        assert_eq!(unsat_core(&st, &[p, q]).map(|c| c.len()), Some(2));
        let u = st.app(Op::ULt, &[x[0], z]).unwrap();
        assert_eq!(unsat_core(&st, &[u]), Some(vec![u]));
    }

    /// Every core claimed on random sets of comparisons (some in
    /// disjunctions) over three 4-bit symbols and constants is unsat: no
    /// assignment of the 4 096 satisfies it.
    #[test]
    fn every_core_claimed_has_no_model() {
        let ops = [
            Op::Lt,
            Op::Le,
            Op::Gt,
            Op::Ge,
            Op::ULt,
            Op::ULe,
            Op::UGt,
            Op::UGe,
            Op::Eq,
            Op::Ne,
        ];
        let mut st = TermStore::new();
        let xs: Vec<TermId> = (0..3).map(|i| st.symbol_term(&format!("y{i}"), Sort::Bv(4))).collect();
        let consts: Vec<TermId> = (0..16u64).map(|v| st.constant(Value::bv(4, v))).collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut claimed, mut sets) = (0, 0);
        let atom = |st: &mut TermStore, next: &mut dyn FnMut(usize) -> usize| {
            let a = xs[next(3)];
            let b = if next(3) == 0 { consts[next(16)] } else { xs[next(3)] };
            let (a, b) = if next(2) == 0 { (a, b) } else { (b, a) };
            let t = st.app(ops[next(ops.len())], &[a, b]).unwrap();
            if next(4) == 0 {
                st.app(Op::Not, &[t]).unwrap()
            } else {
                t
            }
        };
        for _ in 0..4000 {
            let len = 1 + next(6);
            let set: Vec<TermId> = (0..len)
                .map(|_| {
                    let t = atom(&mut st, &mut next);
                    // Some members are disjunctions: `or`, or a negated `and`.
                    match next(6) {
                        0 => {
                            let u = atom(&mut st, &mut next);
                            st.app(Op::Or, &[t, u]).unwrap()
                        }
                        1 => {
                            let u = atom(&mut st, &mut next);
                            let both = st.app(Op::And, &[t, u]).unwrap();
                            st.app(Op::Not, &[both]).unwrap()
                        }
                        _ => t,
                    }
                })
                .collect();
            sets += 1;
            let Some(core) = unsat_core(&st, &set) else { continue };
            claimed += 1;
            assert!(core.iter().all(|c| set.contains(c)));
            for v in 0..4096u64 {
                let model: braid_term::Model = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| (st.symbols(*x)[0], Value::bv(4, v >> (4 * i) & 15)))
                    .collect();
                assert!(
                    !st.satisfies(&core, &model),
                    "{:?} holds under {model:?}",
                    core.iter().map(|c| st.display(*c)).collect::<Vec<_>>()
                );
            }
        }
        // The generator makes enough contradictions to test something.
        assert!(claimed > sets / 20, "{claimed} of {sets}");
    }

    #[test]
    fn bounds_that_force_equality_contradict_a_disequality() {
        let (mut st, x) = store_with(3);
        let ge = st.app(Op::Ge, &[x[0], x[1]]).unwrap();
        let le = st.app(Op::Le, &[x[0], x[1]]).unwrap();
        let ne = st.app(Op::Ne, &[x[0], x[1]]).unwrap();
        let other = st.app(Op::Lt, &[x[1], x[2]]).unwrap();
        let mut want = vec![ge, le, ne];
        want.sort_unstable();
        assert_eq!(unsat_core(&st, &[ge, other, le, ne]), Some(want));
        assert_eq!(unsat_core(&st, &[ge, ne, other]), None);
        // A symbol pinned to a constant: 5 <= x2 <= 5 and x2 != 5.
        let five = c(&mut st, 5);
        let lo = st.app(Op::Ge, &[x[2], five]).unwrap();
        let hi = st.app(Op::ULe, &[x[2], five]).unwrap();
        let not5 = st.app(Op::Eq, &[x[2], five]).unwrap();
        let not5 = st.app(Op::Not, &[not5]).unwrap();
        assert_eq!(
            unsat_core(&st, &[lo, hi, not5]),
            None,
            "unsat only across the two readings, which the check keeps apart: not claimed"
        );
        let hi = st.app(Op::Le, &[x[2], five]).unwrap();
        assert_eq!(unsat_core(&st, &[lo, hi, not5]).map(|c| c.len()), Some(3));
    }

    #[test]
    fn every_case_of_a_disjunction_refuted_refutes_the_set() {
        let (mut st, x) = store_with(2);
        let lt = st.app(Op::Lt, &[x[0], x[1]]).unwrap();
        let gt = st.app(Op::Gt, &[x[0], x[1]]).unwrap();
        let either = st.app(Op::Or, &[lt, gt]).unwrap();
        let eq = st.app(Op::Eq, &[x[0], x[1]]).unwrap();
        let mut want = vec![either, eq];
        want.sort_unstable();
        assert_eq!(unsat_core(&st, &[either, eq]), Some(want));
        // not (x0 <= x1 and x0 >= x1) is the same disjunction.
        let le = st.app(Op::Le, &[x[0], x[1]]).unwrap();
        let ge = st.app(Op::Ge, &[x[0], x[1]]).unwrap();
        let both = st.app(Op::And, &[le, ge]).unwrap();
        let neither = st.app(Op::Not, &[both]).unwrap();
        assert!(unsat_core(&st, &[neither, eq]).is_some());
        // One case left open: nothing claimed.
        assert_eq!(unsat_core(&st, &[either, le]), None);
    }

    #[test]
    fn a_negated_comparison_reads_as_its_complement() {
        let (mut st, x) = store_with(2);
        let le = st.app(Op::Le, &[x[0], x[1]]).unwrap();
        let not_le = st.app(Op::Not, &[le]).unwrap();
        let lt_rev = st.app(Op::Lt, &[x[1], x[0]]).unwrap();
        // not (x0 <= x1) is x1 < x0: with x1 < x0 satisfiable, with x0 <= x1 not.
        assert_eq!(unsat_core(&st, &[not_le, lt_rev]), None);
        assert!(unsat_core(&st, &[not_le, le]).is_some());
    }
}
