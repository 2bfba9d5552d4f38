//! The contract both backends are tested against (`exercise`), and what `open` refuses.

use std::sync::Arc;

use crate::{ChallengeStatus, NewChallenge, NewEvent, NewGame, Status, Store, open};

pub(crate) fn game(id: &str) -> NewGame {
    NewGame {
        id: id.into(),
        setup: r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#.into(),
        mode: "otb".into(),
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
        color: "random".into(),
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
        store.accept_challenge("c1", "white", &a),
        store.accept_challenge("c1", "black", &b)
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert!(ra ^ rb, "exactly one accept wins: {ra} {rb}");
    let (won, lost, colour) = if ra {
        ("ga", "gb", "white")
    } else {
        ("gb", "ga", "black")
    };
    assert!(store.game(won).await.unwrap().is_some());
    assert!(
        store.game(lost).await.unwrap().is_none(),
        "the losing accept created no game"
    );
    let row = store.challenge("c1").await.unwrap().unwrap();
    assert_eq!(row.status, ChallengeStatus::Accepted);
    assert_eq!(row.game_id.as_deref(), Some(won));
    assert_eq!(row.creator_color.as_deref(), Some(colour));
    assert!(
        !store
            .accept_challenge("c1", "white", &game("gc"))
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
            .accept_challenge("c2", "white", &game("gd"))
            .await
            .unwrap()
    );
    assert!(store.open_challenges(0, 10).await.unwrap().is_empty());
    assert!(store.challenge("nope").await.unwrap().is_none());
}

pub(crate) fn ev(id: &str, n: i64, finished: Option<&str>) -> NewEvent {
    NewEvent {
        game_id: id.into(),
        n,
        json: format!(r#"{{"at":{n},"by":"white","press":true}}"#),
        by_role: Some("white".into()),
        client_id: (n == 1).then(|| "c1".into()),
        finished: finished.map(str::to_string),
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
        ev("g1", 2, Some("1-0")),
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
    assert_eq!((row.status, row.result.as_str()), (Status::Finished, "1-0"));
    assert_eq!(row.game, game("g1"));
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
    store.append(&[ev("p1", 1, Some("0-1"))]).await.unwrap();
    let finished = store.game("p1").await.unwrap().unwrap();
    assert_eq!((finished.status, finished.game), (Status::Finished, p));
    // Heartbeats: the latest of each game's, never going back.
    assert_eq!(store.last_beat("g2").await.unwrap(), None);
    store
        .beat(&[("g2".into(), 1500), ("p1".into(), 10)])
        .await
        .unwrap();
    store.beat(&[("g2".into(), 900)]).await.unwrap();
    assert_eq!(store.last_beat("g2").await.unwrap(), Some(1500));
    store.beat(&[("g2".into(), 2500)]).await.unwrap();
    assert_eq!(store.last_beat("g2").await.unwrap(), Some(2500));
    assert_eq!(store.last_beat("p1").await.unwrap(), Some(10));
    exercise_challenges(store.clone()).await;
    exercise_tournaments(store).await;
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
        games: vec![game("tg1")],
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
    };
    assert!(store.tournament_commit(&clash).await.is_err());
    assert_eq!(store.tournament_log("t1").await.unwrap().len(), 2);
    assert!(store.game("tg2").await.unwrap().is_none());
    assert_eq!(store.tournament_of_game("tg2").await.unwrap(), None);
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
