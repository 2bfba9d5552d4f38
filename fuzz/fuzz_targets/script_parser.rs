//! Any text: the game-script parser never panics; an error names a line within the
//! text and a field, and a parsed script's events keep the order of their instants.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match flagfall_game::script::parse(text) {
        Ok(script) => {
            // docs/game-script.md §2: `at` never goes backwards (the parser enforces it).
            for pair in script.events.windows(2) {
                assert!(pair[0].at <= pair[1].at, "{pair:?}");
            }
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            // a line number can be at most one past the last line (for "missing ...")
            assert!(e.line <= text.lines().count() + 1, "line {} in {} lines: {e}", e.line, text.lines().count());
        }
    }
});
