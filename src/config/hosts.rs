//! Other machines, read over ssh: the config's `[[host]]` tables and the
//! command line's `--host NAME=[user@]host[:port]:ROOT`, made into the
//! core's [`HostSpec`]s, checked with [`fleet::validate_all`].
//!
//! ```toml
//! [[host]]
//! name = "build-1"                  # what loopdeck calls it
//! ssh = "ops@build1"                # ssh's destination, as ~/.ssh/config knows it
//! roots = ["~/work", "/srv/agents"] # paths there (~/ is that machine's home)
//! writable = false                  # decisions may be made there (default no)
//! command = "~/bin/loopdeck"        # the remote loopdeck (default: on its PATH)
//! ssh_args = ["-J", "bastion"]      # more ssh options, before the destination
//! ```
//!
//! A `--host` of the same name as a `[[host]]` table replaces its
//! destination, port and roots (where to look), and keeps its `command`,
//! `ssh_args` and `writable` (how to get there and what to run: the
//! command line cannot say them); the same `--host NAME` given again adds
//! a root.

use serde::Deserialize;

use loopdeck_core::fleet::{self, HostSpec};

use super::{Config, ConfigError, line_column};
use crate::options::Global;

/// One `[[host]]` table as written.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// What loopdeck calls it: letters, digits, `.`, `_`, `-`.
    pub name: String,
    /// ssh's destination (`[user@]host`, or a `Host` of `~/.ssh/config`).
    pub ssh: String,
    /// The roots there, as paths there.
    #[serde(default)]
    pub roots: Vec<String>,
    /// Whether decisions may be made on its projects (default no).
    #[serde(default)]
    pub writable: bool,
    /// The remote loopdeck (default `loopdeck` on the remote `PATH`).
    pub command: Option<String>,
    /// More ssh options (`["-F", "FILE"]`, `["-J", "jump"]`).
    #[serde(default)]
    pub ssh_args: Vec<String>,
}

impl HostConfig {
    /// The host this table describes.
    pub fn spec(&self) -> HostSpec {
        HostSpec {
            writable: self.writable,
            command: self.command.clone(),
            ssh_args: self.ssh_args.clone(),
            ..HostSpec::new(&self.name, &self.ssh, self.roots.clone())
        }
    }
}

/// One `--host NAME=[user@]host[:port]:ROOT` as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostArg {
    pub name: String,
    /// `[user@]host`, an IPv6 address without its brackets.
    pub destination: String,
    pub port: Option<u16>,
    pub root: String,
}

/// Reads `--host NAME=[user@]host[:port]:ROOT`: ROOT is everything after
/// the first `:` followed by `/` or `~` (outside an IPv6 address's
/// brackets, `[::1]`).
pub fn parse_host_arg(text: &str) -> Result<HostArg, String> {
    let syntax = || crate::t!("runtime.host.syntax", value = text);
    let (name, rest) = text.split_once('=').ok_or_else(syntax)?;
    let mut bracket = false;
    let mut split = None;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '[' => bracket = true,
            ']' => bracket = false,
            ':' if !bracket && matches!(chars.peek(), Some((_, '/' | '~'))) => {
                split = Some(i);
                break;
            }
            _ => {}
        }
    }
    let at = split.ok_or_else(syntax)?;
    let (target, root) = (&rest[..at], &rest[at + 1..]);
    let (user, hostport) = match target.rfind('@') {
        Some(i) => (Some(&target[..i]), &target[i + 1..]),
        None => (None, target),
    };
    let (host, port) = match hostport.strip_prefix('[') {
        Some(inner) => {
            let (host, after) = inner.split_once(']').ok_or_else(syntax)?;
            match after {
                "" => (host, None),
                _ => (host, Some(after.strip_prefix(':').ok_or_else(syntax)?)),
            }
        }
        None => match hostport.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (hostport, None),
        },
    };
    let port = match port {
        None => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => Some(n),
            _ => return Err(crate::t!("runtime.host.port", port = p, value = text)),
        },
    };
    if host.is_empty() || user == Some("") {
        return Err(syntax());
    }
    let destination = match user {
        Some(u) => format!("{u}@{host}"),
        None => host.to_owned(),
    };
    let arg = HostArg {
        name: name.to_owned(),
        destination,
        port,
        root: root.to_owned(),
    };
    let mut spec = HostSpec::new(&arg.name, &arg.destination, vec![arg.root.clone()]);
    spec.port = arg.port;
    spec.validate().map_err(|e| e.to_string())?;
    Ok(arg)
}

/// Checks the `[[host]]` tables of a config just parsed from `text`: a
/// mistake names the host, what is wrong and the line of its table.
pub(super) fn check(config: &Config, text: &str, path: &str) -> Result<(), ConfigError> {
    let mut seen = std::collections::HashSet::new();
    for table in &config.hosts {
        let spec = table.get_ref().spec();
        let err = match spec.validate() {
            Err(e) => Some(e),
            Ok(()) if !seen.insert(spec.name.clone()) => {
                Some(fleet::SpecError::Duplicate(spec.name.to_string()))
            }
            Ok(()) => None,
        };
        if let Some(e) = err {
            let (line, column) = line_column(text, table.span().start);
            return Err(ConfigError::Parse {
                path: path.to_owned(),
                line: Some(line),
                column: Some(column),
                message: e.to_string(),
            });
        }
    }
    Ok(())
}

/// Every host of this run: the config's `[[host]]` tables (a `--host` of
/// the same name replacing its destination, port and roots, in its
/// place), then the command line's others, in the order given; all
/// checked together. `Err`: what
/// is wrong, in the language spoken (a usage error).
pub fn hosts(global: &Global, config: &Config) -> Result<Vec<HostSpec>, String> {
    from_args(&global.hosts, config)
}

/// [`hosts`] from the `--host` arguments alone.
pub fn from_args(args: &[HostArg], config: &Config) -> Result<Vec<HostSpec>, String> {
    let mut given: Vec<HostSpec> = Vec::new();
    for a in args {
        match given.iter_mut().find(|h| *h.name == *a.name) {
            Some(h) if h.destination != a.destination || h.port != a.port => {
                return Err(crate::t!(
                    "runtime.host.repeated",
                    name = a.name,
                    first = shown_target(&h.destination, h.port),
                    second = shown_target(&a.destination, a.port)
                ));
            }
            Some(h) => {
                if !h.roots.contains(&a.root) {
                    h.roots.push(a.root.clone());
                }
            }
            None => {
                let mut h = HostSpec::new(&a.name, &a.destination, vec![a.root.clone()]);
                h.port = a.port;
                given.push(h);
            }
        }
    }
    let mut all: Vec<HostSpec> = config
        .hosts
        .iter()
        .map(|t| t.get_ref().spec())
        .map(|c| match given.iter().position(|g| g.name == c.name) {
            // Where to look is the command line's; how to get there and
            // what to run, the table's.
            Some(i) => HostSpec {
                writable: c.writable,
                command: c.command,
                ssh_args: c.ssh_args,
                ..given.remove(i)
            },
            None => c,
        })
        .collect();
    all.extend(given);
    fleet::validate_all(&all).map_err(|e| e.to_string())?;
    Ok(all)
}

fn shown_target(destination: &str, port: Option<u16>) -> String {
    match port {
        Some(p) => format!("{destination}:{p}"),
        None => destination.to_owned(),
    }
}
