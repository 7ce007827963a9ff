//! Grouping the project list (`b`, and `group: …` in the palette) by
//! format or by root: the order, header rows the selection never lands on,
//! and the selection staying on its project.

use super::{code, key, project, selected};
use crate::app::*;
use chrono::TimeZone;
use panes::{Group, GroupKey, ListRow, Sort};

/// Six projects under two roots (given `/b` first, then `/a`), held newest
/// first, their formats mixed.
fn six() -> Model {
    let at = |day| Some(Utc.with_ymd_and_hms(2026, 5, day, 0, 0, 0).unwrap());
    let make = |root: &str, name: &str, format, waiting, day| {
        let mut p = project(name, format, waiting);
        p.path = PathBuf::from(format!("/{root}/{name}"));
        p.updated_at = at(day);
        p
    };
    let projects = vec![
        make("a", "delta", Format::Devloop, 1, 30),
        make("b", "alpha", Format::Gsd, 0, 25),
        make("a", "echo", Format::PrdMaster, 2, 20),
        make("b", "bravo", Format::Devloop, 0, 15),
        make("a", "charlie", Format::Gsd, 3, 10),
        make("b", "foxtrot", Format::PrdMaster, 0, 5),
    ];
    let mut m = Model::new(
        vec!["/b".into(), "/a".into()],
        false,
        Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap(),
    );
    update(&mut m, Event::Loaded(projects));
    m
}

fn names(m: &Model) -> Vec<&str> {
    panes::projects(m)
        .into_iter()
        .map(|i| m.projects[i].name.as_str())
        .collect()
}

/// The list as drawn: `[group name (projects, waiting)]` for a header, the
/// project's name for a project.
fn drawn(m: &Model) -> Vec<String> {
    panes::list_rows(m)
        .into_iter()
        .map(|r| match r {
            ListRow::Header {
                key,
                projects,
                waiting,
            } => format!("[{} {projects} ◆{waiting}]", panes::group_name(m, key)),
            ListRow::Project(i) => m.projects[i].name.clone(),
        })
        .collect()
}

#[test]
fn b_cycles_none_format_root_and_each_group_keeps_the_sort() {
    let mut m = six();
    assert_eq!(m.group, Group::None);
    let newest = ["delta", "alpha", "echo", "bravo", "charlie", "foxtrot"];
    assert_eq!(names(&m), newest);
    assert_eq!(drawn(&m), newest, "no headers when ungrouped");
    assert_eq!(update(&mut m, key('b')), vec![Effect::Render]);
    assert_eq!(m.group, Group::Format);
    // Formats in a fixed order, newest first within each.
    assert_eq!(
        drawn(&m),
        [
            "[PRD-master 2 ◆2]",
            "echo",
            "foxtrot",
            "[GSD 2 ◆3]",
            "alpha",
            "charlie",
            "[devloop 2 ◆1]",
            "delta",
            "bravo",
        ]
    );
    update(&mut m, key('b'));
    assert_eq!(m.group, Group::Root);
    // Roots in command-line order: /b was given first.
    assert_eq!(
        drawn(&m),
        [
            "[/b 3 ◆0]",
            "alpha",
            "bravo",
            "foxtrot",
            "[/a 3 ◆6]",
            "delta",
            "echo",
            "charlie",
        ]
    );
    // Within a group, the sort in force.
    update(&mut m, key('S'));
    assert_eq!(m.sort, Sort::Name);
    assert_eq!(
        names(&m),
        ["alpha", "bravo", "foxtrot", "charlie", "delta", "echo"]
    );
    update(&mut m, key('b'));
    assert_eq!(m.group, Group::None);
    assert_eq!(
        names(&m),
        ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    );
}

#[test]
fn moving_skips_the_headers() {
    let mut m = six();
    update(&mut m, key('b'));
    assert_eq!(selected(&m), "delta", "still on its project");
    update(&mut m, key('g'));
    // Down the whole list: every project once, in grouped order, each
    // selection a project row.
    let mut visited = vec![selected(&m)];
    for _ in 0..8 {
        update(&mut m, key('j'));
        visited.push(selected(&m));
    }
    assert_eq!(
        visited,
        [
            "echo", "foxtrot", "alpha", "charlie", "delta", "bravo", "bravo", "bravo", "bravo"
        ],
        "from the last of a group straight to the first of the next"
    );
    update(&mut m, key('k'));
    update(&mut m, key('k'));
    assert_eq!(selected(&m), "charlie", "up over the devloop header");
    update(&mut m, code(KeyCode::Home));
    assert_eq!((selected(&m), m.list.selected), ("echo".to_owned(), 0));
    update(&mut m, code(KeyCode::End));
    assert_eq!((selected(&m), m.list.selected), ("bravo".to_owned(), 5));
    m.page = 3;
    update(&mut m, code(KeyCode::PageUp));
    assert_eq!(
        selected(&m),
        "alpha",
        "three projects up, headers not counted"
    );
    update(&mut m, code(KeyCode::PageDown));
    assert_eq!(selected(&m), "bravo");
    // The selected row is always a project of the drawn list.
    let rows = panes::list_rows(&m);
    let projects: Vec<&ListRow> = rows
        .iter()
        .filter(|r| matches!(r, ListRow::Project(_)))
        .collect();
    assert_eq!(projects.len(), 6);
    assert!(
        matches!(projects[m.list.selected], ListRow::Project(i) if m.projects[*i].name == "bravo")
    );
}

#[test]
fn the_selection_stays_on_its_project_across_groupings_and_a_reload() {
    let mut m = six();
    for _ in 0..2 {
        update(&mut m, key('j'));
    }
    assert_eq!((selected(&m), m.list.selected), ("echo".to_owned(), 2));
    for (group, row) in [(Group::Format, 0), (Group::Root, 4), (Group::None, 2)] {
        update(&mut m, key('b'));
        assert_eq!(m.group, group);
        assert_eq!(selected(&m), "echo", "{group:?}");
        assert_eq!(m.list.selected, row, "{group:?}: the row follows it");
    }
    // The palette picks a grouping; picking the one in force does nothing.
    update(&mut m, key(':'));
    for c in "group: by root".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(
        commands::matching(&m, &m.palette.input).first(),
        Some(&(Command::GroupBy(Group::Root), "group: by root"))
    );
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.mode, m.group), (Mode::Normal, Group::Root));
    assert_eq!((selected(&m), m.list.selected), ("echo".to_owned(), 4));
    update(&mut m, key(':'));
    for c in "group: by root".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(update(&mut m, code(KeyCode::Enter)), vec![]);
    // A reading keeps the grouping, and the selection on its project: a
    // new project under /a, newer than all, comes first in its group.
    let mut again = six().projects;
    let mut golf = project("golf", Format::Dwp, 1);
    golf.path = PathBuf::from("/a/golf");
    golf.updated_at = Some(Utc.with_ymd_and_hms(2026, 5, 31, 0, 0, 0).unwrap());
    again.insert(0, golf);
    update(&mut m, Event::Loaded(again));
    assert_eq!(m.group, Group::Root);
    assert_eq!(
        names(&m),
        [
            "alpha", "bravo", "foxtrot", "golf", "delta", "echo", "charlie"
        ]
    );
    assert_eq!((selected(&m), m.list.selected), ("echo".to_owned(), 5));
    // `r` reads again: the grouping is the model's, not the reading's.
    assert_eq!(update(&mut m, key('r')), vec![Effect::Reload]);
    assert_eq!(m.group, Group::Root);
}

#[test]
fn a_filter_hides_the_groups_it_empties() {
    let mut m = six();
    update(&mut m, key('b'));
    update(&mut m, key('/'));
    for c in "ha".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    // alpha (GSD) and charlie (GSD) match "ha"; PRD-master and devloop
    // have none shown.
    assert_eq!(drawn(&m), ["[GSD 2 ◆3]", "alpha", "charlie"]);
    update(&mut m, key('b'));
    assert_eq!(
        drawn(&m),
        ["[/b 1 ◆0]", "alpha", "[/a 1 ◆3]", "charlie"],
        "the counts are of the projects shown"
    );
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(drawn(&m).len(), 8, "both roots, all projects, again");
}

#[test]
fn n_and_the_palette_go_to_land_on_the_project() {
    let mut m = six();
    // echo and bravo change after the first reading.
    let mut again = m.projects.clone();
    for p in &mut again {
        if p.name == "echo" || p.name == "bravo" {
            p.status = "blocked".to_owned();
        }
    }
    update(&mut m, Event::Loaded(again));
    assert!(m.seen.any_changed());
    update(&mut m, key('b'));
    update(&mut m, key('b'));
    assert_eq!(m.group, Group::Root);
    update(&mut m, code(KeyCode::Home));
    assert_eq!(selected(&m), "alpha");
    // In grouped order: bravo (in /b) first, then echo (in /a).
    update(&mut m, key('n'));
    assert_eq!((selected(&m), m.list.selected), ("bravo".to_owned(), 1));
    update(&mut m, key('n'));
    assert_eq!((selected(&m), m.list.selected), ("echo".to_owned(), 4));
    update(&mut m, key('n'));
    assert_eq!(selected(&m), "bravo", "round the list");
    // The palette goes to a project hidden by the filter; the list row
    // is its row in the grouped list.
    update(&mut m, key('/'));
    for c in "alpha".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    update(&mut m, key(':'));
    for c in "charl".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(selected(&m), "charlie");
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(m.list.selected, 5);
    let rows = panes::projects(&m);
    assert_eq!(m.projects[rows[m.list.selected]].name, "charlie");
}

#[test]
fn b_is_a_list_key_the_palette_has_every_grouping_and_keys_can_remap_it() {
    let mut m = six();
    let groupings = |m: &Model| {
        commands::matching(m, "group")
            .iter()
            .filter(|(c, _)| matches!(c, Command::GroupBy(_)))
            .count()
    };
    assert_eq!(groupings(&m), 3);
    assert!(help_rows(&m).iter().any(|r| r.keys == "b"));
    assert_eq!(update(&mut m, key('b')), vec![Effect::Render]);
    assert_eq!(m.group, Group::Format);
    update(&mut m, key(':'));
    for c in "group: none".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.group, Group::None);
    // In the detail, b is not the list's (the palette still groups).
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(update(&mut m, key('b')), vec![]);
    assert_eq!(m.group, Group::None);
    assert_eq!(groupings(&m), 3);
    // The inbox has no project list to group.
    update(&mut m, key('i'));
    assert_eq!(groupings(&m), 0);
    // `[keys]` names it.
    assert_eq!(keymap::name(Command::CycleGroup), "group");
    assert_eq!(keymap::name(Command::GroupBy(Group::Root)), "group-root");
    let mut m = six();
    let keys = crate::app::keymap::Keys::of("[keys]\ngroup = \"B\"\n\"group-root\" = \"R\"\n").0;
    m.keymap = keymap::build(&keys).unwrap();
    assert_eq!(update(&mut m, key('b')), vec![], "the old key is free");
    update(&mut m, key('B'));
    assert_eq!(m.group, Group::Format);
    update(&mut m, key('R'));
    assert_eq!(m.group, Group::Root);
    assert!(help_rows(&m).iter().any(|r| r.keys == "B"));
}

#[test]
fn a_project_under_no_root_is_grouped_last() {
    let mut m = six();
    let mut again = m.projects.clone();
    let mut stray = project("stray", Format::Gsd, 0);
    stray.path = PathBuf::from("/elsewhere/stray");
    again.push(stray);
    update(&mut m, Event::Loaded(again));
    update(&mut m, key('b'));
    update(&mut m, key('b'));
    assert_eq!(m.group, Group::Root);
    let rows = panes::list_rows(&m);
    assert!(matches!(
        rows[rows.len() - 2],
        ListRow::Header {
            key: GroupKey::Root(None),
            projects: 1,
            ..
        }
    ));
    assert_eq!(drawn(&m).last().map(String::as_str), Some("stray"));
    assert_eq!(
        panes::group_name(&m, GroupKey::Root(None)),
        crate::t!("app.group.no_root")
    );
}

/// Nested roots (`loopdeck . sub`): a project goes to the deepest root
/// that holds it, whatever the order the roots were given in.
#[test]
fn a_project_goes_to_the_deepest_root_that_holds_it() {
    let mut m = six();
    let inner = m.projects[0]
        .path
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let outer = std::path::Path::new(&inner)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    m.roots = vec![outer, inner];
    assert_eq!(panes::root_of(&m, &m.projects[0]), Some(1));
    m.roots.reverse();
    assert_eq!(panes::root_of(&m, &m.projects[0]), Some(0));
}
