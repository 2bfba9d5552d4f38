//! Any text that parses as a game script is replayed through the arbiter:
//! - a replay is deterministic (the same script twice gives the same report);
//! - applying the events one by one, a game that has ended stays ended, its result
//!   changes only by a director's declared result, and no move is completed after it;
//! - rulings are only ever added, never taken away.
#![no_main]

use flagfall_game::{Action, Game, Party, replay, script};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(script) = script::parse(text) else {
        return;
    };

    let first = replay(&script);
    let second = replay(&script);
    assert_eq!(first.to_json(), second.to_json(), "replay is not deterministic");

    let mut game = Game::new(script.setup.clone());
    for (i, ev) in script.events.iter().enumerate() {
        let was_over = game.is_over();
        let verdict = game.verdict();
        let moves = game.history().len();
        let rulings = game.rulings().to_vec();
        game.apply(ev, i + 1);
        assert!(game.rulings().len() >= rulings.len());
        assert_eq!(&game.rulings()[..rulings.len()], &rulings[..], "a ruling was changed");
        if was_over {
            assert!(game.is_over(), "event {} reopened an ended game", i + 1);
            assert_eq!(game.history().len(), moves, "a move completed after the end");
            let director_result =
                matches!(ev.action, Action::Result(_)) && ev.by == Some(Party::Director);
            if !director_result {
                assert_eq!(game.verdict(), verdict, "event {} changed a final result", i + 1);
            }
        }
    }
});
