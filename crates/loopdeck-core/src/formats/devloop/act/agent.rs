//! `act resume-agent AGENT resume|restart`: the human's answer to a paused
//! agent (seed 003, AgentRuntimeState: "Server 启动时扫所有 paused，发 SSE
//! resume_decision_needed 等人决策"), recorded in `agent-state/AGENT.json`
//! as `resume_decision {choice, by, at}` for the server to act on.
//!
//! Only a paused agent takes it; `resume` is refused once the resume token
//! is 24 h old (Process.StatePersistence: an expired token is a fresh
//! restart), judged by the reader's own rule (`Agent::resume_expired`).
//! The state's `updated_at` is left alone: the token's age counts from it.

use std::path::Path;

use serde_json::{Map, Value};

use super::event::Event;
use super::{decision, refuse, stamp};
use crate::formats::devloop::PROJECT_FILE;
use crate::formats::devloop::agents::{self, STATE_DIR};
use crate::formats::devloop::runs::safe_component;
use crate::formats::jsonedit::JsonDoc;
use crate::model::Request;
use crate::store::transact;
use crate::store::txn::{ActError, Edit, LockKind, Outcome, Snapshot, Txn, WriteOptions};

pub(super) fn act(
    dir: &Path,
    req: &Request,
    opts: &WriteOptions,
    agent: &str,
    choice: &str,
) -> Result<Outcome, ActError> {
    if !safe_component(agent) || agent.starts_with('.') || agent.ends_with("-todo") {
        return Err(refuse(format!("`{agent}` is not an agent name")));
    }
    if !matches!(choice, "resume" | "restart") {
        return Err(refuse(format!(
            "`{choice}` is not a choice: resume or restart"
        )));
    }
    let rel = format!("{STATE_DIR}/{agent}.json");
    let txn = Txn::new(
        dir,
        &rel,
        LockKind::Owner,
        opts,
        &req.by,
        req.now,
        decision(req),
    );
    transact(&txn, |snap| decide(snap, req, &rel, agent, choice))
}

/// The project's last update as the reader dates it: the later of
/// `project.json`'s `updated_at` and the last timeline event.
fn last_update(dir: &Path) -> Option<chrono::DateTime<chrono::Utc>> {
    let mut scratch = crate::model::Project::new(
        crate::model::Format::Devloop,
        dir.to_path_buf(),
        String::new(),
    );
    let event = crate::formats::devloop::timeline::read(&mut scratch, dir);
    let meta = crate::store::read_in(dir, PROJECT_FILE, crate::store::STATE_FILE_LIMIT)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(strip_bom(&b)).ok())
        .and_then(|v| {
            v.get("updated_at")
                .and_then(Value::as_str)
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        })
        .map(|t| t.with_timezone(&chrono::Utc));
    event.max(meta)
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

fn decide(
    snap: &mut Snapshot,
    req: &Request,
    rel: &str,
    stem: &str,
    choice: &str,
) -> Result<Vec<Edit>, ActError> {
    let Some(bytes) = snap.read(rel)? else {
        return Err(refuse(format!(
            "no agent `{stem}` in this project ({rel} does not exist)"
        )));
    };
    let mut doc = JsonDoc::parse(bytes)
        .map_err(|e| refuse(format!("{rel} is not JSON ({e}); nothing is written to it")))?;
    let a = agents::from_state(bytes, stem)
        .map_err(|e| refuse(format!("{rel} cannot be read as an agent state: {e}")))?;
    let Value::Object(state) = doc.value_mut() else {
        return Err(refuse(format!("{rel} is not a JSON object")));
    };
    if a.status != "paused" {
        return Err(refuse(format!(
            "{} is {}, not paused: only a paused agent waits for resume or restart",
            a.agent, a.status
        )));
    }
    // The pause a PRD conflict puts the whole project in comes first: no
    // agent carries the project on until a human settled it.
    let agent_name = a.agent.clone();
    super::pause::refuse_while_paused(
        snap,
        &format!("{agent_name} cannot {choice}"),
        &format!("then decide resume or restart for {agent_name}"),
    )?;
    // "Now" is never earlier than the project's own last update: the
    // reader offers only a restart once the files show the project moved
    // on past the token's expiry, and so does the write.
    let judged_at = last_update(snap.project()).map_or(req.now, |u| u.max(req.now));
    if choice == "resume" && a.resume_expired(judged_at) {
        return Err(refuse(match (a.resume_expires_at, a.paused_at) {
            (Some(exp), _) => format!(
                "{} cannot resume: its resume token expired at {} (24 h after it paused); it can only restart",
                a.agent,
                stamp(exp)
            ),
            (None, None) => format!(
                "{} cannot resume: its state says no time it paused, so its token's age is unknown; it can only restart",
                a.agent
            ),
            (None, Some(_)) => format!(
                "{} cannot resume: it has no resume token; it can only restart",
                a.agent
            ),
        }));
    }
    if let Some(Value::Object(prev)) = state.get("resume_decision") {
        let same = prev.get("choice").and_then(Value::as_str) == Some(choice);
        let at = prev
            .get("at")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<chrono::DateTime<chrono::Utc>>().ok());
        let this_pause = match (at, a.paused_at) {
            (Some(at), Some(p)) => at >= p,
            _ => true,
        };
        if same && this_pause {
            return Err(refuse(format!(
                "{} already has the decision {choice} (by {}, at {}); the server has not acted on it yet",
                a.agent,
                prev.get("by").and_then(Value::as_str).unwrap_or("?"),
                prev.get("at").and_then(Value::as_str).unwrap_or("?"),
            )));
        }
    }
    let mut d = Map::new();
    d.insert("choice".into(), Value::from(choice));
    d.insert("by".into(), Value::from(req.by.as_str()));
    d.insert("at".into(), Value::from(stamp(req.now)));
    state.insert("resume_decision".into(), Value::Object(d));
    let call = state
        .get("call_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let bytes = doc
        .into_bytes()
        .map_err(|e| refuse(format!("{rel}: {e}")))?;

    let reference = match &call {
        Some(c) => format!("agent/{}/{c}", a.agent),
        None => format!("agent/{}", a.agent),
    };
    let paused = a
        .paused_at
        .map_or(String::new(), |t| format!(" (paused at {})", stamp(t)));
    let mut payload = Map::new();
    payload.insert("agent".into(), Value::from(a.agent.as_str()));
    payload.insert("choice".into(), Value::from(choice));
    payload.insert("by".into(), Value::from(req.by.as_str()));
    let event = Event {
        kind: "resume_decision",
        reference: Some(&reference),
        summary: format!("{} chose {choice} for {}{paused}", req.by, a.agent),
        payload: Some(Value::Object(payload)),
    };
    Ok(vec![
        Edit::Replace {
            file: rel.to_owned(),
            bytes,
        },
        event.edit(req.now),
    ])
}
