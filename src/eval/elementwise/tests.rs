//! Unit tests of the element-wise evaluator through HLO text (the conformance suite has the
//! book examples, golden cases and property tests).

use crate::eval::{RunOptions, run};
use crate::hlo::parse_literal;
use crate::verify::parse_and_verify;

/// Runs `ROOT r = <root>` over parameters of the given shapes and returns the result as text.
pub(crate) fn run_op(params: &[&str], root: &str, args: &[&str]) -> String {
    let mut text = String::from("HloModule m\nENTRY e {\n");
    for (i, p) in params.iter().enumerate() {
        text.push_str(&format!("  p{i} = {p} parameter({i})\n"));
    }
    text.push_str(&format!("  ROOT r = {root}\n}}\n"));
    let m = match parse_and_verify(&text) {
        Ok(m) => m,
        Err(e) => return format!("error: {e}"),
    };
    let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
    match run(&m, args, &RunOptions::default()) {
        Ok(o) => o.result.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn integer_division_edges() {
    assert_eq!(
        run_op(
            &["s32[3]", "s32[3]"],
            "s32[3] divide(p0, p1)",
            &["s32[3] {7, -2147483648, 5}", "s32[3] {0, -1, -2}"]
        ),
        "s32[3] {-1, -2147483648, -2}"
    );
    assert_eq!(
        run_op(
            &["u8[2]", "u8[2]"],
            "u8[2] divide(p0, p1)",
            &["u8[2] {7, 9}", "u8[2] {0, 2}"]
        ),
        "u8[2] {255, 4}"
    );
    assert_eq!(
        run_op(
            &["s8[3]", "s8[3]"],
            "s8[3] remainder(p0, p1)",
            &["s8[3] {7, -128, -7}", "s8[3] {0, -1, 3}"]
        ),
        "s8[3] {7, 0, -1}"
    );
}

#[test]
fn shifts_past_width() {
    assert_eq!(
        run_op(
            &["s8[4]", "s8[4]"],
            "s8[4] shift-right-arithmetic(p0, p1)",
            &["s8[4] {-128, -128, 64, -1}", "s8[4] {1, 8, 9, -1}"]
        ),
        "s8[4] {-64, -1, 0, -1}"
    );
    assert_eq!(
        run_op(
            &["u8[3]", "u8[3]"],
            "u8[3] shift-left(p0, p1)",
            &["u8[3] {1, 1, 255}", "u8[3] {7, 8, 1}"]
        ),
        "u8[3] {128, 0, 254}"
    );
    assert_eq!(
        run_op(
            &["s32[2]", "s32[2]"],
            "s32[2] shift-right-logical(p0, p1)",
            &["s32[2] {-1, -1}", "s32[2] {28, 32}"]
        ),
        "s32[2] {15, 0}"
    );
}

#[test]
fn float_max_min_nan_and_zeros() {
    assert_eq!(
        run_op(
            &["f32[3]", "f32[3]"],
            "f32[3] maximum(p0, p1)",
            &["f32[3] {nan, 1, -0.0}", "f32[3] {2, nan, 0}"]
        ),
        "f32[3] {nan, nan, 0}"
    );
    // IEEE 754-2019 (StableHLO, XLA:CPU): -0 is below +0 whichever side it is on.
    for (op, want) in [
        ("maximum", "f32[4] {0, 0, -0.0, 0}"),
        ("minimum", "f32[4] {-0.0, -0.0, -0.0, 0}"),
    ] {
        assert_eq!(
            run_op(
                &["f32[4]", "f32[4]"],
                &format!("f32[4] {op}(p0, p1)"),
                &["f32[4] {-0.0, 0, -0.0, 0}", "f32[4] {0, -0.0, -0.0, 0}"]
            ),
            want,
            "{op}"
        );
    }
}

#[test]
fn power_edges() {
    assert_eq!(
        run_op(
            &["s32[5]", "s32[5]"],
            "s32[5] power(p0, p1)",
            &["s32[5] {2, 1, -1, 0, 3}", "s32[5] {10, -5, -1, 0, 40}"]
        ),
        "s32[5] {1024, 1, 0, 1, 689956897}"
    );
}

#[test]
fn compare_total_order() {
    assert_eq!(
        run_op(
            &["f32[4]", "f32[4]"],
            "pred[4] compare(p0, p1), direction=LT, type=TOTALORDER",
            &[
                "f32[4] {-0.0, -nan, inf, nan}",
                "f32[4] {0, -inf, nan, nan}"
            ]
        ),
        "pred[4] {true, true, true, false}"
    );
    assert_eq!(
        run_op(
            &["f32[3]", "f32[3]"],
            "pred[3] compare(p0, p1), direction=EQ",
            &["f32[3] {-0.0, nan, 1}", "f32[3] {0, nan, 1}"]
        ),
        "pred[3] {true, false, true}"
    );
}

#[test]
fn convert_edges() {
    assert_eq!(
        run_op(
            &["f32[5]"],
            "s8[5] convert(p0)",
            &["f32[5] {nan, 300, -300, -2.9, 2.9}"]
        ),
        "s8[5] {0, 127, -128, -2, 2}"
    );
    assert_eq!(
        run_op(&["s32[2]"], "u8[2] convert(p0)", &["s32[2] {257, -1}"]),
        "u8[2] {1, 255}"
    );
    assert!(
        run_op(&["c64[1]"], "f32[1] convert(p0)", &["c64[1] {(1, 2)}"])
            .contains("convert.complex_to_real")
    );
}

#[test]
fn bitcast_convert_widths() {
    assert_eq!(
        run_op(&["f32[1]"], "u16[1,2] bitcast-convert(p0)", &["f32[1] {1}"]),
        "u16[1,2] {{0, 16256}}"
    );
    assert_eq!(
        run_op(
            &["u16[2]"],
            "f32[] bitcast-convert(p0)",
            &["u16[2] {0, 16256}"]
        ),
        "f32[] 1"
    );
}

#[test]
fn clamp_and_select() {
    assert_eq!(
        run_op(
            &["s32[]", "s32[3]", "s32[]"],
            "s32[3] clamp(p0, p1, p2)",
            &["s32[] 0", "s32[3] {-1, 5, 9}", "s32[] 6"]
        ),
        "s32[3] {0, 5, 6}"
    );
    assert_eq!(
        run_op(
            &["pred[4]", "s32[4]", "s32[4]"],
            "s32[4] select(p0, p1, p2)",
            &[
                "pred[4] {true, false, false, true}",
                "s32[4] {1, 2, 3, 4}",
                "s32[4] {100, 200, 300, 400}"
            ]
        ),
        "s32[4] {1, 200, 300, 4}"
    );
}

#[test]
fn verifier_refuses_wrong_types() {
    let e = run_op(&["s32[2]"], "s32[2] exponential(p0)", &["s32[2] {1, 2}"]);
    assert!(e.contains("exponential.element_type"), "{e}");
    let e = run_op(
        &["f32[2]", "f32[]"],
        "f32[2] add(p0, p1)",
        &["f32[2] {1, 2}", "f32[] 1"],
    );
    assert!(e.contains("elementwise.same_shape"), "{e}");
}
