//! Property tests for dot and convolution: the fast paths (blocked GEMM with every micro-kernel
//! this machine runs; implicit-im2col convolution through it, the batch folded into one product
//! written straight into a `b01f` result or scattered into any other order) against the naive
//! oracles written from the book's definitions, over random shapes (sizes 1 to 67), random
//! dimension orders, groups, dilations, strides, padding (negative too) and reversal.
//!
//! Tolerance: integers must match exactly (both wrap). For floats, the oracle accumulates in F64
//! and the fast path in F32 (F64 for F64), in a different order; the error bound is
//! `|fast - oracle| <= 2 * K * eps(acc) * sum|lhs*rhs| + 2 * eps(result) * |oracle|`, `K` the
//! number of products per output (a standard worst-case bound for recursive summation), plus one
//! unit in the last place of the result type because both sides round to it separately and may
//! fall on either side of a rounding boundary; `sum|lhs*rhs|` is computed by the oracle on
//! absolute values and `eps` is the unit roundoff.

use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use xla_spec::eval::linalg::{
    ConvAttrs, DotDims, fast_conv_with, fast_dot_with, naive_conv, naive_dot,
};
use xla_spec::hlo::ast::{ConvDims, Window, WindowDim};
use xla_spec::kernels::gemm::{KernelKind, MicroKernel};
use xla_spec::literal::{Array, ArrayData};
use xla_spec::shape::ArrayShape;
use xla_spec::shape::window::window_output_size;
use xla_spec::types::ElementType;

pub fn trials() -> Vec<Trial> {
    let mut t = vec![];
    for kind in MicroKernel::<f32>::available().into_iter().map(|k| k.kind) {
        t.push(Trial::test(
            format!("prop::linalg::dot_fast_matches_oracle_{}", kernel_tag(kind)),
            move || run(24, move |r| dot_case(r, kind)),
        ));
        t.push(Trial::test(
            format!(
                "prop::linalg::conv_fast_matches_oracle_{}",
                kernel_tag(kind)
            ),
            move || run(48, move |r| conv_case(r, kind)),
        ));
    }
    // The AVX512-BF16 kernel wherever the CPU has it, whether or not it is the faster here
    // (`gemm::bf16::preferred`): asked for by name, it runs on every BF16 product.
    if KernelKind::Avx512Bf16.available() {
        t.push(Trial::test(
            "prop::linalg::dot_fast_matches_oracle_avx512bf16",
            || run(24, |r| dot_case(r, KernelKind::Avx512Bf16)),
        ));
    }
    t
}

fn kernel_tag(k: KernelKind) -> &'static str {
    match k {
        KernelKind::Avx512 => "avx512",
        KernelKind::Avx2Fma => "avx2_fma",
        KernelKind::Portable => "portable",
        KernelKind::Avx512Bf16 => "avx512bf16",
    }
}

/// Runs `cases` cases; each draws its shapes and values from a generator seeded by proptest
/// (shapes depend on earlier draws, so a seed is the natural input; a failure prints it).
fn run(
    cases: u32,
    f: impl Fn(&mut Rng) -> Result<(), TestCaseError> + 'static,
) -> Result<(), Failed> {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&any::<u64>(), |seed| f(&mut Rng(seed)))
        .map_err(|e| Failed::from(format!("{e}")))
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    fn rng(&mut self) -> &mut Self {
        self
    }
}

const TYPES: &[ElementType] = &[
    ElementType::F32,
    ElementType::F64,
    ElementType::BF16,
    ElementType::F16,
    ElementType::S32,
    ElementType::U8,
    ElementType::S64,
];

fn pick<T: Copy>(r: &mut Rng, v: &[T]) -> T {
    v[(r.rng().next_u32() as usize) % v.len()]
}

fn range(r: &mut Rng, lo: i64, hi: i64) -> i64 {
    lo + (r.rng().next_u64() % ((hi - lo + 1) as u64)) as i64
}

fn shuffle(r: &mut Rng, v: &mut [usize]) {
    for i in (1..v.len()).rev() {
        let j = (r.rng().next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

/// Small integers as values (exact in every type), or uniform floats in [-1, 1).
fn values(r: &mut Rng, ty: ElementType, dims: Vec<i64>) -> Array {
    let n: i64 = dims.iter().product();
    let mut f = || (r.rng().next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    let fl: Vec<f64> = (0..n).map(|_| f()).collect();
    let data = match ty {
        ElementType::F32 => ArrayData::F32(fl.iter().map(|&x| x as f32).collect()),
        ElementType::F64 => ArrayData::F64(fl.into()),
        ElementType::BF16 => ArrayData::BF16(fl.iter().map(|&x| half::bf16::from_f64(x)).collect()),
        ElementType::F16 => ArrayData::F16(fl.iter().map(|&x| half::f16::from_f64(x)).collect()),
        ElementType::S32 => ArrayData::S32(fl.iter().map(|&x| (x * 1e9) as i32).collect()),
        ElementType::S64 => ArrayData::S64(fl.iter().map(|&x| (x * 9e18) as i64).collect()),
        _ => ArrayData::U8(fl.iter().map(|&x| ((x + 1.0) * 127.0) as u8).collect()),
    };
    Array {
        shape: ArrayShape::new(data.ty(), dims),
        data,
    }
}

fn abs_array(a: &Array) -> Array {
    let data = match &a.data {
        ArrayData::F32(v) => ArrayData::F64(v.iter().map(|x| x.abs() as f64).collect()),
        ArrayData::F64(v) => ArrayData::F64(v.iter().map(|x| x.abs()).collect()),
        ArrayData::BF16(v) => ArrayData::F64(v.iter().map(|x| x.to_f64().abs()).collect()),
        ArrayData::F16(v) => ArrayData::F64(v.iter().map(|x| x.to_f64().abs()).collect()),
        other => other.clone(),
    };
    Array {
        shape: ArrayShape::new(data.ty(), a.dims().to_vec()),
        data,
    }
}

fn as_f64(a: &Array) -> Vec<f64> {
    match &a.data {
        ArrayData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F64(v) => v.to_vec(),
        ArrayData::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
        ArrayData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        _ => vec![],
    }
}

fn eps(ty: ElementType) -> f64 {
    match ty {
        ElementType::F64 => f64::EPSILON,
        ElementType::BF16 => 2f64.powi(-8),
        ElementType::F16 => 2f64.powi(-11),
        _ => f32::EPSILON as f64,
    }
}

/// Compares fast and oracle results under the bound in the module comment.
fn compare(
    what: &str,
    fast: &Array,
    oracle: &Array,
    absdot: &Array,
    k: usize,
    ran: Option<KernelKind>,
    want: KernelKind,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(fast.dims(), oracle.dims(), "{}", what);
    let ty = oracle.ty();
    // Integers accumulate through the portable kernel whatever was asked for.
    let want = if ty.is_float() {
        want
    } else {
        KernelKind::Portable
    };
    if !fast.is_empty() {
        prop_assert_eq!(ran, Some(want), "{}: wrong kernel ran", what);
    }
    if !ty.is_float() {
        prop_assert!(fast.data == oracle.data, "{}: integer results differ", what);
        return Ok(());
    }
    let acc = if ty == ElementType::F64 {
        ElementType::F64
    } else {
        ElementType::F32
    };
    let (f, o, s) = (as_f64(fast), as_f64(oracle), as_f64(absdot));
    for i in 0..o.len() {
        // The two accumulators may land on either side of a rounding boundary of the
        // output type, so a whole unit in the last place (twice the unit roundoff) is allowed.
        let tol = 2.0 * k.max(1) as f64 * eps(acc) * s[i] + 2.0 * eps(ty) * o[i].abs() + 1e-300;
        prop_assert!(
            (f[i] - o[i]).abs() <= tol,
            "{}: element {} fast {} oracle {} tolerance {}",
            what,
            i,
            f[i],
            o[i],
            tol
        );
    }
    Ok(())
}

fn dot_case(r: &mut Rng, kind: KernelKind) -> Result<(), TestCaseError> {
    // The BF16 kernel takes BF16 operands only (values in [-1, 1): never subnormal, so it must
    // run).
    let ty = if kind == KernelKind::Avx512Bf16 {
        ElementType::BF16
    } else {
        pick(r, TYPES)
    };
    let rty = if matches!(ty, ElementType::U8) {
        ElementType::U32
    } else {
        ty
    };
    let nb = range(r, 0, 2) as usize;
    let nc = range(r, 0, 2) as usize;
    let nlf = range(r, 0, 2) as usize;
    let nrf = range(r, 0, 2) as usize;
    // Sizes 1..=67, with the total work kept small for a debug build.
    let size = |r: &mut Rng| {
        if r.rng().next_u32().is_multiple_of(3) {
            range(r, 1, 67)
        } else {
            range(r, 1, 6)
        }
    };
    let bsz: Vec<i64> = (0..nb).map(|_| size(r)).collect();
    let csz: Vec<i64> = (0..nc).map(|_| size(r)).collect();
    let lsz: Vec<i64> = (0..nlf).map(|_| size(r)).collect();
    let rsz: Vec<i64> = (0..nrf).map(|_| size(r)).collect();
    let work: i64 = bsz.iter().chain(&csz).chain(&lsz).chain(&rsz).product();
    if work > 300_000 {
        return Ok(());
    }
    // Logical roles in order (batch, contracting, free), then a random permutation of positions.
    let lrank = nb + nc + nlf;
    let rrank = nb + nc + nrf;
    let mut lpos: Vec<usize> = (0..lrank).collect();
    let mut rpos: Vec<usize> = (0..rrank).collect();
    shuffle(r, &mut lpos);
    shuffle(r, &mut rpos);
    let mut ldims = vec![0i64; lrank];
    let mut rdims = vec![0i64; rrank];
    let lsizes: Vec<i64> = bsz.iter().chain(&csz).chain(&lsz).copied().collect();
    let rsizes: Vec<i64> = bsz.iter().chain(&csz).chain(&rsz).copied().collect();
    for (role, &p) in lpos.iter().enumerate() {
        ldims[p] = lsizes[role];
    }
    for (role, &p) in rpos.iter().enumerate() {
        rdims[p] = rsizes[role];
    }
    let d = DotDims {
        lhs_batch: lpos[..nb].to_vec(),
        lhs_contracting: lpos[nb..nb + nc].to_vec(),
        rhs_batch: rpos[..nb].to_vec(),
        rhs_contracting: rpos[nb..nb + nc].to_vec(),
    };
    let lhs = values(r, ty, ldims);
    let rhs = values(r, ty, rdims);
    let what = format!(
        "{ty}->{rty} lhs {:?} rhs {:?} {:?}",
        lhs.dims(),
        rhs.dims(),
        d
    );
    let (fast, ran) = fast_dot_with(&lhs, &rhs, &d, rty, Some(kind)).map_err(fail)?;
    let oracle = naive_dot(&lhs, &rhs, &d, rty).map_err(fail)?;
    let absdot = if ty.is_float() {
        naive_dot(&abs_array(&lhs), &abs_array(&rhs), &d, ElementType::F64).map_err(fail)?
    } else {
        oracle.clone()
    };
    let k: i64 = csz.iter().product();
    compare(&what, &fast, &oracle, &absdot, k as usize, ran, kind)
}

fn fail(e: xla_spec::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

fn conv_case(r: &mut Rng, kind: KernelKind) -> Result<(), TestCaseError> {
    let ty = pick(r, TYPES);
    let rty = if matches!(ty, ElementType::U8) {
        ElementType::U32
    } else {
        ty
    };
    let n = range(r, 1, 3) as usize;
    let rank = n + 2;
    // Random dimension orders for the three operands.
    let mut lp: Vec<usize> = (0..rank).collect();
    let mut kp: Vec<usize> = (0..rank).collect();
    let mut op: Vec<usize> = (0..rank).collect();
    shuffle(r, &mut lp);
    shuffle(r, &mut kp);
    shuffle(r, &mut op);
    // Half the cases write a feature-minor (`b01f`) output, which a single-group convolution
    // fills straight from the GEMM (the other orders go through a scatter).
    if r.rng().next_u32().is_multiple_of(2) {
        op = std::iter::once(0)
            .chain(std::iter::once(rank - 1))
            .chain(1..rank - 1)
            .collect();
    }
    // A quarter of the cases are shaped like a kernel gradient: the batch innermost in the
    // input, eight or more of it, one group, and half of those with a position-major
    // (`01bf`) output, which the GEMM fills directly in that form.
    let kernel_gradient = r.rng().next_u32().is_multiple_of(4);
    if kernel_gradient {
        let at = lp.iter().position(|&d| d == rank - 1).unwrap_or(0);
        lp.swap(0, at);
        if r.rng().next_u32().is_multiple_of(2) {
            op = [rank - 2, rank - 1]
                .into_iter()
                .chain(0..rank - 2)
                .collect();
        }
    }
    let cd = ConvDims {
        input_batch: lp[0],
        input_feature: lp[1],
        input_spatial: lp[2..].to_vec(),
        kernel_input_feature: kp[0],
        kernel_output_feature: kp[1],
        kernel_spatial: kp[2..].to_vec(),
        output_batch: op[0],
        output_feature: op[1],
        output_spatial: op[2..].to_vec(),
    };
    let groups = if kernel_gradient { 1 } else { range(r, 1, 3) };
    let batch_grouped = r.rng().next_u32().is_multiple_of(3);
    let (fgc, bgc) = if batch_grouped {
        (1, groups)
    } else {
        (groups, 1)
    };
    let k_in = range(r, 1, 4);
    let out_f = groups * range(r, 1, 3);
    let in_f = k_in * fgc;
    let batch = if kernel_gradient {
        range(r, 8, 21)
    } else {
        bgc * range(r, 1, 3)
    };
    let big = if n == 1 {
        67
    } else if n == 2 {
        12
    } else {
        5
    };
    let mut window = Window::default();
    let mut in_sp = vec![];
    let mut k_sp = vec![];
    for _ in 0..n {
        let size = range(r, 1, 4);
        let mut w = WindowDim::of_size(size);
        w.stride = range(r, 1, 3);
        w.lhs_dilate = range(r, 1, 3);
        w.rhs_dilate = range(r, 1, 3);
        w.reversal = r.rng().next_u32().is_multiple_of(2);
        w.pad_lo = range(r, -1, 3);
        w.pad_hi = range(r, -1, 3);
        let base = range(r, 1, big);
        if window_output_size(base, &w).is_err() {
            w.pad_lo = 0;
            w.pad_hi = 0;
        }
        in_sp.push(base);
        k_sp.push(size);
        window.dims.push(w);
    }
    let mut ldims = vec![0i64; rank];
    ldims[cd.input_batch] = batch;
    ldims[cd.input_feature] = in_f;
    let mut kdims = vec![0i64; rank];
    kdims[cd.kernel_input_feature] = k_in;
    kdims[cd.kernel_output_feature] = out_f;
    for i in 0..n {
        ldims[cd.input_spatial[i]] = in_sp[i];
        kdims[cd.kernel_spatial[i]] = k_sp[i];
    }
    let attrs = ConvAttrs {
        dims: cd,
        window,
        feature_group_count: fgc,
        batch_group_count: bgc,
    };
    let lhs = values(r, ty, ldims);
    let rhs = values(r, ty, kdims);
    let what = format!(
        "{ty}->{rty} lhs {:?} rhs {:?} fgc {fgc} bgc {bgc} {:?}",
        lhs.dims(),
        rhs.dims(),
        attrs
    );
    let (fast, ran) = fast_conv_with(&lhs, &rhs, &attrs, rty, Some(kind)).map_err(fail)?;
    let oracle = naive_conv(&lhs, &rhs, &attrs, rty).map_err(fail)?;
    let absdot = if ty.is_float() {
        naive_conv(&abs_array(&lhs), &abs_array(&rhs), &attrs, ElementType::F64).map_err(fail)?
    } else {
        oracle.clone()
    };
    let k = (k_in * k_sp.iter().product::<i64>()) as usize;
    compare(&what, &fast, &oracle, &absdot, k, ran, kind)
}
