//! Blocked Cholesky factorisation and blocked triangular solve over the GEMM, for real matrices in
//! f64 (the precision `eval::numerics::linalg` computes every real type in).
//!
//! Algorithms (Golub & Van Loan, "Matrix Computations", 4th ed., §4.2.9 block Cholesky and §3.1.4
//! block substitution; LAPACK `dpotrf`/`dtrsm` organise the work the same way):
//!
//! ```text
//! cholesky (right-looking, lower):           left solve op(T)·X = B, T lower:
//! for each diagonal block k (size NB)         for each block row i (size NB)
//!   factor A[k,k] unblocked                     X[i] = T[i,i]⁻¹ · X[i]      (substitution)
//!   L[below,k] = A[below,k] · L[k,k]⁻ᵀ          X[below] -= T[below,i] · X[i] (GEMM)
//!   A[below,below] -= L[below,k] · L[below,k]ᵀ  (GEMM, lower block columns only)
//! ```
//!
//! About n³/3 (Cholesky) and m²k (solve) of the flops go through the GEMM; the unblocked parts are
//! O(n²·NB). The unblocked textbook forms in `eval::numerics::linalg` are the naive twins the
//! property tests hold these equal to; both apply XLA's rule for a failed pivot (see there), so a
//! matrix that is not positive definite gives NaN the same way.

use crate::kernels::gemm::{MatRef, MicroKernel, gemm};

/// Block size: a 64×64 f64 block is 32 KiB, which stays in L1/L2 during the unblocked parts.
pub const BLOCK: usize = 64;

/// Smallest order for which the blocked forms are used; below it the unblocked code is as fast.
pub const MIN_BLOCKED: usize = 128;

/// `c = a[rows, cols] · b[rows, cols]` for matrices read through index tables of one buffer each.
fn product(
    a: &[f64],
    a_rows: &[usize],
    a_cols: &[usize],
    b: &[f64],
    b_rows: &[usize],
    b_cols: &[usize],
) -> Vec<f64> {
    let mut c = vec![0.0; a_rows.len() * b_cols.len()];
    let kern = MicroKernel::<f64>::best();
    let ma = MatRef {
        data: a,
        base: 0,
        rows: a_rows,
        cols: a_cols,
    };
    let mb = MatRef {
        data: b,
        base: 0,
        rows: b_rows,
        cols: b_cols,
    };
    gemm(&kern, ma, mb, |x| x, |x| x, &mut c);
    c
}

/// Factors the n×n row-major matrix whose lower triangle `w` holds, in place, into its lower
/// Cholesky factor (the strict upper triangle is left as it was). Returns whether a pivot was
/// negative or NaN (the caller then makes the whole result NaN, as XLA does); a zero pivot gives
/// NaN on the diagonal, which spreads to everything computed from it.
pub fn cholesky_lower_blocked(w: &mut [f64], n: usize, nb: usize) -> bool {
    let nb = nb.max(1);
    let mut failed = false;
    for k0 in (0..n).step_by(nb) {
        let k1 = (k0 + nb).min(n);
        // Diagonal block, unblocked (earlier blocks' updates are already subtracted).
        for j in k0..k1 {
            let mut d = w[j * n + j];
            for p in k0..j {
                d -= w[j * n + p] * w[j * n + p];
            }
            failed |= d.is_nan() || d < 0.0;
            let djj = if d == 0.0 { f64::NAN } else { d.sqrt() };
            w[j * n + j] = djj;
            for i in j + 1..k1 {
                let mut s = w[i * n + j];
                for p in k0..j {
                    s -= w[i * n + p] * w[j * n + p];
                }
                w[i * n + j] = s / djj;
            }
        }
        // Panel: each row below solves x · L11ᵀ = a by forward substitution.
        for i in k1..n {
            for j in k0..k1 {
                let mut s = w[i * n + j];
                for p in k0..j {
                    s -= w[i * n + p] * w[j * n + p];
                }
                w[i * n + j] = s / w[j * n + j];
            }
        }
        // Trailing update of the lower triangle, one block column at a time (the upper part of
        // the trailing matrix is never needed, which halves the GEMM work).
        let panel_cols: Vec<usize> = (k0..k1).collect();
        for j0 in (k1..n).step_by(nb) {
            let j1 = (j0 + nb).min(n);
            let a_rows: Vec<usize> = (j0..n).map(|i| i * n).collect();
            // Lᵀ read in place: element (p, j) of the right factor is w[j·n + k0 + p].
            let b_cols: Vec<usize> = (j0..j1).map(|j| j * n).collect();
            let c = product(&*w, &a_rows, &panel_cols, &*w, &panel_cols, &b_cols);
            let jb = j1 - j0;
            for (ii, i) in (j0..n).enumerate() {
                for (x, d) in w[i * n + j0..i * n + j1]
                    .iter_mut()
                    .zip(&c[ii * jb..(ii + 1) * jb])
                {
                    *x -= d;
                }
            }
        }
    }
    failed
}

/// Solves `t · X = B` in place (`x` holds B, m×k row-major) for a dense m×m triangular `t`
/// (lower or upper; the other triangle is not read).
pub fn solve_left_blocked(t: &[f64], m: usize, lower: bool, x: &mut [f64], k: usize, nb: usize) {
    let nb = nb.max(1);
    let starts: Vec<usize> = (0..m).step_by(nb).collect();
    // Lower: blocks top to bottom, updating the rows below; upper: bottom to top, rows above.
    let order: Vec<usize> = if lower {
        starts
    } else {
        starts.into_iter().rev().collect()
    };
    let cols: Vec<usize> = (0..k).collect();
    for i0 in order {
        let i1 = (i0 + nb).min(m);
        // Diagonal block by substitution, row operations on contiguous rows of X.
        let rows: Box<dyn Iterator<Item = usize>> = if lower {
            Box::new(i0..i1)
        } else {
            Box::new((i0..i1).rev())
        };
        for i in rows {
            let (js, je) = if lower { (i0, i) } else { (i + 1, i1) };
            for j in js..je {
                let f = t[i * m + j];
                let (xi, xj) = two_rows(x, k, i, j);
                for (a, b) in xi.iter_mut().zip(xj) {
                    *a -= f * b;
                }
            }
            let d = t[i * m + i];
            for a in &mut x[i * k..(i + 1) * k] {
                *a /= d;
            }
        }
        // The rows not yet solved lose this block's contribution.
        let rest: Vec<usize> = if lower {
            (i1..m).collect()
        } else {
            (0..i0).collect()
        };
        if rest.is_empty() || k == 0 {
            continue;
        }
        let a_rows: Vec<usize> = rest.iter().map(|&r| r * m).collect();
        let a_cols: Vec<usize> = (i0..i1).collect();
        let b_rows: Vec<usize> = (i0..i1).map(|r| r * k).collect();
        let c = product(t, &a_rows, &a_cols, &*x, &b_rows, &cols);
        for (ri, &r) in rest.iter().enumerate() {
            for (a, d) in x[r * k..(r + 1) * k]
                .iter_mut()
                .zip(&c[ri * k..(ri + 1) * k])
            {
                *a -= d;
            }
        }
    }
}

/// Row `i` mutably and row `j ≠ i` immutably of a row-major matrix with `k` columns.
fn two_rows(x: &mut [f64], k: usize, i: usize, j: usize) -> (&mut [f64], &[f64]) {
    if i < j {
        let (a, b) = x.split_at_mut(j * k);
        (&mut a[i * k..(i + 1) * k], &b[..k])
    } else {
        let (a, b) = x.split_at_mut(i * k);
        (&mut b[..k], &a[j * k..(j + 1) * k])
    }
}

/// Solves `X · t = B` (`b` k×m row-major) through the left solve of the transposed system
/// `tᵀ · Xᵀ = Bᵀ`, whose triangle is the opposite one.
pub fn solve_right_blocked(
    t: &[f64],
    m: usize,
    lower: bool,
    b: &[f64],
    k: usize,
    nb: usize,
) -> Vec<f64> {
    let tt = transpose(t, m, m);
    let mut xt = transpose(b, k, m);
    solve_left_blocked(&tt, m, !lower, &mut xt, k, nb);
    transpose(&xt, m, k)
}

fn transpose(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; a.len()];
    for i in 0..rows {
        for j in 0..cols {
            out[j * rows + i] = a[i * cols + j];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_cholesky_of_a_small_spd_matrix() {
        let mut a = vec![4.0, 0.0, 0.0, 12.0, 37.0, 0.0, -16.0, -43.0, 98.0];
        assert!(!cholesky_lower_blocked(&mut a, 3, 2));
        assert_eq!(a, vec![2.0, 0.0, 0.0, 6.0, 1.0, 0.0, -8.0, 5.0, 3.0]);
    }

    #[test]
    fn blocked_solves_reconstruct_b() {
        // t = [[2,0,0],[1,3,0],[4,5,6]] (lower); upper is its transpose.
        let t = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, 4.0, 5.0, 6.0];
        let b = [2.0, 4.0, 7.0, 11.0, 38.0, 51.0];
        let mut x = b.to_vec();
        solve_left_blocked(&t, 3, true, &mut x, 2, 1);
        let mut back = [0.0; 6];
        for i in 0..3 {
            for c in 0..2 {
                back[i * 2 + c] = (0..3).map(|j| t[i * 3 + j] * x[j * 2 + c]).sum();
            }
        }
        for (g, w) in back.iter().zip(&b) {
            assert!((g - w).abs() < 1e-12, "{back:?}");
        }
        let bt = [2.0, 11.0, 4.0, 38.0, 7.0, 51.0];
        let xr = solve_right_blocked(&t, 3, true, &bt, 2, 2);
        for r in 0..2 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|i| xr[r * 3 + i] * t[i * 3 + j]).sum();
                assert!((v - bt[r * 3 + j]).abs() < 1e-12);
            }
        }
    }
}
