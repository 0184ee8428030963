//! FFT, IFFT, RFFT and IRFFT over the 1–3 innermost dimensions, for any length, in O(n log n).
//!
//! Algorithm. All arithmetic is in complex f64; results are rounded once to the result type.
//!
//! - Powers of two up to `DIRECT_MAX`, `W` lines at a time: the lines are copied into a block of
//!   split real/imaginary buffers laid out `[n][W]`, so every butterfly works on `W` lanes of
//!   contiguous f64s (one AVX-512 vector, two AVX2 ones) whatever its stride, and transformed in
//!   place by radix-4 decimation in frequency (a last radix-2 level when log2 n is odd; Van Loan,
//!   "Computational Frameworks for the Fast Fourier Transform", SIAM 1992, §1.4 and §2.4). Each
//!   level leaves four independent contiguous sub-problems, so the levels go over the whole block
//!   only while the sub-problems are longer than `LEAF` rows; each shorter one then finishes all
//!   its levels while it sits in L1. The frequencies come out in base-4 digit-reversed order and
//!   are read back in order when the block is written out.
//! - Longer powers of two, and single lines of 64 or more elements (which would leave lanes of a
//!   block empty): the four-step algorithm (Bailey, "FFTs in external or hierarchical memory",
//!   J. Supercomputing 4, 1990). With n = n1·n2 and t = t1·n2 + t2, k = k1 + n1·k2, the columns
//!   (length n1, one per t2) are transformed, element (k1, t2) is multiplied by ω_n^(k1·t2), and
//!   the rows (length n2, one per k1) are transformed into X[k1 + n1·k2]. Both steps are blocks
//!   of `W` lines of the direct transform, so each sub-transform lives in L1/L2 and the blocks of
//!   a step run in parallel.
//! - Every other length: Bluestein's chirp-z algorithm (Bluestein 1970; Rabiner, Schafer & Rader
//!   1969), with tk = (t² + k² − (k − t)²)/2 turning the DFT into a cyclic convolution of length
//!   m ≥ 2n − 1, a power of two, computed with the transforms above.
//! - The inverse is conj(DFT(conj x)), so only the forward kernels exist; the 1/n is applied when
//!   the result is written.
//! - RFFT of even length n is one complex FFT of length n/2 of z[t] = x[2t] + i·x[2t+1] followed
//!   by the split step X[k] = E[k] + ω_n^k·O[k], with E[k] = (Z[k] + conj Z[n/2−k])/2 and
//!   O[k] = (Z[k] − conj Z[n/2−k])/(2i) the transforms of the even and odd samples; IRFFT of even
//!   length runs the same steps backwards (Press et al., "Numerical Recipes", §12.3). Odd lengths
//!   transform the real data as complex.
//! - Lines are independent: blocks of lines run in parallel on the kernel pool, and so do the
//!   lines of a long transform when there are enough of them.
//!
//! Accuracy. Every twiddle factor is sin/cos of an exact multiple of 2π/n, reduced to an angle in
//! [0, π/4] (`root`), or, for the four-step and split-step factors ω_n^e with e up to n, the
//! product of two such values (`Roots`: ω^(e_hi·2^s) · ω^(e_lo)), within a few ulp; none comes
//! from a recurrence. The error then grows like O(ε log n) relative to the signal's norm (Higham,
//! "Accuracy and Stability of Numerical Algorithms", 2nd ed., §24.1). The tests hold the fast
//! paths to c·ε·log2(n)·‖x‖ against a direct O(n²) DFT. The kernels use no fused multiply-add, so
//! the vectorised instances (AVX2, AVX-512) give bit-for-bit the results of the portable one.
//!
//! Conventions (XLA's): the forward transform is X[k] = Σ x[t]·e^(−2πi·tk/n); the inverse divides
//! by n. A multi-dimensional transform applies the 1-D one along each axis; RFFT transforms the
//! innermost axis first (real → complex, keeping n/2 + 1 outputs), IRFFT transforms it last,
//! rebuilding the missing half from the conjugate symmetry of a real signal (the imaginary parts
//! of X[0] and, for even n, X[n/2] do not influence the result).

use super::{from_c128, from_f64, to_c128, to_f64};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::attrs::{FftAttrs, FftType};
use crate::kernels::pool::{chunk_for, fill_fresh, for_each_chunk, run_tasks, threads};
use crate::literal::pages::fresh_vec;
use crate::literal::recycle;
use crate::literal::{Array, ArrayData, C64, C128, Literal};
use crate::types::ElementType;
use std::f64::consts::PI;

mod lanes;
#[cfg(target_arch = "x86_64")]
use lanes::x86;
use lanes::{Lanes, Portable, cmul};

/// Lines transformed together, one per SIMD lane: a row of a block is one AVX-512 vector of
/// f64 (two AVX2 vectors), and a row of complex input is two cache lines.
const W: usize = 8;
/// The longest power of two transformed directly: a block of this length (1024 rows · 8 lanes ·
/// 16 bytes = 128 KiB) stays in L2. Longer ones take the four-step path, whose sub-transforms
/// are at most this long up to 2^20 points.
const DIRECT_MAX: usize = 1024;
/// Below this much work (elements × lines), splitting over threads costs more than it saves.
const PAR_MIN: usize = 1 << 15;

// ---------------------------------------------------------------------------------------------
// Twiddle factors

/// e^(−2πi·k/n), from `sin_cos` of an angle in [0, π/4]. The octant comes from integer
/// arithmetic on 8k mod 8n, so the argument is small and almost exact and the quarter-turn
/// symmetries (exact sign changes and swaps) do the rest: each value is within a few ulp.
fn root(k: usize, n: usize) -> C128 {
    let n = n.max(1) as u128;
    let e8 = 8 * (k as u128 % n);
    let (oct, rem) = (e8 / n, e8 % n);
    // θ = 2πk/n = (π/4)·(oct + rem/n) = q·π/2 + y with |y| ≤ π/4.
    let (q, y) = if oct % 2 == 0 {
        (oct / 2, PI / 4.0 * (rem as f64 / n as f64))
    } else {
        (oct.div_ceil(2), -(PI / 4.0 * ((n - rem) as f64 / n as f64)))
    };
    let (s, c) = y.sin_cos();
    let (cos, sin) = match q % 4 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    };
    C128::new(cos, -sin)
}

/// ω_n^e = e^(−2πi·e/n) for any 0 ≤ e < n from two tables of about √n entries each:
/// ω^e = ω^(hi·2^s) · ω^lo. A full table would cost n sine/cosine pairs (about as long as the
/// transform itself for n = 2^20); one complex product of two accurate values is off by a few ulp,
/// not by an amount that grows with n as a recurrence would be.
struct Roots {
    shift: u32,
    mask: usize,
    lo: Vec<C128>,
    hi: Vec<C128>,
}

impl Roots {
    fn new(n: usize) -> Roots {
        let bits = usize::BITS - n.max(1).saturating_sub(1).leading_zeros();
        let shift = bits.div_ceil(2);
        let lo = (0..1usize << shift).map(|e| root(e, n)).collect();
        let hi = (0..n.max(1).div_ceil(1 << shift))
            .map(|h| root(h << shift, n))
            .collect();
        Roots {
            shift,
            mask: (1 << shift) - 1,
            lo,
            hi,
        }
    }

    /// ω_n^e; `e` must be below n.
    #[inline(always)]
    fn get(&self, e: usize) -> C128 {
        self.hi[e >> self.shift] * self.lo[e & self.mask]
    }
}

// ---------------------------------------------------------------------------------------------
// Vectors of W lanes: `lanes`

// ---------------------------------------------------------------------------------------------
// The block kernel: W lines of one power-of-two length, in split real/imaginary buffers [n][W]

/// A block: row t holds element t of each of the W lines.
struct Buf {
    re: Vec<f64>,
    im: Vec<f64>,
}

impl Buf {
    fn new(len: usize) -> Buf {
        Buf {
            re: vec![0.0; len * W],
            im: vec![0.0; len * W],
        }
    }
}

/// A task's blocks: `b` holds Bluestein's second transform (empty otherwise).
struct Work {
    a: Buf,
    b: Buf,
}

/// The radix-4 decimation-in-frequency stages of a length-n transform (n a power of two): for
/// each level of sub-length l ≥ 8 (n, n/4, …), the twiddles (ω_l^p, ω_l^2p, ω_l^3p) for
/// p < l/4, taken from the exact values ω_n^(p·n/l) rather than powers of ω_l; and `row[k]`,
/// the row where frequency k ends (base-4 digit reversal, the last digit base 2 when log2 n is
/// odd).
struct Stages {
    n: usize,
    tw: Vec<Vec<[f64; 6]>>,
    row: Vec<u32>,
}

impl Stages {
    fn new(n: usize) -> Stages {
        let mut tw = Vec::new();
        let (mut l, mut s) = (n, 1);
        while l >= 8 {
            tw.push(
                (0..l / 4)
                    .map(|p| {
                        let [a, b, c] = [1, 2, 3].map(|r| root(r * p * s, n));
                        [a.re, a.im, b.re, b.im, c.re, c.im]
                    })
                    .collect(),
            );
            l /= 4;
            s *= 4;
        }
        // A level of sub-length l leaves, at row r·l/4 + j of its sub-array, frequency
        // 4·f(j) + r, f the same map one level down; the last level (4 or 2 rows, no twiddles)
        // leaves its frequencies in order.
        let mut freq: Vec<u32> = (0..l.min(n) as u32).collect();
        let mut len = freq.len();
        while len < n {
            let next: Vec<u32> = (0..4 * len)
                .map(|pos| 4 * freq[pos % len] + (pos / len) as u32)
                .collect();
            freq = next;
            len *= 4;
        }
        let mut row = vec![0u32; n];
        for (pos, &f) in freq.iter().enumerate() {
            row[f as usize] = pos as u32;
        }
        Stages { n, tw, row }
    }
}

/// Sub-arrays of at most this many rows (8 KiB of a block) finish their levels one after
/// another, in L1; longer ones go level by level over the whole block.
const LEAF: usize = 64;

/// One radix-4 level on the sub-array of rows `base..base + 4m` in place: rows base + p + r·m,
/// r = 0..3, become (a + c) + (b + d), ω^p·((a − c) − i(b − d)), ω^2p·((a + c) − (b + d)) and
/// ω^3p·((a − c) + i(b − d)), with the twiddles `tw` (m triples; None: all 1, for m = 1).
///
/// # Safety
/// The instruction set of `L`; the rows must lie in `x`.
#[inline(always)]
unsafe fn radix4<L: Lanes>(x: &mut Buf, base: usize, m: usize, tw: Option<&[[f64; 6]]>) {
    debug_assert!(x.re.len() >= (base + 4 * m) * W);
    let (xr, xi) = (x.re.as_mut_ptr(), x.im.as_mut_ptr());
    let d = m * W;
    for p in 0..m {
        let i = (base + p) * W;
        // SAFETY: rows base..base + 4m are in the buffer; the instruction set is the caller's.
        unsafe {
            let (ar, ai) = (L::load(xr.add(i)), L::load(xi.add(i)));
            let (br, bi) = (L::load(xr.add(i + d)), L::load(xi.add(i + d)));
            let (cr, ci) = (L::load(xr.add(i + 2 * d)), L::load(xi.add(i + 2 * d)));
            let (dr, di) = (L::load(xr.add(i + 3 * d)), L::load(xi.add(i + 3 * d)));
            let (apcr, apci) = (ar.add(cr), ai.add(ci));
            let (amcr, amci) = (ar.sub(cr), ai.sub(ci));
            let (bpdr, bpdi) = (br.add(dr), bi.add(di));
            let (bmdr, bmdi) = (br.sub(dr), bi.sub(di));
            apcr.add(bpdr).store(xr.add(i));
            apci.add(bpdi).store(xi.add(i));
            let (t1r, t1i) = (amcr.add(bmdi), amci.sub(bmdr));
            let (t2r, t2i) = (apcr.sub(bpdr), apci.sub(bpdi));
            let (t3r, t3i) = (amcr.sub(bmdi), amci.add(bmdr));
            let ((t1r, t1i), (t2r, t2i), (t3r, t3i)) = match tw {
                Some(tw) => {
                    let w = &tw[p];
                    (
                        cmul(t1r, t1i, L::splat(w[0]), L::splat(w[1])),
                        cmul(t2r, t2i, L::splat(w[2]), L::splat(w[3])),
                        cmul(t3r, t3i, L::splat(w[4]), L::splat(w[5])),
                    )
                }
                None => ((t1r, t1i), (t2r, t2i), (t3r, t3i)),
            };
            t1r.store(xr.add(i + d));
            t1i.store(xi.add(i + d));
            t2r.store(xr.add(i + 2 * d));
            t2i.store(xi.add(i + 2 * d));
            t3r.store(xr.add(i + 3 * d));
            t3i.store(xi.add(i + 3 * d));
        }
    }
}

/// The radix-2 butterflies of the last level on rows `base..base + len` (pairs of rows).
///
/// # Safety
/// As `radix4`.
#[inline(always)]
unsafe fn radix2<L: Lanes>(x: &mut Buf, base: usize, len: usize) {
    debug_assert!(x.re.len() >= (base + len) * W);
    let (xr, xi) = (x.re.as_mut_ptr(), x.im.as_mut_ptr());
    for q in (base..base + len).step_by(2) {
        let i = q * W;
        // SAFETY: as in `radix4`.
        unsafe {
            let (ar, ai) = (L::load(xr.add(i)), L::load(xi.add(i)));
            let (br, bi) = (L::load(xr.add(i + W)), L::load(xi.add(i + W)));
            ar.add(br).store(xr.add(i));
            ai.add(bi).store(xi.add(i));
            ar.sub(br).store(xr.add(i + W));
            ai.sub(bi).store(xi.add(i + W));
        }
    }
}

/// The levels from `level` (sub-length `l`) down on the sub-array of rows `base..base + len`.
///
/// # Safety
/// As `radix4`.
#[inline(always)]
unsafe fn levels<L: Lanes>(
    st: &Stages,
    x: &mut Buf,
    base: usize,
    len: usize,
    mut level: usize,
    mut l: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        while level < st.tw.len() {
            for b in (base..base + len).step_by(l) {
                radix4::<L>(x, b, l / 4, Some(&st.tw[level]));
            }
            level += 1;
            l /= 4;
        }
        match l {
            4 => {
                for b in (base..base + len).step_by(4) {
                    radix4::<L>(x, b, 1, None);
                }
            }
            2 => radix2::<L>(x, base, len),
            _ => {}
        }
    }
}

/// The forward transform of the block in `x` (rows 0..n), in place; frequency k ends in row
/// `st.row[k]`. The levels on sub-arrays longer than `LEAF` sweep the whole block (in L2);
/// then each sub-array of `LEAF` rows or fewer goes through all its remaining levels while it
/// is in L1 (the decimation in frequency keeps each sub-problem contiguous; a Stockham
/// transform's sub-problems are interleaved and every level sweeps the whole block through L2,
/// which made it about 2.5 times slower at 512 and 1024 rows).
///
/// # Safety
/// As `radix4`; `x` holds n rows.
#[inline(always)]
unsafe fn dif<L: Lanes>(st: &Stages, x: &mut Buf) {
    let n = st.n;
    let (mut level, mut l) = (0, n);
    // SAFETY: the caller's contract.
    unsafe {
        while level < st.tw.len() && l > LEAF {
            for b in (0..n).step_by(l) {
                radix4::<L>(x, b, l / 4, Some(&st.tw[level]));
            }
            level += 1;
            l /= 4;
        }
        for leaf in (0..n).step_by(l.max(1)) {
            levels::<L>(st, x, leaf, l, level, l);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lines, and the copies between them and blocks

/// Where the lines of a transform are: line `l` starts at `base + (l / inner)·outer_step +
/// (l % inner)·inner_step` and its elements are `stride` apart (in complex elements). Lines along
/// an axis of a row-major array have `inner` = the product of the later dimensions; the columns
/// and rows of a four-step transform are a single run (`inner` = usize::MAX).
#[derive(Clone, Copy, Debug)]
struct Lines {
    inner: usize,
    base: usize,
    outer_step: usize,
    inner_step: usize,
    stride: usize,
}

impl Lines {
    /// Lines `l · step` apart from `base`, elements `stride` apart.
    fn run(base: usize, step: usize, stride: usize) -> Lines {
        Lines {
            inner: usize::MAX,
            base,
            outer_step: 0,
            inner_step: step,
            stride,
        }
    }

    #[inline(always)]
    fn offset(&self, l: usize) -> usize {
        self.base + l / self.inner * self.outer_step + l % self.inner * self.inner_step
    }
}

/// The array a transform reads or writes, as a raw pointer the kernel pool's tasks share (the
/// tasks of one transform touch disjoint sets of lines, which is what makes sharing it sound):
/// complex f64, or complex f32, which is also how f32 reals taken in pairs are read (the RFFT's
/// z[t] = x[2t] + i·x[2t+1]) and written (the IRFFT's result). Reading and writing the operand's
/// and the result's own types spares a conversion pass over each.
#[derive(Clone, Copy)]
enum Mem {
    C128(*mut C128),
    C64(*mut C64),
}
// SAFETY: see the type's comment; every use states which elements a task touches.
unsafe impl Send for Mem {}
// SAFETY: as above.
unsafe impl Sync for Mem {}

/// An element type lines are stored in.
trait Elem: Copy {
    /// # Safety
    /// `p` must be readable.
    unsafe fn read(p: *const Self) -> C128;
    /// Rounds to the element type (`as f32` for C64, as `from_c128` does).
    /// # Safety
    /// `p` must be writable.
    unsafe fn write(p: *mut Self, v: C128);
    /// `v` rounded to the element type (as `write` does).
    fn round(v: C128) -> Self;
    /// The array at `p`.
    fn mem(p: *mut Self) -> Mem;
    /// W consecutive elements as lanes.
    /// # Safety
    /// W readable elements at `p`; the instruction set of `L`.
    unsafe fn load_row<L: Lanes>(p: *const Self) -> (L, L);
    /// # Safety
    /// W writable elements at `p`; the instruction set of `L`.
    unsafe fn store_row<L: Lanes>(re: L, im: L, p: *mut Self);
}

impl Elem for C128 {
    fn round(v: C128) -> Self {
        v
    }
    fn mem(p: *mut Self) -> Mem {
        Mem::C128(p)
    }
    #[inline(always)]
    unsafe fn read(p: *const Self) -> C128 {
        // SAFETY: the caller's contract.
        unsafe { p.read() }
    }
    #[inline(always)]
    unsafe fn write(p: *mut Self, v: C128) {
        // SAFETY: the caller's contract.
        unsafe { p.write(v) }
    }
    #[inline(always)]
    unsafe fn load_row<L: Lanes>(p: *const Self) -> (L, L) {
        // SAFETY: the caller's contract; C128 is two f64s (`repr(C)`).
        unsafe { L::load_complex(p.cast::<f64>()) }
    }
    #[inline(always)]
    unsafe fn store_row<L: Lanes>(re: L, im: L, p: *mut Self) {
        // SAFETY: as above.
        unsafe { L::store_complex(re, im, p.cast::<f64>()) }
    }
}

impl Elem for C64 {
    fn round(v: C128) -> Self {
        C64::new(v.re as f32, v.im as f32)
    }
    fn mem(p: *mut Self) -> Mem {
        Mem::C64(p)
    }
    #[inline(always)]
    unsafe fn read(p: *const Self) -> C128 {
        // SAFETY: the caller's contract.
        let v = unsafe { p.read() };
        C128::new(v.re as f64, v.im as f64)
    }
    #[inline(always)]
    unsafe fn write(p: *mut Self, v: C128) {
        // SAFETY: the caller's contract.
        unsafe { p.write(C64::new(v.re as f32, v.im as f32)) }
    }
    #[inline(always)]
    unsafe fn load_row<L: Lanes>(p: *const Self) -> (L, L) {
        // SAFETY: the caller's contract; C64 is two f32s (`repr(C)`).
        unsafe { L::load_complex32(p.cast::<f32>()) }
    }
    #[inline(always)]
    unsafe fn store_row<L: Lanes>(re: L, im: L, p: *mut Self) {
        // SAFETY: as above.
        unsafe { L::store_complex32(re, im, p.cast::<f32>()) }
    }
}

impl Mem {
    /// The array from element `i` on (a pointer computation only).
    fn offset(self, i: usize) -> Mem {
        match self {
            Mem::C128(p) => Mem::C128(p.wrapping_add(i)),
            Mem::C64(p) => Mem::C64(p.wrapping_add(i)),
        }
    }

    /// Element `i`, widened.
    /// # Safety
    /// Element `i` must be readable.
    #[inline(always)]
    unsafe fn read(self, i: usize) -> C128 {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                Mem::C128(p) => C128::read(p.add(i)),
                Mem::C64(p) => C64::read(p.add(i)),
            }
        }
    }
    /// # Safety
    /// Element `i` must be writable.
    #[inline(always)]
    unsafe fn write(self, i: usize, v: C128) {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                Mem::C128(p) => C128::write(p.add(i), v),
                Mem::C64(p) => C64::write(p.add(i), v),
            }
        }
    }
}

/// The four-step transform's twiddles ω_n^(k1·t2), applied as the columns (lines t2, elements
/// k1) are written: ω^(k1·(l0 + j)) = ω^(k1·l0) · ω^(k1·j) for the lanes j of a block starting at
/// column l0, the first factor from `roots` once per row and the second from the table `re`,
/// `im` (ω^(k1·j) for k1 < n1, j < W, laid out [k1][j] for vector loads). Each factor is within a
/// few ulp and so is their product; a whole n-entry table would cost a pass over memory per row.
struct Twiddle {
    roots: Roots,
    re: Vec<f64>,
    im: Vec<f64>,
}

impl Twiddle {
    fn new(n: usize, n1: usize) -> Twiddle {
        let roots = Roots::new(n);
        let w: Vec<C128> = (0..n1 * W).map(|i| roots.get(i / W * (i % W))).collect();
        Twiddle {
            re: w.iter().map(|c| c.re).collect(),
            im: w.iter().map(|c| c.im).collect(),
            roots,
        }
    }
}

/// One transform of `count` lines of the plan's length: read from `src` as `li` says (conjugated
/// when `conj_in`), written to `dst` as `lo` says, each output element multiplied by
/// ω_N^(k·l) (k its index, l its line's) when `twiddle` is given, then conjugated when
/// `conj_out`, then multiplied by `scale`. `src` and `dst` may be the same array with the same
/// lines: a line is read whole before it is written.
struct Io<'a> {
    count: usize,
    src: Mem,
    li: Lines,
    dst: Mem,
    lo: Lines,
    conj_in: bool,
    conj_out: bool,
    scale: f64,
    twiddle: Option<&'a Twiddle>,
}

/// What happens to a block's rows on their way out.
struct Post<'a> {
    /// Conjugate first (Bluestein's inverse convolution).
    pre_conj: bool,
    chirp: Option<&'a [C128]>,
    twiddle: Option<&'a Twiddle>,
    conj: bool,
    scale: f64,
}

/// Whether the W lanes are consecutive elements, so a row moves as one vector of complex values.
#[inline(always)]
fn consecutive(off: &[usize; W]) -> bool {
    (1..W).all(|j| off[j] == off[0] + j)
}

/// Copies element t of lane j, `src[off[j] + t·stride]`, into row t of `x` for t < n,
/// conjugated when `conj` and multiplied by `chirp[t]` when given.
///
/// # Safety
/// The instruction set of `L`; every `off[j] + t·stride` must be an element of `src` no other
/// task writes, and `x` must hold n rows.
#[inline(always)]
unsafe fn gather<L: Lanes, E: Elem>(
    n: usize,
    src: *const E,
    off: &[usize; W],
    stride: usize,
    conj: bool,
    chirp: Option<&[C128]>,
    x: &mut Buf,
) {
    debug_assert!(x.re.len() >= n * W);
    let (xr, xi) = (x.re.as_mut_ptr(), x.im.as_mut_ptr());
    let contiguous = consecutive(off);
    for t in 0..n {
        let base = t * stride;
        // SAFETY: the caller's contract.
        unsafe {
            if !contiguous {
                // Element by element; the conjugate and the chirp are applied here too, as
                // the same scalar operations the vector path does, since reloading the row
                // as a vector right after storing its lanes one by one stalls on store
                // forwarding.
                for (j, &o) in off.iter().enumerate() {
                    let mut v = E::read(src.add(o + base));
                    if conj {
                        v.im *= -1.0;
                    }
                    if let Some(c) = chirp {
                        v *= c[t];
                    }
                    *xr.add(t * W + j) = v.re;
                    *xi.add(t * W + j) = v.im;
                }
                continue;
            }
            let (mut r, mut i) = E::load_row::<L>(src.add(off[0] + base));
            if conj {
                i = i.mul(L::splat(-1.0));
            }
            if let Some(c) = chirp {
                (r, i) = cmul(r, i, L::splat(c[t].re), L::splat(c[t].im));
            }
            r.store(xr.add(t * W));
            i.store(xi.add(t * W));
        }
    }
}

/// Writes frequencies 0..n of `x` (frequency k in row `rows[k]`) to the first `valid` lanes'
/// lines, `dst[off[j] + k·stride]`, after `post`; lane j is line `l0 + j` (for the twiddle
/// ω^(k·(l0 + j))). Frequencies go out in order, so the writes walk the lines forwards.
///
/// # Safety
/// The instruction set of `L`; every `off[j] + k·stride` for j < valid must be an element of
/// `dst` no other task touches, and `x` must hold n rows.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn scatter<L: Lanes, E: Elem>(
    n: usize,
    x: &Buf,
    rows: &[u32],
    dst: *mut E,
    off: &[usize; W],
    valid: usize,
    stride: usize,
    post: &Post,
    l0: usize,
) {
    debug_assert!(x.re.len() >= n * W);
    let (xr, xi) = (x.re.as_ptr(), x.im.as_ptr());
    let contiguous = valid == W && consecutive(off);
    for (k, &q) in rows[..n].iter().enumerate() {
        let q = q as usize;
        // SAFETY: the caller's contract; `rows` holds rows of `x`.
        unsafe {
            let (mut r, mut i) = (L::load(xr.add(q * W)), L::load(xi.add(q * W)));
            if post.pre_conj {
                i = i.mul(L::splat(-1.0));
            }
            if let Some(c) = post.chirp {
                (r, i) = cmul(r, i, L::splat(c[k].re), L::splat(c[k].im));
            }
            if let Some(tw) = post.twiddle {
                let b = tw.roots.get(k * l0);
                let (wr, wi) = cmul(
                    L::splat(b.re),
                    L::splat(b.im),
                    L::load(tw.re.as_ptr().add(k * W)),
                    L::load(tw.im.as_ptr().add(k * W)),
                );
                (r, i) = cmul(r, i, wr, wi);
            }
            if post.conj {
                i = i.mul(L::splat(-1.0));
            }
            if post.scale != 1.0 {
                r = r.mul(L::splat(post.scale));
                i = i.mul(L::splat(post.scale));
            }
            let base = k * stride;
            if contiguous {
                E::store_row(r, i, dst.add(off[0] + base));
            } else {
                let (mut rs, mut is) = ([0.0; W], [0.0; W]);
                r.store(rs.as_mut_ptr());
                i.store(is.as_mut_ptr());
                for j in 0..valid {
                    E::write(dst.add(off[j] + base), C128::new(rs[j], is[j]));
                }
            }
        }
    }
}

/// `gather` from either kind of array.
///
/// # Safety
/// As `gather`.
#[inline(always)]
unsafe fn gather_from<L: Lanes>(
    n: usize,
    src: Mem,
    off: &[usize; W],
    stride: usize,
    conj: bool,
    chirp: Option<&[C128]>,
    x: &mut Buf,
) {
    // SAFETY: the caller's contract.
    unsafe {
        match src {
            Mem::C128(p) => gather::<L, C128>(n, p, off, stride, conj, chirp, x),
            Mem::C64(p) => gather::<L, C64>(n, p, off, stride, conj, chirp, x),
        }
    }
}

/// `scatter` to either kind of array.
///
/// # Safety
/// As `scatter`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn scatter_to<L: Lanes>(
    n: usize,
    x: &Buf,
    rows: &[u32],
    dst: Mem,
    off: &[usize; W],
    valid: usize,
    stride: usize,
    post: &Post,
    l0: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        match dst {
            Mem::C128(p) => scatter::<L, C128>(n, x, rows, p, off, valid, stride, post, l0),
            Mem::C64(p) => scatter::<L, C64>(n, x, rows, p, off, valid, stride, post, l0),
        }
    }
}

/// Transforms blocks `b0..b1` of `io`'s lines with a blocked plan (`Direct`, or `Bluestein`
/// around a direct one). Inlined into one instance per instruction set.
///
/// # Safety
/// The instruction set of `L`; `io` must describe lines inside its arrays, no other task may
/// touch these blocks' lines, and `work`'s buffers must hold the plan's block length.
#[inline(always)]
unsafe fn blocks<L: Lanes>(plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
    for blk in b0..b1 {
        let l0 = blk * W;
        let valid = W.min(io.count - l0);
        // Lanes past the last line repeat it; they are computed and never written.
        let oi: [usize; W] = std::array::from_fn(|j| io.li.offset(l0 + j.min(valid - 1)));
        let oo: [usize; W] = std::array::from_fn(|j| io.lo.offset(l0 + j.min(valid - 1)));
        let mut post = Post {
            pre_conj: false,
            chirp: None,
            twiddle: io.twiddle,
            conj: io.conj_out,
            scale: io.scale,
        };
        let (si, so) = (io.li.stride, io.lo.stride);
        match &plan.kind {
            // SAFETY (both arms): the caller's contract covers these lines and buffers.
            Kind::Direct(st) => unsafe {
                gather_from::<L>(st.n, io.src, &oi, si, io.conj_in, None, &mut work.a);
                dif::<L>(st, &mut work.a);
                scatter_to::<L>(st.n, &work.a, &st.row, io.dst, &oo, valid, so, &post, l0);
            },
            Kind::Bluestein(b) => unsafe {
                let Kind::Direct(st) = &b.inner.kind else {
                    continue;
                };
                let (n, m) = (plan.n, st.n);
                let chirp = Some(&b.chirp[..]);
                gather_from::<L>(n, io.src, &oi, si, io.conj_in, chirp, &mut work.a);
                work.a.re[n * W..m * W].fill(0.0);
                work.a.im[n * W..m * W].fill(0.0);
                dif::<L>(st, &mut work.a);
                // The inverse of the convolution's transform, as conj(DFT(conj(·))): the product
                // with the kernel's transform (which carries the 1/m) is conjugated here, put
                // back in order for the second transform, and conjugated again on the way out.
                let (ar, ai) = (work.a.re.as_ptr(), work.a.im.as_ptr());
                let (br, bi) = (work.b.re.as_mut_ptr(), work.b.im.as_mut_ptr());
                for (k, (w, &q)) in b.bhat.iter().zip(&st.row).enumerate() {
                    let q = q as usize;
                    let (pr, pi) = cmul(
                        L::load(ar.add(q * W)),
                        L::load(ai.add(q * W)),
                        L::splat(w.re),
                        L::splat(w.im),
                    );
                    pr.store(br.add(k * W));
                    pi.mul(L::splat(-1.0)).store(bi.add(k * W));
                }
                dif::<L>(st, &mut work.b);
                post.pre_conj = true;
                post.chirp = chirp;
                scatter_to::<L>(n, &work.b, &st.row, io.dst, &oo, valid, so, &post, l0);
            },
            _ => {}
        }
    }
}

/// The instruction sets the block kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Portable,
    Avx2,
    Avx512,
}

impl Isa {
    fn best() -> Isa {
        [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .find(|i| i.available())
            .unwrap_or(Isa::Portable)
    }

    fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// `blocks` compiled for `isa`.
///
/// # Safety
/// As `blocks`, and `isa` must be available.
unsafe fn blocks_on(isa: Isa, plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
    match isa {
        // SAFETY: the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { blocks_avx512(plan, b0, b1, io, work) },
        // SAFETY: the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { blocks_avx2(plan, b0, b1, io, work) },
        // SAFETY: the caller's contract.
        _ => unsafe { blocks::<Portable>(plan, b0, b1, io, work) },
    }
}

/// # Safety
/// As `blocks`; AVX-512F must be available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn blocks_avx512(plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
    // SAFETY: the caller's contract.
    unsafe { blocks::<x86::Avx512>(plan, b0, b1, io, work) }
}

/// # Safety
/// As `blocks`; AVX2 must be available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn blocks_avx2(plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
    // SAFETY: the caller's contract.
    unsafe { blocks::<x86::Avx2>(plan, b0, b1, io, work) }
}

// ---------------------------------------------------------------------------------------------
// Plans

/// How one length is transformed.
struct Plan {
    n: usize,
    kind: Kind,
}

enum Kind {
    /// n ≤ 1: the transform is the identity.
    Identity,
    /// A power of two, W lines per block.
    Direct(Stages),
    /// Any other length, around a power-of-two plan of length m ≥ 2n − 1: blocked when that
    /// plan is `Direct`, one line at a time otherwise.
    Bluestein(Box<Bluestein>),
    /// A long power of two, one line at a time.
    FourStep(Box<FourStep>),
}

struct Bluestein {
    /// e^(−πi·t²/n) for t < n.
    chirp: Vec<C128>,
    /// The transform of the convolution kernel conj(chirp[|t|]) (wrapped to length m), over m.
    bhat: Vec<C128>,
    inner: Plan,
}

struct FourStep {
    n1: usize,
    n2: usize,
    /// Length n1, over the n2 columns.
    p1: Plan,
    /// Length n2, over the n1 rows.
    p2: Plan,
    twiddle: Twiddle,
}

impl Plan {
    /// The plan for `count` lines of length `n`.
    fn new(n: usize, count: usize, isa: Isa) -> Plan {
        if n <= 1 {
            return Plan {
                n,
                kind: Kind::Identity,
            };
        }
        if n.is_power_of_two() {
            // A single line in a block would leave W − 1 lanes idle; the four-step path keeps
            // them busy (its columns and rows are blocks of W) once n ≥ 64 = 8 · 8.
            return if n > DIRECT_MAX || (count < W && n >= 64) {
                Plan::four_step(n)
            } else {
                Plan::direct(n)
            };
        }
        let m = (2 * n - 1).next_power_of_two();
        let inner = if m <= DIRECT_MAX {
            Plan::direct(m)
        } else {
            Plan::new(m, 1, isa)
        };
        // t² mod 2n keeps the angle's argument exact; the two-level roots spare a sine and
        // cosine per element (they were most of a long prime-length transform's time).
        let roots = Roots::new(2 * n);
        let chirp: Vec<C128> = fresh(n, |t| {
            roots.get((t as u128 * t as u128 % (2 * n as u128)) as usize)
        });
        let mut bhat = fresh(m, |_| C128::new(0.0, 0.0));
        bhat[0] = chirp[0].conj();
        for t in 1..n {
            bhat[t] = chirp[t].conj();
            bhat[m - t] = chirp[t].conj();
        }
        let p = Mem::C128(bhat.as_mut_ptr());
        let line = Lines::run(0, 0, 1);
        let io = Io {
            count: 1,
            src: p,
            li: line,
            dst: p,
            lo: line,
            conj_in: false,
            conj_out: false,
            scale: 1.0 / m as f64,
            twiddle: None,
        };
        // SAFETY: one line of m elements, `bhat` itself, touched by nothing else.
        unsafe { inner.run(&io, isa, true) };
        Plan {
            n,
            kind: Kind::Bluestein(Box::new(Bluestein { chirp, bhat, inner })),
        }
    }

    fn direct(n: usize) -> Plan {
        Plan {
            n,
            kind: Kind::Direct(Stages::new(n)),
        }
    }

    fn four_step(n: usize) -> Plan {
        let n1 = 1 << (n.trailing_zeros() / 2);
        let n2 = n / n1;
        Plan {
            n,
            kind: Kind::FourStep(Box::new(FourStep {
                n1,
                n2,
                p1: Plan::direct(n1),
                p2: Plan::direct(n2),
                twiddle: Twiddle::new(n, n1),
            })),
        }
    }

    /// The rows of a block buffer for this plan, when it runs in blocks.
    fn block_len(&self) -> Option<usize> {
        match &self.kind {
            Kind::Direct(_) => Some(self.n),
            Kind::Bluestein(b) => match b.inner.kind {
                Kind::Direct(_) => Some(b.inner.n),
                _ => None,
            },
            _ => None,
        }
    }

    /// Runs the transform `io` describes, on the kernel pool when `par` and it is worth it.
    ///
    /// # Safety
    /// `io`'s lines must lie inside its arrays, be disjoint from each other in `dst`, and not be
    /// touched by anything else while this runs; `src` and `dst` are either disjoint or the same
    /// array with the same lines.
    unsafe fn run(&self, io: &Io, isa: Isa, par: bool) {
        if io.count == 0 {
            return;
        }
        match &self.kind {
            Kind::Identity => {
                if self.n == 1 {
                    for l in 0..io.count {
                        // SAFETY: element 0 of line l, in both arrays.
                        unsafe {
                            let mut v = io.src.read(io.li.offset(l));
                            if io.conj_in != io.conj_out {
                                v = v.conj();
                            }
                            io.dst.write(io.lo.offset(l), v * io.scale);
                        }
                    }
                }
            }
            // SAFETY: the caller's contract.
            Kind::FourStep(f) => unsafe { f.run(io, isa, par) },
            // SAFETY: the caller's contract.
            Kind::Bluestein(b) if self.block_len().is_none() => unsafe {
                b.run_lines(self.n, io, isa, par)
            },
            Kind::Direct(_) | Kind::Bluestein(_) => {
                let len = self.block_len().unwrap_or(self.n);
                let blocks = io.count.div_ceil(W);
                let tasks = if par && len * io.count >= PAR_MIN {
                    blocks.min(4 * threads())
                } else {
                    1
                };
                run_tasks(tasks, &|t| {
                    let bluestein = matches!(self.kind, Kind::Bluestein(_));
                    let mut work = Work {
                        a: Buf::new(len),
                        b: Buf::new(if bluestein { len } else { 0 }),
                    };
                    let (b0, b1) = (blocks * t / tasks, blocks * (t + 1) / tasks);
                    // SAFETY: the blocks of different tasks are different lines; the rest is
                    // the caller's contract.
                    unsafe { blocks_on(isa, self, b0, b1, io, &mut work) };
                });
            }
        }
    }
}

/// Runs `line(l, scratch, par)` for every line: in parallel over lines when there are enough of
/// them to keep every thread busy (each line then runs alone on its thread), else one line after
/// another, each using every thread.
fn for_lines(
    count: usize,
    par: bool,
    scratch: &(dyn Fn() -> Vec<C128> + Sync),
    line: &(dyn Fn(usize, &mut Vec<C128>, bool) + Sync),
) {
    let th = threads();
    if par && count >= 2 * th {
        let tasks = count.min(4 * th);
        run_tasks(tasks, &|t| {
            let mut s = scratch();
            for l in count * t / tasks..count * (t + 1) / tasks {
                line(l, &mut s, false);
            }
            recycle::keep(s);
        });
    } else {
        let mut s = scratch();
        for l in 0..count {
            line(l, &mut s, par);
        }
        recycle::keep(s);
    }
}

impl FourStep {
    /// # Safety
    /// As `Plan::run`.
    unsafe fn run(&self, io: &Io, isa: Isa, par: bool) {
        let (n1, n2) = (self.n1, self.n2);
        // The scratch between the two steps comes from the recycled buffers: a new mapping of
        // 8 MiB costs more in page faults than the transform. The first step writes all of it
        // before the second reads it, through raw pointers only, so it is never initialised.
        let scratch = || fresh_vec::<C128>(n1 * n2);
        for_lines(io.count, par, &scratch, &|l, z, par| {
            let zp = Mem::C128(z.as_mut_ptr());
            // Columns: element t1 of column t2 at t1·n2 + t2 of the line, into the same place
            // of `z`, times ω_n^(k1·t2).
            let cols = Io {
                count: n2,
                src: io.src,
                li: Lines::run(io.li.offset(l), io.li.stride, n2 * io.li.stride),
                dst: zp,
                lo: Lines::run(0, 1, n2),
                conj_in: io.conj_in,
                conj_out: false,
                scale: 1.0,
                twiddle: Some(&self.twiddle),
            };
            // SAFETY: line l of `src` and the private `z` (room for n1·n2); columns are
            // disjoint.
            unsafe { self.p1.run(&cols, isa, par) };
            // Rows: row k1 of `z` (contiguous) into X[k1 + n1·k2].
            let rows = Io {
                count: n1,
                src: zp,
                li: Lines::run(0, n2, 1),
                dst: io.dst,
                lo: Lines::run(io.lo.offset(l), io.lo.stride, n1 * io.lo.stride),
                conj_in: false,
                conj_out: io.conj_out,
                scale: io.scale,
                twiddle: None,
            };
            // SAFETY: `z`, all written by the first step, and line l of `dst`, whose source
            // the first step consumed.
            unsafe { self.p2.run(&rows, isa, par) };
        });
    }
}

impl Bluestein {
    /// One line at a time, for an inner plan too long to run in blocks.
    ///
    /// # Safety
    /// As `Plan::run`.
    unsafe fn run_lines(&self, n: usize, io: &Io, isa: Isa, par: bool) {
        let m = self.inner.n;
        let zero = C128::new(0.0, 0.0);
        for_lines(io.count, par, &|| fresh(m, |_| zero), &|l, a, par| {
            let (ib, ob) = (io.li.offset(l), io.lo.offset(l));
            // The element-wise steps are as long as the transforms' passes: in parallel too.
            let each = |a: &mut [C128], f: &(dyn Fn(usize, &mut C128) + Sync)| {
                let body = |off: usize, c: &mut [C128]| {
                    for (i, v) in c.iter_mut().enumerate() {
                        f(off + i, v);
                    }
                };
                if par {
                    for_each_chunk(a, chunk(a.len()), &body);
                } else {
                    body(0, a);
                }
            };
            each(a, &|t, v| {
                *v = if t < n {
                    // SAFETY: element t of line l of `src`.
                    let x = unsafe { io.src.read(ib + t * io.li.stride) };
                    let x = if io.conj_in { x.conj() } else { x };
                    x * self.chirp[t]
                } else {
                    zero
                };
            });
            let line = Lines::run(0, 0, 1);
            let fwd = |a: &mut Vec<C128>| {
                let p = Mem::C128(a.as_mut_ptr());
                let one = Io {
                    count: 1,
                    src: p,
                    li: line,
                    dst: p,
                    lo: line,
                    conj_in: false,
                    conj_out: false,
                    scale: 1.0,
                    twiddle: None,
                };
                // SAFETY: the private scratch line.
                unsafe { self.inner.run(&one, isa, par) };
            };
            fwd(a);
            each(a, &|k, v| *v = (*v * self.bhat[k]).conj());
            fwd(a);
            each(&mut a[..n], &|t, v| {
                let y = v.conj() * self.chirp[t];
                let y = if io.conj_out { y.conj() } else { y } * io.scale;
                // SAFETY: element t of line l of `dst`, written by this element only.
                unsafe { io.dst.write(ob + t * io.lo.stride, y) };
            });
        });
    }
}

// ---------------------------------------------------------------------------------------------
// The real transforms' steps between length n and n/2

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
unsafe fn half_step<L: Lanes, S: Elem, D: Elem>(
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
unsafe fn half_step_mem<L: Lanes>(
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
unsafe fn half_step_on(
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
fn half_steps<D: Elem + Send + 'static>(
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

// ---------------------------------------------------------------------------------------------
// The op

/// The lines along `axis` of a row-major array with `dims`.
fn axis_lines(dims: &[usize], axis: usize) -> (usize, Lines) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let total: usize = dims.iter().product();
    let lines = Lines {
        inner: inner.max(1),
        base: 0,
        outer_step: n * inner,
        inner_step: 1,
        stride: inner,
    };
    (total.checked_div(n).unwrap_or(0), lines)
}

/// Transforms the lines along `axis` of `src` into the same places of `dst` (row-major arrays
/// with `dims`): forward, or conj(DFT(conj ·)) when `conj`, each result times `scale`.
///
/// # Safety
/// Both arrays must hold the product of `dims` elements; `dst` must not be touched by anything
/// else meanwhile, and `src` must be `dst` or an array nothing writes.
unsafe fn transform(
    src: Mem,
    dst: Mem,
    dims: &[usize],
    axis: usize,
    conj: bool,
    scale: f64,
    isa: Isa,
) {
    let n = dims[axis];
    let (count, lines) = axis_lines(dims, axis);
    if n == 0 || count == 0 {
        return;
    }
    let io = Io {
        count,
        src,
        li: lines,
        dst,
        lo: lines,
        conj_in: conj,
        conj_out: conj,
        scale,
        twiddle: None,
    };
    // SAFETY: the lines along an axis partition the array; the rest is the caller's contract.
    unsafe { Plan::new(n, count, isa).run(&io, isa, true) };
}

/// `transform` in place on a vector.
fn transform_axis(
    data: &mut [C128],
    dims: &[usize],
    axis: usize,
    conj: bool,
    scale: f64,
    isa: Isa,
) {
    // The shape is the caller's to get right; a wrong one must not become a wild access.
    if data.len() != dims.iter().product::<usize>() {
        debug_assert!(false, "{} elements for dims {dims:?}", data.len());
        return;
    }
    let p = Mem::C128(data.as_mut_ptr());
    // SAFETY: `data` holds the array (just checked) and is borrowed mutably here.
    unsafe { transform(p, p, dims, axis, conj, scale, isa) };
}

/// The scale of a transform along `axis`: 1/n for the inverse.
fn scale_of(dims: &[usize], axis: usize, inverse: bool) -> f64 {
    if inverse {
        1.0 / dims[axis].max(1) as f64
    } else {
        1.0
    }
}

/// The forward (or, with 1/n, inverse) transform along `axis`, in place.
fn complex_axis(data: &mut [C128], dims: &[usize], axis: usize, inverse: bool, isa: Isa) {
    transform_axis(
        data,
        dims,
        axis,
        inverse,
        scale_of(dims, axis, inverse),
        isa,
    );
}

/// The FFT or IFFT along the `axes` of `src` into `out`: the first transform reads `src`, the
/// others work in place, on `out` when it is complex f64, else on a complex f64 work array
/// whose last transform writes `out`. Every element of `out` is written.
///
/// # Safety
/// As `transform`, for both arrays.
unsafe fn transform_axes(
    src: Mem,
    out: Mem,
    dims: &[usize],
    axes: std::ops::Range<usize>,
    inverse: bool,
    isa: Isa,
) {
    let total: usize = dims.iter().product();
    let (first, last) = (axes.start, axes.end - 1);
    let mut work = Vec::new();
    let mid = match out {
        Mem::C128(_) => out,
        Mem::C64(_) if first == last => out,
        Mem::C64(_) => {
            work = fresh_vec::<C128>(total);
            Mem::C128(work.as_mut_ptr())
        }
    };
    // SAFETY: the caller's contract; `work` (written whole by the first transform before
    // anything reads it) holds `total` elements.
    unsafe {
        for ax in axes {
            let from = if ax == first { src } else { mid };
            let to = if ax == last { out } else { mid };
            transform(
                from,
                to,
                dims,
                ax,
                inverse,
                scale_of(dims, ax, inverse),
                isa,
            );
        }
    }
    recycle::keep(work);
}

/// Chunks for the element-wise passes over whole arrays (conversions, split steps).
fn chunk(n: usize) -> usize {
    chunk_for(n, 1 << 14)
}

/// `f(i)` for i < n in a fresh buffer, filled in parallel. Fresh buffers come from the recycled
/// ones when one of about the size is at hand: a new 8 MiB mapping costs more in page faults
/// than the transform.
fn fresh<U: Send + 'static>(n: usize, f: impl Fn(usize) -> U + Sync) -> Vec<U> {
    fill_fresh(n, chunk(n), &|off, dst| {
        for (i, d) in dst.iter_mut().enumerate() {
            d.write(f(off + i));
        }
    })
}

/// `f(l, k)` for the `lines × len` elements of `lines` lines of `len`, like `fresh` (walking the
/// indices, since a division per element would cost more than the element's work).
fn fresh_lines<U: Send + 'static>(
    lines: usize,
    len: usize,
    f: impl Fn(usize, usize) -> U + Sync,
) -> Vec<U> {
    let n = lines * len;
    fill_fresh(n, chunk(n), &|off, dst| {
        let (mut l, mut k) = (off / len, off % len);
        for d in dst.iter_mut() {
            d.write(f(l, k));
            k += 1;
            if k == len {
                k = 0;
                l += 1;
            }
        }
    })
}

/// A fresh vector of n elements that `fill` writes through the pointer it gets, every one of
/// them.
///
/// # Safety
/// `fill` must write all n elements.
unsafe fn filled<T: Send + 'static>(n: usize, fill: impl FnOnce(*mut T)) -> Vec<T> {
    let mut v = fresh_vec::<T>(n);
    fill(v.as_mut_ptr());
    // SAFETY: the caller's contract.
    unsafe { v.set_len(n) };
    v
}

/// The operand's elements as a `Mem` (read only), when they are complex.
fn complex_mem(a: &Array) -> Option<Mem> {
    match &a.data {
        ArrayData::C64(v) => Some(Mem::C64(v.as_ptr().cast_mut())),
        ArrayData::C128(v) => Some(Mem::C128(v.as_ptr().cast_mut())),
        _ => None,
    }
}

/// The operand as complex f64.
fn complex_operand(a: &Array) -> Result<Vec<C128>> {
    Ok(match &a.data {
        ArrayData::C64(v) => fresh(v.len(), |i| C128::new(v[i].re as f64, v[i].im as f64)),
        ArrayData::C128(v) => fresh(v.len(), |i| v[i]),
        _ => to_c128(a)?,
    })
}

/// A complex result rounded once to `ty`; `d` goes back to the recycled buffers.
fn complex_result(ty: ElementType, d: Vec<C128>) -> Result<ArrayData> {
    match ty {
        ElementType::C64 => {
            let out = fresh(d.len(), |i| C64::new(d[i].re as f32, d[i].im as f32));
            recycle::keep(d);
            Ok(ArrayData::C64(out.into()))
        }
        ElementType::C128 => Ok(ArrayData::C128(d.into())),
        _ => from_c128(ty, d),
    }
}

/// The real result `x[i] = value(i)` rounded once to `ty`.
fn real_result(
    ty: ElementType,
    n: usize,
    value: impl Fn(usize) -> f64 + Sync,
) -> Result<ArrayData> {
    match ty {
        ElementType::F32 => Ok(ArrayData::F32(fresh(n, |i| value(i) as f32).into())),
        ElementType::F64 => Ok(ArrayData::F64(fresh(n, value).into())),
        _ => from_f64(ty, (0..n).map(value).collect()),
    }
}

/// FFT or IFFT over the axes `axes`, straight from the operand into the result.
fn complex_op(
    a: &Array,
    ty: ElementType,
    dims: &[usize],
    axes: std::ops::Range<usize>,
    inverse: bool,
    isa: Isa,
) -> Result<ArrayData> {
    let total = a.len();
    let src = complex_mem(a).ok_or_else(|| Error::internal("FFT of a non-complex operand"))?;
    Ok(match ty {
        ElementType::C64 => {
            // SAFETY: the operand is only read; the fresh result is written whole.
            let v = unsafe {
                filled::<C64>(total, |p| {
                    transform_axes(src, Mem::C64(p), dims, axes, inverse, isa)
                })
            };
            ArrayData::C64(v.into())
        }
        _ => {
            // SAFETY: as above.
            let v = unsafe {
                filled::<C128>(total, |p| {
                    transform_axes(src, Mem::C128(p), dims, axes, inverse, isa)
                })
            };
            complex_result(ty, v)?
        }
    })
}

/// The RFFT along the innermost axis of `a`, `lines` lines of length n: `lines × (n/2 + 1)`
/// frequencies, rounded to `D` (the result type when no other axis follows).
fn rfft_lines<D: Elem + Send + 'static>(
    a: &Array,
    lines: usize,
    n: usize,
    isa: Isa,
) -> Result<Vec<D>> {
    let keep = n / 2 + 1;
    if lines == 0 || n == 0 {
        return Ok(Vec::new());
    }
    if n % 2 == 1 {
        let x = to_f64(a)?;
        let mut c = fresh(lines * n, |i| C128::new(x[i], 0.0));
        complex_axis(&mut c, &[lines, n], 1, false, isa);
        let out = fresh_lines(lines, keep, |l, k| D::round(c[l * n + k]));
        recycle::keep(c);
        return Ok(out);
    }
    let half = n / 2;
    // The reals taken in pairs, z[t] = x[2t] + i·x[2t+1]: C64 is two f32s and C128 two f64s
    // (`repr(C)`, the alignment of their parts), so the lines·n reals are lines·n/2 of them.
    let owned;
    let pairs = match &a.data {
        ArrayData::F32(v) => Mem::C64(v.as_ptr().cast::<C64>().cast_mut()),
        ArrayData::F64(v) => Mem::C128(v.as_ptr().cast::<C128>().cast_mut()),
        _ => {
            owned = to_f64(a)?;
            Mem::C128(owned.as_ptr().cast::<C128>().cast_mut())
        }
    };
    let dims = [lines, half];
    // SAFETY: the pairs are only read; the fresh array is written whole.
    let mut z = unsafe {
        filled::<C128>(lines * half, |p| {
            transform(pairs, Mem::C128(p), &dims, 1, false, 1.0, isa)
        })
    };
    let out = half_steps::<D>(false, Mem::C128(z.as_mut_ptr()), lines, n, isa);
    recycle::keep(z);
    Ok(out)
}

/// IRFFT of `lines` lines of `have` = n/2 + 1 frequencies (`spec`, read only), written as `ty`
/// (`lines × n`).
fn irfft_lines(
    spec: Mem,
    lines: usize,
    have: usize,
    n: usize,
    ty: ElementType,
    isa: Isa,
) -> Result<ArrayData> {
    if lines == 0 || n == 0 {
        return real_result(ty, 0, |_| 0.0);
    }
    if have != n / 2 + 1 {
        return Err(Error::internal(format!(
            "IRFFT of length {n} needs {} frequencies, got {have}",
            n / 2 + 1
        )));
    }
    // SAFETY (every read of `spec` below): the caller's `lines × have` elements.
    let x = |l: usize, j: usize| unsafe { spec.read(l * have + j) };
    if n % 2 == 1 {
        // Rebuild the full spectrum of a real signal, X[n − j] = conj(X[j]), and keep the real
        // part of its inverse.
        let mut full = fresh_lines(lines, n, |l, j| {
            if j < have {
                x(l, j)
            } else {
                x(l, n - j).conj()
            }
        });
        complex_axis(&mut full, &[lines, n], 1, true, isa);
        let out = real_result(ty, lines * n, |i| full[i].re);
        recycle::keep(full);
        return out;
    }
    let half = n / 2;
    // Z[k] = E[k] + i·O[k] with 2E[k] = X[k] + conj X[n/2−k] and 2O[k] = ω^−k (X[k] − conj
    // X[n/2−k]); the halves are folded into the 1/n below. Only the real parts of X[0] and
    // X[n/2] count (the Hermitian part of the spectrum is what a real signal has).
    let mut z = half_steps::<C128>(true, spec, lines, n, isa);
    let (dims, scale) = ([lines, half], 1.0 / n as f64);
    // The inverse transform writes x[2t] + i·x[2t+1] = z[t] straight into the result's reals.
    let out = match ty {
        ElementType::F32 => {
            // SAFETY: `z` is read only; the fresh result, lines·n f32s = lines·n/2 C64s, is
            // written whole.
            let v = unsafe {
                filled::<f32>(lines * n, |p| {
                    transform(
                        Mem::C128(z.as_mut_ptr()),
                        Mem::C64(p.cast::<C64>()),
                        &dims,
                        1,
                        true,
                        scale,
                        isa,
                    )
                })
            };
            ArrayData::F32(v.into())
        }
        ElementType::F64 => {
            // SAFETY: as above, with C128s.
            let v = unsafe {
                filled::<f64>(lines * n, |p| {
                    transform(
                        Mem::C128(z.as_mut_ptr()),
                        Mem::C128(p.cast::<C128>()),
                        &dims,
                        1,
                        true,
                        scale,
                        isa,
                    )
                })
            };
            ArrayData::F64(v.into())
        }
        _ => {
            transform_axis(&mut z, &dims, 1, true, scale, isa);
            real_result(ty, lines * n, |i| {
                let v = z[i / 2];
                if i % 2 == 0 { v.re } else { v.im }
            })?
        }
    };
    recycle::keep(z);
    Ok(out)
}

/// Unnormalised DFT of any length (the inverse direction uses e^(+2πi·tk/n)).
#[cfg(test)]
fn dft(x: &mut [C128], inverse: bool) {
    let n = x.len();
    transform_axis(x, &[n], 0, inverse, 1.0, Isa::best());
}

pub fn fft(inst: &Instruction, attrs: &FftAttrs, a: &Array) -> Result<Literal> {
    let kind = attrs.fft_type;
    let lengths = &attrs.fft_length[..];
    let out_shape = crate::eval::Evaluator::result_array_shape(inst)?.clone();
    let rank = a.rank();
    let k = lengths.len();
    if k == 0 || k > rank {
        return Err(Error::internal(
            "fft_length must name 1 to rank innermost dimensions",
        ));
    }
    let isa = Isa::best();
    let dims: Vec<usize> = a.dims().iter().map(|&d| d as usize).collect();
    let last = rank - 1;
    let data = match kind {
        FftType::Fft | FftType::Ifft => complex_op(
            a,
            out_shape.ty,
            &dims,
            rank - k..rank,
            kind == FftType::Ifft,
            isa,
        )?,
        FftType::Rfft => {
            let n = dims[last];
            let lines = a.len().checked_div(n).unwrap_or(0);
            if k == 1 && out_shape.ty == ElementType::C64 {
                let d = rfft_lines::<C64>(a, lines, n, isa)?;
                return Ok(Literal::Array(Array::from_data(
                    out_shape,
                    ArrayData::C64(d.into()),
                )?));
            }
            let mut d = rfft_lines::<C128>(a, lines, n, isa)?;
            let mut dims = dims;
            // The result's innermost dimension (none for a length of 0).
            dims[last] = if n == 0 { 0 } else { n / 2 + 1 };
            for ax in rank - k..last {
                complex_axis(&mut d, &dims, ax, false, isa);
            }
            complex_result(out_shape.ty, d)?
        }
        FftType::Irfft => {
            let n = *lengths.last().unwrap_or(&0) as usize;
            let have = dims[last];
            let lines = a.len().checked_div(have).unwrap_or(0);
            if k == 1 {
                let spec =
                    complex_mem(a).ok_or_else(|| Error::internal("IRFFT of a real operand"))?;
                irfft_lines(spec, lines, have, n, out_shape.ty, isa)?
            } else {
                let mut d = complex_operand(a)?;
                for ax in rank - k..last {
                    complex_axis(&mut d, &dims, ax, true, isa);
                }
                let out =
                    irfft_lines(Mem::C128(d.as_mut_ptr()), lines, have, n, out_shape.ty, isa)?;
                recycle::keep(d);
                out
            }
        }
    };
    Ok(Literal::Array(Array::from_data(out_shape, data)?))
}

#[cfg(test)]
mod tests;
