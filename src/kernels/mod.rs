//! Fast kernels (blocked GEMM, convolution), each behind a naive oracle that property tests hold
//! it equal to. Written with the Dot/Convolution issue.

pub mod bench;
