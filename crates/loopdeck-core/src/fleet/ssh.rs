//! The `ssh` command line for a host: the system `ssh` (so the user's
//! `~/.ssh/config`, agents, ProxyJump and certificates apply), with
//! options that make it fail fast and notice a dead link, and one remote
//! command whose every argument is quoted for a POSIX shell.
//!
//! ssh joins its remote arguments with spaces into one string that the
//! remote login shell parses again, so an argument is never passed as
//! is: [`quote`] single-quotes it. User text (a decision's answer) never
//! goes on the command line at all: it goes on stdin.

use std::ffi::OsString;

use super::HostSpec;

/// The options every host's `ssh` gets, before the user's own
/// `ssh_args`: never prompt (`BatchMode`), give up connecting after
/// 10 s, drop a link that stops answering for 30 s, and never share or
/// wait on a control master socket (`-S none`: a stale one hangs).
pub const OPTIONS: [&str; 10] = [
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=10",
    "-o",
    "ServerAliveInterval=15",
    "-o",
    "ServerAliveCountMax=2",
    "-S",
    "none",
];

/// `arg` quoted for a POSIX shell: as is when it holds only characters
/// no shell treats specially, else in single quotes (a `'` inside
/// becomes `'\''`).
pub fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '=' | '@' | '+')
        });
    if plain {
        return arg.to_owned();
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// A remote path quoted for a POSIX shell, its leading `~/` left out of
/// the quotes so that the remote shell expands it to that machine's home.
pub fn quote_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) if !rest.is_empty() => format!("~/{}", quote(rest)),
        _ if path == "~" || path == "~/" => "~".to_owned(),
        _ => quote(path),
    }
}

/// One argument of the remote command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg<'a> {
    /// A word of loopdeck's own (`watch`, `--json`): quoted all the same.
    Word(&'a str),
    /// A path on the remote machine (`~/` expands there).
    Path(&'a str),
}

/// The remote command line: the host's `command` as written (so
/// `~/bin/loopdeck` expands), then each argument quoted.
pub fn remote_command(host: &HostSpec, args: &[Arg<'_>]) -> String {
    let mut line = host.program().to_owned();
    for a in args {
        line.push(' ');
        line.push_str(&match a {
            Arg::Word(w) => quote(w),
            Arg::Path(p) => quote_path(p),
        });
    }
    line
}

/// The arguments to give `ssh` (the program itself not included) to run
/// `args` on `host`: the fixed [`OPTIONS`], `-p PORT`, the host's own
/// `ssh_args`, then `--` and the destination (so a destination can never
/// be read as an option), then the one remote command string.
pub fn argv(host: &HostSpec, args: &[Arg<'_>]) -> Vec<OsString> {
    let mut out: Vec<OsString> = OPTIONS.iter().map(OsString::from).collect();
    if let Some(port) = host.port {
        out.push("-p".into());
        out.push(port.to_string().into());
    }
    out.extend(host.ssh_args.iter().map(OsString::from));
    out.push("--".into());
    out.push(host.destination.clone().into());
    out.push(remote_command(host, args).into());
    out
}

/// The remote `loopdeck watch ROOT... --json --model --heartbeat N`.
pub fn watch_argv(host: &HostSpec, heartbeat_secs: u64) -> Vec<OsString> {
    let beat = heartbeat_secs.to_string();
    let mut args = vec![Arg::Word("watch")];
    args.extend(host.roots.iter().map(|r| Arg::Path(r)));
    args.extend([
        Arg::Word("--json"),
        Arg::Word("--model"),
        Arg::Word("--heartbeat"),
        Arg::Word(&beat),
    ]);
    argv(host, &args)
}

/// The remote `loopdeck watch ROOT... --json`: the plain feed, for a
/// relay that passes its lines on as they are (no `--model`, so any
/// loopdeck with `watch --json` answers; no heartbeat either).
pub fn relay_argv(host: &HostSpec) -> Vec<OsString> {
    let mut args = vec![Arg::Word("watch")];
    args.extend(host.roots.iter().map(|r| Arg::Path(r)));
    args.push(Arg::Word("--json"));
    argv(host, &args)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::process::Command;

    /// What `sh -c` makes of a quoted line: the words it would run.
    fn shell_words(line: &str) -> Vec<String> {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("for a in {line}; do printf '%s\\0' \"$a\"; done"))
            .env("HOME", "/home/someone")
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}: {out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// Every hostile argument comes back from a real shell byte for byte,
    /// one word each: quotes, `$(…)`, backquotes, `;`, globs, a leading
    /// `-`, spaces, a backslash, non-ASCII.
    #[test]
    fn a_real_shell_reads_back_every_hostile_argument() {
        let hostile = [
            "it's",
            "\"double\"",
            "$(id)",
            "`id`",
            "a; rm -rf /",
            "*",
            "-rf",
            "a b",
            "back\\slash",
            "'",
            "''",
            "x'y'z",
            "中文 路径",
            "$HOME",
            "~",
            "a|b&c>d<e",
        ];
        let line: Vec<String> = hostile.iter().map(|a| quote(a)).collect();
        assert_eq!(shell_words(&line.join(" ")), hostile);
    }

    #[test]
    fn plain_words_stay_unquoted_and_empty_is_quoted() {
        assert_eq!(quote("--json"), "--json");
        assert_eq!(quote("/srv/ws"), "/srv/ws");
        assert_eq!(quote(""), "''");
    }

    /// `~/` expands on the remote, and the rest of the path stays one word.
    #[test]
    fn a_home_relative_root_expands_there_and_stays_one_word() {
        assert_eq!(
            shell_words(&quote_path("~/a b/it's")),
            ["/home/someone/a b/it's"]
        );
        assert_eq!(shell_words(&quote_path("~")), ["/home/someone"]);
        assert_eq!(shell_words(&quote_path("/x/~/y")), ["/x/~/y"]);
    }

    #[test]
    fn the_destination_comes_after_a_double_dash_and_the_command_is_one_argument() {
        let mut h = HostSpec::new(
            "build-1",
            "ops@build1",
            vec!["~/work".into(), "/srv/a b".into()],
        );
        h.port = Some(2222);
        h.ssh_args = vec!["-F".into(), "/tmp/cfg".into()];
        let argv = watch_argv(&h, 10);
        let argv: Vec<String> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(&argv[..10], &OPTIONS.map(str::to_owned));
        assert_eq!(
            &argv[10..],
            [
                "-p",
                "2222",
                "-F",
                "/tmp/cfg",
                "--",
                "ops@build1",
                "loopdeck watch ~/work '/srv/a b' --json --model --heartbeat 10",
            ]
        );
    }

    #[test]
    fn the_relay_runs_the_plain_feed() {
        let h = HostSpec::new("b", "b", vec!["~/w".into()]);
        let argv = relay_argv(&h);
        assert_eq!(
            argv.last().unwrap().to_string_lossy(),
            "loopdeck watch ~/w --json"
        );
    }

    #[test]
    fn a_destination_that_ssh_would_read_as_an_option_is_refused() {
        for bad in ["-oProxyCommand=id", "a b", "a\nb", ""] {
            let h = HostSpec::new("h", bad, vec!["/r".into()]);
            assert!(
                matches!(
                    h.validate(),
                    Err(super::super::SpecError::Destination { .. })
                ),
                "{bad:?}"
            );
        }
        for bad in ["", "a b", "a:b", "x/y", "é"] {
            let h = HostSpec::new(bad, "host", vec!["/r".into()]);
            assert!(
                matches!(h.validate(), Err(super::super::SpecError::Name(_))),
                "{bad:?}"
            );
        }
        let h = HostSpec::new("h", "host", vec!["/r\nx".into()]);
        assert!(h.validate().is_err());
        let h = HostSpec::new("h", "host", vec![]);
        assert!(h.validate().is_err());
        let two = [
            HostSpec::new("h", "a", vec!["/r".into()]),
            HostSpec::new("h", "b", vec!["/r".into()]),
        ];
        assert_eq!(
            super::super::validate_all(&two),
            Err(super::super::SpecError::Duplicate("h".into()))
        );
    }
}
