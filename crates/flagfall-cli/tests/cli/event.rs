//! Integration tests for `flagfall event`: a whole 12-player Double Swiss of 6 rounds run
//! through the real binary, with results typed in, a correction, exports and standings
//! checked against values worked out by hand (below), plus the error paths.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{flagfall, run_with_stdin};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagfall-event-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn ok(args: &[&str]) -> String {
    ok_stdin(args, "")
}

fn ok_stdin(args: &[&str], stdin: &str) -> String {
    let out = run_with_stdin(args, stdin);
    assert!(
        out.status.success(),
        "flagfall {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs and expects exit code 1; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = flagfall().args(args).output().expect("run flagfall");
    assert_eq!(out.status.code(), Some(1), "flagfall {args:?} should fail");
    String::from_utf8(out.stderr).expect("utf-8")
}

/// Runs and expects exit code 2 (a usage error); returns stderr.
fn usage_error(args: &[&str]) -> String {
    let out = flagfall().args(args).output().expect("run flagfall");
    assert_eq!(
        out.status.code(),
        Some(2),
        "flagfall {args:?}: a usage error"
    );
    String::from_utf8(out.stderr).expect("utf-8")
}

fn boards(file: &Path, round: usize) -> Vec<(u64, u64)> {
    let json: Value = serde_json::from_str(&ok(&[
        "event",
        "export",
        file.to_str().unwrap(),
        "--as",
        "json",
    ]))
    .unwrap();
    json["round_list"][round - 1]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["white"].as_u64().unwrap(), b["black"].as_u64().unwrap()))
        .collect()
}

/// Results where the lower pairing number wins both games of every match.
fn lower_number_wins(boards: &[(u64, u64)]) -> String {
    boards
        .iter()
        .enumerate()
        .map(|(i, &(w, b))| {
            // Game 1: w has White; game 2: b has White.
            if w < b {
                format!("{} 1-0 0-1\n", i + 1)
            } else {
                format!("{} 0-1 1-0\n", i + 1)
            }
        })
        .collect()
}

/// The 12 players, in a shuffled order: pairing numbers follow rating (2400 down to 1850
/// in steps of 50), so "P01" (2400) is number 1 and "P12" (1850) number 12.
const PLAYERS_CSV: &str = "name,rating,federation\n\
P05,2200,USA\nP01,2400,USA\n\"P12\",1850,\nP03,2300,CAN\nP02,2350,USA\nP04,2250,\n\
P06,2150,\nP07,2100,\nP08,2050,\nP09,2000,\nP10,1950,\nP11,1900,\n";

/// Hand derivation of the pairings (C.04.5 as implemented; see double_swiss.rs): scores in
/// match points, "colours" are game-1 colours, HRP = higher score then lower number.
///
/// R1: all on 0, top half v bottom half: 1-7 2-8 3-9 4-10 5-11 6-12. Nobody has played,
///     so the HRP takes the lot's White when his number is odd: (1,7) (8,2) (3,9) (10,4)
///     (5,11) (12,6). Lower numbers win 2-0: 1..6 on 2, 7..12 on 0.
/// R2: {1..6}: 1-4 2-5 3-6; {7..12}: 7-10 8-11 9-12. Fewer game-1 whites gets White:
///     (4,1) (2,5) (6,3) (7,10) (11,8) (9,12). Scores: 1,2,3 on 4; 4..9 on 2; 10,11,12 on 0.
/// R3: {1,2,3} is odd, so 4 floats up: bracket 1,2,3,4 → 1-3; then {2} takes 4 → 2-4.
///     {5,6,7,8,9} takes 10 up: 5,6,7,8,9,10 → 5-8; {6,7,9} takes 10: 6-9; {7} takes 10
///     but met 10, so 11 → 7-11; 10-12. Equal histories: the HRP alternates from his last
///     colour: (1,3) (4,2) (5,8) (9,6) (11,7) (10,12).
///     Scores: 1,2: 6; 3,5,6,7: 4; 4,8,9,10: 2; 11,12: 0.
/// R4: 1-2; {3,5,6,7}: 3-6 met, so 3-7, 5-6; {4,8,9,10}: 4-9 both had White twice
///     (kept apart), 4-10 met, so 4-8, 9-10; 11-12. Colours: (2,1) fewer whites; (3,7) 3
///     had Black twice; (6,5); (8,4), (10,9), (12,11) the HRP had White twice.
///     Scores: 1: 8; 2,3,5: 6; 4,6,7,9: 4; 8,10,11: 2; 12: 0.
/// R5: {1} is alone and takes 2 up, but met 2; then the lower players in order: 3 met,
///     5 free → 1-5; 2-3; {4,6,7,9}: 4-7, then 6-9 met, 6-8 leaves 10-12
///     (met) so 6-10, 9-11, 8-12. Colours: (1,5) (3,2) (7,4) (6,10) (9,11) (12,8).
///     Scores: 1: 10; 2: 8; 3,4,5,6,9: 6; 7,8: 4; 10,11: 2; 12: 0.
/// R6 (last round: colour criteria relaxed): 1-6 (2,3,4,5 met), 2-9 (3,4,5 met), 3-5,
///     4-11 (7,8,10 met), 7-8 would leave 10-12 (met) so 7-12, 8-10.
///     Colours: (1,6) (2,9) (5,3) (4,11) (7,12) (8,10).
const EXPECTED: [[(u64, u64); 6]; 6] = [
    [(1, 7), (8, 2), (3, 9), (10, 4), (5, 11), (12, 6)],
    [(4, 1), (2, 5), (6, 3), (7, 10), (11, 8), (9, 12)],
    [(1, 3), (4, 2), (5, 8), (9, 6), (11, 7), (10, 12)],
    [(2, 1), (3, 7), (6, 5), (8, 4), (10, 9), (12, 11)],
    [(1, 5), (3, 2), (7, 4), (6, 10), (9, 11), (12, 8)],
    [(1, 6), (2, 9), (5, 3), (4, 11), (7, 12), (8, 10)],
];

#[test]
fn twelve_player_double_swiss_run_to_the_end() {
    let dir = temp_dir("ds12");
    let file = dir.join("blitz.json");
    let f = file.to_str().unwrap();
    let out = ok(&[
        "event",
        "new",
        f,
        "--name",
        "Friday Blitz",
        "--format",
        "double-swiss",
        "--rounds",
        "6",
        "--time-control",
        "G/5;d0",
        "--paper",
        "--date",
        "2026-11-20",
        "--site",
        "Club",
    ]);
    assert!(out.contains("US Chess blitz-ratable yes"), "{out}");
    let csv = dir.join("players.csv");
    std::fs::write(&csv, PLAYERS_CSV).unwrap();
    let out = ok(&["event", "add-player", f, "--csv", csv.to_str().unwrap()]);
    assert!(out.contains("12 in the event"), "{out}");
    ok(&["event", "tiebreaks", f, "BH,BH-C1,SB"]);

    for round in 1..=6usize {
        let printed = ok(&["event", "pair", f]);
        assert!(
            printed.starts_with(&format!("Round {round} of 6")),
            "{printed}"
        );
        let b = boards(&file, round);
        assert_eq!(b, EXPECTED[round - 1].to_vec(), "round {round}");
        let results = if round < 6 {
            lower_number_wins(&b)
        } else {
            // Board 4 typed wrongly at first (4 winning both), corrected below.
            "1 1-0 1-0\n2 1-0 0-1\n3 1/2 1-0  # 3 wins 1.5-0.5\n4 1-0 0-1\n5 1-0 0-1\n6 1/2 1/2\n"
                .to_string()
        };
        let out = ok_stdin(&["event", "results", f, &round.to_string()], &results);
        assert!(out.contains("6 board(s) entered"), "{out}");
        assert!(!out.contains("still missing"), "{out}");
    }
    // The event is over.
    let err = fails(&["event", "pair", f]);
    assert!(err.contains("all 6 rounds have been paired"), "{err}");

    // With the wrong board-4 result, 4 would be on 8 points.
    let st = ok(&["event", "standings", f, "--as", "csv"]);
    assert!(st.lines().any(|l| l.starts_with("3,4,P04,2250,8")), "{st}");
    // Correction: 11 won both games (game 2 had 11 as White).
    ok(&["event", "result", f, "6", "4", "0-1", "1-0"]);

    // Final scores (match points), from the results above:
    //  1: 2+2+2+2+2+1 = 11     2: 2+2+2+0+2+2 = 10    3: 2+2+0+2+0+1.5 = 7.5
    //  4: 2+0+0+2+2+0 = 6      5: 2+0+2+2+0+0.5 = 6.5 6: 2+0+2+0+2+1 = 7
    //  7: 0+2+2+0+0+2 = 6      8: 0+2+0+0+2+1 = 5     9: 0+2+0+2+2+0 = 6
    // 10: 0+0+2+0+0+1 = 3     11: 0+0+0+2+0+2 = 4    12: 0
    // Buchholz = sum of the opponents' scores (one term per match, C.07 4.4):
    //  1: 7,4,3,2,5,6 → 6+6+7.5+10+6.5+7 = 43, cut-1 (drop 6) 37
    //  2: 8,5,4,1,3,9 → 5+6.5+6+11+7.5+6 = 42, cut-1 37
    //  3: 9,6,1,7,2,5 → 6+7+11+6+10+6.5 = 46.5, cut-1 40.5
    //  4: 10,1,2,8,7,11 → 3+11+10+5+6+4 = 39, cut-1 36
    //  5: 11,2,8,6,1,3 → 4+10+5+7+11+7.5 = 44.5, cut-1 40.5
    //  6: 12,3,9,5,10,1 → 0+7.5+6+6.5+3+11 = 34, cut-1 34
    //  7: 1,10,11,3,4,12 → 11+3+4+7.5+6+0 = 31.5, cut-1 31.5
    //  8: 2,11,5,4,12,10 → 10+4+6.5+6+0+3 = 29.5, cut-1 29.5
    //  9: 3,12,6,10,11,2 → 7.5+0+7+3+4+10 = 31.5, cut-1 31.5
    // 10: 4,7,12,9,6,8 → 6+6+0+6+7+5 = 30, cut-1 30
    // 11: 5,8,7,12,9,4 → 6.5+5+6+0+6+6 = 29.5, cut-1 29.5
    // 12: 6,9,10,11,8,7 → 7+6+3+4+5+6 = 31, cut-1 28
    // (Check: the Buchholz total is 6 × 72 = 432.)
    // Sonneborn-Berger = sum of opponent's score × match points scored against him:
    //  7: 3×2 (10) + 4×2 (11) + 0×2 (12) = 14;  9: 3×2 (10) + 4×2 (11) + 0×2 (12) = 14;
    //  4: 3×2 (10) + 5×2 (8) + 6×2 (7) = 28.
    // Ranking: 1 (11), 2 (10), 3 (7.5), 6 (7), 5 (6.5); on 6 points 4 (BH 39) ahead of 7
    // and 9, who are equal on BH, BH-C1 and SB and so share 7th place; 8 (5), 11 (4),
    // 10 (3), 12 (0).
    let st = ok(&["event", "standings", f, "--as", "csv"]);
    let expected = "\
rank,number,name,rating,points,BH,BH-C1,SB
1,1,P01,2400,11,43,37,
2,2,P02,2350,10,42,37,
3,3,P03,2300,7.5,46.5,40.5,
4,6,P06,2150,7,34,34,
5,5,P05,2200,6.5,44.5,40.5,
6,4,P04,2250,6,39,36,28
7,7,P07,2100,6,31.5,31.5,14
7,9,P09,2000,6,31.5,31.5,14
9,8,P08,2050,5,29.5,29.5,
10,11,P11,1900,4,29.5,29.5,
11,10,P10,1950,3,30,30,
12,12,P12,1850,0,31,28,
";
    let got: Vec<String> = st
        .lines()
        .map(|l| {
            // SB is printed for everyone; compare it only where it was worked out above.
            let mut f: Vec<&str> = l.split(',').collect();
            if !["4", "7", "9", "number"].contains(&f[1]) {
                f[7] = "";
            }
            f.join(",")
        })
        .collect();
    let want: Vec<&str> = expected.lines().collect();
    assert_eq!(got, want, "\n{st}");

    // Exports.
    let pgn = ok(&["event", "export", f, "--as", "pgn"]);
    assert_eq!(
        pgn.matches("[Event \"Friday Blitz\"]").count(),
        72,
        "36 matches of 2 games"
    );
    // Round 6 board 4 game 2: 11 (White) beat 4; paper mode: headers and the result only.
    let game = "[Round \"6.4.2\"]\n[White \"P11\"]\n[Black \"P04\"]\n[Result \"1-0\"]\n[Board \"4\"]\n\
[WhiteElo \"1900\"]\n[BlackElo \"2250\"]\n[TimeControl \"300\"]\n[FlagfallTimeControl \"G/5;d0\"]\n\n1-0\n";
    assert!(pgn.contains(game), "{pgn}");
    assert!(pgn.contains("[Date \"2026.11.20\"]"));

    let trf = ok(&["event", "export", f, "--as", "trf"]);
    let p1 = trf
        .lines()
        .find(|l| l.starts_with("001    1"))
        .expect("player 1 line");
    // 12 columns (two per match); 11.0 points, rank 1; round 1 game 1: 7, White, won.
    assert!(p1.contains("11.0    1     7 w 1     7 b 1"), "{p1}");
    assert!(trf.contains("142 12"), "{trf}");

    let ct = ok(&["event", "export", f, "--as", "crosstable"]);
    let row = ct
        .lines()
        .find(|l| l.trim_start().starts_with("11  P11"))
        .expect("row of 11");
    assert!(
        row.contains("4b11") && row.trim_end().ends_with('4'),
        "{row}"
    );

    // Rating changes: every game was played (12 each); the top seed who scored 11 of 12
    // gains in both systems, P12 with 0 of 12 loses, and the US changes of players who
    // met the same opponents balance out near zero (standard formula, equal K for most).
    let ratings: Value = serde_json::from_str(&ok(&["event", "ratings", f, "--json"])).unwrap();
    let rows = ratings.as_array().expect("an array");
    assert_eq!(rows.len(), 12);
    for r in rows {
        assert_eq!(r["games"], 12, "{r}");
        assert_eq!(r["us_formula"], "standard", "{r}");
    }
    let change = |n: u64| {
        rows.iter().find(|r| r["number"] == n).unwrap()["us_change"]
            .as_f64()
            .unwrap()
    };
    let glicko = |n: u64| {
        let r = rows.iter().find(|r| r["number"] == n).unwrap();
        r["glicko2_after"]["rating"].as_f64().unwrap()
            - r["glicko2_before"]["rating"].as_f64().unwrap()
    };
    assert!(change(1) > 0.0 && glicko(1) > 0.0, "{ratings}");
    assert!(change(12) < 0.0 && glicko(12) < 0.0, "{ratings}");
    let table = ok(&["event", "ratings", f]);
    assert!(
        table.starts_with(" No  Name") && table.contains("P12"),
        "{table}"
    );

    // Atomic writes leave no temporary files behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn round_robin_late_entries_byes_withdrawals_and_overrides() {
    let dir = temp_dir("misc");
    let rr = dir.join("rr.json");
    let r = rr.to_str().unwrap();
    ok(&["event", "new", r, "--name", "RR", "--format", "rr"]);
    for (name, rating) in [
        ("A", "2000"),
        ("B", "1900"),
        ("C", "1800"),
        ("D", "1700"),
        ("E", "1600"),
    ] {
        ok(&["event", "add-player", r, "--name", name, "--rating", rating]);
    }
    // Five players: the Berger table for six, whoever meets 6 sits out (C.05 Annex 1).
    let out = ok(&["event", "pair", r]);
    assert!(out.contains("Round 1 of 5"), "{out}");
    assert!(out.contains("1 A: not paired"), "{out}");
    let err = fails(&["event", "add-player", r, "--name", "Late"]);
    assert!(err.contains("cannot take late entries"), "{err}");
    let err = fails(&["event", "pair", r]);
    assert!(
        err.contains("round 1 still has results missing on board(s) 1, 2"),
        "{err}"
    );

    // A Swiss by the FIDE Dutch engine: round 1 top half v bottom half, colours
    // alternating from the lot (White for the top seed): 1-3, 4-2.
    let du = dir.join("dutch.json");
    let d = du.to_str().unwrap();
    ok(&[
        "event", "new", d, "--name", "Dutch", "--format", "swiss", "--rounds", "3",
    ]);
    for (name, rating) in [("A", "2000"), ("B", "1900"), ("C", "1800"), ("D", "1700")] {
        ok(&["event", "add-player", d, "--name", name, "--rating", rating]);
    }
    let out = ok(&["event", "pair", d]);
    assert!(out.contains("  1.   1 A (0) -   3 C (0)"), "{out}");
    assert!(out.contains("  2.   4 D (0) -   2 B (0)"), "{out}");

    let sw = dir.join("us.json");
    let s = sw.to_str().unwrap();
    ok(&[
        "event",
        "new",
        s,
        "--name",
        "US",
        "--format",
        "us-swiss",
        "--rounds",
        "3",
        "--time-control",
        "G/3;d0",
    ]);
    for (name, rating) in [
        ("A", "2000"),
        ("B", "1900"),
        ("C", "1800"),
        ("D", "1700"),
        ("E", "1600"),
    ] {
        ok(&["event", "add-player", s, "--name", name, "--rating", rating]);
    }
    ok(&["event", "bye", s, "2", "--round", "1", "--kind", "half"]);
    let out = ok(&["event", "pair", s]);
    // Four to pair (2 has a half-point bye): top half 1, 3 against bottom half 4, 5.
    assert!(out.contains("2 B: half-point bye"), "{out}");
    assert!(out.contains("1 A (0) -   4 D (0)"), "{out}");
    // Director's override: 1-5 and 4-3 instead.
    let out = ok(&[
        "event", "override", s, "--round", "1", "--board", "1-5", "--board", "4-3", "--bye",
        "2:half",
    ]);
    assert!(out.contains("(changed by the director)"), "{out}");
    let err = fails(&[
        "event", "override", s, "--round", "1", "--board", "1-4", "--bye", "2:half",
    ]);
    assert!(
        err.contains("player 3 (C) has neither a board nor a bye"),
        "{err}"
    );
    // 1 beats 5; 4-3 is a double forfeit (so 3 and 4 may meet again).
    ok_stdin(&["event", "results", s, "1"], "1 1-0\n2 --\n");
    // Late entry joins from round 2; 5 withdraws from round 2.
    let out = ok(&["event", "add-player", s, "--name", "F", "--rating", "1500"]);
    assert!(out.contains("late entry joins from round 2"), "{out}");
    ok(&["event", "withdraw", s, "5"]);
    let out = ok(&["event", "pair", s]);
    assert!(out.contains("5 E: not paired"), "{out}");
    // Present: 1, 2, 3, 4 and the late 6: odd. US 28L: the bye goes to the lowest-rated
    // player of the lowest score group (0 points: 3, 4, 6), i.e. 6 (1500).
    assert!(out.contains("6 F: pairing-allocated bye"), "{out}");
    let st = ok(&["event", "standings", s]);
    assert!(st.contains("after round 1"), "{st}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_documents_the_syntax() {
    let help = ok(&["event", "--help"]);
    for needle in [
        "add-player",
        "results",
        "override",
        "Results: 1-0",
        "round-robin-matches",
        "double-swiss",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    let help = ok(&["event", "result", "--help"]);
    assert!(help.contains("One result per game"), "{help}");
}

#[test]
fn bad_input_gets_clear_errors() {
    let dir = temp_dir("errors");
    let file = dir.join("e.json");
    let f = file.to_str().unwrap();
    let err = usage_error(&[
        "event", "new", f, "--name", "X", "--format", "knockout", "--rounds", "3",
    ]);
    assert!(
        err.contains("'knockout'") && err.contains("double-swiss") && err.contains("us-swiss"),
        "{err}"
    );
    let err = usage_error(&[
        "event",
        "new",
        f,
        "--name",
        "X",
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--initial-colour",
        "green",
    ]);
    assert!(err.contains("'green'") && err.contains("black"), "{err}");
    let err = fails(&["event", "new", f, "--name", "X", "--format", "swiss"]);
    assert!(err.contains("needs its number of rounds"), "{err}");
    let err = fails(&[
        "event",
        "new",
        f,
        "--name",
        "X",
        "--format",
        "swiss",
        "--rounds",
        "5",
        "--time-control",
        "G/five",
    ]);
    assert!(err.contains("G/five"), "{err}");
    let err = fails(&[
        "event",
        "new",
        f,
        "--name",
        "X",
        "--format",
        "swiss",
        "--rounds",
        "5",
        "--ruleset",
        "uscf-2020",
        "--time-control",
        "G/15;d0",
    ]);
    assert!(
        err.contains("time control not allowed under uscf-2020 (uscf-2020 intro)"),
        "{err}"
    );
    assert!(!file.exists(), "nothing written after a refused command");
    ok(&[
        "event",
        "new",
        f,
        "--name",
        "X",
        "--format",
        "double-swiss",
        "--rounds",
        "3",
    ]);
    let err = fails(&[
        "event", "new", f, "--name", "X", "--format", "swiss", "--rounds", "3",
    ]);
    assert!(err.contains("already exists"), "{err}");
    let csv = dir.join("p.csv");
    std::fs::write(&csv, "name,rating\nAnn,1800\nBob,18OO\n").unwrap();
    let err = fails(&["event", "add-player", f, "--csv", csv.to_str().unwrap()]);
    assert!(
        err.contains("line 3: rating \"18OO\" is not a whole number"),
        "{err}"
    );
    // Nothing was added by the failed import.
    let err = fails(&["event", "pair", f]);
    assert!(err.contains("0 player(s) to pair"), "{err}");
    ok(&["event", "add-player", f, "--name", "Ann"]);
    ok(&["event", "add-player", f, "--name", "Bob"]);
    ok(&["event", "pair", f]);
    let err = fails(&["event", "result", f, "1", "1", "1-0"]);
    assert!(err.contains("2 result(s) needed"), "{err}");
    let err = usage_error(&["event", "result", f, "1", "1", "1-0", "2-0"]);
    assert!(err.contains("'2-0'") && err.contains("1/2"), "{err}");
    // Every enumerated argument is checked by the command line (exit 2).
    let err = usage_error(&["event", "bye", f, "1", "--round", "2", "--kind", "lots"]);
    assert!(err.contains("'lots'") && err.contains("half"), "{err}");
    let err = usage_error(&["event", "override", f, "--round", "1", "--board", "1x2"]);
    assert!(err.contains("is not WHITE-BLACK"), "{err}");
    let err = usage_error(&[
        "event", "override", f, "--round", "1", "--board", "1-2", "--bye", "3:lots",
    ]);
    assert!(err.contains("pab, full, half, zero or absent"), "{err}");
    let err = usage_error(&[
        "event",
        "new",
        "other.json",
        "--name",
        "X",
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--ruleset",
        "fide-b9",
    ]);
    assert!(
        err.contains("'fide-b9'") && err.contains("uscf-2020"),
        "{err}"
    );
    let err = usage_error(&["event", "export", f, "--as", "xls"]);
    assert!(err.contains("'xls'"), "{err}");
    let err = fails(&["event", "result", f, "1", "7", "1-0", "0-1"]);
    assert!(err.contains("round 1 has no board 7"), "{err}");
    let out = run_with_stdin(&["event", "results", f, "1"], "1 1-0 0-1\nx 1-0 0-1\n");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("stdin line 2: board \"x\" is not a number"),
        "{err}"
    );
    let out = run_with_stdin(&["event", "results", f, "1"], "1 1-0\n");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("stdin line 1") && err.contains("2 result(s) needed"),
        "{err}"
    );
    let out = run_with_stdin(&["event", "results", f, "9"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("round 9 has not been paired"));
    let err = fails(&["event", "show", f, "--round", "0"]);
    assert!(err.contains("round 0 has not been paired"), "{err}");
    let err = fails(&["event", "tiebreaks", f, "BH,NOPE"]);
    assert!(err.contains("NOPE"), "{err}");
    // A damaged file is reported with its line and column, and left alone.
    std::fs::write(&file, "{\n  \"version\": 1,\n  \"name\": 5\n}\n").unwrap();
    let err = fails(&["event", "show", f]);
    assert!(err.contains("line 3 column"), "{err}");
    let err = fails(&["event", "show", dir.join("missing.json").to_str().unwrap()]);
    assert!(err.contains("cannot read event file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pab_points_from_the_command_line() {
    let dir = temp_dir("pab");
    let file = dir.join("ds.json");
    let f = file.to_str().unwrap();
    ok(&[
        "event",
        "new",
        f,
        "--name",
        "DS",
        "--format",
        "double-swiss",
        "--rounds",
        "3",
        "--pab-points",
        "1.5",
    ]);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["pab_half_points"], 3);
    let err = fails(&[
        "event",
        "new",
        f,
        "--name",
        "DS",
        "--format",
        "double-swiss",
        "--rounds",
        "3",
        "--pab-points",
        "2.5",
        "--force",
    ]);
    assert!(
        err.contains("pairing-allocated bye points \"2.5\""),
        "{err}"
    );
    // The refused command left the earlier file as it was.
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(again, saved);
}

#[test]
fn a_strong_late_entrant_takes_pairing_number_one() {
    let dir = temp_dir("late");
    let file = dir.join("e.json");
    let f = file.to_str().unwrap();
    ok(&[
        "event", "new", f, "--name", "Late", "--format", "swiss", "--rounds", "3",
    ]);
    for (name, rating) in [("A", "2000"), ("B", "1900"), ("C", "1800"), ("D", "1700")] {
        ok(&["event", "add-player", f, "--name", name, "--rating", rating]);
    }
    let out = ok(&["event", "pair", f]);
    assert!(out.contains("1 A (0) -   3 C (0)"), "{out}");
    ok_stdin(&["event", "results", f, "1"], "1 1-0\n2 0-1\n");
    // FIDE C.04.2: the late entrant takes the number its rating gives it.
    let out = ok(&["event", "add-player", f, "--name", "Z", "--rating", "2400"]);
    assert!(out.contains("Z: pairing number 1"), "{out}");
    // Round 1 as played, in the new numbers (A is now 2, C 4).
    let out = ok(&["event", "show", f, "--round", "1"]);
    assert!(out.contains("2 A (0) -   4 C (0)"), "{out}");
    let trf = ok(&["event", "export", f, "--as", "trf"]);
    let z = trf.lines().find(|l| l.starts_with("001    1")).unwrap();
    assert!(z.contains('Z'), "{z}");
    // Round 2: Z (0 points) ranks first of its group; D, now the lowest, has the bye
    // (with Z numbered 5, Z had it).
    let out = ok(&["event", "pair", f]);
    assert!(out.contains("4 C (0) -   1 Z (0)"), "{out}");
    assert!(out.contains("5 D: pairing-allocated bye"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An evening with check-in, a forbidden pair, a pause, a correction with its log, ratings
/// from a FIDE list and the US Chess report, through the real binary.
#[test]
fn an_evening_with_check_in_forbidden_pairs_corrections_and_reports() {
    let dir = temp_dir("evening");
    let file = dir.join("club.json");
    let f = file.to_str().unwrap();
    ok(&[
        "event",
        "new",
        f,
        "--name",
        "Club Evening",
        "--format",
        "swiss",
        "--rounds",
        "4",
        "--time-control",
        "G/5;d0",
        "--date",
        "2026-11-20",
        "--check-in",
    ]);
    let csv = "name,rating,uscf_id\nAnn Lee,2100,12345678\nBob Ray,2000,\nCy Young,1900,\nDee Fox,1800,\nEd Ng,1700,\nFay Poe,1600,\n";
    ok_stdin(&["event", "add-player", f, "--csv", "-"], csv);
    // Nobody checked in yet: nothing to pair.
    assert!(fails(&["event", "pair", f]).contains("at least 2 are needed"));
    let out = ok(&["event", "check-in", f, "1", "2", "3", "4", "5"]);
    assert!(out.contains("5 of 6 players checked in"), "{out}");
    // Round 1 would be 1-4, 2-5, 3-6: forbid 1-4.
    ok(&["event", "forbid", f, "1", "4", "--note", "siblings"]);
    assert!(fails(&["event", "forbid", f, "4", "1"]).contains("already a forbidden pair"));
    ok(&["event", "pair", f]);
    let r1 = boards(&file, 1);
    assert!(!r1.contains(&(1, 4)) && !r1.contains(&(4, 1)), "{r1:?}");
    assert!(
        r1.iter().all(|&(w, b)| w != 6 && b != 6),
        "6 is not checked in"
    );
    for (board, _) in r1.iter().enumerate() {
        ok(&["event", "result", f, "1", &(board + 1).to_string(), "1-0"]);
    }
    ok(&["event", "check-in", f, "6"]);
    ok(&["event", "pause", f, "5"]);
    ok(&["event", "pair", f, "--by", "deputy"]);
    let r2 = boards(&file, 2);
    assert!(r2.iter().all(|&(w, b)| w != 5 && b != 5), "5 is paused");
    // A correction of round 1 while round 2 is untouched: round 2 follows it.
    // (`--by` before the results, which take values starting with a hyphen.)
    let out = run_with_stdin(
        &["event", "--by", "arbiter", "result", f, "1", "1", "0-1"],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = ok(&["event", "log", f]);
    let last = log.lines().last().unwrap();
    assert!(
        last.contains("by arbiter") && last.contains("\"results\":[\"white-wins\"]"),
        "{last}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("by deputy") && l.contains("pair-next")),
        "{log}"
    );
    let json_log = ok(&["event", "log", f, "--json"]);
    for line in json_log.lines() {
        let _: Value = serde_json::from_str(line).expect("each log line is JSON");
    }
    // The director's override warns about the forbidden pair.
    let round2: Vec<String> = r2.iter().map(|_| String::new()).collect();
    assert!(!round2.is_empty());
    let out = run_with_stdin(
        &[
            "event", "override", f, "--round", "2", "--board", "1-4", "--board", "2-3", "--board",
            "6-5",
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: players 1 and 4 are a forbidden pair"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: player 5 is withdrawn, paused"),
        "{stderr}"
    );

    // Ratings from a FIDE list: a file that is not one changes nothing.
    let before = std::fs::read(&file).unwrap();
    let not_a_list = dir.join("players.csv");
    std::fs::write(&not_a_list, csv).unwrap();
    let err = fails(&["event", "load-ratings", f, not_a_list.to_str().unwrap()]);
    assert!(err.contains("line 1: not a FIDE rating list"), "{err}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the event is unchanged"
    );
    let header = "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag";
    let mut cols = vec![' '; 160];
    for (at, text) in [
        (0, "2000123"),
        (15, "Lee, Ann"),
        (76, "USA"),
        (80, "F"),
        (84, "FM"),
        (139, "2150"),
        (152, "1999"),
    ] {
        for (i, c) in text.chars().enumerate() {
            cols[at + i] = c;
        }
    }
    let list = dir.join("players_list_foa.txt");
    std::fs::write(
        &list,
        format!("{header}\n{}\n", cols.iter().collect::<String>()),
    )
    .unwrap();
    let out = ok(&["event", "load-ratings", f, list.to_str().unwrap()]);
    assert!(
        out.contains("1 of 6 players found (0 by FIDE id, 1 by name)"),
        "{out}"
    );
    let json: Value = serde_json::from_str(&ok(&["event", "export", f, "--as", "json"])).unwrap();
    assert_eq!(json["players"][0]["fide_id"], 2_000_123);
    assert_eq!(json["players"][0]["rating"], 2150);
    assert_eq!(json["players"][0]["title"], "FM");

    // The US Chess report: refused while details or results are missing, then written.
    let out_dir = dir.join("uscf");
    let o = out_dir.to_str().unwrap();
    let err = fails(&["event", "export", f, "--as", "uscf-dbf", "-o", o]);
    assert!(err.contains("the affiliate id (--uscf-affiliate)"), "{err}");
    ok(&[
        "event",
        "report-info",
        f,
        "--city",
        "Springfield",
        "--state",
        "IL",
        "--zip",
        "62701",
        "--uscf-affiliate",
        "A1234567",
        "--uscf-chief-td",
        "12345678",
    ]);
    let err = fails(&["event", "export", f, "--as", "uscf-dbf", "-o", o]);
    assert!(err.contains("round 2 still has results missing"), "{err}");
    for board in 1..=3 {
        ok(&["event", "result", f, "2", &board.to_string(), "1/2"]);
    }
    ok(&["event", "export", f, "--as", "uscf-dbf", "-o", o]);
    for name in ["THEXPORT.DBF", "TSEXPORT.DBF", "TDEXPORT.DBF"] {
        let bytes = std::fs::read(out_dir.join(name)).unwrap();
        assert_eq!(bytes[0], 3, "{name}: dBase III");
        assert_eq!(*bytes.last().unwrap(), 0x1A, "{name}: end of file");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 30: the command line takes text by the events library's rules: a line end in the
/// site, a date that is not one, a report detail on two lines or a name over a game's 64
/// characters is refused naming the field, and the file is not written or not changed.
#[test]
fn text_with_line_ends_is_refused() {
    let dir = temp_dir("text-rules");
    let file = dir.join("e.json");
    let f = file.to_str().unwrap();
    let new = |extra: &[&str]| -> String {
        let mut args = vec![
            "event", "new", f, "--name", "X", "--format", "swiss", "--rounds", "3",
        ];
        args.extend_from_slice(extra);
        fails(&args)
    };
    let err = new(&["--site", "Reno\n001    9 m    Fake"]);
    assert!(
        err.contains("site: holds a control character (U+000A)"),
        "{err}"
    );
    let err = new(&["--date", "2026-11\n[X"]);
    assert!(err.contains("date: "), "{err}");
    assert!(!file.exists(), "nothing written");
    ok(&[
        "event",
        "new",
        f,
        "--name",
        "X",
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--site",
        "Reno",
        "--date",
        "2026-11-28",
    ]);
    let before = std::fs::read_to_string(&file).unwrap();
    let err = fails(&[
        "event",
        "report-info",
        f,
        "--chief-arbiter",
        "Ann\r\n[White \"X\"]",
    ]);
    assert!(
        err.contains("report.chief_arbiter: holds a control character"),
        "{err}"
    );
    let long = "N".repeat(65);
    let err = fails(&["event", "add-player", f, "--name", &long]);
    assert!(
        err.contains("name: 65 characters, longer than the 64"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "the file unchanged"
    );
}

/// Issue 34: an event of 10,000 players (the events library's most) loads, but its TRF
/// numbers at most 9,999 (four columns for a starting rank): `event export --as trf` is
/// an error naming the limit and the count, exit code 1, and no file is written; the US
/// Chess report likewise.
#[test]
fn the_trf_of_ten_thousand_players_is_refused_naming_the_limit() {
    use flagfall_events::event::{Event, Format, NewPlayer};
    let dir = temp_dir("ten-thousand");
    let file = dir.join("big.json");
    let f = file.to_str().unwrap();
    let mut e = Event::new("Big open", Format::Swiss, Some(9)).unwrap();
    for i in 1..=10_000u32 {
        e.add_player(NewPlayer {
            name: format!("Player {i}"),
            rating: Some(3_000 - i / 10),
            federation: None,
            fide_id: None,
            uscf_id: None,
        })
        .unwrap();
    }
    std::fs::write(&file, serde_json::to_string(&e).unwrap()).unwrap();

    let out = dir.join("big.trf");
    let err = fails(&[
        "event",
        "export",
        f,
        "--as",
        "trf",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains(
            "a TRF numbers at most 9,999 players (its starting rank has four columns); \
             this event has 10,000"
        ),
        "{err}"
    );
    assert!(!out.exists(), "no TRF written");
    let err = fails(&["event", "export", f, "--as", "trf"]);
    assert!(err.contains("at most 9,999 players"), "{err}");

    let dbf = dir.join("dbf");
    let err = fails(&[
        "event",
        "export",
        f,
        "--as",
        "uscf-dbf",
        "-o",
        dbf.to_str().unwrap(),
    ]);
    assert!(
        err.contains("a US Chess report numbers at most 9,999 players")
            && err.contains("this event has 10,000"),
        "{err}"
    );
    assert!(!dbf.exists(), "no report written");
    // The other exports still work.
    let csv = ok(&["event", "export", f, "--as", "csv"]);
    assert_eq!(csv.lines().count(), 10_001, "a header and 10,000 players");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A TRF saved while a round is being played: its pending games are written with the
/// opponent and colour and a blank result. Another event takes its players from it, and
/// `flagfall pair` refuses to pair the next round from it, naming a game without result.
#[test]
fn a_trf_saved_mid_round_gives_its_players_and_is_not_paired_from() {
    let dir = temp_dir("mid-round-trf");
    let file = dir.join("club.json");
    let f = file.to_str().unwrap();
    ok(&[
        "event", "new", f, "--name", "Club", "--format", "swiss", "--rounds", "3",
    ]);
    for (name, rating) in [("A", "2000"), ("B", "1900"), ("C", "1800"), ("D", "1700")] {
        ok(&["event", "add-player", f, "--name", name, "--rating", rating]);
    }
    ok(&["event", "pair", f]);
    ok_stdin(&["event", "results", f, "1"], "1 1-0\n2 0-1\n");
    let out = ok(&["event", "pair", f]);
    // Round 2: board 1 finished, board 2 still being played.
    ok_stdin(&["event", "results", f, "2"], "1 1/2\n");
    let trf = ok(&["event", "export", f, "--as", "trf"]);
    let saved = dir.join("mid.trf");
    std::fs::write(&saved, &trf).unwrap();
    // Board 2's players: their round-2 column has the opponent and colour, no result.
    let board2 = out
        .lines()
        .find(|l| l.trim_start().starts_with("2."))
        .unwrap();
    let white: u32 = board2.split_whitespace().nth(1).unwrap().parse().unwrap();
    let line = trf
        .lines()
        .find(|l| l.starts_with(&format!("001 {white:>4}")))
        .unwrap();
    let round2: String = line.chars().skip(101).collect();
    assert!(round2.trim_end().ends_with(" w"), "{line}");

    let other = dir.join("next.json");
    let o = other.to_str().unwrap();
    ok(&[
        "event", "new", o, "--name", "Next", "--format", "swiss", "--rounds", "3",
    ]);
    let added = ok(&["event", "add-player", o, "--trf", saved.to_str().unwrap()]);
    assert!(added.contains("4"), "{added}");
    let show: Value = serde_json::from_str(&ok(&["event", "export", o, "--as", "json"])).unwrap();
    assert_eq!(show["players"].as_array().map(Vec::len), Some(4), "{show}");

    let err = fails(&["pair", saved.to_str().unwrap()]);
    assert!(err.contains("round 2: the game against"), "{err}");
    assert!(err.contains("has no result yet"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
