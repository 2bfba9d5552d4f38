//! Open challenges (docs/protocol.md, "Challenges"): a game offered in the lobby that
//! anyone may accept.
//!
//! The creator gets a secret. The secret never reaches the database (only its SHA-256),
//! and the creator's player token is derived from it (SHA-256 of a label and the
//! secret), so the database keeps only its hash too, and only the creator can learn the
//! token: `GET /api/challenges/{id}?secret=S` answers with it once the challenge was
//! accepted. A game made from a challenge has no director: no token acts as one (a
//! player's token never carries another role), and the arbiter applies its own
//! recommendations as for `"director": false`. Accepting creates the game through the
//! same setup validation as `POST /api/games`, in the transaction that marks the
//! challenge accepted (a conditional UPDATE: of two concurrent accepts, one wins and the
//! other gets `409`).

use std::sync::Arc;

pub use flagfall_protocol::challenge::*;
use flagfall_protocol::{ColorName, CreateGame, SetupError};
use flagfall_store::{ChallengeRow, ChallengeStatus, NewChallenge, NewGame};
use sha2::{Digest, Sha256};

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::api::{error, server_error};
use crate::{ServerError, Shared, now_unix_ms, random_hex, token_hash};

/// What a game without a director stores as its director token's hash: no SHA-256 in
/// hex equals it, so no token acts as the director.
pub const NO_DIRECTOR: &str = "none";

/// A token derived from the creator's secret for `role` (`player`).
fn derived_token(secret: &str, role: &str) -> String {
    let digest = Sha256::digest(format!("flagfall challenge {role}\0{secret}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a challenge action did not happen.
#[derive(Debug)]
pub enum Refusal {
    NotFound,
    /// The secret is not this challenge's.
    Forbidden,
    /// The challenge is no longer open: accepted, cancelled or expired.
    NotOpen(Standing),
    Bad(SetupError),
    /// The server failed (500).
    Failed(ServerError),
}

impl From<ServerError> for Refusal {
    fn from(e: ServerError) -> Refusal {
        Refusal::Failed(e)
    }
}

impl From<flagfall_store::StoreError> for Refusal {
    fn from(e: flagfall_store::StoreError) -> Refusal {
        Refusal::Failed(e.into())
    }
}

/// How long a challenge stays open without being accepted: half an hour, then the lobby
/// no longer lists it and it cannot be accepted (its creator has most likely left; a
/// new one takes a click). Nothing is deleted: the row stays, read as `expired`.
pub const CHALLENGE_TTL_MS: i64 = 30 * 60 * 1000;

/// The status of a stored challenge at `now_ms`: its stored status, except that an open
/// challenge older than [`CHALLENGE_TTL_MS`] is `expired`.
pub fn status_at(row: &ChallengeRow, now_ms: i64) -> Standing {
    if row.status == ChallengeStatus::Open
        && now_ms.saturating_sub(row.challenge.created_ms) > CHALLENGE_TTL_MS
    {
        Standing::Expired
    } else {
        stored(row.status)
    }
}

/// A stored status as the lobby shows it.
fn stored(status: ChallengeStatus) -> Standing {
    match status {
        ChallengeStatus::Open => Standing::Open,
        ChallengeStatus::Accepted => Standing::Accepted,
        ChallengeStatus::Cancelled => Standing::Cancelled,
    }
}

/// The game a stored challenge's body asks for; a body that does not read is the
/// store's damage, named.
fn stored_body(row: &ChallengeRow) -> Result<CreateGame, ServerError> {
    serde_json::from_str(&row.challenge.body)
        .map_err(|e| ServerError::Corrupt(format!("challenge {}: body: {e}", row.challenge.id)))
}

/// The listing of a stored challenge at `now_ms`.
pub fn listed(row: &ChallengeRow, now_ms: i64) -> Result<Listed, ServerError> {
    let game = stored_body(row)?;
    Ok(Listed {
        id: row.challenge.id.clone(),
        status: status_at(row, now_ms),
        color: row.challenge.color,
        name: row.challenge.name.clone(),
        mode: game.mode(),
        rules: game.rules,
        time_control: game.time_control,
        created_ms: row.challenge.created_ms,
    })
}

impl Shared {
    /// Store a new open challenge.
    pub async fn create_challenge(&self, body: &ChallengeBody) -> Result<Created, ServerError> {
        let id = random_hex(12)?;
        let secret = random_hex(32)?;
        let row = NewChallenge {
            id: id.clone(),
            body: serde_json::to_string(&body.game)
                .map_err(ServerError::serialise("a challenge's game"))?,
            color: body.color,
            name: body.name.clone(),
            secret_hash: token_hash(&secret),
            token_hash: token_hash(&derived_token(&secret, "player")),
            director_hash: NO_DIRECTOR.to_string(),
            created_ms: now_unix_ms(),
        };
        self.store.create_challenge(&row).await?;
        let url = format!("/challenge/{id}?secret={secret}");
        Ok(Created { id, secret, url })
    }

    /// What `GET /api/challenges/{id}` shows: with the creator's secret, the game once
    /// accepted.
    pub async fn seen_challenge(&self, id: &str, secret: Option<&str>) -> Result<Seen, Refusal> {
        let Some(row) = self.store.challenge(id).await? else {
            return Err(Refusal::NotFound);
        };
        let mut seen = Seen {
            challenge: listed(&row, now_unix_ms())?,
            game: None,
        };
        if let Some(secret) = secret {
            if token_hash(secret) != row.challenge.secret_hash {
                return Err(Refusal::Forbidden);
            }
            if let (Some(game_id), Some(color)) = (&row.game_id, row.creator_color) {
                let token = derived_token(secret, "player");
                seen.game = Some(CreatorGame {
                    url: format!("/play/{game_id}?token={token}"),
                    id: game_id.clone(),
                    color,
                    token,
                });
            }
        }
        Ok(seen)
    }

    /// Accept challenge `id` as `name`: create its game and answer with the accepter's
    /// token. Of two concurrent accepts one wins; the other is refused `NotOpen`.
    pub async fn accept_challenge(
        self: &Arc<Self>,
        id: &str,
        name: Option<String>,
    ) -> Result<Accepted, Refusal> {
        let Some(row) = self.store.challenge(id).await? else {
            return Err(Refusal::NotFound);
        };
        let status = status_at(&row, now_unix_ms());
        if status != Standing::Open {
            return Err(Refusal::NotOpen(status));
        }
        let mut game = stored_body(&row)?;
        let creator_color = match row.challenge.color {
            ColorChoice::White => ColorName::White,
            ColorChoice::Black => ColorName::Black,
            ColorChoice::Random => {
                let mut b = [0u8; 1];
                getrandom::fill(&mut b).map_err(|e| ServerError::Random(e.to_string()))?;
                if b[0] & 1 == 0 {
                    ColorName::White
                } else {
                    ColorName::Black
                }
            }
        };
        let creator_white = creator_color == ColorName::White;
        let (creator_name, accepter_name) = (row.challenge.name.clone(), name);
        let (white, black) = if creator_white {
            (creator_name, accepter_name)
        } else {
            (accepter_name, creator_name)
        };
        if white.is_some() {
            game.white = white;
        }
        if black.is_some() {
            game.black = black;
        }
        // No director (challenges stored before this rule may not say so).
        game.director = Some(false);
        let (line, _) = match game.setup_line() {
            Ok(x) => x,
            Err(e) => return Err(Refusal::Bad(e)),
        };
        let game_id = random_hex(12)?;
        let token = random_hex(32)?;
        let (token_white, token_black) = if creator_white {
            (row.challenge.token_hash.clone(), token_hash(&token))
        } else {
            (token_hash(&token), row.challenge.token_hash.clone())
        };
        let new = NewGame {
            id: game_id.clone(),
            setup: line,
            mode: game.mode(),
            token_white,
            token_black,
            token_director: NO_DIRECTOR.to_string(),
            created_ms: now_unix_ms(),
            practice: None,
        };
        if !self.store.accept_challenge(id, creator_color, &new).await? {
            return Err(Refusal::NotOpen(Standing::Accepted));
        }
        self.start_new(&new, game.mode()).await?;
        Ok(Accepted {
            url: format!("/play/{game_id}?token={token}"),
            game_id,
            color: creator_color.other(),
            token,
        })
    }

    /// Cancel an open challenge with the creator's secret.
    pub async fn cancel_challenge(&self, id: &str, secret: &str) -> Result<(), Refusal> {
        let Some(row) = self.store.challenge(id).await? else {
            return Err(Refusal::NotFound);
        };
        if token_hash(secret) != row.challenge.secret_hash {
            return Err(Refusal::Forbidden);
        }
        if self
            .store
            .cancel_challenge(id, &row.challenge.secret_hash)
            .await?
        {
            Ok(())
        } else {
            Err(Refusal::NotOpen(stored(row.status)))
        }
    }
}

// The routes of the challenges (`crate::http` routes them).

/// A challenge refused: 404, 403, 410, 409 or 400, with what is wrong (or 500).
fn challenge_refusal(id: &str, r: Refusal) -> Response {
    match r {
        Refusal::NotFound => error(StatusCode::NOT_FOUND, format!("no challenge {id:?}")),
        Refusal::Forbidden => error(
            StatusCode::FORBIDDEN,
            format!("the secret is not challenge {id}'s"),
        ),
        Refusal::NotOpen(Standing::Expired) => error(
            StatusCode::GONE,
            format!(
                "challenge {id} expired: it waited {} minutes without being accepted",
                CHALLENGE_TTL_MS / 60_000
            ),
        ),
        Refusal::NotOpen(status) => error(
            StatusCode::CONFLICT,
            format!("challenge {id} is no longer open ({status})"),
        ),
        Refusal::Bad(e) => error(StatusCode::BAD_REQUEST, e.to_string()),
        Refusal::Failed(e) => server_error(e),
    }
}

/// `POST /api/challenges`: an open challenge (the `POST /api/games` body plus `color`
/// and `name`).
pub(crate) async fn create_challenge(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let body = match ChallengeBody::from_json(&body) {
        Ok(b) => b,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    match s.create_challenge(&body).await {
        Ok(created) => (StatusCode::CREATED, axum::Json(created)).into_response(),
        Err(e) => server_error(e),
    }
}

/// `GET /api/challenges`: the open challenges, newest first (no secrets); expired ones
/// are left out.
pub(crate) async fn list_challenges(State(s): State<Arc<Shared>>) -> Response {
    let now = crate::now_unix_ms();
    let since = now - CHALLENGE_TTL_MS;
    match s.store.open_challenges(since, 100).await {
        // A challenge whose stored body does not read is logged and left out: one
        // damaged row does not take the lobby down.
        Ok(rows) => {
            let listed: Vec<_> = rows
                .iter()
                .filter_map(|r| match listed(r, now) {
                    Ok(l) => Some(l),
                    Err(e) => {
                        tracing::warn!(challenge = %r.challenge.id, error = %e, "a damaged challenge left out of the lobby");
                        None
                    }
                })
                .filter(|l| l.status == Standing::Open)
                .collect();
            axum::Json(listed).into_response()
        }
        Err(e) => server_error(e.into()),
    }
}

#[derive(Deserialize)]
pub(crate) struct SecretQuery {
    secret: Option<String>,
}

/// `GET /api/challenges/{id}?secret=S`: the challenge; with its secret, the creator's
/// game once accepted.
pub(crate) async fn get_challenge(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<SecretQuery>,
) -> Response {
    match s.seen_challenge(&id, q.secret.as_deref()).await {
        Ok(seen) => axum::Json(seen).into_response(),
        Err(r) => challenge_refusal(&id, r),
    }
}

/// `POST /api/challenges/{id}/accept` with an optional `{"name"}`: the game is created.
pub(crate) async fn accept_challenge(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let name = match accept_name(&body) {
        Ok(n) => n,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    match s.accept_challenge(&id, name).await {
        Ok(accepted) => (StatusCode::CREATED, axum::Json(accepted)).into_response(),
        Err(r) => challenge_refusal(&id, r),
    }
}

/// `DELETE /api/challenges/{id}?secret=S`: the creator cancels an open challenge.
pub(crate) async fn cancel_challenge(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Query<SecretQuery>,
) -> Response {
    let Some(secret) = q.secret else {
        return error(
            StatusCode::BAD_REQUEST,
            "field `secret`: missing: the creator's secret",
        );
    };
    match s.cancel_challenge(&id, &secret).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(r) => challenge_refusal(&id, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(status: ChallengeStatus, created_ms: i64) -> ChallengeRow {
        ChallengeRow {
            challenge: NewChallenge {
                id: "c".into(),
                body: r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#.into(),
                color: ColorChoice::White,
                name: None,
                secret_hash: "s".into(),
                token_hash: "t".into(),
                director_hash: "d".into(),
                created_ms,
            },
            status,
            game_id: None,
            creator_color: None,
        }
    }

    #[test]
    fn an_open_challenge_expires_after_its_time_and_others_keep_their_status() {
        let t0 = 1_000_000;
        let open = row(ChallengeStatus::Open, t0);
        assert_eq!(status_at(&open, t0), Standing::Open);
        assert_eq!(status_at(&open, t0 + CHALLENGE_TTL_MS), Standing::Open);
        assert_eq!(
            status_at(&open, t0 + CHALLENGE_TTL_MS + 1),
            Standing::Expired
        );
        assert_eq!(
            listed(&open, t0 + CHALLENGE_TTL_MS + 1).unwrap().status,
            Standing::Expired
        );
        let accepted = row(ChallengeStatus::Accepted, t0);
        assert_eq!(
            status_at(&accepted, t0 + 10 * CHALLENGE_TTL_MS),
            Standing::Accepted
        );
        let cancelled = row(ChallengeStatus::Cancelled, t0);
        assert_eq!(
            status_at(&cancelled, t0 + 10 * CHALLENGE_TTL_MS),
            Standing::Cancelled
        );
    }

    #[test]
    fn bodies_name_the_wrong_field() {
        let ok = ChallengeBody::from_json(
            br#"{"rules":"uscf-2020","time_control":"G/5;d0","color":"black","name":" Ann "}"#,
        )
        .unwrap();
        assert_eq!(ok.color, ColorChoice::Black);
        assert_eq!(ok.name.as_deref(), Some("Ann"));
        let random =
            ChallengeBody::from_json(br#"{"rules":"fide-b3","time_control":"3+2"}"#).unwrap();
        assert_eq!(random.color, ColorChoice::Random);
        for (body, field) in [
            (
                &br#"{"rules":"uscf-2020","time_control":"G/5;d0","color":"green"}"#[..],
                "color",
            ),
            (
                br#"{"rules":"uscf-2020","time_control":"G/5;d0","color":1}"#,
                "color",
            ),
            (
                br#"{"rules":"uscf-2020","time_control":"G/5;d0","name":7}"#,
                "name",
            ),
            (
                br#"{"rules":"uscf-2020","time_control":"G/99"}"#,
                "time_control",
            ),
            (br#"{"rules":"nope","time_control":"G/5"}"#, "rules"),
            (
                br#"{"rules":"uscf-2020","time_control":"G/5","bogus":1}"#,
                "bogus",
            ),
            (br#"{"time_control":"G/5"}"#, "rules"),
            (br#"[1]"#, "(json)"),
            (br#"{"#, "(json)"),
        ] {
            let e = ChallengeBody::from_json(body).unwrap_err();
            assert_eq!(e.field, field, "{}: {e}", String::from_utf8_lossy(body));
        }
        let long = format!(
            r#"{{"rules":"uscf-2020","time_control":"G/5","name":"{}"}}"#,
            "n".repeat(65)
        );
        assert_eq!(
            ChallengeBody::from_json(long.as_bytes()).unwrap_err().field,
            "name"
        );
        assert_eq!(accept_name(b"").unwrap(), None);
        assert_eq!(
            accept_name(br#"{"name":"Bo"}"#).unwrap().as_deref(),
            Some("Bo")
        );
        assert_eq!(accept_name(br#"{"nom":"Bo"}"#).unwrap_err().field, "nom");
    }

    #[test]
    fn derived_tokens_differ_by_role_and_secret() {
        let a = derived_token("s1", "player");
        assert_eq!(a.len(), 64);
        assert_ne!(a, derived_token("s1", "director"));
        assert_ne!(a, derived_token("s2", "player"));
        assert_eq!(a, derived_token("s1", "player"));
    }
}
