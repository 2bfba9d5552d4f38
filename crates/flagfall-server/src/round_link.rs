//! The link from a server game to the evening it plays for (issue 33: the game's task is
//! below the evenings, `crate::evening`, and calls up through here): what a game waits
//! for the director for ([`dispute_of`], pure), and its tellings to its evening when it
//! ends ([`game_over`]) or starts or stops waiting ([`game_waiting`]). The evenings
//! implement their side ([`EveningLink`]), which `Shared` holds, so a game calls no
//! module above its own.

use std::sync::Arc;

use flagfall_protocol::evening::DisputeWhat;

use crate::Shared;

/// The evenings' side of the link: what a game's telling does there. `Shared` holds
/// the evenings' implementation (`Shared::evening_link`), set where the server is made.
pub trait EveningLink: Send + Sync {
    /// A server game ended, its final event stored.
    fn game_over(&self, shared: &Arc<Shared>, game_id: &str);
    /// A server game's wait for the director began or ended with its `n`th event.
    fn game_waiting(
        &self,
        shared: &Arc<Shared>,
        game_id: &str,
        n: u64,
        dispute: Option<DisputeWhat>,
    );
}

/// A server game ended: tell its evening, if it plays for one (called by the game's
/// task once the final event is stored). The evening logs the result in its own task.
pub fn game_over(shared: &Arc<Shared>, game_id: &str) {
    shared.evening_link.game_over(shared, game_id)
}

/// A server game's wait for the director began or ended (`dispute`: what it waits for,
/// [`dispute_of`]; `None` when it no longer waits) with its `n`th stored event: tell its
/// evening, if it plays for one. Called by the game's task when that changes, and when a
/// game that waits is loaded (after a restart).
pub fn game_waiting(shared: &Arc<Shared>, game_id: &str, n: u64, dispute: Option<DisputeWhat>) {
    shared
        .evening_link
        .game_waiting(shared, game_id, n, dispute)
}

/// What a game waits for the director for, if anything: a claim for the director to rule
/// on or a player's call. The evening's console shows it with the game.
pub fn dispute_of(game: &flagfall_game::Game) -> Option<DisputeWhat> {
    use flagfall_protocol::ColorName;
    use flagfall_protocol::evening::Advice;
    if game.is_over() {
        // A game over waits for no one (a call answered by the game's result).
        return None;
    }
    if let Some((claimant, kind, rec)) = game.pending_claim() {
        return Some(DisputeWhat::Claim {
            claimant: ColorName::from(claimant),
            claim: kind.name().to_string(),
            advice: Advice {
                grant: rec.grant,
                reasons: rec.reasons.clone(),
            },
        });
    }
    game.called().map(|c| DisputeWhat::Call {
        by: ColorName::from(c.by),
        reason: c.reason.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::dispute_of;
    use serde_json::json;

    /// A game replayed from its setup (as `POST /api/games` takes it) and its events.
    fn game(setup: serde_json::Value, events: &[serde_json::Value]) -> flagfall_game::Game {
        let body: flagfall_protocol::CreateGame = serde_json::from_value(setup).unwrap();
        let (mut text, _) = body.setup_line().unwrap();
        for e in events {
            text.push('\n');
            text.push_str(&e.to_string());
        }
        text.push('\n');
        flagfall_game::replay(&flagfall_game::script::parse(&text).unwrap()).game
    }

    #[test]
    fn a_claim_for_the_director_a_call_and_nothing() {
        let setup = json!({"rules":"club-ilc","time_control":"G/5;d0",
                           "fen":"4k3/8/8/8/8/8/8/4K2Q b - - 0 1"});
        // Nothing waits at the start.
        assert_eq!(dispute_of(&game(setup.clone(), &[])), None);
        // Black, a lone king under a minute, claims insufficient losing chances: the
        // claim waits for the director, with the assistant's advice.
        let claimed = game(
            setup.clone(),
            &[
                json!({"at":0,"by":"director","add_time":{"color":"black","ms":-250_000}}),
                json!({"at":10,"by":"black","claim":"ilc"}),
            ],
        );
        let d = dispute_of(&claimed).expect("the claim waits");
        let d = serde_json::to_value(&d).expect("a dispute serialises");
        assert_eq!(d["kind"], "claim", "{d}");
        assert_eq!(d["claimant"], "black", "{d}");
        assert_eq!(d["claim"], "ilc", "{d}");
        assert!(d["advice"]["grant"].is_boolean(), "{d}");
        // A player's call waits too, with its reason.
        let called = game(
            setup,
            &[json!({"at":5,"by":"black","call_director":true,"reason":"noise"})],
        );
        assert_eq!(
            dispute_of(&called).map(|d| serde_json::to_value(&d).expect("a dispute serialises")),
            Some(json!({"kind":"call","by":"black","reason":"noise"}))
        );
    }
}
