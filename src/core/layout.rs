//! How a state and its value share one `u64` record.

use super::game::GameDescriptor;
use super::value::Value;

/// The bit layout of a record: `key << key_shift | net << value_shift |
/// remoteness << remoteness_shift`, the net score in two's complement.
///
/// The key occupies the high bits, so sorting raw records sorts them by key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordLayout {
    /// Lowest bit of the key field.
    pub key_shift: u32,
    /// Width of the key field.
    pub key_bits: u32,
    /// Lowest bit of the signed net-score field.
    pub value_shift: u32,
    /// Width of the net-score field.
    pub value_bits: u32,
    /// Lowest bit of the remoteness field.
    pub remoteness_shift: u32,
    /// Width of the remoteness field.
    pub remoteness_bits: u32,
}

/// How the records of a file are arranged (header field `layout_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutKind {
    /// Kind 1: one `u64` record per state, key in the high bits, sorted by key
    /// and binary-searched.
    Sorted,
    /// Kind 2: one signed byte per key, for every key `0 .. 2^key_bits`, at
    /// the key's position; no keys stored. For games whose key is itself a
    /// dense index, where every move sets exactly one more key bit and the
    /// game ends exactly when every key bit is set, so the remoteness of key
    /// `k` is `key_bits - popcount(k)` and is not stored either.
    Dense,
}

impl LayoutKind {
    /// The number written in the header.
    pub(crate) fn code(self) -> u32 {
        match self {
            LayoutKind::Sorted => 1,
            LayoutKind::Dense => 2,
        }
    }

    /// The kind a header number names, if any.
    pub(crate) fn from_code(code: u32) -> Option<LayoutKind> {
        match code {
            1 => Some(LayoutKind::Sorted),
            2 => Some(LayoutKind::Dense),
            _ => None,
        }
    }

    /// Bytes per record.
    pub(crate) fn record_size(self) -> u64 {
        match self {
            LayoutKind::Sorted => 8,
            LayoutKind::Dense => 1,
        }
    }

    /// The kind a game's databases use.
    pub fn for_game(desc: &GameDescriptor) -> LayoutKind {
        if desc.dense {
            LayoutKind::Dense
        } else {
            LayoutKind::Sorted
        }
    }
}

/// The widest key a dense file may have: 2^36 one-byte entries (64 GiB)
/// is far beyond any machine this targets, and keeps sizes well inside `u64`.
pub(crate) const MAX_DENSE_KEY_BITS: u32 = 36;

// Whether a game's records fit a database is a question of the record
// layout, so the descriptor's answer is here.
impl GameDescriptor {
    /// Why a database of this game cannot be written, if it cannot: a
    /// record (key, value and remoteness) must fit 64 bits, a dense table
    /// 2^36 entries. Such a game can still be searched.
    pub fn storage_error(&self) -> Option<String> {
        let bits = self.key_bits + self.value_bits + self.remoteness_bits;
        if self.dense && self.key_bits > MAX_DENSE_KEY_BITS {
            Some(format!(
                "{} {} has 2^{} positions, more than a database's 2^{}",
                self.name, self.variant, self.key_bits, MAX_DENSE_KEY_BITS
            ))
        } else if !self.dense && bits > 64 {
            Some(format!(
                "{} {} needs {bits} bits per database record (key {}, value {}, remoteness \
                 {}), more than 64: its positions are answered by search, but no database \
                 of it can be written",
                self.name, self.variant, self.key_bits, self.value_bits, self.remoteness_bits
            ))
        } else {
            None
        }
    }
}

/// A value that does not fit the record layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("value {value:?} does not fit the record layout ({layout:?})")]
pub struct LayoutOverflow {
    /// The value that did not fit.
    pub value: Value,
    /// The layout.
    pub layout: RecordLayout,
}

impl RecordLayout {
    /// The layout used for a game: remoteness in the lowest bits, the net score
    /// above it, the key above that.
    pub fn for_game(desc: &GameDescriptor) -> RecordLayout {
        if desc.dense {
            return RecordLayout::dense(desc.key_bits);
        }
        RecordLayout {
            key_shift: desc.value_bits + desc.remoteness_bits,
            key_bits: desc.key_bits,
            value_shift: desc.remoteness_bits,
            value_bits: desc.value_bits,
            remoteness_shift: 0,
            remoteness_bits: desc.remoteness_bits,
        }
    }

    /// The fields of a dense file: the whole entry is the net score, a signed
    /// byte; neither key nor remoteness is stored.
    pub fn dense(key_bits: u32) -> RecordLayout {
        RecordLayout {
            key_shift: 0,
            key_bits,
            value_shift: 0,
            value_bits: 8,
            remoteness_shift: 0,
            remoteness_bits: 0,
        }
    }

    /// True when the fields are valid for records of `kind`.
    pub fn is_well_formed_for(&self, kind: LayoutKind) -> bool {
        match kind {
            LayoutKind::Sorted => self.is_well_formed(),
            LayoutKind::Dense => {
                (1..=MAX_DENSE_KEY_BITS).contains(&self.key_bits)
                    && *self == RecordLayout::dense(self.key_bits)
            }
        }
    }

    /// The value of the dense entry `byte` for key `key`.
    #[inline]
    pub fn dense_value(&self, key: u64, byte: u8) -> Value {
        Value {
            net: i32::from(byte as i8),
            remoteness: self.key_bits - key.count_ones(),
        }
    }

    /// True when the fields are non-empty (value and remoteness at most 32
    /// bits wide), inside 64 bits, and ordered
    /// remoteness < net < key without overlap.
    pub fn is_well_formed(&self) -> bool {
        let ok_width = |bits: u32| (1..=63).contains(&bits);
        // Values are `i32` and remoteness `u32` in memory.
        ok_width(self.key_bits)
            && (1..=32).contains(&self.value_bits)
            && (1..=32).contains(&self.remoteness_bits)
            && self.remoteness_shift == 0
            && self.value_shift == self.remoteness_bits
            && self.key_shift == self.value_shift + self.value_bits
            && u64::from(self.key_shift) + u64::from(self.key_bits) <= 64
    }

    #[inline]
    fn mask(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    /// The largest net score the layout can hold.
    pub fn max_net(&self) -> i32 {
        ((1i64 << (self.value_bits - 1)) - 1) as i32
    }

    /// The smallest net score the layout can hold.
    pub fn min_net(&self) -> i32 {
        (-(1i64 << (self.value_bits - 1))) as i32
    }

    /// The largest remoteness the layout can hold.
    pub fn max_remoteness(&self) -> u32 {
        Self::mask(self.remoteness_bits) as u32
    }

    /// Packs a key and its value into a record.
    #[inline]
    pub fn pack(&self, key: u64, value: Value) -> Result<u64, LayoutOverflow> {
        if value.net < self.min_net()
            || value.net > self.max_net()
            || value.remoteness > self.max_remoteness()
        {
            return Err(LayoutOverflow {
                value,
                layout: *self,
            });
        }
        debug_assert_eq!(key & !Self::mask(self.key_bits), 0);
        let net = (value.net as i64 as u64) & Self::mask(self.value_bits);
        Ok(key << self.key_shift
            | net << self.value_shift
            | u64::from(value.remoteness) << self.remoteness_shift)
    }

    /// The key of a record: everything above the value fields, as
    /// `format-spec.md` (section 3) defines it. Not masked to `key_bits`: a
    /// record with bits set above the key field has an out-of-range key, so
    /// lookups never match it and verification rejects it.
    #[inline]
    pub fn key(&self, record: u64) -> u64 {
        record >> self.key_shift
    }

    /// The value of a record.
    #[inline]
    pub fn value(&self, record: u64) -> Value {
        let raw = (record >> self.value_shift) & Self::mask(self.value_bits);
        // Sign-extend the two's complement field.
        let unused = 64 - self.value_bits;
        let net = ((raw << unused) as i64 >> unused) as i32;
        let remoteness =
            ((record >> self.remoteness_shift) & Self::mask(self.remoteness_bits)) as u32;
        Value { net, remoteness }
    }

    /// The smallest record with this key (for searching).
    #[inline]
    pub fn first_record(&self, key: u64) -> u64 {
        key << self.key_shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack_round_trips_at_the_edges() {
        let l = RecordLayout {
            key_shift: 12,
            key_bits: 51,
            value_shift: 6,
            value_bits: 6,
            remoteness_shift: 0,
            remoteness_bits: 6,
        };
        assert!(l.is_well_formed());
        for net in [-32i32, -25, -1, 0, 1, 25, 31] {
            for remoteness in [0, 1, 50, 63] {
                let key = (1u64 << 51) - 1 - net.unsigned_abs() as u64;
                let v = Value { net, remoteness };
                let r = l.pack(key, v).unwrap();
                assert_eq!(l.key(r), key);
                assert_eq!(l.value(r), v);
            }
        }
        assert!(l
            .pack(
                1,
                Value {
                    net: 32,
                    remoteness: 0
                }
            )
            .is_err());
        assert!(l
            .pack(
                1,
                Value {
                    net: -33,
                    remoteness: 0
                }
            )
            .is_err());
        assert!(l
            .pack(
                1,
                Value {
                    net: 0,
                    remoteness: 64
                }
            )
            .is_err());
    }
}
