//! flagfall-events: blitz events as data.
