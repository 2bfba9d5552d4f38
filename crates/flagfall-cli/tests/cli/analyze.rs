//! Integration tests for `flagfall analyze`.
