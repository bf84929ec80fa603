//! Static checks after parsing: every used variable is assigned somewhere,
//! direct calls pass the right number of arguments, and no operation is
//! ill-typed on every combination of the sorts its operands can have.
//!
//! Values are typed per value, so sorts are inferred flow-insensitively as a
//! set per variable; only operations that can never succeed are rejected.

use crate::{Function, Module, Operand, Rhs, Span, Stmt};
use braid_term::{Op, Sort, Value};
use std::collections::BTreeSet;

/// `None` means "any sort" (a parameter, a load, a call result).
type Sorts = Option<BTreeSet<Sort>>;

fn promote(op: Op, a: Sort, b: Sort) -> (Sort, Sort) {
    if !op.promotes_numbers() {
        return (a, b);
    }
    match (a, b) {
        (Sort::Int, f) if f.is_float() => (f, f),
        (f, Sort::Int) if f.is_float() => (f, f),
        _ => (a, b),
    }
}

fn result(op: Op, args: &[Sort]) -> Option<Sort> {
    if matches!(op, Op::Eq | Op::Ne) {
        return Some(Sort::Bool);
    }
    let args: Vec<Sort> = match args {
        [a, b] => {
            let (a, b) = promote(op, *a, *b);
            vec![a, b]
        }
        _ => args.to_vec(),
    };
    op.result_sort(&args).ok()
}

/// All results of `op` over every combination of operand sorts; `Err` lists
/// the operand sorts when no combination is well-typed.
fn apply(op: Op, sets: &[Sorts]) -> Result<Sorts, String> {
    let Some(known) = sets.iter().cloned().collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    if known.iter().any(|s| s.is_empty()) {
        return Ok(Some(BTreeSet::new()));
    }
    let mut combos: Vec<Vec<Sort>> = vec![vec![]];
    for set in &known {
        combos = combos
            .iter()
            .flat_map(|c| set.iter().map(move |s| [c.clone(), vec![*s]].concat()))
            .collect();
    }
    let out: BTreeSet<Sort> = combos.iter().filter_map(|c| result(op, c)).collect();
    if out.is_empty() {
        let shown: Vec<String> = known
            .iter()
            .map(|s| s.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("|"))
            .collect();
        return Err(format!(
            "type mismatch: `{}` does not apply to ({})",
            op.symbol(),
            shown.join(", ")
        ));
    }
    Ok(Some(out))
}

struct Checker<'a> {
    m: &'a Module,
    f: &'a Function,
    sorts: Vec<Sorts>,
}

impl Checker<'_> {
    fn of(&self, o: &Operand) -> Sorts {
        match o {
            Operand::Var(v) => self.sorts[v.0 as usize].clone(),
            Operand::Const(c) => Some([c.sort()].into()),
        }
    }

    fn rhs_sorts(&self, r: &Rhs) -> Result<Sorts, String> {
        match r {
            Rhs::Copy(a) => Ok(self.of(a)),
            Rhs::Input { sort, .. } => Ok(Some([*sort].into())),
            Rhs::Unary(op, a) => apply(*op, &[self.of(a)]),
            Rhs::Binary(op, a, b) => apply(*op, &[self.of(a), self.of(b)]),
            Rhs::Select(c, a, b) => {
                apply(Op::And, &[self.of(c), Some([Sort::Bool].into())])?;
                Ok(match (self.of(a), self.of(b)) {
                    (Some(x), Some(y)) => Some(x.union(&y).copied().collect()),
                    _ => None,
                })
            }
            Rhs::Load { width: Some(w), addr } => {
                self.expect(addr, &[Sort::Addr], "an address")?;
                Ok(Some([Sort::Bv(*w)].into()))
            }
            Rhs::Load { addr, .. } => {
                self.expect(addr, &[Sort::Addr], "an address")?;
                Ok(None)
            }
            Rhs::Alloc(n, _) => {
                self.expect(n, &[Sort::Int, Sort::Bv(32), Sort::Bv(64)], "a size")?;
                Ok(Some([Sort::Addr].into()))
            }
        }
    }

    fn expect(&self, o: &Operand, allowed: &[Sort], what: &str) -> Result<(), String> {
        match self.of(o) {
            Some(s)
                if !s.is_empty()
                    && !s.iter().any(|x| {
                        allowed.contains(x) || matches!((x, allowed.first()), (Sort::Bv(_), Some(Sort::Int)))
                    }) =>
            {
                let shown: Vec<String> = s.iter().map(|x| x.to_string()).collect();
                Err(format!("type mismatch: expected {what}, found {}", shown.join("|")))
            }
            _ => Ok(()),
        }
    }

    fn infer(&mut self) {
        for p in &self.f.params {
            self.sorts[p.var.0 as usize] = p.sort.map(|s| [s].into());
        }
        let mut changed = true;
        while changed {
            changed = false;
            for s in &self.f.stmts {
                let (dst, new) = match s {
                    Stmt::Assign { dst, rhs } => (*dst, self.rhs_sorts(rhs).unwrap_or(Some(BTreeSet::new()))),
                    Stmt::Call { dst: Some(d), .. } => (*d, None),
                    _ => continue,
                };
                let slot = &mut self.sorts[dst.0 as usize];
                let merged = match (slot.as_ref(), new) {
                    (None, _) | (_, None) => None,
                    (Some(a), Some(b)) => Some(a.union(&b).copied().collect()),
                };
                if merged != *slot {
                    *slot = merged;
                    changed = true;
                }
            }
        }
    }

    fn check_stmt(&self, s: &Stmt) -> Result<(), String> {
        match s {
            Stmt::Assign { rhs, .. } => self.rhs_sorts(rhs).map(|_| ()),
            Stmt::Store { addr, value, width } => {
                self.expect(addr, &[Sort::Addr], "an address")?;
                match width {
                    Some(w) => self.expect(value, &[Sort::Bv(*w)], &format!("a bv{w} value")),
                    None => Ok(()),
                }
            }
            Stmt::If { cond, target } => {
                self.expect(cond, &[Sort::Bool], "a bool condition")?;
                self.expect(target, &[Sort::Label], "a label")
            }
            Stmt::Goto(t) => self.expect(t, &[Sort::Label], "a label"),
            Stmt::Assume(c) | Stmt::Assert(c) => self.expect(c, &[Sort::Bool], "a bool condition"),
            Stmt::Call { callee, args, .. } => {
                self.expect(callee, &[Sort::Func], "a function")?;
                if let Operand::Const(Value::Func(g)) = callee {
                    let g = &self.m.functions[*g as usize];
                    if g.params.len() != args.len() {
                        return Err(format!(
                            "function `{}` takes {} argument(s), given {}",
                            g.name,
                            g.params.len(),
                            args.len()
                        ));
                    }
                }
                Ok(())
            }
            Stmt::Halt(Some(code)) => self.expect(code, &[Sort::Int, Sort::Bv(32)], "an integer exit code"),
            Stmt::Output { stream, byte } => {
                self.expect(stream, &[Sort::Bv(32)], "a bv32 stream")?;
                self.expect(byte, &[Sort::Bv(8)], "a bv8 byte")
            }
            Stmt::Grow { addr, cells, .. } => {
                self.expect(addr, &[Sort::Addr], "an address")?;
                self.expect(cells, &[Sort::Int], "a cell count")
            }
            Stmt::Ret(_) | Stmt::Error(_) | Stmt::Halt(None) => Ok(()),
        }
    }
}

pub fn check(m: &Module) -> Result<(), (Span, String)> {
    for f in &m.functions {
        let mut assigned = vec![false; f.vars.len()];
        for p in &f.params {
            assigned[p.var.0 as usize] = true;
        }
        for s in &f.stmts {
            if let Stmt::Assign { dst, .. } | Stmt::Call { dst: Some(dst), .. } = s {
                assigned[dst.0 as usize] = true;
            }
        }
        for (i, s) in f.stmts.iter().enumerate() {
            for o in s.operands() {
                if let Operand::Var(v) = o {
                    if !assigned[v.0 as usize] {
                        return Err((
                            f.spans[i],
                            format!("variable `{}` is never assigned", f.vars[v.0 as usize]),
                        ));
                    }
                }
            }
        }
        let mut c = Checker {
            m,
            f,
            sorts: vec![Some(BTreeSet::new()); f.vars.len()],
        };
        c.infer();
        for (i, s) in f.stmts.iter().enumerate() {
            c.check_stmt(s).map_err(|e| (f.spans[i], e))?;
        }
    }
    Ok(())
}
