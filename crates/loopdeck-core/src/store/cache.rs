//! What the console's reader keeps between readings, so reading a project
//! again costs what changed, not what it holds: NDJSON logs go on from the
//! offset last read (`ndjson::incremental`), and files whose size,
//! mtime, ctime and inode did not change are not parsed again ([`memo_in`]).
//!
//! One `ReadCache` lives as long as a console (or a `watch` feed); a
//! one-shot command reads without one. It is shared by the reading threads
//! (`Send + Sync`): a reading enters it on its thread ([`ReadCache::enter`])
//! and the readers deep inside the formats find it there, so their
//! signatures do not change and a reading without a cache costs nothing
//! more.
//!
//! Every entry is keyed by the file's path as the reader spelt it, and
//! trusted only while the file's identity and times are those it had when
//! read. A file whose mtime or ctime was within [`RACY`] of the moment it
//! was looked at may still change within the same clock tick: it is
//! re-read and its sha256 compared (as git does for a "racily clean"
//! index entry). Entries a pass did not touch are dropped at its end
//! ([`ReadCache::sweep`]), so projects created and removed over a long run
//! leave nothing behind.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use super::{StoreError, read_in, stamps};

mod memo;
pub(crate) use memo::{memo_in, memo_stat};

testing_pub!(
    /// How recent a change must be for its file's times not to be trusted.
    /// Larger than the coarsest timestamp granularity of a common file system
    /// (1 s on ext3 and HFS+, 2 s on FAT).
    pub const RACY: Duration = Duration::from_secs(3);
);

testing_pub!(
    /// State kept between readings (see the module documentation). Cloning
    /// shares it.
    #[derive(Clone, Default)]
    pub struct ReadCache {
        inner: Arc<Inner>,
    }
);

struct Inner {
    entries: Mutex<HashMap<Key, Entry>>,
    /// Keep nothing (`LOOPDECK_READ_CACHE=off`): every reading reads and
    /// parses every file, as a one-shot command does. The benchmarks'
    /// baseline for what the cache costs in memory and saves in CPU.
    off: bool,
    /// At most this many bytes of files (their size on disk) have their
    /// parse kept ([`ReadCache::put_weighed`]); beyond it, the parses
    /// least recently used are dropped at the end of a pass.
    budget: u64,
    /// The weights of the entries held (changed under `entries`' lock).
    held: AtomicU64,
    /// The last pass that went over the budget (0: none yet). Such a pass
    /// (a first reading, a full re-read) admits no new copy of a parse:
    /// least recently used out first, whatever it copied into the cache
    /// before its end would have been dropped by its own later puts, and a
    /// copy cost as much as the parse (see [`ReadCache::admits`]).
    full: AtomicU64,
    pass: AtomicU64,
    bytes_read: AtomicU64,
    /// Files neither read nor parsed again.
    reused: AtomicU64,
    racy: Duration,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            entries: Mutex::default(),
            off: false,
            budget: PARSE_BUDGET,
            held: AtomicU64::new(0),
            full: AtomicU64::new(0),
            pass: AtomicU64::new(0),
            bytes_read: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            racy: RACY,
        }
    }
}

type Key = (PathBuf, TypeId);

/// How many bytes of files may have what was read of them kept, by
/// default: 8 MiB, the state files and logs of the few hundred projects
/// most recently read (what changes). A parse costs two to four times its
/// file's size in memory: at 10,000 projects with big logs, keeping
/// everything cost more than the console's whole model (1.6 GiB against
/// 0.7 GiB, `bench/speed.py`'s memory row), to save parses on a full
/// re-read only; what changes is read again in part, and stays within it.
pub(crate) const PARSE_BUDGET: u64 = 8 << 20;

struct Entry {
    /// The last pass that used it.
    seen: u64,
    /// The bytes of the file it holds the reading of (0: kept whatever
    /// the budget).
    weight: u64,
    value: Box<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for ReadCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadCache")
            .field("entries", &self.len())
            .field("bytes_read", &self.bytes_read())
            .finish()
    }
}

thread_local! {
    static CURRENT: RefCell<Option<(ReadCache, u64)>> = const { RefCell::new(None) };
}

impl ReadCache {
    testing_pub!(
        /// An empty cache, trusting a file's times once they are [`RACY`]
        /// old, keeping the parses of at most [`PARSE_BUDGET`] bytes of
        /// files. `LOOPDECK_READ_CACHE=off` in the environment makes one
        /// that keeps nothing (the benchmarks' baseline);
        /// `LOOPDECK_READ_CACHE=BYTES` sets the budget.
        pub fn new() -> Self {
            let setting = std::env::var("LOOPDECK_READ_CACHE").ok();
            let (off, budget) = match setting.as_deref().map(str::trim) {
                Some("off") => (true, 0),
                Some(n) => (false, n.parse().unwrap_or(PARSE_BUDGET)),
                None => (false, PARSE_BUDGET),
            };
            ReadCache {
                inner: Arc::new(Inner {
                    off,
                    budget,
                    ..Inner::default()
                }),
            }
        }
    );

    testing_pub!(
        #[cfg(any(test, feature = "testing"))]
        /// A cache trusting a file's times once they are `racy` old, keeping
        /// the parses of at most `budget` bytes of files.
        pub fn with_budget(racy: Duration, budget: u64) -> Self {
            ReadCache {
                inner: Arc::new(Inner {
                    racy,
                    budget,
                    ..Inner::default()
                }),
            }
        }
    );

    testing_pub!(
        #[cfg(feature = "testing")]
        /// A cache that trusts a file's times once they are `racy` old
        /// (tests use zero, with files whose writes they order themselves).
        pub fn with_racy_window(racy: Duration) -> Self {
            ReadCache {
                inner: Arc::new(Inner {
                    racy,
                    ..Inner::default()
                }),
            }
        }
    );

    testing_pub!(
        #[cfg(feature = "testing")]
        /// How many times a file was neither read nor parsed again.
        pub fn reused(&self) -> u64 {
            self.inner.reused.load(Ordering::Relaxed)
        }
    );

    pub(crate) fn count_reuse(&self) {
        self.inner.reused.fetch_add(1, Ordering::Relaxed);
    }

    /// Can `id`'s times be trusted to change on the next write, looked at
    /// `now` (taken before the stat)? Not when they are within the racy
    /// window of it.
    pub(crate) fn settled(&self, id: &FileId, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let limit = now.as_nanos() as i128 - self.inner.racy.as_nanos() as i128;
        id.mtime < limit && id.ctime < limit
    }

    testing_pub!(
        /// Start a pass (one reading of some projects): its number, for
        /// [`Self::enter`] and [`Self::sweep`].
        pub fn begin_pass(&self) -> u64 {
            self.inner.pass.fetch_add(1, Ordering::Relaxed) + 1
        }
    );

    testing_pub!(
        /// Run `work` (a reading, on this thread) with this cache as the one
        /// the readers use. Ends with `work`, panic or not.
        pub fn enter<T>(&self, pass: u64, work: impl FnOnce() -> T) -> T {
            if self.inner.off {
                return work();
            }
            struct Reset(Option<(ReadCache, u64)>);
            impl Drop for Reset {
                fn drop(&mut self) {
                    let previous = self.0.take();
                    CURRENT.with(|c| *c.borrow_mut() = previous);
                }
            }
            let _reset = Reset(CURRENT.with(|c| c.borrow_mut().replace((self.clone(), pass))));
            work()
        }
    );

    /// Drop the entries pass `pass` did not use: all of them, or (`under`)
    /// those of files under that directory. A file that vanished, or a
    /// project no longer read, leaves nothing behind.
    pub(crate) fn sweep(&self, pass: u64, under: Option<&Path>) {
        self.sweep_where(pass, |path| under.is_none_or(|d| path.starts_with(d)));
    }

    /// Drop the entries pass `pass` did not use among the files `within`
    /// says it read. A file counts as used when any of its entries was (a
    /// parse reused whole keeps the log state kept beside it).
    pub(crate) fn sweep_where(&self, pass: u64, within: impl Fn(&Path) -> bool) {
        let mut entries = self.lock();
        let met: std::collections::HashSet<PathBuf> = entries
            .iter()
            .filter(|(_, e)| e.seen >= pass)
            .map(|((path, _), _)| path.clone())
            .collect();
        entries.retain(|(path, _), _| met.contains(path) || !within(path));
        let held = trim(&mut entries, self.inner.budget);
        self.inner.held.store(held, Ordering::Relaxed);
    }

    testing_pub!(
        /// Bytes read through the cache's own reads (incremental NDJSON reads,
        /// files re-read to compare their content) since it was made.
        pub fn bytes_read(&self) -> u64 {
            self.inner.bytes_read.load(Ordering::Relaxed)
        }
    );

    testing_pub!(
        /// How many files it holds something for.
        pub fn len(&self) -> usize {
            self.lock().len()
        }
    );

    testing_pub!(
        #[cfg(feature = "testing")]
        /// Does it hold nothing?
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }
    );

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Entry>> {
        self.inner.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn count_read(&self, n: u64) {
        self.inner.bytes_read.fetch_add(n, Ordering::Relaxed);
    }

    /// Take the `V` kept for `path` out (the caller puts it back with
    /// [`Self::put`]); two readers of one file at once each work alone.
    pub(crate) fn take<V: Any + Send + Sync>(&self, path: &Path) -> Option<V> {
        // `held` changes under the entries' lock: a trim between the two
        // (another thread's put) would count this entry out twice.
        let e = {
            let mut entries = self.lock();
            let e = entries.remove(&(path.to_path_buf(), TypeId::of::<V>()))?;
            self.inner.held.fetch_sub(e.weight, Ordering::Relaxed);
            e
        };
        e.value.downcast::<V>().ok().map(|b| *b)
    }

    /// Keep `value`, what was read of `path`, whose bytes are `weight`
    /// (0: whatever the budget), while what is kept stays within the
    /// budget (see [`trim`]).
    pub(crate) fn put_weighed<V: Any + Send + Sync>(
        &self,
        pass: u64,
        path: &Path,
        value: V,
        weight: u64,
    ) {
        let mut entries = self.lock();
        let old = entries.insert(
            (path.to_path_buf(), TypeId::of::<V>()),
            Entry {
                seen: pass,
                weight,
                value: Box::new(value),
            },
        );
        let held = &self.inner.held;
        held.fetch_sub(old.map_or(0, |e| e.weight), Ordering::Relaxed);
        // Over the budget in the middle of a reading (a first reading of
        // 10,000 projects): down to half of it now, so the memory of a
        // whole reading's parses is never held at once, and the sort is
        // paid once per half a budget of reading.
        if held.fetch_add(weight, Ordering::Relaxed) + weight > self.inner.budget {
            let budget = self.inner.budget / 2;
            held.store(trim(&mut entries, budget), Ordering::Relaxed);
            self.inner.full.store(pass, Ordering::Relaxed);
        }
    }

    /// Should pass `pass` keep a copy of a fresh parse? Not once it has
    /// gone over the budget: a reading bigger than the budget would drop
    /// its own copies before it ended (a full re-read at 10,000 projects
    /// cost 1.8 times the CPU of no cache at all, copying parses it then
    /// freed); the files it did not keep are kept by the next, smaller
    /// reading that reads them, which is the one that reads them again.
    pub(crate) fn admits(&self, pass: u64) -> bool {
        self.inner.full.load(Ordering::Relaxed) != pass
    }

    pub(crate) fn forget<V: Any + Send + Sync>(&self, path: &Path) {
        let mut entries = self.lock();
        if let Some(e) = entries.remove(&(path.to_path_buf(), TypeId::of::<V>())) {
            self.inner.held.fetch_sub(e.weight, Ordering::Relaxed);
        }
    }
}

/// Drop the parses least recently used (the oldest pass first; in one
/// pass, the biggest files first) until those kept weigh at most
/// `budget`; answer what they weigh then. What is dropped is read and
/// parsed again when next needed: the cache only ever saves work, never
/// changes a reading.
///
/// The order is found on the weights alone and the entries dropped in one
/// `retain`: copying every kept path to sort them cost a sixth of a full
/// re-read's CPU at 10,000 projects (`bench/speed.py`'s memory row), as a
/// reading trims once per half a budget read.
fn trim(entries: &mut HashMap<Key, Entry>, budget: u64) -> u64 {
    let total: u64 = entries.values().map(|e| e.weight).sum();
    if total <= budget {
        return total;
    }
    // (pass, biggest first): the order entries leave in.
    let rank = |e: &Entry| (e.seen, u64::MAX - e.weight);
    let mut order: Vec<(u64, u64)> = entries
        .values()
        .filter(|e| e.weight > 0)
        .map(rank)
        .collect();
    order.sort_unstable();
    // The last rank to leave, and how many of the entries of that very
    // rank leave (those before it all do).
    let mut left = total;
    let mut cut = (0, 0);
    let mut at_cut = 0usize;
    for &r in &order {
        if left <= budget {
            break;
        }
        left -= u64::MAX - r.1;
        if r == cut {
            at_cut += 1;
        } else {
            cut = r;
            at_cut = 1;
        }
    }
    if at_cut == 0 {
        return left;
    }
    entries.retain(|_, e| {
        if e.weight == 0 {
            return true;
        }
        let r = rank(e);
        if r < cut {
            false
        } else if r == cut && at_cut > 0 {
            at_cut -= 1;
            false
        } else {
            true
        }
    });
    left
}

/// Does the reading on this thread read through a cache?
pub(crate) fn active() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}

/// The cache the reading on this thread uses, and its pass.
pub(crate) fn current() -> Option<(ReadCache, u64)> {
    CURRENT.with(|c| c.borrow().clone())
}

/// What identifies a file's content without reading it: device, inode,
/// size, mtime and ctime (ns). Any write changes the size or the times;
/// restoring the mtime afterwards changes the ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime: i128,
    pub ctime: i128,
}

impl FileId {
    #[cfg(unix)]
    pub(crate) fn of(m: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        }
    }

    #[cfg(not(unix))]
    pub fn of(m: &std::fs::Metadata) -> Self {
        let ns = |t: std::io::Result<SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128)
        };
        FileId {
            dev: 0,
            ino: 0,
            len: m.len(),
            mtime: ns(m.modified()),
            ctime: ns(m.created()),
        }
    }
}

/// `dir/relative` when every component of `relative` is a plain name and
/// every directory on the way is a real one (not a link): only then is a
/// path's stat the file a contained read opens.
pub(crate) fn plain_path(dir: &Path, relative: &str) -> Option<PathBuf> {
    let rel = Path::new(relative);
    let mut path = dir.to_path_buf();
    let mut comps = rel.components().peekable();
    comps.peek()?;
    while let Some(c) = comps.next() {
        let Component::Normal(name) = c else {
            return None;
        };
        path.push(name);
        // Each directory once per reading (the store's own memory of the
        // real directories it met).
        if comps.peek().is_some() && !super::dir_cache::lstat(&path).is_ok_and(|m| m.is_dir()) {
            return None;
        }
    }
    Some(path)
}

/// A whole read of `relative` in `dir` that counts its bytes.
pub(crate) fn read_counted(
    cache: &ReadCache,
    dir: &Path,
    relative: &str,
    limit: u64,
) -> Result<Vec<u8>, StoreError> {
    let bytes = read_in(dir, relative, limit)?;
    cache.count_read(bytes.len() as u64);
    Ok(bytes)
}

/// Record the stamp of a file the reading did not read again.
pub(crate) fn stamp_known(path: &Path, sha256: &str, len: u64) {
    stamps::record_known(path, sha256, len);
}

#[cfg(test)]
mod trim_tests {
    use super::*;

    fn entry(seen: u64, weight: u64) -> Entry {
        Entry {
            seen,
            weight,
            value: Box::new(()),
        }
    }

    /// The ranks (pass, weight) left after dropping a prefix of the order
    /// by sorting whole entries, as `trim` once did.
    fn reference(entries: &[(u64, u64)], budget: u64) -> (Vec<(u64, u64)>, u64) {
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        let mut sorted: Vec<(u64, u64)> = entries.to_vec();
        sorted.sort_by_key(|&(seen, w)| (w == 0, seen, u64::MAX - w));
        let mut kept = Vec::new();
        for (seen, w) in sorted {
            if w > 0 && total > budget {
                total -= w;
            } else {
                kept.push((seen, w));
            }
        }
        kept.sort_unstable();
        (kept, total)
    }

    #[test]
    fn a_pass_over_the_budget_admits_no_more_copies_the_next_does() {
        let cache = ReadCache::with_budget(Duration::ZERO, 100);
        let pass = cache.begin_pass();
        assert!(cache.admits(pass));
        cache.put_weighed(pass, Path::new("/p/a"), 1u8, 40);
        assert!(cache.admits(pass), "within the budget");
        cache.put_weighed(pass, Path::new("/p/b"), 2u8, 70);
        assert!(!cache.admits(pass), "over it: this pass copies no more");
        // Down to half the budget, the biggest of the pass out first.
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.take::<u8>(Path::new("/p/a")), Some(1));
        let next = cache.begin_pass();
        assert!(cache.admits(next), "a new pass admits again");
    }

    #[test]
    fn trim_drops_the_least_recently_used_biggest_first_ties_counted() {
        // A small linear congruential sequence: many equal passes and
        // weights, so ties at the cut are the rule, not the exception.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % m
        };
        for round in 0..400 {
            let n = 1 + next(60) as usize;
            let specs: Vec<(u64, u64)> = (0..n)
                .map(|_| (next(5), if next(4) == 0 { 0 } else { 1 + next(6) * 10 }))
                .collect();
            let budget = next(200);
            let mut entries: HashMap<Key, Entry> = specs
                .iter()
                .enumerate()
                .map(|(i, &(seen, w))| {
                    ((PathBuf::from(format!("/p/{i}")), TypeId::of::<()>()), entry(seen, w))
                })
                .collect();
            let left = trim(&mut entries, budget);
            let mut kept: Vec<(u64, u64)> = entries.values().map(|e| (e.seen, e.weight)).collect();
            kept.sort_unstable();
            let (want, want_left) = reference(&specs, budget);
            assert_eq!(kept, want, "round {round}: {specs:?} budget {budget}");
            assert_eq!(left, want_left, "round {round}");
            assert_eq!(left, kept.iter().map(|e| e.1).sum::<u64>(), "round {round}");
            assert!(
                left <= budget || kept.iter().all(|e| e.1 == 0),
                "round {round}"
            );
        }
    }
}
