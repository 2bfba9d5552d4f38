//! Open challenges (docs/protocol.md, "Challenges"): a game offered in the lobby that
//! anyone may accept.
//!
//! The creator gets a secret. The secret never reaches the database (only its SHA-256),
//! and the creator's player token and the director token of the game are derived from it
//! (SHA-256 of a label and the secret), so the database keeps only their hashes too, and
//! only the creator can learn the tokens: `GET /api/challenges/{id}?secret=S` answers
//! with them once the challenge was accepted. Accepting creates the game through the
//! same setup validation as `POST /api/games`, in the transaction that marks the
//! challenge accepted (a conditional UPDATE: of two concurrent accepts, one wins and the
//! other gets `409`).

use std::sync::Arc;

use flagfall_protocol::{CreateGame, MAX_BODY_BYTES, SetupError};
use flagfall_store::{ChallengeRow, ChallengeStatus, NewChallenge, NewGame};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::{ServerError, Shared, now_unix_ms, random_hex, token_hash};

/// The longest player name a challenge takes, in characters (the one limit of names).
pub const MAX_NAME_CHARS: usize = flagfall_protocol::MAX_NAME_CHARS;

/// The creator's colour choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

impl ColorChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            ColorChoice::White => "white",
            ColorChoice::Black => "black",
            ColorChoice::Random => "random",
        }
    }

    fn parse(s: &str) -> Option<ColorChoice> {
        match s {
            "white" => Some(ColorChoice::White),
            "black" => Some(ColorChoice::Black),
            "random" => Some(ColorChoice::Random),
            _ => None,
        }
    }
}

/// A `POST /api/challenges` body: the `POST /api/games` fields plus `color` and `name`.
#[derive(Debug, Clone)]
pub struct ChallengeBody {
    pub game: CreateGame,
    pub color: ColorChoice,
    pub name: Option<String>,
}

fn bad(field: &str, message: impl Into<String>) -> SetupError {
    SetupError {
        field: field.to_string(),
        message: message.into(),
    }
}

/// A name field: a string of at most [`MAX_NAME_CHARS`] characters, trimmed; blank is
/// none.
fn name_field(v: Option<Value>, field: &str) -> Result<Option<String>, SetupError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let t = s.trim();
            flagfall_protocol::check_name(field, t)?;
            Ok((!t.is_empty()).then(|| t.to_string()))
        }
        Some(_) => Err(bad(field, "expected a string")),
    }
}

fn object(body: &[u8]) -> Result<Map<String, Value>, SetupError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(bad(
            "(body)",
            format!(
                "{} bytes, more than the {MAX_BODY_BYTES} allowed",
                body.len()
            ),
        ));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad("(json)", "expected a JSON object")),
        Err(e) => Err(bad("(json)", format!("not valid JSON: {e}"))),
    }
}

impl ChallengeBody {
    /// Parse and validate a body (the game's setup through the game-script parser),
    /// naming the field that is wrong.
    pub fn from_json(body: &[u8]) -> Result<ChallengeBody, SetupError> {
        let mut map = object(body)?;
        let color = match map.remove("color") {
            None => ColorChoice::Random,
            Some(Value::String(s)) => ColorChoice::parse(&s).ok_or_else(|| {
                bad(
                    "color",
                    format!("{s:?}: expected \"white\", \"black\" or \"random\""),
                )
            })?,
            Some(_) => return Err(bad("color", "expected \"white\", \"black\" or \"random\"")),
        };
        let name = name_field(map.remove("name"), "name")?;
        let rest = Value::Object(map).to_string();
        let game = CreateGame::from_json(rest.as_bytes())?;
        game.setup_line()?;
        Ok(ChallengeBody { game, color, name })
    }
}

/// The body of `POST /api/challenges/{id}/accept`: optional, `{"name"?: "..."}`.
pub fn accept_name(body: &[u8]) -> Result<Option<String>, SetupError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let mut map = object(body)?;
    let name = name_field(map.remove("name"), "name")?;
    if let Some(k) = map.keys().next() {
        return Err(bad(k, "unknown field (an accept body has only `name`)"));
    }
    Ok(name)
}

/// A token derived from the creator's secret for `role` (`player`, `director`).
fn derived_token(secret: &str, role: &str) -> String {
    let digest = Sha256::digest(format!("flagfall challenge {role}\0{secret}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The answer to `POST /api/challenges` (201).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Created {
    pub id: String,
    /// The creator's secret: to cancel, and to learn the game once accepted.
    pub secret: String,
    /// The page the creator waits on.
    pub url: String,
}

/// A challenge as the lobby lists it (no secrets).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Listed {
    pub id: String,
    pub status: String,
    /// The creator's colour choice.
    pub color: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub rules: String,
    pub time_control: String,
    pub mode: String,
    pub created_ms: i64,
}

/// The creator's game, once the challenge is accepted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreatorGame {
    pub id: String,
    /// The creator's colour in it.
    pub color: String,
    pub token: String,
    pub url: String,
    pub director_url: String,
}

/// `GET /api/challenges/{id}`: the listing, and with the right secret the creator's game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    #[serde(flatten)]
    pub challenge: Listed,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<CreatorGame>,
}

/// The answer to an accept (201): the accepter's side of the new game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Accepted {
    pub game_id: String,
    pub color: String,
    pub token: String,
    pub url: String,
}

/// Why a challenge action did not happen.
#[derive(Debug)]
pub enum Refusal {
    NotFound,
    /// The secret is not this challenge's.
    Forbidden,
    /// The challenge is no longer open: accepted, cancelled or expired.
    NotOpen(&'static str),
    Bad(SetupError),
}

/// How long a challenge stays open without being accepted: half an hour, then the lobby
/// no longer lists it and it cannot be accepted (its creator has most likely left; a
/// new one takes a click). Nothing is deleted: the row stays, read as `expired`.
pub const CHALLENGE_TTL_MS: i64 = 30 * 60 * 1000;

/// The status of a stored challenge at `now_ms`: its stored status, except that an open
/// challenge older than [`CHALLENGE_TTL_MS`] is `expired`.
pub fn status_at(row: &ChallengeRow, now_ms: i64) -> &'static str {
    if row.status == ChallengeStatus::Open
        && now_ms.saturating_sub(row.challenge.created_ms) > CHALLENGE_TTL_MS
    {
        "expired"
    } else {
        row.status.as_str()
    }
}

/// The listing of a stored challenge at `now_ms`.
pub fn listed(row: &ChallengeRow, now_ms: i64) -> Listed {
    let body: Value = serde_json::from_str(&row.challenge.body).unwrap_or(Value::Null);
    let text = |k: &str| {
        body.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    Listed {
        id: row.challenge.id.clone(),
        status: status_at(row, now_ms).to_string(),
        color: row.challenge.color.clone(),
        name: row.challenge.name.clone(),
        rules: text("rules"),
        time_control: text("time_control"),
        mode: body
            .get("mode")
            .and_then(Value::as_str)
            .unwrap_or("otb")
            .to_string(),
        created_ms: row.challenge.created_ms,
    }
}

impl Shared {
    /// Store a new open challenge.
    pub async fn create_challenge(&self, body: &ChallengeBody) -> Result<Created, ServerError> {
        let id = random_hex(12)?;
        let secret = random_hex(32)?;
        let row = NewChallenge {
            id: id.clone(),
            body: serde_json::to_string(&body.game)
                .map_err(|e| ServerError::Corrupt(e.to_string()))?,
            color: body.color.as_str().to_string(),
            name: body.name.clone(),
            secret_hash: token_hash(&secret),
            token_hash: token_hash(&derived_token(&secret, "player")),
            director_hash: token_hash(&derived_token(&secret, "director")),
            created_ms: now_unix_ms(),
        };
        self.store.create_challenge(&row).await?;
        let url = format!("/challenge/{id}?secret={secret}");
        Ok(Created { id, secret, url })
    }

    /// What `GET /api/challenges/{id}` shows: with the creator's secret, the game once
    /// accepted.
    pub async fn seen_challenge(
        &self,
        id: &str,
        secret: Option<&str>,
    ) -> Result<Result<Seen, Refusal>, ServerError> {
        let Some(row) = self.store.challenge(id).await? else {
            return Ok(Err(Refusal::NotFound));
        };
        let mut seen = Seen {
            challenge: listed(&row, now_unix_ms()),
            game: None,
        };
        if let Some(secret) = secret {
            if token_hash(secret) != row.challenge.secret_hash {
                return Ok(Err(Refusal::Forbidden));
            }
            if let (Some(game_id), Some(color)) = (&row.game_id, &row.creator_color) {
                let token = derived_token(secret, "player");
                let director = derived_token(secret, "director");
                seen.game = Some(CreatorGame {
                    url: format!("/play/{game_id}?token={token}"),
                    director_url: format!("/direct/{game_id}?token={director}"),
                    id: game_id.clone(),
                    color: color.clone(),
                    token,
                });
            }
        }
        Ok(Ok(seen))
    }

    /// Accept challenge `id` as `name`: create its game and answer with the accepter's
    /// token. Of two concurrent accepts one wins; the other is refused `NotOpen`.
    pub async fn accept_challenge(
        self: &Arc<Self>,
        id: &str,
        name: Option<String>,
    ) -> Result<Result<Accepted, Refusal>, ServerError> {
        let Some(row) = self.store.challenge(id).await? else {
            return Ok(Err(Refusal::NotFound));
        };
        let status = status_at(&row, now_unix_ms());
        if status != "open" {
            return Ok(Err(Refusal::NotOpen(status)));
        }
        let mut game: CreateGame = serde_json::from_str(&row.challenge.body)
            .map_err(|e| ServerError::Corrupt(format!("challenge {id}: body: {e}")))?;
        let creator_white = match ColorChoice::parse(&row.challenge.color) {
            Some(ColorChoice::White) => true,
            Some(ColorChoice::Black) => false,
            _ => {
                let mut b = [0u8; 1];
                getrandom::fill(&mut b).map_err(|e| ServerError::Random(e.to_string()))?;
                b[0] & 1 == 0
            }
        };
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
        let (line, _) = match game.setup_line() {
            Ok(x) => x,
            Err(e) => return Ok(Err(Refusal::Bad(e))),
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
            mode: game.mode().as_str().to_string(),
            token_white,
            token_black,
            token_director: row.challenge.director_hash.clone(),
            created_ms: now_unix_ms(),
            practice: None,
        };
        let creator_color = if creator_white { "white" } else { "black" };
        if !self.store.accept_challenge(id, creator_color, &new).await? {
            return Ok(Err(Refusal::NotOpen("accepted")));
        }
        self.start_new(&new, game.mode())?;
        Ok(Ok(Accepted {
            url: format!("/play/{game_id}?token={token}"),
            game_id,
            color: if creator_white { "black" } else { "white" }.to_string(),
            token,
        }))
    }

    /// Cancel an open challenge with the creator's secret.
    pub async fn cancel_challenge(
        &self,
        id: &str,
        secret: &str,
    ) -> Result<Result<(), Refusal>, ServerError> {
        let Some(row) = self.store.challenge(id).await? else {
            return Ok(Err(Refusal::NotFound));
        };
        if token_hash(secret) != row.challenge.secret_hash {
            return Ok(Err(Refusal::Forbidden));
        }
        if self
            .store
            .cancel_challenge(id, &row.challenge.secret_hash)
            .await?
        {
            Ok(Ok(()))
        } else {
            Ok(Err(Refusal::NotOpen(row.status.as_str())))
        }
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
                color: "white".into(),
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
        assert_eq!(status_at(&open, t0), "open");
        assert_eq!(status_at(&open, t0 + CHALLENGE_TTL_MS), "open");
        assert_eq!(status_at(&open, t0 + CHALLENGE_TTL_MS + 1), "expired");
        assert_eq!(listed(&open, t0 + CHALLENGE_TTL_MS + 1).status, "expired");
        let accepted = row(ChallengeStatus::Accepted, t0);
        assert_eq!(status_at(&accepted, t0 + 10 * CHALLENGE_TTL_MS), "accepted");
        let cancelled = row(ChallengeStatus::Cancelled, t0);
        assert_eq!(
            status_at(&cancelled, t0 + 10 * CHALLENGE_TTL_MS),
            "cancelled"
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
