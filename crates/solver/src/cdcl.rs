//! Questions over comparisons decided by clause learning over difference
//! bounds (DPLL(T) for difference logic).
//!
//! A merged state's question is a Boolean formula over comparisons of
//! symbols with one another and with constants: its path condition an
//! `or` of its parts' conditions, its values `ite`s over them
//! (bench/multise's priority queue and Heap Sort under ssm and dsm). The
//! search of orderings ([`crate::orders`]) places its symbols one at a
//! time and decides a constraint only once the symbols it reads are
//! placed, so a disjunction over ten symbols can cost millions of
//! placements: there it gave up on 16 of 54 questions of the priority
//! queue under ssm, each after 40-75 ms, most of ssm's time.
//!
//! Here the formula is encoded by Tseitin's gates over one Boolean
//! variable per comparison (`x - y <= k` over the integers the
//! comparison reads: a signed comparison the two's-complement values, an
//! unsigned one the plain values; `x < y` is `x - y <= -1`, its negation
//! `y - x <= 0`), and a value `ite(c, a, b)` is a node `v` of its own with
//! `c -> v = a` and `!c -> v = b`. Clause learning (two watched literals,
//! first unique implication point, activity-ordered decisions, Luby
//! restarts) assigns the variables; each comparison assigned adds its edge
//! (or its negation's) to a graph of difference bounds, which keeps a
//! potential that satisfies every edge
//! (a new edge that the potential violates is repaired as Cotton and
//! Maler do, by Dijkstra's search over reduced costs; reaching the edge's
//! own tail is a negative cycle, whose comparisons' negations are a
//! learned clause). Every symbol's node lies within its width's range
//! (edges from a zero node that are always there). A full assignment with
//! no cycle is a model: each symbol's value is its potential less the
//! zero node's. The constraints are the solver's assumptions, so learned
//! clauses hold for every subset of them: the unsat core is the
//! constraints the final conflict leads back to, each then dropped while
//! the rest stay unsat.
//!
//! Nothing is claimed for a set with other terms (arithmetic, masks, a
//! symbol read both signed and unsigned, floats) or once the search has
//! done [`MAX_WORK`] steps.

use crate::enumerate::Found;
use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// The most terms encoded, and the deepest term.
const MAX_TERMS: usize = 1 << 14;
const MAX_DEPTH: usize = 1024;
/// The most steps (clause visits, nodes looked at by the graph's repair)
/// the search may take over all its solves.
pub const MAX_WORK: u64 = 1 << 19;

/// A literal: a variable times two, plus one when negated.
type Lit = u32;
/// Variable 0 is true at level 0.
const TRUE: Lit = 0;
const NONE: u32 = u32::MAX;

fn var(l: Lit) -> usize {
    (l >> 1) as usize
}

/// Decides `set` when it is a Boolean formula over comparisons of
/// symbols, constants and `ite`s of them (see [`self`]). The second
/// answer: the set was of that kind but the search ran out of its budget.
pub fn decide(store: &TermStore, set: &[TermId]) -> (Found, bool) {
    decide_within(store, set, MAX_WORK)
}

fn decide_within(store: &TermStore, set: &[TermId], budget: u64) -> (Found, bool) {
    let Some(mut enc) = Encoder::new(store, set) else {
        return (Found::Nothing, false);
    };
    let mut roots = Vec::with_capacity(set.len());
    for &c in set {
        let Some(l) = enc.lit(c) else {
            return (Found::Nothing, false);
        };
        roots.push(l);
    }
    if enc.two_readings {
        return (Found::Nothing, false);
    }
    let mut sat = enc.sat;
    sat.left = budget;
    match sat.solve(&roots) {
        None => (Found::Nothing, true),
        Some(true) => {
            let zero = sat.pi[0];
            let mut model = Model::default();
            for (&(s, signed), &node) in &enc.nodes {
                let v = sat.pi[node as usize] - zero;
                let value = match store.symbol(s).sort {
                    Sort::Bv(w) => Value::bv(w, v as i64 as u64),
                    _ => Value::Int(v),
                };
                debug_assert!(signed || v >= 0);
                model.insert(s, value);
            }
            for (&s, &l) in &enc.bool_syms {
                model.insert(s, Value::Bool(sat.lit_value(l) > 0));
            }
            (Found::Sat(model), false)
        }
        Some(false) => {
            // The roots the refutation read, then each of them dropped
            // whose absence leaves the rest unsat.
            let mut kept: Vec<Lit> = roots.iter().copied().filter(|l| sat.core.contains(l)).collect();
            kept.dedup();
            // At most as much work again as the refutation took.
            let spent = budget - sat.left;
            sat.left = sat.left.min(spent);
            let mut i = 0;
            while i < kept.len() && kept.len() > 1 {
                let rest: Vec<Lit> = kept
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, l)| *l)
                    .collect();
                if sat.solve(&rest) == Some(false) {
                    kept.retain(|l| sat.core.contains(l) && rest.contains(l));
                } else {
                    i += 1;
                }
            }
            let core = set
                .iter()
                .zip(&roots)
                .filter(|(_, l)| kept.contains(l))
                .map(|(c, _)| *c)
                .collect();
            (Found::Unsat(core), false)
        }
    }
}

/// The `i`-th term of the Luby sequence (1, 1, 2, 1, 1, 2, 4, …).
fn luby(i: u32) -> u64 {
    let mut i = i as u64 + 1;
    loop {
        // The smallest 2^k - 1 at or past i.
        let k = 64 - i.leading_zeros() as u64;
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

/// A term's integer value: a node of the graph plus an offset.
#[derive(Clone, Copy, PartialEq)]
struct Side {
    node: u32,
    off: i128,
}

/// The set encoded into a [`Sat`] as it is walked.
struct Encoder<'s> {
    store: &'s TermStore,
    sat: Sat,
    bools: FxHashMap<TermId, Lit>,
    sides: FxHashMap<(TermId, bool), Side>,
    /// Each symbol's node under its reading (signed or not).
    nodes: FxHashMap<(SymId, bool), u32>,
    bool_syms: FxHashMap<SymId, Lit>,
    atoms: FxHashMap<(u32, u32, i128), Lit>,
    /// The reading of an `==` or `!=`: unsigned where the set compares
    /// only unsigned.
    signed: bool,
    /// A symbol read both ways: not a difference constraint.
    two_readings: bool,
    depth: usize,
}

impl<'s> Encoder<'s> {
    fn new(store: &'s TermStore, set: &[TermId]) -> Option<Self> {
        // The walk stops past the bound: a merged guard can be a DAG of
        // millions of terms.
        let mut entered = 0;
        let all = store.postorder_where(set, |_, _| {
            entered += 1;
            entered <= MAX_TERMS
        });
        if entered > MAX_TERMS {
            return None;
        }
        let (mut signed, mut unsigned) = (false, false);
        for &t in &all {
            match store.node(t) {
                Node::App(Op::Lt | Op::Le | Op::Gt | Op::Ge, _) => signed = true,
                Node::App(Op::ULt | Op::ULe | Op::UGt | Op::UGe, _) => unsigned = true,
                _ => {}
            }
        }
        Some(Encoder {
            store,
            sat: Sat::new(),
            bools: FxHashMap::default(),
            sides: FxHashMap::default(),
            nodes: FxHashMap::default(),
            bool_syms: FxHashMap::default(),
            atoms: FxHashMap::default(),
            signed: signed || !unsigned,
            two_readings: false,
            depth: 0,
        })
    }

    /// The literal of a Boolean term, its gate's clauses added.
    fn lit(&mut self, t: TermId) -> Option<Lit> {
        if let Some(&l) = self.bools.get(&t) {
            return Some(l);
        }
        self.depth += 1;
        let l = if self.depth > MAX_DEPTH { None } else { self.gate(t) };
        self.depth -= 1;
        let l = l?;
        self.bools.insert(t, l);
        Some(l)
    }

    fn gate(&mut self, t: TermId) -> Option<Lit> {
        let store = self.store;
        if store.sort(t) != Sort::Bool {
            return None;
        }
        let args = match store.node(t) {
            Node::Const(Value::Bool(b)) => return Some(TRUE ^ !*b as u32),
            Node::Const(_) => return None,
            Node::Sym(s) => {
                let l = self.sat.new_var();
                self.bool_syms.insert(*s, l);
                return Some(l);
            }
            Node::App(_, args) if !args.is_empty() => args,
            Node::App(..) => return None,
        };
        let Node::App(op, _) = store.node(t) else {
            unreachable!()
        };
        let bool_args = store.sort(args[0]) == Sort::Bool;
        match (*op, bool_args) {
            (Op::Not, true) => Some(self.lit(args[0])? ^ 1),
            (Op::And | Op::Or, true) => {
                let mut ls = Vec::with_capacity(args.len());
                for &a in args.iter() {
                    ls.push(self.lit(a)?);
                }
                // An `or` is the negated `and` of the negations.
                let flip = (*op == Op::Or) as u32;
                let g = self.sat.new_var();
                let mut all = vec![g];
                for l in ls {
                    self.sat.add_clause(vec![g ^ 1, l ^ flip]);
                    all.push(l ^ flip ^ 1);
                }
                self.sat.add_clause(all);
                Some(g ^ flip)
            }
            (Op::Xor | Op::Eq | Op::Ne, true) if args.len() == 2 => {
                let (a, b) = (self.lit(args[0])?, self.lit(args[1])?);
                let g = self.sat.new_var();
                for (x, y) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    // g is a xor b: g false where they agree, true where not.
                    self.sat.add_clause(vec![a ^ x ^ 1, b ^ y ^ 1, g ^ (x == y) as u32]);
                }
                Some(if *op == Op::Eq { g ^ 1 } else { g })
            }
            (Op::Ite, _) => {
                let (c, a, b) = (self.lit(args[0])?, self.lit(args[1])?, self.lit(args[2])?);
                let g = self.sat.new_var();
                self.sat.add_clause(vec![c ^ 1, a ^ 1, g]);
                self.sat.add_clause(vec![c ^ 1, a, g ^ 1]);
                self.sat.add_clause(vec![c, b ^ 1, g]);
                self.sat.add_clause(vec![c, b, g ^ 1]);
                Some(g)
            }
            (Op::Eq | Op::Ne, false) => {
                let (a, b) = (self.side(args[0], self.signed)?, self.side(args[1], self.signed)?);
                let eq = self.equal(a, b);
                Some(if *op == Op::Eq { eq } else { eq ^ 1 })
            }
            (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::ULt | Op::ULe | Op::UGt | Op::UGe, false) => {
                let signed = matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge);
                let (a, b) = (self.side(args[0], signed)?, self.side(args[1], signed)?);
                Some(match op {
                    Op::Lt | Op::ULt => self.atom(a, b, -1),
                    Op::Le | Op::ULe => self.atom(a, b, 0),
                    Op::Gt | Op::UGt => self.atom(b, a, -1),
                    _ => self.atom(b, a, 0),
                })
            }
            _ => None,
        }
    }

    /// The literal of `a - b <= k`.
    fn atom(&mut self, a: Side, b: Side, k: i128) -> Lit {
        let k = k - a.off + b.off;
        if a.node == b.node {
            return TRUE ^ (k < 0) as u32;
        }
        if let Some(&l) = self.atoms.get(&(a.node, b.node, k)) {
            return l;
        }
        if let Some(&l) = self.atoms.get(&(b.node, a.node, -k - 1)) {
            return l ^ 1;
        }
        let l = self.sat.new_var();
        self.sat.atom[var(l)] = Some((b.node, a.node, k));
        self.atoms.insert((a.node, b.node, k), l);
        l
    }

    /// The literal of `a == b`.
    fn equal(&mut self, a: Side, b: Side) -> Lit {
        if a == b {
            return TRUE;
        }
        let (le, ge) = (self.atom(a, b, 0), self.atom(b, a, 0));
        let g = self.sat.new_var();
        self.sat.add_clause(vec![g ^ 1, le]);
        self.sat.add_clause(vec![g ^ 1, ge]);
        self.sat.add_clause(vec![g, le ^ 1, ge ^ 1]);
        g
    }

    /// The integer a bit-vector (or integer) term reads as, `signed` or
    /// not.
    fn side(&mut self, t: TermId, signed: bool) -> Option<Side> {
        if let Some(&s) = self.sides.get(&(t, signed)) {
            return Some(s);
        }
        self.depth += 1;
        let s = if self.depth > MAX_DEPTH {
            None
        } else {
            self.value(t, signed)
        };
        self.depth -= 1;
        let s = s?;
        self.sides.insert((t, signed), s);
        Some(s)
    }

    fn value(&mut self, t: TermId, signed: bool) -> Option<Side> {
        let store = self.store;
        let sort = store.sort(t);
        match (store.node(t), sort) {
            (Node::Const(Value::Bv { width, bits }), _) => {
                let off = match signed {
                    true => Value::bv_signed(*width, *bits) as i128,
                    false => *bits as i128,
                };
                Some(Side { node: 0, off })
            }
            (Node::Const(Value::Int(v)), _) if signed => Some(Side { node: 0, off: *v }),
            (Node::Sym(s), Sort::Bv(w)) if w >= 1 => {
                if self.nodes.contains_key(&(*s, !signed)) {
                    self.two_readings = true;
                }
                let range = match signed {
                    true => (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1),
                    false => (0, (1i128 << w) - 1),
                };
                let node = *self
                    .nodes
                    .entry((*s, signed))
                    .or_insert_with(|| self.sat.new_node(Some(range)));
                Some(Side { node, off: 0 })
            }
            (Node::Sym(s), Sort::Int) if signed => {
                let node = *self.nodes.entry((*s, true)).or_insert_with(|| self.sat.new_node(None));
                Some(Side { node, off: 0 })
            }
            // A zero-extended value reads as the plain value of its bits;
            // a sign-extended one, read signed, as their signed value.
            // (Strictly wider, so that the plain value fits the signed
            // reading.)
            (Node::App(Op::ZExt(_), a), Sort::Bv(w)) if matches!(store.sort(a[0]), Sort::Bv(v) if v < w) => {
                self.side(a[0], false)
            }
            (Node::App(Op::SExt(_), a), Sort::Bv(_)) if signed => self.side(a[0], true),
            (Node::App(Op::Ite, a), Sort::Bv(_) | Sort::Int) => {
                let c = self.lit(a[0])?;
                let (x, y) = (self.side(a[1], signed)?, self.side(a[2], signed)?);
                Some(self.choice(c, x, y))
            }
            _ => None,
        }
    }
}

impl Encoder<'_> {
    /// The value `c ? x : y`: a node of its own equal to `x` where `c`
    /// holds and to `y` where it does not.
    fn choice(&mut self, c: Lit, x: Side, y: Side) -> Side {
        if x == y || c == TRUE {
            return x;
        }
        if c == TRUE ^ 1 {
            return y;
        }
        let v = Side {
            node: self.sat.new_node(None),
            off: 0,
        };
        for (when, side) in [(c, x), (c ^ 1, y)] {
            let (le, ge) = (self.atom(v, side, 0), self.atom(side, v, 0));
            self.sat.add_clause(vec![when ^ 1, le]);
            self.sat.add_clause(vec![when ^ 1, ge]);
        }
        v
    }
}

/// Clause learning over Boolean variables, some of them comparisons whose
/// edges join the graph of difference bounds while they are assigned.
struct Sat {
    /// Per variable: 1 true, -1 false, 0 unassigned.
    value: Vec<i8>,
    level: Vec<u32>,
    /// The clause that implied it, or [`NONE`].
    reason: Vec<u32>,
    activity: Vec<f64>,
    phase: Vec<bool>,
    /// The unassigned variables (and some assigned), a binary heap by
    /// activity; each variable's place in it or [`NONE`].
    heap: Vec<u32>,
    place: Vec<u32>,
    /// The roots that refuted the last solve.
    core: Vec<Lit>,
    /// A comparison's edge `(from, to, w)`: `to - from <= w` while true,
    /// `from - to <= -w - 1` while false.
    atom: Vec<Option<(u32, u32, i128)>>,
    clauses: Vec<Vec<Lit>>,
    /// Per literal, the clauses watching it (visited when it turns false).
    watches: Vec<Vec<u32>>,
    trail: Vec<Lit>,
    /// Where each decision level starts on the trail.
    levels: Vec<usize>,
    /// The trail's literals before it have been propagated (and their
    /// edges added).
    head: usize,
    inc: f64,
    /// Per node, its out-edges `(to, w)`; a potential that satisfies them.
    out: Vec<Vec<(u32, i128, Lit)>>,
    pi: Vec<i128>,
    /// The repair's scratch: per node the decrease, the edge it came by,
    /// whether it is settled.
    gamma: Vec<i128>,
    pred: Vec<(u32, Lit)>,
    settled: Vec<bool>,
    /// The repair's queue (most lowered first) and the nodes it touched.
    queue: std::collections::BinaryHeap<(i128, u32)>,
    touched: Vec<usize>,
    /// The settled nodes' potentials before the repair (put back on a
    /// cycle).
    moved: Vec<(usize, i128)>,
    seen: Vec<bool>,
    left: u64,
}

impl Sat {
    fn new() -> Self {
        let mut sat = Sat {
            value: Vec::new(),
            level: Vec::new(),
            reason: Vec::new(),
            activity: Vec::new(),
            phase: Vec::new(),
            heap: Vec::new(),
            place: Vec::new(),
            core: Vec::new(),
            atom: Vec::new(),
            clauses: Vec::new(),
            watches: Vec::new(),
            trail: Vec::new(),
            levels: Vec::new(),
            head: 0,
            inc: 1.0,
            out: Vec::new(),
            pi: Vec::new(),
            gamma: Vec::new(),
            pred: Vec::new(),
            settled: Vec::new(),
            queue: Default::default(),
            touched: Vec::new(),
            moved: Vec::new(),
            seen: Vec::new(),
            left: 0,
        };
        let t = sat.new_var();
        sat.assign(t, NONE);
        sat.new_node(None);
        sat
    }

    fn new_var(&mut self) -> Lit {
        let v = self.value.len() as u32;
        self.value.push(0);
        self.level.push(0);
        self.reason.push(NONE);
        self.activity.push(0.0);
        self.phase.push(false);
        self.place.push(NONE);
        self.heap_insert(v as usize);
        self.atom.push(None);
        self.seen.push(false);
        self.watches.push(Vec::new());
        self.watches.push(Vec::new());
        v << 1
    }

    /// A node of the graph, within `range` of the zero node (node 0).
    fn new_node(&mut self, range: Option<(i128, i128)>) -> u32 {
        let n = self.out.len() as u32;
        self.out.push(Vec::new());
        self.pi.push(0);
        self.gamma.push(0);
        self.pred.push((NONE, TRUE));
        self.settled.push(false);
        if let Some((lo, hi)) = range {
            // n - 0 <= hi and 0 - n <= -lo, true at level 0; the zero
            // potential satisfies both.
            self.out[0].push((n, hi, TRUE));
            self.out[n as usize].push((0, -lo, TRUE));
        }
        n
    }

    fn lit_value(&self, l: Lit) -> i8 {
        let v = self.value[var(l)];
        if l & 1 == 1 {
            -v
        } else {
            v
        }
    }

    fn assign(&mut self, l: Lit, reason: u32) {
        let v = var(l);
        self.value[v] = if l & 1 == 1 { -1 } else { 1 };
        self.level[v] = self.levels.len() as u32;
        self.reason[v] = reason;
        self.trail.push(l);
    }

    /// Adds a clause of the encoding (at level 0, before any search): its
    /// literals true at level 0 make it hold, false ones go.
    fn add_clause(&mut self, mut c: Vec<Lit>) {
        c.sort_unstable();
        c.dedup();
        if c.contains(&TRUE) || c.windows(2).any(|w| w[0] ^ 1 == w[1]) {
            return;
        }
        c.retain(|&l| l != TRUE ^ 1);
        match c.len() {
            // A set whose gates cannot all hold does not arise (each gate
            // is a function of its inputs), but is kept false.
            0 => self.add_clause(vec![TRUE ^ 1, TRUE ^ 1]),
            1 => {
                if self.lit_value(c[0]) == 0 {
                    self.assign(c[0], NONE);
                }
            }
            _ => {
                self.watch(&c, self.clauses.len() as u32);
                self.clauses.push(c);
            }
        }
    }

    fn watch(&mut self, c: &[Lit], i: u32) {
        self.watches[c[0] as usize].push(i);
        self.watches[c[1] as usize].push(i);
    }

    /// Whether `roots` hold together: `None` once out of work.
    fn solve(&mut self, roots: &[Lit]) -> Option<bool> {
        self.backtrack(0);
        // Restarts after 32 times the Luby sequence's conflicts.
        let (mut restarts, mut conflicts) = (0u32, 0u64);
        loop {
            if let Some(conflict) = self.propagate() {
                if self.levels.is_empty() {
                    self.core = roots.to_vec();
                    return Some(false);
                }
                let (learnt, back) = self.analyze(conflict);
                self.backtrack(back);
                if learnt.len() == 1 {
                    self.assign(learnt[0], NONE);
                } else {
                    let i = self.clauses.len() as u32;
                    self.watch(&learnt, i);
                    self.assign(learnt[0], i);
                    self.clauses.push(learnt);
                }
                self.inc *= 1.05;
                conflicts += 1;
                if conflicts >= 32 * luby(restarts) {
                    (restarts, conflicts) = (restarts + 1, 0);
                    self.backtrack(0);
                }
                continue;
            }
            if self.left == 0 {
                return None;
            }
            let level = self.levels.len();
            if let Some(&a) = roots.get(level) {
                match self.lit_value(a) {
                    1 => self.levels.push(self.trail.len()),
                    -1 => {
                        self.refuted_by(a);
                        return Some(false);
                    }
                    _ => {
                        self.levels.push(self.trail.len());
                        self.assign(a, NONE);
                    }
                }
                continue;
            }
            let next = loop {
                self.left = self.left.saturating_sub(1);
                match self.heap_pop() {
                    Some(v) if self.value[v] != 0 => continue,
                    next => break next,
                }
            };
            let Some(v) = next else {
                return Some(true);
            };
            self.levels.push(self.trail.len());
            self.assign(((v as u32) << 1) | !self.phase[v] as u32, NONE);
        }
    }

    fn backtrack(&mut self, level: usize) {
        if self.levels.len() <= level {
            return;
        }
        let start = self.levels[level];
        for i in (start..self.trail.len()).rev() {
            let l = self.trail[i];
            let v = var(l);
            if i < self.head {
                if let Some((from, to, _)) = self.atom[v] {
                    let tail = if l & 1 == 0 { from } else { to };
                    self.out[tail as usize].pop();
                }
            }
            self.phase[v] = l & 1 == 0;
            self.value[v] = 0;
            self.heap_insert(v);
        }
        self.trail.truncate(start);
        self.levels.truncate(level);
        self.head = self.head.min(start);
    }

    /// Propagates the trail: a comparison's edge into the graph, each
    /// clause watching a literal turned false. A conflict's clause, every
    /// literal false.
    fn propagate(&mut self) -> Option<Vec<Lit>> {
        while self.head < self.trail.len() {
            let p = self.trail[self.head];
            if let Some((from, to, w)) = self.atom[var(p)] {
                let edge = if p & 1 == 0 { (from, to, w) } else { (to, from, -w - 1) };
                if let Some(cycle) = self.add_edge(edge, p) {
                    return Some(cycle);
                }
            }
            self.head += 1;
            let falsified = p ^ 1;
            // The watch list compacted in place: a clause that found
            // another literal to watch leaves it.
            let mut watching = std::mem::take(&mut self.watches[falsified as usize]);
            let (mut read, mut kept) = (0, 0);
            let mut conflict = None;
            while read < watching.len() {
                let ci = watching[read];
                read += 1;
                self.left = self.left.saturating_sub(1);
                let c = &mut self.clauses[ci as usize];
                if c[0] == falsified {
                    c.swap(0, 1);
                }
                let first = c[0];
                if self.lit_value(first) != 1 {
                    let c = &self.clauses[ci as usize];
                    if let Some(k) = (2..c.len()).find(|&k| self.lit_value(c[k]) != -1) {
                        let c = &mut self.clauses[ci as usize];
                        c.swap(1, k);
                        let w = c[1];
                        self.watches[w as usize].push(ci);
                        continue;
                    }
                    if self.lit_value(first) == -1 {
                        conflict = Some(self.clauses[ci as usize].clone());
                    } else {
                        self.assign(first, ci);
                    }
                }
                watching[kept] = ci;
                kept += 1;
                if conflict.is_some() {
                    watching.copy_within(read.., kept);
                    kept += watching.len() - read;
                    break;
                }
            }
            watching.truncate(kept);
            self.watches[falsified as usize] = watching;
            if conflict.is_some() {
                return conflict;
            }
        }
        None
    }

    /// Adds the edge `from -> to` of weight `w` (set by `lit`), repairing
    /// the potential; a negative cycle through it: the clause of its
    /// literals' negations (level 0's left out), the edge not added.
    fn add_edge(&mut self, (from, to, w): (u32, u32, i128), lit: Lit) -> Option<Vec<Lit>> {
        let (u, v) = (from as usize, to as usize);
        self.out[u].push((to, w, lit));
        if self.pi[u] + w >= self.pi[v] {
            return None;
        }
        let mut queue = std::mem::take(&mut self.queue);
        let mut touched = std::mem::take(&mut self.touched);
        self.gamma[v] = self.pi[u] + w - self.pi[v];
        self.pred[v] = (from, lit);
        touched.push(v);
        queue.push((-self.gamma[v], v as u32));
        let mut moved = std::mem::take(&mut self.moved);
        let mut cycle = None;
        while let Some((g, s)) = queue.pop() {
            let s = s as usize;
            self.left = self.left.saturating_sub(1);
            if self.settled[s] || -g != self.gamma[s] {
                continue;
            }
            if s == u {
                cycle = Some(self.cycle(u));
                break;
            }
            self.settled[s] = true;
            moved.push((s, self.pi[s]));
            self.pi[s] += self.gamma[s];
            for i in 0..self.out[s].len() {
                let (t, wt, l) = self.out[s][i];
                let t = t as usize;
                if self.settled[t] {
                    continue;
                }
                let g = self.pi[s] + wt - self.pi[t];
                if g < self.gamma[t] {
                    if self.gamma[t] == 0 {
                        touched.push(t);
                    }
                    self.gamma[t] = g;
                    self.pred[t] = (s as u32, l);
                    queue.push((-g, t as u32));
                }
            }
            self.left = self.left.saturating_sub(self.out[s].len() as u64);
        }
        if cycle.is_some() {
            for &(s, old) in &moved {
                self.pi[s] = old;
            }
            self.out[u].pop();
        }
        moved.clear();
        self.moved = moved;
        for &t in &touched {
            self.gamma[t] = 0;
            self.settled[t] = false;
        }
        touched.clear();
        queue.clear();
        self.touched = touched;
        self.queue = queue;
        cycle
    }

    /// The clause of a negative cycle through `u`: back from `u` along the
    /// edges that lowered each node, to the new edge; each edge's literal
    /// negated (level 0's left out).
    fn cycle(&self, u: usize) -> Vec<Lit> {
        let mut clause = Vec::new();
        let mut at = u;
        loop {
            let (prev, l) = self.pred[at];
            if self.level[var(l)] > 0 {
                clause.push(l ^ 1);
            }
            at = prev as usize;
            if at == u {
                return clause;
            }
        }
    }

    /// The roots that imply `!root` (MiniSat's final analysis): the
    /// decisions (all of them roots) that the reasons lead back to.
    fn refuted_by(&mut self, root: Lit) {
        self.core = vec![root];
        self.seen[var(root)] = true;
        let start = self.levels.first().copied().unwrap_or(self.trail.len());
        for i in (start..self.trail.len()).rev() {
            let v = var(self.trail[i]);
            if !self.seen[v] {
                continue;
            }
            self.seen[v] = false;
            match self.reason[v] {
                NONE => self.core.push(self.trail[i]),
                r => {
                    for k in 0..self.clauses[r as usize].len() {
                        let u = var(self.clauses[r as usize][k]);
                        if u != v && self.level[u] > 0 {
                            self.seen[u] = true;
                        }
                    }
                }
            }
        }
        self.seen[var(root)] = false;
    }

    fn bump(&mut self, v: usize) {
        self.activity[v] += self.inc;
        if self.place[v] != NONE {
            self.heap_up(self.place[v] as usize);
        }
    }

    fn heap_insert(&mut self, v: usize) {
        if self.place[v] == NONE {
            self.heap.push(v as u32);
            self.heap_up(self.heap.len() - 1);
        }
    }

    fn heap_pop(&mut self) -> Option<usize> {
        let top = *self.heap.first()? as usize;
        let last = self.heap.pop().expect("not empty");
        self.place[top] = NONE;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.heap_down(0);
        }
        Some(top)
    }

    fn heap_up(&mut self, mut i: usize) {
        let v = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.activity[self.heap[parent] as usize] >= self.activity[v as usize] {
                break;
            }
            self.heap[i] = self.heap[parent];
            self.place[self.heap[i] as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = v;
        self.place[v as usize] = i as u32;
    }

    fn heap_down(&mut self, mut i: usize) {
        let v = self.heap[i];
        let n = self.heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child =
                match right < n && self.activity[self.heap[right] as usize] > self.activity[self.heap[left] as usize] {
                    true => right,
                    false => left,
                };
            if self.activity[self.heap[child] as usize] <= self.activity[v as usize] {
                break;
            }
            self.heap[i] = self.heap[child];
            self.place[self.heap[i] as usize] = i as u32;
            i = child;
        }
        self.heap[i] = v;
        self.place[v as usize] = i as u32;
    }

    /// The first-UIP clause learned from `conflict`, and the level to go
    /// back to.
    fn analyze(&mut self, conflict: Vec<Lit>) -> (Vec<Lit>, usize) {
        let current = self.levels.len() as u32;
        let mut learnt: Vec<Lit> = vec![TRUE];
        let mut open = 0usize;
        let mut clause = conflict;
        let mut at = self.trail.len();
        let mut implied: Option<usize> = None;
        loop {
            for &q in &clause {
                let v = var(q);
                if Some(v) == implied || self.seen[v] || self.level[v] == 0 {
                    continue;
                }
                self.seen[v] = true;
                self.bump(v);
                if self.level[v] == current {
                    open += 1;
                } else {
                    learnt.push(q);
                }
            }
            let p = loop {
                at -= 1;
                if self.seen[var(self.trail[at])] {
                    break self.trail[at];
                }
            };
            let v = var(p);
            self.seen[v] = false;
            open -= 1;
            if open == 0 {
                learnt[0] = p ^ 1;
                break;
            }
            implied = Some(v);
            clause.clear();
            clause.extend_from_slice(&self.clauses[self.reason[v] as usize]);
        }
        for &q in &learnt[1..] {
            self.seen[var(q)] = false;
        }
        if self.inc > 1e100 {
            self.activity.iter_mut().for_each(|a| *a *= 1e-100);
            self.inc *= 1e-100;
        }
        // The literal of the highest level after the first is watched.
        let mut back = 0;
        if learnt.len() > 1 {
            let top = (1..learnt.len())
                .max_by_key(|&i| self.level[var(learnt[i])])
                .expect("two literals");
            learnt.swap(1, top);
            back = self.level[var(learnt[1])] as usize;
        }
        (learnt, back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SatResult, Solver};

    fn app(s: &mut TermStore, op: Op, args: &[TermId]) -> TermId {
        s.app(op, args).unwrap()
    }

    #[test]
    fn a_disjunction_of_orderings_with_a_merged_value_is_decided() {
        let mut s = TermStore::new();
        let x: Vec<TermId> = (0..4).map(|i| s.symbol_term(&format!("x{i}"), Sort::Bv(32))).collect();
        let zero = s.constant(Value::bv(32, 0));
        // (x0 < x1 < x2 or x2 < x1 < x0), x1 > 0, x3 == ite(x0 < x2, x0, x2)
        let a = app(&mut s, Op::Lt, &[x[0], x[1]]);
        let b = app(&mut s, Op::Lt, &[x[1], x[2]]);
        let up = app(&mut s, Op::And, &[a, b]);
        let c = app(&mut s, Op::Lt, &[x[2], x[1]]);
        let d = app(&mut s, Op::Lt, &[x[1], x[0]]);
        let down = app(&mut s, Op::And, &[c, d]);
        let either = app(&mut s, Op::Or, &[up, down]);
        let pos = app(&mut s, Op::Gt, &[x[1], zero]);
        let lt = app(&mut s, Op::Lt, &[x[0], x[2]]);
        let min = app(&mut s, Op::Ite, &[lt, x[0], x[2]]);
        let eq = app(&mut s, Op::Eq, &[x[3], min]);
        // The least of x0 and x2 is below x1 on both orderings: x3 > x1
        // is unsat, and x1 > 0 is not in the core.
        let above = app(&mut s, Op::Gt, &[x[3], x[1]]);
        let set = vec![either, pos, eq, above];
        let mut z3 = crate::Z3Solver::new(Some(5000));
        match decide(&s, &set) {
            (Found::Unsat(core), false) => {
                assert_eq!(core, vec![either, eq, above]);
                assert_eq!(z3.check(&s, &core), SatResult::Unsat);
            }
            other => panic!("expected unsat, got {other:?}"),
        }
        let below = app(&mut s, Op::Lt, &[x[3], x[1]]);
        let set = vec![either, pos, eq, below];
        match decide(&s, &set) {
            (Found::Sat(m), false) => assert!(s.satisfies(&set, &m), "{m:?}"),
            other => panic!("expected sat, got {other:?}"),
        }
    }

    #[test]
    fn restarts_follow_the_luby_sequence() {
        let seq: Vec<u64> = (0..15).map(luby).collect();
        assert_eq!(seq, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }

    #[test]
    fn each_symbol_stays_within_its_width() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(8));
        let y = s.symbol_term("y", Sort::Bv(8));
        let max = s.constant(Value::bv(8, 0x7f));
        let umax = s.constant(Value::bv(8, 0xff));
        for (op, k) in [(Op::Gt, max), (Op::UGt, umax)] {
            let above = app(&mut s, op, &[x, k]);
            assert_eq!(decide(&s, &[above]).0, Found::Unsat(vec![above]));
        }
        // Unsigned, nothing is below 0.
        let lt = app(&mut s, Op::ULt, &[x, y]);
        let zero = s.constant(Value::bv(8, 0));
        let y0 = app(&mut s, Op::Eq, &[y, zero]);
        assert!(matches!(decide(&s, &[lt, y0]).0, Found::Unsat(_)));
        // A zero-extended byte is at most 255.
        let w = s.symbol_term("w", Sort::Bv(16));
        let z = app(&mut s, Op::ZExt(16), &[x]);
        let le = app(&mut s, Op::Le, &[w, z]);
        let big = s.constant(Value::bv(16, 300));
        let over = app(&mut s, Op::Gt, &[w, big]);
        assert!(matches!(decide(&s, &[le, over]).0, Found::Unsat(_)));
        // x read signed and (through the extension) unsigned: no claim.
        let gt = app(&mut s, Op::Gt, &[x, y]);
        assert_eq!(decide(&s, &[gt, le, over]), (Found::Nothing, false));
    }

    #[test]
    fn a_question_past_the_bound_on_terms_is_left_alone() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let y = s.symbol_term("y", Sort::Bv(32));
        let mut t = x;
        for i in 0..MAX_TERMS as u64 / 2 {
            let k = s.constant(Value::bv(32, i));
            let c = app(&mut s, Op::Lt, &[x, k]);
            t = app(&mut s, Op::Ite, &[c, t, y]);
        }
        let lt = app(&mut s, Op::Lt, &[t, y]);
        assert!(s.postorder(&[lt]).len() > MAX_TERMS);
        assert_eq!(decide(&s, &[lt]), (Found::Nothing, false));
    }

    /// A formula nested just within the bound is encoded on a test
    /// thread's stack (2 MB, unoptimised); one past it is left alone.
    #[test]
    fn deep_formulas_fit_the_stack() {
        let mut s = TermStore::new();
        let x: Vec<TermId> = (0..8).map(|i| s.symbol_term(&format!("x{i}"), Sort::Bv(32))).collect();
        let mut f = app(&mut s, Op::Lt, &[x[0], x[1]]);
        let mut at_bound = f;
        for i in 0..MAX_DEPTH {
            let c = app(&mut s, Op::Lt, &[x[i % 8], x[(i + 3) % 8]]);
            f = app(&mut s, [Op::And, Op::Or][i % 2], &[f, c]);
            if i + 4 == MAX_DEPTH {
                at_bound = f;
            }
        }
        assert!(!matches!(decide(&s, &[at_bound]).0, Found::Nothing));
        assert_eq!(decide(&s, &[f]), (Found::Nothing, false));
    }

    #[test]
    fn a_search_past_its_budget_says_so() {
        let mut s = TermStore::new();
        let x: Vec<TermId> = (0..6).map(|i| s.symbol_term(&format!("x{i}"), Sort::Bv(32))).collect();
        let mut set = Vec::new();
        for i in 0..6 {
            let lt = app(&mut s, Op::Lt, &[x[i], x[(i + 1) % 6]]);
            let gt = app(&mut s, Op::Gt, &[x[i], x[(i + 2) % 6]]);
            set.push(app(&mut s, Op::Or, &[lt, gt]));
        }
        assert_eq!(decide_within(&s, &set, 1), (Found::Nothing, true));
        assert!(!matches!(decide(&s, &set).0, Found::Nothing));
    }

    /// Random sets of formulas over comparisons of five symbols, four
    /// constants and `ite`s of them, signed, unsigned and mixed, decided
    /// here and by Z3: every model satisfies the set, every core is unsat
    /// to Z3, and a set is only left undecided when it reads a symbol
    /// both ways.
    #[test]
    fn random_formulas_agree_with_z3() {
        use rand::Rng;
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut z3 = crate::Z3Solver::new(Some(5000));
        let mut counts = (0, 0, 0);
        // One store: the solver keeps its translations of the store's terms.
        let mut s = TermStore::new();
        for i in 0..600 {
            let width = [3u8, 8, 32][i % 3];
            let mut values: Vec<TermId> = (0..5)
                .map(|k| s.symbol_term(&format!("k{k}_{width}"), Sort::Bv(width)))
                .collect();
            for k in [0u64, 1, 3, u64::MAX] {
                values.push(s.constant(Value::bv(width, k)));
            }
            let ops: &[Op] = match i % 4 {
                0 | 1 => &[Op::Lt, Op::Le, Op::Gt, Op::Eq, Op::Ne],
                2 => &[Op::ULt, Op::ULe, Op::UGe, Op::Eq, Op::Ne],
                _ => &[Op::Lt, Op::ULt, Op::Eq],
            };
            let mut atoms: Vec<TermId> = Vec::new();
            for _ in 0..10 {
                let (a, b) = (
                    values[rng.gen_range(0..values.len())],
                    values[rng.gen_range(0..values.len())],
                );
                let t = app(&mut s, ops[rng.gen_range(0..ops.len())], &[a, b]);
                atoms.push(t);
                if rng.gen_bool(0.3) {
                    let c = atoms[rng.gen_range(0..atoms.len())];
                    values.push(app(&mut s, Op::Ite, &[c, a, b]));
                }
            }
            let mut set = Vec::new();
            for _ in 0..rng.gen_range(1..5) {
                let mut f = atoms[rng.gen_range(0..atoms.len())];
                for _ in 0..rng.gen_range(0..4) {
                    let g = atoms[rng.gen_range(0..atoms.len())];
                    f = app(&mut s, [Op::And, Op::Or, Op::Xor, Op::Eq][rng.gen_range(0..4)], &[f, g]);
                    if rng.gen_bool(0.25) {
                        f = app(&mut s, Op::Not, &[f]);
                    }
                }
                set.push(f);
            }
            set.sort_unstable();
            set.dedup();
            let (found, gave_up) = decide(&s, &set);
            assert!(!gave_up, "{set:?}");
            if found == Found::Nothing {
                assert_eq!(i % 4, 3, "{set:?} left undecided");
            }
            crate::enumerate::agrees_with_z3(&s, &set, found, &mut z3, &mut counts);
        }
        assert!(counts.0 > 100 && counts.1 > 100, "{counts:?}");
    }
}
