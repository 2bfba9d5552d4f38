//! The Dutch engine's output on generated events must not change when the matcher's
//! path changes (which of several equal-weight optima an intermediate solve reaches).
//!
//! Each event is simulated by `dutch_sim` (seeded, deterministic) and paired round after
//! round by the engine itself; every round's pairing is compared with the text stored in
//! `tests/data/dutch_regression/`, which was produced by the engine at commit 88a9474,
//! before any change to the matcher's path (the repairs then dissolved whole blossoms and
//! grew 16 roots at a time). The interpretation that makes this hold is written down in
//! the doc comment of `run` in `src/dutch.rs`.

mod dutch_sim;

use dutch_sim::{Sim, SimConfig};
use flagfall_pairing::dutch::RoundRecord;

/// Pairs `engine_rounds` rounds after `naive_rounds` naive ones (then the next round if
/// the event is not over) and returns the pairings, separated by `--` lines.
fn pairings(players: u32, total: u32, seed: u64, naive_rounds: u32, engine_rounds: u32) -> String {
    let mut sim = Sim::run_naive(SimConfig::open(players, total, seed), naive_rounds);
    let mut out = String::new();
    for _ in 0..engine_rounds {
        let p = sim.pair().expect("the engine pairs a generated round");
        out.push_str(&p.to_string());
        out.push_str("--\n");
        let byes: Vec<_> = sim
            .input
            .players
            .iter()
            .map(|p| p.absent.then_some(RoundRecord::ZeroBye))
            .collect();
        sim.play(&p, &byes);
        if sim.input.players[0].history.len() as u32 >= total {
            break;
        }
        sim.announce_absences();
    }
    if (sim.input.players[0].history.len() as u32) < total {
        let p = sim.pair().expect("the engine pairs a generated round");
        out.push_str(&p.to_string());
    }
    out
}

fn check(name: &str, players: u32, total: u32, seed: u64, naive: u32, engine: u32) {
    let path = format!(
        "{}/tests/data/dutch_regression/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let expected = std::fs::read_to_string(&path).expect("stored pairings");
    let got = pairings(players, total, seed, naive, engine);
    if got != expected {
        let round = got
            .split("--\n")
            .zip(expected.split("--\n"))
            .position(|(a, b)| a != b);
        panic!("{name}: pairings differ from {path} (first differing round: {round:?})");
    }
}

#[test]
fn seventy_seven_players_nine_rounds() {
    check("y77s30", 77, 9, 30, 0, 9);
}

#[test]
fn hundred_and_one_players_seven_rounds() {
    check("y101s31", 101, 7, 31, 0, 7);
}

#[test]
fn hundred_and_fifty_players_five_rounds() {
    check("y150s29", 150, 5, 29, 0, 5);
}

#[test]
fn two_hundred_and_one_players_after_two_naive_rounds() {
    check("y201s32", 201, 9, 32, 2, 5);
}
