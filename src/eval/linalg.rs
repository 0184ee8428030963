//! Evaluation of `dot` (DotGeneral) and `convolution` (ConvGeneralDilated).
//!
//! Each op has two implementations: a naive oracle that follows the definition in the book
//! index by index (`naive_dot`, `naive_conv`; it accumulates floats in F64, integers in wrapping
//! i64 and complex in C128, then rounds once to the result type), and the fast path through the
//! blocked GEMM of `kernels::gemm` (`fast_dot`, `fast_conv`; F32/F16/BF16 accumulate in F32, F64
//! in F64, integers in wrapping i64). The evaluator runs the fast path for every real type and
//! the oracle for complex types; property tests hold the two equal within the book's tolerance.

use super::{Evaluator, array};
use crate::error::{Error, Result};
use crate::hlo::ast::{ConvDims, Instruction, Window};
use crate::hlo::attrs::{ConvolutionAttrs, DotAttrs};
use crate::hlo::opcode::LinalgOp;
use crate::kernels::conv::{ConvGeom, conv_fast, for_each_index};
use crate::kernels::gemm::bf16 as bf16_gemm;
use crate::kernels::gemm::{GemmElem, KernelKind, MatRef, MicroKernel, gemm_into};
use crate::kernels::{ToAcc, as_acc};
use crate::literal::{Array, ArrayData, C64, C128, Literal, NativeType};
use crate::shape::window::window_output_size;
use crate::shape::{ArrayShape, row_major_strides};
use crate::types::ElementType;
use crate::with_data;
use half::{bf16, f16};
use std::borrow::Cow;

pub fn eval(
    _ev: &Evaluator,
    inst: &Instruction,
    op: &LinalgOp,
    ops: &[&Literal],
) -> Result<Literal> {
    let lhs = array(ops, 0)?;
    let rhs = array(ops, 1)?;
    let rty = Evaluator::result_array_shape(inst)?.ty;
    let out = match op {
        LinalgOp::Dot(attrs) => {
            let d = DotDims::of(attrs);
            let (res, _) = if acc_kind(lhs.ty(), rty) == Acc::C128 {
                (naive_dot(lhs, rhs, &d, rty)?, None)
            } else {
                fast_dot(lhs, rhs, &d, rty)?
            };
            res
        }
        LinalgOp::Convolution(c) => {
            let attrs = ConvAttrs::of(c, rhs.dims());
            if acc_kind(lhs.ty(), rty) == Acc::C128 {
                naive_conv(lhs, rhs, &attrs, rty)?
            } else {
                fast_conv(lhs, rhs, &attrs, rty)?.0
            }
        }
    };
    let shape = Evaluator::result_shape_with_dims(inst, out.dims())?;
    Ok(Literal::Array(Array::from_data(shape, out.data)?))
}

// ---------------------------------------------------------------------------------------------
// Dimension numbers and window geometry.

/// The dimension numbers of a verified `dot`, as indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DotDims {
    pub lhs_batch: Vec<usize>,
    pub lhs_contracting: Vec<usize>,
    pub rhs_batch: Vec<usize>,
    pub rhs_contracting: Vec<usize>,
}

impl DotDims {
    /// The dimensions of an operand that are neither batch nor contracting, in order.
    pub fn free(rank: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
        (0..rank)
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect()
    }

    /// The dimension numbers of a verified dot (the verifier proved them in range).
    pub fn of(a: &DotAttrs) -> DotDims {
        let idx = |v: &[i64]| -> Vec<usize> { v.iter().map(|&d| d as usize).collect() };
        DotDims {
            lhs_batch: idx(&a.lhs_batch_dims),
            lhs_contracting: idx(&a.lhs_contracting_dims),
            rhs_batch: idx(&a.rhs_batch_dims),
            rhs_contracting: idx(&a.rhs_contracting_dims),
        }
    }
}

/// Everything the evaluator needs of a verified convolution.
#[derive(Clone, Debug)]
pub struct ConvAttrs {
    pub dims: ConvDims,
    pub window: Window,
    pub feature_group_count: i64,
    pub batch_group_count: i64,
}

impl ConvAttrs {
    /// The convolution of verified attributes, on a kernel of `rhs_dims`.
    pub fn of(c: &ConvolutionAttrs, rhs_dims: &[i64]) -> ConvAttrs {
        let ksizes: Vec<i64> = c
            .dim_labels
            .kernel_spatial
            .iter()
            .map(|&d| rhs_dims.get(d).copied().unwrap_or(0))
            .collect();
        ConvAttrs {
            window: c
                .window
                .clone()
                .unwrap_or_else(|| Window::of_sizes(&ksizes)),
            dims: c.dim_labels.clone(),
            feature_group_count: c.feature_group_count,
            batch_group_count: c.batch_group_count,
        }
    }

    /// The result dimensions for operands of these sizes.
    /// The output's dimensions and the kernels' view of the convolution.
    pub fn geometry(&self, lhs: &[i64], rhs: &[i64]) -> Result<(Vec<i64>, ConvGeom)> {
        let out_dims = self.out_dims(lhs, rhs)?;
        let g = ConvGeom::new(
            lhs,
            rhs,
            &out_dims,
            &self.dims,
            &self.window.dims,
            self.feature_group_count,
            self.batch_group_count,
        );
        Ok((out_dims, g))
    }

    pub fn out_dims(&self, lhs: &[i64], rhs: &[i64]) -> Result<Vec<i64>> {
        let d = &self.dims;
        let mut out = vec![0i64; lhs.len()];
        out[d.output_batch] = lhs[d.input_batch] / self.batch_group_count.max(1);
        out[d.output_feature] = rhs[d.kernel_output_feature];
        for (i, w) in self.window.dims.iter().enumerate() {
            out[d.output_spatial[i]] = window_output_size(lhs[d.input_spatial[i]], w)
                .map_err(|e| {
                    Error::runtime(format!(
                        "convolution: the window does not fit the actual size of spatial dimension {i} ({e:?})"
                    ))
                    .with_rule("convolution.padded_size")
                })?;
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Accumulation types and the final rounding.

/// The type a dot/convolution accumulates in (of the fast path; the oracle widens floats to F64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acc {
    F32,
    F64,
    I64,
    C128,
}

/// Complex anywhere: C128. A float result: F64 when the result or the operands are F64, else F32
/// (so F16/BF16 accumulate in F32). Integer operands and result: wrapping i64, which equals
/// wrapping arithmetic in the result type once truncated.
pub fn acc_kind(operand: ElementType, result: ElementType) -> Acc {
    use ElementType::*;
    if operand.is_complex() || result.is_complex() {
        Acc::C128
    } else if result.is_float() {
        if result == F64 || operand == F64 {
            Acc::F64
        } else {
            Acc::F32
        }
    } else {
        Acc::I64
    }
}

/// Rounds accumulated values once into the result type.
pub trait Finish: Sized {
    fn finish(v: Vec<Self>, ty: ElementType) -> ArrayData;
}

macro_rules! finish_int {
    ($v:expr, $ty:expr, $conv:expr) => {{
        use ElementType::*;
        let v = $v;
        let c = $conv;
        match $ty {
            S8 => ArrayData::S8(v.into_iter().map(|x| c(x) as i8).collect()),
            S16 => ArrayData::S16(v.into_iter().map(|x| c(x) as i16).collect()),
            S32 => ArrayData::S32(v.into_iter().map(|x| c(x) as i32).collect()),
            S64 => ArrayData::S64(v.into_iter().map(|x| c(x)).collect()),
            U8 => ArrayData::U8(v.into_iter().map(|x| c(x) as u8).collect()),
            U16 => ArrayData::U16(v.into_iter().map(|x| c(x) as u16).collect()),
            U32 => ArrayData::U32(v.into_iter().map(|x| c(x) as u32).collect()),
            U64 => ArrayData::U64(v.into_iter().map(|x| c(x) as u64).collect()),
            _ => ArrayData::Pred(v.into_iter().map(|x| c(x) != 0).collect()),
        }
    }};
}

impl Finish for f32 {
    fn finish(v: Vec<f32>, ty: ElementType) -> ArrayData {
        match ty {
            ElementType::F32 => ArrayData::F32(v.into()),
            ElementType::F16 => ArrayData::F16(v.into_iter().map(f16::from_f32).collect()),
            ElementType::BF16 => ArrayData::BF16(v.into_iter().map(bf16::from_f32).collect()),
            _ => f64::finish(v.into_iter().map(|x| x as f64).collect(), ty),
        }
    }
}

impl Finish for f64 {
    fn finish(v: Vec<f64>, ty: ElementType) -> ArrayData {
        match ty {
            ElementType::F64 => ArrayData::F64(v.into()),
            ElementType::F32 => ArrayData::F32(v.into_iter().map(|x| x as f32).collect()),
            ElementType::F16 => ArrayData::F16(v.into_iter().map(f16::from_f64).collect()),
            ElementType::BF16 => ArrayData::BF16(v.into_iter().map(bf16::from_f64).collect()),
            ElementType::C64 => {
                ArrayData::C64(v.into_iter().map(|x| C64::new(x as f32, 0.0)).collect())
            }
            ElementType::C128 => {
                ArrayData::C128(v.into_iter().map(|x| C128::new(x, 0.0)).collect())
            }
            t => finish_int!(v, t, |x: f64| x as i64),
        }
    }
}

impl Finish for i64 {
    fn finish(v: Vec<i64>, ty: ElementType) -> ArrayData {
        if ty.is_floating() {
            return f64::finish(v.into_iter().map(|x| x as f64).collect(), ty);
        }
        finish_int!(v, ty, |x: i64| x)
    }
}

impl Finish for C128 {
    fn finish(v: Vec<C128>, ty: ElementType) -> ArrayData {
        match ty {
            ElementType::C128 => ArrayData::C128(v.into()),
            ElementType::C64 => ArrayData::C64(
                v.into_iter()
                    .map(|x| C64::new(x.re as f32, x.im as f32))
                    .collect(),
            ),
            _ => f64::finish(v.into_iter().map(|x| x.re).collect(), ty),
        }
    }
}

fn same_typed<'a, X: NativeType>(_like: &[X], data: &'a ArrayData) -> Result<&'a [X]> {
    X::slice(data).ok_or_else(|| Error::internal("dot/convolution operands differ in type"))
}

// ---------------------------------------------------------------------------------------------
// Dot.

/// Offsets of every multi-index over `which` dimensions (row-major among them) in an array of
/// `dims` with row-major strides.
fn offsets(dims: &[i64], which: &[usize]) -> Vec<usize> {
    let strides = row_major_strides(dims);
    // One dimension (a matrix's rows or columns, the usual case): a strided count, without the
    // multi-index walk, which cost a recurrent network's small per-step dots 4% of its time.
    if let [d] = which {
        let stride = strides[*d];
        return (0..dims[*d].max(0) as usize).map(|i| i * stride).collect();
    }
    let sizes: Vec<usize> = which.iter().map(|&d| dims[d].max(0) as usize).collect();
    let mut v = Vec::with_capacity(sizes.iter().product());
    for_each_index(&sizes, |ix| {
        v.push(ix.iter().zip(which).map(|(&i, &d)| i * strides[d]).sum());
    });
    v
}

/// A dot as a batch of matrix products read through index tables.
pub struct DotPlan {
    pub out_dims: Vec<i64>,
    pub lhs_batch: Vec<usize>,
    pub rhs_batch: Vec<usize>,
    pub lhs_rows: Vec<usize>,
    pub lhs_cols: Vec<usize>,
    pub rhs_rows: Vec<usize>,
    pub rhs_cols: Vec<usize>,
}

impl DotPlan {
    pub fn new(lhs: &[i64], rhs: &[i64], d: &DotDims) -> DotPlan {
        let lf = DotDims::free(lhs.len(), &d.lhs_batch, &d.lhs_contracting);
        let rf = DotDims::free(rhs.len(), &d.rhs_batch, &d.rhs_contracting);
        let out_dims = d
            .lhs_batch
            .iter()
            .map(|&i| lhs[i])
            .chain(lf.iter().map(|&i| lhs[i]))
            .chain(rf.iter().map(|&i| rhs[i]))
            .collect();
        DotPlan {
            out_dims,
            lhs_batch: offsets(lhs, &d.lhs_batch),
            rhs_batch: offsets(rhs, &d.rhs_batch),
            lhs_rows: offsets(lhs, &lf),
            lhs_cols: offsets(lhs, &d.lhs_contracting),
            rhs_rows: offsets(rhs, &d.rhs_contracting),
            rhs_cols: offsets(rhs, &rf),
        }
    }

    pub fn flops(&self) -> f64 {
        2.0 * (self.lhs_batch.len()
            * self.lhs_rows.len()
            * self.lhs_cols.len()
            * self.rhs_cols.len()) as f64
    }
}

fn dot_typed<T: GemmElem>(l: &[T], r: &[T], plan: &DotPlan, kern: &MicroKernel<T>) -> Vec<T> {
    let mn = plan.lhs_rows.len() * plan.rhs_cols.len();
    let run = |b: usize, chunk: &mut [std::mem::MaybeUninit<T>]| {
        let a = MatRef {
            data: l,
            base: plan.lhs_batch[b],
            rows: &plan.lhs_rows,
            cols: &plan.lhs_cols,
        };
        let bm = MatRef {
            data: r,
            base: plan.rhs_batch[b],
            rows: &plan.rhs_rows,
            cols: &plan.rhs_cols,
        };
        gemm_into(kern, a, bm, |x| x, |x| x, chunk);
    };
    if mn == 0 {
        return vec![];
    }
    // The GEMM writes every element of its chunk (`gemm_into`), so the result is not zeroed
    // first.
    crate::kernels::pool::fill_fresh(plan.lhs_batch.len() * mn, mn, &|off, chunk| {
        run(off / mn, chunk)
    })
}

/// A dot's multiply-adds (batch x rows x columns x contracted), from its operands' dimensions
/// alone: every element of the left operand meets every free column of the right one.
fn dot_work(lhs: &[i64], rhs: &[i64], d: &DotDims) -> usize {
    let size = |x: i64| usize::try_from(x).unwrap_or(0);
    let left = lhs.iter().fold(1usize, |a, &x| a.saturating_mul(size(x)));
    let free = rhs
        .iter()
        .enumerate()
        .filter(|(i, _)| !d.rhs_batch.contains(i) && !d.rhs_contracting.contains(i))
        .fold(1usize, |a, (_, &x)| a.saturating_mul(size(x)));
    left.saturating_mul(free)
}

/// Wakes the kernels' helpers for a product of `work` multiply-adds about to be prepared
/// (`pool::prewake`), unless it runs the oracle on this thread (complex products).
fn prewake(ty: ElementType, rty: ElementType, work: usize) {
    if !matches!(acc_kind(ty, rty), Acc::C128) {
        crate::kernels::pool::prewake(work);
    }
}

/// The micro-kernel to run: the best one, or the requested kind when this machine has it (a
/// type without a vector kernel, such as the integers' i64, runs the portable one).
fn pick<T: GemmElem>(kind: Option<KernelKind>) -> Result<MicroKernel<T>> {
    match kind {
        None => Ok(MicroKernel::best()),
        // Products that are not BF16 ones run on the general AVX-512 kernel.
        Some(KernelKind::Avx512Bf16) if KernelKind::Avx512Bf16.available() => {
            pick(Some(KernelKind::Avx512))
        }
        Some(k) if k.available() => T::kernel(k)
            .or_else(|| T::kernel(KernelKind::Portable))
            .ok_or_else(|| Error::internal("no portable kernel")),
        Some(k) => Err(Error::runtime(format!(
            "kernel {} is unavailable on this machine",
            k.name()
        ))),
    }
}

/// The fast dot through the blocked GEMM (real types). Returns the result and the kernel that
/// ran (`None` for an empty result).
pub fn fast_dot(
    lhs: &Array,
    rhs: &Array,
    d: &DotDims,
    rty: ElementType,
) -> Result<(Array, Option<KernelKind>)> {
    fast_dot_with(lhs, rhs, d, rty, None)
}

/// `fast_dot` with a chosen micro-kernel kind (tests run every kernel this machine has).
pub fn fast_dot_with(
    lhs: &Array,
    rhs: &Array,
    d: &DotDims,
    rty: ElementType,
    kind: Option<KernelKind>,
) -> Result<(Array, Option<KernelKind>)> {
    prewake(lhs.ty(), rty, dot_work(lhs.dims(), rhs.dims(), d));
    let plan = DotPlan::new(lhs.dims(), rhs.dims(), d);
    // BF16 operands with an F32 accumulator: AVX512-BF16's pair instruction, where it computes
    // exactly the F32 fused multiply-adds and is the faster on this core (`gemm::bf16`).
    if let (ArrayData::BF16(l), ArrayData::BF16(r)) = (&lhs.data, &rhs.data)
        && matches!(acc_kind(lhs.ty(), rty), Acc::F32)
        && match kind {
            None => bf16_gemm::preferred(),
            Some(KernelKind::Avx512Bf16) => bf16_gemm::available(),
            Some(_) => false,
        }
        && bf16_gemm::exact_for(l, r)
    {
        let mn = plan.lhs_rows.len() * plan.rhs_cols.len();
        let out = if mn == 0 {
            vec![]
        } else {
            crate::kernels::pool::fill_fresh(plan.lhs_batch.len() * mn, mn, &|off, chunk| {
                let b = off / mn;
                bf16_gemm::gemm_bf16_into(
                    MatRef {
                        data: l,
                        base: plan.lhs_batch[b],
                        rows: &plan.lhs_rows,
                        cols: &plan.lhs_cols,
                    },
                    MatRef {
                        data: r,
                        base: plan.rhs_batch[b],
                        rows: &plan.rhs_rows,
                        cols: &plan.rhs_cols,
                    },
                    chunk,
                )
            })
        };
        let arr = Array::from_data(
            ArrayShape::new(rty, plan.out_dims.clone()),
            f32::finish(out, rty),
        )?;
        let ran = (!arr.is_empty()).then_some(KernelKind::Avx512Bf16);
        return Ok((arr, ran));
    }
    macro_rules! run {
        ($t:ty, $conv:expr) => {{
            let k = pick::<$t>(kind)?;
            let (l, r): (Cow<[$t]>, Cow<[$t]>) = with_data!(&lhs.data, l => {
                let r = same_typed(l, &rhs.data)?;
                (as_acc(l, $conv), as_acc(r, $conv))
            });
            let v = dot_typed(&l, &r, &plan, &k);
            (<$t>::finish(v, rty), k.kind)
        }};
    }
    let (data, ran) = match acc_kind(lhs.ty(), rty) {
        Acc::F32 => run!(f32, ToAcc::to_f32),
        Acc::F64 => run!(f64, ToAcc::to_f64),
        Acc::I64 => run!(i64, ToAcc::to_i64),
        Acc::C128 => return Ok((naive_dot(lhs, rhs, d, rty)?, None)),
    };
    let arr = Array::from_data(ArrayShape::new(rty, plan.out_dims.clone()), data)?;
    let ran = (!arr.is_empty()).then_some(ran);
    Ok((arr, ran))
}

/// Accumulator arithmetic of the oracle.
trait OracleAcc: Copy + Send + Sync + Finish {
    fn zero() -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl OracleAcc for f64 {
    fn zero() -> f64 {
        0.0
    }
    fn mul_add(self, a: f64, b: f64) -> f64 {
        self + a * b
    }
}

impl OracleAcc for i64 {
    fn zero() -> i64 {
        0
    }
    fn mul_add(self, a: i64, b: i64) -> i64 {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

impl OracleAcc for C128 {
    fn zero() -> C128 {
        C128::new(0.0, 0.0)
    }
    fn mul_add(self, a: C128, b: C128) -> C128 {
        self + a * b
    }
}

/// Converts an array's elements into the oracle's accumulation type.
fn widen<A>(a: &Array, f: impl Fn(&ArrayData) -> Vec<A>) -> Vec<A> {
    f(&a.data)
}

fn oracle_inputs<A>(
    lhs: &Array,
    rhs: &Array,
    f: impl Fn(&ArrayData) -> Vec<A>,
) -> (Vec<A>, Vec<A>) {
    (widen(lhs, &f), widen(rhs, &f))
}

macro_rules! oracle_dispatch {
    ($lhs:expr, $rhs:expr, $rty:expr, $body:ident, $($extra:expr),*) => {{
        let (lhs, rhs, rty) = ($lhs, $rhs, $rty);
        let data = match acc_kind(lhs.ty(), rty) {
            Acc::F32 | Acc::F64 => {
                let (l, r) = oracle_inputs(lhs, rhs, |d| with_data!(d, v => v.iter().map(|x| x.to_f64()).collect()));
                f64::finish($body(&l, &r, $($extra),*), rty)
            }
            Acc::I64 => {
                let (l, r) = oracle_inputs(lhs, rhs, |d| with_data!(d, v => v.iter().map(|x| x.to_i64()).collect()));
                i64::finish($body(&l, &r, $($extra),*), rty)
            }
            Acc::C128 => {
                let (l, r) = oracle_inputs(lhs, rhs, |d| with_data!(d, v => v.iter().map(|x| x.to_c128()).collect()));
                C128::finish($body(&l, &r, $($extra),*), rty)
            }
        };
        data
    }};
}

/// The dot oracle, straight from the definition: for every result index (batch, lhs free, rhs
/// free), the sum over every contracting multi-index of `lhs[...] * rhs[...]`.
pub fn naive_dot(lhs: &Array, rhs: &Array, d: &DotDims, rty: ElementType) -> Result<Array> {
    let (ld, rd) = (lhs.dims().to_vec(), rhs.dims().to_vec());
    let lf = DotDims::free(ld.len(), &d.lhs_batch, &d.lhs_contracting);
    let rf = DotDims::free(rd.len(), &d.rhs_batch, &d.rhs_contracting);
    let out_dims: Vec<i64> = d
        .lhs_batch
        .iter()
        .map(|&i| ld[i])
        .chain(lf.iter().map(|&i| ld[i]))
        .chain(rf.iter().map(|&i| rd[i]))
        .collect();
    let csizes: Vec<usize> = d.lhs_contracting.iter().map(|&i| ld[i] as usize).collect();
    // The oracle's loop nest reads every piece of the dimension numbers it needs directly.
    #[allow(clippy::too_many_arguments)]
    fn body<A: OracleAcc>(
        l: &[A],
        r: &[A],
        ld: &[i64],
        rd: &[i64],
        out_dims: &[i64],
        d: &DotDims,
        lf: &[usize],
        rf: &[usize],
        csizes: &[usize],
    ) -> Vec<A> {
        let osizes: Vec<usize> = out_dims.iter().map(|&x| x as usize).collect();
        let (nb, nl) = (d.lhs_batch.len(), lf.len());
        let mut out = Vec::new();
        let mut li = vec![0usize; ld.len()];
        let mut ri = vec![0usize; rd.len()];
        let lin = |ix: &[usize], dims: &[i64]| {
            ix.iter()
                .zip(dims)
                .fold(0usize, |acc, (&i, &n)| acc * n as usize + i)
        };
        for_each_index(&osizes, |o| {
            for k in 0..nb {
                li[d.lhs_batch[k]] = o[k];
                ri[d.rhs_batch[k]] = o[k];
            }
            for (k, &dim) in lf.iter().enumerate() {
                li[dim] = o[nb + k];
            }
            for (k, &dim) in rf.iter().enumerate() {
                ri[dim] = o[nb + nl + k];
            }
            let mut s = A::zero();
            if csizes.is_empty() {
                s = s.mul_add(l[lin(&li, ld)], r[lin(&ri, rd)]);
            } else {
                for_each_index(csizes, |c| {
                    for k in 0..c.len() {
                        li[d.lhs_contracting[k]] = c[k];
                        ri[d.rhs_contracting[k]] = c[k];
                    }
                    s = s.mul_add(l[lin(&li, ld)], r[lin(&ri, rd)]);
                });
            }
            out.push(s);
        });
        out
    }
    let data = oracle_dispatch!(
        lhs, rhs, rty, body, &ld, &rd, &out_dims, d, &lf, &rf, &csizes
    );
    Array::from_data(ArrayShape::new(rty, out_dims), data)
}

// ---------------------------------------------------------------------------------------------
// Convolution.

/// The convolution oracle: for every output element, the sum over the window and the group's
/// input features of `lhs[input position] * rhs[kernel position]`, skipping window elements that
/// fall on padding or on holes of lhs dilation (the seed's pseudo-code, generalised).
pub fn naive_conv(lhs: &Array, rhs: &Array, a: &ConvAttrs, rty: ElementType) -> Result<Array> {
    let (out_dims, g) = a.geometry(lhs.dims(), rhs.dims())?;
    fn body<A: OracleAcc>(l: &[A], r: &[A], g: &ConvGeom, d: &ConvDims) -> Vec<A> {
        let osizes: Vec<usize> = g.out_dims.iter().map(|&x| x as usize).collect();
        let og = g.group_out();
        let mut out = Vec::with_capacity(osizes.iter().product());
        for_each_index(&osizes, |o| {
            let ob = o[d.output_batch];
            let of = o[d.output_feature];
            let (lb, f0) = g.group_source(ob, of / og);
            let mut s = A::zero();
            for_each_index(&g.k_spatial, |kk| {
                let mut loff = lb * g.lhs_batch_stride;
                let mut roff = of * g.rhs_out_stride;
                for i in 0..kk.len() {
                    match g.input_coord(i, o[d.output_spatial[i]], kk[i]) {
                        Some(x) => loff += x * g.lhs_spatial_strides[i],
                        None => return,
                    }
                    roff += g.kernel_coord(i, kk[i]) * g.rhs_spatial_strides[i];
                }
                for c in 0..g.k_in {
                    s = s.mul_add(
                        l[loff + (f0 + c) * g.lhs_feature_stride],
                        r[roff + c * g.rhs_in_stride],
                    );
                }
            });
            out.push(s);
        });
        out
    }
    let data = oracle_dispatch!(lhs, rhs, rty, body, &g, &a.dims);
    Array::from_data(ArrayShape::new(rty, out_dims), data)
}

/// The fast convolution (im2col + blocked GEMM) for real types.
pub fn fast_conv(
    lhs: &Array,
    rhs: &Array,
    a: &ConvAttrs,
    rty: ElementType,
) -> Result<(Array, Option<KernelKind>)> {
    fast_conv_with(lhs, rhs, a, rty, None)
}

/// `fast_conv` with a chosen micro-kernel kind.
pub fn fast_conv_with(
    lhs: &Array,
    rhs: &Array,
    a: &ConvAttrs,
    rty: ElementType,
    kind: Option<KernelKind>,
) -> Result<(Array, Option<KernelKind>)> {
    let (out_dims, g) = a.geometry(lhs.dims(), rhs.dims())?;
    prewake(lhs.ty(), rty, (g.flops() / 2.0) as usize);
    let n: usize = out_dims.iter().map(|&x| x as usize).product();
    macro_rules! run {
        ($t:ty, $conv:expr) => {{
            let k = pick::<$t>(kind)?;
            let (l, r): (Cow<[$t]>, Cow<[$t]>) = with_data!(&lhs.data, l => {
                let r = same_typed(l, &rhs.data)?;
                (as_acc(l, $conv), as_acc(r, $conv))
            });
            // Not zeroed first (a serial pass over the result before the threads start):
            // `conv_fast` writes every element.
            let mut out: Vec<$t> = crate::literal::pages::fresh_vec(n);
            let ran = conv_fast(&k, &g, &l, &r, |x: $t| x, &mut out.spare_capacity_mut()[..n]);
            // SAFETY: `conv_fast` wrote all `n` elements (its contract).
            unsafe { out.set_len(n) };
            (<$t>::finish(out, rty), ran)
        }};
    }
    let (data, ran) = match acc_kind(lhs.ty(), rty) {
        Acc::F32 => run!(f32, ToAcc::to_f32),
        Acc::F64 => run!(f64, ToAcc::to_f64),
        Acc::I64 => run!(i64, ToAcc::to_i64),
        Acc::C128 => return Ok((naive_conv(lhs, rhs, a, rty)?, None)),
    };
    let arr = Array::from_data(ArrayShape::new(rty, out_dims), data)?;
    let ran = (!arr.is_empty()).then_some(ran);
    Ok((arr, ran))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::window::WindowDim;

    fn f32_array(dims: &[i64], seed: usize) -> Array {
        let n: usize = dims.iter().map(|&d| d as usize).product();
        // Small integers: every sum is exact, so any order of summation gives the same bits.
        let v: Vec<f32> = (0..n).map(|i| ((i * 7 + seed) % 5) as f32 - 2.0).collect();
        Array::from_data(
            ArrayShape::new(ElementType::F32, dims.to_vec()),
            ArrayData::F32(v.into()),
        )
        .unwrap()
    }

    /// The multiply-adds counted from the dimensions alone (to wake the helpers before the
    /// plan is made) are the plan's, batch, several free and contracted dimensions, and empty
    /// ones included.
    #[test]
    fn a_dots_work_is_its_plans() {
        let dd = |lb: &[usize], lc: &[usize], rb: &[usize], rc: &[usize]| DotDims {
            lhs_batch: lb.to_vec(),
            lhs_contracting: lc.to_vec(),
            rhs_batch: rb.to_vec(),
            rhs_contracting: rc.to_vec(),
        };
        let cases: [(&[i64], &[i64], DotDims); 5] = [
            (&[256, 300], &[300, 70], dd(&[], &[1], &[], &[0])),
            (&[7], &[7], dd(&[], &[0], &[], &[0])),
            (
                &[4, 5, 3, 6],
                &[6, 4, 2, 5],
                dd(&[0], &[1, 3], &[1], &[3, 0]),
            ),
            (&[2, 9, 5], &[2, 5, 8, 3], dd(&[0], &[2], &[0], &[1])),
            (&[3, 0], &[0, 4], dd(&[], &[1], &[], &[0])),
        ];
        for (l, r, d) in cases {
            let plan = DotPlan::new(l, r, &d);
            assert_eq!(dot_work(l, r, &d) as f64, plan.flops() / 2.0, "{l:?} {r:?}");
        }
    }

    /// A BF16 product with no kernel asked for runs on AVX512-BF16 exactly where that kernel is
    /// preferred on this core (`gemm::bf16::preferred`), otherwise on the F32 kernel, and both
    /// give the exact sums of small integers.
    #[test]
    fn bf16_products_take_the_preferred_kernel() {
        let (m, k, n) = (40i64, 300i64, 70i64);
        let bf = |dims: &[i64], seed: usize| {
            let f = f32_array(dims, seed);
            let ArrayData::F32(v) = &f.data else {
                unreachable!()
            };
            Array::from_data(
                ArrayShape::new(ElementType::BF16, dims.to_vec()),
                ArrayData::BF16(v.iter().map(|&x| half::bf16::from_f32(x)).collect()),
            )
            .unwrap()
        };
        let (lhs, rhs) = (bf(&[m, k], 1), bf(&[k, n], 3));
        let d = DotDims {
            lhs_batch: vec![],
            lhs_contracting: vec![1],
            rhs_batch: vec![],
            rhs_contracting: vec![0],
        };
        let (fast, ran) = fast_dot(&lhs, &rhs, &d, ElementType::F32).unwrap();
        let want = if bf16_gemm::preferred() {
            KernelKind::Avx512Bf16
        } else {
            MicroKernel::<f32>::best().kind
        };
        assert_eq!(ran, Some(want));
        let oracle = naive_dot(&lhs, &rhs, &d, ElementType::F32).unwrap();
        assert_eq!(fast.data, oracle.data);
        if bf16_gemm::available() {
            let (fast, ran) = fast_dot_with(
                &lhs,
                &rhs,
                &d,
                ElementType::F32,
                Some(KernelKind::Avx512Bf16),
            )
            .unwrap();
            assert_eq!(ran, Some(KernelKind::Avx512Bf16));
            assert_eq!(fast.data, oracle.data);
            let (pair, fma) = bf16_gemm::tile_ns_per_madd();
            assert!(pair.is_finite() && pair > 0.0 && fma.is_finite() && fma > 0.0);
        }
    }

    /// `conv_fast` promises to write every element of its output (the result is not zeroed
    /// first): started from NaN everywhere, it must leave the oracle's values, for a product
    /// written in place, for feature groups and batch groups (C scattered per group) and for a
    /// kernel gradient's batch-minor patches.
    #[test]
    fn fast_conv_writes_every_output_element() {
        let nhwc = ConvDims {
            input_batch: 0,
            input_feature: 3,
            input_spatial: vec![1, 2],
            kernel_input_feature: 2,
            kernel_output_feature: 3,
            kernel_spatial: vec![0, 1],
            output_batch: 0,
            output_feature: 3,
            output_spatial: vec![1, 2],
        };
        // f01b input (batch innermost), as a kernel gradient reads its activations.
        let batch_minor = ConvDims {
            input_batch: 3,
            input_feature: 0,
            input_spatial: vec![1, 2],
            ..nhwc.clone()
        };
        // The same with the kernel's input features outermost (i01o, a kernel gradient's
        // other operand): B's rows are then no progression and are read through their table.
        let gradient = ConvDims {
            kernel_input_feature: 0,
            kernel_spatial: vec![1, 2],
            ..batch_minor.clone()
        };
        let padded = |size| WindowDim {
            pad_lo: 1,
            pad_hi: 1,
            ..WindowDim::of_size(size)
        };
        // (`f32_array` repeats every 5 elements: batch sizes that keep the features' strides
        // off multiples of 5, or every feature would read the same values.)
        let cases = [
            (nhwc.clone(), vec![2, 7, 6, 4], vec![3, 3, 4, 5], 1, 1),
            (nhwc.clone(), vec![2, 7, 6, 4], vec![3, 3, 2, 6], 2, 1),
            (nhwc.clone(), vec![4, 5, 5, 3], vec![3, 3, 3, 6], 1, 2),
            (batch_minor, vec![3, 6, 6, 42], vec![3, 3, 3, 8], 1, 1),
            (gradient, vec![5, 6, 6, 41], vec![5, 4, 3, 8], 1, 1),
        ];
        let best = MicroKernel::<f32>::best();
        // Slices of k that end inside a window position's input features (7 of 5 per
        // position), and row blocks of two tiles, each several positions' batch runs apart.
        let thin = MicroKernel {
            kc: 7,
            mc: 2 * best.mr,
            ..best
        };
        for ((dims, ldims, kdims, fgc, bgc), kern) in cases
            .into_iter()
            .flat_map(|c| [(c.clone(), best), (c, thin)])
        {
            let window: Vec<WindowDim> = dims
                .kernel_spatial
                .iter()
                .map(|&i| padded(kdims[i]))
                .collect();
            let attrs = ConvAttrs {
                dims,
                window: Window { dims: window },
                feature_group_count: fgc,
                batch_group_count: bgc,
            };
            let (lhs, rhs) = (f32_array(&ldims, 1), f32_array(&kdims, 3));
            let (out_dims, g) = attrs.geometry(lhs.dims(), rhs.dims()).unwrap();
            let n: usize = out_dims.iter().map(|&d| d as usize).product();
            let mut out = vec![std::mem::MaybeUninit::new(f32::NAN); n];
            let (ArrayData::F32(l), ArrayData::F32(r)) = (&lhs.data, &rhs.data) else {
                unreachable!()
            };
            conv_fast(&kern, &g, l, r, |x| x, &mut out);
            let oracle = naive_conv(&lhs, &rhs, &attrs, ElementType::F32).unwrap();
            let ArrayData::F32(want) = &oracle.data else {
                unreachable!()
            };
            let got: Vec<f32> = out.iter().map(|x| unsafe { x.assume_init() }).collect();
            assert_eq!(
                &got[..],
                &want[..],
                "{ldims:?} * {kdims:?}, fgc {fgc} bgc {bgc}, kc {}",
                kern.kc
            );
        }
    }
}
