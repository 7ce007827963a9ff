//! The Overview's "since you looked" section: what changed in the project
//! since the user last looked at it (see `model::seen`), first on the card.

use ratatui::text::{Line, Span};

use super::View;
use super::widgets::field;
use crate::i18n::ago;
use crate::model::seen::{Since, Waiting};
use crate::model::{InboxKind, Project, since_seconds};

/// The most rows of one kind (new items, answered, bugs) before "… more".
const ROWS: usize = 5;

/// Push the section for `p` onto `lines` (nothing when nothing changed,
/// or the project was never seen before).
pub(super) fn section(m: &View, p: &Project, width: u16, lines: &mut Vec<Line<'static>>) {
    let Some(d) = m.seen.since(p).filter(|d| !d.is_empty()) else {
        return;
    };
    let t = &m.theme;
    let mut title = match since_seconds(Some(d.looked_at), m.now) {
        Some(s) => crate::t!("ui.since.title_ago", ago = ago(s)),
        None => crate::t!("ui.since.title").to_owned(),
    };
    // Read-only: what was looked at is read from the last run, never
    // saved (this look is forgotten).
    if m.readonly {
        title.push_str(crate::t!("ui.since.not_saved"));
    }
    lines.push(Line::from(Span::styled(title, t.accent.patch(t.bold))));
    rows(m, p, &d, width, lines);
    lines.push(Line::default());
}

/// An item's kind as the inbox shows it in the language spoken; the memory
/// keeps the word `InboxKind::label` gives (`question`), which is also its
/// key. A word no kind has is shown as remembered.
fn kind(stored: &str) -> &str {
    InboxKind::ALL
        .iter()
        .find(|k| k.label() == stored)
        .map_or(stored, |k| k.shown())
}

fn opt(v: Option<&str>) -> &str {
    v.unwrap_or("—")
}

fn percent(v: Option<u8>) -> String {
    v.map_or_else(|| "—".to_owned(), |p| format!("{p}%"))
}

/// What a new item says, as the project says it now, in the language
/// spoken (the memory keeps the English words `since_you_looked` gives).
fn new_title(p: &Project, i: &Waiting) -> String {
    p.inbox
        .iter()
        .find(|it| it.kind.label() == i.kind && it.reference == i.reference)
        .map_or_else(|| i.title.clone(), |it| it.title.shown().into_owned())
}

fn rows(m: &View, p: &Project, d: &Since, w: u16, lines: &mut Vec<Line<'static>>) {
    let t = &m.theme;
    let label = t.bold;
    if let Some(c) = &d.status {
        field(
            lines,
            w,
            crate::t!("ui.since.status"),
            &format!("{} → {}", c.before, c.after),
            label,
        );
    }
    if let Some(c) = &d.stage {
        let text = format!("{} → {}", opt(c.before.as_deref()), opt(c.after.as_deref()));
        field(lines, w, crate::t!("ui.since.stage"), &text, label);
    }
    if let Some(c) = &d.progress_percent {
        let text = format!("{} → {}", percent(c.before), percent(c.after));
        field(lines, w, crate::t!("ui.since.progress"), &text, label);
    }
    // An answered item is gone from the project: it says what the memory
    // kept (English).
    let items = |lines: &mut Vec<Line<'static>>, list: &[Waiting], new: bool, style| {
        let mark = if new { "+" } else { "✓" };
        for i in list.iter().take(ROWS) {
            let said = if new {
                new_title(p, i)
            } else {
                i.title.clone()
            };
            let text = format!("{} {said}", i.reference);
            field(lines, w, &format!("{mark} {}", kind(&i.kind)), &text, style);
        }
        more(lines, w, list.len(), t.muted);
    };
    items(lines, &d.new_items, true, t.warn);
    items(lines, &d.answered, false, t.ok);
    for b in d.bugs.iter().take(ROWS) {
        let text = match (&b.before, &b.after) {
            (Some(x), Some(y)) => format!("{x} → {y}"),
            (None, Some(y)) => crate::t!("ui.since.bug_new", status = y),
            (Some(x), None) => crate::t!("ui.since.bug_gone", status = x),
            (None, None) => String::new(),
        };
        field(
            lines,
            w,
            &crate::t!("ui.since.bug", id = b.id),
            &text,
            label,
        );
    }
    more(lines, w, d.bugs.len(), t.muted);
    if d.new_events > 0 {
        let text = crate::t!(
            "ui.since.events",
            n = d.new_events,
            plus = if d.more_events { "+" } else { "" }
        );
        field(lines, w, crate::t!("ui.since.timeline"), &text, label);
    }
}

fn more(lines: &mut Vec<Line<'static>>, w: u16, n: usize, style: ratatui::style::Style) {
    if n > ROWS {
        field(
            lines,
            w,
            "",
            &crate::t!("ui.since.more", n = n - ROWS),
            style,
        );
    }
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use chrono::Duration;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::super::tests::{now, press, screen, select, workspace_projects};
    use crate::app::{Command, Effect, Event, Focus, Model, Screen, lookup, update};
    use crate::model::{Event as TimelineEvent, InboxItem, InboxKind, Project};

    /// The workspace loaded three hours ago (the baseline of every
    /// project), the memory saved; now is now.
    pub(in crate::ui) fn loaded() -> (tempfile::TempDir, Model) {
        let (t, projects) = workspace_projects();
        let mut m = Model::new(vec!["workspace".into()], false, now() - Duration::hours(3));
        let effects = update(&mut m, Event::Loaded(projects));
        assert!(effects.contains(&Effect::SaveSeen), "{effects:?}");
        m.seen.dirty = false;
        m.now = now();
        (t, m)
    }

    /// The devloop project 智能补货 moved on: status, stage, progress, a new
    /// question and one answered, a bug moved, three events.
    pub(in crate::ui) fn moved_on(p: &Project) -> Project {
        let mut q = p.clone();
        q.status = "blocked".to_owned();
        q.stage = Some("L2 集成".to_owned().into());
        q.progress_percent = Some(q.progress_percent.unwrap_or(0).saturating_add(15).min(100));
        if !q.inbox.is_empty() {
            q.inbox.remove(0);
        }
        q.inbox.push(InboxItem {
            kind: InboxKind::Question,
            reference: "Q-9".to_owned(),
            title: "补货阈值按仓库还是按 SKU 设定？".to_owned().into(),
            since: Some(now()),
            options: Vec::new(),
            subject: None,
            act: None,
            why_not: None,
        });
        if let Some(b) = q.detail.bugs.first_mut() {
            b.status = "fixed".to_owned();
        }
        for i in 0..3 {
            q.detail.timeline.push(TimelineEvent {
                at: Some(now() - Duration::minutes(10 - i)),
                source: "coder".to_owned(),
                kind: "unit_done".to_owned(),
                summary: format!("单元 {i} 完成"),
                unit: None,
            });
        }
        q
    }

    pub(in crate::ui) fn reread(m: &mut Model, fresh: Project) -> Vec<Effect> {
        update(
            m,
            Event::Reread {
                dirs: vec![fresh.path.clone()],
                trees: vec![],
                projects: vec![fresh],
            },
        )
    }

    pub(in crate::ui) fn by_name<'a>(m: &'a Model, name: &str) -> &'a Project {
        m.projects.iter().find(|p| p.name.contains(name)).unwrap()
    }

    #[test]
    fn a_first_run_marks_nothing_and_n_says_so() {
        let (_t, mut m) = loaded();
        assert!(!m.seen.any_changed());
        assert!(!screen(&m, 80, 24).contains("• "));
        // No hint offers n; pressed, it says why it stays.
        assert!(!screen(&m, 200, 60).contains("n next changed"));
        let before = m.selected.clone();
        press(&mut m, KeyCode::Char('n'));
        assert_eq!(m.selected, before);
        assert_eq!(
            m.status.as_deref(),
            Some("nothing changed since you looked")
        );
    }

    #[test]
    fn changes_are_marked_n_jumps_and_opening_records() {
        let (_t, mut m) = loaded();
        let dev = by_name(&m, "智能补货").clone();
        let gsd = m
            .projects
            .iter()
            .find(|p| p.id.ends_with("paused-waiting"))
            .unwrap()
            .clone();
        reread(&mut m, moved_on(&dev));
        let mut g = gsd.clone();
        g.stage = Some("9".to_owned().into());
        reread(&mut m, g);
        assert!(m.seen.changed(by_name(&m, "智能补货")));
        let s = screen(&m, 80, 24);
        assert!(s.contains("• FBA 智能补货"), "{s}");
        assert!(s.contains("• paused-waiting"), "{s}");
        assert!(screen(&m, 200, 60).contains("n next changed"));
        // A reading alone does not make it seen: nothing to save.
        assert!(!m.seen.dirty);

        // n visits the changed projects, round the list.
        select(&mut m, "gsd/scene1-active-phase");
        let mut visited = Vec::new();
        for _ in 0..3 {
            press(&mut m, KeyCode::Char('n'));
            visited.push(m.selected_project().unwrap().name.clone());
        }
        assert!(
            visited.contains(&"paused-waiting".to_owned()),
            "{visited:?}"
        );
        assert!(
            visited.iter().any(|n| n.contains("智能补货")),
            "{visited:?}"
        );
        assert_eq!(visited[0], visited[2]);
        // Moving in the list is not looking.
        assert!(m.seen.changed(by_name(&m, "智能补货")) && !m.seen.dirty);

        // Opening it records it, and asks for a save.
        while !m.selected_project().unwrap().name.contains("智能补货") {
            press(&mut m, KeyCode::Char('n'));
        }
        let effects = update(
            &mut m,
            Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
        );
        assert_eq!(m.focus, Focus::Detail);
        assert!(effects.contains(&Effect::SaveSeen), "{effects:?}");
        assert!(!m.seen.changed(by_name(&m, "智能补货")));
        // The Overview still says what changed, while it is open.
        let s = screen(&m, 200, 60);
        assert!(s.contains("Since you looked (3h ago)"), "{s}");
        // In the detail, n goes to the next changed project, on its Overview.
        press(&mut m, KeyCode::Char('n'));
        assert_eq!(m.selected_project().unwrap().name, "paused-waiting");
        assert_eq!(m.focus, Focus::Detail);
        assert!(screen(&m, 200, 60).contains("Since you looked"));
        // Nothing left: n says so.
        press(&mut m, KeyCode::Char('n'));
        assert_eq!(
            m.status.as_deref(),
            Some("nothing changed since you looked")
        );
        // Back in the list, the one looked at is no longer marked.
        press(&mut m, KeyCode::Esc);
        assert!(!screen(&m, 80, 24).contains("• "));
    }

    /// A project that changed while its detail was open, then left with
    /// Esc: the key that leaves it counts as looking, so it is not marked.
    #[test]
    fn the_key_that_leaves_a_detail_counts_as_looking() {
        let (_t, mut m) = loaded();
        let dev = by_name(&m, "智能补货").clone();
        select(&mut m, &dev.id);
        press(&mut m, KeyCode::Enter);
        assert_eq!(m.focus, Focus::Detail);
        reread(&mut m, moved_on(&dev));
        assert!(screen(&m, 200, 60).contains("Since you looked"));
        press(&mut m, KeyCode::Esc);
        assert_eq!(m.focus, Focus::List);
        assert!(!m.seen.changed(by_name(&m, "智能补货")));
        assert!(!screen(&m, 80, 24).contains("• "));
    }

    /// In the inbox, n picks an item's "no" option, never the next project.
    #[test]
    fn in_the_inbox_n_is_no() {
        let (_t, mut m) = loaded();
        let dev = by_name(&m, "智能补货").clone();
        reread(&mut m, moved_on(&dev));
        m.screen = Screen::Inbox;
        let n = KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE);
        assert_ne!(lookup(&m, &n), Some(Command::NextChanged));
    }

    #[test]
    fn snapshots_of_the_section() {
        let (_t, mut m) = loaded();
        let dev = by_name(&m, "智能补货").clone();
        reread(&mut m, moved_on(&dev));
        select(&mut m, &dev.id);
        press(&mut m, KeyCode::Enter);
        for (w, h) in [(80, 24), (200, 60)] {
            insta::assert_snapshot!(format!("since_you_looked_{w}x{h}"), screen(&m, w, h));
        }
    }
}
