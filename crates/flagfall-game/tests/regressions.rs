//! Regression tests named after the issue whose behaviour they pin down.

use flagfall_game::{GameResult, Reason, RulingKind, replay, script};

fn run(text: &str) -> flagfall_game::Replay {
    replay(&script::parse(text).expect("script parses"))
}

/// Issue 2 (docs/rules.md §3.7, blitz-2006 8a): a stalemate stands even if a fallen flag is
/// claimed at the same moment, whichever of the two the record lists first.
#[test]
fn issue_2_stalemate_stands_against_a_simultaneous_flag_claim() {
    // White's flag fell at 300000; at 301000 White stalemates (Qd7-c7: the a7 pawn is
    // blocked, b7 and b8 are covered) and Black, who has a pawn (mating material), claims.
    let setup =
        r#"{"rules":"blitz-2006","time_control":"G/5","fen":"k7/p2Q4/P1K5/8/8/8/8/8 w - - 0 1"}"#;
    let claim = r#"{"at":301000,"by":"black","claim":"flag"}"#;
    let mate = r#"{"at":301000,"by":"white","move":"d7c7","press":true}"#;
    for text in [
        format!("{setup}\n{claim}\n{mate}\n"),
        format!("{setup}\n{mate}\n{claim}\n"),
    ] {
        let r = run(&text);
        assert_eq!(r.result, GameResult::Draw, "{text}");
        assert_eq!(r.reason, Some(Reason::Stalemate));
        assert_eq!(r.rule.as_deref(), Some("blitz-2006 8a"));
        assert_eq!(r.rulings.len(), 2);
        assert_eq!(
            r.rulings[1].kind,
            RulingKind::Refused,
            "the late claim is refused"
        );
    }
    // The move and the press recorded as two events after the claim: the stalemate is
    // decided first all the same, and an observer sees the window once.
    let moved = r#"{"at":301000,"by":"white","move":"d7c7"}"#;
    let press = r#"{"at":301000,"by":"white","press":true}"#;
    let text = format!("{setup}\n{claim}\n{moved}\n{press}\n");
    let mut seen = Vec::new();
    let r =
        flagfall_game::replay_observed(&script::parse(&text).expect("script parses"), |_, n| {
            seen.push(n);
        });
    assert_eq!(r.result, GameResult::Draw, "{text}");
    assert_eq!(r.reason, Some(Reason::Stalemate));
    assert_eq!(
        r.rulings[1].kind,
        RulingKind::Refused,
        "the late claim is refused"
    );
    assert_eq!(seen, vec![3], "observed once, after the last event applied");
    // One millisecond apart, with no simultaneity window, the earlier claim wins.
    let text = format!("{setup}\n{claim}\n{}\n", mate.replace("301000", "301001"));
    let r = run(&text);
    assert_eq!(r.result, GameResult::BlackWins);
    assert_eq!(r.reason, Some(Reason::TimeForfeit));
}

/// A tablebase that gives every position the same value, standing in for Syzygy tables.
struct FixedTable(flagfall_analysis::assistant::Probe);

impl flagfall_analysis::assistant::Tablebase for FixedTable {
    fn probe(&self, _pos: &shakmaty::Chess) -> flagfall_analysis::assistant::Probe {
        self.0.clone()
    }
}

fn run_with_table(text: &str, probe: flagfall_analysis::assistant::Probe) -> flagfall_game::Replay {
    let table = flagfall_game::SharedTablebase(std::sync::Arc::new(FixedTable(probe)));
    flagfall_game::replay_with_tablebase(&script::parse(text).expect("script parses"), Some(table))
}

/// Issue 3 (blitz-2006 8e, "unless a forced win can be demonstrated"): with no director,
/// the assistant's recommendation is applied; a tablebase win for the claimant's opponent
/// defeats the claim, and without the table the same claim is granted.
#[test]
fn issue_3_tablebase_win_defeats_a_draw_claim_without_a_director() {
    use flagfall_analysis::assistant::{Probe, Wdl};
    let text = concat!(
        r#"{"rules":"blitz-2006","time_control":"G/5;d0","fen":"4k3/8/8/8/8/8/r7/4K2R w - - 0 1","director":false}"#,
        "\n",
        r#"{"at":1000,"by":"white","claim":"draw_position"}"#,
        "\n"
    );
    let granted = run(text);
    assert_eq!(granted.result, GameResult::Draw);
    assert_eq!(granted.rule.as_deref(), Some("blitz-2006 8e"));

    // White to move, and the (stand-in) table says the side to move loses: Black wins.
    let r = run_with_table(text, Probe::Exact(Wdl::Loss));
    assert_eq!(r.result, GameResult::Ongoing, "{:?}", r.rulings);
    let advice = r
        .rulings
        .iter()
        .find(|x| x.kind == RulingKind::Recommendation)
        .expect("a recommendation is recorded");
    assert!(
        advice
            .ruling
            .contains("the tablebase shows a forced win for Black"),
        "{}",
        advice.ruling
    );
    // The claim is denied, with the wrong-claim penalty of the ruleset.
    let last = r.rulings.last().expect("rulings");
    assert_eq!(last.kind, RulingKind::ClaimRejected, "{:?}", r.rulings);
    assert_eq!(last.rule, "blitz-2006 13b");
    assert_eq!(
        last.time.map(|t| (t.color, t.ms)),
        Some((shakmaty::Color::Black, 60000))
    );

    // A draw in the table keeps the claim granted, and the reason says so.
    let r = run_with_table(text, Probe::Exact(Wdl::Draw));
    assert_eq!(r.result, GameResult::Draw);
    assert!(
        r.rulings
            .iter()
            .any(|x| x.ruling.contains("the tablebase shows a draw")),
        "{:?}",
        r.rulings
    );
}

/// Issue 11 item 2: what a press without a move means is the ruleset's
/// `moves.press_without_move`. No built-in ruleset refuses it any more, so a ruleset
/// loaded from a file that does must still get the refusal (no clock change, the
/// completion rule cited), while the built-in it derives from hands the clock over.
#[test]
fn issue_11_press_without_move_follows_the_ruleset_setting() {
    use flagfall_core::ruleset::{PressWithoutMove, Ruleset};
    let events = concat!(
        r#"{"at":1000,"by":"white","move":"e2e4","press":true}"#,
        "\n",
        r#"{"at":2000,"by":"black","press":true}"#,
        "\n",
    );
    let mut strict = Ruleset::builtin("uscf-2020").expect("built-in");
    strict.id = "uscf-2020-strict".to_string();
    strict.moves.press_without_move = PressWithoutMove::Refused;
    let text = format!(
        "{}\n{events}",
        r#"{"rules":"uscf-2020-strict","time_control":"G/5;d0"}"#
    );
    let refused = replay(&script::parse_with(&text, &[strict]).expect("script parses"));
    assert_eq!(refused.rulings.len(), 1);
    assert_eq!(refused.rulings[0].kind, RulingKind::Refused);
    assert_eq!(refused.rulings[0].rule, "uscf-2020 14");
    // Black's clock still runs: 1000 ms used by 2000.
    assert_eq!(
        (refused.clock.white_ms, refused.clock.black_ms),
        (299_000, 299_000)
    );

    let text = format!(
        "{}\n{events}",
        r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#
    );
    let handed = run(&text);
    assert_eq!(handed.rulings.len(), 1);
    assert_eq!(handed.rulings[0].kind, RulingKind::Clock);
    assert_eq!(handed.rulings[0].rule, "uscf-2020 9");
    assert_eq!(handed.result, GameResult::Ongoing);
    // Black is still to move on the board; White's clock runs.
    assert!(handed.fen.contains(" b"), "{}", handed.fen);
    assert_eq!(handed.game.clock().running(), Some(shakmaty::Color::White));
}

/// Issue 19 item 11: client-given durations meet the clock in checked arithmetic. An
/// instant at the very end of `u64` and the director's largest time changes (a day) used
/// to overflow the "time beyond the control" test of `add_time` (a panic in a debug build,
/// a wrapped amount in a release build); the PGN of such a game did not read back, since
/// an instant beyond `i64` came back as text.
#[test]
fn issue_19_extreme_instants_and_time_changes_do_not_overflow() {
    let text = r#"{"rules":"uscf-classic","time_control":"G/5;d0"}
{"at":1000,"by":"white","move":"e2e4","press":true}
{"at":18446744073709551615,"by":"director","add_time":{"color":"black","ms":-86400000}}
{"at":18446744073709551615,"by":"director","add_time":{"color":"black","ms":-86400000}}
{"at":18446744073709551615,"by":"white","claim":"flag"}
"#;
    let script = script::parse(text).expect("script parses");
    let r = replay(&script);
    assert_eq!(r.clock.black_ms, i64::MIN, "saturated, not wrapped");
    assert_eq!(r.clock.white_ms, 299_000);
    assert_eq!(r.result, GameResult::WhiteWins);
    assert_eq!(r.reason, Some(Reason::TimeForfeit));
    let pgn = flagfall_game::pgn::to_pgn(&script);
    let back = flagfall_game::pgn::from_pgn(&pgn, "uscf-2020").expect("PGN reads back");
    let again = script::parse(&back).expect("the PGN's script parses");
    assert_eq!(again.events[2].at, u64::MAX);
    assert_eq!(replay(&again).to_json(), r.to_json());
}

/// Issue 19 item 5: a director's own time change applies at any moment, citing the
/// director's authority (`director.adjust_time_rule`); the set-up deadline binds only a
/// correction of the initial setting (`kind: correction`). A ruleset from a file that
/// gives the director no such authority (`adjust_time = false`) refuses the decision, and
/// one written before the setting loads with it on, citing `director.rule`.
#[test]
fn issue_19_director_time_change_applies_at_any_moment() {
    use flagfall_core::ruleset::Ruleset;
    let moves = concat!(
        r#"{"at":1000,"by":"white","move":"e2e4","press":true}"#,
        "\n",
        r#"{"at":2000,"by":"black","move":"e7e5","press":true}"#,
        "\n",
    );
    let decision = r#"{"at":2500,"by":"director","add_time":{"color":"black","ms":60000}}"#;
    let correction = r#"{"at":2500,"by":"director","add_time":{"color":"black","ms":60000,"kind":"correction"}}"#;
    let setup = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;
    let r = run(&format!("{setup}\n{moves}{decision}\n"));
    assert_eq!(r.rulings.len(), 1);
    assert_eq!(r.rulings[0].kind, RulingKind::TimeChange);
    assert_eq!(r.rulings[0].rule, "uscf-2020 12");
    assert_eq!(r.clock.black_ms, 359_000);
    let r = run(&format!("{setup}\n{moves}{correction}\n"));
    assert_eq!(r.rulings[0].kind, RulingKind::Refused);
    assert_eq!(r.rulings[0].rule, "uscf-2020 3");
    assert_eq!(r.clock.black_ms, 299_000);

    // A ruleset that gives the director no time changes of his own.
    let text = include_str!("../../flagfall-core/rulesets/uscf-2020.toml")
        .replace("id = \"uscf-2020\"", "id = \"no-adjust\"")
        .replace("adjust_time = true", "adjust_time = false");
    let strict = Ruleset::from_toml(&text).expect("ruleset loads");
    let setup = r#"{"rules":"no-adjust","time_control":"G/5;d0"}"#;
    let s = script::parse_with(&format!("{setup}\n{moves}{decision}\n"), &[strict])
        .expect("script parses");
    let r = replay(&s);
    assert_eq!(r.rulings[0].kind, RulingKind::Refused);
    assert_eq!(r.rulings[0].rule, "uscf-2020 12");
    assert_eq!(r.clock.black_ms, 299_000);

    // A ruleset written before the setting: the director keeps the authority, cited by
    // `director.rule`.
    let old = include_str!("../../flagfall-core/rulesets/uscf-2020.toml")
        .replace("id = \"uscf-2020\"", "id = \"older\"")
        .lines()
        .filter(|l| !l.starts_with("adjust_time"))
        .collect::<Vec<_>>()
        .join("\n");
    let older = Ruleset::from_toml(&old).expect("an older ruleset still loads");
    let setup = r#"{"rules":"older","time_control":"G/5;d0"}"#;
    let s = script::parse_with(&format!("{setup}\n{moves}{decision}\n"), &[older])
        .expect("script parses");
    let r = replay(&s);
    assert_eq!(r.rulings[0].kind, RulingKind::TimeChange);
    assert_eq!(r.rulings[0].rule, "uscf-2020 11");
}
