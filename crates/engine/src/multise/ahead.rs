//! `multise`'s side of running ahead ([`crate::concrete::ahead`]): with one
//! `pc` entry, the frame is one path set under the entry's guard `φ`, and
//! the interpreter can run it. Each variable and memory cell goes over as
//! the one value its summary has under `φ` (a constant, or a placeholder for
//! a term), or, when it has several, as a placeholder for the summary
//! restricted to `φ`; nothing computes on either. What comes back is
//! written with `⊎_φ` where it changed, so the summaries are the ones the
//! statements would have left. The interpreter runs calls itself; a state
//! handed back inside a callee becomes the nested frames `multise`'s own
//! calls would have made (function-bounded, §4), each run to its exits.

use super::cells::PageView;
use super::{guarded_update, sole_in, Frame, Held, Multise, PcEntry, ValueSummary};
use crate::concrete::ahead::{placeholder, run_ahead, term_of, AheadFrame, Pacing};
use crate::concrete::{Cells, CellsBuilder, Code};
use crate::record::Recorder;
use braid_guard::Guard;
use braid_ir::{FuncId, Module, Stmt};
use braid_term::{TermId, Value};
use std::rc::Rc;

/// Cells per page of [`super::Allocation::bytes`]: the pages of
/// [`super::cells::Cells`].
pub(super) use super::cells::PAGE;

/// Placeholder labels at or past this bit stand for a summary (an index
/// into the hand-over's list), below it for a term.
const SUMMARY: u32 = 1 << 31;

pub(super) struct Ahead {
    code: Code,
    pub pacing: Pacing,
}

impl Ahead {
    pub fn new(module: &Module, entry: FuncId, eager: bool) -> Ahead {
        Ahead {
            code: Code::for_engines(module, entry),
            pacing: Pacing::new(eager),
        }
    }
}

/// What a hand-over sent: the summaries placeholders stand for, and each
/// allocation's cells as sent (`None`: not sent, its size under `φ` not
/// one number the cells hold).
struct Sent {
    summaries: Vec<ValueSummary>,
    /// Per allocation handed over (`None`: not, its size not one number),
    /// what each page went as.
    memory: Vec<Option<Vec<SentPage>>>,
}

/// A page of an allocation as it went to the interpreter.
enum SentPage {
    Bytes(Rc<[u8]>),
    /// Its cells' machine values (one for all, if the page is one summary).
    Values(Vec<Value>),
}

impl SentPage {
    /// The value cell `i` of the page went as.
    fn get(&self, i: usize) -> Value {
        match self {
            SentPage::Bytes(b) => Value::bv(8, b[i] as u64),
            SentPage::Values(v) => v[i % v.len()],
        }
    }
}

impl Multise<'_> {
    /// Runs the frame's one `pc` entry ahead in the interpreter if it is due
    /// (not under `--trace` or a loop bound, which counts loop heads);
    /// whether it ran.
    pub(super) fn run_ahead(&mut self, frame: &mut Frame, rec: &mut Recorder) -> bool {
        if self.opts.trace || self.config.limits.loop_bound.is_some() {
            return false;
        }
        let module = self.module;
        let Some(ahead) = self.ahead.as_mut() else {
            return false;
        };
        let [e] = frame.pc.as_slice() else { return false };
        if !ahead.pacing.due() || !ahead.code.starts_at(module, frame.func, e.at) {
            return false;
        }
        let (phi, at) = (e.guard, e.at);
        let start = std::time::Instant::now();
        let mut sent = Sent {
            summaries: Vec::new(),
            memory: Vec::with_capacity(self.memory.len()),
        };
        let vars: Vec<Value> = (0..frame.vars.len())
            .map(|k| self.machine_value(&frame.vars[k], phi, &mut sent.summaries))
            .collect();
        let mut memory = Vec::with_capacity(self.memory.len());
        for k in 0..self.memory.len() {
            match self.machine_cells(k, phi, &mut sent.summaries) {
                Some((cells, pages)) => {
                    memory.push(cells);
                    sent.memory.push(Some(pages));
                }
                None => {
                    memory.push(Cells::Bytes(Vec::new()));
                    sent.memory.push(None);
                }
            }
        }
        if sent.summaries.len() >= SUMMARY as usize || self.store.len() >= SUMMARY as usize {
            return false;
        }
        let frames = vec![AheadFrame {
            func: frame.func,
            at,
            vars: vars.clone(),
            ret_dst: None,
        }];
        let loops = &self.loops;
        let ahead = self.ahead.as_mut().expect("checked above");
        let handed = run_ahead(
            module,
            &ahead.code,
            frames,
            memory,
            &self.budget,
            &mut |frames| {
                let &(func, at) = frames.last().expect("a loop head's frame");
                loops.as_ref().is_none_or(|l| !l.watching(func, at))
            },
            false,
        );
        ahead.pacing.ran(handed.steps);
        if handed.steps == 0 {
            ahead.pacing.time += start.elapsed();
            return false;
        }
        self.result.stats.statements += handed.steps;
        for (k, (cells, before)) in handed.memory.iter().zip(&sent.memory).enumerate() {
            if let (Some(before), Some(written)) = (before, handed.written.get(k)) {
                self.take_cells(k, phi, cells, before, written, &sent.summaries);
            }
        }
        let mut stack = handed.frames.into_iter();
        let bottom = stack.next().expect("the frame handed over");
        for (k, (v, was)) in bottom.vars.iter().zip(&vars).enumerate() {
            if v != was {
                let new = self.summary_of(v, phi, &sent.summaries);
                self.assign(frame, braid_ir::VarId(k as u32), phi, &new);
            }
        }
        self.seq += 1;
        frame.pc[0].at = bottom.at;
        frame.pc[0].seq = self.seq;
        frame.pc[0].merged = false;
        if let Some(a) = self.ahead.as_mut() {
            a.pacing.time += start.elapsed();
        }
        let callees: Vec<AheadFrame> = stack.collect();
        if !callees.is_empty() {
            // The summaries placeholders stand for are roots while the
            // callees run.
            let roots = sent.summaries.iter().flat_map(|s| s.iter().map(|x| x.0)).collect();
            self.suspended.push(Held {
                caller: None,
                guards: roots,
            });
            let e = frame.pc.swap_remove(0);
            self.resume_calls(frame, e, &callees, &sent.summaries, rec);
            self.suspended.pop();
        }
        true
    }

    /// `frame`'s entry `e` is at a call whose callee the interpreter handed
    /// back mid-run as `callees` (the callee's frame, then those it called):
    /// the callee runs on from there as a frame of its own, and its exits
    /// come back as [`Multise::call`]'s do.
    fn resume_calls(
        &mut self,
        frame: &mut Frame,
        e: PcEntry,
        callees: &[AheadFrame],
        summaries: &[ValueSummary],
        rec: &mut Recorder,
    ) {
        let callee = &callees[0];
        let vars = callee
            .vars
            .iter()
            .map(|v| self.summary_of(v, e.guard, summaries))
            .collect();
        let first = self.entry_at(e.guard, callee.at, e.mult, Rc::default(), e.model.clone());
        let mut inner = self.new_frame(callee.func, vars, first);
        let dst = match self.module.func(frame.func).stmts.get(e.at as usize) {
            Some(Stmt::Call { dst, .. }) => *dst,
            _ => unreachable!("a frame below a callee is at its call"),
        };
        self.suspend(frame, vec![e.guard], callee.func);
        if callees.len() > 1 {
            let inner_e = inner.pc.swap_remove(0);
            self.resume_calls(&mut inner, inner_e, &callees[1..], summaries, rec);
        }
        self.run_frame(&mut inner, rec);
        self.resume(frame);
        self.returned(frame, &e, e.at, &inner, dst);
    }

    /// The machine value standing for `s` on the paths of `phi` (see the
    /// module doc); a summary placeholder's restriction is pushed to
    /// `summaries`.
    fn machine_value(&mut self, s: &ValueSummary, phi: Guard, summaries: &mut Vec<ValueSummary>) -> Value {
        let sole = match s.0.as_slice() {
            [(g, t)] if *g == Guard::TRUE => Some(*t),
            _ => sole_in(&mut self.guards, s, phi),
        };
        if let Some(t) = sole {
            return self.store.as_const(t).unwrap_or_else(|| placeholder(t.0));
        }
        let mut restricted = ValueSummary::default();
        for (g, v) in self.restrict(s, phi) {
            restricted.push(&mut self.guards, g, v, self.opts.coalesce);
        }
        summaries.push(restricted);
        placeholder(SUMMARY | (summaries.len() - 1) as u32)
    }

    /// What the machine value `v` stands for on the paths of `phi`.
    fn summary_of(&mut self, v: &Value, phi: Guard, summaries: &[ValueSummary]) -> ValueSummary {
        match term_of(v) {
            Some(l) if l & SUMMARY != 0 => summaries[(l & !SUMMARY) as usize].clone(),
            Some(t) => ValueSummary::single(phi, TermId(t)),
            None => ValueSummary::single(phi, self.store.constant(*v)),
        }
    }

    /// Allocation `k`'s cells on the paths of `phi`, if its size there is
    /// one number its cells hold. Pages whose cells all hold one byte under
    /// `true` are kept as bytes for the next hand-over.
    fn machine_cells(
        &mut self,
        k: usize,
        phi: Guard,
        summaries: &mut Vec<ValueSummary>,
    ) -> Option<(Cells, Vec<SentPage>)> {
        let size = sole_in(&mut self.guards, &self.memory[k].size, phi)?;
        let n = match self.store.as_const(size) {
            Some(Value::Int(n)) if n >= 0 && n as usize <= self.memory[k].cells.len() => n as usize,
            _ => return None,
        };
        let cells = std::mem::take(&mut self.memory[k].cells);
        let mut pages = std::mem::take(&mut self.memory[k].bytes);
        pages.resize(cells.pages(), None);
        let mut out = CellsBuilder::new(n);
        let mut sent = Vec::with_capacity(n.div_ceil(PAGE));
        // Pages that are one byte throughout share their bytes (an 8 MiB
        // stack is 2 048 such pages of zeros).
        let mut filled: rustc_hash::FxHashMap<(u8, usize), Rc<[u8]>> = Default::default();
        for (p, page) in pages.iter_mut().enumerate().take(n.div_ceil(PAGE)) {
            if page.as_ref().is_some_and(|(g, _)| g.is_some_and(|g| g != phi)) {
                *page = None;
            }
            let view = cells.page(p);
            // One summary for the page: its cells' one value.
            let (len, each): (usize, &[ValueSummary]) = match &view {
                PageView::Same(c, n) => (*n, std::slice::from_ref(*c)),
                PageView::Cells(cs) => (cs.len(), cs),
            };
            if page.is_none() {
                // Bytes under `true` serve every hand-over; bytes under
                // `phi` serve those with the same guard.
                let mut under = None;
                let mut plain = Vec::with_capacity(each.len());
                for c in each {
                    let t = match c.0.as_slice() {
                        [(g, t)] if *g == Guard::TRUE => Some(*t),
                        _ => {
                            under = Some(phi);
                            sole_in(&mut self.guards, c, phi)
                        }
                    };
                    match t.and_then(|t| self.store.as_const(t)) {
                        Some(Value::Bv { width: 8, bits }) => plain.push(bits as u8),
                        _ => break,
                    }
                }
                if plain.len() == each.len() {
                    let bytes = if each.len() < len {
                        filled
                            .entry((plain[0], len))
                            .or_insert_with(|| Rc::from(vec![plain[0]; len]))
                            .clone()
                    } else {
                        Rc::from(plain)
                    };
                    *page = Some((under, bytes));
                }
            }
            match page {
                // The interpreter's memory starts zeroed.
                Some((_, b)) if matches!(view, PageView::Same(..)) && b[0] == 0 => {
                    out.zeros(len);
                    sent.push(SentPage::Bytes(b.clone()));
                }
                Some((_, b)) => {
                    out.extend_bytes(b);
                    sent.push(SentPage::Bytes(b.clone()));
                }
                None => {
                    let values: Vec<Value> = each.iter().map(|c| self.machine_value(c, phi, summaries)).collect();
                    for i in 0..len {
                        out.push(values[i % values.len()]);
                    }
                    sent.push(SentPage::Values(values));
                }
            }
        }
        self.memory[k].cells = cells;
        self.memory[k].bytes = pages;
        Some((out.finish(n), sent))
    }

    /// Writes back the cells of allocation `k` that the run changed: on
    /// the pages it wrote, those whose value is not the one sent.
    fn take_cells(
        &mut self,
        k: usize,
        phi: Guard,
        after: &Cells,
        before: &[SentPage],
        written: &[u64],
        summaries: &[ValueSummary],
    ) {
        use crate::concrete::{marked, WRITTEN_PAGE};
        let n = after.len().min(before.len() * PAGE);
        for w in 0..n.div_ceil(WRITTEN_PAGE) {
            if !marked(written, w) {
                continue;
            }
            let (start, end) = (w * WRITTEN_PAGE, ((w + 1) * WRITTEN_PAGE).min(n));
            let page = &before[start / PAGE];
            if let (Some(a), SentPage::Bytes(b)) = (after.plain(start, end - start), page) {
                let from = start % PAGE;
                if a == &b[from..from + (end - start)] {
                    continue;
                }
            }
            for c in start..end {
                let v = after.get(c).expect("the machine keeps an allocation's length");
                if v != page.get(c % PAGE) {
                    let new = self.summary_of(&v, phi, summaries);
                    let cell = &self.memory[k].cells[c];
                    let s = guarded_update(&mut self.guards, cell, phi, &new, self.opts.coalesce);
                    self.memory[k].set(c, s);
                }
            }
        }
    }
}
