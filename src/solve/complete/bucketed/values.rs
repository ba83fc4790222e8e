//! A bucket's values by local id, as the backward pass writes and reads
//! them (and as ranks send them each other): a byte a state, into a small
//! palette, when they fit one.

use std::cell::RefCell;

use crate::solve::complete::cell::Cell;

/// A bucket's values by local id: one-byte codes into a palette when there
/// are at most 256 distinct values (British Square has fewer than 70).
#[derive(Default)]
pub(in crate::solve) struct Values {
    /// Per state, by local id: the place of its value in `palette`.
    pub(in crate::solve) codes: Vec<u8>,
    /// The distinct values, when they fit.
    pub(in crate::solve) palette: Vec<Cell>,
    /// The values themselves, when they do not fit a palette.
    pub(in crate::solve) plain: Vec<Cell>,
}

thread_local! {
    /// Per possible cell: its palette code + 1, or 0 (reset after use).
    static PALETTE_INDEX: RefCell<Vec<u16>> = RefCell::new(vec![0; 1 << 16]);
}

impl Values {
    /// The values `cells`, by local id: coded into a palette when they
    /// fit one.
    pub(in crate::solve) fn new(cells: Vec<Cell>) -> Values {
        PALETTE_INDEX.with(|index| {
            let index = &mut *index.borrow_mut();
            let mut palette: Vec<Cell> = Vec::new();
            let mut codes = Vec::with_capacity(cells.len());
            let mut fits = true;
            for &c in &cells {
                let slot = &mut index[usize::from(c.0)];
                if *slot == 0 {
                    if palette.len() == 256 {
                        fits = false;
                        break;
                    }
                    palette.push(c);
                    *slot = palette.len() as u16;
                }
                codes.push((*slot - 1) as u8);
            }
            for c in &palette {
                index[usize::from(c.0)] = 0;
            }
            if fits {
                Values {
                    codes,
                    palette,
                    plain: Vec::new(),
                }
            } else {
                Values {
                    plain: cells,
                    ..Values::default()
                }
            }
        })
    }

    /// How many states have a value.
    pub(in crate::solve) fn len(&self) -> usize {
        self.codes.len().max(self.plain.len())
    }

    /// The value of the state of local id `id`.
    #[inline(always)]
    pub(in crate::solve) fn get(&self, id: u16) -> Cell {
        if self.plain.is_empty() {
            self.palette[usize::from(self.codes[usize::from(id)])]
        } else {
            self.plain[usize::from(id)]
        }
    }
}
