//! flagfall-pairing: FIDE TRF and the pairing systems, as pure functions.
//!
//! - [`trf`]: reading and writing FIDE TRF (TRF-16 and TRF-2026).
//! - [`dutch`]: the FIDE Dutch system (C.04.3, 2025 rules).
//! - [`berger`]: round robin by the FIDE Berger tables (C.05 Annex 1).
//! - [`double_swiss`]: the FIDE Double Swiss (C.04.5).
//! - [`us_swiss`]: the US Chess Swiss (score groups, top half v bottom half).

pub mod berger;
pub mod double_swiss;
pub mod dutch;
pub mod trf;
pub mod us_swiss;
