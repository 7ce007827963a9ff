//! The decision form drawn: snapshots of every stage at 80x24 and 160x48,
//! built through the pure update with real key events and the answers the
//! runtime would send; colours of the diff and the buttons; hostile text.

use std::path::PathBuf;

use chrono::{TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use ratatui::{Terminal, backend::TestBackend};

use super::{assert_clean, now, screen};
use crate::app::decide::{Decided, FileDiff, LONG_TEXT, Stage, Why};
use crate::app::{Effect, Event, update};
use crate::model::{Address, FileStamp, Format, InboxItem, InboxKind, Project};
use crate::ui::*;
use loopdeck_core::store::diff::unified;

pub(super) const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

pub(super) fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

pub(super) fn code(k: KeyCode) -> Event {
    Event::Key(KeyEvent::new(k, KeyModifiers::NONE))
}

pub(super) fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

pub(super) fn typed(m: &mut Model, s: &str) {
    for c in s.chars() {
        if c == '\n' {
            update(m, code(KeyCode::Enter));
        } else {
            update(m, key(c));
        }
    }
}

/// A PRD project named `name` whose inbox holds one item: `title`,
/// decided at `act`.
pub(super) fn project(name: &str, title: &str, act: Address) -> Project {
    let mut p = Project::new(
        Format::PrdMaster,
        PathBuf::from(format!("/w/{name}")),
        name.to_owned(),
    );
    p.id = name.to_owned();
    p.inbox.push(InboxItem {
        kind: InboxKind::Question,
        options: act.options.clone(),
        reference: act.target.clone().unwrap_or_default(),
        title: title.to_owned().into(),
        since: Some(Utc.with_ymd_and_hms(2026, 5, 30, 9, 0, 0).unwrap()),
        subject: act.target.clone(),
        act: Some(act),
        why_not: None,
    });
    p.files.push(FileStamp {
        file: "state.json".into(),
        sha256: "a".repeat(64),
        len: 10,
    });
    p
}

const QUESTION: &str = "[OQ-3] 超过 3 级的审批是否允许加签？这决定规则引擎的层级上限。";

pub(super) fn answer_project() -> Project {
    project(
        "approval-flow",
        QUESTION,
        Address::new("answer", Some("OQ-3".into()), Vec::new()),
    )
}

/// The inbox of `p`, the form opened on its item with `open` (`a`, or an
/// option digit).
pub(super) fn opened(p: Project, readonly: bool, open: char) -> Model {
    let mut m = Model::new(vec!["/w".into()], readonly, now());
    update(&mut m, Event::Loaded(vec![p]));
    update(&mut m, key('i'));
    update(&mut m, key(open));
    m
}

/// Send what is typed (Ctrl-S) and answer the preview with `result`.
pub(super) fn previewed(m: &mut Model, result: Decided) {
    let seq = update(m, ctrl('s'))
        .iter()
        .find_map(|e| match e {
            Effect::Decide { seq, dry_run, .. } => {
                assert!(*dry_run);
                Some(*seq)
            }
            _ => None,
        })
        .expect("a preview asked for");
    update(m, Event::Decided { seq, result });
}

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        let s = screen(m, w, h);
        assert_clean(&s, name);
        insta::assert_snapshot!(format!("decide_{name}_{w}x{h}"), s);
    }
}

/// The files an answer to OQ-3 changes, as `act --dry-run` shows them:
/// state.json (the question answered) and conversation.md (appended).
fn answer_diffs() -> Vec<FileDiff> {
    let before = r#"{
  "project": "approval-flow",
  "phase": "spec",
  "open_questions": [
    {
      "id": "OQ-2",
      "question": "审批超时后自动通过还是自动驳回？",
      "status": "answered",
      "answer": "自动驳回"
    },
    {
      "id": "OQ-3",
      "question": "超过 3 级的审批是否允许加签？",
      "status": "open"
    }
  ],
  "updated_at": "2026-05-30T09:00:00Z"
}
"#;
    let after = r#"{
  "project": "approval-flow",
  "phase": "spec",
  "open_questions": [
    {
      "id": "OQ-2",
      "question": "审批超时后自动通过还是自动驳回？",
      "status": "answered",
      "answer": "自动驳回"
    },
    {
      "id": "OQ-3",
      "question": "超过 3 级的审批是否允许加签？",
      "status": "answered",
      "answer": "允许加签，但需记录 ✅\n审批链超过 3 级时由管理员确认 🚀",
      "answered_by": "lead",
      "answered_at": "2026-06-01T12:00:00Z"
    }
  ],
  "updated_at": "2026-06-01T12:00:00Z"
}
"#;
    let conv_before = "# Conversation\n\n## 2026-05-30\n\n- agent: 提出 OQ-3\n";
    let conv_after = "# Conversation\n\n## 2026-05-30\n\n- agent: 提出 OQ-3\n\n## 2026-06-01\n\n- lead (OQ-3): 允许加签，但需记录 ✅ 审批链超过 3 级时由管理员确认 🚀 这一行很长，用来检查在窄终端里折行后边框仍然完整无缺。\n";
    vec![
        FileDiff {
            file: "state.json".into(),
            diff: unified(
                "state.json",
                Some(before.as_bytes()),
                Some(after.as_bytes()),
            ),
        },
        FileDiff {
            file: "conversation.md".into(),
            diff: unified(
                "conversation.md",
                Some(conv_before.as_bytes()),
                Some(conv_after.as_bytes()),
            ),
        },
    ]
}

pub(super) const ANSWER: &str = "允许加签，但需记录 ✅\n审批链超过 3 级时由管理员确认 🚀";

/// The answer typed and previewed: the confirm dialog.
pub(super) fn confirm_model() -> Model {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, ANSWER);
    previewed(
        &mut m,
        Decided::Done {
            said: Vec::new(),
            read: Vec::new(),
            files: answer_diffs(),
            audit_id: None,
        },
    );
    assert!(matches!(
        m.form.as_ref().unwrap().stage,
        Stage::Confirm { .. }
    ));
    m
}

#[test]
fn the_chooser_numbers_the_options_and_highlights_the_cursor() {
    let p = project(
        "approval-flow",
        "[OQ-4] 规则存储用哪种数据库？这决定部署方式。",
        Address::new(
            "answer",
            Some("OQ-4".into()),
            vec!["Postgres".into(), "SQLite（嵌入式）".into()],
        ),
    );
    let mut m = opened(p, false, 'a');
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Choose);
    update(&mut m, key('j'));
    snap(&m, "choose");
    let s = screen(&m, 80, 24);
    assert!(
        s.contains("1 Postgres") && s.contains("2 SQLite（嵌入式）"),
        "{s}"
    );
    assert!(s.contains("3 type an answer…"), "{s}");
    assert!(s.contains("1-9/Enter pick · j/k move · Esc cancel"), "{s}");
    // The cursor row is drawn reversed (the NO_COLOR selection).
    let buf = buffer(&m, &Theme::fallback(true), 80, 24);
    let (x, y) = find(&buf, "SQLite").unwrap();
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
    let (x, y) = find(&buf, "Postgres").unwrap();
    assert!(!buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

/// At 40x8 the confirm still shows the buttons (Tab then Enter must not
/// write blind) and a line of the diff.
#[test]
fn the_confirm_at_40x8_shows_its_buttons() {
    let m = confirm_model();
    let s = screen(&m, 40, 8);
    assert!(s.contains("[ No ]"), "{s}");
    assert!(s.contains("state.json"), "{s}");
}

/// At the smallest size the console draws (40x8) the chooser still shows
/// the choice under the cursor (it used to show the heading alone).
#[test]
fn the_chooser_at_40x8_still_shows_the_cursor_row() {
    let p = project(
        "approval-flow",
        "[OQ-4] 规则存储用哪种数据库？这决定部署方式。",
        Address::new(
            "answer",
            Some("OQ-4".into()),
            vec!["Postgres".into(), "SQLite".into(), "Files".into()],
        ),
    );
    let mut m = opened(p, false, 'a');
    update(&mut m, key('j'));
    let s = screen(&m, 40, 8);
    assert!(s.contains("› 2 SQLite"), "{s}");
}

#[test]
fn the_editor_draws_cjk_and_emoji_inside_its_borders() {
    let mut m = opened(answer_project(), false, 'a');
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    typed(&mut m, ANSWER);
    typed(
        &mut m,
        "\n这一行很长，用来检查在窄终端里折行后边框仍然完整无缺，而且不会把右边的竖线挤出去。",
    );
    snap(&m, "edit_cjk");
    let n = m.form.as_ref().unwrap().inputs[0].chars();
    assert_eq!(n, 72);
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        assert!(s.contains("允许加签，但需记录 ✅"), "{s}");
        assert!(s.contains("answer *"), "required marked: {s}");
        assert!(s.contains(&format!(" {n} chars ")), "the count: {s}");
        // Every row of the answer box ends on its border, CJK or not, as a
        // terminal lays the cells (a wide character takes two).
        let lines: Vec<&str> = s.lines().collect();
        let top = lines.iter().position(|l| l.contains("┌ answer *")).unwrap();
        let start = lines[top].find("┌ answer *").unwrap();
        let corner = start + lines[top][start..].find('┐').unwrap();
        let (left, right) = (cols(&lines[top][..start]), cols(&lines[top][..corner]));
        let mut rows = 0;
        for l in &lines[top + 1..] {
            if l.contains("└──") {
                break;
            }
            // The box's left border at its column, the right one too.
            let at = at_col(l, left);
            assert!(l[at..].starts_with('│'), "{w}x{h}: {l}");
            let end = at + 3 + l[at + 3..].find('│').unwrap();
            assert_eq!(cols(&l[..end]), right, "{w}x{h}: {l}");
            rows += 1;
        }
        assert!(rows >= 4, "{s}");
    }
}

/// Display columns of `s`.
pub(super) fn cols(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// The byte index in `l` of display column `col`.
pub(super) fn at_col(l: &str, col: usize) -> usize {
    let mut used = 0;
    for (i, c) in l.char_indices() {
        if used >= col {
            return i;
        }
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
    }
    l.len()
}

#[test]
fn an_empty_answer_says_so_under_the_field() {
    let mut m = opened(answer_project(), false, 'a');
    update(&mut m, ctrl('s'));
    snap(&m, "edit_empty");
    assert!(screen(&m, 80, 24).contains("answer is empty"));
}

#[test]
fn a_picked_option_is_shown_over_its_fields() {
    let p = project(
        "approval-flow",
        "BUG-2 导出的 CSV 在 Excel 里乱码",
        Address::new(
            "bug",
            Some("BUG-2".into()),
            vec!["fixed".into(), "wontfix".into(), "duplicate".into()],
        ),
    );
    let mut m = opened(p, false, '1');
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    typed(&mut m, "加了 BOM");
    update(&mut m, code(KeyCode::Tab));
    typed(&mut m, "a1b2c3d");
    snap(&m, "edit_fields");
    let s = screen(&m, 80, 24);
    assert!(s.contains("bug BUG-2 → fixed"), "the title: {s}");
    assert!(s.contains("chosen: fixed"), "{s}");
    assert!(s.contains("Tab next field"), "{s}");
}

#[test]
fn esc_with_text_asks_before_discarding_it() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, "草稿");
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Discard);
    snap(&m, "discard");
    let s = screen(&m, 80, 24);
    assert!(s.contains("Discard the typed text?"), "{s}");
    assert!(s.contains("y discard · n keep typing"), "{s}");
}

#[test]
fn waiting_for_the_preview_says_so() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, "是");
    update(&mut m, ctrl('s'));
    let s = screen(&m, 80, 24);
    assert!(s.contains("working out what would change…"), "{s}");
    assert!(s.contains("Esc back"), "{s}");
    insta::assert_snapshot!("decide_previewing_80x24", s);
}

#[test]
fn the_confirm_lists_the_files_and_shows_the_diff_scrolled() {
    let mut m = confirm_model();
    snap(&m, "confirm");
    let s = screen(&m, 80, 24);
    assert!(
        s.contains(" Confirm: answer OQ-3 · approval-flow "),
        "the title: {s}"
    );
    assert!(
        s.contains("writes 2 files: state.json · conversation.md"),
        "{s}"
    );
    assert!(s.contains("--- a/state.json"), "{s}");
    assert!(s.contains("[ No ]  [ Yes, write ]"), "{s}");
    assert!(s.contains("lines 1-"), "{s}");
    assert!(
        s.contains("w write · n/Esc back · j/k scroll · Tab switch"),
        "{s}"
    );
    // Scrolled to the end (the view clamps `G`), Yes focused.
    update(&mut m, key('G'));
    update(&mut m, code(KeyCode::Tab));
    snap(&m, "confirm_scrolled");
    let s = screen(&m, 80, 24);
    assert!(s.contains("+++ b/conversation.md"), "{s}");
    assert!(!s.contains("--- a/state.json"), "scrolled past: {s}");
    let total = s
        .lines()
        .find_map(|l| l.split("lines ").nth(1))
        .and_then(|r| r.trim_end_matches(" │").split('/').nth(1))
        .expect("lines a-b/total")
        .trim()
        .to_owned();
    assert!(s.contains(&format!("-{total}/{total}")), "at the end: {s}");
}

#[test]
fn added_and_removed_lines_are_coloured_and_read_without_colour() {
    let mut m = confirm_model();
    let colour = Theme::fallback(false);
    let buf = buffer(&m, &colour, 160, 48);
    let (x, y) = find(&buf, "+      \"answered_by\"").unwrap();
    assert_eq!(buf[(x, y)].fg, colour.ok.fg.unwrap());
    let (x, y) = find(&buf, "-      \"status\": \"open\"").unwrap();
    assert_eq!(buf[(x, y)].fg, colour.error.fg.unwrap());
    // NO_COLOR: the signs are text; the focused button is reversed.
    let plain = Theme::fallback(true);
    let buf = buffer(&m, &plain, 160, 48);
    assert!(find(&buf, "+      \"answered_by\"").is_some());
    let reversed = |buf: &Buffer, s: &str| {
        let (x, y) = find(buf, s).unwrap();
        buf[(x, y)].modifier.contains(Modifier::REVERSED)
    };
    assert!(reversed(&buf, "[ No ]"), "No is focused by default");
    assert!(!reversed(&buf, "[ Yes, write ]"));
    update(&mut m, code(KeyCode::Tab));
    let buf = buffer(&m, &plain, 160, 48);
    assert!(!reversed(&buf, "[ No ]"));
    assert!(reversed(&buf, "[ Yes, write ]"));
}

#[test]
fn a_conflict_says_nothing_was_written_and_how_back() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, ANSWER);
    previewed(
        &mut m,
        Decided::Failed {
            message: "state.json changed on disk since the console read it (expected sha256 aaaaaaaaaaaa…, found bbbbbbbbbbbb…): nothing was written".into(),
            why: Why::Changed,
        },
    );
    snap(&m, "conflict");
    let s = screen(&m, 80, 24);
    assert!(s.contains(" Changed on disk — nothing written "), "{s}");
    assert!(s.contains("Enter/Esc back to your text (kept)"), "{s}");
}

/// A held lock is no change on disk: the dialog says the file is locked,
/// by whom (the lock module's words, in the message), and what resolves
/// it; the text is kept and the project read again as after a conflict.
#[test]
fn a_held_lock_says_locked_by_whom_and_what_resolves_it() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, ANSWER);
    previewed(
        &mut m,
        Decided::Failed {
            message: "state.json.loopdeck-lock is held by pid 4242 on host build-7 (since 2026-06-01T09:29:58+00:00); waited 10.0 s for it (retry later, or remove the lock if that writer is gone)".into(),
            why: Why::Locked,
        },
    );
    snap(&m, "locked");
    let s = screen(&m, 80, 24);
    assert!(!s.contains("Changed on disk"), "{s}");
    assert!(s.contains(" Locked — nothing written "), "{s}");
    assert!(s.contains("pid 4242 on host build-7"), "{s}");
    assert!(s.contains("try again once it is"), "{s}");
    assert!(s.contains("Enter/Esc back to your text (kept)"), "{s}");
}

#[test]
fn a_refusal_is_titled_refused() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, "是");
    previewed(
        &mut m,
        Decided::Failed {
            message: "prd-master: OQ-3 is already answered".into(),
            why: Why::Refused,
        },
    );
    let s = screen(&m, 80, 24);
    assert!(s.contains(" Refused "), "{s}");
    assert!(s.contains("OQ-3 is already answered"), "{s}");
    insta::assert_snapshot!("decide_refused_80x24", s);
}

#[test]
fn read_only_hints_are_crossed_out_and_say_why_once() {
    let mut m = opened(answer_project(), true, 'a');
    assert!(m.form.is_none());
    // `a` was refused: the status says why, the hints are crossed out.
    snap(&m, "readonly_refused");
    m.status = None;
    snap(&m, "readonly");
    let s = screen(&m, 160, 48);
    let bar = s.lines().last().unwrap();
    assert_eq!(bar.matches("read-only").count(), 1, "{bar}");
    assert!(bar.contains(" read-only: decisions off "), "{bar}");
    let buf = buffer(&m, &Theme::fallback(true), 160, 48);
    let (x, y) = find(&buf, "a answer").expect("the decide hint");
    assert!(buf[(x, y)].modifier.contains(Modifier::CROSSED_OUT));
}

#[test]
fn hostile_text_in_the_form_never_reaches_the_buffer_raw() {
    // Each place its own mark, so each is seen made safe where it is drawn
    // (drawn raw, ratatui would drop the ESC and keep the rest).
    let evil = |mark: &str| format!("{mark}\u{1b}[2J\u{7}\u{202e}名前\u{9b}31m\u{1b}]0;pwned\u{7}");
    let seen = |mark: &str| format!("{mark}^[[2J^G");
    let p = project(
        &evil("proj"),
        &format!("{}\nsecond line", evil("head")),
        Address::new(
            "answer",
            Some("OQ-9".into()),
            vec![evil("opt"), "ok".into()],
        ),
    );
    let mut m = opened(p, false, 'a');
    let mut shots = vec![("choose", screen(&m, 80, 24), vec!["proj", "head", "opt"])];
    update(&mut m, key('3'));
    typed(&mut m, "x");
    shots.push(("edit", screen(&m, 80, 24), vec!["proj", "head"]));
    previewed(
        &mut m,
        Decided::Done {
            said: Vec::new(),
            read: Vec::new(),
            files: vec![FileDiff {
                file: evil("file"),
                diff: format!(
                    "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{}\n+{}\n",
                    evil("old"),
                    evil("new")
                ),
            }],
            audit_id: None,
        },
    );
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        shots.push(("confirm", s, vec!["proj", "head", "file", "-old", "+new"]));
    }
    update(&mut m, key('n'));
    previewed(
        &mut m,
        Decided::Failed {
            message: evil("fail"),
            why: Why::Refused,
        },
    );
    shots.push(("failed", screen(&m, 80, 24), vec!["head", "fail"]));
    for (name, s, marks) in shots {
        assert_clean(&s, name);
        // In the dialog, not in the screen under it.
        let s = dialog(&s);
        for mark in marks {
            assert!(s.contains(&seen(mark)), "{name}: {mark} shown safe:\n{s}");
        }
    }
}

/// The dialog of screen `s` (the first box that does not start at the
/// left edge), each row cut to its columns.
fn dialog(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.char_indices().any(|(i, c)| c == '┌' && i > 0))
        .unwrap();
    let at = lines[top]
        .char_indices()
        .find(|(i, c)| *c == '┌' && *i > 0)
        .unwrap()
        .0;
    let left = cols(&lines[top][..at]);
    let right = cols(&lines[top][..at + lines[top][at..].find('┐').unwrap()]);
    let mut out = String::new();
    for l in &lines[top..] {
        let (a, b) = (at_col(l, left), at_col(l, right + 1));
        out.push_str(&l[a..b.max(a)]);
        out.push('\n');
        if l[a..].starts_with('└') {
            break;
        }
    }
    out
}

/// The buffer drawn in `theme`.
pub(super) fn buffer(m: &Model, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(m, theme, f)).unwrap();
    t.backend().buffer().clone()
}

/// Where `s` starts in `buf` (cells compared one character each, ASCII).
pub(super) fn find(buf: &Buffer, s: &str) -> Option<(u16, u16)> {
    let area = buf.area;
    for y in 0..area.height {
        let row: Vec<&str> = (0..area.width).map(|x| buf[(x, y)].symbol()).collect();
        let text: String = row.concat();
        if let Some(i) = text.find(s) {
            // The cell of byte offset `i`.
            let mut at = 0;
            for (x, sym) in row.iter().enumerate() {
                if at == i {
                    return Some((x as u16, y));
                }
                at += sym.len();
            }
        }
    }
    None
}

#[test]
fn a_wide_character_under_the_dialog_edge_does_not_cover_its_border() {
    // At 160 columns the detail under the dialog has "的" across its
    // left edge; a terminal draws a wide character over the next cell.
    let m = confirm_model();
    let s = screen(&m, 160, 48);
    let lines: Vec<&str> = s.lines().collect();
    let top = lines.iter().position(|l| l.contains("┌ Confirm")).unwrap();
    let left = cols(&lines[top][..lines[top].find("┌ Confirm").unwrap()]);
    let mut rows = 0;
    for l in &lines[top + 1..] {
        let at = at_col(l, left);
        let c = l[at..].chars().next();
        assert!(
            cols(&l[..at]) == left && matches!(c, Some('│' | '└')),
            "the border at column {left}: {l}"
        );
        rows += 1;
        if c == Some('└') {
            break;
        }
    }
    assert!(rows > 40, "{s}");
}

#[test]
fn a_long_text_is_counted_and_warned_about() {
    let mut m = opened(answer_project(), false, 'a');
    update(&mut m, Event::Paste("长".repeat(LONG_TEXT + 1)));
    let s = screen(&m, 80, 24);
    assert!(s.contains(" 4001 chars: over 4000 "), "{s}");
    let buf = buffer(&m, &Theme::fallback(true), 80, 24);
    let (x, y) = find(&buf, "4001 chars").unwrap();
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD), "warned");
    update(&mut m, ctrl('s'));
    let s = screen(&m, 80, 24);
    assert!(s.contains("over 4000 characters (4001)"), "the note: {s}");
}

/// A decision written in part (exit 4 of `act`) is titled for it, offers
/// no retry (it could write twice), and Esc closes it.
#[test]
fn a_decision_written_in_part_says_so_and_offers_no_retry() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, ANSWER);
    previewed(
        &mut m,
        Decided::Failed {
            message: "state.json: No space left on device; interrupted decision 1 in /w could not be rolled back whole: conversation.md still holds its bytes (it changed since the decision wrote it)".into(),
            why: Why::Partial,
        },
    );
    let s = screen(&m, 80, 24);
    assert!(s.contains(" Written in part — not settled "), "{s}");
    assert!(!s.contains("Refused"), "{s}");
    assert!(!s.contains("nothing written"), "{s}");
    assert!(s.contains("loopdeck recover"), "{s}");
    // Enter retries nothing; Esc closes.
    crate::app::update(
        &mut m,
        crate::app::Event::Key(KeyEvent::from(KeyCode::Enter)),
    );
    assert!(matches!(
        m.form.as_ref().unwrap().stage,
        Stage::Failed {
            why: Why::Partial,
            ..
        }
    ));
    crate::app::update(&mut m, crate::app::Event::Key(KeyEvent::from(KeyCode::Esc)));
    assert!(m.form.is_none());
}

/// What the format says beyond the diff (a legacy state migrated by the
/// answer) is in the confirm above the diff, at 80x24 and wide, its
/// control characters shown, never sent.
#[test]
fn the_confirm_says_what_the_format_said_beyond_the_diff() {
    let mut m = opened(answer_project(), false, 'a');
    typed(&mut m, ANSWER);
    let said = "this answer first migrates the legacy state to v0.6 (stage 3.2 → 4.2)\u{1b}[2J";
    previewed(
        &mut m,
        Decided::Done {
            said: vec![said.to_owned()],
            read: Vec::new(),
            files: answer_diffs(),
            audit_id: None,
        },
    );
    for (w, h) in [(80, 24), (140, 30)] {
        let s = screen(&m, w, h);
        assert!(s.contains("migrates the legacy state"), "{s}");
        assert!(!s.contains('\u{1b}'), "{s}");
        let said_at = s.find("migrates").unwrap();
        let diff_at = s.find("@@").unwrap();
        assert!(said_at < diff_at, "said before the diff: {s}");
    }
}

/// The evidence form says what the evidence must show and by when (the
/// node's acceptance threshold and due date), not only the Frontier tab
/// (issue 20 §4).
#[test]
fn the_evidence_form_shows_its_threshold_and_due_date() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    let (_t, mut m) = super::workspace_model();
    update(&mut m, key('i'));
    let rows = crate::app::panes::inbox(&m);
    let at = rows
        .iter()
        .position(|&(pi, ii)| {
            m.projects[pi].name == "fba-smart-restock"
                && m.projects[pi].inbox[ii].reference == "OQ-8"
        })
        .unwrap();
    m.inbox.selected = at;
    update(&mut m, key('a'));
    let form = m.form.as_ref().unwrap();
    assert_eq!(form.stage, Stage::Edit);
    for (w, h) in SIZES {
        let s = screen(&m, w, h);
        assert!(s.contains("accept if  95% 的数据延迟不超过 2 小时"), "{s}");
        assert!(s.contains("due  3 个工作日内"), "{s}");
        insta::assert_snapshot!(format!("decide_evidence_needs_{w}x{h}"), s);
    }
}
