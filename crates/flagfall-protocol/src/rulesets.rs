//! The built-in rulesets as the lobby offers them (`GET /api/rulesets`): each with its
//! name, how its time controls are written, and usual time controls; and the quick
//! time-control buttons. The tests check that every control listed here is one its
//! ruleset accepts, and that every built-in ruleset is listed.

use flagfall_core::ruleset::Ruleset;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One built-in ruleset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RulesetInfo {
    pub id: String,
    pub name: String,
    /// How its time controls are written, in words with an example.
    pub notation: String,
    /// Usual time controls, the first the default.
    pub controls: Vec<String>,
}

/// A quick time-control button: a ruleset and a time control.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QuickControl {
    pub rules: String,
    pub time_control: String,
}

/// The answer of `GET /api/rulesets`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Rulesets {
    pub rulesets: Vec<RulesetInfo>,
    pub quick: Vec<QuickControl>,
}

const US: &str =
    "G/minutes, then ;d and the delay in seconds or ;inc and the increment (G/5;d0, G/3;d2)";

/// Per built-in ruleset, in the lobby's order: id, notation, usual controls.
const OFFERED: [(&str, &str, &[&str]); 5] = [
    ("uscf-2020", US, &["G/5;d0", "G/3;d2", "G/5;d3", "G/3;inc2"]),
    (
        "fide-b3",
        "minutes+increment in seconds (3+2, 5+0)",
        &["3+2", "5+0", "5+3", "3+0"],
    ),
    (
        "blitz-2006",
        "minutes|delay in seconds (5|0, 3|2)",
        &["5|0"],
    ),
    ("uscf-classic", US, &["G/5", "G/5;d3", "G/3;d2"]),
    ("club-ilc", US, &["G/5", "G/3", "G/5;d0"]),
];

/// The quick buttons: lichess's usual blitz under FIDE, and the US rules' own.
const QUICK: [(&str, &str); 7] = [
    ("fide-b3", "1+0"),
    ("fide-b3", "2+1"),
    ("fide-b3", "3+0"),
    ("fide-b3", "3+2"),
    ("fide-b3", "5+0"),
    ("uscf-2020", "G/5;d0"),
    ("uscf-2020", "G/3;d2"),
];

/// The rulesets the lobby offers and its quick buttons.
pub fn rulesets() -> Rulesets {
    let name = |id: &str| Ruleset::builtin(id).map_or_else(|_| id.to_string(), |r| r.name);
    Rulesets {
        rulesets: OFFERED
            .iter()
            .map(|(id, notation, controls)| RulesetInfo {
                id: id.to_string(),
                name: name(id),
                notation: notation.to_string(),
                controls: controls.iter().map(|c| c.to_string()).collect(),
            })
            .collect(),
        quick: QUICK
            .iter()
            .map(|(r, t)| QuickControl {
                rules: r.to_string(),
                time_control: t.to_string(),
            })
            .collect(),
    }
}
