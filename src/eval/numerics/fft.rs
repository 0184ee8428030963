//! FFT, IFFT, RFFT and IRFFT over the 1–3 innermost dimensions, for any length, in O(n log n).
//!
//! Algorithm: an iterative radix-2 Cooley–Tukey transform for powers of two, and Bluestein's
//! chirp-z algorithm (Bluestein 1970; see also Rabiner, Schafer & Rader 1969) for every other
//! length, which rewrites a length-n DFT as a convolution computed with power-of-two FFTs of length
//! ≥ 2n − 1. All arithmetic is in complex f64; results are rounded once to the result type.
//! Twiddle factors come from `sin`/`cos` of exact multiples of 2π/n, so the error grows like
//! O(ε log n) relative to the signal's norm.
//!
//! Conventions (XLA's): the forward transform is X[k] = Σ x[t]·e^(−2πi·tk/n); the inverse divides
//! by n. A multi-dimensional transform applies the 1-D one along each axis; RFFT transforms the
//! innermost axis first (real → complex, keeping n/2 + 1 outputs), IRFFT transforms it last,
//! rebuilding the missing half from the conjugate symmetry of a real signal.

use super::{from_c128, from_f64, to_c128, to_f64};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::{FftAttrs, FftType};
use crate::literal::{Array, C128, Literal};
use crate::shape::row_major_strides;
use std::f64::consts::PI;

fn radix2(x: &mut [C128], inverse: bool) {
    let n = x.len();
    let mut j = 0usize;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            x.swap(i, j);
        }
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut len = 2;
    while len <= n {
        let half = len / 2;
        // Twiddles computed directly (not by repeated multiplication) to keep the error small.
        let tw: Vec<C128> = (0..half)
            .map(|k| {
                let a = sign * 2.0 * PI * k as f64 / len as f64;
                C128::new(a.cos(), a.sin())
            })
            .collect();
        for start in (0..n).step_by(len) {
            for k in 0..half {
                let u = x[start + k];
                let v = x[start + k + half] * tw[k];
                x[start + k] = u + v;
                x[start + k + half] = u - v;
            }
        }
        len <<= 1;
    }
}

/// Unnormalised DFT of any length (the inverse direction uses e^(+2πi·tk/n)).
pub fn dft(x: &mut [C128], inverse: bool) {
    let n = x.len();
    if n <= 1 {
        return;
    }
    if n.is_power_of_two() {
        radix2(x, inverse);
        return;
    }
    // Bluestein: tk = (t² + k² − (k − t)²) / 2.
    let sign = if inverse { 1.0 } else { -1.0 };
    let chirp: Vec<C128> = (0..n)
        .map(|t| {
            // t² mod 2n keeps the angle's argument small and exact.
            let t2 = ((t as u128 * t as u128) % (2 * n as u128)) as f64;
            let a = sign * PI * t2 / n as f64;
            C128::new(a.cos(), a.sin())
        })
        .collect();
    let m = (2 * n - 1).next_power_of_two();
    let mut a = vec![C128::new(0.0, 0.0); m];
    for t in 0..n {
        a[t] = x[t] * chirp[t];
    }
    let mut b = vec![C128::new(0.0, 0.0); m];
    b[0] = chirp[0].conj();
    for t in 1..n {
        b[t] = chirp[t].conj();
        b[m - t] = chirp[t].conj();
    }
    radix2(&mut a, false);
    radix2(&mut b, false);
    for (p, q) in a.iter_mut().zip(&b) {
        *p *= q;
    }
    radix2(&mut a, true);
    let scale = 1.0 / m as f64;
    for k in 0..n {
        x[k] = a[k] * scale * chirp[k];
    }
}

/// Applies `f` to every line of `data` (row-major with `dims`) along `axis`.
fn along(data: &mut [C128], dims: &[i64], axis: usize, mut f: impl FnMut(&mut Vec<C128>)) {
    let strides = row_major_strides(dims);
    let n = dims[axis] as usize;
    let s = strides[axis];
    let total: usize = dims.iter().map(|&d| d as usize).product();
    if n == 0 || total == 0 {
        return;
    }
    let mut line = Vec::with_capacity(n);
    for base in 0..total {
        if !(base / s).is_multiple_of(n) {
            continue;
        }
        line.clear();
        line.extend((0..n).map(|i| data[base + i * s]));
        f(&mut line);
        for (i, v) in line.iter().enumerate() {
            data[base + i * s] = *v;
        }
    }
}

fn complex_axis(data: &mut [C128], dims: &[i64], axis: usize, inverse: bool) {
    along(data, dims, axis, |line| {
        dft(line, inverse);
        if inverse {
            let k = 1.0 / line.len() as f64;
            line.iter_mut().for_each(|v| *v *= k);
        }
    });
}

pub fn fft(inst: &Instruction, attrs: &FftAttrs, a: &Array) -> Result<Literal> {
    let kind = attrs.fft_type;
    let lengths = &attrs.fft_length[..];
    let out_shape = crate::eval::Evaluator::result_array_shape(inst)?.clone();
    let rank = a.rank();
    let k = lengths.len();
    if k == 0 || k > rank {
        return Err(Error::internal(
            "fft_length must name 1 to rank innermost dimensions",
        ));
    }
    let axes: Vec<usize> = (rank - k..rank).collect();
    let last = rank - 1;
    let result: Vec<C128> = match kind {
        FftType::Fft | FftType::Ifft => {
            let mut d = to_c128(a)?;
            for &ax in &axes {
                complex_axis(&mut d, a.dims(), ax, kind == FftType::Ifft);
            }
            d
        }
        FftType::Rfft => {
            let x = to_f64(a)?;
            let n = a.dims()[last] as usize;
            let keep = n / 2 + 1;
            let mut dims = a.dims().to_vec();
            dims[last] = keep as i64;
            let lines = x.len().checked_div(n).unwrap_or(0);
            let mut d = Vec::with_capacity(lines * keep);
            for l in 0..lines {
                let mut line: Vec<C128> = x[l * n..(l + 1) * n]
                    .iter()
                    .map(|&v| C128::new(v, 0.0))
                    .collect();
                dft(&mut line, false);
                d.extend_from_slice(&line[..keep.min(line.len())]);
            }
            for &ax in &axes[..k - 1] {
                complex_axis(&mut d, &dims, ax, false);
            }
            d
        }
        FftType::Irfft => {
            let mut d = to_c128(a)?;
            for &ax in &axes[..k - 1] {
                complex_axis(&mut d, a.dims(), ax, true);
            }
            let n = *lengths.last().unwrap_or(&0) as usize;
            let have = a.dims()[last] as usize;
            let lines = d.len().checked_div(have).unwrap_or(0);
            let mut out = Vec::with_capacity(lines * n);
            for l in 0..lines {
                let src = &d[l * have..(l + 1) * have];
                // Rebuild the full spectrum of a real signal: X[n − j] = conj(X[j]).
                let mut full = vec![C128::new(0.0, 0.0); n];
                for (j, v) in full.iter_mut().enumerate() {
                    *v = if j <= n / 2 {
                        src.get(j).copied().unwrap_or_default()
                    } else {
                        src.get(n - j).copied().unwrap_or_default().conj()
                    };
                }
                dft(&mut full, true);
                let s = 1.0 / n.max(1) as f64;
                out.extend(full.into_iter().map(|v| C128::new(v.re * s, 0.0)));
            }
            out
        }
    };
    let data = if out_shape.ty.is_complex() {
        from_c128(out_shape.ty, result)?
    } else {
        from_f64(out_shape.ty, result.into_iter().map(|c| c.re).collect())?
    };
    Ok(Literal::Array(Array::from_data(out_shape, data)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[C128]) -> Vec<C128> {
        let n = x.len();
        (0..n)
            .map(|k| {
                (0..n).fold(C128::new(0.0, 0.0), |acc, t| {
                    let a = -2.0 * PI * ((t * k) % n) as f64 / n as f64;
                    acc + x[t] * C128::new(a.cos(), a.sin())
                })
            })
            .collect()
    }

    #[test]
    fn matches_the_naive_dft_for_every_small_length() {
        for n in 1..40usize {
            let x: Vec<C128> = (0..n)
                .map(|t| C128::new((t as f64 * 0.7).sin(), (t as f64 * 1.3).cos()))
                .collect();
            let mut y = x.clone();
            dft(&mut y, false);
            let want = naive(&x);
            for (g, w) in y.iter().zip(&want) {
                assert!((g - w).norm() < 1e-11 * n as f64, "n={n}: {g} vs {w}");
            }
            dft(&mut y, true);
            for (g, w) in y.iter().zip(&x) {
                assert!(
                    (g / n as f64 - w).norm() < 1e-12 * n as f64,
                    "round trip n={n}"
                );
            }
        }
    }
}
