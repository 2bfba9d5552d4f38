//! Worked examples for the pure clock (docs/rules.md §1, §3, §5).

use flagfall_core::Color::{Black, White};
use flagfall_core::clock::{Clock, ClockError, format_ms};
use flagfall_core::timecontrol::TimeControl;

fn clock(tc: &str) -> Clock {
    Clock::new(tc.parse::<TimeControl>().expect("valid time control"))
}

fn press(c: &mut Clock, at: u64, side: flagfall_core::Color) {
    c.press(at, side)
        .unwrap_or_else(|e| panic!("press at {at}: {e}"));
}

#[test]
fn a_new_clock_is_set_and_stopped() {
    let c = clock("G/5");
    assert_eq!(c.running(), None);
    assert_eq!(c.turn(), White);
    assert_eq!(c.remaining(1_000_000, White), 300_000);
    assert_eq!(c.remaining(1_000_000, Black), 300_000);
    assert_eq!(c.moves_completed(White), 0);
    assert_eq!(c.next_flag_fall(0), None);
}

#[test]
fn sudden_death_counts_down_the_running_side_only() {
    let mut c = clock("G/5");
    c.start(0, White);
    assert_eq!(c.running(), Some(White));
    assert_eq!(c.remaining(4_000, White), 296_000);
    assert_eq!(c.remaining(4_000, Black), 300_000);
    press(&mut c, 4_000, White);
    assert_eq!(c.running(), Some(Black));
    assert_eq!(c.turn(), Black);
    assert_eq!(c.remaining(10_000, White), 296_000);
    assert_eq!(c.remaining(10_000, Black), 294_000);
    assert_eq!(c.moves_completed(White), 1);
    assert_eq!(c.moves_completed(Black), 0);
}

#[test]
fn us_delay_two_second_move_costs_nothing_five_second_move_costs_two() {
    // G/5;d3: the clock waits 3 s each turn before counting down.
    let mut c = clock("G/5;d3");
    c.start(0, White);
    assert_eq!(c.remaining(2_000, White), 300_000);
    assert_eq!(c.delay_left(2_000, White), 1_000);
    press(&mut c, 2_000, White);
    assert_eq!(c.remaining(2_000, White), 300_000);
    // Black's turn: a fresh 3 s delay.
    assert_eq!(c.delay_left(2_000, Black), 3_000);
    assert_eq!(c.remaining(5_000, Black), 300_000);
    assert_eq!(c.remaining(6_000, Black), 299_000);
    press(&mut c, 7_000, Black);
    assert_eq!(c.remaining(7_000, Black), 298_000);
    // Unused delay is not banked: White's 1 s left over did not carry.
    assert_eq!(c.remaining(7_000, White), 300_000);
}

#[test]
fn bronstein_gives_back_time_used_up_to_the_delay() {
    let mut c = clock("G/5;b3");
    c.start(0, White);
    // counts down at once
    assert_eq!(c.remaining(1_000, White), 299_000);
    press(&mut c, 2_000, White); // 2 s used, 2 s back
    assert_eq!(c.remaining(2_000, White), 300_000);
    press(&mut c, 7_000, Black); // 5 s used, 3 s back
    assert_eq!(c.remaining(7_000, Black), 298_000);
    // a paused turn counts all running time used in it
    c.stop(8_000);
    c.resume(20_000);
    press(&mut c, 21_000, White); // 2 s used in two pieces
    assert_eq!(c.remaining(21_000, White), 300_000);
}

#[test]
fn increment_is_added_after_each_completed_move() {
    let mut c = clock("G/3;inc2");
    c.start(0, White);
    press(&mut c, 5_000, White);
    assert_eq!(c.remaining(5_000, White), 177_000);
    press(&mut c, 6_000, Black); // a fast move gains time
    assert_eq!(c.remaining(6_000, Black), 181_000);
}

#[test]
fn the_clock_runs_on_below_zero_and_the_flag_stays_down() {
    // uscf-2020 2a
    let mut c = clock("G/1");
    c.start(0, White);
    assert_eq!(c.flag_fell_at(59_999, White), None);
    assert_eq!(c.flag_fell_at(60_000, White), Some(60_000));
    assert_eq!(c.remaining(70_000, White), -10_000);
    assert_eq!(c.flag_fell_at(70_000, White), Some(60_000));
    assert_eq!(c.remaining(70_000, Black), 60_000);
    press(&mut c, 75_000, White);
    assert_eq!(c.remaining(75_000, White), -15_000);
    assert_eq!(c.flag_fell_at(80_000, White), Some(60_000));
    assert_eq!(c.flag_fell_at(80_000, Black), None);
}

#[test]
fn a_fallen_flag_gets_no_increment_or_bronstein_give_back() {
    let mut c = clock("G/1;inc2");
    c.start(0, White);
    press(&mut c, 61_000, White);
    assert_eq!(c.remaining(61_000, White), -1_000);
    assert_eq!(c.flag_fell_at(61_000, White), Some(60_000));

    let mut c = clock("G/1;b3");
    c.start(0, White);
    press(&mut c, 60_500, White);
    assert_eq!(c.remaining(60_500, White), -500);
}

#[test]
fn us_delay_postpones_the_flag_fall() {
    let mut c = clock("G/1;d3");
    c.start(0, White);
    assert_eq!(c.next_flag_fall(0), Some((White, 63_000)));
    assert_eq!(c.flag_fell_at(62_999, White), None);
    assert_eq!(c.remaining(62_999, White), 1);
    assert_eq!(c.flag_fell_at(64_000, White), Some(63_000));
}

#[test]
fn pause_and_resume_keep_the_delay_remainder() {
    let mut c = clock("G/5;d3");
    c.start(0, White);
    c.stop(1_000);
    assert_eq!(c.running(), None);
    assert_eq!(c.turn(), White);
    assert_eq!(c.delay_left(50_000, White), 2_000);
    assert_eq!(c.remaining(50_000, White), 300_000);
    c.resume(10_000);
    assert_eq!(c.running(), Some(White));
    assert_eq!(c.remaining(12_000, White), 300_000); // 2 s delay left used up
    assert_eq!(c.remaining(14_000, White), 298_000);
    press(&mut c, 14_000, White);
    assert_eq!(c.remaining(14_000, White), 298_000);
    // stop and resume while not running / running are harmless
    c.resume(15_000);
    c.stop(16_000);
    c.stop(17_000);
    assert_eq!(c.delay_left(17_000, Black), 1_000);
}

#[test]
fn pressing_out_of_turn_is_an_error_and_changes_nothing() {
    let mut c = clock("G/5");
    assert_eq!(
        c.press(0, White),
        Err(ClockError::NotRunning {
            side: White,
            running: None
        })
    );
    c.start(0, White);
    let before = c;
    let e = c
        .press(1_000, Black)
        .expect_err("black's clock is not running");
    assert_eq!(
        e,
        ClockError::NotRunning {
            side: Black,
            running: Some(White)
        }
    );
    assert!(e.to_string().contains("black"), "{e}");
    assert_eq!(c, before);
    c.stop(2_000);
    assert_eq!(
        c.press(3_000, White),
        Err(ClockError::NotRunning {
            side: White,
            running: None
        })
    );
}

#[test]
fn adjust_moves_time_and_the_flag_follows() {
    // docs/rules.md §5.1: penalties add one minute to the opponent's clock.
    let mut c = clock("G/1");
    c.start(0, White);
    c.adjust(10_000, Black, 60_000);
    assert_eq!(c.remaining(10_000, Black), 120_000);
    // taking time from the running side
    c.adjust(20_000, White, -30_000);
    assert_eq!(c.remaining(20_000, White), 10_000);
    assert_eq!(c.next_flag_fall(20_000), Some((White, 30_000)));
    // the flag falls, then time added raises it, then it falls again later
    assert_eq!(c.flag_fell_at(35_000, White), Some(30_000));
    c.adjust(35_000, White, 60_000);
    assert_eq!(c.remaining(35_000, White), 55_000);
    assert_eq!(c.flag_fell_at(35_000, White), None);
    assert_eq!(c.next_flag_fall(35_000), Some((White, 90_000)));
    assert_eq!(c.flag_fell_at(95_000, White), Some(90_000));
    // removing time from the waiting side drops its flag at that instant
    c.adjust(100_000, Black, -200_000);
    assert_eq!(c.remaining(100_000, Black), -80_000);
    assert_eq!(c.flag_fell_at(100_000, Black), Some(100_000));
}

#[test]
fn which_flag_fell_first_is_answerable() {
    // uscf-2020 8c: both flags down; the order of the falls matters.
    let mut c = clock("G/1");
    c.start(0, White);
    press(&mut c, 30_000, White);
    press(&mut c, 100_000, Black); // black fell at 30 000 + 60 000
    assert_eq!(c.flag_fell_at(100_000, Black), Some(90_000));
    assert_eq!(c.flag_fell_at(100_000, White), None);
    assert_eq!(c.next_flag_fall(100_000), Some((White, 130_000)));
    let w = c.flag_fell_at(140_000, White).expect("white down");
    let b = c.flag_fell_at(140_000, Black).expect("black down");
    assert!(b < w);
    // a running side whose flag is down has no future fall
    assert_eq!(c.next_flag_fall(140_000), None);
}

#[test]
fn next_flag_fall_answers_for_the_gap_between_events() {
    let mut c = clock("G/1");
    c.start(0, White);
    // an arbiter at 50 000 about to apply an event at 70 000 sees the fall at 60 000
    assert_eq!(c.next_flag_fall(50_000), Some((White, 60_000)));
    assert_eq!(c.next_flag_fall(60_000), Some((White, 60_000)));
    assert_eq!(c.next_flag_fall(60_001), None);
    c.stop(30_000);
    assert_eq!(c.next_flag_fall(30_000), None);
}

#[test]
fn start_switches_sides_as_a_new_turn() {
    let mut c = clock("G/5;d3");
    c.start(0, White);
    c.start(10_000, Black); // director restarts with Black to move; no completed move
    assert_eq!(c.remaining(10_000, White), 293_000);
    assert_eq!(c.moves_completed(White), 0);
    assert_eq!(c.delay_left(10_000, Black), 3_000);
    assert_eq!(c.running(), Some(Black));
}

#[test]
fn instants_that_go_backwards_are_treated_as_now() {
    let mut c = clock("G/5");
    c.start(10_000, White);
    assert_eq!(c.remaining(5_000, White), 300_000);
    press(&mut c, 20_000, White);
    press(&mut c, 15_000, Black); // earlier than the last instant: no time passes
    assert_eq!(c.remaining(20_000, Black), 300_000);
    assert_eq!(c.remaining(20_000, White), 290_000);
    c.adjust(0, White, 1);
    assert_eq!(c.remaining(0, White), 290_001);
    let mut c = clock("G/5");
    c.start(u64::MAX, White);
    assert_eq!(c.remaining(u64::MAX, White), 300_000);
    // a fall beyond the last representable instant never happens
    assert_eq!(c.next_flag_fall(u64::MAX), None);
    assert_eq!(c.flag_fell_at(u64::MAX, White), None);
}

#[test]
fn clocks_serialise_and_come_back_equal() {
    let mut c = clock("G/5;d3");
    c.start(0, White);
    press(&mut c, 4_000, White);
    c.stop(5_500);
    let json = serde_json::to_string(&c).expect("serialises");
    assert!(json.contains("\"G/5;d3\""), "{json}");
    let back: Clock = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(back, c);
}

#[test]
fn format_ms_shows_minutes_seconds_and_tenths_under_ten_seconds() {
    assert_eq!(format_ms(300_000), "5:00");
    assert_eq!(format_ms(65_999), "1:05");
    assert_eq!(format_ms(10_000), "0:10");
    assert_eq!(format_ms(9_999), "0:09.9");
    assert_eq!(format_ms(9_450), "0:09.4");
    assert_eq!(format_ms(0), "0:00.0");
    assert_eq!(format_ms(-3_250), "-0:03.2");
    assert_eq!(format_ms(-65_000), "-1:05");
    assert_eq!(format_ms(4_500_000), "75:00");
    assert!(format_ms(i64::MIN).starts_with('-'));
}
