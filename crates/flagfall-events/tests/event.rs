//! Whole events run through the library with random results, late entries, requested byes
//! and withdrawals. Properties: every round, every player is on exactly one board or has
//! exactly one bye; Swiss formats never repeat a game played over the board; round robins
//! meet every pair once per cycle with colours reversed in the second; the crosstable is
//! consistent and standings compute; the event survives a JSON round trip.

use std::collections::HashMap;

use flagfall_events::event::{
    ByeKind, Cell, Event, EventError, Format, ManualPairing, NewPlayer, RecordedResult,
    RequestedBye,
};
use flagfall_events::export;
use proptest::prelude::*;

fn player(i: u32) -> NewPlayer {
    NewPlayer {
        name: format!("Player {i}"),
        rating: Some(2500 - 17 * i),
        federation: None,
        fide_id: None,
        uscf_id: None,
    }
}

fn result_from(k: u8) -> RecordedResult {
    match k % 8 {
        0..=2 => RecordedResult::WhiteWins,
        3..=4 => RecordedResult::BlackWins,
        5..=6 => RecordedResult::Draw,
        _ => RecordedResult::WhiteWinsByForfeit,
    }
}

fn play_round(event: &mut Event, round: u32, rng: &mut impl Iterator<Item = u8>) {
    let boards: Vec<u32> = event.round_list[round as usize - 1]
        .boards
        .iter()
        .map(|b| b.number)
        .collect();
    let g = event.format.games_per_round() as usize;
    for b in boards {
        let results: Vec<RecordedResult> = (0..g)
            .map(|_| result_from(rng.next().unwrap_or(0)))
            .collect();
        event.set_result(round, b, &results).unwrap();
    }
}

fn check_round(event: &Event, round: u32) {
    let r = &event.round_list[round as usize - 1];
    let mut count: HashMap<u32, u32> = HashMap::new();
    for b in &r.boards {
        *count.entry(b.white).or_default() += 1;
        *count.entry(b.black).or_default() += 1;
    }
    for bye in &r.byes {
        *count.entry(bye.player).or_default() += 1;
    }
    for p in &event.players {
        assert_eq!(
            count.get(&p.id),
            Some(&1),
            "round {round}: player {} appears {:?} times",
            p.id,
            count.get(&p.id)
        );
    }
    assert!(r.byes.iter().filter(|b| b.kind == ByeKind::Pab).count() <= 1);
}

fn no_rematches(event: &Event) {
    let mut met: HashMap<(u32, u32), u32> = HashMap::new();
    for r in &event.round_list {
        for b in &r.boards {
            if b.games.iter().any(|g| g.result.is_played()) {
                let key = (b.white.min(b.black), b.white.max(b.black));
                *met.entry(key).or_default() += 1;
            }
        }
    }
    for (pair, n) in met {
        assert_eq!(n, 1, "{pair:?} met {n} times");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn swiss_events_pair_everyone_once_and_never_repeat(
        n in 12u32..26,
        fmt in 0usize..3,
        rng in prop::collection::vec(any::<u8>(), 200),
        late in 0u32..3,
        bye_player in 1u32..6,
    ) {
        let format = [Format::UsSwiss, Format::DoubleSwiss, Format::Swiss][fmt];
        let rounds = 5;
        let mut e = Event::new("Prop", format, Some(rounds)).unwrap();
        for i in 1..=n {
            e.add_player(player(i)).unwrap();
        }
        e.request_bye(bye_player, 2, RequestedBye::Half).unwrap();
        let mut rng = rng.into_iter().cycle();
        for round in 1..=rounds {
            if round == 2 {
                for j in 0..late {
                    // The first late entrant is rated above the field: it takes number 1.
                    let new = if j == 0 { rated("Strong late", 2600) } else { player(100 + j) };
                    let id = e.add_player(new).unwrap();
                    prop_assert_eq!(id == 1, j == 0);
                }
            }
            if round == 3 {
                e.withdraw(1, None).unwrap();
            }
            prop_assert_eq!(e.pair_next().unwrap(), round);
            check_round(&e, round);
            play_round(&mut e, round, &mut rng);
        }
        no_rematches(&e);
        // Late entries are absent before they join; the withdrawn player after leaving.
        prop_assert_eq!(e.cell(1, 4), Cell::Bye(ByeKind::Absent));
        let st = e.standings(None, None).unwrap();
        prop_assert_eq!(st.rows.len(), e.players.len());
        let back: Event = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        prop_assert_eq!(&back, &e);
        back.validate().unwrap();
        // Scores in the standings agree with the event's own sums.
        for row in &st.rows {
            let id = e.players[row.player].id;
            prop_assert_eq!(row.score.0, e.score_after(id, rounds));
        }
        prop_assert!(!export::trf(&e).unwrap().is_empty());
    }

    #[test]
    fn round_robins_meet_every_pair_once_per_cycle(n in 3u32..14, kind in 0usize..3, rng in prop::collection::vec(any::<u8>(), 50)) {
        let format = [Format::RoundRobin, Format::DoubleRoundRobin, Format::RoundRobinMatches][kind];
        let double = format == Format::DoubleRoundRobin;
        let mut e = Event::new("RR", format, None).unwrap();
        for i in 1..=n {
            e.add_player(player(i)).unwrap();
        }
        let mut rng = rng.into_iter().cycle();
        let mut round = 0;
        while round < e.rounds || round == 0 {
            round = e.pair_next().unwrap();
            check_round(&e, round);
            play_round(&mut e, round, &mut rng);
        }
        let cycles = if double { 2 } else { 1 };
        let per_cycle = n - 1 + n % 2;
        prop_assert_eq!(e.rounds, per_cycle * cycles);
        let mut white_of: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        for r in &e.round_list {
            for b in &r.boards {
                prop_assert_eq!(b.games.len() as u32, format.games_per_round());
                white_of.entry((b.white.min(b.black), b.white.max(b.black))).or_default().push(b.white);
            }
        }
        prop_assert_eq!(white_of.len() as u32, n * (n - 1) / 2);
        for whites in white_of.values() {
            prop_assert_eq!(whites.len() as u32, cycles);
            if double {
                prop_assert_ne!(whites[0], whites[1]);
            }
        }
        prop_assert!(matches!(e.pair_next(), Err(EventError::EventOver(_))));
        e.standings(None, None).unwrap();
    }
}

#[test]
fn corrections_change_standings_and_results_need_the_right_count() {
    let mut e = Event::new("C", Format::DoubleSwiss, Some(3)).unwrap();
    for i in 1..=4 {
        e.add_player(player(i)).unwrap();
    }
    e.pair_next().unwrap();
    // Board 1 is 1 v 3 (top half v bottom half), 1 has White in game 1.
    let b = &e.round_list[0].boards[0];
    assert_eq!((b.white, b.black), (1, 3));
    assert!(matches!(
        e.set_result(1, 1, &[RecordedResult::WhiteWins]),
        Err(EventError::ResultCount {
            expected: 2,
            given: 1,
            ..
        })
    ));
    e.set_result(
        1,
        1,
        &[RecordedResult::WhiteWins, RecordedResult::BlackWins],
    )
    .unwrap();
    assert_eq!(e.score_after(1, 1), 4, "2-0 is four half points");
    assert!(matches!(
        e.pair_next(),
        Err(EventError::RoundIncomplete { round: 1, .. })
    ));
    e.set_result(1, 2, &[RecordedResult::Draw, RecordedResult::Draw])
        .unwrap();
    // Correction: game 2 of board 1 was won by 3 (White in game 2).
    e.set_result(
        1,
        1,
        &[RecordedResult::WhiteWins, RecordedResult::WhiteWins],
    )
    .unwrap();
    assert_eq!(e.score_after(1, 1), 2);
    assert_eq!(e.score_after(3, 1), 2);
    let st = e.standings(None, Some("BH")).unwrap();
    assert_eq!(st.rows.iter().map(|r| r.score.0).sum::<u32>(), 8);
}

#[test]
fn manual_override_is_checked() {
    let mut e = Event::new("M", Format::UsSwiss, Some(3)).unwrap();
    for i in 1..=5 {
        e.add_player(player(i)).unwrap();
    }
    e.pair_next().unwrap();
    let bad = ManualPairing {
        boards: vec![(1, 2), (3, 4)],
        byes: vec![],
    };
    let err = e.override_pairing(1, &bad, None).unwrap_err().to_string();
    assert!(
        err.contains("player 5 (Player 5) has neither a board nor a bye"),
        "{err}"
    );
    let twice = ManualPairing {
        boards: vec![(1, 2), (2, 4)],
        byes: vec![(5, ByeKind::Pab), (3, ByeKind::Half)],
    };
    assert!(
        e.override_pairing(1, &twice, None)
            .unwrap_err()
            .to_string()
            .contains("player 2 appears twice")
    );
    let good = ManualPairing {
        boards: vec![(1, 2), (3, 4)],
        byes: vec![(5, ByeKind::Pab)],
    };
    assert!(e.override_pairing(1, &good, None).unwrap().is_empty());
    assert!(e.round_list[0].manual);
    assert!(e.override_pairing(2, &good, None).is_err());
}

#[test]
fn bad_values_are_named() {
    assert_eq!(
        "knockout".parse::<Format>().unwrap_err().to_string(),
        "format \"knockout\" is not valid; expected round-robin (rr), double-round-robin (drr), round-robin-matches (rr-matches), swiss, double-swiss, us-swiss"
    );
    assert!(
        "2-0"
            .parse::<RecordedResult>()
            .unwrap_err()
            .to_string()
            .starts_with("result \"2-0\" is not valid")
    );
    assert!(Event::new("  ", Format::Swiss, Some(5)).is_err());
    assert!(Event::new("X", Format::Swiss, Some(0)).is_err());
    let mut e = Event::new("X", Format::Swiss, Some(5)).unwrap();
    assert!(e.set_time_control("G/five").is_err());
    let check = e.set_time_control("G/3;inc2").unwrap();
    assert!(
        check.us_blitz_ratable,
        "G/3;inc2 is rated blitz (docs/rules.md §1.2)"
    );
    let check = e.set_time_control("G/15;d0").unwrap();
    assert!(!check.us_blitz && !check.us_blitz_ratable);
    assert!(e.set_tiebreaks("BH,XYZ").is_err());
    assert!(
        e.add_player(NewPlayer {
            name: "A".into(),
            federation: Some("U1A".into()),
            ..NewPlayer::default()
        })
        .is_err()
    );
}

/// A Swiss by the FIDE Dutch engine through the event: round 1 is the top half against
/// the bottom half (C.04.3), the lot's colour for the top seed, alternating down.
#[test]
fn dutch_swiss_event_round_one() {
    let mut e = Event::new("D", Format::Swiss, Some(5)).unwrap();
    for i in 1..=6 {
        e.add_player(player(i)).unwrap();
    }
    e.request_bye(6, 1, RequestedBye::Zero).unwrap();
    e.pair_next().unwrap();
    let r = &e.round_list[0];
    let pairs: Vec<(u32, u32)> = r.boards.iter().map(|b| (b.white, b.black)).collect();
    // Five to pair: 5 (the lowest) gets the PAB; 1-3 and 4-2 (colours alternate).
    assert_eq!(pairs, vec![(1, 3), (4, 2)]);
    assert!(
        r.byes
            .iter()
            .any(|b| b.player == 5 && b.kind == ByeKind::Pab)
    );
    assert!(
        r.byes
            .iter()
            .any(|b| b.player == 6 && b.kind == ByeKind::Zero)
    );
}

#[test]
fn pgn_marks_forfeits_and_paper_games_have_only_a_result() {
    let mut e = Event::new("P \"quoted\"", Format::UsSwiss, Some(2)).unwrap();
    for i in 1..=4 {
        e.add_player(player(i)).unwrap();
    }
    e.pair_next().unwrap();
    e.set_result(1, 1, &[RecordedResult::WhiteWinsByForfeit])
        .unwrap();
    e.set_result(1, 2, &[RecordedResult::DoubleForfeit])
        .unwrap();
    let pgn = export::pgn(&e);
    assert!(pgn.contains("[Event \"P \\\"quoted\\\"\"]"), "{pgn}");
    assert!(
        pgn.contains("[Termination \"forfeit\"]\n\n{won by forfeit} 1-0\n"),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    assert!(
        pgn.contains("{double forfeit: neither player played} *\n"),
        "{pgn}"
    );
    // A played game with no moves recorded: headers, blank line, result.
    e.set_result(1, 1, &[RecordedResult::Draw]).unwrap();
    let pgn = export::pgn(&e);
    assert!(pgn.contains("[BlackElo \"2449\"]\n\n1/2-1/2\n"), "{pgn}");
    // Online games carry their moves.
    e.set_moves(1, 1, 0, "1. e4 e5 2. Nf3 Nc6".into()).unwrap();
    assert!(export::pgn(&e).contains("\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n"));
    // TRF: forfeit and double-forfeit codes on both rows.
    let trf = export::trf(&e).unwrap();
    assert!(trf.contains("142 2"), "{trf}");
    let row = |n: u32| {
        trf.lines()
            .find(|l| l.starts_with(&format!("001 {n:>4}")))
            .unwrap()
            .to_string()
    };
    // Board 2 was 2 v 4 (or 4 v 2): a double forfeit is `-` for both.
    assert!(row(2).ends_with(" -"), "{}", row(2));
    assert!(row(4).ends_with(" -"), "{}", row(4));
}

/// The TRF export reads back with the TRF reader, and the FIDE Dutch engine pairs the
/// next round from the exported file exactly as the event pairs it itself.
#[test]
fn trf_export_reads_back_and_pairs_the_same() {
    use flagfall_pairing::dutch::{self, DutchInput};
    use flagfall_pairing::trf::Trf;
    let mut e = Event::new("TRF", Format::Swiss, Some(5)).unwrap();
    for i in 1..=11 {
        e.add_player(player(i)).unwrap();
    }
    let mut rng = [3u8, 0, 5, 4, 1, 7, 2, 6, 0, 3].into_iter().cycle();
    for round in 1..=3 {
        e.pair_next().unwrap();
        play_round(&mut e, round, &mut rng);
    }
    let text = export::trf(&e).unwrap();
    let trf = Trf::parse(&text).unwrap();
    assert_eq!(trf.players.len(), 11);
    for p in &trf.players {
        assert_eq!(
            p.points_tenths,
            e.score_after(p.number, 3) * 5,
            "player {}",
            p.number
        );
    }
    let from_file = dutch::pair(&DutchInput::from_trf(&trf).unwrap()).unwrap();
    e.pair_next().unwrap();
    let mut ours: Vec<(u32, u32)> = e.round_list[3]
        .boards
        .iter()
        .map(|b| (b.white, b.black))
        .collect();
    let mut theirs = from_file.boards.clone();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
    let pab = e.round_list[3]
        .byes
        .iter()
        .find(|b| b.kind == ByeKind::Pab)
        .map(|b| b.player);
    assert_eq!(pab, from_file.bye);
}

#[test]
fn trf_exported_mid_round_reads_back_with_its_pending_games() {
    use flagfall_events::import;
    use flagfall_pairing::dutch::DutchInput;
    use flagfall_pairing::trf::{ResultCode, Trf};
    let mut e = Event::new("TRF", Format::Swiss, Some(5)).unwrap();
    for i in 1..=10 {
        e.add_player(player(i)).unwrap();
    }
    let mut rng = [3u8, 0, 5, 4, 1, 7, 2, 6, 0, 3].into_iter().cycle();
    e.pair_next().unwrap();
    play_round(&mut e, 1, &mut rng);
    e.pair_next().unwrap();
    // Round 2: board 1 finished, the other four still being played.
    e.set_result(2, 1, &[RecordedResult::Draw]).unwrap();
    let text = export::trf(&e).unwrap();
    let trf = Trf::parse(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
    let round = &e.round_list[1];
    for b in &round.boards {
        for (me, them, colour) in [(b.white, b.black, 'w'), (b.black, b.white, 'b')] {
            let entry = trf.player(me).unwrap().round(2).unwrap();
            assert_eq!(entry.opponent, Some(them));
            assert_eq!(entry.colour.map(|c| c.letter()), Some(colour));
            let want = if b.number == 1 {
                ResultCode::Draw
            } else {
                ResultCode::Pending
            };
            assert_eq!(entry.result, want, "board {}, player {me}", b.number);
        }
        // A pending game is written as a blank result, never as a bye's `Z`.
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("001 {:>4}", b.white)))
            .unwrap();
        let block: String = line.chars().skip(101).take(8).collect();
        let want = if b.number == 1 {
            format!("{:>4} w =", b.black)
        } else {
            format!("{:>4} w", b.black)
        };
        assert_eq!(block.trim_end(), want, "{line}");
    }
    // Points count the finished games only.
    for p in &trf.players {
        assert_eq!(p.points_tenths, e.score_after(p.number, 2) * 5);
    }
    // A director takes the players from it...
    let players = import::players_from_trf(&trf);
    assert_eq!(players.len(), 10);
    assert_eq!(players[0].name, "Player 1");
    // ...but the next round is not paired from it, and the refusal says why.
    let err = DutchInput::from_trf(&trf).unwrap_err().to_string();
    let named = round.boards[1..].iter().any(|b| {
        [(b.white, b.black), (b.black, b.white)]
            .iter()
            .any(|(me, them)| {
                err.contains(&format!(
                    "player {me}, round 2: the game against {them} has no result yet"
                ))
            })
    });
    assert!(named, "{err}");
}

#[test]
fn time_control_is_judged_under_the_ruleset() {
    let mut e = Event::new("R", Format::Swiss, Some(5)).unwrap();
    assert!(e.set_ruleset("no-such-rules").is_err());
    e.set_ruleset("uscf-2020").unwrap();
    // G/3;inc2 totals 5 minutes with a base of 3: US Chess blitz and ratable.
    let c = e.set_time_control("G/3;inc2").unwrap();
    assert_eq!(
        c.ruleset_verdict.as_deref(),
        Some("allowed under uscf-2020; ratable (uscf-2020 rating)")
    );
    // G/2;d0 is blitz (1 to 10 minutes) but under 5 minutes total: not ratable.
    let c = e.set_time_control("G/2;d0").unwrap();
    assert_eq!(
        c.ruleset_verdict.as_deref(),
        Some("allowed under uscf-2020; not ratable (uscf-2020 rating)")
    );
    // G/15 is not blitz at all under US Chess: rejected with the rule cited.
    let err = e.set_time_control("G/15;d0").unwrap_err().to_string();
    assert!(
        err.starts_with("time control not allowed under uscf-2020 (uscf-2020 intro)"),
        "{err}"
    );
    // blitz-2006 plays five minutes without delay: the stored G/2 is judged again.
    assert!(e.set_ruleset("blitz-2006").is_err());
}

/// A withdrawn player's remaining round-robin games are forfeited to the opponent, game
/// by game with each game's colours (two-game matches included).
#[test]
fn round_robin_withdrawal_forfeits_every_remaining_game() {
    for format in [Format::RoundRobin, Format::RoundRobinMatches] {
        let mut e = Event::new("W", format, None).unwrap();
        for i in 1..=4 {
            e.add_player(player(i)).unwrap();
        }
        e.withdraw(4, Some(1)).unwrap();
        let games = format.games_per_round();
        for round in 1..=3 {
            e.pair_next().unwrap();
            let boards: Vec<u32> = e.round_list[round as usize - 1]
                .boards
                .iter()
                .filter(|b| b.white != 4 && b.black != 4)
                .map(|b| b.number)
                .collect();
            for b in boards {
                let draws = vec![RecordedResult::Draw; games as usize];
                e.set_result(round, b, &draws).unwrap();
            }
        }
        // 4 lost every game by forfeit. Each of 1, 2, 3 won by forfeit against 4 (2 half
        // points a game) and drew with the other two (1 a game): games × (2 + 1 + 1).
        assert_eq!(e.score_after(4, 3), 0, "{format}");
        for p in 1..=3 {
            assert_eq!(
                e.score_after(p, 3),
                games * (2 + 1 + 1),
                "{format} player {p}"
            );
        }
    }
}

/// C.04.1 c: the pairing-allocated bye is worth a win "unless the rules of the tournament
/// state otherwise"; a Double Swiss gives 1½ of the match by default, the director may set
/// another value, and the score and the standings use it.
#[test]
fn pab_points_set_by_the_regulations() {
    let mut e = Event::new("DS", Format::DoubleSwiss, Some(3)).unwrap();
    for i in 1..=5 {
        e.add_player(player(i)).unwrap();
    }
    // Defaults: 1½ of a Double Swiss match, a win in a Swiss.
    assert_eq!(e.pab_value(), 3);
    assert_eq!(
        Event::new("S", Format::Swiss, Some(3)).unwrap().pab_value(),
        2
    );
    assert_eq!(
        Event::new("U", Format::UsSwiss, Some(3))
            .unwrap()
            .pab_value(),
        2
    );
    e.set_pab_points("2").unwrap();
    assert_eq!(e.pab_value(), 4);
    e.set_pab_points("1½").unwrap();
    assert_eq!(e.pab_half_points, Some(3));
    e.pair_next().unwrap();
    let pab = e.round_list[0]
        .byes
        .iter()
        .find(|b| b.kind == ByeKind::Pab)
        .map(|b| b.player)
        .expect("five players: one PAB");
    assert_eq!(e.round_points(pab, 1), 3);
    let boards: Vec<u32> = e.round_list[0].boards.iter().map(|b| b.number).collect();
    for b in boards {
        e.set_result(
            1,
            b,
            &[RecordedResult::WhiteWins, RecordedResult::WhiteWins],
        )
        .unwrap();
    }
    let st = e.standings(None, Some("WIN")).unwrap();
    let row = st
        .rows
        .iter()
        .find(|r| e.players[r.player].id == pab)
        .expect("the PAB player is in the standings");
    assert_eq!(row.score.0, 3, "{row:?}");
    // 1½ holds one win (C.07 7.1, interpretation written in tiebreak/fide.rs).
    assert_eq!(
        row.values[0].map(|v| v.to_string()),
        Some("1".to_string()),
        "{row:?}"
    );
    // TRF: the bye's two columns add up to 1½ (`U` then `H`), like the points field.
    let trf = flagfall_pairing::trf::Trf::parse(&export::trf(&e).unwrap()).unwrap();
    let line = trf
        .players
        .iter()
        .find(|p| p.number == pab)
        .expect("the PAB player in the TRF");
    assert_eq!(line.points_tenths, 15);
    let codes: Vec<char> = line.rounds[..2]
        .iter()
        .map(|r| r.expect("an entry").result.to_char())
        .collect();
    assert_eq!(codes, vec!['U', 'H']);
    // The file keeps the value, and a changed value after pairing is refused.
    let back: Event = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    assert_eq!(back.pab_half_points, Some(3));
    back.validate().unwrap();
    // A hand-edited file with an impossible value is refused when loaded.
    let mut edited = back.clone();
    edited.pab_half_points = Some(5);
    let err = edited.validate().unwrap_err();
    assert!(err.to_string().contains("pab_half_points 5"), "{err}");
    let err = e.set_pab_points("2").unwrap_err();
    assert!(matches!(err, EventError::NotAllowed(_)), "{err}");
}

/// A Double Swiss file written before the bye's default became 1½ (layout version 1)
/// keeps the value it was scored with: a win of both games.
#[test]
fn version_1_double_swiss_keeps_its_pab_value() {
    let mut e = Event::new("DS", Format::DoubleSwiss, Some(3)).unwrap();
    for i in 1..=5 {
        e.add_player(player(i)).unwrap();
    }
    e.pair_next().unwrap();
    let mut v: serde_json::Value = serde_json::to_value(&e).unwrap();
    v["version"] = 1.into();
    let mut old: Event = serde_json::from_value(v).unwrap();
    assert!(
        old.validate().is_err(),
        "version 1 is not read as it stands"
    );
    old.upgrade();
    old.validate().unwrap();
    assert_eq!(old.version, flagfall_events::event::EVENT_FILE_VERSION);
    assert_eq!(old.pab_value(), 4);
    // A Swiss of version 1 meant a win too, which is still its default.
    let mut v = serde_json::to_value(Event::new("S", Format::Swiss, Some(3)).unwrap()).unwrap();
    v["version"] = 1.into();
    let mut swiss: Event = serde_json::from_value(v).unwrap();
    swiss.upgrade();
    assert_eq!((swiss.pab_half_points, swiss.pab_value()), (None, 2));
}

#[test]
fn pab_points_bad_values_are_named() {
    let mut ds = Event::new("DS", Format::DoubleSwiss, Some(3)).unwrap();
    for bad in ["2.5", "3", "x", "-1", "+1", "1.25", "1½.5", ""] {
        let err = ds.set_pab_points(bad).unwrap_err();
        assert!(err.to_string().contains(bad), "{bad}: {err}");
    }
    for (good, half) in [
        ("0", 0),
        ("0.5", 1),
        ("½", 1),
        ("1.5", 3),
        ("1.50", 3),
        ("1½", 3),
        ("2", 4),
        ("2.0", 4),
    ] {
        ds.set_pab_points(good).unwrap();
        assert_eq!(ds.pab_half_points, Some(half), "{good}");
    }
    let mut dutch = Event::new("D", Format::Swiss, Some(5)).unwrap();
    let err = dutch.set_pab_points("0.5").unwrap_err();
    assert!(err.to_string().contains("worth a win (C.04.1 c)"), "{err}");
}

/// The boards of a round as (White, Black) pairing numbers.
fn pairs(event: &Event, round: u32) -> Vec<(u32, u32)> {
    event.round_list[round as usize - 1]
        .boards
        .iter()
        .map(|b| (b.white, b.black))
        .collect()
}

fn rated(name: &str, rating: u32) -> NewPlayer {
    NewPlayer {
        name: name.to_string(),
        rating: Some(rating),
        federation: None,
        fide_id: None,
        uscf_id: None,
    }
}

/// Eight players rated 2000 down to 1300, round 1 paired and won by the top half.
fn eight_after_round_one(format: Format) -> Event {
    let mut e = Event::new("Late", format, Some(5)).unwrap();
    for i in 0..8 {
        e.add_player(rated(&format!("P{}", i + 1), 2000 - 100 * i))
            .unwrap();
    }
    e.pair_next().unwrap();
    let g = format.games_per_round() as usize;
    let boards: Vec<(u32, u32, u32)> = e.round_list[0]
        .boards
        .iter()
        .map(|b| (b.number, b.white, b.black))
        .collect();
    for (number, white, black) in boards {
        // The better-rated (lower number) player wins every game of the board.
        let results: Vec<RecordedResult> = (0..g)
            .map(|game| {
                let white_of_game = if game % 2 == 0 { white } else { black };
                if white_of_game == white.min(black) {
                    RecordedResult::WhiteWins
                } else {
                    RecordedResult::BlackWins
                }
            })
            .collect();
        e.set_result(1, number, &results).unwrap();
    }
    e
}

#[test]
fn a_late_entrant_rated_above_the_field_gets_pairing_number_one_in_the_dutch() {
    let mut e = eight_after_round_one(Format::Swiss);
    assert_eq!(pairs(&e, 1), vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
    // FIDE C.04.2: pairing numbers are re-assigned by the initial ranking.
    let id = e.add_player(rated("Late", 2400)).unwrap();
    assert_eq!(id, 1);
    assert_eq!(e.players[0].name, "Late");
    assert_eq!(e.players[0].joined_round, 2);
    let numbers: Vec<(u32, &str)> = e.players.iter().map(|p| (p.id, p.name.as_str())).collect();
    assert_eq!(numbers[1], (2, "P1"));
    assert_eq!(numbers[8], (9, "P8"));
    // Round 1 as played, in the new numbers; the late entrant was absent.
    assert_eq!(pairs(&e, 1), vec![(2, 6), (7, 3), (4, 8), (9, 5)]);
    assert_eq!(e.cell(1, 1), Cell::Bye(ByeKind::Absent));
    assert_eq!(e.score_after(2, 1), 2);
    e.validate().unwrap();
    // Round 2. 1 point: 2, 3, 4, 5; 2 and 4 both had White, so the Dutch transposes
    // (2-5, 3-4) to give every colour preference. 0 points: the late entrant, ranked first
    // there, then 6, 7, 8, 9; 8 takes the bye, so that 6 and 9 both get their colours.
    e.pair_next().unwrap();
    assert_eq!(pairs(&e, 2), vec![(5, 2), (3, 4), (1, 7), (6, 9)]);
    let byes = &e.round_list[1].byes;
    assert_eq!(byes.len(), 1);
    assert_eq!((byes[0].player, byes[0].kind), (8, ByeKind::Pab));
    // The TRF carries the new numbers: the late entrant is 001, absent in round 1.
    let trf = export::trf(&e).unwrap();
    let first = trf.lines().find(|l| l.starts_with("001    1")).unwrap();
    assert!(first.contains("Late"), "{first}");
    assert!(first.contains("0000 - -"), "{first}");
    let second = trf.lines().find(|l| l.starts_with("001    2")).unwrap();
    assert!(
        second.contains("P1") && second.contains("   6 w 1"),
        "{second}"
    );
}

#[test]
fn late_entrants_take_their_rating_place_in_every_swiss_format() {
    for format in [Format::Swiss, Format::DoubleSwiss, Format::UsSwiss] {
        let mut e = eight_after_round_one(format);
        let before = pairs(&e, 1);
        // Rated between P3 (1800) and P4 (1700): number 4; equal to P5 (1600): after it.
        assert_eq!(e.add_player(rated("Mid", 1750)).unwrap(), 4, "{format}");
        assert_eq!(e.add_player(rated("Tie", 1600)).unwrap(), 7, "{format}");
        assert_eq!(e.add_player(rated("Unrated", 0)).unwrap(), 11, "{format}");
        let moved = |id: u32| match id {
            1..=3 => id,
            4..=5 => id + 1,
            _ => id + 2,
        };
        let expected: Vec<(u32, u32)> = before.iter().map(|&(w, b)| (moved(w), moved(b))).collect();
        assert_eq!(pairs(&e, 1), expected, "{format}");
        e.validate().unwrap();
        e.pair_next().unwrap();
        check_round(&e, 2);
        no_rematches(&e);
        // The bye goes to a low-ranked player of the 0-point group (rated 1400 or less,
        // or unrated), never to the late entrants rated 1750 and 1600 (4 and 7), who would
        // have been 9 and 10 by entry order.
        let bye = e.round_list[1]
            .byes
            .iter()
            .find(|b| b.kind == ByeKind::Pab)
            .map(|b| b.player);
        assert!(bye >= Some(9), "{format}: bye {bye:?}");
    }
}
