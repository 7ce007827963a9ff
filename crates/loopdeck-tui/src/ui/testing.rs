//! What every module's tests use to look at a frame: the screen as text,
//! as a terminal shows it (a wide character covers the next cell).

use ratatui::{Terminal, backend::TestBackend};

use super::{Theme, render};
use crate::app::Model;

/// The frame `m` draws at `w` x `h`, one line of text per row, trailing
/// blanks cut.
pub(crate) fn screen(m: &Model, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    t.draw(|f| render(m, &Theme::fallback(true), f))
        .expect("a frame");
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        let mut x = 0;
        while x < w {
            // A wide character covers the next cell too: skip it, as a
            // terminal does.
            let sym = buf[(x, y)].symbol();
            line.push_str(sym);
            x += (crate::model::text::width(sym) as u16).max(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
