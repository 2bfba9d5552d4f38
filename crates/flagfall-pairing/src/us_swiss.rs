//! The US Chess Swiss system (US Chess Official Rules, 7th ed., chapter 2, rules 27–29),
//! and the search machinery it shares with [`crate::double_swiss`].
//!
//! What the rules ask, in our words, and where this module does it:
//!
//! - 27A1: two players never meet twice. Absolute here: the search backtracks until no
//!   pairing repeats a game played over the board (forfeits do not count as meetings).
//! - 27A2 / 29A: players meet others with the same score where possible; score groups are
//!   paired from the top down.
//! - 29B / 29C: inside a score group players are ranked by rating and the top half meets
//!   the bottom half in order (1st v 1st of the bottom half, 2nd v 2nd, ...).
//! - 29D: an odd group sends its lowest-rated player down, who meets the highest-rated
//!   player of the next group he can meet.
//! - 28L: with an odd number of players the bye goes to the lowest-rated player of the
//!   lowest score group who has not had one (the caller says who is eligible).
//! - 29E: colours. A player is *due* the colour that equalises his whites and blacks
//!   (equalisation, 29E1 as we read it), else the one that alternates from his last game
//!   (alternation, 29E2). When both players are due the same colour, equalisation beats
//!   alternation, and otherwise the higher-ranked player gets his due colour.
//! - 29E4 / 29E5 (as we read them): to give more players their due colours the director
//!   may transpose two bottom-half players of the same score group whose ratings differ by
//!   at most 200 points, or interchange a top-half with a bottom-half player of the same
//!   group whose ratings differ by at most 80. This module does so greedily, top boards
//!   first, and only when it strictly reduces the number of colour conflicts.
//! - First round: no one is due a colour; the colour drawn by lot goes to the higher-ranked
//!   player on board 1 and the boards alternate below (**interpretation** of the common
//!   practice; the lot is the caller's `initial_colour`).
//!
//! **Interpretation:** the rulebook leaves the pairing of awkward cases to the director's
//! judgement. Here, when the natural top-v-bottom pairing is impossible without a rematch,
//! the first player (in rank order) whose natural opponent is blocked takes the nearest
//! bottom-half player instead, then a top-half player, then the best-ranked player of a
//! lower group, backtracking as far as needed. The result is always a complete pairing
//! without rematches when one exists.

use std::collections::{HashMap, HashSet};

use thiserror::Error;

pub use crate::dutch::Pairing;
pub use crate::trf::Colour;

/// One player to be paired this round (absent players are simply not listed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwissPlayer {
    /// Pairing number (starting rank), unique.
    pub id: u32,
    /// Rating used for ranking inside a score group (0 for unrated).
    pub rating: u32,
    /// Score so far, in half points.
    pub score: u32,
    /// Colours of the games played over the board, oldest first. For a Double Swiss: the
    /// colour this player had in the first game of each match played.
    pub colours: Vec<Colour>,
    /// Pairing numbers of the opponents met over the board (forfeits excluded).
    pub opponents: Vec<u32>,
    /// May receive the pairing-allocated bye (no earlier bye or unplayed win).
    pub bye_eligible: bool,
}

/// A round to pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwissRound {
    /// The round being paired, 1-based.
    pub round: u32,
    /// Rounds planned.
    pub total_rounds: u32,
    /// The players to pair.
    pub players: Vec<SwissPlayer>,
    /// The colour drawn by lot for the top player of round 1.
    pub initial_colour: Colour,
    /// Pairs of pairing numbers that must not meet (family, same club). Treated like a
    /// game already played: the search never pairs them, and a transposition or
    /// interchange never creates such a pair.
    pub forbidden_pairs: Vec<(u32, u32)>,
}

/// Why a round could not be paired.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SwissError {
    /// The same pairing number twice.
    #[error("player {0} is listed twice")]
    DuplicatePlayer(u32),
    /// Nobody to pair.
    #[error("no players to pair")]
    NoPlayers,
    /// Only one player present.
    #[error("only one player is present; nobody to pair them with")]
    OnePlayer,
    /// No pairing without rematches (and, for an odd field, no eligible bye) exists.
    #[error(
        "round {0}: every possible pairing repeats a game already played (or no one may take the bye)"
    )]
    NoPairing(u32),
    /// The search gave up (a pathological field).
    #[error("round {0}: the pairing search gave up after {1} steps")]
    SearchLimit(u32, u64),
}

/// Steps the backtracking search may take before giving up.
pub(crate) const SEARCH_LIMIT: u64 = 5_000_000;

/// A due colour and how strongly it is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Due {
    pub colour: Colour,
    /// 2: to equalise whites and blacks; 1: to alternate.
    pub strength: u8,
}

/// The colour a player is due (US 29E1 equalisation, 29E2 alternation).
pub(crate) fn due(colours: &[Colour]) -> Option<Due> {
    let whites = colours.iter().filter(|c| **c == Colour::White).count();
    let blacks = colours.len() - whites;
    if whites > blacks {
        Some(Due {
            colour: Colour::Black,
            strength: 2,
        })
    } else if blacks > whites {
        Some(Due {
            colour: Colour::White,
            strength: 2,
        })
    } else {
        colours.last().map(|c| Due {
            colour: c.opposite(),
            strength: 1,
        })
    }
}

pub(crate) fn validate(players: &[SwissPlayer], round: u32) -> Result<(), SwissError> {
    let _ = round;
    let mut seen = HashSet::new();
    for p in players {
        if !seen.insert(p.id) {
            return Err(SwissError::DuplicatePlayer(p.id));
        }
    }
    match players.len() {
        0 => Err(SwissError::NoPlayers),
        1 => Err(SwissError::OnePlayer),
        _ => Ok(()),
    }
}

/// How a system ranks players and orders the partners it tries for each.
pub(crate) struct SearchSpec<'a> {
    /// Players in pairing rank order.
    pub players: &'a [SwissPlayer],
    /// True: an odd score group pulls its partner up from below and the bracket is split
    /// in halves with that upfloater inside (Double Swiss 1.3.2); false: the lowest player
    /// drops and is paired first with the best of the next group (US 29D).
    pub upfloat: bool,
    /// Extra restriction on a pair (beyond "never met"), indices into `players`.
    pub allowed: &'a dyn Fn(usize, usize) -> bool,
}

/// Searches for a complete pairing of `players` (in rank order) without rematches,
/// trying the natural top-half v bottom-half pairing first. Returns index pairs.
pub(crate) fn search(
    spec: &SearchSpec<'_>,
    forbidden: &[(u32, u32)],
    round: u32,
) -> Result<Option<Vec<(usize, usize)>>, SwissError> {
    let n = spec.players.len();
    let ids: HashMap<u32, usize> = spec
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id, i))
        .collect();
    let mut met = vec![vec![false; n]; n];
    for (i, p) in spec.players.iter().enumerate() {
        for o in &p.opponents {
            if let Some(&j) = ids.get(o) {
                met[i][j] = true;
                met[j][i] = true;
            }
        }
    }
    for (a, b) in forbidden {
        if let (Some(&i), Some(&j)) = (ids.get(a), ids.get(b)) {
            met[i][j] = true;
            met[j][i] = true;
        }
    }
    let mut state = Search {
        spec,
        met,
        steps: 0,
        failed: HashSet::new(),
        out: Vec::new(),
    };
    let remaining: Vec<usize> = (0..n).collect();
    match state.go(&remaining) {
        Ok(true) => Ok(Some(state.out)),
        Ok(false) => Ok(None),
        Err(()) => Err(SwissError::SearchLimit(round, SEARCH_LIMIT)),
    }
}

struct Search<'a, 'b> {
    spec: &'a SearchSpec<'b>,
    met: Vec<Vec<bool>>,
    steps: u64,
    failed: HashSet<Vec<u64>>,
    out: Vec<(usize, usize)>,
}

impl Search<'_, '_> {
    fn key(remaining: &[usize]) -> Vec<u64> {
        let mut k = vec![0u64; remaining.iter().max().map_or(0, |m| m / 64 + 1)];
        for &i in remaining {
            k[i / 64] |= 1 << (i % 64);
        }
        k
    }

    /// Partners to try for `remaining[0]`, best first.
    fn candidates(&self, remaining: &[usize]) -> Vec<usize> {
        let players = self.spec.players;
        let p = remaining[0];
        let score = players[p].score;
        let mut group: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| players[i].score == score)
            .collect();
        let lower: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| players[i].score != score)
            .collect();
        let mut lower_rest = lower.as_slice();
        if self.spec.upfloat
            && !group.len().is_multiple_of(2)
            && let Some((&first, rest)) = lower.split_first()
        {
            group.push(first);
            lower_rest = rest;
        }
        let g = group.len();
        let natural = g / 2;
        let mut out = Vec::with_capacity(remaining.len());
        if natural > 0 {
            out.extend_from_slice(&group[natural..]);
            out.extend(group[1..natural].iter().rev());
        } else {
            out.extend_from_slice(&group[1..]);
        }
        out.extend_from_slice(lower_rest);
        out
    }

    fn go(&mut self, remaining: &[usize]) -> Result<bool, ()> {
        if remaining.len() < 2 {
            return Ok(true);
        }
        self.steps += 1;
        if self.steps > SEARCH_LIMIT {
            return Err(());
        }
        let key = Self::key(remaining);
        if self.failed.contains(&key) {
            return Ok(false);
        }
        let p = remaining[0];
        for c in self.candidates(remaining) {
            if self.met[p][c] || !(self.spec.allowed)(p, c) {
                continue;
            }
            let rest: Vec<usize> = remaining[1..].iter().copied().filter(|&i| i != c).collect();
            self.out.push((p, c));
            if self.go(&rest)? {
                return Ok(true);
            }
            self.out.pop();
        }
        self.failed.insert(key);
        Ok(false)
    }
}

/// Index pairs and the index of the bye, if any.
pub(crate) type PairsAndBye = (Vec<(usize, usize)>, Option<usize>);

/// Chooses the bye (if the field is odd) and pairs the rest. `bye_order` lists the
/// indices of bye candidates, best first; the first one that leaves a pairable field
/// gets the bye.
pub(crate) fn pair_with_bye(
    spec_players: &[SwissPlayer],
    bye_order: &[usize],
    upfloat: bool,
    allowed: &dyn Fn(&SwissPlayer, &SwissPlayer) -> bool,
    forbidden: &[(u32, u32)],
    round: u32,
) -> Result<Option<PairsAndBye>, SwissError> {
    let run = |skip: Option<usize>| -> Result<Option<Vec<(usize, usize)>>, SwissError> {
        let keep: Vec<usize> = (0..spec_players.len())
            .filter(|&i| Some(i) != skip)
            .collect();
        let field: Vec<SwissPlayer> = keep.iter().map(|&i| spec_players[i].clone()).collect();
        let allowed_idx = |a: usize, b: usize| allowed(&field[a], &field[b]);
        let spec = SearchSpec {
            players: &field,
            upfloat,
            allowed: &allowed_idx,
        };
        Ok(search(&spec, forbidden, round)?
            .map(|pairs| pairs.into_iter().map(|(a, b)| (keep[a], keep[b])).collect()))
    };
    if spec_players.len().is_multiple_of(2) {
        return Ok(run(None)?.map(|p| (p, None)));
    }
    for &b in bye_order {
        if let Some(p) = run(Some(b))? {
            return Ok(Some((p, Some(b))));
        }
    }
    Ok(None)
}

fn us_rank(players: &mut [SwissPlayer]) {
    players.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(b.rating.cmp(&a.rating))
            .then(a.id.cmp(&b.id))
    });
}

/// Colour for a pair (`hi` ranked above `lo`): returns true if `hi` takes White.
fn us_colour(hi: &SwissPlayer, lo: &SwissPlayer, first_round_white: bool) -> bool {
    match (due(&hi.colours), due(&lo.colours)) {
        (None, None) => first_round_white,
        (Some(d), None) => d.colour == Colour::White,
        (None, Some(d)) => d.colour == Colour::Black,
        (Some(a), Some(b)) => {
            if a.colour != b.colour {
                a.colour == Colour::White
            } else if b.strength > a.strength {
                b.colour == Colour::Black
            } else {
                a.colour == Colour::White
            }
        }
    }
}

/// Number of players in the pair who do not get their due colour.
fn conflicts(a: &SwissPlayer, b: &SwissPlayer) -> u32 {
    match (due(&a.colours), due(&b.colours)) {
        (Some(x), Some(y)) if x.colour == y.colour => 1,
        _ => 0,
    }
}

/// Pair a round by the US Chess Swiss system (see the module documentation).
///
/// # Errors
/// [`SwissError`] for a malformed field or when no legal pairing exists.
pub fn pair(input: &SwissRound) -> Result<Pairing, SwissError> {
    validate(&input.players, input.round)?;
    let mut players = input.players.clone();
    us_rank(&mut players);
    // 28L: lowest score group first, lowest rating first.
    let mut bye_order: Vec<usize> = (0..players.len())
        .filter(|&i| players[i].bye_eligible)
        .collect();
    bye_order.sort_by(|&a, &b| {
        players[a]
            .score
            .cmp(&players[b].score)
            .then(players[a].rating.cmp(&players[b].rating))
            .then(players[b].id.cmp(&players[a].id))
    });
    let allowed = |_: &SwissPlayer, _: &SwissPlayer| true;
    let forbidden = &input.forbidden_pairs;
    let Some((mut pairs, bye)) = pair_with_bye(
        &players,
        &bye_order,
        false,
        &allowed,
        forbidden,
        input.round,
    )?
    else {
        return Err(SwissError::NoPairing(input.round));
    };
    let ids: HashMap<u32, usize> = players.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    let met = |a: usize, b: usize| {
        let (x, y) = (players[a].id, players[b].id);
        players[a].opponents.iter().any(|o| ids.get(o) == Some(&b))
            || forbidden
                .iter()
                .any(|&(p, q)| (p, q) == (x, y) || (q, p) == (x, y))
    };
    // 29E4/29E5: transpositions and interchanges inside a score group to fix colours.
    let mut improved = true;
    while improved {
        improved = false;
        'outer: for i in 0..pairs.len() {
            let (p1, q1) = pairs[i];
            if conflicts(&players[p1], &players[q1]) == 0 {
                continue;
            }
            let s = players[p1].score;
            for j in 0..pairs.len() {
                let (p2, q2) = pairs[j];
                if i == j || [p1, q1, p2, q2].iter().any(|&x| players[x].score != s) {
                    continue;
                }
                let before =
                    conflicts(&players[p1], &players[q1]) + conflicts(&players[p2], &players[q2]);
                let r = |x: usize| i64::from(players[x].rating);
                // Transposition of the two bottom-half players (29E4, 200 points).
                let options = [
                    ((p1, q2), (p2, q1), (r(q1) - r(q2)).abs() <= 200),
                    // Interchange of a top-half and a bottom-half player (29E5, 80 points).
                    ((p1, p2), (q1, q2), (r(p2) - r(q1)).abs() <= 80),
                ];
                for ((a, b), (c, d), within) in options {
                    if !within || met(a, b) || met(c, d) {
                        continue;
                    }
                    let after =
                        conflicts(&players[a], &players[b]) + conflicts(&players[c], &players[d]);
                    if after < before {
                        pairs[i] = (a.min(b), a.max(b));
                        pairs[j] = (c.min(d), c.max(d));
                        improved = true;
                        break 'outer;
                    }
                }
            }
        }
    }
    pairs.sort_by_key(|&(a, b)| a.min(b));
    let mut boards = Vec::with_capacity(pairs.len());
    for (board, &(a, b)) in pairs.iter().enumerate() {
        let (hi, lo) = (a.min(b), a.max(b));
        let lot = if board.is_multiple_of(2) {
            input.initial_colour
        } else {
            input.initial_colour.opposite()
        };
        let hi_white = us_colour(&players[hi], &players[lo], lot == Colour::White);
        if hi_white {
            boards.push((players[hi].id, players[lo].id));
        } else {
            boards.push((players[lo].id, players[hi].id));
        }
    }
    Ok(Pairing {
        boards,
        bye: bye.map(|b| players[b].id),
    })
}
