//! The papers' programs, end to end through the `braid` binary, under every
//! searcher: path counts, final values against the papers' tables, replay.

mod common;

use common::*;
use serde_json::Value;
use std::collections::BTreeSet;

#[test]
fn figure1_has_the_five_paths_of_the_paper_with_their_final_values() {
    let program = example("examples/paper/figure1.bir");
    for_each_searcher(&program, |search, code, json, tests| {
        assert_eq!(code, 0);
        assert_eq!(json["paths"], 5, "{search}");
        assert_eq!(json["tests"], 5);
        assert_eq!(json["complete"], true);
        assert_eq!(json["coverage"]["branches_covered"], 6);
        // Seed 000 §2.1, the final consolidated DSE state: one test per row.
        let mut rows = BTreeSet::new();
        for t in tests {
            let (x0, z0, r0) = (input_int(t, "x0"), input_int(t, "z0"), input_int(t, "r0"));
            assert_eq!(final_value(t, "x"), (2 * x0).to_string());
            let (row, z, r) = match (2 * x0 <= 100, z0 == 1, r0 > 1) {
                (true, _, true) => (1, (r0 - 1).to_string(), r0.to_string()),
                (true, _, false) => (2, z0.to_string(), r0.to_string()),
                (false, false, true) => (3, (r0 - 1).to_string(), r0.to_string()),
                (false, false, false) => (4, z0.to_string(), r0.to_string()),
                (false, true, _) => (5, (1.3f64 - 1.0).to_string(), "1.3".to_string()),
            };
            assert_eq!((final_value(t, "z"), final_value(t, "r")), (z, r), "row {row}: {t}");
            if row == 1 || row == 3 {
                assert_eq!(t["expressions"]["z"], "r0 - 1");
            }
            rows.insert(row);
        }
        assert_eq!(
            rows,
            (1..=5).collect(),
            "each of the paper's five paths once under {search}"
        );
    });
}

#[test]
fn function_values_give_two_paths_r_is_1_or_minus_1() {
    let program = example("examples/paper/function-values.bir");
    for_each_searcher(&program, |search, code, json, tests| {
        assert_eq!((code, json["paths"].as_u64()), (0, Some(2)), "{search}");
        for t in tests {
            let expected = if input_int(t, "x0") > 0 { "1" } else { "-1" };
            assert_eq!(final_value(t, "r"), expected);
        }
        let rs: BTreeSet<String> = tests.iter().map(|t| final_value(t, "r")).collect();
        assert_eq!(rs, ["-1".to_string(), "1".to_string()].into());
    });
}

#[test]
fn aliasing_updates_exactly_the_array_t_points_to() {
    let program = example("examples/paper/aliasing.bir");
    for_each_searcher(&program, |search, code, json, tests| {
        assert_eq!((code, json["paths"].as_u64()), (0, Some(2)), "{search}");
        let mut seen = BTreeSet::new();
        for t in tests {
            let mem = &t["outcome"]["memory"];
            // a0 is r's array, a1 is s's.
            let cells = (mem["a0"][0].as_str().unwrap_or(""), mem["a1"][0].as_str().unwrap_or(""));
            let expected = if input_int(t, "x0") > 0 { ("4", "3") } else { ("2", "4") };
            assert_eq!(cells, expected, "{t}");
            seen.insert(cells);
        }
        assert_eq!(seen.len(), 2);
    });
}

/// Seed 002 §2: from x = 1, y = 3 (path #1), DFS flips the last branch;
/// the simplex solving it passes through (0, 0) and (2, 0), which drive
/// paths #4 and #3, and ends at (1, 1), path #2: all four paths after one
/// solver call. Without partial solutions it takes three.
#[test]
fn muse_covers_figure_2_with_one_solver_call() {
    let program = example("examples/paper/muse-start.bir");
    let seed = example("examples/paper/muse-start-seed.json");
    for (partial, calls) in [(true, 1), (false, 3)] {
        let out = tempfile::tempdir().expect("temp dir");
        let mut args = vec!["--engine", "concolic", "--search", "dfs", "--seed-input", &seed];
        if partial {
            args.push("--partial-solutions");
        }
        let (code, json, tests) = run_json(&program, out.path(), &args);
        assert_eq!(code, 0);
        let c = &json["stats"]["concolic"];
        assert_eq!(c["solver_calls"], calls, "partial solutions {partial}: {c}");
        assert_eq!(
            (json["paths"].as_u64(), json["complete"].as_bool()),
            (Some(4), Some(true))
        );
        assert_eq!(json["coverage"]["branches_covered"], 6);
        // The first test is the seed's path; with partial solutions the
        // next ones come from (0, 0) and (2, 0), the partial solutions, and
        // then (1, 1), the solution.
        let inputs: Vec<(i128, i128)> = tests.iter().map(|t| (input_int(t, "x"), input_int(t, "y"))).collect();
        if partial {
            assert_eq!(inputs, [(1, 3), (0, 0), (2, 0), (1, 1)]);
            assert_eq!(c["partial_tests"], 2);
        }
        let printed: BTreeSet<String> = tests.iter().map(|t| t["outcome"]["returned"].to_string()).collect();
        assert_eq!(printed.len(), 4, "{printed:?}");
        replay_all(&program, out.path());
    }
}

#[test]
fn muse_start_has_four_paths_printing_each_number_once() {
    let program = example("examples/paper/muse-start.bir");
    for_each_searcher(&program, |search, code, json, tests| {
        assert_eq!((code, json["paths"].as_u64()), (0, Some(4)), "{search}");
        let mut printed = BTreeSet::new();
        for t in tests {
            let (x, y) = (input_int(t, "x"), input_int(t, "y"));
            let expected = if x + y < 2 {
                4
            } else if 2 * y - x < 1 {
                3
            } else if 2 * x - y < 0 {
                1
            } else {
                2
            };
            assert_eq!(t["outcome"]["returned"], expected.to_string());
            printed.insert(expected);
        }
        assert_eq!(printed, [1, 2, 3, 4].into());
    });
}

/// What the simplified echo prints for the given arguments.
fn echo(args: &[Vec<u8>]) -> Vec<u8> {
    let (mut arg, mut newline) = (0, true);
    if args.first().is_some_and(|a| a == b"-n") {
        arg = 1;
        newline = false;
    }
    let mut out: Vec<u8> = args[arg..].concat();
    if newline {
        out.push(b'\n');
    }
    out
}

#[test]
fn echo_explores_every_argv_shape_and_prints_what_echo_prints() {
    let program = example("examples/paper/echo.bir");
    for_each_searcher(&program, |search, code, json, tests| {
        assert_eq!(code, 0);
        // Per argument, 4 lengths; strcmp splits the first argument further
        // (c0 != '-': 4 lengths; '-' then not 'n': 3; "-n?" : 1; "-n": 1),
        // so 8 non-"-n" shapes and one "-n" shape, times 4 for the second
        // argument: 36 paths.
        assert_eq!(json["paths"], 36, "{search}");
        assert_eq!(json["complete"], true);
        // Line 3's `arg < argc` is always true (seed 004 §3.1): 17 of 18.
        assert_eq!(json["coverage"]["branches_covered"], 17);
        let mut shapes = BTreeSet::new();
        for t in tests {
            let chars: Vec<u8> = (0..6)
                .map(|k| {
                    let name = if k == 0 { "arg".to_string() } else { format!("arg#{k}") };
                    input_int(t, &name) as u8
                })
                .collect();
            let args: Vec<Vec<u8>> = chars
                .chunks(3)
                .map(|c| c.iter().take_while(|b| **b != 0).copied().collect())
                .collect();
            // Allocations: a0 argv, a1 the program name, a2 the output buffer.
            let out = t["outcome"]["memory"]["a2"].as_array().expect("output buffer");
            let n: usize = out[0].as_str().and_then(|s| s.parse().ok()).expect("length");
            let printed: Vec<u8> = out[1..=n]
                .iter()
                .map(|c: &Value| {
                    c.as_str()
                        .and_then(|s| s.split(':').next()?.parse().ok())
                        .expect("a byte")
                })
                .collect();
            assert_eq!(printed, echo(&args), "{t}");
            // What tells the paths apart: both lengths, and how far the first
            // argument matches "-n".
            let a = &args[0];
            let dash = a.first() == Some(&b'-');
            shapes.insert((a.len(), dash, dash && a.get(1) == Some(&b'n'), args[1].len()));
        }
        assert_eq!(shapes.len(), 36, "each path is a different argv shape");
    });
}
