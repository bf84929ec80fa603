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

fn jump_targets(f: &Function, target: &Operand) -> Vec<StmtIdx> {
    match target {
        Operand::Const(Value::Label { label, .. }) => f.label_target(*label).into_iter().collect(),
        _ => address_taken(f),
    }
}

/// The statements control may reach right after statement `i`.
pub fn successors(f: &Function, i: StmtIdx) -> Vec<StmtIdx> {
    let next = || (i + 1 < f.stmts.len() as u32).then_some(i + 1);
    match &f.stmts[i as usize] {
        Stmt::If { target, .. } => {
            let mut out = jump_targets(f, target);
            out.extend(next());
            out.sort_unstable();
            out.dedup();
            out
        }
        Stmt::Goto(target) => jump_targets(f, target),
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

/// Live variables: per statement, which variables may be read (before
/// being assigned) from there on. Indexed `[statement][variable]`; one more
/// row for the end of the function, where nothing is live.
pub fn live_variables(f: &Function) -> Vec<Vec<bool>> {
    let n = f.stmts.len();
    let vars = f.vars.len();
    let mut live = vec![vec![false; vars]; n + 1];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut row = vec![false; vars];
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
