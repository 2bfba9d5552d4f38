//! Property tests of the arbiter: no event sequence panics, a replay is deterministic, a
//! finished game stays finished, and random legal games end exactly as shakmaty says.

use flagfall_core::board::PhysicalMove;
use flagfall_core::ruleset::OffenceKind;
use flagfall_game::generate::{Rng, random_game};
use flagfall_game::outcome::{GameResult, RulingKind};
use flagfall_game::script::{
    self, Action, ClaimKind, Declared, Event, Party, Script, TimeChangeKind,
};
use flagfall_game::{Game, Reason, replay};
use proptest::prelude::*;
use shakmaty::{Chess, Color, Position, Square, uci::UciMove};

const RULESETS: [(&str, &str); 5] = [
    ("uscf-2020", "G/5;d0"),
    ("uscf-classic", "G/5;d0"),
    ("club-ilc", "G/5"),
    ("fide-b3", "3+2"),
    ("blitz-2006", "G/5"),
];

/// A random but state-aware event: mostly moves of the mover's own pieces (legal or not),
/// presses, claims of every kind, offers and director actions.
fn random_event(rng: &mut Rng, game: &Game, at: &mut u64) -> Event {
    *at += rng.u64(..4000);
    let color = if rng.u64(..2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    let on_move = game.board_position().turn();
    let player = if rng.u64(..4) == 0 { color } else { on_move };
    let party = player.fold_wb(Party::White, Party::Black);
    let board = game.board_position().board().clone();
    let action = match rng.u64(..20) {
        0..=8 => {
            let own: Vec<Square> = board.by_color(player).into_iter().collect();
            let from = own
                .get(rng.u64(..own.len().max(1) as u64) as usize)
                .copied()
                .unwrap_or(Square::E2);
            let legal = game.legal_moves();
            let mv = if !legal.is_empty() && rng.u64(..3) > 0 {
                legal[rng.u64(..legal.len() as u64) as usize]
            } else {
                PhysicalMove::new(from, Square::new(rng.u64(..64) as u32))
            };
            Action::Move {
                mv,
                press: rng.u64(..4) > 0,
            }
        }
        9..=10 => Action::Press,
        11 => Action::Retract,
        12..=14 => {
            let claims = [
                ClaimKind::Flag,
                ClaimKind::Illegal,
                ClaimKind::BothFlags,
                ClaimKind::Threefold,
                ClaimKind::Fifty,
                ClaimKind::Ilc,
                ClaimKind::DrawPosition,
            ];
            Action::Claim {
                claim: claims[rng.u64(..7) as usize],
                intended: None,
            }
        }
        15 => [Action::Offer, Action::Accept, Action::Decline][rng.u64(..3) as usize].clone(),
        16 if rng.u64(..2) == 0 => Action::CallDirector { reason: None },
        16 => Action::Resign,
        _ => {
            let d = match rng.u64(..7) {
                0 => Action::StopClock,
                1 => Action::StartClock,
                2 => Action::AddTime {
                    color,
                    ms: rng.u64(..120_000) as i64 - 60_000,
                    kind: if rng.u64(..2) == 0 {
                        TimeChangeKind::Decision
                    } else {
                        TimeChangeKind::Correction
                    },
                },
                3 => Action::Offence {
                    player: color,
                    kind: OffenceKind::ALL[rng.u64(..5) as usize],
                },
                4 => Action::Ruling {
                    grant: rng.u64(..2) == 0,
                },
                5 => Action::Result(Declared::Result(GameResult::Draw, Reason::Director)),
                _ => Action::Result(Declared::Cancel),
            };
            return Event {
                line: 0,
                at: *at,
                by: Some(Party::Director),
                action: d,
                lag_ms: 0,
            };
        }
    };
    Event {
        line: 0,
        at: *at,
        by: Some(party),
        action,
        lag_ms: 0,
    }
}

fn random_script(seed: u64, len: usize) -> Script {
    let mut rng = Rng::with_seed(seed);
    let (rules, tc) = RULESETS[rng.u64(..5) as usize];
    let mut setup_line = format!("{{\"rules\":\"{rules}\",\"time_control\":\"{tc}\"");
    if rng.u64(..3) == 0 {
        setup_line.push_str(",\"auto_flag\":true");
    }
    setup_line.push('}');
    let base = script::parse(&setup_line).expect("setup parses");
    let mut game = Game::new(base.setup.clone());
    let mut at = 0;
    let mut events = Vec::new();
    for i in 0..len {
        let ev = random_event(&mut rng, &game, &mut at);
        game.apply(&ev, i + 1);
        events.push(ev);
    }
    Script {
        setup: base.setup,
        events,
    }
}

/// A random script whose instants leap to the edge of `u64` (up to `u64::MAX`), with
/// director time changes over the whole accepted range (a day either way) and lag
/// credits up to the maximum: issue 19 item 11, client-given durations meeting the clock.
fn extreme_script(seed: u64, len: usize) -> Script {
    let mut rng = Rng::with_seed(seed);
    let (rules, tc) = RULESETS[rng.u64(..5) as usize];
    let auto = if rng.u64(..2) == 0 {
        ",\"auto_flag\":true"
    } else {
        ""
    };
    let setup_line = format!("{{\"rules\":\"{rules}\",\"time_control\":\"{tc}\"{auto}}}");
    let base = script::parse(&setup_line).expect("setup parses");
    let mut game = Game::new(base.setup.clone());
    let mut at = 0u64;
    let mut events = Vec::new();
    for i in 0..len {
        let mut scratch = 0;
        let mut ev = random_event(&mut rng, &game, &mut scratch);
        let leap = match rng.u64(..6) {
            0 => 0,
            1 => rng.u64(..5_000),
            2 => 1 << 32,
            3 => 1 << 62,
            4 => u64::MAX / 2,
            _ => u64::MAX,
        };
        at = at.saturating_add(leap);
        ev.at = at;
        if let Action::AddTime { ms, .. } = &mut ev.action {
            *ms = rng.u64(..2 * 86_400_001) as i64 - 86_400_000;
        }
        if ev.action.presses() {
            ev.lag_ms = rng.u64(..10_001);
        }
        game.apply(&ev, i + 1);
        events.push(ev);
    }
    Script {
        setup: base.setup,
        events,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn extreme_instants_and_time_changes_never_panic_and_round_trip(seed in any::<u64>(), len in 1usize..80) {
        let s = extreme_script(seed, len);
        let report = replay(&s).to_json();
        // The script text and the PGN carry the extreme values back unchanged.
        let mut text = s.setup.to_json().to_string();
        for e in &s.events {
            text.push('\n');
            text.push_str(&e.to_json().to_string());
        }
        let back = script::parse(&text).expect("re-parses");
        prop_assert_eq!(&replay(&back).to_json(), &report);
        let pgn = flagfall_game::pgn::to_pgn(&s);
        let from_pgn = flagfall_game::pgn::from_pgn(&pgn, "uscf-2020").expect("PGN reads back");
        let again = script::parse(&from_pgn).expect("PGN script parses");
        prop_assert_eq!(&replay(&again).to_json(), &report);
    }

    #[test]
    fn no_event_sequence_panics_and_replay_is_deterministic(seed in any::<u64>(), len in 1usize..160) {
        let s = random_script(seed, len);
        let a = replay(&s).to_json();
        let b = replay(&s).to_json();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn a_finished_game_stays_finished(seed in any::<u64>(), len in 1usize..160) {
        let s = random_script(seed, len);
        let r = replay(&s);
        let first_end = r.rulings.iter().position(|x| x.kind == RulingKind::Result);
        if let Some(i) = first_end {
            for later in &r.rulings[i + 1..] {
                // After the end only refusals, or a director's own result, can follow.
                prop_assert!(matches!(later.kind, RulingKind::Refused | RulingKind::Result), "{later:?}");
            }
            prop_assert!(r.result != GameResult::Ongoing || r.reason == Some(Reason::Director));
        }
    }

    #[test]
    fn the_script_text_round_trips(seed in any::<u64>(), len in 1usize..60) {
        let s = random_script(seed, len);
        let mut text = s.setup.to_json().to_string();
        for e in &s.events {
            text.push('\n');
            text.push_str(&e.to_json().to_string());
        }
        let back = script::parse(&text).expect("re-parses");
        prop_assert_eq!(replay(&back).to_json(), replay(&s).to_json());
    }

    #[test]
    fn random_legal_games_end_as_shakmaty_says(seed in any::<u64>()) {
        let g = random_game(seed, 300);
        let s = script::parse(&g.to_script("uscf-2020")).expect("parses");
        let r = replay(&s);
        let mut pos = Chess::default();
        for m in &g.moves {
            let uci: UciMove = m.parse().expect("uci");
            let mv = uci.to_move(&pos).expect("legal");
            pos.play_unchecked(mv);
        }
        prop_assert!(r.rulings.iter().all(|x| x.kind == RulingKind::Result), "{:?}", r.rulings);
        let placement = r.fen.split(' ').next().unwrap_or_default().to_string();
        prop_assert_eq!(placement, pos.board().to_string());
        match (pos.is_checkmate(), pos.is_stalemate()) {
            (true, _) => prop_assert_eq!(r.reason, Some(Reason::Checkmate)),
            (_, true) => prop_assert_eq!(r.reason, Some(Reason::Stalemate)),
            _ => prop_assert_eq!(r.result, GameResult::Ongoing),
        }
    }
}
