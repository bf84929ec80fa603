//! Times one run of an export in wasmi (for bench/wasm/concrete.sh):
//! `wasmi_time PROGRAM.wasm [EXPORT]` prints the result and milliseconds.
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: wasmi_time PROGRAM.wasm [EXPORT]");
    let export = args.next().unwrap_or_else(|| "main".into());
    let bytes = std::fs::read(&path).expect("a readable module");
    let start = std::time::Instant::now();
    let ending = braid_wasm::wasmi_replay::run(&bytes, &export, &[], &Default::default())
        .expect("runs")
        .ending;
    println!("{ending:?} {} ms", start.elapsed().as_millis());
}
