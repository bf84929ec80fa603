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

/// Sets mimalloc up for braid, first thing in `main`: free memory goes
/// back to the system at once, since braid's memory limit and peak-memory
/// figures read resident memory (with mimalloc's 10 ms delay, multise on
/// bench/multise/symarith peaked at 111 MiB, glibc at 86; with none and
/// no transparent huge pages, 93).
pub fn configure() {
    // SAFETY: an option is set before any other thread runs.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

/// mimalloc with [`live_bytes`] kept.
pub struct Counting;

// SAFETY: every call goes to mimalloc with the caller's layout; the count
// is a thread-local integer with no destructor, readable at any time.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        mimalloc::MiMalloc.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        mimalloc::MiMalloc.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        mimalloc::MiMalloc.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as i64 - layout.size() as i64);
        mimalloc::MiMalloc.realloc(ptr, layout, new_size)
    }
}
