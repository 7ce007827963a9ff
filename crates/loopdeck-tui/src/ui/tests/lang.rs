//! The console's frame, dialogs, list and inbox in Simplified Chinese (issue 11 §2).
//!
//! Snapshots (`…_zh`) at 80x24 and a wide size, reviewed by eye, and
//! assertions computed from the catalogues: the Chinese text of a key is on
//! the screen and its English text is not; columns start at the same
//! display column on every row; dialog borders stay whole.

use chrono::Duration;
use crossterm::event::KeyCode;

use super::decide as d;
use super::{assert_clean, now, press, screen, select, workspace_model};
use crate::app::decide::{Decided, Stage, Why};
use crate::app::update;
use crate::i18n::testing::{en, zh};
use crate::i18n::{Lang, fill, scoped};
use crate::model::text::width;
use crate::ui::since::tests as since;
use crate::ui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

/// `key` filled with `args` in both languages: (Chinese, English).
fn both(key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> (String, String) {
    (fill(&zh(key), args), fill(&en(key), args))
}

/// The Chinese text is on the screen, the English one is not.
fn says(s: &str, (zh, en): (String, String)) {
    assert_ne!(zh, en, "translated");
    assert!(s.contains(&zh), "{zh:?} missing:\n{s}");
    assert!(!s.contains(&en), "{en:?} still English:\n{s}");
}

/// `key`'s Chinese text (no placeholders) on the screen, not its English.
fn says_key(s: &str, key: &str) {
    says(s, (zh(key), en(key)));
}

/// Chinese screens of `m` at `sizes`, made safe, snapshotted as `{name}_{w}x{h}_zh`.
fn snap(m: &Model, name: &str, sizes: &[(u16, u16)]) -> Vec<String> {
    let _zh = scoped(Lang::ZhCn);
    sizes
        .iter()
        .map(|&(w, h)| {
            let s = screen(m, w, h);
            assert_clean(&s, name);
            insta::assert_snapshot!(format!("{name}_{w}x{h}_zh"), s);
            s
        })
        .collect()
}

/// The screen in Chinese.
fn zh_screen(m: &Model, w: u16, h: u16) -> String {
    let _zh = scoped(Lang::ZhCn);
    screen(m, w, h)
}

/// The display column where byte `i` of `line` is drawn.
fn col(line: &str, i: usize) -> usize {
    width(&line[..i])
}

/// The character drawn at display column `c` of `line` (a wide one covers
/// two), if any.
fn at(line: &str, c: usize) -> Option<char> {
    let mut used = 0;
    for ch in line.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if c < used + w.max(1) {
            return Some(ch);
        }
        used += w;
    }
    None
}

/// The display column where `needle` starts on `line`.
fn col_of(line: &str, needle: &str) -> Option<usize> {
    line.find(needle).map(|i| col(line, i))
}

/// The header line that holds every one of `headers`, and the table's
/// rows under it: while a cell is drawn under the first header (not a
/// blank, a rule or a border).
fn table<'a>(s: &'a str, headers: &[String]) -> (&'a str, Vec<&'a str>) {
    let lines: Vec<&str> = s.lines().collect();
    let top = lines
        .iter()
        .position(|l| headers.iter().all(|h| l.contains(h.as_str())))
        .unwrap_or_else(|| panic!("no header {headers:?}:\n{s}"));
    let first = col_of(lines[top], &headers[0]).unwrap_or_default();
    let rows = lines[top + 1..]
        .iter()
        .take_while(|l| at(l, first).is_some_and(|c| !" ─└┴│".contains(c)))
        .copied()
        .collect();
    (lines[top], rows)
}

/// Each column (its header's words, and whether every row fills it)
/// starts at its header's display column on every row: nothing drawn
/// across its left edge, and a cell there when it is always filled.
fn aligned(s: &str, columns: &[(String, bool)]) {
    let headers: Vec<String> = columns.iter().map(|(h, _)| h.clone()).collect();
    let (head, rows) = table(s, &headers);
    assert!(rows.len() > 1, "rows under {head}:\n{s}");
    for (c, filled) in columns {
        let at_col = col_of(head, c).unwrap_or_else(|| panic!("{c} whole in {head:?}"));
        // A blank before the column, or the table's border.
        let edge = |l: &str| matches!(at(l, at_col - 1), Some(' ' | '│'));
        assert!(edge(head), "{c}: {head:?}");
        for row in &rows {
            assert!(edge(row), "{c}: {row:?}\n{s}");
            if *filled {
                assert!(
                    at(row, at_col).is_some_and(|ch| ch != ' '),
                    "{c} at column {at_col}: {row:?}\n{s}"
                );
            }
        }
    }
}

/// The list's columns: age, format, ask (often empty), name.
fn list_columns() -> [(String, bool); 4] {
    [
        (zh("ui.list.age"), true),
        (zh("ui.list.format"), true),
        (zh("ui.list.ask"), false),
        (zh("ui.list.project"), true),
    ]
}

/// The dialog whose top border holds `title` keeps its left and right
/// borders at their columns on every row down to its bottom border.
fn borders_whole(s: &str, title: &str) {
    let lines: Vec<&str> = s.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.contains(title))
        .unwrap_or_else(|| panic!("no dialog {title}:\n{s}"));
    let l = lines[top];
    let left = col_of(l, "┌").unwrap_or_else(|| panic!("┌ in {l:?}"));
    let right = col(l, l.rfind('┐').unwrap_or_else(|| panic!("┐ in {l:?}")));
    for (i, row) in lines[top + 1..].iter().enumerate() {
        if at(row, left) == Some('└') {
            assert_eq!(at(row, right), Some('┘'), "{row:?}\n{s}");
            assert!(i > 0, "{s}");
            return;
        }
        assert_eq!(at(row, left), Some('│'), "left border: {row:?}\n{s}");
        assert_eq!(at(row, right), Some('│'), "right border: {row:?}\n{s}");
    }
    panic!("no bottom border under {title}:\n{s}");
}

#[test]
fn the_projects_list_side_by_side_and_narrow() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, m) = workspace_model();
    let screens = snap(&m, "projects", &SIZES);
    let n = m.projects.len();
    let shown = crate::app::panes::projects(&m).len();
    for s in &screens {
        says(s, both("ui.header.projects", &[("n", &n)]));
        says(
            s,
            both(
                "ui.header.waiting",
                &[("n", &m.waiting_total() as &dyn std::fmt::Display)],
            ),
        );
        let sort = {
            let _zh = scoped(Lang::ZhCn);
            m.sort.label()
        };
        let args: [(&str, &dyn std::fmt::Display); 3] =
            [("shown", &shown), ("total", &n), ("sort", &sort)];
        assert!(s.contains(&fill(&zh("ui.list.title"), &args)), "{s}");
        assert!(!s.contains(" Projects "), "{s}");
        for k in ["ui.list.age", "ui.list.format", "ui.list.ask"] {
            assert!(!s.contains(&en(k)), "{k}: {s}");
        }
        // The status symbol, the age, the format, the ask count and the
        // name start at their header's column on every row.
        aligned(s, &list_columns());
    }
}

/// A project dated two hundred years ago (`10428周`, wider than the
/// English column) keeps every column of the list aligned, its age whole;
/// so does an inbox item waiting as long.
#[test]
fn wide_ages_widen_the_age_column() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    m.projects[0].updated_at = Some(now() - Duration::days(365 * 200));
    let old = {
        let _zh = scoped(Lang::ZhCn);
        crate::i18n::age(Some(365 * 200 * 86_400))
    };
    assert!(width(&old) > 6, "{old}");
    for (w, h) in SIZES {
        let s = zh_screen(&m, w, h);
        aligned(&s, &list_columns());
        let headers = list_columns().map(|(h, _)| h);
        let (_, rows) = table(&s, &headers);
        assert!(rows.iter().any(|r| r.contains(&old)), "{old} whole:\n{s}");
    }
    // The inbox's age column too: an item waiting as long.
    let p = m.projects.iter().position(|p| !p.inbox.is_empty()).unwrap();
    m.projects[p].inbox[0].since = Some(now() - Duration::days(365 * 200));
    press(&mut m, KeyCode::Char('i'));
    let columns = [
        "ui.inbox.age",
        "ui.inbox.project",
        "ui.inbox.kind",
        "ui.inbox.waiting_for",
    ]
    .map(|k| (zh(k), true));
    for (w, h) in SIZES {
        let s = zh_screen(&m, w, h);
        aligned(&s, &columns);
        let headers = columns.clone().map(|(h, _)| h);
        let (_, rows) = table(&s, &headers);
        assert!(rows.iter().any(|r| r.contains(&old)), "{old} whole:\n{s}");
    }
}

#[test]
fn the_inbox() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    press(&mut m, KeyCode::Char('i'));
    let screens = snap(&m, "inbox", &SIZES);
    let n = crate::app::panes::inbox(&m).len();
    let columns = [
        "ui.inbox.age",
        "ui.inbox.project",
        "ui.inbox.kind",
        "ui.inbox.waiting_for",
    ]
    .map(|k| (zh(k), true));
    for s in &screens {
        says(s, both("ui.inbox.title", &[("n", &n)]));
        says_key(s, "ui.inbox.waiting_for");
        // The selected item's labels, at the start of their lines.
        for k in ["ui.inbox.field_project", "ui.inbox.field_ref"] {
            let (label, english) = (format!("│{} ", zh(k)), format!("│{} ", en(k)));
            assert!(s.contains(&label), "{label}:\n{s}");
            assert!(!s.contains(&english), "{english}:\n{s}");
        }
        aligned(s, &columns);
    }
    // Nothing matches: the empty inbox says so.
    press(&mut m, KeyCode::Char('/'));
    for c in "zzzz".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    press(&mut m, KeyCode::Enter);
    let s = zh_screen(&m, 80, 24);
    says_key(&s, "ui.inbox.empty");
    says(
        &s,
        both("ui.inbox.title_filtered", &[("filter", &"zzzz"), ("n", &0)]),
    );
}

#[test]
fn the_help_and_its_legend() {
    let (_t, mut m) = workspace_model();
    press(&mut m, KeyCode::Char('?'));
    let top = zh_screen(&m, 80, 24);
    let scrolled = zh("ui.help.title_scrolled");
    let head = scrolled.split('{').next().unwrap();
    assert!(top.contains(head), "{top}");
    assert!(!top.contains("Keys & symbols"), "{top}");
    press(&mut m, KeyCode::Char('G'));
    let screens = snap(&m, "help_legend", &SIZES);
    let theme = Theme::fallback(true);
    let (zh_rows, en_rows) = {
        let _zh = scoped(Lang::ZhCn);
        let zh_rows = overlay::legend(&theme);
        drop(_zh);
        (zh_rows, overlay::legend(&theme))
    };
    // At 80x24 the legend is taller than the screen: its top is a page up.
    let mut pages = screens.clone();
    press(&mut m, KeyCode::PageUp);
    pages.push(zh_screen(&m, 80, 24));
    says_key(&screens[1], "ui.help.symbols");
    for (sym, _, meaning) in &zh_rows {
        assert!(
            pages
                .iter()
                .any(|s| s.lines().any(|l| l.contains(meaning) && l.contains(sym))),
            "{sym} {meaning} on no page"
        );
        // Every row on the wide screen.
        assert!(screens[1].contains(meaning), "{meaning}:\n{}", screens[1]);
    }
    for s in &pages {
        // Every meaning in Chinese, after its symbol; none in English;
        // meanings start in one column, whatever the symbol's width.
        let shown: Vec<&str> = zh_rows
            .iter()
            .map(|(_, _, meaning)| *meaning)
            .filter(|meaning| s.contains(meaning))
            .collect();
        let column = shown
            .first()
            .map(|first| col_of(s.lines().find(|l| l.contains(first)).unwrap(), first));
        for meaning in shown {
            let line = s.lines().find(|l| l.contains(meaning)).unwrap();
            assert_eq!(Some(col_of(line, meaning)), column, "{line}");
        }
        for (_, _, english) in &en_rows {
            assert!(!s.contains(english), "{english}:\n{s}");
        }
    }
    // The whole help at the wide size: its title says so, the box is whole.
    let wide = &screens[1];
    says_key(wide, "ui.help.title");
    borders_whole(wide, &zh("ui.help.title"));
}

#[test]
fn the_palette() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    press(&mut m, KeyCode::Char(':'));
    press(&mut m, KeyCode::Char('t'));
    press(&mut m, KeyCode::Char('a'));
    for s in snap(&m, "palette", &SIZES) {
        let title = format!(" {} ", zh("ui.palette.title"));
        assert!(s.contains(&title), "{s}");
        assert!(!s.contains(" Commands "), "{s}");
        says_key(&s, "ui.hints.palette");
        borders_whole(&s, &title);
    }
    for c in "zzzz".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    says_key(&zh_screen(&m, 80, 24), "ui.palette.none");
}

/// The decision form's dialogs at 80x24 and 160x48.
const DECIDE: [(u16, u16); 2] = d::SIZES;

#[test]
fn the_decision_chooser() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let p = d::project(
        "approval-flow",
        "[OQ-4] 规则存储用哪种数据库？这决定部署方式。",
        crate::model::Address::new(
            "answer",
            Some("OQ-4".into()),
            vec!["Postgres".into(), "SQLite（嵌入式）".into()],
        ),
    );
    let mut m = d::opened(p, false, 'a');
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Choose);
    update(&mut m, d::key('j'));
    for s in snap(&m, "decide_choose", &DECIDE) {
        let (title, english) = both(
            "ui.decide.title_choose_item",
            &[("item", &"OQ-4"), ("project", &"approval-flow")],
        );
        says(&s, (title.clone(), english));
        says_key(&s, "ui.decide.keys_choose");
        borders_whole(&s, &title);
        // The choices' labels start in one column, CJK or not.
        let a = s.lines().find(|l| l.contains("1 Postgres")).unwrap();
        let b = s
            .lines()
            .find(|l| l.contains("2 SQLite（嵌入式）"))
            .unwrap();
        assert_eq!(col_of(a, "1 Postgres"), col_of(b, "2 SQLite"), "{s}");
    }
}

#[test]
fn the_decision_editor_and_its_discard_question() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let mut m = d::opened(d::answer_project(), false, 'a');
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    // Empty: the placeholder, the count at 0.
    let s = zh_screen(&m, 80, 24);
    says_key(&s, "ui.decide.type_here");
    says(&s, both("ui.decide.chars", &[("n", &0)]));
    d::typed(&mut m, d::ANSWER);
    let n = m.form.as_ref().unwrap().inputs[0].chars();
    for s in snap(&m, "decide_edit", &DECIDE) {
        says(&s, both("ui.decide.chars", &[("n", &n)]));
        // Two fields (the answer, a rationale): Tab moves between them.
        says_key(&s, "ui.decide.keys_edit_fields");
        assert!(s.contains("允许加签，但需记录 ✅"), "{s}");
        borders_whole(&s, &format!(" {} *", zh("model.field.answer")));
    }
    update(&mut m, d::code(KeyCode::Esc));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Discard);
    for s in snap(&m, "decide_discard", &DECIDE) {
        says_key(&s, "ui.decide.discard");
        says_key(&s, "ui.decide.keys_discard");
        // The question's box is whole over the editor.
        let lines: Vec<&str> = s.lines().collect();
        let q = lines
            .iter()
            .position(|l| l.contains(&zh("ui.decide.discard")))
            .unwrap();
        let top = lines[q - 1];
        let (left, right) = (col_of(top, "┌").unwrap(), col(top, top.rfind('┐').unwrap()));
        for l in &lines[q..q + 2] {
            assert_eq!(at(l, left), Some('│'), "{l}");
            assert_eq!(at(l, right), Some('│'), "{l}");
        }
        assert_eq!(at(lines[q + 2], left), Some('└'), "{s}");
    }
}

#[test]
fn the_decision_confirm() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let mut m = d::confirm_model();
    let screens = snap(&m, "decide_confirm", &DECIDE);
    for s in &screens {
        let what = format!("{} OQ-3", zh("model.verb.answer"));
        let title = fill(
            &zh("ui.decide.title_confirm"),
            &[("what", &what), ("project", &"approval-flow")],
        );
        let english = fill(
            &en("ui.decide.title_confirm"),
            &[("what", &"answer OQ-3"), ("project", &"approval-flow")],
        );
        says(s, (title.clone(), english));
        says(
            s,
            both(
                "ui.decide.writes",
                &[("n", &2), ("files", &"state.json · conversation.md")],
            ),
        );
        says_key(s, "ui.decide.no");
        says_key(s, "ui.decide.yes");
        says_key(s, "ui.decide.keys_confirm");
        borders_whole(s, &title);
        // The buttons on one line, the line count at its right end, on
        // the border's padding.
        let line = s.lines().find(|l| l.contains(&zh("ui.decide.no"))).unwrap();
        assert!(line.contains(&zh("ui.decide.yes")), "{line}");
        // The line count (scrolled or not) ends one column of padding
        // before the dialog's border.
        let yes = zh("ui.decide.yes");
        let rest = &line[line.find(&yes).unwrap() + yes.len()..];
        let count = &rest[..rest.find('│').unwrap()];
        let ends = |key: &str| zh(key).chars().last().unwrap();
        assert!(
            count.trim_end().ends_with(ends("ui.decide.lines"))
                && count.trim_end().ends_with(ends("ui.decide.lines_scrolled")),
            "{line}"
        );
        assert_eq!(count.len() - count.trim_end().len(), 1, "{line}");
    }
    // Scrolled to the end, Yes focused.
    update(&mut m, d::key('G'));
    update(&mut m, d::code(KeyCode::Tab));
    let s = zh_screen(&m, 80, 24);
    assert!(s.contains("+++ b/conversation.md"), "{s}");
}

#[test]
fn the_decision_conflict() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let mut m = d::opened(d::answer_project(), false, 'a');
    d::typed(&mut m, d::ANSWER);
    d::previewed(
        &mut m,
        Decided::Failed {
            message: "state.json changed on disk since the console read it (expected sha256 aaaaaaaaaaaa…, found bbbbbbbbbbbb…): nothing was written".into(),
            why: Why::Changed,
        },
    );
    for s in snap(&m, "decide_conflict", &DECIDE) {
        let title = zh("ui.decide.title_conflict");
        says_key(&s, "ui.decide.title_conflict");
        says_key(&s, "ui.decide.keys_failed_typed");
        // The message of the rule engine stays English (it is JSON's too).
        assert!(s.contains("nothing was written"), "{s}");
        borders_whole(&s, &title);
    }
    // Its sentence after the re-reading, a whole sentence of its own.
    let said = [
        "ui.decide.reread_kept",
        "ui.decide.rereading_kept",
        "ui.decide.rereading_comes_back",
    ];
    let s = zh_screen(&m, 160, 48);
    assert!(
        said.iter().any(|k| s.contains(&zh(k))),
        "one of {said:?}:\n{s}"
    );
    assert!(!s.contains("Reading the project again"), "{s}");
    assert!(!s.contains("The project was read again"), "{s}");
}

#[test]
fn the_since_you_looked_section() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = since::loaded();
    let dev = since::by_name(&m, "智能补货").clone();
    since::reread(&mut m, since::moved_on(&dev));
    select(&mut m, &dev.id);
    press(&mut m, KeyCode::Enter);
    let ago = {
        let _zh = scoped(Lang::ZhCn);
        crate::i18n::ago(3 * 3600)
    };
    for s in snap(&m, "since_you_looked", &SIZES) {
        assert!(
            s.contains(&fill(&zh("ui.since.title_ago"), &[("ago", &ago)])),
            "{s}"
        );
        assert!(!s.contains("Since you looked"), "{s}");
        for k in ["ui.since.status", "ui.since.stage", "ui.since.timeline"] {
            let label = zh(k);
            let line = s
                .lines()
                .find(|l| l.contains(&format!("{label} ")))
                .unwrap_or_else(|| panic!("{label}:\n{s}"));
            // Label and value apart: the value in the field's column.
            assert!(!line.contains(&en(k)), "{line}");
        }
        says(&s, both("ui.since.events", &[("n", &3), ("plus", &"")]));
    }
}

#[test]
fn the_too_small_screen() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    for (w, h) in [(39, 8), (120, 7)] {
        let s = snap(&m, "too_small", &[(w, h)]).remove(0);
        let how = fill(&zh("ui.small.quits"), &[("key", &"q")]);
        let args: [(&str, &dyn std::fmt::Display); 5] = [
            ("w", &w),
            ("h", &h),
            ("min_w", &MIN_WIDTH),
            ("min_h", &MIN_HEIGHT),
            ("how", &how),
        ];
        assert!(
            squeeze(&s).contains(&squeeze(&fill(&zh("ui.small.message"), &args))),
            "{s}"
        );
        assert!(!s.contains("terminal too small"), "{s}");
    }
    m.mode = crate::app::Mode::Decide;
    let s = zh_screen(&m, 120, 7);
    assert!(squeeze(&s).contains(&squeeze(&zh("ui.small.kept"))), "{s}");
}

/// The header's own words around the watcher's reason (English, as
/// `watch --json` gives it), READ-ONLY, the roots that cannot be read;
/// the filter's keys.
#[test]
fn the_header_and_the_hint_bar() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    m.readonly = true;
    m.live = crate::app::Liveness::Polling {
        every_secs: 5,
        reason: "inotify watch limit reached".into(),
    };
    m.root_problems = vec!["/gone/a".into(), "/gone/b".into()];
    for s in snap(&m, "header", &SIZES) {
        let first = s.lines().next().unwrap();
        says(first, both("ui.header.readonly", &[]));
        says(first, both("ui.header.polling", &[("secs", &5)]));
        says_key(&s, "ui.hints.readonly");
    }
    let wide = zh_screen(&m, 200, 60);
    let first = wide.lines().next().unwrap();
    says(
        first,
        both(
            "ui.header.cannot_read_more",
            &[("root", &"/gone/a"), ("more", &1)],
        ),
    );
    says(
        first,
        both(
            "ui.header.polling_why",
            &[("secs", &5), ("why", &"inotify watch limit reached")],
        ),
    );
    press(&mut m, KeyCode::Char('/'));
    says_key(&zh_screen(&m, 80, 24), "ui.hints.filter");
}

/// A theme's mistake in the language spoken (printed at start).
#[test]
fn theme_errors() {
    let english = Theme::builtin("neon", false).unwrap_err().to_string();
    let chinese = {
        let _zh = scoped(Lang::ZhCn);
        Theme::builtin("neon", false).unwrap_err().to_string()
    };
    let names = theme::BUILTIN
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ");
    let args: [(&str, &dyn std::fmt::Display); 2] = [("name", &"neon"), ("names", &names)];
    assert_eq!(chinese, fill(&zh("ui.theme.unknown"), &args));
    assert_eq!(english, fill(&en("ui.theme.unknown"), &args));
    assert_ne!(chinese, english);
}

/// Every run of two words or more that an English `phrase` entry says
/// itself, between its placeholders: what a reader would have left English.
fn english_phrases() -> Vec<String> {
    let catalog = crate::i18n::catalog(Lang::En);
    let mut fixed = Vec::new();
    for key in catalog.keys().filter(|k| k.starts_with("phrase.")) {
        let template = en(key);
        let mut rest = template.as_str();
        while !rest.is_empty() {
            let (part, tail) = match rest.find('{') {
                Some(i) => {
                    let end = rest[i..].find('}').map_or(rest.len(), |e| i + e + 1);
                    (&rest[..i], &rest[end..])
                }
                None => (rest, ""),
            };
            let words = part
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| w.len() > 1)
                .count();
            if words >= 2 {
                fixed.push(part.trim().to_owned());
            }
            rest = tail;
        }
    }
    assert!(fixed.len() > 50, "{fixed:?}");
    fixed
}

/// What loopdeck says about items and projects in its own words (issue
/// 20 §7), in Chinese: the inbox's titles, the selected item's "no
/// decision" line, and the resume card it jumps to; what the files say
/// stays as written, and the JSON keeps the English (`Phrase::en`).
#[test]
fn loopdecks_own_words_about_items() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    press(&mut m, KeyCode::Char('i'));
    let rows = crate::app::panes::inbox(&m);
    let at = rows
        .iter()
        .position(|&(p, i)| m.projects[p].inbox[i].kind == crate::model::InboxKind::Budget)
        .unwrap();
    for _ in 0..at {
        press(&mut m, KeyCode::Char('j'));
    }
    let (pi, ii) = rows[at];
    let item = m.projects[pi].inbox[ii].clone();
    let why = item.why_not.clone().unwrap();
    // Their opening words, before the view wraps them.
    let head = |s: &str| s.chars().take(12).collect::<String>();
    let english = english_phrases();
    for s in snap(&m, "inbox_why_not", &SIZES) {
        says_key(&s, "ui.inbox.field_why_not");
        assert!(s.contains(&head(&item.title.shown())), "{s}");
        assert!(s.contains(&head(&why.shown())), "{s}");
        assert!(!s.contains(&head(&why.en())), "{s}");
        for e in &english {
            assert!(!s.contains(e.as_str()), "{e:?} still English:\n{s}");
        }
    }
    // Enter: its project's Overview, the resume card in Chinese.
    press(&mut m, KeyCode::Enter);
    let p = &m.projects[pi];
    let card = [
        &p.resume.stopped_at,
        &p.resume.reason,
        &p.resume.waiting_for,
    ]
    .map(|v| v.clone().unwrap());
    for s in snap(&m, "overview_resume_card", &SIZES) {
        for said in &card {
            assert!(s.contains(&head(&said.shown())), "{s}");
            assert_ne!(said.shown(), said.en());
        }
        for e in &english {
            assert!(!s.contains(e.as_str()), "{e:?} still English:\n{s}");
        }
    }
}
