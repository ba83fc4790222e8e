//! Answers turned into Python objects, straight from the typed values: any
//! value the probe crate's JSON shapes serialize ([`json::AnswerFields`]
//! and the others) becomes the object `json.loads` would make of its JSON
//! line (dicts in field order, lists, str, int, bool, None), with no text
//! in between.
//!
//! A batch makes millions of objects, so the short strings it repeats
//! (field names, moves, "win", "tie", "lose") are made once per batch and
//! shared, and each dict is a copy of one of the same keys, which CPython
//! makes at its final size.
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

/// Slots of the shared-string cache (a power of two). A batch's field
/// names, moves and words number in the hundreds.
const SLOTS: usize = 4096;

/// One slot of the direct-mapped cache of short strings.
struct Slot<'py> {
    len: usize,
    bytes: [u8; SHARED_LEN],
    string: Bound<'py, PyString>,
}

/// Builds the objects of many values, sharing their short strings.
pub struct Builder<'py> {
    py: Python<'py>,
    shared: Vec<Option<Slot<'py>>>,
    /// Key-value pairs of the dicts being made, innermost last.
    pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    /// One dict per set of keys met (an answer, a move, an error), its
    /// values `None`, the keys told apart by their shared strings.
    templates: Vec<(Vec<usize>, Bound<'py, PyDict>)>,
}

/// The cache slot of a short string: FNV-1a over its bytes.
fn slot_of(raw: &[u8]) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in raw {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h as usize) & (SLOTS - 1)
}

impl<'py> Builder<'py> {
    /// A builder whose shared strings live as long as it does.
    pub fn new(py: Python<'py>) -> Self {
        Builder {
            py,
            shared: (0..SLOTS).map(|_| None).collect(),
            pairs: Vec::new(),
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
            return fallible::string(self.py, s);
        }
        let slot = &mut self.shared[slot_of(s.as_bytes())];
        if let Some(hit) = slot {
            if hit.bytes[..hit.len] == *s.as_bytes() {
                return Ok(hit.string.clone());
            }
        }
        let string = fallible::string(self.py, s)?;
        let mut bytes = [0; SHARED_LEN];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        *slot = Some(Slot {
            len: s.len(),
            bytes,
            string: string.clone(),
        });
        Ok(string)
    }

    /// The dict of the pairs from `first` on, in their order: a copy of
    /// the template of the same keys, filled.
    fn dict(&mut self, first: usize) -> PyResult<Bound<'py, PyAny>> {
        let keys = &self.pairs[first..];
        let same = |shape: &[usize]| {
            shape.len() == keys.len()
                && shape
                    .iter()
                    .zip(keys)
                    .all(|(&k, (key, _))| k == key.as_ptr() as usize)
        };
        let dict = match self.templates.iter().find(|(shape, _)| same(shape)) {
            Some((_, template)) => template.copy()?,
            None => {
                let template = fallible::dict(self.py)?;
                for (key, _) in keys {
                    template.set_item(key, self.py.None())?;
                }
                if self.templates.len() < TEMPLATES {
                    let shape = keys.iter().map(|(key, _)| key.as_ptr() as usize).collect();
                    self.templates.push((shape, template.clone()));
                }
                template.copy()?
            }
        };
        for (key, value) in self.pairs.drain(first..) {
            dict.set_item(key, value)?;
        }
        Ok(dict.into_any())
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

/// A dict being made: its pairs go on the builder's stack from `first`.
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
        let first = self.b.pairs.len();
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
        let list = fallible::list(self.b.py)?;
        for item in self.items {
            list.append(item)?;
        }
        Ok(list.into_any())
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
        self.b.pairs.push((key, value));
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
        let key = self.b.string(key)?.into_any();
        let value = value.serialize(Objects { b: self.b })?;
        self.b.pairs.push((key, value));
        Ok(())
    }
    fn end(self) -> Made<'py> {
        Ok(self.b.dict(self.first)?)
    }
}
