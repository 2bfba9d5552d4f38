//! Any string: parsing a time control never panics, a parsed control's canonical form
//! parses back to the same value, and the blitz predicates nest as the rules say.
#![no_main]

use flagfall_core::timecontrol::{MAX_BASE_MS, MAX_DELAY_MS, TimeControl};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<TimeControl>() {
        Ok(tc) => {
            assert!(tc.base_ms > 0 && tc.base_ms <= MAX_BASE_MS, "{tc:?}");
            assert!(tc.delay.ms() <= MAX_DELAY_MS, "{tc:?}");
            let shown = tc.to_string();
            let back: TimeControl = shown
                .parse()
                .unwrap_or_else(|e| panic!("{text:?} -> {shown:?} does not parse back: {e}"));
            assert_eq!(back, tc, "{text:?} -> {shown:?}");
            assert_eq!(back.to_string(), shown);
            // Ratable US blitz is US blitz (uscf-2020 intro, "Blitz rating system"),
            // and US blitz is within FIDE's 10-minute bound (fide-b3 B.1).
            if tc.us_blitz_ratable() {
                assert!(tc.us_is_blitz(), "{shown}");
            }
            if tc.us_is_blitz() {
                assert!(tc.fide_is_blitz(), "{shown}");
            }
            assert_eq!(tc.has_delay_or_increment(), tc.delay.ms() > 0);
            assert!(tc.total_minutes() >= 0.0);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
