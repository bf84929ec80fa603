//! Imported functions braid implements: the harness conventions of Owi/WASP
//! (`symbolic`), SV-COMP/Test-Comp (`__VERIFIER_*`, `reach_error`, `abort`,
//! `__assert_fail`), KLEE (`klee_*`) and the C library's `memcpy`,
//! `memmove` and `memset`. Each becomes an IR function with the import's
//! signature; symbolic values are inputs named after the function.

use crate::builder::{bv, var, FnBuilder};
use crate::{layout, Convention, Sig};
use braid_ir::{BugKind, FuncId, Function, Operand, Rhs, Stmt, VarId};
use braid_term::{Op, Sort};
use wasmparser::ValType;

/// Where the value of an implemented import goes.
#[derive(Clone, Copy)]
pub enum Exit {
    /// Returned (the import's own IR function).
    Return,
    /// Assigned at the call site (the import inlined there).
    Into(Option<VarId>),
}

/// The IR function implementing import `module.name`, or `None` if braid
/// does not know it (for calls through the table).
pub fn stub(
    id: FuncId,
    module: &str,
    name: &str,
    sig: &Sig,
    wasi: &crate::wasi::Config,
    convention: Convention,
) -> Option<Function> {
    if module == crate::wasi::MODULE {
        return crate::wasi::function(id, name, sig, wasi);
    }
    let mut b = FnBuilder::new(id, name);
    let params: Vec<VarId> = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, t)| b.param(&format!("p{i}"), crate::sort_of(*t)))
        .collect();
    let known = emit(&mut b, (module, name), sig, &params, Exit::Return, convention, None);
    known.then(|| b.finish())
}

/// Emits the implementation of import `module.name` on `params` into `b`;
/// `false` (and nothing emitted) if braid does not know it. Direct calls
/// inline it, so bugs (`reach_error`, a failed `assert`) are located at the
/// call. `label` names a KLEE call's inputs (the string its name argument
/// points to, where the call site shows it).
pub fn emit(
    b: &mut FnBuilder,
    (module, name): (&str, &str),
    sig: &Sig,
    params: &[VarId],
    exit: Exit,
    convention: Convention,
    label: Option<&str>,
) -> bool {
    let result = sig.results.first().copied();
    let b = &mut Out { b, exit };
    match (module, name) {
        ("symbolic", "i8_symbol" | "char_symbol") => symbol(b, name, Sort::Bv(8), result),
        ("symbolic", "bool_symbol") => symbol(b, name, Sort::Bool, result),
        // `owi_range(lo, hi)`: a value in [lo, hi), as klee_range.
        ("symbolic", "range_symbol") => klee_range(b, params, result, name),
        ("symbolic", "i32_symbol") => symbol(b, name, Sort::Bv(32), result),
        ("symbolic", "i64_symbol") => symbol(b, name, Sort::Bv(64), result),
        ("symbolic", "f32_symbol") => symbol(b, name, Sort::F32, result),
        ("symbolic", "f64_symbol") => symbol(b, name, Sort::F64, result),
        ("symbolic", "assume") => condition(b, params, false),
        ("symbolic", "assert") => condition(b, params, true),
        (_, "__VERIFIER_assume") | (_, "klee_assume") => condition(b, params, false),
        // Before 2020 SV-COMP's property was `__VERIFIER_error()`.
        (_, "reach_error" | "__VERIFIER_error") => error(b, BugKind::ReachError),
        // SV-COMP: only `reach_error` is the property; `abort` ends the path.
        (_, "abort") if convention == Convention::Svcomp => halt(b, None),
        (_, "abort") => error(b, BugKind::Abort),
        (_, "exit" | "_exit" | "_Exit") => halt(b, params.first()),
        (_, "__assert_fail") => error(b, BugKind::Assertion),
        (_, "klee_abort") => error(b, BugKind::Abort),
        // C++ built without its runtime: a pure virtual call aborts, and
        // static destructors registered to run at exit never run here.
        (_, "__cxa_pure_virtual") => error(b, BugKind::Abort),
        (_, "__cxa_atexit") if result == Some(ValType::I32) => {
            let zero = b.var("zero");
            b.assign(zero, Rhs::Copy(bv(32, 0)));
            b.done(Some(zero));
            true
        }
        (_, "klee_report_error") => error(b, BugKind::Assertion),
        (_, "klee_silent_exit") => halt(b, params.first()),
        (_, n) if KLEE_NO_OPS.contains(&n) && result.is_none() => {
            b.done(None);
            true
        }
        // The value on this path: the value itself (KLEE also fixes it).
        (_, "klee_get_value_i32" | "klee_get_value_i64" | "klee_get_valuel" | "klee_get_valuell") => {
            let Some(x) = params.first() else { return false };
            b.done(Some(*x));
            true
        }
        (_, "klee_int") => symbol(b, label.unwrap_or(name), Sort::Bv(32), result),
        (_, "klee_range") => klee_range(b, params, result, label.unwrap_or(name)),
        (_, "klee_make_symbolic") => make_symbolic(b, params, label.unwrap_or(name)),
        (_, "memset") => mem_loop(b, params, Bulk::Set, result),
        (_, "memcpy") => mem_loop(b, params, Bulk::Copy, result),
        (_, "memmove") => mem_loop(b, params, Bulk::Move, result),
        (_, n) if n.starts_with("__VERIFIER_nondet_") => nondet(b, n, result),
        _ => false,
    }
}

/// KLEE's functions that only print, hint or check (every input a test
/// exercises is checked by replay): each call does nothing.
pub const KLEE_NO_OPS: [&str; 10] = [
    "klee_warning",
    "klee_warning_once",
    "klee_print_expr",
    "klee_print_range",
    "klee_prefer_cex",
    "klee_set_forking",
    "klee_stack_trace",
    "klee_open_merge",
    "klee_close_merge",
    "klee_check_memory_access",
];

/// A KLEE name as braid names inputs: the name's characters other than
/// `#` (which separates an input's name from its read count) and control
/// characters; `None` for a name left empty.
pub fn input_label(name: &str) -> Option<String> {
    let label: String = name.chars().filter(|c| *c != '#' && !c.is_control()).collect();
    (!label.is_empty()).then_some(label)
}

/// A builder and where results go.
struct Out<'a> {
    b: &'a mut FnBuilder,
    exit: Exit,
}

impl std::ops::Deref for Out<'_> {
    type Target = FnBuilder;
    fn deref(&self) -> &FnBuilder {
        self.b
    }
}

impl std::ops::DerefMut for Out<'_> {
    fn deref_mut(&mut self) -> &mut FnBuilder {
        self.b
    }
}

impl Out<'_> {
    /// Ends the implementation with its value (if any).
    fn done(&mut self, value: Option<VarId>) {
        match self.exit {
            Exit::Return => self.b.emit(Stmt::Ret(value.map(var))),
            Exit::Into(Some(d)) => {
                if let Some(v) = value {
                    self.b.assign(d, Rhs::Copy(var(v)));
                }
            }
            Exit::Into(None) => {}
        }
    }
}

/// A stub for an unknown import: each call returns a fresh symbolic value.
pub fn unknown(id: FuncId, module: &str, name: &str, sig: &Sig) -> Function {
    let mut b = FnBuilder::new(id, name);
    for (i, t) in sig.params.iter().enumerate() {
        b.param(&format!("p{i}"), crate::sort_of(*t));
    }
    let out = &mut Out {
        b: &mut b,
        exit: Exit::Return,
    };
    match sig.results.first() {
        Some(t) => {
            symbol(out, &format!("{module}.{name}"), crate::sort_of(*t), Some(*t));
        }
        None => out.done(None),
    }
    b.finish()
}

/// `return input <sort> "name"`, converted to the wasm result type.
fn symbol(b: &mut Out, name: &str, sort: Sort, result: Option<ValType>) -> bool {
    let Some(result) = result else { return false };
    let x = b.var("x");
    b.assign(
        x,
        Rhs::Input {
            sort,
            name: name.to_string(),
        },
    );
    let out = widen(b, x, sort, result);
    b.done(Some(out));
    true
}

/// A value of `sort` as the wasm type `t` (narrow integers extended).
fn widen(b: &mut FnBuilder, x: VarId, sort: Sort, t: ValType) -> VarId {
    match (sort, t) {
        (Sort::Bool, ValType::I32) => b.unary(Op::ToBv(32), var(x)),
        (Sort::Bv(w), ValType::I32) if w < 32 => b.unary(Op::SExt(32), var(x)),
        (Sort::Bv(w), ValType::I64) if w < 64 => b.unary(Op::SExt(64), var(x)),
        _ => x,
    }
}

/// `__VERIFIER_nondet_<type>`: a symbolic value of the C type, as wasm32
/// passes it.
fn nondet(b: &mut Out, name: &str, result: Option<ValType>) -> bool {
    let ty = &name["__VERIFIER_nondet_".len()..];
    let sort = match ty {
        "bool" => Sort::Bool,
        "char" | "uchar" | "unsigned_char" => Sort::Bv(8),
        "short" | "ushort" | "unsigned_short" => Sort::Bv(16),
        "int" | "uint" | "unsigned_int" | "unsigned" | "u32" | "s32" | "long" | "ulong" | "unsigned_long"
        | "pointer" | "pchar" | "size_t" | "loff_t" | "sector_t" | "charp" => Sort::Bv(32),
        "longlong" | "ulonglong" | "long_long" | "unsigned_long_long" | "u64" | "s64" | "int128" | "uint128" => {
            Sort::Bv(64)
        }
        "float" => Sort::F32,
        "double" => Sort::F64,
        _ => match result {
            Some(ValType::I64) => Sort::Bv(64),
            Some(ValType::I32) => Sort::Bv(32),
            _ => return false,
        },
    };
    // Unsigned narrow types are zero-extended.
    let Some(t) = result else { return false };
    let x = b.var("x");
    b.assign(
        x,
        Rhs::Input {
            sort,
            name: name.to_string(),
        },
    );
    let unsigned = ty.starts_with('u') || ty == "bool";
    let out = match (sort, t) {
        (Sort::Bv(w), ValType::I32) if w < 32 && unsigned => b.unary(Op::ZExt(32), var(x)),
        _ => widen(b, x, sort, t),
    };
    b.done(Some(out));
    true
}

/// `assume(c)` or `assert(c)` of an i32 condition.
fn condition(b: &mut Out, params: &[VarId], assert: bool) -> bool {
    let Some(c) = params.first() else { return false };
    let nz = b.binary(Op::Ne, var(*c), bv(32, 0));
    b.emit(if assert {
        Stmt::Assert(var(nz))
    } else {
        Stmt::Assume(var(nz))
    });
    b.done(None);
    true
}

/// Ends the program (`exit(code)`; `abort()` where it is no bug).
fn halt(b: &mut Out, code: Option<&VarId>) -> bool {
    b.emit(Stmt::Halt(code.map(|c| var(*c))));
    true
}

fn error(b: &mut Out, kind: BugKind) -> bool {
    b.emit(Stmt::Error(kind));
    true
}

/// `klee_range(lo, hi, name)` (and Owi's `range_symbol(lo, hi)`): a symbolic int in `[lo, hi)`.
fn klee_range(b: &mut Out, params: &[VarId], result: Option<ValType>, label: &str) -> bool {
    let (Some(lo), Some(hi), Some(ValType::I32)) = (params.first(), params.get(1), result) else {
        return false;
    };
    let x = b.var("x");
    b.assign(
        x,
        Rhs::Input {
            sort: Sort::Bv(32),
            name: label.into(),
        },
    );
    let above = b.binary(Op::Ge, var(x), var(*lo));
    let below = b.binary(Op::Lt, var(x), var(*hi));
    let within = b.binary(Op::And, var(above), var(below));
    b.emit(Stmt::Assume(var(within)));
    b.done(Some(x));
    true
}

/// The address of byte `p + i` of linear memory (`p`, `i`: i32).
pub(crate) fn byte_at(b: &mut FnBuilder, p: VarId, i: Operand) -> VarId {
    let sum = b.binary(Op::Add, var(p), i);
    let wide = b.unary(Op::ZExt(64), var(sum));
    let off = b.unary(Op::ToInt, var(wide));
    b.binary(Op::Add, Operand::Const(layout::MEMORY), var(off))
}

/// A loop `for (i = 0; i < n; i++) body(i)` over an i32 count.
pub(crate) fn counted(b: &mut FnBuilder, n: VarId, mut body: impl FnMut(&mut FnBuilder, VarId)) {
    let i = b.temp();
    b.assign(i, Rhs::Copy(bv(32, 0)));
    let head = b.label("loop");
    let done = b.label("done");
    b.place(head);
    let stop = b.binary(Op::UGe, var(i), var(n));
    b.branch(stop, done);
    body(b, i);
    b.assign(i, Rhs::Binary(Op::Add, var(i), bv(32, 1)));
    b.goto(head);
    b.place(done);
}

/// `klee_make_symbolic(p, n, name)`: `n` symbolic bytes at `p`, inputs
/// named `label` (`name`'s string where it is known, as KLEE names them).
fn make_symbolic(b: &mut Out, params: &[VarId], label: &str) -> bool {
    let (Some(p), Some(n)) = (params.first().copied(), params.get(1).copied()) else {
        return false;
    };
    counted(b, n, |b, i| {
        let byte = b.temp();
        b.assign(
            byte,
            Rhs::Input {
                sort: Sort::Bv(8),
                name: label.into(),
            },
        );
        let at = byte_at(b, p, var(i));
        b.store(var(at), var(byte), Some(8));
    });
    b.done(None);
    true
}

#[derive(Clone, Copy, PartialEq)]
pub enum Bulk {
    Set,
    Copy,
    Move,
}

/// `memset(d, c, n)`, `memcpy(d, s, n)`, `memmove(d, s, n)` (returning
/// `d` when the import has a result) and the bodies of `memory.fill` and
/// `memory.copy`.
fn mem_loop(b: &mut Out, params: &[VarId], kind: Bulk, result: Option<ValType>) -> bool {
    let [d, s, n] = params else { return false };
    let (d, s, n) = (*d, *s, *n);
    let copy_byte = |b: &mut FnBuilder, from: VarId, to: VarId| {
        let src = byte_at(b, s, var(from));
        let byte = b.load(var(src), Some(8));
        let dst = byte_at(b, d, var(to));
        b.store(var(dst), var(byte), Some(8));
    };
    match kind {
        Bulk::Set => {
            let low = b.unary(Op::Trunc(8), var(s));
            counted(b, n, |b, i| {
                let at = byte_at(b, d, var(i));
                b.store(var(at), var(low), Some(8));
            });
        }
        Bulk::Copy => counted(b, n, |b, i| copy_byte(b, i, i)),
        Bulk::Move => {
            // Backwards when the destination is above the source.
            let backwards = b.binary(Op::UGt, var(d), var(s));
            let back = b.label("back");
            let end = b.label("end");
            b.branch(backwards, back);
            counted(b, n, |b, i| copy_byte(b, i, i));
            b.goto(end);
            b.place(back);
            counted(b, n, |b, i| {
                let from_top = b.binary(Op::Sub, var(n), var(i));
                let j = b.binary(Op::Sub, var(from_top), bv(32, 1));
                copy_byte(b, j, j)
            });
            b.place(end);
        }
    }
    b.done(result.map(|_| d));
    true
}

/// `memory.fill(d, v, n)` and `memory.copy(d, s, n)` as IR functions.
pub fn bulk_helper(id: FuncId, name: &str, kind: Bulk) -> Function {
    let mut b = FnBuilder::new(id, name);
    let params: Vec<VarId> = ["d", "s", "n"].iter().map(|p| b.param(p, Sort::Bv(32))).collect();
    mem_loop(
        &mut Out {
            b: &mut b,
            exit: Exit::Return,
        },
        &params,
        kind,
        None,
    );
    b.finish()
}
