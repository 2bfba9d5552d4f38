//! Property tests: on legal positions the physical board agrees with shakmaty exactly, and
//! no input string makes it panic.

use std::collections::BTreeSet;

use flagfall_core::board::{BoardRules, Legality, PhysicalMove, PhysicalPosition, Status};
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Move, Piece,
    Position, Role, Setup, Square,
};

fn rules() -> BoardRules {
    BoardRules::default()
}

/// shakmaty's move in physical form; castling as the king's two-square step.
fn physical(m: &Move) -> PhysicalMove {
    match *m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() {
                File::G
            } else {
                File::C
            };
            PhysicalMove::new(king, Square::from_coords(file, king.rank()))
        }
        _ => PhysicalMove {
            from: m.from().expect("standard chess move has a from-square"),
            to: m.to(),
            promotion: m.promotion(),
        },
    }
}

fn key(m: &PhysicalMove) -> String {
    m.to_string()
}

/// Every physical move of the side to move that `classify` calls legal, found by trying
/// every from/to/promotion combination. King-onto-rook castling is mapped to the king's
/// step, so both spellings count as the same move.
fn classified_legal(p: &PhysicalPosition) -> BTreeSet<String> {
    let turn = p.turn();
    let board = p.board();
    let mut out = BTreeSet::new();
    for from in board.by_color(turn) {
        let role = board.role_at(from).expect("occupied");
        for to in Bitboard::FULL {
            let last_rank = to.rank() == (!turn).backrank();
            let promos: &[Option<Role>] = if role == Role::Pawn && !last_rank {
                &[None, Some(Role::Queen)]
            } else if role == Role::Pawn {
                &[
                    None,
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                    Some(Role::King),
                    Some(Role::Pawn),
                ]
            } else {
                &[None]
            };
            for &promotion in promos {
                let mv = PhysicalMove {
                    from,
                    to,
                    promotion,
                };
                if let Ok(Legality::Legal) = p.classify(&mv, turn, &rules()) {
                    let mut norm = mv;
                    if role == Role::King && board.piece_at(to) == Some(Role::Rook.of(turn)) {
                        let file = if to.file() > from.file() {
                            File::G
                        } else {
                            File::C
                        };
                        norm.to = Square::from_coords(file, from.rank());
                    }
                    out.insert(key(&norm));
                }
            }
        }
    }
    out
}

/// Compares the fast and the generic board with shakmaty in this position.
fn check_agreement(
    fast: &PhysicalPosition,
    generic: &PhysicalPosition,
    chess: &Chess,
) -> Result<(), TestCaseError> {
    let expected: BTreeSet<String> = chess
        .legal_moves()
        .iter()
        .map(|m| key(&physical(m)))
        .collect();
    prop_assert_eq!(
        &classified_legal(fast),
        &expected,
        "fast path, fen {}",
        fast.fen()
    );
    prop_assert_eq!(
        &classified_legal(generic),
        &expected,
        "generic path, fen {}",
        fast.fen()
    );
    let listed: BTreeSet<String> = fast.legal_moves(&rules()).iter().map(key).collect();
    prop_assert_eq!(&listed, &expected, "legal_moves fast, fen {}", fast.fen());
    let listed: BTreeSet<String> = generic.legal_moves(&rules()).iter().map(key).collect();
    prop_assert_eq!(
        &listed,
        &expected,
        "legal_moves generic, fen {}",
        fast.fen()
    );

    let want_fen = Fen::from_position(chess, EnPassantMode::Always).to_string();
    prop_assert_eq!(fast.fen(), want_fen.clone());
    prop_assert_eq!(generic.fen(), want_fen);
    prop_assert_eq!(fast.repetition_key(), generic.repetition_key());
    prop_assert_eq!(fast.halfmove_clock(), chess.halfmoves());
    prop_assert_eq!(generic.halfmove_clock(), chess.halfmoves());

    let want_status = if chess.is_checkmate() {
        Status::Checkmate
    } else if chess.is_stalemate() {
        Status::Stalemate
    } else {
        Status::Ongoing
    };
    prop_assert_eq!(fast.status(), want_status.clone());
    prop_assert_eq!(generic.status(), want_status);
    for c in [Color::White, Color::Black] {
        prop_assert_eq!(fast.checkers(c), generic.checkers(c));
    }
    prop_assert_eq!(fast.checkers(chess.turn()), chess.checkers());
    Ok(())
}

/// Plays `choices` as moves picked from shakmaty's legal moves, checking agreement at every
/// ply and that SAN and records match.
fn walk(start: Chess, choices: &[u16]) -> Result<(), TestCaseError> {
    let fen = Fen::from_position(&start, EnPassantMode::Always).to_string();
    let mut chess = start;
    let mut fast = PhysicalPosition::from_fen(&fen).expect("shakmaty FEN reads");
    let mut generic = fast.generic_only();
    for &choice in choices {
        check_agreement(&fast, &generic, &chess)?;
        let moves = chess.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[usize::from(choice) % moves.len()];
        let mut pm = physical(&m);
        // Spell half of the castlings as king-onto-rook.
        if let Move::Castle { rook, .. } = m
            && choice % 2 == 1
        {
            pm.to = rook;
        }
        let san = SanPlus::from_move(chess.clone(), m).to_string();
        prop_assert_eq!(fast.san(&pm, &rules()), Some(san.clone()));
        prop_assert_eq!(generic.san(&pm, &rules()), Some(san.clone()));
        let mover = chess.turn();
        let a = fast.play(&pm, mover, &rules()).expect("legal move plays");
        let b = generic
            .play(&pm, mover, &rules())
            .expect("legal move plays");
        prop_assert_eq!(&a.legality, &Legality::Legal);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(a.san.map(|s| s.to_string()), Some(san));
        let captured = m.capture().map(|r| r.of(!mover));
        prop_assert_eq!(a.captured, captured);
        prop_assert_eq!(a.castling.is_some(), m.is_castle());
        chess.play_unchecked(m);
    }
    check_agreement(&fast, &generic, &chess)
}

/// A random legal endgame: both kings and up to six other pieces (pawns off the back
/// ranks), kept only if shakmaty accepts it as a legal position.
fn endgame() -> impl Strategy<Value = Chess> {
    let piece = (0usize..10, 0u32..64);
    (
        0u32..64,
        0u32..64,
        prop::collection::vec(piece, 0..7),
        any::<bool>(),
    )
        .prop_filter_map("not a legal position", |(wk, bk, others, black)| {
            let mut board = Board::empty();
            board.set_piece_at(Square::new(wk), Piece::from_char('K')?);
            if board.occupied().contains(Square::new(bk)) {
                return None;
            }
            board.set_piece_at(Square::new(bk), Piece::from_char('k')?);
            let letters = ['P', 'N', 'B', 'R', 'Q', 'p', 'n', 'b', 'r', 'q'];
            for (i, sq) in others {
                let sq = Square::new(sq);
                if !board.occupied().contains(sq) {
                    board.set_piece_at(sq, Piece::from_char(letters[i])?);
                }
            }
            let setup = Setup {
                board,
                turn: if black { Color::Black } else { Color::White },
                ..Setup::empty()
            };
            Chess::from_setup(setup, CastlingMode::Standard).ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn agrees_with_shakmaty_from_the_start(choices in prop::collection::vec(any::<u16>(), 0..70)) {
        walk(Chess::new(), &choices)?;
    }

    #[test]
    fn agrees_with_shakmaty_on_endgames(start in endgame(), choices in prop::collection::vec(any::<u16>(), 0..12)) {
        walk(start, &choices)?;
    }

    #[test]
    fn agrees_with_shakmaty_in_castling_positions(
        choices in prop::collection::vec(any::<u16>(), 0..30),
        which in 0usize..4,
    ) {
        let fens = [
            "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1pp1ppp/1n3b2/1B2p3/3PP1b1/2N2N2/PPP2PPP/R3K2R w KQkq - 4 9",
            "r3k2r/8/8/8/4q3/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/2b5/8/8/8/R3K2R b KQkq - 0 1",
        ];
        let chess: Chess = Fen::from_ascii(fens[which].as_bytes())
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        walk(chess, &choices)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn no_panic_on_any_fen_or_move_string(fen in ".{0,90}", text in ".{0,8}") {
        let _ = PhysicalPosition::from_fen(&fen);
        let _ = text.parse::<PhysicalMove>();
    }

    #[test]
    fn no_panic_on_fen_shaped_strings(
        ranks in prop::collection::vec("[1-9pnbrqkPNBRQKx]{0,9}", 0..10),
        side in "[wbx-]{0,2}",
        castling in "[KQkqA-Ha-hx-]{0,5}",
        ep in "[a-h1-8-]{0,3}",
        clocks in "[0-9-]{0,4} [0-9]{0,4}",
    ) {
        let fen = format!("{} {} {} {} {}", ranks.join("/"), side, castling, ep, clocks);
        if let Ok(p) = PhysicalPosition::from_fen(&fen) {
            let again = PhysicalPosition::from_fen(&p.fen());
            prop_assert_eq!(again.as_ref().map(PhysicalPosition::fen).ok(), Some(p.fen()));
        }
    }

    #[test]
    fn absurd_positions_round_trip_and_play_without_panic(
        placement in prop::collection::vec(0usize..20, 64),
        black in any::<bool>(),
        moves in prop::collection::vec((0u32..64, 0u32..64, 0usize..8), 1..25),
    ) {
        let letters = ['P', 'N', 'B', 'R', 'Q', 'K', 'p', 'n', 'b', 'r', 'q', 'k'];
        let mut board = Board::empty();
        for (i, &c) in placement.iter().enumerate() {
            if let Some(&l) = letters.get(c)
                && let Some(piece) = Piece::from_char(l)
            {
                board.set_piece_at(Square::new(i as u32), piece);
            }
        }
        let setup = Setup { board, turn: if black { Color::Black } else { Color::White }, ..Setup::empty() };
        let fen = Fen::try_from_setup(setup).map(|f| f.to_string()).unwrap_or_else(|e| e.ignore().to_string());
        let mut p = PhysicalPosition::from_fen(&fen).expect("any placement reads");
        prop_assert_eq!(PhysicalPosition::from_fen(&p.fen()).expect("round trip"), p.clone());
        let promos = [None, Some(Role::Queen), Some(Role::Knight), Some(Role::King), Some(Role::Pawn), None, None, None];
        for (from, to, pr) in moves {
            let mv = PhysicalMove { from: Square::new(from), to: Square::new(to), promotion: promos[pr] };
            let mover = p.turn();
            let _ = p.classify(&mv, mover, &rules());
            let _ = p.san(&mv, &rules());
            let _ = p.play(&mv, mover, &rules());
            let _ = p.play(&mv, !mover, &rules());
            let _ = p.status();
            let _ = p.legal_moves(&rules());
            let _ = p.repetition_key();
            prop_assert_eq!(PhysicalPosition::from_fen(&p.fen()).expect("round trip").fen(), p.fen());
        }
    }
}

/// The square mirrored across the line between the d- and e-files.
fn flip(sq: Square) -> Square {
    sq.flip_horizontal()
}

fn flip_move(m: &PhysicalMove) -> PhysicalMove {
    PhysicalMove {
        from: flip(m.from),
        to: flip(m.to),
        promotion: m.promotion,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Mirror castling (uscf-2020 3a, docs/rules.md §6.2 interpretation) is ordinary castling
    /// reflected across the board's middle: with king and queen swapped, every legal move
    /// under `Mirror` is the reflection of a legal move in the normal start position, along
    /// a whole random game.
    #[test]
    fn swapped_king_and_queen_play_like_the_mirror_image(
        choices in prop::collection::vec(any::<u16>(), 0..60),
        open in any::<bool>(),
    ) {
        let mirror_rules = BoardRules { setup_castling: flagfall_core::board::CastlingSetupRule::Mirror };
        // Either the full swapped start, or one with the back rank cleared so that the
        // castlings come up often.
        let (swapped_fen, normal_fen) = if open {
            ("r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w KQkq - 0 1", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
        } else {
            ("rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        };
        let mut swapped = PhysicalPosition::from_fen(swapped_fen).expect("swapped start");
        let mut normal = PhysicalPosition::from_fen(normal_fen).expect("normal start");
        for &choice in &choices {
            let mut a: Vec<String> = swapped.legal_moves(&mirror_rules).iter().map(|m| key(&flip_move(m))).collect();
            let mut b: Vec<String> = normal.legal_moves(&rules()).iter().map(key).collect();
            a.sort();
            b.sort();
            prop_assert_eq!(&a, &b, "swapped {} / normal {}", swapped.fen(), normal.fen());
            let moves = normal.legal_moves(&rules());
            if moves.is_empty() {
                break;
            }
            let m = moves[usize::from(choice) % moves.len()];
            let mover = normal.turn();
            let rn = normal.play(&m, mover, &rules()).expect("legal");
            let rs = swapped.play(&flip_move(&m), mover, &mirror_rules).expect("legal");
            prop_assert!(rs.legality.is_legal(), "{:?}", rs.legality);
            prop_assert_eq!(rn.castling.is_some(), rs.castling.is_some());
            prop_assert_eq!(rn.san.map(|s| s.to_string().contains("O-O")), rs.san.map(|s| s.to_string().contains("O-O")));
            let mut flipped = swapped.board().clone();
            flipped.flip_horizontal();
            prop_assert_eq!(&flipped, normal.board());
            prop_assert_eq!(swapped.status(), normal.status());
        }
    }
}
