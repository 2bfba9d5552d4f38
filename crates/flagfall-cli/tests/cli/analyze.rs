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
    // K+B v K+P: a helpmate exists (docs/rules.md §3.5, fide-b3 A.5.3).
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
fn json_output_writes_the_colour_in_full_whatever_the_input_form() {
    let (stdout, err, code) = run(&[
        "analyze",
        "--fen",
        "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -",
        "--winner",
        "B",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(v["winner"], "black");
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
    assert_eq!(code, Some(2), "a usage error");
    assert!(
        stderr.contains("'green'") && stderr.contains("white") && stderr.contains("black"),
        "{stderr}"
    );
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

/// A directory holding one table file with a table's name and size but broken contents.
fn broken_tables(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("flagfall-cli-tb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    std::fs::write(dir.join("KRvKR.rtbw"), [0u8; 80]).expect("table file");
    dir
}

const ROOK_EACH: &str = "4k3/8/8/8/8/8/r7/4K2R w - - 0 1";

#[test]
fn draw_claim_recommendation_without_tables() {
    let (out, err, code) = run(&[
        "analyze",
        "--fen",
        ROOK_EACH,
        "--draw-claim",
        "draw-position",
        "--claimant",
        "white",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let fields: Vec<&str> = out.trim_end().split('\t').collect();
    assert_eq!(fields[0], "grant", "{out}");
    assert_eq!(fields[1], "blitz-2006 8e", "{out}");
    assert!(
        fields[2].contains("no forced mate for Black within 7 plies"),
        "{out}"
    );
}

#[test]
fn draw_claim_reports_an_unreadable_table_and_still_recommends() {
    let dir = broken_tables("claim");
    let dir = dir.to_str().expect("utf-8 path");
    let (out, err, code) = run(&[
        "analyze",
        "--fen",
        ROOK_EACH,
        "--draw-claim",
        "ilc",
        "--claimant",
        "white",
        "--tablebases",
        dir,
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["grant"], true, "{out}");
    assert_eq!(v["claim"], "ilc");
    // The ILC claim is cited by the club's own rule, the shape it rests on is named apart.
    assert_eq!(v["rule"], "club-ilc 4.3", "{out}");
    assert_eq!(v["ground"], "identical_pieces", "{out}");
    let reasons = v["reasons"].as_array().expect("reasons");
    assert!(
        reasons.iter().any(|r| r
            .as_str()
            .is_some_and(|r| r.contains("the tablebase could not be read") && r.contains("KRvKR"))),
        "{out}"
    );
}

#[test]
fn tablebases_directory_errors_are_clear() {
    let missing = std::env::temp_dir().join("flagfall-cli-no-such-tables");
    let (_, err, code) = run(&[
        "analyze",
        "--fen",
        ROOK_EACH,
        "--draw-claim",
        "ilc",
        "--claimant",
        "white",
        "--tablebases",
        missing.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("--tablebases") && err.contains("flagfall-cli-no-such-tables"),
        "{err}"
    );
    let (_, err, code) = run(&[
        "analyze",
        "--fen",
        ROOK_EACH,
        "--draw-claim",
        "maybe",
        "--claimant",
        "white",
    ]);
    assert_eq!(code, Some(2), "a usage error");
    assert!(
        err.contains("'maybe'") && err.contains("ilc") && err.contains("draw-position"),
        "{err}"
    );
    let (_, err, code) = run(&["analyze", "--fen", ROOK_EACH]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--winner"), "{err}");
}

#[test]
fn replay_consults_the_tables_for_the_director() {
    let dir = broken_tables("replay");
    let script = format!(
        "{}\n{}\n",
        r#"{"rules":"blitz-2006","time_control":"G/5;d0","fen":"4k3/8/8/8/8/8/r7/4K2R w - - 0 1","director":false}"#,
        r#"{"at":1000,"by":"white","claim":"draw_position"}"#
    );
    let out = crate::run_with_stdin(
        &[
            "replay",
            "-",
            "--tablebases",
            dir.to_str().expect("utf-8 path"),
        ],
        &script,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["result"], "1/2-1/2");
    let advice = v["rulings"]
        .as_array()
        .expect("rulings")
        .iter()
        .find(|r| r["kind"] == "recommendation")
        .expect("a recommendation");
    assert!(
        advice["ruling"]
            .as_str()
            .is_some_and(|t| t.contains("the tablebase could not be read")),
        "{advice}"
    );
}
