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
        let svg = game.render_svg(state, &marks, "X to move <&>").unwrap();
        check_picture(&game, &svg, &marks);
        assert!(
            svg.contains("X to move &lt;&amp;&gt;"),
            "the title is escaped"
        );
        // Same input, same bytes.
        assert_eq!(
            svg,
            game.render_svg(state, &marks, "X to move <&>").unwrap()
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
        let svg = game.render_svg(p.state, &marks, "t").unwrap();
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
        let svg = game.render_svg(a.state, &marks, "t").unwrap();
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
        .render_svg(start, &marks, "dandelions to move")
        .unwrap();
    check_picture(&game, &svg, &marks);
    assert_eq!(
        svg,
        game.render_svg(start, &marks, "dandelions to move")
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
    let svg = game.render_svg(state, &marks, "wind to move").unwrap();
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
        let svg = game.render_svg(state, &marks, "t").unwrap();
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
        let svg = game.present().render_svg(state, &[], "t").unwrap();
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
