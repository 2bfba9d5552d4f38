//! Any sequence of clock calls at any instants: nothing panics, a waiting side's time
//! never changes without `adjust`, a running side's time never goes up while time
//! passes, and the flag view always agrees with the time.
#![no_main]

use flagfall_core::Color::{self, Black, White};
use flagfall_core::clock::{Clock, format_ms};
use flagfall_core::timecontrol::{Delay, TimeControl};
use libfuzzer_sys::fuzz_target;

fn take<const N: usize>(data: &mut &[u8]) -> Option<[u8; N]> {
    let (head, rest) = data.split_first_chunk::<N>()?;
    *data = rest;
    Some(*head)
}

fn check(c: &Clock, at: u64) {
    for side in [White, Black] {
        let r = c.remaining(at, side);
        let fell = c.flag_fell_at(at, side);
        assert_eq!(fell.is_some(), r <= 0, "{side:?}: {r} ms, fell {fell:?}");
        if let Some(t) = fell {
            assert!(t <= at, "fall {t} after {at}");
        }
        let _ = format_ms(r);
    }
    if let Some((side, t)) = c.next_flag_fall(at) {
        assert_eq!(c.running(), Some(side));
        assert_eq!(c.remaining(t, side), 0);
    }
}

fuzz_target!(|input: &[u8]| {
    let mut data = input;
    let Some([kind, b0, b1, b2, d0, d1]) = take::<6>(&mut data) else {
        return;
    };
    let base_ms = u64::from(u32::from_le_bytes([b0, b1, b2, 0])) + 1;
    let ms = u64::from(u16::from_le_bytes([d0, d1]));
    let delay = match kind % 4 {
        0 => Delay::None,
        1 => Delay::Us { ms },
        2 => Delay::Bronstein { ms },
        _ => Delay::Increment { ms },
    };
    let mut c = Clock::new(TimeControl { base_ms, delay });
    let mut now = 0u64;
    while let Some([op, g0, g1, a0, a1]) = take::<5>(&mut data) {
        let gap = u64::from(u16::from_le_bytes([g0, g1])) * 8;
        let side: Color = if op & 0x80 == 0 { White } else { Black };
        // Instants mostly move forward; op bit 6 sends one backwards.
        let at = if op & 0x40 == 0 {
            now.saturating_add(gap)
        } else {
            now.saturating_sub(gap)
        };
        let eff = at.max(now);
        let before = [c.remaining(eff, White), c.remaining(eff, Black)];
        let running = c.running();
        let mut changed_clock = true;
        match op & 0x7 {
            0 => c.start(at, side),
            1..=3 => changed_clock = c.press(at, side).is_ok(),
            4 => c.stop(at),
            5 => c.resume(at),
            _ => {
                let delta = i64::from(i16::from_le_bytes([a0, a1])) * 100;
                c.adjust(at, side, delta);
                let i = usize::from(side == Black);
                assert_eq!(c.remaining(eff, side), before[i].saturating_add(delta));
            }
        }
        // Every call is compared at the same instant: a side that was not running and
        // was not adjusted keeps its time.
        for (i, s) in [White, Black].into_iter().enumerate() {
            let adjusted = op & 0x7 >= 6 && s == side;
            if running != Some(s) && !adjusted {
                assert_eq!(c.remaining(eff, s), before[i], "{s:?} changed by op {op}");
            }
        }
        // A refused press changes nothing, not even the clock's idea of "now".
        if changed_clock {
            now = eff;
        }
        // Time passing: the running side does not gain.
        if let Some(s) = c.running() {
            assert!(c.remaining(now.saturating_add(gap), s) <= c.remaining(now, s));
        }
        check(&c, now);
    }
});
