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
//!
//! Memory cells at constant offsets from the address a variable holds
//! (`*(p + k)`, found by a must-analysis of `p = b + k` copies) are tracked
//! like variables: their loads carry the dependence, and callees' loads
//! through their parameters count at the call. braid resolves a symbolic
//! address by forking per feasible offset, so a variable or cell that an
//! address depends on is *address-hot* too (merging it would make the
//! address symbolic); the paper's KLEE used array theory instead, so
//! equation (2) alone does not cover this.

use braid_ir::{natural_loops, successors, FuncId, Function, Module, Operand, Rhs, Stmt, StmtIdx, VarId};
use braid_term::{Op, Value};
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
    let (loops, rank) = natural_loops(f);
    let back = loops
        .iter()
        .flat_map(|l| l.back_from.iter().map(move |s| (*s, l.head)))
        .collect();
    let loops = loops
        .into_iter()
        .map(|l| {
            let body: FxHashSet<StmtIdx> = (0..f.stmts.len() as StmtIdx).filter(|s| l.body[*s as usize]).collect();
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
            Loop {
                head: l.head,
                body,
                exit,
            }
        })
        .collect();
    Shape { loops, back }
}

/// A memory cell at a constant offset from the address a variable holds.
pub type Cell = (VarId, i128);

/// Per statement (before it runs): variables known to hold `base + k` for
/// another variable `base` (a forward must-analysis).
fn pointer_facts(f: &Function) -> Vec<FxHashMap<VarId, Cell>> {
    let n = f.stmts.len();
    let mut facts: Vec<Option<FxHashMap<VarId, Cell>>> = vec![None; n];
    if n == 0 {
        return Vec::new();
    }
    facts[0] = Some(FxHashMap::default());
    let mut work = vec![0 as StmtIdx];
    while let Some(i) = work.pop() {
        let mut out = facts[i as usize].clone().unwrap_or_default();
        pointer_transfer(&f.stmts[i as usize], &mut out);
        for s in successors(f, i) {
            let merged = match &facts[s as usize] {
                None => out.clone(),
                Some(old) => old
                    .iter()
                    .filter(|(v, c)| out.get(v) == Some(c))
                    .map(|(v, c)| (*v, *c))
                    .collect(),
            };
            if facts[s as usize].as_ref() != Some(&merged) {
                facts[s as usize] = Some(merged);
                work.push(s);
            }
        }
    }
    facts.into_iter().map(Option::unwrap_or_default).collect()
}

fn pointer_transfer(s: &Stmt, facts: &mut FxHashMap<VarId, Cell>) {
    let dst = match s {
        Stmt::Assign { dst, .. } => *dst,
        Stmt::Call { dst: Some(d), .. } => *d,
        _ => return,
    };
    let base = |facts: &FxHashMap<VarId, Cell>, b: &VarId| facts.get(b).copied().unwrap_or((*b, 0));
    let new = match s {
        Stmt::Assign {
            rhs: Rhs::Copy(Operand::Var(b)),
            ..
        } => Some(base(facts, b)),
        Stmt::Assign {
            rhs: Rhs::Binary(op @ (Op::Add | Op::Sub), a, k),
            ..
        } => {
            let (b, k) = match (a, k) {
                (Operand::Var(b), Operand::Const(Value::Int(k))) => (b, *k),
                (Operand::Const(Value::Int(k)), Operand::Var(b)) if *op == Op::Add => (b, *k),
                _ => (&dst, 0),
            };
            let (root, k0) = base(facts, b);
            let k = if *op == Op::Sub {
                k0.checked_sub(k)
            } else {
                k0.checked_add(k)
            };
            k.filter(|_| *b != dst).map(|k| (root, k))
        }
        _ => None,
    };
    facts.remove(&dst);
    facts.retain(|_, (b, _)| *b != dst);
    if let Some((b, k)) = new {
        if b != dst {
            facts.insert(dst, (b, k));
        }
    }
}

/// The cell a load or store at `s` accesses, as `(base, offset)`.
fn accessed_cell(f: &Function, facts: &[FxHashMap<VarId, Cell>], s: StmtIdx) -> Option<Cell> {
    let addr = match &f.stmts[s as usize] {
        Stmt::Assign {
            rhs: Rhs::Load { addr, .. },
            ..
        } => addr,
        Stmt::Store { addr, .. } => addr,
        _ => return None,
    };
    match addr {
        Operand::Var(p) => Some(facts[s as usize].get(p).copied().unwrap_or((*p, 0))),
        Operand::Const(_) => None,
    }
}

/// Where a dependence starts: a variable, or a memory cell (its loads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Seed {
    Var(VarId),
    Cell(Cell),
}

/// The variables that may carry a dependence on `seed` as it is at `from`,
/// at each statement (before it runs): a forward, path-insensitive fixpoint
/// over the statements reachable from `from`.
fn taint(f: &Function, facts: &[FxHashMap<VarId, Cell>], from: StmtIdx, seed: Seed) -> Taint {
    let n = f.stmts.len();
    let mut at: Vec<FxHashSet<VarId>> = vec![FxHashSet::default(); n];
    let mut visited = vec![false; n];
    if n == 0 || from as usize >= n {
        return Taint { at, reachable: visited };
    }
    if let Seed::Var(v) = seed {
        at[from as usize].insert(v);
    }
    let mut work = vec![from];
    while let Some(i) = work.pop() {
        visited[i as usize] = true;
        let mut out = at[i as usize].clone();
        let s = &f.stmts[i as usize];
        let dst = match s {
            Stmt::Assign { dst, .. } => Some(*dst),
            Stmt::Call { dst, .. } => *dst,
            _ => None,
        };
        if let Some(d) = dst {
            let loads_seed = matches!(seed, Seed::Cell(c) if matches!(s, Stmt::Assign { rhs: Rhs::Load { .. }, .. }) && accessed_cell(f, facts, i) == Some(c));
            let tainted = loads_seed
                || s.operands()
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
            if at[s as usize].len() != before || !visited[s as usize] {
                visited[s as usize] = true;
                work.push(s);
            }
        }
    }
    Taint { at, reachable: visited }
}

struct Taint {
    /// Per statement, the variables carrying the dependence before it runs.
    at: Vec<FxHashSet<VarId>>,
    reachable: Vec<bool>,
}

/// Loop iteration counts: `(head, iterations done)`, sorted.
type Iters = Vec<(StmtIdx, u32)>;
/// `q` per (statement, iteration counts).
type Memo = FxHashMap<(StmtIdx, Iters), f64>;

/// What `q` counts at a branch.
enum Count<'a> {
    All,
    /// Branches whose condition is in the taint of the statement; at calls,
    /// also the callee's count for the seed cell when it is passed on.
    DependsOn(&'a [FxHashSet<VarId>], Option<Cell>),
}

pub struct Qce<'m> {
    module: &'m Module,
    pub params: QceParams,
    shapes: Vec<Shape>,
    /// Per function: local `Q_t` at its entry.
    entry_total: FxHashMap<FuncId, f64>,
    /// Per function and parameter: local `Q_add` at its entry.
    entry_add: FxHashMap<(FuncId, VarId), f64>,
    /// Per function and cell at a constant offset from a parameter: local
    /// `Q_add` at its entry.
    entry_cell_add: FxHashMap<(FuncId, Cell), f64>,
    /// Per function: the parameters, and cells off them, that an address
    /// depends on.
    entry_addressed: FxHashSet<(FuncId, Seed)>,
    facts: Vec<Vec<FxHashMap<VarId, Cell>>>,
    /// Per function: the cells its loads (and its callees' loads through
    /// arguments) access.
    cells: Vec<Vec<Cell>>,
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
            entry_cell_add: FxHashMap::default(),
            entry_addressed: FxHashSet::default(),
            facts: module.functions.iter().map(pointer_facts).collect(),
            cells: vec![Vec::new(); module.functions.len()],
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
        self.cells[g.0 as usize] = self.find_cells(g);
        let total = self.q(g, 0, &Count::All);
        self.entry_total.insert(g, total);
        for p in &f.params {
            let seed = Seed::Var(p.var);
            let add = self.added_seed(g, 0, seed);
            self.entry_add.insert((g, p.var), add);
            if self.addressed_seed(g, 0, seed) {
                self.entry_addressed.insert((g, seed));
            }
        }
        let params: FxHashSet<VarId> = f.params.iter().map(|p| p.var).collect();
        for c in self.cells[g.0 as usize].clone() {
            if params.contains(&c.0) {
                let add = self.added_seed(g, 0, Seed::Cell(c));
                self.entry_cell_add.insert((g, c), add);
                if self.addressed_seed(g, 0, Seed::Cell(c)) {
                    self.entry_addressed.insert((g, Seed::Cell(c)));
                }
            }
        }
    }

    /// The cells `g` loads, directly or through its callees' parameters.
    fn find_cells(&self, g: FuncId) -> Vec<Cell> {
        let f = self.module.func(g);
        let facts = &self.facts[g.0 as usize];
        let mut cells = FxHashSet::default();
        for (i, s) in f.stmts.iter().enumerate() {
            if let Stmt::Assign {
                rhs: Rhs::Load { .. }, ..
            } = s
            {
                cells.extend(accessed_cell(f, facts, i as StmtIdx));
            }
            if let Stmt::Call {
                callee: Operand::Const(Value::Func(h)),
                args,
                ..
            } = s
            {
                let callee = self.module.func(FuncId(*h));
                for (p, a) in callee.params.iter().zip(args) {
                    let Operand::Var(x) = a else { continue };
                    let (b, k0) = facts[i].get(x).copied().unwrap_or((*x, 0));
                    for (q, k) in &self.cells[*h as usize] {
                        if *q == p.var {
                            cells.extend(k0.checked_add(*k).map(|k| (b, k)));
                        }
                    }
                }
            }
        }
        let mut cells: Vec<Cell> = cells.into_iter().collect();
        cells.sort_unstable_by_key(|(v, k)| (v.0, *k));
        cells
    }

    fn taint_of(&self, g: FuncId, at: StmtIdx, seed: Seed) -> Taint {
        taint(self.module.func(g), &self.facts[g.0 as usize], at, seed)
    }

    fn added_seed(&self, g: FuncId, at: StmtIdx, seed: Seed) -> f64 {
        let t = self.taint_of(g, at, seed);
        let cell = match seed {
            Seed::Cell(c) => Some(c),
            Seed::Var(_) => None,
        };
        self.q(g, at, &Count::DependsOn(&t.at, cell))
    }

    /// Whether an address of a load or store reachable from `at` (in `g` or
    /// its callees) may depend on `seed`.
    fn addressed_seed(&self, g: FuncId, at: StmtIdx, seed: Seed) -> bool {
        let f = self.module.func(g);
        let facts = &self.facts[g.0 as usize];
        let t = self.taint_of(g, at, seed);
        f.stmts
            .iter()
            .enumerate()
            .filter(|(i, _)| t.reachable[*i])
            .any(|(i, s)| {
                let tainted = |o: &Operand| matches!(o, Operand::Var(x) if t.at[i].contains(x));
                match s {
                    Stmt::Assign {
                        rhs: Rhs::Load { addr, .. },
                        ..
                    }
                    | Stmt::Store { addr, .. } => tainted(addr),
                    Stmt::Call {
                        callee: Operand::Const(Value::Func(h)),
                        args,
                        ..
                    } => {
                        let h = FuncId(*h);
                        let callee = self.module.func(h);
                        callee.params.iter().zip(args).any(|(p, a)| {
                            let by_value = tainted(a) && self.entry_addressed.contains(&(h, Seed::Var(p.var)));
                            let by_cell = match (seed, a) {
                                (Seed::Cell((b, k)), Operand::Var(x)) => {
                                    let (xb, k0) = facts[i].get(x).copied().unwrap_or((*x, 0));
                                    xb == b
                                        && k.checked_sub(k0).is_some_and(|k| {
                                            self.entry_addressed.contains(&(h, Seed::Cell((p.var, k))))
                                        })
                                }
                                _ => false,
                            };
                            by_value || by_cell
                        })
                    }
                    _ => false,
                }
            })
    }

    /// The cells tracked in `g` (loaded by it or its callees).
    pub fn cells(&self, g: FuncId) -> &[Cell] {
        &self.cells[g.0 as usize]
    }

    /// `Q_add(ℓ, *(base + k))`.
    pub fn cell_added(&self, g: FuncId, at: StmtIdx, cell: Cell) -> f64 {
        self.added_seed(g, at, Seed::Cell(cell))
    }

    /// Whether a later address may depend on `v` as it is at `at`.
    pub fn addressed(&self, g: FuncId, at: StmtIdx, v: VarId) -> bool {
        self.addressed_seed(g, at, Seed::Var(v))
    }

    /// Whether a later address may depend on the cell as it is at `at`.
    pub fn cell_addressed(&self, g: FuncId, at: StmtIdx, cell: Cell) -> bool {
        self.addressed_seed(g, at, Seed::Cell(cell))
    }

    /// `Q_t(ℓ)`: the estimated number of queries after reaching `ℓ`.
    pub fn total(&self, g: FuncId, at: StmtIdx) -> f64 {
        self.q(g, at, &Count::All)
    }

    /// `Q_add(ℓ, v)`: the estimated number of those that depend on `v`.
    pub fn added(&self, g: FuncId, at: StmtIdx, v: VarId) -> f64 {
        self.added_seed(g, at, Seed::Var(v))
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
                Count::DependsOn(t, _) => match cond {
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
                    Count::DependsOn(t, cell) => {
                        let callee = self.module.func(h);
                        let facts = &self.facts[g.0 as usize][at as usize];
                        let add: f64 = callee
                            .params
                            .iter()
                            .zip(args)
                            .map(|(p, a)| {
                                let Operand::Var(x) = a else { return 0.0 };
                                let by_value = if t[at as usize].contains(x) {
                                    self.entry_add.get(&(h, p.var)).copied().unwrap_or(0.0)
                                } else {
                                    0.0
                                };
                                let by_cell = match cell {
                                    Some((b, k)) => {
                                        let (xb, k0) = facts.get(x).copied().unwrap_or((*x, 0));
                                        match k.checked_sub(k0) {
                                            Some(k) if xb == *b => {
                                                self.entry_cell_add.get(&(h, (p.var, k))).copied().unwrap_or(0.0)
                                            }
                                            _ => 0.0,
                                        }
                                    }
                                    None => 0.0,
                                };
                                by_value + by_cell
                            })
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
