//! Moves chosen at random, on a seeded [`Rng`] (fastrand's, the workspace's one
//! generator): the practice computer's chess (the built-in opponent, the training
//! illegal moves and repetitions; the server only drives them) and, as a test hook
//! (feature `test-support`), whole random games for benchmarks, property tests and
//! fuzzing seeds.

use flagfall_core::board::{BoardRules, PhysicalMove, PhysicalPosition, RepetitionKey};
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Chess, Color, Position, Rank, Role, Square};

pub use fastrand::Rng;

fn value(r: Role) -> u32 {
    match r {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 100,
    }
}

fn physical(m: &shakmaty::Move) -> PhysicalMove {
    let u = UciMove::from_standard(*m);
    match u {
        UciMove::Normal {
            from,
            to,
            promotion,
        } => PhysicalMove {
            from,
            to,
            promotion,
        },
        // A legal chess move is never a drop or a null move.
        _ => unreachable!("a standard chess move is a normal UCI move: {u}"),
    }
}

/// The built-in opponent: a legal move, the most valuable capture first, otherwise a
/// random one (promotions to a queen). `None` when the side to move has no legal move.
pub fn simple_move(pos: &Chess, rng: &mut Rng) -> Option<PhysicalMove> {
    let moves = pos.legal_moves();
    let queening = |m: &&shakmaty::Move| m.promotion().is_none_or(|p| p == Role::Queen);
    let best = moves
        .iter()
        .filter(queening)
        .map(|m| m.capture().map_or(0, value))
        .max()?;
    let pool: Vec<_> = moves
        .iter()
        .filter(queening)
        .filter(|m| m.capture().map_or(0, value) == best)
        .collect();
    Some(physical(pool[rng.usize(..pool.len())]))
}

/// One of `moves` at random, `None` when there are none.
fn pick(moves: Vec<PhysicalMove>, rng: &mut Rng) -> Option<PhysicalMove> {
    (!moves.is_empty()).then(|| moves[rng.usize(..moves.len())])
}

/// An illegal move the physical board allows, as a club player makes one in time
/// trouble: the king onto an attacked square next to it; otherwise a piece one step in a
/// direction it cannot move; otherwise any piece onto an empty square it cannot reach.
/// Never a move [`PhysicalPosition::legal_moves`] lists; always a piece of `mover`.
/// `None` if the mover has no piece that can be put anywhere.
pub fn illegal_move(pos: &PhysicalPosition, mover: Color, rng: &mut Rng) -> Option<PhysicalMove> {
    let board = pos.board();
    let legal = if pos.turn() == mover {
        pos.legal_moves(&BoardRules::default())
    } else {
        Vec::new()
    };
    let is_legal = |from: Square, to: Square| legal.iter().any(|m| m.from == from && m.to == to);
    let own = board.by_color(mover);
    let occupied = board.occupied();
    let mut king_moves = Vec::new();
    if let Some(k) = board.king_of(mover) {
        for to in shakmaty::attacks::king_attacks(k) & !own {
            let attacked = board
                .attacks_to(to, !mover, occupied ^ Bitboard::from_square(k))
                .any();
            if attacked && !is_legal(k, to) && board.role_at(to) != Some(Role::King) {
                king_moves.push(PhysicalMove::new(k, to));
            }
        }
    }
    if let Some(m) = pick(king_moves, rng) {
        return Some(m);
    }
    let mut steps = Vec::new();
    for from in own {
        if matches!(board.role_at(from), Some(Role::King | Role::Pawn) | None) {
            continue;
        }
        for to in shakmaty::attacks::king_attacks(from) & !occupied {
            if !is_legal(from, to) {
                steps.push(PhysicalMove::new(from, to));
            }
        }
    }
    if let Some(m) = pick(steps, rng) {
        return Some(m);
    }
    let mut any = Vec::new();
    for from in own {
        for to in !occupied {
            let last_rank = to.rank() == Rank::Eighth || to.rank() == Rank::First;
            if board.role_at(from) == Some(Role::Pawn) && last_rank {
                continue;
            }
            if !is_legal(from, to) {
                any.push(PhysicalMove::new(from, to));
            }
        }
    }
    pick(any, rng)
}

/// The repetition keys (the core's, laws 9.2.2) of `start` and of the position after each
/// of `moves`, while they are legal (`None` once one is not).
pub fn position_keys<'a>(
    start: &PhysicalPosition,
    moves: impl IntoIterator<Item = &'a PhysicalMove>,
) -> Option<Vec<RepetitionKey>> {
    let rules = BoardRules::default();
    let mut pos = start.clone();
    let mut keys = vec![pos.repetition_key()];
    for mv in moves {
        let mover = pos.turn();
        let record = pos.play(mv, mover, &rules).ok()?;
        if !record.legality.is_legal() {
            return None;
        }
        keys.push(pos.repetition_key());
    }
    Some(keys)
}

/// Training: a legal move into a position that has stood before (the one seen most
/// often first; `keys` from [`position_keys`]), so a repetition the player may claim
/// comes about; else, while `shuffling`, a quiet knight move (another quiet move of a
/// minor piece or the queen when no knight can), to be played back later. `None` when
/// neither applies or `pos` is not legal chess.
pub fn repetition_move(
    pos: &PhysicalPosition,
    keys: &[RepetitionKey],
    shuffling: bool,
    rng: &mut Rng,
) -> Option<PhysicalMove> {
    let chess = pos.to_chess()?;
    let rules = BoardRules::default();
    let moves = chess.legal_moves();
    let seen = |m: &shakmaty::Move| {
        let mut after = pos.clone();
        let key = after
            .play(&physical(m), pos.turn(), &rules)
            .map(|_| after.repetition_key());
        key.map_or(0, |key| keys.iter().filter(|k| **k == key).count())
    };
    if let Some((_, m)) = moves
        .iter()
        .map(|m| (seen(m), m))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, _)| *n)
    {
        return Some(physical(m));
    }
    if !shuffling {
        return None;
    }
    let quiet = |roles: &[Role]| -> Vec<PhysicalMove> {
        moves
            .iter()
            .filter(|m| roles.contains(&m.role()) && !m.is_capture() && !m.is_castle())
            .map(physical)
            .collect()
    };
    let mut pool = quiet(&[Role::Knight]);
    if pool.is_empty() {
        pool = quiet(&[Role::Bishop, Role::Queen]);
    }
    pick(pool, rng)
}

#[cfg(feature = "test-support")]
pub use random::*;

#[cfg(feature = "test-support")]
mod random {
    use flagfall_core::colour;
    use shakmaty::{CastlingMode, Chess, Color, Position};

    use super::Rng;

    /// A legal game by random play: the UCI moves and the instant each was pressed.
    #[derive(Debug, Clone)]
    pub struct RandomGame {
        pub moves: Vec<String>,
        pub presses: Vec<u64>,
    }

    /// Random legal play from the start, at most `plies` half-moves (stops at mate or
    /// stalemate), each move taking 0.1 to 3 seconds.
    pub fn random_game(seed: u64, plies: usize) -> RandomGame {
        let mut rng = Rng::with_seed(seed);
        let mut pos = Chess::default();
        let mut at = 0u64;
        let mut game = RandomGame {
            moves: Vec::new(),
            presses: Vec::new(),
        };
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.usize(..legal.len())];
            game.moves
                .push(m.to_uci(CastlingMode::Standard).to_string());
            at += rng.u64(100..3000);
            game.presses.push(at);
            pos.play_unchecked(m);
        }
        game
    }

    impl RandomGame {
        /// The game as a script under `rules` with G/5 (move and press in one event).
        pub fn to_script(&self, rules: &str) -> String {
            let mut out = format!("{{\"rules\":\"{rules}\",\"time_control\":\"G/5\"}}\n");
            for (i, (m, at)) in self.moves.iter().zip(&self.presses).enumerate() {
                let by = if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                out.push_str(&format!(
                    "{{\"at\":{at},\"by\":\"{}\",\"move\":\"{m}\",\"press\":true}}\n",
                    colour::key(by)
                ));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess(fen: &str) -> Chess {
        PhysicalPosition::from_fen(fen)
            .unwrap()
            .to_chess()
            .expect("legal chess")
    }

    #[test]
    fn the_simple_opponent_plays_legal_moves_and_takes_the_queen() {
        let mut rng = Rng::with_seed(3);
        let start = PhysicalPosition::default();
        let legal = start.legal_moves(&BoardRules::default());
        for _ in 0..20 {
            let m = simple_move(&start.to_chess().unwrap(), &mut rng).expect("a move");
            assert!(legal.contains(&m), "{m}");
        }
        let pos = chess("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(
            simple_move(&pos, &mut rng)
                .map(|m| m.to_string())
                .as_deref(),
            Some("e4d5")
        );
        let mate = chess("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(simple_move(&mate, &mut rng), None);
    }

    #[test]
    fn training_moves_are_never_legal() {
        let mut rng = Rng::with_seed(11);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1",
            // Not legal chess (no black king): the physical board's moves still count.
            "8/8/8/8/8/8/8/R3K3 w - - 0 1",
        ] {
            let pos = PhysicalPosition::from_fen(fen).unwrap();
            let legal = pos.legal_moves(&BoardRules::default());
            for _ in 0..20 {
                let m = illegal_move(&pos, pos.turn(), &mut rng).expect("an illegal move");
                assert!(!legal.contains(&m), "{fen}: {m} is legal");
                assert!(
                    !pos.classify(&m, pos.turn(), &BoardRules::default())
                        .unwrap()
                        .is_legal(),
                    "{fen}: {m} is classified legal"
                );
                assert_eq!(
                    pos.board().color_at(m.from),
                    Some(pos.turn()),
                    "{fen}: {m} moves a piece of the mover"
                );
            }
        }
        // Next to the enemy rook, the king steps onto an attacked square.
        let pos = PhysicalPosition::from_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").unwrap();
        for _ in 0..20 {
            let m = illegal_move(&pos, Color::White, &mut rng).expect("a move");
            assert!(
                ["e1d1", "e1f1", "e1d2", "e1f2"].contains(&m.to_string().as_str()),
                "{m}"
            );
        }
    }

    #[test]
    fn training_plays_into_a_repetition_and_shuffles_a_knight() {
        let mut rng = Rng::with_seed(9);
        // 1. Nf3 Nc6 2. Ng1: Black's Nb8 brings back the start position.
        let start = PhysicalPosition::default();
        let moves: Vec<PhysicalMove> = ["g1f3", "b8c6", "f3g1"]
            .iter()
            .map(|u| u.parse().unwrap())
            .collect();
        let keys = position_keys(&start, &moves).expect("legal moves");
        assert_eq!(keys.len(), 4);
        let mut pos = start.clone();
        for m in &moves {
            pos.play(m, pos.turn(), &BoardRules::default()).unwrap();
        }
        assert_eq!(
            repetition_move(&pos, &keys, false, &mut rng).map(|m| m.to_string()),
            Some("c6b8".to_string())
        );
        // Nothing repeats from the start: only the shuffle phase moves a knight.
        let keys = position_keys(&start, &[]).unwrap();
        assert_eq!(repetition_move(&start, &keys, false, &mut rng), None);
        let m = repetition_move(&start, &keys, true, &mut rng).expect("a knight move");
        assert!(
            ["b1a3", "b1c3", "g1f3", "g1h3"].contains(&m.to_string().as_str()),
            "{m}"
        );
        // An illegal move ends the keys: repetitions are counted in legal chess only.
        let illegal: PhysicalMove = "e2e5".parse().unwrap();
        assert_eq!(position_keys(&start, [&illegal]), None);
    }
}
