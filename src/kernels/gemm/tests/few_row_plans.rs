//! The few-row plans (`few_rows`): B packed a group of panels at a time under each machine's
//! group plan, A's slices beside it, and B streamed by rows (`fewmat`).

use super::*;

thread_local! {
    /// Overrides the machine's `GroupPlan` for few-row products this thread starts.
    pub(in crate::kernels::gemm) static FORCE_GROUP_PLAN: std::cell::Cell<Option<GroupPlan>> =
        const { std::cell::Cell::new(None) };
}

thread_local! {
    /// Overrides whether few-row products this thread starts take B as streamed from memory.
    pub(in crate::kernels::gemm) static FORCE_FROM_MEMORY: std::cell::Cell<Option<bool>> =
        const { std::cell::Cell::new(None) };
}

/// Few-row products packing B a group of panels at a time, under the plan of each kind of cache (an
/// AMD L2 of 16 ways, of 8 ways, Intel's) for each kernel, with every order of copying B (row
/// runs with the next group asked for, eight-row strips asked ahead or not) forced on each, and
/// B taken as read from cache or streamed from memory (where groups of page runs take over on
/// the plans that have them): several groups and a partial last one, a partial last panel,
/// several slices of k, B in place, transposed and converted, on every kernel this machine runs.
#[test]
fn few_row_groups_match_naive_under_every_group_plan() {
    use Store::*;
    for (vendor, l2_ways) in [(Vendor::Amd, 16), (Vendor::Amd, 8), (Vendor::Intel, 16)] {
        let caches = Caches {
            vendor,
            l2_ways,
            ..DEFAULT
        };
        for kern in MicroKernel::<f32>::available() {
            let own = GroupPlan::for_caches(&caches, 4, kern.nr);
            for (order, from_memory) in [
                (BOrder::RowRuns, false),
                (BOrder::Strips, false),
                (BOrder::StripsUnasked, false),
                (own.order, true),
            ] {
                let plan = GroupPlan {
                    prefetch_next: order == BOrder::RowRuns,
                    order,
                    ..own
                };
                FORCE_GROUP_PLAN.with(|f| f.set(Some(plan)));
                FORCE_FROM_MEMORY.with(|f| f.set(Some(from_memory)));
                // (96 rows 1300 deep: where 96 rows 512 deep would take over a quarter of L2, as
                // AVX2's F32 ones do in an L2 under 768 KiB, slices thinner than the kernel's.)
                for shape in [
                    (20, 1100, 300),
                    (64, 40 * kern.nr + 3, 700),
                    (90, 2100, 65),
                    (96, 9 * kern.nr + 5, 1300),
                ] {
                    for sb in [RowMajor, ColMajor, Converted] {
                        check_plan(&kern, shape, RowMajor, sb);
                    }
                }
            }
        }
    }
    FORCE_GROUP_PLAN.with(|f| f.set(None));
    FORCE_FROM_MEMORY.with(|f| f.set(None));
}

/// Which few-row products copy B in row runs with the next group asked for: 4-byte accumulators
/// in 64-byte panel rows (AVX2's F32) on an AMD L2 of 16 ways, as measured on a Zen 5; F64, the
/// 512-bit kernels' panels, an 8-way L2 and Intel's take the strips.
#[test]
fn few_row_plans_stream_only_f32_in_one_line_panels_on_a_16_way_amd_l2() {
    let plan = |vendor, l2_ways, elem, nr| {
        let c = Caches {
            vendor,
            l2_ways,
            ..DEFAULT
        };
        let p = GroupPlan::for_caches(&c, elem, nr);
        assert_eq!(p.order == BOrder::RowRuns, p.prefetch_next);
        p.order == BOrder::RowRuns
    };
    assert!(plan(Vendor::Amd, 16, 4, 16));
    assert!(!plan(Vendor::Amd, 16, 4, 32));
    assert!(!plan(Vendor::Amd, 16, 8, 8));
    assert!(!plan(Vendor::Amd, 16, 8, 16));
    assert!(!plan(Vendor::Amd, 8, 4, 16));
    assert!(!plan(Vendor::Intel, 16, 4, 16));
}

/// Groups of page runs for a B from memory only on AMD's 8-way L2s of 1 MiB or more (Zen 4, as
/// measured there), for every kernel and type; not on a 16-way one (Zen 5), a 512 KiB one (Zen
/// 3) or Intel's.
#[test]
fn few_row_page_runs_only_on_an_8_way_amd_l2_of_1_mib() {
    let plan = |vendor, l2_ways, l2, elem, nr| {
        let c = Caches {
            vendor,
            l2_ways,
            l2,
            ..DEFAULT
        };
        GroupPlan::for_caches(&c, elem, nr).page_runs
    };
    for (elem, nr) in [(4, 16), (4, 32), (8, 8), (8, 16)] {
        assert!(plan(Vendor::Amd, 8, 1 << 20, elem, nr));
        assert!(!plan(Vendor::Amd, 8, 512 << 10, elem, nr));
        assert!(!plan(Vendor::Amd, 16, 1 << 20, elem, nr));
        assert!(!plan(Vendor::Intel, 16, 2 << 20, elem, nr));
        assert!(!plan(Vendor::Intel, 8, 1 << 20, elem, nr));
    }
}

/// All of a few-row product's A packed next to B's groups: a quarter of L2 at most (or 64
/// deep), never deeper than the kernel's slice, and the slices of k equal.
#[test]
fn few_rows_pack_a_slices_into_a_quarter_of_l2() {
    let l2 = 512 << 10;
    // 64 f64 rows (Zen 3): 512 deep would be half of L2; 256 is a quarter.
    assert_eq!(few_rows::packed_a_depth(512, 4096, 64, 8, l2), 256);
    // 64 f32 rows fit 512 deep; so do 64 f64 rows in 2 MiB (a Xeon's L2).
    assert_eq!(few_rows::packed_a_depth(512, 4096, 64, 4, l2), 512);
    assert_eq!(few_rows::packed_a_depth(512, 4096, 64, 8, 4 * l2), 512);
    for (kc, k, rows, elem) in [
        (512usize, 1300usize, 96usize, 4usize),
        (512, 1000, 96, 8),
        (300, 300, 90, 8),
        (512, 5000, 4096, 8),
        (1, 1, 1, 1),
    ] {
        let d = few_rows::packed_a_depth(kc, k, rows, elem, l2);
        assert!((1..=kc).contains(&d), "{kc} {k} {rows} {elem}: {d}");
        assert!(
            d == kc || rows * elem * d <= l2 / 4 || d <= 64,
            "{kc} {k} {rows}: {d}"
        );
        let slices = k.div_ceil(d);
        assert!(slices * d - k < slices, "unequal slices: {k} by {d}");
    }
}

thread_local! {
    /// Overrides `few_rows::fewmat_here` for products this thread starts.
    pub(in crate::kernels::gemm) static FORCE_FEWMAT: std::cell::Cell<Option<bool>> =
        const { std::cell::Cell::new(None) };
}

/// `few_rows::fewmat` on its own (one thread and every thread the pool has), for every row
/// count it takes, columns that end in a partial vector and in single elements, sweeps wider
/// and narrower than its column block, k shorter than a pass and not a whole number of passes,
/// and A read through tables that are no progression; C starts at NaN, so an element it did not
/// write would show.
#[test]
fn few_rows_streamed_by_rows_match_naive() {
    fn check<T: GemmElem + Into<f64> + From<i8> + PartialEq + std::fmt::Debug>(
        f: simd::FewMatFn<T>,
        nan: T,
    ) {
        for &(k, n) in &[(3, 37), (9, 300), (131, 517), (700, 35)] {
            for m in 2..=few_rows::FEWMAT_ROWS {
                let av: Vec<T> = (0..m * k)
                    .map(|i| T::from((i * 7919 % 13) as i8 - 6))
                    .collect();
                let bv: Vec<T> = (0..k * n)
                    .map(|i| T::from((i * 104729 % 11) as i8 - 5))
                    .collect();
                let (ar, ac) = tables(m, k, Store::Reversed);
                let a = Converted::new(
                    MatRef {
                        data: &av,
                        base: 0,
                        rows: &ar,
                        cols: &ac,
                    },
                    |x: T| x,
                );
                let own = (
                    &bv[..],
                    Strided {
                        origin: 0,
                        rs: n,
                        cs: 1,
                    },
                );
                for threads in [1, crate::kernels::pool::threads()] {
                    let mut c = vec![MaybeUninit::new(nan); m * n];
                    few_rows::fewmat(f, &a, own, (k, n), &mut c, threads);
                    for i in 0..m {
                        for j in 0..n {
                            // Row i of A is row m-1-i of `av` (the reversed tables).
                            let want: f64 = (0..k)
                                .map(|p| av[(m - 1 - i) * k + p].into() * bv[p * n + j].into())
                                .sum();
                            // SAFETY: NaN-initialised, then (re)written by `fewmat`.
                            let got: f64 = unsafe { c[i * n + j].assume_init() }.into();
                            assert_eq!(got, want, "{m}x{n}x{k} threads {threads} at ({i}, {j})");
                        }
                    }
                }
            }
        }
    }
    let kernels32 = MicroKernel::<f32>::available();
    let kernels64 = MicroKernel::<f64>::available();
    let (f32s, f64s): (Vec<_>, Vec<_>) = (
        kernels32.iter().filter_map(|k| k.fewmat).collect(),
        kernels64.iter().filter_map(|k| k.fewmat).collect(),
    );
    // The AVX2 kernels have one; a machine with AVX2 must run it here.
    if MicroKernel::<f32>::available()
        .iter()
        .any(|k| k.kind == KernelKind::Avx2Fma)
    {
        assert!(!f32s.is_empty() && !f64s.is_empty());
    }
    for f in f32s {
        check::<f32>(f, f32::NAN);
    }
    for f in f64s {
        check::<f64>(f, f64::NAN);
    }
}

/// `gemm` takes `fewmat` for a few rows of a B larger than half of L3 when the machine's plan
/// says so, and the packed or in-place plans when not: both give the exact product, B in place
/// (and converted, which `fewmat` cannot read in place).
#[test]
fn few_rows_of_a_streamed_b_match_naive_either_way() {
    use Store::*;
    let big = ((cache::detect().l3 / 2 / 4) as f64).sqrt() as usize + 8;
    for force in [true, false] {
        FORCE_FEWMAT.with(|f| f.set(Some(force)));
        for kern in MicroKernel::<f32>::available() {
            for m in [2, 5, 12] {
                check_plan(&kern, (m, big + 3, big), RowMajor, RowMajor);
            }
            check_plan(&kern, (7, big, big), RowMajor, Converted);
        }
    }
    FORCE_FEWMAT.with(|f| f.set(None));
}
