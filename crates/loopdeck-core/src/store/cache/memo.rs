//! Files not parsed again: a reader's parse of a whole file, kept with the
//! file's identity and sha256 ([`memo_in`]); and a value computed from a
//! file read in part, kept with its identity alone ([`memo_stat`]).

use std::marker::PhantomData;
use std::path::Path;
use std::time::SystemTime;

use super::{FileId, current, plain_path, read_counted, stamp_known};
use crate::store::{StoreError, read_in, sha256_hex};

/// A whole file's parse, by `parse` (its type is part of the key: two
/// readers of one file never take each other's value).
struct Memo<T, F> {
    id: FileId,
    settled: bool,
    sha256: String,
    value: T,
    by: PhantomData<fn() -> F>,
}

/// A value computed from a file (read in part by the computation).
struct Computed<T, F> {
    id: FileId,
    settled: bool,
    value: T,
    by: PhantomData<fn() -> F>,
}

/// `parse` of the bytes of `relative` in `dir` (read whole, at most
/// `limit` bytes, as [`read_in`] reads and stamps it). Inside a cached
/// reading, a file whose identity and times are those it had at the last
/// reading is neither read nor parsed again (its stamp is the one kept);
/// a file whose times changed is read, and parsed only if its sha256
/// changed too. `parse` must depend on the bytes alone.
pub(crate) fn memo_in<T, F>(
    dir: &Path,
    relative: &str,
    limit: u64,
    parse: F,
) -> Result<T, StoreError>
where
    T: Clone + Send + Sync + 'static,
    F: FnOnce(Vec<u8>) -> T + 'static,
{
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
            cache.forget::<Memo<T, F>>(&path);
            return read_in(dir, relative, limit).map(parse);
        }
    };
    let kept = cache.take::<Memo<T, F>>(&path);
    if let Some(m) = kept.as_ref().filter(|m| m.id == id && m.settled) {
        stamp_known(&path, &m.sha256, id.len);
        cache.count_reuse();
        let value = m.value.clone();
        if let Some(m) = kept {
            cache.put_weighed(pass, &path, m, id.len.max(1));
        }
        return Ok(value);
    }
    let bytes = read_counted(&cache, dir, relative, limit)?;
    // Nothing kept to compare with, and nothing to keep: no sha256 either.
    let admitted = cache.admits(pass);
    if kept.is_none() && !admitted {
        return Ok(parse(bytes));
    }
    let sha256 = sha256_hex(&bytes);
    let value = match kept {
        Some(m) if m.sha256 == sha256 => m.value,
        _ => parse(bytes),
    };
    if !admitted {
        return Ok(value);
    }
    cache.put_weighed(
        pass,
        &path,
        Memo::<T, F> {
            id,
            settled: cache.settled(&id, now),
            sha256,
            value: value.clone(),
            by: PhantomData,
        },
        id.len.max(1),
    );
    Ok(value)
}

/// `compute(dir)` (a reading of `relative` in `dir`, in part), kept with the
/// file's identity: inside a cached reading, a file whose identity and
/// times did not change since the last reading is not read again. A file
/// that is missing, a link or not a regular file is computed every time.
pub(crate) fn memo_stat<T, F>(dir: &Path, relative: &str, compute: F) -> T
where
    T: Clone + Send + Sync + 'static,
    F: FnOnce(&Path) -> T + 'static,
{
    let Some((cache, pass)) = current() else {
        return compute(dir);
    };
    let Some(path) = plain_path(dir, relative) else {
        return compute(dir);
    };
    let now = SystemTime::now();
    let id = match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => FileId::of(&m),
        _ => {
            cache.forget::<Computed<T, F>>(&path);
            return compute(dir);
        }
    };
    if let Some(kept) = cache.take::<Computed<T, F>>(&path)
        && kept.id == id
        && kept.settled
    {
        cache.count_reuse();
        let value = kept.value.clone();
        cache.put_weighed(pass, &path, kept, id.len.max(1));
        return value;
    }
    let value = compute(dir);
    if !cache.admits(pass) {
        return value;
    }
    cache.put_weighed(
        pass,
        &path,
        Computed::<T, F> {
            id,
            settled: cache.settled(&id, now),
            value: value.clone(),
            by: PhantomData,
        },
        id.len.max(1),
    );
    value
}
