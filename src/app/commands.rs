//! Everything the console can do, by name, and the one keymap table that
//! binds keys to it. Dispatch, the `?` help, the hint bar and the `:`
//! palette all read the keymap in force (`Model::keymap`): this table, or
//! the one `keymap::build` makes from it and the config's `[keys]`; nothing
//! else names a key.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::panes::Sort;
use super::{Focus, Mode, Model, Screen, Tab};

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
    /// Select the next project changed since the user looked.
    NextChanged,
    /// Copy the selected item's id, path or text to the clipboard (OSC 52).
    Copy,
    /// Open the selected file in `$PAGER`.
    Page,
    /// Open the selected file in `$EDITOR` (off in read-only mode).
    Edit,
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
    /// What help and the palette say.
    pub description: &'static str,
    /// On the hint bar: (rank, text), lower ranks first.
    pub hint: Option<(u8, &'static str)>,
}

const fn b(
    mode: Mode,
    scope: Scope,
    keys: &'static [Key],
    label: &'static str,
    command: Command,
    description: &'static str,
    hint: Option<(u8, &'static str)>,
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
    b(H, Any, &[C('j'), K(KeyCode::Down)], "j ↓", Command::Down, "scroll down", Some((1, "j/k scroll"))),
    b(H, Any, &[C('k'), K(KeyCode::Up)], "k ↑", Command::Up, "scroll up", None),
    b(H, Any, &[K(KeyCode::PageDown)], "PgDn", Command::PageDown, "page down", Some((2, "PgUp/PgDn page"))),
    b(H, Any, &[K(KeyCode::PageUp)], "PgUp", Command::PageUp, "page up", None),
    b(H, Any, &[C('g'), K(KeyCode::Home)], "g Home", Command::Top, "go to the top", None),
    b(H, Any, &[C('G'), K(KeyCode::End)], "G End", Command::Bottom, "go to the bottom", None),
    b(H, Any, &[K(KeyCode::Esc), C('?'), C('q')], "Esc ? q", Command::CloseHelp, "close help", Some((0, "Esc close help"))),
    // Opening what is selected: one row per view, for the hint bar.
    b(N, Inbox, &[K(KeyCode::Enter)], "Enter", Command::Open, "open: detail, drawer, inbox item", Some((0, "Enter jump to it"))),
    b(N, List, &[K(KeyCode::Enter)], "Enter", Command::Open, "open: detail, drawer, inbox item", Some((0, "Enter open"))),
    b(N, InTab(Tab::Units), &[K(KeyCode::Enter)], "Enter", Command::Open, "open: detail, drawer, inbox item", Some((2, "Enter unit"))),
    b(N, InTab(Tab::Bugs), &[K(KeyCode::Enter)], "Enter", Command::Open, "open: detail, drawer, inbox item", Some((2, "Enter history"))),
    b(N, InTab(Tab::Revisions), &[K(KeyCode::Enter)], "Enter", Command::Open, "open: detail, drawer, inbox item", Some((2, "Enter section diff"))),
    b(N, Detail, &[K(KeyCode::Enter)], "Enter", Command::Open, "open: detail, drawer, inbox item", None),
    b(N, InTab(Tab::Bugs), &[C('s')], "s", Command::CycleBugStatus, "bugs: cycle the status filter", Some((0, "s status"))),
    b(N, InTab(Tab::Bugs), &[C('v')], "v", Command::CycleBugSeverity, "bugs: cycle the severity filter", Some((1, "v severity"))),
    b(N, InTab(Tab::Timeline), &[C('f')], "f", Command::FollowTimeline, "timeline: follow the end", Some((0, "f follow"))),
    b(N, Drawer, &[C('j'), K(KeyCode::Down)], "j ↓", Command::Down, "scroll down", Some((0, "j/k scroll"))),
    b(N, Drawer, &[C('k'), K(KeyCode::Up)], "k ↑", Command::Up, "scroll up", None),
    // Decisions: the hint names what `a` does on the selected row.
    b(N, Any, &[C('a')], "a", Command::Decide, "decide on the selected item: answer, transition, approve…", Some((0, "a decide"))),
    b(N, Inbox, &[Key::AnyDigit], "1-9", Command::Pick(0), "inbox: pick the item's option by its number", Some((1, "1-9 pick"))),
    b(N, Inbox, &[C('y')], "y", Command::YesNo(true), "inbox: pick the item's yes option", None),
    b(N, Inbox, &[C('n')], "n", Command::YesNo(false), "inbox: pick the item's no option", None),
    // After the inbox's `y` (an item with a yes option): elsewhere, and on
    // an item without one, y copies.
    b(N, Any, &[C('y')], "y", Command::Copy, "copy the selected item's id, path or text (OSC 52)", Some((9, "y copy"))),
    b(N, Any, &[C('o')], "o", Command::Page, "open the selected file in $PAGER", Some((9, "o open"))),
    b(N, Any, &[C('e')], "e", Command::Edit, "edit the selected file in $EDITOR", None),
    // After the inbox's `n` (a "no" option): elsewhere n goes to the next
    // project changed since you looked.
    b(N, List, &[C('n')], "n", Command::NextChanged, "next project changed since you looked", Some((7, "n next changed"))),
    b(N, Detail, &[C('n')], "n", Command::NextChanged, "next project changed since you looked", None),
    b(N, Any, &[C('u')], "u", Command::Undo, "undo the last decision made here", Some((4, "u undo"))),
    b(N, Any, &[C('j'), K(KeyCode::Down)], "j ↓", Command::Down, "move down", Some((1, "j/k move"))),
    b(N, Any, &[C('k'), K(KeyCode::Up)], "k ↑", Command::Up, "move up", None),
    b(N, Any, &[C('g'), K(KeyCode::Home)], "g Home", Command::Top, "go to the top (the Timeline reads back)", None),
    b(N, Any, &[C('G'), K(KeyCode::End)], "G End", Command::Bottom, "go to the bottom", None),
    b(N, Any, &[K(KeyCode::PageDown)], "PgDn", Command::PageDown, "page down", None),
    b(N, Any, &[K(KeyCode::PageUp)], "PgUp", Command::PageUp, "page up", None),
    b(N, Any, &[K(KeyCode::Tab)], "Tab", Command::NextTab, "next tab", Some((2, "Tab/1-9 tabs"))),
    b(N, Any, &[K(KeyCode::BackTab)], "S-Tab", Command::PrevTab, "previous tab", None),
    b(N, Any, &[Key::Digit], "1-9", Command::TabNumber(0), "pick a tab by its number", None),
    b(N, Drawer, &[K(KeyCode::Esc)], "Esc", Command::Back, "back: clear the filter, close, leave", Some((1, "Esc close"))),
    b(N, List, &[K(KeyCode::Esc)], "Esc", Command::Back, "back: clear the filter, close, leave", None),
    b(N, List, &[C('S')], "S", Command::CycleSort, "sort the list: update, name, waiting, status", None),
    b(N, Any, &[K(KeyCode::Esc)], "Esc", Command::Back, "back: clear the filter, close, leave", Some((3, "Esc back"))),
    b(N, Any, &[C('i')], "i", Command::Inbox, "inbox: everything waiting for a human", Some((4, "i inbox"))),
    b(N, Any, &[C('p')], "p", Command::Projects, "projects", None),
    b(N, Any, &[C('/')], "/", Command::Filter, "filter the list you are in", Some((6, "/ filter"))),
    b(N, Any, &[C(':')], ":", Command::Palette, "command palette", Some((7, ": commands"))),
    b(N, Any, &[C('?')], "?", Command::Help, "this help", Some((8, "? help"))),
    b(N, Any, &[C('r')], "r", Command::Reload, "read every project again", None),
    b(N, Any, &[Key::Ctrl('l')], "^L", Command::Redraw, "redraw the screen", None),
    b(N, Any, &[C('q')], "q", Command::Quit, "quit", Some((5, "q quit"))),
    // Palette only.
    b(N, Any, &[], "", Command::GoTab(Tab::Overview), "tab: Overview", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Frontier), "tab: Frontier", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Phases), "tab: Phases & Decisions", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Tasks), "tab: Tasks", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Units), "tab: Units", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Bugs), "tab: Bugs", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Timeline), "tab: Timeline", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Revisions), "tab: Revisions", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Agents), "tab: Agents", None),
    b(N, Any, &[], "", Command::GoTab(Tab::Findings), "tab: Findings", None),
    b(N, Any, &[], "", Command::SortBy(Sort::Updated), "sort: by update, newest first", None),
    b(N, Any, &[], "", Command::SortBy(Sort::Name), "sort: by name", None),
    b(N, Any, &[], "", Command::SortBy(Sort::Waiting), "sort: by waiting, most first", None),
    b(N, Any, &[], "", Command::SortBy(Sort::Status), "sort: by status, what needs you first", None),
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
        Command::Inbox => !inbox,
        Command::Decide => super::decide::offers(m).is_some(),
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
    // Alt-x bound in `[keys]` wins over a row of plain x (which, as
    // always, also takes Alt-x).
    let alt = |b: &&Binding| {
        b.keys
            .iter()
            .any(|k| matches!(k, Key::Alt(_)) && k.matches(key))
    };
    let found = active(m, m.mode)
        .find(alt)
        .or_else(|| active(m, m.mode).find(|b| b.keys.iter().any(|k| k.matches(key))))?;
    Some(match (found.command, key.code) {
        (Command::TabNumber(_), KeyCode::Char(c @ '1'..='9')) => {
            Command::TabNumber(c as usize - '1' as usize)
        }
        (Command::Pick(_), code) => Command::Pick(super::decide::keys_digit(code).unwrap_or(0)),
        (cmd, _) => cmd,
    })
}

/// Does `key` quit (the one key read while the terminal is too small)?
pub fn quits(m: &Model, key: &KeyEvent) -> bool {
    !key.modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        && m.keymap.iter().any(|b| {
            b.mode == Mode::Normal
                && b.command == Command::Quit
                && b.keys.iter().any(|k| k.matches(key))
        })
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
    let mut rows: Vec<HelpRow> = Vec::new();
    for b in active(m, Mode::Normal).filter(|b| !b.label.is_empty()) {
        if rows.iter().any(|r| r.keys == b.label) {
            continue;
        }
        // What `a` does depends on the row: say it.
        let description = match (b.command, super::decide::offers(m)) {
            (Command::Decide, Some((_, _, choices))) => {
                let mut verbs: Vec<&str> = Vec::new();
                for c in &choices {
                    if !verbs.contains(&c.address.verb) {
                        verbs.push(c.address.verb);
                    }
                }
                format!("decide on the selected row: {}", verbs.join(", "))
            }
            _ => b.description.to_owned(),
        };
        rows.push(HelpRow {
            keys: b.label,
            description,
            off: m.readonly && is_decision(b.command),
        });
    }
    rows
}

/// One entry of the hint bar; `off`: a decision in read-only mode, shown
/// greyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub text: String,
    pub off: bool,
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
            let text = if applies(m, Command::YesNo(false)) {
                "y/n yes/no"
            } else {
                "y yes"
            };
            found.push((
                1,
                Hint {
                    text: text.to_owned(),
                    off: m.readonly,
                },
            ));
            continue;
        }
        if let Some((rank, text)) = b.hint {
            let text = match b.command {
                // "a approve": the verb of the selected row, after the key
                // in force.
                Command::Decide => super::decide::hint(m).map_or_else(
                    || text.to_owned(),
                    |h| {
                        let key = text.split(' ').next().unwrap_or_default();
                        format!("{key} {}", h.strip_prefix("a ").unwrap_or(&h))
                    },
                ),
                _ => text.to_owned(),
            };
            found.push((
                rank,
                Hint {
                    text,
                    off: m.readonly && is_decision(b.command),
                },
            ));
        }
    }
    found.sort_by_key(|(rank, _)| *rank);
    found.into_iter().map(|(_, h)| h).collect()
}

/// Palette entries whose description contains `input` (case-insensitive),
/// among the commands that apply here, each command once.
pub fn matching(m: &Model, input: &str) -> Vec<(Command, &'static str)> {
    let needle = input.to_lowercase();
    let mut seen: Vec<Command> = Vec::new();
    let mut found: Vec<(usize, Command, &'static str)> = Vec::new();
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
        let d = b.description.to_lowercase();
        // Names that start with the input first, then words that do, then
        // anything containing it.
        let rank = if d.starts_with(&needle) {
            0
        } else if d.split([' ', ':', ',']).any(|w| w.starts_with(&needle)) {
            1
        } else if d.contains(&needle) {
            2
        } else {
            continue;
        };
        found.push((rank, b.command, b.description));
    }
    found.sort_by_key(|(rank, _, _)| *rank);
    found
        .into_iter()
        .map(|(_, cmd, desc)| (cmd, desc))
        .collect()
}
