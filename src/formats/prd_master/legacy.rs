//! Reading states written by older PRD-master versions (seed 000, Step 0).
//!
//! Below 0.5 the stage numbers meant something else: old 2 (research) is new
//! 3, old 3.x (proposal debate) is new 4.x, old 4 (demo) survives only as a
//! history artefact, 5.x is unchanged. From 0.5 to 0.6, open questions gain a
//! `status` derived from their owner. The migration is shown, never written,
//! until the human acts.

use serde::Serialize;

use super::frontier::is_agent_owner;
use super::schema::{Scalar, State};

/// What the migrated view changed, for `show` and the resume card.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Migration {
    pub from_version: Option<String>,
    pub stage_from: Option<String>,
    pub stage_to: Option<String>,
    pub notes: Vec<String>,
}

/// `workflow_version` as a number; `None` when absent or unreadable.
fn version(state: &State) -> Option<f64> {
    let v = state.workflow_version.as_ref()?.text();
    v.trim().trim_start_matches('v').parse::<f64>().ok()
}

/// Old (pre-0.5) stage → new stage. `None` for the demo stage, which has no
/// new equivalent.
pub fn map_stage(old: &str) -> Option<String> {
    let old = old.trim();
    let (major, rest) = match old.split_once('.') {
        Some((m, r)) => (m, Some(r)),
        None => (old, None),
    };
    match major {
        "2" => Some(match rest {
            Some(r) => format!("3.{r}"),
            None => "3".to_owned(),
        }),
        "3" => Some(match rest {
            Some(r) => format!("4.{r}"),
            None => "4".to_owned(),
        }),
        "4" => None,
        _ => Some(old.to_owned()),
    }
}

/// Migrate `state` in place for viewing. `has_value_section` tells whether
/// the scene anchor already holds the value-argument section; it is asked
/// only for a pre-0.5 state (it reads a file).
pub fn migrate(state: &mut State, has_value_section: impl FnOnce() -> bool) -> Option<Migration> {
    let v = version(state);
    let pre_05 = v.is_none_or(|v| v < 0.5);
    let pre_06 = v.is_none_or(|v| v < 0.6);
    if !pre_06 {
        return None;
    }
    let mut m = Migration {
        from_version: state.workflow_version.as_ref().map(Scalar::text),
        ..Migration::default()
    };
    if pre_05 {
        if let Some(old) = state.current_stage.as_ref().map(Scalar::text) {
            m.stage_from = Some(old.clone());
            match map_stage(&old) {
                Some(new) => {
                    if new != old {
                        m.notes
                            .push(format!("old stage {old} is stage {new} in v0.6"));
                    }
                    state.current_stage = Some(Scalar::Str(new.clone()));
                    m.stage_to = Some(new);
                }
                None => {
                    m.notes
                        .push(format!("old stage {old} (demo) is kept as history only"));
                    m.stage_to = Some(format!("{old} (legacy demo)"));
                    state.current_stage = Some(Scalar::Str(format!("{old} (legacy demo)")));
                }
            }
        }
        if !has_value_section() {
            m.notes.push("the scene anchor lacks the value argument (价值论证（阶段 2 已确认）); do it next, then return to the mapped stage".to_owned());
        }
    }
    let mut filled = 0;
    for q in &mut state.open_questions {
        if q.status.is_none() {
            q.status = Some(
                if is_agent_owner(q.owner.as_deref()) {
                    "pending_research"
                } else {
                    "pending_user"
                }
                .to_owned(),
            );
            filled += 1;
        }
    }
    if filled > 0 {
        m.notes.push(format!(
            "{filled} open question(s) had no status; filled from owner"
        ));
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_mapping_follows_the_seed() {
        assert_eq!(map_stage("2").as_deref(), Some("3"));
        assert_eq!(map_stage("3.2").as_deref(), Some("4.2"));
        assert_eq!(map_stage("4"), None);
        assert_eq!(map_stage("5.1").as_deref(), Some("5.1"));
        assert_eq!(map_stage("1.3").as_deref(), Some("1.3"));
    }

    #[test]
    fn v05_fills_status_but_keeps_stage() {
        let mut s: State = serde_json::from_str(r#"{"workflow_version":"0.5","current_stage":"3.2",
            "open_questions":[{"id":"A","owner":"user"},{"id":"B","owner":"agent"},{"id":"C","owner":"user","status":"pending_user"}]}"#).unwrap();
        let m = migrate(&mut s, || true).unwrap();
        assert_eq!(m.stage_to, None);
        assert_eq!(s.current_stage, Some(Scalar::Str("3.2".into())));
        let st: Vec<_> = s
            .open_questions
            .iter()
            .map(|q| q.status.clone().unwrap())
            .collect();
        assert_eq!(st, vec!["pending_user", "pending_research", "pending_user"]);
        let mut current: State =
            serde_json::from_str(r#"{"workflow_version":"0.6","current_stage":"3"}"#).unwrap();
        assert_eq!(migrate(&mut current, || false), None);
    }

    #[test]
    fn pre_05_maps_stage_and_asks_for_value_argument() {
        let mut s: State = serde_json::from_str(r#"{"current_stage":"3.2"}"#).unwrap();
        let m = migrate(&mut s, || false).unwrap();
        assert_eq!(m.stage_to.as_deref(), Some("4.2"));
        assert!(m.notes.iter().any(|n| n.contains("价值论证")));
    }
}
