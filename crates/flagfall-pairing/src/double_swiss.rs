//! double_swiss (in progress)
