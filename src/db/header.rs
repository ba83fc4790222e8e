//! The 4096-byte file header (see `format-spec.md`, section "Header").

use super::DbError;
use crate::core::layout::{LayoutKind, RecordLayout};

/// The eight magic bytes a database starts with.
pub(crate) const MAGIC: [u8; 8] = *b"BSOLVEDB";
/// The format version of sorted and dense files.
pub(crate) const FORMAT_VERSION: u32 = 1;
/// The format version of packed files (layout kind 3).
pub(crate) const PACKED_FORMAT_VERSION: u32 = 2;
/// The `layout_kind` of a packed file.
pub(crate) const PACKED_LAYOUT_KIND: u32 = 3;
/// Codec 1: raw DEFLATE (RFC 1951), the only one.
pub(crate) const CODEC_DEFLATE: u32 = 1;
/// The fewest entries a block of a packed file may hold.
pub(crate) const MIN_BLOCK_ENTRIES: u32 = 64;
/// The most entries a block of a packed file may hold.
pub(crate) const MAX_BLOCK_ENTRIES: u32 = 1 << 20;
/// The largest block a packed file may have, in bytes.
pub(crate) const MAX_BLOCK_SIZE: u32 = 1 << 26;
/// The smallest block: one byte of payload and the checksum.
pub(crate) const MIN_BLOCK_SIZE: u64 = 9;
/// Bytes per entry of a packed file's index.
pub(crate) const INDEX_ENTRY_SIZE: u64 = 16;
/// The byte-order mark, stored little-endian (bytes `0D 0C 0B 0A`).
pub(crate) const BYTE_ORDER_MARK: u32 = 0x0A0B_0C0D;
/// The size of the header; records start at this offset, page aligned.
pub const HEADER_SIZE: usize = 4096;
/// Flag bit 0: every reachable state of the game is in the file.
pub const FLAG_COMPLETE: u32 = 1;

/// Byte offsets of the header fields.
mod off {
    pub(super) const MAGIC: usize = 0;
    pub(super) const VERSION: usize = 8;
    pub(super) const BYTE_ORDER: usize = 12;
    pub(super) const HEADER_SIZE: usize = 16;
    pub(super) const LAYOUT_KIND: usize = 20;
    pub(super) const GAME_ID: usize = 24;
    pub(super) const FLAGS: usize = 28;
    pub(super) const GAME_NAME: usize = 32;
    pub(super) const VARIANT: usize = 64;
    pub(super) const FIELDS: usize = 128;
    pub(super) const RECORD_COUNT: usize = 136;
    pub(super) const RECORDS_OFFSET: usize = 144;
    pub(super) const RECORDS_CHECKSUM: usize = 152;
    pub(super) const START_KEY: usize = 168;
    pub(super) const GENERATOR: usize = 176;
    pub(super) const RESERVED: usize = 208;
    pub(super) const PACKED_KIND: usize = 208;
    pub(super) const CODEC: usize = 212;
    pub(super) const BLOCK_ENTRIES: usize = 216;
    pub(super) const MAX_BLOCK_SIZE: usize = 220;
    pub(super) const ENTRY_COUNT: usize = 224;
    pub(super) const BLOCK_COUNT: usize = 232;
    pub(super) const INDEX_OFFSET: usize = 240;
    pub(super) const INDEX_CHECKSUM: usize = 248;
    pub(super) const PACKED_RESERVED: usize = 256;
    pub(super) const HEADER_CHECKSUM: usize = 4088;
}
/// Width of the game-name field.
pub(crate) const GAME_NAME_LEN: usize = off::VARIANT - off::GAME_NAME;
/// Width of the variant field.
pub(crate) const VARIANT_LEN: usize = off::FIELDS - off::VARIANT;
/// Width of the generator field.
pub(crate) const GENERATOR_LEN: usize = off::RESERVED - off::GENERATOR;

// The field table must tile the header exactly.
const _: () = assert!(off::HEADER_CHECKSUM + 8 == HEADER_SIZE);
const _: () = assert!(off::RECORDS_CHECKSUM + 16 == off::START_KEY);
const _: () = assert!(HEADER_SIZE.is_multiple_of(8));

/// Entries per block unless told otherwise: small enough that one lookup
/// decodes a block in a few microseconds, large enough that DEFLATE finds
/// the repeats (see `docs/architecture.md` for the measured trade-off).
pub const DEFAULT_BLOCK_ENTRIES: u32 = 4096;

/// The DEFLATE level unless told otherwise (miniz_oxide's best but one:
/// level 10 is far slower for little gain).
pub(crate) const DEFAULT_LEVEL: u8 = 9;

/// What a packed file's header adds (`format-spec.md`, sections 2 and 3c):
/// how its blocks are cut and where its index is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedInfo {
    /// The codec of the blocks ([`CODEC_DEFLATE`]).
    pub codec: u32,
    /// Entries per block (every block but the last holds this many).
    pub block_entries: u32,
    /// The largest block, checksum included, in bytes.
    pub max_block_size: u32,
    /// Entries stored: every record of a sorted file, the canonical keys of
    /// a dense one.
    pub entry_count: u64,
    /// The number of blocks.
    pub block_count: u64,
    /// Where the index starts (and the blocks end).
    pub index_offset: u64,
    /// XXH3-64 of the index.
    pub index_checksum: u64,
}

impl PackedInfo {
    /// Checks the fields against one another and against the header they
    /// belong to.
    fn check(&self, kind: LayoutKind, record_count: u64) -> Result<(), DbError> {
        let bad = |field: &'static str, reason: String| DbError::HeaderField { field, reason };
        if self.codec != CODEC_DEFLATE {
            return Err(bad("codec", format!("{} is not a known codec", self.codec)));
        }
        let n = self.block_entries;
        if !n.is_power_of_two() || !(MIN_BLOCK_ENTRIES..=MAX_BLOCK_ENTRIES).contains(&n) {
            return Err(bad(
                "block_entries",
                format!(
                    "{n} is not a power of two from {MIN_BLOCK_ENTRIES} to {MAX_BLOCK_ENTRIES}"
                ),
            ));
        }
        if !(MIN_BLOCK_SIZE..=u64::from(MAX_BLOCK_SIZE)).contains(&u64::from(self.max_block_size)) {
            return Err(bad(
                "max_block_size",
                format!(
                    "{} is not from {MIN_BLOCK_SIZE} to {MAX_BLOCK_SIZE}",
                    self.max_block_size
                ),
            ));
        }
        if self.entry_count > record_count
            || (kind == LayoutKind::Sorted && self.entry_count != record_count)
        {
            return Err(bad(
                "entry_count",
                format!("{} entries for {record_count} records", self.entry_count),
            ));
        }
        if self.block_count != self.entry_count.div_ceil(u64::from(n)) {
            return Err(bad(
                "block_count",
                format!(
                    "{} blocks for {} entries of {n} a block",
                    self.block_count, self.entry_count
                ),
            ));
        }
        let least = self
            .block_count
            .checked_mul(MIN_BLOCK_SIZE)
            .and_then(|b| b.checked_add(HEADER_SIZE as u64));
        if least.is_none_or(|least| self.index_offset < least) {
            return Err(bad(
                "index_offset",
                format!(
                    "{} leaves no room for {} blocks",
                    self.index_offset, self.block_count
                ),
            ));
        }
        Ok(())
    }

    /// The size of the index in bytes (checked on decoding the header to
    /// fit, through the file size).
    pub(crate) fn index_size(&self) -> u64 {
        self.block_count.saturating_mul(INDEX_ENTRY_SIZE)
    }
}

/// The decoded header of a database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Numeric game id.
    pub game_id: u32,
    /// Flag bits ([`FLAG_COMPLETE`]).
    pub flags: u32,
    /// Registry name of the game.
    pub game_name: String,
    /// Canonical variant spec.
    pub variant: String,
    /// How the records are arranged: sorted `u64`s or dense bytes (for a
    /// packed file, the layout of the records it packs).
    pub kind: LayoutKind,
    /// Record bit layout.
    pub layout: RecordLayout,
    /// Number of records.
    pub record_count: u64,
    /// xxh3-128 of the record bytes.
    pub records_checksum: u128,
    /// Canonical key of the start position.
    pub start_key: u64,
    /// Name and version of the program that wrote the file.
    pub generator: String,
    /// For a packed file (format version 2), its blocks and index.
    pub packed: Option<PackedInfo>,
}

fn put_str(
    buf: &mut [u8],
    at: usize,
    len: usize,
    s: &str,
    field: &'static str,
) -> Result<(), DbError> {
    if s.len() > len || !s.is_ascii() || s.bytes().any(|b| b == 0) {
        return Err(DbError::HeaderField {
            field,
            reason: format!("{s:?} is not ASCII of at most {len} bytes"),
        });
    }
    buf[at..at + s.len()].copy_from_slice(s.as_bytes());
    Ok(())
}

fn get_str(buf: &[u8], at: usize, len: usize, field: &'static str) -> Result<String, DbError> {
    let raw = &buf[at..at + len];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(len);
    let (text, pad) = raw.split_at(end);
    if !text.iter().all(|b| b.is_ascii_graphic() || *b == b' ') || pad.iter().any(|&b| b != 0) {
        return Err(DbError::HeaderField {
            field,
            reason: "not NUL-padded printable ASCII".into(),
        });
    }
    Ok(String::from_utf8_lossy(text).into_owned())
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&buf[at..at + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(buf: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

/// The header checksum: xxh3-64 of every header byte before the checksum.
pub fn header_checksum(buf: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&buf[..off::HEADER_CHECKSUM])
}

impl Header {
    /// Encodes the header, checksum included.
    pub fn encode(&self) -> Result<Vec<u8>, DbError> {
        let mut b = vec![0u8; HEADER_SIZE];
        b[off::MAGIC..off::MAGIC + 8].copy_from_slice(&MAGIC);
        let (version, code) = match self.packed {
            Some(_) => (PACKED_FORMAT_VERSION, PACKED_LAYOUT_KIND),
            None => (FORMAT_VERSION, self.kind.code()),
        };
        b[off::VERSION..off::VERSION + 4].copy_from_slice(&version.to_le_bytes());
        b[off::BYTE_ORDER..off::BYTE_ORDER + 4].copy_from_slice(&BYTE_ORDER_MARK.to_le_bytes());
        b[off::HEADER_SIZE..off::HEADER_SIZE + 4]
            .copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        b[off::LAYOUT_KIND..off::LAYOUT_KIND + 4].copy_from_slice(&code.to_le_bytes());
        b[off::GAME_ID..off::GAME_ID + 4].copy_from_slice(&self.game_id.to_le_bytes());
        b[off::FLAGS..off::FLAGS + 4].copy_from_slice(&self.flags.to_le_bytes());
        put_str(
            &mut b,
            off::GAME_NAME,
            GAME_NAME_LEN,
            &self.game_name,
            "game_name",
        )?;
        put_str(&mut b, off::VARIANT, VARIANT_LEN, &self.variant, "variant")?;
        let l = &self.layout;
        if !l.is_well_formed_for(self.kind) {
            return Err(DbError::HeaderField {
                field: "record_layout",
                reason: format!("{l:?} is not a valid layout"),
            });
        }
        let fields = [
            l.key_shift,
            l.key_bits,
            l.value_shift,
            l.value_bits,
            l.remoteness_shift,
            l.remoteness_bits,
        ];
        for (i, f) in fields.iter().enumerate() {
            b[off::FIELDS + i] = *f as u8;
        }
        b[off::RECORD_COUNT..off::RECORD_COUNT + 8]
            .copy_from_slice(&self.record_count.to_le_bytes());
        b[off::RECORDS_OFFSET..off::RECORDS_OFFSET + 8]
            .copy_from_slice(&(HEADER_SIZE as u64).to_le_bytes());
        b[off::RECORDS_CHECKSUM..off::RECORDS_CHECKSUM + 16]
            .copy_from_slice(&self.records_checksum.to_le_bytes());
        b[off::START_KEY..off::START_KEY + 8].copy_from_slice(&self.start_key.to_le_bytes());
        put_str(
            &mut b,
            off::GENERATOR,
            GENERATOR_LEN,
            &self.generator,
            "generator",
        )?;
        if let Some(p) = &self.packed {
            p.check(self.kind, self.record_count)?;
            let mut put = |at: usize, bytes: &[u8]| b[at..at + bytes.len()].copy_from_slice(bytes);
            put(off::PACKED_KIND, &self.kind.code().to_le_bytes());
            put(off::CODEC, &p.codec.to_le_bytes());
            put(off::BLOCK_ENTRIES, &p.block_entries.to_le_bytes());
            put(off::MAX_BLOCK_SIZE, &p.max_block_size.to_le_bytes());
            put(off::ENTRY_COUNT, &p.entry_count.to_le_bytes());
            put(off::BLOCK_COUNT, &p.block_count.to_le_bytes());
            put(off::INDEX_OFFSET, &p.index_offset.to_le_bytes());
            put(off::INDEX_CHECKSUM, &p.index_checksum.to_le_bytes());
        }
        let sum = header_checksum(&b);
        b[off::HEADER_CHECKSUM..].copy_from_slice(&sum.to_le_bytes());
        Ok(b)
    }

    /// Decodes and validates a header from the first bytes of a file.
    ///
    /// Checks, in order: length, magic, version, byte-order mark, header
    /// checksum, then every field. The file size is checked by the reader.
    pub fn decode(buf: &[u8]) -> Result<Header, DbError> {
        if buf.len() < HEADER_SIZE {
            return Err(DbError::TooSmall {
                len: buf.len() as u64,
            });
        }
        let buf = &buf[..HEADER_SIZE];
        if buf[off::MAGIC..off::MAGIC + 8] != MAGIC {
            return Err(DbError::BadMagic);
        }
        let version = u32_at(buf, off::VERSION);
        if version != FORMAT_VERSION && version != PACKED_FORMAT_VERSION {
            return Err(DbError::UnsupportedVersion { found: version });
        }
        let bom = u32_at(buf, off::BYTE_ORDER);
        if bom != BYTE_ORDER_MARK {
            return Err(DbError::ByteOrder { found: bom });
        }
        let stored = u64_at(buf, off::HEADER_CHECKSUM);
        let computed = header_checksum(buf);
        if stored != computed {
            return Err(DbError::HeaderChecksum { stored, computed });
        }
        let bad = |field: &'static str, reason: String| DbError::HeaderField { field, reason };
        let size = u32_at(buf, off::HEADER_SIZE);
        if size as usize != HEADER_SIZE {
            return Err(bad(
                "header_size",
                format!("{size}, expected {HEADER_SIZE}"),
            ));
        }
        let code = u32_at(buf, off::LAYOUT_KIND);
        let packed = version == PACKED_FORMAT_VERSION;
        if packed != (code == PACKED_LAYOUT_KIND) {
            return Err(bad(
                "layout_kind",
                format!("{code} is not a layout of format version {version}"),
            ));
        }
        let code = if packed {
            u32_at(buf, off::PACKED_KIND)
        } else {
            code
        };
        let kind = LayoutKind::from_code(code).ok_or_else(|| {
            let field = if packed { "packed_kind" } else { "layout_kind" };
            bad(field, format!("{code} is not a known layout"))
        })?;
        let f = |i: usize| u32::from(buf[off::FIELDS + i]);
        let layout = RecordLayout {
            key_shift: f(0),
            key_bits: f(1),
            value_shift: f(2),
            value_bits: f(3),
            remoteness_shift: f(4),
            remoteness_bits: f(5),
        };
        if !layout.is_well_formed_for(kind)
            || buf[off::FIELDS + 6..off::RECORD_COUNT]
                .iter()
                .any(|&b| b != 0)
        {
            return Err(bad(
                "record_layout",
                format!("{layout:?} is not a valid layout"),
            ));
        }
        let offset = u64_at(buf, off::RECORDS_OFFSET);
        if offset != HEADER_SIZE as u64 {
            return Err(bad(
                "records_offset",
                format!("{offset}, expected {HEADER_SIZE}"),
            ));
        }
        let reserved = if packed {
            off::PACKED_RESERVED
        } else {
            off::RESERVED
        };
        if buf[reserved..off::HEADER_CHECKSUM].iter().any(|&b| b != 0) {
            return Err(bad("reserved", "reserved bytes are not zero".into()));
        }
        let flags = u32_at(buf, off::FLAGS);
        if flags & !FLAG_COMPLETE != 0 {
            return Err(bad("flags", format!("unknown flag bits {flags:#x}")));
        }
        if kind == LayoutKind::Dense && flags & FLAG_COMPLETE == 0 {
            return Err(bad(
                "flags",
                "a dense file has an entry for every key, so it must be marked complete".into(),
            ));
        }
        let mut checksum = [0u8; 16];
        checksum.copy_from_slice(&buf[off::RECORDS_CHECKSUM..off::RECORDS_CHECKSUM + 16]);
        let record_count = u64_at(buf, off::RECORD_COUNT);
        let packed = if packed {
            let info = PackedInfo {
                codec: u32_at(buf, off::CODEC),
                block_entries: u32_at(buf, off::BLOCK_ENTRIES),
                max_block_size: u32_at(buf, off::MAX_BLOCK_SIZE),
                entry_count: u64_at(buf, off::ENTRY_COUNT),
                block_count: u64_at(buf, off::BLOCK_COUNT),
                index_offset: u64_at(buf, off::INDEX_OFFSET),
                index_checksum: u64_at(buf, off::INDEX_CHECKSUM),
            };
            info.check(kind, record_count)?;
            Some(info)
        } else {
            None
        };
        Ok(Header {
            game_id: u32_at(buf, off::GAME_ID),
            flags,
            game_name: get_str(buf, off::GAME_NAME, GAME_NAME_LEN, "game_name")?,
            variant: get_str(buf, off::VARIANT, VARIANT_LEN, "variant")?,
            kind,
            layout,
            record_count,
            records_checksum: u128::from_le_bytes(checksum),
            start_key: u64_at(buf, off::START_KEY),
            generator: get_str(buf, off::GENERATOR, GENERATOR_LEN, "generator")?,
            packed,
        })
    }

    /// The file size this header implies, or an error if it overflows (or,
    /// for a dense file, if the record count is not `2^key_bits`).
    pub fn expected_file_size(&self) -> Result<u64, DbError> {
        if let Some(p) = &self.packed {
            // The sizes of the records packed must fit as well: unpacking
            // writes them.
            self.unpacked().expected_file_size()?;
            return p
                .block_count
                .checked_mul(INDEX_ENTRY_SIZE)
                .and_then(|n| n.checked_add(p.index_offset))
                .ok_or_else(|| DbError::HeaderField {
                    field: "block_count",
                    reason: format!("{} blocks cannot fit in a file", p.block_count),
                });
        }
        if self.kind == LayoutKind::Dense {
            // `is_well_formed_for` bounds key_bits, so the shift cannot overflow.
            let want = 1u64 << self.layout.key_bits;
            if self.record_count != want {
                return Err(DbError::HeaderField {
                    field: "record_count",
                    reason: format!(
                        "{}, but a dense file of {}-bit keys has {want} entries",
                        self.record_count, self.layout.key_bits
                    ),
                });
            }
        }
        self.record_count
            .checked_mul(self.kind.record_size())
            .and_then(|n| n.checked_add(HEADER_SIZE as u64))
            .ok_or_else(|| DbError::HeaderField {
                field: "record_count",
                reason: format!("{} records cannot fit in a file", self.record_count),
            })
    }

    /// The header of the sorted or dense file a packed file holds (this
    /// header itself for one that is not packed): what unpacking writes.
    pub(crate) fn unpacked(&self) -> Header {
        Header {
            packed: None,
            ..self.clone()
        }
    }

    /// True when the file holds every reachable state.
    pub fn is_complete(&self) -> bool {
        self.flags & FLAG_COMPLETE != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Header {
        Header {
            game_id: 1,
            flags: FLAG_COMPLETE,
            game_name: "british-square".into(),
            variant: "5x5".into(),
            kind: LayoutKind::Sorted,
            layout: RecordLayout {
                key_shift: 12,
                key_bits: 51,
                value_shift: 6,
                value_bits: 6,
                remoteness_shift: 0,
                remoteness_bits: 6,
            },
            record_count: 42,
            records_checksum: 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            start_key: 0,
            generator: "boardsolve 0.2.0".into(),
            packed: None,
        }
    }

    #[test]
    fn header_round_trips() {
        let h = sample();
        let bytes = h.encode().unwrap();
        assert_eq!(bytes.len(), HEADER_SIZE);
        assert_eq!(Header::decode(&bytes).unwrap(), h);
        assert_eq!(h.expected_file_size().unwrap(), 4096 + 42 * 8);
    }

    #[test]
    fn dense_headers_round_trip_and_demand_a_full_table() {
        let mut h = sample();
        h.kind = LayoutKind::Dense;
        h.layout = RecordLayout::dense(24);
        h.record_count = 1 << 24;
        let bytes = h.encode().unwrap();
        assert_eq!(Header::decode(&bytes).unwrap(), h);
        assert_eq!(h.expected_file_size().unwrap(), 4096 + (1 << 24));
        h.record_count -= 1;
        assert!(h.expected_file_size().is_err());
        // A sorted layout's fields are not valid for a dense file.
        h.layout = sample().layout;
        assert!(h.encode().is_err());
    }

    #[test]
    fn any_flipped_bit_is_caught() {
        let bytes = sample().encode().unwrap();
        for byte in (0..HEADER_SIZE).step_by(7) {
            let mut b = bytes.clone();
            b[byte] ^= 0x10;
            assert!(
                Header::decode(&b).is_err(),
                "flip in byte {byte} went unnoticed"
            );
        }
    }
}
