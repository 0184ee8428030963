//! Shapes and layouts, as the Shapes-and-Layout chapter defines them.
//!
//! A shape is an array shape (element type, dimension sizes, optional layout), a tuple of shapes, or
//! the token shape. A dimension may be *bounded dynamic* (`f32[<=10]`): its size in the shape is an
//! upper bound, and each value of that shape carries its actual size.
//!
//! A layout says how an array sits in linear memory: `minor_to_major` orders the dimensions from the
//! fastest-varying to the slowest, and the optional `padded_dimensions` widen each dimension to a
//! padded size filled with `padding_value`. The index conversions here are what XLA's `IndexUtil`
//! does: a dimension's stride is the product of the (padded) sizes of all dimensions more minor
//! than it.

pub mod text;
pub mod window;

use crate::error::{Error, Result};
use crate::types::ElementType;
use std::fmt;

/// What padding elements hold in a padded layout (the seed's `PaddingValue`).
///
/// The seed names the field but not the meaning of each value; the reference's reading, for every
/// element type, is the one `crate::literal::padding_scalar` implements and the book's
/// Shapes-and-Layout chapter tabulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PaddingValue {
    #[default]
    Zero,
    One,
    /// The lowest finite value of the element type (`-max` for floats, `MIN` for integers).
    Lowest,
    /// The highest finite value of the element type.
    Highest,
    /// Unspecified; the reference writes zeros.
    Unknown,
}

impl PaddingValue {
    /// The spelling used by the book's `layout-test` examples (`zero`, `one`, `lowest`,
    /// `highest`, `unknown`).
    pub fn name(self) -> &'static str {
        match self {
            PaddingValue::Zero => "zero",
            PaddingValue::One => "one",
            PaddingValue::Lowest => "lowest",
            PaddingValue::Highest => "highest",
            PaddingValue::Unknown => "unknown",
        }
    }

    pub fn from_name(s: &str) -> Option<PaddingValue> {
        Some(match s {
            "zero" => PaddingValue::Zero,
            "one" => PaddingValue::One,
            "lowest" => PaddingValue::Lowest,
            "highest" => PaddingValue::Highest,
            "unknown" => PaddingValue::Unknown,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Dimension numbers from most minor (fastest varying) to most major.
    pub minor_to_major: Vec<i64>,
    /// Padded width of each dimension, in dimension-number order; `None` means no padding.
    pub padded_dimensions: Option<Vec<i64>>,
    pub padding_value: PaddingValue,
    /// What XLA writes after the `:` of a layout (tiles `T(8,128)`, memory space `S(1)`, element
    /// size and the like), kept as written and printed back. It describes how a device stores
    /// the buffer and does not change the logical values, so the runtime ignores it.
    pub physical: Option<String>,
}

impl Layout {
    pub fn new(minor_to_major: Vec<i64>) -> Layout {
        Layout {
            minor_to_major,
            padded_dimensions: None,
            padding_value: PaddingValue::Zero,
            physical: None,
        }
    }

    /// The default layout: dimension order is major-to-minor, so `minor_to_major = [n-1, ..., 0]`
    /// (row-major at rank 2).
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout::new((0..rank as i64).rev().collect())
    }

    /// `minor_to_major = [0, 1, ..., n-1]`: dimension 0 varies fastest (column-major at rank 2).
    pub fn dim0_minor(rank: usize) -> Layout {
        Layout::new((0..rank as i64).collect())
    }

    pub fn is_default(&self) -> bool {
        self.padded_dimensions.is_none()
            && self
                .minor_to_major
                .iter()
                .rev()
                .copied()
                .eq(0..self.minor_to_major.len() as i64)
    }

    pub fn is_padded(&self) -> bool {
        self.padded_dimensions.is_some()
    }

    pub fn with_padding(mut self, padded: Vec<i64>, value: PaddingValue) -> Layout {
        self.padded_dimensions = Some(padded);
        self.padding_value = value;
        self
    }

    /// Checks the layout against a shape's dimensions, with the rule the book labels:
    /// dimension sizes are non-negative; `minor_to_major` is a permutation of `0..rank`
    /// (`layout.minor_to_major_permutation`); `padded_dimensions`, when present, has one width per
    /// dimension (`layout.padded_rank`), each at least the dimension's size
    /// (`layout.padded_width`); and the buffer's element count fits in 64 bits
    /// (`layout.buffer_too_large`).
    pub fn check(&self, dims: &[i64]) -> Result<()> {
        let rank = dims.len();
        if let Some((i, d)) = dims.iter().enumerate().find(|(_, d)| **d < 0) {
            return Err(Error::invalid(
                "shape.nonnegative_dims",
                format!("dimension {i} has negative size {d}"),
            ));
        }
        let mut seen = vec![false; rank];
        let permutation = self.minor_to_major.len() == rank
            && self.minor_to_major.iter().all(|&d| {
                let ok = (0..rank as i64).contains(&d) && !seen[d as usize];
                if ok {
                    seen[d as usize] = true;
                }
                ok
            });
        if !permutation {
            return Err(Error::invalid(
                "layout.minor_to_major_permutation",
                format!(
                    "layout {{{}}} is not a permutation of the dimension numbers 0..{} of a rank-{} shape",
                    join(&self.minor_to_major),
                    rank,
                    rank
                ),
            ));
        }
        if let Some(p) = &self.padded_dimensions {
            if p.len() != rank {
                return Err(Error::invalid(
                    "layout.padded_rank",
                    format!(
                        "padded_dimensions [{}] has {} entries but the shape has rank {}",
                        join(p),
                        p.len(),
                        rank
                    ),
                ));
            }
            for (i, (&w, &d)) in p.iter().zip(dims).enumerate() {
                if w < d {
                    return Err(Error::invalid(
                        "layout.padded_width",
                        format!(
                            "dimension {i} of size {d} cannot be padded to the smaller width {w}"
                        ),
                    ));
                }
            }
        }
        if self.checked_buffer_len(dims).is_none() {
            return Err(Error::invalid(
                "layout.buffer_too_large",
                format!(
                    "a buffer of the padded widths [{}] has more than 2^63-1 elements",
                    join(&self.physical_dims(dims))
                ),
            ));
        }
        Ok(())
    }

    /// `check`, with the message only (for callers that attach their own rule).
    pub fn validate(&self, dims: &[i64]) -> std::result::Result<(), String> {
        self.check(dims).map_err(|e| e.message)
    }

    /// The physical (padded) width of each dimension.
    pub fn physical_dims(&self, dims: &[i64]) -> Vec<i64> {
        match &self.padded_dimensions {
            Some(p) => p.clone(),
            None => dims.to_vec(),
        }
    }

    /// Linear-buffer stride of each dimension, in dimension-number order: the product of the
    /// physical widths of every dimension more minor than it. Assumes a checked layout.
    pub fn strides(&self, dims: &[i64]) -> Vec<i64> {
        let phys = self.physical_dims(dims);
        let mut strides = vec![0i64; dims.len()];
        let mut acc = 1i64;
        for &d in &self.minor_to_major {
            strides[d as usize] = acc;
            acc = acc.saturating_mul(phys[d as usize]);
        }
        strides
    }

    /// Number of elements in the linear buffer, padding included, or `None` on overflow.
    pub fn checked_buffer_len(&self, dims: &[i64]) -> Option<i64> {
        self.physical_dims(dims)
            .iter()
            .try_fold(1i64, |acc, &w| acc.checked_mul(w))
    }

    /// Number of elements in the linear buffer, padding included. Assumes a checked layout.
    pub fn buffer_len(&self, dims: &[i64]) -> i64 {
        self.checked_buffer_len(dims).unwrap_or(i64::MAX)
    }

    /// Multi-dimensional index to linear buffer index (XLA's
    /// `IndexUtil::MultidimensionalIndexToLinearIndex`): the sum of each coordinate times its
    /// dimension's stride. Assumes a checked layout and an in-range index; see
    /// `checked_linear_index`.
    pub fn linear_index(&self, dims: &[i64], index: &[i64]) -> i64 {
        self.strides(dims)
            .iter()
            .zip(index)
            .map(|(s, i)| s * i)
            .sum()
    }

    /// `linear_index` with every precondition checked: the layout fits the shape and the index
    /// has one coordinate per dimension, each in `0..size`.
    pub fn checked_linear_index(&self, dims: &[i64], index: &[i64]) -> Result<i64> {
        self.check(dims)?;
        if index.len() != dims.len() {
            return Err(Error::invalid(
                "layout.index_in_range",
                format!(
                    "index [{}] has {} coordinates but the shape has rank {}",
                    join(index),
                    index.len(),
                    dims.len()
                ),
            ));
        }
        if let Some((d, (&i, &n))) = index
            .iter()
            .zip(dims)
            .enumerate()
            .find(|(_, (i, n))| !(0..**n).contains(*i))
        {
            return Err(Error::invalid(
                "layout.index_in_range",
                format!("coordinate {i} of dimension {d} is outside 0..{n}"),
            ));
        }
        Ok(self.linear_index(dims, index))
    }

    /// Linear buffer index to multi-dimensional index (XLA's
    /// `IndexUtil::LinearIndexToMultidimensionalIndex`): peel coordinates off from the most minor
    /// dimension outwards. For a padded layout the result may lie in the padding (some coordinate
    /// at or past the logical size). Assumes a checked layout and `0 <= linear < buffer_len`.
    pub fn multi_index(&self, dims: &[i64], mut linear: i64) -> Vec<i64> {
        let phys = self.physical_dims(dims);
        let mut index = vec![0i64; dims.len()];
        for &d in &self.minor_to_major {
            let w = phys[d as usize];
            if w == 0 {
                return index;
            }
            index[d as usize] = linear % w;
            linear /= w;
        }
        index
    }

    /// `multi_index` with its preconditions checked. Returns `None` when the position is padding
    /// rather than an element of the array.
    pub fn checked_multi_index(&self, dims: &[i64], linear: i64) -> Result<Option<Vec<i64>>> {
        self.check(dims)?;
        let len = self.buffer_len(dims);
        if !(0..len).contains(&linear) {
            return Err(Error::invalid(
                "layout.index_in_range",
                format!("linear index {linear} is outside the buffer 0..{len}"),
            ));
        }
        let index = self.multi_index(dims, linear);
        let inside = index.iter().zip(dims).all(|(i, n)| i < n);
        Ok(inside.then_some(index))
    }
}

/// The letter conventionally given to dimension `dim` of a rank-2, -3 or -4 array: `y x`,
/// `z y x`, `p z y x` (dimension 0 first). Other ranks have no letters.
pub fn dimension_letter(rank: usize, dim: usize) -> Option<char> {
    const LETTERS: [char; 4] = ['p', 'z', 'y', 'x'];
    if !(2..=4).contains(&rank) || dim >= rank {
        return None;
    }
    Some(LETTERS[4 - rank + dim])
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The shape of an array: element type, one size per dimension, which sizes are dynamic bounds,
/// and an optional layout (none means the default layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayShape {
    pub ty: ElementType,
    /// The size of each dimension; for a dynamic dimension, its upper bound.
    pub dims: Vec<i64>,
    /// `dynamic[i]` is true when dimension i is bounded dynamic (`<=N`).
    pub dynamic: Vec<bool>,
    pub layout: Option<Layout>,
}

impl ArrayShape {
    pub fn new(ty: ElementType, dims: Vec<i64>) -> ArrayShape {
        let n = dims.len();
        ArrayShape {
            ty,
            dims,
            dynamic: vec![false; n],
            layout: None,
        }
    }
    pub fn scalar(ty: ElementType) -> ArrayShape {
        ArrayShape::new(ty, vec![])
    }
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    /// The number of dimensions whose size is greater than 1.
    pub fn true_rank(&self) -> usize {
        self.dims.iter().filter(|&&d| d > 1).count()
    }
    pub fn is_scalar(&self) -> bool {
        self.dims.is_empty()
    }
    pub fn is_dynamic(&self) -> bool {
        self.dynamic.iter().any(|&d| d)
    }
    /// Element count, or `None` if it overflows `i64`.
    pub fn checked_element_count(&self) -> Option<i64> {
        self.dims
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
    }
    /// Element count; callers use it only on verified shapes, whose count fits.
    pub fn element_count(&self) -> usize {
        self.checked_element_count().unwrap_or(0) as usize
    }
    /// Resolves a possibly negative dimension number (-1 is the last dimension).
    pub fn resolve_dim(&self, d: i64) -> Option<usize> {
        let r = self.rank() as i64;
        let d = if d < 0 { d + r } else { d };
        (0..r).contains(&d).then_some(d as usize)
    }
    /// Size of dimension `d`, which may be negative as in Python (`-1` is the last dimension).
    pub fn dim(&self, d: i64) -> Option<i64> {
        self.resolve_dim(d).map(|i| self.dims[i])
    }
    /// The layout in force: the declared one or the default major-to-minor layout.
    pub fn layout_or_default(&self) -> Layout {
        self.layout
            .clone()
            .unwrap_or_else(|| Layout::default_for_rank(self.rank()))
    }
    pub fn with_layout(mut self, layout: Layout) -> ArrayShape {
        self.layout = Some(layout);
        self
    }
    /// Same element type and dimensions (dynamic flags and layouts are not compared).
    pub fn same_dims_and_type(&self, other: &ArrayShape) -> bool {
        self.ty == other.ty && self.dims == other.dims
    }
    /// The same shape with another element type.
    pub fn with_type(&self, ty: ElementType) -> ArrayShape {
        ArrayShape {
            ty,
            dims: self.dims.clone(),
            dynamic: self.dynamic.clone(),
            layout: None,
        }
    }
    /// Row-major strides of the logical array (no layout, no padding).
    pub fn row_major_strides(&self) -> Vec<usize> {
        row_major_strides(&self.dims)
    }
}

pub fn row_major_strides(dims: &[i64]) -> Vec<usize> {
    let mut strides = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1].max(0) as usize;
    }
    strides
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    Array(ArrayShape),
    Tuple(Vec<Shape>),
    Token,
}

impl Shape {
    pub fn array(ty: ElementType, dims: Vec<i64>) -> Shape {
        Shape::Array(ArrayShape::new(ty, dims))
    }
    pub fn scalar(ty: ElementType) -> Shape {
        Shape::Array(ArrayShape::scalar(ty))
    }
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_tuple(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }
    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }
    pub fn is_token(&self) -> bool {
        matches!(self, Shape::Token)
    }
    /// Equality ignoring layouts (and dynamic flags), recursively: what HLO means by "compatible".
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.same_dims_and_type(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            (Shape::Token, Shape::Token) => true,
            _ => false,
        }
    }
    /// Equality ignoring layouts but requiring the same dynamic flags.
    pub fn equal_ignoring_layout(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.same_dims_and_type(b) && a.dynamic == b.dynamic,
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equal_ignoring_layout(y))
            }
            (Shape::Token, Shape::Token) => true,
            _ => false,
        }
    }
    /// Total number of array elements over all leaves, or `None` on overflow.
    pub fn checked_total_elements(&self) -> Option<i64> {
        match self {
            Shape::Array(a) => a.checked_element_count(),
            Shape::Tuple(t) => t
                .iter()
                .try_fold(0i64, |acc, s| acc.checked_add(s.checked_total_elements()?)),
            Shape::Token => Some(0),
        }
    }
    /// Bytes a value of this shape occupies (unpadded), or `None` on overflow.
    pub fn checked_byte_size(&self) -> Option<i64> {
        match self {
            Shape::Array(a) => a
                .checked_element_count()?
                .checked_mul(a.ty.byte_size() as i64),
            Shape::Tuple(t) => t
                .iter()
                .try_fold(0i64, |acc, s| acc.checked_add(s.checked_byte_size()?)),
            Shape::Token => Some(0),
        }
    }
    /// Nesting depth of tuples (an array is 0).
    pub fn tuple_depth(&self) -> usize {
        match self {
            Shape::Tuple(t) => 1 + t.iter().map(|s| s.tuple_depth()).max().unwrap_or(0),
            _ => 0,
        }
    }
    /// Strips layouts (recursively), for printing shapes the way users write them.
    pub fn without_layout(&self) -> Shape {
        match self {
            Shape::Array(a) => Shape::Array(ArrayShape {
                layout: None,
                ..a.clone()
            }),
            Shape::Tuple(t) => Shape::Tuple(t.iter().map(|s| s.without_layout()).collect()),
            Shape::Token => Shape::Token,
        }
    }
}

impl fmt::Display for ArrayShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.ty)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if self.dynamic.get(i).copied().unwrap_or(false) {
                f.write_str("<=")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")?;
        if let Some(l) = &self.layout
            && !self.dims.is_empty()
        {
            match &l.physical {
                Some(p) => write!(f, "{{{}:{p}}}", join(&l.minor_to_major))?,
                None => write!(f, "{{{}}}", join(&l.minor_to_major))?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => write!(f, "{a}"),
            Shape::Token => f.write_str("token[]"),
            Shape::Tuple(t) => {
                f.write_str("(")?;
                for (i, s) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{s}")?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_column_major_example() {
        // [2 x 3] array a b c / d e f with minor_to_major [0, 1] is laid out a d b e c f.
        let l = Layout::new(vec![0, 1]);
        let dims = [2, 3];
        let order: Vec<i64> = (0..6)
            .map(|k| l.multi_index(&dims, k))
            .map(|ix| ix[0] * 3 + ix[1])
            .collect();
        assert_eq!(order, vec![0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn seed_padded_example() {
        let l = Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero);
        assert_eq!(l.buffer_len(&[2, 3]), 15);
        assert_eq!(l.linear_index(&[2, 3], &[1, 0]), 1);
        assert_eq!(l.linear_index(&[2, 3], &[0, 1]), 3);
        assert_eq!(l.linear_index(&[2, 3], &[1, 2]), 7);
    }

    #[test]
    fn invalid_layouts_name_their_rule() {
        let rule = |l: Layout, dims: &[i64]| l.check(dims).unwrap_err().rule.unwrap();
        assert_eq!(
            rule(Layout::new(vec![0, 0]), &[2, 3]),
            "layout.minor_to_major_permutation"
        );
        assert_eq!(
            rule(Layout::new(vec![0]), &[2, 3]),
            "layout.minor_to_major_permutation"
        );
        assert_eq!(
            rule(Layout::new(vec![2, 0]), &[2, 3]),
            "layout.minor_to_major_permutation"
        );
        assert_eq!(
            rule(
                Layout::new(vec![1, 0]).with_padding(vec![3], PaddingValue::Zero),
                &[2, 3]
            ),
            "layout.padded_rank"
        );
        assert_eq!(
            rule(
                Layout::new(vec![1, 0]).with_padding(vec![3, 2], PaddingValue::Zero),
                &[2, 3]
            ),
            "layout.padded_width"
        );
        assert_eq!(
            rule(
                Layout::new(vec![1, 0]).with_padding(vec![1 << 40, 1 << 40], PaddingValue::Zero),
                &[2, 3]
            ),
            "layout.buffer_too_large"
        );
        assert_eq!(rule(Layout::new(vec![0]), &[-1]), "shape.nonnegative_dims");
        assert!(Layout::new(vec![]).check(&[]).is_ok());
    }

    #[test]
    fn rank_zero_and_zero_sized_dimensions() {
        let scalar = Layout::default_for_rank(0);
        assert_eq!(scalar.buffer_len(&[]), 1);
        assert_eq!(scalar.checked_linear_index(&[], &[]).unwrap(), 0);
        assert_eq!(scalar.checked_multi_index(&[], 0).unwrap(), Some(vec![]));
        // A [0 x 2] array padded to [2 x 3]: six padding positions and no elements.
        let l = Layout::new(vec![1, 0]).with_padding(vec![2, 3], PaddingValue::Zero);
        assert_eq!(l.buffer_len(&[0, 2]), 6);
        for k in 0..6 {
            assert_eq!(l.checked_multi_index(&[0, 2], k).unwrap(), None);
        }
        assert!(l.checked_multi_index(&[0, 2], 6).is_err());
        assert_eq!(Layout::new(vec![0, 1]).buffer_len(&[3, 0]), 0);
    }

    #[test]
    fn checked_conversions() {
        let l = Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero);
        let dims = [2, 3];
        assert_eq!(l.checked_linear_index(&dims, &[1, 2]).unwrap(), 7);
        assert!(l.checked_linear_index(&dims, &[2, 0]).is_err());
        assert!(l.checked_linear_index(&dims, &[0]).is_err());
        assert_eq!(l.checked_multi_index(&dims, 7).unwrap(), Some(vec![1, 2]));
        assert_eq!(l.checked_multi_index(&dims, 2).unwrap(), None);
        assert_eq!(l.strides(&dims), vec![1, 3]);
        assert_eq!(Layout::dim0_minor(3).minor_to_major, vec![0, 1, 2]);
    }

    #[test]
    fn dimension_letters() {
        let letters =
            |r: usize| -> String { (0..r).filter_map(|d| dimension_letter(r, d)).collect() };
        assert_eq!(letters(2), "yx");
        assert_eq!(letters(3), "zyx");
        assert_eq!(letters(4), "pzyx");
        assert_eq!(letters(1), "");
        assert_eq!(letters(5), "");
        assert_eq!(
            PaddingValue::from_name("lowest"),
            Some(PaddingValue::Lowest)
        );
        assert_eq!(PaddingValue::Highest.name(), "highest");
    }

    #[test]
    fn negative_dimension_numbers() {
        let s = ArrayShape::new(ElementType::F32, vec![4, 5, 6]);
        assert_eq!(s.dim(-1), Some(6));
        assert_eq!(s.dim(-3), Some(4));
        assert_eq!(s.dim(-4), None);
        assert_eq!(s.dim(3), None);
        assert_eq!(
            ArrayShape::new(ElementType::F32, vec![1, 5, 1, 2]).true_rank(),
            2
        );
    }
}
