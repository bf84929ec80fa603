//! A backend made when it is first needed.
//!
//! Making Z3's two contexts touches about 30 MB, which took most of a small
//! program's run (bench/multise's Array Index under multise: 90 % of the
//! page faults, in `Z3_mk_context_rc`), and many runs never call Z3: the
//! caches, the difference bounds, the simplex and trying every value answer
//! their questions. [`Lazy`] keeps the settings it is given and hands them,
//! in order, to the backend it makes at the first call that needs one.

use crate::{SatResult, Solver};
use braid_budget::Budget;
use braid_term::{TermId, TermStore};
use std::time::Instant;

/// A setting given before the backend was made.
enum Setting {
    Cores(bool),
    Incremental(bool),
    Deadline(Option<Instant>),
    Timeout(Option<u32>),
    Budget(Budget),
}

pub struct Lazy {
    make: Option<Box<dyn FnOnce() -> Box<dyn Solver>>>,
    made: Option<Box<dyn Solver>>,
    settings: Vec<Setting>,
}

impl Lazy {
    pub fn new(make: impl FnOnce() -> Box<dyn Solver> + 'static) -> Lazy {
        Lazy {
            make: Some(Box::new(make)),
            made: None,
            settings: Vec::new(),
        }
    }

    /// Whether the backend has been made.
    pub fn is_made(&self) -> bool {
        self.made.is_some()
    }

    fn backend(&mut self) -> &mut dyn Solver {
        if self.made.is_none() {
            let make = self.make.take().expect("made once");
            let mut b = make();
            for s in self.settings.drain(..) {
                match s {
                    Setting::Cores(on) => b.set_cores(on),
                    Setting::Incremental(on) => b.set_incremental(on),
                    Setting::Deadline(d) => b.set_deadline(d),
                    Setting::Timeout(ms) => b.set_timeout(ms),
                    Setting::Budget(budget) => b.set_budget(&budget),
                }
            }
            self.made = Some(b);
        }
        self.made.as_deref_mut().expect("made above")
    }

    /// Hands `s` to the backend, or keeps it for the one to be made.
    fn set(&mut self, s: Setting, apply: impl FnOnce(&mut dyn Solver)) {
        match self.made.as_deref_mut() {
            Some(b) => apply(b),
            None => {
                // The last of each kind is what applies (a race sets a
                // deadline at every turn).
                let kind = std::mem::discriminant(&s);
                self.settings.retain(|t| std::mem::discriminant(t) != kind);
                self.settings.push(s);
            }
        }
    }
}

impl Solver for Lazy {
    fn check(&mut self, store: &TermStore, constraints: &[TermId]) -> SatResult {
        self.backend().check(store, constraints)
    }

    fn unsat_core(&mut self) -> Option<Vec<TermId>> {
        self.made.as_deref_mut()?.unsat_core()
    }

    fn set_cores(&mut self, on: bool) {
        self.set(Setting::Cores(on), |b| b.set_cores(on));
    }

    fn reset(&mut self) {
        if let Some(b) = self.made.as_deref_mut() {
            b.reset();
        }
    }

    fn smtlib(&mut self, store: &TermStore, constraints: &[TermId]) -> Option<String> {
        self.backend().smtlib(store, constraints)
    }

    fn helper_answered(&self) -> bool {
        self.made.as_deref().is_some_and(|b| b.helper_answered())
    }

    fn set_incremental(&mut self, on: bool) {
        self.set(Setting::Incremental(on), |b| b.set_incremental(on));
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.set(Setting::Deadline(deadline), |b| b.set_deadline(deadline));
    }

    fn set_timeout(&mut self, ms: Option<u32>) {
        self.set(Setting::Timeout(ms), |b| b.set_timeout(ms));
    }

    fn set_budget(&mut self, budget: &Budget) {
        let kept = budget.clone();
        self.set(Setting::Budget(kept), |b| b.set_budget(budget));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::{Op, Sort, Value};
    use std::cell::Cell;
    use std::rc::Rc;

    /// A backend that counts the timeouts it was given, keeps the last, and
    /// decides nothing.
    struct Recording(Rc<Cell<(u32, Option<u32>)>>);

    impl Solver for Recording {
        fn check(&mut self, _: &TermStore, _: &[TermId]) -> SatResult {
            SatResult::Unknown(String::new())
        }
        fn set_timeout(&mut self, ms: Option<u32>) {
            let (n, _) = self.0.get();
            self.0.set((n + 1, ms));
        }
    }

    #[test]
    fn the_backend_is_made_at_the_first_check_with_the_settings_given_before() {
        let seen = Rc::new(Cell::new((0, None)));
        let made = Rc::new(Cell::new(false));
        let (s, m) = (seen.clone(), made.clone());
        let mut lazy = Lazy::new(move || {
            m.set(true);
            Box::new(Recording(s))
        });
        lazy.set_timeout(Some(5));
        lazy.set_timeout(Some(7));
        assert!(!made.get() && !lazy.is_made());
        assert_eq!(lazy.unsat_core(), None);
        let mut store = TermStore::new();
        let x = store.symbol_term("x", Sort::Bv(8));
        let one = store.constant(Value::bv(8, 1));
        let c = store.app(Op::Eq, &[x, one]).expect("same sorts");
        let _ = lazy.check(&store, &[c]);
        assert!(made.get() && lazy.is_made());
        // The last setting of a kind only (a race sets a deadline at every
        // turn, thousands of them before a first Z3 call).
        assert_eq!(seen.get(), (1, Some(7)));
        lazy.set_timeout(None);
        assert_eq!(seen.get(), (2, None));
    }
}
