//! Borrowed element storage: a whole `ArrayData` or a run of it, one variant per element type.
//!
//! Why: the element-wise functions only read their operands, and a fused group (`eval::fused`)
//! runs them tile by tile on runs of its inputs. Taking a view instead of an `ArrayData` lets a
//! tile read its input where it lies; an owned operand would have to be copied out first (the
//! copies of whole inputs were an eighth of a random-bit generator's time).

use super::{ArrayData, C64, C128};
use crate::types::ElementType;
use half::{bf16, f16};

/// The elements of one type, borrowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DataView<'a> {
    Pred(&'a [bool]),
    S8(&'a [i8]),
    S16(&'a [i16]),
    S32(&'a [i32]),
    S64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a [f16]),
    BF16(&'a [bf16]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    C64(&'a [C64]),
    C128(&'a [C128]),
}

/// Runs `$body` with `$v` bound to the slice inside a `DataView` and the result wrapped back in
/// the same variant.
macro_rules! map_view {
    ($view:expr, $v:ident => $body:expr) => {
        match $view {
            DataView::Pred($v) => DataView::Pred($body),
            DataView::S8($v) => DataView::S8($body),
            DataView::S16($v) => DataView::S16($body),
            DataView::S32($v) => DataView::S32($body),
            DataView::S64($v) => DataView::S64($body),
            DataView::U8($v) => DataView::U8($body),
            DataView::U16($v) => DataView::U16($body),
            DataView::U32($v) => DataView::U32($body),
            DataView::U64($v) => DataView::U64($body),
            DataView::F16($v) => DataView::F16($body),
            DataView::BF16($v) => DataView::BF16($body),
            DataView::F32($v) => DataView::F32($body),
            DataView::F64($v) => DataView::F64($body),
            DataView::C64($v) => DataView::C64($body),
            DataView::C128($v) => DataView::C128($body),
        }
    };
}

impl<'a> DataView<'a> {
    pub fn ty(&self) -> ElementType {
        match self {
            DataView::Pred(_) => ElementType::Pred,
            DataView::S8(_) => ElementType::S8,
            DataView::S16(_) => ElementType::S16,
            DataView::S32(_) => ElementType::S32,
            DataView::S64(_) => ElementType::S64,
            DataView::U8(_) => ElementType::U8,
            DataView::U16(_) => ElementType::U16,
            DataView::U32(_) => ElementType::U32,
            DataView::U64(_) => ElementType::U64,
            DataView::F16(_) => ElementType::F16,
            DataView::BF16(_) => ElementType::BF16,
            DataView::F32(_) => ElementType::F32,
            DataView::F64(_) => ElementType::F64,
            DataView::C64(_) => ElementType::C64,
            DataView::C128(_) => ElementType::C128,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            DataView::Pred(v) => v.len(),
            DataView::S8(v) => v.len(),
            DataView::S16(v) => v.len(),
            DataView::S32(v) => v.len(),
            DataView::S64(v) => v.len(),
            DataView::U8(v) => v.len(),
            DataView::U16(v) => v.len(),
            DataView::U32(v) => v.len(),
            DataView::U64(v) => v.len(),
            DataView::F16(v) => v.len(),
            DataView::BF16(v) => v.len(),
            DataView::F32(v) => v.len(),
            DataView::F64(v) => v.len(),
            DataView::C64(v) => v.len(),
            DataView::C128(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The address of the first element.
    pub fn as_ptr(&self) -> *const u8 {
        match self {
            DataView::Pred(v) => v.as_ptr().cast(),
            DataView::S8(v) => v.as_ptr().cast(),
            DataView::S16(v) => v.as_ptr().cast(),
            DataView::S32(v) => v.as_ptr().cast(),
            DataView::S64(v) => v.as_ptr().cast(),
            DataView::U8(v) => v.as_ptr().cast(),
            DataView::U16(v) => v.as_ptr().cast(),
            DataView::U32(v) => v.as_ptr().cast(),
            DataView::U64(v) => v.as_ptr().cast(),
            DataView::F16(v) => v.as_ptr().cast(),
            DataView::BF16(v) => v.as_ptr().cast(),
            DataView::F32(v) => v.as_ptr().cast(),
            DataView::F64(v) => v.as_ptr().cast(),
            DataView::C64(v) => v.as_ptr().cast(),
            DataView::C128(v) => v.as_ptr().cast(),
        }
    }

    /// No elements of type `ty` (`None` for `Token`, which has no elements).
    pub fn empty(ty: ElementType) -> Option<DataView<'static>> {
        Some(match ty {
            ElementType::Pred => DataView::Pred(&[]),
            ElementType::S8 => DataView::S8(&[]),
            ElementType::S16 => DataView::S16(&[]),
            ElementType::S32 => DataView::S32(&[]),
            ElementType::S64 => DataView::S64(&[]),
            ElementType::U8 => DataView::U8(&[]),
            ElementType::U16 => DataView::U16(&[]),
            ElementType::U32 => DataView::U32(&[]),
            ElementType::U64 => DataView::U64(&[]),
            ElementType::F16 => DataView::F16(&[]),
            ElementType::BF16 => DataView::BF16(&[]),
            ElementType::F32 => DataView::F32(&[]),
            ElementType::F64 => DataView::F64(&[]),
            ElementType::C64 => DataView::C64(&[]),
            ElementType::C128 => DataView::C128(&[]),
            ElementType::Token => return None,
        })
    }

    /// Elements `start..start + len`, or `None` when they do not all lie in the view.
    pub fn slice(self, start: usize, len: usize) -> Option<DataView<'a>> {
        let end = start.checked_add(len)?;
        if end > self.len() {
            return None;
        }
        Some(map_view!(self, v => &v[start..end]))
    }

    /// The elements, copied into an `ArrayData` of their own.
    pub fn to_data(self) -> ArrayData {
        match self {
            DataView::Pred(v) => ArrayData::Pred(v.to_vec().into()),
            DataView::S8(v) => ArrayData::S8(v.to_vec().into()),
            DataView::S16(v) => ArrayData::S16(v.to_vec().into()),
            DataView::S32(v) => ArrayData::S32(v.to_vec().into()),
            DataView::S64(v) => ArrayData::S64(v.to_vec().into()),
            DataView::U8(v) => ArrayData::U8(v.to_vec().into()),
            DataView::U16(v) => ArrayData::U16(v.to_vec().into()),
            DataView::U32(v) => ArrayData::U32(v.to_vec().into()),
            DataView::U64(v) => ArrayData::U64(v.to_vec().into()),
            DataView::F16(v) => ArrayData::F16(v.to_vec().into()),
            DataView::BF16(v) => ArrayData::BF16(v.to_vec().into()),
            DataView::F32(v) => ArrayData::F32(v.to_vec().into()),
            DataView::F64(v) => ArrayData::F64(v.to_vec().into()),
            DataView::C64(v) => ArrayData::C64(v.to_vec().into()),
            DataView::C128(v) => ArrayData::C128(v.to_vec().into()),
        }
    }
}

impl ArrayData {
    /// All the elements, borrowed.
    pub fn view(&self) -> DataView<'_> {
        match self {
            ArrayData::Pred(v) => DataView::Pred(v),
            ArrayData::S8(v) => DataView::S8(v),
            ArrayData::S16(v) => DataView::S16(v),
            ArrayData::S32(v) => DataView::S32(v),
            ArrayData::S64(v) => DataView::S64(v),
            ArrayData::U8(v) => DataView::U8(v),
            ArrayData::U16(v) => DataView::U16(v),
            ArrayData::U32(v) => DataView::U32(v),
            ArrayData::U64(v) => DataView::U64(v),
            ArrayData::F16(v) => DataView::F16(v),
            ArrayData::BF16(v) => DataView::BF16(v),
            ArrayData::F32(v) => DataView::F32(v),
            ArrayData::F64(v) => DataView::F64(v),
            ArrayData::C64(v) => DataView::C64(v),
            ArrayData::C128(v) => DataView::C128(v),
        }
    }
}

impl<'a> From<&'a ArrayData> for DataView<'a> {
    fn from(d: &'a ArrayData) -> DataView<'a> {
        d.view()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view has its data's type and length; a slice is the run asked for, and a run past the
    /// end is refused rather than cut short.
    #[test]
    fn views_and_their_slices() {
        let d = ArrayData::U32(vec![1u32, 2, 3, 4, 5].into());
        let v = d.view();
        assert_eq!((v.ty(), v.len()), (ElementType::U32, 5));
        assert_eq!(v.slice(1, 3), Some(DataView::U32(&[2, 3, 4])));
        assert_eq!(v.slice(5, 0).map(|s| s.len()), Some(0));
        assert_eq!(v.slice(3, 3), None);
        assert_eq!(v.slice(usize::MAX, 2), None);
        let f = ArrayData::F16(vec![f16::ONE; 2].into());
        assert_eq!(DataView::from(&f).ty(), ElementType::F16);
    }
}
