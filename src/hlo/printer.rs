//! Prints a module back to HLO text. The output parses to the same module (the round trip is
//! property-tested): every instruction is written with its shape, sub-computations before their
//! users, and attributes in a fixed order.

use super::ast::*;
use super::opcode::Opcode;
use crate::literal::{Literal, text};
use crate::shape::Shape;
use std::fmt::Write;

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    let _ = write!(out, "HloModule {}", m.name);
    if let Some(r) = m.replica_count {
        let _ = write!(out, ", replica_count={r}");
    }
    if let Some(n) = m.num_partitions {
        let _ = write!(out, ", num_partitions={n}");
    }
    out.push_str("\n\n");
    for (id, c) in m.computations.iter().enumerate() {
        if id == m.entry {
            out.push_str("ENTRY ");
        }
        print_computation(&mut out, m, c);
        out.push('\n');
    }
    out
}

fn print_computation(out: &mut String, m: &Module, c: &Computation) {
    let _ = write!(out, "%{} (", c.name);
    for (i, p) in c.parameters().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}: {}", p.name, p.shape);
    }
    let _ = writeln!(out, ") -> {} {{", c.root().shape);
    for (id, inst) in c.instructions.iter().enumerate() {
        out.push_str("  ");
        if id == c.root {
            out.push_str("ROOT ");
        }
        print_instruction(out, m, c, inst);
        out.push('\n');
    }
    out.push_str("}\n");
}

pub fn print_instruction(out: &mut String, m: &Module, c: &Computation, inst: &Instruction) {
    let _ = write!(
        out,
        "%{} = {} {}(",
        inst.name,
        inst.shape,
        inst.opcode.name()
    );
    match inst.opcode {
        Opcode::Constant => {
            if let Some(l) = &inst.literal {
                out.push_str(&literal_body(l));
            }
        }
        Opcode::Parameter => {
            let _ = write!(out, "{}", inst.parameter_number.unwrap_or(0));
        }
        _ => {
            for (i, &o) in inst.operands.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('%');
                out.push_str(&c.instructions[o].name);
            }
        }
    }
    out.push(')');
    for a in &inst.attrs.0 {
        let _ = write!(out, ", {}={}", a.key, attr_text(m, &a.value));
    }
}

/// A constant's value without its shape, as `constant(...)` holds it.
fn literal_body(l: &Literal) -> String {
    match l {
        Literal::Array(a) => text::array_body(a),
        Literal::Tuple(t) => format!(
            "({})",
            t.iter().map(literal_body).collect::<Vec<_>>().join(", ")
        ),
        Literal::Token => String::new(),
    }
}

fn ints(v: &[i64]) -> String {
    format!(
        "{{{}}}",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    )
}

fn join_x(v: impl Iterator<Item = String>) -> String {
    v.collect::<Vec<_>>().join("x")
}

pub fn window_text(w: &Window) -> String {
    let mut parts = vec![format!(
        "size={}",
        join_x(w.dims.iter().map(|d| d.size.to_string()))
    )];
    if w.dims.iter().any(|d| d.stride != 1) {
        parts.push(format!(
            "stride={}",
            join_x(w.dims.iter().map(|d| d.stride.to_string()))
        ));
    }
    if w.dims.iter().any(|d| d.pad_lo != 0 || d.pad_hi != 0) {
        parts.push(format!(
            "pad={}",
            join_x(w.dims.iter().map(|d| format!("{}_{}", d.pad_lo, d.pad_hi)))
        ));
    }
    if w.dims.iter().any(|d| d.lhs_dilate != 1) {
        parts.push(format!(
            "lhs_dilate={}",
            join_x(w.dims.iter().map(|d| d.lhs_dilate.to_string()))
        ));
    }
    if w.dims.iter().any(|d| d.rhs_dilate != 1) {
        parts.push(format!(
            "rhs_dilate={}",
            join_x(w.dims.iter().map(|d| d.rhs_dilate.to_string()))
        ));
    }
    if w.dims.iter().any(|d| d.reversal) {
        parts.push(format!(
            "rhs_reversal={}",
            join_x(w.dims.iter().map(|d| (d.reversal as i64).to_string()))
        ));
    }
    format!("{{{}}}", parts.join(" "))
}

pub fn dim_labels_text(d: &ConvDims) -> String {
    fn labels(n: usize, a: (usize, char), b: (usize, char), spatial: &[usize]) -> String {
        let mut v = vec!['?'; n];
        v[a.0] = a.1;
        v[b.0] = b.1;
        for (i, &p) in spatial.iter().enumerate() {
            v[p] = char::from_digit(i as u32, 10).unwrap_or('?');
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

fn attr_text(m: &Module, v: &AttrValue) -> String {
    match v {
        AttrValue::Int(x) => x.to_string(),
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Float(x) => text::format_float_f64(*x),
        AttrValue::Ints(v) => ints(v),
        AttrValue::IntLists(v) => format!(
            "{{{}}}",
            v.iter().map(|x| ints(x)).collect::<Vec<_>>().join(",")
        ),
        AttrValue::Comp(c) => format!("%{}", m.computations[*c].name),
        AttrValue::Comps(cs) => {
            format!(
                "{{{}}}",
                cs.iter()
                    .map(|&c| format!("%{}", m.computations[c].name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        AttrValue::Slice(s) => format!(
            "{{{}}}",
            s.iter()
                .map(|d| if d.stride == 1 {
                    format!("[{}:{}]", d.start, d.limit)
                } else {
                    format!("[{}:{}:{}]", d.start, d.limit, d.stride)
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        AttrValue::Padding(p) => join_x(p.iter().map(|d| {
            if d.interior == 0 {
                format!("{}_{}", d.lo, d.hi)
            } else {
                format!("{}_{}_{}", d.lo, d.hi, d.interior)
            }
        })),
        AttrValue::Window(w) => window_text(w),
        AttrValue::ConvDims(d) => dim_labels_text(d),
        AttrValue::Str(s) => format!(
            "\"{}\"",
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        ),
        AttrValue::Enum(s) | AttrValue::Opaque(s) => s.clone(),
        AttrValue::Shape(s) => s.to_string(),
        AttrValue::Literal(l) => l.to_string(),
    }
}

/// The shape text of an instruction, for messages.
pub fn shape_text(s: &Shape) -> String {
    s.to_string()
}
