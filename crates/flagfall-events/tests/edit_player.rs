//! `Change::EditPlayer` (issue 31): a player's details corrected. Before round 1 the
//! pairing numbers follow the new rating; after, they stay. A refused edit leaves the event
//! as it was; the log replayed gives the same event.

use flagfall_events::change::{Before, Change, Effect, Origin};
use flagfall_events::event::{Event, Format, NewPlayer};

fn director() -> Origin {
    Origin::new("director", 1_700_000_000_000)
}

fn edit(player: u32, name: &str, rating: Option<u32>) -> Change {
    Change::EditPlayer {
        player,
        name: name.into(),
        rating,
        federation: None,
        fide_id: None,
        uscf_id: None,
    }
}

fn names(e: &Event) -> Vec<(u32, String)> {
    e.players.iter().map(|p| (p.id, p.name.clone())).collect()
}

#[test]
fn a_rating_edit_renumbers_before_round_one_only() {
    let mut e = Event::new("Evening", Format::Swiss, Some(3)).unwrap();
    let base = e.clone();
    for (name, rating) in [("Ann", Some(2000)), ("Cy", Some(1800)), ("Bob", Some(1090))] {
        e.apply(
            Change::AddPlayer {
                player: NewPlayer {
                    name: name.into(),
                    rating,
                    ..NewPlayer::default()
                },
                check_in: true,
            },
            &director(),
        )
        .unwrap();
    }
    e.apply(
        Change::AddPlayer {
            player: NewPlayer {
                name: "Di".into(),
                ..NewPlayer::default()
            },
            check_in: true,
        },
        &director(),
    )
    .unwrap();
    assert_eq!(names(&e)[2], (3, "Bob".into()));
    // Bob's 1090 was a mistyped 1900: he moves to number 2, the log keeps the old order.
    let effects = e.apply(edit(3, "Bob", Some(1900)), &director()).unwrap();
    assert_eq!(
        effects,
        vec![Effect::PlayerChanged { player: 3 }, Effect::Renumbered]
    );
    assert_eq!(
        names(&e),
        vec![
            (1, "Ann".into()),
            (2, "Bob".into()),
            (3, "Cy".into()),
            (4, "Di".into())
        ]
    );
    let before = &e.log.last().unwrap().before;
    assert!(matches!(&before[0], Before::Player { player } if player.rating == Some(1090)));
    assert!(
        matches!(&before[1], Before::Numbering { names } if names == &["Ann", "Cy", "Bob", "Di"])
    );
    // A name, federation and ids; a blank rating is unrated (after the rated, before Di,
    // unrated too and entered later: equal ratings keep their order).
    e.apply(
        Change::EditPlayer {
            player: 2,
            name: "Bob Diaz".into(),
            rating: None,
            federation: Some("usa".into()),
            fide_id: Some(2_000_123),
            uscf_id: Some("12345678".into()),
        },
        &director(),
    )
    .unwrap();
    let bob = e.players.iter().find(|p| p.name == "Bob Diaz").unwrap();
    assert_eq!(
        (
            bob.id,
            bob.rating,
            bob.federation.as_deref(),
            bob.fide_id,
            bob.uscf_id.as_deref()
        ),
        (3, None, Some("USA"), Some(2_000_123), Some("12345678"))
    );
    // Refused edits name what is wrong and change nothing.
    let kept = e.clone();
    for (change, said) in [
        (
            edit(1, "Cy", Some(2000)),
            "name: \"Cy\" is the name of another player",
        ),
        (edit(1, " ", Some(2000)), "name"),
        (edit(1, "Ann", Some(4001)), "rating"),
        (edit(9, "Zed", None), "9"),
        (
            Change::EditPlayer {
                player: 1,
                name: "Ann".into(),
                rating: None,
                federation: Some("US".into()),
                fide_id: None,
                uscf_id: None,
            },
            "federation",
        ),
        (
            Change::EditPlayer {
                player: 1,
                name: "Ann".into(),
                rating: None,
                federation: None,
                fide_id: None,
                uscf_id: Some("123".into()),
            },
            "US Chess id",
        ),
    ] {
        let err = e.apply(change, &director()).unwrap_err().to_string();
        assert!(err.contains(said), "{err}");
        assert_eq!(e, kept);
    }
    // After round 1 the numbers stay, whatever the rating.
    e.apply(Change::PairNext, &director()).unwrap();
    let paired = names(&e);
    let effects = e
        .apply(edit(3, "Bob Diaz", Some(2500)), &director())
        .unwrap();
    assert_eq!(effects, vec![Effect::PlayerChanged { player: 3 }]);
    assert_eq!(names(&e), paired);
    assert_eq!(e.players[2].rating, Some(2500));
    // The log replayed gives the same event, and a stored row reads back.
    assert_eq!(Event::replay(base, &e.log).unwrap(), e);
    let row = serde_json::to_string(&e.log.last().unwrap()).unwrap();
    assert!(row.contains("\"change\":\"edit-player\""), "{row}");
}
