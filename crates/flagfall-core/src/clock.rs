//! clock (in progress)
