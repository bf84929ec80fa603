//! The interpreter's executable form of a function: statements decoded
//! once into dense instructions over frame slots, with three rewrites that
//! take the WebAssembly lowering's bookkeeping off the hot path.
//!
//! - **Fusion**: the lowering's address chain `zext bv64 i → toint → + k →
//!   base + …` becomes one [`Kind::Address`] (or, with the load that
//!   uses it, one [`Kind::LoadAt`]/[`Kind::StoreAt`]); a comparison whose
//!   only use is the next `if` or `tobv` becomes [`Kind::IfBinary`] or
//!   [`Kind::CompareToBv`]. Each fused temporary has one definition and one
//!   use, both inside the fused statements, so nothing else can read it.
//! - **Copy propagation** inside a block: an instruction reads the source
//!   of a copy (`s0 = l2`) instead of its destination.
//! - **Dead copies**: a copy whose destination no later instruction reads
//!   (liveness over the rewritten code) is dropped.
//!
//! What the rewrites may not change is what a run shows: its outcome, the
//! branches it covers and its path. A bug is reported at the statement the
//! IR would report it at (fused instructions evaluate their parts one by
//! one when the fast case does not hold), and statements the instructions
//! do not cover (`Kind::Other`: calls, inputs, allocations, computed jumps,
//! returns) run from the IR, which reads only variables that are live there
//! and so were written. A function whose final variables a run's outcome
//! shows (the entry, and any function that can `halt`) is decoded without
//! rewrites.

use braid_ir::{FuncId, Function, Module, Operand, Rhs, Stmt, StmtIdx, VarId};
use braid_term::{eval_op, Op, Value};
use rustc_hash::FxHashMap;
use std::cell::OnceCell;

/// The executable form of a module, built a function at a time on its
/// first call and kept from run to run.
pub struct Code {
    funcs: Vec<OnceCell<FuncCode>>,
    forms: Vec<Form>,
    /// The entry the code was built for (`None`: no run's final frame is
    /// shown, as for an [`super::Instance`]).
    pub(crate) entry: Option<FuncId>,
}

/// How much of the module doc's rewriting a function gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// One instruction per statement.
    Plain,
    /// Fusion only: every variable a statement writes is written, but for
    /// the fused temporaries nothing else reads, so at the start of every
    /// instruction the frame holds exactly what the IR's would.
    Fused,
    /// Fusion, copy propagation and dead copies dropped.
    Rewritten,
}

pub(super) struct FuncCode {
    pub insts: Vec<Inst>,
    /// The slots a new frame starts with: undefined variables, then constants.
    pub slots: Vec<Value>,
    /// For each statement (and the end of the function), the instruction
    /// that runs next when execution is at that statement.
    pub resume: Vec<u32>,
    /// Per instruction, the first statement it stands for (copies dropped
    /// before it included) and the statement its jump names (or `NONE`).
    firsts: Vec<StmtIdx>,
    targets: Vec<StmtIdx>,
    /// Per statement, whether it is a loop head (`braid_ir::loop_heads`),
    /// and per instruction the loop head control passes entering it by its
    /// jump and by falling into it (`NONE`): built on first use.
    heads: OnceCell<Vec<bool>>,
    arrivals: OnceCell<(Vec<StmtIdx>, Vec<StmtIdx>)>,
}

/// No statement.
pub(super) const NONE: StmtIdx = StmtIdx::MAX;

impl FuncCode {
    /// The loop head control passes when execution goes on at statement
    /// `at` (up to the instruction that runs there), or `NONE`.
    pub fn arrival_at(&self, f: &Function, at: StmtIdx) -> StmtIdx {
        let heads = self.heads.get_or_init(|| braid_ir::loop_heads(f));
        let end = self
            .resume
            .get(at as usize)
            .and_then(|&i| self.insts.get(i as usize))
            .map_or(at, |i| i.stmt);
        (at..=end)
            .find(|&s| heads.get(s as usize) == Some(&true))
            .unwrap_or(NONE)
    }

    /// The loop head control passes entering instruction `to`, by the jump
    /// of instruction `from` or (`from` out of range) by falling into it.
    #[inline]
    pub fn arrival(&self, f: &Function, from: usize, to: usize) -> StmtIdx {
        let (by_jump, by_fall) = self.arrivals.get_or_init(|| {
            let by_jump = (0..self.insts.len())
                .map(|i| match self.targets[i] {
                    NONE => NONE,
                    t => self.arrival_at(f, t),
                })
                .collect();
            let by_fall = (0..self.insts.len())
                .map(|i| self.arrival_at(f, self.firsts[i]))
                .collect();
            (by_jump, by_fall)
        });
        match by_jump.get(from) {
            Some(&h) => h,
            None => by_fall.get(to).copied().unwrap_or(NONE),
        }
    }
}

/// An instruction: what it does, the statement it starts at (where its
/// parts' bugs are counted from, and where the IR takes over for
/// [`Kind::Other`]) and how many statements it stands for.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inst {
    pub kind: Kind,
    pub stmt: StmtIdx,
    pub weight: u32,
}

/// Operands are frame slots. Jump targets are instruction indices once a
/// function is built (statement indices while it is being built).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
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
    /// `dst = select c, a, b`.
    Select {
        dst: u32,
        c: u32,
        a: u32,
        b: u32,
    },
    /// `t = a op b; dst = tobv W t`.
    CompareToBv {
        op: Op,
        width: u8,
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
    /// `dst = base + (toint(zext bv64 index) [+ off])`: an access's address.
    Address {
        dst: u32,
        at: AddressOf,
    },
    /// An [`Kind::Address`] chain and the load of `bytes` (> 0) through it,
    /// widened by `widen` (`zext`/`sext`, a narrow load's next statement).
    LoadAt {
        dst: u32,
        at: AddressOf,
        bytes: u8,
        widen: Option<Op>,
    },
    StoreAt {
        at: AddressOf,
        value: u32,
        bytes: u8,
    },
    /// A [`Kind::LoadAt`] whose value only the next instruction, a
    /// [`Kind::Binary`], reads: `t = load at; dst = t op other` (`other op
    /// t` when `swap`), the operation `part` statements after the load's
    /// first (see [`fuse_loads`]).
    LoadBinary {
        op: Op,
        dst: u32,
        at: AddressOf,
        bytes: u8,
        widen: Option<Op>,
        other: u32,
        swap: bool,
        part: u8,
    },
    /// `to` is the statement a known label names.
    If {
        cond: u32,
        to: u32,
    },
    /// `t = a op b; if t goto to`, the branch taken when `t` is not
    /// `negate`; the `if` is `branch` statements after the instruction's
    /// (1, or more for a fused truth-value chain, see [`fuse_branches`]).
    IfBinary {
        op: Op,
        a: u32,
        b: u32,
        to: u32,
        negate: bool,
        branch: u8,
    },
    Goto {
        to: u32,
    },
    Other,
}

/// The lowering's address `base + toint(zext bv64 index) + off`; `offset`
/// says whether the `+ off` statement is there (it is left out for 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct AddressOf {
    pub base: u32,
    pub index: u32,
    pub off: i64,
    pub offset: bool,
}

impl AddressOf {
    /// Statements of the chain: zext, toint, [+ off,] base +.
    pub fn len(&self) -> u32 {
        3 + self.offset as u32
    }
}

impl Code {
    /// The code for runs of `entry` (whose final variables their outcomes
    /// show); `None` for calls whose frames nobody reads at the end.
    pub fn new(module: &Module, entry: Option<FuncId>) -> Code {
        Code::shown_plain(module, entry, Form::Rewritten)
    }

    /// `form` for every function but those whose final frame a run's
    /// outcome shows (`entry`, and any that can `halt`), which are plain.
    fn shown_plain(module: &Module, entry: Option<FuncId>, form: Form) -> Code {
        let forms = module
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let shown = Some(FuncId(i as u32)) == entry || f.stmts.iter().any(|s| matches!(s, Stmt::Halt(_)));
                if shown {
                    Form::Plain
                } else {
                    form
                }
            })
            .collect();
        Code::with_forms(module, forms, entry)
    }

    /// One instruction per statement everywhere, none of the rewrites: the
    /// reference the rewritten code is tested against.
    pub fn unoptimised(module: &Module, entry: Option<FuncId>) -> Code {
        Code::with_forms(module, vec![Form::Plain; module.functions.len()], entry)
    }

    /// Fusion only (the entry and functions that can `halt` plain).
    pub fn fused(module: &Module, entry: Option<FuncId>) -> Code {
        Code::shown_plain(module, entry, Form::Fused)
    }

    /// The code for running an engine's state ahead ([`super::ahead`]):
    /// fused, not rewritten, so a frame handed back at the start of any
    /// instruction holds what the IR's would. With copy propagation and
    /// dead copies dropped (the copies in force at the instruction made on
    /// the way back, a mechanism removed since), dse over
    /// cktan/tomlc99's parser (2 symbolic bytes, searcher `interleaved`)
    /// ended complete with 151 paths and 336 branches where the IR alone
    /// finds 692 and 397: states handed back inside the string scanner
    /// went on from values the IR would not have there (not found yet).
    /// Fused, the run agrees, as fast within the noise (dse over
    /// picohttpparser's request parser, 12 bytes: 11.8-12.6 s against
    /// 10.5-12.4).
    pub fn for_engines(module: &Module, entry: FuncId) -> Code {
        Code::fused(module, Some(entry))
    }

    fn with_forms(module: &Module, forms: Vec<Form>, entry: Option<FuncId>) -> Code {
        Code {
            funcs: module.functions.iter().map(|_| OnceCell::new()).collect(),
            forms,
            entry,
        }
    }

    pub(super) fn func(&self, module: &Module, f: FuncId) -> &FuncCode {
        self.funcs[f.0 as usize].get_or_init(|| FuncCode::new(module, f, self.forms[f.0 as usize]))
    }

    /// `f`'s slots as a frame starts with them: its variables undefined,
    /// then its constants.
    pub(crate) fn slots(&self, module: &Module, f: FuncId) -> &[Value] {
        &self.func(module, f).slots
    }

    /// Whether an instruction of `f` starts at statement `at` (a state
    /// there can be run by the interpreter).
    pub fn starts_at(&self, module: &Module, f: FuncId, at: StmtIdx) -> bool {
        let fc = self.func(module, f);
        fc.resume
            .get(at as usize)
            .and_then(|&i| fc.insts.get(i as usize))
            .is_some_and(|i| i.stmt == at)
    }
}

/// An instruction being built: its kind (jump targets as statements), the
/// statement its own work starts at, and the statements it stands for,
/// from `first` (dropped copies before it run as part of it).
struct Draft {
    kind: Kind,
    stmt: StmtIdx,
    first: StmtIdx,
    len: u32,
}

/// Where labels are, for asking whether a draft's statements hold one.
struct Labels {
    /// How many labelled statements come before each statement.
    before: Vec<u32>,
}

impl Labels {
    fn new(f: &Function) -> Labels {
        let mut labelled = vec![false; f.stmts.len() + 1];
        for (_, s) in &f.labels {
            labelled[*s as usize] = true;
        }
        let mut before = Vec::with_capacity(labelled.len() + 1);
        let mut n = 0;
        before.push(0);
        for l in labelled {
            n += l as u32;
            before.push(n);
        }
        Labels { before }
    }

    /// Whether a jump can land on the draft: a label names one of its
    /// statements up to its own work.
    fn starts_block(&self, d: &Draft) -> bool {
        self.before[d.stmt as usize + 1] > self.before[d.first as usize]
    }
}

/// The draft execution goes on at when it is at statement `s`: the first
/// whose own work starts at or after `s`.
fn draft_at(drafts: &[Draft], s: StmtIdx) -> usize {
    drafts.partition_point(|d| d.stmt < s)
}

impl FuncCode {
    fn new(module: &Module, id: FuncId, form: Form) -> FuncCode {
        let f = module.func(id);
        let mut decoder = Decoder::new(f, id);
        let mut drafts = decoder.decode(form == Form::Plain);
        let rewrite = form == Form::Rewritten && !drafts.iter().any(|d| is_computed_jump(f, d));
        if rewrite {
            // Before propagation, `s = …; d = s` pairs still show `s` dead
            // after the copy (propagation would make the copy's readers read `s`).
            drop_dead_copies(f, decoder.slots.len(), &mut drafts);
            propagate_copies(&mut decoder, &mut drafts);
            drop_dead_copies(f, decoder.slots.len(), &mut drafts);
            fuse_branches(f, &decoder.slots, &mut drafts);
            fuse_loads(f, &mut drafts);
        }
        let Decoder { slots, .. } = decoder;
        link(f, drafts, slots)
    }
}

fn is_computed_jump(f: &Function, d: &Draft) -> bool {
    d.kind == Kind::Other && matches!(f.stmts[d.stmt as usize], Stmt::If { .. } | Stmt::Goto(_))
}

struct Decoder<'f> {
    f: &'f Function,
    id: FuncId,
    slots: Vec<Value>,
    consts: FxHashMap<Value, u32>,
    /// Per variable: how many statements read it, and define it.
    uses: Vec<u32>,
    defs: Vec<u32>,
    /// Statements a label names: a fused sequence may not contain one past its first.
    labelled: Vec<bool>,
}

impl<'f> Decoder<'f> {
    fn new(f: &'f Function, id: FuncId) -> Decoder<'f> {
        let mut uses = vec![0; f.vars.len()];
        let mut defs = vec![0; f.vars.len()];
        for s in &f.stmts {
            for o in s.operands() {
                if let Operand::Var(v) = o {
                    uses[v.0 as usize] += 1;
                }
            }
            if let Some(d) = defined(s) {
                defs[d.0 as usize] += 1;
            }
        }
        for p in &f.params {
            defs[p.var.0 as usize] += 1;
        }
        let mut labelled = vec![false; f.stmts.len() + 1];
        for (_, s) in &f.labels {
            labelled[*s as usize] = true;
        }
        Decoder {
            f,
            id,
            slots: vec![Value::Undef; f.vars.len()],
            consts: FxHashMap::default(),
            uses,
            defs,
            labelled,
        }
    }

    fn slot(&mut self, o: &Operand) -> u32 {
        match o {
            Operand::Var(v) => v.0,
            Operand::Const(c) => *self.consts.entry(*c).or_insert_with(|| {
                self.slots.push(*c);
                self.slots.len() as u32 - 1
            }),
        }
    }

    fn label(&self, o: &Operand) -> Option<StmtIdx> {
        match o {
            Operand::Const(Value::Label { func, label }) if *func == self.id.0 => self.f.label_target(*label),
            _ => None,
        }
    }

    /// A temporary only the statement after its definition reads.
    fn single_use(&self, v: VarId) -> bool {
        self.uses[v.0 as usize] == 1 && self.defs[v.0 as usize] == 1
    }

    /// The statement at `i`, if it is not a label's target (unless `first`).
    fn stmt(&self, i: usize, first: bool) -> Option<&'f Stmt> {
        (first || !self.labelled[i]).then(|| self.f.stmts.get(i)).flatten()
    }

    fn decode(&mut self, plain: bool) -> Vec<Draft> {
        let mut out = Vec::with_capacity(self.f.stmts.len());
        let mut i = 0;
        while i < self.f.stmts.len() {
            let fused = if plain { None } else { self.fuse(i) };
            let (kind, len) = fused.unwrap_or_else(|| (self.one(&self.f.stmts[i]), 1));
            out.push(Draft {
                kind,
                stmt: i as StmtIdx,
                first: i as StmtIdx,
                len,
            });
            i += len as usize;
        }
        out
    }

    fn one(&mut self, stmt: &Stmt) -> Kind {
        let bytes = |w: &Option<u8>| w.map_or(0, |w| w / 8);
        match stmt {
            Stmt::Assign { dst, rhs } => match rhs {
                Rhs::Copy(a) => Kind::Copy {
                    dst: dst.0,
                    a: self.slot(a),
                },
                Rhs::Unary(op, a) => Kind::Unary {
                    op: *op,
                    dst: dst.0,
                    a: self.slot(a),
                },
                Rhs::Binary(op, a, b) => Kind::Binary {
                    op: *op,
                    dst: dst.0,
                    a: self.slot(a),
                    b: self.slot(b),
                },
                Rhs::Load { addr, width } => Kind::Load {
                    dst: dst.0,
                    addr: self.slot(addr),
                    bytes: bytes(width),
                },
                Rhs::Select(c, a, b) => Kind::Select {
                    dst: dst.0,
                    c: self.slot(c),
                    a: self.slot(a),
                    b: self.slot(b),
                },
                _ => Kind::Other,
            },
            Stmt::Store { addr, value, width } => Kind::Store {
                addr: self.slot(addr),
                value: self.slot(value),
                bytes: bytes(width),
            },
            Stmt::If { cond, target } => match self.label(target) {
                Some(to) => Kind::If {
                    cond: self.slot(cond),
                    to,
                },
                None => Kind::Other,
            },
            Stmt::Goto(target) => match self.label(target) {
                Some(to) => Kind::Goto { to },
                None => Kind::Other,
            },
            _ => Kind::Other,
        }
    }

    /// A fused instruction starting at statement `i`, and how many
    /// statements it covers.
    fn fuse(&mut self, i: usize) -> Option<(Kind, u32)> {
        if let Some((dst, at)) = self.address(i) {
            let end = i + at.len() as usize;
            let fused_use = self.single_use(VarId(dst));
            let access = match self.stmt(end, false).filter(|_| fused_use) {
                Some(Stmt::Assign {
                    dst: d,
                    rhs:
                        Rhs::Load {
                            addr: Operand::Var(p),
                            width: Some(w),
                        },
                }) if p.0 == dst => Some(self.widened(end + 1, *d, at, w / 8)),
                Some(Stmt::Store {
                    addr: Operand::Var(p),
                    value,
                    width: Some(w),
                }) if p.0 == dst => Some(Kind::StoreAt {
                    at,
                    value: self.slot(value),
                    bytes: w / 8,
                }),
                _ => None,
            };
            return Some(match access {
                Some(kind @ Kind::LoadAt { widen: Some(_), .. }) => (kind, at.len() + 2),
                Some(kind) => (kind, at.len() + 1),
                None => (Kind::Address { dst, at }, at.len()),
            });
        }
        let Some(Stmt::Assign {
            dst: t,
            rhs: Rhs::Binary(op, a, b),
        }) = self.stmt(i, true)
        else {
            return None;
        };
        if !op.is_comparison() || !self.single_use(*t) {
            return None;
        }
        let reads_t = |o: &Operand| *o == Operand::Var(*t);
        let kind = match self.stmt(i + 1, false)? {
            Stmt::If { cond, target } if reads_t(cond) => {
                let to = self.label(target)?;
                Kind::IfBinary {
                    op: *op,
                    a: self.slot(a),
                    b: self.slot(b),
                    to,
                    negate: false,
                    branch: 1,
                }
            }
            Stmt::Assign {
                dst,
                rhs: Rhs::Unary(Op::ToBv(width), c),
            } if reads_t(c) => Kind::CompareToBv {
                op: *op,
                width: *width,
                dst: dst.0,
                a: self.slot(a),
                b: self.slot(b),
            },
            _ => return None,
        };
        Some((kind, 2))
    }

    /// A load into `raw`, widened by statement `next` when that is a `zext`
    /// or `sext` of `raw` and nothing else reads `raw`.
    fn widened(&self, next: usize, raw: VarId, at: AddressOf, bytes: u8) -> Kind {
        match self.stmt(next, false) {
            Some(Stmt::Assign {
                dst,
                rhs: Rhs::Unary(op @ (Op::ZExt(_) | Op::SExt(_)), Operand::Var(r)),
            }) if *r == raw && self.single_use(raw) => Kind::LoadAt {
                dst: dst.0,
                at,
                bytes,
                widen: Some(*op),
            },
            _ => Kind::LoadAt {
                dst: raw.0,
                at,
                bytes,
                widen: None,
            },
        }
    }

    /// The lowering's address chain starting at `i` (see [`AddressOf`]):
    /// the variable that ends up holding the address, and the chain.
    fn address(&mut self, i: usize) -> Option<(u32, AddressOf)> {
        let Some(Stmt::Assign {
            dst: wide,
            rhs: Rhs::Unary(Op::ZExt(64), index),
        }) = self.stmt(i, true)
        else {
            return None;
        };
        let Some(Stmt::Assign {
            dst: n,
            rhs: Rhs::Unary(Op::ToInt, Operand::Var(w)),
        }) = self.stmt(i + 1, false)
        else {
            return None;
        };
        if w != wide || !self.single_use(*wide) || !self.single_use(*n) {
            return None;
        }
        let mut next = i + 2;
        let mut sum = *n;
        let mut off = 0i64;
        let offset = match self.stmt(next, false) {
            Some(Stmt::Assign {
                dst: s,
                rhs: Rhs::Binary(Op::Add, Operand::Var(x), Operand::Const(Value::Int(k))),
            }) if *x == *n && self.single_use(*s) => {
                off = i64::try_from(*k).ok()?;
                sum = *s;
                next += 1;
                true
            }
            _ => false,
        };
        let Some(Stmt::Assign {
            dst: p,
            rhs: Rhs::Binary(Op::Add, base, Operand::Var(x)),
        }) = self.stmt(next, false)
        else {
            return None;
        };
        if *x != sum || *base == Operand::Var(sum) || *index == Operand::Var(*p) {
            return None;
        }
        let at = AddressOf {
            base: self.slot(base),
            index: self.slot(index),
            off,
            offset,
        };
        Some((p.0, at))
    }
}

/// The variable a statement writes, if any.
fn defined(s: &Stmt) -> Option<VarId> {
    match s {
        Stmt::Assign { dst, .. } => Some(*dst),
        Stmt::Call { dst, .. } => *dst,
        _ => None,
    }
}

impl Kind {
    /// The slot the instruction writes, if any ([`Kind::Other`]: see [`defined`]).
    fn def(&self) -> Option<u32> {
        match *self {
            Kind::Copy { dst, .. }
            | Kind::Unary { dst, .. }
            | Kind::Binary { dst, .. }
            | Kind::CompareToBv { dst, .. }
            | Kind::Select { dst, .. }
            | Kind::Load { dst, .. }
            | Kind::Address { dst, .. }
            | Kind::LoadAt { dst, .. }
            | Kind::LoadBinary { dst, .. } => Some(dst),
            _ => None,
        }
    }

    /// Makes the instruction write `to` instead of the slot it writes.
    fn set_def(&mut self, to: u32) {
        match self {
            Kind::Copy { dst, .. }
            | Kind::Unary { dst, .. }
            | Kind::Binary { dst, .. }
            | Kind::CompareToBv { dst, .. }
            | Kind::Select { dst, .. }
            | Kind::Load { dst, .. }
            | Kind::Address { dst, .. }
            | Kind::LoadAt { dst, .. }
            | Kind::LoadBinary { dst, .. } => *dst = to,
            _ => debug_assert!(false, "{self:?} writes no slot"),
        }
    }

    /// The slots the instruction reads, rewritten in place by `f`.
    fn reads_mut(&mut self, mut f: impl FnMut(&mut u32)) {
        match self {
            Kind::Copy { a, .. } | Kind::Unary { a, .. } => f(a),
            Kind::Binary { a, b, .. } | Kind::CompareToBv { a, b, .. } | Kind::IfBinary { a, b, .. } => {
                f(a);
                f(b)
            }
            Kind::Select { c, a, b, .. } => {
                f(c);
                f(a);
                f(b)
            }
            Kind::Load { addr, .. } => f(addr),
            Kind::Store { addr, value, .. } => {
                f(addr);
                f(value)
            }
            Kind::Address { at, .. } | Kind::LoadAt { at, .. } => {
                f(&mut at.base);
                f(&mut at.index)
            }
            Kind::StoreAt { at, value, .. } => {
                f(&mut at.base);
                f(&mut at.index);
                f(value)
            }
            Kind::LoadBinary { at, other, .. } => {
                f(&mut at.base);
                f(&mut at.index);
                f(other)
            }
            Kind::If { cond, .. } => f(cond),
            Kind::Goto { .. } | Kind::Other => {}
        }
    }

    /// Whether control never goes on to the next instruction.
    fn ends_block(&self, f: &Function, stmt: StmtIdx) -> bool {
        match self {
            Kind::Goto { .. } => true,
            Kind::Other => matches!(
                f.stmts[stmt as usize],
                Stmt::Goto(_) | Stmt::Ret(_) | Stmt::Error(_) | Stmt::Halt(_)
            ),
            _ => false,
        }
    }

    fn target(&self) -> Option<u32> {
        match *self {
            Kind::If { to, .. } | Kind::IfBinary { to, .. } | Kind::Goto { to } => Some(to),
            _ => None,
        }
    }

    fn target_mut(&mut self) -> Option<&mut u32> {
        match self {
            Kind::If { to, .. } | Kind::IfBinary { to, .. } | Kind::Goto { to } => Some(to),
            _ => None,
        }
    }
}

/// Block-local copy propagation: after `d = s`, reads of `d` read `s` until
/// either is written again. A label starts a new block (anything may jump
/// there), and so does the statement after one that never falls through.
/// An operation whose operands are then all constants is folded into a copy
/// of its value (when it has one: a failing operation stays, to fail).
fn propagate_copies(decoder: &mut Decoder, drafts: &mut [Draft]) {
    let f = decoder.f;
    let nvars = f.vars.len() as u32;
    /// Copies remembered at once; beyond it the oldest is forgotten, so a
    /// long block stays linear.
    const MAX_COPIES: usize = 64;
    let labels = Labels::new(f);
    let mut copies: Vec<(u32, u32)> = Vec::new();
    let mut block_ends = false;
    for d in drafts.iter_mut() {
        if block_ends || labels.starts_block(d) {
            copies.clear();
        }
        if d.kind != Kind::Other {
            d.kind.reads_mut(|s| {
                if let Some(&(_, src)) = copies.iter().find(|(dst, _)| dst == s) {
                    *s = src;
                }
            });
            if let Some((dst, v)) = fold(&d.kind, nvars, &decoder.slots) {
                d.kind = Kind::Copy {
                    dst,
                    a: decoder.slot(&Operand::Const(v)),
                };
            }
        }
        let written = match d.kind {
            Kind::Other => defined(&f.stmts[d.stmt as usize]).map(|v| v.0),
            k => k.def(),
        };
        if let Some(w) = written {
            copies.retain(|&(dst, src)| dst != w && src != w);
        }
        if let Kind::Copy { dst, a } = d.kind {
            if dst != a {
                if copies.len() == MAX_COPIES {
                    copies.remove(0);
                }
                copies.push((dst, a));
            }
        }
        block_ends = d.kind.ends_block(f, d.stmt);
    }
}

/// The slot an operation on constant slots (at `nvars` and after) writes,
/// and the value it writes there.
fn fold(kind: &Kind, nvars: u32, slots: &[Value]) -> Option<(u32, Value)> {
    let c = |s: u32| (s >= nvars).then(|| slots[s as usize]);
    match *kind {
        Kind::Unary { op, dst, a } => Some((dst, eval_op(op, &[c(a)?]).ok()?)),
        Kind::Binary { op, dst, a, b } => Some((dst, eval_op(op, &[c(a)?, c(b)?]).ok()?)),
        Kind::CompareToBv { op, width, dst, a, b } => {
            let t = eval_op(op, &[c(a)?, c(b)?]).ok()?;
            Some((dst, eval_op(Op::ToBv(width), &[t]).ok()?))
        }
        _ => None,
    }
}

/// Drops the copies whose destination is dead afterwards, and a copy of a
/// value the instruction before it computed into a slot nothing reads
/// afterwards (that instruction writes the copy's destination instead):
/// liveness over the
/// rewritten instructions, by blocks, with the IR's operands for the
/// statements that run from the IR. Skipped for functions so large that
/// the bit sets would cost more than the copies.
fn drop_dead_copies(f: &Function, nslots: usize, drafts: &mut Vec<Draft>) {
    debug_assert!(nslots >= f.vars.len());
    let Some(Liveness { starts, live_out }) = liveness(f, drafts) else {
        return;
    };
    let total = drafts.len();
    let end_of = |k: usize| starts.get(k + 1).copied().unwrap_or(total);
    let var = |s: u32| (s as usize) < f.vars.len();
    let mut buf = Vec::new();
    let nblocks = starts.len();
    let mut dead = vec![false; drafts.len()];
    for k in 0..nblocks {
        let mut live = live_out[k].clone();
        for i in (starts[k]..end_of(k)).rev() {
            if let Kind::Copy { dst, a } = drafts[i].kind {
                if dst == a || (var(dst) && !get(&live, dst)) {
                    dead[i] = true;
                    continue;
                }
                // `s = …; d = s` with `s` dead afterwards: the first writes `d`.
                let before = i.checked_sub(1).filter(|&j| j >= starts[k]);
                if let Some(j) = before.filter(|&j| var(a) && !get(&live, a) && drafts[j].kind.def() == Some(a)) {
                    drafts[j].kind.set_def(dst);
                    dead[i] = true;
                    continue;
                }
            }
            let d = &drafts[i];
            if let Some(w) = write(f, d) {
                set(&mut live, w, false);
            }
            reads(f, d, &mut buf);
            for &r in &buf {
                set(&mut live, r, true);
            }
        }
    }
    // A dropped copy's statements count with the next instruction kept.
    let mut pending: Option<(StmtIdx, u32)> = None;
    let mut kept = Vec::with_capacity(drafts.len());
    for (d, dead) in drafts.drain(..).zip(dead) {
        let (first, len) = match pending.take() {
            Some((first, n)) => (first, d.len + n),
            None => (d.first, d.len),
        };
        if dead {
            pending = Some((first, len));
        } else {
            kept.push(Draft { first, len, ..d });
        }
    }
    *drafts = kept;
}

/// The blocks of `drafts` (their first instructions) and the variables
/// live at each block's end; `None` for functions so large that the bit
/// sets would cost more than the rewrites they serve.
struct Liveness {
    starts: Vec<usize>,
    live_out: Vec<Vec<u64>>,
}

/// The variables instruction `d` reads (the IR's operands for one that runs
/// from the IR) into `out`.
fn reads(f: &Function, d: &Draft, out: &mut Vec<u32>) {
    out.clear();
    if d.kind == Kind::Other {
        out.extend(f.stmts[d.stmt as usize].operands().into_iter().filter_map(|o| match o {
            Operand::Var(v) => Some(v.0),
            Operand::Const(_) => None,
        }));
    } else {
        let mut k = d.kind;
        k.reads_mut(|s| out.push(*s));
    }
    out.retain(|s| (*s as usize) < f.vars.len());
}

/// The variable instruction `d` writes, if any.
fn write(f: &Function, d: &Draft) -> Option<u32> {
    match d.kind {
        Kind::Other => defined(&f.stmts[d.stmt as usize]).map(|v| v.0),
        k => k.def(),
    }
    .filter(|w| (*w as usize) < f.vars.len())
}

fn liveness(f: &Function, drafts: &[Draft]) -> Option<Liveness> {
    let nvars = f.vars.len();
    let words = nvars.div_ceil(64);
    // Blocks: leaders are the first instruction, those a label names and
    // the instruction after a jump, a branch or one that ends the block.
    let labels = Labels::new(f);
    let mut leader = vec![false; drafts.len() + 1];
    leader[0] = true;
    for (i, d) in drafts.iter().enumerate() {
        leader[i] |= labels.starts_block(d);
        if d.kind.target().is_some() || d.kind.ends_block(f, d.stmt) {
            leader[i + 1] = true;
        }
    }
    let starts: Vec<usize> = (0..drafts.len()).filter(|&i| leader[i]).collect();
    if starts.len().saturating_mul(words) > 4 << 20 {
        return None;
    }
    let block_of = {
        let mut b = vec![0usize; drafts.len()];
        for (k, &s) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(drafts.len());
            b[s..end].iter_mut().for_each(|x| *x = k);
        }
        b
    };
    let total = drafts.len();
    let end_of = |k: usize| starts.get(k + 1).copied().unwrap_or(total);
    let succs = |k: usize| -> Vec<usize> {
        let last = &drafts[end_of(k) - 1];
        let mut out = Vec::with_capacity(2);
        if let Some(t) = last.kind.target() {
            if let Some(&b) = block_of.get(draft_at(drafts, t)) {
                out.push(b);
            }
        }
        if !last.kind.ends_block(f, last.stmt) && end_of(k) < drafts.len() {
            out.push(k + 1);
        }
        out
    };
    let nblocks = starts.len();
    let (mut gen, mut kill) = (vec![vec![0u64; words]; nblocks], vec![vec![0u64; words]; nblocks]);
    let mut buf = Vec::new();
    for k in 0..nblocks {
        for d in drafts[starts[k]..end_of(k)].iter().rev() {
            if let Some(w) = write(f, d) {
                set(&mut kill[k], w, true);
                set(&mut gen[k], w, false);
            }
            reads(f, d, &mut buf);
            for &r in &buf {
                set(&mut gen[k], r, true);
            }
        }
    }
    let succ: Vec<Vec<usize>> = (0..nblocks).map(succs).collect();
    let mut live_in = gen.clone();
    let mut live_out = vec![vec![0u64; words]; nblocks];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..nblocks).rev() {
            let mut out = vec![0u64; words];
            for &s in &succ[k] {
                out.iter_mut().zip(&live_in[s]).for_each(|(o, l)| *o |= l);
            }
            let inn: Vec<u64> = (0..words).map(|w| gen[k][w] | (out[w] & !kill[k][w])).collect();
            if inn != live_in[k] {
                live_in[k] = inn;
                changed = true;
            }
            live_out[k] = out;
        }
    }
    Some(Liveness { starts, live_out })
}

/// Fuses the truth-value chains clang -O0 puts before a branch: a
/// comparison made a 0/1 word (`tobv`), masked with 1 and tested against
/// 0 (`x = tobv(a < b); y = x & 1; z = tobv(y == 0); if z != 0 goto L`),
/// into one [`Kind::IfBinary`] on `a < b`, negated as the chain is. Each
/// link's temporary must be dead after the branch (the chain ends its
/// block), and every constant of the width the chain computes in, so that
/// no link could have failed.
fn fuse_branches(f: &Function, slots: &[Value], drafts: &mut Vec<Draft>) {
    let Some(Liveness { starts, live_out }) = liveness(f, drafts) else {
        return;
    };
    let nvars = f.vars.len() as u32;
    let constant = |s: u32, width: u8, bits: u64| s >= nvars && slots[s as usize] == Value::Bv { width, bits };
    let mut fused: Vec<(usize, usize, Kind)> = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let j = starts.get(k + 1).copied().unwrap_or(drafts.len()) - 1;
        let Kind::IfBinary {
            op: bop @ (Op::Eq | Op::Ne),
            a: z,
            b: c,
            to,
            negate: false,
            branch: 1,
        } = drafts[j].kind
        else {
            continue;
        };
        let dead = |s: u32| s < nvars && !get(&live_out[k], s);
        let (true, Value::Bv { width, bits: 0 }) = (c >= nvars, slots[c as usize]) else {
            continue;
        };
        // The branch is taken when `s` is not 0, negated if `neg`; `s` is
        // a word of `width` bits; `bit`: it must be 0 or 1 (it was masked).
        let (mut s, mut width, mut neg, mut bit) = (z, width, bop == Op::Eq, false);
        let mut best = None;
        let mut i = j;
        while i > start && dead(s) {
            i -= 1;
            match drafts[i].kind {
                Kind::CompareToBv {
                    op,
                    width: w,
                    dst,
                    a,
                    b,
                } if dst == s && w == width => {
                    best = Some((i, op, a, b, neg));
                    // `a op 0` on a word of its own width: a link further back.
                    match (op, slots.get(b as usize)) {
                        (Op::Eq | Op::Ne, Some(&Value::Bv { width: cw, bits: 0 })) if b >= nvars => {
                            neg ^= op == Op::Eq;
                            (s, width, bit) = (a, cw, false);
                        }
                        _ => break,
                    }
                }
                Kind::Binary { op: Op::And, dst, a, b } if dst == s && !bit && constant(b, width, 1) => {
                    // `x & 1` is `x` when `x` is 0 or 1: only a comparison may come next.
                    (s, bit) = (a, true);
                }
                _ => break,
            }
        }
        let Some((i, op, a, b, negate)) = best else {
            continue;
        };
        let Ok(branch) = u8::try_from(drafts[j].stmt + 1 - drafts[i].stmt) else {
            continue;
        };
        if i < j {
            fused.push((
                i,
                j,
                Kind::IfBinary {
                    op,
                    a,
                    b,
                    to,
                    negate,
                    branch,
                },
            ));
        }
    }
    merge_drafts(drafts, fused);
}

/// Replaces each run of drafts `i..=j` of `fused` (in order, disjoint) by
/// one draft of `kind` standing for all their statements, with the first's
/// start.
fn merge_drafts(drafts: &mut Vec<Draft>, fused: Vec<(usize, usize, Kind)>) {
    if fused.is_empty() {
        return;
    }
    let mut out = Vec::with_capacity(drafts.len());
    let mut next = fused.into_iter().peekable();
    let mut it = std::mem::take(drafts).into_iter().enumerate().peekable();
    while let Some((n, d)) = it.next() {
        match next.peek() {
            Some(&(i, j, kind)) if i == n => {
                next.next();
                let mut len = d.len;
                for _ in i..j {
                    len += it.next().expect("the run's drafts").1.len;
                }
                out.push(Draft { kind, len, ..d });
            }
            _ => out.push(d),
        }
    }
    *drafts = out;
}

/// Fuses a [`Kind::LoadAt`] with the [`Kind::Binary`] after it in its block
/// that reads the loaded value, when nothing else reads that value: no
/// later instruction of the block before it is written again, and it is
/// dead after the block. clang -O0 loads every variable from memory before
/// each use, so this is most of its arithmetic. Only the instruction's start
/// is a place to stop at, as for the other fused instructions: a hand-over
/// or a bug before or inside it goes back to the load's statement or
/// reports at the part's.
fn fuse_loads(f: &Function, drafts: &mut Vec<Draft>) {
    let Some(Liveness { starts, live_out }) = liveness(f, drafts) else {
        return;
    };
    let total = drafts.len();
    let mut fused: Vec<(usize, usize, Kind)> = Vec::new();
    let mut buf = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(total);
        let mut i = start;
        while i + 1 < end {
            let (
                Kind::LoadAt {
                    dst: t,
                    at,
                    bytes,
                    widen,
                },
                Kind::Binary { op, dst, a, b },
            ) = (drafts[i].kind, drafts[i + 1].kind)
            else {
                i += 1;
                continue;
            };
            let (other, swap) = match (a == t, b == t) {
                (true, false) => (b, false),
                (false, true) => (a, true),
                _ => {
                    i += 1;
                    continue;
                }
            };
            // Dead after the operation: written by it, or read by nothing
            // after it before a write, nor live out of the block.
            let mut dead = dst == t;
            if !dead && (t as usize) < f.vars.len() {
                dead = !get(&live_out[k], t);
                for d in &drafts[i + 2..end] {
                    reads(f, d, &mut buf);
                    if buf.contains(&t) {
                        dead = false;
                        break;
                    }
                    if write(f, d) == Some(t) {
                        dead = true;
                        break;
                    }
                }
            }
            let part = u8::try_from(drafts[i + 1].stmt - drafts[i].stmt);
            match part {
                Ok(part) if dead => {
                    let kind = Kind::LoadBinary {
                        op,
                        dst,
                        at,
                        bytes,
                        widen,
                        other,
                        swap,
                        part,
                    };
                    fused.push((i, i + 1, kind));
                    i += 2;
                }
                _ => i += 1,
            }
        }
    }
    merge_drafts(drafts, fused);
}

fn set(bits: &mut [u64], i: u32, on: bool) {
    let (w, b) = (i as usize / 64, i % 64);
    if on {
        bits[w] |= 1 << b;
    } else {
        bits[w] &= !(1 << b);
    }
}

fn get(bits: &[u64], i: u32) -> bool {
    bits[i as usize / 64] >> (i % 64) & 1 == 1
}

/// The final instructions: jump targets resolved from statements to
/// instructions, and the instruction to resume at for each statement.
fn link(f: &Function, drafts: Vec<Draft>, slots: Vec<Value>) -> FuncCode {
    let n = f.stmts.len();
    let mut resume = vec![drafts.len() as u32; n + 1];
    let mut starts = vec![u32::MAX; n + 1];
    for (i, d) in drafts.iter().enumerate() {
        starts[d.stmt as usize] = i as u32;
    }
    for s in (0..n).rev() {
        resume[s] = if starts[s] != u32::MAX {
            starts[s]
        } else {
            resume[s + 1]
        };
    }
    let mut firsts = Vec::with_capacity(drafts.len());
    let mut targets = Vec::with_capacity(drafts.len());
    let insts: Vec<Inst> = drafts
        .into_iter()
        .map(|d| {
            let mut kind = d.kind;
            firsts.push(d.first);
            targets.push(kind.target().unwrap_or(NONE));
            if let Some(to) = kind.target_mut() {
                *to = resume[*to as usize];
            }
            Inst {
                kind,
                stmt: d.stmt,
                weight: d.len,
            }
        })
        .collect();
    // The interpreter reads and writes the slots an instruction names
    // unchecked (`super::slot`): every one is within the frame.
    for inst in &insts {
        let mut kind = inst.kind;
        kind.reads_mut(|x| assert!((*x as usize) < slots.len(), "a slot past the frame"));
        assert!(
            kind.def().is_none_or(|x| (x as usize) < slots.len()),
            "a slot past the frame"
        );
    }
    FuncCode {
        insts,
        slots,
        resume,
        firsts,
        targets,
        heads: OnceCell::new(),
        arrivals: OnceCell::new(),
    }
}

impl Code {
    /// The instructions of `f`, one per line (for looking at what the rewrites did).
    pub fn dump(&self, module: &Module, f: FuncId) -> String {
        let fc = self.func(module, f);
        let mut out = String::new();
        for (i, inst) in fc.insts.iter().enumerate() {
            out += &format!("{i:5} @{:<5} w{} {:?}\n", inst.stmt, inst.weight, inst.kind);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concrete::run_concrete_with;
    use crate::results::{Outcome, TestInput};

    /// The wasm lowering's shapes in `.bir`: a stack slot copied around, an
    /// address chain before a load and before a store, a comparison into
    /// a branch and into `tobv`, and (`pick`) a `local.tee` of an `if`'s
    /// value at a join, whose dead copy sits on the label; and (`chain`)
    /// clang -O0's truth-value chain before a branch.
    const LOWERED: &str = r#"
fn main(i: bv32) {
    r = call @get(i)
    q = call @pick(i)
    c = call @chain(i)
    ret r
}
fn chain(i) {
    s0 = i
    t1 = s0 < 5:bv32
    x = tobv bv32 t1
    y = x & 1:bv32
    t2 = y == 0:bv32
    z = tobv bv32 t2
    t3 = z != 0:bv32
    if t3 goto Big
    ret 1:bv32
Big:
    ret 0:bv32
}
fn pick(c) {
    s0 = c
    t = s0 == 0:bv32
    if t goto Else
    s0 = 1:bv32
    goto End
Else:
    s0 = 0:bv32
End:
    l0 = s0
    ret s0
}
fn get(i) {
    m = alloc 16, 0:bv8
    s0 = i
    l1 = s0
    t1 = zext bv64 l1
    t2 = toint t1
    t3 = t2 + 4
    t4 = m + t3
    store bv32 t4, 7:bv32
    s0 = l1
    t5 = zext bv64 s0
    t6 = toint t5
    t7 = t6 + 4
    t8 = m + t7
    s0 = load bv32 t8
    l2 = s0
    t9 = l2 == 7:bv32
    if t9 goto Seven
    t10 = l2 < 3:bv32
    s0 = tobv bv32 t10
    ret s0
Seven:
    ret l2
}
"#;

    /// A value loaded from memory divides a constant (the load and the
    /// division fuse, the loaded value the divisor), and a second load's
    /// value is read twice (no fusion with its first reader).
    const LOADS: &str = r#"
fn main(i: bv32) {
    r = call @quot(i)
    ret r
}
fn quot(i) {
    m = alloc 16, 0:bv8
    t1 = zext bv64 i
    t2 = toint t1
    t4 = m + t2
    store bv32 t4, i
    t5 = zext bv64 i
    t6 = toint t5
    t8 = m + t6
    s0 = load bv32 t8
    l2 = s0
    s0 = 100:bv32
    s1 = l2
    s0 = s0 / s1
    l3 = s0
    t11 = zext bv64 i
    t12 = toint t11
    t14 = m + t12
    s0 = load bv32 t14
    l4 = s0
    s1 = l4 + l3
    s0 = l4 * s1
    ret s0
}
"#;

    #[test]
    fn a_load_fuses_with_the_operation_that_alone_reads_it() {
        let module = braid_ir::parse("loads.bir", LOADS).expect("parses");
        let main = module.func_index("main").expect("main");
        let quot = module.func_index("quot").expect("quot");
        let code = Code::new(&module, Some(main));
        let plain = Code::unoptimised(&module, Some(main));
        let kinds: Vec<Kind> = code.func(&module, quot).insts.iter().map(|i| i.kind).collect();
        let fused: Vec<&Kind> = kinds.iter().filter(|k| matches!(k, Kind::LoadBinary { .. })).collect();
        assert!(
            matches!(
                fused[..],
                [Kind::LoadBinary {
                    op: Op::Div,
                    swap: true,
                    ..
                }]
            ),
            "{kinds:?}"
        );
        // 0 divides (the bug is the division's statement), 5 and 12 do not,
        // 13 is out of bounds at the store.
        for i in [0, 5, 12, 13] {
            assert_eq!(run(&code, &module, i), run(&plain, &module, i), "i = {i}");
        }
        match run(&code, &module, 0) {
            Outcome::Bug { bug, stmt, .. } => {
                assert_eq!((bug, stmt), (braid_ir::BugKind::DivisionByZero, 12))
            }
            other => panic!("expected a division by zero, got {other:?}"),
        }
        let input = [TestInput::new("i", Value::bv(32, 5))];
        let steps = |c: &Code| {
            run_concrete_with(c, &module, main, &input, None, None)
                .expect("runs")
                .steps
        };
        assert_eq!(steps(&code), steps(&plain));
    }

    fn run(code: &Code, module: &Module, i: u64) -> Outcome {
        let entry = module.func_index("main").expect("main");
        let input = TestInput::new("i", Value::bv(32, i));
        run_concrete_with(code, module, entry, &[input], None, None)
            .expect("no budget")
            .outcome
    }

    #[test]
    fn the_lowering_shapes_fuse_and_run_as_the_statements_do() {
        let module = braid_ir::parse("lowered.bir", LOWERED).expect("parses");
        let main = module.func_index("main").expect("main");
        let get = module.func_index("get").expect("get");
        let code = Code::new(&module, Some(main));
        let plain = Code::unoptimised(&module, Some(main));
        let kinds: Vec<Kind> = code.func(&module, get).insts.iter().map(|i| i.kind).collect();
        assert!(kinds.iter().any(|k| matches!(k, Kind::StoreAt { .. })), "{kinds:?}");
        assert!(kinds.iter().any(|k| matches!(k, Kind::LoadAt { .. })), "{kinds:?}");
        assert!(kinds.iter().any(|k| matches!(k, Kind::IfBinary { .. })), "{kinds:?}");
        assert!(kinds.iter().any(|k| matches!(k, Kind::CompareToBv { .. })), "{kinds:?}");
        assert!(
            !kinds.iter().any(|k| matches!(k, Kind::Copy { .. })),
            "every copy is gone: {kinds:?}"
        );
        // The chain is one negated comparison, branching at the `if`.
        let chain = module.func_index("chain").expect("chain");
        let kinds: Vec<Kind> = code.func(&module, chain).insts.iter().map(|i| i.kind).collect();
        assert!(
            kinds.iter().any(|k| matches!(
                k,
                Kind::IfBinary {
                    op: Op::Lt,
                    negate: true,
                    branch: 6,
                    ..
                }
            )),
            "{kinds:?}"
        );
        // The entry, whose final variables an outcome shows, is not rewritten.
        assert_eq!(code.func(&module, main).insts.len(), module.func(main).stmts.len());
        // In bounds (0), in bounds but another value read (offsets 4..8 hold
        // the 7 only at index 0), out of bounds at the store (the bug is the
        // store's statement, inside the fused chain), and at the end.
        for i in [0, 1, 8, 12, 13, u32::MAX as u64] {
            let (a, b) = (run(&code, &module, i), run(&plain, &module, i));
            assert_eq!(a, b, "i = {i}");
        }
        match run(&code, &module, 12) {
            Outcome::Bug { bug, stmt, .. } => assert_eq!((bug, stmt), (braid_ir::BugKind::OutOfBounds, 7)),
            other => panic!("expected an out-of-bounds store, got {other:?}"),
        }
        // Every statement counts once, whatever instruction it ran in.
        let entry = module.func_index("main").expect("main");
        let input = [TestInput::new("i", Value::bv(32, 0))];
        let steps = |c: &Code| {
            run_concrete_with(c, &module, entry, &input, None, None)
                .expect("runs")
                .steps
        };
        assert_eq!(steps(&code), steps(&plain));
    }
}
