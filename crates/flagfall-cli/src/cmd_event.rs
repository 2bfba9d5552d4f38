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
use flagfall_events::change::{Change, Effect, Origin};
use flagfall_events::event::{
    ByeKind, Event, Format, NewPlayer, RecordedResult, RequestedBye, TimeControlCheck,
};
use flagfall_events::rating_list::{self, FoundBy, ListRating};
use flagfall_events::{export, import, uscf};
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
    /// Who makes the change, for the event's log (every change is logged with who, when
    /// and what it replaced; `event log` prints it).
    #[arg(long, global = true, default_value = "director")]
    by: String,
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
    /// US Chess's rating report: THEXPORT.DBF, TSEXPORT.DBF and TDEXPORT.DBF written
    /// into the folder given with -o (created if missing).
    UscfDbf,
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
        /// Players must check in to be paired (`event check-in`); without it everyone
        /// entered and not withdrawn is paired.
        #[arg(long)]
        check_in: bool,
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
        /// US Chess id (eight digits).
        #[arg(long, requires = "name")]
        uscf_id: Option<String>,
        /// The player is at the venue: checked in at once.
        #[arg(long)]
        checked_in: bool,
        /// CSV file of players ("-" for stdin).
        #[arg(long, conflicts_with = "trf")]
        csv: Option<String>,
        /// TRF file whose player records are entered.
        #[arg(long)]
        trf: Option<PathBuf>,
    },
    /// Remove a player entered by mistake or who never came (before round 1 only).
    RemovePlayer {
        /// The event file.
        file: PathBuf,
        /// Pairing number.
        player: u32,
    },
    /// Check players in (only checked-in players are paired when the event asks for it).
    CheckIn {
        /// The event file.
        file: PathBuf,
        /// Pairing numbers.
        #[arg(required = true)]
        players: Vec<u32>,
        /// Check them out instead.
        #[arg(long)]
        out: bool,
    },
    /// Pause a player: not paired until resumed (Swiss formats).
    Pause {
        /// The event file.
        file: PathBuf,
        /// Pairing number.
        player: u32,
        /// End the pause instead.
        #[arg(long)]
        resume: bool,
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
        /// Undo the withdrawal instead: paired again from the next round.
        #[arg(long, conflicts_with = "from_round")]
        undo: bool,
    },
    /// Forbid a pairing (family, same club): the two are never paired together.
    Forbid {
        /// The event file.
        file: PathBuf,
        /// One player.
        a: u32,
        /// The other.
        b: u32,
        /// Why, for the list (e.g. "siblings").
        #[arg(long)]
        note: Option<String>,
        /// Lift the forbidden pair instead.
        #[arg(long, conflicts_with = "note")]
        allow: bool,
    },
    /// Fill ratings, FIDE ids, titles and federations from FIDE's rating list (the
    /// fixed-width TXT: players_list_foa.txt or a single standard/rapid/blitz list).
    LoadRatings {
        /// The event file.
        file: PathBuf,
        /// The rating list (TXT, UTF-8 or Latin-1).
        list: PathBuf,
        /// Which rating to take from the combined list.
        #[arg(long, value_enum, ignore_case = true, default_value = "blitz")]
        rating: ListRating,
    },
    /// What the rating reports need: city, dates, arbiters, US Chess ids.
    ReportInfo {
        /// The event file.
        file: PathBuf,
        /// Last day of the event (YYYY-MM-DD).
        #[arg(long)]
        end_date: Option<String>,
        /// City.
        #[arg(long)]
        city: Option<String>,
        /// US state (two letters).
        #[arg(long)]
        state: Option<String>,
        /// ZIP code.
        #[arg(long)]
        zip: Option<String>,
        /// Country (US Chess; default USA).
        #[arg(long)]
        country: Option<String>,
        /// Host federation (FIDE, three letters).
        #[arg(long)]
        federation: Option<String>,
        /// Chief arbiter (FIDE).
        #[arg(long)]
        chief_arbiter: Option<String>,
        /// Deputy arbiters (FIDE).
        #[arg(long)]
        deputy_arbiters: Option<String>,
        /// US Chess affiliate id (A and seven digits).
        #[arg(long)]
        uscf_affiliate: Option<String>,
        /// US Chess id of the chief TD.
        #[arg(long)]
        uscf_chief_td: Option<String>,
        /// US Chess id of the assistant chief TD.
        #[arg(long)]
        uscf_assistant_td: Option<String>,
    },
    /// Print the event's log: every change, who made it, when, and what it replaced.
    Log {
        /// The event file.
        file: PathBuf,
        /// As JSON (one entry per line) instead of text.
        #[arg(long)]
        json: bool,
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
        /// Take the request back instead.
        #[arg(long, conflicts_with = "kind")]
        cancel: bool,
    },
    /// Pair the next round and print it.
    Pair {
        /// The event file.
        file: PathBuf,
    },
    /// Delete the latest round while nothing in it has been played.
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
    /// Enter, correct or replace the result(s) of one board (logged; a correction of an
    /// earlier round pairs the latest round again when nothing in it has been played).
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
    /// Rating changes over the event's played games: Glicko-2 and the US Chess estimate
    /// (the assumptions are in docs/events.md, "Rating changes").
    Ratings {
        /// The event file.
        file: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
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
    /// Export: TRF-2026, PGN, standings CSV, crosstable or JSON (stdout or -o). With
    /// `--server URL --token T`: the event file of a server's evening (JSON).
    Export {
        /// The event file (not with --server).
        #[arg(required_unless_present = "server")]
        file: Option<PathBuf>,
        /// What to export (with --server: json only, the default).
        #[arg(long = "as", value_enum)]
        kind: Option<ExportKind>,
        /// Output file (written atomically); stdout if absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// A server's evening: http://HOST:PORT/api/events/ID (or the server and --event).
        #[arg(long, conflicts_with = "file", requires = "token")]
        server: Option<String>,
        /// The evening's director token.
        #[arg(long)]
        token: Option<String>,
        /// The evening's id, when the URL does not name it.
        #[arg(long)]
        event: Option<String>,
    },
    /// Put an event file on a server as a new evening (played on boards); prints the
    /// evening's id, director token and URLs.
    Import {
        /// The event file.
        file: PathBuf,
        /// The server: http://HOST:PORT.
        #[arg(long)]
        server: String,
    },
}

/// Run `flagfall event`: one handler per subcommand.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let by = args.by;
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
            check_in,
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
            event.set_site(site.as_deref())?;
            event.initial_colour = initial_colour;
            event.check_in = check_in;
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
            uscf_id,
            checked_in,
            csv,
            trf,
        } => {
            let one = name.map(|name| NewPlayer {
                name,
                rating,
                federation,
                fide_id,
                uscf_id,
            });
            let new_players = players_to_add(one, csv, trf)?;
            add_players(&file, new_players, checked_in, &by)?;
        }
        EventCommand::RemovePlayer { file, player } => {
            apply(&file, &by, vec![Change::RemovePlayer { player }])?;
            println!("player {player} removed");
        }
        EventCommand::CheckIn { file, players, out } => {
            let changes = players
                .into_iter()
                .map(|player| {
                    if out {
                        Change::CheckOut { player }
                    } else {
                        Change::CheckIn { player }
                    }
                })
                .collect();
            let event = apply(&file, &by, changes)?;
            let checked = event.players.iter().filter(|p| p.checked_in).count();
            println!(
                "{checked} of {} players checked in{}",
                event.players.len(),
                if event.check_in {
                    ""
                } else {
                    " (this event pairs everyone present; `event new --check-in` asks for check-in)"
                }
            );
        }
        EventCommand::Pause {
            file,
            player,
            resume,
        } => {
            let change = if resume {
                Change::Resume { player }
            } else {
                Change::Pause { player }
            };
            apply(&file, &by, vec![change])?;
            println!(
                "player {player} {}",
                if resume {
                    "is paired again from the next round"
                } else {
                    "is paused: not paired until `event pause --resume`"
                }
            );
        }
        EventCommand::Withdraw {
            file,
            player,
            from_round,
            undo,
        } => {
            if undo {
                apply(&file, &by, vec![Change::Reinstate { player }])?;
                println!("player {player} is paired again from the next round");
            } else {
                let change = Change::Withdraw { player, from_round };
                let event = apply(&file, &by, vec![change])?;
                let from = event.player(player)?.withdrawn_from.unwrap_or_default();
                println!("player {player} withdrawn from round {from} on");
            }
        }
        EventCommand::Bye {
            file,
            player,
            round,
            kind,
            cancel,
        } => {
            if cancel {
                apply(&file, &by, vec![Change::CancelBye { player, round }])?;
                println!("player {player}: no bye in round {round}");
            } else {
                let change = Change::RequestBye {
                    player,
                    round,
                    kind,
                };
                apply(&file, &by, vec![change])?;
                println!("player {player}: {kind:?} bye in round {round}");
            }
        }
        EventCommand::Forbid {
            file,
            a,
            b,
            note,
            allow,
        } => {
            let change = if allow {
                Change::Allow { a, b }
            } else {
                Change::Forbid { a, b, note }
            };
            apply(&file, &by, vec![change])?;
            println!(
                "players {a} and {b} {}",
                if allow {
                    "may be paired together again"
                } else {
                    "will not be paired together"
                }
            );
        }
        EventCommand::LoadRatings { file, list, rating } => {
            load_ratings(&file, &list, rating, &by)?;
        }
        EventCommand::ReportInfo {
            file,
            end_date,
            city,
            state,
            zip,
            country,
            federation,
            chief_arbiter,
            deputy_arbiters,
            uscf_affiliate,
            uscf_chief_td,
            uscf_assistant_td,
        } => {
            let info = change(&file, |event| {
                let mut r = event.report.clone();
                for (slot, value) in [
                    (&mut r.end_date, end_date),
                    (&mut r.city, city),
                    (&mut r.state, state),
                    (&mut r.zip, zip),
                    (&mut r.country, country),
                    (&mut r.federation, federation),
                    (&mut r.chief_arbiter, chief_arbiter),
                    (&mut r.deputy_arbiters, deputy_arbiters),
                    (&mut r.uscf_affiliate, uscf_affiliate),
                    (&mut r.uscf_chief_td, uscf_chief_td),
                    (&mut r.uscf_assistant_td, uscf_assistant_td),
                ] {
                    if let Some(v) = value {
                        *slot = Some(v).filter(|v| !v.trim().is_empty());
                    }
                }
                event.set_report(r)?;
                Ok(event.report.clone())
            })?;
            println!("{}", serde_json::to_string_pretty(&info)?);
        }
        EventCommand::Log { file, json } => print_log(&file, json)?,
        EventCommand::Pair { file } => {
            let event = apply(&file, &by, vec![Change::PairNext])?;
            print!("{}", export::round_text(&event, event.rounds_paired())?);
        }
        EventCommand::Unpair { file } => {
            let round = load(&file)?.rounds_paired();
            apply(&file, &by, vec![Change::DeleteRound { round }])?;
            println!("round {round} removed");
        }
        EventCommand::Override {
            file,
            round,
            boards,
            byes,
        } => {
            let change = Change::Override {
                round,
                boards,
                byes,
            };
            let event = apply(&file, &by, vec![change])?;
            print!("{}", export::round_text(&event, round)?);
        }
        EventCommand::Result {
            file,
            round,
            board,
            results,
        } => {
            let shown: Vec<&str> = results.iter().map(|r| r.short()).collect();
            let line = format!("round {round} board {board}: {}", shown.join(" "));
            let change = Change::SetResults {
                round,
                board,
                results,
            };
            let event = apply(&file, &by, vec![change])?;
            println!("{line}");
            if event.rounds_paired() > round
                && event.log.last().is_some_and(|l| {
                    l.effects
                        .iter()
                        .any(|e| matches!(e, Effect::Repaired { .. }))
                })
            {
                print!("{}", export::round_text(&event, event.rounds_paired())?);
            }
        }
        EventCommand::Results { file, round } => enter_results(&file, round, &by)?,
        EventCommand::Show { file, round } => show_round(&file, round)?,
        EventCommand::Standings {
            file,
            after_round,
            tiebreaks,
            output,
        } => print_standings(&file, after_round, tiebreaks.as_deref(), output)?,
        EventCommand::Ratings { file, json } => {
            let event = load(&file)?;
            let rows = flagfall_events::rating_report::rating_changes(&event)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                print!("{}", flagfall_events::rating_report::table(&rows));
            }
        }
        EventCommand::Tiebreaks { file, list } => {
            let event = apply(&file, &by, vec![Change::SetTiebreaks { list }])?;
            println!("tiebreak order: {}", event.tiebreaks);
        }
        EventCommand::Export {
            file,
            kind,
            output,
            server,
            token,
            event,
        } => match (server, file) {
            (Some(server), _) => {
                if kind.is_some_and(|k| !matches!(k, ExportKind::Json)) {
                    bail!(
                        "from a server, `event export` writes the event file (--as json); the server's /export routes give TRF, PGN and CSV"
                    );
                }
                let token = token.ok_or_else(|| anyhow!("--server needs --token"))?;
                let text = crate::event_server::export(&server, event.as_deref(), &token)?;
                match output {
                    Some(path) => {
                        write_atomically(&path, text.as_bytes())?;
                        println!("wrote {}", path.display());
                    }
                    None => print!("{text}"),
                }
            }
            (None, Some(file)) => {
                let kind = kind.ok_or_else(|| {
                    anyhow!("give --as (trf, pgn, csv, crosstable, json, uscf-dbf)")
                })?;
                export_event(&file, kind, output)?;
            }
            (None, None) => bail!("give the event file, or --server and --token"),
        },
        EventCommand::Import { file, server } => {
            let text = fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            println!("{}", crate::event_server::import(&server, &text, None)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Milliseconds since the Unix epoch: the `at` of the changes logged (the library takes
/// the time as a parameter; the program reads the clock).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Load the event, apply the changes in order (all or none: the file is written only when
/// every change is made), save it, tell what followed (stderr); returns the event saved.
fn apply(file: &Path, by: &str, changes: Vec<Change>) -> anyhow::Result<Event> {
    let mut event = load(file)?;
    let origin = Origin::new(by, now_ms());
    let mut effects = Vec::new();
    for c in changes {
        effects.extend(event.apply(c, &origin)?);
    }
    save(file, &event)?;
    for e in &effects {
        if let Some(line) = describe_effect(e) {
            eprintln!("{line}");
        }
    }
    Ok(event)
}

/// What the director should be told about an effect (on stderr, so that stdout keeps the
/// command's own output); `None` for the routine ones.
fn describe_effect(effect: &Effect) -> Option<String> {
    Some(match effect {
        Effect::PairingReplaced { warnings, .. } if !warnings.is_empty() => warnings
            .iter()
            .map(|w| format!("warning: {w}"))
            .collect::<Vec<_>>()
            .join("\n"),
        Effect::Repaired { round } => format!(
            "round {round} was paired again to follow the correction (nothing in it had been played)"
        ),
        Effect::PairingKept { reason, .. } => format!("note: {reason}"),
        Effect::RoundComplete { round } => format!("round {round} is complete"),
        Effect::Renumbered => "pairing numbers changed (see `event show`)".into(),
        _ => return None,
    })
}

/// `event load-ratings`: look the players up in a FIDE rating list and fill what it has.
fn load_ratings(file: &Path, list: &Path, rating: ListRating, by: &str) -> anyhow::Result<()> {
    let bytes = fs::read(list).with_context(|| format!("cannot read {}", list.display()))?;
    // FIDE's lists are ASCII with Latin-1 or UTF-8 names: read as UTF-8 when it is, else
    // as Latin-1 (every byte a character).
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    };
    let event = load(file)?;
    let source = list.display().to_string();
    let found = rating_list::lookup(&text, &source, &event.players, rating)?;
    if !found.updates.is_empty() {
        let updates = found.updates.clone();
        apply(file, by, vec![Change::UpdatePlayers { updates }])?;
    }
    let by_id = found.found.iter().filter(|f| f.2 == FoundBy::Id).count();
    println!(
        "{} of {} players found ({by_id} by FIDE id, {} by name) in {} lines{}",
        found.found.len(),
        event.players.len(),
        found.found.len() - by_id,
        found.lines,
        if found.single_list {
            "; a single list: its one rating was used"
        } else {
            ""
        }
    );
    let name = |id: u32| event.player(id).map(|p| p.name.clone()).unwrap_or_default();
    for id in &found.unknown_ids {
        println!(
            "not in the list: player {id} ({}), FIDE id not found",
            name(*id)
        );
    }
    for id in &found.not_found {
        println!("not in the list: player {id} ({}), no such name", name(*id));
    }
    for (id, ids) in &found.ambiguous {
        let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
        println!(
            "ambiguous: player {id} ({}) could be FIDE {}; give the FIDE id or the federation",
            name(*id),
            ids.join(", ")
        );
    }
    for id in &found.unrated {
        println!(
            "listed without a {} rating: player {id} ({})",
            format!("{rating:?}").to_lowercase(),
            name(*id)
        );
    }
    Ok(())
}

/// `event log`: every change, oldest first.
fn print_log(file: &Path, json: bool) -> anyhow::Result<()> {
    let event = load(file)?;
    for entry in &event.log {
        if json {
            println!("{}", serde_json::to_string(entry)?);
        } else {
            let change = serde_json::to_string(&entry.change)?;
            let before = if entry.before.is_empty() {
                String::new()
            } else {
                format!("; before: {}", serde_json::to_string(&entry.before)?)
            };
            println!(
                "#{} at {} by {}: {change}{before}",
                entry.seq, entry.at, entry.by
            );
        }
    }
    Ok(())
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
        event.set_date(Some(&d))?;
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
fn add_players(
    file: &Path,
    new_players: Vec<NewPlayer>,
    checked_in: bool,
    by: &str,
) -> anyhow::Result<()> {
    if new_players.is_empty() {
        bail!("no players to add");
    }
    let mut event = load(file)?;
    let origin = Origin::new(by, now_ms());
    let count = new_players.len();
    let mut numbers = Vec::with_capacity(count);
    for (i, p) in new_players.into_iter().enumerate() {
        let shown = p.name.clone();
        let effects = event
            .apply(
                Change::AddPlayer {
                    player: p,
                    check_in: checked_in,
                },
                &origin,
            )
            .with_context(|| format!("player #{} ({shown:?})", i + 1))?;
        let id = effects
            .iter()
            .find_map(|e| match e {
                Effect::PlayerAdded { player, .. } => Some(*player),
                _ => None,
            })
            .unwrap_or_default();
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
fn enter_results(file: &Path, round: u32, by: &str) -> anyhow::Result<()> {
    let mut event = load(file)?;
    let origin = Origin::new(by, now_ms());
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
    let mut effects = Vec::new();
    for l in &lines {
        effects.extend(
            event
                .apply(
                    Change::SetResults {
                        round,
                        board: l.board,
                        results: l.results.clone(),
                    },
                    &origin,
                )
                .with_context(|| format!("stdin line {}", l.line))?,
        );
    }
    save(file, &event)?;
    for e in &effects {
        if let Some(line) = describe_effect(e) {
            eprintln!("{line}");
        }
    }
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
    if let ExportKind::UscfDbf = kind {
        let Some(dir) = output else {
            bail!("--as uscf-dbf writes three files: give the folder with -o");
        };
        let files = uscf::report(&event, today())?;
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for (name, bytes) in files.named() {
            write_atomically(&dir.join(name), bytes)?;
        }
        for note in &files.notes {
            eprintln!("note: {note}");
        }
        println!(
            "wrote THEXPORT.DBF, TSEXPORT.DBF and TDEXPORT.DBF in {}",
            dir.display()
        );
        return Ok(());
    }
    let text = match kind {
        ExportKind::UscfDbf => unreachable!("handled above"),
        ExportKind::Trf => export::trf(&event)?,
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

/// Today's date (UTC) for the DBF files' header.
fn today() -> uscf::FileDate {
    uscf::FileDate::of_unix_ms(now_ms())
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
