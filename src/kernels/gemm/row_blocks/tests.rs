use super::*;

/// Row blocks: whole tiles, a multiple of the threads in number, and rounded down rather
/// than halved (the cases measured in `row_block`'s comment).
#[test]
fn row_blocks_stay_near_the_cache_block() {
    // 1024 rows, MC 480, 2 threads: 4 blocks of 256 would be half of MC; 2 of 512 are
    // 7% over it.
    assert_eq!(row_block(1024, 480, 6, 2, true, &no_edge), 516);
    // 512 rows of F64, MC 240: 2 blocks of 258 instead of 4 of 132.
    assert_eq!(row_block(512, 240, 6, 2, true, &no_edge), 258);
    // 2048 rows, MC 480: 6 blocks of 342 are three fifths of MC or more: kept.
    assert_eq!(row_block(2048, 480, 6, 2, true, &no_edge), 342);
    // Rounding down would overflow MC by more than an eighth (2 of 552): kept at 4 of 276.
    assert_eq!(row_block(1100, 480, 6, 2, true, &no_edge), 276);
    // Fewer rows than one block per thread, one thread, degenerate sizes.
    assert_eq!(row_block(100, 480, 6, 2, true, &no_edge), 54);
    assert_eq!(row_block(1000, 480, 6, 1, true, &no_edge), 336);
    assert_eq!(row_block(10, 0, 4, 0, true, &no_edge), 4);
    // Not rounded down where that did not pay (Intel): 512 rows of F64, MC 252, 12-row tiles.
    assert_eq!(row_block(512, 252, 12, 2, true, &no_edge), 264);
    assert_eq!(row_block(512, 252, 12, 2, false, &no_edge), 132);
    assert_eq!(row_block(512, 240, 6, 2, false, &no_edge), 132);
    // Two blocks per thread where they keep SPARE_BLOCK_ROWS rows (Intel), not on AMD, not on
    // one thread, not where they would be thinner (256 rows in 4 would be 64).
    assert_eq!(row_block(512, 336, 6, 2, false, &no_edge), 132);
    assert_eq!(row_block(512, 336, 6, 2, true, &no_edge), 258);
    assert_eq!(row_block(512, 336, 6, 1, false, &no_edge), 258);
    assert_eq!(row_block(256, 336, 6, 2, false, &no_edge), 132);
    assert_eq!(row_block(384, 336, 6, 2, false, &no_edge), 96);
    for (m, mc, mr, t) in [
        (1usize, 1usize, 1usize, 1usize),
        (4096, 480, 6, 2),
        (999, 240, 12, 3),
    ] {
        let h = row_block(m, mc, mr, t, true, &no_edge);
        assert!(h.is_multiple_of(mr) && h > 0, "{m} {mc} {mr} {t}: {h}");
    }
}

/// Row blocks that shrink where the threads would otherwise wait for each other
/// (`block_starts`): whole tiles that cover the rows once, never growing, the later and smaller
/// ones left to whichever thread comes last.
#[test]
fn row_blocks_shrink_toward_the_end_of_a_step() {
    let sizes = |starts: &[usize], m: usize, mr: usize| -> Vec<usize> {
        assert_eq!((starts[0], *starts.last().unwrap()), (0, m), "{starts:?}");
        for w in starts.windows(2) {
            assert!(w[0] < w[1], "{starts:?}");
            assert!(w[0] % mr == 0, "{starts:?}: a block starts inside a tile");
        }
        let sizes: Vec<usize> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
        sizes
    };
    // 256 rows of 6-row tiles on two threads (one block of 258 each), a small product: 43 tiles
    // in blocks of 11, 8, 6, 5, 4, 3, 2, 2 and the last 2 tiles (the second only 4 rows).
    let s = block_starts(256, 258, 6, 2, true);
    assert_eq!(s, [0, 66, 114, 150, 180, 204, 222, 234, 246, 256]);
    // None is under two tiles but the last.
    let h = sizes(&s, 256, 6);
    assert!(h[..h.len() - 1].iter().all(|&h| h >= 12), "{h:?}");
    // One block per thread of a large product: the even blocks.
    assert_eq!(block_starts(1024, 512, 6, 2, false), [0, 512, 1024]);
    // More blocks than threads (4096 rows in blocks of 410 on two threads): blocks of 68 whole
    // tiles (408 rows) until fewer than four such are left, then a quarter of the tiles left,
    // at least 4 tiles.
    let s = block_starts(4096, 410, 6, 2, false);
    let h = sizes(&s, 4096, 6);
    assert_eq!(&s[..8], [0, 408, 816, 1224, 1632, 2040, 2448, 2856]);
    assert_eq!(
        &s[8..],
        [
            3168, 3402, 3576, 3708, 3810, 3882, 3936, 3978, 4008, 4032, 4056, 4080, 4096
        ]
    );
    assert!(h[..h.len() - 1].iter().all(|&h| h >= 24), "{h:?}");
    // Three blocks of 342 rows (57 tiles) for two threads: fewer than four such blocks from
    // the start, so a quarter of the tiles left from the first block on (43, then 32).
    let s = block_starts(1024, 342, 6, 2, true);
    assert_eq!(s[..3], [0, 258, 450]);
    let h = sizes(&s, 1024, 6);
    assert!(h[..h.len() - 1].iter().all(|&h| h >= 24), "{h:?}");
    // One thread: the even blocks.
    assert_eq!(block_starts(256, 258, 6, 1, true), [0, 256]);
    assert_eq!(block_starts(1024, 342, 6, 1, true), [0, 342, 684, 1024]);
    // Fewer rows than a tile.
    assert_eq!(block_starts(5, 6, 6, 2, true), [0, 5]);
    // Every shape: `row_block`'s blocks where nothing shrinks; elsewhere whole tiles covering
    // the rows once, never growing, and where there are more blocks than threads none larger
    // than `mc`'s whole tiles and none under the tail's four tiles but the last (or under `mc`'s
    // whole tiles where those are fewer).
    for mr in [1, 4, 6, 8, 12, 14] {
        for mc in [mr, 2 * mr, 5 * mr + 3, 40 * mr, 492] {
            for threads in 1..=4 {
                for m in (1..700).step_by(7) {
                    for small in [false, true] {
                        let s = block_starts(m, mc, mr, threads, small);
                        let many = m.div_ceil(mc) > threads;
                        if threads == 1 || !(many || small) {
                            // `row_block`'s blocks, which may be equal blocks of part tiles.
                            let even: Vec<usize> = (0..m).step_by(mc).chain([m]).collect();
                            assert_eq!(s, even, "{m} {mc} {mr} {threads}");
                            continue;
                        }
                        let h = sizes(&s, m, mr);
                        if many {
                            let most = (mc / mr).max(1) * mr;
                            assert!(h.iter().all(|&h| h <= most), "{m} {mc} {mr}: {h:?}");
                            let least = most.min(TAIL_MIN_TILES * mr);
                            assert!(
                                h[..h.len() - 1].iter().all(|&h| h >= least),
                                "{m} {mc} {mr} {threads}: {h:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

fn no_edge(_: usize) -> bool {
    false
}

/// With smaller instances for short last tiles, equal row blocks that are not whole tiles are
/// taken where they hold fewer full tiles than blocks of whole tiles (and only then).
#[test]
fn row_blocks_split_evenly_where_short_tiles_are_cheap() {
    let edge = |h: usize| h != 5;
    // 256 rows on two threads: 22 tiles and 20 and two thirds as whole tiles; 21 and a 2-row
    // tile each.
    assert_eq!(row_block(256, 492, 6, 2, true, &edge), 128);
    assert_eq!(row_block(512, 492, 6, 2, true, &edge), 256);
    assert_eq!(row_block(1024, 480, 6, 2, true, &edge), 512);
    // Already whole tiles, or a remainder without a smaller instance: unchanged.
    assert_eq!(row_block(2048, 480, 6, 2, true, &edge), 342);
    assert_eq!(row_block(250, 492, 6, 2, true, &edge), 126);
    assert_eq!(row_block(250, 492, 6, 2, true, &no_edge), 126);
    assert_eq!(row_block(256, 492, 6, 2, true, &no_edge), 132);
}
