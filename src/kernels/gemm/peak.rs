//! How near the micro-kernels run to the core's multiply-add peak, measured on the machine the
//! program runs on (`xla-spec bench --peak`).
//!
//! Method (the split of Low et al., "Analytical Modeling Is Enough for High-Performance BLIS",
//! ACM TOMS 2016, who rate a micro-kernel against the core's peak before any blocking): three
//! rates per kernel kind and element type, on one thread, each the best of `RUNS` timed runs:
//!
//! 1. the FMA loop (`simd::fma_loop_body`): as many independent multiply-add chains on registers
//!    as the kernel has accumulators, and no memory: what the core can do;
//! 2. the micro-kernel on one packed A panel and one packed B panel that together take half of
//!    L1, called again and again: the kernel's own instruction schedule;
//! 3. the micro-kernel as the GEMM's inner loop calls it: one B micro-panel (`KC x NR`) against
//!    every A panel of a block (`MC x KC`), with the block sizes `Blocks::for_caches` gives this
//!    machine: the caches' part, still without packing, threads or C from memory. The block is
//!    in L2, except for AMD's 512-bit kernels on 8-byte elements, whose block is twice as deep
//!    as L2 holds and streams from L3.
//!
//! The first gap is the kernel's schedule, the second the caches; what a whole product loses
//! beyond the third is packing, threads and memory, which `xla-spec bench` and
//! `benches/gemm_pairs.sh` measure. Every run is checked: the FMA loop's sums and the kernel's
//! tile against a naive product on small integers, whose sums are exact in any order.

use super::{GemmElem, KernelKind};
use crate::kernels::cache;
use std::time::{Duration, Instant};

/// Timed runs per rate; the best is kept (a shared host takes a core away now and then).
const RUNS: usize = 5;

/// Steps of each chain per call of the FMA loop: its sums (`chains x FMA_ITERS`) stay exact in
/// F32.
const FMA_ITERS: usize = 4096;

/// The FMA loop of one kernel kind for one element type.
pub struct FmaLoop<T> {
    /// Independent chains (the kernel's accumulators).
    pub chains: usize,
    pub lanes: usize,
    pub f: unsafe fn(usize, *const T, *mut T),
}

/// Element types with an FMA loop beside their kernels.
pub trait PeakElem: GemmElem + From<u8> + Into<f64> {
    const NAME: &'static str;
    fn fma_loop(kind: KernelKind) -> Option<FmaLoop<Self>>;
}

macro_rules! peak_elem {
    ($t:ty, $name:literal, $v2:ident, $v5:ident) => {
        impl PeakElem for $t {
            const NAME: &'static str = $name;
            fn fma_loop(kind: KernelKind) -> Option<FmaLoop<$t>> {
                #[cfg(target_arch = "x86_64")]
                {
                    use super::simd::x86::*;
                    let lanes = |bytes: usize| bytes / std::mem::size_of::<$t>();
                    match kind {
                        KernelKind::Avx512 => {
                            return Some(FmaLoop {
                                chains: AVX512_MR * AVX512_NV,
                                lanes: lanes(64),
                                f: avx512_fma_loop::<$v5, { AVX512_MR * AVX512_NV }>,
                            });
                        }
                        KernelKind::Avx2Fma => {
                            return Some(FmaLoop {
                                chains: AVX2_MR * AVX2_NV,
                                lanes: lanes(32),
                                f: avx2_fma_loop::<$v2, { AVX2_MR * AVX2_NV }>,
                            });
                        }
                        _ => {}
                    }
                }
                let _ = kind;
                None
            }
        }
    };
}
peak_elem!(f32, "f32", Avx2F32, Avx512F32);
peak_elem!(f64, "f64", Avx2F64, Avx512F64);

/// One kernel kind's rates for one element type, in GFLOP/s.
#[derive(Clone, Debug)]
pub struct Peak {
    pub kind: KernelKind,
    pub ty: &'static str,
    pub mr: usize,
    pub nr: usize,
    /// Depth of the panels that fit in L1 (rate `in_l1`).
    pub kc_l1: usize,
    /// The GEMM's block sizes on this machine (rate `a_block`).
    pub kc: usize,
    pub mc: usize,
    pub fma_loop: f64,
    pub in_l1: f64,
    pub a_block: f64,
}

/// The rates of every SIMD kernel kind this CPU runs, F32 and F64; each rate takes about
/// `budget`. An error is an internal bug: a kernel or loop whose result is wrong.
pub fn probe_all(budget: Duration) -> Result<Vec<Peak>, String> {
    let mut out = Vec::new();
    for kind in [KernelKind::Avx512, KernelKind::Avx2Fma] {
        out.extend(probe::<f32>(kind, budget)?);
        out.extend(probe::<f64>(kind, budget)?);
    }
    Ok(out)
}

/// The three rates for `T` on `kind`; `None` where the CPU lacks the kind or it has no FMA loop.
pub fn probe<T: PeakElem>(kind: KernelKind, budget: Duration) -> Result<Option<Peak>, String> {
    if !kind.available() {
        return Ok(None);
    }
    let (Some(mk), Some(fl)) = (T::kernel(kind), T::fma_loop(kind)) else {
        return Ok(None);
    };
    let (mr, nr, elem) = (mk.mr, mk.nr, std::mem::size_of::<T>());
    let what = format!("{} {}", kind.name(), T::NAME);

    let xy = [T::from(1), T::from(1)];
    let mut sums = vec![T::zero(); fl.lanes];
    let out = sums.as_mut_ptr();
    // SAFETY: `kind` is available; `xy` holds two values, `out` `lanes`.
    let fma = || unsafe { (fl.f)(FMA_ITERS, xy.as_ptr(), out) };
    fma();
    let want = (fl.chains * FMA_ITERS) as f64;
    if let Some(bad) = sums.iter().map(|&s| s.into()).find(|&s: &f64| s != want) {
        return Err(format!("{what}: the FMA loop summed {bad}, not {want}"));
    }
    let fma_loop = best_rate((2 * fl.chains * fl.lanes * FMA_ITERS) as f64, budget, fma);

    let l1d = cache::detect().l1d;
    let kc_l1 = ((l1d / 2) / ((mr + nr) * elem) / 8 * 8).clamp(16, 512);
    let in_l1 = kernel_rate(&mk, kc_l1, 1, budget).map_err(|e| format!("{what}: {e}"))?;
    let panels = (mk.mc / mr).max(1);
    let a_block = kernel_rate(&mk, mk.kc, panels, budget).map_err(|e| format!("{what}: {e}"))?;
    Ok(Some(Peak {
        kind,
        ty: T::NAME,
        mr,
        nr,
        kc_l1,
        kc: mk.kc,
        mc: panels * mr,
        fma_loop,
        in_l1,
        a_block,
    }))
}

/// GFLOP/s of `mk`'s main instance on `panels` packed A panels (`mr x kc` each) against one
/// packed B panel (`kc x nr`), as the GEMM's innermost loop runs them, after checking one pass
/// against a naive product.
fn kernel_rate<T: PeakElem>(
    mk: &super::MicroKernel<T>,
    kc: usize,
    panels: usize,
    budget: Duration,
) -> Result<f64, String> {
    let (mr, nr) = (mk.mr, mk.nr);
    // Small integers: every product and sum is exact, so any order of summation agrees.
    let a: Vec<T> = (0..panels * mr * kc)
        .map(|i| T::from((i % 3) as u8))
        .collect();
    let b: Vec<T> = (0..kc * nr).map(|i| T::from((i % 5) as u8)).collect();
    let mut c = vec![T::zero(); panels * mr * nr];
    let cp = c.as_mut_ptr();
    let run = |accumulate: bool| {
        for p in 0..panels {
            // SAFETY: the kind is available (checked by `probe`); panel `p` of A holds `kc`
            // groups of `mr` values, B `kc` rows of `nr`, and C's tile `p` `mr` rows of `nr`
            // (ldc `nr`); no next panel to ask for.
            unsafe {
                (mk.f)(
                    kc,
                    a.as_ptr().add(p * mr * kc),
                    b.as_ptr(),
                    nr,
                    cp.add(p * mr * nr),
                    nr,
                    accumulate,
                    std::ptr::null(),
                )
            }
        }
    };
    run(false);
    for p in 0..panels {
        for i in 0..mr {
            for j in 0..nr {
                let want: f64 = (0..kc)
                    .map(|q| a[p * mr * kc + q * mr + i].into() * b[q * nr + j].into())
                    .sum();
                let got: f64 = c[p * mr * nr + i * nr + j].into();
                if got != want {
                    return Err(format!(
                        "the {mr}x{nr} kernel gave {got} at tile {p} ({i}, {j}), not {want}"
                    ));
                }
            }
        }
    }
    let flops = (2 * mr * nr * kc * panels) as f64;
    Ok(best_rate(flops, budget, || run(true)))
}

/// GFLOP/s of the best of `RUNS` runs of `call` (`flops` each), the runs together taking about
/// `budget`.
fn best_rate(flops: f64, budget: Duration, mut call: impl FnMut()) -> f64 {
    let t = Instant::now();
    call();
    let once = t.elapsed().as_secs_f64().max(1e-9);
    let calls = ((budget.as_secs_f64() / RUNS as f64 / once).ceil() as usize).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let t = Instant::now();
        for _ in 0..calls {
            call();
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    flops * calls as f64 / best.max(1e-9) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind this CPU has is probed, and its runs are checked (a kernel that dropped a step
    /// of k, or a loop the compiler cut short, fails `probe`); the rates are not timed here.
    #[test]
    fn every_available_kind_is_probed_and_checked() {
        let peaks = probe_all(Duration::from_millis(2)).unwrap();
        let expected = [KernelKind::Avx512, KernelKind::Avx2Fma]
            .into_iter()
            .filter(|k| k.available())
            .count()
            * 2;
        assert_eq!(peaks.len(), expected);
        for p in &peaks {
            assert!(
                p.fma_loop > 0.0 && p.in_l1 > 0.0 && p.a_block > 0.0,
                "{p:?}"
            );
            assert!(
                p.kc_l1 % 8 == 0 && p.kc_l1 >= 16 && p.mc % p.mr == 0,
                "{p:?}"
            );
        }
    }

    /// The check itself: a kernel fed a wrong depth is caught.
    #[test]
    fn a_wrong_tile_is_reported() {
        let Some(mut mk) = [KernelKind::Avx512, KernelKind::Avx2Fma]
            .into_iter()
            .filter(|k| k.available())
            .find_map(<f64 as GemmElem>::kernel)
        else {
            return;
        };
        // An instance with fewer rows writes only part of the tile: the rows it leaves are zero.
        mk.f = mk.small[0].1;
        let e = kernel_rate(&mk, 32, 1, Duration::from_millis(1)).unwrap_err();
        assert!(e.contains("kernel gave"), "{e}");
    }
}
