//! A cluster's leases (issue 22, docs/cluster.md): which node serves each loaded game.
//! The rows and statements are PostgreSQL's (`postgres.rs`); SQLite has none.

/// A lease a node holds: the game and the epoch of its taking (the fencing token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub game_id: String,
    pub epoch: i64,
}

/// A game's lease as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    pub game_id: String,
    pub owner: String,
    pub epoch: i64,
    /// Milliseconds until it expires by the database's clock (negative: expired).
    pub expires_in_ms: i64,
}
