//! `flagfall analyze` (in progress).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`flagfall analyze` is not available yet")
}
