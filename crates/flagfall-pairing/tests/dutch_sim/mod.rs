//! A Swiss tournament simulator for the Dutch engine's property tests and benchmark:
//! players rated in descending order, results drawn from the Elo model, with forfeits,
//! half- and zero-point byes and withdrawals. Every round is paired by the engine itself.

#![allow(dead_code, clippy::needless_range_loop)]

use flagfall_pairing::dutch::{
    self, Colour, DutchInput, DutchPlayer, Pairing, PairingError, RoundRecord,
};

/// A small deterministic generator (64-bit LCG, high bits), so runs are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() as f64) / ((1u64 << 53) as f64)
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// Parameters of a simulated tournament.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub players: u32,
    pub total_rounds: u32,
    pub draw_rate: f64,
    pub forfeit_rate: f64,
    pub half_bye_rate: f64,
    pub zero_bye_rate: f64,
    pub withdraw_rate: f64,
    pub seed: u64,
}

impl SimConfig {
    /// A realistic open: 1 game in 30 forfeited, a few byes and withdrawals.
    pub fn open(players: u32, total_rounds: u32, seed: u64) -> Self {
        SimConfig {
            players,
            total_rounds,
            draw_rate: 0.3,
            forfeit_rate: 0.03,
            half_bye_rate: 0.02,
            zero_bye_rate: 0.01,
            withdraw_rate: 0.005,
            seed,
        }
    }
}

/// The state of a simulated tournament between rounds.
pub struct Sim {
    pub cfg: SimConfig,
    pub rng: Rng,
    pub ratings: Vec<f64>,
    pub input: DutchInput,
    pub withdrawn: Vec<bool>,
}

impl Sim {
    pub fn new(cfg: SimConfig) -> Self {
        let mut rng = Rng(cfg.seed);
        let n = cfg.players;
        let ratings: Vec<f64> = (0..n)
            .map(|i| 2600.0 - 1200.0 * f64::from(i) / f64::from(n.max(1)))
            .collect();
        let initial_colour = if rng.chance(0.5) {
            Colour::White
        } else {
            Colour::Black
        };
        let input = DutchInput {
            players: (1..=n)
                .map(|number| DutchPlayer {
                    number,
                    history: Vec::new(),
                    absent: false,
                })
                .collect(),
            total_rounds: cfg.total_rounds,
            initial_colour,
            forbidden_pairs: Vec::new(),
        };
        Sim {
            rng,
            ratings,
            input,
            withdrawn: vec![false; n as usize],
            cfg,
        }
    }

    /// Decide who sits out the next round (withdrawals, announced byes).
    pub fn announce_absences(&mut self) -> Vec<Option<RoundRecord>> {
        let n = self.input.players.len();
        let mut byes = vec![None; n];
        for i in 0..n {
            if !self.withdrawn[i] && self.rng.chance(self.cfg.withdraw_rate) {
                self.withdrawn[i] = true;
            }
            if self.withdrawn[i] {
                byes[i] = Some(RoundRecord::ZeroBye);
            } else if self.rng.chance(self.cfg.half_bye_rate) {
                byes[i] = Some(RoundRecord::HalfBye);
            } else if self.rng.chance(self.cfg.zero_bye_rate) {
                byes[i] = Some(RoundRecord::ZeroBye);
            }
        }
        for (p, b) in self.input.players.iter_mut().zip(&byes) {
            p.absent = b.is_some();
        }
        byes
    }

    /// Pair the next round (absences must have been announced).
    pub fn pair(&self) -> Result<Pairing, PairingError> {
        dutch::pair(&self.input)
    }

    /// Record the results of `pairing` and the announced byes.
    pub fn play(&mut self, pairing: &Pairing, byes: &[Option<RoundRecord>]) {
        let n = self.input.players.len();
        let mut rec: Vec<Option<RoundRecord>> = byes.to_vec();
        for &(w, b) in &pairing.boards {
            let (wi, bi) = ((w - 1) as usize, (b - 1) as usize);
            if self.rng.chance(self.cfg.forfeit_rate) {
                let double = self.rng.chance(0.2);
                let white_wins = !double && self.rng.chance(0.5);
                rec[wi] = Some(RoundRecord::Forfeit {
                    opponent: b,
                    won: white_wins,
                });
                rec[bi] = Some(RoundRecord::Forfeit {
                    opponent: w,
                    won: !double && !white_wins,
                });
                continue;
            }
            let expected =
                1.0 / (1.0 + 10f64.powf((self.ratings[bi] - self.ratings[wi] + 35.0) / 400.0));
            let draw = self.cfg.draw_rate * (1.0 - (2.0 * expected - 1.0).abs());
            let x = self.rng.unit();
            let white_points = if x < draw {
                1
            } else if x < draw + (1.0 - draw) * expected {
                2
            } else {
                0
            };
            rec[wi] = Some(RoundRecord::Played {
                opponent: b,
                colour: Colour::White,
                half_points: white_points,
            });
            rec[bi] = Some(RoundRecord::Played {
                opponent: w,
                colour: Colour::Black,
                half_points: 2 - white_points,
            });
        }
        if let Some(p) = pairing.bye {
            rec[(p - 1) as usize] = Some(RoundRecord::PairingBye);
        }
        for i in 0..n {
            let r = rec[i].unwrap_or(RoundRecord::ZeroBye);
            self.input.players[i].history.push(r);
            self.input.players[i].absent = false;
        }
    }

    /// Play `rounds` rounds and announce the absences for the next one.
    pub fn run(cfg: SimConfig, rounds: u32) -> Result<Sim, PairingError> {
        let mut sim = Sim::new(cfg);
        for _ in 0..rounds {
            let byes = sim.announce_absences();
            let pairing = sim.pair()?;
            sim.play(&pairing, &byes);
        }
        sim.announce_absences();
        Ok(sim)
    }
}

/// A naive Swiss pairer, for generating histories cheaply and as a benchmark baseline:
/// players by score then number; each takes the first later player not yet met, White to
/// whoever had fewer whites (the higher player on ties); the last unpaired player gets
/// the PAB. No float, colour-sequence or bracket-optimisation rules.
pub fn naive_pair(input: &DutchInput) -> Pairing {
    let mut present: Vec<&DutchPlayer> = input.players.iter().filter(|p| !p.absent).collect();
    let score = |p: &DutchPlayer| -> u32 { p.history.iter().map(RoundRecord::half_points).sum() };
    present.sort_by(|a, b| score(b).cmp(&score(a)).then(a.number.cmp(&b.number)));
    let whites = |p: &DutchPlayer| {
        p.history
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    RoundRecord::Played {
                        colour: Colour::White,
                        ..
                    }
                )
            })
            .count()
    };
    let met = |a: &DutchPlayer, b: u32| {
        a.history
            .iter()
            .any(|r| matches!(r, RoundRecord::Played { opponent, .. } if *opponent == b))
    };
    let mut taken = vec![false; present.len()];
    let mut boards = Vec::new();
    let mut bye = None;
    for i in 0..present.len() {
        if taken[i] {
            continue;
        }
        taken[i] = true;
        let a = present[i];
        let partner = (i + 1..present.len())
            .find(|&j| !taken[j] && !met(a, present[j].number))
            .or_else(|| (i + 1..present.len()).find(|&j| !taken[j]));
        match partner {
            Some(j) => {
                taken[j] = true;
                let b = present[j];
                if whites(b) < whites(a) {
                    boards.push((b.number, a.number));
                } else {
                    boards.push((a.number, b.number));
                }
            }
            None => bye = Some(a.number),
        }
    }
    Pairing { boards, bye }
}

impl Sim {
    /// Like [`Sim::run`], but the earlier rounds are paired by [`naive_pair`].
    pub fn run_naive(cfg: SimConfig, rounds: u32) -> Sim {
        let mut sim = Sim::new(cfg);
        for _ in 0..rounds {
            let byes = sim.announce_absences();
            let pairing = naive_pair(&sim.input);
            sim.play(&pairing, &byes);
        }
        sim.announce_absences();
        sim
    }
}
