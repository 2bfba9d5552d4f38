//! ARCHITECTURE.md's dependency table matches the crates' Cargo.toml files, and every
//! flagfall crate a library declares is used by its source. The server's modules import
//! only the layers below their own (ARCHITECTURE.md, "The server's layers"), and the
//! server, store and protocol crates keep their files and functions within the size
//! limits, or ARCHITECTURE.md says why (issue 33).

#[path = "layout/layers.rs"]
mod layers;
#[path = "layout/source.rs"]
mod source;

use std::collections::{BTreeMap, BTreeSet};
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

/// The most lines of a file outside its tests, and of a function.
const FILE_LINES: usize = 800;
const FN_LINES: usize = 80;

/// Whether one of two files is the other's parent module (`game/mod.rs` or `game.rs`
/// and `game/commit.rs`): a directory module's root declares and re-exports its files,
/// and its files use their parent's items, as Rust's modules are made; such a pair is
/// not a circle between modules. Files of one directory that are siblings still may
/// not import each other in a circle.
fn parent_and_part(a: &[String], b: &[String]) -> bool {
    let one_below = |p: &[String], c: &[String]| c.len() == p.len() + 1 && c.starts_with(p);
    one_below(a, b) || one_below(b, a)
}

fn architecture_md() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

#[test]
fn server_modules_import_only_the_layers_below_their_own() {
    let src = root().join("crates/flagfall-server/src");
    let table = layers::table(&architecture_md()).unwrap_or_else(|e| panic!("{e}"));
    let files = source::files(&src);
    let module_of: BTreeMap<&str, &[String]> = files
        .iter()
        .map(|f| (f.rel.as_str(), f.module.as_slice()))
        .collect();
    let mut errors = Vec::new();
    for f in files.iter().filter(|f| !f.is_test()) {
        if table.place(&f.module).is_none() {
            errors.push(format!(
                "crates/flagfall-server/src/{} is in no layer of ARCHITECTURE.md's layer table: add its module to a row",
                f.rel
            ));
        }
    }
    for named in table.named() {
        let module: Vec<String> = named.split('/').map(str::to_string).collect();
        let exists = files.iter().any(|f| f.module.starts_with(&module))
            || (named == "lib" && files.iter().any(|f| f.rel == "lib.rs"));
        if !exists {
            errors.push(format!(
                "ARCHITECTURE.md's layer table names `{named}`, but crates/flagfall-server/src has no such module"
            ));
        }
    }
    let mut same: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let edges = layers::edges(&files);
    for (from, imports) in &edges {
        let Some(layers::Place::Layer(a, _)) = table.place(module_of[from.as_str()]) else {
            continue;
        };
        for e in imports {
            let Some(to @ layers::Place::Layer(b, _)) = table.place(module_of[e.to.as_str()])
            else {
                continue;
            };
            if b < a {
                continue;
            }
            if b > a {
                errors.push(format!(
                    "crates/flagfall-server/src/{from}:{} imports `{}` ({}, {}) from {}: a module imports only the layers below its own",
                    e.line,
                    e.written,
                    e.to,
                    to.describe(),
                    table.place(module_of[from.as_str()]).expect("placed").describe(),
                ));
            } else if !parent_and_part(module_of[from.as_str()], module_of[e.to.as_str()]) {
                same.entry(from.clone()).or_default().insert(e.to.clone());
            }
        }
    }
    for circle in layers::circles(&same) {
        let layer = table.place(module_of[circle[0].as_str()]).expect("placed");
        let mut why: Vec<String> = Vec::new();
        for from in &circle {
            let mut to_seen = BTreeSet::new();
            for e in edges.get(from).into_iter().flatten() {
                if same[from.as_str()].contains(&e.to)
                    && circle.contains(&e.to)
                    && to_seen.insert(&e.to)
                {
                    why.push(format!(
                        "{from} → {} (line {}: `{}`)",
                        e.to, e.line, e.written
                    ));
                }
            }
        }
        errors.push(format!(
            "modules of {} import each other in a circle: {}",
            layer.describe(),
            why.join("; ")
        ));
    }
    assert!(
        errors.is_empty(),
        "the server's layering (ARCHITECTURE.md, \"The server's layers\"):\n{}",
        errors.join("\n")
    );
}

/// ARCHITECTURE.md's table of what is over the size limits and why: its first cells
/// (`path`, or `path` `function`).
fn excused_in_architecture_md() -> Result<BTreeSet<String>, String> {
    let md = architecture_md();
    let header = "| over the size limits | why |";
    let mut lines = md.lines().skip_while(|l| !l.starts_with(header));
    if lines.next().is_none() {
        return Err(format!(
            "ARCHITECTURE.md has no table of what is over the size limits (a header `{header}`)"
        ));
    }
    let mut out = BTreeSet::new();
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let names: Vec<&str> = cells[0].split('`').skip(1).step_by(2).collect();
        if names.is_empty() || cells.get(1).is_none_or(|why| why.is_empty()) {
            return Err(format!(
                "the size limits' table: a row without a file or a reason: {line}"
            ));
        }
        out.insert(names.join(" "));
    }
    Ok(out)
}

#[test]
fn server_store_and_protocol_files_and_functions_keep_their_size() {
    let excused = excused_in_architecture_md().unwrap_or_else(|e| panic!("{e}"));
    let mut over: BTreeSet<String> = BTreeSet::new();
    let mut errors = Vec::new();
    for krate in ["flagfall-server", "flagfall-store", "flagfall-protocol"] {
        for f in source::files(&root().join("crates").join(krate).join("src")) {
            if f.is_test() {
                continue;
            }
            let text = fs::read_to_string(&f.path).expect("readable");
            let (functions, test_lines) = source::functions(&source::parse(&f));
            let path = format!("crates/{krate}/src/{}", f.rel);
            let lines = text.lines().count().saturating_sub(test_lines);
            if lines > FILE_LINES {
                over.insert(path.clone());
                if !excused.contains(&path) {
                    errors.push(format!(
                        "{path}: {lines} lines outside its tests, more than {FILE_LINES}: split it, or say why in ARCHITECTURE.md's size limits' table"
                    ));
                }
            }
            for fun in functions.iter().filter(|f| f.lines > FN_LINES) {
                let key = format!("{path} {}", fun.name);
                over.insert(key.clone());
                if !excused.contains(&key) {
                    errors.push(format!(
                        "{path}:{}: `{}` is {} lines, more than {FN_LINES}: shorten it by concern, or say why in ARCHITECTURE.md's size limits' table",
                        fun.line, fun.name, fun.lines
                    ));
                }
            }
        }
    }
    for key in &excused {
        if !over.contains(key) {
            errors.push(format!("ARCHITECTURE.md's size limits' table lists `{key}`, which is within the limits (or does not exist): remove the row"));
        }
    }
    assert!(
        errors.is_empty(),
        "sizes (issue 33):\n{}",
        errors.join("\n")
    );
}
