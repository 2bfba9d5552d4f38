//! Property tests: invariance under renumbering, Buchholz on full round robins, cut ordering.

use flagfall_events::tiebreak::{
    ByeKind, Colour, Crosstable, CrosstableGame, Format, GameOutcome, Modifier, Options,
    PlayerInfo, RoundEntry, TIEBREAK_TABLE, Tiebreak, Value, compute, standings,
};
use proptest::prelude::*;

// One `u64` seed describes a whole event.
use fastrand::Rng;

fn players(n: usize, rng: &mut Rng) -> Vec<PlayerInfo> {
    (0..n)
        .map(|i| PlayerInfo {
            id: i as u32 + 1,
            name: format!("P{}", i + 1),
            rating: Some(1000 + rng.u64(..1800) as u32),
        })
        .collect()
}

fn random_outcome(rng: &mut Rng, forfeits: bool) -> GameOutcome {
    let x = rng.u64(..20);
    match x {
        0..=6 => GameOutcome::Win,
        7..=12 => GameOutcome::Draw,
        13..=18 => GameOutcome::Loss,
        _ if !forfeits => GameOutcome::Draw,
        _ => match rng.u64(..3) {
            0 => GameOutcome::ForfeitWin,
            1 => GameOutcome::ForfeitLoss,
            _ => GameOutcome::DoubleForfeit,
        },
    }
}

fn set_pair(ct: &mut Crosstable, r: usize, w: usize, b: usize, games: Vec<GameOutcome>) {
    let mine: Vec<CrosstableGame> = games
        .iter()
        .enumerate()
        .map(|(k, &o)| CrosstableGame {
            colour: if k % 2 == 0 {
                Colour::White
            } else {
                Colour::Black
            },
            outcome: o,
        })
        .collect();
    let theirs: Vec<CrosstableGame> = mine
        .iter()
        .map(|g| CrosstableGame {
            colour: g.colour.opposite(),
            outcome: g.outcome.mirrored(),
        })
        .collect();
    ct.results[w][r] = RoundEntry::Paired {
        opponent: b,
        games: mine,
    };
    ct.results[b][r] = RoundEntry::Paired {
        opponent: w,
        games: theirs,
    };
}

/// A random Swiss-like event: random pairings each round, requested byes, absences, a PAB for
/// the odd player out, forfeits; one or two games per round.
fn random_swiss(seed: u64, n: usize, rounds: u32, games_per_round: u32) -> Crosstable {
    let mut rng = Rng::with_seed(seed);
    let mut ct = Crosstable::new(Format::Swiss, rounds, players(n, &mut rng));
    ct.games_per_round = games_per_round;
    for r in 0..rounds as usize {
        let mut pool: Vec<usize> = Vec::new();
        for p in 0..n {
            match rng.u64(..12) {
                0 => ct.results[p][r] = RoundEntry::Bye(ByeKind::Half),
                1 => ct.results[p][r] = RoundEntry::Bye(ByeKind::Absent),
                2 if rng.u64(..3) == 0 => ct.results[p][r] = RoundEntry::Bye(ByeKind::Zero),
                3 if rng.u64(..4) == 0 => ct.results[p][r] = RoundEntry::Bye(ByeKind::Full),
                _ => pool.push(p),
            }
        }
        // Fisher-Yates.
        for i in (1..pool.len()).rev() {
            let j = rng.u64(..i as u64 + 1) as usize;
            pool.swap(i, j);
        }
        if pool.len() % 2 == 1 {
            let p = pool.pop().unwrap_or_default();
            ct.results[p][r] = RoundEntry::Bye(ByeKind::Pab);
        }
        for pair in pool.chunks(2) {
            let games = (0..games_per_round)
                .map(|_| random_outcome(&mut rng, true))
                .collect();
            set_pair(&mut ct, r, pair[0], pair[1], games);
        }
    }
    ct
}

/// A full single round robin for an even number of players (circle method), results played.
fn random_round_robin(seed: u64, n: usize) -> Crosstable {
    let mut rng = Rng::with_seed(seed);
    let rounds = (n - 1) as u32;
    let mut ct = Crosstable::new(Format::RoundRobin, rounds, players(n, &mut rng));
    let mut ring: Vec<usize> = (0..n).collect();
    for r in 0..rounds as usize {
        for i in 0..n / 2 {
            let (a, b) = (ring[i], ring[n - 1 - i]);
            let outcome = random_outcome(&mut rng, false);
            set_pair(&mut ct, r, a, b, vec![outcome]);
        }
        // Rotate all but the first.
        let last = ring.pop().unwrap_or_default();
        ring.insert(1, last);
    }
    ct
}

/// The same event with players renumbered: old row `i` becomes row `perm[i]`.
fn renumber(ct: &Crosstable, perm: &[usize]) -> Crosstable {
    let n = ct.players.len();
    let mut out = ct.clone();
    for i in 0..n {
        out.players[perm[i]] = ct.players[i].clone();
        out.results[perm[i]] = ct.results[i]
            .iter()
            .map(|e| match e {
                RoundEntry::Paired { opponent, games } => RoundEntry::Paired {
                    opponent: perm[*opponent],
                    games: games.clone(),
                },
                other => other.clone(),
            })
            .collect();
    }
    out
}

fn permutation(seed: u64, n: usize) -> Vec<usize> {
    let mut rng = Rng::with_seed(seed.rotate_left(17));
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.u64(..i as u64 + 1) as usize;
        perm.swap(i, j);
    }
    perm
}

/// Every implemented per-player tiebreak, with every modifier where it applies.
fn all_tiebreaks() -> Vec<Tiebreak> {
    let mut out = Vec::new();
    for info in TIEBREAK_TABLE.iter().filter(|i| i.implemented) {
        let base: Tiebreak = info.id.parse().expect("table ids parse");
        out.push(base);
        for m in ["C1", "C2", "M1", "M2"] {
            if let Ok(t) = format!("{}-{m}", info.id).parse::<Tiebreak>() {
                out.push(t);
            }
        }
    }
    out.push(Tiebreak::Koya { limit: 1 });
    out
}

fn rated() -> Options {
    Options {
        unrated_rating: Some(1000),
        ..Options::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Renumbering the players changes no tiebreak value and no rank.
    #[test]
    fn invariant_under_renumbering(
        seed in any::<u64>(),
        n in 2usize..12,
        rounds in 1u32..7,
        games in 1u32..3,
    ) {
        let ct = random_swiss(seed, n, rounds, games);
        prop_assert!(ct.validate().is_ok());
        let perm = permutation(seed, n);
        let moved = renumber(&ct, &perm);
        prop_assert!(moved.validate().is_ok());
        let opts = rated();
        for tb in all_tiebreaks() {
            let a = compute(&ct, tb, &opts).expect("computable");
            let b = compute(&moved, tb, &opts).expect("computable");
            for i in 0..n {
                prop_assert_eq!(a[i], b[perm[i]], "{} of old row {}", tb, i);
            }
        }
        let list: Vec<Tiebreak> = ["DE", "BH-C1", "SB", "US-MM", "TPR"]
            .iter()
            .map(|s| s.parse().expect("id"))
            .collect();
        let sa = standings(&ct, &list, &opts).expect("standings");
        let sb = standings(&moved, &list, &opts).expect("standings");
        let rank_of = |rows: &[flagfall_events::tiebreak::StandingRow], p: usize| {
            rows.iter().find(|r| r.player == p).map(|r| (r.rank, r.values.clone()))
        };
        for (i, &j) in perm.iter().enumerate() {
            prop_assert_eq!(rank_of(&sa.rows, i), rank_of(&sb.rows, j));
        }
    }

    /// On a full round robin without forfeits, Buchholz is the sum of all opponents' scores,
    /// that is everybody's points minus one's own; SB never exceeds BH.
    #[test]
    fn buchholz_on_full_round_robin(seed in any::<u64>(), half in 1usize..6) {
        let n = 2 * half;
        let ct = random_round_robin(seed, n);
        prop_assert!(ct.validate().is_ok());
        let opts = Options::default();
        let bh = compute(&ct, Tiebreak::Buchholz(Modifier::None), &opts).expect("bh");
        let sb = compute(&ct, Tiebreak::SonnebornBerger(Modifier::None), &opts).expect("sb");
        let st = standings(&ct, &[], &opts).expect("standings");
        let mut score = vec![0i64; n];
        for row in &st.rows {
            score[row.player] = i64::from(row.score.0);
        }
        let total: i64 = score.iter().sum();
        // Every round hands out one point per game: n/2 games per round, n-1 rounds.
        prop_assert_eq!(total, (n as i64 / 2) * (n as i64 - 1) * 2);
        for p in 0..n {
            prop_assert_eq!(bh[p], Value::half_points(total - score[p]));
            prop_assert!(sb[p] <= bh[p]);
        }
    }

    /// Cuts only ever remove non-negative addends: BH ≥ C1 ≥ C2, M1 ≤ C1, M2 ≤ M1 ≤ BH.
    #[test]
    fn cuts_are_ordered(seed in any::<u64>(), n in 2usize..12, rounds in 1u32..8) {
        let ct = random_swiss(seed, n, rounds, 1);
        let opts = Options::default();
        let get = |m| compute(&ct, Tiebreak::Buchholz(m), &opts).expect("bh");
        let (bh, c1, c2, m1, m2) = (
            get(Modifier::None),
            get(Modifier::Cut1),
            get(Modifier::Cut2),
            get(Modifier::Median1),
            get(Modifier::Median2),
        );
        for p in 0..n {
            prop_assert!(bh[p] >= c1[p] && c1[p] >= c2[p] && c2[p] >= Value::ZERO);
            prop_assert!(m1[p] <= c1[p] && m2[p] <= m1[p] && m2[p] >= Value::ZERO);
        }
    }
}
