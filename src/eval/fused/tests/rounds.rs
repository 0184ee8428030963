//! Chains of threefry rounds run as one kernel (`fused::rounds::chain`).

use super::*;

/// Four threefry rounds in a row, then the key injection, as JAX lowers each iteration of its
/// threefry loop: the rounds run as one chain kernel whose intermediate words are never stored
/// (`rounds::chain`), on u32 and u64, with splat amounts inside the width (the unrolled loop), at
/// and past it, and with whole-array amounts (the element loop). A chain holds at most
/// `MAX_CHAIN` rounds. Not chained: a round whose previous `add` has another reader, or is an
/// output. The last `add` may be read before the last `xor`, as JAX orders it. Every result is the
/// op-by-op one.
#[test]
fn chains_of_rounds_run_as_one_kernel_with_the_op_by_op_results() {
    let n = MIN_ELEMENTS + 3 * chunks::CHUNK / 2 + 1;
    for (t, width) in [("u32", 32u64), ("u64", 64)] {
        // Round `k` on words `y`, `x` (names), amounts `a`, `b`: defines `a{k}` and `x{k}`.
        let round = |k: usize, y: &str, x: &str, a: &str, b: &str| {
            [
                format!("  a{k} = {t}[{n}] add({y}, {x})"),
                format!("  l{k} = {t}[{n}] shift-left({x}, {a})"),
                format!("  r{k} = {t}[{n}] shift-right-logical({x}, {b})"),
                format!("  o{k} = {t}[{n}] or(l{k}, r{k})"),
                format!("  x{k} = {t}[{n}] xor(a{k}, o{k})"),
            ]
        };
        // Five rounds (a chain of four and one of one), then the key injection; whole-array
        // amounts in the third round.
        let mut body = words(t, n);
        body.extend(round(1, "p", "q", "bs", "bu"));
        body.extend(round(2, "a1", "x1", "bu", "bs"));
        body.extend(round(3, "a2", "x2", "q", "p"));
        body.extend(round(4, "a3", "x3", "bs", "bu"));
        body.extend(round(5, "a4", "x4", "bu", "bs"));
        body.push(format!("  ky = {t}[{n}] add(a5, bs)"));
        body.push(format!("  kx = {t}[{n}] add(x5, bu)"));
        body.push(format!("  kz = {t}[{n}] add(kx, bs)"));
        body.push(format!("  ROOT out = ({t}[{n}], {t}[{n}]) tuple(ky, kz)"));
        let body = body.join("\n");
        let c = chunked(&body, 28, t);
        assert_eq!(c.chains(), vec![4], "{t}");
        assert_eq!(c.folded_rounds(), 1, "{t}");
        let amounts = [
            (13, width - 13),
            (0, width),
            (width - 1, 1),
            (width + 1, 3),
            (5, u64::MAX),
        ];
        same_for_amounts(&body, t, n, &amounts);
        // The second round's `add` read between the rounds (`w`), and the third's an output:
        // chains of two rounds at most, the fourth continuing the third.
        let mut body = words(t, n);
        body.extend(round(1, "p", "q", "bs", "bu"));
        body.extend(round(2, "a1", "x1", "bu", "bs"));
        body.push(format!("  w = {t}[{n}] multiply(a2, q)"));
        body.extend(round(3, "a2", "x2", "bs", "bu"));
        body.extend(round(4, "a3", "x3", "bu", "bs"));
        body.extend(round(5, "a4", "x4", "bs", "bu"));
        body.push(format!(
            "  ROOT out = ({t}[{n}], {t}[{n}], {t}[{n}], {t}[{n}]) tuple(a5, x5, w, a3)"
        ));
        let body = body.join("\n");
        let c = chunked(&body, 26, t);
        assert_eq!(c.chains(), vec![2, 2], "{t}");
        assert_eq!(c.folded_rounds(), 1, "{t}");
        same_for_amounts(&body, t, n, &amounts);
        // JAX's order: the last round's `add` read by the key injection before that round's
        // rotation and `xor` (the chain runs where the `add` stands); the key injection's sum an
        // output.
        let mut body = words(t, n);
        body.extend(round(1, "p", "q", "bs", "bu"));
        body.extend(round(2, "a1", "x1", "bu", "bs"));
        body.extend(round(3, "a2", "x2", "bs", "bu"));
        let mut last = round(4, "a3", "x3", "bu", "bs").to_vec();
        last.insert(1, format!("  ky = {t}[{n}] add(a4, bs)"));
        body.extend(last);
        body.push(format!("  kx = {t}[{n}] add(x4, bu)"));
        body.push(format!("  ROOT out = ({t}[{n}], {t}[{n}]) tuple(ky, kx)"));
        let body = body.join("\n");
        let c = chunked(&body, 22, t);
        assert_eq!(c.chains(), vec![4], "{t}");
        assert_eq!(c.folded_rounds(), 0, "{t}");
        same_for_amounts(&body, t, n, &amounts);
    }
}
