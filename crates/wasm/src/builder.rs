//! Building one IR function statement by statement: variables by name,
//! labels placed after they are referenced, and each statement's source
//! span (the byte offset of the instruction it comes from).

use braid_ir::{FuncId, Function, Operand, Param, Rhs, Span, Stmt, StmtIdx, VarId};
use braid_term::{Op, Sort, Value};
use rustc_hash::FxHashMap;

/// A label not placed yet.
const UNPLACED: StmtIdx = StmtIdx::MAX;

pub struct FnBuilder {
    pub id: FuncId,
    name: String,
    params: Vec<Param>,
    vars: Vec<String>,
    by_name: FxHashMap<String, VarId>,
    stmts: Vec<Stmt>,
    spans: Vec<Span>,
    labels: Vec<(String, StmtIdx)>,
    /// The byte offset given to the statements emitted next.
    pub offset: u32,
    fresh: u32,
}

impl FnBuilder {
    pub fn new(id: FuncId, name: &str) -> FnBuilder {
        FnBuilder {
            id,
            name: name.to_string(),
            params: Vec::new(),
            vars: Vec::new(),
            by_name: FxHashMap::default(),
            stmts: Vec::new(),
            spans: Vec::new(),
            labels: Vec::new(),
            offset: 0,
            fresh: 0,
        }
    }

    /// The variable called `name`, created on first use.
    pub fn var(&mut self, name: &str) -> VarId {
        if let Some(v) = self.by_name.get(name) {
            return *v;
        }
        let v = VarId(self.vars.len() as u32);
        self.vars.push(name.to_string());
        self.by_name.insert(name.to_string(), v);
        v
    }

    /// A new temporary variable.
    pub fn temp(&mut self) -> VarId {
        self.fresh += 1;
        let name = format!("t{}", self.fresh);
        self.var(&name)
    }

    pub fn param(&mut self, name: &str, sort: Sort) -> VarId {
        let v = self.var(name);
        self.params.push(Param {
            var: v,
            sort: Some(sort),
        });
        v
    }

    /// A new label, to be placed later.
    pub fn label(&mut self, hint: &str) -> u32 {
        let l = self.labels.len() as u32;
        self.labels.push((format!("{hint}{l}"), UNPLACED));
        l
    }

    /// Places `label` at the next statement.
    pub fn place(&mut self, label: u32) {
        self.labels[label as usize].1 = self.stmts.len() as StmtIdx;
    }

    /// The value of a label of this function, for jumps.
    pub fn target(&self, label: u32) -> Operand {
        Operand::Const(Value::Label { func: self.id.0, label })
    }

    pub fn emit(&mut self, s: Stmt) {
        self.stmts.push(s);
        self.spans.push(Span {
            line: 0,
            col: 0,
            offset: self.offset,
            file: 0,
        });
    }

    pub fn assign(&mut self, dst: VarId, rhs: Rhs) {
        self.emit(Stmt::Assign { dst, rhs });
    }

    /// `t = op a` into a new temporary.
    pub fn unary(&mut self, op: Op, a: Operand) -> VarId {
        let t = self.temp();
        self.assign(t, Rhs::Unary(op, a));
        t
    }

    /// `t = load addr` (of `width` bits, or a whole cell) into a new temporary.
    pub fn load(&mut self, addr: Operand, width: Option<u8>) -> VarId {
        let t = self.temp();
        self.assign(t, Rhs::Load { addr, width });
        t
    }

    /// `store addr, value` (of `width` bits, or a whole cell).
    pub fn store(&mut self, addr: Operand, value: Operand, width: Option<u8>) {
        self.emit(Stmt::Store { addr, value, width });
    }

    /// `t = a op b` into a new temporary.
    pub fn binary(&mut self, op: Op, a: Operand, b: Operand) -> VarId {
        let t = self.temp();
        self.assign(t, Rhs::Binary(op, a, b));
        t
    }

    pub fn goto(&mut self, label: u32) {
        let t = self.target(label);
        self.emit(Stmt::Goto(t));
    }

    pub fn branch(&mut self, cond: VarId, label: u32) {
        let t = self.target(label);
        self.emit(Stmt::If {
            cond: Operand::Var(cond),
            target: t,
        });
    }

    /// The function. Labels never placed point past the end, where an
    /// implicit return is.
    pub fn finish(mut self) -> Function {
        let end = self.stmts.len() as StmtIdx;
        if self.labels.iter().any(|(_, s)| *s == UNPLACED || *s == end) {
            self.emit(Stmt::Ret(None));
        }
        for l in &mut self.labels {
            if l.1 == UNPLACED {
                l.1 = end;
            }
        }
        Function {
            name: self.name,
            params: self.params,
            vars: self.vars,
            stmts: self.stmts,
            labels: self.labels,
            spans: self.spans,
        }
    }
}

/// An operand for a variable.
pub fn var(v: VarId) -> Operand {
    Operand::Var(v)
}

/// An operand for a constant.
pub fn int(k: i128) -> Operand {
    Operand::Const(Value::Int(k))
}

pub fn bv(width: u8, bits: u64) -> Operand {
    Operand::Const(Value::bv(width, bits))
}
