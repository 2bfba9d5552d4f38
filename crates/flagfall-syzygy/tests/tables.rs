//! Syzygy tables through `shakmaty-syzygy`, with table files written by the test.
//!
//! Real Syzygy files could not be fetched on the development machine, so the tests write
//! their own: a well-formed "single value" WDL table for K+N v K (every position a draw,
//! as in the published set; the format's header, piece list and single-value subtables,
//! worked out from the reader in `shakmaty-syzygy`), and files with a table's name but
//! broken contents.

use std::path::{Path, PathBuf};

use flagfall_analysis::assistant::{DrawClaim, Probe, Tablebase, Wdl, recommend};
use flagfall_syzygy::{OpenError, SyzygyTables};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Setup};

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagfall-syzygy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

/// A WDL table for K+N v K in which both sides' subtables hold the single value "draw".
fn knvk_draw_table() -> Vec<u8> {
    let mut t = vec![0x71, 0xe8, 0x23, 0x5d]; // WDL magic for standard chess
    t.push(0x01); // layout: two sides (material not symmetric), no pawns
    t.push(0x00); // order of the leading group, both sides
    // Piece list, low nibble for the white-to-move side, high nibble for black-to-move:
    // white king (6), white knight (2), black king (14).
    t.extend([0x66, 0x22, 0xee]);
    t.push(0x00); // pad to an even offset
    t.extend([0x80, 0x02]); // white to move: single value, 2 = draw
    t.extend([0x80, 0x02]); // black to move: single value, 2 = draw
    t.resize(80, 0); // file sizes are 16 more than a multiple of 64
    t
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).expect("write table file");
}

fn chess(fen: &str) -> Chess {
    setup(fen)
        .position(CastlingMode::Standard)
        .expect("legal position")
}

fn setup(fen: &str) -> Setup {
    fen.parse::<Fen>().expect("FEN").into_setup()
}

#[test]
fn a_missing_directory_is_an_error_naming_it() {
    let dir = scratch("missing").join("not-there");
    let err = SyzygyTables::open(&dir).expect_err("no such directory");
    assert!(matches!(err, OpenError::Directory { .. }), "{err:?}");
    assert!(err.to_string().contains("not-there"), "{err}");
}

#[test]
fn a_directory_without_tables_is_an_error() {
    let dir = scratch("empty");
    write(&dir, "README.txt", b"not a table");
    let err = SyzygyTables::open(&dir).expect_err("no tables");
    assert!(matches!(err, OpenError::NoTables { .. }), "{err:?}");
    assert!(err.to_string().contains(".rtbw"), "{err}");
}

#[test]
fn a_well_formed_table_is_probed() {
    let dir = scratch("knvk");
    write(&dir, "KNvK.rtbw", &knvk_draw_table());
    let tables = SyzygyTables::open(&dir).expect("open");
    assert_eq!(tables.files(), 1);
    assert_eq!(tables.max_pieces(), 3);
    // Right after a capture (counter 0) the WDL table alone is exact.
    for fen in [
        "8/8/8/3k4/8/8/2N5/4K3 w - - 0 1",
        "8/8/8/3k4/8/8/2N5/4K3 b - - 0 1",
    ] {
        assert_eq!(tables.probe(&chess(fen)), Probe::Exact(Wdl::Draw), "{fen}");
    }
    // A draw stays a draw whatever the 50-move count, so it is exact even late in the 50
    // moves and without DTZ tables.
    let later = chess("8/8/8/3k4/8/8/2N5/4K3 w - - 30 60");
    assert_eq!(tables.probe(&later), Probe::Exact(Wdl::Draw));
}

#[test]
fn positions_outside_the_tables_are_not_covered() {
    let dir = scratch("cover");
    write(&dir, "KNvK.rtbw", &knvk_draw_table());
    let tables = SyzygyTables::open(&dir).expect("open");
    let rook = tables.probe(&chess("8/8/8/3k4/8/8/2R5/4K3 w - - 0 1"));
    assert!(
        matches!(&rook, Probe::NotCovered(why) if why.contains("KRvK")),
        "{rook:?}"
    );
    let crowd = tables.probe(&chess("8/8/8/3k4/8/8/2NN4/4K3 w - - 0 1"));
    assert!(
        matches!(&crowd, Probe::NotCovered(why) if why.contains("4 pieces")),
        "{crowd:?}"
    );
}

#[test]
fn castling_rights_are_not_covered() {
    let dir = scratch("castling");
    write(&dir, "KNvK.rtbw", &knvk_draw_table());
    write(&dir, "KRvK.rtbw", &knvk_draw_table());
    let tables = SyzygyTables::open(&dir).expect("open");
    let p = tables.probe(&chess("4k3/8/8/8/8/8/8/4K2R w K - 0 1"));
    assert!(
        matches!(&p, Probe::NotCovered(why) if why.contains("castling")),
        "{p:?}"
    );
}

#[test]
fn a_corrupt_table_fails_with_its_name_and_does_not_panic() {
    let dir = scratch("corrupt");
    write(&dir, "KQvK.rtbw", &[0xAB; 80]);
    let mut header_only = knvk_draw_table();
    header_only[10] = 0x00; // not single-valued: the compressed data is missing
    write(&dir, "KBvK.rtbw", &header_only);
    let tables = SyzygyTables::open(&dir).expect("names and sizes look right");
    let q = tables.probe(&chess("8/8/8/3k4/8/8/2Q5/4K3 w - - 0 1"));
    assert!(
        matches!(&q, Probe::Failed(why) if why.contains("KQvK")),
        "{q:?}"
    );
    let b = tables.probe(&chess("8/8/8/3k4/8/8/2B5/4K3 w - - 0 1"));
    assert!(matches!(&b, Probe::Failed(_)), "{b:?}");
}

#[test]
fn the_assistant_reports_what_the_tables_say() {
    let dir = scratch("assistant");
    write(&dir, "KNvKN.rtbw", &[0x00; 80]); // corrupt: a reason, never a panic
    let tables = SyzygyTables::open(&dir).expect("open");
    // blitz-2006 8e, one knight each: no forced win for White; the table is unreadable,
    // the search decides, and the reasons say both.
    let s = setup("8/8/3k4/3n4/8/8/2N5/4K3 w - - 0 1");
    let with = recommend(&s, Color::Black, DrawClaim::DrawPosition, Some(&tables));
    let without = recommend(&s, Color::Black, DrawClaim::DrawPosition, None);
    assert_eq!(with.grant, without.grant);
    assert!(
        with.reasons
            .iter()
            .any(|r| r.contains("the tablebase could not be read") && r.contains("KNvKN")),
        "{with:?}"
    );
}
