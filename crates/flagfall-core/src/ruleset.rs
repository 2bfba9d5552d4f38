//! Rulesets as data.
//!
//! A ruleset is a TOML file (see `crates/flagfall-core/rulesets/`): every behaviour the
//! arbiter applies is a setting, and every setting carries the citation of the rule it
//! comes from, in the form `<ruleset> <rule>` (`uscf-2020 7d`) or `laws <name>` for the
//! ordinary laws of chess that every ruleset inherits. The five built-in rulesets are
//! compiled in; a user may load a sixth from a file (an event's posted variations), and
//! a ruleset may carry named variations that override some of its settings.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::CastlingSetupRule;
use crate::clock::MAX_TIME_CHANGE_MS;
use crate::schema;
use crate::timecontrol::TimeControl;

/// The built-in rulesets, as shipped: `(id, TOML text)`.
pub const BUILTIN: [(&str, &str); 5] = [
    ("uscf-2020", include_str!("../rulesets/uscf-2020.toml")),
    (
        "uscf-classic",
        include_str!("../rulesets/uscf-classic.toml"),
    ),
    ("club-ilc", include_str!("../rulesets/club-ilc.toml")),
    ("fide-b3", include_str!("../rulesets/fide-b3.toml")),
    ("blitz-2006", include_str!("../rulesets/blitz-2006.toml")),
];

/// Why a ruleset could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum RulesetError {
    #[error(
        "unknown ruleset `{0}` (built in: uscf-2020, uscf-classic, club-ilc, fide-b3, blitz-2006)"
    )]
    Unknown(String),
    #[error("ruleset file is not valid: {0}")]
    Toml(String),
    #[error("ruleset `{ruleset}`: {problem}")]
    Invalid { ruleset: String, problem: String },
    #[error("ruleset `{ruleset}` has no variation `{variation}` (it has: {known})")]
    UnknownVariation {
        ruleset: String,
        variation: String,
        known: String,
    },
}

/// How a ruleset judges a time control (docs/rules.md §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimePolicy {
    /// US Chess: one sudden-death control of 1 to 10 minutes total.
    Us,
    /// The earlier US Chess chapter: one sudden-death control of 5 to 10 minutes of
    /// total playing time (uscf-classic intro).
    UsClassic,
    /// FIDE B.1: base + 60 × increment ≤ 10 minutes.
    Fide,
    /// blitz-2006 1: five minutes, no delay of any kind.
    FiveMinutes,
}

/// What pressing the clock with no move on the board means (docs/arbiter.md, "Moves").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PressWithoutMove {
    /// Refused: nothing happens (no ruleset text gives the press a meaning).
    Refused,
    /// The player on move may press without moving so that the opponent puts displaced
    /// pieces back (or finishes a promotion) on his own time; the turn stays, and the
    /// opponent presses back when done (uscf-2020 9 and 16, blitz-2006 9).
    OpponentTime,
    /// Pressing without a move is an illegal move (Laws 7.5.3, applied in blitz through
    /// fide-b3 A.5.2) that hands over the move: the opponent, on move, may claim it with
    /// the illegal-move penalties, or play on, and then it stands.
    IllegalMove,
}

/// When the claim window on an opponent's completed illegal move closes (docs/rules.md §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalWindow {
    /// As soon as the claimant makes a move on the board (uscf-2020 7d, fide-b3 A.5.2).
    OwnMoveMade,
    /// When the claimant completes (presses the clock after) their next move
    /// (uscf-classic 2, club-ilc 3, blitz-2006 14).
    OwnMoveCompleted,
}

/// What a correct illegal-move claim gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalPenalty {
    /// The claimant wins (or draws without mating material).
    Loss,
    /// One minute to the claimant, the position before the illegal move reinstated, and
    /// the offender must move the same piece if it can (fide-b3 A.3; uscf-classic variation).
    MinuteAndReinstate,
}

/// How mating material is defined (docs/rules.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaterialDefinition {
    /// US Chess piece count: two minor pieces, a pawn, a rook or a queen; two knights
    /// against a lone king are not enough (interpretation, docs/rules.md §3.3).
    UsCount,
    /// FIDE: can checkmate by any possible series of legal moves (helpmate search).
    FideAnySeries,
}

/// One step of a penalty ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PenaltyStep {
    Warning,
    /// A warning, but one minute to the opponent if the offender's flag is down (blitz-2006 9).
    WarningOrMinuteIfFlagDown,
    OpponentPlusMinute,
    OffenderMinusMinute,
    Forfeit,
    /// The act is not an offence under this ruleset (blitz-2006 15: no touch move).
    NotAnOffence,
}

/// The kinds of infraction a director records (docs/game-script.md §3, `offence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffenceKind {
    TwoHands,
    DisplacedPieces,
    KnockedClock,
    TouchMove,
    Other,
}

impl OffenceKind {
    pub const ALL: [OffenceKind; 5] = [
        OffenceKind::TwoHands,
        OffenceKind::DisplacedPieces,
        OffenceKind::KnockedClock,
        OffenceKind::TouchMove,
        OffenceKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OffenceKind::TwoHands => "two_hands",
            OffenceKind::DisplacedPieces => "displaced_pieces",
            OffenceKind::KnockedClock => "knocked_clock",
            OffenceKind::TouchMove => "touch_move",
            OffenceKind::Other => "other",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRules {
    pub policy: TimePolicy,
    pub policy_rule: String,
    pub rating_rule: String,
    /// Moves each side must complete before the clock setting stands.
    pub setup_moves: u32,
    pub setup_rule: String,
    /// After that, the director may still take away time beyond the control.
    pub reduce_excess_after_setup: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagRules {
    pub auto_flag_default: bool,
    pub flag_rule: String,
    pub no_material_rule: String,
    pub both_flags_rule: String,
    pub void_rule: String,
    pub auto_flag_rule: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRules {
    pub retract_legal: bool,
    pub retract_rule: String,
    pub touch_move: bool,
    pub touch_move_rule: String,
    pub completed_rule: String,
    /// What a wrongly set-up king or rook allows (RULES.md §6): the board's own rule.
    pub setup_castling: CastlingSetupRule,
    pub setup_castling_rule: String,
    pub press_without_move: PressWithoutMove,
    pub press_without_move_rule: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IllegalRules {
    pub window: IllegalWindow,
    pub window_rule: String,
    pub first: IllegalPenalty,
    pub later: IllegalPenalty,
    pub rule: String,
    pub no_material_rule: String,
    pub claim_by_king_capture: bool,
    pub king_may_capture_king: bool,
    pub king_adjacent_trap: bool,
    pub king_adjacent_trap_rule: String,
    pub arbiter_may_call: bool,
    pub simultaneous_rule: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultRules {
    pub checkmate_rule: String,
    pub resignation_rule: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialRules {
    pub definition: MaterialDefinition,
    pub rule: String,
}

fn minute() -> u64 {
    60_000
}

impl DrawRules {
    /// The citation of a drawn-position pattern: its own rule where the ruleset lists
    /// one, else `draw_positions_rule`.
    pub fn pattern_rule(&self, pattern: DrawPattern) -> &str {
        let own = match pattern {
            DrawPattern::IdenticalPieces => &self.identical_pieces_rule,
            DrawPattern::OppositeBishops => &self.opposite_bishops_rule,
            DrawPattern::KingBeforePawn => &self.king_before_pawn_rule,
            DrawPattern::RookPawnBlockaded => &self.rook_pawn_blockaded_rule,
        };
        own.as_deref().unwrap_or(&self.draw_positions_rule)
    }
}

fn laws_dead() -> String {
    "laws dead_position".to_string()
}

/// A claimable drawn position, as the director's assistant recognises it (blitz-2006 8e,
/// 8g, 8h, 8i; the shapes club-ilc 4.3 grants). Its citation is the ruleset's
/// ([`DrawRules::pattern_rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawPattern {
    /// One identical piece each, no pawns (blitz-2006 8e).
    IdenticalPieces,
    /// Opposite-coloured bishops with one pawn, or two pawns v one clearly blockaded (8g).
    OppositeBishops,
    /// King and pawn v king, the defending king before the pawn (8h).
    KingBeforePawn,
    /// King, rook and rook pawn v king and rook, the pawn blockaded by the king (8i).
    RookPawnBlockaded,
}

impl DrawPattern {
    /// The pattern's name in snake case (as serde writes it).
    pub fn name(self) -> &'static str {
        match self {
            DrawPattern::IdenticalPieces => "identical_pieces",
            DrawPattern::OppositeBishops => "opposite_bishops",
            DrawPattern::KingBeforePawn => "king_before_pawn",
            DrawPattern::RookPawnBlockaded => "rook_pawn_blockaded",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawRules {
    pub agreement_rule: String,
    pub stalemate_rule: String,
    pub threefold_rule: String,
    pub fifty_rule: String,
    pub wrong_claim_penalty_ms: u64,
    pub wrong_claim_rule: String,
    pub ilc: bool,
    pub ilc_rule: String,
    /// ILC only when the claimant has less than this left.
    #[serde(default = "minute")]
    pub ilc_max_remaining_ms: u64,
    /// A denied ILC claim takes this from the claimant's clock.
    #[serde(default = "minute")]
    pub ilc_denied_claimant_ms: u64,
    pub draw_positions: bool,
    pub draw_positions_rule: String,
    #[serde(default)]
    pub draw_position_denied_rule: Option<String>,
    /// The rule of each claimable drawn position ([`DrawPattern`]) where the ruleset
    /// lists them (blitz-2006 8e, 8g, 8h, 8i); a pattern without one is cited by
    /// `draw_positions_rule`.
    #[serde(default)]
    pub identical_pieces_rule: Option<String>,
    #[serde(default)]
    pub opposite_bishops_rule: Option<String>,
    #[serde(default)]
    pub king_before_pawn_rule: Option<String>,
    #[serde(default)]
    pub rook_pawn_blockaded_rule: Option<String>,
    pub dead_position: bool,
    #[serde(default = "laws_dead")]
    pub dead_position_rule: String,
    pub illegal_position_after_next_move: bool,
    #[serde(default)]
    pub illegal_position_rule: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectorRules {
    pub rule: String,
    pub result_rule: String,
    pub cancel_rule: String,
    /// The rule that lets a player stop the clock while the director is summoned
    /// (`call_director`, docs/rules.md §5.6). Optional so that rulesets written before it
    /// still load; without it the arbiter cites `rule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_rule: Option<String>,
    /// Whether the director may change a player's time at any moment by his own decision
    /// (an `add_time` of kind `decision`, docs/rules.md §5.8), apart from correcting the
    /// clock's initial setting (`time.setup_rule`). Defaults to true, so that rulesets
    /// written before it still load and keep their director's authority.
    #[serde(default = "yes")]
    pub adjust_time: bool,
    /// The rule that gives the director that authority. Optional for the same reason;
    /// without it the arbiter cites `rule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjust_time_rule: Option<String>,
}

fn yes() -> bool {
    true
}

impl DirectorRules {
    /// The citation of a player's call for the director: `call_rule`, else `rule`.
    pub fn call_citation(&self) -> &str {
        self.call_rule.as_deref().unwrap_or(&self.rule)
    }

    /// The citation of the director's own time change: `adjust_time_rule`, else `rule`.
    pub fn adjust_time_citation(&self) -> &str {
        self.adjust_time_rule.as_deref().unwrap_or(&self.rule)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ladder {
    pub ladder: Vec<PenaltyStep>,
    pub rule: String,
}

impl Ladder {
    /// The step for the `n`th offence (1-based); the last step repeats.
    pub fn step(&self, n: u32) -> PenaltyStep {
        let idx = (n.max(1) as usize - 1).min(self.ladder.len().saturating_sub(1));
        self.ladder
            .get(idx)
            .copied()
            .unwrap_or(PenaltyStep::OpponentPlusMinute)
    }
}

/// A ruleset: every behaviour the arbiter applies, with its citation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    /// The rule text the citations refer to.
    pub source: String,
    pub time: TimeRules,
    pub flags: FlagRules,
    pub moves: MoveRules,
    pub illegal: IllegalRules,
    pub results: ResultRules,
    pub material: MaterialRules,
    pub draws: DrawRules,
    pub director: DirectorRules,
    pub penalties: BTreeMap<OffenceKind, Ladder>,
    /// Named variations: partial tables that override the settings above.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variations: BTreeMap<String, toml::Table>,
    /// The variations applied to this copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied_variations: Vec<String>,
}

impl Ruleset {
    /// A built-in ruleset by id.
    pub fn builtin(id: &str) -> Result<Ruleset, RulesetError> {
        let text = BUILTIN
            .iter()
            .find(|(bid, _)| *bid == id)
            .map(|(_, text)| *text)
            .ok_or_else(|| RulesetError::Unknown(id.to_string()))?;
        Ruleset::from_toml(text)
    }

    /// All five built-in rulesets, in the order of docs/rules.md §0.
    pub fn all_builtin() -> Vec<Ruleset> {
        BUILTIN
            .iter()
            .filter_map(|(_, text)| Ruleset::from_toml(text).ok())
            .collect()
    }

    /// Parse a ruleset from TOML text (a user's sixth ruleset uses the same schema).
    pub fn from_toml(text: &str) -> Result<Ruleset, RulesetError> {
        let ruleset: Ruleset =
            toml::from_str(text).map_err(|e| RulesetError::Toml(e.to_string()))?;
        ruleset.validate()?;
        Ok(ruleset)
    }

    /// What the schema cannot say: every offence kind has a ladder, and no ladder is empty
    /// (the arbiter never guesses a penalty for a user's ruleset).
    fn validate(&self) -> Result<(), RulesetError> {
        let invalid = |problem: String| RulesetError::Invalid {
            ruleset: self.id.clone(),
            problem,
        };
        for kind in OffenceKind::ALL {
            match self.penalties.get(&kind) {
                None => return Err(invalid(format!("no [penalties.{}] ladder", kind.name()))),
                Some(l) if l.ladder.is_empty() => {
                    return Err(invalid(format!(
                        "[penalties.{}] has an empty ladder",
                        kind.name()
                    )));
                }
                Some(_) => {}
            }
        }
        // Durations the arbiter puts on the clock: bounded like a director's time change,
        // so that no setting can wrap or swamp the clock arithmetic.
        for (field, ms) in [
            (
                "draws.wrong_claim_penalty_ms",
                self.draws.wrong_claim_penalty_ms,
            ),
            (
                "draws.ilc_max_remaining_ms",
                self.draws.ilc_max_remaining_ms,
            ),
            (
                "draws.ilc_denied_claimant_ms",
                self.draws.ilc_denied_claimant_ms,
            ),
        ] {
            if ms > MAX_TIME_CHANGE_MS {
                return Err(invalid(format!(
                    "{field} = {ms} is more than a day ({MAX_TIME_CHANGE_MS} ms)"
                )));
            }
        }
        Ok(())
    }

    /// This ruleset with a named variation applied on top.
    pub fn with_variation(&self, name: &str) -> Result<Ruleset, RulesetError> {
        let overrides =
            self.variations
                .get(name)
                .ok_or_else(|| RulesetError::UnknownVariation {
                    ruleset: self.id.clone(),
                    variation: name.to_string(),
                    known: if self.variations.is_empty() {
                        "none".to_string()
                    } else {
                        self.variations
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                })?;
        let mut base =
            toml::Table::try_from(self).map_err(|e| RulesetError::Toml(e.to_string()))?;
        merge(&mut base, overrides);
        base.remove("description");
        let mut out: Ruleset = base
            .try_into()
            .map_err(|e: toml::de::Error| RulesetError::Toml(e.to_string()))?;
        out.validate()?;
        out.applied_variations.push(name.to_string());
        Ok(out)
    }

    /// The penalty ladder for an offence kind (every kind has one: checked on load; the
    /// fallback only serves a `Ruleset` built by hand in code).
    /// The step of `kind`'s ladder for the `nth` offence (1-based) and the ladder's rule,
    /// without copying the ladder (as [`Ruleset::ladder`] then [`Ladder::step`]).
    pub fn penalty_step(&self, kind: OffenceKind, nth: u32) -> (PenaltyStep, &str) {
        match self.penalties.get(&kind) {
            Some(l) => (l.step(nth), &l.rule),
            None => (PenaltyStep::OpponentPlusMinute, &self.director.rule),
        }
    }

    pub fn ladder(&self, kind: OffenceKind) -> Ladder {
        self.penalties.get(&kind).cloned().unwrap_or(Ladder {
            ladder: vec![PenaltyStep::OpponentPlusMinute],
            rule: self.director.rule.clone(),
        })
    }

    /// Judge a time control under this ruleset (docs/rules.md §1.2).
    pub fn judge_time_control(&self, tc: &TimeControl) -> TimeControlJudgement {
        let rule = self.time.policy_rule.clone();
        match self.time.policy {
            TimePolicy::Us => {
                if !tc.us_is_blitz() {
                    return TimeControlJudgement::Rejected {
                        rule,
                        why: format!(
                            "{tc} is not blitz under US Chess: one sudden-death control of 1 to 10 minutes, \
                             total (base minutes + delay or increment seconds) at most 10"
                        ),
                    };
                }
                TimeControlJudgement::Accepted {
                    ratable: tc.us_blitz_ratable(),
                    rule: self.time.rating_rule.clone(),
                }
            }
            TimePolicy::UsClassic => {
                if !tc.us_is_blitz() || tc.total_ms() < 300_000 {
                    return TimeControlJudgement::Rejected {
                        rule,
                        why: format!(
                            "{tc} is not blitz under these rules: one sudden-death control of 5 to 10 minutes \
                             of total playing time (base minutes + delay or increment seconds)"
                        ),
                    };
                }
                TimeControlJudgement::Accepted {
                    ratable: tc.us_blitz_ratable(),
                    rule: self.time.rating_rule.clone(),
                }
            }
            TimePolicy::Fide => {
                if tc.fide_is_blitz() {
                    TimeControlJudgement::Accepted {
                        ratable: true,
                        rule,
                    }
                } else {
                    TimeControlJudgement::Rejected {
                        rule,
                        why: format!(
                            "{tc} is not blitz under FIDE: base + 60 × increment must be at most 10 minutes"
                        ),
                    }
                }
            }
            TimePolicy::FiveMinutes => {
                if tc.base_ms != 300_000 {
                    TimeControlJudgement::Rejected {
                        rule,
                        why: format!("{tc}: these rules play five minutes a player"),
                    }
                } else if tc.has_delay_or_increment() {
                    TimeControlJudgement::Rejected {
                        rule,
                        why: format!("{tc}: time delay may not be used under these rules"),
                    }
                } else {
                    TimeControlJudgement::Accepted {
                        ratable: true,
                        rule,
                    }
                }
            }
        }
    }

    /// Every setting with its citation, one `(path, value, rule)` per line sorted by path,
    /// for `flagfall rules show`: the rows of [`schema::SETTINGS`] and one per penalty
    /// ladder. A setting whose optional citation field is absent has an empty rule.
    pub fn settings(&self) -> Vec<(String, String, String)> {
        let mut out: Vec<(String, String, String)> = schema::SETTINGS
            .iter()
            .map(|s| {
                (
                    s.path.to_string(),
                    (s.value)(self),
                    (s.rule)(self).unwrap_or("").to_string(),
                )
            })
            .collect();
        for (kind, ladder) in &self.penalties {
            out.push((
                format!("{}{}", schema::PENALTIES_PREFIX, kind.name()),
                schema::value_text(&ladder.ladder),
                ladder.rule.clone(),
            ));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

fn merge(base: &mut toml::Table, overrides: &toml::Table) {
    for (k, v) in overrides {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The verdict on a time control under a ruleset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum TimeControlJudgement {
    /// Allowed; `ratable` says whether it counts for the blitz rating (shown, not enforced).
    Accepted { ratable: bool, rule: String },
    /// Forbidden by the ruleset.
    Rejected { rule: String, why: String },
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.id, self.name)
    }
}

/// Every ruleset a built-in can become: itself and each variation applied alone (for the
/// tests that walk every built-in setting).
#[cfg(test)]
pub(crate) fn builtin_variants() -> Vec<Ruleset> {
    let mut out = Vec::new();
    for rs in Ruleset::all_builtin() {
        for name in rs.variations.keys() {
            out.push(rs.with_variation(name).expect("built-in variation applies"));
        }
        out.push(rs);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_builtins_parse() {
        for (id, text) in BUILTIN {
            let rs = Ruleset::from_toml(text).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(rs.id, id);
            for kind in OffenceKind::ALL {
                assert!(
                    rs.penalties.contains_key(&kind),
                    "{id} lacks a ladder for {kind:?}"
                );
            }
        }
        assert_eq!(Ruleset::all_builtin().len(), 5);
    }

    #[test]
    fn durations_beyond_a_day_are_refused_naming_the_setting() {
        let uscf = BUILTIN[0].1;
        for field in [
            "wrong_claim_penalty_ms",
            "ilc_max_remaining_ms",
            "ilc_denied_claimant_ms",
        ] {
            // The largest value TOML can hold: as an i64 clock amount its negation would
            // still fit, but a penalty of 292 million years is not a setting.
            let text = format!(
                "{}\n",
                uscf.replace(
                    "[draws]",
                    &format!("[draws]\n{field} = 9223372036854775807")
                )
                .lines()
                .filter(|l| !l.starts_with(field) || l.contains("9223372036854775807"))
                .collect::<Vec<_>>()
                .join("\n")
            );
            match Ruleset::from_toml(&text) {
                Err(RulesetError::Invalid { problem, .. }) => {
                    assert!(problem.contains(&format!("draws.{field}")), "{problem}");
                }
                other => panic!("{field}: expected an invalid ruleset, got {other:?}"),
            }
            let day = text.replace("9223372036854775807", "86400000");
            Ruleset::from_toml(&day).unwrap_or_else(|e| panic!("{field} at a day: {e}"));
        }
    }

    #[test]
    fn variation_overrides_illegal_move_penalty() {
        let classic = Ruleset::builtin("uscf-classic").expect("builtin");
        assert_eq!(classic.illegal.first, IllegalPenalty::Loss);
        let v = classic
            .with_variation("illegal_move_one_minute")
            .expect("variation");
        assert_eq!(v.illegal.first, IllegalPenalty::MinuteAndReinstate);
        assert_eq!(v.illegal.rule, "uscf-classic 2 variation");
        assert_eq!(
            v.applied_variations,
            vec!["illegal_move_one_minute".to_string()]
        );
        // Everything else is untouched.
        assert_eq!(v.illegal.window, classic.illegal.window);
        assert!(matches!(
            classic.with_variation("nope"),
            Err(RulesetError::UnknownVariation { .. })
        ));
    }

    #[test]
    fn unknown_ruleset_and_bad_toml_are_errors() {
        assert!(matches!(
            Ruleset::builtin("fide"),
            Err(RulesetError::Unknown(_))
        ));
        assert!(matches!(
            Ruleset::from_toml("id = 3"),
            Err(RulesetError::Toml(_))
        ));
        let mut text = BUILTIN[0].1.to_string();
        text.push_str("\n[extra]\nx = 1\n");
        assert!(
            Ruleset::from_toml(&text).is_err(),
            "unknown sections are rejected"
        );
    }

    #[test]
    fn every_setting_has_a_citation() {
        for rs in Ruleset::all_builtin() {
            for (path, _, rule) in rs.settings() {
                assert!(!rule.is_empty(), "{}: {path} has no citation", rs.id);
                assert!(
                    rule.starts_with(&rs.id) || rule.starts_with("laws "),
                    "{}: {path} cites `{rule}`",
                    rs.id
                );
            }
        }
    }

    #[test]
    fn a_ruleset_with_a_missing_or_empty_ladder_is_rejected() {
        let text = BUILTIN[0].1;
        let missing = text.replace(
            "[penalties.other]\nladder = [\"opponent_plus_minute\"]\nrule = \"uscf-2020 17\"\n",
            "",
        );
        assert_ne!(missing, text, "the test edits the file");
        let err = Ruleset::from_toml(&missing).expect_err("missing ladder");
        assert!(err.to_string().contains("penalties.other"), "{err}");
        let empty = text.replace(
            "[penalties.other]\nladder = [\"opponent_plus_minute\"]",
            "[penalties.other]\nladder = []",
        );
        let err = Ruleset::from_toml(&empty).expect_err("empty ladder");
        assert!(err.to_string().contains("empty ladder"), "{err}");
    }

    #[test]
    fn ladders_repeat_their_last_step() {
        let rs = Ruleset::builtin("blitz-2006").expect("builtin");
        let l = rs.ladder(OffenceKind::TwoHands);
        assert_eq!(l.step(1), PenaltyStep::Warning);
        assert_eq!(l.step(2), PenaltyStep::OpponentPlusMinute);
        assert_eq!(l.step(3), PenaltyStep::Forfeit);
        assert_eq!(l.step(9), PenaltyStep::Forfeit);
    }
}
