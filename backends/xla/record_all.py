#!/usr/bin/env python3
"""Records golden cases whose expected values come from XLA, for every op family XLA:CPU runs.

Each case below is a small module; `xla-spec golden record` runs it on the XLA adapter (with
arguments drawn by --random-args from the case's seed, or given explicitly where an op needs
particular inputs, such as a positive definite matrix for cholesky) and writes it, with the
backend's name and version as provenance, into golden/<family>/xla_recorded.json.

    python3 backends/xla/record_all.py [--xla-spec PATH] [--backend CMD] [--only TEXT]

The files are rewritten from scratch (every case is recorded again). Ops XLA:CPU cannot run
(infeed, outfeed, send/recv, custom-call, the stateful rng ops, dynamic-shaped results) get no
recorded case; the expected-failures file and the XLA report page say why.
"""

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Tolerances for results XLA computes with its own approximations (transcendental functions) or
# in an order the specification leaves open (reductions, dot, convolution).
F32_APPROX = '{"atol": 1e-6, "rtol": 1e-5}'
F64_APPROX = '{"atol": 1e-13, "rtol": 1e-12}'
HALF_APPROX = '{"ulp": 1}'


def approx(ty):
    return {"f32": F32_APPROX, "c64": F32_APPROX, "f64": F64_APPROX, "c128": F64_APPROX}.get(ty, HALF_APPROX)


CASES = []  # (family, name, hlo, options dict)


def case(family, name, hlo, **opts):
    header = "HloModule m" + (f", replica_count={opts['replicas']}" if opts.get("replicas") else "")
    CASES.append((family, name, header + "\n\n" + hlo.strip() + "\n", opts))


def unary(op, ty, shape="[6]", out=None, tol=None, pre=None):
    out = out or ty
    body = f"  p = {ty}{shape} parameter(0)\n"
    x = "p"
    if pre:
        body += f"  a = {ty}{shape} {pre}(p)\n"
        x = "a"
    body += f"  ROOT r = {out}{shape} {op}({x})\n"
    case("elementwise", f"{op.replace('-', '_')}_{ty}", "ENTRY e {\n" + body + "}", tolerance=tol)


def binary(op, ty, out=None, tol=None, suffix=""):
    out = out or ty
    case("elementwise", f"{op.replace('-', '_')}_{ty}{suffix}",
         f"ENTRY e {{\n  a = {ty}[8] parameter(0)\n  b = {ty}[8] parameter(1)\n"
         f"  ROOT r = {out}[8] {op}(a, b)\n}}", tolerance=tol)


# ---------------------------------------------------------------- elementwise
EXACT_UNARY = ["abs", "negate", "ceil", "floor", "round-nearest-afz", "round-nearest-even", "sign"]
APPROX_UNARY = ["cbrt", "cosine", "erf", "exponential", "exponential-minus-one", "logistic", "sine",
                "tan", "tanh"]
POSITIVE_UNARY = ["log", "log-plus-one", "rsqrt", "sqrt"]
for ty in ["f32", "f64", "bf16", "f16"]:
    for op in EXACT_UNARY:
        unary(op, ty)
    for op in APPROX_UNARY:
        unary(op, ty, tol=approx(ty))
    for op in POSITIVE_UNARY:
        # abs first: the interesting part of these is their positive domain (log(0) = -inf stays).
        unary(op, ty, tol=approx(ty), pre="abs")
    unary("is-finite", ty, out="pred")
for ty in ["s8", "s32", "s64"]:
    for op in ["abs", "negate", "sign", "not", "popcnt", "count-leading-zeros"]:
        unary(op, ty)
for ty in ["u8", "u32"]:
    for op in ["not", "popcnt", "count-leading-zeros"]:
        unary(op, ty)
unary("not", "pred")
for ty in ["c64", "c128"]:
    for op in ["negate", "abs"]:
        unary(op, ty, out="f32" if (op == "abs" and ty == "c64") else ("f64" if op == "abs" else ty),
              tol=approx(ty) if op == "abs" else None)
    for op in ["real", "imag"]:
        unary(op, ty, out="f32" if ty == "c64" else "f64")
    unary("exponential", ty, tol=approx(ty))

for ty in ["f32", "f64", "bf16"]:
    for op in ["add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder"]:
        binary(op, ty)
    for op in ["power", "atan2"]:
        binary(op, ty, tol=approx(ty))
for ty in ["s8", "s32", "s64", "u8", "u32"]:
    for op in ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
               "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "power"]:
        binary(op, ty)
for op in ["and", "or", "xor"]:
    binary(op, "pred")
binary("complex", "f32", out="c64")
binary("add", "c64")
binary("multiply", "c64", tol=F32_APPROX)
for ty in ["f32", "s32", "u32", "bf16"]:
    for d in ["EQ", "NE", "LT", "LE", "GT", "GE"]:
        case("elementwise", f"compare_{d.lower()}_{ty}",
             f"ENTRY e {{\n  a = {ty}[8] parameter(0)\n  b = {ty}[8] parameter(1)\n"
             f"  ROOT r = pred[8] compare(a, b), direction={d}\n}}")
case("elementwise", "compare_totalorder_f32",
     "ENTRY e {\n  a = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n"
     "  ROOT r = pred[8] compare(a, b), direction=LT, type=TOTALORDER\n}")
for ty in ["f32", "s32"]:
    case("elementwise", f"select_{ty}",
         f"ENTRY e {{\n  c = pred[8] parameter(0)\n  a = {ty}[8] parameter(1)\n  b = {ty}[8] parameter(2)\n"
         f"  ROOT r = {ty}[8] select(c, a, b)\n}}")
    case("elementwise", f"clamp_{ty}",
         f"ENTRY e {{\n  lo = {ty}[] parameter(0)\n  x = {ty}[8] parameter(1)\n  hi = {ty}[] parameter(2)\n"
         f"  ROOT r = {ty}[8] clamp(lo, x, hi)\n}}")
for src, dst in [("f32", "s32"), ("s32", "f32"), ("f32", "bf16"), ("f32", "f16"), ("f64", "f32"),
                 ("s32", "s8"), ("s32", "pred"), ("pred", "s32"), ("u8", "s8"), ("s8", "u32"),
                 ("f32", "f64"), ("bf16", "f32"), ("s32", "c64"), ("f32", "c64")]:
    case("elementwise", f"convert_{src}_to_{dst}",
         f"ENTRY e {{\n  p = {src}[8] parameter(0)\n  ROOT r = {dst}[8] convert(p)\n}}")
for src, dst in [("f32", "s32"), ("s32", "f32"), ("u8", "s8"), ("f64", "s64"), ("f16", "u16")]:
    case("elementwise", f"bitcast_convert_{src}_to_{dst}",
         f"ENTRY e {{\n  p = {src}[6] parameter(0)\n  ROOT r = {dst}[6] bitcast-convert(p)\n}}")
case("elementwise", "bitcast_convert_f32_to_u8_widening",
     "ENTRY e {\n  p = f32[3] parameter(0)\n  ROOT r = u8[3,4] bitcast-convert(p)\n}")
for e, m in [(5, 10), (8, 7), (4, 3)]:
    case("elementwise", f"reduce_precision_f32_e{e}m{m}",
         f"ENTRY e {{\n  p = f32[8] parameter(0)\n  ROOT r = f32[8] reduce-precision(p), exponent_bits={e}, mantissa_bits={m}\n}}")

# ---------------------------------------------------------------- movement
M = "movement"
for ty in ["f32", "s32", "pred", "bf16", "c64", "u64"]:
    case(M, f"transpose_{ty}", f"ENTRY e {{\n  p = {ty}[2,3,4] parameter(0)\n  ROOT r = {ty}[4,2,3] transpose(p), dimensions={{2,0,1}}\n}}")
    case(M, f"reverse_{ty}", f"ENTRY e {{\n  p = {ty}[3,4] parameter(0)\n  ROOT r = {ty}[3,4] reverse(p), dimensions={{0,1}}\n}}")
case(M, "broadcast_scalar", "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[2,3] broadcast(p), dimensions={}\n}")
case(M, "broadcast_middle", "ENTRY e {\n  p = s32[3] parameter(0)\n  ROOT r = s32[2,3,2] broadcast(p), dimensions={1}\n}")
case(M, "broadcast_outer_dims", "ENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT r = f32[2,4,3] broadcast(p), dimensions={0,2}\n}")
case(M, "concatenate_dim0", "ENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[1,3] parameter(1)\n  ROOT r = f32[3,3] concatenate(a, b), dimensions={0}\n}")
case(M, "concatenate_three_dim1", "ENTRY e {\n  a = s32[2,1] parameter(0)\n  b = s32[2,3] parameter(1)\n  c = s32[2,2] parameter(2)\n  ROOT r = s32[2,6] concatenate(a, b, c), dimensions={1}\n}")
case(M, "copy", "ENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT r = f32[2,3] copy(p)\n}")
case(M, "copy_relayout", "ENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT r = f32[2,3]{0,1} copy(p)\n}")
for ty, dims, d in [("s32", "[5]", 0), ("f32", "[2,3]", 1), ("u8", "[3,2,2]", 0), ("bf16", "[4]", 0)]:
    case(M, f"iota_{ty}_dim{d}", f"ENTRY e {{\n  ROOT r = {ty}{dims} iota(), iota_dimension={d}\n}}")
case(M, "pad_edges", "ENTRY e {\n  p = f32[2,3] parameter(0)\n  z = f32[] parameter(1)\n  ROOT r = f32[4,6] pad(p, z), padding=1_1x2_1\n}")
case(M, "pad_interior", "ENTRY e {\n  p = s32[3] parameter(0)\n  z = s32[] constant(0)\n  ROOT r = s32[7] pad(p, z), padding=0_0_2\n}")
case(M, "pad_negative", "ENTRY e {\n  p = f32[5] parameter(0)\n  z = f32[] constant(9)\n  ROOT r = f32[6] pad(p, z), padding=-1_2_0\n}")
case(M, "pad_mixed_2d", "ENTRY e {\n  p = s32[2,2] parameter(0)\n  z = s32[] constant(-1)\n  ROOT r = s32[4,3] pad(p, z), padding=-1_2_1x0_0_1\n}")
case(M, "reshape_split", "ENTRY e {\n  p = f32[6] parameter(0)\n  ROOT r = f32[2,3] reshape(p)\n}")
case(M, "reshape_merge", "ENTRY e {\n  p = s32[2,3,2] parameter(0)\n  ROOT r = s32[3,4] reshape(p)\n}")
case(M, "reshape_to_scalar", "ENTRY e {\n  p = f32[1,1] parameter(0)\n  ROOT r = f32[] reshape(p)\n}")
case(M, "slice_basic", "ENTRY e {\n  p = f32[4,5] parameter(0)\n  ROOT r = f32[2,3] slice(p), slice={[1:3], [1:4]}\n}")
case(M, "slice_strided", "ENTRY e {\n  p = s32[10] parameter(0)\n  ROOT r = s32[3] slice(p), slice={[1:8:3]}\n}")
case(M, "slice_strided_2d", "ENTRY e {\n  p = f32[5,6] parameter(0)\n  ROOT r = f32[2,2] slice(p), slice={[0:5:3], [1:6:4]}\n}")
for ty in ["f32", "s32"]:
    case(M, f"dynamic_slice_{ty}", f"ENTRY e {{\n  p = {ty}[5,4] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)\n  ROOT r = {ty}[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={{2,2}}\n}}")
    case(M, f"dynamic_update_slice_{ty}", f"ENTRY e {{\n  p = {ty}[5,4] parameter(0)\n  u = {ty}[2,3] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = {ty}[5,4] dynamic-update-slice(p, u, i, j)\n}}")
case(M, "dynamic_slice_clamped", "ENTRY e {\n  p = s32[6] parameter(0)\n  i = s32[] constant(5)\n  ROOT r = s32[3] dynamic-slice(p, i), dynamic_slice_sizes={3}\n}")
case(M, "dynamic_slice_negative_start", "ENTRY e {\n  p = s32[6] parameter(0)\n  i = s32[] constant(-4)\n  ROOT r = s32[3] dynamic-slice(p, i), dynamic_slice_sizes={3}\n}")
case(M, "dynamic_update_slice_clamped", "ENTRY e {\n  p = f32[6] parameter(0)\n  u = f32[2] parameter(1)\n  i = u32[] constant(9)\n  ROOT r = f32[6] dynamic-update-slice(p, u, i)\n}")
case(M, "tuple_and_get_tuple_element", "ENTRY e {\n  a = f32[2] parameter(0)\n  b = s32[] parameter(1)\n  t = (f32[2], s32[]) tuple(a, b)\n  g = s32[] get-tuple-element(t), index=1\n  h = f32[2] get-tuple-element(t), index=0\n  ROOT r = (s32[], f32[2]) tuple(g, h)\n}")
case(M, "tuple_parameter", "ENTRY e {\n  p = (f32[3], (s32[], u8[2])) parameter(0)\n  q = (s32[], u8[2]) get-tuple-element(p), index=1\n  ROOT r = u8[2] get-tuple-element(q), index=1\n}")
case(M, "constant_array", "ENTRY e {\n  c = f32[2,2] constant({{1.5, -2}, {0.25, 3}})\n  p = f32[2,2] parameter(0)\n  ROOT r = f32[2,2] add(c, p)\n}")
case(M, "bitcast_same_shape", "ENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT r = f32[2,3] bitcast(p)\n}")
case(M, "get_dimension_size_static", "ENTRY e {\n  p = f32[4,7] parameter(0)\n  ROOT r = s32[] get-dimension-size(p), dimensions={1}\n}")
case(M, "set_dimension_size_then_reduce", "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = s32[] add(a, b)\n}\n\nENTRY e {\n  p = s32[6] parameter(0)\n  n = s32[] constant(4)\n  d = s32[<=6] set-dimension-size(p, n), dimensions={0}\n  z = s32[] constant(0)\n  ROOT r = s32[] reduce(d, z), dimensions={0}, to_apply=add\n}")

# ---------------------------------------------------------------- indexing
I = "indexing"
case(I, "gather_rows", "ENTRY e {\n  x = f32[5,3] parameter(0)\n  i = s32[4] parameter(1)\n  ROOT r = f32[4,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}\n}")
case(I, "gather_2d_points", "ENTRY e {\n  x = s32[4,4] parameter(0)\n  i = s32[3,2] parameter(1)\n  ROOT r = s32[3] gather(x, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}\n}")
case(I, "gather_windows", "ENTRY e {\n  x = f32[6,5] parameter(0)\n  i = s32[2,2] parameter(1)\n  ROOT r = f32[2,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}\n}")
case(I, "gather_clamped_start", "ENTRY e {\n  x = s32[5] parameter(0)\n  i = s32[2,1] constant({{4}, {-3}})\n  ROOT r = s32[2,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={3}\n}")
case(I, "gather_batching_dims", "ENTRY e {\n  x = f32[2,4,3] parameter(0)\n  i = s32[2,2,1] parameter(1)\n  ROOT r = f32[2,2,3] gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,3}\n}")
ADD = "add {\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT c = {t}[] add(a, b)\n}\n\n"
MAX = "max {\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT c = {t}[] maximum(a, b)\n}\n\n"
for ty in ["f32", "s32"]:
    case(I, f"scatter_add_rows_{ty}", ADD.replace("{t}", ty) + f"ENTRY e {{\n  x = {ty}[5,3] parameter(0)\n  i = s32[4] parameter(1)\n  u = {ty}[4,3] parameter(2)\n  ROOT r = {ty}[5,3] scatter(x, i, u), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add\n}}")
case(I, "scatter_max_points", MAX.replace("{t}", "s32") + "ENTRY e {\n  x = s32[4,4] parameter(0)\n  i = s32[3,2] parameter(1)\n  u = s32[3] parameter(2)\n  ROOT r = s32[4,4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=max\n}")
case(I, "scatter_out_of_bounds_skipped", ADD.replace("{t}", "f32") + "ENTRY e {\n  x = f32[5] parameter(0)\n  i = s32[3,1] constant({{1}, {4}, {7}})\n  u = f32[3,2] parameter(1)\n  ROOT r = f32[5] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}")
case(I, "scatter_overwrite_unique", "assign {\n  a = f32[] parameter(0)\n  ROOT b = f32[] parameter(1)\n}\n\nENTRY e {\n  x = f32[6] parameter(0)\n  i = s32[3] constant({4, 0, 2})\n  u = f32[3] parameter(1)\n  ROOT r = f32[6] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign\n}")

# ---------------------------------------------------------------- reduction
R = "reduction"
for ty in ["f32", "s32", "bf16"]:
    tol = approx(ty) if ty != "s32" else None
    case(R, f"reduce_sum_all_{ty}", ADD.replace("{t}", ty) + f"ENTRY e {{\n  p = {ty}[3,4] parameter(0)\n  z = {ty}[] constant(0)\n  ROOT r = {ty}[] reduce(p, z), dimensions={{0,1}}, to_apply=add\n}}", tolerance=tol)
    case(R, f"reduce_sum_dim1_{ty}", ADD.replace("{t}", ty) + f"ENTRY e {{\n  p = {ty}[3,4] parameter(0)\n  z = {ty}[] constant(0)\n  ROOT r = {ty}[3] reduce(p, z), dimensions={{1}}, to_apply=add\n}}", tolerance=tol)
    case(R, f"reduce_max_dim0_{ty}", MAX.replace("{t}", ty) + f"ENTRY e {{\n  p = {ty}[3,4] parameter(0)\n  z = {ty}[] constant(-100)\n  ROOT r = {ty}[4] reduce(p, z), dimensions={{0}}, to_apply=max\n}}")
case(R, "reduce_argmax_variadic", "argmax {\n  av = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  bv = f32[] parameter(2)\n  bi = s32[] parameter(3)\n  gt = pred[] compare(av, bv), direction=GT\n  eq = pred[] compare(av, bv), direction=EQ\n  lt = pred[] compare(ai, bi), direction=LT\n  tie = pred[] and(eq, lt)\n  keep = pred[] or(gt, tie)\n  v = f32[] select(keep, av, bv)\n  i = s32[] select(keep, ai, bi)\n  ROOT r = (f32[], s32[]) tuple(v, i)\n}\n\nENTRY e {\n  p = f32[3,5] parameter(0)\n  i = s32[3,5] iota(), iota_dimension=1\n  ninf = f32[] constant(-inf)\n  z = s32[] constant(0)\n  ROOT r = (f32[3], s32[3]) reduce(p, i, ninf, z), dimensions={1}, to_apply=argmax\n}")
case(R, "reduce_window_sum_strided", ADD.replace("{t}", "f32") + "ENTRY e {\n  p = f32[4,6] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2,3] reduce-window(p, z), window={size=2x2 stride=2x2}, to_apply=add\n}")
case(R, "reduce_window_max_padded", MAX.replace("{t}", "s32") + "ENTRY e {\n  p = s32[5] parameter(0)\n  z = s32[] constant(-100)\n  ROOT r = s32[5] reduce-window(p, z), window={size=3 pad=1_1}, to_apply=max\n}")
case(R, "reduce_window_dilated", ADD.replace("{t}", "s32") + "ENTRY e {\n  p = s32[7] parameter(0)\n  z = s32[] constant(0)\n  ROOT r = s32[2] reduce-window(p, z), window={size=3 stride=2 rhs_dilate=2}, to_apply=add\n}")
case(R, "reduce_window_base_dilated", ADD.replace("{t}", "s32") + "ENTRY e {\n  p = s32[4] parameter(0)\n  z = s32[] constant(0)\n  ROOT r = s32[6] reduce-window(p, z), window={size=2 lhs_dilate=2}, to_apply=add\n}")
case(R, "select_and_scatter_max_pool_grad", "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n\n" + ADD.replace("{t}", "f32") + "ENTRY e {\n  p = f32[4,6] parameter(0)\n  s = f32[2,3] parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[4,6] select-and-scatter(p, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add\n}")
case(R, "select_and_scatter_overlapping", "ge {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n\n" + ADD.replace("{t}", "s32") + "ENTRY e {\n  p = s32[6] parameter(0)\n  s = s32[3] parameter(1)\n  z = s32[] constant(0)\n  ROOT r = s32[6] select-and-scatter(p, s, z), window={size=3 stride=2 pad=0_1}, select=ge, scatter=add\n}")
LT = "lt {\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LT\n}\n\n"
for ty in ["f32", "s32", "u8"]:
    case(R, f"sort_ascending_{ty}", LT.replace("{t}", ty) + f"ENTRY e {{\n  p = {ty}[10] parameter(0)\n  ROOT r = {ty}[10] sort(p), dimensions={{0}}, to_apply=lt\n}}")
case(R, "sort_rows_2d", LT.replace("{t}", "f32") + "ENTRY e {\n  p = f32[3,5] parameter(0)\n  ROOT r = f32[3,5] sort(p), dimensions={1}, to_apply=lt\n}")
case(R, "sort_stable_with_payload", "lt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n\nENTRY e {\n  k = s32[10] parameter(0)\n  v = f32[10] parameter(1)\n  ROOT r = (s32[10], f32[10]) sort(k, v), dimensions={0}, is_stable=true, to_apply=lt\n}")
case(R, "sort_total_order_f32", "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n\nENTRY e {\n  p = f32[6] constant({0, -0, nan, -inf, 1, -nan})\n  ROOT r = f32[6] sort(p), dimensions={0}, to_apply=lt\n}")
case(R, "map_binary", "f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  m = f32[] multiply(a, b)\n  ROOT c = f32[] subtract(m, a)\n}\n\nENTRY e {\n  x = f32[6] parameter(0)\n  y = f32[6] parameter(1)\n  ROOT r = f32[6] map(x, y), dimensions={0}, to_apply=f\n}")
case(R, "map_unary_s32", "f {\n  a = s32[] parameter(0)\n  ROOT c = s32[] multiply(a, a)\n}\n\nENTRY e {\n  x = s32[2,3] parameter(0)\n  ROOT r = s32[2,3] map(x), dimensions={0,1}, to_apply=f\n}")
case(R, "topk_f32", "ENTRY e {\n  p = f32[2,6] parameter(0)\n  ROOT r = (f32[2,3], s32[2,3]) topk(p), k=3, largest=true\n}")

# ---------------------------------------------------------------- linalg
L = "linalg"
for ty in ["f32", "f64", "s32"]:
    tol = approx(ty) if ty != "s32" else None
    case(L, f"dot_matmul_{ty}", f"ENTRY e {{\n  a = {ty}[3,4] parameter(0)\n  b = {ty}[4,2] parameter(1)\n  ROOT r = {ty}[3,2] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}", tolerance=tol)
    case(L, f"dot_vector_{ty}", f"ENTRY e {{\n  a = {ty}[5] parameter(0)\n  b = {ty}[5] parameter(1)\n  ROOT r = {ty}[] dot(a, b), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}\n}}", tolerance=tol)
case(L, "dot_batched", "ENTRY e {\n  a = f32[2,3,4] parameter(0)\n  b = f32[2,4,3] parameter(1)\n  ROOT r = f32[2,3,3] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}\n}", tolerance=F32_APPROX)
case(L, "dot_transposed_contracting", "ENTRY e {\n  a = f32[4,3] parameter(0)\n  b = f32[2,4] parameter(1)\n  ROOT r = f32[3,2] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n}", tolerance=F32_APPROX)
case(L, "dot_outer_product", "ENTRY e {\n  a = s32[3] parameter(0)\n  b = s32[4] parameter(1)\n  ROOT r = s32[3,4] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}\n}")
case(L, "dot_c64", "ENTRY e {\n  a = c64[2,3] parameter(0)\n  b = c64[3,2] parameter(1)\n  ROOT r = c64[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}", tolerance=F32_APPROX)
case(L, "dot_bf16_to_f32", "ENTRY e {\n  a = bf16[2,4] parameter(0)\n  b = bf16[4,3] parameter(1)\n  ROOT r = f32[2,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}", tolerance=F32_APPROX)
CONV = [
    ("conv2d_nhwc_valid", "f32[1,4,4,2]", "f32[3,3,2,3]", "f32[1,2,2,3]", "window={size=3x3}", "b01f_01io->b01f", ""),
    ("conv2d_padded_strided", "f32[2,5,5,1]", "f32[3,3,1,2]", "f32[2,3,3,2]", "window={size=3x3 stride=2x2 pad=1_1x1_1}", "b01f_01io->b01f", ""),
    ("conv1d_nwc_dilated", "f32[1,8,2]", "f32[3,2,2]", "f32[1,4,2]", "window={size=3 rhs_dilate=2}", "b0f_0io->b0f", ""),
    ("conv1d_lhs_dilated", "f32[1,4,1]", "f32[2,1,1]", "f32[1,6,1]", "window={size=2 lhs_dilate=2}", "b0f_0io->b0f", ""),
    ("conv2d_nchw", "f32[1,2,4,4]", "f32[3,2,2,2]", "f32[1,3,3,3]", "window={size=2x2}", "bf01_oi01->bf01", ""),
    ("conv2d_feature_groups", "f32[1,4,4,4]", "f32[2,2,2,4]", "f32[1,3,3,4]", "window={size=2x2}", "b01f_01io->b01f", ", feature_group_count=2"),
    ("conv1d_batch_groups", "f32[4,5,2]", "f32[2,2,4]", "f32[2,4,4]", "window={size=2}", "b0f_0io->b0f", ", batch_group_count=2"),
    ("conv2d_s32", "s32[1,3,3,1]", "s32[2,2,1,1]", "s32[1,2,2,1]", "window={size=2x2}", "b01f_01io->b01f", ""),
    ("conv1d_reversed_window", "f32[1,5,1]", "f32[3,1,1]", "f32[1,3,1]", "window={size=3 rhs_reversal=1}", "b0f_0io->b0f", ""),
]
for name, lhs, rhs, out, window, dn, extra in CONV:
    case(L, name, f"ENTRY e {{\n  x = {lhs} parameter(0)\n  k = {rhs} parameter(1)\n  ROOT r = {out} convolution(x, k), {window}, dim_labels={dn}{extra}\n}}",
         tolerance=None if name.endswith("s32") else F32_APPROX)

# ---------------------------------------------------------------- numerics
N = "numerics"
case(N, "cholesky_lower", "ENTRY e {\n  a = f32[3,3] parameter(0)\n  ROOT r = f32[3,3] cholesky(a), lower=true\n}",
     args=["f32[3,3] {{4, 2, 0.4}, {2, 5, 1}, {0.4, 1, 3}}"], tolerance=F32_APPROX)
case(N, "cholesky_upper_f64", "ENTRY e {\n  a = f64[3,3] parameter(0)\n  ROOT r = f64[3,3] cholesky(a), lower=false\n}",
     args=["f64[3,3] {{9, 3, -3}, {3, 5, 1}, {-3, 1, 11}}"], tolerance=F64_APPROX)
case(N, "cholesky_batched", "ENTRY e {\n  a = f32[2,2,2] parameter(0)\n  ROOT r = f32[2,2,2] cholesky(a), lower=true\n}",
     args=["f32[2,2,2] {{{4, 2}, {2, 3}}, {{1, 0.5}, {0.5, 2}}}"], tolerance=F32_APPROX)
case(N, "triangular_solve_left_lower", "ENTRY e {\n  a = f32[3,3] parameter(0)\n  b = f32[3,2] parameter(1)\n  ROOT r = f32[3,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}",
     args=["f32[3,3] {{2, 0, 0}, {1, 4, 0}, {-1, 0.5, 2}}", "f32[3,2] {{1, 2}, {3, 4}, {5, 6}}"], tolerance=F32_APPROX)
case(N, "triangular_solve_right_upper_transpose", "ENTRY e {\n  a = f32[3,3] parameter(0)\n  b = f32[2,3] parameter(1)\n  ROOT r = f32[2,3] triangular-solve(a, b), left_side=false, lower=false, transpose_a=TRANSPOSE\n}",
     args=["f32[3,3] {{2, 1, -1}, {0, 4, 0.5}, {0, 0, 2}}", "f32[2,3] {{1, 2, 3}, {4, 5, 6}}"], tolerance=F32_APPROX)
case(N, "triangular_solve_unit_diagonal", "ENTRY e {\n  a = f64[3,3] parameter(0)\n  b = f64[3,1] parameter(1)\n  ROOT r = f64[3,1] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE\n}",
     args=["f64[3,3] {{7, 0, 0}, {2, 7, 0}, {-1, 3, 7}}", "f64[3,1] {{1}, {2}, {3}}"], tolerance=F64_APPROX)
case(N, "fft_c64", "ENTRY e {\n  p = c64[8] parameter(0)\n  ROOT r = c64[8] fft(p), fft_type=FFT, fft_length={8}\n}", tolerance=F32_APPROX)
case(N, "ifft_c64", "ENTRY e {\n  p = c64[2,4] parameter(0)\n  ROOT r = c64[2,4] fft(p), fft_type=IFFT, fft_length={4}\n}", tolerance=F32_APPROX)
case(N, "rfft_f32", "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT r = c64[5] fft(p), fft_type=RFFT, fft_length={8}\n}", tolerance=F32_APPROX)
case(N, "irfft_c64", "ENTRY e {\n  p = c64[5] parameter(0)\n  ROOT r = f32[8] fft(p), fft_type=IRFFT, fft_length={8}\n}", tolerance=F32_APPROX)
case(N, "fft_2d_c128", "ENTRY e {\n  p = c128[4,4] parameter(0)\n  ROOT r = c128[4,4] fft(p), fft_type=FFT, fft_length={4,4}\n}", tolerance=F64_APPROX)
case(N, "batch_norm_inference", "ENTRY e {\n  x = f32[2,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n  m = f32[3] parameter(3)\n  v = f32[3] constant({1, 0.5, 2})\n  ROOT r = f32[2,3] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1\n}", tolerance=F32_APPROX)
case(N, "batch_norm_training", "ENTRY e {\n  x = f32[4,2] parameter(0)\n  s = f32[2] parameter(1)\n  o = f32[2] parameter(2)\n  ROOT r = (f32[4,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1\n}", tolerance=F32_APPROX)
case(N, "batch_norm_grad", "ENTRY e {\n  x = f32[4,2] parameter(0)\n  s = f32[2] parameter(1)\n  m = f32[2] parameter(2)\n  v = f32[2] constant({1.5, 0.75})\n  g = f32[4,2] parameter(3)\n  ROOT r = (f32[4,2], f32[2], f32[2]) batch-norm-grad(x, s, m, v, g), epsilon=0.001, feature_index=1\n}", tolerance=F32_APPROX)
for alg in ["rng_three_fry", "rng_philox"]:
    for ty in ["u32", "u64"]:
        state = "u64[2]" if alg == "rng_three_fry" else "u64[3]"
        case(N, f"rng_bit_generator_{alg[4:]}_{ty}", f"ENTRY e {{\n  s = {state} parameter(0)\n  ROOT r = ({state}, {ty}[6]) rng-bit-generator(s), algorithm={alg}\n}}")

# ---------------------------------------------------------------- collectives
C = "collective"
SUM_S32 = ADD.replace("{t}", "s32")
SUM_F32 = ADD.replace("{t}", "f32")
case(C, "all_reduce_sum_4", SUM_S32 + "ENTRY e {\n  p = s32[3] parameter(0)\n  ROOT r = s32[3] all-reduce(p), replica_groups={}, to_apply=add\n}", replicas=4)
case(C, "all_reduce_groups", SUM_F32 + "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=add\n}", replicas=4)
case(C, "all_reduce_max", MAX.replace("{t}", "s32") + "ENTRY e {\n  p = s32[4] parameter(0)\n  ROOT r = s32[4] all-reduce(p), replica_groups={{0,1,2}}, to_apply=max\n}", replicas=3)
case(C, "all_gather_dim0", "ENTRY e {\n  p = s32[2] parameter(0)\n  ROOT r = s32[6] all-gather(p), dimensions={0}, replica_groups={{0,1,2}}\n}", replicas=3)
case(C, "all_gather_dim1", "ENTRY e {\n  p = f32[2,1] parameter(0)\n  ROOT r = f32[2,2] all-gather(p), dimensions={1}, replica_groups={{1,0}}\n}", replicas=2)
case(C, "reduce_scatter_sum", SUM_S32 + "ENTRY e {\n  p = s32[4] parameter(0)\n  ROOT r = s32[2] reduce-scatter(p), dimensions={0}, replica_groups={{0,1}}, to_apply=add\n}", replicas=2)
case(C, "all_to_all_array", "ENTRY e {\n  p = s32[4] parameter(0)\n  ROOT r = s32[4] all-to-all(p), dimensions={0}, replica_groups={{0,1,2,3}}\n}", replicas=4)
case(C, "collective_permute_ring", "ENTRY e {\n  p = s32[2] parameter(0)\n  ROOT r = s32[2] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,0}}\n}", replicas=3)
case(C, "collective_permute_partial", "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] collective-permute(p), source_target_pairs={{0,1}}\n}", replicas=2)
case(C, "collective_broadcast", "ENTRY e {\n  p = s32[3] parameter(0)\n  ROOT r = s32[3] collective-broadcast(p), replica_groups={{1,0}}\n}", replicas=2)
case(C, "replica_id", "ENTRY e {\n  ROOT r = u32[] replica-id()\n}", replicas=4)
case(C, "partition_id", "ENTRY e {\n  ROOT r = u32[] partition-id()\n}", replicas=2)

# ---------------------------------------------------------------- control
K = "control"
case(K, "call", "sq {\n  a = f32[3] parameter(0)\n  ROOT m = f32[3] multiply(a, a)\n}\n\nENTRY e {\n  p = f32[3] parameter(0)\n  ROOT r = f32[3] call(p), to_apply=sq\n}")
case(K, "conditional_pred", "t {\n  a = s32[] parameter(0)\n  ROOT r = s32[] negate(a)\n}\n\nf {\n  a = s32[] parameter(0)\n  ROOT r = s32[] multiply(a, a)\n}\n\nENTRY e {\n  c = pred[] parameter(0)\n  x = s32[] parameter(1)\n  ROOT r = s32[] conditional(c, x, x), true_computation=t, false_computation=f\n}")
case(K, "conditional_index_clamped", "b0 {\n  a = s32[] parameter(0)\n  ROOT r = s32[] add(a, a)\n}\n\nb1 {\n  a = s32[] parameter(0)\n  ROOT r = s32[] negate(a)\n}\n\nENTRY e {\n  i = s32[] constant(7)\n  x = s32[] parameter(0)\n  ROOT r = s32[] conditional(i, x, x), branch_computations={b0, b1}\n}")
case(K, "while_counted", "cond {\n  s = (s32[], f32[2]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(5)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n\nbody {\n  s = (s32[], f32[2]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  v = f32[2] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  w = f32[2] add(v, v)\n  ROOT t = (s32[], f32[2]) tuple(j, w)\n}\n\nENTRY e {\n  p = f32[2] parameter(0)\n  z = s32[] constant(0)\n  s = (s32[], f32[2]) tuple(z, p)\n  ROOT r = (s32[], f32[2]) while(s), condition=cond, body=body\n}")
case(K, "opt_barrier", "ENTRY e {\n  a = f32[2] parameter(0)\n  b = s32[] parameter(1)\n  t = (f32[2], s32[]) tuple(a, b)\n  ROOT r = (f32[2], s32[]) opt-barrier(t)\n}")
case(K, "after_all_add_dependency", "ENTRY e {\n  a = f32[3] parameter(0)\n  t = token[] after-all()\n  ROOT r = f32[3] add-dependency(a, t)\n}")
case(K, "token_parameter", "ENTRY e {\n  a = f32[2] parameter(0)\n  t = token[] parameter(1)\n  ROOT r = f32[2] add-dependency(a, t)\n}")


# ---------------------------------------------------------------- oneDNN custom calls
# The targets XLA:CPU's oneDNN rewriter writes into optimised modules, with the backend_config
# fields jaxlib 0.10.2 reads (probed against it: a field it does not know aborts the process).
# `__onednn$softmax` is not here: XLA:CPU (jaxlib 0.10.2) returns uninitialised memory for it.
def onednn(name, params, result, target, config, tol=F32_APPROX):
    body = "".join(f"  p{i} = {s} parameter({i})\n" for i, s in enumerate(params))
    operands = ", ".join(f"p{i}" for i in range(len(params)))
    body += (f"  ROOT r = {result} custom-call({operands}), custom_call_target=\"{target}\", "
             f"backend_config={config}\n")
    case(K, f"onednn_{name}", "ENTRY e {\n" + body + "}", tolerance=tol)


def mm(fusions="", ta=False, tb=False):
    f = f',"fusions":{{{fusions}}}' if fusions else ""
    return (f'{{"onednn_matmul_config":{{"transpose_a":{str(ta).lower()},'
            f'"transpose_b":{str(tb).lower()}{f}}}}}')


M = "__onednn$matmul"
onednn("matmul_f32", ["f32[3,4]", "f32[4,5]"], "f32[3,5]", M, mm())
onednn("matmul_transpose_both", ["f32[4,3]", "f32[5,4]"], "f32[3,5]", M, mm(ta=True, tb=True))
onednn("matmul_batch_broadcast", ["f32[2,3,4]", "f32[1,4,5]"], "f32[2,3,5]", M, mm())
onednn("matmul_bias_relu", ["f32[3,4]", "f32[4,5]", "f32[1,5]"], "f32[3,5]", M,
       mm('"ops":["BIAS","RELU"]'))
for act in ["GELU_ERF", "GELU_TANH", "TANH", "SIGMOID", "ELU", "SWISH", "RELU6"]:
    onednn(f"matmul_bias_{act.lower()}", ["f32[3,4]", "f32[4,5]", "f32[3,5]"], "f32[3,5]", M,
           mm(f'"ops":["BIAS","{act}"]'))
onednn("matmul_binary_add_linear", ["f32[3,4]", "f32[4,5]", "f32[3,1]"], "f32[3,5]", M,
       mm('"ops":["BINARY_ADD","LINEAR"],"alpha":0.5'))
onednn("matmul_bf16", ["bf16[3,4]", "bf16[4,5]"], "bf16[3,5]", M, mm(), tol=HALF_APPROX)
onednn("layernorm_scale_and_shift", ["f32[4,6]", "f32[6]", "f32[6]"], "f32[4,6]",
       "__onednn$layernorm",
       # epsilon_typecast holds 1e-5's f32 bits as an int32.
       '{"onednn_layer_norm_config":{"rescale":"SCALE_AND_SHIFT","epsilon_typecast":925353388}}')


def conv(inp, ker, out, window, groups=1, fusions=""):
    def data(b, f, s):
        return f'{{"data":{{"batch_dim":"{b}","feature_dim":"{f}","spatial_dims":{json_list(s)}}}}}'
    f = f',"fusions":{{{fusions}}}' if fusions else ""
    k = (f'{{"filter":{{"input_feature_dim":"{ker[0]}","output_feature_dim":"{ker[1]}",'
         f'"spatial_dims":{json_list(ker[2])}}}}}')
    w = ",".join(f'"{key}":{json_list(v)}' for key, v in window.items())
    return (f'{{"onednn_conv_config":{{"dims":"{len(inp[2]) + 2}","input":{data(*inp)},'
            f'"kernel":{k},"output":{data(*out)},"window":{{{w}}},"feature_groups":"{groups}"{f}}}}}')


def json_list(v):
    return "[" + ",".join(f'"{x}"' for x in v) + "]"


C = "__onednn$convolution"
NWC = (0, 2, [1])
onednn("conv_1d_stride_pad", ["f32[2,7,3]", "f32[3,3,4]"], "f32[2,4,4]", C,
       conv(NWC, (1, 2, [0]), NWC,
            {"pad_left": [1], "pad_right": [1], "strides": [2], "window_dilations": [1]}))
NCHW = (0, 1, [2, 3])
onednn("conv_2d_dilated_nchw", ["f32[1,3,6,6]", "f32[4,3,2,2]"], "f32[1,4,4,4]", C,
       conv(NCHW, (1, 0, [2, 3]), NCHW,
            {"pad_left": [0, 0], "pad_right": [0, 0], "strides": [1, 1],
             "window_dilations": [2, 2]}))
onednn("conv_feature_groups", ["f32[1,5,4]", "f32[2,2,6]"], "f32[1,4,6]", C,
       conv(NWC, (1, 2, [0]), NWC,
            {"pad_left": [0], "pad_right": [0], "strides": [1], "window_dilations": [1]},
            groups=2))
# A convolution with post-ops (BIAS, RELU) aborts XLA:CPU (jaxlib 0.10.2) with "could not create a
# primitive descriptor" whatever the bias shape; the reference's reading is in src/eval/control/tests.rs.



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xla-spec", default=os.environ.get("XLA_SPEC", "target/debug/xla-spec"))
    ap.add_argument("--backend", default="target/xla-venv/bin/python backends/xla/xla_backend.py")
    ap.add_argument("--only", default="", help="record only the cases whose name contains this")
    args = ap.parse_args()
    os.chdir(ROOT)
    written = {}
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed, (family, name, hlo, opts) in enumerate(CASES, start=1):
            if args.only and args.only not in name:
                continue
            out = os.path.join("golden", family, "xla_recorded.json")
            if out not in written:
                # Start the file afresh: every case in it is recorded again.
                if os.path.exists(out) and not args.only:
                    os.remove(out)
                written[out] = 0
            path = os.path.join(tmp, name + ".hlo")
            with open(path, "w") as f:
                f.write(hlo)
            cmd = [args.xla_spec, "golden", "record", path, "--backend", args.backend, "--out", out,
                   "--name", name, "--force", "--timeout", "60"]
            if opts.get("args") is not None:
                cmd += opts["args"]
            else:
                cmd += ["--random-args", "--seed", str(seed)]
            if opts.get("tolerance"):
                cmd += ["--tolerance", opts["tolerance"]]
            if opts.get("replicas"):
                cmd += ["--replicas", str(opts["replicas"])]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                failed.append((name, r.stderr.strip().splitlines()[-1:] or [""]))
                print(f"not recorded: {family}::{name}: {failed[-1][1][0]}", file=sys.stderr)
            else:
                written[out] += 1
    for out, n in sorted(written.items()):
        print(f"{out}: {n} cases")
    print(f"{sum(written.values())} recorded, {len(failed)} not recorded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
