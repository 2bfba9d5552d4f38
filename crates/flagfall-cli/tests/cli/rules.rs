//! Integration tests for `flagfall rules`.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use crate::{flagfall, repo_root};

const BUILTIN: [&str; 5] = [
    "uscf-2020",
    "uscf-classic",
    "club-ilc",
    "fide-b3",
    "blitz-2006",
];

fn run(args: &[&str]) -> Output {
    flagfall().args(args).output().expect("run flagfall")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Run and expect success; return stdout.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}\n{}",
        stderr(&out),
        stdout(&out)
    );
    stdout(&out)
}

/// Run and expect exit code 1; return stderr.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
    let err = stderr(&out);
    assert!(err.starts_with("flagfall: "), "{err}");
    err
}

/// Text with line wrapping undone: words joined by single spaces.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn json(args: &[&str]) -> Value {
    let text = ok(args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {text}"))
}

/// A temporary file for this test process, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("flagfall-rules-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("write temp file");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn builtin_toml(id: &str) -> String {
    let path = repo_root().join(format!("crates/flagfall-core/rulesets/{id}.toml"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A sixth ruleset: uscf-2020 renamed, with its illegal-move rule renumbered and one
/// setting changed, as an event posting its own rules would write it.
fn user_ruleset() -> String {
    let text = builtin_toml("uscf-2020")
        .replace("id = \"uscf-2020\"", "id = \"my-club\"")
        .replace("name = \"US Chess", "name = \"My club, after US Chess")
        .replace("rule = \"uscf-2020 7d\"", "rule = \"my-club 12\"")
        .replace("\nilc = false", "\nilc = true");
    assert!(text.contains("my-club 12") && text.contains("ilc = true"));
    text
}

fn setting<'a>(show: &'a Value, path: &str) -> &'a Value {
    show["settings"]
        .as_array()
        .expect("settings array")
        .iter()
        .find(|s| s["path"] == path)
        .unwrap_or_else(|| panic!("no setting {path} in {show}"))
}

#[test]
fn list_prints_one_line_per_builtin_with_its_time_policy() {
    let text = ok(&["rules", "list"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    for (line, id) in lines.iter().zip(BUILTIN) {
        assert!(line.starts_with(id), "{line}");
        assert!(line.contains("time: "), "{line}");
    }
    assert!(lines[3].contains("base + 60 x increment") && lines[3].contains("fide-b3 B.1"));
    assert!(lines[4].contains("five minutes") && lines[4].contains("blitz-2006 1"));

    let rows = json(&["rules", "list", "--json"]);
    let rows = rows.as_array().expect("array");
    let ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, BUILTIN);
    assert_eq!(rows[3]["time_policy"], "fide");
    assert_eq!(rows[0]["variations"], serde_json::json!(["ilc_allowed"]));
}

#[test]
fn show_lists_every_setting_with_value_and_citation() {
    let text = ok(&["rules", "show", "uscf-2020"]);
    let line = text
        .lines()
        .find(|l| l.starts_with("illegal.first "))
        .expect("illegal.first line");
    assert!(
        line.contains("\"loss\"") && line.ends_with("uscf-2020 7d"),
        "{line}"
    );
    assert!(text.contains("ilc_allowed: ILC claims allowed"), "{text}");
    // Rulings with no setting of their own are shown with their citation too.
    let both = text
        .lines()
        .find(|l| l.starts_with("flags.both_flags_rule"))
        .expect("both flags ruling");
    assert!(
        both.contains(" uscf-2020 8c ") && both.ends_with("the draw when both flags are down"),
        "{both}"
    );

    for id in BUILTIN {
        let show = json(&["rules", "show", id, "--json"]);
        assert_eq!(show["id"], id);
        let settings = show["settings"].as_array().expect("settings");
        assert!(settings.len() > 20, "{id}: {} settings", settings.len());
        for s in settings {
            let rule = s["rule"].as_str().expect("rule string");
            assert!(
                rule.starts_with(id) || rule.starts_with("laws "),
                "{id}: {s}"
            );
        }
    }
    let fide = json(&["rules", "show", "fide-b3", "--json"]);
    assert_eq!(setting(&fide, "time.setup_moves")["value"], 10);
    assert_eq!(
        setting(&fide, "time.setup_moves")["rule"],
        "fide-b3 A.5.1.1"
    );
    assert_eq!(setting(&fide, "flags.auto_flag_default")["value"], true);
    assert_eq!(
        setting(&fide, "penalties.two_hands")["value"],
        serde_json::json!(["opponent_plus_minute"])
    );
    assert_eq!(fide["variations"], serde_json::json!([]));
    let both = fide["rulings"]
        .as_array()
        .expect("rulings")
        .iter()
        .find(|r| r["path"] == "flags.both_flags_rule")
        .expect("both flags ruling");
    assert_eq!(both["rule"], "laws both_flags");
    assert_eq!(both["cited_for"], "the draw when both flags are down");
}

#[test]
fn show_applies_a_variation() {
    let show = json(&[
        "rules",
        "show",
        "uscf-classic",
        "--variation",
        "illegal_move_one_minute",
        "--json",
    ]);
    assert_eq!(
        show["applied_variations"],
        serde_json::json!(["illegal_move_one_minute"])
    );
    let first = setting(&show, "illegal.first");
    assert_eq!(first["value"], "minute_and_reinstate");
    assert_eq!(first["rule"], "uscf-classic 2 variation");
    let text = ok(&[
        "rules",
        "show",
        "uscf-classic",
        "--variation",
        "illegal_move_one_minute",
    ]);
    assert!(text.contains("variations applied: illegal_move_one_minute"));

    let err = fails(&["rules", "show", "uscf-2020", "--variation", "nope"]);
    assert!(
        err.contains("no variation `nope`") && err.contains("ilc_allowed"),
        "{err}"
    );
}

#[test]
fn explain_prints_summary_application_interpretation_and_settings() {
    let text = ok(&["rules", "explain", "uscf-2020", "7d"]);
    assert!(
        text.starts_with("uscf-2020 7d: Claiming an illegal move\n"),
        "{text}"
    );
    for part in [
        "What the rule says (paraphrased)",
        "How flagfall applies it",
        "Interpretation",
        "Settings of uscf-2020 citing uscf-2020 7d",
        "  illegal.first = \"loss\"",
        "  illegal.rule: cited for the result or penalty of a correct illegal-move claim\n",
    ] {
        assert!(text.contains(part), "missing {part:?} in\n{text}");
    }
    // The same rule by full citation, as one argument or two, and in any case.
    assert_eq!(ok(&["rules", "explain", "uscf-2020", "uscf-2020 7d"]), text);
    assert_eq!(
        ok(&["rules", "explain", "uscf-2020", "uscf-2020", "7D"]),
        text
    );

    let fide = ok(&["rules", "explain", "fide-b3", "a.5.3"]);
    assert!(fide.starts_with("fide-b3 A.5.3: "), "{fide}");
    assert!(
        fide.contains("undetermined"),
        "the interpretation is shown: {fide}"
    );
    assert!(
        fide.contains("material.definition = \"fide_any_series\""),
        "{fide}"
    );

    let laws = ok(&["rules", "explain", "fide-b3", "laws", "dead_position"]);
    assert!(
        laws.starts_with("laws dead_position: Dead position"),
        "{laws}"
    );
    assert!(laws.contains("draws.dead_position = true"), "{laws}");

    // Citation fields say what the arbiter cites them for.
    let d = flat(&ok(&["rules", "explain", "uscf-2020", "8d"]));
    assert!(
        d.contains("flags.no_material_rule: cited for the draw on a flag"),
        "{d}"
    );
    assert!(d.contains("draws.ilc = false"), "{d}");

    let unmodelled = ok(&["rules", "explain", "blitz-2006", "21"]);
    assert!(
        unmodelled.contains("(not modelled by flagfall)"),
        "{unmodelled}"
    );
    assert!(unmodelled.contains("Not modelled:"), "{unmodelled}");
}

#[test]
fn explain_json_and_variation_rules() {
    let e = json(&["rules", "explain", "blitz-2006", "13b", "--json"]);
    assert_eq!(e["citation"], "blitz-2006 13b");
    assert_eq!(e["explained"], true);
    assert!(
        e["interpretation"]
            .as_str()
            .is_some_and(|i| i.contains("opponent"))
    );
    let paths: Vec<&str> = e["settings"]
        .as_array()
        .expect("settings")
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    assert!(
        paths.contains(&"draws.draw_position_denied_rule"),
        "{paths:?}"
    );
    assert!(paths.contains(&"draws.wrong_claim_penalty_ms"), "{paths:?}");

    // The posted variation's rule: explained, and its settings appear once applied.
    let plain = json(&["rules", "explain", "uscf-classic", "2 variation", "--json"]);
    assert_eq!(plain["settings"], serde_json::json!([]));
    assert!(
        plain["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("--variation"))
    );
    let varied = json(&[
        "rules",
        "explain",
        "uscf-classic",
        "2 variation",
        "--variation",
        "illegal_move_one_minute",
        "--json",
    ]);
    let first = varied["settings"]
        .as_array()
        .expect("settings")
        .iter()
        .find(|s| s["path"] == "illegal.first")
        .cloned()
        .expect("illegal.first cites the variation");
    assert_eq!(first["value"], "minute_and_reinstate");
}

#[test]
fn every_citation_shown_by_show_can_be_explained() {
    for id in BUILTIN {
        let show = json(&["rules", "show", id, "--json"]);
        let mut citations: Vec<String> = show["settings"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(show["rulings"].as_array().into_iter().flatten())
            .filter_map(|s| s["rule"].as_str().map(str::to_string))
            .collect();
        citations.sort();
        citations.dedup();
        for c in citations {
            let e = json(&["rules", "explain", id, &c, "--json"]);
            assert_eq!(e["explained"], true, "{id}: {c}");
            assert_eq!(e["citation"], c.as_str());
            assert!(
                !e["settings"].as_array().expect("settings").is_empty(),
                "{id}: {c} is cited but explain lists no setting"
            );
        }
    }
}

#[test]
fn explain_without_a_rule_lists_the_explainable_rules() {
    let text = ok(&["rules", "explain", "fide-b3"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("fide-b3 B.1 "), "{text}");
    let a3 = lines
        .iter()
        .find(|l| l.starts_with("fide-b3 A.3 "))
        .expect("A.3 listed");
    assert!(
        a3.contains("One-minute penalties") && a3.contains("settings]"),
        "{a3}"
    );
    let a2 = lines
        .iter()
        .find(|l| l.starts_with("fide-b3 A.2 "))
        .expect("A.2 listed");
    assert!(
        a2.contains("(not modelled)") && !a2.contains("setting"),
        "{a2}"
    );
    assert!(
        text.contains("laws dead_position") && text.contains("[2 settings]"),
        "{text}"
    );

    let index = json(&["rules", "explain", "blitz-2006", "--json"]);
    let rules = index["rules"].as_array().expect("rules");
    let own = rules
        .iter()
        .filter(|r| {
            r["citation"]
                .as_str()
                .is_some_and(|c| c.starts_with("blitz-2006 "))
        })
        .count();
    assert_eq!(own, 45, "every numbered rule of blitz-2006");
    assert_eq!(index["unexplained_citations"], serde_json::json!([]));
}

#[test]
fn unknown_ruleset_or_rule_exits_1_listing_what_exists() {
    let err = fails(&["rules", "explain", "fide", "A.5.3"]);
    assert!(err.contains("unknown ruleset `fide`"), "{err}");
    for id in BUILTIN {
        assert!(err.contains(id), "{err}");
    }
    let err = fails(&["rules", "show", "uscf-2021"]);
    assert!(err.contains("unknown ruleset `uscf-2021`"), "{err}");

    let err = fails(&["rules", "explain", "uscf-2020", "7z"]);
    assert!(err.contains("`uscf-2020` has no rule `7z`"), "{err}");
    assert!(
        err.contains("7d") && err.contains("laws: checkmate"),
        "{err}"
    );
    let err = fails(&["rules", "explain", "club-ilc", "laws", "castling"]);
    assert!(err.contains("`laws` has no rule `castling`"), "{err}");

    // Usage errors are clap's: exit 2.
    assert_eq!(run(&["rules", "explain"]).status.code(), Some(2));
    assert_eq!(run(&["rules"]).status.code(), Some(2));
}

#[test]
fn a_user_ruleset_file_is_shown_and_its_citations_listed() {
    let file = TempFile::new("my-club.toml", &user_ruleset());
    let show = json(&["rules", "show", "my-club", "--file", file.path(), "--json"]);
    assert_eq!(show["id"], "my-club");
    assert_eq!(show["file"], file.path());
    assert_eq!(setting(&show, "draws.ilc")["value"], true);
    assert_eq!(setting(&show, "illegal.first")["rule"], "my-club 12");
    let text = ok(&["rules", "show", "my-club", "--file", file.path()]);
    assert!(text.starts_with("my-club (loaded from "), "{text}");

    // Its own rule: no explanation, but the settings citing it.
    let own = ok(&["rules", "explain", "my-club", "12", "--file", file.path()]);
    assert!(flat(&own).contains("carries no explanations"), "{own}");
    assert!(own.contains("illegal.first = \"loss\""), "{own}");
    let own = json(&[
        "rules",
        "explain",
        "my-club",
        "12",
        "--file",
        file.path(),
        "--json",
    ]);
    assert_eq!(own["explained"], false);
    assert_eq!(own["citation"], "my-club 12");

    // A rule it inherits from a built-in text: explained, with its own settings.
    let inherited = ok(&[
        "rules",
        "explain",
        "my-club",
        "uscf-2020 8d",
        "--file",
        file.path(),
    ]);
    assert!(inherited.starts_with("uscf-2020 8d: "), "{inherited}");
    assert!(
        inherited.contains("describes the built-in `uscf-2020` ruleset"),
        "{inherited}"
    );
    assert!(inherited.contains("draws.ilc = true"), "{inherited}");
    // Laws resolve by bare name too.
    assert!(
        ok(&[
            "rules",
            "explain",
            "my-club",
            "checkmate",
            "--file",
            file.path()
        ])
        .starts_with("laws checkmate: ")
    );

    // Without a rule: the laws, and the citations it uses that have no explanation.
    let index = ok(&["rules", "explain", "my-club", "--file", file.path()]);
    assert!(
        flat(&index).contains("carries no explanations of its own"),
        "{index}"
    );
    assert!(index.contains("  my-club 12 [8 settings]"), "{index}");
    assert!(index.contains("laws checkmate"), "{index}");
    assert!(
        !index.contains("  uscf-2020 7c ["),
        "explained citations are not listed: {index}"
    );

    let err = fails(&["rules", "explain", "my-club", "99", "--file", file.path()]);
    assert!(
        err.contains("none of its settings cites `my-club 99`"),
        "{err}"
    );
    assert!(
        err.contains("my-club 12"),
        "lists the citations it has: {err}"
    );
    let err = fails(&["rules", "show", "uscf-2020", "--file", file.path()]);
    assert!(
        err.contains("defines ruleset `my-club`, not `uscf-2020`"),
        "{err}"
    );
}

#[test]
fn a_bad_ruleset_file_is_a_clear_error() {
    let bad = TempFile::new("bad.toml", "id = \"x\"\nname = 3\n");
    let err = fails(&["rules", "show", "x", "--file", bad.path()]);
    assert!(
        err.contains(bad.path()) && err.contains("not valid"),
        "{err}"
    );
    assert!(err.contains("line 2"), "names the line: {err}");

    let extra = TempFile::new(
        "extra.toml",
        &format!("{}\n[extra]\nx = 1\n", builtin_toml("fide-b3")),
    );
    let err = fails(&["rules", "explain", "fide-b3", "A.3", "--file", extra.path()]);
    assert!(err.contains("extra"), "names the unknown section: {err}");

    let missing = std::env::temp_dir().join("flagfall-rules-no-such-file.toml");
    let err = fails(&[
        "rules",
        "show",
        "x",
        "--file",
        missing.to_str().expect("utf-8"),
    ]);
    assert!(err.contains("reading ruleset file"), "{err}");
}
