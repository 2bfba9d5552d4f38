//! The evening's rating changes: Glicko-2 and the US Chess estimate for every player,
//! computed from the event's played games (a forfeit or a bye is not a rated game).
//!
//! An event file holds each player's rating but not the rest of their rating history, so
//! some inputs are assumptions, written here and in docs/events.md:
//!
//! - **Glicko-2.** The evening is one rating period. A rated player starts from their
//!   rating with a deviation of [`RATED_DEVIATION`] (an established, active rating); an
//!   unrated player from 1500 with 350, Glickman's value for a new player. Volatility
//!   0.06 and τ 0.5, the paper's example values.
//! - **US Chess.** A rated player is taken as established, on [`ESTABLISHED_GAMES`] prior
//!   games (the effective number N′ then depends on the rating alone), so the standard
//!   formula applies. An unrated player has no prior games (the special formula). US Chess
//!   step 1 imputes a prior for them from age or other ratings, which the event does not
//!   hold: flagfall uses their performance against rated opponents in the event (1500 when
//!   there is none) as the rating their opponents meet in the first of the two passes.
//!   The bonus threshold is 14 (since 2021).
//!
//! These are estimates for the club's evening; the official ratings are the federations'.

use crate::event::{Event, RecordedResult};
use crate::rating::{
    Glicko2Game, Glicko2Rating, RatingError, UsEventGame, UsFormula, UsGame, UsPrior,
    glicko2_update, us_performance, us_rate_event,
};
use serde::Serialize;

/// The Glicko-2 deviation assumed for a player with a rating.
pub const RATED_DEVIATION: f64 = 150.0;
/// The deviation of an unrated player (Glickman: a new player).
pub const UNRATED_DEVIATION: f64 = 350.0;
/// The rating of an unrated player (Glicko-2's starting rating, and the US stand-in when
/// they met no rated opponent).
pub const UNRATED_RATING: f64 = 1500.0;
/// The prior US Chess games assumed for a rated player.
pub const ESTABLISHED_GAMES: u32 = 50;
/// Glicko-2's starting volatility.
pub const VOLATILITY: f64 = 0.06;
/// Glicko-2's τ.
pub const TAU: f64 = 0.5;
/// US Chess's bonus threshold.
pub const US_BONUS_THRESHOLD: f64 = 14.0;

/// One player's rating change over the event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    /// Pairing number.
    pub number: u32,
    /// Name.
    pub name: String,
    /// Rating before the event, if any.
    pub rating: Option<u32>,
    /// Rated games played (forfeits and byes are not).
    pub games: u32,
    /// Points in those games.
    pub score: f64,
    /// Glicko-2 rating, deviation and volatility before and after.
    pub glicko2_before: Glicko2Value,
    /// After.
    pub glicko2_after: Glicko2Value,
    /// The US Chess estimate after the event (unrounded, as the system keeps it).
    pub us_after: f64,
    /// Its change from the rating before (`None` for an unrated player).
    pub us_change: Option<f64>,
    /// Which formula: `"standard"` or `"special"`.
    pub us_formula: &'static str,
    /// Still provisional after the event (25 or fewer games).
    pub us_provisional: bool,
    /// The US Chess performance rating of the event on its own (`None` without games).
    pub performance: Option<f64>,
}

/// A Glicko-2 rating as reported.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Glicko2Value {
    /// Rating.
    pub rating: f64,
    /// Deviation.
    pub deviation: f64,
    /// Volatility.
    pub volatility: f64,
}

impl From<Glicko2Rating> for Glicko2Value {
    fn from(r: Glicko2Rating) -> Self {
        Glicko2Value {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

/// A played game between two players' indices into `event.players`: White's score.
struct Played {
    white: usize,
    black: usize,
    white_score: f64,
}

fn played_games(event: &Event) -> Vec<Played> {
    let index = |id: u32| event.players.iter().position(|p| p.id == id);
    let mut out = Vec::new();
    for round in &event.round_list {
        for board in &round.boards {
            for (g, record) in board.games.iter().enumerate() {
                let white_score = match record.result {
                    RecordedResult::WhiteWins => 1.0,
                    RecordedResult::Draw => 0.5,
                    RecordedResult::BlackWins => 0.0,
                    _ => continue,
                };
                let (w, b) = board.players_of_game(g);
                if let (Some(white), Some(black)) = (index(w), index(b)) {
                    out.push(Played {
                        white,
                        black,
                        white_score,
                    });
                }
            }
        }
    }
    out
}

fn glicko_before(rating: Option<u32>) -> Glicko2Rating {
    match rating {
        Some(r) => Glicko2Rating {
            rating: f64::from(r),
            deviation: RATED_DEVIATION,
            volatility: VOLATILITY,
        },
        None => Glicko2Rating {
            rating: UNRATED_RATING,
            deviation: UNRATED_DEVIATION,
            volatility: VOLATILITY,
        },
    }
}

/// Each player's games as (opponent index, own score).
fn per_player(n: usize, games: &[Played]) -> Vec<Vec<(usize, f64)>> {
    let mut mine = vec![Vec::new(); n];
    for g in games {
        mine[g.white].push((g.black, g.white_score));
        mine[g.black].push((g.white, 1.0 - g.white_score));
    }
    mine
}

/// Every player's rating change over the event's played games, in pairing-number order.
pub fn rating_changes(event: &Event) -> Result<Vec<PlayerRating>, RatingError> {
    let n = event.players.len();
    let games = played_games(event);
    let mine = per_player(n, &games);
    let before: Vec<Glicko2Rating> = event
        .players
        .iter()
        .map(|p| glicko_before(p.rating))
        .collect();
    // The US stand-in for an unrated player: their performance against rated opponents.
    let us_prior_rating: Vec<f64> = event
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| match p.rating {
            Some(r) => Ok(f64::from(r)),
            None => {
                let against_rated: Vec<UsGame> = mine[i]
                    .iter()
                    .filter_map(|&(o, score)| {
                        event.players[o].rating.map(|r| UsGame {
                            opponent_rating: f64::from(r),
                            score,
                        })
                    })
                    .collect();
                if against_rated.is_empty() {
                    Ok(UNRATED_RATING)
                } else {
                    us_performance(&against_rated)
                }
            }
        })
        .collect::<Result<_, _>>()?;
    let priors: Vec<UsPrior> = event
        .players
        .iter()
        .zip(&us_prior_rating)
        .map(|(p, &rating)| UsPrior {
            rating,
            games: if p.rating.is_some() {
                ESTABLISHED_GAMES
            } else {
                0
            },
            all_wins: false,
            all_losses: false,
        })
        .collect();
    let us_games: Vec<UsEventGame> = games
        .iter()
        .map(|g| UsEventGame {
            a: g.white,
            b: g.black,
            score_a: g.white_score,
        })
        .collect();
    let us = us_rate_event(&priors, &us_games, US_BONUS_THRESHOLD)?;
    event
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let glicko_games: Vec<Glicko2Game> = mine[i]
                .iter()
                .map(|&(o, score)| Glicko2Game {
                    opponent_rating: before[o].rating,
                    opponent_deviation: before[o].deviation,
                    score,
                })
                .collect();
            let after = glicko2_update(before[i], &glicko_games, TAU)?;
            let us_games: Vec<UsGame> = mine[i]
                .iter()
                .map(|&(o, score)| UsGame {
                    opponent_rating: us_prior_rating[o],
                    score,
                })
                .collect();
            let performance = if us_games.is_empty() {
                None
            } else {
                Some(us_performance(&us_games)?)
            };
            Ok(PlayerRating {
                number: p.id,
                name: p.name.clone(),
                rating: p.rating,
                games: mine[i].len() as u32,
                score: mine[i].iter().map(|&(_, s)| s).sum(),
                glicko2_before: before[i].into(),
                glicko2_after: after.into(),
                us_after: us[i].rating,
                us_change: p.rating.map(|r| us[i].rating - f64::from(r)),
                us_formula: match us[i].formula {
                    UsFormula::Standard => "standard",
                    UsFormula::Special => "special",
                },
                us_provisional: us[i].provisional,
                performance,
            })
        })
        .collect()
}

/// The rating changes as a text table (the CLI prints it).
pub fn table(rows: &[PlayerRating]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    // Three columns for the number, more for an event of 1,000 players or more.
    let most = rows.iter().map(|r| r.number as usize).max().unwrap_or(0);
    let nw = crate::numbers::columns(most, 3);
    let _ = writeln!(
        out,
        "{:>nw$}  {:<24} {:>6} {:>5} {:>5}  {:>14}  {:>14}  {:>11}",
        "No", "Name", "Rating", "Games", "Score", "Glicko-2 after", "US est. after", "Performance"
    );
    for r in rows {
        let rating = r.rating.map_or("-".to_string(), |x| x.to_string());
        let glicko = format!(
            "{:.0} ±{:.0}",
            r.glicko2_after.rating, r.glicko2_after.deviation
        );
        let us = match r.us_change {
            Some(d) => format!("{:.0} ({:+.0})", r.us_after, d),
            None => format!("{:.0} (P{})", r.us_after, r.games),
        };
        let perf = r.performance.map_or("-".to_string(), |x| format!("{x:.0}"));
        let _ = writeln!(
            out,
            "{:>nw$}  {:<24} {:>6} {:>5} {:>5}  {:>14}  {:>14}  {:>11}",
            r.number,
            r.name.chars().take(24).collect::<String>(),
            rating,
            r.games,
            r.score,
            glicko,
            us,
            perf
        );
    }
    out
}
