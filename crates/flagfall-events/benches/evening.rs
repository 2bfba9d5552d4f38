//! A whole evening through the events library, timed: every round of an event paired by
//! `Event::apply(Change::PairNext)`, its results simulated and entered one board at a
//! time with `Change::SetResults`, as a server would. Behind the "A whole evening"
//! section of BENCHMARKS.md (issue 21 item 7: from the last result of a round to the next
//! round's pairings; the server's own share is measured by the server suite's ignored
//! `evening_speed` measurement).
//!
//! `cargo bench -p flagfall-events --bench evening` runs the two evenings of issue 21:
//! a Swiss (FIDE Dutch) of 1,000 players and 9 rounds, and a Double Swiss of 500 players
//! and 7 rounds, every round including the first. One evening of one's own:
//! `cargo bench -p flagfall-events --bench evening -- FORMAT PLAYERS ROUNDS`
//! `[--seed N] [--repeat N] [--check]`
//!
//! FORMAT is `swiss` (FIDE Dutch), `double-swiss` or `us-swiss`. Ratings are drawn from
//! 1000-2800, results by the Elo expectation with draws (more between close ratings), 2 %
//! forfeits; every round 1 % of the players pause and come back the round after, so the
//! field is odd now and then. For each round the bench prints, in milliseconds: the
//! pairing (`apply(PairNext)`, best of `--repeat` runs on copies of the same event, so
//! every run pairs the same round; wall time and, on Linux, the thread's CPU time), the
//! last result's `apply` (the one that completes the round), and, as the baseline
//! measured in the same run, one JSON round trip of the event as it stands (`serde_json`
//! write and read: what a server storing the event as one document pays per change).
//! `--check` also pairs each round again from the event as read back from JSON and stops
//! if the pairing differs. The last lines give a digest of every round's boards (equal
//! digests from two builds: the same pairings all evening) and the slowest pairing.

use std::time::{Duration, Instant};

use flagfall_events::change::{Change, Origin};
use flagfall_events::event::{Event, Format, NewPlayer, RecordedResult};

const USAGE: &str = "usage: evening [FORMAT PLAYERS ROUNDS] [--seed N] [--repeat N] [--check]\n  \
                     FORMAT: swiss, double-swiss or us-swiss; without them, the evenings of \
                     issue 21 (swiss 1000 9, double-swiss 500 7)";

fn usage_error(message: &str) -> ! {
    eprintln!("evening: {message}\n{USAGE}");
    std::process::exit(2);
}

use fastrand::Rng;

fn game(rng: &mut Rng, white: u32, black: u32) -> RecordedResult {
    let u = rng.f64();
    if u < 0.02 {
        return if rng.f64() < 0.5 {
            RecordedResult::WhiteWinsByForfeit
        } else {
            RecordedResult::BlackWinsByForfeit
        };
    }
    let diff = f64::from(white) - f64::from(black) + 35.0;
    let expected = 1.0 / (1.0 + 10f64.powf(-diff / 400.0));
    let draw = 0.35 * (1.0 - (expected - 0.5).abs() * 2.0);
    let v = rng.f64();
    if v < draw {
        RecordedResult::Draw
    } else if v < draw + (1.0 - draw) * expected {
        RecordedResult::WhiteWins
    } else {
        RecordedResult::BlackWins
    }
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time of this thread so far (`CLOCK_THREAD_CPUTIME_ID`), `None` where there is no
/// such clock: on a shared machine the wall time includes other processes' turns, the CPU
/// time does not.
#[cfg(unix)]
fn thread_cpu() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut t) };
    (rc == 0).then(|| {
        Duration::new(
            u64::try_from(t.tv_sec).unwrap_or(0),
            u32::try_from(t.tv_nsec).unwrap_or(0),
        )
    })
}

#[cfg(not(unix))]
fn thread_cpu() -> Option<Duration> {
    None
}

fn main() {
    let mut positional = Vec::new();
    let mut seed: u64 = 20_261_120;
    let mut repeat: Option<u32> = None;
    let mut check = false;
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
            "--seed" => {
                seed = value("--seed")
                    .parse()
                    .unwrap_or_else(|_| usage_error("--seed: not a number"));
            }
            "--repeat" => {
                repeat = Some(
                    value("--repeat")
                        .parse()
                        .ok()
                        .filter(|&r| r > 0)
                        .unwrap_or_else(|| usage_error("--repeat: a number from 1")),
                );
            }
            "--check" => check = true,
            // `cargo bench` passes `--bench` to every bench binary.
            "--bench" => {}
            other if !other.starts_with('-') => positional.push(other.to_string()),
            other => usage_error(&format!("unknown argument `{other}`")),
        }
    }
    if positional.is_empty() {
        // The evenings of issue 21 item 7, every round once (a round of the Swiss takes
        // a good part of a second).
        let repeat = repeat.unwrap_or(1);
        evening(Format::Swiss, 1000, 9, seed, repeat, check);
        println!();
        evening(Format::DoubleSwiss, 500, 7, seed, repeat, check);
        return;
    }
    let [format, players, rounds] = positional.as_slice() else {
        usage_error("FORMAT, PLAYERS and ROUNDS are needed (or none of them)");
    };
    let format: Format = format
        .parse()
        .unwrap_or_else(|e| usage_error(&format!("{e}")));
    if format.is_round_robin() {
        usage_error("FORMAT: a Swiss format");
    }
    let players: u32 = players
        .parse()
        .unwrap_or_else(|_| usage_error("PLAYERS: not a number"));
    let rounds: u32 = rounds
        .parse()
        .unwrap_or_else(|_| usage_error("ROUNDS: not a number"));
    evening(format, players, rounds, seed, repeat.unwrap_or(3), check);
}

/// One evening, every round paired, timed and played; a line per round and the slowest.
#[allow(clippy::too_many_lines)]
fn evening(format: Format, players: u32, rounds: u32, seed: u64, repeat: u32, check: bool) {
    let mut rng = Rng::with_seed(seed);
    let origin = Origin::new("bench", 0);
    let mut e = Event::new("Evening", format, Some(rounds)).unwrap_or_else(|err| {
        eprintln!("evening: {err}");
        std::process::exit(1)
    });
    for i in 1..=players {
        let rating = rng.u32(1000..=2800);
        e.apply(
            Change::AddPlayer {
                player: NewPlayer {
                    name: format!("Player {i}"),
                    rating: Some(rating),
                    ..NewPlayer::default()
                },
                check_in: true,
            },
            &origin,
        )
        .expect("add player");
    }
    println!(
        "{format}, {players} players, {rounds} rounds, seed {seed}, best of {repeat} \
         (milliseconds)"
    );
    println!(
        "round | boards | pair (wall) | pair (CPU) | last result | JSON round trip (baseline, CPU) | pair / JSON"
    );
    let mut worst = Duration::ZERO;
    let mut paused: Vec<u32> = Vec::new();
    for round in 1..=rounds {
        // Those paused last round come back; 1 % pause this round.
        for p in paused.drain(..) {
            e.apply(Change::Resume { player: p }, &origin)
                .expect("resume");
        }
        for _ in 0..players / 100 {
            let p = rng.u32(1..=players);
            if e.apply(Change::Pause { player: p }, &origin).is_ok() {
                paused.push(p);
            }
        }
        let mut best = Duration::MAX;
        let mut best_cpu: Option<Duration> = None;
        let mut paired = None;
        for _ in 0..repeat {
            let mut copy = e.clone();
            let cpu = thread_cpu();
            let start = Instant::now();
            copy.apply(Change::PairNext, &origin).expect("pair");
            best = best.min(start.elapsed());
            if let (Some(a), Some(b)) = (cpu, thread_cpu()) {
                best_cpu = Some(best_cpu.map_or(b - a, |c| c.min(b - a)));
            }
            paired = Some(copy);
        }
        let (start, cpu) = (Instant::now(), thread_cpu());
        let json = serde_json::to_string(&e).expect("json");
        let back: Event = serde_json::from_str(&json).expect("json back");
        // CPU time where there is a clock for it, as for the pairing.
        let baseline = match (cpu, thread_cpu()) {
            (Some(a), Some(b)) => b - a,
            _ => start.elapsed(),
        };
        e = paired.expect("paired at least once");
        if check {
            let mut again = back;
            again.apply(Change::PairNext, &origin).expect("pair again");
            assert_eq!(
                again.round_list.last(),
                e.round_list.last(),
                "round {round} paired differently after a JSON round trip"
            );
        }
        worst = worst.max(best_cpu.unwrap_or(best));
        let rating = |id: u32| e.player(id).ok().and_then(|p| p.rating).unwrap_or(1500);
        let boards: Vec<(u32, u32, u32)> = e.round_list[round as usize - 1]
            .boards
            .iter()
            .map(|b| (b.number, rating(b.white), rating(b.black)))
            .collect();
        let g = format.games_per_round() as usize;
        let mut last = Duration::ZERO;
        for (i, &(board, rw, rb)) in boards.iter().enumerate() {
            let results: Vec<RecordedResult> = (0..g)
                .map(|k| {
                    if k % 2 == 0 {
                        game(&mut rng, rw, rb)
                    } else {
                        game(&mut rng, rb, rw)
                    }
                })
                .collect();
            let start = Instant::now();
            e.apply(
                Change::SetResults {
                    round,
                    board,
                    results,
                },
                &origin,
            )
            .expect("result");
            if i + 1 == boards.len() {
                last = start.elapsed();
            }
        }
        println!(
            "{round:>5} | {:>6} | {:>11.1} | {:>10} | {:>11.2} | {:>31.1} | {:>5.2}",
            boards.len(),
            millis(best),
            best_cpu.map_or("-".into(), |c| format!("{:.1}", millis(c))),
            millis(last),
            millis(baseline),
            best_cpu.unwrap_or(best).as_secs_f64() / baseline.as_secs_f64()
        );
    }
    // A digest of every round's boards (number, White, Black), to tell two builds'
    // evenings apart: equal digests, equal pairings (the results follow from them).
    let mut digest = std::hash::DefaultHasher::new();
    for r in &e.round_list {
        for b in &r.boards {
            std::hash::Hash::hash(&(b.number, b.white, b.black), &mut digest);
        }
        std::hash::Hash::hash(&u32::MAX, &mut digest);
    }
    println!(
        "pairings digest: {:016x}",
        std::hash::Hasher::finish(&digest)
    );
    println!(
        "slowest pairing: {:.1} ms ({})",
        millis(worst),
        if thread_cpu().is_some() {
            "CPU"
        } else {
            "wall"
        }
    );
}
