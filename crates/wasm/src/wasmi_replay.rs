//! Replay in `wasmi`, an independent WebAssembly runtime: the module runs
//! with host functions that feed a test's recorded inputs to the harness
//! imports (the k-th call of `f` reads input `f`, then `f#1`, …), and the
//! way it ends (a value returned, a trap, a harness failure) is compared
//! with the recorded outcome. Host functions that touch memory
//! (`klee_make_symbolic`, `mem*`) reach it through the `memory` export, as
//! C toolchains emit it.

use braid_term::Value;
use std::collections::HashMap;
use std::fmt;
use wasmi::{Caller, Engine, Extern, Linker, Module, Store, TrapCode, Val, ValType, F32, F64};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    Returned(Option<Value>),
    /// A trap or harness failure, by braid's bug kind.
    Bug(String),
    /// An `assume` did not hold: the inputs left the recorded path.
    AssumeViolated,
}

/// A harness failure raised by a host function.
#[derive(Debug)]
struct HostBug(String);

impl fmt::Display for HostBug {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl wasmi::errors::HostError for HostBug {}

struct Host {
    inputs: HashMap<String, Value>,
    reads: HashMap<String, u32>,
}

impl Host {
    /// The next recorded input read under `name` (its sort's zero if the
    /// test leaves it out: the solver left it free).
    fn next(&mut self, name: &str) -> Option<Value> {
        let k = self.reads.entry(name.to_string()).or_insert(0);
        let key = if *k == 0 {
            name.to_string()
        } else {
            format!("{name}#{k}")
        };
        *k += 1;
        self.inputs.get(&key).copied()
    }
}

fn bug(kind: &str) -> wasmi::Error {
    wasmi::Error::host(HostBug(kind.to_string()))
}

/// A recorded value as a wasm value of type `t` (narrow integers extended,
/// unsigned ones with zeros).
fn to_val(v: Option<Value>, t: &ValType, unsigned: bool) -> Val {
    let bits = match v {
        Some(Value::Bv { width, bits }) if !unsigned => Value::bv_signed(width, bits) as u64,
        Some(Value::Bv { bits, .. }) => bits,
        Some(Value::Bool(b)) => b as u64,
        Some(Value::F32(x)) => x as u64,
        Some(Value::F64(x)) => x,
        _ => 0,
    };
    match t {
        ValType::I64 => Val::I64(bits as i64),
        ValType::F32 => Val::F32(F32::from_bits(bits as u32)),
        ValType::F64 => Val::F64(F64::from_bits(bits)),
        _ => Val::I32(bits as i32),
    }
}

fn i32_of(v: &Val) -> i32 {
    match v {
        Val::I32(x) => *x,
        Val::I64(x) => *x as i32,
        _ => 0,
    }
}

fn memory_bytes<'a>(caller: &'a mut Caller<'_, Host>) -> Result<&'a mut [u8], wasmi::Error> {
    let mem = caller
        .get_export("memory")
        .and_then(Extern::into_memory)
        .ok_or_else(|| bug("out-of-bounds"))?;
    Ok(mem.data_mut(caller))
}

fn range(mem_len: usize, p: i32, n: i32) -> Result<std::ops::Range<usize>, wasmi::Error> {
    let (p, n) = (p as u32 as usize, n as u32 as usize);
    if p + n > mem_len {
        return Err(bug("out-of-bounds"));
    }
    Ok(p..p + n)
}

/// Runs export `export` of the module with `inputs` (name, value): its
/// parameters are inputs `arg0`, `arg1`, … (C's `main(argc, argv)` gets
/// zeros, as braid runs it).
pub fn run(bytes: &[u8], export: &str, inputs: &[(String, Value)]) -> Result<Ending, String> {
    let engine = Engine::default();
    let module = Module::new(&engine, bytes).map_err(|e| format!("wasmi: {e}"))?;
    let host = Host {
        inputs: inputs.iter().cloned().collect(),
        reads: HashMap::new(),
    };
    let mut store = Store::new(&engine, host);
    let mut linker = Linker::<Host>::new(&engine);
    for import in module.imports() {
        let Some(ty) = import.ty().func().cloned() else {
            return Err(format!(
                "wasmi: import {}.{} is not a function",
                import.module(),
                import.name()
            ));
        };
        let (m, n) = (import.module().to_string(), import.name().to_string());
        let results: Vec<ValType> = ty.results().to_vec();
        let name = n.clone();
        let func = move |mut caller: Caller<'_, Host>, params: &[Val], out: &mut [Val]| -> Result<(), wasmi::Error> {
            let nondet_unsigned = |ty: &str| ty.starts_with('u') || ty == "bool";
            // Arguments and the result by position: a module may import a
            // harness name with another signature (missing ones read as 0).
            let arg = |i: usize| params.get(i).map_or(0, i32_of);
            let first = params.first().cloned();
            match (m.as_str(), name.as_str()) {
                ("symbolic", "assume") | (_, "__VERIFIER_assume") | (_, "klee_assume") => {
                    if arg(0) == 0 {
                        return Err(bug("assume-violated"));
                    }
                }
                ("symbolic", "assert") => {
                    if arg(0) == 0 {
                        return Err(bug("assertion"));
                    }
                }
                (_, "reach_error") => return Err(bug("reach_error")),
                (_, "abort") => return Err(bug("abort")),
                (_, "__assert_fail") => return Err(bug("assertion")),
                (_, "klee_range") => {
                    let v = caller.data_mut().next("klee_range");
                    let x = i32_of(&to_val(v, &ValType::I32, false));
                    if !(arg(0) <= x && x < arg(1)) {
                        return Err(bug("assume-violated"));
                    }
                    if let Some(o) = out.first_mut() {
                        *o = Val::I32(x);
                    }
                }
                (_, "klee_make_symbolic") => {
                    let n = arg(1);
                    let bytes: Vec<u8> = (0..n as u32)
                        .map(|_| match caller.data_mut().next("klee_make_symbolic") {
                            Some(Value::Bv { bits, .. }) => bits as u8,
                            _ => 0,
                        })
                        .collect();
                    let mem = memory_bytes(&mut caller)?;
                    let r = range(mem.len(), arg(0), n)?;
                    mem[r].copy_from_slice(&bytes);
                }
                (_, "memset") => {
                    let mem = memory_bytes(&mut caller)?;
                    let r = range(mem.len(), arg(0), arg(2))?;
                    mem[r].fill(arg(1) as u8);
                    if let (Some(o), Some(p)) = (out.first_mut(), first.clone()) {
                        *o = p;
                    }
                }
                (_, "memcpy") | (_, "memmove") => {
                    let mem = memory_bytes(&mut caller)?;
                    let n = arg(2);
                    let to = range(mem.len(), arg(0), n)?;
                    let from = range(mem.len(), arg(1), n)?;
                    mem.copy_within(from, to.start);
                    if let (Some(o), Some(p)) = (out.first_mut(), first.clone()) {
                        *o = p;
                    }
                }
                (module, n) => {
                    // A symbolic value: harness symbols, nondet values, and
                    // unknown imports made symbolic.
                    let key = if module == "symbolic" || n.starts_with("__VERIFIER_nondet_") || n == "klee_int" {
                        n.to_string()
                    } else {
                        format!("{module}.{n}")
                    };
                    let unsigned = n.strip_prefix("__VERIFIER_nondet_").is_some_and(nondet_unsigned);
                    if let (Some(t), Some(o)) = (results.first(), out.first_mut()) {
                        let v = caller.data_mut().next(&key);
                        *o = to_val(v, t, unsigned);
                    }
                }
            }
            Ok(())
        };
        linker
            .func_new(import.module(), import.name(), ty.clone(), func)
            .map_err(|e| format!("wasmi: {e}"))?;
    }
    let instance = match linker.instantiate_and_start(&mut store, &module) {
        Ok(i) => i,
        Err(e) => return Ok(ending_of(&e)),
    };
    let func = instance
        .get_func(&store, export)
        .ok_or_else(|| format!("wasmi: the module exports no function `{export}`"))?;
    let ty = func.ty(&store);
    let c_main = export == "main" && ty.params() == [ValType::I32, ValType::I32];
    let args: Vec<Val> = ty
        .params()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let v = if c_main {
                None
            } else {
                store.data().inputs.get(&format!("arg{i}")).copied()
            };
            to_val(v, t, false)
        })
        .collect();
    let mut out: Vec<Val> = ty.results().iter().map(|t| Val::default_for_ty(*t)).collect();
    match func.call(&mut store, &args, &mut out) {
        Ok(()) => Ok(Ending::Returned(out.first().map(|v| match v {
            Val::I32(x) => Value::bv(32, *x as u32 as u64),
            Val::I64(x) => Value::bv(64, *x as u64),
            Val::F32(x) => Value::F32(x.to_bits()),
            Val::F64(x) => Value::F64(x.to_bits()),
            _ => Value::Undef,
        }))),
        Err(e) => Ok(ending_of(&e)),
    }
}

fn ending_of(e: &wasmi::Error) -> Ending {
    if let Some(HostBug(kind)) = e.downcast_ref::<HostBug>() {
        if kind == "assume-violated" {
            return Ending::AssumeViolated;
        }
        return Ending::Bug(kind.clone());
    }
    let kind = match e.as_trap_code() {
        Some(TrapCode::UnreachableCodeReached) => "unreachable",
        Some(TrapCode::MemoryOutOfBounds) => "out-of-bounds",
        Some(TrapCode::TableOutOfBounds) | Some(TrapCode::IndirectCallToNull) => "undefined-element",
        Some(TrapCode::IntegerDivisionByZero) => "division-by-zero",
        Some(TrapCode::IntegerOverflow) => "integer-overflow",
        Some(TrapCode::BadConversionToInteger) => "invalid-conversion",
        Some(TrapCode::StackOverflow) => "stack-overflow",
        Some(TrapCode::BadSignature) => "indirect-call-signature-mismatch",
        _ => return Ending::Bug(format!("wasmi error: {e}")),
    };
    Ending::Bug(kind.to_string())
}
