//! The forking engine's side of running ahead ([`crate::concrete::ahead`]):
//! when a state is handed to the interpreter, and its frames and memory
//! turned into machine values and back. Memory goes page by page through a
//! cache of converted pages, so a state whose pages did not change costs a
//! copy of bytes, and a page the run did not write comes back as the same
//! shared page.

use super::state::{Cells, State, PAGE};
use crate::concrete::ahead::{placeholder, run_ahead, term_of, AheadFrame, Handed, Pacing, PassHead};
use crate::concrete::{marked, Cells as Machine, CellsBuilder, Code};
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

pub(crate) struct Ahead {
    code: Code,
    /// The frames the last hand-over gave back, bottom first.
    kept: Vec<KeptFrame>,
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
        let conv = Rc::new(match bytes {
            Some(b) if b.iter().all(|x| *x == 0) => Page::Zero(b.len()),
            Some(b) => Page::Bytes(b),
            None => Page::Values(page.iter().map(|t| value_of(store, *t)).collect()),
        });
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
        self.pages.insert(key, (page.clone(), conv.clone()));
        conv
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
        let originals: Vec<Vec<Rc<Page>>> = st
            .memory
            .iter()
            .map(|cells| cells.pages().map(|p| self.page(store, p)).collect())
            .collect();
        let memory = originals
            .iter()
            .zip(&st.memory)
            .map(|(pages, cells)| machine_cells(pages, cells.len()))
            .collect();
        let mut handed = run_ahead(module, &self.code, frames, memory, budget, pass, true);
        self.pacing.ran(handed.steps);
        if handed.steps == 0 {
            self.pacing.time += start.elapsed();
            return None;
        }
        self.take_back(module, store, st, &mut handed, &originals, &before);
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
        originals: &[Vec<Rc<Page>>],
        before: &[Vec<Value>],
    ) {
        let term = |store: &mut TermStore, v: &Value| match term_of(v) {
            Some(t) => TermId(t),
            None => store.constant(*v),
        };
        let old = std::mem::take(&mut st.frames);
        let mut frames = Vec::with_capacity(handed.frames.len());
        for (i, hf) in handed.frames.iter_mut().enumerate() {
            // A frame the run never returned from keeps its loop visits.
            let mut frame = match old.get(i) {
                Some(of) if i < handed.min_depth => of.clone(),
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
        st.memory = handed
            .memory
            .iter()
            .enumerate()
            .map(|(a, cells)| {
                let page = |me: &mut Self, store: &mut TermStore, k: usize| {
                    let (start, end) = (k * PAGE, ((k + 1) * PAGE).min(cells.len()));
                    let page: Vec<TermId> = (start..end)
                        .map(|i| term(store, &cells.get(i).unwrap_or(Value::Undef)))
                        .collect();
                    let page = Rc::new(page);
                    me.page(store, &page);
                    page
                };
                match (old_memory.get(a), originals.get(a), handed.written.get(a)) {
                    // Only pages the run wrote, and changed, are new.
                    (Some(c), Some(old_pages), Some(written)) if c.len() == cells.len() => {
                        let mut out = c.clone();
                        for (k, old) in old_pages.iter().enumerate().take(cells.len().div_ceil(PAGE)) {
                            let (start, end) = (k * PAGE, ((k + 1) * PAGE).min(cells.len()));
                            if !marked(written, k) || page_equals(old, cells, start, end) {
                                continue;
                            }
                            let p = page(self, store, k);
                            Rc::make_mut(&mut out).set_page(k, p);
                        }
                        out
                    }
                    _ => {
                        let pages = (0..cells.len().div_ceil(PAGE)).map(|k| page(self, store, k)).collect();
                        Rc::new(Cells::from_pages(pages, cells.len()))
                    }
                }
            })
            .collect();
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
