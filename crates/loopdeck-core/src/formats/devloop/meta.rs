//! What the bytes of a devloop `project.json` say, apart from the project
//! they are read for (the read cache keeps it per file).

use serde_json::Value;

use super::schema::{self, ProjectMeta};
use super::strip_bom;
use crate::formats::json::reason as json_reason;

/// What the bytes of a `project.json` say (they alone: kept by the read
/// cache).
#[derive(Clone)]
#[allow(clippy::large_enum_variant)] // one per project.json, never a list
pub(super) enum ParsedMeta {
    Read(ProjectMeta, Vec<String>),
    /// Some other tool's project.json.
    NotOurs,
    Bad(String),
}

pub(super) fn parse_meta(bytes: &[u8]) -> ParsedMeta {
    let map = match serde_json::from_slice::<Value>(strip_bom(bytes)) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return ParsedMeta::NotOurs,
        Err(e) => return ParsedMeta::Bad(json_reason(&e)),
    };
    if !(map.contains_key("company_id") && map.contains_key("status")) {
        return ParsedMeta::NotOurs;
    }
    let mut problems = Vec::new();
    let meta: ProjectMeta =
        schema::tolerant(Value::Object(map), "", &mut problems).unwrap_or_default();
    ParsedMeta::Read(meta, problems)
}
