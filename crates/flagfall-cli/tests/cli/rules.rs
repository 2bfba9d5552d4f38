//! Integration tests for `flagfall rules`.
