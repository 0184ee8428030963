//! NumPy's `.npy` and `.npz` files as arguments and results.
//!
//! The format is NumPy's (`numpy.lib.format`): the magic string `\x93NUMPY`, a version, a header
//! that is a Python dict literal naming the dtype (`descr`), the memory order (`fortran_order`)
//! and the shape, padded so that the data starts on a 64-byte boundary, then the raw elements.
//! This module parses that header (`Header`: the few Python literals a header holds), decodes the
//! elements, and decides what a file must hold to be a given parameter, refusing anything else
//! with a message naming the file and the parameter, since a silently converted argument would
//! be a wrong answer nobody asked for.
//!
//! Reading is bounded by the parameter: at most the bytes the parameter's shape needs (plus room
//! for the header) are read, so a header that claims a huge shape, a truncated file or a zip bomb
//! inside an `.npz` is an error, never an allocation of whatever the file claims.
//!
//! Element types map to NumPy dtypes one to one; the two 16-bit floats are the exception worth
//! knowing: `f16` is NumPy's `float16` (`<f2`), and `bf16` is `ml_dtypes.bfloat16`, which NumPy
//! saves as an opaque two-byte void (`<V2`) because it has no name for it. Such a file reads back
//! in NumPy as `V2` and becomes bfloat16 again with `.view(ml_dtypes.bfloat16)`.

use super::{Array, ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};
use crate::types::ElementType;
use half::{bf16, f16};
use std::fmt;
use std::io::{Read, Write};
use std::path::Path;

/// A file that cannot be read as the value asked for, or cannot be written; the message names the
/// file and, when reading, the parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyError(pub String);

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NpyError {}

type Result<T> = std::result::Result<T, NpyError>;

fn err<T>(msg: String) -> Result<T> {
    Err(NpyError(msg))
}

/// What the value is for, in messages: `parameter 1 (y)`.
#[derive(Clone, Debug)]
pub struct Target<'a> {
    pub index: usize,
    pub name: &'a str,
    pub shape: &'a Shape,
}

impl fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "parameter {} ({}: {})",
            self.index, self.name, self.shape
        )
    }
}

/// The descriptors a file may carry for an element type (native order first), and how NumPy
/// names the dtype.
fn descriptors(ty: ElementType) -> (&'static [&'static str], &'static str) {
    use ElementType::*;
    match ty {
        Pred => (&["|b1"], "bool"),
        S8 => (&["|i1", "<i1", ">i1"], "int8"),
        U8 => (&["|u1", "<u1", ">u1"], "uint8"),
        S16 => (&["<i2", ">i2"], "int16"),
        U16 => (&["<u2", ">u2"], "uint16"),
        S32 => (&["<i4", ">i4"], "int32"),
        U32 => (&["<u4", ">u4"], "uint32"),
        S64 => (&["<i8", ">i8"], "int64"),
        U64 => (&["<u8", ">u8"], "uint64"),
        F16 => (&["<f2", ">f2"], "float16"),
        BF16 => (
            &["<V2", "|V2"],
            "ml_dtypes.bfloat16, saved by NumPy as '<V2'",
        ),
        F32 => (&["<f4", ">f4"], "float32"),
        F64 => (&["<f8", ">f8"], "float64"),
        C64 => (&["<c8", ">c8"], "complex64"),
        C128 => (&["<c16", ">c16"], "complex128"),
        Token => (&[], "no dtype (a token has no value)"),
    }
}

/// One of the Python literals a `.npy` header is written in.
#[derive(Clone, Debug, PartialEq)]
enum Py {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    /// A tuple or a list.
    Seq(Vec<Py>, bool),
    Dict(Vec<(Py, Py)>),
}

impl fmt::Display for Py {
    /// As Python's `repr` writes it (strings in single quotes), for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Py::Str(s) => write!(f, "'{}'", s.escape_default()),
            Py::Bool(true) => f.write_str("True"),
            Py::Bool(false) => f.write_str("False"),
            Py::Int(n) => write!(f, "{n}"),
            Py::None => f.write_str("None"),
            Py::Seq(v, tuple) => {
                f.write_str(if *tuple { "(" } else { "[" })?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                if *tuple && v.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(if *tuple { ")" } else { "]" })
            }
            Py::Dict(v) => {
                f.write_str("{")?;
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {x}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A parser of the Python literals NumPy writes headers in: dicts, tuples, lists, strings,
/// `True`, `False`, `None` and non-negative integers (with Python 2's `L` suffix, which old
/// files carry in their shapes). Nesting is bounded, so a hostile header cannot exhaust the
/// stack.
struct PyParser<'a> {
    s: &'a [u8],
    at: usize,
}

impl PyParser<'_> {
    fn parse(text: &str) -> std::result::Result<Py, String> {
        let mut p = PyParser {
            s: text.as_bytes(),
            at: 0,
        };
        let v = p.value(0)?;
        p.blank();
        if p.at != p.s.len() {
            return Err(format!(
                "unexpected text after the header's dict at byte {}",
                p.at
            ));
        }
        Ok(v)
    }

    fn blank(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.blank();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Py, String> {
        if depth > 32 {
            return Err("the header nests too deeply".into());
        }
        self.blank();
        let at = self.at;
        match self.s.get(at) {
            Some(b'{') => {
                self.at += 1;
                let mut v = vec![];
                while !self.eat(b'}') {
                    let k = self.value(depth + 1)?;
                    if !self.eat(b':') {
                        return Err(format!("expected ':' at byte {}", self.at));
                    }
                    v.push((k, self.value(depth + 1)?));
                    if !self.eat(b',') && !self.eat(b'}') {
                        return Err(format!("expected ',' or '}}' at byte {}", self.at));
                    } else if self.s[self.at - 1] == b'}' {
                        break;
                    }
                }
                Ok(Py::Dict(v))
            }
            Some(&open @ (b'(' | b'[')) => {
                self.at += 1;
                let close = if open == b'(' { b')' } else { b']' };
                let mut v = vec![];
                while !self.eat(close) {
                    v.push(self.value(depth + 1)?);
                    if !self.eat(b',') && !self.eat(close) {
                        return Err(format!("expected ',' at byte {}", self.at));
                    } else if self.s[self.at - 1] == close {
                        break;
                    }
                }
                Ok(Py::Seq(v, open == b'('))
            }
            Some(&q @ (b'\'' | b'"')) => {
                let start = at + 1;
                let len = self.s[start..]
                    .iter()
                    .position(|&c| c == q || c == b'\\')
                    .ok_or("a string that does not end")?;
                if self.s[start + len] == b'\\' {
                    return Err("escapes in header strings are not supported".into());
                }
                self.at = start + len + 1;
                let text = std::str::from_utf8(&self.s[start..start + len])
                    .map_err(|_| "a header string that is not text")?;
                Ok(Py::Str(text.to_string()))
            }
            Some(c) if c.is_ascii_digit() => {
                let len = self.s[at..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let digits = std::str::from_utf8(&self.s[at..at + len]).unwrap_or("");
                let n = digits
                    .parse::<u64>()
                    .map_err(|_| format!("the number {digits} is too large"))?;
                self.at = at + len;
                if self.s.get(self.at) == Some(&b'L') {
                    self.at += 1;
                }
                Ok(Py::Int(n))
            }
            Some(_) => {
                for (word, v) in [
                    ("True", Py::Bool(true)),
                    ("False", Py::Bool(false)),
                    ("None", Py::None),
                ] {
                    if self.s[at..].starts_with(word.as_bytes()) {
                        self.at = at + word.len();
                        return Ok(v);
                    }
                }
                Err(format!("unexpected text at byte {at}"))
            }
            None => Err("the header ends early".into()),
        }
    }
}

/// What a `.npy` header says.
struct Header {
    /// The dtype as written (`'<f4'`, or a list for a structured dtype).
    descr: Py,
    fortran_order: bool,
    shape: Vec<u64>,
    /// Where the elements start.
    data: usize,
}

const MAGIC: &[u8] = b"\x93NUMPY";

impl Header {
    fn parse(bytes: &[u8]) -> std::result::Result<Header, String> {
        if bytes.len() < 10 || !bytes.starts_with(MAGIC) {
            return Err("no NumPy magic string at the start".into());
        }
        let (major, minor) = (bytes[6], bytes[7]);
        let (len, start) = match major {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as u64, 10),
            2 | 3 if bytes.len() >= 12 => (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as u64,
                12,
            ),
            _ => {
                return Err(format!(
                    "format version {major}.{minor} is not one NumPy writes"
                ));
            }
        };
        if len > MAX_HEADER || start + len as usize > bytes.len() {
            return Err(format!("a header of {len} bytes, past the end of the file"));
        }
        let raw = &bytes[start..start + len as usize];
        // Versions 1 and 2 are Latin-1; 3 is UTF-8. Keys and dtype names are ASCII either way.
        let text: String = if major == 3 {
            std::str::from_utf8(raw)
                .map_err(|_| "a version 3 header that is not UTF-8")?
                .to_string()
        } else {
            raw.iter().map(|&b| b as char).collect()
        };
        let Py::Dict(entries) = PyParser::parse(&text)? else {
            return Err("the header is not a dict".into());
        };
        let get = |key: &str| {
            entries
                .iter()
                .find(|(k, _)| matches!(k, Py::Str(s) if s == key))
                .map(|(_, v)| v)
                .ok_or(format!("the header has no '{key}'"))
        };
        let descr = get("descr")?.clone();
        let fortran_order = match get("fortran_order")? {
            Py::Bool(b) => *b,
            other => return Err(format!("'fortran_order' is {other}, not True or False")),
        };
        let shape = match get("shape")? {
            Py::Seq(dims, true) => dims
                .iter()
                .map(|d| match d {
                    Py::Int(n) => Ok(*n),
                    other => Err(format!("a dimension {other} that is not a size")),
                })
                .collect::<std::result::Result<Vec<u64>, String>>()?,
            other => return Err(format!("'shape' is {other}, not a tuple")),
        };
        Ok(Header {
            descr,
            fortran_order,
            shape,
            data: start + len as usize,
        })
    }
}

/// Element types as NumPy stores them: `SIZE` bytes each, little- or big-endian.
trait Elem: Copy + Send + 'static {
    const SIZE: usize;
    /// One element from `SIZE` bytes; `None` for bytes that are no value of the type (a bool
    /// other than 0 or 1).
    fn decode(b: &[u8], big: bool) -> Option<Self>;
    /// Appends the element's little-endian bytes.
    fn encode(self, out: &mut Vec<u8>);
    /// Whether a slice of the type is its little-endian bytes, so that `bytes_of` may view it
    /// (plain numbers on a little-endian machine; never `bool`, which must be checked).
    const PLAIN: bool;
}

macro_rules! number_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const PLAIN: bool = cfg!(target_endian = "little");
            #[inline]
            fn decode(b: &[u8], big: bool) -> Option<$t> {
                let a = b.try_into().ok()?;
                Some(if big { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) })
            }
            #[inline]
            fn encode(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
number_elem!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

macro_rules! wrapped_elem {
    ($t:ty, $bits:ty, $from:expr, $to:expr) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const PLAIN: bool = cfg!(target_endian = "little");
            #[inline]
            fn decode(b: &[u8], big: bool) -> Option<$t> {
                <$bits>::decode(b, big).map($from)
            }
            #[inline]
            fn encode(self, out: &mut Vec<u8>) {
                ($to)(self).encode(out)
            }
        }
    };
}
wrapped_elem!(f16, u16, f16::from_bits, |x: f16| x.to_bits());
wrapped_elem!(bf16, u16, bf16::from_bits, |x: bf16| x.to_bits());

macro_rules! complex_elem {
    ($t:ty, $part:ty) => {
        impl Elem for num_complex::Complex<$t> {
            const SIZE: usize = 2 * std::mem::size_of::<$t>();
            const PLAIN: bool = cfg!(target_endian = "little");
            #[inline]
            fn decode(b: &[u8], big: bool) -> Option<Self> {
                let (re, im) = b.split_at(Self::SIZE / 2);
                Some(num_complex::Complex::new(
                    <$part>::decode(re, big)?,
                    <$part>::decode(im, big)?,
                ))
            }
            #[inline]
            fn encode(self, out: &mut Vec<u8>) {
                self.re.encode(out);
                self.im.encode(out);
            }
        }
    };
}
complex_elem!(f32, f32);
complex_elem!(f64, f64);

impl Elem for bool {
    const SIZE: usize = 1;
    const PLAIN: bool = false;
    #[inline]
    fn decode(b: &[u8], _big: bool) -> Option<bool> {
        match b {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
    #[inline]
    fn encode(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
}

/// The bytes of a slice of a `PLAIN` type, which are its little-endian encoding.
fn bytes_of<T: Elem>(v: &[T]) -> &[u8] {
    assert!(T::PLAIN, "bytes_of: not a plain type");
    // SAFETY: every PLAIN type (integers, floats, the half types, complex pairs of floats) is
    // plain data without padding, any byte of which may be read, and on this little-endian
    // machine its bytes are the encoding NumPy's '<' dtypes hold.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The elements of a `.npy` image's data, in the logical (row-major) order whatever the file's.
/// A C-order little-endian image of a plain type is copied at once, straight into a
/// huge-page-backed vector (`pages::copy_fresh`), as NumPy's own large arrays are; others are
/// decoded element by element.
fn decode<T: Elem>(data: &[u8], big: bool, h: &Header) -> std::result::Result<Vec<T>, String> {
    let count = h
        .shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
        .ok_or("the header's shape has more elements than memory can hold")?;
    let want = count.checked_mul(T::SIZE).ok_or("the array is too large")?;
    if data.len() < want {
        return Err(format!(
            "the file ends after {} of the array's {want} bytes",
            data.len()
        ));
    }
    if data.len() > want {
        return Err(format!(
            "{} extra bytes after the array's data",
            data.len() - want
        ));
    }
    let bad = || format!("bytes that are no {} value", std::any::type_name::<T>());
    let logical: Vec<T> =
        if T::PLAIN && !big && (data.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
            // SAFETY: `data` holds `count` elements' bytes, aligned for T (checked), and every bit
            // pattern is a value of a PLAIN type.
            let v = unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<T>(), count) };
            super::pages::copy_fresh(v)
        } else {
            let mut v = Vec::with_capacity(count);
            for b in data.chunks_exact(T::SIZE) {
                v.push(T::decode(b, big).ok_or_else(bad)?);
            }
            v
        };
    if !h.fortran_order || h.shape.len() < 2 {
        return Ok(logical);
    }
    // Fortran order: element (i0, .., in) sits at i0 + d0 * (i1 + d1 * (...)). Walk the
    // row-major indices and gather.
    let dims: Vec<usize> = h.shape.iter().map(|&d| d as usize).collect();
    let mut strides = vec![1usize; dims.len()];
    for i in 1..dims.len() {
        strides[i] = strides[i - 1] * dims[i - 1];
    }
    let mut idx = vec![0usize; dims.len()];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let off: usize = idx.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.push(logical[off]);
        for d in (0..dims.len()).rev() {
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(out)
}

/// The largest header this reader accepts: NumPy writes headers of a few hundred bytes; format
/// version 2 allows up to 4 GiB, which no real array needs.
const MAX_HEADER: u64 = 1 << 20;

/// Reads at most `limit` bytes; more is an error, so the caller never holds more than the value
/// it asked for needs.
fn read_bounded<R: Read>(reader: R, limit: u64, file: &str, target: &Target) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| NpyError(format!("cannot read {file}: {e}")))?;
    if bytes.len() as u64 > limit {
        return err(format!(
            "{file} is larger than {target} can be ({limit} bytes with the header)"
        ));
    }
    Ok(bytes)
}

fn byte_limit(shape: &ArrayShape) -> u64 {
    let count = shape
        .dims
        .iter()
        .fold(1u64, |n, &d| n.saturating_mul(d.max(0) as u64));
    count
        .saturating_mul(shape.ty.byte_size() as u64)
        .saturating_add(MAX_HEADER)
}

/// The array shape a parameter must be, or why a `.npy` file cannot be it.
fn array_target<'a>(target: &Target<'a>, file: &str) -> Result<&'a ArrayShape> {
    match target.shape {
        Shape::Array(s) => Ok(s),
        Shape::Tuple(_) => err(format!(
            "{file}: {target} is a tuple; a .npy file holds one array (give the tuple as HLO literal text or JSON)"
        )),
        Shape::Token => err(format!("{file}: {target} is a token, which takes no value")),
    }
}

/// Decodes one `.npy` image as the value of `target`.
pub fn array_from_npy_bytes(bytes: &[u8], file: &str, target: &Target) -> Result<Array> {
    let want = array_target(target, file)?;
    let header = Header::parse(bytes)
        .map_err(|e| NpyError(format!("{file}: not a NumPy .npy array: {e}")))?;
    let (accepted, numpy) = descriptors(want.ty);
    let descr = match &header.descr {
        Py::Str(s) if accepted.contains(&s.as_str()) => s.as_str(),
        other => {
            return err(format!(
                "{file}: holds dtype {other} but {target} needs {} ({numpy})",
                accepted.first().copied().unwrap_or("none"),
            ));
        }
    };
    let big = descr.starts_with('>');
    let dims: Vec<i64> = header.shape.iter().map(|&d| d as i64).collect();
    let fits = dims.len() == want.dims.len()
        && dims
            .iter()
            .zip(&want.dims)
            .enumerate()
            .all(|(i, (&got, &w))| {
                if want.dynamic.get(i).copied().unwrap_or(false) {
                    (0..=w).contains(&got)
                } else {
                    got == w
                }
            });
    if !fits {
        return err(format!(
            "{file}: holds an array of shape {:?} but {target} needs dimensions {:?}",
            header.shape, want.dims
        ));
    }
    let what = |e: String| NpyError(format!("{file}: {e}"));
    let data = &bytes[header.data..];
    use ElementType::*;
    let data = match want.ty {
        Pred => ArrayData::Pred(decode::<bool>(data, big, &header).map_err(what)?.into()),
        S8 => ArrayData::S8(decode::<i8>(data, big, &header).map_err(what)?.into()),
        S16 => ArrayData::S16(decode::<i16>(data, big, &header).map_err(what)?.into()),
        S32 => ArrayData::S32(decode::<i32>(data, big, &header).map_err(what)?.into()),
        S64 => ArrayData::S64(decode::<i64>(data, big, &header).map_err(what)?.into()),
        U8 => ArrayData::U8(decode::<u8>(data, big, &header).map_err(what)?.into()),
        U16 => ArrayData::U16(decode::<u16>(data, big, &header).map_err(what)?.into()),
        U32 => ArrayData::U32(decode::<u32>(data, big, &header).map_err(what)?.into()),
        U64 => ArrayData::U64(decode::<u64>(data, big, &header).map_err(what)?.into()),
        F16 => ArrayData::F16(decode::<f16>(data, big, &header).map_err(what)?.into()),
        BF16 => ArrayData::BF16(decode::<bf16>(data, big, &header).map_err(what)?.into()),
        F32 => ArrayData::F32(decode::<f32>(data, big, &header).map_err(what)?.into()),
        F64 => ArrayData::F64(decode::<f64>(data, big, &header).map_err(what)?.into()),
        C64 => ArrayData::C64(decode(data, big, &header).map_err(what)?.into()),
        C128 => ArrayData::C128(decode(data, big, &header).map_err(what)?.into()),
        Token => return err(format!("{file}: {target} is a token, which takes no value")),
    };
    // The value has the sizes the file holds; like a literal written in text, its shape is
    // static (a bounded dynamic parameter takes it as its actual size).
    Array::from_data(ArrayShape::new(want.ty, dims), data)
        .map_err(|e| NpyError(format!("{file}: {e}")))
}

/// Reads a `.npy` file as the value of `target`.
pub fn read_npy(path: &Path, target: &Target) -> Result<Literal> {
    let file = path.display().to_string();
    let want = array_target(target, &file)?;
    let f = std::fs::File::open(path).map_err(|e| NpyError(format!("cannot read {file}: {e}")))?;
    let bytes = read_bounded(f, byte_limit(want), &file, target)?;
    Ok(Literal::Array(array_from_npy_bytes(&bytes, &file, target)?))
}

/// Reads every parameter from one `.npz` archive. Parameter `i` is the array named `arg<i>`, else
/// the one named like the parameter, else NumPy's positional name `arr_<i>` (what
/// `numpy.savez(f, x, y)` writes); an archive whose names match none of those is read in its
/// own order when it holds exactly one array per parameter.
pub fn read_npz_args(path: &Path, params: &[Target]) -> Result<Vec<Literal>> {
    let mut archive = Npz::open(path)?;
    archive.read_args(params, "")
}

/// Reads one argument list per replica from an `.npz` archive whose arrays are named
/// `replica<k>_arg<i>` (or `replica<k>_` followed by the parameter's name, or `replica<k>_arr_<i>`),
/// the names `--out` gives per-replica results. `Ok(None)` when the archive uses no such name, so
/// that every replica takes the same arguments.
pub fn read_npz_replica_args(
    path: &Path,
    params: &[Target],
    replicas: usize,
) -> Result<Option<Vec<Vec<Literal>>>> {
    let mut archive = Npz::open(path)?;
    if !archive.stems.iter().any(|s| s.starts_with("replica")) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(replicas);
    for k in 0..replicas {
        out.push(archive.read_args(params, &format!("replica{k}_"))?);
    }
    let used = replicas * params.len();
    if archive.stems.len() > used {
        return err(format!(
            "{}: holds {} arrays, but {replicas} replicas x {} parameters take {used}; arrays for replicas past {} are not allowed",
            archive.file,
            archive.stems.len(),
            params.len(),
            replicas - 1
        ));
    }
    Ok(Some(out))
}

struct Npz {
    file: String,
    zip: zip::ZipArchive<std::fs::File>,
    names: Vec<String>,
    stems: Vec<String>,
}

impl Npz {
    fn open(path: &Path) -> Result<Npz> {
        let file = path.display().to_string();
        let f =
            std::fs::File::open(path).map_err(|e| NpyError(format!("cannot read {file}: {e}")))?;
        let zip = zip::ZipArchive::new(f)
            .map_err(|e| NpyError(format!("{file}: not a NumPy .npz archive: {e}")))?;
        let names: Vec<String> = zip.file_names().map(str::to_string).collect();
        let stems = names
            .iter()
            .map(|n| n.strip_suffix(".npy").unwrap_or(n).to_string())
            .collect();
        Ok(Npz {
            file,
            zip,
            names,
            stems,
        })
    }

    fn find(&self, candidates: &[String]) -> Option<usize> {
        candidates
            .iter()
            .find_map(|c| self.stems.iter().position(|s| s == c))
    }

    fn read_args(&mut self, params: &[Target], prefix: &str) -> Result<Vec<Literal>> {
        let candidates = |t: &Target| {
            [
                format!("{prefix}arg{}", t.index),
                format!("{prefix}{}", t.name),
                format!("{prefix}arr_{}", t.index),
            ]
        };
        let any_named = params.iter().any(|t| self.find(&candidates(t)).is_some());
        let mut out = Vec::with_capacity(params.len());
        for (k, t) in params.iter().enumerate() {
            let idx = if any_named || !prefix.is_empty() {
                self.find(&candidates(t))
            } else if self.names.len() == params.len() {
                Some(k)
            } else {
                None
            };
            let Some(idx) = idx else {
                let [a, b, c] = candidates(t);
                return err(format!(
                    "{}: no array for {t}: looked for {a}, {b} and {c}; the archive holds {}",
                    self.file,
                    if self.stems.is_empty() {
                        "nothing".to_string()
                    } else {
                        self.stems.join(", ")
                    },
                ));
            };
            let member = format!("{}:{}", self.file, self.names[idx]);
            let want = array_target(t, &member)?;
            let entry = self
                .zip
                .by_index(idx)
                .map_err(|e| NpyError(format!("{member}: cannot read: {e}")))?;
            let bytes = read_bounded(entry, byte_limit(want), &member, t)?;
            out.push(Literal::Array(array_from_npy_bytes(&bytes, &member, t)?));
        }
        Ok(out)
    }
}

/// Encodes an array as a `.npy` image (C order).
pub fn array_to_npy_bytes(a: &Array) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(a.len() * a.ty().byte_size() + 128);
    write_array(a, &mut out)?;
    Ok(out)
}

/// The header of a C-order `.npy` image of `dims` with dtype `descr`: format version 1.0 (2.0
/// for a header too long for it), padded with spaces to end, with its newline, on a 64-byte
/// boundary, as NumPy writes it.
fn header_bytes(descr: &str, dims: &[i64]) -> Vec<u8> {
    let shape = match dims {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let pad = |prefix: usize| (prefix + dict.len() + 1).next_multiple_of(64) - prefix;
    let mut out = MAGIC.to_vec();
    if pad(10) <= u16::MAX as usize {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(pad(10) as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(pad(12) as u32).to_le_bytes());
    }
    let total = out.len() + pad(out.len());
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

fn write_elems<T: Elem, W: Write>(descr: &str, dims: &[i64], v: &[T], mut w: W) -> Result<()> {
    let io = |e: std::io::Error| NpyError(format!("cannot write the array: {e}"));
    w.write_all(&header_bytes(descr, dims)).map_err(io)?;
    if T::PLAIN {
        return w.write_all(bytes_of(v)).map_err(io);
    }
    // A few MiB at a time, so that a large array is not encoded whole before it is written.
    for chunk in v.chunks((4 << 20) / T::SIZE) {
        let mut bytes = Vec::with_capacity(chunk.len() * T::SIZE);
        for &x in chunk {
            x.encode(&mut bytes);
        }
        w.write_all(&bytes).map_err(io)?;
    }
    Ok(())
}

fn write_array<W: Write>(a: &Array, w: W) -> Result<()> {
    let dims = a.dims();
    match &a.data {
        ArrayData::Pred(v) => write_elems("|b1", dims, v, w),
        ArrayData::S8(v) => write_elems("|i1", dims, v, w),
        ArrayData::S16(v) => write_elems("<i2", dims, v, w),
        ArrayData::S32(v) => write_elems("<i4", dims, v, w),
        ArrayData::S64(v) => write_elems("<i8", dims, v, w),
        ArrayData::U8(v) => write_elems("|u1", dims, v, w),
        ArrayData::U16(v) => write_elems("<u2", dims, v, w),
        ArrayData::U32(v) => write_elems("<u4", dims, v, w),
        ArrayData::U64(v) => write_elems("<u8", dims, v, w),
        ArrayData::F16(v) => write_elems("<f2", dims, v, w),
        ArrayData::BF16(v) => write_elems("<V2", dims, v, w),
        ArrayData::F32(v) => write_elems("<f4", dims, v, w),
        ArrayData::F64(v) => write_elems("<f8", dims, v, w),
        ArrayData::C64(v) => write_elems("<c8", dims, v, w),
        ArrayData::C128(v) => write_elems("<c16", dims, v, w),
    }
}

/// The arrays of a result, named for an `.npz`: `out0`, `out1`, ... for the elements of a tuple
/// (`out1_0` for an element of a nested one), `out0` for a lone array; tokens hold no value and
/// are left out.
pub fn result_arrays<'a>(lit: &'a Literal, prefix: &str) -> Vec<(String, &'a Array)> {
    fn walk<'a>(l: &'a Literal, name: String, out: &mut Vec<(String, &'a Array)>) {
        match l {
            Literal::Array(a) => out.push((name, a)),
            Literal::Tuple(t) => {
                for (i, e) in t.iter().enumerate() {
                    walk(e, format!("{name}_{i}"), out);
                }
            }
            Literal::Token => {}
        }
    }
    let mut out = Vec::new();
    match lit {
        Literal::Tuple(t) => {
            for (i, e) in t.iter().enumerate() {
                walk(e, format!("{prefix}{i}"), &mut out);
            }
        }
        other => walk(other, format!("{prefix}0"), &mut out),
    }
    out
}

/// Writes named arrays as an uncompressed `.npz` to `path`, through a temporary file renamed into
/// place, so a failed write leaves no half-written archive under the name asked for.
pub fn write_npz(path: &Path, arrays: &[(String, &Array)]) -> Result<()> {
    let file = path.display().to_string();
    let tmp = path.with_extension(format!("npz.tmp{}", std::process::id()));
    let result = (|| {
        let f = std::fs::File::create(&tmp)
            .map_err(|e| NpyError(format!("cannot write {file}: {e}")))?;
        let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(f));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(
                arrays
                    .iter()
                    .any(|(_, a)| a.len() * a.ty().byte_size() >= (1 << 31)),
            );
        for (name, a) in arrays {
            zip.start_file(format!("{name}.npy"), options)
                .map_err(|e| NpyError(format!("cannot write {file}: {e}")))?;
            write_array(a, &mut zip).map_err(|e| NpyError(format!("{file}: {e}")))?;
        }
        let mut w = zip
            .finish()
            .map_err(|e| NpyError(format!("cannot write {file}: {e}")))?;
        w.flush()
            .map_err(|e| NpyError(format!("cannot write {file}: {e}")))?;
        Ok(())
    })();
    match result {
        Ok(()) => {
            std::fs::rename(&tmp, path).map_err(|e| NpyError(format!("cannot write {file}: {e}")))
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Writes one array as a `.npy` file (through a temporary file, like `write_npz`).
pub fn write_npy(path: &Path, a: &Array) -> Result<()> {
    let file = path.display().to_string();
    let bytes = array_to_npy_bytes(a)?;
    let tmp = path.with_extension(format!("npy.tmp{}", std::process::id()));
    std::fs::write(&tmp, &bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            NpyError(format!("cannot write {file}: {e}"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::parse::parse_literal;
    use crate::shape::text::parse_shape;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/npy")
            .join(name)
    }

    fn read_as(name: &str, shape: &str) -> Result<String> {
        let shape = parse_shape(shape).unwrap();
        let t = Target {
            index: 0,
            name: "x",
            shape: &shape,
        };
        read_npy(&fixture(name), &t).map(|l| l.to_string())
    }

    #[test]
    fn numpy_files_read_as_their_parameters() {
        let cases = [
            ("x_f32.npy", "f32[2,3]", "f32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
            (
                "x_f32_fortran.npy",
                "f32[2,3]",
                "f32[2,3] {{1, 2, 3}, {4, 5, 6}}",
            ),
            ("b_bf16.npy", "bf16[4]", "bf16[4] {1.5, -2, inf, 0.0078}"),
            ("h_f16.npy", "f16[4]", "f16[4] {1.5, -2, inf, 6e-8}"),
            ("c_c64.npy", "c64[2]", "c64[2] {(1, 2), (-0.0, -0.5)}"),
            ("p_pred.npy", "pred[3]", "pred[3] {true, false, true}"),
            ("i_s64_be.npy", "s64[3]", "s64[3] {1, -2, 1099511627776}"),
            ("u_u8.npy", "u8[1,2]", "u8[1,2] {{0, 255}}"),
            ("s_scalar_f64.npy", "f64[]", "f64[] 2.5"),
            // A bounded dynamic dimension takes any size up to its bound.
            ("p_pred.npy", "pred[<=5]", "pred[3] {true, false, true}"),
        ];
        for (file, shape, want) in cases {
            assert_eq!(read_as(file, shape).unwrap(), want, "{file} as {shape}");
        }
    }

    #[test]
    fn a_file_that_is_not_the_parameter_is_refused_by_name() {
        let e = read_as("x_f32.npy", "f64[2,3]").unwrap_err().0;
        assert!(
            e.contains("x_f32.npy") && e.contains("'<f4'") && e.contains("<f8"),
            "{e}"
        );
        assert!(e.contains("parameter 0 (x: f64[2,3])"), "{e}");
        let e = read_as("x_f32.npy", "f32[3,2]").unwrap_err().0;
        assert!(e.contains("shape [2, 3]") && e.contains("[3, 2]"), "{e}");
        let e = read_as("b_bf16.npy", "f16[4]").unwrap_err().0;
        assert!(e.contains("'<V2'") && e.contains("float16"), "{e}");
        let e = read_as("h_f16.npy", "bf16[4]").unwrap_err().0;
        assert!(e.contains("ml_dtypes.bfloat16"), "{e}");
        let e = read_as("x_f32.npy", "(f32[2,3])").unwrap_err().0;
        assert!(e.contains("tuple"), "{e}");
        let e = read_as("no_such.npy", "f32[2]").unwrap_err().0;
        assert!(
            e.starts_with("cannot read") && e.contains("no_such.npy"),
            "{e}"
        );
    }

    #[test]
    fn truncated_oversized_and_garbage_files_are_errors() {
        let dir = std::env::temp_dir().join(format!("xla-spec-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = std::fs::read(fixture("x_f32.npy")).unwrap();
        let shape = parse_shape("f32[2,3]").unwrap();
        let t = Target {
            index: 1,
            name: "w",
            shape: &shape,
        };
        let cut = dir.join("cut.npy");
        std::fs::write(&cut, &good[..good.len() - 3]).unwrap();
        let e = read_npy(&cut, &t).unwrap_err().0;
        assert!(e.contains("cut.npy"), "{e}");
        let long = dir.join("long.npy");
        std::fs::write(&long, [&good[..], &[0u8; 8]].concat()).unwrap();
        assert!(read_npy(&long, &t).unwrap_err().0.contains("long.npy"));
        let junk = dir.join("junk.npy");
        std::fs::write(&junk, b"not numpy at all").unwrap();
        let e = read_npy(&junk, &t).unwrap_err().0;
        assert!(e.contains("not a NumPy .npy array"), "{e}");
        // A header claiming 2^60 elements for a parameter that has 6: refused without reading
        // (or allocating) what the header claims.
        let text = String::from_utf8_lossy(&good).replace("(2, 3)", "(1152921504606846976,)");
        let huge = dir.join("huge.npy");
        std::fs::write(&huge, text.as_bytes()).unwrap();
        let big = parse_shape("f32[1152921504606846976]").unwrap();
        let tb = Target {
            index: 0,
            name: "big",
            shape: &big,
        };
        assert!(read_npy(&huge, &t).is_err());
        assert!(read_npy(&huge, &tb).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn archives_by_name_by_numpy_position_and_compressed() {
        let x = parse_shape("f32[2,3]").unwrap();
        let y = parse_shape("f32[3]").unwrap();
        let named = [
            Target {
                index: 0,
                name: "x",
                shape: &x,
            },
            Target {
                index: 1,
                name: "y",
                shape: &y,
            },
        ];
        for file in ["args.npz", "args_positional.npz", "args_compressed.npz"] {
            let got = read_npz_args(&fixture(file), &named).unwrap();
            assert_eq!(
                got[0].to_string(),
                "f32[2,3] {{1, 2, 3}, {4, 5, 6}}",
                "{file}"
            );
            assert_eq!(got[1].to_string(), "f32[3] {10, 20, 30}", "{file}");
        }
        let other = [
            Target {
                index: 0,
                name: "a",
                shape: &x,
            },
            Target {
                index: 1,
                name: "b",
                shape: &y,
            },
            Target {
                index: 2,
                name: "c",
                shape: &y,
            },
        ];
        let e = read_npz_args(&fixture("args.npz"), &other).unwrap_err().0;
        assert!(
            e.contains("no array for parameter 0 (a: f32[2,3])") && e.contains("x, y"),
            "{e}"
        );
        let e = read_npz_args(&fixture("x_f32.npy"), &named).unwrap_err().0;
        assert!(e.contains("not a NumPy .npz archive"), "{e}");
    }

    #[test]
    fn every_element_type_round_trips_through_npy_and_npz() {
        let values = [
            "pred[2] {true, false}",
            "s8[2] {-128, 127}",
            "s16[2] {-32768, 7}",
            "s32[1,2] {{-1, 2147483647}}",
            "s64[2] {-9223372036854775808, 3}",
            "u8[2] {0, 255}",
            "u16[2] {0, 65535}",
            "u32[2] {0, 4294967295}",
            "u64[2] {0, 18446744073709551615}",
            "f16[2] {-0.0, 65504}",
            "bf16[2] {-inf, 3.3895314e+38}",
            "f32[2] {nan, 1e-45}",
            "f64[] -0.0",
            "c64[2] {(1, -2), (inf, 0)}",
            "c128[0] {}",
        ];
        let dir = std::env::temp_dir().join(format!("xla-spec-npz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lits: Vec<Literal> = values.iter().map(|v| parse_literal(v).unwrap()).collect();
        let tuple = Literal::Tuple(lits.clone());
        let arrays = result_arrays(&tuple, "out");
        assert_eq!(arrays.len(), values.len());
        let npz = dir.join("all.npz");
        write_npz(&npz, &arrays).unwrap();
        let shapes: Vec<Shape> = lits.iter().map(|l| l.shape()).collect();
        let targets: Vec<Target> = (0..shapes.len())
            .map(|i| Target {
                index: i,
                name: "p",
                shape: &shapes[i],
            })
            .collect();
        // out<i> is not arg<i> or arr_<i>: the archive is read in its own order.
        let back = read_npz_args(&npz, &targets).unwrap();
        for (l, b) in lits.iter().zip(&back) {
            assert_eq!(l.to_string(), b.to_string());
            let one = dir.join("one.npy");
            write_npy(&one, l.as_array().unwrap()).unwrap();
            let s = l.shape();
            let t = Target {
                index: 0,
                name: "p",
                shape: &s,
            };
            assert_eq!(read_npy(&one, &t).unwrap().to_string(), l.to_string());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An image with the given version and header text (padded as NumPy pads it) and data.
    fn image(major: u8, dict: &str, data: &[u8]) -> Vec<u8> {
        let prefix = if major == 1 { 10 } else { 12 };
        let len = (prefix + dict.len() + 1).next_multiple_of(64) - prefix;
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[major, 0]);
        if major == 1 {
            out.extend_from_slice(&(len as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(len as u32).to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out.resize(prefix + len - 1, b' ');
        out.push(b'\n');
        out.extend_from_slice(data);
        out
    }

    fn decode_as(bytes: &[u8], shape: &str) -> Result<String> {
        let shape = parse_shape(shape).unwrap();
        let t = Target {
            index: 0,
            name: "x",
            shape: &shape,
        };
        array_from_npy_bytes(bytes, "f.npy", &t).map(|a| Literal::Array(a).to_string())
    }

    #[test]
    fn headers_of_every_version_and_python_spelling_parse() {
        let data: Vec<u8> = [1i16, -2, 3, 4, 5, 6]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let want = "s16[2,3] {{1, -2, 3}, {4, 5, 6}}";
        for (major, dict) in [
            (
                1,
                "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }",
            ),
            // Python 2's long integers, double quotes, no trailing comma, other key order.
            (
                1,
                "{\"shape\": (2L, 3L), \"fortran_order\": False, \"descr\": \"<i2\"}",
            ),
            (
                2,
                "{'descr': '<i2', 'fortran_order': False, 'shape': (2,3)}",
            ),
            (
                3,
                "{ 'descr' : '<i2' , 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }",
            ),
        ] {
            assert_eq!(
                decode_as(&image(major, dict, &data), "s16[2,3]").unwrap(),
                want,
                "{dict}"
            );
        }
        // Fortran order, three dimensions: element (i, j, l) at i + 2 * (j + 3 * l).
        let f: Vec<u8> = (0..24u8)
            .map(|x| {
                let (i, j, l) = (x % 2, x / 2 % 3, x / 6);
                i * 12 + j * 4 + l
            })
            .collect();
        let dict = "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 4), }";
        let got = decode_as(&image(1, dict, &f), "u8[2,3,4]").unwrap();
        let row_major: Vec<String> = (0..24).map(|x: u8| x.to_string()).collect();
        assert_eq!(
            got.split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .skip(4)
                .collect::<Vec<_>>(),
            row_major,
            "{got}"
        );
    }

    #[test]
    fn malformed_headers_and_values_are_errors_that_say_what() {
        let two = [0u8; 4];
        let cases = [
            (
                image(1, "{'descr': '<i2', 'shape': (2,), }", &two),
                "no 'fortran_order'",
            ),
            (
                image(
                    1,
                    "{'descr': '<i2', 'fortran_order': 1, 'shape': (2,)}",
                    &two,
                ),
                "'fortran_order' is 1",
            ),
            (
                image(
                    1,
                    "{'descr': '<i2', 'fortran_order': False, 'shape': [2]}",
                    &two,
                ),
                "not a tuple",
            ),
            (
                image(
                    1,
                    "{'descr': '<i2', 'fortran_order': False, 'shape': (2,)",
                    &two,
                ),
                "expected",
            ),
            (image(1, "('<i2', False)", &two), "not a dict"),
            (
                image(1, &format!("{}1{}", "[".repeat(40), "]".repeat(40)), &two),
                "nests too deeply",
            ),
            (
                image(
                    1,
                    "{'descr': '<i2', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                    &two,
                ),
                "too large",
            ),
            (image(4, "{}", &two), "version 4.0"),
            (b"\x93NUMPY\x01\x00\xff\xff{".to_vec(), "past the end"),
        ];
        for (bytes, want) in cases {
            let e = decode_as(&bytes, "s16[2]").unwrap_err().0;
            assert!(
                e.contains("not a NumPy .npy array") && e.contains(want),
                "{want}: {e}"
            );
        }
        // A structured dtype is named as Python writes it.
        let rec = image(
            1,
            "{'descr': [('a', '<i2')], 'fortran_order': False, 'shape': (2,), }",
            &two,
        );
        let e = decode_as(&rec, "s16[2]").unwrap_err().0;
        assert!(e.contains("holds dtype [('a', '<i2')]"), "{e}");
        // A bool byte that is neither 0 nor 1.
        let b = image(
            1,
            "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
            &[1, 2],
        );
        let e = decode_as(&b, "pred[2]").unwrap_err().0;
        assert!(e.contains("no bool value"), "{e}");
    }

    #[test]
    fn written_headers_end_on_64_bytes_and_long_ones_take_version_2() {
        for dims in [vec![], vec![3], vec![2, 3], vec![1; 30], vec![7; 30000]] {
            let rank = dims.len();
            let h = header_bytes("<f4", &dims);
            assert_eq!(h.len() % 64, 0, "rank {rank}");
            assert_eq!(*h.last().unwrap(), b'\n');
            let parsed = Header::parse(&h).unwrap();
            assert_eq!(parsed.data, h.len());
            assert_eq!(
                parsed.shape,
                dims.iter().map(|&d| d as u64).collect::<Vec<_>>()
            );
            // 30000 dimensions are 90000 characters, past version 1's 65535.
            assert_eq!(h[6], if rank > 5000 { 2 } else { 1 }, "rank {rank}");
        }
    }

    #[test]
    fn results_are_named_out_i_with_nested_tuples_flattened() {
        let l = parse_literal("(f32[] 1, (s32[] 2, s32[] 3))").unwrap();
        let names: Vec<String> = result_arrays(&l, "out")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["out0", "out1_0", "out1_1"]);
        let l = parse_literal("f32[] 1").unwrap();
        assert_eq!(result_arrays(&l, "out")[0].0, "out0");
    }
}
