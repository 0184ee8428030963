//! The out-of-process backend: JSON lines over a child's stdin/stdout (to be written with the
//! conformance suite).
