//! Syzygy tables named on the command line (`--tablebases DIR`, for `replay` and
//! `analyze`).

use std::path::PathBuf;

use anyhow::Context;
use flagfall_game::SharedTablebase;

/// The tables named by `--tablebases`, opened once (`None` when none are named).
pub fn open_tablebases(dirs: &[PathBuf]) -> anyhow::Result<Option<SharedTablebase>> {
    let Some((first, rest)) = dirs.split_first() else {
        return Ok(None);
    };
    let mut tables = flagfall_syzygy::SyzygyTables::open(first).context("--tablebases")?;
    for dir in rest {
        tables.add_directory(dir).context("--tablebases")?;
    }
    Ok(Some(SharedTablebase(std::sync::Arc::new(tables))))
}
