use super::cache::{Caches, DEFAULT, Vendor};
use super::few_rows::GroupPlan;
use super::*;

mod few_row_plans;
pub(super) use few_row_plans::{FORCE_FEWMAT, FORCE_FROM_MEMORY, FORCE_GROUP_PLAN};

fn naive(m: usize, n: usize, k: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

/// Row-major `a[m x k] * b[k x n]` through `gemm`.
fn row_major<T: GemmElem>(
    kern: &MicroKernel<T>,
    dims: (usize, usize, usize),
    a: &[T],
    b: &[T],
) -> Vec<T> {
    let (m, n, k) = dims;
    let (ar, ac) = row_major_tables(m, k);
    let (br, bc) = row_major_tables(k, n);
    let mut c = vec![T::zero(); m * n];
    gemm(
        kern,
        MatRef {
            data: a,
            base: 0,
            rows: &ar,
            cols: &ac,
        },
        MatRef {
            data: b,
            base: 0,
            rows: &br,
            cols: &bc,
        },
        |x| x,
        |x| x,
        &mut c,
    );
    c
}

fn check_f32(kernel: &MicroKernel<f32>, m: usize, n: usize, k: usize) {
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 104729) % 11) as f32 - 5.0)
        .collect();
    let c = row_major(kernel, (m, n, k), &a, &b);
    let ran = kernel.kind;
    let a64: Vec<f64> = a.iter().map(|&x| x as f64).collect();
    let b64: Vec<f64> = b.iter().map(|&x| x as f64).collect();
    let want = naive(m, n, k, &a64, &b64);
    // Small integers: every partial sum is exact, so any order gives the same answer.
    for (i, (&g, &w)) in c.iter().zip(&want).enumerate() {
        assert_eq!(
            g as f64,
            w,
            "kernel {} m={m} n={n} k={k} at {i}",
            ran.name()
        );
    }
}

/// How an operand is stored and read in `every_plan_matches_naive`.
#[derive(Clone, Copy, Debug)]
enum Store {
    /// Row-major, read in place where a plan can.
    RowMajor,
    /// Column-major: the tables of a transposed view.
    ColMajor,
    /// Row-major with its rows listed in reverse: tables that are no progression.
    Reversed,
    /// Held as f64 and converted: never read in place by an f32 kernel.
    Converted,
}

/// Offsets of a `rows x cols` matrix stored as `st` (element (i, j) at `base + r[i] + c[j]`).
fn tables(rows: usize, cols: usize, st: Store) -> (Vec<usize>, Vec<usize>) {
    match st {
        Store::RowMajor | Store::Converted => row_major_tables(rows, cols),
        Store::ColMajor => ((0..rows).collect(), (0..cols).map(|j| j * rows).collect()),
        Store::Reversed => (
            (0..rows).rev().map(|i| i * cols).collect(),
            (0..cols).collect(),
        ),
    }
}

/// `a[m x k] * b[k x n]` with the operands stored as given, against the naive sum (small
/// integers, so every order of summation gives the same f32).
fn check_plan(kern: &MicroKernel<f32>, (m, n, k): (usize, usize, usize), sa: Store, sb: Store) {
    let av: Vec<f64> = (0..m * k).map(|i| ((i * 7919) % 13) as f64 - 6.0).collect();
    let bv: Vec<f64> = (0..k * n)
        .map(|i| ((i * 104729) % 11) as f64 - 5.0)
        .collect();
    let (ar, ac) = tables(m, k, sa);
    let (br, bc) = tables(k, n, sb);
    let a32: Vec<f32> = av.iter().map(|&x| x as f32).collect();
    let b32: Vec<f32> = bv.iter().map(|&x| x as f32).collect();
    // Stale contents: every plan must write each element of C before reading it (`gemm_into`
    // hands it memory that was never initialised), and a NaN read would show in the result.
    let mut c = vec![f32::NAN; m * n];
    let a64 = MatRef {
        data: &av,
        base: 0,
        rows: &ar,
        cols: &ac,
    };
    let b64 = MatRef {
        data: &bv,
        base: 0,
        rows: &br,
        cols: &bc,
    };
    let a = MatRef {
        data: &a32,
        base: 0,
        rows: &ar,
        cols: &ac,
    };
    let b = MatRef {
        data: &b32,
        base: 0,
        rows: &br,
        cols: &bc,
    };
    match (sa, sb) {
        (Store::Converted, Store::Converted) => {
            gemm(kern, a64, b64, |x| x as f32, |x| x as f32, &mut c)
        }
        (Store::Converted, _) => gemm(kern, a64, b, |x| x as f32, |x| x, &mut c),
        (_, Store::Converted) => gemm(kern, a, b64, |x| x, |x| x as f32, &mut c),
        _ => gemm(kern, a, b, |x| x, |x| x, &mut c),
    };
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|p| a64.at(i, p) * b64.at(p, j)).sum();
            assert_eq!(
                c[i * n + j] as f64,
                want,
                "kernel {} {m}x{n}x{k} A {sa:?} B {sb:?} at ({i}, {j})",
                kern.kind.name()
            );
        }
    }
}

/// Every plan `gemm` chooses (one row: vector-matrix, split by columns, or by rows of B
/// when B streams from memory; a few rows: columns split, B in place
/// or packed per panel, in slices when B streams from memory (packed from
/// `GroupPlan::packed_from` rows on, and past two tiles); at most 8 columns: row dots,
/// or the transposed product when A cannot be read in place; the rest: rows split, B packed
/// by rows), on every kernel this machine runs, with operands in place, transposed, read
/// through tables that are no progression, and converted.
#[test]
fn every_plan_matches_naive() {
    use Store::*;
    let stores = [RowMajor, ColMajor, Reversed, Converted];
    // B larger than half of L3 makes a few-row product stream it in slices.
    let big = ((cache::detect().l3 / 2 / 4) as f64).sqrt() as usize + 8;
    let shapes = [
        (1, 300, 77),
        (1, 5, 3),
        (3, 100, 50),
        (9, 700, 600),
        (2, big, big),
        // Streamed from memory: 8 rows in place or packed (by vendor), 25 packed (past two
        // tiles of every kernel).
        (8, big, big),
        (25, big, big),
        (1, big, big),
        (100, 1, 300),
        (50, 3, 70),
        (33, 8, 129),
        (700, 5, 900),
        (301, 9, 50),
        (64, 200, 513),
        (129, 130, 131),
        (130, 64, 77),
        (70, 17, 40),
        (96, 300, 65),
        // Two tiles of 8 rows; B packed a group of panels at a time, several
        // groups and a partial panel; row dots for many empty lanes (33 and 24 columns of
        // 32-wide tiles), and not for 32 columns.
        (16, 256, 256),
        // Up to 16 rows of a B in half of L2, read in place past two tiles.
        (14, 70, 100),
        (20, 1100, 300),
        (40, 33, 2100),
        (200, 24, 30),
        (200, 32, 30),
        // No shared dimension: zeros, written.
        (9, 4, 0),
        (40, 50, 0),
    ];
    for kern in MicroKernel::<f32>::available() {
        for &shape in &shapes {
            for sa in stores {
                for sb in stores {
                    // The big shape only in place (it is there for the streamed plan).
                    if shape.1 == big && !matches!((sa, sb), (RowMajor, RowMajor)) {
                        continue;
                    }
                    check_plan(&kern, shape, sa, sb);
                }
            }
        }
    }
}

thread_local! {
    /// Overrides `pool::cores_far` for products this thread starts (`far_split_matches_naive`).
    pub(super) static FORCE_FAR: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// The column split `by_rows` takes when the cores share no L3 (each task all row blocks, its
/// own B groups): several row blocks, several slices of k, a partial last panel and, at 1100
/// columns, more than one `nc` block on the smaller caches; A and B in place, transposed and
/// converted. Needs two kernel threads (one never splits); with one it says so and passes.
#[test]
fn far_split_matches_naive() {
    use Store::*;
    if crate::kernels::pool::threads() < 2 {
        eprintln!("far_split_matches_naive: one kernel thread here, nothing to split");
        return;
    }
    FORCE_FAR.with(|f| f.set(Some(true)));
    for kern in MicroKernel::<f32>::available() {
        for shape in [
            (300, 16 * kern.nr + 5, 700),
            (1000, 1100, 40),
            (97, 16 * kern.nr, 33),
        ] {
            for (sa, sb) in [
                (RowMajor, RowMajor),
                (ColMajor, Reversed),
                (Converted, RowMajor),
            ] {
                check_plan(&kern, shape, sa, sb);
            }
        }
    }
    FORCE_FAR.with(|f| f.set(None));
}

/// The packing's gather (the SSE transposition for F32, four rows by four columns, and
/// the scalar loop for other types and the last columns) puts `rows[i][j]` at
/// `dst[j * dj + i]` and writes nothing else.
#[test]
fn gathered_panels_are_the_rows_side_by_side() {
    fn check<T: Copy + PartialEq + std::fmt::Debug + 'static>(of: fn(usize) -> T, fill: T) {
        for h in [4usize, 6, 8, 12, 16, 32, 5] {
            for w in [0usize, 1, 3, 4, 5, 15, 16, 17, 33, 64] {
                let data: Vec<T> = (0..h * 70).map(of).collect();
                let runs: Vec<&[T]> = (0..h).map(|i| &data[i * 70 + 2..i * 70 + 2 + w]).collect();
                // Panels exactly `h` wide (the packed A panels, contiguous columns) and wider.
                for dj in [h, h + 3] {
                    let mut dst = vec![fill; w * dj + h];
                    gather(&runs, w, &mut dst, dj, &|x| x);
                    for (o, &x) in dst.iter().enumerate() {
                        let (j, i) = (o / dj, o % dj);
                        let want = if j < w && i < h {
                            data[i * 70 + 2 + j]
                        } else {
                            fill
                        };
                        assert_eq!(x, want, "h {h} w {w} dj {dj} at {o}");
                    }
                }
            }
        }
    }
    check(|i| i as f32 + 0.5, -1.0f32);
    check(|i| i as f64 + 0.5, -1.0f64);
    check(|i| i as i64, -1i64);
}

/// `edge` picks the smallest smaller instance that covers a short tile, none for a full one
/// or where no smaller instance covers it.
#[test]
fn short_tiles_take_the_smallest_instance_that_covers_them() {
    for kern in MicroKernel::<f32>::available() {
        let smaller: Vec<usize> = kern
            .small
            .iter()
            .map(|&(mr, _)| mr)
            .filter(|&mr| mr < kern.mr)
            .collect();
        for h in 1..=kern.mr {
            let want = smaller.iter().copied().find(|&mr| mr >= h);
            assert_eq!(
                kern.edge(h).map(|e| e.0),
                want,
                "{} h {h}",
                kern.kind.name()
            );
            assert_eq!(kern.panel_mr(h), want.unwrap_or(kern.mr));
        }
    }
    if let Some(k) = MicroKernel::<f32>::available()
        .into_iter()
        .find(|k| k.kind == KernelKind::Avx2Fma)
    {
        let heights: Vec<Option<usize>> = (1..=6).map(|h| k.edge(h).map(|e| e.0)).collect();
        assert_eq!(heights, [Some(1), Some(2), Some(4), Some(4), None, None]);
    }
}

/// Short last tiles of every height, run by the smaller instances, in row blocks that are
/// whole tiles and in equal ones that are not: every kernel, against the naive sum.
#[test]
fn short_tiles_and_uneven_row_blocks_match_naive() {
    let threads = crate::kernels::pool::threads();
    for kernel in MicroKernel::<f32>::available() {
        let mut uneven = false;
        for m in 97..=97 + 2 * kernel.mr {
            for tiles in [2, 3] {
                let kern = MicroKernel {
                    mc: tiles * kernel.mr,
                    ..kernel
                };
                let h = row_block(m, kern.mc, kern.mr, threads, rounds_down(), &|r| {
                    kern.edge(r).is_some()
                });
                uneven |= !h.is_multiple_of(kern.mr);
                check_f32(&kern, m, 50, 41);
            }
        }
        assert!(
            uneven || threads == 1 || kernel.small.is_empty(),
            "{}: no uneven blocks",
            kernel.kind.name()
        );
    }
}

#[test]
fn caches_give_block_sizes_in_whole_tiles() {
    for vendor in [Vendor::Amd, Vendor::Intel, Vendor::Other] {
        for c in [
            DEFAULT,
            Caches {
                l1d: 48 << 10,
                l2: 2 << 20,
                l3: 105 << 20,
                l1d_ways: 12,
                l2_ways: 16,
                source: "test",
                vendor,
            },
            Caches {
                l1d: 4 << 10,
                l2: 64 << 10,
                l3: 64 << 10,
                l1d_ways: 4,
                l2_ways: 4,
                source: "test",
                vendor,
            },
        ] {
            let c = Caches { vendor, ..c };
            for (mr, nr, elem) in [(12, 32, 4), (6, 16, 4), (12, 16, 8), (4, 4, 8)] {
                let b = Blocks::for_caches(&c, mr, nr, elem, 2);
                assert!(b.kc >= 64 && b.kc.is_multiple_of(8), "{c:?} {b:?}");
                assert!(b.mc >= mr && b.mc.is_multiple_of(mr), "{c:?} {b:?}");
                assert!(b.nc >= nr && b.nc.is_multiple_of(nr), "{c:?} {b:?}");
            }
        }
    }
    // AMD: the B micro-panel fills twice L1 (up to the cap); the A block and one B micro-panel
    // fit in L2, and take more than half of it.
    let amd = Caches {
        vendor: Vendor::Amd,
        ..DEFAULT
    };
    let b = Blocks::for_caches(&amd, 12, 32, 4, 2);
    assert_eq!(b.kc, 2 * DEFAULT.l1d / (32 * 4));
    assert!(b.mc * b.kc * 4 + b.kc * 32 * 4 <= DEFAULT.l2);
    assert!(b.mc * b.kc * 4 > DEFAULT.l2 / 2);
    // 8-byte elements on the 512-bit kernels go twice as deep, with MC and NC counted at the
    // shallower depth: on the measured Zen 4 (32 KiB L1, 1 MiB L2, 32 MiB L3), AVX-512 F64 KC
    // 1024 MC 240 NC 2048; AVX2 F64 and F32 unchanged.
    let zen4 = Caches {
        l3: 32 << 20,
        ..amd
    };
    let blocks = |mr, nr, elem| {
        let b = Blocks::for_caches(&zen4, mr, nr, elem, 2);
        (b.kc, b.mc, b.nc)
    };
    assert_eq!(blocks(12, 16, 8), (1024, 240, 2048));
    assert_eq!(blocks(6, 8, 8), (512, 246, 2048));
    assert_eq!(blocks(12, 32, 4), (512, 480, 4096));
    assert_eq!(blocks(6, 16, 4), (512, 492, 4096));
    // Elsewhere: the B micro-panel fills half of L1 (rows of one line) or twice L1 (wider
    // rows, up to the cap), the A block at most a quarter of L2, within one tile of it. On the
    // measured Xeon (48 KiB L1, 2 MiB L2), AVX-512 gets KC 512 and MC 252 for F32 and 120 for
    // F64, AVX2 KC 384 and MC 336 for F32 and 168 for F64.
    for c in [
        DEFAULT,
        Caches {
            l1d: 48 << 10,
            l2: 2 << 20,
            vendor: Vendor::Intel,
            ..DEFAULT
        },
    ] {
        for (mr, nr, elem) in [(12, 32, 4), (6, 16, 4), (12, 16, 8), (6, 8, 8)] {
            let b = Blocks::for_caches(&c, mr, nr, elem, 2);
            let panel = if nr * elem <= 64 {
                c.l1d / 2
            } else {
                2 * c.l1d
            };
            assert_eq!(b.kc, (panel / (nr * elem)).min(512), "{c:?}");
            let room = c.l2 / 4;
            assert!(b.mc * b.kc * elem <= room, "{c:?} {b:?}");
            assert!((b.mc + mr) * b.kc * elem > room, "{c:?} {b:?}");
        }
    }
    // The B block in at most twice L2 there for 4-byte elements, four times for 8-byte ones
    // (L3 counted as 64 MiB for its two CPUs).
    let xeon = Caches {
        l1d: 48 << 10,
        l2: 2 << 20,
        l3: 64 << 20,
        vendor: Vendor::Intel,
        ..DEFAULT
    };
    let blocks = |mr, nr, elem, threads| {
        let b = Blocks::for_caches(&xeon, mr, nr, elem, threads);
        (b.kc, b.mc, b.nc)
    };
    assert_eq!(blocks(12, 16, 8, 2), (512, 120, 2048));
    assert_eq!(blocks(12, 32, 4, 2), (512, 252, 2048));
    assert_eq!(blocks(6, 8, 8, 2), (384, 168, 2728));
    assert_eq!(blocks(6, 16, 4, 2), (384, 336, 2720));
    // Each thread's share of the B block: one thread, half the columns.
    assert_eq!(blocks(12, 16, 8, 1), (512, 120, 1024));
    assert_eq!(blocks(12, 32, 4, 1), (512, 252, 1024));
    assert_eq!(blocks(6, 8, 8, 1), (384, 168, 1360));
}

#[test]
fn tables_that_are_progressions_are_recognised() {
    assert_eq!(progression(&[]), None);
    assert_eq!(progression(&[7]), Some((7, 0)));
    assert_eq!(progression(&[3, 5, 7, 9]), Some((3, 2)));
    assert_eq!(progression(&[4, 4, 4]), Some((4, 0)));
    assert_eq!(progression(&[3, 5, 8]), None);
    assert_eq!(progression(&[9, 5, 1]), None);
    // Long tables (the vectorised check), with one element off anywhere.
    let long: Vec<usize> = (0..1000).map(|i| 17 + 3 * i).collect();
    assert_eq!(progression(&long), Some((17, 3)));
    for bad in [2, 500, 998, 999] {
        let mut t = long.clone();
        t[bad] += 1;
        assert_eq!(progression(&t), None, "element {bad} off");
    }
    // Terms at the top of usize, and a step whose later terms would overflow.
    assert_eq!(
        progression(&[usize::MAX - 1, usize::MAX]),
        Some((usize::MAX - 1, 1))
    );
    let half = usize::MAX / 2 + 1;
    assert_eq!(progression(&[0, half, 0]), None);
}

#[test]
fn block_override_parses_three_positive_sizes_only() {
    assert_eq!(parse_blocks("192,288,4096"), Some((192, 288, 4096)));
    assert_eq!(parse_blocks(" 64 , 32 ,1 "), Some((64, 32, 1)));
    for bad in [
        "",
        "1,2",
        "1,2,3,4",
        "0,1,1",
        "a,b,c",
        "-1,2,3",
        "1,2,99999999",
    ] {
        assert_eq!(parse_blocks(bad), None, "{bad:?}");
    }
}

#[test]
fn odd_block_sizes_still_compute_the_product() {
    // Blocks smaller than a tile, and not multiples of it, only change the loop bounds.
    let kernel = MicroKernel::<f64>::best();
    for (kc, mc, nc) in [(1, 1, 1), (5, 7, 3), (33, 100, 17)] {
        let k = MicroKernel {
            kc,
            mc,
            nc,
            ..kernel
        };
        let (m, n, kk) = (19, 23, 37);
        let a: Vec<f64> = (0..m * kk).map(|i| (i % 7) as f64 - 3.0).collect();
        let b: Vec<f64> = (0..kk * n).map(|i| (i % 5) as f64 - 2.0).collect();
        assert_eq!(row_major(&k, (m, n, kk), &a, &b), naive(m, n, kk, &a, &b));
    }
    // Large enough for the threads (more than SMALL_PRODUCT): several column blocks with a
    // partial last panel, several slices of k and row blocks, so that the tasks pack B's
    // panel groups for each other.
    let nr = kernel.nr;
    for (kc, mc, nc) in [(40, 3 * kernel.mr, 3 * nr + 5), (64, 2 * kernel.mr, 8 * nr)] {
        let k = MicroKernel {
            kc,
            mc,
            nc,
            ..kernel
        };
        let (m, n, kk) = (150, 9 * nr + 7, 130);
        assert!(m * n * kk > SMALL_PRODUCT);
        let a: Vec<f64> = (0..m * kk).map(|i| (i % 7) as f64 - 3.0).collect();
        let b: Vec<f64> = (0..kk * n).map(|i| (i % 5) as f64 - 2.0).collect();
        assert_eq!(row_major(&k, (m, n, kk), &a, &b), naive(m, n, kk, &a, &b));
    }
}

#[test]
fn every_available_f32_kernel_matches_naive() {
    for kern in MicroKernel::<f32>::available() {
        eprintln!("gemm f32 kernel that ran: {}", kern.kind.name());
        for &(m, n, k) in &[
            (1, 1, 1),
            (13, 33, 7),
            (67, 65, 300),
            (300, 70, 3),
            (5, 1, 9),
        ] {
            check_f32(&kern, m, n, k);
        }
    }
}

/// Products with a few column panels and enough rows for row blocks read A in place
/// (`by_rows`, `MicroKernel::rows`): every kernel, A contiguous and as a block of a wider
/// matrix (rows `lda` apart, an offset origin), several slices of k, a last row tile shorter
/// than the kernel's (packed) and a last panel narrower than `nr` (through `tmp`).
#[test]
fn products_reading_a_in_place_match_naive() {
    fn check<T: GemmElem + Into<f64> + From<i8> + PartialEq + std::fmt::Debug>(
        kern: MicroKernel<T>,
    ) {
        assert!(kern.rows.is_some(), "{}", kern.kind.name());
        let kern = MicroKernel { kc: 96, ..kern };
        let nr = kern.nr;
        // The last two are rows a page or more apart, which the F32 kernels ask for ahead (k
        // not a whole number of cache lines).
        for (m, n, k, lda, origin) in [
            (211, 3 * nr + nr / 2 + 1, 700, 700, 0),
            (150, nr, 301, 301, 0),
            (203, 2 * nr + 1, 257, 263, 5),
            (130, 7 * nr + 3, 200, 205, 3),
            (40, 2 * nr + 3, 1100, 1100, 0),
            (27, nr + 1, 1031, 1040, 7),
        ] {
            assert!(n > nr / 2 && n <= DIRECT_A_PANELS * nr);
            // Small integers less an offset, exact in either type.
            let of = |v: usize, less: i8| T::from(v as i8 - less);
            let data: Vec<T> = (0..origin + m * lda).map(|i| of((i * 31) % 9, 4)).collect();
            let a: Vec<f64> = (0..m * k)
                .map(|x| data[origin + (x / k) * lda + x % k].into())
                .collect();
            let b: Vec<T> = (0..k * n).map(|i| of((i * 17) % 7, 3)).collect();
            let b64: Vec<f64> = b.iter().map(|&x| x.into()).collect();
            let rows: Vec<usize> = (0..m).map(|i| i * lda).collect();
            let cols: Vec<usize> = (0..k).collect();
            let (br, bc) = row_major_tables(k, n);
            let mut c = vec![T::zero(); m * n];
            gemm(
                &kern,
                MatRef {
                    data: &data,
                    base: origin,
                    rows: &rows,
                    cols: &cols,
                },
                MatRef {
                    data: &b,
                    base: 0,
                    rows: &br,
                    cols: &bc,
                },
                |x| x,
                |x| x,
                &mut c,
            );
            let got: Vec<f64> = c.iter().map(|&x| x.into()).collect();
            assert_eq!(
                got,
                naive(m, n, k, &a, &b64),
                "kernel {} {m}x{n}x{k} lda {lda}",
                kern.kind.name()
            );
        }
    }
    MicroKernel::<f64>::available().into_iter().for_each(check);
    MicroKernel::<f32>::available().into_iter().for_each(check);
}

/// A source that asks `by_rows` for row-major blocks (as the convolution's patches do).
struct ByRows<'a>(Converted<'a, f64, fn(f64) -> f64>);

impl PackA<f64> for ByRows<'_> {
    fn rows(&self) -> usize {
        self.0.rows()
    }
    fn cols(&self) -> usize {
        self.0.cols()
    }
    fn pack(&self, r0: usize, h: usize, pc: usize, kcb: usize, mr: usize, panel: &mut [f64]) {
        self.0.pack(r0, h, pc, kcb, mr, panel)
    }
    fn packs_rows(&self) -> bool {
        true
    }
    fn pack_rows(&self, r0: usize, h: usize, pc: usize, kcb: usize, panel: &mut [f64]) {
        self.0.pack_rows(r0, h, pc, kcb, panel)
    }
}

#[test]
fn products_of_row_major_blocks_match_naive() {
    for kern in MicroKernel::<f64>::available() {
        let kern = MicroKernel {
            kc: 96,
            mc: 5 * kern.mr,
            ..kern
        };
        // Rows not a whole number of tiles (a short last tile in every block), k in slices
        // with a thinner last one, columns with a partial panel, through tables (a transposed
        // A) and in place.
        for (m, n, k, transposed) in [
            (211, 3 * kern.nr + 1, 250, false),
            (150, kern.nr, 97, true),
            (20 * kern.mr + 3, 2 * kern.nr - 1, 300, false),
        ] {
            let a: Vec<f64> = (0..m * k).map(|i| ((i * 31) % 9) as f64 - 4.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| ((i * 17) % 7) as f64 - 3.0).collect();
            let at: Vec<f64> = (0..m * k).map(|x| a[(x % m) * k + x / m]).collect();
            let (rows, cols) = if transposed {
                ((0..m).collect(), (0..k).map(|p| p * m).collect())
            } else {
                row_major_tables(m, k)
            };
            let (br, bc) = row_major_tables(k, n);
            let src = ByRows(Converted::new(
                MatRef {
                    data: if transposed { &at } else { &a },
                    base: 0,
                    rows: &rows,
                    cols: &cols,
                },
                (|x| x) as fn(f64) -> f64,
            ));
            let b = MatRef {
                data: &b,
                base: 0,
                rows: &br,
                cols: &bc,
            };
            let mut c = vec![f64::NAN; m * n];
            gemm_packed(&kern, &src, b, |x| x, &mut c);
            assert_eq!(
                c,
                naive(m, n, k, &a, b.data),
                "kernel {} {m}x{n}x{k} transposed {transposed}",
                kern.kind.name()
            );
        }
    }
}

#[test]
fn every_available_f64_kernel_matches_naive() {
    for kern in MicroKernel::<f64>::available() {
        eprintln!("gemm f64 kernel that ran: {}", kern.kind.name());
        // k of 2000: two slices of 1000 with the 512-bit kernels' deep F64 slices on AMD
        // (`Blocks::for_caches`), four of 500 elsewhere; 200 rows take the row-block plan.
        for &(m, n, k) in &[(1, 1, 1), (25, 17, 9), (50, 41, 260), (200, 70, 2000)] {
            let a: Vec<f64> = (0..m * k).map(|i| ((i * 31) % 9) as f64 - 4.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| ((i * 17) % 7) as f64 - 3.0).collect();
            let c = row_major(&kern, (m, n, k), &a, &b);
            assert_eq!(c, naive(m, n, k, &a, &b), "kernel {}", kern.kind.name());
        }
    }
}

#[test]
fn this_machine_has_a_vector_kernel_when_the_cpu_says_so() {
    let best = MicroKernel::<f32>::best();
    eprintln!("best f32 kernel here: {}", best.kind.name());
    if KernelKind::Avx512.available() && std::env::var("XLA_SPEC_GEMM_KERNEL").is_err() {
        assert_eq!(best.kind, KernelKind::Avx512);
    }
}

/// The first tiles of a row block ask for the next B panel a piece each, in order, until every
/// line of it is asked for; later tiles, a missing panel and slices of k too short for the
/// early loop ask for nothing.
#[test]
fn next_panel_pieces_cover_the_panel_once() {
    let base = 0x1000 as *const f64;
    // F64, KC 512, 16 columns: 1024 lines, 224 a tile (two per trip of the 112 before C_AHEAD).
    assert_eq!(simd::next_panel_lines(512), 224);
    let starts: Vec<usize> = (0..8)
        .map(|ip| next_piece(base, 512, 16, ip))
        .take_while(|p| !p.is_null())
        .map(|p| (p as usize - base as usize) / 64)
        .collect();
    assert_eq!(starts, [0, 224, 448, 672, 896]);
    assert!(next_piece(base, 512, 16, 5).is_null());
    // F32, KC 256, 32 columns: 512 lines, 96 a tile.
    let starts: Vec<usize> = (0..8)
        .map(|ip| next_piece(base as *const f32, 256, 32, ip))
        .take_while(|p| !p.is_null())
        .map(|p| (p as usize - base as usize) / 64)
        .collect();
    assert_eq!(starts, [0, 96, 192, 288, 384, 480]);
    assert!(next_piece(std::ptr::null::<f64>(), 512, 16, 0).is_null());
    assert_eq!(simd::next_panel_lines(64), 0);
    assert!(next_piece(base, 64, 16, 0).is_null());
}

/// B's panels packed by every copy this CPU runs (baseline, AVX2, AVX-512) are the same, and are
/// B's columns `nr` at a time, row after row: row-major B in every order (strips asked ahead or
/// not, row runs), panels of each width that has a copy of its own (4, 8, 16, 32) and of one that
/// has not (6), full and a last, narrower one, rows past a strip's end, converted on the way.
#[test]
fn b_panels_are_the_same_whichever_copy_packs_them() {
    let (rows, cols, rs) = (13usize, 75usize, 80usize);
    let data: Vec<f32> = (0..3 + rows * rs + 2 * cols)
        .map(|i| i as f32 * 0.25 - 7.0)
        .collect();
    let strided_rows: Vec<usize> = (0..rows).map(|r| 3 + r * rs).collect();
    // Rows through a table that is no progression (a convolution kernel's), with adjacent
    // columns (the row-run copy) and with columns two apart (element by element).
    let shuffled_rows: Vec<usize> = (0..rows).map(|r| 3 + (r * 7 % rows) * rs).collect();
    let unit_cols: Vec<usize> = (0..cols).collect();
    let spread_cols: Vec<usize> = (0..cols).map(|c| 2 * c).collect();
    for (rt, ct, strided) in [
        (&strided_rows, &unit_cols, true),
        (&shuffled_rows, &unit_cols, false),
        (&shuffled_rows, &spread_cols, false),
    ] {
        let b = MatRef {
            data: &data,
            base: 0,
            rows: rt,
            cols: ct,
        };
        let st = b.strided();
        assert_eq!(st.is_some(), strided);
        let (pc, kcb, jc, ncb) = (2usize, 11usize, 5usize, 69usize);
        for nr in [4usize, 6, 8, 16, 32] {
            let panels = ncb.div_ceil(nr);
            for order in [BOrder::Strips, BOrder::StripsUnasked, BOrder::RowRuns] {
                for (p0, p1) in [(0, panels), (1, panels), (0, 1)] {
                    let conv = |x: f32| f64::from(x) * 2.0;
                    let args = ((pc, kcb), (jc, ncb), (p0, p1));
                    let mut fast = vec![-1.0f64; panels * nr * kcb];
                    pack::pack_b_panels(
                        &b, st, args.0, args.1, args.2, nr, &mut fast, &conv, order,
                    );
                    for l in crate::kernels::isa::levels() {
                        let mut out = vec![-1.0f64; panels * nr * kcb];
                        pack::pack_b_panels_at(
                            l, &b, st, args.0, args.1, args.2, nr, &mut out, &conv, order,
                        );
                        assert_eq!(out, fast, "{l:?}, {order:?}, nr {nr}, panels {p0}..{p1}");
                    }
                    for q in 0..p1 - p0 {
                        let j0 = jc + (p0 + q) * nr;
                        for p in 0..kcb {
                            for j in 0..nr {
                                let want = if j0 + j < jc + ncb {
                                    conv(data[rt[pc + p] + ct[j0 + j]])
                                } else {
                                    -1.0
                                };
                                assert_eq!(
                                    fast[q * nr * kcb + p * nr + j],
                                    want,
                                    "{order:?}, nr {nr}, panel {q} row {p} col {j}, strided {strided}"
                                );
                            }
                        }
                    }
                    // Nothing past the panels asked for is written.
                    assert!(fast[(p1 - p0) * nr * kcb..].iter().all(|&x| x == -1.0));
                }
            }
        }
    }
}
