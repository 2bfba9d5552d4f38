//! tiebreak (in progress)
