//! Random small `.bir` programs for property tests: inputs, arithmetic,
//! forward branches, bounded loops, asserts, divisions, memory and calls.
//! Every generated program terminates.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write;

struct Gen {
    rng: SmallRng,
    out: String,
    vars: Vec<String>,
    next_label: usize,
    next_var: usize,
    /// Arrays of 100 cells as well, so that symbolic offsets span more
    /// cells than the engines fork over.
    wide: bool,
}

impl Gen {
    fn var(&mut self) -> String {
        let i = self.rng.gen_range(0..self.vars.len());
        self.vars[i].clone()
    }

    fn atom(&mut self) -> String {
        if self.rng.gen_bool(0.7) {
            self.var()
        } else {
            self.rng.gen_range(-5i64..=20).to_string()
        }
    }

    fn fresh(&mut self) -> String {
        self.next_var += 1;
        format!("v{}", self.next_var)
    }

    fn label(&mut self) -> String {
        self.next_label += 1;
        format!("L{}", self.next_label)
    }

    fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "    {s}");
    }

    fn cond(&mut self) -> String {
        let ops = ["<", "<=", ">", ">=", "==", "!="];
        let op = ops[self.rng.gen_range(0..ops.len())];
        let (a, b) = (self.var(), self.atom());
        let c = self.fresh();
        self.line(&format!("{c} = {a} {op} {b}"));
        c
    }

    /// A block of `n` statements; `depth` bounds nesting.
    fn block(&mut self, n: usize, depth: usize, with_memory: bool) {
        for _ in 0..n {
            match self.rng.gen_range(0..12) {
                0..=3 => {
                    // Products take a constant factor: the programs stay in
                    // linear arithmetic, which the solver always decides.
                    let ops = ["+", "-", "*", "+", "-"];
                    let op = ops[self.rng.gen_range(0..ops.len())];
                    let a = self.var();
                    let b = if op == "*" {
                        self.rng.gen_range(-3i64..=3).to_string()
                    } else {
                        self.atom()
                    };
                    let d = if self.rng.gen_bool(0.5) {
                        self.var()
                    } else {
                        self.fresh()
                    };
                    self.line(&format!("{d} = {a} {op} {b}"));
                    if !self.vars.contains(&d) {
                        self.vars.push(d);
                    }
                }
                4..=6 if depth > 0 => {
                    // if c goto Then; <else>; goto End; Then: <then>; End:
                    let c = self.cond();
                    let (then, end) = (self.label(), self.label());
                    self.line(&format!("if {c} goto {then}"));
                    let saved = self.vars.len();
                    let count = self.rng.gen_range(1..3);
                    self.block(count, depth - 1, with_memory);
                    self.vars.truncate(saved);
                    self.line(&format!("goto {end}"));
                    let _ = writeln!(self.out, "{then}:");
                    let count = self.rng.gen_range(1..3);
                    self.block(count, depth - 1, with_memory);
                    self.vars.truncate(saved);
                    let _ = writeln!(self.out, "{end}:");
                    self.line("nop = 0");
                }
                7 => {
                    let c = self.cond();
                    self.line(&format!("assert {c}"));
                }
                8 if depth > 0 && self.rng.gen_bool(0.3) => {
                    // A division guarded against zero whose quotient is
                    // branched on once: where the paths meet, a merged
                    // path condition holds the quotient, which divides by
                    // zero under the inputs of the path that skipped it.
                    let (a, b) = (self.var(), self.var());
                    let (nz, d, c) = (self.fresh(), self.fresh(), self.fresh());
                    let (div, then, end) = (self.label(), self.label(), self.label());
                    self.line(&format!("{nz} = {b} != 0"));
                    self.line(&format!("if {nz} goto {div}"));
                    self.line(&format!("goto {end}"));
                    let _ = writeln!(self.out, "{div}:");
                    self.line(&format!("{d} = {a} / {b}"));
                    let k = self.rng.gen_range(-2i64..=2);
                    self.line(&format!("{c} = {d} == {k}"));
                    self.line(&format!("if {c} goto {then}"));
                    self.line(&format!("goto {end}"));
                    let _ = writeln!(self.out, "{then}:");
                    self.line("nop = 1");
                    let _ = writeln!(self.out, "{end}:");
                    self.line("nop = 0");
                }
                8 => {
                    // Division by a variable (division by zero is a bug to
                    // find). The quotient is not used again, so constraints
                    // stay linear: only the divisor's zero check reaches the
                    // solver.
                    let (a, b) = (self.var(), self.var());
                    let op = if self.rng.gen_bool(0.5) { "/" } else { "%" };
                    let d = self.fresh();
                    self.line(&format!("{d} = {a} {op} {b}"));
                }
                9 if with_memory && self.wide && self.rng.gen_bool(0.6) => {
                    // An array of 100 cells indexed by a value in -50..=149.
                    let (p, i, q, d) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
                    let a = self.var();
                    self.line(&format!("{p} = alloc 100, 0"));
                    self.line(&format!("*{p} = {a}"));
                    let v = self.var();
                    self.line(&format!("{i} = {v} % 200"));
                    self.line(&format!("{i} = {i} - 50"));
                    self.line(&format!("{q} = {p} + {i}"));
                    match self.rng.gen_range(0..3) {
                        0 => {
                            let v = self.atom();
                            self.line(&format!("*{q} = {v}"));
                            self.line(&format!("{d} = *{p}"));
                        }
                        1 => {
                            let v = self.atom();
                            self.line(&format!("*{q} = {v}"));
                            self.line(&format!("{d} = *{q}"));
                        }
                        _ => self.line(&format!("{d} = *{q}")),
                    }
                    self.line(&format!("{d} = {d} + 0"));
                    self.vars.push(d);
                }
                9 if with_memory => {
                    // An array of 3 cells indexed by a value clamped to -1..=3,
                    // so out-of-bounds accesses happen on some paths.
                    let (p, i, q, d) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
                    let a = self.var();
                    self.line(&format!("{p} = alloc 3"));
                    self.line(&format!("*{p} = {a}"));
                    let v = self.var();
                    self.line(&format!("{i} = {v} % 5"));
                    self.line(&format!("{i} = {i} - 1"));
                    self.line(&format!("{q} = {p} + {i}"));
                    if self.rng.gen_bool(0.5) {
                        let v = self.atom();
                        self.line(&format!("*{q} = {v}"));
                        self.line(&format!("{d} = *{p}"));
                    } else {
                        self.line(&format!("{d} = *{q}"));
                        self.line(&format!("{d} = {d} + 0"));
                    }
                    self.vars.push(d);
                }
                10 => {
                    let (a, b) = (self.var(), self.atom());
                    let d = self.fresh();
                    self.line(&format!("{d} = call helper({a}, {b})"));
                    self.vars.push(d);
                }
                11 if depth > 0 => {
                    // A loop with a concrete trip count whose body branches.
                    let (k, head, body, exit) = (self.fresh(), self.label(), self.label(), self.label());
                    let n = self.rng.gen_range(1..4);
                    self.line(&format!("{k} = 0"));
                    let _ = writeln!(self.out, "{head}:");
                    let c = self.fresh();
                    self.line(&format!("{c} = {k} < {n}"));
                    self.line(&format!("if {c} goto {body}"));
                    self.line(&format!("goto {exit}"));
                    let _ = writeln!(self.out, "{body}:");
                    let saved = self.vars.len();
                    let count = self.rng.gen_range(1..3);
                    self.block(count, depth - 1, with_memory);
                    self.vars.truncate(saved);
                    self.line(&format!("{k} = {k} + 1"));
                    self.line(&format!("goto {head}"));
                    let _ = writeln!(self.out, "{exit}:");
                    self.line("nop = 0");
                }
                _ => {
                    let d = self.fresh();
                    let a = self.atom();
                    self.line(&format!("{d} = {a}"));
                    self.vars.push(d);
                }
            }
        }
    }
}

/// A random terminating program over `Int` inputs, from `seed`. Every
/// constraint it leads to is linear.
pub fn random_program(seed: u64) -> String {
    program(seed, false)
}

/// A [`random_program`] with memory, whose arrays include some of 100
/// cells indexed by inputs: offsets that span more cells than the engines
/// fork over.
pub fn random_memory_program(seed: u64) -> String {
    program(seed, true)
}

fn program(seed: u64, wide: bool) -> String {
    let mut g = Gen {
        rng: SmallRng::seed_from_u64(seed),
        out: String::new(),
        vars: vec![],
        next_label: 0,
        next_var: 0,
        wide,
    };
    let inputs = g.rng.gen_range(1..4);
    g.out.push_str("fn main() {\n");
    for i in 0..inputs {
        g.line(&format!("x{i} = input int \"x{i}\""));
        g.vars.push(format!("x{i}"));
    }
    let n = g.rng.gen_range(2..8);
    let memory = wide || g.rng.gen_bool(0.5);
    g.block(n, 2, memory);
    g.line("halt");
    g.out.push_str("}\n\n");
    // The helper branches on its arguments, so calls split paths too.
    g.out.push_str("fn helper(a, b) {\n    c = a < b\n    if c goto Less\n    d = a - b\n    ret d\nLess:\n    d = b - a\n    ret d\n}\n");
    g.out
}

/// A random program whose loop runs while a fresh input is non-zero and
/// only moves a few flags among constants: a finite-state loop (seed 003),
/// which terminates for every input but has unboundedly many paths. Its
/// body branches on a fresh event input and on the flags, and asserts on
/// them; more asserts follow the loop.
pub fn random_loop_program(seed: u64) -> String {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = String::from("fn main() {\n");
    let flags = rng.gen_range(1..4);
    for f in 0..flags {
        let _ = writeln!(out, "    f{f} = 0");
    }
    let _ = writeln!(
        out,
        "Head:\n    c = input int \"c\"\n    t = c == 0\n    if t goto Exit\n    e = input int \"e\""
    );
    let mut label = 0;
    for _ in 0..rng.gen_range(2..7) {
        let f = rng.gen_range(0..flags);
        let k = rng.gen_range(0..4);
        match rng.gen_range(0..5) {
            0 => {
                let _ = writeln!(out, "    f{f} = {k}");
            }
            1 => {
                let _ = writeln!(out, "    f{f} = 1 - f{f}");
            }
            2 | 3 => {
                // if <event or flag> == k then f := k2
                label += 1;
                let on = if rng.gen_bool(0.5) {
                    "e".to_string()
                } else {
                    format!("f{}", rng.gen_range(0..flags))
                };
                let k2 = rng.gen_range(0..4);
                let _ = writeln!(
                    out,
                    "    b{label} = {on} != {k}\n    if b{label} goto S{label}\n    f{f} = {k2}\nS{label}:"
                );
            }
            _ => {
                let _ = writeln!(out, "    a = f{f} != {k}\n    assert a");
            }
        }
    }
    let _ = writeln!(out, "    goto Head\nExit:");
    let f = rng.gen_range(0..flags);
    let k = rng.gen_range(0..4);
    let _ = writeln!(out, "    a = f{f} != {k}\n    assert a\n    halt\n}}");
    out
}
