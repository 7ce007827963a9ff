//! Hints, help, the palette and status messages in Simplified Chinese (issue 11 §2).
//!
//! The expected texts are computed from the catalogues (`catalog(Lang::ZhCn)`),
//! never copied: each test checks the Chinese text is there and the English
//! one is not.

use chrono::TimeZone;

use super::{code, key, model, project, three};
use crate::app::decide::tests::{done, seq as seq_of};
use crate::app::keymap::{KeyError, build};
use crate::app::panes::Sort;
use crate::app::*;
use crate::i18n::testing::{en, zh};
use crate::i18n::{Lang, catalog, fill, scoped};
use crate::model::text::width;

/// `key` in Chinese with its placeholders filled.
fn zh_with(key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    fill(&zh(key), args)
}

/// Every English text of a table of the catalogue (`app.command.`…).
fn english_texts(prefix: &str) -> Vec<String> {
    let mut keys: Vec<&str> = catalog(Lang::En)
        .keys()
        .filter(|k| k.starts_with(prefix))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(en).collect()
}

/// A PRD project "alpha" with question OQ-1 waiting (its options
/// `options`), read from state.json; `readonly`: `--readonly`.
fn prd_model(options: &[&str], readonly: bool) -> Model {
    let mut p = project("alpha", Format::PrdMaster, 0);
    let options: Vec<String> = options.iter().map(|o| (*o).to_owned()).collect();
    p.inbox.push(crate::model::InboxItem {
        kind: crate::model::InboxKind::Question,
        act: Some(crate::model::Address::new(
            "answer",
            Some("OQ-1".into()),
            options.clone(),
        )),
        reference: "OQ-1".into(),
        title: "问题一".into(),
        since: Some(Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap()),
        options,
        subject: Some("OQ-1".into()),
        why_not: None,
    });
    p.files.push(crate::model::FileStamp {
        file: "state.json".into(),
        sha256: "a".repeat(64),
        len: 10,
    });
    let mut m = Model::new(
        vec!["/w".into()],
        readonly,
        Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap(),
    );
    update(&mut m, Event::Loaded(vec![p]));
    m
}

fn hint_texts(m: &Model) -> Vec<String> {
    hints(m).into_iter().map(|h| h.text).collect()
}

/// The words of a hint after its keys ("j/k move" → "move").
fn words(hint: &str) -> &str {
    hint.split_once(' ').map_or("", |(_, w)| w)
}

#[test]
fn hints_are_chinese_after_the_same_keys() {
    let m = three();
    let english = hint_texts(&m);
    let _zh = scoped(Lang::ZhCn);
    let chinese = hint_texts(&m);
    assert_eq!(chinese.len(), english.len(), "{chinese:?}");
    for (c, e) in chinese.iter().zip(&english) {
        // The same keys, first: only the words change.
        assert_eq!(c.split(' ').next(), e.split(' ').next(), "{c} / {e}");
        assert!(
            !words(c).chars().any(|ch| ch.is_ascii_alphabetic()),
            "English left in the hint {c:?}"
        );
    }
    for want in [
        format!("Enter {}", zh("app.hint.open")),
        format!("j/k {}", zh("app.hint.move")),
        format!("q {}", zh("app.hint.quit")),
    ] {
        assert!(chinese.contains(&want), "{want} in {chinese:?}");
    }
}

#[test]
fn the_inbox_yes_no_hint_is_chinese_with_the_keys_in_force() {
    // An item whose options say yes and no.
    let mut m = prd_model(&["yes", "no"], false);
    update(&mut m, key('i'));
    let _zh = scoped(Lang::ZhCn);
    let want = zh_with("app.hint.yes_no", &[("yes", &"y"), ("no", &"n")]);
    assert!(hint_texts(&m).contains(&want), "{:?}", hint_texts(&m));
    // Rebound: the hint names the new keys.
    m.keymap = build(&entries("[keys]\nyes = \"Y\"\nno = \"N\"\n")).unwrap();
    let want = zh_with("app.hint.yes_no", &[("yes", &"Y"), ("no", &"N")]);
    assert!(hint_texts(&m).contains(&want), "{:?}", hint_texts(&m));
}

#[test]
fn help_rows_say_the_catalogues_chinese() {
    let m = three();
    let english: Vec<HelpRow> = help_rows(&m);
    let _zh = scoped(Lang::ZhCn);
    let rows = help_rows(&m);
    assert_eq!(
        rows.iter().map(|r| r.keys).collect::<Vec<_>>(),
        english.iter().map(|r| r.keys).collect::<Vec<_>>(),
        "the same keys, in the same order"
    );
    let all_english = english_texts("app.command.");
    for r in &rows {
        assert!(!all_english.contains(&r.description), "{r:?}");
    }
    let quit = rows.iter().find(|r| r.keys == "q").expect("q");
    assert_eq!(quit.description, zh("app.command.quit"));
    assert_ne!(quit.description, en("app.command.quit"));
}

#[test]
fn read_only_help_and_the_refusal_are_chinese() {
    let mut m = prd_model(&[], true);
    update(&mut m, key('i'));
    let _zh = scoped(Lang::ZhCn);
    let rows = help_rows(&m);
    let a = rows.iter().find(|r| r.keys == "a").expect("a");
    assert!(a.off);
    assert!(a.description.starts_with(&zh_with(
        "app.help.decide_row",
        &[("verbs", &zh("model.verb.answer"))]
    )));
    update(&mut m, key('a'));
    assert_eq!(
        m.status.as_deref(),
        Some(zh("app.decide.readonly").as_str())
    );
    // The console says it once: the status is the reason it compares.
    assert_eq!(m.status.as_deref(), decide::readonly_reason(&m));
}

#[test]
fn the_palette_finds_a_command_by_its_chinese_and_its_english_name() {
    let m = three();
    let name = zh("app.command.sort_name");
    let _zh = scoped(Lang::ZhCn);
    let by = |input: &str| -> Vec<palette::Entry> { palette::entries(&m, input) };
    let go = palette::Go::Command(Command::SortBy(Sort::Name));
    for input in [name.as_str(), "按名称", "sort: by name", "by name"] {
        let found = by(input);
        let e = found.iter().find(|e| e.go == go);
        assert_eq!(
            e.map(|e| e.label.as_str()),
            Some(name.as_str()),
            "{input}: {found:?}"
        );
    }
    // Chinese words rank at the start of a word too (after `：`).
    let found = by("按名称");
    assert_eq!(found.first().map(|e| &e.go), Some(&go), "{found:?}");
    // Projects: "go to" in Chinese, the name as read.
    let found = by("alpha");
    let want = zh_with(
        "app.palette.go_to",
        &[("name", &"alpha"), ("format", &"gsd")],
    );
    assert!(found.iter().any(|e| e.label == want), "{found:?}");
    drop(_zh);
    // English does not know the Chinese name.
    assert!(!palette::entries(&m, "按名称").iter().any(|e| e.go == go));
}

#[test]
fn tab_and_sort_names_are_chinese() {
    let _zh = scoped(Lang::ZhCn);
    assert_eq!(Tab::Phases.title(), zh("app.tab.phases"));
    assert_eq!(Tab::Timeline.short(), zh("app.tab.short.timeline"));
    assert_eq!(Sort::Waiting.label(), zh("app.sort.waiting"));
    // A short name is never wider than the title it stands for.
    for t in Tab::ALL {
        assert!(width(t.short()) <= width(t.title()), "{t:?}");
        assert!(!t.title().chars().any(|c| c.is_ascii_alphabetic()), "{t:?}");
    }
}

/// Answer the inbox's first question with `text`, through its preview and
/// its write (audited `A1`).
fn answered(m: &mut Model, text: &str) {
    update(m, key('i'));
    update(m, key('a'));
    for c in text.chars() {
        update(m, key(c));
    }
    let seq = seq_of(&update(m, super::ctrl('s')));
    update(
        m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    let seq = seq_of(&update(m, key('w')));
    update(
        m,
        Event::Decided {
            seq,
            result: done(&["state.json", "conversation.md"], Some("A1")),
        },
    );
}

#[test]
fn the_status_after_a_decision_is_chinese_with_the_undo_key_in_force() {
    let mut m = prd_model(&[], false);
    let _zh = scoped(Lang::ZhCn);
    answered(&mut m, "用 Postgres");
    let label = m.last.as_ref().expect("undoable").label.clone();
    let wrote = zh_with(
        "app.decide.wrote",
        &[("files", &"state.json, conversation.md")],
    );
    let want = zh_with(
        "app.decide.status_undo",
        &[("label", &label), ("done", &wrote), ("key", &"u")],
    );
    assert_eq!(m.status.as_deref(), Some(want.as_str()));
    assert!(!want.contains(&en("app.decide.done")), "{want}");
    // The undo: its dialog is titled and headed in Chinese, and so is
    // the status once it is written.
    update(&mut m, key('u'));
    let form = m.form.as_ref().expect("the undo's form");
    assert_eq!(
        form.title(),
        zh_with("app.decide.title_undo", &[("label", &label)])
    );
    assert_eq!(
        form.heading,
        zh_with(
            "app.decide.undo_heading",
            &[("label", &label), ("id", &"A1")]
        )
    );
    let seq = form.seq;
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    let seq = seq_of(&update(&mut m, key('w')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], Some("A2")),
        },
    );
    let undone = zh_with("app.decide.undone", &[("label", &label)]);
    let wrote = zh_with("app.decide.wrote", &[("files", &"state.json")]);
    let want = zh_with("app.decide.status", &[("label", &undone), ("done", &wrote)]);
    assert_eq!(m.status.as_deref(), Some(want.as_str()));
    // Nothing left to undo.
    update(&mut m, key('u'));
    assert_eq!(
        m.status.as_deref(),
        Some(zh("app.decide.nothing_to_undo").as_str())
    );
}

#[test]
fn the_undo_key_said_after_a_decision_is_the_one_in_force() {
    let mut m = prd_model(&[], false);
    m.keymap = build(&entries("[keys]\nundo = \"U\"\n")).unwrap();
    answered(&mut m, "yes");
    let status = m.status.clone().unwrap_or_default();
    assert!(status.ends_with(" · U undoes"), "{status}");
}

#[test]
fn copy_says_what_it_copied_in_chinese_cut_by_columns() {
    let mut p = project("alpha", Format::Gsd, 0);
    p.inbox.push(crate::model::InboxItem {
        kind: crate::model::InboxKind::Question,
        act: None,
        reference: "OQ-1".into(),
        title: "批量导出是否进入第一个版本还是留到之后的迭代再决定".into(),
        since: Some(Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap()),
        options: vec![],
        subject: None,
        why_not: None,
    });
    let mut m = model(vec![p]);
    update(&mut m, key('i'));
    let _zh = scoped(Lang::ZhCn);
    update(&mut m, key('y'));
    let status = m.status.clone().unwrap_or_default();
    let template = zh("app.copy.copied");
    let (before, after) = template.split_once("{text}").expect("{text}");
    let after = fill(after, &[("refusal", &zh("app.copy.refusal"))]);
    let shown = status
        .strip_prefix(before)
        .and_then(|s| s.strip_suffix(after.as_str()))
        .unwrap_or_else(|| panic!("{status}"));
    assert!(shown.starts_with("OQ-1 批量导出"), "{shown}");
    assert!(shown.ends_with('…'), "{shown}");
    // 40 columns at most: twenty Chinese characters, not forty.
    assert!(width(shown) <= 40 && width(shown) >= 38, "{shown}");
    // Read-only: `e` is off, in Chinese, naming the keys in force.
    let mut m = prd_model(&[], true);
    update(&mut m, key('e'));
    let want = zh_with("app.copy.readonly_edit", &[("edit", &"e"), ("pager", &"o")]);
    assert_eq!(m.status.as_deref(), Some(want.as_str()));
}

#[test]
fn the_read_only_edit_refusal_names_the_keys_in_force() {
    let mut m = prd_model(&[], true);
    m.keymap = build(&entries(
        "[keys]\nopen-editor = \"E\"\nopen-pager = \"O\"\n",
    ))
    .unwrap();
    update(&mut m, key('E'));
    let want = fill(
        &en("app.copy.readonly_edit"),
        &[("edit", &"E"), ("pager", &"O")],
    );
    assert_eq!(m.status.as_deref(), Some(want.as_str()));
    assert!(want.starts_with("read-only: E (edit) is off; O opens"));
}

#[test]
fn nothing_changed_is_said_in_chinese() {
    let mut m = three();
    let _zh = scoped(Lang::ZhCn);
    update(&mut m, key('n'));
    assert_eq!(
        m.status.as_deref(),
        Some(zh("app.status.nothing_changed").as_str())
    );
}

fn notify_body(effects: &[Effect]) -> Option<String> {
    effects.iter().find_map(|e| match e {
        Effect::Notify { body, .. } => Some(body.clone()),
        _ => None,
    })
}

#[test]
fn the_notification_for_several_items_is_chinese() {
    let names = ["alpha", "beta", "gamma", "delta"];
    let mut m = model(names.iter().map(|n| project(n, Format::Gsd, 0)).collect());
    let _zh = scoped(Lang::ZhCn);
    let effects = update(
        &mut m,
        Event::Loaded(names.iter().map(|n| project(n, Format::Gsd, 1)).collect()),
    );
    let listed = zh_with(
        "app.notify.more",
        &[
            (
                "names",
                &["alpha", "beta", "gamma"].join(&zh("app.keymap.sep")),
            ),
            ("n", &1),
        ],
    );
    let want = zh_with("app.notify.questions", &[("n", &4), ("names", &listed)]);
    assert_eq!(notify_body(&effects), Some(want));
}

fn entries(toml: &str) -> Vec<crate::app::keymap::KeyEntry> {
    crate::app::keymap::Keys::of(toml).0
}

fn refused(toml: &str) -> KeyError {
    build(&entries(toml)).unwrap_err()
}

#[test]
fn keys_errors_are_chinese_at_their_line_and_column() {
    let _zh = scoped(Lang::ZhCn);
    let e = refused("[keys]\nquit = \"Q\"\n  frobnicate = \"x\"\n");
    assert_eq!((e.line, e.column), (3, 3));
    let template = zh("app.keymap.unknown_action");
    let (head, _) = template.split_once("{actions}").expect("{actions}");
    let head = fill(head, &[("action", &"frobnicate")]);
    assert!(e.message.starts_with(&head), "{}", e.message);
    assert!(!e.message.contains("unknown action"), "{}", e.message);
    // The config error the console prints still names the line and column.
    let shown = crate::t!(
        "runtime.config.at_line_column",
        path = "c.toml",
        line = e.line,
        column = e.column,
        message = e.message
    );
    assert!(shown.contains('3') && shown.contains(&e.message), "{shown}");
    // A conflict names the view in Chinese, and the other entry's line.
    let e = refused("[keys]\nquit = \"x\"\n# a comment\nreload = [\"r\", \"x\"]\n");
    let other = zh_with("app.keymap.at_line", &[("entry", &"quit"), ("line", &2)]);
    let want = zh_with(
        "app.keymap.conflict",
        &[
            ("entry", &"reload"),
            ("key", &"x"),
            ("other", &other),
            ("view", &zh("app.keymap.view_list")),
        ],
    );
    assert_eq!((e.line, e.message.as_str()), (4, want.as_str()));
    // A key that is none: the list of names, in Chinese words.
    let e = refused("[keys]\nquit = \"ctrl-c\"\n");
    assert_eq!(
        e.message,
        zh_with(
            "app.keymap.in_entry",
            &[("entry", &"quit"), ("message", &zh("app.keymap.ctrl_c"))]
        )
    );
}

// Snapshots: the help and the palette over the console, in Chinese.

use crate::ui::testing::screen;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

#[test]
fn help_and_palette_snapshots_zh() {
    let _zh = scoped(Lang::ZhCn);
    for (w, h) in SIZES {
        // On alpha's detail.
        let mut m = three();
        update(&mut m, code(KeyCode::Enter));
        update(&mut m, key('?'));
        insta::assert_snapshot!(format!("help_{w}x{h}_zh"), screen(&m, w, h));
        update(&mut m, code(KeyCode::Esc));
        update(&mut m, key(':'));
        for c in "排序".chars() {
            update(&mut m, key(c));
        }
        let s = screen(&m, w, h);
        assert!(s.contains(&zh("app.command.sort_name")), "{s}");
        insta::assert_snapshot!(format!("palette_{w}x{h}_zh"), s);
        update(&mut m, code(KeyCode::Esc));
        // The hint bar: Chinese words, the bar within the width.
        let s = screen(&m, w, h);
        let bar = s.lines().last().unwrap_or_default();
        assert!(bar.contains(zh("app.hint.quit").as_str()), "{bar}");
        assert!(width(bar) <= usize::from(w), "{bar}");
        insta::assert_snapshot!(format!("hints_{w}x{h}_zh"), s);
    }
}

/// An item loopdeck words itself (issue 20 §7): `a` says why no decision
/// can be made in Chinese, and the inbox filter finds it by its Chinese
/// words and by its English ones (what `inbox --json` says).
#[test]
fn an_items_own_words_are_chinese_and_found_in_either_language() {
    let _zh = scoped(Lang::ZhCn);
    let mut p = project("alpha", Format::Devloop, 0);
    p.inbox.push(crate::model::InboxItem {
        kind: crate::model::InboxKind::Budget,
        act: None,
        reference: "project.json".into(),
        title: loopdeck_core::phrase!(
            "phrase.devloop.over_budget",
            used = "5,231,774",
            limit = "5,000,000",
            percent = "104.6"
        ),
        since: Some(Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap()),
        options: vec![],
        subject: None,
        why_not: Some(loopdeck_core::phrase!("phrase.devloop.why_nothing_left")),
    });
    let mut m = model(vec![p]);
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    let status = m.status.clone().unwrap_or_default();
    assert!(
        status.contains(&zh("phrase.devloop.why_nothing_left")),
        "{status}"
    );
    assert!(
        !status.contains(&en("phrase.devloop.why_nothing_left")),
        "{status}"
    );
    for words in ["超出 token 预算", "over token budget"] {
        m.inbox.filter = words.to_owned();
        assert_eq!(panes::inbox(&m).len(), 1, "{words}");
    }
    m.inbox.filter = "no such words".to_owned();
    assert!(panes::inbox(&m).is_empty());
}
