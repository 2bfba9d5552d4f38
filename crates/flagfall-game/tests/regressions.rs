//! Regression tests named after the issue whose behaviour they pin down.

use flagfall_game::{GameResult, Reason, RulingKind, replay, script};

fn run(text: &str) -> flagfall_game::Replay {
    replay(&script::parse(text).expect("script parses"))
}

/// Issue 2 (RULES.md §3, blitz-2006 8a): a stalemate stands even if a fallen flag is
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
    // One millisecond apart, with no simultaneity window, the earlier claim wins.
    let text = format!("{setup}\n{claim}\n{}\n", mate.replace("301000", "301001"));
    let r = run(&text);
    assert_eq!(r.result, GameResult::BlackWins);
    assert_eq!(r.reason, Some(Reason::TimeForfeit));
}
