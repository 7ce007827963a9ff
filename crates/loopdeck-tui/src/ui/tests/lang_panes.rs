//! A project's tabs in Simplified Chinese at 80x24 and wide (issue 11 §2).

use crossterm::event::KeyCode;

use super::{press, screen, select, workspace_model};
use crate::app::{Drawer, Model, Tab};
use crate::i18n::{Lang, scoped};
use crate::model::text::width;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_zh_{w}x{h}"), screen(m, w, h));
    }
}

/// A catalogue's text for `key` (a plain entry).
fn text(lang: Lang, key: &str) -> &'static str {
    crate::i18n::text_in(lang, key).unwrap_or_else(|| panic!("no {key} in {lang}"))
}

fn go(m: &mut Model, tab: Tab) {
    let n = m.tabs().iter().position(|t| *t == tab).unwrap();
    press(m, KeyCode::Char(char::from(b'1' + n as u8)));
}

/// The screen says `key` in Chinese and not in English (up to its first
/// placeholder).
fn says(s: &str, key: &str, context: &str) {
    let head = |t: &'static str| t.split('{').next().unwrap_or(t).trim();
    let (zh, en) = (head(text(Lang::ZhCn, key)), head(text(Lang::En, key)));
    assert!(s.contains(zh), "{context}: no {zh:?} ({key})\n{s}");
    assert!(!s.contains(en), "{context}: English {en:?} ({key})\n{s}");
}

/// What a tab must say in Chinese (besides its title).
fn keys_of(tab: Tab) -> &'static [&'static str] {
    match tab {
        Tab::Overview => &["panes.overview.read_first", "panes.overview.updated"],
        Tab::Frontier => &["panes.frontier.col_question", "panes.frontier.ask"],
        Tab::Phases => &["panes.phases.col_item", "panes.phases.position"],
        Tab::Tasks => &["panes.tasks.col_gates", "panes.tasks.col_task"],
        Tab::Units => &["panes.units.col_downstream", "panes.units.col_upstream"],
        Tab::Bugs => &["panes.bugs.col_title", "panes.bugs.cycle"],
        Tab::Timeline => &["panes.timeline.col_source", "panes.timeline.col_following"],
        Tab::Revisions => &["panes.revisions.col_changes", "panes.revisions.revision"],
        Tab::Agents => &["panes.agents.col_doing", "panes.agents.col_progress"],
        Tab::Findings => &["panes.findings.col_message", "panes.findings.col_level"],
    }
}

fn tab_key(tab: Tab) -> &'static str {
    match tab {
        Tab::Overview => "app.tab.overview",
        Tab::Frontier => "app.tab.frontier",
        Tab::Phases => "app.tab.phases",
        Tab::Tasks => "app.tab.tasks",
        Tab::Units => "app.tab.units",
        Tab::Bugs => "app.tab.bugs",
        Tab::Timeline => "app.tab.timeline",
        Tab::Revisions => "app.tab.revisions",
        Tab::Agents => "app.tab.agents",
        Tab::Findings => "app.tab.findings",
    }
}

/// Every tab of one project per format, in Chinese, and the drawers
/// (unit, bug, revision) open over them.
#[test]
fn every_tab_in_chinese() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    let tabs = super::VIEWS;
    for (id, wanted) in tabs {
        select(&mut m, id);
        for tab in *wanted {
            go(&mut m, *tab);
            let name = format!(
                "{}_{}",
                id.rsplit('/').next().unwrap(),
                // Named in English, whatever the screen speaks.
                format!("{tab:?}").to_lowercase()
            );
            let wide = screen(&m, 200, 60);
            says(&wide, tab_key(*tab), &name);
            let p = m.selected_project().unwrap();
            let keys: &[&str] = if *tab == Tab::Findings && p.findings.is_empty() {
                &["panes.findings.empty"]
            } else {
                keys_of(*tab)
            };
            for key in keys {
                says(&wide, key, &name);
            }
            snap(&m, &name);
            if matches!(tab, Tab::Units | Tab::Bugs | Tab::Revisions) {
                press(&mut m, KeyCode::Enter);
                assert!(m.drawer.is_some(), "{name}: a drawer");
                snap(&m, &format!("{name}_drawer"));
                press(&mut m, KeyCode::Esc);
            }
        }
        press(&mut m, KeyCode::Esc);
    }
}

/// The drawers' words: the unit's contract and runs, the revision's
/// section diff (the newest PRD revision adds a section).
#[test]
fn the_drawers_speak_chinese() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    select(&mut m, "devloop/data/companies/acme/projects/p-restock");
    go(&mut m, Tab::Units);
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 200, 60);
    for key in ["panes.units.contract", "panes.units.hash"] {
        says(&s, key, "unit drawer");
    }
    press(&mut m, KeyCode::Esc);
    go(&mut m, Tab::Revisions);
    press(&mut m, KeyCode::Down);
    press(&mut m, KeyCode::Down);
    press(&mut m, KeyCode::Enter);
    assert!(matches!(&m.drawer, Some(Drawer::Revision(k)) if k.starts_with("prd_rev|3|")));
    let s = screen(&m, 200, 60);
    let added = crate::t!("panes.revisions.added", mark = '+', title = "按箱规取整");
    assert!(s.contains(&added), "{added:?}\n{s}");
    assert!(!s.contains("(added)"), "{s}");
    snap(&m, "p-restock_revisions_prd_drawer");
}

/// The cells of a screen line, one per display column (a wide character's
/// second column is empty).
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in line.chars() {
        out.push(c.to_string());
        for _ in 1..width(&c.to_string()) {
            out.push(String::new());
        }
    }
    out
}

/// The detail's side of a screen line (beside the list at 200 columns).
fn detail(line: &str) -> &str {
    match line.find("││") {
        Some(i) => &line[i + "││".len()..],
        None => line.trim_start_matches('│'),
    }
}

/// The column under `header` starts at the same display column on every
/// row that `row` picks (in the detail's side of the screen): the header
/// is drawn in full on the line above the first row, and on each row the
/// cell before the column is blank and its first is not.
fn aligned(s: &str, header: &str, row: impl Fn(&str) -> bool, context: &str) {
    let lines: Vec<&str> = s.lines().map(detail).collect();
    let first = lines
        .iter()
        .position(|l| row(l))
        .unwrap_or_else(|| panic!("{context}: no rows\n{s}"));
    assert!(first > 0, "{context}: no header line\n{s}");
    let head = lines[first - 1];
    let at = head
        .find(header)
        .unwrap_or_else(|| panic!("{context}: no header {header:?} in full\n{s}"));
    let x = width(&head[..at]);
    assert!(x > 0, "{context}: {header:?} is the first column");
    for l in lines.iter().filter(|l| row(l)) {
        let c = cells(l);
        let blank = |i: usize| c.get(i).is_none_or(|s| s == " ");
        assert!(
            blank(x - 1) && !blank(x),
            "{context}: {header:?} at column {x}, not in\n{l}\n{head}"
        );
    }
}

/// Tables in Chinese: headers sized for the words in force (the Frontier's
/// priority header is wider in Chinese than its English column), each
/// column starting at the same display column on every row.
#[test]
fn chinese_columns_are_sized_and_aligned() {
    // The whole run speaks Chinese, as the console does once started.
    let _zh = scoped(Lang::ZhCn);
    let zh = |key| text(Lang::ZhCn, key);
    let (_t, mut m) = workspace_model();
    select(&mut m, "prd-master/fba-smart-restock");
    go(&mut m, Tab::Frontier);
    let labels = [
        zh("panes.frontier.ask"),
        zh("panes.frontier.fact"),
        zh("panes.frontier.wait"),
    ];
    let frontier_row = |l: &str| labels.iter().any(|x| l.starts_with(x));
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        let ctx = format!("frontier {w}x{h}");
        for key in [
            "panes.frontier.col_priority",
            "panes.frontier.col_owner",
            "panes.frontier.col_question",
        ] {
            aligned(&s, zh(key), frontier_row, &ctx);
        }
    }
    press(&mut m, KeyCode::Esc);
    select(&mut m, "dwp/shop-api/.dwp/plans/PLAN_search_index");
    go(&mut m, Tab::Findings);
    let levels = [
        zh("panes.findings.error"),
        zh("panes.findings.warning"),
        zh("panes.findings.info"),
    ];
    let finding_row = |l: &str| levels.iter().any(|x| l.starts_with(x));
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        let ctx = format!("findings {w}x{h}");
        for key in ["panes.findings.col_code", "panes.findings.col_ref"] {
            aligned(&s, zh(key), finding_row, &ctx);
        }
    }
    press(&mut m, KeyCode::Esc);
    select(&mut m, "devloop/data/companies/acme/projects/p-restock");
    go(&mut m, Tab::Units);
    let unit_row =
        |l: &str| l.starts_with('L') && l.chars().nth(1).is_some_and(|c| c.is_ascii_digit());
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        let ctx = format!("units {w}x{h}");
        for key in [
            "panes.units.col_unit",
            "panes.units.col_type",
            "panes.units.col_status",
        ] {
            aligned(&s, zh(key), unit_row, &ctx);
        }
    }
}

/// An update ahead of "now" reads as one sentence in Chinese, not
/// "更新于" glued to "在未来…".
#[test]
fn an_update_in_the_future_is_one_sentence() {
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    let id = "prd-master/fba-smart-restock";
    select(&mut m, id);
    let p = m.projects.iter_mut().find(|p| p.id == id).unwrap();
    p.updated_at = Some(super::now() + chrono::Duration::hours(3));
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    let want = crate::i18n::fill(
        text(Lang::ZhCn, "panes.overview.updated_future"),
        &[("age", &crate::i18n::age(Some(3 * 3600)))],
    );
    assert!(s.contains(&want), "{want}:\n{s}");
    assert!(!s.contains("更新于在未来"), "{s}");
}
