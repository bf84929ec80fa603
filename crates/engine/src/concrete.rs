//! The concrete interpreter: runs a program on given inputs. `braid replay`
//! and coverage measurement use it, so every engine is judged by the same,
//! independent execution.

use crate::results::{Branch, Outcome, TestInput};
use crate::semantics::{bug_kind, compose_bytes, BugKind};
use braid_budget::Budget;
use braid_ir::{FuncId, Module, Operand, Rhs, Stmt, StmtIdx, VarId};
use braid_term::{eval_bv, eval_op, Op, Value};
use rustc_hash::FxHashMap;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

pub struct ConcreteRun {
    pub outcome: Outcome,
    pub covered: BTreeSet<Branch>,
    pub steps: u64,
    /// A hash of the path: the branch outcomes in the order taken, and the
    /// bug the run ended with, if any. Runs with equal traces took the same
    /// path through the program's branches.
    pub trace: u64,
    /// What `output` statements wrote to streams 1 and 2.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

struct Frame {
    func: FuncId,
    at: StmtIdx,
    /// The variables, then the function's constants (see [`Code`]).
    vars: Vec<Value>,
    ret_dst: Option<VarId>,
}

struct Machine<'m> {
    module: &'m Module,
    code: &'m Code,
    frames: Vec<Frame>,
    memory: Vec<Cells>,
    /// Input values by occurrence name (see [`input_name`]).
    inputs: FxHashMap<String, Value>,
    reads: FxHashMap<String, u32>,
    /// Branch outcomes covered, two bits per statement of each function.
    covered: Vec<Vec<u64>>,
    /// The path's branch outcomes so far, hashed (see [`ConcreteRun::trace`]).
    trace: u64,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The value the run ended with (returned by the entry, or `halt`'s).
    ended_with: Option<Value>,
}

pub use braid_ir::input_name;

/// An allocation's cells: plain bytes while every cell holds one (as
/// WebAssembly's linear memory does), else values. A byte allocation
/// becomes one of values when a cell gets anything but a byte.
enum Cells {
    Bytes(Vec<u8>),
    Values(Vec<Value>),
}

impl Cells {
    fn new(fill: Value, n: usize) -> Cells {
        match fill {
            Value::Bv { width: 8, bits } => Cells::Bytes(vec![bits as u8; n]),
            _ => Cells::Values(vec![fill; n]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Cells::Bytes(b) => b.len(),
            Cells::Values(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> Option<Value> {
        match self {
            Cells::Bytes(b) => b.get(i).map(|x| Value::bv(8, *x as u64)),
            Cells::Values(v) => v.get(i).copied(),
        }
    }

    /// The values, once this allocation holds more than bytes.
    fn values(&mut self) -> &mut Vec<Value> {
        if let Cells::Bytes(b) = self {
            *self = Cells::Values(b.iter().map(|x| Value::bv(8, *x as u64)).collect());
        }
        match self {
            Cells::Values(v) => v,
            Cells::Bytes(_) => unreachable!("converted above"),
        }
    }

    fn set(&mut self, i: usize, v: Value) {
        match (&mut *self, v) {
            (Cells::Bytes(b), Value::Bv { width: 8, bits }) => b[i] = bits as u8,
            _ => self.values()[i] = v,
        }
    }

    /// The `n`-byte little-endian value at `o` (in bounds); `None` if a
    /// cell there holds something other than a byte (undefined cells read
    /// as zero).
    fn load(&self, o: usize, n: usize) -> Option<Value> {
        match self {
            Cells::Bytes(b) => {
                let bits = b[o..o + n].iter().rev().fold(0u64, |acc, x| (acc << 8) | *x as u64);
                Some(Value::bv(8 * n as u8, bits))
            }
            Cells::Values(v) => compose_bytes(8 * n as u8, &v[o..o + n]),
        }
    }

    /// Stores the `n` low bytes of `bits` at `o` (in bounds), little-endian.
    fn store(&mut self, o: usize, n: usize, bits: u64) {
        match self {
            Cells::Bytes(b) => {
                for (i, c) in b[o..o + n].iter_mut().enumerate() {
                    *c = (bits >> (8 * i)) as u8;
                }
            }
            Cells::Values(v) => {
                for (i, c) in v[o..o + n].iter_mut().enumerate() {
                    *c = Value::bv(8, bits >> (8 * i));
                }
            }
        }
    }

    fn grow(&mut self, n: usize, fill: Value) {
        match (&mut *self, fill) {
            (Cells::Bytes(b), Value::Bv { width: 8, bits }) => b.resize(b.len() + n, bits as u8),
            _ => {
                let v = self.values();
                v.resize(v.len() + n, fill);
            }
        }
    }
}

enum Flow {
    Next,
    Jump(StmtIdx),
    Stay,
    Done(Outcome),
}

/// The interpreter's pre-decoded form of a module: per function, one
/// instruction per statement with operands as frame slots (the function's
/// variables, then its constants), jumps to known labels resolved. Built a
/// function at a time, on its first call, and kept from run to run.
pub struct Code {
    funcs: Vec<OnceCell<FuncCode>>,
}

struct FuncCode {
    insts: Vec<Inst>,
    /// The slots a new frame starts with: undefined variables, then constants.
    slots: Vec<Value>,
}

/// A statement in the fast form; the others (`Other`) run from the IR.
#[derive(Clone, Copy)]
enum Inst {
    Copy {
        dst: u32,
        a: u32,
    },
    Unary {
        op: Op,
        dst: u32,
        a: u32,
    },
    Binary {
        op: Op,
        dst: u32,
        a: u32,
        b: u32,
    },
    /// `bytes` 0 is a one-cell access of any value.
    Load {
        dst: u32,
        addr: u32,
        bytes: u8,
    },
    Store {
        addr: u32,
        value: u32,
        bytes: u8,
    },
    /// `to` is the statement a known label names (`None`: computed).
    If {
        cond: u32,
        to: Option<StmtIdx>,
    },
    Goto {
        to: StmtIdx,
    },
    Other,
}

impl Code {
    pub fn new(module: &Module) -> Code {
        Code {
            funcs: module.functions.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    fn func(&self, module: &Module, f: FuncId) -> &FuncCode {
        self.funcs[f.0 as usize].get_or_init(|| FuncCode::new(module, f))
    }
}

impl FuncCode {
    fn new(module: &Module, id: FuncId) -> FuncCode {
        let f = module.func(id);
        let mut slots = vec![Value::Undef; f.vars.len()];
        let mut consts: FxHashMap<Value, u32> = FxHashMap::default();
        let mut slot = |o: &Operand| -> u32 {
            match o {
                Operand::Var(v) => v.0,
                Operand::Const(c) => *consts.entry(*c).or_insert_with(|| {
                    slots.push(*c);
                    slots.len() as u32 - 1
                }),
            }
        };
        let label = |o: &Operand| match o {
            Operand::Const(Value::Label { func, label }) if *func == id.0 => f.label_target(*label),
            _ => None,
        };
        let bytes = |w: &Option<u8>| w.map_or(0, |w| w / 8);
        let insts = f
            .stmts
            .iter()
            .map(|stmt| match stmt {
                Stmt::Assign { dst, rhs } => match rhs {
                    Rhs::Copy(a) => Inst::Copy { dst: dst.0, a: slot(a) },
                    Rhs::Unary(op, a) => Inst::Unary {
                        op: *op,
                        dst: dst.0,
                        a: slot(a),
                    },
                    Rhs::Binary(op, a, b) => Inst::Binary {
                        op: *op,
                        dst: dst.0,
                        a: slot(a),
                        b: slot(b),
                    },
                    Rhs::Load { addr, width } => Inst::Load {
                        dst: dst.0,
                        addr: slot(addr),
                        bytes: bytes(width),
                    },
                    _ => Inst::Other,
                },
                Stmt::Store { addr, value, width } => Inst::Store {
                    addr: slot(addr),
                    value: slot(value),
                    bytes: bytes(width),
                },
                Stmt::If { cond, target } => Inst::If {
                    cond: slot(cond),
                    to: label(target),
                },
                Stmt::Goto(target) => match label(target) {
                    Some(to) => Inst::Goto { to },
                    None => Inst::Other,
                },
                _ => Inst::Other,
            })
            .collect();
        FuncCode { insts, slots }
    }
}

impl Machine<'_> {
    fn frame(&self) -> &Frame {
        self.frames.last().expect("a running machine has a frame")
    }

    fn value(&self, o: &Operand) -> Value {
        match o {
            Operand::Var(v) => self.frame().vars[v.0 as usize],
            Operand::Const(c) => *c,
        }
    }

    fn bug(&self, kind: impl Into<String>) -> Flow {
        let f = self.frame();
        Flow::Done(Outcome::bug(self.module, &kind.into(), f.func, f.at))
    }

    /// The next read of input `name`; inputs a test leaves out (the solver
    /// left them free) take their sort's default value.
    fn next_input(&mut self, name: &str, sort: braid_term::Sort) -> Value {
        let k = self.reads.entry(name.to_string()).or_insert(0);
        let key = input_name(name, *k);
        *k += 1;
        match self.inputs.get(&key) {
            Some(v) if v.sort() == sort => *v,
            _ => Value::default_of(sort),
        }
    }

    /// The allocation and in-bounds offset `p` points to, for `len` cells.
    fn cell(&self, p: Value, len: i128) -> Result<(usize, usize), BugKind> {
        cell_in(&self.memory, p, len)
    }

    fn end(&mut self, returned: Option<Value>) -> Outcome {
        self.ended_with = returned;
        let f = self.frame();
        let func = self.module.func(f.func);
        let values = func
            .vars
            .iter()
            .zip(&f.vars)
            .filter(|(_, v)| **v != Value::Undef)
            .map(|(n, v)| (n.clone(), self.module.render_value(v)))
            .collect();
        Outcome::End {
            function: func.name.clone(),
            values,
            memory: self
                .memory
                .iter()
                .enumerate()
                .filter(|(_, cells)| cells.len() <= crate::semantics::MAX_RENDERED_CELLS)
                .map(|(i, cells)| {
                    let values = (0..cells.len()).filter_map(|k| cells.get(k));
                    (format!("a{i}"), values.map(|v| self.module.render_value(&v)).collect())
                })
                .collect(),
            returned: returned.map(|v| self.module.render_value(&v)),
        }
    }

    fn step(&mut self) -> Flow {
        let (func, at) = (self.frame().func, self.frame().at);
        let f = self.module.func(func);
        let Some(stmt) = f.stmts.get(at as usize) else {
            return self.ret(None);
        };
        let assign = |m: &mut Self, dst: &VarId, v: Value| {
            m.frames.last_mut().expect("frame").vars[dst.0 as usize] = v;
            Flow::Next
        };
        match stmt {
            Stmt::Assign { dst, rhs } => {
                let v = match rhs {
                    Rhs::Copy(a) => Ok(self.value(a)),
                    Rhs::Input { sort, name } => Ok(self.next_input(name, *sort)),
                    Rhs::Unary(op, a) => eval_op(*op, &[self.value(a)]),
                    Rhs::Binary(op, a, b) => eval_op(*op, &[self.value(a), self.value(b)]),
                    Rhs::Select(c, a, b) => match self.value(c) {
                        Value::Bool(true) => Ok(self.value(a)),
                        Value::Bool(false) => Ok(self.value(b)),
                        _ => return self.bug(BugKind::TypeError.name()),
                    },
                    Rhs::Load { addr, width } => {
                        let n = width.map_or(1, |w| w as i128 / 8);
                        match self.cell(self.value(addr), n) {
                            Err(k) => return self.bug(k.name()),
                            Ok((a, o)) => {
                                let cells = &self.memory[a];
                                match width {
                                    None => Ok(cells.get(o).expect("in bounds")),
                                    Some(w) => match cells.load(o, *w as usize / 8) {
                                        Some(v) => Ok(v),
                                        None => return self.bug(BugKind::TypeError.name()),
                                    },
                                }
                            }
                        }
                    }
                    Rhs::Alloc(n, fill) => match self.value(n) {
                        Value::Int(k) if (0..=crate::semantics::MAX_ALLOC as i128).contains(&k) => {
                            let fill = fill.as_ref().map_or(Value::Undef, |v| self.value(v));
                            self.memory.push(Cells::new(fill, k as usize));
                            Ok(Value::Addr {
                                alloc: self.memory.len() as u32 - 1,
                                offset: 0,
                            })
                        }
                        Value::Bv { bits, .. } if bits <= crate::semantics::MAX_ALLOC => {
                            let fill = fill.as_ref().map_or(Value::Undef, |v| self.value(v));
                            self.memory.push(Cells::new(fill, bits as usize));
                            Ok(Value::Addr {
                                alloc: self.memory.len() as u32 - 1,
                                offset: 0,
                            })
                        }
                        _ => return self.bug(BugKind::BadAllocation.name()),
                    },
                };
                match v {
                    Ok(v) => assign(self, dst, v),
                    Err(e) => self.bug(bug_kind(&e).name()),
                }
            }
            Stmt::Store { addr, value, width } => {
                let v = self.value(value);
                let n = width.map_or(1, |w| w as i128 / 8);
                match self.cell(self.value(addr), n) {
                    Err(k) => self.bug(k.name()),
                    Ok((a, o)) => {
                        match (width, v) {
                            (None, _) => self.memory[a].set(o, v),
                            (Some(w), Value::Bv { width, bits }) if width == *w => {
                                self.memory[a].store(o, *w as usize / 8, bits)
                            }
                            _ => return self.bug(BugKind::TypeError.name()),
                        }
                        Flow::Next
                    }
                }
            }
            Stmt::Call { dst, callee, args } => {
                let Value::Func(g) = self.value(callee) else {
                    return self.bug(BugKind::TypeError.name());
                };
                let callee_fn = self.module.func(FuncId(g));
                if callee_fn.params.len() != args.len() {
                    return self.bug(BugKind::TypeError.name());
                }
                if self.frames.len() >= crate::semantics::MAX_CALL_DEPTH {
                    return self.bug(BugKind::StackOverflow.name());
                }
                let mut vars = self.code.func(self.module, FuncId(g)).slots.clone();
                for (p, a) in callee_fn.params.iter().zip(args) {
                    vars[p.var.0 as usize] = self.value(a);
                }
                self.frames.push(Frame {
                    func: FuncId(g),
                    at: 0,
                    vars,
                    ret_dst: *dst,
                });
                Flow::Stay
            }
            Stmt::If { cond, target } => match self.value(cond) {
                Value::Bool(taken) => {
                    self.cover(func, at, taken);
                    if !taken {
                        return Flow::Next;
                    }
                    self.jump(func, self.value(target))
                }
                _ => self.bug(BugKind::TypeError.name()),
            },
            Stmt::Goto(target) => self.jump(func, self.value(target)),
            Stmt::Ret(v) => {
                let v = v.as_ref().map(|o| self.value(o));
                self.ret(v)
            }
            Stmt::Assume(c) => match self.value(c) {
                Value::Bool(true) => Flow::Next,
                Value::Bool(false) => Flow::Done(Outcome::bug(self.module, BugKind::AssumeViolated.name(), func, at)),
                _ => self.bug(BugKind::TypeError.name()),
            },
            Stmt::Assert(c) => match self.value(c) {
                Value::Bool(true) => Flow::Next,
                Value::Bool(false) => self.bug(BugKind::Assertion.name()),
                _ => self.bug(BugKind::TypeError.name()),
            },
            Stmt::Error(kind) => self.bug(kind.clone()),
            Stmt::Halt(code) => {
                let code = code.as_ref().map(|o| self.value(o));
                Flow::Done(self.end(code))
            }
            Stmt::Grow { addr, cells, fill } => {
                let (Value::Addr { alloc, .. }, Some(n)) = (self.value(addr), self.value(cells).as_int()) else {
                    return self.bug(BugKind::TypeError.name());
                };
                let fill = self.value(fill);
                let Some(a) = self.memory.get_mut(alloc as usize) else {
                    return self.bug(BugKind::InvalidAddress.name());
                };
                if n < 0 || a.len() as i128 + n > crate::semantics::MAX_ALLOC as i128 {
                    return self.bug(BugKind::BadAllocation.name());
                }
                a.grow(n as usize, fill);
                Flow::Next
            }
            Stmt::Output { stream, byte } => {
                let Value::Bv { bits, .. } = self.value(byte) else {
                    return self.bug(BugKind::TypeError.name());
                };
                match self.value(stream) {
                    Value::Bv { bits: 2, .. } => self.stderr.push(bits as u8),
                    _ => self.stdout.push(bits as u8),
                }
                Flow::Next
            }
        }
    }

    fn cover(&mut self, func: FuncId, at: StmtIdx, taken: bool) {
        let bit = 2 * at as usize + taken as usize;
        self.covered[func.0 as usize][bit / 64] |= 1 << (bit % 64);
        self.trace =
            (self.trace.rotate_left(7) ^ ((func.0 as u64) << 40 | bit as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    /// The common statements in their fast form ([`Code`]); `false` leaves
    /// the statement (and whatever bug it has) to [`Machine::step`].
    #[inline]
    fn step_fast(&mut self) -> bool {
        let Some(frame) = self.frames.last_mut() else {
            return false;
        };
        let code = self.code.func(self.module, frame.func);
        let Some(inst) = code.insts.get(frame.at as usize) else {
            return false;
        };
        let slots = &mut frame.vars;
        let v = |i: u32| slots[i as usize];
        match *inst {
            Inst::Copy { dst, a } => slots[dst as usize] = v(a),
            Inst::Unary { op, dst, a } => match eval_op(op, &[v(a)]) {
                Ok(r) => slots[dst as usize] = r,
                Err(_) => return false,
            },
            Inst::Binary { op, dst, a, b } => {
                let (x, y) = (v(a), v(b));
                if let (Value::Bv { width, bits: p }, Value::Bv { width: w, bits: q }) = (x, y) {
                    if let Some(r) = (width == w).then(|| eval_bv(op, width, p, q)).flatten() {
                        slots[dst as usize] = r;
                        frame.at += 1;
                        return true;
                    }
                }
                if is_integer_division(op, x.sort(), y.sort()) && y == Value::default_of(y.sort()) {
                    return false;
                }
                match eval_op(op, &[x, y]) {
                    Ok(r) => slots[dst as usize] = r,
                    Err(_) => return false,
                }
            }
            Inst::Load { dst, addr, bytes } => {
                let Ok((a, o)) = cell_in(&self.memory, v(addr), bytes.max(1) as i128) else {
                    return false;
                };
                let cells = &self.memory[a];
                slots[dst as usize] = match if bytes == 0 {
                    cells.get(o)
                } else {
                    cells.load(o, bytes as usize)
                } {
                    Some(r) => r,
                    None => return false,
                };
            }
            Inst::Store { addr, value, bytes } => {
                let Ok((a, at)) = cell_in(&self.memory, v(addr), bytes.max(1) as i128) else {
                    return false;
                };
                let (x, cells) = (v(value), &mut self.memory[a]);
                match x {
                    _ if bytes == 0 => cells.set(at, x),
                    Value::Bv { width, bits } if width == 8 * bytes => cells.store(at, bytes as usize, bits),
                    _ => return false,
                }
            }
            Inst::If { cond, to } => {
                let (Value::Bool(taken), func, at) = (v(cond), frame.func, frame.at) else {
                    return false;
                };
                let to = match (taken, to) {
                    (false, _) => at + 1,
                    (true, Some(to)) => to,
                    (true, None) => return false,
                };
                frame.at = to;
                self.cover(func, at, taken);
                return true;
            }
            Inst::Goto { to } => {
                frame.at = to;
                return true;
            }
            Inst::Other => return false,
        }
        frame.at += 1;
        true
    }

    fn jump(&self, func: FuncId, target: Value) -> Flow {
        match target {
            Value::Label { func: g, label } if g == func.0 => match self.module.func(func).label_target(label) {
                Some(s) => Flow::Jump(s),
                None => self.bug(BugKind::TypeError.name()),
            },
            _ => self.bug(BugKind::TypeError.name()),
        }
    }

    fn ret(&mut self, v: Option<Value>) -> Flow {
        if self.frames.len() == 1 {
            return Flow::Done(self.end(v));
        }
        let done = self.frames.pop().expect("frame");
        let caller = self.frames.last_mut().expect("caller frame");
        if let Some(d) = done.ret_dst {
            caller.vars[d.0 as usize] = v.unwrap_or(Value::Undef);
        }
        caller.at += 1;
        Flow::Stay
    }
}

/// The allocation and in-bounds offset `p` points to, for `len` cells.
fn cell_in(memory: &[Cells], p: Value, len: i128) -> Result<(usize, usize), BugKind> {
    let Value::Addr { alloc, offset } = p else {
        return Err(BugKind::InvalidAddress);
    };
    let size = memory.get(alloc as usize).ok_or(BugKind::InvalidAddress)?.len() as i128;
    if offset < 0 || offset + len > size {
        Err(BugKind::OutOfBounds)
    } else {
        Ok((alloc as usize, offset as usize))
    }
}

/// Renders allocations, given as their length and cells, as `a0: [cells]`,
/// reading each cell with `value`; large ones are left out (and not read).
pub fn render_memory<T, I: Iterator<Item = T>>(
    module: &Module,
    allocs: impl Iterator<Item = (usize, I)>,
    mut value: impl FnMut(&T) -> Value,
) -> BTreeMap<String, Vec<String>> {
    allocs
        .enumerate()
        .filter(|(_, (len, _))| *len <= crate::semantics::MAX_RENDERED_CELLS)
        .map(|(i, (_, cells))| {
            (
                format!("a{i}"),
                cells.map(|c| module.render_value(&value(&c))).collect(),
            )
        })
        .collect()
}

/// Runs `entry` on `inputs` (entry parameters are inputs named after them)
/// to its end; `None` if `budget` is exhausted first. Without a budget the
/// run has no limit, as the engines have none: a test of a long program
/// replays however long it runs.
pub fn run_concrete(
    module: &Module,
    entry: FuncId,
    inputs: &[TestInput],
    budget: Option<&Budget>,
) -> Option<ConcreteRun> {
    run_concrete_with(&Code::new(module), module, entry, inputs, budget, None)
}

/// [`run_concrete`] with `code` built (and kept) by the caller: one per
/// module, for many runs.
pub fn run_concrete_with(
    code: &Code,
    module: &Module,
    entry: FuncId,
    inputs: &[TestInput],
    budget: Option<&Budget>,
    max_steps: Option<u64>,
) -> Option<ConcreteRun> {
    let values = inputs
        .iter()
        .map(|i| (i.name.clone(), i.parsed().unwrap_or(Value::Undef)))
        .collect();
    let mut m = Machine::new(module, code, values);
    let f = module.func(entry);
    let mut vars = code.func(module, entry).slots.clone();
    for p in &f.params {
        let sort = p.sort.unwrap_or(braid_term::Sort::Int);
        vars[p.var.0 as usize] = m.next_input(&f.vars[p.var.0 as usize], sort);
    }
    m.frames.push(Frame {
        func: entry,
        at: 0,
        vars,
        ret_dst: None,
    });
    let (outcome, steps) = m.run(max_steps, budget)?;
    let covered = m
        .covered
        .iter()
        .enumerate()
        .flat_map(|(f, bits)| {
            bits.iter().enumerate().flat_map(move |(w, word)| {
                (0..64)
                    .filter(move |b| word >> b & 1 == 1)
                    .map(move |b| (FuncId(f as u32), ((w * 64 + b) / 2) as StmtIdx, b % 2 == 1))
            })
        })
        .collect();
    let trace = match &outcome {
        Outcome::Bug {
            bug, function, stmt, ..
        } => {
            use std::hash::{Hash, Hasher};
            let mut h = rustc_hash::FxHasher::default();
            (m.trace, bug, function, stmt).hash(&mut h);
            h.finish()
        }
        Outcome::End { .. } => m.trace,
    };
    Some(ConcreteRun {
        trace,
        outcome,
        covered,
        steps,
        stdout: m.stdout,
        stderr: m.stderr,
    })
}

impl<'m> Machine<'m> {
    fn new(module: &'m Module, code: &'m Code, inputs: FxHashMap<String, Value>) -> Machine<'m> {
        Machine {
            module,
            code,
            frames: vec![],
            memory: vec![],
            inputs,
            reads: FxHashMap::default(),
            covered: module
                .functions
                .iter()
                .map(|f| vec![0; (2 * f.stmts.len()).div_ceil(64)])
                .collect(),
            trace: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
            ended_with: None,
        }
    }

    /// Runs the pushed frame to its end: after `max_steps` statements it
    /// ends with a step-limit bug; `None` when `budget` is exhausted first.
    fn run(&mut self, max_steps: Option<u64>, budget: Option<&Budget>) -> Option<(Outcome, u64)> {
        let mut steps: u64 = 0;
        loop {
            steps += 1;
            if steps.is_multiple_of(4096) && budget.is_some_and(Budget::exhausted) {
                return None;
            }
            if max_steps.is_some_and(|m| steps > m) {
                let Flow::Done(outcome) = self.bug(BugKind::StepLimit.name()) else {
                    unreachable!("bug() ends the run")
                };
                return Some((outcome, steps));
            }
            if self.step_fast() {
                continue;
            }
            match self.step() {
                Flow::Next => self.frames.last_mut().expect("frame").at += 1,
                Flow::Jump(s) => self.frames.last_mut().expect("frame").at = s,
                Flow::Stay => {}
                Flow::Done(outcome) => return Some((outcome, steps)),
            }
        }
    }
}

/// A program instance whose memory lives on from call to call, as a
/// WebAssembly instance's does (the spec tests invoke exports in turn).
pub struct Instance<'m> {
    machine: Machine<'m>,
}

impl<'m> Instance<'m> {
    pub fn new(module: &'m Module, code: &'m Code) -> Instance<'m> {
        Instance {
            machine: Machine::new(module, code, FxHashMap::default()),
        }
    }

    /// Calls `func` on concrete `args`: what it returned, or the kind of
    /// bug that ended it. Memory keeps what the call did, even after a bug.
    pub fn call(&mut self, func: FuncId, args: &[Value], max_steps: u64) -> Result<Option<Value>, String> {
        let m = &mut self.machine;
        let f = m.module.func(func);
        let mut vars = m.code.func(m.module, func).slots.clone();
        for (p, a) in f.params.iter().zip(args) {
            vars[p.var.0 as usize] = *a;
        }
        m.frames.clear();
        m.frames.push(Frame {
            func,
            at: 0,
            vars,
            ret_dst: None,
        });
        m.ended_with = None;
        match m.run(Some(max_steps), None).map(|r| r.0) {
            None => Err(BugKind::StepLimit.name().to_string()),
            Some(Outcome::Bug { bug, .. }) => Err(bug),
            Some(Outcome::End { .. }) => Ok(m.ended_with),
        }
    }

    /// The cell at `offset` of allocation `alloc`, if it exists.
    pub fn cell(&self, alloc: u32, offset: usize) -> Option<Value> {
        self.machine.memory.get(alloc as usize)?.get(offset)
    }
}

/// Whether `op` on operands of these sorts is an integer division, whose
/// zero divisor is a bug (a float on either side makes it float division,
/// where x / 0 is an infinity).
pub fn is_integer_division(op: Op, dividend: braid_term::Sort, divisor: braid_term::Sort) -> bool {
    use braid_term::Sort;
    matches!(op, Op::Div | Op::Rem | Op::UDiv | Op::URem)
        && matches!(dividend, Sort::Int | Sort::Bv(_))
        && matches!(divisor, Sort::Int | Sort::Bv(_))
}
