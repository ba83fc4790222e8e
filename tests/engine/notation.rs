//! Positions written in full read back as themselves, in every game: after
//! any sequence of moves from the start, `parse(format_full(p)) == p`,
//! side to move and score so far included (Dots and Boxes keeps both in
//! the text, not in the key).

use boardsolve::registry::AnyGame;
use boardsolve::Edge;
use proptest::prelude::*;

/// Each game and variant, and its start written with all it can say
/// (Dots and Boxes: the side to move and the score, so that both are
/// followed).
const GAMES: &[(&str, &str, &str)] = &[
    ("british-square", "5x5", "start"),
    ("british-square", "3x3,center-allowed", "start"),
    ("dots-and-boxes", "2x3", "none A 0-0"),
    ("dots-and-boxes", "3x3", "none A 0-0"),
    ("dots-and-boxes", "3x3", "start"),
    ("connect-four", "7x6", "start"),
    ("connect-four", "8x7", "start"),
    ("dandelions", "5x5", "start"),
    ("dandelions", "3x3", "start"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn full_text_reads_back_as_the_same_position(
        which in 0..GAMES.len(),
        choices in proptest::collection::vec(any::<u16>(), 0..60),
    ) {
        let (name, variant, start) = GAMES[which];
        let game = AnyGame::new(name, variant).unwrap();
        let g = game.game();
        let mut p = g.parse(start).unwrap();
        let mut edges: Vec<Edge> = Vec::new();
        for c in choices {
            let text = g.format_full(&p);
            let back = g.parse(&text);
            prop_assert_eq!(back.as_ref().ok(), Some(&p), "{} {}: {:?}", name, variant, text);
            edges.clear();
            g.moves(p.state, &mut edges);
            if edges.is_empty() {
                break;
            }
            p = p.play(&edges[usize::from(c) % edges.len()]);
        }
    }
}
