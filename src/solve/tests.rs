//! The solver against a plain recursive reference, on synthetic games that
//! use what British Square does not: moves that skip layers, rewards of
//! every sign, moving again, chains of same-layer moves, symmetric states,
//! and key 0; and every [`SolveError`] a broken game can cause.

use std::collections::HashMap;

use super::*;
use crate::core::{Edge, Game, GameDescriptor, Move, NoProgress, Player, PositionError, Value};

/// A synthetic game. A state is `layer << 32 | n`; its moves come from a
/// hash of the state. The low bit of `n` is a symmetry: `n` and `n ^ 1` are
/// the same state, the smaller one canonical.
struct Toy {
    desc: GameDescriptor,
    layers: usize,
    /// States per layer (`n` below this).
    width: u64,
    /// Per mille of states with same-layer moves.
    same: u64,
    /// Per mille of moves that skip a layer.
    skip: u64,
    /// A broken game: same-layer moves also go back.
    cycle: bool,
    /// A broken game: this state has a move to layer 0.
    back: Option<u64>,
    /// A broken game: this state has a child too wide for the key.
    wide: Option<u64>,
    /// A broken game: this state has a child beyond the last layer.
    beyond: Option<u64>,
    /// Rewards are in `-spread ..= spread`.
    spread: u64,
    /// States have fewer moves than this to later layers.
    fanout: u64,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 31;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 32)
}

impl Toy {
    fn new(layers: usize, width: u64, same: u64, skip: u64) -> Toy {
        Toy {
            desc: GameDescriptor {
                name: "toy",
                id: 999,
                variant: String::new(),
                key_bits: 40,
                value_bits: 8,
                remoteness_bits: 8,
                dense: false,
            },
            layers,
            width,
            same,
            skip,
            cycle: false,
            back: None,
            wide: None,
            beyond: None,
            spread: 3,
            fanout: 5,
        }
    }

    fn state(layer: usize, n: u64) -> u64 {
        (layer as u64) << 32 | n
    }
}

impl Game for Toy {
    fn descriptor(&self) -> &GameDescriptor {
        &self.desc
    }
    fn start(&self) -> u64 {
        // Key 0 is a state like any other.
        0
    }
    fn layer_count(&self) -> usize {
        self.layers
    }
    fn layer(&self, state: u64) -> usize {
        (state >> 32) as usize
    }
    fn to_move(&self, state: u64) -> Player {
        if mix(state) & 1 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }
    fn symmetry_count(&self) -> usize {
        2
    }
    fn transform(&self, state: u64, sym: usize) -> u64 {
        state ^ sym as u64
    }
    fn transform_move(&self, mv: Move, _sym: usize) -> Move {
        mv
    }
    fn moves(&self, s: u64, out: &mut Vec<Edge>) {
        let canon = self.canonical(s);
        let (k, n) = (self.layer(s), canon & 0xFFFF_FFFF);
        let h = mix(canon ^ 0x1234);
        let mut push = |i: u16, child: u64| {
            let hh = mix(h ^ u64::from(i));
            out.push(Edge {
                mv: Move(i),
                child,
                reward: (hh % (2 * self.spread + 1)) as i8 - self.spread as i8,
                again: hh >> 8 & 3 == 0,
            });
        };
        if Some(canon) == self.back {
            push(0, Toy::state(0, 1));
        }
        if Some(canon) == self.wide {
            push(0, 1 << 45);
        }
        if Some(canon) == self.beyond {
            push(0, Toy::state(self.layers, 0));
        }
        // States with same-layer moves go to the upper half of the layer,
        // whose states have none (unless the game is broken): chains of
        // length two at most.
        let (half, upper) = (self.width / 2, n >= self.width / 2);
        if h % 1000 < self.same && (!upper || self.cycle) {
            let to = match (self.cycle, upper) {
                (false, _) => half + (h >> 12) % half,
                // Broken: pairs of states that pass to each other.
                (true, false) => n + half,
                (true, true) => n - half,
            };
            push(1, Toy::state(k, to));
            if h >> 40 & 1 == 0 {
                return;
            }
        }
        if k + 1 >= self.layers {
            return;
        }
        for i in 0..(h >> 20) % self.fanout {
            let hh = mix(h + i);
            let step = if hh % 1000 < self.skip && k + 2 < self.layers {
                2
            } else {
                1
            };
            push(i as u16 + 2, Toy::state(k + step, (hh >> 16) % self.width));
        }
    }
    fn is_valid_key(&self, _key: u64) -> bool {
        true
    }
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        Err(PositionError::malformed(text, "toy"))
    }
    fn format_position(&self, state: u64) -> String {
        state.to_string()
    }
    fn format_move(&self, mv: Move) -> String {
        mv.0.to_string()
    }
    fn parse_move(&self, _state: u64, text: &str) -> Result<Move, PositionError> {
        Err(PositionError::malformed(text, "toy"))
    }
    fn player_name(&self, _player: Player) -> &'static str {
        "P"
    }
    fn score(&self, _state: u64, net: i32) -> i32 {
        net
    }
}

/// The value of every reachable canonical state, by plain recursion.
fn reference(game: &Toy) -> HashMap<u64, Value> {
    fn value(game: &Toy, s: u64, memo: &mut HashMap<u64, Value>) -> Value {
        if let Some(&v) = memo.get(&s) {
            return v;
        }
        let mut edges = Vec::new();
        game.canonical_children(s, &mut edges);
        let mut best: Option<Value> = None;
        for e in edges {
            let v = Value::through(&e, value(game, e.child, memo));
            if best.is_none_or(|b| v.better_than(b)) {
                best = Some(v);
            }
        }
        let v = best.unwrap_or(Value::TERMINAL);
        memo.insert(s, v);
        v
    }
    let mut memo = HashMap::new();
    value(game, game.canonical(game.start()), &mut memo);
    memo
}

fn check(game: &Toy) {
    let sol = solve(game, &NoProgress).expect("the toy game solves");
    let want = reference(game);
    let mut records: Vec<u64> = want
        .iter()
        .map(|(&k, &v)| sol.layout.pack(k, v).unwrap())
        .collect();
    records.sort_unstable();
    assert_eq!(sol.records, records);
    assert_eq!(sol.start, 0);
    let mut sizes = vec![0; game.layers];
    for &k in want.keys() {
        sizes[game.layer(k)] += 1;
    }
    assert_eq!(sol.layer_sizes, sizes);
    for (&k, &v) in want.iter().take(1000) {
        assert_eq!(sol.get(k), Some(v));
    }
}

#[test]
fn matches_the_reference_on_plain_layers() {
    check(&Toy::new(12, 5000, 0, 0));
}

#[test]
fn matches_the_reference_with_passes_and_skipped_layers() {
    check(&Toy::new(10, 20_000, 300, 200));
    check(&Toy::new(6, 300_000, 50, 50));
}

#[test]
fn matches_the_reference_with_wide_rewards_and_many_moves() {
    let mut game = Toy::new(10, 50_000, 100, 100);
    game.spread = 12;
    game.fanout = 9;
    check(&game);
}

#[test]
fn matches_the_reference_on_tiny_games() {
    check(&Toy::new(1, 10, 0, 0));
    check(&Toy::new(2, 4, 500, 0));
    check(&Toy::new(3, 4, 900, 500));
}

#[test]
fn threads_do_not_change_the_records() {
    let game = Toy::new(10, 20_000, 300, 200);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| solve(&game, &NoProgress).unwrap());
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap()
        .install(|| solve(&game, &NoProgress).unwrap());
    assert_eq!(one.records, two.records);
}

#[test]
fn same_layer_cycles_are_errors() {
    let mut game = Toy::new(6, 1000, 500, 0);
    game.cycle = true;
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::SameLayerCycle { .. })
    ));
}

/// A canonical state of layer `k` of `game` reachable from the start.
fn reachable_in(game: &Toy, k: usize) -> u64 {
    *reference(game)
        .keys()
        .filter(|&&s| game.layer(s) == k)
        .min()
        .expect("layer is reachable")
}

#[test]
fn broken_games_are_errors() {
    let mut game = Toy::new(6, 1000, 0, 0);
    game.back = Some(reachable_in(&game, 3));
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::LayerOrder { from: 3, to: 0, .. })
    ));
    let mut game = Toy::new(6, 1000, 0, 0);
    game.wide = Some(reachable_in(&game, 2));
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::KeyTooWide { bits: 40, .. })
    ));
    let mut game = Toy::new(6, 1000, 0, 0);
    game.beyond = Some(reachable_in(&game, 4));
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::LayerRange {
            layer: 6,
            count: 6,
            ..
        })
    ));
    // A layout that cannot hold the values.
    let mut game = Toy::new(6, 1000, 0, 0);
    game.desc.value_bits = 2;
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::Overflow(_))
    ));
    let mut game = Toy::new(6, 1000, 0, 0);
    game.desc.key_bits = 60;
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::Overflow(_))
    ));
    // Keys that fit a record but not the state tables.
    let mut game = Toy::new(6, 1000, 0, 0);
    (
        game.desc.key_bits,
        game.desc.value_bits,
        game.desc.remoteness_bits,
    ) = (56, 4, 4);
    assert!(matches!(
        solve(&game, &NoProgress),
        Err(SolveError::KeyBits { bits: 56 })
    ));
}
