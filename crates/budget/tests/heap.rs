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
        let v = std::hint::black_box(vec![0u8; 1 << 16]);
        let n = live_bytes() - at;
        drop(v);
        n
    })
    .join()
    .expect("thread");
    assert_eq!(grew, 1 << 16);
    assert!(live_bytes() - here < 1 << 16, "not counted here");
}

/// Blocks past the mapping threshold, and reallocations across it, keep
/// their bytes and their count.
#[test]
fn large_blocks_and_reallocations_across_the_threshold_keep_their_bytes() {
    let before = live_bytes();
    let mut v: Vec<u32> = (0..1000).collect();
    v.reserve_exact(1 << 20); // past the threshold: copied into a mapping
    assert!(v.iter().copied().eq(0..1000));
    v.extend(1000..(1 << 19));
    v.reserve_exact(1 << 21); // mapping to mapping
    assert!(v.iter().copied().eq(0..(1 << 19)));
    v.truncate(10);
    v.shrink_to_fit(); // back under it: copied out of the mapping
    assert_eq!(v, (0..10).collect::<Vec<u32>>());
    drop(v);
    assert_eq!(live_bytes(), before);
    // A large zeroed block is zero.
    let z = vec![0u8; 8 << 20];
    assert!(z.iter().all(|&b| b == 0));
}
