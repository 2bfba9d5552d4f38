//! Derived per-round facts shared by every tiebreak: what kind of round each entry is, scores,
//! and the FIDE C.07 art. 16 views of unplayed rounds.

use super::crosstable::{ByeKind, Colour, Crosstable, CrosstableGame, GameOutcome, RoundEntry};
use super::{Edition, Options};

/// What a round was for one player, after folding matches and byes (FIDE C.07 art. 15.1, 16.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// At least one game of the round was played over the board (FIDE C.04.5: a match is
    /// forfeited only when every game of it is).
    Played,
    /// Every game forfeited, and this player scored: a forfeit win (C.07 16.2.2).
    ForfeitWin,
    /// Every game forfeited and this player scored nothing: a forfeit loss (16.2.4); a double
    /// forfeit is a forfeit loss for both players.
    ForfeitLoss,
    /// Pairing-allocated bye (16.2.1).
    Pab,
    /// Full-point bye (16.2.1).
    FullBye,
    /// Requested half-point bye (16.1).
    HalfBye,
    /// Requested zero-point bye, or absence/withdrawal (16.1.1).
    ZeroBye,
}

impl Kind {
    /// Voluntarily unplayed round: a requested bye or a forfeit loss (C.07 16.1).
    pub(crate) fn is_vur(self) -> bool {
        matches!(self, Kind::HalfBye | Kind::ZeroBye | Kind::ForfeitLoss)
    }

    pub(crate) fn is_forfeit(self) -> bool {
        matches!(self, Kind::ForfeitWin | Kind::ForfeitLoss)
    }

    pub(crate) fn is_requested_bye(self) -> bool {
        matches!(self, Kind::HalfBye | Kind::ZeroBye)
    }
}

/// One player's round, classified.
#[derive(Clone, Debug)]
pub(crate) struct RoundInfo<'a> {
    pub kind: Kind,
    /// Points scored this round, in half-points.
    pub points: u32,
    pub opponent: Option<usize>,
    pub games: &'a [CrosstableGame],
}

/// Everything the tiebreaks derive from a validated crosstable.
pub(crate) struct Analysis<'a> {
    pub ct: &'a Crosstable,
    pub opts: Options,
    /// Games per round.
    pub g: u32,
    /// `rounds[p][r]`.
    pub rounds: Vec<Vec<RoundInfo<'a>>>,
    /// Final score in half-points.
    pub score: Vec<u32>,
    /// Score as seen by opponents (C.07 16.3), half-points.
    pub adjusted: Vec<u32>,
}

impl<'a> Analysis<'a> {
    /// `ct` must already be validated.
    pub(crate) fn new(ct: &'a Crosstable, opts: Options) -> Analysis<'a> {
        let g = ct.games_per_round;
        let rounds: Vec<Vec<RoundInfo<'a>>> = ct
            .results
            .iter()
            .map(|row| {
                row.iter()
                    .map(|e| classify(e, g, ct.pab_half_points))
                    .collect()
            })
            .collect();
        let score: Vec<u32> = rounds
            .iter()
            .map(|row| row.iter().map(|r| r.points).sum())
            .collect();
        let adjusted = rounds
            .iter()
            .map(|row| match ct.format.is_round_robin() {
                // 15.2: in a round robin forfeits are regular games; there are no requested
                // byes to adjust, so opponents see the real score.
                true => row.iter().map(|r| r.points).sum(),
                false => (0..row.len())
                    .map(|r| {
                        if category_5(row, r) {
                            // 16.3.2: counted as a draw in every game of the round.
                            g
                        } else {
                            // 16.3.1: the points actually awarded.
                            row[r].points
                        }
                    })
                    .sum(),
            })
            .collect();
        Analysis {
            ct,
            opts,
            g,
            rounds,
            score,
            adjusted,
        }
    }

    pub(crate) fn players(&self) -> usize {
        self.ct.players.len()
    }

    pub(crate) fn is_rr(&self) -> bool {
        self.ct.format.is_round_robin()
    }

    /// Whether round `r` of `p` counts as a game against its opponent for the opponent-based
    /// tiebreaks (BH, SB, KS, DE): a played round, or in a round robin any forfeit (C.07 15.2).
    pub(crate) fn counts_as_game(&self, info: &RoundInfo<'_>) -> bool {
        info.kind == Kind::Played || (self.is_rr() && info.kind.is_forfeit())
    }

    /// The value of the dummy opponent of C.07 16.4 for an unplayed round of `p` in a Swiss:
    /// the participant's own final score; from the 2026 edition capped by 16.4.1 (forfeits:
    /// the scheduled opponent's adjusted score) and 16.4.2 (other unplayed rounds: a draw in
    /// every game of every round).
    pub(crate) fn dummy(&self, p: usize, info: &RoundInfo<'_>) -> u32 {
        let own = self.score[p];
        match self.opts.edition {
            Edition::Fide2024 => own,
            Edition::Fide2026 => {
                let cap = match (info.kind.is_forfeit(), info.opponent) {
                    (true, Some(o)) => self.adjusted[o],
                    _ => self.g * self.ct.rounds,
                };
                own.min(cap)
            }
        }
    }

    /// Number of games of `info` that count as played over the board for the own-results
    /// tiebreaks (C.07 art. 7), with the colour and outcome of each. In a played match every
    /// game counts (C.04.5); in a round robin forfeit wins count as played games, forfeit losses
    /// do not (15.2).
    pub(crate) fn otb_games<'b>(
        &self,
        info: &'b RoundInfo<'_>,
    ) -> impl Iterator<Item = (Colour, GameOutcome)> + 'b {
        let rr = self.is_rr();
        let played_round = info.kind == Kind::Played;
        info.games.iter().filter_map(move |gm| {
            let counts = played_round
                || gm.outcome.is_played()
                || (rr && gm.outcome == GameOutcome::ForfeitWin);
            counts.then_some((gm.colour, gm.outcome))
        })
    }
}

fn classify(entry: &RoundEntry, g: u32, pab: Option<u32>) -> RoundInfo<'_> {
    match entry {
        RoundEntry::Paired { opponent, games } => {
            let points: u32 = games.iter().map(|gm| gm.outcome.points().0).sum();
            let kind = if games.iter().any(|gm| gm.outcome.is_played()) {
                Kind::Played
            } else if points > 0 {
                Kind::ForfeitWin
            } else {
                Kind::ForfeitLoss
            };
            RoundInfo {
                kind,
                points,
                opponent: Some(*opponent),
                games,
            }
        }
        RoundEntry::Bye(b) => {
            let (kind, points) = match b {
                ByeKind::Pab => (Kind::Pab, pab.unwrap_or(2 * g)),
                ByeKind::Full => (Kind::FullBye, 2 * g),
                ByeKind::Half => (Kind::HalfBye, g),
                ByeKind::Zero | ByeKind::Absent => (Kind::ZeroBye, 0),
            };
            RoundInfo {
                kind,
                points,
                opponent: None,
                games: &[],
            }
        }
    }
}

/// C.07 16.2.5: a requested bye followed only by voluntarily unplayed rounds (or in the last
/// round); this covers withdrawals.
fn category_5(row: &[RoundInfo<'_>], r: usize) -> bool {
    row[r].kind.is_requested_bye() && row[r + 1..].iter().all(|x| x.kind.is_vur())
}
