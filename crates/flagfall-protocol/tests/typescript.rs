//! web/src/wire.ts is what ts-rs generates from the protocol's types: a change to a wire
//! type that is not carried to the page fails here (and so in CI).

use std::path::PathBuf;

#[test]
fn committed_wire_ts_is_generated() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/src/wire.ts");
    let generated = flagfall_protocol::typescript();
    if std::env::var_os("FLAGFALL_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write web/src/wire.ts");
        return;
    }
    let committed =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert!(
        committed == generated,
        "web/src/wire.ts differs from what ts-rs generates from crates/flagfall-protocol; \
         run `FLAGFALL_BLESS=1 cargo test -p flagfall-protocol --test typescript`, then \
         rebuild web/dist"
    );
}
