//! Literals: concrete values of a shape. An array literal holds its elements in logical row-major
//! order (dimension 0 slowest) whatever its layout; the layout matters only when the literal is
//! written to or read from a linear buffer (`to_buffer` / `from_buffer`).
//!
//! A literal of a dynamic shape holds exactly its actual elements: its dimensions are the actual
//! sizes, which is how a dimension's dynamic size travels with the value.

mod json;
mod ndarray_bridge;
pub mod npy;
pub mod pages;
pub mod parse;
pub mod recycle;
mod scalar;
pub mod text;
mod view;

pub use json::{literal_from_json, literal_to_json};
pub use scalar::{Scalar, highest, lowest, padding_scalar};
pub use text::{format_float_f32, format_float_f64};
pub use view::DataView;

use crate::error::{Error, Result};
use crate::shape::{ArrayShape, Layout, Shape};
use crate::types::ElementType;
use half::{bf16, f16};

pub type C64 = num_complex::Complex<f32>;
pub type C128 = num_complex::Complex<f64>;

/// The elements of one array, shared between the values that hold them.
///
/// Why: the interpreter hands values around whole: a tuple holds its elements, a `while` loop
/// passes its state to the condition and the body on every iteration, a call passes its
/// arguments. Sharing the buffer makes each of those a reference count instead of a copy of every
/// element (a loop carrying a 4 MiB buffer copied it twice per iteration). Writing through a
/// shared buffer copies it first (`Arc::make_mut`: copy on write), so one value never changes
/// under another; a buffer held once is written in place.
#[derive(Clone, PartialEq, Default)]
pub struct Buf<T: Send + 'static>(std::sync::Arc<Vec<T>>);

impl<T: Send + 'static> Drop for Buf<T> {
    /// The last holder of a large buffer hands it to the pool of fresh buffers (`recycle`), so
    /// the next result of its size reuses its mapped pages.
    fn drop(&mut self) {
        if let Some(v) = std::sync::Arc::get_mut(&mut self.0)
            && v.capacity() >= 1024
        {
            recycle::keep(std::mem::take(v));
        }
    }
}

impl<T: Send + 'static> std::ops::Deref for Buf<T> {
    type Target = Vec<T>;
    #[inline]
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: Clone + Send + 'static> std::ops::DerefMut for Buf<T> {
    /// Copies the elements first when another value shares them, into a recycled buffer when
    /// the pool has one of the size (`recycle`): a fresh allocation of a few MiB is a new mapping
    /// whose every page faults on the copy (a scatter into a 5 MiB table spent more on its page
    /// faults than on the copy).
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<T> {
        if std::sync::Arc::get_mut(&mut self.0).is_none() {
            let n = self.0.len();
            let mut v = recycle::take::<T>(n).unwrap_or_else(|| Vec::with_capacity(n));
            v.extend_from_slice(&self.0);
            self.0 = std::sync::Arc::new(v);
        }
        std::sync::Arc::make_mut(&mut self.0)
    }
}

impl<T: Send + 'static> From<Vec<T>> for Buf<T> {
    #[inline]
    fn from(v: Vec<T>) -> Buf<T> {
        Buf(std::sync::Arc::new(v))
    }
}

impl<T: Send + 'static> FromIterator<T> for Buf<T> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Buf<T> {
        Buf::from(it.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, T: Send + 'static> IntoIterator for &'a Buf<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: std::fmt::Debug + Send + 'static> std::fmt::Debug for Buf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Clone + Send + 'static> Buf<T> {
    /// The elements as a vector of their own: moved out when this is the only holder, copied
    /// otherwise.
    pub fn into_vec(mut self) -> Vec<T> {
        // (Taken out, leaving an empty buffer for `Drop`.)
        let arc = std::mem::take(&mut self.0);
        std::sync::Arc::try_unwrap(arc).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl<T: Send + 'static> Buf<T> {
    /// Whether another value shares these elements (writing would copy them).
    pub fn is_shared(&self) -> bool {
        std::sync::Arc::strong_count(&self.0) > 1
    }
}

/// The element storage of an array literal, one variant per element type.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayData {
    Pred(Buf<bool>),
    S8(Buf<i8>),
    S16(Buf<i16>),
    S32(Buf<i32>),
    S64(Buf<i64>),
    U8(Buf<u8>),
    U16(Buf<u16>),
    U32(Buf<u32>),
    U64(Buf<u64>),
    F16(Buf<f16>),
    BF16(Buf<bf16>),
    F32(Buf<f32>),
    F64(Buf<f64>),
    C64(Buf<C64>),
    C128(Buf<C128>),
}

/// Runs `$body` with `$v` bound to the typed vector inside an `ArrayData`, for every variant.
/// The body is expanded once per element type, so it runs as a typed loop with no per-element
/// dispatch.
#[macro_export]
macro_rules! with_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::literal::ArrayData::Pred($v) => $body,
            $crate::literal::ArrayData::S8($v) => $body,
            $crate::literal::ArrayData::S16($v) => $body,
            $crate::literal::ArrayData::S32($v) => $body,
            $crate::literal::ArrayData::S64($v) => $body,
            $crate::literal::ArrayData::U8($v) => $body,
            $crate::literal::ArrayData::U16($v) => $body,
            $crate::literal::ArrayData::U32($v) => $body,
            $crate::literal::ArrayData::U64($v) => $body,
            $crate::literal::ArrayData::F16($v) => $body,
            $crate::literal::ArrayData::BF16($v) => $body,
            $crate::literal::ArrayData::F32($v) => $body,
            $crate::literal::ArrayData::F64($v) => $body,
            $crate::literal::ArrayData::C64($v) => $body,
            $crate::literal::ArrayData::C128($v) => $body,
        }
    };
}

/// Like `with_data!`, but the body produces a `Vec` of the same element type, which is wrapped back
/// into the same variant: for ops that move elements without changing their type.
#[macro_export]
macro_rules! map_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::literal::ArrayData::Pred($v) => {
                $crate::literal::ArrayData::Pred($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::S8($v) => {
                $crate::literal::ArrayData::S8($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::S16($v) => {
                $crate::literal::ArrayData::S16($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::S32($v) => {
                $crate::literal::ArrayData::S32($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::S64($v) => {
                $crate::literal::ArrayData::S64($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::U8($v) => {
                $crate::literal::ArrayData::U8($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::U16($v) => {
                $crate::literal::ArrayData::U16($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::U32($v) => {
                $crate::literal::ArrayData::U32($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::U64($v) => {
                $crate::literal::ArrayData::U64($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::F16($v) => {
                $crate::literal::ArrayData::F16($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::BF16($v) => {
                $crate::literal::ArrayData::BF16($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::F32($v) => {
                $crate::literal::ArrayData::F32($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::F64($v) => {
                $crate::literal::ArrayData::F64($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::C64($v) => {
                $crate::literal::ArrayData::C64($crate::literal::Buf::from($body))
            }
            $crate::literal::ArrayData::C128($v) => {
                $crate::literal::ArrayData::C128($crate::literal::Buf::from($body))
            }
        }
    };
}

/// A Rust type that stores one XLA element type.
pub trait NativeType: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    const TY: ElementType;
    fn zero() -> Self;
    fn one() -> Self;
    fn slice(data: &ArrayData) -> Option<&[Self]>;
    fn vec_mut(data: &mut ArrayData) -> Option<&mut Vec<Self>>;
    fn view(s: &[Self]) -> DataView<'_>;
    fn of_view(v: DataView<'_>) -> Option<&[Self]>;
    fn into_data(v: impl Into<Buf<Self>>) -> ArrayData;
    fn to_scalar(self) -> Scalar;
    fn from_scalar(s: Scalar) -> Option<Self>;
}

macro_rules! native {
    ($t:ty, $variant:ident, $zero:expr, $one:expr) => {
        impl NativeType for $t {
            const TY: ElementType = ElementType::$variant;
            fn zero() -> Self {
                $zero
            }
            fn one() -> Self {
                $one
            }
            fn slice(data: &ArrayData) -> Option<&[Self]> {
                match data {
                    ArrayData::$variant(v) => Some(v.as_slice()),
                    _ => None,
                }
            }
            fn vec_mut(data: &mut ArrayData) -> Option<&mut Vec<Self>> {
                match data {
                    ArrayData::$variant(v) => Some(&mut **v),
                    _ => None,
                }
            }
            fn view(s: &[Self]) -> DataView<'_> {
                DataView::$variant(s)
            }
            fn of_view(v: DataView<'_>) -> Option<&[Self]> {
                match v {
                    DataView::$variant(s) => Some(s),
                    _ => None,
                }
            }
            fn into_data(v: impl Into<Buf<Self>>) -> ArrayData {
                ArrayData::$variant(v.into())
            }
            fn to_scalar(self) -> Scalar {
                Scalar::$variant(self)
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}

native!(bool, Pred, false, true);
native!(i8, S8, 0, 1);
native!(i16, S16, 0, 1);
native!(i32, S32, 0, 1);
native!(i64, S64, 0, 1);
native!(u8, U8, 0, 1);
native!(u16, U16, 0, 1);
native!(u32, U32, 0, 1);
native!(u64, U64, 0, 1);
native!(f16, F16, f16::ZERO, f16::ONE);
native!(bf16, BF16, bf16::ZERO, bf16::ONE);
native!(f32, F32, 0.0, 1.0);
native!(f64, F64, 0.0, 1.0);
native!(C64, C64, C64::new(0.0, 0.0), C64::new(1.0, 0.0));
native!(C128, C128, C128::new(0.0, 0.0), C128::new(1.0, 0.0));

/// An array value: its shape (actual dimension sizes, element type, layout) and its elements in
/// logical row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub shape: ArrayShape,
    pub data: ArrayData,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Array(Array),
    Tuple(Vec<Literal>),
    Token,
}

impl ArrayData {
    pub fn ty(&self) -> ElementType {
        match self {
            ArrayData::Pred(_) => ElementType::Pred,
            ArrayData::S8(_) => ElementType::S8,
            ArrayData::S16(_) => ElementType::S16,
            ArrayData::S32(_) => ElementType::S32,
            ArrayData::S64(_) => ElementType::S64,
            ArrayData::U8(_) => ElementType::U8,
            ArrayData::U16(_) => ElementType::U16,
            ArrayData::U32(_) => ElementType::U32,
            ArrayData::U64(_) => ElementType::U64,
            ArrayData::F16(_) => ElementType::F16,
            ArrayData::BF16(_) => ElementType::BF16,
            ArrayData::F32(_) => ElementType::F32,
            ArrayData::F64(_) => ElementType::F64,
            ArrayData::C64(_) => ElementType::C64,
            ArrayData::C128(_) => ElementType::C128,
        }
    }

    pub fn len(&self) -> usize {
        with_data!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether another value shares these elements (`Buf::is_shared`).
    pub fn is_shared(&self) -> bool {
        with_data!(self, v => v.is_shared())
    }

    /// `n` zeros of a type. `Token` has no array data; it yields an empty PRED vector.
    pub fn zeros(ty: ElementType, n: usize) -> ArrayData {
        match ty {
            ElementType::Pred | ElementType::Token => ArrayData::Pred(vec![false; n].into()),
            ElementType::S8 => ArrayData::S8(vec![0; n].into()),
            ElementType::S16 => ArrayData::S16(vec![0; n].into()),
            ElementType::S32 => ArrayData::S32(vec![0; n].into()),
            ElementType::S64 => ArrayData::S64(vec![0; n].into()),
            ElementType::U8 => ArrayData::U8(vec![0; n].into()),
            ElementType::U16 => ArrayData::U16(vec![0; n].into()),
            ElementType::U32 => ArrayData::U32(vec![0; n].into()),
            ElementType::U64 => ArrayData::U64(vec![0; n].into()),
            ElementType::F16 => ArrayData::F16(vec![f16::ZERO; n].into()),
            ElementType::BF16 => ArrayData::BF16(vec![bf16::ZERO; n].into()),
            ElementType::F32 => ArrayData::F32(vec![0.0; n].into()),
            ElementType::F64 => ArrayData::F64(vec![0.0; n].into()),
            ElementType::C64 => ArrayData::C64(vec![C64::new(0.0, 0.0); n].into()),
            ElementType::C128 => ArrayData::C128(vec![C128::new(0.0, 0.0); n].into()),
        }
    }

    /// `n` copies of one scalar.
    pub fn splat(s: Scalar, n: usize) -> ArrayData {
        match s {
            Scalar::Pred(x) => ArrayData::Pred(vec![x; n].into()),
            Scalar::S8(x) => ArrayData::S8(vec![x; n].into()),
            Scalar::S16(x) => ArrayData::S16(vec![x; n].into()),
            Scalar::S32(x) => ArrayData::S32(vec![x; n].into()),
            Scalar::S64(x) => ArrayData::S64(vec![x; n].into()),
            Scalar::U8(x) => ArrayData::U8(vec![x; n].into()),
            Scalar::U16(x) => ArrayData::U16(vec![x; n].into()),
            Scalar::U32(x) => ArrayData::U32(vec![x; n].into()),
            Scalar::U64(x) => ArrayData::U64(vec![x; n].into()),
            Scalar::F16(x) => ArrayData::F16(vec![x; n].into()),
            Scalar::BF16(x) => ArrayData::BF16(vec![x; n].into()),
            Scalar::F32(x) => ArrayData::F32(vec![x; n].into()),
            Scalar::F64(x) => ArrayData::F64(vec![x; n].into()),
            Scalar::C64(x) => ArrayData::C64(vec![x; n].into()),
            Scalar::C128(x) => ArrayData::C128(vec![x; n].into()),
        }
    }

    pub fn get(&self, i: usize) -> Scalar {
        with_data!(self, v => v[i].to_scalar())
    }

    /// Sets element `i`; the scalar must have the data's type (checked by the caller's verifier).
    pub fn set(&mut self, i: usize, s: Scalar) -> Result<()> {
        with_data!(self, v => {
            match NativeType::from_scalar(s) {
                Some(x) => {
                    v[i] = x;
                    Ok(())
                }
                None => Err(Error::internal(format!(
                    "storing a {} element into a {} array",
                    s.ty(),
                    self.ty()
                ))),
            }
        })
    }

    /// Gathers elements by index into a new vector of the same type.
    pub fn gather(&self, indices: impl Iterator<Item = usize>) -> ArrayData {
        map_data!(self, v => indices.map(|i| v[i]).collect::<Vec<_>>())
    }
}

impl Array {
    /// An array of zeros (false for PRED) with the given shape.
    pub fn zeros(shape: ArrayShape) -> Array {
        let n = shape.element_count();
        Array {
            data: ArrayData::zeros(shape.ty, n),
            shape,
        }
    }

    /// An array from a typed vector; the vector length must equal the element count.
    pub fn from_vec<T: NativeType>(dims: Vec<i64>, v: Vec<T>) -> Result<Array> {
        let shape = ArrayShape::new(T::TY, dims);
        if shape.checked_element_count() != Some(v.len() as i64) {
            return Err(Error::internal(format!(
                "{} elements given for shape {}",
                v.len(),
                shape
            )));
        }
        Ok(Array {
            shape,
            data: T::into_data(v),
        })
    }

    pub fn from_data(shape: ArrayShape, data: ArrayData) -> Result<Array> {
        if shape.ty != data.ty() || shape.checked_element_count() != Some(data.len() as i64) {
            return Err(Error::internal(format!(
                "{} {} elements do not fit shape {}",
                data.len(),
                data.ty(),
                shape
            )));
        }
        Ok(Array { shape, data })
    }

    pub fn ty(&self) -> ElementType {
        self.shape.ty
    }
    pub fn dims(&self) -> &[i64] {
        &self.shape.dims
    }
    pub fn rank(&self) -> usize {
        self.shape.dims.len()
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub fn typed<T: NativeType>(&self) -> Option<&[T]> {
        T::slice(&self.data)
    }

    /// Row-major linear index of a multi-dimensional index.
    pub fn linear(&self, index: &[i64]) -> usize {
        let mut k = 0usize;
        for (i, &d) in index.iter().zip(&self.shape.dims) {
            k = k * d as usize + *i as usize;
        }
        k
    }

    pub fn get(&self, index: &[i64]) -> Scalar {
        self.data.get(self.linear(index))
    }

    /// Writes the array into a linear buffer laid out by `layout` (the array's own layout, or the
    /// default one, if `None`). Padding positions hold the layout's padding value
    /// (`padding_scalar`). The layout must fit the array's dimensions (`Layout::check`).
    pub fn to_buffer(&self, layout: Option<&Layout>) -> Result<ArrayData> {
        let layout = layout
            .cloned()
            .unwrap_or_else(|| self.shape.layout_or_default());
        let dims = &self.shape.dims;
        layout.check(dims)?;
        let len = buffer_alloc_len(&layout, dims, self.ty())?;
        let pad = padding_scalar(self.ty(), layout.padding_value);
        let offsets = buffer_offsets(&layout, dims);
        let mut out = ArrayData::splat(pad, len);
        with_data!(&mut out, o => {
            let src = NativeType::slice(&self.data)
                .ok_or_else(|| Error::internal("array data does not match its element type"))?;
            if src.len() != offsets.len() {
                return Err(Error::internal("array data does not match its dimensions"));
            }
            for (&x, &k) in src.iter().zip(&offsets) {
                o[k] = x;
            }
        });
        Ok(out)
    }

    /// Reads an array of `shape` from a linear buffer laid out by the shape's layout (the default
    /// layout if it has none). Padding positions are skipped, whatever they hold. The buffer must
    /// have the shape's element type and exactly the layout's buffer length, padding included.
    pub fn from_buffer(shape: ArrayShape, buffer: &ArrayData) -> Result<Array> {
        let layout = shape.layout_or_default();
        layout.check(&shape.dims)?;
        let need = layout.buffer_len(&shape.dims);
        if buffer.ty() != shape.ty || buffer.len() as i64 != need {
            return Err(Error::invalid(
                "layout.buffer_size",
                format!(
                    "a {} buffer of {} elements cannot hold {} laid out as {{{}}}{} (it needs {} {} elements)",
                    buffer.ty(),
                    buffer.len(),
                    shape,
                    join(&layout.minor_to_major),
                    layout
                        .padded_dimensions
                        .as_ref()
                        .map(|p| format!(" padded to [{}]", join(p)))
                        .unwrap_or_default(),
                    need,
                    shape.ty
                ),
            ));
        }
        let offsets = buffer_offsets(&layout, &shape.dims);
        let data = map_data!(buffer, b => offsets.iter().map(|&k| b[k]).collect::<Vec<_>>());
        Ok(Array { shape, data })
    }
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The buffer length of a checked layout as a `usize`, refusing buffers that could not be
/// allocated (more bytes than the address space, or than `isize::MAX`).
fn buffer_alloc_len(layout: &Layout, dims: &[i64], ty: ElementType) -> Result<usize> {
    let len = layout.buffer_len(dims);
    let bytes = len.checked_mul(ty.byte_size().max(1) as i64);
    match (usize::try_from(len), bytes) {
        (Ok(n), Some(b)) if b <= isize::MAX as i64 => Ok(n),
        _ => Err(Error::invalid(
            "layout.buffer_too_large",
            format!("a buffer of {len} {ty} elements is too large to allocate"),
        )),
    }
}

/// For each element in logical row-major order, its position in the buffer of a checked layout.
///
/// An odometer walks the logical indices; the buffer position moves by the dimension's stride when
/// a coordinate steps up, and back by `stride * (size - 1)` when it wraps to 0. This visits each
/// element once with no division, and handles rank 0 (one element at position 0) and zero-sized
/// dimensions (no elements) without special cases.
fn buffer_offsets(layout: &Layout, dims: &[i64]) -> Vec<usize> {
    let strides = layout.strides(dims);
    let n: i64 = dims.iter().product();
    let mut out = Vec::with_capacity(n.max(0) as usize);
    let mut idx = vec![0i64; dims.len()];
    let mut pos = 0i64;
    for _ in 0..n {
        out.push(pos as usize);
        for d in (0..dims.len()).rev() {
            idx[d] += 1;
            pos += strides[d];
            if idx[d] < dims[d] {
                break;
            }
            pos -= strides[d] * dims[d];
            idx[d] = 0;
        }
    }
    out
}

impl Literal {
    pub fn scalar<T: NativeType>(x: T) -> Literal {
        Literal::Array(Array {
            shape: ArrayShape::scalar(T::TY),
            data: T::into_data(vec![x]),
        })
    }
    pub fn from_scalar(s: Scalar) -> Literal {
        Literal::Array(Array {
            shape: ArrayShape::scalar(s.ty()),
            data: ArrayData::splat(s, 1),
        })
    }
    pub fn vec<T: NativeType>(dims: Vec<i64>, v: Vec<T>) -> Result<Literal> {
        Array::from_vec(dims, v).map(Literal::Array)
    }
    /// The all-zero value of a shape (false, 0, +0.0; tokens and tuples recursively).
    pub fn zeros(shape: &Shape) -> Literal {
        match shape {
            Shape::Array(a) => Literal::Array(Array::zeros(a.clone())),
            Shape::Tuple(t) => Literal::Tuple(t.iter().map(Literal::zeros).collect()),
            Shape::Token => Literal::Token,
        }
    }
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Literal::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn into_array(self) -> Result<Array> {
        match self {
            Literal::Array(a) => Ok(a),
            other => Err(Error::internal(format!(
                "expected an array value, got {}",
                other.shape()
            ))),
        }
    }
    pub fn as_tuple(&self) -> Option<&[Literal]> {
        match self {
            Literal::Tuple(t) => Some(t),
            _ => None,
        }
    }
    /// The literal's shape; for arrays, dimension sizes are the actual ones.
    pub fn shape(&self) -> Shape {
        match self {
            Literal::Array(a) => Shape::Array(a.shape.clone()),
            Literal::Tuple(t) => Shape::Tuple(t.iter().map(|l| l.shape()).collect()),
            Literal::Token => Shape::Token,
        }
    }
    /// Does this value fit a declared shape? Types and ranks must match; a static dimension must
    /// match exactly, a bounded dynamic one may be smaller than its bound. Layouts are ignored.
    pub fn fits(&self, shape: &Shape) -> bool {
        match (self, shape) {
            (Literal::Array(a), Shape::Array(s)) => {
                a.shape.ty == s.ty
                    && a.shape.dims.len() == s.dims.len()
                    && a.shape
                        .dims
                        .iter()
                        .zip(&s.dims)
                        .enumerate()
                        .all(|(i, (&got, &want))| {
                            if s.dynamic.get(i).copied().unwrap_or(false) {
                                (0..=want).contains(&got)
                            } else {
                                got == want
                            }
                        })
            }
            (Literal::Tuple(t), Shape::Tuple(s)) => {
                t.len() == s.len() && t.iter().zip(s).all(|(l, s)| l.fits(s))
            }
            (Literal::Token, Shape::Token) => true,
            _ => false,
        }
    }
    /// Scalar value of a rank-0 array.
    pub fn scalar_value(&self) -> Option<Scalar> {
        match self {
            Literal::Array(a) if a.shape.dims.is_empty() && a.data.len() == 1 => {
                Some(a.data.get(0))
            }
            _ => None,
        }
    }
    /// Bytes of element data held (for memory budgets).
    pub fn byte_size(&self) -> usize {
        match self {
            Literal::Array(a) => a.len() * a.ty().byte_size(),
            Literal::Tuple(t) => t.iter().map(|l| l.byte_size()).sum(),
            Literal::Token => 0,
        }
    }
}

impl std::fmt::Display for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&text::literal_to_text(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::PaddingValue;

    /// Writing through one holder of a shared buffer copies it (into a recycled buffer when the
    /// pool has one of the size, whatever that buffer held) and leaves the other holder's
    /// elements as they were.
    #[test]
    fn writing_a_shared_buffer_copies_it_and_leaves_the_other_holder_alone() {
        // Large enough for the recycling pool (4 MiB); u16 is an element type few tests use.
        let n = (4 << 20) / 2 + 7;
        drop(Buf::from(vec![0xdeadu16; n]));
        let original: Vec<u16> = (0..n).map(|i| i as u16).collect();
        let a = Buf::from(original.clone());
        let mut b = a.clone();
        assert!(a.is_shared());
        b[3] = 9;
        assert!(!a.is_shared() && !b.is_shared());
        assert_eq!(&a[..], &original[..]);
        assert_eq!(b[3], 9);
        assert_eq!(b.len(), n);
        assert!(b.iter().enumerate().all(|(i, &x)| i == 3 || x == i as u16));
    }

    #[test]
    fn buffer_round_trip_column_major_padded() {
        let a = Array::from_vec(vec![2, 3], vec![1u8, 2, 3, 4, 5, 6]).unwrap();
        let layout = Layout::new(vec![0, 1]);
        let buf = a.to_buffer(Some(&layout)).unwrap();
        assert_eq!(buf, ArrayData::U8(vec![1, 4, 2, 5, 3, 6].into()));
        let padded = layout.with_padding(vec![3, 5], PaddingValue::Zero);
        let buf = a.to_buffer(Some(&padded)).unwrap();
        assert_eq!(
            buf,
            ArrayData::U8(vec![1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0].into())
        );
        let back = Array::from_buffer(a.shape.clone().with_layout(padded), &buf).unwrap();
        assert_eq!(back.data, a.data);
    }

    #[test]
    fn padding_values_for_every_type() {
        let a = Array::from_vec(vec![1], vec![7i8]).unwrap();
        let l = Layout::new(vec![0]).with_padding(vec![3], PaddingValue::Lowest);
        assert_eq!(
            a.to_buffer(Some(&l)).unwrap(),
            ArrayData::S8(vec![7, -128, -128].into())
        );
        let a = Array::from_vec(vec![1], vec![true]).unwrap();
        let l = Layout::new(vec![0]).with_padding(vec![2], PaddingValue::Zero);
        assert_eq!(
            a.to_buffer(Some(&l)).unwrap(),
            ArrayData::Pred(vec![true, false].into())
        );
        for ty in ElementType::ALL {
            for p in [
                PaddingValue::Zero,
                PaddingValue::One,
                PaddingValue::Lowest,
                PaddingValue::Highest,
                PaddingValue::Unknown,
            ] {
                let s = padding_scalar(ty, p);
                assert_eq!(s.ty(), ty);
                assert!(!s.is_nan());
                assert!(s.as_f64().is_finite());
            }
            assert!(lowest(ty).as_f64() <= highest(ty).as_f64());
        }
        assert_eq!(
            padding_scalar(ElementType::F32, PaddingValue::Lowest),
            Scalar::F32(f32::MIN)
        );
        assert_eq!(
            padding_scalar(ElementType::U16, PaddingValue::Lowest),
            Scalar::U16(0)
        );
        assert_eq!(
            padding_scalar(ElementType::C64, PaddingValue::One),
            Scalar::C64(C64::new(1.0, 0.0))
        );
    }

    #[test]
    fn buffers_of_rank_zero_and_empty_arrays() {
        let s = Array::from_vec(vec![], vec![2.5f64]).unwrap();
        assert_eq!(s.to_buffer(None).unwrap(), ArrayData::F64(vec![2.5].into()));
        let back = Array::from_buffer(s.shape.clone(), &ArrayData::F64(vec![2.5].into())).unwrap();
        assert_eq!(back, s);
        let e = Array::from_vec(vec![0, 2], Vec::<u32>::new()).unwrap();
        let l = Layout::new(vec![0, 1]).with_padding(vec![1, 2], PaddingValue::Highest);
        let buf = e.to_buffer(Some(&l)).unwrap();
        assert_eq!(buf, ArrayData::U32(vec![u32::MAX, u32::MAX].into()));
        let back = Array::from_buffer(e.shape.clone().with_layout(l), &buf).unwrap();
        assert_eq!(back.data, e.data);
    }

    #[test]
    fn buffer_errors_name_their_rule() {
        let a = Array::from_vec(vec![2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
        let bad = Layout::new(vec![1, 1]);
        let e = a.to_buffer(Some(&bad)).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("layout.minor_to_major_permutation"));
        let shape = a.shape.clone().with_layout(Layout::new(vec![0, 1]));
        let e = Array::from_buffer(shape.clone(), &ArrayData::S32(vec![0; 5].into())).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("layout.buffer_size"));
        let e = Array::from_buffer(shape, &ArrayData::U32(vec![0; 6].into())).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("layout.buffer_size"));
    }
}
