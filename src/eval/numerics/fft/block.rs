//! The FFT's block kernel: `W` lines of one power-of-two length in split real/imaginary
//! buffers `[n][W]` (radix-4 decimation in frequency, `LEAF`-sized sub-problems finished in L1),
//! the lines of an array and the copies between them and blocks, and the kernel's instances
//! per instruction set. The algorithm is described in the module above.

use super::*;

/// A block: row t holds element t of each of the W lines.
pub(super) struct Buf {
    pub(super) re: Vec<f64>,
    pub(super) im: Vec<f64>,
}

impl Buf {
    pub(super) fn new(len: usize) -> Buf {
        Buf {
            re: vec![0.0; len * W],
            im: vec![0.0; len * W],
        }
    }
}

/// A task's blocks: `b` holds Bluestein's second transform (empty otherwise).
pub(super) struct Work {
    pub(super) a: Buf,
    pub(super) b: Buf,
}

/// The radix-4 decimation-in-frequency stages of a length-n transform (n a power of two): for
/// each level of sub-length l ≥ 8 (n, n/4, …), the twiddles (ω_l^p, ω_l^2p, ω_l^3p) for
/// p < l/4, taken from the exact values ω_n^(p·n/l) rather than powers of ω_l; and `row[k]`,
/// the row where frequency k ends (base-4 digit reversal, the last digit base 2 when log2 n is
/// odd).
pub(super) struct Stages {
    pub(super) n: usize,
    pub(super) tw: Vec<Vec<[f64; 6]>>,
    pub(super) row: Vec<u32>,
}

impl Stages {
    pub(super) fn new(n: usize) -> Stages {
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
pub(super) const LEAF: usize = 64;

/// One radix-4 level on the sub-array of rows `base..base + 4m` in place: rows base + p + r·m,
/// r = 0..3, become (a + c) + (b + d), ω^p·((a − c) − i(b − d)), ω^2p·((a + c) − (b + d)) and
/// ω^3p·((a − c) + i(b − d)), with the twiddles `tw` (m triples; None: all 1, for m = 1).
///
/// # Safety
/// The instruction set of `L`; the rows must lie in `x`.
#[inline(always)]
pub(super) unsafe fn radix4<L: Lanes>(x: &mut Buf, base: usize, m: usize, tw: Option<&[[f64; 6]]>) {
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
pub(super) unsafe fn radix2<L: Lanes>(x: &mut Buf, base: usize, len: usize) {
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
pub(super) unsafe fn levels<L: Lanes>(
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
pub(super) unsafe fn dif<L: Lanes>(st: &Stages, x: &mut Buf) {
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
pub(super) struct Lines {
    pub(super) inner: usize,
    pub(super) base: usize,
    pub(super) outer_step: usize,
    pub(super) inner_step: usize,
    pub(super) stride: usize,
}

impl Lines {
    /// Lines `l · step` apart from `base`, elements `stride` apart.
    pub(super) fn run(base: usize, step: usize, stride: usize) -> Lines {
        Lines {
            inner: usize::MAX,
            base,
            outer_step: 0,
            inner_step: step,
            stride,
        }
    }

    #[inline(always)]
    pub(super) fn offset(&self, l: usize) -> usize {
        self.base + l / self.inner * self.outer_step + l % self.inner * self.inner_step
    }
}

/// The array a transform reads or writes, as a raw pointer the kernel pool's tasks share (the
/// tasks of one transform touch disjoint sets of lines, which is what makes sharing it sound):
/// complex f64, or complex f32, which is also how f32 reals taken in pairs are read (the RFFT's
/// z[t] = x[2t] + i·x[2t+1]) and written (the IRFFT's result). Reading and writing the operand's
/// and the result's own types spares a conversion pass over each.
#[derive(Clone, Copy)]
pub(super) enum Mem {
    C128(*mut C128),
    C64(*mut C64),
}
// SAFETY: see the type's comment; every use states which elements a task touches.
unsafe impl Send for Mem {}
// SAFETY: as above.
unsafe impl Sync for Mem {}

/// An element type lines are stored in.
pub(super) trait Elem: Copy {
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
    pub(super) fn offset(self, i: usize) -> Mem {
        match self {
            Mem::C128(p) => Mem::C128(p.wrapping_add(i)),
            Mem::C64(p) => Mem::C64(p.wrapping_add(i)),
        }
    }

    /// Element `i`, widened.
    /// # Safety
    /// Element `i` must be readable.
    #[inline(always)]
    pub(super) unsafe fn read(self, i: usize) -> C128 {
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
    pub(super) unsafe fn write(self, i: usize, v: C128) {
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
pub(super) struct Twiddle {
    pub(super) roots: Roots,
    pub(super) re: Vec<f64>,
    pub(super) im: Vec<f64>,
}

impl Twiddle {
    pub(super) fn new(n: usize, n1: usize) -> Twiddle {
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
pub(super) struct Io<'a> {
    pub(super) count: usize,
    pub(super) src: Mem,
    pub(super) li: Lines,
    pub(super) dst: Mem,
    pub(super) lo: Lines,
    pub(super) conj_in: bool,
    pub(super) conj_out: bool,
    pub(super) scale: f64,
    pub(super) twiddle: Option<&'a Twiddle>,
}

impl Io<'_> {
    /// One contiguous line at `p`, transformed in place and multiplied by `scale` (the private
    /// scratch lines of Bluestein's algorithm).
    pub(super) fn one_line(p: Mem, scale: f64) -> Io<'static> {
        let line = Lines::run(0, 0, 1);
        Io {
            count: 1,
            src: p,
            li: line,
            dst: p,
            lo: line,
            conj_in: false,
            conj_out: false,
            scale,
            twiddle: None,
        }
    }
}

/// What happens to a block's rows on their way out.
pub(super) struct Post<'a> {
    /// Conjugate first (Bluestein's inverse convolution).
    pub(super) pre_conj: bool,
    pub(super) chirp: Option<&'a [C128]>,
    pub(super) twiddle: Option<&'a Twiddle>,
    pub(super) conj: bool,
    pub(super) scale: f64,
}

/// Whether the W lanes are consecutive elements, so a row moves as one vector of complex values.
#[inline(always)]
pub(super) fn consecutive(off: &[usize; W]) -> bool {
    (1..W).all(|j| off[j] == off[0] + j)
}

/// Copies element t of lane j, `src[off[j] + t·stride]`, into row t of `x` for t < n,
/// conjugated when `conj` and multiplied by `chirp[t]` when given.
///
/// # Safety
/// The instruction set of `L`; every `off[j] + t·stride` must be an element of `src` no other
/// task writes, and `x` must hold n rows.
#[inline(always)]
pub(super) unsafe fn gather<L: Lanes, E: Elem>(
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
pub(super) unsafe fn scatter<L: Lanes, E: Elem>(
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
pub(super) unsafe fn gather_from<L: Lanes>(
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
pub(super) unsafe fn scatter_to<L: Lanes>(
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
pub(super) unsafe fn blocks<L: Lanes>(plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
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
pub(super) enum Isa {
    Portable,
    Avx2,
    Avx512,
}

impl Isa {
    pub(super) fn best() -> Isa {
        [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .find(|i| i.available())
            .unwrap_or(Isa::Portable)
    }

    pub(super) fn available(self) -> bool {
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
pub(super) unsafe fn blocks_on(
    isa: Isa,
    plan: &Plan,
    b0: usize,
    b1: usize,
    io: &Io,
    work: &mut Work,
) {
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
pub(super) unsafe fn blocks_avx512(plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
    // SAFETY: the caller's contract.
    unsafe { blocks::<x86::Avx512>(plan, b0, b1, io, work) }
}

/// # Safety
/// As `blocks`; AVX2 must be available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn blocks_avx2(plan: &Plan, b0: usize, b1: usize, io: &Io, work: &mut Work) {
    // SAFETY: the caller's contract.
    unsafe { blocks::<x86::Avx2>(plan, b0, b1, io, work) }
}
