//! Issue 34: docs/cluster.md's sample nginx configuration, as written there (the nodes'
//! addresses and the listening port put in), in front of the three nodes. A socket that
//! follows a `reconnect` lands on the node that owns its game, so its actions are not
//! routed; a socket naming a node that is down is served by a backup, never told again.
//! And a game's messages go on NATS only while a node other than its owner has a socket on
//! it.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::client::{Incoming, Ws};
use crate::infra::{Cluster, free_port};

/// The ```nginx block of docs/cluster.md that routes by `?node=`.
fn sample_config() -> String {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/cluster.md"
    ))
    .expect("read docs/cluster.md");
    doc.split("```nginx\n")
        .skip(1)
        .filter_map(|b| b.split_once("```").map(|(block, _)| block.to_string()))
        .find(|b| b.contains("map $arg_node"))
        .expect("docs/cluster.md has an nginx configuration with `map $arg_node`")
}

/// nginx (Debian's /usr/sbin/nginx, or one on PATH) with the sample configuration, in
/// the foreground, in a directory of its own.
struct Nginx {
    child: Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Nginx {
    async fn start(nodes: &[SocketAddr]) -> Nginx {
        let dir = tempfile::tempdir().expect("a directory for nginx");
        let port = free_port();
        let mut sample = sample_config();
        for (i, a) in nodes.iter().enumerate() {
            let placeholder = format!("10.0.0.1{}:8080", i + 1);
            assert!(sample.contains(&placeholder), "{placeholder} in the sample");
            sample = sample.replace(&placeholder, &a.to_string());
        }
        assert!(
            sample.contains("listen 443 ssl;"),
            "the sample listens on 443"
        );
        sample = sample.replace("listen 443 ssl;", &format!("listen 127.0.0.1:{port};"));
        let d = dir.path().display();
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{}}\nhttp {{\naccess_log off;\nclient_body_temp_path {d}/body;\n\
             proxy_temp_path {d}/proxy;\nfastcgi_temp_path {d}/fastcgi;\n\
             uwsgi_temp_path {d}/uwsgi;\nscgi_temp_path {d}/scgi;\n{sample}}}\n"
        );
        let path = dir.path().join("nginx.conf");
        std::fs::write(&path, conf).expect("write nginx.conf");
        let bin = ["/usr/sbin/nginx", "nginx"]
            .into_iter()
            .find(|b| {
                Command::new(b)
                    .arg("-v")
                    .stderr(Stdio::null())
                    .status()
                    .is_ok()
            })
            .expect("nginx (Debian's package) installed: scripts/test-cluster installs it");
        let child = Command::new(bin)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            let log = std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default();
            assert!(
                std::time::Instant::now() < deadline,
                "nginx did not listen on {addr}: {log}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Nginx {
            child,
            addr,
            _dir: dir,
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The sum of `flagfall_cluster_routed_total` over the nodes still running.
async fn routed(c: &mut Cluster) -> f64 {
    let mut sum = 0.0;
    for n in c.nodes.iter_mut() {
        if n.alive() {
            sum += n
                .metric("flagfall_cluster_routed_total")
                .await
                .unwrap_or(0.0);
        }
    }
    sum
}

/// The event answering action `id`, within 10 s.
async fn acknowledged(ws: &mut Ws, id: &str) -> Value {
    loop {
        match ws.recv(Duration::from_secs(10)).await {
            Incoming::Msg(m) if m["type"] == "event" && m["id"] == id => return m,
            Incoming::Msg(m) if m["type"] == "refused" || m["type"] == "error" => {
                panic!("{id} was answered {m}")
            }
            Incoming::Msg(_) => continue,
            other => panic!("no answer to {id}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL, nats-server and nginx: scripts/test-cluster runs it"]
async fn behind_the_sample_nginx_a_socket_lands_on_its_games_owner() {
    let mut c = Cluster::start().await;
    let nginx = Nginx::start(&c.dir.addrs).await;
    let (g, owner, o) = crate::game_and_owner(&c, 0).await;
    let wait = Duration::from_secs(10);
    // Sockets that name no node go round the nodes: those that land elsewhere than the
    // owner are told the owner, and closed with 4302.
    let (mut told, mut served) = (0, 0);
    for _ in 0..6 {
        let path = format!("/ws/games/{}?token={}&node=", g.id, g.white);
        let (mut ws, first) = Ws::open(nginx.addr, &path, wait).await.expect("a socket");
        match first {
            Incoming::Msg(m) if m["type"] == "state" => served += 1,
            Incoming::Msg(m) if m["type"] == "reconnect" => {
                assert_eq!(m["node"], owner.as_str(), "told the owner: {m}");
                match ws.recv(wait).await {
                    Incoming::Closed(code, _) => assert_eq!(code, 4302),
                    other => panic!("after a reconnect, {other:?} instead of a close"),
                }
                told += 1;
            }
            other => panic!("a socket's first message: {other:?}"),
        }
    }
    eprintln!("6 sockets naming no node: {told} told to reconnect to {owner}, {served} served");
    assert!(
        told >= 2,
        "round robin over three nodes lands elsewhere twice in six"
    );
    let redirected = {
        let mut sum = 0.0;
        for n in &c.nodes {
            sum += n
                .metric("flagfall_cluster_redirected_total")
                .await
                .unwrap_or(0.0);
        }
        sum
    };
    assert_eq!(redirected, told as f64, "each told socket counted once");
    // Told, the client names the owner: nginx sends it there, and its moves are not
    // routed (no node asks another anything from its connect to its acknowledgement).
    let before = routed(&mut c).await;
    for (token, mv, id) in [(&g.white, "e2e4", "w1"), (&g.black, "e7e5", "b1")] {
        let path = format!("/ws/games/{}?token={token}&node={owner}", g.id);
        let (mut ws, first) = Ws::open(nginx.addr, &path, wait).await.expect("a socket");
        assert!(
            matches!(&first, Incoming::Msg(m) if m["type"] == "state"),
            "a socket naming the owner gets the state: {first:?}"
        );
        ws.send(&json!({"move": mv, "press": true, "id": id}))
            .await
            .expect("send a move");
        acknowledged(&mut ws, id).await;
    }
    assert_eq!(
        routed(&mut c).await,
        before,
        "nothing routed on the owner's sockets"
    );
    // A socket naming a node that is down goes to a backup, which serves it (routed
    // when it is not the owner), and does not tell it again.
    let down = (o + 1) % c.nodes.len();
    c.dir.set_usable(down, false);
    c.nodes[down].kill9();
    let path = format!(
        "/ws/games/{}?token={}&node={}",
        g.id, g.white, c.dir.names[down]
    );
    let (mut ws, first) = Ws::open(nginx.addr, &path, wait).await.expect("a socket");
    assert!(
        matches!(&first, Incoming::Msg(m) if m["type"] == "state"),
        "a socket naming a node that is down is served by a backup: {first:?}"
    );
    ws.send(&json!({"move": "g1f3", "press": true, "id": "w2"}))
        .await
        .expect("send a move");
    acknowledged(&mut ws, "w2").await;
}

/// `flagfall_cluster_published_total` of each node, in the nodes' order.
async fn published(c: &Cluster) -> Vec<f64> {
    let mut out = Vec::new();
    for n in &c.nodes {
        out.push(
            n.metric("flagfall_cluster_published_total")
                .await
                .unwrap_or_else(|| panic!("{} has no flagfall_cluster_published_total", n.name)),
        );
    }
    out
}

/// The next event a socket gets, within 10 s.
async fn next_event(ws: &mut Ws, who: &str) -> Value {
    loop {
        match ws.recv(Duration::from_secs(10)).await {
            Incoming::Msg(m) if m["type"] == "event" => return m,
            Incoming::Msg(_) => continue,
            other => panic!("{who}: no event: {other:?}"),
        }
    }
}

/// A game's messages go on NATS only while another node has a socket on it: with both
/// players on the owner the owner publishes nothing there; a spectator on another node
/// (served by that node, no `?node=`) gets every event from its first state on, over NATS.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn a_games_messages_go_on_nats_only_while_another_node_watches() {
    let c = Cluster::start().await;
    let (g, owner, o) = crate::game_and_owner(&c, 0).await;
    let wait = Duration::from_secs(10);
    let before = published(&c).await;
    let mut seat = Vec::new();
    for token in [&g.white, &g.black] {
        let path = format!("/ws/games/{}?token={token}&node={owner}", g.id);
        let (ws, first) = Ws::open(c.dir.addrs[o], &path, wait)
            .await
            .expect("a socket on the owner");
        assert!(
            matches!(&first, Incoming::Msg(m) if m["type"] == "state"),
            "the owner serves its game: {first:?}"
        );
        seat.push(ws);
    }
    let (mut white, mut black) = (seat.remove(0), seat.remove(0));
    for (ws, mv, id) in [(&mut white, "e2e4", "w1"), (&mut black, "e7e5", "b1")] {
        ws.send(&json!({"move": mv, "press": true, "id": id}))
            .await
            .expect("send a move");
        acknowledged(ws, id).await;
    }
    assert_eq!(
        published(&c).await,
        before,
        "nothing of the game on NATS while its sockets are all on its owner"
    );
    // A spectator on another node: that node relays the game, the owner publishes.
    let other = (o + 1) % c.nodes.len();
    let path = format!("/ws/games/{}", g.id);
    let (mut spectator, first) = Ws::open(c.dir.addrs[other], &path, wait)
        .await
        .expect("a spectator's socket");
    let Incoming::Msg(state) = first else {
        panic!("the spectator's first message: {first:?}")
    };
    assert_eq!(state["type"], "state", "{state}");
    let relayed_before = c.nodes[other]
        .metric("flagfall_cluster_relayed_total")
        .await
        .unwrap_or(0.0);
    for (ws, mv, id) in [(&mut white, "g1f3", "w2"), (&mut black, "b8c6", "b2")] {
        ws.send(&json!({"move": mv, "press": true, "id": id}))
            .await
            .expect("send a move");
        let own = acknowledged(ws, id).await;
        let seen = next_event(&mut spectator, "the spectator on another node").await;
        assert_eq!(
            seen["n"], own["n"],
            "the spectator sees {id}'s event: {seen}"
        );
    }
    let after = published(&c).await;
    eprintln!("published on NATS by n1, n2, n3: {before:?} before, {after:?} after; owner {owner}");
    assert!(
        after[o] >= before[o] + 2.0,
        "the owner publishes the game's events while another node watches: {after:?}"
    );
    let relayed = c.nodes[other]
        .metric("flagfall_cluster_relayed_total")
        .await
        .unwrap_or(0.0);
    assert!(
        relayed >= relayed_before + 2.0,
        "the spectator's node relays them: {relayed_before} then {relayed}"
    );
}
