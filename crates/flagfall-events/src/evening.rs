//! An evening played with this library on a server (`flagfall serve`'s blitz evenings):
//! the ruleset and time control its games are played under when the event names none,
//! and its players' reports of their own boards (board play): when one is taken, and
//! when the result counts (one player's report, or both players' agreeing).

use crate::event::{Event, EventError, RecordedResult};

/// The ruleset an evening's server games are played under when the event names none.
pub const DEFAULT_RULESET: &str = "uscf-2020";

/// The time control an evening's server games are played with when the event names none.
pub const DEFAULT_TIME_CONTROL: &str = "G/5;d0";

impl Event {
    /// The ruleset the event's games are played under: its own, else [`DEFAULT_RULESET`].
    pub fn game_ruleset(&self) -> String {
        self.ruleset
            .clone()
            .unwrap_or_else(|| DEFAULT_RULESET.into())
    }

    /// The time control the event's games are played with: its own, else
    /// [`DEFAULT_TIME_CONTROL`].
    pub fn game_time_control(&self) -> String {
        self.time_control
            .clone()
            .unwrap_or_else(|| DEFAULT_TIME_CONTROL.into())
    }
}

/// Why a player's report of their board is not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportRefused {
    #[error("no round has been paired yet")]
    NoRound,
    #[error("{0} is no longer in the event")]
    NotAPlayer(String),
    #[error(
        "round {round} is not the round being played (round {latest}); a result of an \
         earlier round is corrected by the director"
    )]
    NotLatest { round: u32, latest: u32 },
    /// The board is not one of the round's.
    #[error(transparent)]
    Event(EventError),
    #[error("{player} does not play on board {board} of round {round}")]
    NotTheirBoard {
        player: String,
        round: u32,
        board: u32,
    },
    #[error(
        "the result of round {round} board {board} is in already; the director corrects it \
         if it is wrong"
    )]
    AlreadyIn { round: u32, board: u32 },
    #[error(
        "board {board} has {games} game(s): report one result for each (1-0, 0-1 or 1/2); \
         a forfeit is the director's to enter"
    )]
    BadResults { board: u32, games: usize },
}

/// Whether `player` (by name) may report `results` for board `board` of round `round`:
/// it must be their board of the round being played, its result not in, and one played
/// result (1-0, 0-1 or 1/2) for each of the board's games (a forfeit, or `*`, is the
/// director's to enter).
pub fn check_report(
    event: &Event,
    player: &str,
    round: u32,
    board: u32,
    results: &[RecordedResult],
) -> Result<(), ReportRefused> {
    let latest = event.rounds_paired();
    if latest == 0 {
        return Err(ReportRefused::NoRound);
    }
    let number = event
        .players
        .iter()
        .find(|p| p.name == player)
        .map(|p| p.id)
        .ok_or_else(|| ReportRefused::NotAPlayer(player.to_string()))?;
    if round != latest {
        return Err(ReportRefused::NotLatest { round, latest });
    }
    let boards = &event.round_list[round as usize - 1].boards;
    let b = boards
        .iter()
        .find(|b| b.number == board)
        .ok_or(ReportRefused::Event(EventError::UnknownBoard {
            round,
            board,
            boards: boards.len() as u32,
        }))?;
    if b.white != number && b.black != number {
        return Err(ReportRefused::NotTheirBoard {
            player: player.to_string(),
            round,
            board,
        });
    }
    if b.complete() {
        return Err(ReportRefused::AlreadyIn { round, board });
    }
    if results.len() != b.games.len() || results.iter().any(|r| !r.is_played()) {
        return Err(ReportRefused::BadResults {
            board,
            games: b.games.len(),
        });
    }
    Ok(())
}

/// Who must report a board's result before it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// The first report counts.
    One,
    /// Both players' reports, the same.
    Both,
}

/// The results that count once a player reported `reported`, the board's reports being
/// now `white`'s and `black`'s (the new one among them): `None` while they wait for the
/// other player ([`Confirmation::Both`], none yet or a disagreement).
pub fn agreed_results(
    confirmation: Confirmation,
    reported: &[RecordedResult],
    white: Option<&[RecordedResult]>,
    black: Option<&[RecordedResult]>,
) -> Option<Vec<RecordedResult>> {
    match confirmation {
        Confirmation::One => Some(reported.to_vec()),
        Confirmation::Both => match (white, black) {
            (Some(a), Some(b)) if a == b => Some(a.to_vec()),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::{Change, Origin};
    use crate::event::NewPlayer;
    use crate::format::Format;
    use RecordedResult::{Draw, WhiteWins};

    /// Four players, round 1 paired.
    fn paired() -> Event {
        let mut e = Event::new("Friday", Format::Swiss, Some(3)).unwrap();
        for (i, name) in ["Ann", "Bo", "Cy", "Di"].iter().enumerate() {
            e.add_player(NewPlayer {
                name: (*name).into(),
                rating: Some(2000 - 100 * i as u32),
                ..NewPlayer::default()
            })
            .unwrap();
        }
        e.check_in = false;
        e.apply(Change::PairNext, &Origin::new("director", 0))
            .unwrap();
        e
    }

    /// A player of board `board` of round 1, by name.
    fn on_board(e: &Event, board: u32) -> String {
        let b = &e.round_list[0].boards[board as usize - 1];
        e.player(b.white).unwrap().name.clone()
    }

    #[test]
    fn defaults_are_the_events_own_first() {
        let mut e = Event::new("Friday", Format::Swiss, Some(3)).unwrap();
        assert_eq!(e.game_ruleset(), DEFAULT_RULESET);
        assert_eq!(e.game_time_control(), DEFAULT_TIME_CONTROL);
        e.set_ruleset("club-ilc").unwrap();
        e.set_time_control("3+2").unwrap();
        assert_eq!(e.game_ruleset(), "club-ilc");
        assert_ne!(e.game_time_control(), DEFAULT_TIME_CONTROL);
    }

    #[test]
    fn a_report_is_taken_only_for_the_players_own_board_of_the_round() {
        let unpaired = Event::new("Friday", Format::Swiss, Some(3)).unwrap();
        assert_eq!(
            check_report(&unpaired, "Ann", 1, 1, &[WhiteWins]),
            Err(ReportRefused::NoRound)
        );
        let e = paired();
        let ann = on_board(&e, 1);
        let other = on_board(&e, 2);
        assert_eq!(check_report(&e, &ann, 1, 1, &[WhiteWins]), Ok(()));
        assert_eq!(
            check_report(&e, "Zed", 1, 1, &[WhiteWins]),
            Err(ReportRefused::NotAPlayer("Zed".into()))
        );
        assert_eq!(
            check_report(&e, &ann, 2, 1, &[WhiteWins]),
            Err(ReportRefused::NotLatest {
                round: 2,
                latest: 1
            })
        );
        assert!(matches!(
            check_report(&e, &ann, 1, 9, &[WhiteWins]),
            Err(ReportRefused::Event(EventError::UnknownBoard {
                board: 9,
                ..
            }))
        ));
        assert_eq!(
            check_report(&e, &other, 1, 1, &[WhiteWins]).map_err(|r| r.to_string()),
            Err(format!("{other} does not play on board 1 of round 1"))
        );
        // One played result per game: not two, not a forfeit.
        assert!(matches!(
            check_report(&e, &ann, 1, 1, &[WhiteWins, Draw]),
            Err(ReportRefused::BadResults { board: 1, games: 1 })
        ));
        assert!(matches!(
            check_report(&e, &ann, 1, 1, &[RecordedResult::WhiteWinsByForfeit]),
            Err(ReportRefused::BadResults { .. })
        ));
    }

    #[test]
    fn a_result_in_is_not_reported_again() {
        let mut e = paired();
        let ann = on_board(&e, 1);
        e.apply(
            Change::SetResults {
                round: 1,
                board: 1,
                results: vec![Draw],
            },
            &Origin::new("director", 1),
        )
        .unwrap();
        assert_eq!(
            check_report(&e, &ann, 1, 1, &[WhiteWins]),
            Err(ReportRefused::AlreadyIn { round: 1, board: 1 })
        );
    }

    #[test]
    fn one_report_counts_or_both_must_agree() {
        let w = [WhiteWins];
        let d = [Draw];
        assert_eq!(
            agreed_results(Confirmation::One, &w, Some(&w), None),
            Some(vec![WhiteWins])
        );
        assert_eq!(agreed_results(Confirmation::Both, &w, Some(&w), None), None);
        assert_eq!(
            agreed_results(Confirmation::Both, &d, Some(&w), Some(&d)),
            None,
            "a disagreement waits for the director"
        );
        assert_eq!(
            agreed_results(Confirmation::Both, &w, Some(&w), Some(&w)),
            Some(vec![WhiteWins])
        );
    }
}
