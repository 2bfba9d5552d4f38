//! An event of 10,000 players (issue 34): accepted by the library, the 10,001st refused
//! with the limit named, and its first round paired through `Event::pair_next` with every
//! player once, no pair twice and the colours of the Dutch round 1 (C.04.3 E: the top
//! half meets the bottom half in order, the top seed's colour alternating board by board).
//! The cost of pairing a later round at this size is in BENCHMARKS.md ("Dutch pairing").

use std::collections::HashSet;

use flagfall_events::event::{ByeKind, Event, Format, MAX_PLAYERS, NewPlayer};
use flagfall_pairing::trf::Colour;

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

#[test]
fn ten_thousand_players_are_accepted_and_round_one_is_paired() {
    assert_eq!(MAX_PLAYERS, 10_000);
    let mut e = Event::new("Big open", Format::Swiss, Some(9)).unwrap();
    for i in 1..=10_000 {
        e.add_player(player(i)).unwrap();
    }
    let refused = e.add_player(player(10_001)).unwrap_err().to_string();
    assert!(refused.contains("at most 10000"), "{refused}");
    assert_eq!(e.players.len(), 10_000);

    assert_eq!(e.pair_next().unwrap(), 1);
    let r = &e.round_list[0];
    assert_eq!(r.boards.len(), 5_000);
    assert!(r.byes.iter().all(|b| b.kind != ByeKind::Pab), "even field");

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
        let (s1, s2) = (k + 1, k + 5_001);
        let s1_white = top_white == (k % 2 == 0);
        let want = if s1_white { (s1, s2) } else { (s2, s1) };
        assert_eq!((b.white, b.black), want, "board {}", k + 1);
    }
    assert_eq!(seen.len(), 10_000, "every player on a board");
}
