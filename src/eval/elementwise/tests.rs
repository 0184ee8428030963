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

/// Every compiled copy of the element loops (baseline, AVX2, AVX-512: whichever this CPU runs)
/// gives the bits of the baseline copy, on a costly float function, per-lane shifts, an F64
/// division with NaN, infinities and signed zeros, and a select; and the widest copy is the one
/// picked when nothing caps it.
#[test]
fn every_isa_copy_of_the_loops_gives_the_baseline_bits() {
    use super::fastexp::tanh_f64_for_f32;
    use super::lanes;
    use crate::kernels::isa::{self, Isa};
    use std::mem::MaybeUninit;

    #[cfg(target_arch = "x86_64")]
    if std::env::var_os("XLA_SPEC_LANES").is_none() {
        use std::arch::is_x86_feature_detected as has;
        let want = if has!("avx512f") && has!("avx512bw") && has!("avx512dq") && has!("avx512vl") {
            Isa::Avx512
        } else if has!("avx2") && has!("fma") {
            Isa::Avx2
        } else {
            Isa::Base
        };
        assert_eq!(isa::isa(), want);
    }
    let levels = isa::levels();
    assert_eq!(levels.last(), Some(&isa::isa()));

    // Deterministic values over many binades, with the edge values mixed in.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let n = 1003; // not a multiple of any vector width: the remainders run too
    let edges = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        1e-310,
        -3.0,
    ];
    let f: Vec<f64> = (0..n)
        .map(|i| match i % 97 {
            k if k < edges.len() => edges[k],
            _ => f64::from_bits(next() >> 2) * if i % 2 == 0 { 1.0 } else { -1.0 },
        })
        .collect();
    let g: Vec<f64> = (0..n).map(|i| f[(i * 7 + 3) % n] * 0.37 + 1e-3).collect();
    let x32: Vec<f32> = (0..n).map(|_| (next() as i32 as f32) * 1e-9).collect();
    let u: Vec<u32> = (0..n).map(|_| next() as u32).collect();
    let amounts: Vec<u32> = (0..n).map(|_| next() as u32 % 40).collect();
    let p: Vec<bool> = (0..n).map(|_| next() % 3 == 0).collect();

    fn out<T: Copy>(d: Vec<MaybeUninit<T>>) -> Vec<T> {
        // SAFETY: each caller has written every element.
        d.into_iter().map(|v| unsafe { v.assume_init() }).collect()
    }
    type Bits = (Vec<u32>, Vec<u32>, Vec<u64>, Vec<u64>, bool);
    let at = |l: Isa| -> Bits {
        let mut t = vec![MaybeUninit::<f32>::uninit(); n];
        lanes::run1_at(l, &mut t, &x32, &|v: f32| tanh_f64_for_f32(v as f64) as f32);
        let mut s = vec![MaybeUninit::<u32>::uninit(); n];
        lanes::run2_at(l, &mut s, &u, &amounts, &|a: u32, b: u32| {
            a.checked_shl(b).unwrap_or(0) ^ a.checked_shr(b).unwrap_or(0)
        });
        let mut q = vec![MaybeUninit::<f64>::uninit(); n];
        lanes::run2_at(l, &mut q, &f, &g, &|a: f64, b: f64| a / b + a * b);
        let mut sel = vec![MaybeUninit::<f64>::uninit(); n];
        lanes::run3_at(l, &mut sel, 0, &p, &f, &[2.5], &|c, a, b| {
            if c { a } else { b }
        });
        let all = lanes::all_at(l, &f, &|v: f64| v.is_finite());
        // A NaN-aware maximum folded in place, as reduce-window's runs do.
        let mut acc = g.clone();
        lanes::update_at(l, &mut acc, &f, &|a: f64, b: f64| {
            if a.is_nan() {
                a
            } else if b.is_nan() || b > a {
                b
            } else {
                a
            }
        });
        sel.extend(acc.into_iter().map(MaybeUninit::new));
        let bits32 = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect();
        let bits64 = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect();
        (
            bits32(out(t)),
            out(s),
            bits64(out(q)),
            bits64(out(sel)),
            all,
        )
    };
    let base = at(Isa::Base);
    assert!(!base.4, "the values hold a NaN and infinities");
    for &l in &levels[1..] {
        assert_eq!(at(l), base, "{l:?}");
    }
}

/// F16 and BF16 functions run through F32 and round once, whichever loop computes them: on every
/// one of the 65536 bit patterns (NaNs, infinities, subnormals, arguments outside the fast
/// forms' domains), each result is the F32 op's result on the widened argument, rounded.
#[test]
fn half_precision_functions_are_the_f32_function_rounded_once() {
    use crate::literal::{Array, Literal};
    use half::{bf16, f16};

    fn eval(op: &str, ty: &str, arg: Literal) -> Literal {
        let text = format!(
            "HloModule m\nENTRY e {{\n  p = {ty}[65536] parameter(0)\n  ROOT r = {ty}[65536] {op}(p)\n}}\n"
        );
        let m = parse_and_verify(&text).unwrap();
        run(&m, vec![arg], &RunOptions::default()).unwrap().result
    }
    fn values<T: crate::literal::NativeType + Copy>(l: &Literal) -> Vec<T> {
        match l {
            Literal::Array(a) => a.typed::<T>().unwrap().to_vec(),
            _ => panic!("not an array"),
        }
    }
    /// Every bit pattern of the narrow type `H` through `op`, against the F32 op rounded once.
    fn check<H: super::Narrow + crate::literal::NativeType>(op: &str, ty: &str, of: fn(u16) -> H) {
        let h: Vec<H> = (0..=u16::MAX).map(of).collect();
        let wide: Vec<f32> = h.iter().map(|x| x.widen()).collect();
        let arg = |v| Literal::Array(Array::from_vec(vec![65536], v).unwrap());
        let want = values::<f32>(&eval(op, "f32", arg(wide)));
        let got = values::<H>(&eval(
            op,
            ty,
            Literal::Array(Array::from_vec(vec![65536], h).unwrap()),
        ));
        for (i, (g, &w)) in got.iter().map(|g| g.widen()).zip(&want).enumerate() {
            let w = H::narrow(w).widen();
            assert!(
                g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                "{ty} {op} of bits {i:#x}: {g} against {w}"
            );
        }
    }
    for op in [
        "tanh",
        "exponential",
        "log",
        "log-plus-one",
        "sine",
        "cosine",
        "rsqrt",
        "logistic",
    ] {
        check(op, "f16", f16::from_bits);
        check(op, "bf16", bf16::from_bits);
    }
}
