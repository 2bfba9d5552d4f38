//! flagfall-pairing: FIDE TRF and pairing engines.
