//! Properties of the HLO text front end and of literal serialisation:
//! - `printer_round_trip`: random modules (parameters and constants of every element type with
//!   random shapes, layouts and special values; chains of add, multiply, broadcast, transpose,
//!   reshape, iota, tuple and get-tuple-element) print, parse, verify and print again to the same
//!   text and an equal module;
//! - `never_panics_on_bytes` / `never_panics_on_mutations`: arbitrary bytes and token-level
//!   mutations of valid modules go through `parse_module` + `verify_module` (and, when they verify,
//!   a run on zero arguments) returning `Ok` or `Err`, never panicking;
//! - `literal_text_round_trip` / `literal_json_round_trip`: random literals of every type survive
//!   HLO literal text and JSON (through its string form) unchanged (any NaN matching any NaN).
//!
//! The generators draw from a seeded SplitMix64 stream whose seed proptest supplies, which keeps the
//! module generator a plain function; a failure message carries the offending text.

use super::seeded::{Rng, seeded_trial};
use libtest_mimic::Trial;
use std::panic::{AssertUnwindSafe, catch_unwind};
use xla_spec::conformance::compare;
use xla_spec::hlo::{Module, parse_literal, parse_module, print_module};
use xla_spec::literal::{
    Array, ArrayData, C64, C128, Literal, Scalar, literal_from_json, literal_to_json,
};
use xla_spec::shape::{ArrayShape, Layout, Shape};
use xla_spec::types::ElementType;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("printer_round_trip", 600, printer_round_trip),
        trial("never_panics_on_bytes", 4000, never_panics_on_bytes),
        trial("never_panics_on_mutations", 3000, never_panics_on_mutations),
        trial("literal_text_round_trip", 1500, literal_text_round_trip),
        trial("literal_json_round_trip", 1500, literal_json_round_trip),
    ]
}

fn trial(name: &str, cases: u32, f: fn(u64) -> Result<(), String>) -> Trial {
    seeded_trial("front_end", name, cases, f)
}

/// Draws the generators need beyond the shared ones.
impl Rng {
    /// True one time in `k`.
    fn one_in(&mut self, k: usize) -> bool {
        self.below(k) == 0
    }
    fn perm(&mut self, n: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        self.shuffle(&mut p);
        p
    }
}

// ------------------------------------------------------------------------------------ random

/// Interesting bit patterns of a float format (width, exponent bits): zeros, one, the extremes,
/// subnormals, infinities, quiet and signalling NaNs with payloads.
fn special_float_bits(rng: &mut Rng, width: u32, exp: u32) -> u64 {
    let sign = 1u64 << (width - 1);
    let mant_bits = width - 1 - exp;
    let exp_mask = ((1u64 << exp) - 1) << mant_bits;
    let mant_mask = (1u64 << mant_bits) - 1;
    let one = ((1u64 << (exp - 1)) - 1) << mant_bits;
    let v = match rng.below(10) {
        0 => 0,
        1 => one,
        2 => exp_mask - (1 << mant_bits) + mant_mask, // largest finite
        3 => 1,                                       // smallest subnormal
        4 => mant_mask,                               // largest subnormal
        5 => 1 << mant_bits,                          // smallest normal
        6 => exp_mask,                                // infinity
        7 => exp_mask | (1 << (mant_bits - 1)),       // quiet NaN
        8 => exp_mask | 1 | (rng.next() & mant_mask), // NaN with a payload
        _ => rng.next() & !sign,
    };
    if rng.one_in(2) { v | sign } else { v }
}

fn float_bits(rng: &mut Rng, width: u32, exp: u32) -> u64 {
    if rng.one_in(2) {
        special_float_bits(rng, width, exp)
    } else {
        rng.next() & ((1u128 << width) - 1) as u64
    }
}

fn random_scalar(rng: &mut Rng, ty: ElementType) -> Scalar {
    let b = rng.next();
    match ty {
        ElementType::Pred => Scalar::Pred(b & 1 == 1),
        ElementType::S8 => Scalar::S8(b as i8),
        ElementType::S16 => Scalar::S16(b as i16),
        ElementType::S32 => Scalar::S32(b as i32),
        ElementType::S64 => Scalar::S64(b as i64),
        ElementType::U8 => Scalar::U8(b as u8),
        ElementType::U16 => Scalar::U16(b as u16),
        ElementType::U32 => Scalar::U32(b as u32),
        ElementType::U64 => Scalar::U64(b),
        ElementType::F16 => Scalar::F16(half::f16::from_bits(float_bits(rng, 16, 5) as u16)),
        ElementType::BF16 => Scalar::BF16(half::bf16::from_bits(float_bits(rng, 16, 8) as u16)),
        ElementType::F32 => Scalar::F32(f32::from_bits(float_bits(rng, 32, 8) as u32)),
        ElementType::F64 => Scalar::F64(f64::from_bits(float_bits(rng, 64, 11))),
        ElementType::C64 => Scalar::C64(C64::new(
            f32::from_bits(float_bits(rng, 32, 8) as u32),
            f32::from_bits(float_bits(rng, 32, 8) as u32),
        )),
        ElementType::C128 => Scalar::C128(C128::new(
            f64::from_bits(float_bits(rng, 64, 11)),
            f64::from_bits(float_bits(rng, 64, 11)),
        )),
        ElementType::Token => Scalar::Pred(false),
    }
}

fn random_dims(rng: &mut Rng, max_rank: usize) -> Vec<i64> {
    (0..rng.below(max_rank + 1))
        .map(|_| rng.below(4) as i64)
        .collect()
}

fn maybe_layout(rng: &mut Rng, mut s: ArrayShape) -> ArrayShape {
    if !s.dims.is_empty() && rng.one_in(3) {
        s.layout = Some(Layout::new(rng.perm(s.dims.len())));
    }
    s
}

fn random_array(rng: &mut Rng, ty: ElementType, dims: Vec<i64>) -> Array {
    let shape = maybe_layout(rng, ArrayShape::new(ty, dims));
    let n = shape.element_count();
    let mut data = ArrayData::zeros(ty, n);
    for i in 0..n {
        data.set(i, random_scalar(rng, ty)).expect("same type");
    }
    Array { shape, data }
}

fn random_literal(rng: &mut Rng, depth: usize) -> Literal {
    if depth < 2 && rng.one_in(5) {
        let n = rng.below(4);
        return Literal::Tuple((0..n).map(|_| random_literal(rng, depth + 1)).collect());
    }
    if rng.one_in(20) {
        return Literal::Token;
    }
    let ty = *rng.pick(&ElementType::ALL);
    let dims = random_dims(rng, 3);
    Literal::Array(random_array(rng, ty, dims))
}

// ------------------------------------------------------------------------------------ modules

struct Value {
    name: String,
    shape: Shape,
}

/// A random valid module built from the ops the reference implements today.
fn random_module(rng: &mut Rng) -> String {
    let mut vals: Vec<Value> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let numeric: Vec<ElementType> = ElementType::ALL
        .iter()
        .copied()
        .filter(|t| !t.is_pred())
        .collect();
    for k in 0..rng.below(3) {
        let ty = *rng.pick(&ElementType::ALL);
        let mut s = ArrayShape::new(ty, random_dims(rng, 3));
        if rng.one_in(6) && !s.dims.is_empty() {
            // A bounded dynamic dimension.
            let d = rng.below(s.dims.len());
            s.dynamic[d] = true;
        }
        let s = Shape::Array(maybe_layout(rng, s));
        let name = format!("p{k}");
        lines.push(format!("{name} = {s} parameter({k})"));
        vals.push(Value { name, shape: s });
    }
    let steps = 1 + rng.below(8);
    for i in 0..steps {
        let name = format!("v{i}");
        // Static array values, the operands most ops take.
        let arrays: Vec<usize> = (0..vals.len())
            .filter(|&j| matches!(&vals[j].shape, Shape::Array(a) if !a.is_dynamic()))
            .collect();
        let tuples: Vec<usize> = (0..vals.len())
            .filter(|&j| matches!(&vals[j].shape, Shape::Tuple(t) if !t.is_empty()))
            .collect();
        let kind = rng.below(8);
        let (text, shape) = match kind {
            0 | 1 if !arrays.is_empty() => {
                let a = &vals[*rng.pick(&arrays)];
                let Shape::Array(s) = &a.shape else {
                    unreachable!()
                };
                if s.ty.is_pred() {
                    continue;
                }
                let same: Vec<usize> = arrays
                    .iter()
                    .copied()
                    .filter(|&j| vals[j].shape.compatible(&a.shape))
                    .collect();
                let b = &vals[*rng.pick(&same)];
                let op = if kind == 0 { "add" } else { "multiply" };
                let out = Shape::Array(maybe_layout(rng, ArrayShape::new(s.ty, s.dims.clone())));
                (format!("{out} {op}({}, {})", a.name, b.name), out)
            }
            2 if !arrays.is_empty() => {
                let a = &vals[*rng.pick(&arrays)];
                let Shape::Array(s) = &a.shape else {
                    unreachable!()
                };
                let extra = rng.below(3);
                let rank = s.rank() + extra;
                // Operand dimension i goes to output dimension map[i] (increasing).
                let mut map: Vec<i64> = rng.perm(rank)[..s.rank()].to_vec();
                map.sort();
                let mut dims: Vec<i64> = (0..rank).map(|_| rng.below(3) as i64).collect();
                for (i, &m) in map.iter().enumerate() {
                    dims[m as usize] = s.dims[i];
                }
                let out = Shape::Array(maybe_layout(rng, ArrayShape::new(s.ty, dims)));
                let list: Vec<String> = map.iter().map(|m| m.to_string()).collect();
                (
                    format!(
                        "{out} broadcast({}), dimensions={{{}}}",
                        a.name,
                        list.join(",")
                    ),
                    out,
                )
            }
            3 if !arrays.is_empty() => {
                let a = &vals[*rng.pick(&arrays)];
                let Shape::Array(s) = &a.shape else {
                    unreachable!()
                };
                let perm = rng.perm(s.rank());
                let dims = perm.iter().map(|&p| s.dims[p as usize]).collect();
                let out = Shape::Array(maybe_layout(rng, ArrayShape::new(s.ty, dims)));
                let list: Vec<String> = perm.iter().map(|m| m.to_string()).collect();
                (
                    format!(
                        "{out} transpose({}), dimensions={{{}}}",
                        a.name,
                        list.join(",")
                    ),
                    out,
                )
            }
            4 if !arrays.is_empty() => {
                let a = &vals[*rng.pick(&arrays)];
                let Shape::Array(s) = &a.shape else {
                    unreachable!()
                };
                let n = s.element_count() as i64;
                let dims = match rng.below(3) {
                    0 => vec![n],
                    1 => vec![1, n],
                    _ if n == 1 => vec![],
                    _ => vec![n, 1],
                };
                let out = Shape::Array(maybe_layout(rng, ArrayShape::new(s.ty, dims)));
                (format!("{out} reshape({})", a.name), out)
            }
            5 => {
                let ty = *rng.pick(&numeric);
                let rank = 1 + rng.below(3);
                let dims = (0..rank).map(|_| 1 + rng.below(3) as i64).collect();
                let out = Shape::Array(maybe_layout(rng, ArrayShape::new(ty, dims)));
                let d = rng.below(rank);
                (format!("{out} iota(), iota_dimension={d}"), out)
            }
            6 if !vals.is_empty() => {
                let n = 1 + rng.below(3);
                let picked: Vec<&Value> = (0..n).map(|_| &vals[rng.below(vals.len())]).collect();
                let out = Shape::Tuple(picked.iter().map(|v| v.shape.clone()).collect());
                let names: Vec<&str> = picked.iter().map(|v| v.name.as_str()).collect();
                (format!("{out} tuple({})", names.join(", ")), out)
            }
            7 if !tuples.is_empty() => {
                let t = &vals[*rng.pick(&tuples)];
                let Shape::Tuple(elems) = &t.shape else {
                    unreachable!()
                };
                let idx = rng.below(elems.len());
                let out = elems[idx].clone();
                (
                    format!("{out} get-tuple-element({}), index={idx}", t.name),
                    out,
                )
            }
            _ => {
                let ty = *rng.pick(&ElementType::ALL);
                let dims = random_dims(rng, 2);
                let a = random_array(rng, ty, dims);
                let body = xla_spec::literal::text::array_body(&a);
                let out = Shape::Array(a.shape.clone());
                (format!("{out} constant({body})"), out)
            }
        };
        lines.push(format!("{name} = {text}"));
        vals.push(Value { name, shape });
    }
    let mut src = String::from("HloModule rt\n\nENTRY main {\n");
    let last = lines.len() - 1;
    for (i, l) in lines.iter().enumerate() {
        src.push_str(if i == last { "  ROOT " } else { "  " });
        src.push_str(l);
        src.push('\n');
    }
    src.push_str("}\n");
    src
}

/// The module with every source position cleared, printed with `{:?}` so that NaN constants
/// compare equal to themselves (their payloads are checked by the printed text).
fn canonical(m: &Module) -> String {
    let mut m = m.clone();
    for c in &mut m.computations {
        c.loc = Default::default();
        for i in &mut c.instructions {
            i.loc = Default::default();
        }
    }
    format!("{m:?}")
}

fn parse_verify(src: &str) -> Result<Module, String> {
    let mut m = parse_module(src).map_err(|e| format!("parse: {e}"))?;
    xla_spec::verify::verify_module(&mut m, &xla_spec::verify::Options::default())
        .map_err(|e| format!("verify: {e}"))?;
    Ok(m)
}

fn printer_round_trip(seed: u64) -> Result<(), String> {
    let src = random_module(&mut Rng(seed));
    let m1 = parse_verify(&src).map_err(|e| format!("{e}\n--- generated module:\n{src}"))?;
    let t1 = print_module(&m1);
    let m2 = parse_verify(&t1).map_err(|e| format!("{e}\n--- printed module:\n{t1}"))?;
    let t2 = print_module(&m2);
    if t1 != t2 {
        return Err(format!("printing twice differs:\n{t1}\n--- vs ---\n{t2}"));
    }
    if canonical(&m1) != canonical(&m2) {
        return Err(format!(
            "the reparsed module differs from the original:\n{src}\n--- printed:\n{t1}"
        ));
    }
    Ok(())
}

/// Parses and verifies (and, if that succeeds, runs on zero arguments) without panicking.
fn must_not_panic(src: &str) -> Result<(), String> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(m) = parse_verify(src) {
            let args = m
                .entry()
                .parameter_shapes()
                .iter()
                .map(Literal::zeros)
                .collect();
            if let Err(e) = xla_spec::eval::run(&m, args, &Default::default())
                && e.kind == xla_spec::ErrorKind::Internal
            {
                return Err(format!("internal error: {e}"));
            }
        }
        Ok(())
    }));
    match r {
        Ok(r) => r.map_err(|e| format!("{e}\n--- input:\n{src}")),
        Err(_) => Err(format!("panicked on input:\n{src:?}")),
    }
}

fn never_panics_on_bytes(seed: u64) -> Result<(), String> {
    let mut rng = Rng(seed);
    let n = rng.below(200);
    // Bytes biased towards HLO punctuation and letters so the parser gets past the first token.
    let alphabet = b"{}[](),=:%<>-_.0123456789 \n\tHloModuleENTRYROOTparameteraddf32s32pred\"/*x";
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            if rng.one_in(4) {
                rng.next() as u8
            } else {
                *rng.pick(alphabet)
            }
        })
        .collect();
    let src = String::from_utf8_lossy(&bytes).into_owned();
    let with_header = format!("HloModule m\nENTRY e {{\n{src}\n}}\n");
    must_not_panic(&src)?;
    must_not_panic(&with_header)
}

fn tokens(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in src.chars() {
        if c.is_alphanumeric() || "_.-%".contains(c) {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn never_panics_on_mutations(seed: u64) -> Result<(), String> {
    let mut rng = Rng(seed);
    let src = random_module(&mut rng);
    let mut toks = tokens(&src);
    let extra = [
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        "=",
        "-1",
        "0",
        "99999999999999999999",
        "f32[]",
        "tuple",
        "ROOT",
        "parameter(0)",
        "<=",
        "nan",
        "{0,1}",
        "dimensions={}",
        "index=5",
    ];
    for _ in 0..1 + rng.below(4) {
        if toks.is_empty() {
            break;
        }
        let i = rng.below(toks.len());
        match rng.below(4) {
            0 => {
                toks.remove(i);
            }
            1 => {
                let t = toks[i].clone();
                toks.insert(i, t);
            }
            2 => {
                let t = (*rng.pick(&extra)).to_string();
                toks.insert(i, t);
            }
            _ => {
                let j = rng.below(toks.len());
                let t = toks[j].clone();
                toks[i] = t;
            }
        }
    }
    must_not_panic(&toks.concat())
}

fn literal_text_round_trip(seed: u64) -> Result<(), String> {
    let l = random_literal(&mut Rng(seed), 0);
    let text = l.to_string();
    let back = parse_literal(&text).map_err(|e| format!("{text}: {e}"))?;
    if back.shape() != l.shape() {
        return Err(format!("{text}: shape read back as {}", back.shape()));
    }
    compare(&back, &l, None).map_err(|m| format!("{text}: {m}"))?;
    if back.to_string() != text {
        return Err(format!("{text}\nprints back as\n{back}"));
    }
    Ok(())
}

fn literal_json_round_trip(seed: u64) -> Result<(), String> {
    let l = random_literal(&mut Rng(seed), 0);
    let json = serde_json::to_string(&literal_to_json(&l)).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&json).map_err(|e| format!("{json}: {e}"))?;
    let back = literal_from_json(&v).map_err(|e| format!("{json}: {e}"))?;
    if back.shape() != l.shape() {
        return Err(format!("{json}: shape read back as {}", back.shape()));
    }
    compare(&back, &l, None).map_err(|m| format!("{l}\n{json}: {m}"))
}
