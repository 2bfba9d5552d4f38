//! The event changed through `Event::apply`, as a server or the command line changes it:
//! check-in, pauses, withdrawals, requested byes, forbidden pairs in every Swiss system,
//! the director's override and its warnings, deleting a round, corrections with their log
//! and the pairing that follows them, one game of a match at a time, rating updates, and
//! the guarantees: a refused change leaves the event exactly as it was, and the log
//! replayed gives the same event.

use std::collections::HashSet;

use flagfall_events::change::{Before, Change, Effect, Origin, PlayerUpdate};
use flagfall_events::event::{
    ByeKind, Cell, Event, EventError, Format, NewPlayer, PairingWarning, RecordedResult,
    RequestedBye,
};
use proptest::prelude::*;

fn director() -> Origin {
    Origin::new("director", 1_700_000_000_000)
}

fn np(i: u32) -> NewPlayer {
    NewPlayer {
        name: format!("Player {i}"),
        rating: Some(2400 - 10 * i),
        ..NewPlayer::default()
    }
}

fn event(format: Format, players: u32, rounds: u32) -> Event {
    let mut e = Event::new("Evening", format, Some(rounds)).expect("event");
    for i in 1..=players {
        e.apply(
            Change::AddPlayer {
                player: np(i),
                check_in: false,
            },
            &director(),
        )
        .expect("player");
    }
    e
}

fn apply(e: &mut Event, change: Change) -> Vec<Effect> {
    let c = format!("{change:?}");
    e.apply(change, &director())
        .unwrap_or_else(|err| panic!("{c}: {err}"))
}

/// Apply a change that must be refused; the event must be unchanged.
fn refused(e: &mut Event, change: Change) -> EventError {
    let before = e.clone();
    let c = format!("{change:?}");
    let err = e
        .apply(change, &director())
        .expect_err(&format!("{c} should be refused"));
    assert_eq!(*e, before, "{c} was refused but changed the event");
    err
}

/// Enter every result of a round: White wins on odd boards, draws on even ones.
fn finish_round(e: &mut Event, round: u32) {
    let g = e.format.games_per_round() as usize;
    let boards: Vec<u32> = e.round_list[round as usize - 1]
        .boards
        .iter()
        .map(|b| b.number)
        .collect();
    for b in boards {
        let r = if b % 2 == 1 {
            RecordedResult::WhiteWins
        } else {
            RecordedResult::Draw
        };
        apply(
            e,
            Change::SetResults {
                round,
                board: b,
                results: vec![r; g],
            },
        );
    }
}

fn pairs(e: &Event, round: u32) -> HashSet<(u32, u32)> {
    e.round_list[round as usize - 1]
        .boards
        .iter()
        .map(|b| (b.white.min(b.black), b.white.max(b.black)))
        .collect()
}

fn bye_of(e: &Event, round: u32, player: u32) -> Option<ByeKind> {
    match e.cell(player, round) {
        Cell::Bye(kind) => Some(kind),
        Cell::Paired { .. } => None,
    }
}

#[test]
fn only_checked_in_players_are_paired() {
    let mut e = event(Format::Swiss, 8, 5);
    apply(&mut e, Change::SetCheckIn { required: true });
    for p in 1..=6 {
        apply(&mut e, Change::CheckIn { player: p });
    }
    apply(&mut e, Change::PairNext);
    assert_eq!(e.round_list[0].boards.len(), 3);
    assert_eq!(bye_of(&e, 1, 7), Some(ByeKind::Absent));
    assert_eq!(bye_of(&e, 1, 8), Some(ByeKind::Absent));
    finish_round(&mut e, 1);
    // 7 arrives; 6 leaves for the evening (checked out).
    apply(&mut e, Change::CheckIn { player: 7 });
    apply(&mut e, Change::CheckOut { player: 6 });
    apply(&mut e, Change::PairNext);
    assert_eq!(bye_of(&e, 2, 6), Some(ByeKind::Absent));
    assert_eq!(bye_of(&e, 2, 8), Some(ByeKind::Absent));
    assert!(
        e.round_list[1]
            .boards
            .iter()
            .any(|b| b.white == 7 || b.black == 7)
    );
    // Unknown player: refused, nothing changes.
    let err = refused(&mut e, Change::CheckIn { player: 99 });
    assert_eq!(err, EventError::UnknownPlayer(99));
}

#[test]
fn a_round_robin_with_check_in_names_who_is_missing() {
    let mut e = Event::new("RR", Format::RoundRobin, None).unwrap();
    for i in 1..=4 {
        apply(
            &mut e,
            Change::AddPlayer {
                player: np(i),
                check_in: i != 3,
            },
        );
    }
    apply(&mut e, Change::SetCheckIn { required: true });
    let err = refused(&mut e, Change::PairNext).to_string();
    assert!(err.contains("not checked in: 3 (Player 3)"), "{err}");
    apply(&mut e, Change::RemovePlayer { player: 3 });
    assert_eq!(e.players.len(), 3);
    assert_eq!(e.players[2].name, "Player 4");
    assert_eq!(e.players[2].id, 3);
    apply(&mut e, Change::PairNext);
    // Pauses and forbidden pairs have no place in a round robin.
    assert!(
        refused(&mut e, Change::Pause { player: 1 })
            .to_string()
            .contains("no pauses")
    );
    assert!(
        refused(
            &mut e,
            Change::Forbid {
                a: 1,
                b: 2,
                note: None
            }
        )
        .to_string()
        .contains("cannot be honoured")
    );
    // After round 1, nobody can be removed.
    assert!(
        refused(&mut e, Change::RemovePlayer { player: 1 })
            .to_string()
            .contains("withdraw them instead")
    );
}

#[test]
fn pause_withdraw_and_requested_byes() {
    let mut e = event(Format::DoubleSwiss, 9, 6);
    apply(&mut e, Change::Pause { player: 2 });
    apply(
        &mut e,
        Change::RequestBye {
            player: 3,
            round: 1,
            kind: RequestedBye::Half,
        },
    );
    apply(
        &mut e,
        Change::RequestBye {
            player: 4,
            round: 2,
            kind: RequestedBye::Zero,
        },
    );
    apply(
        &mut e,
        Change::CancelBye {
            player: 4,
            round: 2,
        },
    );
    assert!(
        refused(
            &mut e,
            Change::CancelBye {
                player: 4,
                round: 2
            }
        )
        .to_string()
        .contains("asked for no bye in round 2")
    );
    assert!(
        refused(&mut e, Change::Pause { player: 2 })
            .to_string()
            .contains("already paused")
    );
    apply(&mut e, Change::PairNext);
    assert_eq!(bye_of(&e, 1, 2), Some(ByeKind::Absent));
    assert_eq!(bye_of(&e, 1, 3), Some(ByeKind::Half));
    // 7 players left to pair: one gets the pairing-allocated bye.
    assert_eq!(e.round_list[0].boards.len(), 3);
    assert_eq!(
        e.round_list[0]
            .byes
            .iter()
            .filter(|b| b.kind == ByeKind::Pab)
            .count(),
        1
    );
    // A half-point bye in a Double Swiss is a draw of both games: 1 point.
    assert_eq!(e.round_points(3, 1), 2);
    finish_round(&mut e, 1);
    apply(&mut e, Change::Resume { player: 2 });
    apply(
        &mut e,
        Change::Withdraw {
            player: 5,
            from_round: None,
        },
    );
    // A withdrawal cannot start in a round already paired.
    assert!(
        refused(
            &mut e,
            Change::Withdraw {
                player: 6,
                from_round: Some(1)
            }
        )
        .to_string()
        .contains("already paired")
    );
    apply(&mut e, Change::PairNext);
    assert_eq!(bye_of(&e, 2, 5), Some(ByeKind::Absent));
    assert_eq!(bye_of(&e, 2, 2), None, "resumed: paired");
    finish_round(&mut e, 2);
    apply(&mut e, Change::Reinstate { player: 5 });
    apply(&mut e, Change::PairNext);
    assert_ne!(
        bye_of(&e, 3, 5),
        Some(ByeKind::Absent),
        "reinstated: paired"
    );
    // Byes for rounds already paired, and unknown players, are refused.
    assert!(
        refused(
            &mut e,
            Change::RequestBye {
                player: 1,
                round: 3,
                kind: RequestedBye::Half
            }
        )
        .to_string()
        .contains("rounds 4 to 6 only")
    );
}

/// A pair the system would make in round 1 (board 1), forbidden: never paired, in every
/// Swiss system, and the rest of the evening keeps them apart too.
#[test]
fn forbidden_pairs_are_honoured_by_every_swiss_system() {
    for format in [Format::Swiss, Format::DoubleSwiss, Format::UsSwiss] {
        let mut free = event(format, 10, 5);
        apply(&mut free, Change::PairNext);
        let first = free.round_list[0].boards[0].clone();
        let mut e = event(format, 10, 5);
        apply(
            &mut e,
            Change::Forbid {
                a: first.white,
                b: first.black,
                note: Some("siblings".into()),
            },
        );
        assert!(
            refused(
                &mut e,
                Change::Forbid {
                    a: first.black,
                    b: first.white,
                    note: None
                }
            )
            .to_string()
            .contains("already a forbidden pair")
        );
        let key = (first.white.min(first.black), first.white.max(first.black));
        for round in 1..=5 {
            apply(&mut e, Change::PairNext);
            assert!(
                !pairs(&e, round).contains(&key),
                "{format}: forbidden pair {key:?} paired in round {round}"
            );
            finish_round(&mut e, round);
        }
        // Lifting it is logged with the note it had.
        apply(
            &mut e,
            Change::Allow {
                a: first.white,
                b: first.black,
            },
        );
        let last = e.log.last().unwrap();
        assert!(matches!(&last.before[0], Before::Setting { value, .. } if value == "siblings"));
        assert!(e.forbidden.is_empty());
    }
}

#[test]
fn forbidding_a_pair_already_paired_says_how_to_follow_it() {
    let mut e = event(Format::Swiss, 6, 3);
    apply(&mut e, Change::PairNext);
    let b = e.round_list[0].boards[1].clone();
    let effects = apply(
        &mut e,
        Change::Forbid {
            a: b.white,
            b: b.black,
            note: None,
        },
    );
    assert!(effects.iter().any(|x| matches!(x,
        Effect::PairingKept { round: 1, reason } if reason.contains("delete the round"))));
    apply(&mut e, Change::DeleteRound { round: 1 });
    apply(&mut e, Change::PairNext);
    assert!(!pairs(&e, 1).contains(&(b.white.min(b.black), b.white.max(b.black))));
}

#[test]
fn the_override_warns_for_each_broken_rule_and_records_who() {
    let mut e = event(Format::Swiss, 5, 5);
    apply(
        &mut e,
        Change::Forbid {
            a: 4,
            b: 5,
            note: None,
        },
    );
    apply(&mut e, Change::PairNext);
    finish_round(&mut e, 1);
    apply(&mut e, Change::Pause { player: 3 });
    apply(&mut e, Change::PairNext);
    let r1 = e.round_list[0].clone();
    let (w, b) = (r1.boards[0].white, r1.boards[0].black);
    let pab1 = r1
        .byes
        .iter()
        .find(|x| x.kind == ByeKind::Pab)
        .unwrap()
        .player;
    // Round 2 by hand: the round-1 board again, the forbidden pair, the paused player
    // on a board, and the bye to the player who had it in round 1.
    let others: Vec<u32> = (1..=5).filter(|p| ![w, b, pab1].contains(p)).collect();
    let mut boards = vec![(w, b)];
    let mut byes = vec![(pab1, ByeKind::Pab)];
    if others.len() == 2 {
        boards.push((others[0], others[1]));
    } else {
        byes.extend(others.iter().map(|&p| (p, ByeKind::Absent)));
    }
    let origin = Origin::new("deputy", 1_700_000_100_000);
    let effects = e
        .apply(
            Change::Override {
                round: 2,
                boards: boards.clone(),
                byes: byes.clone(),
            },
            &origin,
        )
        .unwrap();
    let Effect::PairingReplaced { warnings, .. } = &effects[0] else {
        panic!("{effects:?}")
    };
    assert!(
        warnings
            .iter()
            .any(|x| matches!(x, PairingWarning::Rematch { met_in: 1, .. })),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|x| matches!(x, PairingWarning::SecondPab { player } if *player == pab1)),
        "{warnings:?}"
    );
    let r2 = &e.round_list[1];
    assert!(r2.manual);
    assert_eq!(r2.manual_by.as_deref(), Some("deputy"));
    let entry = e.log.last().unwrap();
    assert_eq!((entry.by.as_str(), entry.at), ("deputy", 1_700_000_100_000));
    assert!(matches!(&entry.before[0], Before::Round { round } if round.boards != r2.boards));

    // The forbidden pair and the paused player, on their own boards.
    let rest: Vec<u32> = (1..=5).filter(|p| ![3, 4, 5].contains(p)).collect();
    let effects = apply(
        &mut e,
        Change::Override {
            round: 2,
            boards: vec![(4, 5), (3, rest[0])],
            byes: vec![(rest[1], ByeKind::Pab)],
        },
    );
    let Effect::PairingReplaced { warnings, .. } = &effects[0] else {
        panic!()
    };
    assert!(warnings.contains(&PairingWarning::Forbidden { white: 4, black: 5 }));
    assert!(warnings.contains(&PairingWarning::NotAvailable { player: 3 }));
    for w in warnings {
        assert!(!w.to_string().is_empty());
    }
    // A round robin: a pair out of the Berger table's round is flagged.
    let mut rr = Event::new("RR", Format::RoundRobin, None).unwrap();
    for i in 1..=4 {
        rr.add_player(np(i)).unwrap();
    }
    apply(&mut rr, Change::PairNext);
    let scheduled = pairs(&rr, 1);
    let off = [(1, 2), (1, 3), (1, 4)]
        .into_iter()
        .find(|p| !scheduled.contains(p))
        .unwrap();
    let rest: Vec<u32> = (1..=4).filter(|p| *p != off.0 && *p != off.1).collect();
    let effects = apply(
        &mut rr,
        Change::Override {
            round: 1,
            boards: vec![off, (rest[0], rest[1])],
            byes: vec![],
        },
    );
    assert!(
        matches!(&effects[0], Effect::PairingReplaced { warnings, .. }
        if warnings.contains(&PairingWarning::OutOfSchedule { white: off.0, black: off.1 }))
    );
}

#[test]
fn the_dutch_override_warns_about_colours() {
    let mut e = event(Format::Swiss, 4, 5);
    // Three rounds in which player 1 has White every time, by hand.
    for round in 1..=3 {
        apply(&mut e, Change::PairNext);
        let opponent = round + 1;
        let rest: Vec<u32> = (2..=4).filter(|p| *p != opponent).collect();
        let effects = apply(
            &mut e,
            Change::Override {
                round,
                boards: vec![(1, opponent), (rest[0], rest[1])],
                byes: vec![],
            },
        );
        let Effect::PairingReplaced { warnings, .. } = &effects[0] else {
            panic!()
        };
        let colour = warnings
            .iter()
            .any(|w| matches!(w, PairingWarning::Colour { player: 1, .. }));
        assert_eq!(colour, round == 3, "round {round}: {warnings:?}");
        finish_round(&mut e, round);
    }
}

#[test]
fn a_round_is_deleted_only_while_nothing_in_it_is_played() {
    let mut e = event(Format::DoubleSwiss, 6, 4);
    assert!(
        refused(&mut e, Change::DeleteRound { round: 1 })
            .to_string()
            .contains("only the latest round")
    );
    apply(&mut e, Change::PairNext);
    apply(
        &mut e,
        Change::LinkGame {
            round: 1,
            board: 2,
            game: 2,
            id: "g-42".into(),
        },
    );
    assert_eq!(
        e.round_list[0].boards[1].games[1].game.as_deref(),
        Some("g-42")
    );
    assert!(
        refused(
            &mut e,
            Change::LinkGame {
                round: 1,
                board: 2,
                game: 3,
                id: "x".into()
            }
        )
        .to_string()
        .contains("has 2 game(s), not a game 3")
    );
    apply(
        &mut e,
        Change::GameStarted {
            round: 1,
            board: 2,
            game: 1,
        },
    );
    assert!(
        refused(&mut e, Change::DeleteRound { round: 1 })
            .to_string()
            .contains("has begun")
    );
    assert!(
        refused(
            &mut e,
            Change::Override {
                round: 1,
                boards: vec![(1, 2), (3, 4), (5, 6)],
                byes: vec![]
            }
        )
        .to_string()
        .contains("has begun")
    );
    // A round with no game begun is deleted, and the log keeps it.
    let mut e = event(Format::Swiss, 6, 4);
    apply(&mut e, Change::PairNext);
    let round = e.round_list[0].clone();
    apply(&mut e, Change::DeleteRound { round: 1 });
    assert_eq!(e.rounds_paired(), 0);
    assert!(matches!(&e.log.last().unwrap().before[0], Before::Round { round: r } if **r == round));
}

#[test]
fn corrections_are_logged_and_the_next_round_follows_while_unplayed() {
    let mut e = event(Format::Swiss, 8, 5);
    apply(&mut e, Change::PairNext);
    finish_round(&mut e, 1);
    apply(&mut e, Change::PairNext);
    let paired_on_old = e.round_list[1].clone();
    // Board 1 of round 1 was really won by Black: correct it.
    let origin = Origin::new("arbiter", 1_700_000_200_000);
    let effects = e
        .apply(
            Change::SetResults {
                round: 1,
                board: 1,
                results: vec![RecordedResult::BlackWins],
            },
            &origin,
        )
        .unwrap();
    let entry = e.log.last().unwrap().clone();
    assert_eq!(entry.by, "arbiter");
    assert_eq!(entry.at, 1_700_000_200_000);
    assert!(
        matches!(&entry.before[0], Before::Results { round: 1, board: 1, results }
        if results == &vec![RecordedResult::WhiteWins])
    );
    assert!(effects.contains(&Effect::StandingsChanged));
    // Round 2 was paired again on the corrected scores: the same as pairing it afresh.
    let mut fresh = e.clone();
    fresh.round_list.pop();
    fresh.pair_next().unwrap();
    assert_eq!(e.round_list[1].boards, fresh.round_list[1].boards);
    if e.round_list[1].boards != paired_on_old.boards {
        assert!(effects.contains(&Effect::Repaired { round: 2 }));
        assert!(
            entry.before.iter().any(
                |b| matches!(b, Before::Round { round } if round.boards == paired_on_old.boards)
            )
        );
    }
    // Once a game of round 2 has begun, a correction of round 1 keeps round 2.
    apply(
        &mut e,
        Change::GameStarted {
            round: 2,
            board: 3,
            game: 1,
        },
    );
    let kept = e.round_list[1].clone();
    let effects = apply(
        &mut e,
        Change::SetResults {
            round: 1,
            board: 2,
            results: vec![RecordedResult::WhiteWinsByForfeit],
        },
    );
    assert!(
        effects
            .iter()
            .any(|x| matches!(x, Effect::PairingKept { round: 2, .. }))
    );
    assert_eq!(e.round_list[1], kept);
    // A result of an earlier round can be replaced, not removed.
    assert!(
        refused(
            &mut e,
            Change::SetResults {
                round: 1,
                board: 1,
                results: vec![RecordedResult::Pending]
            }
        )
        .to_string()
        .contains("corrected or replaced, not removed")
    );
    // The standings follow the corrections.
    let st = e.standings(Some(1), None).unwrap();
    let row_of = |id: u32| {
        st.rows
            .iter()
            .find(|r| e.players[r.player].id == id)
            .unwrap()
    };
    let b1 = e.round_list[0].boards[0].clone();
    assert_eq!(row_of(b1.black).score.0, 2);
    assert_eq!(row_of(b1.white).score.0, 0);
}

#[test]
fn a_manual_round_is_not_paired_again_after_a_correction() {
    let mut e = event(Format::UsSwiss, 6, 4);
    apply(&mut e, Change::PairNext);
    finish_round(&mut e, 1);
    apply(&mut e, Change::PairNext);
    let r2 = e.round_list[1].clone();
    let boards: Vec<(u32, u32)> = r2.boards.iter().map(|b| (b.black, b.white)).collect();
    apply(
        &mut e,
        Change::Override {
            round: 2,
            boards,
            byes: vec![],
        },
    );
    let manual = e.round_list[1].clone();
    let effects = apply(
        &mut e,
        Change::SetResults {
            round: 1,
            board: 1,
            results: vec![RecordedResult::Draw],
        },
    );
    assert!(
        effects
            .iter()
            .any(|x| matches!(x, Effect::PairingKept { reason, .. } if reason.contains("by hand")))
    );
    assert_eq!(e.round_list[1], manual);
}

#[test]
fn each_game_of_a_match_comes_in_on_its_own() {
    let mut e = event(Format::RoundRobinMatches, 4, 3);
    apply(&mut e, Change::PairNext);
    let effects = apply(
        &mut e,
        Change::SetGameResult {
            round: 1,
            board: 1,
            game: 2,
            result: RecordedResult::BlackWins,
        },
    );
    assert_eq!(effects, vec![Effect::ResultsChanged { round: 1, board: 1 }]);
    let b = &e.round_list[0].boards[0];
    assert_eq!(b.games[0].result, RecordedResult::Pending);
    assert_eq!(b.games[1].result, RecordedResult::BlackWins);
    // Game 2 has the board's Black as White: Black of the board won it... as Black of
    // game 2, i.e. the board's White.
    assert_eq!(e.round_points(b.white, 1), 2);
    apply(
        &mut e,
        Change::SetGameResult {
            round: 1,
            board: 1,
            game: 1,
            result: RecordedResult::Draw,
        },
    );
    let effects = apply(
        &mut e,
        Change::SetResults {
            round: 1,
            board: 2,
            results: vec![RecordedResult::Draw, RecordedResult::Draw],
        },
    );
    assert!(effects.contains(&Effect::RoundComplete { round: 1 }));
    assert!(
        refused(
            &mut e,
            Change::SetGameResult {
                round: 1,
                board: 1,
                game: 0,
                result: RecordedResult::Draw
            }
        )
        .to_string()
        .contains("not a game 0")
    );
}

#[test]
fn ratings_before_round_one_reorder_the_players_and_their_forbidden_pairs() {
    let mut e = event(Format::Swiss, 4, 3);
    apply(
        &mut e,
        Change::Forbid {
            a: 1,
            b: 4,
            note: None,
        },
    );
    // Player 4 (rated lowest) turns out to be rated highest.
    let effects = apply(
        &mut e,
        Change::UpdatePlayers {
            updates: vec![PlayerUpdate {
                player: 4,
                rating: Some(2600),
                fide_id: Some(1_503_014),
                title: Some("GM".into()),
                ..PlayerUpdate::default()
            }],
        },
    );
    assert!(effects.contains(&Effect::Renumbered));
    assert_eq!(e.players[0].name, "Player 4");
    assert_eq!(e.players[0].id, 1);
    assert_eq!(e.players[0].title.as_deref(), Some("GM"));
    assert_eq!(e.players[1].name, "Player 1");
    // The forbidden pair followed its players: Player 1 (now 2) and Player 4 (now 1).
    assert_eq!((e.forbidden[0].a, e.forbidden[0].b), (1, 2));
    // Bad updates are refused whole.
    let err = refused(
        &mut e,
        Change::UpdatePlayers {
            updates: vec![
                PlayerUpdate {
                    player: 2,
                    rating: Some(2000),
                    ..PlayerUpdate::default()
                },
                PlayerUpdate {
                    player: 3,
                    rating: Some(9000),
                    ..PlayerUpdate::default()
                },
            ],
        },
    );
    assert!(err.to_string().contains("9000"), "{err}");
    // After round 1 the numbers stay.
    apply(&mut e, Change::PairNext);
    apply(
        &mut e,
        Change::UpdatePlayers {
            updates: vec![PlayerUpdate {
                player: 4,
                rating: Some(2700),
                ..PlayerUpdate::default()
            }],
        },
    );
    assert_eq!(e.players[3].rating, Some(2700));
    assert_eq!(e.players[3].id, 4);
}

#[test]
fn late_entries_renumber_forbidden_pairs_too() {
    let mut e = event(Format::Swiss, 6, 4);
    apply(
        &mut e,
        Change::Forbid {
            a: 2,
            b: 5,
            note: None,
        },
    );
    apply(&mut e, Change::PairNext);
    finish_round(&mut e, 1);
    let effects = apply(
        &mut e,
        Change::AddPlayer {
            player: NewPlayer {
                name: "Late".into(),
                rating: Some(2500),
                ..NewPlayer::default()
            },
            check_in: true,
        },
    );
    assert!(effects.contains(&Effect::PlayerAdded {
        player: 1,
        late: true,
        joins: 2
    }));
    assert!(effects.contains(&Effect::Renumbered));
    assert_eq!((e.forbidden[0].a, e.forbidden[0].b), (3, 6));
    assert!(e.players[0].checked_in);
}

#[test]
fn who_made_a_change_must_be_named() {
    let mut e = event(Format::Swiss, 2, 2);
    let before = e.clone();
    for by in ["", "  ", "a\nb"] {
        let err = e.apply(Change::PairNext, &Origin::new(by, 0)).unwrap_err();
        assert!(matches!(err, EventError::BadName(_)), "{by:?}: {err}");
    }
    assert_eq!(e, before);
}

/// A whole evening through `apply`: the JSON event file, and the event rebuilt from the
/// log rows, are the event.
#[test]
fn the_log_replayed_and_the_json_round_trip_give_the_same_event() {
    let base = Event::new("Evening", Format::DoubleSwiss, Some(4)).unwrap();
    let mut e = base.clone();
    for i in 1..=7 {
        apply(
            &mut e,
            Change::AddPlayer {
                player: np(i),
                check_in: true,
            },
        );
    }
    apply(&mut e, Change::SetCheckIn { required: true });
    apply(
        &mut e,
        Change::Forbid {
            a: 1,
            b: 3,
            note: Some("club".into()),
        },
    );
    apply(&mut e, Change::PairNext);
    finish_round(&mut e, 1);
    apply(&mut e, Change::PairNext);
    apply(
        &mut e,
        Change::SetResults {
            round: 1,
            board: 2,
            results: vec![RecordedResult::BlackWins, RecordedResult::Draw],
        },
    );
    finish_round(&mut e, 2);
    let rebuilt = Event::replay(base, &e.log).unwrap();
    assert_eq!(rebuilt, e);
    let json = serde_json::to_string(&e).unwrap();
    let back: Event = serde_json::from_str(&json).unwrap();
    assert_eq!(back, e);
    back.validate().unwrap();
    // One log row as a server would store it.
    let row = serde_json::to_string(&e.log[0]).unwrap();
    assert!(row.contains("\"change\":\"add-player\""), "{row}");
}

#[derive(Debug, Clone)]
enum Op {
    Pair,
    Delete,
    Result(u8, u8, u8),
    Game(u8, u8, u8, u8),
    CheckIn(u8),
    CheckOut(u8),
    Pause(u8),
    Resume(u8),
    Withdraw(u8, u8),
    Bye(u8, u8, u8),
    Forbid(u8, u8),
    Allow(u8, u8),
    Override(u8),
    Add(u16),
    Remove(u8),
    Rating(u8, u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Pair),
        1 => Just(Op::Delete),
        8 => (0u8..4, 0u8..10, any::<u8>()).prop_map(|(r, b, k)| Op::Result(r, b, k)),
        2 => (0u8..4, 0u8..10, 0u8..3, any::<u8>()).prop_map(|(r, b, g, k)| Op::Game(r, b, g, k)),
        1 => (0u8..12).prop_map(Op::CheckIn),
        1 => (0u8..12).prop_map(Op::CheckOut),
        1 => (0u8..12).prop_map(Op::Pause),
        1 => (0u8..12).prop_map(Op::Resume),
        1 => (0u8..12, 0u8..5).prop_map(|(p, r)| Op::Withdraw(p, r)),
        1 => (0u8..12, 0u8..6, 0u8..3).prop_map(|(p, r, k)| Op::Bye(p, r, k)),
        1 => (0u8..12, 0u8..12).prop_map(|(a, b)| Op::Forbid(a, b)),
        1 => (0u8..12, 0u8..12).prop_map(|(a, b)| Op::Allow(a, b)),
        1 => any::<u8>().prop_map(Op::Override),
        1 => (1000u16..2800).prop_map(Op::Add),
        1 => (0u8..12).prop_map(Op::Remove),
        1 => (0u8..12, 0u16..4100).prop_map(|(p, r)| Op::Rating(p, r)),
    ]
}

fn result_of(k: u8) -> RecordedResult {
    match k % 9 {
        0..=2 => RecordedResult::WhiteWins,
        3 | 4 => RecordedResult::BlackWins,
        5 | 6 => RecordedResult::Draw,
        7 => RecordedResult::BlackWinsByForfeit,
        _ => RecordedResult::Pending,
    }
}

fn change_of(e: &Event, op: &Op) -> Change {
    let p = |x: u8| u32::from(x) + 1;
    match *op {
        Op::Pair => Change::PairNext,
        Op::Delete => Change::DeleteRound {
            round: e.rounds_paired(),
        },
        Op::Result(r, b, k) => Change::SetResults {
            round: p(r),
            board: p(b),
            results: vec![
                result_of(k);
                if k % 11 == 0 {
                    1
                } else {
                    e.format.games_per_round() as usize
                }
            ],
        },
        Op::Game(r, b, g, k) => Change::SetGameResult {
            round: p(r),
            board: p(b),
            game: u32::from(g),
            result: result_of(k),
        },
        Op::CheckIn(x) => Change::CheckIn { player: p(x) },
        Op::CheckOut(x) => Change::CheckOut { player: p(x) },
        Op::Pause(x) => Change::Pause { player: p(x) },
        Op::Resume(x) => Change::Resume { player: p(x) },
        Op::Withdraw(x, r) => Change::Withdraw {
            player: p(x),
            from_round: (r > 0).then_some(u32::from(r)),
        },
        Op::Bye(x, r, k) => Change::RequestBye {
            player: p(x),
            round: u32::from(r),
            kind: [RequestedBye::Half, RequestedBye::Zero, RequestedBye::Full][k as usize],
        },
        Op::Forbid(a, b) => Change::Forbid {
            a: p(a),
            b: p(b),
            note: None,
        },
        Op::Allow(a, b) => Change::Allow { a: p(a), b: p(b) },
        Op::Override(k) => {
            // Pair the players in some order: sometimes legal, often not.
            let mut ids: Vec<u32> = e.players.iter().map(|x| x.id).collect();
            let n = ids.len().max(1);
            ids.rotate_left(usize::from(k) % n);
            if k % 3 == 0 {
                ids.pop();
            }
            let boards = ids
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| (c[0], c[1]))
                .collect();
            let byes = ids
                .chunks(2)
                .filter(|c| c.len() == 1)
                .map(|c| (c[0], ByeKind::Pab))
                .collect();
            Change::Override {
                round: e.rounds_paired(),
                boards,
                byes,
            }
        }
        Op::Add(r) => Change::AddPlayer {
            player: NewPlayer {
                name: format!("New {r}"),
                rating: Some(u32::from(r)),
                ..NewPlayer::default()
            },
            check_in: r % 2 == 0,
        },
        Op::Remove(x) => Change::RemovePlayer { player: p(x) },
        Op::Rating(x, r) => Change::UpdatePlayers {
            updates: vec![PlayerUpdate {
                player: p(x),
                rating: Some(u32::from(r)),
                ..PlayerUpdate::default()
            }],
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any sequence of changes, sensible or not: a refused change leaves the event as it
    /// was; every event reached is consistent, keeps forbidden pairs apart in the rounds
    /// the engine paired, survives JSON, and is rebuilt by replaying its log.
    #[test]
    fn refused_changes_change_nothing(
        format in prop_oneof![Just(Format::Swiss), Just(Format::DoubleSwiss), Just(Format::UsSwiss), Just(Format::RoundRobin)],
        ops in proptest::collection::vec(op(), 1..60),
    ) {
        let base = Event::new("P", format, Some(5)).unwrap();
        let mut e = base.clone();
        for i in 1..=7 {
            e.apply(Change::AddPlayer { player: np(i), check_in: i % 3 != 0 }, &director()).unwrap();
        }
        for o in &ops {
            let change = change_of(&e, o);
            let before = e.clone();
            match e.apply(change.clone(), &director()) {
                Ok(effects) => {
                    e.validate().map_err(|err| TestCaseError::fail(format!("{change:?}: {err}")))?;
                    // A round the engine has just paired keeps the forbidden pairs apart.
                    let paired = effects.iter().any(|x| matches!(x, Effect::RoundPaired { .. } | Effect::Repaired { .. }));
                    if paired {
                        let r = e.round_list.last().unwrap();
                        for b in &r.boards {
                            prop_assert!(!e.is_forbidden(b.white, b.black), "round {} pairs forbidden {}-{}", r.number, b.white, b.black);
                        }
                    }
                }
                Err(err) => {
                    prop_assert_eq!(&e, &before, "{:?} refused ({}) but changed the event", change, err);
                    prop_assert!(!err.to_string().is_empty());
                }
            }
        }
        let json = serde_json::to_string(&e).unwrap();
        let back: Event = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &e);
        let rebuilt = Event::replay(base, &e.log).unwrap();
        prop_assert_eq!(rebuilt, e);
    }
}
