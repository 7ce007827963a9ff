//! `loopdeck watch --host …`: every host's own `watch --json` lines,
//! relayed as they arrive with a `host` field, so a script or a second
//! console can follow a fleet. Core's fleet runs one `ssh` per host
//! (`Feed::Raw`: the host's plain feed, no `--model`) and reconnects
//! with backoff; each host's state is a `host` line.
//!
//! Lines, besides the local feed's (which has no `host` field):
//! - every line a host sent (its `snapshot` first, then its changes), as
//!   it sent it, with `"host": NAME` after `type`;
//! - `host`: `host`, `state` (`connecting`, `live`, `stale`, `failed`,
//!   `refused`) and, where there is one, `message` (ssh's own line, or
//!   why), `hint` (what fixes it) and `retry_in_secs`;
//! - `host_gap`: `host`, `dropped`: a reader that fell behind lost that
//!   many of the host's lines (the host's next `snapshot`, after a
//!   reconnect, is whole again).

use std::time::Instant;

use serde_json::{Map, Value, json};

use super::super::views::SCHEMA_VERSION;
use super::lines::stamp;
use crate::model::text::sanitize_line;
use loopdeck_core::fleet::{HostEvent, HostState, HostUpdate};

/// The line to write for `e` (`None`: nothing a relay says, a model
/// feed's update).
pub fn line(e: &HostEvent) -> Option<Value> {
    let host = Value::String(e.host.to_string());
    match &e.update {
        HostUpdate::Raw(Value::Object(sent)) => {
            let mut out = Map::with_capacity(sent.len() + 1);
            for (k, v) in sent {
                out.insert(k.clone(), v.clone());
                if k == "type" {
                    out.insert("host".to_owned(), host.clone());
                }
            }
            out.entry("host").or_insert(host);
            Some(Value::Object(out))
        }
        HostUpdate::State(state) => Some(state_line(host, state)),
        _ => None,
    }
}

fn state_line(host: Value, state: &HostState) -> Value {
    let mut v = json!({
        "schema_version": SCHEMA_VERSION,
        "type": "host",
        "at": stamp(),
        "host": host,
    });
    let now = Instant::now();
    let extra = match state {
        HostState::Connecting { attempt } => json!({"state": "connecting", "attempt": attempt}),
        HostState::Live { watcher } => json!({"state": "live", "watcher": watcher}),
        HostState::Stale { since, reason } => json!({
            "state": "stale",
            "message": reason,
            "silent_secs": now.saturating_duration_since(*since).as_secs(),
        }),
        HostState::Failed {
            message,
            hint,
            retry_at,
        } => json!({
            "state": "failed",
            "message": message,
            "hint": hint.text(v["host"].as_str().unwrap_or_default()),
            "retry_in_secs": retry_at.saturating_duration_since(now).as_secs(),
        }),
        HostState::Refused { message, retry_at } => json!({
            "state": "refused",
            "message": message,
            "retry_in_secs": retry_at.saturating_duration_since(now).as_secs(),
        }),
    };
    if let (Some(o), Value::Object(extra)) = (v.as_object_mut(), extra) {
        o.extend(extra);
    }
    v
}

/// `dropped` lines of `host` lost to a reader that fell behind.
pub fn gap(host: &str, dropped: usize) -> Value {
    json!({
        "schema_version": SCHEMA_VERSION,
        "type": "host_gap",
        "at": stamp(),
        "host": host,
        "dropped": dropped,
    })
}

/// A relayed line in plain words (without `--json`): `HOST · TYPE` and
/// what it names (a project, an item), made safe for the terminal.
pub fn plain(v: &Value) -> String {
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
    let what = ["project", "item"]
        .iter()
        .find_map(|k| {
            let o = v.get(*k)?;
            o.get("name")
                .or_else(|| o.get("title"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .or_else(|| v.get("message").and_then(Value::as_str).map(str::to_owned))
        .or_else(|| v.get("state").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    format!(
        "{} · {} {}\n",
        sanitize_line(text("host")),
        sanitize_line(text("type")),
        sanitize_line(&what)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn event(update: HostUpdate) -> HostEvent {
        HostEvent {
            host: "build-1".into(),
            update,
        }
    }

    /// A host's line is relayed as sent, `host` after `type`, nothing
    /// else changed.
    #[test]
    fn a_hosts_line_keeps_every_field_and_gains_its_host_after_type() {
        let sent = json!({"schema_version": 1, "type": "project_changed", "at": "x", "project": {"id": "a", "host": "forged"}});
        let got = line(&event(HostUpdate::Raw(sent))).unwrap();
        let keys: Vec<&str> = got
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["schema_version", "type", "host", "at", "project"]);
        assert_eq!(got["host"], "build-1");
        assert_eq!(got["project"]["host"], "forged", "the row is as sent");
    }

    #[test]
    fn a_failed_host_says_sshs_line_and_the_fix() {
        let got = line(&event(HostUpdate::State(HostState::Failed {
            message: "root@h: Permission denied (publickey).".into(),
            hint: loopdeck_core::fleet::Hint::Keys,
            retry_at: Instant::now() + std::time::Duration::from_secs(8),
        })))
        .unwrap();
        assert_eq!(got["type"], "host");
        assert_eq!(got["state"], "failed");
        assert_eq!(got["message"], "root@h: Permission denied (publickey).");
        assert!(got["hint"].as_str().unwrap().contains("ssh-agent"));
        assert!(got["retry_in_secs"].as_u64().unwrap() <= 8);
        assert!(plain(&got).starts_with("build-1 · host root@h: Permission denied"));
    }
}
