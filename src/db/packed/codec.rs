//! The codec of a block's content: sorted records as LEB128 key steps and
//! byte planes of their value fields, dense entries one byte per canonical
//! key; and raw DEFLATE around it.

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use super::mask;
use crate::core::{Game, LayoutKind, RecordLayout, Value};

/// The most bytes one LEB128 key step takes.
const MAX_STEP_BYTES: usize = 10;

/// How the entries of a block become `u64`s and back.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Codec {
    pub(super) kind: LayoutKind,
    layout: RecordLayout,
}

/// Appends `v` as unsigned LEB128.
fn put_leb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 number at `*at`, which moves past it.
fn get_leb128(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for i in 0..MAX_STEP_BYTES {
        let Some(&b) = bytes.get(*at) else {
            return Err("the key steps run past the content".into());
        };
        *at += 1;
        let low = u64::from(b & 0x7F);
        if i == MAX_STEP_BYTES - 1 && (b & 0x80 != 0 || low > 1) {
            return Err("a key step does not fit 64 bits".into());
        }
        v |= low << (7 * i);
        if b & 0x80 == 0 {
            if i > 0 && b == 0 {
                return Err("a key step is not in its shortest form".into());
            }
            return Ok(v);
        }
    }
    Err("a key step does not fit 64 bits".into())
}

impl Codec {
    /// The codec of a file's records.
    pub(crate) fn new(kind: LayoutKind, layout: RecordLayout) -> Codec {
        Codec { kind, layout }
    }

    /// Bytes of the net-field planes and the remoteness-field planes.
    fn planes(&self) -> (usize, usize) {
        (
            self.layout.value_bits.div_ceil(8) as usize,
            self.layout.remoteness_bits.div_ceil(8) as usize,
        )
    }

    /// The most bytes the content of a block of `n` entries takes.
    pub(crate) fn max_content(&self, n: usize) -> usize {
        match self.kind {
            LayoutKind::Dense => n,
            LayoutKind::Sorted => {
                let (v, r) = self.planes();
                n.saturating_sub(1) * MAX_STEP_BYTES + n * (v + r)
            }
        }
    }

    /// The content of a sorted block: key steps, net planes, remoteness
    /// planes. `records` is not empty and strictly ascending.
    pub(crate) fn sorted_content(&self, records: &[u64], out: &mut Vec<u8>) {
        let l = &self.layout;
        out.clear();
        for w in records.windows(2) {
            put_leb128(out, l.key(w[1]) - l.key(w[0]));
        }
        let (vp, rp) = self.planes();
        for (shift, bits, planes) in [
            (l.value_shift, l.value_bits, vp),
            (l.remoteness_shift, l.remoteness_bits, rp),
        ] {
            for p in 0..planes {
                out.extend(
                    records
                        .iter()
                        .map(|&r| (((r >> shift) & mask(bits)) >> (8 * p)) as u8),
                );
            }
        }
    }

    /// Decodes the content of a sorted block of `n` entries whose first
    /// key is `first` and whose keys are all below `end`.
    pub(super) fn decode_sorted(
        &self,
        content: &[u8],
        n: usize,
        first: u64,
        end: u64,
    ) -> Result<Vec<u64>, String> {
        let l = &self.layout;
        let mut records = Vec::with_capacity(n);
        records.push(first << l.key_shift);
        let mut at = 0;
        let mut key = first;
        for _ in 1..n {
            // Most steps take one or two bytes.
            let step = match content.get(at..at + 2) {
                Some(&[b0, _]) if b0 < 0x80 => {
                    at += 1;
                    u64::from(b0)
                }
                Some(&[b0, b1]) if b1 < 0x80 && b1 != 0 => {
                    at += 2;
                    u64::from(b0 & 0x7F) | u64::from(b1) << 7
                }
                _ => get_leb128(content, &mut at)?,
            };
            key = match key.checked_add(step) {
                Some(k) if step != 0 && k < end => k,
                _ if step == 0 => return Err("the keys are not strictly ascending".into()),
                _ => return Err("a key runs past the next block's first key".into()),
            };
            records.push(key << l.key_shift);
        }
        let (vp, rp) = self.planes();
        if content.len() - at != n * (vp + rp) {
            return Err(format!(
                "the content is {} bytes, not the {} its entries take",
                content.len(),
                at + n * (vp + rp)
            ));
        }
        for (shift, bits, planes) in [
            (l.value_shift, l.value_bits, vp),
            (l.remoteness_shift, l.remoteness_bits, rp),
        ] {
            for p in 0..planes {
                let plane = &content[at..at + n];
                at += n;
                // The top plane holds the field's last bits: nothing above.
                let room = bits - 8 * p as u32;
                let bits = plane.iter().fold(0, |a, &b| a | b);
                if room < 8 && u32::from(bits) >> room != 0 {
                    return Err("a value field is wider than its bits".into());
                }
                let shift = shift + 8 * p as u32;
                for (r, &b) in records.iter_mut().zip(plane) {
                    *r |= u64::from(b) << shift;
                }
            }
        }
        Ok(records)
    }

    /// Decodes the content of a dense block of `n` entries, the canonical
    /// keys from `first` up to (not including) `end`.
    pub(super) fn decode_dense(
        &self,
        content: &[u8],
        n: usize,
        first: u64,
        end: u64,
        game: &dyn Game,
    ) -> Result<Vec<u64>, String> {
        if content.len() != n {
            return Err(format!(
                "the content is {} bytes for {n} entries",
                content.len()
            ));
        }
        let mut records = Vec::with_capacity(n);
        // A stretch at a time: a damaged index may stretch a block's keys
        // far beyond its entries.
        let mut at = first;
        while at < end && records.len() <= n {
            let to = end.min(at.saturating_add(1 << 16));
            game.canonical_keys_in(at, to, &mut records);
            at = to;
        }
        if records.len() != n {
            return Err(format!(
                "{} canonical keys from {first:#x} to {end:#x}, not its {n} entries",
                records.len()
            ));
        }
        for (r, &e) in records.iter_mut().zip(content) {
            *r = *r << 8 | u64::from(e);
        }
        Ok(records)
    }

    /// The value of a decoded entry.
    #[inline]
    pub(crate) fn value(&self, record: u64) -> Value {
        match self.kind {
            LayoutKind::Sorted => self.layout.value(record),
            LayoutKind::Dense => self.layout.dense_value(record >> 8, record as u8),
        }
    }

    /// The bits below the key in a decoded entry.
    #[inline]
    pub(crate) fn key_shift(&self) -> u32 {
        match self.kind {
            LayoutKind::Sorted => self.layout.key_shift,
            LayoutKind::Dense => 8,
        }
    }

    /// The key of a decoded entry.
    #[inline]
    pub(crate) fn key_of(&self, record: u64) -> u64 {
        match self.kind {
            LayoutKind::Sorted => self.layout.key(record),
            LayoutKind::Dense => record >> 8,
        }
    }
}

/// Inflates a raw DEFLATE payload that must end exactly at its end and
/// inflate to at most `max` bytes.
pub(crate) fn inflate(payload: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    inflate_into(payload, max, &mut out)?;
    Ok(out)
}

/// [`inflate`] into `out`, whose memory is reused from call to call.
pub(crate) fn inflate_into(payload: &[u8], max: usize, out: &mut Vec<u8>) -> Result<(), String> {
    // One byte more than allowed tells a content too long from one that
    // fits exactly.
    out.resize(max + 1, 0);
    let mut state = DecompressorOxide::new();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, read, written) = decompress(&mut state, payload, out, 0, flags);
    match status {
        TINFLStatus::Done if read == payload.len() && written <= max => {
            out.truncate(written);
            Ok(())
        }
        TINFLStatus::Done if read != payload.len() => {
            Err("the compressed stream ends before the block does".into())
        }
        TINFLStatus::Done | TINFLStatus::HasMoreOutput => {
            Err("the block inflates to more than its entries take".into())
        }
        other => Err(format!("the block does not inflate ({other:?})")),
    }
}
