//! The `:` palette (issue 11 §3, §6): switching the theme, the keys in
//! force by each command, and the `[keys]` leftovers (a default written
//! back, the too-small screen's quit keys).

use super::{code, key, three};
use crate::app::keymap::build;
use crate::app::palette::{Entry, Go, entries};
use crate::app::*;
use crate::i18n::{Lang, scoped};
use crate::model::text::width;

fn keys_entries(toml: &str) -> Vec<crate::app::keymap::KeyEntry> {
    crate::app::keymap::Keys::of(toml).0
}

/// `three()` with the built-in themes offered, as the runtime does.
fn console() -> Model {
    let mut m = three();
    m.themes = crate::ui::theme::BUILTIN.iter().map(|(n, _)| *n).collect();
    m
}

fn with(toml: &str) -> Model {
    let mut m = console();
    m.keymap = build(&keys_entries(toml)).unwrap();
    m
}

fn type_in(m: &mut Model, text: &str) {
    update(m, key(':'));
    for c in text.chars() {
        update(m, key(c));
    }
}

fn themes_of(found: &[Entry]) -> Vec<(&str, &str)> {
    found
        .iter()
        .filter_map(|e| match e.go {
            Go::Theme(name) => Some((name, e.label.as_str())),
            _ => None,
        })
        .collect()
}

/// The keys the palette shows by the entry of `cmd` here.
fn keys_of(m: &Model, cmd: Command) -> Option<String> {
    entries(m, "")
        .into_iter()
        .find(|e| e.go == Go::Command(cmd))
        .map(|e| e.keys)
}

#[test]
fn the_palette_offers_the_built_in_themes_the_one_in_force_marked() {
    let m = console();
    let found = entries(&m, "theme");
    let t = |name| crate::t!("app.palette.theme", name = name);
    let current = crate::t!("app.palette.theme_current", name = "default");
    assert_eq!(
        themes_of(&found),
        [
            ("default", current.as_str()),
            ("light", t("light").as_str()),
            ("solarized-dark", t("solarized-dark").as_str()),
        ]
    );
    assert_eq!(current, "theme: default (in use)");
    // Themes have no key.
    assert!(found.iter().all(|e| e.keys.is_empty()));
    // By a theme's name too.
    assert_eq!(themes_of(&entries(&m, "solar")).len(), 1);
    // A theme file in force: no built-in theme is marked.
    let mut m = console();
    m.theme_in_force = None;
    let found = entries(&m, "theme");
    assert!(
        themes_of(&found)
            .iter()
            .all(|(name, label)| *label == t(name)),
        "{found:?}"
    );
}

#[test]
fn choosing_a_theme_asks_the_runtime_to_draw_in_it_at_once() {
    let mut m = console();
    type_in(&mut m, "theme: light");
    let effects = update(&mut m, code(KeyCode::Enter));
    assert_eq!(
        effects,
        vec![Effect::Theme("light".to_owned()), Effect::Render]
    );
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(m.theme_in_force.as_deref(), Some("light"));
    // Now light is the one marked.
    let found = entries(&m, "theme");
    assert_eq!(
        themes_of(&found)[1],
        ("light", "theme: light (in use)"),
        "{found:?}"
    );
    assert_eq!(themes_of(&found)[0], ("default", "theme: default"));
    // A theme-file user keeps the file until a theme is picked.
    let mut m = console();
    m.theme_in_force = None;
    type_in(&mut m, "solarized");
    let effects = update(&mut m, code(KeyCode::Enter));
    assert_eq!(effects[0], Effect::Theme("solarized-dark".to_owned()));
    assert_eq!(m.theme_in_force.as_deref(), Some("solarized-dark"));
}

#[test]
fn themes_are_found_in_chinese_and_in_english() {
    let _zh = scoped(Lang::ZhCn);
    let m = console();
    for input in ["主题", "theme", "light"] {
        let found = entries(&m, input);
        assert!(
            themes_of(&found)
                .iter()
                .any(|(n, l)| *n == "light" && *l == "主题：light"),
            "{input}: {found:?}"
        );
    }
    let found = entries(&m, "主题");
    assert_eq!(themes_of(&found)[0].1, "主题：default（使用中）");
}

#[test]
fn each_command_shows_the_keys_that_run_it_here() {
    let mut m = console();
    // On the list: sort is S, moving is j and ↓, redraw ^L, quit q.
    assert_eq!(keys_of(&m, Command::CycleSort).as_deref(), Some("S"));
    assert_eq!(keys_of(&m, Command::Down).as_deref(), Some("j ↓"));
    assert_eq!(keys_of(&m, Command::Redraw).as_deref(), Some("^L"));
    assert_eq!(keys_of(&m, Command::Quit).as_deref(), Some("q"));
    assert_eq!(keys_of(&m, Command::Top).as_deref(), Some("g Home"));
    // Palette-only commands show nothing.
    assert_eq!(
        keys_of(&m, Command::SortBy(panes::Sort::Name)).as_deref(),
        Some("")
    );
    // In a project's detail S is not a key (it sorts the list only),
    // though the palette still sorts.
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(keys_of(&m, Command::CycleSort).as_deref(), Some(""));
    // `[keys]`: the keys in force, an unbound command none.
    let m = with("[keys]\nsort = [\"O\", \"ctrl-o\"]\nreload = \"\"\nquit = \"alt-x\"\n");
    assert_eq!(keys_of(&m, Command::CycleSort).as_deref(), Some("O ^O"));
    assert_eq!(keys_of(&m, Command::Reload).as_deref(), Some(""));
    assert_eq!(keys_of(&m, Command::Quit).as_deref(), Some("M-x"));
    // A key an earlier row takes is not shown: in the inbox, on an item
    // with a yes option, y picks yes (copy has no key there).
    let mut p = super::project("delta", crate::model::Format::PrdMaster, 0);
    let options = vec!["yes".to_owned(), "no".to_owned()];
    p.inbox.push(crate::model::InboxItem {
        kind: crate::model::InboxKind::Question,
        act: Some(crate::model::Address::new(
            "answer",
            Some("OQ-1".to_owned()),
            options.clone(),
        )),
        reference: "OQ-1".to_owned(),
        title: "ship it?".to_owned().into(),
        since: None,
        options,
        subject: Some("OQ-1".to_owned()),
        why_not: None,
    });
    p.files.push(crate::model::FileStamp {
        file: "state.json".into(),
        sha256: "a".repeat(64),
        len: 10,
    });
    let mut m = super::model(vec![p]);
    update(&mut m, key('i'));
    assert!(decide::yes_no(&m, true).is_some());
    assert!(command_applies(&m, Command::Copy));
    assert_eq!(keys_of(&m, Command::Copy).as_deref(), Some(""));
    assert_eq!(keys_of(&m, Command::Decide).as_deref(), Some("a"));
}

// `[keys]` leftovers.

#[test]
fn writing_a_default_back_is_no_conflict_but_a_new_one_is() {
    // y is the inbox's yes and copy elsewhere, in the table itself.
    for toml in [
        "[keys]\ncopy = [\"y\", \"c\"]\n",
        "[keys]\ncopy = \"y\"\n",
        "[keys]\nyes = \"y\"\n",
        "[keys]\n\"inbox.copy\" = \"y\"\nyes = \"y\"\n",
    ] {
        assert!(build(&keys_entries(toml)).is_ok(), "{toml}");
    }
    let m = with("[keys]\ncopy = [\"y\", \"c\"]\n");
    assert_eq!(keys_of(&m, Command::Copy).as_deref(), Some("y c"));
    // A new overlap still is one: n is the inbox's no, and the next
    // changed project elsewhere.
    let e = build(&keys_entries("[keys]\n\"inbox.copy\" = [\"y\", \"n\"]\n")).unwrap_err();
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "`inbox.copy`: n is also no in the inbox")
    );
    let e = build(&keys_entries("[keys]\ncopy = [\"y\", \"n\"]\n")).unwrap_err();
    assert_eq!(e.message, "`copy`: n is also next-changed in the list");
    // And y given to another action.
    let e = build(&keys_entries("[keys]\nreload = \"y\"\n")).unwrap_err();
    assert_eq!(e.message, "`reload`: y is also copy in the list");
}

#[test]
fn the_too_small_screen_quits_with_the_quit_keys_in_force() {
    let ctrl = |c| {
        Event::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        ))
    };
    let alt = |c| {
        Event::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::ALT,
        ))
    };
    let mut m = with("[keys]\nquit = \"ctrl-q\"\n");
    update(&mut m, Event::Size(MIN_WIDTH - 1, 30));
    assert!(m.too_small());
    assert_eq!(update(&mut m, key('q')), vec![]);
    assert_eq!(update(&mut m, ctrl('q')), vec![Effect::Quit]);
    let mut m = with("[keys]\nquit = [\"alt-q\", \"F10\"]\n");
    update(&mut m, Event::Size(20, 5));
    assert_eq!(update(&mut m, alt('q')), vec![Effect::Quit]);
    assert_eq!(update(&mut m, code(KeyCode::F(10))), vec![Effect::Quit]);
    assert_eq!(update(&mut m, key('q')), vec![]);
    // The default q still quits; Ctrl-q and another action's Alt key not.
    let mut m = with("[keys]\nreload = \"alt-q\"\n");
    update(&mut m, Event::Size(20, 5));
    assert_eq!(update(&mut m, ctrl('q')), vec![]);
    assert_eq!(update(&mut m, alt('q')), vec![]);
    assert_eq!(update(&mut m, key('q')), vec![Effect::Quit]);
}

// Snapshots: the palette with its keys, in English and Chinese.

use crate::ui::testing::screen;

/// The display column where `needle` ends on `line`.
fn end_of(line: &str, needle: &str) -> Option<usize> {
    let at = line.find(needle)?;
    Some(width(&line[..at]) + width(needle))
}

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// Every entry shown with keys has them right-aligned, by display width,
/// against the palette's right border.
fn keys_aligned(s: &str, m: &Model) {
    let shown: Vec<Entry> = entries(m, &m.palette.input)
        .into_iter()
        .filter(|e| !e.keys.is_empty())
        .collect();
    assert!(!shown.is_empty());
    let mut ends = Vec::new();
    for e in shown.iter().take(9) {
        let label: String = e.label.chars().take(6).collect();
        let Some(line) = s
            .lines()
            .find(|l| l.contains(&label) && l.contains(&format!("{} │", e.keys)))
        else {
            panic!("{} {} not on one row:\n{s}", e.label, e.keys);
        };
        ends.push(end_of(line, &format!("{} │", e.keys)));
    }
    ends.dedup();
    assert_eq!(ends.len(), 1, "{ends:?}\n{s}");
}

#[test]
fn palette_snapshots_show_the_keys() {
    for (lang, suffix) in [(Lang::En, ""), (Lang::ZhCn, "_zh")] {
        let _l = scoped(lang);
        for (w, h) in SIZES {
            // Everything, on the list.
            let mut m = console();
            update(&mut m, key(':'));
            let s = screen(&m, w, h);
            keys_aligned(&s, &m);
            insta::assert_snapshot!(format!("palette_keys_{w}x{h}{suffix}"), s);
            // Typed: the sort commands, S by the one it is the key of.
            for c in "sort".chars() {
                update(&mut m, key(c));
            }
            let s = screen(&m, w, h);
            keys_aligned(&s, &m);
            let sort = crate::t!("app.command.sort");
            let row = s.lines().find(|l| l.contains(sort)).unwrap_or_default();
            assert!(row.contains(" S │"), "{s}");
            insta::assert_snapshot!(format!("palette_sort_{w}x{h}{suffix}"), s);
            // The themes, the one in force marked.
            update(&mut m, code(KeyCode::Esc));
            type_in(&mut m, "theme");
            let s = screen(&m, w, h);
            let current = crate::t!("app.palette.theme_current", name = "default");
            assert!(s.contains(&current), "{s}");
            insta::assert_snapshot!(format!("palette_themes_{w}x{h}{suffix}"), s);
        }
    }
}

/// A command is found by its `[keys]` action name too, in either language:
/// `:reload` runs reload, whose words ("read every project again") do
/// not say it, and `:open-pager` finds the pager.
#[test]
fn the_palette_finds_a_command_by_its_action_name() {
    let m = with("[keys]\nreload = \"\"\n");
    for lang in [crate::i18n::Lang::En, crate::i18n::Lang::ZhCn] {
        let _lang = crate::i18n::scoped(lang);
        for (input, cmd) in [("reload", Command::Reload), ("open-pager", Command::Page)] {
            let found = crate::app::palette::entries(&m, input);
            assert_eq!(
                found.first().map(|e| &e.go),
                Some(&crate::app::palette::Go::Command(cmd)),
                "{lang} {input}: {found:?}"
            );
        }
    }
}
