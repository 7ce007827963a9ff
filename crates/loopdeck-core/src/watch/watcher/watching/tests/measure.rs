//! Figures for the report, not checks (ignored by default). Run:
//! `cargo test --release --lib watch::watcher::watching::tests::measure -- --ignored --nocapture --test-threads 1`
//! Prints, with the real notify backend: inotify watches per project of
//! each format (counted by the kernel: `inotify wd:` lines of the inotify
//! fd's `/proc/self/fdinfo`), the time to set the watches up, and the time
//! of one reconciliation scan.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use super::super::*;

/// The inotify watches this process holds, as the kernel counts them.
fn kernel_watches() -> usize {
    let mut n = 0;
    for fd in fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let is_inotify =
            fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy().contains("inotify"));
        if is_inotify {
            let info = format!("/proc/self/fdinfo/{}", fd.file_name().to_string_lossy());
            n += fs::read_to_string(info)
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count();
        }
    }
    n
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else if e.file_type().unwrap().is_file() {
            fs::copy(e.path(), t).unwrap();
        }
    }
}

fn example(format: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("examples/workspace")
        .join(format)
}

/// The project directories of an example format's workspace.
fn project_dirs(root: &Path) -> Vec<PathBuf> {
    crate::formats::discover(&[root.to_path_buf()])
        .projects
        .into_iter()
        .map(|p| p.path)
        .collect()
}

/// `n` projects of `format`, copied round-robin from the examples (devloop
/// ones under one company, as devloop lays them out).
fn generate(format: &str, n: usize, into: &Path) {
    let dirs = project_dirs(&example(format));
    for i in 0..n {
        let src = &dirs[i % dirs.len()];
        // A Deep Work Plan project is its plan directory: copy what holds
        // the `.dwp`.
        let src = &src
            .ancestors()
            .find(|a| a.join(".dwp").is_dir())
            .unwrap_or(src)
            .to_path_buf();
        let name = format!("p{i:05}");
        let to = if format == "devloop" {
            into.join("data/companies/acme/projects").join(name)
        } else {
            into.join(name)
        };
        copy_dir(src, &to);
        if format == "devloop" && i < dirs.len() {
            let company = src.parent().unwrap().parent().unwrap();
            for f in fs::read_dir(company).unwrap().flatten() {
                if f.file_type().unwrap().is_file() {
                    fs::copy(
                        f.path(),
                        into.join("data/companies/acme").join(f.file_name()),
                    )
                    .unwrap();
                }
            }
        }
    }
}

struct Measured {
    projects: usize,
    watches: usize,
    kernel: usize,
    setup_ms: f64,
    scan_ms: f64,
}

fn measure(root: &Path) -> Measured {
    let projects = crate::formats::discover(&[root.to_path_buf()])
        .projects
        .len();
    let before = kernel_watches();
    let (tx, _rx) = mpsc::channel::<Msg>();
    let sink = Sink::new(tx);
    let backend = notify::recommended_watcher(|_: notify::Result<notify::Event>| {}).unwrap();
    let mut w = Watching::new(
        backend,
        vec![root.to_path_buf()],
        sink,
        None,
        10,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    let t = Instant::now();
    w.setup();
    let setup_ms = t.elapsed().as_secs_f64() * 1e3;
    let kernel = kernel_watches() - before;
    let mut scans = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let p = w.scan();
        w.finish(p, true);
        scans.push(t.elapsed().as_secs_f64() * 1e3);
    }
    scans.sort_by(f64::total_cmp);
    Measured {
        projects,
        watches: w.watches(),
        kernel,
        setup_ms,
        scan_ms: scans[2],
    }
}

fn report(label: &str, m: &Measured) {
    println!(
        "{label:<28} projects {:>6}  watches {:>6} (kernel {:>6})  per project {:>5.2}  setup {:>8.1} ms  scan {:>7.1} ms",
        m.projects,
        m.watches,
        m.kernel,
        m.kernel as f64 / m.projects.max(1) as f64,
        m.setup_ms,
        m.scan_ms
    );
}

#[test]
#[ignore = "a measurement: run by hand (see the module's doc)"]
fn measure_watches_setup_and_scan() {
    for f in ["prd-master", "gsd", "dwp", "devloop"] {
        report(&format!("examples/workspace/{f}"), &measure(&example(f)));
    }
    report(
        "examples/workspace",
        &measure(
            &PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join("examples/workspace"),
        ),
    );
    for f in ["prd-master", "gsd", "dwp", "devloop"] {
        let tmp = tempfile::tempdir().unwrap();
        generate(f, 1000, tmp.path());
        report(&format!("generated 1,000 {f}"), &measure(tmp.path()));
    }
    let tmp = tempfile::tempdir().unwrap();
    for f in ["prd-master", "gsd", "dwp", "devloop"] {
        generate(f, 2500, &tmp.path().join(f));
    }
    report("generated 10,000 (mixed)", &measure(tmp.path()));
}
