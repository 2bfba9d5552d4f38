//! Berger tables (FIDE C.05 Annex 1): the printed tables, and properties checked
//! exhaustively for every player count from 2 to 40.

use std::collections::HashMap;

use flagfall_pairing::berger::{self, BergerError, BergerGame, RoundRobinOptions};

fn pairs(round: &berger::Round) -> Vec<(u32, u32)> {
    round.games.iter().map(|g| (g.white, g.black)).collect()
}

/// The 8-player table as printed in C.05 Annex 1 (White first).
#[test]
fn eight_players_match_the_printed_table() {
    let printed: [[(u32, u32); 4]; 7] = [
        [(1, 8), (2, 7), (3, 6), (4, 5)],
        [(8, 5), (6, 4), (7, 3), (1, 2)],
        [(2, 8), (3, 1), (4, 7), (5, 6)],
        [(8, 6), (7, 5), (1, 4), (2, 3)],
        [(3, 8), (4, 2), (5, 1), (6, 7)],
        [(8, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 8), (5, 3), (6, 2), (7, 1)],
    ];
    let schedule = berger::schedule(8, RoundRobinOptions::single()).unwrap();
    assert_eq!(schedule.len(), 7);
    for (r, want) in schedule.iter().zip(printed.iter()) {
        assert_eq!(pairs(r), want.to_vec(), "round {}", r.number);
        assert_eq!(r.bye, None);
    }
}

/// The 6-player table as printed, and the 5-player event that uses it with a phantom.
#[test]
fn six_players_and_five_with_a_phantom() {
    let printed: [[(u32, u32); 3]; 5] = [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ];
    let six = berger::schedule(6, RoundRobinOptions::single()).unwrap();
    for (r, want) in six.iter().zip(printed.iter()) {
        assert_eq!(pairs(r), want.to_vec());
    }
    // Five players: whoever meets number 6 sits out.
    let five = berger::schedule(5, RoundRobinOptions::single()).unwrap();
    let byes: Vec<u32> = five.iter().map(|r| r.bye.unwrap()).collect();
    assert_eq!(byes, vec![1, 4, 2, 5, 3]);
    assert_eq!(pairs(&five[0]), vec![(2, 5), (3, 4)]);
}

#[test]
fn double_round_robin_reverses_colours_and_swaps_the_first_cycles_last_two_rounds() {
    let s = berger::schedule(4, RoundRobinOptions::double()).unwrap();
    assert_eq!(s.len(), 6);
    // Printed 4-player table: R1 1-4 2-3; R2 4-3 1-2; R3 2-4 3-1.
    assert_eq!(pairs(&s[0]), vec![(1, 4), (2, 3)]);
    assert_eq!(pairs(&s[1]), vec![(2, 4), (3, 1)], "R2 and R3 swapped");
    assert_eq!(pairs(&s[2]), vec![(4, 3), (1, 2)]);
    assert_eq!(pairs(&s[3]), vec![(4, 1), (3, 2)]);
    assert_eq!(pairs(&s[4]), vec![(3, 4), (2, 1)]);
    assert_eq!(pairs(&s[5]), vec![(4, 2), (1, 3)]);
    let plain = RoundRobinOptions {
        cycles: 2,
        swap_last_two_rounds: false,
    };
    let s = berger::schedule(4, plain).unwrap();
    assert_eq!(pairs(&s[1]), vec![(4, 3), (1, 2)]);
}

/// Every pair meets exactly once per cycle, each player plays at most once a round,
/// byes are spread one per player per cycle, and colours are balanced: over a cycle
/// each player's whites and blacks differ by at most one, and over two cycles they are
/// equal. Checked for every size 2..=40, single and double.
#[test]
fn every_pair_meets_once_per_cycle_with_balanced_colours() {
    for n in 2..=40u32 {
        for options in [RoundRobinOptions::single(), RoundRobinOptions::double()] {
            let s = berger::schedule(n, options).unwrap();
            let per_cycle = berger::rounds_per_cycle(n) as usize;
            assert_eq!(s.len(), per_cycle * options.cycles as usize);
            for cycle in s.chunks(per_cycle) {
                let mut met: HashMap<(u32, u32), u32> = HashMap::new();
                let mut whites = vec![0i32; n as usize + 1];
                let mut blacks = vec![0i32; n as usize + 1];
                let mut byes = vec![0u32; n as usize + 1];
                for r in cycle {
                    let mut seen = vec![false; n as usize + 1];
                    for &BergerGame { white, black } in &r.games {
                        assert!(white != black && white <= n && black <= n);
                        assert!(
                            !seen[white as usize] && !seen[black as usize],
                            "n={n} r={}",
                            r.number
                        );
                        seen[white as usize] = true;
                        seen[black as usize] = true;
                        *met.entry((white.min(black), white.max(black))).or_default() += 1;
                        whites[white as usize] += 1;
                        blacks[black as usize] += 1;
                    }
                    if let Some(b) = r.bye {
                        assert!(!seen[b as usize]);
                        seen[b as usize] = true;
                        byes[b as usize] += 1;
                    }
                    assert!(
                        seen[1..].iter().all(|&x| x),
                        "n={n}: everyone plays or sits out"
                    );
                }
                for a in 1..=n {
                    for b in a + 1..=n {
                        assert_eq!(met.get(&(a, b)), Some(&1), "n={n}: {a}-{b}");
                    }
                    assert!(
                        (whites[a as usize] - blacks[a as usize]).abs() <= 1,
                        "n={n} p={a}"
                    );
                    assert_eq!(byes[a as usize], n % 2, "n={n} p={a}");
                }
            }
            if options.cycles == 2 {
                let mut balance = vec![0i32; n as usize + 1];
                for r in &s {
                    for g in &r.games {
                        balance[g.white as usize] += 1;
                        balance[g.black as usize] -= 1;
                    }
                }
                assert!(balance.iter().all(|&b| b == 0), "n={n}: {balance:?}");
            }
        }
    }
}

#[test]
fn bad_sizes_and_rounds_are_errors() {
    assert_eq!(
        berger::schedule(1, RoundRobinOptions::single()),
        Err(BergerError::PlayerCount(1))
    );
    let three = RoundRobinOptions {
        cycles: 3,
        swap_last_two_rounds: false,
    };
    assert_eq!(berger::schedule(4, three), Err(BergerError::Cycles(3)));
    assert_eq!(
        berger::round(4, 4, RoundRobinOptions::single()),
        Err(BergerError::RoundOutOfRange {
            round: 4,
            rounds: 3
        })
    );
    assert!(berger::round(4, 0, RoundRobinOptions::single()).is_err());
}

/// Longest run of one colour for any player across the whole schedule.
fn longest_colour_run(s: &[berger::Round], n: u32) -> usize {
    let mut best = 0;
    for p in 1..=n {
        let mut run = 0;
        let mut last = None;
        for r in s {
            let c = r.games.iter().find_map(|g| {
                if g.white == p {
                    Some(true)
                } else if g.black == p {
                    Some(false)
                } else {
                    None
                }
            });
            match c {
                Some(c) if Some(c) == last => run += 1,
                Some(c) => {
                    run = 1;
                    last = Some(c);
                }
                None => {}
            }
            best = best.max(run);
        }
    }
    best
}

/// What the swap of the first cycle's last two rounds is for: without it some player
/// has the same colour three times running across the cycle boundary; with it nobody
/// does (even sizes 4..=20; with an odd size the rest rounds already break runs).
#[test]
fn swapping_the_last_two_rounds_avoids_three_colours_in_a_row() {
    for n in (4..=20u32).step_by(2) {
        let plain = RoundRobinOptions {
            cycles: 2,
            swap_last_two_rounds: false,
        };
        let without = longest_colour_run(&berger::schedule(n, plain).unwrap(), n);
        let with = longest_colour_run(
            &berger::schedule(n, RoundRobinOptions::double()).unwrap(),
            n,
        );
        assert_eq!(without, 3, "n={n}");
        assert_eq!(with, 2, "n={n}");
    }
}
