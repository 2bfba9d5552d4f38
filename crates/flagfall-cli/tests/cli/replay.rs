//! Integration tests for `flagfall replay`.
