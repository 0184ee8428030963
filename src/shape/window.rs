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
