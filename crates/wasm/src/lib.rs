//! The WebAssembly frontend: decodes and validates a module (`wasmparser`;
//! text through `wat`) and lowers it to braid's IR.
//!
//! The lowered module has one IR function per wasm function (imports become
//! the harness functions of [`harness`]), helpers for bulk memory, `$init`
//! and, per exported function `f`, an entry `$f` whose typed parameters are
//! `f`'s (so they become symbolic inputs): it calls `$init`, then `f`.
//! `$init` makes the instance's state: linear memory is allocation `a0`
//! (one cell per byte, zeroed, data segments stored), the globals are the
//! cells of `a1`, the table's functions `a2` and their signature ids `a3`
//! (0 for an empty element); then it runs the start function.

pub mod builder;
pub mod harness;
mod lower;
pub mod wasi;
pub mod wasmi_replay;

use braid_ir::{BugKind, FuncId, Module, Operand, Rhs, Stmt};
use braid_term::{Sort, Value};
use builder::{bv, var, FnBuilder};
use lower::{Lowerer, ModuleInfo};
use std::fmt;
use wasmparser::{
    DataKind, ElementItems, ElementKind, ExternalKind, FunctionBody, Operator, Parser, Payload, TypeRef, ValType,
    Validator, WasmFeatures,
};

/// A malformed, invalid or unsupported module: where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct WasmError {
    pub offset: Option<usize>,
    pub message: String,
}

impl WasmError {
    pub fn at(offset: usize, message: String) -> WasmError {
        WasmError {
            offset: Some(offset),
            message,
        }
    }

    fn plain(message: String) -> WasmError {
        WasmError { offset: None, message }
    }
}

impl fmt::Display for WasmError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "byte offset {o:#x}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for WasmError {}

impl From<wasmparser::BinaryReaderError> for WasmError {
    fn from(e: wasmparser::BinaryReaderError) -> WasmError {
        WasmError::at(e.offset() as usize, e.message().to_string())
    }
}

/// A function type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sig {
    pub params: Vec<ValType>,
    pub results: Vec<ValType>,
}

/// Where the instance's state lives (see the module documentation).
pub mod layout {
    use braid_term::Value;

    pub const MEMORY: Value = Value::Addr { alloc: 0, offset: 0 };
    pub const GLOBALS_ALLOC: u32 = 1;
    pub const TABLE: Value = Value::Addr { alloc: 2, offset: 0 };
    pub const SIGS: Value = Value::Addr { alloc: 3, offset: 0 };
    /// Indices into `ModuleInfo::helpers`.
    pub const MEMORY_FILL: usize = 0;
    pub const MEMORY_COPY: usize = 1;

    pub fn global(i: u32) -> Value {
        Value::Addr {
            alloc: GLOBALS_ALLOC,
            offset: i as i128,
        }
    }
}

/// The sort of a wasm value type.
pub fn sort_of(t: ValType) -> Sort {
    match t {
        ValType::I32 => Sort::Bv(32),
        ValType::I64 => Sort::Bv(64),
        ValType::F32 => Sort::F32,
        ValType::F64 => Sort::F64,
        _ => Sort::Func,
    }
}

/// The largest linear memory braid allocates, in pages: its engines
/// allocate at most 2^24 cells (`braid_engine::semantics::MAX_ALLOC`).
pub const MAX_PAGES: u64 = (1 << 24) / 65536;

/// Whose harness semantics a program follows. They disagree on `abort()`:
/// in SV-COMP and Test-Comp only `reach_error()` is the property and
/// `abort()` ends the path; in KLEE and Owi `abort()` is a bug.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Convention {
    /// The one the program uses: SV-COMP if it calls or defines
    /// `reach_error` or calls a `__VERIFIER_*` function, else KLEE's.
    #[default]
    Auto,
    Svcomp,
    Klee,
    Owi,
}

impl Convention {
    /// The convention a program with these function imports (module,
    /// name) follows, `defines_reach_error` or not: this one, unless `Auto`.
    pub fn resolve<'a>(
        self,
        defines_reach_error: bool,
        mut imports: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> Convention {
        if self != Convention::Auto {
            return self;
        }
        let imports: Vec<(&str, &str)> = imports.by_ref().collect();
        if defines_reach_error
            || imports
                .iter()
                .any(|(_, n)| *n == "reach_error" || n.starts_with("__VERIFIER_"))
        {
            Convention::Svcomp
        } else if imports.iter().any(|(m, _)| *m == "symbolic") {
            Convention::Owi
        } else {
            Convention::Klee
        }
    }

    pub fn parse(s: &str) -> Option<Convention> {
        match s {
            "auto" => Some(Convention::Auto),
            "svcomp" | "testcomp" => Some(Convention::Svcomp),
            "klee" => Some(Convention::Klee),
            "owi" => Some(Convention::Owi),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The export to run (default: `_start`, else `main`, else C's
    /// `__main_argc_argv`, else the module's start function).
    pub entry: Option<String>,
    /// The harness convention (`--convention`).
    pub convention: Convention,
    /// Unknown imports return fresh symbolic values instead of being an error.
    pub allow_unknown_imports: bool,
    /// WASI's symbolic arguments and stdin.
    pub wasi: wasi::Config,
}

/// A lowered module.
pub struct Program {
    pub module: Module,
    /// `$f` for the chosen export `f` (default: `_start`, else `main`;
    /// `None` when the module has neither).
    pub entry: Option<FuncId>,
    /// Why runs of it are incomplete (unknown imports made symbolic).
    pub incomplete: Option<String>,
    /// The instance as a WebAssembly embedder sees it (the spec tests):
    /// `$init`, which makes it, then each exported function by name (the
    /// lowered function itself, without `$init`) and the cell of each
    /// exported global.
    pub init: FuncId,
    pub functions: Vec<(String, FuncId, Sig)>,
    pub globals: Vec<(String, Value)>,
    /// Where a function with several results leaves them (cell by cell).
    pub return_area: Value,
}

/// The wasm features braid accepts: the MVP with mutable globals,
/// sign extension, saturating float-to-int, bulk memory and multi-value.
/// Others (SIMD, threads, GC, exceptions, tail calls, …) fail validation
/// with a message naming the feature.
fn features() -> WasmFeatures {
    WasmFeatures::WASM1
        | WasmFeatures::SIGN_EXTENSION
        | WasmFeatures::SATURATING_FLOAT_TO_INT
        | WasmFeatures::BULK_MEMORY
        | WasmFeatures::MULTI_VALUE
}

/// Parses the text format into the binary one.
pub fn from_text(text: &str) -> Result<Vec<u8>, WasmError> {
    wat::parse_str(text).map_err(|e| WasmError::plain(e.to_string()))
}

struct Global {
    ty: ValType,
    init: Value,
}

/// Decodes, validates and lowers a binary module.
pub fn load(bytes: &[u8], opts: &Options) -> Result<Program, WasmError> {
    Validator::new_with_features(features()).validate_all(bytes)?;
    let mut types: Vec<Sig> = Vec::new();
    let mut imports: Vec<(String, String, u32, usize)> = Vec::new();
    let mut defined: Vec<u32> = Vec::new();
    let mut table_size = 0u32;
    let mut pages = 0u64;
    let mut max_pages = 0u64;
    let mut globals: Vec<Global> = Vec::new();
    let mut exports: Vec<(String, u32)> = Vec::new();
    let mut global_exports: Vec<(String, u32)> = Vec::new();
    let mut start = None;
    let mut function_names: Vec<(u32, String)> = Vec::new();
    let mut debug: std::collections::HashMap<String, Vec<u8>> = Default::default();
    let mut code_start = 0;
    let mut elements: Vec<(u32, Vec<u32>, usize)> = Vec::new();
    let mut data: Vec<(u32, Vec<u8>, usize)> = Vec::new();
    let mut bodies: Vec<FunctionBody> = Vec::new();
    for payload in Parser::new(0).parse_all(bytes) {
        match payload? {
            Payload::TypeSection(r) => {
                for group in r.into_iter_with_offsets() {
                    let (offset, group) = group?;
                    let offset = offset as usize;
                    for sub in group.into_types() {
                        match &sub.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(f) => types.push(Sig {
                                params: f.params().to_vec(),
                                results: f.results().to_vec(),
                            }),
                            _ => {
                                return Err(WasmError::at(
                                    offset,
                                    "a non-function type (GC proposal) is not supported".into(),
                                ))
                            }
                        }
                    }
                }
            }
            Payload::ImportSection(r) => {
                for imp in r.into_imports_with_offsets() {
                    let (offset, imp) = imp?;
                    let offset = offset as usize;
                    match imp.ty {
                        TypeRef::Func(t) => imports.push((imp.module.into(), imp.name.into(), t, offset)),
                        _ => {
                            return Err(WasmError::at(
                                offset,
                                format!(
                                "import `{}.{}`: only functions can be imported (memories, tables and globals cannot)",
                                imp.module, imp.name
                            ),
                            ))
                        }
                    }
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    defined.push(t?);
                }
            }
            Payload::TableSection(r) => {
                for t in r.into_iter_with_offsets() {
                    let (offset, t) = t?;
                    let offset = offset as usize;
                    if table_size > 0 {
                        return Err(WasmError::at(offset, "more than one table is not supported".into()));
                    }
                    table_size = u32::try_from(t.ty.initial)
                        .ok()
                        .filter(|n| *n as u64 <= MAX_PAGES * 65536)
                        .ok_or_else(|| WasmError::at(offset, "the table is too large".into()))?;
                }
            }
            Payload::MemorySection(r) => {
                for m in r.into_iter_with_offsets() {
                    let (offset, m) = m?;
                    let offset = offset as usize;
                    if m.initial > MAX_PAGES {
                        return Err(WasmError::at(
                            offset,
                            format!("a memory of {} pages: braid allocates at most {MAX_PAGES}", m.initial),
                        ));
                    }
                    pages = m.initial;
                    max_pages = m.maximum.unwrap_or(MAX_PAGES).min(MAX_PAGES);
                }
            }
            Payload::GlobalSection(r) => {
                for g in r.into_iter_with_offsets() {
                    let (offset, g) = g?;
                    let offset = offset as usize;
                    let init = const_value(&g.init_expr, offset)?;
                    globals.push(Global {
                        ty: g.ty.content_type,
                        init,
                    });
                }
            }
            Payload::ExportSection(r) => {
                for e in r {
                    let e = e?;
                    match e.kind {
                        ExternalKind::Func => exports.push((e.name.to_string(), e.index)),
                        ExternalKind::Global => global_exports.push((e.name.to_string(), e.index)),
                        _ => {}
                    }
                }
            }
            Payload::StartSection { func, .. } => start = Some(func),
            Payload::CustomSection(c) if c.name().starts_with(".debug_") => {
                debug.insert(c.name().to_string(), c.data().to_vec());
            }
            Payload::CustomSection(c) => function_names.extend(names_in(&c)),
            Payload::ElementSection(r) => {
                for e in r.into_iter_with_offsets() {
                    let (offset, e) = e?;
                    let offset = offset as usize;
                    let ElementKind::Active { offset_expr, .. } = e.kind else {
                        continue;
                    };
                    let at = match const_value(&offset_expr, offset)? {
                        Value::Bv { bits, .. } => bits as u32,
                        _ => return Err(WasmError::at(offset, "an element offset that is not an i32".into())),
                    };
                    let funcs = match e.items {
                        ElementItems::Functions(fs) => fs.into_iter().collect::<Result<Vec<u32>, _>>()?,
                        ElementItems::Expressions(..) => {
                            return Err(WasmError::at(
                                offset,
                                "element expressions (reference types) are not supported".into(),
                            ))
                        }
                    };
                    elements.push((at, funcs, offset));
                }
            }
            Payload::DataSection(r) => {
                for d in r.into_iter_with_offsets() {
                    let (offset, d) = d?;
                    let offset = offset as usize;
                    if let DataKind::Active { offset_expr, .. } = d.kind {
                        let at = match const_value(&offset_expr, offset)? {
                            Value::Bv { bits, .. } => bits as u32,
                            _ => return Err(WasmError::at(offset, "a data offset that is not an i32".into())),
                        };
                        data.push((at, d.data.to_vec(), offset));
                    }
                }
            }
            Payload::CodeSectionStart { unchecked_range, .. } => code_start = unchecked_range.start as usize,
            Payload::CodeSectionEntry(body) => bodies.push(body),
            _ => {}
        }
    }

    // IR functions: imports, defined functions, bulk-memory helpers, $start.
    let n_imports = imports.len();
    let fill_id = FuncId((n_imports + defined.len()) as u32);
    let copy_id = FuncId(fill_id.0 + 1);
    let init_id = FuncId(copy_id.0 + 1);
    let mut funcs: Vec<(Sig, FuncId)> = Vec::new();
    for (i, (_, _, t, _)) in imports.iter().enumerate() {
        funcs.push((types[*t as usize].clone(), FuncId(i as u32)));
    }
    for (i, t) in defined.iter().enumerate() {
        funcs.push((types[*t as usize].clone(), FuncId((n_imports + i) as u32)));
    }
    let mut sig_ids = Vec::new();
    for (i, t) in types.iter().enumerate() {
        let first = types.iter().position(|u| u == t).unwrap_or(i);
        sig_ids.push(first as u32 + 1);
    }
    // The globals cells: globals, the return area of functions with several
    // results, then the memory size in pages.
    let return_area = types
        .iter()
        .map(|t| t.results.len())
        .filter(|n| *n > 1)
        .max()
        .unwrap_or(0);
    let pages_cell = layout::global((globals.len() + return_area) as u32);
    // SV-COMP programs often define `reach_error` (empty, or calling
    // `abort`): a call to it is the property violation, whatever its body.
    let named = exports.iter().map(|(n, i)| (*i, n.clone())).chain(function_names);
    let reach_error = defined_reach_error(named, imports.len() as u32);
    let convention = opts.convention.resolve(
        reach_error.is_some(),
        imports.iter().map(|(m, n, _, _)| (m.as_str(), n.as_str())),
    );
    let info = ModuleInfo {
        types: types.clone(),
        funcs: funcs.clone(),
        globals: globals.iter().map(|g| g.ty).collect(),
        table_size,
        max_pages: max_pages as u32,
        pages_cell,
        sig_ids,
        helpers: vec![fill_id, copy_id],
        imports: imports.iter().map(|(m, n, _, _)| (m.clone(), n.clone())).collect(),
        convention,
        reach_error: reach_error.filter(|_| convention == Convention::Svcomp),
        data: data.iter().map(|(at, bytes, _)| (*at, bytes.clone())).collect(),
    };

    let mut names: Vec<String> = Vec::new();
    let unique = |names: &Vec<String>, base: String| {
        let mut name = base.clone();
        let mut k = 1;
        while names.contains(&name) {
            k += 1;
            name = format!("{base}#{k}");
        }
        name
    };
    let mut module = Module::default();
    let mut unknown = Vec::new();
    for (i, (m, n, t, _)) in imports.iter().enumerate() {
        let sig = &types[*t as usize];
        let name = unique(&names, n.clone());
        let f = match harness::stub(FuncId(i as u32), m, n, sig, &opts.wasi, convention) {
            Some(f) => f,
            None => {
                unknown.push(format!("{m}.{n}"));
                harness::unknown(FuncId(i as u32), m, n, sig)
            }
        };
        names.push(name.clone());
        module.functions.push(braid_ir::Function { name, ..f });
    }
    if !unknown.is_empty() && !opts.allow_unknown_imports {
        return Err(WasmError::plain(format!(
            "unknown imports: {} (braid implements the symbolic, __VERIFIER_*, klee_* and mem* functions; \
             --allow-unknown-imports makes each call return a fresh symbolic value)",
            unknown.join(", ")
        )));
    }
    for (i, body) in bodies.iter().enumerate() {
        let index = (n_imports + i) as u32;
        let base = exports
            .iter()
            .find(|(_, f)| *f == index)
            .map_or_else(|| format!("func{index}"), |(n, _)| n.clone());
        let name = unique(&names, base);
        names.push(name.clone());
        let (sig, id) = funcs[index as usize].clone();
        let f = Lowerer::new(&info, id, &name, &sig).lower(body)?;
        module.functions.push(f);
    }
    module
        .functions
        .push(harness::bulk_helper(fill_id, "$memory.fill", harness::Bulk::Set));
    module
        .functions
        .push(harness::bulk_helper(copy_id, "$memory.copy", harness::Bulk::Move));

    // `$init` makes the instance; `$<export>` runs it and calls the export.
    let mut b = FnBuilder::new(init_id, "$init");
    let cell = b.var("$cell");
    let size = |n: u64| Operand::Const(Value::Int(n as i128));
    b.assign(cell, Rhs::Alloc(size(pages * 65536), Some(bv(8, 0))));
    b.assign(cell, Rhs::Alloc(size((globals.len() + return_area + 1) as u64), None));
    b.store(Operand::Const(pages_cell), bv(32, pages), None);
    b.assign(cell, Rhs::Alloc(size(table_size as u64), None));
    b.assign(cell, Rhs::Alloc(size(table_size as u64), Some(bv(32, 0))));
    for (i, g) in globals.iter().enumerate() {
        b.store(Operand::Const(layout::global(i as u32)), Operand::Const(g.init), None);
    }
    // A segment that does not fit traps instantiation before any is
    // written.
    let misfit = elements
        .iter()
        .filter(|(at, fs, _)| *at as u64 + fs.len() as u64 > table_size as u64)
        .map(|(_, _, offset)| *offset)
        .chain(
            data.iter()
                .filter(|(at, bytes, _)| *at as u64 + bytes.len() as u64 > pages * 65536)
                .map(|(_, _, offset)| *offset),
        )
        .next();
    if let Some(offset) = misfit {
        b.offset = offset as u32;
        b.emit(Stmt::Error(BugKind::OutOfBounds));
    }
    for (at, funcs_in, offset) in &elements {
        b.offset = *offset as u32;
        for (j, f) in funcs_in.iter().enumerate() {
            let k = *at as i128 + j as i128;
            let (sig, id) = &funcs[*f as usize];
            let sig_id = types.iter().position(|t| t == sig).map_or(0, |p| p as u64 + 1);
            b.store(
                Operand::Const(Value::Addr { alloc: 2, offset: k }),
                Operand::Const(Value::Func(id.0)),
                None,
            );
            b.store(
                Operand::Const(Value::Addr { alloc: 3, offset: k }),
                bv(32, sig_id),
                None,
            );
        }
    }
    for (at, bytes_in, offset) in &data {
        b.offset = *offset as u32;
        for (j, byte) in bytes_in.iter().enumerate() {
            b.emit(Stmt::Store {
                addr: Operand::Const(Value::Addr {
                    alloc: 0,
                    offset: *at as i128 + j as i128,
                }),
                value: bv(8, *byte as u64),
                width: Some(8),
            });
        }
    }
    b.offset = 0;
    if imports.iter().any(|(m, ..)| m == wasi::MODULE) {
        wasi::init(&mut b, &opts.wasi);
    }
    if let Some(s) = start {
        let (_, id) = &funcs[s as usize];
        b.emit(Stmt::Call {
            dst: None,
            callee: Operand::Const(Value::Func(id.0)),
            args: vec![],
        });
    }
    b.emit(Stmt::Ret(None));
    module.functions.push(b.finish());
    let mut wrappers: Vec<(String, FuncId)> = Vec::new();
    for (export, index) in &exports {
        let (sig, target) = funcs[*index as usize].clone();
        if sig.results.len() > 1 {
            continue;
        }
        let id = FuncId(module.functions.len() as u32);
        let name = unique(&names, format!("${export}"));
        names.push(name.clone());
        let mut b = FnBuilder::new(id, &name);
        // C's `main(argc, argv)` gets no arguments (argc 0, argv null), as
        // a harness's main expects; other exports' parameters are symbolic.
        let c_main = (export == "main" || export == "__main_argc_argv") && sig.params == [ValType::I32, ValType::I32];
        let args: Vec<Operand> = if c_main {
            vec![bv(32, 0), bv(32, 0)]
        } else {
            sig.params
                .iter()
                .enumerate()
                .map(|(i, t)| var(b.param(&format!("arg{i}"), sort_of(*t))))
                .collect()
        };
        b.emit(Stmt::Call {
            dst: None,
            callee: Operand::Const(Value::Func(init_id.0)),
            args: vec![],
        });
        let result = (!sig.results.is_empty()).then(|| b.var("result"));
        b.emit(Stmt::Call {
            dst: result,
            callee: Operand::Const(Value::Func(target.0)),
            args,
        });
        b.emit(Stmt::Ret(result.map(var)));
        module.functions.push(b.finish());
        wrappers.push((export.clone(), id));
    }
    let entry = match &opts.entry {
        Some(e) => match wrappers.iter().find(|(w, _)| w == e) {
            Some((_, id)) => Some(*id),
            None if exports.iter().any(|(x, _)| x == e) => {
                return Err(WasmError::plain(format!(
                    "`{e}` returns several results: not supported as the entry"
                )))
            }
            None => {
                let list: Vec<&str> = exports.iter().map(|(x, _)| x.as_str()).collect();
                return Err(WasmError::plain(format!(
                    "the module exports no function `{e}` (exported functions: {})",
                    if list.is_empty() {
                        "none".to_string()
                    } else {
                        list.join(", ")
                    }
                )));
            }
        },
        // With none of these, a module with a start function (Owi style)
        // runs it: `$init` calls it.
        None => ["_start", "main", "__main_argc_argv"]
            .iter()
            .find_map(|n| wrappers.iter().find(|(w, _)| w == n))
            .map(|(_, id)| *id)
            .or(start.map(|_| init_id)),
    };
    source_lines(&mut module, &debug, code_start);
    if let Err((span, message)) = braid_ir::check::check(&module) {
        return Err(WasmError::at(
            span.offset as usize,
            format!("internal error: the lowered module does not check: {message}"),
        ));
    }
    Ok(Program {
        module,
        entry,
        init: init_id,
        functions: exports
            .iter()
            .map(|(e, i)| {
                let (sig, id) = funcs[*i as usize].clone();
                (e.clone(), id, sig)
            })
            .collect(),
        globals: global_exports
            .into_iter()
            .map(|(e, i)| (e, layout::global(i)))
            .collect(),
        return_area: layout::global(globals.len() as u32),
        incomplete: (!unknown.is_empty()).then(|| format!("unknown imports made symbolic: {}", unknown.join(", "))),
    })
}

/// The function names of a `name` custom section (none from any other, or
/// from a malformed one: names only serve to find `reach_error`).
pub(crate) fn names_in(c: &wasmparser::CustomSectionReader<'_>) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    if let wasmparser::KnownCustom::Name(r) = c.as_known() {
        for name in r.into_iter().flatten() {
            if let wasmparser::Name::Function(map) = name {
                out.extend(map.into_iter().flatten().map(|n| (n.index, n.name.to_string())));
            }
        }
    }
    out
}

/// The index of a function the module defines (past its `imported` ones)
/// and names (export or name section) `reach_error`.
pub(crate) fn defined_reach_error(named: impl IntoIterator<Item = (u32, String)>, imported: u32) -> Option<u32> {
    named
        .into_iter()
        .find(|(i, n)| n == "reach_error" && *i >= imported)
        .map(|(i, _)| i)
}

/// Statements' C source lines from the module's DWARF (clang's `-g`): a
/// line-table address is an offset from the start of the code section's
/// contents. Without debug information (or with some braid cannot read)
/// statements keep their byte offsets only.
fn source_lines(module: &mut Module, debug: &std::collections::HashMap<String, Vec<u8>>, code_start: usize) {
    use addr2line::gimli;
    if !debug.contains_key(".debug_line") {
        return;
    }
    let load = |id: gimli::SectionId| -> Result<gimli::EndianSlice<'_, gimli::LittleEndian>, gimli::Error> {
        let data = debug.get(id.name()).map_or(&[][..], |d| d.as_slice());
        Ok(gimli::EndianSlice::new(data, gimli::LittleEndian))
    };
    let Ok(dwarf) = gimli::Dwarf::load(load) else { return };
    let Ok(ctx) = addr2line::Context::from_dwarf(dwarf) else {
        return;
    };
    let mut files: Vec<String> = Vec::new();
    for f in &mut module.functions {
        for span in &mut f.spans {
            let Some(addr) = (span.offset as usize)
                .checked_sub(code_start)
                .filter(|_| span.offset > 0)
            else {
                continue;
            };
            let Ok(Some(loc)) = ctx.find_location(addr as u64) else {
                continue;
            };
            let (Some(file), Some(line)) = (loc.file, loc.line) else {
                continue;
            };
            // The file's name as written (directories dropped: tests and
            // messages stay the same wherever the program was built).
            let name = std::path::Path::new(file)
                .file_name()
                .map_or(file.into(), |n| n.to_string_lossy());
            let k = match files.iter().position(|f| *f == name) {
                Some(k) => k,
                None => {
                    files.push(name.into_owned());
                    files.len() - 1
                }
            };
            span.file = k as u32 + 1;
            span.line = line;
            span.col = loc.column.unwrap_or(0);
        }
    }
    module.files = files;
}

/// The value of a constant expression (`i32.const` and the like).
fn const_value(e: &wasmparser::ConstExpr, offset: usize) -> Result<Value, WasmError> {
    let mut r = e.get_operators_reader();
    let v = match r.read()? {
        Operator::I32Const { value } => Value::bv(32, value as u32 as u64),
        Operator::I64Const { value } => Value::bv(64, value as u64),
        Operator::F32Const { value } => Value::f32(f32::from_bits(value.bits())),
        Operator::F64Const { value } => Value::f64(f64::from_bits(value.bits())),
        _ => {
            return Err(WasmError::at(
                offset,
                "a constant expression other than a constant (e.g. an imported global) is not supported".into(),
            ))
        }
    };
    Ok(v)
}
