//! The conformance model: golden cases, book examples, tolerances, comparison and reports (to be
//! written).
