//! The counting allocator as a program's global allocator: each thread's
//! live bytes follow its allocations and frees.

use braid_budget::heap::{live_bytes, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn live_bytes_follow_allocations_and_frees() {
    let before = live_bytes();
    let mut v: Vec<u8> = Vec::with_capacity(1 << 20);
    v.push(1);
    assert_eq!(live_bytes() - before, 1 << 20);
    v.reserve_exact(3 << 20);
    assert_eq!(
        live_bytes() - before,
        (3 << 20) + 1,
        "a reallocation counts its new size"
    );
    drop(v);
    assert_eq!(live_bytes(), before);
    // Another thread's allocations are its own (spawning it allocates
    // here too, and that thread frees some of it).
    let here = live_bytes();
    let grew = std::thread::spawn(|| {
        let at = live_bytes();
        let v = vec![0u8; 1 << 16];
        let n = live_bytes() - at;
        drop(v);
        n
    })
    .join()
    .expect("thread");
    assert_eq!(grew, 1 << 16);
    assert!(live_bytes() - here < 1 << 16, "not counted here");
}
