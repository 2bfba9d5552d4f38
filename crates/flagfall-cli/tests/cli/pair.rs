//! Integration tests for `flagfall pair`.

use crate::{flagfall, repo_root, run_with_stdin};

fn case(name: &str, ext: &str) -> std::path::PathBuf {
    repo_root().join(format!(
        "crates/flagfall-pairing/tests/data/dutch/{name}.{ext}"
    ))
}

#[test]
fn pairs_conformance_cases_like_bbppairings() {
    // A small case, a case with a PAB, and the largest (200 players) case.
    for name in ["case001", "case080", "case056"] {
        let out = flagfall()
            .args(["pair", "--system", "dutch"])
            .arg(case(name, "trf"))
            .output()
            .expect("run flagfall");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expected = std::fs::read_to_string(case(name, "pairs")).expect("expected pairs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{name}");
    }
}

#[test]
fn reads_the_trf_from_stdin() {
    let trf = std::fs::read_to_string(case("case080", "trf")).expect("case");
    let out = run_with_stdin(&["pair", "-"], &trf);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = std::fs::read_to_string(case("case080", "pairs")).expect("expected pairs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}

#[test]
fn bad_trf_exits_1_naming_line_and_column() {
    let trf = "012 Broken\nXXR 5\n001    1      A Player                          2000                             1.0    1     2 w x\n";
    let out = run_with_stdin(&["pair", "--system", "dutch", "-"], trf);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3, column 99"), "{err}");
    assert!(err.contains("unknown result code 'x'"), "{err}");
}

#[test]
fn missing_round_count_is_reported() {
    let trf = std::fs::read_to_string(case("case001", "trf")).expect("case");
    let without: String = trf
        .lines()
        .filter(|l| !l.starts_with("XXR"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = run_with_stdin(&["pair", "-"], &without);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("number of rounds"), "{err}");
}

#[test]
fn missing_file_is_reported() {
    let out = flagfall()
        .args(["pair", "/nonexistent/flagfall.trf"])
        .output()
        .expect("run flagfall");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/flagfall.trf"));
}
