//! `flagfall rules list|show|explain`: the rulesets, their settings with citations, and
//! the explanation of each rule (`flagfall_core::explain`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use flagfall_core::explain::{self, Explanation, LAWS, RuleRef};
use flagfall_core::ruleset::{Ruleset, TimePolicy};
use serde_json::{Value, json};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: RulesCommand,
}

#[derive(clap::Subcommand)]
pub enum RulesCommand {
    /// List the built-in rulesets: id, name and how each judges a time control.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show every setting of a ruleset with its value and citation, and its variations.
    Show {
        /// A built-in ruleset id, or the id of the ruleset in `--file`.
        id: String,
        #[command(flatten)]
        source: Source,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Explain a rule: what it says, how flagfall applies it, the interpretation chosen,
    /// and the settings that cite it.
    Explain {
        /// A built-in ruleset id, or the id of the ruleset in `--file`.
        id: String,
        /// The rule: `7d`, `A.5.3`, a full citation `uscf-2020 7d`, or `laws checkmate`.
        /// Without it, list the rules that can be explained.
        #[arg(num_args = 0.., value_name = "RULE")]
        rule: Vec<String>,
        #[command(flatten)]
        source: Source,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Where the ruleset comes from, and what is applied on top.
#[derive(clap::Args)]
pub struct Source {
    /// Apply a named variation of the ruleset (repeatable, applied in order).
    #[arg(long = "variation", value_name = "NAME")]
    pub variations: Vec<String>,
    /// Load the ruleset from a TOML file (the schema of the built-in ones) instead of the
    /// built-in ones; ID must be the id the file declares.
    #[arg(long, value_name = "RULESET.toml")]
    pub file: Option<PathBuf>,
}

/// A ruleset ready to show, and whether it came from a file.
struct Loaded {
    ruleset: Ruleset,
    file: Option<PathBuf>,
}

fn load(id: &str, source: &Source) -> anyhow::Result<Loaded> {
    let mut ruleset = match &source.file {
        Some(path) => {
            let rs = load_file(path)?;
            if rs.id != id {
                bail!(
                    "{} defines ruleset `{}`, not `{id}`: pass `{}` as the ruleset id",
                    path.display(),
                    rs.id,
                    rs.id
                );
            }
            rs
        }
        None => Ruleset::builtin(id)?,
    };
    for name in &source.variations {
        ruleset = ruleset.with_variation(name)?;
    }
    Ok(Loaded {
        ruleset,
        file: source.file.clone(),
    })
}

fn load_file(path: &Path) -> anyhow::Result<Ruleset> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading ruleset file {}", path.display()))?;
    Ruleset::from_toml(&text).with_context(|| format!("ruleset file {}", path.display()))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The shipped explanation data is checked by the core's tests; fail clearly if not.
    explain::all()?;
    match args.command {
        RulesCommand::List { json } => list(json),
        RulesCommand::Show { id, source, json } => show(&load(&id, &source)?, json),
        RulesCommand::Explain {
            id,
            rule,
            source,
            json,
        } if rule.is_empty() => index(&load(&id, &source)?, json),
        RulesCommand::Explain {
            id,
            rule,
            source,
            json,
        } => explain_rule(&load(&id, &source)?, &rule.join(" "), json),
    }
}

fn policy_text(policy: TimePolicy) -> &'static str {
    match policy {
        TimePolicy::Us => "US Chess: one sudden-death control, total at most 10 min",
        TimePolicy::UsClassic => "US Chess (earlier): one sudden-death control, total 5 to 10 min",
        TimePolicy::Fide => "FIDE: base + 60 x increment at most 10 min",
        TimePolicy::FiveMinutes => "five minutes each, no delay or increment",
    }
}

fn policy_name(policy: TimePolicy) -> &'static str {
    match policy {
        TimePolicy::Us => "us",
        TimePolicy::UsClassic => "us_classic",
        TimePolicy::Fide => "fide",
        TimePolicy::FiveMinutes => "five_minutes",
    }
}

fn list(json: bool) -> anyhow::Result<ExitCode> {
    let all = Ruleset::all_builtin();
    if json {
        let rows: Vec<Value> = all
            .iter()
            .map(|rs| {
                json!({
                    "id": rs.id,
                    "name": rs.name,
                    "source": rs.source,
                    "time_policy": policy_name(rs.time.policy),
                    "time_policy_rule": rs.time.policy_rule,
                    "variations": rs.variations.keys().collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    let id_w = all.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let name_w = all.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for rs in &all {
        println!(
            "{:id_w$}  {:name_w$}  time: {} ({})",
            rs.id,
            rs.name,
            policy_text(rs.time.policy),
            rs.time.policy_rule
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A setting's value as JSON: TOML scalars and arrays of the rulesets are JSON literals;
/// anything else stays a string.
fn value_json(toml_literal: &str) -> Value {
    serde_json::from_str(toml_literal).unwrap_or_else(|_| Value::String(toml_literal.into()))
}

/// `(name, description)` of each variation the ruleset offers.
fn variations(rs: &Ruleset) -> Vec<(String, String)> {
    rs.variations
        .iter()
        .map(|(name, table)| {
            let description = table
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("")
                .to_string();
            (name.clone(), description)
        })
        .collect()
}

/// The citation fields that are not simply the `<setting>_rule` of a listed setting.
fn ruling_fields(rs: &Ruleset) -> Vec<(String, String)> {
    let settings: Vec<String> = rs.settings().into_iter().map(|s| s.0).collect();
    explain::rule_fields(rs)
        .into_iter()
        .filter(|(path, _)| {
            let own = path
                .strip_suffix("_rule")
                .is_some_and(|setting| settings.iter().any(|s| s == setting));
            !own
        })
        .collect()
}

fn origin(loaded: &Loaded) -> String {
    match &loaded.file {
        Some(path) => format!("loaded from {}", path.display()),
        None => "built in".to_string(),
    }
}

fn show(loaded: &Loaded, json: bool) -> anyhow::Result<ExitCode> {
    let rs = &loaded.ruleset;
    let settings = rs.settings();
    if json {
        let rows: Vec<Value> = settings
            .iter()
            .map(|(path, value, rule)| json!({"path": path, "value": value_json(value), "rule": rule}))
            .collect();
        let rulings: Vec<Value> = ruling_fields(rs)
            .into_iter()
            .map(|(path, rule)| json!({"path": path, "rule": rule, "cited_for": explain::ruling_use(&path)}))
            .collect();
        let vars: Vec<Value> = variations(rs)
            .into_iter()
            .map(|(name, description)| json!({"name": name, "description": description}))
            .collect();
        let out = json!({
            "id": rs.id,
            "name": rs.name,
            "source": rs.source,
            "file": loaded.file.as_ref().map(|p| p.display().to_string()),
            "applied_variations": rs.applied_variations,
            "settings": rows,
            "rulings": rulings,
            "variations": vars,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{} ({}): {}", rs.id, origin(loaded), rs.name);
    println!("rule text: {}", rs.source);
    println!("time controls: {}", policy_text(rs.time.policy));
    if !rs.applied_variations.is_empty() {
        println!("variations applied: {}", rs.applied_variations.join(", "));
    }
    println!();
    let path_w = settings.iter().map(|s| s.0.len()).max().unwrap_or(0).max(7);
    let value_w = settings.iter().map(|s| s.1.len()).max().unwrap_or(0).max(5);
    println!("{:path_w$}  {:value_w$}  RULE", "SETTING", "VALUE");
    for (path, value, rule) in &settings {
        println!("{path:path_w$}  {value:value_w$}  {rule}");
    }
    // Citations of rulings that have no setting of their own (the draw on a flag claim
    // without mating material, checkmate, ...).
    let rulings = ruling_fields(rs);
    if !rulings.is_empty() {
        println!();
        let w = rulings.iter().map(|r| r.0.len()).max().unwrap_or(0).max(6);
        let rw = rulings.iter().map(|r| r.1.len()).max().unwrap_or(0).max(4);
        println!("{:w$}  {:rw$}  CITED FOR", "RULING", "RULE");
        for (path, rule) in &rulings {
            let used = explain::ruling_use(path).unwrap_or_default();
            println!("{path:w$}  {rule:rw$}  {used}");
        }
    }
    println!();
    let vars = variations(rs);
    if vars.is_empty() {
        println!("variations available: none");
    } else {
        println!("variations available (--variation NAME):");
        for (name, description) in vars {
            println!("  {name}: {description}");
        }
    }
    println!();
    println!("explain a rule: flagfall rules explain {} RULE", rs.id);
    Ok(ExitCode::SUCCESS)
}

/// Greedy word wrap to `width` columns, each line indented by `indent` spaces.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    wrap_hanging(text, indent, indent, width)
}

/// Greedy word wrap: the first line indented by `first` spaces, the others by `rest`.
fn wrap_hanging(text: &str, first: usize, rest: usize, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    let mut indent = first;
    for word in text.split_whitespace() {
        if !line.is_empty() && indent + line.len() + 1 + word.len() > width {
            out.push_str(&" ".repeat(indent));
            out.push_str(&line);
            out.push('\n');
            line.clear();
            indent = rest;
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&" ".repeat(indent));
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The settings of `rs` citing `citation`, each with its value where it is a setting
/// (a `*_rule` field has none: it is the citation itself).
fn citing(rs: &Ruleset, citation: &str) -> Vec<(String, Option<String>)> {
    let values: BTreeMap<String, String> = rs
        .settings()
        .into_iter()
        .map(|(path, value, _)| (path, value))
        .collect();
    explain::citing_settings(rs, citation)
        .into_iter()
        .map(|path| {
            let value = values.get(&path).cloned();
            (path, value)
        })
        .collect()
}

fn rule_list(source: &str) -> String {
    explain::rules(source)
        .into_iter()
        .map(|e| e.rule)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `rules explain ID` with no rule: every rule of the ruleset's text with its title and
/// how many settings of the ruleset cite it, then the laws; for a ruleset with no
/// explanations, the citations it uses.
fn index(loaded: &Loaded, json: bool) -> anyhow::Result<ExitCode> {
    let rs = &loaded.ruleset;
    let own = explain::rules(&rs.id);
    let laws = explain::rules(LAWS);
    let row = |e: &Explanation| {
        let n = explain::citing_settings(rs, &e.citation()).len();
        (e.citation(), e.title.clone(), e.modelled, n)
    };
    let rows: Vec<(String, String, bool, usize)> = own.iter().chain(laws.iter()).map(row).collect();
    let unexplained: Vec<(String, usize)> = if own.is_empty() {
        explain::citations(rs)
            .into_iter()
            .filter(|(c, _)| explain::lookup(&rs.id, c).is_none())
            .map(|(c, paths)| (c, paths.len()))
            .collect()
    } else {
        Vec::new()
    };
    if json {
        let rules: Vec<Value> = rows
            .iter()
            .map(|(c, t, m, n)| json!({"citation": c, "title": t, "modelled": m, "settings": n}))
            .collect();
        let other: Vec<Value> = unexplained
            .iter()
            .map(|(c, n)| json!({"citation": c, "settings": n}))
            .collect();
        let out = json!({"ruleset": rs.id, "rules": rules, "unexplained_citations": other});
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if own.is_empty() {
        println!(
            "Ruleset `{}` ({}) carries no explanations of its own.",
            rs.id,
            origin(loaded)
        );
    }
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (citation, title, modelled, n) in &rows {
        let mark = if *modelled { "" } else { " (not modelled)" };
        let cited = if *n == 0 {
            String::new()
        } else {
            format!(" [{n} setting{}]", if *n == 1 { "" } else { "s" })
        };
        println!("{citation:w$}  {title}{mark}{cited}");
    }
    if !unexplained.is_empty() {
        println!("\nCitations of {} without an explanation:", rs.id);
        for (citation, n) in &unexplained {
            println!(
                "  {citation} [{n} setting{}]",
                if *n == 1 { "" } else { "s" }
            );
        }
    }
    println!("\nexplain one: flagfall rules explain {} RULE", rs.id);
    Ok(ExitCode::SUCCESS)
}

fn explain_rule(loaded: &Loaded, rule: &str, json: bool) -> anyhow::Result<ExitCode> {
    let rs = &loaded.ruleset;
    if rule.trim().is_empty() {
        bail!("name a rule to explain, e.g. `7d` or `laws checkmate`");
    }
    let asked = RuleRef::parse(&rs.id, rule);
    let found = explain::lookup(&rs.id, rule);
    let citation = found
        .as_ref()
        .map(Explanation::citation)
        .unwrap_or_else(|| asked.citation());
    let settings = citing(rs, &citation);

    let mut notes = Vec::new();
    match &found {
        None if explain::has_explanations(&asked.source) => {
            let mut msg = format!(
                "`{}` has no rule `{}`. Rules of {}: {}",
                asked.source,
                asked.rule,
                asked.source,
                rule_list(&asked.source)
            );
            if asked.source != LAWS {
                msg.push_str(&format!("; laws: {}", rule_list(LAWS)));
            }
            bail!(msg);
        }
        None if settings.is_empty() => {
            let used: Vec<String> = explain::citations(rs).into_keys().collect();
            bail!(
                "ruleset `{}` ({}) carries no explanations, and none of its settings cites `{}`. \
                 Its citations: {}",
                rs.id,
                origin(loaded),
                citation,
                used.join(", ")
            );
        }
        None => notes.push(format!(
            "Ruleset `{}` ({}) carries no explanations of its own; below are its settings that cite `{}`.",
            rs.id,
            origin(loaded),
            citation
        )),
        Some(e) => {
            if loaded.file.is_some() && e.source != LAWS {
                notes.push(format!(
                    "\"How flagfall applies it\" describes the built-in `{}` ruleset; `{}` was {}: its own settings are listed below.",
                    e.source,
                    rs.id,
                    origin(loaded)
                ));
            }
            if e.source != rs.id && e.source != LAWS && settings.is_empty() {
                notes.push(format!(
                    "This rule belongs to `{}`; no setting of `{}` cites it.",
                    e.source, rs.id
                ));
            }
            if let Some(v) = &e.variation
                && !rs.applied_variations.contains(v)
            {
                notes.push(format!(
                    "This rule takes effect with the variation `{v}` (--variation {v})."
                ));
            }
        }
    }

    if json {
        let rows: Vec<Value> = settings
            .iter()
            .map(|(path, value)| {
                json!({
                    "path": path,
                    "value": value.as_deref().map(value_json),
                    "cited_for": explain::ruling_use(path),
                })
            })
            .collect();
        let out = json!({
            "ruleset": rs.id,
            "citation": citation,
            "explained": found.is_some(),
            "title": found.as_ref().map(|e| &e.title),
            "summary": found.as_ref().map(|e| &e.summary),
            "applies": found.as_ref().map(|e| &e.applies),
            "interpretation": found.as_ref().and_then(|e| e.interpretation.as_ref()),
            "modelled": found.as_ref().map(|e| e.modelled),
            "variation": found.as_ref().and_then(|e| e.variation.as_ref()),
            "notes": notes,
            "settings": rows,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }

    const WIDTH: usize = 88;
    let mut out = String::new();
    match &found {
        Some(e) => {
            out.push_str(&format!("{}: {}\n", citation, e.title));
            if !e.modelled {
                out.push_str("(not modelled by flagfall)\n");
            }
            out.push_str("\nWhat the rule says (paraphrased)\n");
            out.push_str(&wrap(&e.summary, 2, WIDTH));
            out.push_str("\nHow flagfall applies it\n");
            out.push_str(&wrap(&e.applies, 2, WIDTH));
            if let Some(i) = &e.interpretation {
                out.push_str("\nInterpretation\n");
                out.push_str(&wrap(i, 2, WIDTH));
            }
        }
        None => out.push_str(&format!("{citation}\n")),
    }
    for note in &notes {
        out.push('\n');
        out.push_str(&wrap(note, 0, WIDTH));
    }
    out.push_str(&format!(
        "\nSettings of {} citing {}{}\n",
        rs.id,
        citation,
        if rs.applied_variations.is_empty() {
            String::new()
        } else {
            format!(" (variations: {})", rs.applied_variations.join(", "))
        }
    ));
    if settings.is_empty() {
        out.push_str("  none\n");
    }
    for (path, value) in &settings {
        match (value, explain::ruling_use(path)) {
            (Some(v), _) => out.push_str(&format!("  {path} = {v}\n")),
            (None, Some(used)) => out.push_str(&wrap_hanging(
                &format!("{path}: cited for {used}"),
                2,
                6,
                WIDTH,
            )),
            (None, None) => out.push_str(&format!("  {path}\n")),
        }
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::{wrap, wrap_hanging};

    #[test]
    fn wrap_keeps_lines_within_width_and_all_words() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let w = wrap(text, 2, 20);
        for line in w.lines() {
            assert!(line.len() <= 20, "{line:?}");
            assert!(line.starts_with("  "));
        }
        let words: Vec<&str> = w.split_whitespace().collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrap("", 2, 20), "");
        let h = wrap_hanging(text, 2, 6, 20);
        let lines: Vec<&str> = h.lines().collect();
        assert!(lines[0].starts_with("  one") && lines[1].starts_with("      "));
        assert!(lines.iter().all(|l| l.len() <= 20));
    }
}
