//! Ratings: FIDE performance (B.02 tables), Glicko-2, and the US Chess event rating estimate.
//!
//! | What | Source | Function |
//! |---|---|---|
//! | FIDE p → dp conversion | FIDE B.02 (2024) table 8.1.1 ("8.1.a" in older editions) | [`fide_dp`] |
//! | FIDE rating difference → expected score | FIDE B.02 table 8.1.2 ("8.1.b") | [`fide_pd`] |
//! | Tournament performance rating, TPR | FIDE C.07 art. 10.2 | [`fide_tpr`] |
//! | Perfect tournament performance, PTP | FIDE C.07 art. 10.3 | [`fide_ptp`] |
//! | Glicko-2 rating period update | Glickman, "Example of the Glicko-2 system" (2022 rev.) | [`glicko2_update`] |
//! | US Chess post-event rating (standard and special formulas) | Glickman & Doan, "The US Chess Rating System" (2020) steps 2, 4 | [`us_event_rating`] |
//! | US Chess rating of a whole event (two passes) | same, steps 4 and 5 | [`us_rate_event`] |
//! | US Chess performance rating | special formula with no prior games | [`us_performance`] |
//!
//! Everything here is pure arithmetic. Glicko-2 and US Chess ratings are real-valued by design
//! (the US Chess system stores ratings as floats and publishes them rounded); the FIDE functions
//! work in integers and hundredths so they reproduce the published tables exactly.

use thiserror::Error;

/// Bad input to a rating computation.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RatingError {
    /// No games were given where at least one is needed.
    #[error("no games: a performance needs at least one game")]
    NoGames,
    /// A score is outside 0..=games.
    #[error("score {score} is outside 0..={max}")]
    ScoreOutOfRange {
        /// The score given (points).
        score: f64,
        /// The maximum possible.
        max: f64,
    },
    /// A game result is not 0, ½ or 1.
    #[error("game {index}: result {value} is not 0, 0.5 or 1")]
    BadResult {
        /// Index of the game in the input.
        index: usize,
        /// The value given.
        value: f64,
    },
    /// A rating is not a finite number.
    #[error("{what} rating {value} is not a finite number")]
    NotFinite {
        /// Whose rating.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A game names a player index that does not exist, or the same player twice.
    #[error("game {index}: player index out of range or a player against himself")]
    BadPlayer {
        /// Index of the game in the input.
        index: usize,
    },
    /// A rating deviation, volatility or tau is not positive and finite.
    #[error("{what} must be positive and finite, got {value}")]
    NotPositive {
        /// Which parameter.
        what: &'static str,
        /// The value given.
        value: f64,
    },
}

// ---------------------------------------------------------------------------------------------
// FIDE B.02 tables
// ---------------------------------------------------------------------------------------------

/// FIDE B.02 table 8.1.1: dp for p = 0.50, 0.51, ..., 1.00 (index = hundredths − 50).
const DP_TABLE: [i32; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// FIDE B.02 table 8.1.2: the largest rating difference D giving PD = 0.50, 0.51, ..., 0.99
/// (index = hundredths − 50); above 735 PD is 1.00.
const PD_UPPER: [u32; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162,
    170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374,
    391, 411, 432, 456, 484, 517, 559, 619, 735,
];

/// Rating difference dp for a fractional score `p_hundredths` (0..=100), FIDE B.02 table 8.1.1;
/// scores below one half mirror the table (dp(p) = −dp(1 − p)). Values above 100 are clamped.
pub fn fide_dp(p_hundredths: u32) -> i32 {
    let p = p_hundredths.min(100) as usize;
    if p >= 50 {
        DP_TABLE[p - 50]
    } else {
        -DP_TABLE[100 - p - 50]
    }
}

/// Expected score, in hundredths, of a player rated `diff` points above the opponent
/// (negative: below), FIDE B.02 table 8.1.2, on the full scale (no 400-point cut, as C.07
/// art. 10.3 requires for PTP).
pub fn fide_pd(diff: i32) -> u32 {
    let d = diff.unsigned_abs();
    let high = PD_UPPER
        .iter()
        .position(|&upper| d <= upper)
        .map_or(100, |i| 50 + i as u32);
    if diff >= 0 { high } else { 100 - high }
}

/// `num / den` rounded to the nearest integer, halves up, for non-negative inputs.
fn div_round_half_up(num: u64, den: u64) -> u64 {
    (2 * num + den) / (2 * den)
}

/// Average of ratings rounded to the nearest whole number, 0.5 up (FIDE C.07 art. 10.1).
/// `None` for an empty list.
pub fn fide_average_rating(ratings: &[u32]) -> Option<u32> {
    if ratings.is_empty() {
        return None;
    }
    let sum: u64 = ratings.iter().map(|&r| u64::from(r)).sum();
    Some(div_round_half_up(sum, ratings.len() as u64) as u32)
}

/// Tournament performance rating (FIDE C.07 art. 10.2): the rounded average rating of the
/// opponents met over the board plus dp for the fractional score, from FIDE B.02 table 8.1.1.
///
/// `ratings` holds one entry per game played over the board; `points_half` is the score in
/// those games in half-points. Interpretation (the regulation leaves it open): the fractional
/// score is rounded to the nearest hundredth, halves up, before the table lookup, and the
/// rounded average is used.
pub fn fide_tpr(ratings: &[u32], points_half: u32) -> Result<i32, RatingError> {
    let aro = fide_average_rating(ratings).ok_or(RatingError::NoGames)?;
    let games = ratings.len() as u64;
    if u64::from(points_half) > 2 * games {
        return Err(RatingError::ScoreOutOfRange {
            score: f64::from(points_half) / 2.0,
            max: games as f64,
        });
    }
    // p = points / games = points_half / (2 games); hundredths = 100 p.
    let hundredths = div_round_half_up(100 * u64::from(points_half), 2 * games) as u32;
    Ok(aro as i32 + fide_dp(hundredths))
}

/// Perfect tournament performance (FIDE C.07 art. 10.3): the lowest whole rating R such that
/// the expected scores against the opponents (FIDE B.02 table 8.1.2, full scale) add up to at
/// least the score. A zero score gives the lowest opponent rating minus 800.
///
/// `ratings` holds one entry per game played over the board; `points_half` is the score.
pub fn fide_ptp(ratings: &[u32], points_half: u32) -> Result<i32, RatingError> {
    let lowest = ratings.iter().copied().min().ok_or(RatingError::NoGames)?;
    let highest = ratings.iter().copied().max().unwrap_or(lowest);
    let games = ratings.len() as u32;
    if points_half > 2 * games {
        return Err(RatingError::ScoreOutOfRange {
            score: f64::from(points_half) / 2.0,
            max: f64::from(games),
        });
    }
    if points_half == 0 {
        return Ok(lowest as i32 - 800);
    }
    // Target in hundredths of a point; the sum is non-decreasing in R, and reaches
    // 100 * games at R = highest + 736.
    let target = 50 * points_half;
    let expected = |r: i32| -> u32 { ratings.iter().map(|&o| fide_pd(r - o as i32)).sum() };
    let (mut lo, mut hi) = (lowest as i32 - 800, highest as i32 + 736);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if expected(mid) >= target {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

// ---------------------------------------------------------------------------------------------
// Glicko-2
// ---------------------------------------------------------------------------------------------

/// Glicko-2 scale factor between the Glicko scale and the internal Glicko-2 scale.
const GLICKO2_SCALE: f64 = 173.7178;

/// A Glicko-2 rating on the usual (Glicko) scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko2Rating {
    /// Rating, e.g. 1500.
    pub rating: f64,
    /// Rating deviation, e.g. 350 for a new player.
    pub deviation: f64,
    /// Volatility, e.g. 0.06.
    pub volatility: f64,
}

/// One game of a rating period: the opponent's rating and deviation and this player's score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko2Game {
    /// Opponent's rating.
    pub opponent_rating: f64,
    /// Opponent's deviation.
    pub opponent_deviation: f64,
    /// 1 for a win, 0.5 for a draw, 0 for a loss.
    pub score: f64,
}

fn g_factor(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// Updates a rating over one rating period (Glickman's Glicko-2 steps 1-8). `tau` constrains
/// the volatility change (the paper suggests 0.3 to 1.2). With no games only the deviation
/// grows (step 6). The new volatility is found by the Illinois variant of regula falsi, to a
/// tolerance of 1e-6 as in the paper.
pub fn glicko2_update(
    player: Glicko2Rating,
    games: &[Glicko2Game],
    tau: f64,
) -> Result<Glicko2Rating, RatingError> {
    let positive = |what: &'static str, value: f64| {
        if value.is_finite() && value > 0.0 {
            Ok(())
        } else {
            Err(RatingError::NotPositive { what, value })
        }
    };
    positive("tau", tau)?;
    finite("player's", player.rating)?;
    positive("deviation", player.deviation)?;
    positive("volatility", player.volatility)?;
    for (index, gm) in games.iter().enumerate() {
        finite("opponent's", gm.opponent_rating)?;
        positive("opponent deviation", gm.opponent_deviation)?;
        if !(gm.score == 0.0 || gm.score == 0.5 || gm.score == 1.0) {
            return Err(RatingError::BadResult {
                index,
                value: gm.score,
            });
        }
    }
    // Step 2: convert to the Glicko-2 scale.
    let mu = (player.rating - 1500.0) / GLICKO2_SCALE;
    let phi = player.deviation / GLICKO2_SCALE;
    let sigma = player.volatility;
    if games.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Ok(Glicko2Rating {
            rating: player.rating,
            deviation: phi_star * GLICKO2_SCALE,
            volatility: sigma,
        });
    }
    // Step 3: estimated variance v; step 4: improvement delta.
    let mut inv_v = 0.0;
    let mut sum = 0.0;
    for gm in games {
        let mu_j = (gm.opponent_rating - 1500.0) / GLICKO2_SCALE;
        let g = g_factor(gm.opponent_deviation / GLICKO2_SCALE);
        let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
        inv_v += g * g * e * (1.0 - e);
        sum += g * (gm.score - e);
    }
    let v = 1.0 / inv_v;
    let delta = v * sum;
    // Step 5: new volatility by the Illinois algorithm.
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let denom = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * denom * denom) - (x - a) / (tau * tau)
    };
    const EPSILON: f64 = 0.000_001;
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    while (big_b - big_a).abs() > EPSILON {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    let sigma_new = (big_a / 2.0).exp();
    // Steps 6-8.
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Ok(Glicko2Rating {
        rating: GLICKO2_SCALE * mu_new + 1500.0,
        deviation: GLICKO2_SCALE * phi_new,
        volatility: sigma_new,
    })
}

// ---------------------------------------------------------------------------------------------
// US Chess
// ---------------------------------------------------------------------------------------------

/// A player's US Chess standing before the event, in the rating system of the event (for a
/// blitz event: the blitz rating).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsPrior {
    /// Pre-event rating; for an unrated player, the imputed rating of step 1 (which needs data
    /// this crate does not hold, so the caller supplies it).
    pub rating: f64,
    /// Number of rated games the rating is based on (0 if unrated).
    pub games: u32,
    /// Every previous rated game was a win.
    pub all_wins: bool,
    /// Every previous rated game was a loss.
    pub all_losses: bool,
}

/// One game of the event: opponent's pre-event rating and this player's score (1, ½, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsGame {
    /// The opponent's rating.
    pub opponent_rating: f64,
    /// 1, 0.5 or 0.
    pub score: f64,
}

/// Which US Chess formula produced a rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsFormula {
    /// Special formula: 8 or fewer prior games, or a prior record of all wins or all losses.
    Special,
    /// Standard formula with K = 800 / (N' + m).
    Standard,
}

/// The result of rating one player's event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsRatingChange {
    /// Post-event rating (unrounded; official ratings are rounded to whole numbers).
    pub rating: f64,
    /// The formula used.
    pub formula: UsFormula,
    /// Effective number of prior games N'.
    pub effective_games: f64,
    /// K factor (standard formula only; 0 for the special formula).
    pub k: f64,
    /// Bonus points added (standard formula only).
    pub bonus: f64,
    /// Rating still provisional after the event (based on 25 or fewer games).
    pub provisional: bool,
}

/// Options of the US Chess computation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsRatingOptions {
    /// Bonus threshold B (14 since the US Chess ratings committee change of 2021; earlier 12
    /// and 10). Set to `f64::INFINITY` to disable bonuses.
    pub bonus_threshold: f64,
    /// The player met some opponent more than twice in the event (no bonus is then given).
    pub repeated_opponent: bool,
}

impl Default for UsRatingOptions {
    fn default() -> Self {
        UsRatingOptions {
            bonus_threshold: 14.0,
            repeated_opponent: false,
        }
    }
}

/// Effective number of prior games N' (US Chess rating system step 2): the smaller of the real
/// count and 50 / sqrt(0.662 + 0.00000739 (2569 − R)²) (50 for ratings above 2355).
pub fn us_effective_games(rating: f64, games: u32) -> f64 {
    let n_star = if rating > 2355.0 {
        50.0
    } else {
        let d = 2569.0 - rating;
        50.0 / (0.662 + 0.000_007_39 * d * d).sqrt()
    };
    n_star.min(f64::from(games))
}

fn finite(what: &'static str, value: f64) -> Result<(), RatingError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(RatingError::NotFinite { what, value })
    }
}

fn check_us_games(games: &[UsGame]) -> Result<(), RatingError> {
    for (index, gm) in games.iter().enumerate() {
        finite("opponent's", gm.opponent_rating)?;
        if !(gm.score == 0.0 || gm.score == 0.5 || gm.score == 1.0) {
            return Err(RatingError::BadResult {
                index,
                value: gm.score,
            });
        }
    }
    Ok(())
}

/// Post-event US Chess rating of one player, given the opponents' ratings (US Chess rating
/// system, steps 2 and 4; the two-pass use of intermediate opponent ratings, step 5, is the
/// caller's: call once with pre-event ratings, then again with the intermediate ones).
///
/// - Special formula when the prior rating rests on 8 or fewer games or on all wins / all
///   losses: the rating at which the score equals the sum of "provisional" winning
///   expectancies (linear within ±400 points), the prior counting as N' games against the
///   prior rating (drawn, or won / lost at −/+400 for all-win / all-loss records).
/// - Standard formula otherwise: R0 + K(S − E) with K = 800 / (N' + m), E the sum of
///   1 / (1 + 10^((Ri − R0)/400)), plus a bonus max(0, K(S − E) − B·sqrt(max(m, 4))) when the
///   event has at least 3 games and no opponent was met more than twice.
/// - The rating stays provisional while based on 25 or fewer games.
pub fn us_event_rating(
    prior: UsPrior,
    games: &[UsGame],
    opts: UsRatingOptions,
) -> Result<UsRatingChange, RatingError> {
    finite("player's", prior.rating)?;
    check_us_games(games)?;
    let n_eff = us_effective_games(prior.rating, prior.games);
    let m = games.len() as f64;
    let provisional = prior.games as usize + games.len() <= 25;
    if games.is_empty() {
        return Ok(UsRatingChange {
            rating: prior.rating,
            formula: UsFormula::Standard,
            effective_games: n_eff,
            k: 0.0,
            bonus: 0.0,
            provisional,
        });
    }
    let special = prior.games <= 8 || prior.all_wins || prior.all_losses;
    if special {
        let score: f64 = games.iter().map(|g| g.score).sum();
        let (r0, s) = if prior.games > 0 && prior.all_wins {
            (prior.rating - 400.0, score + n_eff)
        } else if prior.games > 0 && prior.all_losses {
            (prior.rating + 400.0, score)
        } else {
            (prior.rating, score + n_eff / 2.0)
        };
        let mut opponents: Vec<(f64, f64)> =
            games.iter().map(|g| (g.opponent_rating, 1.0)).collect();
        if n_eff > 0.0 {
            opponents.push((r0, n_eff));
        }
        let rating = solve_special(&opponents, s);
        return Ok(UsRatingChange {
            rating,
            formula: UsFormula::Special,
            effective_games: n_eff,
            k: 0.0,
            bonus: 0.0,
            provisional,
        });
    }
    let k = 800.0 / (n_eff + m);
    let expected: f64 = games
        .iter()
        .map(|g| 1.0 / (1.0 + 10f64.powf((g.opponent_rating - prior.rating) / 400.0)))
        .sum();
    let score: f64 = games.iter().map(|g| g.score).sum();
    let change = k * (score - expected);
    let bonus = if games.len() >= 3 && !opts.repeated_opponent {
        (change - opts.bonus_threshold * m.max(4.0).sqrt()).max(0.0)
    } else {
        0.0
    };
    Ok(UsRatingChange {
        rating: prior.rating + change + bonus,
        formula: UsFormula::Standard,
        effective_games: n_eff,
        k,
        bonus,
        provisional,
    })
}

/// One game of an event for [`us_rate_event`]: indices into the players slice and the first
/// player's score (1, ½, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsEventGame {
    /// First player (index into the priors).
    pub a: usize,
    /// Second player.
    pub b: usize,
    /// Score of `a`; `b` scores 1 − this.
    pub score_a: f64,
}

/// Rates a whole event the US Chess way, in two passes (rating system steps 4 and 5): first an
/// intermediate rating for everyone from the opponents' pre-event ratings, then the final
/// rating from each player's prior but the opponents' intermediate ratings. Whether a player
/// met an opponent more than twice (no bonus) is found from the games.
///
/// Not covered (written down): step 1 (imputing a prior for unrated players from age or other
/// ratings: the caller supplies [`UsPrior::rating`]), step 3 (a preliminary estimate for
/// unrated players before step 4), and rating floors.
pub fn us_rate_event(
    priors: &[UsPrior],
    games: &[UsEventGame],
    bonus_threshold: f64,
) -> Result<Vec<UsRatingChange>, RatingError> {
    let n = priors.len();
    for (index, g) in games.iter().enumerate() {
        if g.a >= n || g.b >= n || g.a == g.b {
            return Err(RatingError::BadPlayer { index });
        }
        if !(g.score_a == 0.0 || g.score_a == 0.5 || g.score_a == 1.0) {
            return Err(RatingError::BadResult {
                index,
                value: g.score_a,
            });
        }
    }
    let repeated: Vec<bool> = (0..n)
        .map(|p| {
            let mut met: Vec<usize> = games
                .iter()
                .filter_map(|g| {
                    if g.a == p {
                        Some(g.b)
                    } else if g.b == p {
                        Some(g.a)
                    } else {
                        None
                    }
                })
                .collect();
            met.sort_unstable();
            met.windows(3).any(|w| w[0] == w[2])
        })
        .collect();
    let pass =
        |opponent_rating: &dyn Fn(usize) -> f64| -> Result<Vec<UsRatingChange>, RatingError> {
            (0..n)
                .map(|p| {
                    let mine: Vec<UsGame> = games
                        .iter()
                        .filter_map(|g| {
                            if g.a == p {
                                Some(UsGame {
                                    opponent_rating: opponent_rating(g.b),
                                    score: g.score_a,
                                })
                            } else if g.b == p {
                                Some(UsGame {
                                    opponent_rating: opponent_rating(g.a),
                                    score: 1.0 - g.score_a,
                                })
                            } else {
                                None
                            }
                        })
                        .collect();
                    let opts = UsRatingOptions {
                        bonus_threshold,
                        repeated_opponent: repeated[p],
                    };
                    us_event_rating(priors[p], &mine, opts)
                })
                .collect()
        };
    let intermediate = pass(&|o| priors[o].rating)?;
    pass(&|o| intermediate[o].rating)
}

/// US Chess performance rating of an event on its own: the special formula with no prior
/// games (for results inside ±400 points of every opponent this is the familiar
/// average + 400 (W − L) / m).
pub fn us_performance(games: &[UsGame]) -> Result<f64, RatingError> {
    if games.is_empty() {
        return Err(RatingError::NoGames);
    }
    check_us_games(games)?;
    let score: f64 = games.iter().map(|g| g.score).sum();
    let opponents: Vec<(f64, f64)> = games.iter().map(|g| (g.opponent_rating, 1.0)).collect();
    Ok(solve_special(&opponents, score))
}

/// Provisional winning expectancy: linear within ±400 points, 0 or 1 outside.
fn pwe(r: f64, opp: f64) -> f64 {
    (0.5 + (r - opp) / 800.0).clamp(0.0, 1.0)
}

/// Solves Σ wᵢ·PWe(R, Rᵢ) = s for R. The left side is continuous, piecewise linear and
/// non-decreasing; where it equals `s` on a whole interval the midpoint is taken, and where the
/// interval is unbounded (a perfect or a zero score) its finite end is taken (interpretation:
/// the smallest rating that explains a perfect score, the largest that explains a zero score).
fn solve_special(opponents: &[(f64, f64)], s: f64) -> f64 {
    let f = |r: f64| opponents.iter().map(|&(o, w)| w * pwe(r, o)).sum::<f64>() - s;
    let lo_bound = opponents
        .iter()
        .map(|&(o, _)| o)
        .fold(f64::INFINITY, f64::min)
        - 400.0;
    let hi_bound = opponents
        .iter()
        .map(|&(o, _)| o)
        .fold(f64::NEG_INFINITY, f64::max)
        + 400.0;
    // Lowest R with f(R) >= 0, and highest R with f(R) <= 0, by bisection.
    let tol = 1e-9;
    let first_reaching = {
        let (mut lo, mut hi) = (lo_bound, hi_bound);
        if f(lo) >= -tol {
            lo
        } else {
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if f(mid) >= -tol { hi = mid } else { lo = mid }
            }
            hi
        }
    };
    let last_below = {
        let (mut lo, mut hi) = (lo_bound, hi_bound);
        if f(hi) <= tol {
            hi
        } else {
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if f(mid) <= tol { lo = mid } else { hi = mid }
            }
            lo
        }
    };
    let zero_everywhere_above = f(hi_bound) <= tol;
    let zero_everywhere_below = f(lo_bound) >= -tol;
    match (zero_everywhere_below, zero_everywhere_above) {
        (true, false) => last_below,
        (false, true) => first_reaching,
        _ => 0.5 * (first_reaching + last_below),
    }
}
