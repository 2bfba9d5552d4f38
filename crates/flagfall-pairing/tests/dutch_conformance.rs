//! The 80 FIDE Dutch conformance cases (oracle: bbpPairings, see `data/dutch/README.md`):
//! every case must pair exactly as bbpPairings did, byte for byte. All cases run; every
//! mismatch is reported before the test fails.

use std::fmt::Write as _;
use std::path::PathBuf;

use flagfall_pairing::dutch::{DutchInput, pair};
use flagfall_pairing::trf::Trf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/dutch")
}

/// Pair one case; `Err` describes how it differs from the expected output.
fn run_case(name: &str) -> Result<(), String> {
    let dir = data_dir();
    let trf_text = std::fs::read_to_string(dir.join(format!("{name}.trf")))
        .map_err(|e| format!("cannot read {name}.trf: {e}"))?;
    let expected = std::fs::read_to_string(dir.join(format!("{name}.pairs")))
        .map_err(|e| format!("cannot read {name}.pairs: {e}"))?;
    let trf = Trf::parse(&trf_text).map_err(|e| format!("TRF error: {e}"))?;
    let input = DutchInput::from_trf(&trf).map_err(|e| format!("input error: {e}"))?;
    let pairing = pair(&input).map_err(|e| format!("pairing error: {e}"))?;
    let got = pairing.to_string();
    if got == expected {
        return Ok(());
    }
    let set = |s: &str| {
        let mut v: Vec<String> = s.lines().skip(1).map(str::to_string).collect();
        v.sort();
        v
    };
    let (g, e) = (set(&got), set(&expected));
    let missing: Vec<&String> = e.iter().filter(|l| !g.contains(l)).collect();
    let extra: Vec<&String> = g.iter().filter(|l| !e.contains(l)).collect();
    if missing.is_empty() && extra.is_empty() {
        Err("same pairs, different board order".to_string())
    } else {
        Err(format!(
            "expected but missing {missing:?}; produced instead {extra:?}"
        ))
    }
}

#[test]
fn all_cases_match_bbppairings() {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .expect("data directory")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".trf").map(str::to_string)
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 80, "the 80 cases are present");
    let mut report = String::new();
    let mut failures = 0;
    for name in &names {
        if let Err(e) = run_case(name) {
            failures += 1;
            let _ = writeln!(report, "{name}: {e}");
        }
    }
    assert!(
        failures == 0,
        "{failures} of {} cases differ from bbpPairings:\n{report}",
        names.len()
    );
}
