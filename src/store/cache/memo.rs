//! Files not parsed again: a reader's parse of a whole file, kept with the
//! file's identity and sha256 ([`memo_in`]); and a value computed from a
//! file read in part, kept with its identity alone ([`memo_stat`]).

use std::path::Path;
use std::time::SystemTime;

use super::{FileId, current, plain_path, read_counted, stamp_known};
use crate::store::{StoreError, read_in, sha256_hex};

/// A whole file's parse.
struct Memo<T> {
    id: FileId,
    settled: bool,
    sha256: String,
    value: T,
}

/// A value computed from a file (read in part by the computation).
struct Computed<T> {
    id: FileId,
    settled: bool,
    value: T,
}

/// `parse` of the bytes of `relative` in `dir` (read whole, at most
/// `limit` bytes, as [`read_in`] reads and stamps it). Inside a cached
/// reading, a file whose identity and times are those it had at the last
/// reading is neither read nor parsed again (its stamp is the one kept);
/// a file whose times changed is read, and parsed only if its sha256
/// changed too. `parse` must depend on the bytes alone.
pub fn memo_in<T: Clone + Send + Sync + 'static>(
    dir: &Path,
    relative: &str,
    limit: u64,
    parse: impl FnOnce(Vec<u8>) -> T,
) -> Result<T, StoreError> {
    let Some((cache, pass)) = current() else {
        return read_in(dir, relative, limit).map(parse);
    };
    let Some(path) = plain_path(dir, relative) else {
        return read_in(dir, relative, limit).map(parse);
    };
    let now = SystemTime::now();
    let id = match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() && m.len() <= limit => FileId::of(&m),
        _ => {
            cache.forget::<Memo<T>>(&path);
            return read_in(dir, relative, limit).map(parse);
        }
    };
    let kept = cache.take::<Memo<T>>(&path);
    if let Some(m) = kept.as_ref().filter(|m| m.id == id && m.settled) {
        stamp_known(&path, &m.sha256, id.len);
        cache.count_reuse();
        let value = m.value.clone();
        if let Some(m) = kept {
            cache.put(pass, &path, m);
        }
        return Ok(value);
    }
    let bytes = read_counted(&cache, dir, relative, limit)?;
    let sha256 = sha256_hex(&bytes);
    let value = match kept {
        Some(m) if m.sha256 == sha256 => m.value,
        _ => parse(bytes),
    };
    cache.put(
        pass,
        &path,
        Memo {
            id,
            settled: cache.settled(&id, now),
            sha256,
            value: value.clone(),
        },
    );
    Ok(value)
}

/// `compute` (a reading of `relative` in `dir`, in part), kept with the
/// file's identity: inside a cached reading, a file whose identity and
/// times did not change since the last reading is not read again. A file
/// that is missing, a link or not a regular file is computed every time.
pub fn memo_stat<T: Clone + Send + Sync + 'static>(
    dir: &Path,
    relative: &str,
    compute: impl FnOnce() -> T,
) -> T {
    let Some((cache, pass)) = current() else {
        return compute();
    };
    let Some(path) = plain_path(dir, relative) else {
        return compute();
    };
    let now = SystemTime::now();
    let id = match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => FileId::of(&m),
        _ => {
            cache.forget::<Computed<T>>(&path);
            return compute();
        }
    };
    if let Some(kept) = cache.take::<Computed<T>>(&path)
        && kept.id == id
        && kept.settled
    {
        cache.count_reuse();
        let value = kept.value.clone();
        cache.put(pass, &path, kept);
        return value;
    }
    let value = compute();
    cache.put(
        pass,
        &path,
        Computed {
            id,
            settled: cache.settled(&id, now),
            value: value.clone(),
        },
    );
    value
}
