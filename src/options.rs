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
    /// Another machine's root over ssh, as `NAME=[USER@]HOST[:PORT]:ROOT`
    /// (repeatable; the console, list, inbox, check, show NAME:DIR, watch).
    #[arg(
        long = "host",
        global = true,
        value_name = "NAME=HOST:ROOT",
        value_parser = crate::config::parse_host_arg
    )]
    pub hosts: Vec<crate::config::HostArg>,
}

fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time such as 2026-06-01T12:00:00Z ({e})"))
}
