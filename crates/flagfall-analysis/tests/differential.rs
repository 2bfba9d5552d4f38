//! Differential and ground-truth tests of `can_checkmate`:
//! - random generated positions against chasolver 3.0.0's full mode: no disagreement on
//!   any query both decide;
//! - chasolver's own classified position files (copied into `tests/data/`): flagfall never
//!   contradicts the expected class;
//! - the full-width locked walls (`shut-walls`) and the kings shut in a corner pocket
//!   behind one (`pockets`): every query decided at the default limit, as chasolver decides
//!   it;
//! - every `Winnable` witness replays to mate (`verify_helpmate`).

#[path = "support/corpus.rs"]
mod corpus;

use std::str::FromStr;

use flagfall_analysis::{Limits, Verdict, can_checkmate, verify_helpmate};
use shakmaty::{Color, fen::Fen};

fn chasolver_says(fen: &str, winner: Color) -> Option<bool> {
    let board = chess::Board::from_str(fen).expect("chess crate parses the FEN");
    let c = if winner.is_white() {
        chess::Color::White
    } else {
        chess::Color::Black
    };
    match chasolver::winnability(&board, c) {
        Some(chasolver::Winnability::Winnable { .. }) => Some(true),
        Some(chasolver::Winnability::Unwinnable) => Some(false),
        None => None,
    }
}

fn flagfall_says(fen: &str, winner: Color, limits: &Limits) -> Option<bool> {
    let setup = fen.parse::<Fen>().expect("valid FEN").into_setup();
    match can_checkmate(&setup, winner, limits) {
        Verdict::Winnable { witness } => {
            verify_helpmate(&setup, winner, &witness)
                .unwrap_or_else(|e| panic!("bad witness for {fen} ({winner:?}): {e}"));
            Some(true)
        }
        Verdict::Unwinnable { .. } => Some(false),
        Verdict::Undetermined { .. } => None,
    }
}

#[test]
fn agrees_with_chasolver_on_random_positions() {
    let limits = Limits { nodes: 200_000 };
    let queries = corpus::corpus(0x5eed_2026, 1);
    let (mut both, mut ff_undet, mut cha_undet) = (0, 0, 0);
    // Every 6th query keeps the test well under a minute.
    for q in queries.iter().step_by(6) {
        let ff = flagfall_says(&q.fen, q.winner, &limits);
        let cha = chasolver_says(&q.fen, q.winner);
        match (ff, cha) {
            (Some(a), Some(b)) => {
                assert_eq!(
                    a, b,
                    "disagreement on {} ({:?}, {})",
                    q.fen, q.winner, q.family
                );
                both += 1;
            }
            (None, _) => ff_undet += 1,
            (_, None) => cha_undet += 1,
        }
    }
    eprintln!("decided by both: {both}, flagfall undetermined: {ff_undet}, chasolver: {cha_undet}");
    assert!(both > 800, "too few decided queries: {both}");
    // Known gap (see BENCHMARKS.md): with this node limit flagfall still leaves some long
    // helpmates undetermined that chasolver finds. Guard against regressions.
    assert!(
        ff_undet * 25 <= both,
        "flagfall left {ff_undet} queries undetermined"
    );
}

fn check_classified_file(text: &str, step: usize, limits: &Limits) -> (usize, usize) {
    let (mut decided, mut undetermined) = (0, 0);
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .step_by(step);
    for line in lines {
        let (class, fen) = line.split_at(2);
        let fen = fen.trim();
        let class = class.as_bytes();
        for (winner, expected) in [
            (Color::White, class[0] == b'W'),
            (Color::Black, class[1] == b'B'),
        ] {
            match flagfall_says(fen, winner, limits) {
                Some(got) => {
                    assert_eq!(got, expected, "wrong verdict for {fen} ({winner:?})");
                    decided += 1;
                }
                None => undetermined += 1,
            }
        }
    }
    (decided, undetermined)
}

#[test]
fn never_contradicts_chasolver_lichess_ground_truth() {
    let text = include_str!("data/chasolver-lichess.txt");
    let (decided, undetermined) = check_classified_file(text, 4, &Limits { nodes: 200_000 });
    eprintln!("lichess file: decided {decided}, undetermined {undetermined}");
    assert!(decided > 1900);
}

#[test]
fn never_contradicts_chasolver_hard_positions() {
    // The community's hard positions: a low node limit keeps this quick, so some stay
    // undetermined; what matters here is that no decided answer is wrong.
    let text = include_str!("data/chasolver-positions.txt");
    let (decided, undetermined) = check_classified_file(text, 12, &Limits { nodes: 20_000 });
    eprintln!("hard positions: decided {decided}, undetermined {undetermined}");
    assert!(decided > 300);
}

#[test]
fn decides_every_locked_wall_and_agrees_with_chasolver() {
    // The full-width locked walls of the corpus (`shut-walls`, pieces behind the wall on
    // both sides, both winners), half of the benchmark corpus's and a quarter of another
    // seed's: at the default limit flagfall leaves none undetermined, never calls one
    // unwinnable that chasolver finds a helpmate in, and every witness replays to mate.
    let limits = Limits::default();
    let mut checked = 0;
    for (seed, step) in [(0x5eed_2026, 2), (7, 4)] {
        let queries = corpus::corpus(seed, 1);
        let walls = queries.iter().filter(|q| q.family == "shut-walls");
        for q in walls.step_by(step) {
            let ff = flagfall_says(&q.fen, q.winner, &limits)
                .unwrap_or_else(|| panic!("undetermined: {} ({:?})", q.fen, q.winner));
            if let Some(cha) = chasolver_says(&q.fen, q.winner) {
                assert_eq!(ff, cha, "disagreement on {} ({:?})", q.fen, q.winner);
            }
            checked += 1;
        }
    }
    assert!(checked > 1_000, "only {checked} locked-wall queries");
}

#[test]
fn decides_every_corner_pocket_and_agrees_with_chasolver() {
    // Kings shut in a corner pocket behind a full-width locked wall with a knight of the
    // other side near them (`pockets`, both winners, either colour boxed, either corner,
    // with and without a spare pawn for the free side; issue 23), half of the benchmark
    // corpus's and a quarter of another seed's: at the default limit flagfall leaves none
    // undetermined, agrees with chasolver on every one, and every witness replays to mate.
    let limits = Limits::default();
    let (mut checked, mut unwinnable) = (0, 0);
    for (seed, step) in [(0x5eed_2026, 2), (7, 4)] {
        let queries = corpus::corpus(seed, 1);
        let pockets = queries.iter().filter(|q| q.family == "pockets");
        for q in pockets.step_by(step) {
            let ff = flagfall_says(&q.fen, q.winner, &limits)
                .unwrap_or_else(|| panic!("undetermined: {} ({:?})", q.fen, q.winner));
            let cha = chasolver_says(&q.fen, q.winner)
                .unwrap_or_else(|| panic!("chasolver undetermined: {} ({:?})", q.fen, q.winner));
            assert_eq!(ff, cha, "disagreement on {} ({:?})", q.fen, q.winner);
            checked += 1;
            unwinnable += usize::from(!ff);
        }
    }
    assert!(checked > 400, "only {checked} corner-pocket queries");
    // The family is about fortresses: a good part of it must be unwinnable.
    assert!(
        unwinnable * 5 > checked,
        "only {unwinnable} of {checked} unwinnable"
    );
}
