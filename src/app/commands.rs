//! Everything the console can do, by name: the keys map to these, the
//! command palette lists them, and the help screen documents them.

use super::{Focus, Model, Screen, Tab};

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
    Inbox,
    Projects,
    Reload,
    Redraw,
    Quit,
    CycleBugStatus,
    CycleBugSeverity,
    FollowTimeline,
}

/// Keys and palette names: (command, key, description). The help screen
/// shows the rows that apply to the current view.
pub const COMMANDS: &[(Command, &str, &str)] = &[
    (Command::Down, "j ↓", "move down"),
    (Command::Up, "k ↑", "move up"),
    (Command::Top, "g Home", "go to the top"),
    (Command::Bottom, "G End", "go to the bottom"),
    (Command::PageDown, "PgDn", "page down"),
    (Command::PageUp, "PgUp", "page up"),
    (Command::NextTab, "Tab", "next tab"),
    (Command::PrevTab, "S-Tab", "previous tab"),
    (Command::Open, "Enter", "open: detail, drawer, inbox item"),
    (Command::Back, "Esc", "back: close, leave the detail"),
    (Command::Filter, "/", "filter the list you are in"),
    (Command::Palette, ":", "command palette"),
    (Command::Help, "?", "this help"),
    (Command::Inbox, "i", "inbox: everything waiting for a human"),
    (Command::Projects, "p", "projects"),
    (Command::Reload, "r", "read every project again"),
    (Command::Redraw, "^L", "redraw the screen"),
    (Command::Quit, "q", "quit"),
    (
        Command::CycleBugStatus,
        "s",
        "bugs: cycle the status filter",
    ),
    (
        Command::CycleBugSeverity,
        "v",
        "bugs: cycle the severity filter",
    ),
    (Command::FollowTimeline, "f", "timeline: follow the end"),
    (Command::TabNumber(0), "1-9", "pick a tab by its number"),
    (Command::GoTab(Tab::Overview), "", "tab: Overview"),
    (Command::GoTab(Tab::Frontier), "", "tab: Frontier"),
    (Command::GoTab(Tab::Phases), "", "tab: Phases & Decisions"),
    (Command::GoTab(Tab::Tasks), "", "tab: Tasks"),
    (Command::GoTab(Tab::Units), "", "tab: Units"),
    (Command::GoTab(Tab::Bugs), "", "tab: Bugs"),
    (Command::GoTab(Tab::Timeline), "", "tab: Timeline"),
    (Command::GoTab(Tab::Agents), "", "tab: Agents"),
    (Command::GoTab(Tab::Findings), "", "tab: Findings"),
];

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
        Command::Inbox => !inbox,
        _ => true,
    }
}

/// Palette entries whose description contains `input` (case-insensitive),
/// among the commands that apply here.
pub fn matching(m: &Model, input: &str) -> Vec<(Command, &'static str)> {
    let needle = input.to_lowercase();
    let mut found: Vec<(usize, Command, &'static str)> = COMMANDS
        .iter()
        .filter(|(cmd, _, _)| applies(m, *cmd))
        .filter_map(|(cmd, _, desc)| {
            let d = desc.to_lowercase();
            // Names that start with the input first, then words that do,
            // then anything containing it.
            let rank = if d.starts_with(&needle) {
                0
            } else if d.split([' ', ':', ',']).any(|w| w.starts_with(&needle)) {
                1
            } else if d.contains(&needle) {
                2
            } else {
                return None;
            };
            Some((rank, *cmd, *desc))
        })
        .collect();
    found.sort_by_key(|(rank, _, _)| *rank);
    found
        .into_iter()
        .map(|(_, cmd, desc)| (cmd, desc))
        .collect()
}
