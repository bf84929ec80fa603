//! Running an engine's state ahead in the interpreter: the mode switch
//! S2E makes between symbolic and concrete execution. A state whose next
//! statements compute on machine values alone needs no terms, no solver
//! and no forks; the interpreter runs them at its own speed and hands the
//! state back as soon as the engine has something to do:
//!
//! - an operation reads a value the engine holds as a term (the state's
//!   symbolic values travel as placeholders, [`placeholder`], which copies,
//!   selects and whole-cell loads and stores move but nothing computes on);
//! - a bug, which the engine finds and reports itself;
//! - an input, an allocation, an assertion, the end of the program — any
//!   statement but a call or a return;
//! - a loop head that loop-head merging still watches (`pass` says no);
//! - the step limit, or the budget.
//!
//! The state comes in at the start of an instruction of [`Code::for_engines`]
//! and goes back at the start of one: that code is fused, not rewritten,
//! so the frame there is the one the IR would have, and the engine goes on
//! from exactly the state the IR would have reached.

use super::{Cells, Code, Fast, Flow, Frame, Machine};
use crate::results::Branch;
use braid_budget::Budget;
use braid_ir::{FuncId, Module, Stmt, StmtIdx, VarId};
use braid_term::Value;
use rustc_hash::FxHashMap;

/// The function index that marks a placeholder.
const HELD: u32 = u32::MAX;

/// The value standing for the engine's term `term` while the state runs
/// ahead.
pub(crate) fn placeholder(term: u32) -> Value {
    Value::Label {
        func: HELD,
        label: term,
    }
}

/// The term a placeholder stands for.
pub(crate) fn term_of(v: &Value) -> Option<u32> {
    match *v {
        Value::Label { func: HELD, label } => Some(label),
        _ => None,
    }
}

#[inline]
pub(crate) fn held(v: &Value) -> bool {
    matches!(v, Value::Label { func: HELD, .. })
}

#[inline]
pub(crate) fn held_either(a: &Value, b: &Value) -> bool {
    held(a) || held(b)
}

/// Statements one hand-over may run before the engine looks at its other
/// states again.
pub(crate) const MAX_STEPS: u64 = 1 << 24;
/// A run shorter than this did not pay for its conversions: wait longer
/// before the next one.
const WORTH: u64 = 1 << 12;

/// When an engine hands a state over: at once at first; after a run that
/// did not pay, only once the engine has run twice as many statements as it
/// waited the last time (128 up to 2^20), after one that did, 64.
pub(crate) struct Pacing {
    wait: u64,
    backoff: u64,
    /// Never wait.
    eager: bool,
    /// Hand-overs, the statements they ran, and the time they took, from
    /// the first conversion to the last value taken back (statistics).
    pub runs: u64,
    pub steps: u64,
    pub time: std::time::Duration,
}

impl Pacing {
    /// `eager` hands a state over at every chance (for tests).
    pub fn new(eager: bool) -> Pacing {
        Pacing {
            wait: 0,
            backoff: 64,
            eager,
            runs: 0,
            steps: 0,
            time: std::time::Duration::ZERO,
        }
    }

    /// Whether the wait is over (counting one engine step down if not).
    pub fn due(&mut self) -> bool {
        if self.wait > 0 {
            self.wait -= 1;
            return false;
        }
        true
    }

    /// Records a hand-over that ran `steps` statements.
    pub fn ran(&mut self, steps: u64) {
        self.runs += 1;
        self.steps += steps;
        if self.eager {
            return;
        }
        if steps < WORTH {
            self.backoff = (self.backoff * 2).min(1 << 20);
        } else {
            self.backoff = 64;
        }
        self.wait = self.backoff;
    }
}

/// Whether control may go on past a loop head, given every frame's
/// function and statement (the top frame's at the head).
pub(crate) type PassHead<'a> = dyn FnMut(&[(FuncId, StmtIdx)]) -> bool + 'a;

/// A frame as the engine hands it over and gets it back: its variables'
/// values (placeholders for terms), or all its slots (the variables, then
/// the function's constants: [`Code`]'s layout), which the machine runs on
/// without a copy.
pub(crate) struct AheadFrame {
    pub func: FuncId,
    pub at: StmtIdx,
    pub vars: Vec<Value>,
    pub ret_dst: Option<VarId>,
}

/// The state handed back.
pub(crate) struct Handed {
    pub frames: Vec<AheadFrame>,
    pub memory: Vec<Cells>,
    /// Per allocation handed over, a bit per [`super::WRITTEN_PAGE`] cells
    /// the run may have written ([`super::marked`]); pages without one
    /// hold what they held.
    pub written: Vec<Vec<u64>>,
    /// Statements run ahead.
    pub steps: u64,
    /// The fewest frames the run had: frames below it are the ones handed
    /// over (the one at `min_depth - 1` with new values, perhaps).
    pub min_depth: usize,
    /// Branch outcomes the run took.
    pub covered: Vec<Branch>,
}

/// Runs `frames` over `memory` ahead for at most about [`MAX_STEPS`]
/// statements (see the module doc). `pass` says whether control may go on
/// past a loop head, given every frame's function and statement (the top
/// frame's at the head). `slots`: frames come back with all their slots
/// (else their variables only).
pub(crate) fn run_ahead(
    module: &Module,
    code: &Code,
    frames: Vec<AheadFrame>,
    memory: Vec<Cells>,
    budget: &Budget,
    pass: &mut PassHead,
    slots: bool,
) -> Handed {
    const CHECK_EVERY: u64 = 4096;
    let mut m = Machine::new(module, code, FxHashMap::default());
    m.written = Some(
        memory
            .iter()
            .map(|c| vec![0; c.len().div_ceil(super::WRITTEN_PAGE * 64)])
            .collect(),
    );
    m.memory = memory;
    for fr in frames {
        let all = &code.func(module, fr.func).slots;
        let vars = if fr.vars.len() == all.len() {
            fr.vars
        } else {
            let mut vars = all.clone();
            vars[..fr.vars.len()].copy_from_slice(&fr.vars);
            vars
        };
        m.frames.push(Frame {
            func: fr.func,
            at: fr.at,
            vars,
            ret_dst: fr.ret_dst,
        });
    }
    let mut steps = 0;
    let mut min_depth = m.frames.len();
    let mut check_at = CHECK_EVERY;
    while steps < MAX_STEPS {
        if steps >= check_at {
            check_at = steps + CHECK_EVERY;
            if budget.stopped() {
                break;
            }
        }
        let limit = check_at.min(MAX_STEPS);
        match m.run_fast::<true>(&mut steps, limit, pass) {
            Fast::Handed | Fast::Ended(_) => break,
            Fast::Paused if steps >= limit => continue,
            Fast::Paused => {}
        }
        // At a statement the IR runs: calls and returns (but the entry's)
        // go on here, the rest is the engine's.
        let frame = m.frames.last().expect("a running machine has a frame");
        let depth = m.frames.len();
        let goes_on = match module.func(frame.func).stmts.get(frame.at as usize) {
            Some(Stmt::Call { .. }) => true,
            Some(Stmt::Ret(_)) | None => depth > 1,
            _ => false,
        };
        if !goes_on {
            break;
        }
        match m.step() {
            Flow::Stay => {
                steps += 1;
                min_depth = min_depth.min(m.frames.len());
            }
            // A call that fails (a bug) changed nothing: the engine finds it.
            Flow::Done(_) | Flow::Next | Flow::Jump(_) => break,
        }
    }
    let covered = m
        .covered
        .iter()
        .enumerate()
        .flat_map(|(f, bits)| {
            // Set bits only: a program's functions have tens of thousands
            // of statements, and a hand-over covers a few.
            super::set_bits(bits).map(move |b| (FuncId(f as u32), (b / 2) as StmtIdx, b % 2 == 1))
        })
        .collect();
    let frames = m
        .frames
        .into_iter()
        .map(|mut fr| {
            if !slots {
                fr.vars.truncate(module.func(fr.func).vars.len());
            }
            AheadFrame {
                func: fr.func,
                at: fr.at,
                vars: fr.vars,
                ret_dst: fr.ret_dst,
            }
        })
        .collect();
    Handed {
        frames,
        written: m.written.unwrap_or_default(),
        memory: m.memory,
        steps,
        min_depth,
        covered,
    }
}
