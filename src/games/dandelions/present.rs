//! How Dandelions looks: the field as text, every move's outcome on the
//! field or on a compass of the winds, and the fields it adds to JSON.

use super::field::DIRECTION_NAMES;
use super::game::WIND;
use super::Dandelions;
use crate::core::MoveMark;
use crate::render::{style_padded, Presentation};

impl Presentation for Dandelions {
    fn score_meaning(&self) -> &'static str {
        "from the dandelions' side: 8 - flowers when they win (with that many flowers), minus \
         the uncovered cells when the wind wins"
    }

    fn outcome_json(&self, score: i32, out: &mut String) {
        if score > 0 {
            out.push_str(",\"winner\":\"dandelions\",\"flowers\":");
            out.push_str(&(8 - score).to_string());
        } else {
            out.push_str(",\"winner\":\"wind\",\"gaps\":");
            out.push_str(&(-score).to_string());
        }
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
}
