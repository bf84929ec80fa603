//! One path's state in the forking engine.

use braid_ir::{FuncId, StmtIdx as At, VarId};
use braid_term::{Model, Sort, TermId, TermStore};
use rustc_hash::FxHashMap;
use std::rc::Rc;

#[derive(Clone)]
pub(crate) struct Frame {
    pub func: FuncId,
    pub at: At,
    pub vars: Vec<TermId>,
    pub ret_dst: Option<VarId>,
    /// Jumps to each statement in this call (for the loop bound).
    pub visits: FxHashMap<At, u32>,
}

#[derive(Clone)]
pub(crate) struct State {
    pub frames: Vec<Frame>,
    /// Allocations, shared between forks until written.
    pub memory: Vec<Rc<Vec<TermId>>>,
    /// The path condition, as a list of conjuncts.
    pub path: Vec<TermId>,
    /// A model of `path` (symbols it leaves out take default values).
    pub model: Model,
    /// Symbolic inputs in the order the path reads them.
    pub inputs: Vec<(String, TermId)>,
    input_counts: FxHashMap<String, u32>,
    pub steps_since_cover: u64,
}

impl State {
    pub fn new(entry: FuncId, vars: usize, undef: TermId) -> State {
        State {
            frames: vec![Frame {
                func: entry,
                at: 0,
                vars: vec![undef; vars],
                ret_dst: None,
                visits: FxHashMap::default(),
            }],
            memory: Vec::new(),
            path: Vec::new(),
            model: Model::default(),
            inputs: Vec::new(),
            input_counts: FxHashMap::default(),
            steps_since_cover: 0,
        }
    }

    pub fn top(&self) -> &Frame {
        self.frames.last().expect("a live state has a frame")
    }

    pub fn top_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a live state has a frame")
    }

    pub fn set(&mut self, v: VarId, t: TermId) {
        self.top_mut().vars[v.0 as usize] = t;
    }

    /// A fresh symbolic input. The k-th read of `name` on a path is the
    /// symbol `name#k` (the first is plain `name`), so paths sharing a prefix
    /// share its symbols.
    pub fn fresh_input(&mut self, store: &mut TermStore, name: &str, sort: Sort) -> TermId {
        let k = self.input_counts.entry(name.to_string()).or_insert(0);
        let sym = if *k == 0 {
            name.to_string()
        } else {
            format!("{name}#{k}")
        };
        *k += 1;
        let t = store.symbol_term(&sym, sort);
        self.inputs.push((sym, t));
        t
    }

    /// Adds `cond` to the path condition; `model` satisfies the constraints
    /// sharing symbols with it and overrides the old model there.
    pub fn assume(&mut self, store: &TermStore, cond: TermId, model: Model) {
        if !store.is_true(cond) {
            self.path.push(cond);
        }
        self.model.extend(model);
        debug_assert!(
            self.path
                .iter()
                .all(|c| store.eval(*c, &self.model) == Ok(braid_term::Value::Bool(true))),
            "the state's model satisfies its path condition"
        );
    }
}
