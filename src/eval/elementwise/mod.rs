//! Element-wise ops: unary and binary arithmetic, comparison, select, clamp, conversions and
//! reduce-precision.
//!
//! Every op runs as one typed loop per element type: the dispatch on the element type (and on the
//! opcode) happens once per array, and the loop body is a closure the compiler specialises, so no
//! element goes through a dynamic call. Arrays of at least `PAR_THRESHOLD` elements are split
//! across rayon's pool.
//!
//! Numerics follow XLA's reference evaluator (`xla/hlo/evaluator/hlo_evaluator_typed_visitor.h`):
//! integers wrap (two's complement); F16 and BF16 compute in F32 and round once to the narrow
//! type; integer division by zero, shifts past the width and NaN in max/min give XLA's results.
//! Transcendental functions of F32 are computed in F64 and rounded, so they are within one ULP;
//! F64 ones use the platform's libm (and `math::erf` for erf).

mod binary;
pub mod compare;
pub(crate) mod convert;
pub mod fastexp;
pub mod fasttrig;
mod kernel;
pub mod math;
mod unary;

pub use kernel::{
    Fresh, Kernel, Kernels, Map, Typed, binary_kernel, clamp_kernel, compare_kernel, select_kernel,
    unary_kernel,
};

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::opcode::{BinaryOp, ElementwiseOp, UnaryOp};
use crate::literal::Buf;
use crate::literal::{Array, ArrayData, DataView, Literal};
use std::mem::MaybeUninit;

/// Arrays with at least this many elements are processed in parallel.
pub const PAR_THRESHOLD: usize = 1 << 16;
/// The smallest piece of work a rayon task gets.
const MIN_CHUNK: usize = 1 << 13;

pub fn eval_unary(inst: &Instruction, op: UnaryOp, ops: &[&Literal]) -> Result<Literal> {
    let a = array(ops, 0)?;
    let data = unary::eval(op, a.data.view())?;
    finish(inst, &a.shape.dims, data)
}

pub fn eval_binary(inst: &Instruction, op: BinaryOp, ops: &[&Literal]) -> Result<Literal> {
    let (a, b) = pair(inst, ops)?;
    let data = binary::eval(op, a.data.view(), b.data.view())?;
    finish(inst, &a.shape.dims, data)
}

pub fn eval(inst: &Instruction, op: &ElementwiseOp, ops: &[&Literal]) -> Result<Literal> {
    match op {
        ElementwiseOp::Compare(c) => {
            let (a, b) = pair(inst, ops)?;
            let data = compare::compare_data(c.direction, c.compare_type, &a.data, &b.data)?;
            finish(inst, &a.shape.dims, data)
        }
        ElementwiseOp::Select => select(inst, ops),
        ElementwiseOp::Clamp => clamp(inst, ops),
        ElementwiseOp::Convert => {
            let a = array(ops, 0)?;
            let ty = Evaluator::result_array_shape(inst)?.ty;
            // The same type: the value itself, sharing its buffer rather than copying it.
            let data = if a.data.ty() == ty {
                a.data.clone()
            } else {
                convert::convert(a.data.view(), ty)?
            };
            finish(inst, &a.shape.dims, data)
        }
        ElementwiseOp::BitcastConvert => {
            let a = array(ops, 0)?;
            let shape = Evaluator::result_array_shape(inst)?.clone();
            let data = convert::bitcast(a.data.view(), shape.ty)?;
            Ok(Literal::Array(Array::from_data(shape, data)?))
        }
        ElementwiseOp::ReducePrecision(r) => {
            let a = array(ops, 0)?;
            let data = convert::reduce_precision(a.data.view(), r.exponent_bits, r.mantissa_bits)?;
            finish(inst, &a.shape.dims, data)
        }
    }
}

/// A unary op on raw data (no shapes): for benchmarks and tests.
pub fn unary_data(op: UnaryOp, d: &ArrayData) -> Result<ArrayData> {
    unary::eval(op, d.view())
}

/// `unary_data` on borrowed elements.
pub fn unary_view(op: UnaryOp, d: DataView<'_>) -> Result<ArrayData> {
    unary::eval(op, d)
}

/// `binary_data` on borrowed elements of equal length.
pub fn binary_view(op: BinaryOp, a: DataView<'_>, b: DataView<'_>) -> Result<ArrayData> {
    binary::eval(op, a, b)
}

/// A binary op on raw data of equal length: for benchmarks and tests.
pub fn binary_data(op: BinaryOp, a: &ArrayData, b: &ArrayData) -> Result<ArrayData> {
    binary::eval(op, a.view(), b.view())
}

/// `convert` on raw data: for benchmarks and tests.
pub fn convert_data(d: &ArrayData, to: crate::types::ElementType) -> Result<ArrayData> {
    convert::convert(d.view(), to)
}

/// `reduce-precision` on raw data: for benchmarks and tests.
pub fn reduce_precision_data(
    d: &ArrayData,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<ArrayData> {
    convert::reduce_precision(d.view(), exponent_bits, mantissa_bits)
}

/// Wraps result data in the instruction's type and layout with the operands' actual dimensions.
fn finish(inst: &Instruction, dims: &[i64], data: ArrayData) -> Result<Literal> {
    let shape = Evaluator::result_shape_with_dims(inst, dims)?;
    Ok(Literal::Array(Array::from_data(shape, data)?))
}

/// The two operands of a binary op, whose actual sizes must agree (they can differ only when a
/// dimension is dynamic).
fn pair<'l>(inst: &Instruction, ops: &[&'l Literal]) -> Result<(&'l Array, &'l Array)> {
    let (a, b) = (array(ops, 0)?, array(ops, 1)?);
    same_actual_dims(inst, a, b)?;
    Ok((a, b))
}

fn same_actual_dims(inst: &Instruction, a: &Array, b: &Array) -> Result<()> {
    if a.shape.dims != b.shape.dims {
        return Err(Error::runtime(format!(
            "the operands of `{}` have dynamic sizes {:?} and {:?} at run time",
            inst.opcode(),
            a.shape.dims,
            b.shape.dims
        ))
        .with_rule("elementwise.dynamic_sizes_agree"));
    }
    Ok(())
}

pub(crate) fn type_error(op: impl std::fmt::Display, data: DataView<'_>) -> Error {
    Error::internal(format!(
        "`{op}` reached the evaluator with {} elements, which the verifier refuses",
        data.ty()
    ))
}

/// The chunk length for an element-wise loop over `n` elements: the whole array below
/// `PAR_THRESHOLD` (one chunk, on the calling thread), else a few chunks per thread.
fn chunk(n: usize) -> usize {
    if n < PAR_THRESHOLD {
        n.max(1)
    } else {
        crate::kernels::pool::chunk_for(n, MIN_CHUNK)
    }
}

/// `f` on every element, in parallel for large arrays. The result's buffer is fresh
/// (`pool::fill_fresh`: its pages advised huge, since the first touch of a new 64 MiB result
/// otherwise costs more than computing it).
#[inline]
pub fn map1<T, U, F>(x: &[T], f: F) -> Buf<U>
where
    T: Copy + Sync,
    U: Send,
    F: Fn(T) -> U + Sync + Send,
{
    crate::kernels::pool::fill_fresh(x.len(), chunk(x.len()), &|start, dst| {
        lanes::run1(dst, &x[start..], &f)
    })
    .into()
}

/// A 16-bit float that F32 holds exactly (F16, BF16): the element types whose ops run through F32.
pub trait Narrow: Copy + Send + Sync + 'static {
    fn widen(self) -> f32;
    /// Rounds to nearest, ties to even.
    fn narrow(v: f32) -> Self;
}

macro_rules! narrow {
    ($($t:ty),*) => {$(
        impl Narrow for $t {
            #[inline(always)]
            fn widen(self) -> f32 {
                self.to_f32()
            }
            #[inline(always)]
            fn narrow(v: f32) -> Self {
                <$t>::from_f32(v)
            }
        }
    )*};
}
narrow!(half::f16, half::bf16);

/// Elements converted a slice at a time through F32 buffers on the stack.
const VIA_F32_STEP: usize = 512;

/// `map1` over F16/BF16 through the F32 function `f`: each slice widened, `f` run over it and the
/// results rounded back, each step a loop of its own.
///
/// Why: one closure doing all three per element (widen, a costly `f`, round) grew too large for
/// the compiler to inline into the vector loops (`lanes`), so it ran as a scalar call per
/// element: a BF16 `tanh` over 2M elements was a quarter of a BF16 attention block's time.
/// Each step alone inlines and vectorises; the values are the same (`f` sees the same F32
/// arguments and its results round once).
pub fn map1_via_f32<H: Narrow, F>(x: &[H], f: F) -> Buf<H>
where
    F: Fn(f32) -> f32 + Sync + Send,
{
    map1_fix_via_f32(x, f, |_| true, |_| 0.0)
}

/// `map1_fix` over F16/BF16 through F32 functions, as `map1_via_f32` does `map1`.
pub fn map1_fix_via_f32<H: Narrow, F, K, G>(x: &[H], f: F, ok: K, slow: G) -> Buf<H>
where
    F: Fn(f32) -> f32 + Sync + Send,
    K: Fn(f32) -> bool + Sync + Send,
    G: Fn(f32) -> f32 + Sync + Send,
{
    crate::kernels::pool::fill_fresh(x.len(), chunk(x.len()), &|start, dst| {
        via_f32_into(dst, &x[start..start + dst.len()], &f, &ok, &slow)
    })
    .into()
}

/// `map1_fix_via_f32` on one slice: `dst[i]` from `x[i]`, a step of `VIA_F32_STEP` at a time.
#[inline]
fn via_f32_into<H: Narrow>(
    dst: &mut [MaybeUninit<H>],
    x: &[H],
    f: &impl Fn(f32) -> f32,
    ok: &impl Fn(f32) -> bool,
    slow: &impl Fn(f32) -> f32,
) {
    let mut wide = [MaybeUninit::<f32>::uninit(); VIA_F32_STEP];
    let mut vals = [MaybeUninit::<f32>::uninit(); VIA_F32_STEP];
    for (xs, ds) in x.chunks(VIA_F32_STEP).zip(dst.chunks_mut(VIA_F32_STEP)) {
        let n = xs.len();
        lanes::run1(&mut wide[..n], xs, &|h: H| h.widen());
        // SAFETY: `run1` wrote each of the first n elements.
        let w = unsafe { assume_init(&wide[..n]) };
        lanes::run1(&mut vals[..n], w, f);
        fix_outside(&mut vals[..n], w, ok, slow);
        // SAFETY: `run1` wrote each of the first n elements (some overwritten since).
        let v = unsafe { assume_init(&vals[..n]) };
        lanes::run1(ds, v, &|y: f32| H::narrow(y));
    }
}

/// The elements of a slice every one of which has been written.
///
/// # Safety
/// Every element of `s` must be initialised.
unsafe fn assume_init(s: &[MaybeUninit<f32>]) -> &[f32] {
    // SAFETY: MaybeUninit<f32> has f32's layout, and the caller vouches for every element.
    unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f32, s.len()) }
}

/// `map1` for a function whose branch-free form `f` is right on the arguments `ok` accepts, and
/// whose slow form `slow` gives the value on the rest. `f` runs over each chunk first, in the
/// vectorised loop; a branch-free pass over the chunk then asks whether any argument lies outside
/// `ok`, and only then does a scalar pass overwrite those few, so no call to the slow form sits in
/// a loop that vectorises (`fasttrig`) and a chunk wholly inside the domain pays one vector pass
/// for the check (a per-element test with a call behind it does not vectorise: it cost a tenth of
/// the F32 `log-plus-one` of the threefry normal sampler).
#[inline]
pub fn map1_fix<T, U, F, K, G>(x: &[T], f: F, ok: K, slow: G) -> Buf<U>
where
    T: Copy + Sync,
    U: Copy + Send,
    F: Fn(T) -> U + Sync + Send,
    K: Fn(T) -> bool + Sync + Send,
    G: Fn(T) -> U + Sync + Send,
{
    crate::kernels::pool::fill_fresh(x.len(), chunk(x.len()), &|start, dst| {
        let x = &x[start..start + dst.len()];
        lanes::run1(dst, x, &f);
        fix_outside(dst, x, &ok, &slow);
    })
    .into()
}

/// `map1_fix`'s second step: when some argument of `x` lies outside `ok` (one vector pass asks),
/// its result in `dst` is overwritten by the slow form.
#[inline(always)]
fn fix_outside<T: Copy, U>(
    dst: &mut [MaybeUninit<U>],
    x: &[T],
    ok: &impl Fn(T) -> bool,
    slow: &impl Fn(T) -> U,
) {
    if !lanes::all(x, ok) {
        for (d, &a) in dst.iter_mut().zip(x) {
            if !ok(a) {
                d.write(slow(a));
            }
        }
    }
}

/// `f` on every pair of elements, in parallel for large arrays. An operand of one element
/// against a longer one stands for a scalar broadcast to every position: fused groups pass their
/// rank-0 inputs so, instead of a tile of copies that every element reads from the cache.
#[inline]
pub fn map2<T, U, V, F>(x: &[T], y: &[U], f: F) -> Buf<V>
where
    T: Copy + Sync + Send,
    U: Copy + Sync + Send,
    V: Send,
    F: Fn(T, U) -> V + Sync + Send,
{
    if let [b] = y
        && x.len() > 1
    {
        let b = *b;
        return map1(x, move |a| f(a, b));
    }
    if let [a] = x
        && y.len() > 1
    {
        let a = *a;
        return map1(y, move |b| f(a, b));
    }
    let n = x.len().min(y.len());
    crate::kernels::pool::fill_fresh(n, chunk(n), &|start, dst| {
        lanes::run2(dst, &x[start..], &y[start..], &f)
    })
    .into()
}

/// `f` on every triple; an operand of one element stands for a scalar broadcast to every position.
#[inline]
pub fn map3<A, B, C, V, F>(a: &[A], b: &[B], c: &[C], n: usize, f: F) -> Buf<V>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Sync,
    V: Send,
    F: Fn(A, B, C) -> V + Sync + Send,
{
    crate::kernels::pool::fill_fresh(n, chunk(n), &|start, dst| {
        lanes::run3(dst, start, a, b, c, &f)
    })
    .into()
}

/// The loops of `map1`, `map2` and `map3`, each compiled three times: for the baseline x86-64 the
/// crate targets (SSE2), for AVX2 and for AVX-512, picked at run time.
///
/// Why: the baseline has no per-lane variable shift, so a shift by an array of amounts runs
/// element by element, and its vectors are half as wide. With AVX2 the same loops run shifts
/// several times as fast (on cached data; they are much of a threefry random-bit generator) and
/// most other integer and F32 ops up to twice as fast. AVX-512 doubles the width again: on a CPU
/// with full-width 512-bit units (AMD Zen 5, Intel) the costly functions (`tanh`, `exp`, `log`,
/// `erf_inv`, evaluated in F64 for F32 arguments) run up to twice as fast, and Zen 4, which splits
/// each 512-bit operation in two, runs them as fast as the AVX2 copies (measured: the scanned RNN
/// 7.9 to 7.2 ms on Zen 5, unchanged on Zen 4). The per-element closures are the same in every
/// copy, and Rust neither reassociates nor contracts floating-point operations (a fused
/// multiply-add is written as one, `mul_add`, a single rounding in every copy), so all give the
/// same values; only which operand's payload a NaN result carries may differ, as it already may
/// between a loop's vector body and its scalar remainder.
pub(crate) mod lanes {
    use std::mem::MaybeUninit;

    use crate::kernels::isa::{TO_L1, per_isa, prefetch_lines};

    /// The bytes of an operand each step of `loop1` and `loop2` covers, and how far past a step
    /// they ask for the operands' lines (the step after next).
    ///
    /// Why: on a Xeon (family 6, model 167, a VM) the hardware prefetcher did not keep a loop
    /// that spends a few nanoseconds per line fed: `exponential` over 2^24 F32 elements, one
    /// core, ran at 1.4 ns an element from memory against 0.64 from L1, and at 0.7 with its input
    /// asked for 2 KiB ahead (its output asked for as well gained nothing more). A cheap loop
    /// keeps enough lines in flight by itself; for it the requests are one instruction per line.
    const STEP_BYTES: usize = 1024;
    const AHEAD_BYTES: usize = 2048;

    /// Asks for the `STEP_BYTES` of `x` that begin `AHEAD_BYTES` past element `i` (a hint: no
    /// fault and no effect on memory, whatever the address).
    #[inline(always)]
    fn ask_ahead<T>(x: &[T], i: usize) {
        let base = x.as_ptr().wrapping_add(i).cast::<u8>();
        prefetch_lines::<TO_L1>(base.wrapping_add(AHEAD_BYTES), STEP_BYTES);
    }

    #[inline(always)]
    fn step_len<T>() -> usize {
        (STEP_BYTES / std::mem::size_of::<T>().max(1)).max(1)
    }

    #[inline(always)]
    fn loop1<T: Copy, U, F: Fn(T) -> U>(dst: &mut [MaybeUninit<U>], x: &[T], f: &F) {
        let step = step_len::<T>();
        let x = &x[..dst.len().min(x.len())];
        for (i, (ds, xs)) in dst.chunks_mut(step).zip(x.chunks(step)).enumerate() {
            ask_ahead(x, i * step);
            for (d, &a) in ds.iter_mut().zip(xs) {
                d.write(f(a));
            }
        }
    }

    #[inline(always)]
    fn loop2<T: Copy, U: Copy, V, F: Fn(T, U) -> V>(
        dst: &mut [MaybeUninit<V>],
        x: &[T],
        y: &[U],
        f: &F,
    ) {
        let step = step_len::<T>().min(step_len::<U>());
        let n = dst.len().min(x.len()).min(y.len());
        let (x, y) = (&x[..n], &y[..n]);
        let parts = dst.chunks_mut(step).zip(x.chunks(step)).zip(y.chunks(step));
        for (i, ((ds, xs), ys)) in parts.enumerate() {
            ask_ahead(x, i * step);
            ask_ahead(y, i * step);
            for ((d, &a), &b) in ds.iter_mut().zip(xs).zip(ys) {
                d.write(f(a, b));
            }
        }
    }

    /// Two results per element from two operands (`fused::rounds::chain`).
    #[inline(always)]
    fn loop2x2<T: Copy, U: Copy, V, W, F: Fn(T, U) -> (V, W)>(
        d0: &mut [MaybeUninit<V>],
        d1: &mut [MaybeUninit<W>],
        x: &[T],
        y: &[U],
        f: &F,
    ) {
        let step = step_len::<T>().min(step_len::<U>());
        let n = d0.len().min(d1.len()).min(x.len()).min(y.len());
        let (d0, d1, x, y) = (&mut d0[..n], &mut d1[..n], &x[..n], &y[..n]);
        let parts = d0
            .chunks_mut(step)
            .zip(d1.chunks_mut(step))
            .zip(x.chunks(step))
            .zip(y.chunks(step));
        for (i, (((p, q), xs), ys)) in parts.enumerate() {
            ask_ahead(x, i * step);
            ask_ahead(y, i * step);
            for (((p, q), &a), &b) in p.iter_mut().zip(q.iter_mut()).zip(xs).zip(ys) {
                let (v, w) = f(a, b);
                p.write(v);
                q.write(w);
            }
        }
    }

    /// Operands of one element stand for a scalar broadcast to every position.
    #[inline(always)]
    fn loop3<A: Copy, B: Copy, C: Copy, V, F: Fn(A, B, C) -> V>(
        dst: &mut [MaybeUninit<V>],
        start: usize,
        a: &[A],
        b: &[B],
        c: &[C],
        f: &F,
    ) {
        // The usual patterns (every operand whole; a scalar predicate or bound; scalar branches or
        // bounds around a whole array) as plain zips the compiler vectorises; any other mix
        // element by element.
        let n = dst.len();
        let whole = |len: usize| len != 1 || n == 1;
        match (whole(a.len()), whole(b.len()), whole(c.len())) {
            (true, true, true) => {
                let (a, b, c) = (
                    &a[start..start + n],
                    &b[start..start + n],
                    &c[start..start + n],
                );
                for (((d, &x), &y), &z) in dst.iter_mut().zip(a).zip(b).zip(c) {
                    d.write(f(x, y, z));
                }
            }
            (false, true, true) => {
                let x = a[0];
                let (b, c) = (&b[start..start + n], &c[start..start + n]);
                for ((d, &y), &z) in dst.iter_mut().zip(b).zip(c) {
                    d.write(f(x, y, z));
                }
            }
            (true, false, false) => {
                let (y, z) = (b[0], c[0]);
                for (d, &x) in dst.iter_mut().zip(&a[start..start + n]) {
                    d.write(f(x, y, z));
                }
            }
            (false, true, false) => {
                let (x, z) = (a[0], c[0]);
                for (d, &y) in dst.iter_mut().zip(&b[start..start + n]) {
                    d.write(f(x, y, z));
                }
            }
            _ => {
                #[inline(always)]
                fn at<X: Copy>(v: &[X], i: usize) -> X {
                    if v.len() == 1 { v[0] } else { v[i] }
                }
                for (k, d) in dst.iter_mut().enumerate() {
                    let i = start + k;
                    d.write(f(at(a, i), at(b, i), at(c, i)));
                }
            }
        }
    }

    /// Whether `ok` holds for every element: a fold without an early exit, so that it vectorises.
    #[inline(always)]
    fn all_in<T: Copy, K: Fn(T) -> bool>(x: &[T], ok: &K) -> bool {
        x.iter().fold(true, |acc, &v| acc & ok(v))
    }

    /// `acc[i] = f(acc[i], x[i])`: an accumulator updated in place.
    #[inline(always)]
    fn update_loop<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], x: &[T], f: &F) {
        for (a, &b) in acc.iter_mut().zip(x) {
            *a = f(*a, b);
        }
    }

    per_isa! {
        pub fn update / update_at <T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], x: &[T], f: &F) = update_loop;
    }
    per_isa! {
        pub fn all / all_at <T: Copy, K: Fn(T) -> bool>(x: &[T], ok: &K) -> bool = all_in;
    }
    per_isa! {
        pub fn run1 / run1_at <T: Copy, U: Sized, F: Fn(T) -> U>(dst: &mut [MaybeUninit<U>], x: &[T], f: &F) = loop1;
    }
    per_isa! {
        pub fn run2 / run2_at <T: Copy, U: Copy, V: Sized, F: Fn(T, U) -> V>(
            dst: &mut [MaybeUninit<V>], x: &[T], y: &[U], f: &F
        ) = loop2;
    }
    per_isa! {
        pub fn run2x2 / run2x2_at <T: Copy, U: Copy, V: Sized, W: Sized, F: Fn(T, U) -> (V, W)>(
            d0: &mut [MaybeUninit<V>], d1: &mut [MaybeUninit<W>], x: &[T], y: &[U], f: &F
        ) = loop2x2;
    }
    per_isa! {
        pub fn run3 / run3_at <A: Copy, B: Copy, C: Copy, V: Sized, F: Fn(A, B, C) -> V>(
            dst: &mut [MaybeUninit<V>], start: usize, a: &[A], b: &[B], c: &[C], f: &F
        ) = loop3;
    }
}

/// The length of a `map3` result whose operands have these lengths, where an operand of one
/// element stands for a scalar broadcast: the length of the others (1 when all have one; 0 for
/// empty arrays with a scalar predicate or bounds).
fn broadcast_len(lens: &[usize]) -> usize {
    lens.iter().copied().filter(|&l| l != 1).max().unwrap_or(1)
}

/// `select(pred, on_true, on_false)`: a scalar predicate picks a whole operand; an array
/// predicate picks per element.
fn select(inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    let p = array(ops, 0)?;
    let (t, f) = (array(ops, 1)?, array(ops, 2)?);
    same_actual_dims(inst, t, f)?;
    if !p.shape.dims.is_empty() {
        same_actual_dims(inst, p, t)?;
    }
    let data = select_data(&p.data, &t.data, &f.data)?;
    finish(inst, &t.shape.dims, data)
}

/// `select` on raw data: `t` and `f` of one length, `p` of that length or of one element (a
/// scalar predicate).
pub fn select_data(p: &ArrayData, t: &ArrayData, f: &ArrayData) -> Result<ArrayData> {
    select_view(p.view(), t.view(), f.view())
}

/// `select_data` on borrowed elements.
pub fn select_view(p: DataView<'_>, t: DataView<'_>, f: DataView<'_>) -> Result<ArrayData> {
    select_with::<Fresh>(p, t, f).map(Typed::into_data)
}

/// `select`'s element function for these operand types, applied as `M` applies it (`Map`).
pub fn select_with<M: Map>(p: DataView<'_>, t: DataView<'_>, f: DataView<'_>) -> Result<Typed<M>> {
    let DataView::Pred(preds) = p else {
        return Err(Error::internal("select predicate is not pred"));
    };
    let n = broadcast_len(&[t.len(), f.len(), preds.len()]);
    macro_rules! sel {
        ($x:expr, $y:expr) => {
            M::map3(preds, $x, $y, n, |c, a, b| if c { a } else { b })
        };
    }
    use DataView as V;
    let data = match (t, f) {
        (V::Pred(x), V::Pred(y)) => Typed::Pred(sel!(x, y)),
        (V::S8(x), V::S8(y)) => Typed::S8(sel!(x, y)),
        (V::S16(x), V::S16(y)) => Typed::S16(sel!(x, y)),
        (V::S32(x), V::S32(y)) => Typed::S32(sel!(x, y)),
        (V::S64(x), V::S64(y)) => Typed::S64(sel!(x, y)),
        (V::U8(x), V::U8(y)) => Typed::U8(sel!(x, y)),
        (V::U16(x), V::U16(y)) => Typed::U16(sel!(x, y)),
        (V::U32(x), V::U32(y)) => Typed::U32(sel!(x, y)),
        (V::U64(x), V::U64(y)) => Typed::U64(sel!(x, y)),
        (V::F16(x), V::F16(y)) => Typed::F16(sel!(x, y)),
        (V::BF16(x), V::BF16(y)) => Typed::BF16(sel!(x, y)),
        (V::F32(x), V::F32(y)) => Typed::F32(sel!(x, y)),
        (V::F64(x), V::F64(y)) => Typed::F64(sel!(x, y)),
        (V::C64(x), V::C64(y)) => Typed::C64(sel!(x, y)),
        (V::C128(x), V::C128(y)) => Typed::C128(sel!(x, y)),
        _ => return Err(type_error("select", f)),
    };
    Ok(data)
}

/// `clamp(min, x, max)`: a NaN found in min, x or max (checked in that order, as XLA's evaluator
/// does), otherwise `minimum(maximum(x, min), max)` with IEEE 754-2019's order of zeros (−0 below
/// +0, as the element-wise `maximum` and `minimum`), which decides only which zero comes out when
/// zeros of both signs meet.
fn clamp(inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    let (lo, x, hi) = (array(ops, 0)?, array(ops, 1)?, array(ops, 2)?);
    for b in [lo, hi] {
        if !b.shape.dims.is_empty() {
            same_actual_dims(inst, b, x)?;
        }
    }
    let data = clamp_data(&lo.data, &x.data, &hi.data)?;
    finish(inst, &x.shape.dims, data)
}

/// `clamp` on raw data: `lo` and `hi` each of `x`'s length or of one element (a scalar bound).
pub fn clamp_data(lo: &ArrayData, x: &ArrayData, hi: &ArrayData) -> Result<ArrayData> {
    clamp_view(lo.view(), x.view(), hi.view())
}

/// `clamp_data` on borrowed elements.
pub fn clamp_view(lo: DataView<'_>, x: DataView<'_>, hi: DataView<'_>) -> Result<ArrayData> {
    clamp_with::<Fresh>(lo, x, hi).map(Typed::into_data)
}

/// `clamp`'s element function for these operand types, applied as `M` applies it (`Map`).
pub fn clamp_with<M: Map>(lo: DataView<'_>, x: DataView<'_>, hi: DataView<'_>) -> Result<Typed<M>> {
    let n = broadcast_len(&[x.len(), lo.len(), hi.len()]);
    use DataView as V;
    macro_rules! ord {
        ($l:expr, $x:expr, $h:expr) => {
            M::map3($l, $x, $h, n, |l, v, h| {
                let m = if v < l { l } else { v };
                if m < h { m } else { h }
            })
        };
    }
    macro_rules! flt {
        ($l:expr, $x:expr, $h:expr) => {
            M::map3($l, $x, $h, n, |l, v, h| {
                if l.is_nan() {
                    l
                } else if v.is_nan() {
                    v
                } else if h.is_nan() {
                    h
                } else {
                    let m = if v < l || (v == l && v.is_sign_negative()) {
                        l
                    } else {
                        v
                    };
                    if m < h || (m == h && m.is_sign_negative()) {
                        m
                    } else {
                        h
                    }
                }
            })
        };
    }
    let data = match (lo, x, hi) {
        (V::Pred(l), V::Pred(v), V::Pred(h)) => Typed::Pred(ord!(l, v, h)),
        (V::S8(l), V::S8(v), V::S8(h)) => Typed::S8(ord!(l, v, h)),
        (V::S16(l), V::S16(v), V::S16(h)) => Typed::S16(ord!(l, v, h)),
        (V::S32(l), V::S32(v), V::S32(h)) => Typed::S32(ord!(l, v, h)),
        (V::S64(l), V::S64(v), V::S64(h)) => Typed::S64(ord!(l, v, h)),
        (V::U8(l), V::U8(v), V::U8(h)) => Typed::U8(ord!(l, v, h)),
        (V::U16(l), V::U16(v), V::U16(h)) => Typed::U16(ord!(l, v, h)),
        (V::U32(l), V::U32(v), V::U32(h)) => Typed::U32(ord!(l, v, h)),
        (V::U64(l), V::U64(v), V::U64(h)) => Typed::U64(ord!(l, v, h)),
        (V::F16(l), V::F16(v), V::F16(h)) => Typed::F16(flt!(l, v, h)),
        (V::BF16(l), V::BF16(v), V::BF16(h)) => Typed::BF16(flt!(l, v, h)),
        (V::F32(l), V::F32(v), V::F32(h)) => Typed::F32(flt!(l, v, h)),
        (V::F64(l), V::F64(v), V::F64(h)) => Typed::F64(flt!(l, v, h)),
        _ => return Err(type_error("clamp", x)),
    };
    Ok(data)
}

#[cfg(test)]
mod tests;
