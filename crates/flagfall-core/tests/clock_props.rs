//! Property tests for the pure clock: time is only ever gained through an increment,
//! the US delay (time not taken), a Bronstein give-back, or `adjust`; a running clock
//! never goes up; the waiting side never loses time; flags agree with the time; no
//! sequence of calls panics.

use flagfall_core::Color::{self, Black, White};
use flagfall_core::clock::Clock;
use flagfall_core::timecontrol::{Delay, TimeControl};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Start(Color),
    Press(Color),
    Stop,
    Resume,
    Adjust(Color, i64),
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(White), Just(Black)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => color().prop_map(Op::Start),
        6 => color().prop_map(Op::Press),
        1 => Just(Op::Stop),
        1 => Just(Op::Resume),
        1 => (color(), -120_000i64..120_000).prop_map(|(c, d)| Op::Adjust(c, d)),
    ]
}

fn time_control() -> impl Strategy<Value = TimeControl> {
    let delay = prop_oneof![
        Just(Delay::None),
        (0u64..10_000).prop_map(|ms| Delay::Us { ms }),
        (0u64..10_000).prop_map(|ms| Delay::Bronstein { ms }),
        (0u64..10_000).prop_map(|ms| Delay::Increment { ms }),
    ];
    (1u64..600_000, delay).prop_map(|(base_ms, delay)| TimeControl { base_ms, delay })
}

/// Gaps between calls: mostly forward, sometimes zero, sometimes backwards (which the
/// clock must treat as no time passing).
fn step() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 0i64..20_000,
        1 => Just(0i64),
        1 => -5_000i64..0,
        1 => 0i64..200_000,
    ]
}

/// Checks that the flag view agrees with the time for both sides at `at`.
fn check_flags(c: &Clock, at: u64) -> Result<(), TestCaseError> {
    for side in [White, Black] {
        let r = c.remaining(at, side);
        let fell = c.flag_fell_at(at, side);
        prop_assert_eq!(
            fell.is_some(),
            r <= 0,
            "{:?} remaining {} fell {:?}",
            side,
            r,
            fell
        );
        if let Some(t) = fell {
            prop_assert!(t <= at, "fall {} after query {}", t, at);
        }
    }
    if let Some((side, t)) = c.next_flag_fall(at) {
        prop_assert_eq!(Some(side), c.running());
        prop_assert!(t >= at);
        prop_assert_eq!(c.remaining(t, side), 0);
        prop_assert_eq!(c.flag_fell_at(t, side), Some(t));
        if t > at {
            prop_assert!(c.remaining(t - 1, side) > 0);
            prop_assert_eq!(c.flag_fell_at(t - 1, side), None);
        }
    } else if let Some(side) = c.running() {
        // no future fall: the running side is already down (or will never fall)
        prop_assert!(c.remaining(at, side) <= 0 || c.flag_fell_at(at, side).is_none());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn time_is_only_gained_through_the_rules(
        tc in time_control(),
        script in prop::collection::vec((step(), op()), 0..80),
    ) {
        let mut c = Clock::new(tc);
        let mut at: u64 = 0;
        let mut latest: u64 = 0;
        let per_move = tc.delay.ms() as i64;
        for (gap, op) in script {
            let next = at.saturating_add_signed(gap);
            // Time passing with no call: the running side never goes up and loses at
            // most the elapsed time; the waiting side does not change.
            let probe = next.max(at);
            for side in [White, Black] {
                let before = c.remaining(at, side);
                let mid = c.remaining(at + (probe - at) / 2, side);
                let after = c.remaining(probe, side);
                if c.running() == Some(side) {
                    prop_assert!(mid <= before && after <= mid);
                    prop_assert!(before - after <= (probe - at) as i64);
                    // US delay is time not taken; otherwise all elapsed time counts
                    let waived = c.delay_left(at, side) as i64;
                    prop_assert!(before - after >= (probe - at) as i64 - waived);
                } else {
                    prop_assert_eq!(before, after);
                }
            }
            check_flags(&c, at)?;

            // The call itself, made at `next` (possibly earlier than `at`: then no
            // time passes), compared at the effective instant.
            // The clock's notion of "now" moves only with calls that change it (a
            // refused press changes nothing), so the effective instant is measured
            // against the last such call.
            let call_at = next;
            at = next.max(latest);
            let before = [c.remaining(at, White), c.remaining(at, Black)];
            let running = c.running();
            let snapshot = c;
            match op {
                Op::Start(side) => c.start(call_at, side),
                Op::Stop => c.stop(call_at),
                Op::Resume => c.resume(call_at),
                Op::Adjust(side, d) => c.adjust(call_at, side, d),
                Op::Press(side) => {
                    let moves = c.moves_completed(side);
                    match c.press(call_at, side) {
                        Ok(()) => {
                            prop_assert_eq!(running, Some(side));
                            prop_assert_eq!(c.moves_completed(side), moves + 1);
                            prop_assert_eq!(c.running(), Some(!side));
                        }
                        Err(_) => {
                            prop_assert_ne!(running, Some(side));
                            prop_assert_eq!(c, snapshot);
                        }
                    }
                }
            }
            if !matches!(op, Op::Press(_)) || c != snapshot {
                latest = at;
            }
            let after = [c.remaining(at, White), c.remaining(at, Black)];
            for (i, side) in [White, Black].into_iter().enumerate() {
                let gain = after[i] - before[i];
                match op {
                    Op::Adjust(s, d) if s == side => prop_assert_eq!(gain, d),
                    Op::Press(s) if s == side && running == Some(side) => {
                        prop_assert!(gain >= 0);
                        match tc.delay {
                            Delay::Increment { .. } if before[i] > 0 => prop_assert_eq!(gain, per_move),
                            Delay::Bronstein { .. } => prop_assert!(gain <= per_move),
                            _ => prop_assert_eq!(gain, 0),
                        }
                        if before[i] <= 0 {
                            prop_assert_eq!(gain, 0, "a fallen flag gains nothing");
                        }
                    }
                    _ => prop_assert_eq!(gain, 0, "{:?} changed {:?}", op, side),
                }
            }
            check_flags(&c, at)?;
        }
    }

    #[test]
    fn us_delay_never_takes_more_than_time_beyond_the_delay(
        base in 60_000u64..600_000,
        delay in 0u64..10_000,
        moves in prop::collection::vec(0u64..30_000, 1..40),
    ) {
        let tc = TimeControl { base_ms: base, delay: Delay::Us { ms: delay } };
        let mut c = Clock::new(tc);
        c.start(0, White);
        let mut at = 0;
        let mut side = White;
        for think in moves {
            let before = c.remaining(at, side);
            at += think;
            c.press(at, side).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let cost = before - c.remaining(at, side);
            prop_assert_eq!(cost, think.saturating_sub(delay) as i64);
            side = !side;
        }
    }

    #[test]
    fn bronstein_never_gives_back_more_than_was_used(
        base in 60_000u64..600_000,
        delay in 0u64..10_000,
        moves in prop::collection::vec(0u64..30_000, 1..40),
    ) {
        let tc = TimeControl { base_ms: base, delay: Delay::Bronstein { ms: delay } };
        let mut c = Clock::new(tc);
        c.start(0, White);
        let mut at = 0;
        let mut side = White;
        for think in moves {
            let before = c.remaining(at, side);
            at += think;
            let fell = c.remaining(at, side) <= 0;
            c.press(at, side).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let cost = before - c.remaining(at, side);
            if fell {
                prop_assert_eq!(cost, think as i64);
            } else {
                prop_assert_eq!(cost, think.saturating_sub(delay) as i64);
            }
            side = !side;
        }
    }

    #[test]
    fn any_calls_with_any_instants_do_not_panic(
        tc in (any::<u64>(), any::<u64>(), 0u8..4).prop_map(|(b, d, k)| TimeControl {
            base_ms: b,
            delay: match k { 0 => Delay::None, 1 => Delay::Us { ms: d }, 2 => Delay::Bronstein { ms: d }, _ => Delay::Increment { ms: d } },
        }),
        calls in prop::collection::vec((any::<u64>(), op(), any::<i64>()), 0..40),
    ) {
        let mut c = Clock::new(tc);
        // The clock's own "now": the latest instant of a call it took (an earlier `at`
        // is raised to it; a refused press takes no instant).
        let mut now = 0u64;
        for (at, op, delta) in calls {
            let took = match op {
                Op::Start(s) => { c.start(at, s); true }
                Op::Press(s) => c.press(at, s).is_ok(),
                Op::Stop => { c.stop(at); true }
                Op::Resume => { c.resume(at); true }
                Op::Adjust(s, _) => { c.adjust(at, s, delta); true }
            };
            if took {
                now = now.max(at);
            }
            for side in [White, Black] {
                let _ = c.remaining(at, side);
                let _ = c.flag_fell_at(at, side);
                let _ = c.delay_left(at, side);
                let _ = flagfall_core::clock::format_ms(c.remaining(at, side));
            }
            let _ = c.next_flag_fall(at);
            // Saturated amounts keep the flag view consistent with the time.
            check_flags(&c, at.max(now))?;
        }
    }
}
