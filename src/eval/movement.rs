//! Data movement: iota, tuple, get-tuple-element, broadcast, reshape, transpose (the rest of the
//! family comes with its issue).

use super::{Evaluator, array, not_implemented};
use crate::error::{Error, Result};
use crate::hlo::ast::Instruction;
use crate::hlo::opcode::Opcode;
use crate::literal::{Array, ArrayData, Literal, Scalar};
use crate::shape::{ArrayShape, row_major_strides};
use crate::types::ElementType;

pub fn eval(_ev: &Evaluator, inst: &Instruction, ops: &[&Literal]) -> Result<Literal> {
    use Opcode::*;
    match inst.opcode {
        Iota => iota(inst),
        Tuple => Ok(Literal::Tuple(ops.iter().map(|l| (*l).clone()).collect())),
        GetTupleElement => {
            let idx = inst.attrs.int("index").unwrap_or(-1);
            ops.first()
                .and_then(|t| t.as_tuple())
                .and_then(|t| t.get(idx as usize))
                .cloned()
                .ok_or_else(|| Error::internal("get-tuple-element index out of range"))
        }
        Broadcast => {
            let a = array(ops, 0)?;
            let out = Evaluator::result_array_shape(inst)?;
            let dims = inst.attrs.ints("dimensions").unwrap_or(&[]);
            let in_strides = row_major_strides(&a.shape.dims);
            // Output dimension -> stride in the operand (0 for new and degenerate dimensions).
            let mut map = vec![0usize; out.rank()];
            for (i, &od) in dims.iter().enumerate() {
                if a.shape.dims[i] != 1 {
                    map[od as usize] = in_strides[i];
                }
            }
            Ok(Literal::Array(remap(a, out.clone(), |idx| {
                idx.iter().zip(&map).map(|(&i, &s)| i as usize * s).sum()
            })))
        }
        Reshape => {
            let a = array(ops, 0)?;
            let out = Evaluator::result_array_shape(inst)?;
            Ok(Literal::Array(Array {
                shape: out.clone(),
                data: a.data.clone(),
            }))
        }
        Transpose => {
            let a = array(ops, 0)?;
            let perm = inst.attrs.ints("dimensions").unwrap_or(&[]);
            let in_strides = row_major_strides(&a.shape.dims);
            let map: Vec<usize> = perm.iter().map(|&p| in_strides[p as usize]).collect();
            let mut shape = ArrayShape::new(
                a.ty(),
                perm.iter().map(|&p| a.shape.dims[p as usize]).collect(),
            );
            shape.layout = inst.shape.as_array().and_then(|s| s.layout.clone());
            Ok(Literal::Array(remap(a, shape, |idx| {
                idx.iter().zip(&map).map(|(&i, &s)| i as usize * s).sum()
            })))
        }
        op => Err(not_implemented(op)),
    }
}

/// Builds an array of `shape` whose element at each index is the operand element at
/// `source(index)` (a row-major linear index into the operand).
pub fn remap(a: &Array, shape: ArrayShape, source: impl Fn(&[i64]) -> usize) -> Array {
    let n = shape.element_count();
    let dims = shape.dims.clone();
    let mut idx = vec![0i64; dims.len()];
    let mut order = Vec::with_capacity(n);
    for _ in 0..n {
        order.push(source(&idx));
        for d in (0..dims.len()).rev() {
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Array {
        data: a.data.gather(order.into_iter()),
        shape,
    }
}

fn iota(inst: &Instruction) -> Result<Literal> {
    let shape = Evaluator::result_array_shape(inst)?.clone();
    let dim = inst.attrs.int("iota_dimension").unwrap_or(0) as usize;
    let strides = shape.row_major_strides();
    let size = shape.dims[dim] as usize;
    let n = shape.element_count();
    let stride = strides[dim];
    let ty = shape.ty;
    let mut data = ArrayData::zeros(ty, n);
    for k in 0..n {
        let v = (k / stride) % size.max(1);
        let s = match ty {
            ElementType::C64 | ElementType::C128 => Scalar::from_f64(ty, v as f64),
            t if t.is_float() => Scalar::from_f64(ty, v as f64),
            _ => Scalar::from_i128(ty, v as i128)
                .ok_or_else(|| Error::runtime(format!("iota value {v} does not fit {ty}")))?,
        };
        data.set(k, s)?;
    }
    Ok(Literal::Array(Array { shape, data }))
}
