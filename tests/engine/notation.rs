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

/// Every move a game prints reads back as the same move, and the move list
/// of the names played reads back as the same position (British Square and
/// k-in-a-row name cells by coordinates, which their numbers also name).
/// A game that passes or ends even says so in its presentation: its text
/// names only what it has.
#[test]
fn every_printed_move_reads_back() {
    // A xorshift: the games played need only differ from each other.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let games = GAMES.iter().copied().chain([
        ("k-in-a-row", "3x3,k=3", "start"),
        ("k-in-a-row", "4x5,k=4", "start"),
    ]);
    for (name, variant, start) in games {
        let game = AnyGame::new(name, variant).unwrap();
        let g = game.present();
        let (mut saw_pass, mut saw_even) = (false, false);
        for _ in 0..300 {
            let mut p = g.parse(start).unwrap();
            let mut edges: Vec<Edge> = Vec::new();
            loop {
                edges.clear();
                g.moves(p.state, &mut edges);
                if edges.is_empty() {
                    saw_even |= p.lead == Some(0);
                    break;
                }
                for e in &edges {
                    let text = g.format_move(e.mv);
                    assert_eq!(
                        g.parse_move(p.state, &text),
                        Ok(e.mv),
                        "{name} {variant}: {text:?} in {}",
                        g.format_full(&p)
                    );
                    saw_pass |= e.mv == boardsolve::Move::PASS;
                }
                p = p.play(&edges[next(edges.len())]);
            }
        }
        assert!(!saw_pass || g.has_passes(), "{name} passes");
        assert!(!saw_even || g.even_result().is_some(), "{name} ends even");
    }
    // Those that do, seen in play: British Square passes, and every game
    // but Dandelions can end even.
    let bsq = AnyGame::new("british-square", "4x4").unwrap();
    assert!(bsq.present().has_passes());
    assert_eq!(bsq.present().even_result(), Some("tie"));
    let c4 = AnyGame::new("connect-four", "7x6").unwrap();
    assert_eq!(c4.present().even_result(), Some("draw"));
}
