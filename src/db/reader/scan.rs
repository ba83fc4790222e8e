//! Reading every record: the records checksum, and the entries of a book
//! ([`BookSource`]).

#[cfg(unix)]
use memmap2::Advice;

use super::{Backing, Database};
use crate::core::layout::LayoutKind;
use crate::core::{BookSource, Corrupted, Value};
use crate::db::header::HEADER_SIZE;
use crate::db::DbError;

/// Bytes hashed between two looks at a cancellation.
const CHECKSUM_PIECE: usize = 8 << 20;

impl Database {
    /// Reads every record and checks the records checksum (a packed file:
    /// every block's checksum and content, then the checksum of the records
    /// unpacked).
    pub fn verify_checksum(&self) -> Result<(), DbError> {
        self.verify_checksum_with(&crate::core::NoProgress)
    }

    /// [`Database::verify_checksum`], stopping with
    /// [`DbError::Interrupted`] soon after `progress` says the work is
    /// [cancelled](crate::core::Progress::cancelled).
    pub(crate) fn verify_checksum_with(
        &self,
        progress: &dyn crate::core::Progress,
    ) -> Result<(), DbError> {
        if self.packed.is_some() {
            return self.unpack_with(progress)?.verify_checksum_with(progress);
        }
        if let Backing::Ranges(_) = self.map {
            return Err(DbError::HeaderField {
                field: "records_checksum",
                reason: "a file read by ranges is verified where it is stored".into(),
            });
        }
        #[cfg(unix)]
        let advise = |advice| {
            if let Backing::Map(m) = &self.map {
                let _ = m.map.advise(advice);
            }
        };
        #[cfg(unix)]
        advise(Advice::Sequential);
        // In pieces, to hear a cancellation between them.
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut cancelled = false;
        for piece in self.map.bytes()[HEADER_SIZE..].chunks(CHECKSUM_PIECE) {
            if progress.cancelled() {
                cancelled = true;
                break;
            }
            hasher.update(piece);
        }
        #[cfg(unix)]
        advise(Advice::Random);
        if cancelled {
            return Err(DbError::Interrupted);
        }
        self.check_intact()?;
        if hasher.digest128() == self.header.records_checksum {
            Ok(())
        } else {
            Err(DbError::RecordsChecksum)
        }
    }
}

impl BookSource for Database {
    fn entries(&self) -> Box<dyn Iterator<Item = Result<(u64, Value), Corrupted>> + '_> {
        let layout = self.header().layout;
        if let Some(p) = &self.packed {
            // Block by block: each checked and decoded as it is reached.
            let bytes = self.map.file_bytes();
            let codec = *p.codec();
            if let Backing::Ranges(_) = &self.map {
                // Every block looked at now, so that the missing ones are
                // all wanted at once: one round of fetches for the host,
                // not one a block.
                let blocks: Vec<Result<Vec<u64>, Corrupted>> = (0..p.block_count() as usize)
                    .map(|b| p.decode_entries(bytes, b))
                    .collect();
                if let Some(Err(e)) = blocks.iter().find(|b| b.is_err()) {
                    return Box::new(std::iter::once(Err(e.clone())));
                }
                return Box::new(
                    blocks
                        .into_iter()
                        .flatten()
                        .flatten()
                        .map(move |r| Ok((codec.key_of(r), codec.value(r)))),
                );
            }
            let per_block = move |b: usize| -> Box<dyn Iterator<Item = _>> {
                match p.decode_entries(bytes, b) {
                    Ok(entries) => Box::new(
                        entries
                            .into_iter()
                            .map(move |r| Ok((codec.key_of(r), codec.value(r)))),
                    ),
                    Err(e) => Box::new(std::iter::once(Err(e))),
                }
            };
            return Box::new((0..p.block_count() as usize).flat_map(per_block));
        }
        if let Backing::Ranges(file) = &self.map {
            // Every record at once: one range for the host to fetch.
            let end = file.len();
            let Some(bytes) = file.read(HEADER_SIZE as u64, end) else {
                return Box::new(std::iter::once(Err(Corrupted::new(format!(
                    "the records (bytes {HEADER_SIZE} to {end}) are not loaded yet"
                )))));
            };
            return match self.header().kind {
                LayoutKind::Sorted => Box::new(
                    bytes
                        .chunks_exact(8)
                        .map(|c| {
                            let mut w = [0u8; 8];
                            w.copy_from_slice(c);
                            u64::from_le_bytes(w)
                        })
                        .map(move |r| Ok((layout.key(r), layout.value(r))))
                        .collect::<Vec<_>>()
                        .into_iter(),
                ),
                LayoutKind::Dense => Box::new(
                    bytes
                        .into_iter()
                        .enumerate()
                        .map(move |(k, byte)| Ok((k as u64, layout.dense_value(k as u64, byte)))),
                ),
            };
        }
        // Last, whether the file lost bytes while they were read.
        let intact =
            std::iter::once_with(move || self.check_intact()).filter_map(|r| r.err().map(Err));
        match self.header().kind {
            LayoutKind::Sorted => Box::new(
                self.raw_records()
                    .iter()
                    .map(move |&r| {
                        let r = u64::from_le(r);
                        Ok((layout.key(r), layout.value(r)))
                    })
                    .chain(intact),
            ),
            LayoutKind::Dense => Box::new(
                self.dense_entries()
                    .iter()
                    .enumerate()
                    .map(move |(k, &byte)| Ok((k as u64, layout.dense_value(k as u64, byte))))
                    .chain(intact),
            ),
        }
    }
}
