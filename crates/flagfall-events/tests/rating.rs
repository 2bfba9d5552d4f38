//! Rating tests against published examples and hand computations (shown in comments).

use flagfall_events::rating::{
    Glicko2Game, Glicko2Rating, RatingError, UsEventGame, UsFormula, UsGame, UsPrior,
    UsRatingOptions, fide_average_rating, fide_dp, fide_pd, fide_ptp, fide_tpr, glicko2_update,
    us_effective_games, us_event_rating, us_performance, us_rate_event,
};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// The worked example of Glickman's "Example of the Glicko-2 system": a 1500/200/0.06 player
/// beats 1400/30, loses to 1550/100 and to 1700/300 with tau = 0.5, ending on
/// 1464.06 / 151.52 / 0.05999.
#[test]
fn glicko2_paper_example() {
    let player = Glicko2Rating {
        rating: 1500.0,
        deviation: 200.0,
        volatility: 0.06,
    };
    let games = [
        Glicko2Game {
            opponent_rating: 1400.0,
            opponent_deviation: 30.0,
            score: 1.0,
        },
        Glicko2Game {
            opponent_rating: 1550.0,
            opponent_deviation: 100.0,
            score: 0.0,
        },
        Glicko2Game {
            opponent_rating: 1700.0,
            opponent_deviation: 300.0,
            score: 0.0,
        },
    ];
    let out = glicko2_update(player, &games, 0.5).expect("valid input");
    assert!(close(out.rating, 1464.06, 0.01), "rating {}", out.rating);
    assert!(close(out.deviation, 151.52, 0.01), "rd {}", out.deviation);
    assert!(
        close(out.volatility, 0.05999, 0.000_01),
        "vol {}",
        out.volatility
    );
}

/// No games in a period: rating and volatility stay, the deviation grows to
/// sqrt(phi² + sigma²) on the Glicko-2 scale: 200/173.7178 = 1.151293, squared 1.325475,
/// plus 0.0036 = 1.329075, root 1.152855, times 173.7178 = 200.271.
#[test]
fn glicko2_idle_period_grows_deviation() {
    let player = Glicko2Rating {
        rating: 1500.0,
        deviation: 200.0,
        volatility: 0.06,
    };
    let out = glicko2_update(player, &[], 0.5).expect("valid input");
    assert_eq!(out.rating, 1500.0);
    assert_eq!(out.volatility, 0.06);
    assert!(close(out.deviation, 200.271, 0.001), "rd {}", out.deviation);
}

#[test]
fn glicko2_rejects_bad_input() {
    let player = Glicko2Rating {
        rating: 1500.0,
        deviation: 200.0,
        volatility: 0.06,
    };
    let bad = [Glicko2Game {
        opponent_rating: 1400.0,
        opponent_deviation: 30.0,
        score: 0.7,
    }];
    assert!(matches!(
        glicko2_update(player, &bad, 0.5),
        Err(RatingError::BadResult { index: 0, .. })
    ));
    let nan = Glicko2Rating {
        rating: f64::NAN,
        ..player
    };
    assert!(matches!(
        glicko2_update(nan, &[], 0.5),
        Err(RatingError::NotFinite { .. })
    ));
    assert!(matches!(
        glicko2_update(player, &[], 0.0),
        Err(RatingError::NotPositive { what: "tau", .. })
    ));
}

/// FIDE B.02 table 8.1.1 entries, and the mirror for scores below one half.
#[test]
fn fide_dp_table() {
    assert_eq!(fide_dp(100), 800);
    assert_eq!(fide_dp(99), 677);
    assert_eq!(fide_dp(75), 193);
    assert_eq!(fide_dp(67), 125);
    assert_eq!(fide_dp(50), 0);
    assert_eq!(fide_dp(25), -193);
    assert_eq!(fide_dp(0), -800);
    // Monotone over the whole range.
    for p in 0..100 {
        assert!(fide_dp(p) < fide_dp(p + 1), "dp not increasing at {p}");
    }
}

/// FIDE B.02 table 8.1.2 band edges.
#[test]
fn fide_pd_table() {
    assert_eq!(fide_pd(0), 50);
    assert_eq!(fide_pd(3), 50);
    assert_eq!(fide_pd(4), 51);
    assert_eq!(fide_pd(100), 64);
    assert_eq!(fide_pd(-100), 36);
    assert_eq!(fide_pd(735), 99);
    assert_eq!(fide_pd(736), 100);
    assert_eq!(fide_pd(-736), 0);
    for d in -800..800 {
        assert!(fide_pd(d) <= fide_pd(d + 1));
        assert_eq!(fide_pd(d) + fide_pd(-d), 100, "asymmetric at {d}");
    }
}

/// ARO rounds halves up (C.07 10.1): (1500 + 1501) / 2 = 1500.5 → 1501.
#[test]
fn aro_rounds_half_up() {
    assert_eq!(fide_average_rating(&[1500, 1501]), Some(1501));
    assert_eq!(fide_average_rating(&[1500, 1500, 1501]), Some(1500));
    assert_eq!(fide_average_rating(&[]), None);
}

/// TPR = ARO + dp(p).
/// - 3/4 against 2000, 1900, 1800, 1700: ARO 1850, p = .75, dp 193 → 2043.
/// - 2/3 against 1500, 1500, 1501: ARO 1500.33 → 1500, p = .667 → .67, dp 125 → 1625.
/// - 0/2: dp(0) = −800.
#[test]
fn fide_tpr_examples() {
    assert_eq!(fide_tpr(&[2000, 1900, 1800, 1700], 6), Ok(2043));
    assert_eq!(fide_tpr(&[1500, 1500, 1501], 4), Ok(1625));
    assert_eq!(fide_tpr(&[1600, 1400], 0), Ok(1500 - 800));
    assert_eq!(fide_tpr(&[], 0), Err(RatingError::NoGames));
    assert!(matches!(
        fide_tpr(&[1500], 3),
        Err(RatingError::ScoreOutOfRange { .. })
    ));
}

/// PTP (C.07 10.3) for 3/4 against 1900, 1800, 2000, 1700, by hand with table 8.1.2:
/// - R = 2056: differences 156, 256, 56, 356 → .71 + .81 + .58 + .89 = 2.99 < 3;
/// - R = 2057: 157, 257, 57, 357 → .71 + .82 + .58 + .89 = 3.00 ≥ 3, so PTP = 2057.
///
/// A zero score gives the lowest opponent − 800; a perfect score the highest + 736.
#[test]
fn fide_ptp_examples() {
    assert_eq!(fide_ptp(&[1900, 1800, 2000, 1700], 6), Ok(2057));
    assert_eq!(fide_ptp(&[1500, 1600], 0), Ok(700));
    assert_eq!(fide_ptp(&[1500], 2), Ok(2236));
    assert_eq!(fide_ptp(&[], 1), Err(RatingError::NoGames));
}

/// The example of US Chess "Approximating formulas": a 1500 player with 6 prior games beats a
/// 1400, loses to a 1550 and draws a 1650. N' = min(6, 16.57) = 6, and inside ±400 the special
/// formula is (6·1500 + 3·1533.33 + 400·(1 − 1)) / 9 = 1511.11.
#[test]
fn us_special_formula_published_example() {
    let prior = UsPrior {
        rating: 1500.0,
        games: 6,
        all_wins: false,
        all_losses: false,
    };
    let games = [
        UsGame {
            opponent_rating: 1400.0,
            score: 1.0,
        },
        UsGame {
            opponent_rating: 1550.0,
            score: 0.0,
        },
        UsGame {
            opponent_rating: 1650.0,
            score: 0.5,
        },
    ];
    let out = us_event_rating(prior, &games, UsRatingOptions::default()).expect("valid");
    assert_eq!(out.formula, UsFormula::Special);
    assert!(close(out.rating, 1511.11, 0.01), "rating {}", out.rating);
    assert!(out.provisional);
}

/// Standard formula by hand: 1500 rated on 30 games, three wins against 1500s.
/// N* = 50 / sqrt(0.662 + 0.00000739 · 1069²) = 16.568; K = 800 / 19.568 = 40.882;
/// K(S − E) = 40.882 · 1.5 = 61.323; bonus = 61.323 − 14·sqrt(4) = 33.323; new 1594.65.
#[test]
fn us_standard_formula_with_bonus() {
    assert!(close(us_effective_games(1500.0, 30), 16.568, 0.001));
    assert!(close(us_effective_games(1500.0, 10), 10.0, 1e-12));
    assert!(close(us_effective_games(2400.0, 100), 50.0, 1e-12));
    let prior = UsPrior {
        rating: 1500.0,
        games: 30,
        all_wins: false,
        all_losses: false,
    };
    let win = UsGame {
        opponent_rating: 1500.0,
        score: 1.0,
    };
    let out = us_event_rating(prior, &[win, win, win], UsRatingOptions::default()).expect("ok");
    assert_eq!(out.formula, UsFormula::Standard);
    assert!(close(out.k, 40.882, 0.001), "k {}", out.k);
    assert!(close(out.bonus, 33.323, 0.001), "bonus {}", out.bonus);
    assert!(close(out.rating, 1594.65, 0.01), "rating {}", out.rating);
    assert!(!out.provisional);
    // With a repeated opponent there is no bonus: 1500 + 61.32.
    let opts = UsRatingOptions {
        repeated_opponent: true,
        ..UsRatingOptions::default()
    };
    let out = us_event_rating(prior, &[win, win, win], opts).expect("ok");
    assert!(close(out.rating, 1561.32, 0.01), "rating {}", out.rating);
}

/// Performance with no prior: inside ±400 it is average + 400(W − L)/m:
/// 1400, 1550, 1650 with W = 1, L = 1 → 1533.33. A perfect score against one 1500 player is
/// explained by any rating from 1900 up; the smallest is taken.
#[test]
fn us_performance_examples() {
    let games = [
        UsGame {
            opponent_rating: 1400.0,
            score: 1.0,
        },
        UsGame {
            opponent_rating: 1550.0,
            score: 0.0,
        },
        UsGame {
            opponent_rating: 1650.0,
            score: 0.5,
        },
    ];
    assert!(close(us_performance(&games).expect("ok"), 1533.33, 0.01));
    let perfect = [UsGame {
        opponent_rating: 1500.0,
        score: 1.0,
    }];
    assert!(close(us_performance(&perfect).expect("ok"), 1900.0, 0.01));
    assert_eq!(us_performance(&[]), Err(RatingError::NoGames));
}

/// Two established 1500 players (30 games each, N' = 16.568) play once; A wins.
/// K = 800 / 17.568 = 45.536.
/// - Pass 1 (pre-event opponents): A 1500 + 45.536·½ = 1522.77, B 1477.23.
/// - Pass 2 (intermediate opponents): A expects 1 / (1 + 10^((1477.23 − 1500)/400)) = 0.53272
///   → 1500 + 45.536·0.46728 = 1521.28; B symmetric → 1478.72. One game: no bonus.
#[test]
fn us_two_pass_event() {
    let prior = UsPrior {
        rating: 1500.0,
        games: 30,
        all_wins: false,
        all_losses: false,
    };
    let out = us_rate_event(
        &[prior, prior],
        &[UsEventGame {
            a: 0,
            b: 1,
            score_a: 1.0,
        }],
        14.0,
    )
    .expect("valid");
    assert!(close(out[0].rating, 1521.28, 0.01), "A {}", out[0].rating);
    assert!(close(out[1].rating, 1478.72, 0.01), "B {}", out[1].rating);
    assert_eq!(out[0].bonus, 0.0);
    let bad = us_rate_event(
        &[prior],
        &[UsEventGame {
            a: 0,
            b: 3,
            score_a: 1.0,
        }],
        14.0,
    );
    assert_eq!(bad, Err(RatingError::BadPlayer { index: 0 }));
}
