//! What a database file holds, from its header: [`FileInfo`].

use boardsolve::analysis::stored_value;
use boardsolve::core::LayoutKind;

use crate::error::ProbeError;
use crate::tablebase::Tablebase;

/// How a file's records are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// Sorted 64-bit records, one per canonical position.
    Sorted,
    /// One byte per key: every position.
    Dense,
}

impl Records {
    /// `sorted` or `dense`.
    pub fn name(self) -> &'static str {
        match self {
            Records::Sorted => "sorted",
            Records::Dense => "dense",
        }
    }
}

/// Where a record's fields lie in its 64 bits (`format-spec.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// Width of the key field.
    pub key_bits: u32,
    /// Its lowest bit.
    pub key_shift: u32,
    /// Width of the remoteness field.
    pub remoteness_bits: u32,
    /// Its lowest bit.
    pub remoteness_shift: u32,
    /// Width of the value field.
    pub value_bits: u32,
    /// Its lowest bit.
    pub value_shift: u32,
}

/// The blocks of a packed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// Entries stored: every record of a sorted file, the canonical keys
    /// of a dense one.
    pub entries: u64,
    /// The number of blocks.
    pub blocks: u64,
    /// Entries per block (every block but the last holds this many).
    pub block_entries: u32,
}

/// What a database file holds, from its header, and the start's value.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    /// The game's registry name, as the header writes it.
    pub game: String,
    /// The game's id in headers.
    pub game_id: u32,
    /// The variant.
    pub variant: String,
    /// The program that wrote the file, and its version.
    pub generator: String,
    /// The number of records.
    pub records: u64,
    /// True when the file holds every reachable position.
    pub complete: bool,
    /// How the records are arranged (for a packed file: those it packs).
    pub kind: Records,
    /// The fields of a record.
    pub layout: FieldLayout,
    /// The blocks, for a packed file.
    pub packed: Option<Packing>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The start's value, as the game states values.
    pub start_value: i32,
    /// The start's remoteness.
    pub start_remoteness: u32,
}

impl FileInfo {
    /// The bits a position takes in the file, on average.
    pub fn bits_per_position(&self) -> f64 {
        8.0 * self.bytes as f64 / self.records.max(1) as f64
    }
}

impl Tablebase {
    /// How the file's records are arranged (for a packed file: those it
    /// packs); `None` without a file.
    pub fn records(&self) -> Option<Records> {
        Some(match self.db.as_deref()?.header().kind {
            LayoutKind::Sorted => Records::Sorted,
            LayoutKind::Dense => Records::Dense,
        })
    }

    /// The checksum of the file's records (XXH3-128, from its header):
    /// what names its contents; `None` without a file.
    pub fn records_checksum(&self) -> Option<u128> {
        Some(self.db.as_deref()?.header().records_checksum)
    }

    /// What the file holds, from its header, and the start's value (read,
    /// and checked, from the records).
    pub fn info(&self) -> Result<FileInfo, ProbeError> {
        let db = self.db.as_deref().ok_or_else(|| self.no_database())?;
        let g = self.game.present();
        let start = g.start();
        let v = stored_value(g, db, start, g.canonical(start))?;
        let h = db.header();
        let l = &h.layout;
        Ok(FileInfo {
            game: h.game_name.clone(),
            game_id: h.game_id,
            variant: h.variant.clone(),
            generator: h.generator.clone(),
            records: h.record_count,
            complete: h.is_complete(),
            kind: match h.kind {
                LayoutKind::Sorted => Records::Sorted,
                LayoutKind::Dense => Records::Dense,
            },
            layout: FieldLayout {
                key_bits: l.key_bits,
                key_shift: l.key_shift,
                remoteness_bits: l.remoteness_bits,
                remoteness_shift: l.remoteness_shift,
                value_bits: l.value_bits,
                value_shift: l.value_shift,
            },
            packed: h.packed.map(|p| Packing {
                entries: p.entry_count,
                blocks: p.block_count,
                block_entries: p.block_entries,
            }),
            bytes: db.file_len(),
            start_value: g.score(start, v.net),
            start_remoteness: v.remoteness,
        })
    }
}
