//! Properties of the numerics ops, each checked end to end through HLO text against an
//! independent formula written here:
//! - `cholesky_reconstructs`: L·Lᴴ (or Uᴴ·U) equals the symmetric positive definite input, and
//!   the other triangle holds zeros;
//! - `triangular_solve_satisfies_system`: op(a)·x = b (or x·op(a) = b) for every combination of
//!   left_side, lower, unit_diagonal and transpose_a, real and complex;
//! - `fft_matches_naive_dft` / `fft_ifft_identity` / `parseval`: the FFT of any length agrees with a
//!   direct O(n²) DFT, IFFT undoes it, and energy is preserved up to the factor n;
//! - `rfft_irfft_round_trip`: IRFFT(RFFT(x)) = x for real x of any length;
//! - `batch_norm_inference_equals_training`: inference with the batch statistics reproduces
//!   training's output;
//! - `rng_uniform_ks` / `rng_normal_moments`: large samples pass a Kolmogorov–Smirnov test and
//!   moment checks;
//! - `philox_word_layout`: a u64 output is the pairs of the u32 output from the same state;
//! - `blocked_cholesky_equals_unblocked` / `blocked_solve_equals_unblocked`: the blocked forms over
//!   the GEMM (`kernels::factor`) agree with their unblocked twins within a backward-error bound.

use super::seeded::{Rng, seeded_trial};
use libtest_mimic::{Failed, Trial};
use xla_spec::eval::{RunOptions, run};
use xla_spec::literal::{Array, ArrayData, C128, Literal};
use xla_spec::verify::parse_and_verify;

pub fn trials() -> Vec<Trial> {
    vec![
        trial("cholesky_reconstructs", 60, cholesky_reconstructs),
        trial(
            "triangular_solve_satisfies_system",
            60,
            triangular_solve_satisfies_system,
        ),
        trial("fft_matches_naive_dft", 60, fft_matches_naive_dft),
        trial("fft_ifft_identity", 60, fft_ifft_identity),
        trial("parseval", 60, parseval),
        trial("rfft_irfft_round_trip", 60, rfft_irfft_round_trip),
        trial(
            "batch_norm_inference_equals_training",
            60,
            batch_norm_inference_equals_training,
        ),
        trial("philox_word_layout", 60, philox_word_layout),
        trial(
            "blocked_cholesky_equals_unblocked",
            40,
            blocked_cholesky_equals_unblocked,
        ),
        trial(
            "blocked_solve_equals_unblocked",
            40,
            blocked_solve_equals_unblocked,
        ),
        Trial::test("prop::numerics::rng_uniform_ks", || {
            rng_uniform_ks().map_err(Failed::from)
        }),
        Trial::test("prop::numerics::rng_normal_moments", || {
            rng_normal_moments().map_err(Failed::from)
        }),
    ]
}

fn trial(name: &str, cases: u32, f: fn(u64) -> Result<(), String>) -> Trial {
    seeded_trial("numerics", name, cases, f)
}

fn run1(text: &str, args: Vec<Literal>) -> Result<Literal, String> {
    let m = parse_and_verify(text).map_err(|e| format!("{e}\n{text}"))?;
    run(&m, args, &RunOptions::default())
        .map(|o| o.result)
        .map_err(|e| e.to_string())
}

fn f64s(l: &Literal) -> Result<Vec<f64>, String> {
    match l.as_array().map(|a| &a.data) {
        Some(ArrayData::F64(v)) => Ok(v.to_vec()),
        _ => Err(format!("expected an f64 array, got {}", l.shape())),
    }
}

fn c128s(l: &Literal) -> Result<Vec<C128>, String> {
    match l.as_array().map(|a| &a.data) {
        Some(ArrayData::C128(v)) => Ok(v.to_vec()),
        Some(ArrayData::F64(v)) => Ok(v.iter().map(|&x| C128::new(x, 0.0)).collect()),
        _ => Err(format!("expected a c128 array, got {}", l.shape())),
    }
}

fn c128_lit(dims: Vec<i64>, v: Vec<C128>) -> Literal {
    Literal::Array(Array::from_vec(dims, v).expect("sizes agree"))
}

fn close(got: C128, want: C128, tol: f64) -> bool {
    (got - want).norm() <= tol
}

/// A random Hermitian positive definite n×n matrix M·Mᴴ + n·I.
fn hpd(r: &mut Rng, n: usize, complex: bool) -> Vec<C128> {
    let m: Vec<C128> = (0..n * n)
        .map(|_| C128::new(r.sym(), if complex { r.sym() } else { 0.0 }))
        .collect();
    let mut a = vec![C128::new(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = C128::new(0.0, 0.0);
            for k in 0..n {
                s += m[i * n + k] * m[j * n + k].conj();
            }
            a[i * n + j] = s + if i == j {
                C128::new(n as f64, 0.0)
            } else {
                C128::new(0.0, 0.0)
            };
        }
    }
    a
}

fn cholesky_reconstructs(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let n = 1 + r.below(7);
    let complex = r.below(2) == 0;
    let lower = r.below(2) == 0;
    let a = hpd(&mut r, n, complex);
    let ty = if complex { "c128" } else { "f64" };
    let text = format!(
        "HloModule m\nENTRY e {{\n a = {ty}[{n},{n}] parameter(0)\n ROOT l = {ty}[{n},{n}] cholesky(a), lower={lower}\n}}\n"
    );
    let arg = if complex {
        c128_lit(vec![n as i64, n as i64], a.clone())
    } else {
        Literal::vec(vec![n as i64, n as i64], a.iter().map(|c| c.re).collect())
            .map_err(|e| e.to_string())?
    };
    let f = c128s(&run1(&text, vec![arg])?)?;
    for i in 0..n {
        for j in 0..n {
            let other = if lower { j > i } else { j < i };
            if other && f[i * n + j] != C128::new(0.0, 0.0) {
                return Err(format!(
                    "the other triangle holds {} at ({i},{j})",
                    f[i * n + j]
                ));
            }
            // lower: (L·Lᴴ)ij = Σ L[i][k]·conj(L[j][k]); upper: (Uᴴ·U)ij = Σ conj(U[k][i])·U[k][j].
            let mut s = C128::new(0.0, 0.0);
            for k in 0..n {
                s += if lower {
                    f[i * n + k] * f[j * n + k].conj()
                } else {
                    f[k * n + i].conj() * f[k * n + j]
                };
            }
            if !close(s, a[i * n + j], 1e-10 * n as f64 * n as f64) {
                return Err(format!(
                    "n={n} lower={lower}: reconstruction {s} vs {} at ({i},{j})",
                    a[i * n + j]
                ));
            }
        }
    }
    Ok(())
}

fn triangular_solve_satisfies_system(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let m = 1 + r.below(6);
    let k = 1 + r.below(4);
    let left = r.below(2) == 0;
    let lower = r.below(2) == 0;
    let unit = r.below(2) == 0;
    let complex = r.below(2) == 0;
    let tr = ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"][r.below(3)];
    // Diagonal magnitudes in [1, 2] keep the system well conditioned.
    let a: Vec<C128> = (0..m * m)
        .map(|idx| {
            let (i, j) = (idx / m, idx % m);
            let im = if complex { r.sym() } else { 0.0 };
            if i == j {
                C128::new(1.0 + r.unit(), im * 0.5)
            } else {
                C128::new(r.sym(), im)
            }
        })
        .collect();
    let (br, bc) = if left { (m, k) } else { (k, m) };
    let b: Vec<C128> = (0..br * bc)
        .map(|_| C128::new(r.sym(), if complex { r.sym() } else { 0.0 }))
        .collect();
    let ty = if complex { "c128" } else { "f64" };
    let text = format!(
        "HloModule m\nENTRY e {{\n a = {ty}[{m},{m}] parameter(0)\n b = {ty}[{br},{bc}] parameter(1)\n ROOT x = {ty}[{br},{bc}] triangular-solve(a, b), left_side={left}, lower={lower}, unit_diagonal={unit}, transpose_a={tr}\n}}\n"
    );
    let lit = |dims: Vec<i64>, v: &[C128]| -> Result<Literal, String> {
        if complex {
            Ok(c128_lit(dims, v.to_vec()))
        } else {
            Literal::vec(dims, v.iter().map(|c| c.re).collect()).map_err(|e| e.to_string())
        }
    };
    let x = c128s(&run1(
        &text,
        vec![
            lit(vec![m as i64, m as i64], &a)?,
            lit(vec![br as i64, bc as i64], &b)?,
        ],
    )?)?;
    // op(triangle(a)) built independently of the implementation.
    let mut t = vec![C128::new(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            if (lower && j <= i) || (!lower && j >= i) {
                let v = if i == j && unit {
                    C128::new(1.0, 0.0)
                } else {
                    a[i * m + j]
                };
                match tr {
                    "NO_TRANSPOSE" => t[i * m + j] = v,
                    "TRANSPOSE" => t[j * m + i] = v,
                    _ => t[j * m + i] = v.conj(),
                }
            }
        }
    }
    for i in 0..br {
        for j in 0..bc {
            let mut s = C128::new(0.0, 0.0);
            if left {
                for q in 0..m {
                    s += t[i * m + q] * x[q * bc + j];
                }
            } else {
                for q in 0..m {
                    s += x[i * bc + q] * t[q * m + j];
                }
            }
            if !close(s, b[i * bc + j], 1e-9) {
                return Err(format!(
                    "left={left} lower={lower} unit={unit} {tr}: got {s}, want {}",
                    b[i * bc + j]
                ));
            }
        }
    }
    Ok(())
}

fn naive_dft(x: &[C128], inverse: bool) -> Vec<C128> {
    let n = x.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            let mut s = C128::new(0.0, 0.0);
            for (t, v) in x.iter().enumerate() {
                let ang = sign * 2.0 * std::f64::consts::PI * ((t * k) % n) as f64 / n as f64;
                s += v * C128::new(ang.cos(), ang.sin());
            }
            if inverse { s / n as f64 } else { s }
        })
        .collect()
}

fn random_signal(r: &mut Rng, n: usize) -> Vec<C128> {
    (0..n).map(|_| C128::new(r.sym(), r.sym())).collect()
}

fn fft_module(
    kind: &str,
    ty_in: &str,
    ty_out: &str,
    dims_in: &str,
    dims_out: &str,
    len: &str,
) -> String {
    format!(
        "HloModule m\nENTRY e {{\n x = {ty_in}[{dims_in}] parameter(0)\n ROOT y = {ty_out}[{dims_out}] fft(x), fft_type={kind}, fft_length={{{len}}}\n}}\n"
    )
}

fn fft_matches_naive_dft(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let n = 1 + r.below(70);
    let x = random_signal(&mut r, n);
    let inverse = r.below(2) == 0;
    let kind = if inverse { "IFFT" } else { "FFT" };
    let text = fft_module(
        kind,
        "c128",
        "c128",
        &n.to_string(),
        &n.to_string(),
        &n.to_string(),
    );
    let got = c128s(&run1(&text, vec![c128_lit(vec![n as i64], x.clone())])?)?;
    let want = naive_dft(&x, inverse);
    let norm: f64 = want
        .iter()
        .map(|v| v.norm_sqr())
        .sum::<f64>()
        .sqrt()
        .max(1.0);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if !close(*g, *w, 1e-12 * norm * (n as f64).log2().max(1.0)) {
            return Err(format!("{kind} n={n}: X[{k}] = {g}, naive {w}"));
        }
    }
    Ok(())
}

fn fft_ifft_identity(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let rank = 1 + r.below(3);
    let dims: Vec<usize> = (0..rank).map(|_| 1 + r.below(9)).collect();
    let total: usize = dims.iter().product();
    let x = random_signal(&mut r, total);
    let d = dims
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let text = format!(
        "HloModule m\nENTRY e {{\n x = c128[{d}] parameter(0)\n f = c128[{d}] fft(x), fft_type=FFT, fft_length={{{d}}}\n ROOT y = c128[{d}] fft(f), fft_type=IFFT, fft_length={{{d}}}\n}}\n"
    );
    let got = c128s(&run1(
        &text,
        vec![c128_lit(
            dims.iter().map(|&v| v as i64).collect(),
            x.clone(),
        )],
    )?)?;
    for (g, w) in got.iter().zip(&x) {
        if !close(*g, *w, 1e-12 * total as f64) {
            return Err(format!("dims {dims:?}: {g} vs {w}"));
        }
    }
    Ok(())
}

fn parseval(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let n = 1 + r.below(100);
    let x = random_signal(&mut r, n);
    let text = fft_module(
        "FFT",
        "c128",
        "c128",
        &n.to_string(),
        &n.to_string(),
        &n.to_string(),
    );
    let f = c128s(&run1(&text, vec![c128_lit(vec![n as i64], x.clone())])?)?;
    let ex: f64 = x.iter().map(|v| v.norm_sqr()).sum();
    let ef: f64 = f.iter().map(|v| v.norm_sqr()).sum::<f64>() / n as f64;
    if (ex - ef).abs() > 1e-11 * ex.max(1.0) {
        return Err(format!("n={n}: Σ|x|² = {ex}, Σ|X|²/n = {ef}"));
    }
    Ok(())
}

fn rfft_irfft_round_trip(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let n = 1 + r.below(60);
    let rows = 1 + r.below(3);
    let x: Vec<f64> = (0..rows * n).map(|_| r.sym()).collect();
    let h = n / 2 + 1;
    let text = format!(
        "HloModule m\nENTRY e {{\n x = f64[{rows},{n}] parameter(0)\n f = c128[{rows},{h}] fft(x), fft_type=RFFT, fft_length={{{n}}}\n ROOT y = f64[{rows},{n}] fft(f), fft_type=IRFFT, fft_length={{{n}}}\n}}\n"
    );
    let arg = Literal::vec(vec![rows as i64, n as i64], x.clone()).map_err(|e| e.to_string())?;
    let got = f64s(&run1(&text, vec![arg])?)?;
    for (g, w) in got.iter().zip(&x) {
        if (g - w).abs() > 1e-12 * n as f64 {
            return Err(format!("n={n}: {g} vs {w}"));
        }
    }
    Ok(())
}

fn batch_norm_inference_equals_training(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let rank = 1 + r.below(4);
    let dims: Vec<usize> = (0..rank).map(|_| 1 + r.below(4)).collect();
    let fi = r.below(rank);
    let nf = dims[fi];
    let total: usize = dims.iter().product();
    let x: Vec<f64> = (0..total).map(|_| 3.0 * r.sym()).collect();
    let scale: Vec<f64> = (0..nf).map(|_| r.sym()).collect();
    let offset: Vec<f64> = (0..nf).map(|_| r.sym()).collect();
    let d = dims
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let text = format!(
        "HloModule m\nENTRY e {{\n x = f64[{d}] parameter(0)\n s = f64[{nf}] parameter(1)\n o = f64[{nf}] parameter(2)\n t = (f64[{d}], f64[{nf}], f64[{nf}]) batch-norm-training(x, s, o), epsilon=0.001, feature_index={fi}\n y = f64[{d}] get-tuple-element(t), index=0\n mu = f64[{nf}] get-tuple-element(t), index=1\n var = f64[{nf}] get-tuple-element(t), index=2\n i = f64[{d}] batch-norm-inference(x, s, o, mu, var), epsilon=0.001, feature_index={fi}\n ROOT r = (f64[{d}], f64[{d}]) tuple(y, i)\n}}\n"
    );
    let lit = |dims: Vec<i64>, v: Vec<f64>| Literal::vec(dims, v).map_err(|e| e.to_string());
    let out = run1(
        &text,
        vec![
            lit(dims.iter().map(|&v| v as i64).collect(), x)?,
            lit(vec![nf as i64], scale)?,
            lit(vec![nf as i64], offset)?,
        ],
    )?;
    let t = out.as_tuple().ok_or("expected a tuple")?;
    let (a, b) = (f64s(&t[0])?, f64s(&t[1])?);
    for (p, q) in a.iter().zip(&b) {
        if (p - q).abs() > 1e-12 * p.abs().max(1.0) {
            return Err(format!("training {p} vs inference {q}"));
        }
    }
    Ok(())
}

fn philox_word_layout(seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let n = 1 + r.below(20);
    let st = [r.next(), r.next(), r.next()];
    let text = format!(
        "HloModule m\nENTRY e {{\n s = u64[3] parameter(0)\n a = (u64[3], u32[{}]) rng-bit-generator(s), algorithm=rng_philox\n b = (u64[3], u64[{n}]) rng-bit-generator(s), algorithm=rng_philox\n ROOT t = ((u64[3], u32[{}]), (u64[3], u64[{n}])) tuple(a, b)\n}}\n",
        2 * n,
        2 * n
    );
    let out = run1(
        &text,
        vec![Literal::vec(vec![3], st.to_vec()).map_err(|e| e.to_string())?],
    )?;
    let t = out.as_tuple().ok_or("expected a tuple")?;
    let (a, b) = (
        t[0].as_tuple().ok_or("tuple")?,
        t[1].as_tuple().ok_or("tuple")?,
    );
    if a[0] != b[0] {
        return Err(format!("new states differ: {} vs {}", a[0], b[0]));
    }
    let w32 = a[1]
        .as_array()
        .and_then(|x| x.typed::<u32>())
        .ok_or("u32 bits")?;
    let w64 = b[1]
        .as_array()
        .and_then(|x| x.typed::<u64>())
        .ok_or("u64 bits")?;
    for j in 0..n {
        let want = w32[2 * j] as u64 | (w32[2 * j + 1] as u64) << 32;
        if w64[j] != want {
            return Err(format!(
                "element {j}: u64 {:#x} but u32 pair gives {want:#x}",
                w64[j]
            ));
        }
    }
    Ok(())
}

fn sample(dist: &str, ty: &str, a: &str, b: &str, n: usize) -> Result<Vec<f64>, String> {
    let text = format!(
        "HloModule m\nENTRY e {{\n a = {ty}[] constant({a})\n b = {ty}[] constant({b})\n ROOT r = {ty}[{n}] rng(a, b), distribution={dist}\n}}\n"
    );
    let out = run1(&text, vec![])?;
    match out.as_array().map(|x| &x.data) {
        Some(ArrayData::F32(v)) => Ok(v.iter().map(|&x| x as f64).collect()),
        Some(ArrayData::F64(v)) => Ok(v.to_vec()),
        _ => Err("expected floats".into()),
    }
}

fn rng_uniform_ks() -> Result<(), String> {
    let n = 100_000;
    for ty in ["f32", "f64"] {
        let mut v = sample("rng_uniform", ty, "-2", "3", n)?;
        if let Some(bad) = v.iter().find(|&&x| !(-2.0..3.0).contains(&x)) {
            return Err(format!("{ty}: {bad} outside [-2, 3)"));
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let d = v
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let cdf = (x + 2.0) / 5.0;
                (cdf - i as f64 / n as f64)
                    .abs()
                    .max(((i + 1) as f64 / n as f64 - cdf).abs())
            })
            .fold(0.0, f64::max);
        // Critical value at α = 0.001 is 1.95/√n.
        if d > 1.95 / (n as f64).sqrt() {
            return Err(format!("{ty}: Kolmogorov–Smirnov statistic {d} too large"));
        }
    }
    Ok(())
}

fn rng_normal_moments() -> Result<(), String> {
    let n = 100_000;
    let v = sample("rng_normal", "f64", "1.5", "2", n)?;
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    let skew = v
        .iter()
        .map(|x| ((x - mean) / var.sqrt()).powi(3))
        .sum::<f64>()
        / n as f64;
    let kurt = v
        .iter()
        .map(|x| ((x - mean) / var.sqrt()).powi(4))
        .sum::<f64>()
        / n as f64;
    // Bounds of about five standard errors for n = 10^5.
    if (mean - 1.5).abs() > 0.035
        || (var - 4.0).abs() > 0.1
        || skew.abs() > 0.04
        || (kurt - 3.0).abs() > 0.08
    {
        return Err(format!(
            "mean {mean}, variance {var}, skewness {skew}, kurtosis {kurt}"
        ));
    }
    Ok(())
}

/// Largest absolute difference between two vectors, and the largest magnitude in the first.
fn max_diff(a: &[f64], b: &[f64]) -> (f64, f64) {
    let d = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    (d, a.iter().map(|x| x.abs()).fold(0.0, f64::max))
}

/// The blocked Cholesky with a random (small) block size equals the unblocked one. Both are
/// backward stable (‖A − L·Lᵀ‖ ≤ c·n·ε·‖A‖); for these matrices (M·Mᵀ + n·I, condition number below
/// a small constant) the factors then agree to a few n·ε relative to their largest entry.
fn blocked_cholesky_equals_unblocked(seed: u64) -> Result<(), String> {
    use xla_spec::eval::numerics::linalg::{cholesky_f64, cholesky_unblocked_f64};
    let mut r = Rng(seed);
    let n = 1 + r.below(48);
    let nb = 1 + r.below(12);
    let lower = r.below(2) == 0;
    let mut a: Vec<f64> = hpd(&mut r, n, false).iter().map(|z| z.re).collect();
    // Garbage in the triangle neither reads.
    for i in 0..n {
        for j in 0..n {
            if (lower && j > i) || (!lower && j < i) {
                a[i * n + j] = 1e6 * r.sym();
            }
        }
    }
    let want = cholesky_unblocked_f64(&a, n, lower);
    let got = cholesky_f64(&a, n, lower, nb);
    let (d, big) = max_diff(&got, &want);
    let tol = 64.0 * n as f64 * f64::EPSILON * big;
    if d > tol || got.iter().any(|x| x.is_nan()) {
        return Err(format!(
            "n={n} nb={nb} lower={lower}: differ by {d:e} (tolerance {tol:e})"
        ));
    }
    Ok(())
}

/// The blocked triangular solve equals the unblocked substitution, for both sides and triangles;
/// the triangle has a dominant diagonal, so its condition number is small and both solutions agree
/// to a few m·ε relative to their largest entry.
fn blocked_solve_equals_unblocked(seed: u64) -> Result<(), String> {
    use xla_spec::eval::numerics::linalg::{solve_f64, solve_unblocked_f64};
    let mut r = Rng(seed);
    let m = 1 + r.below(40);
    let k = 1 + r.below(9);
    let nb = 1 + r.below(10);
    let (lower, left) = (r.below(2) == 0, r.below(2) == 0);
    let mut t = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            let inside = if lower { j <= i } else { j >= i };
            t[i * m + j] = if i == j {
                m as f64 + 1.0 + r.unit()
            } else if inside {
                r.sym()
            } else {
                1e6 * r.sym()
            };
        }
    }
    let b: Vec<f64> = (0..m * k).map(|_| r.sym()).collect();
    let want = solve_unblocked_f64(&t, m, lower, &b, k, left);
    let got = solve_f64(&t, m, lower, &b, k, left, nb);
    let (d, big) = max_diff(&got, &want);
    let tol = 64.0 * m as f64 * f64::EPSILON * big.max(1.0);
    if d > tol || got.iter().any(|x| x.is_nan()) {
        return Err(format!(
            "m={m} k={k} nb={nb} lower={lower} left={left}: differ by {d:e} (tolerance {tol:e})"
        ));
    }
    Ok(())
}
