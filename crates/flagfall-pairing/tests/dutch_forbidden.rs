//! Forbidden pairs and large first rounds in the Dutch engine, against bbpPairings
//! (`data/dutch_forbidden/README.md`, `data/dutch_round1/README.md`):
//! 25 conformance cases with `XXP` and `260` lines added must pair exactly as bbpPairings
//! pairs them; a forbidden pair is never paired; bad lines are refused with their reason.

use std::path::PathBuf;

use flagfall_pairing::dutch::{DutchInput, PairingError, pair};
use flagfall_pairing::trf::Trf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/dutch_forbidden")
}

fn input_of(text: &str) -> Result<DutchInput, PairingError> {
    let trf = Trf::parse(text).expect("the TRF reads");
    DutchInput::from_trf(&trf)
}

#[test]
fn forbidden_cases_match_bbppairings() {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .expect("data directory")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".trf").map(str::to_string)
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 25, "the 25 cases are present");
    let mut failures = Vec::new();
    for name in &names {
        let dir = data_dir();
        let text = std::fs::read_to_string(dir.join(format!("{name}.trf"))).expect("trf");
        let expected = std::fs::read_to_string(dir.join(format!("{name}.pairs"))).expect("pairs");
        let input = input_of(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            !input.forbidden_pairs.is_empty(),
            "{name}: forbidden pairs read"
        );
        let got = pair(&input).unwrap_or_else(|e| panic!("{name}: {e}"));
        for &(w, b) in &got.boards {
            assert!(
                !input
                    .forbidden_pairs
                    .iter()
                    .any(|&(x, y)| (x, y) == (w, b) || (y, x) == (w, b)),
                "{name}: forbidden pair {w}-{b} paired"
            );
        }
        if got.to_string() != expected {
            failures.push(name.clone());
        }
    }
    assert!(failures.is_empty(), "differ from bbpPairings: {failures:?}");
}

#[test]
fn xxp_groups_and_260_rounds() {
    let text = std::fs::read_to_string(data_dir().join("f004.trf")).expect("trf");
    let input = input_of(&text).expect("input");
    // XXP 26 3; XXP 28 7 1 (three pairs); 260 in force (one pair); 260 for earlier
    // rounds only (none).
    let mut pairs: Vec<(u32, u32)> = input
        .forbidden_pairs
        .iter()
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort_unstable();
    assert_eq!(pairs, vec![(1, 7), (1, 28), (3, 26), (6, 43), (7, 28)]);
}

#[test]
fn bad_forbidden_lines_are_refused() {
    let text = std::fs::read_to_string(data_dir().join("f004.trf")).expect("trf");
    for (line, wanted) in [
        ("XXP 3 9999", "XXP line: there is no player 9999"),
        ("XXP 3 x", "XXP line: \"x\" is not a pairing number"),
        (
            "260   x   9    6   43",
            "260 line: round \"x\" is not a round number",
        ),
        ("260 1", "260 line too short"),
    ] {
        let bad = text.replacen("XXP 26 3", line, 1);
        let err = input_of(&bad).expect_err(line).to_string();
        assert!(err.contains(wanted), "{line}: {err}");
    }
}

/// Round 1 of 1,001 and 999 players (the engine's round-1 shortcut) as bbpPairings pairs
/// it (`data/dutch_round1/README.md`).
#[test]
fn large_first_rounds_match_bbppairings() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/dutch_round1");
    for name in ["r1_1001", "r1_999_black"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.trf"))).expect("trf");
        let expected = std::fs::read_to_string(dir.join(format!("{name}.pairs"))).expect("pairs");
        let got = pair(&input_of(&text).expect("input")).expect("pairing");
        assert_eq!(got.to_string(), expected, "{name}");
    }
}
