//! How Connect Four looks: the board as text, the values under the columns,
//! and the SVG picture.

use super::bits::{self, Geometry};
use super::board::Bitboard;
use super::ConnectFour;
use crate::core::{Game, Move, MoveMark, Player};
use crate::render::svg::{Font, Paint};
use crate::render::{ordinal, signed, style_padded, Presentation};

impl Presentation for ConnectFour {
    fn even_result(&self) -> Option<&'static str> {
        Some("draw")
    }

    fn counts_points(&self) -> bool {
        false
    }

    fn move_notation(&self) -> &'static str {
        "a column number, 1 from the left"
    }

    fn move_code_name(&self) -> &'static str {
        "column"
    }

    /// Columns of one digit each run together, as gamesolver.org's
    /// `?pos=4453` does.
    fn moves_separator(&self) -> Option<&'static str> {
        Some(if self.variant().width() <= 9 { "" } else { " " })
    }

    fn move_number(&self, mv: Move) -> u32 {
        u32::from(mv.0) + 1
    }

    fn score_meaning(&self) -> &'static str {
        "for the side to move: 0 a draw, a win with the stone that makes n stones on the \
         board (cells + 2 - n) / 2, a loss the negative"
    }

    /// Who wins, and with which of its own stones: the score of a win
    /// counts how early it comes.
    fn score_words(&self, score: i32, side: Player) -> Option<String> {
        let winner = match score.signum() {
            1 => side,
            -1 => side.opponent(),
            _ => return None,
        };
        let v = self.variant();
        // The k-th stone of the first player is stone 2k - 1 on the
        // board, the second's stone 2k.
        let first = u32::from(winner == Player::Second);
        let k = (1..=v.cells()).find(|k| v.win_score(2 * k - 1 + first - 1) == score.abs())?;
        Some(format!(
            "{} wins with its {} stone",
            self.player_name(winner),
            ordinal(k)
        ))
    }

    fn render(&self, state: u64) -> String {
        self.board_lines(&self.pos(state), self.cell_width())
            .join("\n")
    }

    fn render_move_map(
        &self,
        state: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String> {
        // Values such as `+18` need four columns with a space between.
        let width = 4;
        let mut lines = self.board_lines(&self.pos(state), width);
        let mut values = String::new();
        for c in 0..self.variant().width() {
            match moves.iter().find(|m| u32::from(m.mv.0) == c) {
                Some(m) => {
                    let padded = format!("{:>width$}", signed(m.score));
                    values.push_str(&style_padded(m, &padded, style));
                }
                None => values.push_str(&format!("{:>width$}", "")),
            }
        }
        lines.push(values.trim_end().to_owned());
        Some(lines.join("\n"))
    }

    fn render_svg(
        &self,
        state: u64,
        last: Option<Move>,
        moves: &[MoveMark],
        title: &str,
    ) -> Option<String> {
        Some(self.svg(&self.pos(state), last, moves, title))
    }
}

impl ConnectFour {
    /// Width of a column in drawings: room for the column numbers.
    pub(super) fn cell_width(&self) -> usize {
        if self.variant().width() > 9 {
            3
        } else {
            2
        }
    }

    /// The board, one text row per board row, each cell `width` wide.
    pub(super) fn board_lines(&self, p: &Bitboard, width: usize) -> Vec<String> {
        let (w, h) = (self.variant().width(), self.variant().height());
        let mut lines = Vec::with_capacity(h as usize + 1);
        for row in (0..h).rev() {
            let mut line = String::new();
            for col in 0..w {
                let ch = match p.stone(col, row) {
                    None => '.',
                    Some(Player::First) => 'X',
                    Some(Player::Second) => 'O',
                };
                line.push_str(&format!("{ch:>width$}"));
            }
            lines.push(line);
        }
        let numbers: String = (1..=w).map(|c| format!("{c:>width$}")).collect();
        lines.push(numbers);
        lines
    }
}

impl ConnectFour {
    /// The SVG picture of [`Presentation::render_svg`]: the board with its stones,
    /// the stone `last` dropped ringed, the cell each playable column's
    /// stone would land in ringed in its outcome's colour, and under every
    /// column its value in a box filled with that colour (best moves
    /// outlined).
    fn svg(&self, p: &Bitboard, last: Option<Move>, moves: &[MoveMark], title: &str) -> String {
        use crate::render::svg::{self, Svg, LEGEND_HEIGHT, TITLE_HEIGHT};
        const CELL: i32 = 56;
        let (w, h) = (
            self.variant().width() as i32,
            self.variant().height() as i32,
        );
        let board = w * CELL;
        let width = (board + 64).max(400);
        let top = TITLE_HEIGHT + 8;
        let values_top = top + h * CELL + 10;
        let height = values_top + 64 + LEGEND_HEIGHT;
        let left = (width - board) / 2;
        let mut pic = Svg::new(width, height, title);
        pic.rect(left, top, board, h * CELL, Paint::new("#1d4e89", "#0f2f57"));
        for c in 0..w {
            for r in 0..h {
                // Row 0 is the bottom row.
                let (cx, cy) = (
                    left + c * CELL + CELL / 2,
                    top + (h - 1 - r) * CELL + CELL / 2,
                );
                let fill = match p.stone(c as u32, r as u32) {
                    Some(Player::First) => "#d62828",
                    Some(Player::Second) => "#f2c230",
                    None => "#ffffff",
                };
                pic.circle(cx, cy, CELL / 2 - 6, fill, "#0f2f57", 2);
            }
        }
        // The stone just dropped: the top one of its column, ringed inside.
        let column = last.map(|m| i32::from(m.0)).filter(|&c| c < w);
        if let Some(c) = column {
            let top_stone = (0..h)
                .rev()
                .find(|&r| p.stone(c as u32, r as u32).is_some());
            if let Some(r) = top_stone {
                let (cx, cy) = (
                    left + c * CELL + CELL / 2,
                    top + (h - 1 - r) * CELL + CELL / 2,
                );
                pic.last_move(|pic| pic.circle(cx, cy, CELL / 4, "none", svg::LAST, 4));
            }
        }
        if p.is_won() {
            // The four (or fours) the last stone made, each a line through
            // its stones.
            let g = p.geo();
            let stride = g.stride() as i32;
            let centre = |bit: u32| {
                let (c, r) = (bit as i32 / stride, bit as i32 % stride);
                (
                    left + c * CELL + CELL / 2,
                    top + (h - 1 - r) * CELL + CELL / 2,
                )
            };
            for (start, step) in bits::fours(g, p.current() ^ p.mask()) {
                pic.win_line(centre(start), centre(start + 3 * step));
            }
        }
        for c in 0..w {
            let (bx, by) = (left + c * CELL + 4, values_top);
            let label = (c + 1).to_string();
            pic.text(bx + CELL / 2 - 4, by + 50, Font::new(13, "#555555"), &label);
            let Some(m) = moves.iter().find(|m| i32::from(m.mv.0) == c) else {
                continue;
            };
            pic.begin_move(m, &label);
            // The landing cell, ringed in the outcome's colour.
            let r = (0..h)
                .find(|&r| p.stone(c as u32, r as u32).is_none())
                .unwrap_or(h - 1);
            let (cx, cy) = (
                left + c * CELL + CELL / 2,
                top + (h - 1 - r) * CELL + CELL / 2,
            );
            pic.circle(cx, cy, CELL / 2 - 6, "none", svg::ink(m.outcome), 5);
            pic.move_box(bx, by, CELL - 8, 36, m, 2);
            let weight = if m.best { "bold" } else { "normal" };
            pic.text(
                bx + CELL / 2 - 4,
                by + 18,
                Font::new(18, "#222222").weight(weight),
                &svg::signed(m.score),
            );
            pic.end_move();
        }
        pic.legend(width, values_top + 62, self.even_result());
        pic.finish()
    }
}
