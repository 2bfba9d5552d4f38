//! Unit tests of the physical board: move strings, FEN, every illegal-move reason, castling
//! after wrong set-ups, repetition keys, the 50-move count and status.

use flagfall_core::board::{
    BoardError, BoardRules, CastlingKind, CastlingSetupRule, IllegalPositionReason,
    IllegalReason as R, Legality, MoveError, MoveParseError, MoveRecord, PhysicalMove,
    PhysicalPosition, Status,
};
use shakmaty::{Bitboard, Color, Piece, Role, Square};

const W: Color = Color::White;
const B: Color = Color::Black;

fn mv(s: &str) -> PhysicalMove {
    s.parse().expect("test move parses")
}

fn pos(fen: &str) -> PhysicalPosition {
    PhysicalPosition::from_fen(fen).expect("test FEN parses")
}

fn fide() -> BoardRules {
    BoardRules::default()
}

fn with(rule: CastlingSetupRule) -> BoardRules {
    BoardRules {
        setup_castling: rule,
    }
}

fn reasons_under(p: &PhysicalPosition, m: &str, mover: Color, rules: &BoardRules) -> Vec<R> {
    let fast = p
        .classify(&mv(m), mover, rules)
        .expect("physically possible");
    let generic = p
        .generic_only()
        .classify(&mv(m), mover, rules)
        .expect("physically possible");
    assert_eq!(fast, generic, "fast and generic paths disagree on {m}");
    fast.reasons().to_vec()
}

fn reasons(p: &PhysicalPosition, m: &str, mover: Color) -> Vec<R> {
    reasons_under(p, m, mover, &fide())
}

fn piece(c: char) -> Option<Piece> {
    Piece::from_char(c)
}

fn at(p: &PhysicalPosition, sq: Square) -> Option<Piece> {
    p.board().piece_at(sq)
}

// ---------- move strings ----------

#[test]
fn move_strings_parse_and_print() {
    for text in [
        "e2e4", "e7e8q", "e7e8", "e1g1", "e1h1", "a2a1n", "h7h8k", "b7b8p",
    ] {
        assert_eq!(mv(text).to_string(), text);
    }
    assert_eq!(mv("e7e8Q").promotion, Some(Role::Queen));
    assert_eq!(
        mv("e7e8q"),
        PhysicalMove::promoting(Square::E7, Square::E8, Role::Queen)
    );
    assert_eq!(mv("e2e4"), PhysicalMove::new(Square::E2, Square::E4));
}

#[test]
fn bad_move_strings_name_the_problem() {
    assert!(matches!(
        "e2e".parse::<PhysicalMove>(),
        Err(MoveParseError::Length { .. })
    ));
    assert!(matches!(
        "e2e4qq".parse::<PhysicalMove>(),
        Err(MoveParseError::Length { .. })
    ));
    assert!(matches!(
        "é2e4".parse::<PhysicalMove>(),
        Err(MoveParseError::Length { .. })
    ));
    let e = "e9e4".parse::<PhysicalMove>().unwrap_err();
    assert!(matches!(&e, MoveParseError::From { found, .. } if found == "e9"));
    assert!(e.to_string().contains("from-square"), "{e}");
    let e = "e2z4".parse::<PhysicalMove>().unwrap_err();
    assert!(matches!(&e, MoveParseError::To { found, .. } if found == "z4"));
    let e = "e7e8x".parse::<PhysicalMove>().unwrap_err();
    assert!(matches!(e, MoveParseError::Promotion { found: 'x', .. }));
}

#[test]
fn physical_move_serde_is_the_uci_string() {
    let json = serde_json::to_string(&mv("e7e8q")).unwrap();
    assert_eq!(json, "\"e7e8q\"");
    let back: PhysicalMove = serde_json::from_str(&json).unwrap();
    assert_eq!(back, mv("e7e8q"));
    assert!(serde_json::from_str::<PhysicalMove>("\"e9e8\"").is_err());
}

// ---------- FEN ----------

#[test]
fn fen_round_trips_including_absurd_placements() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "KKK5/pppppppp/8/8/8/8/PPPPPPPP/kkk5 b - - 12 40",
        "PPPPPPPP/8/8/8/8/8/8/pppppppp w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2Q b - - 3 9",
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1",
        "1r2k1r1/8/8/8/8/8/8/R3K1RR w GQkq - 0 1",
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
    ] {
        let p = pos(fen);
        assert_eq!(p.fen(), fen);
        assert_eq!(pos(&p.fen()), p);
        assert_eq!(p.to_string(), fen);
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<PhysicalPosition>(&json).unwrap(), p);
    }
}

#[test]
fn fen_accepts_shredder_castling_and_short_forms() {
    assert_eq!(
        pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),
        PhysicalPosition::new()
    );
    // G is not the outermost h-side rook, so it stays a file letter.
    assert_eq!(
        pos("1r2k1r1/8/8/8/8/8/8/R3K1RR w GAgb - 0 1").fen(),
        "1r2k1r1/8/8/8/8/8/8/R3K1RR w GQkq - 0 1"
    );
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/4K3").fen(),
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    );
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/4K3 w - - 0 0").fullmoves(),
        1,
        "fullmove 0 is read as 1"
    );
}

#[test]
fn fen_errors_name_the_field() {
    type Case = (&'static str, fn(&BoardError) -> bool, &'static str);
    let cases: [Case; 11] = [
        ("", |e| matches!(e, BoardError::Empty), "empty"),
        (
            "8/8/8/8/8/8/8 w - - 0 1",
            |e| matches!(e, BoardError::RankCount(7)),
            "8 ranks",
        ),
        (
            "8/9/8/8/8/8/8/8 w - - 0 1",
            |e| matches!(e, BoardError::Placement { rank: 7, .. }),
            "rank 7",
        ),
        (
            "8/8/8/8/8/8/8/ppppppppp w - - 0 1",
            |e| matches!(e, BoardError::Placement { rank: 1, .. }),
            "rank 1",
        ),
        (
            "8/8/8/8/8/8/8/7x w - - 0 1",
            |e| matches!(e, BoardError::Placement { rank: 1, .. }),
            "'x'",
        ),
        (
            "8/8/8/8/8/8/8/8 white - - 0 1",
            |e| matches!(e, BoardError::Turn(_)),
            "side-to-move",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            |e| matches!(e, BoardError::Castling(_)),
            "castling field",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
            |e| matches!(e, BoardError::EnPassant(_)),
            "en passant field",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - -1 1",
            |e| matches!(e, BoardError::Halfmoves(_)),
            "halfmove clock",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 x",
            |e| matches!(e, BoardError::Fullmoves(_)),
            "fullmove number",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
            |e| matches!(e, BoardError::TooManyFields(7)),
            "fields",
        ),
    ];
    for (fen, is_expected, text) in cases {
        let e = PhysicalPosition::from_fen(fen).expect_err(fen);
        assert!(is_expected(&e), "{fen}: got {e:?}");
        assert!(
            e.to_string().contains(text),
            "{fen}: message {e} lacks {text}"
        );
    }
    // En passant square without the pawn that made the double step.
    let e = PhysicalPosition::from_fen("4k3/8/8/8/8/8/8/4K3 w - e6 0 1").unwrap_err();
    assert!(matches!(e, BoardError::EnPassant(_)));
}

// ---------- each illegal reason ----------

#[test]
fn wrong_turn_and_alternation() {
    let mut p = PhysicalPosition::new();
    assert_eq!(reasons(&p, "e7e5", B), vec![R::WrongTurn]);
    let rec = p.play(&mv("e7e5"), B, &fide()).unwrap();
    assert_eq!(rec.legality, Legality::Illegal(vec![R::WrongTurn]));
    assert_eq!(rec.san, None);
    // Alternation continues from the mover: now it is White's turn again.
    assert_eq!(p.turn(), W);
    assert_eq!(p.fullmoves(), 2, "a move by Black ends the full move");
    assert_eq!(reasons(&p, "e2e4", W), vec![]);
}

#[test]
fn wrong_movement_and_blocked_paths() {
    let p = pos("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1");
    assert_eq!(reasons(&p, "c1e2", W), vec![R::WrongMovement]);
    assert_eq!(reasons(&p, "c1f4", W), vec![]);
    let p = PhysicalPosition::new();
    assert_eq!(reasons(&p, "f1a6", W), vec![R::PathBlocked]);
    assert_eq!(reasons(&p, "a1a5", W), vec![R::PathBlocked]);
    assert_eq!(reasons(&p, "d1d5", W), vec![R::PathBlocked]);
    assert_eq!(reasons(&p, "e2e5", W), vec![R::WrongMovement]);
    assert_eq!(reasons(&p, "e2d3", W), vec![R::WrongMovement]);
    assert_eq!(reasons(&p, "g1g3", W), vec![R::WrongMovement]);
    assert_eq!(reasons(&p, "e1e3", W), vec![R::WrongMovement]);
    // Double step through a piece; pawn moving straight onto a piece.
    let p = pos("4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1");
    assert_eq!(reasons(&p, "e2e4", W), vec![R::PathBlocked]);
    assert_eq!(reasons(&p, "e2e3", W), vec![R::WrongMovement]);
    // Backwards pawn.
    let p = pos("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1");
    assert_eq!(reasons(&p, "e5e4", W), vec![R::WrongMovement]);
}

#[test]
fn promotion_reasons() {
    let p = pos("4k3/P7/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(reasons(&p, "a7a8q", W), vec![]);
    assert_eq!(reasons(&p, "a7a8", W), vec![R::PawnNotPromoted]);
    assert_eq!(reasons(&p, "a7a8k", W), vec![R::PromotionToKingOrPawn]);
    assert_eq!(reasons(&p, "a7a8p", W), vec![R::PromotionToKingOrPawn]);
    assert_eq!(reasons(&p, "e2e3q", W), vec![R::PromotionNotOnLastRank]);

    let mut q = p.clone();
    let rec = q.play(&mv("a7a8"), W, &fide()).unwrap();
    assert_eq!(rec.legality, Legality::Illegal(vec![R::PawnNotPromoted]));
    assert_eq!(at(&q, Square::A8), piece('P'), "the pawn stays a pawn");
    assert_eq!(
        q.illegal_position_reasons(),
        vec![IllegalPositionReason::PawnOnBackRank(Square::A8)]
    );

    let mut q = p.clone();
    q.play(&mv("a7a8k"), W, &fide()).unwrap();
    assert_eq!(at(&q, Square::A8), piece('K'));
    assert!(
        q.illegal_position_reasons()
            .contains(&IllegalPositionReason::TooManyKings(W))
    );

    let mut q = p;
    q.play(&mv("e2e3q"), W, &fide()).unwrap();
    assert_eq!(at(&q, Square::E3), piece('Q'));
}

#[test]
fn king_safety_reasons() {
    // Left in check: black rook e8 checks; a knight move does nothing about it.
    let p = pos("4r2k/8/8/8/8/8/8/4K2N w - - 0 1");
    assert_eq!(reasons(&p, "h1g3", W), vec![R::OwnKingLeftInCheck]);
    assert_eq!(reasons(&p, "e1d1", W), vec![]);
    assert_eq!(reasons(&p, "e1e2", W), vec![R::OwnKingPutInCheck]);
    // Pinned knight: moving it exposes the king.
    let p = pos("4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1");
    assert_eq!(reasons(&p, "e2c3", W), vec![R::OwnKingPutInCheck]);
    // King walks into a rook's line.
    let p = pos("k7/8/8/8/8/8/3r4/4K3 w - - 0 1");
    assert_eq!(reasons(&p, "e1e2", W), vec![R::OwnKingPutInCheck]);
    assert_eq!(reasons(&p, "e1d2", W), vec![]);
    // Several reasons at once, most important first.
    let p = pos("k7/8/8/8/8/8/3r4/4K3 b - - 0 1");
    assert_eq!(
        reasons(&p, "e1d3", W),
        vec![R::WrongTurn, R::WrongMovement, R::OwnKingPutInCheck]
    );
}

#[test]
fn kings_adjacent() {
    let p = pos("8/8/8/3k4/8/4K3/8/8 w - - 0 1");
    assert_eq!(
        reasons(&p, "e3e4", W),
        vec![R::KingAdjacentToKing, R::OwnKingPutInCheck]
    );
    let mut q = p.clone();
    q.play(&mv("e3e4"), W, &fide()).unwrap();
    let bad = q.illegal_position_reasons();
    assert!(bad.contains(&IllegalPositionReason::KingsAdjacent));
    assert!(bad.contains(&IllegalPositionReason::BothKingsInCheck));
    // The side to move may now take the king; its own king safety still counts.
    assert_eq!(reasons(&q, "d5e4", B), vec![R::CapturesKing]);
}

#[test]
fn capturing_a_king_left_in_check() {
    // Black left the king in check (rook e1 gives check), White to move.
    let p = pos("4k3/8/8/8/8/8/8/4RK2 w - - 0 1");
    assert_eq!(
        p.illegal_position_reasons(),
        vec![IllegalPositionReason::SideNotToMoveInCheck]
    );
    assert!(matches!(p.status(), Status::IllegalPosition(_)));
    assert_eq!(p.checkers(B), Bitboard::from_square(Square::E1));
    assert_eq!(reasons(&p, "e1e8", W), vec![R::CapturesKing]);
    let mut q = p.clone();
    let rec = q.play(&mv("e1e8"), W, &fide()).unwrap();
    assert_eq!(rec.captured, piece('k'));
    assert_eq!(
        q.illegal_position_reasons(),
        vec![IllegalPositionReason::MissingKing(B)]
    );
    // Other moves from the illegal position are judged by the laws too.
    assert_eq!(reasons(&p, "e1e4", W), vec![]);
    assert_eq!(reasons(&p, "f1f2", W), vec![]);
    // A king capture that also breaks the movement rules.
    assert_eq!(
        reasons(&p, "f1e8", W),
        vec![R::WrongMovement, R::CapturesKing]
    );
}

#[test]
fn en_passant() {
    // Right after the double step: legal, and the pawn behind is taken.
    let mut p = pos("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1");
    p.play(&mv("d7d5"), B, &fide()).unwrap();
    assert_eq!(reasons(&p, "e5d6", W), vec![]);
    let mut q = p.clone();
    let rec = q.play(&mv("e5d6"), W, &fide()).unwrap();
    assert_eq!(rec.captured, piece('p'));
    assert_eq!(rec.san.map(|s| s.to_string()).as_deref(), Some("exd6"));
    assert_eq!(at(&q, Square::D5), None);
    // One move later the right is gone: the capture is illegal but still takes the pawn.
    p.play(&mv("e1d1"), W, &fide()).unwrap();
    p.play(&mv("e8d8"), B, &fide()).unwrap();
    assert_eq!(reasons(&p, "e5d6", W), vec![R::EnPassantInvalid]);
    let rec = p.play(&mv("e5d6"), W, &fide()).unwrap();
    assert_eq!(rec.captured, piece('p'));
    assert_eq!(at(&p, Square::D5), None);
    // Diagonal pawn step onto an empty square with no pawn behind: wrong movement.
    let p = pos("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1");
    assert_eq!(reasons(&p, "e5d6", W), vec![R::WrongMovement]);
}

#[test]
fn castling_reasons() {
    let base = "r3k2r/8/8/8/8/8/8/R3K2R";
    let p = pos(&format!("{base} w KQkq - 0 1"));
    assert_eq!(reasons(&p, "e1g1", W), vec![]);
    assert_eq!(reasons(&p, "e1h1", W), vec![]);
    assert_eq!(reasons(&p, "e1c1", W), vec![]);
    assert_eq!(reasons(&p, "e1a1", W), vec![]);

    let p = pos(&format!("{base} w kq - 0 1"));
    assert_eq!(reasons(&p, "e1g1", W), vec![R::CastlingNotAllowed]);
    let mut q = p.clone();
    let rec = q.play(&mv("e1g1"), W, &fide()).unwrap();
    assert_eq!(rec.castling, Some(CastlingKind::KingSide));
    assert_eq!(at(&q, Square::G1), piece('K'));
    assert_eq!(at(&q, Square::F1), piece('R'), "the rook moves physically");

    let p = pos("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1");
    assert_eq!(reasons(&p, "e1c1", W), vec![R::CastlingBlocked]);
    let mut q = p.clone();
    q.play(&mv("e1c1"), W, &fide()).unwrap();
    assert_eq!(at(&q, Square::C1), piece('K'));
    assert_eq!(at(&q, Square::D1), piece('R'));
    assert_eq!(at(&q, Square::B1), piece('N'));

    let p = pos("r3k2r/8/8/8/8/8/4r3/R3K2R w KQ - 0 1");
    assert_eq!(reasons(&p, "e1g1", W), vec![R::CastlingOutOfCheck]);
    let p = pos("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(reasons(&p, "e1g1", W), vec![R::CastlingThroughCheck]);
    assert_eq!(reasons(&p, "e1c1", W), vec![]);
    let p = pos("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(reasons(&p, "e1g1", W), vec![R::CastlingIntoCheck]);
    // b1 attacked does not matter for long castling (the king does not cross it).
    let p = pos("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(reasons(&p, "e1c1", W), vec![]);

    // After the king has moved, castling rights are gone even if it returns.
    let mut p = pos(&format!("{base} w KQkq - 0 1"));
    p.play(&mv("e1f1"), W, &fide()).unwrap();
    p.play(&mv("e8f8"), B, &fide()).unwrap();
    p.play(&mv("f1e1"), W, &fide()).unwrap();
    p.play(&mv("f8e8"), B, &fide()).unwrap();
    assert_eq!(reasons(&p, "e1g1", W), vec![R::CastlingNotAllowed]);
    // After a rook move only that side is lost.
    let mut p = pos(&format!("{base} w KQkq - 0 1"));
    p.play(&mv("h1h2"), W, &fide()).unwrap();
    p.play(&mv("h8h7"), B, &fide()).unwrap();
    p.play(&mv("h2h1"), W, &fide()).unwrap();
    p.play(&mv("h7h8"), B, &fide()).unwrap();
    assert_eq!(reasons(&p, "e1g1", W), vec![R::CastlingNotAllowed]);
    assert_eq!(reasons(&p, "e1c1", W), vec![]);
    assert!(p.fen().contains(" Qq "), "{}", p.fen());
}

#[test]
fn physically_impossible_moves_are_errors() {
    let mut p = PhysicalPosition::new();
    let before = p.clone();
    assert!(matches!(
        p.play(&mv("e4e5"), W, &fide()),
        Err(MoveError::NoPiece { .. })
    ));
    assert!(matches!(
        p.play(&mv("e7e5"), W, &fide()),
        Err(MoveError::NotYourPiece { .. })
    ));
    assert!(matches!(
        p.play(&mv("d1d2"), W, &fide()),
        Err(MoveError::OwnPieceOnTarget { .. })
    ));
    assert!(matches!(
        p.play(&mv("e2e2"), W, &fide()),
        Err(MoveError::SameSquare { .. })
    ));
    assert!(matches!(
        p.play(&mv("g1f3q"), W, &fide()),
        Err(MoveError::PromotionByNonPawn { .. })
    ));
    // King onto its rook while the squares it must go to are occupied.
    assert!(matches!(
        p.play(&mv("e1h1"), W, &fide()),
        Err(MoveError::CastlingSquareOccupied { .. })
    ));
    assert_eq!(p, before, "errors leave the board unchanged");
    let e = p.classify(&mv("e7e5"), W, &fide()).unwrap_err();
    assert!(e.to_string().contains("e7"), "{e}");
}

// ---------- castling after a wrong set-up (docs/rules.md §6) ----------

const SWAPPED: &str = "r2k3r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w KQkq - 0 1";

#[test]
fn mirror_castling_white_and_black_under_mirror_rule() {
    let rules = with(CastlingSetupRule::Mirror);
    let p = pos(SWAPPED);
    assert_eq!(reasons_under(&p, "d1b1", W, &rules), vec![]);
    assert_eq!(reasons_under(&p, "d1a1", W, &rules), vec![]);
    assert_eq!(reasons_under(&p, "d1f1", W, &rules), vec![]);
    assert_eq!(reasons_under(&p, "d1h1", W, &rules), vec![]);
    let legal = p.legal_moves(&rules);
    assert!(legal.contains(&mv("d1b1")) && legal.contains(&mv("d1f1")));
    assert_eq!(p.san(&mv("d1b1"), &rules).as_deref(), Some("O-O"));
    assert_eq!(p.san(&mv("d1f1"), &rules).as_deref(), Some("O-O-O"));

    let mut short = p.clone();
    let rec = short.play(&mv("d1b1"), W, &rules).unwrap();
    assert_eq!(rec.legality, Legality::Legal);
    assert_eq!(rec.castling, Some(CastlingKind::MirrorQueenSide));
    assert_eq!(rec.san.map(|s| s.to_string()).as_deref(), Some("O-O"));
    assert_eq!(at(&short, Square::B1), piece('K'));
    assert_eq!(at(&short, Square::C1), piece('R'));
    assert_eq!(at(&short, Square::A1), None);
    // Black's mirror castlings, d8.
    assert_eq!(reasons_under(&short, "d8b8", B, &rules), vec![]);
    assert_eq!(reasons_under(&short, "d8f8", B, &rules), vec![]);
    let mut black = short.clone();
    let rec = black.play(&mv("d8h8"), B, &rules).unwrap();
    assert_eq!(rec.castling, Some(CastlingKind::MirrorKingSide));
    assert_eq!(at(&black, Square::F8), piece('k'));
    assert_eq!(at(&black, Square::E8), piece('r'));
    assert_eq!(black.fen().split(' ').nth(2), Some("-"));

    let mut long = p;
    let rec = long.play(&mv("d1f1"), W, &rules).unwrap();
    assert_eq!(rec.castling, Some(CastlingKind::MirrorKingSide));
    assert_eq!(at(&long, Square::F1), piece('K'));
    assert_eq!(at(&long, Square::E1), piece('R'));
    // Ordinary conditions still apply to mirror castling.
    let p = pos("r2k3r/8/8/8/8/8/8/R2K2NR w KQ - 0 1");
    assert_eq!(
        reasons_under(&p, "d1f1", W, &rules),
        vec![R::CastlingBlocked]
    );
    // With a piece on b1 the king cannot land there: that is no castling at all.
    let p = pos("r2k3r/8/8/8/8/8/8/RN1K3R w KQ - 0 1");
    assert!(matches!(
        p.classify(&mv("d1b1"), W, &rules),
        Err(MoveError::OwnPieceOnTarget { .. })
    ));
    let p = pos("r2k1r2/8/8/8/8/8/8/R2K3R w KQ - 0 1");
    assert_eq!(
        reasons_under(&p, "d1f1", W, &rules),
        vec![R::CastlingIntoCheck]
    );
    let p = pos("r2kr3/8/8/8/8/8/8/R2K3R w KQ - 0 1");
    assert_eq!(
        reasons_under(&p, "d1f1", W, &rules),
        vec![R::CastlingThroughCheck]
    );
}

#[test]
fn mirror_castling_is_not_allowed_under_none_and_fide() {
    for rule in [CastlingSetupRule::None, CastlingSetupRule::Fide] {
        let rules = with(rule);
        let p = pos(SWAPPED);
        for (m, mover) in [("d1b1", W), ("d1f1", W), ("d1a1", W)] {
            assert_eq!(
                reasons_under(&p, m, mover, &rules),
                vec![R::CastlingNotAllowed],
                "{rule:?} {m}"
            );
        }
        let mut q = p.clone();
        q.play(&mv("a2a3"), W, &rules).unwrap();
        for m in ["d8b8", "d8f8", "d8h8"] {
            assert_eq!(
                reasons_under(&q, m, B, &rules),
                vec![R::CastlingNotAllowed],
                "{rule:?} {m}"
            );
        }
        assert!(!p.legal_moves(&rules).contains(&mv("d1b1")));
        // The attempt is still carried out on the board.
        let rec = q.play(&mv("d8b8"), B, &rules).unwrap();
        assert_eq!(rec.castling, Some(CastlingKind::MirrorQueenSide));
        assert_eq!(at(&q, Square::B8), piece('k'));
        assert_eq!(at(&q, Square::C8), piece('r'));
    }
}

#[test]
fn misplaced_rook_under_each_rule() {
    // Queen-side rook set up on b1/b8 (the castling field gives it the right).
    let p = pos("1r2k2r/8/8/8/8/8/8/1R2K2R w KQkq - 0 1");
    // fide-b3 A.5.1.2: not with the misplaced rook, but with the other one.
    let fide = with(CastlingSetupRule::Fide);
    assert_eq!(reasons_under(&p, "e1g1", W, &fide), vec![]);
    assert_eq!(
        reasons_under(&p, "e1b1", W, &fide),
        vec![R::CastlingNotAllowed]
    );
    // uscf-classic 3: no castling at all.
    let none = with(CastlingSetupRule::None);
    assert_eq!(
        reasons_under(&p, "e1g1", W, &none),
        vec![R::CastlingNotAllowed]
    );
    assert_eq!(
        reasons_under(&p, "e1b1", W, &none),
        vec![R::CastlingNotAllowed]
    );
    // Mirror rule covers only the K/Q swap: the misplaced rook cannot castle.
    let mirror = with(CastlingSetupRule::Mirror);
    assert_eq!(reasons_under(&p, "e1g1", W, &mirror), vec![]);
    assert_eq!(
        reasons_under(&p, "e1b1", W, &mirror),
        vec![R::CastlingNotAllowed]
    );
    // Same for Black.
    let mut q = p.clone();
    q.play(&mv("a1a2"), W, &fide).unwrap_err();
    q.play(&mv("b1b2"), W, &fide).unwrap();
    assert_eq!(reasons_under(&q, "e8g8", B, &fide), vec![]);
    assert_eq!(
        reasons_under(&q, "e8g8", B, &none),
        vec![R::CastlingNotAllowed]
    );
}

// ---------- repetition, 50 moves, status ----------

#[test]
fn repetition_key_counts_en_passant_only_when_capturable() {
    let mut p = PhysicalPosition::new();
    p.play(&mv("e2e4"), W, &fide()).unwrap();
    // No black pawn can take on e3: same key as without the ep square.
    let plain = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(p.repetition_key(), plain.repetition_key());
    assert!(p.fen().contains(" e3 "));

    let mut p = pos("rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    p.play(&mv("e2e4"), W, &fide()).unwrap();
    let plain = pos("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_ne!(p.repetition_key(), plain.repetition_key());
    // Same when the capture would expose the king (not legal): no ep in the key.
    let mut p = pos("8/8/8/8/R2p3k/8/4P3/4K3 w - - 0 1");
    p.play(&mv("e2e4"), W, &fide()).unwrap();
    let plain = pos("8/8/8/8/R2pP2k/8/8/4K3 b - - 0 1");
    assert_eq!(p.repetition_key(), plain.repetition_key());
    assert_eq!(p.generic_only().repetition_key(), plain.repetition_key());

    // Knights out and back: the start position again.
    let mut p = PhysicalPosition::new();
    for (m, c) in [("g1f3", W), ("g8f6", B), ("f3g1", W), ("f6g8", B)] {
        p.play(&mv(m), c, &fide()).unwrap();
    }
    assert_eq!(p.repetition_key(), PhysicalPosition::new().repetition_key());
    // Castling rights are part of the key.
    let mut q = PhysicalPosition::new();
    for (m, c) in [
        ("g1f3", W),
        ("g8f6", B),
        ("h1g1", W),
        ("f6g8", B),
        ("g1h1", W),
    ] {
        q.play(&mv(m), c, &fide()).unwrap();
    }
    for (m, c) in [("g8f6", B), ("f3g1", W), ("f6g8", B)] {
        q.play(&mv(m), c, &fide()).unwrap();
    }
    assert_eq!(q.board(), PhysicalPosition::new().board());
    assert_ne!(q.repetition_key(), PhysicalPosition::new().repetition_key());
}

#[test]
fn fifty_move_count_runs_across_illegal_moves() {
    let mut p = pos("4k3/8/8/8/8/8/P7/R3K3 w - - 7 30");
    assert_eq!(p.halfmove_clock(), 7);
    p.play(&mv("a1d4"), W, &fide()).unwrap(); // illegal: rook moved diagonally
    assert_eq!(p.halfmove_clock(), 8);
    p.play(&mv("e8d8"), B, &fide()).unwrap();
    p.play(&mv("d4d5"), W, &fide()).unwrap();
    p.play(&mv("d8c8"), W, &fide()).unwrap_err(); // not White's piece
    p.play(&mv("d8c7"), B, &fide()).unwrap();
    assert_eq!(p.halfmove_clock(), 11);
    p.play(&mv("a2b3"), W, &fide()).unwrap(); // illegal pawn move still resets
    assert_eq!(p.halfmove_clock(), 0);
    p.play(&mv("c7c6"), B, &fide()).unwrap();
    p.play(&mv("d5d6"), B, &fide()).unwrap_err();
    p.play(&mv("d5c5"), W, &fide()).unwrap();
    assert_eq!(p.halfmove_clock(), 2);
    p.play(&mv("c6c5"), B, &fide()).unwrap(); // capture resets
    assert_eq!(p.halfmove_clock(), 0);
    assert_eq!(p.fullmoves(), 34);
}

#[test]
fn status_mate_stalemate_and_illegal() {
    let mut p = PhysicalPosition::new();
    for (m, c) in [("f2f3", W), ("e7e5", B), ("g2g4", W), ("d8h4", B)] {
        p.play(&mv(m), c, &fide()).unwrap();
    }
    assert_eq!(p.status(), Status::Checkmate);
    assert_eq!(p.generic_only().status(), Status::Checkmate);
    assert!(p.legal_moves(&fide()).is_empty());
    let stale = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(stale.status(), Status::Stalemate);
    assert_eq!(stale.generic_only().status(), Status::Stalemate);
    let both = pos("4k3/8/8/8/8/8/4R3/r3K3 w - - 0 1");
    assert_eq!(
        both.status(),
        Status::IllegalPosition(vec![IllegalPositionReason::BothKingsInCheck])
    );
    let none = pos("8/8/8/8/8/8/8/8 w - - 0 1");
    assert_eq!(
        none.illegal_position_reasons(),
        vec![
            IllegalPositionReason::MissingKing(W),
            IllegalPositionReason::MissingKing(B)
        ]
    );
    assert!(none.to_chess().is_none());
    assert!(PhysicalPosition::new().to_chess().is_some());
}

#[test]
fn san_for_legal_moves_only() {
    let p = pos("4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(p.san(&mv("b7b8q"), &fide()).as_deref(), Some("b8=Q+"));
    assert_eq!(p.san(&mv("a1a8"), &fide()).as_deref(), Some("Ra8+"));
    assert_eq!(p.san(&mv("e1g1"), &fide()).as_deref(), Some("O-O"));
    assert_eq!(p.san(&mv("a1b2"), &fide()), None);
    // Disambiguation and mate on the generic path (illegal position: pawn on a8).
    let p = pos("P3k3/8/4K3/8/8/8/8/R6R w - - 0 1");
    assert_eq!(p.san(&mv("a1d1"), &fide()).as_deref(), Some("Rad1"));
    assert_eq!(p.san(&mv("h1h8"), &fide()).as_deref(), Some("Rh8#"));
}

#[test]
fn move_record_serialises() {
    let mut p = pos("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1");
    let rec = p.play(&mv("e1e2"), W, &fide()).unwrap();
    assert_eq!(rec.captured, piece('q'));
    let json = serde_json::to_value(&rec).unwrap();
    assert_eq!(json["mv"], "e1e2");
    assert_eq!(json["mover"], "white");
    assert_eq!(json["captured"], "q");
    assert_eq!(json["legality"], "legal");
    assert_eq!(json["san"], "Kxe2");
    let back: MoveRecord = serde_json::from_value(json).unwrap();
    assert_eq!(back, rec);
    let rec = p.play(&mv("e8e7"), W, &fide()).unwrap_err();
    assert!(matches!(rec, MoveError::NotYourPiece { .. }));
    let rec = p.play(&mv("e2e3"), W, &fide()).unwrap();
    let json = serde_json::to_value(&rec).unwrap();
    assert_eq!(json["legality"]["illegal"][0], "wrong_turn");
}

#[test]
fn castling_next_to_the_enemy_king() {
    let p = pos("8/8/8/8/8/8/6k1/4K2R w K - 0 1");
    assert_eq!(
        reasons(&p, "e1g1", W),
        vec![
            R::CastlingThroughCheck,
            R::CastlingIntoCheck,
            R::KingAdjacentToKing
        ]
    );
}

#[test]
fn legal_moves_in_an_illegal_position() {
    // Unpromoted pawn on a8: the position is illegal, moves are still judged by the laws.
    let p = pos("P3k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert!(p.to_chess().is_none());
    let mut moves: Vec<String> = p
        .legal_moves(&fide())
        .iter()
        .map(|m| m.to_string())
        .collect();
    moves.sort();
    assert_eq!(moves, ["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]);
    assert_eq!(reasons(&p, "a8a7", W), vec![R::WrongMovement]);
    // Two white kings: both must be safe. The a1 king is in check from the a2 rook.
    let p = pos("4k3/8/8/8/8/8/r7/K6K w - - 0 1");
    assert_eq!(reasons(&p, "h1g1", W), vec![R::OwnKingLeftInCheck]);
    assert_eq!(reasons(&p, "a1b1", W), vec![]);
    assert_eq!(
        reasons(&p, "h1h2", W),
        vec![R::OwnKingLeftInCheck, R::OwnKingPutInCheck]
    );
}

/// Issue 19 item 4: a press without a move that counts as a move (fide-b3 A.5.2, Laws
/// 7.5.3) hands the turn over with nothing moved.
#[test]
fn a_pass_hands_the_turn_over_with_nothing_moved() {
    let rules = fide();
    let mut p = PhysicalPosition::new();
    p.play(&mv("e2e4"), W, &rules).expect("e4");
    let before = p.clone();
    p.pass();
    assert_eq!(p.turn(), W);
    assert_eq!(p.board(), before.board());
    // The en passant right on e3 lapsed; one more half-move; Black passed, so move 2.
    assert_eq!(
        p.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"
    );
    assert_ne!(p.repetition_key(), before.repetition_key());
    // White is on move again and plays as usual (the fast path still serves).
    let r = p.play(&mv("d2d4"), W, &rules).expect("d4");
    assert!(r.legality.is_legal());
    assert_eq!(r.san.map(|s| s.to_string()).as_deref(), Some("d4"));
    // A pass that leaves the passer in check makes an illegal position for the other side.
    let mut q = pos("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    q.pass();
    assert_eq!(q.turn(), B);
    assert!(!q.illegal_position_reasons().is_empty());
    assert_eq!(
        q.status(),
        Status::IllegalPosition(q.illegal_position_reasons())
    );
}
