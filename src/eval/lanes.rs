//! Scalar computations run on many independent inputs at once.
//!
//! Reducers, comparators and mapped computations are tiny computations on scalars, called once
//! per element pair: a row-wise argmax over a million elements calls its reducer a million
//! times, and each call through the general interpreter builds and drops a literal per
//! instruction. When every value of such a computation is a scalar and every instruction is an
//! element-wise op, a parameter, a constant or (at the root) a tuple, the same instructions can
//! instead run on "lanes": arrays holding one independent input per element. Each instruction
//! then runs once per step on all lanes, through the very same element-wise code the arrays of a
//! program go through, so the results are bit for bit those of calling the computation lane by
//! lane. (The technique is the SIMT view of a scalar program; the reference keeps it exact by
//! never reordering anything within a lane.)

use super::Evaluator;
use crate::error::{Error, Result};
use crate::hlo::ast::{CompId, Instruction};
use crate::hlo::opcode::{MovementOp, Op};
use crate::literal::{Array, ArrayData, Literal};
use crate::shape::{ArrayShape, Shape};

/// A computation ready to run on `lanes` lanes: its instructions with array shapes of that
/// length, and what is live.
pub struct LaneProgram {
    insts: Vec<Instruction>,
    /// Per instruction, whether the roots need it.
    live: Vec<bool>,
    /// The root's values: the root itself, or the operands of a root tuple.
    outputs: Vec<usize>,
    params: usize,
    lanes: usize,
}

impl LaneProgram {
    /// The program of computation `comp`, or `None` when it is not made of scalar element-wise
    /// work only (any other op, a non-scalar value, or no instruction at all).
    pub fn compile(ev: &Evaluator, comp: CompId, lanes: usize) -> Option<LaneProgram> {
        let c = ev.module.computations.get(comp)?;
        let scalar = |s: &Shape| s.as_array().is_some_and(|a| a.dims.is_empty());
        let lane_shape = |s: &Shape| -> Option<Shape> {
            let a = s.as_array()?;
            Some(Shape::Array(ArrayShape::new(a.ty, vec![lanes as i64])))
        };
        let root = c.instructions.get(c.root)?;
        let outputs: Vec<usize> = match (&root.op, &root.shape) {
            (Op::Movement(MovementOp::Tuple), Shape::Tuple(parts)) => {
                if !parts.iter().all(scalar) {
                    return None;
                }
                root.operands.clone()
            }
            _ if scalar(&root.shape) => vec![c.root],
            _ => return None,
        };
        let mut live = vec![false; c.instructions.len()];
        let mut todo = outputs.clone();
        while let Some(i) = todo.pop() {
            if !live[i] {
                live[i] = true;
                todo.extend(c.instructions.get(i)?.operands.iter().copied());
            }
        }
        let mut insts = Vec::with_capacity(c.instructions.len());
        let mut params = 0;
        for (i, inst) in c.instructions.iter().enumerate() {
            let ok = match &inst.op {
                Op::Movement(MovementOp::Parameter(p)) => {
                    params = params.max(p.number as usize + 1);
                    scalar(&inst.shape)
                }
                Op::Movement(MovementOp::Constant(_)) => scalar(&inst.shape),
                Op::Unary(_) | Op::Binary(_) | Op::Elementwise(_) => scalar(&inst.shape),
                Op::Movement(MovementOp::Tuple) => i == c.root || !live[i],
                _ => !live[i],
            };
            if !ok {
                return None;
            }
            let mut lane = inst.clone();
            if scalar(&inst.shape) {
                lane.shape = lane_shape(&inst.shape)?;
            }
            insts.push(lane);
        }
        Some(LaneProgram {
            insts,
            live,
            outputs,
            params,
            lanes,
        })
    }

    /// Runs the program once on every lane: `args[p]` holds parameter `p`'s value in each lane
    /// (`lanes` elements). Returns the root's value (or each element of a root tuple) per lane.
    pub fn run(&self, ev: &Evaluator, args: &[ArrayData]) -> Result<Vec<ArrayData>> {
        if args.len() < self.params || args.iter().any(|a| a.len() != self.lanes) {
            return Err(Error::internal(
                "lane arguments of the wrong count or length",
            ));
        }
        let mut values: Vec<Option<Literal>> = vec![None; self.insts.len()];
        for (i, inst) in self.insts.iter().enumerate() {
            if !self.live[i] {
                continue;
            }
            let lane_array = |data: ArrayData| -> Result<Literal> {
                let ty = data.ty();
                Array::from_data(ArrayShape::new(ty, vec![self.lanes as i64]), data)
                    .map(Literal::Array)
            };
            let v = match &inst.op {
                Op::Movement(MovementOp::Parameter(p)) => {
                    let data = args
                        .get(p.number as usize)
                        .cloned()
                        .ok_or_else(|| Error::internal("lane argument missing"))?;
                    lane_array(data)?
                }
                Op::Movement(MovementOp::Constant(k)) => {
                    let s = k
                        .literal
                        .scalar_value()
                        .ok_or_else(|| Error::internal("a scalar constant expected"))?;
                    lane_array(ArrayData::splat(s, self.lanes))?
                }
                _ => {
                    let ops: Vec<&Literal> = inst
                        .operands
                        .iter()
                        .map(|&o| {
                            values[o]
                                .as_ref()
                                .ok_or_else(|| Error::internal("lane operand missing"))
                        })
                        .collect::<Result<_>>()?;
                    ev.eval(inst, &ops)?
                }
            };
            values[i] = Some(v);
        }
        self.outputs
            .iter()
            .map(|&o| {
                values[o]
                    .clone()
                    .ok_or_else(|| Error::internal("lane result missing"))?
                    .into_array()
                    .map(|a| a.data)
            })
            .collect()
    }
}

/// The parameters instruction `i` of computation `comp` depends on (a bit set over parameter
/// numbers below 64; `None` past that).
pub fn param_deps(ev: &Evaluator, comp: CompId, i: usize) -> Option<u64> {
    let c = ev.module.computations.get(comp)?;
    let mut seen = vec![false; c.instructions.len()];
    let mut todo = vec![i];
    let mut deps = 0u64;
    while let Some(j) = todo.pop() {
        if std::mem::replace(seen.get_mut(j)?, true) {
            continue;
        }
        let inst = c.instructions.get(j)?;
        if let Op::Movement(MovementOp::Parameter(p)) = &inst.op {
            deps |= 1u64.checked_shl(p.number as u32).filter(|&b| b != 0)?;
        }
        todo.extend(inst.operands.iter().copied());
    }
    Some(deps)
}

/// A program for one value of a computation: instruction `value` as if it were the root.
pub fn compile_value(
    ev: &Evaluator,
    comp: CompId,
    value: usize,
    lanes: usize,
) -> Option<LaneProgram> {
    let mut p = LaneProgram::compile(ev, comp, lanes)?;
    p.outputs = vec![value];
    p.live = vec![false; p.insts.len()];
    let mut todo = vec![value];
    while let Some(i) = todo.pop() {
        if !*p.live.get(i)? {
            p.live[i] = true;
            todo.extend(p.insts[i].operands.iter().copied());
        }
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use crate::eval::{RunOptions, run};
    use crate::hlo::parse_literal;
    use crate::verify::parse_and_verify;

    fn run_text(hlo: &str, args: &[&str]) -> String {
        let m = parse_and_verify(hlo).unwrap_or_else(|e| panic!("{e}"));
        let args = args.iter().map(|a| parse_literal(a).unwrap()).collect();
        run(&m, args, &RunOptions::default())
            .map(|o| o.result.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    /// JAX's argmax reducer: (value, index) pairs, NaN wins, ties keep the lower index.
    const ARGMAX: &str = "argmax {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n  b = f32[] parameter(2)\n  j = s32[] parameter(3)\n  gt = pred[] compare(a, b), direction=GT\n  nan = pred[] compare(a, a), direction=NE\n  pick_a = pred[] or(gt, nan)\n  eq = pred[] compare(a, b), direction=EQ\n  lt = pred[] compare(i, j), direction=LT\n  tie = pred[] and(eq, lt)\n  take = pred[] or(pick_a, tie)\n  v = f32[] select(take, a, b)\n  k = s32[] select(take, i, j)\n  ROOT t = (f32[], s32[]) tuple(v, k)\n}\n";

    /// Rows reduced all at once (one lane per row) give what each row reduced alone gives (one
    /// element: the element-by-element interpreter).
    #[test]
    fn a_reducer_on_lanes_matches_the_interpreter_row_by_row() {
        let rows = [
            "{3, nan, 7, 7, -0, 1}",
            "{-inf, -inf, -1, -2, -3, -4}",
            "{5, 5, 5, 5, 5, 5}",
            "{0, -0.0, 1e-45, -1e-45, nan, 2}",
            "{1, 2, 3, 4, 5, 6}",
        ];
        let module = |r: usize| {
            format!(
                "HloModule m\n{ARGMAX}ENTRY e {{\n  x = f32[{r},6] parameter(0)\n  i = s32[{r},6] iota(), iota_dimension=1\n  lo = f32[] constant(-inf)\n  z = s32[] constant(0)\n  ROOT r = (f32[{r}], s32[{r}]) reduce(x, i, lo, z), dimensions={{1}}, to_apply=argmax\n}}\n"
            )
        };
        let all = format!("f32[5,6] {{{}}}", rows.join(", "));
        let together = run_text(&module(5), &[&all]);
        let (mut vals, mut idxs) = (vec![], vec![]);
        for row in rows {
            let one = run_text(&module(1), &[&format!("f32[1,6] {{{row}}}")]);
            // "(f32[1] {v}, s32[1] {k})"
            let parts: Vec<&str> = one.split(['{', '}']).collect();
            vals.push(parts[1].trim().to_string());
            idxs.push(parts[3].trim().to_string());
        }
        assert_eq!(
            together,
            format!(
                "(f32[5] {{{}}}, s32[5] {{{}}})",
                vals.join(", "),
                idxs.join(", ")
            )
        );
        assert_eq!(idxs, ["1", "2", "0", "4", "5"]);
    }

    /// JAX's sort comparator (canonicalise -0 and NaN, then a total-order LT) sorts through keys;
    /// the same comparator with an always-true conjunct at its root cannot, and is interpreted
    /// comparison by comparison. Both must order alike, stably.
    #[test]
    fn sort_keys_order_as_the_interpreted_comparator() {
        let canon = "  z = f32[] constant(0)\n  qnan = f32[] constant(nan)\n  az = pred[] compare(a, z), direction=EQ\n  a1 = f32[] select(az, z, a)\n  an = pred[] compare(a, a), direction=NE\n  ka = f32[] select(an, qnan, a1)\n  bz = pred[] compare(b, z), direction=EQ\n  b1 = f32[] select(bz, z, b)\n  bn = pred[] compare(b, b), direction=NE\n  kb = f32[] select(bn, qnan, b1)\n  lt = pred[] compare(ka, kb), direction=LT, type=TOTALORDER\n";
        let with_root = |root: &str| {
            format!(
                "HloModule m\ncmp {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n{canon}{root}}}\nENTRY e {{\n  x = f32[2,9] parameter(0)\n  i = s32[2,9] iota(), iota_dimension=1\n  ROOT s = (f32[2,9], s32[2,9]) sort(x, i), dimensions={{1}}, is_stable=true, to_apply=cmp\n}}\n"
            )
        };
        let keyed = with_root("  ROOT r = pred[] compare(ka, kb), direction=LT, type=TOTALORDER\n");
        let interpreted = with_root(
            "  aa = pred[] compare(a, a), direction=EQ\n  ok = pred[] or(aa, an)\n  ROOT r = pred[] and(lt, ok)\n",
        );
        let x = "f32[2,9] {{nan, -0.0, 0, 1, -nan, -1, 0, nan, -inf}, {2, 2, -0.0, 0, 1, 1, -0.0, 3, 0}}";
        let a = run_text(&keyed, &[x]);
        let b = run_text(&interpreted, &[x]);
        assert_eq!(a, b);
        assert!(
            a.contains("s32[2,9] {{8, 5, 1, 2, 6, 3, 0, 4, 7}, {2, 3, 6, 8, 4, 5, 0, 1, 7}}"),
            "{a}"
        );
    }

    /// A mapped computation runs on all elements at once.
    #[test]
    fn map_runs_on_lanes() {
        let m = "HloModule m\nf {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] constant(2)\n  d = f32[] multiply(a, c)\n  ROOT s = f32[] subtract(d, b)\n}\nENTRY e {\n  x = f32[5] parameter(0)\n  y = f32[5] parameter(1)\n  ROOT r = f32[5] map(x, y), dimensions={0}, to_apply=f\n}\n";
        assert_eq!(
            run_text(
                m,
                &["f32[5] {1, 2, 3, nan, -0.0}", "f32[5] {1, 1, 1, 1, 0}"]
            ),
            "f32[5] {1, 3, 5, nan, -0.0}"
        );
    }
}
