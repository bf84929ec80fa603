//! Lowering one function body: the operand stack becomes variables (one per
//! stack height and type: heights are static), structured control flow
//! becomes labels and jumps, linear memory is allocation `a0` (one cell per
//! byte), globals are the cells of `a1`, the table's functions and their
//! signatures are `a2` and `a3`. Traps become `error` statements.

use crate::builder::{bv, int, var, FnBuilder};
use crate::{harness, layout, sort_of, Sig, WasmError};
use braid_ir::{BugKind, FuncId, Function, Operand, Rhs, Stmt, VarId};
use braid_term::{Op, Value};
use std::collections::HashMap;
use wasmparser::{BlockType, FunctionBody, MemArg, Operator, ValType};

/// What lowering a body needs to know about the module.
pub struct ModuleInfo {
    pub types: Vec<Sig>,
    /// Per wasm function index: its signature and its IR function.
    pub funcs: Vec<(Sig, FuncId)>,
    /// Per global: its type.
    pub globals: Vec<ValType>,
    pub table_size: u32,
    /// The most pages memory can grow to.
    pub max_pages: u32,
    /// The cell holding the current memory size in pages (bv32).
    pub pages_cell: Value,
    /// The signature id (index + 1) of each type, equal for equal types.
    pub sig_ids: Vec<u32>,
    /// The IR functions of `memory.fill` and `memory.copy`.
    pub helpers: Vec<FuncId>,
    /// Per imported function: module and name.
    pub imports: Vec<(String, String)>,
    pub convention: crate::Convention,
    /// The defined function named `reach_error` under SV-COMP: a direct
    /// call to it is the property violation.
    pub reach_error: Option<u32>,
    /// The active data segments: where they go in memory, their bytes.
    pub data: Vec<(u32, Vec<u8>)>,
}

impl ModuleInfo {
    /// The NUL-terminated string at `addr` in the initial memory (a string
    /// literal's address), if a data segment holds all of it.
    pub fn c_string(&self, addr: u64) -> Option<String> {
        let (at, bytes) = self
            .data
            .iter()
            .find(|(at, bytes)| (*at as u64..*at as u64 + bytes.len() as u64).contains(&addr))?;
        let rest = &bytes[(addr - *at as u64) as usize..];
        let end = rest.iter().position(|&c| c == 0)?;
        String::from_utf8(rest[..end].to_vec()).ok()
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Function,
    Block,
    Loop,
    If,
}

struct Ctrl {
    kind: Kind,
    /// Stack height below the block's parameters.
    height: usize,
    params: Vec<ValType>,
    results: Vec<ValType>,
    /// Where `br` goes: the loop's start or the block's end.
    br_label: u32,
    end_label: u32,
    /// `if`: where the `else` part starts.
    else_label: Option<u32>,
    /// The rest of the block cannot be reached (after `br`, `return`, …).
    dead: bool,
}

struct Trap {
    label: u32,
    kind: BugKind,
    offset: u32,
}

pub struct Lowerer<'a> {
    info: &'a ModuleInfo,
    b: FnBuilder,
    stack: Vec<ValType>,
    ctrl: Vec<Ctrl>,
    traps: Vec<Trap>,
    results: Vec<ValType>,
    /// Blocks opened inside unreachable code (skipped up to their `end`).
    dead_depth: usize,
    /// Parameters, then declared locals.
    local_types: Vec<ValType>,
    /// Locals and stack slots known to hold an i32 constant in the current
    /// straight-line code (forgotten at every control instruction): how a
    /// string literal's address reaches a harness call at -O0.
    known: HashMap<VarId, u64>,
}

fn type_name(t: ValType) -> &'static str {
    match t {
        ValType::I32 => "i32",
        ValType::I64 => "i64",
        ValType::F32 => "f32",
        ValType::F64 => "f64",
        _ => "ref",
    }
}

fn width(t: ValType) -> u8 {
    match t {
        ValType::I64 | ValType::F64 => 64,
        _ => 32,
    }
}

impl<'a> Lowerer<'a> {
    pub fn new(info: &'a ModuleInfo, id: FuncId, name: &str, sig: &Sig) -> Lowerer<'a> {
        let mut b = FnBuilder::new(id, name);
        for (i, p) in sig.params.iter().enumerate() {
            b.param(&format!("l{i}"), sort_of(*p));
        }
        Lowerer {
            info,
            b,
            stack: Vec::new(),
            ctrl: Vec::new(),
            traps: Vec::new(),
            results: sig.results.clone(),
            dead_depth: 0,
            local_types: sig.params.clone(),
            known: HashMap::new(),
        }
    }

    /// The variable of stack slot `h` holding a `t`.
    fn slot(&mut self, h: usize, t: ValType) -> VarId {
        self.b.var(&format!("s{h}_{}", type_name(t)))
    }

    /// `memory.grow delta`: the old size in pages, or -1 (and no growth)
    /// past the memory's maximum.
    fn memory_grow(&mut self) {
        let delta = self.pop();
        let dst = self.push(ValType::I32);
        let b = &mut self.b;
        let pages = Operand::Const(self.info.pages_cell);
        let old = b.load(pages.clone(), None);
        let room = b.binary(Op::Sub, bv(32, self.info.max_pages as u64), var(old));
        let too_big = b.binary(Op::UGt, var(delta), var(room));
        let fail = b.label("grow_fail");
        let end = b.label("grow_end");
        b.branch(too_big, fail);
        // A page at a time, so that a symbolic delta forks into concrete
        // sizes (at most `max_pages` of them).
        crate::harness::counted(b, delta, |b, _| {
            b.emit(Stmt::Grow {
                addr: Operand::Const(layout::MEMORY),
                cells: int(65536),
                fill: bv(8, 0),
            })
        });
        let new = b.binary(Op::Add, var(old), var(delta));
        b.store(pages, var(new), None);
        b.assign(dst, Rhs::Copy(var(old)));
        b.goto(end);
        b.place(fail);
        b.assign(dst, Rhs::Copy(bv(32, u32::MAX as u64)));
        b.place(end);
    }

    fn push(&mut self, t: ValType) -> VarId {
        let v = self.slot(self.stack.len(), t);
        self.stack.push(t);
        self.known.remove(&v);
        v
    }

    /// The name a KLEE harness call gives its symbolic value: the string
    /// literal its name argument points to (`klee_make_symbolic(&x, 4,
    /// "x")`), when that address is a known constant.
    fn symbol_name(&self, import: &str, args: &[VarId]) -> Option<String> {
        let i = match import {
            "klee_make_symbolic" | "klee_range" => 2,
            "klee_int" => 0,
            _ => return None,
        };
        let addr = self.known.get(args.get(i)?)?;
        harness::input_label(&self.info.c_string(*addr)?)
    }

    fn pop(&mut self) -> VarId {
        self.pop_typed().0
    }

    fn pop_typed(&mut self) -> (VarId, ValType) {
        let t = self.stack.pop().expect("validated: operand on the stack");
        (self.slot(self.stack.len(), t), t)
    }

    /// The slot `k` values below the top (0: the top).
    fn peek(&mut self, k: usize) -> VarId {
        let h = self.stack.len() - 1 - k;
        let t = self.stack[h];
        self.slot(h, t)
    }

    /// `to` now holds what `from` holds.
    fn copy_known(&mut self, from: VarId, to: VarId) {
        match self.known.get(&from) {
            Some(&c) => self.known.insert(to, c),
            None => self.known.remove(&to),
        };
    }

    fn local(&mut self, i: u32) -> VarId {
        self.b.var(&format!("l{i}"))
    }

    fn unsupported(&self, what: &str) -> WasmError {
        WasmError::at(self.b.offset as usize, format!("{what} is not supported"))
    }

    /// A conditional trap: `if cond goto T` where `T: error kind`.
    fn trap_if(&mut self, cond: VarId, kind: BugKind) {
        let label = self.b.label("trap");
        self.traps.push(Trap {
            label,
            kind,
            offset: self.b.offset,
        });
        self.b.branch(cond, label);
    }

    fn block_type(&self, bt: BlockType) -> (Vec<ValType>, Vec<ValType>) {
        match bt {
            BlockType::Empty => (vec![], vec![]),
            BlockType::Type(t) => (vec![], vec![t]),
            BlockType::FuncType(i) => {
                let s = &self.info.types[i as usize];
                (s.params.clone(), s.results.clone())
            }
        }
    }

    /// Lowers the body of a defined function.
    pub fn lower(mut self, body: &FunctionBody) -> Result<Function, WasmError> {
        let err = |e: wasmparser::BinaryReaderError| WasmError::at(e.offset() as usize, e.message().to_string());
        let mut next = self.local_types.len() as u32;
        for local in body.get_locals_reader().map_err(err)? {
            let (count, t) = local.map_err(err)?;
            for _ in 0..count {
                let v = self.local(next);
                let zero = zero_of(t).ok_or_else(|| self.unsupported(&format!("a local of type {t}")))?;
                self.b.assign(v, Rhs::Copy(zero));
                self.local_types.push(t);
                next += 1;
            }
        }
        let end = self.b.label("end");
        self.ctrl.push(Ctrl {
            kind: Kind::Function,
            height: 0,
            params: vec![],
            results: self.results.clone(),
            br_label: end,
            end_label: end,
            else_label: None,
            dead: false,
        });
        let mut ops = body.get_operators_reader().map_err(err)?;
        while !ops.eof() {
            let (op, offset) = ops.read_with_offset().map_err(err)?;
            self.b.offset = offset as u32;
            self.op(op)?;
        }
        // The function's end: return its results.
        for trap in std::mem::take(&mut self.traps) {
            self.b.offset = trap.offset;
            self.b.place(trap.label);
            self.b.emit(Stmt::Error(trap.kind));
        }
        Ok(self.b.finish())
    }

    /// Copies the top `n` values to the slots just above `height` (the
    /// values a branch carries to its target).
    fn carry(&mut self, height: usize, types: &[ValType]) {
        let n = types.len();
        let from = self.stack.len() - n;
        if from == height {
            return;
        }
        for (i, t) in types.iter().enumerate() {
            let src = self.slot(from + i, *t);
            let dst = self.slot(height + i, *t);
            self.b.assign(dst, Rhs::Copy(var(src)));
        }
    }

    /// The label a branch to relative depth `depth` jumps to, after the
    /// values it carries are moved; `None` for the function's frame (a
    /// return).
    fn branch_to(&mut self, depth: u32) -> Option<u32> {
        let i = self.ctrl.len() - 1 - depth as usize;
        let (kind, height, label) = (self.ctrl[i].kind, self.ctrl[i].height, self.ctrl[i].br_label);
        let types = if kind == Kind::Loop {
            self.ctrl[i].params.clone()
        } else {
            self.ctrl[i].results.clone()
        };
        if kind == Kind::Function {
            return None;
        }
        self.carry(height, &types);
        Some(label)
    }

    fn emit_return(&mut self) -> Result<(), WasmError> {
        match self.results.len() {
            0 => self.b.emit(Stmt::Ret(None)),
            1 => {
                let t = self.results[0];
                let v = self.slot(self.stack.len() - 1, t);
                self.b.emit(Stmt::Ret(Some(var(v))));
            }
            n => {
                // Several results go through the return area (cells of the
                // globals allocation after the globals), read right after
                // the call.
                let h = self.stack.len() - n;
                for (i, t) in self.results.clone().into_iter().enumerate() {
                    let v = self.slot(h + i, t);
                    self.b.store(
                        Operand::Const(layout::global(self.info.globals.len() as u32 + i as u32)),
                        var(v),
                        None,
                    );
                }
                self.b.emit(Stmt::Ret(None));
            }
        }
        Ok(())
    }

    /// Marks the rest of the current block unreachable.
    fn kill(&mut self) {
        let c = self.ctrl.last_mut().expect("a control frame");
        c.dead = true;
        let h = c.height;
        self.stack.truncate(h);
    }

    fn op(&mut self, op: Operator) -> Result<(), WasmError> {
        // Code after an unconditional branch: skip it, keeping track of
        // nested blocks so the right `else`/`end` ends the skipping.
        if self.ctrl.last().is_some_and(|c| c.dead) {
            match op {
                Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => {
                    self.dead_depth += 1;
                    return Ok(());
                }
                Operator::End if self.dead_depth > 0 => {
                    self.dead_depth -= 1;
                    return Ok(());
                }
                Operator::Else if self.dead_depth > 0 => return Ok(()),
                Operator::End | Operator::Else => {}
                _ => return Ok(()),
            }
        }
        use Operator as O;
        if matches!(
            op,
            O::Block { .. }
                | O::Loop { .. }
                | O::If { .. }
                | O::Else
                | O::End
                | O::Br { .. }
                | O::BrIf { .. }
                | O::BrTable { .. }
                | O::Return
        ) {
            self.known.clear();
        }
        match op {
            O::Nop => {}
            O::Unreachable => {
                self.b.emit(Stmt::Error(BugKind::Unreachable));
                self.kill();
            }
            O::Block { blockty } | O::Loop { blockty } => {
                let (params, results) = self.block_type(blockty);
                let height = self.stack.len() - params.len();
                let end_label = self.b.label("end");
                let kind = if matches!(op, O::Loop { .. }) {
                    Kind::Loop
                } else {
                    Kind::Block
                };
                let br_label = if kind == Kind::Loop {
                    let l = self.b.label("loop");
                    self.b.place(l);
                    l
                } else {
                    end_label
                };
                self.ctrl.push(Ctrl {
                    kind,
                    height,
                    params,
                    results,
                    br_label,
                    end_label,
                    else_label: None,
                    dead: false,
                });
            }
            O::If { blockty } => {
                let c = self.pop();
                let (params, results) = self.block_type(blockty);
                let height = self.stack.len() - params.len();
                let end_label = self.b.label("end");
                let else_label = self.b.label("else");
                let z = self.b.binary(Op::Eq, var(c), bv(32, 0));
                self.b.branch(z, else_label);
                self.ctrl.push(Ctrl {
                    kind: Kind::If,
                    height,
                    params,
                    results,
                    br_label: end_label,
                    end_label,
                    else_label: Some(else_label),
                    dead: false,
                });
            }
            O::Else => {
                let c = self.ctrl.last_mut().expect("validated: an if");
                let (end, else_label, height) = (c.end_label, c.else_label.take(), c.height);
                let params = c.params.clone();
                if !c.dead {
                    self.b.goto(end);
                }
                c.dead = false;
                if let Some(l) = else_label {
                    self.b.place(l);
                }
                self.stack.truncate(height);
                self.stack.extend(params);
            }
            O::End => {
                let c = self.ctrl.pop().expect("validated: a block to end");
                if c.dead {
                    // Unreachable here, but the result slots must be
                    // assigned somewhere for a block no branch leaves.
                    for (i, t) in c.results.iter().enumerate() {
                        if let Some(zero) = zero_of(*t) {
                            let v = self.slot(c.height + i, *t);
                            self.b.assign(v, Rhs::Copy(zero));
                        }
                    }
                }
                if let Some(l) = c.else_label {
                    // An `if` without `else`: its parameters pass through.
                    if !c.dead {
                        self.b.goto(c.end_label);
                    }
                    self.b.place(l);
                }
                self.b.place(c.end_label);
                self.stack.truncate(c.height);
                self.stack.extend(c.results.iter().copied());
                if c.kind == Kind::Function {
                    self.emit_return()?;
                }
            }
            O::Br { relative_depth } => {
                match self.branch_to(relative_depth) {
                    Some(l) => self.b.goto(l),
                    None => self.emit_return()?,
                }
                self.kill();
            }
            O::BrIf { relative_depth } => {
                let c = self.pop();
                let nz = self.b.binary(Op::Ne, var(c), bv(32, 0));
                let i = self.ctrl.len() - 1 - relative_depth as usize;
                let needs_moves = {
                    let t = &self.ctrl[i];
                    let n = if t.kind == Kind::Loop {
                        t.params.len()
                    } else {
                        t.results.len()
                    };
                    t.kind == Kind::Function || self.stack.len() - n != t.height
                };
                if needs_moves {
                    // Moves (or a return) on the taken side only.
                    let skip = self.b.label("fall");
                    let z = self.b.unary(Op::Not, var(nz));
                    self.b.branch(z, skip);
                    match self.branch_to(relative_depth) {
                        Some(l) => self.b.goto(l),
                        None => self.emit_return()?,
                    }
                    self.b.place(skip);
                } else {
                    let l = self.ctrl[i].br_label;
                    self.b.branch(nz, l);
                }
            }
            O::BrTable { targets } => {
                let i = self.pop();
                let depths: Vec<u32> = targets
                    .targets()
                    .collect::<Result<_, _>>()
                    .map_err(|e| WasmError::at(e.offset() as usize, e.message().to_string()))?;
                let default = targets.default();
                // Indices with one target form runs (a C switch over a
                // range of characters sends most of them to its default);
                // a binary search over the runs' starts picks one, and one
                // trampoline per target moves the carried values. As
                // branches, the cases are covered as a C switch's are, a
                // concrete index takes a few comparisons, and a symbolic one
                // splits the paths by target with no computed value.
                let mut runs: Vec<(u32, u32)> = Vec::new(); // (first index, depth)
                for (k, d) in depths.iter().chain([&default]).enumerate() {
                    if runs.last().is_none_or(|r| r.1 != *d) {
                        runs.push((k as u32, *d));
                    }
                }
                let mut pads: Vec<(u32, u32)> = Vec::new(); // (depth, label)
                for &(_, d) in &runs {
                    if !pads.iter().any(|p| p.0 == d) {
                        pads.push((d, self.b.label("case")));
                    }
                }
                let pad = |d: u32| pads.iter().find(|p| p.0 == d).expect("a pad per depth").1;
                // Ranges of runs still to split, right halves first.
                let mut todo = vec![(0, runs.len(), None)];
                while let Some((lo, hi, at)) = todo.pop() {
                    if let Some(l) = at {
                        self.b.place(l);
                    }
                    if hi - lo == 1 {
                        self.b.goto(pad(runs[lo].1));
                        continue;
                    }
                    let mid = (lo + hi) / 2;
                    let below = self.b.binary(Op::ULt, var(i), bv(32, runs[mid].0 as u64));
                    let left = self.b.label("cases");
                    self.b.branch(below, left);
                    todo.push((lo, mid, Some(left)));
                    todo.push((mid, hi, None));
                }
                for (d, l) in pads {
                    self.b.place(l);
                    match self.branch_to(d) {
                        Some(l) => self.b.goto(l),
                        None => self.emit_return()?,
                    }
                }
                self.kill();
            }
            O::Return => {
                self.emit_return()?;
                self.kill();
            }
            O::Call { function_index } => {
                let (sig, callee) = self.info.funcs[function_index as usize].clone();
                if let Some((m, n)) = self.info.imports.get(function_index as usize) {
                    // A known import runs inline, located at the call.
                    let h = self.stack.len() - sig.params.len();
                    let args: Vec<VarId> = sig
                        .params
                        .iter()
                        .enumerate()
                        .map(|(i, t)| self.slot(h + i, *t))
                        .collect();
                    let dst = sig.results.first().map(|t| self.slot(h, *t));
                    let (conv, into) = (self.info.convention, harness::Exit::Into(dst));
                    let label = self.symbol_name(n, &args);
                    if harness::emit(&mut self.b, (m, n), &sig, &args, into, conv, label.as_deref()) {
                        self.stack.truncate(h);
                        self.stack.extend(sig.results.first().copied());
                        if let Some(d) = dst {
                            self.known.remove(&d);
                        }
                        return Ok(());
                    }
                }
                if self.info.reach_error == Some(function_index) {
                    self.b.emit(Stmt::Error(BugKind::ReachError));
                }
                self.call(&sig, Operand::Const(Value::Func(callee.0)))?;
            }
            O::CallIndirect { type_index, .. } => {
                let sig = self.info.types[type_index as usize].clone();
                let i = self.pop();
                let oob = self.b.binary(Op::UGe, var(i), bv(32, self.info.table_size as u64));
                self.trap_if(oob, BugKind::UndefinedElement);
                let at = self.offset_of(i, 0);
                let sig_at = self.b.binary(Op::Add, Operand::Const(layout::SIGS), var(at));
                let s = self.b.temp();
                self.b.assign(
                    s,
                    Rhs::Load {
                        addr: var(sig_at),
                        width: None,
                    },
                );
                let null = self.b.binary(Op::Eq, var(s), bv(32, 0));
                self.trap_if(null, BugKind::UndefinedElement);
                let expected = self.info.sig_ids[type_index as usize];
                let bad = self.b.binary(Op::Ne, var(s), bv(32, expected as u64));
                self.trap_if(bad, BugKind::IndirectCallSignatureMismatch);
                let f_at = self.b.binary(Op::Add, Operand::Const(layout::TABLE), var(at));
                let f = self.b.temp();
                self.b.assign(
                    f,
                    Rhs::Load {
                        addr: var(f_at),
                        width: None,
                    },
                );
                self.call(&sig, var(f))?;
            }
            O::Drop => {
                self.pop();
            }
            O::Select | O::TypedSelect { .. } => {
                let c = self.pop();
                let b2 = self.pop();
                let (a, t) = self.pop_typed();
                let nz = self.b.binary(Op::Ne, var(c), bv(32, 0));
                let dst = self.push(t);
                self.b.assign(dst, Rhs::Select(var(nz), var(a), var(b2)));
            }
            O::LocalGet { local_index } => {
                let t = self.local_type(local_index);
                let l = self.local(local_index);
                let dst = self.push(t);
                self.b.assign(dst, Rhs::Copy(var(l)));
                if let Some(&c) = self.known.get(&l) {
                    self.known.insert(dst, c);
                }
            }
            O::LocalSet { local_index } => {
                let v = self.pop();
                let l = self.local(local_index);
                self.b.assign(l, Rhs::Copy(var(v)));
                self.copy_known(v, l);
            }
            O::LocalTee { local_index } => {
                let t = *self.stack.last().expect("validated");
                let v = self.slot(self.stack.len() - 1, t);
                let l = self.local(local_index);
                self.b.assign(l, Rhs::Copy(var(v)));
                self.copy_known(v, l);
            }
            O::GlobalGet { global_index } => {
                let t = self.info.globals[global_index as usize];
                let dst = self.push(t);
                self.b.assign(
                    dst,
                    Rhs::Load {
                        addr: Operand::Const(layout::global(global_index)),
                        width: None,
                    },
                );
            }
            O::GlobalSet { global_index } => {
                let v = self.pop();
                self.b.store(Operand::Const(layout::global(global_index)), var(v), None);
            }
            O::I32Load { memarg } => self.load(memarg, 32, ValType::I32, None)?,
            O::I64Load { memarg } => self.load(memarg, 64, ValType::I64, None)?,
            O::I32Load8S { memarg } => self.load(memarg, 8, ValType::I32, Some(Op::SExt(32)))?,
            O::I32Load8U { memarg } => self.load(memarg, 8, ValType::I32, Some(Op::ZExt(32)))?,
            O::I32Load16S { memarg } => self.load(memarg, 16, ValType::I32, Some(Op::SExt(32)))?,
            O::I32Load16U { memarg } => self.load(memarg, 16, ValType::I32, Some(Op::ZExt(32)))?,
            O::I64Load8S { memarg } => self.load(memarg, 8, ValType::I64, Some(Op::SExt(64)))?,
            O::I64Load8U { memarg } => self.load(memarg, 8, ValType::I64, Some(Op::ZExt(64)))?,
            O::I64Load16S { memarg } => self.load(memarg, 16, ValType::I64, Some(Op::SExt(64)))?,
            O::I64Load16U { memarg } => self.load(memarg, 16, ValType::I64, Some(Op::ZExt(64)))?,
            O::I64Load32S { memarg } => self.load(memarg, 32, ValType::I64, Some(Op::SExt(64)))?,
            O::I64Load32U { memarg } => self.load(memarg, 32, ValType::I64, Some(Op::ZExt(64)))?,
            O::I32Store { memarg } | O::I64Store { memarg } => {
                let w = width(*self.stack.last().expect("validated"));
                self.store(memarg, w)?
            }
            O::I32Store8 { memarg } | O::I64Store8 { memarg } => self.store(memarg, 8)?,
            O::I32Store16 { memarg } | O::I64Store16 { memarg } => self.store(memarg, 16)?,
            O::I64Store32 { memarg } => self.store(memarg, 32)?,
            O::MemorySize { .. } => {
                let dst = self.push(ValType::I32);
                self.b.assign(
                    dst,
                    Rhs::Load {
                        addr: Operand::Const(self.info.pages_cell),
                        width: None,
                    },
                );
            }
            O::MemoryGrow { .. } => self.memory_grow(),
            O::MemoryFill { .. } => self.bulk("memory.fill")?,
            O::MemoryCopy { .. } => self.bulk("memory.copy")?,
            O::I32Const { value } => {
                let dst = self.push(ValType::I32);
                self.b.assign(dst, Rhs::Copy(bv(32, value as u32 as u64)));
                self.known.insert(dst, value as u32 as u64);
            }
            O::I64Const { value } => {
                let dst = self.push(ValType::I64);
                self.b.assign(dst, Rhs::Copy(bv(64, value as u64)));
            }
            O::I32Eqz | O::I64Eqz => {
                let a = self.pop();
                let w = if matches!(op, O::I32Eqz) { 32 } else { 64 };
                let z = self.b.binary(Op::Eq, var(a), bv(w, 0));
                let dst = self.push(ValType::I32);
                self.b.assign(dst, Rhs::Unary(Op::ToBv(32), var(z)));
            }
            O::I32Eq | O::I64Eq => self.compare(Op::Eq)?,
            O::I32Ne | O::I64Ne => self.compare(Op::Ne)?,
            O::I32LtS | O::I64LtS => self.compare(Op::Lt)?,
            O::I32LtU | O::I64LtU => self.compare(Op::ULt)?,
            O::I32GtS | O::I64GtS => self.compare(Op::Gt)?,
            O::I32GtU | O::I64GtU => self.compare(Op::UGt)?,
            O::I32LeS | O::I64LeS => self.compare(Op::Le)?,
            O::I32LeU | O::I64LeU => self.compare(Op::ULe)?,
            O::I32GeS | O::I64GeS => self.compare(Op::Ge)?,
            O::I32GeU | O::I64GeU => self.compare(Op::UGe)?,
            O::I32Add | O::I64Add => self.arith(Op::Add)?,
            O::I32Sub | O::I64Sub => self.arith(Op::Sub)?,
            O::I32Mul | O::I64Mul => self.arith(Op::Mul)?,
            O::I32DivS | O::I64DivS => {
                // INT_MIN / -1 overflows (division by zero is the engine's check).
                let w = width(*self.stack.last().expect("validated"));
                let d = self.peek(0);
                let n = self.peek(1);
                let min = self.b.binary(Op::Eq, var(n), bv(w, 1 << (w - 1)));
                let neg1 = self.b.binary(Op::Eq, var(d), bv(w, u64::MAX));
                let both = self.b.binary(Op::And, var(min), var(neg1));
                self.trap_if(both, BugKind::IntegerOverflow);
                self.arith(Op::Div)?
            }
            O::I32DivU | O::I64DivU => self.arith(Op::UDiv)?,
            // INT_MIN % -1 is 0 in wasm, as the IR's `%` (SMT-LIB's bvsrem) has it.
            O::I32RemS | O::I64RemS => self.arith(Op::Rem)?,
            O::I32RemU | O::I64RemU => self.arith(Op::URem)?,
            O::I32And | O::I64And => self.arith(Op::And)?,
            O::I32Or | O::I64Or => self.arith(Op::Or)?,
            O::I32Xor | O::I64Xor => self.arith(Op::Xor)?,
            O::I32Shl | O::I64Shl => self.shift(Op::Shl)?,
            O::I32ShrS | O::I64ShrS => self.shift(Op::AShr)?,
            O::I32ShrU | O::I64ShrU => self.shift(Op::LShr)?,
            O::I32Rotl | O::I64Rotl => self.rotate(true)?,
            O::I32Rotr | O::I64Rotr => self.rotate(false)?,
            O::I32Clz | O::I64Clz => self.count_zeros(true)?,
            O::I32Ctz | O::I64Ctz => self.count_zeros(false)?,
            O::I32Popcnt | O::I64Popcnt => self.popcnt()?,
            O::I32WrapI64 => self.unary(Op::Trunc(32), Some(ValType::I32))?,
            O::I64ExtendI32S => self.unary(Op::SExt(64), Some(ValType::I64))?,
            O::I64ExtendI32U => self.unary(Op::ZExt(64), Some(ValType::I64))?,
            O::I32Extend8S | O::I32Extend16S | O::I64Extend8S | O::I64Extend16S | O::I64Extend32S => {
                let (w, from) = match op {
                    O::I32Extend8S => (32, 8),
                    O::I32Extend16S => (32, 16),
                    O::I64Extend8S => (64, 8),
                    O::I64Extend16S => (64, 16),
                    _ => (64, 32),
                };
                let a = self.pop();
                let t = if w == 32 { ValType::I32 } else { ValType::I64 };
                let low = self.b.unary(Op::Trunc(from), var(a));
                let dst = self.push(t);
                self.b.assign(dst, Rhs::Unary(Op::SExt(w), var(low)));
            }
            O::F32Load { memarg } => self.load(memarg, 32, ValType::F32, Some(Op::Reinterpret))?,
            O::F64Load { memarg } => self.load(memarg, 64, ValType::F64, Some(Op::Reinterpret))?,
            O::F32Store { memarg } | O::F64Store { memarg } => {
                let w = width(*self.stack.last().expect("validated"));
                self.store(memarg, w)?
            }
            O::F32Const { value } => {
                let dst = self.push(ValType::F32);
                self.b.assign(dst, Rhs::Copy(Operand::Const(Value::F32(value.bits()))));
            }
            O::F64Const { value } => {
                let dst = self.push(ValType::F64);
                self.b.assign(dst, Rhs::Copy(Operand::Const(Value::F64(value.bits()))));
            }
            O::F32Eq | O::F64Eq => self.compare(Op::Eq)?,
            O::F32Ne | O::F64Ne => self.compare(Op::Ne)?,
            O::F32Lt | O::F64Lt => self.compare(Op::Lt)?,
            O::F32Gt | O::F64Gt => self.compare(Op::Gt)?,
            O::F32Le | O::F64Le => self.compare(Op::Le)?,
            O::F32Ge | O::F64Ge => self.compare(Op::Ge)?,
            O::F32Abs | O::F64Abs => self.unary(Op::FAbs, None)?,
            O::F32Neg | O::F64Neg => self.unary(Op::Neg, None)?,
            O::F32Ceil | O::F64Ceil => self.unary(Op::FCeil, None)?,
            O::F32Floor | O::F64Floor => self.unary(Op::FFloor, None)?,
            O::F32Trunc | O::F64Trunc => self.unary(Op::FTrunc, None)?,
            O::F32Nearest | O::F64Nearest => self.unary(Op::FNearest, None)?,
            O::F32Sqrt | O::F64Sqrt => self.unary(Op::FSqrt, None)?,
            O::F32Add | O::F64Add => self.arith(Op::Add)?,
            O::F32Sub | O::F64Sub => self.arith(Op::Sub)?,
            O::F32Mul | O::F64Mul => self.arith(Op::Mul)?,
            O::F32Div | O::F64Div => self.arith(Op::Div)?,
            O::F32Min | O::F64Min => self.arith(Op::FMin)?,
            O::F32Max | O::F64Max => self.arith(Op::FMax)?,
            O::F32Copysign | O::F64Copysign => self.arith(Op::FCopysign)?,
            O::I32TruncF32S | O::I32TruncF64S => self.trunc(32, true)?,
            O::I32TruncF32U | O::I32TruncF64U => self.trunc(32, false)?,
            O::I64TruncF32S | O::I64TruncF64S => self.trunc(64, true)?,
            O::I64TruncF32U | O::I64TruncF64U => self.trunc(64, false)?,
            O::I32TruncSatF32S | O::I32TruncSatF64S => self.unary(Op::TruncSatS(32), Some(ValType::I32))?,
            O::I32TruncSatF32U | O::I32TruncSatF64U => self.unary(Op::TruncSatU(32), Some(ValType::I32))?,
            O::I64TruncSatF32S | O::I64TruncSatF64S => self.unary(Op::TruncSatS(64), Some(ValType::I64))?,
            O::I64TruncSatF32U | O::I64TruncSatF64U => self.unary(Op::TruncSatU(64), Some(ValType::I64))?,
            O::F32ConvertI32S | O::F32ConvertI64S => self.unary(Op::ConvertS(32), Some(ValType::F32))?,
            O::F32ConvertI32U | O::F32ConvertI64U => self.unary(Op::ConvertU(32), Some(ValType::F32))?,
            O::F64ConvertI32S | O::F64ConvertI64S => self.unary(Op::ConvertS(64), Some(ValType::F64))?,
            O::F64ConvertI32U | O::F64ConvertI64U => self.unary(Op::ConvertU(64), Some(ValType::F64))?,
            O::F32DemoteF64 => self.unary(Op::FConvert(32), Some(ValType::F32))?,
            O::F64PromoteF32 => self.unary(Op::FConvert(64), Some(ValType::F64))?,
            O::I32ReinterpretF32 => self.unary(Op::Reinterpret, Some(ValType::I32))?,
            O::I64ReinterpretF64 => self.unary(Op::Reinterpret, Some(ValType::I64))?,
            O::F32ReinterpretI32 => self.unary(Op::Reinterpret, Some(ValType::F32))?,
            O::F64ReinterpretI64 => self.unary(Op::Reinterpret, Some(ValType::F64))?,
            other => {
                let name = format!("{other:?}");
                let name = name.split([' ', '{', '(']).next().unwrap_or("").to_string();
                return Err(self.unsupported(&format!(
                    "the instruction `{name}` (floating point, reference types and other proposals)"
                )));
            }
        }
        Ok(())
    }

    fn local_type(&self, i: u32) -> ValType {
        self.local_types[i as usize]
    }

    /// `[dst =] call callee(args)` with the arguments popped.
    fn call(&mut self, sig: &Sig, callee: Operand) -> Result<(), WasmError> {
        let mut args: Vec<Operand> = (0..sig.params.len()).map(|_| var(self.pop())).collect();
        args.reverse();
        let dst = match sig.results.as_slice() {
            [t] => Some(self.push(*t)),
            _ => None,
        };
        self.b.emit(Stmt::Call { dst, callee, args });
        if sig.results.len() > 1 {
            for (i, t) in sig.results.iter().enumerate() {
                let v = self.push(*t);
                self.b.assign(
                    v,
                    Rhs::Load {
                        addr: Operand::Const(layout::global(self.info.globals.len() as u32 + i as u32)),
                        width: None,
                    },
                );
            }
        }
        Ok(())
    }

    /// The Int offset `zext(i) + k` into an allocation, in a temporary.
    fn offset_of(&mut self, i: VarId, k: u64) -> VarId {
        let wide = self.b.unary(Op::ZExt(64), var(i));
        let n = self.b.unary(Op::ToInt, var(wide));
        if k == 0 {
            n
        } else {
            self.b.binary(Op::Add, var(n), int(k as i128))
        }
    }

    /// The address in linear memory of an access at `i + memarg.offset`.
    fn address(&mut self, i: VarId, memarg: MemArg) -> VarId {
        let off = self.offset_of(i, memarg.offset);
        self.b.binary(Op::Add, Operand::Const(layout::MEMORY), var(off))
    }

    /// A load of `bits` bits as a `t`, through `convert` (extension of a
    /// narrow integer, or the bits' float) when the raw bits are not one.
    fn load(&mut self, memarg: MemArg, bits: u8, t: ValType, convert: Option<Op>) -> Result<(), WasmError> {
        let i = self.pop();
        let p = self.address(i, memarg);
        let load = Rhs::Load {
            addr: var(p),
            width: Some(bits),
        };
        let Some(op) = convert else {
            let dst = self.push(t);
            self.b.assign(dst, load);
            return Ok(());
        };
        let raw = self.b.temp();
        self.b.assign(raw, load);
        let dst = self.push(t);
        self.b.assign(dst, Rhs::Unary(op, var(raw)));
        Ok(())
    }

    /// A store of the low `bits` bits of the top value (a float's bits).
    fn store(&mut self, memarg: MemArg, bits: u8) -> Result<(), WasmError> {
        let (v, t) = self.pop_typed();
        let i = self.pop();
        let p = self.address(i, memarg);
        let value = if matches!(t, ValType::F32 | ValType::F64) {
            var(self.b.unary(Op::Reinterpret, var(v)))
        } else if bits < width(t) {
            var(self.b.unary(Op::Trunc(bits), var(v)))
        } else {
            var(v)
        };
        self.b.emit(Stmt::Store {
            addr: var(p),
            value,
            width: Some(bits),
        });
        Ok(())
    }

    /// `memory.fill` and `memory.copy`: calls of the module's helpers.
    fn bulk(&mut self, name: &str) -> Result<(), WasmError> {
        let helper = match name {
            "memory.fill" => layout::MEMORY_FILL,
            _ => layout::MEMORY_COPY,
        };
        let n = self.pop();
        let b2 = self.pop();
        let a = self.pop();
        let f = self.info.helpers[helper];
        self.b.emit(Stmt::Call {
            dst: None,
            callee: Operand::Const(Value::Func(f.0)),
            args: vec![var(a), var(b2), var(n)],
        });
        Ok(())
    }

    fn compare(&mut self, op: Op) -> Result<(), WasmError> {
        let b2 = self.pop();
        let a = self.pop();
        let c = self.b.binary(op, var(a), var(b2));
        let dst = self.push(ValType::I32);
        self.b.assign(dst, Rhs::Unary(Op::ToBv(32), var(c)));
        Ok(())
    }

    fn arith(&mut self, op: Op) -> Result<(), WasmError> {
        let b2 = self.pop();
        let (a, t) = self.pop_typed();
        let dst = self.push(t);
        self.b.assign(dst, Rhs::Binary(op, var(a), var(b2)));
        Ok(())
    }

    /// Pops a shift or rotate count and its operand: the count modulo the
    /// width, the operand and its type.
    fn shift_operands(&mut self) -> (VarId, VarId, ValType) {
        let k = self.pop();
        let (a, t) = self.pop_typed();
        let w = width(t);
        let m = self.b.binary(Op::And, var(k), bv(w, w as u64 - 1));
        (m, a, t)
    }

    /// Shift counts are taken modulo the width.
    fn shift(&mut self, op: Op) -> Result<(), WasmError> {
        let (m, a, t) = self.shift_operands();
        let dst = self.push(t);
        self.b.assign(dst, Rhs::Binary(op, var(a), var(m)));
        Ok(())
    }

    fn rotate(&mut self, left: bool) -> Result<(), WasmError> {
        let (m, a, t) = self.shift_operands();
        let w = width(t);
        let back = self.b.binary(Op::Sub, bv(w, w as u64), var(m));
        let back = self.b.binary(Op::And, var(back), bv(w, w as u64 - 1));
        let (first, second) = if left { (Op::Shl, Op::LShr) } else { (Op::LShr, Op::Shl) };
        let x = self.b.binary(first, var(a), var(m));
        let y = self.b.binary(second, var(a), var(back));
        // A rotation by 0 shifts `back` by 0 too: x | x = x.
        let dst = self.push(t);
        self.b.assign(dst, Rhs::Binary(Op::Or, var(x), var(y)));
        Ok(())
    }

    /// `clz`/`ctz` by binary search with selects (no branches).
    fn count_zeros(&mut self, leading: bool) -> Result<(), WasmError> {
        let (a, t) = self.pop_typed();
        let w = width(t);
        let x = self.b.temp();
        self.b.assign(x, Rhs::Copy(var(a)));
        let n = self.b.temp();
        self.b.assign(n, Rhs::Copy(bv(w, 0)));
        let mut half = w as u64 / 2;
        while half > 0 {
            // Is the upper (clz) or lower (ctz) `half`-bit part of x zero?
            let part = if leading {
                self.b.binary(Op::LShr, var(x), bv(w, w as u64 - half))
            } else {
                self.b.binary(Op::Shl, var(x), bv(w, w as u64 - half))
            };
            let zero = self.b.binary(Op::Eq, var(part), bv(w, 0));
            let more = self.b.binary(Op::Add, var(n), bv(w, half));
            self.b.assign(n, Rhs::Select(var(zero), var(more), var(n)));
            let moved = if leading {
                self.b.binary(Op::Shl, var(x), bv(w, half))
            } else {
                self.b.binary(Op::LShr, var(x), bv(w, half))
            };
            self.b.assign(x, Rhs::Select(var(zero), var(moved), var(x)));
            half /= 2;
        }
        // All zero: the width.
        let none = self.b.binary(Op::Eq, var(a), bv(w, 0));
        let dst = self.push(t);
        self.b.assign(dst, Rhs::Select(var(none), bv(w, w as u64), var(n)));
        Ok(())
    }

    fn popcnt(&mut self) -> Result<(), WasmError> {
        let (a, t) = self.pop_typed();
        let w = width(t);
        let n = self.b.temp();
        self.b.assign(n, Rhs::Copy(bv(w, 0)));
        for i in 0..w as u64 {
            let s = self.b.binary(Op::LShr, var(a), bv(w, i));
            let bit = self.b.binary(Op::And, var(s), bv(w, 1));
            self.b.assign(n, Rhs::Binary(Op::Add, var(n), var(bit)));
        }
        let dst = self.push(t);
        self.b.assign(dst, Rhs::Copy(var(n)));
        Ok(())
    }

    /// `dst = op a`, of the operand's type unless `to` says otherwise.
    fn unary(&mut self, op: Op, to: Option<ValType>) -> Result<(), WasmError> {
        let (a, t) = self.pop_typed();
        let dst = self.push(to.unwrap_or(t));
        self.b.assign(dst, Rhs::Unary(op, var(a)));
        Ok(())
    }

    /// A trapping float-to-integer truncation: NaN is an invalid
    /// conversion, a value out of range an overflow (checked here, so the
    /// conversion itself never fails on the paths that reach it).
    fn trunc(&mut self, w: u8, signed: bool) -> Result<(), WasmError> {
        let (x, t) = self.pop_typed();
        let float = |v: f64| match t {
            ValType::F32 => Operand::Const(Value::f32(v as f32)),
            _ => Operand::Const(Value::f64(v)),
        };
        let nan = self.b.binary(Op::Ne, var(x), var(x));
        self.trap_if(nan, BugKind::InvalidConversion);
        // trunc(x) >= lo iff x > lo - 1, or (when lo - 1 is not a float of
        // the type, so none lies between it and lo) x >= lo; trunc(x) < hi
        // iff x < hi. No rounding to an integer: the solver pays for those.
        let (lo, hi) = braid_term::int_range(signed, w);
        // (`lo - 1.0` itself rounds to `lo` in f64 when lo = -2^63.)
        let exact = (lo - 1.0) != lo
            && match t {
                ValType::F32 => ((lo - 1.0) as f32) as f64 == lo - 1.0,
                _ => true,
            };
        let below = if exact {
            self.b.binary(Op::Le, var(x), float(lo - 1.0))
        } else {
            self.b.binary(Op::Lt, var(x), float(lo))
        };
        let above = self.b.binary(Op::Ge, var(x), float(hi));
        let out = self.b.binary(Op::Or, var(below), var(above));
        self.trap_if(out, BugKind::IntegerOverflow);
        let op = if signed { Op::TruncS(w) } else { Op::TruncU(w) };
        let dst = self.push(if w == 32 { ValType::I32 } else { ValType::I64 });
        self.b.assign(dst, Rhs::Unary(op, var(x)));
        Ok(())
    }
}

/// The zero of a value type, as locals start.
pub fn zero_of(t: ValType) -> Option<Operand> {
    match t {
        ValType::I32 => Some(bv(32, 0)),
        ValType::I64 => Some(bv(64, 0)),
        ValType::F32 => Some(Operand::Const(Value::f32(0.0))),
        ValType::F64 => Some(Operand::Const(Value::f64(0.0))),
        _ => None,
    }
}
