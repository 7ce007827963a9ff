//! The console's part of the configuration: the theme (the file itself is
//! read by [`crate::config`], for every command alike).

use crate::config::{Config, ConfigError};
use crate::ui::Theme;

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
