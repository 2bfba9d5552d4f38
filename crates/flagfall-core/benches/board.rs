//! Physical board speed: replaying random legal games through `PhysicalPosition::play` against
//! plain shakmaty `Chess::play` of the same moves (the baseline), measured in one run.

use criterion::{Criterion, criterion_group, criterion_main};
use flagfall_core::board::{BoardRules, PhysicalMove, PhysicalPosition};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, File, Move, Position, Square};
use std::hint::black_box;

const GAMES: usize = 32;
const MAX_PLIES: usize = 120;

/// Random legal games from the start, as shakmaty moves and as physical moves.
fn games() -> Vec<(Vec<Move>, Vec<PhysicalMove>)> {
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    (0..GAMES)
        .map(|_| {
            let mut pos = Chess::new();
            let mut moves = Vec::new();
            let mut physical = Vec::new();
            for _ in 0..MAX_PLIES {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.usize(..legal.len())];
                let Some(from) = m.from() else { break };
                let to = match m {
                    Move::Castle { king, rook } => {
                        let file = if rook.file() > king.file() {
                            File::G
                        } else {
                            File::C
                        };
                        Square::from_coords(file, king.rank())
                    }
                    _ => m.to(),
                };
                physical.push(PhysicalMove {
                    from,
                    to,
                    promotion: m.promotion(),
                });
                moves.push(m);
                pos.play_unchecked(m);
            }
            (moves, physical)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let games = games();
    let plies: usize = games.iter().map(|(m, _)| m.len()).sum();
    eprintln!("{GAMES} games, {plies} plies per iteration");
    let rules = BoardRules::default();
    let mut group = c.benchmark_group("physical_board");
    group.bench_function("shakmaty_chess_play", |b| {
        b.iter(|| {
            for (moves, _) in &games {
                let mut pos = Chess::new();
                for m in moves {
                    pos = pos.play(*m).expect("legal");
                }
                black_box(&pos);
            }
        })
    });
    group.bench_function("shakmaty_uci_to_move_and_play", |b| {
        b.iter(|| {
            for (_, moves) in &games {
                let mut pos = Chess::new();
                for m in moves {
                    let uci = UciMove::Normal {
                        from: m.from,
                        to: m.to,
                        promotion: m.promotion,
                    };
                    let m = uci.to_move(&pos).expect("legal");
                    pos.play_unchecked(m);
                }
                black_box(&pos);
            }
        })
    });
    group.bench_function("shakmaty_to_move_san_play", |b| {
        b.iter(|| {
            for (_, moves) in &games {
                let mut pos = Chess::new();
                for m in moves {
                    let uci = UciMove::Normal {
                        from: m.from,
                        to: m.to,
                        promotion: m.promotion,
                    };
                    let m = uci.to_move(&pos).expect("legal");
                    let san = shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, m)
                        .to_string();
                    black_box(&san);
                }
                black_box(&pos);
            }
        })
    });
    group.bench_function("position_classify_only", |b| {
        let mut positions = Vec::new();
        for (_, moves) in games.iter().take(4) {
            let mut pos = PhysicalPosition::new();
            for m in moves {
                positions.push((pos.clone(), *m));
                let mover = pos.turn();
                pos.play(m, mover, &rules).expect("plays");
            }
        }
        b.iter(|| {
            for (pos, m) in &positions {
                black_box(pos.classify(m, pos.turn(), &rules).expect("ok"));
            }
        })
    });
    group.bench_function("position_play", |b| {
        b.iter(|| {
            for (_, moves) in &games {
                let mut pos = PhysicalPosition::new();
                for m in moves {
                    let mover = pos.turn();
                    let rec = pos.play(m, mover, &rules).expect("plays");
                    black_box(&rec);
                }
                black_box(&pos);
            }
        })
    });
    group.bench_function("shakmaty_chess_play_and_outcome", |b| {
        b.iter(|| {
            for (moves, _) in &games {
                let mut pos = Chess::new();
                for m in moves {
                    pos = pos.play(*m).expect("legal");
                    black_box(pos.outcome());
                }
            }
        })
    });
    group.bench_function("position_play_and_status", |b| {
        b.iter(|| {
            for (_, moves) in &games {
                let mut pos = PhysicalPosition::new();
                for m in moves {
                    let mover = pos.turn();
                    let rec = pos.play(m, mover, &rules).expect("plays");
                    black_box(&rec);
                    black_box(pos.status());
                }
            }
        })
    });
    group.bench_function("position_play_generic_path", |b| {
        b.iter(|| {
            for (_, moves) in &games {
                let mut pos = PhysicalPosition::new().generic_only();
                for m in moves {
                    let mover = pos.turn();
                    let rec = pos.play(m, mover, &rules).expect("plays");
                    black_box(&rec);
                }
                black_box(&pos);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
