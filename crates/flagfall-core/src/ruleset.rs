//! ruleset (in progress)
