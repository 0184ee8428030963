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

mod header;
use header::{Header, MAGIC, Py};

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
mod tests;
