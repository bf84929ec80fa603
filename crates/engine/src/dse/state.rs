//! One path's state in the forking engine.

use crate::results::Branch;
use braid_ir::{FuncId, StmtIdx as At, VarId};
use braid_term::{Model, Sort, TermId, TermStore};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::rc::Rc;

#[derive(Clone)]
pub(crate) struct Frame {
    pub func: FuncId,
    pub at: At,
    pub vars: Vec<TermId>,
    pub ret_dst: Option<VarId>,
    /// Jumps to each loop head in this call (for the loop bound, and the
    /// iterations of state merging's topological order).
    pub visits: FxHashMap<At, u32>,
}

/// One merge a state went through: the condition selecting the first merged
/// state's side (its values in every `ite(cond, …)` the merge made), where
/// it happened, a model of the other side when it was merged, and the
/// merges the other side was made of (the first side's are the ones before
/// this one), so that each part of a split keeps its own.
#[derive(Clone)]
pub(crate) struct Merge {
    pub cond: TermId,
    pub location: u64,
    pub other: Rc<Model>,
    pub other_merges: Rc<[Merge]>,
    /// The path conditions the two sides had: the merged state's path is
    /// their common prefix of length `common`, their disjunction (unless it
    /// is true), `merged_len` conjuncts in all, and what came after.
    pub common: usize,
    pub merged_len: usize,
    pub own_path: Rc<[TermId]>,
    pub other_path: Rc<[TermId]>,
}

/// Paths merged into a state that may still need a test of their own: the
/// branches they covered first (which no test is yet known to cover) and
/// the condition selecting them within the merged path condition.
#[derive(Clone)]
pub(crate) struct Alt {
    pub cond: TermId,
    pub fresh: Vec<Branch>,
    /// The model the path had when it was merged.
    pub model: Rc<Model>,
}

#[derive(Clone)]
pub(crate) struct State {
    pub frames: Vec<Frame>,
    /// Allocations, shared between forks until written (a page at a time).
    pub memory: Vec<Rc<Cells>>,
    /// The path condition, as a list of conjuncts.
    pub path: Vec<TermId>,
    /// A model of `path` (symbols it leaves out take default values),
    /// shared between forks until one of them changes it.
    pub model: Rc<Model>,
    /// Symbolic inputs in the order the path reads them.
    pub inputs: Inputs,
    pub input_counts: FxHashMap<String, u32>,
    pub steps_since_cover: u64,
    /// How many paths this state stands for (seed 004): merging adds the
    /// merged states' multiplicities, and each part of a fork keeps its
    /// parent's (an over-estimate: a fork splits the merged paths between
    /// its parts, which are not counted).
    pub multiplicity: u64,
    /// Branches this state covered first since it was last merged (state
    /// merging only; a test of this state covers them).
    pub fresh: Vec<Branch>,
    /// Merged-in paths that may need their own test (state merging only).
    pub alts: Vec<Alt>,
    /// The merges this state is made of, last made last (state merging).
    pub merges: Vec<Merge>,
    /// Dynamic state merging: the `(location, store)` hashes of this state
    /// at its last block starts, newest last (its recent predecessors).
    pub history: VecDeque<(u64, u64)>,
    /// The hashes at the block start the state is at, if it is at one.
    pub current: Option<(u64, u64)>,
    /// Being fast-forwarded towards a merge (dynamic state merging).
    pub forwarding: bool,
    /// The values of QCE's hot items at the block start the state waits at
    /// (set when it arrives there), for similarity checks.
    pub signature: Option<std::rc::Rc<[super::merging::Sig]>>,
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
            model: Rc::default(),
            inputs: Inputs::default(),
            input_counts: FxHashMap::default(),
            steps_since_cover: 0,
            multiplicity: 1,
            fresh: Vec::new(),
            alts: Vec::new(),
            merges: Vec::new(),
            history: VecDeque::new(),
            current: None,
            forwarding: false,
            signature: None,
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
        let sym = braid_ir::input_name(name, *k);
        *k += 1;
        let t = store.symbol_term(&sym, sort);
        self.inputs.push(t);
        t
    }

    /// Adds `cond` to the path condition; `model` satisfies the constraints
    /// sharing symbols with it and overrides the old model there.
    pub fn assume(&mut self, store: &TermStore, cond: TermId, model: Model) {
        if !store.is_true(cond) {
            self.path.push(cond);
        }
        // A model the state already agrees with (its own, reused by the
        // solver layer) changes nothing: the shared one stays shared.
        let changed = model.iter().any(|(s, v)| self.model.get(s) != Some(v));
        if changed {
            Rc::make_mut(&mut self.model).extend(model);
        }
        // (The whole path when the model changed, else the new condition:
        // checking the whole path at every branch made a long run's checks
        // quadratic.)
        let checked = if changed {
            &self.path[..]
        } else {
            &self.path[self.path.len().saturating_sub(1)..]
        };
        debug_assert!(
            checked
                .iter()
                .all(|c| store.eval(*c, &self.model) == Ok(braid_term::Value::Bool(true))),
            "the state's model satisfies its path condition"
        );
    }
}

/// The inputs a path read, in order: a list whose prefix forks share, so a
/// fork copies nothing (long input loops fork at every read).
#[derive(Clone, Default)]
pub(crate) struct Inputs {
    last: Option<Rc<InputNode>>,
    len: usize,
}

struct InputNode {
    term: TermId,
    prev: Option<Rc<InputNode>>,
}

impl Inputs {
    pub fn push(&mut self, term: TermId) {
        let prev = self.last.take();
        self.last = Some(Rc::new(InputNode { term, prev }));
        self.len += 1;
    }

    /// The input symbols (terms), first read first.
    pub fn terms(&self) -> Vec<TermId> {
        let mut out = Vec::with_capacity(self.len);
        let mut at = self.last.as_ref();
        while let Some(n) = at {
            out.push(n.term);
            at = n.prev.as_ref();
        }
        out.reverse();
        out
    }
}

impl PartialEq for Inputs {
    /// Same inputs in the same order; a shared tail is compared at once.
    fn eq(&self, other: &Inputs) -> bool {
        if self.len != other.len {
            return false;
        }
        let (mut a, mut b) = (self.last.as_ref(), other.last.as_ref());
        loop {
            match (a, b) {
                (Some(x), Some(y)) if Rc::ptr_eq(x, y) => return true,
                (Some(x), Some(y)) if x.term == y.term => {
                    a = x.prev.as_ref();
                    b = y.prev.as_ref();
                }
                (None, None) => return true,
                _ => return false,
            }
        }
    }
}

/// Cells per page of [`Cells`].
pub(crate) const PAGE: usize = 1024;
/// Pages per directory of [`Cells`].
pub(crate) const DIR: usize = 64;

type Page = Rc<Vec<TermId>>;
type Dir = Rc<Vec<Page>>;

/// Pages already mapped by [`Cells::map`], by address: the page (which keeps
/// the address from being reused) and its image.
pub(crate) type PageMemo = FxHashMap<*const Vec<TermId>, (Rc<Vec<TermId>>, Rc<Vec<TermId>>)>;

/// An allocation's cells in pages that states share until one writes: a
/// fork that writes one cell of a WebAssembly memory copies one page of it
/// and one directory of page pointers (`DIR` pages), not all of it. Pages
/// of an allocation made with one value start as one shared page, so an
/// 8 MiB stack costs its directories and the pages written.
#[derive(Clone, Debug)]
pub(crate) struct Cells {
    dirs: Vec<Dir>,
    len: usize,
}

impl PartialEq for Cells {
    /// Same cells; shared directories and pages compare at once.
    fn eq(&self, other: &Cells) -> bool {
        self.len == other.len
            && self
                .dirs
                .iter()
                .zip(&other.dirs)
                .all(|(a, b)| Rc::ptr_eq(a, b) || a.iter().zip(b.iter()).all(|(p, q)| Rc::ptr_eq(p, q) || p == q))
    }
}

impl std::ops::Index<usize> for Cells {
    type Output = TermId;

    fn index(&self, i: usize) -> &TermId {
        assert!(i < self.len, "cell {i} of {}", self.len);
        &self.dirs[i / (PAGE * DIR)][i / PAGE % DIR][i % PAGE]
    }
}

impl Cells {
    pub fn new(fill: TermId, len: usize) -> Cells {
        let full = Rc::new(vec![fill; PAGE]);
        let mut pages = vec![full; len / PAGE];
        if !len.is_multiple_of(PAGE) {
            pages.push(Rc::new(vec![fill; len % PAGE]));
        }
        Cells::from_pages(pages, len)
    }

    /// Cells from their pages (every page full but the last).
    pub fn from_pages(pages: Vec<Rc<Vec<TermId>>>, len: usize) -> Cells {
        debug_assert_eq!(pages.iter().map(|p| p.len()).sum::<usize>(), len);
        // Directories of one page repeated (an allocation's fill) are one.
        let mut dirs: Vec<Dir> = Vec::with_capacity(pages.len().div_ceil(DIR));
        for chunk in pages.chunks(DIR) {
            match dirs.last() {
                Some(d) if d.len() == chunk.len() && d.iter().zip(chunk).all(|(p, q)| Rc::ptr_eq(p, q)) => {
                    let d = d.clone();
                    dirs.push(d)
                }
                _ => dirs.push(Rc::new(chunk.to_vec())),
            }
        }
        Cells { dirs, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The pages in order (states that share a page hold the same `Rc`).
    pub fn pages(&self) -> impl Iterator<Item = &Rc<Vec<TermId>>> + '_ {
        self.dirs.iter().flat_map(|d| d.iter())
    }

    /// The directories in order, each [`DIR`] pages (states that share
    /// one hold the same `Rc`, and then all its pages).
    pub fn dirs(&self) -> &[Rc<Vec<Rc<Vec<TermId>>>>] {
        &self.dirs
    }

    /// Page `k`.
    pub fn page(&self, k: usize) -> &Rc<Vec<TermId>> {
        &self.dirs[k / DIR][k % DIR]
    }

    pub fn get(&self, i: usize) -> Option<TermId> {
        (i < self.len).then(|| self[i])
    }

    /// Makes page `k` `page` (of the length it had).
    pub fn set_page(&mut self, k: usize, page: Rc<Vec<TermId>>) {
        debug_assert_eq!(self.page(k).len(), page.len());
        Rc::make_mut(&mut self.dirs[k / DIR])[k % DIR] = page;
    }

    pub fn set(&mut self, i: usize, v: TermId) {
        if self[i] != v {
            let dir = Rc::make_mut(&mut self.dirs[i / (PAGE * DIR)]);
            Rc::make_mut(&mut dir[i / PAGE % DIR])[i % PAGE] = v;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = TermId> + '_ {
        self.pages().flat_map(|p| p.iter().copied())
    }

    /// The cells with `n` more holding `fill`.
    pub fn grow(&mut self, n: usize, fill: TermId) {
        let mut pages: Vec<Page> = self.pages().cloned().collect();
        let mut cells: Vec<TermId> = Vec::new();
        if !self.len.is_multiple_of(PAGE) {
            let last = pages.pop().expect("a partial last page");
            cells.extend(last.iter().copied());
        }
        let full = Rc::new(vec![fill; PAGE]);
        let mut left = n;
        while !cells.is_empty() && cells.len() < PAGE && left > 0 {
            cells.push(fill);
            left -= 1;
        }
        if !cells.is_empty() {
            pages.push(Rc::new(cells));
        }
        pages.extend(std::iter::repeat_n(full, left / PAGE));
        if !left.is_multiple_of(PAGE) {
            pages.push(Rc::new(vec![fill; left % PAGE]));
        }
        *self = Cells::from_pages(pages, self.len + n);
    }

    /// Whether `self` and `other` share every page (no cell can differ).
    pub fn shares_all(&self, other: &Cells) -> bool {
        self.len == other.len
            && self
                .dirs
                .iter()
                .zip(&other.dirs)
                .all(|(a, b)| Rc::ptr_eq(a, b) || a.iter().zip(b.iter()).all(|(p, q)| Rc::ptr_eq(p, q)))
    }

    /// The pairs of pages of `self` and `other` (of one length) that are
    /// not shared.
    pub fn unshared<'a>(&'a self, other: &'a Cells) -> impl Iterator<Item = (&'a Page, &'a Page)> + 'a {
        self.dirs
            .iter()
            .zip(&other.dirs)
            .filter(|(a, b)| !Rc::ptr_eq(a, b))
            .flat_map(|(a, b)| a.iter().zip(b.iter()).filter(|(p, q)| !Rc::ptr_eq(p, q)))
    }

    /// `f` of the cells of `self` and `other` (of one length), page by
    /// page; pages the two share stay shared.
    pub fn zip_with(&self, other: &Cells, mut f: impl FnMut(TermId, TermId) -> Option<TermId>) -> Option<Cells> {
        let mut dirs = Vec::with_capacity(self.dirs.len());
        for (a, b) in self.dirs.iter().zip(&other.dirs) {
            if Rc::ptr_eq(a, b) {
                dirs.push(a.clone());
                continue;
            }
            let mut pages = Vec::with_capacity(a.len());
            for (p, q) in a.iter().zip(b.iter()) {
                if Rc::ptr_eq(p, q) {
                    pages.push(p.clone());
                    continue;
                }
                let cells: Option<Vec<TermId>> = p.iter().zip(q.iter()).map(|(a, b)| f(*a, *b)).collect();
                pages.push(Rc::new(cells?));
            }
            dirs.push(Rc::new(pages));
        }
        Some(Cells { dirs, len: self.len })
    }

    /// The cells page by page, with `f` applied; pages `f` leaves as they
    /// are stay shared.
    /// A page met before (in `done`: an allocation starts as one page
    /// shared throughout) is mapped once; `f` must give the same for the
    /// same cell.
    pub fn map(&self, done: &mut PageMemo, mut f: impl FnMut(TermId) -> Option<TermId>) -> Option<Cells> {
        let mut dirs = Vec::with_capacity(self.dirs.len());
        for d in &self.dirs {
            let mut pages = Vec::with_capacity(d.len());
            for p in d.iter() {
                if let Some((_, q)) = done.get(&Rc::as_ptr(p)) {
                    pages.push(q.clone());
                    continue;
                }
                let mut new: Option<Vec<TermId>> = None;
                for (i, c) in p.iter().enumerate() {
                    let d = f(*c)?;
                    if d != *c {
                        new.get_or_insert_with(|| p.to_vec())[i] = d;
                    }
                }
                let q = new.map_or_else(|| p.clone(), Rc::new);
                done.insert(Rc::as_ptr(p), (p.clone(), q.clone()));
                pages.push(q);
            }
            let same = pages.iter().zip(d.iter()).all(|(p, q)| Rc::ptr_eq(p, q));
            dirs.push(if same { d.clone() } else { Rc::new(pages) });
        }
        Some(Cells { dirs, len: self.len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells in directories of pages against a plain vector, under growth
    /// from a partial last page, writes, page replacement and sharing.
    #[test]
    fn paged_cells_are_the_cells_a_vector_holds() {
        let (zero, one, two) = (TermId(0), TermId(1), TermId(2));
        let n = 3 * PAGE * DIR + 17;
        let mut cells = Cells::new(zero, n);
        let mut plain = vec![zero; n];
        // One page of one value: every full directory is the same one.
        assert!(Rc::ptr_eq(&cells.dirs[0], &cells.dirs[1]));
        let before = cells.clone();
        for i in [0, PAGE - 1, PAGE * DIR, n - 1] {
            cells.set(i, one);
            plain[i] = one;
        }
        assert!(
            Rc::ptr_eq(&before.dirs[2], &cells.dirs[2]),
            "an untouched directory stays shared"
        );
        assert_eq!(cells.unshared(&before).count(), 3);
        assert!(!cells.shares_all(&before) && cells != before);
        cells.grow(PAGE + 5, two);
        plain.resize(n + PAGE + 5, two);
        cells.set_page(1, Rc::new(vec![one; PAGE]));
        plain[PAGE..2 * PAGE].iter_mut().for_each(|c| *c = one);
        assert_eq!(cells.len(), plain.len());
        assert!(cells.iter().eq(plain.iter().copied()));
        assert!(plain.iter().enumerate().all(|(i, c)| cells.get(i) == Some(*c)));
        assert_eq!(cells.get(plain.len()), None);
        let rebuilt = Cells::from_pages(cells.pages().cloned().collect(), cells.len());
        assert!(rebuilt == cells && rebuilt.shares_all(&cells));
    }
}
