//! Prints a module back to HLO text. The output parses to the same module (the round trip is
//! property-tested): every instruction is written with its shape, sub-computations before their
//! users, and attributes in a fixed order.

use super::ast::*;
use super::attrs::AttrWriter;
pub use super::attrs::{dim_labels_text, window_text};
use super::opcode::{MovementOp, Op};
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
    if let Some((params, result)) = &m.entry_layout {
        let params: Vec<String> = params.iter().map(shape_text).collect();
        let _ = write!(
            out,
            ", entry_computation_layout={{({})->{}}}",
            params.join(", "),
            shape_text(result)
        );
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
        inst.opcode().name()
    );
    match &inst.op {
        Op::Movement(MovementOp::Constant(k)) => out.push_str(&literal_body(&k.literal)),
        Op::Movement(MovementOp::Parameter(p)) => {
            let _ = write!(out, "{}", p.number);
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
    let names = |id: CompId| {
        m.computations
            .get(id)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| format!("computation{id}"))
    };
    let mut w = AttrWriter {
        out,
        computation_names: &names,
    };
    inst.op.encode(&mut w);
    for e in &inst.extra {
        let _ = write!(out, ", {}={}", e.key, e.text);
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

/// The shape text of an instruction, for messages.
pub fn shape_text(s: &Shape) -> String {
    s.to_string()
}
