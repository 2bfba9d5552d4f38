//! `flagfall event`: run a blitz event from a local event file (JSON).
//!
//! Every command that changes the event reads the file, applies one change through
//! `flagfall_events::event`, and writes the file back atomically: the new content goes to a
//! temporary file in the same directory, is flushed to disk (fsync), and is renamed over
//! the old file, so an interrupted run leaves either the old or the new event, never a
//! half-written one. See `docs/events.md` for the full syntax.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};
use clap::{Subcommand, ValueEnum};
use flagfall_core::ruleset::BUILTIN;
use flagfall_events::event::{
    ByeKind, Event, Format, ManualPairing, NewPlayer, RecordedResult, RequestedBye,
    TimeControlCheck,
};
use flagfall_events::{export, import};
use flagfall_pairing::trf::{Colour, Trf};

const LONG_ABOUT: &str = "The event lives in one JSON file, rewritten atomically by every command.

Typical evening (paper mode: games on physical boards, results typed in):
  flagfall event new club.json --name \"Friday Blitz\" --format double-swiss --rounds 6 \\
      --time-control \"G/5;d0\" --paper
  flagfall event add-player club.json --csv players.csv
  flagfall event pair club.json                 # pairs round 1 and prints it
  flagfall event results club.json 1 < r1.txt   # lines: BOARD RESULT [RESULT]
  flagfall event standings club.json
  flagfall event export club.json --as pgn -o club.pgn

Results: 1-0, 0-1, 1/2, +- (White wins by forfeit), -+ (Black wins by forfeit),
-- (double forfeit), * (not in yet). A two-game-match board (double-swiss,
round-robin-matches) takes two results, each
written with that game's colours (game 2: the board's Black has White).

Formats: round-robin (rr), double-round-robin (drr), round-robin-matches
(rr-matches: two-game matches), swiss (FIDE Dutch), double-swiss (FIDE C.04.5),
us-swiss (US Chess rules 27-29).";

/// Arguments of `flagfall event`.
#[derive(clap::Args)]
#[command(after_help = LONG_ABOUT)]
pub struct Args {
    #[command(subcommand)]
    command: EventCommand,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportKind {
    /// FIDE TRF-2026.
    Trf,
    /// Every game as PGN.
    Pgn,
    /// Standings as CSV.
    Csv,
    /// Printable crosstable (plain text).
    Crosstable,
    /// The event file itself, pretty JSON.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum StandingsAs {
    Text,
    Csv,
    Json,
}

#[derive(Subcommand)]
enum EventCommand {
    /// Create a new event file (refuses to overwrite one unless --force).
    New {
        /// The event file to create.
        file: PathBuf,
        /// Event name.
        #[arg(long)]
        name: String,
        /// The pairing system.
        #[arg(long, value_enum, ignore_case = true)]
        format: Format,
        /// Rounds planned (Swiss formats; round robins derive it from the players).
        #[arg(long)]
        rounds: Option<u32>,
        /// Time control, e.g. "G/5;d0", "3+2" (checked; its blitz/ratable status is shown).
        #[arg(long)]
        time_control: Option<String>,
        /// A built-in ruleset id, recorded in the exports; the time control is judged
        /// under it.
        #[arg(long, value_parser = builtin_ruleset_ids())]
        ruleset: Option<String>,
        /// Paper mode: games on physical boards, results typed in.
        #[arg(long)]
        paper: bool,
        /// Site, for PGN and TRF.
        #[arg(long)]
        site: Option<String>,
        /// Date (YYYY-MM-DD), for PGN and TRF.
        #[arg(long)]
        date: Option<String>,
        /// Colour drawn by lot for the top player in round 1.
        #[arg(long, value_enum, ignore_case = true, default_value = "white")]
        initial_colour: Colour,
        /// Tiebreak order, e.g. "BH-C1,BH,SB" (default depends on the format).
        #[arg(long)]
        tiebreaks: Option<String>,
        /// Points of the pairing-allocated bye for the whole round, when the regulations
        /// say other than a win (C.04.1 c), e.g. 1.5 for a Double Swiss match.
        #[arg(long, value_name = "POINTS")]
        pab_points: Option<String>,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Add players: one with --name, or many from --csv (header: name,rating,federation,fide_id; "-" reads stdin) or --trf.
    AddPlayer {
        /// The event file.
        file: PathBuf,
        /// Player name (one player).
        #[arg(long, conflicts_with_all = ["csv", "trf"])]
        name: Option<String>,
        /// Rating.
        #[arg(long, requires = "name")]
        rating: Option<u32>,
        /// Federation (three letters).
        #[arg(long, requires = "name")]
        federation: Option<String>,
        /// FIDE id.
        #[arg(long, requires = "name")]
        fide_id: Option<u64>,
        /// CSV file of players ("-" for stdin).
        #[arg(long, conflicts_with = "trf")]
        csv: Option<String>,
        /// TRF file whose player records are entered.
        #[arg(long)]
        trf: Option<PathBuf>,
    },
    /// Withdraw a player from a round on (default: the next round to pair).
    Withdraw {
        /// The event file.
        file: PathBuf,
        /// Pairing number.
        player: u32,
        /// First round the player is not paired in.
        #[arg(long)]
        from_round: Option<u32>,
    },
    /// Record a bye requested in advance (Swiss formats).
    Bye {
        /// The event file.
        file: PathBuf,
        /// Pairing number.
        player: u32,
        /// The round.
        #[arg(long)]
        round: u32,
        /// What the bye is worth.
        #[arg(long, value_enum, ignore_case = true, default_value = "half")]
        kind: RequestedBye,
    },
    /// Pair the next round and print it.
    Pair {
        /// The event file.
        file: PathBuf,
    },
    /// Remove the latest round while it has no results.
    Unpair {
        /// The event file.
        file: PathBuf,
    },
    /// Replace the latest round's pairing by hand (the director's override).
    Override {
        /// The event file.
        file: PathBuf,
        /// The round (must be the latest paired).
        #[arg(long)]
        round: u32,
        /// A board as WHITE-BLACK pairing numbers, e.g. 3-7; repeat in board order.
        #[arg(long = "board", value_name = "WHITE-BLACK", value_parser = parse_board)]
        boards: Vec<(u32, u32)>,
        /// A bye as PLAYER or PLAYER:KIND (pab, full, half, zero, absent; default pab).
        #[arg(long = "bye", value_name = "PLAYER[:KIND]", value_parser = parse_bye)]
        byes: Vec<(u32, ByeKind)>,
    },
    /// Enter or correct the result(s) of one board.
    Result {
        /// The event file.
        file: PathBuf,
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// One result per game (two for a Double Swiss match).
        #[arg(required = true, allow_hyphen_values = true, value_enum)]
        results: Vec<RecordedResult>,
    },
    /// Enter a round's results from stdin, one board per line: BOARD RESULT [RESULT].
    Results {
        /// The event file.
        file: PathBuf,
        /// Round.
        round: u32,
    },
    /// Print the pairings of a round (default: the latest).
    Show {
        /// The event file.
        file: PathBuf,
        /// Round.
        #[arg(long)]
        round: Option<u32>,
    },
    /// Standings with tiebreaks (after the last complete round by default).
    Standings {
        /// The event file.
        file: PathBuf,
        /// Standings after this round.
        #[arg(long)]
        after_round: Option<u32>,
        /// Tiebreak order for this listing only.
        #[arg(long)]
        tiebreaks: Option<String>,
        /// Output form.
        #[arg(long = "as", value_enum, default_value = "text")]
        output: StandingsAs,
    },
    /// Set the event's tiebreak order, e.g. "DE,BH-C1,BH,SB".
    Tiebreaks {
        /// The event file.
        file: PathBuf,
        /// The list.
        list: String,
    },
    /// Export: TRF-2026, PGN, standings CSV, crosstable or JSON (stdout or -o).
    Export {
        /// The event file.
        file: PathBuf,
        /// What to export.
        #[arg(long = "as", value_enum)]
        kind: ExportKind,
        /// Output file (written atomically); stdout if absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// Run `flagfall event`: one handler per subcommand.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        EventCommand::New {
            file,
            name,
            format,
            rounds,
            time_control,
            ruleset,
            paper,
            site,
            date,
            initial_colour,
            tiebreaks,
            pab_points,
            force,
        } => {
            if file.exists() && !force {
                bail!(
                    "{} already exists; use --force to replace it",
                    file.display()
                );
            }
            let mut event = Event::new(&name, format, rounds)?;
            event.paper_mode = paper;
            event.site = site;
            event.initial_colour = initial_colour;
            let settings = Settings {
                date,
                ruleset,
                tiebreaks,
                pab_points,
                time_control,
            };
            new_event(&file, event, settings)?;
        }
        EventCommand::AddPlayer {
            file,
            name,
            rating,
            federation,
            fide_id,
            csv,
            trf,
        } => {
            let one = name.map(|name| NewPlayer {
                name,
                rating,
                federation,
                fide_id,
            });
            let new_players = players_to_add(one, csv, trf)?;
            add_players(&file, new_players)?;
        }
        EventCommand::Withdraw {
            file,
            player,
            from_round,
        } => {
            let from = change(&file, |event| Ok(event.withdraw(player, from_round)?))?;
            println!("player {player} withdrawn from round {from} on");
        }
        EventCommand::Bye {
            file,
            player,
            round,
            kind,
        } => {
            change(&file, |event| Ok(event.request_bye(player, round, kind)?))?;
            println!("player {player}: {kind:?} bye in round {round}");
        }
        EventCommand::Pair { file } => {
            let mut event = load(&file)?;
            let round = event.pair_next()?;
            save(&file, &event)?;
            print!("{}", export::round_text(&event, round)?);
        }
        EventCommand::Unpair { file } => {
            let round = change(&file, |event| Ok(event.unpair_last()?))?;
            println!("round {round} removed");
        }
        EventCommand::Override {
            file,
            round,
            boards,
            byes,
        } => {
            let manual = ManualPairing { boards, byes };
            let mut event = load(&file)?;
            let rematches = event.override_pairing(round, &manual)?;
            save(&file, &event)?;
            for (w, b) in rematches {
                eprintln!("warning: players {w} and {b} have met before");
            }
            print!("{}", export::round_text(&event, round)?);
        }
        EventCommand::Result {
            file,
            round,
            board,
            results,
        } => {
            change(&file, |event| Ok(event.set_result(round, board, &results)?))?;
            let shown: Vec<&str> = results.iter().map(|r| r.short()).collect();
            println!("round {round} board {board}: {}", shown.join(" "));
        }
        EventCommand::Results { file, round } => enter_results(&file, round)?,
        EventCommand::Show { file, round } => show_round(&file, round)?,
        EventCommand::Standings {
            file,
            after_round,
            tiebreaks,
            output,
        } => print_standings(&file, after_round, tiebreaks.as_deref(), output)?,
        EventCommand::Tiebreaks { file, list } => {
            let order = change(&file, |event| {
                event.set_tiebreaks(&list)?;
                Ok(event.tiebreaks.clone())
            })?;
            println!("tiebreak order: {order}");
        }
        EventCommand::Export { file, kind, output } => export_event(&file, kind, output)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The settings of `event new` that are checked before the file is written.
struct Settings {
    date: Option<String>,
    ruleset: Option<String>,
    tiebreaks: Option<String>,
    pab_points: Option<String>,
    time_control: Option<String>,
}

/// `event new`: apply and check the settings, write the file, say what was created.
fn new_event(file: &Path, mut event: Event, settings: Settings) -> anyhow::Result<()> {
    if let Some(d) = settings.date {
        check_date(&d)?;
        event.date = Some(d);
    }
    if let Some(id) = settings.ruleset {
        event.set_ruleset(&id)?;
    }
    if let Some(list) = settings.tiebreaks {
        event.set_tiebreaks(&list)?;
    }
    if let Some(points) = settings.pab_points {
        event.set_pab_points(&points)?;
    }
    if let Some(tc) = settings.time_control {
        let check = event.set_time_control(&tc)?;
        println!("{}", describe_time_control(&check));
    }
    save(file, &event)?;
    println!(
        "created {}: {} ({}{})",
        file.display(),
        event.name,
        event.format,
        if event.format.is_round_robin() {
            String::new()
        } else {
            format!(", {} rounds", event.rounds)
        }
    );
    Ok(())
}

/// The players `event add-player` enters: one from the command line, or those of a CSV
/// (`-`: stdin) or TRF file.
fn players_to_add(
    one: Option<NewPlayer>,
    csv: Option<String>,
    trf: Option<PathBuf>,
) -> anyhow::Result<Vec<NewPlayer>> {
    if let Some(player) = one {
        Ok(vec![player])
    } else if let Some(src) = csv {
        let (text, label) = read_source(&src)?;
        Ok(import::players_from_csv(&text, &label)?)
    } else if let Some(path) = trf {
        let text =
            fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let t = Trf::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        Ok(import::players_from_trf(&t))
    } else {
        bail!("give --name, --csv or --trf");
    }
}

/// `event show`: a round's pairings and results (default: the latest round).
fn show_round(file: &Path, round: Option<u32>) -> anyhow::Result<()> {
    let event = load(file)?;
    let round = match round {
        Some(r) => r,
        None if event.rounds_paired() == 0 => bail!("no round has been paired yet"),
        None => event.rounds_paired(),
    };
    print!("{}", export::round_text(&event, round)?);
    Ok(())
}

/// `event standings`: after the last complete round unless another is asked for.
fn print_standings(
    file: &Path,
    after_round: Option<u32>,
    tiebreaks: Option<&str>,
    output: StandingsAs,
) -> anyhow::Result<()> {
    let event = load(file)?;
    let after = after_round.unwrap_or_else(|| event.rounds_complete());
    let st = event.standings(Some(after), tiebreaks)?;
    match output {
        StandingsAs::Text => print!("{}", export::standings_text(&event, &st, after)),
        StandingsAs::Csv => print!("{}", export::standings_csv(&event, &st)),
        StandingsAs::Json => println!("{}", serde_json::to_string_pretty(&st)?),
    }
    Ok(())
}

/// `event add-player`: enter the players in order and report the late entrants' numbers.
fn add_players(file: &Path, new_players: Vec<NewPlayer>) -> anyhow::Result<()> {
    if new_players.is_empty() {
        bail!("no players to add");
    }
    let mut event = load(file)?;
    let count = new_players.len();
    let mut numbers = Vec::with_capacity(count);
    for (i, p) in new_players.into_iter().enumerate() {
        let shown = p.name.clone();
        let id = event
            .add_player(p)
            .with_context(|| format!("player #{} ({shown:?})", i + 1))?;
        // Those already added from `id` on moved down one number.
        for (_, earlier) in &mut numbers {
            if *earlier >= id {
                *earlier += 1;
            }
        }
        numbers.push((shown, id));
    }
    save(file, &event)?;
    println!(
        "{count} player(s) added; {} in the event",
        event.players.len()
    );
    if event.rounds_paired() > 0 {
        println!(
            "late entr{} from round {}",
            if count == 1 { "y joins" } else { "ies join" },
            event.rounds_paired() + 1
        );
        // Pairing numbers follow the ranking (FIDE C.04.2): a late entrant rated above
        // others takes its place and they move down one number.
        for (name, id) in numbers {
            println!("{name}: pairing number {id}");
        }
    }
    Ok(())
}

/// `event results`: a round's results from stdin, one board per line.
fn enter_results(file: &Path, round: u32) -> anyhow::Result<()> {
    let mut event = load(file)?;
    if round == 0 || round > event.rounds_paired() {
        bail!(
            "round {round} has not been paired (rounds paired: {})",
            event.rounds_paired()
        );
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("cannot read results from stdin")?;
    let lines = import::result_lines(&text, "stdin")?;
    for l in &lines {
        event
            .set_result(round, l.board, &l.results)
            .with_context(|| format!("stdin line {}", l.line))?;
    }
    save(file, &event)?;
    let missing: Vec<String> = event.round_list[round as usize - 1]
        .boards
        .iter()
        .filter(|b| !b.complete())
        .map(|b| b.number.to_string())
        .collect();
    println!("round {round}: {} board(s) entered", lines.len());
    if !missing.is_empty() {
        println!("still missing: board(s) {}", missing.join(", "));
    }
    Ok(())
}

/// `event export`: the chosen export to stdout or, atomically, to a file.
fn export_event(file: &Path, kind: ExportKind, output: Option<PathBuf>) -> anyhow::Result<()> {
    let event = load(file)?;
    let text = match kind {
        ExportKind::Trf => export::trf(&event),
        ExportKind::Pgn => export::pgn(&event),
        ExportKind::Csv => {
            let st = event.standings(None, None)?;
            export::standings_csv(&event, &st)
        }
        ExportKind::Crosstable => export::crosstable_text(&event)?,
        ExportKind::Json => serde_json::to_string_pretty(&event)? + "\n",
    };
    match output {
        Some(path) => {
            write_atomically(&path, text.as_bytes())?;
            println!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// Load the event, apply one change, and save it; returns what the change returned.
fn change<T>(file: &Path, f: impl FnOnce(&mut Event) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let mut event = load(file)?;
    let out = f(&mut event)?;
    save(file, &event)?;
    Ok(out)
}

fn describe_time_control(check: &TimeControlCheck) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = format!(
        "time control {}: FIDE blitz {}, US Chess blitz {}, US Chess blitz-ratable {}",
        check.normalised,
        yes(check.fide_blitz),
        yes(check.us_blitz),
        yes(check.us_blitz_ratable)
    );
    if let Some(v) = &check.ruleset_verdict {
        out.push_str("; ");
        out.push_str(v);
    }
    out
}

fn check_date(d: &str) -> anyhow::Result<()> {
    let ok = d.len() == 10
        && d.chars().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-' || c == '.'
            } else {
                c.is_ascii_digit()
            }
        });
    if !ok {
        bail!("date {d:?} is not in the form YYYY-MM-DD");
    }
    Ok(())
}

/// The built-in ruleset ids, the values `event new --ruleset` takes.
fn builtin_ruleset_ids() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(BUILTIN.map(|(id, _)| id))
}

/// `--board WHITE-BLACK` (a clap value parser: a bad value is a usage error).
fn parse_board(s: &str) -> Result<(u32, u32), String> {
    let (w, b) = s
        .split_once('-')
        .ok_or_else(|| format!("board {s:?} is not WHITE-BLACK, e.g. 3-7"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("board {s:?}: {t:?} is not a pairing number"))
    };
    Ok((num(w)?, num(b)?))
}

/// `--bye PLAYER[:KIND]` (a clap value parser: a bad value is a usage error).
fn parse_bye(s: &str) -> Result<(u32, ByeKind), String> {
    let (p, kind) = s.split_once(':').unwrap_or((s, "pab"));
    let player = p
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("bye {s:?}: {p:?} is not a pairing number"))?;
    let kind: ByeKind = kind.parse().map_err(|e| format!("bye {s:?}: {e}"))?;
    Ok((player, kind))
}

fn read_source(src: &str) -> anyhow::Result<(String, String)> {
    if src == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read players from stdin")?;
        Ok((text, "stdin".into()))
    } else {
        let text = fs::read_to_string(src).with_context(|| format!("cannot read {src}"))?;
        Ok((text, src.to_string()))
    }
}

/// Read an event file, bring it up to the current layout and check it.
fn load(path: &Path) -> anyhow::Result<Event> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read event file {}", path.display()))?;
    let mut event: Event = serde_json::from_str(&text).map_err(|e| {
        anyhow!(
            "event file {}: line {} column {}: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    event.upgrade();
    event
        .validate()
        .with_context(|| format!("event file {}", path.display()))?;
    Ok(event)
}

fn save(path: &Path, event: &Event) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(event)? + "\n";
    write_atomically(path, text.as_bytes())
}

/// Write `bytes` to `path` so that readers see either the old file or the whole new one:
/// temporary file in the same directory, fsync, rename over, fsync the directory.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| anyhow!("{} is not a file path", path.display()))?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
    let result = (|| -> anyhow::Result<()> {
        let mut f =
            fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(bytes)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        f.sync_all()
            .with_context(|| format!("cannot flush {}", tmp.display()))?;
        drop(f);
        fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_and_bye_arguments() {
        assert_eq!(parse_board("3-7"), Ok((3, 7)));
        assert!(parse_board("3x7").is_err());
        assert!(parse_board("3-x").is_err());
        assert_eq!(parse_bye("4:half"), Ok((4, ByeKind::Half)));
        assert_eq!(parse_bye("4:H"), Ok((4, ByeKind::Half)));
        assert_eq!(parse_bye("5"), Ok((5, ByeKind::Pab)));
        let err = parse_bye("5:lots").unwrap_err();
        assert!(err.contains("pab, full, half, zero or absent"), "{err}");
    }
}
