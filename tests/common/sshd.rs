//! A real OpenSSH server on 127.0.0.1 for the tests of other machines
//! (`--host`, `[[host]]`): its own host and client keys, config and state
//! in a temp dir, the system's `/usr/sbin/sshd` run in the foreground, and
//! an ssh client config that reaches it under any host alias:
//!
//! - any name but the two below: this sshd, as the current user, with the
//!   client key in `authorized_keys`;
//! - `badkey`: this sshd with another key, which it refuses
//!   (`Permission denied (publickey)`);
//! - `dead`: a port that listens and never accepts (ssh gives up after its
//!   `ConnectTimeout`).
//!
//! The remote login's `XDG_STATE_HOME` and `XDG_CONFIG_HOME` point into the
//! temp dir (sshd's `SetEnv`), so the remote loopdeck's memory stays there.
//! Its `PATH` is the login's own and holds no loopdeck: [`Sshd::host`] sets
//! `command` to the binary under test. `ssh` is always given
//! [`Sshd::ssh_args`] (`-F` this client config); nothing of the user's
//! `~/.ssh` is read or written.
//!
//! Without `/usr/sbin/sshd` the test fails saying what to install: it is
//! never skipped.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use loopdeck_core::fleet::HostSpec;

/// sshd by its absolute path: sshd refuses to re-exec itself otherwise.
pub const SSHD: &str = "/usr/sbin/sshd";

/// How long sshd may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(20);

pub struct Sshd {
    /// Everything of this server: keys, configs, the remote state.
    pub dir: tempfile::TempDir,
    /// The port sshd listens on (127.0.0.1).
    pub port: u16,
    /// The client config (`ssh -F`).
    pub ssh_config: PathBuf,
    child: Child,
    /// `dead`'s port: listening, never accepting.
    dead: TcpListener,
}

fn keygen(path: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "loopdeck-test", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .expect("ssh-keygen runs (install openssh-client)");
    assert!(
        out.status.success(),
        "ssh-keygen {}: {out:?}",
        path.display()
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn current_user() -> String {
    let out = Command::new("id").arg("-un").output().expect("id -un");
    assert!(out.status.success(), "id -un: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

impl Sshd {
    /// [`Sshd::start`], or `None` without sshd or ssh outside CI (skipped,
    /// saying so, as the tmux tests are): a new user's `cargo test` stays
    /// green; CI must have them (`.ci/run` installs them).
    pub fn start_or_skip() -> Option<Sshd> {
        let ssh = Command::new("ssh").arg("-V").output().is_ok();
        if Path::new(SSHD).exists() && ssh {
            return Some(Sshd::start());
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have {SSHD} and ssh (.ci/run installs openssh-server and openssh-client)"
        );
        eprintln!(
            "sshd or ssh is not installed: skipping a test of other machines over ssh (apt-get install openssh-server openssh-client)"
        );
        None
    }

    /// Starts the server and waits until it accepts connections.
    pub fn start() -> Sshd {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} is missing: install openssh-server (apt-get install openssh-server) to run the tests of other machines over ssh"
        );
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let host_key = d.join("host_ed25519");
        let client_key = d.join("client_ed25519");
        let bad_key = d.join("bad_ed25519");
        for k in [&host_key, &client_key, &bad_key] {
            keygen(k);
        }
        let authorized = d.join("authorized_keys");
        fs::copy(client_key.with_extension("pub"), &authorized).unwrap();
        // sshd's privilege separation directory.
        fs::create_dir_all("/run/sshd").unwrap();
        for sub in ["state", "noconfig"] {
            fs::create_dir_all(d.join(sub)).unwrap();
        }
        let port = free_port();
        let sshd_config = d.join("sshd_config");
        fs::write(
            &sshd_config,
            format!(
                "Port {port}\n\
                 ListenAddress 127.0.0.1\n\
                 HostKey {host_key}\n\
                 PidFile {pid}\n\
                 AuthorizedKeysFile {authorized}\n\
                 UsePAM no\n\
                 StrictModes no\n\
                 PermitRootLogin prohibit-password\n\
                 PasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\n\
                 MaxStartups 100\n\
                 MaxSessions 100\n\
                 LogLevel ERROR\n\
                 SetEnv XDG_STATE_HOME={state} XDG_CONFIG_HOME={noconfig}\n",
                host_key = host_key.display(),
                pid = d.join("sshd.pid").display(),
                authorized = authorized.display(),
                state = d.join("state").display(),
                noconfig = d.join("noconfig").display(),
            ),
        )
        .unwrap();
        let test = Command::new(SSHD)
            .args(["-t", "-f"])
            .arg(&sshd_config)
            .output()
            .unwrap();
        assert!(test.status.success(), "sshd -t: {test:?}");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&sshd_config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(d.join("sshd.log")).unwrap())
            .spawn()
            .unwrap();
        let dead = TcpListener::bind("127.0.0.1:0").unwrap();
        let dead_port = dead.local_addr().unwrap().port();
        let user = current_user();
        let common = |key: &Path| {
            format!(
                "  HostName 127.0.0.1\n  User {user}\n  IdentityFile {key}\n  IdentitiesOnly yes\n  UserKnownHostsFile /dev/null\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking no\n  LogLevel ERROR\n",
                key = key.display()
            )
        };
        let ssh_config = d.join("ssh_config");
        fs::write(
            &ssh_config,
            format!(
                "Host badkey\n  Port {port}\n{bad}\nHost dead\n  Port {dead_port}\n{good}\nHost * !badkey !dead\n  Port {port}\n{good}",
                bad = common(&bad_key),
                good = common(&client_key),
            ),
        )
        .unwrap();
        let mut sshd = Sshd {
            dir,
            port,
            ssh_config,
            child,
            dead,
        };
        sshd.wait_until_listening();
        sshd
    }

    fn wait_until_listening(&mut self) {
        let start = Instant::now();
        loop {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("sshd exited ({status}): {}", self.log());
            }
            assert!(
                start.elapsed() < START_TIMEOUT,
                "sshd did not listen on {} within {START_TIMEOUT:?}: {}",
                self.port,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What sshd said (its `-e` log).
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// The ssh options that reach this server: `-F` its client config.
    pub fn ssh_args(&self) -> Vec<String> {
        vec!["-F".to_owned(), self.ssh_config.display().to_string()]
    }

    /// The remote login's `XDG_STATE_HOME`.
    pub fn state_home(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// The absolute path of the loopdeck under test.
    pub fn loopdeck() -> String {
        env!("CARGO_BIN_EXE_loopdeck").to_owned()
    }

    /// A host named `name` reached as the destination `name` (so `badkey`
    /// and `dead` are the broken ones), with `roots`, running the binary
    /// under test there.
    pub fn host(&self, name: &str, roots: &[&Path]) -> HostSpec {
        let mut h = HostSpec::new(
            name,
            name,
            roots.iter().map(|r| r.display().to_string()).collect(),
        );
        h.command = Some(Self::loopdeck());
        h.ssh_args = self.ssh_args();
        h
    }

    /// `hosts` as `[[host]]` tables of a config file.
    pub fn config_toml(hosts: &[HostSpec]) -> String {
        let quote = |s: &str| serde_json::to_string(s).unwrap();
        let list = |v: &[String]| {
            let items: Vec<String> = v.iter().map(|s| quote(s)).collect();
            format!("[{}]", items.join(", "))
        };
        let mut out = String::new();
        for h in hosts {
            out.push_str(&format!(
                "[[host]]\nname = {}\nssh = {}\nroots = {}\nwritable = {}\nssh_args = {}\n",
                quote(&h.name),
                quote(&h.destination),
                list(&h.roots),
                h.writable,
                list(&h.ssh_args)
            ));
            if let Some(c) = &h.command {
                out.push_str(&format!("command = {}\n", quote(c)));
            }
            out.push('\n');
        }
        out
    }

    /// `ssh HOST COMMAND` with this server's options, for a test that
    /// checks the server itself.
    pub fn ssh(&self, host: &str, command: &str) -> std::process::Output {
        Command::new("ssh")
            .args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=10"])
            .args(self.ssh_args())
            .args(["--", host, command])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// `dead`'s port.
    pub fn dead_port(&self) -> u16 {
        self.dead.local_addr().unwrap().port()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
