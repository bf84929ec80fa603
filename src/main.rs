// mimalloc: glibc's malloc and free took a fifth of dse's time on a B-tree
// of symbolic keys (bench/solver/btree-6: 5.7-6.9 s with glibc, 4.5-4.6 s
// with mimalloc). It counts each thread's live bytes for the race of
// ssm and dsm against dse.
#[global_allocator]
static ALLOCATOR: braid_budget::heap::Counting = braid_budget::heap::Counting;

/// `mi_option_purge_delay` (mimalloc.h).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // Free memory goes back to the system at once: braid's memory limit
    // and peak-memory figures read resident memory (with mimalloc's delay,
    // multise on bench/multise/symarith peaked at 111 MiB, glibc at 86;
    // with none and no transparent huge pages, 93).
    // SAFETY: an option is set before any other thread runs.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
    std::process::exit(braid_cli::main());
}
