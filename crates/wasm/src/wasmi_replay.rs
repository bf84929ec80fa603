//! Replay in `wasmi`, an independent WebAssembly runtime: the module runs
//! with host functions that feed a test's recorded inputs to the harness
//! imports (the k-th call of `f` reads input `f`, then `f#1`, …), and the
//! way it ends (a value returned, a trap, a harness failure) is compared
//! with the recorded outcome. Host functions that touch memory
//! (`klee_make_symbolic`, `mem*`, WASI) reach it through the `memory`
//! export, as C toolchains emit it. WASI is implemented as braid lowers it
//! ([`crate::wasi`]): symbolic arguments and stdin from the inputs, output
//! captured, `proc_exit` ending the run with its code.

use braid_ir::BugKind;
use braid_term::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use wasmi::{Caller, Engine, Extern, Linker, Module, Store, TrapCode, Val, ValType, F32, F64};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    Returned(Option<Value>),
    /// A trap or harness failure, by braid's bug kind.
    Bug(BugKind),
    /// An `assume` did not hold: the inputs left the recorded path.
    AssumeViolated,
    /// WASI `proc_exit` or C's `exit` with this code.
    Exited(i32),
    /// Ended without a value or a bug: `abort()` under SV-COMP, or an
    /// instance whose start function is the entry.
    Halted,
}

/// A run's ending and what it wrote to stdout and stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub ending: Ending,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// A harness failure raised by a host function.
#[derive(Debug)]
struct HostBug(BugKind);

impl fmt::Display for HostBug {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl wasmi::errors::HostError for HostBug {}

struct Host {
    inputs: HashMap<String, Value>,
    reads: HashMap<String, u32>,
    wasi: crate::wasi::Config,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stdin_pos: usize,
    /// braid's machine: a memory grows to [`crate::MAX_PAGES`] at most, and
    /// `memory.grow` past it returns -1 (a `malloc` of more fails) in wasmi
    /// as in braid.
    limits: wasmi::StoreLimits,
}

/// `proc_exit`'s code, raised as a host error to end the run (`None`:
/// ended without one).
#[derive(Debug)]
struct Exit(Option<i32>);

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "exit {:?}", self.0)
    }
}

impl wasmi::errors::HostError for Exit {}

impl Host {
    /// The input name of a KLEE harness call whose name argument points to
    /// `at`: the string there, as braid names such inputs, unless the test
    /// has inputs under the call's own name and none under it (braid names
    /// inputs after the function where the name was not a string literal).
    fn label(&self, mem: &[u8], at: i32, call: &str) -> String {
        let text = mem.get(at as u32 as usize..).map(|rest| {
            let end = rest.iter().position(|&c| c == 0).unwrap_or(0);
            String::from_utf8_lossy(&rest[..end]).into_owned()
        });
        text.and_then(|t| crate::harness::input_label(&t))
            .filter(|l| self.names(l) || !self.names(call))
            .unwrap_or_else(|| call.to_string())
    }

    /// Whether the test has an input read under `name` (its first read,
    /// `name`, or a later one, `name#k`: a test may leave any of them out).
    fn names(&self, name: &str) -> bool {
        self.inputs.keys().any(|k| {
            k.strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('#'))
        })
    }

    /// The next recorded input read under `name` (`None` if the test
    /// leaves it out: the solver left it free, and the caller reads zero).
    fn next(&mut self, name: &str) -> Option<Value> {
        let k = self.reads.entry(name.to_string()).or_insert(0);
        let key = braid_ir::input_name(name, *k);
        *k += 1;
        self.inputs.get(&key).copied()
    }

    /// The `k`-th byte (from 0) of input `name`, 0 if the test leaves it out.
    fn byte(&self, name: &str, k: usize) -> u8 {
        let key = braid_ir::input_name(name, k as u32);
        match self.inputs.get(&key) {
            Some(Value::Bv { bits, .. }) => *bits as u8,
            _ => 0,
        }
    }

    /// The number of symbolic arguments.
    fn nargs(&self) -> u32 {
        match self.inputs.get("nargs") {
            Some(Value::Bv { bits, .. }) if self.wasi.sym_args.is_some() => *bits as u32,
            _ => 0,
        }
    }
}

fn bug(kind: BugKind) -> wasmi::Error {
    wasmi::Error::host(HostBug(kind))
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
        .ok_or_else(|| bug(BugKind::OutOfBounds))?;
    Ok(mem.data_mut(caller))
}

/// [`Host::label`] of a KLEE harness call, reading its name from memory.
fn label_of(caller: &mut Caller<'_, Host>, at: i32, call: &str) -> Result<String, wasmi::Error> {
    let mem = caller
        .get_export("memory")
        .and_then(Extern::into_memory)
        .ok_or_else(|| bug(BugKind::OutOfBounds))?;
    let (bytes, host) = mem.data_and_store_mut(caller);
    Ok(host.label(bytes, at, call))
}

fn range(mem_len: usize, p: i32, n: i32) -> Result<std::ops::Range<usize>, wasmi::Error> {
    let (p, n) = (p as u32 as usize, n as u32 as usize);
    if p + n > mem_len {
        return Err(bug(BugKind::OutOfBounds));
    }
    Ok(p..p + n)
}

/// A module made ready for wasmi once (rewritten as [`prepare`] says,
/// compiled), for many runs.
///
/// The memory the module defines is imported instead (`braid.memory`) and
/// made for each run in one buffer kept from run to run: wasmi writes
/// zeros over a memory it allocates, and a C program's memory holds its
/// 8 MiB stack, so a fresh one cost every run 2 048 page faults and a
/// write of 8 MiB (59 % of replaying a CSV parser's tests, which run in
/// microseconds). The kept buffer's pages stay mapped; wasmi zeroes the
/// memory's initial size in it, and each page it grows by, as before.
pub struct Prepared {
    engine: Engine,
    module: Module,
    svcomp: bool,
    memory: Option<(wasmi::MemoryType, Mutex<Buffer>)>,
}

/// The bytes of a memory imported by a [`Prepared`] module, big enough
/// for the most pages a memory may grow to ([`crate::MAX_PAGES`]); mapped
/// as they are first touched.
struct Buffer(*mut [u8]);

// SAFETY: the buffer is only reached through the `Mutex` that holds it.
unsafe impl Send for Buffer {}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: made by `Box::into_raw` in `Prepared::new`, and no run
        // (which holds the lock) outlives the `Prepared`.
        drop(unsafe { Box::from_raw(self.0) });
    }
}

/// The import a module's own memory becomes.
const MEMORY: (&str, &str) = ("braid", "memory");

impl Prepared {
    /// `bytes` made ready to run under the harness `convention`.
    pub fn new(bytes: &[u8], convention: crate::Convention) -> Result<Prepared, String> {
        let (bytes, convention) = prepare(bytes, convention)?;
        let engine = Engine::default();
        let module = Module::new(&engine, &bytes).map_err(|e| format!("wasmi: {e}"))?;
        let memory = module
            .imports()
            .find(|i| (i.module(), i.name()) == MEMORY)
            .and_then(|i| i.ty().memory().copied())
            .map(|ty| {
                let bytes = vec![0u8; (crate::MAX_PAGES * 65536) as usize].into_boxed_slice();
                (ty, Mutex::new(Buffer(Box::into_raw(bytes))))
            });
        Ok(Prepared {
            engine,
            module,
            svcomp: convention == crate::Convention::Svcomp,
            memory,
        })
    }

    /// Runs `export` (none: the instance is only made, its start function
    /// run) with `inputs` (name, value): its parameters are inputs `arg0`,
    /// `arg1`, … (C's `main(argc, argv)` gets zeros, as braid runs it).
    ///
    /// wasmi's interpreter dispatches by calls from one instruction's
    /// handler to the next, which only an optimising build turns into
    /// jumps: unoptimised, a loop of 20 000 iterations overflowed the main
    /// thread's 8 MiB stack. So the run has a thread of its own with a
    /// stack of [`STACK`] bytes (only the pages it touches are memory).
    pub fn run(
        &self,
        export: Option<&str>,
        inputs: &[(String, Value)],
        wasi: &crate::wasi::Config,
    ) -> Result<Run, String> {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("wasmi".into())
                .stack_size(STACK)
                .spawn_scoped(scope, || self.run_here(export, inputs, wasi))
                .map_err(|e| format!("wasmi: cannot start its thread: {e}"))?
                .join()
                .map_err(|_| "wasmi: the run panicked".to_string())?
        })
    }

    fn run_here(
        &self,
        export: Option<&str>,
        inputs: &[(String, Value)],
        wasi: &crate::wasi::Config,
    ) -> Result<Run, String> {
        let svcomp = self.svcomp;
        let (engine, module) = (&self.engine, &self.module);
        // Held to the end, after the store that uses the buffer is gone.
        let mut memory = self
            .memory
            .as_ref()
            .map(|(ty, buffer)| (*ty, buffer.lock().unwrap_or_else(|poisoned| poisoned.into_inner())));
        let host = Host {
            inputs: inputs.iter().cloned().collect(),
            reads: HashMap::new(),
            wasi: *wasi,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdin_pos: 0,
            limits: wasmi::StoreLimitsBuilder::new()
                .memory_size((crate::MAX_PAGES * 65536) as usize)
                .build(),
        };
        let mut store = Store::new(engine, host);
        store.limiter(|host| &mut host.limits);
        let mut linker = Linker::<Host>::new(engine);
        if let Some((ty, buffer)) = &mut memory {
            // SAFETY: the buffer lives as long as `self`, and the lock, held
            // until this function returns (after `store` is dropped), keeps
            // every other run away from it.
            let bytes: &'static mut [u8] = unsafe { &mut *buffer.0 };
            let mem = wasmi::Memory::new_static(&mut store, *ty, bytes).map_err(|e| format!("wasmi: {e}"))?;
            linker
                .define(MEMORY.0, MEMORY.1, mem)
                .map_err(|e| format!("wasmi: {e}"))?;
        }
        for import in module.imports() {
            if (import.module(), import.name()) == MEMORY {
                continue;
            }
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
            let func =
                move |mut caller: Caller<'_, Host>, params: &[Val], out: &mut [Val]| -> Result<(), wasmi::Error> {
                    let nondet_unsigned = |ty: &str| ty.starts_with('u') || ty == "bool";
                    // Arguments and the result by position: a module may import a
                    // harness name with another signature (missing ones read as 0).
                    let arg = |i: usize| params.get(i).map_or(0, i32_of);
                    let first = params.first().cloned();
                    if m == crate::wasi::MODULE {
                        return wasi_call(&mut caller, &name, params, out);
                    }
                    match (m.as_str(), name.as_str()) {
                        ("symbolic", "assume") | (_, "__VERIFIER_assume") | (_, "klee_assume") => {
                            if arg(0) == 0 {
                                return Err(bug(BugKind::AssumeViolated));
                            }
                        }
                        ("symbolic", "assert") => {
                            if arg(0) == 0 {
                                return Err(bug(BugKind::Assertion));
                            }
                        }
                        (_, "reach_error" | "__VERIFIER_error") => return Err(bug(BugKind::ReachError)),
                        (_, "klee_abort" | "__cxa_pure_virtual") => return Err(bug(BugKind::Abort)),
                        (_, "__cxa_atexit") => {
                            if let Some(o) = out.first_mut() {
                                *o = Val::I32(0);
                            }
                        }
                        (_, "klee_report_error") => return Err(bug(BugKind::Assertion)),
                        (_, "klee_silent_exit") => return Err(wasmi::Error::host(Exit(Some(arg(0))))),
                        (_, n) if crate::harness::KLEE_NO_OPS.contains(&n) && results.is_empty() => {}
                        (_, "klee_get_value_i32" | "klee_get_value_i64" | "klee_get_valuel" | "klee_get_valuell") => {
                            if let (Some(o), Some(p)) = (out.first_mut(), first.clone()) {
                                *o = p;
                            }
                        }
                        (_, "abort") if svcomp => return Err(wasmi::Error::host(Exit(None))),
                        (_, "abort") => return Err(bug(BugKind::Abort)),
                        (_, "exit" | "_exit" | "_Exit") => return Err(wasmi::Error::host(Exit(Some(arg(0))))),
                        (_, "__assert_fail") => return Err(bug(BugKind::Assertion)),
                        (_, "klee_range") | ("symbolic", "range_symbol") => {
                            let label = match name.as_str() {
                                "klee_range" => label_of(&mut caller, arg(2), "klee_range")?,
                                _ => "range_symbol".to_string(),
                            };
                            let v = caller.data_mut().next(&label);
                            let x = i32_of(&to_val(v, &ValType::I32, false));
                            if !(arg(0) <= x && x < arg(1)) {
                                return Err(bug(BugKind::AssumeViolated));
                            }
                            if let Some(o) = out.first_mut() {
                                *o = Val::I32(x);
                            }
                        }
                        (_, "klee_int") => {
                            let label = label_of(&mut caller, arg(0), "klee_int")?;
                            if let Some(o) = out.first_mut() {
                                *o = to_val(caller.data_mut().next(&label), &ValType::I32, false);
                            }
                        }
                        (_, "klee_make_symbolic") => {
                            let n = arg(1);
                            let label = label_of(&mut caller, arg(2), "klee_make_symbolic")?;
                            let bytes: Vec<u8> = (0..n as u32)
                                .map(|_| match caller.data_mut().next(&label) {
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
                            let key = if module == "symbolic" || n.starts_with("__VERIFIER_nondet_") || n == "klee_int"
                            {
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
        let instance = match linker.instantiate_and_start(&mut store, module) {
            Ok(i) => i,
            Err(e) => return Ok(finish(store, ending_of(&e))),
        };
        let Some(export) = export else {
            return Ok(finish(store, Ending::Halted));
        };
        let func = instance
            .get_func(&store, export)
            .ok_or_else(|| format!("wasmi: the module exports no function `{export}`"))?;
        let ty = func.ty(&store);
        let c_main = matches!(export, "main" | "__main_argc_argv") && ty.params() == [ValType::I32, ValType::I32];
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
        let ending = match func.call(&mut store, &args, &mut out) {
            Ok(()) => Ending::Returned(out.first().map(|v| match v {
                Val::I32(x) => Value::bv(32, *x as u32 as u64),
                Val::I64(x) => Value::bv(64, *x as u64),
                Val::F32(x) => Value::F32(x.to_bits()),
                Val::F64(x) => Value::F64(x.to_bits()),
                _ => Value::Undef,
            })),
            Err(e) => ending_of(&e),
        };
        Ok(finish(store, ending))
    }
}

/// Runs `export` of the module `bytes` once (see [`Prepared::run`]; many
/// runs of one module should share a [`Prepared`]).
pub fn run(
    bytes: &[u8],
    export: Option<&str>,
    inputs: &[(String, Value)],
    wasi: &crate::wasi::Config,
    convention: crate::Convention,
) -> Result<Run, String> {
    Prepared::new(bytes, convention)?.run(export, inputs, wasi)
}

/// The stack of a wasmi run's thread.
const STACK: usize = 256 << 20;

/// The module as wasmi runs it, and its convention. Its one memory, if it
/// defines one (and imports none), is imported instead as [`MEMORY`] (see
/// [`Prepared`]). Under SV-COMP a call to a `reach_error` the program
/// defines is the violation, whatever its body (braid's lowering says so
/// at the call): here its body becomes a call to an import
/// `braid.reach_error` added for it, which fails as the imported
/// `reach_error` does.
fn prepare(bytes: &[u8], convention: crate::Convention) -> Result<(Vec<u8>, crate::Convention), String> {
    use wasmparser::{ExternalKind, Parser, Payload, TypeRef};
    let err = |e: wasmparser::BinaryReaderError| format!("wasmi: {e}");
    let mut imports: Vec<(String, String)> = Vec::new();
    let mut types: Vec<u32> = Vec::new();
    let mut named: Vec<(u32, String)> = Vec::new();
    let mut memories_imported = 0;
    let mut memories: Vec<wasmparser::MemoryType> = Vec::new();
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.map_err(err)? {
            Payload::ImportSection(r) => {
                for i in r.into_imports() {
                    let i = i.map_err(err)?;
                    match i.ty {
                        TypeRef::Func(_) => imports.push((i.module.to_string(), i.name.to_string())),
                        TypeRef::Memory(_) => memories_imported += 1,
                        _ => {}
                    }
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    types.push(t.map_err(err)?);
                }
            }
            Payload::MemorySection(r) => {
                for m in r {
                    memories.push(m.map_err(err)?);
                }
            }
            Payload::ExportSection(r) => {
                for e in r.into_iter().flatten() {
                    if e.kind == ExternalKind::Func {
                        named.push((e.index, e.name.to_string()));
                    }
                }
            }
            Payload::CustomSection(c) => named.extend(crate::names_in(&c)),
            _ => {}
        }
    }
    let n = imports.len() as u32;
    let reach_error = crate::defined_reach_error(named, n);
    let convention = convention.resolve(
        reach_error.is_some(),
        imports.iter().map(|(m, n)| (m.as_str(), n.as_str())),
    );
    let reach_error = match (reach_error, convention) {
        (Some(target), crate::Convention::Svcomp) => types.get((target - n) as usize).map(|&ty| (target, ty)),
        _ => None,
    };
    let memory = match memories[..] {
        [m] if memories_imported == 0 && !m.memory64 && !m.shared && m.page_size_log2.is_none() => Some(m),
        _ => None,
    };
    if reach_error.is_none() && memory.is_none() {
        return Ok((bytes.to_vec(), convention));
    }
    let mut r = Rewrite {
        imported: n,
        reach_error,
        memory,
        next_body: n,
        added: false,
    };
    let mut module = wasm_encoder::Module::new();
    wasm_encoder::reencode::Reencode::parse_core_module(&mut r, &mut module, Parser::new(0), bytes)
        .map_err(|e| format!("wasmi: rewriting the module: {e:?}"))?;
    Ok((module.finish(), convention))
}

/// See [`prepare`]: the imports are added after the others (a function
/// import at index `imported`, so defined functions move up by one).
struct Rewrite {
    imported: u32,
    /// reach_error's index before the import is added, and its type.
    reach_error: Option<(u32, u32)>,
    /// The memory the module defines, to import instead.
    memory: Option<wasmparser::MemoryType>,
    /// The index (before) of the next function body.
    next_body: u32,
    added: bool,
}

impl Rewrite {
    fn add_imports(&mut self, section: &mut wasm_encoder::ImportSection) {
        if let Some((_, ty)) = self.reach_error {
            section.import("braid", "reach_error", wasm_encoder::EntityType::Function(ty));
        }
        if let Some(m) = self.memory {
            let ty = wasm_encoder::reencode::utils::memory_type(self, m);
            section.import(MEMORY.0, MEMORY.1, ty);
        }
        self.added = true;
    }
}

impl wasm_encoder::reencode::Reencode for Rewrite {
    type Error = std::convert::Infallible;

    fn function_index(&mut self, func: u32) -> Result<u32, wasm_encoder::reencode::Error<Self::Error>> {
        Ok(if self.reach_error.is_some() && func >= self.imported {
            func + 1
        } else {
            func
        })
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        wasm_encoder::reencode::utils::parse_import_section(self, imports, section)?;
        self.add_imports(imports);
        Ok(())
    }

    fn parse_memory_section(
        &mut self,
        memories: &mut wasm_encoder::MemorySection,
        section: wasmparser::MemorySectionReader<'_>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        match self.memory {
            // Imported instead.
            Some(_) => Ok(()),
            None => wasm_encoder::reencode::utils::parse_memory_section(self, memories, section),
        }
    }

    fn intersperse_section_hook(
        &mut self,
        module: &mut wasm_encoder::Module,
        _after: Option<wasm_encoder::SectionId>,
        before: Option<wasm_encoder::SectionId>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        // A module without imports gets a section for the one added.
        if !self.added && before.is_some_and(|b| b as u8 > wasm_encoder::SectionId::Import as u8) {
            let mut section = wasm_encoder::ImportSection::new();
            self.add_imports(&mut section);
            module.section(&section);
        }
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        func: wasmparser::FunctionBody<'_>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        let index = self.next_body;
        self.next_body += 1;
        if self.reach_error.map(|(target, _)| target) != Some(index) {
            return wasm_encoder::reencode::utils::parse_function_body(self, code, func);
        }
        let mut f = wasm_encoder::Function::new([]);
        f.instruction(&wasm_encoder::Instruction::Call(self.imported));
        f.instruction(&wasm_encoder::Instruction::Unreachable);
        f.instruction(&wasm_encoder::Instruction::End);
        code.function(&f);
        Ok(())
    }
}

fn finish(store: Store<Host>, ending: Ending) -> Run {
    let host = store.into_data();
    Run {
        ending,
        stdout: host.stdout,
        stderr: host.stderr,
    }
}

fn put(mem: &mut [u8], at: u32, bytes: &[u8]) -> Result<(), wasmi::Error> {
    let r = range(mem.len(), at as i32, bytes.len() as i32)?;
    mem[r].copy_from_slice(bytes);
    Ok(())
}

fn get_u32(mem: &[u8], at: u32) -> Result<u32, wasmi::Error> {
    let r = range(mem.len(), at as i32, 4)?;
    Ok(u32::from_le_bytes(mem[r].try_into().expect("four bytes")))
}

/// WASI function `name`, as [`crate::wasi`] lowers it.
fn wasi_call(caller: &mut Caller<'_, Host>, name: &str, params: &[Val], out: &mut [Val]) -> Result<(), wasmi::Error> {
    use crate::wasi::{ARGV0, ERRNO_BADF, ERRNO_NOSYS, ERRNO_SPIPE};
    let arg = |i: usize| params.get(i).map_or(0, i32_of) as u32;
    if name == "proc_exit" {
        return Err(wasmi::Error::host(Exit(Some(arg(0) as i32))));
    }
    let errno: u64 = match name {
        "args_sizes_get" => {
            let (argc, size) = (1 + caller.data().nargs(), caller.data().wasi.args_buffer());
            let mem = memory_bytes(caller)?;
            put(mem, arg(0), &argc.to_le_bytes())?;
            put(mem, arg(1), &size.to_le_bytes())?;
            0
        }
        "args_get" => {
            let host = caller.data();
            let (count, len) = host.wasi.sym_args.unwrap_or((0, 0));
            let nargs = host.nargs();
            let args: Vec<Vec<u8>> = (0..count)
                .map(|i| {
                    (0..len as usize)
                        .map(|j| host.byte(&format!("arg{}", i + 1), j))
                        .collect()
                })
                .collect();
            let (argv, buf) = (arg(0), arg(1));
            let mem = memory_bytes(caller)?;
            put(mem, buf, ARGV0.as_bytes())?;
            put(mem, buf + ARGV0.len() as u32, &[0])?;
            put(mem, argv, &buf.to_le_bytes())?;
            for (i, bytes) in args.iter().enumerate() {
                let start = buf + ARGV0.len() as u32 + 1 + i as u32 * (len + 1);
                put(mem, start, bytes)?;
                put(mem, start + len, &[0])?;
                if (i as u32) < nargs {
                    put(mem, argv + 4 * (1 + i as u32), &start.to_le_bytes())?;
                }
            }
            0
        }
        "environ_sizes_get" => {
            let mem = memory_bytes(caller)?;
            put(mem, arg(0), &[0; 4])?;
            put(mem, arg(1), &[0; 4])?;
            0
        }
        "environ_get" | "fd_close" | "sched_yield" | "fd_fdstat_set_flags" => 0,
        "fd_write" => {
            let (fd, iovs, n, written) = (arg(0), arg(1), arg(2), arg(3));
            if fd != 1 && fd != 2 {
                ERRNO_BADF
            } else {
                let mem = memory_bytes(caller)?;
                let mut bytes = Vec::new();
                for k in 0..n {
                    let base = get_u32(mem, iovs.wrapping_add(8 * k))?;
                    let len = get_u32(mem, iovs.wrapping_add(8 * k + 4))?;
                    let r = range(mem.len(), base as i32, len as i32)?;
                    bytes.extend_from_slice(&mem[r]);
                }
                put(mem, written, &(bytes.len() as u32).to_le_bytes())?;
                let host = caller.data_mut();
                if fd == 1 { &mut host.stdout } else { &mut host.stderr }.extend(bytes);
                0
            }
        }
        "fd_read" => {
            let (fd, iovs, n, read) = (arg(0), arg(1), arg(2), arg(3));
            if fd != 0 {
                ERRNO_BADF
            } else {
                let host = caller.data();
                let stdin: Vec<u8> = (0..host.wasi.sym_stdin as usize)
                    .map(|k| host.byte("stdin", k))
                    .collect();
                let mut pos = host.stdin_pos;
                let mem = memory_bytes(caller)?;
                let mut total = 0u32;
                'iovs: for k in 0..n {
                    let base = get_u32(mem, iovs.wrapping_add(8 * k))?;
                    let len = get_u32(mem, iovs.wrapping_add(8 * k + 4))?;
                    for j in 0..len {
                        if pos >= stdin.len() {
                            break 'iovs;
                        }
                        put(mem, base.wrapping_add(j), &[stdin[pos]])?;
                        pos += 1;
                        total += 1;
                    }
                }
                put(mem, read, &total.to_le_bytes())?;
                caller.data_mut().stdin_pos = pos;
                0
            }
        }
        "fd_fdstat_get" => {
            if arg(0) > 2 {
                ERRNO_BADF
            } else {
                let mut stat = [0u8; 24];
                stat[0] = 2;
                stat[8] = 0x42;
                stat[16] = 0x42;
                put(memory_bytes(caller)?, arg(1), &stat)?;
                0
            }
        }
        "fd_seek" | "fd_tell" => ERRNO_SPIPE,
        "fd_prestat_get" | "fd_prestat_dir_name" => ERRNO_BADF,
        "clock_time_get" => {
            put(memory_bytes(caller)?, arg(2), &[0; 8])?;
            0
        }
        "clock_res_get" => {
            put(memory_bytes(caller)?, arg(1), &1u64.to_le_bytes())?;
            0
        }
        "random_get" => {
            let mem = memory_bytes(caller)?;
            let r = range(mem.len(), arg(0) as i32, arg(1) as i32)?;
            mem[r].fill(0);
            0
        }
        _ => ERRNO_NOSYS,
    };
    if let Some(o) = out.first_mut() {
        *o = Val::I32(errno as i32);
    }
    Ok(())
}

fn ending_of(e: &wasmi::Error) -> Ending {
    if let Some(Exit(code)) = e.downcast_ref::<Exit>() {
        return code.map_or(Ending::Halted, Ending::Exited);
    }
    if let Some(HostBug(kind)) = e.downcast_ref::<HostBug>() {
        if *kind == BugKind::AssumeViolated {
            return Ending::AssumeViolated;
        }
        return Ending::Bug(kind.clone());
    }
    let kind = match e.as_trap_code() {
        Some(TrapCode::UnreachableCodeReached) => BugKind::Unreachable,
        Some(TrapCode::MemoryOutOfBounds) => BugKind::OutOfBounds,
        Some(TrapCode::TableOutOfBounds) | Some(TrapCode::IndirectCallToNull) => BugKind::UndefinedElement,
        Some(TrapCode::IntegerDivisionByZero) => BugKind::DivisionByZero,
        Some(TrapCode::IntegerOverflow) => BugKind::IntegerOverflow,
        Some(TrapCode::BadConversionToInteger) => BugKind::InvalidConversion,
        Some(TrapCode::StackOverflow) => BugKind::StackOverflow,
        Some(TrapCode::BadSignature) => BugKind::IndirectCallSignatureMismatch,
        // No kind braid reports: matches no recorded outcome.
        _ => BugKind::Other(format!("wasmi error: {e}")),
    };
    Ending::Bug(kind)
}
