//! Integration tests for `flagfall replay`.

use crate::{flagfall, repo_root, run_with_stdin};

fn example(name: &str) -> String {
    repo_root()
        .join("examples/games")
        .join(name)
        .display()
        .to_string()
}

fn json(stdout: &[u8]) -> serde_json::Value {
    serde_json::from_slice(stdout).expect("replay prints one JSON object")
}

#[test]
fn replays_a_bundled_game() {
    let out = flagfall()
        .args(["replay", &example("illegal-king-left-in-check.jsonl")])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["result"], "1-0");
    assert_eq!(v["reason"], "illegal_move");
    assert_eq!(v["rule"], "uscf-2020 7d");
    // Keys in the order of docs/game-script.md §4.
    let text = String::from_utf8_lossy(&out.stdout);
    let order: Vec<usize> = [
        "\"result\"",
        "\"reason\"",
        "\"rule\"",
        "\"clock\"",
        "\"fen\"",
        "\"rulings\"",
    ]
    .iter()
    .map(|k| text.find(k).expect("key present"))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
}

#[test]
fn reads_standard_input() {
    let script = "{\"rules\":\"blitz-2006\",\"time_control\":\"G/5\"}\n{\"at\":1000,\"by\":\"white\",\"resign\":true}\n";
    let out = run_with_stdin(&["replay", "-"], script);
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["result"], "0-1");
    assert_eq!(v["rule"], "blitz-2006 7a2");
    assert_eq!(v["clock"]["white_ms"], 299_000);
}

#[test]
fn a_malformed_script_names_line_and_field() {
    let script = "{\"rules\":\"uscf-2020\",\"time_control\":\"G/5\"}\n{\"at\":1000,\"by\":\"white\",\"move\":\"e2e9\"}\n";
    let out = run_with_stdin(&["replay", "-"], script);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.contains("`move`"), "{err}");
    assert!(out.stdout.is_empty());

    let out = run_with_stdin(
        &["replay", "-"],
        "{\"rules\":\"uscf-2099\",\"time_control\":\"G/5\"}\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 1") && err.contains("`rules`"), "{err}");

    let out = run_with_stdin(
        &["replay", "-"],
        "{\"rules\":\"fide-b3\",\"time_control\":\"G/15\"}\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("`time_control`") && err.contains("fide-b3 B.1"),
        "{err}"
    );

    let out = flagfall()
        .args(["replay", "/nonexistent/game.jsonl"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn pgn_round_trips_exactly() {
    for name in [
        "illegal-king-left-in-check.jsonl",
        "both-flags-down.jsonl",
        "fide-illegal-then-flag.jsonl",
    ] {
        let direct = flagfall()
            .args(["replay", &example(name)])
            .output()
            .expect("run");
        let pgn = flagfall()
            .args(["replay", "--pgn", &example(name)])
            .output()
            .expect("run");
        assert!(pgn.status.success());
        let pgn_text = String::from_utf8_lossy(&pgn.stdout).into_owned();
        assert!(pgn_text.contains("[Rules "), "{pgn_text}");
        let dir = std::env::temp_dir().join(format!("flagfall-pgn-{}-{name}", std::process::id()));
        std::fs::write(&dir, &pgn_text).expect("write pgn");
        let back = flagfall()
            .args(["replay", "--from-pgn", &dir.display().to_string()])
            .output()
            .expect("run");
        let _ = std::fs::remove_file(&dir);
        assert!(
            back.status.success(),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
        assert_eq!(json(&back.stdout), json(&direct.stdout), "{name}");
    }
}

#[test]
fn a_plain_pgn_from_elsewhere_replays_its_moves() {
    let pgn = "[Event \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let dir = std::env::temp_dir().join(format!("flagfall-plain-{}.pgn", std::process::id()));
    std::fs::write(&dir, pgn).expect("write");
    let out = flagfall()
        .args([
            "replay",
            "--from-pgn",
            &dir.display().to_string(),
            "--rules",
            "fide-b3",
        ])
        .output()
        .expect("run");
    let _ = std::fs::remove_file(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["reason"], "checkmate");
    assert_eq!(v["rule"], "laws checkmate");
}

#[test]
fn a_user_ruleset_file_can_be_named_by_the_script() {
    let base =
        std::fs::read_to_string(repo_root().join("crates/flagfall-core/rulesets/uscf-2020.toml"))
            .expect("read");
    let custom = base
        .replace("id = \"uscf-2020\"", "id = \"my-club\"")
        .replace(
            "first = \"loss\"\nlater = \"loss\"",
            "first = \"minute_and_reinstate\"\nlater = \"loss\"",
        );
    let path = std::env::temp_dir().join(format!("flagfall-my-club-{}.toml", std::process::id()));
    std::fs::write(&path, custom).expect("write");
    let script = "{\"rules\":\"my-club\",\"time_control\":\"G/5\"}\n\
        {\"at\":1000,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true}\n\
        {\"at\":2000,\"by\":\"black\",\"move\":\"e7e5\",\"press\":true}\n\
        {\"at\":3000,\"by\":\"white\",\"move\":\"f1e3\",\"press\":true}\n\
        {\"at\":4000,\"by\":\"black\",\"claim\":\"illegal\"}\n";
    let out = run_with_stdin(
        &["replay", "--ruleset", &path.display().to_string(), "-"],
        script,
    );
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["result"], "*");
    assert_eq!(v["rulings"][0]["kind"], "claim_upheld");
    // Black: 300 s - 1 s (e7e5) - 1 s (until the claim) + 60 s.
    assert_eq!(v["clock"]["black_ms"], 358_000);
}
