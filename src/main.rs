// mimalloc: glibc's malloc and free took a fifth of dse's time on a B-tree
// of symbolic keys (bench/solver/btree-6: 5.7-6.9 s with glibc, 4.5-4.6 s
// with mimalloc). It counts each thread's live bytes for the race of
// ssm and dsm against dse.
#[global_allocator]
static ALLOCATOR: braid_budget::heap::Counting = braid_budget::heap::Counting;

fn main() {
    braid_budget::heap::configure();
    std::process::exit(braid_cli::main());
}
