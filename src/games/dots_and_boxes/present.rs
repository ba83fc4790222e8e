//! How Dots and Boxes looks: the board as text with the number (or the
//! value) of every undrawn edge, and the SVG picture.

use std::fmt;

use super::DotsAndBoxes;
use crate::core::{Game, Move, MoveMark, Player};
use crate::render::svg::{Font, Paint, Pen};
use crate::render::{count_of, style_padded, Presentation};

impl Presentation for DotsAndBoxes {
    fn even_result(&self) -> Option<&'static str> {
        Some("tie")
    }

    fn move_notation(&self) -> &'static str {
        "an edge number (see the board)"
    }

    fn move_code_name(&self) -> &'static str {
        "edge"
    }

    fn score_meaning(&self) -> &'static str {
        "boxes the side to move takes from here on, minus the opponent's"
    }

    fn score_words(&self, score: i32, side: Player) -> Option<String> {
        let me = self.player_name(side);
        let other = self.player_name(side.opponent());
        let boxes = count_of(score.abs(), "box", "boxes");
        Some(match score.signum() {
            1 => format!("{me} takes {boxes} more than {other} from here"),
            -1 => format!("{me} takes {boxes} fewer than {other} from here"),
            _ => format!("{me} and {other} take as many boxes from here"),
        })
    }

    fn render(&self, state: u64) -> String {
        Board {
            game: self,
            state,
            width: 3,
            label: &|e: u32| e.to_string(),
            style: &|_, padded: &str| padded.to_owned(),
        }
        .to_string()
    }

    /// The board with each undrawn edge replaced by the value of drawing it.
    fn render_move_map(
        &self,
        state: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String> {
        let mark = |e: u32| moves.iter().find(|m| m.mv.0 == e as u16);
        let label = |e: u32| {
            mark(e).map_or_else(
                || "?".to_owned(),
                |m| {
                    if m.score == 0 {
                        "0".to_owned()
                    } else {
                        format!("{:+}", m.score)
                    }
                },
            )
        };
        let styled = |e: u32, padded: &str| match mark(e) {
            Some(m) => style_padded(m, padded, style),
            None => padded.to_owned(),
        };
        Some(
            Board {
                game: self,
                state,
                width: 4,
                label: &label,
                style: &styled,
            }
            .to_string(),
        )
    }

    fn render_svg(
        &self,
        state: u64,
        last: Option<Move>,
        moves: &[MoveMark],
        title: &str,
    ) -> Option<String> {
        Some(self.svg(state, last, moves, title))
    }

    fn layer_name(&self) -> &'static str {
        "edges"
    }
}

impl DotsAndBoxes {
    /// The SVG picture of [`Presentation::render_svg`]: the dots, the drawn edges
    /// (the one `last` drew in the mark's colour), the closed boxes shaded,
    /// and every undrawn edge coloured by the outcome of drawing it, with
    /// its value.
    fn svg(&self, s: u64, last: Option<Move>, moves: &[MoveMark], title: &str) -> String {
        use crate::render::svg::{self, Svg, LEGEND_HEIGHT, TITLE_HEIGHT};
        const GAP: i32 = 96;
        let (rows, cols) = (self.rows as i32, self.cols as i32);
        let width = (cols * GAP + 80).max(400);
        let left = (width - cols * GAP) / 2;
        let top = TITLE_HEIGHT + 24;
        let height = top + rows * GAP + 24 + LEGEND_HEIGHT;
        let dot = |r: i32, c: i32| (left + c * GAP, top + r * GAP);
        let mut pic = Svg::new(width, height, title);
        for (b, &mask) in self.boxes.iter().enumerate() {
            if s & mask == mask {
                let (r, c) = (b as i32 / cols, b as i32 % cols);
                let (x, y) = dot(r, c);
                pic.rect(x, y, GAP, GAP, Paint::new("#d9d9d9", "none"));
            }
        }
        let h = (self.rows + 1) * self.cols;
        for e in 0..self.edges {
            let ((r1, c1), (r2, c2)) = if e < h {
                let (r, c) = ((e / self.cols) as i32, (e % self.cols) as i32);
                ((r, c), (r, c + 1))
            } else {
                let v = e - h;
                let (r, c) = ((v / (self.cols + 1)) as i32, (v % (self.cols + 1)) as i32);
                ((r, c), (r + 1, c))
            };
            let ((x1, y1), (x2, y2)) = (dot(r1, c1), dot(r2, c2));
            if s >> e & 1 != 0 {
                if last.is_some_and(|m| u32::from(m.0) == e) {
                    // The edge just drawn.
                    pic.last_move(|pic| pic.line(x1, y1, x2, y2, Pen::new(svg::LAST, 8)));
                } else {
                    pic.line(x1, y1, x2, y2, Pen::new("#222222", 6));
                }
                continue;
            }
            let Some(m) = moves.iter().find(|m| u32::from(m.mv.0) == e) else {
                pic.line(
                    x1,
                    y1,
                    x2,
                    y2,
                    Pen::new("#cccccc", 2).with(" stroke-dasharray=\"4 6\""),
                );
                continue;
            };
            pic.begin_move(m, &e.to_string());
            let w = if m.best { 8 } else { 5 };
            pic.line(
                x1,
                y1,
                x2,
                y2,
                Pen::new(svg::ink(m.outcome), w).with(" stroke-opacity=\"0.75\""),
            );
            let (mx, my) = ((x1 + x2) / 2, (y1 + y2) / 2);
            let stroke = if m.best {
                "#222222"
            } else {
                svg::ink(m.outcome)
            };
            let sw = if m.best { 3 } else { 1 };
            pic.rect(
                mx - 20,
                my - 13,
                40,
                26,
                Paint::new(svg::fill(m.outcome), stroke)
                    .with(&format!(" stroke-width=\"{sw}\" rx=\"6\"")),
            );
            let weight = if m.best { "bold" } else { "normal" };
            pic.text(
                mx,
                my,
                Font::new(15, "#222222").weight(weight),
                &svg::signed(m.score),
            );
            pic.end_move();
        }
        for r in 0..=rows {
            for c in 0..=cols {
                let (x, y) = dot(r, c);
                pic.circle(x, y, 6, "#222222", "#222222", 1);
            }
        }
        pic.legend(width, top + rows * GAP + 24, self.even_result());
        pic.finish()
    }
}

/// The ASCII drawing of a state: `+` dots, `---` and `|` drawn edges, and a
/// label (its number, or the value of drawing it) for each undrawn edge.
/// The third field is the width of a horizontal edge (3 for edge numbers,
/// 4 for signed values).
struct Board<'a> {
    game: &'a DotsAndBoxes,
    state: u64,
    /// The width of a horizontal edge: 3 for edge numbers, 4 for values.
    width: usize,
    /// The label of an undrawn edge.
    label: &'a dyn Fn(u32) -> String,
    /// Applied to an undrawn edge's label once it is padded (colours).
    style: &'a dyn Fn(u32, &str) -> String,
}

impl fmt::Display for Board<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, s, width, label) = (self.game, self.state, self.width, self.label);
        let h = (g.rows + 1) * g.cols;
        let drawn = |e: u32| s >> e & 1 != 0;
        for r in 0..=g.rows {
            let mut line = String::from("+");
            for c in 0..g.cols {
                let e = r * g.cols + c;
                if drawn(e) {
                    line.push_str(&"-".repeat(width));
                } else {
                    line.push_str(&(self.style)(e, &format!("{:^width$}", label(e))));
                }
                line.push('+');
            }
            write!(f, "{}", line.trim_end())?;
            if r < g.rows {
                let mut line = String::new();
                for c in 0..=g.cols {
                    let e = h + r * (g.cols + 1) + c;
                    if drawn(e) {
                        line.push_str(&format!("{:<w$}", "|", w = width + 1));
                    } else {
                        let padded = format!("{:<w$}", label(e), w = width + 1);
                        line.push_str(&(self.style)(e, &padded));
                    }
                }
                write!(f, "\n{}\n", line.trim_end())?;
            }
        }
        Ok(())
    }
}
