//! How Dandelions looks: the field as text, every move's outcome on the
//! field or on a compass of the winds (as text and as an SVG picture), and
//! the fields it adds to JSON.

use super::field::{DC, DIRECTION_NAMES, DR};
use super::game::WIND;
use super::Dandelions;
use crate::core::{Move, MoveMark, Player};
use crate::render::svg::{Font, Paint, Pen};
use crate::render::{count_of, style_padded, Presentation, ScoreDetail};

impl Presentation for Dandelions {
    fn even_result(&self) -> Option<&'static str> {
        None
    }

    fn move_notation(&self) -> &'static str {
        "the dandelions plant on a cell (c3, or its number counted from 0); the wind blows E SE S SW W NW N NE (or 0 to 7)"
    }

    fn score_meaning(&self) -> &'static str {
        "for the side to move: 8 - flowers when the dandelions win (with that many flowers), \
         the uncovered cells when the wind wins; negative when the side to move loses"
    }

    fn score_words(&self, score: i32, side: Player) -> Option<String> {
        let d = self.score_detail(score, side)?;
        Some(if d.count_name == "flowers" {
            format!(
                "the dandelions win with {}",
                count_of(d.count, "flower", "flowers")
            )
        } else {
            format!("the wind wins with {}", count_of(d.count, "gap", "gaps"))
        })
    }

    fn score_detail(&self, score: i32, side: Player) -> Option<ScoreDetail> {
        // The outcome from the dandelions' side (they move first).
        let score = score * side.sign();
        Some(if score > 0 {
            ScoreDetail {
                winner: "dandelions",
                count_name: "flowers",
                count: 8 - score,
            }
        } else {
            ScoreDetail {
                winner: "wind",
                count_name: "gaps",
                count: -score,
            }
        })
    }

    fn render(&self, state: u64) -> String {
        let f = self.f(state);
        let mut lines = self.grid(|c| format!("{:>3}", Dandelions::cell_char(&f, c)), 3);
        lines.push(format!(
            "winds blown: {}",
            if f.dirs == 0 {
                "none".to_owned()
            } else {
                (0..8)
                    .filter(|d| f.dirs >> d & 1 != 0)
                    .map(|d| DIRECTION_NAMES[d])
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        ));
        lines.join("\n")
    }

    fn render_move_map(
        &self,
        state: u64,
        moves: &[MoveMark],
        style: &dyn Fn(&MoveMark, &str) -> String,
    ) -> Option<String> {
        let f = self.f(state);
        let value = |m: &MoveMark| format!("{:>4}", crate::render::signed(m.score));
        if f.dandelions_to_move() {
            let lines = self.grid(
                |c| match moves.iter().find(|m| u32::from(m.mv.0) == c) {
                    Some(m) => style_padded(m, &value(m), style),
                    None => format!("{:>4}", Dandelions::cell_char(&f, c)),
                },
                4,
            );
            Some(lines.join("\n"))
        } else {
            // A compass: north on top.
            let at = |d: usize| match moves.iter().find(|m| m.mv.0 == WIND + d as u16) {
                Some(m) => format!(
                    "{:>3}{}",
                    DIRECTION_NAMES[d],
                    style_padded(m, &value(m), style)
                ),
                None => format!("{:>3}{:>4}", DIRECTION_NAMES[d], "-"),
            };
            Some(
                [
                    format!("{} {} {}", at(5), at(6), at(7)),
                    format!("{} {:>7} {}", at(4), "", at(0)),
                    format!("{} {} {}", at(3), at(2), at(1)),
                ]
                .join("\n"),
            )
        }
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
}

impl Dandelions {
    /// The SVG picture of [`Presentation::render_svg`]: the field with
    /// coordinates (flowers, seeds, uncovered cells) and, beside it, a
    /// compass of the 8 winds (the blown ones greyed out). On the
    /// dandelions' turn every cell they may plant on is coloured by its
    /// outcome with its value; on the wind's turn every direction left is.
    /// The move `last` is marked: the flower just planted outlined, or the
    /// wind just blown outlined on the compass, its arrow in the mark's
    /// colour.
    fn svg(&self, state: u64, last: Option<Move>, moves: &[MoveMark], title: &str) -> String {
        use crate::render::svg::{self, Svg, LEGEND_HEIGHT, TITLE_HEIGHT};
        const CELL: i32 = 64;
        // The compass: 3 x 3 boxes, the rose in the middle one.
        const BOX: i32 = 64;
        const GAP: i32 = 8;
        const COMPASS: i32 = 3 * BOX + 2 * GAP;
        // Room for the row numbers, and between the field and the compass.
        const MARGIN: i32 = 32;
        const SPACE: i32 = 48;
        // The key of the cell glyphs under the field.
        const KEY_HEIGHT: i32 = 32;
        let f = self.f(state);
        let n = self.geometry().side() as i32;
        let board = n * CELL;
        let content = MARGIN + board + SPACE + COMPASS;
        let width = (content + 32).max(400);
        let top = TITLE_HEIGHT + 24;
        let body = board.max(COMPASS);
        let key_top = top + body + 8;
        let height = key_top + KEY_HEIGHT + LEGEND_HEIGHT;
        let left = (width - content) / 2 + MARGIN;
        let mut pic = Svg::new(width, height, title);

        // The field.
        let field_top = top + (body - board) / 2;
        for i in 0..n {
            let letter = ((b'a' + i as u8) as char).to_string();
            let mid = left + i * CELL + CELL / 2;
            pic.text(mid, field_top - 12, Font::new(14, "#555555"), &letter);
            let mid = field_top + i * CELL + CELL / 2;
            let number = (i + 1).to_string();
            pic.text(left - 14, mid, Font::new(14, "#555555"), &number);
        }
        let planting = f.dandelions_to_move();
        for cell in 0..self.geometry().cells() {
            let (r, c) = (cell as i32 / n, cell as i32 % n);
            let (px, py) = (left + c * CELL, field_top + r * CELL);
            let (cx, cy) = (px + CELL / 2, py + CELL / 2);
            let seeded = f.seeds >> cell & 1 != 0;
            let mark = moves.iter().find(|m| planting && u32::from(m.mv.0) == cell);
            if let Some(m) = mark {
                pic.begin_move(m, &self.cell_name(cell));
                pic.move_box(px, py, CELL, CELL, m, 3);
                if seeded {
                    // Seeded (a flower may still go here): a small seed above
                    // the value.
                    seed(&mut pic, cx, py + 14, 5);
                }
                let weight = if m.best { "bold" } else { "normal" };
                pic.text(
                    cx,
                    cy + 5,
                    Font::new(20, "#222222").weight(weight),
                    &svg::signed(m.score),
                );
                pic.end_move();
                continue;
            }
            if f.flowers >> cell & 1 != 0 {
                pic.rect(px, py, CELL, CELL, Paint::new(COVERED, "#999999"));
                flower(&mut pic, cx, cy, 13);
            } else if seeded {
                pic.rect(px, py, CELL, CELL, Paint::new(COVERED, "#999999"));
                seed(&mut pic, cx, cy + 2, 12);
            } else {
                pic.rect(px, py, CELL, CELL, Paint::new("#ffffff", "#999999"));
            }
        }

        // The flower just planted.
        let cells = self.geometry().cells();
        if let Some(cell) = last.map(|m| i32::from(m.0)).filter(|&c| c < cells as i32) {
            let (r, c) = (cell / n, cell % n);
            pic.last_box(left + c * CELL, field_top + r * CELL, CELL, CELL);
        }

        // The compass, north on top.
        let (cl, ct) = (left + board + SPACE, top + (body - COMPASS) / 2);
        let caption = if planting || self.geometry().is_over(&f) {
            "winds left"
        } else {
            "the wind blows"
        };
        pic.text(cl + COMPASS / 2, ct - 12, Font::new(14, "#555555"), caption);
        let (rx, ry) = (cl + BOX + GAP + BOX / 2, ct + BOX + GAP + BOX / 2);
        pic.circle(rx, ry, BOX / 2 - 2, "#fafafa", "#dddddd", 1);
        for (d, name) in DIRECTION_NAMES.iter().enumerate() {
            let (dr, dc) = (DR[d], DC[d]);
            let (bx, by) = (cl + (1 + dc) * (BOX + GAP), ct + (1 + dr) * (BOX + GAP));
            let mid = bx + BOX / 2;
            // The rose's arrow, shorter on the diagonals so that all reach
            // about as far.
            let reach = if dr != 0 && dc != 0 { 19 } else { 26 };
            let rose = |pic: &mut Svg, colour: &str, width: i32| {
                arrow(pic, rx, ry, (dc, dr), reach, colour, width);
            };
            let used = f.dirs >> d & 1 != 0;
            let mark = moves
                .iter()
                .find(|m| !planting && m.mv.0 == WIND + d as u16);
            if let Some(m) = mark {
                pic.begin_move(m, name);
                pic.move_box(bx, by, BOX, BOX, m, 3);
                pic.text(mid, by + 17, Font::new(13, "#333333"), name);
                let weight = if m.best { "bold" } else { "normal" };
                pic.text(
                    mid,
                    by + 41,
                    Font::new(20, "#222222").weight(weight),
                    &svg::signed(m.score),
                );
                rose(&mut pic, svg::ink(m.outcome), if m.best { 4 } else { 3 });
                pic.end_move();
            } else if used {
                pic.rect(
                    bx,
                    by,
                    BOX,
                    BOX,
                    Paint::new("#e6e6e6", "#bbbbbb").with(" stroke-dasharray=\"4 4\""),
                );
                pic.text(mid, by + 17, Font::new(13, "#999999"), name);
                pic.text(mid, by + 41, Font::new(12, "#999999"), "blown");
                rose(&mut pic, "#cccccc", 2);
            } else {
                pic.rect(bx, by, BOX, BOX, Paint::new("#ffffff", "#999999"));
                pic.text(mid, by + BOX / 2, Font::new(15, "#333333"), name);
                rose(&mut pic, "#666666", 3);
            }
            if last.is_some_and(|m| m.0 == WIND + d as u16) {
                // The wind just blown: its box outlined, its arrow drawn
                // again in the mark's colour.
                pic.last_move(|pic| {
                    pic.last_outline(bx, by, BOX, BOX);
                    rose(pic, svg::LAST, 4);
                });
            }
        }
        pic.circle(rx, ry, 4, "#666666", "#666666", 1);

        // What the cells show.
        let ky = key_top + KEY_HEIGHT / 2;
        let mut x = left;
        pic.rect(x, ky - 12, 24, 24, Paint::new(COVERED, "#999999"));
        flower(&mut pic, x + 12, ky, 5);
        pic.text(
            x + 32,
            ky,
            Font::new(13, "#222222").anchor("start"),
            "flower",
        );
        x += 100;
        pic.rect(x, ky - 12, 24, 24, Paint::new(COVERED, "#999999"));
        seed(&mut pic, x + 12, ky + 1, 6);
        pic.text(
            x + 32,
            ky,
            Font::new(13, "#222222").anchor("start"),
            "seeded",
        );
        x += 100;
        pic.rect(x, ky - 12, 24, 24, Paint::new("#ffffff", "#999999"));
        pic.text(
            x + 32,
            ky,
            Font::new(13, "#222222").anchor("start"),
            "uncovered",
        );

        pic.legend(width, key_top + KEY_HEIGHT, self.even_result());
        pic.finish()
    }
}

/// The background of a covered cell (a flower or a seed) that is no move.
const COVERED: &str = "#eeeeee";

/// A dandelion flower of radius about `2 * k` centred on (`cx`, `cy`): 8
/// petals around a heart.
fn flower(pic: &mut crate::render::svg::Svg, cx: i32, cy: i32, k: i32) {
    let diagonal = k * 7 / 10;
    for (dx, dy) in [
        (k, 0),
        (diagonal, diagonal),
        (0, k),
        (-diagonal, diagonal),
        (-k, 0),
        (-diagonal, -diagonal),
        (0, -k),
        (diagonal, -diagonal),
    ] {
        pic.circle(cx + dx, cy + dy, k / 2 + 1, "#f2c230", "#b8860b", 1);
    }
    pic.circle(cx, cy, k / 2 + 1, "#d98e04", "#8a5a00", 1);
}

/// A dandelion seed of size `k` centred on (`cx`, `cy`): a dot under a
/// stalk with a tuft of three hairs.
fn seed(pic: &mut crate::render::svg::Svg, cx: i32, cy: i32, k: i32) {
    const INK: &str = "#6b4f2a";
    let (tx, ty) = (cx, cy - k / 2);
    pic.line(tx, ty, cx, cy + k, Pen::new(INK, 2));
    pic.line(tx, ty, cx - k, cy - k, Pen::new(INK, 1));
    pic.line(tx, ty, cx, cy - k - k / 2, Pen::new(INK, 1));
    pic.line(tx, ty, cx + k, cy - k, Pen::new(INK, 1));
    pic.circle(cx, cy + k, (k / 4).max(2), INK, INK, 1);
}

/// An arrow from (`x`, `y`) along the step (`dx`, `dy`) (each -1, 0 or 1),
/// `reach` steps long, with a head of two strokes at 45 degrees.
fn arrow(
    pic: &mut crate::render::svg::Svg,
    x: i32,
    y: i32,
    (dx, dy): (i32, i32),
    reach: i32,
    colour: &str,
    width: i32,
) {
    let (tx, ty) = (x + dx * reach, y + dy * reach);
    pic.line(x, y, tx, ty, Pen::new(colour, width));
    // The two strokes of the head point back, 45 degrees either side.
    let heads = if dx != 0 && dy != 0 {
        [(-dx * 9, 0), (0, -dy * 9)]
    } else {
        [
            (-dx * 6 - dy * 6, -dy * 6 + dx * 6),
            (-dx * 6 + dy * 6, -dy * 6 - dx * 6),
        ]
    };
    for (hx, hy) in heads {
        pic.line(tx, ty, tx + hx, ty + hy, Pen::new(colour, width));
    }
}
