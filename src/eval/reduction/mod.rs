//! Ops that apply a computation across elements: reduce, reduce-window, select-and-scatter, map,
//! sort and topk. Book: `book/src/ops/reduction/`.
//!
//! Every op has a general path that interprets its sub-computation with `Evaluator::call` on
//! rank-0 literals, element by element, in the documented order of its page; it handles any
//! computation the verifier accepts. Recognised sub-computations (see `fast`) run as typed loops
//! in the same order instead, in parallel where the results cannot differ.

pub mod fast;
pub mod reduce;
pub mod sort;
pub mod window;

use super::Evaluator;
use crate::error::{Error, Result};
use crate::hlo::ast::{CompId, Instruction};
use crate::hlo::opcode::ReductionOp;
use crate::literal::{Array, ArrayData, Literal, Scalar};
use crate::shape::Shape;

pub fn eval(
    ev: &Evaluator,
    inst: &Instruction,
    op: &ReductionOp,
    ops: &[&Literal],
) -> Result<Literal> {
    match op {
        ReductionOp::Reduce(r) => reduce::reduce(ev, inst, r, ops),
        ReductionOp::ReduceWindow(r) => window::reduce_window(ev, inst, r, ops),
        ReductionOp::SelectAndScatter(s) => window::select_and_scatter(ev, inst, s, ops),
        ReductionOp::Map(m) => map(ev, inst, m.to_apply.0, ops),
        ReductionOp::Sort(s) => sort::sort(ev, inst, s, ops),
        ReductionOp::TopK(t) => sort::topk(inst, t, ops),
    }
}

/// The scalar values of operands `from..` (the init values of reduce and reduce-window).
fn scalar_literals(ops: &[&Literal], from: usize) -> Result<Vec<Scalar>> {
    ops.iter()
        .skip(from)
        .map(|l| {
            l.scalar_value()
                .ok_or_else(|| Error::internal("an init value is not a scalar"))
        })
        .collect()
}

/// The operands of reduce and reduce-window: N arrays, then N scalar init values.
fn inputs_and_inits<'l>(ops: &[&'l Literal]) -> Result<(Vec<&'l Array>, Vec<Scalar>)> {
    let n = ops.len() / 2;
    let inputs = (0..n)
        .map(|i| super::array(ops, i))
        .collect::<Result<_>>()?;
    Ok((inputs, scalar_literals(ops, n)?))
}

/// A reducer's result as its N accumulators: the value itself for N = 1, the tuple's elements
/// otherwise.
fn unpack(r: Literal, n: usize) -> Result<Vec<Literal>> {
    match r {
        Literal::Tuple(t) if n > 1 && t.len() == n => Ok(t),
        l if n == 1 => Ok(vec![l]),
        other => Err(Error::internal(format!(
            "the reducer returned {} where {n} values were expected",
            other.shape()
        ))),
    }
}

/// Folds N inputs into `out_n` result elements with the reducer `comp`: through the typed fast
/// path when the reducer is recognised (N = 1), else by interpreting it. `sources(o, f)` calls `f`
/// with the operand offsets that result element `o` folds, in fold order. The sources are cut
/// into blocks of `block` (`reduce::BLOCK` for reduce, `usize::MAX` for the windows, which fold
/// sequentially): block 0 folds from the init values, each later block from its own first
/// sources, and the block results combine left to right.
#[allow(clippy::too_many_arguments)]
fn fold_all<P: fast::FoldPlan>(
    ev: &Evaluator,
    comp: crate::hlo::ast::CompId,
    inputs: &[&Array],
    inits: &[Scalar],
    plan: &P,
    out_n: usize,
    block: usize,
    sources: impl Fn(usize, &mut dyn FnMut(usize)),
) -> Result<Vec<ArrayData>> {
    if let ([a], [init]) = (inputs, inits)
        && let Some(op) = fast::recognise_reducer(ev.module, comp)
        && let Some(d) = fast::fold(plan, &a.data, *init, op)
    {
        return Ok(vec![d]);
    }
    if let Some(outs) = fold_lanes(ev, comp, inputs, inits, out_n, block, &sources)? {
        return Ok(outs);
    }
    let n = inputs.len();
    let mut outs: Vec<ArrayData> = inputs
        .iter()
        .map(|a| ArrayData::zeros(a.ty(), out_n))
        .collect();
    let call = |acc: Vec<Literal>, x: Vec<Literal>| {
        let mut args = acc;
        args.extend(x);
        ev.call(comp, args).and_then(|r| unpack(r, n))
    };
    for o in 0..out_n {
        let mut acc: Vec<Literal> = inits.iter().map(|&s| Literal::from_scalar(s)).collect();
        // The blocks before the current one, combined.
        let mut done: Option<Vec<Literal>> = None;
        let mut t = 0usize;
        let mut err = Ok(());
        sources(o, &mut |k| {
            if err.is_err() {
                return;
            }
            let x: Vec<Literal> = inputs
                .iter()
                .map(|a| Literal::from_scalar(a.data.get(k)))
                .collect();
            let step = if t > 0 && t.is_multiple_of(block) {
                let finished = std::mem::replace(&mut acc, x);
                match done.take() {
                    None => Ok(finished),
                    Some(d) => call(d, finished),
                }
                .map(|v| done = Some(v))
            } else {
                call(std::mem::take(&mut acc), x).map(|v| acc = v)
            };
            if let Err(e) = step {
                err = Err(e);
            }
            t += 1;
        });
        err?;
        if let Some(d) = done {
            acc = call(d, acc)?;
        }
        store(&mut outs, o, &acc)?;
    }
    Ok(outs)
}

/// `fold_all` with every result element a lane (`eval::lanes`): step `t` applies the reducer to
/// every element's accumulators and its `t`-th source at once. Each element still folds its
/// sources one by one in its own order (blocks included), so the results are those of the
/// element-by-element fold. `None` when the reducer is not lane-ready, the elements fold
/// different numbers of sources, or there are too few elements to gain anything.
fn fold_lanes(
    ev: &Evaluator,
    comp: crate::hlo::ast::CompId,
    inputs: &[&Array],
    inits: &[Scalar],
    out_n: usize,
    block: usize,
    sources: &impl Fn(usize, &mut dyn FnMut(usize)),
) -> Result<Option<Vec<ArrayData>>> {
    /// Below this many result elements a step costs more than the calls it saves.
    const MIN_LANES: usize = 4;
    if out_n < MIN_LANES {
        return Ok(None);
    }
    let Some(prog) = crate::eval::lanes::LaneProgram::compile(ev, comp, out_n) else {
        return Ok(None);
    };
    // Each element's sources, in fold order, as one table (element-major).
    let mut table: Vec<usize> = Vec::new();
    let mut taps = None;
    for o in 0..out_n {
        let before = table.len();
        sources(o, &mut |k| table.push(k));
        let count = table.len() - before;
        if *taps.get_or_insert(count) != count {
            return Ok(None);
        }
    }
    let taps = taps.unwrap_or(0);
    let call = |acc: Vec<ArrayData>, x: Vec<ArrayData>| {
        let mut args = acc;
        args.extend(x);
        prog.run(ev, &args)
    };
    let mut accs: Vec<ArrayData> = inits.iter().map(|&s| ArrayData::splat(s, out_n)).collect();
    let mut done: Option<Vec<ArrayData>> = None;
    for t in 0..taps {
        let x: Vec<ArrayData> = inputs
            .iter()
            .map(|a| a.data.gather((0..out_n).map(|o| table[o * taps + t])))
            .collect();
        if t > 0 && t.is_multiple_of(block) {
            let finished = std::mem::replace(&mut accs, x);
            done = Some(match done.take() {
                None => finished,
                Some(d) => call(d, finished)?,
            });
        } else {
            accs = call(accs, x)?;
        }
    }
    if let Some(d) = done {
        accs = call(d, accs)?;
    }
    Ok(Some(accs))
}

/// Stores accumulator `i` as element `o` of output `i`.
fn store(outs: &mut [ArrayData], o: usize, acc: &[Literal]) -> Result<()> {
    for (out, l) in outs.iter_mut().zip(acc) {
        let s = l
            .scalar_value()
            .ok_or_else(|| Error::internal("the computation returned a non-scalar"))?;
        out.set(o, s)?;
    }
    Ok(())
}

/// Wraps result data of dimensions `dims` in the instruction's result shape (an array, or a tuple
/// of arrays for the variadic forms), taking types and layouts from the declared shape.
fn collate_result(inst: &Instruction, dims: &[i64], datas: Vec<ArrayData>) -> Result<Literal> {
    let shapes: Vec<&Shape> = match &inst.shape {
        Shape::Tuple(t) => t.iter().collect(),
        s => vec![s],
    };
    if shapes.len() != datas.len() {
        return Err(Error::internal("result arity does not match the shape"));
    }
    let arrays: Vec<Literal> = shapes
        .into_iter()
        .zip(datas)
        .map(|(s, data)| {
            let a = s
                .as_array()
                .ok_or_else(|| Error::internal("a reduction result must be an array"))?;
            let mut shape = a.clone();
            shape.dims = dims.to_vec();
            shape.dynamic = vec![false; dims.len()];
            Array::from_data(shape, data).map(Literal::Array)
        })
        .collect::<Result<_>>()?;
    Ok(match inst.shape {
        Shape::Tuple(_) => Literal::Tuple(arrays),
        _ => arrays
            .into_iter()
            .next()
            .ok_or_else(|| Error::internal("no result"))?,
    })
}

/// `map`: `out[i] = computation(op_0[i], ..., op_{N-1}[i])` for every index, in row-major order.
fn map(ev: &Evaluator, inst: &Instruction, comp: CompId, ops: &[&Literal]) -> Result<Literal> {
    let inputs: Vec<&Array> = (0..ops.len())
        .map(|i| super::array(ops, i))
        .collect::<Result<_>>()?;
    let dims = inputs[0].shape.dims.clone();
    let ty = Evaluator::result_array_shape(inst)?.ty;
    let n = inputs[0].len();
    // Every element at once when the computation is scalar element-wise work (`eval::lanes`).
    if n > 0
        && let Some(prog) = crate::eval::lanes::LaneProgram::compile(ev, comp, n)
    {
        let args: Vec<ArrayData> = inputs.iter().map(|a| a.data.clone()).collect();
        if let Some(out) = prog.run(ev, &args)?.pop() {
            return collate_result(inst, &dims, vec![out]);
        }
    }
    let mut out = ArrayData::zeros(ty, n);
    for k in 0..n {
        let args = inputs
            .iter()
            .map(|a| Literal::from_scalar(a.data.get(k)))
            .collect();
        let v = ev
            .call(comp, args)?
            .scalar_value()
            .ok_or_else(|| Error::internal("the mapped computation returned a non-scalar"))?;
        out.set(k, v)?;
    }
    collate_result(inst, &dims, vec![out])
}

#[cfg(test)]
mod tests {
    use crate::eval::{RunOptions, run};
    use crate::hlo::parse_literal;
    use crate::verify::parse_and_verify;

    /// Runs a module; `None` while an element-wise op its sub-computations use cannot be verified
    /// yet (those ops come from another issue), so these tests switch themselves on once it lands.
    fn try_run(hlo: &str, args: &[&str]) -> String {
        let m = parse_and_verify(hlo).unwrap_or_else(|e| panic!("{e}"));
        let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
        match run(&m, args, &RunOptions::default()) {
            Ok(o) => o.result.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    fn check(hlo: &str, args: &[&str], want: &str) {
        assert_eq!(try_run(hlo, args), want);
    }

    fn run_text(hlo: &str, args: &[&str]) -> String {
        let m = parse_and_verify(hlo).unwrap_or_else(|e| panic!("{e}"));
        let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
        match run(&m, args, &RunOptions::default()) {
            Ok(o) => o.result.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    const CUBE: &str =
        "f32[4,2,3] {{{1,2,3},{4,5,6}},{{1,2,3},{4,5,6}},{{1,2,3},{4,5,6}},{{1,2,3},{4,5,6}}}";

    fn reduce_cube(dims: &str, out: &str, extra: &str) -> String {
        run_text(
            &format!(
                "HloModule m\nadd {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n {extra}\n ROOT s = f32[] add(a, b)\n}}\nENTRY e {{\n p = f32[4,2,3] parameter(0)\n z = f32[] constant(0)\n ROOT r = {out} reduce(p, z), dimensions={{{dims}}}, to_apply=add\n}}\n"
            ),
            &[CUBE],
        )
    }

    #[test]
    fn seed_reductions_of_the_cube_both_paths() {
        // An unused constant in the reducer forces the general (interpreting) path.
        for extra in ["", "unused = f32[] constant(7)"] {
            assert_eq!(
                reduce_cube("0", "f32[2,3]", extra),
                "f32[2,3] {{4, 8, 12}, {16, 20, 24}}"
            );
            assert_eq!(
                reduce_cube("2", "f32[4,2]", extra),
                "f32[4,2] {{6, 15}, {6, 15}, {6, 15}, {6, 15}}"
            );
            assert_eq!(reduce_cube("0,1", "f32[3]", extra), "f32[3] {20, 28, 36}");
            assert_eq!(reduce_cube("0,1,2", "f32[]", extra), "f32[] 84");
            assert_eq!(
                reduce_cube("", "f32[4,2,3]", extra),
                format!("{}", parse_literal(CUBE).unwrap())
            );
        }
    }

    #[test]
    fn large_integer_reduce_parallel_matches_formula() {
        let n = 1 << 17;
        let hlo = format!(
            "HloModule m\nadd {{\n a = s64[] parameter(0)\n b = s64[] parameter(1)\n ROOT s = s64[] add(a, b)\n}}\nENTRY e {{\n p = s64[{n}] iota(), iota_dimension=0\n z = s64[] constant(5)\n ROOT r = s64[] reduce(p, z), dimensions={{0}}, to_apply=add\n}}\n"
        );
        let expect = 5 + (n as i64) * (n as i64 - 1) / 2;
        assert_eq!(run_text(&hlo, &[]), format!("s64[] {expect}"));
    }

    #[test]
    fn seed_reduce_window_valid_and_same() {
        let hlo = |pad: &str| {
            format!(
                "HloModule m\nmn {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] minimum(a, b)\n}}\nENTRY e {{\n p = f32[5] parameter(0)\n z = f32[] constant(inf)\n ROOT r = reduce-window(p, z), window={{size=3 stride=2 pad={pad}}}, to_apply=mn\n}}\n"
            )
        };
        let x = "f32[5] {10000, 1000, 100, 10, 1}";
        check(&hlo("0_0"), &[x], "f32[2] {100, 1}");
        check(&hlo("1_1"), &[x], "f32[3] {1000, 10, 1}");
    }

    #[test]
    fn reduce_window_dilations() {
        // Base dilation 2 turns {1,2,3} into {1,_,2,_,3}; windows of 2 with window dilation 2
        // read positions (0,2), (1,3), (2,4): sums 3, (hole+hole)=init, 5.
        let hlo = "HloModule m\nadd {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT s = s32[] add(a, b)\n}\nENTRY e {\n p = s32[3] parameter(0)\n z = s32[] constant(0)\n ROOT r = s32[3] reduce-window(p, z), window={size=2 lhs_dilate=2 rhs_dilate=2}, to_apply=add\n}\n";
        assert_eq!(run_text(hlo, &["s32[3] {1, 2, 3}"]), "s32[3] {3, 0, 5}");
    }

    #[test]
    fn seed_select_and_scatter_overlap() {
        // Max-select over overlapping 3x3 windows, stride 2 (the seed's figure 2).
        let hlo = "HloModule m\nge {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=GE\n}\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n op = f32[4,5] parameter(0)\n src = f32[1,2] parameter(1)\n z = f32[] constant(0)\n ROOT r = f32[4,5] select-and-scatter(op, src, z), window={size=3x3 stride=2x2}, select=ge, scatter=add\n}\n";
        let op = "f32[4,5] {{7, 2, 5, 3, 8}, {3, 8, 9, 3, 4}, {1, 5, 7, 5, 6}, {0, 6, 2, 10, 2}}";
        check(
            hlo,
            &[op, "f32[1,2] {{2, 6}}"],
            "f32[4,5] {{0, 0, 0, 0, 0}, {0, 0, 8, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}",
        );
    }

    #[test]
    fn seed_three_operand_sort() {
        let hlo = "HloModule m\nlt {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n c = s32[] parameter(2)\n d = s32[] parameter(3)\n e = f32[] parameter(4)\n f = f32[] parameter(5)\n ROOT r = pred[] compare(a, b), direction=LT\n}\nENTRY e {\n x = s32[2] parameter(0)\n y = s32[2] parameter(1)\n z = f32[2] parameter(2)\n ROOT s = (s32[2], s32[2], f32[2]) sort(x, y, z), dimensions={0}, to_apply=lt\n}\n";
        check(
            hlo,
            &["s32[2] {3, 1}", "s32[2] {42, 50}", "f32[2] {-3, 1.1}"],
            "(s32[2] {1, 3}, s32[2] {50, 42}, f32[2] {1.1, -3})",
        );
    }

    #[test]
    fn topk_rows_and_ties() {
        let hlo = "HloModule m\nENTRY e {\n p = f32[2,4] parameter(0)\n ROOT t = (f32[2,2], s32[2,2]) topk(p), k=2, largest=true\n}\n";
        assert_eq!(
            run_text(hlo, &["f32[2,4] {{1, 5, 5, 2}, {nan, 3, -inf, 4}}"]),
            "(f32[2,2] {{5, 5}, {nan, 4}}, s32[2,2] {{1, 2}, {0, 3}})"
        );
    }

    #[test]
    fn map_multiplies() {
        let hlo = "HloModule m\nmul {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT s = s32[] multiply(a, b)\n}\nENTRY e {\n x = s32[3] parameter(0)\n y = s32[3] parameter(1)\n ROOT r = s32[3] map(x, y), dimensions={0}, to_apply=mul\n}\n";
        assert_eq!(
            run_text(hlo, &["s32[3] {1, 2, 3}", "s32[3] {4, 5, 6}"]),
            "s32[3] {4, 10, 18}"
        );
    }

    #[test]
    fn map_refuses_partial_dimensions() {
        let hlo = "HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n x = f32[2,2] parameter(0)\n ROOT r = f32[2,2] map(x, x), dimensions={1}, to_apply=add\n}\n";
        let e = parse_and_verify(hlo).unwrap_err();
        assert_eq!(e.rule.as_deref(), Some("map.dimensions_all"));
    }

    /// A long fold is cut into blocks of 4096 (block 0 from the init value, later blocks from
    /// their first element, the block results combined left to right): `2^24` followed by 4095
    /// zeros and 4102 ones sums to `2^24 + 4096 + 6` exactly, where one sequential chain would
    /// lose every one next to `2^24`. Every path gives it: the typed loop on unit-stride and
    /// strided data, the interpreter one element at a time and in lanes, and a variadic reducer.
    #[test]
    fn long_folds_combine_blocks_of_4096_on_every_path() {
        let n = 8198;
        let blocked = 16_781_318.0f32;
        assert_eq!(blocked, 16_777_216.0 + 4096.0 + 6.0);
        let value = |t: usize| match t {
            0 => 16_777_216.0f32,
            t if t < 4096 => 0.0,
            _ => 1.0,
        };
        let sequential = (0..n).fold(0.0f32, |a, t| a + value(t));
        assert_eq!(sequential, 16_777_216.0);
        let vals: Vec<String> = (0..n).map(|t| value(t).to_string()).collect();
        let row = format!("{{{}}}", vals.join(", "));
        // The same values along dimension 1 of a [4, n] array, and along dimension 0 of [n, 2].
        let rows = format!("f32[4,{n}] {{{}}}", vec![row.clone(); 4].join(", "));
        let cols: Vec<String> = (0..n).map(|t| format!("{{{0}, {0}}}", value(t))).collect();
        let cols = format!("f32[{n},2] {{{}}}", cols.join(", "));
        for extra in ["", "unused = s32[] constant(0)"] {
            let module = |shape: &str, out: &str, dim: usize| {
                format!(
                    "HloModule m\nadd {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n {extra}\n ROOT s = f32[] add(a, b)\n}}\nENTRY e {{\n p = {shape} parameter(0)\n z = f32[] constant(0)\n ROOT r = {out} reduce(p, z), dimensions={{{dim}}}, to_apply=add\n}}\n"
                )
            };
            let one = format!("f32[{n}] {row}");
            let want = |k: usize| format!("{{{}}}", vec!["16781318"; k].join(", "));
            assert_eq!(
                run_text(&module(&format!("f32[{n}]"), "f32[]", 0), &[&one]),
                "f32[] 16781318",
                "{extra}"
            );
            assert_eq!(
                run_text(&module(&format!("f32[4,{n}]"), "f32[4]", 1), &[&rows]),
                format!("f32[4] {}", want(4)),
                "{extra}"
            );
            assert_eq!(
                run_text(&module(&format!("f32[{n},2]"), "f32[2]", 0), &[&cols]),
                format!("f32[2] {}", want(2)),
                "{extra}"
            );
        }
        // Sum and count in one variadic reduce (always interpreted).
        let hlo = format!(
            "HloModule m\nsc {{\n s = f32[] parameter(0)\n c = s32[] parameter(1)\n x = f32[] parameter(2)\n y = s32[] parameter(3)\n a = f32[] add(s, x)\n b = s32[] add(c, y)\n ROOT r = (f32[], s32[]) tuple(a, b)\n}}\nENTRY e {{\n p = f32[{n}] parameter(0)\n i = s32[{n}] broadcast(s32[] constant(1)), dimensions={{}}\n z = f32[] constant(0)\n zi = s32[] constant(0)\n ROOT r = (f32[], s32[]) reduce(p, i, z, zi), dimensions={{0}}, to_apply=sc\n}}\n"
        );
        assert_eq!(
            run_text(&hlo, &[&format!("f32[{n}] {row}")]),
            format!("(f32[] 16781318, s32[] {n})")
        );
    }

    /// The recognised-reducer fast path and the interpreter agree bit for bit, including the
    /// order-sensitive cases: which of -0/+0 a tie keeps, NaN propagation, F16 rounding.
    #[test]
    fn fast_path_agrees_with_interpreter() {
        let cases = [
            (
                "f32",
                "maximum",
                "f32[6] {0, -0.0, nan, 1, -0.0, 0}",
                "-inf",
            ),
            ("f32", "minimum", "f32[6] {-0.0, 0, 1, 0, nan, 2}", "inf"),
            ("f16", "add", "f16[4] {2048, 1, 1, 0.5}", "0"),
            ("bf16", "multiply", "bf16[3] {3, 0.1, 7}", "1"),
            ("s8", "add", "s8[3] {100, 100, 1}", "0"),
        ];
        for (ty, op, data, init) in cases {
            for (a, b) in [("a", "b"), ("b", "a")] {
                let mk = |extra: &str| {
                    format!(
                        "HloModule m\nf {{\n a = {ty}[] parameter(0)\n b = {ty}[] parameter(1)\n {extra}\n ROOT r = {ty}[] {op}({a}, {b})\n}}\nENTRY e {{\n p = {} parameter(0)\n i = {ty}[] constant({init})\n ROOT r = {ty}[] reduce(p, i), dimensions={{0}}, to_apply=f\n}}\n",
                        data.split(' ').next().unwrap_or("")
                    )
                };
                // The fast path recognises the plain reducer and not the one with an extra
                // instruction, so the two runs take different paths.
                for (extra, fast_path) in [("", true), ("unused = s32[] constant(0)", false)] {
                    let m = parse_and_verify(&mk(extra)).unwrap();
                    let f = m.computation_by_name("f").unwrap();
                    assert_eq!(
                        super::fast::recognise_reducer(&m, f).is_some(),
                        fast_path,
                        "{extra}"
                    );
                }
                let fast = try_run(&mk(""), &[data]);
                let general = try_run(&mk("unused = s32[] constant(0)"), &[data]);
                assert!(!fast.starts_with("error"), "{fast}");
                assert_eq!(fast, general, "{ty} {op}({a}, {b})");
            }
        }
    }
}
