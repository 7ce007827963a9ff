//! What devloop's files say of work going on, for stall detection
//! ([`crate::model::Project::stall`]; seed 003).
//!
//! - An agent runs while `agent-state/{agent}.json` says `status:
//!   running`: the LoopController writes it before each call and writes
//!   `done` or `error` after it (Process.StatePersistence). Its last sign
//!   of life is the latest of the state's `updated_at` (the agent's
//!   `update_runtime_state` rewrites it at each checkpoint) and
//!   `started_at`, its todo list's times (`update_todo_item` marks each
//!   item started and finished), and its own timeline events.
//! - The silence it may keep is one call's wall clock, ProjectBudgets in
//!   `project.json` (Process.Budget): `agent_wallclock_ms` (default
//!   600,000: 10 minutes), `integrator_wallclock_ms` for the integrator's
//!   L2 run (default 300,000: 5 minutes). A call silent for longer has
//!   outlived the budget the controller gives it, which would have ended
//!   it with `done` or `error`.
//! - The project runs while `project.json` says `running`, no agent runs
//!   or is paused (a paused agent waits for a resume decision) and nothing
//!   waits for a human; its last sign of life is its last update (the
//!   later of `updated_at` and the last timeline event: the controller
//!   logs every agent started and done). It may keep one agent call's
//!   silence.

use chrono::TimeDelta;

use super::schema::ProjectMeta;
use crate::model::{Activity, Project};

/// The seed's default wall clock of one agent call (Process.Budget).
pub(crate) const AGENT_WALLCLOCK_MS: f64 = 600_000.0;
/// The seed's default wall clock of one L2 (integrator) run.
pub(crate) const INTEGRATOR_WALLCLOCK_MS: f64 = 300_000.0;
/// The agent whose call is an L2 run.
const INTEGRATOR: &str = "integrator";

/// A budget in milliseconds as a limit: the file's when it is a positive
/// number, else the seed's default.
fn wallclock(ms: Option<f64>, default: f64) -> TimeDelta {
    let ms = ms.filter(|v| v.is_finite() && *v > 0.0).unwrap_or(default);
    // Beyond a century it is no budget anyone means.
    TimeDelta::milliseconds(ms.min(3.2e12) as i64)
}

/// Set the claims of `p` (its agents already read, its inbox filled).
pub(super) fn fill(p: &mut Project, meta: &ProjectMeta) {
    let call = wallclock(meta.agent_wallclock_ms, AGENT_WALLCLOCK_MS);
    let l2_run = wallclock(meta.integrator_wallclock_ms, INTEGRATOR_WALLCLOCK_MS);
    let timeline = &p.detail.timeline;
    for a in &mut p.detail.agents {
        let Some(activity) = a.activity.as_mut() else {
            continue;
        };
        // Its own events: the source the seed gives it (`pm-agent` for
        // the pm).
        let own = format!("{}-agent", a.agent);
        let said = timeline
            .iter()
            .rev()
            .filter(|e| e.source == a.agent || e.source == own)
            .find_map(|e| e.at);
        activity.last = activity.last.max(said);
        activity.limit = Some(if a.agent == INTEGRATOR { l2_run } else { call });
    }
    let quiet = p
        .detail
        .agents
        .iter()
        .all(|a| !matches!(a.status.as_str(), "running" | "paused"));
    p.activity = (p.status == "running" && quiet && p.inbox.is_empty()).then_some(Activity {
        last: p.updated_at,
        limit: Some(call),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_the_files_when_it_is_one() {
        let d = |ms, default| wallclock(ms, default).num_seconds();
        assert_eq!(d(None, AGENT_WALLCLOCK_MS), 600);
        assert_eq!(d(Some(1_200_000.0), AGENT_WALLCLOCK_MS), 1200);
        for bad in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            assert_eq!(d(Some(bad), INTEGRATOR_WALLCLOCK_MS), 300, "{bad}");
        }
        assert!(d(Some(1e300), AGENT_WALLCLOCK_MS) > 0);
    }
}
