//! FIDE's rating list read into an event: the combined list and a single list, players
//! found by id and by name (accents, word order, federation to break a tie), what is not
//! found or is ambiguous, and files that are not a rating list (an error naming the line,
//! nothing filled in).

use flagfall_events::change::{Change, Origin};
use flagfall_events::event::{Event, Format, NewPlayer};
use flagfall_events::rating_list::{self, FoundBy, ListRating, RatingListReader};

/// The combined list's header, as FIDE publishes it.
const HEADER: &str = "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag";

/// A line of the combined list: each value at its column (0-based: id 0, name 15, fed 76,
/// sex 80, tit 84, wtit 89, srtng 113, rrtng 126, brtng 139, b-day 152, flag 158).
#[allow(clippy::too_many_arguments)]
fn line(
    id: u64,
    name: &str,
    fed: &str,
    sex: &str,
    tit: &str,
    wtit: &str,
    ratings: [Option<u32>; 3],
    born: &str,
    flag: &str,
) -> String {
    let mut cols: Vec<char> = vec![' '; 162];
    let mut put = |at: usize, text: &str| {
        for (i, c) in text.chars().enumerate() {
            cols[at + i] = c;
        }
    };
    put(0, &id.to_string());
    put(15, name);
    put(76, fed);
    put(80, sex);
    put(84, tit);
    put(89, wtit);
    for (at, r) in [(113, ratings[0]), (126, ratings[1]), (139, ratings[2])] {
        if let Some(r) = r {
            put(at, &r.to_string());
            put(at + 6, "0");
            put(at + 10, "20");
        }
    }
    put(152, born);
    put(158, flag);
    cols.into_iter().collect::<String>().trim_end().to_string()
}

fn list() -> String {
    [
        HEADER.to_string(),
        line(
            1_503_014,
            "Carlsen, Magnus",
            "NOR",
            "M",
            "GM",
            "",
            [Some(2833), Some(2823), Some(2886)],
            "1990",
            "",
        ),
        line(
            24_100_001,
            "Müller, Jürgen",
            "GER",
            "M",
            "",
            "",
            [Some(1850), None, Some(1792)],
            "1975",
            "i",
        ),
        line(
            2_000_001,
            "Smith, John",
            "ENG",
            "M",
            "",
            "",
            [Some(1700), None, Some(1650)],
            "1980",
            "",
        ),
        line(
            2_000_002,
            "Smith, John",
            "USA",
            "M",
            "",
            "",
            [Some(1600), None, Some(1580)],
            "1982",
            "",
        ),
        line(
            2_000_003,
            "Smith, John",
            "USA",
            "M",
            "FM",
            "",
            [Some(2300), None, Some(2250)],
            "1979",
            "",
        ),
        line(
            5_000_001,
            "Kosteniuk, Alexandra",
            "SUI",
            "F",
            "GM",
            "WGM",
            [Some(2480), Some(2500), Some(2510)],
            "1984",
            "w",
        ),
        line(
            5_000_002,
            "Newcomer, Ann",
            "FRA",
            "F",
            "",
            "WCM",
            [Some(1500), None, None],
            "2010",
            "w",
        ),
    ]
    .join("\n")
        + "\n"
}

fn np(name: &str, fide_id: Option<u64>, federation: Option<&str>) -> NewPlayer {
    NewPlayer {
        name: name.into(),
        rating: Some(1000),
        fide_id,
        federation: federation.map(str::to_string),
        ..NewPlayer::default()
    }
}

fn club() -> Event {
    let mut e = Event::new("Club", Format::Swiss, Some(5)).unwrap();
    for p in [
        np("Whoever", Some(1_503_014), None),
        np("Jurgen Muller", None, None),
        np("John Smith", None, None),
        np("J. Doe", Some(99_999_999), None),
        np("Nobody Here", None, None),
        np("Ann Newcomer", None, None),
    ] {
        e.add_player(p).unwrap();
    }
    e
}

#[test]
fn players_are_found_by_id_and_by_name() {
    let e = club();
    let found = rating_list::lookup(
        &list(),
        "players_list_foa.txt",
        &e.players,
        ListRating::Blitz,
    )
    .unwrap();
    assert_eq!(found.lines, 7);
    assert!(!found.single_list);
    let id_of = |name: &str| e.players.iter().find(|p| p.name == name).unwrap().id;
    assert!(
        found
            .found
            .contains(&(id_of("Whoever"), 1_503_014, FoundBy::Id))
    );
    // Accents, commas and word order do not matter.
    assert!(
        found
            .found
            .contains(&(id_of("Jurgen Muller"), 24_100_001, FoundBy::Name))
    );
    assert_eq!(found.unknown_ids, vec![id_of("J. Doe")]);
    assert_eq!(found.not_found, vec![id_of("Nobody Here")]);
    // Three John Smiths, no federation to choose: nothing filled in.
    assert_eq!(
        found.ambiguous,
        vec![(id_of("John Smith"), vec![2_000_001, 2_000_002, 2_000_003])]
    );
    // Ann has no blitz rating: found, id filled, rating left.
    assert_eq!(found.unrated, vec![id_of("Ann Newcomer")]);
    let carlsen = found
        .updates
        .iter()
        .find(|u| u.player == id_of("Whoever"))
        .unwrap();
    assert_eq!(carlsen.rating, Some(2886));
    assert_eq!(carlsen.title.as_deref(), Some("GM"));
    assert_eq!(carlsen.federation.as_deref(), Some("NOR"));
    assert_eq!(carlsen.sex, Some('m'));
    assert_eq!(carlsen.birth.as_deref(), Some("1990"));
    let standard = rating_list::lookup(&list(), "l", &e.players, ListRating::Standard).unwrap();
    let u = standard
        .updates
        .iter()
        .find(|u| u.player == id_of("Jurgen Muller"))
        .unwrap();
    assert_eq!(u.rating, Some(1850));
}

#[test]
fn a_federation_singles_out_one_of_several_names() {
    let mut e = Event::new("Club", Format::Swiss, Some(5)).unwrap();
    e.add_player(np("Smith, John", None, Some("ENG"))).unwrap();
    e.add_player(np("John Smith", None, Some("USA"))).unwrap();
    let found = rating_list::lookup(&list(), "l", &e.players, ListRating::Blitz).unwrap();
    // The English one is one; the American is still two.
    assert_eq!(found.found.len(), 1);
    assert_eq!(found.found[0].1, 2_000_001);
    assert_eq!(found.ambiguous.len(), 1);
    assert_eq!(found.ambiguous[0].1, vec![2_000_002, 2_000_003]);
}

#[test]
fn the_updates_fill_the_event_and_renumber_before_round_one() {
    let mut e = club();
    let found = rating_list::lookup(&list(), "l", &e.players, ListRating::Blitz).unwrap();
    e.apply(
        Change::UpdatePlayers {
            updates: found.updates,
        },
        &Origin::new("director", 0),
    )
    .unwrap();
    // Carlsen (2886) is now number 1, Müller (1792) number 2.
    assert_eq!(e.players[0].fide_id, Some(1_503_014));
    assert_eq!(e.players[0].rating, Some(2886));
    assert_eq!(e.players[1].name, "Jurgen Muller");
    assert_eq!(e.players[1].fide_id, Some(24_100_001));
    assert_eq!(e.players[1].federation.as_deref(), Some("GER"));
    // The TRF now carries titles, sex and birth.
    let trf = flagfall_events::export::trf(&e).unwrap();
    let carlsen = trf.lines().find(|l| l.contains("Whoever")).unwrap();
    assert_eq!(&carlsen[9..13], "m GM", "{carlsen}");
    assert!(carlsen.contains("1990"), "{carlsen}");
}

#[test]
fn a_single_list_gives_its_one_rating() {
    let header = "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA NOV26 Gms K  B-day Flag";
    let mut cols: Vec<char> = vec![' '; 140];
    for (at, text) in [
        (0, "1503014"),
        (15, "Carlsen, Magnus"),
        (76, "NOR"),
        (80, "M"),
        (84, "GM"),
        (113, "2886"),
        (119, "5"),
        (123, "10"),
        (126, "1990"),
    ] {
        for (i, c) in text.chars().enumerate() {
            cols[at + i] = c;
        }
    }
    let text = format!("{header}\n{}\n", cols.into_iter().collect::<String>());
    let e = club();
    let found = rating_list::lookup(
        &text,
        "blitz_rating_list.txt",
        &e.players,
        ListRating::Rapid,
    )
    .unwrap();
    assert!(found.single_list);
    assert_eq!(found.updates[0].rating, Some(2886));
    assert_eq!(found.updates[0].birth.as_deref(), Some("1990"));
}

#[test]
fn a_list_padded_by_bytes_reads_its_accented_names() {
    // The name written as UTF-8 but padded as if each byte were a column.
    let good = line(
        24_100_001,
        "Muller, Jurgen",
        "GER",
        "M",
        "",
        "",
        [Some(1850), None, Some(1792)],
        "1975",
        "",
    );
    // "Müller, Jürgen" is two bytes longer in UTF-8: take two blanks off the name field.
    let shifted = good.replacen("Muller, Jurgen  ", "Müller, Jürgen", 1);
    let text = format!("{HEADER}\n{shifted}\n");
    let mut reader = RatingListReader::new(&text, "l").unwrap();
    let p = reader.next().unwrap().unwrap();
    assert_eq!(p.name, "Müller, Jürgen");
    assert_eq!(p.federation.as_deref(), Some("GER"));
    assert_eq!(p.blitz, Some(1792));
}

#[test]
fn what_is_not_a_rating_list_is_named() {
    let e = club();
    let lookup = |text: &str| {
        rating_list::lookup(text, "players.csv", &e.players, ListRating::Blitz)
            .unwrap_err()
            .to_string()
    };
    let err = lookup("name,rating\nAnn,1500\n");
    assert!(
        err.starts_with("players.csv line 1: not a FIDE rating list"),
        "{err}"
    );
    assert!(lookup("").contains("the file is empty"));
    // A TRF is not a rating list either.
    assert!(lookup("012 Club\n001    1      Ann\n").contains("not a FIDE rating list"));
    // A good header and a bad line: the line is named.
    let mut text = list();
    text.push_str("abc            Broken, Line\n");
    let err = lookup(&text);
    assert!(
        err.starts_with("players.csv line 9: the FIDE id \"abc\" is not a number"),
        "{err}"
    );
    let bad_rating = format!(
        "{HEADER}\n{}\n",
        line(
            7,
            "Odd, Rating",
            "USA",
            "M",
            "",
            "",
            [Some(1500), None, None],
            "",
            ""
        )
        .replacen("1500", "15x0", 1)
    );
    let err = lookup(&bad_rating);
    assert!(
        err.contains("line 2: player 7: the standard rating \"15x0\" is not a rating"),
        "{err}"
    );
    let bad_fed = format!(
        "{HEADER}\n{}\n",
        line(
            8,
            "Odd, Fed",
            "U1A",
            "M",
            "",
            "",
            [Some(1500), None, None],
            "",
            ""
        )
    );
    assert!(lookup(&bad_fed).contains("the federation \"U1A\" is not three letters"));
}
