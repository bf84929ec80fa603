//! The `.bir` parser. Names are resolved in one pass after a pre-scan that
//! collects every function name and, per function, its labels and assigned
//! variables, so forward references need no patching.

use crate::check;
use crate::lex::{describe, lex, Pos, Tok};
use crate::{BugKind, Function, Module, Operand, Param, Rhs, Span, Stmt, VarId};
use braid_term::{Op, Sort, Value};
use rustc_hash::FxHashSet;
use std::fmt;

/// A located error in a `.bir` program: `file:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

const RESERVED: [&str; 55] = [
    "fn",
    "input",
    "alloc",
    "load",
    "store",
    "select",
    "call",
    "if",
    "goto",
    "ret",
    "assume",
    "assert",
    "error",
    "halt",
    "true",
    "false",
    "undef",
    "zext",
    "sext",
    "trunc",
    "toint",
    "tof32",
    "tof64",
    "tobv",
    "udiv",
    "urem",
    "ult",
    "ule",
    "ugt",
    "uge",
    "lshr",
    "nan",
    "inf",
    "to",
    "int",
    "bool",
    "neg",
    "not",
    "fabs",
    "fsqrt",
    "fceil",
    "ffloor",
    "ftrunc",
    "fnearest",
    "fmin",
    "fmax",
    "copysign",
    "reinterpret",
    "convert_s",
    "convert_u",
    "fconvert",
    "trunc_s",
    "trunc_u",
    "trunc_sat_s",
    "trunc_sat_u",
];

/// Parses and checks a `.bir` program. `file` names it in error messages.
pub fn parse(file: &str, src: &str) -> Result<Module, ParseError> {
    let located = |pos: Pos, message: String| ParseError {
        file: file.to_string(),
        line: pos.line,
        col: pos.col,
        message,
    };
    let toks = lex(src).map_err(|(pos, m)| located(pos, m))?;
    let mut p = Parser {
        toks,
        at: 0,
        functions: Vec::new(),
        labels: Vec::new(),
        assigned: FxHashSet::default(),
    };
    let module = p.module().map_err(|(pos, m)| located(pos, m))?;
    check::check(&module).map_err(|(span, m)| {
        located(
            Pos {
                line: span.line,
                col: span.col,
            },
            m,
        )
    })?;
    Ok(module)
}

type PResult<T> = Result<T, (Pos, String)>;

struct Parser {
    toks: Vec<(Tok, Pos)>,
    at: usize,
    functions: Vec<String>,
    /// Labels of the function being parsed, in order.
    labels: Vec<String>,
    /// Variables the function being parsed assigns (or takes as parameters).
    assigned: FxHashSet<String>,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.at + k).min(self.toks.len() - 1)].0
    }

    fn pos(&self) -> Pos {
        self.toks[self.at].1
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.at].0.clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn fail<T>(&self, expected: &str) -> PResult<T> {
        Err((
            self.pos(),
            format!("expected {expected}, found {}", describe(self.peek())),
        ))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.is_punct(p) {
            self.bump();
            Ok(())
        } else {
            self.fail(&format!("`{p}`"))
        }
    }

    fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.is_word(w) {
            self.bump();
            Ok(())
        } else {
            self.fail(&format!("`{w}`"))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.fail(what),
        }
    }

    fn string(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.fail(what),
        }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Tok::Newline | Tok::Punct(";")) {
            self.bump();
        }
    }

    fn end_of_stmt(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline | Tok::Punct(";") => {
                self.bump();
                Ok(())
            }
            Tok::Punct("}") | Tok::Eof => Ok(()),
            _ => self.fail("end of statement"),
        }
    }

    fn module(&mut self) -> PResult<Module> {
        // Pre-scan: every function name, so calls may refer forward.
        let mut names = FxHashSet::default();
        for w in self.toks.windows(2) {
            if let [(Tok::Ident(kw), _), (Tok::Ident(name), pos)] = w {
                if kw == "fn" {
                    if !names.insert(name.clone()) {
                        return Err((*pos, format!("function `{name}` is defined twice")));
                    }
                    self.functions.push(name.clone());
                }
            }
        }
        let mut module = Module::default();
        loop {
            self.skip_newlines();
            if matches!(self.peek(), Tok::Eof) {
                break;
            }
            let f = self.function()?;
            module.functions.push(f);
        }
        Ok(module)
    }

    /// Collects the labels and assigned variables of the body starting at the
    /// current token (just after `{`).
    fn prescan_body(&mut self) {
        self.labels.clear();
        self.assigned.clear();
        let mut at_start = true;
        let mut i = self.at;
        while i + 1 < self.toks.len() {
            match (&self.toks[i].0, &self.toks[i + 1].0) {
                (Tok::Punct("}"), _) | (Tok::Eof, _) => break,
                (Tok::Ident(name), Tok::Punct(":")) if at_start => {
                    self.labels.push(name.clone());
                    i += 2;
                    continue;
                }
                (Tok::Ident(name), Tok::Punct("=")) if at_start => {
                    self.assigned.insert(name.clone());
                }
                _ => {}
            }
            at_start = matches!(self.toks[i].0, Tok::Newline | Tok::Punct(";"));
            i += 1;
        }
    }

    fn function(&mut self) -> PResult<Function> {
        self.expect_word("fn")?;
        let name = self.ident("a function name")?;
        let mut f = Function {
            name,
            params: Vec::new(),
            vars: Vec::new(),
            stmts: Vec::new(),
            labels: Vec::new(),
            spans: Vec::new(),
        };
        self.expect_punct("(")?;
        while !self.is_punct(")") {
            let pos = self.pos();
            let pname = self.ident("a parameter name")?;
            if f.var_index(&pname).is_some() {
                return Err((pos, format!("parameter `{pname}` is declared twice")));
            }
            let var = self.declare(&mut f, &pname, pos)?;
            let sort = if self.is_punct(":") {
                self.bump();
                Some(self.sort()?)
            } else {
                None
            };
            f.params.push(Param { var, sort });
            if !self.is_punct(")") {
                self.expect_punct(",")?;
            }
        }
        self.bump();
        self.skip_newlines_only();
        self.expect_punct("{")?;
        self.prescan_body();
        for p in &f.params {
            self.assigned.insert(f.vars[p.var.0 as usize].clone());
        }
        let mut seen_labels: Vec<(String, Pos)> = Vec::new();
        let mut pending: Vec<(String, Pos)> = Vec::new();
        loop {
            self.skip_newlines();
            if self.is_punct("}") {
                self.bump();
                break;
            }
            if matches!(self.peek(), Tok::Eof) {
                return self.fail("`}`");
            }
            if let (Tok::Ident(l), Tok::Punct(":")) = (self.peek().clone(), self.peek_at(1).clone()) {
                let pos = self.pos();
                if seen_labels.iter().any(|(n, _)| *n == l) {
                    return Err((pos, format!("label `{l}` is defined twice")));
                }
                seen_labels.push((l.clone(), pos));
                pending.push((l, pos));
                self.bump();
                self.bump();
                continue;
            }
            let span = Span {
                line: self.pos().line,
                col: self.pos().col,
                offset: 0,
                file: 0,
            };
            let stmt = self.stmt(&mut f)?;
            let idx = f.stmts.len() as u32;
            f.labels.extend(pending.drain(..).map(|(l, _)| (l, idx)));
            f.stmts.push(stmt);
            f.spans.push(span);
            self.end_of_stmt()?;
        }
        if let Some((l, pos)) = pending.first() {
            return Err((*pos, format!("label `{l}` names no statement")));
        }
        // Label values index `labels` by the pre-scan order; keep the two equal.
        f.labels.sort_by_key(|(n, _)| self.labels.iter().position(|m| m == n));
        Ok(f)
    }

    fn skip_newlines_only(&mut self) {
        while matches!(self.peek(), Tok::Newline) {
            self.bump();
        }
    }

    fn declare(&mut self, f: &mut Function, name: &str, pos: Pos) -> PResult<VarId> {
        if RESERVED.contains(&name) {
            return Err((pos, format!("`{name}` is a reserved word, not a variable name")));
        }
        Ok(match f.var_index(name) {
            Some(v) => v,
            None => {
                f.vars.push(name.to_string());
                VarId(f.vars.len() as u32 - 1)
            }
        })
    }

    fn sort(&mut self) -> PResult<Sort> {
        let pos = self.pos();
        let s = self.ident("a sort (int, bool, f32, f64, bv1..bv64)")?;
        Sort::parse(&s).filter(|s| s.is_smt()).ok_or((
            pos,
            format!("expected a sort (int, bool, f32, f64, bv1..bv64), found `{s}`"),
        ))
    }

    fn width(&mut self) -> PResult<u8> {
        let pos = self.pos();
        match self.sort()? {
            Sort::Bv(w) if matches!(w, 8 | 16 | 32 | 64) => Ok(w),
            s => Err((
                pos,
                format!("expected a memory width (bv8, bv16, bv32, bv64), found `{s}`"),
            )),
        }
    }

    fn bv_sort(&mut self) -> PResult<u8> {
        let pos = self.pos();
        match self.sort()? {
            Sort::Bv(w) => Ok(w),
            s => Err((pos, format!("expected a bit-vector sort, found `{s}`"))),
        }
    }

    fn stmt(&mut self, f: &mut Function) -> PResult<Stmt> {
        let pos = self.pos();
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            Tok::Punct("*") => {
                self.bump();
                let addr = self.operand(f)?;
                self.expect_punct("=")?;
                let value = self.operand(f)?;
                return Ok(Stmt::Store {
                    addr,
                    value,
                    width: None,
                });
            }
            _ => return self.fail("a statement"),
        };
        if matches!(self.peek_at(1), Tok::Punct("=")) && !RESERVED.contains(&word.as_str()) {
            self.bump();
            self.bump();
            let dst = self.declare(f, &word, pos)?;
            return self.assignment(f, dst);
        }
        self.bump();
        Ok(match word.as_str() {
            "if" => {
                let cond = self.operand(f)?;
                self.expect_word("goto")?;
                Stmt::If {
                    cond,
                    target: self.target(f)?,
                }
            }
            "goto" => Stmt::Goto(self.target(f)?),
            "ret" => match self.peek() {
                Tok::Newline | Tok::Punct(";") | Tok::Punct("}") | Tok::Eof => Stmt::Ret(None),
                _ => Stmt::Ret(Some(self.operand(f)?)),
            },
            "assume" => Stmt::Assume(self.operand(f)?),
            "assert" => Stmt::Assert(self.operand(f)?),
            "error" => Stmt::Error(BugKind::from_name(&self.string("a string naming the error kind")?)),
            "halt" => match self.peek() {
                Tok::Newline | Tok::Punct(";") | Tok::Punct("}") | Tok::Eof => Stmt::Halt(None),
                _ => Stmt::Halt(Some(self.operand(f)?)),
            },
            "grow" => {
                let addr = self.operand(f)?;
                self.expect_punct(",")?;
                let cells = self.operand(f)?;
                self.expect_punct(",")?;
                Stmt::Grow {
                    addr,
                    cells,
                    fill: self.operand(f)?,
                }
            }
            "output" => {
                let stream = self.operand(f)?;
                self.expect_punct(",")?;
                Stmt::Output {
                    stream,
                    byte: self.operand(f)?,
                }
            }
            "store" => {
                let width = Some(self.width()?);
                let addr = self.operand(f)?;
                self.expect_punct(",")?;
                let value = self.operand(f)?;
                Stmt::Store { addr, value, width }
            }
            "call" => self.call(f, None)?,
            _ => return Err((pos, format!("expected a statement, found `{word}`"))),
        })
    }

    fn call(&mut self, f: &mut Function, dst: Option<VarId>) -> PResult<Stmt> {
        let callee = self.callee(f)?;
        self.expect_punct("(")?;
        let mut args = Vec::new();
        while !self.is_punct(")") {
            args.push(self.operand(f)?);
            if !self.is_punct(")") {
                self.expect_punct(",")?;
            }
        }
        self.bump();
        Ok(Stmt::Call { dst, callee, args })
    }

    fn assignment(&mut self, f: &mut Function, dst: VarId) -> PResult<Stmt> {
        let rhs = match self.peek().clone() {
            Tok::Ident(w) => match w.as_str() {
                "input" => {
                    self.bump();
                    let sort = self.sort()?;
                    Rhs::Input {
                        sort,
                        name: self.string("a string naming the input")?,
                    }
                }
                "alloc" => {
                    self.bump();
                    let n = self.operand(f)?;
                    let fill = if self.is_punct(",") {
                        self.bump();
                        Some(self.operand(f)?)
                    } else {
                        None
                    };
                    Rhs::Alloc(n, fill)
                }
                "load" => {
                    self.bump();
                    let width = Some(self.width()?);
                    Rhs::Load {
                        addr: self.operand(f)?,
                        width,
                    }
                }
                "select" => {
                    self.bump();
                    let c = self.operand(f)?;
                    self.expect_punct(",")?;
                    let a = self.operand(f)?;
                    self.expect_punct(",")?;
                    Rhs::Select(c, a, self.operand(f)?)
                }
                "call" => {
                    self.bump();
                    return self.call(f, Some(dst));
                }
                "zext" | "sext" | "trunc" | "tobv" => {
                    self.bump();
                    let width = self.bv_sort()?;
                    let op = match w.as_str() {
                        "zext" => Op::ZExt(width),
                        "sext" => Op::SExt(width),
                        "trunc" => Op::Trunc(width),
                        _ => Op::ToBv(width),
                    };
                    Rhs::Unary(op, self.operand(f)?)
                }
                "neg" | "not" => {
                    self.bump();
                    let op = if w == "neg" { Op::Neg } else { Op::Not };
                    Rhs::Unary(op, self.operand(f)?)
                }
                w if Op::unary_from_word(w, None).is_some() => {
                    self.bump();
                    let op = Op::unary_from_word(w, None).expect("checked");
                    Rhs::Unary(op, self.operand(f)?)
                }
                w if Op::unary_from_word(w, Some(32)).is_some() => {
                    self.bump();
                    let pos = self.pos();
                    let float = Op::unary_from_word(w, Some(32)).is_some_and(Op::takes_float_width);
                    let width = match (self.sort()?, float) {
                        (Sort::F32, true) => 32,
                        (Sort::F64, true) => 64,
                        (Sort::Bv(w), false) => w,
                        (s, _) => {
                            let want = if float { "f32 or f64" } else { "a bit-vector sort" };
                            return Err((pos, format!("expected {want}, found `{s}`")));
                        }
                    };
                    let op = Op::unary_from_word(w, Some(width)).expect("checked");
                    Rhs::Unary(op, self.operand(f)?)
                }
                "toint" | "tof32" | "tof64" => {
                    self.bump();
                    let op = match w.as_str() {
                        "toint" => Op::ToInt,
                        "tof32" => Op::ToF32,
                        _ => Op::ToF64,
                    };
                    Rhs::Unary(op, self.operand(f)?)
                }
                _ => self.binary_or_copy(f)?,
            },
            Tok::Punct("*") => {
                self.bump();
                Rhs::Load {
                    addr: self.operand(f)?,
                    width: None,
                }
            }
            Tok::Punct("!") => {
                self.bump();
                Rhs::Unary(Op::Not, self.operand(f)?)
            }
            Tok::Punct("-")
                if !matches!(self.peek_at(1), Tok::Number(_))
                    && !matches!(self.peek_at(1), Tok::Ident(s) if s == "inf") =>
            {
                self.bump();
                Rhs::Unary(Op::Neg, self.operand(f)?)
            }
            _ => self.binary_or_copy(f)?,
        };
        Ok(Stmt::Assign { dst, rhs })
    }

    fn binary_or_copy(&mut self, f: &mut Function) -> PResult<Rhs> {
        let a = self.operand(f)?;
        let op = match self.peek() {
            Tok::Punct(p) => Op::binary_from_symbol(p),
            Tok::Ident(w) => Op::binary_from_symbol(w),
            _ => None,
        };
        match op {
            Some(op) => {
                self.bump();
                Ok(Rhs::Binary(op, a, self.operand(f)?))
            }
            None => Ok(Rhs::Copy(a)),
        }
    }

    fn literal(&mut self, text: &str, negative: bool, pos: Pos) -> PResult<Value> {
        let is_float = text.contains(['.', 'e', 'E']) || matches!(text, "nan" | "inf");
        let suffix = if self.is_punct(":") {
            self.bump();
            Some(self.sort()?)
        } else {
            None
        };
        let bad = |m: String| Err((pos, m));
        let signed = if negative { format!("-{text}") } else { text.to_string() };
        match suffix {
            None | Some(Sort::Int) if !is_float => match signed.parse::<i128>() {
                Ok(i) => Ok(Value::Int(i)),
                Err(_) => bad(format!("integer literal `{signed}` out of range")),
            },
            None if is_float => {
                Value::parse(&signed, Sort::F64).map_or_else(|| bad(format!("bad number `{signed}`")), Ok)
            }
            Some(s @ (Sort::F32 | Sort::F64)) => {
                Value::parse(&signed, s).map_or_else(|| bad(format!("bad number `{signed}`")), Ok)
            }
            Some(Sort::Bv(w)) if !is_float => {
                let fits = match signed.parse::<i128>() {
                    Ok(i) if i < 0 => i >= -(1i128 << (w - 1)),
                    Ok(i) => i < (1i128 << w),
                    Err(_) => false,
                };
                if !fits {
                    return bad(format!("literal `{signed}` does not fit in bv{w}"));
                }
                Ok(Value::bv(w, signed.parse::<i128>().unwrap_or(0) as u64))
            }
            Some(s) => bad(format!("literal `{signed}` cannot have sort {s}")),
            None => bad(format!("bad number `{signed}`")),
        }
    }

    fn operand(&mut self, f: &mut Function) -> PResult<Operand> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Number(n) => {
                self.bump();
                Ok(Operand::Const(self.literal(&n, false, pos)?))
            }
            Tok::Punct("-") => {
                self.bump();
                match self.peek().clone() {
                    Tok::Number(n) => {
                        self.bump();
                        Ok(Operand::Const(self.literal(&n, true, pos)?))
                    }
                    Tok::Ident(w) if w == "inf" => {
                        self.bump();
                        Ok(Operand::Const(self.literal(&w, true, pos)?))
                    }
                    _ => self.fail("a number"),
                }
            }
            Tok::Punct("@") => {
                self.bump();
                let name = self.ident("a function name")?;
                self.function_ref(&name, pos)
            }
            Tok::Punct("&") => {
                self.bump();
                let name = self.ident("a label name")?;
                self.label_ref(f, &name, pos)
            }
            Tok::Ident(w) => {
                self.bump();
                match w.as_str() {
                    "true" => Ok(Operand::Const(Value::Bool(true))),
                    "false" => Ok(Operand::Const(Value::Bool(false))),
                    "undef" => Ok(Operand::Const(Value::Undef)),
                    "nan" | "inf" => Ok(Operand::Const(self.literal(&w, false, pos)?)),
                    _ => Ok(Operand::Var(self.declare(f, &w, pos)?)),
                }
            }
            _ => self.fail("an operand"),
        }
    }

    fn function_ref(&self, name: &str, pos: Pos) -> PResult<Operand> {
        match self.functions.iter().position(|g| g == name) {
            Some(i) => Ok(Operand::Const(Value::Func(i as u32))),
            None => Err((pos, format!("call to undefined function `{name}`"))),
        }
    }

    fn label_ref(&self, f: &Function, name: &str, pos: Pos) -> PResult<Operand> {
        let func = self.functions.iter().position(|g| *g == f.name).unwrap_or(0) as u32;
        match self.labels.iter().position(|l| l == name) {
            Some(i) => Ok(Operand::Const(Value::Label { func, label: i as u32 })),
            None => Err((pos, format!("unknown label `{name}` in function `{}`", f.name))),
        }
    }

    /// A jump target: a label name, `&L`, or a variable holding a label.
    fn target(&mut self, f: &mut Function) -> PResult<Operand> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(name) if self.labels.contains(&name) => {
                self.bump();
                self.label_ref(f, &name, pos)
            }
            Tok::Ident(name) if !self.assigned.contains(&name) && !RESERVED.contains(&name.as_str()) => {
                Err((pos, format!("unknown label `{name}` in function `{}`", f.name)))
            }
            _ => self.operand(f),
        }
    }

    /// A callee: `@f`, a function name, or a variable holding a function value.
    fn callee(&mut self, f: &mut Function) -> PResult<Operand> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(name) if !self.assigned.contains(&name) => {
                self.bump();
                self.function_ref(&name, pos)
            }
            _ => self.operand(f),
        }
    }
}
