//! Integration tests for `flagfall event`.
