//! The general simplex of Dutertre and de Moura (CAV'06) with Bland's rule,
//! over exact rationals, and branch and bound for integer solutions — with
//! MuSE's partial solutions (seed 002, Algorithm 2): the assignment before
//! each pivot satisfies some of the constraints and is recorded.
//!
//! Problems are small (one path condition's linear part), so the tableau is
//! dense. Rationals are `i128` fractions; an overflow ends the search with
//! [`Outcome::GaveUp`] and whatever partial solutions it found so far.

use rustc_hash::FxHashSet;
use std::cmp::Ordering;

/// An exact rational with a positive denominator, in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Q {
    n: i128,
    d: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    pub const ZERO: Q = Q { n: 0, d: 1 };

    pub fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }

    fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1);
        let (n, d) = (n / g, d / g);
        if d < 0 {
            Some(Q {
                n: n.checked_neg()?,
                d: d.checked_neg()?,
            })
        } else {
            Some(Q { n, d })
        }
    }

    fn add(self, o: Q) -> Option<Q> {
        let g = gcd(self.d, o.d);
        let l = (self.d / g).checked_mul(o.d)?;
        let a = self.n.checked_mul(l / self.d)?;
        let b = o.n.checked_mul(l / o.d)?;
        Q::new(a.checked_add(b)?, l)
    }

    fn sub(self, o: Q) -> Option<Q> {
        self.add(Q {
            n: o.n.checked_neg()?,
            d: o.d,
        })
    }

    fn mul(self, o: Q) -> Option<Q> {
        let g1 = gcd(self.n, o.d).max(1);
        let g2 = gcd(o.n, self.d).max(1);
        Q::new(
            (self.n / g1).checked_mul(o.n / g2)?,
            (self.d / g2).checked_mul(o.d / g1)?,
        )
    }

    fn div(self, o: Q) -> Option<Q> {
        self.mul(Q::new(o.d, o.n)?)
    }

    fn is_zero(self) -> bool {
        self.n == 0
    }

    pub fn is_integer(self) -> bool {
        self.d == 1
    }

    pub fn floor(self) -> i128 {
        self.n.div_euclid(self.d)
    }

    pub fn ceil(self) -> i128 {
        -(-self.n).div_euclid(self.d)
    }

    /// The nearest integer (halves round up).
    pub fn round(self) -> i128 {
        Q::new(2 * self.n + self.d, 2 * self.d).map_or(self.floor(), Q::floor)
    }
}

impl PartialOrd for Q {
    fn partial_cmp(&self, o: &Q) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Q {
    fn cmp(&self, o: &Q) -> Ordering {
        // Denominators are positive; compare n1*d2 with n2*d1 without overflow.
        match (self.n.checked_mul(o.d), o.n.checked_mul(self.d)) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => (self.n as f64 / self.d as f64).total_cmp(&(o.n as f64 / o.d as f64)),
        }
    }
}

/// How a constraint's linear form compares with its bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Le,
    Ge,
    Eq,
    /// A disequality: split into `≤ bound − 1` or `≥ bound + 1` by branch
    /// and bound when a solution violates it.
    Ne,
}

/// `Σ coeff·x ⋈ bound` over the problem's variables `0..vars`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub coeffs: Vec<(usize, i128)>,
    pub rel: Rel,
    pub bound: i128,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// An integer solution (one value per variable).
    Sat(Vec<i128>),
    Unsat,
    /// Out of pivots or branch-and-bound nodes, or an overflow.
    GaveUp,
}

/// What [`solve`] found: the outcome and the partial solutions, each the
/// assignment (rounded to integers) before a pivot, in the order visited.
#[derive(Clone, Debug)]
pub struct Solved {
    pub outcome: Outcome,
    pub partials: Vec<Vec<i128>>,
    pub pivots: usize,
}

/// Search limits: pivots over all simplex runs, branch-and-bound nodes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub pivots: usize,
    pub nodes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            pivots: 2_000,
            nodes: 64,
        }
    }
}

/// The most cells of a tableau (rows times variables; 2 MiB of rationals,
/// and branch and bound keeps one per level). On bench/muse the largest
/// had 5 850; an expression evaluator's questions through `strtod` (their
/// shifts and sums made linear) had up to 1.3 million, and branch and
/// bound's copies of them took 400 MB and seconds without a check of the
/// run's limits.
const MAX_CELLS: usize = 1 << 16;

/// A constraint's linear form: its nonzero coefficients, by variable.
fn linear_form(c: &Constraint) -> Vec<(usize, i128)> {
    let mut form: Vec<(usize, i128)> = c.coeffs.iter().copied().filter(|(_, a)| *a != 0).collect();
    form.sort_unstable();
    form
}

#[derive(Clone)]
struct Tableau {
    /// Structural variables first, then one slack per distinct linear form.
    vars: usize,
    structural: usize,
    /// Row r: `basic[r] = Σ_j rows[r][j]·x_j` over non-basic `x_j`.
    rows: Vec<Vec<Q>>,
    basic: Vec<usize>,
    row_of: Vec<Option<usize>>,
    lower: Vec<Option<Q>>,
    upper: Vec<Option<Q>>,
    value: Vec<Q>,
    /// `(x, b)`: `x ≠ b` must hold too.
    disequal: Vec<(usize, Q)>,
}

enum Check {
    Sat,
    Unsat,
    GaveUp,
}

impl Tableau {
    fn new(structural: usize, constraints: &[Constraint], bounds: &[(Option<i128>, Option<i128>)]) -> Tableau {
        // Constraints over the same linear form share one slack.
        let mut forms: Vec<Vec<(usize, i128)>> = Vec::new();
        let mut slack_of = Vec::with_capacity(constraints.len());
        for c in constraints {
            let form = linear_form(c);
            let i = match forms.iter().position(|f| *f == form) {
                Some(i) => i,
                None => {
                    forms.push(form);
                    forms.len() - 1
                }
            };
            slack_of.push(i);
        }
        let vars = structural + forms.len();
        let mut t = Tableau {
            vars,
            structural,
            rows: Vec::with_capacity(forms.len()),
            basic: Vec::with_capacity(forms.len()),
            row_of: vec![None; vars],
            lower: vec![None; vars],
            upper: vec![None; vars],
            value: vec![Q::ZERO; vars],
            disequal: Vec::new(),
        };
        for (x, (lo, hi)) in bounds.iter().enumerate().take(structural) {
            t.lower[x] = lo.map(Q::int);
            t.upper[x] = hi.map(Q::int);
        }
        for (i, form) in forms.iter().enumerate() {
            let mut row = vec![Q::ZERO; vars];
            for &(x, a) in form {
                row[x] = Q::int(a);
            }
            t.row_of[structural + i] = Some(t.rows.len());
            t.basic.push(structural + i);
            t.rows.push(row);
        }
        for (c, &i) in constraints.iter().zip(&slack_of) {
            let s = structural + i;
            let b = Q::int(c.bound);
            if c.rel == Rel::Ne {
                t.disequal.push((s, b));
                continue;
            }
            if matches!(c.rel, Rel::Ge | Rel::Eq) && t.lower[s].is_none_or(|l| b > l) {
                t.lower[s] = Some(b);
            }
            if matches!(c.rel, Rel::Le | Rel::Eq) && t.upper[s].is_none_or(|u| b < u) {
                t.upper[s] = Some(b);
            }
        }
        t
    }

    /// Non-basic structural variables start at a bound if zero is outside
    /// their bounds; basic ones follow from the rows.
    fn init_values(&mut self) -> Option<()> {
        for x in 0..self.structural {
            if self.row_of[x].is_none() {
                self.value[x] = self.clamped(x, self.value[x]);
            }
        }
        for r in 0..self.rows.len() {
            let mut v = Q::ZERO;
            for (j, a) in self.rows[r].iter().enumerate() {
                if !a.is_zero() {
                    v = v.add(a.mul(self.value[j])?)?;
                }
            }
            self.value[self.basic[r]] = v;
        }
        Some(())
    }

    fn clamped(&self, x: usize, v: Q) -> Q {
        match (self.lower[x], self.upper[x]) {
            (Some(l), _) if v < l => l,
            (_, Some(u)) if v > u => u,
            _ => v,
        }
    }

    fn below(&self, x: usize) -> bool {
        self.lower[x].is_some_and(|l| self.value[x] < l)
    }

    fn above(&self, x: usize) -> bool {
        self.upper[x].is_some_and(|u| self.value[x] > u)
    }

    fn can_increase(&self, x: usize) -> bool {
        self.upper[x].is_none_or(|u| self.value[x] < u)
    }

    fn can_decrease(&self, x: usize) -> bool {
        self.lower[x].is_none_or(|l| self.value[x] > l)
    }

    fn partial(&self) -> Vec<i128> {
        self.value[..self.structural].iter().map(|v| v.round()).collect()
    }

    /// Algorithm 2: pivots until no basic variable violates its bounds,
    /// recording the assignment before each pivot.
    fn check(&mut self, pivots: &mut usize, partials: &mut Vec<Vec<i128>>) -> Check {
        loop {
            // Bland's rule: the violating basic variable of smallest index.
            let Some(xi) = (0..self.vars)
                .filter(|&x| self.row_of[x].is_some())
                .find(|&x| self.below(x) || self.above(x))
            else {
                return Check::Sat;
            };
            partials.push(self.partial());
            if *pivots == 0 {
                return Check::GaveUp;
            }
            *pivots -= 1;
            let r = self.row_of[xi].expect("basic");
            let increase = self.below(xi);
            let target = if increase { self.lower[xi] } else { self.upper[xi] }.expect("violated bound");
            // The non-basic variable of smallest index that can move x_i
            // towards its bound.
            let xj = (0..self.vars).filter(|&x| self.row_of[x].is_none()).find(|&x| {
                let a = self.rows[r][x];
                match (a.n.cmp(&0), increase) {
                    (Ordering::Greater, true) | (Ordering::Less, false) => self.can_increase(x),
                    (Ordering::Less, true) | (Ordering::Greater, false) => self.can_decrease(x),
                    (Ordering::Equal, _) => false,
                }
            });
            let Some(xj) = xj else { return Check::Unsat };
            if self.pivot_and_update(xi, xj, target).is_none() {
                return Check::GaveUp;
            }
        }
    }

    fn pivot_and_update(&mut self, xi: usize, xj: usize, v: Q) -> Option<()> {
        let r = self.row_of[xi]?;
        let a = self.rows[r][xj];
        let theta = v.sub(self.value[xi])?.div(a)?;
        self.value[xi] = v;
        self.value[xj] = self.value[xj].add(theta)?;
        for k in 0..self.rows.len() {
            if k != r {
                let akj = self.rows[k][xj];
                if !akj.is_zero() {
                    let b = self.basic[k];
                    self.value[b] = self.value[b].add(akj.mul(theta)?)?;
                }
            }
        }
        self.pivot(r, xi, xj)
    }

    /// Swaps basic `xi` (row `r`) with non-basic `xj`.
    fn pivot(&mut self, r: usize, xi: usize, xj: usize) -> Option<()> {
        let a = self.rows[r][xj];
        // x_j = (x_i − Σ_{k≠j} a_k·x_k) / a
        let mut row = vec![Q::ZERO; self.vars];
        for (k, ak) in self.rows[r].iter().enumerate() {
            if k != xj && !ak.is_zero() {
                row[k] = Q::ZERO.sub(*ak)?.div(a)?;
            }
        }
        row[xi] = Q::int(1).div(a)?;
        for k in 0..self.rows.len() {
            if k == r {
                continue;
            }
            let c = self.rows[k][xj];
            if c.is_zero() {
                continue;
            }
            self.rows[k][xj] = Q::ZERO;
            for (m, rm) in row.iter().enumerate() {
                if !rm.is_zero() {
                    self.rows[k][m] = self.rows[k][m].add(c.mul(*rm)?)?;
                }
            }
        }
        self.rows[r] = row;
        self.basic[r] = xj;
        self.row_of[xj] = Some(r);
        self.row_of[xi] = None;
        Some(())
    }
}

/// Solves `constraints` over integer variables `0..vars` with `bounds` (per
/// variable, inclusive), from the all-zero assignment.
pub fn solve(
    vars: usize,
    constraints: &[Constraint],
    bounds: &[(Option<i128>, Option<i128>)],
    limits: Limits,
) -> Solved {
    let mut partials = Vec::new();
    let mut pivots = limits.pivots;
    let mut nodes = limits.nodes;
    // A dense tableau of rows x variables: past its bound the question is
    // left to the others.
    let forms: FxHashSet<Vec<(usize, i128)>> = constraints.iter().map(linear_form).collect();
    if forms.len().saturating_mul(vars + forms.len()) > MAX_CELLS {
        return Solved {
            outcome: Outcome::GaveUp,
            partials,
            pivots: 0,
        };
    }
    let mut root = Tableau::new(vars, constraints, bounds);
    let conflicting = (0..root.vars).any(|x| matches!((root.lower[x], root.upper[x]), (Some(l), Some(u)) if l > u));
    let outcome = match root.init_values() {
        _ if conflicting => Outcome::Unsat,
        Some(()) => branch_and_bound(root, &mut pivots, &mut nodes, &mut partials),
        None => Outcome::GaveUp,
    };
    Solved {
        outcome,
        partials,
        pivots: limits.pivots - pivots,
    }
}

/// Depth-first branch and bound on the first structural variable with a
/// fractional value.
fn branch_and_bound(mut t: Tableau, pivots: &mut usize, nodes: &mut usize, partials: &mut Vec<Vec<i128>>) -> Outcome {
    match t.check(pivots, partials) {
        Check::Unsat => return Outcome::Unsat,
        Check::GaveUp => return Outcome::GaveUp,
        Check::Sat => {}
    }
    // Branch on a fractional variable, else on a violated disequality.
    let (x, v, split) = match (0..t.structural).find(|&x| !t.value[x].is_integer()) {
        Some(x) => (x, t.value[x], None),
        None => match t.disequal.iter().find(|(x, b)| t.value[*x] == *b) {
            Some(&(x, b)) => (x, b, Some(b)),
            None => return Outcome::Sat(t.value[..t.structural].iter().map(|v| v.floor()).collect()),
        },
    };
    // Around a fractional v: ⌊v⌋ and ⌈v⌉; around a forbidden b: b − 1 and b + 1.
    let (down_to, up_to) = match split {
        None => (v.floor(), v.ceil()),
        Some(b) => (b.floor() - 1, b.floor() + 1),
    };
    let mut gave_up = false;
    for down in [true, false] {
        if *nodes == 0 {
            return Outcome::GaveUp;
        }
        *nodes -= 1;
        let mut child = t.clone();
        if down {
            let u = Q::int(down_to);
            if child.lower[x].is_some_and(|l| l > u) {
                continue;
            }
            child.upper[x] = Some(u);
        } else {
            let l = Q::int(up_to);
            if child.upper[x].is_some_and(|u| u < l) {
                continue;
            }
            child.lower[x] = Some(l);
        }
        // A non-basic variable moves to its new bound; basic ones follow.
        if child.row_of[x].is_none() {
            let theta = match child.clamped(x, v).sub(v) {
                Some(t) => t,
                None => return Outcome::GaveUp,
            };
            child.value[x] = child.clamped(x, v);
            for k in 0..child.rows.len() {
                let a = child.rows[k][x];
                let b = child.basic[k];
                match a.mul(theta).and_then(|d| child.value[b].add(d)) {
                    Some(nv) => child.value[b] = nv,
                    None => return Outcome::GaveUp,
                }
            }
        }
        match branch_and_bound(child, pivots, nodes, partials) {
            Outcome::Sat(s) => return Outcome::Sat(s),
            Outcome::GaveUp => gave_up = true,
            Outcome::Unsat => {}
        }
    }
    if gave_up {
        Outcome::GaveUp
    } else {
        Outcome::Unsat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(coeffs: &[(usize, i128)], rel: Rel, bound: i128) -> Constraint {
        Constraint {
            coeffs: coeffs.to_vec(),
            rel,
            bound,
        }
    }

    /// Seed 002, §2: solving x+y ≥ 2 ∧ 2y−x ≥ 1 ∧ 2x−y ≥ 0 from (0, 0)
    /// visits (0, 0), then (2, 0), and ends at the solution (1, 1).
    #[test]
    fn the_papers_walk_through() {
        let cs = [
            c(&[(0, 1), (1, 1)], Rel::Ge, 2),
            c(&[(0, -1), (1, 2)], Rel::Ge, 1),
            c(&[(0, 2), (1, -1)], Rel::Ge, 0),
        ];
        let s = solve(2, &cs, &[(None, None); 2], Limits::default());
        assert_eq!(s.outcome, Outcome::Sat(vec![1, 1]));
        assert_eq!(s.partials, vec![vec![0, 0], vec![2, 0]]);
    }

    /// A tableau past its bound of cells is not made: the question is
    /// given up at once (a chain of 300 differences over 301 variables:
    /// 300 rows of 601 columns).
    #[test]
    fn a_tableau_too_large_is_given_up() {
        let cs: Vec<Constraint> = (0..300).map(|i| c(&[(i, 1), (i + 1, -1)], Rel::Le, 1)).collect();
        let s = solve(301, &cs, &vec![(None, None); 301], Limits::default());
        assert_eq!((s.outcome, s.pivots), (Outcome::GaveUp, 0));
        // A hundred rows fit.
        let s = solve(101, &cs[..100], &vec![(None, None); 101], Limits::default());
        assert!(matches!(s.outcome, Outcome::Sat(_)), "{:?}", s.outcome);
    }

    #[test]
    fn unsat_and_integer_gaps() {
        let cs = [c(&[(0, 1)], Rel::Ge, 3), c(&[(0, 1)], Rel::Le, 2)];
        assert_eq!(
            solve(1, &cs, &[(None, None)], Limits::default()).outcome,
            Outcome::Unsat
        );
        // 2x = 1 has a rational solution only.
        let cs = [c(&[(0, 2)], Rel::Eq, 1)];
        assert_eq!(
            solve(1, &cs, &[(None, None)], Limits::default()).outcome,
            Outcome::Unsat
        );
        // 2x + 2y = 6, x − y ≥ 1, within bounds.
        let cs = [c(&[(0, 2), (1, 2)], Rel::Eq, 6), c(&[(0, 1), (1, -1)], Rel::Ge, 1)];
        let s = solve(2, &cs, &[(Some(0), Some(10)); 2], Limits::default());
        let Outcome::Sat(v) = s.outcome else {
            panic!("{:?}", s.outcome)
        };
        assert!(2 * v[0] + 2 * v[1] == 6 && v[0] - v[1] >= 1 && v.iter().all(|x| (0..=10).contains(x)));
    }

    /// Random small systems: a `Sat` answer satisfies every constraint and
    /// bound; `Unsat` only when brute force over the box finds nothing.
    #[test]
    fn agrees_with_brute_force() {
        let mut seed: u64 = 0x243F_6A88_85A3_08D3;
        let mut next = |m: i128| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % (2 * m as u64 + 1)) as i128 - m
        };
        for _ in 0..300 {
            let vars = 2 + next(1).unsigned_abs() as usize;
            let cs: Vec<Constraint> = (0..3 + next(2).unsigned_abs() as usize)
                .map(|_| {
                    let coeffs = (0..vars).map(|x| (x, next(3))).collect();
                    let rel = [Rel::Le, Rel::Ge, Rel::Eq, Rel::Ne][next(2).unsigned_abs() as usize % 4];
                    Constraint {
                        coeffs,
                        rel,
                        bound: next(6),
                    }
                })
                .collect();
            let bounds = vec![(Some(-4), Some(4)); vars];
            let holds = |v: &[i128]| {
                cs.iter().all(|c| {
                    let s: i128 = c.coeffs.iter().map(|(x, a)| a * v[*x]).sum();
                    match c.rel {
                        Rel::Le => s <= c.bound,
                        Rel::Ge => s >= c.bound,
                        Rel::Eq => s == c.bound,
                        Rel::Ne => s != c.bound,
                    }
                })
            };
            let mut any = false;
            let mut v = vec![-4i128; vars];
            'all: loop {
                if holds(&v) {
                    any = true;
                    break;
                }
                for x in v.iter_mut() {
                    if *x < 4 {
                        *x += 1;
                        continue 'all;
                    }
                    *x = -4;
                }
                break;
            }
            let limits = Limits {
                pivots: 10_000,
                nodes: 10_000,
            };
            match solve(vars, &cs, &bounds, limits).outcome {
                Outcome::Sat(v) => assert!(holds(&v) && v.iter().all(|x| (-4..=4).contains(x)), "{cs:?} {v:?}"),
                Outcome::Unsat => assert!(!any, "{cs:?}"),
                Outcome::GaveUp => {}
            }
        }
    }
}
