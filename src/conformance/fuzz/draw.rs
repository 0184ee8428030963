//! Random valid programs for differential fuzzing: one generator per op family.
//!
//! A generator writes HLO text whose instructions carry no result shapes and lets the reference
//! verifier infer them (the printer then writes the full text an external backend receives), so
//! the generators never restate shape inference. A draw the verifier refuses is discarded by the
//! caller; the generators aim at valid programs, and the discard count says how well they do.
//!
//! Values lean on the corners: NaN, ±inf, ±0, subnormals, the largest finite values and the
//! extremes of each integer type turn up in about a quarter of the elements. Reductions,
//! dot and convolution take small integers in floating-point types instead, so that any order
//! of summation gives the same exact answer and a disagreement is never a matter of rounding.
//!
//! A generator's draws depend on the order it consumes the stream, so changing a generator
//! changes what a seed draws: a finding is reproduced by its case file, not by its seed, once
//! the generators have moved on.

use crate::literal::{Array, ArrayData, C128, Literal, Scalar, highest, lowest};
use crate::shape::ArrayShape;
use crate::types::ElementType::{self, *};
use chain::chain;
use collective::collective;
use indexing::{gather, scatter};
use ordering::{rng_bit_generator, select_and_scatter, sort};
use structured::{convolution, dot, movement, reduce, reduce_window};

mod chain;
mod collective;
mod indexing;
pub mod layout;
mod ordering;
mod structured;

/// SplitMix64: tiny, fast, and the same stream on every machine for a given seed.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    /// Draw no subnormal floating-point values (nor the smallest normal one, whose halves are
    /// subnormal): for backends known to flush them to zero, so that other findings show.
    pub no_subnormals: bool,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            no_subnormals: false,
        }
    }
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % ((hi - lo) as u64 + 1)) as i64
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// One generated program: the module text (result shapes omitted), its arguments, and how it is
/// to be judged.
#[derive(Clone, Debug)]
pub struct Draft {
    /// The family (`elementwise`, `movement`, ...) and the op under test (`tanh`, `pad`, ...).
    pub family: &'static str,
    pub op: String,
    pub hlo: String,
    /// The arguments, one list per replica: the program runs as `args.len()` replicas.
    pub args: Vec<Vec<Literal>>,
    /// Transcendental functions are compared within a few ULPs; everything else exactly.
    pub approximate: bool,
    /// Every operand has the result's dimensions and element `i` of the result depends only on
    /// element `i` of each operand, so a disagreement shrinks to one element.
    pub elementwise: bool,
    /// The sign of a zero result is the implementation's choice (sums in any order, the
    /// maximum or minimum of +0 and -0).
    pub zero_sign_free: bool,
}

impl Draft {
    pub fn replicas(&self) -> usize {
        self.args.len()
    }
}

pub const FAMILIES: &[&str] = &[
    "unary",
    "binary",
    "compare",
    "convert",
    "select-clamp",
    "movement",
    "reduce",
    "reduce-window",
    "dot",
    "convolution",
    "chain",
    "gather",
    "scatter",
    "sort",
    "select-and-scatter",
    "rng-bit-generator",
    "collective",
];

/// The families whose programs may carry non-default layouts on the ENTRY's parameters and
/// result: the values are logical, so the answer must not change.
const LAYOUT_FAMILIES: &[&str] = &[
    "unary",
    "binary",
    "compare",
    "convert",
    "select-clamp",
    "movement",
    "chain",
];

const FLOATS: &[ElementType] = &[F16, BF16, F32, F64];
const INTS: &[ElementType] = &[S8, S16, S32, S64, U8, U16, U32, U64];
const NUMERIC: &[ElementType] = &[S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64];
const ALL: &[ElementType] = &[
    Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64,
];
const COMPLEX: &[ElementType] = &[C64, C128];
/// Every array type, complex included.
const EVERY: &[ElementType] = &[
    Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128,
];

/// Draws a program of `family` whose dimensions are at most `size`.
pub fn draft(family: &str, rng: &mut Rng, size: i64) -> Draft {
    let mut d = match family {
        "unary" => unary(rng, size),
        "binary" => binary(rng, size),
        "compare" => compare(rng, size),
        "convert" => convert(rng, size),
        "select-clamp" => select_clamp(rng, size),
        "movement" => movement(rng, size),
        "reduce" => reduce(rng, size),
        "reduce-window" => reduce_window(rng, size),
        "dot" => dot(rng, size),
        "convolution" => convolution(rng, size),
        "gather" => gather(rng, size),
        "scatter" => scatter(rng, size),
        "sort" => sort(rng, size),
        "select-and-scatter" => select_and_scatter(rng, size),
        "rng-bit-generator" => rng_bit_generator(rng, size),
        "collective" => collective(rng, size),
        _ => chain(rng, size),
    };
    if LAYOUT_FAMILIES.contains(&family) && rng.chance(30) {
        layout::decorate(&mut d, rng);
    }
    d
}

/// One replica's arguments.
fn one(args: Vec<Literal>) -> Vec<Vec<Literal>> {
    vec![args]
}

fn ty_name(t: ElementType) -> &'static str {
    t.name()
}

fn shape(t: ElementType, dims: &[i64]) -> String {
    let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
    format!("{}[{}]", t.name(), d.join(","))
}

fn dims(rng: &mut Rng, size: i64, max_rank: usize) -> Vec<i64> {
    let rank = rng.below(max_rank + 1);
    (0..rank)
        .map(|_| {
            if rng.chance(4) {
                0
            } else {
                rng.range(1, size.max(1))
            }
        })
        .collect()
}

/// A value of type `t`, often a special one.
pub fn scalar(rng: &mut Rng, t: ElementType) -> Scalar {
    match t {
        Pred => Scalar::Pred(rng.chance(50)),
        C64 | C128 => {
            // Each part reaches the corners on its own: (NaN, 1), (-0, inf), ...
            let part = t.complex_component().unwrap_or(F64);
            let (re, im) = if rng.chance(20) {
                // A real number in complex clothing: where real and complex code paths split.
                (scalar(rng, part).as_f64(), 0.0)
            } else {
                (scalar(rng, part).as_f64(), scalar(rng, part).as_f64())
            };
            Scalar::from_c128(t, C128::new(re, im))
        }
        _ if t.is_integer() => {
            let special = [
                0i128,
                1,
                -1,
                lowest(t).as_i128().unwrap_or(0),
                highest(t).as_i128().unwrap_or(0),
                lowest(t).as_i128().unwrap_or(0) + 1,
                highest(t).as_i128().unwrap_or(0) - 1,
                2,
                7,
            ];
            let v = if rng.chance(30) {
                rng.pick(&special)
            } else if rng.chance(70) {
                rng.range(-20, 20) as i128
            } else {
                rng.next_u64() as i64 as i128
            };
            // Wrap into the type's range as two's complement does.
            let bits = t.bit_width();
            let m = 1i128 << bits;
            let mut w = v.rem_euclid(m);
            if t.is_signed_int() && w >= m / 2 {
                w -= m;
            }
            Scalar::from_i128(t, w).unwrap_or(Scalar::zero(t))
        }
        _ => {
            let x = if rng.chance(25) {
                rng.pick(&[
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    0.5,
                    highest(t).as_f64(),
                    lowest(t).as_f64(),
                    min_subnormal(t),
                    -min_subnormal(t),
                    min_normal(t),
                ])
            } else if rng.chance(30) {
                rng.range(-8, 8) as f64 * 0.5
            } else {
                let m = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 + 1.0;
                let e = rng.range(-12, 12) as i32;
                let s = if rng.chance(50) { -1.0 } else { 1.0 };
                s * m * 2f64.powi(e)
            };
            if rng.no_subnormals && x != 0.0 && x.abs() <= min_normal(t) {
                return Scalar::from_f64(t, x.signum());
            }
            Scalar::from_f64(t, x)
        }
    }
}

fn min_subnormal(t: ElementType) -> f64 {
    match t {
        F16 => 2f64.powi(-24),
        BF16 => 2f64.powi(-133),
        F32 => 2f64.powi(-149),
        _ => f64::from_bits(1),
    }
}

fn min_normal(t: ElementType) -> f64 {
    match t {
        F16 => 2f64.powi(-14),
        BF16 | F32 => 2f64.powi(-126),
        _ => f64::MIN_POSITIVE,
    }
}

/// An array whose elements come from `draw`.
fn array_with(t: ElementType, dims: &[i64], mut draw: impl FnMut() -> Scalar) -> Literal {
    let n: i64 = dims.iter().product();
    let mut data = ArrayData::zeros(t, n as usize);
    for i in 0..n as usize {
        let _ = data.set(i, draw());
    }
    match Array::from_data(ArrayShape::new(t, dims.to_vec()), data) {
        Ok(a) => Literal::Array(a),
        Err(_) => Literal::Array(Array::zeros(ArrayShape::new(t, dims.to_vec()))),
    }
}

pub fn array(rng: &mut Rng, t: ElementType, dims: &[i64]) -> Literal {
    array_with(t, dims, || scalar(rng, t))
}

/// Small integers (and for floats, halves), so that sums are exact in any order.
fn tame(rng: &mut Rng, t: ElementType, dims: &[i64]) -> Literal {
    array_with(t, dims, || tame_scalar(rng, t))
}

/// A small integer (for complex types, in each part).
fn tame_scalar(rng: &mut Rng, t: ElementType) -> Scalar {
    match t {
        Pred => Scalar::Pred(rng.chance(50)),
        C64 | C128 => Scalar::from_c128(
            t,
            C128::new(rng.range(-4, 4) as f64, rng.range(-4, 4) as f64),
        ),
        _ if t.is_integer() => {
            let lo = if t.is_signed_int() { -4 } else { 0 };
            Scalar::from_i128(t, rng.range(lo, 4) as i128).unwrap_or(Scalar::zero(t))
        }
        _ => Scalar::from_f64(t, rng.range(-4, 4) as f64),
    }
}

fn module(body: &[String], params: &[String], extra: &str) -> String {
    module_with_header("HloModule fuzz", body, params, extra)
}

fn module_with_header(header: &str, body: &[String], params: &[String], extra: &str) -> String {
    let mut s = format!("{header}\n\n");
    s.push_str(extra);
    s.push_str("ENTRY main {\n");
    for (i, p) in params.iter().enumerate() {
        s.push_str(&format!("  p{i} = {p} parameter({i})\n"));
    }
    let n = body.len();
    for (i, line) in body.iter().enumerate() {
        if i + 1 == n {
            s.push_str(&format!("  ROOT {line}\n"));
        } else {
            s.push_str(&format!("  {line}\n"));
        }
    }
    s.push_str("}\n");
    s
}

const UNARY: &[(&str, &[ElementType], bool)] = &[
    ("abs", &[S8, S16, S32, S64, F16, BF16, F32, F64], false),
    ("negate", NUMERIC, false),
    ("sign", &[S8, S16, S32, S64, F16, BF16, F32, F64], false),
    ("floor", FLOATS, false),
    ("ceil", FLOATS, false),
    ("round-nearest-afz", FLOATS, false),
    ("round-nearest-even", FLOATS, false),
    ("not", &[Pred, S8, S16, S32, S64, U8, U16, U32, U64], false),
    ("popcnt", INTS, false),
    ("count-leading-zeros", INTS, false),
    ("is-finite", FLOATS, false),
    ("real", FLOATS, false),
    ("imag", FLOATS, false),
    ("sqrt", FLOATS, false),
    ("rsqrt", FLOATS, true),
    ("cbrt", FLOATS, true),
    ("exponential", FLOATS, true),
    ("exponential-minus-one", FLOATS, true),
    ("log", FLOATS, true),
    ("log-plus-one", FLOATS, true),
    ("logistic", FLOATS, true),
    ("tanh", FLOATS, true),
    ("sine", FLOATS, true),
    ("cosine", FLOATS, true),
    ("tan", FLOATS, true),
];

/// The unary ops that take complex operands, and whether their complex results are rounded more
/// than once (compared within a few ULPs). Only `negate`, `real` and `imag` are exact there.
const COMPLEX_UNARY: &[(&str, bool)] = &[
    ("abs", true),
    ("negate", false),
    ("sign", true),
    ("real", false),
    ("imag", false),
    ("sqrt", true),
    ("rsqrt", true),
    ("exponential", true),
    ("exponential-minus-one", true),
    ("log", true),
    ("log-plus-one", true),
    ("logistic", true),
    ("tanh", true),
    ("sine", true),
    ("cosine", true),
    ("tan", true),
];

/// Finite complex values of moderate size (halves in [-4, 4] in each part). The book pins no
/// accuracy for the complex transcendental functions, nor the sign of a zero part on their branch
/// cuts, so they get none of the corners: a disagreement there would be a question, not a finding.
fn gentle_complex(rng: &mut Rng, t: ElementType, dims: &[i64]) -> Literal {
    array_with(t, dims, || {
        Scalar::from_c128(
            t,
            C128::new(rng.range(-8, 8) as f64 * 0.5, rng.range(-8, 8) as f64 * 0.5),
        )
    })
}

fn unary(rng: &mut Rng, size: i64) -> Draft {
    let (op, tys, approximate) = UNARY[rng.below(UNARY.len())];
    let complex = COMPLEX_UNARY.iter().find(|c| c.0 == op).copied();
    let d = dims(rng, size, 3);
    let (t, x, approximate) = match complex {
        Some((_, inexact)) if rng.chance(20) => {
            let t = rng.pick(COMPLEX);
            let x = if inexact {
                gentle_complex(rng, t, &d)
            } else {
                array(rng, t, &d)
            };
            (t, x, inexact)
        }
        _ => {
            let t = rng.pick(tys);
            (t, array(rng, t, &d), approximate)
        }
    };
    Draft {
        family: "unary",
        op: if t.is_complex() {
            format!("{op} complex")
        } else {
            op.into()
        },
        hlo: module(&[format!("r = {op}(p0)")], &[shape(t, &d)], ""),
        args: one(vec![x]),
        approximate,
        elementwise: true,
        zero_sign_free: false,
    }
}

const BINARY: &[(&str, &[ElementType], bool)] = &[
    ("add", NUMERIC, false),
    ("subtract", NUMERIC, false),
    ("multiply", NUMERIC, false),
    ("divide", NUMERIC, false),
    ("remainder", NUMERIC, false),
    ("maximum", ALL, false),
    ("minimum", ALL, false),
    ("power", NUMERIC, true),
    ("atan2", FLOATS, true),
    ("and", &[Pred, S8, S16, S32, S64, U8, U16, U32, U64], false),
    ("or", &[Pred, S8, S16, S32, S64, U8, U16, U32, U64], false),
    ("xor", &[Pred, S8, S16, S32, S64, U8, U16, U32, U64], false),
    ("shift-left", INTS, false),
    ("shift-right-logical", INTS, false),
    ("shift-right-arithmetic", INTS, false),
];

/// A complex operand pair for `op`: every corner for the part-wise exact `add` and `subtract`;
/// small integers for `multiply`, whose products are then exact; for the rest, finite values
/// and a divisor or base that is not zero, where C99's special cases and branch cuts (which the
/// book leaves to the sample points) stay out of the way.
fn complex_operands(rng: &mut Rng, op: &str, t: ElementType, d: &[i64]) -> (Literal, Literal) {
    match op {
        "add" | "subtract" => (array(rng, t, d), array(rng, t, d)),
        "multiply" => (tame(rng, t, d), tame(rng, t, d)),
        _ => {
            let a = gentle_complex(rng, t, d);
            let b = array_with(t, d, || {
                loop {
                    let s = tame_scalar(rng, t);
                    if s.as_c128() != C128::new(0.0, 0.0) {
                        break s;
                    }
                }
            });
            if op == "divide" { (a, b) } else { (b, a) }
        }
    }
}

fn binary(rng: &mut Rng, size: i64) -> Draft {
    let (op, tys, approximate) = BINARY[rng.below(BINARY.len())];
    let complex_ok = matches!(
        op,
        "add" | "subtract" | "multiply" | "divide" | "power" | "atan2"
    );
    let d = dims(rng, size, 3);
    let (t, a, b) = if complex_ok && rng.chance(20) {
        let t = rng.pick(COMPLEX);
        let (a, b) = complex_operands(rng, op, t, &d);
        (t, a, b)
    } else {
        let t = rng.pick(tys);
        (t, array(rng, t, &d), array(rng, t, &d))
    };
    let s = shape(t, &d);
    Draft {
        family: "binary",
        op: if t.is_complex() {
            format!("{op} complex")
        } else {
            op.into()
        },
        hlo: module(&[format!("r = {op}(p0, p1)")], &[s.clone(), s], ""),
        args: one(vec![a, b]),
        // Integer power is exact, as are complex add, subtract and (on small integers) multiply.
        approximate: (approximate && t.is_floating())
            || (t.is_complex() && matches!(op, "divide" | "power" | "atan2")),
        elementwise: true,
        zero_sign_free: matches!(op, "maximum" | "minimum"),
    }
}

fn compare(rng: &mut Rng, size: i64) -> Draft {
    let t = if rng.chance(10) {
        rng.pick(COMPLEX)
    } else {
        rng.pick(ALL)
    };
    // Complex numbers are not ordered: only EQ and NE apply.
    let dir = if t.is_complex() {
        rng.pick(&["EQ", "NE"])
    } else {
        rng.pick(&["EQ", "NE", "LT", "LE", "GT", "GE"])
    };
    let ty_attr = if t.is_float() && rng.chance(40) {
        ", type=TOTALORDER".to_string()
    } else if t.is_float() && rng.chance(30) {
        ", type=FLOAT".to_string()
    } else {
        String::new()
    };
    let d = dims(rng, size, 3);
    let s = shape(t, &d);
    // Equal operands are where comparisons differ most (±0, NaN against itself): mix them in.
    let a = array(rng, t, &d);
    let b = if rng.chance(30) {
        a.clone()
    } else {
        array(rng, t, &d)
    };
    Draft {
        family: "compare",
        op: format!(
            "compare {dir}{}{}",
            if ty_attr.is_empty() {
                ""
            } else {
                " TOTALORDER/FLOAT"
            },
            if t.is_complex() { " complex" } else { "" }
        ),
        hlo: module(
            &[format!("r = compare(p0, p1), direction={dir}{ty_attr}")],
            &[s.clone(), s],
            "",
        ),
        args: one(vec![a, b]),
        approximate: false,
        elementwise: true,
        zero_sign_free: false,
    }
}

fn convert(rng: &mut Rng, size: i64) -> Draft {
    let pool = if rng.chance(15) { EVERY } else { ALL };
    let from = rng.pick(pool);
    // A complex value converts only to a complex type (`convert.complex_to_real`).
    let to = if from.is_complex() {
        rng.pick(COMPLEX)
    } else {
        rng.pick(pool)
    };
    let d = dims(rng, size, 2);
    let op = if rng.chance(25) && from.bit_width() == to.bit_width() && from != Pred && to != Pred {
        "bitcast-convert"
    } else {
        "convert"
    };
    let mut arg = array(rng, from, &d);
    if op == "convert" && from.is_float() && (to.is_signed_int() || to.is_unsigned_int()) {
        // Only values whose truncation the integer type holds: the semantics leave NaN,
        // infinities and the others to the implementation (the conversion page).
        defined_for_int(rng, &mut arg, to);
    }
    Draft {
        family: "convert",
        op: format!("{op} {}->{}", ty_name(from), ty_name(to)),
        hlo: module(
            &[format!("r = {} {op}(p0)", shape(to, &d))],
            &[shape(from, &d)],
            "",
        ),
        args: one(vec![arg]),
        approximate: false,
        elementwise: true,
        zero_sign_free: false,
    }
}

/// Replaces every element of a float array whose truncation toward zero the integer type `to`
/// cannot hold (NaN and infinities included) by a small number the type holds.
fn defined_for_int(rng: &mut Rng, arg: &mut Literal, to: ElementType) {
    let bits = to.bit_width() as i32;
    let (lo, hi) = if to.is_signed_int() {
        (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1))
    } else {
        (0.0, 2f64.powi(bits))
    };
    if let Literal::Array(a) = arg {
        let ty = a.ty();
        for i in 0..a.len() {
            let x = a.data.get(i).as_f64();
            let t = x.trunc();
            if !(t >= lo && t < hi) {
                let small = (rng.below(200) as f64 - 100.0) / 4.0;
                let small = if to.is_unsigned_int() {
                    small.abs()
                } else {
                    small
                };
                let _ = a.data.set(i, Scalar::from_f64(ty, small));
            }
        }
    }
}

fn select_clamp(rng: &mut Rng, size: i64) -> Draft {
    let d = dims(rng, size, 3);
    if rng.chance(50) {
        let t = rng.pick(EVERY);
        let s = shape(t, &d);
        Draft {
            family: "select-clamp",
            op: "select".into(),
            hlo: module(
                &["r = select(p0, p1, p2)".into()],
                &[shape(Pred, &d), s.clone(), s],
                "",
            ),
            args: one(vec![
                array(rng, Pred, &d),
                array(rng, t, &d),
                array(rng, t, &d),
            ]),
            approximate: false,
            elementwise: true,
            zero_sign_free: false,
        }
    } else {
        let t = rng.pick(NUMERIC);
        let s = shape(t, &d);
        // Bounds as scalars or arrays; lo > hi happens and is defined (min(max(x, lo), hi)).
        let scalar_bounds = rng.chance(50);
        let bd: Vec<i64> = if scalar_bounds { vec![] } else { d.clone() };
        Draft {
            family: "select-clamp",
            op: "clamp".into(),
            hlo: module(
                &["r = clamp(p0, p1, p2)".into()],
                &[shape(t, &bd), s, shape(t, &bd)],
                "",
            ),
            args: one(vec![
                array(rng, t, &bd),
                array(rng, t, &d),
                array(rng, t, &bd),
            ]),
            approximate: false,
            elementwise: !scalar_bounds,
            zero_sign_free: true,
        }
    }
}

const MOVEMENT: &[&str] = &[
    "transpose",
    "reverse",
    "slice",
    "pad",
    "concatenate",
    "broadcast",
    "reshape",
    "dynamic-slice",
    "dynamic-update-slice",
];

/// The ops the `collective` family draws.
const COLLECTIVES: &[&str] = &[
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
];

/// The op names `--ops` may name besides the families.
pub const OP_NAMES: &[&str] = &[
    "abs",
    "negate",
    "sign",
    "floor",
    "ceil",
    "round-nearest-afz",
    "round-nearest-even",
    "not",
    "popcnt",
    "count-leading-zeros",
    "is-finite",
    "real",
    "imag",
    "sqrt",
    "rsqrt",
    "cbrt",
    "exponential",
    "exponential-minus-one",
    "log",
    "log-plus-one",
    "logistic",
    "tanh",
    "sine",
    "cosine",
    "tan",
    "add",
    "subtract",
    "multiply",
    "divide",
    "remainder",
    "maximum",
    "minimum",
    "power",
    "atan2",
    "and",
    "or",
    "xor",
    "shift-left",
    "shift-right-logical",
    "shift-right-arithmetic",
    "compare",
    "convert",
    "bitcast-convert",
    "select",
    "clamp",
    "transpose",
    "reverse",
    "slice",
    "pad",
    "concatenate",
    "broadcast",
    "reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
];

/// The family that draws `op`.
pub fn family_of(op: &str) -> Option<&'static str> {
    if UNARY.iter().any(|u| u.0 == op) {
        Some("unary")
    } else if BINARY.iter().any(|b| b.0 == op) {
        Some("binary")
    } else if MOVEMENT.contains(&op) {
        Some("movement")
    } else if COLLECTIVES.contains(&op) {
        Some("collective")
    } else {
        match op {
            "compare" => Some("compare"),
            "convert" | "bitcast-convert" => Some("convert"),
            "select" | "clamp" => Some("select-clamp"),
            _ => FAMILIES.iter().copied().find(|f| *f == op),
        }
    }
}
