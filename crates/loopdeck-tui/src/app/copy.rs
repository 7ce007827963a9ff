//! `y` copies what is selected and `o` / `e` open its file: what the
//! selected row means as text, and as a file of its project. Pure: the
//! runtime writes the clipboard escape (`Effect::Copy`) and runs the
//! pager or the editor (`Effect::Open`), checking there, on the disk, that
//! the file is inside the project.

use std::path::PathBuf;

use super::panes::{self, FrontierRow, PhaseRow};
use super::{Drawer, Effect, Focus, Model, Screen, Tab};
use crate::model::{Format, Part, Project};
use crate::t;

/// The most text `y` copies, in bytes (OSC 52 carries it base64, a third
/// longer; terminals and tmux refuse much longer sequences).
pub const MAX_COPY: usize = 100 * 1024;

/// How much of the copied text the status line repeats, in columns.
const SHOWN: usize = 40;

/// What `y` copies here: the selected item's id, path or text, raw (as the
/// files hold it); `None` when nothing is selected.
pub fn text(m: &Model) -> Option<String> {
    if m.screen == Screen::Inbox {
        let &(pi, ii) = panes::inbox(m).get(m.inbox.selected)?;
        let item = &m.projects[pi].inbox[ii];
        return Some(join(&item.reference, &item.title.shown()));
    }
    let p = m.selected_project()?;
    if m.focus == Focus::List {
        return Some(path(m, p));
    }
    match &m.drawer {
        Some(Drawer::Unit(id) | Drawer::Bug(id)) => return Some(id.clone()),
        Some(Drawer::Revision(key)) => {
            let r = p
                .detail
                .revisions
                .iter()
                .find(|r| &panes::revision_key(r) == key)?;
            return Some(r.event.summary.clone());
        }
        None => {}
    }
    let filter = m.pane(m.tab).filter.as_str();
    let sel = m.pane(m.tab).selected;
    match m.tab {
        Tab::Overview => Some(path(m, p)),
        Tab::Frontier => {
            let q = match *panes::frontier(p, filter).get(sel)? {
                FrontierRow::Question(i) => &p.frontier.questions[i],
                FrontierRow::Research(i) => &p.frontier.research[i],
                FrontierRow::Blocked(i) => &p.frontier.blocked[i],
            };
            Some(join(&q.id, &q.title))
        }
        Tab::Phases => Some(match *panes::phases(p, filter).get(sel)? {
            PhaseRow::Decision(i) => {
                let d = &p.decisions[i];
                join(d.id.as_deref().unwrap_or(""), &d.summary)
            }
            PhaseRow::Blocker(i) => p.blockers[i].shown().into_owned(),
        }),
        Tab::Tasks => {
            let t = &p.detail.tasks[*panes::tasks(p, filter).get(sel)?];
            Some(join(&t.id, &t.title))
        }
        Tab::Units => Some(
            p.detail.units[*panes::units(p, filter).get(sel)?]
                .id
                .to_string(),
        ),
        Tab::Bugs => Some(p.detail.bugs[*panes::bugs(m, p).get(sel)?].id.clone()),
        Tab::Timeline => Some(
            p.detail.timeline[*panes::timeline(p, filter).get(sel)?]
                .summary
                .clone(),
        ),
        Tab::Agents => Some(
            p.detail.agents[*panes::agents(p, filter).get(sel)?]
                .agent
                .clone(),
        ),
        Tab::Revisions => Some(
            p.detail.revisions[*panes::revisions(p, filter).get(sel)?]
                .event
                .summary
                .clone(),
        ),
        Tab::Findings => {
            let rows = panes::findings(p, filter);
            match rows.get(sel) {
                Some(&i) => Some(p.findings[i].message.clone()),
                None => p.problems.get(sel - rows.len()).map(ToString::to_string),
            }
        }
    }
}

/// "id title", either alone when the other is empty.
fn join(id: &str, title: &str) -> String {
    match (id.is_empty(), title.is_empty()) {
        (false, false) => format!("{id} {title}"),
        (true, _) => title.to_owned(),
        (false, true) => id.to_owned(),
    }
}

/// The project's directory, made absolute from where the console started
/// (a relative root copied would mean nothing in another shell).
fn path(m: &Model, p: &Project) -> String {
    m.seen.base.join(&p.path).to_string_lossy().into_owned()
}

/// `text` as it may go to the clipboard: every control character (ESC, a
/// newline that would run a pasted command, C1), bidirectional control and
/// line separator a space; at most [`MAX_COPY`] bytes, cut at a character.
/// Also says whether it was cut.
pub fn clean(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len().min(MAX_COPY));
    let mut cut = false;
    for c in text.trim().chars() {
        let c = if c.is_control() || crate::model::text::reorders(c) {
            ' '
        } else {
            c
        };
        if out.len() + c.len_utf8() > MAX_COPY {
            cut = true;
            break;
        }
        out.push(c);
    }
    (out.trim_end().to_owned(), cut)
}

/// `y`: copy the selected item, saying what was copied.
pub fn copy(m: &mut Model) -> Vec<Effect> {
    let Some(raw) = text(m) else {
        m.status = Some(t!("app.copy.nothing_selected").to_owned());
        return vec![Effect::Render];
    };
    let (text, cut) = clean(&raw);
    if text.is_empty() {
        m.status = Some(t!("app.copy.empty").to_owned());
        return vec![Effect::Render];
    }
    // Cut by display columns: a Chinese character takes two.
    let shown = crate::model::text::truncate(&text, SHOWN).into_owned();
    // What the status line adds after every copy: the terminal decides.
    let refusal = t!("app.copy.refusal");
    m.status = Some(if cut {
        t!("app.copy.copied_cut", text = shown, refusal = refusal)
    } else {
        t!("app.copy.copied", text = shown, refusal = refusal)
    });
    vec![Effect::Copy(text), Effect::Render]
}

/// The project's own state file, the one its format reads first.
pub fn primary(format: Format) -> &'static str {
    format.shape().primary
}

/// What `o` / `e` open here: the project's directory and a path inside it
/// as the files name it (the runtime checks it stays inside).
pub fn file(m: &Model) -> Option<(PathBuf, String)> {
    if m.screen == Screen::Inbox {
        let &(pi, ii) = panes::inbox(m).get(m.inbox.selected)?;
        let p = &m.projects[pi];
        let item = &p.inbox[ii];
        // The item's own file, as its format places it.
        let file = p
            .place_of(item)
            .file
            .unwrap_or_else(|| primary(p.format).to_owned());
        return Some((p.path.clone(), file));
    }
    let p = m.selected_project()?;
    let at = |file: &str| Some((p.path.clone(), file.to_owned()));
    if m.focus == Focus::List {
        return at(primary(p.format));
    }
    // The file a part is read from, else the project's own.
    let part_file = |part: Part| at(p.format.shape().file_of(part).unwrap_or(primary(p.format)));
    match &m.drawer {
        Some(Drawer::Unit(_)) => return part_file(Part::Units),
        Some(Drawer::Bug(_)) => return part_file(Part::Bugs),
        Some(Drawer::Revision(_)) => return part_file(Part::Revisions),
        None => {}
    }
    let filter = m.pane(m.tab).filter.as_str();
    let sel = m.pane(m.tab).selected;
    match m.tab {
        // The resume card's first "read first" file.
        Tab::Overview => at(p
            .resume
            .read_first
            .first()
            .map_or(primary(p.format), String::as_str)),
        Tab::Units | Tab::Bugs | Tab::Timeline | Tab::Revisions => {
            part_file(m.tab.part().unwrap_or(Part::Units))
        }
        // A task's own file (not a Lite plan's `#anchor` in the README).
        Tab::Tasks => {
            let task = panes::tasks(p, filter)
                .get(sel)
                .map(|&i| &p.detail.tasks[i]);
            let own = task
                .and_then(|t| t.locator.as_deref())
                .and_then(|l| l.split('#').next())
                .filter(|l| !l.is_empty());
            at(own.unwrap_or(primary(p.format)))
        }
        // A problem row: the file that could not be read.
        Tab::Findings => {
            let findings = panes::findings(p, filter).len();
            match sel.checked_sub(findings).and_then(|i| p.problems.get(i)) {
                Some(problem) => at(&problem.file),
                None => at(primary(p.format)),
            }
        }
        // An agent's own state file, when it was read.
        Tab::Agents => {
            let own = panes::agents(p, filter)
                .get(sel)
                .and_then(|&i| p.agent_file(&p.detail.agents[i].agent));
            at(own.as_deref().unwrap_or(primary(p.format)))
        }
        _ => at(primary(p.format)),
    }
}

/// `o` (`editor` false) or `e`: open the selected file.
pub fn open(m: &mut Model, editor: bool) -> Vec<Effect> {
    if editor && m.readonly {
        let key = |cmd| {
            super::keymap::key_in_force(m, cmd)
                .unwrap_or_else(|| super::keymap::name(cmd).to_owned())
        };
        m.status = Some(t!(
            "app.copy.readonly_edit",
            edit = key(super::Command::Edit),
            pager = key(super::Command::Page)
        ));
        return vec![Effect::Render];
    }
    let shown = if m.screen == Screen::Inbox {
        panes::inbox(m)
            .get(m.inbox.selected)
            .map(|&(pi, _)| &m.projects[pi])
    } else {
        m.selected_project()
    };
    if let Some(host) = shown.and_then(|p| p.host.clone()) {
        m.status = Some(t!("app.copy.remote_file", host = host));
        return vec![Effect::Render];
    }
    match file(m) {
        Some((dir, file)) => vec![Effect::Open { dir, file, editor }],
        None => {
            m.status = Some(t!("app.copy.nothing_to_open").to_owned());
            vec![Effect::Render]
        }
    }
}
