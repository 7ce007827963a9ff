//! Kills the mutant bench/mutants.sh found alive in src/store/diff.rs
//! (`chunk.newlines > 0` → `>= 0` in `Ending::of_file`): a torn tail
//! longer than one 64 KiB read must be kept whole, not just its last read.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use loopdeck_core::store::diff::Ending;

#[test]
fn a_torn_tail_longer_than_one_read_is_kept_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("timeline.ndjson");
    let tail = vec![b'x'; 100 * 1024];
    let mut bytes = b"{\"a\":1}\n{\"b\":2}\n".to_vec();
    bytes.extend_from_slice(&tail);
    std::fs::write(&path, &bytes).unwrap();
    let end = Ending::of_file(&path).unwrap();
    assert_eq!(end.newlines, 2);
    assert_eq!(
        end.tail.len(),
        tail.len(),
        "the torn tail was cut to its last read"
    );
    assert_eq!(end, Ending::of(&bytes));
}

#[test]
fn a_file_without_a_newline_is_all_tail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bugs.ndjson");
    let bytes = vec![b'y'; 150 * 1024];
    std::fs::write(&path, &bytes).unwrap();
    let end = Ending::of_file(&path).unwrap();
    assert_eq!(
        end,
        Ending {
            newlines: 0,
            tail: bytes
        }
    );
}
