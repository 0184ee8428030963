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

mod payloads;
mod values;
pub use payloads::*;
pub use values::*;
