use super::*;
use crate::hlo::attrs::{PadDim, SliceDim};
use crate::hlo::opcode::{ControlOp, MovementOp, Op, ReductionOp};
use crate::literal::{C64, Literal, Scalar};

#[test]
fn parses_the_reference_while_example() {
    let m = parse_module(
        "HloModule control\n\ncond {\n  s = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(10)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\nbody {\n  s = (s32[], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  x = f32[4] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  x1 = f32[4] add(x, x)\n  ROOT t = (s32[], f32[4]) tuple(i1, x1)\n}\n\nENTRY main {\n  x = f32[4] parameter(0)\n  zero = s32[] constant(0)\n  init = (s32[], f32[4]) tuple(zero, x)\n  w = (s32[], f32[4]) while(init), condition=cond, body=body\n  ROOT wx = f32[4] get-tuple-element(w), index=1\n}\n",
    )
    .unwrap();
    assert_eq!(m.computations.len(), 3);
    assert_eq!(m.entry, 2);
    let w = &m.entry().instructions[3];
    let Op::Control(ControlOp::While(a)) = &w.op else {
        panic!("not a while: {:?}", w.op)
    };
    assert_eq!((a.condition.0, a.body.0), (0, 1));
}

#[test]
fn parses_attribute_forms() {
    let m = parse_module(
        "HloModule m\nENTRY e {\n p = f32[4,6] parameter(0)\n s = f32[1,2] slice(p), slice={[0:1], [0:6:3]}\n z = f32[] constant(0)\n q = f32[5,13] pad(p, z), padding=0_1x1_2_1\n r = f32[2,3] reduce-window(p, z), window={size=2x2 stride=2x2 pad=0_0x-1_1}, to_apply={ a = f32[] parameter(0) b = f32[] parameter(1) ROOT c = f32[] add(a, b) }\n}\n",
    )
    .unwrap();
    let e = m.entry();
    assert_eq!(
        slice_of(&e.instructions[1].op)[1],
        SliceDim {
            start: 0,
            limit: 6,
            stride: 3
        }
    );
    assert_eq!(
        pad_of(&e.instructions[3].op)[1],
        PadDim {
            lo: 1,
            hi: 2,
            interior: 1
        }
    );
    let Op::Reduction(ReductionOp::ReduceWindow(rw)) = &e.instructions[4].op else {
        panic!("not a reduce-window")
    };
    assert_eq!(rw.window.dims[1].pad_lo, -1);
    assert_eq!(m.computations.len(), 2);
}

#[test]
fn iota_replica_groups_and_dim_labels() {
    let mut p = Parser::new("[3,2]<=[2,3]T(1,0)").unwrap();
    assert_eq!(
        p.replica_groups().unwrap(),
        vec![vec![0, 3], vec![1, 4], vec![2, 5]]
    );
    let d = parse_dim_labels("b01f_01io->b01f").unwrap();
    assert_eq!(
        (d.input_batch, d.input_feature, d.input_spatial.clone()),
        (0, 3, vec![1, 2])
    );
    assert_eq!((d.kernel_input_feature, d.kernel_output_feature), (2, 3));
    assert!(parse_dim_labels("bf01_oi01->bf0").is_err());
}

#[test]
fn literals_and_errors() {
    let l = parse_literal("f32[2,2] {{1, -0.0}, {nan, -inf}}").unwrap();
    let a = l.as_array().unwrap();
    assert!(a.data.get(1).as_f64().is_sign_negative());
    // `-0` is the integer zero, hence +0, as in XLA.
    let l = parse_literal("f64[2] {-0, -0e0}").unwrap();
    let a = l.as_array().unwrap();
    assert!(a.data.get(0).as_f64().is_sign_positive());
    assert!(a.data.get(1).as_f64().is_sign_negative());
    // A `{` after whitespace opens the value; one right after `]` is a layout.
    assert_eq!(
        parse_literal("s32[2] {1, 0}").unwrap().to_string(),
        "s32[2] {1, 0}"
    );
    assert_eq!(
        parse_literal("s32[2]{0} {1, 0}").unwrap().to_string(),
        "s32[2]{0} {1, 0}"
    );
    let l = parse_literal("f32[] -nan(0x7f)").unwrap();
    match l.scalar_value() {
        Some(Scalar::F32(x)) => assert_eq!(x.to_bits(), 0xff80_007f),
        other => panic!("{other:?}"),
    }
    assert!(parse_literal("f32[2] {1}").is_err());
    assert!(parse_literal("u8[1] {256}").is_err());
    assert!(parse_literal("f16[] 1e10").is_err());
    let e = parse_module("HloModule m\nENTRY e {\n x = f32[] parametr(0)\n}").unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("hlo.unknown_opcode"));
    assert_eq!(e.location.map(|l| l.line), Some(3));
    let e = parse_module("HloModule m\nENTRY e {\n x = f32[] add(y, y)\n}").unwrap_err();
    assert_eq!(e.rule.as_deref(), Some("hlo.undefined_name"));
    let deep = format!(
        "HloModule m\nENTRY e {{ x = {}f32[]{} parameter(0) }}",
        "(".repeat(500),
        ")".repeat(500)
    );
    assert!(parse_module(&deep).is_err());
}

#[test]
fn nan_payloads_and_rank1_values_round_trip() {
    // Signalling and quiet NaNs with payloads, in f32 and in c64 parts, keep their bits.
    for bits in [0x7fa8_cb7fu32, 0xffc0_0001, 0x7fc0_0000, 0x7f80_0001] {
        let l = Literal::vec(vec![1], vec![f32::from_bits(bits)]).unwrap();
        let back = parse_literal(&l.to_string()).unwrap();
        let x = back.as_array().unwrap().typed::<f32>().unwrap()[0];
        assert_eq!(x.to_bits(), bits, "{l}");
        let c = Literal::vec(vec![1], vec![C64::new(1.0, f32::from_bits(bits))]).unwrap();
        let back = parse_literal(&c.to_string()).unwrap();
        let y = back.as_array().unwrap().typed::<C64>().unwrap()[0];
        assert_eq!(y.im.to_bits(), bits, "{c}");
    }
    // After a space, `{` opens the value even where a layout would fit.
    let l = parse_literal("f32[2] {1, 0}").unwrap();
    assert_eq!(l.to_string(), "f32[2] {1, 0}");
    let l = parse_literal("f32[2]{0} {1, 0}").unwrap();
    assert_eq!(l.to_string(), "f32[2]{0} {1, 0}");
}

fn slice_of(op: &Op) -> Vec<SliceDim> {
    match op {
        Op::Movement(MovementOp::Slice(a)) => a.slice.clone(),
        other => panic!("not a slice: {other:?}"),
    }
}

fn pad_of(op: &Op) -> Vec<PadDim> {
    match op {
        Op::Movement(MovementOp::Pad(a)) => a.padding.clone(),
        other => panic!("not a pad: {other:?}"),
    }
}

#[test]
fn tiled_layouts_and_entry_layouts_are_kept() {
    let text = "HloModule m, entry_computation_layout={(f32[8,128]{1,0:T(8,128)S(1)})->f32[8,128]{0,1}}\nENTRY e {\n p = f32[8,128]{1,0:T(8,128)S(1)} parameter(0)\n ROOT c = f32[8,128]{0,1} copy(p)\n}\n";
    let m = parse_module(text).unwrap();
    let p = &m.entry().instructions[0].shape;
    assert_eq!(p.to_string(), "f32[8,128]{1,0:T(8,128)S(1)}");
    let printed = crate::hlo::printer::print_module(&m);
    assert!(printed.contains("{1,0:T(8,128)S(1)}"), "{printed}");
    assert!(
        printed.contains("entry_computation_layout={(f32[8,128]{1,0:T(8,128)S(1)})->"),
        "{printed}"
    );
    assert_eq!(parse_module(&printed).unwrap().entry_layout, m.entry_layout);
    let (params, result) = m.entry_layout.clone().unwrap();
    assert_eq!(params.len(), 1);
    assert_eq!(result.to_string(), "f32[8,128]{0,1}");
}
