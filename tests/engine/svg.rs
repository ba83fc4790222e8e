//! The SVG pictures and the styled move maps of both games: well-formed
//! XML, one coloured shape per legal move with its outcome and value, the
//! best moves marked, and plain maps unchanged by styling.

use boardsolve::core::NoProgress;
use boardsolve::db::{write_database, Database};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::render::plain;
use boardsolve::solve::dense::solve_dense;
use boardsolve::solve::solve;
use boardsolve::Presentation;
use boardsolve::{analyze, analyze_position, Game};
use boardsolve::{MoveMark, Outcome};

/// Checks a picture against the analysis it was drawn from.
fn check_picture(game: &dyn Game, svg: &str, marks: &[MoveMark]) {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    for attr in ["width", "height", "viewBox"] {
        assert!(root.attribute(attr).is_some(), "{attr}");
    }
    let groups: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("move ")))
        .collect();
    assert_eq!(groups.len(), marks.len(), "one shape per legal move");
    for m in marks {
        let name = game.format_move(m.mv);
        let g = groups
            .iter()
            .find(|g| g.attribute("data-move") == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no shape for move {name}"));
        let class = g.attribute("class").unwrap();
        assert!(class.contains(m.outcome.name()), "{name}: {class}");
        assert_eq!(class.contains("best"), m.best, "{name}: {class}");
        let value = if m.score == 0 {
            "0".to_owned()
        } else {
            format!("{:+}", m.score)
        };
        assert_eq!(g.attribute("data-value"), Some(value.as_str()));
        // The value is written, and the shape is filled with its outcome's
        // colour.
        assert!(
            g.descendants().any(|n| n.text() == Some(value.as_str())),
            "{name}: value {value} not written"
        );
        let fill = boardsolve::render::svg::fill(m.outcome);
        assert!(
            g.descendants().any(|n| n.attribute("fill") == Some(fill)),
            "{name}: no {fill} fill"
        );
    }
}

#[test]
fn british_square_pictures_match_the_analysis() {
    let game = BritishSquare::from_variant("4x4").unwrap();
    let sol = solve(&game, &NoProgress).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bsq4.db");
    write_database(&path, game.descriptor(), &sol.into()).unwrap();
    let db = Database::open(&path).unwrap();
    let mut seen = std::collections::HashSet::new();
    for text in ["start", "0", "0,15", "0 5 10", "0,3,12,15,5"] {
        let state = game.parse_position(text).unwrap();
        let a = analyze(&game, &db, state).unwrap();
        let marks = a.marks();
        seen.extend(marks.iter().map(|m| m.outcome));
        let svg = game
            .render_svg(state, None, &marks, "X to move <&>")
            .unwrap();
        check_picture(&game, &svg, &marks);
        assert!(
            svg.contains("X to move &lt;&amp;&gt;"),
            "the title is escaped"
        );
        // Same input, same bytes.
        assert_eq!(
            svg,
            game.render_svg(state, None, &marks, "X to move <&>")
                .unwrap()
        );
        // Outcomes follow the move's result for the mover.
        for (m, ma) in marks.iter().zip(&a.moves) {
            assert_eq!(m.outcome, Outcome::of(a.move_result(ma)));
        }
    }
    assert!(seen.len() >= 2, "the sample shows more than one outcome");
}

#[test]
fn dots_and_boxes_pictures_match_the_analysis() {
    let game = DotsAndBoxes::from_variant("2x2").unwrap();
    let sol = solve_dense(&game, &NoProgress).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dab.db");
    write_database(&path, game.descriptor(), &sol.into()).unwrap();
    let db = Database::open(&path).unwrap();
    for text in ["none", "0,5,6 B", "0,2,6 A 0-0", "0,2,6,7 B 0-1"] {
        let p = game.parse(text).unwrap();
        let a = analyze_position(&game, &db, &p).unwrap();
        let marks = a.marks();
        let svg = game.render_svg(p.state, None, &marks, "t").unwrap();
        check_picture(&game, &svg, &marks);
    }
}

#[test]
fn styling_wraps_values_and_keeps_the_columns() {
    let game = BritishSquare::from_variant("4x4").unwrap();
    let sol = solve(&game, &NoProgress).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bsq4.db");
    write_database(&path, game.descriptor(), &sol.into()).unwrap();
    let db = Database::open(&path).unwrap();
    let state = game.parse_position("0,15").unwrap();
    let a = analyze(&game, &db, state).unwrap();
    let marks = a.marks();
    let plain_map = game.render_move_map(state, &marks, &plain).unwrap();
    let bracket = |m: &MoveMark, t: &str| format!("<{}:{t}>", m.outcome.name());
    let styled = game.render_move_map(state, &marks, &bracket).unwrap();
    // Taking the styling out gives the plain map back, byte for byte.
    let mut stripped = styled.clone();
    for o in ["win", "tie", "loss"] {
        stripped = stripped.replace(&format!("<{o}:"), "");
    }
    assert_eq!(stripped.replace('>', ""), plain_map);
    assert_eq!(styled.matches('<').count(), marks.len());
}

#[test]
fn connect_four_pictures_match_the_analysis() {
    use boardsolve::games::connect_four::ConnectFour;
    let game = ConnectFour::from_variant("").unwrap();
    let live = boardsolve::solve::live::LiveSearch::new(game.clone(), None, 20).unwrap();
    // Late positions (searched in moments), one with a full column, and a
    // finished game (no moves: no shapes).
    for text in [
        "4444443322",
        "2252576253462244111563365343671351441",
        "7422341735647741166133573473242566",
        "44444433221",
    ] {
        let p = game.parse(text).unwrap();
        let a = analyze_position(&game, &live, &p).unwrap();
        let marks = a.marks();
        let svg = game.render_svg(a.state, None, &marks, "t").unwrap();
        check_picture(&game, &svg, &marks);
    }
}

#[test]
fn dandelions_pictures_match_the_analysis() {
    use boardsolve::games::dandelions::Dandelions;
    let game = Dandelions::from_variant("4x4").unwrap();
    let live = boardsolve::solve::live::LiveSearch::new(game.clone(), None, 20).unwrap();
    // The dandelions to move: every cell of the empty field is a move.
    let start = game.start();
    let a = analyze(&game, &live, start).unwrap();
    let marks = a.marks();
    assert_eq!(marks.len(), 16);
    let svg = game
        .render_svg(start, None, &marks, "dandelions to move")
        .unwrap();
    check_picture(&game, &svg, &marks);
    assert_eq!(
        svg,
        game.render_svg(start, None, &marks, "dandelions to move")
            .unwrap()
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let names: Vec<_> = doc
        .descendants()
        .filter_map(|n| n.attribute("data-move"))
        .collect();
    assert_eq!(names.len(), 16);
    for cell in ["a1", "d1", "b3", "a4", "d4"] {
        assert!(names.contains(&cell), "{cell}");
    }
    assert!(marks.iter().any(|m| m.best));
}

#[test]
fn dandelions_pictures_show_the_wind_on_a_compass() {
    use boardsolve::games::dandelions::Dandelions;
    let game = Dandelions::from_variant("").unwrap();
    let live = boardsolve::solve::live::LiveSearch::new(game.clone(), None, 20).unwrap();
    // The wind to move (two flowers, one wind), east blown already: the 7
    // other directions, some winning for the wind and some losing.
    let state = game
        .parse_position("F****/.F.../...../...../..... 0")
        .unwrap();
    let a = analyze(&game, &live, state).unwrap();
    let marks = a.marks();
    assert_eq!(marks.len(), 7);
    let svg = game
        .render_svg(state, None, &marks, "wind to move")
        .unwrap();
    check_picture(&game, &svg, &marks);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let mut names: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("move ")))
        .map(|n| n.attribute("data-move").unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["N", "NE", "NW", "S", "SE", "SW", "W"]);
    for outcome in [Outcome::Win, Outcome::Loss] {
        assert!(marks.iter().any(|m| m.outcome == outcome), "{outcome:?}");
    }
    // East is drawn, greyed out, but is no move.
    assert!(doc.descendants().any(|n| n.text() == Some("E")));
    assert!(doc.descendants().any(|n| n.text() == Some("blown")));
    // The dandelions to move with a flower, seeds and a blown wind: every
    // cell but the flower's is a move, seeded ones too.
    for text in [
        "F****.................... 0",
        "F****F****F****F****..... 0467",
    ] {
        let state = game.parse_position(text).unwrap();
        let a = analyze(&game, &live, state).unwrap();
        let marks = a.marks();
        let flowers = text.matches('F').count();
        assert_eq!(marks.len(), 25 - flowers, "{text}");
        let svg = game.render_svg(state, None, &marks, "t").unwrap();
        check_picture(&game, &svg, &marks);
        assert!(svg.contains("blown"), "{text}");
    }
}

#[test]
fn a_win_is_drawn_as_a_line_from_end_to_end_of_its_stones() {
    use boardsolve::registry::AnyGame;
    for (name, variant, position, ends) in [
        // X's four along the bottom row, columns 4 to 7.
        (
            "connect-four",
            "7x6",
            "4455667",
            Some(((228, 356), (396, 356))),
        ),
        ("connect-four", "7x6", "445566", None),
        // X's column a, top to bottom.
        (
            "k-in-a-row",
            "3x3,k=3",
            "a1 b1 a2 b2 a3",
            Some(((136, 96), (136, 224))),
        ),
        ("k-in-a-row", "3x3,k=3", "a1 b1 a2 b2", None),
    ] {
        let game = AnyGame::new(name, variant).unwrap();
        let state = game.game().parse(position).unwrap().state;
        let svg = game.present().render_svg(state, None, &[], "t").unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let lines: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("data-mark") == Some("win"))
            .flat_map(|g| g.children().filter(|c| c.has_tag_name("line")))
            .map(|l| {
                let at = |a| l.attribute(a).unwrap().parse::<i32>().unwrap();
                ((at("x1"), at("y1")), (at("x2"), at("y2")))
            })
            .collect();
        assert_eq!(
            lines,
            ends.into_iter().collect::<Vec<_>>(),
            "{name} {position}"
        );
        // Each end is the centre of one of the winner's stones.
        for ((x1, y1), (x2, y2)) in lines {
            for (x, y) in [(x1, y1), (x2, y2)] {
                let centre = doc.descendants().any(|n| {
                    n.attribute("cx") == Some(&x.to_string())
                        && n.attribute("cy") == Some(&y.to_string())
                }) || doc.descendants().any(|n| {
                    // k-in-a-row draws X as two strokes crossing at the centre.
                    let at = |a| n.attribute(a).and_then(|v| v.parse::<i32>().ok());
                    n.has_tag_name("line")
                        && n.attribute("stroke") == Some("#333333")
                        && matches!((at("x1"), at("x2"), at("y1"), at("y2")),
                            (Some(a), Some(b), Some(c), Some(d)) if (a + b) / 2 == x && (c + d) / 2 == y)
                });
                assert!(centre, "{name} {position}: ({x}, {y}) is no stone's centre");
            }
        }
    }
}

/// The first shape of an element's group, as numbers: a rectangle's `x`,
/// `y`, `width`, `height`, a circle's centre, a line's ends.
fn geometry(n: roxmltree::Node<'_, '_>) -> (String, Vec<i32>) {
    let shape = n
        .descendants()
        .find(|c| c.has_tag_name("rect") || c.has_tag_name("circle") || c.has_tag_name("line"))
        .unwrap_or_else(|| panic!("no shape in {n:?}"));
    let names: &[&str] = match shape.tag_name().name() {
        "rect" => &["x", "y", "width", "height"],
        "circle" => &["cx", "cy"],
        _ => &["x1", "y1", "x2", "y2"],
    };
    let at = |a: &str| shape.attribute(a).unwrap().parse::<i32>().unwrap();
    (
        shape.tag_name().name().to_owned(),
        names.iter().map(|a| at(a)).collect(),
    )
}

#[test]
fn the_last_move_is_marked_where_it_was_offered() {
    use boardsolve::registry::AnyGame;
    use boardsolve::Move;
    // Every game with pictures, a few plies deep (the first move each
    // time), every move of each position played and drawn: the picture
    // after it marks it once, where the picture before drew it as a move
    // (the cell, the landing cell of a column, the edge, the wind's box),
    // and a picture without a last move marks nothing.
    for (name, variant) in [
        ("british-square", "4x4"),
        ("k-in-a-row", "3x3,k=3"),
        ("connect-four", "5x4"),
        ("dots-and-boxes", "2x2"),
        ("dandelions", "3x3"),
    ] {
        let any = AnyGame::new(name, variant).unwrap();
        let (game, present) = (any.game(), any.present());
        let mut state = game.start();
        let mut winds = 0;
        for _ in 0..8 {
            let mut edges = Vec::new();
            game.moves(state, &mut edges);
            let Some(first) = edges.first() else { break };
            let marks: Vec<_> = edges
                .iter()
                .map(|e| MoveMark {
                    mv: e.mv,
                    score: 0,
                    outcome: Outcome::Tie,
                    best: false,
                })
                .collect();
            let before = present.render_svg(state, None, &marks, "t").unwrap();
            let before = roxmltree::Document::parse(&before).unwrap();
            let count = |doc: &roxmltree::Document<'_>| {
                doc.descendants()
                    .filter(|n| n.attribute("data-mark") == Some("last"))
                    .count()
            };
            assert_eq!(count(&before), 0, "{name} {state:#x}");
            for e in &edges {
                let after = present.render_svg(e.child, Some(e.mv), &[], "t").unwrap();
                let after = roxmltree::Document::parse(&after).unwrap();
                let what = format!("{name} {state:#x}: {}", game.format_move(e.mv));
                if e.mv == Move::PASS {
                    assert_eq!(count(&after), 0, "{what}");
                    continue;
                }
                assert_eq!(count(&after), 1, "{what}");
                winds += usize::from(name == "dandelions" && e.mv.0 >= 32);
                let mark = after
                    .descendants()
                    .find(|n| n.attribute("data-mark") == Some("last"))
                    .unwrap();
                let offered = before
                    .descendants()
                    .find(|n| n.attribute("data-move") == Some(&game.format_move(e.mv)))
                    .unwrap_or_else(|| panic!("{what}: not offered"));
                let (kind, at) = geometry(offered);
                let want = match kind.as_str() {
                    // An outline just inside the cell or box.
                    "rect" => vec![at[0] + 4, at[1] + 4, at[2] - 8, at[3] - 8],
                    _ => at,
                };
                assert_eq!(geometry(mark), (kind, want), "{what}");
            }
            state = first.child;
        }
        if name == "dandelions" {
            assert!(winds > 0, "no wind blown");
        }
    }
}
