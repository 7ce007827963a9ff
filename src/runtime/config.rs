//! The configuration file: default roots, theme, mouse.
//!
//! `--config FILE`, else `config.toml` in the user's config directory
//! (`~/.config/loopdeck/config.toml` on Linux), else the defaults.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::ui::Theme;
use crate::ui::theme::ThemeError;

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Roots opened when none is given on the command line (`~/` allowed).
    #[serde(default)]
    pub roots: Vec<PathBuf>,
    /// A built-in theme name (`default`, `solarized-dark`).
    pub theme: Option<String>,
    /// A theme file of your own (same keys as `themes/default.toml`).
    pub theme_file: Option<PathBuf>,
    /// Mouse wheel scrolling. Off by default so terminal text selection works.
    #[serde(default)]
    pub mouse: bool,
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read the config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Parse { path: String, message: String },
    #[error("config file {path}: {source}")]
    Theme { path: String, source: ThemeError },
}

/// The default location of the config file.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loopdeck").map(|d| d.config_dir().join("config.toml"))
}

/// Read the config: `explicit` must exist; the default location may not.
pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match default_path() {
            Some(p) if p.is_file() => p,
            _ => return Ok(Config::default()),
        },
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: shown.clone(),
        source,
    })?;
    parse(&text, &shown)
}

pub fn parse(text: &str, path: &str) -> Result<Config, ConfigError> {
    let mut c: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.message().to_owned(),
    })?;
    c.roots = c.roots.iter().map(|r| expand_home(r)).collect();
    Ok(c)
}

fn expand_home(p: &Path) -> PathBuf {
    match (p.strip_prefix("~"), directories::BaseDirs::new()) {
        (Ok(rest), Some(dirs)) => dirs.home_dir().join(rest),
        _ => p.to_path_buf(),
    }
}

impl Config {
    /// The theme this config asks for (`NO_COLOR` strips its colours).
    pub fn theme(&self, path: &str, no_color: bool) -> Result<Theme, ConfigError> {
        let err = |source| ConfigError::Theme {
            path: path.to_owned(),
            source,
        };
        match (&self.theme_file, &self.theme) {
            (Some(file), _) => {
                let text = std::fs::read_to_string(file).map_err(|source| ConfigError::Read {
                    path: file.display().to_string(),
                    source,
                })?;
                Theme::parse(&text, no_color).map_err(err)
            }
            (None, Some(name)) => Theme::builtin(name, no_color).map_err(err),
            (None, None) => Ok(Theme::fallback(no_color)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_config_reads() {
        let c = parse(
            "roots = [\"/srv/agents\"]\ntheme = \"solarized-dark\"\nmouse = true\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(c.roots, vec![PathBuf::from("/srv/agents")]);
        assert!(c.mouse);
        assert_eq!(c.theme("c.toml", false).unwrap().name, "solarized-dark");
    }

    #[test]
    fn mistakes_are_explained() {
        let e = parse("rots = [\"/x\"]\n", "/home/u/.config/loopdeck/config.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("config file /home/u/.config/loopdeck/config.toml: unknown field `rots`, expected one of"), "{e}");
        let e = parse("roots = \"/x\"\n", "c.toml").unwrap_err().to_string();
        assert_eq!(
            e,
            "config file c.toml: invalid type: string \"/x\", expected a sequence"
        );
        let c = parse("theme = \"neon\"\n", "c.toml").unwrap();
        assert_eq!(
            c.theme("c.toml", false).unwrap_err().to_string(),
            "config file c.toml: no theme named neon (built in: default, solarized-dark)"
        );
        let e = load(Some(Path::new("/nonexistent/loopdeck.toml")))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cannot read the config file /nonexistent/loopdeck.toml:"),
            "{e}"
        );
    }
}
