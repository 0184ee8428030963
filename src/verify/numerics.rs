//! Shape inference and constraints for the numerics family: the three batch-norm ops, cholesky,
//! triangular-solve, fft and the random-number ops.
//!
//! The rules follow XLA's `ShapeInference::InferBatchNorm*Shape`, `InferCholeskyShape`,
//! `InferTriangularSolveShape`, `InferFftShape` and the HLO verifier's checks for `rng` and
//! `rng-bit-generator`; the book's pages (`book/src/ops/numerics/`) state each labelled rule.

use super::Ctx;
use crate::error::Result;
use crate::hlo::attrs::{
    BatchNormAttrs, FftAttrs, FftType, RngAlgorithm, RngDistribution, TriangularSolveAttrs,
};
use crate::hlo::opcode::NumericsOp;
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use crate::{ensure, invalid};

pub fn infer(ctx: &Ctx, op: &NumericsOp) -> Result<Shape> {
    match op {
        NumericsOp::BatchNormTraining(b) => batch_norm(ctx, b, BatchNorm::Training),
        NumericsOp::BatchNormInference(b) => batch_norm(ctx, b, BatchNorm::Inference),
        NumericsOp::BatchNormGrad(b) => batch_norm(ctx, b, BatchNorm::Grad),
        NumericsOp::Cholesky(_) => cholesky(ctx),
        NumericsOp::TriangularSolve(t) => triangular_solve(ctx, t),
        NumericsOp::Fft(f) => fft(ctx, f),
        NumericsOp::Rng(r) => rng(ctx, r.distribution),
        NumericsOp::RngBitGenerator(r) => rng_bit_generator(ctx, r.algorithm),
        NumericsOp::RngGetAndUpdateState(_) => {
            ctx.arity(0)?;
            Ok(Shape::array(ElementType::U64, vec![2]))
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum BatchNorm {
    Training,
    Inference,
    Grad,
}

/// The three batch-norm ops. Operand 0 is the n-dimensional operand; the per-feature operands are
/// rank-1 arrays of the feature dimension's size. batch-norm-grad's last operand is the gradient,
/// shaped like the operand.
fn batch_norm(ctx: &Ctx, attrs: &BatchNormAttrs, kind: BatchNorm) -> Result<Shape> {
    let arity = if kind == BatchNorm::Training { 3 } else { 5 };
    ctx.arity(arity)?;
    let x = ctx.array(0)?;
    ensure!(
        x.ty.is_float(),
        "batch-norm.float_operand",
        "`{}` is defined on floating-point arrays, got {x}",
        ctx.op()
    );
    ensure!(
        x.rank() >= 1,
        "batch-norm.feature_index_in_range",
        "`{}` needs an operand of rank 1 or more, got {x}",
        ctx.op()
    );
    let fi = attrs.feature_index;
    ensure!(
        fi >= 0 && (fi as usize) < x.rank(),
        "batch-norm.feature_index_in_range",
        "feature_index={fi} is not a dimension of {x}"
    );
    let features = x.dims[fi as usize];
    let is_grad = kind == BatchNorm::Grad;
    let per_feature = if is_grad { 1..4 } else { 1..arity };
    for i in per_feature {
        let s = ctx.array(i)?;
        ensure!(
            s.ty == x.ty,
            "batch-norm.same_type",
            "operand {i} of `{}` has type {} but the operand is {}",
            ctx.op(),
            s.ty,
            x.ty
        );
        ensure!(
            s.rank() == 1 && s.dims[0] == features,
            "batch-norm.per_feature_shape",
            "operand {i} of `{}` must be {}[{features}] (one value per feature of dimension {fi}), got {s}",
            ctx.op(),
            x.ty
        );
    }
    let feature_vec = Shape::array(x.ty, vec![features]);
    let xs = Shape::Array(ArrayShape::new(x.ty, x.dims.clone()));
    if is_grad {
        let g = ctx.array(4)?;
        ensure!(
            g.same_dims_and_type(x),
            "batch-norm.grad_output_shape",
            "grad_output must have the operand's shape {x}, got {g}"
        );
    }
    Ok(match kind {
        BatchNorm::Inference => xs,
        BatchNorm::Training | BatchNorm::Grad => {
            Shape::Tuple(vec![xs, feature_vec.clone(), feature_vec])
        }
    })
}

fn cholesky(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    let a = ctx.array(0)?;
    ensure!(
        a.ty.is_floating(),
        "cholesky.float_or_complex",
        "cholesky is defined on floating-point and complex arrays, got {a}"
    );
    ensure!(
        a.rank() >= 2,
        "cholesky.square_minor_dims",
        "cholesky needs a matrix or a batch of matrices (rank 2 or more), got {a}"
    );
    let r = a.rank();
    ensure!(
        a.dims[r - 2] == a.dims[r - 1],
        "cholesky.square_minor_dims",
        "the two minor dimensions of {a} must be equal (square matrices)"
    );
    Ok(Shape::Array(ArrayShape::new(a.ty, a.dims.clone())))
}

fn triangular_solve(ctx: &Ctx, t: &TriangularSolveAttrs) -> Result<Shape> {
    ctx.arity(2)?;
    let (a, b) = (ctx.array(0)?, ctx.array(1)?);
    ensure!(
        a.ty.is_floating(),
        "triangular-solve.float_or_complex",
        "triangular-solve is defined on floating-point and complex arrays, got {a}"
    );
    ensure!(
        a.ty == b.ty,
        "triangular-solve.same_type",
        "a and b must have the same element type, got {a} and {b}"
    );
    ensure!(
        a.rank() >= 2 && a.rank() == b.rank(),
        "triangular-solve.batch_dims",
        "a and b must have the same rank, at least 2; got {a} and {b}"
    );
    let r = a.rank();
    ensure!(
        a.dims[r - 2] == a.dims[r - 1],
        "triangular-solve.a_square",
        "the two minor dimensions of a ({a}) must be equal"
    );
    ensure!(
        a.dims[..r - 2] == b.dims[..r - 2],
        "triangular-solve.batch_dims",
        "a ({a}) and b ({b}) must have equal batch dimensions"
    );
    let left = t.left_side;
    let m = a.dims[r - 1];
    let (which, got) = if left {
        ("rows", b.dims[r - 2])
    } else {
        ("columns", b.dims[r - 1])
    };
    ensure!(
        got == m,
        "triangular-solve.b_shape",
        "with left_side={left}, b's {which} must equal a's size {m}, got {b}"
    );
    ensure!(
        t.transpose_a.is_some(),
        "triangular-solve.transpose_a",
        "transpose_a must be given (NO_TRANSPOSE, TRANSPOSE or ADJOINT)"
    );
    Ok(Shape::Array(ArrayShape::new(b.ty, b.dims.clone())))
}

fn fft(ctx: &Ctx, f: &FftAttrs) -> Result<Shape> {
    ctx.arity(1)?;
    let x = ctx.array(0)?;
    let ty = f.fft_type;
    let len = &f.fft_length[..];
    ensure!(
        (1..=3).contains(&len.len()),
        "fft.length_count",
        "fft_length must list 1 to 3 lengths, got {}",
        len.len()
    );
    ensure!(
        len.iter().all(|&n| n >= 0),
        "fft.length_count",
        "fft_length entries must be non-negative"
    );
    ensure!(
        x.rank() >= len.len(),
        "fft.length_count",
        "fft_length has {} entries but the operand {x} has rank {}",
        len.len(),
        x.rank()
    );
    let k = x.rank() - len.len();
    let inner = &x.dims[k..];
    let last = len.len() - 1;
    let mut dims = x.dims.clone();
    let out_ty = match ty {
        FftType::Fft | FftType::Ifft => {
            ensure!(
                x.ty.is_complex(),
                "fft.operand_type",
                "{ty} takes a complex operand (c64 or c128), got {x}"
            );
            ensure!(
                inner == len,
                "fft.length_matches",
                "the innermost dimensions of {x} must equal fft_length {len:?}"
            );
            x.ty
        }
        FftType::Rfft => {
            let c = x.ty.complex_of().filter(|_| x.ty.is_float());
            let Some(c) = c else {
                invalid!(
                    "fft.operand_type",
                    "RFFT takes an f32 or f64 operand, got {x}"
                )
            };
            ensure!(
                inner == len,
                "fft.length_matches",
                "the innermost dimensions of {x} must equal fft_length {len:?}"
            );
            dims[k + last] = if len[last] == 0 { 0 } else { len[last] / 2 + 1 };
            c
        }
        FftType::Irfft => {
            let Some(r) = x.ty.complex_component() else {
                invalid!(
                    "fft.operand_type",
                    "IRFFT takes a c64 or c128 operand, got {x}"
                )
            };
            let want_last = if len[last] == 0 { 0 } else { len[last] / 2 + 1 };
            ensure!(
                inner[..last] == len[..last] && inner[last] == want_last,
                "fft.length_matches",
                "for IRFFT with fft_length {len:?} the innermost dimensions of {x} must be {:?} followed by {want_last}",
                &len[..last]
            );
            dims[k + last] = len[last];
            r
        }
    };
    Ok(Shape::array(out_ty, dims))
}

fn rng(ctx: &Ctx, distribution: RngDistribution) -> Result<Shape> {
    ctx.arity(2)?;
    let d = ctx.declared_required()?;
    let Some(out) = d.as_array() else {
        invalid!("rng.array_result", "rng produces an array, not {d}")
    };
    for i in 0..2 {
        let s = ctx.scalar(i)?;
        ensure!(
            s.ty == out.ty,
            "rng.scalar_parameters",
            "the parameters of rng must be {} scalars like its result, operand {i} is {s}",
            out.ty
        );
    }
    use ElementType::*;
    match distribution {
        RngDistribution::Uniform => ensure!(
            matches!(out.ty, S32 | S64 | U32 | U64 | F16 | BF16 | F32 | F64),
            "rng.uniform_type",
            "rng_uniform is defined on s32, s64, u32, u64 and the float types, not {}",
            out.ty
        ),
        RngDistribution::Normal => ensure!(
            out.ty.is_float(),
            "rng.normal_type",
            "rng_normal is defined on the float types, not {}",
            out.ty
        ),
    }
    Ok(d.clone())
}

fn rng_bit_generator(ctx: &Ctx, algorithm: RngAlgorithm) -> Result<Shape> {
    ctx.arity(1)?;
    let state = ctx.array(0)?;
    let sizes: &[i64] = match algorithm {
        RngAlgorithm::ThreeFry => &[2],
        // Philox keys its 128-bit counter from state[1..3]; XLA also accepts a u64[2] state, whose
        // counter's high word is then the key itself. rng_default is Philox, as on XLA:CPU.
        RngAlgorithm::Philox | RngAlgorithm::Default => &[2, 3],
    };
    ensure!(
        state.ty == ElementType::U64 && state.rank() == 1 && sizes.contains(&state.dims[0]),
        "rng-bit-generator.state_shape",
        "{algorithm} needs a state of shape {}, got {state}",
        sizes
            .iter()
            .map(|n| format!("u64[{n}]"))
            .collect::<Vec<_>>()
            .join(" or ")
    );
    let d = ctx.declared_required()?;
    let bits = match d.as_tuple() {
        Some([s, Shape::Array(bits)]) if s.compatible(&Shape::Array(state.clone())) => bits,
        _ => invalid!(
            "rng-bit-generator.result_tuple",
            "the result must be a tuple (new state {state}, bits array), got {d}"
        ),
    };
    ensure!(
        bits.ty.is_integer() || bits.ty.is_float(),
        "rng-bit-generator.output_type",
        "the generated bits must be an integer or float array, not {}",
        bits.ty
    );
    Ok(d.clone())
}

#[cfg(test)]
mod tests {
    use crate::verify::parse_and_verify;

    fn module(body: &str) -> String {
        format!("HloModule m\nENTRY e {{\n{body}\n}}\n")
    }

    fn rule(body: &str) -> Option<String> {
        parse_and_verify(&module(body)).err().and_then(|e| e.rule)
    }

    #[test]
    fn numerics_constraints_have_labels() {
        let cases = [
            (
                "x = s32[2,2] parameter(0)\n s = s32[2] parameter(1)\n o = s32[2] parameter(2)\n ROOT r = (s32[2,2], s32[2], s32[2]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1",
                "batch-norm.float_operand",
            ),
            (
                "x = f32[2,3] parameter(0)\n s = f32[3] parameter(1)\n o = f32[3] parameter(2)\n ROOT r = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=2",
                "batch-norm.feature_index_in_range",
            ),
            (
                "x = f32[2,3] parameter(0)\n s = f32[2] parameter(1)\n o = f32[3] parameter(2)\n ROOT r = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1",
                "batch-norm.per_feature_shape",
            ),
            (
                "a = f32[3,4] parameter(0)\n ROOT r = f32[3,4] cholesky(a)",
                "cholesky.square_minor_dims",
            ),
            (
                "a = s32[4,4] parameter(0)\n ROOT r = s32[4,4] cholesky(a)",
                "cholesky.float_or_complex",
            ),
            (
                "a = f32[4,4] parameter(0)\n b = f32[2,4] parameter(1)\n ROOT r = f32[2,4] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE",
                "triangular-solve.b_shape",
            ),
            (
                "a = f32[4,4] parameter(0)\n b = f32[4,2] parameter(1)\n ROOT r = f32[4,2] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false",
                "triangular-solve.transpose_a",
            ),
            (
                "a = f32[2,4,4] parameter(0)\n b = f32[3,4,2] parameter(1)\n ROOT r = f32[3,4,2] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=TRANSPOSE",
                "triangular-solve.batch_dims",
            ),
            (
                "c = f32[8,32] parameter(0)\n ROOT r = f32[8,32] fft(c), fft_type=FFT, fft_length={32}",
                "fft.operand_type",
            ),
            (
                "c = f32[8,32] parameter(0)\n ROOT r = c64[8,17] fft(c), fft_type=RFFT, fft_length={16}",
                "fft.length_matches",
            ),
            (
                "c = c64[2,2,2,2] parameter(0)\n ROOT r = c64[2,2,2,2] fft(c), fft_type=FFT, fft_length={2,2,2,2}",
                "fft.length_count",
            ),
            (
                "c = c64[8,16] parameter(0)\n ROOT r = f32[8,32] fft(c), fft_type=IRFFT, fft_length={32}",
                "fft.length_matches",
            ),
            (
                "a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT r = s32[3] rng(a, b), distribution=rng_normal",
                "rng.normal_type",
            ),
            (
                "a = s8[] parameter(0)\n b = s8[] parameter(1)\n ROOT r = s8[3] rng(a, b), distribution=rng_uniform",
                "rng.uniform_type",
            ),
            (
                "a = f32[2] parameter(0)\n b = f32[] parameter(1)\n ROOT r = f32[3] rng(a, b), distribution=rng_uniform",
                "rng.scalar_operand",
            ),
            (
                "a = f64[] parameter(0)\n b = f64[] parameter(1)\n ROOT r = f32[3] rng(a, b), distribution=rng_uniform",
                "rng.scalar_parameters",
            ),
            (
                "s = u64[3] parameter(0)\n ROOT r = (u64[3], u32[2]) rng-bit-generator(s), algorithm=rng_three_fry",
                "rng-bit-generator.state_shape",
            ),
            (
                "s = u64[2] parameter(0)\n ROOT r = (u64[2], c64[2]) rng-bit-generator(s), algorithm=rng_three_fry",
                "rng-bit-generator.output_type",
            ),
            (
                "s = u64[2] parameter(0)\n ROOT r = u32[2] rng-bit-generator(s), algorithm=rng_three_fry",
                "rng-bit-generator.result_tuple",
            ),
        ];
        for (body, want) in cases {
            assert_eq!(rule(body).as_deref(), Some(want), "{body}");
        }
    }
}
