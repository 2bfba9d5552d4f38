//! Edge cases of the Dutch API: output format, tiny fields, bad input, finished events.

use flagfall_pairing::dutch::{
    Colour, DutchInput, DutchPlayer, Pairing, PairingError, RoundRecord, pair,
};

fn fresh(n: u32, total_rounds: u32) -> DutchInput {
    DutchInput {
        players: (1..=n)
            .map(|number| DutchPlayer {
                number,
                history: Vec::new(),
                absent: false,
            })
            .collect(),
        total_rounds,
        initial_colour: Colour::White,
        forbidden_pairs: Vec::new(),
    }
}

#[test]
fn prints_bbppairings_format_with_the_bye_last() {
    let p = Pairing {
        boards: vec![(3, 1), (2, 5)],
        bye: Some(4),
    };
    assert_eq!(p.to_string(), "3\n3 1\n2 5\n4 0\n");
    assert_eq!(Pairing::default().to_string(), "0\n");
}

#[test]
fn round_one_pairs_top_half_against_bottom_half() {
    // C.04.3 B / E.5: 1-4, 5-2, 3-6 with White to player 1 (initial colour), alternating.
    let got = pair(&fresh(6, 5)).expect("pairs");
    assert_eq!(got.boards, vec![(1, 4), (5, 2), (3, 6)]);
    assert_eq!(got.bye, None);
    let mut black_first = fresh(6, 5);
    black_first.initial_colour = Colour::Black;
    assert_eq!(
        pair(&black_first).expect("pairs").boards,
        vec![(4, 1), (2, 5), (6, 3)]
    );
}

#[test]
fn odd_field_gives_the_pab_to_the_lowest_player() {
    let got = pair(&fresh(5, 5)).expect("pairs");
    assert_eq!(got.bye, Some(5));
    assert_eq!(got.boards.len(), 2);
}

#[test]
fn absent_players_are_not_paired_and_one_player_gets_the_bye() {
    let mut input = fresh(3, 5);
    input.players[0].absent = true;
    input.players[1].absent = true;
    let got = pair(&input).expect("pairs");
    assert_eq!(
        got,
        Pairing {
            boards: vec![],
            bye: Some(3)
        }
    );
    for p in &mut input.players {
        p.absent = true;
    }
    assert_eq!(pair(&input).expect("nobody to pair"), Pairing::default());
}

#[test]
fn two_players_who_met_cannot_be_paired_again() {
    let mut input = fresh(2, 3);
    input.players[0].history.push(RoundRecord::Played {
        opponent: 2,
        colour: Colour::White,
        half_points: 2,
    });
    input.players[1].history.push(RoundRecord::Played {
        opponent: 1,
        colour: Colour::Black,
        half_points: 0,
    });
    assert_eq!(pair(&input), Err(PairingError::NoValidPairing(2)));
    // A forfeited game was not played: they may meet (C.04.3 C1 counts played games).
    input.players[0].history[0] = RoundRecord::Forfeit {
        opponent: 2,
        won: true,
    };
    input.players[1].history[0] = RoundRecord::Forfeit {
        opponent: 1,
        won: false,
    };
    assert_eq!(pair(&input).expect("pairs").boards.len(), 1);
}

#[test]
fn finished_tournament_and_bad_histories_are_errors() {
    let mut input = fresh(2, 1);
    input.players[0].history.push(RoundRecord::Played {
        opponent: 2,
        colour: Colour::White,
        half_points: 1,
    });
    input.players[1].history.push(RoundRecord::Played {
        opponent: 1,
        colour: Colour::Black,
        half_points: 1,
    });
    assert_eq!(
        pair(&input),
        Err(PairingError::TournamentOver { round: 2, total: 1 })
    );

    let mut uneven = fresh(2, 5);
    uneven.players[0].history.push(RoundRecord::HalfBye);
    assert!(
        matches!(pair(&uneven), Err(PairingError::InvalidInput(m)) if m.contains("rounds of history"))
    );

    let mut same_colour = fresh(2, 5);
    same_colour.players[0].history.push(RoundRecord::Played {
        opponent: 2,
        colour: Colour::White,
        half_points: 2,
    });
    same_colour.players[1].history.push(RoundRecord::Played {
        opponent: 1,
        colour: Colour::White,
        half_points: 0,
    });
    assert!(
        matches!(pair(&same_colour), Err(PairingError::InvalidInput(m)) if m.contains("contradicts"))
    );

    let mut twice = fresh(2, 5);
    twice.players[1].number = 1;
    assert!(
        matches!(pair(&twice), Err(PairingError::InvalidInput(m)) if m.contains("appears twice"))
    );
}
