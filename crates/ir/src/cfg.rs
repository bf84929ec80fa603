//! Control-flow utilities over one function's statements.

use crate::{Function, Operand, Stmt, StmtIdx};
use braid_term::Value;

/// Labels whose value is taken other than as a direct jump target: a
/// computed jump may go to any of them.
fn address_taken(f: &Function) -> Vec<StmtIdx> {
    let mut out = Vec::new();
    for s in &f.stmts {
        let direct = match s {
            Stmt::If { target, .. } | Stmt::Goto(target) => Some(target),
            _ => None,
        };
        let mut visit = |o: &Operand| {
            if let Operand::Const(Value::Label { label, .. }) = o {
                if direct != Some(o) {
                    out.extend(f.label_target(*label));
                }
            }
        };
        match s {
            Stmt::Assign {
                rhs: crate::Rhs::Copy(a),
                ..
            } => visit(a),
            Stmt::Assign {
                rhs: crate::Rhs::Select(_, a, b),
                ..
            } => {
                visit(a);
                visit(b);
            }
            Stmt::Store { value, .. } => visit(value),
            Stmt::Call { args, .. } => args.iter().for_each(&mut visit),
            Stmt::Ret(Some(v)) => visit(v),
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The statements control may reach right after statement `i`.
pub fn successors(f: &Function, i: StmtIdx) -> Vec<StmtIdx> {
    successors_with(f, i, || address_taken(f))
}

/// [`successors`], with `taken` giving a computed jump's targets (the
/// labels whose address is taken), so a caller can find them once.
fn successors_with(f: &Function, i: StmtIdx, taken: impl FnOnce() -> Vec<StmtIdx>) -> Vec<StmtIdx> {
    let next = || (i + 1 < f.stmts.len() as u32).then_some(i + 1);
    let jump_targets = |target: &Operand| match target {
        Operand::Const(Value::Label { label, .. }) => f.label_target(*label).into_iter().collect(),
        _ => taken(),
    };
    match &f.stmts[i as usize] {
        Stmt::If { target, .. } => {
            let mut out = jump_targets(target);
            out.extend(next());
            out.sort_unstable();
            out.dedup();
            out
        }
        Stmt::Goto(target) => jump_targets(target),
        Stmt::Ret(_) | Stmt::Error(_) | Stmt::Halt(_) => vec![],
        _ => next().into_iter().collect(),
    }
}

/// Statements in reverse post-order from the entry (unreachable ones last,
/// in index order): a topological order of the CFG without back edges.
pub fn reverse_post_order(f: &Function) -> Vec<StmtIdx> {
    let n = f.stmts.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n > 0 {
        let mut stack: Vec<(StmtIdx, Vec<StmtIdx>)> = vec![(0, successors(f, 0))];
        seen[0] = true;
        while let Some((node, succs)) = stack.last_mut() {
            if let Some(s) = succs.pop() {
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    let ss = successors(f, s);
                    stack.push((s, ss));
                }
            } else {
                post.push(*node);
                stack.pop();
            }
        }
    }
    post.reverse();
    post.extend((0..n as u32).filter(|i| !seen[*i as usize]));
    post
}

/// A natural loop: its head (the target of edges that go back in reverse
/// post-order), the sources of those back edges, and its body: the
/// statements that reach a back edge's source without passing the head.
pub struct NaturalLoop {
    pub head: StmtIdx,
    pub back_from: Vec<StmtIdx>,
    /// Per statement, whether it is in the loop (the head is).
    pub body: Vec<bool>,
}

/// The natural loops of `f`, one per head, ordered by head, with `rank`: each
/// statement's position in reverse post-order.
pub fn natural_loops(f: &Function) -> (Vec<NaturalLoop>, Vec<usize>) {
    let n = f.stmts.len();
    let mut rank = vec![0usize; n];
    for (i, s) in reverse_post_order(f).iter().enumerate() {
        rank[*s as usize] = i;
    }
    let mut preds: Vec<Vec<StmtIdx>> = vec![Vec::new(); n];
    let mut back: Vec<(StmtIdx, StmtIdx)> = Vec::new();
    for i in 0..n as StmtIdx {
        for s in successors(f, i) {
            preds[s as usize].push(i);
            if rank[s as usize] <= rank[i as usize] {
                back.push((i, s));
            }
        }
    }
    let mut heads: Vec<StmtIdx> = back.iter().map(|(_, h)| *h).collect();
    heads.sort_unstable();
    heads.dedup();
    let loops = heads
        .into_iter()
        .map(|head| {
            let back_from: Vec<StmtIdx> = back.iter().filter(|(_, h)| *h == head).map(|(s, _)| *s).collect();
            let mut body = vec![false; n];
            body[head as usize] = true;
            let mut work = back_from.clone();
            while let Some(x) = work.pop() {
                if !body[x as usize] {
                    body[x as usize] = true;
                    work.extend(preds[x as usize].iter().copied());
                }
            }
            NaturalLoop { head, back_from, body }
        })
        .collect();
    (loops, rank)
}

/// For each statement, whether it is a loop head. Loop bounds count
/// arrivals at these.
pub fn loop_heads(f: &Function) -> Vec<bool> {
    let mut heads = vec![false; f.stmts.len()];
    for l in natural_loops(f).0 {
        heads[l.head as usize] = true;
    }
    heads
}

/// A function's basic blocks: maximal runs of statements entered at the
/// first and left at the last.
pub struct Blocks {
    /// Per statement, its block.
    pub block_of: Vec<u32>,
    /// Per block, its first and last statements and the blocks that may
    /// follow it.
    pub first: Vec<StmtIdx>,
    pub last: Vec<StmtIdx>,
    pub next: Vec<Vec<u32>>,
}

impl Blocks {
    pub fn new(f: &Function) -> Blocks {
        let n = f.stmts.len();
        // Successors, with the computed jumps' targets found once.
        let mut taken: Option<Vec<StmtIdx>> = None;
        let succ: Vec<Vec<StmtIdx>> = (0..n as StmtIdx)
            .map(|i| successors_with(f, i, || taken.get_or_insert_with(|| address_taken(f)).clone()))
            .collect();
        // A block starts at the entry, at a jump's target and after a
        // statement that does not fall through to the next alone.
        let mut leader = vec![false; n];
        if n > 0 {
            leader[0] = true;
        }
        for (i, ss) in succ.iter().enumerate() {
            let plain = ss.len() == 1 && ss[0] as usize == i + 1;
            if !plain && i + 1 < n {
                leader[i + 1] = true;
            }
            for &t in ss {
                if t as usize != i + 1 {
                    leader[t as usize] = true;
                }
            }
        }
        let mut block_of = vec![0u32; n];
        let (mut first, mut last): (Vec<StmtIdx>, Vec<StmtIdx>) = (Vec::new(), Vec::new());
        for i in 0..n {
            if leader[i] {
                first.push(i as StmtIdx);
                last.push(i as StmtIdx);
            }
            let b = last.len() - 1;
            block_of[i] = b as u32;
            last[b] = i as StmtIdx;
        }
        let next = last
            .iter()
            .map(|&l| succ[l as usize].iter().map(|&t| block_of[t as usize]).collect())
            .collect();
        Blocks {
            block_of,
            first,
            last,
            next,
        }
    }

    pub fn len(&self) -> usize {
        self.first.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

/// Live variables: per statement, which variables may be read (before
/// being assigned) from there on; past the last statement, none.
///
/// Kept per basic block (a bit set of the variables live into it), and a
/// statement's row is made when first asked for, from its block's end. A
/// table of every statement's row is `statements × variables` booleans:
/// 800 MB for one large parser function (http-parser's
/// `http_parser_execute`), made before the first step.
pub struct Liveness {
    vars: usize,
    blocks: Blocks,
    /// Per block, the variables live at its first statement.
    live_in: Vec<LiveSet>,
    /// Per statement, the variable it assigns and those it reads.
    def: Vec<Option<u32>>,
    uses: Vec<Vec<u32>>,
    rows: Vec<std::cell::OnceCell<LiveSet>>,
}

/// The variables live at one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSet(std::rc::Rc<[u64]>);

impl FromIterator<bool> for LiveSet {
    fn from_iter<I: IntoIterator<Item = bool>>(bits: I) -> LiveSet {
        let mut words = Vec::new();
        for (v, live) in bits.into_iter().enumerate() {
            if v % 64 == 0 {
                words.push(0u64);
            }
            words[v / 64] |= (live as u64) << (v % 64);
        }
        LiveSet(words.into())
    }
}

impl LiveSet {
    pub fn contains(&self, v: usize) -> bool {
        self.0.get(v / 64).is_some_and(|w| w >> (v % 64) & 1 == 1)
    }
}

impl Liveness {
    pub fn new(f: &Function) -> Liveness {
        let n = f.stmts.len();
        let vars = f.vars.len();
        let (def, uses): (Vec<Option<u32>>, Vec<Vec<u32>>) = f
            .stmts
            .iter()
            .map(|stmt| {
                let def = match stmt {
                    Stmt::Assign { dst, .. } => Some(dst.0),
                    Stmt::Call { dst, .. } => dst.map(|d| d.0),
                    _ => None,
                };
                let uses = stmt
                    .operands()
                    .into_iter()
                    .filter_map(|o| match o {
                        Operand::Var(v) => Some(v.0),
                        _ => None,
                    })
                    .collect();
                (def, uses)
            })
            .unzip();
        let blocks = Blocks::new(f);
        let mut me = Liveness {
            vars,
            live_in: vec![LiveSet(vec![0u64; vars.div_ceil(64)].into()); blocks.len()],
            blocks,
            def,
            uses,
            rows: (0..n).map(|_| std::cell::OnceCell::new()).collect(),
        };
        // Round-robin to the fixed point, last block first.
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..me.blocks.len()).rev() {
                let mut set = me.live_out(b);
                me.step_back(&mut set, me.blocks.last[b], me.blocks.first[b]);
                if *set != *me.live_in[b].0 {
                    me.live_in[b] = LiveSet(set.into());
                    changed = true;
                }
            }
        }
        me
    }

    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// The variables live at the first statement of block `b`.
    pub fn live_in(&self, b: usize) -> LiveSet {
        self.live_in[b].clone()
    }

    /// The variables live after block `b`'s last statement.
    fn live_out(&self, b: usize) -> Vec<u64> {
        let mut set = vec![0u64; self.vars.div_ceil(64)];
        for &t in &self.blocks.next[b] {
            for (w, x) in set.iter_mut().zip(self.live_in[t as usize].0.iter()) {
                *w |= *x;
            }
        }
        set
    }

    /// `set` (live after `from`) taken back through statements `from` down
    /// to `to`: live before `to`.
    fn step_back(&self, set: &mut [u64], from: StmtIdx, to: StmtIdx) {
        for i in (to..=from).rev() {
            if let Some(d) = self.def[i as usize] {
                set[d as usize / 64] &= !(1u64 << (d % 64));
            }
            for &u in &self.uses[i as usize] {
                set[u as usize / 64] |= 1u64 << (u % 64);
            }
        }
    }

    /// The variables live at statement `at` (none past the last).
    pub fn at(&self, at: StmtIdx) -> LiveSet {
        let Some(row) = self.rows.get(at as usize) else {
            return LiveSet(Vec::new().into());
        };
        row.get_or_init(|| {
            let b = self.blocks.block_of[at as usize] as usize;
            let mut set = self.live_out(b);
            self.step_back(&mut set, self.blocks.last[b], at);
            LiveSet(set.into())
        })
        .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Liveness over blocks, rows made on demand, is the per-statement
    /// fixed point: on random programs (branches, loops, memory, calls).
    #[test]
    fn block_liveness_is_the_per_statement_fixed_point() {
        let programs = (0..40u64).flat_map(|seed| {
            [
                crate::generate::random_program(seed),
                crate::generate::random_memory_program(seed),
                crate::generate::random_loop_program(seed),
            ]
        });
        // A computed jump may go to any label whose address is taken.
        let computed = "fn main(x) {\n    a = 1\n    t = &B\n    c = x < 3\n    if c goto S\n    t = &C\nS:  b = a + x\n    goto t\nB:  ret b\nC:  d = a + b\n    ret d\n}\n";
        for src in programs.chain([computed.to_string()]) {
            let m = crate::parse("random.bir", &src).expect("parses");
            for f in &m.functions {
                let want = per_statement(f);
                let live = Liveness::new(f);
                for (i, row) in want.iter().enumerate() {
                    let got = live.at(i as StmtIdx);
                    let got: Vec<bool> = (0..f.vars.len()).map(|v| got.contains(v)).collect();
                    assert_eq!(&got, row, "{} at {i}:\n{src}", f.name);
                }
            }
        }
    }

    /// The fixed point statement by statement, a row of booleans each.
    fn per_statement(f: &Function) -> Vec<Vec<bool>> {
        let n = f.stmts.len();
        let mut live = vec![vec![false; f.vars.len()]; n + 1];
        let mut changed = true;
        while changed {
            changed = false;
            for i in (0..n).rev() {
                let mut row = vec![false; f.vars.len()];
                for s in successors(f, i as StmtIdx) {
                    for (r, l) in row.iter_mut().zip(&live[s as usize]) {
                        *r |= *l;
                    }
                }
                let stmt = &f.stmts[i];
                let def = match stmt {
                    Stmt::Assign { dst, .. } => Some(*dst),
                    Stmt::Call { dst, .. } => *dst,
                    _ => None,
                };
                if let Some(d) = def {
                    row[d.0 as usize] = false;
                }
                for o in stmt.operands() {
                    if let Operand::Var(v) = o {
                        row[v.0 as usize] = true;
                    }
                }
                if row != live[i] {
                    live[i] = row;
                    changed = true;
                }
            }
        }
        live
    }
}
