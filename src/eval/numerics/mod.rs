//! Numerics: batch normalisation, Cholesky, triangular solve, FFT and random numbers.
//!
//! Floating-point work here is done in f64 (and complex f64) and rounded once to the result type,
//! so the reference is at least as accurate as a backend computing in the operand type; golden
//! cases for these ops carry tolerances for that reason.

mod batchnorm;
mod fft;
pub mod linalg;
pub mod rng;

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::RngDistribution;
use crate::hlo::opcode::NumericsOp;
use crate::literal::{Array, ArrayData, C64, C128, Literal};
use crate::types::ElementType;
use half::{bf16, f16};

pub fn eval(
    ev: &Evaluator,
    inst: &Instruction,
    op: &NumericsOp,
    ops: &[&Literal],
) -> Result<Literal> {
    match op {
        NumericsOp::BatchNormTraining(b) => batchnorm::training(b, ops),
        NumericsOp::BatchNormInference(b) => batchnorm::inference(b, ops),
        NumericsOp::BatchNormGrad(b) => batchnorm::grad(b, ops),
        NumericsOp::Cholesky(c) => linalg::cholesky(c.lower, array(ops, 0)?),
        NumericsOp::TriangularSolve(t) => {
            linalg::triangular_solve(t, array(ops, 0)?, array(ops, 1)?)
        }
        NumericsOp::Fft(f) => fft::fft(inst, f, array(ops, 0)?),
        NumericsOp::RngBitGenerator(r) => {
            let out = match &inst.shape {
                crate::shape::Shape::Tuple(t) => t.get(1).and_then(|s| s.as_array()),
                _ => None,
            }
            .ok_or_else(|| Error::internal("rng-bit-generator result must be (state, bits)"))?;
            rng::rng_bit_generator(r.algorithm, array(ops, 0)?, out)
        }
        NumericsOp::Rng(r) => rng_op(ev, inst, r.distribution, ops),
        NumericsOp::RngGetAndUpdateState(r) => {
            // XLA's internal form of the rng state: [seed, counter], the counter advanced by delta.
            let mut c = ev
                .ctx
                .rng_state
                .lock()
                .map_err(|_| Error::internal("rng state lock poisoned"))?;
            let old = *c;
            *c = c.wrapping_add(r.delta as u64);
            Literal::vec(vec![2], vec![ev.ctx.options.seed, old])
        }
    }
}

/// `rng`: uniform over [a, b) or normal with mean a and standard deviation b.
fn rng_op(
    ev: &Evaluator,
    inst: &Instruction,
    distribution: RngDistribution,
    ops: &[&Literal],
) -> Result<Literal> {
    let shape = Evaluator::result_array_shape(inst)?.clone();
    let (a, b) = (array(ops, 0)?.data.get(0), array(ops, 1)?.data.get(0));
    let n = shape.element_count();
    let mut counter = ev
        .ctx
        .rng_state
        .lock()
        .map_err(|_| Error::internal("rng state lock poisoned"))?;
    let mut s = rng::Stream::new(ev.ctx.options.seed, *counter);
    let normal = distribution == RngDistribution::Normal;
    let ty = shape.ty;
    let data = if ty.is_float() {
        let (lo, hi) = (a.as_f64(), b.as_f64());
        let vals: Vec<f64> = (0..n)
            .map(|_| {
                if normal {
                    // Box–Muller; 1 - u keeps the logarithm's argument in (0, 1].
                    let u1 = 1.0 - s.next_unit_f64();
                    let u2 = s.next_unit_f64();
                    lo + hi * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
                } else {
                    lo + (hi - lo) * s.next_unit_f64()
                }
            })
            .collect();
        let mut d = from_f64(ty, vals)?;
        if !normal && hi > lo {
            clamp_below(&mut d, hi);
        }
        d
    } else if ty.is_integer() || ty.is_pred() {
        let (lo, hi) = (a.as_i128().unwrap_or(0), b.as_i128().unwrap_or(0));
        let bits = if ty.is_pred() { 1 } else { ty.bit_width() };
        let modulus: u128 = 1u128 << bits;
        // The range is b - a modulo 2^bits, so b <= a wraps around the type as it does on XLA:CPU
        // (an empty range covers the whole type).
        let range = (hi - lo).rem_euclid(modulus as i128) as u128;
        let range = if range == 0 { modulus } else { range };
        let mut d = ArrayData::zeros(ty, n);
        for k in 0..n {
            let r = if range > u64::MAX as u128 {
                s.next_u64() as u128
            } else {
                s.below(range as u64) as u128
            };
            let v = (lo as u128).wrapping_add(r) % modulus;
            let signed = if ty.is_signed_int() && v >= modulus / 2 {
                v as i128 - modulus as i128
            } else {
                v as i128
            };
            let sc = crate::literal::Scalar::from_i128(ty, signed)
                .ok_or_else(|| Error::internal("rng value out of range"))?;
            d.set(k, sc)?;
        }
        d
    } else {
        return Err(Error::internal(format!("rng cannot produce {ty}")));
    };
    *counter = s.counter();
    Ok(Literal::Array(Array::from_data(shape, data)?))
}

/// Rounding a + (b - a)·u to a narrow type can land on b itself; keep results below b.
fn clamp_below(d: &mut ArrayData, hi: f64) {
    match d {
        ArrayData::F16(v) => v
            .iter_mut()
            .filter(|x| x.to_f64() >= hi)
            .for_each(|x| *x = f16::from_bits(x.to_bits() - 1)),
        ArrayData::BF16(v) => v
            .iter_mut()
            .filter(|x| x.to_f64() >= hi)
            .for_each(|x| *x = bf16::from_bits(x.to_bits() - 1)),
        ArrayData::F32(v) => v
            .iter_mut()
            .filter(|x| **x as f64 >= hi)
            .for_each(|x| *x = x.next_down()),
        ArrayData::F64(v) => v
            .iter_mut()
            .filter(|x| **x >= hi)
            .for_each(|x| *x = x.next_down()),
        _ => {}
    }
}

/// The elements of a float array widened to f64.
pub(crate) fn to_f64(a: &Array) -> Result<Vec<f64>> {
    Ok(match &a.data {
        ArrayData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F64(v) => v.to_vec(),
        other => {
            return Err(Error::internal(format!(
                "expected a float array, got {}",
                other.ty()
            )));
        }
    })
}

/// f64 values rounded once to a float type.
pub(crate) fn from_f64(ty: ElementType, v: Vec<f64>) -> Result<ArrayData> {
    Ok(match ty {
        ElementType::F16 => ArrayData::F16(v.into_iter().map(f16::from_f64).collect()),
        ElementType::BF16 => ArrayData::BF16(v.into_iter().map(bf16::from_f64).collect()),
        ElementType::F32 => ArrayData::F32(v.into_iter().map(|x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(v.into()),
        other => {
            return Err(Error::internal(format!(
                "expected a float type, got {other}"
            )));
        }
    })
}

/// The elements of a float or complex array as complex f64.
pub(crate) fn to_c128(a: &Array) -> Result<Vec<C128>> {
    Ok(match &a.data {
        ArrayData::C64(v) => v
            .iter()
            .map(|c| C128::new(c.re as f64, c.im as f64))
            .collect(),
        ArrayData::C128(v) => v.to_vec(),
        _ => to_f64(a)?.into_iter().map(|x| C128::new(x, 0.0)).collect(),
    })
}

/// Complex f64 values rounded to a complex type, or their real parts to a float type.
pub(crate) fn from_c128(ty: ElementType, v: Vec<C128>) -> Result<ArrayData> {
    Ok(match ty {
        ElementType::C64 => ArrayData::C64(
            v.into_iter()
                .map(|c| C64::new(c.re as f32, c.im as f32))
                .collect(),
        ),
        ElementType::C128 => ArrayData::C128(v.into()),
        _ => from_f64(ty, v.into_iter().map(|c| c.re).collect())?,
    })
}
