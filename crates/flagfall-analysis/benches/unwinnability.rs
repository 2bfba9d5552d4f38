//! Unwinnability: flagfall's `can_checkmate` against chasolver 3.0.0's full mode
//! (`winnability`), on the same generated queries, in the same run.
//!
//! Each family of the generated corpus (random playouts, capture-heavy playouts,
//! timeout-like, small endgames, lone kings, same-coloured bishops, locked walls,
//! full-width locked walls, kings shut in a corner pocket) is sampled (every 8th query)
//! and timed as one batch per solver. The whole corpus (7,750 queries) in one pass, with disagreement and undetermined counts, is the `compare`
//! example: `cargo run --release -p flagfall-analysis --example compare -- --corpus`.
//!
//! `cargo bench -p flagfall-analysis --bench unwinnability`

#[path = "../tests/support/corpus.rs"]
mod corpus;

use std::hint::black_box;
use std::str::FromStr;

use criterion::{Criterion, criterion_group, criterion_main};
use flagfall_analysis::{Limits, can_checkmate};

fn bench(c: &mut Criterion) {
    let queries = corpus::corpus(0x5eed_2026, 1);
    let families = [
        "random",
        "captures",
        "timeout",
        "endgame",
        "lone-kings",
        "bishops",
        "walls",
        "shut-walls",
        "pockets",
    ];
    let limits = Limits::default();
    let mut group = c.benchmark_group("unwinnability");
    group.sample_size(10);
    for family in families {
        let sample: Vec<_> = queries
            .iter()
            .filter(|q| q.family == family)
            .step_by(8)
            .collect();
        let ours: Vec<_> = sample
            .iter()
            .map(|q| (corpus::setup(&q.fen), q.winner))
            .collect();
        let theirs: Vec<_> = sample
            .iter()
            .map(|q| {
                let board = chess::Board::from_str(&q.fen).expect("corpus FEN parses");
                let c = if q.winner.is_white() {
                    chess::Color::White
                } else {
                    chess::Color::Black
                };
                (board, c)
            })
            .collect();
        group.bench_function(format!("flagfall/{family}"), |b| {
            b.iter(|| {
                for (setup, winner) in &ours {
                    black_box(can_checkmate(setup, *winner, &limits));
                }
            })
        });
        group.bench_function(format!("chasolver/{family}"), |b| {
            b.iter(|| {
                for (board, winner) in &theirs {
                    black_box(chasolver::winnability(board, *winner));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
