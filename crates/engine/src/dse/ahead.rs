//! The forking engine's side of running ahead ([`crate::concrete::ahead`]):
//! when a state is handed to the interpreter, and its frames and memory
//! turned into machine values and back. Memory goes page by page through a
//! cache of converted pages, and the machine's memory of the last hand-back
//! is kept: the next hand-over rewrites only the pages its state does not
//! share with that one. A page the run did not write comes back as the same
//! shared page.

use super::state::{Cells, State, DIR, PAGE};
use crate::concrete::ahead::{placeholder, run_ahead, term_of, AheadFrame, Handed, Pacing, PassHead};
use crate::concrete::{set_bits, Cells as Machine, CellsBuilder, Code};
use braid_budget::Budget;
use braid_ir::{FuncId, Module};
use braid_term::{TermId, TermStore, Value};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// Bytes of pages (a state's and its conversion) past which the cache drops
/// the pages no state holds. It held 32 768 pages, alive or not, up to 28 KB
/// each with a conversion to values: dse on a regex matcher grew to 914 MB
/// with 15 live states (52 MB with running ahead off).
const PAGE_CACHE_BYTES: usize = 64 << 20;

/// A page of zero bytes.
static ZEROS: [u8; PAGE] = [0; PAGE];

/// A page as machine values: bytes while every cell holds one (`Zero`:
/// that many zero bytes, which the interpreter's fresh memory holds).
enum Page {
    Zero(usize),
    Bytes(Vec<u8>),
    Values(Vec<Value>),
}

// A page the interpreter marks written is one page of the state's.
const _: () = assert!(PAGE == crate::concrete::WRITTEN_PAGE);

/// A frame as the last hand-over left it: its variables' terms and its
/// slots as machine values ([`AheadFrame`]), each the value of its term.
/// The next hand-over of a state in that function converts only the terms
/// that differ, and finds what the run changed by comparing slots, not by
/// looking every term up (http-parser's `http_parser_execute` has 19 000
/// variables; a concolic run over 4 bytes handed it over 11 000 times,
/// and converting it both ways took most of the runs' time).
struct KeptFrame {
    func: FuncId,
    terms: Vec<TermId>,
    slots: Vec<Value>,
}

/// An allocation as the last hand-back left it: the state's pages then
/// (held, so their addresses stay theirs), their conversions, and the
/// machine's cells, which hold what the pages do. The next hand-over of a
/// state writes over the cells only its pages that are not these (a regex
/// matcher over 8 bytes handed a 128 KiB memory over 42 000 times: building
/// it afresh each time, and looking each of its 128 pages up, took more
/// than the runs did).
struct KeptMemory {
    /// The state's directories then (equal ones hold equal pages).
    dirs: Vec<Rc<Vec<Rc<Vec<TermId>>>>>,
    pages: Vec<Rc<Vec<TermId>>>,
    convs: Vec<Rc<Page>>,
    /// `None` while the cells are the interpreter's.
    cells: Option<Machine>,
    len: usize,
}

pub(crate) struct Ahead {
    code: Code,
    /// The frames the last hand-over gave back, bottom first.
    kept: Vec<KeptFrame>,
    /// Per allocation, its memory as the last hand-back left it.
    memory: Vec<KeptMemory>,
    pub pacing: Pacing,
    /// Converted pages by address, holding the page so the address stays its.
    pages: FxHashMap<usize, (Rc<Vec<TermId>>, Rc<Page>)>,
    /// What `pages` holds, in bytes, and the size at which pages no state
    /// holds are dropped.
    bytes: usize,
    limit: usize,
}

/// The bytes a cached page and its conversion take.
fn cached_bytes(page: &[TermId], conv: &Page) -> usize {
    std::mem::size_of_val(page)
        + match conv {
            Page::Zero(_) => 0,
            Page::Bytes(b) => b.len(),
            Page::Values(v) => std::mem::size_of_val(v.as_slice()),
        }
}

impl Ahead {
    pub fn new(module: &Module, entry: FuncId, eager: bool) -> Ahead {
        Ahead {
            code: Code::for_engines(module, entry),
            kept: Vec::new(),
            memory: Vec::new(),
            pacing: Pacing::new(eager),
            pages: FxHashMap::default(),
            bytes: 0,
            limit: PAGE_CACHE_BYTES,
        }
    }

    /// Whether `st` goes to the interpreter now: its wait is over and its
    /// top frame is at the start of an instruction.
    pub fn due(&mut self, module: &Module, st: &State) -> bool {
        if !self.pacing.due() {
            return false;
        }
        let top = st.top();
        self.code.starts_at(module, top.func, top.at)
    }

    fn page(&mut self, store: &TermStore, page: &Rc<Vec<TermId>>) -> Rc<Page> {
        let key = Rc::as_ptr(page) as usize;
        if let Some((_, conv)) = self.pages.get(&key) {
            return conv.clone();
        }
        let bytes: Option<Vec<u8>> = page
            .iter()
            .map(|t| match store.as_const(*t) {
                Some(Value::Bv { width: 8, bits }) => Some(bits as u8),
                _ => None,
            })
            .collect();
        let conv = match bytes {
            Some(b) => bytes_page(b),
            None => Page::Values(page.iter().map(|t| value_of(store, *t)).collect()),
        };
        self.cache(page, conv)
    }

    /// Caches `conv` as `page`'s conversion.
    fn cache(&mut self, page: &Rc<Vec<TermId>>, conv: Page) -> Rc<Page> {
        let conv = Rc::new(conv);
        self.bytes += cached_bytes(page, &conv);
        if self.bytes > self.limit {
            // Pages no state holds any more go (the states' own pages are
            // alive anyway), and the next look is at twice what is left:
            // a look costs a pass over the cache.
            self.pages.retain(|_, (p, _)| Rc::strong_count(p) > 1);
            self.bytes =
                self.pages.values().map(|(p, c)| cached_bytes(p, c)).sum::<usize>() + cached_bytes(page, &conv);
            self.limit = PAGE_CACHE_BYTES.max(2 * self.bytes);
        }
        self.pages
            .insert(Rc::as_ptr(page) as usize, (page.clone(), conv.clone()));
        conv
    }

    /// Keeps `cells`, whose pages convert to `convs`, as allocation `a`'s
    /// (the machine's cells to come).
    fn keep(&mut self, a: usize, cells: &Cells, convs: Vec<Rc<Page>>) {
        let kept = KeptMemory {
            dirs: cells.dirs().to_vec(),
            pages: cells.pages().cloned().collect(),
            convs,
            cells: None,
            len: cells.len(),
        };
        match self.memory.get_mut(a) {
            Some(k) => *k = kept,
            None => self.memory.push(kept),
        }
    }

    /// Allocation `a` of a state, `cells`, as the machine's memory: the kept
    /// one with the pages that differ written over, else built afresh.
    fn hand_over_memory(&mut self, store: &TermStore, a: usize, cells: &Cells) -> Machine {
        let kept = self
            .memory
            .get_mut(a)
            .filter(|k| k.len == cells.len())
            .and_then(|k| k.cells.take());
        let Some(mut machine) = kept else {
            let convs: Vec<Rc<Page>> = cells.pages().map(|p| self.page(store, p)).collect();
            let machine = machine_cells(&convs, cells.len());
            self.keep(a, cells, convs);
            return machine;
        };
        for (d, dir) in cells.dirs().iter().enumerate() {
            if Rc::ptr_eq(dir, &self.memory[a].dirs[d]) {
                continue;
            }
            for (j, p) in dir.iter().enumerate() {
                let k = d * DIR + j;
                if Rc::ptr_eq(p, &self.memory[a].pages[k]) {
                    continue;
                }
                let conv = self.page(store, p);
                let start = k * PAGE;
                // (A fresh state's pages are new, and mostly zeros the
                // machine already holds.)
                match (&*conv, &*self.memory[a].convs[k]) {
                    _ if Rc::ptr_eq(&conv, &self.memory[a].convs[k]) => {}
                    (Page::Zero(_), Page::Zero(_)) => {}
                    (Page::Zero(n), _) => machine.put_bytes(start, &ZEROS[..*n]),
                    (Page::Bytes(b), _) => machine.put_bytes(start, b),
                    (Page::Values(v), _) => v.iter().enumerate().for_each(|(i, x)| machine.put(start + i, *x)),
                }
                let kept = &mut self.memory[a];
                kept.pages[k] = p.clone();
                kept.convs[k] = conv;
            }
            self.memory[a].dirs[d] = dir.clone();
        }
        machine
    }

    /// Runs `st` ahead; `None` (and `st` untouched) if the interpreter gave
    /// it back at once.
    pub fn run(
        &mut self,
        module: &Module,
        store: &mut TermStore,
        st: &mut State,
        budget: &Budget,
        pass: &mut PassHead,
    ) -> Option<Handed> {
        let start = std::time::Instant::now();
        let mut kept = std::mem::take(&mut self.kept);
        let frames: Vec<AheadFrame> = st
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let slots = match kept.get_mut(i) {
                    Some(k) if k.func == f.func && k.terms.len() == f.vars.len() => {
                        let mut slots = std::mem::take(&mut k.slots);
                        for (j, (t, was)) in f.vars.iter().zip(&k.terms).enumerate() {
                            if t != was {
                                slots[j] = value_of(store, *t);
                            }
                        }
                        slots
                    }
                    _ => {
                        let mut slots = self.code.slots(module, f.func).to_vec();
                        for (slot, t) in slots.iter_mut().zip(&f.vars) {
                            *slot = value_of(store, *t);
                        }
                        slots
                    }
                };
                AheadFrame {
                    func: f.func,
                    at: f.at,
                    vars: slots,
                    ret_dst: f.ret_dst,
                }
            })
            .collect();
        // The values handed over, to find what the run changed.
        let before: Vec<Vec<Value>> = frames
            .iter()
            .zip(&st.frames)
            .map(|(f, sf)| f.vars[..sf.vars.len()].to_vec())
            .collect();
        kept.clear();
        self.kept = kept;
        let memory = st
            .memory
            .iter()
            .enumerate()
            .map(|(a, cells)| self.hand_over_memory(store, a, cells))
            .collect();
        let mut handed = run_ahead(module, &self.code, frames, memory, budget, pass, true);
        self.pacing.ran(handed.steps);
        if handed.steps == 0 {
            for (kept, cells) in self.memory.iter_mut().zip(std::mem::take(&mut handed.memory)) {
                kept.cells = Some(cells);
            }
            self.pacing.time += start.elapsed();
            return None;
        }
        self.take_back(module, store, st, &mut handed, &before);
        self.pacing.time += start.elapsed();
        Some(handed)
    }

    /// Puts what the interpreter handed back into `st`: values equal to
    /// the ones it had keep their terms, and unchanged pages stay shared.
    fn take_back(
        &mut self,
        module: &Module,
        store: &mut TermStore,
        st: &mut State,
        handed: &mut Handed,
        before: &[Vec<Value>],
    ) {
        let term = |store: &mut TermStore, v: &Value| match term_of(v) {
            Some(t) => TermId(t),
            None => store.constant(*v),
        };
        let mut old = std::mem::take(&mut st.frames).into_iter();
        let mut frames = Vec::with_capacity(handed.frames.len());
        for (i, hf) in handed.frames.iter_mut().enumerate() {
            // A frame the run never returned from keeps its loop visits.
            let mut frame = match old.next() {
                Some(of) if i < handed.min_depth => of,
                _ => super::state::Frame {
                    func: hf.func,
                    at: hf.at,
                    vars: Vec::new(),
                    ret_dst: hf.ret_dst,
                    visits: FxHashMap::default(),
                },
            };
            frame.at = hf.at;
            let terms = std::mem::take(&mut frame.vars);
            let nvars = module.func(hf.func).vars.len();
            // A frame handed over: its terms whose values the run did not
            // change stay.
            let was = before.get(i).filter(|_| i < handed.min_depth);
            frame.vars = hf.vars[..nvars]
                .iter()
                .enumerate()
                .map(|(k, v)| match (terms.get(k), was.and_then(|w| w.get(k))) {
                    (Some(&t), Some(w)) if w == v => t,
                    _ => term(store, v),
                })
                .collect();
            self.kept.push(KeptFrame {
                func: hf.func,
                terms: frame.vars.clone(),
                slots: std::mem::take(&mut hf.vars),
            });
            frames.push(frame);
        }
        st.frames = frames;
        let old_memory = std::mem::take(&mut st.memory);
        let memory = std::mem::take(&mut handed.memory);
        st.memory = Vec::with_capacity(memory.len());
        for (a, cells) in memory.into_iter().enumerate() {
            let pages = cells.len().div_ceil(PAGE);
            let cell = |i: usize| cells.get(i).unwrap_or(Value::Undef);
            let cells_of = match (old_memory.get(a), handed.written.get(a)) {
                // Only pages the run wrote, and changed, are new; a new
                // page keeps the terms of the cells the run left as they were.
                (Some(c), Some(written)) if c.len() == cells.len() && self.memory[a].len == c.len() => {
                    let mut out = c.clone();
                    let mut changed = false;
                    for k in set_bits(written).take_while(|k| *k < pages) {
                        let (start, end) = (k * PAGE, ((k + 1) * PAGE).min(cells.len()));
                        let old = self.memory[a].convs[k].clone();
                        if page_equals(&old, &cells, start, end) {
                            continue;
                        }
                        let was = c.page(k);
                        let page: Vec<TermId> = (start..end)
                            .map(|i| {
                                let v = cell(i);
                                match old.get(i - start) == v {
                                    true => was[i - start],
                                    false => term(store, &v),
                                }
                            })
                            .collect();
                        let page = Rc::new(page);
                        let conv = self.converted(&page, &cells, start, end);
                        let kept = &mut self.memory[a];
                        kept.pages[k] = page.clone();
                        kept.convs[k] = conv;
                        Rc::make_mut(&mut out).set_page(k, page);
                        changed = true;
                    }
                    if changed {
                        self.memory[a].dirs = out.dirs().to_vec();
                    }
                    out
                }
                _ => {
                    let pages: Vec<Rc<Vec<TermId>>> = (0..pages)
                        .map(|k| {
                            let (start, end) = (k * PAGE, ((k + 1) * PAGE).min(cells.len()));
                            Rc::new((start..end).map(|i| term(store, &cell(i))).collect())
                        })
                        .collect();
                    let convs = pages
                        .iter()
                        .enumerate()
                        .map(|(k, p)| self.converted(p, &cells, k * PAGE, ((k + 1) * PAGE).min(cells.len())))
                        .collect();
                    let out = Rc::new(Cells::from_pages(pages, cells.len()));
                    self.keep(a, &out, convs);
                    out
                }
            };
            st.memory.push(cells_of);
            self.memory[a].cells = Some(cells);
        }
    }

    /// The conversion of `page`, new (so not in the cache), which holds
    /// what `cells[start..end]` does: from the cells, not the terms.
    fn converted(&mut self, page: &Rc<Vec<TermId>>, cells: &Machine, start: usize, end: usize) -> Rc<Page> {
        match cells.plain(start, end - start) {
            Some(b) => self.cache(page, bytes_page(b.to_vec())),
            None => {
                let conv = Page::Values((start..end).map(|i| cells.get(i).unwrap_or(Value::Undef)).collect());
                self.cache(page, conv)
            }
        }
    }
}

/// A page of bytes, `Zero` if they all are.
fn bytes_page(b: Vec<u8>) -> Page {
    match b.iter().all(|x| *x == 0) {
        true => Page::Zero(b.len()),
        false => Page::Bytes(b),
    }
}

impl Page {
    /// Cell `i`'s value.
    fn get(&self, i: usize) -> Value {
        match self {
            Page::Zero(_) => Value::bv(8, 0),
            Page::Bytes(b) => Value::bv(8, b[i] as u64),
            Page::Values(v) => v[i],
        }
    }
}

/// A term as a machine value: its constant, or a placeholder.
fn value_of(store: &TermStore, t: TermId) -> Value {
    store.as_const(t).unwrap_or_else(|| placeholder(t.0))
}

fn machine_cells(pages: &[Rc<Page>], len: usize) -> Machine {
    let mut out = CellsBuilder::new(len);
    for p in pages {
        match &**p {
            Page::Zero(n) => out.zeros(*n),
            Page::Bytes(b) => out.extend_bytes(b),
            Page::Values(v) => v.iter().for_each(|x| out.push(*x)),
        }
    }
    out.finish(len)
}

/// Whether cells `start..end` of `cells` hold what `page` does.
fn page_equals(page: &Page, cells: &Machine, start: usize, end: usize) -> bool {
    match (page, cells) {
        (Page::Zero(_), _) => match cells.plain(start, end - start) {
            Some(b) => b.iter().all(|x| *x == 0),
            None => (start..end).all(|i| cells.get(i) == Some(Value::bv(8, 0))),
        },
        (Page::Bytes(p), _) => match cells.plain(start, end - start) {
            Some(b) => b == &p[..],
            None => (start..end).all(|i| cells.get(i) == Some(Value::bv(8, p[i - start] as u64))),
        },
        (Page::Values(p), Machine::Values(v)) => p[..] == v[start..end],
        (Page::Values(p), _) => (start..end).all(|i| cells.get(i) == Some(p[i - start])),
    }
}
