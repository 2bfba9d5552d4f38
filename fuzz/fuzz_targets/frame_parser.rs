//! The server's client-frame parser never panics, and what it accepts is a valid event
//! once stamped: the stamped event's JSON parses back as a game-script event.
#![no_main]

use flagfall_protocol::{ClientFrame, parse_frame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A typed SAN move (`san: Some`) is read by the game against its position first.
    if let Ok(ClientFrame::Action {
        action,
        lag_ms,
        san: None,
        ..
    }) = parse_frame(text)
    {
        let event = ClientFrame::event(
            action,
            1234,
            flagfall_game::Party::White,
            lag_ms.unwrap_or(0),
        );
        let line = event.to_json().to_string();
        let back = flagfall_game::script::parse_event(1, &line).expect("a stamped frame parses");
        assert_eq!(back.action, event.action);
    }
});
