//! Sorts and concrete values.

use std::fmt;

/// The sort of a term or value. Values are typed per value, not per
/// variable: a variable may hold an `Int` on one path and an `F64` on another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    Bool,
    /// Mathematical integers (bounded by `i128` in concrete arithmetic).
    Int,
    /// Machine integers of 1..=64 bits.
    Bv(u8),
    F32,
    F64,
    /// A statement label: labels are values (computed `if x goto y`).
    Label,
    /// A function reference: functions are values (indirect calls).
    Func,
    /// An address: allocation plus offset.
    Addr,
    /// The undefined value ⊥ every variable starts with.
    Undef,
}

impl Sort {
    /// Sorts the SMT solver reasons about; the others stay concrete and are
    /// split by guard instead (seed 000 §2.4).
    pub fn is_smt(self) -> bool {
        matches!(self, Sort::Bool | Sort::Int | Sort::Bv(_) | Sort::F32 | Sort::F64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Sort::F32 | Sort::F64)
    }

    /// Parses the `.bir` spelling of a sort: `int`, `bool`, `f32`, `f64`, `bvN`.
    pub fn parse(s: &str) -> Option<Sort> {
        match s {
            "int" => Some(Sort::Int),
            "bool" => Some(Sort::Bool),
            "f32" => Some(Sort::F32),
            "f64" => Some(Sort::F64),
            "label" => Some(Sort::Label),
            "func" => Some(Sort::Func),
            "addr" => Some(Sort::Addr),
            _ => {
                let w: u8 = s.strip_prefix("bv")?.parse().ok()?;
                (1..=64).contains(&w).then_some(Sort::Bv(w))
            }
        }
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => write!(f, "bool"),
            Sort::Int => write!(f, "int"),
            Sort::Bv(w) => write!(f, "bv{w}"),
            Sort::F32 => write!(f, "f32"),
            Sort::F64 => write!(f, "f64"),
            Sort::Label => write!(f, "label"),
            Sort::Func => write!(f, "func"),
            Sort::Addr => write!(f, "addr"),
            Sort::Undef => write!(f, "undef"),
        }
    }
}

/// A concrete value. Floats are kept as bits so values hash and compare
/// structurally (hash-consing needs `Eq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Bool(bool),
    Int(i128),
    /// `bits` holds the value zero-extended to 64 bits.
    Bv {
        width: u8,
        bits: u64,
    },
    F32(u32),
    F64(u64),
    Label {
        func: u32,
        label: u32,
    },
    Func(u32),
    Addr {
        alloc: u32,
        offset: i128,
    },
    Undef,
}

/// Mask of the low `width` bits.
pub fn mask(width: u8) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl Value {
    pub fn sort(&self) -> Sort {
        match self {
            Value::Bool(_) => Sort::Bool,
            Value::Int(_) => Sort::Int,
            Value::Bv { width, .. } => Sort::Bv(*width),
            Value::F32(_) => Sort::F32,
            Value::F64(_) => Sort::F64,
            Value::Label { .. } => Sort::Label,
            Value::Func(_) => Sort::Func,
            Value::Addr { .. } => Sort::Addr,
            Value::Undef => Sort::Undef,
        }
    }

    /// An integer, or a bit-vector read as unsigned (sizes and counts).
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(k) => Some(*k),
            Value::Bv { bits, .. } => Some(*bits as i128),
            _ => None,
        }
    }

    pub fn bv(width: u8, bits: u64) -> Value {
        Value::Bv {
            width,
            bits: bits & mask(width),
        }
    }

    pub fn f64(x: f64) -> Value {
        Value::F64(x.to_bits())
    }

    pub fn f32(x: f32) -> Value {
        Value::F32(x.to_bits())
    }

    /// The signed reading of a bit-vector.
    pub fn bv_signed(width: u8, bits: u64) -> i64 {
        if width >= 64 {
            bits as i64
        } else {
            let shift = 64 - width as u32;
            ((bits << shift) as i64) >> shift
        }
    }

    /// The default value of a sort, used for inputs a model leaves free.
    pub fn default_of(sort: Sort) -> Value {
        match sort {
            Sort::Bool => Value::Bool(false),
            Sort::Int => Value::Int(0),
            Sort::Bv(w) => Value::bv(w, 0),
            Sort::F32 => Value::f32(0.0),
            Sort::F64 => Value::f64(0.0),
            _ => Value::Undef,
        }
    }

    /// Parses the spelling [`Display`](fmt::Display) produces for scalar
    /// values, given the expected sort.
    pub fn parse(text: &str, sort: Sort) -> Option<Value> {
        let text = text.trim();
        let body = text.split_once(':').map_or(text, |(b, _)| b);
        match sort {
            Sort::Bool => match body {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            Sort::Int => body.parse().ok().map(Value::Int),
            Sort::Bv(w) => {
                if let Ok(u) = body.parse::<u64>() {
                    (u & !mask(w) == 0).then(|| Value::bv(w, u))
                } else {
                    let i: i64 = body.parse().ok()?;
                    Some(Value::bv(w, i as u64))
                }
            }
            Sort::F64 => parse_float(body).map(Value::f64),
            Sort::F32 => parse_float(body).map(|x| Value::f32(x as f32)),
            _ => None,
        }
    }
}

fn parse_float(s: &str) -> Option<f64> {
    match s {
        "nan" => Some(f64::NAN),
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

fn fmt_float(f: &mut fmt::Formatter<'_>, x: f64) -> fmt::Result {
    if x.is_nan() {
        write!(f, "nan")
    } else if x.is_infinite() {
        write!(f, "{}", if x > 0.0 { "inf" } else { "-inf" })
    } else {
        write!(f, "{x:?}")
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Bv { width, bits } => write!(f, "{bits}:bv{width}"),
            Value::F32(b) => {
                fmt_float(f, f32::from_bits(*b) as f64)?;
                write!(f, ":f32")
            }
            Value::F64(b) => fmt_float(f, f64::from_bits(*b)),
            Value::Label { func, label } => write!(f, "label({func},{label})"),
            Value::Func(i) => write!(f, "func({i})"),
            Value::Addr { alloc, offset } => write!(f, "a{alloc}+{offset}"),
            Value::Undef => write!(f, "undef"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_values_round_trip_through_text() {
        let vals = [
            Value::Bool(true),
            Value::Int(-17),
            Value::bv(8, 255),
            Value::bv(64, u64::MAX),
            Value::f64(1.3),
            Value::f64(-0.0),
            Value::f32(2.5),
        ];
        for v in vals {
            assert_eq!(Value::parse(&v.to_string(), v.sort()), Some(v), "{v}");
        }
    }

    #[test]
    fn signed_reading_of_bitvectors() {
        assert_eq!(Value::bv_signed(8, 0xff), -1);
        assert_eq!(Value::bv_signed(8, 0x7f), 127);
        assert_eq!(Value::bv_signed(64, u64::MAX), -1);
    }
}
