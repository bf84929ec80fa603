//! The `.bir` text format: round-trips, located errors, no panics on bad input.

use braid_ir::{parse, print, random_program};
use proptest::prelude::*;

fn examples() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/paper");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("examples/paper exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "bir") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).expect("readable example"),
            ));
        }
    }
    assert!(out.len() >= 5, "the five paper programs are present");
    out
}

fn round_trips(file: &str, src: &str) {
    let m = parse(file, src).unwrap_or_else(|e| panic!("{e}"));
    let text = print(&m);
    let again = parse("printed", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(m.without_spans(), again.without_spans(), "{text}");
}

#[test]
fn paper_examples_round_trip() {
    for (file, src) in examples() {
        round_trips(&file, &src);
    }
}

#[test]
fn literals_of_every_sort_round_trip() {
    round_trips(
        "t.bir",
        "fn main() {\n a = 1.0\n b = -0.0\n c = 2.5:f32\n d = 255:bv8\n e = -1:bv64\n f = nan\n g = -inf\n h = 1e300\n i = -170141183460469231731687303715884105728\n j = neg i\n k = not true\n l = zext bv64 d\n m = select k, 1, 2\n halt\n}\n",
    );
}

fn error_of(src: &str) -> String {
    parse("bad.bir", src).expect_err("the program is malformed").to_string()
}

#[test]
fn errors_name_file_line_column_and_what_was_expected() {
    assert_eq!(
        error_of("fn main() {\n  x = \n}\n"),
        "bad.bir:2:7: expected an operand, found end of line"
    );
    assert_eq!(
        error_of("fn main() {\n  goto L9\n}\n"),
        "bad.bir:2:8: unknown label `L9` in function `main`"
    );
    assert_eq!(
        error_of("fn main() {\n  x = call g()\n  halt\n}\n"),
        "bad.bir:2:12: call to undefined function `g`"
    );
    assert_eq!(
        error_of("fn main() {\n  x = 1 + true\n}\n"),
        "bad.bir:2:3: type mismatch: `+` does not apply to (int, bool)"
    );
    assert_eq!(
        error_of("fn main() {\n  x = y + 1\n}\n"),
        "bad.bir:2:3: variable `y` is never assigned"
    );
    assert_eq!(
        error_of("fn main() {\n  x = 300:bv8\n}\n"),
        "bad.bir:2:7: literal `300` does not fit in bv8"
    );
    assert_eq!(
        error_of("fn main() {\n  c = 1\n  if c goto L\nL: halt\n}\n"),
        "bad.bir:3:3: type mismatch: expected a bool condition, found int"
    );
    assert_eq!(
        error_of("fn f(a) {\n ret a\n}\nfn main() {\n x = call f(1, 2)\n}\n"),
        "bad.bir:5:2: function `f` takes 1 argument(s), given 2"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn printed_random_programs_parse_to_the_same_ir(seed in any::<u64>()) {
        round_trips("random.bir", &random_program(seed));
    }

    #[test]
    fn random_bytes_never_panic_the_parser(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse("fuzz.bir", &text);
    }

    #[test]
    fn mutated_programs_never_panic_the_parser(seed in any::<u64>(), cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut bytes = random_program(seed).into_bytes();
        for (at, b) in cuts {
            let i = at.index(bytes.len());
            match b % 3 {
                0 => { bytes.remove(i); }
                1 => bytes.insert(i, b"=:&@*(){}\n-1x\"".get((b / 3) as usize % 15).copied().unwrap_or(b'x')),
                _ => bytes[i] = b,
            }
        }
        let _ = parse("mutated.bir", &String::from_utf8_lossy(&bytes));
    }
}
