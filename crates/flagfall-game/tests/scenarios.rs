//! The data-driven scenario suite: every `tests/scenarios/<ruleset>/*.jsonl` game script
//! is replayed and compared with its `.expected.json`, written by hand from the rule
//! texts (see `tests/scenarios/COVERAGE.md`).
//!
//! Matching (documented for scenario authors):
//! - `result`, `reason`, `rule`: required, equal (`null` reason/rule while the game goes on);
//! - `clock`: exact when given;
//! - `fen`: compared field by field for the fields given;
//! - `rulings`: when given, same length, and every key given in each expected ruling equal;
//! - `*.error.jsonl`: the script must fail to parse at `error_line` naming `error_field`.
//!
//! Runs every scenario and reports every mismatch, then exits non-zero if any failed.
//! Every scenario is also written as PGN and read back, and must replay the same.
//! `SCENARIO=substring cargo test -p flagfall-game --test scenarios` runs a subset;
//! `FLAGFALL_PGN_OUT=dir` also writes each game's PGN there, with `NAME.expect.json`
//! beside it (the tags and SAN moves a reader must find); CI checks them with python-chess
//! (`scripts/check_pgn_readers.py`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

fn expected_path(script: &Path) -> PathBuf {
    let name = script
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = name.trim_end_matches(".jsonl").trim_end_matches(".error");
    script.with_file_name(format!("{stem}.expected.json"))
}

fn check(script_path: &Path) -> Result<(), Vec<String>> {
    let text =
        std::fs::read_to_string(script_path).map_err(|e| vec![format!("cannot read: {e}")])?;
    let exp_path = expected_path(script_path);
    let exp_text = std::fs::read_to_string(&exp_path)
        .map_err(|e| vec![format!("cannot read {}: {e}", exp_path.display())])?;
    let expected: Value = serde_json::from_str(&exp_text)
        .map_err(|e| vec![format!("expected file is not JSON: {e}")])?;
    let is_error_case = script_path.to_string_lossy().ends_with(".error.jsonl");
    let parsed = flagfall_game::script::parse(&text);
    if is_error_case {
        return match parsed {
            Ok(_) => Err(vec![
                "expected a script error, but the script parsed".to_string(),
            ]),
            Err(e) => {
                let mut problems = Vec::new();
                if let Some(line) = expected.get("error_line").and_then(Value::as_u64)
                    && line as usize != e.line
                {
                    problems.push(format!("error line: expected {line}, got {} ({e})", e.line));
                }
                if let Some(field) = expected.get("error_field").and_then(Value::as_str)
                    && field != e.field
                {
                    problems.push(format!(
                        "error field: expected {field}, got {} ({e})",
                        e.field
                    ));
                }
                if problems.is_empty() {
                    Ok(())
                } else {
                    Err(problems)
                }
            }
        };
    }
    let script = parsed.map_err(|e| vec![format!("script error: {e}")])?;
    let replay = flagfall_game::replay(&script);
    let again = flagfall_game::replay(&script);
    let actual: Value = serde_json::from_str(&replay.to_json()).map_err(|e| vec![e.to_string()])?;
    let mut problems = Vec::new();
    if replay.to_json() != again.to_json() {
        problems.push("replay is not deterministic".to_string());
    }
    // PGN round trip: the game written as PGN reads back into the same game.
    let pgn_text = flagfall_game::pgn::to_pgn(&script);
    match flagfall_game::pgn::from_pgn(&pgn_text, "uscf-2020") {
        Err(e) => problems.push(format!("PGN does not read back: {e}\n{pgn_text}")),
        Ok(back) => match flagfall_game::script::parse(&back) {
            Err(e) => problems.push(format!("PGN reads back into a bad script: {e}\n{back}")),
            Ok(s2) => {
                if flagfall_game::replay(&s2).to_json() != replay.to_json() {
                    problems.push(format!("PGN round trip changes the game:\n{pgn_text}"));
                }
            }
        },
    }
    if let Ok(dir) = std::env::var("FLAGFALL_PGN_OUT") {
        let name = script_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let rs = script_path
            .parent()
            .and_then(|p| p.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = std::fs::write(format!("{dir}/{rs}-{name}.pgn"), &pgn_text);
        // What an ordinary reader must find in it (scripts/check_pgn_readers.py): the
        // names as tag values read back, the result, and the SAN moves of the move list
        // while the game is legal chess (`MoveList`, a path of its own), and nothing else.
        let mut list = flagfall_game::MoveList::default();
        list.update(&replay.game);
        let moves: Vec<String> = list.entries().iter().map_while(|e| e.san.clone()).collect();
        let tag = |n: &Option<String>| {
            flagfall_game::pgn::tag_value_read_back(n.as_deref().unwrap_or("?"))
        };
        let expect = serde_json::json!({
            "White": tag(&script.setup.white),
            "Black": tag(&script.setup.black),
            "Result": replay.result.as_str(),
            "moves": moves,
        });
        let _ = std::fs::write(format!("{dir}/{rs}-{name}.expect.json"), expect.to_string());
    }
    for key in ["result", "reason", "rule"] {
        match expected.get(key) {
            None => problems.push(format!("expected file lacks `{key}`")),
            Some(v) if actual.get(key) != Some(v) => problems.push(format!(
                "{key}: expected {v}, got {}",
                actual.get(key).unwrap_or(&Value::Null)
            )),
            Some(_) => {}
        }
    }
    if let Some(clock) = expected.get("clock")
        && actual.get("clock") != Some(clock)
    {
        problems.push(format!("clock: expected {clock}, got {}", actual["clock"]));
    }
    if let Some(fen) = expected.get("fen").and_then(Value::as_str) {
        let got = actual["fen"].as_str().unwrap_or_default();
        let got_fields: Vec<&str> = got.split_whitespace().collect();
        for (i, f) in fen.split_whitespace().enumerate() {
            if got_fields.get(i) != Some(&f) {
                problems.push(format!("fen: expected {fen}, got {got}"));
                break;
            }
        }
    }
    if let Some(Value::Array(exp_rulings)) = expected.get("rulings") {
        let got = actual["rulings"].as_array().cloned().unwrap_or_default();
        let mismatch = exp_rulings.len() != got.len()
            || exp_rulings.iter().zip(&got).any(|(e, g)| {
                e.as_object()
                    .is_some_and(|eo| eo.iter().any(|(k, v)| g.get(k) != Some(v)))
            });
        if mismatch {
            let brief = |r: &Value| {
                format!(
                    "{{event {}, {}, {}{}}}",
                    r.get("event").unwrap_or(&Value::Null),
                    r.get("kind").and_then(Value::as_str).unwrap_or("?"),
                    r.get("rule").and_then(Value::as_str).unwrap_or("?"),
                    r.get("ruling")
                        .and_then(Value::as_str)
                        .map(|t| format!(": {t}"))
                        .unwrap_or_default()
                )
            };
            problems.push(format!(
                "rulings:\n      expected {}\n      got      {}",
                exp_rulings.iter().map(brief).collect::<Vec<_>>().join(" "),
                got.iter().map(brief).collect::<Vec<_>>().join(" ")
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut scripts = Vec::new();
    collect(&root, &mut scripts);
    scripts.sort();
    let filter = std::env::var("SCENARIO").ok();
    let (mut passed, mut failed) = (0usize, 0usize);
    for path in &scripts {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        if filter.as_ref().is_some_and(|f| !rel.contains(f.as_str())) {
            continue;
        }
        match check(path) {
            Ok(()) => passed += 1,
            Err(problems) => {
                failed += 1;
                println!("FAIL {rel}");
                for p in problems {
                    println!("    {p}");
                }
            }
        }
    }
    println!("scenarios: {passed} passed, {failed} failed");
    if failed > 0 || passed == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
