//! ARCHITECTURE.md's dependency table matches the crates' Cargo.toml files, and every
//! flagfall crate a library declares is used by its source.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `[dependencies]` of a crate that are flagfall crates (`flagfall-game` → `game`).
fn declared(krate: &str) -> BTreeSet<String> {
    let path = root().join("crates").join(krate).join("Cargo.toml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml is TOML");
    let Some(toml::Value::Table(deps)) = manifest.get("dependencies") else {
        return BTreeSet::new();
    };
    deps.keys()
        .filter_map(|k| k.strip_prefix("flagfall-"))
        .map(str::to_string)
        .collect()
}

/// Every `.rs` file under `dir`, concatenated.
fn source(dir: &Path) -> String {
    let mut out = String::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.push_str(&source(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&fs::read_to_string(&path).unwrap_or_default());
        }
    }
    out
}

/// The rows of ARCHITECTURE.md's "depends on (flagfall crates)" table.
fn documented() -> Vec<(String, BTreeSet<String>)> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut rows = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("| `flagfall-") else {
            continue;
        };
        let cells: Vec<&str> = rest.split('|').map(str::trim).collect();
        let (Some(name), Some(deps)) = (cells.first(), cells.get(1)) else {
            continue;
        };
        let name = name.trim_end_matches('`').to_string();
        let deps: BTreeSet<String> = if deps.starts_with("none") {
            BTreeSet::new()
        } else if deps.starts_with("all") {
            BTreeSet::from(["*".to_string()])
        } else {
            deps.split(',').map(|d| d.trim().to_string()).collect()
        };
        rows.push((name, deps));
    }
    rows
}

#[test]
fn architecture_md_lists_each_crates_flagfall_dependencies() {
    let rows = documented();
    let crates: BTreeSet<String> = fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix("flagfall-"))
                .map(str::to_string)
        })
        .collect();
    let listed: BTreeSet<String> = rows.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(listed, crates, "ARCHITECTURE.md lists every crate once");
    for (name, deps) in rows {
        let actual = declared(&format!("flagfall-{name}"));
        if deps.contains("*") {
            let others: BTreeSet<String> = crates.iter().filter(|c| **c != name).cloned().collect();
            assert_eq!(actual, others, "flagfall-{name} depends on all the others");
        } else {
            assert_eq!(
                actual, deps,
                "flagfall-{name}: Cargo.toml v ARCHITECTURE.md"
            );
        }
    }
}

#[test]
fn every_declared_flagfall_dependency_is_used() {
    for (name, _) in documented() {
        let dir = root().join("crates").join(format!("flagfall-{name}"));
        let src = source(&dir.join("src"));
        for dep in declared(&format!("flagfall-{name}")) {
            let path = format!("flagfall_{}", dep.replace('-', "_"));
            assert!(
                src.contains(&path),
                "flagfall-{name} declares flagfall-{dep} but its source never uses `{path}`"
            );
        }
    }
}
