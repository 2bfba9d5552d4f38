//! An event of 9,999 players (issue 34; 9,999 is the most a TRF can number, and every event
//! exports as a TRF): accepted by the library, the 10,000th refused with the limit named,
//! and its first round paired through `Event::pair_next` with every
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
fn nine_thousand_nine_hundred_and_ninety_nine_players_are_accepted_and_round_one_is_paired() {
    assert_eq!(MAX_PLAYERS, 9_999);
    let mut e = Event::new("Big open", Format::Swiss, Some(9)).unwrap();
    for i in 1..=9_999 {
        e.add_player(player(i)).unwrap();
    }
    let refused = e.add_player(player(10_000)).unwrap_err().to_string();
    assert!(refused.contains("at most 9999"), "{refused}");
    assert_eq!(e.players.len(), 9_999);

    assert_eq!(e.pair_next().unwrap(), 1);
    let r = &e.round_list[0];
    // An odd field: the lowest-ranked player gets the PAB, the others pair top half
    // against bottom half.
    assert_eq!(r.boards.len(), 4_999);
    let pab: Vec<u32> = r
        .byes
        .iter()
        .filter(|b| b.kind == ByeKind::Pab)
        .map(|b| b.player)
        .collect();
    assert_eq!(pab, vec![9_999]);

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
        let (s1, s2) = (k + 1, k + 5_000);
        let s1_white = top_white == (k % 2 == 0);
        let want = if s1_white { (s1, s2) } else { (s2, s1) };
        assert_eq!((b.white, b.black), want, "board {}", k + 1);
    }
    assert_eq!(seen.len(), 9_998, "every player but the PAB on a board");
    assert!(!seen.contains(&9_999));
}
