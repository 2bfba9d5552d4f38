//! One round of the FIDE Dutch system for 1,000 (and, with `FLAGFALL_DUTCH_BENCH_3000=1`,
//! 3,000; with `FLAGFALL_DUTCH_BENCH_PLAYERS=2000,10000`, those sizes instead) players:
//! round 5 of a 9-round open with simulated results (Elo model, forfeits, byes,
//! withdrawals); rounds 1-4 are paired by a naive pairer to keep the setup cheap.
//!
//! Baselines measured in the same run: reading the same tournament from its TRF text
//! (`Trf::parse` + `DutchInput::from_trf`), and the naive bracket pairer (`naive_pair`:
//! first legal opponent down the standings, no optimisation) on the same input.

use criterion::{Criterion, criterion_group, criterion_main};
use flagfall_pairing::dutch::{self, Colour, DutchInput, RoundRecord};
use flagfall_pairing::trf::{ResultCode, Trf, TrfPlayer, TrfRoundEntry};

#[path = "../tests/dutch_sim/mod.rs"]
mod dutch_sim;

/// The simulated tournament as a TRF (the engine's own input format on the CLI).
fn to_trf(input: &DutchInput) -> Trf {
    let players = input
        .players
        .iter()
        .map(|p| {
            let mut rounds: Vec<Option<TrfRoundEntry>> = p
                .history
                .iter()
                .map(|r| {
                    Some(match *r {
                        RoundRecord::Played {
                            opponent,
                            colour,
                            half_points,
                        } => TrfRoundEntry {
                            opponent: Some(opponent),
                            colour: Some(colour),
                            result: [ResultCode::Loss, ResultCode::Draw, ResultCode::Win]
                                [half_points as usize],
                        },
                        RoundRecord::Forfeit { opponent, won } => TrfRoundEntry {
                            opponent: Some(opponent),
                            colour: Some(Colour::White),
                            result: if won {
                                ResultCode::ForfeitWin
                            } else {
                                ResultCode::ForfeitLoss
                            },
                        },
                        RoundRecord::PairingBye => bye(ResultCode::PairingBye),
                        RoundRecord::FullBye => bye(ResultCode::FullBye),
                        RoundRecord::HalfBye => bye(ResultCode::HalfBye),
                        RoundRecord::ZeroBye => bye(ResultCode::ZeroBye),
                    })
                })
                .collect();
            if p.absent {
                rounds.push(Some(bye(ResultCode::ZeroBye)));
            }
            let half: u32 = p.history.iter().map(RoundRecord::half_points).sum();
            TrfPlayer {
                number: p.number,
                sex: None,
                title: String::new(),
                name: format!("Player {}", p.number),
                rating: Some(2600 - p.number),
                federation: String::new(),
                fide_id: None,
                birth_date: String::new(),
                points_tenths: half * 5,
                rank: None,
                rounds,
            }
        })
        .collect();
    Trf {
        name: Some("Simulated open".into()),
        total_rounds: Some(input.total_rounds),
        initial_colour: Some(input.initial_colour),
        headers: Vec::new(),
        players,
    }
}

fn bye(result: ResultCode) -> TrfRoundEntry {
    TrfRoundEntry {
        opponent: None,
        colour: None,
        result,
    }
}

fn bench_dutch(c: &mut Criterion) {
    let mut group = c.benchmark_group("dutch_round5_of_9");
    group.sample_size(10);
    let mut sizes = vec![1000u32];
    if std::env::var_os("FLAGFALL_DUTCH_BENCH_3000").is_some() {
        sizes.push(3000);
    }
    // Other sizes, comma-separated (`FLAGFALL_DUTCH_BENCH_PLAYERS=2000,10000`), instead of
    // the ones above; a size that is not a number stops the bench naming it.
    if let Some(list) = std::env::var_os("FLAGFALL_DUTCH_BENCH_PLAYERS") {
        let list = list.to_string_lossy().into_owned();
        sizes = list
            .split(',')
            .map(|s| {
                s.trim().parse().unwrap_or_else(|_| {
                    panic!("FLAGFALL_DUTCH_BENCH_PLAYERS: `{s}` is not a number of players")
                })
            })
            .collect();
    }
    for players in sizes {
        let sim = dutch_sim::Sim::run_naive(dutch_sim::SimConfig::open(players, 9, 20260201), 4);
        let text = to_trf(&sim.input).to_trf_string();
        group.bench_function(format!("read_trf/{players}"), |b| {
            b.iter(|| {
                let trf = Trf::parse(std::hint::black_box(&text)).expect("valid TRF");
                DutchInput::from_trf(&trf).expect("valid input")
            });
        });
        group.bench_function(format!("naive_pair/{players}"), |b| {
            b.iter(|| dutch_sim::naive_pair(std::hint::black_box(&sim.input)));
        });
        group.bench_function(format!("pair/{players}"), |b| {
            b.iter(|| dutch::pair(std::hint::black_box(&sim.input)).expect("pairs"));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_dutch);
criterion_main!(benches);
