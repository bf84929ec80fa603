//! Times an input-free export in wasmi alone (bench/wasm/concrete.sh):
//! `wasmi_time PROGRAM.wasm [EXPORT]` runs it three times and prints
//! `wasmi RESULT - MS` with the fastest run's time. A binary of its own,
//! without braid's interpreter: where wasmi's code lands in a binary moved
//! its time by up to a quarter, so the yardstick must not move with every
//! change to braid's engines. The first run in a process is the slowest
//! (its memory is fresh), hence the best of three, as `concrete_time` does.
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: wasmi_time PROGRAM.wasm [EXPORT]");
    let export = args.next().unwrap_or_else(|| "main".into());
    let bytes = std::fs::read(&path).expect("a readable module");
    let mut best = f64::INFINITY;
    let mut ending = None;
    for _ in 0..3 {
        let start = Instant::now();
        let run = braid_wasm::wasmi_replay::run(&bytes, Some(&export), &[], &Default::default(), Default::default())
            .expect("runs");
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        ending = Some(run.ending);
    }
    println!("wasmi {:?} - {best:.1}", ending.expect("three runs"));
}
