//! Value summaries and the guarded update `⊎_φ` (seed 000 Figure 3, §3.2).

use braid_guard::{Guard, Guards};
use braid_term::TermId;
use smallvec::SmallVec;
use std::collections::HashMap;

/// A value summary: a set of guarded values `{(φ_i, v_i)}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueSummary(pub SmallVec<[(Guard, TermId); 2]>);

impl ValueSummary {
    pub fn single(g: Guard, v: TermId) -> ValueSummary {
        let mut s = ValueSummary::default();
        if !g.is_false() {
            s.0.push((g, v));
        }
        s
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &(Guard, TermId)> {
        self.0.iter()
    }

    /// Adds `(g, v)`: dropped if `g` is false; with `coalesce`, or-ed into an
    /// entry holding the same value (same term id) instead of added.
    pub fn push(&mut self, guards: &mut Guards, g: Guard, v: TermId, coalesce: bool) {
        if g.is_false() {
            return;
        }
        if coalesce {
            if let Some(e) = self.0.iter_mut().find(|(_, u)| *u == v) {
                e.0 = guards.or(e.0, g);
                return;
            }
        }
        self.0.push((g, v));
    }
}

/// Builds a summary entry by entry, as [`ValueSummary::push`] does, but
/// finds an entry holding the same value through an index once the summary
/// is long (a linear search per push made building a summary of thousands
/// of entries quadratic).
pub struct SummaryBuilder {
    out: ValueSummary,
    index: Option<HashMap<TermId, usize>>,
    coalesce: bool,
}

/// Entries searched linearly before the builder indexes them.
const LINEAR: usize = 16;

impl SummaryBuilder {
    pub fn new(coalesce: bool) -> SummaryBuilder {
        SummaryBuilder {
            out: ValueSummary::default(),
            index: None,
            coalesce,
        }
    }

    pub fn push(&mut self, guards: &mut Guards, g: Guard, v: TermId) {
        if !self.coalesce || self.index.is_none() && self.out.len() < LINEAR {
            self.out.push(guards, g, v, self.coalesce);
            return;
        }
        if g.is_false() {
            return;
        }
        let entries = &mut self.out.0;
        let index = self
            .index
            .get_or_insert_with(|| entries.iter().enumerate().map(|(i, &(_, u))| (u, i)).collect());
        match index.get(&v) {
            Some(&i) => entries[i].0 = guards.or(entries[i].0, g),
            None => {
                index.insert(v, entries.len());
                entries.push((g, v));
            }
        }
    }

    pub fn finish(self) -> ValueSummary {
        self.out
    }
}

/// `old ⊎_φ new`: behaves as `new` on paths where `φ` holds and as `old`
/// elsewhere (the GUARDED UPDATE rule).
pub fn guarded_update(
    guards: &mut Guards,
    old: &ValueSummary,
    phi: Guard,
    new: &ValueSummary,
    coalesce: bool,
) -> ValueSummary {
    // Under `true` the new value replaces the old (one entry: nothing to coalesce).
    if phi == Guard::TRUE && new.len() <= 1 {
        return new.clone();
    }
    let not_phi = guards.not(phi);
    let mut out = SummaryBuilder::new(coalesce);
    for &(g, v) in old.iter() {
        // Entries of other paths (disjoint from φ) are kept as they are.
        let kept = if guards.surely_disjoint(g, phi) {
            g
        } else {
            guards.and(g, not_phi)
        };
        out.push(guards, kept, v);
    }
    for &(g, v) in new.iter() {
        let set = guards.and(g, phi);
        out.push(guards, set, v);
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::{Op, Sort, TermStore, Value};

    #[test]
    fn guarded_update_coalesces_equal_values_and_drops_false_guards() {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let x = s.symbol_term("x0", Sort::Int);
        let zero = s.constant(Value::Int(0));
        let p = s.app(Op::Gt, &[x, zero]).unwrap();
        let phi = g.atom(&mut s, p);
        let (one, two) = (s.constant(Value::Int(1)), s.constant(Value::Int(2)));
        let old = ValueSummary::single(Guard::TRUE, one);
        let new = ValueSummary::single(Guard::TRUE, two);
        let upd = guarded_update(&mut g, &old, phi, &new, true);
        assert_eq!(upd.len(), 2);
        // Writing the old value back under ¬φ coalesces into one entry.
        let not_phi = g.not(phi);
        let back = guarded_update(&mut g, &upd, not_phi, &ValueSummary::single(Guard::TRUE, two), true);
        assert_eq!(back.0.as_slice(), &[(Guard::TRUE, two)]);
        // Without coalescing the two entries for `2` stay apart (DSE, §3.4).
        let apart = guarded_update(&mut g, &upd, not_phi, &ValueSummary::single(Guard::TRUE, two), false);
        assert_eq!(apart.len(), 2);
        // An update under `false` changes nothing; one under `true` replaces.
        assert_eq!(guarded_update(&mut g, &old, Guard::FALSE, &new, true), old);
        assert_eq!(guarded_update(&mut g, &old, Guard::TRUE, &new, true), new);
    }
}
