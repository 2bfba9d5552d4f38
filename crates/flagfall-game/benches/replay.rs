//! Replay throughput: random legal games through the full arbiter (clock, board
//! classification, repetition keys, status, claim windows) against plain shakmaty play
//! of the same moves, in the same run: `shakmaty_play_only` (UCI → legal move → play)
//! and `shakmaty_plain_play` (the same plus the game-over check a player needs).
//!
//! `cargo bench -p flagfall-game --bench replay`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flagfall_game::generate::random_game;
use flagfall_game::script;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

const GAMES: u64 = 200;

fn bench(c: &mut Criterion) {
    let games: Vec<_> = (0..GAMES).map(|s| random_game(s, 160)).collect();
    let plies: u64 = games.iter().map(|g| g.moves.len() as u64).sum();
    let scripts: Vec<_> = games
        .iter()
        .map(|g| script::parse(&g.to_script("uscf-2020")).expect("generated script parses"))
        .collect();
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(plies));
    group.sample_size(20);
    group.bench_function("shakmaty_play_only", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for g in &games {
                let mut pos = Chess::default();
                for m in &g.moves {
                    let uci: UciMove = m.parse().expect("uci");
                    let mv = uci.to_move(&pos).expect("legal");
                    pos.play_unchecked(mv);
                    n += 1;
                }
            }
            black_box(n)
        })
    });
    group.bench_function("shakmaty_plain_play", |b| {
        b.iter(|| {
            let mut over = 0usize;
            for g in &games {
                let mut pos = Chess::default();
                for m in &g.moves {
                    let uci: UciMove = m.parse().expect("uci");
                    let mv = uci.to_move(&pos).expect("legal");
                    pos.play_unchecked(mv);
                    if pos.is_game_over() {
                        over += 1;
                    }
                }
            }
            black_box(over)
        })
    });
    group.bench_function("flagfall_arbiter_replay", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for s in &scripts {
                n += flagfall_game::replay(s).rulings.len();
            }
            black_box(n)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
