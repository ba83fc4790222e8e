//! Games: [`Game`], one game and variant (its names, notation and words),
//! and the list of every game this build knows ([`games`], [`GameEntry`]).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use boardsolve::registry::{self, AnyGame, DatabaseKind, GameInfo};
use boardsolve::render::Presentation;
use boardsolve::{Outcome, Player};

use crate::error::ProbeError;
use crate::name::{self, Named};

/// One game and variant (British Square 5x5, Connect Four 7x6, ...): its
/// names, its notation and the words its answers use.
///
/// A handle: copying it is free, and every handle of one game and variant
/// is the same (`==`). Each game and variant is set up once in a process
/// and kept for its life (tens of kilobytes with the names of its moves,
/// or a few hundred for the largest symmetry tables), so that positions
/// and answers can refer to it without counting references.
#[derive(Clone, Copy)]
pub struct Game {
    pub(crate) any: &'static AnyGame,
    pub(crate) named: &'static Named,
}

/// The games set up so far, by label (`british-square 5x5`).
fn set_up() -> &'static Mutex<HashMap<String, Game>> {
    static GAMES: OnceLock<Mutex<HashMap<String, Game>>> = OnceLock::new();
    GAMES.get_or_init(Default::default)
}

impl Game {
    /// The game `name` (a registry name or another name of a variant, such
    /// as `tic-tac-toe`) in `variant` (empty for the standard one).
    pub fn new(name: &str, variant: &str) -> Result<Game, ProbeError> {
        Ok(Game::interned(AnyGame::new(name, variant)?))
    }

    /// The one handle of `any`'s game and variant.
    pub(crate) fn interned(any: AnyGame) -> Game {
        let label = any.label();
        // A panic elsewhere while the lock was held leaves the map whole.
        let mut games = set_up().lock().unwrap_or_else(|p| p.into_inner());
        *games.entry(label).or_insert_with(|| Game {
            any: Box::leak(Box::new(any)),
            named: Box::leak(Box::new(name::named())),
        })
    }

    /// What a request for the game `name` (a registry name or another
    /// name of a variant) in `variant` names, without keeping the game set
    /// up, for a caller that only matches requests against the games it
    /// has (a server): the registry name, and the canonical spelling of
    /// the variant (`5x5` for an empty variant of British Square) when the
    /// request names one (`variant` is not empty, or `name` stands for one
    /// variant: `tic-tac-toe`).
    pub fn canonical(
        name: &str,
        variant: &str,
    ) -> Result<(&'static str, Option<String>), ProbeError> {
        if variant.is_empty() {
            if let Some(entry) = games().find(|g| g.name() == name) {
                return Ok((entry.name(), None));
            }
        }
        let any = AnyGame::new(name, variant)?;
        Ok((
            any.info().name,
            Some(any.game().descriptor().variant.clone()),
        ))
    }

    /// The other name of this game and variant (`tic-tac-toe` for
    /// k-in-a-row 3x3,k=3), if it has one: menus and lists show it.
    pub(crate) fn alias(self) -> Option<&'static str> {
        self.any.alias()
    }

    /// Its rules, notation and looks.
    pub(crate) fn present(self) -> &'static dyn Presentation {
        self.any.present()
    }

    /// The registry name (`british-square`, `connect-four`, ...).
    pub fn name(self) -> &'static str {
        self.present().descriptor().name
    }

    /// The variant, in canonical form (`5x5`, `7x6`, `3x3,k=3`, ...).
    pub fn variant(self) -> &'static str {
        &self.present().descriptor().variant
    }

    /// The name and variant: `british-square 5x5`.
    pub fn label(self) -> String {
        self.any.label()
    }

    /// The game's entry in the list of games.
    pub fn entry(self) -> GameEntry {
        GameEntry {
            info: self.any.info(),
        }
    }

    /// What a player is called (`X`, `O`, `A`, `B`, `dandelions`, `wind`).
    pub fn player_name(self, player: Player) -> &'static str {
        self.present().player_name(player)
    }

    /// What a player plays with and how its pieces look, in a few words
    /// (`"red stones; moves first"`).
    pub fn player_pieces(self, player: Player) -> &'static str {
        self.present().player_pieces(player)
    }

    /// What a value means in this game, in words.
    pub fn score_meaning(self) -> &'static str {
        self.present().score_meaning()
    }

    /// How a move is written, for help texts.
    pub fn move_notation(self) -> &'static str {
        self.present().move_notation()
    }

    /// What joins the names of the moves played from the start into a
    /// position of this game (`""` for Connect Four's `4453`, `" "` for
    /// British Square's `b2 c3`), or `None` where a position is not its
    /// moves (Dots and Boxes, Dandelions).
    pub(crate) fn moves_separator(self) -> Option<&'static str> {
        self.present().moves_separator()
    }

    /// The word for the game's even result: `draw` where nobody wins
    /// (Connect Four, k-in-a-row), `tie` where the scores are equal
    /// (British Square, Dots and Boxes); `None` for a game that always has
    /// a winner (Dandelions).
    pub fn even_result(self) -> Option<&'static str> {
        self.present().even_result()
    }

    /// [`Game::even_result`], or `tie` for a game that has none (where no
    /// even result is ever shown).
    pub fn even_word(self) -> &'static str {
        boardsolve::render::even_word(self.present())
    }

    /// What a value says beyond win, tie or loss, in words, for `side`,
    /// the player it is for: `O ends 2 pieces behind`, `O wins with its
    /// 20th stone`; `None` where the outcome says all (tic-tac-toe).
    pub fn score_words(self, score: i32, side: Player) -> Option<String> {
        self.present().score_words(score, side)
    }

    /// A value in words for `side`, the player it is for, as `query`'s
    /// text gives it after the number: `a loss: O ends 2 pieces behind`.
    pub(crate) fn verdict(self, score: i32, outcome: Outcome, side: Player) -> String {
        self.present().verdict(score, outcome, side)
    }

    /// True when the result is a score of points (British Square's pieces,
    /// Dots and Boxes' boxes, Dandelions' flowers or gaps); false for a
    /// game that is only won, lost or drawn.
    pub fn counts_points(self) -> bool {
        self.present().counts_points()
    }

    /// True when a player can have no move but to pass (British Square).
    pub fn has_passes(self) -> bool {
        self.present().has_passes()
    }

    /// What a stage of the game counts, for table headers (`pieces`,
    /// `edges`, ...).
    pub fn layer_name(self) -> &'static str {
        self.present().layer_name()
    }

    /// True when a position's key holds the score so far (British Square:
    /// the pieces on the board), so that values can be given as final
    /// scores; false where the score so far comes only with the text of a
    /// position (Dots and Boxes).
    pub fn keeps_score(self) -> bool {
        let g = self.present();
        g.lead(g.start()).is_some()
    }

    /// True for the standard variant (the one an empty variant names).
    pub fn is_standard(self) -> bool {
        self.any.is_standard()
    }

    /// The default database file's name: `bsq.db`, or `bsq-4x4.db` for
    /// another variant.
    pub fn default_file_name(self) -> String {
        self.any.default_file_name()
    }

    /// The `generator` command that writes the default file.
    pub fn generator_command(self) -> String {
        self.any.generator_command()
    }

    /// True when the game's database is an opening book, so that the
    /// positions past it need search.
    pub fn has_book(self) -> bool {
        self.any.has_book()
    }

    /// True when a database of this variant can be written: its records
    /// fit 64 bits (larger boards are answered by search alone).
    pub fn has_database(self) -> bool {
        self.present().descriptor().storage_error().is_none()
    }
}

impl PartialEq for Game {
    fn eq(&self, other: &Game) -> bool {
        std::ptr::eq(self.any, other.any)
    }
}

impl Eq for Game {}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Game").field(&self.label()).finish()
    }
}

impl std::fmt::Display for Game {
    /// The label: `british-square 5x5`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

/// One game of the list this build knows ([`games`]), before a variant is
/// chosen: its names and help texts.
#[derive(Clone, Copy, Debug)]
pub struct GameEntry {
    info: &'static GameInfo,
}

impl GameEntry {
    /// The registry name.
    pub fn name(self) -> &'static str {
        self.info.name
    }

    /// The game in one line.
    pub fn about(self) -> &'static str {
        self.info.about
    }

    /// The variants, for help texts.
    pub fn variants(self) -> &'static str {
        self.info.variants
    }

    /// How positions are written, for help texts.
    pub fn notation(self) -> &'static str {
        self.info.notation
    }

    /// A position of the standard variant, in the game's notation.
    pub fn example(self) -> &'static str {
        self.info.example
    }

    /// The stem of the default database file (`bsq` gives `bsq.db`).
    pub fn file_stem(self) -> &'static str {
        self.info.file_stem
    }

    /// True when the standard variant's database is an opening book.
    pub fn has_book(self) -> bool {
        matches!(self.info.kind, DatabaseKind::Book { .. })
    }
}

/// Every game this build knows, in the order of help texts (the first is
/// the tools' default).
pub fn games() -> impl ExactSizeIterator<Item = GameEntry> {
    registry::GAMES.iter().map(|info| GameEntry { info })
}

/// The games' names, comma-separated, for messages.
pub fn game_names() -> String {
    registry::known_names()
}

/// A paragraph a game, for `--help`: what it is, its variants, its
/// notation and what its database holds.
pub fn games_help() -> String {
    registry::games_help()
}
