//! The TypeScript declarations of the wire types, generated with ts-rs: the web page's
//! `web/src/wire.ts` is this text, committed; a test fails when the two differ (run it
//! with `FLAGFALL_BLESS=1` to write the file again).

use ts_rs::{Config, TS};

use crate::evening as ev;
use crate::practice::{ComputerConfig, PracticeBody};
use crate::*;

/// Every declaration, in a fixed order, as one TypeScript module.
pub fn typescript() -> String {
    // Milliseconds and event numbers stay far below 2^53: plain numbers in JavaScript.
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the Rust types of crates/flagfall-protocol by ts-rs\n\
         // (crates/flagfall-protocol/src/typescript.rs). Do not edit: run\n\
         // `FLAGFALL_BLESS=1 cargo test -p flagfall-protocol --test typescript`.\n",
    );
    let decls = [game_decls(&cfg), lobby_decls(&cfg), evening_decls(&cfg)];
    for d in decls.iter().flatten() {
        out.push('\n');
        out.push_str("export ");
        out.push_str(d.trim());
        out.push('\n');
    }
    out
}

/// A game: its state, its actions, its rulings.
fn game_decls(cfg: &Config) -> Vec<String> {
    vec![
        ColorName::decl(cfg),
        Role::decl(cfg),
        Mode::decl(cfg),
        ClockState::decl(cfg),
        Recommendation::decl(cfg),
        PendingClaim::decl(cfg),
        Called::decl(cfg),
        BoardMove::decl(cfg),
        MoveView::decl(cfg),
        Claims::decl(cfg),
        PromotionRanks::decl(cfg),
        PlayerActions::decl(cfg),
        NextPenalty::decl(cfg),
        OffenceOption::decl(cfg),
        DirectorActions::decl(cfg),
        Actions::decl(cfg),
        RulingKindName::decl(cfg),
        TimeChangeView::decl(cfg),
        RulingView::decl(cfg),
    ]
}

/// Creating a game, practice, the state's messages, the rulesets and rematches.
fn lobby_decls(cfg: &Config) -> Vec<String> {
    vec![
        CreateGame::decl(cfg),
        Tokens::decl(cfg),
        Urls::decl(cfg),
        Created::decl(cfg),
        ComputerConfig::decl(cfg),
        PracticeBody::decl(cfg),
        State::decl(cfg),
        StateUpdate::decl(cfg),
        ServerMsg::decl(cfg),
        RulesetInfo::decl(cfg),
        QuickControl::decl(cfg),
        Rulesets::decl(cfg),
        RematchAction::decl(cfg),
        RematchBody::decl(cfg),
        RematchStatus::decl(cfg),
        RematchGame::decl(cfg),
        RematchView::decl(cfg),
    ]
}

/// An evening's answers and live messages.
fn evening_decls(cfg: &Config) -> Vec<String> {
    vec![
        ev::Play::decl(cfg),
        ev::Confirm::decl(cfg),
        ev::ByeRequest::decl(cfg),
        ev::ByeKindName::decl(cfg),
        ev::CrossOutcome::decl(cfg),
        ev::PlayerRef::decl(cfg),
        ev::EveningPlayer::decl(cfg),
        ev::ForbiddenPairView::decl(cfg),
        ev::Reported::decl(cfg),
        ev::Disagreement::decl(cfg),
        ev::Advice::decl(cfg),
        ev::DisputeWhat::decl(cfg),
        ev::Dispute::decl(cfg),
        ev::EveningSummary::decl(cfg),
        ev::BoardView::decl(cfg),
        ev::RoundByeView::decl(cfg),
        ev::LeftWhy::decl(cfg),
        ev::LeftPlayer::decl(cfg),
        ev::RoundView::decl(cfg),
        ev::StandingsRow::decl(cfg),
        ev::Standings::decl(cfg),
        ev::CrossCell::decl(cfg),
        ev::CrossRow::decl(cfg),
        ev::Crosstable::decl(cfg),
        ev::GameLink::decl(cfg),
        ev::GameEvening::decl(cfg),
        ev::Me::decl(cfg),
        ev::LiveMessage::decl(cfg),
        ev::EveningUrls::decl(cfg),
        ev::EveningCreated::decl(cfg),
        ev::DeputyCreated::decl(cfg),
        ev::AddedPlayer::decl(cfg),
        ev::PlayersAdded::decl(cfg),
        ev::PlayerLink::decl(cfg),
        ev::PlayerLinks::decl(cfg),
        ev::ChangeAnswer::decl(cfg),
        ev::PlayerEdited::decl(cfg),
        ev::PairingWarning::decl(cfg),
        ev::OverrideAnswer::decl(cfg),
        ev::ResultsAnswer::decl(cfg),
        ev::RepairPreview::decl(cfg),
        ev::KeptPreview::decl(cfg),
        ev::ResultPreview::decl(cfg),
        ev::RatingLookup::decl(cfg),
        ev::RatingChanges::decl(cfg),
        ev::LogEntryView::decl(cfg),
        ev::EveningLog::decl(cfg),
        ev::PlayerAction::decl(cfg),
    ]
}
