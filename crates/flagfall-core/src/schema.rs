//! The ruleset schema in one place: every setting of a [`Ruleset`] with the field that
//! cites its rule, and every citation field with what the arbiter cites it for.
//!
//! `Ruleset::settings` (`flagfall rules show`), [`crate::explain::rule_fields`],
//! [`crate::explain::citations`] and [`crate::explain::ruling_use`] are all derived from
//! the two tables below, [`SETTINGS`] and [`CITATIONS`]. The rows are written with two
//! small macros that take the field itself (`draws.ilc`), so a row names a real field of
//! the ruleset types or does not compile, and a setting row cannot be written without the
//! field that cites its rule.
//!
//! # Adding a setting
//!
//! 1. Add the field to its section struct in `ruleset.rs` (with `#[serde(default = ...)]`
//!    if user rulesets written before it must still load).
//! 2. Give it a value and a citation in each of the five `rulesets/*.toml`.
//! 3. Add one row here: `setting!(section.key, cited by <rule field>)` in [`SETTINGS`],
//!    and, if the setting brings its own citation field, a
//!    `citation!(section.key_rule, "what the arbiter cites it for")` row in [`CITATIONS`].
//! 4. Make sure the rule it cites is explained in `rulesets/<id>.explain.toml`.
//!
//! The tests below walk the TOML of all five built-in rulesets (and each of their
//! variations): a field that no row covers, a setting whose citation is empty or names
//! another text, or a citation without an explanation fails them. Penalty ladders are a
//! map keyed by [`crate::ruleset::OffenceKind`], not fields, and are reported one per kind.

use serde::Serialize;

use crate::ruleset::Ruleset;

/// One setting: a behaviour the arbiter applies.
#[derive(Debug, Clone, Copy)]
pub struct SettingSpec {
    /// `section.key`, as in the ruleset files: `draws.ilc`.
    pub path: &'static str,
    /// The setting's value as TOML text (`true`, `60000`, `"loss"`).
    pub value: fn(&Ruleset) -> String,
    /// The path of the citation field that covers the setting: `draws.ilc_rule`.
    pub rule_path: &'static str,
    /// The citation itself, read from that field (`None` when an optional citation field
    /// is absent from a user's ruleset).
    pub rule: fn(&Ruleset) -> Option<&str>,
}

/// One citation field: the rule behind some rulings.
#[derive(Debug, Clone, Copy)]
pub struct CitationSpec {
    /// `section.key`: `flags.no_material_rule`.
    pub path: &'static str,
    /// The citation, when the ruleset has the field (some are optional).
    pub get: fn(&Ruleset) -> Option<&str>,
    /// What the arbiter cites it for (docs/arbiter.md, "Claims" and "Citations of
    /// refusals").
    pub cited_for: &'static str,
}

/// A citation field's value, whether the field is required or optional.
trait CitationField {
    fn citation(&self) -> Option<&str>;
}

impl CitationField for String {
    fn citation(&self) -> Option<&str> {
        Some(self)
    }
}

impl CitationField for Option<String> {
    fn citation(&self) -> Option<&str> {
        self.as_deref()
    }
}

/// A value as the ruleset files write it.
pub(crate) fn value_text<T: Serialize + ?Sized>(value: &T) -> String {
    match toml::Value::try_from(value) {
        Ok(v) => v.to_string(),
        Err(e) => format!("(not representable in TOML: {e})"),
    }
}

/// `setting!(section.key, cited by rule_field)`: a [`SettingSpec`] row; the citation field
/// is in the same section.
macro_rules! setting {
    ($section:ident . $key:ident, cited by $rule:ident) => {
        SettingSpec {
            path: concat!(stringify!($section), ".", stringify!($key)),
            value: |rs| value_text(&rs.$section.$key),
            rule_path: concat!(stringify!($section), ".", stringify!($rule)),
            rule: |rs| rs.$section.$rule.citation(),
        }
    };
}

/// `citation!(section.key, "cited for")`: a [`CitationSpec`] row.
macro_rules! citation {
    ($section:ident . $key:ident, $cited_for:expr) => {
        CitationSpec {
            path: concat!(stringify!($section), ".", stringify!($key)),
            get: |rs| rs.$section.$key.citation(),
            cited_for: $cited_for,
        }
    };
}

/// Every setting of a ruleset except the penalty ladders, in the order of the types.
pub const SETTINGS: &[SettingSpec] = &[
    setting!(time.policy, cited by policy_rule),
    setting!(time.setup_moves, cited by setup_rule),
    setting!(time.reduce_excess_after_setup, cited by setup_rule),
    setting!(flags.auto_flag_default, cited by flag_rule),
    setting!(moves.retract_legal, cited by retract_rule),
    setting!(moves.touch_move, cited by touch_move_rule),
    setting!(moves.setup_castling, cited by setup_castling_rule),
    setting!(moves.press_without_move, cited by press_without_move_rule),
    setting!(illegal.window, cited by window_rule),
    setting!(illegal.first, cited by rule),
    setting!(illegal.later, cited by rule),
    setting!(illegal.claim_by_king_capture, cited by rule),
    setting!(illegal.king_may_capture_king, cited by rule),
    setting!(illegal.king_adjacent_trap, cited by king_adjacent_trap_rule),
    setting!(illegal.arbiter_may_call, cited by rule),
    setting!(material.definition, cited by rule),
    setting!(draws.wrong_claim_penalty_ms, cited by wrong_claim_rule),
    setting!(draws.ilc, cited by ilc_rule),
    setting!(draws.ilc_max_remaining_ms, cited by ilc_rule),
    setting!(draws.ilc_denied_claimant_ms, cited by ilc_rule),
    setting!(draws.draw_positions, cited by draw_positions_rule),
    setting!(draws.dead_position, cited by dead_position_rule),
    setting!(draws.illegal_position_after_next_move, cited by illegal_position_rule),
    setting!(director.adjust_time, cited by adjust_time_rule),
];

/// Every citation field of a ruleset, in the order of the types, with what the arbiter
/// cites it for.
pub const CITATIONS: &[CitationSpec] = &[
    citation!(time.policy_rule, "accepting or rejecting a time control"),
    citation!(
        time.rating_rule,
        "whether an accepted time control is ratable"
    ),
    citation!(
        time.setup_rule,
        "correcting the clock setting, and refusing it after the set-up window"
    ),
    citation!(
        flags.flag_rule,
        "a win on time, and rejecting a flag claim when the opponent's flag is up"
    ),
    citation!(
        flags.no_material_rule,
        "the draw on a flag (claimed or automatic) when the side that would win has no mating material"
    ),
    citation!(flags.both_flags_rule, "the draw when both flags are down"),
    citation!(
        flags.void_rule,
        "voiding a flag claim made with the claimant's own flag down"
    ),
    citation!(
        flags.auto_flag_rule,
        "ending the game at a flag fall under automatic flagging"
    ),
    citation!(moves.retract_rule, "refusing to take back a legal move"),
    citation!(
        moves.touch_move_rule,
        "refusing another piece after a retracted or reinstated illegal move"
    ),
    citation!(
        moves.completed_rule,
        "completing a move by the press, and refusing a move out of turn, a second move on \
         the board, a physically impossible move, or a press or retraction with no move"
    ),
    citation!(
        moves.setup_castling_rule,
        "castling with a wrongly set-up king or rook"
    ),
    citation!(
        moves.press_without_move_rule,
        "pressing the clock with no move on the board: handing the time to the opponent, \
         or an illegal move the opponent may claim"
    ),
    citation!(
        illegal.window_rule,
        "refusing an illegal-move claim after its window closed"
    ),
    citation!(
        illegal.rule,
        "the result or penalty of a correct illegal-move claim"
    ),
    citation!(
        illegal.no_material_rule,
        "the draw on a correct illegal-move claim by a player without mating material"
    ),
    citation!(
        illegal.king_adjacent_trap_rule,
        "the king-adjacent trap, and refusing a king taking the king where forbidden"
    ),
    citation!(
        illegal.simultaneous_rule,
        "simultaneous flag and illegal-move claims"
    ),
    citation!(results.checkmate_rule, "the win by checkmate"),
    citation!(results.resignation_rule, "the win by resignation"),
    citation!(
        material.rule,
        "the mating-material test on flag and illegal-move claims"
    ),
    citation!(
        draws.agreement_rule,
        "the draw by agreement, and refusing an accept or decline with no offer standing"
    ),
    citation!(draws.stalemate_rule, "the draw by stalemate"),
    citation!(
        draws.threefold_rule,
        "the draw by repetition, and refusing a claim by the player not on move"
    ),
    citation!(
        draws.fifty_rule,
        "the fifty-move draw, and refusing a claim by the player not on move"
    ),
    citation!(
        draws.wrong_claim_rule,
        "the minute for a wrong repetition or fifty-move claim"
    ),
    citation!(
        draws.ilc_rule,
        "ILC claims: refusing them where not allowed or outside their conditions, granting \
         them, and the minute a denied claim costs"
    ),
    citation!(
        draws.draw_positions_rule,
        "drawn-position appeals: refusing them where not allowed, the recommendation and \
         the draw when no pattern has a rule of its own (or the opponent cannot mate)"
    ),
    citation!(
        draws.draw_position_denied_rule,
        "the minute for a denied drawn-position appeal"
    ),
    citation!(
        draws.identical_pieces_rule,
        "the recommendation on a drawn-position claim with one identical piece each, and \
         the draw when it is granted"
    ),
    citation!(
        draws.opposite_bishops_rule,
        "the recommendation on a drawn-position claim with opposite-coloured bishops, and \
         the draw when it is granted"
    ),
    citation!(
        draws.king_before_pawn_rule,
        "the recommendation on a drawn-position claim with the king before the pawn, and \
         the draw when it is granted"
    ),
    citation!(
        draws.rook_pawn_blockaded_rule,
        "the recommendation on a drawn-position claim with a blockaded rook pawn, and the \
         draw when it is granted"
    ),
    citation!(
        draws.dead_position_rule,
        "the automatic draw in a dead position"
    ),
    citation!(
        draws.illegal_position_rule,
        "the draw when an illegal position is still on the board after the next move"
    ),
    citation!(
        director.rule,
        "director actions, and refusing a player's director action or anything while a \
         claim waits for the director"
    ),
    citation!(director.result_rule, "a result declared by the director"),
    citation!(director.cancel_rule, "cancelling a game for a replay"),
    citation!(
        director.call_rule,
        "a player stopping the clock to call the director, and refusing a second call while \
         one is pending"
    ),
    citation!(
        director.adjust_time_rule,
        "a time change the director decides on, at any moment of the game"
    ),
];

/// The path of a penalty ladder's row: `penalties.two_hands`.
pub const PENALTIES_PREFIX: &str = "penalties.";

/// What the arbiter cites a penalty ladder's rule for.
pub fn penalty_cited_for(kind: &str) -> String {
    format!("the penalty ladder for a `{kind}` offence, and refusing it where it is no offence")
}

/// The setting row for a path, if it is one.
pub fn setting(path: &str) -> Option<&'static SettingSpec> {
    SETTINGS.iter().find(|s| s.path == path)
}

/// The citation row for a path, if it is one.
pub fn citation(path: &str) -> Option<&'static CitationSpec> {
    CITATIONS.iter().find(|c| c.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::{RuleRef, find};
    use crate::ruleset::builtin_variants;
    use std::collections::BTreeSet;

    #[test]
    fn the_tables_cover_every_field_of_every_builtin_toml() {
        let mut problems = Vec::new();
        let mut seen = BTreeSet::new();
        for rs in builtin_variants() {
            let table = toml::Table::try_from(&rs).expect("a ruleset serialises to TOML");
            for (section, value) in &table {
                // Top-level scalars (id, name, source, applied variations) are not settings.
                let toml::Value::Table(fields) = value else {
                    continue;
                };
                if section == "variations" || section == "penalties" {
                    continue;
                }
                for (key, v) in fields {
                    let path = format!("{section}.{key}");
                    seen.insert(path.clone());
                    if let Some(c) = citation(&path) {
                        if (c.get)(&rs) != v.as_str() {
                            problems.push(format!("{}: {path} reads another field", rs.id));
                        }
                    } else if let Some(s) = setting(&path) {
                        if (s.value)(&rs) != v.to_string() {
                            problems.push(format!("{}: {path} reads another field", rs.id));
                        }
                    } else {
                        problems.push(format!(
                            "{}: {path} is in no row: add `setting!({path}, cited by ...)` to \
                             SETTINGS or `citation!({path}, \"...\")` to CITATIONS",
                            rs.id
                        ));
                    }
                }
            }
        }
        for path in SETTINGS
            .iter()
            .map(|s| s.path)
            .chain(CITATIONS.iter().map(|c| c.path))
        {
            if !seen.contains(path) {
                problems.push(format!("{path} is in no built-in ruleset"));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn rows_are_unique_and_citation_rows_are_rule_fields() {
        let mut paths = BTreeSet::new();
        for path in SETTINGS
            .iter()
            .map(|s| s.path)
            .chain(CITATIONS.iter().map(|c| c.path))
        {
            assert!(paths.insert(path), "{path} has two rows");
        }
        for s in SETTINGS {
            assert!(!s.path.ends_with("rule"), "{}: a citation field", s.path);
            assert!(
                citation(s.rule_path).is_some(),
                "{} is cited by {}, which is no citation row",
                s.path,
                s.rule_path
            );
        }
        for c in CITATIONS {
            assert!(c.path.ends_with("rule"), "{}: not a citation field", c.path);
            assert!(
                !c.cited_for.trim().is_empty(),
                "{}: cited for nothing",
                c.path
            );
        }
    }

    #[test]
    fn every_setting_of_every_builtin_has_its_own_explained_citation() {
        let mut problems = Vec::new();
        for rs in builtin_variants() {
            for s in SETTINGS {
                let rule = (s.rule)(&rs).unwrap_or("");
                if rule.is_empty() {
                    problems.push(format!("{}: {} has no citation", rs.id, s.path));
                    continue;
                }
                if !(rule.starts_with(&format!("{} ", rs.id)) || rule.starts_with("laws ")) {
                    problems.push(format!("{}: {} cites `{rule}`", rs.id, s.path));
                }
                if find(&RuleRef::parse(&rs.id, rule)).is_none() {
                    problems.push(format!("{}: {} cites unexplained `{rule}`", rs.id, s.path));
                }
            }
            for (kind, ladder) in &rs.penalties {
                if find(&RuleRef::parse(&rs.id, &ladder.rule)).is_none() {
                    problems.push(format!(
                        "{}: {PENALTIES_PREFIX}{} cites unexplained `{}`",
                        rs.id,
                        kind.name(),
                        ladder.rule
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn settings_read_their_field_and_its_citation() {
        let rs = Ruleset::builtin("uscf-2020").expect("built-in");
        let ilc = setting("draws.ilc").expect("a row");
        assert_eq!((ilc.value)(&rs), "false");
        assert_eq!(ilc.rule_path, "draws.ilc_rule");
        assert_eq!((ilc.rule)(&rs), Some("uscf-2020 8d"));
        let window = setting("illegal.window").expect("a row");
        assert_eq!((window.value)(&rs), "\"own_move_made\"");
        let mut user = rs.clone();
        user.draws.illegal_position_rule = None;
        let row = setting("draws.illegal_position_after_next_move").expect("a row");
        assert_eq!((row.rule)(&user), None);
        assert_eq!(setting("draws.ilc_rule").map(|s| s.path), None);
    }
}
