//! The user's keys: the config's `[keys]` table applied to [`KEYMAP`].
//!
//! ```toml
//! [keys]
//! quit = "Q"                   # every view
//! inbox = ["i", "I"]           # several keys
//! "list.sort" = "o"            # one view: list, detail, inbox, drawer,
//!                              # help, or a tab (overview, bugs, …)
//! reload = ""                  # unbound (still in the `:` palette)
//! ```
//!
//! An entry replaces the keys of its action in its views; a view named
//! beats `detail`, which beats no view. Every mistake (an unknown action,
//! view or key, two actions on one key in a view) is refused at start with
//! the line of the entry. Without `[keys]` the keymap in force is
//! [`KEYMAP`] itself.
//!
//! Here too, how keys and actions are named to the user: an action's
//! name in `[keys]` ([`name`]), a key as help shows it ([`key_label`]),
//! and the first key a command has in force ([`key_in_force`]). The hint
//! bar, the help and the messages of decide and copy name keys by these.

use crossterm::event::KeyCode;

use super::bindings::{Binding, Command, KEYMAP, Key, Scope, Text};
use super::panes::{Group, Sort};
use super::{Mode, Model, Tab};
use crate::t;

mod file;
pub use file::{KeyEntry, Keys, line_column};

/// The stable name of an action in `[keys]` (kebab-case).
pub fn name(cmd: Command) -> &'static str {
    match cmd {
        Command::Up => "move-up",
        Command::Down => "move-down",
        Command::Top => "top",
        Command::Bottom => "bottom",
        Command::PageUp => "page-up",
        Command::PageDown => "page-down",
        Command::NextTab => "next-tab",
        Command::PrevTab => "prev-tab",
        Command::TabNumber(_) => "tab-number",
        Command::GoTab(Tab::Overview) => "tab-overview",
        Command::GoTab(Tab::Frontier) => "tab-frontier",
        Command::GoTab(Tab::Phases) => "tab-phases",
        Command::GoTab(Tab::Tasks) => "tab-tasks",
        Command::GoTab(Tab::Units) => "tab-units",
        Command::GoTab(Tab::Bugs) => "tab-bugs",
        Command::GoTab(Tab::Timeline) => "tab-timeline",
        Command::GoTab(Tab::Revisions) => "tab-revisions",
        Command::GoTab(Tab::Agents) => "tab-agents",
        Command::GoTab(Tab::Findings) => "tab-findings",
        Command::Open => "open",
        Command::Back => "back",
        Command::Filter => "filter",
        Command::Palette => "palette",
        Command::Help => "help",
        Command::CloseHelp => "close-help",
        Command::Inbox => "inbox",
        Command::Projects => "projects",
        Command::Reload => "reload",
        Command::Redraw => "redraw",
        Command::Quit => "quit",
        Command::CycleBugStatus => "bug-status",
        Command::CycleBugSeverity => "bug-severity",
        Command::FollowTimeline => "follow",
        Command::Decide => "decide",
        Command::Pick(_) => "pick",
        Command::YesNo(true) => "yes",
        Command::YesNo(false) => "no",
        Command::Undo => "undo",
        Command::CycleSort => "sort",
        Command::SortBy(Sort::Updated) => "sort-update",
        Command::SortBy(Sort::Name) => "sort-name",
        Command::SortBy(Sort::Waiting) => "sort-waiting",
        Command::SortBy(Sort::Status) => "sort-status",
        Command::CycleGroup => "group",
        Command::GroupBy(Group::None) => "group-none",
        Command::GroupBy(Group::Format) => "group-format",
        Command::GroupBy(Group::Root) => "group-root",
        Command::GroupBy(Group::Host) => "group-host",
        Command::NextChanged => "next-changed",
        Command::Copy => "copy",
        Command::Page => "open-pager",
        Command::Edit => "open-editor",
        Command::Audit => "audit",
        Command::Hosts => "hosts",
    }
}

fn tab_name(t: Tab) -> &'static str {
    match t {
        Tab::Overview => "overview",
        Tab::Frontier => "frontier",
        Tab::Phases => "phases",
        Tab::Tasks => "tasks",
        Tab::Units => "units",
        Tab::Bugs => "bugs",
        Tab::Timeline => "timeline",
        Tab::Revisions => "revisions",
        Tab::Agents => "agents",
        Tab::Findings => "findings",
    }
}

/// One place the keys are read in: the scopes split so that they do not
/// overlap (a row "anywhere" is in all of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Help,
    List,
    Inbox,
    Drawer,
    InTab(Tab),
}

impl View {
    fn all() -> Vec<View> {
        let mut v = vec![View::List, View::Inbox, View::Drawer];
        v.extend(Tab::ALL.iter().map(|&t| View::InTab(t)));
        v.push(View::Help);
        v
    }

    fn shown(self) -> String {
        match self {
            View::Help => t!("app.keymap.view_help").to_owned(),
            View::List => t!("app.keymap.view_list").to_owned(),
            View::Inbox => t!("app.keymap.view_inbox").to_owned(),
            View::Drawer => t!("app.keymap.view_drawer").to_owned(),
            View::InTab(tab) => t!("app.keymap.view_tab", tab = tab_name(tab)),
        }
    }

    fn scope(self) -> Scope {
        match self {
            View::Help => Scope::Anywhere,
            View::List => Scope::List,
            View::Inbox => Scope::Inbox,
            View::Drawer => Scope::Drawer,
            View::InTab(t) => Scope::InTab(t),
        }
    }
}

/// The views of a row of the table.
fn views(b: &Binding) -> Vec<View> {
    if b.mode == Mode::Help {
        return vec![View::Help];
    }
    let tabs = || Tab::ALL.iter().map(|&t| View::InTab(t));
    match b.scope {
        Scope::Anywhere => View::all()
            .into_iter()
            .filter(|v| *v != View::Help)
            .collect(),
        Scope::List => vec![View::List],
        Scope::Inbox => vec![View::Inbox],
        Scope::Drawer => vec![View::Drawer],
        Scope::Detail => tabs().collect(),
        Scope::InTab(t) => vec![View::InTab(t)],
    }
}

/// The views `view.` names, and how specific it is (a view beats `detail`,
/// which beats none).
fn parse_view(s: &str) -> Option<(Vec<View>, u8)> {
    Some(match s {
        "list" => (vec![View::List], 2),
        "inbox" => (vec![View::Inbox], 2),
        "drawer" => (vec![View::Drawer], 2),
        "help" => (vec![View::Help], 2),
        "detail" => (Tab::ALL.iter().map(|&t| View::InTab(t)).collect(), 1),
        _ => (
            vec![View::InTab(
                Tab::ALL.iter().copied().find(|&t| tab_name(t) == s)?,
            )],
            2,
        ),
    })
}

/// A key as `[keys]` writes it.
pub fn parse_key(s: &str) -> Result<Key, String> {
    let mut chars = s.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        // A control character is no key a terminal reports as a character
        // (ESC comes as Esc): write its name.
        if c.is_control() {
            return Err(t!(
                "app.keymap.not_a_key",
                key = c.escape_default(),
                keys = t!("app.keymap.keys")
            ));
        }
        return Ok(Key::Char(c));
    }
    let lower = s.to_lowercase();
    let single = |rest: &str| {
        let mut cs = rest.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        }
    };
    if let Some(c) = lower.strip_prefix("ctrl-").and_then(single) {
        if c == 'c' {
            return Err(t!("app.keymap.ctrl_c").to_owned());
        }
        return Ok(Key::Ctrl(c));
    }
    if lower.starts_with("alt-")
        && let Some(c) = s.get(4..).and_then(single)
    {
        return Ok(Key::Alt(c));
    }
    let code = match lower.as_str() {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" | "shift-tab" => KeyCode::BackTab,
        "space" => return Ok(Key::Char(' ')),
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pgup" | "pageup" => KeyCode::PageUp,
        "pgdn" | "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "backspace" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        f => match f.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
            Some(n @ 1..=12) => KeyCode::F(n),
            _ => {
                return Err(t!(
                    "app.keymap.not_a_key",
                    key = s,
                    keys = t!("app.keymap.keys")
                ));
            }
        },
    };
    Ok(Key::Code(code))
}

/// How help and the hints show a key ("j", "↓", "^L", "PgDn").
pub fn key_label(k: Key) -> String {
    match k {
        Key::Char(' ') => "Space".to_owned(),
        Key::Char(c) => c.to_string(),
        Key::Ctrl(c) => format!("^{}", c.to_uppercase()),
        Key::Alt(c) => format!("M-{c}"),
        Key::Digit | Key::AnyDigit => "1-9".to_owned(),
        Key::Code(code) => match code {
            KeyCode::Enter => "Enter".to_owned(),
            KeyCode::Esc => "Esc".to_owned(),
            KeyCode::Tab => "Tab".to_owned(),
            KeyCode::BackTab => "S-Tab".to_owned(),
            KeyCode::Up => "↑".to_owned(),
            KeyCode::Down => "↓".to_owned(),
            KeyCode::Left => "←".to_owned(),
            KeyCode::Right => "→".to_owned(),
            KeyCode::PageUp => "PgUp".to_owned(),
            KeyCode::PageDown => "PgDn".to_owned(),
            KeyCode::Home => "Home".to_owned(),
            KeyCode::End => "End".to_owned(),
            KeyCode::Backspace => "Bksp".to_owned(),
            KeyCode::Delete => "Del".to_owned(),
            KeyCode::Insert => "Ins".to_owned(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        },
    }
}

/// The first key `cmd` has in force (as help shows it), if it has one.
pub fn key_in_force(m: &Model, cmd: Command) -> Option<String> {
    m.keymap
        .iter()
        .find(|b| b.mode == Mode::Normal && b.command == cmd && !b.keys.is_empty())
        .and_then(|b| b.keys.first())
        .map(|&k| key_label(k))
}

/// Can one key press match both?
fn overlap(a: Key, b: Key) -> bool {
    let digit = |k: Key| match k {
        Key::Char(c) => super::bindings::digit(KeyCode::Char(c)).map(|d| (d, c.is_ascii())),
        _ => None,
    };
    match (a, b) {
        (Key::Digit | Key::AnyDigit, Key::Digit | Key::AnyDigit) => true,
        (Key::Digit, k) | (k, Key::Digit) => digit(k).is_some_and(|(_, ascii)| ascii),
        (Key::AnyDigit, k) | (k, Key::AnyDigit) => digit(k).is_some(),
        _ => a == b,
    }
}

/// A mistake in `[keys]`, at the line and column of the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One entry, checked.
struct Entry {
    action: &'static str,
    views: Vec<View>,
    specific: u8,
    keys: Vec<Key>,
    at: (usize, usize),
    name: String,
}

fn err((line, column): (usize, usize), message: String) -> KeyError {
    KeyError {
        line,
        column,
        message,
    }
}

fn check(e: &KeyEntry) -> Result<Entry, KeyError> {
    let (view, action) = match e.name.split_once('.') {
        Some((v, a)) => (Some(v), a),
        None => (None, e.name.as_str()),
    };
    let (views, specific) = match view {
        None => (View::all(), 0),
        Some(v) => parse_view(v).ok_or_else(|| {
            err(
                e.at,
                t!(
                    "app.keymap.unknown_view",
                    view = v,
                    entry = e.name,
                    views = t!("app.keymap.views")
                ),
            )
        })?,
    };
    let Some(row) = KEYMAP.iter().find(|b| name(b.command) == action) else {
        let mut names: Vec<&str> = KEYMAP.iter().map(|b| name(b.command)).collect();
        names.sort_unstable();
        names.dedup();
        return Err(err(
            e.at,
            t!(
                "app.keymap.unknown_action",
                action = action,
                actions = names.join(", ")
            ),
        ));
    };
    let cmd = row.command;
    // Where the action acts: a view it is never read in is a mistake.
    let home: Vec<View> = KEYMAP
        .iter()
        .filter(|b| b.command == cmd)
        .flat_map(self::views)
        .collect();
    if !views.iter().any(|v| home.contains(v)) {
        let mut shown: Vec<String> = Vec::new();
        for v in home.iter().map(|v| v.shown()) {
            if !shown.contains(&v) {
                shown.push(v);
            }
        }
        return Err(err(
            e.at,
            t!(
                "app.keymap.nothing_there",
                entry = e.name,
                action = action,
                views = shown.join(t!("app.keymap.sep"))
            ),
        ));
    }
    let mut keys: Vec<Key> = Vec::new();
    for k in &e.keys {
        let key = parse_key(k).map_err(|m| {
            err(
                e.value_at,
                t!("app.keymap.in_entry", entry = e.name, message = m),
            )
        })?;
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    if matches!(cmd, Command::Pick(_) | Command::TabNumber(_)) && !keys.is_empty() {
        return Err(err(
            e.value_at,
            t!("app.keymap.digits", entry = e.name, action = action),
        ));
    }
    Ok(Entry {
        action: name(cmd),
        views,
        specific,
        keys,
        at: e.at,
        name: e.name.clone(),
    })
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// A row of the new keymap, and where its keys came from.
struct Row {
    origin: usize,
    view: View,
    keys: Vec<Key>,
    /// The entry that set the keys (none: the table's).
    by: Option<usize>,
}

/// The keymap in force for `entries`: [`KEYMAP`] itself when there are
/// none; else a copy (made once at start and kept for the run) with each
/// row split by view and the entries' keys in place of the table's.
pub fn build(entries: &[KeyEntry]) -> Result<&'static [Binding], KeyError> {
    if entries.is_empty() {
        return Ok(KEYMAP);
    }
    let checked: Vec<Entry> = entries.iter().map(check).collect::<Result<_, _>>()?;
    let mut rows: Vec<Row> = Vec::new();
    for (origin, b) in KEYMAP.iter().enumerate() {
        for view in views(b) {
            let by = checked
                .iter()
                .enumerate()
                .filter(|(_, e)| e.action == name(b.command) && e.views.contains(&view))
                .max_by_key(|(_, e)| e.specific)
                .map(|(i, _)| i);
            let keys = by.map_or_else(|| b.keys.to_vec(), |i| checked[i].keys.clone());
            rows.push(Row {
                origin,
                view,
                keys,
                by,
            });
        }
    }
    conflicts(&rows, &checked)?;
    let keys_of = |origin: usize, view: View| {
        rows.iter()
            .find(|r| r.origin == origin && r.view == view)
            .map(|r| (r.keys.as_slice(), r.by.is_some()))
    };
    let out: Vec<Binding> = rows
        .iter()
        .map(|r| {
            let b = &KEYMAP[r.origin];
            let (keys, label) = if r.by.is_some() {
                let label: Vec<String> = r.keys.iter().map(|&k| key_label(k)).collect();
                (
                    leak(r.keys.clone()),
                    &*Box::leak(label.join(" ").into_boxed_str()),
                )
            } else {
                (b.keys, b.label)
            };
            Binding {
                mode: b.mode,
                scope: r.view.scope(),
                keys,
                label,
                command: b.command,
                description: b.description,
                hint: b.hint.and_then(|h| hint(r.origin, r.view, h, &keys_of)),
            }
        })
        .collect();
    Ok(leak(out))
}

/// A row's hint ("j/k move") with the keys in force in `view`: each key of
/// the hint is the first key of a row of the table in the same mode and
/// scope; one unbound is left out, and the hint with it when none is left.
fn hint<'a>(
    origin: usize,
    view: View,
    (rank, part, words): (u8, &'static str, Text),
    keys_of: &impl Fn(usize, View) -> Option<(&'a [Key], bool)>,
) -> Option<(u8, &'static str, Text)> {
    let b = &KEYMAP[origin];
    let mut changed = false;
    let mut shown: Vec<String> = Vec::new();
    for seg in part.split('/') {
        let companion = KEYMAP.iter().position(|c| {
            c.mode == b.mode && c.scope == b.scope && c.label.split(' ').next() == Some(seg)
        });
        match companion.and_then(|c| keys_of(c, view)) {
            Some((keys, by)) => {
                changed |= by;
                if let Some(&k) = keys.first() {
                    shown.push(key_label(k));
                }
            }
            None => shown.push(seg.to_owned()),
        }
    }
    if !changed {
        return Some((rank, part, words));
    }
    if shown.is_empty() {
        return None;
    }
    let keys = shown.join("/");
    Some((rank, Box::leak(keys.into_boxed_str()), words))
}

/// Two actions on one key in one view, where an entry set one of them.
fn conflicts(rows: &[Row], entries: &[Entry]) -> Result<(), KeyError> {
    for view in View::all() {
        let here: Vec<&Row> = rows.iter().filter(|r| r.view == view).collect();
        for (i, a) in here.iter().enumerate() {
            for b in &here[i + 1..] {
                let (ra, rb) = (&KEYMAP[a.origin], &KEYMAP[b.origin]);
                if ra.mode != rb.mode
                    || name(ra.command) == name(rb.command)
                    || (a.by.is_none() && b.by.is_none())
                {
                    continue;
                }
                // The key as the entry wrote it; a pair the table itself
                // puts on one key (the inbox's `y`: yes, else copy) is
                // the table's order, not a conflict.
                let (mine, theirs) = if a.by.is_some() { (a, b) } else { (b, a) };
                let table = |r: &Row, k: Key| KEYMAP[r.origin].keys.contains(&k);
                let Some(&key) = mine.keys.iter().find(|&&k| {
                    theirs
                        .keys
                        .iter()
                        .any(|&t| overlap(k, t) && !(table(mine, k) && table(theirs, t)))
                }) else {
                    continue;
                };
                // Said at the line of the later entry; naming the other.
                let by = |r: &Row| r.by.map(|i| &entries[i]);
                let (at, other) = match (by(a), by(b)) {
                    (Some(x), Some(y)) if x.at > y.at => {
                        (x, t!("app.keymap.at_line", entry = y.name, line = y.at.0))
                    }
                    (Some(x), Some(y)) => {
                        (y, t!("app.keymap.at_line", entry = x.name, line = x.at.0))
                    }
                    (Some(x), None) => (x, name(rb.command).to_owned()),
                    (None, Some(y)) => (y, name(ra.command).to_owned()),
                    (None, None) => continue,
                };
                return Err(err(
                    at.at,
                    t!(
                        "app.keymap.conflict",
                        entry = at.name,
                        key = key_label(key),
                        other = other,
                        view = view.shown(),
                    ),
                ));
            }
        }
    }
    Ok(())
}
