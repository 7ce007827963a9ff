use std::io::Write;
use std::path::Path;

use super::tail_in;
use crate::store::cache::ReadCache;
use crate::store::ndjson::{ReverseLines, Tail, collect_tail};

/// A line is an item when it parses as a number.
fn parse(l: &[u8]) -> Option<u64> {
    std::str::from_utf8(l).ok()?.trim().parse().ok()
}

fn fresh(dir: &Path, items: usize, budget: u64) -> Tail<u64> {
    collect_tail(
        ReverseLines::open_in(dir, "log.ndjson", budget)
            .unwrap()
            .with_chunk(7),
        items,
        parse,
    )
    .unwrap()
}

fn cached(cache: &ReadCache, dir: &Path, items: usize, budget: u64) -> Tail<u64> {
    let pass = cache.begin_pass();
    cache.enter(pass, || {
        tail_in(dir, "log.ndjson", items, budget, 7, parse).unwrap()
    })
}

fn same(a: &Tail<u64>, b: &Tail<u64>, what: &str) {
    assert_eq!(
        (&a.items, a.skipped, a.torn),
        (&b.items, b.skipped, b.torn),
        "{what}"
    );
}

/// Appends of whole lines, half lines, blank and garbage lines, in pieces
/// cut anywhere: after each, the cached tail equals a fresh one, for
/// windows bounded by the item count and by the byte budget.
#[test]
fn appends_cut_anywhere_read_as_a_fresh_tail() {
    for (items, budget) in [(5, 1_000_000), (3, 40), (1000, 64), (4, 25)] {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("log.ndjson");
        std::fs::write(&path, "").unwrap();
        let cache = ReadCache::new();
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 33
        };
        for step in 0..300 {
            let mut text = String::new();
            for _ in 0..(next() % 4) {
                match next() % 5 {
                    0 => text.push_str("garbage\n"),
                    1 => text.push_str("  \n"),
                    _ => text.push_str(&format!("{}\n", next() % 100_000)),
                }
            }
            // Cut anywhere: a torn tail, completed by the next step.
            let cut = (next() as usize) % (text.len() + 1);
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(&text.as_bytes()[..cut]).unwrap();
            drop(f);
            let c = cached(&cache, tmp.path(), items, budget);
            same(
                &c,
                &fresh(tmp.path(), items, budget),
                &format!("{items}/{budget} step {step}"),
            );
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(&text.as_bytes()[cut..]).unwrap();
        }
    }
}

/// An append reads only the appended bytes (and the 32 before them,
/// checked to be unchanged).
#[test]
fn an_append_reads_only_the_new_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("log.ndjson");
    let body: String = (0..10_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(&path, &body).unwrap();
    let cache = ReadCache::new();
    cached(&cache, tmp.path(), 50, 1 << 20);
    let before = cache.bytes_read();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"123456\n").unwrap();
    drop(f);
    let t = cached(&cache, tmp.path(), 50, 1 << 20);
    assert_eq!(cache.bytes_read() - before, 7 + 32);
    assert_eq!(t.items.last(), Some(&123_456));
    same(&t, &fresh(tmp.path(), 50, 1 << 20), "after append");
}

/// Truncation, replacement by rename and a rewrite at the same size read
/// afresh.
#[test]
fn truncated_replaced_or_rewritten_files_read_afresh() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let path = dir.join("log.ndjson");
    let cache = ReadCache::new();
    std::fs::write(&path, "1\n2\n3\n").unwrap();
    cached(&cache, dir, 10, 1000);
    std::fs::write(&path, "4\n").unwrap();
    same(
        &cached(&cache, dir, 10, 1000),
        &fresh(dir, 10, 1000),
        "truncated",
    );
    std::fs::write(dir.join("new"), "5\n6\n7\n8\n").unwrap();
    std::fs::rename(dir.join("new"), &path).unwrap();
    same(
        &cached(&cache, dir, 10, 1000),
        &fresh(dir, 10, 1000),
        "replaced",
    );
    let f = std::fs::File::open(&path).unwrap();
    let mtime = f.metadata().unwrap().modified().unwrap();
    drop(f);
    std::fs::write(&path, "9\n8\n7\n6\n").unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    let t = cached(&cache, dir, 10, 1000);
    assert_eq!(t.items, [9, 8, 7, 6]);
    same(&t, &fresh(dir, 10, 1000), "rewritten at the same size");
}
