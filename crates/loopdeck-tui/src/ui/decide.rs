//! The decision form over the console: the chooser, the editor, the
//! confirm dialog with the diff, and what went wrong. The form's keys are
//! shown in the hint bar ([`keys`]), not inside the dialog, so the dialog
//! keeps its rows for the text and the diff.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Padding, Paragraph};

use super::View;
use super::overlay::{centered, clear};
use super::widgets::{block, clean, clip, fit, offset, wrapped};
use crate::app::decide::{FileDiff, Form, Input, LONG_TEXT, Stage, Why};
use crate::model::text::width as text_width;

/// The widest the dialog gets: a diff line stays readable and a wide
/// terminal calm.
const MAX_WIDTH: u16 = 100;

/// The tallest the editor gets.
const EDIT_HEIGHT: u16 = 30;

/// Lines of the heading (the question) kept above an editor or a diff.
const HEAD_LINES: u16 = 3;

pub(super) fn render(m: &View, f: &mut Frame, area: Rect) {
    let Some(form) = &m.form else {
        return;
    };
    let width = area.width.saturating_sub(4).min(MAX_WIDTH);
    let full = area.height.saturating_sub(2).max(3);
    // The text inside the border and its one column of padding each side.
    let w = width.saturating_sub(4);
    let t = &m.theme;
    let title = fit(
        Line::from(Span::styled(title(form), t.bold)),
        width.saturating_sub(2),
    );
    let frame = |height: u16| {
        let rect = centered(area, width, height.min(full));
        let b = block(m, title.clone(), true).padding(Padding::horizontal(1));
        (rect, b)
    };
    match &form.stage {
        Stage::Edit | Stage::Discard => {
            // Room to write in, not a wall of empty box on a tall screen
            // (the editor scrolls).
            let (rect, b) = frame(full.min(EDIT_HEIGHT));
            clear(f, rect);
            let inside = b.inner(rect);
            f.render_widget(b, rect);
            editor(m, f, form, inside);
        }
        Stage::Confirm {
            files,
            said,
            scroll,
            yes,
        } => {
            let (rect, b) = frame(full);
            clear(f, rect);
            let inside = b.inner(rect);
            f.render_widget(b, rect);
            confirm(m, f, form, inside, (files, said, *scroll, *yes));
        }
        Stage::Choose => {
            // Room for the heading, a blank line, the choices, the note.
            let room = full.saturating_sub(2);
            let lines = chooser(m, form, w, room);
            let (rect, b) = frame(lines.len() as u16 + 2);
            clear(f, rect);
            f.render_widget(Paragraph::new(lines).block(b), rect);
        }
        Stage::Previewing | Stage::Writing | Stage::Failed { .. } => {
            let lines = message(m, form, w, full.saturating_sub(2));
            let (rect, b) = frame(lines.len() as u16 + 2);
            clear(f, rect);
            f.render_widget(Paragraph::new(lines).block(b), rect);
        }
    }
}

/// The dialog's title for the stage: always the project, and the item as
/// far as it is known (the chooser's common row; the decision once picked),
/// so a reading that moved the list under the dialog cannot hide which
/// item is answered.
fn title(form: &Form) -> String {
    let what = form.title();
    // What every choice is about, when they agree (a question's options).
    let rows: Vec<Option<&str>> = form.choices.iter().map(|c| c.address.row()).collect();
    let common = rows
        .first()
        .copied()
        .flatten()
        .filter(|r| rows.iter().all(|x| *x == Some(*r)));
    let failed = |state: &str| format!(" {state} · {what} · {} ", form.project);
    match &form.stage {
        Stage::Choose => match common {
            Some(row) => format!(
                " {} ",
                crate::t!(
                    "ui.decide.title_choose_item",
                    item = row,
                    project = form.project
                )
            ),
            None => format!(
                " {} ",
                crate::t!("ui.decide.title_choose", project = form.project)
            ),
        },
        Stage::Confirm { .. } => format!(
            " {} ",
            crate::t!(
                "ui.decide.title_confirm",
                what = what,
                project = form.project
            )
        ),
        Stage::Failed {
            why: Why::Changed, ..
        } => failed(crate::t!("ui.decide.title_conflict")),
        Stage::Failed {
            why: Why::Locked, ..
        } => failed(crate::t!("ui.decide.title_locked")),
        Stage::Failed {
            why: Why::Partial, ..
        } => failed(crate::t!("ui.decide.title_partial")),
        Stage::Failed { .. } => failed(crate::t!("ui.decide.title_refused")),
        _ => format!(" {what} · {} ", form.project),
    }
}

/// The form's keys in its stage, for the hint bar (the one place they are
/// shown).
pub(super) fn keys(form: &Form) -> &'static str {
    match &form.stage {
        Stage::Choose => crate::t!("ui.decide.keys_choose"),
        Stage::Edit if form.inputs.len() > 1 => crate::t!("ui.decide.keys_edit_fields"),
        Stage::Edit => crate::t!("ui.decide.keys_edit"),
        Stage::Discard => crate::t!("ui.decide.keys_discard"),
        Stage::Previewing => crate::t!("ui.decide.keys_previewing"),
        Stage::Writing => crate::t!("ui.decide.keys_writing"),
        Stage::Confirm { .. } => crate::t!("ui.decide.keys_confirm"),
        Stage::Failed {
            why: Why::Partial, ..
        } => crate::t!("ui.decide.keys_failed_partial"),
        Stage::Failed { .. } if form.gone => crate::t!("ui.decide.keys_failed_gone"),
        Stage::Failed { .. } if form.typed() => crate::t!("ui.decide.keys_failed_typed"),
        Stage::Failed { .. } => crate::t!("ui.decide.keys_failed"),
    }
}

/// The heading (what is decided), wrapped, at most `max` lines.
fn heading(m: &View, form: &Form, w: u16, max: u16) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    wrapped(&mut lines, w, form.heading_now(), m.theme.bold);
    clip(lines, max.max(1), w)
}

/// The acceptance threshold and due date of the research node the
/// picked decision is about, where its project's frontier has them.
fn needs(m: &View, form: &Form) -> Vec<(&'static str, String)> {
    let Some(id) = form.choice().and_then(|c| c.address.target.as_deref()) else {
        return Vec::new();
    };
    let Some(q) = m
        .projects
        .iter()
        .find(|p| p.path == form.path && p.format == form.format)
        .and_then(|p| p.frontier.research.iter().find(|q| q.id == id))
    else {
        return Vec::new();
    };
    [
        (
            crate::t!("ui.inbox.field_accept_if"),
            &q.acceptance_threshold,
        ),
        (crate::t!("ui.inbox.field_due"), &q.due_by),
    ]
    .into_iter()
    .filter_map(|(label, v)| v.clone().map(|v| (label, v)))
    .collect()
}

/// The note under the fields (an empty answer, a long text, a refusal).
fn note(m: &View, form: &Form, w: u16) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(n) = &form.note {
        wrapped(&mut lines, w, n, m.theme.warn.patch(m.theme.bold));
    }
    clip(lines, 3, w)
}

/// The chooser: the heading, then the numbered choices, the one under the
/// cursor highlighted; only the ones that fit in `room` rows.
fn chooser(m: &View, form: &Form, w: u16, room: u16) -> Vec<Line<'static>> {
    let t = &m.theme;
    let note = note(m, form, w);
    // A small terminal keeps the choices, not the spacing: one line of
    // heading, no blank line.
    let small = room < 6;
    let mut lines = heading(m, form, w, if small { 1 } else { (room / 3).max(1) });
    if !small {
        lines.push(Line::default());
    }
    let mut list = (room as usize)
        .saturating_sub(lines.len() + note.len())
        .max(1);
    if form.choices.len() > list {
        // The "… more" line takes one.
        list = list.saturating_sub(1).max(1);
    }
    let first = offset(form.pick, list);
    for (i, c) in form.choices.iter().enumerate().skip(first).take(list) {
        let n = if i < 9 {
            format!("{}", i + 1)
        } else {
            " ".to_owned()
        };
        let on = i == form.pick;
        let line = Line::from(vec![
            Span::raw(if on { "› " } else { "  " }),
            Span::styled(format!("{n} "), if on { Style::new() } else { t.accent }),
            Span::raw(c.label()),
        ]);
        let mut line = fit(line, w);
        if on {
            // The whole row, so the cursor reads without colour too.
            let pad = (w as usize).saturating_sub(line.width());
            line.spans.push(Span::raw(" ".repeat(pad)));
            line = line.style(t.selection);
        }
        lines.push(line);
    }
    if form.choices.len() > first + list {
        lines.push(Line::from(Span::styled(
            format!(
                "  … {}",
                crate::t!("ui.decide.more", n = form.choices.len() - first - list)
            ),
            t.muted,
        )));
    }
    lines.extend(note);
    lines
}

/// Waiting for the preview or the write, or what went wrong.
fn message(m: &View, form: &Form, w: u16, room: u16) -> Vec<Line<'static>> {
    let t = &m.theme;
    let mut lines = heading(m, form, w, HEAD_LINES);
    lines.push(Line::default());
    match &form.stage {
        Stage::Previewing => lines.push(Line::from(Span::styled(
            crate::t!("ui.decide.previewing"),
            t.muted,
        ))),
        Stage::Writing => lines.push(Line::from(Span::styled(
            crate::t!("ui.decide.writing"),
            t.muted,
        ))),
        Stage::Failed { message, why } => {
            wrapped(&mut lines, w, message, t.error.patch(t.bold));
            if *why == Why::Locked {
                lines.push(Line::default());
                lines.push(Line::from(Span::styled(
                    crate::t!("ui.decide.locked_resolve"),
                    t.muted,
                )));
            }
            if why.conflict() {
                lines.push(Line::default());
                let kept = !form.inputs.is_empty();
                let said = match (form.unread, form.retry_queued, kept) {
                    (false, _, true) => crate::t!("ui.decide.reread_kept"),
                    (false, _, false) => crate::t!("ui.decide.reread"),
                    (true, false, true) => crate::t!("ui.decide.rereading_kept"),
                    (true, false, false) => crate::t!("ui.decide.rereading"),
                    (true, true, true) => crate::t!("ui.decide.rereading_comes_back"),
                    (true, true, false) => crate::t!("ui.decide.rereading_retry"),
                };
                lines.push(Line::from(Span::styled(said, t.muted)));
            }
        }
        _ => {}
    }
    let lines = wrap_lines(lines, w);
    clip(lines, room, w)
}

/// Lines wider than `w` (a long fixed sentence) wrapped, style kept.
fn wrap_lines(lines: Vec<Line<'static>>, w: u16) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        if l.width() <= w as usize || l.spans.len() != 1 {
            out.push(l);
            continue;
        }
        let style = l.spans[0].style;
        wrapped(&mut out, w, &l.spans[0].content, style);
    }
    out
}

/// The editor: the heading, the option picked, one box per field (the
/// focused multi-line one gets the room), the note; under Discard a small
/// question over it.
fn editor(m: &View, f: &mut Frame, form: &Form, area: Rect) {
    let t = &m.theme;
    let w = area.width;
    let mut head = heading(m, form, w, HEAD_LINES);
    if let Some(option) = form.choice().and_then(|c| c.option.as_deref()) {
        head.push(fit(
            Line::from(vec![
                Span::styled(crate::t!("ui.decide.chosen"), t.muted),
                Span::styled(option.to_owned(), t.accent),
            ]),
            w,
        ));
    }
    // What the evidence must show, from the node it is about: its
    // acceptance threshold and due date (issue 20 §4).
    for (label, value) in needs(m, form) {
        head.push(fit(
            Line::from(vec![
                Span::styled(format!("{label}  "), t.muted),
                Span::raw(crate::model::text::sanitize_line(&value).into_owned()),
            ]),
            w,
        ));
    }
    let note = note(m, form, w);
    // The box that grows: the focused field when it takes several lines,
    // else the first that does.
    let big = match form.inputs.get(form.focus) {
        Some(i) if i.field.multiline => Some(form.focus),
        _ => form.inputs.iter().position(|i| i.field.multiline),
    };
    let mut rows = vec![Constraint::Length(head.len() as u16), Constraint::Length(1)];
    for (i, input) in form.inputs.iter().enumerate() {
        rows.push(if Some(i) == big {
            Constraint::Min(3)
        } else if input.field.multiline {
            Constraint::Length(4)
        } else {
            Constraint::Length(3)
        });
    }
    if big.is_none() {
        rows.push(Constraint::Min(0));
    }
    rows.push(Constraint::Length(note.len() as u16));
    let areas = Layout::vertical(rows).split(area);
    f.render_widget(Paragraph::new(head), areas[0]);
    let editing = form.stage == Stage::Edit;
    for (i, input) in form.inputs.iter().enumerate() {
        let focused = editing && i == form.focus;
        let area = input_widget(m, input, focused);
        f.render_widget(&area, areas[i + 2]);
    }
    if let Some(last) = areas.last() {
        f.render_widget(Paragraph::new(note), *last);
    }
    if form.stage == Stage::Discard {
        let ask = centered(area, 44.min(w), 4);
        clear(f, ask);
        f.render_widget(
            Paragraph::new(vec![
                Line::from(Span::styled(crate::t!("ui.decide.discard"), t.bold)),
                Line::from(Span::styled(crate::t!("ui.decide.keys_discard"), t.muted)),
            ])
            .block(
                Block::bordered()
                    .border_style(t.warn)
                    .padding(Padding::horizontal(1)),
            ),
            ask,
        );
    }
}

/// A field's editor for this frame: ratatui-textarea's own widget, in a
/// box titled with the label (`*`: required) and the character count; the
/// cursor only in the focused one.
fn input_widget(m: &View, input: &Input, focused: bool) -> ratatui_textarea::TextArea<'static> {
    let t = &m.theme;
    let mut area = input.area.clone();
    let field = input.field;
    let label = format!(
        " {}{} ",
        field.label,
        if field.required { " *" } else { "" }
    );
    let n = input.chars();
    let (count, count_style) = if n > LONG_TEXT {
        (
            format!(
                " {} ",
                crate::t!("ui.decide.chars_over", n = n, max = LONG_TEXT)
            ),
            t.warn.patch(t.bold),
        )
    } else {
        (
            format!(" {} ", crate::t!("ui.decide.chars", n = n)),
            t.muted,
        )
    };
    let border = if focused { t.accent } else { t.muted };
    area.set_block(
        Block::bordered()
            .border_style(border)
            .padding(Padding::horizontal(1))
            .title(Line::from(Span::styled(
                label,
                if focused { t.accent } else { Style::new() },
            )))
            .title_top(Line::from(Span::styled(count, count_style)).right_aligned()),
    );
    area.set_style(Style::new());
    area.set_cursor_line_style(Style::new());
    area.set_cursor_style(if focused {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    });
    area.set_placeholder_style(t.muted);
    if focused {
        area.set_placeholder_text(crate::t!("ui.decide.type_here"));
    } else if !field.required {
        area.set_placeholder_text(format!(" {}", crate::t!("ui.decide.optional")));
    } else {
        area.set_placeholder_text("");
    }
    area
}

/// The confirm dialog: what changes, the diff (scrolled), the buttons.
fn confirm(
    m: &View,
    f: &mut Frame,
    form: &Form,
    area: Rect,
    stage: (&[FileDiff], &[String], u16, bool),
) {
    let (files, said, scroll, yes) = stage;
    let t = &m.theme;
    let w = area.width;
    // A short terminal keeps the diff and the buttons: one line of heading
    // and of file names, no rules.
    let small = area.height < 9;
    let head = heading(m, form, w, if small { 1 } else { 2 });
    let names: Vec<String> = files.iter().map(|d| d.file.clone()).collect();
    let mut list = Vec::new();
    let what = crate::t!(
        "ui.decide.writes",
        n = files.len(),
        files = names.join(" · ")
    );
    wrapped(&mut list, w, &what, t.bold);
    // What the format said beyond the diff (a migration) comes with the
    // files it writes, never scrolled away.
    for s in said {
        wrapped(&mut list, w, &crate::model::text::sanitize_line(s), t.warn);
    }
    let room = u16::try_from(3 + 2 * said.len()).unwrap_or(u16::MAX);
    let list = clip(list, if small { 1 } else { room }, w);
    let rule = || Line::from(Span::styled("─".repeat(w as usize), t.muted));
    let rules = u16::from(!small);
    // The buttons and a line of the diff first, then the heading, then
    // the file names.
    let mut left = area.height.saturating_sub(2 + 2 * rules);
    let head_h = (head.len() as u16).min(left);
    left -= head_h;
    let list_h = (list.len() as u16).min(left);
    let [head_a, list_a, rule_a, diff_a, rule_b, buttons_a] = Layout::vertical([
        Constraint::Length(head_h),
        Constraint::Length(list_h),
        Constraint::Length(rules),
        Constraint::Min(1),
        Constraint::Length(rules),
        Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(head), head_a);
    f.render_widget(Paragraph::new(list), list_a);
    f.render_widget(rule(), rule_a);
    f.render_widget(rule(), rule_b);

    let lines = diff_lines(m, files, w);
    let total = lines.len() as u16;
    let room = diff_a.height;
    // Clamped here, like the help: `G` asks for the end.
    let scroll = scroll.min(total.saturating_sub(room));
    let shown: Vec<Line> = lines
        .into_iter()
        .skip(scroll as usize)
        .take(room as usize)
        .collect();
    f.render_widget(Paragraph::new(shown), diff_a);

    let button = |text: &'static str, on: bool| {
        if on {
            Span::styled(text, t.selection.patch(t.bold))
        } else {
            Span::styled(text, t.muted)
        }
    };
    let where_ = if total > room {
        crate::t!(
            "ui.decide.lines_scrolled",
            from = scroll + 1,
            to = (scroll + room).min(total),
            total = total
        )
    } else {
        crate::t!("ui.decide.lines", n = total)
    };
    let left = vec![
        button(crate::t!("ui.decide.no"), !yes),
        Span::raw("  "),
        button(crate::t!("ui.decide.yes"), yes),
    ];
    let used: usize = left.iter().map(Span::width).sum();
    let pad = (w as usize).saturating_sub(used + text_width(&where_));
    let mut spans = left;
    if pad > 0 {
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(where_, t.muted));
    }
    f.render_widget(Line::from(spans), buttons_a);
}

/// The diffs as `act --dry-run` prints them, each line made safe, cut
/// into rows of `w` columns (a continued row starts with the same `+`/`-`
/// so it reads without colour too), added lines green, removed red.
fn diff_lines(m: &View, files: &[FileDiff], w: u16) -> Vec<Line<'static>> {
    let t = &m.theme;
    let mut out = Vec::new();
    for (i, fd) in files.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        for raw in fd.diff.lines() {
            let line = clean(raw);
            let style = if line.starts_with("+++") || line.starts_with("---") {
                t.bold
            } else if line.starts_with("@@") {
                t.info
            } else if line.starts_with('+') {
                t.ok
            } else if line.starts_with('-') {
                t.error
            } else {
                Style::new()
            };
            let sign = match line.chars().next() {
                Some(c @ ('+' | '-')) if !line.starts_with("+++") && !line.starts_with("---") => {
                    Some(c)
                }
                _ => None,
            };
            for row in rows(&line, w as usize, sign) {
                out.push(Line::from(Span::styled(row, style)));
            }
        }
    }
    out
}

/// `s` cut into rows of at most `w` display columns, never inside a wide
/// character; rows after the first start with `sign` when given.
fn rows(s: &str, w: usize, sign: Option<char>) -> Vec<String> {
    let w = w.max(2);
    if text_width(s) <= w {
        return vec![s.to_owned()];
    }
    let mut out = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + cw > w {
            out.push(std::mem::take(&mut row));
            used = 0;
            if let Some(sign) = sign {
                row.push(sign);
                used = 1;
            }
        }
        row.push(c);
        used += cw;
    }
    if !row.is_empty() {
        out.push(row);
    }
    out
}
