//! Memory proportional to the input: the devloop reader on a large
//! units.json and bugs.ndjson, in-process under a counting allocator.

use super::common::write;
use super::meta;

/// Heap bytes live on the current thread, and their peak: each test thread
/// measures only its own allocations.
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    pub struct Counting;

    /// What glibc's malloc takes for `size` bytes: a 16-byte aligned chunk
    /// with an 8-byte header, 32 bytes at least (small strings cost that).
    fn chunk(size: usize) -> isize {
        ((size + 8 + 15) & !15).max(32) as isize
    }

    fn add(n: isize) {
        let _ = LIVE.try_with(|l| {
            let v = l.get() + n;
            l.set(v);
            let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
        });
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(chunk(layout.size()));
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(-chunk(layout.size()));
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
            add(chunk(new) - chunk(layout.size()));
            unsafe { System.realloc(ptr, layout, new) }
        }
    }

    /// The peak heap growth while `f` runs.
    pub fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let base = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(base));
        let t = f();
        (t, (PEAK.with(Cell::get) - base).max(0) as usize)
    }
}

#[global_allocator]
static HEAP: heap::Counting = heap::Counting;

/// A units.json of `n` small units (ids as the seed spells them), as in
/// the issue: about 60 bytes a unit.
fn many_units(n: usize) -> String {
    let name = |mut i: usize| {
        let mut s = String::new();
        for _ in 0..5 {
            s.insert(0, (b'a' + (i % 26) as u8) as char);
            i /= 26;
        }
        s
    };
    let mut out = String::from("{\"project_id\":\"p-units\",\"units\":[\n");
    for i in 0..n {
        let dep = if i % 10 == 0 {
            String::new()
        } else {
            format!("\"u-{}-be\"", name(i - 1))
        };
        let status = ["passed", "passed", "testing", "failed"][i % 4];
        out.push_str(&format!(
            "{}{{\"id\":\"u-{}-be\",\"type\":\"be\",\"status\":\"{status}\",\"depends_on\":[{dep}]}}\n",
            if i == 0 { "" } else { "," },
            name(i)
        ));
    }
    out.push_str("]}\n");
    out
}

#[test]
fn memory_stays_proportional_to_the_input() {
    use loopdeck_core::formats::devloop;
    let tmp = tempfile::tempdir().unwrap();
    let units_dir = tmp.path().join("data/companies/acme/projects/p-units");
    let units = many_units(50_000);
    write(&units_dir.join("project.json"), meta("p-units"));
    write(&units_dir.join("units.json"), &units);
    let input = units.len();

    // The statusline's light read: at most 4 bytes of heap per byte read
    // (it was 40x through the full reader: a tree of values, then a copy).
    let (light, light_peak) = heap::peak(|| devloop::read_status(&units_dir).unwrap());
    let (full, full_peak) = heap::peak(|| devloop::load(&units_dir).unwrap());
    assert_eq!(light.statusline, full.statusline);
    assert_eq!(full.detail.units.len(), 50_000);
    assert!(
        light_peak <= 4 * input,
        "status: {light_peak} bytes of heap for {input} bytes of units.json"
    );
    // The full read keeps every unit in the model (about 140 bytes each:
    // short ids inline, the rare fields boxed) next to the file's bytes
    // while it parses; no value tree, no copies on top of that (7.7x of
    // the input before units were compacted, by heaptrack on 200k units).
    assert!(
        full_peak <= 4 * input,
        "show: {full_peak} bytes of heap for {input} bytes of units.json"
    );

    // bugs.ndjson: one line per bug, every id distinct.
    let bugs_dir = tmp.path().join("data/companies/acme/projects/p-bugs");
    let mut bugs = String::new();
    for i in 0..200_000 {
        let status = ["open", "fixing", "fixed", "verified"][i % 4];
        bugs.push_str(&format!(
            "{{\"id\":\"bug-{i:08}\",\"status\":\"{status}\",\"severity\":\"high\"}}\n"
        ));
    }
    write(&bugs_dir.join("project.json"), meta("p-bugs"));
    write(&bugs_dir.join("bugs.ndjson"), &bugs);
    let (p, bugs_peak) = heap::peak(|| devloop::load(&bugs_dir).unwrap());
    assert_eq!(p.detail.bug_stats.as_ref().unwrap().total, 200_000);
    assert_eq!(
        p.detail.bug_stats.as_ref().unwrap().by_status.get("fixed"),
        Some(&50_000)
    );
    // Distinct ids are remembered in an arena set (about 16 bytes a key
    // plus the key), the file is read in 1 MB steps: never the file itself.
    assert!(
        bugs_peak <= bugs.len() * 3 / 2,
        "bugs: {bugs_peak} bytes of heap for {} bytes of bugs.ndjson",
        bugs.len()
    );
    // The statusline never reads the bugs.
    let (_, status_peak) = heap::peak(|| devloop::read_status(&bugs_dir).unwrap());
    assert!(status_peak < 1024 * 1024, "{status_peak}");
    let ratio = |peak: usize, input: usize| peak as f64 / input as f64;
    eprintln!(
        "heap peak / input: units status {:.2}, units full {:.2}, bugs full {:.2}, bugs status {} bytes",
        ratio(light_peak, input),
        ratio(full_peak, input),
        ratio(bugs_peak, bugs.len()),
        status_peak
    );
}
