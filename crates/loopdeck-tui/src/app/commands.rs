//! Everything the console can do, by name, and the one keymap table that
//! binds keys to it. Dispatch, the `?` help, the hint bar and the `:`
//! palette all read the keymap in force (`Model::keymap`): this table, or
//! the one `keymap::build` makes from it and the config's `[keys]`; nothing
//! else names a key.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::key_label;
use super::panes::{Group, Sort};
use super::{Focus, Mode, Model, Screen, Tab};
use crate::t;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    NextTab,
    PrevTab,
    TabNumber(usize),
    GoTab(Tab),
    Open,
    Back,
    Filter,
    Palette,
    Help,
    CloseHelp,
    Inbox,
    Projects,
    Reload,
    Redraw,
    Quit,
    CycleBugStatus,
    CycleBugSeverity,
    FollowTimeline,
    /// Decide on the selected row (answer, transition, approve…).
    Decide,
    /// Pick option n of the selected inbox item at once.
    Pick(usize),
    /// Pick the selected inbox item's yes (or no) option.
    YesNo(bool),
    /// Undo the last decision made in this console.
    Undo,
    /// Sort the project list the next way (update, name, waiting, status).
    CycleSort,
    /// Sort the project list this way.
    SortBy(Sort),
    /// Group the project list the next way (none, format, root).
    CycleGroup,
    /// Group the project list this way.
    GroupBy(Group),
    /// Select the next project changed since the user looked.
    NextChanged,
    /// Copy the selected item's id, path or text to the clipboard (OSC 52).
    Copy,
    /// Open the selected file in `$PAGER`.
    Page,
    /// Open the selected file in `$EDITOR` (off in read-only mode).
    Edit,
    /// Every decision made, newest first, from the audit log (read-only).
    Audit,
}

/// One key as the table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    /// Alt (Meta) and a character (only from the config's `[keys]`).
    Alt(char),
    Code(KeyCode),
    /// Any of the digits 1-9 (the command gets the digit).
    Digit,
    /// A digit 1-9, ASCII or full-width (as an IME types it).
    AnyDigit,
}

impl Key {
    fn matches(self, k: &KeyEvent) -> bool {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match (self, k.code) {
            (Key::Ctrl(c), KeyCode::Char(d)) => ctrl && c == d,
            (Key::Alt(c), KeyCode::Char(d)) => {
                !ctrl && k.modifiers.contains(KeyModifiers::ALT) && c == d
            }
            (Key::Char(c), KeyCode::Char(d)) => !ctrl && c == d,
            (Key::Digit, KeyCode::Char('1'..='9')) => !ctrl,
            (Key::AnyDigit, code) => !ctrl && super::decide::keys_digit(code).is_some(),
            (Key::Code(c), code) => c == code,
            _ => false,
        }
    }
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Any view (of its mode).
    Anywhere,
    /// The project list has the keys.
    List,
    /// A project's detail has the keys (no drawer open).
    Detail,
    /// This tab of a project's detail (no drawer open).
    InTab(Tab),
    /// A drawer is open over the detail.
    Drawer,
    Inbox,
}

/// One row of the keymap.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub mode: Mode,
    pub scope: Scope,
    pub keys: &'static [Key],
    /// How help shows the keys ("" for palette-only commands).
    pub label: &'static str,
    pub command: Command,
    /// What help and the palette say, in the language in force (a lookup
    /// in the catalogue: the table is made before the language is known).
    pub description: Text,
    /// On the hint bar: (rank, keys, words), lower ranks first; shown as
    /// "keys words" ("j/k move").
    pub hint: Option<(u8, &'static str, Text)>,
}

/// Text from the catalogue, looked up when it is shown.
pub type Text = fn() -> &'static str;

/// `text` in English, whatever the language in force (the palette matches
/// the English names too).
pub fn english(text: Text) -> &'static str {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    text()
}

const fn b(
    mode: Mode,
    scope: Scope,
    keys: &'static [Key],
    label: &'static str,
    command: Command,
    description: Text,
    hint: Option<(u8, &'static str, Text)>,
) -> Binding {
    Binding {
        mode,
        scope,
        keys,
        label,
        command,
        description,
        hint,
    }
}

use Key::{Char as C, Code as K};
use Mode::{Help as H, Normal as N};
use Scope::{Anywhere as Any, Detail, Drawer, InTab, Inbox, List};

/// The keymap: the first row that matches a key, its mode and its scope,
/// and whose command applies, is what the key does.
#[rustfmt::skip]
pub static KEYMAP: &[Binding] = &[
    // The help overlay scrolls and closes.
    b(H, Any, &[C('j'), K(KeyCode::Down)], "j ↓", Command::Down, || t!("app.command.scroll_down"), Some((1, "j/k", || t!("app.hint.scroll")))),
    b(H, Any, &[C('k'), K(KeyCode::Up)], "k ↑", Command::Up, || t!("app.command.scroll_up"), None),
    b(H, Any, &[K(KeyCode::PageDown)], "PgDn", Command::PageDown, || t!("app.command.page_down"), Some((2, "PgUp/PgDn", || t!("app.hint.page")))),
    b(H, Any, &[K(KeyCode::PageUp)], "PgUp", Command::PageUp, || t!("app.command.page_up"), None),
    b(H, Any, &[C('g'), K(KeyCode::Home)], "g Home", Command::Top, || t!("app.command.top"), None),
    b(H, Any, &[C('G'), K(KeyCode::End)], "G End", Command::Bottom, || t!("app.command.bottom"), None),
    b(H, Any, &[K(KeyCode::Esc), C('?'), C('q')], "Esc ? q", Command::CloseHelp, || t!("app.command.close_help"), Some((0, "Esc", || t!("app.hint.close_help")))),
    // Opening what is selected: one row per view, for the hint bar.
    b(N, Inbox, &[K(KeyCode::Enter)], "Enter", Command::Open, || t!("app.command.open"), Some((0, "Enter", || t!("app.hint.jump")))),
    b(N, List, &[K(KeyCode::Enter)], "Enter", Command::Open, || t!("app.command.open"), Some((0, "Enter", || t!("app.hint.open")))),
    b(N, InTab(Tab::Units), &[K(KeyCode::Enter)], "Enter", Command::Open, || t!("app.command.open"), Some((2, "Enter", || t!("app.hint.unit")))),
    b(N, InTab(Tab::Bugs), &[K(KeyCode::Enter)], "Enter", Command::Open, || t!("app.command.open"), Some((2, "Enter", || t!("app.hint.history")))),
    b(N, InTab(Tab::Revisions), &[K(KeyCode::Enter)], "Enter", Command::Open, || t!("app.command.open"), Some((2, "Enter", || t!("app.hint.section_diff")))),
    b(N, Detail, &[K(KeyCode::Enter)], "Enter", Command::Open, || t!("app.command.open"), None),
    b(N, InTab(Tab::Bugs), &[C('s')], "s", Command::CycleBugStatus, || t!("app.command.bug_status"), Some((0, "s", || t!("app.hint.status")))),
    b(N, InTab(Tab::Bugs), &[C('v')], "v", Command::CycleBugSeverity, || t!("app.command.bug_severity"), Some((1, "v", || t!("app.hint.severity")))),
    b(N, InTab(Tab::Timeline), &[C('f')], "f", Command::FollowTimeline, || t!("app.command.follow"), Some((0, "f", || t!("app.hint.follow")))),
    b(N, Drawer, &[C('j'), K(KeyCode::Down)], "j ↓", Command::Down, || t!("app.command.scroll_down"), Some((0, "j/k", || t!("app.hint.scroll")))),
    b(N, Drawer, &[C('k'), K(KeyCode::Up)], "k ↑", Command::Up, || t!("app.command.scroll_up"), None),
    // Decisions: the hint names what `a` does on the selected row.
    b(N, Any, &[C('a')], "a", Command::Decide, || t!("app.command.decide"), Some((0, "a", || t!("app.hint.decide")))),
    b(N, Inbox, &[Key::AnyDigit], "1-9", Command::Pick(0), || t!("app.command.pick"), Some((1, "1-9", || t!("app.hint.pick")))),
    b(N, Inbox, &[C('y')], "y", Command::YesNo(true), || t!("app.command.yes"), None),
    b(N, Inbox, &[C('n')], "n", Command::YesNo(false), || t!("app.command.no"), None),
    // After the inbox's `y` (an item with a yes option): elsewhere, and on
    // an item without one, y copies.
    b(N, Any, &[C('y')], "y", Command::Copy, || t!("app.command.copy"), Some((9, "y", || t!("app.hint.copy")))),
    b(N, Any, &[C('o')], "o", Command::Page, || t!("app.command.page"), Some((9, "o", || t!("app.hint.open")))),
    b(N, Any, &[C('e')], "e", Command::Edit, || t!("app.command.edit"), None),
    // After the inbox's `n` (a "no" option): elsewhere n goes to the next
    // project changed since you looked.
    b(N, List, &[C('n')], "n", Command::NextChanged, || t!("app.command.next_changed"), Some((3, "n", || t!("app.hint.next_changed")))),
    b(N, Detail, &[C('n')], "n", Command::NextChanged, || t!("app.command.next_changed"), None),
    b(N, Any, &[C('u')], "u", Command::Undo, || t!("app.command.undo"), Some((4, "u", || t!("app.hint.undo")))),
    b(N, Any, &[C('j'), K(KeyCode::Down)], "j ↓", Command::Down, || t!("app.command.move_down"), Some((1, "j/k", || t!("app.hint.move")))),
    b(N, Any, &[C('k'), K(KeyCode::Up)], "k ↑", Command::Up, || t!("app.command.move_up"), None),
    b(N, Any, &[C('g'), K(KeyCode::Home)], "g Home", Command::Top, || t!("app.command.top_timeline"), None),
    b(N, Any, &[C('G'), K(KeyCode::End)], "G End", Command::Bottom, || t!("app.command.bottom"), None),
    b(N, Any, &[K(KeyCode::PageDown)], "PgDn", Command::PageDown, || t!("app.command.page_down"), None),
    b(N, Any, &[K(KeyCode::PageUp)], "PgUp", Command::PageUp, || t!("app.command.page_up"), None),
    b(N, Any, &[K(KeyCode::Tab)], "Tab", Command::NextTab, || t!("app.command.next_tab"), Some((2, "Tab/1-9", || t!("app.hint.tabs")))),
    b(N, Any, &[K(KeyCode::BackTab)], "S-Tab", Command::PrevTab, || t!("app.command.prev_tab"), None),
    b(N, Any, &[Key::Digit], "1-9", Command::TabNumber(0), || t!("app.command.tab_number"), None),
    b(N, Drawer, &[K(KeyCode::Esc)], "Esc", Command::Back, || t!("app.command.back"), Some((1, "Esc", || t!("app.hint.close")))),
    b(N, List, &[K(KeyCode::Esc)], "Esc", Command::Back, || t!("app.command.back"), None),
    b(N, List, &[C('S')], "S", Command::CycleSort, || t!("app.command.sort"), None),
    b(N, List, &[C('b')], "b", Command::CycleGroup, || t!("app.command.group"), None),
    b(N, Any, &[K(KeyCode::Esc)], "Esc", Command::Back, || t!("app.command.back"), Some((3, "Esc", || t!("app.hint.back")))),
    b(N, Any, &[C('i')], "i", Command::Inbox, || t!("app.command.inbox"), Some((4, "i", || t!("app.hint.inbox")))),
    b(N, Any, &[C('p')], "p", Command::Projects, || t!("app.command.projects"), None),
    b(N, Any, &[C('/')], "/", Command::Filter, || t!("app.command.filter"), Some((6, "/", || t!("app.hint.filter")))),
    b(N, Any, &[C(':')], ":", Command::Palette, || t!("app.command.palette"), Some((7, ":", || t!("app.hint.commands")))),
    b(N, Any, &[C('?')], "?", Command::Help, || t!("app.command.help"), Some((8, "?", || t!("app.hint.help")))),
    b(N, Any, &[C('r')], "r", Command::Reload, || t!("app.command.reload"), None),
    b(N, Any, &[Key::Ctrl('l')], "^L", Command::Redraw, || t!("app.command.redraw"), None),
    b(N, Any, &[C('q')], "q", Command::Quit, || t!("app.command.quit"), Some((5, "q", || t!("app.hint.quit")))),
    // Palette only.
    b(N, Any, &[], "", Command::GoTab(Tab::Overview), || t!("app.command.tab_overview"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Frontier), || t!("app.command.tab_frontier"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Phases), || t!("app.command.tab_phases"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Tasks), || t!("app.command.tab_tasks"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Units), || t!("app.command.tab_units"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Bugs), || t!("app.command.tab_bugs"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Timeline), || t!("app.command.tab_timeline"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Revisions), || t!("app.command.tab_revisions"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Agents), || t!("app.command.tab_agents"), None),
    b(N, Any, &[], "", Command::GoTab(Tab::Findings), || t!("app.command.tab_findings"), None),
    b(N, Any, &[], "", Command::SortBy(Sort::Updated), || t!("app.command.sort_update"), None),
    b(N, Any, &[], "", Command::SortBy(Sort::Name), || t!("app.command.sort_name"), None),
    b(N, Any, &[], "", Command::SortBy(Sort::Waiting), || t!("app.command.sort_waiting"), None),
    b(N, Any, &[], "", Command::SortBy(Sort::Status), || t!("app.command.sort_status"), None),
    b(N, Any, &[], "", Command::GroupBy(Group::None), || t!("app.command.group_none"), None),
    b(N, Any, &[], "", Command::GroupBy(Group::Format), || t!("app.command.group_format"), None),
    b(N, Any, &[], "", Command::GroupBy(Group::Root), || t!("app.command.group_root"), None),
    b(N, Any, &[], "", Command::Audit, || t!("app.command.audit"), None),
];

fn in_scope(m: &Model, scope: Scope) -> bool {
    let inbox = m.screen == Screen::Inbox;
    let detail = !inbox && m.focus == Focus::Detail;
    match scope {
        Scope::Anywhere => true,
        Scope::List => !inbox && m.focus == Focus::List,
        Scope::Detail => detail && m.drawer.is_none(),
        Scope::InTab(t) => detail && m.drawer.is_none() && m.tab == t,
        Scope::Drawer => detail && m.drawer.is_some(),
        Scope::Inbox => inbox,
    }
}

/// Does `cmd` mean anything in the current view?
pub fn applies(m: &Model, cmd: Command) -> bool {
    let inbox = m.screen == Screen::Inbox;
    let detail = !inbox && m.focus == Focus::Detail;
    match cmd {
        Command::GoTab(tab) => m.tabs().contains(&tab),
        Command::CycleBugStatus | Command::CycleBugSeverity => detail && m.tab == Tab::Bugs,
        Command::FollowTimeline => !inbox && m.tab == Tab::Timeline,
        Command::NextTab | Command::PrevTab | Command::TabNumber(_) => !inbox && m.tabs().len() > 1,
        Command::Projects => inbox,
        Command::CycleSort | Command::SortBy(_) => !inbox,
        Command::CycleGroup | Command::GroupBy(_) => !inbox,
        Command::Inbox => !inbox,
        Command::Decide => {
            super::decide::offers(m).is_some() || super::decide::why_not(m).is_some()
        }
        Command::Pick(_) => {
            super::decide::offers(m).is_some_and(|(_, _, c)| c.iter().any(|c| c.option.is_some()))
        }
        Command::YesNo(yes) => super::decide::yes_no(m, yes).is_some(),
        Command::NextChanged => !inbox,
        Command::Copy => super::copy::text(m).is_some(),
        Command::Page | Command::Edit => super::copy::file(m).is_some(),
        _ => true,
    }
}

/// The rows of `mode` that apply in the current view.
pub fn active(m: &Model, mode: Mode) -> impl Iterator<Item = &'static Binding> + '_ {
    m.keymap
        .iter()
        .filter(move |b| b.mode == mode && in_scope(m, b.scope) && applies(m, b.command))
}

/// What `key` does here, in the model's current mode.
pub fn lookup(m: &Model, key: &KeyEvent) -> Option<Command> {
    lookup_in(m, m.mode, key)
}

/// What `key` does here in `mode`.
fn lookup_in(m: &Model, mode: Mode, key: &KeyEvent) -> Option<Command> {
    // Alt-x bound in `[keys]` wins over a row of plain x (which, as
    // always, also takes Alt-x).
    let alt = |b: &&Binding| {
        b.keys
            .iter()
            .any(|k| matches!(k, Key::Alt(_)) && k.matches(key))
    };
    let found = active(m, mode)
        .find(alt)
        .or_else(|| active(m, mode).find(|b| b.keys.iter().any(|k| k.matches(key))))?;
    Some(match (found.command, key.code) {
        (Command::TabNumber(_), KeyCode::Char(c @ '1'..='9')) => {
            Command::TabNumber(c as usize - '1' as usize)
        }
        (Command::Pick(_), code) => Command::Pick(super::decide::keys_digit(code).unwrap_or(0)),
        (cmd, _) => cmd,
    })
}

/// Does `key` quit (the one key read while the terminal is too small)?
/// Any quit key in force does, as `[keys]` wrote it (`ctrl-q`, `alt-q`,
/// `Q`); a plain key pressed with Alt only when no row binds that Alt key
/// (as in dispatch).
pub fn quits(m: &Model, key: &KeyEvent) -> bool {
    let normal = || m.keymap.iter().filter(|b| b.mode == Mode::Normal);
    let alt = normal().find(|b| {
        b.keys
            .iter()
            .any(|k| matches!(k, Key::Alt(_)) && k.matches(key))
    });
    match alt {
        Some(b) => b.command == Command::Quit,
        None => {
            normal().any(|b| b.command == Command::Quit && b.keys.iter().any(|k| k.matches(key)))
        }
    }
}

/// The key press a key of the table stands for (a digit: 1).
fn press(k: Key) -> KeyEvent {
    let (code, modifiers) = match k {
        Key::Char(c) => (KeyCode::Char(c), KeyModifiers::NONE),
        Key::Ctrl(c) => (KeyCode::Char(c), KeyModifiers::CONTROL),
        Key::Alt(c) => (KeyCode::Char(c), KeyModifiers::ALT),
        Key::Code(code) => (code, KeyModifiers::NONE),
        Key::Digit | Key::AnyDigit => (KeyCode::Char('1'), KeyModifiers::NONE),
    };
    KeyEvent::new(code, modifiers)
}

/// The keys that run `cmd` here, as help shows them ("g Home"; "" when
/// none does): the keys in force of its rows in this view, each only if
/// no earlier row takes it (the palette shows them by its entry).
pub fn keys_here(m: &Model, cmd: Command) -> String {
    let name = super::keymap::name;
    let mut shown: Vec<String> = Vec::new();
    for b in active(m, Mode::Normal).filter(|b| name(b.command) == name(cmd)) {
        for &k in b.keys {
            let runs = lookup_in(m, Mode::Normal, &press(k)).is_some_and(|c| name(c) == name(cmd));
            let label = key_label(k);
            if runs && !shown.contains(&label) {
                shown.push(label);
            }
        }
    }
    shown.join(" ")
}

/// Is `cmd` a decision (off in read-only mode)?
pub fn is_decision(cmd: Command) -> bool {
    matches!(
        cmd,
        Command::Decide | Command::Pick(_) | Command::YesNo(_) | Command::Undo | Command::Edit
    )
}

/// One row of the `?` help: the keys, what they do here, and whether the
/// command is off (a decision in read-only mode: shown greyed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpRow {
    pub keys: &'static str,
    pub description: String,
    pub off: bool,
}

/// The help screen's rows here, each key label once.
pub fn help_rows(m: &Model) -> Vec<HelpRow> {
    // A newcomer's keys first (quit, help, inbox, decide, next changed),
    // then the rest in the keymap's order.
    const FIRST: [Command; 5] = [
        Command::Quit,
        Command::Help,
        Command::Inbox,
        Command::Decide,
        Command::NextChanged,
    ];
    let mut rows: Vec<(usize, HelpRow)> = Vec::new();
    for b in active(m, Mode::Normal).filter(|b| !b.label.is_empty()) {
        if rows.iter().any(|(_, r)| r.keys == b.label) {
            continue;
        }
        // What `a` does depends on the row: say it.
        let description = match (b.command, super::decide::offers(m)) {
            (Command::Decide, Some((_, _, choices))) => {
                let mut verbs: Vec<&str> = Vec::new();
                for c in &choices {
                    let verb = crate::model::shown_verb(c.address.verb);
                    if !verbs.contains(&verb) {
                        verbs.push(verb);
                    }
                }
                t!(
                    "app.help.decide_row",
                    verbs = verbs.join(t!("app.keymap.sep"))
                )
            }
            _ => (b.description)().to_owned(),
        };
        let first = FIRST
            .iter()
            .position(|c| *c == b.command)
            .unwrap_or(FIRST.len());
        rows.push((
            first,
            HelpRow {
                keys: b.label,
                description,
                off: m.readonly && is_decision(b.command),
            },
        ));
    }
    rows.sort_by_key(|(first, _)| *first);
    rows.into_iter().map(|(_, r)| r).collect()
}

/// One entry of the hint bar; `off`: a decision in read-only mode, shown
/// greyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub text: String,
    pub off: bool,
    /// Kept on the bar however narrow (`?`: the way to every other key).
    pub keep: bool,
}

/// The hint bar's entries here, most important first.
pub fn hints(m: &Model) -> Vec<Hint> {
    let mode = if m.mode == Mode::Help {
        Mode::Help
    } else {
        Mode::Normal
    };
    let mut found: Vec<(u8, Hint)> = Vec::new();
    let mut seen: Vec<Key> = Vec::new();
    for b in active(m, mode) {
        // The first row for a key wins, as in dispatch (a row without a
        // hint hides the later rows of its key too).
        if b.keys.iter().any(|k| seen.contains(k)) {
            continue;
        }
        seen.extend_from_slice(b.keys);
        // An action the user unbound (or a palette-only one) has no key
        // to hint.
        if b.keys.is_empty() {
            continue;
        }
        // `u` says why there is nothing to undo, but is hinted only when
        // there is something.
        if b.command == Command::Undo && m.last.is_none() {
            continue;
        }
        // `n` too, when a project changed since you looked.
        if b.command == Command::NextChanged && !m.seen.any_changed() {
            continue;
        }
        // The inbox's `y` picks yes here (not copy): say so.
        if b.command == Command::YesNo(true) {
            let yes = b.keys.first().map_or_else(String::new, |&k| key_label(k));
            let no = active(m, mode)
                .find(|b| b.command == Command::YesNo(false) && !b.keys.is_empty())
                .and_then(|b| b.keys.first())
                .map(|&k| key_label(k));
            let text = match no {
                Some(no) => t!("app.hint.yes_no", yes = yes, no = no),
                None => t!("app.hint.yes", yes = yes),
            };
            found.push((
                1,
                Hint {
                    text,
                    off: m.readonly,
                    keep: false,
                },
            ));
            continue;
        }
        if let Some((rank, keys, words)) = b.hint {
            let text = match b.command {
                // "a approve": the verb of the selected row, after the key
                // in force.
                Command::Decide => super::decide::hint(m).map_or_else(
                    || format!("{keys} {}", words()),
                    |h| format!("{keys} {}", h.strip_prefix("a ").unwrap_or(&h)),
                ),
                _ => format!("{keys} {}", words()),
            };
            found.push((
                rank,
                Hint {
                    text,
                    off: m.readonly && is_decision(b.command),
                    keep: b.command == Command::Help,
                },
            ));
        }
    }
    found.sort_by_key(|(rank, _)| *rank);
    found.into_iter().map(|(_, h)| h).collect()
}

/// The first key `cmd` has in force (as help shows it), if it has one.
pub fn key_in_force(m: &Model, cmd: Command) -> Option<String> {
    m.keymap
        .iter()
        .find(|b| b.mode == Mode::Normal && b.command == cmd && !b.keys.is_empty())
        .and_then(|b| b.keys.first())
        .map(|&k| key_label(k))
}

/// How well `needle` matches a description (lower is better), if at all:
/// names that start with the input first, then words that do, then
/// anything containing it.
pub(super) fn rank(description: &str, needle: &str) -> Option<u8> {
    let d = description.to_lowercase();
    if d.starts_with(needle) {
        Some(0)
    } else if d
        .split([' ', ':', ',', '：', '，', '、', '（'])
        .any(|w| w.starts_with(needle))
    {
        Some(1)
    } else if d.contains(needle) {
        Some(2)
    } else {
        None
    }
}

/// Palette entries whose description contains `input` (case-insensitive),
/// in the language in force or in English, among the commands that apply
/// here, each command once, as the language in force says it.
pub fn matching(m: &Model, input: &str) -> Vec<(Command, &'static str)> {
    ranked(m, input)
        .into_iter()
        .map(|(_, cmd, desc)| (cmd, desc))
        .collect()
}

/// [`matching`], with how well each matched (lower is better).
pub(super) fn ranked(m: &Model, input: &str) -> Vec<(u8, Command, &'static str)> {
    let needle = input.to_lowercase();
    let mut seen: Vec<Command> = Vec::new();
    let mut found: Vec<(u8, Command, &'static str)> = Vec::new();
    for b in m
        .keymap
        .iter()
        .filter(|b| b.mode == Mode::Normal && applies(m, b.command))
    {
        // An option is picked by its digit, not from the palette.
        if seen.contains(&b.command)
            || matches!(
                b.command,
                Command::Palette | Command::Pick(_) | Command::YesNo(_)
            )
        {
            continue;
        }
        seen.push(b.command);
        let shown = (b.description)();
        // By what it says (in the language spoken, and in English) and by
        // its action name in `[keys]` (`:reload`, `:open-pager`).
        let name = super::keymap::name(b.command);
        let Some(rank) = [
            rank(shown, &needle),
            rank(english(b.description), &needle),
            rank(name, &needle),
        ]
        .into_iter()
        .flatten()
        .min() else {
            continue;
        };
        found.push((rank, b.command, shown));
    }
    found.sort_by_key(|(rank, _, _)| *rank);
    found
}
