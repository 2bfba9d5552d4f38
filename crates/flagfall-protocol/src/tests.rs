use super::*;
use flagfall_game::Game;
use flagfall_game::script::{self, Action};
use serde_json::Value;

#[test]
fn a_move_with_press_and_id_parses() {
    let f = parse_frame(r#"{"move":"e2e4","press":true,"id":"a1","lag_ms":20}"#).unwrap();
    match f {
        ClientFrame::Action {
            id, lag_ms, action, ..
        } => {
            assert_eq!(id.as_deref(), Some("a1"));
            assert_eq!(lag_ms, Some(20));
            assert!(action.presses());
        }
        other => panic!("expected an action, got {other:?}"),
    }
}

#[test]
fn ping_parses_and_rejects_extra_fields() {
    assert_eq!(
        parse_frame(r#"{"ping":17}"#).unwrap(),
        ClientFrame::Ping(17)
    );
    let e = parse_frame(r#"{"ping":17,"move":"e2e4"}"#).unwrap_err();
    assert_eq!(e.field, "move");
}

#[test]
fn errors_name_the_field() {
    let e = parse_frame(r#"{"move":42,"id":"x"}"#).unwrap_err();
    assert_eq!(e.field, "move");
    assert_eq!(e.id.as_deref(), Some("x"));
    assert_eq!(
        parse_frame(r#"{"claim":"flagg"}"#).unwrap_err().field,
        "claim"
    );
    assert_eq!(parse_frame(r#"{"bogus":true}"#).unwrap_err().field, "bogus");
    assert_eq!(
        parse_frame(r#"{"at":5,"press":true}"#).unwrap_err().field,
        "at"
    );
    assert_eq!(
        parse_frame(r#"{"by":"black","press":true}"#)
            .unwrap_err()
            .field,
        "by"
    );
    assert_eq!(parse_frame("[1]").unwrap_err().field, "(json)");
    assert_eq!(parse_frame("{").unwrap_err().field, "(json)");
    assert_eq!(parse_frame(r#"{"end":true}"#).unwrap_err().field, "end");
    assert_eq!(
        parse_frame(r#"{"press":true,"lag_ms":-1}"#)
            .unwrap_err()
            .field,
        "lag_ms"
    );
    assert_eq!(
        parse_frame(r#"{"offer":"draw","lag_ms":5}"#)
            .unwrap_err()
            .field,
        "lag_ms"
    );
}

#[test]
fn a_call_for_the_director_parses_and_shows_in_the_state() {
    let f = parse_frame(r#"{"call_director":true,"reason":"he is talking","id":"c"}"#).unwrap();
    let ClientFrame::Action { action, .. } = f else {
        panic!("expected an action");
    };
    assert_eq!(
        action,
        Action::CallDirector {
            reason: Some("he is talking".into())
        }
    );
    let long = format!(r#"{{"call_director":true,"reason":"{}"}}"#, "x".repeat(201));
    assert_eq!(parse_frame(&long).unwrap_err().field, "reason");
    assert_eq!(
        parse_frame(r#"{"resign":true,"reason":"x"}"#)
            .unwrap_err()
            .field,
        "reason"
    );
    let c = CreateGame::from_json(br#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#).unwrap();
    let (line, setup) = c.setup_line().unwrap();
    let mut game = Game::new(setup);
    game.apply(
        &ClientFrame::event(action, 1500, script::Party::Black, 0),
        1,
    );
    let setup_v: Value = serde_json::from_str(&line).unwrap();
    let s = State::of(
        &game,
        &[],
        StateContext {
            id: "g",
            setup: &setup_v,
            mode: Mode::Otb,
            n: 1,
            now: 2000,
            started: true,
        },
    );
    let called = s.called.clone().expect("the call is pending");
    assert_eq!(called.by, ColorName::Black);
    assert_eq!(called.at, 1500);
    assert_eq!(s.running, None, "the clock is stopped");
    assert!(s.claims.white.is_empty() && s.claims.black.is_empty());
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["called"]["reason"], "he is talking");
}

#[test]
fn oversized_frames_are_refused_before_parsing() {
    let big = format!(
        r#"{{"move":"e2e4","id":"{}"}}"#,
        "x".repeat(MAX_FRAME_BYTES)
    );
    assert_eq!(parse_frame(&big).unwrap_err().field, "(frame)");
    let long_id = format!(
        r#"{{"press":true,"id":"{}"}}"#,
        "x".repeat(MAX_ID_BYTES + 1)
    );
    assert_eq!(parse_frame(&long_id).unwrap_err().field, "id");
}

#[test]
fn create_body_validates_through_the_script_parser() {
    let body = br#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"online"}"#;
    let c = CreateGame::from_json(body).unwrap();
    let (line, setup) = c.setup_line().unwrap();
    assert!(setup.auto_flag, "online forces automatic flagging");
    assert!(!line.contains("mode"));
    let bad = CreateGame::from_json(br#"{"rules":"nope","time_control":"3+2"}"#)
        .unwrap()
        .setup_line()
        .unwrap_err();
    assert_eq!(bad.field, "rules");
    let unknown =
        CreateGame::from_json(br#"{"rules":"uscf-2020","time_control":"3+2","x":1}"#).unwrap_err();
    assert_eq!(unknown.field, "x");
    let missing = CreateGame::from_json(br#"{"rules":"uscf-2020"}"#).unwrap_err();
    assert_eq!(missing.field, "time_control");
    let wrong =
        CreateGame::from_json(br#"{"rules":"uscf-2020","time_control":"3+2","mode":"blitz"}"#)
            .unwrap_err();
    assert!(wrong.message.contains("blitz"), "{wrong}");
}

#[test]
fn state_of_a_fresh_game_has_no_running_clock_and_online_dests() {
    let c = CreateGame::from_json(br#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#)
        .unwrap();
    let (line, setup) = c.setup_line().unwrap();
    let game = Game::new(setup);
    let setup_v: Value = serde_json::from_str(&line).unwrap();
    let s = State::of(
        &game,
        &[],
        StateContext {
            id: "g",
            setup: &setup_v,
            mode: Mode::Online,
            n: 0,
            now: 0,
            started: false,
        },
    );
    assert_eq!(s.running, None);
    assert_eq!(s.result, "*");
    let dests = s.dests.clone().expect("online mode lists destinations");
    assert_eq!(dests["e2"], vec!["e3", "e4"]);
    assert_eq!(dests.len(), 10);
    // The SAN of every legal move comes with them: a page resolves typed SAN from it.
    let san = s.san.clone().expect("online mode lists the SAN");
    assert_eq!(san.len(), 20);
    assert_eq!(san["g1f3"], "Nf3");
    assert_eq!(san["e2e4"], "e4");
    assert_eq!(s.promotion_ranks.white, "8");
    assert_eq!(s.promotion_ranks.black, "1");
    let text = ServerMsg::State(Box::new(s.clone())).to_text();
    let back: ServerMsg = serde_json::from_str(&text).unwrap();
    assert_eq!(back, ServerMsg::State(Box::new(s)));
}

/// Issue 9: the state after each event equals the state before it with the event
/// message's update applied, event after event, including a ruling that takes moves
/// back (FIDE restores the position before an illegal move).
#[test]
fn updates_rebuild_the_state_event_by_event() {
    let c = CreateGame::from_json(br#"{"rules":"fide-b3","time_control":"3+2"}"#).unwrap();
    let (line, setup) = c.setup_line().unwrap();
    let setup_v: Value = serde_json::from_str(&line).unwrap();
    let mut game = Game::new(setup);
    let mut moves = flagfall_game::MoveList::default();
    moves.update(&game);
    let cx = |n: u64, now: u64| StateContext {
        id: "g",
        setup: &setup_v,
        mode: Mode::Otb,
        n,
        now,
        started: true,
    };
    let mut view = State::of(&game, moves.entries(), cx(0, 0));
    let script = [
        r#"{"at":10,"by":"white","move":"e2e4","press":true}"#,
        r#"{"at":20,"by":"black","move":"e7e5","press":true}"#,
        r#"{"at":30,"by":"white","move":"e1e3","press":true}"#,
        r#"{"at":40,"by":"black","claim":"illegal"}"#,
        r#"{"at":50,"by":"white","move":"e1e2","press":true}"#,
        r#"{"at":60,"by":"black","move":"b8b6"}"#,
        r#"{"at":70,"by":"black","retract":true}"#,
        r#"{"at":80,"by":"black","move":"b8c6","press":true}"#,
        r#"{"at":90,"by":"director","offence":{"player":"white","kind":"two_hands"}}"#,
        r#"{"at":100,"by":"white","move":"g1f3","press":true}"#,
        r#"{"at":110,"by":"black","resign":true}"#,
    ];
    let mut shrank = false;
    // What clients hold of the director's offences: an update carries them only when
    // they changed (the offence, the end of the game).
    let mut held = None;
    let mut carried = Vec::new();
    for (i, text) in script.iter().enumerate() {
        let n = i as u64 + 1;
        let full = format!("{line}\n{text}\n");
        let event = flagfall_game::script::parse(&full)
            .unwrap()
            .events
            .remove(0);
        let rulings_before = game.rulings().len();
        game.apply(&event, n as usize);
        let from = moves.update(&game);
        shrank |= from < view.moves.len();
        let mut snap = Snapshot::of(&game, moves.entries(), from, cx(n, event.at));
        snap.update
            .leave_out_unchanged(OffencesKey::of(&game), &mut held);
        if snap.update.actions.director.offences.is_some() {
            carried.push(n);
        }
        let rulings: Vec<Value> = game.rulings()[rulings_before..]
            .iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect();
        snap.update
            .apply(&mut view, n, snap.clock, &snap.result, &rulings);
        let want = State::of(&game, moves.entries(), cx(n, event.at));
        assert_eq!(view, want, "after event {n}: {text}");
    }
    assert!(shrank, "the illegal-move claim took a move back");
    assert_eq!(view.moves.len(), 5);
    // The first update, the offence's and the end's: no other carries the offences.
    assert_eq!(carried, [1, 9, 11]);
    assert_eq!(view.actions.director.offences, Some(Vec::new()));
}

/// A game of `body` after the events `lines` (game-script lines without the setup),
/// with its state as the server would send it.
fn played(body: &str, lines: &[&str]) -> (Game, State) {
    let c = CreateGame::from_json(body.as_bytes()).unwrap();
    let (line, setup) = c.setup_line().unwrap();
    let setup_v: Value = serde_json::from_str(&line).unwrap();
    let mut game = Game::new(setup);
    let mut moves = flagfall_game::MoveList::default();
    let mut at = 0;
    for (i, text) in lines.iter().enumerate() {
        let event = script::parse(&format!("{line}\n{text}\n"))
            .unwrap()
            .events
            .remove(0);
        at = event.at;
        game.apply(&event, i + 1);
    }
    moves.update(&game);
    let s = State::of(
        &game,
        moves.entries(),
        StateContext {
            id: "g",
            setup: &setup_v,
            mode: c.mode(),
            n: lines.len() as u64,
            now: at,
            started: !lines.is_empty(),
        },
    );
    (game, s)
}

#[test]
fn take_back_is_offered_only_where_the_rules_allow_it() {
    let us = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;
    // A legal move on the board: touch move, no take back (uscf-2020 15); a press.
    let (_, s) = played(us, &[r#"{"at":10,"by":"white","move":"e2e4"}"#]);
    assert!(!s.actions.white.take_back);
    assert!(s.actions.white.press);
    assert!(!s.actions.white.r#move, "a move is already on the board");
    assert!(!s.actions.black.take_back && !s.actions.black.press);
    // An illegal one may be taken back.
    let (_, s) = played(us, &[r#"{"at":10,"by":"white","move":"e2e5"}"#]);
    assert!(s.actions.white.take_back);
    // blitz-2006 lets a legal move be taken back before the press.
    let (_, s) = played(
        r#"{"rules":"blitz-2006","time_control":"5|0"}"#,
        &[r#"{"at":10,"by":"white","move":"e2e4"}"#],
    );
    assert!(s.actions.white.take_back);
    // After the press Black is on move and may press (a press without a move stands
    // under uscf-2020 9); White may not.
    let (_, s) = played(
        us,
        &[r#"{"at":10,"by":"white","move":"e2e4","press":true}"#],
    );
    assert!(s.actions.black.r#move && s.actions.black.press && !s.actions.white.press);
    assert!(s.actions.white.offer_draw && !s.actions.white.answer_draw);
}

#[test]
fn online_offers_no_press_take_back_or_move_and_press() {
    let (_, s) = played(
        r#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#,
        &[r#"{"at":10,"by":"white","move":"e2e4","press":true}"#],
    );
    for a in [&s.actions.white, &s.actions.black] {
        assert!(!a.press && !a.take_back && !a.move_and_press);
    }
    assert!(s.actions.black.r#move && !s.actions.white.r#move);
}

#[test]
fn the_director_sees_the_ladders_next_penalty_after_each_offence() {
    let body = r#"{"rules":"blitz-2006","time_control":"5|0"}"#;
    let next = |s: &State, kind: &str| {
        s.actions
            .director
            .offences
            .iter()
            .flatten()
            .find(|o| o.kind == kind)
            .unwrap_or_else(|| panic!("no offence {kind}"))
            .clone()
    };
    let (game, s0) = played(body, &[]);
    let ladder = game
        .ruleset()
        .ladder(flagfall_core::ruleset::OffenceKind::DisplacedPieces);
    assert!(ladder.ladder.len() >= 2, "blitz-2006's ladder has steps");
    let first = next(&s0, "displaced_pieces");
    assert_eq!(first.white.recorded, 0);
    assert_eq!(first.white.step, penalty_words(ladder.ladder[0]).0);
    let (_, s1) = played(
        body,
        &[
            r#"{"at":10,"by":"white","move":"e2e4","press":true}"#,
            r#"{"at":20,"by":"director","offence":{"player":"white","kind":"displaced_pieces"}}"#,
        ],
    );
    let second = next(&s1, "displaced_pieces");
    assert_eq!(second.white.recorded, 1);
    assert_eq!(second.white.step, penalty_words(ladder.step(2)).0);
    assert_eq!(second.white.rule, ladder.rule);
    // Black's count is his own.
    assert_eq!(second.black.recorded, 0);
    assert!(s1.actions.director.add_time && s1.actions.director.stop_clock);
    assert!(!s1.actions.director.ruling);
    // A game without a director offers the director nothing.
    let (_, s) = played(
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","director":false}"#,
        &[],
    );
    assert_eq!(
        s.actions.director,
        DirectorActions {
            offences: Some(Vec::new()),
            ..DirectorActions::default()
        }
    );
    assert!(!s.actions.white.call_director);
}

/// The generated TypeScript describes the state's JSON fields typed as values in Rust:
/// the setup reads as a create body, every ruling as a `RulingView`.
#[test]
fn setup_and_rulings_read_as_their_wire_types() {
    let (_, s) = played(
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","white":"Ann"}"#,
        &[
            r#"{"at":10,"by":"white","move":"e2e5","press":true}"#,
            r#"{"at":20,"by":"black","claim":"illegal"}"#,
            r#"{"at":30,"by":"director","add_time":{"color":"black","ms":60000}}"#,
            r#"{"at":40,"by":"director","offence":{"player":"white","kind":"two_hands"}}"#,
            r#"{"at":50,"by":"white","resign":true}"#,
            r#"{"at":60,"by":"white","press":true}"#,
        ],
    );
    let setup: CreateGame = serde_json::from_value(s.setup.clone()).expect("setup as CreateGame");
    assert_eq!(setup.white.as_deref(), Some("Ann"));
    assert!(s.rulings.len() >= 4, "{:?}", s.rulings);
    for r in &s.rulings {
        let v: RulingView = serde_json::from_value(r.clone()).expect("a ruling as RulingView");
        assert_eq!(serde_json::to_value(&v).unwrap(), *r);
    }
    use flagfall_game::RulingKind as K;
    for k in [
        K::Result,
        K::ClaimUpheld,
        K::ClaimRejected,
        K::ClaimPending,
        K::Recommendation,
        K::Penalty,
        K::TimeChange,
        K::Clock,
        K::Refused,
    ] {
        let v = serde_json::to_value(k).unwrap();
        let back: RulingKindName = serde_json::from_value(v.clone()).expect("every kind named");
        assert_eq!(serde_json::to_value(back).unwrap(), v);
    }
}

#[test]
fn every_listed_time_control_is_accepted_by_its_ruleset() {
    use flagfall_core::ruleset::{BUILTIN, Ruleset, TimeControlJudgement};
    use flagfall_core::timecontrol::TimeControl;
    let list = rulesets();
    for (id, _) in BUILTIN {
        assert!(list.rulesets.iter().any(|r| r.id == id), "{id} not listed");
    }
    let accepted = |rules: &str, tc: &str| {
        let r = Ruleset::builtin(rules).unwrap();
        let t: TimeControl = tc.parse().unwrap_or_else(|e| panic!("{rules} {tc}: {e}"));
        matches!(
            r.judge_time_control(&t),
            TimeControlJudgement::Accepted { .. }
        )
    };
    for r in &list.rulesets {
        assert!(!r.controls.is_empty() && !r.name.is_empty());
        for tc in &r.controls {
            assert!(accepted(&r.id, tc), "{} refuses {tc}", r.id);
        }
    }
    assert_eq!(list.quick.len(), 7);
    for q in &list.quick {
        assert!(accepted(&q.rules, &q.time_control), "{q:?}");
    }
}

#[test]
fn online_sends_promotion_moves_once_a_piece_and_no_illegal_claim() {
    let body = r#"{"rules":"fide-b3","time_control":"3+2","mode":"online","fen":"8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"}"#;
    let (_, s) = played(body, &[]);
    let san = s.san.expect("online SAN");
    assert_eq!(san["e7e8q"], "e8=Q");
    assert_eq!(san["e7e8n"], "e8=N+", "the knight checks the king on g7");
    assert!(!san.contains_key("e7e8"));
    let (_, s) = played(
        r#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#,
        &[r#"{"at":10,"by":"white","move":"e2e4","press":true}"#],
    );
    assert!(
        !s.claims.black.iter().any(|k| k == "illegal"),
        "{:?}",
        s.claims
    );
    let (_, s) = played(
        r#"{"rules":"fide-b3","time_control":"3+2"}"#,
        &[r#"{"at":10,"by":"white","move":"e2e4","press":true}"#],
    );
    assert!(
        s.claims.black.iter().any(|k| k == "illegal"),
        "over the board it is offered"
    );
}

#[test]
fn a_name_holds_no_bidirectional_override() {
    // A right-to-left name, with a direction mark, is a name.
    assert!(crate::check_name("white", "\u{5D3}\u{5E0}\u{5D4} \u{200F}Cohen").is_ok());
    // An override or isolate would make one name read as another on screen.
    for c in ['\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}'] {
        let e = crate::check_name("black", &format!("Ann{c}rekaM")).unwrap_err();
        assert_eq!(e.field, "black");
        assert!(
            e.message.contains("bidirectional override"),
            "{}",
            e.message
        );
    }
}

#[test]
fn a_stored_name_is_fitted_to_a_game() {
    // A name that is a game's name stays as it is.
    assert_eq!(crate::fit_name("José Núñez-Müller"), "José Núñez-Müller");
    let sixty_four = "é".repeat(64);
    assert_eq!(crate::fit_name(&sixty_four), sixty_four);
    // Longer: cut to 64 characters with an ellipsis, and a game takes it.
    let long = format!("{} Smith", "A".repeat(120));
    let fitted = crate::fit_name(&long);
    assert_eq!(fitted.chars().count(), 64);
    assert!(
        fitted.ends_with('…') && fitted.starts_with("AAAA"),
        "{fitted}"
    );
    assert!(crate::check_name("white", &fitted).is_ok());
    // The cut never parts a letter from its combining accent.
    let accented = "e\u{301}".repeat(40);
    let fitted = crate::fit_name(&accented);
    assert!(crate::check_name("white", &fitted).is_ok());
    let body = fitted.trim_end_matches('…');
    assert!(body.ends_with('\u{301}'), "{fitted:?}");
    assert_eq!(body.chars().count() % 2, 0, "{fitted:?}");
    // An override or a control character becomes a space.
    assert_eq!(crate::fit_name("Ann\u{202E}rekaM"), "Ann rekaM");
    assert_eq!(crate::fit_name("Ann\tLee"), "Ann Lee");
}

#[test]
fn a_typed_san_move_parses_with_press_only() {
    let f = parse_frame(r#"{"san":"Nf3","press":true,"id":"s1","lag_ms":12}"#).unwrap();
    let ClientFrame::Action {
        san, action, id, ..
    } = f
    else {
        panic!("expected an action");
    };
    assert_eq!(san.as_deref(), Some("Nf3"));
    assert_eq!(id.as_deref(), Some("s1"));
    assert!(action.presses());
    let e = parse_frame(r#"{"san":"Nf3","claim":"flag"}"#).unwrap_err();
    assert_eq!(e.field, "claim");
    let e = parse_frame(r#"{"san":["Nf3"]}"#).unwrap_err();
    assert_eq!(e.field, "san");
    let e = parse_frame(r#"{"san":"Nf3","lag_ms":5}"#).unwrap_err();
    assert_eq!(e.field, "lag_ms");
    let e = parse_frame(r#"{"san":"Qa1xh8+!? and more"}"#).unwrap_err();
    assert!(e.message.contains("longer than 16"), "{e}");
}
