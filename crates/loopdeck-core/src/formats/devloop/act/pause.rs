//! Seed 003 (PRD-Site): "data-conflict aside 仅出现在 index.html 顶部，存在时
//! 整个项目暂停等人" — while a PRD page holds `<aside data-conflict>`, the
//! whole project pauses for a human. The human settles it with a new
//! requirement that says which side wins (the PM agent takes it through the
//! server and removes the aside); until then nothing may carry the project
//! on: no sign-off, no agent resumed or restarted. Abandoning ends the
//! project and stays possible; the requirement is the way out.
//!
//! The pages are read through the decision's snapshot, as the reader reads
//! them (`docs::prd_pages`, `html::prd`): what the inbox shows as a
//! conflict is what refuses here, and a console decision made from a
//! reading without the conflict is refused as changed if one appears.

use super::event::{cut, one_line};
use super::refuse;
use crate::formats::devloop::{docs, html};
use crate::store::txn::{ActError, Snapshot};

/// How much of a conflict's text a refusal quotes.
const QUOTED: usize = 160;

/// `(page, text)` of each open conflict aside, in the reader's page order.
/// A page that cannot be read is passed over, as the reader passes over it
/// (it reports it as a problem of the project).
pub(super) fn open_conflicts(snap: &mut Snapshot) -> Result<Vec<(String, String)>, ActError> {
    let mut out = Vec::new();
    for page in docs::prd_pages(snap.project()) {
        let bytes = match snap.read(&page) {
            Ok(Some(b)) => b,
            Ok(None) | Err(ActError::Store { .. }) => continue,
            Err(e) => return Err(e),
        };
        let text = String::from_utf8_lossy(bytes);
        out.extend(
            html::prd(&text)
                .conflicts
                .into_iter()
                .map(|c| (page.clone(), c)),
        );
    }
    Ok(out)
}

/// Refuse `what` while a conflict pauses the project; `then` says what
/// follows once it is settled.
pub(super) fn refuse_while_paused(
    snap: &mut Snapshot,
    what: &str,
    then: &str,
) -> Result<(), ActError> {
    let conflicts = open_conflicts(snap)?;
    let Some((page, text)) = conflicts.first() else {
        return Ok(());
    };
    let more = match conflicts.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Err(refuse(format!(
        "{what}: the PRD conflict in {page} is open («{}»){more}, and while it is there the whole \
         project pauses for a human (seed 003). Settle it first: `loopdeck act {} requirement TEXT` \
         saying which side wins (the PM agent takes it through the devloop server and removes the \
         aside); {then}",
        cut(&one_line(text), QUOTED),
        snap.project().display()
    )))
}
