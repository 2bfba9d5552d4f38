//! `flagfall analyze`: can a side still checkmate by any series of legal moves?
//! (fide-b3 A.5.3, Art. 5.2.2, Art. 7.5.5; see `flagfall_analysis::can_checkmate`.)
//!
//! Single query: `flagfall analyze --fen FEN --winner white|black [--json]`.
//! Batch: `flagfall analyze --batch FILE|-`; each input line is `FEN<TAB>white|black`, each
//! output line (same order) is `winnable`, `unwinnable` or `undetermined`, a tab and the
//! details (the helpmate in UCI, the reason). A malformed line prints `error<TAB>message`
//! in its place and a message naming the line on stderr; the batch goes on, and the exit
//! code is then 1. Blank lines and lines starting with `#` are skipped.
//!
//! Draw claims: `flagfall analyze --fen FEN --draw-claim ilc|draw-position --claimant
//! white|black [--tablebases DIR] [--json]` prints what the director's assistant
//! recommends (club-ilc 4.3; blitz-2006 8e, 8g, 8h, 8i): `grant` or `deny`, a tab, the
//! rule it rests on (cited from the ruleset whose claim it is: club-ilc for `ilc`,
//! blitz-2006 for `draw-position`, as the arbiter cites it), a tab, the reasons joined by
//! `; `. The JSON form adds the ground (`identical_pieces`, `no_mating_possibility`, ...).

use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use flagfall_analysis::assistant::{DrawClaim, recommend};
use flagfall_analysis::{Limits, Verdict, can_checkmate};
use flagfall_core::colour;
use flagfall_core::ruleset::Ruleset;
use flagfall_game::arbiter::recommendation_rule;
use flagfall_pairing::trf::Colour;
use shakmaty::{Color, Setup, fen::Fen};

#[derive(clap::Args)]
pub struct Args {
    /// Position to analyse, as FEN.
    #[arg(long, conflicts_with = "batch")]
    fen: Option<String>,
    /// The side whose mating chances are asked about.
    #[arg(long, value_enum, ignore_case = true)]
    winner: Option<Colour>,
    /// Print the verdict as JSON (single query only).
    #[arg(long, conflicts_with = "batch")]
    json: bool,
    /// Read queries from FILE (or `-` for standard input), one `FEN<TAB>white|black` a line.
    #[arg(long, value_name = "FILE")]
    batch: Option<String>,
    /// Search node limit per query; past it the answer is `undetermined`.
    #[arg(long, default_value_t = Limits::default().nodes)]
    nodes: u64,
    /// Ask the director's assistant about a draw claim instead: `ilc` (club-ilc 4.3) or
    /// `draw-position` (blitz-2006 8e, 8g, 8h, 8i). Needs --fen and --claimant.
    #[arg(
        long,
        value_name = "KIND",
        ignore_case = true,
        conflicts_with_all = ["batch", "winner"],
        requires = "claimant"
    )]
    draw_claim: Option<ClaimArg>,
    /// The player who claims the draw (with --draw-claim).
    #[arg(long, value_enum, ignore_case = true, requires = "draw_claim")]
    claimant: Option<Colour>,
    /// A directory of Syzygy tables the assistant consults (with --draw-claim); may be
    /// given more than once.
    #[arg(long = "tablebases", value_name = "DIR", requires = "draw_claim")]
    tablebases: Vec<PathBuf>,
}

/// The draw claims the assistant answers (`--draw-claim`).
#[derive(Clone, Copy, clap::ValueEnum)]
enum ClaimArg {
    /// Insufficient losing chances (club-ilc 4.3).
    Ilc,
    /// A drawn position in the last two minutes (blitz-2006 8e, 8g, 8h, 8i).
    #[value(alias = "draw_position")]
    DrawPosition,
}

impl ClaimArg {
    fn claim(self) -> DrawClaim {
        match self {
            ClaimArg::Ilc => DrawClaim::Ilc,
            ClaimArg::DrawPosition => DrawClaim::DrawPosition,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ClaimArg::Ilc => "ilc",
            ClaimArg::DrawPosition => "draw-position",
        }
    }

    /// The built-in ruleset whose claim this is, for its citations.
    fn ruleset_id(self) -> &'static str {
        match self {
            ClaimArg::Ilc => "club-ilc",
            ClaimArg::DrawPosition => "blitz-2006",
        }
    }
}

/// Lines between two progress reports on stderr in batch mode.
const PROGRESS_EVERY: usize = 1000;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limits = Limits { nodes: args.nodes };
    if let Some(path) = &args.batch {
        return run_batch(path, &limits);
    }
    let Some(fen) = &args.fen else {
        bail!("give --fen FEN --winner white|black, or --batch FILE");
    };
    if let Some(kind) = args.draw_claim {
        return run_draw_claim(&args, fen, kind);
    }
    let Some(side) = args.winner else {
        bail!("--fen needs --winner white|black (or --draw-claim KIND --claimant white|black)");
    };
    let winner = color(side);
    let setup = parse_fen(fen).with_context(|| "--fen")?;
    let verdict = can_checkmate(&setup, winner, &limits);
    if args.json {
        let out = serde_json::json!({
            "fen": fen,
            "winner": colour::key(winner),
            "result": verdict,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{}", format_line(&verdict));
    }
    Ok(ExitCode::SUCCESS)
}

/// The command line's colour as shakmaty's.
fn color(side: Colour) -> Color {
    match side {
        Colour::White => Color::White,
        Colour::Black => Color::Black,
    }
}

/// A batch line's colour, spelled as on the command line (`white`, `w`, any case).
fn parse_winner(text: &str) -> anyhow::Result<Color> {
    let text = text.trim();
    match <Colour as clap::ValueEnum>::from_str(text, true) {
        Ok(side) => Ok(color(side)),
        Err(_) => bail!(
            "expected `white` or `black`, found `{}`",
            text.to_ascii_lowercase()
        ),
    }
}

fn parse_fen(text: &str) -> anyhow::Result<Setup> {
    let fen: Fen = text
        .trim()
        .parse()
        .map_err(|e| anyhow::anyhow!("invalid FEN `{}`: {e}", text.trim()))?;
    Ok(fen.into_setup())
}

fn run_draw_claim(args: &Args, fen: &str, kind: ClaimArg) -> anyhow::Result<ExitCode> {
    let claim = kind.claim();
    let Some(side) = args.claimant else {
        bail!("--draw-claim needs --claimant white|black");
    };
    let claimant = color(side);
    let setup = parse_fen(fen).context("--fen")?;
    let tablebase = crate::tables::open_tablebases(&args.tablebases)?;
    let tables = tablebase.as_ref().map(|tb| tb.0.as_ref() as _);
    let rec = recommend(&setup, claimant, claim, tables);
    let ruleset = Ruleset::builtin(kind.ruleset_id())
        .with_context(|| format!("built-in ruleset {}", kind.ruleset_id()))?;
    let rule = recommendation_rule(&ruleset.draws, claim, rec.ground);
    if args.json {
        let out = serde_json::json!({
            "fen": fen,
            "claim": kind.name(),
            "claimant": colour::key(claimant),
            "grant": rec.grant,
            "ground": rec.ground.name(),
            "rule": rule,
            "reasons": rec.reasons,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{}\t{}\t{}",
            if rec.grant { "grant" } else { "deny" },
            rule,
            rec.reasons.join("; ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `winnable<TAB>moves`, `unwinnable<TAB>reason`, `undetermined<TAB>reason`.
fn format_line(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Winnable { witness } => format!("winnable\t{}", witness.join(" ")),
        Verdict::Unwinnable { reason } => {
            let reason = serde_json::to_value(reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| format!("{reason:?}"));
            format!("unwinnable\t{reason}")
        }
        Verdict::Undetermined { reason } => format!("undetermined\t{reason}"),
    }
}

/// One batch line: `FEN<TAB>white|black`.
fn parse_query(line: &str) -> anyhow::Result<(Setup, Color)> {
    let Some((fen, winner)) = line.split_once('\t') else {
        bail!("expected `FEN<TAB>white|black`, found no tab");
    };
    let winner = parse_winner(winner).context("field 2 (winner)")?;
    let setup = parse_fen(fen).context("field 1 (FEN)")?;
    Ok((setup, winner))
}

fn run_batch(path: &str, limits: &Limits) -> anyhow::Result<ExitCode> {
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("cannot open `{path}`"))?;
        Box::new(std::io::BufReader::new(file))
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut errors = 0usize;
    let mut done = 0usize;
    for (i, line) in reader.lines().enumerate() {
        let number = i + 1;
        let line = line.with_context(|| format!("{path}: cannot read line {number}"))?;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_query(line) {
            Ok((setup, winner)) => {
                let verdict = can_checkmate(&setup, winner, limits);
                writeln!(out, "{}", format_line(&verdict))?;
            }
            Err(err) => {
                errors += 1;
                let message = format!("line {number}: {err:#}");
                eprintln!("flagfall analyze: {path}: {message}");
                writeln!(out, "error\t{message}")?;
            }
        }
        done += 1;
        if done.is_multiple_of(PROGRESS_EVERY) {
            out.flush()?;
            eprintln!("flagfall analyze: {done} queries done");
        }
    }
    out.flush()?;
    if errors > 0 {
        eprintln!("flagfall analyze: {errors} malformed line(s)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
