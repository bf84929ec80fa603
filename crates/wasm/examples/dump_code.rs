fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap();
    let func = args.next().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let program = braid_wasm::load(&bytes, &Default::default()).unwrap();
    let code = braid_engine::concrete::Code::new(&program.module, program.entry);
    let f = program.module.func_index(&func).unwrap();
    print!("{}", code.dump(&program.module, f));
}
