//! Writing and reading back a new database file without the page cache.
//!
//! The writer produces a file it does not read again except once, to check
//! it. Through the page cache, every byte would be copied into freshly
//! allocated kernel pages and read back from them: for British Square's
//! 69 MB that was the largest single cost after the solve itself (on
//! virtual machines that hand freed memory back to the host, fresh pages
//! are slow). With `O_DIRECT` the bytes go from a small aligned buffer
//! straight to the disk and back, and the read-back checks what the disk
//! holds, not a cached copy.
//!
//! Direct I/O needs aligned buffers, offsets and lengths; this module uses
//! [`ALIGN`] for all three, enough for every common device. Where the file
//! system refuses direct I/O (older tmpfs, some network and FUSE file
//! systems), or elsewhere than on Linux, both functions fall back to
//! ordinary I/O.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The alignment of buffers, offsets and lengths in direct I/O.
const ALIGN: usize = 4096;

/// The size of the transfer buffer (a multiple of [`ALIGN`]).
const CHUNK: usize = 4 << 20;

const _: () = assert!(CHUNK.is_multiple_of(ALIGN));

/// A zeroed byte buffer of `len` bytes whose start is [`ALIGN`]-aligned.
struct Aligned {
    words: Vec<u64>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let words = vec![0u64; (len + ALIGN) / 8];
        let start = (words.as_ptr() as usize).next_multiple_of(ALIGN) - words.as_ptr() as usize;
        Aligned { words, start, len }
    }

    fn bytes(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.words)[self.start..self.start + self.len]
    }
}

/// Writes the concatenation of `parts` to the empty file `file` from its
/// start, and sets its length to their total. Direct I/O when the file
/// system takes it; `file` is left in its ordinary mode either way.
pub(super) fn write_parts(file: &File, parts: &[&[u8]]) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if linux::write_direct(file, parts)? {
        return Ok(());
    }
    write_buffered(file, parts)
}

fn write_buffered(mut file: &File, parts: &[&[u8]]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    for part in parts {
        file.write_all(part)?;
    }
    file.flush()
}

/// XXH3-128 of the bytes of the file at `path` from `offset` to its end,
/// read with direct I/O when the file system takes it.
pub(super) fn checksum_from(path: &Path, offset: u64) -> std::io::Result<u128> {
    #[cfg(target_os = "linux")]
    if let Some(sum) = linux::checksum_direct(path, offset)? {
        return Ok(sum);
    }
    checksum_buffered(path, offset)
}

/// [`checksum_from`] through the page cache.
fn checksum_buffered(path: &Path, offset: u64) -> std::io::Result<u128> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
    }
    Ok(hasher.digest128())
}

#[cfg(target_os = "linux")]
mod linux {
    use std::fs::{File, OpenOptions};
    use std::io::{ErrorKind, Read};
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    use std::path::Path;

    use super::{Aligned, ALIGN, CHUNK};

    /// Whether `e` says that direct I/O is not possible here (rather than
    /// that the disk failed).
    fn unsupported(e: &std::io::Error) -> bool {
        matches!(e.raw_os_error(), Some(libc::EINVAL | libc::EOPNOTSUPP))
    }

    /// Sets or clears `O_DIRECT` on `file`; false if the system refuses.
    fn set_direct(file: &File, on: bool) -> bool {
        let fd = file.as_raw_fd();
        // SAFETY: F_GETFL/F_SETFL on a descriptor we own; no memory is passed.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 {
                return false;
            }
            let flags = if on {
                flags | libc::O_DIRECT
            } else {
                flags & !libc::O_DIRECT
            };
            libc::fcntl(fd, libc::F_SETFL, flags) == 0
        }
    }

    /// [`super::write_parts`] with direct I/O: `Ok(false)`, with nothing
    /// written, if the file system does not take it.
    pub(super) fn write_direct(file: &File, parts: &[&[u8]]) -> std::io::Result<bool> {
        if !set_direct(file, true) {
            return Ok(false);
        }
        let result = copy_out(file, parts);
        set_direct(file, false);
        match result {
            Ok(()) => Ok(true),
            Err(e) if unsupported(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn copy_out(file: &File, parts: &[&[u8]]) -> std::io::Result<()> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let mut buf = Aligned::new(CHUNK.min(total.next_multiple_of(ALIGN)).max(ALIGN));
        let cap = buf.len;
        let mut offset = 0u64;
        let mut fill = 0;
        for mut part in parts.iter().copied() {
            while !part.is_empty() {
                let n = part.len().min(cap - fill);
                buf.bytes()[fill..fill + n].copy_from_slice(&part[..n]);
                fill += n;
                part = &part[n..];
                if fill == cap {
                    file.write_all_at(buf.bytes(), offset)?;
                    offset += cap as u64;
                    fill = 0;
                }
            }
        }
        if fill > 0 {
            // The last block padded with zeros, cut off below.
            let padded = fill.next_multiple_of(ALIGN);
            buf.bytes()[fill..padded].fill(0);
            file.write_all_at(&buf.bytes()[..padded], offset)?;
        }
        file.set_len(total as u64)
    }

    /// [`super::checksum_from`] with direct I/O: `Ok(None)` if the file
    /// system does not take it.
    pub(super) fn checksum_direct(path: &Path, offset: u64) -> std::io::Result<Option<u128>> {
        let mut f = match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
        {
            Ok(f) => f,
            Err(e) if unsupported(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut buf = Aligned::new(CHUNK);
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        // Reads start at 0 (aligned); the bytes before `offset` are skipped.
        let mut at = 0u64;
        loop {
            let n = match f.read(buf.bytes()) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if at == 0 && unsupported(&e) => return Ok(None),
                Err(e) => return Err(e),
            };
            let skip = offset.saturating_sub(at).min(n as u64) as usize;
            hasher.update(&buf.bytes()[skip..n]);
            at += n as u64;
        }
        Ok(Some(hasher.digest128()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lengths around the alignment and the buffer size, each written and
    /// checksummed both ways.
    #[test]
    fn direct_and_buffered_files_hold_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..CHUNK + 3 * ALIGN + 77)
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        for (head, body) in [
            (0, 1),
            (16, ALIGN - 16),
            (ALIGN, 8),
            (ALIGN, CHUNK),
            (100, CHUNK + 2 * ALIGN + 3),
        ] {
            let parts = [&data[..head], &data[head..head + body]];
            let path = dir.path().join("f");
            let file = File::create(&path).unwrap();
            // Shorter than what was there: the length is set, not kept.
            file.set_len((head + body + 5000) as u64).unwrap();
            write_parts(&file, &parts).unwrap();
            drop(file);
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes, &data[..head + body]);
            for offset in [0, head as u64, (head + body) as u64] {
                let want = xxhash_rust::xxh3::xxh3_128(&bytes[offset as usize..]);
                assert_eq!(checksum_from(&path, offset).unwrap(), want);
                assert_eq!(checksum_buffered(&path, offset).unwrap(), want);
            }
            write_buffered(&File::create(&path).unwrap(), &parts).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), &data[..head + body]);
        }
    }
}
