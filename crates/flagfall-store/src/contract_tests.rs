//! The contract both backends are tested against (`exercise`), and what `open` refuses.

use std::sync::Arc;

use flagfall_game::GameResult;
use flagfall_protocol::challenge::ColorChoice;
use flagfall_protocol::{ColorName, Mode, Role};

use crate::{ChallengeStatus, ClockMark, NewChallenge, NewEvent, NewGame, Status, Store, open};

pub(crate) fn game(id: &str) -> NewGame {
    NewGame {
        id: id.into(),
        setup: r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#.into(),
        mode: Mode::Otb,
        token_white: "w".into(),
        token_black: "b".into(),
        token_director: "d".into(),
        created_ms: 1,
        practice: None,
    }
}

pub(crate) fn challenge(id: &str, created_ms: i64) -> NewChallenge {
    NewChallenge {
        id: id.into(),
        body: r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#.into(),
        color: ColorChoice::Random,
        name: Some("Ann".into()),
        secret_hash: format!("s-{id}"),
        token_hash: format!("t-{id}"),
        director_hash: format!("d-{id}"),
        created_ms,
    }
}

/// Challenges: listed while open, accepted once (even by two concurrent accepts,
/// whose loser writes nothing), cancelled only with the secret.
pub(crate) async fn exercise_challenges(store: Arc<dyn Store>) {
    store.create_challenge(&challenge("c1", 10)).await.unwrap();
    store.create_challenge(&challenge("c2", 20)).await.unwrap();
    assert!(store.create_challenge(&challenge("c1", 30)).await.is_err());
    let open = store.open_challenges(0, 10).await.unwrap();
    assert_eq!(
        store.open_challenges(15, 10).await.unwrap().len(),
        1,
        "only those created after since_ms"
    );
    assert_eq!(
        open.iter()
            .map(|c| c.challenge.id.as_str())
            .collect::<Vec<_>>(),
        ["c2", "c1"]
    );
    assert_eq!(open[1].challenge, challenge("c1", 10));
    assert_eq!(open[1].status, ChallengeStatus::Open);
    let (a, b) = (game("ga"), game("gb"));
    let (ra, rb) = tokio::join!(
        store.accept_challenge("c1", ColorName::White, &a),
        store.accept_challenge("c1", ColorName::Black, &b)
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert!(ra ^ rb, "exactly one accept wins: {ra} {rb}");
    let (won, lost, colour) = if ra {
        ("ga", "gb", ColorName::White)
    } else {
        ("gb", "ga", ColorName::Black)
    };
    assert!(store.game(won).await.unwrap().is_some());
    assert!(
        store.game(lost).await.unwrap().is_none(),
        "the losing accept created no game"
    );
    let row = store.challenge("c1").await.unwrap().unwrap();
    assert_eq!(row.status, ChallengeStatus::Accepted);
    assert_eq!(row.game_id.as_deref(), Some(won));
    assert_eq!(row.creator_color, Some(colour));
    assert!(
        !store
            .accept_challenge("c1", ColorName::White, &game("gc"))
            .await
            .unwrap()
    );
    assert!(
        !store.cancel_challenge("c1", "s-c1").await.unwrap(),
        "accepted"
    );
    assert!(!store.cancel_challenge("c2", "wrong").await.unwrap());
    assert!(store.cancel_challenge("c2", "s-c2").await.unwrap());
    assert_eq!(
        store.challenge("c2").await.unwrap().unwrap().status,
        ChallengeStatus::Cancelled
    );
    assert!(
        !store
            .accept_challenge("c2", ColorName::White, &game("gd"))
            .await
            .unwrap()
    );
    assert!(store.open_challenges(0, 10).await.unwrap().is_empty());
    assert!(store.challenge("nope").await.unwrap().is_none());
}

pub(crate) fn ev(id: &str, n: i64, finished: Option<GameResult>) -> NewEvent {
    NewEvent {
        game_id: id.into(),
        n,
        json: format!(r#"{{"at":{n},"by":"white","press":true}}"#),
        by_role: Some(Role::White),
        client_id: (n == 1).then(|| "c1".into()),
        finished,
    }
}

pub(crate) async fn exercise(store: Arc<dyn Store>) {
    store.create_game(&game("g1")).await.unwrap();
    store.create_game(&game("g2")).await.unwrap();
    assert!(
        store.create_game(&game("g1")).await.is_err(),
        "ids are unique"
    );
    let batch = vec![
        ev("g1", 1, None),
        ev("g2", 1, None),
        ev("g1", 2, Some(GameResult::WhiteWins)),
    ];
    store.append(&batch).await.unwrap();
    let events = store.events("g1").await.unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].client_id.as_deref(), Some("c1"));
    assert_eq!(events[1].json, batch[2].json);
    // A batch that repeats a stored event fails whole: nothing of it is kept.
    let bad = vec![ev("g2", 2, None), ev("g1", 2, None)];
    assert!(store.append(&bad).await.is_err());
    assert_eq!(store.events("g2").await.unwrap().len(), 1);
    let row = store.game("g1").await.unwrap().unwrap();
    assert_eq!(
        (row.status, row.result),
        (Status::Finished, GameResult::WhiteWins)
    );
    assert_eq!(row.game, game("g1"));
    assert_eq!(store.live_ids().await.unwrap(), ["g2"], "g1 finished");
    assert!(store.game("nope").await.unwrap().is_none());
    let live = store.list(Some(Status::Live), 10).await.unwrap();
    assert_eq!(
        live.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(),
        ["g2"]
    );
    assert_eq!(store.list(None, 10).await.unwrap().len(), 2);
    assert_eq!(live[0].setup, game("g2").setup);
    // A practice game keeps its computer's settings, live and finished.
    let mut p = game("p1");
    p.practice = Some(r#"{"color":"black"}"#.into());
    store.create_game(&p).await.unwrap();
    assert_eq!(store.game("p1").await.unwrap().unwrap().game, p);
    store
        .append(&[ev("p1", 1, Some(GameResult::BlackWins))])
        .await
        .unwrap();
    let finished = store.game("p1").await.unwrap().unwrap();
    assert_eq!((finished.status, finished.game), (Status::Finished, p));
    // The heartbeat: one row per run; a game's clock reached = its mark plus the wall
    // time to its run's last beat, never going back; a game without a mark has none.
    let mark = |id: &str, at: i64, wall_ms: i64| ClockMark {
        game_id: id.into(),
        at,
        wall_ms,
        lease: None,
    };
    assert_eq!(store.last_beat("g2").await.unwrap(), None);
    store
        .alive(
            "r1",
            1_000,
            1_000,
            &[mark("g2", 1500, 1_000), mark("p1", 10, 1_000)],
        )
        .await
        .unwrap();
    assert_eq!(store.last_beat("g2").await.unwrap(), Some(1500));
    store.alive("r1", 1_000, 1_400, &[]).await.unwrap();
    assert_eq!(store.last_beat("g2").await.unwrap(), Some(1900));
    assert_eq!(store.last_beat("p1").await.unwrap(), Some(410));
    store.alive("r1", 1_000, 1_200, &[]).await.unwrap();
    assert_eq!(
        store.last_beat("g2").await.unwrap(),
        Some(1900),
        "never back"
    );
    // A second run: the game's old mark still counts up to its own run's last beat
    // until the new run stores the game's new mark.
    store.alive("r2", 9_000, 9_000, &[]).await.unwrap();
    assert_eq!(store.last_beat("g2").await.unwrap(), Some(1900));
    store
        .alive("r2", 9_000, 9_400, &[mark("g2", 1900, 9_400)])
        .await
        .unwrap();
    store.alive("r2", 9_000, 9_800, &[]).await.unwrap();
    assert_eq!(store.last_beat("g2").await.unwrap(), Some(2300));
    assert_eq!(store.last_beat("p1").await.unwrap(), Some(410));
    exercise_aborts(store.clone()).await;
    exercise_challenges(store.clone()).await;
    exercise_rematches(store.clone()).await;
    exercise_tournaments(store).await;
}

/// Rematches: an offer stored; the other player's offer does not replace a standing one;
/// declined only by the offer it answers; offered again; of two concurrent accepts one
/// creates its game and the other writes nothing; nothing changes an accepted rematch.
pub(crate) async fn exercise_rematches(store: Arc<dyn Store>) {
    use flagfall_protocol::RematchStatus;
    let (w, b) = (ColorName::White, ColorName::Black);
    store.create_game(&game("r-old")).await.unwrap();
    assert!(store.rematch("r-old").await.unwrap().is_none());
    assert!(
        !store.decline_rematch("r-old", w, 5).await.unwrap(),
        "nothing offered"
    );
    assert!(store.offer_rematch("r-old", w, "hw", 10).await.unwrap());
    let row = store.rematch("r-old").await.unwrap().unwrap();
    assert_eq!(
        row,
        crate::RematchRow {
            game_id: "r-old".into(),
            offered_by: w,
            status: RematchStatus::Offered,
            offer_token_hash: "hw".into(),
            new_game: None,
            updated_ms: 10,
        }
    );
    // White's offer stands: Black's offer is an answer, not a replacement.
    assert!(!store.offer_rematch("r-old", b, "hb", 11).await.unwrap());
    assert!(
        store.offer_rematch("r-old", w, "hw2", 12).await.unwrap(),
        "again"
    );
    assert_eq!(
        store
            .rematch("r-old")
            .await
            .unwrap()
            .unwrap()
            .offer_token_hash,
        "hw2"
    );
    assert!(
        !store.decline_rematch("r-old", b, 13).await.unwrap(),
        "Black offered nothing"
    );
    assert!(store.decline_rematch("r-old", w, 14).await.unwrap());
    let row = store.rematch("r-old").await.unwrap().unwrap();
    assert_eq!(
        (row.status, row.offered_by, row.updated_ms),
        (RematchStatus::Declined, w, 14)
    );
    assert!(
        !store.decline_rematch("r-old", w, 15).await.unwrap(),
        "declined already"
    );
    // After a decline either player may offer; Black does.
    assert!(store.offer_rematch("r-old", b, "hb", 16).await.unwrap());
    let (a1, a2) = (game("r-new1"), game("r-new2"));
    let (x, y) = tokio::join!(
        store.accept_rematch("r-old", b, &a1, 17),
        store.accept_rematch("r-old", b, &a2, 17)
    );
    let (x, y) = (x.unwrap(), y.unwrap());
    assert!(x ^ y, "exactly one accept wins: {x} {y}");
    let (won, lost) = if x {
        ("r-new1", "r-new2")
    } else {
        ("r-new2", "r-new1")
    };
    assert!(store.game(won).await.unwrap().is_some());
    assert!(
        store.game(lost).await.unwrap().is_none(),
        "the losing accept created no game"
    );
    let row = store.rematch("r-old").await.unwrap().unwrap();
    assert_eq!(row.status, RematchStatus::Accepted);
    assert_eq!(row.new_game.as_deref(), Some(won));
    assert_eq!(row.offer_token_hash, "hb");
    // Accepted is final: no offer, decline or second accept changes it.
    assert!(!store.offer_rematch("r-old", b, "x", 18).await.unwrap());
    assert!(!store.offer_rematch("r-old", w, "x", 18).await.unwrap());
    assert!(!store.decline_rematch("r-old", b, 18).await.unwrap());
    assert!(
        !store
            .accept_rematch("r-old", b, &game("r-new3"), 18)
            .await
            .unwrap()
    );
    assert!(store.game("r-new3").await.unwrap().is_none());
    assert_eq!(store.rematch("r-old").await.unwrap().unwrap(), row);
    // A rematch belongs to a stored game.
    assert!(
        store
            .offer_rematch("no-such-game", w, "h", 19)
            .await
            .is_err()
    );
}

/// Aborts: only a live game with no event, alone or all created before a time; the
/// aborted game keeps its row and leaves the live list.
pub(crate) async fn exercise_aborts(store: Arc<dyn Store>) {
    let mut old = game("a-old");
    old.created_ms = 100;
    let mut new = game("a-new");
    new.created_ms = 5_000;
    let mut played = game("a-played");
    played.created_ms = 100;
    for g in [&old, &new, &played] {
        store.create_game(g).await.unwrap();
    }
    store.append(&[ev("a-played", 1, None)]).await.unwrap();
    assert_eq!(store.abort_unstarted(1_000).await.unwrap(), 1, "only a-old");
    let row = store.game("a-old").await.unwrap().unwrap();
    assert_eq!((row.status, row.result.as_str()), (Status::Aborted, "*"));
    assert_eq!(row.game, old, "nothing of the row is lost");
    assert_eq!(
        store.game("a-played").await.unwrap().unwrap().status,
        Status::Live
    );
    assert!(!store.abort_game("a-played").await.unwrap(), "it started");
    assert!(!store.abort_game("a-old").await.unwrap(), "already aborted");
    assert!(!store.abort_game("g1").await.unwrap(), "finished");
    assert!(store.abort_game("a-new").await.unwrap());
    let aborted = store.list(Some(Status::Aborted), 10).await.unwrap();
    assert_eq!(
        aborted.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(),
        ["a-new", "a-old"]
    );
    let live = store.list(Some(Status::Live), 10).await.unwrap();
    assert!(
        live.iter()
            .all(|g| !g.id.starts_with("a-") || g.id == "a-played")
    );
}

#[tokio::test]
async fn bad_urls_are_named() {
    let e = open("sqlite:").await.err().expect("an error");
    assert!(e.to_string().contains("no file named"), "{e}");
    let e = open("postgres://127.0.0.1:1/x?sslmode=bogus")
        .await
        .err()
        .expect("an error");
    assert!(
        e.to_string().contains("sslmode") || e.to_string().contains("URL"),
        "{e}"
    );
}

/// Evenings: created with their tokens; a commit writes its log rows, tokens and games
/// together; a commit that fails (a log row already stored) writes nothing.
pub(crate) async fn exercise_tournaments(store: Arc<dyn Store>) {
    use crate::{NewTournament, TournamentCommit, TournamentLogRow, TournamentToken};
    let t = NewTournament {
        id: "t1".into(),
        base: "{}".into(),
        settings: r#"{"play":"server"}"#.into(),
        created_ms: 5,
    };
    let token = |hash: &str, role: &str, player: Option<&str>| TournamentToken {
        token_hash: hash.into(),
        tournament_id: "t1".into(),
        role: role.into(),
        player: player.map(Into::into),
    };
    store
        .create_tournament(&t, &[token("h-dir", "director", None)])
        .await
        .unwrap();
    assert!(store.tournament("nope").await.unwrap().is_none());
    assert_eq!(store.tournament("t1").await.unwrap(), Some(t.clone()));
    let row = |seq: i64| TournamentLogRow {
        seq,
        json: format!("{{\"n\":{seq}}}"),
    };
    let first = TournamentCommit {
        tournament_id: "t1".into(),
        log: vec![row(1), row(2)],
        tokens: vec![token("h-ann", "player", Some("Ann"))],
        games: vec![game("tg1"), game("tg3")],
        abort: vec![],
    };
    store.tournament_commit(&first).await.unwrap();
    assert_eq!(
        store.tournament_log("t1").await.unwrap(),
        vec![row(1), row(2)]
    );
    assert_eq!(
        store.tournament_of_game("tg1").await.unwrap().as_deref(),
        Some("t1")
    );
    assert!(store.game("tg1").await.unwrap().is_some());
    // Seq 2 is stored already: nothing of this commit lands, its game neither.
    let clash = TournamentCommit {
        tournament_id: "t1".into(),
        log: vec![row(2), row(3)],
        tokens: vec![token("h-bob", "player", Some("Bob"))],
        games: vec![game("tg2")],
        abort: vec![],
    };
    // Seq 2 taken by another writer is a conflict (the caller catches up and tries
    // again), not a database failure.
    assert!(matches!(
        store.tournament_commit(&clash).await,
        Err(crate::StoreError::Conflict(m)) if m.contains("t1")
    ));
    assert_eq!(store.tournament_log("t1").await.unwrap().len(), 2);
    // What was stored after a seq, in order: all of it, one row, nothing.
    assert_eq!(
        store.tournament_log_after("t1", 0).await.unwrap(),
        vec![row(1), row(2)]
    );
    assert_eq!(
        store.tournament_log_after("t1", 1).await.unwrap(),
        vec![row(2)]
    );
    assert!(
        store
            .tournament_log_after("t1", 2)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .tournament_log_after("nope", 0)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.game("tg2").await.unwrap().is_none());
    assert_eq!(store.tournament_of_game("tg2").await.unwrap(), None);
    // A round deleted: its games never begun are aborted with its log row; one that
    // has begun fails the whole commit, nothing written.
    store
        .append(&[crate::NewEvent {
            game_id: "tg3".into(),
            n: 1,
            json: r#"{"at":0,"by":"white","move":"e2e4"}"#.into(),
            by_role: None,
            client_id: None,
            finished: None,
        }])
        .await
        .unwrap();
    let begun = TournamentCommit {
        tournament_id: "t1".into(),
        log: vec![row(3)],
        abort: vec!["tg1".into(), "tg3".into()],
        ..TournamentCommit::default()
    };
    assert!(matches!(
        store.tournament_commit(&begun).await,
        Err(crate::StoreError::Conflict(m)) if m.contains("tg3")
    ));
    assert_eq!(store.tournament_log("t1").await.unwrap().len(), 2);
    assert_eq!(
        store.game("tg1").await.unwrap().unwrap().status,
        crate::Status::Live
    );
    let deleted = TournamentCommit {
        tournament_id: "t1".into(),
        log: vec![row(3)],
        abort: vec!["tg1".into()],
        ..TournamentCommit::default()
    };
    store.tournament_commit(&deleted).await.unwrap();
    assert_eq!(store.tournament_log("t1").await.unwrap().len(), 3);
    assert_eq!(
        store.game("tg1").await.unwrap().unwrap().status,
        crate::Status::Aborted
    );
    assert!(!store.live_ids().await.unwrap().contains(&"tg1".to_string()));
    let mut tokens = store.tournament_tokens("t1").await.unwrap();
    tokens.sort_by(|a, b| a.token_hash.cmp(&b.token_hash));
    assert_eq!(
        tokens,
        vec![
            token("h-ann", "player", Some("Ann")),
            token("h-dir", "director", None)
        ]
    );
}
