//! The row blocks of `by_rows`: how tall they are (`row_block`) and where each starts
//! (`block_starts`), so that every thread gets as many and none waits long for another at the
//! end of a step.
//!
//! Algorithm: blocks of the cache-derived `MC` rows, their count a multiple of the threads
//! (BLIS's `ic` loop, Van Zee & van de Geijn, ACM TOMS 2015); the blocks claimed last shrink
//! (guided self-scheduling, Polychronopoulos and Kuck, IEEE Trans. Computers 1987).

use super::cache;

/// The fewest rows `row_block` gives a block it adds for balance (see there).
const SPARE_BLOCK_ROWS: usize = 96;

/// Whether `row_block` may round the number of blocks down on this machine (see there).
pub(super) fn rounds_down() -> bool {
    cache::detect().vendor == cache::Vendor::Amd
}

/// The height of `by_rows`' row blocks for `m` rows: a whole number of tiles, the same number of
/// blocks for every thread, and as near the cache-derived `mc` as that allows. Rounding the
/// number of blocks up to a multiple of the threads can halve the blocks (1024 rows of 480 are
/// 3 blocks, so 4 of 256); each block then streams every B panel again, for half the work per
/// pass. So when rounding up leaves blocks under three fifths of `mc` and rounding down keeps
/// them within an eighth over it, the blocks round down. Measured side by side on Zen 5 (AVX2):
/// 512 x 512 F64 103-106 GFLOP/s in blocks of 132, 115-118 in blocks of 256 (MC 240); 1024 x
/// 1024 F32 235-241 in blocks of 256, 243-245 in blocks of 512 (MC 480); 2048 F32 was faster
/// in blocks of 342 (three fifths up) than of 512 (260 against 254).
///
/// Only on AMD (`rounds_down`): on a Xeon (family 6, model 207), 512 x 512 F64 on two threads
/// (AVX-512, MC 252) ran at 0.90-0.97 of OpenBLAS in 2 blocks of 256 and 1.02-1.06 in 4 of 132,
/// medians of the ratios of 40 calls alternating with OpenBLAS's in one process (8 blocks of 72:
/// 1.12); F32 level (1.02 and 1.03). Likely because an F64 block of 256 rows (1 MiB) and the half
/// of B its thread packs beside it (1 MiB) fill that core's 2 MiB L2.
///
/// Elsewhere (`round_down` false), with more than one thread, there are at least two blocks per
/// thread where that leaves them `SPARE_BLOCK_ROWS` rows or more: the tasks claim blocks as they
/// go, so a thread that starts late (a helper woken from sleep: 250-300 µs after the call on a
/// Xeon of family 6, model 167, after 300 ms idle) leaves its second block to the others. There,
/// 512 x 512 x 512 F32 on two threads (AVX2, MC 336) took 0.6-1.3% less time in 4 blocks of 128
/// than in 2 of 256 (medians of 40-80 calls of each, alternating in one process, four runs).
/// Finer tasks did not pay: a task per row block and eighth of B's panels, each block's A
/// packed once and shared, was 2% slower at that size and 7% at 1024^3, while the woken
/// helper still took 47% of the tasks.
///
/// Blocks of whole tiles can be unequal by a tile (256 rows of 6-row tiles on two threads: 22
/// tiles and 20 and two thirds). Where a short last tile has a smaller instance (`edge`
/// says which remainders do), equal blocks that are not whole tiles are taken instead when they
/// hold fewer full tiles: 128 rows are 21 tiles and a 2-row one on each thread. (With several
/// threads, `block_starts` then makes the last blocks of a step smaller, in whole tiles, and
/// only the last block has a short tile.)
pub(super) fn row_block(
    m: usize,
    mc: usize,
    mr: usize,
    threads: usize,
    round_down: bool,
    edge: &dyn Fn(usize) -> bool,
) -> usize {
    let (mc, threads, mr) = (mc.max(1), threads.max(1), mr.max(1));
    let tiles = |blocks: usize| m.div_ceil(blocks.max(1)).div_ceil(mr) * mr;
    let mut up = m.div_ceil(mc).div_ceil(threads) * threads;
    if !round_down && threads > 1 && up < 2 * threads && m / (2 * threads) >= SPARE_BLOCK_ROWS {
        up = 2 * threads;
    }
    let down = (m / mc / threads * threads).max(threads);
    let whole = if round_down && down < up && 5 * tiles(up) < 3 * mc && 8 * tiles(down) <= 9 * mc {
        tiles(down)
    } else {
        tiles(up)
    };
    let even = m.div_ceil(m.div_ceil(whole.max(1)).max(1));
    if even % mr != 0 && edge(even % mr) && even / mr < whole / mr {
        even
    } else {
        whole
    }
}

/// The first row of each of `by_rows`' row blocks, and `m` last. With one thread, blocks of `mc`
/// rows (see `row_block`). With several, the blocks claimed last shrink, so that the threads
/// finish a step together: where `row_block` leaves more blocks than threads, blocks of `mc`'s
/// whole tiles until fewer than `2 * threads` of those are left, then each a `2 * threads`-th of
/// the tiles left (at least `TAIL_MIN_TILES`); where it leaves each thread a single block and
/// `small` (the product is at most `GUIDED_MAX_PRODUCT`), decreasing blocks from the start, each
/// a `2 * threads`-th of the tiles left (at least `GUIDED_MIN_TILES`); otherwise `row_block`'s
/// even blocks.
///
/// Why the first rule: every slice of k (`KC`) is a parallel step of its own, whose end waits
/// for the last block. On a 2-vCPU Zen 4 VM, 4096^3 F32 on two threads (AVX2, 10 blocks of 410
/// rows, about 17 ms each, a step about 84 ms), one thread waited 0.2-12 ms at the end of a
/// step, 1.6-3.2 ms on average over runs: the other's last block had started late or run slow
/// (a host that takes a vCPU for a while). With the shrinking tail the wait fell to 0.2-0.3 ms
/// and the steps ran 0.6-1.0 ms shorter (three pairs of runs alternating, 56 steps each); calls
/// with and without it alternating in one process, medians of 10 pairs, took 0.957-0.967 of the
/// time at 4096^3 and 0.963-1.012 at 2048^3 (AVX2 F32), AVX2 F64 0.974-0.994, AVX-512
/// 0.87-1.008; convolutions level. Each smaller block streams all of the B block again, from
/// L3, while the products run.
///
/// Why the second: a helper woken from sleep starts late. On a 2-vCPU Zen 4 VM, 300 ms after
/// the last call (the pause `gemm_pairs` leaves between calls), the helper's first task began
/// 56-95 µs after the step did (15-25 of them the caller's `unpark`), a third of a 256^3 F32
/// product on two threads; with one block each, the caller then waited for the helper's whole
/// block. With decreasing blocks, the late thread takes fewer of them (guided self-scheduling,
/// Polychronopoulos and Kuck, 1987).
pub(super) fn block_starts(
    m: usize,
    mc: usize,
    mr: usize,
    threads: usize,
    small: bool,
) -> Vec<usize> {
    let (mc, mr) = (mc.max(1), mr.max(1));
    let many = m.div_ceil(mc) > threads;
    if threads < 2 || !(many || small) {
        let mut starts: Vec<usize> = (0..m).step_by(mc).collect();
        starts.push(m);
        return starts;
    }
    let (most, least) = if many {
        ((mc / mr).max(1), TAIL_MIN_TILES)
    } else {
        (usize::MAX, GUIDED_MIN_TILES)
    };
    let mut starts = vec![0];
    let mut i0 = 0;
    while i0 < m {
        let left = (m - i0).div_ceil(mr);
        let take = left.div_ceil(2 * threads).min(most).max(least.min(most));
        i0 = (i0 + take * mr).min(m);
        starts.push(i0);
    }
    starts
}

/// The fewest tiles of rows in a block `block_starts` makes smaller for balance, where each
/// thread would have had a single block.
const GUIDED_MIN_TILES: usize = 2;

/// The fewest tiles of rows in a block of the shrinking tail `block_starts` gives a step of
/// many blocks. On the Zen 4 of `block_starts`, 4096^3 F32 AVX2 on two threads: a thread's
/// wait at the end of a step 0.10-0.14 ms with 2 tiles, 0.19-0.27 with 4, 0.56-0.77 with 8.
const TAIL_MIN_TILES: usize = 4;

/// The largest product (`m * n * k`) whose row blocks `block_starts` makes smaller for balance:
/// each smaller block streams all of a B block again, which a wake-up's delay no longer
/// outweighs when each thread's share takes several milliseconds. Measured on a Zen 4 (2
/// vCPUs), `gemm_pairs` (300 ms pauses) against the even blocks, paired ratios to OpenBLAS,
/// medians of two or three runs: AVX2 F32 256^3 0.946-0.990 -> 0.981-1.018, F64 256^3
/// 0.949/0.961 -> 0.973/0.996, F32 512^3 0.997/1.035 -> 1.072/1.102, F64 512^3 1.010/1.021 ->
/// 1.030/1.078; AVX-512 F32 256^3 0.976/1.003 -> 1.053/1.103, F64 512^3 0.970/0.993 ->
/// 1.000/1.042; but AVX-512 F32 1024^3 1.096/1.110 -> 1.039/1.063. Calls back to back (the
/// helper awake) ran level at 256^3 and 512^3 (best of 300).
pub(super) const GUIDED_MAX_PRODUCT: usize = 1 << 28;

#[cfg(test)]
mod tests;
