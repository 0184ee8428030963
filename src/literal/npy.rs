//! NumPy's `.npy` and `.npz` files as arguments and results.
//!
//! The format is NumPy's (`numpy.lib.format`): a header naming the dtype, the memory order and the
//! shape, then the raw elements. `ndarray-npy` parses headers and decodes the elements; this
//! module decides what a file must hold to be a given parameter, and refuses anything else with a
//! message naming the file and the parameter, since a silently converted argument would be a
//! wrong answer nobody asked for.
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
use ndarray::{ArrayD, ArrayViewD, IxDyn};
use ndarray_npy::{
    ReadDataError, ReadNpyExt, ReadableElement, WritableElement, WriteDataError, WriteNpyExt,
    npy::header::Header,
};
use py_literal::Value as PyValue;
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

/// Two-byte floats as `ndarray-npy` elements: it knows neither `half` type, and bf16 is stored
/// as a void dtype, so the bytes are decoded here (little-endian, or big-endian for `>f2`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct F16Npy(f16);
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Bf16Npy(bf16);

fn read_u16s<R: Read>(mut reader: R, len: usize, big: bool) -> std::io::Result<Vec<u16>> {
    let mut bytes = vec![0u8; len * 2];
    reader.read_exact(&mut bytes)?;
    let mut rest = [0u8; 1];
    if reader.read(&mut rest)? != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "extra bytes after the array's data",
        ));
    }
    Ok(bytes
        .chunks_exact(2)
        .map(|b| {
            let b = [b[0], b[1]];
            if big {
                u16::from_be_bytes(b)
            } else {
                u16::from_le_bytes(b)
            }
        })
        .collect())
}

macro_rules! two_byte_element {
    ($t:ident, $inner:ty, $write_desc:expr, [$($little:expr),*], [$($big:expr),*]) => {
        impl ReadableElement for $t {
            fn read_to_end_exact_vec<R: Read>(
                reader: R,
                type_desc: &PyValue,
                len: usize,
            ) -> std::result::Result<Vec<Self>, ReadDataError> {
                let big = match type_desc {
                    PyValue::String(s) if [$($little),*].contains(&s.as_str()) => false,
                    PyValue::String(s) if [$($big),*].contains(&s.as_str()) => true,
                    other => return Err(ReadDataError::WrongDescriptor(other.clone())),
                };
                Ok(read_u16s(reader, len, big)?
                    .into_iter()
                    .map(|b| $t(<$inner>::from_bits(b)))
                    .collect())
            }
        }

        impl WritableElement for $t {
            fn type_descriptor() -> PyValue {
                PyValue::String($write_desc.into())
            }
            fn write<W: Write>(&self, mut writer: W) -> std::result::Result<(), WriteDataError> {
                writer.write_all(&self.0.to_bits().to_le_bytes())?;
                Ok(())
            }
            fn write_slice<W: Write>(
                slice: &[Self],
                mut writer: W,
            ) -> std::result::Result<(), WriteDataError> {
                let bytes: Vec<u8> = slice.iter().flat_map(|x| x.0.to_bits().to_le_bytes()).collect();
                writer.write_all(&bytes)?;
                Ok(())
            }
        }
    };
}

two_byte_element!(F16Npy, f16, "<f2", ["<f2"], [">f2"]);
two_byte_element!(Bf16Npy, bf16, "<V2", ["<V2", "|V2"], []);

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

fn read_typed<T: ReadableElement + Copy>(bytes: &[u8]) -> std::result::Result<Vec<T>, String> {
    let a = ArrayD::<T>::read_npy(bytes).map_err(|e| e.to_string())?;
    read_standard(a)
}

/// As `read_typed`, for element types the file's bytes can be viewed as (native byte order, and
/// aligned, which NumPy's 64-byte header padding gives when the image is): the elements are
/// copied once, straight into a huge-page-backed vector (`pages::collect_fresh`), as NumPy's own
/// large arrays are. Others are decoded as `read_typed` does.
fn read_viewed<T>(bytes: &[u8]) -> std::result::Result<Vec<T>, String>
where
    T: ReadableElement + ndarray_npy::ViewElement + Copy + Send + 'static,
{
    use ndarray_npy::ViewNpyExt;
    match ArrayViewD::<T>::view_npy(bytes) {
        // A C-order file's data is the literal's, copied at once (ndarray's iterator over a
        // dynamic-rank view goes element by element, at a fraction of a copy's speed); else
        // the iteration order is the logical (row-major) one, whatever the file's order.
        Ok(v) => Ok(match v.as_slice() {
            Some(s) => super::pages::copy_fresh(s),
            None => super::pages::collect_fresh(v.iter().copied()),
        }),
        Err(_) => read_typed(bytes),
    }
}

fn read_standard<T: Copy>(a: ArrayD<T>) -> std::result::Result<Vec<T>, String> {
    Ok(if a.is_standard_layout() {
        a.into_raw_vec_and_offset().0
    } else {
        // Fortran order: the logical (row-major) order is the iteration order.
        a.iter().copied().collect()
    })
}

/// Decodes one `.npy` image as the value of `target`.
pub fn array_from_npy_bytes(bytes: &[u8], file: &str, target: &Target) -> Result<Array> {
    let want = array_target(target, file)?;
    let header = Header::from_reader(&mut &bytes[..])
        .map_err(|e| NpyError(format!("{file}: not a NumPy .npy array: {e}")))?;
    let (accepted, numpy) = descriptors(want.ty);
    let desc_ok =
        matches!(&header.type_descriptor, PyValue::String(s) if accepted.contains(&s.as_str()));
    if !desc_ok {
        return err(format!(
            "{file}: holds dtype {} but {target} needs {} ({numpy})",
            header.type_descriptor,
            accepted.first().copied().unwrap_or("none"),
        ));
    }
    let dims: Vec<i64> = header.shape.iter().map(|&d| d as i64).collect();
    let fits = dims.len() == want.dims.len()
        && dims
            .iter()
            .zip(&want.dims)
            .enumerate()
            .all(|(i, (&got, &w))| {
                if want.dynamic.get(i).copied().unwrap_or(false) {
                    got <= w
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
    use ElementType::*;
    let data = match want.ty {
        Pred => ArrayData::Pred(read_typed::<bool>(bytes).map_err(what)?.into()),
        S8 => ArrayData::S8(read_viewed::<i8>(bytes).map_err(what)?.into()),
        S16 => ArrayData::S16(read_viewed::<i16>(bytes).map_err(what)?.into()),
        S32 => ArrayData::S32(read_viewed::<i32>(bytes).map_err(what)?.into()),
        S64 => ArrayData::S64(read_viewed::<i64>(bytes).map_err(what)?.into()),
        U8 => ArrayData::U8(read_viewed::<u8>(bytes).map_err(what)?.into()),
        U16 => ArrayData::U16(read_viewed::<u16>(bytes).map_err(what)?.into()),
        U32 => ArrayData::U32(read_viewed::<u32>(bytes).map_err(what)?.into()),
        U64 => ArrayData::U64(read_viewed::<u64>(bytes).map_err(what)?.into()),
        F16 => ArrayData::F16(
            read_typed::<F16Npy>(bytes)
                .map_err(what)?
                .into_iter()
                .map(|x| x.0)
                .collect(),
        ),
        BF16 => ArrayData::BF16(
            read_typed::<Bf16Npy>(bytes)
                .map_err(what)?
                .into_iter()
                .map(|x| x.0)
                .collect(),
        ),
        F32 => ArrayData::F32(read_viewed::<f32>(bytes).map_err(what)?.into()),
        F64 => ArrayData::F64(read_viewed::<f64>(bytes).map_err(what)?.into()),
        C64 => ArrayData::C64(
            read_viewed::<num_complex::Complex<f32>>(bytes)
                .map_err(what)?
                .into(),
        ),
        C128 => ArrayData::C128(
            read_viewed::<num_complex::Complex<f64>>(bytes)
                .map_err(what)?
                .into(),
        ),
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

fn write_view<T: WritableElement, W: Write>(dims: &[usize], v: &[T], w: W) -> Result<()> {
    let view =
        ArrayViewD::from_shape(IxDyn(dims), v).map_err(|e| NpyError(format!("internal: {e}")))?;
    view.write_npy(w)
        .map_err(|e| NpyError(format!("cannot write the array: {e}")))
}

fn write_array<W: Write>(a: &Array, w: W) -> Result<()> {
    let dims: Vec<usize> = a.dims().iter().map(|&d| d as usize).collect();
    match &a.data {
        ArrayData::Pred(v) => write_view(&dims, v, w),
        ArrayData::S8(v) => write_view(&dims, v, w),
        ArrayData::S16(v) => write_view(&dims, v, w),
        ArrayData::S32(v) => write_view(&dims, v, w),
        ArrayData::S64(v) => write_view(&dims, v, w),
        ArrayData::U8(v) => write_view(&dims, v, w),
        ArrayData::U16(v) => write_view(&dims, v, w),
        ArrayData::U32(v) => write_view(&dims, v, w),
        ArrayData::U64(v) => write_view(&dims, v, w),
        ArrayData::F16(v) => {
            let v: Vec<F16Npy> = v.iter().map(|&x| F16Npy(x)).collect();
            write_view(&dims, &v, w)
        }
        ArrayData::BF16(v) => {
            let v: Vec<Bf16Npy> = v.iter().map(|&x| Bf16Npy(x)).collect();
            write_view(&dims, &v, w)
        }
        ArrayData::F32(v) => write_view(&dims, v, w),
        ArrayData::F64(v) => write_view(&dims, v, w),
        ArrayData::C64(v) => write_view(&dims, v, w),
        ArrayData::C128(v) => write_view(&dims, v, w),
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
