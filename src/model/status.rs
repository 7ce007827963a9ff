//! The format-neutral kind of a status word. Each reader maps its format's
//! own status enum to a kind; views colour and mark by the kind and never
//! guess from the word.

use serde::Serialize;

/// What a status means to the human watching, whatever the format calls it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StatusKind {
    /// Finished: completed, shipped, verified, fixed.
    Done,
    /// Work is going on: executing, coding, testing, in progress.
    Running,
    /// Waits for a human: a question, an approval, a paused agent.
    Waiting,
    /// Not started or still being shaped: planning, research, discussion, open.
    Planning,
    /// Cannot go on until something else happens.
    Blocked,
    /// Went wrong: a failed run, an error, a file that cannot be read.
    Failed,
    /// The state was rebuilt from other files (the state file is missing or corrupt).
    Rebuilt,
    /// Nothing is known, or the word is not one the format defines.
    #[default]
    Unknown,
}

impl StatusKind {
    /// TEMPORARY bridge while readers gain explicit mappings: the old
    /// substring guess, moved out of the UI. Each format replaces its calls
    /// with a table of its own status words; then this goes.
    pub fn guess(status: &str) -> Self {
        let s = status.to_lowercase();
        let has = |w: &str| s.contains(w);
        if has("fail")
            || has("block")
            || has("error")
            || has("unreadable")
            || has("abandon")
            || has("over")
        {
            StatusKind::Failed
        } else if has("wait")
            || has("pause")
            || has("pending_user")
            || has("stale")
            || has("conflict")
        {
            StatusKind::Waiting
        } else if has("pass")
            || has("complete")
            || has("done")
            || has("ship")
            || has("verified")
            || has("fixed")
        {
            StatusKind::Done
        } else if has("exec")
            || has("running")
            || has("progress")
            || has("active")
            || has("coding")
            || has("testing")
            || has("fixing")
        {
            StatusKind::Running
        } else if has("research") || has("plan") || has("discuss") || has("verif") || has("open") {
            StatusKind::Planning
        } else if has("rebuilt") {
            StatusKind::Rebuilt
        } else {
            StatusKind::Unknown
        }
    }
}

/// TEMPORARY: give every status of `p` still `Unknown` the guessed kind.
/// Goes with [`StatusKind::guess`] once every reader maps its own words.
pub fn guess_kinds(p: &mut super::Project) {
    let fill = |kind: &mut StatusKind, word: &str| {
        if *kind == StatusKind::Unknown {
            *kind = StatusKind::guess(word);
        }
    };
    fill(&mut p.status_kind, &p.status);
    for t in &mut p.detail.tasks {
        fill(&mut t.status_kind, &t.status);
    }
    for u in &mut p.detail.units {
        fill(&mut u.status_kind, &u.status);
    }
    for a in &mut p.detail.agents {
        fill(&mut a.status_kind, &a.status);
    }
    for b in &mut p.detail.bugs {
        fill(&mut b.status_kind, &b.status);
    }
}
