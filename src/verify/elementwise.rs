//! Shape inference and type rules for the element-wise family: unary and binary arithmetic,
//! `compare`, `select`, `clamp`, `convert`, `bitcast-convert` and `reduce-precision`.
//!
//! HLO has no implicit broadcasting: the operands of a binary op must have the same dimensions and
//! the same element type (only `select`'s predicate and `clamp`'s bounds may be scalars). Which
//! element types each op accepts follows XLA's `ShapeInference` (`xla/service/shape_inference.cc`);
//! every refusal names a rule label the book's element-wise chapter defines.

use super::{Ctx, same_dims};
use crate::ensure;
use crate::error::{Error, Result};
use crate::hlo::attrs::{CompareAttrs, ComparisonDirection, ComparisonType, ReducePrecisionAttrs};
use crate::hlo::opcode::{BinaryOp, ElementwiseOp, UnaryOp};
use crate::shape::{ArrayShape, Shape};
use crate::types::{Category, ElementType};

pub fn infer_unary(ctx: &Ctx, op: UnaryOp) -> Result<Shape> {
    ctx.arity(1)?;
    let a = array(ctx, 0)?;
    check_type(ctx, unary_types(op), a.ty)?;
    let ty = match op {
        UnaryOp::IsFinite => ElementType::Pred,
        UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => a.ty.complex_component().unwrap_or(a.ty),
        _ => a.ty,
    };
    Ok(same_dims(a, ty))
}

pub fn infer_binary(ctx: &Ctx, op: BinaryOp) -> Result<Shape> {
    let (a, b) = same_shape_pair(ctx)?;
    check_type(ctx, binary_types(op), a.ty)?;
    let ty = match op {
        BinaryOp::Complex => a.ty.complex_of().unwrap_or(a.ty),
        _ => a.ty,
    };
    Ok(merged(a, b, ty))
}

pub fn infer(ctx: &Ctx, op: &ElementwiseOp) -> Result<Shape> {
    match op {
        ElementwiseOp::Compare(c) => compare(ctx, c),
        ElementwiseOp::Select => select(ctx),
        ElementwiseOp::Clamp => clamp(ctx),
        ElementwiseOp::Convert => convert(ctx),
        ElementwiseOp::BitcastConvert => bitcast_convert(ctx),
        ElementwiseOp::ReducePrecision(r) => reduce_precision(ctx, r),
    }
}

/// Operand `i` as an array, with the family's rule label.
fn array<'a>(ctx: &Ctx<'a>, i: usize) -> Result<&'a ArrayShape> {
    match ctx.operands.get(i) {
        Some(Shape::Array(a)) => Ok(a),
        Some(other) => Err(Error::invalid(
            "elementwise.operand_is_array",
            format!(
                "operand {i} of `{}` must be an array, got {other}",
                ctx.op()
            ),
        )),
        None => Err(Error::invalid(
            "hlo.arity",
            format!("`{}` is missing operand {i}", ctx.op()),
        )),
    }
}

/// Which element types an op is defined on: a predicate and the words the error uses.
type Types = (fn(ElementType) -> bool, &'static str);

fn float(t: ElementType) -> bool {
    t.is_float()
}
fn floating(t: ElementType) -> bool {
    t.is_float() || t.is_complex()
}
fn integer(t: ElementType) -> bool {
    t.is_integer()
}
fn pred_or_int(t: ElementType) -> bool {
    t.is_pred() || t.is_integer()
}
fn signed_float_complex(t: ElementType) -> bool {
    t.is_signed_int() || t.is_float() || t.is_complex()
}
fn numeric(t: ElementType) -> bool {
    t.is_numeric()
}
fn any(t: ElementType) -> bool {
    t.is_array_type()
}
fn real_float(t: ElementType) -> bool {
    t == ElementType::F32 || t == ElementType::F64
}
fn not_complex(t: ElementType) -> bool {
    t.is_array_type() && !t.is_complex()
}
fn numeric_not_complex(t: ElementType) -> bool {
    t.is_integer() || t.is_float()
}

const FLOAT: Types = (float, "a float type (f16, bf16, f32, f64)");
const FLOATING: Types = (floating, "a float or complex type");
const INTEGER: Types = (integer, "an integer type (s8..s64, u8..u64)");
const PRED_OR_INT: Types = (pred_or_int, "pred or an integer type");
const NUMERIC: Types = (numeric, "an integer, float or complex type");

fn unary_types(op: UnaryOp) -> Types {
    use UnaryOp::*;
    match op {
        Ceil | Floor | RoundNearestAfz | RoundNearestEven | IsFinite | Erf | Cbrt => FLOAT,
        Cos | Sin | Tan | Tanh | Exp | Expm1 | Log | Log1p | Logistic | Sqrt | Rsqrt | Real
        | Imag => FLOATING,
        Clz | PopulationCount => INTEGER,
        Not => PRED_OR_INT,
        Abs | Sign => (
            signed_float_complex,
            "a signed integer, float or complex type",
        ),
        Negate => NUMERIC,
    }
}

fn binary_types(op: BinaryOp) -> Types {
    use BinaryOp::*;
    match op {
        Atan2 => FLOATING,
        ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => INTEGER,
        And | Or | Xor => PRED_OR_INT,
        Subtract | Divide | Power => NUMERIC,
        Remainder => (numeric_not_complex, "an integer or float type"),
        Add | Multiply => (any, "any array element type"),
        Maximum | Minimum => (not_complex, "pred, an integer or a float type"),
        Complex => (real_float, "f32 or f64"),
    }
}

fn check_type(ctx: &Ctx, (ok, words): Types, ty: ElementType) -> Result<()> {
    ensure!(
        ok(ty),
        &format!("{}.element_type", ctx.op()),
        "`{}` is defined on {words}, not on {ty}",
        ctx.op()
    );
    Ok(())
}

/// Two array operands of the same dimensions and element type; the result keeps their
/// dimensions and is dynamic where either operand is.
fn same_shape_pair<'a>(ctx: &Ctx<'a>) -> Result<(&'a ArrayShape, &'a ArrayShape)> {
    ctx.arity(2)?;
    let (a, b) = (array(ctx, 0)?, array(ctx, 1)?);
    ensure!(
        a.dims == b.dims,
        "elementwise.same_shape",
        "the operands of `{}` must have the same dimensions (HLO does not broadcast implicitly), \
         got {a} and {b}",
        ctx.op()
    );
    ensure!(
        a.ty == b.ty,
        "elementwise.same_type",
        "the operands of `{}` must have the same element type, got {} and {}",
        ctx.op(),
        a.ty,
        b.ty
    );
    Ok((a, b))
}

fn merged(a: &ArrayShape, b: &ArrayShape, ty: ElementType) -> Shape {
    let mut s = a.with_type(ty);
    for (d, &bd) in s.dynamic.iter_mut().zip(&b.dynamic) {
        *d |= bd;
    }
    Shape::Array(s)
}

fn compare(ctx: &Ctx, c: &CompareAttrs) -> Result<Shape> {
    let (a, b) = same_shape_pair(ctx)?;
    if let Some(t) = c.compare_type {
        let fits = match a.ty.category() {
            Category::Float => matches!(t, ComparisonType::Float | ComparisonType::TotalOrder),
            Category::Complex => t == ComparisonType::Float,
            Category::Signed => t == ComparisonType::Signed,
            _ => t == ComparisonType::Unsigned,
        };
        ensure!(
            fits,
            "compare.type",
            "type={t} does not fit {} operands (their comparison type is {}{})",
            a.ty,
            ComparisonType::default_for(a.ty),
            if a.ty.is_float() {
                " or TOTALORDER"
            } else {
                ""
            }
        );
    }
    ensure!(
        !a.ty.is_complex()
            || matches!(
                c.direction,
                ComparisonDirection::Eq | ComparisonDirection::Ne
            ),
        "compare.complex_order",
        "complex numbers are not ordered: only EQ and NE compare {} operands, got {}",
        a.ty,
        c.direction
    );
    Ok(merged(a, b, ElementType::Pred))
}

fn select(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(3)?;
    let p = array(ctx, 0)?;
    ensure!(
        p.ty == ElementType::Pred,
        "select.pred_type",
        "the predicate of `select` must be pred, got {}",
        p.ty
    );
    // XLA's shape inference takes arrays only; choosing between tuples is something the client
    // builder lowers to one select per leaf.
    let (t, f) = match (ctx.operands[1], ctx.operands[2]) {
        (Shape::Array(t), Shape::Array(f)) => (t, f),
        (t, f) => crate::invalid!(
            "select.array_operands",
            "on_true and on_false of `select` must be arrays, got {t} and {f}"
        ),
    };
    ensure!(
        t.same_dims_and_type(f),
        "select.branches_match",
        "on_true and on_false must have the same shape, got {t} and {f}"
    );
    ensure!(
        p.is_scalar() || p.dims == t.dims,
        "select.pred_shape",
        "the predicate must be a scalar or have the dimensions of on_true ({t}), got {p}"
    );
    let mut s = t.clone();
    s.layout = None;
    for (i, d) in s.dynamic.iter_mut().enumerate() {
        *d |= f.dynamic.get(i).copied().unwrap_or(false)
            || p.dynamic.get(i).copied().unwrap_or(false);
    }
    Ok(Shape::Array(s))
}

fn clamp(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(3)?;
    let (lo, x, hi) = (array(ctx, 0)?, array(ctx, 1)?, array(ctx, 2)?);
    for (name, b) in [("min", lo), ("max", hi)] {
        ensure!(
            b.ty == x.ty,
            "clamp.same_type",
            "`{name}` of `clamp` must have the operand's element type {}, got {}",
            x.ty,
            b.ty
        );
        ensure!(
            b.is_scalar() || b.dims == x.dims,
            "clamp.bounds_shape",
            "`{name}` of `clamp` must be a scalar or have the operand's dimensions ({x}), got {b}"
        );
    }
    ensure!(
        !x.ty.is_complex(),
        "clamp.element_type",
        "`clamp` needs ordered values; complex {} is not ordered",
        x.ty
    );
    let mut s = x.with_type(x.ty);
    for b in [lo, hi] {
        if !b.is_scalar() {
            for (d, &bd) in s.dynamic.iter_mut().zip(&b.dynamic) {
                *d |= bd;
            }
        }
    }
    Ok(Shape::Array(s))
}

fn declared_array<'b>(ctx: &'b Ctx) -> Result<&'b ArrayShape> {
    let d = ctx.declared_required()?;
    d.as_array().ok_or_else(|| {
        Error::invalid(
            "elementwise.operand_is_array",
            format!("`{}` produces an array, not {d}", ctx.op()),
        )
    })
}

fn convert(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    let a = array(ctx, 0)?;
    let out = declared_array(ctx)?;
    ensure!(
        out.dims == a.dims,
        "convert.same_dims",
        "`convert` keeps the dimensions: {a} cannot become {out}"
    );
    ensure!(
        !a.ty.is_complex() || out.ty.is_complex(),
        "convert.complex_to_real",
        "`convert` from complex {} to real {} is not defined (take `real` or `imag` first)",
        a.ty,
        out.ty
    );
    Ok(Shape::Array(ArrayShape {
        ty: out.ty,
        dims: a.dims.clone(),
        dynamic: a.dynamic.clone(),
        layout: out.layout.clone(),
    }))
}

fn bitcast_convert(ctx: &Ctx) -> Result<Shape> {
    ctx.arity(1)?;
    let a = array(ctx, 0)?;
    let out = declared_array(ctx)?;
    ensure!(
        a.ty != ElementType::Pred && out.ty != ElementType::Pred,
        "bitcast-convert.no_pred",
        "`bitcast-convert` does not take pred (its only bit patterns are 0 and 1): {} to {}",
        a.ty,
        out.ty
    );
    let (bi, bo) = (a.ty.bit_width() as i64, out.ty.bit_width() as i64);
    let want: Vec<i64> = if bi == bo {
        a.dims.clone()
    } else if bi > bo {
        let mut d = a.dims.clone();
        d.push(bi / bo);
        d
    } else {
        ensure!(
            a.dims.last() == Some(&(bo / bi)),
            "bitcast-convert.shape",
            "widening {} to {} needs a last operand dimension of size {}, got {a}",
            a.ty,
            out.ty,
            bo / bi
        );
        a.dims[..a.dims.len() - 1].to_vec()
    };
    ensure!(
        out.dims == want,
        "bitcast-convert.shape",
        "`bitcast-convert` of {a} to {} gives dimensions {want:?}, but {out} is declared",
        out.ty
    );
    ensure!(
        !a.is_dynamic() && !out.is_dynamic(),
        "bitcast-convert.shape",
        "`bitcast-convert` needs static dimensions"
    );
    Ok(Shape::Array(out.clone()))
}

fn reduce_precision(ctx: &Ctx, r: &ReducePrecisionAttrs) -> Result<Shape> {
    ctx.arity(1)?;
    let a = array(ctx, 0)?;
    check_float_for_rp(a.ty)?;
    let (e, m) = (r.exponent_bits, r.mantissa_bits);
    ensure!(
        (1..=i32::MAX as i64).contains(&e),
        "reduce-precision.exponent_bits",
        "exponent_bits must be at least 1 (zero and infinity need an exponent), got {e}"
    );
    ensure!(
        (0..=i32::MAX as i64).contains(&m),
        "reduce-precision.mantissa_bits",
        "mantissa_bits must not be negative, got {m}"
    );
    Ok(same_dims(a, a.ty))
}

fn check_float_for_rp(ty: ElementType) -> Result<()> {
    ensure!(
        ty.is_float(),
        "reduce-precision.element_type",
        "`reduce-precision` is defined on float types (f16, bf16, f32, f64), not on {ty}"
    );
    Ok(())
}
