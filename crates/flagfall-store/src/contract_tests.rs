//! The contract both backends are tested against (`exercise`), and what `open` refuses.

use std::sync::Arc;

use flagfall_game::GameResult;
use flagfall_protocol::challenge::ColorChoice;
use flagfall_protocol::{ColorName, Mode, Role};

use crate::{ChallengeStatus, NewChallenge, NewEvent, NewGame, Status, Store, open};

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
    exercise_challenges(store).await;
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
