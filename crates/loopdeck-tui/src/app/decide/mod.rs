//! Deciding in the console: the offers of the selected row, the form that
//! collects what a decision needs (an option, typed text), its preview (the
//! same diff `act --dry-run` prints), the confirm, the write, a conflict,
//! and undo. Pure: the preview, the write and the undo are effects
//! ([`Effect::Decide`], [`Effect::Undo`]) the runtime carries out with the
//! very code `loopdeck act` runs, answered by [`Event::Decided`](super::Event::Decided).

mod keys;
#[cfg(test)]
pub(in crate::app) mod tests;

use std::path::PathBuf;

use ratatui_textarea::{TextArea, WrapMode};

use super::{Effect, Focus, Mode, Model, Screen, Tab, panes};
use crate::model::{Address, Field, Format, HostName, InboxItem, Project, Verb};
use crate::t;

pub use keys::{form_key, paste, pick_key, yes_no};

/// Typed text longer than this is warned about before it is sent.
pub const LONG_TEXT: usize = 4000;

/// One thing the user can pick: a decision and, where it offers options,
/// one of them (`None`: free text, or a decision without options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub address: Address,
    pub option: Option<String>,
    /// What it decides on, in words (the question, the bug, the project):
    /// the dialog's heading once it is picked.
    pub heading: String,
    /// The chooser lists several decisions: each says its verb.
    pub mixed: bool,
}

impl Choice {
    /// What the chooser shows for it.
    pub fn label(&self) -> String {
        match &self.option {
            Some(_) if self.mixed => self.address.describe(self.option.as_deref()),
            Some(o) => o.clone(),
            None if self.mixed && !self.address.options.is_empty() => {
                t!(
                    "app.decide.type_answer_for",
                    what = self.address.describe(None)
                )
            }
            None if !self.address.options.is_empty() => t!("app.decide.type_answer").to_owned(),
            None => self.address.describe(None),
        }
    }
}

/// A field being typed.
#[derive(Debug, Clone)]
pub struct Input {
    pub field: Field,
    pub area: TextArea<'static>,
}

impl Input {
    fn new(field: Field) -> Self {
        let mut area = TextArea::default();
        area.set_wrap_mode(WrapMode::WordOrGlyph);
        Input { field, area }
    }

    /// The text typed, lines joined with `\n`.
    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Characters typed (a line break counts as one).
    pub fn chars(&self) -> usize {
        let lines = self.area.lines();
        lines.iter().map(|l| l.chars().count()).sum::<usize>() + lines.len().saturating_sub(1)
    }
}

/// What the form decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// One of `choices` (picked in [`Stage::Choose`] when there are several).
    Decide,
    /// Undo the decision with this audit id (the last one made here).
    Undo { id: String, label: String },
}

/// One file of a preview: its name and the unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    pub file: String,
    pub diff: String,
}

/// Where the form is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Several choices: pick one (digits, j/k and Enter).
    Choose,
    /// Typing the fields.
    Edit,
    /// Esc with text typed: discard it?
    Discard,
    /// The preview was asked for.
    Previewing,
    /// The preview: what will change. `yes` is the focused button (No by
    /// default).
    Confirm {
        files: Vec<FileDiff>,
        /// What the decision does beyond the diff, said by the format.
        said: Vec<String>,
        scroll: u16,
        yes: bool,
    },
    /// The write was asked for.
    Writing,
    /// Nothing was written: the file changed on disk, was locked, or the
    /// rules refused (`why`). A conflict (changed or locked): the project
    /// is read again and the typed text kept for a retry.
    Failed { message: String, why: Why },
}

/// The decision form over the console.
#[derive(Debug, Clone)]
pub struct Form {
    /// The project decided on: its host (`None`: this machine), path
    /// and format.
    pub host: Option<HostName>,
    pub path: PathBuf,
    pub format: Format,
    pub project: String,
    /// What is being decided (the question, the row), raw.
    pub heading: String,
    pub what: What,
    pub choices: Vec<Choice>,
    /// The choice under the cursor (Choose), then the one picked.
    pub pick: usize,
    pub inputs: Vec<Input>,
    pub focus: usize,
    pub stage: Stage,
    /// The files the decision is made against, as the console showed them
    /// when the form opened: (file, sha256).
    pub base: Vec<(String, String)>,
    /// A message under the fields (empty answer, too long, a refusal).
    pub note: Option<String>,
    /// The long-text warning was shown: the next submit sends.
    pub long_ok: bool,
    /// The decision previewed (the write makes exactly this one).
    pub verb: Option<Verb>,
    /// The answer to the effect in flight must carry this number.
    pub seq: u64,
    /// Opened from the inbox: after the write the inbox moves on.
    pub from_inbox: bool,
    /// After a conflict: the project has not been read again yet, so a
    /// retry would be made against the reading that conflicted.
    pub unread: bool,
    /// Enter was pressed while `unread`: retry once the reading arrives.
    pub retry_queued: bool,
    /// The decision is no longer offered (the project moved on).
    pub gone: bool,
    /// Where `n` (keep typing) goes back to from the discard question.
    pub before_discard: Option<Stage>,
    /// Opened from the inbox: the item after the one decided, by identity
    /// (the inbox lands there after the write, whatever was read first).
    pub next_item: Option<(PathBuf, String)>,
}

impl Form {
    /// A form on the project (path, format, name), headed by `heading`,
    /// offering `choices` (none for an undo), nothing typed yet.
    fn new(
        (path, format, project): (PathBuf, Format, String),
        heading: String,
        what: What,
        choices: Vec<Choice>,
    ) -> Self {
        Form {
            host: None,
            path,
            format,
            project,
            heading,
            what,
            choices,
            pick: 0,
            inputs: Vec::new(),
            focus: 0,
            stage: Stage::Choose,
            base: Vec::new(),
            note: None,
            long_ok: false,
            verb: None,
            seq: 0,
            from_inbox: false,
            unread: false,
            retry_queued: false,
            gone: false,
            before_discard: None,
            next_item: None,
        }
    }

    pub fn choice(&self) -> Option<&Choice> {
        self.choices.get(self.pick)
    }

    /// Has anything been typed?
    pub fn typed(&self) -> bool {
        self.inputs.iter().any(|i| !i.text().trim().is_empty())
    }

    /// What the dialog is headed by now: the list's heading while
    /// choosing, then what the picked choice decides on.
    pub fn heading_now(&self) -> &str {
        match (&self.stage, self.choice()) {
            (Stage::Choose, _) | (_, None) => &self.heading,
            (_, Some(c)) if c.heading.is_empty() => &self.heading,
            (_, Some(c)) => &c.heading,
        }
    }

    /// The title of the dialog ("answer OQ-3", "undo answer OQ-3").
    pub fn title(&self) -> String {
        match &self.what {
            What::Undo { label, .. } => t!("app.decide.title_undo", label = label),
            What::Decide => match (self.stage == Stage::Choose, self.choice()) {
                (false, Some(c)) => c.address.describe(c.option.as_deref()),
                _ => t!("app.decide.title").to_owned(),
            },
        }
    }
}

/// The last decision made in this console (`u` undoes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Last {
    pub id: String,
    pub label: String,
    /// The project's host (`None`: this machine): its audit log is there.
    pub host: Option<HostName>,
    pub path: PathBuf,
    pub format: Format,
}

/// What a preview, a write or an undo came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// Done (or, dry, would be done): each file's diff, the audit id, and
    /// (dry) every file the decision read: (file, sha256).
    Done {
        files: Vec<FileDiff>,
        /// What the format said beyond the diff (a migration), one
        /// sentence each.
        said: Vec<String>,
        audit_id: Option<String>,
        read: Vec<(String, String)>,
    },
    /// Nothing written, and why.
    Failed { message: String, why: Why },
}

/// Why a decision wrote nothing: each is titled for what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The rules refused, or the write failed: nothing to read again.
    Refused,
    /// A file changed on disk since the console read it.
    Changed,
    /// Another writer holds the file's lock (the message names it).
    Locked,
    /// Something WAS written and is not settled (exit 4 of `act`): never
    /// retried from here; the project is read again and the message says
    /// what settles it.
    Partial,
}

impl Why {
    /// Changed or locked: the project is read again and the typed text
    /// kept for a retry.
    pub fn conflict(self) -> bool {
        matches!(self, Why::Changed | Why::Locked)
    }
}

/// Why no decision can be made here (read-only), if so.
pub fn readonly_reason(m: &Model) -> Option<&'static str> {
    m.readonly.then(|| t!("app.decide.readonly"))
}

/// Why no decision can be made on the row the keys are on (the inbox's
/// item, else the selected project): it is shown from the last run's
/// snapshot and not read yet, so its files may have changed since.
pub fn still_reading(m: &Model) -> Option<String> {
    if m.cached.is_empty() {
        return None;
    }
    let p = if m.screen == Screen::Inbox {
        let (pi, _) = *panes::inbox(m).get(m.inbox.selected)?;
        &m.projects[pi]
    } else {
        m.selected_project()?
    };
    m.is_cached(p)
        .then(|| t!("app.decide.still_reading", project = p.label()))
}

/// Why no decision can be made on another host's project `p`: the host
/// is read-only (the default), or its feed is not live (what the console
/// shows of it may be old). `None`: this machine's project, or a
/// writable live host.
pub fn host_refuses(m: &Model, p: &Project) -> Option<String> {
    host_refuses_named(m, p.host.as_ref()?)
}

fn host_refuses_named(m: &Model, name: &HostName) -> Option<String> {
    let Some(host) = m.hosts.iter().find(|h| h.name == *name) else {
        return Some(t!("app.decide.host_unknown", host = name));
    };
    if !host.writable {
        return Some(t!("app.decide.host_readonly", host = name));
    }
    if !host.state.is_live() {
        return Some(t!("app.decide.host_not_live", host = name));
    }
    None
}

/// The row the keys are on, as (project index, row target, tab); the
/// target of a Phases blocker is its text.
fn row(m: &Model) -> Option<(usize, Option<String>, Tab)> {
    let id = m.selected.as_ref()?;
    let pi = m.projects.iter().position(|p| super::reading::is(p, id))?;
    // A unit's drawer is for reading; a bug's drawer is its row.
    if m.focus == Focus::Detail && m.drawer.is_some() && m.tab != Tab::Bugs {
        return None;
    }
    if m.focus != Focus::Detail {
        // Only a project the list shows: a filter may hide the selection.
        if !panes::projects(m).contains(&pi) {
            return None;
        }
        return Some((pi, None, Tab::Overview));
    }
    let p = &m.projects[pi];
    let key = panes::keys(m, p, m.tab)
        .get(m.pane(m.tab).selected)
        .cloned();
    let target = match m.tab {
        Tab::Phases => key.and_then(|k| k.strip_prefix("b|").map(str::to_owned)),
        Tab::Frontier | Tab::Tasks | Tab::Bugs | Tab::Agents => key,
        _ => None,
    };
    Some((pi, target, m.tab))
}

/// The tabs a decision without a row is offered on (a format shows only
/// some of them: an answer is PRD-master's Frontier or GSD's Phases).
fn homes(verb: &str) -> &'static [Tab] {
    match verb {
        "answer" => &[Tab::Frontier, Tab::Phases],
        "evidence" | "choose" => &[Tab::Frontier],
        "add-decision" | "add-blocker" | "resolve-blocker" => &[Tab::Phases],
        "approve" | "block" | "unblock" | "reopen" | "reconcile" | "unlock" => &[Tab::Tasks],
        "resume-agent" => &[Tab::Agents],
        "bug" => &[Tab::Bugs],
        _ => &[Tab::Overview],
    }
}

/// The choices one address offers: each option, then free text where the
/// verb takes it.
fn choices_of(a: &Address, heading: &str) -> Vec<Choice> {
    a.picks()
        .into_iter()
        .map(|option| Choice {
            address: a.clone(),
            option: option.map(str::to_owned),
            heading: heading.to_owned(),
            mixed: false,
        })
        .collect()
}

/// What the selected row (or, in the inbox, item) offers: the project
/// index, a heading, and the choices.
/// The selected inbox item offers no decision: why, and what resolves
/// it, as its reader said (never a silent `a`).
pub fn why_not(m: &Model) -> Option<String> {
    if m.screen != Screen::Inbox {
        return None;
    }
    let (pi, ii) = *panes::inbox(m).get(m.inbox.selected)?;
    item_why_not(m, &m.projects[pi].inbox[ii])
}

/// Why `item` offers no decision here: its reader's words; or, for a
/// decision only a server makes with no `[devloop] api`, what to add to
/// which config file (said before anything is typed, in the detail and
/// the hint as on `a`).
pub fn item_why_not(m: &Model, item: &InboxItem) -> Option<String> {
    match &item.act {
        Some(a) if a.needs_server() && m.server.is_none() => {
            Some(t!("app.decide.needs_server", file = m.config_file))
        }
        Some(_) => None,
        None => Some(match &item.why_not {
            Some(why) => why.shown().into_owned(),
            None => t!("app.decide.no_way_here").to_owned(),
        }),
    }
}

pub fn offers(m: &Model) -> Option<(usize, String, Vec<Choice>)> {
    if m.screen == Screen::Inbox {
        let (pi, ii) = *panes::inbox(m).get(m.inbox.selected)?;
        let p = &m.projects[pi];
        let item: InboxItem = p.inbox_at(m.now).into_iter().nth(ii)?;
        if item_why_not(m, &item).is_some() {
            return None;
        }
        let a = item.act?;
        let title = item.title.shown().into_owned();
        let choices = choices_of(&a, &title);
        return Some((pi, title, choices));
    }
    let (pi, target, tab) = row(m)?;
    let p = &m.projects[pi];
    let all = p.addresses_at(m.now);
    let mut chosen: Vec<&Address> = Vec::new();
    if let Some(t) = &target {
        chosen.extend(all.iter().filter(|a| a.row() == Some(t.as_str())));
    }
    let on_row = !chosen.is_empty();
    // The project's own decisions, on the tabs they belong to.
    chosen.extend(
        all.iter().filter(|a| {
            a.row().is_none() && (tab == Tab::Overview || homes(a.verb).contains(&tab))
        }),
    );
    if chosen.is_empty() {
        return None;
    }
    let heading = match (&target, on_row) {
        (Some(t), true) => row_heading(m, p, t),
        _ => p.label().into_owned(),
    };
    let mixed = chosen.len() > 1;
    let choices = chosen
        .into_iter()
        .flat_map(|a| {
            let own = match &a.target {
                Some(t) if on_row && target.as_ref() == Some(t) => heading.clone(),
                _ => item_heading(m, p, a),
            };
            choices_of(a, &own)
        })
        .map(|c| Choice { mixed, ..c })
        .collect();
    Some((pi, heading, choices))
}

/// A project-wide decision's heading: the inbox item that offers it
/// (`next_action`'s question, WAITING.json's), else the project's name.
fn item_heading(m: &Model, p: &Project, a: &Address) -> String {
    p.inbox_at(m.now)
        .into_iter()
        .find(|i| {
            i.act
                .as_ref()
                .is_some_and(|b| b.verb == a.verb && b.target == a.target)
        })
        .map_or_else(|| p.label().into_owned(), |i| i.title.shown().into_owned())
}

/// What the row `target` is, in words: its inbox item's title (a
/// question), a bug's or a task's title, else the target itself.
fn row_heading(m: &Model, p: &Project, target: &str) -> String {
    let inbox = p.inbox_at(m.now);
    let item = inbox
        .iter()
        .find(|i| i.act.as_ref().and_then(|a| a.target.as_deref()) == Some(target));
    if let Some(i) = item {
        return format!("{} {}", i.reference, i.title.shown());
    }
    let bug = p.detail.bugs.iter().find(|b| b.id == target);
    let task = p.detail.tasks.iter().find(|t| t.id == target);
    match (bug, task) {
        (Some(b), _) => format!("{} ({}) {}", b.id, b.status, b.title),
        (_, Some(t)) => t!(
            "app.decide.task_heading",
            id = t.id,
            status = t.status,
            title = t.title
        ),
        _ => target.to_owned(),
    }
}

/// The hint for the decide key here ("a answer", "a bug →"), if any.
pub fn hint(m: &Model) -> Option<String> {
    if offers(m).is_none() && why_not(m).is_some() {
        return Some(format!("a {}", t!("app.hint.why_not")));
    }
    let (_, _, choices) = offers(m)?;
    let first = &choices.first()?.address;
    let same = choices.iter().all(|c| c.address.verb == first.verb);
    Some(if same {
        format!("a {}", crate::model::shown_verb(first.verb))
    } else {
        format!("a {}", t!("app.hint.decide"))
    })
}

/// Open the form on the selected row's decisions; `pick` picks a choice
/// at once (an option key in the inbox).
pub fn open(m: &mut Model, pick: Option<usize>) -> Vec<Effect> {
    if let Some(why) = readonly_reason(m) {
        m.status = Some(why.to_owned());
        return vec![Effect::Render];
    }
    let Some((pi, heading, choices)) = offers(m) else {
        m.status = Some(match why_not(m) {
            Some(why) => t!("app.decide.why_not", why = why),
            None => t!("app.decide.nothing_to_decide").to_owned(),
        });
        return vec![Effect::Render];
    };
    if pick.is_some_and(|i| i >= choices.len()) {
        return Vec::new();
    }
    // Refused before anything is typed: a decision only a server carries
    // out, with no server configured, says so and what to add, at once.
    if m.server.is_none() && choices.iter().all(|c| c.address.needs_server()) {
        m.status = Some(t!(
            "app.decide.why_not",
            why = t!("app.decide.needs_server", file = m.config_file)
        ));
        return vec![Effect::Render];
    }
    let p = &m.projects[pi];
    if let Some(why) = host_refuses(m, p) {
        m.status = Some(why);
        return vec![Effect::Render];
    }
    let single = choices.len() == 1;
    let mut form = Form::new(
        (p.path.clone(), p.format, p.label().into_owned()),
        heading,
        What::Decide,
        choices,
    );
    form.host = p.host.clone();
    form.pick = pick.unwrap_or(0);
    form.base = base_of(p);
    form.from_inbox = m.screen == Screen::Inbox;
    if form.from_inbox {
        form.next_item = panes::inbox(m)
            .get(m.inbox.selected + 1)
            .map(|&row| panes::inbox_key(m, row));
    }
    m.status = None;
    m.mode = Mode::Decide;
    let effects = if single || pick.is_some() {
        chosen(&mut form, &mut m.decide_seq)
    } else {
        Vec::new()
    };
    show(m, form, effects)
}

/// Put `form` on screen with the effects it asked for.
fn show(m: &mut Model, form: Form, effects: Vec<Effect>) -> Vec<Effect> {
    m.form = Some(form);
    let mut out = vec![Effect::Render];
    out.extend(effects);
    out
}

/// The stamps of the files `p` was read from.
fn base_of(p: &Project) -> Vec<(String, String)> {
    p.files
        .iter()
        .map(|f| (f.file.clone(), f.sha256.clone()))
        .collect()
}

/// The choice under the cursor was picked: type its fields, or preview.
fn chosen(form: &mut Form, seq: &mut u64) -> Vec<Effect> {
    let Some(c) = form.choice().cloned() else {
        return Vec::new();
    };
    let fields = c.address.fields(c.option.as_deref());
    form.note = None;
    if fields.is_empty() {
        form.inputs.clear();
        return preview(form, seq);
    }
    // Text already typed is kept for the fields the new choice shares
    // (back from a confirm, or another state picked after a retry).
    let same = form.inputs.len() == fields.len()
        && form.inputs.iter().zip(&fields).all(|(i, f)| i.field == *f);
    if !same {
        let old = std::mem::take(&mut form.inputs);
        form.inputs = fields
            .into_iter()
            .map(|f| {
                old.iter().find(|i| i.field.label == f.label).map_or_else(
                    || Input::new(f),
                    |i| Input {
                        field: f,
                        area: i.area.clone(),
                    },
                )
            })
            .collect();
        form.focus = 0;
    }
    form.stage = Stage::Edit;
    Vec::new()
}

/// Build the decision and ask for its preview (a dry run).
fn preview(form: &mut Form, seq: &mut u64) -> Vec<Effect> {
    match &form.what {
        What::Undo { id, .. } => {
            *seq += 1;
            form.seq = *seq;
            form.stage = Stage::Previewing;
            vec![Effect::Undo {
                seq: *seq,
                host: form.host.clone(),
                id: id.clone(),
                dry_run: true,
            }]
        }
        What::Decide => {
            let Some(c) = form.choice().cloned() else {
                return Vec::new();
            };
            let values: Vec<String> = form.inputs.iter().map(Input::text).collect();
            match c.address.build(c.option.as_deref(), &values) {
                Err(why) => {
                    form.note = Some(why);
                    if form.inputs.is_empty() {
                        form.stage = Stage::Choose;
                    }
                    Vec::new()
                }
                Ok(verb) => {
                    *seq += 1;
                    form.seq = *seq;
                    form.stage = Stage::Previewing;
                    form.verb = Some(verb.clone());
                    vec![decide_effect(form, verb, true)]
                }
            }
        }
    }
}

fn decide_effect(form: &Form, verb: Verb, dry_run: bool) -> Effect {
    Effect::Decide {
        seq: form.seq,
        host: form.host.clone(),
        path: form.path.clone(),
        format: form.format,
        verb,
        expect: form.base.clone(),
        dry_run,
    }
}

/// Confirmed: write exactly the decision previewed.
fn write(form: &mut Form, seq: &mut u64) -> Vec<Effect> {
    *seq += 1;
    form.seq = *seq;
    form.stage = Stage::Writing;
    match (&form.what, form.verb.clone()) {
        (What::Undo { id, .. }, _) => vec![Effect::Undo {
            seq: *seq,
            host: form.host.clone(),
            id: id.clone(),
            dry_run: false,
        }],
        (What::Decide, Some(verb)) => vec![decide_effect(form, verb, false)],
        (What::Decide, None) => Vec::new(),
    }
}

/// `u`: undo the last decision made in this console, after its preview.
pub fn undo(m: &mut Model) -> Vec<Effect> {
    if let Some(why) = readonly_reason(m) {
        m.status = Some(why.to_owned());
        return vec![Effect::Render];
    }
    let Some(last) = m.last.clone() else {
        m.status = Some(t!("app.decide.nothing_to_undo").to_owned());
        return vec![Effect::Render];
    };
    if let Some(host) = &last.host
        && let Some(why) = host_refuses_named(m, host)
    {
        m.status = Some(why);
        return vec![Effect::Render];
    }
    let project = m
        .projects
        .iter()
        .find(|p| p.path == last.path && p.host == last.host)
        .map_or_else(
            || last.path.display().to_string(),
            |p| p.label().into_owned(),
        );
    let mut form = Form::new(
        (last.path.clone(), last.format, project),
        t!("app.decide.undo_heading", label = last.label, id = last.id),
        What::Undo {
            id: last.id,
            label: last.label,
        },
        Vec::new(),
    );
    form.host = last.host.clone();
    form.stage = Stage::Previewing;
    m.status = None;
    m.mode = Mode::Decide;
    let effects = preview(&mut form, &mut m.decide_seq);
    show(m, form, effects)
}

/// A preview, a write or an undo came back.
pub fn decided(m: &mut Model, seq: u64, result: Decided) -> Vec<Effect> {
    let Some(form) = m.form.as_mut() else {
        return Vec::new();
    };
    if form.seq != seq {
        return Vec::new();
    }
    // Another host's project comes back on its feed: nothing to read here.
    let reread = if form.host.is_none() {
        Effect::Reread(form.path.clone())
    } else {
        Effect::Render
    };
    match (form.stage.clone(), result) {
        (
            Stage::Previewing,
            Decided::Done {
                files, said, read, ..
            },
        ) => {
            // The write is made on exactly the bytes previewed: every file
            // the preview read (a devloop bug's log too, which no reading
            // stamps) must still hold them.
            for (file, sha) in read {
                form.base.retain(|(f, _)| f != &file);
                form.base.push((file, sha));
            }
            form.stage = Stage::Confirm {
                files,
                said,
                scroll: 0,
                yes: false,
            };
            vec![Effect::Render]
        }
        (
            Stage::Writing,
            Decided::Done {
                files,
                said,
                audit_id,
                ..
            },
        ) => {
            let Some(form) = m.form.take() else {
                return Vec::new();
            };
            m.mode = Mode::Normal;
            let written: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
            let label = match &form.what {
                What::Undo { label, .. } => t!("app.decide.undone", label = label),
                What::Decide => form.title(),
            };
            let done = if written.is_empty() {
                // A decision sent to a server (devloop sign-off, abandon,
                // requirement): no file here, nothing to undo.
                t!("app.decide.done").to_owned()
            } else {
                t!("app.decide.wrote", files = written.join(", "))
            };
            // What the format said beyond the diff stays said after it.
            let done = std::iter::once(done)
                .chain(said)
                .collect::<Vec<_>>()
                .join("; ");
            let undoes = matches!(form.what, What::Decide) && audit_id.is_some();
            // A decision that is a line of an append-only log (a bug's
            // move) is refused by undo: said so, never "u undoes".
            let last_word = undoes && form.verb.as_ref().is_some_and(Verb::appends_its_record);
            // The undo key in force (none said when it is unbound).
            let undo_key = super::keymap::key_in_force(m, super::Command::Undo)
                .filter(|_| undoes && !last_word);
            m.status = Some(match undo_key {
                Some(key) => t!(
                    "app.decide.status_undo",
                    label = label,
                    done = done,
                    key = key
                ),
                None if last_word => t!("app.decide.status_final", label = label, done = done),
                None => t!("app.decide.status", label = label, done = done),
            });
            match (&form.what, audit_id) {
                (What::Decide, Some(id)) => {
                    m.last = Some(Last {
                        id,
                        label: form.title(),
                        host: form.host.clone(),
                        path: form.path.clone(),
                        format: form.format,
                    });
                }
                // Undone: nothing left to undo here.
                (What::Undo { .. }, _) => m.last = None,
                // Nothing audited: the last decision stays undoable.
                (What::Decide, None) => {}
            }
            if form.from_inbox && m.screen == Screen::Inbox {
                // On to the item after the one decided, by identity: the
                // reading of the write may have come first (the item is
                // gone already) or not (it goes with the next reading).
                let rows = panes::inbox(m);
                if let Some(at) = form.next_item.as_ref().and_then(|key| {
                    rows.iter()
                        .position(|&row| &panes::inbox_key(m, row) == key)
                }) {
                    m.inbox.selected = at;
                }
            }
            vec![reread, Effect::Render]
        }
        (_, Decided::Failed { message, why }) => {
            let conflict = why.conflict();
            let why_partial = why == Why::Partial;
            form.stage = Stage::Failed { message, why };
            form.unread = conflict;
            form.retry_queued = false;
            if conflict || why_partial {
                vec![reread, Effect::Render]
            } else {
                vec![Effect::Render]
            }
        }
        _ => Vec::new(),
    }
}

/// A reading of the project at these directories (`None`: every
/// project) was merged: a retry held for it goes ahead.
pub fn read(m: &mut Model, dirs: Option<&[PathBuf]>, trees: &[PathBuf]) -> Vec<Effect> {
    let Some(form) = m.form.as_mut() else {
        return Vec::new();
    };
    let covers = form.host.is_none()
        && (dirs.is_none_or(|d| d.contains(&form.path))
            || trees.iter().any(|t| form.path.starts_with(t)));
    if !form.unread || !covers {
        return Vec::new();
    }
    form.unread = false;
    if std::mem::take(&mut form.retry_queued) {
        return retry(m);
    }
    Vec::new()
}

/// After a conflict or a refusal: back to the form with the text kept,
/// against the project as it reads now (after a conflict, once it has
/// been read again).
fn retry(m: &mut Model) -> Vec<Effect> {
    if let Some(f) = m.form.as_mut()
        && f.unread
    {
        f.retry_queued = true;
        return vec![Effect::Render];
    }
    let Some(mut form) = m.form.take() else {
        return Vec::new();
    };
    let project = m
        .projects
        .iter()
        .find(|p| p.path == form.path && p.format == form.format && p.host == form.host);
    if let Some(p) = project {
        form.base = base_of(p);
    }
    // The decision must still be offered, with the option picked: a
    // question answered elsewhere meanwhile is gone; a bug moved on offers
    // other states.
    if let (What::Decide, Some(c)) = (&form.what, form.choice().cloned()) {
        let still = project.and_then(|p| {
            p.addresses_at(m.now)
                .into_iter()
                .find(|a| a.verb == c.address.verb && a.target == c.address.target)
        });
        let Some(a) = still else {
            form.gone = true;
            form.stage = Stage::Failed {
                message: t!("app.decide.gone", what = c.address.describe(None)),
                why: Why::Refused,
            };
            return show(m, form, Vec::new());
        };
        let option_left = c.option.as_ref().is_none_or(|o| a.options.contains(o));
        if !option_left {
            // Offer this decision's choices as they are now; the text
            // typed stays for the fields they share.
            let fresh = choices_of(&a, &c.heading);
            form.choices
                .retain(|x| !(x.address.verb == a.verb && x.address.target == a.target));
            let at = form.choices.len();
            let mixed = c.mixed;
            form.choices
                .extend(fresh.into_iter().map(|x| Choice { mixed, ..x }));
            form.pick = at;
            form.note = Some(t!(
                "app.decide.pick_again",
                what = c.address.describe(c.option.as_deref())
            ));
            form.stage = Stage::Choose;
            return show(m, form, Vec::new());
        }
        if let Some(ch) = form.choices.get_mut(form.pick) {
            ch.address = a;
        }
    }
    form.stage = if form.inputs.is_empty() {
        if form.choices.len() > 1 {
            Stage::Choose
        } else {
            Stage::Edit
        }
    } else {
        Stage::Edit
    };
    form.note = None;
    let effects = if form.inputs.is_empty() && form.choices.len() <= 1 {
        preview(&mut form, &mut m.decide_seq)
    } else {
        Vec::new()
    };
    show(m, form, effects)
}

/// Close the form.
fn close(m: &mut Model) -> Vec<Effect> {
    m.form = None;
    m.mode = Mode::Normal;
    vec![Effect::Render]
}
