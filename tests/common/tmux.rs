//! The console driven in tmux, as a user runs it: a private tmux server per
//! test (its own socket), one session named [`SESSION`], keys sent, the
//! screen captured and waited on.

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// The session every test's console runs in (each test has its own server).
pub const SESSION: &str = "e2e";

pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A private tmux server named after `label` and this process.
    pub fn new(label: &str) -> Self {
        Tmux {
            socket: format!("loopdeck-{label}-{}", std::process::id()),
        }
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Start the console on `root` (at `now`, without colour) in a detached
    /// session of `width` x `height`.
    pub fn start(&self, root: &Path, now: &str, width: &str, height: &str) {
        self.start_with(root, now, width, height, &[], &[]);
    }

    /// [`Tmux::start`], with `env` (`NAME=value`) added to the console's
    /// environment and `args` (e.g. `--config FILE`) to its command line;
    /// `now` empty runs it on the real clock.
    pub fn start_with(
        &self,
        root: &Path,
        now: &str,
        width: &str,
        height: &str,
        env: &[&str],
        args: &[&str],
    ) {
        let bin = assert_cmd::cargo::cargo_bin("loopdeck");
        // Never the user's state: this test process's own, unless `env`
        // names one (later assignments win).
        let state = format!("XDG_STATE_HOME={}", super::state_home().display());
        // An empty `now`: the real clock (what time alone changes).
        let now = if now.is_empty() {
            String::new()
        } else {
            format!("--now {now}")
        };
        let cmd = format!(
            "{} {} {} {now}; echo EXITED:$?; sleep 60",
            bin.display(),
            args.join(" "),
            root.display()
        );
        self.launch(&cmd, width, height, &state, env);
    }

    /// [`Tmux::start_with`], every byte the console sends to the terminal
    /// also appended to `log` from its very first frame (the console
    /// starts once tmux pipes the pane: `pipe-pane` alone could miss a
    /// first frame drawn before it is set up).
    pub fn start_logged(
        &self,
        root: &Path,
        now: &str,
        size: (&str, &str),
        env: &[&str],
        log: &Path,
    ) {
        let bin = assert_cmd::cargo::cargo_bin("loopdeck");
        let state = format!("XDG_STATE_HOME={}", super::state_home().display());
        let go = log.with_extension("go");
        let cmd = format!(
            "while [ ! -e {go} ]; do sleep 0.02; done; {bin} {root} --now {now}; echo EXITED:$?; sleep 60",
            go = go.display(),
            bin = bin.display(),
            root = root.display()
        );
        self.launch(&cmd, size.0, size.1, &state, env);
        self.run(&[
            "pipe-pane",
            "-t",
            SESSION,
            "-o",
            &format!("cat >> {}", log.display()),
        ]);
        std::fs::write(&go, b"").expect("the gate opens");
    }

    /// A detached session of `width` x `height` running `cmd` in `sh`,
    /// with the tests' environment, `state` and `env`.
    fn launch(&self, cmd: &str, width: &str, height: &str, state: &str, env: &[&str]) {
        let mut tmux = vec![
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            SESSION,
            "-x",
            width,
            "-y",
            height,
            "env",
            "NO_COLOR=1",
            // English whatever the machine speaks (a test of Chinese says so).
            "LC_ALL=C.UTF-8",
            // The user's own config (its roots, theme) never leaks in.
            "XDG_CONFIG_HOME=/nonexistent-loopdeck-test-config",
            state,
        ];
        tmux.extend_from_slice(env);
        tmux.extend_from_slice(&["sh", "-c", cmd]);
        self.run(&tmux);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", SESSION])
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", SESSION];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Wait until the screen satisfies `ok` (the console draws on events, so
    /// poll for a while rather than sleep a fixed time).
    pub fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "never saw {what}; screen:\n{s}"
            );
            sleep(Duration::from_millis(50));
        }
    }

    /// Wait until the screen shows `needle`.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(&format!("{needle:?}"), |s| s.contains(needle))
    }

    /// Wait until the screen no longer shows `needle`.
    pub fn wait_gone(&self, needle: &str) -> String {
        self.wait_until(&format!("{needle:?} gone"), |s| !s.contains(needle))
    }

    /// The pid of the shell the session's pane runs (`sh -c "loopdeck …;
    /// echo EXITED:$?; sleep 60"`).
    pub fn pane_pid(&self) -> u32 {
        let out = self.run(&["list-panes", "-t", SESSION, "-F", "#{pane_pid}"]);
        out.trim().parse().expect("a pane pid")
    }

    /// The pid of the console itself: the child of the pane's shell (the
    /// process to signal to kill the console, not the shell around it).
    pub fn console_pid(&self) -> u32 {
        let shell = self.pane_pid();
        let start = Instant::now();
        loop {
            if let Some(pid) = children_of(shell).into_iter().find(|p| {
                std::fs::read_to_string(format!("/proc/{p}/comm"))
                    .is_ok_and(|c| c.trim() == "loopdeck")
            }) {
                return pid;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no loopdeck process under the pane's shell {shell}"
            );
            sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

/// The pids whose parent is `pid` (from `/proc/*/stat`: the `children`
/// file needs a kernel option).
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            // `pid (comm) state ppid ...`: comm may hold spaces, so the
            // fields are counted from its closing parenthesis.
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// Without tmux: fail in CI, skip (saying so) elsewhere.
pub fn skip_without_tmux() -> bool {
    let available = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if available {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must have tmux (.ci/run installs it)"
    );
    eprintln!("tmux is not installed: skipping the end-to-end console test (apt-get install tmux)");
    true
}
