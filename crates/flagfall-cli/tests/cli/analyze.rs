//! Integration tests for `flagfall analyze`.

use crate::{flagfall, run_with_stdin};

fn run(args: &[&str]) -> (String, String, Option<i32>) {
    let out = flagfall().args(args).output().expect("run flagfall");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn single_query_winnable_with_witness() {
    // K+B v K+P: a helpmate exists (RULES.md section 3, fide-b3 A.5.3).
    let (stdout, _, code) = run(&[
        "analyze",
        "--fen",
        "7k/7p/8/8/8/8/8/KB6 w - - 0 1",
        "--winner",
        "white",
    ]);
    assert_eq!(code, Some(0));
    let (verdict, moves) = stdout.trim_end().split_once('\t').expect("tab");
    assert_eq!(verdict, "winnable");
    assert!(!moves.is_empty());
}

#[test]
fn single_query_unwinnable_bare_king() {
    let (stdout, _, code) = run(&[
        "analyze",
        "--fen",
        "7k/8/8/8/8/8/8/KQ6 w - - 0 1",
        "--winner",
        "black",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.trim_end(), "unwinnable\tbare_king");
}

#[test]
fn json_output_has_verdict_and_reason() {
    let (stdout, _, code) = run(&[
        "analyze",
        "--fen",
        "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -",
        "--winner",
        "white",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(v["winner"], "white");
    assert_eq!(v["result"]["verdict"], "unwinnable");
    assert_eq!(v["result"]["reason"], "locked_pawns");
}

#[test]
fn bad_fen_is_a_clear_error() {
    let (_, stderr, code) = run(&["analyze", "--fen", "not a fen", "--winner", "white"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("--fen") && stderr.contains("invalid FEN"),
        "{stderr}"
    );
    let (_, stderr, code) = run(&[
        "analyze",
        "--fen",
        "7k/8/8/8/8/8/8/K7 w - - 0 1",
        "--winner",
        "green",
    ]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("green"), "{stderr}");
}

#[test]
fn batch_keeps_order_and_reports_bad_lines() {
    let input = "7k/8/8/8/8/8/8/KQ6 w - - 0 1\tblack\n\
                 # a comment\n\
                 7k/8/8/8/8/8/8/KQ6 w - - 0 1\twhite\n\
                 garbage line without tab\n\
                 8/8/8/8/8/8/8/8 w - - 0 1\twhite\n\
                 7k/8/8/8/8/8/8/KQ6 w - - 0 1\tpurple\n\
                 2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -\tblack\n";
    let out = run_with_stdin(&["analyze", "--batch", "-"], input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    assert_eq!(lines[0], "unwinnable\tbare_king");
    assert!(lines[1].starts_with("winnable\t"), "{}", lines[1]);
    assert!(lines[2].starts_with("error\tline 4:"), "{}", lines[2]);
    // An empty board has no kings: not a playable position, but White has nothing that
    // could give check, so it is still decided.
    assert_eq!(lines[3], "unwinnable\tbare_king");
    assert!(
        lines[4].starts_with("error\tline 6:") && lines[4].contains("purple"),
        "{}",
        lines[4]
    );
    assert_eq!(lines[5], "unwinnable\tlocked_pawns");
    assert!(
        stderr.contains("line 4") && stderr.contains("line 6"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn batch_from_missing_file_fails_cleanly() {
    let (_, stderr, code) = run(&["analyze", "--batch", "/nonexistent/queries.tsv"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("cannot open"), "{stderr}");
}
