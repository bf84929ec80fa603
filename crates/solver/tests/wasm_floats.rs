//! WebAssembly's float operations mean the same to Z3 as to `eval_op`: for
//! each operation and a spread of inputs (zeros, NaN, infinities, halves,
//! bounds), fixing the input's bits forces the result's bits to be the ones
//! `eval_op` computes (any NaN for a NaN).

use braid_solver::{QuerySolver, SatResult, Z3Solver};
use braid_term::{eval_op, Op, Sort, TermStore, Value};

fn floats32() -> Vec<Value> {
    [-0.0f32, 2.5, -2.5, 0.49999997, 3e9, 4.3e9, f32::NEG_INFINITY, f32::NAN]
        .iter()
        .map(|x| Value::f32(*x))
        .collect()
}

fn floats64() -> Vec<Value> {
    [
        -0.0f64,
        2.5,
        -2.5,
        0.49999999999999994,
        -3e9,
        1e19,
        f64::INFINITY,
        f64::NAN,
    ]
    .iter()
    .map(|x| Value::f64(*x))
    .collect()
}

fn bits_of(v: Value) -> Value {
    match v {
        Value::F32(b) => Value::bv(32, b as u64),
        Value::F64(b) => Value::bv(64, b),
        other => other,
    }
}

fn is_nan(v: Value) -> bool {
    match v {
        Value::F32(b) => f32::from_bits(b).is_nan(),
        Value::F64(b) => f64::from_bits(b).is_nan(),
        _ => false,
    }
}

/// Checks `op` on arguments `vals` (symbols fixed to them by their bits).
fn agree(q: &mut QuerySolver, s: &mut TermStore, op: Op, vals: &[Value]) {
    let Ok(expected) = eval_op(op, vals) else { return };
    let mut pc = Vec::new();
    let mut args = Vec::new();
    for (i, v) in vals.iter().enumerate() {
        let x = s.symbol_term(&format!("x{i}_{}", v.sort()), v.sort());
        let bits = match v.sort() {
            Sort::F32 | Sort::F64 => s.app(Op::Reinterpret, &[x]).unwrap(),
            _ => x,
        };
        let c = s.constant(bits_of(*v));
        pc.push(s.app(Op::Eq, &[bits, c]).unwrap());
        args.push(x);
    }
    let r = s.app(op, &args).unwrap();
    let differs = if is_nan(expected) {
        // Not a NaN.
        s.app(Op::Eq, &[r, r]).unwrap()
    } else {
        let bits = match expected.sort() {
            Sort::F32 | Sort::F64 => s.app(Op::Reinterpret, &[r]).unwrap(),
            _ => r,
        };
        let c = s.constant(bits_of(expected));
        s.app(Op::Ne, &[bits, c]).unwrap()
    };
    match q.check(s, &pc, differs, None) {
        SatResult::Unsat => {}
        other => panic!("{op:?} {vals:?}: eval gives {expected:?}, Z3 allows otherwise ({other:?})"),
    }
}

#[test]
fn float_operations_agree_with_eval() {
    let mut s = TermStore::new();
    let mut q = QuerySolver::new(Box::new(Z3Solver::new(Some(20_000))));
    for (vals, w) in [(floats32(), 32u8), (floats64(), 64u8)] {
        // Square roots bit-blast slowly (f64: beyond 20 s): one f32 input.
        if w == 32 {
            agree(&mut q, &mut s, Op::FSqrt, &[vals[1]]);
        }
        for v in &vals {
            for op in [
                Op::FAbs,
                Op::FCeil,
                Op::FFloor,
                Op::FTrunc,
                Op::FNearest,
                Op::Neg,
                Op::Reinterpret,
            ] {
                agree(&mut q, &mut s, op, &[*v]);
            }
            for to in [32, 64] {
                for op in [
                    Op::FConvert(to),
                    Op::TruncS(to),
                    Op::TruncU(to),
                    Op::TruncSatS(to),
                    Op::TruncSatU(to),
                ] {
                    agree(&mut q, &mut s, op, &[*v]);
                }
            }
            for u in vals.iter().step_by(2) {
                for op in [Op::FMin, Op::FMax, Op::FCopysign] {
                    agree(&mut q, &mut s, op, &[*v, *u]);
                }
            }
        }
        let ints = [7u64, u64::MAX, 1 << 31, 1 << 63, 0x1234_5678_9abc_def1];
        for i in ints {
            let v = Value::bv(w, i);
            for to in [32, 64] {
                for op in [Op::ConvertS(to), Op::ConvertU(to)] {
                    agree(&mut q, &mut s, op, &[v]);
                }
            }
            agree(&mut q, &mut s, Op::Reinterpret, &[v]);
        }
    }
}
