//! Scatters whose updates are computed as they are read (`fused::mapped`): which ones, and that
//! they give what the op-by-op evaluation gives.

use super::*;

fn module(body: &str) -> Module {
    parse_and_verify(&format!(
        "HloModule m
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
addb {{
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}}
put {{
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}}
max {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}}
ENTRY e {{
{body}
}}
"
    ))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn index(m: &Module, name: &str) -> usize {
    m.entry()
        .instructions
        .iter()
        .position(|x| x.name == name)
        .unwrap()
}

/// `rows` x `cols` values whose sums depend on their order: large and small magnitudes mixed.
fn rows(rows: usize, cols: usize) -> Literal {
    let v = (0..rows * cols)
        .map(|i| match i % 7 {
            0 => 1.0e8,
            3 => -1.0e8,
            k => (i % 1000) as f32 * 0.37 + k as f32,
        })
        .collect();
    Literal::vec(vec![rows as i64, cols as i64], v).unwrap()
}

/// Row ids: repeats, and some out of range (negative or past the end), whose windows are skipped.
fn ids(n: usize, limit: i32) -> Literal {
    let v = (0..n as i32)
        .map(|i| match i % 11 {
            5 => -1,
            9 => limit + 3,
            _ => (i * 37) % limit,
        })
        .collect();
    Literal::vec(vec![n as i64, 1], v).unwrap()
}

const SEGMENT_SUM: &str = "  x = f32[1024,128] parameter(0)
  i = s32[1024,1] parameter(1)
  z = f32[] constant(0)
  zeros = f32[64,128] broadcast(z), dimensions={}
  c = f32[] constant(2.5)
  cb = f32[1024,128] broadcast(c), dimensions={}
  u = f32[1024,128] multiply(x, cb)
  ROOT s = f32[64,128] scatter(zeros, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add";

#[test]
fn a_scatters_only_element_wise_producer_is_computed_as_it_is_read() {
    let m = module(SEGMENT_SUM);
    let plan = Plan::new(m.entry(), true);
    let s = index(&m, "s");
    let mu = plan.mapped_updates(s).expect("mapped");
    assert_eq!(mu.inst, index(&m, "u"));
    assert_eq!(mu.op, crate::hlo::opcode::BinaryOp::Multiply);
    assert_eq!(
        mu.args,
        [
            crate::eval::fused::mapped::Arg::Array(index(&m, "x")),
            crate::eval::fused::mapped::Arg::Splat(index(&m, "c"))
        ]
    );
    // Neither the producer nor its broadcast is evaluated; what it reads lives until the scatter.
    assert_eq!(plan.role[index(&m, "u")], Role::Skipped);
    assert_eq!(plan.role[index(&m, "cb")], Role::Skipped);
    assert!(plan.groups.is_empty());
    assert_eq!(plan.last_use[index(&m, "x")], s);
    assert_eq!(plan.last_use[index(&m, "c")], s);
    assert!(Plan::new(m.entry(), false).mapped.is_empty());

    let out = same_for(&m, vec![rows(1024, 128), ids(1024, 64)]);
    // Row 0 gathers the updates of positions 0, 64, 128, ... whose ids are 0 (37 i = 0 mod 64).
    let x = rows(1024, 128);
    let xv = x.as_array().unwrap().typed::<f32>().unwrap();
    let mut want = 0f32;
    for i in 0..1024usize {
        if i % 11 != 5 && i % 11 != 9 && (i * 37) % 64 == 0 {
            want += xv[i * 128 + 3] * 2.5;
        }
    }
    assert_eq!(out.as_array().unwrap().typed::<f32>().unwrap()[3], want);
}

#[test]
fn a_producer_with_other_readers_or_few_elements_is_evaluated_first() {
    // Read by the root too: it is stored, and the scatter reads it.
    let shared = SEGMENT_SUM.replace("ROOT s = f32[64,128] scatter", "s = f32[64,128] scatter")
        + "\n  ROOT t = (f32[64,128], f32[1024,128]) tuple(s, u)";
    let m = module(&shared);
    let plan = Plan::new(m.entry(), true);
    assert!(plan.mapped.iter().all(Option::is_none));
    same_for(&m, vec![rows(1024, 128), ids(1024, 64)]);
    // Too few elements to be worth it.
    let small = SEGMENT_SUM
        .replace("1024,", "256,")
        .replace("s32[1024,1]", "s32[256,1]");
    let m = module(&small);
    assert!(
        Plan::new(m.entry(), true)
            .mapped
            .iter()
            .all(Option::is_none)
    );
}

/// Every mapped case against the op-by-op evaluation: the scalar on the left of a subtraction,
/// runs longer than a buffer (`RUN_PIECE`), BF16 rounding in the producer, integers with the
/// combiner that replaces, windows strided in the operand, and an interpreted combiner (which
/// evaluates the producer in full first).
#[test]
fn mapped_updates_match_the_op_by_op_scatter() {
    let long_rows = "  x = f32[64,2048] parameter(0)
  i = s32[64,1] parameter(1)
  o = f32[16,2048] parameter(2)
  c = f32[] constant(0.75)
  cb = f32[64,2048] broadcast(c), dimensions={}
  u = f32[64,2048] subtract(cb, x)
  ROOT s = f32[16,2048] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add";
    let m = module(long_rows);
    assert!(
        Plan::new(m.entry(), true)
            .mapped_updates(index(&m, "s"))
            .is_some()
    );
    let out = same_for(&m, vec![rows(64, 2048), ids(64, 16), rows(16, 2048)]);
    // Column 2047 of row 1: ids of 64 positions ((37 i) mod 16 == 1 for i = 13, 29, 45, 61;
    // 13 and 61 are skipped by the pattern (i mod 11 == 2, 6: kept; check by computing).
    let (x, o) = (rows(64, 2048), rows(16, 2048));
    let xv = x.as_array().unwrap().typed::<f32>().unwrap();
    let mut want = o.as_array().unwrap().typed::<f32>().unwrap()[2048 + 2047];
    for i in 0..64usize {
        if i % 11 != 5 && i % 11 != 9 && (i * 37) % 16 == 1 {
            want += 0.75 - xv[i * 2048 + 2047];
        }
    }
    assert_eq!(
        out.as_array().unwrap().typed::<f32>().unwrap()[2048 + 2047],
        want
    );

    let bf16 = "  x = f32[1024,128] parameter(0)
  xb = bf16[1024,128] convert(x)
  i = s32[1024,1] parameter(1)
  z = bf16[] constant(0)
  zeros = bf16[64,128] broadcast(z), dimensions={}
  c = bf16[] constant(1.1)
  cb = bf16[1024,128] broadcast(c), dimensions={}
  u = bf16[1024,128] multiply(xb, cb)
  ROOT s = bf16[64,128] scatter(zeros, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=addb";
    let m = module(bf16);
    assert!(
        Plan::new(m.entry(), true)
            .mapped_updates(index(&m, "s"))
            .is_some()
    );
    same_for(&m, vec![rows(1024, 128), ids(1024, 64)]);

    let ints = "  x = s32[1024,128] parameter(0)
  y = s32[1024,128] parameter(1)
  i = s32[1024,1] parameter(2)
  o = s32[64,128] parameter(3)
  u = s32[1024,128] multiply(x, y)
  ROOT s = s32[64,128] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=put";
    let m = module(ints);
    assert!(
        Plan::new(m.entry(), true)
            .mapped_updates(index(&m, "s"))
            .is_some()
    );
    let int = |n: usize, seed: i32| {
        let v = (0..n as i32)
            .map(|k| k.wrapping_mul(seed) ^ (k >> 3))
            .collect();
        Literal::vec(vec![(n / 128) as i64, 128], v).unwrap()
    };
    let out = same_for(
        &m,
        vec![
            int(1024 * 128, 40503),
            int(1024 * 128, -7919),
            ids(1024, 64),
            int(64 * 128, 3),
        ],
    );
    // Replacing: each row holds its last update (position 960 for row 0: 960 * 37 % 64 == 0,
    // and 960 % 11 == 3, kept), wrapped.
    let last = (0..1024usize)
        .rev()
        .find(|&k| k % 11 != 5 && k % 11 != 9 && (k * 37) % 64 == 0)
        .unwrap();
    let e = (last * 128 + 7) as i32;
    let want = (e.wrapping_mul(40503) ^ (e >> 3)).wrapping_mul(e.wrapping_mul(-7919) ^ (e >> 3));
    assert_eq!(out.as_array().unwrap().typed::<i32>().unwrap()[7], want);

    // Columns of the operand: each window is strided (600 elements apart).
    let columns = "  x = f32[600,128] parameter(0)
  y = f32[600,128] parameter(1)
  i = s32[600,1] parameter(2)
  o = f32[128,600] parameter(3)
  u = f32[600,128] add(x, y)
  ROOT s = f32[128,600] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add";
    let m = module(columns);
    assert!(
        Plan::new(m.entry(), true)
            .mapped_updates(index(&m, "s"))
            .is_some()
    );
    same_for(
        &m,
        vec![
            rows(600, 128),
            rows(600, 128),
            ids(600, 600),
            rows(128, 600),
        ],
    );

    // An interpreted combiner.
    let maxed = SEGMENT_SUM.replace("to_apply=add", "to_apply=max");
    let m = module(&maxed);
    assert!(
        Plan::new(m.entry(), true)
            .mapped_updates(index(&m, "s"))
            .is_some()
    );
    same_for(&m, vec![rows(1024, 128), ids(1024, 64)]);
}
