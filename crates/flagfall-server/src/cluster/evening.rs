//! Blitz evenings across a cluster's nodes (docs/cluster.md, "Evenings across nodes").
//!
//! Several nodes may load the same evening: the director's console on one, the
//! projector on another, the finished games' results arriving on the nodes that serve
//! those games. The store's log is the evening's order: every node's task applies a
//! change on top of the rows it has read, and a commit whose seq another node took
//! first is refused by the log's primary key; the task then reads the rows after its
//! seq and tries once more ([`crate::evening::task`]).
//!
//! NATS only tells: after each commit a node publishes the new seq on
//! `flagfall.evening.<id>`; every node subscribes to `flagfall.evening.*` once and tells
//! its loaded task of that evening, if any, to read the log after its seq. Disputes (a
//! game waiting for the director, kept in memory only) travel on the same subject, and a
//! node that loads an evening says hello so that the others tell it theirs. Core NATS is
//! at-most-once: a lost notice only delays a console until the evening's next change
//! (every change reads the log first) or a reconnect (which loads the snapshot after
//! that); nothing stored depends on a notice.

use std::sync::Arc;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::Cluster;
use super::throttle::{Throttle, warn_throttled};
use crate::evening::task::Cmd;
use crate::seam::Notice;
use crate::{ServerError, Shared};

/// A notice on the wire: who sent it (a node skips its own).
#[derive(Debug, Serialize, Deserialize)]
struct Envelope {
    from: String,
    #[serde(flatten)]
    notice: Notice,
}

/// The subject of an evening's notices. Evening ids are hex (`random_hex`): only stored
/// evenings are loaded, so nothing else reaches here.
pub(crate) fn subject(evening: &str) -> String {
    format!("flagfall.evening.{evening}")
}

/// Tell the other nodes ([`crate::seam::Seam::tell`]). Sent in the background: an
/// evening never waits for NATS.
pub(crate) fn publish(cluster: &Cluster, shared: &Shared, evening: &str, notice: Notice) {
    let body = match serde_json::to_vec(&Envelope {
        from: cluster.node.clone(),
        notice,
    }) {
        Ok(b) => b,
        Err(e) => {
            tracing::error!(evening, error = %e, "an evening's notice not encoded");
            return;
        }
    };
    let nats = cluster.nats.clone();
    let subject = subject(evening);
    shared.spawn(async move {
        if let Err(e) = nats.publish(subject, body.into()).await {
            tracing::warn!(error = %e, "an evening's notice not sent to the other nodes");
        }
    });
}

/// Listen to the other nodes' notices of every evening, until the server stops.
pub async fn serve(shared: Arc<Shared>) -> Result<(), ServerError> {
    let Some(cluster) = shared.cluster.clone() else {
        return Ok(());
    };
    let mut sub = super::subscribe(
        &shared,
        &cluster,
        "flagfall.evening.*".to_string(),
        "the evenings",
    )
    .await?;
    let listening = shared.clone();
    listening.spawn(async move {
        while let Some(msg) = sub.next().await {
            let Some(id) = msg.subject.strip_prefix("flagfall.evening.") else {
                continue;
            };
            let env: Envelope = match serde_json::from_slice(&msg.payload) {
                Ok(e) => e,
                Err(e) => {
                    shared.metrics.cluster.unreadable.inc();
                    static UNREADABLE: Throttle = Throttle::new();
                    warn_throttled!(UNREADABLE, evening = id, error = %e, "an unreadable evening notice");
                    continue;
                }
            };
            if env.from == cluster.node {
                continue;
            }
            // Only an evening loaded here cares: one loaded later reads the store.
            let Some(h) = shared.evenings.get(id) else {
                continue;
            };
            h.remote(match env.notice {
                Notice::Seq { seq } => Cmd::CatchUp(seq),
                Notice::Dispute { game, n, dispute } => Cmd::Waiting {
                    game,
                    n,
                    dispute,
                    remote: true,
                },
                Notice::Hello => Cmd::Hello,
            });
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Envelope, Notice};
    use serde_json::json;

    #[test]
    fn notices_on_the_wire() {
        let v = serde_json::to_value(Envelope {
            from: "n1".into(),
            notice: Notice::Seq { seq: 7 },
        })
        .unwrap();
        assert_eq!(v, json!({"from": "n1", "kind": "seq", "seq": 7}));
        let text = r#"{"from":"n2","kind":"dispute","game":"ab","n":3,"dispute":null}"#;
        let e: Envelope = serde_json::from_str(text).unwrap();
        assert_eq!(e.from, "n2");
        assert_eq!(
            e.notice,
            Notice::Dispute {
                game: "ab".into(),
                n: 3,
                dispute: None
            }
        );
        // Something else on the subject is an error, not a panic.
        assert!(serde_json::from_str::<Envelope>(r#"{"from":"n3","kind":"nope"}"#).is_err());
    }
}
