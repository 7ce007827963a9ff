//! Frame render time at 200x60 over 1,000 generated projects, with
//! ratatui's TestBackend (no terminal I/O): the cost of `ui::render`.
//! Run: `cargo bench --bench render`. Prints the median of many frames and,
//! as a baseline measured in the same run, the cost of an empty frame.

use std::path::PathBuf;
use std::time::Instant;

use loopdeck_core::model::{Address, Format, InboxItem, InboxKind, Project, StatusKind};
use loopdeck_tui::app::{Event, Model, update};
use ratatui::{Terminal, backend::TestBackend};

fn projects(n: usize) -> Vec<Project> {
    (0..n)
        .map(|i| {
            let format = if i % 2 == 0 {
                Format::PrdMaster
            } else {
                Format::Gsd
            };
            let mut p = Project::new(
                format,
                PathBuf::from(format!("/w/p{i}")),
                format!("项目-{i}-restock"),
            );
            p.id = format!("p{i}");
            (p.status, p.status_kind) = if i % 3 == 0 {
                ("waiting".into(), StatusKind::Waiting)
            } else {
                ("executing".into(), StatusKind::Running)
            };
            p.stage = Some(format!("Phase {} of 9", i % 9).into());
            p.updated_at = chrono::DateTime::from_timestamp(1_780_000_000 - i as i64 * 60, 0);
            if i % 3 == 0 {
                p.inbox.push(InboxItem {
                    kind: InboxKind::Question,
                    reference: "OQ-1".into(),
                    // Wider than its column at 200 columns: every row is cut.
                    title: "批量导出是否进入 MVP：导出为 CSV 还是带公式的 Excel，审批前检查是否依赖夜间导出的数据新鲜度，以及超过三级审批时是否允许加签".into(),
                    since: p.updated_at,
                    options: vec![],
                    subject: None,
                    // Decidable, as real questions are: the hint bar and
                    // the keymap ask what `a` offers on every frame.
                    act: Some(Address {
                        verb: "answer",
                        target: Some("OQ-1".into()),
                        options: vec![],
                    }),
                    why_not: None,
                });
            }
            p
        })
        .collect()
}

fn median_us(mut model: Model, frames: usize) -> f64 {
    let theme = loopdeck_tui::ui::Theme::fallback(false);
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
    let mut times: Vec<f64> = (0..frames)
        .map(|i| {
            // Alternate the selection so each frame differs, as when a user moves.
            update(
                &mut model,
                Event::Key(crossterm::event::KeyEvent::new(
                    if i % 2 == 0 {
                        crossterm::event::KeyCode::Down
                    } else {
                        crossterm::event::KeyCode::Up
                    },
                    crossterm::event::KeyModifiers::NONE,
                )),
            );
            let t = Instant::now();
            term.draw(|f| loopdeck_tui::ui::render(&model, &theme, f))
                .expect("draw");
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn model(n: usize, inbox: bool) -> Model {
    let mut m = Model::new(vec!["/w".into()], false, chrono::Utc::now());
    update(&mut m, Event::Loaded(projects(n)));
    if inbox {
        update(
            &mut m,
            Event::Key(crossterm::event::KeyEvent::new(
                crossterm::event::KeyCode::Char('i'),
                crossterm::event::KeyModifiers::NONE,
            )),
        );
    }
    m
}

fn main() {
    let base = median_us(model(0, false), 500);
    let frame = median_us(model(1000, false), 500);
    let inbox = median_us(model(1000, true), 500);
    println!(
        "frame 200x60, 1,000 projects: {frame:.0} µs median (empty frame baseline {base:.0} µs, ratio {:.1})",
        frame / base
    );
    println!(
        "inbox 200x60, 334 long items cut with …: {inbox:.0} µs median (ratio {:.1} to the empty frame)",
        inbox / base
    );
}
