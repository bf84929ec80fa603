//! Questions refuted by their own unit literals.
//!
//! A merged state's path condition keeps each side's constraints as an
//! `ite` or an `or` over the conditions the sides split on, and a question
//! about one side adds that side's condition as a literal: `x <= 0` with
//! `ite(x <= 0, false, x < 1000)` (examples/c/svcomp.c under ssm, the only
//! question of the run that went to Z3: 20-50 ms, most of it Z3's start,
//! and 39 MB against dse's 15). The literals' truth values, carried through
//! the other constraints' Boolean structure (`and`, `or`, `not`, `ite`),
//! make one of them false: unsat, the literals read and that constraint
//! the core. Nothing else is decided here: a question this does not
//! refute goes on to the other procedures.

use braid_term::{Node, Op, Sort, TermId, TermStore, Value};
use rustc_hash::FxHashMap;

/// The most nodes one refutation looks at (a merged path condition is a
/// DAG of shared `ite`s; its walk is memoised and bounded).
const MAX_NODES: usize = 1 << 14;

/// A core of `set` when its unit literals make another of its
/// constraints false ([`self`]), in `set`'s order.
pub fn refutation(store: &TermStore, set: &[TermId]) -> Option<Vec<TermId>> {
    // Each atom a literal sets, with its value and the constraint that
    // sets it. A conjunction's parts are literals too.
    let mut units: FxHashMap<Key, (bool, usize)> = FxHashMap::default();
    for (i, &c) in set.iter().enumerate() {
        let mut parts = vec![c];
        while let Some(p) = parts.pop() {
            match store.node(p) {
                Node::App(Op::And, args) => parts.extend(args.iter().copied()),
                _ => {
                    let (atom, value) = literal(store, p);
                    if matches!(atom, Key::Atom(a) if connective(store, a)) {
                        continue;
                    }
                    match units.get(&atom) {
                        Some(&(v, j)) if v != value => return Some(core(set, &[i, j])),
                        Some(_) => {}
                        None => {
                            units.insert(atom, (value, i));
                        }
                    }
                }
            }
        }
    }
    if units.is_empty() {
        return None;
    }
    let mut walk = Walk {
        store,
        units: &units,
        memo: FxHashMap::default(),
        read: Vec::new(),
        left: MAX_NODES,
    };
    for (i, &c) in set.iter().enumerate() {
        walk.read.clear();
        if walk.value(c) == Some(false) {
            let mut at: Vec<usize> = walk.read.clone();
            at.push(i);
            return Some(core(set, &at));
        }
        if walk.left == 0 {
            return None;
        }
    }
    None
}

/// An atom, one key for a comparison and its negation (the store negates
/// `x < k` into `x >= k`, not `not (x < k)`) and for its sides swapped.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// `a < b` (signed or not) or `a == b`.
    Cmp(Op, TermId, TermId),
    Atom(TermId),
}

/// `t` as an atom and the value a constraint `t` gives it: `not a` sets
/// `a` false, `x >= k` sets `x < k` false.
fn literal(store: &TermStore, t: TermId) -> (Key, bool) {
    match store.node(t) {
        Node::App(Op::Not, args) if store.sort(t) == Sort::Bool => {
            let (a, v) = literal(store, args[0]);
            (a, !v)
        }
        // Over floats `x >= y` is not `not (x < y)` (NaN): each is its own
        // atom there.
        Node::App(op, args) if args.len() == 2 && !matches!(store.sort(args[0]), Sort::F32 | Sort::F64) => {
            let (a, b) = (args[0], args[1]);
            match op {
                Op::Lt => (Key::Cmp(Op::Lt, a, b), true),
                Op::Ge => (Key::Cmp(Op::Lt, a, b), false),
                Op::Gt => (Key::Cmp(Op::Lt, b, a), true),
                Op::Le => (Key::Cmp(Op::Lt, b, a), false),
                Op::ULt => (Key::Cmp(Op::ULt, a, b), true),
                Op::UGe => (Key::Cmp(Op::ULt, a, b), false),
                Op::UGt => (Key::Cmp(Op::ULt, b, a), true),
                Op::ULe => (Key::Cmp(Op::ULt, b, a), false),
                Op::Eq => (Key::Cmp(Op::Eq, a.min(b), a.max(b)), true),
                Op::Ne => (Key::Cmp(Op::Eq, a.min(b), a.max(b)), false),
                _ => (Key::Atom(t), true),
            }
        }
        _ => (Key::Atom(t), true),
    }
}

/// Whether `t` is a Boolean connective (not an atom) or a constant.
fn connective(store: &TermStore, t: TermId) -> bool {
    matches!(store.node(t), Node::Const(_))
        || matches!(
            store.node(t),
            Node::App(Op::And | Op::Or | Op::Not | Op::Ite | Op::Xor, _)
        ) && store.sort(t) == Sort::Bool
}

/// The constraints of `set` at `at`, once each, in `set`'s order.
fn core(set: &[TermId], at: &[usize]) -> Vec<TermId> {
    let mut at = at.to_vec();
    at.sort_unstable();
    at.dedup();
    at.into_iter().map(|i| set[i]).collect()
}

/// A three-valued walk of constraints under the units.
struct Walk<'a> {
    store: &'a TermStore,
    units: &'a FxHashMap<Key, (bool, usize)>,
    /// Per node walked: its value, if the units decide it, and the units
    /// it read (indices of constraints).
    memo: FxHashMap<TermId, (Option<bool>, Vec<usize>)>,
    /// The units read by the walk of the current constraint.
    read: Vec<usize>,
    left: usize,
}

impl Walk<'_> {
    /// `t`'s value under the units, if they decide it; the units it read
    /// are added to `read`.
    fn value(&mut self, t: TermId) -> Option<bool> {
        if let Some((v, read)) = self.memo.get(&t) {
            self.read.extend(read.iter().copied());
            return *v;
        }
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let outer = std::mem::take(&mut self.read);
        let v = self.decide(t);
        let read = std::mem::replace(&mut self.read, outer);
        self.read.extend(read.iter().copied());
        self.memo.insert(t, (v, read));
        v
    }

    fn decide(&mut self, t: TermId) -> Option<bool> {
        let store = self.store;
        let (key, polarity) = literal(store, t);
        if let Some(&(v, i)) = self.units.get(&key) {
            self.read.push(i);
            return Some(v == polarity);
        }
        match store.node(t) {
            Node::Const(Value::Bool(b)) => Some(*b),
            Node::App(Op::Not, args) if store.sort(t) == Sort::Bool => self.value(args[0]).map(|v| !v),
            Node::App(op @ (Op::And | Op::Or), args) if store.sort(t) == Sort::Bool => {
                // The absorbing value of the connective decides it alone;
                // only the units of the part that has it are read then.
                let absorbing = *op == Op::Or;
                let mut all = true;
                let outer = std::mem::take(&mut self.read);
                let mut reads = Vec::new();
                for &a in args.iter() {
                    let mark = self.read.len();
                    match self.value(a) {
                        Some(v) if v == absorbing => {
                            let part = self.read.split_off(mark);
                            self.read = outer;
                            self.read.extend(part);
                            return Some(absorbing);
                        }
                        Some(_) => reads.extend(self.read.drain(mark..)),
                        None => {
                            self.read.truncate(mark);
                            all = false;
                        }
                    }
                }
                self.read = outer;
                if all {
                    self.read.extend(reads);
                    Some(!absorbing)
                } else {
                    None
                }
            }
            Node::App(Op::Ite, args) if store.sort(t) == Sort::Bool => {
                let outer = std::mem::take(&mut self.read);
                let found = match self.value(args[0]) {
                    Some(true) => self.value(args[1]),
                    Some(false) => self.value(args[2]),
                    None => {
                        self.read.clear();
                        match (self.value(args[1]), self.value(args[2])) {
                            (Some(a), Some(b)) if a == b => Some(a),
                            _ => None,
                        }
                    }
                };
                let read = std::mem::replace(&mut self.read, outer);
                if found.is_some() {
                    self.read.extend(read);
                }
                found
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_literal_makes_a_merged_constraint_false() {
        let mut s = TermStore::new();
        let x = s.symbol_term("x", Sort::Bv(32));
        let c = |s: &mut TermStore, k: u64| s.constant(Value::bv(32, k));
        let (zero, thousand, k) = (c(&mut s, 0), c(&mut s, 1000), c(&mut s, 2013));
        let le0 = s.app(Op::Le, &[x, zero]).unwrap();
        let below = s.app(Op::Lt, &[x, thousand]).unwrap();
        let f = s.bool(false);
        let merged = s.app(Op::Ite, &[le0, f, below]).unwrap();
        let eq = s.app(Op::Eq, &[x, k]).unwrap();
        // svcomp.c's question under ssm: x <= 0, ite(x <= 0, false, x < 1000), x == 2013.
        let mut set = vec![le0, merged, eq];
        set.sort_unstable();
        let mut core_expected = vec![le0, merged];
        core_expected.sort_unstable();
        assert_eq!(refutation(&s, &set), Some(core_expected));
        // Without the literal nothing is decided.
        assert_eq!(refutation(&s, &[merged, eq]), None);
        // A literal and its negation; a conjunction's parts are literals.
        // (The store negates a comparison into the opposite comparison, a
        // Boolean symbol with `not`.)
        let p = s.symbol_term("p", Sort::Bool);
        let not_p = s.not(p);
        assert!(refutation(&s, &[p, not_p]).is_some());
        let both = s.and(not_p, eq);
        assert!(refutation(&s, &[both, p]).is_some());
        // An `or` one of whose sides is undecided is not false.
        let either = s.or(p, below);
        assert_eq!(refutation(&s, &[not_p, either]), None);
        let neither = s.not(below);
        let mut set = vec![not_p, neither, either];
        set.sort_unstable();
        assert_eq!(refutation(&s, &set).map(|c| c.len()), Some(3));
    }

    /// Over floats a comparison and its opposite are not each other's
    /// negation (both are false with a NaN): nothing is refuted.
    #[test]
    fn float_comparisons_are_their_own_atoms() {
        let mut s = TermStore::new();
        let (x, y) = (s.symbol_term("x", Sort::F64), s.symbol_term("y", Sort::F64));
        let lt = s.app(Op::Lt, &[x, y]).unwrap();
        let ge = s.app(Op::Ge, &[x, y]).unwrap();
        let not_lt = s.app(Op::Not, &[lt]).unwrap();
        assert_eq!(refutation(&s, &[not_lt, ge]), None);
        assert!(refutation(&s, &[lt, not_lt]).is_some());
    }

    /// Random Boolean structures over a few atoms: every refutation's core
    /// is unsat by brute force over the atoms' values.
    #[test]
    fn every_core_is_unsat_over_the_atoms() {
        use rand::Rng;
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut s = TermStore::new();
        let mut atoms: Vec<TermId> = (0..3).map(|i| s.symbol_term(&format!("p{i}"), Sort::Bool)).collect();
        // Comparisons of two 2-bit symbols, every operator both ways round,
        // so that a comparison meets its negation and its mirror image.
        let (x, y) = (s.symbol_term("x", Sort::Bv(2)), s.symbol_term("y", Sort::Bv(2)));
        for op in Op::COMPARISONS {
            for (a, b) in [(x, y), (y, x)] {
                let t = s.app(op, &[a, b]).unwrap();
                if !atoms.contains(&t) {
                    atoms.push(t);
                }
            }
        }
        let mut refuted = 0;
        for _ in 0..2000 {
            fn formula(s: &mut TermStore, rng: &mut rand::rngs::SmallRng, atoms: &[TermId], depth: u32) -> TermId {
                let a = atoms[rng.gen_range(0..atoms.len())];
                if depth == 0 || rng.gen_bool(0.3) {
                    return if rng.gen_bool(0.5) { a } else { s.not(a) };
                }
                let (x, y) = (formula(s, rng, atoms, depth - 1), formula(s, rng, atoms, depth - 1));
                match rng.gen_range(0..3) {
                    0 => s.and(x, y),
                    1 => s.or(x, y),
                    _ => {
                        let c = formula(s, rng, atoms, depth - 1);
                        s.app(Op::Ite, &[c, x, y]).unwrap()
                    }
                }
            }
            let n = rng.gen_range(1..5);
            let mut set: Vec<TermId> = (0..n).map(|_| formula(&mut s, &mut rng, &atoms, 3)).collect();
            set.sort_unstable();
            set.dedup();
            let Some(core) = refutation(&s, &set) else {
                continue;
            };
            refuted += 1;
            assert!(core.iter().all(|c| set.contains(c)));
            let syms: Vec<_> = atoms[..3].iter().map(|a| *s.symbols(*a).first().unwrap()).collect();
            let (sx, sy) = (*s.symbols(x).first().unwrap(), *s.symbols(y).first().unwrap());
            for bits in 0..128u64 {
                let mut model: braid_term::Model = syms
                    .iter()
                    .enumerate()
                    .map(|(i, sy)| (*sy, Value::Bool(bits >> i & 1 == 1)))
                    .collect();
                model.insert(sx, Value::bv(2, bits >> 3 & 3));
                model.insert(sy, Value::bv(2, bits >> 5 & 3));
                assert!(
                    !s.satisfies(&core, &model),
                    "core {core:?} of {set:?} holds under {model:?}"
                );
            }
        }
        assert!(refuted > 100, "{refuted} refuted");
    }
}
