//! The `braid` binary's allocator: mimalloc, counting the bytes each
//! thread has allocated and not freed ([`live_bytes`]). Two explorations
//! raced in one thread (ssm or dsm against dse) each own the growth of
//! the count over their turns, which resident memory, read a few thousand
//! times a second, cannot tell apart.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

/// Bytes this thread has allocated less those it has freed, since it
/// began (memory freed by another thread than its allocator's counts
/// there). 0 where [`Counting`] is not the global allocator.
pub fn live_bytes() -> i64 {
    LIVE.with(Cell::get)
}

#[inline]
fn count(delta: i64) {
    LIVE.with(|c| c.set(c.get().wrapping_add(delta)));
}

/// `mi_option_purge_delay` (mimalloc.h).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets mimalloc up for braid, first thing in `main`: free memory goes back
/// to the system after 10 ms (mimalloc's default, set here so that it is
/// braid's choice). With no delay, multise on bench/multise/symarith
/// peaked at 93 MiB against 111 with it, but every free returned pages at
/// once: 31 000 `madvise` calls in a run of Heap Sort. Since blocks of a
/// mebibyte or more are mapped apart ([`Counting`]), the delay costs no
/// peak memory measured (symarith 51.0 against 51.5 MiB, Heap Sort under
/// multise 99-134 against 103-136 MiB), and dse on Calc Parser takes
/// 5.1-5.3 s instead of 6.0-6.2.
pub fn configure() {
    // SAFETY: an option is set before any other thread runs.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 10);
    }
}

/// Blocks of this many bytes or more are mapped from the system and
/// unmapped when freed ([`Counting`]).
const LARGE: usize = 1 << 20;

/// The page size blocks are mapped at (an alignment past it goes to
/// mimalloc).
const PAGE: usize = 4096;

fn large(size: usize, align: usize) -> bool {
    size >= LARGE && align <= PAGE
}

/// `size` fresh bytes (zero, mapped as they are first touched), or null.
///
/// # Safety
/// `size` is not zero.
unsafe fn map(size: usize) -> *mut u8 {
    let p = libc::mmap(
        std::ptr::null_mut(),
        size,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
        -1,
        0,
    );
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

/// mimalloc with [`live_bytes`] kept, and blocks of [`LARGE`] bytes or more
/// mapped from the system. mimalloc zeroes a large block it hands out again
/// by writing it, and with no purge delay (as [`configure`] once set) its
/// pages had gone back to the system by then: the concrete interpreter's
/// 8 MiB memory for a C program's stack, made for every test the recorder
/// runs, cost 2 048 page faults and a memset each time, 71 % of a jsmn run
/// that ran 805 tests of a stopped frontier. A fresh mapping is zero, and
/// only the pages a run touches are faulted in.
pub struct Counting;

impl Counting {
    unsafe fn get(&self, layout: Layout, zeroed: bool) -> *mut u8 {
        match (large(layout.size(), layout.align()), zeroed) {
            (true, _) => map(layout.size()),
            (false, true) => mimalloc::MiMalloc.alloc_zeroed(layout),
            (false, false) => mimalloc::MiMalloc.alloc(layout),
        }
    }

    unsafe fn put(&self, ptr: *mut u8, layout: Layout) {
        if large(layout.size(), layout.align()) {
            libc::munmap(ptr.cast(), layout.size());
        } else {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        }
    }
}

// SAFETY: every block comes from mimalloc or from its own mapping, chosen
// by its layout's size and alignment, and goes back the same way (a
// reallocation across the threshold copies); the count is a thread-local
// integer with no destructor, readable at any time.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        self.get(layout, false)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        self.get(layout, true)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        self.put(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (was, is) = (large(layout.size(), layout.align()), large(new_size, layout.align()));
        let p = match (was, is) {
            (false, false) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
            (true, true) => {
                let p = libc::mremap(ptr.cast(), layout.size(), new_size, libc::MREMAP_MAYMOVE);
                if p == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    p.cast()
                }
            }
            _ => {
                let new = Layout::from_size_align_unchecked(new_size, layout.align());
                let p = self.get(new, false);
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    self.put(ptr, layout);
                }
                p
            }
        };
        if !p.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        p
    }
}
