//! Rounds as the director corrects them (issue 31): what a correction of an earlier round
//! would do to the rounds paired after it, said before it is made (a dry run on a copy of
//! the evening); who played the round before and is not paired in a round, and why; and
//! bringing them back into the latest round (docs/events.md "On the server").

use flagfall_events::change::Effect;

use flagfall_events::event::{EventError, Round};
use flagfall_events::tiebreak::ByeKind;
use flagfall_protocol::evening::{KeptPreview, RepairPreview, ResultPreview};

use super::model::Snap;
use super::view::{self, Viewer};

/// The boards of `after` whose players differ from `before`'s (boards only one of them
/// has included), and whether the byes differ.
pub fn changed_boards(before: &Round, after: &Round) -> (Vec<u32>, bool) {
    let pair = |r: &Round, n: u32| {
        r.boards
            .iter()
            .find(|b| b.number == n)
            .map(|b| (b.white, b.black))
    };
    let most = before.boards.len().max(after.boards.len()) as u32;
    let boards = (1..=most)
        .filter(|&n| pair(before, n) != pair(after, n))
        .collect();
    let byes = |r: &Round| {
        let mut v: Vec<(u32, ByeKind)> = r.byes.iter().map(|b| (b.player, b.kind)).collect();
        v.sort_by_key(|b| b.0);
        v
    };
    (boards, byes(before) != byes(after))
}

/// The preview of a change made on a copy: `before` the evening as it is, `after` the
/// copy with the change made, `effects` what followed.
pub fn preview(
    before: &Snap,
    after: &Snap,
    effects: &[Effect],
) -> Result<ResultPreview, EventError> {
    let mut repaired = Vec::new();
    let mut kept = Vec::new();
    for e in effects {
        match e {
            Effect::Repaired { round } => {
                let i = (*round as usize).wrapping_sub(1);
                let (Some(old), Some(new)) = (
                    before.event.round_list.get(i),
                    after.event.round_list.get(i),
                ) else {
                    continue;
                };
                let (boards, byes) = changed_boards(old, new);
                repaired.push(RepairPreview {
                    round: *round,
                    boards,
                    byes,
                    before: view::round(before, *round, Viewer::Director)?,
                    after: view::round(after, *round, Viewer::Director)?,
                });
            }
            Effect::PairingKept { round, reason } => kept.push(KeptPreview {
                round: *round,
                reason: reason.clone(),
            }),
            _ => {}
        }
    }
    Ok(ResultPreview {
        effects: effects
            .iter()
            .map(|e| serde_json::to_value(e).unwrap_or(serde_json::Value::Null))
            .collect(),
        repaired,
        kept,
        seq: before.seq,
    })
}

// The routes of this file (docs/protocol.md "Evenings").

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flagfall_events::change::{Change, Origin};
use serde::Deserialize;

use super::request::{Director, admit, answer, asker, event_error, origin, parse, refused};
use super::task::{EveningHandle, Op};
use crate::Shared;
use crate::api::ApiError;
use crate::cpu::Ticket;
use crate::limits::ClientAddress;

/// `?dry_run=1` (or `true`): say what the change would do, change nothing.
#[derive(Deserialize, Default)]
pub struct DryRun {
    dry_run: Option<String>,
}

impl DryRun {
    /// Whether a dry run is asked; a value that is not one is refused.
    pub fn asked(&self) -> Result<bool, ApiError> {
        match self.dry_run.as_deref() {
            None | Some("0" | "false") => Ok(false),
            Some("1" | "true" | "") => Ok(true),
            Some(other) => Err(refused(
                StatusCode::BAD_REQUEST,
                format!("dry_run={other:?}: expected 1, true, 0 or false"),
            )),
        }
    }
}

/// The dry run of a director's result (`op`): [`preview`] of the change made on a copy.
/// A player's report has no dry run (403).
pub(super) async fn dry_run(
    s: &Arc<Shared>,
    h: &EveningHandle,
    op: Op,
    origin: Origin,
    ticket: Ticket,
) -> Result<Response, ApiError> {
    let Op::Changes(changes) = op else {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "a dry run of a result is the director's (a player reports the result itself)",
        ));
    };
    let p = h.preview(changes, origin).await?;
    let answer = s
        .cpu
        .run(Some(ticket), move || {
            preview(&p.before, &p.after, &p.effects)
        })
        .await
        .map_err(ApiError::Failed)?
        .map_err(event_error)?;
    Ok(axum::Json(answer).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PairAgainBody {
    /// The players brought back into the round (pairing numbers).
    players: Vec<u32>,
}

/// `POST /api/events/{id}/rounds/{r}/pair-again` `{"players": [n, ...]}` (the director):
/// the players named are brought back (checked in, resumed, reinstated: whatever keeps
/// each out of the pairing) and round `r`, the latest with nothing in it played, is
/// deleted and paired again with them, in one change stored whole or not at all. A
/// round that has begun is refused (409) and nothing changes.
pub(super) async fn pair_again(
    State(s): State<Arc<Shared>>,
    ClientAddress(addr): ClientAddress,
    Path((_, r)): Path<(String, u32)>,
    Director {
        id,
        h,
        snap,
        who: w,
        ..
    }: Director,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: PairAgainBody = parse(&body, "pair again")?;
    let event = &snap.event;
    let mut changes = Vec::new();
    for &n in &b.players {
        let p = event.player(n).map_err(event_error)?;
        if p.withdrawn_from.is_some() {
            changes.push(Change::Reinstate { player: n });
        }
        if p.paused {
            changes.push(Change::Resume { player: n });
        }
        if event.check_in && !p.checked_in {
            changes.push(Change::CheckIn { player: n });
        }
    }
    changes.push(Change::DeleteRound { round: r });
    changes.push(Change::PairNext);
    let ticket = admit(&s, addr, Some(&id))?;
    let done = h
        .run_as(Op::Changes(changes), origin(&w), asker(&w, addr, ticket))
        .await?;
    Ok(answer(&h, &done))
}
