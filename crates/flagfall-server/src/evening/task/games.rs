//! What follows a change: an automatic pairing, the round's server games, the players
//! entered with their links, the limits of an evening's size and of the games a
//! director starts.

use super::*;

impl Task {
    /// What follows a change, off the async workers: an automatic pairing and the
    /// round's server games ([`follow_up`]); the server's limits of an evening's size
    /// (when `before`, the sizes before an asked change, is given); the held games the
    /// change unlinked from the evening (`w.abort`). Then the new games are counted
    /// against the director's address ([`Task::charge`]): over it an automatic pairing
    /// waits for the director (the change that completed the round stands), and an
    /// asked pairing is refused (`429`).
    pub(super) async fn settle(
        &mut self,
        w: Work,
        origin: &Origin,
        asking: Option<IpAddr>,
        before: Option<Sizes>,
        held: &[String],
    ) -> Result<Work, Refusal> {
        let limits = self.shared.limits.clone();
        let held = held.to_vec();
        let o = origin.clone();
        let finish = move |mut w: Work, auto: bool| {
            follow_up(&mut w, &o, auto).map_err(Refusal::Event)?;
            if let Some(before) = &before {
                Sizes::of(&w.snap).check(before, &limits)?;
            }
            let linked: std::collections::HashSet<&str> = w
                .snap
                .event
                .round_list
                .iter()
                .flat_map(|r| r.boards.iter())
                .flat_map(|b| b.games.iter())
                .filter_map(|g| g.game.as_deref())
                .collect();
            let abort: Vec<String> = held
                .iter()
                .filter(|id| !linked.contains(id.as_str()))
                .cloned()
                .collect();
            w.abort = abort;
            Ok::<_, Refusal>(w)
        };
        let again = finish.clone();
        let auto = w.snap.settings.auto && w.snap.settings.play == Play::Server;
        let (done, fallback) = self
            .job(move || {
                let fallback = auto.then(|| w.clone());
                (finish(w, true), fallback)
            })
            .await?;
        let done = done?;
        match (self.charge(&done, asking), fallback) {
            (Ok(()), _) => Ok(done),
            (Err(refused), None) => Err(refused),
            (Err(refused), Some(w)) => {
                let Refusal::Later(l) = &refused else {
                    return Err(refused);
                };
                tracing::warn!(evening = %w.snap.id, reason = %l.message, "automatic pairing left to the director");
                let done = self.job(move || again(w, false)).await??;
                self.charge(&done, asking)?;
                Ok(done)
            }
        }
    }
}

/// What follows any change: in automatic mode the next round is paired once the
/// latest is complete; with server play, every pending game of the latest round
/// without a server game gets one.
pub(super) fn follow_up(w: &mut Work, origin: &Origin, auto: bool) -> Result<(), EventError> {
    let event = &w.snap.event;
    if auto
        && w.snap.settings.auto
        && event.round_list.last().is_some_and(|r| r.complete())
        && event.rounds_paired() < event.planned_rounds()
        && w.done
            .effects
            .iter()
            .any(|e| matches!(e, Effect::RoundComplete { .. }))
    {
        let auto = Origin::new("server (automatic pairing)", origin.at);
        // A round that cannot be paired (nobody checked in, ...) waits for the
        // director; the result that completed the round stands.
        let mut copy = Work::of(&w.snap);
        if copy.apply(Change::PairNext, &auto).is_ok() {
            w.snap = copy.snap;
            w.rows.extend(copy.rows);
            w.done.effects.extend(copy.done.effects);
            if let Some(e) = copy.unwritable {
                w.unwritable.get_or_insert(e);
            }
        }
    }
    if w.snap.settings.play == Play::Server {
        create_games(w, origin)?;
    }
    Ok(())
}

pub(super) fn create_games(w: &mut Work, origin: &Origin) -> Result<(), EventError> {
    let Some(round) = w.snap.event.round_list.last() else {
        return Ok(());
    };
    let r = round.number;
    let mut todo = Vec::new();
    for b in &round.boards {
        for (g, rec) in b.games.iter().enumerate() {
            if rec.game.is_none() && rec.result == RecordedResult::Pending {
                let (white, black) = b.players_of_game(g);
                todo.push((b.number, g as u32 + 1, white, black));
            }
        }
    }
    let event = &w.snap.event;
    let rules = event.game_ruleset();
    let tc = event.game_time_control();
    let director = w.snap.director_hash().unwrap_or_default().to_string();
    let inconsistent = |m: String| EventError::Inconsistent(m);
    let mut links = Vec::new();
    for (board, game, white, black) in todo {
        let name = |n: u32| {
            event
                .player(n)
                .map(|p| p.name.clone())
                .map_err(|e| inconsistent(e.to_string()))
        };
        let (wn, bn) = (name(white)?, name(black)?);
        // A name stored before the one-limit rule (up to 200 characters) is fitted to a
        // game's: the evening keeps it whole, the game shows it cut (else every pairing
        // of that evening failed).
        let body: CreateGame = serde_json::from_value(json!({
            "rules": rules, "time_control": tc,
            "white": flagfall_protocol::fit_name(&wn), "black": flagfall_protocol::fit_name(&bn),
            "mode": w.snap.settings.mode,
        }))
        .map_err(|e| inconsistent(format!("a game of round {r}: {e}")))?;
        let (line, _) = body
            .setup_line()
            .map_err(|e| inconsistent(format!("a game of round {r}: {e}")))?;
        let token = |n: &str| {
            w.snap
                .token_of(n)
                .map(str::to_string)
                .ok_or_else(|| inconsistent(format!("player {n:?} has no token")))
        };
        let id = random_hex(12).map_err(|e| inconsistent(e.to_string()))?;
        w.games.push(NewGame {
            id: id.clone(),
            setup: line,
            mode: w.snap.settings.mode,
            token_white: token(&wn)?,
            token_black: token(&bn)?,
            token_director: director.clone(),
            created_ms: now_unix_ms(),
            practice: None,
        });
        links.push(Change::LinkGame {
            round: r,
            board,
            game,
            id,
        });
    }
    let server = Origin::new("server", origin.at);
    for change in links {
        w.apply(change, &server)?;
    }
    Ok(())
}

/// Give player `name` their link: a token derived from the director's token
/// (`director_token`, when the director enters or renames them: the same name has the
/// same link, so its hash may be stored already) or a random one; the token is answered
/// once (`w.done`), only its hash stored.
pub(super) fn give_link(
    w: &mut Work,
    director_token: Option<&str>,
    name: String,
) -> Result<(), Refusal> {
    let token = match director_token {
        Some(d) => player_token(d, &w.snap.id, &name),
        None => random_hex(32).map_err(Refusal::Failed)?,
    };
    let hash = token_hash(&token);
    if w.snap.tokens.get(&hash) != Some(&Who::Player(name.clone())) {
        w.tokens.push(TournamentToken {
            token_hash: hash.clone(),
            tournament_id: w.snap.id.clone(),
            role: "player".into(),
            player: Some(name.clone()),
        });
    }
    w.snap.tokens.insert(hash, Who::Player(name.clone()));
    w.done.tokens.push((name, token));
    Ok(())
}

/// Enter `players` in `w` (each with a personal token: derived from the director's
/// token when the director enters them, random otherwise).
pub(super) fn add_players(
    w: &mut Work,
    players: Vec<NewPlayer>,
    check_in: bool,
    director_token: Option<String>,
    origin: &Origin,
) -> Result<(), Refusal> {
    for p in players {
        let name = p.name.trim().to_string();
        if w.snap.event.players.iter().any(|q| q.name == name) {
            return Err(Refusal::Event(EventError::NotAllowed(format!(
                "a player named {name:?} is in the event already (each player's link is tied to their name)"
            ))));
        }
        w.apply(
            Change::AddPlayer {
                player: p,
                check_in,
            },
            origin,
        )
        .map_err(|e| {
            // The name as far as a person reads it: a name too long is said so by the
            // error, not echoed whole.
            let shown: String = name.chars().take(40).collect();
            let more = if shown.len() < name.len() { "…" } else { "" };
            Refusal::Event(EventError::NotAllowed(format!(
                "player {shown:?}{more}: {e}"
            )))
        })?;
        give_link(w, director_token.as_deref(), name)?;
    }
    Ok(())
}
