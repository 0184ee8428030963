//! The value types an attribute can have (integers, lists, windows, dimension labels, shapes,
//! literals, computations, ...) and the enumerations, each with its decoder and printer
//! (`AttrType`).

use super::*;

impl AttrType for i64 {
    const WHAT: &'static str = "an integer";
    fn from_raw(v: RawValue) -> std::result::Result<i64, String> {
        match v {
            RawValue::Int(x) => Ok(x),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let _ = write!(w.out, "{self}");
    }
}

impl AttrType for bool {
    const WHAT: &'static str = "true or false";
    fn from_raw(v: RawValue) -> std::result::Result<bool, String> {
        match v {
            RawValue::Bool(b) => Ok(b),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let _ = write!(w.out, "{self}");
    }
}

impl AttrType for f32 {
    const WHAT: &'static str = "a number";
    fn from_raw(v: RawValue) -> std::result::Result<f32, String> {
        match v {
            RawValue::Float(x) => Ok(x as f32),
            RawValue::Int(x) => Ok(x as f32),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        w.push(&crate::literal::text::format_float_f64(*self as f64));
    }
}

impl AttrType for String {
    const WHAT: &'static str = "a string";
    fn from_raw(v: RawValue) -> std::result::Result<String, String> {
        match v {
            RawValue::Str(s) => Ok(s),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        w.push(&quote(self));
    }
}

/// A string as HLO text writes it: quoted, with `\`, `"` and newlines escaped.
pub fn quote(s: &str) -> String {
    format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

impl AttrType for Vec<i64> {
    const WHAT: &'static str = "an integer list {a,b,...}";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<i64>, String> {
        match v {
            RawValue::Ints(x) => Ok(x),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        w.push(&int_list(self));
    }
}

fn int_list(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", items.join(","))
}

impl AttrType for Vec<Vec<i64>> {
    const WHAT: &'static str = "a list of integer lists {{a,b},{c}}";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<Vec<i64>>, String> {
        match v {
            RawValue::IntLists(x) => Ok(x),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let items: Vec<String> = self.iter().map(|g| int_list(g)).collect();
        let _ = write!(w.out, "{{{}}}", items.join(","));
    }
}

impl AttrType for Vec<(i64, i64)> {
    const WHAT: &'static str = "a list of pairs {{a,b},{c,d}}";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<(i64, i64)>, String> {
        match v {
            RawValue::IntLists(x) => x
                .into_iter()
                .map(|p| match p[..] {
                    [a, b] => Ok((a, b)),
                    _ => Err(format!("{} is not a pair", int_list(&p))),
                })
                .collect(),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let items: Vec<String> = self.iter().map(|(a, b)| format!("{{{a},{b}}}")).collect();
        let _ = write!(w.out, "{{{}}}", items.join(","));
    }
}

/// A reference to a sub-computation (`to_apply=%add`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comp(pub CompId);

impl AttrType for Comp {
    const WHAT: &'static str = "a computation";
    fn from_raw(v: RawValue) -> std::result::Result<Comp, String> {
        match v {
            RawValue::Comp(c) => Ok(Comp(c)),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let name = (w.computation_names)(self.0);
        let _ = write!(w.out, "%{name}");
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        out.push(self.0);
    }
}

impl AttrType for Vec<Comp> {
    const WHAT: &'static str = "a computation list {%a, %b}";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<Comp>, String> {
        match v {
            RawValue::Comps(c) => Ok(c.into_iter().map(Comp).collect()),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let names: Vec<String> = self
            .iter()
            .map(|c| format!("%{}", (w.computation_names)(c.0)))
            .collect();
        let _ = write!(w.out, "{{{}}}", names.join(", "));
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        out.extend(self.iter().map(|c| c.0));
    }
}

impl AttrType for Vec<SliceDim> {
    const WHAT: &'static str = "slice ranges {[start:limit:stride], ...}";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<SliceDim>, String> {
        match v {
            RawValue::Slice(s) => Ok(s),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let items: Vec<String> = self
            .iter()
            .map(|d| {
                if d.stride == 1 {
                    format!("[{}:{}]", d.start, d.limit)
                } else {
                    format!("[{}:{}:{}]", d.start, d.limit, d.stride)
                }
            })
            .collect();
        let _ = write!(w.out, "{{{}}}", items.join(", "));
    }
}

impl AttrType for Vec<PadDim> {
    const WHAT: &'static str = "a padding lo_hi_interior x ...";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<PadDim>, String> {
        match v {
            RawValue::Padding(p) => Ok(p),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let items: Vec<String> = self
            .iter()
            .map(|d| {
                if d.interior == 0 {
                    format!("{}_{}", d.lo, d.hi)
                } else {
                    format!("{}_{}_{}", d.lo, d.hi, d.interior)
                }
            })
            .collect();
        w.push(&items.join("x"));
    }
}

impl AttrType for Window {
    const WHAT: &'static str = "a window {size=... stride=... pad=...}";
    fn from_raw(v: RawValue) -> std::result::Result<Window, String> {
        match v {
            RawValue::Window(x) => Ok(x),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        w.push(&window_text(self));
    }
}

/// A window as HLO text writes it; fields at their defaults are left out.
pub fn window_text(w: &Window) -> String {
    let join = |f: &dyn Fn(&WindowDim) -> String| -> String {
        w.dims.iter().map(f).collect::<Vec<_>>().join("x")
    };
    let mut parts = vec![format!("size={}", join(&|d| d.size.to_string()))];
    if w.dims.iter().any(|d| d.stride != 1) {
        parts.push(format!("stride={}", join(&|d| d.stride.to_string())));
    }
    if w.dims.iter().any(|d| d.pad_lo != 0 || d.pad_hi != 0) {
        parts.push(format!(
            "pad={}",
            join(&|d| format!("{}_{}", d.pad_lo, d.pad_hi))
        ));
    }
    if w.dims.iter().any(|d| d.lhs_dilate != 1) {
        parts.push(format!(
            "lhs_dilate={}",
            join(&|d| d.lhs_dilate.to_string())
        ));
    }
    if w.dims.iter().any(|d| d.rhs_dilate != 1) {
        parts.push(format!(
            "rhs_dilate={}",
            join(&|d| d.rhs_dilate.to_string())
        ));
    }
    if w.dims.iter().any(|d| d.reversal) {
        parts.push(format!(
            "rhs_reversal={}",
            join(&|d| (d.reversal as i64).to_string())
        ));
    }
    format!("{{{}}}", parts.join(" "))
}

impl AttrType for ConvDims {
    const WHAT: &'static str = "dimension labels such as b01f_01io->b01f";
    fn from_raw(v: RawValue) -> std::result::Result<ConvDims, String> {
        match v {
            RawValue::ConvDims(d) => Ok(d),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        w.push(&dim_labels_text(self));
    }
}

/// Convolution dimension numbers as `dim_labels` text (`b01f_01io->b01f`).
pub fn dim_labels_text(d: &ConvDims) -> String {
    fn labels(n: usize, a: (usize, char), b: (usize, char), spatial: &[usize]) -> String {
        let mut v = vec!['?'; n];
        for (p, c) in [a, b] {
            if let Some(slot) = v.get_mut(p) {
                *slot = c;
            }
        }
        for (i, &p) in spatial.iter().enumerate() {
            if let Some(slot) = v.get_mut(p) {
                *slot = char::from_digit(i as u32, 10).unwrap_or('?');
            }
        }
        v.into_iter().collect()
    }
    let n = d.input_spatial.len() + 2;
    format!(
        "{}_{}->{}",
        labels(
            n,
            (d.input_batch, 'b'),
            (d.input_feature, 'f'),
            &d.input_spatial
        ),
        labels(
            n,
            (d.kernel_input_feature, 'i'),
            (d.kernel_output_feature, 'o'),
            &d.kernel_spatial
        ),
        labels(
            n,
            (d.output_batch, 'b'),
            (d.output_feature, 'f'),
            &d.output_spatial
        )
    )
}

impl AttrType for Shape {
    const WHAT: &'static str = "a shape";
    fn from_raw(v: RawValue) -> std::result::Result<Shape, String> {
        match v {
            RawValue::Shape(s) => Ok(s),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let _ = write!(w.out, "{self}");
    }
}

impl AttrType for Vec<Shape> {
    const WHAT: &'static str = "a list of shapes {s0, s1, ...}";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<Shape>, String> {
        match v {
            RawValue::Shapes(s) => Ok(s),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let items: Vec<String> = self.iter().map(|s| s.to_string()).collect();
        let _ = write!(w.out, "{{{}}}", items.join(", "));
    }
}

impl AttrType for Literal {
    const WHAT: &'static str = "a literal with its shape";
    fn from_raw(v: RawValue) -> std::result::Result<Literal, String> {
        match v {
            RawValue::Literal(l) => Ok(l),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let _ = write!(w.out, "{self}");
    }
}

/// A value kept as the text it was written in (a `backend_config` the runtime does not read).
#[derive(Clone, Debug, PartialEq)]
pub struct Verbatim(pub String);

impl AttrType for Verbatim {
    const WHAT: &'static str = "a value";
    fn from_raw(v: RawValue) -> std::result::Result<Verbatim, String> {
        Ok(Verbatim(v.text()))
    }
    fn write(&self, w: &mut AttrWriter) {
        w.push(&self.0);
    }
}

impl<T: AttrType> AttrType for Option<T> {
    const WHAT: &'static str = T::WHAT;
    fn from_raw(v: RawValue) -> std::result::Result<Option<T>, String> {
        T::from_raw(v).map(Some)
    }
    fn write(&self, w: &mut AttrWriter) {
        if let Some(x) = self {
            x.write(w);
        }
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        if let Some(x) = self {
            x.comps(out);
        }
    }
}

impl AttrType for Vec<Precision> {
    const WHAT: &'static str = "a precision per operand {default,high}";
    const RULE: &'static str = ".operand_precision";
    fn from_raw(v: RawValue) -> std::result::Result<Vec<Precision>, String> {
        match v {
            RawValue::Words(ws) => ws
                .iter()
                .map(|s| {
                    Precision::from_text(&s.to_ascii_lowercase())
                        .ok_or_else(|| format!("{s:?} is not one of default, high, highest"))
                })
                .collect(),
            other => Err(format!("found {}", other.kind())),
        }
    }
    fn write(&self, w: &mut AttrWriter) {
        let items: Vec<&str> = self.iter().map(|p| p.text()).collect();
        let _ = write!(w.out, "{{{}}}", items.join(","));
    }
}

// ------------------------------------------------------------------------------ enumerations

attr_enum! {
    /// `direction=` of `compare`.
    pub enum ComparisonDirection ("a comparison direction", "compare.direction") {
        Eq = "EQ", Ne = "NE", Lt = "LT", Le = "LE", Gt = "GT", Ge = "GE",
    }
}

attr_enum! {
    /// `type=` of `compare`: how the operands are ordered.
    pub enum ComparisonType ("a comparison type", "compare.type") {
        Float = "FLOAT",
        TotalOrder = "TOTALORDER",
        Signed = "SIGNED",
        Unsigned = "UNSIGNED",
    }
}

attr_enum! {
    /// `fft_type=` of `fft`.
    pub enum FftType ("an FFT type", "fft.fft_type") {
        Fft = "FFT", Ifft = "IFFT", Rfft = "RFFT", Irfft = "IRFFT",
    }
}

attr_enum! {
    /// `distribution=` of `rng`.
    pub enum RngDistribution ("a distribution", "rng.distribution") {
        Uniform = "rng_uniform" | "RNG_UNIFORM", Normal = "rng_normal" | "RNG_NORMAL",
    }
}

attr_enum! {
    /// `algorithm=` of `rng-bit-generator`.
    pub enum RngAlgorithm ("an RNG algorithm", "rng-bit-generator.algorithm") {
        Default = "rng_default" | "RNG_DEFAULT",
        ThreeFry = "rng_three_fry" | "RNG_THREE_FRY",
        Philox = "rng_philox" | "RNG_PHILOX",
    }
}

attr_enum! {
    /// `transpose_a=` of `triangular-solve`.
    pub enum TransposeA ("NO_TRANSPOSE, TRANSPOSE or ADJOINT", "triangular-solve.transpose_a") {
        NoTranspose = "NO_TRANSPOSE", Transpose = "TRANSPOSE", Adjoint = "ADJOINT",
    }
}

attr_enum! {
    /// One entry of `operand_precision=`: a hint about how precisely a backend may compute; the
    /// reference computes every precision alike.
    pub enum Precision ("a precision", ".operand_precision") {
        Default = "default", High = "high", Highest = "highest",
    }
}

attr_enum! {
    /// `api_version=` of `custom-call`.
    pub enum CustomCallApiVersion ("a custom-call API version", "") {
        Original = "API_VERSION_ORIGINAL",
        StatusReturning = "API_VERSION_STATUS_RETURNING",
        StatusReturningUnified = "API_VERSION_STATUS_RETURNING_UNIFIED",
        TypedFfi = "API_VERSION_TYPED_FFI",
    }
}

attr_enum! {
    /// `schedule=` of `custom-call`: a scheduling hint with no effect on values.
    pub enum CustomCallSchedule ("a custom-call schedule", "") {
        None = "SCHEDULE_NONE", Latest = "SCHEDULE_LATEST", Earliest = "SCHEDULE_EARLIEST",
    }
}

attr_enum! {
    /// `algorithm=` of `dot`: the precision recipe a backend should use. The reference computes
    /// the product exactly as the operand types say, whatever the recipe.
    pub enum DotAlgorithm ("a dot algorithm", "") {
        AnyF8AnyF8F32 = "dot_any_f8_any_f8_f32",
        AnyF8AnyF8F32FastAccum = "dot_any_f8_any_f8_f32_fast_accum",
        F16F16F16 = "dot_f16_f16_f16",
        F16F16F32 = "dot_f16_f16_f32",
        Bf16Bf16Bf16 = "dot_bf16_bf16_bf16",
        Bf16Bf16F32 = "dot_bf16_bf16_f32",
        Bf16Bf16F32X3 = "dot_bf16_bf16_f32_x3",
        Bf16Bf16F32X6 = "dot_bf16_bf16_f32_x6",
        Bf16Bf16F32X9 = "dot_bf16_bf16_f32_x9",
        Tf32Tf32F32 = "dot_tf32_tf32_f32",
        Tf32Tf32F32X3 = "dot_tf32_tf32_f32_x3",
        F32F32F32 = "dot_f32_f32_f32",
        F64F64F64 = "dot_f64_f64_f64",
    }
}
