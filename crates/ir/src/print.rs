//! The `.bir` printer. `parse(print(m))` gives back `m` (up to source
//! positions); a property test checks it.

use crate::{Function, Module, Operand, Rhs, Stmt};
use braid_term::{Op, Value};
use std::fmt::Write;

pub fn print(m: &Module) -> String {
    let mut out = String::new();
    for (i, f) in m.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_function(&mut out, m, f);
    }
    out
}

fn quote(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            _ => q.push(c),
        }
    }
    q.push('"');
    q
}

fn constant(m: &Module, v: &Value) -> String {
    match v {
        Value::Label { .. } => {
            let r = m.render_value(v);
            // `&f:L` → `&L`: label values are local to their function.
            format!("&{}", r.rsplit(':').next().unwrap_or(&r))
        }
        Value::F64(b) if f64::from_bits(*b).is_nan() => "nan".into(),
        Value::F32(b) if f32::from_bits(*b).is_nan() => "nan:f32".into(),
        _ => m.render_value(v),
    }
}

fn operand(m: &Module, f: &Function, o: &Operand) -> String {
    match o {
        Operand::Var(v) => f.vars[v.0 as usize].clone(),
        Operand::Const(c) => constant(m, c),
    }
}

fn target(m: &Module, f: &Function, o: &Operand) -> String {
    match o {
        Operand::Const(Value::Label { .. }) => operand(m, f, o)[1..].to_string(),
        _ => operand(m, f, o),
    }
}

fn rhs(m: &Module, f: &Function, r: &Rhs) -> String {
    let o = |x: &Operand| operand(m, f, x);
    match r {
        Rhs::Copy(a) => o(a),
        Rhs::Input { sort, name } => format!("input {sort} {}", quote(name)),
        Rhs::Unary(Op::Neg, a) => format!("neg {}", o(a)),
        Rhs::Unary(Op::Not, a) => format!("not {}", o(a)),
        Rhs::Unary(op, a) => format!("{op} {}", o(a)),
        Rhs::Binary(op, a, b) => format!("{} {} {}", o(a), op.symbol(), o(b)),
        Rhs::Select(c, a, b) => format!("select {}, {}, {}", o(c), o(a), o(b)),
        Rhs::Load { addr, width: None } => format!("*{}", o(addr)),
        Rhs::Load { addr, width: Some(w) } => format!("load bv{w} {}", o(addr)),
        Rhs::Alloc(n, None) => format!("alloc {}", o(n)),
        Rhs::Alloc(n, Some(v)) => format!("alloc {}, {}", o(n), o(v)),
    }
}

pub(crate) fn stmt(m: &Module, f: &Function, s: &Stmt) -> String {
    let o = |x: &Operand| operand(m, f, x);
    match s {
        Stmt::Assign { dst, rhs: r } => format!("{} = {}", f.vars[dst.0 as usize], rhs(m, f, r)),
        Stmt::Store {
            addr,
            value,
            width: None,
        } => format!("*{} = {}", o(addr), o(value)),
        Stmt::Store {
            addr,
            value,
            width: Some(w),
        } => format!("store bv{w} {}, {}", o(addr), o(value)),
        Stmt::Call { dst, callee, args } => {
            let args: Vec<String> = args.iter().map(o).collect();
            let call = format!("call {}({})", o(callee), args.join(", "));
            match dst {
                Some(d) => format!("{} = {call}", f.vars[d.0 as usize]),
                None => call,
            }
        }
        Stmt::If { cond, target: t } => format!("if {} goto {}", o(cond), target(m, f, t)),
        Stmt::Goto(t) => format!("goto {}", target(m, f, t)),
        Stmt::Ret(None) => "ret".into(),
        Stmt::Ret(Some(v)) => format!("ret {}", o(v)),
        Stmt::Assume(c) => format!("assume {}", o(c)),
        Stmt::Assert(c) => format!("assert {}", o(c)),
        Stmt::Error(k) => format!("error {}", quote(k.name())),
        Stmt::Halt(None) => "halt".into(),
        Stmt::Halt(Some(v)) => format!("halt {}", o(v)),
        Stmt::Output { stream, byte } => format!("output {}, {}", o(stream), o(byte)),
        Stmt::Grow { addr, cells, fill } => format!("grow {}, {}, {}", o(addr), o(cells), o(fill)),
    }
}

fn print_function(out: &mut String, m: &Module, f: &Function) {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let name = &f.vars[p.var.0 as usize];
            match p.sort {
                Some(s) => format!("{name}: {s}"),
                None => name.clone(),
            }
        })
        .collect();
    let _ = writeln!(out, "fn {}({}) {{", f.name, params.join(", "));
    for (i, s) in f.stmts.iter().enumerate() {
        for (l, _) in f.labels.iter().filter(|(_, at)| *at as usize == i) {
            let _ = writeln!(out, "{l}:");
        }
        let _ = writeln!(out, "    {}", stmt(m, f, s));
    }
    out.push_str("}\n");
}
