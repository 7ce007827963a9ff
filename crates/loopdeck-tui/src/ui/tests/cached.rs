//! The list as the console first draws it from the last run's snapshot:
//! every row marked `◌` before its name, the header `◌ refreshing…`, at 80x24, in English and
//! in Chinese. The projects go through the real snapshot file (written,
//! read back), as the console's start reads them.

use std::path::Path;

use super::{now, screen, workspace_projects};
use crate::app::{Event, Model, update};
use crate::i18n::{Lang, scoped};

fn from_snapshot() -> (tempfile::TempDir, Model) {
    let (tmp, projects) = workspace_projects();
    let ws = Path::new("target/tmp")
        .join(tmp.path().file_name().unwrap())
        .join("workspace");
    let state = tmp.path().join("state");
    let roots = vec![ws];
    let taken = loopdeck_core::memory::snapshot::take(&roots, &projects, now());
    loopdeck_core::memory::snapshot::save(&state, taken).unwrap();
    let cached = loopdeck_core::memory::snapshot::load(&state, &roots).unwrap();
    assert_eq!(cached.entries.len(), projects.len());
    let mut m = Model::new(vec!["workspace".into()], false, now());
    update(&mut m, Event::Cached(cached.into_projects()));
    (tmp, m)
}

#[test]
fn the_first_frame_from_the_snapshot_marks_every_row_refreshing() {
    let (_t, m) = from_snapshot();
    for (lang, name, mark) in [
        (Lang::En, "cached_list", "◌ refreshing…"),
        (Lang::ZhCn, "cached_list_zh", "◌ 刷新中…"),
    ] {
        let _l = scoped(lang);
        let s = screen(&m, 80, 24);
        insta::assert_snapshot!(format!("{name}_80x24"), s);
        let header = s.lines().next().unwrap();
        assert!(header.contains(mark), "{header}");
        // Every project row drawn (between the column headings and the
        // border) carries the mark before its name.
        let rows: Vec<&str> = s.lines().skip(3).take(19).collect();
        assert!(rows.len() > 10);
        for row in rows {
            assert!(row.contains("   ◌ "), "{row}\n{s}");
        }
    }
}
