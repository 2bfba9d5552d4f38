//! US Chess Swiss and FIDE Double Swiss: whole tournaments simulated with random results.
//! Properties: every present player is paired exactly once or has the one bye; nobody
//! meets an opponent twice; nobody gets a second bye; and while a rematch-free pairing is
//! guaranteed to exist (few rounds relative to players, Dirac's theorem) pairing succeeds.

use flagfall_pairing::double_swiss;
use flagfall_pairing::us_swiss::{self, Colour, Pairing, SwissError, SwissPlayer, SwissRound};
use proptest::prelude::*;

#[derive(Clone, Copy)]
enum System {
    Us,
    Double,
}

fn pair(system: System, input: &SwissRound) -> Result<Pairing, SwissError> {
    match system {
        System::Us => us_swiss::pair(input),
        System::Double => double_swiss::pair(input),
    }
}

/// Runs `rounds` rounds; `results` supplies one number per board (0 white wins, 1 draw,
/// 2 black wins). Returns the pairings.
fn simulate(system: System, n: u32, rounds: u32, results: &[u8]) -> Vec<Pairing> {
    let mut players: Vec<SwissPlayer> = (1..=n)
        .map(|id| SwissPlayer {
            id,
            rating: 2400 - 13 * id,
            score: 0,
            colours: vec![],
            opponents: vec![],
            bye_eligible: true,
        })
        .collect();
    let mut k = 0usize;
    let mut out = Vec::new();
    for round in 1..=rounds {
        let input = SwissRound {
            round,
            total_rounds: rounds,
            players: players.clone(),
            initial_colour: Colour::White,
            forbidden_pairs: Vec::new(),
        };
        let pairing = pair(system, &input).unwrap_or_else(|e| panic!("n={n} round {round}: {e}"));
        let mut seen = vec![0u32; n as usize + 1];
        for &(w, b) in &pairing.boards {
            assert_ne!(w, b);
            seen[w as usize] += 1;
            seen[b as usize] += 1;
            let pw = &players[w as usize - 1];
            assert!(
                !pw.opponents.contains(&b),
                "n={n} round {round}: {w} and {b} meet twice"
            );
        }
        if let Some(b) = pairing.bye {
            seen[b as usize] += 1;
            assert!(
                players[b as usize - 1].bye_eligible,
                "n={n} round {round}: second bye for {b}"
            );
        }
        assert!(
            seen[1..].iter().all(|&s| s == 1),
            "n={n} round {round}: {seen:?}"
        );
        assert_eq!(pairing.bye.is_some(), n % 2 == 1);
        for &(w, b) in &pairing.boards {
            let r = results[k % results.len()];
            k += 1;
            let (sw, sb) = match (system, r) {
                (System::Us, 0) => (2, 0),
                (System::Us, 1) => (1, 1),
                (System::Us, _) => (0, 2),
                (System::Double, 0) => (4, 0),
                (System::Double, 1) => (2, 2),
                (System::Double, _) => (1, 3),
            };
            let (wi, bi) = (w as usize - 1, b as usize - 1);
            players[wi].score += sw;
            players[bi].score += sb;
            players[wi].colours.push(Colour::White);
            players[bi].colours.push(Colour::Black);
            players[wi].opponents.push(b);
            players[bi].opponents.push(w);
        }
        if let Some(b) = pairing.bye {
            players[b as usize - 1].bye_eligible = false;
            players[b as usize - 1].score += 2;
        }
        if matches!(system, System::Double) && round < rounds {
            // Game-1 colours: nobody has the same one three matches running (the final
            // round relaxes this).
            for pl in &players {
                if let [.., a, b, c] = pl.colours.as_slice() {
                    assert!(
                        !(a == b && b == c),
                        "n={n} round {round}: player {} {:?}",
                        pl.id,
                        pl.colours
                    );
                }
            }
        }
        out.push(pairing);
    }
    out
}

fn safe_rounds(n: u32) -> u32 {
    // Complement of the "met" graph keeps minimum degree >= half the field.
    if n.is_multiple_of(2) {
        n / 2 - 1
    } else {
        (n - 3) / 2
    }
    .max(1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn us_swiss_tournaments_are_legal(n in 4u32..40, results in prop::collection::vec(0u8..3, 1..64)) {
        simulate(System::Us, n, safe_rounds(n).min(9), &results);
    }

    #[test]
    fn double_swiss_tournaments_are_legal(n in 4u32..40, results in prop::collection::vec(0u8..3, 1..64)) {
        simulate(System::Double, n, safe_rounds(n).min(9), &results);
    }
}

#[test]
fn us_round_one_is_top_half_against_bottom_half_with_alternating_colours() {
    let p = simulate(System::Us, 8, 1, &[0]);
    assert_eq!(p[0].boards, vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
    let p = simulate(System::Us, 7, 1, &[0]);
    // 28L: the lowest-rated player (7) gets the bye; 1-4, 2-5, 3-6.
    assert_eq!(p[0].bye, Some(7));
    assert_eq!(p[0].boards, vec![(1, 4), (5, 2), (3, 6)]);
}

#[test]
fn us_round_two_pairs_score_groups_and_equalises_colours() {
    // Round 1 (8 players, white wins everywhere): 1-5 6-2 3-7 8-4 → winners 1, 6, 3, 8.
    let p = simulate(System::Us, 8, 2, &[0]);
    // Score group 1 point ranked by rating: 1, 3, 6, 8 → 1 v 6, 3 v 8.
    // 1 (had White) is due Black, 6 (White) due Black: same due colour, same strength,
    // higher-ranked 1 gets it; but 29E4 transposition 6<->8 (rating gap 26 ≤ 200):
    // 8 had White too, so no gain. So 6 has White against 1.
    // Zero group: 2, 4, 5, 7 → 2 v 5, 4 v 7. 2 had Black (due White), 5 Black (due White).
    assert_eq!(p[1].boards.len(), 4);
    assert!(p[1].boards.contains(&(6, 1)));
    assert!(p[1].boards.contains(&(8, 3)));
    // 2 v 5: both due White by alternation; the higher-ranked 2 gets it.
    assert!(p[1].boards.contains(&(2, 5)));
    // 4 v 7: 4 had Black (due White), 7 had Black (due White): 4 gets White.
    assert!(p[1].boards.contains(&(4, 7)));
}

#[test]
fn double_swiss_round_one_and_upfloaters() {
    let p = simulate(System::Double, 6, 2, &[0]);
    // Round 1: 1-4, 2-5, 3-6; lot White for TPN 1, odd TPNs take the lot's colour.
    assert_eq!(p[0].boards, vec![(1, 4), (5, 2), (3, 6)]);
    // Match results 2-0 for White: 1, 5, 3 on 4 half points; 2, 4, 6 on 0.
    // Round 2 brackets: {1, 3, 5} is odd, so it takes the best of the next group (2)
    // as upfloater: {1, 3, 5, 2} → 1 v 5, 3 v 2. Then {4, 6} → 4 v 6.
    let mut pairs: Vec<(u32, u32)> = p[1]
        .boards
        .iter()
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(1, 5), (2, 3), (4, 6)]);
}

#[test]
fn malformed_fields_are_errors() {
    let one = SwissPlayer {
        id: 1,
        rating: 0,
        score: 0,
        colours: vec![],
        opponents: vec![],
        bye_eligible: true,
    };
    let input = SwissRound {
        round: 1,
        total_rounds: 5,
        players: vec![one.clone(), one.clone()],
        initial_colour: Colour::White,
        forbidden_pairs: Vec::new(),
    };
    assert_eq!(us_swiss::pair(&input), Err(SwissError::DuplicatePlayer(1)));
    let input = SwissRound {
        players: vec![one.clone()],
        ..input
    };
    assert_eq!(double_swiss::pair(&input), Err(SwissError::OnePlayer));
    // Two players who already met, nobody else: no legal pairing.
    let a = SwissPlayer {
        opponents: vec![2],
        ..one.clone()
    };
    let b = SwissPlayer {
        id: 2,
        opponents: vec![1],
        ..one
    };
    let input = SwissRound {
        players: vec![a, b],
        ..input
    };
    assert_eq!(us_swiss::pair(&input), Err(SwissError::NoPairing(1)));
}

fn sp(id: u32, rating: u32, score: u32, colours: &[Colour], opponents: &[u32]) -> SwissPlayer {
    SwissPlayer {
        id,
        rating,
        score,
        colours: colours.to_vec(),
        opponents: opponents.to_vec(),
        bye_eligible: true,
    }
}

fn round_of(players: Vec<SwissPlayer>) -> SwissRound {
    SwissRound {
        round: 2,
        total_rounds: 5,
        players,
        initial_colour: Colour::White,
        forbidden_pairs: Vec::new(),
    }
}

#[test]
fn us_transposition_within_200_points_fixes_colours() {
    use Colour::{Black as B, White as W};
    // One score group: 1 (2000), 2 (1900) on top; 3 (1800), 4 (1750) below. 1 and 3
    // had White (both due Black), 2 and 4 had Black (both due White). The natural 1-3,
    // 2-4 has two colour conflicts; transposing 3 and 4 (50 points apart, 29E4)
    // gives everyone their due colour: 4-1 and 2-3.
    let field = vec![
        sp(1, 2000, 2, &[W], &[5]),
        sp(2, 1900, 2, &[B], &[6]),
        sp(3, 1800, 2, &[W], &[7]),
        sp(4, 1750, 2, &[B], &[8]),
    ];
    let p = us_swiss::pair(&round_of(field.clone())).unwrap();
    assert_eq!(p.boards, vec![(4, 1), (2, 3)]);
    // With 4 rated 1500 the transposition is 300 points (over 200) and the interchange
    // of 2 and 3 is 100 points (over 80): the natural pairing stands, and on each board
    // the higher-ranked player gets his due colour (1 Black, 2 White).
    let mut field = field;
    field[3].rating = 1500;
    let p = us_swiss::pair(&round_of(field)).unwrap();
    assert_eq!(p.boards, vec![(3, 1), (2, 4)]);
}

#[test]
fn us_odd_group_drops_its_lowest_player_to_the_best_of_the_next() {
    use Colour::{Black as B, White as W};
    // 1, 2, 3 on one point; 4..8 on zero. 29D: 3 (lowest-rated of the odd group) drops
    // and meets 4, the highest-rated of the next group; 1-2 above. Below, the natural
    // 5-7, 6-8 gives 5 and 7 (both had White) and 6 and 8 (both had Black) the same due
    // colour; transposing 7 and 8 (100 points, within 29E4's 200) fixes both: 5-8, 6-7.
    let field = vec![
        sp(1, 2000, 2, &[W], &[11]),
        sp(2, 1900, 2, &[B], &[12]),
        sp(3, 1800, 2, &[W], &[13]),
        sp(4, 1700, 0, &[B], &[14]),
        sp(5, 1600, 0, &[W], &[15]),
        sp(6, 1500, 0, &[B], &[16]),
        sp(7, 1400, 0, &[W], &[17]),
        sp(8, 1300, 0, &[B], &[18]),
    ];
    let p = us_swiss::pair(&round_of(field)).unwrap();
    let mut pairs: Vec<(u32, u32)> = p
        .boards
        .iter()
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(1, 2), (3, 4), (5, 8), (6, 7)]);
    // Colours: 1 (due Black) v 2 (due White): both satisfied.
    assert!(p.boards.contains(&(2, 1)));
}
