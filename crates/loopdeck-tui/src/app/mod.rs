//! The application state machine: one owned [`Model`], the [`Event`]s that
//! change it, and a pure [`update`] that returns [`Effect`]s as data. No I/O
//! happens here, so every behaviour is tested without a terminal or disk.

mod actions;
mod bindings;
mod commands;
pub mod copy;
pub mod decide;
pub mod escalate;
pub mod hosts;
pub mod keymap;
mod notice;
pub mod palette;
pub mod panes;
mod phases;
mod reading;
mod scroll;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::model::{Event as TimelineEvent, Excerpt, Format, Project};
use crate::t;
pub use actions::run;
use actions::{click, filter_key, older, palette_key};
pub use bindings::{Binding, Command, KEYMAP, Key, Scope};
pub use commands::{
    HelpRow, Hint, applies as command_applies, help_rows, hints, is_decision, keys_here, lookup,
    matching as commands_matching,
};
pub use notice::{Notices, item_key};
use phases::Phases;
pub use reading::{Back, Freshness, Held, Identity};
pub use scroll::Scroll;

/// Below this size the console asks for a larger terminal and ignores
/// every key but quit.
pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 8;

/// Timeline events read back per step past the top (`g` reads more).
pub const OLDER_STEP: usize = 200;
/// `g` reads back this many per read, read after read until the file's
/// first line (one press), unless the Timeline then holds
/// [`TIMELINE_HOLD`] events.
pub const OLDER_TO_TOP: usize = 5000;
/// The most Timeline events `g` reads back into the console: a log larger
/// than this is shown from its newest events, and says so.
pub const TIMELINE_HOLD: usize = 200_000;

/// The two top-level screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Projects,
    Inbox,
}

/// What the help's frame shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpPage {
    /// Every key of the current view and the symbols' legend.
    Keys,
    /// Every decision made, newest first (`loopdeck audit`).
    Audit,
    /// The other hosts and where each one's feed is (`H`).
    Hosts,
}

/// Which side of the projects screen has the keys. Below the split width
/// only the focused side is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Detail,
}

/// The detail tabs; a project shows those its format has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    Overview,
    Frontier,
    Phases,
    Tasks,
    Units,
    Bugs,
    Timeline,
    /// devloop's changelog, newest first (Enter: the section diff).
    Revisions,
    Agents,
    Findings,
}

impl Tab {
    /// The tab that shows `part`.
    pub fn of(part: crate::model::Part) -> Tab {
        use crate::model::Part;
        match part {
            Part::Frontier => Tab::Frontier,
            Part::Phases => Tab::Phases,
            Part::Tasks => Tab::Tasks,
            Part::Units => Tab::Units,
            Part::Bugs => Tab::Bugs,
            Part::Timeline => Tab::Timeline,
            Part::Revisions => Tab::Revisions,
            Part::Agents => Tab::Agents,
        }
    }

    /// The part this tab shows (none: the Overview, the Findings).
    pub fn part(self) -> Option<crate::model::Part> {
        use crate::model::Part;
        Some(match self {
            Tab::Frontier => Part::Frontier,
            Tab::Phases => Part::Phases,
            Tab::Tasks => Part::Tasks,
            Tab::Units => Part::Units,
            Tab::Bugs => Part::Bugs,
            Tab::Timeline => Part::Timeline,
            Tab::Revisions => Part::Revisions,
            Tab::Agents => Part::Agents,
            Tab::Overview | Tab::Findings => return None,
        })
    }

    /// Every tab, in the tab bar's order.
    pub const ALL: [Tab; 10] = [
        Tab::Overview,
        Tab::Frontier,
        Tab::Phases,
        Tab::Tasks,
        Tab::Units,
        Tab::Bugs,
        Tab::Timeline,
        Tab::Revisions,
        Tab::Agents,
        Tab::Findings,
    ];

    /// A label for a narrow tab bar.
    pub fn short(self) -> &'static str {
        match self {
            Tab::Overview => t!("app.tab.short.overview"),
            Tab::Frontier => t!("app.tab.short.frontier"),
            Tab::Phases => t!("app.tab.short.phases"),
            Tab::Tasks => t!("app.tab.short.tasks"),
            Tab::Units => t!("app.tab.short.units"),
            Tab::Bugs => t!("app.tab.short.bugs"),
            Tab::Timeline => t!("app.tab.short.timeline"),
            Tab::Revisions => t!("app.tab.short.revisions"),
            Tab::Agents => t!("app.tab.short.agents"),
            Tab::Findings => t!("app.tab.short.findings"),
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Tab::Overview => t!("app.tab.overview"),
            Tab::Frontier => t!("app.tab.frontier"),
            Tab::Phases => t!("app.tab.phases"),
            Tab::Tasks => t!("app.tab.tasks"),
            Tab::Units => t!("app.tab.units"),
            Tab::Bugs => t!("app.tab.bugs"),
            Tab::Timeline => t!("app.tab.timeline"),
            Tab::Revisions => t!("app.tab.revisions"),
            Tab::Agents => t!("app.tab.agents"),
            Tab::Findings => t!("app.tab.findings"),
        }
    }
}

/// What a mouse click landed on, as the view drew it: the view records
/// where each is drawn (`ui::Hits`), the runtime maps a click through the
/// last frame's, and `update` acts on it as the matching keys do. Rows are
/// indices into the rows as shown (filtered, sorted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A row of the project list: its place when drawn, and its project
    /// (`panes::project_key`), which the click selects wherever a reading
    /// since the frame moved it.
    ListRow(usize, u64),
    /// A tab's title in the detail's tab bar.
    Tab(Tab),
    /// A row of a detail tab's table.
    TableRow(Tab, usize),
    /// A row of the inbox.
    InboxRow(usize),
}

/// What the keyboard is typing into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// `/`: typing a filter for the focused list.
    Filter,
    /// `:`: the command palette.
    Palette,
    /// `?`: the key help.
    Help,
    /// The decision form (`decide`) has the keys.
    Decide,
}

pub use loopdeck_core::follow::Liveness;

/// A drawer over the detail pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drawer {
    Unit(String),
    Bug(String),
    /// A revision, by its row key (`panes::revision_key`).
    Revision(String),
}

/// Selection and filter of one list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pane {
    pub selected: usize,
    pub filter: String,
    /// The first row drawn last time. Only the view knows its height, so
    /// the view keeps this (as ratatui's own `TableState` does): the list
    /// scrolls only when the selection leaves the window, instead of
    /// pinning the cursor to the bottom row.
    pub first: Scroll,
}

/// The Bugs tab's status and severity filters (cycled with `s` and `v`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BugFilter {
    pub status: Option<String>,
    pub severity: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Palette {
    pub input: String,
    pub selected: usize,
}

#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    /// A left click on something drawn (`mouse = true` in the config).
    Click(Target),
    /// A fresh read of every project (strings as the files hold them).
    Loaded(Vec<Project>),
    /// A fresh read of part of the projects: those in exactly `dirs`, and
    /// every one under `trees`. A project shown there and missing from
    /// `projects` is missing from disk (held, then gone, as after `Loaded`);
    /// the others are left as they are.
    Reread {
        dirs: Vec<PathBuf>,
        trees: Vec<PathBuf>,
        projects: Vec<Project>,
    },
    /// How changes are noticed now (watched, polled and why).
    Liveness(Liveness),
    /// The excerpts asked for with `Effect::ReadExcerpts`.
    Excerpts(PathBuf, Vec<Excerpt>),
    /// The section diff asked for with `Effect::CompareRevision`: the
    /// project, the revision's key (`panes::revision_key`), the diff, and
    /// the files of the reading it was computed on (a later reading makes
    /// it stale: it is dropped, and asked for again).
    Compared {
        path: PathBuf,
        key: String,
        diff: Box<crate::model::DocDiff>,
        files: Vec<crate::model::FileStamp>,
    },
    Resize,
    /// The terminal's size (columns, rows), at start and on every resize.
    Size(u16, u16),
    /// A worker thread (the loader, a reader) failed: say so, never stall.
    Failed(String),
    /// What the last reading could not read at the level of roots and
    /// directories ("path: reason"), sent before its `Loaded`.
    RootProblems(Vec<String>),
    /// The settle time of the holds up to this number passed.
    Settle(u64),
    /// Timeline events older than `anchor`, asked for with `Effect::ReadOlder`.
    Older {
        path: PathBuf,
        anchor: TimelineEvent,
        events: Vec<TimelineEvent>,
        /// Nothing older exists (or the file changed under the anchor).
        at_start: bool,
    },
    /// Text pasted into the terminal (bracketed paste), whole.
    Paste(String),
    /// Something the user should know that stops nothing (a memory that
    /// could not be saved): said in the status line until the next key.
    Notice(String),
    /// A preview, a write or an undo asked for with `Effect::Decide` or
    /// `Effect::Undo` (carrying its `seq`) came back.
    Decided {
        seq: u64,
        result: decide::Decided,
    },
    /// The audit log, asked for with `Effect::ReadAudit`.
    Audit(Result<Vec<crate::model::AuditEntry>, String>),
    /// The clock reached an instant the model waits for (an `[[escalate]]`
    /// rule starts firing by time alone): "now" is this.
    Clock(DateTime<Utc>),
    /// The `[notify] command` failed (`Some`: why, said in the header) or
    /// ran well again after failing (`None`).
    Hook(Option<String>),
    /// The last run's reading of this machine's projects (the state
    /// directory's snapshot), shown until this run's own reading comes:
    /// each row marked refreshing, nothing decided on it, nothing it
    /// holds rung or remembered.
    Cached(Vec<Project>),
    /// What another host's feed brought (`hosts`).
    Host {
        name: crate::model::HostName,
        change: hosts::HostChange,
    },
}

/// What the runtime must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Read the opening lines of the selected project's read-first files
    /// (its resume card is scenario C); answered by `Event::Excerpts`.
    ReadExcerpts(PathBuf),
    /// Compare revision `index` of the project at `path` with the one
    /// before it (its drawer is open); answered by `Event::Compared`.
    CompareRevision {
        path: PathBuf,
        index: usize,
        key: String,
    },
    Render,
    /// Clear the terminal and redraw everything (Ctrl-L).
    FullRedraw,
    /// Read every project again now.
    Reload,
    /// After the settle time, answer `Event::Settle(n)` and read again.
    SettleAfter(u64),
    /// Read up to `want` Timeline events before `anchor` from the devloop
    /// project at `path`; answered by `Event::Older`.
    ReadOlder {
        path: PathBuf,
        anchor: TimelineEvent,
        want: usize,
    },
    /// Items started waiting for a human: ring the bell and/or notify
    /// the desktop through the terminal (raw strings; the runtime makes
    /// them safe).
    Notify {
        title: String,
        body: String,
    },
    /// Read every decision from the audit log; answered by `Event::Audit`.
    ReadAudit,
    /// Run the `[notify] command` with this JSON on its stdin (see
    /// `escalate::payload`).
    Hook(String),
    /// Make `verb` on the project at `path` with the code `loopdeck act`
    /// runs, against the files as the console read them (`expect`: file,
    /// sha256); `dry_run` previews. Answered by `Event::Decided`.
    Decide {
        seq: u64,
        /// The project's host: `Some`, made there over ssh.
        host: Option<crate::model::HostName>,
        path: PathBuf,
        format: Format,
        verb: crate::model::Verb,
        expect: Vec<(String, String)>,
        dry_run: bool,
    },
    /// Undo the decision with audit id `id` (`loopdeck undo ID`); `dry_run`
    /// previews. Answered by `Event::Decided`.
    Undo {
        seq: u64,
        /// The decision's host: `Some`, undone there over ssh.
        host: Option<crate::model::HostName>,
        id: String,
        dry_run: bool,
    },
    /// Read the project in this directory again (after a write or a
    /// conflict), without waiting for the watcher.
    Reread(PathBuf),
    /// What the user has seen changed (`Model::seen`): save it (the
    /// runtime debounces, and saves on quit).
    SaveSeen,
    /// Save when the waiting items were first seen (`model::first_seen`).
    SaveFirstSeen,
    /// Put this text on the clipboard (OSC 52), between frames. Already
    /// clean of control characters and capped (`copy::clean`).
    Copy(String),
    /// Open `file` (as the project's files name it: the runtime checks it
    /// stays inside `dir`) in `$PAGER`, or `$EDITOR` when `editor`,
    /// suspending the console until it exits. A failure comes back as
    /// `Event::Notice`.
    Open {
        dir: PathBuf,
        file: String,
        editor: bool,
    },
    /// Draw in the built-in theme of this name from now on (chosen in the
    /// palette; not saved). `NO_COLOR` still strips its colours.
    Theme(String),
    Quit,
}

#[derive(Debug)]
pub struct Model {
    pub roots: Vec<String>,
    /// The other machines watched over ssh, in the order configured.
    pub hosts: Vec<hosts::Host>,
    pub projects: Vec<Project>,
    pub loading: bool,
    pub live: Liveness,
    pub readonly: bool,
    /// Where decisions that go through a server are sent (`[devloop] api`),
    /// when the config names one: without it such a decision is refused
    /// before anything is typed, with the config line to add.
    pub server: Option<String>,
    /// The config file in force, or the one that would be read (the real
    /// path, `XDG_CONFIG_HOME` honoured), for messages that say what to edit.
    pub config_file: String,
    pub now: DateTime<Utc>,
    /// How long each format's work may be silent before it shows stalled
    /// (the config's `[stall]`), judged at `now`.
    pub stall: crate::model::StallLimits,
    /// When each waiting item was first seen (see `model::first_seen`).
    pub first_seen: crate::model::first_seen::FirstSeen,
    pub screen: Screen,
    pub focus: Focus,
    pub tab: Tab,
    pub mode: Mode,
    /// The project list.
    pub list: Pane,
    /// The project list's order (`S` cycles it).
    pub sort: panes::Sort,
    /// How the project list is grouped (`b` cycles it); kept across
    /// readings, not across runs.
    pub group: panes::Group,
    pub inbox: Pane,
    /// One pane per detail tab, reset when another project is selected.
    pub panes: HashMap<Tab, Pane>,
    /// The selected project, by identity (host, path, format), so a
    /// reload keeps it.
    pub selected: Option<Identity>,
    pub drawer: Option<Drawer>,
    /// How far the open drawer is scrolled (j/k scroll a drawer).
    pub drawer_scroll: u16,
    /// Scenario C's excerpts for the project at this path.
    pub excerpts: Option<(PathBuf, Vec<Excerpt>)>,
    /// The revision (project path, revision key) whose section diff was
    /// asked for with `Effect::CompareRevision` since the last reading.
    pub comparing: Option<(PathBuf, String)>,
    /// The timeline follows its end unless the user scrolled up.
    pub follow_timeline: bool,
    pub bug_filter: BugFilter,
    pub palette: Palette,
    /// Rows a page moves (set by the runtime from the terminal height).
    pub page: usize,
    /// The terminal's size (columns, rows).
    pub size: (u16, u16),
    /// How far the `?` help is scrolled (the view clamps).
    pub help_scroll: u16,
    /// What the help's frame shows: the keys (`?`) or the decisions made
    /// (`A`, the palette's "audit").
    pub help_page: HelpPage,
    /// The decisions made, newest first, as last read for the audit page
    /// (`None`: being read; `Err`: why it could not be).
    pub audit: Option<Result<Vec<crate::model::AuditEntry>, String>>,
    /// A worker thread failed; shown until a reading succeeds.
    pub failure: Option<String>,
    /// Roots (or directories under them) that could not be read, as
    /// "path: reason"; shown in the header. The other roots open normally.
    pub root_problems: Vec<String>,
    /// The inbox item the detail was opened from (Esc goes back to it).
    pub from_inbox: Option<(PathBuf, String)>,
    /// Readings held back (see `reading`), by identity.
    pub held: HashMap<Identity, Held>,
    /// The projects shown from the last run's snapshot and not read yet
    /// (see `Event::Cached`), by identity.
    pub cached: std::collections::HashSet<Identity>,
    pub hold_seq: u64,
    /// Devloop Timelines read back beyond the loader's tail, by path.
    pub timeline_back: HashMap<PathBuf, Back>,
    /// `g` on the Timeline: land on the first event once it is read.
    timeline_to_top: bool,
    /// New items and Timeline events (see `notice`).
    pub notices: Notices,
    /// The decision form, when open (`Mode::Decide`).
    pub form: Option<decide::Form>,
    /// A short message after a decision (or why none can be made), shown
    /// in the hint bar until the next key.
    pub status: Option<String>,
    /// The last decision made in this console (`u` undoes it).
    pub last: Option<decide::Last>,
    /// Numbers the effects the form waits for.
    pub decide_seq: u64,
    /// What the user last saw of each project ("since you looked"): the
    /// runtime loads it, the console records into it (see `model::seen`).
    pub seen: crate::model::seen::Memory,
    /// The keys in force: [`KEYMAP`], or what `keymap::build` made of it
    /// and the config's `[keys]` at start.
    pub keymap: &'static [Binding],
    /// The built-in themes the palette offers, by name (the runtime sets
    /// them from the UI's list: the app knows no styles).
    pub themes: Vec<&'static str>,
    /// The built-in theme drawn in, marked in the palette (none: the
    /// config's `theme_file`, kept until one is picked).
    pub theme_in_force: Option<String>,
    /// The config's `[[escalate]]` rules.
    pub rules: Vec<crate::model::escalate::Rule>,
    /// A `[notify] command` is configured: items that start waiting or
    /// escalate are handed to it (`Effect::Hook`).
    pub hook: bool,
    /// Why the `[notify] command` last failed, shown in the header until it
    /// runs well again.
    pub hook_failure: Option<String>,
}

impl Model {
    pub fn new(roots: Vec<String>, readonly: bool, now: DateTime<Utc>) -> Self {
        Model {
            roots,
            hosts: Vec::new(),
            projects: Vec::new(),
            loading: true,
            live: Liveness::Live { watches: 0 },
            readonly,
            server: None,
            config_file: "config.toml".to_owned(),
            now,
            stall: Default::default(),
            first_seen: Default::default(),
            screen: Screen::Projects,
            focus: Focus::List,
            tab: Tab::Overview,
            mode: Mode::Normal,
            list: Pane::default(),
            sort: panes::Sort::default(),
            group: panes::Group::default(),
            inbox: Pane::default(),
            panes: HashMap::new(),
            selected: None,
            drawer: None,
            drawer_scroll: 0,
            excerpts: None,
            comparing: None,
            follow_timeline: true,
            bug_filter: BugFilter::default(),
            palette: Palette::default(),
            page: 10,
            size: (u16::MAX, u16::MAX),
            help_scroll: 0,
            help_page: HelpPage::Keys,
            audit: None,
            failure: None,
            root_problems: Vec::new(),
            from_inbox: None,
            held: HashMap::new(),
            cached: std::collections::HashSet::new(),
            hold_seq: 0,
            timeline_back: HashMap::new(),
            timeline_to_top: false,
            notices: Notices::default(),
            form: None,
            status: None,
            last: None,
            decide_seq: 0,
            seen: crate::model::seen::Memory::default(),
            keymap: KEYMAP,
            themes: Vec::new(),
            theme_in_force: Some("default".to_owned()),
            rules: Vec::new(),
            hook: false,
            hook_failure: None,
        }
    }

    /// Is the terminal too small to draw (only quit acts)?
    pub fn too_small(&self) -> bool {
        self.size.0 < MIN_WIDTH || self.size.1 < MIN_HEIGHT
    }

    /// The filter of the pane the keys are in.
    pub fn focused_filter(&self) -> &str {
        match (self.screen, self.focus) {
            (Screen::Inbox, _) => &self.inbox.filter,
            (Screen::Projects, Focus::List) => &self.list.filter,
            (Screen::Projects, Focus::Detail) => &self.pane(self.tab).filter,
        }
    }

    /// The active filter of a detail tab as its title shows it
    /// (`/text`), `None` when the tab is unfiltered.
    pub fn filter_label(&self, tab: Tab) -> Option<String> {
        let f = &self.pane(tab).filter;
        (!f.is_empty()).then(|| format!("/{f}"))
    }

    pub fn selected_project(&self) -> Option<&Project> {
        let id = self.selected.as_ref()?;
        self.projects.iter().find(|p| reading::is(p, id))
    }

    pub fn waiting_total(&self) -> usize {
        self.projects.iter().map(Project::needs_human).sum()
    }

    /// The pane state of `tab` (a default one when never touched).
    pub fn pane(&self, tab: Tab) -> &Pane {
        static EMPTY: Pane = Pane {
            selected: 0,
            filter: String::new(),
            first: Scroll::new(),
        };
        self.panes.get(&tab).unwrap_or(&EMPTY)
    }

    fn pane_mut(&mut self, tab: Tab) -> &mut Pane {
        self.panes.entry(tab).or_default()
    }

    /// The tabs of the selected project (Overview alone without one).
    pub fn tabs(&self) -> Vec<Tab> {
        self.selected_project()
            .map_or_else(|| vec![Tab::Overview], |p| panes::tabs_for(p.format))
    }

    /// The list the keys move in right now, and its length.
    fn focused_len(&self) -> usize {
        match (self.screen, self.focus) {
            (Screen::Inbox, _) => panes::inbox(self).len(),
            (Screen::Projects, Focus::List) => panes::projects(self).len(),
            (Screen::Projects, Focus::Detail) => self
                .selected_project()
                .map_or(0, |p| panes::detail_len(self, p)),
        }
    }

    fn focused_pane(&mut self) -> &mut Pane {
        match (self.screen, self.focus) {
            (Screen::Inbox, _) => &mut self.inbox,
            (Screen::Projects, Focus::List) => &mut self.list,
            (Screen::Projects, Focus::Detail) => {
                let tab = self.tab;
                self.pane_mut(tab)
            }
        }
    }

    /// Make the selection point at the project at list row `row`.
    fn select_row(&mut self, row: usize) {
        let rows = panes::projects(self);
        let key = rows
            .get(row.min(rows.len().saturating_sub(1)))
            .map(|&i| reading::identity(&self.projects[i]));
        if key != self.selected {
            self.selected = key;
            self.panes.clear();
            self.drawer = None;
            self.follow_timeline = true;
            self.bug_filter = BugFilter::default();
            self.from_inbox = None;
            // Another project opens on its Overview, whatever the tab of
            // the last one.
            self.tab = Tab::Overview;
            let before = self.projects.len();
            self.drop_gone();
            if self.projects.len() != before {
                let at = self.selected.as_ref().and_then(|id| {
                    panes::projects(self)
                        .iter()
                        .position(|&i| reading::is(&self.projects[i], id))
                });
                self.list.selected = at.unwrap_or(0);
                return;
            }
        }
        self.list.selected = row.min(rows.len().saturating_sub(1));
    }

    /// Recompute the list row of the selected project (after a reload or a
    /// filter change); select the first row when it is gone.
    fn resync_list(&mut self) {
        let rows = panes::projects(self);
        let at = self.selected.as_ref().and_then(|id| {
            rows.iter()
                .position(|&i| reading::is(&self.projects[i], id))
        });
        match at {
            Some(row) => self.list.selected = row,
            // A filter that matches nothing hides the selection; it does not
            // lose it (a Backspace brings it back).
            None if rows.is_empty() => self.list.selected = 0,
            None => self.select_row(0),
        }
    }

    /// Keep every pane's selection inside its rows.
    fn clamp_panes(&mut self) {
        if let Some(p) = self.selected_project() {
            let lens: Vec<(Tab, usize)> = self
                .panes
                .keys()
                .filter(|t| **t != Tab::Overview)
                .map(|&t| (t, panes::keys(self, p, t).len()))
                .collect();
            for (t, len) in lens {
                let pane = self.pane_mut(t);
                pane.selected = pane.selected.min(len.saturating_sub(1));
            }
        }
        self.inbox.selected = self
            .inbox
            .selected
            .min(panes::inbox(self).len().saturating_sub(1));
    }

    /// How many events the selected project's Timeline shows (filtered).
    fn timeline_len(&self) -> usize {
        self.selected_project().map_or(0, |p| {
            panes::timeline(p, &self.pane(Tab::Timeline).filter).len()
        })
    }

    /// Put the Timeline's selection on its newest event.
    fn follow(&mut self) {
        self.follow_timeline = true;
        let last = self.timeline_len().saturating_sub(1);
        self.pane_mut(Tab::Timeline).selected = last;
    }

    /// Show `tab` of the selected project.
    fn enter_tab(&mut self, tab: Tab) {
        self.tab = tab;
        self.drawer = None;
        self.drawer_scroll = 0;
        if tab == Tab::Timeline && self.follow_timeline {
            self.follow();
        }
    }

    /// What every pane of the selected project has selected, by identity.
    fn remember(&self) -> Remembered {
        let mut saved = Vec::new();
        if let Some(p) = self.selected_project() {
            for (&tab, pane) in &self.panes {
                if let Some(key) = panes::keys(self, p, tab).get(pane.selected) {
                    saved.push((tab, key.clone()));
                }
            }
        }
        let inbox = panes::inbox(self)
            .get(self.inbox.selected)
            .map(|&row| panes::inbox_key(self, row));
        (saved, inbox)
    }

    /// Find the remembered items again after a reload.
    fn restore(&mut self, saved: Vec<(Tab, String)>, inbox: Option<(PathBuf, String)>) {
        if let Some(p) = self.selected_project() {
            let found: Vec<(Tab, usize)> = saved
                .iter()
                .filter_map(|(tab, key)| {
                    panes::keys(self, p, *tab)
                        .iter()
                        .position(|k| k == key)
                        .map(|i| (*tab, i))
                })
                .collect();
            for (tab, i) in found {
                self.pane_mut(tab).selected = i;
            }
        }
        if let Some(key) = inbox
            && let Some(i) = panes::inbox(self)
                .iter()
                .position(|&row| panes::inbox_key(self, row) == key)
        {
            self.inbox.selected = i;
        }
        // A drawer on an item that is gone closes.
        let still_there = match (&self.drawer, self.selected_project()) {
            (Some(Drawer::Unit(id)), Some(p)) => p.detail.units.iter().any(|u| u.id == id.as_str()),
            (Some(Drawer::Bug(id)), Some(p)) => p.detail.bugs.iter().any(|b| &b.id == id),
            (Some(Drawer::Revision(key)), Some(p)) => p
                .detail
                .revisions
                .iter()
                .any(|r| &panes::revision_key(r) == key),
            (None, _) => true,
            _ => false,
        };
        if !still_there {
            self.drawer = None;
        }
    }
}

/// What the panes had selected (tab, row identity) and the inbox row.
type Remembered = (Vec<(Tab, String)>, Option<(PathBuf, String)>);

/// Merge a reading (all projects, or some) with `merge`, keeping the
/// user's place: the selection, the panes' scroll, a followed timeline.
fn after_read(m: &mut Model, merge: impl FnOnce(&mut Model) -> Vec<Effect>) -> Vec<Effect> {
    let (saved, inbox) = m.remember();
    let before = m.selected.clone();
    let mut effects = merge(m);
    m.resync_list();
    if m.selected == before {
        m.restore(saved, inbox);
    }
    if m.follow_timeline {
        m.follow();
    }
    m.clamp_panes();
    effects.push(Effect::Render);
    effects
}

/// Apply `event` to the model; return what the runtime must do.
///
/// `step` does what the event means. The phases around it keep the
/// console's memories in step with it; they run in this order, each
/// documented in `app/phases.rs` with why it runs where it does:
///
/// Before the step, on the model as the last frame showed it:
/// 1. `fill_first_seen`: items without a time of their own take the time
///    a reading first showed them, before the reading is merged;
/// 2. `see_before_key`: a key sees the new items the last frame showed;
/// 3. `keep_timeline`: a scrolled-up Timeline keeps its older events;
/// 4. `note_looking`: the memory's save state, the project looked at;
/// 5. `seen_reading`: a project never seen gets its baseline.
///
/// 6. `step`.
///
/// After the step, on the model the event made:
/// 7. `notify_new`: the reading's new items, and their notification;
/// 8. `escalate`: rules that start firing, one notification with 7's;
/// 9. `retry_decision`: a retry held for this reading goes ahead;
/// 10. `see_after_step`: a key that opened a detail sees its items;
/// 11. `seen_after`: what the reading changed against what was seen, and
///     the looks;
/// 12. `save`: the memories changed above are saved, a frame drawn when a
///     key only took marks away;
/// 13. `excerpts`: a project away a week asks for what to reread;
/// 14. `compare`: an open Revisions drawer asks for its diff.
pub fn update(m: &mut Model, event: Event) -> Vec<Effect> {
    let mut event = event;
    let mut phases = Phases::of(&event);
    phases.fill_first_seen(m, &mut event);
    phases.see_before_key(m);
    phases.keep_timeline(m);
    phases.note_looking(m);
    phases.seen_reading(m, &event);
    let mut effects = step(m, event);
    phases.notify_new(m, &mut effects);
    phases.escalate(m, &mut effects);
    phases.retry_decision(m, &mut effects);
    phases.see_after_step(m);
    phases.seen_after(m);
    phases.save(m, &mut effects);
    phases.excerpts(m, &mut effects);
    phases.compare(m, &mut effects);
    effects
}

fn step(m: &mut Model, event: Event) -> Vec<Effect> {
    match event {
        Event::Excerpts(path, excerpts) => {
            m.excerpts = Some((path, excerpts));
            vec![Effect::Render]
        }
        Event::Compared {
            path,
            key,
            diff,
            files,
        } => {
            let revision = m
                .projects
                .iter_mut()
                .filter(|p| p.path == path && p.files == files)
                .flat_map(|p| p.detail.revisions.iter_mut())
                .find(|r| panes::revision_key(r) == key);
            match revision {
                Some(r) => {
                    r.sections = Some(*diff);
                    vec![Effect::Render]
                }
                None => Vec::new(),
            }
        }
        Event::Resize => vec![Effect::Render],
        Event::Size(w, h) => {
            m.size = (w, h);
            vec![Effect::Render]
        }
        Event::Liveness(l) => {
            m.live = l;
            vec![Effect::Render]
        }
        Event::Failed(why) => {
            m.loading = false;
            m.failure = Some(why);
            vec![Effect::Render]
        }
        Event::RootProblems(problems) => {
            if m.root_problems == problems {
                return Vec::new();
            }
            m.root_problems = problems;
            vec![Effect::Render]
        }
        Event::Settle(seq) => {
            let (saved, inbox) = m.remember();
            m.settle(seq);
            // The snapshot's rows are not compared with what was seen:
            // their reading is (nothing from the snapshot is a change).
            let cached = &m.cached;
            m.seen.refresh(
                m.projects
                    .iter()
                    .filter(|p| cached.is_empty() || !cached.contains(&reading::identity(p))),
                true,
            );
            m.resync_list();
            m.restore(saved, inbox);
            m.clamp_panes();
            vec![Effect::Render]
        }
        Event::Older {
            path,
            anchor,
            events,
            at_start,
        } => older(m, path, &anchor, events, at_start),
        Event::Reread {
            dirs,
            trees,
            projects,
        } => after_read(m, |m| m.absorb_part(&dirs, &trees, projects)),
        Event::Host { name, change } => hosts::apply(m, name, change),
        Event::Cached(projects) => after_read(m, |m| m.absorb_cached(projects)),
        Event::Loaded(projects) => after_read(m, |m| {
            let effects = m.absorb(projects);
            m.loading = false;
            m.failure = None;
            effects
        }),
        Event::Key(key) if key.kind == KeyEventKind::Release => Vec::new(),
        // Raw mode turns off SIGINT: Ctrl-C quits from any mode but the
        // decision form's, where it cancels (typed text is never lost).
        Event::Key(key)
            if key.code == KeyCode::Char('c')
                && key.modifiers.contains(KeyModifiers::CONTROL)
                && m.mode != Mode::Decide =>
        {
            vec![Effect::Quit]
        }
        // Nothing is drawn but the request for a larger terminal: a key
        // must not act on what cannot be seen. Only quit does.
        // The decision form is never quit this way: its text would be
        // lost, or a write cut in the middle.
        Event::Key(key) if m.too_small() => {
            if commands::quits(m, &key) && m.mode != Mode::Decide {
                vec![Effect::Quit]
            } else {
                Vec::new()
            }
        }
        Event::Paste(text) => match m.mode {
            Mode::Decide => decide::paste(m, &text),
            // Typed into a filter or the palette as keys, one line of it.
            Mode::Filter | Mode::Palette => {
                let mut effects = Vec::new();
                for c in text.chars().map(|c| if c.is_control() { ' ' } else { c }) {
                    let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
                    effects.extend(match m.mode {
                        Mode::Filter => filter_key(m, key),
                        _ => palette_key(m, key),
                    });
                }
                effects
            }
            Mode::Normal | Mode::Help => Vec::new(),
        },
        Event::Decided { seq, result } => decide::decided(m, seq, result),
        Event::Notice(text) => {
            m.status = Some(text);
            vec![Effect::Render]
        }
        Event::Audit(found) => {
            m.audit = Some(found);
            vec![Effect::Render]
        }
        Event::Clock(now) => {
            m.now = now;
            vec![Effect::Render]
        }
        Event::Hook(failure) => {
            if m.hook_failure == failure {
                return Vec::new();
            }
            m.hook_failure = failure;
            vec![Effect::Render]
        }
        // Clicks act on the panes only: in help, the palette, a filter
        // being typed or the decision form they are ignored (so is one
        // on a screen too small to draw).
        Event::Click(target) => {
            if m.mode != Mode::Normal || m.too_small() {
                return Vec::new();
            }
            let had = m.status.take().is_some();
            let mut effects = click(m, target);
            if had && !effects.contains(&Effect::Render) {
                effects.push(Effect::Render);
            }
            effects
        }
        Event::Key(key) => match m.mode {
            Mode::Normal | Mode::Help => {
                // A message after a decision lasts until the next key.
                let had = m.status.take().is_some();
                let mut effects = match commands::lookup(m, &key) {
                    Some(cmd) => run(m, cmd),
                    None => Vec::new(),
                };
                if had && !effects.contains(&Effect::Render) {
                    effects.push(Effect::Render);
                }
                effects
            }
            Mode::Filter => filter_key(m, key),
            Mode::Palette => palette_key(m, key),
            Mode::Decide => decide::form_key(m, key),
        },
    }
}
