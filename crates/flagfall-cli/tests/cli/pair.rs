//! Integration tests for `flagfall pair`.
