//! The processes behind a lock, a temp file or an interrupted decision:
//! whether one is alive on this host (a zombie is not), when it started
//! (so a later process given the same pid is told apart), this boot's id,
//! the pid namespace and the host's name. Read from `/proc` and `uname`;
//! shared by the locks, the sweep of stale temp files and the intents.

use std::fs;

/// Is there a process `pid` on this host (a zombie is not one)?
pub(crate) fn pid_alive(pid: u32) -> bool {
    let Ok(p) = i32::try_from(pid) else {
        return false;
    };
    if p <= 0 {
        return false;
    }
    #[cfg(unix)]
    {
        let Some(p) = rustix::process::Pid::from_raw(p) else {
            return false;
        };
        // Signal 0 only checks that the process exists.
        let exists = match rustix::process::test_kill_process(p) {
            Ok(()) | Err(rustix::io::Errno::PERM) => true,
            Err(_) => false,
        };
        exists && proc_state(pid) != Some('Z')
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Fields 3.. of `/proc/PID/stat` (after the command name, which may hold
/// spaces and parentheses).
fn proc_stat_fields(pid: u32) -> Option<Vec<String>> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &text[text.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_owned).collect())
}

fn proc_state(pid: u32) -> Option<char> {
    proc_stat_fields(pid)?.first()?.chars().next()
}

/// The start time of process `pid` in clock ticks since boot (field 22 of
/// `/proc/PID/stat`).
pub(crate) fn start_ticks(pid: u32) -> Option<u64> {
    proc_stat_fields(pid)?.get(19)?.parse().ok()
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`).
pub(crate) fn boot_id() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// This process's pid namespace (`readlink /proc/self/ns/pid`, e.g.
/// `pid:[4026531836]`).
pub(crate) fn pid_namespace() -> Option<String> {
    fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
}

/// This host's name.
pub fn host_name() -> String {
    // `uname`'s node name is what `gethostname` returns.
    #[cfg(unix)]
    {
        String::from_utf8_lossy(rustix::system::uname().nodename().to_bytes()).into_owned()
    }
    #[cfg(not(unix))]
    {
        std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".to_owned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::time::{Duration, Instant};

    use super::*;
    use crate::store::sweep::tests::dead_pid;

    /// A zombie is no live process, nor is pid 0 or a pid past `i32`; this
    /// process and pid 1 (another user's, for a user that is not root: the
    /// `EPERM` answer) are. Kills `pid_alive` → `true`/`false`, its `p <= 0`,
    /// its `||`/`&&`/`==` mutants and `!= Some('Z')` → `==`.
    #[test]
    fn a_zombie_is_not_alive() {
        assert!(pid_alive(std::process::id()));
        assert!(pid_alive(1));
        assert!(!pid_alive(0));
        assert!(!pid_alive(u32::MAX));
        assert!(!pid_alive(dead_pid()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let deadline = Instant::now() + Duration::from_secs(10);
        while proc_state(pid) != Some('Z') && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(proc_state(pid), Some('Z'), "the child is a zombie");
        assert!(!pid_alive(pid));
        child.wait().unwrap();
    }

    /// The start time is field 22 of `/proc/PID/stat`, counted after the
    /// command name, which may hold spaces and parentheses. Kills the
    /// mutants of `proc_stat_fields`' slice (`+ 1` → `- 1`/`* 1`) and
    /// `start_ticks` → `None`/`Some(0)`/`Some(1)`.
    #[test]
    fn the_start_time_is_field_22_of_proc_stat() {
        let text = fs::read_to_string("/proc/self/stat").unwrap();
        let after = &text[text.rfind(')').unwrap() + 2..];
        let field22: u64 = after.split(' ').nth(19).unwrap().parse().unwrap();
        // /proc/self is this process; its state is field 3 (the main thread
        // sleeps or runs while this test's thread reads it).
        assert_eq!(start_ticks(std::process::id()), Some(field22));
        let state = proc_state(std::process::id());
        assert!(matches!(state, Some('R' | 'S')), "{state:?}");
        assert_eq!(start_ticks(dead_pid()), None);
    }
}
