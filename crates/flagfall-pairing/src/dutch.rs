//! dutch (in progress)
