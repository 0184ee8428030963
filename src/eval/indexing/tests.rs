use crate::eval::{RunOptions, run};
use crate::hlo::parse_literal;
use crate::verify::parse_and_verify;

fn eval(hlo: &str, args: &[&str]) -> String {
    let m = parse_and_verify(hlo).unwrap_or_else(|e| panic!("{e}"));
    let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
    run(&m, args, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .result
        .to_string()
}

#[test]
fn row_gather_clamps_start_indices() {
    let hlo = "HloModule m\nENTRY e {\n  p = s32[3,3] parameter(0)\n  i = s32[3] parameter(1)\n  ROOT g = s32[3,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}\n}\n";
    let out = eval(
        hlo,
        &[
            "s32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}",
            "s32[3] {2, 9, -4}",
        ],
    );
    assert_eq!(out, "s32[3,3] {{7, 8, 9}, {7, 8, 9}, {1, 2, 3}}");
}

#[test]
fn gather_with_batching_dims() {
    // Per batch b, pick operand[b, idx[b]].
    let hlo = "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n  i = s64[2,1] parameter(1)\n  ROOT g = f32[2] gather(p, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}\n}\n";
    let out = eval(
        hlo,
        &["f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "s64[2,1] {{2}, {0}}"],
    );
    assert_eq!(out, "f32[2] {3, 4}");
}

#[test]
fn scatter_add_repeats_and_skips_out_of_bounds() {
    let hlo = "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[3,2] parameter(0)\n  i = s32[3] parameter(1)\n  u = f32[3,2] parameter(2)\n  ROOT s = f32[3,2] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n";
    let out = eval(
        hlo,
        &[
            "f32[3,2] {{1, 1}, {1, 1}, {1, 1}}",
            "s32[3] {2, 2, 3}",
            "f32[3,2] {{10, 20}, {100, 200}, {5, 5}}",
        ],
    );
    assert_eq!(out, "f32[3,2] {{1, 1}, {1, 1}, {111, 221}}");
}

#[test]
fn variadic_scatter_interprets_the_combiner() {
    let hlo = "HloModule m\ncomb {\n  a = s32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = f32[] parameter(3)\n  x = s32[] add(a, c)\n  y = f32[] multiply(b, d)\n  ROOT t = (s32[], f32[]) tuple(x, y)\n}\nENTRY e {\n  p = s32[4] parameter(0)\n  q = f32[4] parameter(1)\n  i = s32[3,1] parameter(2)\n  u = s32[3] parameter(3)\n  v = f32[3] parameter(4)\n  ROOT s = (s32[4], f32[4]) scatter(p, q, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb\n}\n";
    let out = eval(
        hlo,
        &[
            "s32[4] {0, 0, 0, 0}",
            "f32[4] {1, 1, 1, 1}",
            "s32[3,1] {{1}, {3}, {1}}",
            "s32[3] {5, 6, 7}",
            "f32[3] {2, 3, 4}",
        ],
    );
    assert_eq!(out, "(s32[4] {0, 12, 0, 6}, f32[4] {1, 8, 1, 3})");
}

#[test]
fn gather_collapsed_slice_size_zero_verifies_and_gives_zeros() {
    // XLA accepts a collapsed slice size of 0 or 1; the slices are empty, and XLA:CPU
    // (jaxlib 0.10.2) returns zeros for the result elements, whatever the start indices.
    let hlo = "HloModule m\nENTRY e {\n  p = f32[4,3] parameter(0)\n  i = s32[2,1] parameter(1)\n  ROOT g = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={0,3}\n}\n";
    let out = eval(
        hlo,
        &[
            "f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}",
            "s32[2,1] {{1}, {4}}",
        ],
    );
    assert_eq!(out, "f32[2,3] {{0, 0, 0}, {0, 0, 0}}");
    let wide = hlo.replace("slice_sizes={0,3}", "slice_sizes={2,3}");
    let err = parse_and_verify(&wide).unwrap_err();
    assert_eq!(
        err.rule.as_deref(),
        Some("gather.collapsed_slice_size"),
        "{err}"
    );
}

/// PRED updates added in take the typed loop, whose add is XLA's for PRED: logical or (an update
/// of `false` leaves a `true` alone, and repeated indices accumulate).
#[test]
fn scatter_add_of_pred_is_or() {
    let hlo = "HloModule m\nor {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n  ROOT s = pred[] add(a, b)\n}\nENTRY e {\n  p = pred[4] parameter(0)\n  i = s32[4,1] parameter(1)\n  u = pred[4] parameter(2)\n  ROOT s = pred[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=or\n}\n";
    let out = eval(
        hlo,
        &[
            "pred[4] {true, false, false, false}",
            "s32[4,1] {{0}, {1}, {1}, {3}}",
            "pred[4] {false, true, true, false}",
        ],
    );
    assert_eq!(out, "pred[4] {true, true, false, false}");
    let plan = super::scatter_plan(
        &[4],
        &crate::literal::Array::from_vec(vec![4, 1], vec![0i32, 1, 1, 3]).unwrap(),
        &[4],
        &super::ScatterDims {
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        },
    )
    .unwrap();
    let typed = super::scatter_fast(
        &crate::literal::ArrayData::Pred(vec![true, false, false, false].into()),
        &crate::literal::ArrayData::Pred(vec![false, true, true, false].into()),
        &plan,
        super::Combiner::Add,
    )
    .expect("PRED has a typed add");
    assert_eq!(
        crate::literal::NativeType::slice(&typed).map(<[bool]>::to_vec),
        Some(vec![true, true, false, false])
    );
}

/// The typed loops compute mapped updates themselves (`fused::mapped`), run by run, in every
/// shape of run: whole rows, rows clipped to a thread's range, and single elements. (Whether the
/// evaluator sends a scatter here is `fused`'s tests'; they compare with the op-by-op result.)
#[test]
fn mapped_updates_run_through_the_typed_loops() {
    use super::scatter::{Piece, scatter_fast_mapped};
    use super::{Combiner, ScatterDims, scatter_plan};
    use crate::eval::elementwise::binary_kernel;
    use crate::hlo::opcode::BinaryOp;
    use crate::literal::Array;
    use crate::types::ElementType;
    // 3 rows of 5 into an operand of 4 rows; the second index is out of range.
    let operand = Array::from_vec(vec![4, 5], (0..20).map(|i| i as f32).collect()).unwrap();
    let idx = Array::from_vec(vec![3, 1], vec![2i32, 7, 2]).unwrap();
    let x = Array::from_vec(vec![3, 5], (0..15).map(|i| 0.5 * i as f32).collect()).unwrap();
    let c = Array::from_vec(vec![], vec![3f32]).unwrap();
    let dims = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let plan = scatter_plan(operand.dims(), &idx, x.dims(), &dims).unwrap();
    let k = binary_kernel(BinaryOp::Subtract, ElementType::F32, ElementType::F32).unwrap();
    let args = [Piece::One(c.data.view()), Piece::Whole(x.data.view())];
    let out = scatter_fast_mapped(&operand.data, k, args, &plan, Combiner::Add).expect("typed");
    let got = crate::literal::NativeType::slice(&out).map(<[f32]>::to_vec);
    let mut want: Vec<f32> = (0..20).map(|i| i as f32).collect();
    // Positions 0 and 2 both land on row 2, in that order; position 1 is skipped.
    for u in [0usize, 2] {
        for j in 0..5 {
            want[10 + j] += 3.0 - 0.5 * (u * 5 + j) as f32;
        }
    }
    assert_eq!(got, Some(want));
    // Scalar updates (one element per window) replacing S32 values.
    let operand = Array::from_vec(vec![6], vec![0i32; 6]).unwrap();
    let idx = Array::from_vec(vec![4, 1], vec![5i32, 1, 5, -1]).unwrap();
    let x = Array::from_vec(vec![4], vec![10i32, 20, 30, 40]).unwrap();
    let y = Array::from_vec(vec![4], vec![1i32, 2, 3, 4]).unwrap();
    let dims = ScatterDims {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let plan = scatter_plan(operand.dims(), &idx, x.dims(), &dims).unwrap();
    let k = binary_kernel(BinaryOp::Multiply, ElementType::S32, ElementType::S32).unwrap();
    let args = [Piece::Whole(x.data.view()), Piece::Whole(y.data.view())];
    let out = scatter_fast_mapped(&operand.data, k, args, &plan, Combiner::Replace).unwrap();
    assert_eq!(
        crate::literal::NativeType::slice(&out).map(<[i32]>::to_vec),
        Some(vec![0, 40, 0, 0, 0, 90])
    );
}
