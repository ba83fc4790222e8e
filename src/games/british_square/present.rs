//! How British Square looks: the board as text, the map of every move's
//! value, and the SVG picture.

use super::BritishSquare;
use crate::core::{Game, Move, MoveMark, Player};
use crate::render::svg::{Font, Paint, Pen};
use crate::render::{count_of, style_padded, Presentation};

impl Presentation for BritishSquare {
    fn even_result(&self) -> Option<&'static str> {
        Some("tie")
    }

    fn has_passes(&self) -> bool {
        true
    }

    fn move_notation(&self) -> &'static str {
        "a cell number (counted from 0, row by row from the top left) or a coordinate like c3"
    }

    fn move_code_name(&self) -> &'static str {
        "cell"
    }

    fn score_meaning(&self) -> &'static str {
        "for the side to move: its final pieces minus its opponent's under perfect play"
    }

    fn score_words(&self, score: i32, side: Player) -> Option<String> {
        let me = self.player_name(side);
        let pieces = count_of(score.abs(), "piece", "pieces");
        Some(match score.signum() {
            1 => format!("{me} ends {pieces} ahead"),
            -1 => format!("{me} ends {pieces} behind"),
            _ => "the pieces end even".to_owned(),
        })
    }

    fn render(&self, s: u64) -> String {
        self.grid(|cell| {
            if self.x(s) >> cell & 1 != 0 {
                " X".into()
            } else if self.o(s) >> cell & 1 != 0 {
                " O".into()
            } else {
                " .".into()
            }
        })
    }

    fn render_move_map(
        &self,
        s: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String> {
        let mut marks = vec![None; self.cells as usize];
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
            } else if self.x(s) >> cell & 1 != 0 {
                " X".into()
            } else if self.o(s) >> cell & 1 != 0 {
                " O".into()
            } else {
                " .".into()
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
        "pieces"
    }

    fn moves_separator(&self) -> Option<&'static str> {
        Some(" ")
    }
}

impl BritishSquare {
    /// The SVG picture of [`Presentation::render_svg`]: the grid with coordinates,
    /// the pieces, every legal move's cell coloured by its outcome with
    /// its value written in it, and the cell of the piece `last` placed
    /// outlined.
    fn svg(&self, s: u64, last: Option<Move>, moves: &[MoveMark], title: &str) -> String {
        use crate::render::svg::{self, Svg, LEGEND_HEIGHT, TITLE_HEIGHT};
        const CELL: i32 = 64;
        let n = self.n as i32;
        let board = n * CELL;
        let width = (board + 64).max(400);
        let top = TITLE_HEIGHT + 24;
        let height = top + board + 12 + LEGEND_HEIGHT;
        let left = (width - board) / 2;
        let mut pic = Svg::new(width, height, title);
        for i in 0..n {
            let letter = ((b'a' + i as u8) as char).to_string();
            let mid = left + i * CELL + CELL / 2;
            pic.text(mid, top - 12, Font::new(14, "#555555"), &letter);
            let mid = top + i * CELL + CELL / 2;
            pic.text(
                left - 14,
                mid,
                Font::new(14, "#555555"),
                &(i + 1).to_string(),
            );
        }
        let (x, o) = (self.x(s), self.o(s));
        for cell in 0..self.cells {
            let (r, c) = ((cell / self.n) as i32, (cell % self.n) as i32);
            let (px, py) = (left + c * CELL, top + r * CELL);
            let (cx, cy) = (px + CELL / 2, py + CELL / 2);
            if let Some(m) = moves.iter().find(|m| u32::from(m.mv.0) == cell) {
                pic.begin_move(m, &crate::core::Game::format_move(self, m.mv));
                pic.move_box(px, py, CELL, CELL, m, 3);
                let weight = if m.best { "bold" } else { "normal" };
                pic.text(
                    cx,
                    cy,
                    Font::new(20, "#222222").weight(weight),
                    &svg::signed(m.score),
                );
                pic.end_move();
                continue;
            }
            pic.rect(px, py, CELL, CELL, Paint::new("#f7f7f7", "#999999"));
            if x >> cell & 1 != 0 {
                let d = CELL / 4;
                pic.line(cx - d, cy - d, cx + d, cy + d, Pen::new("#333333", 6));
                pic.line(cx - d, cy + d, cx + d, cy - d, Pen::new("#333333", 6));
            } else if o >> cell & 1 != 0 {
                pic.circle(cx, cy, CELL / 4 + 2, "none", "#333333", 6);
            }
        }
        // The piece just placed (a pass places none).
        if let Some(cell) = last.map(|m| u32::from(m.0)).filter(|&c| c < self.cells) {
            let (r, c) = ((cell / self.n) as i32, (cell % self.n) as i32);
            pic.last_box(left + c * CELL, top + r * CELL, CELL, CELL);
        }
        pic.legend(width, top + board + 12, self.even_result());
        pic.finish()
    }

    /// Draws the board with column letters and row numbers, each cell given by
    /// `cell` as (up to) three characters.
    fn grid(&self, cell: impl Fn(u32) -> String) -> String {
        let mut out = String::from("  ");
        for c in 0..self.n {
            out.push_str(&format!(" {:>2}", (b'a' + c as u8) as char));
        }
        for r in 0..self.n {
            out.push_str(&format!("\n{:>2}", r + 1));
            for c in 0..self.n {
                out.push_str(&format!(" {:>2}", cell(r * self.n + c)));
            }
        }
        out
    }
}
