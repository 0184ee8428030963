//! Typed attributes. The parser reads each `key=value` once and decodes it into the types here,
//! one payload struct per op (or group of ops sharing attributes), so an instruction is a typed
//! op (`hlo::op::Op`) and nothing downstream looks an attribute up by name.
//!
//! A payload struct is declared with `op_attrs!`: each field names its HLO key, and either is
//! required or has a default. The macro writes the decoder (which rejects a missing required
//! attribute, a value of the wrong kind, and any attribute the op does not take) and the printer
//! (which writes every field that differs from its default, in declaration order), so the two
//! cannot drift apart.
//!
//! What the types cannot say (a dimension number in range for an operand's rank, a window of the
//! operand's rank, ...) the verifier proves.

use super::ast::CompId;
use super::parser::raw::{RawAttr, RawValue};
use crate::error::{Error, Location, Result};
use crate::literal::Literal;
use crate::shape::Shape;
pub use crate::shape::window::{ConvDims, Window, WindowDim};
use std::fmt::Write;

/// `[start:limit:stride]` of one dimension of a `slice`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceDim {
    pub start: i64,
    pub limit: i64,
    pub stride: i64,
}

/// `lo_hi_interior` of one dimension of a `pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PadDim {
    pub lo: i64,
    pub hi: i64,
    pub interior: i64,
}

/// A replica (or device) group list: `{{0,1},{2,3}}`, `{}` (all replicas in one group), or the
/// iota form `[2,2]<=[4]`, which the parser expands.
pub type ReplicaGroups = Vec<Vec<i64>>;

/// `{source, target}` pairs of collective-permute and of send/recv between replicas.
pub type SourceTargetPairs = Vec<(i64, i64)>;

// ------------------------------------------------------------------------------ the two traits

/// A value an attribute can hold: decoded from what the parser read, and written back as text.
pub trait AttrType: Sized + Clone + PartialEq {
    /// What the value is called in error messages (`an integer`, `a window`).
    const WHAT: &'static str;
    /// The rule a malformed value breaks: `hlo.attribute` when empty; a leading `.` is prefixed
    /// with the opcode (`.operand_precision` is `dot.operand_precision` on a dot).
    const RULE: &'static str = "";
    fn from_raw(v: RawValue) -> std::result::Result<Self, String>;
    fn write(&self, w: &mut AttrWriter);
    /// The sub-computations the value names.
    fn comps(&self, _out: &mut Vec<CompId>) {}
}

/// The attributes of one op: decoded from the instruction's attribute list, and printed back.
pub trait OpAttrs: Sized + Clone + PartialEq + std::fmt::Debug {
    fn decode(d: &mut Decoder) -> Result<Self>;
    fn encode(&self, w: &mut AttrWriter);
    /// The sub-computations the attributes name, in attribute order.
    fn comps(&self, _out: &mut Vec<CompId>) {}
}

/// Writes attribute values as HLO text; sub-computations are written by name.
pub struct AttrWriter<'a> {
    pub out: &'a mut String,
    pub computation_names: &'a dyn Fn(CompId) -> String,
}

impl AttrWriter<'_> {
    pub fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }
    /// Writes `, key=` and then the value.
    pub fn field<T: AttrType>(&mut self, key: &str, v: &T) {
        let _ = write!(self.out, ", {key}=");
        v.write(self);
    }
}

/// Hands an op's attributes to its `OpAttrs::decode` one key at a time, and afterwards refuses
/// whatever the op did not ask for (keeping the attributes every instruction may carry).
pub struct Decoder {
    op: &'static str,
    attrs: Vec<Option<RawAttr>>,
    asked: Vec<&'static str>,
    /// What `parameter(N)` or `constant(...)` wrote between the parentheses.
    paren: Paren,
    pub loc: Location,
}

/// The contents of the parentheses when they hold something other than operands.
#[derive(Clone, Debug, Default)]
pub enum Paren {
    #[default]
    Operands,
    Number(i64),
    Literal(Literal),
}

/// Attributes any instruction may carry. They do not change values: they are kept as written
/// and printed back.
pub const GENERIC_ATTRS: &[&str] = &[
    "sharding",
    "metadata",
    "frontend_attributes",
    "statistics",
    "control-predecessors",
    "origin",
    "backend_config",
    "result_accuracy",
    "parameter_replication",
    // Scheduling and buffer assignment of optimised modules.
    "async_execution_thread",
    "execution_thread",
    "output_to_operand_aliasing",
    "cross_program_prefetch_index",
];

/// A generic attribute as written: its key and its value's text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraAttr {
    pub key: String,
    pub text: String,
}

impl Decoder {
    pub fn new(op: &'static str, attrs: Vec<RawAttr>, paren: Paren, loc: Location) -> Decoder {
        Decoder {
            op,
            attrs: attrs.into_iter().map(Some).collect(),
            asked: vec![],
            paren,
            loc,
        }
    }

    fn take_raw(&mut self, key: &'static str) -> Option<RawAttr> {
        self.asked.push(key);
        self.attrs
            .iter_mut()
            .find(|a| a.as_ref().is_some_and(|a| a.key == key))
            .and_then(Option::take)
    }

    fn convert<T: AttrType>(&self, a: RawAttr) -> Result<T> {
        let key = a.key.clone();
        let rule = match T::RULE {
            "" => "hlo.attribute".to_string(),
            r if r.starts_with('.') => format!("{}{r}", self.op),
            r => r.to_string(),
        };
        T::from_raw(a.value).map_err(|m| {
            Error::invalid(
                &rule,
                format!("`{}` takes {} for `{key}`: {m}", self.op, T::WHAT),
            )
            .at_location(a.loc)
        })
    }

    /// A required attribute.
    pub fn req<T: AttrType>(&mut self, key: &'static str) -> Result<T> {
        match self.take_raw(key) {
            Some(a) => self.convert(a),
            None => Err(Error::invalid(
                "hlo.attribute",
                format!("`{}` needs the attribute `{key}`", self.op),
            )
            .at_location(self.loc)),
        }
    }

    /// An attribute with a default.
    pub fn or<T: AttrType>(&mut self, key: &'static str, default: T) -> Result<T> {
        match self.take_raw(key) {
            Some(a) => self.convert(a),
            None => Ok(default),
        }
    }

    /// The text of a generic attribute, without taking it (it stays on the instruction).
    pub fn generic_text(&self, key: &str) -> Option<String> {
        self.attrs
            .iter()
            .flatten()
            .find(|a| a.key == key)
            .map(|a| match &a.value {
                RawValue::Str(s) => s.clone(),
                RawValue::Opaque(s) => s.clone(),
                other => format!("{other:?}"),
            })
    }

    /// Ends decoding: generic attributes are returned to be kept; anything else is an attribute
    /// this op does not take.
    pub fn finish(self) -> Result<Vec<ExtraAttr>> {
        let mut extra = vec![];
        for a in self.attrs.into_iter().flatten() {
            if GENERIC_ATTRS.contains(&a.key.as_str()) {
                extra.push(ExtraAttr {
                    key: a.key,
                    text: a.value.text(),
                });
                continue;
            }
            let mut allowed = self.asked.clone();
            allowed.sort();
            allowed.dedup();
            return Err(Error::invalid(
                "hlo.attribute",
                format!(
                    "`{}` does not take the attribute `{}`{}",
                    self.op,
                    a.key,
                    if allowed.is_empty() {
                        String::new()
                    } else {
                        format!(" (it takes: {})", allowed.join(", "))
                    }
                ),
            )
            .at_location(a.loc));
        }
        Ok(extra)
    }
}

/// Declares an op's attribute struct: `field: Type = "key"` (required) or
/// `field: Type = "key" or DEFAULT`. The field order is the printing order.
macro_rules! op_attrs {
    ($(#[$m:meta])* pub struct $name:ident {
        $( $(#[$fm:meta])* pub $field:ident : $ty:ty = $key:literal $(or $def:expr)? ),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name { $( $(#[$fm])* pub $field: $ty, )* }

        impl OpAttrs for $name {
            fn decode(d: &mut Decoder) -> Result<Self> {
                Ok($name { $( $field: op_attrs!(@get d, $key $(, $def)?), )* })
            }
            fn encode(&self, w: &mut AttrWriter) {
                $( op_attrs!(@put w, self.$field, $key $(, $def)?); )*
            }
            fn comps(&self, out: &mut Vec<CompId>) {
                $( AttrType::comps(&self.$field, out); )*
            }
        }
    };
    (@get $d:ident, $key:literal) => { $d.req($key)? };
    (@get $d:ident, $key:literal, $def:expr) => { $d.or($key, $def)? };
    (@put $w:ident, $v:expr, $key:literal) => { $w.field($key, &$v) };
    (@put $w:ident, $v:expr, $key:literal, $def:expr) => {
        if differs(&$v, $def) { $w.field($key, &$v) }
    };
}

/// Whether a field differs from its default (a function, so the default's type is the field's).
fn differs<T: PartialEq>(v: &T, default: T) -> bool {
    *v != default
}

/// Declares an enumerated attribute value with its HLO spellings (the first is printed; the others
/// are accepted, as XLA's parser accepts them).
macro_rules! attr_enum {
    ($(#[$m:meta])* pub enum $name:ident ($what:literal, $rule:literal) {
        $( $(#[$vm:meta])* $variant:ident = $text:literal $(| $alt:literal)* ),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $( $(#[$vm])* $variant, )* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            pub fn text(self) -> &'static str {
                match self { $( $name::$variant => $text, )* }
            }
            pub fn from_text(s: &str) -> Option<$name> {
                match s { $( $text $(| $alt)* => Some($name::$variant), )* _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.text())
            }
        }

        impl AttrType for $name {
            const WHAT: &'static str = $what;
            const RULE: &'static str = $rule;
            fn from_raw(v: RawValue) -> std::result::Result<Self, String> {
                match v {
                    RawValue::Word(s) => $name::from_text(&s).ok_or_else(|| {
                        format!(
                            "{s:?} is not one of {}",
                            $name::ALL.iter().map(|x| x.text()).collect::<Vec<_>>().join(", ")
                        )
                    }),
                    other => Err(format!("found {}", other.kind())),
                }
            }
            fn write(&self, w: &mut AttrWriter) {
                w.push(self.text());
            }
        }
    };
}

// ------------------------------------------------------------------------------ value types

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

// ------------------------------------------------------------------------------ payloads

op_attrs! {
    /// `iota`.
    pub struct IotaAttrs {
        pub dimension: i64 = "iota_dimension",
    }
}

op_attrs! {
    /// `get-tuple-element`.
    pub struct IndexAttrs {
        pub index: i64 = "index",
    }
}

op_attrs! {
    /// `broadcast`: operand dimension `i` becomes result dimension `dimensions[i]`.
    pub struct BroadcastAttrs {
        pub dimensions: Vec<i64> = "dimensions" or vec![],
    }
}

op_attrs! {
    /// `reshape`.
    pub struct ReshapeAttrs {
        pub inferred_dimension: Option<i64> = "inferred_dimension" or None,
    }
}

op_attrs! {
    /// Ops that name dimensions: transpose, reverse, concatenate, get/set-dimension-size.
    pub struct DimsAttrs {
        pub dimensions: Vec<i64> = "dimensions",
    }
}

op_attrs! {
    /// `slice`.
    pub struct SliceAttrs {
        pub slice: Vec<SliceDim> = "slice",
    }
}

op_attrs! {
    /// `dynamic-slice`.
    pub struct DynamicSliceAttrs {
        pub sizes: Vec<i64> = "dynamic_slice_sizes",
    }
}

op_attrs! {
    /// `pad`.
    pub struct PadAttrs {
        pub padding: Vec<PadDim> = "padding",
    }
}

op_attrs! {
    /// `compare`.
    pub struct CompareAttrs {
        pub direction: ComparisonDirection = "direction",
        pub compare_type: Option<ComparisonType> = "type" or None,
    }
}

op_attrs! {
    /// `reduce-precision`.
    pub struct ReducePrecisionAttrs {
        pub exponent_bits: i64 = "exponent_bits",
        pub mantissa_bits: i64 = "mantissa_bits",
    }
}

op_attrs! {
    /// `reduce`.
    pub struct ReduceAttrs {
        pub dimensions: Vec<i64> = "dimensions",
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `reduce-window` (an omitted window is the empty window of a rank-0 operand).
    pub struct ReduceWindowAttrs {
        pub window: Window = "window" or Window::default(),
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `select-and-scatter`.
    pub struct SelectAndScatterAttrs {
        pub window: Window = "window" or Window::default(),
        pub select: Comp = "select",
        pub scatter: Comp = "scatter",
    }
}

op_attrs! {
    /// `map`.
    pub struct MapAttrs {
        pub dimensions: Option<Vec<i64>> = "dimensions" or None,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `sort`.
    pub struct SortAttrs {
        pub dimensions: Vec<i64> = "dimensions",
        pub is_stable: bool = "is_stable" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `topk`.
    pub struct TopKAttrs {
        pub k: i64 = "k",
        pub largest: bool = "largest" or true,
    }
}

op_attrs! {
    /// `gather`.
    pub struct GatherAttrs {
        pub offset_dims: Vec<i64> = "offset_dims",
        pub collapsed_slice_dims: Vec<i64> = "collapsed_slice_dims",
        pub start_index_map: Vec<i64> = "start_index_map",
        pub operand_batching_dims: Vec<i64> = "operand_batching_dims" or vec![],
        pub start_indices_batching_dims: Vec<i64> = "start_indices_batching_dims" or vec![],
        pub index_vector_dim: i64 = "index_vector_dim",
        pub slice_sizes: Vec<i64> = "slice_sizes",
        pub indices_are_sorted: bool = "indices_are_sorted" or false,
    }
}

op_attrs! {
    /// `scatter`.
    pub struct ScatterAttrs {
        pub update_window_dims: Vec<i64> = "update_window_dims",
        pub inserted_window_dims: Vec<i64> = "inserted_window_dims",
        pub scatter_dims_to_operand_dims: Vec<i64> = "scatter_dims_to_operand_dims",
        pub input_batching_dims: Vec<i64> = "input_batching_dims" or vec![],
        pub scatter_indices_batching_dims: Vec<i64> = "scatter_indices_batching_dims" or vec![],
        pub index_vector_dim: i64 = "index_vector_dim",
        pub indices_are_sorted: bool = "indices_are_sorted" or false,
        pub unique_indices: bool = "unique_indices" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `dot`.
    pub struct DotAttrs {
        pub lhs_batch_dims: Vec<i64> = "lhs_batch_dims" or vec![],
        pub lhs_contracting_dims: Vec<i64> = "lhs_contracting_dims" or vec![],
        pub rhs_batch_dims: Vec<i64> = "rhs_batch_dims" or vec![],
        pub rhs_contracting_dims: Vec<i64> = "rhs_contracting_dims" or vec![],
        pub operand_precision: Vec<Precision> = "operand_precision" or vec![],
        pub algorithm: Option<DotAlgorithm> = "algorithm" or None,
    }
}

op_attrs! {
    /// `convolution` (an omitted window is the kernel's size with unit strides).
    pub struct ConvolutionAttrs {
        pub window: Option<Window> = "window" or None,
        pub dim_labels: ConvDims = "dim_labels",
        pub feature_group_count: i64 = "feature_group_count" or 1,
        pub batch_group_count: i64 = "batch_group_count" or 1,
        pub operand_precision: Vec<Precision> = "operand_precision" or vec![],
    }
}

/// `call`. With `is_composite=true` the call stands for a named composite operation whose
/// decomposition is the callee; its name, attributes and version travel in the frontend
/// attributes `composite.name`, `composite.attributes` and `composite.version`, checked here as
/// XLA's `ShapeVerifier::HandleCall` checks them.
#[derive(Clone, Debug, PartialEq)]
pub struct CallAttrs {
    pub to_apply: Comp,
    pub is_composite: bool,
    pub composite: Option<Composite>,
}

/// What a composite call says about the operation it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct Composite {
    pub name: String,
    /// The attribute dictionary as written (XLA keeps it as MLIR attribute text); `{}` when absent.
    pub attributes: String,
    /// 0 when absent.
    pub version: i64,
}

impl OpAttrs for CallAttrs {
    fn decode(d: &mut Decoder) -> Result<CallAttrs> {
        let to_apply = d.req("to_apply")?;
        let is_composite = d.or("is_composite", false)?;
        let composite = if is_composite {
            let text = d.generic_text("frontend_attributes").unwrap_or_default();
            Some(composite(&text).map_err(|(rule, m)| Error::invalid(rule, m).at_location(d.loc))?)
        } else {
            None
        };
        Ok(CallAttrs {
            to_apply,
            is_composite,
            composite,
        })
    }
    fn encode(&self, w: &mut AttrWriter) {
        w.field("to_apply", &self.to_apply);
        if self.is_composite {
            w.field("is_composite", &true);
        }
        // The composite's name, attributes and version are printed with the frontend
        // attributes they came from.
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        AttrType::comps(&self.to_apply, out);
    }
}

/// Splits a frontend-attributes text `{k=v,k="v",k={...}}` into its entries, values unquoted.
/// Commas inside braces or quotes belong to the value.
fn frontend_entries(text: &str) -> Vec<(String, String)> {
    let body = text.trim();
    let body = body
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .unwrap_or(body);
    let mut parts = vec![];
    let (mut depth, mut quoted, mut escaped, mut start) = (0i64, false, false, 0);
    for (i, ch) in body.char_indices() {
        match ch {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts
        .into_iter()
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .unwrap_or(v);
            Some((k.trim().to_string(), v.to_string()))
        })
        .collect()
}

fn composite(text: &str) -> std::result::Result<Composite, (&'static str, String)> {
    let entries = frontend_entries(text);
    let get = |k: &str| {
        entries
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let name = get("composite.name").unwrap_or_default();
    if name.is_empty() {
        return Err((
            "call.composite_name",
            "a composite call needs the frontend attribute composite.name, not empty".into(),
        ));
    }
    let attributes = match get("composite.attributes") {
        Some(a) if a.is_empty() => {
            return Err((
                "call.composite_attributes",
                "composite.attributes may not be empty (write {} for none)".into(),
            ));
        }
        Some(a) => a,
        None => "{}".to_string(),
    };
    let version = match get("composite.version") {
        Some(v) => v.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
            (
                "call.composite_version",
                format!("composite.version must be a non-negative integer, got {v:?}"),
            )
        })?,
        None => 0,
    };
    Ok(Composite {
        name,
        attributes,
        version,
    })
}

attr_enum! {
    /// `kind=` of `fusion`: how XLA plans to emit the fused kernel (no effect on values).
    pub enum FusionKind ("a fusion kind (kLoop, kInput, kOutput or kCustom)", "fusion.kind") {
        Loop = "kLoop",
        Input = "kInput",
        Output = "kOutput",
        Custom = "kCustom",
    }
}

op_attrs! {
    /// `fusion`: a call of the fused computation, as XLA's fusion passes write it.
    pub struct FusionAttrs {
        pub kind: FusionKind = "kind",
        pub calls: Comp = "calls",
    }
}

op_attrs! {
    /// `async-start`: starts the wrapped computation; `async-done` waits for its result.
    pub struct AsyncStartAttrs {
        pub calls: Comp = "calls",
    }
}

op_attrs! {
    /// `while`.
    pub struct WhileAttrs {
        pub condition: Comp = "condition",
        pub body: Comp = "body",
    }
}

/// `conditional`: a pred selector picks between two computations, an s32 index among a list.
#[derive(Clone, Debug, PartialEq)]
pub enum Branches {
    TrueFalse(Comp, Comp),
    Indexed(Vec<Comp>),
}

impl OpAttrs for Branches {
    fn decode(d: &mut Decoder) -> Result<Branches> {
        let t: Option<Comp> = d.or("true_computation", None)?;
        let f: Option<Comp> = d.or("false_computation", None)?;
        let b: Option<Vec<Comp>> = d.or("branch_computations", None)?;
        match (t, f, b) {
            (Some(t), Some(f), None) => Ok(Branches::TrueFalse(t, f)),
            (None, None, Some(b)) => Ok(Branches::Indexed(b)),
            _ => Err(Error::invalid(
                "conditional.computations",
                "a conditional takes either true_computation and false_computation, or branch_computations={...}",
            )
            .at_location(d.loc)),
        }
    }
    fn encode(&self, w: &mut AttrWriter) {
        match self {
            Branches::TrueFalse(t, f) => {
                w.field("true_computation", t);
                w.field("false_computation", f);
            }
            Branches::Indexed(b) => w.field("branch_computations", b),
        }
    }
    fn comps(&self, out: &mut Vec<CompId>) {
        match self {
            Branches::TrueFalse(t, f) => out.extend([t.0, f.0]),
            Branches::Indexed(b) => out.extend(b.iter().map(|c| c.0)),
        }
    }
}

op_attrs! {
    /// `custom-call`. Besides the target, the attributes say how XLA may schedule the call, how
    /// operands must be laid out, and carry whatever configuration the target reads.
    pub struct CustomCallAttrs {
        pub target: String = "custom_call_target",
        pub api_version: Option<CustomCallApiVersion> = "api_version" or None,
        pub has_side_effect: bool = "custom_call_has_side_effect" or false,
        pub operand_layouts: Option<Vec<Shape>> = "operand_layout_constraints" or None,
        pub called_computations: Vec<Comp> = "called_computations" or vec![],
        pub to_apply: Option<Comp> = "to_apply" or None,
        pub output_to_operand_aliasing: Option<Verbatim> = "output_to_operand_aliasing" or None,
        pub schedule: Option<CustomCallSchedule> = "schedule" or None,
        pub literal: Option<Literal> = "literal" or None,
        pub window: Option<Window> = "window" or None,
        pub dim_labels: Option<ConvDims> = "dim_labels" or None,
        pub feature_group_count: Option<i64> = "feature_group_count" or None,
        pub batch_group_count: Option<i64> = "batch_group_count" or None,
        pub operand_precision: Vec<Precision> = "operand_precision" or vec![],
        pub backend_config: Option<Verbatim> = "backend_config" or None,
    }
}

op_attrs! {
    /// `infeed`.
    pub struct InfeedAttrs {
        pub config: Option<String> = "infeed_config" or None,
    }
}

op_attrs! {
    /// `outfeed`.
    pub struct OutfeedAttrs {
        pub shape: Option<Shape> = "outfeed_shape" or None,
        pub config: Option<String> = "outfeed_config" or None,
    }
}

/// `send`, `recv`, `send-done`, `recv-done`: the channel, and, from the frontend attribute
/// `_xla_send_recv_source_target_pairs` XLA uses for transfers between replicas, the pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelAttrs {
    pub channel_id: Option<i64>,
    pub is_host_transfer: bool,
    /// `None` when the frontend attribute is absent: the channel stays within each replica.
    pub source_target_pairs: Option<SourceTargetPairs>,
}

/// The frontend attribute naming the replicas a send or recv connects.
pub const SEND_RECV_PAIRS: &str = "_xla_send_recv_source_target_pairs";

impl OpAttrs for ChannelAttrs {
    fn decode(d: &mut Decoder) -> Result<ChannelAttrs> {
        let channel_id = d.or("channel_id", None)?;
        let is_host_transfer = d.or("is_host_transfer", false)?;
        let source_target_pairs = match d.generic_text("frontend_attributes") {
            Some(text) => send_recv_pairs(&text)
                .map_err(|m| Error::invalid("channel.source_target_pairs", m).at_location(d.loc))?,
            None => None,
        };
        Ok(ChannelAttrs {
            channel_id,
            is_host_transfer,
            source_target_pairs,
        })
    }
    fn encode(&self, w: &mut AttrWriter) {
        if let Some(c) = self.channel_id {
            w.field("channel_id", &c);
        }
        if self.is_host_transfer {
            w.field("is_host_transfer", &true);
        }
        // The pairs are printed with the frontend attributes they came from.
    }
}

/// Reads `_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"` out of a frontend-attributes text.
fn send_recv_pairs(text: &str) -> std::result::Result<Option<SourceTargetPairs>, String> {
    let Some(at) = text.find(SEND_RECV_PAIRS) else {
        return Ok(None);
    };
    let rest = &text[at + SEND_RECV_PAIRS.len()..];
    let bad =
        || format!("{SEND_RECV_PAIRS} must be a string of pairs such as \"{{{{0,1}},{{1,0}}}}\"");
    let body = rest
        .trim_start()
        .strip_prefix('=')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('"'))
        .and_then(|r| r.split('"').next())
        .ok_or_else(bad)?;
    let mut pairs = vec![];
    for group in body.split('}') {
        let nums: Vec<&str> = group
            .split(|c: char| c == '{' || c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .collect();
        match nums.as_slice() {
            [] => {}
            [a, b] => pairs.push((
                a.parse::<i64>().map_err(|_| bad())?,
                b.parse::<i64>().map_err(|_| bad())?,
            )),
            _ => return Err(bad()),
        }
    }
    Ok(Some(pairs))
}

op_attrs! {
    /// `batch-norm-training`, `batch-norm-inference`, `batch-norm-grad`.
    pub struct BatchNormAttrs {
        pub epsilon: f32 = "epsilon",
        pub feature_index: i64 = "feature_index",
    }
}

op_attrs! {
    /// `cholesky`.
    pub struct CholeskyAttrs {
        pub lower: bool = "lower" or false,
    }
}

op_attrs! {
    /// `triangular-solve`.
    pub struct TriangularSolveAttrs {
        pub left_side: bool = "left_side" or false,
        pub lower: bool = "lower" or false,
        pub unit_diagonal: bool = "unit_diagonal" or false,
        /// Required by XLA's verifier; absent, it is refused with the op's rule.
        pub transpose_a: Option<TransposeA> = "transpose_a" or None,
    }
}

op_attrs! {
    /// `fft`.
    pub struct FftAttrs {
        pub fft_type: FftType = "fft_type",
        pub fft_length: Vec<i64> = "fft_length",
    }
}

op_attrs! {
    /// `rng`.
    pub struct RngAttrs {
        pub distribution: RngDistribution = "distribution",
    }
}

op_attrs! {
    /// `rng-bit-generator`.
    pub struct RngBitGeneratorAttrs {
        pub algorithm: RngAlgorithm = "algorithm" or RngAlgorithm::Default,
    }
}

op_attrs! {
    /// `rng-get-and-update-state`.
    pub struct RngStateAttrs {
        pub delta: i64 = "delta",
    }
}

op_attrs! {
    /// `all-reduce`.
    pub struct AllReduceAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub channel_id: Option<i64> = "channel_id" or None,
        pub use_global_device_ids: bool = "use_global_device_ids" or false,
        pub constrain_layout: bool = "constrain_layout" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `all-gather`.
    pub struct AllGatherAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub dimensions: Vec<i64> = "dimensions",
        pub channel_id: Option<i64> = "channel_id" or None,
        pub use_global_device_ids: bool = "use_global_device_ids" or false,
        pub constrain_layout: bool = "constrain_layout" or false,
    }
}

op_attrs! {
    /// `all-to-all` (without `dimensions`, the tuple form: operand `i` goes to group member `i`).
    pub struct AllToAllAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub dimensions: Option<Vec<i64>> = "dimensions" or None,
        pub channel_id: Option<i64> = "channel_id" or None,
        pub constrain_layout: bool = "constrain_layout" or false,
    }
}

op_attrs! {
    /// `reduce-scatter`.
    pub struct ReduceScatterAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub dimensions: Vec<i64> = "dimensions",
        pub channel_id: Option<i64> = "channel_id" or None,
        pub use_global_device_ids: bool = "use_global_device_ids" or false,
        pub constrain_layout: bool = "constrain_layout" or false,
        pub to_apply: Comp = "to_apply",
    }
}

op_attrs! {
    /// `collective-permute`.
    pub struct CollectivePermuteAttrs {
        pub source_target_pairs: SourceTargetPairs = "source_target_pairs",
        pub channel_id: Option<i64> = "channel_id" or None,
    }
}

op_attrs! {
    /// `collective-broadcast`.
    pub struct CollectiveBroadcastAttrs {
        pub replica_groups: Option<ReplicaGroups> = "replica_groups" or None,
        pub channel_id: Option<i64> = "channel_id" or None,
    }
}

/// `parameter(N)`: the number is written in the parentheses, not as an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParameterAttrs {
    pub number: i64,
}

impl OpAttrs for ParameterAttrs {
    fn decode(d: &mut Decoder) -> Result<ParameterAttrs> {
        match d.paren {
            Paren::Number(number) => Ok(ParameterAttrs { number }),
            _ => Err(Error::internal("parameter without a number").at_location(d.loc)),
        }
    }
    fn encode(&self, _: &mut AttrWriter) {}
}

/// `constant(...)`: the value is written in the parentheses.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantAttrs {
    pub literal: Literal,
}

impl OpAttrs for ConstantAttrs {
    fn decode(d: &mut Decoder) -> Result<ConstantAttrs> {
        match std::mem::take(&mut d.paren) {
            Paren::Literal(literal) => Ok(ConstantAttrs { literal }),
            _ => Err(Error::internal("constant without a literal").at_location(d.loc)),
        }
    }
    fn encode(&self, _: &mut AttrWriter) {}
}

impl ComparisonType {
    /// The comparison type `compare` uses when `type=` is absent: the element type's own order.
    pub fn default_for(ty: crate::types::ElementType) -> ComparisonType {
        use crate::types::Category;
        match ty.category() {
            Category::Float | Category::Complex => ComparisonType::Float,
            Category::Signed => ComparisonType::Signed,
            _ => ComparisonType::Unsigned,
        }
    }
}
