//! Prints the random program of a seed (for debugging property tests).
fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    print!("{}", braid_ir::random_program(seed));
}
