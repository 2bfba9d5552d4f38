//! What the state's new parts cost per event message (issue 20): `Actions::of` (what each
//! role may do, the director's five ladders) beside the whole `Snapshot::of` over the
//! board, and online `legal_san` (the SAN of every legal move) beside `Game::dests` (the
//! legal destinations the update already carried), in the same run. Positions: every
//! position of 20 random legal games (up to 80 plies each).
//!
//! `cargo bench -p flagfall-protocol --bench snapshot`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flagfall_game::generate::random_game;
use flagfall_game::{Game, MoveList, script};
use flagfall_protocol::{Actions, Mode, Snapshot, StateContext, legal_san};
use serde_json::Value;

/// Every position of the games, as a live game after each event.
fn positions() -> Vec<(Game, MoveList)> {
    let mut out = Vec::new();
    for seed in 0..20 {
        let text = random_game(seed, 80).to_script("uscf-2020");
        let parsed = script::parse(&text).expect("generated script parses");
        let mut game = Game::new(parsed.setup.clone());
        for (i, ev) in parsed.events.iter().enumerate() {
            game.apply(ev, i + 1);
            let mut moves = MoveList::default();
            moves.update(&game);
            out.push((game.clone(), moves));
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let games = positions();
    let setup = Value::Null;
    let cx = |mode| StateContext {
        id: "g",
        setup: &setup,
        mode,
        n: 1,
        now: 1,
        started: true,
    };
    let mut group = c.benchmark_group("snapshot");
    group.throughput(Throughput::Elements(games.len() as u64));
    group.sample_size(20);
    for (name, mode) in [("otb", Mode::Otb), ("online", Mode::Online)] {
        group.bench_function(format!("snapshot_{name}"), |b| {
            b.iter(|| {
                for (g, m) in &games {
                    let from = m.entries().len().saturating_sub(1);
                    black_box(Snapshot::of(g, m.entries(), from, cx(mode)));
                }
            })
        });
        group.bench_function(format!("actions_{name}"), |b| {
            b.iter(|| {
                for (g, _) in &games {
                    black_box(Actions::of(g, mode));
                }
            })
        });
    }
    group.bench_function("dests", |b| {
        b.iter(|| {
            for (g, _) in &games {
                black_box(g.dests());
            }
        })
    });
    group.bench_function("legal_san", |b| {
        b.iter(|| {
            for (g, _) in &games {
                black_box(legal_san(g));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
