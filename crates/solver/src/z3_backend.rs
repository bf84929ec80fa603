//! The Z3 backend, through the `z3` crate.
//!
//! Bool, Int and bit-vector terms map to Z3's own sorts. Floating point uses
//! Z3's FPA theory with round-to-nearest-even; the few FPA operators the crate
//! does not expose are taken from a parsed SMT-LIB template. Operations Z3 is
//! not asked to handle give `Unknown` with the reason.

use crate::external::{self, Helper};
use crate::{SatResult, Solver};
use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use rustc_hash::FxHashMap;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Dynamic, Float, Int, BV};
use z3::{Config, Context, FuncDecl, SatResult as Z3Result};

thread_local! {
    /// One Z3 context per thread, alive while the thread runs, so solvers
    /// and translated terms can be kept across queries (a fresh Z3 solver
    /// per query costs ~100x a push/pop on a kept one).
    static CONTEXT: Slot = const { Slot::new(&FREE_CONTEXTS, main_context) };
}

fn main_context() -> Context {
    let mut cfg = Config::new();
    cfg.set_model_generation(true);
    Context::new(&cfg)
}

/// Contexts of threads that ended, for the next thread to take (a dse
/// racing merging runs on a thread of its own per run; a context touches
/// 17 MB or more).
static FREE_CONTEXTS: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// A thread's context, made when first needed, back to its pool when the
/// thread ends, or deleted by [`renew_contexts`].
struct Slot {
    kept: std::cell::RefCell<Option<Kept>>,
    pool: &'static Mutex<Vec<Kept>>,
    make: fn() -> Context,
}

impl Slot {
    const fn new(pool: &'static Mutex<Vec<Kept>>, make: fn() -> Context) -> Slot {
        Slot {
            kept: std::cell::RefCell::new(None),
            pool,
            make,
        }
    }

    /// The thread's context, and a lease on it for as long as Z3 objects
    /// made in it live.
    fn lease(&self) -> (&'static Context, Lease) {
        let mut kept = self.kept.borrow_mut();
        let kept = kept.get_or_insert_with(|| Kept::take(self.pool, self.make));
        kept.users.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let lease = Lease {
            users: kept.users.clone(),
            alive: kept.alive.clone(),
        };
        (kept.ctx, lease)
    }

    /// Deletes the thread's context if nothing made in it is alive: Z3
    /// keeps what its questions allocated (its terms' tables, its small
    /// objects' free lists) until the context goes.
    fn renew(&self) -> bool {
        let mut kept = self.kept.borrow_mut();
        match kept.take_if(|k| k.users.load(std::sync::atomic::Ordering::Relaxed) == 0) {
            Some(k) => {
                k.delete();
                true
            }
            None => false,
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(kept) = self.kept.get_mut().take() {
            self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(kept);
        }
    }
}

/// Z3 objects of a context are alive (a [`Z3Solver`]'s, or its cores').
struct Lease {
    users: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    alive: std::sync::Arc<Mutex<bool>>,
}

impl Lease {
    /// Interrupts the context's check under way, if the context is still
    /// there: a budget's stop can come after a renewal deleted it.
    fn interrupter(&self, ctx: &'static Context) -> impl Fn() + Send + Sync + 'static {
        let (handle, alive) = (ctx.handle(), self.alive.clone());
        move || {
            let alive = alive.lock().unwrap_or_else(|e| e.into_inner());
            if *alive {
                handle.interrupt();
            }
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.users.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A context, its leases, whether it is still there (for the interrupts
/// budgets hold), and the bytes Z3 allocated in making it.
struct Kept {
    ctx: &'static Context,
    users: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    alive: std::sync::Arc<Mutex<bool>>,
    made: u64,
}

// SAFETY: a context is used by one thread at a time: the thread whose
// `Slot` holds it, or none while it waits in its pool (every Z3 object a
// thread made in it is dropped before the thread ends: solvers and terms
// belong to engines that live on the thread).
unsafe impl Send for Kept {}

impl Kept {
    fn take(pool: &'static Mutex<Vec<Kept>>, make: fn() -> Context) -> Kept {
        let free = pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match free {
            Some(kept) => {
                // An interrupt that landed after its last check (its
                // thread's exploration cancelled) would cancel the next:
                // an empty check takes it.
                let _ = z3::Solver::new(kept.ctx).check();
                kept
            }
            None => {
                let (ctx, made) = made_context(make);
                Kept {
                    ctx,
                    users: Default::default(),
                    alive: std::sync::Arc::new(Mutex::new(true)),
                    made,
                }
            }
        }
    }

    /// Deletes the context (no lease on it is alive).
    fn delete(self) {
        CONTEXTS_BYTES.fetch_sub(self.made, std::sync::atomic::Ordering::Relaxed);
        let mut alive = self.alive.lock().unwrap_or_else(|e| e.into_inner());
        *alive = false;
        // SAFETY: the context was leaked from a box by `made_context`, no
        // Z3 object made in it is alive (its leases are gone), and the
        // interrupts that outlive them look at `alive` under its lock.
        unsafe { drop(Box::from_raw(self.ctx as *const Context as *mut Context)) };
    }
}

/// Deletes this thread's Z3 context if no solver of its is alive; the
/// next solver makes a new one (a context touches 17 MB or more in the
/// making, and takes milliseconds). A merging engine given up leaves the
/// memory of its merged questions in the context otherwise (cJSON's parser
/// over 3 bytes, scratch harness: Z3's allocations stayed at 63 MB while
/// dse went on alone, and the run held 160-190 MB where dse alone holds 40).
pub fn renew_contexts() {
    let _ = CONTEXT.try_with(Slot::renew);
}

/// Z3's allocations made by creating its contexts (see [`z3_working`]).
static CONTEXTS_BYTES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A context kept until deleted ([`Kept::delete`]), and the bytes Z3
/// allocated in making it (counted apart).
fn made_context(make: fn() -> Context) -> (&'static Context, u64) {
    let before = z3_allocated();
    let ctx = Box::leak(Box::new(make()));
    let made = z3_allocated().saturating_sub(before);
    CONTEXTS_BYTES.fetch_add(made, std::sync::atomic::Ordering::Relaxed);
    (ctx, made)
}

/// Z3's allocations less those its contexts made when created: the memory
/// its questions hold. A context made its 38 MB (by Z3's estimate) in the
/// first question of bench/merging's sleep-4-3 under dsm, which the race's
/// memory rule took for merging's (`footprint` in the engine).
pub fn z3_working() -> u64 {
    z3_allocated().saturating_sub(CONTEXTS_BYTES.load(std::sync::atomic::Ordering::Relaxed))
}

/// The Z3 backend. It keeps the Z3 form of every term it has translated, so
/// one `Z3Solver` serves the terms of one `TermStore`.
pub struct Z3Solver {
    ctx: &'static Context,
    solver: z3::Solver<'static>,
    translator: Translator<'static>,
    timeout_ms: Option<u32>,
    deadline: Option<Instant>,
    budget: Option<braid_budget::Budget>,
    /// Compute the unsat core of an unsat check (a second check, with the
    /// constraints as assumptions).
    cores: bool,
    /// The unsat core of the last check, when it answered unsat.
    last_core: Option<Vec<TermId>>,
    /// The solver that computes cores, in the query's context (see
    /// [`Z3Solver::core`]); replaced after a check it gave up on (Z3
    /// 4.8.12's state after an interrupted check with assumptions is not
    /// to be trusted).
    core_solver: Option<z3::Solver<'static>>,
    /// Keep the constraints the last check shares with the next asserted.
    incremental: bool,
    /// The constraints asserted in the kept solver, one scope each.
    stack: Vec<TermId>,
    /// How long the kept solver has on a question over bit-vectors alone
    /// ([`KEPT_FIRST`]).
    kept_first: Duration,
    /// The solver raced against Z3 on questions over floats.
    helper: Option<Helper>,
    /// Whether the helper answered the last check.
    helper_answered: bool,
    /// The lease on the context, dropped after the Z3 objects above.
    lease: Lease,
}

impl Z3Solver {
    /// A backend whose every check gives up after `timeout_ms` (if set).
    pub fn new(timeout_ms: Option<u32>) -> Z3Solver {
        let (ctx, lease) = CONTEXT.with(Slot::lease);
        Z3Solver {
            ctx,
            solver: z3::Solver::new(ctx),
            translator: Translator::new(ctx),
            timeout_ms,
            deadline: None,
            budget: None,
            cores: true,
            last_core: None,
            core_solver: None,
            incremental: true,
            stack: Vec::new(),
            kept_first: KEPT_FIRST,
            helper: None,
            helper_answered: false,
            lease,
        }
    }

    /// Race `helper` against Z3 on the questions over floats
    /// (crate::external); `None`: Z3 alone.
    pub fn set_helper(&mut self, helper: Option<Helper>) {
        self.helper = helper;
    }
}

/// FPA pieces the crate lacks, read off a parsed SMT-LIB template.
struct FloatKit<'ctx> {
    rne: Float<'ctx>,
    fp_eq: [FuncDecl<'ctx>; 2],
    to_ieee: [FuncDecl<'ctx>; 2],
    /// Rounding modes other than RNE: toward +inf, -inf, zero.
    rtp: Dynamic<'ctx>,
    rtn: Dynamic<'ctx>,
    rtz: Dynamic<'ctx>,
    /// Further operations by name (see [`FloatKit::TEMPLATE`]), and the NaNs.
    ops: FxHashMap<String, FuncDecl<'ctx>>,
    nan: [Dynamic<'ctx>; 2],
}

/// `(eb, sb)` of the float sorts of width 32 and 64.
const FLOAT_SORTS: [(u32, u32, u32); 2] = [(32, 8, 24), (64, 11, 53)];

impl<'ctx> FloatKit<'ctx> {
    /// SMT-LIB whose assertions hold one application of each operation
    /// braid needs (Z3's C API has no constructor for some of them): the
    /// declarations are read back off the parsed assertions.
    fn template() -> (String, Vec<String>) {
        let mut smt = String::from(
            "(declare-const a32 (_ FloatingPoint 8 24)) (declare-const a64 (_ FloatingPoint 11 53))
             (declare-const c32 (_ FloatingPoint 8 24)) (declare-const c64 (_ FloatingPoint 11 53))
             (declare-const b32 (_ BitVec 32)) (declare-const b64 (_ BitVec 64))
             (declare-const rm RoundingMode)
             (assert (= rm RNE))
             (assert (fp.eq a32 a32)) (assert (fp.eq a64 a64))
             (assert (= b32 (fp.to_ieee_bv a32))) (assert (= b64 (fp.to_ieee_bv a64)))
             (assert (= c32 (fp.roundToIntegral RTP a32)))
             (assert (= c32 (fp.roundToIntegral RTN a32)))
             (assert (= c32 (fp.roundToIntegral RTZ a32)))\n",
        );
        let mut names = Vec::new();
        let mut op = |smt: &mut String, name: String, assertion: String| {
            smt.push_str(&format!("(assert {assertion})\n"));
            names.push(name);
        };
        for (w, eb, sb) in FLOAT_SORTS {
            let (a, c) = (format!("a{w}"), format!("c{w}"));
            op(&mut smt, format!("abs{w}"), format!("(= {c} (fp.abs {a}))"));
            op(&mut smt, format!("sqrt{w}"), format!("(= {c} (fp.sqrt RNE {a}))"));
            op(
                &mut smt,
                format!("rti{w}"),
                format!("(= {c} (fp.roundToIntegral RNE {a}))"),
            );
            op(&mut smt, format!("isnan{w}"), format!("(fp.isNaN {a})"));
            op(&mut smt, format!("isneg{w}"), format!("(fp.isNegative {a})"));
            op(&mut smt, format!("nan{w}"), format!("(= {c} (_ NaN {eb} {sb}))"));
            op(
                &mut smt,
                format!("frombits{w}"),
                format!("(= {c} ((_ to_fp {eb} {sb}) b{w}))"),
            );
            for (v, _, _) in FLOAT_SORTS {
                op(
                    &mut smt,
                    format!("s{v}to{w}"),
                    format!("(= {c} ((_ to_fp {eb} {sb}) RNE b{v}))"),
                );
                op(
                    &mut smt,
                    format!("u{v}to{w}"),
                    format!("(= {c} ((_ to_fp_unsigned {eb} {sb}) RNE b{v}))"),
                );
                op(
                    &mut smt,
                    format!("f{v}to{w}"),
                    format!("(= {c} ((_ to_fp {eb} {sb}) RNE a{v}))"),
                );
                op(
                    &mut smt,
                    format!("tos{w}from{v}"),
                    format!("(= b{w} ((_ fp.to_sbv {w}) RTZ a{v}))"),
                );
                op(
                    &mut smt,
                    format!("tou{w}from{v}"),
                    format!("(= b{w} ((_ fp.to_ubv {w}) RTZ a{v}))"),
                );
            }
        }
        (smt, names)
    }

    fn new(ctx: &'ctx Context) -> Option<FloatKit<'ctx>> {
        let s = z3::Solver::new(ctx);
        let (smt, names) = Self::template();
        s.from_string(smt);
        // SAFETY: each assertion is a live AST of `ctx`; wrapping takes a
        // reference of its own, so it outlives the scratch solver.
        let a: Vec<Bool<'ctx>> = s
            .get_assertions()
            .iter()
            .map(|b| unsafe { Bool::wrap(ctx, b.get_z3_ast()) })
            .collect();
        let child = |i: usize, c: usize| a.get(i)?.nth_child(c);
        let rne = child(0, 1)?;
        // SAFETY: `rne` is a live AST of this context; `Float` only wraps it.
        let rne = unsafe { Float::wrap(ctx, rne.get_z3_ast()) };
        let mode = |i: usize| child(i, 1)?.nth_child(0);
        let mut ops = FxHashMap::default();
        let mut nan: Vec<Dynamic<'ctx>> = Vec::new();
        for (k, name) in names.iter().enumerate() {
            let i = 8 + k;
            if name.starts_with("nan") {
                nan.push(child(i, 1)?);
            } else if name.starts_with("isnan") || name.starts_with("isneg") {
                ops.insert(name.clone(), a.get(i)?.decl());
            } else {
                ops.insert(name.clone(), child(i, 1)?.decl());
            }
        }
        Some(FloatKit {
            rne,
            fp_eq: [a.get(1)?.decl(), a.get(2)?.decl()],
            to_ieee: [child(3, 1)?.decl(), child(4, 1)?.decl()],
            rtp: mode(5)?,
            rtn: mode(6)?,
            rtz: mode(7)?,
            ops,
            nan: [nan.first()?.clone(), nan.get(1)?.clone()],
        })
    }

    fn op(&self, name: &str) -> Result<&FuncDecl<'ctx>, String> {
        self.ops
            .get(name)
            .ok_or_else(|| format!("no `{name}` in the floating-point template"))
    }
}

fn unsupported<T>(what: impl Into<String>) -> Result<T, String> {
    Err(format!("unsupported by the Z3 backend: {}", what.into()))
}

/// How long the kept solver has on a question with integer division,
/// remainder or products of unknowns before a fresh solver with the
/// non-linear tactic takes the rest of the time.
const NONLINEAR_FIRST: Duration = Duration::from_millis(500);

/// How long the kept solver has on a question over bit-vectors alone before
/// a fresh solver takes the rest of the time. A kept solver is incremental,
/// and Z3's incremental core skips the preprocessing its bit-vector tactic
/// does before bit-blasting: Kadane's sums (6 inputs of 32 bits, unsat)
/// took the kept solver 5 s and a fresh one 50 ms. Over integers it is the
/// other way round (a merged question of `bench/merging/sleep-6-3`: 0.3 s
/// kept, 4 s fresh), and for a product of two unknowns too (factoring a
/// 64-bit constant, `bench/sv/longlong_mul.c`: 7 s kept, over 27 s fresh).
const KEPT_FIRST: Duration = Duration::from_millis(50);

/// How far Z3's allocations may grow in a check: by what the run's memory
/// limit leaves, less a tenth of the limit, so that a question cut short
/// leaves the run room to go on (a concolic run over an expression
/// evaluator stopped for memory inside one question of 1.3 s).
fn z3_cap(budget: &braid_budget::Budget) -> Option<u64> {
    let headroom = budget.headroom()?;
    let margin = (budget.limits().memory_mb? << 20) / 10;
    Some(z3_allocated().saturating_add(headroom.saturating_sub(margin)))
}

/// Z3's estimate of its allocations in this process, all contexts, in bytes.
fn z3_allocated() -> u64 {
    // SAFETY: reads a global counter; takes no context.
    unsafe { z3_sys::Z3_get_estimated_alloc_size() }
}

/// A question reading an array of more entries than this goes to a fresh
/// solver (see `check_once`). A read of a few is a short `ite` chain that
/// the kept solver decides at once, where a fresh solver costs its setup:
/// a hash table's slot read as a word among four (klib's khash) took 9 ms
/// a question in a fresh solver.
const FRESH_READ_PAIRS: usize = 16;

/// Z3 terms a translator keeps at most.
const TRANSLATIONS_KEPT: usize = 1 << 20;

struct Translator<'ctx> {
    ctx: &'ctx Context,
    kit: Option<FloatKit<'ctx>>,
    /// Terms already translated (terms are immutable and hash-consed).
    done: FxHashMap<TermId, Dynamic<'ctx>>,
    /// The translated terms that read an array of more than
    /// [`FRESH_READ_PAIRS`] entries (`Op::Read`).
    reads: rustc_hash::FxHashSet<TermId>,
    /// The translated terms with integer division, remainder or a product
    /// of two non-constants.
    nonlinear: rustc_hash::FxHashSet<TermId>,
    /// The translated terms the kept solver keeps to itself (see
    /// [`KEPT_FIRST`]): with a part of a sort other than Bool and
    /// bit-vectors (integers, floats), or a product or quotient of two
    /// non-constant bit-vectors.
    kept_only: rustc_hash::FxHashSet<TermId>,
    /// The translated terms with a float inside (a float symbol, or a
    /// conversion of bits to a float, as `strtod` of input bytes).
    floating: rustc_hash::FxHashSet<TermId>,
    /// When translating must stop (the run's deadline, or its budget's
    /// stop): a merged state's terms can be millions of nodes, which took
    /// Z3 52 s and 14 GB past a 30 s limit.
    stop: Option<(Option<Instant>, Option<braid_budget::Budget>)>,
}

impl<'ctx> Translator<'ctx> {
    fn new(ctx: &'ctx Context) -> Translator<'ctx> {
        Translator {
            ctx,
            kit: None,
            done: FxHashMap::default(),
            reads: Default::default(),
            nonlinear: Default::default(),
            kept_only: Default::default(),
            floating: Default::default(),
            stop: None,
        }
    }

    fn kit(&mut self) -> Result<&FloatKit<'ctx>, String> {
        if self.kit.is_none() {
            self.kit = FloatKit::new(self.ctx);
        }
        self.kit
            .as_ref()
            .ok_or_else(|| "Z3 rejected the floating-point template".to_string())
    }

    /// Drops every translation (Z3 frees what no one else holds).
    fn forget(&mut self) {
        self.done.clear();
        self.reads.clear();
        self.nonlinear.clear();
        self.kept_only.clear();
        self.floating.clear();
    }

    fn symbol(&self, store: &TermStore, s: SymId) -> Result<Dynamic<'ctx>, String> {
        let sym = store.symbol(s);
        let name = format!("s{}_{}", s.0, sym.name);
        Ok(match sym.sort {
            Sort::Bool => Dynamic::from_ast(&Bool::new_const(self.ctx, name)),
            Sort::Int => Dynamic::from_ast(&Int::new_const(self.ctx, name)),
            Sort::Bv(w) => Dynamic::from_ast(&BV::new_const(self.ctx, name, w as u32)),
            Sort::F32 => Dynamic::from_ast(&Float::new_const_float32(self.ctx, name)),
            Sort::F64 => Dynamic::from_ast(&Float::new_const_double(self.ctx, name)),
            other => return unsupported(format!("symbols of sort {other}")),
        })
    }

    fn constant(&self, v: Value) -> Result<Dynamic<'ctx>, String> {
        Ok(match v {
            Value::Bool(b) => Dynamic::from_ast(&Bool::from_bool(self.ctx, b)),
            Value::Int(i) => match Int::from_str(self.ctx, &i.to_string()) {
                Some(x) => Dynamic::from_ast(&x),
                None => return unsupported(format!("integer literal {i}")),
            },
            Value::Bv { width, bits } => Dynamic::from_ast(&BV::from_u64(self.ctx, bits, width as u32)),
            Value::F32(b) => Dynamic::from_ast(&Float::from_f32(self.ctx, f32::from_bits(b))),
            Value::F64(b) => Dynamic::from_ast(&Float::from_f64(self.ctx, f64::from_bits(b))),
            other => return unsupported(format!("constant {other}")),
        })
    }

    fn translate(&mut self, store: &TermStore, root: TermId) -> Result<Dynamic<'ctx>, String> {
        if let Some(d) = self.done.get(&root) {
            return Ok(d.clone());
        }
        // Translations are kept for later queries, up to a bound: past it
        // they start over (Z3 frees what no one holds).
        if self.done.len() >= TRANSLATIONS_KEPT {
            self.forget();
        }
        for (i, t) in store.postorder(&[root]).into_iter().enumerate() {
            if self.done.contains_key(&t) {
                continue;
            }
            if i % 4096 == 4095 {
                if let Some((deadline, budget)) = &self.stop {
                    if deadline.is_some_and(|d| Instant::now() >= d) || budget.as_ref().is_some_and(|b| b.stopped()) {
                        return Err("time limit reached while translating the query".into());
                    }
                }
            }
            let float = |x: TermId| matches!(store.sort(x), Sort::F32 | Sort::F64);
            let inside = match store.node(t) {
                Node::App(_, args) => args.iter().any(|a| self.floating.contains(a)),
                _ => false,
            };
            if float(t) || inside {
                self.floating.insert(t);
            }
            let d = match store.node(t) {
                Node::Const(v) => self.constant(*v)?,
                Node::Sym(s) => self.symbol(store, *s)?,
                Node::App(Op::Read, args) => {
                    if args.len() > 2 + 2 * FRESH_READ_PAIRS {
                        self.reads.insert(t);
                    }
                    self.read(store, args)
                }
                Node::App(op, args) => {
                    if args.iter().any(|a| self.reads.contains(a)) {
                        self.reads.insert(t);
                    }
                    let constant = |x: &TermId| matches!(store.node(*x), Node::Const(_));
                    let own = store.sort(t) == Sort::Int
                        && match op {
                            Op::Div | Op::Rem => true,
                            Op::Mul => !args.iter().any(constant),
                            _ => false,
                        };
                    if own || args.iter().any(|a| self.nonlinear.contains(a)) {
                        self.nonlinear.insert(t);
                    }
                    let bits = |x: TermId| matches!(store.sort(x), Sort::Bool | Sort::Bv(_));
                    let product =
                        matches!(op, Op::Mul | Op::Div | Op::Rem | Op::UDiv | Op::URem) && !args.iter().any(constant);
                    if product || !bits(t) || args.iter().any(|a| !bits(*a) || self.kept_only.contains(a)) {
                        self.kept_only.insert(t);
                    }
                    let sorts: Vec<Sort> = args.iter().map(|x| store.sort(*x)).collect();
                    let args: Vec<Dynamic<'ctx>> = args.iter().map(|a| self.done[a].clone()).collect();
                    self.app(*op, &args, &sorts)?
                }
            };
            self.done.insert(t, d);
        }
        Ok(self.done[&root].clone())
    }

    /// `read(index, default, k1, v1, …)` as `select` from an array that is
    /// `default` everywhere but at the keys. An index `toint(zext(y)) + c`
    /// (a wasm memory offset) selects by the bit-vector `y` at keys `k - c`,
    /// so that no integer conversion reaches Z3.
    fn read(&self, store: &TermStore, args: &[TermId]) -> Dynamic<'ctx> {
        let t = |x: &TermId| &self.done[x];
        let (index, shift, domain) = match store.unsigned_int(args[0]) {
            Some((y, c)) => match store.sort(y) {
                Sort::Bv(w) => (y, c, Some(w)),
                _ => (args[0], 0, None),
            },
            None => (args[0], 0, None),
        };
        // An `ite` chain over the keys: Z3 bit-blasts it with the rest,
        // where an array term would take its slower array theory.
        let at = t(&index);
        let mut value = t(&args[1]).clone();
        for kv in args[2..].chunks_exact(2).rev() {
            let hit = match (domain, store.as_const(kv[0])) {
                (None, _) => at._eq(t(&kv[0])),
                (Some(w), Some(Value::Int(k))) => match k.checked_sub(shift) {
                    Some(k) if (0..1i128 << w).contains(&k) => {
                        at._eq(&Dynamic::from_ast(&BV::from_u64(self.ctx, k as u64, w as u32)))
                    }
                    _ => continue,
                },
                (Some(_), _) => continue,
            };
            value = hit.ite(t(&kv[1]), &value);
        }
        value
    }

    /// WebAssembly's float operations (and conversions from bit-vectors).
    fn wasm_float(&mut self, op: Op, a: &[Dynamic<'ctx>], sorts: &[Sort]) -> Result<Option<Dynamic<'ctx>>, String> {
        let is_float_op = matches!(
            op,
            Op::FAbs
                | Op::FSqrt
                | Op::FCeil
                | Op::FFloor
                | Op::FTrunc
                | Op::FNearest
                | Op::FMin
                | Op::FMax
                | Op::FCopysign
                | Op::Reinterpret
                | Op::ConvertS(_)
                | Op::ConvertU(_)
                | Op::FConvert(_)
                | Op::TruncS(_)
                | Op::TruncU(_)
                | Op::TruncSatS(_)
                | Op::TruncSatU(_)
        );
        if !is_float_op {
            return Ok(None);
        }
        let ctx = self.ctx;
        let kit = self.kit()?;
        let x = &a[0];
        let w = match sorts[0] {
            Sort::F32 | Sort::Bv(32) => 32,
            Sort::F64 | Sort::Bv(64) => 64,
            Sort::Bv(n) => n as u32,
            s => return unsupported(format!("`{op}` on {s}")),
        };
        let k = if w == 32 { 0 } else { 1 };
        let rne = Dynamic::from_ast(&kit.rne);
        let float = |v: f64, w: u32| -> Dynamic<'ctx> {
            if w == 32 {
                Dynamic::from_ast(&Float::from_f32(ctx, v as f32))
            } else {
                Dynamic::from_ast(&Float::from_f64(ctx, v))
            }
        };
        let app1 = |name: &str, args: &[&Dynamic<'ctx>]| -> Result<Dynamic<'ctx>, String> {
            let args: Vec<&dyn Ast<'ctx>> = args.iter().map(|x| *x as &dyn Ast<'ctx>).collect();
            Ok(kit.op(name)?.apply(&args))
        };
        let boolean = |d: Dynamic<'ctx>| d.as_bool().ok_or_else(|| "expected a Bool".to_string());
        let lt = |p: &Dynamic<'ctx>, q: &Dynamic<'ctx>| -> Result<Bool<'ctx>, String> {
            let (p, q) = (
                p.as_float().ok_or("expected a float")?,
                q.as_float().ok_or("expected a float")?,
            );
            Ok(p.lt(&q))
        };
        let r = match op {
            Op::FAbs => app1(&format!("abs{w}"), &[x])?,
            Op::FSqrt => app1(&format!("sqrt{w}"), &[&rne, x])?,
            Op::FCeil => app1(&format!("rti{w}"), &[&kit.rtp, x])?,
            Op::FFloor => app1(&format!("rti{w}"), &[&kit.rtn, x])?,
            Op::FTrunc => app1(&format!("rti{w}"), &[&kit.rtz, x])?,
            Op::FNearest => app1(&format!("rti{w}"), &[&rne, x])?,
            Op::FMin | Op::FMax => {
                // NaN if either is; else the smaller (larger); for equal
                // values (±0) the negative (positive) one.
                let y = &a[1];
                let nan = Bool::or(
                    ctx,
                    &[
                        &boolean(app1(&format!("isnan{w}"), &[x])?)?,
                        &boolean(app1(&format!("isnan{w}"), &[y])?)?,
                    ],
                );
                // `small`/`large` is which of x, y min/max takes when x < y.
                let (small, large) = if op == Op::FMin { (x, y) } else { (y, x) };
                let x_neg = boolean(app1(&format!("isneg{w}"), &[x])?)?;
                let tie = if op == Op::FMin {
                    x_neg.ite(x, y)
                } else {
                    x_neg.ite(y, x)
                };
                let pick = lt(x, y)?.ite(small, &lt(y, x)?.ite(large, &tie));
                nan.ite(&kit.nan[k], &pick)
            }
            Op::FCopysign => {
                let y = &a[1];
                let (bx, by) = (kit.to_ieee[k].apply(&[x]), kit.to_ieee[k].apply(&[y]));
                let (bx, by) = (bx.as_bv().ok_or("expected bits")?, by.as_bv().ok_or("expected bits")?);
                let sign = 1u64 << (w - 1);
                let bits = bx
                    .bvand(&BV::from_u64(ctx, !sign & (u64::MAX >> (64 - w)), w))
                    .bvor(&by.bvand(&BV::from_u64(ctx, sign, w)));
                app1(&format!("frombits{w}"), &[&Dynamic::from_ast(&bits)])?
            }
            Op::Reinterpret if matches!(sorts[0], Sort::Bv(_)) => app1(&format!("frombits{w}"), &[x])?,
            Op::Reinterpret => kit.to_ieee[k].apply(&[x]),
            Op::ConvertS(to) => app1(&format!("s{w}to{to}"), &[&rne, x])?,
            Op::ConvertU(to) => app1(&format!("u{w}to{to}"), &[&rne, x])?,
            Op::FConvert(to) if to as u32 == w => x.clone(),
            Op::FConvert(to) => app1(&format!("f{w}to{to}"), &[&rne, x])?,
            Op::TruncS(to) => app1(&format!("tos{to}from{w}"), &[&kit.rtz, x])?,
            Op::TruncU(to) => app1(&format!("tou{to}from{w}"), &[&kit.rtz, x])?,
            Op::TruncSatS(to) | Op::TruncSatU(to) => {
                let signed = matches!(op, Op::TruncSatS(_));
                let (lo, hi) = braid_term::int_range(signed, to);
                let (min, max) = braid_term::saturation_bits(signed, to);
                let bv = |v: u64| Dynamic::from_ast(&BV::from_u64(ctx, v, to as u32));
                let whole = app1(&format!("rti{w}"), &[&kit.rtz, x])?;
                let conv = app1(
                    &format!("{}{to}from{w}", if signed { "tos" } else { "tou" }),
                    &[&kit.rtz, x],
                )?;
                let nan = boolean(app1(&format!("isnan{w}"), &[x])?)?;
                let below = lt(&whole, &float(lo, w))?;
                let above = lt(&whole, &float(hi, w))?.not();
                nan.ite(&bv(0), &below.ite(&bv(min), &above.ite(&bv(max), &conv)))
            }
            _ => return Ok(None),
        };
        Ok(Some(r))
    }

    fn app(&mut self, op: Op, a: &[Dynamic<'ctx>], sorts: &[Sort]) -> Result<Dynamic<'ctx>, String> {
        if let Some(r) = self.wasm_float(op, a, sorts)? {
            return Ok(r);
        }
        let d = |x: &dyn Ast<'ctx>| Dynamic::from_ast(x);
        let bool_of = |x: &Dynamic<'ctx>| x.as_bool().ok_or_else(|| "expected a Bool".to_string());
        match sorts.first().copied() {
            _ if op == Op::Ite => {
                let c = bool_of(&a[0])?;
                Ok(c.ite(&a[1], &a[2]))
            }
            Some(Sort::Bool) => {
                let x = bool_of(&a[0])?;
                match op {
                    Op::Not => Ok(d(&x.not())),
                    Op::And => Ok(d(&Bool::and(self.ctx, &[&x, &bool_of(&a[1])?]))),
                    Op::Or => Ok(d(&Bool::or(self.ctx, &[&x, &bool_of(&a[1])?]))),
                    Op::Xor => Ok(d(&x.xor(&bool_of(&a[1])?))),
                    Op::Eq => Ok(d(&x._eq(&bool_of(&a[1])?))),
                    Op::Ne => Ok(d(&x._eq(&bool_of(&a[1])?).not())),
                    Op::ToInt => Ok(d(&x.ite(&Int::from_i64(self.ctx, 1), &Int::from_i64(self.ctx, 0)))),
                    Op::ToBv(w) => Ok(d(&x.ite(
                        &BV::from_u64(self.ctx, 1, w as u32),
                        &BV::from_u64(self.ctx, 0, w as u32),
                    ))),
                    _ => unsupported(format!("`{op}` on bool")),
                }
            }
            Some(Sort::Int) => {
                let x = a[0].as_int().ok_or("expected an Int")?;
                let y = || a[1].as_int().ok_or("expected an Int".to_string());
                Ok(match op {
                    Op::Add => d(&Int::add(self.ctx, &[&x, &y()?])),
                    Op::Sub => d(&Int::sub(self.ctx, &[&x, &y()?])),
                    Op::Mul => d(&Int::mul(self.ctx, &[&x, &y()?])),
                    // SMT-LIB div/mod are Euclidean, as `eval_op` defines them.
                    Op::Div => d(&x.div(&y()?)),
                    Op::Rem => d(&x.modulo(&y()?)),
                    Op::Neg => d(&x.unary_minus()),
                    Op::Eq => d(&x._eq(&y()?)),
                    Op::Ne => d(&x._eq(&y()?).not()),
                    Op::Lt => d(&x.lt(&y()?)),
                    Op::Le => d(&x.le(&y()?)),
                    Op::Gt => d(&x.gt(&y()?)),
                    Op::Ge => d(&x.ge(&y()?)),
                    Op::ToInt => d(&x),
                    Op::ToBv(w) => d(&BV::from_int(&x, w as u32)),
                    _ => return unsupported(format!("`{op}` on int")),
                })
            }
            Some(Sort::Bv(w)) => {
                let x = a[0].as_bv().ok_or("expected a bit-vector")?;
                let y = || a[1].as_bv().ok_or("expected a bit-vector".to_string());
                Ok(match op {
                    Op::Add => d(&x.bvadd(&y()?)),
                    Op::Sub => d(&x.bvsub(&y()?)),
                    Op::Mul => d(&x.bvmul(&y()?)),
                    Op::Div => d(&x.bvsdiv(&y()?)),
                    Op::Rem => d(&x.bvsrem(&y()?)),
                    Op::UDiv => d(&x.bvudiv(&y()?)),
                    Op::URem => d(&x.bvurem(&y()?)),
                    Op::Neg => d(&x.bvneg()),
                    Op::Not => d(&x.bvnot()),
                    Op::And => d(&x.bvand(&y()?)),
                    Op::Or => d(&x.bvor(&y()?)),
                    Op::Xor => d(&x.bvxor(&y()?)),
                    Op::Shl => d(&x.bvshl(&y()?)),
                    Op::LShr => d(&x.bvlshr(&y()?)),
                    Op::AShr => d(&x.bvashr(&y()?)),
                    Op::Eq => d(&x._eq(&y()?)),
                    Op::Ne => d(&x._eq(&y()?).not()),
                    Op::Lt => d(&x.bvslt(&y()?)),
                    Op::Le => d(&x.bvsle(&y()?)),
                    Op::Gt => d(&x.bvsgt(&y()?)),
                    Op::Ge => d(&x.bvsge(&y()?)),
                    Op::ULt => d(&x.bvult(&y()?)),
                    Op::ULe => d(&x.bvule(&y()?)),
                    Op::UGt => d(&x.bvugt(&y()?)),
                    Op::UGe => d(&x.bvuge(&y()?)),
                    Op::ZExt(to) => d(&x.zero_ext((to - w) as u32)),
                    Op::SExt(to) | Op::ToBv(to) if to >= w => d(&x.sign_ext((to - w) as u32)),
                    Op::Trunc(to) | Op::ToBv(to) => d(&x.extract(to as u32 - 1, 0)),
                    Op::ToInt => d(&x.to_int(true)),
                    _ => return unsupported(format!("`{op}` on bv{w}")),
                })
            }
            Some(s @ (Sort::F32 | Sort::F64)) => {
                let x = a[0].as_float().ok_or("expected a float")?;
                let y = || a[1].as_float().ok_or("expected a float".to_string());
                let k = if s == Sort::F32 { 0 } else { 1 };
                let kit = self.kit()?;
                let ieee_eq = |p: &Float<'ctx>, q: &Float<'ctx>| -> Result<Bool<'ctx>, String> {
                    kit.fp_eq[k]
                        .apply(&[p, q])
                        .as_bool()
                        .ok_or_else(|| "fp.eq gave no Bool".to_string())
                };
                Ok(match op {
                    Op::Add => d(&kit.rne.add(&x, &y()?)),
                    Op::Sub => d(&kit.rne.sub(&x, &y()?)),
                    Op::Mul => d(&kit.rne.mul(&x, &y()?)),
                    Op::Div => d(&kit.rne.div(&x, &y()?)),
                    Op::Neg => d(&x.unary_neg()),
                    Op::Eq => d(&ieee_eq(&x, &y()?)?),
                    Op::Ne => d(&ieee_eq(&x, &y()?)?.not()),
                    Op::Lt => d(&x.lt(&y()?)),
                    Op::Le => d(&x.le(&y()?)),
                    Op::Gt => d(&x.gt(&y()?)),
                    Op::Ge => d(&x.ge(&y()?)),
                    _ => return unsupported(format!("`{op}` on {s}")),
                })
            }
            other => unsupported(format!(
                "`{op}` on {}",
                other.map_or("nothing".into(), |s| s.to_string())
            )),
        }
    }

    /// The value Z3's model gives symbol `s`.
    fn model_value(&mut self, store: &TermStore, model: &z3::Model<'ctx>, s: SymId) -> Option<Value> {
        let c = self.symbol(store, s).ok()?;
        let v = model.eval(&c, true)?;
        Some(match store.symbol(s).sort {
            Sort::Bool => Value::Bool(v.as_bool()?.as_bool()?),
            Sort::Int => {
                let i = v.as_int()?;
                Value::Int(match i.as_i64() {
                    Some(x) => x as i128,
                    None => parse_z3_int(&i.to_string())?,
                })
            }
            Sort::Bv(w) => Value::bv(w, v.as_bv()?.as_u64()?),
            sort @ (Sort::F32 | Sort::F64) => {
                let k = if sort == Sort::F32 { 0 } else { 1 };
                // Z3 leaves a NaN's bits unspecified and its model
                // completion reads them as 0 (a zero, not a NaN): a NaN is
                // the canonical one.
                let nan = self
                    .kit()
                    .ok()?
                    .op(&format!("isnan{}", if k == 0 { 32 } else { 64 }))
                    .ok()?
                    .apply(&[&v]);
                if model.eval(&nan.as_bool()?, true)?.as_bool()? {
                    return Some(if sort == Sort::F32 {
                        Value::F32(f32::NAN.to_bits())
                    } else {
                        Value::F64(f64::NAN.to_bits())
                    });
                }
                let bits = self.kit().ok()?.to_ieee[k].apply(&[&v]);
                let bits = model.eval(&bits.as_bv()?, true)?.as_u64()?;
                if sort == Sort::F32 {
                    Value::F32(bits as u32)
                } else {
                    Value::F64(bits)
                }
            }
            _ => return None,
        })
    }
}

/// Reads Z3's rendering of an integer: `123` or `(- 123)`.
fn parse_z3_int(s: &str) -> Option<i128> {
    let s = s.trim();
    match s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        Some(inner) => inner.trim().parse::<i128>().ok().map(|x| -x),
        None => s.parse().ok(),
    }
}

/// Runs `check`, interrupting Z3 after `timeout` if it has not answered, or
/// as soon as `budget` stops the run.
///
/// Z3 4.8.12 (Debian 12's) can deadlock in its own timer when the `timeout`
/// parameter is set, so the limit is enforced from a watchdog thread through
/// `Context::interrupt`, which makes the check return `unknown` ("canceled").
fn with_watchdog<T>(
    ctx: &Context,
    timeout: Option<Duration>,
    budget: Option<&braid_budget::Budget>,
    check: impl FnOnce() -> T,
) -> T {
    // Z3's allocations may grow by what the memory limit leaves; past it
    // the check is interrupted (see `Z3Solver::capped` for fresh solvers,
    // whose own cap usually answers first).
    let limit_cap = budget.and_then(z3_cap);
    let room_cap = QUESTION_ROOM.get().map(|room| z3_allocated().saturating_add(room));
    let z3_cap = match (limit_cap, room_cap) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let by_room = room_cap.is_some() && z3_cap == room_cap;
    if timeout.is_none() && z3_cap.is_none() {
        // No clock to watch: a stop of the budget interrupts the context
        // through the callback `set_budget` registered.
        return check();
    }
    /// How often the watchdog looks at the budget.
    const POLL: Duration = Duration::from_millis(20);
    let done = (Mutex::new(false), Condvar::new());
    let handle = ctx.handle();
    let cut = std::sync::atomic::AtomicBool::new(false);
    let answer = std::thread::scope(|scope| {
        scope.spawn(|| {
            let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
            let mut finished = done.0.lock().unwrap_or_else(|e| e.into_inner());
            while !*finished {
                let now = Instant::now();
                let over = z3_cap.is_some_and(|c| z3_allocated() > c);
                if over {
                    cut.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                if over || deadline.is_some_and(|d| now >= d) || budget.is_some_and(|b| b.stopped()) {
                    handle.interrupt();
                    return;
                }
                let wait = match (deadline, budget) {
                    (Some(d), None) => d - now,
                    (Some(d), Some(_)) => (d - now).min(POLL),
                    (None, _) => POLL,
                };
                finished = done.1.wait_timeout(finished, wait).unwrap_or_else(|e| e.into_inner()).0;
            }
        });
        let answer = check();
        *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        done.1.notify_all();
        answer
    });
    if cut.into_inner() {
        if by_room {
            CUT_FOR_ROOM.set(true);
        } else {
            CUT_FOR_MEMORY.set(true);
        }
    }
    answer
}

thread_local! {
    /// A watchdog of this thread interrupted Z3 because its allocations
    /// reached what the memory limit leaves (read by `Z3Solver::check`).
    static CUT_FOR_MEMORY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// ... or the room [`set_question_room`] leaves.
    static CUT_FOR_ROOM: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static QUESTION_ROOM: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// A capped check that Z3 left unknown with no reason ran into the cap
/// (its throw leaves the reason empty: AES's key bytes under a 300 MB
/// limit): it answers as a cut for memory does.
fn note_cap_throw(capped: bool, r: Z3Result, fresh: &z3::Solver<'static>) {
    if capped && r == Z3Result::Unknown && fresh.get_reason_unknown().is_none_or(|w| w.trim().is_empty()) {
        CUT_FOR_MEMORY.set(true);
    }
}

/// The reason of an unknown answer that Z3's memory cut short.
const OUT_OF_MEMORY: &str = "Z3 ran out of the memory the limit leaves";

/// The reason of an unknown answer cut short by [`set_question_room`].
const OUT_OF_ROOM: &str = "Z3's memory for the question outgrew the room it was given";

/// `Some(bytes)`: until set again, each Z3 check of this thread is cut
/// short (answered unknown) once Z3's allocations have grown by `bytes`
/// in it. ssm and dsm set it for a merged state's question while dse
/// races them, where unknown splits the state: the race gives merging up
/// once it holds more than dse and what was in use before both, and one
/// merged question can take Z3 past that alone (bench/multise's symarith
/// under dsm: 57 MB held at once, 121 MB peak against dse's 62).
pub fn set_question_room(bytes: Option<u64>) {
    QUESTION_ROOM.set(bytes);
}

/// Z3's `check` (under [`with_watchdog`]) raced against `rival`'s helper
/// on its constraints: the helper starts after its delay unless Z3 has
/// answered, and a definite answer of the helper's interrupts Z3 and is
/// returned beside Z3's (then `unknown`) result. When Z3 gives up early
/// (out of memory, an incomplete theory) the helper has the rest of the
/// time alone. The helper's process is killed as soon as the race is over.
fn race(
    ctx: &Context,
    timeout: Option<Duration>,
    budget: Option<&braid_budget::Budget>,
    rival: Option<(&Helper, &TermStore, &[TermId])>,
    check: impl FnOnce() -> Z3Result,
) -> (Z3Result, Option<SatResult>) {
    let Some((helper, store, constraints)) = rival else {
        return (with_watchdog(ctx, timeout, budget, check), None);
    };
    #[derive(Default)]
    struct Race {
        /// Z3's check returned.
        z3_done: bool,
        /// The helper may start before its delay (Z3 gave up).
        go: bool,
        /// No answer of the helper's is wanted any more.
        over: bool,
        /// The helper returned, with its answer if it had one.
        helper_done: bool,
        answer: Option<SatResult>,
    }
    let start = Instant::now();
    let race = (Mutex::new(Race::default()), Condvar::new());
    let lock = || race.0.lock().unwrap_or_else(|e| e.into_inner());
    // The helper's process, killed at once even if it starts after the
    // race is over.
    let process = Mutex::new(external::Process::default());
    let handle = ctx.handle();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            let (state, _) = race
                .1
                .wait_timeout_while(lock(), helper.delay, |r| !r.over && !r.go)
                .unwrap_or_else(|e| e.into_inner());
            if state.over {
                return;
            }
            drop(state);
            // The helper's memory is not the run's resident memory: it
            // gets what the run's limit leaves (at least 64 MB).
            let memory_mb = budget.and_then(|b| {
                let limit = b.limits().memory_mb?;
                Some(limit.saturating_sub(b.rss() >> 20).max(64))
            });
            // Written only now: most questions never get here.
            let answer = external::script(store, constraints)
                .and_then(|script| helper.solve(store, &script, memory_mb, &process));
            let mut state = lock();
            if answer.is_some() && !state.z3_done {
                handle.interrupt();
            }
            state.answer = answer;
            state.helper_done = true;
            race.1.notify_all();
        });
        let result = with_watchdog(ctx, timeout, budget, check);
        let mut state = lock();
        state.z3_done = true;
        let stopped = || budget.is_some_and(|b| b.stopped());
        let left = || timeout.map(|t| t.saturating_sub(start.elapsed()));
        if result == Z3Result::Unknown && state.answer.is_none() && !stopped() && left() != Some(Duration::ZERO) {
            // Z3 gave up before its time: the helper's turn, watched for
            // the time limit and the budget's stop.
            state.go = true;
            race.1.notify_all();
            const POLL: Duration = Duration::from_millis(20);
            while !state.helper_done && !stopped() && left() != Some(Duration::ZERO) {
                let wait = left().map_or(POLL, |l| l.min(POLL));
                state = race.1.wait_timeout(state, wait).unwrap_or_else(|e| e.into_inner()).0;
            }
        }
        state.over = true;
        race.1.notify_all();
        drop(state);
        process.lock().unwrap_or_else(|e| e.into_inner()).end();
        result
    });
    let answer = race.0.into_inner().unwrap_or_else(|e| e.into_inner()).answer;
    (result, answer)
}

impl Solver for Z3Solver {
    fn reset(&mut self) {
        self.solver = z3::Solver::new(self.ctx);
        self.stack.clear();
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
        self.stop_translations();
    }

    fn set_timeout(&mut self, ms: Option<u32>) {
        self.timeout_ms = ms;
    }

    fn set_budget(&mut self, budget: &braid_budget::Budget) {
        self.deadline = budget.explore_deadline();
        budget.on_stop(self.lease.interrupter(self.ctx));
        self.budget = Some(budget.clone());
        self.stop_translations();
    }

    fn check(&mut self, store: &TermStore, constraints: &[TermId]) -> SatResult {
        let start = Instant::now();
        CUT_FOR_MEMORY.set(false);
        CUT_FOR_ROOM.set(false);
        let mut answer = self.check_once(store, constraints);
        if matches!(answer, SatResult::Unknown(_)) && CUT_FOR_ROOM.take() {
            // What Z3 dropped goes back to the system (glibc keeps it).
            if let Some(budget) = &self.budget {
                budget.release_memory();
            }
            return SatResult::Unknown(OUT_OF_ROOM.into());
        }
        let short = |why: &str| why.contains("out of memory") || why.contains(OUT_OF_MEMORY);
        if let SatResult::Unknown(why) = &answer {
            if CUT_FOR_MEMORY.take() || short(why) {
                // What the solvers dropped goes back to the system, so
                // the run's resident memory says what is in use.
                answer = SatResult::Unknown(OUT_OF_MEMORY.into());
                if let Some(budget) = &self.budget {
                    budget.release_memory();
                }
                return answer;
            }
        }
        // A watchdog's interrupt that lands just after the check it was
        // meant for ended cancels the next check of the context instead:
        // one retry when neither its time limit nor the run's budget
        // explains the cancellation.
        if let SatResult::Unknown(why) = &answer {
            let limit = self.timeout_ms.map(|ms| Duration::from_millis(ms as u64));
            let spurious = why.contains("canceled")
                && limit.is_none_or(|t| start.elapsed() < t)
                && self.deadline.is_none_or(|d| Instant::now() < d)
                && !self.budget.as_ref().is_some_and(|b| b.stopped());
            if spurious {
                return self.check_once(store, constraints);
            }
            // The watchdog interrupts Z3 at the per-query limit, which Z3
            // reports as an interrupt: say which limit it was.
            let timed_out = (why.contains("canceled") || why.contains("interrupted"))
                && limit.is_some_and(|t| start.elapsed() >= t)
                && !self.budget.as_ref().is_some_and(|b| b.stopped());
            if let (true, Some(ms)) = (timed_out, self.timeout_ms) {
                return SatResult::Unknown(format!(
                    "no answer within the per-query timeout of {ms} ms (--solver-timeout)"
                ));
            }
        }
        answer
    }

    fn unsat_core(&mut self) -> Option<Vec<TermId>> {
        self.last_core.take()
    }

    fn set_cores(&mut self, on: bool) {
        self.cores = on;
    }

    fn smtlib(&mut self, store: &TermStore, constraints: &[TermId]) -> Option<String> {
        let solver = z3::Solver::new(self.ctx);
        for &c in constraints {
            solver.assert(&self.translator.translate(store, c).ok()?.as_bool()?);
        }
        Some(solver.to_string())
    }

    fn helper_answered(&self) -> bool {
        self.helper_answered
    }

    fn set_incremental(&mut self, on: bool) {
        self.incremental = on;
        self.solver = z3::Solver::new(self.ctx);
        self.stack.clear();
    }
}

impl Z3Solver {
    /// Translations stop at the run's deadline and budget stop.
    fn stop_translations(&mut self) {
        self.translator.stop = Some((self.deadline, self.budget.clone()));
    }

    /// A solver of its own for a question past the kept solver's slice:
    /// with Z3's tactic for non-linear integers where they occur.
    fn fresh_solver(&self, nonlinear: bool) -> z3::Solver<'static> {
        match nonlinear {
            true => z3::Tactic::new(self.ctx, "qfnia").solver(),
            false => z3::Solver::new(self.ctx),
        }
    }

    /// `asserted` (the translation of `constraints`) checked by `fresh`, a
    /// solver of its own; unsat keeps the whole set as the core. With
    /// `rival`, the helper races it from the start (see
    /// [`Z3Solver::bits_rival`]).
    fn check_fresh(
        &mut self,
        fresh: z3::Solver<'static>,
        store: &TermStore,
        constraints: &[TermId],
        asserted: &[Bool<'static>],
        timeout: Option<Duration>,
        rival: Option<Helper>,
    ) -> SatResult {
        let rival = rival.as_ref().map(|h| (h, store, constraints));
        let ((r, helper), capped) = self.capped(|| {
            for b in asserted {
                fresh.assert(b);
            }
            race(self.ctx, timeout, self.budget.as_ref(), rival, || fresh.check())
        });
        note_cap_throw(capped, r, &fresh);
        let mut answer = self.translator.answer(store, constraints, &fresh, r);
        if let (SatResult::Unknown(_), Some(a)) = (&answer, helper) {
            self.helper_answered = true;
            answer = a;
        }
        if answer == SatResult::Unsat && self.cores {
            self.last_core = Some(constraints.to_vec());
        }
        answer
    }

    /// The helper, raced at once against the fresh solver that takes over a
    /// question over bit-vectors alone from the kept one
    /// ([`KEPT_FIRST`]): a decimal number read digit by digit (`10 * v +
    /// c - '0'` against bounds, bench/muse/pgm.c) left Z3 without an answer
    /// after 1 s, fresh or kept, where Bitwuzla's process (Python's start
    /// included) answered in 40-50 ms.
    fn bits_rival(&self) -> Option<Helper> {
        self.helper.clone().map(|h| Helper {
            delay: Duration::ZERO,
            ..h
        })
    }

    /// Runs `f` (a fresh solver's assertions and check) with Z3's own
    /// allocations capped at what the run's memory limit leaves: past it
    /// Z3 throws from whichever allocation crosses it, the check answers
    /// unknown, and the solver is dropped. A product of doubles bit-blasted
    /// took a run limited to 300 MB to 708 MB before the budget's watchdog
    /// could stop it. The cap is Z3's global setting, so it is lifted again
    /// for the kept solvers: thrown inside a push, it leaves the solver to
    /// crash (dse on bench/muse/quadratic.c once the floats' bits were
    /// pushed; concolic on an expression evaluator over doubles in every
    /// run, inside `Z3_solver_push` of a question over bit-vectors). Those
    /// are bounded by [`Z3Solver::trim_kept`] instead.
    /// Also says whether a cap was set.
    fn capped<T>(&self, f: impl FnOnce() -> T) -> (T, bool) {
        // (A fixed half of the limit cut CRC-32 over 8 bytes off at 124 MB
        // of 300; it needs 198.)
        let Some(cap) = self.budget.as_ref().and_then(z3_cap) else {
            return (f(), false);
        };
        let cap = (cap >> 20).max(1);
        z3::set_global_param("memory_max_size", &cap.to_string());
        let r = f();
        z3::set_global_param("memory_max_size", "0");
        (r, true)
    }

    /// Before the kept solver takes a question: past a quarter of the
    /// run's memory limit, Z3's allocations are mostly the kept solvers'
    /// (what a fresh one allocated went with it), so they start over, and
    /// the translations too if that was not enough.
    fn trim_kept(&mut self) {
        let Some(mb) = self.budget.as_ref().and_then(|b| b.limits().memory_mb) else {
            return;
        };
        let over = || z3_allocated() > (mb << 20) / 4;
        if !over() {
            return;
        }
        self.solver = z3::Solver::new(self.ctx);
        self.stack.clear();
        self.core_solver = None;
        if over() {
            self.translator.forget();
        }
    }

    fn check_once(&mut self, store: &TermStore, constraints: &[TermId]) -> SatResult {
        self.helper_answered = false;
        if self.budget.as_ref().is_some_and(|b| b.stopped()) {
            return SatResult::Unknown("the run stopped".into());
        }
        self.trim_kept();
        let mut asserted = Vec::with_capacity(constraints.len());
        for &c in constraints {
            match self.translator.translate(store, c).map(|d| d.as_bool()) {
                Ok(Some(b)) => asserted.push(b),
                Ok(None) => return SatResult::Unknown("a constraint is not a Bool".into()),
                Err(reason) => return SatResult::Unknown(reason),
            }
        }
        let start = Instant::now();
        let per_query = self.timeout_ms.map(|ms| Duration::from_millis(ms as u64));
        let to_deadline = self.deadline.map(|d| d.saturating_duration_since(start));
        let timeout = match (per_query, to_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // Before the push: the kept solver must not keep this query's
        // assertions.
        if timeout == Some(Duration::ZERO) {
            return SatResult::Unknown("time limit reached before the query".into());
        }
        self.last_core = None;
        // A query that reads large arrays goes to a fresh solver, whose
        // tactics bit-blast the `ite` chains: a proof over an array of 1 000 ints took
        // the kept (incremental) solver past 18 s, a fresh one about 1 s.
        if constraints.iter().any(|c| self.translator.reads.contains(c)) {
            return self.check_fresh(z3::Solver::new(self.ctx), store, constraints, &asserted, timeout, None);
        }
        // Integer division and remainder (and products of unknowns): the
        // kept solver for a short while, then a fresh one with Z3's tactic
        // for non-linear integers. Each decides questions the other gives
        // up on: with `x mod 5` asked twice, the kept solver gave up after
        // 10 s on a question (unsat) the tactic decides in 5 ms, and the
        // other way round on another.
        let nonlinear = constraints.iter().any(|c| self.translator.nonlinear.contains(c));
        // A question with floats inside, over float symbols or bits turned
        // into floats (crate::external has the helper race Z3 on it).
        let floats = constraints.iter().any(|c| self.translator.floating.contains(c));
        let bits = !constraints.iter().any(|c| self.translator.kept_only.contains(c));
        let slice = match (nonlinear, bits) {
            (true, _) => Some(NONLINEAR_FIRST),
            (false, true) => Some(self.kept_first),
            (false, false) => None,
        };
        let first = match (slice, timeout) {
            (Some(s), Some(t)) => Some(t.min(s)),
            (s, t) => s.or(t),
        };
        // A slice of nothing (the tests' setting): the fresh solver at once,
        // rather than a race the kept solver can win before the interrupt.
        if first == Some(Duration::ZERO) && !floats {
            let fresh = self.fresh_solver(nonlinear);
            return self.check_fresh(fresh, store, constraints, &asserted, timeout, None);
        }
        let rival = self.helper.as_ref().filter(|_| floats).map(|h| (h, store, constraints));
        let kept = &self.solver;
        let (mut answer, helper_answer) = if floats {
            // A question over floats goes to a fresh solver, which turns
            // floats into bits inside its check. A push on the kept solver
            // does that work for the constraints before it, and Z3's cap on
            // its memory (`set_budget`) throws from whichever allocation
            // crosses it: thrown inside a push, it left the kept solver to
            // crash in a later push (3 runs in 94 of dse on
            // bench/muse/quadratic.c under --max-memory 300; 0 in 140 since).
            // Floats made of bits (a byte through `strtod`) too: on the kept
            // solver, Z3 answered the watchdog's interrupt of a 200 ms
            // question after 14 s; a fresh one within its time.
            let fresh = z3::Solver::new(self.ctx);
            let ((r, helper), capped) = self.capped(|| {
                for b in &asserted {
                    fresh.assert(b);
                }
                race(self.ctx, first, self.budget.as_ref(), rival, || fresh.check())
            });
            note_cap_throw(capped, r, &fresh);
            (self.translator.answer(store, constraints, &fresh, r), helper)
        } else if self.incremental {
            // Along a path consecutive queries share their older constraints
            // (sets are sorted by term, and terms are numbered as they are
            // built): the common prefix stays asserted, one scope per
            // constraint, and Z3 keeps what it learnt about it.
            let common = self.stack.iter().zip(constraints).take_while(|(a, b)| a == b).count();
            let extra = self.stack.len() - common;
            if extra > 0 {
                kept.pop(extra as u32);
                self.stack.truncate(common);
            }
            for (c, b) in constraints[common..].iter().zip(&asserted[common..]) {
                kept.push();
                kept.assert(b);
                self.stack.push(*c);
            }
            let (r, helper) = race(self.ctx, first, self.budget.as_ref(), rival, || kept.check());
            (self.translator.answer(store, constraints, kept, r), helper)
        } else {
            kept.push();
            for b in &asserted {
                kept.assert(b);
            }
            let (r, helper) = race(self.ctx, first, self.budget.as_ref(), rival, || kept.check());
            let answer = self.translator.answer(store, constraints, kept, r);
            kept.pop(1);
            (answer, helper)
        };
        if matches!(answer, SatResult::Unknown(_)) {
            // A check that gave up (or was interrupted) may leave Z3's state
            // unreliable: start from an empty solver.
            if !floats {
                self.solver = z3::Solver::new(self.ctx);
                self.stack.clear();
            }
            // The helper answered first (and interrupted Z3): its unsat
            // keeps the whole set as the core.
            if let Some(a) = helper_answer {
                self.helper_answered = true;
                if a == SatResult::Unsat && self.cores {
                    self.last_core = Some(constraints.to_vec());
                }
                return a;
            }
        }
        if answer == SatResult::Unsat && self.cores && constraints.len() > 1 {
            self.core(constraints, &asserted, start.elapsed(), timeout);
        }
        // The kept solver's slice ran out: a fresh solver (for non-linear
        // integers, with Z3's tactic for them) has the rest of the time.
        let sliced = slice.is_some() && first != timeout;
        let cut = CUT_FOR_MEMORY.get();
        if sliced
            && !cut
            && matches!(answer, SatResult::Unknown(_))
            && !self.budget.as_ref().is_some_and(|b| b.stopped())
        {
            let left = timeout.map(|t| t.saturating_sub(start.elapsed()));
            if left != Some(Duration::ZERO) {
                let fresh = self.fresh_solver(nonlinear);
                let rival = self.bits_rival().filter(|_| !nonlinear && bits);
                return self.check_fresh(fresh, store, constraints, &asserted, left, rival);
            }
        }
        // The kept solver is incremental, and Z3's incremental core gives up
        // on some theories (non-linear arithmetic) that a fresh solver, with
        // its own tactics, decides; give those queries a second chance
        // (a question over floats had a fresh solver already).
        if let (SatResult::Unknown(why), false) = (&answer, floats || cut) {
            if !why.contains("canceled") && !why.contains("interrupted") && !why.contains("memory") {
                let left = timeout.map(|t| t.saturating_sub(start.elapsed()));
                if left != Some(Duration::ZERO) {
                    answer = self.check_fresh(z3::Solver::new(self.ctx), store, constraints, &asserted, left, None);
                }
            }
        }
        answer
    }
}

impl Z3Solver {
    /// The unsat core of `constraints` (`asserted`, their Z3 form), unsat
    /// in a check that took `took`: the constraints again, as assumptions,
    /// which Z3 answers with the ones it needed. Assumptions miss some of
    /// Z3's preprocessing (substituting equalities), so this second check
    /// gets about the first one's time; past it the caller keeps the whole
    /// set.
    ///
    /// Its time limit is Z3's own (the solver's `timeout` parameter), not
    /// the watchdog's interrupt: an interrupt that lands just after the
    /// check it was meant for cancels the context's next check, and a
    /// core's limit is short. (Cores were checked in a second context for
    /// that, which touched 17-19 MB more per thread when it was made.) Z3
    /// withdraws its own timer's cancel when the check returns.
    fn core(&mut self, constraints: &[TermId], asserted: &[Bool<'static>], took: Duration, timeout: Option<Duration>) {
        // At least `CORE_FLOOR`: a host's hiccup of a few milliseconds
        // must not cost a core. One missed core on bench/solver's
        // btree-6 (the whole set kept instead) let unsat queries its
        // core would have answered through, and a run that makes 270
        // solver calls made 15 004 with 307 cores missed.
        const CORE_FLOOR: Duration = Duration::from_millis(25);
        let limit = (took * 2 + Duration::from_millis(1)).max(CORE_FLOOR);
        let limit = timeout.map_or(limit, |t| limit.min(t.saturating_sub(took)));
        if limit.is_zero() {
            return;
        }
        let ctx = self.ctx;
        let solver = self.core_solver.get_or_insert_with(|| z3::Solver::new(ctx));
        let mut params = z3::Params::new(ctx);
        params.set_u32("timeout", u32::try_from(limit.as_millis()).unwrap_or(u32::MAX).max(1));
        solver.set_params(&params);
        let r = with_watchdog(ctx, None, self.budget.as_ref(), || solver.check_assumptions(asserted));
        if r == Z3Result::Unknown {
            self.core_solver = None;
        } else if r == Z3Result::Unsat {
            let core = solver.get_unsat_core();
            self.last_core = Some(
                constraints
                    .iter()
                    .zip(asserted)
                    .filter(|(_, b)| core.contains(b))
                    .map(|(c, _)| *c)
                    .collect(),
            );
        }
    }
}

impl Translator<'static> {
    fn answer(
        &mut self,
        store: &TermStore,
        constraints: &[TermId],
        solver: &z3::Solver<'static>,
        result: Z3Result,
    ) -> SatResult {
        match result {
            Z3Result::Unsat => SatResult::Unsat,
            Z3Result::Unknown => {
                let why = solver.get_reason_unknown().unwrap_or_else(|| "unknown".into());
                SatResult::Unknown(format!("Z3 returned unknown ({why})"))
            }
            Z3Result::Sat => match solver.get_model() {
                None => SatResult::Unknown("Z3 gave no model".into()),
                Some(model) => self.read_model(store, constraints, &model),
            },
        }
    }

    /// Our model of the symbols `constraints` mention, read off Z3's.
    fn read_model(&mut self, store: &TermStore, constraints: &[TermId], model: &z3::Model<'static>) -> SatResult {
        let mut out = Model::default();
        let mut syms: Vec<SymId> = constraints
            .iter()
            .flat_map(|c| store.symbols(*c).iter().copied())
            .collect();
        syms.sort_unstable();
        syms.dedup();
        for s in syms {
            match self.model_value(store, model, s) {
                Some(v) => {
                    out.insert(s, v);
                }
                None => return SatResult::Unknown(format!("no model value for `{}`", store.symbol(s).name)),
            }
        }
        SatResult::Sat(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_linear_queries_are_decided() {
        let mut s = TermStore::new();
        let (x, y) = (s.symbol_term("x", Sort::Int), s.symbol_term("y", Sort::Int));
        let prod = s.app(Op::Mul, &[x, y]).unwrap();
        let twelve = s.constant(Value::Int(12));
        let one = s.constant(Value::Int(1));
        let c = [
            s.app(Op::Eq, &[prod, twelve]).unwrap(),
            s.app(Op::Gt, &[x, one]).unwrap(),
            s.app(Op::Gt, &[y, one]).unwrap(),
        ];
        let mut z = Z3Solver::new(Some(5000));
        let SatResult::Sat(m) = z.check(&s, &c) else {
            panic!("x*y = 12 with x, y > 1 is satisfiable")
        };
        for t in c {
            assert_eq!(s.eval(t, &m), Ok(Value::Bool(true)));
        }
    }

    /// A core is checked in the query's own context, under Z3's timer: it
    /// names the constraints that conflict, and the checks after it are
    /// answered (none cancelled by the core's time limit).
    #[test]
    fn a_core_names_the_conflict_and_the_next_checks_are_answered() {
        std::thread::spawn(|| {
            let mut s = TermStore::new();
            let (x, y) = (s.symbol_term("x", Sort::Bv(8)), s.symbol_term("y", Sort::Bv(8)));
            let k = |s: &mut TermStore, v: u64| s.constant(Value::bv(8, v));
            let (one, two) = (k(&mut s, 1), k(&mut s, 2));
            let x1 = s.app(Op::Eq, &[x, one]).unwrap();
            let y2 = s.app(Op::Eq, &[y, two]).unwrap();
            let x2 = s.app(Op::Eq, &[x, two]).unwrap();
            let mut z = Z3Solver::new(None);
            for _ in 0..20 {
                assert_eq!(z.check(&s, &[x1, y2, x2]), SatResult::Unsat);
                let mut core = z.unsat_core().expect("a core");
                core.sort();
                let mut want = vec![x1, x2];
                want.sort();
                assert_eq!(core, want);
                assert!(matches!(z.check(&s, &[x1, y2]), SatResult::Sat(_)));
            }
            drop(z);
            assert!(CONTEXT.with(Slot::renew), "one context, renewed");
        })
        .join()
        .unwrap();
    }

    /// A thread's context is deleted only once no solver of its is alive;
    /// the interrupt a budget holds for it then does nothing, and the next
    /// solver makes a new context.
    #[test]
    fn a_renewed_context_is_made_again_and_its_old_interrupts_do_nothing() {
        std::thread::spawn(|| {
            let (budget, cancel) = braid_budget::Budget::unlimited().cancellable();
            let mut s = TermStore::new();
            let x = s.symbol_term("x", Sort::Bv(8));
            let seven = s.constant(Value::bv(8, 7));
            let c = [s.app(Op::Eq, &[x, seven]).unwrap()];
            let mut z = Z3Solver::new(None);
            z.set_budget(&budget);
            assert!(matches!(z.check(&s, &c), SatResult::Sat(_)));
            assert!(!CONTEXT.with(Slot::renew), "a solver of the context is alive");
            drop(z);
            assert!(CONTEXT.with(Slot::renew));
            assert!(!CONTEXT.with(Slot::renew), "no context left to renew");
            cancel.cancel();
            let mut z = Z3Solver::new(None);
            z.set_budget(&braid_budget::Budget::unlimited());
            assert!(matches!(z.check(&s, &c), SatResult::Sat(_)));
        })
        .join()
        .unwrap();
    }

    /// Z3's model completion gives a NaN's bits as 0; braid's model has
    /// the canonical NaN, which satisfies `x != x`.
    #[test]
    fn a_nan_in_a_model_is_a_nan() {
        let mut s = TermStore::new();
        for sort in [Sort::F32, Sort::F64] {
            let x = s.symbol_term(&format!("x{sort}"), sort);
            let nan = s.app(Op::Ne, &[x, x]).unwrap();
            let SatResult::Sat(m) = Z3Solver::new(Some(5000)).check(&s, &[nan]) else {
                panic!("a NaN exists")
            };
            assert_eq!(s.eval(nan, &m), Ok(Value::Bool(true)), "{m:?}");
        }
    }

    /// A question over bit-vectors whose slice on the kept solver runs out
    /// is answered by a fresh solver: unsat with the whole set as the core,
    /// or a model that satisfies it. The question is one of Kadane's (Table
    /// 1) that takes the kept solver well over a millisecond.
    #[test]
    fn a_fresh_solver_answers_past_the_kept_solvers_slice() {
        let mut s = TermStore::new();
        let a: Vec<TermId> = (0..6).map(|i| s.symbol_term(&format!("a{i}"), Sort::Bv(32))).collect();
        let (low, high) = (
            s.constant(Value::bv(32, -100i64 as u64)),
            s.constant(Value::bv(32, 100)),
        );
        let mut sums = vec![a[0]];
        for &x in &a[1..] {
            let last = *sums.last().unwrap();
            sums.push(s.app(Op::Add, &[last, x]).unwrap());
        }
        let mut c = Vec::new();
        for &x in &a {
            c.push(s.app(Op::Gt, &[x, low]).unwrap());
            c.push(s.app(Op::Lt, &[x, high]).unwrap());
        }
        let mut cmp = |op, x, y| c.push(s.app(op, &[x, y]).unwrap());
        cmp(Op::Lt, a[1], sums[1]);
        cmp(Op::Ge, a[0], sums[1]);
        cmp(Op::Lt, a[2], sums[2]);
        cmp(Op::Ge, a[0], sums[2]);
        cmp(Op::Lt, a[3], sums[3]);
        cmp(Op::Lt, a[0], sums[3]);
        cmp(Op::Lt, a[4], sums[4]);
        cmp(Op::Ge, a[5], sums[5]);
        cmp(Op::Lt, sums[3], sums[4]);
        let mut z = Z3Solver::new(Some(20_000));
        z.kept_first = Duration::ZERO;
        assert_eq!(z.check(&s, &c), SatResult::Unsat);
        assert_eq!(
            z.unsat_core().map(|core| core.len()),
            Some(c.len()),
            "the fresh solver's core"
        );
        // Without the last comparison it is satisfiable.
        c.pop();
        let SatResult::Sat(m) = z.check(&s, &c) else {
            panic!("satisfiable")
        };
        for t in c {
            assert_eq!(s.eval(t, &m), Ok(Value::Bool(true)));
        }
    }

    /// A question over bit-vectors that Z3 4.8.12 leaves without an answer
    /// past its kept solver's slice and a fresh solver's second (13 digits
    /// read as a decimal number, `10 * v + c - '0'`, each prefix at most
    /// 65 535 and the whole negative: bench/muse/pgm.c's header) is raced
    /// by the helper, which decides it (unsat, the whole set the core).
    #[test]
    fn the_helper_decides_a_question_over_bits_z3_is_slow_on() {
        let mut s = TermStore::new();
        let k = |s: &mut TermStore, v: i64| s.constant(Value::bv(32, v as u64));
        let (zero, nine, max, ten) = (
            k(&mut s, '0' as i64),
            k(&mut s, '9' as i64),
            k(&mut s, 65535),
            k(&mut s, 10),
        );
        let mut c = Vec::new();
        let mut v = None;
        for i in 0..13 {
            let b = s.symbol_term(&format!("b{i}"), Sort::Bv(8));
            let w = s.app(Op::ZExt(32), &[b]).unwrap();
            c.push(s.app(Op::Ge, &[w, zero]).unwrap());
            c.push(s.app(Op::Le, &[w, nine]).unwrap());
            let d = s.app(Op::Sub, &[w, zero]).unwrap();
            let next = match v {
                None => d,
                Some(v) => {
                    let tens = s.app(Op::Mul, &[v, ten]).unwrap();
                    s.app(Op::Add, &[tens, d]).unwrap()
                }
            };
            if i < 12 {
                c.push(s.app(Op::Le, &[next, max]).unwrap());
            } else {
                let nought = k(&mut s, 0);
                c.push(s.app(Op::Lt, &[next, nought]).unwrap());
            }
            v = Some(next);
        }
        let Some(helper) = Helper::bitwuzla() else {
            panic!("Bitwuzla's environment (scripts/install-deps.sh makes it)")
        };
        let mut z = Z3Solver::new(Some(20_000));
        z.kept_first = Duration::from_millis(1);
        z.set_helper(Some(helper));
        assert_eq!(z.check(&s, &c), SatResult::Unsat);
        assert!(z.helper_answered(), "Z3 answered first");
        assert_eq!(z.unsat_core().map(|core| core.len()), Some(c.len()));
        // Without the last bound it is satisfiable, and the model (Z3's or
        // the helper's) satisfies it.
        c.pop();
        let SatResult::Sat(m) = z.check(&s, &c) else {
            panic!("satisfiable")
        };
        for t in c {
            assert_eq!(s.eval(t, &m), Ok(Value::Bool(true)));
        }
    }

    #[test]
    fn parses_z3_integers() {
        assert_eq!(parse_z3_int("(- 12)"), Some(-12));
        assert_eq!(parse_z3_int("170141183460469231731687303715884105727"), Some(i128::MAX));
    }
}
