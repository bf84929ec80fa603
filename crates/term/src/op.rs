//! Operations and their concrete semantics.
//!
//! [`eval_op`] is the one definition of what an operation means on concrete
//! values: constant folding, evaluation under a model and the concrete
//! interpreter all call it, and the solver encoding must agree with it (replay
//! checks that it does).

use crate::value::{mask, Sort, Value};
use std::fmt;
use thiserror::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// `Int`: Euclidean division (SMT-LIB `div`); `BV`: signed, truncating; floats: IEEE.
    Div,
    /// `Int`: Euclidean remainder (SMT-LIB `mod`); `BV`: signed remainder.
    Rem,
    UDiv,
    URem,
    Neg,
    /// Logical on `Bool`, bitwise on `BV`.
    And,
    Or,
    Xor,
    Not,
    Shl,
    LShr,
    AShr,
    Eq,
    Ne,
    /// Ordered comparisons: `Int`, signed `BV`, IEEE floats, addresses of one allocation.
    Lt,
    Le,
    Gt,
    Ge,
    ULt,
    ULe,
    UGt,
    UGe,
    Ite,
    ZExt(u8),
    SExt(u8),
    Trunc(u8),
    ToInt,
    ToF32,
    ToF64,
    ToBv(u8),
    /// `Addr(a)(off)`: the address at offset `off` of allocation `a`.
    Addr(u32),
    // WebAssembly's floating point, with its semantics (IEEE 754, round to
    // nearest even; NaN results are canonical).
    FAbs,
    FSqrt,
    FCeil,
    FFloor,
    FTrunc,
    /// Round to the nearest integer, ties to even.
    FNearest,
    /// `min`/`max`: NaN if either is, and -0 < +0.
    FMin,
    FMax,
    FCopysign,
    /// The same bits as a float (from `BV`) or a bit-vector (from a float).
    Reinterpret,
    /// A signed (`S`) or unsigned (`U`) bit-vector to the float of the width.
    ConvertS(u8),
    ConvertU(u8),
    /// A float to the float of the width (promote, demote).
    FConvert(u8),
    /// A float, truncated, to a signed or unsigned bit-vector: NaN is an
    /// invalid conversion, out of range an overflow.
    TruncS(u8),
    TruncU(u8),
    /// The same, saturating: NaN is 0, out of range the nearest bound.
    TruncSatS(u8),
    TruncSatU(u8),
    /// An array read, `read(index, default, k1, v1, k2, v2, …)`: `v_i` when
    /// `index == k_i`, else `default`. The keys are distinct `Int` constants
    /// in ascending order and every `v_i` has `default`'s sort: a snapshot of
    /// memory cells read at a symbolic offset (an SMT array `select`).
    Read,
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EvalError {
    #[error("division by zero")]
    DivByZero,
    #[error("type error: {0}")]
    Type(String),
    #[error("integer overflow beyond 128 bits")]
    Overflow,
    #[error("invalid conversion: {0}")]
    InvalidConversion(String),
}

impl Op {
    pub fn arity(self) -> usize {
        match self {
            Op::Neg | Op::Not | Op::ZExt(_) | Op::SExt(_) | Op::Trunc(_) => 1,
            Op::ToInt | Op::ToF32 | Op::ToF64 | Op::ToBv(_) | Op::Addr(_) => 1,
            Op::FAbs | Op::FSqrt | Op::FCeil | Op::FFloor | Op::FTrunc | Op::FNearest | Op::Reinterpret => 1,
            Op::ConvertS(_) | Op::ConvertU(_) | Op::FConvert(_) => 1,
            Op::TruncS(_) | Op::TruncU(_) | Op::TruncSatS(_) | Op::TruncSatU(_) => 1,
            Op::Ite => 3,
            _ => 2,
        }
    }

    /// Whether `n` operands suit the operator (`read` takes an index, a
    /// default and any number of key-value pairs).
    pub fn takes(self, n: usize) -> bool {
        match self {
            Op::Read => n >= 2 && n.is_multiple_of(2),
            _ => n == self.arity(),
        }
    }

    /// The `.bir` spelling of a binary operator.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
            Op::UDiv => "udiv",
            Op::URem => "urem",
            Op::Neg => "-",
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::Not => "!",
            Op::Shl => "<<",
            Op::LShr => "lshr",
            Op::AShr => ">>",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::ULt => "ult",
            Op::ULe => "ule",
            Op::UGt => "ugt",
            Op::UGe => "uge",
            Op::Ite => "select",
            Op::ZExt(_) => "zext",
            Op::SExt(_) => "sext",
            Op::Trunc(_) => "trunc",
            Op::ToInt => "toint",
            Op::ToF32 => "tof32",
            Op::ToF64 => "tof64",
            Op::ToBv(_) => "tobv",
            Op::Addr(_) => "addr",
            Op::FAbs => "fabs",
            Op::FSqrt => "fsqrt",
            Op::FCeil => "fceil",
            Op::FFloor => "ffloor",
            Op::FTrunc => "ftrunc",
            Op::FNearest => "fnearest",
            Op::FMin => "fmin",
            Op::FMax => "fmax",
            Op::FCopysign => "copysign",
            Op::Reinterpret => "reinterpret",
            Op::ConvertS(_) => "convert_s",
            Op::ConvertU(_) => "convert_u",
            Op::FConvert(_) => "fconvert",
            Op::TruncS(_) => "trunc_s",
            Op::TruncU(_) => "trunc_u",
            Op::TruncSatS(_) => "trunc_sat_s",
            Op::TruncSatU(_) => "trunc_sat_u",
            Op::Read => "read",
        }
    }

    /// Unary operators written `word x` (or `word bvW x` / `word fW x`),
    /// by their `.bir` spelling, with the width the spelling needs.
    pub fn unary_from_word(s: &str, width: Option<u8>) -> Option<Op> {
        Some(match (s, width) {
            ("fabs", None) => Op::FAbs,
            ("fsqrt", None) => Op::FSqrt,
            ("fceil", None) => Op::FCeil,
            ("ffloor", None) => Op::FFloor,
            ("ftrunc", None) => Op::FTrunc,
            ("fnearest", None) => Op::FNearest,
            ("reinterpret", None) => Op::Reinterpret,
            ("convert_s", Some(w)) => Op::ConvertS(w),
            ("convert_u", Some(w)) => Op::ConvertU(w),
            ("fconvert", Some(w)) => Op::FConvert(w),
            ("trunc_s", Some(w)) => Op::TruncS(w),
            ("trunc_u", Some(w)) => Op::TruncU(w),
            ("trunc_sat_s", Some(w)) => Op::TruncSatS(w),
            ("trunc_sat_u", Some(w)) => Op::TruncSatU(w),
            _ => return None,
        })
    }

    /// Whether the `.bir` spelling of this unary operator takes a float
    /// width (`f32`/`f64`) rather than a bit-vector one.
    pub fn takes_float_width(self) -> bool {
        matches!(self, Op::ConvertS(_) | Op::ConvertU(_) | Op::FConvert(_))
    }

    /// Binary operators by their `.bir` spelling.
    pub fn binary_from_symbol(s: &str) -> Option<Op> {
        const BINARY: [Op; 26] = [
            Op::FMin,
            Op::FMax,
            Op::FCopysign,
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::Div,
            Op::Rem,
            Op::UDiv,
            Op::URem,
            Op::And,
            Op::Or,
            Op::Xor,
            Op::Shl,
            Op::LShr,
            Op::AShr,
            Op::Eq,
            Op::Ne,
            Op::Lt,
            Op::Le,
            Op::Gt,
            Op::Ge,
            Op::ULt,
            Op::ULe,
            Op::UGt,
            Op::UGe,
        ];
        match s {
            "&&" => Some(Op::And),
            "||" => Some(Op::Or),
            _ => BINARY.into_iter().find(|op| op.symbol() == s),
        }
    }

    /// The comparisons, signed and unsigned.
    pub const COMPARISONS: [Op; 10] = [
        Op::Eq,
        Op::Ne,
        Op::ULt,
        Op::ULe,
        Op::UGt,
        Op::UGe,
        Op::Lt,
        Op::Le,
        Op::Gt,
        Op::Ge,
    ];

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::ULt | Op::ULe | Op::UGt | Op::UGe
        )
    }

    /// Whether an `Int` operand meeting a float operand is promoted to the
    /// float's sort (JavaScript-like numeric promotion).
    pub fn promotes_numbers(self) -> bool {
        matches!(
            self,
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge
        )
    }

    /// The sort of `op(args)`, or why it is ill-typed. Operands are assumed
    /// already promoted (see [`Op::promotes_numbers`]).
    pub fn result_sort(self, args: &[Sort]) -> Result<Sort, EvalError> {
        use Sort::*;
        let bad = || {
            let list: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            Err(EvalError::Type(format!(
                "`{}` does not apply to ({})",
                self.symbol(),
                list.join(", ")
            )))
        };
        if !self.takes(args.len()) {
            return bad();
        }
        match self {
            Op::Read => {
                let keys_int = args.iter().skip(2).step_by(2).all(|s| *s == Int);
                let values_alike = args.iter().skip(3).step_by(2).all(|s| *s == args[1]);
                if args[0] == Int && keys_int && values_alike {
                    Ok(args[1])
                } else {
                    bad()
                }
            }
            Op::Add | Op::Sub => match (args[0], args[1]) {
                (Int, Int) => Ok(Int),
                (Bv(a), Bv(b)) if a == b => Ok(Bv(a)),
                (F32, F32) => Ok(F32),
                (F64, F64) => Ok(F64),
                (Addr, Int | Bv(_)) => Ok(Addr),
                (Int | Bv(_), Addr) if self == Op::Add => Ok(Addr),
                (Addr, Addr) if self == Op::Sub => Ok(Int),
                _ => bad(),
            },
            Op::Mul | Op::Div => match (args[0], args[1]) {
                (Int, Int) => Ok(Int),
                (Bv(a), Bv(b)) if a == b => Ok(Bv(a)),
                (F32, F32) => Ok(F32),
                (F64, F64) => Ok(F64),
                _ => bad(),
            },
            Op::Rem => match (args[0], args[1]) {
                (Int, Int) => Ok(Int),
                (Bv(a), Bv(b)) if a == b => Ok(Bv(a)),
                _ => bad(),
            },
            Op::UDiv | Op::URem | Op::Shl | Op::LShr | Op::AShr => match (args[0], args[1]) {
                (Bv(a), Bv(b)) if a == b => Ok(Bv(a)),
                _ => bad(),
            },
            Op::Neg => match args[0] {
                Int | Bv(_) | F32 | F64 => Ok(args[0]),
                _ => bad(),
            },
            Op::Not => match args[0] {
                Bool | Bv(_) => Ok(args[0]),
                _ => bad(),
            },
            Op::And | Op::Or | Op::Xor => match (args[0], args[1]) {
                (Bool, Bool) => Ok(Bool),
                (Bv(a), Bv(b)) if a == b => Ok(Bv(a)),
                _ => bad(),
            },
            // Values of different sorts are simply unequal.
            Op::Eq | Op::Ne => Ok(Bool),
            Op::Lt | Op::Le | Op::Gt | Op::Ge => match (args[0], args[1]) {
                (Int, Int) | (F32, F32) | (F64, F64) | (Addr, Addr) => Ok(Bool),
                (Bv(a), Bv(b)) if a == b => Ok(Bool),
                _ => bad(),
            },
            Op::ULt | Op::ULe | Op::UGt | Op::UGe => match (args[0], args[1]) {
                (Bv(a), Bv(b)) if a == b => Ok(Bool),
                _ => bad(),
            },
            Op::Ite => match args[0] {
                Bool if args[1] == args[2] => Ok(args[1]),
                _ => bad(),
            },
            Op::ZExt(w) | Op::SExt(w) => match args[0] {
                Bv(a) if a <= w => Ok(Bv(w)),
                _ => bad(),
            },
            Op::Trunc(w) => match args[0] {
                Bv(a) if a >= w => Ok(Bv(w)),
                _ => bad(),
            },
            Op::ToInt => match args[0] {
                Int | Bool | Bv(_) | F32 | F64 => Ok(Int),
                _ => bad(),
            },
            Op::ToF32 | Op::ToF64 => match args[0] {
                Int | Bv(_) | F32 | F64 => Ok(if self == Op::ToF32 { F32 } else { F64 }),
                _ => bad(),
            },
            Op::ToBv(w) => match args[0] {
                Int | Bool | Bv(_) | F32 | F64 => Ok(Bv(w)),
                _ => bad(),
            },
            Op::Addr(_) => match args[0] {
                Int => Ok(Addr),
                _ => bad(),
            },
            Op::FAbs | Op::FSqrt | Op::FCeil | Op::FFloor | Op::FTrunc | Op::FNearest => match args[0] {
                F32 | F64 => Ok(args[0]),
                _ => bad(),
            },
            Op::FMin | Op::FMax | Op::FCopysign => match (args[0], args[1]) {
                (F32, F32) => Ok(F32),
                (F64, F64) => Ok(F64),
                _ => bad(),
            },
            Op::Reinterpret => match args[0] {
                Bv(32) => Ok(F32),
                Bv(64) => Ok(F64),
                F32 => Ok(Bv(32)),
                F64 => Ok(Bv(64)),
                _ => bad(),
            },
            Op::ConvertS(w) | Op::ConvertU(w) => match (args[0], w) {
                (Bv(_), 32) => Ok(F32),
                (Bv(_), 64) => Ok(F64),
                _ => bad(),
            },
            Op::FConvert(w) => match (args[0], w) {
                (F32 | F64, 32) => Ok(F32),
                (F32 | F64, 64) => Ok(F64),
                _ => bad(),
            },
            Op::TruncS(w) | Op::TruncU(w) | Op::TruncSatS(w) | Op::TruncSatU(w) => match args[0] {
                F32 | F64 if (1..=64).contains(&w) => Ok(Bv(w)),
                _ => bad(),
            },
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::ZExt(w)
            | Op::SExt(w)
            | Op::Trunc(w)
            | Op::ToBv(w)
            | Op::TruncS(w)
            | Op::TruncU(w)
            | Op::TruncSatS(w)
            | Op::TruncSatU(w) => {
                write!(f, "{} bv{w}", self.symbol())
            }
            Op::ConvertS(w) | Op::ConvertU(w) | Op::FConvert(w) => write!(f, "{} f{w}", self.symbol()),
            Op::Addr(a) => write!(f, "addr a{a}"),
            _ => write!(f, "{}", self.symbol()),
        }
    }
}

/// The operand a read (`args`: index, default, then key and value pairs,
/// the keys ascending) takes at `index`, by binary search with `key` giving
/// a key operand's integer; `None` where `key` has none for a key it looks
/// at.
pub fn read_at<T: Copy>(args: &[T], index: i128, key: impl Fn(T) -> Option<i128>) -> Option<T> {
    let pairs = &args[2..];
    let n = pairs.len() / 2;
    let (mut at, mut end) = (0, n);
    while at < end {
        let mid = (at + end) / 2;
        if key(pairs[2 * mid])? < index {
            at = mid + 1;
        } else {
            end = mid;
        }
    }
    Some(if at < n && key(pairs[2 * at])? == index {
        pairs[2 * at + 1]
    } else {
        args[1]
    })
}

/// `read(index, default, k1, v1, …)` on values (see [`Op::Read`]).
pub fn read_value(args: &[Value]) -> Value {
    args[2..]
        .chunks_exact(2)
        .find(|kv| kv[0] == args[0])
        .map_or(args[1], |kv| kv[1])
}

fn float_of(v: Value) -> Option<f64> {
    match v {
        Value::F64(b) => Some(f64::from_bits(b)),
        Value::F32(b) => Some(f32::from_bits(b) as f64),
        Value::Int(i) => Some(i as f64),
        _ => None,
    }
}

/// Promotes an `Int` operand meeting a float to that float's sort.
pub(crate) fn promote_pair(a: Value, b: Value) -> (Value, Value) {
    match (a, b) {
        (Value::Int(i), Value::F64(_)) => (Value::f64(i as f64), b),
        (Value::F64(_), Value::Int(i)) => (a, Value::f64(i as f64)),
        (Value::Int(i), Value::F32(_)) => (Value::f32(i as f32), b),
        (Value::F32(_), Value::Int(i)) => (a, Value::f32(i as f32)),
        _ => (a, b),
    }
}

/// The range `[lo, hi)` of the integers a `w`-bit bit-vector holds, signed
/// or unsigned, as floats (both are exact: powers of two, or zero).
pub fn int_range(signed: bool, w: u8) -> (f64, f64) {
    if signed {
        (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1))
    } else {
        (0.0, 2f64.powi(w as i32))
    }
}

/// The bits a saturating conversion to a `w`-bit bit-vector gives below
/// and above its range: the least and greatest value, signed or unsigned.
pub fn saturation_bits(signed: bool, w: u8) -> (u64, u64) {
    if signed {
        (1u64 << (w - 1), (1u64 << (w - 1)) - 1)
    } else {
        (0, u64::MAX >> (64 - w))
    }
}

/// NaN results are the canonical NaN (as wasm's arithmetic NaNs may be).
fn canonical(v: Value) -> Value {
    match v {
        Value::F32(x) if f32::from_bits(x).is_nan() => Value::F32(0x7fc0_0000),
        Value::F64(x) if f64::from_bits(x).is_nan() => Value::F64(0x7ff8_0000_0000_0000),
        _ => v,
    }
}

/// A bit-vector operation's result as plain scalars, for callers that keep
/// values in their own form (the concrete interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BvResult {
    /// The result's bits, already masked to the operands' width.
    Bits(u64),
    Bool(bool),
}

/// [`eval_bv`] with the result as scalars (inlined: its callers' hot loops
/// keep the result in registers).
#[inline(always)]
pub fn eval_bv_bits(op: Op, width: u8, x: u64, y: u64) -> Option<BvResult> {
    let signed = |v| Value::bv_signed(width, v);
    let bits = match op {
        Op::Add => x.wrapping_add(y),
        Op::Sub => x.wrapping_sub(y),
        Op::Mul => x.wrapping_mul(y),
        Op::And => x & y,
        Op::Or => x | y,
        Op::Xor => x ^ y,
        Op::Shl => shift_amount(width, y).map_or(0, |s| x << s),
        Op::LShr => shift_amount(width, y).map_or(0, |s| x >> s),
        Op::AShr => (signed(x) >> shift_amount(width, y).unwrap_or(width as u32 - 1)) as u64,
        Op::UDiv if y != 0 => x / y,
        Op::URem if y != 0 => x % y,
        Op::Div if y != 0 => signed(x).wrapping_div(signed(y)) as u64,
        Op::Rem if y != 0 => signed(x).wrapping_rem(signed(y)) as u64,
        Op::Eq => return Some(BvResult::Bool(x == y)),
        Op::Ne => return Some(BvResult::Bool(x != y)),
        Op::ULt => return Some(BvResult::Bool(x < y)),
        Op::ULe => return Some(BvResult::Bool(x <= y)),
        Op::UGt => return Some(BvResult::Bool(x > y)),
        Op::UGe => return Some(BvResult::Bool(x >= y)),
        Op::Lt => return Some(BvResult::Bool(signed(x) < signed(y))),
        Op::Le => return Some(BvResult::Bool(signed(x) <= signed(y))),
        Op::Gt => return Some(BvResult::Bool(signed(x) > signed(y))),
        Op::Ge => return Some(BvResult::Bool(signed(x) >= signed(y))),
        _ => return None,
    };
    Some(BvResult::Bits(bits & crate::value::mask(width)))
}

/// The common operations on two bit-vectors of one width, without the
/// general path's sort checks (every one of them applies): what concrete
/// code does most. `None` for the others and for a division by zero.
#[inline]
pub fn eval_bv(op: Op, width: u8, x: u64, y: u64) -> Option<Value> {
    eval_bv_bits(op, width, x, y).map(|r| match r {
        BvResult::Bits(bits) => Value::Bv { width, bits },
        BvResult::Bool(b) => Value::Bool(b),
    })
}

fn shift_amount(width: u8, amount: u64) -> Option<u32> {
    (amount < width as u64).then_some(amount as u32)
}

fn float_to_int(x: f64) -> Result<i128, EvalError> {
    if x.is_finite() && x.abs() < 1.7e38 {
        Ok(x.trunc() as i128)
    } else {
        Err(EvalError::InvalidConversion(format!("{x} to an integer")))
    }
}

/// Applies `op` to concrete arguments.
pub fn eval_op(op: Op, args: &[Value]) -> Result<Value, EvalError> {
    match eval_common(op, args) {
        Some(v) => Ok(v),
        None => eval_general(op, args),
    }
}

/// What concrete code does most — bit-vector arithmetic and comparisons,
/// widening and narrowing, integer offsets and address arithmetic —
/// without the general path's sort checks (each case is well-sorted).
/// `None` for the rest, and for every case that fails.
#[inline]
fn eval_common(op: Op, args: &[Value]) -> Option<Value> {
    use Value::*;
    match *args {
        [Bv { width, bits: x }, Bv { width: w, bits: y }] if width == w => eval_bv(op, width, x, y),
        [Int(x), Int(y)] => match op {
            Op::Add => x.checked_add(y).map(Int),
            Op::Sub => x.checked_sub(y).map(Int),
            Op::Eq => Some(Bool(x == y)),
            Op::Ne => Some(Bool(x != y)),
            Op::Lt => Some(Bool(x < y)),
            Op::Le => Some(Bool(x <= y)),
            Op::Gt => Some(Bool(x > y)),
            Op::Ge => Some(Bool(x >= y)),
            _ => None,
        },
        [Addr { alloc, offset }, Int(k)] | [Int(k), Addr { alloc, offset }] if op == Op::Add => {
            offset.checked_add(k).map(|offset| Addr { alloc, offset })
        }
        [Bv { width, bits }] => match op {
            Op::ZExt(w) if width <= w => Some(Value::bv(w, bits)),
            Op::SExt(w) if width <= w => Some(Value::bv(w, Value::bv_signed(width, bits) as u64)),
            Op::Trunc(w) if width >= w => Some(Value::bv(w, bits)),
            Op::ToInt => Some(Int(Value::bv_signed(width, bits) as i128)),
            Op::ToBv(w) => Some(Value::bv(w, Value::bv_signed(width, bits) as u64)),
            Op::Not => Some(Value::bv(width, !bits)),
            _ => None,
        },
        [Bool(b)] => match op {
            Op::ToBv(w) => Some(Value::bv(w, b as u64)),
            Op::ToInt => Some(Int(b as i128)),
            Op::Not => Some(Bool(!b)),
            _ => None,
        },
        [Int(i)] => match op {
            Op::ToBv(w) => Some(Value::bv(w, i as u64)),
            _ => None,
        },
        _ => None,
    }
}

fn eval_general(op: Op, args: &[Value]) -> Result<Value, EvalError> {
    use Value::*;
    let (a, b) = match args {
        [a, b] if op.promotes_numbers() => promote_pair(*a, *b),
        [a, b, ..] => (*a, *b),
        [a] => (*a, Undef),
        _ => (Undef, Undef),
    };
    let sorts: smallvec::SmallVec<[Sort; 3]> = match args.len() {
        2 => [a.sort(), b.sort()].into_iter().collect(),
        _ => args.iter().map(Value::sort).collect(),
    };
    op.result_sort(&sorts)?;
    let int = |r: Option<i128>| r.map(Int).ok_or(EvalError::Overflow);
    let fop = |x: f64, y: f64, f: fn(f64, f64) -> f64| match a {
        F32(_) => Value::f32(f(x, y) as f32),
        _ => Value::f64(f(x, y)),
    };
    Ok(match op {
        Op::Add | Op::Sub | Op::Mul | Op::Div => match (a, b) {
            (Int(x), Int(y)) => match op {
                Op::Add => int(x.checked_add(y))?,
                Op::Sub => int(x.checked_sub(y))?,
                Op::Mul => int(x.checked_mul(y))?,
                _ if y == 0 => return Err(EvalError::DivByZero),
                _ => int(x.checked_div_euclid(y))?,
            },
            (Bv { width, bits: x }, Bv { bits: y, .. }) => match op {
                Op::Add => Value::bv(width, x.wrapping_add(y)),
                Op::Sub => Value::bv(width, x.wrapping_sub(y)),
                Op::Mul => Value::bv(width, x.wrapping_mul(y)),
                _ if y == 0 => return Err(EvalError::DivByZero),
                _ => {
                    let (sx, sy) = (Value::bv_signed(width, x), Value::bv_signed(width, y));
                    Value::bv(width, sx.wrapping_div(sy) as u64)
                }
            },
            (F32(_) | F64(_), _) => {
                let (x, y) = (float_of(a).unwrap_or(0.0), float_of(b).unwrap_or(0.0));
                match op {
                    Op::Add => fop(x, y, |x, y| x + y),
                    Op::Sub => fop(x, y, |x, y| x - y),
                    Op::Mul => fop(x, y, |x, y| x * y),
                    _ => fop(x, y, |x, y| x / y),
                }
            }
            (Addr { alloc, offset }, Int(k)) => {
                let k = if op == Op::Sub {
                    k.checked_neg().ok_or(EvalError::Overflow)?
                } else {
                    k
                };
                Addr {
                    alloc,
                    offset: offset.checked_add(k).ok_or(EvalError::Overflow)?,
                }
            }
            (Addr { alloc, offset }, Bv { width, bits }) => {
                let k = Value::bv_signed(width, bits) as i128;
                Addr {
                    alloc,
                    offset: if op == Op::Sub { offset - k } else { offset + k },
                }
            }
            (Int(_) | Bv { .. }, Addr { .. }) => return eval_op(op, &[b, a]),
            (Addr { .. }, Addr { .. }) => {
                let (x, y) = offsets_in_one_allocation(a, b)?;
                Int(x - y)
            }
            _ => unreachable!("checked by result_sort"),
        },
        Op::Rem => match (a, b) {
            (Int(_), Int(0)) | (Bv { .. }, Bv { bits: 0, .. }) => return Err(EvalError::DivByZero),
            (Int(x), Int(y)) => int(x.checked_rem_euclid(y))?,
            (Bv { width, bits: x }, Bv { bits: y, .. }) => {
                let (sx, sy) = (Value::bv_signed(width, x), Value::bv_signed(width, y));
                Value::bv(width, sx.wrapping_rem(sy) as u64)
            }
            _ => unreachable!("checked by result_sort"),
        },
        Op::UDiv | Op::URem | Op::Shl | Op::LShr | Op::AShr => {
            let (Bv { width, bits: x }, Bv { bits: y, .. }) = (a, b) else {
                unreachable!("checked by result_sort")
            };
            match op {
                Op::UDiv | Op::URem if y == 0 => return Err(EvalError::DivByZero),
                Op::UDiv => Value::bv(width, x / y),
                Op::URem => Value::bv(width, x % y),
                Op::Shl => Value::bv(width, shift_amount(width, y).map_or(0, |s| x << s)),
                Op::LShr => Value::bv(width, shift_amount(width, y).map_or(0, |s| x >> s)),
                _ => {
                    let s = shift_amount(width, y).unwrap_or(width as u32 - 1);
                    Value::bv(width, (Value::bv_signed(width, x) >> s) as u64)
                }
            }
        }
        Op::Neg => match a {
            Int(x) => int(x.checked_neg())?,
            Bv { width, bits } => Value::bv(width, bits.wrapping_neg()),
            F32(x) => F32(x ^ 0x8000_0000),
            F64(x) => F64(x ^ (1 << 63)),
            _ => unreachable!("checked by result_sort"),
        },
        Op::Not => match a {
            Bool(x) => Bool(!x),
            Bv { width, bits } => Value::bv(width, !bits),
            _ => unreachable!("checked by result_sort"),
        },
        Op::And | Op::Or | Op::Xor => match (a, b) {
            (Bool(x), Bool(y)) => Bool(match op {
                Op::And => x && y,
                Op::Or => x || y,
                _ => x != y,
            }),
            (Bv { width, bits: x }, Bv { bits: y, .. }) => Value::bv(
                width,
                match op {
                    Op::And => x & y,
                    Op::Or => x | y,
                    _ => x ^ y,
                },
            ),
            _ => unreachable!("checked by result_sort"),
        },
        Op::Eq | Op::Ne => {
            let equal = match (a, b) {
                (F32(_) | F64(_), F32(_) | F64(_)) if a.sort() == b.sort() => float_of(a) == float_of(b),
                _ => a == b,
            };
            Bool(equal == (op == Op::Eq))
        }
        Op::Lt | Op::Le | Op::Gt | Op::Ge => {
            let ord = match (a, b) {
                (Int(x), Int(y)) => x.partial_cmp(&y),
                (Bv { width, bits: x }, Bv { bits: y, .. }) => {
                    Value::bv_signed(width, x).partial_cmp(&Value::bv_signed(width, y))
                }
                (Addr { .. }, Addr { .. }) => {
                    let (x, y) = offsets_in_one_allocation(a, b)?;
                    x.partial_cmp(&y)
                }
                _ => float_of(a).partial_cmp(&float_of(b)),
            };
            Bool(compare(op, ord))
        }
        Op::ULt | Op::ULe | Op::UGt | Op::UGe => {
            let (Bv { bits: x, .. }, Bv { bits: y, .. }) = (a, b) else {
                unreachable!("checked by result_sort")
            };
            let op = match op {
                Op::ULt => Op::Lt,
                Op::ULe => Op::Le,
                Op::UGt => Op::Gt,
                _ => Op::Ge,
            };
            Bool(compare(op, x.partial_cmp(&y)))
        }
        Op::Ite => match args[0] {
            Bool(true) => args[1],
            _ => args[2],
        },
        Op::Read => read_value(args),
        Op::FAbs => match a {
            F32(x) => F32(x & 0x7fff_ffff),
            F64(x) => F64(x & !(1 << 63)),
            _ => unreachable!("checked by result_sort"),
        },
        Op::FSqrt | Op::FCeil | Op::FFloor | Op::FTrunc | Op::FNearest => {
            let f: fn(f64) -> f64 = match op {
                Op::FSqrt => f64::sqrt,
                Op::FCeil => f64::ceil,
                Op::FFloor => f64::floor,
                Op::FTrunc => f64::trunc,
                _ => f64::round_ties_even,
            };
            match a {
                // Rounding to an integer is exact in f64; sqrt rounds once
                // more, which is innocuous for sqrt.
                F32(x) => canonical(Value::f32(f(f32::from_bits(x) as f64) as f32)),
                F64(x) => canonical(Value::f64(f(f64::from_bits(x)))),
                _ => unreachable!("checked by result_sort"),
            }
        }
        Op::FMin | Op::FMax => {
            let (x, y) = (float_of(a).unwrap_or(0.0), float_of(b).unwrap_or(0.0));
            let r = if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x == y {
                // -0 and +0: min takes the negative, max the positive.
                let neg = x.is_sign_negative() || y.is_sign_negative();
                let pos = x.is_sign_positive() || y.is_sign_positive();
                match op {
                    Op::FMin if neg => -(x.abs()),
                    Op::FMax if pos => x.abs(),
                    _ => x,
                }
            } else if (x < y) == (op == Op::FMin) {
                x
            } else {
                y
            };
            canonical(match a {
                F32(_) => Value::f32(r as f32),
                _ => Value::f64(r),
            })
        }
        Op::FCopysign => match (a, b) {
            (F32(x), F32(y)) => F32((x & 0x7fff_ffff) | (y & 0x8000_0000)),
            (F64(x), F64(y)) => F64((x & !(1 << 63)) | (y & (1 << 63))),
            _ => unreachable!("checked by result_sort"),
        },
        Op::Reinterpret => match a {
            Bv { width: 32, bits } => F32(bits as u32),
            Bv { bits, .. } => F64(bits),
            F32(x) => Value::bv(32, x as u64),
            F64(x) => Value::bv(64, x),
            _ => unreachable!("checked by result_sort"),
        },
        Op::ConvertS(w) | Op::ConvertU(w) => {
            let Bv { width, bits } = a else {
                unreachable!("checked by result_sort")
            };
            // Straight from the integer, so rounding happens once.
            match (op, w) {
                (Op::ConvertS(_), 32) => Value::f32(Value::bv_signed(width, bits) as f32),
                (Op::ConvertS(_), _) => Value::f64(Value::bv_signed(width, bits) as f64),
                (_, 32) => Value::f32(bits as f32),
                _ => Value::f64(bits as f64),
            }
        }
        Op::FConvert(w) => {
            let x = float_of(a).unwrap_or(0.0);
            canonical(if w == 32 { Value::f32(x as f32) } else { Value::f64(x) })
        }
        Op::TruncS(w) | Op::TruncU(w) | Op::TruncSatS(w) | Op::TruncSatU(w) => {
            let x = float_of(a).unwrap_or(0.0);
            let signed = matches!(op, Op::TruncS(_) | Op::TruncSatS(_));
            let saturating = matches!(op, Op::TruncSatS(_) | Op::TruncSatU(_));
            let (lo, hi) = int_range(signed, w);
            let t = x.trunc();
            let bits = if x.is_nan() {
                if !saturating {
                    return Err(EvalError::InvalidConversion(format!("NaN to bv{w}")));
                }
                0
            } else if t < lo || t >= hi {
                if !saturating {
                    return Err(EvalError::Overflow);
                }
                if t < lo {
                    lo as i128 as u64
                } else {
                    (hi as i128 - 1) as u64
                }
            } else {
                t as i128 as u64
            };
            Value::bv(w, bits)
        }
        Op::ZExt(w) => match a {
            Bv { bits, .. } => Value::bv(w, bits),
            _ => unreachable!("checked by result_sort"),
        },
        Op::SExt(w) => match a {
            Bv { width, bits } => Value::bv(w, Value::bv_signed(width, bits) as u64),
            _ => unreachable!("checked by result_sort"),
        },
        Op::Trunc(w) => match a {
            Bv { bits, .. } => Value::bv(w, bits & mask(w)),
            _ => unreachable!("checked by result_sort"),
        },
        Op::ToInt => match a {
            Int(_) => a,
            Bool(x) => Int(x as i128),
            Bv { width, bits } => Int(Value::bv_signed(width, bits) as i128),
            _ => Int(float_to_int(float_of(a).unwrap_or(0.0))?),
        },
        Op::ToF32 | Op::ToF64 => {
            let x = match a {
                Bv { width, bits } => Value::bv_signed(width, bits) as f64,
                Int(i) => i as f64,
                _ => float_of(a).unwrap_or(0.0),
            };
            if op == Op::ToF32 {
                Value::f32(match a {
                    Int(i) => i as f32,
                    _ => x as f32,
                })
            } else {
                Value::f64(x)
            }
        }
        Op::ToBv(w) => match a {
            Int(i) => Value::bv(w, i as u64),
            Bool(x) => Value::bv(w, x as u64),
            Bv { width, bits } => Value::bv(w, Value::bv_signed(width, bits) as u64),
            _ => Value::bv(w, float_to_int(float_of(a).unwrap_or(0.0))? as u64),
        },
        Op::Addr(alloc) => match a {
            Int(offset) => Addr { alloc, offset },
            _ => unreachable!("checked by result_sort"),
        },
    })
}

/// The offsets of two addresses, which must point into one allocation.
fn offsets_in_one_allocation(a: Value, b: Value) -> Result<(i128, i128), EvalError> {
    match (a, b) {
        (Value::Addr { alloc: p, offset: x }, Value::Addr { alloc: q, offset: y }) if p == q => Ok((x, y)),
        _ => Err(EvalError::Type("addresses of two allocations are not ordered".into())),
    }
}

fn compare(op: Op, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (op, ord) {
        (_, None) => false,
        (Op::Lt, Some(o)) => o == Less,
        (Op::Le, Some(o)) => o != Greater,
        (Op::Gt, Some(o)) => o == Greater,
        (_, Some(o)) => o != Less,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bit_vector_fast_path_agrees_with_the_general_one() {
        let ops = [
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::And,
            Op::Or,
            Op::Xor,
            Op::Shl,
            Op::LShr,
            Op::AShr,
            Op::UDiv,
            Op::URem,
        ]
        .into_iter()
        .chain(Op::COMPARISONS)
        .collect::<Vec<_>>();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for width in [1u8, 8, 16, 32, 64] {
            for _ in 0..2000 {
                let (x, y) = (next() & mask(width), next() % 3);
                // Small and boundary second operands exercise shifts and division.
                let y = match y {
                    0 => next() & mask(width),
                    1 => next() % (width as u64 + 2),
                    _ => [0, 1, mask(width)][(next() % 3) as usize],
                } & mask(width);
                for &op in &ops {
                    let args = [Value::bv(width, x), Value::bv(width, y)];
                    assert_eq!(
                        eval_bv(op, width, x, y),
                        eval_general(op, &args).ok(),
                        "{op:?} bv{width} {x} {y}"
                    );
                }
                let unary = [
                    Op::ZExt(64),
                    Op::ZExt(32),
                    Op::SExt(64),
                    Op::SExt(16),
                    Op::Trunc(8),
                    Op::Trunc(1),
                    Op::ToInt,
                    Op::ToBv(32),
                    Op::ToBv(64),
                    Op::Not,
                ];
                let (i, j) = (Value::bv_signed(width, x) as i128, (y as i128) << (y % 70));
                let cases: Vec<Vec<Value>> = vec![
                    vec![Value::bv(width, x)],
                    vec![Value::Bool(x & 1 == 1)],
                    vec![Value::Int(i)],
                    vec![Value::Int(i), Value::Int(j)],
                    vec![Value::Addr { alloc: 1, offset: j }, Value::Int(i)],
                    vec![Value::Int(i), Value::Addr { alloc: 2, offset: j }],
                ];
                for args in &cases {
                    for op in unary.iter().chain(&ops) {
                        if let Some(v) = eval_common(*op, args) {
                            assert_eq!(Ok(v), eval_general(*op, args), "{op:?} {args:?}");
                        }
                    }
                }
            }
        }
    }

    use super::*;

    #[test]
    fn mixed_int_float_promotes() {
        // seed 000 §2.3: `1.3 > 1` evaluates to true; `1.3 - 1` is a float.
        assert_eq!(
            eval_op(Op::Gt, &[Value::f64(1.3), Value::Int(1)]),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            eval_op(Op::Sub, &[Value::f64(1.3), Value::Int(1)]),
            Ok(Value::f64(1.3 - 1.0))
        );
    }

    #[test]
    fn integer_division_is_euclidean() {
        assert_eq!(eval_op(Op::Div, &[Value::Int(-7), Value::Int(2)]), Ok(Value::Int(-4)));
        assert_eq!(eval_op(Op::Rem, &[Value::Int(-7), Value::Int(2)]), Ok(Value::Int(1)));
        assert_eq!(
            eval_op(Op::Div, &[Value::Int(1), Value::Int(0)]),
            Err(EvalError::DivByZero)
        );
    }

    #[test]
    fn bitvector_semantics_match_smt_lib() {
        let bv = |x| Value::bv(8, x);
        assert_eq!(eval_op(Op::Div, &[bv(0xf9), bv(2)]), Ok(bv(0xfd))); // -7 / 2 = -3
        assert_eq!(eval_op(Op::Rem, &[bv(0xf9), bv(2)]), Ok(bv(0xff))); // -7 % 2 = -1
        assert_eq!(eval_op(Op::Shl, &[bv(1), bv(8)]), Ok(bv(0)));
        assert_eq!(eval_op(Op::AShr, &[bv(0x80), bv(9)]), Ok(bv(0xff)));
        assert_eq!(eval_op(Op::Lt, &[bv(0xff), bv(0)]), Ok(Value::Bool(true)));
        assert_eq!(eval_op(Op::ULt, &[bv(0xff), bv(0)]), Ok(Value::Bool(false)));
    }

    #[test]
    fn ill_typed_operations_are_errors_not_panics() {
        assert!(matches!(
            eval_op(Op::Add, &[Value::Bool(true), Value::Int(1)]),
            Err(EvalError::Type(_))
        ));
        assert!(matches!(
            eval_op(Op::Add, &[Value::Undef, Value::Int(1)]),
            Err(EvalError::Type(_))
        ));
        assert_eq!(eval_op(Op::Eq, &[Value::Undef, Value::Int(1)]), Ok(Value::Bool(false)));
    }

    #[test]
    fn wasm_float_semantics() {
        let f = |x: f64| Value::f64(x);
        let g = |x: f32| Value::f32(x);
        assert_eq!(eval_op(Op::FNearest, &[f(2.5)]), Ok(f(2.0)));
        assert_eq!(eval_op(Op::FNearest, &[f(-3.5)]), Ok(f(-4.0)));
        assert_eq!(eval_op(Op::FMin, &[f(0.0), f(-0.0)]), Ok(f(-0.0)));
        assert_eq!(eval_op(Op::FMax, &[f(-0.0), f(0.0)]), Ok(f(0.0)));
        assert_eq!(eval_op(Op::FMin, &[g(1.0), g(f32::NAN)]), Ok(Value::F32(0x7fc0_0000)));
        assert_eq!(eval_op(Op::FCopysign, &[g(2.0), g(-0.0)]), Ok(g(-2.0)));
        assert_eq!(eval_op(Op::FAbs, &[f(-0.0)]), Ok(f(0.0)));
        assert_eq!(eval_op(Op::Reinterpret, &[g(1.0)]), Ok(Value::bv(32, 0x3f80_0000)));
        assert_eq!(
            eval_op(Op::TruncS(32), &[f(-2147483648.9)]),
            Ok(Value::bv(32, 0x8000_0000))
        );
        assert_eq!(eval_op(Op::TruncS(32), &[f(2147483648.0)]), Err(EvalError::Overflow));
        assert_eq!(eval_op(Op::TruncU(32), &[f(-0.9)]), Ok(Value::bv(32, 0)));
        assert_eq!(eval_op(Op::TruncU(32), &[f(-1.0)]), Err(EvalError::Overflow));
        assert!(matches!(
            eval_op(Op::TruncS(64), &[f(f64::NAN)]),
            Err(EvalError::InvalidConversion(_))
        ));
        assert_eq!(eval_op(Op::TruncSatU(8), &[f(300.0)]), Ok(Value::bv(8, 255)));
        assert_eq!(eval_op(Op::TruncSatS(32), &[f(f64::NAN)]), Ok(Value::bv(32, 0)));
        // i64 to f32 rounds once: 2^53 + 1 and the like do not double-round.
        let big = (1u64 << 60) + (1 << 36) + 1;
        assert_eq!(
            eval_op(Op::ConvertS(32), &[Value::bv(64, big)]),
            Ok(g(big as i64 as f32))
        );
        assert_eq!(
            eval_op(Op::ConvertU(64), &[Value::bv(32, 0xffff_ffff)]),
            Ok(f(4294967295.0))
        );
    }
}
