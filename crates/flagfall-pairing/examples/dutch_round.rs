//! One Dutch pairing, timed: the one-shot measurement behind the "Dutch pairing" section of
//! BENCHMARKS.md (the criterion bench `benches/dutch.rs` measures the same call many times).
//!
//! `cargo run --release -p flagfall-pairing --example dutch_round -- [PLAYERS]`
//! `[--rounds N] [--naive-rounds N] [--seed N] [--repeat N] [--print]`
//!
//! The tournament is the bench's: a `--rounds`-round open (default 9) of PLAYERS players
//! (default 1,000) with simulated results (`tests/dutch_sim`, seed 20260201 unless
//! `--seed`), the first `--naive-rounds` rounds (default 4) paired by the naive pairer;
//! the next round is paired `--repeat` times (default 5) by `dutch::pair`, and the wall
//! time of each call is printed, then the best. `--print` writes the pairing in
//! bbpPairings' format, so that two builds can be checked to pair alike (`diff`).
//! Bad arguments give a usage error (exit status 2) naming the argument.

#[path = "../tests/dutch_sim/mod.rs"]
mod dutch_sim;

use std::str::FromStr;
use std::time::{Duration, Instant};

use flagfall_pairing::dutch;

const USAGE: &str = "usage: dutch_round [PLAYERS] [--rounds N] [--naive-rounds N] [--seed N] \
                     [--repeat N] [--print]";

fn usage_error(message: &str) -> ! {
    eprintln!("dutch_round: {message}\n{USAGE}");
    std::process::exit(2);
}

fn parse<T: FromStr>(what: &str, text: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| usage_error(&format!("{what}: `{text}` is not a valid value")))
}

fn main() {
    let mut players: u32 = 1000;
    let mut rounds: u32 = 9;
    let mut naive_rounds: u32 = 4;
    let mut seed: u64 = 20_260_201;
    let mut repeat: u32 = 5;
    let mut print = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .unwrap_or_else(|| usage_error(&format!("{flag} needs a value")))
        };
        match a.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                return;
            }
            "--rounds" => rounds = parse("--rounds", &value("--rounds")),
            "--naive-rounds" => naive_rounds = parse("--naive-rounds", &value("--naive-rounds")),
            "--seed" => seed = parse("--seed", &value("--seed")),
            "--repeat" => repeat = parse("--repeat", &value("--repeat")),
            "--print" => print = true,
            other if !other.starts_with('-') => players = parse("PLAYERS", other),
            other => usage_error(&format!("unknown argument `{other}`")),
        }
    }
    if players < 2 || repeat == 0 || naive_rounds >= rounds {
        usage_error(
            "need at least 2 players, --repeat of at least 1, --naive-rounds below --rounds",
        );
    }
    let sim = dutch_sim::Sim::run_naive(
        dutch_sim::SimConfig::open(players, rounds, seed),
        naive_rounds,
    );
    let mut best = Duration::MAX;
    let mut pairing = None;
    for run in 1..=repeat {
        let t = Instant::now();
        let result = dutch::pair(std::hint::black_box(&sim.input));
        let dt = t.elapsed();
        best = best.min(dt);
        println!(
            "run {run}: {:.3} s ({players} players, round {} of {rounds})",
            dt.as_secs_f64(),
            naive_rounds + 1
        );
        match result {
            Ok(p) => pairing = Some(p),
            Err(e) => {
                eprintln!("dutch_round: no pairing: {e}");
                std::process::exit(1);
            }
        }
    }
    let pairing = pairing.expect("at least one run");
    println!(
        "best of {repeat}: {:.3} s, {} boards",
        best.as_secs_f64(),
        pairing.boards.len()
    );
    if print {
        print!("{pairing}");
    }
}
