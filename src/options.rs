//! The options every command shares (the console's included). A neutral
//! module, so the console does not depend on the command line's code.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::Args;

#[derive(Debug, Default, Args)]
pub struct Global {
    /// Fix "now" (RFC 3339, e.g. 2026-06-01T12:00:00Z), so ages and resume
    /// scenarios are reproducible.
    #[arg(long, global = true, value_name = "RFC3339", value_parser = parse_now)]
    pub now: Option<DateTime<Utc>>,
    /// Refuse every write.
    #[arg(long, global = true)]
    pub readonly: bool,
    /// Read this configuration file instead of the default one
    /// (~/.config/loopdeck/config.toml); it must exist.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Also read another machine's projects over ssh (`list`, `inbox`,
    /// `check`); repeat it for more hosts.
    ///
    /// `NAME=[USER@]HOST[:PORT]:ROOT`, e.g. `build1=ops@build1:~/work` or
    /// `lab=[::1]:2222:/srv/agents`: ROOT is everything after the first ':'
    /// followed by '/' or '~', a path on that machine (`~/` is its home).
    /// The same NAME again adds a root there. The system `ssh` (your
    /// ~/.ssh/config, agent and keys; never a password prompt) runs
    /// `loopdeck list|inbox|check ROOT... --json` there, found on that
    /// machine's PATH. A `[[host]]` table of the config with the same name
    /// gives its `command` (the remote loopdeck's path) and `ssh_args`
    /// (`-J`, `-F`...); this option replaces its destination and roots.
    /// Each row from a host says its `host` (the tables show `NAME · id`);
    /// a host that cannot be read is a problem of the run, `host NAME:
    /// why` (exit 1), and the others are still shown. Without a ROOT on
    /// the command line or in the config, only the hosts are read.
    #[arg(
        long = "host",
        global = true,
        value_name = "NAME=[USER@]HOST[:PORT]:ROOT",
        value_parser = crate::config::parse_host_arg
    )]
    pub hosts: Vec<crate::config::HostArg>,
}

fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time such as 2026-06-01T12:00:00Z ({e})"))
}
