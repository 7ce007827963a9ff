//! Everything the console can do ([`Command`]), by name, and the one
//! keymap table ([`KEYMAP`]) that binds keys ([`Key`]) to it, view by view
//! ([`Scope`]). The vocabulary alone, which every other part imports: what
//! the keys do in the current view is read in `commands`, and the config's
//! `[keys]` are applied to the table by `keymap::build`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::panes::{Group, Sort};
use super::{Mode, Tab};
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
    /// The other hosts watched over ssh, and where each one's feed is.
    Hosts,
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
    /// Does the key press `k` match this key?
    pub(super) fn matches(self, k: &KeyEvent) -> bool {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match (self, k.code) {
            (Key::Ctrl(c), KeyCode::Char(d)) => ctrl && c == d,
            (Key::Alt(c), KeyCode::Char(d)) => {
                !ctrl && k.modifiers.contains(KeyModifiers::ALT) && c == d
            }
            (Key::Char(c), KeyCode::Char(d)) => !ctrl && c == d,
            (Key::Digit, KeyCode::Char('1'..='9')) => !ctrl,
            (Key::AnyDigit, code) => !ctrl && digit(code).is_some(),
            (Key::Code(c), code) => c == code,
            _ => false,
        }
    }
}

/// The option number of a digit key, ASCII or full-width (as an IME types
/// it): `1` → 0.
pub(super) fn digit(code: KeyCode) -> Option<usize> {
    match code {
        KeyCode::Char(c @ '1'..='9') => Some(c as usize - '1' as usize),
        KeyCode::Char(c @ '１'..='９') => Some(c as usize - '１' as usize),
        _ => None,
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
pub(super) type Text = fn() -> &'static str;

/// `text` in English, whatever the language in force (the palette matches
/// the English names too).
pub(super) fn english(text: Text) -> &'static str {
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
    b(N, Any, &[C('H')], "H", Command::Hosts, || t!("app.command.hosts"), None),
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
    b(N, Any, &[], "", Command::GroupBy(Group::Host), || t!("app.command.group_host"), None),
    b(N, Any, &[], "", Command::Audit, || t!("app.command.audit"), None),
];
