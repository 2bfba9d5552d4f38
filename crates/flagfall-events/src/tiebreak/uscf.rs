//! US Chess tiebreaks (Official Rules of Chess, 7th ed., rule 34E).
//!
//! Interpretations written down here, applying to all of them:
//!
//! - Opponents' scores are *adjusted*: every round an opponent did not play over the board
//!   (bye, forfeit, absence) counts as a draw in every game of the round (34E1).
//! - A player's own unplayed round counts as an opponent with an adjusted score of zero (34E1),
//!   so it is the first value a median drops.
//! - A round with several games (a match) is one opponent with one adjusted score.

use super::analysis::{Analysis, Kind};
use super::crosstable::{Colour, GameOutcome};
use super::value::Value;

/// Adjusted score (half-points): played rounds at their points, others as draws.
fn adjusted(a: &Analysis<'_>) -> Vec<i64> {
    a.rounds
        .iter()
        .map(|row| {
            row.iter()
                .map(|info| {
                    if info.kind == Kind::Played {
                        i64::from(info.points)
                    } else {
                        i64::from(a.g)
                    }
                })
                .sum()
        })
        .collect()
}

/// Adjusted opponent score per round (0 for the player's own unplayed rounds), in half-points.
fn opponent_values(a: &Analysis<'_>, adj: &[i64], p: usize) -> Vec<i64> {
    a.rounds[p]
        .iter()
        .map(|info| match (info.kind, info.opponent) {
            (Kind::Played, Some(o)) => adj[o],
            _ => 0,
        })
        .collect()
}

/// Sum after dropping the `low` lowest and `high` highest values.
fn trimmed_sum(mut v: Vec<i64>, low: usize, high: usize) -> i64 {
    v.sort_unstable();
    if low + high >= v.len() {
        return 0;
    }
    v[low..v.len() - high].iter().sum()
}

/// How many values a median drops at each end: 2 in events of 9 or more rounds, else 1 (34E1,
/// 34E9).
fn median_depth(a: &Analysis<'_>) -> usize {
    if a.ct.rounds >= 9 { 2 } else { 1 }
}

/// Modified median (34E1): players with more than 50% drop their lowest opponents, players
/// with less than 50% their highest, players on exactly 50% both.
pub(crate) fn modified_median(a: &Analysis<'_>) -> Vec<Value> {
    let adj = adjusted(a);
    let k = median_depth(a);
    let half_of_max = i64::from(a.g) * i64::from(a.ct.rounds); // 50% in half-points
    (0..a.players())
        .map(|p| {
            let score = i64::from(a.score[p]);
            let (low, high) = match score.cmp(&half_of_max) {
                std::cmp::Ordering::Greater => (k, 0),
                std::cmp::Ordering::Less => (0, k),
                std::cmp::Ordering::Equal => (k, k),
            };
            Value::half_points(trimmed_sum(opponent_values(a, &adj, p), low, high))
        })
        .collect()
}

/// Solkoff (34E2): sum of the adjusted scores of all opponents.
pub(crate) fn solkoff(a: &Analysis<'_>) -> Vec<Value> {
    let adj = adjusted(a);
    (0..a.players())
        .map(|p| Value::half_points(opponent_values(a, &adj, p).iter().sum()))
        .collect()
}

/// Median, also called Harkness (34E9): drops the highest and the lowest whatever the score.
pub(crate) fn median(a: &Analysis<'_>) -> Vec<Value> {
    let adj = adjusted(a);
    let k = median_depth(a);
    (0..a.players())
        .map(|p| Value::half_points(trimmed_sum(opponent_values(a, &adj, p), k, k)))
        .collect()
}

/// Cumulative (34E3), in half-points: the running score after every round, summed, minus the
/// points each round gave without play (byes, forfeit wins). Interpretation: the deduction is
/// the points of the unplayed round itself, once (1 for a forfeit win or full-point bye, ½ for
/// a half-point bye).
fn cumulative_half(a: &Analysis<'_>) -> Vec<i64> {
    a.rounds
        .iter()
        .map(|row| {
            let mut running = 0i64;
            let mut total = 0i64;
            for info in row {
                running += i64::from(info.points);
                total += running;
                if info.kind != Kind::Played {
                    total -= i64::from(info.points);
                }
            }
            total
        })
        .collect()
}

/// Cumulative (34E3).
pub(crate) fn cumulative(a: &Analysis<'_>) -> Vec<Value> {
    cumulative_half(a)
        .into_iter()
        .map(Value::half_points)
        .collect()
}

/// Cumulative scores of opposition (34E4): the sum of the cumulative tiebreaks of the
/// opponents met over the board.
pub(crate) fn opponents_cumulative(a: &Analysis<'_>) -> Vec<Value> {
    let cum = cumulative_half(a);
    (0..a.players())
        .map(|p| {
            let s: i64 = a.rounds[p]
                .iter()
                .filter(|i| i.kind == Kind::Played)
                .filter_map(|i| i.opponent.map(|o| cum[o]))
                .sum();
            Value::half_points(s)
        })
        .collect()
}

/// Most blacks (34E6): games played over the board with Black.
pub(crate) fn most_blacks(a: &Analysis<'_>) -> Vec<Value> {
    (0..a.players())
        .map(|p| {
            let n = a.rounds[p]
                .iter()
                .filter(|i| i.kind == Kind::Played)
                .flat_map(|i| i.games.iter())
                .filter(|g| g.colour == Colour::Black && g.outcome.is_played())
                .count();
            Value::int(n as i64)
        })
        .collect()
}

/// Kashdan (34E7): 4 per win, 2 per draw, 1 per loss over the board; unplayed games 0.
pub(crate) fn kashdan(a: &Analysis<'_>) -> Vec<Value> {
    (0..a.players())
        .map(|p| {
            let s: i64 = a.rounds[p]
                .iter()
                .flat_map(|i| i.games.iter())
                .map(|g| match g.outcome {
                    GameOutcome::Win => 4,
                    GameOutcome::Draw => 2,
                    GameOutcome::Loss => 1,
                    _ => 0,
                })
                .sum();
            Value::int(s)
        })
        .collect()
}

/// Sonneborn-Berger (34E8): adjusted scores of the opponents beaten plus half those drawn
/// (in general: adjusted score times points scored in the round); own unplayed rounds add 0.
pub(crate) fn sonneborn_berger(a: &Analysis<'_>) -> Vec<Value> {
    let adj = adjusted(a);
    (0..a.players())
        .map(|p| {
            let s: i64 = a.rounds[p]
                .iter()
                .filter(|i| i.kind == Kind::Played)
                .filter_map(|i| i.opponent.map(|o| adj[o] * i64::from(i.points)))
                .sum();
            Value::new(s, 4)
        })
        .collect()
}
