//! Window geometry: the windows of reduce-window, select-and-scatter and convolution, and the
//! convolution dimension numbers that say which operand dimension plays which part. These are
//! plain geometry (as in XLA's `xla_data.proto`, beside `Shape`), so the kernels can use them
//! without seeing the HLO front end.

/// One spatial dimension of a window (reduce-window, select-and-scatter, convolution).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowDim {
    pub size: i64,
    pub stride: i64,
    pub pad_lo: i64,
    pub pad_hi: i64,
    pub lhs_dilate: i64,
    pub rhs_dilate: i64,
    pub reversal: bool,
}

impl WindowDim {
    pub fn of_size(size: i64) -> WindowDim {
        WindowDim {
            size,
            stride: 1,
            pad_lo: 0,
            pad_hi: 0,
            lhs_dilate: 1,
            rhs_dilate: 1,
            reversal: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Window {
    pub dims: Vec<WindowDim>,
}

impl Window {
    /// A window of the given sizes with unit strides and dilations and no padding (what a
    /// convolution without a `window` attribute uses: the kernel's spatial sizes).
    pub fn of_sizes(sizes: &[i64]) -> Window {
        Window {
            dims: sizes.iter().map(|&s| WindowDim::of_size(s)).collect(),
        }
    }
}

/// Convolution dimension numbers, decoded from `dim_labels=b01f_01io->b01f`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvDims {
    pub input_batch: usize,
    pub input_feature: usize,
    pub input_spatial: Vec<usize>,
    pub kernel_input_feature: usize,
    pub kernel_output_feature: usize,
    pub kernel_spatial: Vec<usize>,
    pub output_batch: usize,
    pub output_feature: usize,
    pub output_spatial: Vec<usize>,
}

/// XLA's `DilatedBound`: the positions `n` elements span when `dilation - 1` holes sit between
/// neighbours (`(n-1)*dilation + 1`, and 0 for an empty extent). `None` on overflow.
pub fn dilated_bound(n: i64, dilation: i64) -> Option<i64> {
    if n <= 0 {
        return Some(0);
    }
    (n - 1).checked_mul(dilation)?.checked_add(1)
}

/// XLA's `StridedBound`: how many times a window spanning `window` positions fits into `bound`
/// positions moving `stride` at a time (0 when it does not fit once).
pub fn strided_bound(bound: i64, window: i64, stride: i64) -> Option<i64> {
    if stride <= 0 {
        return None;
    }
    if window > bound {
        return Some(0);
    }
    Some((bound - window) / stride + 1)
}

/// Size of a padded dimension: `lo + hi + n + (n - 1)·interior` (interior padding sits only
/// between elements, so there is none when n = 0). `None` on overflow.
pub fn padded_size(n: i64, lo: i64, hi: i64, interior: i64) -> Option<i64> {
    let gaps = (n - 1).max(0).checked_mul(interior)?;
    n.checked_add(gaps)?.checked_add(lo)?.checked_add(hi)
}

/// Why a window does not fit an operand dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowError {
    /// Dilating or padding the base, or dilating the window, overflows 64 bits.
    Overflow,
    /// Negative padding crops more than the dilated base has.
    NegativePaddedBase,
    /// A stride or dilation below 1.
    NonPositive,
}

/// The one window-size formula, used by shape inference of reduce-window, select-and-scatter and
/// convolution alike: the base of `n` elements is dilated by `lhs_dilate`, padded by
/// `pad_lo`/`pad_hi` (negative padding crops), and the window of `size` taps dilated by
/// `rhs_dilate` moves over it `stride` at a time. All arithmetic is checked.
pub fn window_output_size(n: i64, d: &WindowDim) -> Result<i64, WindowError> {
    if d.stride < 1 || d.lhs_dilate < 1 || d.rhs_dilate < 1 {
        return Err(WindowError::NonPositive);
    }
    let base = dilated_bound(n, d.lhs_dilate).ok_or(WindowError::Overflow)?;
    let padded = base
        .checked_add(d.pad_lo)
        .and_then(|b| b.checked_add(d.pad_hi))
        .ok_or(WindowError::Overflow)?;
    if padded < 0 {
        return Err(WindowError::NegativePaddedBase);
    }
    let window = dilated_bound(d.size, d.rhs_dilate).ok_or(WindowError::Overflow)?;
    strided_bound(padded, window, d.stride).ok_or(WindowError::NonPositive)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(size: i64, stride: i64, lo: i64, hi: i64, lhs: i64, rhs: i64) -> WindowDim {
        WindowDim {
            size,
            stride,
            pad_lo: lo,
            pad_hi: hi,
            lhs_dilate: lhs,
            rhs_dilate: rhs,
            reversal: false,
        }
    }

    #[test]
    fn output_sizes_follow_xla() {
        assert_eq!(window_output_size(5, &dim(2, 1, 0, 0, 1, 1)), Ok(4));
        assert_eq!(window_output_size(5, &dim(3, 2, 1, 1, 1, 1)), Ok(3));
        // Base dilation 2 turns 3 elements into 5 positions; window dilation 2 spans 3.
        assert_eq!(window_output_size(3, &dim(2, 1, 0, 0, 2, 2)), Ok(3));
        assert_eq!(window_output_size(0, &dim(1, 1, 0, 0, 1, 1)), Ok(0));
        assert_eq!(window_output_size(2, &dim(3, 1, 0, 0, 1, 1)), Ok(0));
        // An empty window (a convolution kernel of size 0) fits everywhere.
        assert_eq!(window_output_size(4, &dim(0, 1, 0, 0, 1, 1)), Ok(5));
    }

    #[test]
    fn absurd_attributes_are_errors_not_overflows() {
        let big = i64::MAX;
        assert_eq!(
            window_output_size(3, &dim(1, 1, big, big, 1, 1)),
            Err(WindowError::Overflow)
        );
        assert_eq!(
            window_output_size(big, &dim(1, 1, 0, 0, big, 1)),
            Err(WindowError::Overflow)
        );
        assert_eq!(
            window_output_size(3, &dim(big, 1, 0, 0, 1, big)),
            Err(WindowError::Overflow)
        );
        assert_eq!(
            window_output_size(3, &dim(1, 1, -5, 0, 1, 1)),
            Err(WindowError::NegativePaddedBase)
        );
        assert_eq!(
            window_output_size(3, &dim(1, 0, 0, 0, 1, 1)),
            Err(WindowError::NonPositive)
        );
        assert_eq!(
            window_output_size(3, &dim(1, 1, i64::MIN, 0, 1, 1)),
            Err(WindowError::NegativePaddedBase)
        );
    }
}
