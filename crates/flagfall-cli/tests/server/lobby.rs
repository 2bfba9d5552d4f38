//! Issue 10's lobby and practice additions, end to end: a player calling the director,
//! open challenges accepted once, the game list's names, the practice computer leaving a
//! threefold repetition to claim, and the practice computer playing on after `kill -9`.

use serde_json::{Value, json};

use crate::support::*;

const USCF: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;

/// The number of moves after an `event` message: its update's tail and what it keeps.
fn moves_len(m: &Value) -> usize {
    let kept = m["update"]["moves_from"].as_u64().unwrap_or(0) as usize;
    kept + m["update"]["moves"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_calls_the_director_who_resumes_the_clock() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    black
        .send(json!({"call_director":true,"reason":"my opponent keeps talking"}))
        .await;
    let ev = black.event().await;
    assert_eq!(ev["event"]["by"], "black");
    assert_eq!(ev["rulings"][0]["kind"], "clock");
    assert_eq!(ev["rulings"][0]["rule"], "uscf-2020 11");
    let called = &ev["update"]["called"];
    assert_eq!(called["by"], "black");
    assert_eq!(called["reason"], "my opponent keeps talking");
    assert_eq!(ev["update"]["running"], Value::Null);
    // The director and the spectator page see the call too.
    let seen = director.until_n(2).await;
    assert_eq!(seen["update"]["called"]["by"], "black");
    assert_eq!(srv.state(&g.id).await["called"]["by"], "black");
    // While the director is awaited, a move is refused and a second call too.
    black
        .send(json!({"move":"e7e5","press":true,"id":"m"}))
        .await;
    let r = black.until_type("refused").await;
    assert_eq!(r["id"], "m");
    white.send(json!({"call_director":true,"id":"c2"})).await;
    let r = white.until_type("refused").await;
    assert!(r["reason"].as_str().unwrap().contains("already"), "{r}");
    // A director cannot call the director: screened, nothing stored.
    director.send(json!({"call_director":true,"id":"d"})).await;
    director.until_type("refused").await;
    director.send(json!({"start_clock":true})).await;
    let ev = director.event().await;
    assert_eq!(ev["update"]["called"], Value::Null);
    assert_eq!(ev["update"]["running"], "black");
    black.send(json!({"move":"e7e5","press":true})).await;
    assert_eq!(black.event().await["update"]["running"], "white");
    srv.assert_replay_matches(&g.id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_challenge_is_accepted_once_and_the_creator_learns_the_game() {
    let srv = Server::start().await;
    // Bad bodies name the field.
    for (body, field) in [
        (
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","color":"green"}"#,
            "color",
        ),
        (
            r#"{"rules":"uscf-2020","time_control":"G/99"}"#,
            "time_control",
        ),
        (
            r#"{"rules":"uscf-2020","time_control":"G/5","nmae":"x"}"#,
            "nmae",
        ),
        ("not json", "(json)"),
    ] {
        let (status, text) = srv.post("/api/challenges", body).await;
        assert_eq!(status, 400, "{body}: {text}");
        assert!(text.contains(&format!("`{field}`")), "{body}: {text}");
    }
    let (status, text) = srv
        .post(
            "/api/challenges",
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","color":"white","name":"Ann"}"#,
        )
        .await;
    assert_eq!(status, 201, "{text}");
    let created: Value = serde_json::from_str(&text).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let secret = created["secret"].as_str().unwrap().to_string();
    assert_eq!(
        created["url"],
        format!("/challenge/{id}?secret={secret}").as_str()
    );
    assert!(
        srv.get_text(&format!("/challenge/{id}"))
            .await
            .contains("<html")
    );
    let open = srv.get_json("/api/challenges").await;
    assert_eq!(open[0]["id"], id.as_str());
    assert_eq!(open[0]["name"], "Ann");
    assert_eq!(open[0]["color"], "white");
    assert_eq!(open[0]["rules"], "uscf-2020");
    assert!(!open.to_string().contains(&secret), "no secrets listed");
    assert_eq!(
        srv.get_status(&format!("/api/challenges/{id}?secret=wrong"))
            .await,
        403
    );
    let waiting = srv
        .get_json(&format!("/api/challenges/{id}?secret={secret}"))
        .await;
    assert_eq!(waiting["status"], "open");
    assert!(waiting.get("game").is_none());
    // Two accepts at once: one game.
    let path = format!("/api/challenges/{id}/accept");
    let (a, b) = tokio::join!(
        srv.post(&path, r#"{"name":"Bo"}"#),
        srv.post(&path, r#"{"name":"Cy"}"#)
    );
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses, [201, 409], "{a:?} {b:?}");
    let won = if a.0 == 201 { &a.1 } else { &b.1 };
    let accepted: Value = serde_json::from_str(won).unwrap();
    assert_eq!(accepted["color"], "black");
    let game_id = accepted["game_id"].as_str().unwrap().to_string();
    let accepter_token = accepted["token"].as_str().unwrap().to_string();
    assert_eq!(
        accepted["url"],
        format!("/play/{game_id}?token={accepter_token}").as_str()
    );
    // The creator learns the game with the secret, and plays White with the token.
    let seen = srv
        .get_json(&format!("/api/challenges/{id}?secret={secret}"))
        .await;
    assert_eq!(seen["status"], "accepted");
    assert_eq!(seen["game"]["id"], game_id.as_str());
    assert_eq!(seen["game"]["color"], "white");
    let creator_token = seen["game"]["token"].as_str().unwrap().to_string();
    let mut white = srv.connect(&game_id, Some(&creator_token)).await;
    assert_eq!(white.initial["role"], "white");
    let mut black = srv.connect(&game_id, Some(&accepter_token)).await;
    assert_eq!(black.initial["role"], "black");
    assert!(seen["game"].get("director_url").is_none(), "no director");
    let setup = &white.initial["setup"];
    assert_eq!(setup["white"], "Ann");
    assert!(setup["black"] == "Bo" || setup["black"] == "Cy", "{setup}");
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    black.send(json!({"move":"e7e5","press":true})).await;
    black.event().await;
    // No longer open: not listed, not cancellable, not acceptable.
    assert_eq!(srv.get_json("/api/challenges").await, json!([]));
    let del = format!("/api/challenges/{id}?secret={secret}");
    assert_eq!(srv.request("DELETE", &del, "").await.0, 409);
    assert_eq!(srv.post(&path, "").await.0, 409);
    assert_eq!(srv.post("/api/challenges/nope/accept", "").await.0, 404);
    // The game list carries the setup's names, ruleset and time control.
    let live = srv.get_json("/api/games?status=live").await;
    assert_eq!(live[0]["id"], game_id.as_str());
    assert_eq!(live[0]["white"], "Ann");
    assert_eq!(live[0]["rules"], "uscf-2020");
    assert_eq!(live[0]["time_control"], "G/5;d0");
    assert_eq!(live[0]["mode"], "otb");
    // A second challenge, cancelled by its creator only.
    let (_, text) = srv.post("/api/challenges", USCF).await;
    let c2: Value = serde_json::from_str(&text).unwrap();
    let id2 = c2["id"].as_str().unwrap();
    let s2 = c2["secret"].as_str().unwrap();
    assert_eq!(
        srv.request("DELETE", &format!("/api/challenges/{id2}?secret=x"), "")
            .await
            .0,
        403
    );
    assert_eq!(
        srv.request("DELETE", &format!("/api/challenges/{id2}"), "")
            .await
            .0,
        400
    );
    assert_eq!(
        srv.request("DELETE", &format!("/api/challenges/{id2}?secret={s2}"), "")
            .await
            .0,
        204
    );
    assert_eq!(
        srv.post(&format!("/api/challenges/{id2}/accept"), "")
            .await
            .0,
        409
    );
    let (status, text) = srv
        .post(&format!("/api/challenges/{id2}/accept"), r#"{"name":42}"#)
        .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("`name`"), "{text}");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn training_leaves_a_threefold_repetition_and_the_claim_is_granted() {
    let srv = Server::start().await;
    let body = json!({
        "setup": {"rules": "uscf-2020", "time_control": "G/5;d0"},
        "computer": {"color": "black", "level": 1, "training": true, "illegal_rate": 0.0,
                     "seed": 7, "repeat_at": 0}
    });
    let (status, text) = srv.post("/api/practice", &body.to_string()).await;
    assert_eq!(status, 201, "{text}");
    let g: Value = serde_json::from_str(&text).unwrap();
    let id = g["id"].as_str().unwrap();
    let mut white = srv
        .connect(id, Some(g["tokens"]["white"].as_str().unwrap()))
        .await;
    // White shuffles the king's knight; the computer shuffles one of its own and plays
    // back into positions that stood before.
    for (i, mv) in ["g1f3", "f3g1", "g1f3", "f3g1"].iter().enumerate() {
        white.send(json!({"move": mv, "press": true})).await;
        white.event().await;
        let reply = white
            .until(|m| m["type"] == "event" && moves_len(m) == 2 * i + 2)
            .await;
        let last = &white.view["moves"][2 * i + 1];
        assert_eq!(last["by"], "black");
        // Over the board the wire carries no SAN while the game goes on: the piece on
        // the move's destination in the board after it says it was a knight.
        let to = &last["uci"].as_str().unwrap()[2..4];
        assert_eq!(
            piece_at(last["fen"].as_str().unwrap(), to),
            Some('n'),
            "{reply}"
        );
        assert!(last.get("san").is_none(), "{reply}");
    }
    // The start position now stands for the third time: the computer did not claim, the
    // player does, and the ruling cites the rule.
    let state = srv.state(id).await;
    assert_eq!(state["result"], "*");
    assert_eq!(
        state["fen"].as_str().unwrap().split(' ').next().unwrap(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    );
    white.send(json!({"claim":"threefold"})).await;
    let ev = white.event().await;
    assert_eq!(ev["result"], "1/2-1/2");
    assert_eq!(ev["update"]["reason"], "repetition");
    assert_eq!(ev["rulings"][0]["rule"], "uscf-2020 8");
    srv.assert_replay_matches(id).await;
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_practice_computer_plays_on_after_a_sigkill_restart() {
    let mut proc = Process::start(None).await;
    let body = json!({
        "setup": {"rules": "uscf-2020", "time_control": "G/5;d0"},
        "computer": {"color": "black", "level": 1, "training": false, "seed": 3}
    });
    let (status, text) = proc.post("/api/practice", &body.to_string()).await;
    assert_eq!(status, 201, "{text}");
    let g: Value = serde_json::from_str(&text).unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let token = g["tokens"]["white"].as_str().unwrap().to_string();
    let mut white = proc.connect(&id, Some(&token)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    white
        .until(|m| m["type"] == "event" && moves_len(m) == 2)
        .await;
    drop(white);
    proc.kill9();
    let proc = Process::start(Some(proc.into_db())).await;
    let mut white = proc.connect(&id, Some(&token)).await;
    assert_eq!(white.initial["moves"].as_array().unwrap().len(), 2);
    let second = if white.initial["moves"][1]["uci"] == "d7d5" {
        "e4d5"
    } else {
        "d2d4"
    };
    white.send(json!({"move": second, "press": true})).await;
    white.event().await;
    let reply = white
        .until(|m| m["type"] == "event" && moves_len(m) == 4)
        .await;
    assert_eq!(white.view["moves"][3]["by"], "black", "{reply}");
    proc.assert_replay_matches(&id).await;
    proc.terminate().await;
}

/// The processes whose command line mentions `needle` (Linux's `/proc`); zombies, whose
/// command line is empty, are not counted.
#[cfg(target_os = "linux")]
fn processes_mentioning(needle: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(needle))
        .count()
}

/// The value of an unlabelled metric in `/metrics`.
#[cfg(target_os = "linux")]
async fn metric(srv: &Server, name: &str) -> Option<String> {
    let text = srv.get_text("/metrics").await;
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")).map(str::to_string))
}

/// Issue 19 item 17: a practice computer ends with its game, and its engine process with
/// it (it used to poll the game every 500 ms and keep the process for ever). The game is
/// finished by resignation and by a declared result; each time the computer task and
/// the engine process are gone, as `/metrics` and the process table show.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_practice_computer_and_its_engine_end_with_the_game() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("practice-engine.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nwhile read line; do case \"$line\" in uci) echo uciok;; isready) echo readyok;; \
         go*) echo 'bestmove (none)';; quit) exit 0;; esac; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let needle = path.to_string_lossy().to_string();
    let srv = Server::start_engine(
        Some(path.clone()),
        flagfall_server::limits::Limits::unlimited(),
    )
    .await;
    for finish in [
        json!({"resign": true}),
        json!({"result": {"result": "0-1"}}),
    ] {
        let body = json!({
            "setup": {"rules": "uscf-2020", "time_control": "G/5;d0"},
            "computer": {"color": "black", "level": 1, "seed": 5}
        });
        let (status, text) = srv.post("/api/practice", &body.to_string()).await;
        assert_eq!(status, 201, "{text}");
        let g: Value = serde_json::from_str(&text).unwrap();
        let id = g["id"].as_str().unwrap();
        let mut white = srv
            .connect(id, Some(g["tokens"]["white"].as_str().unwrap()))
            .await;
        white.send(json!({"move":"e2e4","press":true})).await;
        white.event().await;
        white
            .until(|m| m["type"] == "event" && moves_len(m) == 2)
            .await;
        assert_eq!(processes_mentioning(&needle), 1, "the engine runs");
        assert_eq!(
            metric(&srv, "flagfall_practice_computers").await.as_deref(),
            Some("1")
        );
        assert_eq!(
            metric(&srv, "flagfall_engine_processes").await.as_deref(),
            Some("1")
        );
        let by = if finish.get("result").is_some() {
            let mut director = srv
                .connect(id, Some(g["tokens"]["director"].as_str().unwrap()))
                .await;
            director.send(finish.clone()).await;
            director.event().await
        } else {
            white.send(finish.clone()).await;
            white.event().await
        };
        assert_eq!(by["result"], "0-1", "{finish}: {by}");
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let gone = processes_mentioning(&needle) == 0
                && metric(&srv, "flagfall_practice_computers").await.as_deref() == Some("0")
                && metric(&srv, "flagfall_engine_processes").await.as_deref() == Some("0");
            if gone {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{finish}: 5 s after the game ended: {} engine processes, computers {:?}, engines {:?}",
                processes_mentioning(&needle),
                metric(&srv, "flagfall_practice_computers").await,
                metric(&srv, "flagfall_engine_processes").await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    srv.stop().await;
}

/// The piece letter on `square` (`"f6"`) of a FEN's placement.
fn piece_at(fen: &str, square: &str) -> Option<char> {
    let b = square.as_bytes();
    let (file, rank) = (usize::from(b[0] - b'a'), usize::from(b[1] - b'1'));
    let row = fen.split(' ').next()?.split('/').nth(7 - rank)?;
    let mut f = 0;
    for c in row.chars() {
        match c.to_digit(10) {
            Some(n) => f += n as usize,
            None => {
                if f == file {
                    return Some(c);
                }
                f += 1;
            }
        }
        if f > file {
            return None;
        }
    }
    None
}
