//! What `--dry-run` prints: a unified diff per file (`--- a/FILE`,
//! `+++ b/FILE`, 3 lines of context; `/dev/null` for a file created or
//! removed). An NDJSON append is shown as the one hunk of its line, never
//! by diffing the whole (possibly huge) file.

use std::collections::HashMap;
use std::io::Read;
use std::ops::Range;
use std::path::Path;

use super::StoreError;
use super::atomic::open_regular;

use similar::TextDiff;

testing_pub!(
    /// The unified diff of `file` from `before` to `after` (`None`: absent).
    /// Only the regions that differ (found by walking both files line by line,
    /// see [`regions`]) are compared, each with its context, and their hunks'
    /// line numbers moved to where the region is: a change in a large file
    /// costs the change, not a line index of the whole file twice.
    pub fn unified(file: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> String {
        let (old, new) = (before.unwrap_or_default(), after.unwrap_or_default());
        let a = if before.is_some() {
            format!("a/{file}")
        } else {
            "/dev/null".to_owned()
        };
        let b = if after.is_some() {
            format!("b/{file}")
        } else {
            "/dev/null".to_owned()
        };
        let mut out = format!("--- {a}\n+++ {b}\n");
        for r in regions(old, new) {
            let (o, n) = (
                String::from_utf8_lossy(&old[r.old.clone()]),
                String::from_utf8_lossy(&new[r.new.clone()]),
            );
            let hunks = TextDiff::from_lines(o.as_ref(), n.as_ref())
                .unified_diff()
                .context_radius(CONTEXT)
                .to_string();
            for line in hunks.split_inclusive('\n') {
                match hunk_header(line, r.old_line, r.new_line) {
                    Some(moved) => out.push_str(&moved),
                    None => out.push_str(line),
                }
            }
        }
        out
    }
);

/// Lines of context around a change.
const CONTEXT: usize = 3;
/// Equal lines that end a changed region: more than two contexts, so the
/// hunks of two regions never touch.
const RESYNC: usize = 2 * CONTEXT + 1;

/// A part of both files that differs, with its context: byte ranges, and
/// the line number (from 0) each starts at.
#[derive(Debug, PartialEq, Eq)]
struct Region {
    old: Range<usize>,
    new: Range<usize>,
    old_line: usize,
    new_line: usize,
}

/// The line of `b` starting at byte `at`, its newline included (empty at
/// the end).
fn line_at(b: &[u8], at: usize) -> &[u8] {
    let rest = &b[at.min(b.len())..];
    match rest.iter().position(|&c| c == b'\n') {
        Some(i) => &rest[..=i],
        None => rest,
    }
}

/// Up to `n` lines of `b` from byte `at`.
fn lines_from(b: &[u8], at: usize, n: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = at;
    while out.len() < n && i < b.len() {
        let l = line_at(b, i);
        i += l.len();
        out.push(l);
    }
    out
}

/// The regions where `old` and `new` differ. Equal lines are walked in
/// step; at a difference, windows of lines (growing until one is found,
/// up to the rest of both files) are searched for the nearest place where
/// [`RESYNC`] lines agree again, or both files end alike.
fn regions(old: &[u8], new: &[u8]) -> Vec<Region> {
    let mut bare: Vec<Region> = Vec::new();
    let (mut o, mut n, mut ol, mut nl) = (0, 0, 0, 0);
    loop {
        loop {
            let (a, b) = (line_at(old, o), line_at(new, n));
            if a.is_empty() || a != b {
                break;
            }
            o += a.len();
            n += b.len();
            ol += 1;
            nl += 1;
        }
        if o >= old.len() && n >= new.len() {
            break;
        }
        let mut window = 256;
        let (i, j, ow, nw) = loop {
            let ow = lines_from(old, o, window);
            let nw = lines_from(new, n, window);
            let o_all = o + ow.iter().map(|l| l.len()).sum::<usize>() >= old.len();
            let n_all = n + nw.iter().map(|l| l.len()).sum::<usize>() >= new.len();
            if let Some((i, j)) = resync(&ow, &nw, o_all && n_all) {
                break (i, j, ow, nw);
            }
            if o_all && n_all {
                let (i, j) = (ow.len(), nw.len());
                break (i, j, ow, nw);
            }
            window *= 4;
        };
        let ob: usize = ow[..i].iter().map(|l| l.len()).sum();
        let nb: usize = nw[..j].iter().map(|l| l.len()).sum();
        bare.push(Region {
            old: o..o + ob,
            new: n..n + nb,
            old_line: ol,
            new_line: nl,
        });
        o += ob;
        n += nb;
        ol += i;
        nl += j;
    }
    // Each region with its context (equal lines on both sides).
    let mut out: Vec<Region> = Vec::with_capacity(bare.len());
    for r in bare {
        let mut before = 0;
        let (mut os, mut ns) = (r.old.start, r.new.start);
        while before < CONTEXT && os > 0 {
            os = old[..os - 1]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
            ns = new[..ns - 1]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
            before += 1;
        }
        let (mut oe, mut ne) = (r.old.end, r.new.end);
        for _ in 0..CONTEXT {
            oe += line_at(old, oe).len();
            ne += line_at(new, ne).len();
        }
        let wide = Region {
            old: os..oe,
            new: ns..ne,
            old_line: r.old_line - before,
            new_line: r.new_line - before,
        };
        match out.last_mut() {
            // Touching its neighbour (never, past RESYNC lines): one.
            Some(last) if last.old.end >= wide.old.start => {
                last.old.end = wide.old.end;
                last.new.end = wide.new.end;
            }
            _ => out.push(wide),
        }
    }
    out
}

/// The nearest `(i, j)` (least `i + j`) where `ow[i..]` and `nw[j..]`
/// agree for [`RESYNC`] lines, or (when `ends`: the windows reach both
/// files' ends) agree to the end.
fn resync(ow: &[&[u8]], nw: &[&[u8]], ends: bool) -> Option<(usize, usize)> {
    let mut at: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (j, l) in nw.iter().enumerate() {
        at.entry(l).or_default().push(j);
    }
    let agree = |i: usize, j: usize| {
        let k = RESYNC.min(ow.len() - i).min(nw.len() - j);
        let full = k == RESYNC || (ends && ow.len() - i == nw.len() - j);
        full && k > 0 && ow[i..i + k] == nw[j..j + k]
    };
    let mut best: Option<(usize, usize)> = None;
    for (i, l) in ow.iter().enumerate() {
        if best.is_some_and(|(bi, bj)| i > bi + bj) {
            break;
        }
        for &j in at.get(l).into_iter().flatten() {
            if (i, j) != (0, 0) && best.is_none_or(|(bi, bj)| i + j < bi + bj) && agree(i, j) {
                best = Some((i, j));
            }
        }
    }
    best
}

/// A hunk header moved to where its region is: `@@ -a,b +c,d @@` gets
/// `a + old` and `c + new` (a start of 0, an empty range at the start of
/// a file, stays).
fn hunk_header(line: &str, old: usize, new: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, after) = rest.split_once(" @@")?;
    let (o, n) = ranges.split_once(" +")?;
    let shift = |r: &str, by: usize| -> Option<String> {
        let (start, count) = match r.split_once(',') {
            Some((s, c)) => (s, Some(c)),
            None => (r, None),
        };
        let start: usize = start.parse().ok()?;
        let moved = if start == 0 { 0 } else { start + by };
        Some(match count {
            Some(c) => format!("{moved},{c}"),
            None => moved.to_string(),
        })
    };
    Some(format!(
        "@@ -{} +{} @@{after}",
        shift(o, old)?,
        shift(n, new)?
    ))
}

testing_pub!(
    /// How a file ends, for an append's hunk: its number of newlines and the
    /// bytes after the last one (a torn tail).
    #[derive(Debug, Default, PartialEq, Eq)]
    pub struct Ending {
        /// How many newlines the file holds.
        pub newlines: usize,
        /// The bytes after its last newline (all of it without one).
        pub tail: Vec<u8>,
    }
);

impl Ending {
    testing_pub!(
        /// The ending of `bytes`.
        pub fn of(bytes: &[u8]) -> Self {
            let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
            let tail = match bytes.iter().rposition(|&b| b == b'\n') {
                Some(i) => bytes[i + 1..].to_vec(),
                None => bytes.to_vec(),
            };
            Ending { newlines, tail }
        }
    );

    testing_pub!(
        /// The ending of the regular file at `path`, read in chunks (a missing
        /// file: empty). A FIFO, a device or a link is refused, never waited on
        /// (see [`open_regular`]).
        pub fn of_file(path: &Path) -> Result<Self, StoreError> {
            let Some(mut f) = open_regular(path)? else {
                return Ok(Ending::default());
            };
            let mut end = Ending::default();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    return Ok(end);
                }
                let chunk = Ending::of(&buf[..n]);
                if chunk.newlines > 0 {
                    end.newlines += chunk.newlines;
                    end.tail = chunk.tail;
                } else {
                    end.tail.extend_from_slice(&chunk.tail);
                }
            }
        }
    );
}

/// The hunk appending `line` to `file`, which ends as `end`.
pub(crate) fn append_hunk(file: &str, end: &Ending, line: &[u8]) -> String {
    let line = String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(line));
    let mut out = format!("--- a/{file}\n+++ b/{file}\n");
    if end.tail.is_empty() {
        let n = end.newlines;
        out.push_str(&format!("@@ -{n},0 +{},1 @@\n+{line}\n", n + 1));
    } else {
        // The torn last line gets its newline, then the new line follows.
        let t = end.newlines + 1;
        let tail = String::from_utf8_lossy(&end.tail);
        out.push_str(&format!(
            "@@ -{t},1 +{t},2 @@\n-{tail}\n\\ No newline at end of file\n+{tail}\n+{line}\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replace_is_a_unified_diff_with_three_lines_of_context() {
        let before = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let after = b"1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            unified("state.json", Some(before), Some(after)),
            "--- a/state.json\n+++ b/state.json\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    /// The diff of the whole, as `similar` writes it: what the trimmed
    /// comparison must give.
    fn whole(file: &str, before: &[u8], after: &[u8]) -> String {
        let (old, new) = (
            String::from_utf8_lossy(before),
            String::from_utf8_lossy(after),
        );
        TextDiff::from_lines(old.as_ref(), new.as_ref())
            .unified_diff()
            .context_radius(CONTEXT)
            .header(&format!("a/{file}"), &format!("b/{file}"))
            .to_string()
    }

    #[test]
    fn a_change_deep_in_a_large_file_is_diffed_as_the_whole_would_be() {
        let lines: Vec<String> = (0..5_000).map(|i| format!("    \"line {i}\",\n")).collect();
        let base: String = lines.concat();
        let cases: Vec<(&str, String)> = vec![
            (
                "one line changed",
                base.replace("\"line 2500\"", "\"changed\""),
            ),
            (
                "a line inserted",
                base.replace("    \"line 10\",\n", "    \"line 10\",\n    \"new\",\n"),
            ),
            ("a line removed", base.replace("    \"line 4990\",\n", "")),
            (
                "two changes apart",
                base.replace("\"line 7\"", "\"a\"")
                    .replace("\"line 4000\"", "\"b\""),
            ),
            ("the first line", base.replace("\"line 0\"", "\"first\"")),
            (
                "the last line, no newline",
                format!("{}    \"end\"", &base[..base.len() - 12]),
            ),
            ("appended", format!("{base}    \"more\",\n")),
            (
                "a changed ending",
                format!("{}X\n", &base[..base.len() - 1]),
            ),
        ];
        for (what, after) in &cases {
            let got = unified("s.json", Some(base.as_bytes()), Some(after.as_bytes()));
            assert_eq!(
                got,
                whole("s.json", base.as_bytes(), after.as_bytes()),
                "{what}"
            );
            assert!(got.contains("@@ -"), "{what}: a hunk");
        }
        let trimmed = unified("s.json", Some(base.as_bytes()), Some(cases[0].1.as_bytes()));
        assert!(trimmed.contains("@@ -2498,7 +2498,7 @@"), "{trimmed}");
    }

    #[test]
    fn real_states_and_scattered_edits_patch_back_exactly() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/prd-act");
        let read = |p: &str| std::fs::read(root.join(p)).unwrap();
        let befores = [
            read("stage1/before/state.json"),
            read("legacy/before/state.json"),
        ];
        let mut pairs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for after in ["answer", "choose", "evidence", "legacy"] {
            for before in &befores {
                pairs.push((before.clone(), read(&format!("{after}/after/state.json"))));
            }
        }
        // Lines removed, inserted and changed at scattered places, some
        // close together, in a document of repeated lines (`},`).
        let base = String::from_utf8(befores[0].clone()).unwrap().repeat(40);
        let lines: Vec<&str> = base.split_inclusive('\n').collect();
        let mut seed = 7u64;
        for round in 0..30 {
            let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
            for _ in 0..(1 + round % 6) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let at = (seed >> 33) as usize % edited.len();
                match (seed >> 20) % 3 {
                    0 => {
                        edited.remove(at);
                    }
                    1 => edited.insert(at, format!("    \"inserted {round}\",\n")),
                    _ => edited[at] = "    },\n".to_owned(),
                }
            }
            pairs.push((base.clone().into_bytes(), edited.concat().into_bytes()));
        }
        for (i, (before, after)) in pairs.iter().enumerate() {
            let diff = unified("state.json", Some(before), Some(after));
            assert_eq!(patched(before, &diff), *after, "pair {i}:\n{diff}");
            // As short as the whole file's diff, give or take where an
            // ambiguous change is placed among repeated lines.
            let want = whole("state.json", before, after);
            assert!(diff.len() <= want.len() + want.len() / 4, "pair {i}");
        }
    }

    /// `before` with the unified `diff` applied, every context and removed
    /// line checked against it and every hunk's counts against its lines.
    fn patched(before: &[u8], diff: &str) -> Vec<u8> {
        let old: Vec<&[u8]> = before.split_inclusive(|&c| c == b'\n').collect();
        let mut out: Vec<u8> = Vec::new();
        let mut at = 0; // lines of `old` used
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(h) = lines.next() {
            let ranges = h.strip_prefix("@@ -").unwrap().split(" @@").next().unwrap();
            let (o, n) = ranges.split_once(" +").unwrap();
            let count = |r: &str| -> (usize, usize) {
                match r.split_once(',') {
                    Some((s, c)) => (s.parse().unwrap(), c.parse().unwrap()),
                    None => (r.parse().unwrap(), 1),
                }
            };
            let ((os, oc), (_, nc)) = (count(o), count(n));
            let start = if oc == 0 { os } else { os - 1 };
            assert!(start >= at, "hunks in order: {h}");
            for l in &old[at..start] {
                out.extend_from_slice(l);
            }
            at = start;
            let (mut seen_old, mut seen_new) = (0, 0);
            while let Some(l) = lines.next_if(|l| !l.starts_with("@@")) {
                let (tag, text) = l.split_at(1);
                let no_newline = lines.next_if(|l| l.starts_with('\\')).is_some();
                let text = if no_newline {
                    text.strip_suffix('\n').unwrap()
                } else {
                    text
                };
                if tag != "+" {
                    assert_eq!(old[at], text.as_bytes(), "{h}");
                    at += 1;
                    seen_old += 1;
                }
                if tag != "-" {
                    out.extend_from_slice(text.as_bytes());
                    seen_new += 1;
                }
            }
            assert_eq!((seen_old, seen_new), (oc, nc), "{h}");
        }
        for l in &old[at..] {
            out.extend_from_slice(l);
        }
        out
    }

    #[test]
    fn created_and_removed_files_diff_against_dev_null() {
        assert_eq!(
            unified("n.md", None, Some(b"x\n")),
            "--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+x\n"
        );
        assert_eq!(
            unified("WAITING.json", Some(b"{}\n"), None),
            "--- a/WAITING.json\n+++ /dev/null\n@@ -1 +0,0 @@\n-{}\n"
        );
    }

    #[test]
    fn an_append_is_one_hunk() {
        let end = Ending::of(b"{\"a\":1}\n{\"a\":2}\n");
        assert_eq!(
            append_hunk("t.ndjson", &end, b"{\"a\":3}"),
            "--- a/t.ndjson\n+++ b/t.ndjson\n@@ -2,0 +3,1 @@\n+{\"a\":3}\n"
        );
        assert_eq!(
            append_hunk("t.ndjson", &Ending::default(), b"x"),
            "--- a/t.ndjson\n+++ b/t.ndjson\n@@ -0,0 +1,1 @@\n+x\n"
        );
        let torn = Ending::of(b"{\"a\":1}\n{\"a\":");
        assert_eq!(
            append_hunk("t.ndjson", &torn, b"x"),
            "--- a/t.ndjson\n+++ b/t.ndjson\n@@ -2,1 +2,2 @@\n-{\"a\":\n\\ No newline at end of file\n+{\"a\":\n+x\n"
        );
    }

    #[test]
    fn a_files_ending_is_read_in_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.ndjson");
        let mut bytes = Vec::new();
        for i in 0..20_000 {
            bytes.extend_from_slice(format!("{{\"i\":{i}}}\n").as_bytes());
        }
        bytes.extend_from_slice(b"{\"torn\"");
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(Ending::of_file(&p).unwrap(), Ending::of(&bytes));
        assert_eq!(
            Ending::of_file(&dir.path().join("none")).unwrap(),
            Ending::default()
        );
    }
}
