use super::*;

/// Deterministic pseudo-random values in [−1, 1) (splitmix64).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn complex(&mut self, n: usize) -> Vec<C128> {
        (0..n)
            .map(|_| C128::new(self.unit(), self.unit()))
            .collect()
    }
}

/// Σ x[t]·e^(∓2πi·tk/n) for one k, straight from the definition: the angle 2π·j/n of the
/// exact j = tk mod n through the standard library's `sin_cos` (a table of them per length,
/// shared by the bins), and compensated (Neumaier) sums, so its own error stays at a few
/// ε·‖x‖ and the comparison measures the fast transform's.
fn exact_bin(x: &[C128], k: usize, inverse: bool) -> C128 {
    thread_local! {
        static TABLE: std::cell::RefCell<(usize, Vec<(f64, f64)>)> =
            const { std::cell::RefCell::new((0, Vec::new())) };
    }
    let n = x.len();
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        if t.0 != n {
            *t = (
                n,
                (0..n)
                    .map(|j| (2.0 * PI * j as f64 / n as f64).sin_cos())
                    .collect(),
            );
        }
        let sign = if inverse { 1.0 } else { -1.0 };
        let (mut sr, mut cr, mut si, mut ci) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let add = |s: &mut f64, c: &mut f64, v: f64| {
            let u = *s + v;
            *c += if s.abs() >= v.abs() {
                (*s - u) + v
            } else {
                (v - u) + *s
            };
            *s = u;
        };
        for (i, v) in x.iter().enumerate() {
            let (sn, cs) = t.1[(i as u128 * k as u128 % n as u128) as usize];
            let sn = sign * sn;
            add(&mut sr, &mut cr, v.re * cs);
            add(&mut sr, &mut cr, -(v.im * sn));
            add(&mut si, &mut ci, v.re * sn);
            add(&mut si, &mut ci, v.im * cs);
        }
        C128::new(sr + cr, si + ci)
    })
}

fn norm(x: &[C128]) -> f64 {
    x.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt()
}

/// The bound every fast path is held to: c·ε·log2(n)·‖x‖₂ per output element, with c = 4.
/// (Higham's bound on the whole output vector is about log2(n)·(μ + 4√2·ε)·‖X‖₂, μ the
/// twiddles' error; one element of a random signal's transform sees far less, about
/// ε·√log2(n)·‖x‖₂. Measured on these tests, error/(ε·log2(n)·‖x‖₂) stays below 0.9 for
/// every power of two and reaches 1.9 only at n = 3, through Bluestein's inner transforms
/// of length 8; a twiddle from a recurrence, off by one index or with a wrong sign is
/// orders of magnitude past the bound.)
fn bound(n: usize, x: &[C128]) -> f64 {
    4.0 * f64::EPSILON * (n.max(2) as f64).log2() * norm(x)
}

/// The frequencies checked for a length: all of them up to 1024, else the edges and a
/// spread of others.
fn bins(n: usize) -> Vec<usize> {
    if n <= 1024 {
        return (0..n).collect();
    }
    let mut r = Rng(n as u64);
    let mut b: Vec<usize> = vec![0, 1, 2, n / 4, n / 2 - 1, n / 2, n / 2 + 1, n - 1];
    b.extend((0..40).map(|_| ((r.unit() + 1.0) / 2.0 * n as f64) as usize % n));
    b
}

/// Transforms `lines` lines of length n laid out as `[lines][n]` with `isa` and checks each
/// against the exact DFT.
fn check_lines(n: usize, lines: usize, inverse: bool, isa: Isa) {
    let mut rng = Rng(n as u64 * 31 + lines as u64);
    let x = rng.complex(n * lines);
    let mut y = x.clone();
    let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
    transform_axis(&mut y, &[lines, n], 1, inverse, scale, isa);
    let mut checked = vec![0, lines / 2, lines - 1];
    checked.dedup();
    for l in checked {
        let (xl, yl) = (&x[l * n..(l + 1) * n], &y[l * n..(l + 1) * n]);
        let tol = bound(n, xl) * scale;
        for k in bins(n) {
            let want = exact_bin(xl, k, inverse) * scale;
            let err = (yl[k] - want).norm();
            assert!(
                err <= tol,
                "n={n} lines={lines} inverse={inverse} {isa:?} line {l} bin {k}: {} vs {want}, error {err:e} > {tol:e}",
                yl[k]
            );
        }
    }
}

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

#[test]
fn root_is_exact_on_the_axes_and_within_a_few_ulp_elsewhere() {
    for n in [8usize, 12, 1 << 10, 1 << 20, 3 * 5 * 7 * 64] {
        assert_eq!(root(0, n), C128::new(1.0, -0.0));
        if n % 4 == 0 {
            assert_eq!(root(n / 4, n).im, -1.0);
            assert_eq!(root(n / 4, n).re.abs(), 0.0);
            assert_eq!(root(n / 2, n).re, -1.0);
            assert_eq!(root(n / 2, n).im.abs(), 0.0);
            assert_eq!(root(3 * n / 4, n).im, 1.0);
        }
        let mut r = Rng(n as u64);
        for _ in 0..200 {
            let k = ((r.unit() + 1.0) / 2.0 * n as f64) as usize % n;
            // Reference: the angle in [0, π/4] by the same identities would be circular;
            // compare with the unreduced formula, itself good to about ε·2π.
            let (s, c) = (2.0 * PI * k as f64 / n as f64).sin_cos();
            let w = root(k, n);
            assert!((w.re - c).abs() < 8.0 * f64::EPSILON, "n={n} k={k}");
            assert!((w.im + s).abs() < 8.0 * f64::EPSILON, "n={n} k={k}");
            assert!((w.norm() - 1.0).abs() < 4.0 * f64::EPSILON);
        }
    }
}

#[test]
fn two_level_roots_match_root() {
    for n in [2usize, 3, 64, 1000, 1 << 19, (1 << 20) + 7] {
        let roots = Roots::new(n);
        let mut r = Rng(n as u64);
        for i in 0..500 {
            let e = if i < 8 {
                i.min(n - 1)
            } else {
                ((r.unit() + 1.0) / 2.0 * n as f64) as usize % n
            };
            assert!(
                (roots.get(e) - root(e, n)).norm() < 4.0 * f64::EPSILON,
                "n={n} e={e}"
            );
        }
    }
}

/// The direct kernel (8 lines in a block, and a partial block) and the four-step path (one
/// line of 64 or more), for every power of two up to 2^16, both directions.
#[test]
fn powers_of_two_match_the_exact_dft() {
    for b in 0..=16 {
        let n = 1usize << b;
        check_lines(n, 1, false, Isa::best());
        check_lines(n, 1, true, Isa::best());
        if n <= DIRECT_MAX {
            check_lines(n, 11, false, Isa::best());
            check_lines(n, 8, true, Isa::best());
        }
    }
}

/// One line of 2^20 (four-step, 1024 × 1024) and 2^21 (sub-transforms of 2048, past the
/// direct length).
#[test]
fn long_lines_match_the_exact_dft() {
    check_lines(1 << 20, 1, false, Isa::best());
    check_lines(1 << 21, 1, true, Isa::best());
}

/// Many lines of long powers of two run in parallel over lines.
#[test]
fn many_long_lines_match_the_exact_dft() {
    check_lines(1 << 12, 9, false, Isa::best());
    check_lines(1 << 14, 5, true, Isa::best());
}

/// Bluestein: in blocks (inner length up to DIRECT_MAX) and one line at a time (longer),
/// one line and many.
#[test]
fn other_lengths_match_the_exact_dft() {
    for n in [
        3usize,
        5,
        6,
        7,
        12,
        100,
        127,
        500,
        511,
        513,
        641,
        1000,
        3 * 1024 + 1,
    ] {
        check_lines(n, 1, false, Isa::best());
        check_lines(n, 1, true, Isa::best());
    }
    for (n, lines) in [(5, 1003), (100, 17), (513, 9), (1000, 6)] {
        check_lines(n, lines, false, Isa::best());
        check_lines(n, lines, true, Isa::best());
    }
}

/// Lines along every axis of a 3-D array (strided, several lines per block from different
/// outer indices, partial blocks) against the exact DFT of each line.
#[test]
fn lines_along_every_axis_match_the_exact_dft() {
    for dims in [
        [5usize, 6, 8],
        [3, 64, 9],
        [2, 3, 1024],
        [1003, 2, 8],
        [7, 1, 3],
    ] {
        let total: usize = dims.iter().product();
        let x = Rng(total as u64).complex(total);
        for axis in 0..3 {
            for inverse in [false, true] {
                let mut y = x.clone();
                complex_axis(&mut y, &dims, axis, inverse, Isa::best());
                let n = dims[axis];
                let inner: usize = dims[axis + 1..].iter().product();
                let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
                for base in (0..total).filter(|b| (b / inner).is_multiple_of(n)) {
                    let line: Vec<C128> = (0..n).map(|t| x[base + t * inner]).collect();
                    let tol = bound(n, &line) * scale;
                    for k in 0..n {
                        let want = exact_bin(&line, k, inverse) * scale;
                        let got = y[base + k * inner];
                        assert!(
                            (got - want).norm() <= tol,
                            "{dims:?} axis {axis} inverse={inverse} line at {base} bin {k}: {got} vs {want}"
                        );
                    }
                }
            }
        }
    }
}

/// The vectorised instances compute the same operations in the same order as the portable
/// one (no fused multiply-add), so the results agree bit for bit on every path.
#[test]
fn every_instruction_set_gives_the_same_bits() {
    let isas: Vec<Isa> = [Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|i| i.available())
        .collect();
    for (n, lines) in [
        (8usize, 13),
        (1024, 8),
        (1 << 12, 1),
        (100, 9),
        (1000, 1),
        (6, 1),
    ] {
        let x = Rng(n as u64).complex(n * lines);
        for inverse in [false, true] {
            let mut want = x.clone();
            transform_axis(&mut want, &[lines, n], 1, inverse, 0.5, Isa::Portable);
            for &isa in &isas {
                let mut got = x.clone();
                transform_axis(&mut got, &[lines, n], 1, inverse, 0.5, isa);
                let same = got.iter().zip(&want).all(|(g, w)| {
                    g.re.to_bits() == w.re.to_bits() && g.im.to_bits() == w.im.to_bits()
                });
                assert!(same, "n={n} lines={lines} inverse={inverse} {isa:?}");
            }
        }
    }
    // The real transforms' split and merge steps, vectorised where 8 roots share their
    // high factor (n ≥ 64 here) and one frequency at a time elsewhere.
    let bits = |v: &[C128]| -> Vec<(u64, u64)> {
        v.iter().map(|c| (c.re.to_bits(), c.im.to_bits())).collect()
    };
    for (n, lines) in [(10usize, 3), (64, 2), (1000, 3), (1 << 12, 1), (2 * 641, 1)] {
        let mut r = Rng(n as u64);
        let x: Vec<f64> = (0..n * lines).map(|_| r.unit()).collect();
        let arr = Array::from_vec(vec![lines as i64, n as i64], x).unwrap();
        let spec = rfft_lines::<C128>(&arr, lines, n, Isa::Portable).unwrap();
        let back = |isa| {
            let m = Mem::C128(spec.as_ptr().cast_mut());
            match irfft_lines(m, lines, n / 2 + 1, n, ElementType::F64, isa) {
                Ok(ArrayData::F64(v)) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                _ => panic!("no f64 result"),
            }
        };
        for &isa in &isas {
            let got = rfft_lines::<C128>(&arr, lines, n, isa).unwrap();
            assert!(bits(&got) == bits(&spec), "RFFT n={n} {isa:?}");
            assert!(back(isa) == back(Isa::Portable), "IRFFT n={n} {isa:?}");
        }
    }
}

/// The RFFT's half-length transform and split step against the complex transform of the same
/// real data (the exact DFT), for even lengths (the packed path, including n/2 odd, which
/// runs Bluestein) and odd ones (complex path).
#[test]
fn rfft_matches_the_exact_dft_of_the_real_signal() {
    let lengths = (1..=70usize).chain([128, 1000, 1 << 12, 1 << 16, 2 * 641, 1 << 20]);
    for n in lengths {
        let lines = if n <= 1000 { 3 } else { 1 };
        let mut r = Rng(n as u64);
        let x: Vec<f64> = (0..n * lines).map(|_| r.unit()).collect();
        let arr = Array::from_vec(vec![lines as i64, n as i64], x.clone()).unwrap();
        let got = rfft_lines::<C128>(&arr, lines, n, Isa::best()).unwrap();
        let keep = n / 2 + 1;
        assert_eq!(got.len(), lines * keep);
        for l in 0..lines {
            let line: Vec<C128> = x[l * n..(l + 1) * n]
                .iter()
                .map(|&v| C128::new(v, 0.0))
                .collect();
            let tol = bound(n, &line);
            for k in bins(n).into_iter().filter(|&k| k < keep) {
                let want = exact_bin(&line, k, false);
                let g = got[l * keep + k];
                assert!(
                    (g - want).norm() <= tol,
                    "n={n} line {l} bin {k}: {g} vs {want}"
                );
            }
        }
    }
}

/// IRFFT against the definition: the real part of the inverse DFT of the Hermitian extension
/// of the given half spectrum (imaginary parts of X[0] and, for even n, X[n/2] included and
/// without effect), and IRFFT(RFFT(x)) = x.
#[test]
fn irfft_matches_the_exact_inverse_and_inverts_rfft() {
    let lengths = (1..=70usize).chain([128, 1000, 1 << 12, 1 << 16, 2 * 641]);
    for n in lengths {
        let lines = if n <= 1000 { 3 } else { 1 };
        let have = n / 2 + 1;
        let mut r = Rng(n as u64 + 7);
        let spec = r.complex(lines * have);
        let got = irfft_lines(
            Mem::C128(spec.as_ptr().cast_mut()),
            lines,
            have,
            n,
            ElementType::F64,
            Isa::best(),
        );
        let Ok(ArrayData::F64(got)) = got else {
            panic!("n={n}: no f64 result")
        };
        for l in 0..lines {
            let s = &spec[l * have..(l + 1) * have];
            let full: Vec<C128> = (0..n)
                .map(|j| if j < have { s[j] } else { s[n - j].conj() })
                .collect();
            let tol = bound(n, &full) / n as f64;
            for t in bins(n) {
                let want = exact_bin(&full, t, true).re / n as f64;
                let g = got[l * n + t];
                assert!(
                    (g - want).abs() <= tol,
                    "n={n} line {l} t={t}: {g} vs {want}"
                );
            }
        }
        let x: Vec<f64> = (0..n * lines).map(|_| r.unit()).collect();
        let arr = Array::from_vec(vec![lines as i64, n as i64], x.clone()).unwrap();
        let spec = rfft_lines::<C128>(&arr, lines, n, Isa::best()).unwrap();
        let Ok(ArrayData::F64(back)) = irfft_lines(
            Mem::C128(spec.as_ptr().cast_mut()),
            lines,
            have,
            n,
            ElementType::F64,
            Isa::best(),
        ) else {
            panic!("n={n}: no f64 result")
        };
        let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        for (b, w) in back.iter().zip(&x) {
            let tol = 2.0 * 4.0 * f64::EPSILON * (n.max(2) as f64).log2() * norm;
            assert!((b - w).abs() <= tol, "round trip n={n}: {b} vs {w}");
        }
    }
}

/// Reading c64 (and f32 reals in pairs) and writing c64 (and f32 reals) happens inside the
/// transforms' first reads and last writes; widening is exact and the result is rounded
/// once, so these paths must give exactly the complex f64 results rounded, on every
/// instruction set (contiguous rows go through the vector conversions, strided ones one by
/// one).
#[test]
fn single_precision_arrays_give_the_double_results_rounded() {
    let isas: Vec<Isa> = [Isa::Portable, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|i| i.available())
        .collect();
    let round = |c: &C128| C64::new(c.re as f32, c.im as f32);
    let same = |a: &[C64], b: &[C64]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits())
    };
    for dims in [
        vec![13usize, 8],
        vec![2, 4096],
        vec![1, 1 << 16],
        vec![3, 100],
        vec![6, 8, 16],
    ] {
        let total: usize = dims.iter().product();
        let mut r = Rng(total as u64);
        let x32: Vec<C64> = (0..total)
            .map(|_| C64::new(r.unit() as f32, r.unit() as f32))
            .collect();
        let x64: Vec<C128> = x32
            .iter()
            .map(|c| C128::new(c.re as f64, c.im as f64))
            .collect();
        let idims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let a32 = Array::from_vec(idims.clone(), x32).unwrap();
        let a64 = Array::from_vec(idims.clone(), x64.clone()).unwrap();
        let rank = dims.len();
        for &isa in &isas {
            for (axes, inverse) in [(rank - 1..rank, false), (0..rank, true)] {
                let Ok(ArrayData::C128(want)) =
                    complex_op(&a64, ElementType::C128, &dims, axes.clone(), inverse, isa)
                else {
                    panic!("no c128 result")
                };
                let want: Vec<C64> = want.iter().map(round).collect();
                let Ok(ArrayData::C64(got)) =
                    complex_op(&a32, ElementType::C64, &dims, axes.clone(), inverse, isa)
                else {
                    panic!("no c64 result")
                };
                assert!(
                    same(&got, &want),
                    "FFT {dims:?} {axes:?} inverse={inverse} {isa:?}"
                );
            }
            // The real transforms along the last axis: f32 reals in, c64 out, and back.
            let n = dims[rank - 1];
            let lines = total / n;
            let reals32: Vec<f32> = x64.iter().map(|c| c.re as f32).collect();
            let reals64: Vec<f64> = reals32.iter().map(|&v| v as f64).collect();
            let r32 = Array::from_vec(idims.clone(), reals32).unwrap();
            let r64 = Array::from_vec(idims.clone(), reals64).unwrap();
            let spec64 = rfft_lines::<C128>(&r64, lines, n, isa).unwrap();
            let spec32 = rfft_lines::<C64>(&r32, lines, n, isa).unwrap();
            let rounded: Vec<C64> = spec64.iter().map(round).collect();
            assert!(same(&spec32, &rounded), "RFFT {dims:?} {isa:?}");
            let have = n / 2 + 1;
            let m64 = Mem::C128(spec64.as_ptr().cast_mut());
            let Ok(ArrayData::F64(back64)) =
                irfft_lines(m64, lines, have, n, ElementType::F64, isa)
            else {
                panic!("no f64 result")
            };
            let spec_in: Vec<C128> = rounded
                .iter()
                .map(|c| C128::new(c.re as f64, c.im as f64))
                .collect();
            let m_in = Mem::C128(spec_in.as_ptr().cast_mut());
            let Ok(ArrayData::F64(want)) = irfft_lines(m_in, lines, have, n, ElementType::F64, isa)
            else {
                panic!("no f64 result")
            };
            let m32 = Mem::C64(rounded.as_ptr().cast_mut());
            let Ok(ArrayData::F32(got)) = irfft_lines(m32, lines, have, n, ElementType::F32, isa)
            else {
                panic!("no f32 result")
            };
            let ok = got
                .iter()
                .zip(want.iter())
                .all(|(g, w)| g.to_bits() == (*w as f32).to_bits());
            assert!(ok && got.len() == back64.len(), "IRFFT {dims:?} {isa:?}");
        }
    }
}

fn run_text(hlo: &str, arg: Literal) -> Literal {
    let m = crate::verify::parse_and_verify(hlo).unwrap_or_else(|e| panic!("{e}"));
    crate::eval::run(&m, vec![arg], &crate::eval::RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .result
}

fn values(l: &Literal) -> Vec<C128> {
    let a = l.as_array().expect("an array");
    (0..a.len()).map(|i| a.data.get(i).as_c128()).collect()
}

/// Empty arrays (a zero dimension inside or outside the transformed axes, or a length of
/// 0) give empty results of the verified shapes.
#[test]
fn empty_arrays_give_empty_results() {
    // (operand type, dims, result type, dims, fft_type, fft_length)
    type Case<'a> = (&'a str, &'a [i64], &'a str, &'a [i64], &'a str, &'a str);
    let cases: [Case; 7] = [
        ("c64", &[0, 4], "c64", &[0, 4], "FFT", "4"),
        ("c64", &[4, 0], "c64", &[4, 0], "IFFT", "4,0"),
        ("f32", &[3, 0], "c64", &[3, 0], "RFFT", "3,0"),
        ("f32", &[0, 8], "c64", &[0, 5], "RFFT", "8"),
        ("f32", &[2, 3, 0], "c64", &[2, 3, 0], "RFFT", "2,3,0"),
        ("c64", &[3, 0], "f32", &[3, 0], "IRFFT", "3,0"),
        ("c64", &[0, 5], "f32", &[0, 8], "IRFFT", "8"),
    ];
    let text = |d: &[i64]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    for (ti, di, to, dout, kind, lens) in cases {
        let hlo = format!(
            "HloModule m\nENTRY e {{\n x = {ti}[{}] parameter(0)\n ROOT y = {to}[{}] fft(x), fft_type={kind}, fft_length={{{lens}}}\n}}\n",
            text(di),
            text(dout)
        );
        let arg = if ti == "f32" {
            Array::from_vec::<f32>(di.to_vec(), vec![])
        } else {
            Array::from_vec::<C64>(di.to_vec(), vec![])
        };
        let got = run_text(&hlo, Literal::Array(arg.unwrap()));
        let got = got.as_array().expect("an array");
        assert_eq!((got.dims(), got.len()), (dout, 0), "{kind} of {ti}{di:?}");
    }
}

/// The op over two and three axes (RFFT, IRFFT, FFT, IFFT) against a separable exact DFT.
#[test]
fn the_op_over_two_and_three_axes_matches_the_exact_dft() {
    // (dims, number of transformed axes); the innermost length is even in one case and odd
    // in the other, so both real paths run.
    for (dims, k) in [
        (vec![3usize, 4, 6, 8], 3usize),
        (vec![2, 5, 9], 2),
        (vec![6, 10], 2),
    ] {
        let total: usize = dims.iter().product();
        let mut r = Rng(total as u64);
        let x: Vec<f64> = (0..total).map(|_| r.unit()).collect();
        let rank = dims.len();
        let last = dims[rank - 1];
        let keep = last / 2 + 1;
        // The exact transform along each of the k innermost axes of the complex data.
        let mut want: Vec<C128> = x.iter().map(|&v| C128::new(v, 0.0)).collect();
        for axis in rank - k..rank {
            let n = dims[axis];
            let inner: usize = dims[axis + 1..].iter().product();
            let before = want.clone();
            for base in (0..total).filter(|b| (b / inner).is_multiple_of(n)) {
                let line: Vec<C128> = (0..n).map(|t| before[base + t * inner]).collect();
                for kk in 0..n {
                    want[base + kk * inner] = exact_bin(&line, kk, false);
                }
            }
        }
        let tol = 16.0 * f64::EPSILON * (total as f64).log2() * norm(&want) / (total as f64).sqrt();
        let d = |v: &[usize]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let lens = d(&dims[rank - k..]);
        let mut half = dims.clone();
        half[rank - 1] = keep;
        let arg = Literal::Array(
            Array::from_vec(dims.iter().map(|&v| v as i64).collect(), x.clone()).unwrap(),
        );
        let rfft = run_text(
            &format!(
                "HloModule m\nENTRY e {{\n x = f64[{}] parameter(0)\n ROOT y = c128[{}] fft(x), fft_type=RFFT, fft_length={{{lens}}}\n}}\n",
                d(&dims),
                d(&half)
            ),
            arg.clone(),
        );
        let got = values(&rfft);
        for (i, g) in got.iter().enumerate() {
            let (outer, j) = (i / keep, i % keep);
            let w = want[outer * last + j];
            assert!(
                (g - w).norm() <= tol,
                "RFFT {dims:?} k={k} at {i}: {g} vs {w}"
            );
        }
        let back = run_text(
            &format!(
                "HloModule m\nENTRY e {{\n x = c128[{}] parameter(0)\n ROOT y = f64[{}] fft(x), fft_type=IRFFT, fft_length={{{lens}}}\n}}\n",
                d(&half),
                d(&dims)
            ),
            rfft,
        );
        for (g, w) in values(&back).iter().zip(&x) {
            assert!((g.re - w).abs() <= tol, "IRFFT {dims:?} k={k}: {g} vs {w}");
        }
        let cx = Literal::Array(
            Array::from_vec(
                dims.iter().map(|&v| v as i64).collect(),
                x.iter().map(|&v| C128::new(v, 0.0)).collect::<Vec<_>>(),
            )
            .unwrap(),
        );
        let fwd = run_text(
            &format!(
                "HloModule m\nENTRY e {{\n x = c128[{}] parameter(0)\n ROOT y = c128[{}] fft(x), fft_type=FFT, fft_length={{{lens}}}\n}}\n",
                d(&dims),
                d(&dims)
            ),
            cx,
        );
        for (g, w) in values(&fwd).iter().zip(&want) {
            assert!((g - w).norm() <= tol, "FFT {dims:?} k={k}: {g} vs {w}");
        }
        let inv = run_text(
            &format!(
                "HloModule m\nENTRY e {{\n x = c128[{}] parameter(0)\n ROOT y = c128[{}] fft(x), fft_type=IFFT, fft_length={{{lens}}}\n}}\n",
                d(&dims),
                d(&dims)
            ),
            fwd,
        );
        for (g, w) in values(&inv).iter().zip(&x) {
            assert!(
                (g - C128::new(*w, 0.0)).norm() <= tol,
                "IFFT {dims:?} k={k}: {g} vs {w}"
            );
        }
    }
}
