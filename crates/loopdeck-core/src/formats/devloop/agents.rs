//! Agents: `agent-state/{agent}.json` (AgentRuntimeState) with
//! `agent-state/{agent}-todo.json` (AgentTodolist).
//!
//! `current_step` is 0-based: step 2 of 5 shows as `3/5`. A paused agent
//! waits for a human to resume or restart it; its resume token is valid for
//! 24 hours from the moment the server paused it (the state's `updated_at`).

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use super::read_json;
use super::runs::safe_component;
use super::schema::{self, AgentFile, TodoFile, TodoItem, count};
use crate::model::{Activity, Agent, Finding, Level, Project};
use crate::store;

pub(crate) const STATE_DIR: &str = "agent-state";
/// At most this many agents are read (the seed has six kinds).
const MAX_AGENTS: usize = 64;
/// How long a resume token stays valid (seed: Process.StatePersistence).
pub(crate) const RESUME_TOKEN_HOURS: i64 = 24;

/// Every agent with a state file, in name order, with the path of that file.
pub(crate) fn read(p: &mut Project, dir: &Path) -> Vec<(String, Agent)> {
    let state_dir = match store::locate(dir, STATE_DIR) {
        Ok(Some(d)) => d,
        Ok(None) => return Vec::new(),
        Err(e) => {
            p.problem(STATE_DIR, e.to_string());
            return Vec::new();
        }
    };
    // A directory that cannot be listed hides its agents: say so.
    if let Err(e) = std::fs::read_dir(&state_dir) {
        p.problem(
            STATE_DIR,
            format!("the agents cannot be read: {}", store::StoreError::from(e)),
        );
        return Vec::new();
    }
    let names: Vec<String> = store::list_names(&state_dir)
        .into_iter()
        .filter(|n| n.ends_with(".json") && !n.ends_with("-todo.json") && !n.starts_with('.'))
        .filter(|n| safe_component(n))
        .take(MAX_AGENTS)
        .collect();
    let mut out = Vec::new();
    for name in names {
        let rel = format!("{STATE_DIR}/{name}");
        let Some(state) = read_json::<AgentFile>(p, dir, &rel) else {
            continue;
        };
        let stem = name.trim_end_matches(".json");
        let todo_rel = format!("{STATE_DIR}/{stem}-todo.json");
        let todo = match store::locate(dir, &todo_rel) {
            Ok(Some(_)) => read_json::<TodoFile>(p, dir, &todo_rel),
            _ => None,
        };
        let a = agent(p, state, todo, stem, &rel);
        out.push((rel, a));
    }
    out
}

fn agent(p: &mut Project, s: AgentFile, todo: Option<TodoFile>, stem: &str, rel: &str) -> Agent {
    let name = s
        .agent
        .clone()
        .filter(|a| !a.trim().is_empty())
        .unwrap_or_else(|| stem.to_owned());
    // A todo list of another call is stale: the agent has moved on.
    let todo = todo.filter(|t| match (&t.call_id, &s.call_id) {
        (Some(a), Some(b)) if a != b => {
            p.findings.push(
                Finding::new(
                    Level::Info,
                    "devloop.todo-stale",
                    format!(
                        "{name}'s todo list belongs to call {}, not the current call {}; it is ignored",
                        a.0, b.0
                    ),
                )
                .at(format!("{STATE_DIR}/{stem}-todo.json")),
            );
            false
        }
        _ => true,
    });
    let mut problems = Vec::new();
    let todo_created = todo.as_ref().and_then(|t| t.created_at.as_ref()?.at());
    let (items, current, todo_pct): (Vec<TodoItem>, Option<String>, Option<f64>) = match todo {
        Some(t) => (
            schema::each(t.items, "items", &mut problems),
            t.current.map(|c| c.0),
            t.progress_pct,
        ),
        None => (Vec::new(), None, None),
    };
    for problem in problems {
        p.problem(&format!("{STATE_DIR}/{stem}-todo.json"), problem);
    }
    let item_id = |i: &TodoItem| i.id.as_ref().map(|t| t.0.clone());
    // Where the agent is: its own 0-based step, else the todo's current item.
    let current_index = current
        .as_ref()
        .and_then(|c| items.iter().position(|i| item_id(i).as_ref() == Some(c)));
    let total = count(s.total_steps)
        .filter(|&t| t > 0)
        .or_else(|| (!items.is_empty()).then_some(items.len() as u64));
    let index = count(s.current_step)
        .filter(|_| count(s.total_steps).is_some_and(|t| t > 0))
        .or(current_index.map(|i| i as u64));
    let step = match (index, total) {
        (Some(i), Some(t)) => Some(format!("{}/{t}", i.saturating_add(1).min(t))),
        _ => None,
    };
    let doing = current_index
        .and_then(|i| items.get(i))
        .or_else(|| items.iter().find(|i| i.status.as_deref() == Some("doing")))
        .or_else(|| index.and_then(|i| items.get(usize::try_from(i).ok()?)))
        .and_then(|i| i.description.clone());
    let done = items
        .iter()
        .filter(|i| i.status.as_deref() == Some("done"))
        .count();
    let progress_pct = todo_pct
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(0.0, 100.0).round() as u8)
        .or_else(|| (!items.is_empty()).then(|| (done * 100 / items.len()) as u8));
    let status = s.status.clone().unwrap_or_else(|| "unknown".to_owned());
    let updated_at = s.updated_at.as_ref().and_then(|t| t.at());
    let paused_at = (status == "paused").then_some(updated_at).flatten();
    let has_resume_token = s
        .resume_token
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty());
    let error = s
        .error
        .as_ref()
        .map(|e| match (&e.code, e.message.as_deref()) {
            (Some(c), Some(m)) => format!("{}: {m}", c.0),
            (Some(c), None) => c.0.clone(),
            (None, Some(m)) => m.to_owned(),
            (None, None) => "error".to_owned(),
        });
    if status == "error" {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.agent-error",
                format!(
                    "{name} ended in error: {}",
                    error.as_deref().unwrap_or("no error recorded")
                ),
            )
            .at(rel),
        );
    }
    if !matches!(
        status.as_str(),
        "idle" | "running" | "paused" | "done" | "error"
    ) {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.unknown-agent-status",
                format!("{name} has status `{status}`, which the seed does not define"),
            )
            .at(rel),
        );
    }
    // Its own files' last sign of life: the state's times, the todo
    // list's and its items' (the timeline's events are added by the
    // project's reader, which holds them).
    let last = [
        updated_at,
        s.started_at.as_ref().and_then(|t| t.at()),
        todo_created,
    ]
    .into_iter()
    .chain(items.iter().flat_map(|i| {
        [&i.started_at, &i.finished_at]
            .into_iter()
            .map(|t| t.as_ref().and_then(|t| t.at()))
    }))
    .flatten()
    .max();
    let activity = (status == "running").then_some(Activity { last, limit: None });
    Agent {
        activity,
        status_kind: super::kinds::agent(&status),
        agent: name,
        status,
        step,
        step_index: index,
        total_steps: total,
        doing,
        unit: s.unit_id.map(|t| t.0),
        progress_pct,
        paused_at,
        has_resume_token,
        resume_expires_at: token_expiry(paused_at, has_resume_token),
        started_at: s.started_at.as_ref().and_then(|t| t.at()),
        error,
    }
}

/// The agent a state file describes, by the reader's own rules: the write
/// side (`act resume-agent`) judges the resume token exactly as the views do.
pub(crate) fn from_state(bytes: &[u8], stem: &str) -> Result<Agent, String> {
    let (state, _) = schema::parse_file::<AgentFile>(bytes)?;
    let mut scratch = Project::new(
        crate::model::Format::Devloop,
        std::path::PathBuf::new(),
        String::new(),
    );
    let rel = format!("{STATE_DIR}/{stem}.json");
    Ok(agent(&mut scratch, state, None, stem, &rel))
}

/// When a paused agent's resume token stops being usable.
pub(crate) fn token_expiry(paused_at: Option<DateTime<Utc>>, token: bool) -> Option<DateTime<Utc>> {
    paused_at
        .filter(|_| token)
        // A pause time at the end of chrono's range must not overflow.
        .and_then(|t| t.checked_add_signed(Duration::hours(RESUME_TOKEN_HOURS)))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_pause_at_the_end_of_time_does_not_overflow() {
        let (mut a, _) = agent_from(
            r#"{"agent":"x","status":"paused","resume_token":"t","updated_at":"2026-06-01T00:00:00Z"}"#,
            None,
        );
        a.paused_at = Some(DateTime::<Utc>::MAX_UTC);
        a.has_resume_token = true;
        assert_eq!(token_expiry(a.paused_at, true), None);
        // Without an expiry instant, the token is unusable whatever "now" is.
        a.resume_expires_at = token_expiry(a.paused_at, true);
        assert!(a.resume_expired(DateTime::<Utc>::MIN_UTC));
        assert!(a.resume_expired(DateTime::<Utc>::MAX_UTC));
    }

    use super::*;
    use crate::model::Format;
    use std::fs;

    fn agent_from(state: &str, todo: Option<&str>) -> (Agent, Project) {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join(STATE_DIR)).unwrap();
        fs::write(d.join("agent-state/architect.json"), state).unwrap();
        if let Some(t) = todo {
            fs::write(d.join("agent-state/architect-todo.json"), t).unwrap();
        }
        let mut p = Project::new(Format::Devloop, d.to_path_buf(), "x".into());
        let mut agents = read(&mut p, d);
        assert_eq!(agents.len(), 1, "{:?}", p.problems);
        let (rel, a) = agents.remove(0);
        assert_eq!(rel, "agent-state/architect.json");
        (a, p)
    }

    const TODO: &str = r#"{"call_id":"c1","items":[
        {"id":"step-001","description":"读 prd.html","status":"done"},
        {"id":"step-002","description":"识别功能列表","status":"done"},
        {"id":"step-003","description":"拆分 OAuth 功能为 3 个 Unit","status":"doing"},
        {"id":"step-004","description":"写 contract","status":"todo"},
        {"id":"step-005","description":"生成 spec","status":"todo"}],
        "current":"step-003","progress_pct":40}"#;

    #[test]
    fn step_is_one_based_of_the_total() {
        let (a, p) = agent_from(
            r#"{"agent":"architect","status":"running","call_id":"c1","current_step":2,"total_steps":5,"started_at":"2026-06-01T10:00:00Z","updated_at":"2026-06-01T11:00:00Z"}"#,
            Some(TODO),
        );
        assert_eq!(a.step.as_deref(), Some("3/5"), "Architect at step 3/5");
        assert_eq!(a.step_index, Some(2));
        assert_eq!(a.doing.as_deref(), Some("拆分 OAuth 功能为 3 个 Unit"));
        assert_eq!(a.progress_pct, Some(40));
        assert_eq!(a.paused_at, None);
        assert!(p.findings.is_empty() && p.problems.is_empty());
    }

    #[test]
    fn steps_fall_back_to_the_todo_list_and_paused_agents_keep_their_time() {
        // total_steps 0: the agent has not written its steps yet.
        let (a, _) = agent_from(
            r#"{"agent":"architect","status":"paused","call_id":"c1","current_step":0,"total_steps":0,"resume_token":"rt","updated_at":"2026-05-31T05:50:12Z"}"#,
            Some(TODO),
        );
        assert_eq!(a.step.as_deref(), Some("3/5"));
        assert_eq!(
            a.paused_at.map(|t| t.to_rfc3339()),
            Some("2026-05-31T05:50:12+00:00".to_owned())
        );
        assert!(a.has_resume_token);
        assert_eq!(
            a.resume_expires_at.map(|t| t.to_rfc3339()),
            Some("2026-06-01T05:50:12+00:00".to_owned())
        );
    }

    #[test]
    fn a_stale_todo_list_and_errors_are_findings() {
        let (a, p) = agent_from(
            r#"{"status":"error","call_id":"c2","current_step":9,"total_steps":4,"error":{"code":"E_TIMEOUT","message":"wallclock"}}"#,
            Some(TODO),
        );
        assert_eq!(a.agent, "architect", "named after its file");
        assert_eq!(a.step.as_deref(), Some("4/4"), "clamped to the total");
        assert_eq!(a.doing, None);
        assert_eq!(a.error.as_deref(), Some("E_TIMEOUT: wallclock"));
        let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, vec!["devloop.todo-stale", "devloop.agent-error"]);
    }
}
