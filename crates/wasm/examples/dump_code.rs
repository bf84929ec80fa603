//! Prints a function's instructions in the interpreter's executable form:
//! `cargo run --release -p braid-wasm --example dump_code -- P.wasm FUNC`.

use std::process::exit;

fn fail(why: String) -> ! {
    eprintln!("dump_code: {why}");
    exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(func)) = (args.next(), args.next()) else {
        fail("usage: dump_code P.wasm FUNC".into())
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let program = braid_wasm::load(&bytes, &Default::default()).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let code = braid_engine::concrete::Code::new(&program.module, program.entry);
    let Some(f) = program.module.func_index(&func) else {
        let names: Vec<&str> = program.module.functions.iter().map(|f| f.name.as_str()).collect();
        fail(format!(
            "{path}: no function `{func}` (functions: {})",
            names.join(", ")
        ))
    };
    print!("{}", code.dump(&program.module, f));
}
