//! `flagfall replay FILE|-`: replay a game script through the arbiter.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use flagfall_core::ruleset::Ruleset;
use flagfall_game::{pgn, script};

#[derive(clap::Args)]
pub struct Args {
    /// The game script (JSON Lines), or `-` for standard input.
    pub file: Option<String>,
    /// Print the game as PGN instead of the JSON report.
    #[arg(long)]
    pub pgn: bool,
    /// Read the game from a PGN written by `flagfall replay --pgn` (or any PGN: its moves
    /// are replayed under `--rules`).
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub from_pgn: Option<String>,
    /// The ruleset for a PGN that names none (`--from-pgn`).
    #[arg(long, default_value = "uscf-2020")]
    pub rules: String,
    /// Load a user ruleset (TOML, the schema of the built-in ones); the script may name its id.
    #[arg(long = "ruleset", value_name = "FILE")]
    pub rulesets: Vec<PathBuf>,
    /// A directory of Syzygy endgame tables (.rtbw/.rtbz) for the director's assistant on
    /// draw claims (blitz-2006 8e-8i, club-ilc 4.3); may be given more than once.
    #[arg(long = "tablebases", value_name = "DIR")]
    pub tablebases: Vec<PathBuf>,
}

fn read_input(path: &str) -> anyhow::Result<String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {path}"))
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let tablebase = crate::tables::open_tablebases(&args.tablebases)?;
    let mut extra = Vec::new();
    for path in &args.rulesets {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading ruleset {}", path.display()))?;
        extra.push(
            Ruleset::from_toml(&text).with_context(|| format!("ruleset {}", path.display()))?,
        );
    }
    let (text, origin) = match (&args.from_pgn, &args.file) {
        (Some(p), _) => {
            let pgn_text = read_input(p)?;
            (
                pgn::from_pgn(&pgn_text, &args.rules).with_context(|| p.clone())?,
                p.clone(),
            )
        }
        (None, Some(f)) => (read_input(f)?, f.clone()),
        (None, None) => bail!("name a game script (or `-` for standard input), or --from-pgn FILE"),
    };
    let script = script::parse_with(&text, &extra).with_context(|| origin.clone())?;
    if args.pgn {
        print!("{}", pgn::to_pgn_with(&script, tablebase));
    } else {
        let replay = flagfall_game::replay_with_tablebase(&script, tablebase);
        println!("{}", replay.to_json());
    }
    Ok(ExitCode::SUCCESS)
}
