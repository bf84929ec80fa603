//! Dynamic variable reordering by sifting (Rudell, ICCAD'93), in place.
//!
//! No fixed order suits every program: parsers' multiplexer guards stay
//! small with a predicate next to the input it reads ([`VarOrder::Inputs`]),
//! while a program that reads its inputs in phases (sds: a split over every
//! byte, then a switch over every byte again) wants each phase's
//! predicates together (creation order: 578 000 nodes against 3.2 million).
//! Sifting moves one variable at a time through every level, by swaps of
//! adjacent levels, and leaves it where the BDD was smallest.
//!
//! A swap rewrites the nodes of the upper variable in place, so a guard's
//! id keeps its function: the guards the engine holds, the operation
//! caches and the guards' terms stay valid. Nodes no longer used are
//! freed (reference counts over the roots given, kept during the pass).
//!
//! [`VarOrder::Inputs`]: crate::VarOrder::Inputs

use super::{Guard, Guards, Node, Unique, TERMINAL};
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// A sift stops moving a variable in one direction once the BDD has grown
/// past this factor of the smallest size seen.
const MAX_GROWTH: f64 = 1.2;

/// A variable moves at most this many levels up or down.
const MAX_DISTANCE: usize = 24;

/// At most this many variables are sifted in a pass, the most used first.
const MAX_SIFTED: usize = 64;

/// The reordering's own state for one pass.
struct Pass {
    /// References to each node: from other live nodes and from the roots.
    refs: Vec<u32>,
    /// Per variable, its live nodes' `(lo, hi)` (the unique table of the
    /// pass; the manager's is rebuilt at the end).
    table: Vec<FxHashMap<(Guard, Guard), u32>>,
    /// Live non-terminal nodes.
    size: usize,
    /// Variables by level, top first.
    order: Vec<u32>,
    /// Nodes freed during the pass (their ids may now name other nodes).
    freed: Vec<u32>,
}

impl Guards {
    /// Reorders the variables by sifting, keeping every guard's id and
    /// function. `roots`: every guard the caller holds (as for
    /// [`Guards::collect`], which this runs first). Stops moving variables
    /// once `budget` has passed. Returns the live nodes before and after.
    pub fn reorder(&mut self, roots: impl Iterator<Item = Guard>, budget: Duration) -> (usize, usize) {
        let roots: Vec<Guard> = roots.collect();
        self.collect(roots.iter().copied());
        let start = Instant::now();
        let before = self.node_count() - 2;
        let mut pass = self.begin_pass(&roots);
        // The variables with the most nodes first.
        let mut vars: Vec<u32> = pass.order.clone();
        vars.sort_by_key(|v| std::cmp::Reverse(pass.table[*v as usize].len()));
        vars.truncate(MAX_SIFTED);
        for v in vars {
            if start.elapsed() >= budget || pass.table[v as usize].is_empty() {
                continue;
            }
            self.sift(&mut pass, v, start, budget);
        }
        self.end_pass(pass);
        self.time += start.elapsed();
        self.reorder_time += start.elapsed();
        (before, self.node_count() - 2)
    }

    fn begin_pass(&mut self, roots: &[Guard]) -> Pass {
        let mut refs = vec![0u32; self.nodes.len()];
        let mut table = vec![FxHashMap::default(); self.atoms.len()];
        let mut size = 0;
        for (i, n) in self.nodes.iter().enumerate().skip(2) {
            if n.var == TERMINAL {
                continue;
            }
            size += 1;
            refs[n.lo.0 as usize] += 1;
            refs[n.hi.0 as usize] += 1;
            table[n.var as usize].insert((n.lo, n.hi), i as u32);
        }
        for r in roots {
            refs[r.0 as usize] += 1;
        }
        let mut order: Vec<u32> = (0..self.atoms.len() as u32).collect();
        order.sort_by_key(|v| self.rank[*v as usize]);
        Pass {
            refs,
            table,
            size,
            order,
            freed: Vec::new(),
        }
    }

    /// The manager's unique table again, from the nodes alive; what the
    /// operation caches and the terms say of freed nodes goes (their ids
    /// may name other nodes now). The rest holds: ids keep their functions.
    fn end_pass(&mut self, pass: Pass) {
        let live = (2..self.nodes.len() as u32).filter(|&i| self.nodes[i as usize].var != TERMINAL);
        self.unique = Unique::rebuild(&self.nodes, live, pass.size);
        let mut dead = vec![false; self.nodes.len()];
        for id in pass.freed {
            dead[id as usize] = true;
            self.terms.remove(&Guard(id));
            self.choice_terms.remove(&Guard(id));
        }
        for cache in [&mut self.and_cache, &mut self.or_cache, &mut self.not_cache] {
            cache.forget(|g| dead[g.0 as usize]);
        }
    }

    /// Moves `v` down to the bottom, then up to the top, then to the level
    /// where the BDD was smallest.
    fn sift(&mut self, pass: &mut Pass, v: u32, start: Instant, budget: Duration) {
        let levels = pass.order.len();
        let mut at = pass
            .order
            .iter()
            .position(|x| *x == v)
            .expect("every variable has a level");
        let (mut best, mut best_at) = (pass.size, at);
        let limit = |best: usize| (best as f64 * MAX_GROWTH) as usize;
        let (top, bottom) = (at.saturating_sub(MAX_DISTANCE), (at + MAX_DISTANCE).min(levels - 1));
        while at < bottom && pass.size <= limit(best) && start.elapsed() < budget {
            self.swap(pass, at);
            at += 1;
            if pass.size < best {
                (best, best_at) = (pass.size, at);
            }
        }
        while at > top && (at > best_at || (pass.size <= limit(best) && start.elapsed() < budget)) {
            self.swap(pass, at - 1);
            at -= 1;
            if pass.size < best {
                (best, best_at) = (pass.size, at);
            }
        }
        while at < best_at {
            self.swap(pass, at);
            at += 1;
        }
    }

    /// Swaps the variables at levels `i` and `i + 1`. Each node of the
    /// upper variable `x` with a child on `y` becomes a node on `y` whose
    /// children are on `x` (the same function, the same id); the others
    /// stay as they are.
    fn swap(&mut self, pass: &mut Pass, i: usize) {
        let (x, y) = (pass.order[i], pass.order[i + 1]);
        let upper: Vec<((Guard, Guard), u32)> = pass.table[x as usize].iter().map(|(k, v)| (*k, *v)).collect();
        for ((f0, f1), f) in upper {
            if self.nodes[f0.0 as usize].var != y && self.nodes[f1.0 as usize].var != y {
                continue;
            }
            let cof = |g: &Guards, h: Guard| {
                let n = g.nodes[h.0 as usize];
                if n.var == y {
                    (n.lo, n.hi)
                } else {
                    (h, h)
                }
            };
            let ((f00, f01), (f10, f11)) = (cof(self, f0), cof(self, f1));
            let lo = self.sift_mk(pass, x, f00, f10);
            let hi = self.sift_mk(pass, x, f01, f11);
            pass.table[x as usize].remove(&(f0, f1));
            // The same function: its forced literals stay.
            let n = &mut self.nodes[f as usize];
            (n.var, n.lo, n.hi) = (y, lo, hi);
            pass.table[y as usize].insert((lo, hi), f);
            self.deref(pass, f0);
            self.deref(pass, f1);
        }
        pass.order.swap(i, i + 1);
        self.rank.swap(x as usize, y as usize);
    }

    /// The node `(var, lo, hi)` found or made during a pass, with one more
    /// reference (the caller's).
    fn sift_mk(&mut self, pass: &mut Pass, var: u32, lo: Guard, hi: Guard) -> Guard {
        if lo == hi {
            pass.refs[lo.0 as usize] += 1;
            return lo;
        }
        if let Some(&id) = pass.table[var as usize].get(&(lo, hi)) {
            pass.refs[id as usize] += 1;
            return Guard(id);
        }
        let id = self.new_node(var, lo, hi);
        match pass.refs.get_mut(id as usize) {
            Some(r) => *r = 1,
            None => pass.refs.push(1),
        }
        pass.refs[lo.0 as usize] += 1;
        pass.refs[hi.0 as usize] += 1;
        pass.table[var as usize].insert((lo, hi), id);
        pass.size += 1;
        Guard(id)
    }

    /// Drops a reference to `g`; a node left with none is freed, and its
    /// children lose one each.
    fn deref(&mut self, pass: &mut Pass, g: Guard) {
        let mut stack = vec![g];
        while let Some(g) = stack.pop() {
            let id = g.0 as usize;
            if id < 2 {
                continue;
            }
            pass.refs[id] -= 1;
            if pass.refs[id] > 0 {
                continue;
            }
            let n = self.nodes[id];
            pass.table[n.var as usize].remove(&(n.lo, n.hi));
            self.nodes[id] = Node::FREE;
            self.free.push(id as u32);
            pass.freed.push(id as u32);
            pass.size -= 1;
            stack.push(n.lo);
            stack.push(n.hi);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::{Model, Sort, SymId, TermStore, Value};

    /// A xorshift generator: `next(k)` is below `k`.
    fn rng(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |k| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % k
        }
    }

    /// A manager with `n` Boolean inputs, each one's guard.
    fn inputs(n: usize) -> (TermStore, Guards, Vec<Guard>) {
        let mut s = TermStore::new();
        let mut g = Guards::new();
        let vars = (0..n)
            .map(|i| {
                let b = s.symbol_term(&format!("b{i}"), Sort::Bool);
                g.atom(&mut s, b)
            })
            .collect();
        (s, g, vars)
    }

    /// `x`'s value under each assignment of the `n` inputs.
    fn table(g: &Guards, s: &TermStore, x: Guard, n: usize) -> Vec<Option<bool>> {
        (0..1u32 << n)
            .map(|bits| {
                let mut m = Model::default();
                for i in 0..n {
                    m.insert(SymId(i as u32), Value::Bool(bits >> i & 1 == 1));
                }
                g.eval(s, x, &m)
            })
            .collect()
    }

    /// A random `and`, `or` or `not` of guards in `made`.
    fn combine(g: &mut Guards, made: &[Guard], next: &mut impl FnMut(u64) -> u64) -> Guard {
        let (a, b) = (
            made[next(made.len() as u64) as usize],
            made[next(made.len() as u64) as usize],
        );
        match next(3) {
            0 => g.and(a, b),
            1 => g.or(a, b),
            _ => g.not(a),
        }
    }

    /// Random guards over 8 Boolean inputs keep their functions and ids
    /// through reordering, and guards made afterwards are canonical: the
    /// same function is the same id as one made before.
    #[test]
    fn reordering_keeps_every_guard_and_its_id() {
        let n = 8;
        let mut next = rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..20 {
            let (s, mut g, mut made) = inputs(n);
            for _ in 0..60 {
                let r = combine(&mut g, &made, &mut next);
                made.push(r);
            }
            let before: Vec<_> = made.iter().map(|x| table(&g, &s, *x, n)).collect();
            let (was, now) = g.reorder(made.iter().copied(), Duration::from_secs(10));
            assert!(now <= was, "round {round}: sifting ends no larger ({was} -> {now})");
            for (x, t) in made.iter().zip(&before) {
                assert_eq!(&table(&g, &s, *x, n), t, "round {round}: a guard's function changed");
            }
            // Made again after the reordering, each function is its old id.
            for _ in 0..40 {
                let (i, j) = (next(made.len() as u64) as usize, next(made.len() as u64) as usize);
                let (a, b) = (made[i], made[j]);
                let and = g.and(a, b);
                let want: Vec<_> = before[i]
                    .iter()
                    .zip(&before[j])
                    .map(|(p, q)| Some(p.unwrap() && q.unwrap()))
                    .collect();
                assert_eq!(table(&g, &s, and, n), want, "round {round}");
                if let Some(k) = before.iter().position(|t| *t == want) {
                    assert_eq!(and, made[k], "round {round}: the same function, another id");
                }
                let or = g.or(a, b);
                let (na, nb) = (g.not(a), g.not(b));
                let both = g.and(na, nb);
                assert_eq!(g.not(both), or, "round {round}: De Morgan");
            }
        }
    }

    /// Reorderings one after another, each keeping a random half of the
    /// guards (the rest are garbage): the kept ones keep their functions,
    /// and one function is still one id.
    #[test]
    fn repeated_reorders_with_some_roots_keep_functions() {
        let n = 7;
        let mut next = rng(0x2545_F491_4F6C_DD1D);
        for round in 0..200 {
            let (s, mut g, vars) = inputs(n);
            let mut held: Vec<(Guard, Vec<Option<bool>>)> = vars.iter().map(|v| (*v, table(&g, &s, *v, n))).collect();
            for _cycle in 0..5 {
                for _ in 0..30 {
                    let guards: Vec<Guard> = held.iter().map(|h| h.0).collect();
                    let r = combine(&mut g, &guards, &mut next);
                    held.push((r, table(&g, &s, r, n)));
                }
                let mut kept = Vec::new();
                for (k, h) in held.into_iter().enumerate() {
                    if k < n || next(2) == 0 {
                        kept.push(h);
                    }
                }
                held = kept;
                g.reorder(held.iter().map(|h| h.0), Duration::from_secs(10));
                for (x, t) in &held {
                    assert_eq!(&table(&g, &s, *x, n), t, "round {round}");
                    for (y, u) in &held {
                        assert_eq!(x == y, t == u, "round {round}: one function, one id");
                    }
                }
            }
        }
    }

    /// A function that one order makes exponential and another linear:
    /// `x1 y1 + x2 y2 + x3 y3 + x4 y4` made with every `x` before every
    /// `y`. Sifting finds a smaller order.
    #[test]
    fn sifting_shrinks_an_interleaving_function() {
        let (_, mut g, vars) = inputs(8);
        let (xs, ys) = vars.split_at(4);
        let mut f = Guard::FALSE;
        for i in 0..4 {
            let p = g.and(xs[i], ys[i]);
            f = g.or(f, p);
        }
        let (was, now) = g.reorder(std::iter::once(f), Duration::from_secs(10));
        assert!(was >= 30, "the bad order: {was} nodes");
        assert!(now <= 8, "sifted: {now} nodes");
    }
}
