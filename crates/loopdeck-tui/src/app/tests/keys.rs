//! The user's keys (`[keys]` in the config): what a remapped key does, the
//! old key not, help and hints naming the keys in force, and every mistake
//! refused with its line; and the one table (`KEYMAP`) that drives
//! dispatch, help, hints and the palette.

use crossterm::event::KeyEvent;

use super::{code, devloop, key, three};
use crate::app::keymap::{KeyError, build, key_label, parse_key};
use crate::app::*;

fn entries(toml: &str) -> Vec<crate::app::keymap::KeyEntry> {
    crate::app::keymap::Keys::of(toml).0
}

/// `three()` with the keys of `toml` in force.
fn with(toml: &str) -> Model {
    let mut m = three();
    m.keymap = build(&entries(toml)).unwrap();
    m
}

fn refused(toml: &str) -> KeyError {
    build(&entries(toml)).unwrap_err()
}

fn hint_texts(m: &Model) -> Vec<String> {
    hints(m).into_iter().map(|h| h.text).collect()
}

fn help_of(m: &Model, cmd_description: &str) -> Vec<String> {
    help_rows(m)
        .into_iter()
        .filter(|r| r.description == cmd_description)
        .map(|r| r.keys.to_owned())
        .collect()
}

#[test]
fn without_keys_the_table_itself_is_in_force() {
    assert!(std::ptr::eq(build(&[]).unwrap(), KEYMAP));
    assert!(std::ptr::eq(three().keymap, KEYMAP));
}

#[test]
fn keys_are_written_as_characters_and_names() {
    use crossterm::event::KeyCode as K;
    let cases = [
        ("Q", Key::Char('Q')),
        ("space", Key::Char(' ')),
        ("ctrl-x", Key::Ctrl('x')),
        ("Ctrl-X", Key::Ctrl('x')),
        ("alt-j", Key::Alt('j')),
        ("enter", Key::Code(K::Enter)),
        ("Esc", Key::Code(K::Esc)),
        ("backtab", Key::Code(K::BackTab)),
        ("pgdn", Key::Code(K::PageDown)),
        ("home", Key::Code(K::Home)),
        ("f1", Key::Code(K::F(1))),
        ("F12", Key::Code(K::F(12))),
        ("左", Key::Char('左')),
    ];
    for (text, want) in cases {
        assert_eq!(parse_key(text), Ok(want), "{text}");
    }
    for bad in ["", "ctrl-", "f13", "f0", "shift-q", "enterr", "ctrl-xy"] {
        assert!(parse_key(bad).is_err(), "{bad}");
    }
    assert!(parse_key("ctrl-c").unwrap_err().contains("always quits"));
    let labels: Vec<String> = ["Q", "ctrl-l", "alt-x", "pgup", "down", "space", "f5"]
        .into_iter()
        .map(|k| key_label(parse_key(k).unwrap()))
        .collect();
    assert_eq!(labels, ["Q", "^L", "M-x", "PgUp", "↓", "Space", "F5"]);
}

#[test]
fn mistakes_are_refused_at_their_line() {
    let e = refused("[keys]\nquit = \"Q\"\nquitt = \"x\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert!(
        e.message
            .starts_with("unknown action `quitt` in [keys] (actions: audit, back, bottom,"),
        "{}",
        e.message
    );
    let e = refused("[keys]\n\n\"lst.quit\" = \"x\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert!(
        e.message.starts_with("unknown view `lst` in `lst.quit`"),
        "{}",
        e.message
    );
    // A bad key is shown at the value.
    let e = refused("[keys]\nreload = [\"r\", \"ctrl-\"]\n");
    assert_eq!((e.line, e.column), (2, 10));
    assert!(
        e.message.starts_with("`reload`: `ctrl-` is not a key ("),
        "{}",
        e.message
    );
    // A control character is no key (ESC arrives as Esc): refused,
    // shown escaped.
    let e = refused("[keys]\ngroup = [\"\\u001b\", \"b\"]\n");
    assert!(
        e.message.starts_with("`group`: `\\u{1b}` is not a key ("),
        "{}",
        e.message
    );
    let e = refused("[keys]\nquit = \"ctrl-c\"\n");
    assert_eq!(e.message, "`quit`: ctrl-c always quits; it cannot be bound");
    let e = refused("[keys]\n\"inbox.bug-status\" = \"x\"\n");
    assert_eq!(
        e.message,
        "`inbox.bug-status`: bug-status does nothing there (it acts in the bugs tab)"
    );
    let e = refused("[keys]\npick = \"p\"\n");
    assert_eq!(
        e.message,
        "`pick`: pick is the digits 1-9; it can only be unbound (\"\")"
    );
}

#[test]
fn two_actions_on_one_key_in_one_view_are_refused_naming_both() {
    // Against a key of the table.
    let e = refused("[keys]\nquit = \"j\"\n");
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (2, 1, "`quit`: j is also move-down in the list")
    );
    // Between two entries: at the later one, naming the other's line.
    let e = refused("[keys]\nquit = \"x\"\n# a comment\nreload = [\"r\", \"x\"]\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (4, "`reload`: x is also quit (line 2) in the list")
    );
    // Per view: the inbox's Enter opens the item.
    let e = refused("[keys]\n\"inbox.decide\" = \"enter\"\n");
    assert_eq!(e.message, "`inbox.decide`: Enter is also open in the inbox");
    // A digit is a tab's number.
    let e = refused("[keys]\n\"list.reload\" = \"2\"\n");
    assert_eq!(e.message, "`list.reload`: 2 is also tab-number in the list");
    // Freed first, the key can be taken; the table's own overlaps (the
    // inbox's n and digits) are not conflicts.
    build(&entries(
        "[keys]\n\"inbox.open\" = \"z\"\n\"inbox.decide\" = \"enter\"\nmove-down = \"J\"\nquit = \"j\"\n",
    ))
    .unwrap();
}

#[test]
fn a_remapped_key_acts_and_the_old_one_does_not() {
    let mut m = with("[keys]\nquit = \"Q\"\nmove-down = [\"J\", \"down\"]\n");
    assert_eq!(update(&mut m, key('q')), vec![]);
    update(&mut m, key('j'));
    assert_eq!(m.list.selected, 0, "j no longer moves");
    update(&mut m, key('J'));
    assert_eq!(m.list.selected, 1, "J moves");
    update(&mut m, code(KeyCode::Down));
    assert_eq!(m.list.selected, 2);
    assert_eq!(update(&mut m, key('Q')), vec![Effect::Quit]);
    // Also while the terminal is too small, where only quit acts.
    m.size = (20, 5);
    assert_eq!(update(&mut m, key('q')), vec![]);
    assert_eq!(update(&mut m, key('Q')), vec![Effect::Quit]);
    // The help overlay scrolls with the new key too.
    let mut m = with("[keys]\nmove-down = \"J\"\n");
    update(&mut m, key('?'));
    update(&mut m, key('J'));
    assert_eq!(m.help_scroll, 1);
    // ...unless the entry names another view.
    let mut m = with("[keys]\n\"list.move-down\" = \"J\"\n");
    update(&mut m, key('?'));
    update(&mut m, key('j'));
    assert_eq!(m.help_scroll, 1);
}

#[test]
fn an_unbound_action_has_no_key_but_stays_in_the_palette() {
    let mut m = with("[keys]\nreload = \"\"\nundo = []\n");
    assert_eq!(update(&mut m, key('r')), vec![]);
    assert!(help_of(&m, "read every project again").is_empty());
    assert!(
        commands::matching(&m, "read every")
            .iter()
            .any(|(c, _)| *c == Command::Reload)
    );
    update(&mut m, key(':'));
    for c in "read every".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(update(&mut m, code(KeyCode::Enter)), vec![Effect::Reload]);
}

#[test]
fn a_key_for_one_view_acts_there_only() {
    let mut m = with("[keys]\n\"list.sort\" = \"z\"\n\"detail.quit\" = \"x\"\n");
    update(&mut m, key('S'));
    assert_eq!(m.sort, panes::Sort::Updated, "S no longer sorts");
    update(&mut m, key('z'));
    assert_eq!(m.sort, panes::Sort::Name);
    // In the list, q still quits and x does nothing.
    assert_eq!(update(&mut m, key('x')), vec![]);
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(update(&mut m, key('q')), vec![], "detail: q is x now");
    assert_eq!(update(&mut m, key('x')), vec![Effect::Quit]);
    // A tab beats `detail`, which beats every view.
    let mut m = with("[keys]\nquit = \"Q\"\n\"detail.quit\" = \"x\"\n\"overview.quit\" = \"z\"\n");
    assert_eq!(update(&mut m, key('Q')), vec![Effect::Quit]);
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.tab, Tab::Overview);
    assert_eq!(update(&mut m, key('x')), vec![]);
    assert_eq!(update(&mut m, key('z')), vec![Effect::Quit]);
    update(&mut m, code(KeyCode::Tab));
    assert_ne!(m.tab, Tab::Overview);
    assert_eq!(update(&mut m, key('x')), vec![Effect::Quit]);
}

#[test]
fn alt_keys_and_palette_only_actions_can_be_bound() {
    let mut m = with("[keys]\nreload = \"alt-r\"\nsort-name = \"ctrl-n\"\n");
    assert_eq!(update(&mut m, key('r')), vec![]);
    let alt_r = Event::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::ALT));
    assert_eq!(update(&mut m, alt_r), vec![Effect::Reload]);
    let ctrl_n = Event::Key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::CONTROL));
    update(&mut m, ctrl_n);
    assert_eq!(m.sort, panes::Sort::Name);
    assert_eq!(help_of(&m, "sort: by name"), ["^N"]);
    assert_eq!(help_of(&m, "read every project again"), ["M-r"]);
    // Alt-j is its own key beside j (which, plain, still takes Alt-j).
    let alt_j = || Event::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::ALT));
    let mut m = three();
    update(&mut m, alt_j());
    assert_eq!(m.list.selected, 1, "without [keys], Alt-j moves as j");
    let mut m = with("[keys]\nreload = \"alt-j\"\n");
    assert_eq!(update(&mut m, alt_j()), vec![Effect::Reload]);
    assert_eq!(m.list.selected, 0);
    update(&mut m, key('j'));
    assert_eq!(m.list.selected, 1);
}

#[test]
fn help_and_hints_show_the_keys_in_force() {
    let m = three();
    assert_eq!(help_of(&m, "quit"), ["q"]);
    let before = hint_texts(&m);
    assert!(before.contains(&"q quit".to_owned()), "{before:?}");
    assert!(before.contains(&"j/k move".to_owned()), "{before:?}");

    let m = with("[keys]\nquit = \"Q\"\nmove-down = [\"J\", \"down\"]\nfilter = \"\"\n");
    assert_eq!(help_of(&m, "quit"), ["Q"]);
    assert_eq!(help_of(&m, "move down"), ["J ↓"]);
    assert_eq!(help_of(&m, "move up"), ["k ↑"]);
    let h = hint_texts(&m);
    assert!(h.contains(&"Q quit".to_owned()), "{h:?}");
    assert!(h.contains(&"J/k move".to_owned()), "{h:?}");
    assert!(!h.iter().any(|t| t.ends_with("filter")), "unbound: {h:?}");
    assert!(!h.contains(&"q quit".to_owned()), "{h:?}");
    // Everything not remapped is hinted as before, in the same order.
    let same: Vec<&String> = h
        .iter()
        .filter(|t| !t.ends_with("quit") && !t.ends_with("move"))
        .collect();
    let want: Vec<&String> = before
        .iter()
        .filter(|t| !t.ends_with("quit") && !t.ends_with("move") && !t.ends_with("filter"))
        .collect();
    assert_eq!(same, want);
}

/// A PRD project with one question the console can answer.
fn answerable() -> Model {
    use crate::model::{Address, FileStamp, InboxItem, InboxKind};
    let mut p = super::project("alpha", Format::PrdMaster, 0);
    p.inbox.push(InboxItem {
        kind: InboxKind::Question,
        act: Some(Address::new("answer", Some("OQ-1".to_owned()), Vec::new())),
        reference: "OQ-1".to_owned(),
        title: "question OQ-1".to_owned().into(),
        since: None,
        options: Vec::new(),
        subject: Some("OQ-1".to_owned()),
        why_not: None,
    });
    p.files.push(FileStamp {
        file: "state.json".into(),
        sha256: "a".repeat(64),
        len: 10,
    });
    super::model(vec![p])
}

#[test]
fn the_decide_hint_names_the_verb_after_the_key_in_force() {
    let mut m = answerable();
    update(&mut m, key('i'));
    assert!(
        hint_texts(&m).contains(&"a answer".to_owned()),
        "{:?}",
        hint_texts(&m)
    );
    let mut m = answerable();
    m.keymap = build(&entries("[keys]\ndecide = \"A\"\n")).unwrap();
    update(&mut m, key('i'));
    let h = hint_texts(&m);
    assert!(h.contains(&"A answer".to_owned()), "{h:?}");
    assert!(
        help_rows(&m)
            .iter()
            .any(|r| r.keys == "A" && r.description.starts_with("decide on the selected row"))
    );
    update(&mut m, key('a'));
    assert!(m.form.is_none(), "a no longer decides");
    update(&mut m, key('A'));
    assert!(m.form.is_some(), "A opens the form");
}

#[test]
fn one_table_drives_dispatch_help_hints_and_palette() {
    let mut m = devloop();
    update(&mut m, key('3'));
    assert_eq!(m.tab, Tab::Bugs);
    // Every key help lists here does what the table says.
    for b in KEYMAP
        .iter()
        .filter(|b| b.mode == Mode::Normal && !b.keys.is_empty())
    {
        if !commands::active(&m, Mode::Normal).any(|a| std::ptr::eq(a, b)) {
            continue;
        }
        for k in b.keys {
            let ev = match *k {
                Key::Char(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
                Key::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
                Key::Alt(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT),
                Key::Code(c) => KeyEvent::new(c, KeyModifiers::NONE),
                Key::Digit | Key::AnyDigit => KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE),
            };
            let got = lookup(&m, &ev).expect("bound");
            let first = commands::active(&m, Mode::Normal)
                .find(|a| a.keys.contains(k))
                .expect("a row");
            assert_eq!(
                std::mem::discriminant(&got),
                std::mem::discriminant(&first.command),
                "{k:?}"
            );
        }
        assert!(
            help_rows(&m).iter().any(|r| r.keys == b.label),
            "help lists {}",
            b.label
        );
    }
    let h: Vec<String> = hints(&m).into_iter().map(|h| h.text).collect();
    assert_eq!(h.first().map(String::as_str), Some("s status"), "{h:?}");
    assert!(h.iter().any(|t| t == "Enter history"), "{h:?}");
    assert!(!h.iter().any(|t| t == "f follow"), "not on Bugs: {h:?}");
    // The palette offers the table's descriptions.
    let found = commands_matching(&m, "severity");
    assert_eq!(found.first().map(|f| f.0), Some(Command::CycleBugSeverity));
}
