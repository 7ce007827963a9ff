//! Reading states written by older PRD-master versions (seed 000, Step 0).
//!
//! Below 0.5 the stage numbers meant something else: old 2 (research) is new
//! 3, old 3.x (proposal debate) is new 4.x, old 4 (demo) survives only as a
//! history artefact, 5.x is unchanged. From 0.5 to 0.6, open questions gain a
//! `status` derived from their owner. The migration is shown, never written,
//! until the human acts.

use serde::Serialize;

use super::frontier::{self, is_agent_owner};
use super::schema::{Id, NextAction, Scalar, State};

/// What the migrated view changed, for `show` and the resume card.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Migration {
    pub from_version: Option<String>,
    pub stage_from: Option<String>,
    pub stage_to: Option<String>,
    pub notes: Vec<String>,
    /// The value argument must be done next (an unfinished pre-0.5 project
    /// whose scene anchor lacks it).
    pub value_argument_next: bool,
    /// The seed's `legacy_completed_without_value_stage`: a finished old
    /// project, marked, never reopened.
    pub completed_without_value_stage: bool,
}

/// `workflow_version` as read from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Version {
    Missing,
    /// (major, minor), from `0.6`, `"0.6"`, `"v0.10"`, `"0.6.1"`.
    Known(u32, u32),
    Unreadable(String),
}

pub(crate) fn version(state: &State) -> Version {
    let Some(raw) = state.workflow_version.as_ref().map(Scalar::text) else {
        return Version::Missing;
    };
    let t = raw.trim().trim_start_matches(['v', 'V']);
    let mut parts = t.split('.');
    let major = parts.next().and_then(|p| p.parse::<u32>().ok());
    let minor = parts.next().map_or(Some(0), |p| p.parse::<u32>().ok());
    match (major, minor) {
        (Some(ma), Some(mi)) if parts.all(|p| p.parse::<u32>().is_ok()) => Version::Known(ma, mi),
        _ => Version::Unreadable(raw),
    }
}

/// Old (pre-0.5) stage → new stage. `None` for the demo stage, which has no
/// new equivalent.
pub(crate) fn map_stage(old: &str) -> Option<String> {
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

/// The leading number of a stage ("4.5" → 4), when it has one.
pub(crate) fn stage_major(stage: &str) -> Option<u32> {
    stage.trim().split('.').next()?.parse().ok()
}

/// Is an old project finished? A final PRD is recorded, or it reached the
/// delivery stages (6.x). The seed does not define "completed" for old
/// states; this is the reading that never reopens finished work.
fn is_completed(state: &State) -> bool {
    let final_prd = state
        .deliverables
        .as_ref()
        .and_then(|d| d.get("final_prd"))
        .and_then(|v| v.as_str())
        .is_some_and(|s| !s.trim().is_empty());
    let late = state
        .current_stage
        .as_ref()
        .and_then(|s| stage_major(&s.text()))
        .is_some_and(|m| m >= 6);
    final_prd || late
}

/// Migrate `state` in place for viewing. `has_value_section` tells whether
/// the scene anchor already holds the value-argument section; it is asked
/// only for a pre-0.5 state (it reads a file). `None` for a current state
/// (0.6 or later, or a version that cannot be read: reported separately).
pub(crate) fn migrate(
    state: &mut State,
    has_value_section: impl FnOnce() -> bool,
) -> Option<Migration> {
    let (pre_05, pre_06) = match version(state) {
        Version::Missing => (true, true),
        Version::Known(ma, mi) => ((ma, mi) < (0, 5), (ma, mi) < (0, 6)),
        Version::Unreadable(_) => return None,
    };
    if !pre_06 {
        return None;
    }
    let mut m = Migration {
        from_version: state.workflow_version.as_ref().map(Scalar::text),
        ..Migration::default()
    };
    if pre_05 {
        let completed = is_completed(state);
        if let Some(old) = state.current_stage.as_ref().map(Scalar::text) {
            m.stage_from = Some(old.clone());
            let new = map_stage(&old).unwrap_or_else(|| format!("{old} (legacy demo)"));
            m.notes.push(match map_stage(&old) {
                Some(n) if n == old => format!("stage {old} keeps its number in v0.6"),
                Some(n) => format!("old stage {old} is stage {n} in v0.6"),
                None => format!("old stage {old} (demo) is kept as history only"),
            });
            state.current_stage = Some(Scalar::Str(new.clone()));
            m.stage_to = Some(new);
        }
        state.completed_stages = state
            .completed_stages
            .iter()
            .filter_map(|s| map_stage(&s.text()).map(Scalar::Str))
            .collect();
        if !has_value_section() {
            if completed {
                m.completed_without_value_stage = true;
                m.notes.push("finished before the value-argument stage existed: marked legacy_completed_without_value_stage, not reopened".to_owned());
            } else {
                m.value_argument_next = true;
                m.notes.push("the scene anchor lacks the value argument (价值论证（阶段 2 已确认）); do it next, then return to the mapped stage".to_owned());
            }
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

/// The next action a migrated state resumes with (seed 000, Step 0 and
/// 阶段 1 前沿): an unfinished project without the value section does the
/// value argument next; a project in stage 1 resumes with `stage1_frontier`
/// recomputed from `open_questions`. The replaced action goes whole: its
/// `askuserquestion_options` answered another question and are never
/// offered again.
pub(crate) fn replace_next_action(state: &mut State, m: &mut Migration) {
    let replaced = if m.value_argument_next {
        NextAction {
            kind: Some("value_argument".to_owned()),
            description: Some("完成价值论证（阶段 2）, then return to the mapped stage".to_owned()),
            ..NextAction::default()
        }
    } else if state
        .current_stage
        .as_ref()
        .and_then(|s| stage_major(&s.text()))
        == Some(1)
    {
        stage1_frontier(state)
    } else {
        return;
    };
    let old = state.next_action.as_ref();
    let old_kind = old.and_then(|n| n.kind.clone());
    let dropped = old.map_or(0, |n| n.askuserquestion_options.len());
    let mut note = format!(
        "next_action recomputed as {} (was {})",
        replaced.kind.as_deref().unwrap_or("?"),
        old_kind.as_deref().unwrap_or("none")
    );
    if dropped > 0 {
        note.push_str(&format!(
            "; its {dropped} old answer option(s) belong to the replaced action and are not offered"
        ));
    }
    m.notes.push(note);
    state.next_action = Some(replaced);
}

/// Stage 1's snapshot, computed from the dependency frontier: the questions
/// the user can answer now, and the fact checks under way.
fn stage1_frontier(state: &State) -> NextAction {
    let f = frontier::compute(&state.open_questions, None, &mut Vec::new());
    let ids = |qs: &[crate::model::Question]| qs.iter().map(|q| q.id.clone()).collect::<Vec<_>>();
    let (questions, research) = (ids(&f.questions), ids(&f.research));
    let mut description = "stage 1 frontier, recomputed from open_questions".to_owned();
    if !questions.is_empty() {
        description.push_str(&format!(": answer {}", questions.join(", ")));
    }
    if !research.is_empty() {
        description.push_str(&format!("; fact checks under way: {}", research.join(", ")));
    }
    NextAction {
        kind: Some("stage1_frontier".to_owned()),
        description: Some(description),
        askuserquestion_options: Vec::new(),
        question_ids: questions.into_iter().map(Id).collect(),
        research_ids: research.into_iter().map(Id).collect(),
        answer: None,
    }
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
        assert_eq!(m.stage_to, None, "0.5 keeps its stage numbers");
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
    fn versions_compare_as_numbers_not_decimals() {
        let v = |raw: &str| {
            let s: State =
                serde_json::from_str(&format!(r#"{{"workflow_version":{raw}}}"#)).unwrap();
            version(&s)
        };
        assert_eq!(v(r#""0.10""#), Version::Known(0, 10));
        assert_eq!(v(r#""0.6.1""#), Version::Known(0, 6));
        assert_eq!(v("0.6"), Version::Known(0, 6));
        assert_eq!(v(r#""v1""#), Version::Known(1, 0));
        assert!(matches!(v(r#""six""#), Version::Unreadable(_)));
        let mut s: State =
            serde_json::from_str(r#"{"workflow_version":"0.10","current_stage":"3.2"}"#).unwrap();
        assert_eq!(migrate(&mut s, || false), None, "0.10 is newer than 0.6");
    }

    #[test]
    fn finished_legacy_projects_are_marked_not_reopened() {
        let mut s: State = serde_json::from_str(r#"{"workflow_version":"0.4","current_stage":"5.2","completed_stages":["1","2","3.1","4"],
            "deliverables":{"final_prd":"output/PRD.md"}}"#).unwrap();
        let m = migrate(&mut s, || false).unwrap();
        assert!(m.completed_without_value_stage);
        assert!(!m.value_argument_next);
        let done: Vec<String> = s.completed_stages.iter().map(Scalar::text).collect();
        assert_eq!(done, vec!["1", "3", "4.1"], "old 4 (demo) is history only");
    }

    #[test]
    fn pre_05_maps_stage_and_asks_for_value_argument() {
        let mut s: State = serde_json::from_str(r#"{"current_stage":"3.2"}"#).unwrap();
        let m = migrate(&mut s, || false).unwrap();
        assert_eq!(m.stage_to.as_deref(), Some("4.2"));
        assert!(m.value_argument_next);
        assert!(m.notes.iter().any(|n| n.contains("价值论证")));
    }
}
