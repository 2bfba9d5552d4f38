//! `flagfall pair`: pair the next round of a tournament given as FIDE TRF.
//!
//! Reads TRF-16 or TRF-2026 (with the `XXR`/`142` round count) from a file or from stdin
//! (`-`) and prints the next round in bbpPairings' format: the number of lines, then one
//! `WHITE BLACK` line per board, then `P 0` for the pairing-allocated bye.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use flagfall_pairing::dutch::{self, DutchInput};
use flagfall_pairing::trf::Trf;

/// The pairing systems `flagfall pair` knows.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum System {
    /// FIDE Dutch system (C.04.3, 2025 rules), as bbpPairings pairs it.
    Dutch,
}

#[derive(clap::Args)]
pub struct Args {
    /// Pairing system.
    #[arg(long, value_enum, default_value_t = System::Dutch)]
    system: System,
    /// The tournament so far, as FIDE TRF; `-` reads standard input.
    file: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (text, source) = if args.file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the TRF from standard input")?;
        (text, "<stdin>".to_string())
    } else {
        let text = std::fs::read_to_string(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
        (text, args.file.display().to_string())
    };
    let trf = Trf::parse(&text).with_context(|| format!("{source} is not a valid TRF"))?;
    let pairing = match args.system {
        System::Dutch => {
            let input =
                DutchInput::from_trf(&trf).with_context(|| format!("{source} cannot be paired"))?;
            dutch::pair(&input).with_context(|| format!("{source} cannot be paired"))?
        }
    };
    let mut out = std::io::stdout().lock();
    write!(out, "{pairing}").context("cannot write the pairing")?;
    out.flush().context("cannot write the pairing")?;
    Ok(ExitCode::SUCCESS)
}
