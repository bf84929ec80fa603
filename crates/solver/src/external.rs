//! A second solver in another process, raced against Z3 on the questions
//! over floats (and, once Z3's kept solver has had its slice, on those over
//! bit-vectors alone: `Z3Solver::bits_rival`).
//!
//! Z3 4.8.12 bit-blasts a product of doubles into a formula it can take
//! minutes on, where Bitwuzla or cvc5 (Debian's `cvc5`) often answers far
//! sooner: a query of bench/muse/triangle.c that Z3 leaves unknown after
//! 60 s is unsat in 6 s to Bitwuzla and 22 s to cvc5 (bench/RESULTS.md,
//! "Float queries without bit round trips, and a helper solver").
//! A question over floats that Z3 has not answered after [`Helper::delay`]
//! is written as a standard SMT-LIB 2 script (the [`script`] below, which
//! needs none of Z3's extensions) and piped to the helper's command on the
//! machine's other core; the first definite answer wins and interrupts the
//! other solver. A helper's model is only a candidate: the solver layer
//! checks every model against the query before it is trusted.

use crate::SatResult;
use braid_term::{Model, Node, Op, Sort, SymId, TermId, TermStore, Value};
use std::fmt::Write as _;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// A command that reads an SMT-LIB 2 script on its standard input and
/// answers `sat`/`unsat`/`unknown`, then the `get-value` of the symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Helper {
    pub program: String,
    pub args: Vec<String>,
    /// How long Z3 has alone before the helper starts: most questions over
    /// floats take Z3 a few milliseconds, and need no process.
    pub delay: Duration,
}

/// The Python program that runs Bitwuzla on a script (see [`Helper::bitwuzla`]).
const BITWUZLA_DRIVER: &str = include_str!("bitwuzla.py");

/// How long Z3 has alone on a question over floats (see [`Helper::delay`]).
pub const DELAY: Duration = Duration::from_millis(10);

impl Helper {
    /// A helper from a command line (`cvc5 --lang smt2`), split on spaces.
    pub fn from_command(command: &str) -> Option<Helper> {
        let mut words = command.split_whitespace().map(String::from);
        Some(Helper {
            program: words.next()?,
            args: words.collect(),
            delay: DELAY,
        })
    }

    /// The helper `auto` chooses (looked up once per process): Bitwuzla
    /// when scripts/install-deps.sh made its virtual environment, else
    /// cvc5 when it is on the `PATH`. Bitwuzla decides more of braid's
    /// float questions in time (bench/RESULTS.md).
    pub fn detect() -> Option<Helper> {
        static FOUND: OnceLock<Option<Helper>> = OnceLock::new();
        FOUND.get_or_init(|| Helper::bitwuzla().or_else(Helper::cvc5)).clone()
    }

    /// Bitwuzla through its Python binding, in the virtual environment at
    /// `$BRAID_BITWUZLA_VENV` or `${XDG_DATA_HOME:-~/.local/share}/braid/bitwuzla`.
    pub fn bitwuzla() -> Option<Helper> {
        let venv = match std::env::var_os("BRAID_BITWUZLA_VENV") {
            Some(v) => std::path::PathBuf::from(v),
            None => {
                let data = match std::env::var_os("XDG_DATA_HOME") {
                    Some(d) => std::path::PathBuf::from(d),
                    None => std::path::PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
                };
                data.join("braid/bitwuzla")
            }
        };
        let python = venv.join("bin/python3");
        python.is_file().then(|| Helper {
            program: python.display().to_string(),
            args: vec!["-c".into(), BITWUZLA_DRIVER.into()],
            delay: DELAY,
        })
    }

    /// cvc5 when it is on the `PATH`.
    pub fn cvc5() -> Option<Helper> {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .any(|dir| dir.join("cvc5").is_file())
            .then(|| Helper::from_command("cvc5 --lang smt2").expect("a command"))
    }

    /// Runs the helper on `script`; `process` holds it while it runs, so
    /// that another thread can end it. `None`: no answer (the helper
    /// failed, was ended, or said `unknown`). With `memory_mb`, its address
    /// space is limited to that many MiB (`ulimit -v`).
    pub(crate) fn solve(
        &self,
        store: &TermStore,
        script: &Script,
        memory_mb: Option<u64>,
        process: &Mutex<Process>,
    ) -> Option<SatResult> {
        let mut command = match memory_mb {
            Some(mb) => {
                let mut c = Command::new("sh");
                c.args(["-c", "ulimit -v \"$0\" && exec \"$@\""])
                    .arg((mb << 10).to_string())
                    .arg(&self.program);
                c
            }
            None => Command::new(&self.program),
        };
        let mut child = command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut stdin = child.stdin.take()?;
        let mut stdout = child.stdout.take()?;
        {
            let mut p = process.lock().unwrap_or_else(|e| e.into_inner());
            p.child = Some(child);
            if p.over {
                p.end();
                return None;
            }
        }
        // Writing returns once the helper has read the script (it fails
        // if the helper was ended); closing the pipe ends its input.
        let written = braid_budget::write_to_child(&mut stdin, script.text.as_bytes());
        drop(stdin);
        let mut out = String::new();
        let read = stdout.read_to_string(&mut out).is_ok();
        let mut p = process.lock().unwrap_or_else(|e| e.into_inner());
        let ended = p.over;
        p.end();
        if !(written && read) || ended {
            return None;
        }
        let mut rest = out.trim_start();
        let first = rest.split_whitespace().next()?;
        rest = &rest[first.len()..];
        match first {
            "unsat" => Some(SatResult::Unsat),
            "sat" => script.model(store, rest).map(SatResult::Sat),
            _ => None,
        }
    }
}

/// The helper's process while it runs, and whether its answer is still
/// wanted.
#[derive(Default)]
pub(crate) struct Process {
    over: bool,
    child: Option<Child>,
}

impl Process {
    /// No answer is wanted any more: the process (if any) is killed.
    pub(crate) fn end(&mut self) {
        self.over = true;
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A question as a standard SMT-LIB 2 script, and how to read its model.
pub(crate) struct Script {
    pub text: String,
    /// The query's symbols and the name the script asks the value of
    /// (a float's bits for a float).
    symbols: Vec<(SymId, String)>,
}

impl Script {
    /// The model in the helper's `get-value` answer (`((name value) …)`).
    fn model(&self, store: &TermStore, answer: &str) -> Option<Model> {
        let pairs = parse_sexp(answer)?;
        let Sexp::List(pairs) = pairs else { return None };
        let mut values = std::collections::HashMap::new();
        for p in &pairs {
            if let Sexp::List(kv) = p {
                if let [Sexp::Atom(k), v] = &kv[..] {
                    values.insert(k.trim_matches('|').to_string(), v);
                }
            }
        }
        let mut model = Model::default();
        for (s, name) in &self.symbols {
            let v = values.get(name.trim_matches('|'))?;
            let value = match (store.symbol(*s).sort, v) {
                (Sort::Bool, Sexp::Atom(a)) => Value::Bool(a == "true"),
                (Sort::Int, v) => Value::Int(int_value(v)?),
                (Sort::Bv(w), Sexp::Atom(a)) => Value::bv(w, bits_value(a)?),
                (Sort::F32, Sexp::Atom(a)) => Value::F32(bits_value(a)? as u32),
                (Sort::F64, Sexp::Atom(a)) => Value::F64(bits_value(a)?),
                _ => return None,
            };
            model.insert(*s, value);
        }
        Some(model)
    }
}

/// `constraints` as a script that checks them and asks for the symbols'
/// values, or `None` when a term uses what the script does not write
/// (arrays, addresses, WebAssembly's copysign): such questions stay with
/// Z3.
pub(crate) fn script(store: &TermStore, constraints: &[TermId]) -> Option<Script> {
    let (mut text, symbols) = assertions(store, constraints)?;
    text.push_str("(check-sat)\n(get-value (");
    for (_, name) in &symbols {
        text.push_str(name);
        text.push(' ');
    }
    text.push_str("))\n");
    Some(Script { text, symbols })
}

/// [`script`] up to its `check-sat`: the options, a definition per term
/// and the assertions (what `--dump-queries` writes), and the symbols'
/// names to ask the values of.
pub(crate) fn assertions(store: &TermStore, constraints: &[TermId]) -> Option<(String, Vec<(SymId, String)>)> {
    let mut text = String::from("(set-option :produce-models true)\n(set-logic ALL)\n");
    let mut symbols = Vec::new();
    for t in store.postorder(constraints) {
        let name = format!("t{}", t.0);
        match store.node(t) {
            Node::Const(_) => {}
            Node::Sym(s) => {
                let sort = store.sort(t);
                let asked = match sort {
                    // A float is declared by its bits, so its value comes
                    // back as the bits braid keeps.
                    Sort::F32 | Sort::F64 => {
                        let bits = format!("{name}b");
                        let width = if sort == Sort::F32 { 32 } else { 64 };
                        writeln!(text, "(declare-const {bits} (_ BitVec {width}))").ok()?;
                        writeln!(
                            text,
                            "(define-fun {name} () {} ({} {bits}))",
                            sort_name(sort)?,
                            to_fp(sort)?
                        )
                        .ok()?;
                        bits
                    }
                    _ => {
                        writeln!(text, "(declare-const {name} {})", sort_name(sort)?).ok()?;
                        name
                    }
                };
                symbols.push((*s, asked));
            }
            // A float's bits: any bit-vector that reads as the float (any
            // NaN's, for a NaN, as Z3's `fp.to_ieee_bv` has it).
            Node::App(Op::Reinterpret, a) if store.sort(a[0]).is_float() => {
                let sort = store.sort(t);
                writeln!(text, "(declare-const {name} {})", sort_name(sort)?).ok()?;
                writeln!(
                    text,
                    "(assert (= ({} {name}) {}))",
                    to_fp(store.sort(a[0]))?,
                    operand(store, a[0])?
                )
                .ok()?;
            }
            Node::App(op, a) => {
                let e = application(store, *op, a)?;
                writeln!(text, "(define-fun {name} () {} {e})", sort_name(store.sort(t))?).ok()?;
            }
        }
    }
    for c in constraints {
        writeln!(text, "(assert {})", operand(store, *c)?).ok()?;
    }
    Some((text, symbols))
}

fn sort_name(sort: Sort) -> Option<String> {
    Some(match sort {
        Sort::Bool => "Bool".into(),
        Sort::Int => "Int".into(),
        Sort::Bv(w) => format!("(_ BitVec {w})"),
        Sort::F32 | Sort::F64 => {
            let (eb, sb) = float_widths(sort)?;
            format!("(_ FloatingPoint {eb} {sb})")
        }
        _ => return None,
    })
}

/// A float sort's exponent and significand widths.
fn float_widths(sort: Sort) -> Option<(u8, u8)> {
    match sort {
        Sort::F32 => Some((8, 24)),
        Sort::F64 => Some((11, 53)),
        _ => None,
    }
}

/// The conversion of a float sort's bits to the float.
fn to_fp(sort: Sort) -> Option<String> {
    let (eb, sb) = float_widths(sort)?;
    Some(format!("(_ to_fp {eb} {sb})"))
}

/// A term as an operand: a constant written out, anything else by name.
fn operand(store: &TermStore, t: TermId) -> Option<String> {
    match store.node(t) {
        Node::Const(v) => operand_value(*v),
        _ => Some(format!("t{}", t.0)),
    }
}

/// A constant written out.
fn operand_value(v: Value) -> Option<String> {
    Some(match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) if i < 0 => format!("(- {})", i.unsigned_abs()),
        Value::Int(i) => i.to_string(),
        Value::Bv { width, bits } => format!("(_ bv{bits} {width})"),
        Value::F32(b) => format!("((_ to_fp 8 24) (_ bv{b} 32))"),
        Value::F64(b) => format!("((_ to_fp 11 53) (_ bv{b} 64))"),
        _ => return None,
    })
}

/// `op(args)` in SMT-LIB, with the meaning the Z3 backend gives it.
fn application(store: &TermStore, op: Op, args: &[TermId]) -> Option<String> {
    let a: Vec<String> = args.iter().map(|x| operand(store, *x)).collect::<Option<_>>()?;
    let s0 = store.sort(*args.first()?);
    let x = &a[0];
    let y = || a.get(1).cloned().unwrap_or_default();
    let f = |name: &str| Some(format!("({name} {})", a.join(" ")));
    let rne = |name: &str| Some(format!("({name} RNE {})", a.join(" ")));
    let width = |s: Sort| match s {
        Sort::Bv(w) => Some(w),
        Sort::F32 => Some(32),
        Sort::F64 => Some(64),
        _ => None,
    };
    let float_of = |w: u8| match w {
        32 => Some(Sort::F32),
        64 => Some(Sort::F64),
        _ => None,
    };
    if op == Op::Ite {
        return f("ite");
    }
    match s0 {
        Sort::Bool => match op {
            Op::Not => f("not"),
            Op::And => f("and"),
            Op::Or => f("or"),
            Op::Xor => f("xor"),
            Op::Eq => f("="),
            Op::Ne => f("distinct"),
            Op::ToInt => Some(format!("(ite {x} 1 0)")),
            Op::ToBv(w) => Some(format!("(ite {x} (_ bv1 {w}) (_ bv0 {w}))")),
            _ => None,
        },
        Sort::Int => match op {
            Op::Add => f("+"),
            Op::Sub => f("-"),
            Op::Mul => f("*"),
            Op::Div => f("div"),
            Op::Rem => f("mod"),
            Op::Neg => f("-"),
            Op::Eq => f("="),
            Op::Ne => f("distinct"),
            Op::Lt => f("<"),
            Op::Le => f("<="),
            Op::Gt => f(">"),
            Op::Ge => f(">="),
            Op::ToInt => Some(x.clone()),
            Op::ToBv(w) => Some(format!("((_ int2bv {w}) {x})")),
            _ => None,
        },
        Sort::Bv(w) => match op {
            Op::Add => f("bvadd"),
            Op::Sub => f("bvsub"),
            Op::Mul => f("bvmul"),
            Op::Div => f("bvsdiv"),
            Op::Rem => f("bvsrem"),
            Op::UDiv => f("bvudiv"),
            Op::URem => f("bvurem"),
            Op::Neg => f("bvneg"),
            Op::Not => f("bvnot"),
            Op::And => f("bvand"),
            Op::Or => f("bvor"),
            Op::Xor => f("bvxor"),
            Op::Shl => f("bvshl"),
            Op::LShr => f("bvlshr"),
            Op::AShr => f("bvashr"),
            Op::Eq => f("="),
            Op::Ne => f("distinct"),
            Op::Lt => f("bvslt"),
            Op::Le => f("bvsle"),
            Op::Gt => f("bvsgt"),
            Op::Ge => f("bvsge"),
            Op::ULt => f("bvult"),
            Op::ULe => f("bvule"),
            Op::UGt => f("bvugt"),
            Op::UGe => f("bvuge"),
            Op::ZExt(to) => Some(format!("((_ zero_extend {}) {x})", to.checked_sub(w)?)),
            Op::SExt(to) | Op::ToBv(to) if to >= w => Some(format!("((_ sign_extend {}) {x})", to - w)),
            Op::Trunc(to) | Op::ToBv(to) => Some(format!("((_ extract {} 0) {x})", to.checked_sub(1)?)),
            // Signed, as the Z3 backend reads it.
            Op::ToInt => Some(format!(
                "(ite (bvslt {x} (_ bv0 {w})) (- (bv2nat {x}) {}) (bv2nat {x}))",
                1u128 << w
            )),
            Op::Reinterpret => Some(format!("({} {x})", to_fp(float_of(w)?)?)),
            Op::ConvertS(to) => Some(format!("({} RNE {x})", to_fp(float_of(to)?)?)),
            Op::ConvertU(to) => {
                let (eb, sb) = float_widths(float_of(to)?)?;
                Some(format!("((_ to_fp_unsigned {eb} {sb}) RNE {x})"))
            }
            _ => None,
        },
        Sort::F32 | Sort::F64 => match op {
            Op::Add => rne("fp.add"),
            Op::Sub => rne("fp.sub"),
            Op::Mul => rne("fp.mul"),
            Op::Div => rne("fp.div"),
            Op::Neg => f("fp.neg"),
            Op::FAbs => f("fp.abs"),
            Op::FSqrt => rne("fp.sqrt"),
            Op::FCeil => Some(format!("(fp.roundToIntegral RTP {x})")),
            Op::FFloor => Some(format!("(fp.roundToIntegral RTN {x})")),
            Op::FTrunc => Some(format!("(fp.roundToIntegral RTZ {x})")),
            Op::FNearest => Some(format!("(fp.roundToIntegral RNE {x})")),
            Op::Eq => f("fp.eq"),
            Op::Ne => Some(format!("(not (fp.eq {x} {}))", y())),
            Op::Lt => f("fp.lt"),
            Op::Le => f("fp.leq"),
            Op::Gt => f("fp.gt"),
            Op::Ge => f("fp.geq"),
            Op::FConvert(to) if Some(to) == width(s0) => Some(x.clone()),
            Op::FConvert(to) => Some(format!("({} RNE {x})", to_fp(float_of(to)?)?)),
            Op::TruncS(to) => Some(format!("((_ fp.to_sbv {to}) RTZ {x})")),
            Op::TruncU(to) => Some(format!("((_ fp.to_ubv {to}) RTZ {x})")),
            // NaN if either is; else the smaller (larger); of equal values
            // (±0) the negative (positive) one.
            Op::FMin | Op::FMax => {
                let y = y();
                let (eb, sb) = float_widths(s0)?;
                let (small, large, tie) = if op == Op::FMin {
                    (x.as_str(), y.as_str(), format!("(ite (fp.isNegative {x}) {x} {y})"))
                } else {
                    (y.as_str(), x.as_str(), format!("(ite (fp.isNegative {x}) {y} {x})"))
                };
                Some(format!(
                    "(ite (or (fp.isNaN {x}) (fp.isNaN {y})) (_ NaN {eb} {sb}) \
                     (ite (fp.lt {x} {y}) {small} (ite (fp.lt {y} {x}) {large} {tie})))"
                ))
            }
            // NaN is 0, out of range the nearest bound.
            Op::TruncSatS(to) | Op::TruncSatU(to) => {
                let signed = op == Op::TruncSatS(to);
                let (lo, hi) = braid_term::int_range(signed, to);
                let (min, max) = braid_term::saturation_bits(signed, to);
                let float = |v: f64| match s0 {
                    Sort::F32 => operand_value(Value::F32((v as f32).to_bits())),
                    _ => operand_value(Value::F64(v.to_bits())),
                };
                let (lo, hi) = (float(lo)?, float(hi)?);
                let whole = format!("(fp.roundToIntegral RTZ {x})");
                let conv = format!("((_ fp.to_{}bv {to}) RTZ {x})", if signed { "s" } else { "u" });
                Some(format!(
                    "(ite (fp.isNaN {x}) (_ bv0 {to}) (ite (fp.lt {whole} {lo}) (_ bv{min} {to}) \
                     (ite (not (fp.lt {whole} {hi})) (_ bv{max} {to}) {conv})))"
                ))
            }
            _ => None,
        },
        _ => None,
    }
}

/// An S-expression of a solver's answer.
#[derive(Debug, PartialEq)]
enum Sexp {
    Atom(String),
    List(Vec<Sexp>),
}

/// The first S-expression of `text`.
fn parse_sexp(text: &str) -> Option<Sexp> {
    let mut stack: Vec<Vec<Sexp>> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' => stack.push(Vec::new()),
            ')' => {
                let done = Sexp::List(stack.pop()?);
                match stack.last_mut() {
                    Some(up) => up.push(done),
                    None => return Some(done),
                }
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = i + c.len_utf8();
                let quoted = c == '|';
                while let Some(&(j, d)) = chars.peek() {
                    let stop = if quoted {
                        end > i + 1 && text[..end].ends_with('|')
                    } else {
                        d.is_whitespace() || d == '(' || d == ')'
                    };
                    if stop {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                let atom = Sexp::Atom(text[i..end].to_string());
                match stack.last_mut() {
                    Some(up) => up.push(atom),
                    None => return Some(atom),
                }
            }
        }
    }
    None
}

/// A bit-vector literal's bits: `#b…`, `#x…` or `(_ bvN w)` written as an atom.
fn bits_value(atom: &str) -> Option<u64> {
    if let Some(b) = atom.strip_prefix("#b") {
        u64::from_str_radix(b, 2).ok()
    } else if let Some(h) = atom.strip_prefix("#x") {
        u64::from_str_radix(h, 16).ok()
    } else {
        None
    }
}

/// An integer literal: `12` or `(- 12)`.
fn int_value(v: &Sexp) -> Option<i128> {
    match v {
        Sexp::Atom(a) => a.parse().ok(),
        Sexp::List(l) => match &l[..] {
            [Sexp::Atom(m), Sexp::Atom(a)] if m == "-" => a.parse::<i128>().ok().map(|x| -x),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_term::eval_op;

    #[test]
    fn answers_are_parsed() {
        let p = parse_sexp("((t1b #b0101) (|t2| (- 7)) (t3 true))").unwrap();
        let Sexp::List(l) = p else { panic!("a list") };
        assert_eq!(l.len(), 3);
        assert_eq!(
            l[1],
            Sexp::List(vec![
                Sexp::Atom("|t2|".into()),
                Sexp::List(vec![Sexp::Atom("-".into()), Sexp::Atom("7".into())])
            ])
        );
        assert_eq!(
            int_value(&Sexp::List(vec![Sexp::Atom("-".into()), Sexp::Atom("7".into())])),
            Some(-7)
        );
        assert_eq!(bits_value("#b0101"), Some(5));
        assert_eq!(bits_value("#xff"), Some(255));
    }

    /// Both helpers (scripts/install-deps.sh installs them) decide a
    /// question over a product of floats, what Z3 4.8.12 is slow on, and
    /// their models satisfy it.
    #[test]
    fn the_helpers_decide_a_float_question() {
        let cvc5 = Helper::cvc5().expect("cvc5 on the PATH (scripts/install-deps.sh installs it)");
        let bitwuzla = Helper::bitwuzla().expect("Bitwuzla's environment (scripts/install-deps.sh makes it)");
        for helper in [cvc5, bitwuzla] {
            decides_a_float_question(&helper);
        }
    }

    /// The script's WebAssembly min, max and saturating conversions agree
    /// with `eval_op` on NaN, signed zeros, infinities and out-of-range
    /// values: that a case differs is unsat (each case's script read and
    /// checked by Z3 in-process, which reads standard SMT-LIB too).
    #[test]
    fn written_float_operations_agree_with_eval() {
        let mut store = TermStore::new();
        let values = [0.0, -0.0, 1.5, -2.0, f64::INFINITY, f64::NAN, -3.7, 2.9, 3e9, -1e30];
        let mut n = 0;
        let mut input = |store: &mut TermStore, fixed: &mut Vec<TermId>, v: f64| {
            n += 1;
            let x = store.symbol_term(&format!("x{n}"), Sort::F64);
            let bits = store.app(Op::Reinterpret, &[x]).unwrap();
            let c = store.constant(Value::bv(64, v.to_bits()));
            fixed.push(store.app(Op::Eq, &[bits, c]).unwrap());
            x
        };
        let check = |store: &TermStore, query: &[TermId], what: String| {
            let s = script(store, query).expect("a script");
            let ctx = z3::Context::new(&z3::Config::new());
            let solver = z3::Solver::new(&ctx);
            solver.from_string(s.text.replace("(check-sat)", "").split("(get-value").next().unwrap());
            assert_eq!(solver.check(), z3::SatResult::Unsat, "{what}:\n{}", s.text);
        };
        for op in [Op::FMin, Op::FMax] {
            for a in values {
                for b in values {
                    let mut q = Vec::new();
                    let (x, y) = (input(&mut store, &mut q, a), input(&mut store, &mut q, b));
                    let r = store.app(op, &[x, y]).unwrap();
                    let Ok(Value::F64(e)) = eval_op(op, &[Value::F64(a.to_bits()), Value::F64(b.to_bits())]) else {
                        panic!("a double")
                    };
                    q.push(if f64::from_bits(e).is_nan() {
                        store.app(Op::Eq, &[r, r]).unwrap()
                    } else {
                        let bits = store.app(Op::Reinterpret, &[r]).unwrap();
                        let e = store.constant(Value::bv(64, e));
                        store.app(Op::Ne, &[bits, e]).unwrap()
                    });
                    check(&store, &q, format!("{op} {a} {b}"));
                }
            }
        }
        for op in [
            Op::TruncSatS(32),
            Op::TruncSatU(32),
            Op::TruncSatS(64),
            Op::TruncSatU(64),
        ] {
            for a in values {
                let mut q = Vec::new();
                let x = input(&mut store, &mut q, a);
                let r = store.app(op, &[x]).unwrap();
                let e = store.constant(eval_op(op, &[Value::F64(a.to_bits())]).unwrap());
                q.push(store.app(Op::Ne, &[r, e]).unwrap());
                check(&store, &q, format!("{op} {a}"));
            }
        }
    }

    fn decides_a_float_question(helper: &Helper) {
        let mut store = TermStore::new();
        let x = store.symbol_term("x", Sort::F64);
        let bits = store.app(Op::Reinterpret, &[x]).unwrap();
        let xx = store.app(Op::Mul, &[x, x]).unwrap();
        let two = store.constant(Value::F64(2.0f64.to_bits()));
        let three = store.constant(Value::F64(3.0f64.to_bits()));
        let above = store.app(Op::Gt, &[xx, two]).unwrap();
        let below = store.app(Op::Lt, &[xx, three]).unwrap();
        let one = store.constant(Value::bv(64, 1));
        let odd = store.app(Op::And, &[bits, one]).unwrap();
        let odd = store.app(Op::Eq, &[odd, one]).unwrap();
        let query = [above, below, odd];
        let s = script(&store, &query).expect("a script");
        assert!(!s.text.contains("to_ieee_bv"), "{}", s.text);
        let answer = helper.solve(&store, &s, Some(1024), &Mutex::new(Process::default()));
        // Without room for its own start, a helper gives no answer.
        assert_eq!(helper.solve(&store, &s, Some(1), &Mutex::new(Process::default())), None);
        let Some(SatResult::Sat(m)) = answer else {
            panic!("expected sat, got {answer:?}")
        };
        for c in query {
            assert_eq!(store.eval(c, &m), Ok(Value::Bool(true)));
        }
        let never = store.app(Op::Lt, &[xx, two]).unwrap();
        let s = script(&store, &[above, never]).expect("a script");
        assert_eq!(
            helper.solve(&store, &s, Some(1024), &Mutex::new(Process::default())),
            Some(SatResult::Unsat)
        );
    }
}
