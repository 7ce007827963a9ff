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
}
