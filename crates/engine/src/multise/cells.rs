//! An allocation's cells in `multise`: pages of value summaries, where a
//! page whose cells all hold one summary (cells nothing wrote since the
//! allocation filled them) is that one summary until a cell of it is
//! written. A WebAssembly memory of megabytes (a C stack of 8 MiB) then
//! costs what the program touches, not a summary per byte.

use super::summary::ValueSummary;

/// Cells per page; running ahead converts memory a page at a time
/// ([`super::ahead`]).
pub(super) const PAGE: usize = 4096;

#[derive(Clone, Debug, Default)]
pub(super) struct Cells {
    pages: Vec<Page>,
    len: usize,
}

#[derive(Clone, Debug)]
enum Page {
    /// Every cell of the page holds this summary.
    Same(ValueSummary),
    /// The page's cells (`PAGE` of them, fewer on the last page).
    Cells(Vec<ValueSummary>),
}

/// A page as its cells are: one summary for all `n`, or each its own.
pub(super) enum PageView<'a> {
    Same(&'a ValueSummary, usize),
    Cells(&'a [ValueSummary]),
}

impl std::ops::Index<usize> for Cells {
    type Output = ValueSummary;

    fn index(&self, c: usize) -> &ValueSummary {
        self.get(c)
            .unwrap_or_else(|| panic!("cell {c} of an allocation of {}", self.len))
    }
}

impl Cells {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, c: usize) -> Option<&ValueSummary> {
        if c >= self.len {
            return None;
        }
        Some(match &self.pages[c / PAGE] {
            Page::Same(s) => s,
            Page::Cells(cells) => &cells[c % PAGE],
        })
    }

    /// Cells on page `p` (`p * PAGE ..`).
    fn page_len(&self, p: usize) -> usize {
        (self.len - p * PAGE).min(PAGE)
    }

    /// The cells of page `p`, each its own from now on.
    fn cells_mut(&mut self, p: usize) -> &mut Vec<ValueSummary> {
        let n = self.page_len(p);
        let page = &mut self.pages[p];
        if let Page::Same(s) = page {
            *page = Page::Cells(vec![s.clone(); n]);
        }
        match page {
            Page::Cells(cells) => cells,
            Page::Same(_) => unreachable!("made cells above"),
        }
    }

    /// Sets cell `c` to `s`; the summary it held.
    pub fn set(&mut self, c: usize, s: ValueSummary) -> ValueSummary {
        assert!(c < self.len, "cell {c} of an allocation of {}", self.len);
        std::mem::replace(&mut self.cells_mut(c / PAGE)[c % PAGE], s)
    }

    /// Grows to `n` cells (if fewer), the new ones empty summaries.
    pub fn grow_to(&mut self, n: usize) {
        if n <= self.len {
            return;
        }
        if !self.len.is_multiple_of(PAGE) {
            let last = self.pages.len() - 1;
            let end = (last * PAGE + PAGE).min(n);
            let cells = self.cells_mut(last);
            cells.resize(end - last * PAGE, ValueSummary::default());
        }
        self.len = n;
        while self.pages.len() * PAGE < n {
            let p = self.pages.len();
            self.pages.push(match self.page_len(p) {
                PAGE => Page::Same(ValueSummary::default()),
                k => Page::Cells(vec![ValueSummary::default(); k]),
            });
        }
    }

    /// Replaces each cell `c` in `from..to` by `f` of it; a page that is
    /// one summary and lies in the range whole stays one (`f` is called
    /// once for it).
    pub fn update(&mut self, from: usize, to: usize, mut f: impl FnMut(&ValueSummary) -> ValueSummary) {
        let to = to.min(self.len);
        let mut c = from;
        while c < to {
            let p = c / PAGE;
            let (start, end) = (p * PAGE, p * PAGE + self.page_len(p));
            if c == start && end <= to {
                if let Page::Same(s) = &self.pages[p] {
                    self.pages[p] = Page::Same(f(s));
                    c = end;
                    continue;
                }
            }
            let stop = end.min(to);
            let cells = self.cells_mut(p);
            for cell in &mut cells[c - start..stop - start] {
                *cell = f(cell);
            }
            c = stop;
        }
    }

    /// Page `p` of the cells.
    pub fn page(&self, p: usize) -> PageView<'_> {
        match &self.pages[p] {
            Page::Same(s) => PageView::Same(s, self.page_len(p)),
            Page::Cells(cells) => PageView::Cells(cells),
        }
    }

    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    /// The cells as runs of one summary: `(first cell, cells, summary)`,
    /// a page that is one summary as one run.
    pub fn runs(&self) -> impl Iterator<Item = (usize, usize, &ValueSummary)> + '_ {
        (0..self.pages.len()).flat_map(move |p| {
            let start = p * PAGE;
            let runs: Box<dyn Iterator<Item = (usize, usize, &ValueSummary)>> = match self.page(p) {
                PageView::Same(s, n) => Box::new(std::iter::once((start, n, s))),
                PageView::Cells(cells) => Box::new(cells.iter().enumerate().map(move |(i, s)| (start + i, 1, s))),
            };
            runs
        })
    }

    /// Every cell's summary, in order.
    pub fn iter(&self) -> impl Iterator<Item = &ValueSummary> + '_ {
        self.runs().flat_map(|(_, n, s)| std::iter::repeat_n(s, n))
    }

    /// The distinct summaries stored (a one-summary page's once).
    pub fn summaries(&self) -> impl Iterator<Item = &ValueSummary> + '_ {
        self.runs().map(|(_, _, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_guard::Guard;
    use braid_term::TermId;

    fn summary(t: u32) -> ValueSummary {
        ValueSummary::single(Guard::TRUE, TermId(t))
    }

    /// Cells against a plain vector under growth, range updates and sets
    /// that cross page boundaries.
    #[test]
    fn paged_cells_are_the_cells_a_vector_holds() {
        let mut cells = Cells::default();
        let mut plain: Vec<ValueSummary> = Vec::new();
        let check = |cells: &Cells, plain: &[ValueSummary]| {
            assert_eq!(cells.len(), plain.len());
            assert!(cells.iter().eq(plain.iter()));
            for (c, s) in plain.iter().enumerate().step_by(97) {
                assert_eq!(&cells[c], s);
            }
            assert_eq!(cells.get(plain.len()), None);
        };
        for (n, from, to, t) in [
            (3 * PAGE + 10, 0, 3 * PAGE + 10, 1),
            (3 * PAGE + 20, PAGE - 5, 2 * PAGE + 3, 2),
            (5 * PAGE, 3 * PAGE + 10, 5 * PAGE, 3),
            (5 * PAGE + 1, 0, PAGE, 4),
        ] {
            cells.grow_to(n);
            plain.resize(n, ValueSummary::default());
            cells.update(from, to, |s| {
                let mut s = s.clone();
                s.0.push((Guard::TRUE, TermId(t)));
                s
            });
            for s in &mut plain[from..to] {
                s.0.push((Guard::TRUE, TermId(t)));
            }
            check(&cells, &plain);
        }
        // Pages no update cut into stay one summary each (pages 1 and 4).
        assert_eq!(cells.summaries().count(), 3 * PAGE + 2 + 1);
        for c in [0, PAGE - 1, PAGE, 4 * PAGE + 7, 5 * PAGE] {
            let old = cells.set(c, summary(9));
            assert_eq!(old, std::mem::replace(&mut plain[c], summary(9)));
        }
        check(&cells, &plain);
    }
}
