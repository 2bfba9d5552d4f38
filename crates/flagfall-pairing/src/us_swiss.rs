//! us_swiss (in progress)
