//! The concrete interpreter: runs a program on given inputs. `braid replay`
//! and coverage measurement use it, so every engine is judged by the same,
//! independent execution.

use crate::results::{Branch, Outcome, TestInput};
use crate::semantics::{bug_kind, compose_bytes, BugKind};
use braid_budget::Budget;
use braid_ir::{FuncId, Module, Operand, Rhs, Stmt, StmtIdx, VarId};
use braid_term::{eval_bv_bits, eval_op, BvResult, Op, Value};
use code::{AddressOf, Kind};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

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
    /// While running ahead: per allocation handed over, a bit per
    /// [`WRITTEN_PAGE`] cells that a store may have changed.
    written: Option<Vec<Vec<u64>>>,
}

/// Cells per bit of [`Machine::written`].
pub(crate) const WRITTEN_PAGE: usize = 1024;

/// Marks cells `o..o + n` of allocation `a` written.
#[inline]
fn mark(written: &mut Option<Vec<Vec<u64>>>, a: usize, o: usize, n: usize) {
    if let Some(bits) = written.as_mut().and_then(|w| w.get_mut(a)) {
        for p in o / WRITTEN_PAGE..=(o + n.max(1) - 1) / WRITTEN_PAGE {
            if let Some(word) = bits.get_mut(p / 64) {
                *word |= 1 << (p % 64);
            }
        }
    }
}

/// The indices of the set bits of `words`, in increasing order (a word
/// at a time: only set bits cost).
pub(crate) fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words
        .iter()
        .enumerate()
        .filter(|(_, w)| **w != 0)
        .flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + b
                })
            })
        })
}

/// Whether page `p` ([`WRITTEN_PAGE`] cells) is marked in `bits`.
pub(crate) fn marked(bits: &[u64], p: usize) -> bool {
    bits.get(p / 64).is_some_and(|w| w >> (p % 64) & 1 == 1)
}

pub(crate) mod ahead;
mod code;

pub use braid_ir::input_name;
pub use code::Code;

/// An allocation's cells: plain bytes while every cell holds one (as
/// WebAssembly's linear memory does), else values. A byte allocation
/// becomes one of values when a cell gets anything but a byte. An engine
/// running a state ahead hands over bytes with a few cells holding other
/// values (its terms' placeholders) as `Held`.
#[derive(Clone)]
pub(crate) enum Cells {
    Bytes(Vec<u8>),
    Values(Vec<Value>),
    /// Bytes but where `mask` has a cell's bit: that cell's value is in
    /// `held`.
    Held {
        bytes: Vec<u8>,
        mask: Vec<u64>,
        held: FxHashMap<usize, Value>,
    },
}

/// Builds [`Cells`] cell by cell: bytes while they are, bytes with a few
/// held values, or values. The bytes start zeroed (fresh pages from the
/// allocator), so runs of zero bytes are skipped, not written: handing an
/// 8 MiB stack over costs the pages that hold something.
pub(crate) struct CellsBuilder {
    bytes: Vec<u8>,
    at: usize,
    held: Vec<(usize, Value)>,
}

impl CellsBuilder {
    pub(crate) fn new(n: usize) -> CellsBuilder {
        CellsBuilder {
            bytes: vec![0; n],
            at: 0,
            held: Vec::new(),
        }
    }

    /// The next cell; cells past the builder's length are dropped.
    #[inline]
    pub(crate) fn push(&mut self, v: Value) {
        if self.at < self.bytes.len() {
            match v {
                Value::Bv { width: 8, bits } => self.bytes[self.at] = bits as u8,
                _ => self.held.push((self.at, v)),
            }
        }
        self.at += 1;
    }

    pub(crate) fn extend_bytes(&mut self, b: &[u8]) {
        let end = (self.at + b.len()).min(self.bytes.len());
        if self.at < end {
            self.bytes[self.at..end].copy_from_slice(&b[..end - self.at]);
        }
        self.at += b.len();
    }

    /// `n` zero bytes.
    pub(crate) fn zeros(&mut self, n: usize) {
        self.at += n;
    }

    pub(crate) fn finish(mut self, n: usize) -> Cells {
        self.bytes.truncate(n);
        self.held.retain(|(i, _)| *i < n);
        if self.held.is_empty() {
            return Cells::Bytes(self.bytes);
        }
        if self.held.len() > n / 16 {
            let mut values: Vec<Value> = self.bytes.iter().map(|b| Value::bv(8, *b as u64)).collect();
            for (i, v) in self.held {
                values[i] = v;
            }
            return Cells::Values(values);
        }
        let mut mask = vec![0u64; n.div_ceil(64)];
        for (i, _) in &self.held {
            mask[i / 64] |= 1 << (i % 64);
        }
        Cells::Held {
            bytes: self.bytes,
            mask,
            held: self.held.into_iter().collect(),
        }
    }
}

/// Whether `mask` has a bit among cells `o..o + n`.
#[inline]
fn any_held(mask: &[u64], o: usize, n: usize) -> bool {
    (o..o + n).any(|i| mask[i / 64] >> (i % 64) & 1 == 1)
}

impl Cells {
    fn new(fill: Value, n: usize) -> Cells {
        match fill {
            Value::Bv { width: 8, bits } => Cells::Bytes(vec![bits as u8; n]),
            _ => Cells::Values(vec![fill; n]),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Cells::Bytes(b) | Cells::Held { bytes: b, .. } => b.len(),
            Cells::Values(v) => v.len(),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Option<Value> {
        match self {
            Cells::Bytes(b) => b.get(i).map(|x| Value::bv(8, *x as u64)),
            Cells::Values(v) => v.get(i).copied(),
            Cells::Held { bytes, mask, held } => {
                let x = bytes.get(i)?;
                Some(if mask[i / 64] >> (i % 64) & 1 == 1 {
                    held[&i]
                } else {
                    Value::bv(8, *x as u64)
                })
            }
        }
    }

    /// The bytes, if cells `o..o + n` are plain bytes.
    #[inline(always)]
    pub(crate) fn plain(&self, o: usize, n: usize) -> Option<&[u8]> {
        match self {
            Cells::Bytes(b) => b.get(o..o.checked_add(n)?),
            _ => self.plain_held(o, n),
        }
    }

    #[inline(never)]
    fn plain_held(&self, o: usize, n: usize) -> Option<&[u8]> {
        match self {
            Cells::Bytes(_) => unreachable!("the inlined case"),
            Cells::Held { bytes, mask, .. } => {
                let b = bytes.get(o..o.checked_add(n)?)?;
                (!any_held(mask, o, n)).then_some(b)
            }
            Cells::Values(_) => None,
        }
    }

    /// The bytes to write `n` plain bytes to at `o` (in bounds), the cells
    /// there no longer held.
    #[inline(always)]
    fn plain_mut(&mut self, o: usize, n: usize) -> Option<&mut [u8]> {
        match self {
            Cells::Bytes(b) => b.get_mut(o..o.checked_add(n)?),
            _ => self.plain_mut_held(o, n),
        }
    }

    #[inline(never)]
    fn plain_mut_held(&mut self, o: usize, n: usize) -> Option<&mut [u8]> {
        match self {
            Cells::Bytes(_) => unreachable!("the inlined case"),
            Cells::Held { bytes, mask, held } => {
                let b = bytes.get_mut(o..o.checked_add(n)?)?;
                if any_held(mask, o, n) {
                    for i in o..o + n {
                        mask[i / 64] &= !(1 << (i % 64));
                        held.remove(&i);
                    }
                }
                Some(b)
            }
            Cells::Values(_) => None,
        }
    }

    /// The values, once this allocation holds more than bytes.
    fn values(&mut self) -> &mut Vec<Value> {
        if !matches!(self, Cells::Values(_)) {
            let values = (0..self.len()).map(|i| self.get(i).expect("in bounds")).collect();
            *self = Cells::Values(values);
        }
        match self {
            Cells::Values(v) => v,
            _ => unreachable!("converted above"),
        }
    }

    /// Writes `b` at `o` (in bounds), the cells there no longer held.
    pub(crate) fn put_bytes(&mut self, o: usize, b: &[u8]) {
        match self.plain_mut(o, b.len()) {
            Some(dst) => dst.copy_from_slice(b),
            None => {
                for (c, x) in self.values()[o..o + b.len()].iter_mut().zip(b) {
                    *c = Value::bv(8, *x as u64);
                }
            }
        }
    }

    /// Sets cell `i` (in bounds) to `v` as [`CellsBuilder`] would have
    /// built it: bytes that get a value other than a byte hold it aside
    /// (an engine's placeholders are few, and an 8 MiB stack of values
    /// takes 128 MiB).
    pub(crate) fn put(&mut self, i: usize, v: Value) {
        if let (Cells::Bytes(b), false) = (&mut *self, matches!(v, Value::Bv { width: 8, .. })) {
            let bytes = std::mem::take(b);
            *self = Cells::Held {
                mask: vec![0; bytes.len().div_ceil(64)],
                bytes,
                held: FxHashMap::default(),
            };
        }
        self.set(i, v)
    }

    fn set(&mut self, i: usize, v: Value) {
        match (&mut *self, v) {
            (Cells::Bytes(_) | Cells::Held { .. }, Value::Bv { width: 8, bits }) => {
                self.plain_mut(i, 1).expect("in bounds")[0] = bits as u8
            }
            (Cells::Held { mask, held, .. }, v) => {
                mask[i / 64] |= 1 << (i % 64);
                held.insert(i, v);
            }
            _ => self.values()[i] = v,
        }
    }

    /// The `n`-byte little-endian value at `o` (in bounds); `None` if a
    /// cell there holds something other than a byte (undefined cells read
    /// as zero).
    #[inline]
    fn load(&self, o: usize, n: usize) -> Option<Value> {
        if let Some(b) = self.plain(o, n) {
            let bits = match n {
                4 => u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64,
                8 => u64::from_le_bytes(b.try_into().expect("8 bytes")),
                _ => b.iter().rev().fold(0u64, |acc, x| (acc << 8) | *x as u64),
            };
            return Some(Value::Bv {
                width: 8 * n as u8,
                bits,
            });
        }
        match self {
            Cells::Values(v) => compose_bytes(8 * n as u8, &v[o..o + n]),
            _ => {
                let cells: Vec<Value> = (o..o + n).map(|i| self.get(i).expect("in bounds")).collect();
                compose_bytes(8 * n as u8, &cells)
            }
        }
    }

    /// Stores the `n` low bytes of `bits` at `o` (in bounds), little-endian.
    #[inline]
    fn store(&mut self, o: usize, n: usize, bits: u64) {
        if let Some(b) = self.plain_mut(o, n) {
            if n == 4 {
                b.copy_from_slice(&(bits as u32).to_le_bytes());
            } else {
                for (i, c) in b.iter_mut().enumerate() {
                    *c = (bits >> (8 * i)) as u8;
                }
            }
            return;
        }
        for (i, c) in self.values()[o..o + n].iter_mut().enumerate() {
            *c = Value::bv(8, bits >> (8 * i));
        }
    }

    fn grow(&mut self, n: usize, fill: Value) {
        match (&mut *self, fill) {
            (Cells::Bytes(b), Value::Bv { width: 8, bits }) => b.resize(b.len() + n, bits as u8),
            (Cells::Held { bytes, mask, .. }, Value::Bv { width: 8, bits }) => {
                bytes.resize(bytes.len() + n, bits as u8);
                mask.resize(bytes.len().div_ceil(64), 0);
            }
            _ => {
                let v = self.values();
                v.resize(v.len() + n, fill);
            }
        }
    }
}

/// How [`Machine::run_fast`] stopped.
enum Fast {
    /// At a statement the IR runs ([`Kind::Other`], the end of a
    /// function) or at the step limit.
    Paused,
    /// A bug ended the run.
    Ended(Outcome),
    /// Running ahead: the engine takes the state back (see [`ahead`]).
    Handed,
}

enum Flow {
    Next,
    Jump(StmtIdx),
    Stay,
    Done(Outcome),
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

    fn bug(&self, kind: BugKind) -> Flow {
        let f = self.frame();
        Flow::Done(Outcome::bug(self.module, kind, f.func, f.at))
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
                        _ => return self.bug(BugKind::TypeError),
                    },
                    Rhs::Load { addr, width } => {
                        let n = width.map_or(1, |w| w as i128 / 8);
                        match self.cell(self.value(addr), n) {
                            Err(k) => return self.bug(k),
                            Ok((a, o)) => {
                                let cells = &self.memory[a];
                                match width {
                                    None => Ok(cells.get(o).expect("in bounds")),
                                    Some(w) => match cells.load(o, *w as usize / 8) {
                                        Some(v) => Ok(v),
                                        None => return self.bug(BugKind::TypeError),
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
                        _ => return self.bug(BugKind::BadAllocation),
                    },
                };
                match v {
                    Ok(v) => assign(self, dst, v),
                    Err(e) => self.bug(bug_kind(&e)),
                }
            }
            Stmt::Store { addr, value, width } => {
                let v = self.value(value);
                let n = width.map_or(1, |w| w as i128 / 8);
                match self.cell(self.value(addr), n) {
                    Err(k) => self.bug(k),
                    Ok((a, o)) => {
                        mark(&mut self.written, a, o, n as usize);
                        match (width, v) {
                            (None, _) => self.memory[a].set(o, v),
                            (Some(w), Value::Bv { width, bits }) if width == *w => {
                                self.memory[a].store(o, *w as usize / 8, bits)
                            }
                            _ => return self.bug(BugKind::TypeError),
                        }
                        Flow::Next
                    }
                }
            }
            Stmt::Call { dst, callee, args } => {
                let Value::Func(g) = self.value(callee) else {
                    return self.bug(BugKind::TypeError);
                };
                let callee_fn = self.module.func(FuncId(g));
                if callee_fn.params.len() != args.len() {
                    return self.bug(BugKind::TypeError);
                }
                if self.frames.len() >= crate::semantics::MAX_CALL_DEPTH {
                    return self.bug(BugKind::StackOverflow);
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
                _ => self.bug(BugKind::TypeError),
            },
            Stmt::Goto(target) => self.jump(func, self.value(target)),
            Stmt::Ret(v) => {
                let v = v.as_ref().map(|o| self.value(o));
                self.ret(v)
            }
            Stmt::Assume(c) => match self.value(c) {
                Value::Bool(true) => Flow::Next,
                Value::Bool(false) => Flow::Done(Outcome::bug(self.module, BugKind::AssumeViolated, func, at)),
                _ => self.bug(BugKind::TypeError),
            },
            Stmt::Assert(c) => match self.value(c) {
                Value::Bool(true) => Flow::Next,
                Value::Bool(false) => self.bug(BugKind::Assertion),
                _ => self.bug(BugKind::TypeError),
            },
            Stmt::Error(kind) => self.bug(kind.clone()),
            Stmt::Halt(code) => {
                let code = code.as_ref().map(|o| self.value(o));
                Flow::Done(self.end(code))
            }
            Stmt::Grow { addr, cells, fill } => {
                let (Value::Addr { alloc, .. }, Some(n)) = (self.value(addr), self.value(cells).as_int()) else {
                    return self.bug(BugKind::TypeError);
                };
                let fill = self.value(fill);
                let Some(a) = self.memory.get_mut(alloc as usize) else {
                    return self.bug(BugKind::InvalidAddress);
                };
                if n < 0 || a.len() as i128 + n > crate::semantics::MAX_ALLOC as i128 {
                    return self.bug(BugKind::BadAllocation);
                }
                a.grow(n as usize, fill);
                Flow::Next
            }
            Stmt::Output { stream, byte } => {
                let Value::Bv { bits, .. } = self.value(byte) else {
                    return self.bug(BugKind::TypeError);
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
        cover(&mut self.covered, &mut self.trace, func, at, taken);
    }

    /// Runs the current frame's instructions ([`Code`]) until one that runs
    /// from the IR ([`Kind::Other`]), the end of the function, or `limit`
    /// steps. Leaves the frame at the statement where execution goes on.
    /// `AHEAD` ([`ahead`]): a bug, an operation on a value the engine holds
    /// symbolically ([`ahead::held`]), and arriving at a loop head that
    /// `pass` (given the frames' functions and statements) does not let
    /// by hand the state back before the instruction, or at the head.
    fn run_fast<const AHEAD: bool>(&mut self, steps: &mut u64, limit: u64, pass: &mut ahead::PassHead) -> Fast {
        let (module, code) = (self.module, self.code);
        let Machine {
            frames,
            memory,
            covered,
            trace,
            written,
            ..
        } = self;
        let mut context: Vec<(FuncId, StmtIdx)> = match AHEAD {
            true => frames.iter().map(|f| (f.func, f.at)).collect(),
            false => Vec::new(),
        };
        let Some(frame) = frames.last_mut() else {
            return Fast::Paused;
        };
        let func = frame.func;
        let f = module.func(func);
        let fc = code.func(module, func);
        let insts = &fc.insts[..];
        let slots = &mut frame.vars[..];
        // Every frame is its function's slots (`slot` relies on it).
        assert_eq!(slots.len(), fc.slots.len(), "a frame of its function's slots");
        let here = &mut covered[func.0 as usize][..];
        let Some(&start) = fc.resume.get(frame.at as usize) else {
            return Fast::Paused;
        };
        let mut pc = start as usize;
        let bug = |kind: BugKind, stmt: StmtIdx| match AHEAD {
            true => Fast::Handed,
            false => Fast::Ended(Outcome::bug(module, kind, func, stmt)),
        };
        // Arriving at a loop head `h` (not `NONE`): whether to go on.
        let mut passes = |h: StmtIdx| {
            h == code::NONE || {
                let top = context.len() - 1;
                context[top] = (func, h);
                pass(&context)
            }
        };
        let mut at_head = None;
        let mut weight = 0;
        let ended = loop {
            let Some(inst) = insts.get(pc) else {
                break Fast::Paused;
            };
            if inst.kind == Kind::Other {
                *steps += inst.weight as u64 - 1;
                break Fast::Paused;
            }
            if *steps >= limit {
                break Fast::Paused;
            }
            weight = inst.weight as u64;
            *steps += weight;
            let s = inst.stmt;
            match inst.kind {
                Kind::Copy { dst, a } => *slot_mut(slots, dst) = *slot(slots, a),
                Kind::Unary { op, dst, a } => {
                    if AHEAD && ahead::held(slot(slots, a)) {
                        break Fast::Handed;
                    }
                    match eval_op(op, &[*slot(slots, a)]) {
                        Ok(v) => *slot_mut(slots, dst) = v,
                        Err(e) => break bug(bug_kind(&e), s),
                    }
                }
                Kind::Binary { op, dst, a, b } => match bv_binary(op, slot(slots, a), slot(slots, b)) {
                    Some(r) => *slot_mut(slots, dst) = r,
                    None if AHEAD && ahead::held_either(slot(slots, a), slot(slots, b)) => break Fast::Handed,
                    None => match eval_binary(op, slots, a, b) {
                        Ok(v) => *slot_mut(slots, dst) = v,
                        Err(e) => break bug(bug_kind(&e), s),
                    },
                },
                Kind::Select { dst, c, a, b } => match *slot(slots, c) {
                    Value::Bool(c) => *slot_mut(slots, dst) = *slot(slots, if c { a } else { b }),
                    _ => break bug(BugKind::TypeError, s),
                },
                Kind::CompareToBv { op, width, dst, a, b } => {
                    let c = match bv_binary(op, slot(slots, a), slot(slots, b)) {
                        Some(c) => c,
                        None if AHEAD && ahead::held_either(slot(slots, a), slot(slots, b)) => break Fast::Handed,
                        None => match eval_binary(op, slots, a, b) {
                            Ok(c) => c,
                            Err(e) => break bug(bug_kind(&e), s),
                        },
                    };
                    match c {
                        Value::Bool(c) => *slot_mut(slots, dst) = Value::Bv { width, bits: c as u64 },
                        v => match eval_op(Op::ToBv(width), &[v]) {
                            Ok(v) => *slot_mut(slots, dst) = v,
                            Err(e) => break bug(bug_kind(&e), s + 1),
                        },
                    }
                }
                Kind::Load { dst, addr, bytes } => match load(memory, *slot(slots, addr), bytes) {
                    Ok(v) => *slot_mut(slots, dst) = v,
                    Err(k) => break bug(k, s),
                },
                Kind::Store { addr, value, bytes } => {
                    match store(memory, *slot(slots, addr), *slot(slots, value), bytes) {
                        Ok((a, o)) if AHEAD => mark(written, a, o, bytes as usize),
                        Ok(_) => {}
                        Err(k) => break bug(k, s),
                    }
                }
                Kind::Address { dst, at } => match address(slots, at) {
                    Ok(p) => *slot_mut(slots, dst) = p,
                    Err((e, part)) => break bug(bug_kind(&e), s + part),
                },
                Kind::LoadAt { dst, at, bytes, widen } => {
                    *slot_mut(slots, dst) = match load_fast(slots, memory, at, bytes, widen) {
                        Some(v) => v,
                        None => match load_at(slots, memory, at, bytes, widen) {
                            Ok(v) => v,
                            Err((k, part)) => break bug(k, s + part),
                        },
                    };
                }
                Kind::LoadBinary {
                    op,
                    dst,
                    at,
                    bytes,
                    widen,
                    other,
                    swap,
                    part,
                } => {
                    let loaded = match load_fast(slots, memory, at, bytes, widen) {
                        Some(v) => v,
                        None => match load_at(slots, memory, at, bytes, widen) {
                            Ok(v) => v,
                            Err((k, part)) => break bug(k, s + part),
                        },
                    };
                    let o = slot(slots, other);
                    let (x, y) = if swap { (o, &loaded) } else { (&loaded, o) };
                    match bv_binary(op, x, y) {
                        Some(r) => *slot_mut(slots, dst) = r,
                        None if AHEAD && ahead::held_either(x, y) => break Fast::Handed,
                        None => match eval_values(op, *x, *y) {
                            Ok(v) => *slot_mut(slots, dst) = v,
                            Err(e) => break bug(bug_kind(&e), s + part as StmtIdx),
                        },
                    }
                }
                Kind::StoreAt { at, value, bytes } => {
                    let stored = match (fast_address(slots, at), slot(slots, value)) {
                        (Some((a, o)), &Value::Bv { width, bits }) if width == 8 * bytes => {
                            let stored = store_bytes(memory, a, o, bytes, bits);
                            if AHEAD && stored {
                                mark(written, a as usize, o as usize, bytes as usize);
                            }
                            stored
                        }
                        _ => false,
                    };
                    if !stored {
                        match store_at(slots, memory, at, value, bytes) {
                            Ok((a, o)) if AHEAD => mark(written, a, o, bytes as usize),
                            Ok(_) => {}
                            Err((k, part)) => break bug(k, s + part),
                        }
                    }
                }
                Kind::If { cond, to } => {
                    let &Value::Bool(taken) = slot(slots, cond) else {
                        break bug(BugKind::TypeError, s);
                    };
                    cover_in(here, trace, func, s, taken);
                    let (from, next) = if taken { (pc, to as usize) } else { (usize::MAX, pc + 1) };
                    if AHEAD && !passes(fc.arrival(f, from, next)) {
                        at_head = Some(fc.arrival(f, from, next));
                        pc = next;
                        break Fast::Handed;
                    }
                    pc = next;
                    continue;
                }
                Kind::IfBinary {
                    op,
                    a,
                    b,
                    to,
                    negate,
                    branch,
                } => {
                    let c = match bv_binary(op, slot(slots, a), slot(slots, b)) {
                        Some(c) => c,
                        None if AHEAD && ahead::held_either(slot(slots, a), slot(slots, b)) => break Fast::Handed,
                        None => match eval_binary(op, slots, a, b) {
                            Ok(c) => c,
                            Err(e) => break bug(bug_kind(&e), s),
                        },
                    };
                    let Value::Bool(holds) = c else {
                        break bug(BugKind::TypeError, s + 1);
                    };
                    let taken = holds != negate;
                    cover_in(here, trace, func, s + branch as StmtIdx, taken);
                    let (from, next) = if taken { (pc, to as usize) } else { (usize::MAX, pc + 1) };
                    if AHEAD && !passes(fc.arrival(f, from, next)) {
                        at_head = Some(fc.arrival(f, from, next));
                        pc = next;
                        break Fast::Handed;
                    }
                    pc = next;
                    continue;
                }
                Kind::Goto { to } => {
                    if AHEAD && !passes(fc.arrival(f, pc, to as usize)) {
                        at_head = Some(fc.arrival(f, pc, to as usize));
                        pc = to as usize;
                        break Fast::Handed;
                    }
                    pc = to as usize;
                    continue;
                }
                Kind::Other => unreachable!("left for the IR above"),
            }
            pc += 1;
            if AHEAD && !passes(fc.arrival(f, usize::MAX, pc)) {
                at_head = Some(fc.arrival(f, usize::MAX, pc));
                break Fast::Handed;
            }
        };
        if AHEAD && matches!(ended, Fast::Handed) && at_head.is_none() {
            // Handed back before the instruction: it did not run.
            *steps -= weight;
        }
        frame.at = at_head.unwrap_or_else(|| insts.get(pc).map_or(f.stmts.len() as StmtIdx, |i| i.stmt));
        ended
    }

    fn jump(&self, func: FuncId, target: Value) -> Flow {
        match target {
            Value::Label { func: g, label } if g == func.0 => match self.module.func(func).label_target(label) {
                Some(s) => Flow::Jump(s),
                None => self.bug(BugKind::TypeError),
            },
            _ => self.bug(BugKind::TypeError),
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

/// Slot `i` of a frame, unchecked on the interpreter's hot path: the code
/// checks every slot it names against its function's slots when it is
/// built (`code::link`), and [`Machine::run_fast`] runs only frames of
/// their function's slots.
#[inline(always)]
fn slot(slots: &[Value], i: u32) -> &Value {
    debug_assert!((i as usize) < slots.len());
    // SAFETY: see above.
    unsafe { slots.get_unchecked(i as usize) }
}

#[inline(always)]
fn slot_mut(slots: &mut [Value], i: u32) -> &mut Value {
    debug_assert!((i as usize) < slots.len());
    // SAFETY: as for `slot`.
    unsafe { slots.get_unchecked_mut(i as usize) }
}

/// Marks a branch outcome covered and adds it to the path's hash.
fn cover(covered: &mut [Vec<u64>], trace: &mut u64, func: FuncId, at: StmtIdx, taken: bool) {
    cover_in(&mut covered[func.0 as usize], trace, func, at, taken)
}

/// [`cover`] with the function's bits at hand.
#[inline(always)]
fn cover_in(covered: &mut [u64], trace: &mut u64, func: FuncId, at: StmtIdx, taken: bool) {
    let bit = 2 * at as usize + taken as usize;
    covered[bit / 64] |= 1 << (bit % 64);
    *trace = (trace.rotate_left(7) ^ ((func.0 as u64) << 40 | bit as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
}

/// `x op y` when both are bit-vectors of one width and the operation
/// cannot fail, built in place; `None` leaves it to [`eval_op`].
#[inline(always)]
fn bv_binary(op: Op, x: &Value, y: &Value) -> Option<Value> {
    let (&Value::Bv { width, bits: p }, &Value::Bv { width: w, bits: q }) = (x, y) else {
        return None;
    };
    if width != w {
        return None;
    }
    Some(match eval_bv_bits(op, width, p, q)? {
        BvResult::Bits(bits) => Value::Bv { width, bits },
        BvResult::Bool(b) => Value::Bool(b),
    })
}

/// `a op b` over slots the general way (what [`bv_binary`] leaves).
#[cold]
#[inline(never)]
fn eval_binary(op: Op, slots: &[Value], a: u32, b: u32) -> Result<Value, braid_term::EvalError> {
    eval_values(op, slots[a as usize], slots[b as usize])
}

#[cold]
#[inline(never)]
fn eval_values(op: Op, x: Value, y: Value) -> Result<Value, braid_term::EvalError> {
    eval_op(op, &[x, y])
}

/// The allocation and offset of `at` when its index is a bit-vector and
/// its base an address, as the lowering makes them.
#[inline(always)]
fn fast_address(slots: &[Value], at: AddressOf) -> Option<(u32, i128)> {
    match (slot(slots, at.index), slot(slots, at.base)) {
        // zext to 64 bits, then read as a signed 64-bit integer.
        (&Value::Bv { bits, .. }, &Value::Addr { alloc, offset }) => {
            Some((alloc, offset.checked_add(bits as i64 as i128 + at.off as i128)?))
        }
        _ => None,
    }
}

/// The `bytes` (> 0) little-endian bytes at `offset` of a byte allocation;
/// `None` for anything else (out of bounds, cells that are not bytes).
#[inline(always)]
fn load_bytes(memory: &[Cells], alloc: u32, offset: i128, bytes: u8) -> Option<u64> {
    let o = usize::try_from(offset).ok()?;
    let cells = memory.get(alloc as usize)?.plain(o, bytes as usize)?;
    Some(match bytes {
        4 => u32::from_le_bytes(cells.try_into().ok()?) as u64,
        8 => u64::from_le_bytes(cells.try_into().ok()?),
        _ => cells.iter().rev().fold(0u64, |acc, x| (acc << 8) | *x as u64),
    })
}

/// Stores `bytes` (> 0) little-endian bytes of `bits` at `offset` of a
/// byte allocation; `false` (nothing stored) for anything else.
#[inline(always)]
fn store_bytes(memory: &mut [Cells], alloc: u32, offset: i128, bytes: u8, bits: u64) -> bool {
    let Some(cells) = usize::try_from(offset)
        .ok()
        .zip(memory.get_mut(alloc as usize))
        .and_then(|(o, c)| c.plain_mut(o, bytes as usize))
    else {
        return false;
    };
    match bytes {
        4 => cells.copy_from_slice(&(bits as u32).to_le_bytes()),
        _ => cells
            .iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = (bits >> (8 * i)) as u8),
    }
    true
}

/// The address `at` computes; on failure, the error and which of the
/// chain's statements (from 0) raised it.
#[inline]
fn address(slots: &[Value], at: AddressOf) -> Result<Value, (braid_term::EvalError, u32)> {
    if let Some((alloc, offset)) = fast_address(slots, at) {
        return Ok(Value::Addr { alloc, offset });
    }
    let (index, base) = (&slots[at.index as usize], &slots[at.base as usize]);
    let wide = eval_op(Op::ZExt(64), &[*index]).map_err(|e| (e, 0))?;
    let mut n = eval_op(Op::ToInt, &[wide]).map_err(|e| (e, 1))?;
    if at.offset {
        n = eval_op(Op::Add, &[n, Value::Int(at.off as i128)]).map_err(|e| (e, 2))?;
    }
    eval_op(Op::Add, &[*base, n]).map_err(|e| (e, at.len() - 1))
}

/// What [`Kind::LoadAt`] loads when its cells are plain bytes and any
/// widening a `zext` or `sext`.
#[inline(always)]
fn load_fast(slots: &[Value], memory: &[Cells], at: AddressOf, bytes: u8, widen: Option<Op>) -> Option<Value> {
    let bits = fast_address(slots, at).and_then(|(a, o)| load_bytes(memory, a, o, bytes))?;
    let width = 8 * bytes;
    match widen {
        None => Some(Value::Bv { width, bits }),
        Some(Op::ZExt(w)) if w >= width => Some(Value::Bv { width: w, bits }),
        Some(Op::SExt(w)) if w >= width => Some(Value::bv(w, Value::bv_signed(width, bits) as u64)),
        Some(_) => None,
    }
}

/// What [`Kind::LoadAt`] loads when its fast case does not hold; on
/// failure, the bug and which of its statements (from 0) raised it.
#[cold]
#[inline(never)]
fn load_at(
    slots: &[Value],
    memory: &[Cells],
    at: AddressOf,
    bytes: u8,
    widen: Option<Op>,
) -> Result<Value, (BugKind, StmtIdx)> {
    let p = address(slots, at).map_err(|(e, part)| (bug_kind(&e), part))?;
    let loaded = load(memory, p, bytes).map_err(|k| (k, at.len()))?;
    Ok(match (widen, loaded) {
        (None, v) => v,
        (Some(Op::ZExt(w)), Value::Bv { width, bits }) if w >= width => Value::Bv { width: w, bits },
        (Some(Op::SExt(w)), Value::Bv { width, bits }) if w >= width => {
            Value::bv(w, Value::bv_signed(width, bits) as u64)
        }
        (Some(op), v) => eval_op(op, &[v]).map_err(|e| (bug_kind(&e), at.len() + 1))?,
    })
}

/// What [`Kind::StoreAt`] does when its fast case does not hold: the
/// allocation and offset stored at, or the bug and which of its statements
/// (from 0) raised it.
#[cold]
#[inline(never)]
fn store_at(
    slots: &[Value],
    memory: &mut [Cells],
    at: AddressOf,
    value: u32,
    bytes: u8,
) -> Result<(usize, usize), (BugKind, StmtIdx)> {
    let p = address(slots, at).map_err(|(e, part)| (bug_kind(&e), part))?;
    store(memory, p, slots[value as usize], bytes).map_err(|k| (k, at.len()))
}

/// A load of `bytes` little-endian bytes (0: one cell of any value) at `p`.
#[inline]
fn load(memory: &[Cells], p: Value, bytes: u8) -> Result<Value, BugKind> {
    let (a, o) = cell_in(memory, p, bytes.max(1) as i128)?;
    let cells = &memory[a];
    let v = if bytes == 0 {
        cells.get(o)
    } else {
        cells.load(o, bytes as usize)
    };
    v.ok_or(BugKind::TypeError)
}

/// A store of `v` at `p`: `bytes` little-endian bytes of a bit-vector of
/// that width, or (0) one cell of any value. The allocation and offset.
#[inline]
fn store(memory: &mut [Cells], p: Value, v: Value, bytes: u8) -> Result<(usize, usize), BugKind> {
    let (a, o) = cell_in(memory, p, bytes.max(1) as i128)?;
    match v {
        _ if bytes == 0 => memory[a].set(o, v),
        Value::Bv { width, bits } if width == 8 * bytes => memory[a].store(o, bytes as usize, bits),
        _ => return Err(BugKind::TypeError),
    }
    Ok((a, o))
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
    run_concrete_with(&Code::new(module, Some(entry)), module, entry, inputs, budget, None)
}

/// [`run_concrete`] with `code` built (and kept) by the caller: one per
/// module and entry, for many runs (code built for another entry is not
/// used: the run gets code of its own). Past `max_steps` statements the
/// run ends with a step-limit bug.
pub fn run_concrete_with(
    code: &Code,
    module: &Module,
    entry: FuncId,
    inputs: &[TestInput],
    budget: Option<&Budget>,
    max_steps: Option<u64>,
) -> Option<ConcreteRun> {
    run_concrete_until(code, module, entry, inputs, budget, max_steps, None)
}

/// [`run_concrete_with`], the run also ending with a step-limit bug past
/// `until`.
pub(crate) fn run_concrete_until(
    code: &Code,
    module: &Module,
    entry: FuncId,
    inputs: &[TestInput],
    budget: Option<&Budget>,
    max_steps: Option<u64>,
    until: Option<Instant>,
) -> Option<ConcreteRun> {
    let values = inputs
        .iter()
        .map(|i| (i.name.clone(), i.parsed().unwrap_or(Value::Undef)))
        .collect();
    let own;
    let code = if code.entry == Some(entry) {
        code
    } else {
        own = Code::new(module, Some(entry));
        &own
    };
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
    let (outcome, steps) = m.run(max_steps, budget, until)?;
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
            written: None,
        }
    }

    /// Runs the pushed frame to its end: after `max_steps` statements, or
    /// past `until`, it ends with a step-limit bug; `None` when `budget` is
    /// exhausted first.
    fn run(
        &mut self,
        max_steps: Option<u64>,
        budget: Option<&Budget>,
        until: Option<Instant>,
    ) -> Option<(Outcome, u64)> {
        /// Statements between two looks at the budget.
        const CHECK_EVERY: u64 = 4096;
        let mut steps: u64 = 0;
        let mut check_at = CHECK_EVERY;
        loop {
            let mut late = false;
            if steps >= check_at {
                check_at = steps + CHECK_EVERY;
                if budget.is_some_and(Budget::exhausted) {
                    return None;
                }
                late = until.is_some_and(|t| Instant::now() >= t);
            }
            if late || max_steps.is_some_and(|m| steps >= m) {
                let Flow::Done(outcome) = self.bug(BugKind::StepLimit) else {
                    unreachable!("bug() ends the run")
                };
                return Some((outcome, steps));
            }
            let limit = check_at.min(max_steps.unwrap_or(u64::MAX));
            if let Fast::Ended(outcome) = self.run_fast::<false>(&mut steps, limit, &mut |_| true) {
                return Some((outcome, steps));
            }
            if steps >= limit {
                continue;
            }
            steps += 1;
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
    pub fn call(&mut self, func: FuncId, args: &[Value], max_steps: u64) -> Result<Option<Value>, BugKind> {
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
        match m.run(Some(max_steps), None, None).map(|r| r.0) {
            None => Err(BugKind::StepLimit),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes with a few held values behave as the same cells as values
    /// would: loads over a held cell compose it (or fail), plain stores
    /// over it make it a byte again, and the fast paths see only plain
    /// bytes.
    #[test]
    fn held_cells_are_the_cells_they_stand_for() {
        let held = Value::Label {
            func: u32::MAX,
            label: 7,
        };
        let mut b = CellsBuilder::new(64);
        for i in 0..64u64 {
            b.push(if i == 9 { held } else { Value::bv(8, i) });
        }
        b.push(Value::Int(1)); // past the length: dropped
        let mut cells = b.finish(64);
        assert!(matches!(cells, Cells::Held { .. }));
        assert_eq!(cells.len(), 64);
        assert_eq!(cells.get(9), Some(held));
        assert_eq!(cells.get(10), Some(Value::bv(8, 10)));
        assert_eq!(cells.load(4, 4), Some(Value::bv(32, 0x0706_0504)));
        assert_eq!(cells.load(8, 4), None);
        assert!(cells.plain(6, 4).is_none() && cells.plain(10, 4).is_some());
        let mut memory = vec![cells.clone()];
        assert_eq!(load_bytes(&memory, 0, 8, 2), None);
        assert!(store_bytes(&mut memory, 0, 8, 2, 0xbeef));
        assert_eq!(load_bytes(&memory, 0, 8, 2), Some(0xbeef));
        assert_eq!(memory[0].get(9), Some(Value::bv(8, 0xbe)));
        cells.set(3, Value::Int(5));
        assert_eq!(cells.get(3), Some(Value::Int(5)));
        cells.set(9, Value::bv(8, 1));
        assert_eq!(cells.load(8, 2), Some(Value::bv(16, 0x0108)));
        cells.grow(64, Value::bv(8, 0));
        assert_eq!((cells.len(), cells.get(100)), (128, Some(Value::bv(8, 0))));
        assert!(cells.plain(64, 64).is_some());
        // Many held cells: values.
        let mut b = CellsBuilder::new(16);
        (0..16).for_each(|_| b.push(held));
        assert!(matches!(b.finish(16), Cells::Values(_)));
    }
}
