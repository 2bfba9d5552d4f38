//! berger (in progress)
