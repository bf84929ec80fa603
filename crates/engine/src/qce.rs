//! Query count estimation (QCE; seed 004 §3.2), a static analysis run once
//! before exploration.
//!
//! `q(ℓ, c)` walks the CFG from `ℓ` (equation 3): a conditional branch adds
//! `c(ℓ', e)` and `β`-weighted counts of both successors; `halt`, `ret` and
//! `error` end the walk. Loops are unrolled `κ` times: a back edge beyond
//! that continues at the loop's exit (so with `κ = 1` the body runs once, as
//! in the paper's worked example). `Q_t(ℓ)` counts every branch;
//! `Q_add(ℓ, v)` counts the branches whose condition may depend on `v` at
//! `ℓ` (`(ℓ, v) ◁ (ℓ', e)`, a path-insensitive data-dependence analysis over
//! registers, loads depending on their address). Calls add the callee's local
//! counts at its entry, computed bottom-up over the call graph (recursion
//! bounded). Hot variables: `H(ℓ) = {v | Q_add(ℓ, v) > α·Q_t(ℓ)}` (equation 2).

use braid_ir::{reverse_post_order, successors, FuncId, Function, Module, Operand, Stmt, StmtIdx, VarId};
use braid_term::Value;
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QceParams {
    /// Fraction of `Q_t` above which a variable is hot.
    pub alpha: f64,
    /// Probability that a branch side is feasible.
    pub beta: f64,
    /// Unrolling bound for loops.
    pub kappa: u32,
}

impl Default for QceParams {
    fn default() -> QceParams {
        QceParams {
            alpha: 0.5,
            beta: 0.6,
            kappa: 1,
        }
    }
}

/// A natural loop: its head, its statements and where it is left.
struct Loop {
    head: StmtIdx,
    body: FxHashSet<StmtIdx>,
    exit: Option<StmtIdx>,
}

/// Per-function CFG facts the walk needs.
struct Shape {
    loops: Vec<Loop>,
    /// Back edges `(from, head)`.
    back: FxHashSet<(StmtIdx, StmtIdx)>,
}

fn shape(f: &Function) -> Shape {
    let order = reverse_post_order(f);
    let mut rank = vec![0usize; f.stmts.len()];
    for (i, s) in order.iter().enumerate() {
        rank[*s as usize] = i;
    }
    let mut back = FxHashSet::default();
    let mut preds: Vec<Vec<StmtIdx>> = vec![Vec::new(); f.stmts.len()];
    for i in 0..f.stmts.len() as StmtIdx {
        for s in successors(f, i) {
            preds[s as usize].push(i);
            if rank[s as usize] <= rank[i as usize] {
                back.insert((i, s));
            }
        }
    }
    let mut heads: Vec<StmtIdx> = back.iter().map(|(_, h)| *h).collect();
    heads.sort_unstable();
    heads.dedup();
    let loops = heads
        .into_iter()
        .map(|head| {
            // The natural loop: everything that reaches a back edge's source
            // without passing through the head.
            let mut body: FxHashSet<StmtIdx> = [head].into_iter().collect();
            let mut work: Vec<StmtIdx> = back.iter().filter(|(_, h)| *h == head).map(|(s, _)| *s).collect();
            while let Some(n) = work.pop() {
                if body.insert(n) {
                    work.extend(preds[n as usize].iter().copied());
                }
            }
            // The exit edge leaving the loop closest to its head.
            let exit = body
                .iter()
                .flat_map(|&n| {
                    successors(f, n)
                        .into_iter()
                        .filter(|s| !body.contains(s))
                        .map(move |s| (n, s))
                })
                .min_by_key(|(n, s)| (rank[*n as usize], *s))
                .map(|(_, s)| s);
            Loop { head, body, exit }
        })
        .collect();
    Shape { loops, back }
}

/// The variables that may carry a dependence on `v` as it is at `from`, at
/// each statement (before it runs): a forward, path-insensitive fixpoint.
fn taint(f: &Function, from: StmtIdx, v: VarId) -> Vec<FxHashSet<VarId>> {
    let n = f.stmts.len();
    let mut at: Vec<FxHashSet<VarId>> = vec![FxHashSet::default(); n];
    if n == 0 {
        return at;
    }
    at[from as usize].insert(v);
    let mut work = vec![from];
    while let Some(i) = work.pop() {
        let mut out = at[i as usize].clone();
        let s = &f.stmts[i as usize];
        let dst = match s {
            Stmt::Assign { dst, .. } => Some(*dst),
            Stmt::Call { dst, .. } => *dst,
            _ => None,
        };
        if let Some(d) = dst {
            let tainted = s
                .operands()
                .into_iter()
                .any(|o| matches!(o, Operand::Var(x) if out.contains(x)));
            if tainted {
                out.insert(d);
            } else {
                out.remove(&d);
            }
        }
        for s in successors(f, i) {
            let before = at[s as usize].len();
            at[s as usize].extend(out.iter().copied());
            if at[s as usize].len() != before {
                work.push(s);
            }
        }
    }
    at
}

/// Loop iteration counts: `(head, iterations done)`, sorted.
type Iters = Vec<(StmtIdx, u32)>;
/// `q` per (statement, iteration counts).
type Memo = FxHashMap<(StmtIdx, Iters), f64>;

/// What `q` counts at a branch.
enum Count<'a> {
    All,
    /// Branches whose condition is in the taint of the statement.
    DependsOn(&'a [FxHashSet<VarId>]),
}

pub struct Qce<'m> {
    module: &'m Module,
    pub params: QceParams,
    shapes: Vec<Shape>,
    /// Per function: local `Q_t` at its entry.
    entry_total: FxHashMap<FuncId, f64>,
    /// Per function and parameter: local `Q_add` at its entry.
    entry_add: FxHashMap<(FuncId, VarId), f64>,
}

impl<'m> Qce<'m> {
    /// Runs the analysis: callee summaries bottom-up (recursion cut).
    pub fn new(module: &'m Module, params: QceParams) -> Qce<'m> {
        let shapes = module.functions.iter().map(shape).collect();
        let mut qce = Qce {
            module,
            params,
            shapes,
            entry_total: FxHashMap::default(),
            entry_add: FxHashMap::default(),
        };
        for i in 0..module.functions.len() {
            qce.summarise(FuncId(i as u32), &mut Vec::new());
        }
        qce
    }

    fn summarise(&mut self, g: FuncId, active: &mut Vec<FuncId>) {
        if self.entry_total.contains_key(&g) || active.contains(&g) {
            return;
        }
        active.push(g);
        let f = self.module.func(g);
        for s in &f.stmts {
            if let Stmt::Call {
                callee: Operand::Const(Value::Func(h)),
                ..
            } = s
            {
                self.summarise(FuncId(*h), active);
            }
        }
        active.pop();
        let total = self.q(g, 0, &Count::All);
        self.entry_total.insert(g, total);
        for p in &f.params {
            let t = taint(f, 0, p.var);
            let add = self.q(g, 0, &Count::DependsOn(&t));
            self.entry_add.insert((g, p.var), add);
        }
    }

    /// `Q_t(ℓ)`: the estimated number of queries after reaching `ℓ`.
    pub fn total(&self, g: FuncId, at: StmtIdx) -> f64 {
        self.q(g, at, &Count::All)
    }

    /// `Q_add(ℓ, v)`: the estimated number of those that depend on `v`.
    pub fn added(&self, g: FuncId, at: StmtIdx, v: VarId) -> f64 {
        let t = taint(self.module.func(g), at, v);
        self.q(g, at, &Count::DependsOn(&t))
    }

    /// `H(ℓ)`: the hot variables at `ℓ`.
    pub fn hot(&self, g: FuncId, at: StmtIdx) -> Vec<VarId> {
        let threshold = self.params.alpha * self.total(g, at);
        (0..self.module.func(g).vars.len() as u32)
            .map(VarId)
            .filter(|v| self.added(g, at, *v) > threshold)
            .collect()
    }

    /// Equation (3), over the CFG unrolled `κ` times, memoised per
    /// (statement, loop iteration counts).
    fn q(&self, g: FuncId, at: StmtIdx, count: &Count) -> f64 {
        let mut memo = FxHashMap::default();
        self.walk(g, at, &mut Vec::new(), count, &mut memo)
    }

    fn walk(&self, g: FuncId, at: StmtIdx, iters: &mut Iters, count: &Count, memo: &mut Memo) -> f64 {
        let f = self.module.func(g);
        let Some(stmt) = f.stmts.get(at as usize) else {
            return 0.0;
        };
        let key = (at, iters.clone());
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let beta = self.params.beta;
        let here = match stmt {
            Stmt::If { cond, .. } => match count {
                Count::All => 1.0,
                Count::DependsOn(t) => match cond {
                    Operand::Var(c) if t[at as usize].contains(c) => 1.0,
                    _ => 0.0,
                },
            },
            Stmt::Call {
                callee: Operand::Const(Value::Func(h)),
                args,
                ..
            } => {
                let h = FuncId(*h);
                match count {
                    Count::All => self.entry_total.get(&h).copied().unwrap_or(0.0),
                    Count::DependsOn(t) => {
                        let callee = self.module.func(h);
                        let add: f64 = callee
                            .params
                            .iter()
                            .zip(args)
                            .filter(|(_, a)| matches!(a, Operand::Var(x) if t[at as usize].contains(x)))
                            .map(|(p, _)| self.entry_add.get(&(h, p.var)).copied().unwrap_or(0.0))
                            .sum();
                        add.min(self.entry_total.get(&h).copied().unwrap_or(0.0))
                    }
                }
            }
            _ => 0.0,
        };
        let succs = successors(f, at);
        let weight = if matches!(stmt, Stmt::If { .. }) { beta } else { 1.0 };
        let mut sum = here;
        for s in succs {
            sum += weight * self.follow(g, at, s, iters, count, memo);
        }
        memo.insert(key, sum);
        sum
    }

    /// Follows the edge `from → to`, unrolling loops `κ` times.
    fn follow(&self, g: FuncId, from: StmtIdx, to: StmtIdx, iters: &mut Iters, count: &Count, memo: &mut Memo) -> f64 {
        let shape = &self.shapes[g.0 as usize];
        if shape.back.contains(&(from, to)) {
            let done = iters.iter().find(|(h, _)| *h == to).map_or(0, |(_, n)| *n) + 1;
            let Some(lp) = shape.loops.iter().find(|l| l.head == to) else {
                return 0.0;
            };
            if done >= self.params.kappa {
                // Unrolled enough: continue where the loop is left.
                let saved = iters.clone();
                iters.retain(|(h, _)| *h != to);
                let r = lp.exit.map_or(0.0, |e| self.follow_forward(g, e, iters, count, memo));
                *iters = saved;
                return r;
            }
            let saved = iters.clone();
            iters.retain(|(h, _)| *h != to);
            iters.push((to, done));
            iters.sort_unstable();
            let r = self.walk(g, to, iters, count, memo);
            *iters = saved;
            return r;
        }
        self.follow_forward(g, to, iters, count, memo)
    }

    /// A forward arrival: entering a loop afresh resets its iteration count,
    /// leaving loops forgets theirs.
    fn follow_forward(&self, g: FuncId, to: StmtIdx, iters: &mut Iters, count: &Count, memo: &mut Memo) -> f64 {
        let shape = &self.shapes[g.0 as usize];
        let saved = iters.clone();
        iters.retain(|(h, _)| *h != to && shape.loops.iter().any(|l| l.head == *h && l.body.contains(&to)));
        let r = self.walk(g, to, iters, count, memo);
        *iters = saved;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_echo_numbers() {
        // seed 004 §3.2, with α = 0.5, β = 0.6, κ = 1, at line 7 (label L7).
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/paper/echo.bir");
        let src = std::fs::read_to_string(path).expect("echo.bir");
        let m = braid_ir::parse("echo.bir", &src).expect("parses");
        let main = m.func_index("main").expect("main");
        let f = m.func(main);
        let l7 = f.labels.iter().find(|(n, _)| n == "L7").map(|(_, s)| *s).expect("L7");
        let qce = Qce::new(
            &m,
            QceParams {
                alpha: 0.5,
                beta: 0.6,
                kappa: 1,
            },
        );
        let var = |n: &str| f.var_index(n).expect("variable");
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            close(qce.added(main, l7, var("arg")), 1.6),
            "{}",
            qce.added(main, l7, var("arg"))
        );
        assert!(
            close(qce.added(main, l7, var("r")), 1.32),
            "{}",
            qce.added(main, l7, var("r"))
        );
        assert!(close(qce.total(main, l7), 2.92), "{}", qce.total(main, l7));
        assert_eq!(qce.hot(main, l7), vec![var("arg")]);
    }
}
