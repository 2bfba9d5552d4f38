//! Is `flagfall event` fast enough for 20+ rounds in an evening? Each CLI call loads the
//! event file, pairs (or records a result), and saves it. This measures, on a 60-player
//! Double Swiss and a 60-player US Swiss 20 rounds in (results random but fixed):
//! pairing round 21, and as the baseline the JSON load + save that every call does.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use flagfall_events::event::{Event, Format, NewPlayer, RecordedResult};

fn event_after(format: Format, players: u32, rounds: u32) -> Event {
    let mut e = Event::new("Bench", format, Some(rounds + 1)).expect("event");
    for i in 1..=players {
        e.add_player(NewPlayer {
            name: format!("Player {i}"),
            rating: Some(2400 - 7 * i),
            ..NewPlayer::default()
        })
        .expect("player");
    }
    let mut seed: u32 = 12345;
    for r in 1..=rounds {
        e.pair_next().expect("pair");
        let boards: Vec<u32> = e.round_list[r as usize - 1]
            .boards
            .iter()
            .map(|b| b.number)
            .collect();
        for b in boards {
            let results: Vec<RecordedResult> = (0..format.games_per_round())
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    match (seed >> 16) % 3 {
                        0 => RecordedResult::WhiteWins,
                        1 => RecordedResult::Draw,
                        _ => RecordedResult::BlackWins,
                    }
                })
                .collect();
            e.set_result(r, b, &results).expect("result");
        }
    }
    e
}

fn bench(c: &mut Criterion) {
    for (label, format) in [
        ("double-swiss", Format::DoubleSwiss),
        ("us-swiss", Format::UsSwiss),
    ] {
        let e = event_after(format, 60, 20);
        let json = serde_json::to_string_pretty(&e).expect("json");
        c.bench_function(&format!("{label} 60p: json load+save (baseline)"), |b| {
            b.iter(|| {
                let ev: Event = serde_json::from_str(black_box(&json)).expect("load");
                black_box(serde_json::to_string_pretty(&ev).expect("save"))
            })
        });
        c.bench_function(&format!("{label} 60p: pair round 21"), |b| {
            b.iter(|| {
                let mut ev = e.clone();
                black_box(ev.pair_next().expect("pair"))
            })
        });
        c.bench_function(&format!("{label} 60p: standings after 20"), |b| {
            b.iter(|| black_box(e.standings(None, None).expect("standings")))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
