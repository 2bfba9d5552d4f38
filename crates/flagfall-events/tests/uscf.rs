//! US Chess's rating report (three dBase III files): the bytes of each table checked field
//! by field, a Double Swiss written as two rounds per match, and what is missing named.
//!
//! `FLAGFALL_DBF_OUT=dir` also writes each report there (one folder per event, with an
//! `expected.json` of what the files must hold), for `scripts/check_uscf_dbf.py` to read
//! back with an independent reader (Python's dbfread; CI runs it, see `.ci/run`).

use flagfall_events::change::{Change, Origin};
use flagfall_events::event::{Event, Format, NewPlayer, RecordedResult, ReportInfo};
use flagfall_events::uscf::{self, FileDate, UscfError};

const DAY: FileDate = FileDate {
    year: 2026,
    month: 11,
    day: 20,
};

fn origin() -> Origin {
    Origin::new("director", 0)
}

fn info() -> ReportInfo {
    ReportInfo {
        city: Some("Springfield".into()),
        state: Some("IL".into()),
        zip: Some("62701".into()),
        uscf_affiliate: Some("A1234567".into()),
        uscf_chief_td: Some("12345678".into()),
        end_date: Some("2026-11-21".into()),
        ..ReportInfo::default()
    }
}

fn played(format: Format, players: u32, rounds: u32) -> Event {
    let mut e = Event::new("Friday Blitz", format, Some(rounds)).unwrap();
    e.date = Some("2026-11-20".into());
    e.set_time_control("G/5;d0").unwrap();
    e.report = info();
    let names = ["Ann Lee", "Bob Ray", "Cy Young", "Dee Müller", "Ed Ng"];
    for i in 0..players {
        e.apply(
            Change::AddPlayer {
                player: NewPlayer {
                    name: names[i as usize % names.len()].to_string()
                        + &"x".repeat((i / 5) as usize),
                    rating: (i != 3).then_some(2000 - 100 * i),
                    uscf_id: (i != 4).then(|| format!("{:08}", 12_000_000 + i)),
                    ..NewPlayer::default()
                },
                check_in: false,
            },
            &origin(),
        )
        .unwrap();
    }
    let g = format.games_per_round() as usize;
    for round in 1..=rounds {
        e.apply(Change::PairNext, &origin()).unwrap();
        let boards: Vec<u32> = e.round_list[round as usize - 1]
            .boards
            .iter()
            .map(|b| b.number)
            .collect();
        for b in boards {
            let results = match b % 3 {
                0 => vec![RecordedResult::WhiteWins; g],
                1 => vec![RecordedResult::Draw; g],
                _ => vec![RecordedResult::BlackWinsByForfeit; g],
            };
            e.apply(
                Change::SetResults {
                    round,
                    board: b,
                    results,
                },
                &origin(),
            )
            .unwrap();
        }
    }
    e
}

/// A dBase III table read back by the test's own reader: (name, type, width) per field
/// and the records as text.
#[allow(clippy::type_complexity)]
fn read(bytes: &[u8]) -> (Vec<(String, char, usize)>, Vec<Vec<String>>) {
    assert_eq!(bytes[0], 0x03, "dBase III without memo");
    assert_eq!(
        (bytes[1], bytes[2], bytes[3]),
        (126, 11, 20),
        "date 2026-11-20"
    );
    let count = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let header = u16::from_le_bytes(bytes[8..10].try_into().unwrap()) as usize;
    let record = u16::from_le_bytes(bytes[10..12].try_into().unwrap()) as usize;
    assert!(bytes[12..32].iter().all(|&b| b == 0));
    assert_eq!(bytes[header - 1], 0x0D);
    let mut fields = Vec::new();
    for k in 0..(header - 33) / 32 {
        let d = &bytes[32 + 32 * k..64 + 32 * k];
        let name: String = d[..11]
            .iter()
            .take_while(|&&b| b != 0)
            .map(|&b| b as char)
            .collect();
        assert!(
            d[11..]
                .iter()
                .enumerate()
                .all(|(i, &b)| b == 0 || i == 0 || i == 5)
        );
        fields.push((name, d[11] as char, d[16] as usize));
    }
    assert_eq!(record, 1 + fields.iter().map(|f| f.2).sum::<usize>());
    assert_eq!(bytes.len(), header + count * record + 1);
    assert_eq!(*bytes.last().unwrap(), 0x1A);
    let mut rows = Vec::new();
    for r in 0..count {
        let at = header + r * record;
        assert_eq!(bytes[at], b' ');
        let mut pos = at + 1;
        let mut row = Vec::new();
        for f in &fields {
            let cell = &bytes[pos..pos + f.2];
            assert!(cell.iter().all(|&b| (32..127).contains(&b)), "ASCII");
            let text = String::from_utf8(cell.to_vec()).unwrap();
            assert!(
                !text.starts_with(' ') || text.trim().is_empty(),
                "left-justified {text:?}"
            );
            row.push(text.trim_end().to_string());
            pos += f.2;
        }
        rows.push(row);
    }
    (fields, rows)
}

fn get<'a>(fields: &[(String, char, usize)], row: &'a [String], name: &str) -> &'a str {
    let k = fields.iter().position(|f| f.0 == name).expect(name);
    &row[k]
}

/// Write the report and what it must hold for the Python check (`FLAGFALL_DBF_OUT`).
fn export_for_python(name: &str, e: &Event, files: &uscf::UscfFiles) {
    let Ok(dir) = std::env::var("FLAGFALL_DBF_OUT") else {
        return;
    };
    let dir = std::path::Path::new(&dir).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, bytes) in files.named() {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    let (fields, rows) = read(&files.tdexport);
    let players: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "D_PAIR_NUM": get(&fields, r, "D_PAIR_NUM"),
                "D_NAME": get(&fields, r, "D_NAME"),
                "D_MEM_ID": get(&fields, r, "D_MEM_ID"),
                "D_RATING": get(&fields, r, "D_RATING"),
                "rounds": fields.iter().zip(r).filter(|(f, _)| f.0.starts_with("D_RND")).map(|(_, v)| v.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let expected = serde_json::json!({
        "H_NAME": e.name,
        "H_BEG_DATE": "2026-11-20",
        "H_END_DATE": "2026-11-21",
        "S_TOT_RNDS": (e.rounds_paired() * e.format.games_per_round()).to_string(),
        "S_TRN_TYPE": if e.format.is_round_robin() { "R" } else { "S" },
        "players": players,
    });
    std::fs::write(dir.join("expected.json"), expected.to_string()).unwrap();
}

#[test]
fn a_swiss_report_holds_every_field_and_round() {
    let e = played(Format::UsSwiss, 7, 4);
    let files = uscf::report(&e, DAY).unwrap();
    let (hf, h) = read(&files.thexport);
    let names: Vec<&str> = hf.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "H_FORMAT",
            "H_PROGRAM",
            "H_EVENT_ID",
            "H_NAME",
            "H_TOT_SECT",
            "H_BEG_DATE",
            "H_END_DATE",
            "H_AFF_ID",
            "H_CITY",
            "H_STATE",
            "H_ZIPCODE",
            "H_COUNTRY",
            "H_SENDCROS",
            "H_CTD_ID",
            "H_ATD_ID",
            "H_OTHER_TD"
        ]
    );
    let widths: Vec<usize> = hf.iter().map(|f| f.2).collect();
    assert_eq!(
        widths,
        [5, 10, 12, 35, 2, 8, 8, 8, 21, 2, 10, 21, 1, 8, 8, 254]
    );
    assert_eq!(hf[5].1, 'D');
    assert_eq!(h.len(), 1);
    let h = &h[0];
    assert_eq!(get(&hf, h, "H_FORMAT"), "2C");
    assert_eq!(get(&hf, h, "H_NAME"), "Friday Blitz");
    assert_eq!(get(&hf, h, "H_BEG_DATE"), "20261120");
    assert_eq!(get(&hf, h, "H_END_DATE"), "20261121");
    assert_eq!(get(&hf, h, "H_AFF_ID"), "A1234567");
    assert_eq!(get(&hf, h, "H_COUNTRY"), "USA");
    assert_eq!(get(&hf, h, "H_CTD_ID"), "12345678");

    let (sf, s) = read(&files.tsexport);
    let widths: Vec<(&str, usize)> = sf.iter().map(|f| (f.0.as_str(), f.2)).collect();
    assert_eq!(
        widths,
        [
            ("S_EVENT_ID", 12),
            ("S_SEC_NUM", 2),
            ("S_SEC_NAME", 30),
            ("S_R_SYSTEM", 1),
            ("S_TIMECTL", 40),
            ("S_CTD_ID", 8),
            ("S_ATD_ID", 8),
            ("S_TRN_TYPE", 1),
            ("S_TOT_RNDS", 2),
            ("S_LST_PAIR", 4),
            ("S_BEG_DATE", 8),
            ("S_END_DATE", 8),
            ("S_SCH_LVL", 1),
            ("S_GR_PRIX", 1),
            ("S_GP_PTS", 3),
            ("S_FIDE", 1)
        ]
    );
    let s = &s[0];
    assert_eq!(get(&sf, s, "S_TIMECTL"), "G/5;d0");
    assert_eq!(get(&sf, s, "S_TRN_TYPE"), "S");
    assert_eq!(get(&sf, s, "S_TOT_RNDS"), "4");
    assert_eq!(get(&sf, s, "S_LST_PAIR"), "7");

    let (df, d) = read(&files.tdexport);
    assert_eq!(df.len(), 7 + 4);
    assert_eq!(d.len(), 7);
    for (k, row) in d.iter().enumerate() {
        let p = &e.players[k];
        assert_eq!(get(&df, row, "D_PAIR_NUM"), p.id.to_string());
        assert_eq!(get(&df, row, "D_RATING"), p.rating.unwrap_or(0).to_string());
        assert_eq!(
            get(&df, row, "D_MEM_ID"),
            p.uscf_id.clone().unwrap_or_default()
        );
        // Each round's cell agrees with the event: the opponent's cell mirrors it.
        for r in 1..=4u32 {
            let cell = get(&df, row, &format!("D_RND{r:02}"));
            let code = cell.chars().next().unwrap();
            let points = e.round_points(p.id, r);
            let expected_points = match code {
                'W' | 'X' | 'B' => 2,
                'D' | 'H' => 1,
                _ => 0,
            };
            assert_eq!(points, expected_points, "player {} round {r}: {cell}", p.id);
            if "WLD".contains(code) {
                let opp: u32 = cell[1..cell.len() - 1].parse().unwrap();
                let back = get(&df, &d[opp as usize - 1], &format!("D_RND{r:02}"));
                let mirror = match code {
                    'W' => 'L',
                    'L' => 'W',
                    _ => 'D',
                };
                assert!(back.starts_with(mirror), "{cell} / {back}");
                assert!(back[1..].starts_with(&p.id.to_string()));
            }
        }
    }
    // Names as US Chess lists them.
    assert_eq!(get(&df, &d[0], "D_NAME"), "LEE, ANN");
    assert!(
        d.iter().any(|r| get(&df, r, "D_NAME") == "MULLER, DEE"),
        "accents folded"
    );
    assert!(files.notes.iter().any(|n| n.contains("no US Chess id")));
    export_for_python("us-swiss", &e, &files);
}

#[test]
fn a_double_swiss_match_is_two_rounds() {
    let e = played(Format::DoubleSwiss, 6, 3);
    let files = uscf::report(&e, DAY).unwrap();
    let (sf, s) = read(&files.tsexport);
    assert_eq!(get(&sf, &s[0], "S_TOT_RNDS"), "6");
    let (df, d) = read(&files.tdexport);
    assert_eq!(df.len(), 7 + 6);
    // Game 2 of each match reverses the colours.
    for row in &d {
        for r in 1..=3u32 {
            let g1 = get(&df, row, &format!("D_RND{:02}", 2 * r - 1));
            let g2 = get(&df, row, &format!("D_RND{:02}", 2 * r));
            if g1.len() > 2 && g2.len() > 2 {
                assert_ne!(g1.chars().last(), g2.chars().last(), "{g1} {g2}");
            }
        }
    }
    export_for_python("double-swiss", &e, &files);
    let rr = played(Format::RoundRobin, 4, 3);
    let files = uscf::report(&rr, DAY).unwrap();
    let (sf, s) = read(&files.tsexport);
    assert_eq!(get(&sf, &s[0], "S_TRN_TYPE"), "R");
    export_for_python("round-robin", &rr, &files);
}

#[test]
fn what_the_report_needs_is_named() {
    let mut e = played(Format::UsSwiss, 4, 2);
    e.report = ReportInfo::default();
    let err = uscf::report(&e, DAY).unwrap_err();
    let UscfError::Missing(what) = &err else {
        panic!("{err}")
    };
    assert_eq!(what.len(), 5, "{err}");
    assert!(
        err.to_string()
            .contains("the affiliate id (--uscf-affiliate)")
    );
    e.report = info();
    e.report.uscf_affiliate = Some("12345678".into());
    assert!(
        uscf::report(&e, DAY)
            .unwrap_err()
            .to_string()
            .contains("is not A and seven digits")
    );
    e.report = info();
    e.report.end_date = Some("2026-11-19".into());
    assert!(
        uscf::report(&e, DAY)
            .unwrap_err()
            .to_string()
            .contains("before the start date")
    );
    e.report = info();
    e.rounds = 3;
    e.apply(Change::PairNext, &origin()).unwrap();
    assert!(matches!(
        uscf::report(&e, DAY),
        Err(UscfError::Incomplete { round: 3, .. })
    ));
}
