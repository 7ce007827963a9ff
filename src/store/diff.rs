//! What `--dry-run` prints: a unified diff per file (`--- a/FILE`,
//! `+++ b/FILE`, 3 lines of context; `/dev/null` for a file created or
//! removed). An NDJSON append is shown as the one hunk of its line, never
//! by diffing the whole (possibly huge) file.

use std::io::Read;
use std::path::Path;

use super::StoreError;
use super::atomic::open_regular;

use similar::TextDiff;

/// The unified diff of `file` from `before` to `after` (`None`: absent).
/// The lines both share at the start and the end (beyond the context
/// shown) are left out of the comparison and the hunks' line numbers
/// moved past them, so a one-line change in a large file costs the
/// change, not a line index of the whole file twice.
pub fn unified(file: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> String {
    let (old_all, new_all) = (before.unwrap_or_default(), after.unwrap_or_default());
    let (skipped, old_mid, new_mid) = middle(old_all, new_all, CONTEXT);
    let old = String::from_utf8_lossy(old_mid);
    let new = String::from_utf8_lossy(new_mid);
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
    let diff = TextDiff::from_lines(old.as_ref(), new.as_ref());
    let mut out = diff
        .unified_diff()
        .context_radius(CONTEXT)
        .header(&a, &b)
        .to_string();
    if skipped > 0 {
        out = moved_down(&out, skipped);
    }
    if out.is_empty() {
        // No change in content (a rename, say): still name the file.
        out = format!("--- {a}\n+++ {b}\n");
    }
    out
}

/// Lines of context around a change.
const CONTEXT: usize = 3;

/// `old` and `new` without the whole lines they share at the start and at
/// the end, less `keep` lines of context on each side: how many lines were
/// left out at the start, and the two middles.
fn middle<'a>(old: &'a [u8], new: &'a [u8], keep: usize) -> (usize, &'a [u8], &'a [u8]) {
    let same = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    // Line starts within the shared prefix, the last `keep` kept.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            old[..same]
                .iter()
                .enumerate()
                .filter(|(_, c)| **c == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|&i| i <= same)
        .collect();
    let (skipped, cut) = match starts.len().checked_sub(keep + 1) {
        Some(k) => (k, starts[k]),
        None => (0, 0),
    };
    let (old, new) = (&old[cut..], &new[cut..]);
    let tail = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len().min(new.len()));
    // Whole lines of the shared suffix: from just after a newline that
    // ends a line before it, `keep` lines kept.
    let ends: Vec<usize> = (old.len() - tail..old.len())
        .filter(|&i| i > 0 && old[i - 1] == b'\n')
        .collect();
    let drop = match ends.len().checked_sub(keep + 1) {
        Some(k) => old.len() - ends[ends.len() - 1 - k],
        None => 0,
    };
    (skipped, &old[..old.len() - drop], &new[..new.len() - drop])
}

/// A unified diff's hunk headers moved `by` lines down (`@@ -a,b +c,d @@`
/// gets `a + by` and `c + by`).
fn moved_down(diff: &str, by: usize) -> String {
    let mut out = String::with_capacity(diff.len() + 16);
    for line in diff.split_inclusive('\n') {
        match hunk_header(line, by) {
            Some(moved) => out.push_str(&moved),
            None => out.push_str(line),
        }
    }
    out
}

fn hunk_header(line: &str, by: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, after) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let shift = |r: &str| -> Option<String> {
        let (start, count) = match r.split_once(',') {
            Some((s, c)) => (s, Some(c)),
            None => (r, None),
        };
        let start: usize = start.parse().ok()?;
        let moved = start + by;
        Some(match count {
            Some(c) => format!("{moved},{c}"),
            None => moved.to_string(),
        })
    };
    Some(format!("@@ -{} +{} @@{after}", shift(old)?, shift(new)?))
}

/// How a file ends, for an append's hunk: its number of newlines and the
/// bytes after the last one (a torn tail).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Ending {
    pub newlines: usize,
    pub tail: Vec<u8>,
}

impl Ending {
    pub fn of(bytes: &[u8]) -> Self {
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        let tail = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => bytes[i + 1..].to_vec(),
            None => bytes.to_vec(),
        };
        Ending { newlines, tail }
    }

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
}

/// The hunk appending `line` to `file`, which ends as `end`.
pub fn append_hunk(file: &str, end: &Ending, line: &[u8]) -> String {
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
