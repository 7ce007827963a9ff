//! Reading a log on from where the last reading stopped, after checking
//! that the bytes it ended with are still there: a file rewritten in place
//! (`cat new > log` keeps the inode) to a larger size is then read afresh,
//! not taken for an append.

use std::fs::File;
use std::io;

use super::read_exact_at;
use crate::store::StoreError;

/// How many of its last bytes a kept reading checks.
pub(super) const CHECK: usize = 32;

/// `buf.len()` bytes at `at`; a file that shrank under us has vanished
/// (as [`super::ReverseLines`] says).
pub(super) fn read_at(file: &mut File, buf: &mut [u8], at: u64) -> Result<(), StoreError> {
    read_exact_at(file, buf, at).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            StoreError::Vanished
        } else {
            StoreError::from(e)
        }
    })
}

/// The last bytes (at most [`CHECK`]) of a file of `len` bytes.
pub(super) fn last_bytes(file: &mut File, len: u64) -> Result<Vec<u8>, StoreError> {
    let n = len.min(CHECK as u64);
    let mut buf = vec![0u8; n as usize];
    read_at(file, &mut buf, len - n)?;
    Ok(buf)
}

/// The bytes from `from - check.len()` to `len`, when the first of them
/// are `check` (the file was appended to); `None` when they are not.
pub(super) fn read_on(
    file: &mut File,
    check: &[u8],
    from: u64,
    len: u64,
) -> Result<Option<Vec<u8>>, StoreError> {
    let start = from - check.len() as u64;
    let mut buf = vec![0u8; (len - start) as usize];
    read_at(file, &mut buf, start)?;
    Ok(buf.starts_with(check).then_some(buf))
}

/// The bytes from `end - CHECK` (or 0) to `len`: the last [`CHECK`] bytes
/// before `end` (the offset after the last newline) and the pending bytes
/// after it. A torn tail cut off and replaced by a longer record that ends
/// alike is then not taken for an append: every pending byte is checked.
pub(super) fn since_end(file: &mut File, end: u64, len: u64) -> Result<Vec<u8>, StoreError> {
    let start = end.saturating_sub(CHECK as u64);
    let mut buf = vec![0u8; (len - start) as usize];
    read_at(file, &mut buf, start)?;
    Ok(buf)
}

/// What [`since_end`] gives, out of `buf` (the file's bytes from offset
/// `start` to its end).
pub(super) fn since_end_of(buf: &[u8], start: u64, end: u64) -> Vec<u8> {
    let from = end.saturating_sub(CHECK as u64).max(start) - start;
    buf[(from as usize).min(buf.len())..].to_vec()
}

/// The last [`CHECK`] bytes of `buf`.
pub(super) fn tail_of(buf: &[u8]) -> Vec<u8> {
    buf[buf.len().saturating_sub(CHECK)..].to_vec()
}
