//! The evening's rating changes (`rating_report`): which games count, and the Glicko-2
//! and US Chess figures worked by hand from the published formulas.

use flagfall_events::event::{Event, Format, NewPlayer, RecordedResult};
use flagfall_events::rating_report::{
    ESTABLISHED_GAMES, RATED_DEVIATION, UNRATED_DEVIATION, rating_changes, table,
};

fn player(name: &str, rating: Option<u32>) -> NewPlayer {
    NewPlayer {
        name: name.to_string(),
        rating,
        federation: None,
        fide_id: None,
        uscf_id: None,
    }
}

/// A two-player round robin (one round, one game), with `result` on its only board.
fn one_game(a: Option<u32>, b: Option<u32>, result: RecordedResult) -> Event {
    let mut e = Event::new("Two", Format::RoundRobin, None).unwrap();
    e.add_player(player("Ann", a)).unwrap();
    e.add_player(player("Bob", b)).unwrap();
    e.pair_next().unwrap();
    let board = e.round_list[0].boards[0].number;
    e.set_result(1, board, &[result]).unwrap();
    e
}

fn white_and_black(e: &Event) -> (usize, usize) {
    let b = &e.round_list[0].boards[0];
    let idx = |id: u32| e.players.iter().position(|p| p.id == id).unwrap();
    (idx(b.white), idx(b.black))
}

#[test]
fn a_rated_win_moves_both_ratings_by_the_standard_formula() {
    let e = one_game(Some(1600), Some(1400), RecordedResult::WhiteWins);
    let (w, b) = white_and_black(&e);
    let rows = rating_changes(&e).unwrap();
    let (rw, rb) = (
        e.players[w].rating.unwrap() as f64,
        e.players[b].rating.unwrap() as f64,
    );
    // US Chess standard formula by hand: N' = min(N*, games), K = 800 / (N' + 1).
    let n_star = |r: f64| {
        if r > 2355.0 {
            50.0
        } else {
            50.0 / (0.662 + 0.000_007_39 * (2569.0 - r).powi(2)).sqrt()
        }
    };
    // US Chess step 4 then step 5: an intermediate rating against the opponent's
    // pre-event rating, then the final one against the opponent's intermediate rating.
    let standard = |mine: f64, opp: f64, score: f64| {
        let n_eff = n_star(mine).min(ESTABLISHED_GAMES as f64);
        let k = 800.0 / (n_eff + 1.0);
        let expected = 1.0 / (1.0 + 10f64.powf((opp - mine) / 400.0));
        mine + k * (score - expected)
    };
    let (iw, ib) = (standard(rw, rb, 1.0), standard(rb, rw, 0.0));
    let (fw, fb) = (standard(rw, ib, 1.0), standard(rb, iw, 0.0));
    for (me, before, after, score) in [(w, rw, fw, 1.0), (b, rb, fb, 0.0)] {
        let row = &rows[me];
        assert_eq!(row.games, 1);
        assert_eq!(row.score, score);
        assert_eq!(row.us_formula, "standard");
        assert!((row.us_after - after).abs() < 1e-9, "{row:?} vs {after}");
        assert!((row.us_change.unwrap() - (after - before)).abs() < 1e-9);
    }
    // The winner gains, the loser loses, in both systems, and deviations shrink.
    assert!(rows[w].glicko2_after.rating > rows[w].glicko2_before.rating);
    assert!(rows[b].glicko2_after.rating < rows[b].glicko2_before.rating);
    assert_eq!(rows[w].glicko2_before.deviation, RATED_DEVIATION);
    assert!(rows[w].glicko2_after.deviation < RATED_DEVIATION);
    assert!(rows[w].us_change.unwrap() > 0.0 && rows[b].us_change.unwrap() < 0.0);
}

#[test]
fn glicko2_after_one_game_matches_the_papers_formulas() {
    // Glickman's steps 3-4 and 7 worked by hand for one game (the volatility barely moves
    // over one game; its iteration is checked by the rating module's own test).
    let e = one_game(Some(1500), Some(1700), RecordedResult::Draw);
    let (w, _) = white_and_black(&e);
    let rows = rating_changes(&e).unwrap();
    let row = &rows[w];
    let mine = row.rating.unwrap() as f64;
    let other = if mine == 1500.0 { 1700.0 } else { 1500.0 };
    let scale = 173.7178;
    let (mu, phi) = ((mine - 1500.0) / scale, RATED_DEVIATION / scale);
    let (mu_j, phi_j) = ((other - 1500.0) / scale, RATED_DEVIATION / scale);
    let g = 1.0 / (1.0 + 3.0 * phi_j * phi_j / std::f64::consts::PI.powi(2)).sqrt();
    let e_score = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
    let v = 1.0 / (g * g * e_score * (1.0 - e_score));
    let sigma = row.glicko2_after.volatility;
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * g * (0.5 - e_score);
    assert!((row.glicko2_after.rating - (mu_new * scale + 1500.0)).abs() < 1e-6);
    assert!((row.glicko2_after.deviation - phi_new * scale).abs() < 1e-6);
    assert!((sigma - 0.06).abs() < 1e-3, "volatility {sigma}");
}

#[test]
fn forfeits_are_not_rated() {
    let e = one_game(Some(1600), Some(1400), RecordedResult::WhiteWinsByForfeit);
    let rows = rating_changes(&e).unwrap();
    for row in &rows {
        assert_eq!(row.games, 0, "{row:?}");
        assert_eq!(row.us_change, Some(0.0));
        assert_eq!(row.performance, None);
        // No games: only the deviation grows (Glicko-2 step 6).
        assert_eq!(row.glicko2_after.rating, row.glicko2_before.rating);
        assert!(row.glicko2_after.deviation > row.glicko2_before.deviation);
    }
}

#[test]
fn an_unrated_player_gets_a_provisional_rating_by_the_special_formula() {
    let e = one_game(None, Some(1800), RecordedResult::Draw);
    let rows = rating_changes(&e).unwrap();
    let unrated = rows.iter().find(|r| r.rating.is_none()).unwrap();
    let rated = rows.iter().find(|r| r.rating.is_some()).unwrap();
    assert_eq!(unrated.us_formula, "special");
    assert!(unrated.us_provisional);
    assert_eq!(unrated.us_change, None);
    // A draw against an 1800: the special formula with no prior games gives 1800.
    assert!((unrated.us_after - 1800.0).abs() < 1e-6, "{unrated:?}");
    assert_eq!(unrated.glicko2_before.deviation, UNRATED_DEVIATION);
    // The rated player met someone whose stand-in rating is their own performance (1800):
    // a draw at equal ratings changes nothing.
    assert!(rated.us_change.unwrap().abs() < 1e-6, "{rated:?}");
    let text = table(&rows);
    assert!(
        text.contains("Ann") && text.contains("Bob") && text.contains("(P1)"),
        "{text}"
    );
}

#[test]
fn the_table_widens_its_number_column_for_a_four_digit_number() {
    let e = one_game(Some(1600), Some(1400), RecordedResult::Draw);
    let rows = rating_changes(&e).unwrap();
    // Three columns up to 999: the header and the rows as they always were.
    let small = table(&rows);
    assert!(small.starts_with(" No  Name"), "{small}");
    assert!(
        small.lines().nth(1).unwrap().starts_with("  1  "),
        "{small}"
    );
    // Pairing number 1,000 (an event of 1,000 players): every line one column wider, so
    // the names still start in one column.
    let mut wide = rows.clone();
    wide[1].number = 1000;
    let text = table(&wide);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("  No  Name"), "{text}");
    assert!(lines[1].starts_with("   1  "), "{text}");
    assert!(lines[2].starts_with("1000  "), "{text}");
    let name_at = |l: &str, name: &str| l.find(name).unwrap();
    assert_eq!(name_at(lines[0], "Name"), 6, "{text}");
    assert_eq!(name_at(lines[1], &rows[0].name), 6, "{text}");
    assert_eq!(name_at(lines[2], &rows[1].name), 6, "{text}");
    assert_eq!(lines[1].len(), lines[2].len(), "{text}");
}
