//! Answer lines turned into Python objects without `json.loads`.
//!
//! The lines are the JSON of `query --json`, so the objects are those
//! `json.loads` would give (dicts in field order, lists, str, int, bool,
//! None). Building them here is cheaper: the short strings a batch repeats
//! millions of times (field names, moves, "win", "tie", "lose") are made
//! once per batch and shared, and nothing is decoded twice.

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

/// Objects made through the C API with its failure as the exception
/// (`MemoryError`): PyO3's constructors of `str`, `dict`, `int` and
/// `float` panic when CPython cannot make the object, and a panic must
/// never reach the user.
pub mod fallible {
    use super::*;

    /// A new reference from the C API, or its error.
    ///
    /// # Safety
    ///
    /// `ptr` is a new reference, or NULL with the error set.
    unsafe fn owned(py: Python<'_>, ptr: *mut ffi::PyObject) -> PyResult<Bound<'_, PyAny>> {
        // SAFETY: as the caller promises.
        unsafe { Bound::from_owned_ptr_or_err(py, ptr) }
    }

    /// A `str` of `s`.
    pub fn string<'py>(py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyString>> {
        let len = ffi::Py_ssize_t::try_from(s.len())
            .map_err(|_| PyMemoryError::new_err("a string too long"))?;
        // SAFETY: `len` bytes of UTF-8 at `s`; the call returns a new
        // reference or NULL with the error set, and a `str` when it succeeds.
        unsafe {
            Ok(
                owned(py, ffi::PyUnicode_FromStringAndSize(s.as_ptr().cast(), len))?
                    .cast_into_unchecked(),
            )
        }
    }

    /// The characters `start..end` of `s` (clamped to its length).
    pub fn substring<'py>(
        s: &Bound<'py, PyString>,
        start: usize,
        end: usize,
    ) -> PyResult<Bound<'py, PyString>> {
        let (start, end) = (
            ffi::Py_ssize_t::try_from(start).unwrap_or(ffi::Py_ssize_t::MAX),
            ffi::Py_ssize_t::try_from(end).unwrap_or(ffi::Py_ssize_t::MAX),
        );
        // SAFETY: a valid `str`; a new reference (a `str`) or NULL with the
        // error set.
        unsafe {
            Ok(
                owned(s.py(), ffi::PyUnicode_Substring(s.as_ptr(), start, end))?
                    .cast_into_unchecked(),
            )
        }
    }

    /// An empty `list`.
    pub fn list(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
        // SAFETY: a new reference (a `list`) or NULL with the error set.
        unsafe { Ok(owned(py, ffi::PyList_New(0))?.cast_into_unchecked()) }
    }

    /// An empty `dict`.
    pub fn dict(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        // SAFETY: a new reference (a `dict`) or NULL with the error set.
        unsafe { Ok(owned(py, ffi::PyDict_New())?.cast_into_unchecked()) }
    }

    /// An `int`.
    pub fn int(py: Python<'_>, n: i64) -> PyResult<Bound<'_, PyAny>> {
        // SAFETY: a new reference or NULL with the error set.
        unsafe { owned(py, ffi::PyLong_FromLongLong(n)) }
    }

    /// A `float`.
    pub fn float(py: Python<'_>, x: f64) -> PyResult<Bound<'_, PyAny>> {
        // SAFETY: a new reference or NULL with the error set.
        unsafe { owned(py, ffi::PyFloat_FromDouble(x)) }
    }
}

/// Strings up to this many bytes are made once per batch and shared.
const SHARED_LEN: usize = 24;

/// Runs of keys kept as dicts to copy (a batch has two or three).
const TEMPLATES: usize = 8;

/// Slots of the shared-string cache (a power of two). A batch's field
/// names, moves and words number in the hundreds.
const SLOTS: usize = 4096;

/// One slot of the direct-mapped cache of short strings.
struct Slot<'py> {
    len: usize,
    bytes: [u8; SHARED_LEN],
    string: Bound<'py, PyString>,
}

/// Builds the objects of many JSON texts, sharing their short strings.
pub struct Builder<'py> {
    py: Python<'py>,
    shared: Vec<Option<Slot<'py>>>,
    /// Key-value pairs of the objects being read, innermost last.
    pairs: Vec<(Bound<'py, PyString>, Bound<'py, PyAny>)>,
    /// One dict per run of keys met (an answer, a move, an error), its
    /// values `None`: a new object is a copy of it, which CPython makes
    /// at its final size, instead of a dict grown key by key.
    templates: Vec<(Vec<usize>, Bound<'py, PyDict>)>,
    unescaped: String,
}

/// The cache slot of a short string: FNV-1a over its bytes.
fn slot_of(raw: &[u8]) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in raw {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h as usize) & (SLOTS - 1)
}

/// A position in one JSON text.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

fn malformed(text: &str, at: usize) -> PyErr {
    PyValueError::new_err(format!(
        "boardsolve: malformed answer at byte {at}: {text:?}"
    ))
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> PyResult<()> {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(malformed(self.text, self.at))
        }
    }

    fn literal(&mut self, word: &str) -> PyResult<()> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(malformed(self.text, self.at))
        }
    }
}

impl<'py> Builder<'py> {
    /// A builder whose shared strings live as long as it does.
    pub fn new(py: Python<'py>) -> Self {
        Builder {
            py,
            shared: (0..SLOTS).map(|_| None).collect(),
            pairs: Vec::new(),
            templates: Vec::new(),
            unescaped: String::new(),
        }
    }

    /// The object of one JSON text.
    pub fn build(&mut self, text: &str) -> PyResult<Bound<'py, PyAny>> {
        let mut cursor = Cursor { text, at: 0 };
        let value = self.value(&mut cursor)?;
        cursor.skip_space();
        if cursor.at == text.len() {
            Ok(value)
        } else {
            Err(malformed(text, cursor.at))
        }
    }

    fn value(&mut self, c: &mut Cursor<'_>) -> PyResult<Bound<'py, PyAny>> {
        c.skip_space();
        match c.peek() {
            Some(b'{') => {
                c.at += 1;
                c.skip_space();
                if c.peek() == Some(b'}') {
                    c.at += 1;
                    return Ok(fallible::dict(self.py)?.into_any());
                }
                // The pairs first (on a stack shared by nested objects),
                // then the dict, copied from one of the same keys.
                let first = self.pairs.len();
                loop {
                    c.skip_space();
                    let key = self.string(c)?;
                    c.expect(b':')?;
                    let value = self.value(c)?;
                    self.pairs.push((key, value));
                    c.skip_space();
                    match c.peek() {
                        Some(b',') => c.at += 1,
                        Some(b'}') => {
                            c.at += 1;
                            break;
                        }
                        _ => return Err(malformed(c.text, c.at)),
                    }
                }
                let dict = self.dict_like(first)?;
                for (key, value) in self.pairs.drain(first..) {
                    dict.set_item(key, value)?;
                }
                Ok(dict.into_any())
            }
            Some(b'[') => {
                c.at += 1;
                let mut items = Vec::new();
                c.skip_space();
                if c.peek() == Some(b']') {
                    c.at += 1;
                } else {
                    loop {
                        items.push(self.value(c)?);
                        c.skip_space();
                        match c.peek() {
                            Some(b',') => c.at += 1,
                            Some(b']') => {
                                c.at += 1;
                                break;
                            }
                            _ => return Err(malformed(c.text, c.at)),
                        }
                    }
                }
                let list = fallible::list(self.py)?;
                for item in items {
                    list.append(item)?;
                }
                Ok(list.into_any())
            }
            Some(b'"') => Ok(self.string(c)?.into_any()),
            Some(b't') => {
                c.literal("true")?;
                Ok(PyBool::new(self.py, true).to_owned().into_any())
            }
            Some(b'f') => {
                c.literal("false")?;
                Ok(PyBool::new(self.py, false).to_owned().into_any())
            }
            Some(b'n') => {
                c.literal("null")?;
                Ok(self.py.None().into_bound(self.py))
            }
            Some(b'-' | b'0'..=b'9') => self.number(c),
            _ => Err(malformed(c.text, c.at)),
        }
    }

    /// An empty-valued dict with the keys of `self.pairs[first..]`, in
    /// their order, to be filled.
    fn dict_like(&mut self, first: usize) -> PyResult<Bound<'py, PyDict>> {
        let keys = &self.pairs[first..];
        let same = |shape: &[usize]| {
            shape.len() == keys.len()
                && shape
                    .iter()
                    .zip(keys)
                    .all(|(&k, (key, _))| k == key.as_ptr() as usize)
        };
        if let Some((_, template)) = self.templates.iter().find(|(shape, _)| same(shape)) {
            return template.copy();
        }
        let template = fallible::dict(self.py)?;
        for (key, _) in keys {
            template.set_item(key, self.py.None())?;
        }
        if self.templates.len() < TEMPLATES {
            let shape = keys.iter().map(|(key, _)| key.as_ptr() as usize).collect();
            self.templates.push((shape, template.clone()));
        }
        template.copy()
    }

    fn number(&mut self, c: &mut Cursor<'_>) -> PyResult<Bound<'py, PyAny>> {
        let start = c.at;
        let mut integral = true;
        while let Some(b) = c.peek() {
            match b {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => integral = false,
                _ => break,
            }
            c.at += 1;
        }
        let digits = &c.text[start..c.at];
        if integral {
            if let Ok(n) = digits.parse::<i64>() {
                return fallible::int(self.py, n);
            }
        }
        let x: f64 = digits.parse().map_err(|_| malformed(c.text, start))?;
        fallible::float(self.py, x)
    }

    /// A string at the cursor (which is on its opening quote).
    fn string(&mut self, c: &mut Cursor<'_>) -> PyResult<Bound<'py, PyString>> {
        if c.peek() != Some(b'"') {
            return Err(malformed(c.text, c.at));
        }
        let start = c.at + 1;
        let bytes = c.text.as_bytes();
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'"' && bytes[end] != b'\\' {
            end += 1;
        }
        match bytes.get(end) {
            Some(b'"') => {
                c.at = end + 1;
                let raw = &c.text[start..end];
                if raw.len() > SHARED_LEN {
                    return fallible::string(self.py, raw);
                }
                let slot = &mut self.shared[slot_of(raw.as_bytes())];
                if let Some(hit) = slot {
                    if hit.bytes[..hit.len] == *raw.as_bytes() {
                        return Ok(hit.string.clone());
                    }
                }
                let string = fallible::string(self.py, raw)?;
                let mut bytes = [0; SHARED_LEN];
                bytes[..raw.len()].copy_from_slice(raw.as_bytes());
                *slot = Some(Slot {
                    len: raw.len(),
                    bytes,
                    string: string.clone(),
                });
                Ok(string)
            }
            Some(b'\\') => {
                c.at = start;
                self.escaped(c)
            }
            _ => Err(malformed(c.text, start)),
        }
    }

    /// A string with escapes, from just after its opening quote.
    fn escaped(&mut self, c: &mut Cursor<'_>) -> PyResult<Bound<'py, PyString>> {
        let text = c.text;
        let mut out = std::mem::take(&mut self.unescaped);
        out.clear();
        let mut chars = text[c.at..].char_indices();
        let result = loop {
            let Some((i, ch)) = chars.next() else {
                break Err(malformed(text, text.len()));
            };
            match ch {
                '"' => {
                    c.at += i + 1;
                    break fallible::string(self.py, &out);
                }
                '\\' => {
                    let Some((_, e)) = chars.next() else {
                        break Err(malformed(text, text.len()));
                    };
                    match e {
                        '"' | '\\' | '/' => out.push(e),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let Some(unit) = hex4(&mut chars) else {
                                break Err(malformed(text, c.at + i));
                            };
                            let code = if (0xD800..0xDC00).contains(&unit) {
                                // A surrogate pair: the low half follows.
                                let low = match (chars.next(), chars.next()) {
                                    (Some((_, '\\')), Some((_, 'u'))) => hex4(&mut chars),
                                    _ => None,
                                };
                                match low {
                                    Some(low) if (0xDC00..0xE000).contains(&low) => {
                                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                                    }
                                    _ => break Err(malformed(text, c.at + i)),
                                }
                            } else {
                                unit
                            };
                            match char::from_u32(code) {
                                Some(ch) => out.push(ch),
                                None => break Err(malformed(text, c.at + i)),
                            }
                        }
                        _ => break Err(malformed(text, c.at + i)),
                    }
                }
                _ => out.push(ch),
            }
        };
        self.unescaped = out;
        result
    }
}

/// Four hex digits of a `\u` escape.
fn hex4(chars: &mut std::str::CharIndices<'_>) -> Option<u32> {
    let mut unit = 0;
    for _ in 0..4 {
        unit = unit * 16 + chars.next()?.1.to_digit(16)?;
    }
    Some(unit)
}
