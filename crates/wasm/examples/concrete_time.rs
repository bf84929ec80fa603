//! Times one run of an input-free export in braid's concrete interpreter
//! and in wasmi, side by side (bench/wasm/concrete.sh):
//! `concrete_time PROGRAM.wasm [EXPORT]` prints one line per runtime:
//! `NAME RESULT STATEMENTS MS` (wasmi counts no statements: `-`).
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
    let start = Instant::now();
    let run = braid_engine::concrete::run_concrete(&program.module, entry, &[], None).expect("no budget");
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let result = match &run.outcome {
        braid_engine::results::Outcome::End { returned, .. } => returned.clone().unwrap_or_default(),
        other => format!("{other:?}"),
    };
    println!("braid-interpreter {result} {} {ms:.1}", run.steps);
    let start = Instant::now();
    let ending = braid_wasm::wasmi_replay::run(&bytes, Some(&export), &[], &Default::default(), Default::default())
        .expect("runs")
        .ending;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    println!("wasmi {ending:?} - {ms:.1}");
}
