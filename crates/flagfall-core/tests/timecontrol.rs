//! Time-control notation and blitz classification (docs/rules.md §1).

use flagfall_core::timecontrol::{Delay, TimeControl, TimeControlError};

fn tc(s: &str) -> TimeControl {
    s.parse()
        .unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
}

fn err(s: &str) -> TimeControlError {
    match s.parse::<TimeControl>() {
        Ok(t) => panic!("{s:?} should be rejected, parsed as {t}"),
        Err(e) => e,
    }
}

#[test]
fn every_documented_form_parses_to_the_right_value() {
    let cases: &[(&str, u64, Delay)] = &[
        ("G/5", 300_000, Delay::None),
        ("G/5;d0", 300_000, Delay::None),
        ("G/5;d3", 300_000, Delay::Us { ms: 3_000 }),
        ("G/5;b3", 300_000, Delay::Bronstein { ms: 3_000 }),
        ("G/3;inc2", 180_000, Delay::Increment { ms: 2_000 }),
        ("3+2", 180_000, Delay::Increment { ms: 2_000 }),
        ("5|0", 300_000, Delay::None),
        ("5+0", 300_000, Delay::None),
        ("1|1", 60_000, Delay::Increment { ms: 1_000 }),
        // the rulebook's own spelling (uscf-2020 "Blitz rating system")
        ("G/3 inc/2", 180_000, Delay::Increment { ms: 2_000 }),
        ("g/5; D3", 300_000, Delay::Us { ms: 3_000 }),
        ("  G/5  ", 300_000, Delay::None),
        ("G/5 d/3", 300_000, Delay::Us { ms: 3_000 }),
        ("G/5; d 3", 300_000, Delay::Us { ms: 3_000 }),
        ("G/5;d3 ", 300_000, Delay::Us { ms: 3_000 }),
        // fractions and seconds
        ("G/2.5", 150_000, Delay::None),
        ("G/0.5", 30_000, Delay::None),
        ("G/90s", 90_000, Delay::None),
        ("G/30.5s;inc1", 30_500, Delay::Increment { ms: 1_000 }),
        ("G/5;d1.5", 300_000, Delay::Us { ms: 1_500 }),
        ("2.5+0.5", 150_000, Delay::Increment { ms: 500 }),
        ("G/05", 300_000, Delay::None),
        ("G/5;b0", 300_000, Delay::None),
        ("G/5;inc0", 300_000, Delay::None),
    ];
    for &(text, base_ms, delay) in cases {
        assert_eq!(tc(text), TimeControl { base_ms, delay }, "{text}");
    }
}

#[test]
fn display_is_the_canonical_us_form() {
    for (text, shown) in [
        ("G/5", "G/5;d0"),
        ("5|0", "G/5;d0"),
        ("G/5;d3", "G/5;d3"),
        ("G/5;b3", "G/5;b3"),
        ("3+2", "G/3;inc2"),
        ("G/3 inc/2", "G/3;inc2"),
        ("G/2.5", "G/2.5;d0"),
        ("G/90s", "G/1.5;d0"),
        ("G/30.5s", "G/30.5s;d0"),
        ("G/5;d1.25", "G/5;d1.25"),
    ] {
        let t = tc(text);
        assert_eq!(t.to_string(), shown, "{text}");
        assert_eq!(tc(shown), t, "{shown} must parse back");
    }
}

#[test]
fn display_round_trips_for_values_built_by_hand() {
    for base_ms in [1, 59, 61, 1_000, 1_001, 59_999, 60_000, 60_060, 123_457] {
        for delay in [
            Delay::None,
            Delay::Us { ms: 1 },
            Delay::Bronstein { ms: 2_345 },
            Delay::Increment { ms: 999 },
        ] {
            let t = TimeControl { base_ms, delay };
            assert_eq!(tc(&t.to_string()), t, "{t}");
        }
    }
}

#[test]
fn errors_say_what_is_wrong_and_list_the_forms() {
    let e = err("");
    assert_eq!(e, TimeControlError::Empty);
    assert!(e.to_string().contains("G/5;d3"), "{e}");

    let e = err("five minutes");
    assert!(matches!(e, TimeControlError::UnknownForm { .. }), "{e:?}");
    assert!(e.to_string().contains("\"five minutes\""), "{e}");
    assert!(e.to_string().contains("3+2"), "{e}");

    let e = err("G/5;x3");
    assert!(
        matches!(&e, TimeControlError::UnknownModifier { part, .. } if part == "x3"),
        "{e:?}"
    );

    let e = err("G/abc");
    assert!(
        matches!(&e, TimeControlError::BadNumber { field: "base minutes", text, .. } if text == "abc"),
        "{e:?}"
    );
    assert!(e.to_string().contains("base minutes"), "{e}");

    let e = err("3+x");
    assert!(
        matches!(
            e,
            TimeControlError::BadNumber {
                field: "increment seconds",
                ..
            }
        ),
        "{e:?}"
    );
    let e = err("G/5;d");
    assert!(
        matches!(
            e,
            TimeControlError::BadNumber {
                field: "delay seconds",
                reason: "missing",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(matches!(err("G/0"), TimeControlError::ZeroBase { .. }));
    assert!(matches!(err("0+2"), TimeControlError::ZeroBase { .. }));
    assert!(matches!(err("G/-5"), TimeControlError::BadNumber { .. }));
    assert!(matches!(err("G/.5"), TimeControlError::BadNumber { .. }));
    assert!(matches!(err("G/5."), TimeControlError::BadNumber { .. }));
    assert!(matches!(err("G/1.2.3"), TimeControlError::BadNumber { .. }));
    // 1/3 s is not a whole number of milliseconds
    assert!(matches!(
        err("G/5;d0.3333"),
        TimeControlError::NotWholeMs { .. }
    ));
    assert!(matches!(err("G/1001"), TimeControlError::TooLarge { .. }));
    assert!(matches!(
        err("G/99999999999999999999999"),
        TimeControlError::TooLarge { .. }
    ));
    assert!(matches!(
        err("G/5;inc601"),
        TimeControlError::TooLarge { .. }
    ));
    assert!(matches!(err("G/3+2"), TimeControlError::BadNumber { .. }));
    let e = err("G/5;d3;inc2");
    assert!(
        matches!(&e, TimeControlError::ExtraText { extra, .. } if extra == ";inc2"),
        "{e:?}"
    );
    assert!(e.to_string().contains("only one"), "{e}");
}

#[test]
fn serde_uses_the_string_form() {
    let t = tc("G/3;inc2");
    let json = serde_json::to_string(&t).expect("serialises");
    assert_eq!(json, "\"G/3;inc2\"");
    let back: TimeControl = serde_json::from_str("\"5|0\"").expect("deserialises");
    assert_eq!(back, tc("G/5"));
    let bad = serde_json::from_str::<TimeControl>("\"G/x\"")
        .expect_err("bad string rejected")
        .to_string();
    assert!(bad.contains("base minutes"), "{bad}");
}

#[test]
fn fide_blitz_is_base_plus_sixty_increments_at_most_ten_minutes() {
    // fide-b3 B.1
    assert!(tc("G/10").fide_is_blitz());
    assert!(tc("G/5").fide_is_blitz());
    assert!(tc("3+2").fide_is_blitz());
    assert!(tc("G/5;inc5").fide_is_blitz()); // 5 + 5 = 10
    assert!(!tc("G/5;inc6").fide_is_blitz()); // 11
    assert!(!tc("G/10;inc1").fide_is_blitz());
    assert!(!tc("G/11").fide_is_blitz());
    // interpretation: delays count like increments
    assert!(tc("G/5;d3").fide_is_blitz());
    assert!(!tc("G/8;b3").fide_is_blitz());
}

#[test]
fn us_blitz_is_one_to_ten_minutes_total() {
    // uscf-2020 chapter 11 introduction and 1b TD tip
    assert!(tc("G/1").us_is_blitz());
    assert!(tc("G/5").us_is_blitz());
    assert!(tc("G/10").us_is_blitz());
    assert!(tc("G/8;d2").us_is_blitz());
    assert!(tc("G/3;inc2").us_is_blitz());
    assert!(!tc("G/0.5").us_is_blitz()); // under one minute: bullet
    assert!(!tc("G/11").us_is_blitz());
    assert!(!tc("G/10;d1").us_is_blitz()); // total 11
    assert!(!tc("G/5;inc6").us_is_blitz());
}

#[test]
fn us_blitz_rating_needs_five_to_ten_total_and_three_base() {
    // uscf-2020 "Blitz rating system"
    assert!(tc("G/5").us_blitz_ratable());
    assert!(tc("G/3;inc2").us_blitz_ratable());
    assert!(tc("G/10").us_blitz_ratable());
    assert!(tc("G/5;d3").us_blitz_ratable());
    assert!(!tc("G/3").us_blitz_ratable()); // total 3
    assert!(!tc("G/4;d0").us_blitz_ratable()); // total 4
    assert!(!tc("G/2;inc3").us_blitz_ratable()); // base under 3
    assert!(!tc("G/7;d5").us_blitz_ratable()); // total 12
}

#[test]
fn totals_and_delay_presence() {
    assert_eq!(tc("G/3;inc2").total_ms(), 300_000);
    assert_eq!(tc("G/5;d3").total_ms(), 480_000);
    assert!((tc("G/3;inc2").total_minutes() - 5.0).abs() < 1e-9);
    assert!((tc("G/2.5").total_minutes() - 2.5).abs() < 1e-9);
    assert!(!tc("G/5;d0").has_delay_or_increment());
    assert!(tc("G/5;b3").has_delay_or_increment());
    assert!(tc("3+2").has_delay_or_increment());
}
