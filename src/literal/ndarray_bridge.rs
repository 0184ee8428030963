//! Literals to and from `ndarray` arrays, for programs that hold their data in `ndarray`.
//!
//! An array literal keeps its elements in logical row-major order whatever its layout, which is
//! `ndarray`'s standard order, so a conversion is one move (or one copy from a borrowed literal);
//! an `ndarray` array in another memory order (Fortran order, a transposed view) is read in its
//! logical order. The element type follows the Rust type: `f32` is `f32`, `half::bf16` is `bf16`,
//! `num_complex::Complex<f32>` is `c64`, `bool` is `pred`.
//!
//! ```
//! use ndarray::array;
//! use xla_spec::literal::{Array, Literal};
//!
//! let x = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn();
//! let lit = Literal::from_ndarray(x.clone());
//! assert_eq!(lit.to_string(), "f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
//!
//! // Back, with the element type checked: asking for f64 is an error, not a conversion.
//! let a: &Array = lit.as_array().unwrap();
//! assert_eq!(a.to_ndarray::<f32>().unwrap(), x);
//! assert!(a.to_ndarray::<f64>().is_err());
//! ```

use super::{Array, Literal, NativeType};
use crate::error::{Error, Result};
use crate::shape::ArrayShape;
use ndarray::{ArrayBase, ArrayD, Data, IxDyn};

impl Array {
    /// This array as an `ndarray` array of element type `T`; an error when the literal's element
    /// type is not `T`'s.
    pub fn to_ndarray<T: NativeType>(&self) -> Result<ArrayD<T>> {
        let v = self.typed::<T>().ok_or_else(|| {
            Error::runtime(format!(
                "the array is {}, not {} as asked for",
                self.shape,
                T::TY.name()
            ))
        })?;
        let dims: Vec<usize> = self.dims().iter().map(|&d| d as usize).collect();
        ArrayD::from_shape_vec(IxDyn(&dims), v.to_vec())
            .map_err(|e| Error::internal(format!("array {} as ndarray: {e}", self.shape)))
    }

    /// An array literal (default layout) holding the elements of an `ndarray` array.
    pub fn from_ndarray<T: NativeType, S: Data<Elem = T>>(a: ArrayBase<S, IxDyn>) -> Array {
        let dims: Vec<i64> = a.shape().iter().map(|&d| d as i64).collect();
        let v: Vec<T> = match a.as_slice() {
            Some(s) => s.to_vec(),
            None => a.iter().copied().collect(),
        };
        Array {
            shape: ArrayShape::new(T::TY, dims),
            data: T::into_data(v),
        }
    }
}

impl Literal {
    /// An array literal holding the elements of an `ndarray` array.
    pub fn from_ndarray<T: NativeType, S: Data<Elem = T>>(a: ArrayBase<S, IxDyn>) -> Literal {
        Literal::Array(Array::from_ndarray(a))
    }

    /// This literal as an `ndarray` array of element type `T`; an error for a tuple, a token or
    /// another element type.
    pub fn to_ndarray<T: NativeType>(&self) -> Result<ArrayD<T>> {
        match self {
            Literal::Array(a) => a.to_ndarray(),
            other => Err(Error::runtime(format!("{} is not an array", other.shape()))),
        }
    }
}

impl<T: NativeType> From<ArrayD<T>> for Literal {
    fn from(a: ArrayD<T>) -> Literal {
        Literal::from_ndarray(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::{C64, C128};
    use crate::types::ElementType;
    use half::{bf16, f16};
    use ndarray::ShapeBuilder;

    fn round_trip<T: NativeType>(values: Vec<T>) {
        let n = values.len();
        let a = ArrayD::from_shape_vec(IxDyn(&[2, n / 2]), values).unwrap();
        let lit = Literal::from_ndarray(a.clone());
        assert_eq!(lit.as_array().unwrap().ty(), T::TY);
        assert_eq!(
            lit.shape().to_string(),
            format!("{}[2,{}]", T::TY.name(), n / 2)
        );
        assert_eq!(lit.to_ndarray::<T>().unwrap(), a);
    }

    #[test]
    fn every_element_type_round_trips() {
        round_trip(vec![true, false, false, true]);
        round_trip(vec![-128i8, 0, 1, 127]);
        round_trip(vec![i16::MIN, -1, 0, i16::MAX]);
        round_trip(vec![i32::MIN, -1, 0, i32::MAX]);
        round_trip(vec![i64::MIN, -1, 0, i64::MAX]);
        round_trip(vec![0u8, 1, 2, 255]);
        round_trip(vec![0u16, 1, 2, u16::MAX]);
        round_trip(vec![0u32, 1, 2, u32::MAX]);
        round_trip(vec![0u64, 1, 2, u64::MAX]);
        round_trip(vec![
            f16::ONE,
            f16::NEG_INFINITY,
            f16::MIN_POSITIVE_SUBNORMAL,
            f16::ZERO,
        ]);
        round_trip(vec![
            bf16::ONE,
            bf16::INFINITY,
            bf16::from_f32(-2.5),
            bf16::NEG_ZERO,
        ]);
        round_trip(vec![1.5f32, -0.0, f32::INFINITY, 1e-40]);
        round_trip(vec![1.5f64, -0.0, f64::NEG_INFINITY, 5e-324]);
        round_trip(vec![C64::new(1.0, -2.0), C64::new(0.0, 0.5)]);
        round_trip(vec![C128::new(1.0, -2.0), C128::new(0.0, 0.5)]);
        assert_eq!(
            ElementType::ALL.len(),
            15,
            "a new element type needs a line above"
        );
    }

    #[test]
    fn fortran_order_and_views_keep_logical_order() {
        let a = ndarray::array![[1i32, 2, 3], [4, 5, 6]].into_dyn();
        let t = a.t();
        let lit = Literal::from_ndarray(t);
        assert_eq!(lit.to_string(), "s32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
        let f = ArrayD::from_shape_vec(IxDyn(&[2, 3]).f(), vec![1i32, 4, 2, 5, 3, 6]).unwrap();
        assert_eq!(
            Literal::from_ndarray(f).to_string(),
            "s32[2,3] {{1, 2, 3}, {4, 5, 6}}"
        );
    }

    #[test]
    fn wrong_type_and_tuples_are_errors() {
        let lit = Literal::from_ndarray(ndarray::array![1.0f32].into_dyn());
        let e = lit.to_ndarray::<f64>().unwrap_err().to_string();
        assert!(e.contains("f32[1]") && e.contains("f64"), "{e}");
        let t = Literal::Tuple(vec![lit]);
        assert!(
            t.to_ndarray::<f32>()
                .unwrap_err()
                .to_string()
                .contains("not an array")
        );
    }
}
