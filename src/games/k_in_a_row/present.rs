//! How k-in-a-row looks: the board as text, the map of every move's value,
//! and the SVG picture.

use super::KInARow;
use crate::core::{Move, MoveMark, Player};
use crate::render::svg::{Font, Paint, Pen};
use crate::render::{style_padded, Presentation};

impl Presentation for KInARow {
    fn even_result(&self) -> Option<&'static str> {
        Some("draw")
    }

    fn counts_points(&self) -> bool {
        false
    }

    fn move_notation(&self) -> &'static str {
        "a cell number (counted from 0, row by row from the top left) or a coordinate like b2"
    }

    fn move_code_name(&self) -> &'static str {
        "cell"
    }

    fn score_meaning(&self) -> &'static str {
        "for the side to move: +1 a win, 0 a draw, -1 a loss"
    }

    fn render(&self, s: u64) -> String {
        let st = self.stones(s);
        self.grid(|cell| stone(st.x, st.o, cell).into())
    }

    fn render_move_map(
        &self,
        s: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String> {
        let st = self.stones(s);
        let mut marks = vec![None; self.geometry().cells() as usize];
        for m in moves {
            if let Some(slot) = marks.get_mut(usize::from(m.mv.0)) {
                *slot = Some(m);
            }
        }
        Some(self.grid(|cell| {
            if let Some(m) = marks[cell as usize] {
                // Padded here, so that colour codes do not count as width.
                let text = if m.score == 0 {
                    " 0".to_owned()
                } else {
                    format!("{:>2}", format!("{:+}", m.score))
                };
                style_padded(m, &text, style)
            } else {
                stone(st.x, st.o, cell).into()
            }
        }))
    }

    fn render_svg(
        &self,
        s: u64,
        last: Option<Move>,
        moves: &[MoveMark],
        title: &str,
    ) -> Option<String> {
        Some(self.svg(s, last, moves, title))
    }

    fn layer_name(&self) -> &'static str {
        "stones"
    }

    fn moves_separator(&self) -> Option<&'static str> {
        Some(" ")
    }
}

/// A cell's text in drawings.
fn stone(x: u64, o: u64, cell: u32) -> &'static str {
    if x >> cell & 1 != 0 {
        " X"
    } else if o >> cell & 1 != 0 {
        " O"
    } else {
        " ."
    }
}

impl KInARow {
    /// Draws the board with column letters and row numbers, each cell given
    /// by `cell` as (up to) three characters.
    fn grid(&self, cell: impl Fn(u32) -> String) -> String {
        let (rows, cols) = (self.variant().rows(), self.variant().cols());
        let mut out = String::from("  ");
        for c in 0..cols {
            out.push_str(&format!(" {:>2}", self.column_name(c)));
        }
        for r in 0..rows {
            out.push_str(&format!("\n{:>2}", r + 1));
            for c in 0..cols {
                out.push_str(&format!(" {:>2}", cell(r * cols + c)));
            }
        }
        out
    }

    /// The SVG picture of [`Presentation::render_svg`]: the grid with
    /// coordinates, the stones, every legal move's cell coloured by its
    /// outcome with its value written in it, the cell of the stone `last`
    /// placed outlined, and a line through each row of the winner.
    fn svg(&self, s: u64, last: Option<Move>, moves: &[MoveMark], title: &str) -> String {
        use crate::render::svg::{self, Svg, LEGEND_HEIGHT, TITLE_HEIGHT};
        let (rows, cols) = (self.variant().rows() as i32, self.variant().cols() as i32);
        // Wide boards get smaller cells, so that the picture stays readable.
        let cell_px: i32 = if cols > 10 { 40 } else { 64 };
        let board_w = cols * cell_px;
        let board_h = rows * cell_px;
        let width = (board_w + 64).max(400);
        let top = TITLE_HEIGHT + 24;
        let height = top + board_h + 12 + LEGEND_HEIGHT;
        let left = (width - board_w) / 2;
        let mut pic = Svg::new(width, height, title);
        for c in 0..cols {
            let mid = left + c * cell_px + cell_px / 2;
            let letter = self.column_name(c as u32).to_string();
            pic.text(mid, top - 12, Font::new(14, "#555555"), &letter);
        }
        for r in 0..rows {
            let mid = top + r * cell_px + cell_px / 2;
            let number = (r + 1).to_string();
            pic.text(left - 14, mid, Font::new(14, "#555555"), &number);
        }
        let st = self.stones(s);
        for cell in 0..self.geometry().cells() {
            let (r, c) = ((cell as i32) / cols, (cell as i32) % cols);
            let (px, py) = (left + c * cell_px, top + r * cell_px);
            let (cx, cy) = (px + cell_px / 2, py + cell_px / 2);
            if let Some(m) = moves.iter().find(|m| u32::from(m.mv.0) == cell) {
                pic.begin_move(m, &crate::core::Game::format_move(self, m.mv));
                pic.move_box(px, py, cell_px, cell_px, m, 3);
                let weight = if m.best { "bold" } else { "normal" };
                let score = svg::signed(m.score);
                pic.text(cx, cy, Font::new(20, "#222222").weight(weight), &score);
                pic.end_move();
                continue;
            }
            pic.rect(px, py, cell_px, cell_px, Paint::new("#f7f7f7", "#999999"));
            if st.x >> cell & 1 != 0 {
                let d = cell_px / 4;
                pic.line(cx - d, cy - d, cx + d, cy + d, Pen::new("#333333", 6));
                pic.line(cx - d, cy + d, cx + d, cy - d, Pen::new("#333333", 6));
            } else if st.o >> cell & 1 != 0 {
                pic.circle(cx, cy, cell_px / 4 + 2, "none", "#333333", 6);
            }
        }
        // The stone just placed.
        let cells = self.geometry().cells();
        if let Some(cell) = last.map(|m| i32::from(m.0)).filter(|&c| c < cells as i32) {
            let (r, c) = (cell / cols, cell % cols);
            pic.last_box(left + c * cell_px, top + r * cell_px, cell_px, cell_px);
        }
        if let Some(winner) = self.winner(st) {
            // Each full line of the winner, a line through its stones.
            let stones = if winner == Player::First { st.x } else { st.o };
            let centre = |cell: u32| {
                let (r, c) = ((cell as i32) / cols, (cell as i32) % cols);
                (
                    left + c * cell_px + cell_px / 2,
                    top + r * cell_px + cell_px / 2,
                )
            };
            for &line in self.geometry().lines() {
                if line & stones == line {
                    let last = 63 - line.leading_zeros();
                    pic.win_line(centre(line.trailing_zeros()), centre(last));
                }
            }
        }
        pic.legend(width, top + board_h + 12, self.even_result());
        pic.finish()
    }
}
