//! What the keymap in force (`Model::keymap`: the table of `bindings`, or
//! the one `keymap::build` makes from it and the config's `[keys]`) does
//! in the current view: which commands apply here, what a key runs
//! (dispatch), the `?` help, the hint bar and the `:` palette's matches.
//! The commands, the keys and the table themselves are in `bindings`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::bindings::{Binding, Command, Key, Scope, digit, english};
use super::keymap::key_label;
use super::{Focus, Mode, Model, Screen, Tab};
use crate::t;

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
        // By host means something only when other hosts are watched.
        Command::GroupBy(super::panes::Group::Host) => !inbox && !m.hosts.is_empty(),
        Command::CycleGroup | Command::GroupBy(_) => !inbox,
        Command::Inbox => !inbox,
        // A row of the last run's snapshot: `a` says why not yet, whatever
        // the row would offer once read.
        Command::Decide => {
            super::decide::offers(m).is_some()
                || super::decide::why_not(m).is_some()
                || super::decide::still_reading(m).is_some()
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
pub(super) fn active(m: &Model, mode: Mode) -> impl Iterator<Item = &'static Binding> + '_ {
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
        (Command::Pick(_), code) => Command::Pick(digit(code).unwrap_or(0)),
        (cmd, _) => cmd,
    })
}

/// Does `key` quit (the one key read while the terminal is too small)?
/// Any quit key in force does, as `[keys]` wrote it (`ctrl-q`, `alt-q`,
/// `Q`); a plain key pressed with Alt only when no row binds that Alt key
/// (as in dispatch).
pub(super) fn quits(m: &Model, key: &KeyEvent) -> bool {
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
