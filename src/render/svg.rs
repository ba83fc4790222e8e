//! Standalone SVG pictures of a board with the value of every legal move,
//! for blog posts and papers ([`super::Presentation::render_svg`]). Each game draws
//! its own board with these pieces; the colours, the title and the legend
//! are shared, so every game's pictures read alike.
//!
//! The output is deterministic (no dates, no random ids), uses integer
//! coordinates, and marks every move's shape with
//! `class="move win|tie|loss [best]"`, `data-move` and `data-value`, the
//! move that led to the position in a group `data-mark="last"` and each
//! winning row in one `data-mark="win"`, so that scripts can restyle or
//! read a picture.

use std::fmt::Write as _;

use crate::core::{MoveMark, Outcome};

/// Fill of a move that wins, ties or loses for the player making it: light
/// tints of a colour-blind-safe palette (Okabe and Ito), dark text stays
/// readable on them.
pub fn fill(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "#9fdcc4",
        Outcome::Tie => "#f2e6a0",
        Outcome::Loss => "#f5b59a",
    }
}

/// A stronger shade of [`fill`], for lines and borders.
pub(crate) fn ink(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "#009e73",
        Outcome::Tie => "#b59b00",
        Outcome::Loss => "#d55e00",
    }
}

/// Text with `&`, `<`, `>` and quotes escaped for XML.
pub(crate) fn escape(text: &str) -> String {
    let mut o = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Control characters and these two non-characters are not
            // allowed in XML 1.0 at all, not even escaped.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => o.push('?'),
            '\u{fffe}' | '\u{ffff}' => o.push('?'),
            c => o.push(c),
        }
    }
    o
}

pub(crate) use super::signed;

/// The colour of the last move's mark ([`Svg::last_move`]): the blue of
/// the same palette, apart from the outcomes' colours.
pub(crate) const LAST: &str = "#0072b2";

/// Height of the title band above the board.
pub(crate) const TITLE_HEIGHT: i32 = 40;
/// Height of the legend band below the board.
pub(crate) const LEGEND_HEIGHT: i32 = 44;

/// How a shape is painted: what a picture's shapes of one kind share.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paint<'a> {
    /// The fill colour (`none` for none).
    pub fill: &'a str,
    /// The outline's colour (`none` for none).
    pub stroke: &'a str,
    /// Extra attributes, written as they are (each with a leading space).
    pub attrs: &'a str,
}

impl<'a> Paint<'a> {
    /// Filled with `fill`, outlined in `stroke`.
    pub(crate) const fn new(fill: &'a str, stroke: &'a str) -> Paint<'a> {
        Paint {
            fill,
            stroke,
            attrs: "",
        }
    }

    /// With extra attributes (each with a leading space).
    pub(crate) const fn with(self, attrs: &'a str) -> Paint<'a> {
        Paint { attrs, ..self }
    }
}

/// How a line is drawn: what a picture's lines of one kind share.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pen<'a> {
    /// The line's colour.
    pub stroke: &'a str,
    /// Its width in pixels.
    pub width: i32,
    /// Extra attributes, written as they are (each with a leading space).
    pub attrs: &'a str,
}

impl<'a> Pen<'a> {
    /// Lines of colour `stroke`, `width` pixels wide.
    pub(crate) const fn new(stroke: &'a str, width: i32) -> Pen<'a> {
        Pen {
            stroke,
            width,
            attrs: "",
        }
    }

    /// With extra attributes (each with a leading space).
    pub(crate) const fn with(self, attrs: &'a str) -> Pen<'a> {
        Pen { attrs, ..self }
    }
}

/// How text is set: what a picture's labels of one kind share.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Font<'a> {
    /// The size in pixels.
    pub size: i32,
    /// Where `x` is in the text: `start`, `middle` or `end`.
    pub anchor: &'a str,
    /// `normal` or `bold`.
    pub weight: &'a str,
    /// The colour.
    pub fill: &'a str,
}

impl<'a> Font<'a> {
    /// `size` pixels, colour `fill`, of normal weight, centred on `x`.
    pub(crate) const fn new(size: i32, fill: &'a str) -> Font<'a> {
        Font {
            size,
            anchor: "middle",
            weight: "normal",
            fill,
        }
    }

    /// Anchored at `anchor` (`start`, `middle` or `end`) instead.
    pub(crate) const fn anchor(self, anchor: &'a str) -> Font<'a> {
        Font { anchor, ..self }
    }

    /// Of weight `weight` (`normal` or `bold`) instead.
    pub(crate) const fn weight(self, weight: &'a str) -> Font<'a> {
        Font { weight, ..self }
    }
}

/// An SVG document being written.
pub(crate) struct Svg {
    out: String,
}

impl Svg {
    /// A picture of `width` x `height` pixels with a white background and
    /// `title` in its top band.
    pub(crate) fn new(width: i32, height: i32, title: &str) -> Svg {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" \
             font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n\
             <title>{}</title>\n\
             <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n",
            escape(title)
        );
        let mut svg = Svg { out };
        svg.text(
            width / 2,
            26,
            Font::new(17, "#222222").weight("bold"),
            title,
        );
        svg
    }

    /// A rectangle of `w` x `h` pixels from (`x`, `y`), painted with `paint`.
    pub(crate) fn rect(&mut self, x: i32, y: i32, w: i32, h: i32, paint: Paint<'_>) {
        let Paint {
            fill,
            stroke,
            attrs,
        } = paint;
        let _ = writeln!(
            self.out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{fill}\" \
             stroke=\"{stroke}\"{attrs}/>"
        );
    }

    /// A move's box: filled with the colour of its outcome and, for a best
    /// move, outlined in bold `inset` pixels inside its edge.
    pub(crate) fn move_box(&mut self, x: i32, y: i32, w: i32, h: i32, m: &MoveMark, inset: i32) {
        self.rect(x, y, w, h, Paint::new(fill(m.outcome), "#999999"));
        if m.best {
            self.rect(
                x + inset,
                y + inset,
                w - 2 * inset,
                h - 2 * inset,
                Paint::new("none", "#222222").with(" stroke-width=\"4\""),
            );
        }
    }

    /// A circle.
    pub(crate) fn circle(
        &mut self,
        cx: i32,
        cy: i32,
        r: i32,
        fill: &str,
        stroke: &str,
        width: i32,
    ) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{fill}\" stroke=\"{stroke}\" \
             stroke-width=\"{width}\"/>"
        );
    }

    /// A straight line with round caps from (`x1`, `y1`) to (`x2`, `y2`),
    /// drawn with `pen`.
    pub(crate) fn line(&mut self, x1: i32, y1: i32, x2: i32, y2: i32, pen: Pen<'_>) {
        let Pen {
            stroke,
            width,
            attrs,
        } = pen;
        let _ = writeln!(
            self.out,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{stroke}\" \
             stroke-width=\"{width}\" stroke-linecap=\"round\"{attrs}/>"
        );
    }

    /// `text` at (`x`, `y`), centred vertically on `y`, set in `font`.
    pub(crate) fn text(&mut self, x: i32, y: i32, font: Font<'_>, text: &str) {
        let Font {
            size,
            anchor,
            weight,
            fill,
        } = font;
        let _ = writeln!(
            self.out,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" text-anchor=\"{anchor}\" \
             dominant-baseline=\"central\" font-weight=\"{weight}\" fill=\"{fill}\">{}</text>",
            escape(text)
        );
    }

    /// Opens a group for one move's shapes, with its class and data.
    pub(crate) fn begin_move(&mut self, m: &MoveMark, name: &str) {
        let _ = writeln!(
            self.out,
            "<g class=\"move {}{}\" data-move=\"{}\" data-value=\"{}\">",
            m.outcome.name(),
            if m.best { " best" } else { "" },
            escape(name),
            signed(m.score)
        );
    }

    /// Closes [`Svg::begin_move`]'s group.
    pub(crate) fn end_move(&mut self) {
        self.out.push_str("</g>\n");
    }

    /// A line through a winning row of stones (a four, a line of k), in
    /// a group `data-mark="win"` that pages and tests find.
    pub(crate) fn win_line(&mut self, from: (i32, i32), to: (i32, i32)) {
        self.out.push_str("<g data-mark=\"win\">\n");
        let pen = Pen::new("#009e73", 10).with(" stroke-opacity=\"0.8\"");
        self.line(from.0, from.1, to.0, to.1, pen);
        self.out.push_str("</g>\n");
    }

    /// The mark of the move that led to the position (the stone just
    /// placed, the edge just drawn), drawn by `draw` in a group
    /// `data-mark="last"` that pages and tests find. It takes no clicks:
    /// a move's shape under it still plays.
    pub(crate) fn last_move(&mut self, draw: impl FnOnce(&mut Svg)) {
        self.out
            .push_str("<g data-mark=\"last\" pointer-events=\"none\">\n");
        draw(self);
        self.out.push_str("</g>\n");
    }

    /// An outline in [`LAST`] just inside the edge of a cell or a box of
    /// `w` x `h` pixels from (`x`, `y`).
    pub(crate) fn last_outline(&mut self, x: i32, y: i32, w: i32, h: i32) {
        let paint = Paint::new("none", LAST).with(" stroke-width=\"4\" rx=\"4\"");
        self.rect(x + 4, y + 4, w - 8, h - 8, paint);
    }

    /// [`Svg::last_move`] of a cell or a box: [`Svg::last_outline`].
    pub(crate) fn last_box(&mut self, x: i32, y: i32, w: i32, h: i32) {
        self.last_move(|pic| pic.last_outline(x, y, w, h));
    }

    /// The legend in the band starting at `y`: a swatch per outcome (the
    /// even one named `even`, left out for a game that has none) and the
    /// mark of the best moves, centred on `width`.
    pub(crate) fn legend(&mut self, width: i32, y: i32, even: Option<&str>) {
        let items = [
            (Outcome::Win, Some("win")),
            (Outcome::Tie, even),
            (Outcome::Loss, Some("loss")),
        ];
        let shown = items.iter().filter(|(_, label)| label.is_some()).count() as i32;
        // Items of about 80 pixels, the last one wider.
        let total = shown * 80 + 130;
        let mut x = (width - total) / 2;
        let cy = y + LEGEND_HEIGHT / 2;
        for (outcome, label) in items {
            let Some(label) = label else { continue };
            self.rect(x, cy - 9, 18, 18, Paint::new(fill(outcome), ink(outcome)));
            self.text(x + 24, cy, Font::new(13, "#222222").anchor("start"), label);
            x += 80;
        }
        self.rect(
            x,
            cy - 9,
            18,
            18,
            Paint::new("#ffffff", "#222222").with(" stroke-width=\"3\""),
        );
        self.text(
            x + 24,
            cy,
            Font::new(13, "#222222").anchor("start"),
            "best move",
        );
    }

    /// The finished document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&apos;");
        let mut s = Svg::new(100, 100, "x < y");
        s.text(1, 2, Font::new(3, "#000").anchor("start"), "<&>");
        let out = s.finish();
        assert!(out.contains("x &lt; y"));
        assert!(out.contains("&lt;&amp;&gt;"));
        assert!(!out.contains("<&>"));
        assert_eq!(escape("a\u{1}b\u{ffff}"), "a?b?");
    }
}
