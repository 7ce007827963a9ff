//! Reading through one `ReadCache` (as the console and `watch` do) gives
//! exactly what a fresh reading gives, whatever happens to the files in
//! between: appends whole and torn, truncation, replacement by rename, a
//! rewrite at the same size with the mtime put back, a project deleted
//! and recreated. Real files in temp dirs; each case compares the cached
//! reading with a fresh `discover` / `read_under`, byte for byte in JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{copy_dir, repo, tick, workspace};
use loopdeck_core::formats::{discover_cached, read_under_cached};
use loopdeck_core::read::{Discovery, discover, read_under};
use loopdeck_core::store::cache::ReadCache;

/// A cache that trusts file times at once: each test orders its writes
/// after a clock tick itself ([`tick`]), where the console waits
/// `cache::RACY`.
fn cache() -> ReadCache {
    ReadCache::with_racy_window(Duration::ZERO)
}

fn text(d: &Discovery) -> String {
    serde_json::to_string_pretty(&(&d.projects, &d.problems)).unwrap()
}

/// A cached reading of `root` equals a fresh one; so does a cached
/// reading of exactly `project`, when given.
fn same(root: &Path, project: Option<&Path>, cache: &ReadCache, what: &str) -> Discovery {
    let roots = [root.to_path_buf()];
    let cached = discover_cached(&roots, cache);
    let fresh = discover(&roots);
    assert_eq!(text(&cached), text(&fresh), "{what}: discover");
    // Every field, the stamps decisions compare with included.
    assert!(cached.projects == fresh.projects, "{what}: discover");
    if let Some(dir) = project {
        let cached = read_under_cached(root, dir, false, cache);
        let fresh = read_under(root, dir, false);
        assert_eq!(text(&cached), text(&fresh), "{what}: read_under");
        assert!(cached.projects == fresh.projects, "{what}: read_under");
        assert!(!fresh.projects.is_empty(), "{what}: no project at {dir:?}");
    }
    cached
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

fn event(i: usize) -> String {
    format!(
        "{{\"ts\":\"2026-06-01T12:{:02}:{:02}Z\",\"source\":\"dev-agent\",\"kind\":\"unit_passed\",\"ref\":\"unit/U-{i}\",\"summary\":\"step {i}\"}}\n",
        (i / 60) % 60,
        i % 60
    )
}

/// The example devloop workspace in a temp dir, and its p-restock project.
fn devloop() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("devloop");
    copy_dir(&repo().join("examples/workspace/devloop"), &root);
    let project = root.join("data/companies/acme/projects/p-restock");
    (tmp, root, project)
}

fn timeline_of(d: &Discovery, id_end: &str) -> Vec<String> {
    let p = d.projects.iter().find(|p| p.id.ends_with(id_end)).unwrap();
    p.detail
        .timeline
        .iter()
        .map(|e| e.summary.clone())
        .collect()
}

#[test]
fn the_example_workspace_read_twice_through_one_cache() {
    let (_tmp, ws) = workspace();
    let cache = cache();
    same(&ws, None, &cache, "first");
    common::tick(&ws);
    let read = cache.bytes_read();
    let reused = cache.reused();
    same(&ws, None, &cache, "second");
    // Nothing changed: nothing is read again through the cache, and the
    // parsed files are reused.
    assert_eq!(cache.bytes_read(), read);
    assert!(cache.reused() > reused + 10, "{}", cache.reused() - reused);
}

#[test]
fn every_real_file_read_twice_through_one_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("real");
    let fixtures = repo().join("tests/fixtures");
    for e in fs::read_dir(fixtures.join("gsd-real-world")).unwrap() {
        let e = e.unwrap();
        let state = e.path().join("STATE.md");
        if !state.is_file() {
            continue;
        }
        let bytes = fs::read(&state).unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        common::write(&root.join(&name).join(".planning/STATE.md"), &bytes);
        // Windows users write CRLF.
        let crlf = String::from_utf8_lossy(&bytes).replace('\n', "\r\n");
        common::write(
            &root.join(format!("{name}-crlf")).join(".planning/STATE.md"),
            crlf,
        );
    }
    copy_dir(&fixtures.join("dwp-real-world"), &root.join("dwp"));
    let cache = cache();
    let first = same(&root, None, &cache, "first");
    assert!(first.projects.len() >= 120, "{}", first.projects.len());
    common::tick(&root);
    same(&root, None, &cache, "second");
    // One file changed among them.
    let one = root.join("Mimo01__pmkar/.planning/STATE.md");
    append(&one, b"\n## Added later\n\nStopped at: a new place\n");
    same(
        &root,
        Some(&root.join("Mimo01__pmkar")),
        &cache,
        "after an edit",
    );
}

#[test]
fn appends_whole_and_torn_read_as_fresh_and_only_the_new_bytes_are_read() {
    let (_tmp, root, project) = devloop();
    let timeline = project.join("timeline.ndjson");
    let cache = cache();
    same(&root, Some(&project), &cache, "first");

    common::tick(&root);
    let before = cache.bytes_read();
    let line = event(1);
    append(&timeline, line.as_bytes());
    let d = same(&root, None, &cache, "one line appended");
    assert_eq!(timeline_of(&d, "p-restock").last().unwrap(), "step 1");
    // The new line and the 32 bytes before it (checked unchanged):
    // nothing else is read again.
    assert_eq!(cache.bytes_read() - before, line.len() as u64 + 32);

    common::tick(&root);
    let line = event(2);
    let (head, rest) = line.split_at(line.len() / 2);
    append(&timeline, head.as_bytes());
    let d = same(&root, Some(&project), &cache, "half a line");
    assert_eq!(timeline_of(&d, "p-restock").last().unwrap(), "step 1");
    common::tick(&root);
    append(&timeline, rest.as_bytes());
    let d = same(&root, Some(&project), &cache, "the rest of it");
    assert_eq!(timeline_of(&d, "p-restock").last().unwrap(), "step 2");

    // Many lines, garbage among them, past the 50 events kept.
    for round in 0..5 {
        common::tick(&root);
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&event(100 + round * 40 + i));
            if i % 7 == 0 {
                text.push_str("not json\n\n");
            }
        }
        append(&timeline, text.as_bytes());
        same(&root, Some(&project), &cache, &format!("round {round}"));
    }
}

#[test]
fn bugs_appended_torn_and_completed_read_as_fresh() {
    let (_tmp, root, project) = devloop();
    let bugs = project.join("bugs.ndjson");
    let cache = cache();
    same(&root, Some(&project), &cache, "first");
    let line = "{\"id\":\"BUG-900\",\"status\":\"open\",\"severity\":\"high\",\"title\":\"new\",\"unit_id\":\"U-01\"}\n";
    let (head, rest) = line.split_at(30);
    common::tick(&root);
    append(&bugs, head.as_bytes());
    let d = same(&root, Some(&project), &cache, "torn bug");
    let p = d
        .projects
        .iter()
        .find(|p| p.id.ends_with("p-restock"))
        .unwrap();
    assert!(!p.detail.bugs.iter().any(|b| b.id == "BUG-900"));
    common::tick(&root);
    append(&bugs, rest.as_bytes());
    let d = same(&root, Some(&project), &cache, "completed bug");
    let p = d
        .projects
        .iter()
        .find(|p| p.id.ends_with("p-restock"))
        .unwrap();
    assert!(p.detail.bugs.iter().any(|b| b.id == "BUG-900"));
    common::tick(&root);
    append(&bugs, line.replace("open", "fixed").as_bytes());
    same(&root, Some(&project), &cache, "transitioned");
}

#[test]
fn truncated_and_replaced_files_read_as_fresh() {
    let (_tmp, root, project) = devloop();
    let timeline = project.join("timeline.ndjson");
    let cache = cache();
    same(&root, Some(&project), &cache, "first");

    common::tick(&root);
    let body = fs::read_to_string(&timeline).unwrap();
    let half: String = body.lines().take(10).map(|l| format!("{l}\n")).collect();
    fs::write(&timeline, &half).unwrap();
    let d = same(&root, Some(&project), &cache, "truncated");
    assert_eq!(timeline_of(&d, "p-restock").len(), 10);

    // Replaced by rename: a new inode, larger than before.
    common::tick(&root);
    let mut longer = half.clone();
    for i in 0..20 {
        longer.push_str(&event(i));
    }
    fs::write(project.join("timeline.tmp"), &longer).unwrap();
    fs::rename(project.join("timeline.tmp"), &timeline).unwrap();
    let d = same(&root, Some(&project), &cache, "replaced");
    assert_eq!(timeline_of(&d, "p-restock").last().unwrap(), "step 19");

    // project.json replaced by rename.
    common::tick(&root);
    let meta = fs::read_to_string(project.join("project.json")).unwrap();
    fs::write(project.join("p.tmp"), meta.replace("FBA", "XYZ")).unwrap();
    fs::rename(project.join("p.tmp"), project.join("project.json")).unwrap();
    let d = same(&root, Some(&project), &cache, "project.json replaced");
    let p = d
        .projects
        .iter()
        .find(|p| p.id.ends_with("p-restock"))
        .unwrap();
    assert!(p.name.contains("XYZ"), "{}", p.name);
}

/// Same size, mtime put back: only the content (and the ctime) changed.
#[test]
fn a_rewrite_at_the_same_size_with_the_mtime_restored_is_seen() {
    let (_tmp, root, project) = devloop();
    let cache = cache();
    same(&root, Some(&project), &cache, "first");
    for file in [
        "project.json",
        "timeline.ndjson",
        "bugs.ndjson",
        "units.json",
    ] {
        let path = project.join(file);
        let mtime = fs::metadata(&path).unwrap().modified().unwrap();
        let body = fs::read_to_string(&path).unwrap();
        // Same length: swap two ASCII letters that occur in it.
        let changed = body.replacen("e", "a", 3);
        assert_eq!(changed.len(), body.len());
        assert_ne!(changed, body, "{file}");
        common::tick(&root);
        fs::write(&path, &changed).unwrap();
        fs::File::options()
            .append(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        same(&root, Some(&project), &cache, file);
    }
}

#[test]
fn a_project_deleted_and_recreated_reads_as_fresh() {
    let (_tmp, root, project) = devloop();
    let cache = cache();
    same(&root, Some(&project), &cache, "first");
    let saved = tempfile::tempdir().unwrap();
    copy_dir(&project, saved.path());
    common::tick(&root);
    fs::remove_dir_all(&project).unwrap();
    let d = same(&root, None, &cache, "deleted");
    assert!(!d.projects.iter().any(|p| p.id.ends_with("p-restock")));
    copy_dir(saved.path(), &project);
    // Recreated with other content at the same sizes, mtimes and all.
    let timeline = project.join("timeline.ndjson");
    let body = fs::read_to_string(&timeline).unwrap();
    fs::write(&timeline, body.replacen("started", "stopped", 5)).unwrap();
    same(&root, Some(&project), &cache, "recreated");
}

#[test]
fn what_vanished_leaves_nothing_in_the_cache() {
    let (_tmp, root, _project) = devloop();
    let gsd = repo().join("examples/workspace/gsd/paused-waiting");
    let cache = cache();
    same(&root, None, &cache, "first");
    let base = cache.len();
    for round in 0..3 {
        for i in 0..20 {
            copy_dir(&gsd, &root.join(format!("extra-{round}-{i}")));
            copy_dir(
                &root.join("data/companies/acme/projects/p-shipped"),
                &root.join(format!("data/companies/acme/projects/x-{round}-{i}")),
            );
        }
        same(&root, None, &cache, "with extra projects");
        assert!(cache.len() > base + 20, "{} vs {base}", cache.len());
        for i in 0..20 {
            fs::remove_dir_all(root.join(format!("extra-{round}-{i}"))).unwrap();
            fs::remove_dir_all(root.join(format!("data/companies/acme/projects/x-{round}-{i}")))
                .unwrap();
        }
        same(&root, None, &cache, "extra projects removed");
        assert_eq!(cache.len(), base, "round {round}");
    }
    // A partial reading drops what vanished under its directory only.
    let project = root.join("data/companies/acme/projects/p-shipped");
    read_under_cached(&root, &project, false, &cache);
    fs::remove_dir_all(&project).unwrap();
    read_under_cached(&root, &project, false, &cache);
    assert!(cache.len() < base, "{} vs {base}", cache.len());
}

/// Bug lines appended at random — new bugs, transitions with and without
/// a status history, lines that are not bugs, blank lines, lines cut
/// anywhere — past the 1,000 bugs listed in full: after each append the
/// cached reading (read on from the last offset) equals a fresh scan.
#[test]
fn random_bug_appends_read_as_a_fresh_scan() {
    let (_tmp, root, project) = devloop();
    let bugs = project.join("bugs.ndjson");
    let mut seed = 11u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    let statuses = ["open", "fixing", "fixed", "verified", "wontfix", "reopened"];
    let line = |next: &mut dyn FnMut() -> usize| -> String {
        let id = next() % 1100;
        let status = statuses[next() % statuses.len()];
        match next() % 12 {
            0 => "not a bug\n".to_owned(),
            1 => "\n".to_owned(),
            2 => format!("{{\"id\":\"BUG-{id}\",\"title\":7}}\n"),
            3 => format!(
                "{{\"id\":\"BUG-{id}\",\"status\":\"{status}\",\"status_history\":[{{\"from\":\"open\",\"to\":\"{status}\",\"by\":\"coder\"}}]}}\n"
            ),
            _ => format!(
                "{{\"id\":\"BUG-{id}\",\"status\":\"{status}\",\"severity\":\"high\",\"title\":\"bug {id}\"}}\n"
            ),
        }
    };
    let mut body = String::new();
    for _ in 0..3000 {
        body.push_str(&line(&mut next));
    }
    fs::write(&bugs, &body).unwrap();
    let cache = cache();
    same(&root, Some(&project), &cache, "first");
    for step in 0..30 {
        let mut text = String::new();
        for _ in 0..(next() % 6) {
            text.push_str(&line(&mut next));
        }
        let cut = next() % (text.len() + 1);
        common::tick(&root);
        append(&bugs, &text.as_bytes()[..cut]);
        same(&root, None, &cache, &format!("step {step}, torn"));
        common::tick(&root);
        let before = cache.bytes_read();
        let rest = &text.as_bytes()[cut..];
        append(&bugs, rest);
        same(&root, Some(&project), &cache, &format!("step {step}"));
        // Only the appended bytes, the torn line's bytes before them and
        // the 32 before that (all checked unchanged) were read.
        let torn = &text.as_bytes()[..cut];
        let pending = torn.len() - torn.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let want = if rest.is_empty() {
            0
        } else {
            rest.len() + pending + 32
        };
        assert_eq!(cache.bytes_read() - before, want as u64, "step {step}");
    }
}

/// Reading a project that holds another (a root that is itself a
/// project) keeps what the cache holds for the one inside it.
#[test]
fn reading_one_project_keeps_the_cache_of_the_projects_inside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("outer");
    let prd = repo().join("examples/workspace/prd-master/fba-smart-restock");
    copy_dir(&prd, &root);
    copy_dir(&prd, &root.join("inner"));
    let cache = cache();
    let d = same(&root, Some(&root), &cache, "first");
    assert_eq!(d.projects.len(), 2);
    let held = cache.len();
    assert!(held >= 2, "{held}");
    read_under_cached(&root, &root, false, &cache);
    assert_eq!(cache.len(), held);
    // The inner project removed: a reading of the outer one alone does
    // not know; a reading of the tree drops it.
    fs::remove_dir_all(root.join("inner")).unwrap();
    read_under_cached(&root, &root, true, &cache);
    assert!(cache.len() < held, "{} vs {held}", cache.len());
}

/// The parses a cache keeps stay within its budget, least recently used
/// out first, and what it dropped is read again: the reading is the same
/// whatever the budget, only the work differs.
#[test]
fn a_budget_drops_parses_never_readings() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    copy_dir(&repo().join("examples/workspace"), &root);
    tick(tmp.path());
    let roomy = ReadCache::with_budget(Duration::ZERO, u64::MAX);
    let tight = ReadCache::with_budget(Duration::ZERO, 4096);
    for cache in [&roomy, &tight] {
        same(&root, None, cache, "first");
        same(&root, None, cache, "second");
    }
    // Every state file's parse was kept by the roomy cache and reused on
    // the second reading; the tight one kept a few kilobytes' worth.
    assert!(roomy.reused() > 20, "roomy reused {}", roomy.reused());
    assert!(
        tight.reused() * 3 < roomy.reused(),
        "tight reused {} of roomy's {}",
        tight.reused(),
        roomy.reused()
    );
    assert!(tight.len() < roomy.len(), "{} {}", tight.len(), roomy.len());
    // A project changed after the tight cache dropped its parse: read anew.
    let prd = root.join("prd-master/fba-smart-restock/state.json");
    let text = fs::read_to_string(&prd).unwrap();
    fs::write(&prd, text.replace("fba-smart-restock", "renamed-restock")).unwrap();
    tick(tmp.path());
    let after = same(&root, None, &tight, "after a change");
    assert!(after.projects.iter().any(|p| p.name == "renamed-restock"));
}
