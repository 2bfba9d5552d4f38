//! Director's assistant for draw claims that the rules leave to the director's judgement:
//! insufficient losing chances (`club-ilc` 4.3) and the claimable draw positions of
//! `blitz-2006` 8e, 8g, 8h and 8i ("unless a forced win can be demonstrated").
//!
//! The assistant recognises the listed patterns, looks for a forced win of the claimant's
//! opponent (a bounded forced-mate search, plus an optional tablebase the caller provides
//! through [`Tablebase`]; no file I/O happens here), and recommends with reasons. The
//! director decides; the recommendation never replaces that decision.
//!
//! **Interpretations** (written here because the rule texts are terse):
//! - 8e "one identical piece each": each side has its king and exactly one other piece,
//!   of the same kind, and there are no pawns.
//! - 8g "K+B v K+B, opposite colours, one pawn": exactly those bishops and one pawn.
//!   "2 pawns v 1 pawn clearly blockaded": opposite-coloured bishops, three pawns split
//!   2–1, and every pawn has a piece or pawn directly in front of it or its next square
//!   guarded by the defending bishop (the pawn cannot advance safely).
//! - 8h: K+P v K with the defending king on the square directly in front of the pawn and
//!   the pawn not on its seventh rank; for a rook pawn, the defending king anywhere on the
//!   rook file in front of the pawn.
//! - 8i: K+R+rook pawn v K+R with the defending king on the pawn's file in front of it.
//! - club-ilc 4.3: granted for the 8e/8g/8h/8i shapes above and for positions where the
//!   claimant's opponent cannot mate at all; denied when the claimant is ahead in material
//!   (the rule's own example of a position that "still has play"), and otherwise left as
//!   "not recommended" with the reason, since the director has to watch the play.
//! - "A forced win can be demonstrated": the opponent mates by force within
//!   [`FORCED_MATE_PLIES`] plies, or the tablebase (when given) says the opponent wins.

use flagfall_core::colour;
use flagfall_core::ruleset::DrawPattern;
use shakmaty::{CastlingMode, Chess, Color, Position, Setup, Square};

use crate::{Limits, Verdict, can_checkmate};

/// Which claim the player made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawClaim {
    /// Insufficient losing chances, `club-ilc` 4.3.
    Ilc,
    /// A claimable draw position, `blitz-2006` 8e, 8g, 8h, 8i.
    DrawPosition,
}

/// The assistant's advice to the director.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recommendation {
    /// Recommend granting the draw.
    pub grant: bool,
    /// Why, as a fact about the position; the caller cites the rule for it from the
    /// ruleset (the assistant names no rule).
    pub ground: Ground,
    /// Human-readable reasons, in order.
    pub reasons: Vec<String>,
}

/// The fact a recommendation rests on. Its citation is ruleset data: a pattern's own rule
/// ([`flagfall_core::ruleset::DrawRules::pattern_rule`]), else the claim's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ground {
    /// The position cannot be judged: not a legal position, or the game is over on it.
    NoPosition,
    /// The claimant's opponent cannot checkmate by any series of legal moves.
    NoMatingPossibility,
    /// A listed drawn position (granted unless a forced win is shown).
    Pattern(DrawPattern),
    /// None of the listed drawn positions.
    NoPattern,
}

impl Ground {
    /// A stable name for output: `no_position`, `no_mating_possibility`, the pattern's
    /// name (`identical_pieces`, ...), `no_pattern`.
    pub fn name(self) -> &'static str {
        match self {
            Ground::NoPosition => "no_position",
            Ground::NoMatingPossibility => "no_mating_possibility",
            Ground::Pattern(p) => p.name(),
            Ground::NoPattern => "no_pattern",
        }
    }
}

/// Win/draw/loss from the point of view of the side to move, as tablebases report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wdl {
    Loss,
    /// Lost, but saved by the 50-move rule.
    BlessedLoss,
    Draw,
    /// Won, but only after the 50-move rule would draw.
    CursedWin,
    Win,
}

impl Wdl {
    /// The same value from the other side's point of view.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }
}

/// What a tablebase says about a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// The value for the side to move, the position's 50-move counter taken into account.
    Exact(Wdl),
    /// The value for the side to move as if the 50-move counter were zero: the tables could
    /// not tell whether the moves already played since the last capture or pawn move spoil
    /// a win (DTZ rounding, or no DTZ table for this material).
    IgnoringFiftyMoves(Wdl),
    /// The tables do not cover the position (material not present, too many pieces,
    /// castling rights); the text says which.
    NotCovered(String),
    /// A table exists but could not be read (corrupt file, I/O error); the text says which.
    Failed(String),
}

/// A tablebase the caller provides (Syzygy through `shakmaty-syzygy` in the
/// `flagfall-syzygy` crate). Implementations may read files; this crate never does.
pub trait Tablebase {
    /// What the tables say about `pos`, for the side to move.
    fn probe(&self, pos: &Chess) -> Probe;
}

/// Depth of the forced-mate search that looks for a demonstrable win.
pub const FORCED_MATE_PLIES: u32 = 7;

fn deny(ground: Ground, reasons: Vec<String>) -> Recommendation {
    Recommendation {
        grant: false,
        ground,
        reasons,
    }
}

/// The recommendation on `claimant`'s `claim` in `setup`, consulting `tablebase` (when
/// the caller has one) for a forced win where it covers the position.
pub fn recommend(
    setup: &Setup,
    claimant: Color,
    claim: DrawClaim,
    tablebase: Option<&dyn Tablebase>,
) -> Recommendation {
    let pos = match crate::position_from_setup(setup) {
        Ok(p) => p,
        Err(e) => return deny(Ground::NoPosition, vec![e]),
    };
    let opponent = !claimant;
    let mut reasons = Vec::new();

    if pos.is_game_over() {
        return deny(
            Ground::NoPosition,
            vec!["the game is already over on the board".to_string()],
        );
    }

    // Can the opponent mate at all? If not, the claimant cannot lose.
    let verdict = can_checkmate(setup, opponent, &Limits::default());
    if let Verdict::Unwinnable { reason } = &verdict {
        return Recommendation {
            grant: true,
            ground: Ground::NoMatingPossibility,
            reasons: vec![format!(
                "{} cannot checkmate by any series of legal moves ({reason:?})",
                colour::name(opponent)
            )],
        };
    }

    let pattern = draw_pattern(&pos);
    match (&pattern, claim) {
        (Some((_, why)), _) => reasons.push(why.clone()),
        (None, DrawClaim::DrawPosition) => {
            return deny(
                Ground::NoPattern,
                vec!["the position is none of the listed drawn positions".to_string()],
            );
        }
        (None, DrawClaim::Ilc) => {
            let ours = material_points(&pos, claimant);
            let theirs = material_points(&pos, opponent);
            if ours > theirs {
                return deny(
                    Ground::NoPattern,
                    vec![format!(
                        "the claimant is ahead in material ({ours} v {theirs}) and the position \
                         still has play"
                    )],
                );
            }
            return deny(
                Ground::NoPattern,
                vec![
                    "no recognised dead-drawn pattern; the director may let play continue under \
                     observation"
                        .to_string(),
                ],
            );
        }
    }

    // A listed pattern (or, for ILC, one of the shapes club-ilc 4.3 grants) is found.
    let ground = pattern.map_or(Ground::NoPattern, |p| Ground::Pattern(p.0));
    // A forced win for the opponent defeats the claim.
    if let Some(tb) = tablebase {
        let (forced_win, why) = tablebase_verdict(tb, &pos, opponent);
        reasons.push(why);
        if forced_win {
            return deny(ground, reasons);
        }
    }
    if let Some(line) = forced_mate(&pos, opponent, FORCED_MATE_PLIES) {
        reasons.push(format!(
            "{} forces mate within {} plies (first move {line})",
            colour::name(opponent),
            FORCED_MATE_PLIES
        ));
        return deny(ground, reasons);
    }
    reasons.push(format!(
        "no forced mate for {} within {} plies",
        colour::name(opponent),
        FORCED_MATE_PLIES
    ));
    Recommendation {
        grant: true,
        ground,
        reasons,
    }
}

/// Interpretation: only a win the tables call unconditional counts as "a forced win can be
/// demonstrated" (blitz-2006 8e-8i, club-ilc 4.3). A win the 50-move rule frustrates
/// (a cursed win) is not one, since the claimant could claim the 50-move draw on the way;
/// a win whose 50-move status the tables cannot settle is reported, and the decision falls
/// to the forced-mate search and to the director.
///
/// Returns whether the tables show such a forced win, and the reason to record.
fn tablebase_verdict(tb: &dyn Tablebase, pos: &Chess, opponent: Color) -> (bool, String) {
    let for_opponent = |wdl: Wdl| {
        if pos.turn() == opponent {
            wdl
        } else {
            wdl.flip()
        }
    };
    let who = colour::name(opponent);
    match tb.probe(pos) {
        Probe::Exact(wdl) => match for_opponent(wdl) {
            Wdl::Win => (true, format!("the tablebase shows a forced win for {who}")),
            Wdl::CursedWin => (
                false,
                format!(
                    "the tablebase shows a win for {who} only beyond the 50-move rule, so no forced \
                 win under the rules"
                ),
            ),
            Wdl::Draw => (false, "the tablebase shows a draw".to_string()),
            Wdl::BlessedLoss | Wdl::Loss => (
                false,
                format!(
                    "the tablebase shows no win for {who} (the claimant is the one with chances)"
                ),
            ),
        },
        Probe::IgnoringFiftyMoves(wdl) => match for_opponent(wdl) {
            Wdl::Win => (
                false,
                format!(
                    "the tablebase shows a win for {who} counted from a fresh 50-move count; \
                 whether the moves already played spoil it is not known"
                ),
            ),
            Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss | Wdl::Loss => (
                false,
                format!("the tablebase shows no forced win for {who}"),
            ),
        },
        Probe::NotCovered(why) => (
            false,
            format!("the tablebase does not cover this position ({why})"),
        ),
        Probe::Failed(why) => (false, format!("the tablebase could not be read ({why})")),
    }
}

fn material_points(pos: &Chess, c: Color) -> u32 {
    let m = pos.board().material_side(c);
    m.pawn as u32 + 3 * (m.knight as u32 + m.bishop as u32) + 5 * m.rook as u32 + 9 * m.queen as u32
}

/// The blitz-2006 8e/8g/8h/8i pattern the position matches, with a short description.
fn draw_pattern(pos: &Chess) -> Option<(DrawPattern, String)> {
    let b = pos.board();
    let non_kings = b.occupied() & !b.kings();
    let pawns = b.pawns();
    let per_side = |c: Color| b.by_color(c) & !b.kings();

    // 8e: one identical piece each, no pawns.
    if pawns.is_empty() {
        let (w, k) = (per_side(Color::White), per_side(Color::Black));
        if let (Some(ws), Some(bs)) = (w.single_square(), k.single_square())
            && b.role_at(ws) == b.role_at(bs)
        {
            return Some((
                DrawPattern::IdenticalPieces,
                format!("one identical piece each ({:?})", b.role_at(ws)?),
            ));
        }
    }

    // 8g: opposite-coloured bishops with one pawn, or 2 v 1 pawns blockaded.
    let bishops = b.bishops();
    if (non_kings & !bishops & !pawns).is_empty() && bishops.count() == 2 {
        let wb = (bishops & b.white()).single_square();
        let bb = (bishops & b.black()).single_square();
        if let (Some(wb), Some(bb)) = (wb, bb)
            && wb.is_light() != bb.is_light()
        {
            if pawns.count() == 1 {
                return Some((
                    DrawPattern::OppositeBishops,
                    "K+B v K+B with opposite-coloured bishops and one pawn".to_string(),
                ));
            }
            let wp = (pawns & b.white()).count();
            let bp = (pawns & b.black()).count();
            if pawns.count() == 3 && (wp == 2 || bp == 2) && all_pawns_blockaded(pos) {
                return Some((
                    DrawPattern::OppositeBishops,
                    "opposite-coloured bishops, two pawns v one, clearly blockaded".to_string(),
                ));
            }
        }
    }

    // 8h: K+P v K with the defender in front.
    if non_kings.count() == 1 && pawns.count() == 1 {
        let p = pawns.first()?;
        let attacker = b.color_at(p)?;
        let defender_king = b.king_of(!attacker)?;
        // Whichever side claims (the listed case is the defender), the position is judged alike.
        let rook_file = matches!(p.file(), shakmaty::File::A | shakmaty::File::H);
        if rook_file && in_front_on_file(p, defender_king, attacker) {
            return Some((
                DrawPattern::KingBeforePawn,
                "K+rook pawn v K with the defending king on the rook file in front of the pawn"
                    .to_string(),
            ));
        }
        let seventh = attacker.relative_rank(shakmaty::Rank::Seventh);
        if p.rank() != seventh && Some(defender_king) == p.offset(forward(attacker)) {
            return Some((
                DrawPattern::KingBeforePawn,
                "K+P v K with the defending king directly in front of the pawn, pawn not on the \
                 seventh rank"
                    .to_string(),
            ));
        }
    }

    // 8i: K+R+rook pawn v K+R, pawn blockaded by the king.
    if pawns.count() == 1 && b.rooks().count() == 2 && non_kings.count() == 3 {
        let p = pawns.first()?;
        let attacker = b.color_at(p)?;
        let rooks = b.rooks();
        let rook_file = matches!(p.file(), shakmaty::File::A | shakmaty::File::H);
        if rook_file
            && (rooks & b.by_color(attacker)).count() == 1
            && (rooks & b.by_color(!attacker)).count() == 1
            && in_front_on_file(p, b.king_of(!attacker)?, attacker)
        {
            return Some((
                DrawPattern::RookPawnBlockaded,
                "K+R+rook pawn v K+R with the pawn blockaded by the defending king".to_string(),
            ));
        }
    }
    None
}

fn forward(c: Color) -> i32 {
    if c.is_white() { 8 } else { -8 }
}

/// Is `king` on `pawn`'s file, ahead of it from `attacker`'s point of view?
fn in_front_on_file(pawn: Square, king: Square, attacker: Color) -> bool {
    king.file() == pawn.file()
        && if attacker.is_white() {
            king.rank() > pawn.rank()
        } else {
            king.rank() < pawn.rank()
        }
}

/// Every pawn has something directly in front of it, or its next square is guarded by the
/// other side's bishop.
fn all_pawns_blockaded(pos: &Chess) -> bool {
    let b = pos.board();
    b.pawns().into_iter().all(|p| {
        let Some(c) = b.color_at(p) else { return false };
        let Some(next) = p.offset(forward(c)) else {
            return true;
        };
        if b.occupied().contains(next) {
            return true;
        }
        let their_bishops = b.bishops() & b.by_color(!c);
        their_bishops
            .into_iter()
            .any(|s| shakmaty::attacks::bishop_attacks(s, b.occupied()).contains(next))
    })
}

/// A forced mate for `attacker` within `plies` plies: returns the first move (UCI).
fn forced_mate(pos: &Chess, attacker: Color, plies: u32) -> Option<String> {
    // Iterative deepening on odd depths when the attacker moves first, even otherwise.
    let start = if pos.turn() == attacker { 1 } else { 2 };
    let mut depth = start;
    while depth <= plies {
        if pos.turn() == attacker {
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                if mates_by_force(&child, attacker, depth - 1) {
                    return Some(m.to_uci(CastlingMode::Standard).to_string());
                }
            }
        } else if mates_by_force(pos, attacker, depth) {
            return Some("(any defence)".to_string());
        }
        depth += 2;
    }
    None
}

/// Does `attacker` mate by force within `plies` plies from `pos`?
fn mates_by_force(pos: &Chess, attacker: Color, plies: u32) -> bool {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return pos.turn() != attacker && pos.is_check();
    }
    if plies == 0 {
        return false;
    }
    if pos.turn() == attacker {
        moves.iter().any(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            mates_by_force(&child, attacker, plies - 1)
        })
    } else {
        moves.iter().all(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            mates_by_force(&child, attacker, plies - 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().expect("fen").into_setup()
    }

    #[test]
    fn rook_v_rook_is_8e_and_granted() {
        let r = recommend(
            &setup("8/8/3k4/8/8/2r5/8/R3K3 w - - 0 1"),
            Color::White,
            DrawClaim::DrawPosition,
            None,
        );
        assert!(r.grant, "{r:?}");
        assert_eq!(r.ground, Ground::Pattern(DrawPattern::IdenticalPieces));
    }

    #[test]
    fn king_in_front_of_pawn_is_8h() {
        let r = recommend(
            &setup("8/8/8/4k3/4P3/4K3/8/8 b - - 0 1"),
            Color::Black,
            DrawClaim::DrawPosition,
            None,
        );
        assert!(r.grant, "{r:?}");
        assert_eq!(r.ground, Ground::Pattern(DrawPattern::KingBeforePawn));
        // Defender not in front: not a listed pattern.
        let r = recommend(
            &setup("8/8/8/3k4/8/4P3/4K3/8 b - - 0 1"),
            Color::Black,
            DrawClaim::DrawPosition,
            None,
        );
        assert!(!r.grant, "{r:?}");
    }

    #[test]
    fn rook_pawn_with_king_in_front() {
        let r = recommend(
            &setup("k7/8/8/8/P7/8/8/4K3 b - - 0 1"),
            Color::Black,
            DrawClaim::DrawPosition,
            None,
        );
        assert!(r.grant, "{r:?}");
        assert_eq!(r.ground, Ground::Pattern(DrawPattern::KingBeforePawn));
    }

    #[test]
    fn queen_v_queen_with_forced_mate_is_denied() {
        // 8e shape, but White mates at once: Qh7# is not possible... use a clear mate in 1:
        // Black king on h8, White queen g6 and king f6? Keep it simple: Qa8 mates on the back rank.
        let r = recommend(
            &setup("6k1/5ppp/8/8/8/8/q7/Q3K3 w - - 0 1"),
            Color::Black,
            DrawClaim::DrawPosition,
            None,
        );
        assert!(!r.grant, "{r:?}");
    }

    #[test]
    fn ilc_ahead_in_material_denied() {
        let r = recommend(
            &setup("4k3/pp6/8/8/8/8/PPP5/R3K3 w - - 0 1"),
            Color::White,
            DrawClaim::Ilc,
            None,
        );
        assert!(!r.grant, "{r:?}");
        assert_eq!(r.ground, Ground::NoPattern);
        assert!(r.reasons[0].contains("ahead in material"));
    }

    #[test]
    fn lone_king_opponent_is_always_granted() {
        let r = recommend(
            &setup("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
            Color::White,
            DrawClaim::Ilc,
            None,
        );
        assert!(r.grant, "{r:?}");
        assert_eq!(r.ground, Ground::NoMatingPossibility);
    }

    /// A table that answers the same for every position.
    struct Fixed(Probe);
    impl Tablebase for Fixed {
        fn probe(&self, _pos: &Chess) -> Probe {
            self.0.clone()
        }
    }

    #[test]
    fn tablebase_win_defeats_claim() {
        // White to move wins according to the (mock) table: Black's claim is denied.
        let s = setup("8/8/3k4/8/8/2r5/8/R3K3 w - - 0 1");
        let tb = Fixed(Probe::Exact(Wdl::Win));
        let r = recommend(&s, Color::Black, DrawClaim::DrawPosition, Some(&tb));
        assert!(!r.grant, "{r:?}");
        assert!(
            r.reasons
                .contains(&"the tablebase shows a forced win for White".to_string()),
            "{r:?}"
        );
    }

    #[test]
    fn tablebase_value_is_read_from_the_side_to_move() {
        // Black to move and lost per the table: a forced win for White, so Black's claim
        // is denied; the same table value with White's claim is no win for Black.
        let s = setup("8/8/3k4/8/8/2r5/8/R3K3 b - - 0 1");
        let tb = Fixed(Probe::Exact(Wdl::Loss));
        let r = recommend(&s, Color::Black, DrawClaim::DrawPosition, Some(&tb));
        assert!(!r.grant, "{r:?}");
        let r = recommend(&s, Color::White, DrawClaim::DrawPosition, Some(&tb));
        assert!(r.grant, "{r:?}");
        assert!(
            r.reasons
                .iter()
                .any(|x| x.contains("no win for Black (the claimant is the one with chances)")),
            "{r:?}"
        );
    }

    #[test]
    fn cursed_win_is_not_a_forced_win() {
        let s = setup("8/8/3k4/8/8/2r5/8/R3K3 w - - 0 1");
        let tb = Fixed(Probe::Exact(Wdl::CursedWin));
        let r = recommend(&s, Color::Black, DrawClaim::DrawPosition, Some(&tb));
        assert!(r.grant, "{r:?}");
        assert!(
            r.reasons
                .iter()
                .any(|x| x.contains("beyond the 50-move rule"))
        );
    }

    #[test]
    fn uncertain_fifty_move_win_leaves_the_decision_to_the_search() {
        let s = setup("8/8/3k4/8/8/2r5/8/R3K3 w - - 60 80");
        let tb = Fixed(Probe::IgnoringFiftyMoves(Wdl::Win));
        let r = recommend(&s, Color::Black, DrawClaim::DrawPosition, Some(&tb));
        assert!(r.grant, "{r:?}");
        assert!(r.reasons.iter().any(|x| x.contains("fresh 50-move count")));
        assert!(
            r.reasons
                .iter()
                .any(|x| x.contains("no forced mate for White"))
        );
    }

    #[test]
    fn unreadable_or_missing_table_is_reported_and_the_search_decides() {
        let s = setup("8/8/3k4/8/8/2r5/8/R3K3 w - - 0 1");
        for (probe, text) in [
            (
                Probe::Failed("KRvKR.rtbw: invalid magic".to_string()),
                "could not be read (KRvKR.rtbw: invalid magic)",
            ),
            (
                Probe::NotCovered("no KRvKR table".to_string()),
                "does not cover this position (no KRvKR table)",
            ),
        ] {
            let r = recommend(
                &s,
                Color::Black,
                DrawClaim::DrawPosition,
                Some(&Fixed(probe)),
            );
            assert!(r.grant, "{r:?}");
            assert!(r.reasons.iter().any(|x| x.contains(text)), "{r:?}");
        }
    }
}
