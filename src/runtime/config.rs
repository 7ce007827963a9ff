//! The console's part of the configuration: the theme (the file itself is
//! read by [`crate::config`], for every command alike), and the settings
//! the console starts with.

use std::path::{Path, PathBuf};

use crate::app::Binding;
use crate::config::{Config, ConfigError};
use crate::ui::Theme;

/// What the console starts with: the config, and what it refused to start
/// without (a theme it draws, rule colours it draws, a keymap, the roots).
pub struct Settings {
    pub cfg: Config,
    pub theme: Theme,
    /// `NO_COLOR`: a theme picked later is stripped of its colours too.
    pub no_color: bool,
    pub keymap: &'static [Binding],
    pub roots: Vec<PathBuf>,
}

/// Load the config at `file` (none: the usual place) and what the console
/// builds from it, for `roots` (none: the configured roots, else `.`);
/// speak the language it asks for. `Err`: what to say before refusing to
/// start (a usage error), in the language spoken.
pub fn settings(file: Option<&Path>, roots: &[PathBuf]) -> Result<Settings, String> {
    crate::config::speak(None);
    let cfg = crate::config::load(file).map_err(|e| e.to_string())?;
    crate::config::speak(Some(&cfg));
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = theme(&cfg, no_color).map_err(|e| e.to_string())?;
    // A rule's colour the console cannot draw is refused at start.
    rule_colours(&cfg).map_err(|e| e.to_string())?;
    // `[keys]`: a mistake is refused at start, at its line.
    let keymap = crate::app::keymap::build(&cfg.keys.0).map_err(|e| {
        ConfigError::Parse {
            path: cfg.shown(),
            line: Some(e.line),
            column: Some(e.column),
            message: e.message,
        }
        .to_string()
    })?;
    // A configured root that is gone is a problem of the run (shown with
    // the projects), not a reason to refuse the others.
    let roots = crate::config::roots(roots, &cfg).map_err(|e| e.to_string())?;
    Ok(Settings {
        cfg,
        theme,
        no_color,
        keymap,
        roots,
    })
}

/// The theme `config` asks for (`NO_COLOR` strips its colours).
pub fn theme(config: &Config, no_color: bool) -> Result<Theme, ConfigError> {
    let err = |e: crate::ui::theme::ThemeError| ConfigError::Theme {
        path: config.shown(),
        message: e.to_string(),
    };
    match (&config.theme_file, &config.theme) {
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

/// Every `[[escalate]]` rule's colour names one the console can draw.
pub fn rule_colours(config: &Config) -> Result<(), ConfigError> {
    use std::str::FromStr;
    for (i, rule) in config.escalate.iter().enumerate() {
        if let Some(c) = &rule.colour
            && ratatui::style::Color::from_str(c).is_err()
        {
            let name = rule.name.clone().unwrap_or_else(|| format!("#{}", i + 1));
            return Err(ConfigError::Theme {
                path: config.shown(),
                message: format!(
                    "[[escalate]] {name}: {}",
                    crate::t!("runtime.config.bad_colour", value = c)
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn themes_are_named_and_mistakes_explained() {
        let c = crate::config::parse("theme = \"solarized-dark\"\n", "c.toml").unwrap();
        assert_eq!(theme(&c, false).unwrap().name, "solarized-dark");
        let mut c = crate::config::parse("theme = \"neon\"\n", "c.toml").unwrap();
        c.file = Some("c.toml".into());
        assert_eq!(
            theme(&c, false).unwrap_err().to_string(),
            "config file c.toml: no theme named neon (built in: default, light, solarized-dark)"
        );
        let c = crate::config::parse("theme = \"light\"\n", "c.toml").unwrap();
        assert_eq!(theme(&c, false).unwrap().name, "light");
    }

    #[test]
    fn a_rule_colour_must_be_one_the_console_draws() {
        let mut c = crate::config::parse(
            "[[escalate]]\nname = \"late\"\ncolour = \"blurple\"\n",
            "c.toml",
        )
        .unwrap();
        c.file = Some("c.toml".into());
        assert!(
            rule_colours(&c)
                .unwrap_err()
                .to_string()
                .starts_with("config file c.toml: [[escalate]] late: `blurple` is not a colour")
        );
        for ok in ["red", "light-blue", "#ff8800", "208"] {
            let c = crate::config::parse(&format!("[[escalate]]\ncolour = \"{ok}\"\n"), "c.toml")
                .unwrap();
            assert!(rule_colours(&c).is_ok(), "{ok}");
        }
    }
}
