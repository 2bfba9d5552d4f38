//! `flagfall loadtest`: the usage errors of a cluster run, refused before anything starts.

use crate::flagfall;

/// Run `flagfall loadtest ARGS`: its exit success and standard error.
fn loadtest(args: &[&str]) -> (bool, String) {
    let out = flagfall()
        .arg("loadtest")
        .args(args)
        .output()
        .expect("run flagfall loadtest");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn several_nodes_without_nats_is_a_usage_error() {
    let (ok, err) = loadtest(&["--nodes", "3", "--database", "postgres://h/db"]);
    assert!(!ok);
    assert!(err.contains("a cluster needs NATS (--nats"), "{err}");
}

#[test]
fn several_nodes_on_sqlite_or_the_default_database_is_a_usage_error() {
    for db in [&["--database", "sqlite:x.db"][..], &[]] {
        let mut args = vec!["--nodes", "2", "--nats", "nats://127.0.0.1:1"];
        args.extend_from_slice(db);
        let (ok, err) = loadtest(&args);
        assert!(!ok, "{args:?}");
        assert!(
            err.contains("a cluster needs a PostgreSQL database"),
            "{err}"
        );
    }
}

#[test]
fn failover_needs_a_cluster_and_zero_nodes_is_refused() {
    let (ok, err) = loadtest(&["--failover"]);
    assert!(!ok);
    assert!(err.contains("--failover needs a cluster"), "{err}");
    let (ok, err) = loadtest(&["--nodes", "0"]);
    assert!(!ok);
    assert!(
        err.contains("--nodes 0: expected at least one node"),
        "{err}"
    );
    let (ok, err) = loadtest(&["--lease-ms", "5000"]);
    assert!(!ok);
    assert!(err.contains("--lease-ms needs a cluster"), "{err}");
    let (ok, err) = loadtest(&["--games-per-process", "0"]);
    assert!(!ok);
    assert!(err.contains("--games-per-process"), "{err}");
}

/// `--server` against a server that keeps its frame limit: the closed loop's bots are
/// told their frames were dropped (an `error` naming no `id`), and the run ends with an
/// error naming the limit and the flags that lift it, never waiting for answers that
/// will not come.
#[test]
fn a_server_with_its_frame_limit_ends_the_run_with_the_reason() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("flagfall-lt-limits-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite:{}", dir.join("lt.db").display());
    let mut server = flagfall()
        .args(["serve", "--listen", "127.0.0.1:0", "--database", &db])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("flagfall serve starts");
    // The address from the "listening" line (its port chosen by the system).
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("a listening line").unwrap();
        if let Some(at) = line.find("listening") {
            let rest = &line[at..];
            let start = rest.find("127.0.0.1:").expect("the address");
            let addr: String = rest[start..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                .collect();
            break addr;
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let mut run = flagfall()
        .args([
            "loadtest", "--server", &addr, "--games", "2", "--rate", "10",
        ])
        .args(["--duration", "1", "--conns", "20", "--closed-duration", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("flagfall loadtest starts");
    let began = Instant::now();
    let status = loop {
        if let Some(s) = run.try_wait().unwrap() {
            break s;
        }
        if began.elapsed() > Duration::from_secs(120) {
            let _ = run.kill();
            let _ = server.kill();
            panic!("the load test still waits after 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut run.stderr.take().unwrap(), &mut err).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!status.success(), "{err}");
    assert!(
        err.contains("rate limit: at most 20 messages a second"),
        "{err}"
    );
    assert!(err.contains("--socket-rate 0"), "{err}");
}
