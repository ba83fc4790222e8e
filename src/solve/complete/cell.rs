//! The value cell of a state while a solver scores it.

use super::error::{overflow, SolveError};
use crate::core::layout::RecordLayout;
use crate::core::Value;

/// A state's value cell: net score and remoteness, packed into 16 bits so a
/// layer's values stay cache-friendly. `UNSET` marks a state not scored yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cell(pub(super) u16);

impl Cell {
    pub(super) const UNSET: Cell = Cell(u16::MAX);

    pub(super) fn new(v: Value, layout: &RecordLayout) -> Result<Cell, SolveError> {
        // Net scores fit in an i8 and remoteness below 255 for every layout a
        // game may declare with 13 or fewer value bits; check rather than trust.
        let net = i8::try_from(v.net).map_err(|_| overflow(v, layout))?;
        let rem = u8::try_from(v.remoteness)
            .ok()
            .filter(|&r| r != u8::MAX)
            .ok_or_else(|| overflow(v, layout))?;
        Ok(Cell(u16::from(net as u8) << 8 | u16::from(rem)))
    }

    #[inline]
    pub(super) fn value(self) -> Value {
        Value {
            net: i32::from((self.0 >> 8) as u8 as i8),
            remoteness: u32::from(self.0 as u8),
        }
    }
}
