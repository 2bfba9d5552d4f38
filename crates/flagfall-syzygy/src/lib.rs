//! Syzygy endgame tables for the director's assistant (`flagfall_analysis::assistant`),
//! through `shakmaty-syzygy`.
//!
//! The analysis crate stays pure: it asks a [`Tablebase`] and never touches files. This
//! crate is the one place that opens table files; the CLI (and later the server) builds a
//! [`SyzygyTables`] from the directory the user names and hands it to the arbiter.
//!
//! Choices, written down:
//! - A directory with no table files in it is an error when opened (the user meant to give
//!   tables; silently probing nothing would hide a typo in the path).
//! - Files are opened lazily by `shakmaty-syzygy` on the first probe of their material; a
//!   corrupt or unreadable file therefore shows up as [`Probe::Failed`] for the positions
//!   that need it, with the table named, and never stops the game.
//! - When both WDL and DTZ tables are present, the value takes the position's 50-move
//!   counter into account ([`Probe::Exact`]). With only WDL tables, or when DTZ rounding
//!   leaves the 50-move status open, the value is reported as counted from a fresh 50-move
//!   count ([`Probe::IgnoringFiftyMoves`]); a position reached right after a capture or pawn
//!   move (counter 0) is exact either way.

use std::path::{Path, PathBuf};

use flagfall_analysis::assistant::{Probe, Tablebase, Wdl};
use shakmaty::{Chess, Position};
use shakmaty_syzygy::{Metric, SyzygyError};

/// Why a tables directory could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot read the tables directory {path}")]
    Directory {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "no Syzygy table files (such as KQvK.rtbw or KRPvKR.rtbz) in {path}; \
         give the directory that holds the .rtbw/.rtbz files"
    )]
    NoTables { path: PathBuf },
}

/// Syzygy tables loaded from one or more directories.
pub struct SyzygyTables {
    tables: shakmaty_syzygy::Tablebase<Chess>,
    files: usize,
    dirs: Vec<PathBuf>,
}

impl std::fmt::Debug for SyzygyTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyzygyTables")
            .field("files", &self.files)
            .field("max_pieces", &self.tables.max_pieces())
            .field("dirs", &self.dirs)
            .finish()
    }
}

impl SyzygyTables {
    /// Tables from `dir` (its `.rtbw` and `.rtbz` files; other files are ignored).
    pub fn open(dir: impl AsRef<Path>) -> Result<SyzygyTables, OpenError> {
        let mut tables = SyzygyTables {
            tables: shakmaty_syzygy::Tablebase::new(),
            files: 0,
            dirs: Vec::new(),
        };
        tables.add_directory(dir)?;
        Ok(tables)
    }

    /// Add the tables of another directory (WDL and DTZ sets are often kept apart).
    pub fn add_directory(&mut self, dir: impl AsRef<Path>) -> Result<(), OpenError> {
        let path = dir.as_ref().to_path_buf();
        let added = self
            .tables
            .add_directory(&path)
            .map_err(|source| OpenError::Directory {
                path: path.clone(),
                source,
            })?;
        if added == 0 {
            return Err(OpenError::NoTables { path });
        }
        self.files += added;
        self.dirs.push(path);
        Ok(())
    }

    /// Number of table files found.
    pub fn files(&self) -> usize {
        self.files
    }

    /// Largest number of pieces (kings included) any loaded table covers.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }
}

fn wdl(w: shakmaty_syzygy::Wdl) -> Wdl {
    match w {
        shakmaty_syzygy::Wdl::Loss => Wdl::Loss,
        shakmaty_syzygy::Wdl::BlessedLoss => Wdl::BlessedLoss,
        shakmaty_syzygy::Wdl::Draw => Wdl::Draw,
        shakmaty_syzygy::Wdl::CursedWin => Wdl::CursedWin,
        shakmaty_syzygy::Wdl::Win => Wdl::Win,
    }
}

/// A probe error as a [`Probe`] (a missing DTZ table never reaches here: the caller falls
/// back to the WDL table for it).
fn from_error(e: SyzygyError) -> Probe {
    match e {
        SyzygyError::MissingTable { material, .. } => {
            Probe::NotCovered(format!("no {material} table among the loaded files"))
        }
        SyzygyError::Castling => Probe::NotCovered(
            "a side still has castling rights; the tables hold no such positions".to_string(),
        ),
        SyzygyError::TooManyPieces => {
            Probe::NotCovered("more pieces than any loaded table covers".to_string())
        }
        e @ SyzygyError::ProbeFailed { .. } => Probe::Failed(e.to_string()),
    }
}

impl Tablebase for SyzygyTables {
    fn probe(&self, pos: &Chess) -> Probe {
        let pieces = pos.board().occupied().count();
        if pieces > self.tables.max_pieces() {
            return Probe::NotCovered(format!(
                "{pieces} pieces on the board, the loaded tables go up to {}",
                self.tables.max_pieces()
            ));
        }
        match self.tables.probe_wdl(pos) {
            // WDL and DTZ tables: the value knows the 50-move counter, unless DTZ rounding
            // leaves it open.
            Ok(w) => match w.unambiguous() {
                Some(w) => Probe::Exact(wdl(w)),
                None => Probe::IgnoringFiftyMoves(wdl(w.after_zeroing())),
            },
            // No DTZ table: the WDL table alone, exact only right after a zeroing move.
            Err(SyzygyError::MissingTable {
                metric: Metric::Dtz,
                ..
            }) => match self.tables.probe_wdl_after_zeroing(pos) {
                Ok(w) if pos.halfmoves() == 0 => Probe::Exact(wdl(w)),
                Ok(w) => Probe::IgnoringFiftyMoves(wdl(w)),
                Err(e) => from_error(e),
            },
            Err(e) => from_error(e),
        }
    }
}
