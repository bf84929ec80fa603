//! Unsat by difference bounds: the constraints that compare two
//! bit-vector terms, or a term and a constant (`x < y`, `x <= 5`,
//! `x == y`, signed or unsigned), read exactly as integer constraints
//! `x - y <= k`; a negative cycle among them (`x < y`, `y <= z`, `z < x`)
//! proves the whole set unsat, and the cycle's constraints are its unsat
//! core (minimal: drop one and the rest of the cycle is satisfiable).
//!
//! Sound because each comparison is read exactly (a signed comparison of
//! `w`-bit values is the comparison of their two's-complement integers, an
//! unsigned one of their plain integers; signed and unsigned readings of a
//! term are different integers, so they get separate graphs), a term that
//! is not a symbol (`x & 1`) is a node of its own whose only known bounds
//! are its width's, and a subset of a set that is unsat makes the set
//! unsat. More rules use what the bounds imply: an `x != y` (or `x != c`)
//! whose sides the bounds force to be equal is a contradiction (its core:
//! the two shortest paths and the disequality); a Boolean atom held both
//! ways is one; and a disjunction is refuted case by case (its core: the
//! disjunction and the cases' cores). A comparison with a side
//! `ite(c, a, b)` is such a disjunction: `c` and the comparison with `a`,
//! or `¬c` and the comparison with `b` — the shape of a merged state's
//! values, whose questions are thus answered case by case along the
//! merge's conditions. Everything else (arithmetic, other sorts) is left
//! out, so nothing is claimed for it.
//! Ordered containers over symbolic keys ask thousands of branch
//! questions of this shape that contradict the path (`k1 < k2` against
//! `k1 >= k2`, or through a chain); Z3 answers each in 1-3 ms (10 ms and
//! more on a merged state's) and its unsat cores, not minimal, answer few
//! later questions.

use braid_term::{Model, Node, Op, Sort, TermId, TermStore, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// Past this many nodes in one graph, or parts of a question, or
/// disequalities tried, the check claims nothing (the questions it is for
/// have a few dozen of each; a merged state's guard can be a formula of
/// millions of shared nodes, which must not be walked as a tree).
const MAX_NODES: usize = 128;
const MAX_PARTS: usize = 1024;
const MAX_APART: usize = 64;
/// Disjunctions split at most this deep, and at most this many sets
/// checked in all (cases tried and split): past them the check claims
/// nothing.
const MAX_DEPTH: usize = 32;
pub const MAX_CHECKS: usize = 1024;
/// The same limit for a question that is not about a merged state (see
/// [`check_within`]).
pub const MAX_PLAIN_CHECKS: usize = 256;

/// What the check found: an unsat core of the set, or else (when it is
/// not undecided) a candidate model: the values of the symbols that
/// satisfy the comparisons of one case it could not refute, which the
/// caller must evaluate the set under (atoms and other terms are not
/// looked into).
#[derive(Debug)]
pub enum Found {
    Unsat(Vec<TermId>),
    Candidate(Model),
    Nothing,
}

/// An unsat core of `set` (constraints of it that cannot hold together)
/// when its comparisons have a negative cycle, force two sides that a
/// disequality keeps apart to be equal, hold an atom both ways, or do one
/// of these in every case of a disjunction; `None` claims nothing.
#[cfg(test)]
fn unsat_core(store: &TermStore, set: &[TermId]) -> Option<Vec<TermId>> {
    match check(store, set) {
        Found::Unsat(core) => Some(core),
        _ => None,
    }
}

/// [`unsat_core`], and when a case is left that nothing refutes, a model of
/// its comparisons.
#[cfg(test)]
fn check(store: &TermStore, set: &[TermId]) -> Found {
    check_within(store, set, MAX_CHECKS)
}

/// An unsat core of `set` (as [`unsat_core`] finds one), or when a case is
/// left that nothing refutes, a model of its comparisons; the search checks
/// at most `limit` sets. Branch questions of states that merged nothing are
/// refuted within a few hundred, and a search that goes on claims nothing:
/// on tinyexpr's parser under dse, 494 of 1 745 checks reached
/// [`MAX_CHECKS`] (90 % of the sets checked) where the 470 refutations took
/// at most 241 sets; a merged B-tree's questions under dsm took up to 1 013.
pub fn check_within(store: &TermStore, set: &[TermId], limit: usize) -> Found {
    let mut parts = Parts::default();
    for &c in set {
        if parts.collect(store, c, false, c).is_none() {
            return Found::Nothing;
        }
    }
    let mut search = Search {
        limit,
        ..Search::default()
    };
    match refute(store, parts, MAX_DEPTH, &mut search) {
        Some(mut core) => {
            if search.derived {
                core = set.to_vec();
            }
            core.sort_unstable();
            core.dedup();
            Found::Unsat(core)
        }
        None => search.candidate.map_or(Found::Nothing, Found::Candidate),
    }
}

/// The sets checked so far (bounded by `limit`), and the model of
/// the first case found that nothing refutes.
#[derive(Default)]
struct Search {
    checks: usize,
    candidate: Option<Model>,
    /// Whether bounds were derived from affine terms ([`derive`]): a core
    /// found is then the whole set.
    derived: bool,
    /// The most sets the search may check.
    limit: usize,
}

/// A comparison `a op b` of two bit-vector terms (negated when `neg`) and
/// the member of the set it comes from.
#[derive(Clone, Copy)]
struct Lit {
    op: Op,
    a: TermId,
    b: TermId,
    neg: bool,
    from: TermId,
}

/// One conjunct of a disjunction's case: a term (negated or not), or a
/// comparison made by taking one side of an `ite`.
#[derive(Clone, Copy)]
enum Item {
    Term(TermId, bool),
    Cmp(Lit),
}

/// A disjunction of the set: its member and its cases (conjunctions).
type Or = (TermId, Rc<Vec<Vec<Item>>>);

/// A question's comparisons and other atoms that must all hold, and its
/// disjunctions, one case of which must; each `(term, negated)` once.
#[derive(Clone, Default)]
struct Parts {
    lits: Vec<Lit>,
    /// Boolean atoms that are not comparisons: `(atom, negated, member)`.
    atoms: Vec<(TermId, bool, TermId)>,
    ors: Vec<Or>,
    seen: FxHashSet<(TermId, bool)>,
    /// Disequalities `a != b` split into `a < b` or `a > b` already.
    split: FxHashSet<(TermId, TermId)>,
}

fn is_comparison(op: Op) -> bool {
    matches!(
        op,
        Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::ULt | Op::ULe | Op::UGt | Op::UGe | Op::Eq | Op::Ne
    )
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
        let boolean = store.sort(t) == Sort::Bool;
        match store.node(t) {
            Node::App(Op::Not, args) if args.len() == 1 => self.collect(store, args[0], !neg, from)?,
            Node::App(op @ (Op::And | Op::Or), args) if boolean => {
                if (*op == Op::And) != neg {
                    // A conjunction: an `and`, or a negated `or`.
                    for &x in args {
                        self.collect(store, x, neg, from)?;
                    }
                } else {
                    let cases = args.iter().map(|&x| vec![Item::Term(x, neg)]).collect();
                    self.ors.push((from, Rc::new(cases)));
                }
            }
            // ite(c, p, q) is (c and p) or (not c and q); negated, the
            // cases take not p and not q.
            Node::App(Op::Ite, args) if boolean && args.len() == 3 => {
                let cases = vec![
                    vec![Item::Term(args[0], false), Item::Term(args[1], neg)],
                    vec![Item::Term(args[0], true), Item::Term(args[2], neg)],
                ];
                self.ors.push((from, Rc::new(cases)));
            }
            Node::App(op, args)
                if is_comparison(*op) && args.len() == 2 && matches!(store.sort(args[0]), Sort::Bv(_)) =>
            {
                self.compare(
                    store,
                    Lit {
                        op: *op,
                        a: args[0],
                        b: args[1],
                        neg,
                        from,
                    },
                );
            }
            _ => self.atoms.push((t, neg, from)),
        }
        Some(())
    }

    /// Adds comparison `l`; a side `ite(c, x, y)` makes it a disjunction:
    /// `c` and the comparison with `x`, or `not c` and the one with `y`.
    fn compare(&mut self, store: &TermStore, l: Lit) {
        for (i, side) in [l.a, l.b].into_iter().enumerate() {
            if let Node::App(Op::Ite, args) = store.node(side) {
                if args.len() == 3 {
                    let with = |x: TermId| {
                        let mut m = l;
                        if i == 0 {
                            m.a = x;
                        } else {
                            m.b = x;
                        }
                        Item::Cmp(m)
                    };
                    let cases = vec![
                        vec![Item::Term(args[0], false), with(args[1])],
                        vec![Item::Term(args[0], true), with(args[2])],
                    ];
                    self.ors.push((l.from, Rc::new(cases)));
                    return;
                }
            }
        }
        self.lits.push(l);
    }

    /// A disequality not split yet whose sides `model` makes equal (a
    /// symbol it leaves out at its default, as the caller evaluates it).
    fn broken_apart(&self, store: &TermStore, model: &Model) -> Option<Lit> {
        let open =
            |l: &Lit| matches!((l.op, l.neg), (Op::Ne, false) | (Op::Eq, true)) && !self.split.contains(&(l.a, l.b));
        let mut m = model.clone();
        for l in self.lits.iter().filter(|l| open(l)) {
            for t in [l.a, l.b] {
                for &s in store.symbols(t) {
                    m.entry(s).or_insert_with(|| Value::default_of(store.symbol(s).sort));
                }
            }
        }
        self.lits
            .iter()
            .copied()
            .find(|l| open(l) && matches!((store.eval(l.a, &m), store.eval(l.b, &m)), (Ok(x), Ok(y)) if x == y))
    }

    /// Adds the conjuncts of a disjunction's case, from member `from`.
    fn case(&mut self, store: &TermStore, case: &[Item], from: TermId) -> Option<()> {
        for &item in case {
            self.item(store, item, from)?;
        }
        Some(())
    }

    /// Adds one conjunct of a case, from member `from`.
    fn item(&mut self, store: &TermStore, item: Item, from: TermId) -> Option<()> {
        match item {
            Item::Term(t, neg) => self.collect(store, t, neg, from),
            Item::Cmp(l) => {
                self.compare(store, Lit { from, ..l });
                (self.lits.len() <= MAX_PARTS).then_some(())
            }
        }
    }
}

/// A core (members of the set) refuting `parts`. Like a SAT solver's
/// propagation, a disjunction's cases that contradict the rest at once are
/// dropped (their cores join the core), and a disjunction left with one
/// case becomes a conjunction; when every disjunction keeps two or more,
/// the one with fewest is split: the set is unsat when every case is, and
/// the disjunction with the cases' cores is its core.
fn refute(store: &TermStore, mut parts: Parts, depth: usize, search: &mut Search) -> Option<Vec<TermId>> {
    let mut core = Vec::new();
    loop {
        if let Some(c) = contradiction(store, &parts, search)? {
            core.extend(c);
            return Some(core);
        }
        // Every disjunction's cases against the rest: the cores of those
        // that contradict it at once, and those left. Disjunctions left with
        // one case are propagated together; else the one with fewest cases
        // left is split.
        let mut units: Vec<(usize, Option<Vec<Item>>, Vec<TermId>)> = Vec::new();
        let mut pick: Option<(usize, Vec<Vec<Item>>, Vec<TermId>)> = None;
        for (i, (from, cs)) in parts.ors.iter().enumerate() {
            let (mut live, mut dead) = (Vec::new(), Vec::new());
            for case in cs.iter() {
                let mut p = parts.clone();
                p.case(store, case, *from)?;
                match contradiction(store, &p, search)? {
                    Some(c) => dead.extend(c),
                    None => live.push(case.clone()),
                }
            }
            match live.len() {
                0 => {
                    core.push(*from);
                    core.extend(dead);
                    return Some(core);
                }
                1 => units.push((i, live.pop(), dead)),
                n if pick.as_ref().is_none_or(|(_, l, _)| n < l.len()) => pick = Some((i, live, dead)),
                _ => {}
            }
        }
        if !units.is_empty() {
            // Highest index first, so that the others stay where they are.
            for (i, case, dead) in units.into_iter().rev() {
                let (from, _) = parts.ors.swap_remove(i);
                core.push(from);
                core.extend(dead);
                parts.case(store, &case?, from)?;
            }
            continue;
        }
        let Some((at, live, dead)) = pick else {
            // Nothing left to split: this case stands, and its comparisons
            // have a model. Only offered when they are all the case says:
            // other atoms (floats, Booleans) are the solver's to choose.
            if parts.atoms.is_empty() && !parts.lits.is_empty() {
                let model = candidate(store, &parts);
                // Shortest distances make many terms equal; a disequality
                // they break is split, as `a < b` or `a > b` (a merged
                // state's question is mostly such: `k1 != k2` and the
                // orders of the keys, case by case).
                if depth > 0 {
                    if let Some(l) = parts.broken_apart(store, &model) {
                        parts.split.insert((l.a, l.b));
                        let side = |op| vec![Item::Cmp(Lit { op, neg: false, ..l })];
                        parts.ors.push((l.from, Rc::new(vec![side(Op::Lt), side(Op::Gt)])));
                        continue;
                    }
                }
                search.candidate = Some(model);
            }
            return None;
        };
        if depth == 0 {
            return None;
        }
        let (from, _) = parts.ors.swap_remove(at);
        let mut split = vec![from];
        split.extend(dead);
        for case in live {
            let mut p = parts.clone();
            p.case(store, &case, from)?;
            let refuted = refute(store, p, depth - 1, search)?;
            if !refuted.contains(&from) {
                // The case took no part in its refutation (nothing of the
                // disjunction's member is in the core): the same core
                // refutes every other case, which need not be tried (as a
                // SAT solver's backjumping).
                core.extend(refuted);
                return Some(core);
            }
            split.extend(refuted);
        }
        core.extend(split);
        return Some(core);
    }
}

/// A core of a contradiction among `parts`' comparisons and atoms, without
/// splitting a disjunction: `Some(None)` when there is none, `None` past
/// the search's limit of sets checked.
fn contradiction(store: &TermStore, parts: &Parts, search: &mut Search) -> Option<Option<Vec<TermId>>> {
    search.checks += 1;
    if search.checks > search.limit {
        return None;
    }
    // An atom held both ways.
    let mut held: FxHashMap<TermId, (bool, TermId)> = FxHashMap::default();
    for &(t, neg, from) in &parts.atoms {
        match held.get(&t) {
            Some(&(n, other)) if n != neg => return Some(Some(vec![from, other])),
            Some(_) => {}
            None => {
                held.insert(t, (neg, from));
            }
        }
    }
    let mut graphs = [Graph::default(), Graph::default()];
    let mut apart = Vec::new();
    for l in &parts.lits {
        if let Some(core) = add(store, *l, &mut graphs, &mut apart) {
            return Some(Some(core));
        }
    }
    for g in &graphs {
        if let Some(core) = g.negative_cycle() {
            return Some(Some(core));
        }
    }
    if derive(store, parts, &mut graphs) {
        search.derived = true;
        for g in &graphs {
            if let Some(core) = g.negative_cycle() {
                return Some(Some(core));
            }
        }
    }
    let mut memo = [Paths::default(), Paths::default()];
    for &(a, b, w, from) in apart.iter().take(MAX_APART) {
        for (i, g) in graphs.iter().enumerate() {
            if let Some(mut core) = g.forced_equal(a, b, w, i == 0, &mut memo[i]) {
                core.push(from);
                return Some(Some(core));
            }
        }
    }
    Some(None)
}

/// Values of the symbols that satisfy `parts`' comparisons (which
/// [`contradiction`] found consistent): in each reading's graph, shortest
/// distances from a source joined to every node are a solution of its
/// constraints `u - v <= k`, shifted so that node 0 (the integer 0) is 0.
/// A symbol in both graphs takes its signed reading's value.
fn candidate(store: &TermStore, parts: &Parts) -> Model {
    let mut graphs = [Graph::default(), Graph::default()];
    let mut apart = Vec::new();
    for l in &parts.lits {
        add(store, *l, &mut graphs, &mut apart);
    }
    derive(store, parts, &mut graphs);
    let dists: Vec<Option<Vec<i128>>> = graphs.iter().map(Graph::potentials).collect();
    let mut model = Model::default();
    for (g, dist) in graphs.iter().zip(&dists) {
        let Some(dist) = dist else { continue };
        for (&t, &n) in &g.nodes {
            let (Node::Sym(s), Sort::Bv(w)) = (store.node(t), store.sort(t)) else {
                continue;
            };
            let v = dist[n] - dist[0];
            model.entry(*s).or_insert_with(|| Value::bv(w, v as u64));
        }
    }
    // A masked symbol (`s & m`: a parity test) that no bound names itself
    // takes its node's value, where the mask allows it.
    for (g, dist) in graphs.iter().zip(&dists) {
        let Some(dist) = dist else { continue };
        for (&t, &mask) in &g.masks {
            let (Some(&n), Node::App(_, args), Sort::Bv(w)) = (g.nodes.get(&t), store.node(t), store.sort(t)) else {
                continue;
            };
            let [a, b] = args.as_slice() else { continue };
            let ((Node::Sym(sym), _) | (_, Node::Sym(sym))) = (store.node(*a), store.node(*b)) else {
                continue;
            };
            let v = Value::bv(w, (dist[n] - dist[0]) as u64);
            if matches!(v, Value::Bv { bits, .. } if bits as i128 & !mask == 0) {
                model.entry(*sym).or_insert(v);
            }
        }
    }
    model
}

/// A term of a comparison: a term of its own (a symbol, or any other
/// bit-vector term, whose value the check does not look into) or a
/// constant (a `w`-bit value read as an integer, signed or not).
#[derive(Clone, Copy)]
enum Side {
    Term(TermId),
    Const(i128),
}

fn side(store: &TermStore, t: TermId, signed: bool) -> Option<(Side, u8)> {
    match store.node(t) {
        Node::Const(Value::Bv { width, bits }) => {
            let v = if signed {
                Value::bv_signed(*width, *bits) as i128
            } else {
                *bits as i128
            };
            Some((Side::Const(v), *width))
        }
        _ => match store.sort(t) {
            Sort::Bv(w) => Some((Side::Term(t), w)),
            _ => None,
        },
    }
}

/// Adds comparison `l` to the graph of its reading, or to `apart` (a
/// disequality: its sides as raw bits, their width and its member). A
/// comparison of two constants that does not hold is a core by itself.
fn add(
    store: &TermStore,
    l: Lit,
    graphs: &mut [Graph; 2],
    apart: &mut Vec<(Side, Side, u8, TermId)>,
) -> Option<Vec<TermId>> {
    let (signed, strict, flip, eq) = match reading(l) {
        Some(r) => r,
        None if matches!((l.op, l.neg), (Op::Ne, false) | (Op::Eq, true)) => {
            if let (Some((a, wa)), Some((b, wb))) = (side(store, l.a, false), side(store, l.b, false)) {
                match (a, b) {
                    (Side::Const(x), Side::Const(y)) if x == y => return Some(vec![l.from]),
                    (Side::Const(_), Side::Const(_)) => {}
                    _ if wa == wb => apart.push((a, b, wa, l.from)),
                    _ => {}
                }
            }
            return None;
        }
        None => return None,
    };
    let (Some((a, wa)), Some((b, wb))) = (side(store, l.a, signed), side(store, l.b, signed)) else {
        return None;
    };
    let (a, b) = if flip { (b, a) } else { (a, b) };
    if wa != wb {
        return None;
    }
    for t in [l.a, l.b] {
        if let Some(m) = mask_of(store, t) {
            graphs[!signed as usize].masks.insert(t, m);
        }
    }
    if let (Side::Const(x), Side::Const(y)) = (a, b) {
        // a <= b (a < b when strict; both ways when eq).
        let holds = if eq { x == y } else { x - y <= -(strict as i128) };
        return (!holds).then(|| vec![l.from]);
    }
    let g = &mut graphs[!signed as usize];
    // a - b <= k (a < b: a - b <= -1).
    g.bound((a, b), wa, signed, -(strict as i128), l.from);
    if eq {
        g.bound((b, a), wa, signed, 0, l.from);
    }
    None
}

/// A bit-vector constant's bits, as an unsigned integer.
fn bits_of(store: &TermStore, t: TermId) -> Option<i128> {
    match store.node(t) {
        Node::Const(Value::Bv { bits, .. }) => Some(*bits as i128),
        _ => None,
    }
}

/// The mask `m` of a term `x & m`, as an unsigned integer.
fn mask_of(store: &TermStore, t: TermId) -> Option<i128> {
    let Node::App(Op::And, args) = store.node(t) else {
        return None;
    };
    args.iter().find_map(|&a| bits_of(store, a))
}

/// Comparison `l` as `a <= b` (`strict`: `a < b`; `eq`: both ways), with
/// `flip`: `b … a`, in the signed reading or not: `(signed, strict, flip,
/// eq)`; `None` for a disequality.
fn reading(l: Lit) -> Option<(bool, bool, bool, bool)> {
    Some(match (l.op, l.neg) {
        (Op::Lt, false) | (Op::Ge, true) => (true, true, false, false),
        (Op::Le, false) | (Op::Gt, true) => (true, false, false, false),
        (Op::Gt, false) | (Op::Le, true) => (true, true, true, false),
        (Op::Ge, false) | (Op::Lt, true) => (true, false, true, false),
        (Op::ULt, false) | (Op::UGe, true) => (false, true, false, false),
        (Op::ULe, false) | (Op::UGt, true) => (false, false, false, false),
        (Op::UGt, false) | (Op::ULe, true) => (false, true, true, false),
        (Op::UGe, false) | (Op::ULt, true) => (false, false, true, false),
        (Op::Eq, false) | (Op::Ne, true) => (true, false, false, true),
        _ => return None,
    })
}

/// `t` as `a·s + c` for a symbol `s` of `t`'s width, a factor `a > 0` and
/// a constant `c` (raw bits): `s`, `s << k`, `s * a`, each plus a constant.
fn affine(store: &TermStore, t: TermId) -> Option<(TermId, i128, i128)> {
    let constant = |x: TermId| bits_of(store, x);
    let scaled = |x: TermId| -> Option<(TermId, i128)> {
        match store.node(x) {
            Node::Sym(_) => Some((x, 1)),
            Node::App(Op::Shl, args) if matches!(store.node(args[0]), Node::Sym(_)) => {
                let k = constant(args[1])?;
                (k < 32).then(|| (args[0], 1i128 << k))
            }
            Node::App(Op::Mul, args) if args.len() == 2 => {
                let (s, a) = match (store.node(args[0]), store.node(args[1])) {
                    (Node::Sym(_), _) => (args[0], constant(args[1])?),
                    (_, Node::Sym(_)) => (args[1], constant(args[0])?),
                    _ => return None,
                };
                (a > 0 && a < 1 << 32).then_some((s, a))
            }
            _ => None,
        }
    };
    let (s, a, c) = match store.node(t) {
        Node::App(Op::Add, args) if args.len() == 2 => match (constant(args[0]), constant(args[1])) {
            (Some(c), None) => scaled(args[1]).map(|(s, a)| (s, a, c))?,
            (None, Some(c)) => scaled(args[0]).map(|(s, a)| (s, a, c))?,
            _ => return None,
        },
        _ => scaled(t).map(|(s, a)| (s, a, 0))?,
    };
    (store.sort(s) == store.sort(t)).then_some((s, a, c))
}

/// Bounds on symbols that comparisons of an affine term with a constant
/// imply (`4·s + c >=u K`: `s >= ⌈(K - c)/4⌉`), where the bounds the
/// graphs already put on `s` keep `a·s + c` from wrapping around in the
/// comparison's reading and keep `s` in `0 .. 2^(w-1)`, where both
/// readings of `s` agree: such a bound is added to both graphs. It holds
/// in every model of the set, but follows from constraints that the
/// graphs' paths do not name, so a contradiction it takes part in has the
/// whole set as its core ([`Search::derived`]). Whether any was added.
fn derive(store: &TermStore, parts: &Parts, graphs: &mut [Graph; 2]) -> bool {
    let mut found = Vec::new();
    // Each graph's shortest paths from and to the integer 0, once asked.
    let mut memo = [Paths::default(), Paths::default()];
    for l in &parts.lits {
        let Some((signed, strict, flip, eq)) = reading(*l) else {
            continue;
        };
        let (x, y) = if flip { (l.b, l.a) } else { (l.a, l.b) };
        // x <= y (x < y when strict), one side an affine term, the other a
        // constant: the term at most (`upper`) or at least the constant.
        let (t, k, upper) = match (side(store, x, signed), side(store, y, signed)) {
            (Some((Side::Term(t), _)), Some((Side::Const(k), _))) => (t, k - strict as i128, true),
            (Some((Side::Const(k), _)), Some((Side::Term(t), _))) => (t, k + strict as i128, false),
            _ => continue,
        };
        let Some((s, a, c)) = affine(store, t).filter(|&(s, ..)| s != t) else {
            continue;
        };
        let Sort::Bv(w) = store.sort(s) else { continue };
        let Some((lo, hi)) = range(graphs, &mut memo, s, w) else {
            continue;
        };
        let half = 1i128 << (w - 1);
        let c = if signed && c >= half { c - (1i128 << w) } else { c };
        let (min, max) = if signed {
            (-half, half - 1)
        } else {
            (0, (1i128 << w) - 1)
        };
        if a * lo + c < min || a * hi + c > max {
            continue;
        }
        // a·s + c <= k: s <= ⌊(k - c)/a⌋; a·s + c >= k: s >= ⌈(k - c)/a⌉.
        if upper || eq {
            found.push((s, w, Some((k - c).div_euclid(a)), None, l.from));
        }
        if !upper || eq {
            found.push((s, w, None, Some(-(c - k).div_euclid(a)), l.from));
        }
    }
    for &(s, w, at_most, at_least, from) in &found {
        for (i, g) in graphs.iter_mut().enumerate() {
            let signed = i == 0;
            if let Some(hi) = at_most {
                g.bound((Side::Term(s), Side::Const(0)), w, signed, hi, from);
            }
            if let Some(lo) = at_least {
                g.bound((Side::Const(0), Side::Term(s)), w, signed, -lo, from);
            }
        }
    }
    !found.is_empty()
}

/// The bounds the graphs put on symbol `s` (`w` bits), when they keep it
/// in `0 .. 2^(w-1)`, where its two readings agree.
fn range(graphs: &[Graph; 2], memo: &mut [Paths; 2], s: TermId, w: u8) -> Option<(i128, i128)> {
    let half = 1i128 << (w - 1);
    let (mut lo, mut hi) = (i128::MIN, i128::MAX);
    for (g, memo) in graphs.iter().zip(memo) {
        let Some(&n) = g.nodes.get(&s) else { continue };
        if g.nodes.len() + 1 > MAX_NODES {
            return None;
        }
        // n - 0 <= d(0 -> n); 0 - n <= d(n -> 0).
        if let Some(d) = g.shortest(memo, 0, n) {
            hi = hi.min(d);
        }
        if let Some(d) = g.shortest(memo, n, 0) {
            lo = lo.max(-d);
        }
    }
    (lo >= 0 && hi < half).then_some((lo, hi))
}

/// A graph's shortest paths found so far: from a node, as
/// [`Graph::tree`] gives them, by the node they start from; and to
/// the integer 0 from every node ([`Graph::tree`] reversed), which gives every
/// term's lower bound in one search (a parser's question compares dozens of
/// terms with constants).
#[derive(Default)]
struct Paths {
    from: FxHashMap<usize, Tree>,
    to_zero: Option<Tree>,
}

/// One search's shortest paths: per node, the distance and the edge its
/// path takes at that node.
type Tree = (Vec<Option<i128>>, Vec<Option<usize>>);

/// Constraints `u - v <= k` as edges `v -> u` of weight `k`, each with the
/// constraint it comes from (`None`: a term's range, which always
/// holds); node 0 is the integer 0 (constants are bounds against it).
#[derive(Default)]
struct Graph {
    nodes: FxHashMap<TermId, usize>,
    edges: Vec<(usize, usize, i128, Option<TermId>)>,
    /// Terms `x & m` (a constant mask) with their mask: at most `m`.
    masks: FxHashMap<TermId, i128>,
}

impl Graph {
    /// The node of `s` and the constant it adds; a term's first use adds
    /// its range as a `w`-bit integer of the graph's reading.
    fn node(&mut self, s: Side, w: u8, signed: bool) -> (usize, i128) {
        match s {
            Side::Const(v) => (0, v),
            Side::Term(s) => {
                let next = self.nodes.len() + 1;
                let n = *self.nodes.entry(s).or_insert(next);
                if n == next {
                    let (lo, hi) = if signed {
                        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                    } else {
                        (0, (1i128 << w) - 1)
                    };
                    // `x & m` is in 0..=m (unsigned; signed too when m is
                    // below the sign bit).
                    let (lo, hi) = match self.masks.get(&s) {
                        Some(&m) if !signed || m < 1i128 << (w - 1) => (0, m),
                        _ => (lo, hi),
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
            Side::Term(s) => self.nodes.get(&s).map(|&n| (n, 0)),
        }
    }

    /// Shortest paths from `root` (no negative cycle), or with `reversed`
    /// to it: each node's distance, and the edge its path takes at the node
    /// (arrives by; leaves by when reversed).
    fn tree(&self, root: usize, reversed: bool) -> Tree {
        let n = self.nodes.len() + 1;
        let mut dist: Vec<Option<i128>> = vec![None; n];
        let mut via = vec![None; n];
        dist[root] = Some(0);
        for _ in 0..n {
            let mut changed = false;
            for (i, &(v, u, k, _)) in self.edges.iter().enumerate() {
                let (near, far) = if reversed { (u, v) } else { (v, u) };
                if let Some(d) = dist[near] {
                    if dist[far].is_none_or(|df| d + k < df) {
                        dist[far] = Some(d + k);
                        via[far] = Some(i);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        (dist, via)
    }

    /// The length of the shortest path from `x` to `y`, its searches kept
    /// in `memo` (no negative cycle).
    fn shortest(&self, memo: &mut Paths, x: usize, y: usize) -> Option<i128> {
        if y == 0 && x != 0 {
            return memo.to_zero.get_or_insert_with(|| self.tree(0, true)).0[x];
        }
        memo.from.entry(x).or_insert_with(|| self.tree(x, false)).0[y]
    }

    /// The constraints on the path [`Graph::shortest`] found from `x` to `y`.
    fn shortest_path(&self, memo: &Paths, x: usize, y: usize) -> Option<Vec<TermId>> {
        if y == 0 && x != 0 {
            return self.walk(&memo.to_zero.as_ref()?.1, 0, x, true);
        }
        self.walk(&memo.from.get(&x)?.1, x, y, false)
    }

    /// The constraints on a path of the tree rooted at `root` whose edges
    /// are `via` ([`Graph::tree`]), from node `at` back to the root.
    fn walk(&self, via: &[Option<usize>], root: usize, mut at: usize, reversed: bool) -> Option<Vec<TermId>> {
        let (mut out, mut steps) = (Vec::new(), 0);
        while at != root {
            let (v, u, _, c) = self.edges[via[at]?];
            out.extend(c);
            at = if reversed { u } else { v };
            steps += 1;
            if steps > via.len() {
                return None;
            }
        }
        Some(out)
    }

    /// When the bounds leave `a` and `b` (raw `w`-bit sides) no room but to
    /// be equal: the constraints that force it. Called only on a graph
    /// without a negative cycle.
    fn forced_equal(&self, a: Side, b: Side, w: u8, signed: bool, memo: &mut Paths) -> Option<Vec<TermId>> {
        let (u, cu) = self.find(a, w, signed)?;
        let (v, cv) = self.find(b, w, signed)?;
        if u == v {
            // The same symbol, or two constants: equal exactly when the
            // constants are.
            return (cu == cv).then(Vec::new);
        }
        // a - b = (u - v) + (cu - cv): u - v is at most the path v -> u,
        // v - u at most the path u -> v.
        let up = self.shortest(memo, v, u)? + cu - cv;
        if up > 0 {
            return None;
        }
        let down = self.shortest(memo, u, v)? - cu + cv;
        if down > 0 {
            return None;
        }
        let mut core = self.shortest_path(memo, v, u)?;
        core.extend(self.shortest_path(memo, u, v)?);
        Some(core)
    }

    /// Shortest distances from a virtual source joined to every node at 0,
    /// when there is no negative cycle: `d[u] <= d[v] + k` for every edge.
    fn potentials(&self) -> Option<Vec<i128>> {
        let n = self.nodes.len() + 1;
        if n > MAX_NODES {
            return None;
        }
        let mut dist = vec![0i128; n];
        for _ in 0..=n {
            let mut changed = false;
            for &(v, u, k, _) in &self.edges {
                if dist[v] + k < dist[u] {
                    dist[u] = dist[v] + k;
                    changed = true;
                }
            }
            if !changed {
                return Some(dist);
            }
        }
        None
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
        // x0 <u 0 is false as made (its bounds decide it).
        let u = st.app(Op::ULt, &[x[0], z]).unwrap();
        assert!(st.is_false(u));
    }

    /// Every core claimed on random sets of comparisons (some in
    /// disjunctions) over three 4-bit symbols and constants is unsat: no
    /// assignment of the 4 096 satisfies it.
    #[test]
    fn every_core_claimed_has_no_model() {
        let ops = Op::COMPARISONS;
        let mut st = TermStore::new();
        let xs: Vec<TermId> = (0..3).map(|i| st.symbol_term(&format!("y{i}"), Sort::Bv(4))).collect();
        let consts: Vec<TermId> = (0..16u64).map(|v| st.constant(Value::bv(4, v))).collect();
        // Two Boolean inputs: atoms that are not comparisons.
        let flags: Vec<TermId> = (0..2).map(|i| st.symbol_term(&format!("f{i}"), Sort::Bool)).collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut claimed, mut sets) = (0, 0);
        // A side: a symbol, a constant, a choice between two of these on a
        // comparison (a merged value), or a term the check does not look
        // into (`y & c`).
        let side = |st: &mut TermStore, next: &mut dyn FnMut(usize) -> usize| -> TermId {
            let plain = |next: &mut dyn FnMut(usize) -> usize| {
                if next(3) == 0 {
                    consts[next(16)]
                } else {
                    xs[next(3)]
                }
            };
            match next(8) {
                0 => {
                    let (p, q) = (xs[next(3)], plain(next));
                    let cond = st.app(ops[next(ops.len())], &[p, q]).unwrap();
                    let (yes, no) = (plain(next), plain(next));
                    st.app(Op::Ite, &[cond, yes, no]).unwrap()
                }
                1 => {
                    let k = consts[next(16)];
                    st.app(Op::And, &[xs[next(3)], k]).unwrap()
                }
                // An affine term: `c + (y << k)` or `y * a` (bounds derived
                // where it cannot wrap around).
                2 => {
                    let shifted = st.app(Op::Shl, &[xs[next(3)], consts[next(3)]]).unwrap();
                    st.app(Op::Add, &[consts[next(16)], shifted]).unwrap()
                }
                3 => st.app(Op::Mul, &[xs[next(3)], consts[1 + next(4)]]).unwrap(),
                _ => plain(next),
            }
        };
        let atom = |st: &mut TermStore, next: &mut dyn FnMut(usize) -> usize| {
            let a = xs[next(3)];
            let b = side(st, next);
            let (a, b) = if next(2) == 0 { (a, b) } else { (b, a) };
            let t = if next(8) == 0 {
                flags[next(2)]
            } else {
                st.app(ops[next(ops.len())], &[a, b]).unwrap()
            };
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
            for v in 0..4 * 4096u64 {
                let mut model: braid_term::Model = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| (st.symbols(*x)[0], Value::bv(4, v >> (4 * i) & 15)))
                    .collect();
                for (i, f) in flags.iter().enumerate() {
                    model.insert(st.symbols(*f)[0], Value::Bool(v >> (12 + i) & 1 == 1));
                }
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
        // Pinned through a chain: x0 >= x1 >= 5 and x0 <= 5 with x0 != 5;
        // the core is the chain's constraints, not the unrelated x1 < x2.
        let x0_ge_x1 = st.app(Op::Ge, &[x[0], x[1]]).unwrap();
        let x1_ge_5 = st.app(Op::Ge, &[x[1], five]).unwrap();
        let x0_le_5 = st.app(Op::Le, &[x[0], five]).unwrap();
        let x0_is_5 = st.app(Op::Eq, &[x[0], five]).unwrap();
        let x0_not_5 = st.app(Op::Not, &[x0_is_5]).unwrap();
        let mut want = vec![x0_ge_x1, x1_ge_5, x0_le_5, x0_not_5];
        want.sort_unstable();
        assert_eq!(
            unsat_core(&st, &[other, x0_ge_x1, x1_ge_5, x0_le_5, x0_not_5]),
            Some(want)
        );
        assert_eq!(unsat_core(&st, &[x0_ge_x1, x0_le_5, x0_not_5]), None);
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
        // The refutation checks three sets (the rest, then each case): a
        // search allowed two claims nothing.
        assert!(matches!(check_within(&st, &[either, eq], 3), Found::Unsat(_)));
        assert!(matches!(check_within(&st, &[either, eq], 2), Found::Nothing));
    }

    /// A merged value `ite(c, a, b)` compared: the comparison is split
    /// along `c`, refuted on both sides (unsat), or one side stands and its
    /// comparisons' model satisfies the set.
    #[test]
    fn a_comparison_with_a_choice_is_decided_case_by_case() {
        let (mut st, x) = store_with(3);
        // max(x0, x2) > x1 with x0 <= x1 and x2 <= x1.
        let lt = st.app(Op::Lt, &[x[0], x[2]]).unwrap();
        let max = st.app(Op::Ite, &[lt, x[2], x[0]]).unwrap();
        let above = st.app(Op::Gt, &[max, x[1]]).unwrap();
        let a = st.app(Op::Le, &[x[0], x[1]]).unwrap();
        let b = st.app(Op::Le, &[x[2], x[1]]).unwrap();
        let Found::Unsat(mut core) = check(&st, &[a, b, above]) else {
            panic!("unsat on both sides of the choice")
        };
        core.sort_unstable();
        let mut want = vec![a, b, above];
        want.sort_unstable();
        assert_eq!(core, want);
        // Without x2 <= x1 the side where x2 is the greater stands.
        let five = c(&mut st, 5);
        let low = st.app(Op::Ge, &[x[1], five]).unwrap();
        let Found::Candidate(m) = check(&st, &[a, above, low]) else {
            panic!("a case stands")
        };
        assert!(st.satisfies(&[a, above, low], &m), "{m:?}");
    }

    /// Keys in a range that must differ pairwise: the shortest distances
    /// make them all equal, so the disequalities are split until a case's
    /// model keeps them apart; with more keys than the range holds, every
    /// case is refuted.
    #[test]
    fn a_disequality_the_distances_break_is_split() {
        let (mut st, x) = store_with(3);
        let (zero, two, three) = (c(&mut st, 0), c(&mut st, 2), c(&mut st, 3));
        let mut set = Vec::new();
        for &k in &x {
            set.push(st.app(Op::Ge, &[k, zero]).unwrap());
            set.push(st.app(Op::Lt, &[k, three]).unwrap());
        }
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            set.push(st.app(Op::Ne, &[x[i], x[j]]).unwrap());
        }
        let Found::Candidate(m) = check(&st, &set) else {
            panic!("three keys fit in 0..3")
        };
        assert!(st.satisfies(&set, &m), "{m:?}");
        set[1] = st.app(Op::Lt, &[x[0], two]).unwrap();
        set[3] = st.app(Op::Lt, &[x[1], two]).unwrap();
        set[5] = st.app(Op::Lt, &[x[2], two]).unwrap();
        assert!(
            matches!(check(&st, &set), Found::Unsat(_)),
            "three keys do not fit in 0..2"
        );
    }

    /// A red-black tree's question over a node's address: `s` in `0..8`
    /// and `0x10400 + (s << 2) >=u 0x1041c` put `s` at 7, so no `t` is
    /// above `s` and below 8.
    #[test]
    fn an_address_bound_bounds_its_index() {
        let (mut st, x) = store_with(2);
        let (zero, eight, two) = (c(&mut st, 0), c(&mut st, 8), c(&mut st, 2));
        let (base, end) = (c(&mut st, 0x10400), c(&mut st, 0x1041c));
        let shifted = st.app(Op::Shl, &[x[0], two]).unwrap();
        let addr = st.app(Op::Add, &[base, shifted]).unwrap();
        let mut set = vec![
            st.app(Op::Ge, &[x[0], zero]).unwrap(),
            st.app(Op::Lt, &[x[0], eight]).unwrap(),
            st.app(Op::UGe, &[addr, end]).unwrap(),
            st.app(Op::Gt, &[x[1], x[0]]).unwrap(),
        ];
        let Found::Candidate(m) = check(&st, &set) else {
            panic!("t = 8 is above s = 7")
        };
        assert!(st.satisfies(&set, &m), "{m:?}");
        set.push(st.app(Op::Lt, &[x[1], eight]).unwrap());
        let Found::Unsat(core) = check(&st, &set) else {
            panic!("no t in 8..8")
        };
        assert_eq!(core.len(), set.len(), "a derived bound's core is the whole set");
        // With s below 8 only through t < 8, the same.
        set.remove(1);
        assert!(matches!(check(&st, &set), Found::Unsat(_)));
        // With no upper bound on s the address may wrap: nothing derived,
        // and the set is satisfiable (s = 7, t = 8).
        set.pop();
        assert!(!matches!(check(&st, &set), Found::Unsat(_)));
    }

    /// A parity test `x & 1 != 0`: the masked term lies in `0..=1`, so the
    /// split leaves `x & 1 > 0`, and the model gives `x` the node's value.
    #[test]
    fn a_masked_symbol_takes_its_value() {
        let (mut st, x) = store_with(1);
        let (zero, one) = (c(&mut st, 0), c(&mut st, 1));
        let odd = st.app(Op::And, &[x[0], one]).unwrap();
        let set = [st.app(Op::Ne, &[odd, zero]).unwrap()];
        let Found::Candidate(m) = check(&st, &set) else {
            panic!("x = 1 is odd")
        };
        assert!(st.satisfies(&set, &m), "{m:?}");
        // `x & 1 >u 1` is false as made (its bounds decide it); above a
        // symbol that is at least 1 it is left to the procedure.
        let above = st.app(Op::UGt, &[odd, one]).unwrap();
        assert!(st.is_false(above));
        let y = st.symbol_term("y", Sort::Bv(32));
        let (above, positive) = (
            st.app(Op::UGt, &[odd, y]).unwrap(),
            st.app(Op::UGt, &[y, zero]).unwrap(),
        );
        assert!(
            matches!(check(&st, &[above, positive]), Found::Unsat(_)),
            "x & 1 is at most 1"
        );
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
