//! Rule explanations: what each rule of the five rule texts says (paraphrased), how
//! flagfall applies it, and the interpretation chosen where the text is unclear.
//!
//! The data lives next to the rulesets, one file per rule text
//! (`rulesets/<id>.explain.toml`) plus `rulesets/laws.explain.toml` for the `laws <name>`
//! citations every ruleset inherits. Each file is an ordered list of `[[rule]]` entries:
//!
//! ```toml
//! source = "uscf-2020"
//!
//! [[rule]]
//! id = "7d"                        # the rule's own number in its text
//! title = "Claiming an illegal move"
//! summary = "..."                  # the rule in our own words, shorter than the text
//! applies = "..."                  # what flagfall does (settings, arbiter behaviour)
//! interpretation = "..."           # optional: the reading chosen where the text is unclear
//! modelled = false                 # optional (default true): the rule has no effect here
//! variation = "..."                # optional: `settings` are those of this variation
//! settings = ["illegal.first"]     # the settings of the built-in ruleset citing the rule
//! ```
//!
//! A citation is `<source> <rule>`, as in the ruleset files: `uscf-2020 7d`,
//! `laws checkmate`. [`RuleRef::parse`] reads what a user types (`7d`, `A.5.3`,
//! `uscf-2020 7d`, `laws checkmate`) relative to a ruleset. Which settings of a
//! particular ruleset cite a rule is computed from the ruleset itself
//! ([`citing_settings`]), so a user-loaded ruleset, or one with a variation applied, gets
//! the right list even though it carries no explanations of its own.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::ruleset::Ruleset;
use crate::schema;

/// The source name of the citations inherited from the ordinary laws of chess.
pub const LAWS: &str = "laws";

/// The explanation files as shipped: `(source, TOML text)`, in the order of docs/rules.md §0, laws
/// last.
pub const DATA: [(&str, &str); 6] = [
    (
        "uscf-2020",
        include_str!("../rulesets/uscf-2020.explain.toml"),
    ),
    (
        "uscf-classic",
        include_str!("../rulesets/uscf-classic.explain.toml"),
    ),
    (
        "club-ilc",
        include_str!("../rulesets/club-ilc.explain.toml"),
    ),
    ("fide-b3", include_str!("../rulesets/fide-b3.explain.toml")),
    (
        "blitz-2006",
        include_str!("../rulesets/blitz-2006.explain.toml"),
    ),
    (LAWS, include_str!("../rulesets/laws.explain.toml")),
];

/// One rule, explained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The rule text it belongs to: a built-in ruleset id, or [`LAWS`].
    pub source: String,
    /// The rule's number (or name, for laws) as cited: `7d`, `A.5.3`, `checkmate`.
    pub rule: String,
    pub title: String,
    /// The rule in flagfall's own words.
    pub summary: String,
    /// How flagfall applies it (settings, arbiter behaviour), or why it is not modelled.
    pub applies: String,
    /// The reading chosen where docs/rules.md or docs/arbiter.md marks an interpretation.
    pub interpretation: Option<String>,
    /// False when the rule has no effect in the program (`applies` says why).
    pub modelled: bool,
    /// When set, `settings` are those of the built-in ruleset with this variation applied.
    pub variation: Option<String>,
    /// The settings of the built-in ruleset that cite this rule (empty for laws, whose
    /// citing settings differ by ruleset).
    pub settings: Vec<String>,
}

impl Explanation {
    /// The full citation, as the ruleset files write it: `uscf-2020 7d`.
    pub fn citation(&self) -> String {
        format!("{} {}", self.source, self.rule)
    }
}

/// The shipped explanation data could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("explanation data `{source_name}.explain.toml` is not valid: {message}")]
    Data {
        source_name: String,
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileData {
    source: String,
    #[serde(default)]
    rule: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    title: String,
    summary: String,
    applies: String,
    #[serde(default)]
    interpretation: Option<String>,
    #[serde(default = "yes")]
    modelled: bool,
    #[serde(default)]
    variation: Option<String>,
    #[serde(default)]
    settings: Vec<String>,
}

fn yes() -> bool {
    true
}

/// Parse one explanation file; `source` must match the file's own `source`, and rule ids
/// must be unique within it.
pub fn parse(source: &str, text: &str) -> Result<Vec<Explanation>, ExplainError> {
    let err = |message: String| ExplainError::Data {
        source_name: source.to_string(),
        message,
    };
    let file: FileData = toml::from_str(text).map_err(|e| err(e.to_string()))?;
    if file.source != source {
        return Err(err(format!(
            "`source = \"{}\"` but the file is for `{source}`",
            file.source
        )));
    }
    let mut out: Vec<Explanation> = Vec::with_capacity(file.rule.len());
    for e in file.rule {
        if out.iter().any(|x| x.rule == e.id) {
            return Err(err(format!("rule `{}` is explained twice", e.id)));
        }
        if e.id.trim().is_empty() || e.title.trim().is_empty() || e.summary.trim().is_empty() {
            return Err(err(format!(
                "rule `{}`: id, title and summary must not be empty",
                e.id
            )));
        }
        out.push(Explanation {
            source: source.to_string(),
            rule: e.id,
            title: e.title,
            summary: e.summary,
            applies: e.applies,
            interpretation: e.interpretation,
            modelled: e.modelled,
            variation: e.variation,
            settings: e.settings,
        });
    }
    Ok(out)
}

/// Every shipped explanation, all sources, in file order.
pub fn all() -> Result<&'static [Explanation], ExplainError> {
    static ALL: OnceLock<Result<Vec<Explanation>, ExplainError>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut out = Vec::new();
        for (source, text) in DATA {
            out.extend(parse(source, text)?);
        }
        Ok(out)
    })
    .as_ref()
    .map(|v| v.as_slice())
    .map_err(Clone::clone)
}

/// Whether explanations are shipped for this source (a built-in id or `laws`).
pub fn has_explanations(source: &str) -> bool {
    DATA.iter().any(|(s, _)| *s == source)
}

/// The explanations of one source (a built-in ruleset id or `laws`), in the order of its
/// text. Empty for a source with no explanations (a user's ruleset).
pub fn rules(source: &str) -> Vec<Explanation> {
    all()
        .map(|all| all.iter().filter(|e| e.source == source).cloned().collect())
        .unwrap_or_default()
}

/// A rule as a user names it, resolved against a ruleset: which text, which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRef {
    /// A ruleset id or [`LAWS`].
    pub source: String,
    pub rule: String,
    /// True when the user wrote the source (`uscf-2020 7d`, `laws checkmate`).
    pub explicit: bool,
}

impl RuleRef {
    /// Read `text` (`7d`, `A.5.3`, `uscf-2020 7d`, `laws checkmate`, `2 variation`) as a
    /// rule of `ruleset_id` unless it starts with a source name (`laws`, a built-in id, or
    /// `ruleset_id` itself) followed by a rule. Whitespace runs count as one space.
    pub fn parse(ruleset_id: &str, text: &str) -> RuleRef {
        let words: Vec<&str> = text.split_whitespace().collect();
        if let [first, rest @ ..] = words.as_slice()
            && !rest.is_empty()
        {
            let known = first.eq_ignore_ascii_case(LAWS)
                || first.eq_ignore_ascii_case(ruleset_id)
                || DATA.iter().any(|(s, _)| first.eq_ignore_ascii_case(s));
            if known {
                return RuleRef {
                    source: first.to_ascii_lowercase(),
                    rule: rest.join(" "),
                    explicit: true,
                };
            }
        }
        RuleRef {
            source: ruleset_id.to_string(),
            rule: words.join(" "),
            explicit: false,
        }
    }

    /// The citation as the ruleset files write it.
    pub fn citation(&self) -> String {
        format!("{} {}", self.source, self.rule)
    }
}

/// Compare rule numbers ignoring case: `a.5.3` is `A.5.3`.
fn same_rule(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Compare rule numbers ignoring case and dots: `A53` is `A.5.3`, `B3` is `B.3`.
fn loosely_same_rule(a: &str, b: &str) -> bool {
    let strip = |s: &str| {
        s.chars()
            .filter(|c| *c != '.')
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    strip(a) == strip(b)
}

/// Find the explanation of `r` in its source: exact match (ignoring case) first, then a
/// unique match ignoring dots.
pub fn find(r: &RuleRef) -> Option<Explanation> {
    let candidates = rules(&r.source);
    if let Some(e) = candidates.iter().find(|e| same_rule(&e.rule, &r.rule)) {
        return Some(e.clone());
    }
    let mut loose = candidates
        .iter()
        .filter(|e| loosely_same_rule(&e.rule, &r.rule));
    match (loose.next(), loose.next()) {
        (Some(e), None) => Some(e.clone()),
        _ => None,
    }
}

/// The explanation of `rule` (as a user types it, see [`RuleRef::parse`]) for the ruleset
/// `ruleset_id`. A bare name that is not a rule of the ruleset's text is also looked up
/// among the laws (`checkmate`). `None` when nothing matches, or when the ruleset carries
/// no explanations and the rule is not a law.
pub fn lookup(ruleset_id: &str, rule: &str) -> Option<Explanation> {
    let r = RuleRef::parse(ruleset_id, rule);
    find(&r).or_else(|| {
        if r.explicit {
            None
        } else {
            find(&RuleRef {
                source: LAWS.to_string(),
                rule: r.rule.clone(),
                explicit: true,
            })
        }
    })
}

fn normalise_citation(c: &str) -> String {
    c.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

/// Every citation a ruleset uses, with the settings that carry it, in the order of
/// [`Ruleset::settings`] followed by the `*_rule` fields that name a citation (such as
/// `flags.no_material_rule`, the rule behind a draw on a flag claim without mating
/// material). Keys are the citations exactly as written in the ruleset.
pub fn citations(rs: &Ruleset) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut push = |citation: &str, path: String| {
        if citation.is_empty() {
            return;
        }
        let paths = out.entry(citation.to_string()).or_default();
        if !paths.contains(&path) {
            paths.push(path);
        }
    };
    for (path, _, rule) in rs.settings() {
        push(&rule, path);
    }
    for (path, citation) in rule_fields(rs) {
        push(&citation, path);
    }
    out
}

/// The fields of a ruleset that hold a citation (`flags.no_material_rule`,
/// `illegal.rule`, ...), as `(path, citation)`: the rows of [`schema::CITATIONS`] the
/// ruleset has, sorted by path. Penalty ladders and variations are left out:
/// [`Ruleset::settings`] reports ladders with their rule, and a variation's fields count
/// once it is applied.
pub fn rule_fields(rs: &Ruleset) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = schema::CITATIONS
        .iter()
        .filter_map(|c| (c.get)(rs).map(|v| (c.path.to_string(), v.to_string())))
        .collect();
    out.sort();
    out
}

/// What the arbiter cites a ruleset's citation field for (docs/arbiter.md, "Claims" and
/// "Citations of refusals"), by path: `flags.no_material_rule` is the rule of the draw
/// on a flag claim without mating material. `None` for a path that is not a citation
/// field (a plain setting such as `illegal.first`). The texts are those of
/// [`schema::CITATIONS`].
pub fn ruling_use(path: &str) -> Option<String> {
    if let Some(kind) = path.strip_prefix(schema::PENALTIES_PREFIX) {
        return Some(schema::penalty_cited_for(kind));
    }
    schema::citation(path).map(|c| c.cited_for.to_string())
}

/// The settings of `rs` that cite `citation` (compared ignoring case and extra spaces).
pub fn citing_settings(rs: &Ruleset, citation: &str) -> Vec<String> {
    let wanted = normalise_citation(citation);
    citations(rs)
        .into_iter()
        .filter(|(c, _)| normalise_citation(c) == wanted)
        .flat_map(|(_, paths)| paths)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::BUILTIN;
    use crate::ruleset::builtin_variants;
    use std::collections::BTreeSet;

    #[test]
    fn data_parses_with_one_file_per_builtin_and_laws() {
        let all = all().expect("explanation data parses");
        assert!(!all.is_empty());
        for (id, _) in BUILTIN {
            assert!(has_explanations(id), "{id} has no explanation file");
            assert!(!rules(id).is_empty(), "{id} has no explanations");
        }
        assert!(!rules(LAWS).is_empty());
        assert!(rules("my-club").is_empty());
        assert!(!has_explanations("my-club"));
    }

    /// The numbered rules of each text in `shared/rules/`, in order, as read from the
    /// texts (plus `intro`/`rating` where a ruleset cites an unnumbered section, and
    /// fide-b3's B.2, which B.4 names but the text omits).
    const NUMBERED: [(&str, &str); 5] = [
        (
            "uscf-2020",
            "intro rating 1 1a 1b 2 2a 2b 2c 3 3a 3b 4 5 6 6a 6b 6c 6d 6e 7 7a 7b 7c 7d 7e \
             8 8a 8b 8c 8d 9 10 11 12 13 14 15 16 17 18",
        ),
        ("uscf-classic", "intro 1 2 2a 2b 3 4 4a 4b 5 6"),
        ("club-ilc", "intro 1 2 3 3.1 3.2 4 4.1 4.2 4.3 5 6 7"),
        (
            "fide-b3",
            "B.1 B.2 B.3 B.4 A.2 A.3 A.5 A.5.1 A.5.1.1 A.5.1.2 A.5.2 A.5.3 A.5.4 A.5.5",
        ),
        (
            "blitz-2006",
            "1 2 3 4 5 6 6a 6b 6c 6d 7 7a 7a1 7a2 7a3 7a4 7a5 7b 8 8a 8b 8c 8d 8e 8f 8g 8h 8i \
             9 10 11 12 13 13a 13b 14 15 16 17 18 19 20 21 22 23",
        ),
    ];

    #[test]
    fn every_numbered_rule_of_every_text_is_explained_in_order() {
        for (id, numbers) in NUMBERED {
            let explained: Vec<String> = rules(id)
                .into_iter()
                .map(|e| e.rule)
                // Variations are extra entries, not numbered rules of the text.
                .filter(|r| !r.ends_with(" variation"))
                .collect();
            let expected: Vec<&str> = numbers.split_whitespace().collect();
            assert_eq!(explained, expected, "{id}");
        }
    }

    #[test]
    fn every_citation_of_every_builtin_is_explained() {
        let mut missing = Vec::new();
        for rs in builtin_variants() {
            for citation in citations(&rs).keys() {
                let r = RuleRef::parse(&rs.id, citation);
                assert!(
                    r.explicit,
                    "{}: citation `{citation}` names no source",
                    rs.id
                );
                if find(&r).is_none() {
                    missing.push(format!("{}: {citation}", rs.id));
                }
            }
        }
        assert!(missing.is_empty(), "unexplained citations: {missing:#?}");
    }

    #[test]
    fn every_explanations_settings_exist_and_are_exactly_the_citing_ones() {
        let mut problems = Vec::new();
        for (id, _) in BUILTIN {
            let base = Ruleset::builtin(id).expect("built-in");
            for e in rules(id) {
                let rs = match &e.variation {
                    Some(v) => base.with_variation(v).expect("variation exists"),
                    None => base.clone(),
                };
                let declared: BTreeSet<String> = e.settings.iter().cloned().collect();
                assert_eq!(
                    declared.len(),
                    e.settings.len(),
                    "{}: duplicates",
                    e.citation()
                );
                let all_paths: BTreeSet<String> = citations(&rs).into_values().flatten().collect();
                for s in &declared {
                    if !all_paths.contains(s) {
                        problems.push(format!("{}: `{s}` is not a setting of {id}", e.citation()));
                    }
                }
                let actual: BTreeSet<String> =
                    citing_settings(&rs, &e.citation()).into_iter().collect();
                if declared != actual {
                    problems.push(format!(
                        "{}: declared {:?}, but the ruleset's citing settings are {:?}",
                        e.citation(),
                        declared,
                        actual
                    ));
                }
            }
        }
        for e in rules(LAWS) {
            assert!(
                e.settings.is_empty(),
                "{}: laws list no settings",
                e.citation()
            );
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn explanations_are_complete_sentences_and_unmodelled_ones_say_so() {
        for e in all().expect("data") {
            for (field, text) in [("summary", &e.summary), ("applies", &e.applies)] {
                assert!(
                    text.trim_end().ends_with('.'),
                    "{} {field} should be sentences",
                    e.citation()
                );
            }
            if !e.modelled {
                assert!(
                    e.applies.starts_with("Not modelled"),
                    "{}: an unmodelled rule's `applies` starts with \"Not modelled\"",
                    e.citation()
                );
                assert!(
                    e.settings.is_empty(),
                    "{}: unmodelled but cited",
                    e.citation()
                );
            }
        }
    }

    #[test]
    fn every_citation_field_says_what_it_is_cited_for() {
        for rs in builtin_variants() {
            for (path, _) in rule_fields(&rs) {
                assert!(ruling_use(&path).is_some(), "{}: {path}", rs.id);
            }
            for kind in rs.penalties.keys() {
                let path = format!("penalties.{}", kind.name());
                assert!(ruling_use(&path).is_some_and(|u| u.contains(kind.name())));
            }
        }
        assert_eq!(ruling_use("illegal.first"), None);
    }

    #[test]
    fn rule_refs_parse_bare_full_and_laws_forms() {
        assert_eq!(
            RuleRef::parse("uscf-2020", "7d"),
            RuleRef {
                source: "uscf-2020".into(),
                rule: "7d".into(),
                explicit: false
            }
        );
        let full = RuleRef::parse("uscf-2020", "  fide-b3   A.5.3 ");
        assert_eq!(
            (full.source.as_str(), full.rule.as_str()),
            ("fide-b3", "A.5.3")
        );
        assert!(full.explicit);
        let laws = RuleRef::parse("fide-b3", "LAWS checkmate");
        assert_eq!(laws.citation(), "laws checkmate");
        let user = RuleRef::parse("my-club", "my-club 12");
        assert_eq!(
            (user.source.as_str(), user.rule.as_str()),
            ("my-club", "12")
        );
        let variation = RuleRef::parse("uscf-classic", "2 variation");
        assert_eq!(variation.citation(), "uscf-classic 2 variation");
    }

    #[test]
    fn lookup_finds_rules_by_number_citation_case_and_dots() {
        let e = lookup("uscf-2020", "7d").expect("7d");
        assert_eq!(e.citation(), "uscf-2020 7d");
        assert!(e.settings.contains(&"illegal.rule".to_string()));
        assert_eq!(lookup("uscf-2020", "uscf-2020 7D"), Some(e));
        assert_eq!(
            lookup("fide-b3", "a53").map(|e| e.citation()),
            Some("fide-b3 A.5.3".to_string())
        );
        assert_eq!(
            lookup("fide-b3", "B3").map(|e| e.citation()),
            Some("fide-b3 B.3".to_string())
        );
        // A bare law name falls through to the laws; a full citation does not.
        assert_eq!(
            lookup("uscf-2020", "checkmate").map(|e| e.citation()),
            Some("laws checkmate".to_string())
        );
        assert_eq!(lookup("uscf-2020", "uscf-2020 checkmate"), None);
        // Another text's rule, named in full, is found from any ruleset.
        assert_eq!(
            lookup("uscf-2020", "blitz-2006 16").map(|e| e.source),
            Some("blitz-2006".to_string())
        );
        assert_eq!(lookup("uscf-2020", "7z"), None);
        assert_eq!(lookup("uscf-2020", ""), None);
        // A user's ruleset has no explanations of its own, but laws still resolve.
        assert_eq!(lookup("my-club", "7d"), None);
        assert!(lookup("my-club", "laws stalemate").is_some());
    }

    /// Every choice docs/rules.md or docs/arbiter.md marks **interpretation**, with the rules
    /// whose explanation must record it and a phrase that identifies it.
    const INTERPRETATIONS: [(&str, &[&str], &str); 12] = [
        // docs/rules.md §2.12: under fide-b3 a press without a move hands over the move and,
        // unclaimed, stands as a move that moved nothing.
        (
            "fide press without a move",
            &["fide-b3 A.5.2"],
            "hands over the move",
        ),
        // docs/rules.md §5.9: the set-up deadline binds corrections of the setting, not
        // the director's own time changes; the silent texts let the director adjust time.
        (
            "director's time change",
            &[
                "uscf-2020 3",
                "uscf-classic 3",
                "blitz-2006 3",
                "fide-b3 A.5.1.1",
                "uscf-classic intro",
                "club-ilc intro",
            ],
            "director's own decision",
        ),
        // docs/rules.md §5.7: the silent texts let a player call the director.
        (
            "call the director",
            &["uscf-classic intro", "club-ilc intro"],
            "call the director",
        ),
        // docs/rules.md §3.3: two knights are not mating material in US-based rulesets.
        (
            "two knights",
            &["uscf-2020 7c", "uscf-classic 2", "club-ilc 3"],
            "two knights",
        ),
        // docs/rules.md §4.6 and docs/arbiter.md: a denied drawn-position appeal's minute.
        ("denied appeal", &["blitz-2006 13b"], "opponent's clock"),
        // docs/rules.md §6.2: mirrored castling, not Chess960.
        (
            "mirror castling",
            &["uscf-2020 3a", "blitz-2006 19"],
            "Chess960",
        ),
        // docs/arbiter.md: only the player on move completes a move.
        (
            "move out of turn",
            &[
                "uscf-2020 14",
                "uscf-classic 2",
                "club-ilc 3.1",
                "fide-b3 A.5.2",
                "blitz-2006 15",
            ],
            "Only the player on move",
        ),
        // docs/arbiter.md: a press without a move, by the player on move, hands the
        // clock to the opponent (the necessity is not checked; silent texts follow US Chess).
        (
            "press without a move",
            &[
                "uscf-2020 9",
                "uscf-2020 16",
                "blitz-2006 9",
                "uscf-classic intro",
                "club-ilc intro",
            ],
            "without a move",
        ),
        // docs/arbiter.md: the arbiter enforces touch move after a retraction.
        (
            "touch move enforced",
            &["uscf-2020 14", "club-ilc 3.1", "uscf-classic intro"],
            "enforces",
        ),
        // docs/arbiter.md: a wrong flag claim costs nothing.
        (
            "wrong flag claim",
            &["uscf-2020 7c", "blitz-2006 7a3"],
            "costs nothing",
        ),
        // docs/arbiter.md: an undetermined helpmate search counts as able to mate.
        ("undetermined", &["fide-b3 A.5.3"], "undetermined"),
        // docs/arbiter.md: a wrong repetition claim's announced move is played.
        (
            "intended move played",
            &["uscf-2020 8", "laws threefold"],
            "announced move",
        ),
    ];

    #[test]
    fn interpretations_from_the_spec_are_recorded() {
        for (what, citations, phrase) in INTERPRETATIONS {
            for citation in citations {
                let r = RuleRef::parse("", citation);
                let e = find(&r).unwrap_or_else(|| panic!("{what}: no {citation}"));
                let i = e.interpretation.unwrap_or_default();
                assert!(
                    i.to_lowercase().contains(&phrase.to_lowercase()),
                    "{what}: {citation} interpretation lacks {phrase:?}: {i}"
                );
            }
        }
    }

    /// The project's own account of the rules, which the explanations cite by section.
    const RULES_DOC: &str = include_str!("../../../docs/rules.md");

    /// The section number that starts `text` (`3.2` in `3.2 Mating...`), if any.
    fn section_at(text: &str) -> Option<&str> {
        let end = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        let number = text[..end].trim_end_matches('.');
        (!number.is_empty()).then_some(number)
    }

    /// The sections docs/rules.md defines: `## §N` headings and `**§N.M` or
    /// `**Interpretation (§N.M)` paragraph openings.
    fn defined_sections() -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for line in RULES_DOC.lines() {
            for opening in ["## §", "**§", "**Interpretation (§"] {
                if let Some(rest) = line.strip_prefix(opening)
                    && let Some(n) = section_at(rest)
                {
                    out.insert(n.to_string());
                }
            }
        }
        out
    }

    #[test]
    fn explanations_cite_sections_that_docs_rules_md_defines() {
        let defined = defined_sections();
        for n in ["0", "1", "2", "3", "4", "5", "6", "7", "8", "3.3", "6.2"] {
            assert!(defined.contains(n), "docs/rules.md lacks §{n}: {defined:?}");
        }
        let mut cited = 0;
        for e in all().expect("data") {
            let texts = [
                Some(&e.summary),
                Some(&e.applies),
                e.interpretation.as_ref(),
            ];
            for text in texts.into_iter().flatten() {
                for (i, m) in text.match_indices("docs/rules.md §") {
                    let n = section_at(&text[i + m.len()..]).unwrap_or("");
                    assert!(
                        defined.contains(n),
                        "{} cites docs/rules.md §{n}, which does not exist",
                        e.citation()
                    );
                    cited += 1;
                }
            }
        }
        assert!(cited > 0, "the explanations cite docs/rules.md");
    }

    #[test]
    fn every_interpretation_listed_in_docs_rules_md_is_recorded() {
        let defined = defined_sections();
        let mut rows = 0;
        for line in RULES_DOC.lines() {
            // Rows of the §8 table; its header row has no section number.
            let Some(rest) = line.strip_prefix("| §").filter(|r| section_at(r).is_some()) else {
                continue;
            };
            let cells: Vec<&str> = rest.split('|').map(str::trim).collect();
            let [section, what, recorded_at, ..] = cells.as_slice() else {
                panic!("docs/rules.md §8: a row needs three cells: {line}");
            };
            assert!(
                defined.contains(*section),
                "§{section} ({what}) is not defined"
            );
            let citations: Vec<&str> = recorded_at
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|c| !c.is_empty())
                .collect();
            assert!(!citations.is_empty(), "§{section}: no rule named");
            for citation in citations {
                let e = find(&RuleRef::parse("", citation))
                    .unwrap_or_else(|| panic!("§{section}: no explanation of {citation}"));
                assert!(
                    e.interpretation.is_some_and(|i| !i.trim().is_empty()),
                    "§{section} ({what}): {citation} records no interpretation"
                );
            }
            rows += 1;
        }
        assert!(rows >= 10, "docs/rules.md §8 lists the interpretations");
    }

    #[test]
    fn citing_settings_follow_variations_and_user_rulesets() {
        let classic = Ruleset::builtin("uscf-classic").expect("built-in");
        assert!(citing_settings(&classic, "uscf-classic 2").contains(&"illegal.first".into()));
        assert!(citing_settings(&classic, "uscf-classic 2 variation").is_empty());
        let varied = classic
            .with_variation("illegal_move_one_minute")
            .expect("variation");
        assert!(!citing_settings(&varied, "uscf-classic 2").contains(&"illegal.first".into()));
        assert!(
            citing_settings(&varied, "USCF-CLASSIC  2 variation").contains(&"illegal.first".into())
        );

        let text = BUILTIN[0]
            .1
            .replace("id = \"uscf-2020\"", "id = \"my-club\"")
            .replace("\"uscf-2020 7d\"", "\"my-club 12\"");
        let user = Ruleset::from_toml(&text).expect("user ruleset parses");
        let paths = citing_settings(&user, "my-club 12");
        assert!(paths.contains(&"illegal.rule".to_string()), "{paths:?}");
        assert!(paths.contains(&"illegal.king_adjacent_trap_rule".to_string()));
        assert!(citing_settings(&user, "uscf-2020 7d").is_empty());
        // Rule fields that no setting row reports are still found.
        assert_eq!(
            citing_settings(&user, "uscf-2020 8c"),
            vec!["flags.both_flags_rule".to_string()]
        );
    }

    #[test]
    fn bad_data_is_a_typed_error() {
        assert!(matches!(
            parse("x", "source = 3"),
            Err(ExplainError::Data { .. })
        ));
        assert!(parse("x", "source = \"y\"").is_err(), "source must match");
        let twice = "source = \"x\"\n[[rule]]\nid = \"1\"\ntitle = \"t\"\nsummary = \"s.\"\napplies = \"a.\"\n\
                     [[rule]]\nid = \"1\"\ntitle = \"t\"\nsummary = \"s.\"\napplies = \"a.\"\n";
        let err = parse("x", twice).expect_err("duplicate id");
        assert!(err.to_string().contains("explained twice"), "{err}");
        let unknown = "source = \"x\"\n[[rule]]\nid = \"1\"\ntitle = \"t\"\nsummary = \"s.\"\napplies = \"a.\"\nfoo = 1\n";
        assert!(parse("x", unknown).is_err(), "unknown fields are rejected");
    }
}
