//! The largest event (issue 34, goal 3: "an event of 10,000 players accepted"): 10,000
//! players accepted by the library, the 10,001st refused with the limit named, and the
//! first round paired through `Event::pair_next` with every player once, no pair twice and
//! the colours of the Dutch round 1 (C.04.3 E: the top half meets the bottom half in
//! order, the top seed's colour alternating board by board). The cost of pairing a later
//! round at this size is in BENCHMARKS.md ("Dutch pairing").
//!
//! A TRF numbers at most 9,999 players (its starting rank and each round's opponent have
//! four columns): the TRF export of 10,000 is refused naming the limit and the count, and
//! the US Chess report likewise (its pairing number has four columns); 9,999 players still
//! export, and the file reads back through the pairing crate's parser.

use std::collections::HashSet;

use flagfall_events::event::{ByeKind, Event, Format, MAX_PLAYERS, NewPlayer, RecordedResult};
use flagfall_events::export::{self, ExportError, TRF_MAX_PLAYERS};
use flagfall_events::uscf::{self, FileDate, UscfError};
use flagfall_pairing::trf::{Colour, ResultCode, Trf};

fn player(i: u32) -> NewPlayer {
    NewPlayer {
        name: format!("Player {i}"),
        // Ratings from 3,999 down, three players to a rating (the board check below is by
        // pairing number, whatever order the entries take).
        rating: Some(3_999 - i / 3),
        federation: None,
        fide_id: None,
        uscf_id: None,
    }
}

fn event_of(players: u32) -> Event {
    let mut e = Event::new("Big open", Format::Swiss, Some(9)).unwrap();
    for i in 1..=players {
        e.add_player(player(i)).unwrap();
    }
    e
}

/// Round 1 as the Dutch system pairs it: with an odd field the last seed has the PAB, and
/// board k of the n / 2 is seed k against seed k + n / 2, the top seed's colour
/// alternating. Checks every player once and no pair twice.
fn check_round_one(e: &Event, players: u32) {
    let r = &e.round_list[0];
    let half = players / 2;
    assert_eq!(r.boards.len(), half as usize);
    let pab: Vec<u32> = r
        .byes
        .iter()
        .filter(|b| b.kind == ByeKind::Pab)
        .map(|b| b.player)
        .collect();
    if players % 2 == 1 {
        assert_eq!(pab, vec![players], "the lowest-ranked player has the PAB");
    } else {
        assert!(r.byes.is_empty(), "{:?}", r.byes);
    }

    let mut seen = HashSet::new();
    let mut pairs = HashSet::new();
    let top_white = e.initial_colour == Colour::White;
    for (k, b) in r.boards.iter().enumerate() {
        assert!(seen.insert(b.white), "player {} twice", b.white);
        assert!(seen.insert(b.black), "player {} twice", b.black);
        assert!(
            pairs.insert((b.white.min(b.black), b.white.max(b.black))),
            "pair {} - {} twice",
            b.white,
            b.black
        );
        // Board k + 1: the (k + 1)-th seed of the top half against the (k + 1)-th of the
        // bottom half; the top seed has the drawn colour on odd boards, the other on even.
        let k = u32::try_from(k).unwrap();
        let (s1, s2) = (k + 1, k + 1 + half);
        let s1_white = top_white == (k % 2 == 0);
        let want = if s1_white { (s1, s2) } else { (s2, s1) };
        assert_eq!((b.white, b.black), want, "board {}", k + 1);
    }
    assert_eq!(
        seen.len(),
        2 * half as usize,
        "every player but a PAB on a board"
    );
}

#[test]
fn ten_thousand_players_are_accepted_and_round_one_is_paired() {
    assert_eq!(MAX_PLAYERS, 10_000);
    let mut e = event_of(10_000);
    let refused = e.add_player(player(10_001)).unwrap_err().to_string();
    assert!(refused.contains("at most 10,000 players"), "{refused}");
    assert_eq!(e.players.len(), 10_000);

    assert_eq!(e.pair_next().unwrap(), 1);
    check_round_one(&e, 10_000);
}

#[test]
fn the_trf_and_us_chess_exports_of_ten_thousand_players_are_refused_naming_the_limit() {
    assert_eq!(TRF_MAX_PLAYERS, 9_999);
    let mut e = event_of(10_000);
    let refused = export::trf(&e).unwrap_err();
    assert_eq!(refused, ExportError::TrfTooManyPlayers { players: 10_000 });
    assert_eq!(
        refused.to_string(),
        "a TRF numbers at most 9,999 players (its starting rank has four columns); \
         this event has 10,000"
    );
    // Paired or not: the numbers do not fit either way.
    e.pair_next().unwrap();
    assert!(export::trf(&e).is_err());

    let written = FileDate {
        year: 2026,
        month: 11,
        day: 29,
    };
    let Err(refused) = uscf::report(&e, written) else {
        panic!("a US Chess report of 10,000 players was written");
    };
    assert_eq!(refused, UscfError::TooManyPlayers { players: 10_000 });
    assert_eq!(
        refused.to_string(),
        "a US Chess report numbers at most 9,999 players (its pairing number, D_PAIR_NUM, \
         has four columns); this event has 10,000"
    );
}

#[test]
fn nine_thousand_nine_hundred_and_ninety_nine_players_export_as_a_trf_that_reads_back() {
    // 10,000 entered, one withdrawn before round 1: the numbers close up to 1..=9,999.
    let mut e = event_of(10_000);
    e.remove_player(1).unwrap();
    assert_eq!(e.players.len(), 9_999);
    assert_eq!(e.pair_next().unwrap(), 1);
    check_round_one(&e, 9_999);
    // White wins every board (a pending game is written with its opponent and `Z`, which
    // the pairing crate's reader takes for a bye: results first).
    for board in 1..=4_999 {
        e.set_result(1, board, &[RecordedResult::WhiteWins])
            .unwrap();
    }

    let text = export::trf(&e).unwrap();
    let back = Trf::parse(&text).expect("flagfall-pairing reads the TRF of 9,999 players");
    assert_eq!(back.players.len(), 9_999);
    assert!(text.contains("\n062 9999\n"), "the 062 line counts them");
    for p in &e.players {
        let q = back.player(p.id).expect("every player's record");
        assert_eq!(q.name, p.name);
        assert_eq!(q.rating, p.rating);
        let entry = q.round(1).expect("round 1's block");
        if p.id == 9_999 {
            assert_eq!(entry.opponent, None);
            assert_eq!(entry.result, ResultCode::PairingBye);
        } else {
            // Four-digit opponents in their columns: seed k meets k + 4,999.
            let opponent = if p.id <= 4_999 {
                p.id + 4_999
            } else {
                p.id - 4_999
            };
            assert_eq!(entry.opponent, Some(opponent), "player {}", p.id);
            let won = entry.colour == Some(Colour::White);
            let want = if won {
                ResultCode::Win
            } else {
                ResultCode::Loss
            };
            assert_eq!(entry.result, want, "player {}", p.id);
        }
    }
}

#[test]
fn the_text_tables_of_ten_thousand_players_keep_their_columns() {
    let mut e = event_of(10_000);
    e.pair_next().unwrap();
    let crosstable = export::crosstable_text(&e).unwrap();
    let lines: Vec<&str> = crosstable.lines().skip(1).collect();
    assert_eq!(lines.len(), 10_001, "a header and a line a player");
    let width = lines[0].chars().count();
    assert!(
        lines.iter().all(|l| l.chars().count() == width),
        "every line as wide as the header"
    );
    assert!(lines[0].starts_with("   No  "), "{}", lines[0]);
    let standings = e.standings(None, None).unwrap();
    let text = export::standings_text(&e, &standings, 1);
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let width = lines[0].chars().count();
    assert!(
        lines.iter().all(|l| l.chars().count() == width),
        "{}",
        lines[0]
    );
}
