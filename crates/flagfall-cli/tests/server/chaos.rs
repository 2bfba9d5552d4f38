//! Chaos (issue 19): bots play a few games while the server is killed with SIGKILL at
//! random moments and restarted. Every acknowledged event is stored exactly once, every
//! stored script replays to the state its clients last saw, and no clock gives back
//! time charged before a crash. Bounded: about 15 s.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::support::*;

const PLIES: [&str; 20] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5",
    "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7",
];

/// What the bots of one game know: the acknowledged plies (id → n) and the last
/// acknowledged event's clock with when it arrived.
#[derive(Default)]
struct Seen {
    acked: HashMap<String, u64>,
    last_clock: Option<(Value, Instant)>,
}

/// A small deterministic generator (the seed is printed, so a failure can be replayed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Play game `id` from where it stands until the plies run out or the server dies
/// (a panic in this task when the socket closes ends the bot, nothing else).
async fn bot(
    api_addr: std::net::SocketAddr,
    g: flagfall_protocol::Created,
    seen: Arc<Mutex<Seen>>,
    seed: u64,
) {
    let api = Api { addr: api_addr };
    let mut white = api.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = api.connect(&g.id, Some(&g.tokens.black)).await;
    let mut rng = Lcg(seed);
    loop {
        let next = seen.lock().unwrap().acked.len();
        let Some(mv) = PLIES.get(next) else { break };
        tokio::time::sleep(Duration::from_millis(rng.below(400))).await;
        let side = if next.is_multiple_of(2) {
            &mut white
        } else {
            &mut black
        };
        let id = format!("p{next}");
        side.send(json!({"move": mv, "press": true, "id": id}))
            .await;
        let ev = side.until(|m| m["id"] == id.as_str()).await;
        assert_eq!(ev["type"], "event", "{ev}");
        let mut s = seen.lock().unwrap();
        s.acked.insert(id, ev["n"].as_u64().unwrap());
        s.last_clock = Some((ev["clock"].clone(), Instant::now()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_moments_loses_doubles_and_gives_back_nothing() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("chaos seed {seed}");
    let mut rng = Lcg(seed);
    let mut proc = Process::start(None).await;
    let games: Vec<_> = {
        let mut v = Vec::new();
        for _ in 0..3 {
            v.push(
                proc.create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
                    .await,
            );
        }
        v
    };
    let seen: Vec<Arc<Mutex<Seen>>> = games.iter().map(|_| Arc::default()).collect();
    for round in 0..5 {
        let bots: Vec<_> = games
            .iter()
            .zip(&seen)
            .enumerate()
            .map(|(k, (g, s))| {
                tokio::spawn(bot(
                    proc.addr,
                    g.clone(),
                    s.clone(),
                    seed ^ (round * 7 + k as u64),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(600 + rng.below(1400))).await;
        proc.kill9();
        let killed = Instant::now();
        for b in bots {
            let _ = b.await;
        }
        tokio::time::sleep(Duration::from_millis(rng.below(800))).await;
        proc = Process::start(Some(proc.into_db())).await;
        for (g, s) in games.iter().zip(&seen) {
            let read_at = Instant::now();
            let state = proc.state(&g.id).await;
            let acked = s.lock().unwrap().acked.clone();
            check_stored_once(&proc, &g.id, &acked).await;
            // No clock gives back time charged before the crash: the running side has at
            // most what it had at the last event, less the time until the kill, plus
            // the heartbeat's period and some slack.
            if let Some((clock, at)) = &s.lock().unwrap().last_clock
                && let Some(side) = clock["running"].as_str()
                && state["result"] == "*"
            {
                let key = format!("{side}_ms");
                let then = clock[&key].as_i64().unwrap();
                let thought = killed.duration_since(*at).as_millis() as i64;
                let now = state["clock"][&key].as_i64().unwrap();
                assert!(
                    now <= then - thought + 1_000,
                    "round {round}, game {}: {side} had {then} ms, thought {thought} ms before the kill, has {now} ms after the restart",
                    g.id
                );
            }
            // The next round's reference: the clock as the restarted server reads it (a
            // bot may acknowledge nothing before the next kill).
            s.lock().unwrap().last_clock = Some((state["clock"].clone(), read_at));
        }
    }
    // Play on to the end of the plies, then compare what the clients saw.
    for (g, s) in games.iter().zip(&seen) {
        bot(proc.addr, g.clone(), s.clone(), seed).await;
        let acked = s.lock().unwrap().acked.clone();
        check_stored_once(&proc, &g.id, &acked).await;
        let state = proc.state(&g.id).await;
        let watcher = proc.connect(&g.id, None).await;
        watcher.assert_view_is(&state);
        proc.assert_replay_matches(&g.id).await;
        assert_eq!(state["n"].as_u64(), Some(PLIES.len() as u64), "{state}");
    }
    proc.terminate().await;
}

/// Every acknowledged id is stored once, at the number it was acknowledged with, and no
/// id is stored twice.
async fn check_stored_once(api: &Api, id: &str, acked: &HashMap<String, u64>) {
    let script = api.get_text(&format!("/api/games/{id}/script")).await;
    let events: Vec<Value> = script
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The stored plies are the first plies, in order, each once.
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["move"], PLIES[i], "game {id}: event {}: {script}", i + 1);
    }
    for (cid, n) in acked {
        let i: usize = cid[1..].parse().unwrap();
        assert_eq!(*n as usize, i + 1, "game {id}: {cid} acknowledged as {n}");
        assert!(
            i < events.len(),
            "game {id}: acknowledged {cid} lost: {script}"
        );
    }
}
