//! The FIDE Double Swiss system (C.04.5, approved 28 October 2025, applied from
//! 1 February 2026).
//!
//! Every pairing is a two-game match with colours reversed between the games (C.04.5 0).
//! Points are scored per game, so a match is worth 0–2 points (in half points 0–4). A
//! match counts as forfeited only when a player forfeits both games; after such a match
//! the two may be paired again, otherwise never (C.04.5 0). Byes are given to matches,
//! not to single games (C.04.5 0).
//!
//! "Colour" in this module is the colour of the *first* game of a match.
//!
//! Sources and interpretations: the preface and articles 1.1–1.3 (order by score, then
//! TPN; scoregroups; brackets completed by upfloaters from lower groups) were read from
//! the FIDE handbook text. The later articles were available to us only as a secondary
//! summary, so the following are marked **interpretation**:
//!
//! - PAB (art. 3.4 as summarised): the lowest-ranked eligible player (lowest score, then
//!   highest TPN) whose absence leaves a pairable field; eligibility (no earlier PAB, no
//!   earlier unplayed win) is the caller's `bye_eligible`. Its value is the event's
//!   business (the scores in [`SwissPlayer`] already include it): `flagfall-events`
//!   scores it 1½ of the match (a win and a draw) as the secondary summary reads C.04.5,
//!   unless the event sets another value (`Event::pab_value`, see `docs/events.md`).
//! - Upfloaters (3.5 as summarised): an odd bracket is completed with the best-ranked
//!   player (highest score, then lowest TPN) of the next lower group.
//! - Bracket pairing (3.6): the bracket is split into halves and the top half meets the
//!   bottom half in order; when that repeats a match, candidates are tried in order (the
//!   nearest bottom-half player first), backtracking as far as needed. Players who both
//!   had the same first-game colour in their last two matches are kept apart when
//!   possible (they would both need the other colour), except in the last round.
//! - Colours (4.3 as summarised), for the higher-ranked player (HRP) and opponent:
//!   (1) neither has played a match: the HRP gets the colour drawn by lot if his TPN is
//!   odd, the other colour if it is even; (2) the player with fewer first-game whites gets
//!   White; (3) going back through both histories, at the latest match where their
//!   colours differed, both alternate; (4) the HRP alternates from his last match;
//!   (5) the opponent alternates from his last match.

pub use crate::dutch::Pairing;
use crate::trf::Colour;
use crate::us_swiss::{SwissError, SwissPlayer, SwissRound, pair_with_bye, validate};

fn rank(players: &mut [SwissPlayer]) {
    players.sort_by(|a, b| b.score.cmp(&a.score).then(a.id.cmp(&b.id)));
}

fn last_two_same(colours: &[Colour]) -> Option<Colour> {
    match colours {
        [.., a, b] if a == b => Some(*a),
        _ => None,
    }
}

/// True when the HRP (`hi`) takes White in game 1.
fn hrp_white(hi: &SwissPlayer, lo: &SwissPlayer, initial: Colour) -> bool {
    // A player with the same colour in his last two matches must change (kept apart by
    // the pairing where possible; here the HRP's need wins if both need it).
    if let Some(c) = last_two_same(&hi.colours) {
        return c == Colour::Black;
    }
    if let Some(c) = last_two_same(&lo.colours) {
        return c == Colour::White;
    }
    if hi.colours.is_empty() && lo.colours.is_empty() {
        let c = if hi.id % 2 == 1 {
            initial
        } else {
            initial.opposite()
        };
        return c == Colour::White;
    }
    let whites = |p: &SwissPlayer| p.colours.iter().filter(|c| **c == Colour::White).count();
    let (wh, wl) = (whites(hi), whites(lo));
    if wh != wl {
        return wh < wl;
    }
    for (a, b) in hi.colours.iter().rev().zip(lo.colours.iter().rev()) {
        if a != b {
            return *a == Colour::Black;
        }
    }
    if let Some(c) = hi.colours.last() {
        return *c == Colour::Black;
    }
    if let Some(c) = lo.colours.last() {
        return *c == Colour::White;
    }
    initial == Colour::White
}

/// Pair one round of a Double Swiss. Boards are `(white in game 1, black in game 1)`;
/// game 2 reverses them.
///
/// # Errors
/// [`SwissError`] for a malformed field or when no legal pairing exists.
pub fn pair(input: &SwissRound) -> Result<Pairing, SwissError> {
    validate(&input.players, input.round)?;
    let mut players = input.players.clone();
    rank(&mut players);
    let mut bye_order: Vec<usize> = (0..players.len())
        .filter(|&i| players[i].bye_eligible)
        .collect();
    bye_order.sort_by(|&a, &b| {
        players[a]
            .score
            .cmp(&players[b].score)
            .then(players[b].id.cmp(&players[a].id))
    });
    let last_round = input.round >= input.total_rounds;
    let colour_ok = |a: &SwissPlayer, b: &SwissPlayer| {
        last_round
            || match (last_two_same(&a.colours), last_two_same(&b.colours)) {
                (Some(x), Some(y)) => x != y,
                _ => true,
            }
    };
    let forbidden = &input.forbidden_pairs;
    let strict = pair_with_bye(
        &players,
        &bye_order,
        true,
        &colour_ok,
        forbidden,
        input.round,
    )?;
    let found = match strict {
        Some(found) => Some(found),
        None => pair_with_bye(
            &players,
            &bye_order,
            true,
            &|_, _| true,
            forbidden,
            input.round,
        )?,
    };
    let Some((pairs, bye)) = found else {
        return Err(SwissError::NoPairing(input.round));
    };
    let mut pairs: Vec<(usize, usize)> = pairs
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    // Board order: the pair's higher-ranked player's rank.
    pairs.sort_unstable();
    let boards = pairs
        .into_iter()
        .map(|(hi, lo)| {
            if hrp_white(&players[hi], &players[lo], input.initial_colour) {
                (players[hi].id, players[lo].id)
            } else {
                (players[lo].id, players[hi].id)
            }
        })
        .collect();
    Ok(Pairing {
        boards,
        bye: bye.map(|b| players[b].id),
    })
}
