//! What a live game shows its players beyond the replay report: the move list with SAN,
//! the claims a player may make now, the legal destinations (online play), the flags
//! that are down, and applying events in the groups a replay would form (the
//! simultaneity window), so that a live game and the replay of its script agree.

use std::collections::BTreeMap;

use flagfall_core::board::{BoardRules, PhysicalPosition};
use flagfall_core::ruleset::IllegalWindow;
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color};

use crate::arbiter::{Completed, Game};
use crate::script::{Action, ClaimKind, Event, GameSetup, Party};

/// One completed move, as a live client shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveEntry {
    /// The move in UCI squares (`e2e4`, `e7e8q`).
    pub uci: String,
    /// Standard algebraic notation while the game is legal chess up to this move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    #[serde(with = "color_name")]
    pub by: Color,
    /// The `at` of the press that completed it.
    pub at: u64,
    /// The physical board after it (FEN), legal or not: what a replay of the list shows.
    pub fen: String,
    /// The number of the event that completed it.
    #[serde(skip)]
    pub event: usize,
}

mod color_name {
    use serde::Serializer;
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(c.fold_wb("white", "black"))
    }
}

/// The move list of a game, kept up to date incrementally: SAN is computed once per
/// move, and the list is rebuilt only when moves were taken back (a reinstatement).
#[derive(Debug, Clone, Default)]
pub struct MoveList {
    entries: Vec<MoveEntry>,
    /// The chess position after the last entry, while every entry is legal chess.
    chess: Option<Chess>,
    /// The physical board after the last entry.
    board: Option<PhysicalPosition>,
    /// Whether `chess` was set up (for a rebuild).
    started: bool,
}

fn start_chess(setup: &GameSetup) -> Option<Chess> {
    match &setup.fen {
        None => Some(Chess::default()),
        Some(f) => f
            .parse::<Fen>()
            .ok()?
            .into_position::<Chess>(CastlingMode::Standard)
            .ok(),
    }
}

impl MoveList {
    /// The moves as they stand.
    pub fn entries(&self) -> &[MoveEntry] {
        &self.entries
    }

    /// Bring the list up to date with `game`'s history. Returns the index of the first
    /// entry that changed: entries before it are as they were (the list's old length
    /// when moves were only added).
    pub fn update(&mut self, game: &Game) -> usize {
        let history = game.history();
        let consistent = self.started
            && self.entries.len() <= history.len()
            && self
                .entries
                .last()
                .is_none_or(|e| history[self.entries.len() - 1].event == e.event);
        if !consistent {
            let old = std::mem::take(&mut self.entries);
            self.chess = start_chess(game.setup());
            self.board = Some(game.setup().start.clone());
            self.started = true;
            self.extend(history, game);
            return old
                .iter()
                .zip(&self.entries)
                .take_while(|(a, b)| a == b)
                .count();
        }
        let kept = self.entries.len();
        self.extend(history, game);
        kept
    }

    fn extend(&mut self, history: &[Completed], game: &Game) {
        let rules = BoardRules {
            setup_castling: game.setup().ruleset.moves.setup_castling,
        };
        for c in &history[self.entries.len()..] {
            let fen = match self.board.as_mut() {
                Some(board) => {
                    // The arbiter played this move on the same board, so it plays here.
                    if board.play(&c.record.mv, c.record.mover, &rules).is_err() {
                        self.board = None;
                    }
                    self.board.as_ref().map_or_else(String::new, |b| b.fen())
                }
                None => String::new(),
            };
            let legal = c.record.legality.is_legal();
            let san = match (legal, self.chess.take()) {
                (true, Some(pos)) => UciMove::from_ascii(c.record.mv.to_string().as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .map(|m| {
                        let mut after = pos;
                        let san = SanPlus::from_move_and_play_unchecked(&mut after, m).to_string();
                        self.chess = Some(after);
                        san
                    }),
                _ => None,
            };
            self.entries.push(MoveEntry {
                uci: c.record.mv.to_string(),
                san,
                by: c.record.mover,
                at: c.at,
                fen,
                event: c.event,
            });
        }
    }
}

impl Game {
    /// The colours whose flag is down at `at` (remaining time ≤ 0).
    pub fn flags_down(&self, at: u64) -> Vec<Color> {
        let at = if self.is_over() { self.now() } else { at };
        [Color::White, Color::Black]
            .into_iter()
            .filter(|&c| self.clock().remaining(at, c) <= 0)
            .collect()
    }

    /// The claims `player` may make at `at`: those the ruleset has and the moment
    /// permits. An illegal-move claim is offered whenever the opponent completed the
    /// last move and the claimant has not closed the window by moving, whatever that
    /// move was: the list never reveals whether the claim would succeed.
    pub fn claims_for(&self, player: Color, at: u64) -> Vec<ClaimKind> {
        if self.is_over() || self.halted() {
            return Vec::new();
        }
        let rules = self.ruleset();
        let own_down = self.clock().remaining(at, player) <= 0;
        let opp_down = self.clock().remaining(at, !player) <= 0;
        let mut kinds = Vec::new();
        if opp_down {
            kinds.push(ClaimKind::Flag);
        }
        let opponent_moved_last = self.last_completed_by() == Some(!player);
        let own_move_on_board = self.board_move().is_some_and(|(c, _)| c == player);
        let window_closed_by_moving =
            own_move_on_board && rules.illegal.window == IllegalWindow::OwnMoveMade;
        if opponent_moved_last && !window_closed_by_moving {
            kinds.push(ClaimKind::Illegal);
        }
        if opp_down && own_down {
            kinds.push(ClaimKind::BothFlags);
        }
        if self.position().turn() == player {
            kinds.push(ClaimKind::Threefold);
            kinds.push(ClaimKind::Fifty);
        }
        if rules.draws.ilc
            && !self.setup().time_control.has_delay_or_increment()
            && self.clock().remaining(at, player)
                < flagfall_core::clock::ms_to_i64(rules.draws.ilc_max_remaining_ms)
        {
            kinds.push(ClaimKind::Ilc);
        }
        if rules.draws.draw_positions {
            kinds.push(ClaimKind::DrawPosition);
        }
        kinds
    }

    /// Legal destinations by origin square (`"e2": ["e3", "e4"]`) for the side to move,
    /// empty when the game is over, a claim is pending, the director stopped the clock,
    /// or a move is already on the board.
    pub fn dests(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if self.halted() || self.board_move().is_some() {
            return out;
        }
        for mv in self.legal_moves() {
            let to = out.entry(mv.from.to_string()).or_default();
            let sq = mv.to.to_string();
            if !to.contains(&sq) {
                to.push(sq);
            }
        }
        out
    }

    /// True when `mv` (with its promotion piece, if any) is a legal move now.
    pub fn is_legal_move(&self, mv: &flagfall_core::board::PhysicalMove) -> bool {
        self.legal_moves().contains(mv)
    }

    /// Apply `events` (numbered from `first`, 1-based) exactly as [`crate::replay`]
    /// applies them when they stand at that place in a script: a flag or illegal-move
    /// claim and the events within its simultaneity window are decided together. A live
    /// server that holds such a claim until its window closes, then stores and applies
    /// the whole group, gets the same game as the replay of its stored script.
    pub fn apply_batch(&mut self, events: &[Event], first: usize) {
        crate::apply_events(self, events, first, &mut |_, _| {});
    }

    /// Whether the window of an event that opens a simultaneity question (a player's
    /// flag or illegal-move claim) must be awaited before it is applied.
    pub fn opens_window(ev: &Event) -> bool {
        matches!(
            (&ev.action, ev.by),
            (
                Action::Claim {
                    claim: ClaimKind::Flag | ClaimKind::Illegal,
                    ..
                },
                Some(Party::White | Party::Black)
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::parse;

    fn game_after(lines: &str) -> Game {
        crate::replay(&parse(lines).expect("valid script")).game
    }

    const SETUP: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;

    #[test]
    fn lag_credit_gives_back_time_but_never_before_the_previous_event() {
        let plain = game_after(&format!(
            "{SETUP}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true}}\n{{\"at\":5000,\"by\":\"black\",\"move\":\"e7e5\",\"press\":true}}"
        ));
        let lagged = game_after(&format!(
            "{SETUP}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true}}\n{{\"at\":5000,\"by\":\"black\",\"move\":\"e7e5\",\"press\":true,\"lag_ms\":300}}"
        ));
        assert_eq!(plain.remaining(Color::Black), 295_000);
        assert_eq!(lagged.remaining(Color::Black), 295_300);
        // The credit is bounded by the time since the previous event.
        let capped = game_after(&format!(
            "{SETUP}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true}}\n{{\"at\":100,\"by\":\"black\",\"move\":\"e7e5\",\"press\":true,\"lag_ms\":300}}"
        ));
        assert_eq!(capped.remaining(Color::Black), 300_000);
        // A refused press is credited nothing.
        let refused = game_after(&format!(
            "{SETUP}\n{{\"at\":900,\"by\":\"white\",\"press\":true,\"lag_ms\":300}}"
        ));
        assert_eq!(refused.remaining(Color::White), 299_100);
        assert!(
            parse(&format!(
                "{SETUP}\n{{\"at\":1,\"by\":\"white\",\"offer\":\"draw\",\"lag_ms\":3}}"
            ))
            .is_err()
        );
        assert!(
            parse(&format!(
                "{SETUP}\n{{\"at\":1,\"by\":\"white\",\"press\":true,\"lag_ms\":10001}}"
            ))
            .is_err()
        );
    }

    #[test]
    fn lag_credit_can_save_a_flag_with_automatic_flagging() {
        let tc = r#"{"rules":"fide-b3","time_control":"G/1;d0"}"#;
        let g = game_after(&format!(
            "{tc}\n{{\"at\":60100,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true,\"lag_ms\":200}}"
        ));
        assert!(
            !g.is_over(),
            "the press, credited 200 ms, was made before the fall"
        );
        assert_eq!(g.remaining(Color::White), 100);
        let late = game_after(&format!(
            "{tc}\n{{\"at\":60300,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true,\"lag_ms\":200}}"
        ));
        assert!(late.is_over());
    }

    #[test]
    fn move_list_has_san_while_legal_and_none_after_an_illegal_move() {
        let g = game_after(&format!(
            "{SETUP}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true}}\n{{\"at\":10,\"by\":\"black\",\"move\":\"e8e6\",\"press\":true}}\n{{\"at\":20,\"by\":\"white\",\"move\":\"g1f3\",\"press\":true}}"
        ));
        let mut list = MoveList::default();
        list.update(&g);
        let sans: Vec<_> = list.entries().iter().map(|e| e.san.clone()).collect();
        assert_eq!(sans, [Some("e4".to_string()), None, None]);
        assert_eq!(list.entries()[1].by, Color::Black);
        assert_eq!(list.entries()[2].at, 20);
        // Every entry carries the board after it, the illegal king step included.
        let placement: Vec<_> = list
            .entries()
            .iter()
            .map(|e| e.fen.split(' ').next().unwrap().to_string())
            .collect();
        assert_eq!(
            placement,
            [
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
                "rnbq1bnr/pppppppp/4k3/8/4P3/8/PPPP1PPP/RNBQKBNR",
                "rnbq1bnr/pppppppp/4k3/8/4P3/5N2/PPPP1PPP/RNBQKB1R",
            ]
        );
        // Updating again changes nothing.
        list.update(&g);
        assert_eq!(list.entries().len(), 3);
    }

    #[test]
    fn claims_never_tell_whether_the_last_move_was_illegal() {
        let legal = game_after(&format!(
            "{SETUP}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e4\",\"press\":true}}"
        ));
        let illegal = game_after(&format!(
            "{SETUP}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e5\",\"press\":true}}"
        ));
        assert_eq!(
            legal.claims_for(Color::Black, 10),
            illegal.claims_for(Color::Black, 10)
        );
        assert!(
            legal
                .claims_for(Color::Black, 10)
                .contains(&ClaimKind::Illegal)
        );
        assert!(
            !legal
                .claims_for(Color::Black, 10)
                .contains(&ClaimKind::Flag)
        );
        assert!(
            !legal
                .claims_for(Color::White, 10)
                .contains(&ClaimKind::Illegal)
        );
        // After Black's clock ran out, White may claim the flag.
        assert!(
            legal
                .claims_for(Color::White, 300_001)
                .contains(&ClaimKind::Flag)
        );
        assert_eq!(legal.flags_down(300_001), vec![Color::Black]);
    }

    /// Issue 19 item 4: in fide-b3 a press without a move hands over the move: the
    /// opponent, now on move, is offered the illegal-move claim and his legal moves.
    #[test]
    fn a_press_without_a_move_hands_over_the_move_and_offers_the_claim() {
        let g = game_after(concat!(
            r#"{"rules":"fide-b3","time_control":"G/5;d0"}"#,
            "\n",
            r#"{"at":1000,"by":"white","move":"e2e4","press":true}"#,
            "\n",
            r#"{"at":2000,"by":"black","press":true}"#,
        ));
        assert_eq!(g.last_completed_by(), Some(Color::Black));
        assert_eq!(g.position().turn(), Color::White);
        assert_eq!(g.clock().running(), Some(Color::White));
        assert!(
            g.claims_for(Color::White, 2500)
                .contains(&ClaimKind::Illegal)
        );
        assert!(
            !g.claims_for(Color::Black, 2500)
                .contains(&ClaimKind::Illegal)
        );
        assert!(
            g.dests().contains_key("d2"),
            "White may move: {:?}",
            g.dests()
        );
    }

    #[test]
    fn dests_list_legal_destinations_by_square() {
        let g = game_after(SETUP);
        let d = g.dests();
        assert_eq!(d["g1"], vec!["f3", "h3"]);
        assert_eq!(d.values().map(Vec::len).sum::<usize>(), 20);
    }

    #[test]
    fn batches_give_the_replay_of_the_whole_script() {
        // An illegal move, then the offender's flag claim and the opponent's
        // illegal-move claim within the window: one group.
        let text = format!(
            "{}\n{{\"at\":0,\"by\":\"white\",\"move\":\"e2e5\",\"press\":true}}\n{{\"at\":301000,\"by\":\"white\",\"claim\":\"flag\"}}\n{{\"at\":301500,\"by\":\"black\",\"claim\":\"illegal\"}}",
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":1000}"#
        );
        let script = parse(&text).unwrap();
        let whole = crate::replay(&script);
        let mut g = Game::new(script.setup.clone());
        g.apply_batch(&script.events[..1], 1);
        g.apply_batch(&script.events[1..], 2);
        assert_eq!(g.verdict(), whole.game.verdict());
        assert_eq!(g.rulings(), whole.game.rulings());
        assert!(Game::opens_window(&script.events[1]));
        assert!(!Game::opens_window(&script.events[0]));
    }
}
