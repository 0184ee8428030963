//! The one kernel every data-movement op is built on: a strided box copy.
//!
//! `copy_box` copies every element of an n-dimensional index box: element `i` (a multi-index
//! within `dims`) goes from `src[src_off + Σ i_k·ss_k]` to `dst[dst_off + Σ i_k·ds_k]`. Source
//! strides may be negative (reverse) or zero (broadcast); destination strides are positive.
//! Transpose, reverse, slice, dynamic-slice and broadcast are gathers (a fresh row-major
//! destination); pad, concatenate and dynamic-update-slice copy a contiguous source into a
//! sub-box of the destination.
//!
//! Algorithm: the box is first simplified (size-1 dimensions dropped, neighbouring dimensions
//! that are contiguous in both arrays merged), so a plain copy becomes one `copy_from_slice`.
//! What remains is walked row by row: an odometer over the outer dimensions advances two
//! offsets, and the innermost dimension is one tight loop over slice iterators (`step_by`), with
//! no index arithmetic or bounds check per element. When the innermost destination dimension is
//! strided in the source but another dimension is contiguous there (a transpose), the two are
//! walked in tiles through a small buffer, so that both the reads and the writes are
//! contiguous runs (the classic blocked transpose). Large gathers split their output rows across rayon threads.
//!
//! Callers guarantee that every addressed element is in bounds (the verifier and the op code
//! derive boxes from checked shapes); a violation is a bug and panics on a slice bound, which the
//! evaluator reports as an internal error.

/// Outputs at least this large are split across threads.
const PARALLEL_MIN: usize = 1 << 18;

/// Copies the box `dims` from `src` (offset `src_off`, strides `ss`) into `dst` (offset
/// `dst_off`, strides `ds`). All three slices of sizes and strides have one entry per dimension.
pub fn copy_box<T: Copy>(
    src: &[T],
    src_off: isize,
    ss: &[isize],
    dst: &mut [T],
    dst_off: usize,
    ds: &[usize],
    dims: &[usize],
) {
    if dims.contains(&0) {
        return;
    }
    // Simplify: drop size-1 dimensions, merge dimensions contiguous in both arrays.
    let mut n: Vec<usize> = Vec::with_capacity(dims.len());
    let mut s: Vec<isize> = Vec::with_capacity(dims.len());
    let mut d: Vec<usize> = Vec::with_capacity(dims.len());
    for k in 0..dims.len() {
        if dims[k] == 1 {
            continue;
        }
        if let (Some(&ln), Some(&ls), Some(&ld)) = (n.last(), s.last(), d.last())
            && ls == ss[k] * dims[k] as isize
            && ld == ds[k] * dims[k]
        {
            let last = n.len() - 1;
            n[last] = ln * dims[k];
            s[last] = ss[k];
            d[last] = ds[k];
            continue;
        }
        n.push(dims[k]);
        s.push(ss[k]);
        d.push(ds[k]);
    }
    let r = n.len();
    if r == 0 {
        dst[dst_off] = src[src_off as usize];
        return;
    }
    let b = r - 1;
    // A dimension other than the innermost that is contiguous in the source: tile with it.
    let tile_dim = (s[b].unsigned_abs() > 1 && n[b] >= 8)
        .then(|| (0..b).rev().find(|&a| s[a] == 1 && n[a] >= 8))
        .flatten();
    match tile_dim {
        None => for_outer(&n[..b], &s[..b], &d[..b], src_off, dst_off, |so, dof| {
            row(src, so, s[b], dst, dof, d[b], n[b])
        }),
        Some(a) => {
            let mut on = n[..b].to_vec();
            let mut os = s[..b].to_vec();
            let mut od = d[..b].to_vec();
            on.remove(a);
            os.remove(a);
            od.remove(a);
            for_outer(&on, &os, &od, src_off, dst_off, |so, dof| {
                tiled(src, so, (s[a], s[b]), dst, dof, (d[a], d[b]), (n[a], n[b]))
            })
        }
    }
}

/// Calls `f(src_offset, dst_offset)` for every index of the outer dimensions, in row-major
/// order, advancing the offsets incrementally.
fn for_outer(
    n: &[usize],
    ss: &[isize],
    ds: &[usize],
    src_off: isize,
    dst_off: usize,
    mut f: impl FnMut(isize, usize),
) {
    let r = n.len();
    let mut idx = vec![0usize; r];
    let (mut so, mut dof) = (src_off, dst_off);
    loop {
        f(so, dof);
        let mut k = r;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            so += ss[k];
            dof += ds[k];
            if idx[k] < n[k] {
                break;
            }
            so -= ss[k] * n[k] as isize;
            dof -= ds[k] * n[k];
            idx[k] = 0;
        }
    }
}

/// One row: `dst[d + j·ds] = src[s + j·ss]` for `j < n` (n ≥ 1).
#[inline]
fn row<T: Copy>(src: &[T], s: isize, ss: isize, dst: &mut [T], d: usize, ds: usize, n: usize) {
    let out = &mut dst[d..d + (n - 1) * ds + 1];
    let s0 = s as usize;
    match ss {
        0 => {
            let v = src[s0];
            if ds == 1 {
                out.fill(v);
            } else {
                out.iter_mut().step_by(ds).for_each(|x| *x = v);
            }
        }
        1 if ds == 1 => out.copy_from_slice(&src[s0..s0 + n]),
        st if st > 0 => {
            let st = st as usize;
            let input = &src[s0..s0 + (n - 1) * st + 1];
            for (x, y) in out.iter_mut().step_by(ds).zip(input.iter().step_by(st)) {
                *x = *y;
            }
        }
        st => {
            let st = st.unsigned_abs();
            let input = &src[s0 - (n - 1) * st..=s0];
            for (x, y) in out
                .iter_mut()
                .step_by(ds)
                .zip(input.iter().rev().step_by(st))
            {
                *x = *y;
            }
        }
    }
}

/// Tile of the blocked transpose for elements of type T: `(ta, tb)`, the length of each
/// contiguous source run (about 512 bytes) and the number of runs per tile (about 256 bytes of
/// destination run). For f32 that is 128 × 64 elements (a 32 KiB buffer), the best of the shapes
/// measured on a 4096² transpose.
fn tile_shape<T>() -> (usize, usize) {
    let size = std::mem::size_of::<T>().max(1);
    ((512 / size).clamp(16, 128), (256 / size).clamp(16, 64))
}

/// A 2-D box walked in tiles: `b` is the destination's innermost dimension, `a` the
/// source's contiguous one (`sa == 1`). Each tile is first read into a small buffer, one
/// contiguous source run per `b` index, and then written out one contiguous destination run per
/// `a` index, so neither side needs a cache line twice. (Walking the source directly with a
/// large power-of-two stride would map a tile's lines onto the same cache sets and thrash.)
fn tiled<T: Copy>(
    src: &[T],
    s: isize,
    (sa, sb): (isize, isize),
    dst: &mut [T],
    d: usize,
    (da, db): (usize, usize),
    (na, nb): (usize, usize),
) {
    debug_assert_eq!(sa, 1);
    let (ta, tb) = tile_shape::<T>();
    let mut buf: Vec<T> = vec![src[s as usize]; ta * tb];
    for a0 in (0..na).step_by(ta) {
        let la = (a0 + ta).min(na) - a0;
        for b0 in (0..nb).step_by(tb) {
            let lb = (b0 + tb).min(nb) - b0;
            for ib in 0..lb {
                let so = (s + (b0 + ib) as isize * sb + a0 as isize * sa) as usize;
                buf[ib * ta..ib * ta + la].copy_from_slice(&src[so..so + la]);
            }
            for ia in 0..la {
                let start = d + (a0 + ia) * da + b0 * db;
                let out = &mut dst[start..start + (lb - 1) * db + 1];
                // Row ib of the buffer holds source run ib; this destination run takes element
                // ia of each (`ia < ta` always; testing it lets the compiler drop the bounds check).
                let rows = buf.chunks_exact(ta).take(lb);
                if db == 1 && ia < ta {
                    for (x, row) in out.iter_mut().zip(rows) {
                        *x = row[ia];
                    }
                } else {
                    for (x, row) in out.iter_mut().step_by(db).zip(rows) {
                        *x = row[ia];
                    }
                }
            }
        }
    }
}

/// Row-major strides of `dims` (in elements).
pub fn strides(dims: &[usize]) -> Vec<usize> {
    let mut st = vec![1usize; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        st[k] = st[k + 1] * dims[k + 1];
    }
    st
}

/// A fresh row-major array of shape `dims` whose element `i` is `src[off + Σ i_k·ss_k]`.
/// `fill` initialises the buffer before the copy overwrites it (any value of the type).
pub fn gather<T: Copy + Send + Sync + 'static>(
    src: &[T],
    off: isize,
    ss: &[isize],
    dims: &[usize],
    fill: T,
) -> Vec<T> {
    let total: usize = dims.iter().product();
    if total > 0 && ss.iter().all(|&s| s == 0) {
        // One element repeated (a broadcast scalar, such as the zeros a loop's result buffer
        // starts from): a single parallel pass of stores. Filling first and copying after was
        // two passes, one of them single-threaded, over a 16 MiB buffer.
        let v = src[off as usize];
        return crate::kernels::pool::fill_fresh(
            total,
            crate::kernels::pool::chunk_for(total, PARALLEL_MIN),
            &|_, d| {
                d.fill(std::mem::MaybeUninit::new(v));
            },
        );
    }
    let mut out = vec![fill; total];
    if total == 0 {
        return out;
    }
    let ds = strides(dims);
    if total >= PARALLEL_MIN && dims.len() >= 2 && dims[0] >= 2 {
        // Split along dimension 0: each task copies a run of whole rows.
        let rows = dims[0].div_ceil(crate::kernels::pool::threads() * 4).max(1);
        crate::kernels::pool::for_each_chunk(&mut out, rows * ds[0], &|start, chunk| {
            let first = start / ds[0];
            let mut sub = dims.to_vec();
            sub[0] = chunk.len() / ds[0];
            copy_box(src, off + first as isize * ss[0], ss, chunk, 0, &ds, &sub);
        });
    } else {
        copy_box(src, off, ss, &mut out, 0, &ds, dims);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive oracle: one index computation per element.
    fn naive(src: &[i32], off: isize, ss: &[isize], dims: &[usize]) -> Vec<i32> {
        let total: usize = dims.iter().product();
        let st = strides(dims);
        (0..total)
            .map(|k| {
                let mut o = off;
                for (j, (&t, &s)) in st.iter().zip(ss).enumerate() {
                    o += ((k / t) % dims[j]) as isize * s;
                }
                src[o as usize]
            })
            .collect()
    }

    #[test]
    fn transpose_reverse_broadcast_match_the_oracle() {
        let src: Vec<i32> = (0..10_000).collect();
        // [70, 90] transpose of a [90, 70] array: tiled path.
        let t = gather(&src, 0, &[1, 70], &[70, 90], 0);
        assert_eq!(t, naive(&src, 0, &[1, 70], &[70, 90]));
        // Reverse both dimensions of [90, 70].
        let r = gather(&src, 6299, &[-70, -1], &[90, 70], 0);
        assert_eq!(r, naive(&src, 6299, &[-70, -1], &[90, 70]));
        // One element broadcast (the fill path), large enough to split across threads.
        let z = gather(&src, 17, &[0, 0], &[600, 700], 0);
        assert_eq!(z, naive(&src, 17, &[0, 0], &[600, 700]));
        assert_eq!(gather(&src, 3, &[0], &[0], 0), Vec::<i32>::new());
        // Broadcast a row, strided slice, 3-D permutation.
        let b = gather(&src, 5, &[0, 1, 0], &[3, 4, 5], 0);
        assert_eq!(b, naive(&src, 5, &[0, 1, 0], &[3, 4, 5]));
        let s = gather(&src, 3, &[200, 7], &[9, 20], 0);
        assert_eq!(s, naive(&src, 3, &[200, 7], &[9, 20]));
        let p = gather(&src, 0, &[1, 400, 20], &[20, 25, 20], 0);
        assert_eq!(p, naive(&src, 0, &[1, 400, 20], &[20, 25, 20]));
        // Big enough to take the parallel path.
        let big: Vec<i32> = (0..(1 << 18) + 512).collect();
        let t = gather(&big, 0, &[1, 600], &[600, 437], 0);
        assert_eq!(t, naive(&big, 0, &[1, 600], &[600, 437]));
    }
}
