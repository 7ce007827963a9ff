//! The seed's bug lifecycle (seed 003, P-9 / Process.BugLifecycle): the
//! statuses a bug may have and the moves between them. The reader's
//! findings and inbox offers and the write side (`act bug`) check against
//! this one table.

/// The bug lifecycle (seed 003, P-9 / Process.BugLifecycle): Tester opens
/// (`open`), the next Coder round takes it (`fixing`), a green run fixes it
/// (`fixed`), a passing L2 verifies it (`verified`); the seed's own test:
/// "open → verified (skipping) → refused". Where the seed is silent: a bug
/// not yet verified may be closed as `wontfix` or `duplicate`, or go back
/// (a fix that failed again); `verified`, `wontfix` and `duplicate` are
/// final. The write side (`act bug`) checks against this same table.
pub(crate) fn next_states(from: &str) -> &'static [&'static str] {
    match from {
        "open" => &["fixing", "wontfix", "duplicate"],
        "fixing" => &["fixed", "open", "wontfix", "duplicate"],
        "fixed" => &["verified", "fixing", "open", "wontfix", "duplicate"],
        _ => &[],
    }
}

/// Where bug `id` at `status` is moved, and to what (`None` when final or
/// not a seed status).
pub(crate) fn address(id: &str, status: &str) -> Option<crate::model::Address> {
    let next = next_states(status);
    (!next.is_empty()).then(|| crate::model::Address {
        verb: "bug",
        target: Some(id.to_owned()),
        options: next.iter().map(|s| (*s).to_owned()).collect(),
    })
}

/// Is `from → to` a transition of the lifecycle? `None` when either word
/// is not one of the seed's statuses (that is another finding's business).
pub(crate) fn legal(from: &str, to: &str) -> Option<bool> {
    if !(STATES.contains(&from) && STATES.contains(&to)) {
        return None;
    }
    Some(next_states(from).contains(&to))
}

/// The seed's bug statuses (BugsNdjson `status`).
pub(crate) const STATES: &[&str] = &[
    "open",
    "fixing",
    "fixed",
    "verified",
    "wontfix",
    "duplicate",
];
