//! Query count estimation (QCE; seed 004 §3.2), a static analysis computed
//! per location when merging first asks about it, and bounded by the run's
//! budget.
//!
//! `q(ℓ, c)` walks the CFG from `ℓ` (equation 3): a conditional branch adds
//! `c(ℓ', e)` and `β`-weighted counts of both successors; `halt`, `ret` and
//! `error` end the walk. Loops are unrolled `κ` times: a back edge beyond
//! that continues at the loop's exit (so with `κ = 1` the body runs once, as
//! in the paper's worked example). `Q_t(ℓ)` counts every branch;
//! `Q_add(ℓ, v)` counts the branches whose condition may depend on `v` at
//! `ℓ` (`(ℓ, v) ◁ (ℓ', e)`, a path-insensitive data-dependence analysis over
//! registers, loads depending on their address). Calls add the callee's local
//! counts at its entry, computed when a call first needs them (recursion
//! cut). Hot variables: `H(ℓ) = {v | Q_add(ℓ, v) > α·Q_t(ℓ)}` (equation 2).
//!
//! Memory cells at constant offsets from the address a variable holds
//! (`*(p + k)`, found by a must-analysis of `p = b + k` copies) are tracked
//! like variables: their loads carry the dependence, and callees' loads
//! through their parameters count at the call. braid resolves a symbolic
//! address by forking per feasible offset, so a variable or cell that an
//! address depends on is *address-hot* too (merging it would make the
//! address symbolic); the paper's KLEE used array theory instead, so
//! equation (2) alone does not cover this.
//!
//! One location's numbers come from one pass for all its seeds (its live
//! variables and the tracked cells): the dependence analysis carries a set
//! of seeds per variable, and the walk a vector of counts per statement.

use braid_budget::Budget;
use braid_ir::{natural_loops, successors, FuncId, Function, Module, Operand, Rhs, Stmt, StmtIdx, VarId};
use braid_term::{Op, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::rc::Rc;

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

/// A set of seed indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn one(i: usize) -> Bits {
        let mut b = Bits(vec![0; i / 64 + 1]);
        b.0[i / 64] |= 1 << (i % 64);
        b
    }

    /// Adds `other`; whether anything was new.
    fn union(&mut self, other: &Bits) -> bool {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let n = *a | *b;
            grew |= n != *a;
            *a = n;
        }
        grew
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(k, w)| (0..64).filter(move |i| w & (1 << i) != 0).map(move |i| k * 64 + i))
    }
}

/// Per statement (before it runs), the seeds each variable may carry a
/// dependence on: a forward, path-insensitive fixpoint over the statements
/// reachable from the origin, for all seeds at once.
struct Taint {
    at: Vec<FxHashMap<VarId, Bits>>,
    reachable: Vec<bool>,
}

impl Taint {
    fn of(&self, s: StmtIdx, o: &Operand) -> Option<&Bits> {
        match o {
            Operand::Var(x) => self.at[s as usize].get(x),
            Operand::Const(_) => None,
        }
    }
}

/// Statements of the taint fixpoint between two looks at the budget.
const BUDGET_EVERY: u32 = 256;

/// The analysis ran out of budget.
#[derive(Debug)]
pub struct OutOfBudget;

fn taint(
    f: &Function,
    facts: &[FxHashMap<VarId, Cell>],
    from: StmtIdx,
    seeds: &[Seed],
    budget: &Budget,
) -> Result<Taint, OutOfBudget> {
    let n = f.stmts.len();
    let mut at: Vec<FxHashMap<VarId, Bits>> = vec![FxHashMap::default(); n];
    let mut visited = vec![false; n];
    if n == 0 || from as usize >= n {
        return Ok(Taint { at, reachable: visited });
    }
    let cell_seed: FxHashMap<Cell, usize> = seeds
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Seed::Cell(c) => Some((*c, i)),
            Seed::Var(_) => None,
        })
        .collect();
    for (i, s) in seeds.iter().enumerate() {
        if let Seed::Var(v) = s {
            at[from as usize].entry(*v).or_default().union(&Bits::one(i));
        }
    }
    let mut work = vec![from];
    let mut steps = 0u32;
    while let Some(i) = work.pop() {
        steps += 1;
        if steps % BUDGET_EVERY == 0 && budget.stopped() {
            return Err(OutOfBudget);
        }
        visited[i as usize] = true;
        let mut out = at[i as usize].clone();
        let s = &f.stmts[i as usize];
        let dst = match s {
            Stmt::Assign { dst, .. } => Some(*dst),
            Stmt::Call { dst, .. } => *dst,
            _ => None,
        };
        if let Some(d) = dst {
            let mut carried = Bits::default();
            for o in s.operands() {
                if let Operand::Var(x) = o {
                    if let Some(b) = at[i as usize].get(x) {
                        carried.union(b);
                    }
                }
            }
            if matches!(
                s,
                Stmt::Assign {
                    rhs: Rhs::Load { .. },
                    ..
                }
            ) {
                if let Some(k) = accessed_cell(f, facts, i).and_then(|c| cell_seed.get(&c)) {
                    carried.union(&Bits::one(*k));
                }
            }
            if carried.is_empty() {
                out.remove(&d);
            } else {
                out.insert(d, carried);
            }
        }
        for s in successors(f, i) {
            let row = &mut at[s as usize];
            let mut grew = false;
            for (v, b) in &out {
                grew |= row.entry(*v).or_default().union(b);
            }
            if grew || !visited[s as usize] {
                visited[s as usize] = true;
                work.push(s);
            }
        }
    }
    Ok(Taint { at, reachable: visited })
}

/// Loop iteration counts: `(head, iterations done)`, sorted.
type Iters = Vec<(StmtIdx, u32)>;
/// `q` per (statement, iteration counts): `Q_t` first, then `Q_add` per seed.
type Memo = FxHashMap<(StmtIdx, Iters), Rc<[f64]>>;

/// A function's counts at its entry, for its callers (§3.2: a call adds the
/// callee's local counts).
#[derive(Default)]
struct Summary {
    /// Local `Q_t` at the entry.
    total: f64,
    /// Local `Q_add` of each parameter, and of each cell off a parameter.
    param_add: FxHashMap<VarId, f64>,
    cell_add: FxHashMap<Cell, f64>,
    /// The parameters, and cells off them, that an address depends on.
    addressed: FxHashSet<Seed>,
}

/// QCE's numbers at one location: `Q_t`, and per variable and tracked cell
/// `Q_add` and whether a later address depends on it.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub total: f64,
    /// Per variable of the function (dead ones: 0, not addressed).
    pub vars: Vec<(f64, bool)>,
    pub cells: Vec<(Cell, f64, bool)>,
}

pub struct Qce<'m> {
    module: &'m Module,
    pub params: QceParams,
    budget: Budget,
    shapes: Vec<Shape>,
    facts: Vec<Vec<FxHashMap<VarId, Cell>>>,
    /// Per function: the cells its loads (and its callees' loads through
    /// arguments) access.
    cells: Vec<Vec<Cell>>,
    /// Per function: live variables per statement (computed on demand).
    live: RefCell<FxHashMap<FuncId, Rc<Vec<Vec<bool>>>>>,
    summaries: RefCell<FxHashMap<FuncId, Rc<Summary>>>,
    /// Functions whose summary is being computed (recursion is cut there).
    active: RefCell<Vec<FuncId>>,
    counts: RefCell<FxHashMap<(FuncId, StmtIdx), Rc<Counts>>>,
}

impl<'m> Qce<'m> {
    /// Prepares the analysis; counts are computed per location on demand,
    /// and callee summaries as calls need them.
    pub fn new(module: &'m Module, params: QceParams) -> Qce<'m> {
        Qce::with_budget(module, params, Budget::unlimited())
    }

    /// [`Qce::new`] whose work stops when `budget` does.
    pub fn with_budget(module: &'m Module, params: QceParams, budget: Budget) -> Qce<'m> {
        let facts: Vec<_> = module.functions.iter().map(pointer_facts).collect();
        let mut qce = Qce {
            module,
            params,
            budget,
            shapes: module.functions.iter().map(shape).collect(),
            facts,
            cells: vec![Vec::new(); module.functions.len()],
            live: RefCell::default(),
            summaries: RefCell::default(),
            active: RefCell::default(),
            counts: RefCell::default(),
        };
        // Cells bottom-up over the call graph (a callee's loads through its
        // parameters are the caller's cells too).
        let mut done = vec![false; module.functions.len()];
        for i in 0..module.functions.len() {
            qce.find_cells_from(FuncId(i as u32), &mut done, &mut Vec::new());
        }
        qce
    }

    pub fn set_budget(&mut self, budget: &Budget) {
        self.budget = budget.clone();
    }

    fn find_cells_from(&mut self, g: FuncId, done: &mut [bool], active: &mut Vec<FuncId>) {
        if done[g.0 as usize] || active.contains(&g) {
            return;
        }
        active.push(g);
        for s in &self.module.func(g).stmts {
            if let Stmt::Call {
                callee: Operand::Const(Value::Func(h)),
                ..
            } = s
            {
                self.find_cells_from(FuncId(*h), done, active);
            }
        }
        active.pop();
        self.cells[g.0 as usize] = self.find_cells(g);
        done[g.0 as usize] = true;
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

    fn live(&self, g: FuncId) -> Rc<Vec<Vec<bool>>> {
        self.live
            .borrow_mut()
            .entry(g)
            .or_insert_with(|| Rc::new(braid_ir::live_variables(self.module.func(g))))
            .clone()
    }

    /// `g`'s counts at its entry, for its callers; recursion is cut (a
    /// recursive call counts nothing), as is a stopped analysis.
    fn summary(&self, g: FuncId) -> Result<Rc<Summary>, OutOfBudget> {
        if let Some(s) = self.summaries.borrow().get(&g) {
            return Ok(s.clone());
        }
        if self.active.borrow().contains(&g) {
            return Ok(Rc::default());
        }
        self.active.borrow_mut().push(g);
        let f = self.module.func(g);
        let params: FxHashSet<VarId> = f.params.iter().map(|p| p.var).collect();
        let mut seeds: Vec<Seed> = f.params.iter().map(|p| Seed::Var(p.var)).collect();
        seeds.extend(
            self.cells[g.0 as usize]
                .iter()
                .filter(|c| params.contains(&c.0))
                .map(|c| Seed::Cell(*c)),
        );
        let computed = self.analyse(g, 0, &seeds);
        self.active.borrow_mut().retain(|h| *h != g);
        let (q, addressed) = computed?;
        let mut sum = Summary {
            total: q[0],
            ..Summary::default()
        };
        for (i, seed) in seeds.iter().enumerate() {
            match seed {
                Seed::Var(v) => {
                    sum.param_add.insert(*v, q[i + 1]);
                }
                Seed::Cell(c) => {
                    sum.cell_add.insert(*c, q[i + 1]);
                }
            }
            if addressed.contains(&i) {
                sum.addressed.insert(*seed);
            }
        }
        let sum = Rc::new(sum);
        self.summaries.borrow_mut().insert(g, sum.clone());
        Ok(sum)
    }

    /// `q` (equation 3) for `Q_t` and every seed's `Q_add` at `at`, and the
    /// seeds a later address depends on.
    fn analyse(&self, g: FuncId, at: StmtIdx, seeds: &[Seed]) -> Result<(Rc<[f64]>, FxHashSet<usize>), OutOfBudget> {
        let f = self.module.func(g);
        let facts = &self.facts[g.0 as usize];
        let t = taint(f, facts, at, seeds, &self.budget)?;
        let mut memo = Memo::default();
        let walk = Walk {
            qce: self,
            g,
            seeds,
            taint: &t,
            steps: Cell0::default(),
        };
        let q = walk.walk(at, &mut Vec::new(), &mut memo)?;
        let addressed = self.addressed_seeds(g, seeds, &t)?;
        Ok((q, addressed))
    }

    /// The seeds on which an address of a load or store reachable from the
    /// taint's origin (in `g` or its callees) may depend.
    fn addressed_seeds(&self, g: FuncId, seeds: &[Seed], t: &Taint) -> Result<FxHashSet<usize>, OutOfBudget> {
        let f = self.module.func(g);
        let facts = &self.facts[g.0 as usize];
        let mut out = Bits::default();
        for (i, s) in f.stmts.iter().enumerate() {
            if !t.reachable[i] {
                continue;
            }
            let i = i as StmtIdx;
            match s {
                Stmt::Assign {
                    rhs: Rhs::Load { addr, .. },
                    ..
                }
                | Stmt::Store { addr, .. } => {
                    if let Some(b) = t.of(i, addr) {
                        out.union(b);
                    }
                }
                Stmt::Call {
                    callee: Operand::Const(Value::Func(h)),
                    args,
                    ..
                } => {
                    let h = FuncId(*h);
                    let callee = self.summary(h)?;
                    for (p, a) in self.module.func(h).params.iter().zip(args) {
                        if callee.addressed.contains(&Seed::Var(p.var)) {
                            if let Some(b) = t.of(i, a) {
                                out.union(b);
                            }
                        }
                        let Operand::Var(x) = a else { continue };
                        let (xb, k0) = facts[i as usize].get(x).copied().unwrap_or((*x, 0));
                        for (k, seed) in seeds.iter().enumerate() {
                            if let Seed::Cell((b, off)) = seed {
                                let by_cell = *b == xb
                                    && off
                                        .checked_sub(k0)
                                        .is_some_and(|off| callee.addressed.contains(&Seed::Cell((p.var, off))));
                                if by_cell {
                                    out.union(&Bits::one(k));
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(out.iter().collect())
    }

    /// All counts at `at` in `g` (cached), or `None` once the budget stops
    /// the analysis.
    pub fn counts(&self, g: FuncId, at: StmtIdx) -> Option<Rc<Counts>> {
        if let Some(c) = self.counts.borrow().get(&(g, at)) {
            return Some(c.clone());
        }
        let f = self.module.func(g);
        let live = self.live(g);
        let row = live.get(at as usize).or(live.last());
        let mut seeds: Vec<Seed> = (0..f.vars.len() as u32)
            .map(VarId)
            .filter(|v| row.is_some_and(|r| r[v.0 as usize]))
            .map(Seed::Var)
            .collect();
        seeds.extend(self.cells[g.0 as usize].iter().map(|c| Seed::Cell(*c)));
        let (q, addressed) = self.analyse(g, at, &seeds).ok()?;
        let mut c = Counts {
            total: q[0],
            vars: vec![(0.0, false); f.vars.len()],
            cells: Vec::new(),
        };
        for (i, seed) in seeds.iter().enumerate() {
            let entry = (q[i + 1], addressed.contains(&i));
            match seed {
                Seed::Var(v) => c.vars[v.0 as usize] = entry,
                Seed::Cell(cell) => c.cells.push((*cell, entry.0, entry.1)),
            }
        }
        let c = Rc::new(c);
        self.counts.borrow_mut().insert((g, at), c.clone());
        Some(c)
    }

    /// The cells tracked in `g` (loaded by it or its callees).
    pub fn cells(&self, g: FuncId) -> &[Cell] {
        &self.cells[g.0 as usize]
    }

    fn counts_or_zero(&self, g: FuncId, at: StmtIdx) -> Rc<Counts> {
        self.counts(g, at).unwrap_or_default()
    }

    /// `Q_add(ℓ, *(base + k))`.
    pub fn cell_added(&self, g: FuncId, at: StmtIdx, cell: Cell) -> f64 {
        let c = self.counts_or_zero(g, at);
        c.cells.iter().find(|x| x.0 == cell).map_or(0.0, |x| x.1)
    }

    /// Whether a later address may depend on `v` as it is at `at`.
    pub fn addressed(&self, g: FuncId, at: StmtIdx, v: VarId) -> bool {
        self.counts_or_zero(g, at).vars.get(v.0 as usize).is_some_and(|x| x.1)
    }

    /// Whether a later address may depend on the cell as it is at `at`.
    pub fn cell_addressed(&self, g: FuncId, at: StmtIdx, cell: Cell) -> bool {
        let c = self.counts_or_zero(g, at);
        c.cells.iter().any(|x| x.0 == cell && x.2)
    }

    /// `Q_t(ℓ)`: the estimated number of queries after reaching `ℓ`.
    pub fn total(&self, g: FuncId, at: StmtIdx) -> f64 {
        self.counts_or_zero(g, at).total
    }

    /// `Q_add(ℓ, v)`: the estimated number of those that depend on `v`.
    pub fn added(&self, g: FuncId, at: StmtIdx, v: VarId) -> f64 {
        self.counts_or_zero(g, at).vars.get(v.0 as usize).map_or(0.0, |x| x.0)
    }

    /// `H(ℓ)`: the hot variables at `ℓ`.
    pub fn hot(&self, g: FuncId, at: StmtIdx) -> Vec<VarId> {
        let c = self.counts_or_zero(g, at);
        let threshold = self.params.alpha * c.total;
        (0..c.vars.len() as u32)
            .map(VarId)
            .filter(|v| c.vars[v.0 as usize].0 > threshold)
            .collect()
    }
}

type Cell0 = std::cell::Cell<u32>;

/// Equation (3) for `Q_t` and every seed at once, over `g`'s CFG unrolled
/// `κ` times, memoised per (statement, loop iteration counts).
struct Walk<'a, 'm> {
    qce: &'a Qce<'m>,
    g: FuncId,
    seeds: &'a [Seed],
    taint: &'a Taint,
    /// Statements walked, for looking at the budget now and then.
    steps: Cell0,
}

impl Walk<'_, '_> {
    fn walk(&self, at: StmtIdx, iters: &mut Iters, memo: &mut Memo) -> Result<Rc<[f64]>, OutOfBudget> {
        let f = self.qce.module.func(self.g);
        let width = self.seeds.len() + 1;
        let Some(stmt) = f.stmts.get(at as usize) else {
            return Ok(vec![0.0; width].into());
        };
        let key = (at, iters.clone());
        if let Some(v) = memo.get(&key) {
            return Ok(v.clone());
        }
        self.steps.set(self.steps.get() + 1);
        if self.steps.get() % BUDGET_EVERY == 0 && self.qce.budget.stopped() {
            return Err(OutOfBudget);
        }
        let mut sum = self.here(at, stmt)?;
        let weight = if matches!(stmt, Stmt::If { .. }) {
            self.qce.params.beta
        } else {
            1.0
        };
        for s in successors(f, at) {
            let next = self.follow(at, s, iters, memo)?;
            for (a, b) in sum.iter_mut().zip(next.iter()) {
                *a += weight * b;
            }
        }
        let sum: Rc<[f64]> = sum.into();
        memo.insert(key, sum.clone());
        Ok(sum)
    }

    /// What statement `at` itself adds: a branch counts for `Q_t` and for the
    /// seeds its condition depends on; a call adds the callee's counts.
    fn here(&self, at: StmtIdx, stmt: &Stmt) -> Result<Vec<f64>, OutOfBudget> {
        let mut out = vec![0.0; self.seeds.len() + 1];
        match stmt {
            Stmt::If { cond, .. } => {
                out[0] = 1.0;
                if let Some(b) = self.taint.of(at, cond) {
                    for k in b.iter() {
                        out[k + 1] = 1.0;
                    }
                }
            }
            Stmt::Call {
                callee: Operand::Const(Value::Func(h)),
                args,
                ..
            } => {
                let h = FuncId(*h);
                let callee = self.qce.summary(h)?;
                out[0] = callee.total;
                let facts = &self.qce.facts[self.g.0 as usize][at as usize];
                for (p, a) in self.qce.module.func(h).params.iter().zip(args) {
                    let Operand::Var(x) = a else { continue };
                    let by_value = callee.param_add.get(&p.var).copied().unwrap_or(0.0);
                    if let Some(b) = self.taint.of(at, a) {
                        for k in b.iter() {
                            out[k + 1] += by_value;
                        }
                    }
                    let (xb, k0) = facts.get(x).copied().unwrap_or((*x, 0));
                    for (k, seed) in self.seeds.iter().enumerate() {
                        if let Seed::Cell((b, off)) = seed {
                            if *b == xb {
                                if let Some(off) = off.checked_sub(k0) {
                                    out[k + 1] += callee.cell_add.get(&(p.var, off)).copied().unwrap_or(0.0);
                                }
                            }
                        }
                    }
                }
                for v in &mut out[1..] {
                    *v = v.min(callee.total);
                }
            }
            _ => {}
        }
        Ok(out)
    }

    /// Follows the edge `from → to`, unrolling loops `κ` times.
    fn follow(&self, from: StmtIdx, to: StmtIdx, iters: &mut Iters, memo: &mut Memo) -> Result<Rc<[f64]>, OutOfBudget> {
        let shape = &self.qce.shapes[self.g.0 as usize];
        if shape.back.contains(&(from, to)) {
            let done = iters.iter().find(|(h, _)| *h == to).map_or(0, |(_, n)| *n) + 1;
            let Some(lp) = shape.loops.iter().find(|l| l.head == to) else {
                return Ok(vec![0.0; self.seeds.len() + 1].into());
            };
            if done >= self.qce.params.kappa {
                // Unrolled enough: continue where the loop is left.
                let saved = iters.clone();
                iters.retain(|(h, _)| *h != to);
                let r = match lp.exit {
                    Some(e) => self.follow_forward(e, iters, memo),
                    None => Ok(vec![0.0; self.seeds.len() + 1].into()),
                };
                *iters = saved;
                return r;
            }
            let saved = iters.clone();
            iters.retain(|(h, _)| *h != to);
            iters.push((to, done));
            iters.sort_unstable();
            let r = self.walk(to, iters, memo);
            *iters = saved;
            return r;
        }
        self.follow_forward(to, iters, memo)
    }

    /// A forward arrival: entering a loop afresh resets its iteration count,
    /// leaving loops forgets theirs.
    fn follow_forward(&self, to: StmtIdx, iters: &mut Iters, memo: &mut Memo) -> Result<Rc<[f64]>, OutOfBudget> {
        let shape = &self.qce.shapes[self.g.0 as usize];
        let saved = iters.clone();
        iters.retain(|(h, _)| *h != to && shape.loops.iter().any(|l| l.head == *h && l.body.contains(&to)));
        let r = self.walk(to, iters, memo);
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
