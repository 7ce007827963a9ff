//! GSD and PRD-master read rules (issue 7, §2–3), on real files in temp
//! dirs, through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::{NOW, json, loopdeck, write};
use serde_json::Value;

const BOM: &str = "\u{feff}";

fn show(dir: &Path) -> Value {
    json(&["show", dir.to_str().unwrap()])
}

#[test]
fn json_with_a_byte_order_mark_is_read_in_gsd_and_prd_master() {
    let tmp = tempfile::tempdir().unwrap();
    // GSD: WAITING.json written by a Windows editor.
    let gsd = tmp.path().join("gsd");
    write(&gsd.join(".planning/STATE.md"), "---\nstatus: executing\n---\n");
    write(
        &gsd.join(".planning/WAITING.json"),
        format!(r#"{BOM}{{"status":"waiting","question":"Which DB?","options":["A","B"]}}"#),
    );
    let v = show(&gsd);
    assert_eq!(v["project"]["problems"], serde_json::json!([]), "{v}");
    assert_eq!(v["inbox"][0]["title"], "Which DB?");
    // PRD-master: state.json with a BOM is read, not rebuilt.
    let prd = tmp.path().join("prd");
    write(
        &prd.join("state.json"),
        format!(
            r#"{BOM}{{"workflow_version":"0.6","current_stage":"3","last_updated_at_utc":"2026-05-30T10:00:00Z","project_name":"bom"}}"#
        ),
    );
    let v = show(&prd);
    assert_eq!(v["project"]["problems"], serde_json::json!([]), "{v}");
    assert_eq!(v["project"]["name"], "bom");
    assert_eq!(v["project"]["stage"], "3");
    assert_ne!(v["project"]["status"], "rebuilt");
}
