//! timecontrol (in progress)
