//! Random numbers: `rng-bit-generator` (ThreeFry-2x32 and Philox-4x32-10, bit-exact with XLA's CPU
//! backend) and `rng` (uniform and normal distributions drawn from Philox keyed by the run's seed).
//!
//! Algorithms: Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC 2011),
//! in the form XLA builds them (`xla/hlo/builder/lib/prng.cc`, state handling in
//! `rng_bit_generator_expander.cc`): ThreeFry with 20 rounds in five blocks of four and the key
//! schedule `[k0, k1, 0x1BD11BDA ^ k0 ^ k1]`; Philox with 10 rounds, multipliers 0xD2511F53 and
//! 0xCD9E8D57 and key bumps 0x9E3779B9 / 0xBB67AE85. The way counters map to output elements (the
//! interleaving along a split dimension for 32-bit ThreeFry output, four words per Philox block)
//! follows XLA, so that the bits match XLA:CPU for the same state.

use crate::error::{Error, Result};
use crate::hlo::attrs::RngAlgorithm;
use crate::literal::{Array, ArrayData, Literal};
use crate::shape::{ArrayShape, row_major_strides};
use crate::types::ElementType;

pub fn threefry2x32(x: [u32; 2], key: [u32; 2]) -> [u32; 2] {
    const ROT: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let (mut x0, mut x1) = (x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1]));
    for b in 0..5usize {
        for &r in &ROT[b % 2] {
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(r) ^ x0;
        }
        x0 = x0.wrapping_add(ks[(b + 1) % 3]);
        x1 = x1.wrapping_add(ks[(b + 2) % 3]).wrapping_add(b as u32 + 1);
    }
    [x0, x1]
}

pub fn philox4x32(x: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut x, mut k) = (x, key);
    for _ in 0..10 {
        let p0 = x[0] as u64 * 0xD251_1F53;
        let p1 = x[2] as u64 * 0xCD9E_8D57;
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
        k = [
            k[0].wrapping_add(0x9E37_79B9),
            k[1].wrapping_add(0xBB67_AE85),
        ];
    }
    x
}

fn key_words(key: u64) -> [u32; 2] {
    [key as u32, (key >> 32) as u32]
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    ThreeFry,
    Philox,
}

impl Algorithm {
    /// The generator an `algorithm=` value selects. `rng_default` is Philox, as on XLA's CPU and
    /// GPU backends.
    pub fn of(a: RngAlgorithm) -> Algorithm {
        match a {
            RngAlgorithm::Default | RngAlgorithm::Philox => Algorithm::Philox,
            RngAlgorithm::ThreeFry => Algorithm::ThreeFry,
        }
    }
}

/// ThreeFry with 32-bit outputs: counters cover half of the split dimension and each produces two
/// neighbouring elements along it (XLA's layout of the pairs).
fn threefry_u32(key: u64, counter: u64, dims: &[i64]) -> (Vec<u32>, u64) {
    let n: usize = dims.iter().map(|&d| d as usize).product();
    if dims.is_empty() {
        let y = threefry2x32(split64(counter), key_words(key));
        return (vec![y[0]], counter.wrapping_add(1));
    }
    if n == 0 {
        return (vec![], counter);
    }
    let d = dims.iter().position(|&s| s % 2 == 0).unwrap_or_else(|| {
        let max = dims.iter().copied().max().unwrap_or(0);
        dims.iter().position(|&s| s == max).unwrap_or(0)
    });
    let mut half = dims.to_vec();
    half[d] = (dims[d] + 1) / 2;
    let half_n: usize = half.iter().map(|&s| s as usize).product();
    let pairs: Vec<[u32; 2]> = (0..half_n)
        .map(|h| threefry2x32(split64(counter.wrapping_add(h as u64)), key_words(key)))
        .collect();
    let hs = row_major_strides(&half);
    let os = row_major_strides(dims);
    let mut out = vec![0u32; n];
    for (k, o) in out.iter_mut().enumerate() {
        let mut rem = k;
        let mut h = 0usize;
        let mut along = 0usize;
        for (j, &s) in os.iter().enumerate() {
            let i = rem / s;
            rem %= s;
            if j == d {
                along = i;
                h += (i / 2) * hs[j];
            } else {
                h += i * hs[j];
            }
        }
        *o = pairs[h][along % 2];
    }
    (out, counter.wrapping_add(half_n as u64))
}

fn split64(c: u64) -> [u32; 2] {
    [c as u32, (c >> 32) as u32]
}

fn threefry_u64(key: u64, counter: u64, n: usize) -> (Vec<u64>, u64) {
    let out = (0..n)
        .map(|j| {
            let y = threefry2x32(split64(counter.wrapping_add(j as u64)), key_words(key));
            y[0] as u64 | (y[1] as u64) << 32
        })
        .collect();
    (out, counter.wrapping_add(n as u64))
}

/// `blocks` Philox blocks from the 128-bit counter `c`.
fn philox_blocks(key: u64, c: u128, blocks: usize) -> Vec<[u32; 4]> {
    (0..blocks)
        .map(|j| {
            let v = c.wrapping_add(j as u128);
            philox4x32(
                [
                    v as u32,
                    (v >> 32) as u32,
                    (v >> 64) as u32,
                    (v >> 96) as u32,
                ],
                key_words(key),
            )
        })
        .collect()
}

/// The bits for one `rng-bit-generator`: the new state and the output array.
pub fn bit_generator(
    alg: Algorithm,
    state: &[u64],
    out: &ArrayShape,
) -> Result<(Vec<u64>, ArrayData)> {
    let n = out.element_count();
    let key = *state
        .first()
        .ok_or_else(|| Error::internal("empty rng state"))?;
    let width = out.ty.bit_width();
    let (new_state, bits): (Vec<u64>, Bits) = match alg {
        Algorithm::ThreeFry => {
            let c = *state
                .get(1)
                .ok_or_else(|| Error::internal("three_fry state needs two words"))?;
            if width == 64 {
                let (v, c2) = threefry_u64(key, c, n);
                (vec![key, c2], Bits::U64(v))
            } else {
                let (v, c2) = threefry_u32(key, c, &out.dims);
                (vec![key, c2], Bits::U32(v))
            }
        }
        Algorithm::Philox => {
            let lo = *state
                .get(1)
                .ok_or_else(|| Error::internal("philox state needs at least two words"))?;
            // With a two-word state XLA uses the key as the counter's high half and keeps only
            // [key, low] as the new state.
            let hi = if state.len() >= 3 { state[2] } else { key };
            let c = lo as u128 | (hi as u128) << 64;
            let (bits, blocks) = if width == 64 {
                let b = (2 * n).div_ceil(4);
                let words = philox_blocks(key, c, b);
                let v: Vec<u64> = words
                    .iter()
                    .flat_map(|w| {
                        [
                            w[0] as u64 | (w[1] as u64) << 32,
                            w[2] as u64 | (w[3] as u64) << 32,
                        ]
                    })
                    .take(n)
                    .collect();
                (Bits::U64(v), b)
            } else {
                let b = n.div_ceil(4);
                let v: Vec<u32> = philox_blocks(key, c, b)
                    .into_iter()
                    .flatten()
                    .take(n)
                    .collect();
                (Bits::U32(v), b)
            };
            let c2 = c.wrapping_add(blocks as u128);
            let st = if state.len() >= 3 {
                vec![key, c2 as u64, (c2 >> 64) as u64]
            } else {
                vec![key, c2 as u64]
            };
            (st, bits)
        }
    };
    Ok((new_state, bits.into_type(out.ty)?))
}

enum Bits {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Bits {
    /// Narrower types keep the low bits of each 32-bit word; signed and float types reinterpret
    /// the unsigned bits of their width (what XLA:CPU returns).
    fn into_type(self, ty: ElementType) -> Result<ArrayData> {
        use ElementType as T;
        Ok(match (self, ty) {
            (Bits::U32(v), T::U8) => ArrayData::U8(v.into_iter().map(|x| x as u8).collect()),
            (Bits::U32(v), T::S8) => ArrayData::S8(v.into_iter().map(|x| x as u8 as i8).collect()),
            (Bits::U32(v), T::U16) => ArrayData::U16(v.into_iter().map(|x| x as u16).collect()),
            (Bits::U32(v), T::S16) => {
                ArrayData::S16(v.into_iter().map(|x| x as u16 as i16).collect())
            }
            (Bits::U32(v), T::F16) => ArrayData::F16(
                v.into_iter()
                    .map(|x| half::f16::from_bits(x as u16))
                    .collect(),
            ),
            (Bits::U32(v), T::BF16) => ArrayData::BF16(
                v.into_iter()
                    .map(|x| half::bf16::from_bits(x as u16))
                    .collect(),
            ),
            (Bits::U32(v), T::U32) => ArrayData::U32(v.into()),
            (Bits::U32(v), T::S32) => ArrayData::S32(v.into_iter().map(|x| x as i32).collect()),
            (Bits::U32(v), T::F32) => ArrayData::F32(v.into_iter().map(f32::from_bits).collect()),
            (Bits::U64(v), T::U64) => ArrayData::U64(v.into()),
            (Bits::U64(v), T::S64) => ArrayData::S64(v.into_iter().map(|x| x as i64).collect()),
            (Bits::U64(v), T::F64) => ArrayData::F64(v.into_iter().map(f64::from_bits).collect()),
            (_, ty) => {
                return Err(Error::internal(format!(
                    "rng-bit-generator cannot produce {ty}"
                )));
            }
        })
    }
}

pub fn rng_bit_generator(
    algorithm: RngAlgorithm,
    state: &Array,
    result: &ArrayShape,
) -> Result<Literal> {
    let alg = Algorithm::of(algorithm);
    let st = state
        .typed::<u64>()
        .ok_or_else(|| Error::internal("rng state must be u64"))?;
    let (new_state, data) = bit_generator(alg, st, result)?;
    let state_lit = Array::from_data(state.shape.clone(), ArrayData::U64(new_state.into()))?;
    let bits = Array::from_data(result.clone(), data)?;
    Ok(Literal::Tuple(vec![
        Literal::Array(state_lit),
        Literal::Array(bits),
    ]))
}

/// A stream of uniform 32-bit words for `rng`: Philox keyed by the run's seed, its counter carried
/// across `rng` instructions in the order they execute.
pub struct Stream {
    key: u64,
    counter: u128,
    buf: Vec<u32>,
}

impl Stream {
    pub fn new(key: u64, counter: u64) -> Stream {
        Stream {
            key,
            counter: counter as u128,
            buf: Vec::new(),
        }
    }
    pub fn counter(&self) -> u64 {
        self.counter as u64
    }
    pub fn next_u32(&mut self) -> u32 {
        if self.buf.is_empty() {
            let w = philox_blocks(self.key, self.counter, 1)[0];
            self.counter = self.counter.wrapping_add(1);
            self.buf = vec![w[3], w[2], w[1], w[0]];
        }
        self.buf.pop().unwrap_or(0)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.next_u32() as u64 | (self.next_u32() as u64) << 32
    }
    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform in [0, bound) without modulo bias (Lemire's multiply-and-reject), bound > 0.
    pub fn below(&mut self, bound: u64) -> u64 {
        loop {
            let m = self.next_u64() as u128 * bound as u128;
            let low = m as u64;
            if low >= bound.wrapping_neg() % bound {
                return (m >> 64) as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(
        alg: Algorithm,
        state: &[u64],
        ty: ElementType,
        dims: Vec<i64>,
    ) -> (Vec<u64>, ArrayData) {
        bit_generator(alg, state, &ArrayShape::new(ty, dims)).unwrap()
    }

    // Golden vectors recorded from XLA:CPU (jaxlib 0.10.2), listed in the shared reference notes.
    #[test]
    fn threefry_matches_xla() {
        let (s, d) = generate(Algorithm::ThreeFry, &[42, 7], ElementType::U32, vec![]);
        assert_eq!(
            (s, d),
            (vec![42, 8], ArrayData::U32(vec![2642642533].into()))
        );
        let (s, d) = generate(Algorithm::ThreeFry, &[42, 7], ElementType::U32, vec![3, 3]);
        assert_eq!(s, vec![42, 13]);
        assert_eq!(
            d,
            ArrayData::U32(
                vec![
                    2642642533, 356970675, 4222757798, 3437982737, 1736384518, 1010817143,
                    563344011, 653491321, 2676170827
                ]
                .into()
            )
        );
        let (s, d) = generate(
            Algorithm::ThreeFry,
            &[42, u64::MAX],
            ElementType::U64,
            vec![3],
        );
        assert_eq!(s, vec![42, 2]);
        assert_eq!(
            d,
            ArrayData::U64(
                vec![
                    6536551687978447178,
                    5723167036595107001,
                    18313067817178486892
                ]
                .into()
            )
        );
    }

    #[test]
    fn philox_matches_xla() {
        let (s, d) = generate(Algorithm::Philox, &[1, 2, 3], ElementType::U32, vec![7]);
        assert_eq!(s, vec![1, 4, 3]);
        assert_eq!(
            d,
            ArrayData::U32(
                vec![
                    4031113034, 1366700262, 495645701, 3051723414, 89414891, 1917262711, 278163116
                ]
                .into()
            )
        );
        let (s, d) = generate(
            Algorithm::Philox,
            &[0xdeadbeef, u64::MAX, 0],
            ElementType::U64,
            vec![3],
        );
        assert_eq!(s, vec![3735928559, 1, 1]);
        assert_eq!(
            d,
            ArrayData::U64(vec![419871133882747434, 71870569379600080, 4434727441513844799].into())
        );
        let (s, d) = generate(Algorithm::Philox, &[9, 8], ElementType::U32, vec![5]);
        assert_eq!(s, vec![9, 10]);
        assert_eq!(
            d,
            ArrayData::U32(vec![1549981861, 1986237760, 378486211, 289636242, 947864306].into())
        );
    }

    #[test]
    fn narrow_and_signed_outputs_keep_low_bits() {
        // XLA:CPU gives s8 [101, 17, -77] for state [42, 7] (checked with the XLA adapter).
        let (s, d) = generate(Algorithm::ThreeFry, &[42, 7], ElementType::S8, vec![3]);
        assert_eq!(
            (s, d),
            (vec![42, 9], ArrayData::S8(vec![101, 17, -77].into()))
        );
    }
}
