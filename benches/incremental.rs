//! Incremental reads, cached vs uncached, each measured in one run:
//! 1. one devloop project whose `timeline.ndjson` holds 100,000 lines,
//!    read again after 10 lines are appended (`read_under_cached` with one
//!    `ReadCache` vs `read_under`);
//! 2. a 1,000-project workspace (the example projects of every format,
//!    repeated) read again after one project was touched
//!    (`discover_cached` vs `discover`).
//!
//! Run: `cargo bench --bench incremental`. Prints the median and p95 of
//! each and the ratio. The files are made, then left to age past the
//! cache's racy window (`store::cache::RACY`), as a console's files are
//! between an agent's writes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loopdeck_core::formats::{discover_cached, read_under_cached};
use loopdeck_core::read::{discover, read_under};
use loopdeck_core::store::cache::{RACY, ReadCache};

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {to:?}: {e}"));
    for e in fs::read_dir(from).unwrap_or_else(|e| panic!("{from:?}: {e}")) {
        let e = e.unwrap_or_else(|e| panic!("{e}"));
        let target = to.join(e.file_name());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

fn append(path: &Path, text: &str) {
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{path:?}: {e}"));
    f.write_all(text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
}

fn event(i: usize) -> String {
    format!(
        "{{\"ts\":\"2026-06-01T12:00:00Z\",\"source\":\"dev-agent\",\"kind\":\"unit_passed\",\"ref\":\"unit/U-{}\",\"summary\":\"step {i} of the long run, with a summary of ordinary length\"}}\n",
        i % 40
    )
}

struct Stats {
    median: Duration,
    p95: Duration,
}

fn stats(mut v: Vec<Duration>) -> Stats {
    v.sort();
    Stats {
        median: v[v.len() / 2],
        p95: v[(v.len() * 95 / 100).min(v.len() - 1)],
    }
}

fn report(what: &str, cached: Stats, fresh: Stats) {
    println!(
        "{what}\n  cached:   median {:>9.3} ms  p95 {:>9.3} ms\n  uncached: median {:>9.3} ms  p95 {:>9.3} ms\n  ratio (uncached / cached, medians): {:.1}x",
        cached.median.as_secs_f64() * 1e3,
        cached.p95.as_secs_f64() * 1e3,
        fresh.median.as_secs_f64() * 1e3,
        fresh.p95.as_secs_f64() * 1e3,
        fresh.median.as_secs_f64() / cached.median.as_secs_f64().max(1e-9),
    );
}

fn age() {
    std::thread::sleep(RACY + Duration::from_millis(500));
}

fn main() {
    let only_cached = std::env::var_os("INCREMENTAL_ONLY_CACHED").is_some();
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/workspace");
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));

    // 1. A devloop project with a 100,000-line timeline.
    let root = tmp.path().join("devloop");
    copy_dir(&examples.join("devloop"), &root);
    let project = root.join("data/companies/acme/projects/p-restock");
    let timeline = project.join("timeline.ndjson");
    let body: String = (0..100_000).map(event).collect();
    fs::write(&timeline, body).unwrap_or_else(|e| panic!("{e}"));
    age();
    let cache = ReadCache::new();
    read_under_cached(&root, &project, false, &cache);
    let rounds = 200;
    let (mut cached, mut fresh) = (Vec::new(), Vec::new());
    let mut n = 100_000;
    let mut read = Vec::new();
    for _ in 0..rounds {
        let ten: String = (n..n + 10).map(event).collect();
        n += 10;
        append(&timeline, &ten);
        let before = cache.bytes_read();
        let t = Instant::now();
        let c = read_under_cached(&root, &project, false, &cache);
        cached.push(t.elapsed());
        read.push(cache.bytes_read() - before);
        if only_cached {
            continue;
        }
        let t = Instant::now();
        let f = read_under(&root, &project, false);
        fresh.push(t.elapsed());
        assert_eq!(c.projects, f.projects, "cached reading differs");
    }
    if only_cached {
        // For a system-call count of the cached re-reads alone (strace -c).
        return;
    }
    report(
        "devloop project, 100,000-line timeline, re-read after appending 10 lines (200 rounds)",
        stats(cached),
        stats(fresh),
    );
    read.sort_unstable();
    println!(
        "  bytes read per cached re-read: median {} (10 lines appended: {} bytes)",
        read[read.len() / 2],
        (n - 10..n).map(|i| event(i).len()).sum::<usize>()
    );

    // 1b. The same project with a 100,000-line bugs.ndjson (5,000 bugs).
    let bugs = project.join("bugs.ndjson");
    let bug = |i: usize| {
        let status = ["open", "fixing", "fixed", "verified"][(i / 5000) % 4];
        // Each line carries the bug's history, as devloop writes it.
        format!(
            "{{\"id\":\"BUG-{:04}\",\"status\":\"{status}\",\"severity\":\"high\",\"title\":\"bug {} in the restock job\",\"unit_id\":\"U-01\",\"status_history\":[{{\"from\":\"open\",\"to\":\"{status}\",\"by\":\"coder\"}}]}}\n",
            i % 5000,
            i % 5000
        )
    };
    let body: String = (0..100_000).map(bug).collect();
    fs::write(&bugs, body).unwrap_or_else(|e| panic!("{e}"));
    age();
    read_under_cached(&root, &project, false, &cache);
    let (mut cached, mut fresh) = (Vec::new(), Vec::new());
    let mut n = 100_000;
    let mut read = Vec::new();
    for _ in 0..50 {
        let ten: String = (n..n + 10).map(bug).collect();
        n += 10;
        append(&bugs, &ten);
        let before = cache.bytes_read();
        let t = Instant::now();
        let c = read_under_cached(&root, &project, false, &cache);
        cached.push(t.elapsed());
        read.push(cache.bytes_read() - before);
        let t = Instant::now();
        let f = read_under(&root, &project, false);
        fresh.push(t.elapsed());
        assert_eq!(c.projects, f.projects, "cached reading differs");
    }
    report(
        "devloop project, 100,000-line bugs.ndjson (5,000 bugs), re-read after appending 10 lines (50 rounds)",
        stats(cached),
        stats(fresh),
    );
    read.sort_unstable();
    println!(
        "  bytes read per cached re-read: median {} (10 lines appended: {} bytes; file {} bytes)",
        read[read.len() / 2],
        (n - 10..n).map(|i| bug(i).len()).sum::<usize>(),
        fs::metadata(&bugs).map_or(0, |m| m.len())
    );

    // 2. 1,000 projects, one touched.
    let ws = tmp.path().join("ws");
    let mut sources: Vec<PathBuf> = Vec::new();
    for format in ["gsd", "prd-master", "dwp"] {
        for e in fs::read_dir(examples.join(format)).unwrap_or_else(|e| panic!("{e}")) {
            let p = e.unwrap_or_else(|e| panic!("{e}")).path();
            if p.is_dir() {
                sources.push(p);
            }
        }
    }
    let devloop_projects = examples.join("devloop/data/companies/acme/projects");
    let devloop_count = 1000 / (sources.len() + 3) * 3;
    for i in 0..devloop_count {
        let names = ["p-restock", "p-shipped", "p-over-budget"];
        copy_dir(
            &devloop_projects.join(names[i % 3]),
            &ws.join(format!("devloop/data/companies/acme/projects/p{i}")),
        );
    }
    let mut i = 0;
    while devloop_count + i < 1000 {
        let src = &sources[i % sources.len()];
        copy_dir(src, &ws.join(format!("p{i}")));
        i += 1;
    }
    let roots = [ws.clone()];
    let total = discover(&roots).projects.len();
    age();
    let cache = ReadCache::new();
    discover_cached(&roots, &cache);
    let touched = ws.join("devloop/data/companies/acme/projects/p0/timeline.ndjson");
    let (mut cached, mut fresh) = (Vec::new(), Vec::new());
    for round in 0..15 {
        append(&touched, &event(round));
        let t = Instant::now();
        let c = discover_cached(&roots, &cache);
        cached.push(t.elapsed());
        let t = Instant::now();
        let f = discover(&roots);
        fresh.push(t.elapsed());
        assert_eq!(c.projects, f.projects, "cached reading differs");
    }
    report(
        &format!(
            "workspace of {total} projects, re-read after one project's timeline grew (15 rounds)"
        ),
        stats(cached),
        stats(fresh),
    );
    println!("  entries kept by the cache: {}", cache.len());
}
