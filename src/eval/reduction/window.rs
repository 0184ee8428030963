//! Windows: `reduce-window` and `select-and-scatter`, and the window arithmetic the verifier
//! shares (XLA's `InferWindowOutputShape`, `window_util::DilateDim` and `StridedBound`).
//!
//! In one dimension of size `n`, the base is dilated (`lhs_dilate - 1` holes between elements,
//! `(n-1)*lhs_dilate + 1` positions), padded (`pad_lo` and `pad_hi` positions on either side) and
//! the window of `size` taps, `rhs_dilate` apart, slides over it `stride` at a time. Output
//! position `o` with window tap `k` looks at padded position `o*stride + k*rhs_dilate`, which is
//! operand element `(p - pad_lo) / lhs_dilate` when that division is exact and in range; padding
//! positions and dilation holes hold no element and are skipped, as XLA's evaluator does (the
//! same as reading the init value there when the init value is an identity of the reducer).
//!
//! A window's taps are visited in row-major order of the window (the first window dimension
//! slowest); reduce-window folds them into the init value in that order, select-and-scatter
//! applies `select` in that order.

use super::fast::{self, FoldPlan};
use super::{Evaluator, fold_all, inputs_and_inits, scalar_literals};
use crate::error::{Error, Result};
use crate::eval::elementwise::lanes;
use crate::hlo::ast::{Instruction, Window, WindowDim};
use crate::hlo::attrs::{ReduceWindowAttrs, SelectAndScatterAttrs};
use crate::literal::{Array, ArrayData, Literal, Scalar};
use crate::shape::row_major_strides;
use crate::shape::window::{dilated_bound, window_output_size};

/// The geometry of one window dimension over an operand dimension of size `n`, on a verified
/// module: the sizes come from `shape::window`'s formula, which the verifier already ran on the
/// same values without overflow.
#[derive(Clone, Copy, Debug)]
pub struct WindowGeom {
    pub n: i64,
    pub size: i64,
    pub stride: i64,
    pub pad_lo: i64,
    pub pad_hi: i64,
    pub lhs: i64,
    pub rhs: i64,
}

impl WindowGeom {
    pub fn new(n: i64, d: &WindowDim) -> WindowGeom {
        WindowGeom {
            n,
            size: d.size,
            stride: d.stride,
            pad_lo: d.pad_lo,
            pad_hi: d.pad_hi,
            lhs: d.lhs_dilate,
            rhs: d.rhs_dilate,
        }
    }
    /// Positions of the dilated base: `(n-1)*lhs_dilate + 1`, or 0 for an empty dimension.
    pub fn dilated_base(&self) -> i64 {
        dilated_bound(self.n, self.lhs).unwrap_or(i64::MAX)
    }
    /// Positions the dilated window spans: `(size-1)*rhs_dilate + 1`.
    pub fn dilated_window(&self) -> i64 {
        dilated_bound(self.size, self.rhs).unwrap_or(i64::MAX)
    }
    /// Number of window positions.
    pub fn out(&self) -> i64 {
        let d = WindowDim {
            size: self.size,
            stride: self.stride,
            pad_lo: self.pad_lo,
            pad_hi: self.pad_hi,
            lhs_dilate: self.lhs,
            rhs_dilate: self.rhs,
            reversal: false,
        };
        window_output_size(self.n, &d).unwrap_or(0)
    }
    /// The operand indices output position `o`'s taps read, in tap order (taps on padding or
    /// on a dilation hole read nothing and are left out). Only the taps that can land inside the
    /// dilated base are visited, so a huge window over a small operand stays cheap.
    pub fn sources(&self, o: i64) -> Vec<i64> {
        let (o, stride, rhs, lhs) = (
            o as i128,
            self.stride as i128,
            self.rhs as i128,
            self.lhs as i128,
        );
        // Padded position of tap k: o*stride + k*rhs; it must lie in [pad_lo, pad_lo + base).
        let first = o * stride - self.pad_lo as i128;
        let base = self.dilated_base() as i128;
        let k_lo = if first >= 0 {
            0
        } else {
            (-first + rhs - 1) / rhs
        };
        let k_hi = if base - first <= 0 {
            0
        } else {
            ((base - 1 - first) / rhs + 1).min(self.size as i128)
        };
        (k_lo..k_hi)
            .filter_map(|k| {
                let p = first + k * rhs;
                (p % lhs == 0).then_some((p / lhs) as i64)
            })
            .collect()
    }
}

/// A window laid over an operand: per dimension geometry and strides.
pub struct WindowPlan {
    geoms: Vec<WindowGeom>,
    in_strides: Vec<usize>,
    out_dims: Vec<i64>,
    /// Offsets of all taps relative to the window's first tap, in tap order, when the window is
    /// small and undilated in the base; used for windows lying wholly inside the operand.
    interior: Option<Vec<usize>>,
    /// When the innermost dimensions are untouched by the window (size 1, stride 1, no padding
    /// or dilation), the window over the outer dimensions and the length of the contiguous run
    /// of elements the untouched dimensions span: each outer tap then reads a whole run, and one
    /// run of results folds with a slice loop the compiler can vectorise.
    rows: Option<(Box<WindowPlan>, usize)>,
}

impl WindowPlan {
    pub fn new(in_dims: &[i64], w: &Window) -> WindowPlan {
        let geoms: Vec<WindowGeom> = in_dims
            .iter()
            .zip(&w.dims)
            .map(|(&n, d)| WindowGeom::new(n, d))
            .collect();
        let in_strides = row_major_strides(in_dims);
        let out_dims = geoms.iter().map(|g| g.out()).collect();
        let taps: i64 = geoms.iter().map(|g| g.size).product();
        let interior = (geoms.iter().all(|g| g.lhs == 1) && taps <= 4096).then(|| {
            let mut offs = vec![0usize];
            for (g, &s) in geoms.iter().zip(&in_strides) {
                offs = offs
                    .iter()
                    .flat_map(|&o| (0..g.size).map(move |k| o + (k * g.rhs) as usize * s))
                    .collect();
            }
            offs
        });
        let identity = |(n, d): (&i64, &WindowDim)| {
            let g = WindowGeom::new(*n, d);
            g.size == 1 && g.stride == 1 && g.pad_lo == 0 && g.pad_hi == 0 && g.lhs == 1
        };
        let untouched = in_dims
            .iter()
            .zip(&w.dims)
            .rev()
            .take_while(|&p| identity(p))
            .count();
        let split = in_dims.len() - untouched;
        let run: i64 = in_dims[split..].iter().product();
        let rows = (untouched > 0 && run >= 2 && w.dims.len() == in_dims.len()).then(|| {
            let outer = Window {
                dims: w.dims[..split].to_vec(),
            };
            (
                Box::new(WindowPlan::new(&in_dims[..split], &outer)),
                run as usize,
            )
        });
        WindowPlan {
            geoms,
            in_strides,
            out_dims,
            interior,
            rows,
        }
    }

    /// The same plan folding element by element only (no contiguous runs): the benchmarks time
    /// it next to the run-wise fold it replaced.
    pub fn element_by_element(mut self) -> WindowPlan {
        self.rows = None;
        self
    }

    pub fn out_dims(&self) -> &[i64] {
        &self.out_dims
    }

    pub fn out_count(&self) -> usize {
        self.out_dims.iter().product::<i64>().max(0) as usize
    }

    fn out_index(&self, mut o: usize) -> Vec<i64> {
        let mut idx = vec![0i64; self.out_dims.len()];
        for d in (0..idx.len()).rev() {
            let n = self.out_dims[d] as usize;
            idx[d] = (o % n) as i64;
            o /= n;
        }
        idx
    }

    /// Calls `f` with the operand offset of every tap of output element `o` that reads an
    /// element, in tap order.
    pub fn for_each_source(&self, o: usize, mut f: impl FnMut(usize)) {
        let idx = self.out_index(o);
        if let Some(offs) = &self.interior {
            let mut base = 0usize;
            let inside = idx
                .iter()
                .zip(&self.geoms)
                .zip(&self.in_strides)
                .all(|((&i, g), &s)| {
                    let start = i * g.stride - g.pad_lo;
                    base += start.max(0) as usize * s;
                    start >= 0 && start + g.dilated_window() <= g.n
                });
            if inside {
                for &off in offs {
                    f(base + off);
                }
                return;
            }
        }
        // Border (or dilated) window: per dimension the taps that read an element, then their
        // product in row-major order.
        let lists: Vec<Vec<usize>> = idx
            .iter()
            .zip(&self.geoms)
            .zip(&self.in_strides)
            .map(|((&i, g), &s)| g.sources(i).into_iter().map(|x| x as usize * s).collect())
            .collect();
        if lists.iter().any(|l| l.is_empty()) {
            return;
        }
        let mut pos = vec![0usize; lists.len()];
        loop {
            f(pos.iter().zip(&lists).map(|(&p, l)| l[p]).sum());
            let mut d = lists.len();
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < lists[d].len() {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
}

impl WindowPlan {
    /// The last dimension's geometry when the window slides along that dimension only (every
    /// other dimension untouched) and neither operand nor window is dilated: each window is then
    /// a contiguous stretch of one row, its taps in increasing position.
    fn line(&self) -> Option<WindowGeom> {
        let (last, outer) = self.geoms.split_last()?;
        let untouched = |g: &WindowGeom| {
            g.size == 1 && g.stride == 1 && g.pad_lo == 0 && g.pad_hi == 0 && g.lhs == 1
        };
        (outer.iter().all(untouched) && last.lhs == 1 && last.rhs == 1 && last.n > 0)
            .then_some(*last)
    }
}

/// Lanes of a line window folded side by side: adjacent outputs whose windows are each folded in
/// tap order, one lane per output.
const LINE_LANES: usize = 16;

/// `fold` for a line window (`WindowPlan::line`): per row, output `o` folds the row's elements
/// `[o*stride - pad_lo, o*stride - pad_lo + size)` that exist, in increasing position (what
/// `for_each_source` visits). With stride 1, sixteen adjacent outputs fold at once, lane `j`
/// reading element `p + j` when tap `t` is at `p` for lane 0: each lane still folds its own
/// window in tap order, so the bits are those of one output at a time; the loop over taps where
/// every lane has an element is a plain slice loop the compiler vectorises (a JAX cumulative sum
/// is such a window, 1024 taps wide).
fn fold_line<T, F>(g: &WindowGeom, data: &[T], init: T, f: &F) -> Vec<T>
where
    T: Copy + Send + Sync + 'static,
    F: Fn(T, T) -> T + Sync + Send,
{
    let (n, outs) = (g.n as usize, g.out().max(0) as usize);
    let rows = data.len().checked_div(n).unwrap_or(0);
    let mut out: Vec<T> = vec![init; rows * outs];
    // The window of output `o` as a range of positions in the row (empty when it misses).
    let span = |o: usize| -> (usize, usize) {
        let lo = o as i128 * g.stride as i128 - g.pad_lo as i128;
        let hi = lo + g.size as i128;
        (
            lo.clamp(0, n as i128) as usize,
            hi.clamp(0, n as i128) as usize,
        )
    };
    let row_work = |r: usize, dst: &mut [T]| {
        let x = &data[r * n..(r + 1) * n];
        let mut o = 0;
        while o < outs {
            if g.stride == 1 && o + LINE_LANES <= outs {
                // Lane j's tap t is at position s + j + t.
                let s = o as i128 - g.pad_lo as i128;
                let mut acc = [init; LINE_LANES];
                let t_lo = (-s - LINE_LANES as i128 + 1).max(0);
                let t_hi = (n as i128 - s).min(g.size as i128);
                let mut t = t_lo;
                while t < t_hi {
                    let p = s + t;
                    if p >= 0 && p + LINE_LANES as i128 <= n as i128 {
                        // Every lane has an element from here up to the last full tap.
                        let full_hi = (n as i128 - LINE_LANES as i128 - s + 1).min(t_hi);
                        for tt in t..full_hi {
                            let base = (s + tt) as usize;
                            let xs: &[T; LINE_LANES] = match x[base..base + LINE_LANES].try_into() {
                                Ok(v) => v,
                                Err(_) => break,
                            };
                            for (a, &v) in acc.iter_mut().zip(xs) {
                                *a = f(*a, v);
                            }
                        }
                        t = full_hi;
                        continue;
                    }
                    for (j, a) in acc.iter_mut().enumerate() {
                        let q = p + j as i128;
                        if (0..n as i128).contains(&q) {
                            *a = f(*a, x[q as usize]);
                        }
                    }
                    t += 1;
                }
                dst[o..o + LINE_LANES].copy_from_slice(&acc);
                o += LINE_LANES;
            } else {
                let (lo, hi) = span(o);
                dst[o] = x[lo..hi.max(lo)].iter().fold(init, |a, &v| f(a, v));
                o += 1;
            }
        }
    };
    if outs == 0 {
        return out;
    }
    let taps = g.size.clamp(1, n as i64) as usize;
    let per = (1 << 15) / (taps * outs).max(1);
    crate::kernels::pool::for_each_chunk(
        &mut out,
        crate::kernels::pool::chunk_for(rows, per.max(1)) * outs,
        &|start, chunk| {
            for (k, dst) in chunk.chunks_mut(outs).enumerate() {
                row_work(start / outs + k, dst);
            }
        },
    );
    out
}

impl FoldPlan for WindowPlan {
    fn fold<T, F>(&self, data: &[T], init: T, f: F, _assoc: bool) -> Vec<T>
    where
        T: Copy + Send + Sync + 'static,
        F: Fn(T, T) -> T + Sync + Send,
    {
        if let Some((outer, run)) = &self.rows {
            // Contiguous runs: result run `o` folds, tap by tap in tap order, the operand run
            // each outer tap starts; every element sees the same taps in the same order as on
            // the element-by-element path below, so the bits agree.
            let run = *run;
            let n = outer.out_count() * run;
            let taps = outer.interior.as_ref().map_or(64, |v| v.len().max(1));
            // Each run's accumulators start at `init` and take the taps in place, a vector
            // loop per tap (`lanes::update`); the result is a recycled buffer
            // (`pool::fill_fresh`): a fresh 25 MiB one faulted in its pages on every call, a
            // third of a 3x3 max pool's time.
            let body = |start: usize, dst: &mut [std::mem::MaybeUninit<T>]| {
                for d in dst.iter_mut() {
                    d.write(init);
                }
                // SAFETY: every element was just written, and MaybeUninit<T> has T's layout.
                let dst = unsafe { &mut *(dst as *mut [std::mem::MaybeUninit<T>] as *mut [T]) };
                for (j, acc) in dst.chunks_mut(run).enumerate() {
                    outer.for_each_source(start / run + j, |k| {
                        lanes::update(acc, &data[k * run..(k + 1) * run], &f)
                    });
                }
            };
            let chunk = if n * taps < 1 << 15 {
                n.max(1)
            } else {
                let per = (4096 / (taps * run)).max(1);
                crate::kernels::pool::chunk_for(n / run, per) * run
            };
            let out = crate::kernels::pool::fill_fresh(n, chunk, &body);
            return out;
        }
        if let Some(g) = self.line() {
            return fold_line(&g, data, init, &f);
        }
        let one = |o: usize| {
            let mut acc = init;
            self.for_each_source(o, |k| acc = f(acc, data[k]));
            acc
        };
        let n = self.out_count();
        let taps = self.interior.as_ref().map_or(64, |v| v.len().max(1));
        if n * taps < 1 << 15 {
            (0..n).map(one).collect()
        } else {
            crate::kernels::pool::collect_indexed(n, (4096 / taps).max(1), &one)
        }
    }
}

pub fn reduce_window(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &ReduceWindowAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let (inputs, inits) = inputs_and_inits(ops)?;
    let plan = WindowPlan::new(&inputs[0].shape.dims, &attrs.window);
    let comp = attrs.to_apply.0;
    let datas = fold_all(
        ev,
        comp,
        &inputs,
        &inits,
        &plan,
        plan.out_count(),
        usize::MAX,
        |o, f| plan.for_each_source(o, f),
    )?;
    super::collate_result(inst, plan.out_dims(), datas)
}

/// Folds `[x]` into `init` with a recognised op: the scalar form of the fast path.
struct Single;
impl FoldPlan for Single {
    fn fold<T, F>(&self, data: &[T], init: T, f: F, _assoc: bool) -> Vec<T>
    where
        T: Copy + Send + Sync + 'static,
        F: Fn(T, T) -> T + Sync + Send,
    {
        vec![data.iter().fold(init, |a, &b| f(a, b))]
    }
}

/// Keys that order the elements of one array as `fast::order` orders them: ranks in the total
/// order, or for the partial order the ranks of the values with -0 taken as +0, and which
/// elements are NaN (unordered).
struct OrderKeys {
    rank: Vec<u64>,
    nan: Option<Vec<bool>>,
}

impl OrderKeys {
    fn of(data: &ArrayData, total: bool) -> Option<OrderKeys> {
        let n = data.len();
        let flip = |r: i64| (r as u64) ^ (1 << 63);
        // The common types as typed loops (the same ranks as the general path below).
        macro_rules! typed {
            ($v:expr, $bits:ty, $signed:ty) => {{
                let rank = |x: $bits| -> u64 {
                    let neg = (x as $signed) < 0;
                    let m = (x & (<$bits>::MAX >> 1)) as i64;
                    flip(if neg { -m - 1 } else { m })
                };
                let rank: Vec<u64> = $v
                    .iter()
                    .map(|x| rank(if !total && *x == 0.0 { 0.0 } else { *x }.to_bits()))
                    .collect();
                let nan = (!total).then(|| $v.iter().map(|x| x.is_nan()).collect());
                return Some(OrderKeys { rank, nan });
            }};
        }
        match data {
            ArrayData::F32(v) => typed!(v, u32, i32),
            ArrayData::F64(v) => typed!(v, u64, i64),
            _ => {}
        }
        if data.ty().is_complex() {
            return None;
        }
        if !data.ty().is_float() {
            let unsigned64 = data.ty() == crate::types::ElementType::U64;
            let rank = (0..n)
                .map(|i| {
                    let v = data.get(i).as_i128()?;
                    if unsigned64 {
                        u64::try_from(v).ok()
                    } else {
                        i64::try_from(v).ok().map(flip)
                    }
                })
                .collect::<Option<Vec<_>>>()?;
            return Some(OrderKeys { rank, nan: None });
        }
        let rank_of = |s: Scalar| -> Option<u64> {
            let bits = |b: u64, width: u32| {
                let sign = 1u64 << (width - 1);
                let m = (b & (sign - 1)) as i64;
                flip(if b & sign != 0 { -m - 1 } else { m })
            };
            Some(match s {
                Scalar::F16(x) => bits(x.to_bits() as u64, 16),
                Scalar::BF16(x) => bits(x.to_bits() as u64, 16),
                Scalar::F32(x) => bits(x.to_bits() as u64, 32),
                Scalar::F64(x) => bits(x.to_bits(), 64),
                _ => return None,
            })
        };
        if total {
            let rank = (0..n)
                .map(|i| rank_of(data.get(i)))
                .collect::<Option<Vec<_>>>()?;
            return Some(OrderKeys { rank, nan: None });
        }
        // The partial order: -0 equals +0, so both take the rank of +0.
        let mut rank = Vec::with_capacity(n);
        let mut nan = Vec::with_capacity(n);
        for i in 0..n {
            let s = data.get(i);
            let zero = s.as_f64() == 0.0;
            nan.push(s.is_nan());
            rank.push(rank_of(if zero { Scalar::zero(s.ty()) } else { s })?);
        }
        Some(OrderKeys {
            rank,
            nan: Some(nan),
        })
    }

    /// `fast::order` of elements `i` and `j`.
    fn order(&self, i: usize, j: usize) -> Option<std::cmp::Ordering> {
        if let Some(nan) = &self.nan
            && (nan[i] || nan[j])
        {
            return None;
        }
        Some(self.rank[i].cmp(&self.rank[j]))
    }
}

/// The scatter half of `select-and-scatter` as a fold: `fold(source, init, f)` starts every
/// element at `init` and folds source `s` into the element window `s` picked, in window order.
struct ScatterPicks<'a> {
    picked: &'a [usize],
    len: usize,
}

impl FoldPlan for ScatterPicks<'_> {
    fn fold<T, F>(&self, data: &[T], init: T, f: F, _assoc: bool) -> Vec<T>
    where
        T: Copy + Send + Sync + 'static,
        F: Fn(T, T) -> T + Sync + Send,
    {
        let mut out = vec![init; self.len];
        for (&k, &x) in self.picked.iter().zip(data) {
            if let Some(o) = out.get_mut(k) {
                *o = f(*o, x);
            }
        }
        out
    }
}

/// `select-and-scatter`: for every source position (row-major), pick one element of its window
/// (the first tap, replaced by each later tap `e` for which `select(picked, e)` is false), then
/// set `out[picked] = scatter(out[picked], source)`. The output starts as the init value
/// everywhere. A window with no element in the operand scatters nothing.
pub fn select_and_scatter(
    ev: &Evaluator,
    inst: &Instruction,
    attrs: &SelectAndScatterAttrs,
    ops: &[&Literal],
) -> Result<Literal> {
    let a = super::super::array(ops, 0)?;
    let source = super::super::array(ops, 1)?;
    let init = scalar_literals(ops, 2)?
        .first()
        .copied()
        .ok_or_else(|| Error::internal("select-and-scatter without an init value"))?;
    let plan = WindowPlan::new(&a.shape.dims, &attrs.window);
    let (select, scatter) = (attrs.select.0, attrs.scatter.0);
    let fast_select = fast::recognise_comparator(ev.module, select, &[a.ty()]);
    let fast_scatter = fast::recognise_reducer(ev.module, scatter);
    let selects = |x: Scalar, y: Scalar| -> Result<bool> {
        if let Some(c) = fast_select {
            let o = if c.swapped {
                fast::order(&y, &x, c.total)
            } else {
                fast::order(&x, &y, c.total)
            };
            return Ok(c.direction.holds(o));
        }
        let r = ev.call(
            select,
            vec![Literal::from_scalar(x), Literal::from_scalar(y)],
        )?;
        match r.scalar_value() {
            Some(Scalar::Pred(b)) => Ok(b),
            _ => Err(Error::internal("select did not return a pred scalar")),
        }
    };
    let combine = |x: Scalar, y: Scalar| -> Result<Scalar> {
        if let Some(op) = fast_scatter
            && let Some(d) = fast::fold(&Single, &ArrayData::splat(y, 1), x, op)
        {
            return Ok(d.get(0));
        }
        ev.call(
            scatter,
            vec![Literal::from_scalar(x), Literal::from_scalar(y)],
        )?
        .scalar_value()
        .ok_or_else(|| Error::internal("scatter did not return a scalar"))
    };
    if let (Some(c), Some(op)) = (fast_select, fast_scatter)
        && let Some(keys) = OrderKeys::of(&a.data, c.total)
        && source.data.ty() == a.ty()
    {
        // Every window's pick first (in parallel: windows are independent), then the scatter
        // in window order, as a typed fold.
        let n = plan.out_count();
        let picked: Vec<usize> = crate::kernels::pool::collect_indexed(n, 256, &|s| {
            let mut best: Option<usize> = None;
            plan.for_each_source(s, |k| {
                best = Some(match best {
                    None => k,
                    Some(cur) => {
                        let o = if c.swapped {
                            keys.order(k, cur)
                        } else {
                            keys.order(cur, k)
                        };
                        if c.direction.holds(o) { cur } else { k }
                    }
                })
            });
            best.unwrap_or(usize::MAX)
        });
        let scatter_plan = ScatterPicks {
            picked: &picked,
            len: a.len(),
        };
        if let Some(out) = fast::fold(&scatter_plan, &source.data, init, op) {
            return Ok(Literal::Array(Array {
                shape: Evaluator::result_shape_with_dims(inst, &a.shape.dims)?,
                data: out,
            }));
        }
    }
    let mut out = ArrayData::splat(init, a.len());
    for s in 0..plan.out_count() {
        let mut picked: Option<(usize, Scalar)> = None;
        let mut err = Ok(());
        plan.for_each_source(s, |k| {
            if err.is_err() {
                return;
            }
            let x = a.data.get(k);
            match picked {
                None => picked = Some((k, x)),
                Some((_, cur)) => match selects(cur, x) {
                    Ok(true) => {}
                    Ok(false) => picked = Some((k, x)),
                    Err(e) => err = Err(e),
                },
            }
        });
        err?;
        if let Some((k, _)) = picked {
            let v = combine(out.get(k), source.data.get(s))?;
            out.set(k, v)?;
        }
    }
    Ok(Literal::Array(Array {
        shape: Evaluator::result_shape_with_dims(inst, &a.shape.dims)?,
        data: out,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line windows (sixteen outputs per pass, and the rest one by one) fold exactly what
    /// `for_each_source` visits, in its order: checked with a sum in f32 whose rounding depends
    /// on the order, over strides, paddings (into and past both ends) and sizes.
    #[test]
    fn line_windows_fold_like_the_tap_by_tap_path() {
        let mut seed = 0x1234_5678u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..400 {
            let n = 1 + (next() % 70) as i64;
            let rows = 1 + (next() % 3) as i64;
            let size = 1 + (next() % 90) as i64;
            let stride = 1 + (next() % 3) as i64 * (case % 2);
            let pad_lo = (next() % 80) as i64;
            let pad_hi = (next() % 80) as i64;
            let d = WindowDim {
                size,
                stride,
                pad_lo,
                pad_hi,
                lhs_dilate: 1,
                rhs_dilate: 1,
                reversal: false,
            };
            if window_output_size(n, &d).is_err() {
                continue;
            }
            let untouched = WindowDim {
                size: 1,
                stride: 1,
                pad_lo: 0,
                pad_hi: 0,
                lhs_dilate: 1,
                rhs_dilate: 1,
                reversal: false,
            };
            let w = Window {
                dims: vec![untouched, d.clone()],
            };
            let plan = WindowPlan::new(&[rows, n], &w);
            assert!(plan.line().is_some());
            let data: Vec<f32> = (0..rows * n)
                .map(|_| (next() % 2000) as f32 * 0.37 - 300.0 + 1e-3)
                .collect();
            let add = |a: f32, b: f32| a + b;
            let fast = plan.fold(&data, 0.5f32, add, true);
            let slow: Vec<f32> = (0..plan.out_count())
                .map(|o| {
                    let mut acc = 0.5f32;
                    plan.for_each_source(o, |k| acc = add(acc, data[k]));
                    acc
                })
                .collect();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast), bits(&slow), "n={n} rows={rows} window {d:?}");
        }
    }
}
