//! Which instructions fuse and which do not, and that a fused evaluation gives what the op-by-op
//! one gives. (`spec-tests/props/fusion.rs` compares the two on random programs.)

use super::*;
use crate::eval::{RunOptions, run};
use crate::hlo::ast::Module;
use crate::verify::parse_and_verify;

/// The entry computation's module and plan.
fn planned(body: &str) -> (Module, Plan) {
    let m = parse_and_verify(&format!("HloModule m\nENTRY e {{\n{body}\n}}\n")).unwrap();
    let plan = Plan::new(m.entry(), true);
    (m, plan)
}

fn names(m: &Module, v: impl IntoIterator<Item = usize>) -> Vec<String> {
    v.into_iter()
        .map(|i| m.entry().instructions[i].name.clone())
        .collect()
}

/// Each group's members and outputs, by name.
fn groups(body: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let (m, plan) = planned(body);
    plan.groups
        .iter()
        .map(|g| (names(&m, g.members()), names(&m, g.outputs.clone())))
        .collect()
}

fn role(body: &str, name: &str) -> Role {
    let (m, plan) = planned(body);
    let i = m
        .entry()
        .instructions
        .iter()
        .position(|x| x.name == name)
        .unwrap();
    plan.role[i]
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Runs `body` on `args` with fusion on and off; the results must be equal.
fn same_either_way(body: &str, args: Vec<Literal>) -> Literal {
    let m = parse_and_verify(&format!("HloModule m\nENTRY e {{\n{body}\n}}\n")).unwrap();
    same_for(&m, args)
}

/// Runs `m` on `args` with fusion on and off: the results must have the same shapes and the
/// same bits (any NaN matching any NaN).
fn same_for(m: &Module, args: Vec<Literal>) -> Literal {
    let on = run(m, args.clone(), &RunOptions::default()).unwrap().result;
    let off = RunOptions {
        fusion: false,
        ..RunOptions::default()
    };
    let off = run(m, args, &off).unwrap().result;
    let arrays = |l: &Literal| -> Vec<crate::literal::Array> {
        match l {
            Literal::Tuple(t) => t.iter().map(|x| x.as_array().unwrap().clone()).collect(),
            _ => vec![l.as_array().unwrap().clone()],
        }
    };
    for (a, b) in arrays(&on).iter().zip(arrays(&off)) {
        assert_eq!(a.shape, b.shape);
        for i in 0..a.len() {
            let (x, y) = (a.data.get(i), b.data.get(i));
            assert!(
                x.bits_eq(&y) || (x.is_nan() && y.is_nan()),
                "element {i}: {x:?} fused, {y:?} op by op"
            );
        }
    }
    on
}

mod kernels;
mod mapped;
mod rounds;

const N: usize = MIN_ELEMENTS;

fn ramp(n: usize) -> Literal {
    Literal::vec(
        vec![n as i64],
        (0..n).map(|i| i as f32 * 0.25 - 100.0).collect(),
    )
    .unwrap()
}

const CHAIN: &str = "  p = f32[65536] parameter(0)
  c = f32[] constant(2)
  b = f32[65536] broadcast(c), dimensions={}
  m = f32[65536] multiply(p, b)
  a = f32[65536] add(m, p)
  ROOT n = f32[65536] negate(a)";

#[test]
fn a_chain_with_a_broadcast_constant_is_one_group() {
    assert_eq!(groups(CHAIN), vec![(strs(&["m", "a", "n"]), strs(&["n"]))]);
    // The broadcast is read as its scalar, the members other than the last never run alone.
    assert_eq!(role(CHAIN, "b"), Role::Skipped);
    assert_eq!(role(CHAIN, "m"), Role::Skipped);
    assert_eq!(role(CHAIN, "a"), Role::Skipped);
    assert_eq!(role(CHAIN, "n"), Role::Runs(0));
    assert_eq!(role(CHAIN, "p"), Role::Alone);
    assert_eq!(role(CHAIN, "c"), Role::Alone);
    let (m, plan) = planned(CHAIN);
    let g = &plan.groups[0];
    assert_eq!(names(&m, g.fulls.clone()), strs(&["p"]));
    assert_eq!(names(&m, g.splats.clone()), strs(&["c"]));
    let out = same_either_way(CHAIN, vec![ramp(N)]);
    let v = out.as_array().unwrap().typed::<f32>().unwrap();
    assert_eq!(v[5], -((5.0 * 0.25 - 100.0) * 3.0));
}

#[test]
fn an_intermediate_read_by_a_non_member_before_the_end_stays_out() {
    let body = "  p = f32[65536] parameter(0)
  a = f32[65536] exponential(p)
  r = f32[65536] reverse(a), dimensions={0}
  b = f32[65536] multiply(a, a)
  ROOT c = f32[65536] add(b, r)";
    // `a` is needed by `reverse` before `c`, where the group runs.
    assert_eq!(groups(body), vec![(strs(&["b", "c"]), strs(&["c"]))]);
    assert_eq!(role(body, "a"), Role::Alone);
    assert_eq!(role(body, "r"), Role::Alone);
    let (m, plan) = planned(body);
    assert_eq!(names(&m, plan.groups[0].fulls.clone()), strs(&["a", "r"]));
    same_either_way(body, vec![ramp(N)]);
}

#[test]
fn a_member_read_after_the_group_is_another_output() {
    let body = "  p = f32[65536] parameter(0)
  a = f32[65536] exponential(p)
  b = f32[65536] negate(a)
  r = f32[65536] reverse(a), dimensions={0}
  ROOT t = (f32[65536], f32[65536]) tuple(b, r)";
    assert_eq!(groups(body), vec![(strs(&["a", "b"]), strs(&["a", "b"]))]);
    same_either_way(body, vec![ramp(N)]);
}

#[test]
fn a_value_used_twice_inside_the_group_is_computed_once_and_not_an_output() {
    let body = "  p = s32[65536] parameter(0)
  a = s32[65536] multiply(p, p)
  b = s32[65536] add(a, a)
  ROOT c = s32[65536] subtract(b, a)";
    assert_eq!(groups(body), vec![(strs(&["a", "b", "c"]), strs(&["c"]))]);
    let p = Literal::vec(vec![N as i64], (0..N as i32).collect()).unwrap();
    same_either_way(body, vec![p]);
}

#[test]
fn the_root_is_an_output_even_when_a_later_instruction_reads_it() {
    let body = "  p = f32[65536] parameter(0)
  a = f32[65536] exponential(p)
  ROOT b = f32[65536] negate(a)
  c = f32[65536] add(a, b)";
    // Nothing reads `c`, an op without effects: it is never computed (its read of `a` still
    // made `a` an output when the groups formed).
    assert_eq!(groups(body), vec![(strs(&["a", "b"]), strs(&["a", "b"]))]);
    assert_eq!(role(body, "c"), Role::Skipped);
    same_either_way(body, vec![ramp(N)]);
}

#[test]
fn different_dimensions_make_different_groups() {
    let body = "  p = f32[256,256] parameter(0)
  a = f32[256,256] exponential(p)
  b = f32[256,256] negate(a)
  r = f32[65536] reshape(b)
  c = f32[65536] sqrt(r)
  ROOT d = f32[65536] abs(c)";
    assert_eq!(
        groups(body),
        vec![
            (strs(&["a", "b"]), strs(&["b"])),
            (strs(&["c", "d"]), strs(&["d"]))
        ]
    );
    let p = Literal::vec(vec![256, 256], vec![0.5f32; N]).unwrap();
    same_either_way(body, vec![p]);
}

#[test]
fn small_arrays_are_left_op_by_op() {
    let body = "  p = f32[65535] parameter(0)
  a = f32[65535] exponential(p)
  ROOT b = f32[65535] negate(a)";
    assert!(groups(body).is_empty());
    assert_eq!(role(body, "a"), Role::Alone);
}

#[test]
fn non_elementwise_ops_are_never_members() {
    let body = "  p = f32[65536] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[65536] rng(lo, hi), distribution=rng_uniform
  a = f32[65536] add(p, r)
  z = f32[] constant(0)
  s = f32[] reduce(a, z), dimensions={0}, to_apply=sum
  sb = f32[65536] broadcast(s), dimensions={}
  ROOT b = f32[65536] multiply(a, sb)";
    let body = body.to_string();
    let m = parse_and_verify(&format!(
        "HloModule m\nsum {{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}}\nENTRY e {{\n{body}\n}}\n"
    ))
    .unwrap();
    let plan = Plan::new(m.entry(), true);
    let got: Vec<(Vec<String>, Vec<String>)> = plan
        .groups
        .iter()
        .map(|g| (names(&m, g.members()), names(&m, g.outputs.clone())))
        .collect();
    // `a` is read by the reduce before `b`: each is a lone op; only `b` (with its broadcast
    // operand) is worth a group.
    assert_eq!(got, vec![(strs(&["b"]), strs(&["b"]))]);
    let rng = m.entry().instructions.iter().position(|i| i.name == "r");
    assert_eq!(plan.role[rng.unwrap()], Role::Alone);
}

#[test]
fn readers_of_one_array_share_a_group() {
    let body = "  p = f32[65536] parameter(0)
  q = f32[65536] parameter(1)
  a = f32[65536] add(p, q)
  b = f32[65536] multiply(p, q)
  ROOT t = (f32[65536], f32[65536]) tuple(a, b)";
    assert_eq!(groups(body), vec![(strs(&["a", "b"]), strs(&["a", "b"]))]);
    same_either_way(body, vec![ramp(N), ramp(N)]);
}

#[test]
fn integer_iotas_are_generated_float_iotas_read() {
    let body = "  i = u32[65536] iota(), iota_dimension=0
  j = f32[65536] iota(), iota_dimension=0
  c = f32[65536] convert(i)
  ROOT s = f32[65536] add(c, j)";
    assert_eq!(groups(body), vec![(strs(&["c", "s"]), strs(&["s"]))]);
    assert_eq!(role(body, "i"), Role::Skipped);
    assert_eq!(role(body, "j"), Role::Alone);
    same_either_way(body, vec![]);
    // A second dimension: the value repeats along the later ones and wraps at the size.
    let body = "  i = s8[300,300] iota(), iota_dimension=0
  j = s8[300,300] iota(), iota_dimension=1
  ROOT s = s8[300,300] add(i, j)";
    assert_eq!(groups(body).len(), 1);
    same_either_way(body, vec![]);
}

#[test]
fn dynamic_dimensions_are_left_op_by_op() {
    let body = "  p = f32[<=65536] parameter(0)
  a = f32[<=65536] exponential(p)
  ROOT b = f32[<=65536] negate(a)";
    assert!(groups(body).is_empty());
}

#[test]
fn scalar_select_predicates_and_clamp_bounds_are_read_as_scalars() {
    let body = "  p = f32[65536] parameter(0)
  k = pred[] parameter(1)
  lo = f32[] constant(-3)
  hi = f32[] constant(5)
  n = f32[65536] negate(p)
  s = f32[65536] select(k, p, n)
  ROOT c = f32[65536] clamp(lo, s, hi)";
    let (m, plan) = planned(body);
    assert_eq!(plan.groups.len(), 1);
    assert_eq!(
        names(&m, plan.groups[0].scalars.clone()),
        strs(&["k", "lo", "hi"])
    );
    for k in [true, false] {
        same_either_way(body, vec![ramp(N), Literal::scalar(k)]);
    }
}

#[test]
fn layouts_do_not_change_which_element_is_which() {
    // Literals hold elements in logical order whatever the layout.
    let body = "  p = f32[256,300]{0,1} parameter(0)
  q = f32[256,300]{1,0} parameter(1)
  a = f32[256,300]{1,0} subtract(p, q)
  ROOT b = f32[256,300]{0,1} multiply(a, p)";
    assert_eq!(groups(body).len(), 1);
    let n = 256 * 300;
    let p = Literal::vec(vec![256, 300], (0..n).map(|i| i as f32).collect()).unwrap();
    let q = Literal::vec(vec![256, 300], (0..n).map(|i| (i % 7) as f32).collect()).unwrap();
    let (mut p, mut q) = (p.into_array().unwrap(), q.into_array().unwrap());
    p.shape.layout = Some(crate::shape::Layout::new(vec![0, 1]));
    q.shape.layout = Some(crate::shape::Layout::new(vec![1, 0]));
    same_either_way(body, vec![Literal::Array(p), Literal::Array(q)]);
}

#[test]
fn with_fusion_off_every_instruction_runs_alone() {
    let (m, _) = planned(CHAIN);
    let plan = Plan::new(m.entry(), false);
    assert!(plan.groups.is_empty());
    assert!(plan.role.iter().all(|r| *r == Role::Alone));
}

#[test]
fn a_loop_body_is_planned_once_and_fused_on_every_iteration() {
    let m = parse_and_verify(
        "HloModule m
cond {
  s = (s32[], f32[70000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[70000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[70000] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[70000] broadcast(h), dimensions={}
  y = f32[70000] multiply(x, hb)
  z = f32[70000] add(y, x)
  ROOT t = (s32[], f32[70000]) tuple(j, z)
}
ENTRY e {
  x = f32[70000] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[70000]) tuple(zero, x)
  ROOT w = (s32[], f32[70000]) while(t), condition=cond, body=body
}
",
    )
    .unwrap();
    let body = m.computation_by_name("body").unwrap();
    assert_eq!(Plan::new(&m.computations[body], true).groups.len(), 1);
    same_for(&m, vec![ramp(70000)]);
}

/// A member's error names that member, as the op-by-op path would. (No verified module makes an
/// element-wise op fail, so the group is handed an input of the wrong type.)
#[test]
fn a_members_error_names_it() {
    let (m, plan) = planned(CHAIN);
    let comp = m.entry();
    let mut values: Vec<Option<Literal>> = vec![None; comp.instructions.len()];
    let idx = |n: &str| comp.instructions.iter().position(|i| i.name == n).unwrap();
    values[idx("p")] = Some(Literal::vec(vec![N as i64], vec![1i32; N]).unwrap());
    values[idx("c")] = Some(Literal::scalar(2.0f32));
    let e = run_group(comp, &plan.groups[0], &mut values, &|_| false).unwrap_err();
    assert_eq!(e.instruction.as_deref(), Some("m"), "{e}");
}

#[test]
fn broadcasts_of_small_arrays_are_gathered_large_ones_read() {
    let body = "  p = f32[256,300] parameter(0)
  bias = f32[300] parameter(1)
  rows = s32[256,1] parameter(2)
  b = f32[256,300] broadcast(bias), dimensions={1}
  r = s32[256,300] broadcast(rows), dimensions={0,1}
  c = f32[256,300] convert(r)
  a = f32[256,300] add(p, b)
  ROOT m = f32[256,300] multiply(a, c)";
    assert_eq!(groups(body), vec![(strs(&["c", "a", "m"]), strs(&["m"]))]);
    assert_eq!(role(body, "b"), Role::Skipped);
    assert_eq!(role(body, "r"), Role::Skipped);
    let n = 256 * 300;
    let p = Literal::vec(vec![256, 300], (0..n).map(|i| i as f32 * 0.5).collect()).unwrap();
    let bias = Literal::vec(vec![300], (0..300).map(|i| i as f32 - 7.0).collect()).unwrap();
    let rows = Literal::vec(vec![256, 1], (0..256).map(|i| i * 3 - 11).collect()).unwrap();
    same_either_way(body, vec![p, bias, rows]);
    // An operand more than an eighth of the result's size is read as an array.
    let body = "  p = f32[256,300] parameter(0)
  q = f32[64,300] parameter(1)
  b = f32[4,64,300] broadcast(q), dimensions={1,2}
  r = f32[4,64,300] reshape(p)
  a = f32[4,64,300] add(r, b)
  ROOT m = f32[4,64,300] multiply(a, a)";
    let (m, plan) = planned(body);
    assert_eq!(names(&m, plan.groups[0].fulls.clone()), strs(&["r", "b"]));
}

/// Binary ops, comparisons, selects and clamps read rank-0 inputs as one-element views, in any
/// position, and a member whose operands are all such inputs still gets whole tiles: the
/// results are the op-by-op ones, element for element, over eight tiles and a short last one.
#[test]
fn splat_operands_on_either_side_and_on_both_give_the_op_by_op_results() {
    let n = MIN_ELEMENTS + 5;
    let body = format!(
        "  p = u32[{n}] parameter(0)
  s = u32[] parameter(1)
  t = u32[] parameter(2)
  bs = u32[{n}] broadcast(s), dimensions={{}}
  bt = u32[{n}] broadcast(t), dimensions={{}}
  l = u32[{n}] shift-left(p, bs)
  r = u32[{n}] shift-right-logical(bt, p)
  both = u32[{n}] subtract(bs, bt)
  lt = pred[{n}] compare(bs, p), direction=LT
  sel = u32[{n}] select(lt, bs, bt)
  cl = u32[{n}] clamp(bs, p, bt)
  cx = u32[{n}] clamp(p, bs, bt)
  x = u32[{n}] xor(l, r)
  y = u32[{n}] add(x, both)
  w = u32[{n}] add(cl, cx)
  v = u32[{n}] xor(y, w)
  ROOT z = u32[{n}] add(v, sel)"
    );
    let p = Literal::vec(
        vec![n as i64],
        (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 40)
            .collect(),
    )
    .unwrap();
    let out = same_either_way(
        &body,
        vec![
            p.clone(),
            Literal::scalar(7u32),
            Literal::scalar(0x8000_0001u32),
        ],
    );
    // One element worked out by hand: p = 0 (the first), shifts of 7 and of the constant.
    let (s, t) = (7u32, 0x8000_0001u32);
    // clamp(7, 0, t) = 7 and clamp(0, 7, t) = 7.
    let y = ((0u32 << s) ^ t).wrapping_add(s.wrapping_sub(t));
    let want = (y ^ (s + s)).wrapping_add(t);
    assert_eq!(
        out.as_array().unwrap().data.get(0),
        crate::literal::Scalar::U32(want)
    );
    let (m, plan) = planned(&body);
    assert_eq!(
        plan.groups.len(),
        1,
        "{:?}",
        names(&m, plan.groups[0].members())
    );
}

/// An input that the group is the last to read, and that nothing else holds, lends its buffer
/// to an output of its type: the output is written over it, tile by tile, only after every
/// member of the tile has read it (`m` reads `r` after `a`, the output it was lent to, is
/// computed). Inputs that live on, or that another value shares, keep their buffers.
#[test]
fn a_dying_input_lends_its_buffer_to_an_output_after_its_tile_is_read() {
    let n = MIN_ELEMENTS + 7;
    // Ops with chunk kernels (run chunk by chunk), then with a `convert` member, which has
    // none (run tile by tile).
    for chunked in [true, false] {
        let (tail, members, sign) = if chunked {
            (
                "  m0 = s32[{n}] multiply(a, r)\n  m = s32[{n}] negate(m0)",
                vec!["a", "m0", "m"],
                -1,
            )
        } else {
            (
                "  m0 = s32[{n}] multiply(a, r)\n  m = s32[{n}] convert(m0)",
                vec!["a", "m0", "m"],
                1,
            )
        };
        let body = format!(
            "  p = s32[{n}] parameter(0)
  r = s32[{n}] reverse(p), dimensions={{0}}
  one = s32[] constant(3)
  ob = s32[{n}] broadcast(one), dimensions={{}}
  a = s32[{n}] add(r, ob)
{}
  t = s32[{n}] reverse(a), dimensions={{0}}
  ROOT tu = (s32[{n}], s32[{n}]) tuple(t, m)",
            tail.replace("{n}", &n.to_string())
        );
        let (m, plan) = planned(&body);
        assert_eq!(groups(&body), vec![(strs(&members), strs(&["a", "m"]))]);
        let comp = m.entry();
        assert_eq!(chunks::compile(comp, &plan.groups[0]).is_some(), chunked);
        let idx = |s: &str| comp.instructions.iter().position(|i| i.name == s).unwrap();
        let r: Vec<i32> = (0..n as i32).map(|i| i * 7 - 1000).collect();
        let run_with = |dying: bool, shared: bool| {
            let mut values: Vec<Option<Literal>> = vec![None; comp.instructions.len()];
            let lit = Literal::vec(vec![n as i64], r.clone()).unwrap();
            let keep = shared.then(|| lit.clone());
            let ptr = lit.as_array().unwrap().typed::<i32>().unwrap().as_ptr();
            values[idx("r")] = Some(lit);
            values[idx("one")] = Some(Literal::scalar(3i32));
            let outs = run_group(comp, &plan.groups[0], &mut values, &|_| dying).unwrap();
            let out = |name: &str| {
                let (_, l) = outs.iter().find(|(o, _)| *o == idx(name)).unwrap();
                l.as_array().unwrap().typed::<i32>().unwrap()
            };
            let lent = out("a").as_ptr() == ptr;
            if let Some(k) = keep {
                assert_eq!(k.as_array().unwrap().typed::<i32>().unwrap(), &r[..]);
            }
            (
                out("a").to_vec(),
                out("m").to_vec(),
                lent,
                values[idx("r")].is_some(),
            )
        };
        let want_a: Vec<i32> = r.iter().map(|x| x + 3).collect();
        let want_m: Vec<i32> = r
            .iter()
            .map(|x| (x + 3).wrapping_mul(*x).wrapping_mul(sign))
            .collect();
        // Dying and unshared: lent to `a`, taken from the values, and `m` still saw `r`.
        assert_eq!(
            run_with(true, false),
            (want_a.clone(), want_m.clone(), true, false)
        );
        // Read later, or shared with another value: not lent, left in place and unchanged.
        assert_eq!(
            run_with(false, false),
            (want_a.clone(), want_m.clone(), false, true)
        );
        assert_eq!(run_with(true, true), (want_a, want_m, false, true));
        // And the whole program gives the op-by-op result.
        same_either_way(
            &body,
            vec![Literal::vec(vec![n as i64], r.clone()).unwrap()],
        );
    }
}

/// An output whose member comes after every reader of the input lent to it is written in place
/// chunk by chunk, straight into the lent buffer (`Sink::direct`); the input's values are gone
/// only once nothing reads them.
#[test]
fn a_lent_buffer_is_written_in_place_once_its_input_is_read() {
    let n = 3 * MIN_ELEMENTS + 5;
    let body = format!(
        "  p = s32[{n}] parameter(0)
  r = s32[{n}] reverse(p), dimensions={{0}}
  one = s32[] constant(3)
  ob = s32[{n}] broadcast(one), dimensions={{}}
  a = s32[{n}] add(r, ob)
  m = s32[{n}] multiply(a, a)
  ROOT t = s32[{n}] reverse(m), dimensions={{0}}"
    );
    let (m, plan) = planned(&body);
    assert_eq!(groups(&body), vec![(strs(&["a", "m"]), strs(&["m"]))]);
    let comp = m.entry();
    assert!(chunks::compile(comp, &plan.groups[0]).is_some());
    let idx = |s: &str| comp.instructions.iter().position(|i| i.name == s).unwrap();
    let r: Vec<i32> = (0..n as i32).map(|i| i * 40_503 - 7_000_000).collect();
    let mut values: Vec<Option<Literal>> = vec![None; comp.instructions.len()];
    let lit = Literal::vec(vec![n as i64], r.clone()).unwrap();
    let ptr = lit.as_array().unwrap().typed::<i32>().unwrap().as_ptr();
    values[idx("r")] = Some(lit);
    values[idx("one")] = Some(Literal::scalar(3i32));
    let outs = run_group(comp, &plan.groups[0], &mut values, &|_| true).unwrap();
    let got = outs[0].1.as_array().unwrap().typed::<i32>().unwrap();
    assert_eq!(got.as_ptr(), ptr, "the dying input's buffer was not lent");
    let want: Vec<i32> = r.iter().map(|x| (x + 3).wrapping_mul(x + 3)).collect();
    assert_eq!(got, &want[..]);
    same_either_way(&body, vec![Literal::vec(vec![n as i64], r).unwrap()]);
}

/// Deterministic bits for element `i` of argument `k`: special patterns (zero, all ones, the
/// sign bit alone, small values that make shift amounts both in and past the width, NaN and
/// infinity patterns of F32/F16/BF16) among hashed ones.
/// `all` as a literal of the unsigned type `t` (`u8` to `u64`), each value cut to its width.
fn unsigned(t: &str, all: Vec<u64>, dims: Vec<i64>) -> Literal {
    match t {
        "u8" => Literal::vec(dims, all.iter().map(|&b| b as u8).collect()),
        "u16" => Literal::vec(dims, all.iter().map(|&b| b as u16).collect()),
        "u32" => Literal::vec(dims, all.iter().map(|&b| b as u32).collect()),
        _ => Literal::vec(dims, all),
    }
    .unwrap()
}

/// Runs `body`, whose parameters are two `t[n]` arrays and two `t[]` shift amounts, with fusion on
/// and off for each pair of amounts: the results must be the same.
fn same_for_amounts(body: &str, t: &str, n: usize, amounts: &[(u64, u64)]) {
    let arg = |k: u64| {
        unsigned(
            t,
            (0..n).map(|i| mixed_bits(i, k)).collect(),
            vec![n as i64],
        )
    };
    for &(a, b) in amounts {
        let (a, b) = (unsigned(t, vec![a], vec![]), unsigned(t, vec![b], vec![]));
        same_either_way(body, vec![arg(1), arg(2), a, b]);
    }
}

/// The parameters the round tests share: two `t[n]` words `p` and `q`, and two amounts `s` and
/// `u` broadcast as `bs` and `bu`.
fn words(t: &str, n: usize) -> Vec<String> {
    vec![
        format!("  p = {t}[{n}] parameter(0)"),
        format!("  q = {t}[{n}] parameter(1)"),
        format!("  s = {t}[] parameter(2)"),
        format!("  u = {t}[] parameter(3)"),
        format!("  bs = {t}[{n}] broadcast(s), dimensions={{}}"),
        format!("  bu = {t}[{n}] broadcast(u), dimensions={{}}"),
    ]
}

/// The chunk kernels of `body`'s group of `steps` members (`t` names the case in a failure).
fn chunked(body: &str, steps: usize, t: &str) -> chunks::Compiled {
    let (m, plan) = planned(body);
    let g = plan
        .groups
        .iter()
        .find(|g| g.steps.len() == steps)
        .unwrap_or_else(|| panic!("{t}: no group of {steps} members"));
    chunks::compile(m.entry(), g).unwrap_or_else(|| panic!("{t}: not chunked"))
}

fn mixed_bits(i: usize, k: u64) -> u64 {
    let h = (i as u64 ^ (k << 40))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(29)
        .wrapping_mul(0xbf58_476d_1ce4_e5b9);
    match h % 16 {
        0 => 0,
        1 => u64::MAX,
        2 => 1 << 63 | 1 << 31 | 1 << 15 | 1 << 7,
        3 | 4 => h >> 58,
        5 => 0x7fc0_0000_7fc0_7e00,
        6 => 0x7f80_0000_7f80_7c00,
        _ => h,
    }
}

/// A group whose members are all binary ops runs through chunk kernels (`chunks`), over several
/// chunks and a ragged last one, with scalar broadcasts on either side and on both; its results
/// are the op-by-op ones for every op on integers of two widths and signs and on floats of three
/// kinds, edge values included (shifts past the width, division by zero, NaN in max and min).
#[test]
fn groups_of_binary_ops_run_as_chunk_kernels_with_the_op_by_op_results() {
    let n = MIN_ELEMENTS + 3 * chunks::CHUNK / 2 + 1;
    let ints = [
        "add",
        "subtract",
        "multiply",
        "divide",
        "remainder",
        "maximum",
        "minimum",
        "and",
        "or",
        "xor",
        "shift-left",
        "shift-right-arithmetic",
        "shift-right-logical",
        "power",
    ];
    let floats = [
        "add",
        "subtract",
        "multiply",
        "divide",
        "remainder",
        "maximum",
        "minimum",
        "power",
        "atan2",
    ];
    let cases: [(&str, &str, &[&str]); 6] = [
        ("u32", "u32", &ints),
        ("s8", "u8", &ints),
        ("s64", "u64", &ints),
        ("f32", "u32", &floats),
        ("f16", "u16", &floats),
        ("bf16", "u16", &floats),
    ];
    for (t, bits, ops) in cases {
        let mut lines = vec![
            format!("  pb = {bits}[{n}] parameter(0)"),
            format!("  qb = {bits}[{n}] parameter(1)"),
            format!("  sb = {bits}[] parameter(2)"),
            format!("  pc = {t}[{n}] bitcast-convert(pb)"),
            format!("  qc = {t}[{n}] bitcast-convert(qb)"),
            format!("  p = {t}[{n}] reverse(pc), dimensions={{0}}"),
            format!("  q = {t}[{n}] reverse(qc), dimensions={{0}}"),
            format!("  s = {t}[] bitcast-convert(sb)"),
            format!("  bs = {t}[{n}] broadcast(s), dimensions={{}}"),
            format!("  both = {t}[{n}] add(bs, bs)"),
        ];
        let mut prev = "p".to_string();
        for (k, op) in ops.iter().enumerate() {
            let (a, b) = match k % 4 {
                0 => (prev.clone(), "q".to_string()),
                1 => ("bs".to_string(), prev.clone()),
                2 => (prev.clone(), "bs".to_string()),
                _ => (prev.clone(), "both".to_string()),
            };
            lines.push(format!("  v{k} = {t}[{n}] {op}({a}, {b})"));
            prev = format!("v{k}");
        }
        let mid = format!("v{}", ops.len() / 2);
        lines.push(format!(
            "  ROOT r = ({t}[{n}], {t}[{n}]) tuple({prev}, {mid})"
        ));
        let body = lines.join("\n");
        let (m, plan) = planned(&body);
        let chain = plan
            .groups
            .iter()
            .find(|g| g.steps.len() > ops.len())
            .unwrap_or_else(|| panic!("{t}: no group holds the chain"));
        assert!(
            chunks::compile(m.entry(), chain).is_some(),
            "{t}: the chain runs tile by tile"
        );
        let lit = |all: Vec<u64>, dims: Vec<i64>| unsigned(bits, all, dims);
        let arg = |k: u64| lit((0..n).map(|i| mixed_bits(i, k)).collect(), vec![n as i64]);
        // Shift amounts inside and past every width, a NaN, all ones.
        for scalar in [2u64, 40, 0x7fc0_0000_7fc0_7e00, u64::MAX] {
            same_either_way(&body, vec![arg(1), arg(2), lit(vec![scalar], vec![])]);
        }
    }
}

/// `or(shift-left(x, a), shift-right-logical(x, b))` runs as one folded kernel when the `or` alone
/// reads both shifts, on u32 and u64: with splat amounts inside and past the width (the fast
/// loop, and XLA's zero for shifts at or past it), with amounts that are whole arrays, with the
/// `or`'s operands either way round, and with `x` a member whose slot must outlive its other
/// readers until the `or` (members run between them). A shift that is also an output is not folded. Every result
/// is the op-by-op one.
#[test]
fn rotations_fold_into_one_kernel_with_the_op_by_op_results() {
    let n = MIN_ELEMENTS + 3 * chunks::CHUNK / 2 + 1;
    for (t, width) in [("u32", 32u64), ("u64", 64)] {
        let mut body = words(t, n);
        body.extend([
            // Splat amounts, x an input.
            format!("  l1 = {t}[{n}] shift-left(p, bs)"),
            format!("  r1 = {t}[{n}] shift-right-logical(p, bu)"),
            format!("  o1 = {t}[{n}] or(l1, r1)"),
            // x a member whose last other reader (m) comes before the `or`, a member (w) taking
            // a slot in between; the `or` the other way round.
            format!("  v = {t}[{n}] add(o1, q)"),
            format!("  l2 = {t}[{n}] shift-left(v, bu)"),
            format!("  r2 = {t}[{n}] shift-right-logical(v, bs)"),
            format!("  m = {t}[{n}] multiply(q, v)"),
            format!("  w = {t}[{n}] xor(m, q)"),
            format!("  o2 = {t}[{n}] or(r2, l2)"),
            // Whole-array amounts.
            format!("  l3 = {t}[{n}] shift-left(o2, q)"),
            format!("  r3 = {t}[{n}] shift-right-logical(o2, p)"),
            format!("  o3 = {t}[{n}] or(l3, r3)"),
            // A shift that is also an output: no fold.
            format!("  l4 = {t}[{n}] shift-left(o3, bs)"),
            format!("  r4 = {t}[{n}] shift-right-logical(o3, bu)"),
            format!("  o4 = {t}[{n}] or(l4, r4)"),
            format!("  x = {t}[{n}] xor(o4, w)"),
            format!("  ROOT out = ({t}[{n}], {t}[{n}]) tuple(x, l4)"),
        ]);
        let body = body.join("\n");
        let c = chunked(&body, 16, t);
        assert_eq!(c.folded_rotations(), 3, "{t}");
        same_for_amounts(
            &body,
            t,
            n,
            &[
                (13, width - 13),
                (0, width),
                (1, width - 1),
                (width - 1, 1),
                (width, 0),
                (width + 1, 3),
                (5, u64::MAX),
            ],
        );
    }
}

/// Threefry rounds, `xor(add(y, x), rotation of x)`, run as one kernel per round: with splat and
/// with whole-array amounts, either operand order in the `add`, the `or` and the `xor`, and an add
/// read by nothing else (folded too) or by later members (still run). Not folded: a round whose add
/// does not read the rotated value, and one whose rotation has another reader. Every result is the
/// op-by-op one, amounts at and past the width included.
#[test]
fn rounds_fold_into_one_kernel_with_the_op_by_op_results() {
    let n = MIN_ELEMENTS + 3 * chunks::CHUNK / 2 + 1;
    for (t, width) in [("u32", 32u64), ("u64", 64)] {
        let rot = |name: &str, x: &str, a: &str, b: &str| {
            [
                format!("  l{name} = {t}[{n}] shift-left({x}, {a})"),
                format!("  r{name} = {t}[{n}] shift-right-logical({x}, {b})"),
                format!("  o{name} = {t}[{n}] or(l{name}, r{name})"),
            ]
        };
        let mut body = words(t, n);
        body.extend([
            // The threefry shape; `a1` is read again below (not as an output).
            format!("  a1 = {t}[{n}] add(p, q)"),
        ]);
        body.extend(rot("1", "q", "bs", "bu"));
        body.push(format!("  x1 = {t}[{n}] xor(a1, o1)"));
        // Operands the other way round; `a2` read by the xor alone.
        body.push(format!("  a2 = {t}[{n}] add(x1, a1)"));
        body.extend(rot("2", "x1", "bu", "bs"));
        body.push(format!("  x2 = {t}[{n}] xor(o2, a2)"));
        // The add does not read the rotated value: no round.
        body.push(format!("  a3 = {t}[{n}] add(x2, p)"));
        body.extend(rot("3", "q", "bs", "bu"));
        body.push(format!("  x3 = {t}[{n}] xor(a3, o3)"));
        // The rotation has another reader: no round.
        body.push(format!("  a4 = {t}[{n}] add(a1, x3)"));
        body.extend(rot("4", "x3", "bu", "bs"));
        body.push(format!("  x4 = {t}[{n}] xor(a4, o4)"));
        body.push(format!("  k4 = {t}[{n}] multiply(o4, q)"));
        // Whole-array amounts.
        body.push(format!("  a5 = {t}[{n}] add(x4, k4)"));
        body.extend(rot("5", "k4", "q", "p"));
        body.push(format!("  x5 = {t}[{n}] xor(a5, o5)"));
        body.push(format!(
            "  ROOT out = ({t}[{n}], {t}[{n}], {t}[{n}]) tuple(x5, x2, a3)"
        ));
        let body = body.join("\n");
        let c = chunked(&body, 26, t);
        assert_eq!(c.folded_rounds(), 3, "{t}");
        assert_eq!(c.folded_rotations(), 2, "{t}");
        same_for_amounts(
            &body,
            t,
            n,
            &[
                (13, width - 13),
                (0, width),
                (width - 1, 1),
                (width + 1, 3),
                (5, u64::MAX),
            ],
        );
    }
}

/// A value nothing reads is not computed when its op has no effects (nor are the values only it
/// reads); an op with effects (a random number generator, whose state the next draw reads) still
/// runs, and what reads it stays too. The dead value's absence changes no result.
#[test]
fn dead_values_without_effects_are_skipped_and_effects_are_kept() {
    let body = "  p = (f32[4], s32[]) parameter(0)
  x = f32[4] get-tuple-element(p), index=0
  unused = f32[4] get-tuple-element(p), index=0
  neg = f32[4] negate(unused)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  draw = f32[4] rng(lo, hi), distribution=rng_uniform
  i = s32[] get-tuple-element(p), index=1
  ROOT r = f32[4] add(x, x)";
    for dead in ["unused", "neg", "i"] {
        assert_eq!(role(body, dead), Role::Skipped, "{dead}");
    }
    for live in ["p", "x", "lo", "hi", "draw", "r"] {
        assert_eq!(role(body, live), Role::Alone, "{live}");
    }
    // The draw still advances the generator: a second draw after a dead one differs from the
    // first draw of a fresh run.
    let run_text = |text: &str| {
        let m = parse_and_verify(text).unwrap();
        run(&m, vec![], &RunOptions::default()).unwrap().result
    };
    let one = "HloModule m\nENTRY e {\n  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n  ROOT b = f32[4] rng(lo, hi), distribution=rng_uniform\n}\n";
    let two = "HloModule m\nENTRY e {\n  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n  a = f32[4] rng(lo, hi), distribution=rng_uniform\n  ROOT b = f32[4] rng(lo, hi), distribution=rng_uniform\n}\n";
    assert_ne!(run_text(one), run_text(two));
}
