//! Deterministic generators of game scripts, for benchmarks, property tests and fuzzing
//! seeds. A tiny xorshift generator keeps them free of dependencies and reproducible.

use flagfall_core::colour;
use shakmaty::{CastlingMode, Chess, Color, Position};

/// A small deterministic pseudo-random generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// A legal game by random play: the UCI moves and the instant each was pressed.
#[derive(Debug, Clone)]
pub struct RandomGame {
    pub moves: Vec<String>,
    pub presses: Vec<u64>,
}

/// Random legal play from the start, at most `plies` half-moves (stops at mate or
/// stalemate), each move taking 0.1 to 3 seconds.
pub fn random_game(seed: u64, plies: usize) -> RandomGame {
    let mut rng = Rng::new(seed);
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
        let m = legal[rng.below(legal.len() as u64) as usize];
        game.moves
            .push(m.to_uci(CastlingMode::Standard).to_string());
        at += 100 + rng.below(2900);
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
