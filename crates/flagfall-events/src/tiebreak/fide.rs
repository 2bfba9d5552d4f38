//! FIDE C.07 tiebreaks computed per player (everything but Direct Encounter, see `encounter`).

use super::analysis::{Analysis, Kind, RoundInfo};
use super::crosstable::{Colour, Crosstable, CrosstableGame, GameOutcome, RoundEntry};
use super::value::Value;
use super::{Modifier, TiebreakError};
use crate::rating;

/// One addend of a "sum of values" tiebreak, with what the cut rules need (C.07 art. 14,
/// 16.5): the opponent's score (how significant the addend is), the addend itself, and whether
/// it comes from a voluntarily unplayed round. Both numbers are exact integers in quarter
/// points (a score in half-points times points in half-points is a multiple of ¼).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addend {
    pub key: i64,
    pub value: i64,
    pub vur: bool,
}

/// Applies a Cut/Median modifier to addends and sums what is left.
///
/// - Least significant: lowest `key`, ties by lowest `value` (C.07 14.1.1: for SB the product
///   of the lowest-scoring opponent, the lowest product among equals).
/// - 16.5: when the participant has voluntarily unplayed rounds left, the lowest VUR addend is
///   cut instead of the least significant one, unless it is lower than the least significant
///   value (so for SB the higher of the two is cut; for BH the VUR always goes first).
/// - Most significant (Median): highest `key`, ties by highest `value`; no VUR exception.
/// - Median-n cuts the low end first, then the high end (14.3, 14.4).
pub(crate) fn cut_sum(mut addends: Vec<Addend>, modifier: Modifier) -> Value {
    let (low, high) = modifier.cuts();
    for _ in 0..low {
        let Some(least) = (0..addends.len()).min_by(|&a, &b| {
            (addends[a].key, addends[a].value).cmp(&(addends[b].key, addends[b].value))
        }) else {
            break;
        };
        let lowest_vur = (0..addends.len())
            .filter(|&i| addends[i].vur)
            .min_by_key(|&i| addends[i].value);
        let cut = match lowest_vur {
            Some(v) if addends[v].value >= addends[least].value => v,
            _ => least,
        };
        addends.swap_remove(cut);
    }
    for _ in 0..high {
        let Some(most) = (0..addends.len()).max_by(|&a, &b| {
            (addends[a].key, addends[a].value).cmp(&(addends[b].key, addends[b].value))
        }) else {
            break;
        };
        addends.swap_remove(most);
    }
    Value::new(addends.iter().map(|a| a.value).sum(), 4)
}

/// Buchholz / Sonneborn-Berger addends of one player (C.07 8.1, 9.1, art. 16).
///
/// - Round played (or, in a round robin, forfeited: 15.2): the opponent's score as opponents
///   see it (16.3).
/// - Swiss unplayed round: a dummy opponent (16.4) whose score is given by
///   [`Analysis::dummy`]; the round's own points are the result against it.
/// - Round-robin bye (odd number of players): no addend.
///
/// For SB the addend is that score times the points scored in the round.
fn opponent_addends(a: &Analysis<'_>, p: usize, sb: bool) -> Vec<Addend> {
    let mut out = Vec::with_capacity(a.rounds[p].len());
    for info in &a.rounds[p] {
        let opp_score = if a.counts_as_game(info) {
            match info.opponent {
                Some(o) => a.adjusted[o],
                None => continue,
            }
        } else if a.is_rr() {
            continue;
        } else {
            a.dummy(p, info)
        };
        let key = 2 * i64::from(opp_score);
        let value = if sb {
            i64::from(opp_score) * i64::from(info.points)
        } else {
            key
        };
        out.push(Addend {
            key,
            value,
            vur: !a.is_rr() && info.kind.is_vur(),
        });
    }
    out
}

/// Buchholz (C.07 8.1) with a modifier (14.1-14.4, 16.5).
pub(crate) fn buchholz(a: &Analysis<'_>, modifier: Modifier) -> Vec<Value> {
    (0..a.players())
        .map(|p| cut_sum(opponent_addends(a, p, false), modifier))
        .collect()
}

/// Sonneborn-Berger (C.07 9.1) with a modifier.
pub(crate) fn sonneborn_berger(a: &Analysis<'_>, modifier: Modifier) -> Vec<Value> {
    (0..a.players())
        .map(|p| cut_sum(opponent_addends(a, p, true), modifier))
        .collect()
}

/// The crosstable with every pairing of the final round turned into draws over the board, as
/// Fore Buchholz (C.07 8.3) requires. Interpretation: final-round forfeits are pairings too and
/// become draws; final-round byes keep their points.
pub(crate) fn fore_crosstable(ct: &Crosstable) -> Crosstable {
    let mut fore = ct.clone();
    if ct.rounds == 0 {
        return fore;
    }
    let last = ct.rounds as usize - 1;
    for row in &mut fore.results {
        if let Some(RoundEntry::Paired { games, .. }) = row.get_mut(last) {
            for gm in games.iter_mut() {
                *gm = CrosstableGame {
                    colour: gm.colour,
                    outcome: GameOutcome::Draw,
                };
            }
        }
    }
    fore
}

/// Average of Opponents' Buchholz (C.07 8.2): the mean plain Buchholz of the opponents met
/// over the board (one term per encounter, 4.4).
pub(crate) fn average_opponents_buchholz(a: &Analysis<'_>) -> Vec<Value> {
    let bh = buchholz(a, Modifier::None);
    (0..a.players())
        .map(|p| {
            let opps: Vec<usize> = a.rounds[p]
                .iter()
                .filter(|r| r.kind == Kind::Played)
                .filter_map(|r| r.opponent)
                .collect();
            let sum: Value = opps.iter().map(|&o| bh[o]).sum();
            sum * Value::new(1, opps.len() as i64)
        })
        .collect()
}

/// Number of Wins (C.07 7.1): games in which the points of a win were obtained, played or not;
/// byes worth a win count once per game of the round. A pairing-allocated bye the event
/// values below that (e.g. 1½ of a two-game match) counts the wins its points hold
/// (**interpretation**: one win for 1½).
pub(crate) fn wins(a: &Analysis<'_>) -> Vec<Value> {
    per_player(a, |info| match info.kind {
        Kind::Pab => (info.points / 2) as i64,
        Kind::FullBye => a.g as i64,
        _ => info
            .games
            .iter()
            .filter(|g| matches!(g.outcome, GameOutcome::Win | GameOutcome::ForfeitWin))
            .count() as i64,
    })
}

/// Number of Games Won over the board (7.2).
pub(crate) fn games_won(a: &Analysis<'_>) -> Vec<Value> {
    per_player(a, |info| {
        a.otb_games(info)
            .filter(|(_, o)| matches!(o, GameOutcome::Win | GameOutcome::ForfeitWin))
            .count() as i64
    })
}

/// Number of Games Played with Black (7.3).
pub(crate) fn black_games(a: &Analysis<'_>) -> Vec<Value> {
    per_player(a, |info| {
        a.otb_games(info)
            .filter(|(c, _)| *c == Colour::Black)
            .count() as i64
    })
}

/// Number of Games Won with Black (7.4).
pub(crate) fn black_wins(a: &Analysis<'_>) -> Vec<Value> {
    per_player(a, |info| {
        a.otb_games(info)
            .filter(|(c, o)| {
                *c == Colour::Black && matches!(o, GameOutcome::Win | GameOutcome::ForfeitWin)
            })
            .count() as i64
    })
}

/// Rounds one Elected to Play (7.6, "GE" before August 2024): rounds minus half-point byes,
/// zero-point byes (including absences, 16.1.1) and forfeit losses. In a round robin the only
/// unplayed rounds are forfeits (15.2), so the free round of an odd-sized round robin is not
/// subtracted; forfeit losses are.
pub(crate) fn rounds_elected(a: &Analysis<'_>) -> Vec<Value> {
    let rr = a.is_rr();
    per_player(a, |info| {
        let subtract = if rr {
            info.kind == Kind::ForfeitLoss
        } else {
            info.kind.is_vur()
        };
        i64::from(!subtract)
    })
}

/// Standard Points (7.7, 2026 edition): 1 per round scoring more than the scheduled opponent
/// (or more than a draw without playing), ½ per round scoring the same.
pub(crate) fn standard_points(a: &Analysis<'_>, ct: &Crosstable) -> Vec<Value> {
    (0..a.players())
        .map(|p| {
            let mut halves = 0i64;
            for (r, info) in a.rounds[p].iter().enumerate() {
                let other = match info.opponent {
                    Some(o) => a.rounds[o][r].points,
                    None => ct.games_per_round, // a draw in every game
                };
                halves += match info.points.cmp(&other) {
                    std::cmp::Ordering::Greater => 2,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Less => 0,
                };
            }
            Value::half_points(halves)
        })
        .collect()
}

fn per_player(a: &Analysis<'_>, f: impl Fn(&RoundInfo<'_>) -> i64) -> Vec<Value> {
    a.rounds
        .iter()
        .map(|row| Value::int(row.iter().map(&f).sum()))
        .collect()
}

/// (Sum of) Progressive Scores (7.5): the running score after each round, summed; Cut-n drops
/// the first n rounds' running scores (14.1.1).
pub(crate) fn progressive(a: &Analysis<'_>, modifier: Modifier) -> Vec<Value> {
    let (low, _) = modifier.cuts();
    a.rounds
        .iter()
        .map(|row| {
            let mut running = 0i64;
            let mut total = 0i64;
            for (r, info) in row.iter().enumerate() {
                running += i64::from(info.points);
                if r >= low {
                    total += running;
                }
            }
            Value::half_points(total)
        })
        .collect()
}

/// Koya System (9.2, limit 14.5): points scored against participants whose score is at least
/// 50% of the maximum possible, moved by `limit` half-points. Maximum possible: a win in every
/// game of every round the player could be paired in (round robin: the most rounds anyone was
/// paired; Swiss: all rounds). Only encounters counting as games (played, or forfeits in a
/// round robin) count.
pub(crate) fn koya(a: &Analysis<'_>, limit: i32) -> Vec<Value> {
    let paired_rounds = if a.is_rr() {
        a.rounds
            .iter()
            .map(|row| row.iter().filter(|r| r.opponent.is_some()).count())
            .max()
            .unwrap_or(0) as i64
    } else {
        i64::from(a.ct.rounds)
    };
    // Max possible in half-points = 2 g R; threshold (half-points) = g R + limit.
    let threshold = i64::from(a.g) * paired_rounds + i64::from(limit);
    (0..a.players())
        .map(|p| {
            let pts: i64 = a.rounds[p]
                .iter()
                .filter(|info| a.counts_as_game(info))
                .filter(|info| {
                    info.opponent
                        .is_some_and(|o| i64::from(a.score[o]) >= threshold)
                })
                .map(|info| i64::from(info.points))
                .sum();
            Value::half_points(pts)
        })
        .collect()
}

/// Rating of each participant for the rating-based tiebreaks, or an error naming the first
/// unrated one met when no rating for unrated players was given (C.07 art. 10 preamble: these
/// tiebreaks need published rules for unrated players).
fn ratings_met(a: &Analysis<'_>, name: &str) -> Result<Vec<u32>, TiebreakError> {
    let mut out = Vec::with_capacity(a.players());
    for (i, pl) in a.ct.players.iter().enumerate() {
        match pl.rating.or(a.opts.unrated_rating) {
            Some(r) => out.push(r),
            None => {
                // Only an error if somebody actually met this player over the board.
                let met = a.rounds.iter().any(|row| {
                    row.iter()
                        .any(|r| r.kind == Kind::Played && r.opponent == Some(i))
                });
                if met {
                    return Err(TiebreakError::Unrated {
                        tiebreak: name.to_string(),
                        player: pl.id,
                    });
                }
                out.push(0);
            }
        }
    }
    Ok(out)
}

/// Rating-based tiebreaks use only games played over the board; all forfeits stay unplayed
/// (C.07 art. 10, 15.2). Returns, per player, (opponent rating, points) per OTB game.
fn otb_rated_games(a: &Analysis<'_>, ratings: &[u32], p: usize) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for info in &a.rounds[p] {
        if info.kind != Kind::Played {
            continue;
        }
        let Some(o) = info.opponent else { continue };
        for gm in info.games {
            out.push((ratings[o], gm.outcome.points().0));
        }
    }
    out
}

/// Average Rating of Opponents (10.1) with a modifier: one term per encounter over the board,
/// the mean rounded to the nearest whole number, 0.5 up.
pub(crate) fn average_rating_of_opponents(
    a: &Analysis<'_>,
    modifier: Modifier,
) -> Result<Vec<Value>, TiebreakError> {
    let ratings = ratings_met(a, "ARO")?;
    Ok((0..a.players())
        .map(|p| {
            let mut rs: Vec<u32> = a.rounds[p]
                .iter()
                .filter(|r| r.kind == Kind::Played)
                .filter_map(|r| r.opponent.map(|o| ratings[o]))
                .collect();
            rs.sort_unstable();
            let (low, high) = modifier.cuts();
            let keep = if low + high >= rs.len() {
                &rs[0..0]
            } else {
                &rs[low..rs.len() - high]
            };
            Value::int(rating::fide_average_rating(keep).map_or(0, i64::from))
        })
        .collect())
}

/// Tournament Performance Rating (10.2) per player; `None` for a player with no game over the
/// board.
fn tpr_all(a: &Analysis<'_>, ratings: &[u32]) -> Vec<Option<i32>> {
    (0..a.players())
        .map(|p| {
            let games = otb_rated_games(a, ratings, p);
            let rs: Vec<u32> = games.iter().map(|g| g.0).collect();
            let pts: u32 = games.iter().map(|g| g.1).sum();
            rating::fide_tpr(&rs, pts).ok()
        })
        .collect()
}

/// Perfect Tournament Performance (10.3) per player.
fn ptp_all(a: &Analysis<'_>, ratings: &[u32]) -> Vec<Option<i32>> {
    (0..a.players())
        .map(|p| {
            let games = otb_rated_games(a, ratings, p);
            let rs: Vec<u32> = games.iter().map(|g| g.0).collect();
            let pts: u32 = games.iter().map(|g| g.1).sum();
            rating::fide_ptp(&rs, pts).ok()
        })
        .collect()
}

/// TPR (10.2); a player without games over the board gets 0.
pub(crate) fn tpr(a: &Analysis<'_>) -> Result<Vec<Value>, TiebreakError> {
    let ratings = ratings_met(a, "TPR")?;
    Ok(tpr_all(a, &ratings)
        .into_iter()
        .map(|v| Value::int(v.map_or(0, i64::from)))
        .collect())
}

/// PTP (10.3); a player without games over the board gets 0.
pub(crate) fn ptp(a: &Analysis<'_>) -> Result<Vec<Value>, TiebreakError> {
    let ratings = ratings_met(a, "PTP")?;
    Ok(ptp_all(a, &ratings)
        .into_iter()
        .map(|v| Value::int(v.map_or(0, i64::from)))
        .collect())
}

/// APRO (10.4) or APPO (10.5): the rounded mean of the opponents' TPR or PTP, over the
/// opponents met over the board (one term per encounter).
pub(crate) fn average_opponent_performance(
    a: &Analysis<'_>,
    perfect: bool,
) -> Result<Vec<Value>, TiebreakError> {
    let ratings = ratings_met(a, if perfect { "APPO" } else { "APRO" })?;
    let perf = if perfect {
        ptp_all(a, &ratings)
    } else {
        tpr_all(a, &ratings)
    };
    Ok((0..a.players())
        .map(|p| {
            let vals: Vec<i64> = a.rounds[p]
                .iter()
                .filter(|r| r.kind == Kind::Played)
                .filter_map(|r| r.opponent.and_then(|o| perf[o]))
                .map(i64::from)
                .collect();
            if vals.is_empty() {
                Value::ZERO
            } else {
                Value::int(Value::new(vals.iter().sum(), vals.len() as i64).round_half_up())
            }
        })
        .collect())
}
