//! Every data-movement op on every element type, checked element by element against the index
//! formulas of the Operation Semantics chapter (read through `Scalar`, one element at a time).

use crate::eval::{RunOptions, run};
use crate::hlo::parse_literal;
use crate::literal::{Array, ArrayData, Literal, Scalar};
use crate::types::ElementType;
use crate::verify::parse_and_verify;

fn sample(ty: ElementType, dims: Vec<i64>, base: i64) -> Array {
    let shape = crate::shape::ArrayShape::new(ty, dims);
    let n = shape.element_count();
    let mut data = ArrayData::zeros(ty, n);
    for k in 0..n {
        let v = base + k as i64;
        let s = if ty.is_pred() {
            Scalar::Pred(v % 2 == 1)
        } else {
            Scalar::from_f64(ty, v as f64)
        };
        data.set(k, s).unwrap();
    }
    Array::from_data(shape, data).unwrap()
}

fn run_text(src: &str, args: Vec<Literal>) -> crate::error::Result<Literal> {
    let m = parse_and_verify(src)?;
    run(&m, args, &RunOptions::default()).map(|o| o.result)
}

/// Checks `got` element by element against `want(index)`.
fn check(name: &str, got: &Literal, dims: &[i64], want: impl Fn(&[i64]) -> Scalar) {
    let a = got.as_array().unwrap();
    assert_eq!(a.dims(), dims, "{name}: dims");
    let n: i64 = dims.iter().product();
    for k in 0..n {
        let mut idx = vec![0i64; dims.len()];
        let mut r = k;
        for d in (0..dims.len()).rev() {
            idx[d] = r % dims[d];
            r /= dims[d];
        }
        let (g, w) = (a.get(&idx), want(&idx));
        assert!(g.bits_eq(&w), "{name} at {idx:?}: got {g:?}, want {w:?}");
    }
}

#[test]
fn every_op_on_every_element_type() {
    for ty in ElementType::ALL {
        let t = ty.name();
        let src = format!(
            "HloModule m
ENTRY e {{
  p = {t}[2,3] parameter(0)
  z = {t}[] parameter(1)
  i = s32[] constant(1)
  big = s32[] constant(99)
  tr = {t}[3,2] transpose(p), dimensions={{1,0}}
  rv = {t}[2,3] reverse(p), dimensions={{1}}
  sl = {t}[1,2] slice(p), slice={{[1:2], [0:3:2]}}
  bc = {t}[2,4,3] broadcast(p), dimensions={{0,2}}
  pd = {t}[3,6] pad(p, z), padding=1_0x-1_2_1
  cc = {t}[4,3] concatenate(p, p), dimensions={{0}}
  ds = {t}[1,2] dynamic-slice(p, i, i), dynamic_slice_sizes={{1,2}}
  du = {t}[2,3] dynamic-update-slice(p, sl, big, i)
  rs = {t}[3,2] reshape(p)
  cp = {t}[2,3]{{0,1}} copy(p)
  bt = {t}[6] bitcast(cp)
  ROOT r = ({t}[3,2], {t}[2,3], {t}[1,2], {t}[2,4,3], {t}[3,6], {t}[4,3], {t}[1,2], {t}[2,3], {t}[3,2], {t}[6]) tuple(tr, rv, sl, bc, pd, cc, ds, du, rs, bt)
}}
"
        );
        let p = sample(ty, vec![2, 3], 1);
        let z = sample(ty, vec![], 0);
        let out = run_text(
            &src,
            vec![Literal::Array(p.clone()), Literal::Array(z.clone())],
        )
        .unwrap_or_else(|e| panic!("{t}: {e}"));
        let r = out.as_tuple().unwrap();
        let pv = |i: i64, j: i64| p.get(&[i, j]);
        let zv = z.get(&[]);
        check(&format!("{t} transpose"), &r[0], &[3, 2], |x| {
            pv(x[1], x[0])
        });
        check(&format!("{t} reverse"), &r[1], &[2, 3], |x| {
            pv(x[0], 2 - x[1])
        });
        check(&format!("{t} slice"), &r[2], &[1, 2], |x| pv(1, 2 * x[1]));
        check(&format!("{t} broadcast"), &r[3], &[2, 4, 3], |x| {
            pv(x[0], x[2])
        });
        check(&format!("{t} pad"), &r[4], &[3, 6], |x| {
            // Row: lo 1. Column: interior 1 then lo -1: operand column j sits at 2j - 1.
            let (i, c) = (x[0] - 1, x[1] + 1);
            if i >= 0 && c % 2 == 0 && c / 2 < 3 {
                pv(i, c / 2)
            } else {
                zv
            }
        });
        check(&format!("{t} concatenate"), &r[5], &[4, 3], |x| {
            pv(x[0] % 2, x[1])
        });
        check(&format!("{t} dynamic-slice"), &r[6], &[1, 2], |x| {
            pv(1, 1 + x[1])
        });
        check(&format!("{t} dynamic-update-slice"), &r[7], &[2, 3], |x| {
            // Start (99, 1) clamps to (1, 1); the update is the slice {p[1,0], p[1,2]}.
            if x[0] == 1 && x[1] >= 1 {
                pv(1, 2 * (x[1] - 1))
            } else {
                pv(x[0], x[1])
            }
        });
        check(&format!("{t} reshape"), &r[8], &[3, 2], |x| {
            let k = x[0] * 2 + x[1];
            pv(k / 3, k % 3)
        });
        // The copy is column-major, so the bitcast reads memory order: p[0,0], p[1,0], p[0,1]...
        check(&format!("{t} bitcast"), &r[9], &[6], |x| {
            pv(x[0] % 2, x[0] / 2)
        });
    }
}

#[test]
fn iota_wraps_and_rounds_like_xla() {
    let out = run_text(
        "HloModule m\nENTRY e {\n  a = u8[300] iota(), iota_dimension=0\n  b = s16[40000] iota(), iota_dimension=0\n  c = f16[70000] iota(), iota_dimension=0\n  ROOT t = (u8[300], s16[40000], f16[70000]) tuple(a, b, c)\n}\n",
        vec![],
    )
    .unwrap();
    let t = out.as_tuple().unwrap();
    let a = t[0].as_array().unwrap().typed::<u8>().unwrap();
    assert_eq!((a[255], a[256], a[299]), (255, 0, 43));
    let b = t[1].as_array().unwrap().typed::<i16>().unwrap();
    assert_eq!((b[32767], b[32768], b[39999]), (32767, -32768, -25537));
    let c = t[2].as_array().unwrap().typed::<half::f16>().unwrap();
    assert_eq!(c[65504].to_f32(), 65504.0);
    assert!(c[69999].is_infinite());
}

#[test]
fn errors_are_typed_not_panics() {
    // A reshape of a dynamic value into a static shape that its actual size cannot fill.
    let e = run_text(
        "HloModule m\nENTRY e {\n  p = f32[<=4] parameter(0)\n  ROOT r = f32[<=2,2] reshape(p)\n}\n",
        vec![parse_literal("f32[3]{0} {1, 2, 3}").unwrap()],
    )
    .unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("reshape.dynamic_sizes"));
    // Slice from a dynamic dimension into a static declared result.
    let e = run_text(
        "HloModule m\nENTRY e {\n  p = f32[<=4] parameter(0)\n  ROOT r = f32[2] slice(p), slice={[0:2]}\n}\n",
        vec![],
    )
    .unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("movement.dynamic_result"));
}
