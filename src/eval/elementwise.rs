//! Element-wise ops (add and multiply so far; the family's issue adds the rest). Integers wrap
//! (two's complement), F16/BF16 compute in F32 and round once, as XLA does.

use super::{Evaluator, array, not_implemented};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::opcode::Opcode;
use crate::literal::{Array, ArrayData, Literal};
use half::{bf16, f16};

pub fn eval(_ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    match inst.opcode {
        Opcode::Add => binary(inst, ops, Arith::Add),
        Opcode::Multiply => binary(inst, ops, Arith::Mul),
        op => Err(not_implemented(op)),
    }
}

#[derive(Clone, Copy)]
enum Arith {
    Add,
    Mul,
}

fn binary(inst: &Instruction, ops: &[&Literal], op: Arith) -> Result<Literal> {
    let (a, b) = (array(ops, 0)?, array(ops, 1)?);
    macro_rules! zip {
        ($x:expr, $y:expr, $add:expr, $mul:expr) => {
            match op {
                Arith::Add => $x
                    .iter()
                    .zip($y.iter())
                    .map(|(&p, &q)| $add(p, q))
                    .collect(),
                Arith::Mul => $x
                    .iter()
                    .zip($y.iter())
                    .map(|(&p, &q)| $mul(p, q))
                    .collect(),
            }
        };
    }
    use ArrayData as D;
    let data = match (&a.data, &b.data) {
        (D::S8(x), D::S8(y)) => D::S8(zip!(x, y, i8::wrapping_add, i8::wrapping_mul)),
        (D::S16(x), D::S16(y)) => D::S16(zip!(x, y, i16::wrapping_add, i16::wrapping_mul)),
        (D::S32(x), D::S32(y)) => D::S32(zip!(x, y, i32::wrapping_add, i32::wrapping_mul)),
        (D::S64(x), D::S64(y)) => D::S64(zip!(x, y, i64::wrapping_add, i64::wrapping_mul)),
        (D::U8(x), D::U8(y)) => D::U8(zip!(x, y, u8::wrapping_add, u8::wrapping_mul)),
        (D::U16(x), D::U16(y)) => D::U16(zip!(x, y, u16::wrapping_add, u16::wrapping_mul)),
        (D::U32(x), D::U32(y)) => D::U32(zip!(x, y, u32::wrapping_add, u32::wrapping_mul)),
        (D::U64(x), D::U64(y)) => D::U64(zip!(x, y, u64::wrapping_add, u64::wrapping_mul)),
        (D::F16(x), D::F16(y)) => D::F16(zip!(
            x,
            y,
            |p: f16, q: f16| f16::from_f32(p.to_f32() + q.to_f32()),
            |p: f16, q: f16| f16::from_f32(p.to_f32() * q.to_f32())
        )),
        (D::BF16(x), D::BF16(y)) => D::BF16(zip!(
            x,
            y,
            |p: bf16, q: bf16| bf16::from_f32(p.to_f32() + q.to_f32()),
            |p: bf16, q: bf16| bf16::from_f32(p.to_f32() * q.to_f32())
        )),
        (D::F32(x), D::F32(y)) => {
            D::F32(zip!(x, y, |p: f32, q: f32| p + q, |p: f32, q: f32| p * q))
        }
        (D::F64(x), D::F64(y)) => {
            D::F64(zip!(x, y, |p: f64, q: f64| p + q, |p: f64, q: f64| p * q))
        }
        (D::C64(x), D::C64(y)) => D::C64(zip!(x, y, |p, q| p + q, |p, q| p * q)),
        (D::C128(x), D::C128(y)) => D::C128(zip!(x, y, |p, q| p + q, |p, q| p * q)),
        _ => {
            return Err(Error::internal(format!(
                "`{}` on {} and {}",
                inst.opcode,
                a.ty(),
                b.ty()
            )));
        }
    };
    Ok(Literal::Array(Array {
        shape: Evaluator::result_shape_with_dims(inst, &a.shape.dims)?,
        data,
    }))
}
