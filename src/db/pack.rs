//! Writing packed files (`format-spec.md`, section 3c): a sorted or dense
//! file's records cut into blocks, each compressed on its own (in parallel),
//! decompressed again and compared before it is kept, then written with an
//! index, atomically, as every database is.

use std::borrow::Cow;
use std::path::Path;

use rayon::prelude::*;

use super::header::{
    Header, PackedInfo, CODEC_DEFLATE, HEADER_SIZE, INDEX_ENTRY_SIZE, MAX_BLOCK_ENTRIES,
    MAX_BLOCK_SIZE, MIN_BLOCK_ENTRIES,
};
use super::packed::{inflate, Codec};
use super::{Database, DbError};
use crate::core::{Corrupted, Game, LayoutKind, Progress};

use super::header::DEFAULT_BLOCK_ENTRIES;
pub(crate) use super::header::DEFAULT_LEVEL;

/// How to pack.
#[derive(Clone, Copy, Debug)]
pub struct PackOptions {
    /// Entries per block: a power of two from 64 to 2^20.
    pub block_entries: u32,
    /// DEFLATE level, 1 to 10.
    pub level: u8,
}

impl Default for PackOptions {
    fn default() -> PackOptions {
        PackOptions {
            block_entries: DEFAULT_BLOCK_ENTRIES,
            level: DEFAULT_LEVEL,
        }
    }
}

impl PackOptions {
    /// Checks the options.
    pub fn check(&self) -> Result<(), DbError> {
        let n = self.block_entries;
        if !n.is_power_of_two() || !(MIN_BLOCK_ENTRIES..=MAX_BLOCK_ENTRIES).contains(&n) {
            return Err(DbError::HeaderField {
                field: "block_entries",
                reason: format!(
                    "{n} is not a power of two from {MIN_BLOCK_ENTRIES} to {MAX_BLOCK_ENTRIES}"
                ),
            });
        }
        if !(1..=10).contains(&self.level) {
            return Err(DbError::HeaderField {
                field: "codec",
                reason: format!("DEFLATE level {} is not from 1 to 10", self.level),
            });
        }
        Ok(())
    }
}

/// The blocks of a packed file, ready to be written.
#[derive(Debug)]
pub struct PackedBody {
    /// The first key of each block.
    pub first_keys: Vec<u64>,
    /// Each block: payload and checksum.
    pub blocks: Vec<Vec<u8>>,
    /// The entries stored.
    pub entry_count: u64,
    /// Entries per block.
    pub block_entries: u32,
}

impl PackedBody {
    /// The size of the blocks, the index and the header together.
    pub fn file_size(&self) -> u64 {
        HEADER_SIZE as u64
            + self.blocks.iter().map(|b| b.len() as u64).sum::<u64>()
            + self.first_keys.len() as u64 * INDEX_ENTRY_SIZE
    }

    /// The header of the packed file of the sorted or dense file whose
    /// header is `unpacked`, and the index bytes.
    pub(crate) fn header_and_index(&self, unpacked: &Header) -> (Header, Vec<u8>) {
        let mut index = Vec::with_capacity(self.first_keys.len() * INDEX_ENTRY_SIZE as usize);
        let mut at = HEADER_SIZE as u64;
        for (key, block) in self.first_keys.iter().zip(&self.blocks) {
            index.extend_from_slice(&key.to_le_bytes());
            index.extend_from_slice(&at.to_le_bytes());
            at += block.len() as u64;
        }
        let info = PackedInfo {
            codec: CODEC_DEFLATE,
            block_entries: self.block_entries,
            max_block_size: self
                .blocks
                .iter()
                .map(|b| b.len() as u32)
                .max()
                .unwrap_or(super::header::MIN_BLOCK_SIZE as u32),
            entry_count: self.entry_count,
            block_count: self.blocks.len() as u64,
            index_offset: at,
            index_checksum: xxhash_rust::xxh3::xxh3_64(&index),
        };
        let header = Header {
            packed: Some(info),
            ..unpacked.unpacked()
        };
        (header, index)
    }
}

/// Compresses one block's content, checks that it inflates back to the
/// same bytes, and appends the checksum.
fn seal(content: &[u8], max_content: usize, level: u8) -> Result<Vec<u8>, DbError> {
    let mut block = miniz_oxide::deflate::compress_to_vec(content, level);
    let back = inflate(&block, max_content).map_err(Corrupted::new)?;
    if back != content {
        return Err(Corrupted::new("a block does not inflate to what was compressed").into());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&block);
    block.extend_from_slice(&sum.to_le_bytes());
    if block.len() > MAX_BLOCK_SIZE as usize {
        return Err(DbError::HeaderField {
            field: "max_block_size",
            reason: format!("a block of {} bytes is too large", block.len()),
        });
    }
    Ok(block)
}

/// Packs sorted records (host order, strictly ascending, laid out by
/// `header`'s fields).
pub fn pack_sorted(
    header: &Header,
    records: &[u64],
    options: PackOptions,
    progress: &dyn Progress,
) -> Result<PackedBody, DbError> {
    options.check()?;
    let codec = Codec::new(LayoutKind::Sorted, header.layout);
    let per = options.block_entries as usize;
    progress.start_phase("pack", records.len() as u64);
    let blocks = records
        .par_chunks(per)
        .map(|chunk| {
            let mut content = Vec::new();
            codec.sorted_content(chunk, &mut content);
            let block = seal(&content, codec.max_content(chunk.len()), options.level);
            progress.advance(chunk.len() as u64);
            block
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    progress.finish_phase();
    Ok(PackedBody {
        first_keys: records
            .iter()
            .step_by(per)
            .map(|&r| header.layout.key(r))
            .collect(),
        blocks,
        entry_count: records.len() as u64,
        block_entries: options.block_entries,
    })
}

/// Keys per unit of the parallel passes over a dense table.
const DENSE_CHUNK: u64 = 1 << 16;

/// Packs a dense table (entry `k` the byte of key `k`), storing the entries
/// of canonical keys only: every other key's entry must equal its canonical
/// key's (a table where it does not is refused: it is damaged).
pub fn pack_dense(
    table: &[u8],
    game: &dyn Game,
    options: PackOptions,
    progress: &dyn Progress,
) -> Result<PackedBody, DbError> {
    options.check()?;
    let total = table.len() as u64;
    let chunks = total.div_ceil(DENSE_CHUNK);
    let range = |c: u64| c * DENSE_CHUNK..total.min((c + 1) * DENSE_CHUNK);
    progress.start_phase("pack", 2 * total);
    // How many canonical keys each stretch holds, every symmetric entry
    // checked on the way.
    let counts = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut n = 0u64;
            for k in range(c) {
                let canon = game.canonical(k);
                if canon == k {
                    n += 1;
                } else if table.get(canon as usize) != Some(&table[k as usize]) {
                    return Err(DbError::BadRecord {
                        index: k,
                        key: k,
                        reason: format!(
                            "its entry differs from its symmetric key {canon:#x}'s: the table \
                             is damaged"
                        ),
                    });
                }
            }
            progress.advance(range(c).end - range(c).start);
            Ok(n)
        })
        .collect::<Result<Vec<u64>, DbError>>()?;
    let per = u64::from(options.block_entries);
    let mut rank = Vec::with_capacity(counts.len());
    let mut entry_count = 0u64;
    for n in &counts {
        rank.push(entry_count);
        entry_count += n;
    }
    // The first key of every block: each canonical key whose rank is a
    // multiple of the block size.
    let first_keys: Vec<u64> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut r = rank[c as usize];
            let mut firsts = Vec::new();
            for k in range(c) {
                if game.is_canonical(k) {
                    if r % per == 0 {
                        firsts.push(k);
                    }
                    r += 1;
                }
            }
            firsts
        })
        .collect();
    let codec = Codec::new(
        LayoutKind::Dense,
        crate::core::RecordLayout::dense(total.trailing_zeros()),
    );
    let blocks = (0..first_keys.len())
        .into_par_iter()
        .map(|b| {
            let end = first_keys.get(b + 1).copied().unwrap_or(total);
            let content: Vec<u8> = (first_keys[b]..end)
                .filter(|&k| game.is_canonical(k))
                .map(|k| table[k as usize])
                .collect();
            progress.advance(end - first_keys[b]);
            seal(&content, codec.max_content(content.len()), options.level)
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    progress.finish_phase();
    Ok(PackedBody {
        first_keys,
        blocks,
        entry_count,
        block_entries: options.block_entries,
    })
}

/// Writes a packed file atomically: the header of the packed file of the
/// file whose header is `unpacked`, the blocks, the index.
pub fn write_packed(path: &Path, unpacked: &Header, body: &PackedBody) -> Result<(), DbError> {
    let (header, index) = body.header_and_index(unpacked);
    let mut parts: Vec<&[u8]> = body.blocks.iter().map(Vec::as_slice).collect();
    parts.push(&index);
    super::writer::write_file(path, &header, &parts)
}

/// Packs the records of `db` (a sorted or dense file, whose records
/// checksum is checked first; or a packed one, unpacked first, to pack it
/// again with other options): the body to write with [`write_packed`] and
/// the header of the file packed. A dense file is packed by its game's
/// symmetries.
pub fn pack_database(
    db: &Database,
    game: &dyn Game,
    options: PackOptions,
    progress: &dyn Progress,
) -> Result<(PackedBody, Header), DbError> {
    let unpacked;
    let db = if db.is_packed() {
        unpacked = db.unpack()?;
        &unpacked
    } else {
        db
    };
    db.verify_checksum()?;
    let header = db.header().clone();
    let body = match header.kind {
        LayoutKind::Sorted => {
            let records: Cow<'_, [u64]> = if cfg!(target_endian = "little") {
                Cow::Borrowed(db.raw_records())
            } else {
                Cow::Owned(db.raw_records().iter().map(|&r| u64::from_le(r)).collect())
            };
            pack_sorted(&header, &records, options, progress)?
        }
        LayoutKind::Dense => pack_dense(db.dense_entries(), game, options, progress)?,
    };
    Ok((body, header))
}

/// Writes the file a packed database holds, byte for byte, atomically:
/// every block checked and decoded, and the records checksum of the whole
/// checked, on the way.
pub fn unpack_database(db: &Database, path: &Path) -> Result<(), DbError> {
    let plain = db.unpack()?;
    plain.verify_checksum()?;
    let bytes = plain.file_bytes();
    super::writer::write_file(path, plain.header(), &[&bytes[HEADER_SIZE..]])
}
