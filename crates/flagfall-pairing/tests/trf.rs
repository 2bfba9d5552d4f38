//! Reading and writing FIDE TRF (TRF-16 with the XXR/XXC extension, and TRF-2026).

use std::path::PathBuf;

use flagfall_pairing::dutch::{DutchInput, PairingError, RoundRecord};
use flagfall_pairing::trf::{Colour, ResultCode, Trf, TrfError, TrfRoundEntry};

fn case_text(name: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/dutch/{name}.trf"));
    std::fs::read_to_string(path).expect("case file")
}

fn all_cases() -> Vec<String> {
    (1..=80).map(|i| format!("case{i:03}")).collect()
}

const LINE: &str = "001    1      Test0001 Player0001               2314                             3.0    2     6 w 1     4 b 1     3 w 1  0000 - Z";

#[test]
fn reads_header_and_player_fields() {
    let trf = Trf::parse(&case_text("case001")).expect("parses");
    assert_eq!(
        trf.name.as_deref(),
        Some("bbpPairings Dutch conformance case 001")
    );
    assert_eq!(trf.total_rounds, Some(7));
    assert_eq!(trf.initial_colour, Some(Colour::White));
    assert_eq!(trf.players.len(), 10);
    let p1 = &trf.players[0];
    assert_eq!(p1.number, 1);
    assert_eq!(p1.name, "Test0001 Player0001");
    assert_eq!(p1.rating, Some(2314));
    assert_eq!(p1.points_tenths, 30);
    assert_eq!(p1.rank, Some(2));
    assert_eq!(p1.rounds.len(), 4);
    assert_eq!(
        p1.round(1),
        Some(&TrfRoundEntry {
            opponent: Some(6),
            colour: Some(Colour::White),
            result: ResultCode::Win
        })
    );
    assert_eq!(
        p1.round(4),
        Some(&TrfRoundEntry {
            opponent: None,
            colour: None,
            result: ResultCode::ZeroBye
        })
    );
    let p10 = trf.player(10).expect("player 10");
    assert_eq!(p10.round(4).map(|e| e.result), Some(ResultCode::PairingBye));
}

#[test]
fn every_case_round_trips_through_trf_2026() {
    for name in all_cases() {
        let text = case_text(&name);
        let trf = Trf::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let written = trf.to_trf_string();
        assert!(
            written.contains("\n142 "),
            "{name}: writes the round count as 142"
        );
        assert!(
            written.contains("\n152 "),
            "{name}: writes the initial colour as 152"
        );
        assert!(
            !written.contains("XXR") && !written.contains("XXC"),
            "{name}"
        );
        let again = Trf::parse(&written).unwrap_or_else(|e| panic!("{name} rewritten: {e}"));
        assert_eq!(again, trf, "{name}: parse(write(t)) == t");
        // The player records are written in exactly the fixed columns they were read in.
        let original: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("001"))
            .map(str::trim_end)
            .collect();
        let rewritten: Vec<&str> = written.lines().filter(|l| l.starts_with("001")).collect();
        assert_eq!(original, rewritten, "{name}: player lines");
    }
}

#[test]
fn reads_trf_2026_tags_and_comments() {
    let text = format!("### a comment line\n012 Open\n142 9\n152 B\n162 W 1.0 D 0.5\n{LINE}\n");
    let trf = Trf::parse(&text).expect("parses");
    assert_eq!(trf.total_rounds, Some(9));
    assert_eq!(trf.initial_colour, Some(Colour::Black));
    assert_eq!(trf.headers.len(), 1, "162 is kept verbatim");
    assert_eq!(trf.headers[0].tag, "162");
    assert!(trf.to_trf_string().contains("162 W 1.0 D 0.5\n"));
}

#[test]
fn letters_are_case_insensitive_and_blank_result_is_zero_bye() {
    let line = "001    1      A                                 2000                             0.0    1  0000 - h  0000 -  ";
    let trf = Trf::parse(line).expect("parses");
    let p = &trf.players[0];
    assert_eq!(p.round(1).map(|e| e.result), Some(ResultCode::HalfBye));
    assert_eq!(p.rounds.len(), 2);
    assert_eq!(p.round(2).map(|e| e.result), Some(ResultCode::ZeroBye));
}

#[test]
fn a_game_not_yet_played_is_pending_and_written_blank() {
    // Round 3 being played: opponent and colour, no result. In the middle of a line the
    // result is a blank; at its end the line simply stops after the colour.
    let middle = with_line("     3 w 1", "     3 w  ");
    let end = format!("012 T\nXXR 7\n{}\n", &LINE[..LINE.len() - 12]);
    // flagfall's own exports before 2026-11-29 wrote `Z` beside the opponent.
    let old = with_line("     3 w 1", "     3 w Z");
    let lower = with_line("     3 w 1", "     3 w z");
    for text in [&middle, &end, &old, &lower] {
        let trf = Trf::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let p = &trf.players[0];
        assert_eq!(
            p.round(3),
            Some(&TrfRoundEntry {
                opponent: Some(3),
                colour: Some(Colour::White),
                result: ResultCode::Pending,
            }),
            "{text}"
        );
        assert_eq!(ResultCode::Pending.half_points(), 0);
        assert!(!ResultCode::Pending.is_played_game());
        // Written back as a blank result, and read back the same.
        let written = trf.to_trf_string();
        assert!(
            !written.contains("3 w Z") && !written.contains("3 w z"),
            "{written}"
        );
        assert_eq!(Trf::parse(&written).unwrap(), trf);
    }
    // A whole file whose round 3 is being played on one board (1 against 3): the next
    // round cannot be paired from it, and the refusal names the game.
    let blank_round_3 = |line: &str| {
        let mut chars: Vec<char> = line.chars().collect();
        chars[118] = ' ';
        chars.into_iter().collect::<String>()
    };
    let text: String = case_text("case001")
        .lines()
        .map(|l| {
            if l.starts_with("001    1 ") || l.starts_with("001    3 ") {
                blank_round_3(l)
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    let trf = Trf::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(
        trf.player(3).unwrap().round(3).unwrap().result,
        ResultCode::Pending
    );
    let e = DutchInput::from_trf(&trf).unwrap_err();
    assert!(
        e.to_string()
            .contains("player 1, round 3: the game against 3 has no result yet"),
        "{e}"
    );
    // With its result the same file pairs.
    assert!(DutchInput::from_trf(&Trf::parse(&case_text("case001")).unwrap()).is_ok());
    // Without an opponent a blank or `Z` is still the zero-point bye, and a pending game
    // still needs a colour.
    let bye = Trf::parse(&with_line("     3 w 1", "  0000 - Z")).unwrap();
    assert_eq!(bye.players[0].round(3).unwrap().result, ResultCode::ZeroBye);
    let e = error_of(&with_line("     3 w 1", "     3 -  "));
    assert!(e.message.contains("needs a colour"), "{e}");
}

fn error_of(text: &str) -> TrfError {
    Trf::parse(text).expect_err("must be rejected")
}

fn with_line(replace: &str, by: &str) -> String {
    format!("012 T\nXXR 7\n{}\n", LINE.replacen(replace, by, 1))
}

#[test]
fn errors_name_line_and_column() {
    let e = error_of(&with_line("6 w 1", "6 w x"));
    assert_eq!((e.line, e.column), (3, 99));
    assert!(e.message.contains("unknown result code 'x'"), "{e}");

    let e = error_of(&with_line("6 w 1", "6 g 1"));
    assert_eq!((e.line, e.column), (3, 97));
    assert!(e.message.contains("colour must be w, b or -"), "{e}");

    let e = error_of(&with_line("     6 w 1", "    x6 w 1"));
    assert_eq!((e.line, e.column), (3, 92));
    assert!(e.message.contains("opponent"), "{e}");

    let e = error_of(&with_line(" 3.0", "3.x0"));
    assert_eq!((e.line, e.column), (3, 81));
    assert!(e.message.contains("points"), "{e}");

    let e = error_of(&with_line("2314", "23a4"));
    assert_eq!((e.line, e.column), (3, 49));

    let e = error_of(&with_line("  0000 - Z", "  0005 - U"));
    assert_eq!(e.line, 3);
    assert!(
        e.message
            .contains("round 4: a bye (U) cannot have an opponent"),
        "{e}"
    );

    let e = error_of(&with_line("     6 w 1", "     6 - 1"));
    assert_eq!((e.line, e.column), (3, 97));
    assert!(e.message.contains("needs a colour"), "{e}");

    let e = error_of("XXR many\n");
    assert_eq!((e.line, e.column), (1, 5));
    let e = error_of("012 T\n152 X\n");
    assert_eq!(e.line, 2);
    let e = error_of("XXC purple\n");
    assert!(e.message.contains("white1 or black1"), "{e}");
    let e = error_of(&format!("{LINE}\n{LINE}\n"));
    assert_eq!((e.line, e.column), (2, 5));
    assert!(e.message.contains("appears twice"), "{e}");
    let e = error_of("001 abcd\n");
    assert_eq!((e.line, e.column), (1, 5));
    assert_eq!(error_of("0\n").line, 1);
    // The message is fit for a user: it says where.
    assert!(
        error_of("001 abcd\n")
            .to_string()
            .starts_with("TRF line 1, column 5:")
    );
}

#[test]
fn dutch_input_reads_byes_forfeits_and_absences() {
    let text = "\
012 T
XXR 5
001    1      A                                 2000                             2.0    1     2 w 1     3 b +  0000 - H
001    2      B                                 1900                             1.0    2     1 b 0  0000 - U
001    3      C                                 1800                             0.5    3  0000 - H     1 w -
001    4      D                                 1700                             0.0    4  0000 - -  0000 - Z  0000 - -
";
    let trf = Trf::parse(text).expect("parses");
    let input = DutchInput::from_trf(&trf).expect("valid");
    assert_eq!(input.total_rounds, 5);
    // Initial colour inferred: player 1 had white in round 1.
    assert_eq!(input.initial_colour, Colour::White);
    let p1 = &input.players[0];
    assert_eq!(
        p1.history,
        vec![
            RoundRecord::Played {
                opponent: 2,
                colour: Colour::White,
                half_points: 2
            },
            RoundRecord::Forfeit {
                opponent: 3,
                won: true
            },
        ]
    );
    assert!(p1.absent, "H in column 3 = announced bye for round 3");
    assert_eq!(input.players[1].history[1], RoundRecord::PairingBye);
    assert!(!input.players[1].absent);
    assert_eq!(input.players[2].history[0], RoundRecord::HalfBye);
    assert_eq!(
        input.players[3].history,
        vec![RoundRecord::ZeroBye, RoundRecord::ZeroBye]
    );
    assert!(input.players[3].absent);
}

#[test]
fn dutch_input_rejects_inconsistent_files() {
    let base = "012 T\nXXR 5\n";
    let p = |s: &str| format!("{base}{s}");
    let bad_points = p(
        "001    1      A                                 2000                             2.0    1     2 w 1\n001    2      B                                 1900                             0.0    2     1 b 0\n",
    );
    let e =
        DutchInput::from_trf(&Trf::parse(&bad_points).expect("parses")).expect_err("bad points");
    assert!(
        e.to_string()
            .contains("player 1: the points column says 2.0 but the results add up to 1"),
        "{e}"
    );

    let unknown = p(
        "001    1      A                                 2000                             1.0    1     7 w 1\n",
    );
    let e =
        DutchInput::from_trf(&Trf::parse(&unknown).expect("parses")).expect_err("unknown opponent");
    assert!(e.to_string().contains("opponent 7 is not a player"), "{e}");

    let contradiction = p(
        "001    1      A                                 2000                             1.0    1     2 w 1\n001    2      B                                 1900                             1.0    2     1 w 1\n",
    );
    let e = DutchInput::from_trf(&Trf::parse(&contradiction).expect("parses"))
        .expect_err("contradiction");
    assert!(e.to_string().contains("contradicts"), "{e}");

    let accelerated = p(
        "XXA    1  1.0\n001    1      A                                 2000                             0.0    1\n",
    );
    let e = DutchInput::from_trf(&Trf::parse(&accelerated).expect("parses")).expect_err("XXA");
    assert!(e.to_string().contains("the XXA line"), "{e}");

    let no_rounds = "001    1      A                                 2000                             0.0    1\n";
    let e = DutchInput::from_trf(&Trf::parse(no_rounds).expect("parses")).expect_err("no XXR");
    assert_eq!(e, PairingError::MissingTotalRounds);
}

#[test]
fn writes_minimal_records_that_read_back() {
    use flagfall_pairing::trf::TrfPlayer;
    let trf = Trf {
        name: Some("Club blitz".into()),
        total_rounds: Some(5),
        initial_colour: Some(Colour::Black),
        headers: Vec::new(),
        players: vec![TrfPlayer {
            number: 12,
            sex: None,
            title: String::new(),
            name: "Nobody, Ann".into(),
            rating: None,
            federation: String::new(),
            fide_id: None,
            birth_date: String::new(),
            points_tenths: 15,
            rank: None,
            rounds: vec![
                None,
                Some(TrfRoundEntry {
                    opponent: None,
                    colour: None,
                    result: ResultCode::HalfBye,
                }),
                Some(TrfRoundEntry {
                    opponent: Some(3),
                    colour: Some(Colour::Black),
                    result: ResultCode::Win,
                }),
            ],
        }],
    };
    let text = trf.to_trf_string();
    assert_eq!(
        text,
        "012 Club blitz\n142 5\n152 B\n001   12      Nobody, Ann                                                        1.5                 0000 - H     3 b 1\n"
    );
    let line = text.lines().nth(3).expect("player line");
    assert_eq!(&line[80..84], " 1.5", "points in columns 81-84");
    assert_eq!(&line[91..99], "        ", "round 1 blank");
    assert_eq!(&line[101..109], "0000 - H", "round 2 in columns 102-109");
    assert_eq!(Trf::parse(&text).expect("reads back"), trf);
}

/// A player with `name` and a game in round 1, for the column tests below.
fn named(number: u32, name: &str) -> flagfall_pairing::trf::TrfPlayer {
    flagfall_pairing::trf::TrfPlayer {
        number,
        sex: Some('m'),
        title: "FM".into(),
        name: name.into(),
        rating: Some(2012),
        federation: "ESP".into(),
        fide_id: Some(2_200_000 + u64::from(number)),
        birth_date: "1990/05/17".into(),
        points_tenths: 10,
        rank: Some(number),
        rounds: vec![Some(TrfRoundEntry {
            opponent: Some(if number == 1 { 2 } else { 1 }),
            colour: Some(if number == 1 {
                Colour::White
            } else {
                Colour::Black
            }),
            result: ResultCode::Win,
        })],
    }
}

/// TRF columns are characters (Unicode scalar values), in the writer and the reader: a
/// name with accents (two bytes each in UTF-8), an emoji (four bytes), a combining accent
/// (a second character), or longer than the 33 columns of the name field shifts nothing
/// after it, and reads back as written (cut to 33 characters, never between a letter and
/// its accent).
#[test]
fn multi_byte_names_keep_the_columns() {
    let names = [
        "José Núñez-Müller",
        "Ann 🦄 Lee",
        "Jose\u{301} Nun\u{303}ez",
        "Þórður Ægir Ólafsson Øster Łódź Żółć",
    ];
    let trf = Trf {
        name: Some("Ünïcödé open".into()),
        total_rounds: Some(1),
        initial_colour: Some(Colour::White),
        headers: Vec::new(),
        players: names
            .iter()
            .enumerate()
            .map(|(i, n)| named(i as u32 + 1, n))
            .collect(),
    };
    let text = trf.to_trf_string();
    for line in text.lines().filter(|l| l.starts_with("001")) {
        let cols: Vec<char> = line.chars().collect();
        // Rating in columns 49-52, federation 54-56, FIDE id 58-68, points 81-84, the
        // round from column 92: where they belong whatever the name holds.
        let at = |from: usize, to: usize| cols[from - 1..to].iter().collect::<String>();
        assert_eq!(at(49, 52), "2012", "{line}");
        assert_eq!(at(54, 56), "ESP", "{line}");
        assert_eq!(at(81, 84), " 1.0", "{line}");
        assert_eq!(cols.len(), 99, "{line}");
    }
    let back = Trf::parse(&text).expect("reads back");
    assert_eq!(back.name.as_deref(), Some("Ünïcödé open"));
    for (p, name) in back.players.iter().zip(names) {
        let expected: String = name.chars().take(33).collect::<String>();
        assert_eq!(p.name, expected.trim_end());
        assert_eq!(p.rating, Some(2012));
        assert_eq!(p.federation, "ESP");
        assert_eq!(p.round(1).map(|r| r.result), Some(ResultCode::Win));
    }
    // A name longer than 33 characters whose 34th is a combining accent loses the
    // letter with it rather than printing a bare letter the name does not have.
    let cut = Trf {
        players: vec![named(1, &format!("{}e\u{301}x", "A".repeat(32)))],
        ..Trf::default()
    };
    let back = Trf::parse(&cut.to_trf_string()).expect("reads back");
    assert_eq!(back.players[0].name, "A".repeat(32));
}

/// Text that holds a newline (stored before the input rules, or edited by hand) is
/// written as one line: no `001` record or header of its own.
#[test]
fn newlines_in_text_cannot_make_records() {
    let fake = "001    9 m    Fake Player                       2800";
    let trf = Trf {
        name: Some(format!("Open\n{fake}")),
        total_rounds: Some(1),
        initial_colour: None,
        headers: vec![flagfall_pairing::trf::HeaderLine {
            tag: "022".into(),
            text: format!("Reno\r\n{fake}\u{2028}x"),
        }],
        players: vec![named(1, &format!("Ann\n{fake}")), named(2, "Bob\u{85}Lee")],
    };
    let text = trf.to_trf_string();
    let back = Trf::parse(&text).expect("reads back");
    assert_eq!(back.players.len(), 2, "{text}");
    assert_eq!(back.players[0].name, "Ann 001    9 m    Fake Player");
    assert_eq!(back.players[1].name, "Bob Lee");
    assert!(back.players.iter().all(|p| p.number != 9));
    assert_eq!(back.name.as_deref(), Some(format!("Open {fake}").as_str()));
    assert_eq!(text.lines().count(), 5, "{text}");
}
