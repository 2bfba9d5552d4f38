//! Stopping the server (issue 33 item 7): a stop while games are played, with their
//! sockets open and an evening loaded, loses no acknowledged move, closes every socket
//! with 1001 ("going away") and returns without waiting out any of its deadlines.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::mpsc;

use crate::USCF;
use crate::evening::Evening;
use crate::support::*;

/// Knights out and back: no ruleset of these games ends one on a repetition by itself.
const PLIES: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

/// What one game's players saw: the `n` and move of every action acknowledged, in
/// order, the close code of each socket (white's, black's), and which of them had a
/// frame on the way when the server closed.
struct Played {
    acked: Vec<(u64, &'static str)>,
    closes: [u16; 2],
    sending: usize,
}

/// Play until the server closes the sockets (telling `under_way` once two moves are
/// acknowledged), each move sent once its predecessor's event came back.
async fn play(mut white: Client, mut black: Client, under_way: mpsc::Sender<()>) -> Played {
    let mut acked = Vec::new();
    let mut closes = [None, None];
    let mut sending = 0;
    for ply in 0.. {
        let side = ply % 2;
        sending = side;
        let c = if side == 0 { &mut white } else { &mut black };
        let mv = PLIES[ply % PLIES.len()];
        let id = format!("s{ply}");
        let frame = json!({"move": mv, "press": true, "id": id}).to_string();
        if !c.try_send_text(&frame).await {
            break;
        }
        let answer = loop {
            match c.next_or_close().await {
                Ok(m) if m["id"] == id.as_str() => break Ok(m),
                Ok(_) => continue,
                Err(close) => break Err(close),
            }
        };
        match answer {
            Ok(m) => {
                assert_eq!(m["type"], "event", "{m}");
                acked.push((m["n"].as_u64().expect("n"), mv));
            }
            Err((code, _)) => {
                closes[side] = Some(code);
                break;
            }
        }
        if acked.len() == 2 {
            let _ = under_way.send(()).await;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for (i, c) in [&mut white, &mut black].into_iter().enumerate() {
        if closes[i].is_none() {
            closes[i] = Some(c.until_close().await.0);
        }
    }
    Played {
        acked,
        closes: closes.map(|c| c.expect("closed")),
        sending,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_while_games_are_played_loses_no_acknowledged_move_and_waits_out_no_deadline() {
    let srv = Server::start().await;
    // An evening's task holds the server's shared state until the stop lets it go.
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Club blitz","format":"double-round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","mode":"otb","date":"2026-11-26"}),
    )
    .await;
    let (tx, mut under_way) = mpsc::channel(8);
    let mut games = Vec::new();
    for _ in 0..4 {
        let g = srv.create(USCF).await;
        let white = srv.connect(&g.id, Some(&g.tokens.white)).await;
        let black = srv.connect(&g.id, Some(&g.tokens.black)).await;
        games.push((g.id, tokio::spawn(play(white, black, tx.clone()))));
    }
    for _ in 0..games.len() {
        under_way.recv().await.expect("every game under way");
    }
    let stopping = Instant::now();
    let db = srv.stop_keeping_db().await;
    let took = stopping.elapsed();
    // Every task ends once told: no deadline (each is at least SHUTDOWN_WRITER) passes.
    assert!(
        took < flagfall_server::SHUTDOWN_WRITER,
        "the stop took {took:?}, as long as one of its deadlines"
    );
    let srv = Server::start_on(db).await;
    for (id, game) in games {
        let Played {
            acked,
            closes,
            sending,
        } = game.await.expect("the players' task");
        // Going away; a socket whose frame was on the way as the server closed may see
        // the connection reset (1006) before the close frame.
        assert_eq!(closes[1 - sending], 1001, "game {id}: going away");
        assert!(
            matches!(closes[sending], 1001 | 1006),
            "game {id}: {closes:?}"
        );
        assert!(acked.len() >= 2, "game {id}: {acked:?}");
        let state = srv.state(&id).await;
        let moves = state["moves"].as_array().expect("moves");
        for (n, mv) in &acked {
            assert_eq!(
                moves.get(*n as usize - 1).map(|m| m["uci"].clone()),
                Some(json!(mv)),
                "game {id}: acknowledged event {n} ({mv}) not stored: {state}"
            );
        }
        assert!(state["n"].as_u64() >= acked.last().map(|a| a.0));
    }
    let summary = srv.get_json(&ev.path("")).await;
    assert_eq!(summary["name"], "Club blitz", "{summary}");
    srv.stop().await;
}
