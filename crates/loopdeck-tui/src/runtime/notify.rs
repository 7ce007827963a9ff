//! Telling the user, through the terminal, that items started waiting:
//! the bell (BEL) and/or a desktop notification (OSC 9 or OSC 777), as
//! `[notify]` in the config asks. Written between frames, never inside a
//! synchronized update.
//!
//! The text comes from the projects' files: it is made safe here, where
//! it is output. Control characters (ESC, BEL, C1, newlines...) would end
//! or forge an escape sequence and become spaces (so do bidirectional
//! controls and line separators, which would reorder or break the text);
//! `;` would split OSC 777's fields (and turn OSC 9 text into a ConEmu
//! sub-command) and becomes `,`;
//! each field is capped at [`MAX_CHARS`] characters.
//!
//! Inside tmux (`$TMUX` set) the OSC is wrapped in tmux's DCS passthrough
//! (`ESC P tmux; ` + the sequence with each ESC doubled + `ESC \`), which
//! tmux forwards to the outer terminal only with
//! `set -g allow-passthrough on` (tmux 3.3 and later). The bell needs no
//! wrapping: tmux passes it on according to its `bell-action`.

use std::io::{self, Write};

use serde::Deserialize;

/// How a desktop notification is asked of the terminal (`[notify] desktop`).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Desktop {
    #[default]
    Off,
    /// `ESC ] 9 ; text BEL` (iTerm2, WezTerm, Windows Terminal, ghostty, kitty...).
    Osc9,
    /// `ESC ] 777 ; notify ; title ; body BEL` (rxvt-unicode, foot, VTE...).
    Osc777,
}

/// What the console does when items start waiting for a human or an
/// `[[escalate]]` rule fires on one (the config's `[notify]`, handed in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifySettings {
    /// Ring the terminal bell.
    pub bell: bool,
    /// A desktop notification through the terminal.
    pub desktop: Desktop,
    /// Also under `--readonly`; false silences both, and the command.
    pub when_readonly: bool,
    /// A command run for each item that starts waiting or escalates (see
    /// `hook`), as its words.
    pub command: Option<Vec<String>>,
    /// How long the command may run before it is killed.
    pub timeout: std::time::Duration,
}

impl Default for NotifySettings {
    fn default() -> Self {
        NotifySettings {
            bell: true,
            desktop: Desktop::Off,
            when_readonly: true,
            command: None,
            timeout: std::time::Duration::from_secs(10),
        }
    }
}

/// The longest title or body sent, in characters (terminals and desktop
/// notifiers cut long texts anyway; this keeps one event one short write).
pub const MAX_CHARS: usize = 200;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

/// What to send, decided once for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notifier {
    bell: bool,
    desktop: Desktop,
    tmux: bool,
}

impl Notifier {
    /// From the config, `--readonly` and whether the console runs in tmux.
    pub fn new(cfg: &NotifySettings, readonly: bool, tmux: bool) -> Self {
        let on = !readonly || cfg.when_readonly;
        Notifier {
            bell: on && cfg.bell,
            desktop: if on { cfg.desktop } else { Desktop::Off },
            tmux,
        }
    }

    /// Is the console running in tmux (from the environment)?
    pub fn in_tmux() -> bool {
        std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
    }

    /// The bytes that notify `title` / `body` (empty: nothing to send).
    pub fn sequence(&self, title: &str, body: &str) -> String {
        let mut out = String::new();
        let osc = match self.desktop {
            Desktop::Off => None,
            Desktop::Osc9 => Some(osc9(&format!("{title}: {body}"))),
            Desktop::Osc777 => Some(osc777(title, body)),
        };
        if let Some(osc) = osc {
            out.push_str(&if self.tmux { tmux_wrap(&osc) } else { osc });
        }
        if self.bell {
            out.push(BEL);
        }
        out
    }

    /// Send the notification to `out` (the terminal), flushed.
    pub fn send(&self, out: &mut impl Write, title: &str, body: &str) -> io::Result<()> {
        let seq = self.sequence(title, body);
        if seq.is_empty() {
            return Ok(());
        }
        out.write_all(seq.as_bytes())?;
        out.flush()
    }
}

/// `text` safe inside an OSC field: no control characters, no `;`, at
/// most [`MAX_CHARS`] characters (cut with `…`).
pub fn field(text: &str) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            ';' => ',',
            c if c.is_control() || crate::model::text::reorders(c) => ' ',
            c => c,
        };
        // Runs of blanks (a newline and its indent) become one space.
        if c == ' ' {
            if space || count == 0 {
                continue;
            }
            space = true;
        } else {
            space = false;
        }
        if count == MAX_CHARS - 1 {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out.trim_end().to_owned()
}

/// OSC 9: `ESC ] 9 ; text BEL`.
pub fn osc9(text: &str) -> String {
    format!("{ESC}]9;{}{BEL}", field(text))
}

/// OSC 777: `ESC ] 777 ; notify ; title ; body BEL`.
pub fn osc777(title: &str, body: &str) -> String {
    format!("{ESC}]777;notify;{};{}{BEL}", field(title), field(body))
}

/// `seq` through tmux's passthrough: `ESC P tmux; ESC ESC ] ... BEL ESC \`.
pub fn tmux_wrap(seq: &str) -> String {
    let doubled = seq.replace(ESC, &format!("{ESC}{ESC}"));
    format!("{ESC}Ptmux;{doubled}{ESC}\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(bell: bool, desktop: Desktop, when_readonly: bool) -> NotifySettings {
        NotifySettings {
            bell,
            desktop,
            when_readonly,
            ..NotifySettings::default()
        }
    }

    #[test]
    fn osc9_and_osc777_are_encoded() {
        assert_eq!(osc9("2 new questions"), "\u{1b}]9;2 new questions\u{7}");
        assert_eq!(
            osc777("loopdeck · alpha", "question: ship it?"),
            "\u{1b}]777;notify;loopdeck · alpha;question: ship it?\u{7}"
        );
    }

    #[test]
    fn tmux_gets_the_osc_through_its_passthrough() {
        assert_eq!(
            tmux_wrap(&osc9("hi")),
            "\u{1b}Ptmux;\u{1b}\u{1b}]9;hi\u{7}\u{1b}\\"
        );
        let n = Notifier::new(&cfg(true, Desktop::Osc9, true), false, true);
        assert_eq!(
            n.sequence("t", "b"),
            "\u{1b}Ptmux;\u{1b}\u{1b}]9;t: b\u{7}\u{1b}\\\u{7}"
        );
    }

    #[test]
    fn the_config_decides_what_is_sent() {
        let seq = |c: NotifySettings, readonly: bool| {
            Notifier::new(&c, readonly, false).sequence("t", "b")
        };
        assert_eq!(seq(NotifySettings::default(), false), "\u{7}");
        assert_eq!(seq(cfg(false, Desktop::Off, true), false), "");
        assert_eq!(
            seq(cfg(false, Desktop::Osc9, true), false),
            "\u{1b}]9;t: b\u{7}"
        );
        assert_eq!(
            seq(cfg(true, Desktop::Osc777, true), false),
            "\u{1b}]777;notify;t;b\u{7}\u{7}"
        );
        // Over --readonly: on unless the user says so.
        assert_eq!(
            seq(cfg(true, Desktop::Osc9, true), true),
            "\u{1b}]9;t: b\u{7}\u{7}"
        );
        assert_eq!(seq(cfg(true, Desktop::Osc9, false), true), "");
        assert_eq!(
            seq(cfg(true, Desktop::Osc9, false), false),
            "\u{1b}]9;t: b\u{7}\u{7}"
        );
        let mut out = Vec::new();
        Notifier::new(&cfg(false, Desktop::Off, true), false, false)
            .send(&mut out, "t", "b")
            .unwrap();
        assert!(out.is_empty());
    }

    /// Text from a file cannot end the sequence, forge another, or add a
    /// field; newlines become spaces; 10 kB is cut.
    #[test]
    fn hostile_text_is_made_safe() {
        let evil = "a\u{1b}]0;pwned\u{7}b;c\nd\r\n  e\u{9c}f\u{7f}g\tz";
        let s = osc777(evil, evil);
        assert_eq!(s.matches('\u{1b}').count(), 1, "{s:?}");
        assert_eq!(s.matches('\u{7}').count(), 1, "{s:?}");
        assert!(s.ends_with('\u{7}'));
        assert_eq!(s.matches(';').count(), 3, "{s:?}");
        assert_eq!(field(evil), "a ]0,pwned b,c d e f g z");
        assert!(!field("x\u{9b}31m").contains('\u{9b}'));
        // Bidirectional overrides and separators neither reorder nor break
        // the notification's text.
        assert_eq!(
            field("gpj.\u{202e}exe\u{2066}a\u{2069}\u{200f}b\u{061c}\u{2028}c\u{2029}d"),
            "gpj. exe a b c d"
        );

        let big = "x".repeat(10_000);
        let s = osc9(&big);
        assert_eq!(s.chars().count(), 4 + MAX_CHARS + 1, "ESC ] 9 ; text BEL");
        assert!(s.ends_with("x…\u{7}"));
        let wide = "问".repeat(10_000);
        assert_eq!(field(&wide).chars().count(), MAX_CHARS);
        assert_eq!(field("\n\n  \u{1b}"), "");

        let n = Notifier::new(&cfg(true, Desktop::Osc777, true), false, true);
        let s = n.sequence(evil, &big);
        // In tmux: the one ESC of the OSC doubled, the passthrough's own
        // two, and the bell after it.
        assert_eq!(s.matches('\u{1b}').count(), 4, "{s:?}");
        assert_eq!(s.matches('\u{7}').count(), 2);
        assert!(s.len() < 2 * MAX_CHARS * 4 + 64);
    }
}
