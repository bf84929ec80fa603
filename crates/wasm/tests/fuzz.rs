//! The frontend never panics: arbitrary bytes and randomly mutated valid
//! modules either lower (to a module that passes the IR checker) or give a
//! located error.

use proptest::prelude::*;

fn valid_modules() -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/c");
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .expect("examples/c")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .map(|p| std::fs::read(p).expect("readable"))
        .collect();
    v.sort();
    v
}

fn lower(bytes: &[u8]) {
    let opts = braid_wasm::Options {
        entry: None,
        allow_unknown_imports: true,
        wasi: braid_wasm::wasi::Config {
            sym_args: Some((1, 2)),
            sym_stdin: 2,
        },
        ..Default::default()
    };
    match braid_wasm::load(bytes, &opts) {
        Ok(p) => assert!(braid_ir::check::check(&p.module).is_ok()),
        Err(e) => assert!(!e.message.is_empty()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, max_shrink_iters: 0, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..256), header in any::<bool>()) {
        if header {
            // Past the magic number, so decoding goes further.
            let mut with = b"\0asm\x01\0\0\0".to_vec();
            with.append(&mut bytes);
            bytes = with;
        }
        lower(&bytes);
    }

    #[test]
    fn mutated_modules_never_panic(pick in any::<usize>(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let modules = valid_modules();
        let mut bytes = modules[pick % modules.len()].clone();
        for (at, b) in edits {
            let i = 8 + at % (bytes.len() - 8);
            bytes[i] = b;
        }
        lower(&bytes);
    }
}

#[test]
fn every_example_lowers() {
    for m in valid_modules() {
        let opts = braid_wasm::Options::default();
        braid_wasm::load(&m, &opts).expect("an example lowers");
    }
}
