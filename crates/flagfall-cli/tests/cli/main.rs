//! The one integration-test binary: runs the real `flagfall` executable.

mod analyze;
mod event;
mod loadtest;
mod pair;
mod replay;
mod rules;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The `flagfall` binary built for this test run.
pub fn flagfall() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flagfall"))
}

/// Run `flagfall` with `args`, feeding `stdin`, and return its output.
pub fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = flagfall()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn flagfall");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait for flagfall")
}

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
