//! The pairing system of an event, and the limits every format shares. The event, its
//! crosstable and the tiebreaks all use this one [`Format`]: the tiebreaks only ask
//! whether it is a round robin ([`Format::is_round_robin`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::event::EventError;

/// Most rounds an event (and so a crosstable) may hold.
pub const MAX_ROUNDS: u32 = 200;

/// The pairing system.
///
/// In the crosstable the distinction that matters is round robin or not: in a round robin
/// forfeits are treated as regular games (FIDE C.07 art. 15.2), in a Swiss the
/// unplayed-rounds rules of art. 16 apply (15.3). A round robin with an odd number of
/// players gives each player's free round as `Bye(ByeKind::Zero)` (the event enters it as
/// `Absent`): it scores nothing and, the only unplayed rounds of a round robin being
/// forfeits (C.07 15.2), it is ignored by BH, SB, KS, DE and REP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// Single round robin, FIDE Berger tables (C.05 Annex 1).
    #[cfg_attr(feature = "clap", value(alias = "rr"))]
    RoundRobin,
    /// Double round robin: the Berger table twice, second cycle colours reversed.
    #[cfg_attr(feature = "clap", value(alias = "drr"))]
    DoubleRoundRobin,
    /// Round robin of two-game matches: the Berger table once, every pairing plays two
    /// games in the same round with colours reversed (the blitz habit of playing both
    /// games of a double round robin back to back).
    #[cfg_attr(feature = "clap", value(alias = "rr-matches"))]
    RoundRobinMatches,
    /// Swiss by the FIDE Dutch system (C.04.3).
    #[cfg_attr(feature = "clap", value(alias = "dutch"))]
    Swiss,
    /// FIDE Double Swiss (C.04.5): every pairing is a two-game match.
    #[cfg_attr(feature = "clap", value(alias = "ds"))]
    DoubleSwiss,
    /// US Chess Swiss (US Chess rules 27–29).
    #[cfg_attr(feature = "clap", value(alias = "uscf"))]
    UsSwiss,
}

impl Format {
    /// Games per pairing: 2 for the Double Swiss, else 1.
    pub fn games_per_round(self) -> u32 {
        match self {
            Format::DoubleSwiss | Format::RoundRobinMatches => 2,
            _ => 1,
        }
    }

    /// Whether the director may set the pairing-allocated bye's points
    /// ([`crate::event::Event::set_pab_points`]): only where the pairing engine pairs on the event's own
    /// scores (the Dutch engine scores the bye as a win; round robins have none).
    pub fn pab_points_settable(self) -> bool {
        matches!(self, Format::DoubleSwiss | Format::UsSwiss)
    }

    /// True for the three round-robin formats.
    pub fn is_round_robin(self) -> bool {
        matches!(
            self,
            Format::RoundRobin | Format::DoubleRoundRobin | Format::RoundRobinMatches
        )
    }

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::DoubleRoundRobin => "double-round-robin",
            Format::RoundRobinMatches => "round-robin-matches",
            Format::Swiss => "swiss",
            Format::DoubleSwiss => "double-swiss",
            Format::UsSwiss => "us-swiss",
        }
    }

    /// Default tiebreak order, until the director sets one (**interpretation**: a
    /// starting point, not a regulation): round robin DE, SB, WIN, KS (FIDE C.07 arts.
    /// 6, 9.1, 7.1, 9.2); Swiss BH-C1, BH, SB, DE (C.07 arts. 8.1, 14, 9.1, 6); US Swiss
    /// the first four systems in the order US Chess 34E lists them (34E1-34E4).
    pub fn default_tiebreaks(self) -> &'static str {
        match self {
            Format::RoundRobin | Format::DoubleRoundRobin | Format::RoundRobinMatches => {
                "DE,SB,WIN,KS"
            }
            Format::Swiss | Format::DoubleSwiss => "BH-C1,BH,SB,DE",
            Format::UsSwiss => "US-MM,US-SOLKOFF,US-CUM,US-OPPCUM",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = EventError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "rr" | "round-robin" => Format::RoundRobin,
            "drr" | "double-round-robin" => Format::DoubleRoundRobin,
            "rr-matches" | "round-robin-matches" => Format::RoundRobinMatches,
            "swiss" | "dutch" => Format::Swiss,
            "double-swiss" | "ds" => Format::DoubleSwiss,
            "us-swiss" | "uscf" => Format::UsSwiss,
            _ => {
                return Err(EventError::BadValue {
                    what: "format",
                    value: s.to_string(),
                    expected: "round-robin (rr), double-round-robin (drr), round-robin-matches (rr-matches), swiss, double-swiss, us-swiss",
                });
            }
        })
    }
}
