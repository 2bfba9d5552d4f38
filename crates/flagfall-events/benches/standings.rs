//! Standings and tiebreak cost on a large blitz Swiss (200 players, 11 rounds), against the
//! score-only ranking of the same crosstable as the baseline.

use criterion::{Criterion, criterion_group, criterion_main};
use flagfall_events::tiebreak::{
    ByeKind, Colour, Crosstable, Format, GameOutcome, Options, PlayerInfo, RoundEntry, compute,
    parse_list, standings,
};
use std::hint::black_box;

/// A deterministic event: random pairings, a PAB for the odd player, some half-point byes,
/// absences and forfeits.
fn event(n: usize, rounds: u32) -> Crosstable {
    let mut rng = fastrand::Rng::with_seed(0x5eed_1234_abcd_0001);
    let players = (0..n)
        .map(|i| PlayerInfo {
            id: i as u32 + 1,
            name: format!("P{}", i + 1),
            rating: Some(1200 + rng.u64(..1400) as u32),
        })
        .collect();
    let mut ct = Crosstable::new(Format::Swiss, rounds, players);
    for r in 0..rounds as usize {
        let mut pool = Vec::new();
        for p in 0..n {
            match rng.u64(..40) {
                0 => ct.results[p][r] = RoundEntry::Bye(ByeKind::Half),
                1 => ct.results[p][r] = RoundEntry::Bye(ByeKind::Absent),
                _ => pool.push(p),
            }
        }
        for i in (1..pool.len()).rev() {
            let j = rng.u64(..i as u64 + 1) as usize;
            pool.swap(i, j);
        }
        if pool.len() % 2 == 1
            && let Some(p) = pool.pop()
        {
            ct.results[p][r] = RoundEntry::Bye(ByeKind::Pab);
        }
        for pair in pool.chunks(2) {
            let outcome = match rng.u64(..50) {
                0 => GameOutcome::ForfeitWin,
                1..=17 => GameOutcome::Win,
                18..=33 => GameOutcome::Draw,
                _ => GameOutcome::Loss,
            };
            ct.results[pair[0]][r] = RoundEntry::played(pair[1], Colour::White, outcome);
            ct.results[pair[1]][r] = RoundEntry::played(pair[0], Colour::Black, outcome.mirrored());
        }
    }
    ct
}

fn bench(c: &mut Criterion) {
    let ct = event(200, 11);
    let opts = Options::default();
    let full = parse_list("DE, BH-C1, BH, SB, ARO, TPR, US-MM").expect("ids");
    let bh = parse_list("BH-C1").expect("ids")[0];
    let mut g = c.benchmark_group("standings_200x11");
    g.bench_function("baseline_score_only", |b| {
        b.iter(|| standings(black_box(&ct), &[], &opts))
    });
    g.bench_function("bh_c1_values", |b| {
        b.iter(|| compute(black_box(&ct), bh, &opts))
    });
    g.bench_function("seven_tiebreaks", |b| {
        b.iter(|| standings(black_box(&ct), &full, &opts))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
