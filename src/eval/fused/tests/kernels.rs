//! Groups with unary ops, comparisons, selects and clamps run through chunk kernels
//! (`elementwise::Kernels`), with the op-by-op results.

use super::*;

/// The members of one group over `p` and `q` (type `t`, from the bits of `bits`-typed
/// parameters) and a splat `bs`: each of `unary` on `p`, compared with `q` in a rotating
/// direction (the last one also by the total order where `total`), each result chosen by its
/// comparison over the previous choice; a unary op of the splat alone, `is-finite` as a predicate
/// where `finite`, a select with a scalar predicate, a clamp between the splat and `q`, and a
/// select and a clamp whose operands are all the splat and the scalar predicate.
fn body(t: &str, bits: &str, n: usize, unary: &[&str], finite: bool, total: bool) -> String {
    let dirs = ["EQ", "NE", "LT", "LE", "GT", "GE"];
    let mut lines = vec![
        format!("  pb = {bits}[{n}] parameter(0)"),
        format!("  qb = {bits}[{n}] parameter(1)"),
        format!("  sb = {bits}[] parameter(2)"),
        "  k = pred[] parameter(3)".to_string(),
        format!("  pc = {t}[{n}] bitcast-convert(pb)"),
        format!("  qc = {t}[{n}] bitcast-convert(qb)"),
        format!("  p = {t}[{n}] reverse(pc), dimensions={{0}}"),
        format!("  q = {t}[{n}] reverse(qc), dimensions={{0}}"),
        format!("  s = {t}[] bitcast-convert(sb)"),
        format!("  bs = {t}[{n}] broadcast(s), dimensions={{}}"),
    ];
    // Unary ops whose operand is a splat: one element, for a whole chunk (on floats also a
    // function through F64, and one computed in two passes, which F16 and BF16 reach through F32).
    let splat_ops: &[&str] = if finite {
        &[unary[0], "tanh", "log-plus-one"]
    } else {
        &[unary[0]]
    };
    for (j, op) in splat_ops.iter().enumerate() {
        lines.push(format!("  ns{j} = {t}[{n}] {op}(bs)"));
    }
    let mut prev = "q".to_string();
    for (i, op) in unary.iter().enumerate() {
        let cmp = if total && i + 1 == unary.len() {
            format!("direction={}, type=TOTALORDER", dirs[i % 6])
        } else {
            format!("direction={}", dirs[i % 6])
        };
        lines.push(format!("  un{i} = {t}[{n}] {op}(p)"));
        lines.push(format!("  c{i} = pred[{n}] compare(un{i}, q), {cmp}"));
        lines.push(format!("  v{i} = {t}[{n}] select(c{i}, un{i}, {prev})"));
        prev = format!("v{i}");
    }
    for j in 0..splat_ops.len() {
        lines.push(format!("  s{j} = {t}[{n}] select(c{j}, ns{j}, {prev})"));
        prev = format!("s{j}");
    }
    if finite {
        lines.push(format!("  f = pred[{n}] is-finite({prev})"));
        lines.push(format!("  w = {t}[{n}] select(f, {prev}, ns0)"));
    } else {
        lines.push(format!("  w = {t}[{n}] select(c0, ns0, {prev})"));
    }
    lines.push(format!("  x = {t}[{n}] select(k, w, p)"));
    // Every operand a splat or a scalar, for a whole chunk.
    lines.push(format!("  o = {t}[{n}] select(k, bs, bs)"));
    lines.push(format!("  z = {t}[{n}] clamp(bs, o, bs)"));
    lines.push(format!("  y0 = {t}[{n}] clamp(bs, x, q)"));
    lines.push(format!("  y = {t}[{n}] select(c0, y0, z)"));
    let mid = format!("v{}", unary.len() / 2);
    lines.push(format!("  ROOT r = ({t}[{n}], {t}[{n}]) tuple(y, {mid})"));
    lines.join("\n")
}

/// Every unary op of the opcode table that the verifier accepts on `t` with a result of type
/// `t`, by its HLO name.
fn unary_ops(t: &str) -> Vec<&'static str> {
    use crate::hlo::opcode::{Family, Opcode};
    Opcode::ALL
        .iter()
        .filter(|op| op.family() == Family::Unary)
        .map(|op| op.name())
        .filter(|name| {
            let text = format!(
                "HloModule m\nENTRY e {{\n  p = {t}[4] parameter(0)\n  ROOT r = {t}[4] {name}(p)\n}}\n"
            );
            parse_and_verify(&text).is_ok()
        })
        .collect()
}

/// Groups of unary ops, comparisons (by the type's order and the total order), selects (array
/// and scalar predicates) and clamps run chunk by chunk, over several chunks and a ragged last
/// one, with unary ops of a splat: every result is the op-by-op one, for every unary op the
/// opcode table has on each type (`unary_ops`), on floats of four kinds (NaN, infinities and
/// signed zeros among the values) and on integers of three widths and both signs.
#[test]
fn groups_of_unary_compare_select_and_clamp_run_as_chunk_kernels() {
    let n = MIN_ELEMENTS + 3 * chunks::CHUNK / 2 + 1;
    let cases = [
        ("f32", "u32", true),
        ("f64", "u64", true),
        ("f16", "u16", true),
        ("bf16", "u16", true),
        ("s32", "u32", false),
        ("s8", "u8", false),
        ("u64", "u64", false),
    ];
    for (t, bits, float) in cases {
        let ops = &unary_ops(t)[..];
        // The table's floats reach every unary op but `is-finite` (whose result is PRED), `real`
        // and `imag` among them; signed integers six, unsigned four.
        let expected = match (float, t) {
            (true, _) => 22,
            (false, "u64") => 4,
            _ => 6,
        };
        assert_eq!(ops.len(), expected, "{t}: {ops:?}");
        let body = body(t, bits, n, ops, float, float);
        let (m, plan) = planned(&body);
        let group = plan
            .groups
            .iter()
            .find(|g| g.steps.len() > 3 * ops.len())
            .unwrap_or_else(|| panic!("{t}: no group holds the chain"));
        assert!(
            chunks::compile(m.entry(), group).is_some(),
            "{t}: the group runs tile by tile"
        );
        let lit = |all: Vec<u64>, dims: Vec<i64>| unsigned(bits, all, dims);
        let arg = |k: u64| lit((0..n).map(|i| mixed_bits(i, k)).collect(), vec![n as i64]);
        for (scalar, k) in [
            (2u64, true),
            (0x7fc0_0000_7fc0_7e00, false),
            (u64::MAX, true),
        ] {
            let args = vec![
                arg(1),
                arg(2),
                lit(vec![scalar], vec![]),
                Literal::scalar(k),
            ];
            same_either_way(&body, args);
        }
    }
}

/// Complex values through chunk kernels: unary ops on C64 (some giving F32), a comparison of
/// complex values and a select between them, with the op-by-op results.
#[test]
fn complex_members_run_as_chunk_kernels() {
    let n = MIN_ELEMENTS + chunks::CHUNK + 3;
    let body = format!(
        "  pb = u32[{n}] parameter(0)
  qb = u32[{n}] parameter(1)
  pc = f32[{n}] bitcast-convert(pb)
  qc = f32[{n}] bitcast-convert(qb)
  p = f32[{n}] reverse(pc), dimensions={{0}}
  q = f32[{n}] reverse(qc), dimensions={{0}}
  z = c64[{n}] complex(p, q)
  e = c64[{n}] exponential(z)
  r = c64[{n}] sqrt(z)
  c = pred[{n}] compare(e, r), direction=NE
  s = c64[{n}] select(c, e, r)
  a = f32[{n}] abs(s)
  re = f32[{n}] real(s)
  im = f32[{n}] imag(z)
  t = f32[{n}] add(a, re)
  ROOT u = f32[{n}] subtract(t, im)"
    );
    let (m, plan) = planned(&body);
    let group = plan
        .groups
        .iter()
        .find(|g| g.steps.len() == 10)
        .expect("no group holds the complex members");
    assert!(chunks::compile(m.entry(), group).is_some());
    let arg = |k: u64| {
        unsigned(
            "u32",
            (0..n).map(|i| mixed_bits(i, k)).collect(),
            vec![n as i64],
        )
    };
    same_either_way(&body, vec![arg(1), arg(2)]);
}
