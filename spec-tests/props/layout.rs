//! Property tests for shapes and layouts (the Shapes-and-Layout chapter).
//!
//! Random shapes (rank 0 to 5, sizes 0 to 6), random layouts (any permutation as
//! `minor_to_major`, optionally padded by up to 2 per dimension with any padding value) and
//! random literals of every element type. The expected values come from naive formulas written
//! here: a linear index is built Horner-style from the most major dimension inwards, a stride is
//! the product of the padded widths of the dimensions listed before it in `minor_to_major`, and
//! padding values come from a table of each type's limits. Nothing is compared against the code
//! under test.

use half::{bf16, f16};
use libtest_mimic::{Failed, Trial};
use num_complex::Complex;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use xla_spec::literal::{Array, ArrayData, Scalar};
use xla_spec::shape::{ArrayShape, Layout, PaddingValue};
use xla_spec::types::ElementType;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("index_round_trip", index_round_trip),
        trial(
            "linear_index_matches_naive_formula",
            linear_index_matches_naive,
        ),
        trial("strides_match_naive_formula", strides_match_naive),
        trial("bijection_onto_non_padding_positions", bijection),
        trial("buffer_round_trip_every_type", buffer_round_trip),
        trial("padding_positions_hold_padding_value", padding_positions),
        trial("invalid_layouts_are_rejected", invalid_layouts),
    ]
}

fn trial(name: &str, f: fn() -> Result<(), Failed>) -> Trial {
    Trial::test(format!("prop::layout::{name}"), f)
}

/// A shape's dimensions with a layout for them.
#[derive(Clone, Debug)]
struct Case {
    dims: Vec<i64>,
    minor_to_major: Vec<i64>,
    /// Padded widths, or `None` for an unpadded layout.
    padded: Option<Vec<i64>>,
    padding_value: PaddingValue,
}

impl Case {
    fn layout(&self) -> Layout {
        let l = Layout::new(self.minor_to_major.clone());
        match &self.padded {
            Some(p) => l.with_padding(p.clone(), self.padding_value),
            None => l,
        }
    }
    /// The physical width of each dimension.
    fn widths(&self) -> Vec<i64> {
        self.padded.clone().unwrap_or_else(|| self.dims.clone())
    }
    fn element_count(&self) -> i64 {
        self.dims.iter().product()
    }
    fn buffer_len(&self) -> i64 {
        self.widths().iter().product()
    }
}

const PADDING_VALUES: [PaddingValue; 5] = [
    PaddingValue::Zero,
    PaddingValue::One,
    PaddingValue::Lowest,
    PaddingValue::Highest,
    PaddingValue::Unknown,
];

fn case() -> impl Strategy<Value = Case> {
    (0usize..=5).prop_flat_map(|rank| {
        (
            prop::collection::vec(0i64..=6, rank),
            Just((0..rank as i64).collect::<Vec<i64>>()).prop_shuffle(),
            prop::option::of(prop::collection::vec(0i64..=2, rank)),
            0usize..PADDING_VALUES.len(),
        )
            .prop_map(|(dims, minor_to_major, extra, pv)| Case {
                padded: extra.map(|e| dims.iter().zip(&e).map(|(d, x)| d + x).collect()),
                dims,
                minor_to_major,
                padding_value: PADDING_VALUES[pv],
            })
    })
}

fn run<T: std::fmt::Debug>(
    cases: u32,
    strategy: impl Strategy<Value = T>,
    test: impl Fn(T) -> Result<(), TestCaseError>,
) -> Result<(), Failed> {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, test)
        .map_err(|e| Failed::from(e.to_string()))
}

/// Every index of `dims` in row-major order (dimension 0 slowest).
fn all_indices(dims: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &d in dims {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (0..d).map(move |i| {
                    let mut v = prefix.clone();
                    v.push(i);
                    v
                })
            })
            .collect();
    }
    out
}

/// The linear index of `index`, Horner-style: start from the most major dimension and, moving
/// inwards, multiply by the next dimension's padded width and add its coordinate.
fn naive_linear(c: &Case, index: &[i64]) -> i64 {
    let w = c.widths();
    c.minor_to_major
        .iter()
        .rev()
        .fold(0, |acc, &d| acc * w[d as usize] + index[d as usize])
}

/// Position `k` of the buffer, decomposed the other way: the most minor coordinate is `k` modulo
/// its width, and so on outwards.
fn naive_coordinates(c: &Case, mut k: i64) -> Vec<i64> {
    let w = c.widths();
    let mut index = vec![0; c.dims.len()];
    for &d in &c.minor_to_major {
        index[d as usize] = k % w[d as usize];
        k /= w[d as usize];
    }
    index
}

fn index_round_trip() -> Result<(), Failed> {
    run(256, case(), |c| {
        let l = c.layout();
        for index in all_indices(&c.dims) {
            let k = l
                .checked_linear_index(&c.dims, &index)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = l
                .checked_multi_index(&c.dims, k)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back.as_ref(), Some(&index), "linear index {}", k);
            prop_assert_eq!(l.multi_index(&c.dims, k), index);
        }
        Ok(())
    })
}

fn linear_index_matches_naive() -> Result<(), Failed> {
    run(256, case(), |c| {
        let l = c.layout();
        prop_assert_eq!(l.buffer_len(&c.dims), c.buffer_len());
        for index in all_indices(&c.dims) {
            prop_assert_eq!(l.linear_index(&c.dims, &index), naive_linear(&c, &index));
        }
        // An index with a coordinate out of range is refused, not wrapped.
        if let Some(d) = (0..c.dims.len()).next() {
            let mut bad = vec![0; c.dims.len()];
            bad[d] = c.dims[d];
            prop_assert!(l.checked_linear_index(&c.dims, &bad).is_err());
        }
        Ok(())
    })
}

fn strides_match_naive() -> Result<(), Failed> {
    run(256, case(), |c| {
        let w = c.widths();
        let strides = c.layout().strides(&c.dims);
        for d in 0..c.dims.len() as i64 {
            let pos = c.minor_to_major.iter().position(|&x| x == d).unwrap_or(0);
            let expected: i64 = c.minor_to_major[..pos]
                .iter()
                .map(|&m| w[m as usize])
                .product();
            prop_assert_eq!(strides[d as usize], expected, "stride of dimension {}", d);
        }
        Ok(())
    })
}

fn bijection() -> Result<(), Failed> {
    run(256, case(), |c| {
        let l = c.layout();
        let len = c.buffer_len();
        let mut hit = vec![false; len as usize];
        for index in all_indices(&c.dims) {
            let k = l.linear_index(&c.dims, &index);
            prop_assert!((0..len).contains(&k), "{} outside 0..{}", k, len);
            prop_assert!(!hit[k as usize], "two indices map to {}", k);
            hit[k as usize] = true;
        }
        prop_assert_eq!(hit.iter().filter(|&&h| h).count() as i64, c.element_count());
        // The positions reached are exactly those whose coordinates are all inside the logical
        // sizes; the others are padding.
        for (k, &h) in hit.iter().enumerate() {
            let coords = naive_coordinates(&c, k as i64);
            let inside = coords.iter().zip(&c.dims).all(|(i, n)| i < n);
            prop_assert_eq!(h, inside, "position {} at {:?}", k, coords);
            let checked = l
                .checked_multi_index(&c.dims, k as i64)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(checked, inside.then_some(coords));
        }
        Ok(())
    })
}

/// Random data of a type from raw bits, so every bit pattern (NaNs, infinities, -0) can appear.
fn random_data(ty: ElementType, bits: &[u64]) -> ArrayData {
    let b = bits.iter();
    match ty {
        ElementType::Pred => ArrayData::Pred(b.map(|&x| x & 1 == 1).collect()),
        ElementType::S8 => ArrayData::S8(b.map(|&x| x as i8).collect()),
        ElementType::S16 => ArrayData::S16(b.map(|&x| x as i16).collect()),
        ElementType::S32 => ArrayData::S32(b.map(|&x| x as i32).collect()),
        ElementType::S64 => ArrayData::S64(b.map(|&x| x as i64).collect()),
        ElementType::U8 => ArrayData::U8(b.map(|&x| x as u8).collect()),
        ElementType::U16 => ArrayData::U16(b.map(|&x| x as u16).collect()),
        ElementType::U32 => ArrayData::U32(b.map(|&x| x as u32).collect()),
        ElementType::U64 => ArrayData::U64(b.copied().collect()),
        ElementType::F16 => ArrayData::F16(b.map(|&x| f16::from_bits(x as u16)).collect()),
        ElementType::BF16 => ArrayData::BF16(b.map(|&x| bf16::from_bits(x as u16)).collect()),
        ElementType::F32 => ArrayData::F32(b.map(|&x| f32::from_bits(x as u32)).collect()),
        ElementType::F64 => ArrayData::F64(b.map(|&x| f64::from_bits(x)).collect()),
        ElementType::C64 => ArrayData::C64(
            b.map(|&x| Complex::new(f32::from_bits(x as u32), f32::from_bits((x >> 32) as u32)))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(
            b.map(|&x| Complex::new(f64::from_bits(x), f64::from_bits(x.rotate_left(17))))
                .collect(),
        ),
        ElementType::Token => ArrayData::Pred(vec![].into()),
    }
}

/// The bits of one element, for exact comparison (NaN payloads and signed zeros included).
fn scalar_bits(s: Scalar) -> u128 {
    match s {
        Scalar::Pred(x) => x as u128,
        Scalar::S8(x) => x as u8 as u128,
        Scalar::S16(x) => x as u16 as u128,
        Scalar::S32(x) => x as u32 as u128,
        Scalar::S64(x) => x as u64 as u128,
        Scalar::U8(x) => x as u128,
        Scalar::U16(x) => x as u128,
        Scalar::U32(x) => x as u128,
        Scalar::U64(x) => x as u128,
        Scalar::F16(x) => x.to_bits() as u128,
        Scalar::BF16(x) => x.to_bits() as u128,
        Scalar::F32(x) => x.to_bits() as u128,
        Scalar::F64(x) => x.to_bits() as u128,
        Scalar::C64(c) => ((c.re.to_bits() as u128) << 32) | c.im.to_bits() as u128,
        Scalar::C128(c) => ((c.re.to_bits() as u128) << 64) | c.im.to_bits() as u128,
    }
}

/// The value padding must hold, from each type's limits (lowest and highest are the finite
/// extremes; complex pads with a zero imaginary part; PRED counts false < true).
fn expected_padding(ty: ElementType, p: PaddingValue) -> Scalar {
    use ElementType as T;
    use PaddingValue as P;
    match (p, ty) {
        (P::Zero | P::Unknown, _) => zero_or_one(ty, false),
        (P::One, _) => zero_or_one(ty, true),
        (P::Lowest, T::Pred) => Scalar::Pred(false),
        (P::Highest, T::Pred) => Scalar::Pred(true),
        (P::Lowest, T::S8) => Scalar::S8(-128),
        (P::Highest, T::S8) => Scalar::S8(127),
        (P::Lowest, T::S16) => Scalar::S16(-32768),
        (P::Highest, T::S16) => Scalar::S16(32767),
        (P::Lowest, T::S32) => Scalar::S32(-2147483648),
        (P::Highest, T::S32) => Scalar::S32(2147483647),
        (P::Lowest, T::S64) => Scalar::S64(-9223372036854775808),
        (P::Highest, T::S64) => Scalar::S64(9223372036854775807),
        (P::Lowest, T::U8) => Scalar::U8(0),
        (P::Highest, T::U8) => Scalar::U8(255),
        (P::Lowest, T::U16) => Scalar::U16(0),
        (P::Highest, T::U16) => Scalar::U16(65535),
        (P::Lowest, T::U32) => Scalar::U32(0),
        (P::Highest, T::U32) => Scalar::U32(4294967295),
        (P::Lowest, T::U64) => Scalar::U64(0),
        (P::Highest, T::U64) => Scalar::U64(18446744073709551615),
        // Largest finite values: f16 65504 = 0x7bff, bf16 0x7f7f, f32 0x7f7fffff,
        // f64 0x7fefffffffffffff; lowest is the same with the sign bit set.
        (P::Lowest, T::F16) => Scalar::F16(f16::from_bits(0xfbff)),
        (P::Highest, T::F16) => Scalar::F16(f16::from_bits(0x7bff)),
        (P::Lowest, T::BF16) => Scalar::BF16(bf16::from_bits(0xff7f)),
        (P::Highest, T::BF16) => Scalar::BF16(bf16::from_bits(0x7f7f)),
        (P::Lowest, T::F32) => Scalar::F32(f32::from_bits(0xff7f_ffff)),
        (P::Highest, T::F32) => Scalar::F32(f32::from_bits(0x7f7f_ffff)),
        (P::Lowest, T::F64) => Scalar::F64(f64::from_bits(0xffef_ffff_ffff_ffff)),
        (P::Highest, T::F64) => Scalar::F64(f64::from_bits(0x7fef_ffff_ffff_ffff)),
        (P::Lowest, T::C64) => Scalar::C64(Complex::new(f32::from_bits(0xff7f_ffff), 0.0)),
        (P::Highest, T::C64) => Scalar::C64(Complex::new(f32::from_bits(0x7f7f_ffff), 0.0)),
        (P::Lowest, T::C128) => {
            Scalar::C128(Complex::new(f64::from_bits(0xffef_ffff_ffff_ffff), 0.0))
        }
        (P::Highest, T::C128) => {
            Scalar::C128(Complex::new(f64::from_bits(0x7fef_ffff_ffff_ffff), 0.0))
        }
        (_, T::Token) => Scalar::Pred(false),
    }
}

fn zero_or_one(ty: ElementType, one: bool) -> Scalar {
    let v = one as u8;
    match ty {
        ElementType::Pred => Scalar::Pred(one),
        ElementType::S8 => Scalar::S8(v as i8),
        ElementType::S16 => Scalar::S16(v as i16),
        ElementType::S32 => Scalar::S32(v as i32),
        ElementType::S64 => Scalar::S64(v as i64),
        ElementType::U8 => Scalar::U8(v),
        ElementType::U16 => Scalar::U16(v as u16),
        ElementType::U32 => Scalar::U32(v as u32),
        ElementType::U64 => Scalar::U64(v as u64),
        ElementType::F16 => Scalar::F16(f16::from_f32(v as f32)),
        ElementType::BF16 => Scalar::BF16(bf16::from_f32(v as f32)),
        ElementType::F32 => Scalar::F32(v as f32),
        ElementType::F64 => Scalar::F64(v as f64),
        ElementType::C64 => Scalar::C64(Complex::new(v as f32, 0.0)),
        ElementType::C128 => Scalar::C128(Complex::new(v as f64, 0.0)),
        ElementType::Token => Scalar::Pred(false),
    }
}

/// A case, an element type and enough random bits for its elements.
fn literal_case() -> impl Strategy<Value = (Case, ElementType, Vec<u64>)> {
    (
        case(),
        0usize..ElementType::ALL.len(),
        prop::collection::vec(any::<u64>(), 6usize.pow(5)),
    )
        .prop_map(|(c, t, bits)| (c, ElementType::ALL[t], bits))
}

fn literal_of(c: &Case, ty: ElementType, bits: &[u64]) -> Result<Array, TestCaseError> {
    let n = c.element_count() as usize;
    Array::from_data(
        ArrayShape::new(ty, c.dims.clone()),
        random_data(ty, &bits[..n]),
    )
    .map_err(|e| TestCaseError::fail(e.to_string()))
}

fn buffer_round_trip() -> Result<(), Failed> {
    run(256, literal_case(), |(c, ty, bits)| {
        let a = literal_of(&c, ty, &bits)?;
        let l = c.layout();
        let buf = a
            .to_buffer(Some(&l))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(buf.len() as i64, c.buffer_len());
        prop_assert_eq!(buf.ty(), ty);
        // Each element sits where the naive formula puts it; the literal itself is row-major.
        for (k, index) in all_indices(&c.dims).iter().enumerate() {
            let at = naive_linear(&c, index) as usize;
            prop_assert_eq!(
                bits_of(&buf, at),
                bits_of(&a.data, k),
                "element {:?}",
                index
            );
        }
        let back = Array::from_buffer(a.shape.clone().with_layout(l), &buf)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.data.len(), a.data.len());
        for k in 0..a.data.len() {
            prop_assert_eq!(bits_of(&back.data, k), bits_of(&a.data, k));
        }
        prop_assert_eq!(&back.shape.dims, &c.dims);
        Ok(())
    })
}

fn bits_of(d: &ArrayData, k: usize) -> u128 {
    scalar_bits(d.get(k))
}

fn padding_positions() -> Result<(), Failed> {
    run(256, literal_case(), |(mut c, ty, bits)| {
        if c.padded.is_none() {
            // Make sure every case here is padded.
            c.padded = Some(c.dims.iter().map(|d| d + 1).collect());
        }
        let a = literal_of(&c, ty, &bits)?;
        let buf = a
            .to_buffer(Some(&c.layout()))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let pad = scalar_bits(expected_padding(ty, c.padding_value));
        for k in 0..c.buffer_len() {
            let coords = naive_coordinates(&c, k);
            if coords.iter().zip(&c.dims).any(|(i, n)| i >= n) {
                prop_assert_eq!(bits_of(&buf, k as usize), pad, "padding at {:?}", coords);
            }
        }
        // Whatever the padding holds, reading skips it.
        let mut scribbled = buf.clone();
        for k in 0..c.buffer_len() {
            let coords = naive_coordinates(&c, k);
            if coords.iter().zip(&c.dims).any(|(i, n)| i >= n) {
                let junk = random_data(ty, &[bits[k as usize % bits.len()] ^ 0x5a5a]).get(0);
                scribbled
                    .set(k as usize, junk)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
        }
        let back = Array::from_buffer(a.shape.clone().with_layout(c.layout()), &scribbled)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for k in 0..a.data.len() {
            prop_assert_eq!(bits_of(&back.data, k), bits_of(&a.data, k));
        }
        Ok(())
    })
}

fn invalid_layouts() -> Result<(), Failed> {
    let strategy = (case(), 0usize..4, 0i64..8);
    run(256, strategy, |(c, how, x)| {
        let rank = c.dims.len();
        let mut l = c.layout();
        let rule = match how {
            // A repeated or out-of-range dimension number, or a wrong length.
            0 if rank > 0 => {
                let i = x as usize % rank;
                l.minor_to_major[i] = if x % 2 == 0 {
                    l.minor_to_major[(i + 1) % rank].max(rank as i64)
                } else {
                    -1 - x
                };
                if rank > 1 && x % 4 == 0 {
                    l.minor_to_major[i] = l.minor_to_major[(i + 1) % rank];
                }
                "layout.minor_to_major_permutation"
            }
            1 => {
                l.minor_to_major.push(rank as i64);
                "layout.minor_to_major_permutation"
            }
            2 => {
                let mut p = c.widths();
                p.push(x);
                l.padded_dimensions = Some(p);
                "layout.padded_rank"
            }
            _ => match c.dims.iter().position(|&d| d > 0) {
                Some(i) => {
                    let mut p = c.widths();
                    p[i] = x % c.dims[i];
                    l.padded_dimensions = Some(p);
                    "layout.padded_width"
                }
                None => return Ok(()),
            },
        };
        if how == 0 && rank == 0 {
            return Ok(());
        }
        let e = match l.check(&c.dims) {
            Ok(()) => return Err(TestCaseError::fail(format!("{l:?} accepted"))),
            Err(e) => e,
        };
        prop_assert_eq!(e.rule.as_deref(), Some(rule), "{}", e.message);
        // Writing and reading through an invalid layout fail with the same rule.
        let a = Array::zeros(ArrayShape::new(ElementType::F32, c.dims.clone()));
        let e = a.to_buffer(Some(&l)).err();
        prop_assert_eq!(e.and_then(|e| e.rule), Some(rule.to_string()));
        Ok(())
    })
}
