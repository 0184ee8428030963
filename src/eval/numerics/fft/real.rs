//! The real transforms' steps between length n and n/2: RFFT's split of the half-length
//! complex transform into the n/2 + 1 outputs, and IRFFT's merge back (Press et al., "Numerical
//! Recipes", §12.3).

use super::*;

/// The step between a real transform of even length n and the complex one of length n/2, for
/// k in `k0..k1` of one line (`roots` are ω_n's):
/// - split (RFFT), k ≤ n/2: `dst[k] = E[k] + ω^k·O[k]`, E = (Z[k] + conj Z[n/2−k])/2 and
///   O = −i·(Z[k] − conj Z[n/2−k])/2, from `src` = Z (n/2 values, Z[n/2] = Z[0]);
/// - merge (IRFFT), k < n/2: `dst[k] = (X[k] + conj X[n/2−k]) + i·ω^−k·(X[k] − conj X[n/2−k])`,
///   from `src` = X (n/2 + 1 values), the imaginary parts of X[0] and X[n/2] taken as zero.
///
/// W values of k at a time where the partners n/2 − k are W in a row too (read forwards and
/// reversed) and the W roots share their high factor; the same operations one k at a time
/// elsewhere, so every k gets the same bits either way.
///
/// # Safety
/// The instruction set of `L`; `src` and `dst` must hold the line's values.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn half_step<L: Lanes, S: Elem, D: Elem>(
    merge: bool,
    src: *const S,
    dst: *mut D,
    half: usize,
    roots: &Roots,
    k0: usize,
    k1: usize,
) {
    let grouped = roots.mask + 1 >= W;
    let mut k = k0;
    while k < k1 {
        // SAFETY: every index is under n/2 + 1 (n/2 for the merge's output), as the line's
        // length; the instruction set is the caller's.
        unsafe {
            if grouped && k.is_multiple_of(W) && k >= W && k + W <= half && k + W <= k1 {
                let neg = L::splat(-1.0);
                let (ar, ai) = S::load_row::<L>(src.add(k));
                let (br, bi) = S::load_row::<L>(src.add(half - k - (W - 1)));
                let (br, bi) = (br.reverse(), bi.reverse().mul(neg));
                let h = roots.hi[k >> roots.shift];
                let (lr, li) = C128::load_row::<L>(roots.lo.as_ptr().add(k & roots.mask));
                let (wr, wi) = cmul(L::splat(h.re), L::splat(h.im), lr, li);
                if merge {
                    let (tr, ti) = cmul(ar.sub(br), ai.sub(bi), wr, wi.mul(neg));
                    D::store_row(ar.add(br).add(ti.mul(neg)), ai.add(bi).add(tr), dst.add(k));
                } else {
                    let hf = L::splat(0.5);
                    let (er, ei) = (ar.add(br).mul(hf), ai.add(bi).mul(hf));
                    let (dr, di) = (ar.sub(br).mul(hf), ai.sub(bi).mul(hf));
                    let (pr, pi) = cmul(wr, wi, di, dr.mul(neg));
                    D::store_row(er.add(pr), ei.add(pi), dst.add(k));
                }
                k += W;
                continue;
            }
            let v = if merge {
                let (mut a, mut b) = (S::read(src.add(k)), S::read(src.add(half - k)).conj());
                if k == 0 {
                    a.im = 0.0;
                    b.im = 0.0;
                }
                let t = (a - b) * roots.get(k).conj();
                (a + b) + C128::new(-t.im, t.re)
            } else {
                let zk = S::read(src.add(if k == half { 0 } else { k }));
                let zc = S::read(src.add(if k == 0 { 0 } else { half - k })).conj();
                let e = (zk + zc) * 0.5;
                let d = (zk - zc) * 0.5;
                e + roots.get(k) * C128::new(d.im, -d.re)
            };
            D::write(dst.add(k), v);
            k += 1;
        }
    }
}

/// `half_step` between either kind of array.
///
/// # Safety
/// As `half_step`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn half_step_mem<L: Lanes>(
    merge: bool,
    src: Mem,
    dst: Mem,
    half: usize,
    roots: &Roots,
    k0: usize,
    k1: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        match (src, dst) {
            (Mem::C128(s), Mem::C128(d)) => {
                half_step::<L, C128, C128>(merge, s, d, half, roots, k0, k1)
            }
            (Mem::C128(s), Mem::C64(d)) => {
                half_step::<L, C128, C64>(merge, s, d, half, roots, k0, k1)
            }
            (Mem::C64(s), Mem::C128(d)) => {
                half_step::<L, C64, C128>(merge, s, d, half, roots, k0, k1)
            }
            (Mem::C64(s), Mem::C64(d)) => {
                half_step::<L, C64, C64>(merge, s, d, half, roots, k0, k1)
            }
        }
    }
}

/// `half_step_mem` compiled for `isa`.
///
/// # Safety
/// As `half_step`, and `isa` must be available.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn half_step_on(
    isa: Isa,
    merge: bool,
    src: Mem,
    dst: Mem,
    half: usize,
    roots: &Roots,
    k0: usize,
    k1: usize,
) {
    /// # Safety
    /// As `half_step`; AVX-512F must be available.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx512(
        merge: bool,
        src: Mem,
        dst: Mem,
        half: usize,
        roots: &Roots,
        k0: usize,
        k1: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { half_step_mem::<x86::Avx512>(merge, src, dst, half, roots, k0, k1) }
    }
    /// # Safety
    /// As `half_step`; AVX2 must be available.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx2(
        merge: bool,
        src: Mem,
        dst: Mem,
        half: usize,
        roots: &Roots,
        k0: usize,
        k1: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { half_step_mem::<x86::Avx2>(merge, src, dst, half, roots, k0, k1) }
    }
    // SAFETY (all arms): the caller's contract.
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { avx512(merge, src, dst, half, roots, k0, k1) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2(merge, src, dst, half, roots, k0, k1) },
        _ => unsafe { half_step_mem::<Portable>(merge, src, dst, half, roots, k0, k1) },
    }
}

/// The split (RFFT, `lines × (n/2 + 1)` results from `lines × n/2` values of Z) or the merge
/// (IRFFT, `lines × n/2` from `lines × (n/2 + 1)` values of X) over every line, into a fresh
/// vector, in parallel chunks.
pub(super) fn half_steps<D: Elem + Send + 'static>(
    merge: bool,
    src: Mem,
    lines: usize,
    n: usize,
    isa: Isa,
) -> Vec<D> {
    let half = n / 2;
    let (len_in, len_out) = if merge {
        (half + 1, half)
    } else {
        (half, half + 1)
    };
    let roots = Roots::new(n);
    let total = lines * len_out;
    fill_fresh(total, chunk(total), &|off, dst| {
        let (mut g, end) = (off, off + dst.len());
        let dst = dst.as_mut_ptr().cast::<D>();
        while g < end {
            let (l, k0) = (g / len_out, g % len_out);
            let k1 = len_out.min(k0 + (end - g));
            // SAFETY: line l of the source (read only) and of the chunk being filled
            // (`dst` starts at element `off`); the isa was detected.
            unsafe {
                let s = src.offset(l * len_in);
                let d = D::mem(dst.wrapping_add(l * len_out).wrapping_sub(off));
                half_step_on(isa, merge, s, d, half, &roots, k0, k1);
            }
            g += k1 - k0;
        }
    })
}
