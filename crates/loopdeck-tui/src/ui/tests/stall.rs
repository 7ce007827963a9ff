//! Stalled work on screen (issue 20 §5): the list row, the Overview, the
//! Agents tab and the L1/L2/L3 strip, at 80x24 and 200x60, in English and
//! Chinese; and the token burn before the breach.

use chrono::TimeDelta;
use crossterm::event::KeyCode;

use super::{assert_clean, now, press, screen, select, workspace_model};
use crate::app::{Model, Tab};
use crate::i18n::{Lang, scoped};
use crate::model::StallLimit;

const RESTOCK: &str = "devloop/data/companies/acme/projects/p-restock";
const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

/// The example workspace 40 minutes after p-restock's coder last wrote
/// (11:58:25): one agent call may run 10 minutes (`agent_wallclock_ms`).
fn forty_minutes_on() -> (tempfile::TempDir, Model) {
    let (t, mut m) = workspace_model();
    m.now = now() + TimeDelta::seconds(38 * 60 + 25);
    (t, m)
}

fn open(m: &mut Model, tab: Tab) {
    let n = m.tabs().iter().position(|t| *t == tab).unwrap();
    press(m, KeyCode::Char((b'1' + n as u8) as char));
}

/// The line of `s` holding `text`.
fn line<'a>(s: &'a str, text: &str) -> &'a str {
    s.lines()
        .find(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no {text:?} in\n{s}"))
}

#[test]
fn a_stalled_project_is_marked_in_the_list_and_its_overview() {
    let (_t, mut m) = forty_minutes_on();
    select(&mut m, RESTOCK);
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        assert_clean(&s, "stalled list");
        insta::assert_snapshot!(format!("stalled_list_{w}x{h}"), s);
        // Its own mark in place of ▶, and how long after the name.
        let row = line(&s, "FBA 智能补货 · stalled 40m");
        assert!(row.contains("◷ 40m"), "{row}");
        // The GSD project that says executing, silent for 2 days.
        assert!(line(&s, "no-frontmatter").contains("◷"), "{s}");
        assert!(line(&s, "no-frontmatter").contains("· stalled 2d"), "{s}");
        // A project that does not say it runs is never stalled.
        assert!(!line(&s, "scene3-milestone-complete").contains("stalled"));
        if w >= crate::ui::SPLIT_WIDTH {
            // The detail beside it says who, since when and the limit,
            // and the token burn.
            assert!(line(&s, "◷ running · stalled 40m").contains("updated"));
            assert!(
                s.contains(
                    "coder says it runs; its files silent for 40m (since 06-01 11:58, limit 10m)"
                ),
                "{s}"
            );
            assert!(s.contains("43% · 2,184,310 of 5,000,000 tokens"), "{s}");
        }
    }
    // `/stalled` finds them; sorted by status they come after what waits.
    press(&mut m, KeyCode::Char('/'));
    for c in "stalled".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    let names: Vec<String> = crate::app::panes::projects(&m)
        .into_iter()
        .map(|i| m.projects[i].name.clone())
        .collect();
    assert_eq!(names, ["FBA 智能补货", "no-frontmatter"]);
}

#[test]
fn the_agents_tab_says_stalled_instead_of_running_and_ages_a_pause() {
    let (_t, mut m) = forty_minutes_on();
    select(&mut m, RESTOCK);
    press(&mut m, KeyCode::Enter);
    open(&mut m, Tab::Agents);
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        assert_clean(&s, "agents");
        insta::assert_snapshot!(format!("stalled_agents_{w}x{h}"), s);
        let coder = line(&s, "coder ");
        assert!(coder.contains("◷ stalled 40m"), "{coder}");
        assert!(coder.contains("2/4"), "{coder}");
        assert!(!coder.contains("▶"), "{coder}");
        // A pause's age as every age is shown: 1d, not 30h.
        let integrator = line(&s, "integrator ");
        assert!(integrator.contains("⏸ 1d, token expired"), "{integrator}");
        // The strip counts the stalled agent apart and says the burn.
        let strip = line(&s, " L1 ");
        assert!(strip.contains("1 stalled"), "{strip}");
        assert!(strip.contains("tokens 43%"), "{strip}");
    }
    // The config can give the format a longer limit: running again.
    m.stall.devloop = StallLimit::After(TimeDelta::hours(1));
    let s = screen(&m, 200, 60);
    assert!(line(&s, "coder ").contains("▶ running"), "{s}");
    assert!(!line(&s, " L1 ").contains("stalled"), "{s}");
}

#[test]
fn the_stall_and_the_burn_speak_chinese() {
    let _zh = scoped(Lang::ZhCn);
    let (_t, mut m) = forty_minutes_on();
    select(&mut m, RESTOCK);
    let s = screen(&m, 200, 60);
    assert!(line(&s, "FBA 智能补货 · 停滞40分钟").contains("◷"), "{s}");
    assert!(
        s.contains("coder 显示在运行，但其文件已40分钟没有写入（自 06-01 11:58 起，上限 10分钟）"),
        "{s}"
    );
    assert!(s.contains("43% · 已用 2,184,310 / 5,000,000 Token"), "{s}");
    press(&mut m, KeyCode::Enter);
    open(&mut m, Tab::Agents);
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        insta::assert_snapshot!(format!("stalled_agents_zh_{w}x{h}"), s);
        assert!(line(&s, "coder ").contains("◷ 停滞40分钟"), "{s}");
        assert!(line(&s, "integrator ").contains("⏸ 已暂停1天"), "{s}");
        let strip = line(&s, " L1 ");
        assert!(
            strip.contains("1个停滞") && strip.contains("Token 43%"),
            "{strip}"
        );
    }
}

/// The token burn is shown before the breach, and past it.
#[test]
fn the_strip_says_the_token_burn_before_and_after_the_breach() {
    let (_t, mut m) = workspace_model();
    let over = "devloop/data/companies/acme/projects/p-over-budget";
    select(&mut m, over);
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    assert!(line(&s, " L1 ").contains("tokens 104%"), "{s}");
    press(&mut m, KeyCode::Esc);
    select(&mut m, "devloop/data/companies/acme/projects/p-shipped");
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    assert!(line(&s, " L1 ").contains("tokens 47%"), "{s}");
}

/// Beside the list at 120 columns the detail is about 64 wide: the tab
/// bar names the selected tab whole and keeps every other tab's number
/// (Findings included), and the strip keeps the token burn with a stall.
#[test]
fn beside_the_list_every_tab_and_the_tokens_stay_in_sight() {
    for stalled in [false, true] {
        let (_t, mut m) = if stalled {
            forty_minutes_on()
        } else {
            workspace_model()
        };
        select(&mut m, RESTOCK);
        for tab in [Tab::Agents, Tab::Overview] {
            open(&mut m, tab);
            let s = screen(&m, 120, 40);
            assert_clean(&s, "beside the list");
            let bar = line(&s, " 1 ");
            let n = m.tabs().len();
            for i in 1..=n {
                assert!(bar.contains(&format!(" {i} ")), "tab {i} in {bar:?}");
            }
            assert!(bar.contains(&format!(" {} ", tab.title())), "{bar:?}");
            let strip = line(&s, " L1 ");
            assert!(strip.contains("tokens 43%"), "{strip:?}");
            assert_eq!(strip.contains('◷'), stalled, "{strip:?}");
            insta::assert_snapshot!(
                format!("beside_the_list_{tab:?}_stalled_{stalled}_120x40"),
                s
            );
        }
    }
}
