use super::*;
use flagfall_game::Game;
use flagfall_game::script::{self, Action};
use serde_json::Value;

#[test]
fn a_move_with_press_and_id_parses() {
    let f = parse_frame(r#"{"move":"e2e4","press":true,"id":"a1","lag_ms":20}"#).unwrap();
    match f {
        ClientFrame::Action { id, lag_ms, action } => {
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
    ];
    let mut shrank = false;
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
        let snap = Snapshot::of(&game, moves.entries(), from, cx(n, event.at));
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
    assert_eq!(view.moves.len(), 4);
}
