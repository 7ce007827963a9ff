//! `new-project NAME --work-type feature|bugfix [--mode ...]` (seed 000,
//! Step 1 and Step 3b): a project is a directory named after it in the
//! workspace; the work type is decided first, a feature then picks its
//! flow mode, and both are written into a fresh v0.6 `state.json` before
//! the flow starts. The exchange opens the project's `conversation.md`.

use serde_json::{Value, json};

use super::doc::{self, refuse};
use crate::formats::prd_master::{CONVERSATION, STATE_FILE};
use crate::model::Request;
use crate::store::txn::{ActError, Edit, Snapshot};

pub(crate) const WORK_TYPES: [&str; 2] = ["feature", "bugfix"];
pub(crate) const MODES: [&str; 3] = ["standard", "quick", "tech-constrained"];

/// Why `name` cannot name a project directory, if it cannot.
pub(crate) fn bad_name(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        Some("the project name is empty")
    } else if name != name.trim() {
        Some("the project name starts or ends with spaces")
    } else if name == "." || name == ".." || name.contains(['/', '\\']) {
        Some("the project name must be one directory name (no `/`, `\\`, `.` or `..`)")
    } else if name.starts_with('.') {
        Some("the project name must not start with `.` (a hidden directory is not listed)")
    } else if name.chars().any(char::is_control) {
        Some("the project name holds control characters")
    } else if name.len() > 200 {
        Some("the project name is longer than 200 bytes")
    } else {
        None
    }
}

/// The flow mode, checked: a feature picks one (standard when not given);
/// a bugfix has none.
pub(crate) fn mode_for(
    work_type: &str,
    mode: Option<&str>,
) -> Result<Option<&'static str>, String> {
    if !WORK_TYPES.contains(&work_type) {
        return Err(format!(
            "--work-type must be feature or bugfix, not `{work_type}`"
        ));
    }
    match (work_type, mode) {
        ("bugfix", Some(m)) => Err(format!(
            "--mode {m}: a bugfix has no flow mode (standard, quick and tech-constrained are feature flows)"
        )),
        ("bugfix", None) => Ok(None),
        (_, None) => Ok(Some("standard")),
        (_, Some(m)) => MODES
            .iter()
            .find(|x| **x == m)
            .map(|x| Some(*x))
            .ok_or_else(|| {
                format!("--mode must be standard, quick or tech-constrained, not `{m}`")
            }),
    }
}

/// The initial v0.6 state, in the seed's field order.
pub(crate) fn initial_state(
    name: &str,
    work_type: &str,
    mode: Option<&str>,
    req: &Request,
) -> Value {
    let ts = doc::stamp(req);
    let flow = match mode {
        Some(m) => format!("work_type={work_type}, workflow_mode={m}"),
        None => format!("work_type={work_type}"),
    };
    json!({
        "state_schema_version": 3,
        "workflow_version": "0.6",
        "project_name": name,
        "project_started_at_utc": ts,
        "last_updated_at_utc": ts,
        "work_type": work_type,
        "workflow_mode": mode,
        "contract_revision": 0,
        "source_ids_changed": [],
        "current_stage": "0",
        "completed_stages": [],
        "skipped_stages": [],
        "next_action": {
            "type": "start_stage",
            "description": format!("开始阶段 0，执行 {} 协议", mode.unwrap_or(work_type)),
        },
        "open_questions": [],
        "key_decisions_made": [],
        "agents_used": {
            "lead_pm_calls": 0,
            "reviewer_calls": 0,
            "author_calls": 0,
            "total_tokens_estimated": 0
        },
        "deliverables": {
            "scene_anchor": null,
            "conversation": CONVERSATION,
            "evidence": [],
            "drafts": [],
            "final_prd": null,
            "requirements_contract": null,
            "bugfix_contract": null,
            "ppt_pages": []
        },
        "user_inputs_log": [
            {"stage": "0", "timestamp": ts, "summary": format!("开始新项目：{flow}"), "by": req.by}
        ]
    })
}

/// The edits creating project `name` under the workspace (paths relative
/// to the workspace).
pub(crate) fn decide(
    snap: &mut Snapshot,
    req: &Request,
    name: &str,
    work_type: &str,
    mode: Option<&str>,
) -> Result<Vec<Edit>, ActError> {
    let state_file = format!("{name}/{STATE_FILE}");
    if snap.read(&state_file).ok().flatten().is_some() {
        return Err(refuse(format!("{name}/ already holds a state.json")));
    }
    let value = initial_state(name, work_type, mode, req);
    let mut bytes = serde_json::to_vec_pretty(&value)
        .map_err(|e| refuse(format!("cannot write the initial state: {e}")))?;
    bytes.push(b'\n');
    let ts = doc::stamp(req);
    let conversation = format!(
        "# 对话记录\n\n## {ts} · 阶段 0 · 开始新项目\n\n**问**：开始新项目 {name}：工作类型与流程模式？\n\n**答**（{}，经 loopdeck）：work_type={work_type}{}\n",
        req.by,
        mode.map(|m| format!("，workflow_mode={m}"))
            .unwrap_or_default()
    );
    Ok(vec![
        Edit::Replace {
            file: state_file,
            bytes,
        },
        Edit::Replace {
            file: format!("{name}/{CONVERSATION}"),
            bytes: conversation.into_bytes(),
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_visible_directory() {
        for bad in ["", " x", "a/b", "a\\b", ".", "..", ".hidden", "a\u{1b}b"] {
            assert!(bad_name(bad).is_some(), "{bad:?}");
        }
        assert_eq!(bad_name("补货 引擎-2"), None);
        assert!(bad_name(&"x".repeat(201)).is_some());
    }

    #[test]
    fn a_feature_picks_a_mode_a_bugfix_none() {
        assert_eq!(mode_for("feature", None), Ok(Some("standard")));
        assert_eq!(
            mode_for("feature", Some("tech-constrained")),
            Ok(Some("tech-constrained"))
        );
        assert_eq!(mode_for("bugfix", None), Ok(None));
        assert!(mode_for("bugfix", Some("quick")).is_err());
        assert!(mode_for("feature", Some("fast")).is_err());
        assert!(mode_for("Feature", None).is_err());
    }
}
