//! Printing literals in HLO literal text: `f32[2,3] {{1, 2, 3}, {4, 5, 6}}`, `(f32[] 1, token[])`.
//! Floats print in the shortest form that reads back to the same bits; `-0.0` keeps its sign
//! (XLA's own printer writes `-0`, which reads back as +0; we do not copy that).

use super::{Array, Literal, Scalar};
use half::{bf16, f16};

pub fn literal_to_text(l: &Literal) -> String {
    let mut s = String::new();
    write_literal(&mut s, l);
    s
}

fn write_literal(out: &mut String, l: &Literal) {
    match l {
        Literal::Token => out.push_str("token[]"),
        Literal::Tuple(t) => {
            out.push('(');
            for (i, e) in t.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_literal(out, e);
            }
            out.push(')');
        }
        Literal::Array(a) => {
            out.push_str(&a.shape.to_string());
            out.push(' ');
            write_array_body(out, a);
        }
    }
}

/// The body of an array literal, without its shape: `{{1, 2}, {3, 4}}` or `1.5` for a scalar.
pub fn array_body(a: &Array) -> String {
    let mut s = String::new();
    write_array_body(&mut s, a);
    s
}

fn write_array_body(out: &mut String, a: &Array) {
    if a.shape.dims.is_empty() {
        out.push_str(&scalar_text(a.data.get(0)));
        return;
    }
    write_level(out, a, 0, 0);
}

fn write_level(out: &mut String, a: &Array, dim: usize, base: usize) {
    let dims = &a.shape.dims;
    out.push('{');
    let n = dims[dim] as usize;
    let stride: usize = dims[dim + 1..].iter().map(|&d| d as usize).product();
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        if dim + 1 == dims.len() {
            out.push_str(&scalar_text(a.data.get(base + i)));
        } else {
            write_level(out, a, dim + 1, base + i * stride);
        }
    }
    out.push('}');
}

pub fn scalar_text(s: Scalar) -> String {
    match s {
        Scalar::Pred(b) => b.to_string(),
        Scalar::S8(x) => x.to_string(),
        Scalar::S16(x) => x.to_string(),
        Scalar::S32(x) => x.to_string(),
        Scalar::S64(x) => x.to_string(),
        Scalar::U8(x) => x.to_string(),
        Scalar::U16(x) => x.to_string(),
        Scalar::U32(x) => x.to_string(),
        Scalar::U64(x) => x.to_string(),
        Scalar::F16(x) => format_half(x.to_f32(), |v| f16::from_f32(v).to_bits() == x.to_bits()),
        Scalar::BF16(x) => format_half(x.to_f32(), |v| bf16::from_f32(v).to_bits() == x.to_bits()),
        Scalar::F32(x) => format_float_f32(x),
        Scalar::F64(x) => format_float_f64(x),
        Scalar::C64(c) => format!("({}, {})", format_float_f32(c.re), format_float_f32(c.im)),
        Scalar::C128(c) => format!("({}, {})", format_float_f64(c.re), format_float_f64(c.im)),
    }
}

fn special(x: f64, quiet_default: bool, payload: u64) -> Option<String> {
    if x.is_nan() {
        let sign = if x.is_sign_negative() { "-" } else { "" };
        return Some(if quiet_default {
            format!("{sign}nan")
        } else {
            format!("{sign}nan(0x{payload:x})")
        });
    }
    if x.is_infinite() {
        return Some(if x > 0.0 { "inf".into() } else { "-inf".into() });
    }
    if x == 0.0 {
        return Some(if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0".into()
        });
    }
    None
}

/// Shortest text that parses back to the same f32.
pub fn format_float_f32(x: f32) -> String {
    // A NaN's payload is its whole mantissa, as XLA prints it; the default quiet NaN (only the
    // quiet bit set) prints as plain `nan`.
    let payload = (x.to_bits() & 0x7f_ffff) as u64;
    if let Some(s) = special(x as f64, payload == 0x40_0000, payload) {
        return s;
    }
    plain_or_exp(x.abs() as f64, format!("{x}"), format!("{x:e}"))
}

/// Shortest text that parses back to the same f64.
pub fn format_float_f64(x: f64) -> String {
    let payload = x.to_bits() & 0xf_ffff_ffff_ffff;
    if let Some(s) = special(x, payload == 0x8_0000_0000_0000, payload) {
        return s;
    }
    plain_or_exp(x.abs(), format!("{x}"), format!("{x:e}"))
}

fn plain_or_exp(abs: f64, plain: String, exp: String) -> String {
    if (1e-5..1e16).contains(&abs) {
        plain
    } else {
        exp
    }
}

/// Shortest decimal for a 16-bit float: the fewest significant digits whose value rounds back to
/// the same half-precision bits.
fn format_half(v: f32, same: impl Fn(f32) -> bool) -> String {
    if v.is_nan() || v.is_infinite() || v == 0.0 {
        // NaN payloads of 16-bit types are not preserved in text; print the canonical form.
        return special(v as f64, true, 0).unwrap_or_default();
    }
    for digits in 1..=9usize {
        let s = format!("{:.*e}", digits - 1, v);
        if let Ok(p) = s.parse::<f32>()
            && same(p)
        {
            return format_float_f32(p);
        }
    }
    format_float_f32(v)
}
