//! The keys of the decision form, stage by stage, and the option keys of
//! the inbox.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::Input as TextInput;

use super::{Effect, LONG_TEXT, Model, Stage, chosen, close, offers, open, preview, retry, write};
use crate::app::bindings::digit;

/// In the inbox: a digit picks the selected item's option at once.
pub fn pick_key(m: &mut Model, n: usize) -> Vec<Effect> {
    open(m, Some(n))
}

/// In the inbox, `y`/`n` pick an option that says yes or no, if the
/// selected item offers one; the index of that choice.
pub fn yes_no(m: &Model, yes: bool) -> Option<usize> {
    let (_, _, choices) = offers(m)?;
    choices.iter().position(|c| {
        c.option.as_deref().is_some_and(|o| {
            let o = o.trim().to_lowercase();
            let word = o.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
            if yes {
                matches!(word, "yes" | "y")
            } else {
                matches!(word, "no" | "n")
            }
        })
    })
}

fn is_ctrl(k: &KeyEvent, c: char) -> bool {
    k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char(c)
}

/// A key while the form is open.
pub fn form_key(m: &mut Model, key: KeyEvent) -> Vec<Effect> {
    let Some(stage) = m.form.as_ref().map(|f| f.stage.clone()) else {
        m.mode = super::Mode::Normal;
        return Vec::new();
    };
    // Ctrl-C cancels the form like Esc (it never throws typed text away).
    let esc = key.code == KeyCode::Esc || is_ctrl(&key, 'c');
    match stage {
        Stage::Choose => choose_key(m, key, esc),
        Stage::Edit => edit_key(m, key, esc),
        Stage::Discard => match key.code {
            KeyCode::Char('y') => close(m),
            _ if esc || matches!(key.code, KeyCode::Char('n')) => {
                let back = m
                    .form
                    .as_mut()
                    .and_then(|f| f.before_discard.take())
                    .unwrap_or(Stage::Edit);
                set_stage(m, back);
                vec![Effect::Render]
            }
            _ => Vec::new(),
        },
        // Waiting: Esc gives up on a preview (its answer is then ignored);
        // a write in flight cannot be called back.
        Stage::Previewing if esc => back(m),
        Stage::Previewing | Stage::Writing => Vec::new(),
        Stage::Confirm { .. } => confirm_key(m, key, esc),
        // Written in part: nothing to retry from here (a retry could write
        // it twice); Esc closes.
        Stage::Failed {
            why: super::Why::Partial,
            ..
        } => {
            if esc {
                close(m)
            } else {
                Vec::new()
            }
        }
        Stage::Failed { .. } => match key.code {
            KeyCode::Enter | KeyCode::Char('r') => retry(m),
            // Esc: back to the text typed (kept), else out. A decision that
            // is no longer offered has nothing to go back to: ask before
            // throwing its text away.
            _ if esc => match m.form.as_ref().map(|f| (f.typed(), f.gone)) {
                Some((true, false)) => retry(m),
                Some((true, true)) => ask_discard(m),
                _ => close(m),
            },
            _ => Vec::new(),
        },
    }
}

/// Ask before throwing typed text away; `n` comes back here.
fn ask_discard(m: &mut Model) -> Vec<Effect> {
    if let Some(f) = m.form.as_mut() {
        f.before_discard = Some(std::mem::replace(&mut f.stage, Stage::Discard));
    }
    vec![Effect::Render]
}

fn set_stage(m: &mut Model, stage: Stage) {
    if let Some(f) = m.form.as_mut() {
        f.stage = stage;
    }
}

/// Leave a preview or a confirm: back to the text, the choices, or out.
fn back(m: &mut Model) -> Vec<Effect> {
    let Some(f) = m.form.as_mut() else {
        return Vec::new();
    };
    f.seq = 0;
    if !f.inputs.is_empty() {
        f.stage = Stage::Edit;
    } else if f.choices.len() > 1 {
        f.stage = Stage::Choose;
    } else {
        return close(m);
    }
    vec![Effect::Render]
}

fn choose_key(m: &mut Model, key: KeyEvent, esc: bool) -> Vec<Effect> {
    if esc {
        // Text typed before (a retry asking to pick again) is not thrown
        // away without asking.
        if m.form.as_ref().is_some_and(super::Form::typed) {
            return ask_discard(m);
        }
        return close(m);
    }
    let Some(f) = m.form.as_mut() else {
        return Vec::new();
    };
    let last = f.choices.len().saturating_sub(1);
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => f.pick = (f.pick + 1).min(last),
        KeyCode::Char('k') | KeyCode::Up => f.pick = f.pick.saturating_sub(1),
        KeyCode::Enter => return chosen(f, &mut m.decide_seq),
        code => match digit(code) {
            Some(n) if n <= last => {
                f.pick = n;
                let mut out = vec![Effect::Render];
                out.extend(chosen(f, &mut m.decide_seq));
                return out;
            }
            _ => return Vec::new(),
        },
    }
    vec![Effect::Render]
}

fn edit_key(m: &mut Model, key: KeyEvent, esc: bool) -> Vec<Effect> {
    let Some(f) = m.form.as_mut() else {
        return Vec::new();
    };
    let alt_enter = key.code == KeyCode::Enter && key.modifiers.contains(KeyModifiers::ALT);
    if is_ctrl(&key, 's') || alt_enter {
        let long = f.inputs.iter().map(super::Input::chars).max().unwrap_or(0);
        if long > LONG_TEXT && !f.long_ok {
            f.long_ok = true;
            f.note = Some(crate::t!("app.decide.too_long", max = LONG_TEXT, n = long));
            return vec![Effect::Render];
        }
        return preview(f, &mut m.decide_seq);
    }
    if esc {
        if f.typed() {
            return ask_discard(m);
        }
        if f.choices.len() > 1 {
            f.stage = Stage::Choose;
            f.inputs.clear();
            return vec![Effect::Render];
        }
        return close(m);
    }
    let n = f.inputs.len();
    let single = f.inputs.get(f.focus).is_some_and(|i| !i.field.multiline);
    match key.code {
        KeyCode::Tab => f.focus = (f.focus + 1) % n.max(1),
        KeyCode::BackTab => f.focus = (f.focus + n.max(1) - 1) % n.max(1),
        // One line: Enter goes on to the next field.
        KeyCode::Enter if single => f.focus = (f.focus + 1) % n.max(1),
        _ => {
            let Some(input) = f.inputs.get_mut(f.focus) else {
                return Vec::new();
            };
            if !input.area.input(TextInput::from(key)) {
                return vec![Effect::Render];
            }
            f.long_ok = false;
            f.note = None;
        }
    }
    vec![Effect::Render]
}

fn confirm_key(m: &mut Model, key: KeyEvent, esc: bool) -> Vec<Effect> {
    let page = m.page.max(1);
    // The item below the one decided as the inbox shows it now, at the
    // moment of confirming (readings while the form was open may have
    // moved the rows): the selection goes there after the write.
    let below = if m.screen == super::super::Screen::Inbox {
        super::super::panes::inbox(m)
            .get(m.inbox.selected + 1)
            .map(|&row| super::super::panes::inbox_key(m, row))
    } else {
        None
    };
    let Some(f) = m.form.as_mut() else {
        return Vec::new();
    };
    let Stage::Confirm {
        files, scroll, yes, ..
    } = &mut f.stage
    else {
        return Vec::new();
    };
    // The view clamps to what fits; the model keeps within the diff's
    // lines, so a key back up after `G` moves at once.
    let lines: usize = files.iter().map(|d| d.diff.lines().count() + 1).sum();
    let last = u16::try_from(lines.saturating_sub(page.min(lines))).unwrap_or(u16::MAX);
    let step = u16::try_from(page).unwrap_or(u16::MAX);
    match key.code {
        _ if esc => return back(m),
        KeyCode::Char('n') => return back(m),
        // The confirm key is its own: never the key that opened the form
        // (an option digit, y, Ctrl-S), so a doubled key cannot write.
        KeyCode::Char('w') | KeyCode::Enter if key.code != KeyCode::Enter || *yes => {
            if f.from_inbox {
                f.next_item = below;
            }
            return write(f, &mut m.decide_seq);
        }
        KeyCode::Enter => return back(m),
        KeyCode::Tab | KeyCode::BackTab | KeyCode::Left | KeyCode::Right => *yes = !*yes,
        KeyCode::Char('j') | KeyCode::Down => *scroll = scroll.saturating_add(1).min(last),
        KeyCode::Char('k') | KeyCode::Up => *scroll = (*scroll).min(last).saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => {
            *scroll = scroll.saturating_add(step).min(last);
        }
        KeyCode::PageUp => *scroll = (*scroll).min(last).saturating_sub(step),
        KeyCode::Char('g') | KeyCode::Home => *scroll = 0,
        KeyCode::Char('G') | KeyCode::End => *scroll = last,
        _ => return Vec::new(),
    }
    vec![Effect::Render]
}

/// Pasted text (bracketed paste) goes into the field being typed, whole.
pub fn paste(m: &mut Model, text: &str) -> Vec<Effect> {
    let Some(f) = m.form.as_mut() else {
        return Vec::new();
    };
    if f.stage != Stage::Edit {
        return Vec::new();
    }
    let single = f.inputs.get(f.focus).is_some_and(|i| !i.field.multiline);
    let Some(input) = f.inputs.get_mut(f.focus) else {
        return Vec::new();
    };
    // Terminals send a pasted line break as CR. Other control characters
    // (an escape sequence copied with the text) are not part of an answer.
    let text: String = text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    let text = if single {
        text.replace(['\n', '\t'], " ")
    } else {
        text
    };
    input.area.insert_str(text);
    f.long_ok = false;
    f.note = None;
    vec![Effect::Render]
}
