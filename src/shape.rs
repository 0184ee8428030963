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

use crate::types::ElementType;
use std::fmt;

/// What padding elements hold in a padded layout (the seed's `PaddingValue`).
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Dimension numbers from most minor (fastest varying) to most major.
    pub minor_to_major: Vec<i64>,
    /// Padded width of each dimension, in dimension-number order; `None` means no padding.
    pub padded_dimensions: Option<Vec<i64>>,
    pub padding_value: PaddingValue,
}

impl Layout {
    pub fn new(minor_to_major: Vec<i64>) -> Layout {
        Layout {
            minor_to_major,
            padded_dimensions: None,
            padding_value: PaddingValue::Zero,
        }
    }

    /// The default layout: dimension order is major-to-minor, so `minor_to_major = [n-1, ..., 0]`
    /// (row-major at rank 2).
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout::new((0..rank as i64).rev().collect())
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

    pub fn with_padding(mut self, padded: Vec<i64>, value: PaddingValue) -> Layout {
        self.padded_dimensions = Some(padded);
        self.padding_value = value;
        self
    }

    /// Checks the layout against a shape's dimensions: `minor_to_major` must be a permutation of
    /// `0..rank`, and padded widths (if any) must be one per dimension and no smaller than it.
    pub fn validate(&self, dims: &[i64]) -> Result<(), String> {
        let rank = dims.len();
        if self.minor_to_major.len() != rank {
            return Err(format!(
                "layout {{{}}} has {} entries but the shape has rank {}",
                join(&self.minor_to_major),
                self.minor_to_major.len(),
                rank
            ));
        }
        let mut seen = vec![false; rank];
        for &d in &self.minor_to_major {
            if d < 0 || d as usize >= rank || seen[d as usize] {
                return Err(format!(
                    "layout {{{}}} is not a permutation of the dimensions 0..{}",
                    join(&self.minor_to_major),
                    rank
                ));
            }
            seen[d as usize] = true;
        }
        if let Some(p) = &self.padded_dimensions {
            if p.len() != rank {
                return Err(format!(
                    "padded_dimensions has {} entries but the shape has rank {}",
                    p.len(),
                    rank
                ));
            }
            for (i, (&w, &d)) in p.iter().zip(dims).enumerate() {
                if w < d {
                    return Err(format!(
                        "padded width {w} of dimension {i} is smaller than its size {d}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The physical (padded) width of each dimension.
    pub fn physical_dims(&self, dims: &[i64]) -> Vec<i64> {
        match &self.padded_dimensions {
            Some(p) => p.clone(),
            None => dims.to_vec(),
        }
    }

    /// Linear-buffer stride of each dimension, in dimension-number order.
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

    /// Number of elements in the linear buffer, padding included.
    pub fn buffer_len(&self, dims: &[i64]) -> i64 {
        self.physical_dims(dims).iter().product()
    }

    /// Multi-dimensional index to linear buffer index (XLA's
    /// `IndexUtil::MultidimensionalIndexToLinearIndex`).
    pub fn linear_index(&self, dims: &[i64], index: &[i64]) -> i64 {
        self.strides(dims)
            .iter()
            .zip(index)
            .map(|(s, i)| s * i)
            .sum()
    }

    /// Linear buffer index to multi-dimensional index (XLA's
    /// `IndexUtil::LinearIndexToMultidimensionalIndex`). For a padded layout the result may lie in
    /// the padding (some coordinate at or past the logical size).
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
            write!(f, "{{{}}}", join(&l.minor_to_major))?;
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
