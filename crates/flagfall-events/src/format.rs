//! The pairing system of an event, and the limits every format shares. The event, its
//! crosstable and the tiebreaks all use this one [`Format`]: the tiebreaks only ask
//! whether it is a round robin ([`Format::is_round_robin`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::spelling::{Spelled, spelled};

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
pub enum Format {
    /// Single round robin, FIDE Berger tables (C.05 Annex 1).
    RoundRobin,
    /// Double round robin: the Berger table twice, second cycle colours reversed.
    DoubleRoundRobin,
    /// Round robin of two-game matches: the Berger table once, every pairing plays two
    /// games in the same round with colours reversed (the blitz habit of playing both
    /// games of a double round robin back to back).
    RoundRobinMatches,
    /// Swiss by the FIDE Dutch system (C.04.3).
    Swiss,
    /// FIDE Double Swiss (C.04.5): every pairing is a two-game match.
    DoubleSwiss,
    /// US Chess Swiss (US Chess rules 27–29).
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
        self.spellings()[0]
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

impl Spelled for Format {
    const ALL: &'static [Format] = &[
        Format::RoundRobin,
        Format::DoubleRoundRobin,
        Format::RoundRobinMatches,
        Format::Swiss,
        Format::DoubleSwiss,
        Format::UsSwiss,
    ];
    const WHAT: &'static str = "format";
    const EXPECTED: &'static str = "round-robin (rr), double-round-robin (drr), round-robin-matches (rr-matches), swiss, double-swiss, us-swiss";
    fn spellings(self) -> &'static [&'static str] {
        match self {
            Format::RoundRobin => &["round-robin", "rr"],
            Format::DoubleRoundRobin => &["double-round-robin", "drr"],
            Format::RoundRobinMatches => &["round-robin-matches", "rr-matches"],
            Format::Swiss => &["swiss", "dutch"],
            Format::DoubleSwiss => &["double-swiss", "ds"],
            Format::UsSwiss => &["us-swiss", "uscf"],
        }
    }
    fn help(self) -> &'static str {
        match self {
            Format::RoundRobin => "FIDE Berger tables",
            Format::DoubleRoundRobin => "the Berger table twice, colours reversed",
            Format::RoundRobinMatches => "the Berger table once, two-game matches",
            Format::Swiss => "FIDE Dutch (C.04.3)",
            Format::DoubleSwiss => "FIDE Double Swiss (C.04.5), two-game matches",
            Format::UsSwiss => "US Chess Swiss (rules 27-29)",
        }
    }
}

spelled!(Format);
