//! FFT, IFFT, RFFT and IRFFT over the 1–3 innermost dimensions, for any length, in O(n log n).
//!
//! Algorithm. All arithmetic is in complex f64; results are rounded once to the result type.
//!
//! - Powers of two up to `DIRECT_MAX`, `W` lines at a time: the lines are copied into a block of
//!   split real/imaginary buffers laid out `[n][W]`, so every butterfly works on `W` lanes of
//!   contiguous f64s (one AVX-512 vector, two AVX2 ones) whatever its stride, and transformed in
//!   place by radix-4 decimation in frequency (a last radix-2 level when log2 n is odd; Van Loan,
//!   "Computational Frameworks for the Fast Fourier Transform", SIAM 1992, §1.4 and §2.4). Each
//!   level leaves four independent contiguous sub-problems, so the levels go over the whole block
//!   only while the sub-problems are longer than `LEAF` rows; each shorter one then finishes all
//!   its levels while it sits in L1. The frequencies come out in base-4 digit-reversed order and
//!   are read back in order when the block is written out.
//! - Longer powers of two, and single lines of 64 or more elements (which would leave lanes of a
//!   block empty): the four-step algorithm (Bailey, "FFTs in external or hierarchical memory",
//!   J. Supercomputing 4, 1990). With n = n1·n2 and t = t1·n2 + t2, k = k1 + n1·k2, the columns
//!   (length n1, one per t2) are transformed, element (k1, t2) is multiplied by ω_n^(k1·t2), and
//!   the rows (length n2, one per k1) are transformed into X[k1 + n1·k2]. Both steps are blocks
//!   of `W` lines of the direct transform, so each sub-transform lives in L1/L2 and the blocks of
//!   a step run in parallel.
//! - Every other length: Bluestein's chirp-z algorithm (Bluestein 1970; Rabiner, Schafer & Rader
//!   1969), with tk = (t² + k² − (k − t)²)/2 turning the DFT into a cyclic convolution of length
//!   m ≥ 2n − 1, a power of two, computed with the transforms above.
//! - The inverse is conj(DFT(conj x)), so only the forward kernels exist; the 1/n is applied when
//!   the result is written.
//! - RFFT of even length n is one complex FFT of length n/2 of z[t] = x[2t] + i·x[2t+1] followed
//!   by the split step X[k] = E[k] + ω_n^k·O[k], with E[k] = (Z[k] + conj Z[n/2−k])/2 and
//!   O[k] = (Z[k] − conj Z[n/2−k])/(2i) the transforms of the even and odd samples; IRFFT of even
//!   length runs the same steps backwards (Press et al., "Numerical Recipes", §12.3). Odd lengths
//!   transform the real data as complex.
//! - Lines are independent: blocks of lines run in parallel on the kernel pool, and so do the
//!   lines of a long transform when there are enough of them.
//!
//! Accuracy. Every twiddle factor is sin/cos of an exact multiple of 2π/n, reduced to an angle in
//! [0, π/4] (`root`), or, for the four-step and split-step factors ω_n^e with e up to n, the
//! product of two such values (`Roots`: ω^(e_hi·2^s) · ω^(e_lo)), within a few ulp; none comes
//! from a recurrence. The error then grows like O(ε log n) relative to the signal's norm (Higham,
//! "Accuracy and Stability of Numerical Algorithms", 2nd ed., §24.1). The tests hold the fast
//! paths to c·ε·log2(n)·‖x‖ against a direct O(n²) DFT. The kernels use no fused multiply-add, so
//! the vectorised instances (AVX2, AVX-512) give bit-for-bit the results of the portable one.
//!
//! Conventions (XLA's): the forward transform is X[k] = Σ x[t]·e^(−2πi·tk/n); the inverse divides
//! by n. A multi-dimensional transform applies the 1-D one along each axis; RFFT transforms the
//! innermost axis first (real → complex, keeping n/2 + 1 outputs), IRFFT transforms it last,
//! rebuilding the missing half from the conjugate symmetry of a real signal (the imaginary parts
//! of X[0] and, for even n, X[n/2] do not influence the result).

use super::{from_c128, from_f64, to_c128, to_f64};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::{FftAttrs, FftType};
use crate::kernels::pool::{chunk_for, fill_fresh, for_each_chunk, run_tasks, threads};
use crate::literal::pages::fresh_vec;
use crate::literal::recycle;
use crate::literal::{Array, ArrayData, C64, C128, Literal};
use crate::types::ElementType;
use std::f64::consts::PI;

mod block;
mod lanes;
mod plan;
mod real;
// The parts live in their own files; the op below and the tests see them as one module.
use block::*;
#[cfg(target_arch = "x86_64")]
use lanes::x86;
use lanes::{Lanes, Portable, cmul};
use plan::*;
use real::*;

/// Lines transformed together, one per SIMD lane: a row of a block is one AVX-512 vector of
/// f64 (two AVX2 vectors), and a row of complex input is two cache lines.
const W: usize = 8;
/// The longest power of two transformed directly: a block of this length (1024 rows · 8 lanes ·
/// 16 bytes = 128 KiB) stays in L2. Longer ones take the four-step path, whose sub-transforms
/// are at most this long up to 2^20 points.
const DIRECT_MAX: usize = 1024;
/// Below this much work (elements × lines), splitting over threads costs more than it saves.
const PAR_MIN: usize = 1 << 15;

// ---------------------------------------------------------------------------------------------
// Twiddle factors

/// e^(−2πi·k/n), from `sin_cos` of an angle in [0, π/4]. The octant comes from integer
/// arithmetic on 8k mod 8n, so the argument is small and almost exact and the quarter-turn
/// symmetries (exact sign changes and swaps) do the rest: each value is within a few ulp.
fn root(k: usize, n: usize) -> C128 {
    let n = n.max(1) as u128;
    let e8 = 8 * (k as u128 % n);
    let (oct, rem) = (e8 / n, e8 % n);
    // θ = 2πk/n = (π/4)·(oct + rem/n) = q·π/2 + y with |y| ≤ π/4.
    let (q, y) = if oct % 2 == 0 {
        (oct / 2, PI / 4.0 * (rem as f64 / n as f64))
    } else {
        (oct.div_ceil(2), -(PI / 4.0 * ((n - rem) as f64 / n as f64)))
    };
    let (s, c) = y.sin_cos();
    let (cos, sin) = match q % 4 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    };
    C128::new(cos, -sin)
}

/// ω_n^e = e^(−2πi·e/n) for any 0 ≤ e < n from two tables of about √n entries each:
/// ω^e = ω^(hi·2^s) · ω^lo. A full table would cost n sine/cosine pairs (about as long as the
/// transform itself for n = 2^20); one complex product of two accurate values is off by a few ulp,
/// not by an amount that grows with n as a recurrence would be.
struct Roots {
    shift: u32,
    mask: usize,
    lo: Vec<C128>,
    hi: Vec<C128>,
}

impl Roots {
    fn new(n: usize) -> Roots {
        let bits = usize::BITS - n.max(1).saturating_sub(1).leading_zeros();
        let shift = bits.div_ceil(2);
        let lo = (0..1usize << shift).map(|e| root(e, n)).collect();
        let hi = (0..n.max(1).div_ceil(1 << shift))
            .map(|h| root(h << shift, n))
            .collect();
        Roots {
            shift,
            mask: (1 << shift) - 1,
            lo,
            hi,
        }
    }

    /// ω_n^e; `e` must be below n.
    #[inline(always)]
    fn get(&self, e: usize) -> C128 {
        self.hi[e >> self.shift] * self.lo[e & self.mask]
    }
}

// ---------------------------------------------------------------------------------------------
// Vectors of W lanes: `lanes`

// ---------------------------------------------------------------------------------------------
// The op

/// The lines along `axis` of a row-major array with `dims`.
fn axis_lines(dims: &[usize], axis: usize) -> (usize, Lines) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let total: usize = dims.iter().product();
    let lines = Lines {
        inner: inner.max(1),
        base: 0,
        outer_step: n * inner,
        inner_step: 1,
        stride: inner,
    };
    (total.checked_div(n).unwrap_or(0), lines)
}

/// Transforms the lines along `axis` of `src` into the same places of `dst` (row-major arrays
/// with `dims`): forward, or conj(DFT(conj ·)) when `conj`, each result times `scale`.
///
/// # Safety
/// Both arrays must hold the product of `dims` elements; `dst` must not be touched by anything
/// else meanwhile, and `src` must be `dst` or an array nothing writes.
unsafe fn transform(
    src: Mem,
    dst: Mem,
    dims: &[usize],
    axis: usize,
    conj: bool,
    scale: f64,
    isa: Isa,
) {
    let n = dims[axis];
    let (count, lines) = axis_lines(dims, axis);
    if n == 0 || count == 0 {
        return;
    }
    let io = Io {
        count,
        src,
        li: lines,
        dst,
        lo: lines,
        conj_in: conj,
        conj_out: conj,
        scale,
        twiddle: None,
    };
    // SAFETY: the lines along an axis partition the array; the rest is the caller's contract.
    unsafe { Plan::new(n, count, isa).run(&io, isa, true) };
}

/// `transform` in place on a vector.
fn transform_axis(
    data: &mut [C128],
    dims: &[usize],
    axis: usize,
    conj: bool,
    scale: f64,
    isa: Isa,
) {
    // The shape is the caller's to get right; a wrong one must not become a wild access.
    if data.len() != dims.iter().product::<usize>() {
        debug_assert!(false, "{} elements for dims {dims:?}", data.len());
        return;
    }
    let p = Mem::C128(data.as_mut_ptr());
    // SAFETY: `data` holds the array (just checked) and is borrowed mutably here.
    unsafe { transform(p, p, dims, axis, conj, scale, isa) };
}

/// The scale of a transform along `axis`: 1/n for the inverse.
fn scale_of(dims: &[usize], axis: usize, inverse: bool) -> f64 {
    if inverse {
        1.0 / dims[axis].max(1) as f64
    } else {
        1.0
    }
}

/// The forward (or, with 1/n, inverse) transform along `axis`, in place.
fn complex_axis(data: &mut [C128], dims: &[usize], axis: usize, inverse: bool, isa: Isa) {
    transform_axis(
        data,
        dims,
        axis,
        inverse,
        scale_of(dims, axis, inverse),
        isa,
    );
}

/// The FFT or IFFT along the `axes` of `src` into `out`: the first transform reads `src`, the
/// others work in place, on `out` when it is complex f64, else on a complex f64 work array
/// whose last transform writes `out`. Every element of `out` is written.
///
/// # Safety
/// As `transform`, for both arrays.
unsafe fn transform_axes(
    src: Mem,
    out: Mem,
    dims: &[usize],
    axes: std::ops::Range<usize>,
    inverse: bool,
    isa: Isa,
) {
    let total: usize = dims.iter().product();
    let (first, last) = (axes.start, axes.end - 1);
    let mut work = Vec::new();
    let mid = match out {
        Mem::C128(_) => out,
        Mem::C64(_) if first == last => out,
        Mem::C64(_) => {
            work = fresh_vec::<C128>(total);
            Mem::C128(work.as_mut_ptr())
        }
    };
    // SAFETY: the caller's contract; `work` (written whole by the first transform before
    // anything reads it) holds `total` elements.
    unsafe {
        for ax in axes {
            let from = if ax == first { src } else { mid };
            let to = if ax == last { out } else { mid };
            transform(
                from,
                to,
                dims,
                ax,
                inverse,
                scale_of(dims, ax, inverse),
                isa,
            );
        }
    }
    recycle::keep(work);
}

/// Chunks for the element-wise passes over whole arrays (conversions, split steps).
fn chunk(n: usize) -> usize {
    chunk_for(n, 1 << 14)
}

/// `f(i)` for i < n in a fresh buffer, filled in parallel. Fresh buffers come from the recycled
/// ones when one of about the size is at hand: a new 8 MiB mapping costs more in page faults
/// than the transform.
fn fresh<U: Send + 'static>(n: usize, f: impl Fn(usize) -> U + Sync) -> Vec<U> {
    fill_fresh(n, chunk(n), &|off, dst| {
        for (i, d) in dst.iter_mut().enumerate() {
            d.write(f(off + i));
        }
    })
}

/// `f(l, k)` for the `lines × len` elements of `lines` lines of `len`, like `fresh` (walking the
/// indices, since a division per element would cost more than the element's work).
fn fresh_lines<U: Send + 'static>(
    lines: usize,
    len: usize,
    f: impl Fn(usize, usize) -> U + Sync,
) -> Vec<U> {
    let n = lines * len;
    fill_fresh(n, chunk(n), &|off, dst| {
        let (mut l, mut k) = (off / len, off % len);
        for d in dst.iter_mut() {
            d.write(f(l, k));
            k += 1;
            if k == len {
                k = 0;
                l += 1;
            }
        }
    })
}

/// A fresh vector of n elements that `fill` writes through the pointer it gets, every one of
/// them.
///
/// # Safety
/// `fill` must write all n elements.
unsafe fn filled<T: Send + 'static>(n: usize, fill: impl FnOnce(*mut T)) -> Vec<T> {
    let mut v = fresh_vec::<T>(n);
    fill(v.as_mut_ptr());
    // SAFETY: the caller's contract.
    unsafe { v.set_len(n) };
    v
}

/// The operand's elements as a `Mem` (read only), when they are complex.
fn complex_mem(a: &Array) -> Option<Mem> {
    match &a.data {
        ArrayData::C64(v) => Some(Mem::C64(v.as_ptr().cast_mut())),
        ArrayData::C128(v) => Some(Mem::C128(v.as_ptr().cast_mut())),
        _ => None,
    }
}

/// The operand as complex f64.
fn complex_operand(a: &Array) -> Result<Vec<C128>> {
    Ok(match &a.data {
        ArrayData::C64(v) => fresh(v.len(), |i| C128::new(v[i].re as f64, v[i].im as f64)),
        ArrayData::C128(v) => fresh(v.len(), |i| v[i]),
        _ => to_c128(a)?,
    })
}

/// A complex result rounded once to `ty`; `d` goes back to the recycled buffers.
fn complex_result(ty: ElementType, d: Vec<C128>) -> Result<ArrayData> {
    match ty {
        ElementType::C64 => {
            let out = fresh(d.len(), |i| C64::new(d[i].re as f32, d[i].im as f32));
            recycle::keep(d);
            Ok(ArrayData::C64(out.into()))
        }
        ElementType::C128 => Ok(ArrayData::C128(d.into())),
        _ => from_c128(ty, d),
    }
}

/// The real result `x[i] = value(i)` rounded once to `ty`.
fn real_result(
    ty: ElementType,
    n: usize,
    value: impl Fn(usize) -> f64 + Sync,
) -> Result<ArrayData> {
    match ty {
        ElementType::F32 => Ok(ArrayData::F32(fresh(n, |i| value(i) as f32).into())),
        ElementType::F64 => Ok(ArrayData::F64(fresh(n, value).into())),
        _ => from_f64(ty, (0..n).map(value).collect()),
    }
}

/// FFT or IFFT over the axes `axes`, straight from the operand into the result.
fn complex_op(
    a: &Array,
    ty: ElementType,
    dims: &[usize],
    axes: std::ops::Range<usize>,
    inverse: bool,
    isa: Isa,
) -> Result<ArrayData> {
    let total = a.len();
    let src = complex_mem(a).ok_or_else(|| Error::internal("FFT of a non-complex operand"))?;
    Ok(match ty {
        ElementType::C64 => {
            // SAFETY: the operand is only read; the fresh result is written whole.
            let v = unsafe {
                filled::<C64>(total, |p| {
                    transform_axes(src, Mem::C64(p), dims, axes, inverse, isa)
                })
            };
            ArrayData::C64(v.into())
        }
        _ => {
            // SAFETY: as above.
            let v = unsafe {
                filled::<C128>(total, |p| {
                    transform_axes(src, Mem::C128(p), dims, axes, inverse, isa)
                })
            };
            complex_result(ty, v)?
        }
    })
}

/// The RFFT along the innermost axis of `a`, `lines` lines of length n: `lines × (n/2 + 1)`
/// frequencies, rounded to `D` (the result type when no other axis follows).
fn rfft_lines<D: Elem + Send + 'static>(
    a: &Array,
    lines: usize,
    n: usize,
    isa: Isa,
) -> Result<Vec<D>> {
    let keep = n / 2 + 1;
    if lines == 0 || n == 0 {
        return Ok(Vec::new());
    }
    if n % 2 == 1 {
        let x = to_f64(a)?;
        let mut c = fresh(lines * n, |i| C128::new(x[i], 0.0));
        complex_axis(&mut c, &[lines, n], 1, false, isa);
        let out = fresh_lines(lines, keep, |l, k| D::round(c[l * n + k]));
        recycle::keep(c);
        return Ok(out);
    }
    let half = n / 2;
    // The reals taken in pairs, z[t] = x[2t] + i·x[2t+1]: C64 is two f32s and C128 two f64s
    // (`repr(C)`, the alignment of their parts), so the lines·n reals are lines·n/2 of them.
    let owned;
    let pairs = match &a.data {
        ArrayData::F32(v) => Mem::C64(v.as_ptr().cast::<C64>().cast_mut()),
        ArrayData::F64(v) => Mem::C128(v.as_ptr().cast::<C128>().cast_mut()),
        _ => {
            owned = to_f64(a)?;
            Mem::C128(owned.as_ptr().cast::<C128>().cast_mut())
        }
    };
    let dims = [lines, half];
    // SAFETY: the pairs are only read; the fresh array is written whole.
    let mut z = unsafe {
        filled::<C128>(lines * half, |p| {
            transform(pairs, Mem::C128(p), &dims, 1, false, 1.0, isa)
        })
    };
    let out = half_steps::<D>(false, Mem::C128(z.as_mut_ptr()), lines, n, isa);
    recycle::keep(z);
    Ok(out)
}

/// IRFFT of `lines` lines of `have` = n/2 + 1 frequencies (`spec`, read only), written as `ty`
/// (`lines × n`).
fn irfft_lines(
    spec: Mem,
    lines: usize,
    have: usize,
    n: usize,
    ty: ElementType,
    isa: Isa,
) -> Result<ArrayData> {
    if lines == 0 || n == 0 {
        return real_result(ty, 0, |_| 0.0);
    }
    if have != n / 2 + 1 {
        return Err(Error::internal(format!(
            "IRFFT of length {n} needs {} frequencies, got {have}",
            n / 2 + 1
        )));
    }
    // SAFETY (every read of `spec` below): the caller's `lines × have` elements.
    let x = |l: usize, j: usize| unsafe { spec.read(l * have + j) };
    if n % 2 == 1 {
        // Rebuild the full spectrum of a real signal, X[n − j] = conj(X[j]), and keep the real
        // part of its inverse.
        let mut full = fresh_lines(lines, n, |l, j| {
            if j < have {
                x(l, j)
            } else {
                x(l, n - j).conj()
            }
        });
        complex_axis(&mut full, &[lines, n], 1, true, isa);
        let out = real_result(ty, lines * n, |i| full[i].re);
        recycle::keep(full);
        return out;
    }
    let half = n / 2;
    // Z[k] = E[k] + i·O[k] with 2E[k] = X[k] + conj X[n/2−k] and 2O[k] = ω^−k (X[k] − conj
    // X[n/2−k]); the halves are folded into the 1/n below. Only the real parts of X[0] and
    // X[n/2] count (the Hermitian part of the spectrum is what a real signal has).
    let mut z = half_steps::<C128>(true, spec, lines, n, isa);
    let (dims, scale) = ([lines, half], 1.0 / n as f64);
    // The inverse transform writes x[2t] + i·x[2t+1] = z[t] straight into the result's reals.
    let out = match ty {
        ElementType::F32 => {
            // SAFETY: `z` is read only; the fresh result, lines·n f32s = lines·n/2 C64s, is
            // written whole.
            let v = unsafe {
                filled::<f32>(lines * n, |p| {
                    transform(
                        Mem::C128(z.as_mut_ptr()),
                        Mem::C64(p.cast::<C64>()),
                        &dims,
                        1,
                        true,
                        scale,
                        isa,
                    )
                })
            };
            ArrayData::F32(v.into())
        }
        ElementType::F64 => {
            // SAFETY: as above, with C128s.
            let v = unsafe {
                filled::<f64>(lines * n, |p| {
                    transform(
                        Mem::C128(z.as_mut_ptr()),
                        Mem::C128(p.cast::<C128>()),
                        &dims,
                        1,
                        true,
                        scale,
                        isa,
                    )
                })
            };
            ArrayData::F64(v.into())
        }
        _ => {
            transform_axis(&mut z, &dims, 1, true, scale, isa);
            real_result(ty, lines * n, |i| {
                let v = z[i / 2];
                if i % 2 == 0 { v.re } else { v.im }
            })?
        }
    };
    recycle::keep(z);
    Ok(out)
}

/// Unnormalised DFT of any length (the inverse direction uses e^(+2πi·tk/n)).
#[cfg(test)]
fn dft(x: &mut [C128], inverse: bool) {
    let n = x.len();
    transform_axis(x, &[n], 0, inverse, 1.0, Isa::best());
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
    let isa = Isa::best();
    let dims: Vec<usize> = a.dims().iter().map(|&d| d as usize).collect();
    let last = rank - 1;
    let data = match kind {
        FftType::Fft | FftType::Ifft => complex_op(
            a,
            out_shape.ty,
            &dims,
            rank - k..rank,
            kind == FftType::Ifft,
            isa,
        )?,
        FftType::Rfft => {
            let n = dims[last];
            let lines = a.len().checked_div(n).unwrap_or(0);
            if k == 1 && out_shape.ty == ElementType::C64 {
                let d = rfft_lines::<C64>(a, lines, n, isa)?;
                return Ok(Literal::Array(Array::from_data(
                    out_shape,
                    ArrayData::C64(d.into()),
                )?));
            }
            let mut d = rfft_lines::<C128>(a, lines, n, isa)?;
            let mut dims = dims;
            // The result's innermost dimension (none for a length of 0).
            dims[last] = if n == 0 { 0 } else { n / 2 + 1 };
            for ax in rank - k..last {
                complex_axis(&mut d, &dims, ax, false, isa);
            }
            complex_result(out_shape.ty, d)?
        }
        FftType::Irfft => {
            let n = *lengths.last().unwrap_or(&0) as usize;
            let have = dims[last];
            let lines = a.len().checked_div(have).unwrap_or(0);
            if k == 1 {
                let spec =
                    complex_mem(a).ok_or_else(|| Error::internal("IRFFT of a real operand"))?;
                irfft_lines(spec, lines, have, n, out_shape.ty, isa)?
            } else {
                let mut d = complex_operand(a)?;
                for ax in rank - k..last {
                    complex_axis(&mut d, &dims, ax, true, isa);
                }
                let out =
                    irfft_lines(Mem::C128(d.as_mut_ptr()), lines, have, n, out_shape.ty, isa)?;
                recycle::keep(d);
                out
            }
        }
    };
    Ok(Literal::Array(Array::from_data(out_shape, data)?))
}

#[cfg(test)]
mod tests;
