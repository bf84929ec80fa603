//! braid's IR: the language of MultiSE Figure 2 (seed 000), typed per value
//! and extended just enough for real programs, with its `.bir` text format.
//!
//! A module is a list of functions; a function is a list of labelled
//! statements. Functions, statements and variables are dense `u32` ids.
//! Labels and function references are values (computed `if x goto y`,
//! calls through function values).

mod bug;
mod cfg;
pub mod check;
mod generate;
mod lex;
mod parse;
mod print;

pub use bug::BugKind;
pub use cfg::{loop_heads, natural_loops, reverse_post_order, successors, Blocks, LiveSet, Liveness, NaturalLoop};
pub use generate::{random_loop_program, random_memory_program, random_program};
pub use parse::{parse, ParseError};
pub use print::print;

use braid_term::{Op, Sort, Value};

/// A source position: 1-based line and column of `.bir` text, or (line 0)
/// the byte offset of the instruction a statement was lowered from, with
/// (`file` > 0) the line and column of the C source its debug information
/// names, `Module::files[file - 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub offset: u32,
    pub file: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A variable of one function (each call has its own copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// A statement index inside a function; a label value names one.
pub type StmtIdx = u32;

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Var(VarId),
    /// Constants, including labels (`&L`) and function references (`@f`).
    Const(Value),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Rhs {
    /// `x = c` or `x = y`.
    Copy(Operand),
    /// `x = input <sort> "name"`: a fresh symbolic input.
    Input {
        sort: Sort,
        name: String,
    },
    Unary(Op, Operand),
    Binary(Op, Operand, Operand),
    /// `x = select c, a, b`.
    Select(Operand, Operand, Operand),
    /// `y = *x` (one cell, any value) or `y = load bvW x` (W/8 bytes, little-endian).
    Load {
        addr: Operand,
        width: Option<u8>,
    },
    /// `p = alloc n` (or `alloc n, v`): a fresh allocation of `n` cells,
    /// undefined (or all holding the value `v`).
    Alloc(Operand, Option<Operand>),
}

/// The name of the `k`-th read (from 0) of input `name` on a path: `name`,
/// then `name#1`, `name#2`, …. Every engine and both replay runtimes name
/// inputs this way, so a test's inputs are found by name whatever order a
/// path reads them in.
pub fn input_name(name: &str, k: u32) -> String {
    if k == 0 {
        name.to_string()
    } else {
        format!("{name}#{k}")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Assign {
        dst: VarId,
        rhs: Rhs,
    },
    /// `*x = y` or `store bvW x, y`.
    Store {
        addr: Operand,
        value: Operand,
        width: Option<u8>,
    },
    /// `[r =] call f(args)`; `f` is `@name` or a variable holding a function value.
    Call {
        dst: Option<VarId>,
        callee: Operand,
        args: Vec<Operand>,
    },
    /// `if x goto y`: jump to the label `y` when `x` holds, else fall through.
    If {
        cond: Operand,
        target: Operand,
    },
    Goto(Operand),
    Ret(Option<Operand>),
    Assume(Operand),
    Assert(Operand),
    Error(BugKind),
    /// `halt` or `halt x`: ends the program; `x` is its exit code (the
    /// outcome's return value).
    Halt(Option<Operand>),
    /// `output s, b`: writes byte `b` (bv8) to stream `s` (bv32; 1 stdout,
    /// 2 stderr). Only concrete runs record output; engines skip it.
    Output {
        stream: Operand,
        byte: Operand,
    },
    /// `grow p, n, v`: the allocation `p` points into gets `n` more cells,
    /// each holding `v` (WebAssembly's `memory.grow`).
    Grow {
        addr: Operand,
        cells: Operand,
        fill: Operand,
    },
}

impl Stmt {
    /// The operands the statement reads.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Stmt::Assign { rhs, .. } => match rhs {
                Rhs::Copy(a) | Rhs::Unary(_, a) | Rhs::Load { addr: a, .. } => vec![a],
                Rhs::Alloc(n, fill) => std::iter::once(n).chain(fill).collect(),
                Rhs::Binary(_, a, b) => vec![a, b],
                Rhs::Select(c, a, b) => vec![c, a, b],
                Rhs::Input { .. } => vec![],
            },
            Stmt::Store { addr, value, .. } => vec![addr, value],
            Stmt::Call { callee, args, .. } => std::iter::once(callee).chain(args).collect(),
            Stmt::If { cond, target } => vec![cond, target],
            Stmt::Goto(t) => vec![t],
            Stmt::Ret(v) => v.iter().collect(),
            Stmt::Assume(c) | Stmt::Assert(c) => vec![c],
            Stmt::Halt(v) => v.iter().collect(),
            Stmt::Output { stream, byte } => vec![stream, byte],
            Stmt::Grow { addr, cells, fill } => vec![addr, cells, fill],
            Stmt::Error(_) => vec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: VarId,
    /// Required for the entry function, whose parameters become symbolic inputs.
    pub sort: Option<Sort>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    /// Variable names, indexed by `VarId`.
    pub vars: Vec<String>,
    pub stmts: Vec<Stmt>,
    /// Label names and the statement each names, in statement order. A
    /// label value `Value::Label { func, label }` indexes this list.
    pub labels: Vec<(String, StmtIdx)>,
    /// Source position of each statement (line 0 when built in memory).
    pub spans: Vec<Span>,
}

impl Function {
    pub fn label_of(&self, stmt: StmtIdx) -> Option<&str> {
        self.labels.iter().find(|(_, s)| *s == stmt).map(|(n, _)| n.as_str())
    }

    /// The statement a label value jumps to.
    pub fn label_target(&self, label: u32) -> Option<StmtIdx> {
        self.labels.get(label as usize).map(|(_, s)| *s)
    }

    pub fn var_index(&self, name: &str) -> Option<VarId> {
        self.vars.iter().position(|v| v == name).map(|i| VarId(i as u32))
    }

    /// `f:L`, or `f:#i` for an unlabelled statement.
    pub fn place(&self, stmt: StmtIdx) -> String {
        match self.label_of(stmt) {
            Some(l) => format!("{}:{l}", self.name),
            None => format!("{}:#{stmt}", self.name),
        }
    }

    /// [`Function::place`] plus its line (or offset), for messages.
    pub fn location(&self, stmt: StmtIdx) -> String {
        let at = self.place(stmt);
        match self.spans.get(stmt as usize) {
            Some(span) if span.line > 0 => format!("{at} (line {})", span.line),
            Some(span) if span.offset > 0 => format!("{at} (offset {:#x})", span.offset),
            _ => at,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    /// Source files statements' spans name (see [`Span::file`]).
    pub files: Vec<String>,
}

impl Module {
    pub fn func(&self, f: FuncId) -> &Function {
        &self.functions[f.0 as usize]
    }

    /// [`Function::location`], with the source file and line when the
    /// statement's span names them: `f:#i (prog.c:12:5)`.
    pub fn location(&self, f: FuncId, stmt: StmtIdx) -> String {
        let func = self.func(f);
        match func.spans.get(stmt as usize) {
            Some(s) if s.file > 0 && s.line > 0 => {
                let file = self.files.get(s.file as usize - 1).map_or("?", |f| f.as_str());
                format!("{} ({file}:{}:{})", func.place(stmt), s.line, s.col)
            }
            _ => func.location(stmt),
        }
    }

    pub fn func_index(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The same module with source positions cleared, for comparing programs.
    pub fn without_spans(&self) -> Module {
        let mut m = self.clone();
        for f in &mut m.functions {
            f.spans.iter_mut().for_each(|s| *s = Span::default());
        }
        m
    }

    /// Number of conditional branch statements (each has two outcomes).
    pub fn branch_count(&self) -> usize {
        self.functions
            .iter()
            .flat_map(|f| &f.stmts)
            .filter(|s| matches!(s, Stmt::If { .. }))
            .count()
    }

    /// Renders a value with the module's names: labels as `f:L`, functions as `@f`.
    pub fn render_value(&self, v: &Value) -> String {
        match *v {
            Value::Label { func, label } => match self
                .functions
                .get(func as usize)
                .and_then(|f| Some((f, f.labels.get(label as usize)?)))
            {
                Some((f, (name, _))) => format!("&{}:{name}", f.name),
                None => v.to_string(),
            },
            Value::Func(i) => match self.functions.get(i as usize) {
                Some(f) => format!("@{}", f.name),
                None => v.to_string(),
            },
            _ => v.to_string(),
        }
    }
}
