//! Deterministic generator of unwinnability queries, shared by the differential test and
//! the benchmark (`#[path]`-included). Every position is legal for shakmaty and parses in
//! the `chess` crate, so both solvers see the same query.

#![allow(dead_code)]

use std::str::FromStr;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role,
    Setup, Square, fen::Fen,
};

/// SplitMix64: small, deterministic, good enough for sampling positions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One query: a FEN and the intended winner, with the family it came from.
#[derive(Debug, Clone)]
pub struct Query {
    pub family: &'static str,
    pub fen: String,
    pub winner: Color,
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn accept(setup: Setup) -> Option<Chess> {
    let pos = Chess::from_setup(setup, CastlingMode::Standard).ok()?;
    let fen = fen_of(&pos);
    chess::Board::from_str(&fen).ok()?;
    Some(pos)
}

fn random_playout(rng: &mut Rng, plies: u64, capture_bias: u64) -> Chess {
    let mut pos = Chess::default();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
        let m = if !captures.is_empty() && rng.chance(capture_bias) {
            *captures[rng.below(captures.len() as u64) as usize]
        } else {
            moves[rng.below(moves.len() as u64) as usize]
        };
        pos.play_unchecked(m);
    }
    pos
}

fn material_value(board: &Board, color: Color) -> u32 {
    let m = board.material_side(color);
    m.pawn as u32 + 3 * (m.knight as u32 + m.bishop as u32) + 5 * m.rook as u32 + 9 * m.queen as u32
}

fn random_square(rng: &mut Rng, free: Bitboard) -> Option<Square> {
    let n = free.count() as u64;
    if n == 0 {
        return None;
    }
    free.into_iter().nth(rng.below(n) as usize)
}

/// Places the given pieces on random free squares (pawns off the back ranks).
fn scatter(rng: &mut Rng, board: &mut Board, pieces: &[Piece]) -> bool {
    for &p in pieces {
        let mut free = !board.occupied();
        if p.role == Role::Pawn {
            free &= !Bitboard::BACKRANKS;
        }
        let Some(sq) = random_square(rng, free) else {
            return false;
        };
        board.set_piece_at(sq, p);
    }
    true
}

fn setup_of(board: Board, turn: Color) -> Setup {
    let mut s = Setup::empty();
    s.board = board;
    s.turn = turn;
    s
}

const ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

fn random_color(rng: &mut Rng) -> Color {
    if rng.chance(50) {
        Color::White
    } else {
        Color::Black
    }
}

/// Locked pawn wall: on most files a white pawn directly below a black pawn.
fn locked_wall(rng: &mut Rng) -> Option<Chess> {
    let mut board = Board::empty();
    let base = 2 + rng.below(3) as u32; // rank index of the wall's middle
    for file in 0..8u32 {
        if !rng.chance(80) {
            continue;
        }
        let jitter = rng.below(3) as i32 - 1;
        let r = (base as i32 + jitter).clamp(1, 5) as u32;
        let w = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(r));
        let b = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(r + 1));
        board.set_piece_at(w, Color::White.pawn());
        board.set_piece_at(b, Color::Black.pawn());
    }
    let mut pieces = vec![Color::White.king(), Color::Black.king()];
    for _ in 0..rng.below(4) {
        let c = random_color(rng);
        let role = match rng.below(6) {
            0 => Role::Knight,
            1 => Role::Rook,
            _ => Role::Bishop,
        };
        pieces.push(role.of(c));
    }
    // Kings on their own side of the wall most of the time.
    let south =
        Bitboard::from_rank(shakmaty::Rank::First) | Bitboard::from_rank(shakmaty::Rank::Second);
    let north =
        Bitboard::from_rank(shakmaty::Rank::Eighth) | Bitboard::from_rank(shakmaty::Rank::Seventh);
    for p in pieces {
        let zone = match (p.role, p.color, rng.chance(85)) {
            (_, Color::White, true) => south,
            (_, Color::Black, true) => north,
            _ => Bitboard::FULL,
        };
        let sq = random_square(rng, zone & !board.occupied())?;
        board.set_piece_at(sq, p);
    }
    accept(setup_of(board, random_color(rng)))
}

/// Full-width locked wall: on every file a white pawn directly below a black pawn, the
/// rank changing by one from each file to the next (so no pawn can capture or push, and
/// the chain shuts the board in two), with each side's king and one or two pieces (a
/// knight, a bishop, a rook, or two of them) behind its own half of the wall. Kings often
/// sit in a pocket of their own pawns (wherever the wall dips near a corner).
fn shut_wall(rng: &mut Rng) -> Option<Chess> {
    let mut board = Board::empty();
    // rank index of each file's white pawn: 1..=5 (black pawn one above).
    let mut ranks = [0u32; 8];
    ranks[0] = 1 + rng.below(5) as u32;
    for f in 1..8 {
        let prev = ranks[f - 1];
        ranks[f] = match prev {
            1 => 2,
            5 => 4,
            _ if rng.chance(50) => prev + 1,
            _ => prev - 1,
        };
    }
    let mut south = Bitboard::EMPTY;
    let mut north = Bitboard::EMPTY;
    for (f, &r) in ranks.iter().enumerate() {
        let file = shakmaty::File::new(f as u32);
        board.set_piece_at(
            Square::from_coords(file, shakmaty::Rank::new(r)),
            Color::White.pawn(),
        );
        board.set_piece_at(
            Square::from_coords(file, shakmaty::Rank::new(r + 1)),
            Color::Black.pawn(),
        );
        for rank in 0..8u32 {
            let sq = Square::from_coords(file, shakmaty::Rank::new(rank));
            if rank < r {
                south.add(sq);
            } else if rank > r + 1 {
                north.add(sq);
            }
        }
    }
    const KITS: [&[Role]; 7] = [
        &[Role::Knight],
        &[Role::Bishop],
        &[Role::Rook],
        &[Role::Bishop, Role::Rook],
        &[Role::Knight, Role::Bishop],
        &[Role::Knight, Role::Rook],
        &[Role::Bishop, Role::Bishop],
    ];
    for (color, zone) in [(Color::White, south), (Color::Black, north)] {
        let mut pieces = vec![color.king()];
        // Now and then a side keeps only its king.
        if rng.chance(90) {
            let kit = KITS[rng.below(KITS.len() as u64) as usize];
            pieces.extend(kit.iter().map(|r| r.of(color)));
        }
        for p in pieces {
            let sq = random_square(rng, zone & !board.occupied())?;
            board.set_piece_at(sq, p);
        }
    }
    accept(setup_of(board, random_color(rng)))
}

/// A king shut in a corner pocket behind a full-width locked wall (issue 23): the wall as
/// in [`shut_wall`], with its pawn of the boxed side's corner file directly in front of
/// the corner (on the second rank for White, the seventh for Black) and the next file's
/// pair one rank farther (so the enemy pawn of the corner file guards the square
/// diagonally in front of the corner); the boxed king on the corner; the only other piece
/// a knight of the other ("free") side in the boxed king's half, on the back-rank square
/// that closes a pocket of two or three squares (next to the corner, or one farther) or,
/// now and then, on another square near the corner; the free king anywhere in its own
/// half; and half of the time a spare pawn of the free side in its own half, with one or
/// two pushes left before its own wall pawn blocks it, on a file whose two neighbouring
/// pairs both stand one rank nearer the boxed side (so the squares it attacks on its way
/// never hold an enemy pawn: it can never capture). Both winners are asked.
fn corner_pocket(rng: &mut Rng) -> Option<Chess> {
    let boxed = random_color(rng);
    let free = !boxed;
    // The corner file: a (0) or h (7); files are built outward from it.
    let corner_file: u32 = if rng.chance(50) { 0 } else { 7 };
    let file_at = |i: u32| -> u32 { if corner_file == 0 { i } else { 7 - i } };
    // rank index of each file's white pawn, 1..=5, indexed by distance from the corner.
    let mut ranks = [0u32; 8];
    ranks[0] = if boxed.is_white() { 1 } else { 5 };
    ranks[1] = if boxed.is_white() { 2 } else { 4 };
    for i in 2..8 {
        let prev = ranks[i - 1];
        ranks[i] = match prev {
            1 => 2,
            5 => 4,
            _ if rng.chance(50) => prev + 1,
            _ => prev - 1,
        };
    }
    let mut board = Board::empty();
    let mut south = Bitboard::EMPTY;
    let mut north = Bitboard::EMPTY;
    let mut white_rank = [0u32; 8];
    for (i, &r) in ranks.iter().enumerate() {
        let f = file_at(i as u32);
        white_rank[f as usize] = r;
        let file = shakmaty::File::new(f);
        board.set_piece_at(
            Square::from_coords(file, shakmaty::Rank::new(r)),
            Color::White.pawn(),
        );
        board.set_piece_at(
            Square::from_coords(file, shakmaty::Rank::new(r + 1)),
            Color::Black.pawn(),
        );
        for rank in 0..8u32 {
            let sq = Square::from_coords(file, shakmaty::Rank::new(rank));
            if rank < r {
                south.add(sq);
            } else if rank > r + 1 {
                north.add(sq);
            }
        }
    }
    let (boxed_half, free_half) = if boxed.is_white() {
        (south, north)
    } else {
        (north, south)
    };
    let back = boxed.relative_rank(shakmaty::Rank::First);
    let corner = Square::from_coords(shakmaty::File::new(file_at(0)), back);
    board.set_piece_at(corner, boxed.king());
    // The knight: on the back-rank square closing the pocket (next to the corner or one
    // farther), or on another square of the boxed half within two king steps of the corner.
    let knight = if rng.chance(75) {
        let i = 1 + rng.below(2) as u32;
        Square::from_coords(shakmaty::File::new(file_at(i)), back)
    } else {
        let near = boxed_half & !board.occupied() & !Bitboard::from_square(corner);
        let near: Bitboard = near
            .into_iter()
            .filter(|s| s.distance(corner) <= 2)
            .collect();
        random_square(rng, near)?
    };
    board.set_piece_at(knight, Role::Knight.of(free));
    let king = random_square(rng, free_half & !board.occupied())?;
    board.set_piece_at(king, free.king());
    if rng.chance(50) {
        // A spare pawn of the free side, two or three squares behind its own wall pawn.
        let files: Vec<u32> = (0..8u32)
            .filter(|&f| {
                let r = white_rank[f as usize] as i32;
                let lower = |g: i32| {
                    !(0..8).contains(&g) || {
                        let n = white_rank[g as usize] as i32;
                        if free.is_white() {
                            n == r + 1
                        } else {
                            n == r - 1
                        }
                    }
                };
                lower(f as i32 - 1) && lower(f as i32 + 1)
            })
            .collect();
        if !files.is_empty() {
            let f = files[rng.below(files.len() as u64) as usize];
            let r = white_rank[f as usize] as i32;
            let steps = 2 + rng.below(2) as i32;
            let rank = if free.is_white() {
                r - steps
            } else {
                r + 1 + steps
            };
            if (1..=6).contains(&rank) {
                let sq =
                    Square::from_coords(shakmaty::File::new(f), shakmaty::Rank::new(rank as u32));
                if !board.occupied().contains(sq) {
                    board.set_piece_at(sq, Role::Pawn.of(free));
                }
            }
        }
    }
    accept(setup_of(board, random_color(rng)))
}

fn small_endgame(rng: &mut Rng, extra: u64) -> Option<Chess> {
    let mut board = Board::empty();
    let mut pieces = vec![Color::White.king(), Color::Black.king()];
    for _ in 0..extra {
        let role = ROLES[rng.below(5) as usize];
        pieces.push(role.of(random_color(rng)));
    }
    if !scatter(rng, &mut board, &pieces) {
        return None;
    }
    accept(setup_of(board, random_color(rng)))
}

fn same_coloured_bishops(rng: &mut Rng) -> Option<Chess> {
    let mut board = Board::empty();
    scatter(rng, &mut board, &[Color::White.king(), Color::Black.king()]);
    let colour = if rng.chance(50) {
        Bitboard::DARK_SQUARES
    } else {
        Bitboard::LIGHT_SQUARES
    };
    for _ in 0..1 + rng.below(4) {
        let sq = random_square(rng, colour & !board.occupied())?;
        board.set_piece_at(sq, Role::Bishop.of(random_color(rng)));
    }
    // Sometimes a pawn or a knight, which may or may not make a mate possible.
    if rng.chance(30) {
        let role = if rng.chance(50) {
            Role::Pawn
        } else {
            Role::Knight
        };
        let c = random_color(rng);
        scatter(rng, &mut board, &[role.of(c)]);
    }
    accept(setup_of(board, random_color(rng)))
}

/// The full benchmark/differential corpus: `scale` = 1 gives about 7,150 queries.
pub fn corpus(seed: u64, scale: usize) -> Vec<Query> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let push = |out: &mut Vec<Query>, family, pos: &Chess, winner| {
        out.push(Query {
            family,
            fen: fen_of(pos),
            winner,
        })
    };
    // Random playouts: both winners.
    for _ in 0..600 * scale {
        let plies = 10 + rng.below(150);
        let pos = random_playout(&mut rng, plies, 0);
        if accept(pos.to_setup(EnPassantMode::Legal)).is_some() {
            push(&mut out, "random", &pos, Color::White);
            push(&mut out, "random", &pos, Color::Black);
        }
    }
    // Capture-heavy playouts: both winners.
    for _ in 0..600 * scale {
        let plies = 20 + rng.below(200);
        let pos = random_playout(&mut rng, plies, 85);
        if accept(pos.to_setup(EnPassantMode::Legal)).is_some() {
            push(&mut out, "captures", &pos, Color::White);
            push(&mut out, "captures", &pos, Color::Black);
        }
    }
    // Timeout-like: after a capture-heavy game, the side with less material flagged; ask
    // whether the other side (often with little left) can still mate.
    for _ in 0..700 * scale {
        let plies = 40 + rng.below(200);
        let pos = random_playout(&mut rng, plies, 70);
        if accept(pos.to_setup(EnPassantMode::Legal)).is_none() {
            continue;
        }
        let b = pos.board();
        let winner = if material_value(b, Color::White) <= material_value(b, Color::Black) {
            Color::White
        } else {
            Color::Black
        };
        push(&mut out, "timeout", &pos, winner);
    }
    let mut made = 0;
    while made < 700 * scale {
        let extra = 1 + rng.below(3);
        if let Some(pos) = small_endgame(&mut rng, extra) {
            push(&mut out, "endgame", &pos, random_color(&mut rng));
            made += 1;
        }
    }
    made = 0;
    while made < 250 * scale {
        if let Some(pos) = small_endgame(&mut rng, 0) {
            push(&mut out, "lone-kings", &pos, random_color(&mut rng));
            made += 1;
        } else if let Some(pos) = small_endgame(&mut rng, 1) {
            push(&mut out, "lone-kings", &pos, random_color(&mut rng));
            made += 1;
        }
    }
    made = 0;
    while made < 300 * scale {
        if let Some(pos) = same_coloured_bishops(&mut rng) {
            push(&mut out, "bishops", &pos, random_color(&mut rng));
            made += 1;
        }
    }
    made = 0;
    while made < 700 * scale {
        if let Some(pos) = locked_wall(&mut rng) {
            push(&mut out, "walls", &pos, Color::White);
            push(&mut out, "walls", &pos, Color::Black);
            made += 1;
        }
    }
    // Full-width locked walls with pieces behind them on both sides: both winners. Drawn
    // from their own generator, seeded from the corpus seed, so that the families above
    // keep exactly the queries they had before this family was added.
    let mut rng = Rng::new(seed ^ 0x0541_7a11);
    made = 0;
    while made < 700 * scale {
        if let Some(pos) = shut_wall(&mut rng) {
            push(&mut out, "shut-walls", &pos, Color::White);
            push(&mut out, "shut-walls", &pos, Color::Black);
            made += 1;
        }
    }
    // Kings shut in a corner pocket behind a full-width wall, with a knight of the other
    // side next to them (issue 23): both winners. Their own generator again, so that the
    // families above keep their queries.
    let mut rng = Rng::new(seed ^ 0x0023_b0c5);
    made = 0;
    while made < 300 * scale {
        if let Some(pos) = corner_pocket(&mut rng) {
            push(&mut out, "pockets", &pos, Color::White);
            push(&mut out, "pockets", &pos, Color::Black);
            made += 1;
        }
    }
    out
}

/// Parses a corpus FEN for flagfall.
pub fn setup(fen: &str) -> Setup {
    fen.parse::<Fen>().expect("corpus FEN").into_setup()
}
