//! rating (in progress)
