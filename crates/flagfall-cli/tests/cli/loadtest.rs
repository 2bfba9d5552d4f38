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
