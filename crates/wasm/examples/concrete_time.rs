//! Times an input-free export in braid's concrete interpreter
//! (bench/wasm/concrete.sh, with `wasmi_time` for wasmi):
//! `concrete_time PROGRAM.wasm [EXPORT]` runs it three times and prints
//! `braid-interpreter RESULT STATEMENTS MS` with the fastest run's time.
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: concrete_time PROGRAM.wasm [EXPORT]");
    let export = args.next().unwrap_or_else(|| "main".into());
    let bytes = std::fs::read(&path).expect("a readable module");
    let opts = braid_wasm::Options {
        entry: Some(export.clone()),
        ..Default::default()
    };
    let program = braid_wasm::load(&bytes, &opts).expect("a valid module");
    let entry = program.entry.expect("the export exists");
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..3 {
        let start = Instant::now();
        let run = braid_engine::concrete::run_concrete(&program.module, entry, &[], None).expect("no budget");
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        last = Some(run);
    }
    let run = last.expect("three runs");
    let result = match &run.outcome {
        braid_engine::results::Outcome::End { returned, .. } => returned.clone().unwrap_or_default(),
        other => format!("{other:?}"),
    };
    println!("braid-interpreter {result} {} {best:.1}", run.steps);
}
