//! Answers turned into Python objects, straight from the typed values: any
//! value the probe crate's JSON shapes serialize ([`json::AnswerFields`]
//! and the others) becomes the object `json.loads` would make of its JSON
//! line (dicts in field order, lists, str, int, bool, None), with no text
//! in between.
//!
//! A batch makes millions of objects, so the short strings it repeats
//! (moves, "win", "tie", "lose") are made once per batch and shared, and
//! each dict is a copy of a template of the same keys, which CPython makes
//! at its final size; a struct's field names are known by address, and
//! made once, for the template.
//!
//! [`json::AnswerFields`]: boardsolve_probe::json::AnswerFields

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use serde::ser::{self, Serialize};

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

    /// A `list` of `items`, made at its size.
    pub fn list_of<'py>(
        py: Python<'py>,
        items: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let len = ffi::Py_ssize_t::try_from(items.len())
            .map_err(|_| PyMemoryError::new_err("a list too long"))?;
        // SAFETY: a new reference (a `list` of `len` empty slots) or NULL
        // with the error set.
        let list = unsafe { owned(py, ffi::PyList_New(len))? };
        for (i, item) in (0..len).zip(items) {
            // SAFETY: `i` is a slot of the new list, not yet filled;
            // `PyList_SetItem` takes over the item's reference.
            unsafe { ffi::PyList_SetItem(list.as_ptr(), i, item.into_ptr()) };
        }
        // SAFETY: made as a `list` above.
        Ok(unsafe { list.cast_into_unchecked() })
    }

    /// An empty `dict`.
    pub fn dict(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        // SAFETY: a new reference (a `dict`) or NULL with the error set.
        unsafe { Ok(owned(py, ffi::PyDict_New())?.cast_into_unchecked()) }
    }

    /// An `int` of a signed number.
    pub fn int(py: Python<'_>, n: i64) -> PyResult<Bound<'_, PyAny>> {
        // SAFETY: a new reference or NULL with the error set.
        unsafe { owned(py, ffi::PyLong_FromLongLong(n)) }
    }

    /// An `int` of an unsigned number.
    pub fn uint(py: Python<'_>, n: u64) -> PyResult<Bound<'_, PyAny>> {
        // SAFETY: a new reference or NULL with the error set.
        unsafe { owned(py, ffi::PyLong_FromUnsignedLongLong(n)) }
    }

    /// A `float`.
    pub fn float(py: Python<'_>, x: f64) -> PyResult<Bound<'_, PyAny>> {
        // SAFETY: a new reference or NULL with the error set.
        unsafe { owned(py, ffi::PyFloat_FromDouble(x)) }
    }
}

/// Strings up to this many bytes are made once per batch and shared.
const SHARED_LEN: usize = 24;

/// Sets of keys kept as dicts to copy (a batch has two or three).
const TEMPLATES: usize = 8;

/// Slots of the shared-string cache (a power of two). A batch's moves and
/// words number in the tens or hundreds; a small table stays in the
/// nearest cache.
const SLOTS: usize = 512;

/// A short string zero-padded to [`SHARED_LEN`] bytes, as words: compared
/// and hashed a word at a time.
type Padded = [u64; SHARED_LEN / 8];

/// One slot of the cache of short strings.
struct Slot<'py> {
    len: usize,
    words: Padded,
    string: Bound<'py, PyString>,
}

/// The key of a pair of a dict being made.
enum Name<'py> {
    /// A struct's field: a `&'static str` never changes, so its address
    /// and length name its text, and its `str` need only be made once,
    /// for its dict's template.
    Field(&'static str),
    /// A map's key, made.
    Made(Bound<'py, PyAny>),
}

impl Name<'_> {
    /// What tells this key apart from others in a template's shape.
    fn id(&self) -> (usize, usize) {
        match self {
            Name::Field(name) => (name.as_ptr() as usize, name.len()),
            Name::Made(key) => (key.as_ptr() as usize, usize::MAX),
        }
    }
}

/// A dict of one set of keys, its values `None`, to copy; with its keys,
/// in order.
struct Template<'py> {
    shape: Vec<(usize, usize)>,
    dict: Bound<'py, PyDict>,
    keys: Vec<Bound<'py, PyAny>>,
}

/// Builds the objects of many values, sharing their short strings.
pub struct Builder<'py> {
    py: Python<'py>,
    shared: Vec<Option<Slot<'py>>>,
    /// The last long string made: an answer's `input` and `position` are
    /// often the same text, made once.
    long: Option<(String, Bound<'py, PyString>)>,
    /// The keys of the dicts being made, innermost last.
    names: Vec<Name<'py>>,
    /// Their values, beside them (kept apart, each written where it goes,
    /// rather than put together as pairs on the stack and copied).
    values: Vec<Bound<'py, PyAny>>,
    /// One template per set of keys met (an answer, a move, an error).
    templates: Vec<Template<'py>>,
}

/// `raw` (at most [`SHARED_LEN`] bytes) zero-padded, as words.
fn padded(raw: &[u8]) -> Padded {
    // Word by word, not through a byte buffer read back as words: the
    // names are a few bytes, and that read would wait on the copy.
    let mut words = [0; SHARED_LEN / 8];
    for (w, chunk) in words.iter_mut().zip(raw.chunks(8)) {
        *w = match <[u8; 8]>::try_from(chunk) {
            Ok(full) => u64::from_le_bytes(full),
            Err(_) => chunk.iter().rev().fold(0, |w, &b| (w << 8) | u64::from(b)),
        };
    }
    words
}

/// The cache slot of a short string: a multiplicative hash of its words.
fn slot_of(words: &Padded, len: usize) -> usize {
    let mut h = len as u64;
    for &w in words {
        h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    (h >> 40) as usize & (SLOTS - 1)
}

impl<'py> Builder<'py> {
    /// A builder whose shared strings live as long as it does.
    pub fn new(py: Python<'py>) -> Self {
        Builder {
            py,
            shared: (0..SLOTS).map(|_| None).collect(),
            long: None,
            names: Vec::new(),
            values: Vec::new(),
            templates: Vec::new(),
        }
    }

    /// The object of `value`.
    pub fn build(&mut self, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
        value.serialize(Objects { b: self }).map_err(|e| e.0)
    }

    /// A `str` of `s`, shared when it is short.
    fn string(&mut self, s: &str) -> PyResult<Bound<'py, PyString>> {
        if s.len() > SHARED_LEN {
            return self.long(s);
        }
        let words = padded(s.as_bytes());
        // Two ways a set: two strings of a batch that fall in one slot
        // are both kept.
        let set = slot_of(&words, s.len()) & !1;
        for way in set..set + 2 {
            if let Some(hit) = &self.shared[way] {
                if hit.len == s.len() && hit.words == words {
                    return Ok(hit.string.clone());
                }
            }
        }
        let string = fallible::string(self.py, s)?;
        // The empty way, else the first way's string moves to the second.
        if self.shared[set].is_some() {
            self.shared.swap(set, set + 1);
        }
        self.shared[set] = Some(Slot {
            len: s.len(),
            words,
            string: string.clone(),
        });
        Ok(string)
    }

    /// `string`, the caller's own `str` whose text is `text`, to be used
    /// again for the text rather than a copy made.
    pub fn seed(&mut self, text: &str, string: &Bound<'py, PyString>) {
        // Only a str, not a subclass, stands for the text.
        if text.len() > SHARED_LEN && string.is_exact_instance_of::<PyString>() {
            self.remember(text, string);
        }
    }

    /// `string`, of the long `text`, as the last one made.
    fn remember(&mut self, text: &str, string: &Bound<'py, PyString>) {
        match &mut self.long {
            Some((t, last)) => {
                t.clear();
                t.push_str(text);
                *last = string.clone();
            }
            None => self.long = Some((text.to_owned(), string.clone())),
        }
    }

    /// A `str` of a long `s`: the last one made again when it is the same.
    fn long(&mut self, s: &str) -> PyResult<Bound<'py, PyString>> {
        if let Some((text, string)) = &self.long {
            if text == s {
                return Ok(string.clone());
            }
        }
        let string = fallible::string(self.py, s)?;
        self.remember(s, &string);
        Ok(string)
    }

    /// The dict of the keys and values from `first` on, in their order: a copy of
    /// the template of the same keys, filled.
    fn dict(&mut self, first: usize) -> PyResult<Bound<'py, PyAny>> {
        let names = &self.names[first..];
        let same = |t: &Template<'py>| {
            t.shape.len() == names.len()
                && t.shape.iter().zip(names).all(|(&id, name)| id == name.id())
        };
        let at = match self.templates.iter().position(same) {
            Some(at) => at,
            None => {
                let template = self.template(first)?;
                if self.templates.len() == TEMPLATES {
                    // More shapes than a batch has: made without a template.
                    let dict = fallible::dict(self.py)?;
                    self.names.truncate(first);
                    for (key, value) in template.keys.iter().zip(self.values.drain(first..)) {
                        dict.set_item(key, value)?;
                    }
                    return Ok(dict.into_any());
                }
                self.templates.push(template);
                self.templates.len() - 1
            }
        };
        let template = &self.templates[at];
        let dict = template.dict.copy()?;
        self.names.truncate(first);
        for (key, value) in template.keys.iter().zip(self.values.drain(first..)) {
            dict.set_item(key, value)?;
        }
        Ok(dict.into_any())
    }

    /// The template of the keys from `first` on.
    fn template(&mut self, first: usize) -> PyResult<Template<'py>> {
        let mut keys = Vec::with_capacity(self.names.len() - first);
        for i in first..self.names.len() {
            let key = match &self.names[i] {
                Name::Field(name) => self.string(name)?.into_any(),
                Name::Made(key) => key.clone(),
            };
            keys.push(key);
        }
        let dict = fallible::dict(self.py)?;
        for key in &keys {
            dict.set_item(key, self.py.None())?;
        }
        Ok(Template {
            shape: self.names[first..].iter().map(Name::id).collect(),
            dict,
            keys,
        })
    }
}

/// A Python exception carried through serde.
#[derive(Debug)]
pub struct Failed(PyErr);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Failed {}

impl ser::Error for Failed {
    fn custom<T: std::fmt::Display>(msg: T) -> Failed {
        Failed(PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Failed {
    fn from(e: PyErr) -> Failed {
        Failed(e)
    }
}

/// The serializer that makes objects.
struct Objects<'b, 'py> {
    b: &'b mut Builder<'py>,
}

/// A list being made.
struct Seq<'b, 'py> {
    b: &'b mut Builder<'py>,
    items: Vec<Bound<'py, PyAny>>,
}

/// A dict being made: its keys and values go on the builder's stacks from
/// `first`.
struct Map<'b, 'py> {
    b: &'b mut Builder<'py>,
    first: usize,
    key: Option<Bound<'py, PyAny>>,
}

type Made<'py> = Result<Bound<'py, PyAny>, Failed>;

impl<'b, 'py> ser::Serializer for Objects<'b, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    type SerializeSeq = Seq<'b, 'py>;
    type SerializeTuple = Seq<'b, 'py>;
    type SerializeTupleStruct = Seq<'b, 'py>;
    type SerializeTupleVariant = ser::Impossible<Bound<'py, PyAny>, Failed>;
    type SerializeMap = Map<'b, 'py>;
    type SerializeStruct = Map<'b, 'py>;
    type SerializeStructVariant = ser::Impossible<Bound<'py, PyAny>, Failed>;

    fn serialize_bool(self, v: bool) -> Made<'py> {
        Ok(PyBool::new(self.b.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Made<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Made<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Made<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Made<'py> {
        Ok(fallible::int(self.b.py, v)?)
    }
    fn serialize_u8(self, v: u8) -> Made<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Made<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Made<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Made<'py> {
        Ok(fallible::uint(self.b.py, v)?)
    }
    fn serialize_u128(self, v: u128) -> Made<'py> {
        match u64::try_from(v) {
            Ok(v) => self.serialize_u64(v),
            Err(_) => Ok(self
                .b
                .py
                .get_type::<pyo3::types::PyInt>()
                .call1((v.to_string(),))?),
        }
    }
    fn serialize_f32(self, v: f32) -> Made<'py> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Made<'py> {
        Ok(fallible::float(self.b.py, v)?)
    }
    fn serialize_char(self, v: char) -> Made<'py> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Made<'py> {
        Ok(self.b.string(v)?.into_any())
    }
    fn serialize_bytes(self, _: &[u8]) -> Made<'py> {
        Err(ser::Error::custom("bytes have no object here"))
    }
    fn serialize_none(self) -> Made<'py> {
        Ok(self.b.py.None().into_bound(self.b.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Made<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Made<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Made<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Made<'py> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Made<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Made<'py> {
        Err(ser::Error::custom("enum variants have no object here"))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'b, 'py>, Failed> {
        Ok(Seq {
            b: self.b,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'b, 'py>, Failed> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'b, 'py>, Failed> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Failed> {
        Err(ser::Error::custom("enum variants have no object here"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'b, 'py>, Failed> {
        let first = self.b.names.len();
        Ok(Map {
            b: self.b,
            first,
            key: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Map<'b, 'py>, Failed> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Failed> {
        Err(ser::Error::custom("enum variants have no object here"))
    }
}

impl<'py> Seq<'_, 'py> {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Failed> {
        let item = value.serialize(Objects { b: self.b })?;
        self.items.push(item);
        Ok(())
    }

    fn list(self) -> Made<'py> {
        Ok(fallible::list_of(self.b.py, self.items)?.into_any())
    }
}

impl<'py> ser::SerializeSeq for Seq<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Failed> {
        self.push(value)
    }
    fn end(self) -> Made<'py> {
        self.list()
    }
}

impl<'py> ser::SerializeTuple for Seq<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Failed> {
        self.push(value)
    }
    fn end(self) -> Made<'py> {
        self.list()
    }
}

impl<'py> ser::SerializeTupleStruct for Seq<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Failed> {
        self.push(value)
    }
    fn end(self) -> Made<'py> {
        self.list()
    }
}

impl<'py> ser::SerializeMap for Map<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Failed> {
        self.key = Some(key.serialize(Objects { b: self.b })?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Failed> {
        let value = value.serialize(Objects { b: self.b })?;
        let key = self
            .key
            .take()
            .ok_or_else(|| <Failed as ser::Error>::custom("a value without its key"))?;
        self.b.names.push(Name::Made(key));
        self.b.values.push(value);
        Ok(())
    }
    fn end(self) -> Made<'py> {
        Ok(self.b.dict(self.first)?)
    }
}

impl<'py> ser::SerializeStruct for Map<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Failed> {
        let value = value.serialize(Objects { b: self.b })?;
        self.b.names.push(Name::Field(key));
        self.b.values.push(value);
        Ok(())
    }
    fn end(self) -> Made<'py> {
        Ok(self.b.dict(self.first)?)
    }
}
