//! Cholesky factorisation and triangular solve over batches of matrices in the two minor
//! dimensions. Unblocked textbook algorithms (Cholesky–Banachiewicz; forward and back
//! substitution, Golub & Van Loan §4.2 and §3.1) in f64 or complex f64, rounded once at the end.
//!
//! Only the triangle named by `lower` is read. The reference writes zeros into the other triangle of
//! a Cholesky result (the seed leaves it implementation-defined). A matrix that is not positive
//! definite gives what XLA:CPU gives: all NaN when a pivot is negative or NaN, and NaN from a zero
//! pivot on when a pivot is exactly zero.

use super::{from_c128, from_f64, to_c128, to_f64};
use crate::error::{Error, Result};
use crate::hlo::attrs::{TransposeA, TriangularSolveAttrs};
use crate::kernels::factor::{self, BLOCK, MIN_BLOCKED};
use crate::literal::{Array, C128, Literal};
use std::ops::{Add, Div, Mul, Sub};

/// The arithmetic the algorithms need, over f64 and complex f64.
trait Field:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    fn zero() -> Self;
    fn one() -> Self;
    fn conj(self) -> Self;
    fn re(self) -> f64;
    fn from_re(x: f64) -> Self;
}

impl Field for f64 {
    fn zero() -> f64 {
        0.0
    }
    fn one() -> f64 {
        1.0
    }
    fn conj(self) -> f64 {
        self
    }
    fn re(self) -> f64 {
        self
    }
    fn from_re(x: f64) -> f64 {
        x
    }
}

impl Field for C128 {
    fn zero() -> C128 {
        C128::new(0.0, 0.0)
    }
    fn one() -> C128 {
        C128::new(1.0, 0.0)
    }
    fn conj(self) -> C128 {
        C128::new(self.re, -self.im)
    }
    fn re(self) -> f64 {
        self.re
    }
    fn from_re(x: f64) -> C128 {
        C128::new(x, 0.0)
    }
}

fn cholesky_one<T: Field>(a: &[T], n: usize, lower: bool) -> Vec<T> {
    // Read the named triangle as the lower triangle of a Hermitian matrix.
    let at = |i: usize, j: usize| {
        if lower {
            a[i * n + j]
        } else {
            a[j * n + i].conj()
        }
    };
    let mut l = vec![T::zero(); n * n];
    let mut failed = false;
    for j in 0..n {
        let mut d = at(j, j).re();
        for k in 0..j {
            let v = l[j * n + k];
            d -= (v * v.conj()).re();
        }
        // XLA:CPU's rule, observed through the XLA adapter: a negative or NaN pivot makes the whole
        // matrix NaN; a zero pivot gives NaN in its own diagonal entry (XLA computes p·rsqrt(p)),
        // which then spreads to the entries computed after it.
        failed |= d.is_nan() || d < 0.0;
        let djj = if d == 0.0 { f64::NAN } else { d.sqrt() };
        l[j * n + j] = T::from_re(djj);
        for i in j + 1..n {
            let mut s = at(i, j);
            for k in 0..j {
                s = s - l[i * n + k] * l[j * n + k].conj();
            }
            l[i * n + j] = s / T::from_re(djj);
        }
    }
    if failed {
        return vec![T::from_re(f64::NAN); n * n];
    }
    if lower {
        l
    } else {
        let mut u = vec![T::zero(); n * n];
        for i in 0..n {
            for j in i..n {
                u[i * n + j] = l[j * n + i].conj();
            }
        }
        u
    }
}

fn batches(a: &Array) -> Result<(usize, usize, usize)> {
    let r = a.rank();
    if r < 2 {
        return Err(Error::internal("matrix operand of rank < 2"));
    }
    let (m, n) = (a.dims()[r - 2] as usize, a.dims()[r - 1] as usize);
    let b: usize = a.dims()[..r - 2].iter().map(|&d| d as usize).product();
    Ok((b, m, n))
}

/// The unblocked Cholesky factor of one real n×n matrix (the naive twin of [`cholesky_f64`]).
pub fn cholesky_unblocked_f64(a: &[f64], n: usize, lower: bool) -> Vec<f64> {
    cholesky_one(a, n, lower)
}

/// The Cholesky factor of one real n×n matrix by the blocked algorithm with block size `nb`, with
/// the same conventions as the unblocked one (other triangle zero, XLA's NaN rule).
pub fn cholesky_f64(a: &[f64], n: usize, lower: bool, nb: usize) -> Vec<f64> {
    // The named triangle, read as the lower triangle of a symmetric matrix.
    let mut w = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            w[i * n + j] = if lower { a[i * n + j] } else { a[j * n + i] };
        }
    }
    if factor::cholesky_lower_blocked(&mut w, n, nb) {
        return vec![f64::NAN; n * n];
    }
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            if lower {
                out[i * n + j] = w[i * n + j];
            } else {
                out[j * n + i] = w[i * n + j];
            }
        }
    }
    out
}

pub fn cholesky(lower: bool, a: &Array) -> Result<Literal> {
    let (b, n, _) = batches(a)?;
    let data = if a.ty().is_complex() {
        let v = to_c128(a)?;
        let out: Vec<C128> = (0..b)
            .flat_map(|k| cholesky_one(&v[k * n * n..(k + 1) * n * n], n, lower))
            .collect();
        from_c128(a.ty(), out)?
    } else {
        let v = to_f64(a)?;
        let one = |m: &[f64]| {
            if n >= MIN_BLOCKED {
                cholesky_f64(m, n, lower, BLOCK)
            } else {
                cholesky_one(m, n, lower)
            }
        };
        let out: Vec<f64> = (0..b)
            .flat_map(|k| one(&v[k * n * n..(k + 1) * n * n]))
            .collect();
        from_f64(a.ty(), out)?
    };
    Ok(Literal::Array(Array::from_data(a.shape.clone(), data)?))
}

#[derive(Clone, Copy, PartialEq)]
enum Transpose {
    No,
    Yes,
    Adjoint,
}

/// Solves one system. `t` is op(a) restricted to the named triangle, as a dense m×m matrix, and
/// `t_lower` says which triangle it has after the transpose.
fn solve_one<T: Field>(t: &[T], m: usize, t_lower: bool, b: &[T], k: usize, left: bool) -> Vec<T> {
    let mut x = b.to_vec();
    if left {
        // op(a) · X = B, X and B are m×k: substitute down (or up) each column.
        for c in 0..k {
            let order: Box<dyn Iterator<Item = usize>> = if t_lower {
                Box::new(0..m)
            } else {
                Box::new((0..m).rev())
            };
            for i in order {
                let mut s = x[i * k + c];
                let range = if t_lower { 0..i } else { i + 1..m };
                for j in range {
                    s = s - t[i * m + j] * x[j * k + c];
                }
                x[i * k + c] = s / t[i * m + i];
            }
        }
    } else {
        // X · op(a) = B, X and B are k×m: row r solves x · T = b, i.e. Tᵀ xᵀ = bᵀ, whose triangle is
        // the opposite one.
        for r in 0..k {
            let order: Box<dyn Iterator<Item = usize>> = if t_lower {
                Box::new((0..m).rev())
            } else {
                Box::new(0..m)
            };
            for i in order {
                let mut s = x[r * m + i];
                let range = if t_lower { i + 1..m } else { 0..i };
                for j in range {
                    s = s - x[r * m + j] * t[j * m + i];
                }
                x[r * m + i] = s / t[i * m + i];
            }
        }
    }
    x
}

/// The unblocked solve of one system with a dense triangular `t` (the naive twin of
/// [`solve_f64`]).
pub fn solve_unblocked_f64(
    t: &[f64],
    m: usize,
    t_lower: bool,
    b: &[f64],
    k: usize,
    left: bool,
) -> Vec<f64> {
    solve_one(t, m, t_lower, b, k, left)
}

/// The blocked solve (block size `nb`) of `t · X = B` (`left`) or `X · t = B`.
pub fn solve_f64(
    t: &[f64],
    m: usize,
    t_lower: bool,
    b: &[f64],
    k: usize,
    left: bool,
    nb: usize,
) -> Vec<f64> {
    if left {
        let mut x = b.to_vec();
        factor::solve_left_blocked(t, m, t_lower, &mut x, k, nb);
        x
    } else {
        factor::solve_right_blocked(t, m, t_lower, b, k, nb)
    }
}

/// One system's solver: `(t, m, t_lower, b, k, left) -> x`.
type Solver<T> = fn(&[T], usize, bool, &[T], usize, bool) -> Vec<T>;

fn solve_real(t: &[f64], m: usize, t_lower: bool, b: &[f64], k: usize, left: bool) -> Vec<f64> {
    if m >= MIN_BLOCKED {
        solve_f64(t, m, t_lower, b, k, left, BLOCK)
    } else {
        solve_one(t, m, t_lower, b, k, left)
    }
}

fn trsm<T: Field>(
    a: &[T],
    b: &[T],
    batch: usize,
    m: usize,
    k: usize,
    opts: (bool, bool, bool, Transpose),
    solve: Solver<T>,
) -> Vec<T> {
    let (left, lower, unit, tr) = opts;
    let mut out = Vec::with_capacity(b.len());
    for bi in 0..batch {
        let am = &a[bi * m * m..(bi + 1) * m * m];
        // Dense op(triangle(a)) with the unit diagonal substituted when asked.
        let mut t = vec![T::zero(); m * m];
        for i in 0..m {
            for j in 0..m {
                let inside = if lower { j <= i } else { j >= i };
                if !inside {
                    continue;
                }
                let v = if i == j && unit {
                    T::one()
                } else {
                    am[i * m + j]
                };
                match tr {
                    Transpose::No => t[i * m + j] = v,
                    Transpose::Yes => t[j * m + i] = v,
                    Transpose::Adjoint => t[j * m + i] = v.conj(),
                }
            }
        }
        let t_lower = lower == (tr == Transpose::No);
        out.extend(solve(
            &t,
            m,
            t_lower,
            &b[bi * m * k..(bi + 1) * m * k],
            k,
            left,
        ));
    }
    out
}

pub fn triangular_solve(attrs: &TriangularSolveAttrs, a: &Array, b: &Array) -> Result<Literal> {
    let (left, lower, unit) = (attrs.left_side, attrs.lower, attrs.unit_diagonal);
    let tr = match attrs.transpose_a {
        Some(TransposeA::Transpose) => Transpose::Yes,
        Some(TransposeA::Adjoint) => Transpose::Adjoint,
        Some(TransposeA::NoTranspose) | None => Transpose::No,
    };
    let (batch, m, _) = batches(a)?;
    let (_, br, bc) = batches(b)?;
    let k = if left { bc } else { br };
    let opts = (left, lower, unit, tr);
    let data = if a.ty().is_complex() {
        from_c128(
            b.ty(),
            trsm(&to_c128(a)?, &to_c128(b)?, batch, m, k, opts, solve_one),
        )?
    } else {
        from_f64(
            b.ty(),
            trsm(&to_f64(a)?, &to_f64(b)?, batch, m, k, opts, solve_real),
        )?
    };
    Ok(Literal::Array(Array::from_data(b.shape.clone(), data)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_of_a_small_spd_matrix() {
        let a = [4.0, 12.0, -16.0, 12.0, 37.0, -43.0, -16.0, -43.0, 98.0];
        let l = cholesky_one(&a, 3, true);
        assert_eq!(l, vec![2.0, 0.0, 0.0, 6.0, 1.0, 0.0, -8.0, 5.0, 3.0]);
        let u = cholesky_one(&a, 3, false);
        assert_eq!(u, vec![2.0, 6.0, -8.0, 0.0, 1.0, 5.0, 0.0, 0.0, 3.0]);
        assert!(
            cholesky_one(&[1.0, 0.0, 0.0, -1.0], 2, true)
                .iter()
                .all(|x| x.is_nan())
        );
        let semi = cholesky_one(&[1.0, 1.0, 1.0, 1.0], 2, true);
        assert_eq!(&semi[..3], &[1.0, 0.0, 1.0]);
        assert!(semi[3].is_nan());
    }

    #[test]
    fn triangular_solve_all_forms_reconstruct_b() {
        let a = [2.0, 0.0, 3.0, 4.0]; // lower [[2,0],[3,4]]
        let b = [2.0, 4.0, 11.0, 14.0];
        for &left in &[true, false] {
            for &tr in &[Transpose::No, Transpose::Yes] {
                let x = trsm(&a, &b, 1, 2, 2, (left, true, false, tr), solve_one);
                let t: [f64; 4] = if tr == Transpose::No {
                    a
                } else {
                    [2.0, 3.0, 0.0, 4.0]
                };
                let prod = |p: &[f64], q: &[f64]| {
                    vec![
                        p[0] * q[0] + p[1] * q[2],
                        p[0] * q[1] + p[1] * q[3],
                        p[2] * q[0] + p[3] * q[2],
                        p[2] * q[1] + p[3] * q[3],
                    ]
                };
                let back = if left { prod(&t, &x) } else { prod(&x, &t) };
                for (g, w) in back.iter().zip(&b) {
                    assert!((g - w).abs() < 1e-12, "left={left}: {back:?}");
                }
            }
        }
    }
}
