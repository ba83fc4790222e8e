//! Whether a header describes a database of a given game: the check every
//! reader makes before it maps a file.

use super::{DbError, Header};
use crate::core::{Game, LayoutKind, RecordLayout};

/// Checks that a header describes a database of `game` as this build
/// writes it: the game's name and id, the variant in canonical form, the
/// layout kind and record layout, a record count the game allows (the
/// exact count of a complete database, where the game knows it) and the
/// start key.
pub(crate) fn check_header(game: &dyn Game, header: &Header) -> Result<(), DbError> {
    let desc = game.descriptor();
    let wrong = |field: &'static str, reason: String| Err(DbError::HeaderField { field, reason });
    if desc.name != header.game_name || desc.id != header.game_id {
        return wrong(
            "game_id",
            format!(
                "the game is {:?} with id {}, but {} has id {}, not {}",
                header.game_name, header.game_id, desc.name, desc.id, header.game_id
            ),
        );
    }
    if desc.variant != header.variant {
        return wrong(
            "variant",
            format!(
                "{:?} is not in canonical form ({:?})",
                header.variant, desc.variant
            ),
        );
    }
    let kind = LayoutKind::for_game(desc);
    if kind != header.kind {
        return wrong(
            "layout_kind",
            format!("{:?}, but this game is stored {kind:?}", header.kind),
        );
    }
    let layout = RecordLayout::for_game(desc);
    if layout != header.layout {
        return wrong(
            "record_layout",
            format!(
                "{:?} differs from this game's layout {layout:?}",
                header.layout
            ),
        );
    }
    // No count the game rules out: a header may be forged with consistent
    // checksums, and every size the reader uses comes from it.
    let limits = game.limits();
    let count = header.record_count;
    if kind == LayoutKind::Sorted && count > limits.states {
        return wrong(
            "record_count",
            format!(
                "{count} records, but {} {} has at most {} positions",
                desc.name, desc.variant, limits.states
            ),
        );
    }
    if let (Some(exact), true) = (limits.exact_states, header.is_complete()) {
        if count != exact {
            return wrong(
                "record_count",
                format!(
                    "{count} records, but a complete database of {} {} has {exact}",
                    desc.name, desc.variant
                ),
            );
        }
    }
    let start = game.canonical(game.start());
    if header.start_key != start {
        return wrong(
            "start_key",
            format!(
                "{:#x}, but the game's start is {start:#x}",
                header.start_key
            ),
        );
    }
    Ok(())
}
