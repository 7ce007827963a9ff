//! Hostile logs read through one `ReadCache`: lines that cross the
//! timeline's byte budget, lines longer than it, torn tails, blank and
//! garbage lines, in random order. After every write the cached reading
//! must equal a fresh one, byte for byte in JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{copy_dir, repo};
use loopdeck_core::formats::discover_cached;
use loopdeck_core::read::{Discovery, discover};
use loopdeck_core::store::cache::ReadCache;

fn text(d: &Discovery) -> String {
    serde_json::to_string_pretty(&(&d.projects, &d.problems)).unwrap()
}

fn same(root: &Path, cache: &ReadCache, what: &str) {
    let roots = [root.to_path_buf()];
    let cached = discover_cached(&roots, cache);
    let fresh = discover(&roots);
    let (c, f) = (text(&cached), text(&fresh));
    if c != f {
        let diff: Vec<String> = c
            .lines()
            .zip(f.lines())
            .filter(|(a, b)| a != b)
            .take(6)
            .map(|(a, b)| format!("cached {a}\n fresh {b}"))
            .collect();
        panic!("{what}: cached != fresh\n{}", diff.join("\n"));
    }
    assert!(cached.projects == fresh.projects, "{what}");
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

fn devloop() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("devloop");
    copy_dir(&repo().join("examples/workspace/devloop"), &root);
    let project = root.join("data/companies/acme/projects/p-restock");
    (tmp, root, project)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }
}

fn event(i: usize, pad: usize) -> String {
    format!(
        "{{\"ts\":\"2026-06-01T12:{:02}:{:02}Z\",\"source\":\"dev-agent\",\"kind\":\"unit_passed\",\"ref\":\"unit/U-{i}\",\"summary\":\"step {i} {}\"}}\n",
        (i / 60) % 60,
        i % 60,
        "x".repeat(pad)
    )
}

/// A line of a hostile timeline: mostly small events, some blank or
/// garbage, some big enough that a few of them cross the 1 MiB budget,
/// some longer than the budget itself.
fn line(rng: &mut Rng, i: usize) -> String {
    match rng.next() % 20 {
        0 => "\n".to_owned(),
        1 => "not json at all\n".to_owned(),
        2 | 3 => event(i, 150_000 + rng.next() % 200_000),
        4 => event(i, 1024 * 1024 + rng.next() % 1000),
        5 => format!("{}\n", "y".repeat(1024 * 1024 - 1 + rng.next() % 3)),
        _ => event(i, rng.next() % 100),
    }
}

fn hostile(file: &str, seed: u64, steps: usize) {
    let (_tmp, root, project) = devloop();
    let log = project.join(file);
    let cache = ReadCache::with_racy_window(Duration::ZERO);
    same(&root, &cache, "first");
    let mut rng = Rng(seed);
    let mut n = 0;
    for step in 0..steps {
        let mut text = String::new();
        for _ in 0..(1 + rng.next() % 4) {
            n += 1;
            text.push_str(&line(&mut rng, n));
        }
        let cut = rng.next() % (text.len() + 1);
        common::tick(&root);
        append(&log, &text.as_bytes()[..cut]);
        same(&root, &cache, &format!("{file} step {step}, torn at {cut}"));
        common::tick(&root);
        append(&log, &text.as_bytes()[cut..]);
        same(&root, &cache, &format!("{file} step {step}"));
    }
}

#[test]
fn a_timeline_with_lines_across_its_byte_budget_reads_as_fresh() {
    hostile("timeline.ndjson", 7, 40);
}

#[test]
fn a_changelog_with_lines_across_its_byte_budget_reads_as_fresh() {
    hostile("changelog.ndjson", 13, 40);
}

/// A writer whose bug lines never parse (here `severity` is a number):
/// a reading through the cache equals a fresh one, first and after each
/// append. (What the bug fold holds in memory is `tests/bounds_bugs.rs`'s.)
#[test]
fn a_bug_log_whose_lines_never_parse_reads_as_fresh() {
    let (_tmp, root, project) = devloop();
    let bugs = project.join("bugs.ndjson");
    let mut body = String::new();
    for i in 0..150_000 {
        body.push_str(&format!(
            "{{\"id\":\"BUG-{}\",\"status\":\"open\",\"severity\":2,\"title\":\"t {i}\"}}\n",
            i % 3
        ));
    }
    fs::write(&bugs, &body).unwrap();
    let cache = ReadCache::with_racy_window(Duration::ZERO);
    same(&root, &cache, "first");
    common::tick(&root);
    append(
        &bugs,
        b"{\"id\":\"BUG-1\",\"status\":\"fixed\",\"severity\":\"high\"}\n",
    );
    same(&root, &cache, "appended");
    common::tick(&root);
    append(
        &bugs,
        b"{\"id\":\"BUG-1\",\"status\":\"open\",\"severity\":3}\n",
    );
    same(&root, &cache, "appended again");
}

/// A writer that died mid-line, and the next one cutting the torn tail
/// off (back to the last newline) before appending a record of its own:
/// the file grew, and its last 32 bytes before the old end are the same
/// (the records end alike), but the line there is a new one.
#[test]
fn a_torn_tail_cut_off_and_replaced_by_a_longer_record_reads_as_fresh() {
    for file in ["timeline.ndjson", "bugs.ndjson"] {
        let (_tmp, root, project) = devloop();
        let log = project.join(file);
        let record = |who: &str| match file {
            "bugs.ndjson" => format!(
                "{{\"id\":\"BUG-{who}\",\"status\":\"open\",\"severity\":\"high\",\"title\":\"{}\"}}\n",
                "x".repeat(120)
            ),
            _ => format!(
                "{{\"ts\":\"2026-06-01T12:00:00Z\",\"source\":\"dev-agent\",\"kind\":\"unit_passed\",\"summary\":\"by {who}: {}\"}}\n",
                "x".repeat(120)
            ),
        };
        let cache = ReadCache::with_racy_window(Duration::ZERO);
        same(&root, &cache, "first");
        let before = fs::metadata(&log).unwrap().len();
        // The first writer dies 20 bytes before the end of its record.
        let first = record("first");
        common::tick(&root);
        append(&log, &first.as_bytes()[..first.len() - 20]);
        same(&root, &cache, &format!("{file}: torn"));
        // The next one cuts the torn tail off and writes a longer record
        // that ends as the first would have.
        common::tick(&root);
        let f = fs::OpenOptions::new().write(true).open(&log).unwrap();
        f.set_len(before).unwrap();
        drop(f);
        append(&log, record("second writer").as_bytes());
        same(&root, &cache, &format!("{file}: cut off and replaced"));
    }
}

/// Bug lines at the line limit (4 MiB) and one byte over it, whole and
/// torn, appended to a log read through the cache.
#[test]
fn bug_lines_at_the_line_limit_read_as_fresh() {
    let (_tmp, root, project) = devloop();
    let bugs = project.join("bugs.ndjson");
    let cache = ReadCache::with_racy_window(Duration::ZERO);
    same(&root, &cache, "first");
    let limit = 4 * 1024 * 1024;
    for (i, len) in [limit - 1, limit, limit + 1, limit + 2]
        .into_iter()
        .enumerate()
    {
        let head = format!("{{\"id\":\"BUG-L{i}\",\"status\":\"open\",\"title\":\"");
        let pad = len - head.len() - 2;
        let line = format!("{head}{}\"}}\n", "t".repeat(pad));
        assert_eq!(line.len(), len + 1);
        let cut = line.len() / 2;
        common::tick(&root);
        append(&bugs, &line.as_bytes()[..cut]);
        same(&root, &cache, &format!("{len}: torn"));
        common::tick(&root);
        append(&bugs, &line.as_bytes()[cut..]);
        same(&root, &cache, &format!("{len}: whole"));
        common::tick(&root);
        append(&bugs, b"{\"id\":\"BUG-1\",\"status\":\"fixed\"}\n");
        same(&root, &cache, &format!("{len}: and a short one"));
    }
}

/// Known limit, not fixed: a log rewritten in place (same inode, opened
/// with O_TRUNC) to a larger size, with an earlier line edited and the
/// last 32 bytes before the old end unchanged, is taken for an append (the
/// issue's rule: same inode, not smaller). Run with `--ignored` to see it.
#[test]
#[ignore = "known limit: an in-place rewrite that grows the file and keeps its old end bytes reads as an append"]
fn a_log_rewritten_in_place_with_an_earlier_line_edited_reads_as_fresh() {
    let (_tmp, root, project) = devloop();
    let log = project.join("timeline.ndjson");
    let cache = ReadCache::with_racy_window(Duration::ZERO);
    same(&root, &cache, "first");
    let body = fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = body.lines().collect();
    let n = lines.len();
    let mut rewritten: String = lines[..n - 2].iter().map(|l| format!("{l}\n")).collect();
    // The second-to-last event's summary edited (same length), the last
    // one unchanged, one more appended.
    let prev = lines[n - 2].replacen("\"summary\":\"coder", "\"summary\":\"CODER", 1);
    assert_ne!(prev, lines[n - 2]);
    rewritten.push_str(&format!("{prev}\n{}\n", lines[n - 1]));
    rewritten.push_str(&event(9000, 0));
    common::tick(&root);
    fs::write(&log, &rewritten).unwrap();
    same(&root, &cache, "rewritten in place");
}
