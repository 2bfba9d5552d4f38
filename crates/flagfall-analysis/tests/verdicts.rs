//! Hand-picked verdicts of `can_checkmate`: the coverage list (locked walls,
//! confined bishops, forced lines, mate and stalemate on the board, illegal setups, node
//! limits) with the expected reason.

use flagfall_analysis::{Limits, UnwinnableReason, Verdict, can_checkmate, verify_helpmate};
use shakmaty::{Color, Setup, fen::Fen};

fn setup(fen: &str) -> Setup {
    fen.parse::<Fen>().expect("valid FEN").into_setup()
}

fn verdict(fen: &str, winner: Color) -> Verdict {
    can_checkmate(&setup(fen), winner, &Limits::default())
}

fn assert_winnable(fen: &str, winner: Color) -> Vec<String> {
    assert_winnable_within(fen, winner, &Limits::default())
}

/// `winner` can mate in `fen` within `limits`, and the witness replays to mate.
fn assert_winnable_within(fen: &str, winner: Color, limits: &Limits) -> Vec<String> {
    match can_checkmate(&setup(fen), winner, limits) {
        Verdict::Winnable { witness } => {
            verify_helpmate(&setup(fen), winner, &witness).expect("witness replays to mate");
            witness
        }
        other => panic!("{fen} ({winner:?}): expected winnable, got {other:?}"),
    }
}

fn assert_unwinnable(fen: &str, winner: Color, reason: UnwinnableReason) {
    assert_eq!(
        verdict(fen, winner),
        Verdict::Unwinnable { reason },
        "{fen} ({winner:?})"
    );
}

#[test]
fn locked_wall_from_lichess_game_is_one_sided() {
    // chasolver's README example (lichess ijyj0mHa): Black cannot mate, White can.
    let fen = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - -";
    assert!(matches!(
        verdict(fen, Color::Black),
        Verdict::Unwinnable { .. }
    ));
    // White's helpmate is 17 plies long (K+B with Black's bishop and pawn boxing the king
    // in on a8); the search finds it in about a hundred nodes.
    assert_winnable_within(fen, Color::White, &Limits { nodes: 10_000 });
}

#[test]
fn locked_wall_with_bishops_on_each_side() {
    let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -";
    assert_unwinnable(fen, Color::White, UnwinnableReason::LockedPawns);
    assert_unwinnable(fen, Color::Black, UnwinnableReason::LockedPawns);
}

#[test]
fn material_rules() {
    assert_unwinnable(
        "7k/8/8/8/8/8/8/KQ6 w - - 0 1",
        Color::Black,
        UnwinnableReason::BareKing,
    );
    assert_unwinnable(
        "7k/8/8/8/8/8/8/KN6 w - - 0 1",
        Color::White,
        UnwinnableReason::InsufficientMaterial,
    );
    assert_unwinnable(
        "6bk/8/8/8/8/8/8/KB6 w - - 0 1",
        Color::White,
        UnwinnableReason::SameColouredBishops,
    );
    // K+B v K+P is winnable (docs/rules.md §3.5): the pawn can box its own king in.
    assert_winnable("7k/7p/8/8/8/8/8/KB6 w - - 0 1", Color::White);
    // K+N v K+N too.
    assert_winnable("6nk/8/8/8/8/8/8/KN6 w - - 0 1", Color::White);
}

#[test]
fn mate_and_stalemate_on_the_board() {
    // Black is already mated: White has won, with an empty witness.
    let mated = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";
    assert_eq!(
        verdict(mated, Color::White),
        Verdict::Winnable { witness: vec![] }
    );
    assert_unwinnable(mated, Color::Black, UnwinnableReason::NoLegalMoves);
    // Stalemate: nobody can win any more.
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    assert_unwinnable(stalemate, Color::White, UnwinnableReason::NoLegalMoves);
    assert_unwinnable(stalemate, Color::Black, UnwinnableReason::NoLegalMoves);
}

#[test]
fn forced_cycle_is_unwinnable() {
    // Only bishop moves back and forth are possible (chasolver's forced-repetition test).
    let fen = "k1b5/1p1p4/1P1P4/8/8/4p1p1/4P1P1/5B1K w - -";
    assert!(matches!(
        verdict(fen, Color::White),
        Verdict::Unwinnable { .. }
    ));
    assert!(matches!(
        verdict(fen, Color::Black),
        Verdict::Unwinnable { .. }
    ));
}

#[test]
fn forced_moves_then_mate() {
    // Black's only move is Kh8-g8?? No: Black king h8 boxed, only the pawn can move; White
    // then mates. The witness starts with the forced move and ends in mate.
    let fen = "7k/5K1p/8/8/8/8/8/6R1 b - - 0 1";
    let witness = assert_winnable(fen, Color::White);
    assert!(!witness.is_empty());
}

#[test]
fn promotion_unlocks_a_blockade() {
    // The wall is locked except for White's passed b-pawn, which promotes.
    let fen = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/1P6/4K3 w - - 0 1";
    assert_winnable(fen, Color::White);
}

#[test]
fn en_passant_and_castling_rights_are_handled() {
    let with_ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    assert_winnable(with_ep, Color::White);
    assert_winnable(with_ep, Color::Black);
}

#[test]
fn illegal_setups_do_not_panic() {
    // No black king: not playable, but a bare white king can never give check.
    let no_king = "8/8/8/8/8/8/8/K6Q w - - 0 1";
    assert!(matches!(
        verdict(no_king, Color::White),
        Verdict::Undetermined { .. }
    ));
    assert_unwinnable(
        "8/8/8/8/8/8/8/K7 w - - 0 1",
        Color::White,
        UnwinnableReason::BareKing,
    );
    // The side not to move is in check.
    let opposite_check = "k7/8/8/8/8/8/8/K6q b - - 0 1";
    assert!(matches!(
        verdict(opposite_check, Color::White),
        Verdict::Undetermined { .. } | Verdict::Unwinnable { .. }
    ));
    // Invalid castling rights are dropped; too much material is accepted.
    assert_winnable(
        "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1"
            .replace("4K3", "Q3K3")
            .as_str(),
        Color::White,
    );
    assert_winnable("QQQQk3/QQQQ4/8/8/8/8/8/4K3 b - - 0 1", Color::White);
    // Pawns on the back rank.
    let pawn_back = "P3k3/8/8/8/8/8/8/4K3 w - - 0 1";
    assert!(!matches!(
        verdict(pawn_back, Color::White),
        Verdict::Winnable { .. }
    ));
}

#[test]
fn node_limit_gives_undetermined_with_reason() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    match can_checkmate(&setup(fen), Color::White, &Limits { nodes: 5 }) {
        Verdict::Undetermined { reason } => assert!(reason.contains("node limit")),
        other => panic!("expected undetermined, got {other:?}"),
    }
}

#[test]
fn long_minor_piece_helpmates_within_a_tenth_of_the_default_limit() {
    // Helpmates of 40-120 plies where the loser's own pieces box its king in, among the
    // slowest corpus queries of the analysis benchmark at eba45cd, where five of the six
    // were still undetermined at this limit; each needs under 40,000 search nodes now.
    let limits = Limits { nodes: 100_000 };
    let cases = [
        // K+N v K+P: the pawn has to stay or promote beside its king.
        ("8/8/p7/8/6N1/8/1k5K/8 b - - 0 1", Color::White),
        // K+N v K+R and K+N v K+Q+P: the rook, queen and pawn block their own king.
        ("1nR1k3/8/8/8/8/8/K7/8 b - - 2 47", Color::Black),
        ("8/2K5/8/8/N7/8/3r3k/8 w - - 0 1", Color::White),
        ("8/q7/2p5/4N3/2K4k/8/8/8 w - - 2 39", Color::White),
        // Same-coloured bishops against bishops and knights.
        ("7b/B4k2/8/4B3/5n2/BK6/8/8 w - - 0 1", Color::White),
        ("3kb3/7b/2b3K1/8/8/7B/2P5/8 w - - 0 1", Color::Black),
    ];
    for (fen, winner) in cases {
        assert_winnable_within(fen, winner, &limits);
    }
}

#[test]
fn same_coloured_bishops_against_a_promoting_pawn() {
    // The winner has only bishops of one colour, so the loser must box its own king in on
    // the squares of the other colour, with the knight its pawn promotes to (40- and
    // 34-ply helpmates). Both spent the whole default limit undetermined before the
    // loser's pawn pushes counted as progress for these material balances (corpus seeds 1
    // and 2 of the analysis benchmark).
    let cases = [
        ("1B1k1b2/2b3b1/8/8/8/8/3P3K/8 w - - 0 1", Color::Black),
        ("3B1B2/k7/7p/8/6K1/8/1B3B2/8 b - - 0 1", Color::White),
    ];
    for (fen, winner) in cases {
        assert_winnable(fen, winner);
    }
}

#[test]
fn locked_walls_broken_by_an_offered_piece() {
    // Full-width locked walls (the `shut-walls` family of the analysis benchmark) where
    // the only helpmate starts by offering a rook or bishop to a pawn of the wall, whose
    // capture opens a file for a pawn that then promotes (helpmates of 40-60 plies). All
    // seven spent the whole default limit undetermined before the offer and the capture
    // became free moves in walled positions; together they need under 1,000 nodes now.
    let limits = Limits { nodes: 20_000 };
    let cases = [
        (
            "6b1/1pk5/pPp1p1p1/P1PpPpPp/3P1P1P/2B2K2/8/R7 b - - 0 1",
            Color::White,
        ),
        (
            "4b3/3p1k2/p1pPp3/PpP1Pp2/1P3Pp1/R3K1Pp/7P/8 b - - 0 1",
            Color::White,
        ),
        (
            "8/8/1b3p2/2k1pPp1/1p1pP1Pp/pPpP3P/P1P1K3/1R6 b - - 0 1",
            Color::White,
        ),
        (
            "1bk5/6p1/5pPp/2p1pP1P/1pPpPK2/pP1P4/P3R3/3B4 w - - 0 1",
            Color::White,
        ),
        (
            "8/6p1/1bk2pPp/4pP1P/1p1pP3/pPpP3R/P1P4K/8 b - - 0 1",
            Color::White,
        ),
        (
            "8/2b5/7p/2k3pP/1p1p1pP1/pPpPpP1K/P1P1P3/3B2R1 b - - 0 1",
            Color::White,
        ),
        (
            "2r5/p1p4k/PpPp4/1P1Pp3/4Pp1p/5PpP/6P1/2KB4 w - - 0 1",
            Color::Black,
        ),
    ];
    for (fen, winner) in cases {
        assert_winnable_within(fen, winner, &limits);
    }
}

#[test]
fn locked_walls_without_a_breach() {
    // Full-width walls from the same family where nothing can be offered: a knight that
    // can only hop about behind its own pawns, bishops whose colour no pawn of the wall
    // stands on. The blockade analysis proves each with every pawn frozen.
    let knight = "k7/8/8/1p6/pPp1p1p1/P1PpPpPp/3P1P1P/4KN2 b - - 0 1";
    for (fen, winner) in [
        (knight, Color::White),
        (knight, Color::Black),
        (
            "3k1b2/p1p1p1p1/PpPpPpPp/1P1P1P1P/8/5K2/8/3B4 b - - 0 1",
            Color::White,
        ),
        (
            "8/6b1/3pk2p/p1pPp1pP/PpP1PpP1/1P3P2/8/3K3B b - - 0 1",
            Color::White,
        ),
        (
            "k7/7b/8/3p3p/p1pPp1pP/PpP1PpP1/1P3PK1/6B1 w - - 0 1",
            Color::White,
        ),
    ] {
        assert_unwinnable(fen, winner, UnwinnableReason::LockedPawns);
    }
}

#[test]
fn counting_variant_gives_the_same_verdict_and_repeatable_nodes() {
    use flagfall_analysis::can_checkmate_counting;
    let limits = Limits::default();
    // Decided by material or on the board: no search, no nodes.
    let (v, nodes) = can_checkmate_counting(
        &setup("7k/8/8/8/8/8/8/KN6 w - - 0 1"),
        Color::White,
        &limits,
    );
    assert_eq!(
        v,
        Verdict::Unwinnable {
            reason: UnwinnableReason::InsufficientMaterial
        }
    );
    assert_eq!(nodes, 0);
    // Searched: the same verdict as `can_checkmate`, and the same count every time.
    for (fen, winner) in [
        (
            "6b1/1pk5/pPp1p1p1/P1PpPpPp/3P1P1P/2B2K2/8/R7 b - - 0 1",
            Color::White,
        ),
        ("8/8/p7/8/6N1/8/1k5K/8 b - - 0 1", Color::White),
    ] {
        let (v, nodes) = can_checkmate_counting(&setup(fen), winner, &limits);
        assert_eq!(v, can_checkmate(&setup(fen), winner, &limits), "{fen}");
        assert!(nodes > 0, "{fen}: no nodes counted");
        assert_eq!(
            can_checkmate_counting(&setup(fen), winner, &limits).1,
            nodes,
            "{fen}"
        );
    }
    // At the node limit the count reaches the limit.
    let small = Limits { nodes: 50 };
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (v, nodes) = can_checkmate_counting(&setup(fen), Color::White, &small);
    assert!(matches!(v, Verdict::Undetermined { .. }));
    assert!(nodes > small.nodes, "{nodes}");
}

/// `fen` is unwinnable for both sides, proved by exhausting the reachable positions
/// (issue 23: the breadth-first search of nearly forced play) within 10,000 search nodes.
fn assert_pocket_dead(fen: &str) {
    let limits = Limits { nodes: 10_000 };
    for winner in [Color::White, Color::Black] {
        assert_eq!(
            can_checkmate(&setup(fen), winner, &limits),
            Verdict::Unwinnable {
                reason: UnwinnableReason::Exhausted
            },
            "{fen} ({winner:?})"
        );
    }
}

/// A king shut in a corner pocket behind a full-width locked wall, the only other piece a
/// knight of the other side beside it (issue 23). Neither side can ever mate, and both
/// answers used to spend the whole node limit.
#[test]
fn king_in_a_corner_pocket_with_the_enemy_knight_beside_it() {
    // White: Ka1, pawns a2 b3 c2 d3 e2 f3 g2 h3; Black: Ke8, Nb1, pawns a3 b4 c3 d4 e3 f4
    // g3 h4; Black to move. Every file holds a white pawn directly under a black one and
    // the ranks alternate, so no pawn can push, and each pawn attacks only squares of its
    // own pawns or empty squares on the far side of the wall, which no king can reach
    // (they are guarded by the other side's pawns; the knight is the only piece that could
    // stand there). Why no mate, for either side:
    // - White's king has a2 (own pawn) and b2 (guarded by a3 and c3) next to it, so with
    //   the knight on b1 its only legal move is Kxb1 (b1 is not guarded: no black pawn
    //   attacks a rank-1 square).
    // - The knight's only move from b1 is to d2 (a3 and c3 hold Black's pawns), and from d2
    //   it still guards b1: White, not in check, then has no legal move (its pawns are
    //   blocked and attack no black piece), a stalemate. So the knight never gets away, and
    //   as long as it stands on b1, each White turn is Kxb1.
    // - So every game either ends in that stalemate or reaches Kxb1, after which only kings
    //   and locked pawns are left: no pawn can ever move (nothing is left to capture), the
    //   kings stay on their own side of the wall, and the pawns' attacks only cover squares
    //   no king can stand on. No checkmate can follow; the blockade analysis proves it.
    assert_pocket_dead("4k3/8/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/Kn6 b - - 0 1");

    // The same in the other colours and corner, with a spare pawn for the free side:
    // Black: Kh8, pawns a6 b7 c6 d7 e6 f7 g6 h7; White: Kb2, Ng8, pawns a5 b6 c5 d6 e5 f6
    // g5 h6 and e3; White to move. Black's king has h7 (own pawn) and g7 (guarded by f6
    // and h6): its only move is Kxg8. The knight's only move from g8 is Ne7 (f6 and h6 hold
    // White's pawns), which still guards g8 and stalemates Black. White may wait (king
    // moves, e3-e4: the pawn then stands under its own e5 pawn, and on e3 and e4 it
    // attacks only the empty d4, f4, d5 and f5), but each Black turn is Kxg8; after it the
    // wall is locked for good as above, and a pawn on e4 changes nothing.
    assert_pocket_dead("6Nk/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4P3/1K6/8 w - - 0 1");

    // From the corpus family (`pockets`): White's king stands in check from the wall pawn
    // on b6, so White's only moves are Ka4 and Kb4 (the knight on b8, whose only move is
    // Nd7, cannot parry the check); Black's only move is then Kxb8 (a7 own pawn, b7
    // guarded by a6 and c6, and no black pawn can capture: no white piece stands where
    // one attacks), after which the wall is locked for good as above.
    assert_pocket_dead("kN6/p1p1p1p1/PpPpPpPp/KP1P1P1P/8/8/8/8 w - - 0 1");
}

/// The same wall with the knight one square farther (c1: a pocket of three squares) is
/// no fortress: the knight can leave without stalemating White (Kb1 is then a move), so
/// it can take a white pawn and free a black one, and the pawns promote. Both sides can
/// mate; the proof above must not reach this position.
#[test]
fn corner_pocket_with_the_knight_farther_away_is_winnable() {
    let fen = "4k3/8/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/K1n5 w - - 0 1";
    assert_winnable(fen, Color::White);
    assert_winnable(fen, Color::Black);
}
