#!/usr/bin/env python3
"""An xla-spec backend that evaluates each module with StableHLO's reference interpreter, as
jaxlib ships it (jaxlib.mlir.dialects.stablehlo.eval_module).

It speaks xla-spec's JSON-lines backend protocol on stdin/stdout:
  request:  {"id": N, "hlo": "...", "args": [LITERAL...], "replicas": R}
  response: {"id": N, "result": LITERAL}
            {"id": N, "error": "text"}

The module goes through XLA's HLO text parser and XLA's HLO-to-StableHLO import, exactly as the XLA
adapter's does (backends/common/hlo_to_stablehlo.py), and the StableHLO module is then evaluated
by the interpreter instead of being compiled. Every evaluation runs in a forked child: the
interpreter aborts the whole process on some modules (a failed check, an uncaught C++ exception),
and then only that case fails.

What the adapter adds around the interpreter:
- the entry wrapper (shared with the XLA adapter) when the ENTRY takes or returns tuples or
  tokens, so that the evaluated function takes and returns only arrays;
- results of type c64/c128 leave the interpreter as their real and imaginary parts, and bf16
  results as f32 (exact): jaxlib's eval_module binding cannot hand back complex attributes (it
  aborts), and a bf16 attribute has no numpy buffer;
- requests with several replicas, collectives (even on one replica), infeed, or host transfers
  are refused, naming the ops: eval_module runs one process, outside the interpreter's
  run_parallel driver that collectives need, with no infeed/outfeed queues and no channels.

Set up with `bash backends/stablehlo/setup.sh` (it reuses the XLA adapter's pinned environment).
"""

import os
import pickle
import re
import sys
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import numpy as np  # noqa: E402
import ml_dtypes  # noqa: E402
import jaxlib  # noqa: E402
from hlo_to_stablehlo import (  # noqa: E402
    Unsupported, drop_entry_layout, entry_layout, flatten_literal, in_child, leaves,
    literal_to_numpy, needs_wrapper, numpy_to_literal, serve, shape_str, shape_text, to_stablehlo,
    unwrap, wrap)

# Opcodes whose value comes from, or goes to, the host or another program: eval_module gives the
# interpreter no infeed/outfeed queue and no channel to another process.
HOST = re.compile(r"=\s*[^=]*?\b(infeed|outfeed|send|recv|send-done|recv-done)\(")

# The ops that make a module depend on its replica count, named in the refusal of a multi-replica
# request.
COLLECTIVE = re.compile(
    r"=\s*[^=]*?\b(all-reduce|all-gather|all-to-all|reduce-scatter|collective-permute|"
    r"collective-broadcast|replica-id|partition-id)(?:-start)?\(")

# Result element types the interpreter's Python binding cannot return as they are.
SPLIT = {"c64": "f32", "c128": "f64"}
WIDEN = {"bf16": "f32"}


def out_leaf(shape, var, fresh, lines):
    """How the wrapper returns one array leaf of the result: complex as (real, imag), bf16 as
    f32, everything else as it is."""
    ty, dims = shape[1], shape[2]
    if any(shape[3]):
        return [(var, shape_str(shape))]
    if ty in SPLIT:
        part = shape_text(SPLIT[ty], dims)
        re_, im = fresh("real"), fresh("imag")
        lines.append(f"  {re_} = {part} real({var})")
        lines.append(f"  {im} = {part} imag({var})")
        return [(re_, part), (im, part)]
    if ty in WIDEN:
        wide = shape_text(WIDEN[ty], dims)
        v = fresh("widen")
        lines.append(f"  {v} = {wide} convert({var})")
        return [(v, wide)]
    return [(var, shape_str(shape))]


def output_leaf(ty, it):
    """One result array from the evaluated function's flat outputs: complex results come as
    their two parts, bf16 results widened to f32."""
    if ty in SPLIT:
        real, imag = next(it), next(it)
        # Set the parts one by one: arithmetic on nan/inf parts would mix them.
        z = np.empty(np.shape(real), np.complex128)
        z.real, z.imag = real, imag
        return numpy_to_literal(z.astype(np.complex64 if ty == "c64" else np.complex128), ty)
    if ty in WIDEN:
        return numpy_to_literal(np.asarray(next(it)).astype(ml_dtypes.bfloat16), ty)
    return numpy_to_literal(next(it), ty)


# ---------------------------------------------------------------- the interpreter


def _attr_to_numpy(attr, ir):
    dense = ir.DenseElementsAttr(attr)
    shape = list(ir.ShapedType(dense.type).shape)
    if dense.is_splat:
        v = dense.get_splat_value()
        try:
            it = ir.IntegerType(ir.ShapedType(dense.type).element_type)
        except ValueError:
            it = None
        if it is not None:
            value = ir.IntegerAttr(v).value
            if it.width == 1:
                return np.full(shape, bool(value & 1), dtype=np.bool_)
            if it.is_unsigned and value < 0:
                value += 1 << it.width
            return np.full(shape, value, dtype=np.dtype(f"{'u' if it.is_unsigned else 'i'}{it.width // 8}"))
        return np.full(shape, ir.FloatAttr(v).value, dtype=np.float64)
    return np.array(dense)


def _evaluate_here(bytecode, arrays):
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    ctx = jax_mlir.make_ir_context()
    stablehlo.register_interpreter_dialect(ctx)
    with ctx:
        module = ir.Module.parse(bytecode)
        text = str(module)
        if "stablehlo.create_token" in text:
            # The interpreter does not implement create_token (openxla/stablehlo#1571), which
            # XLA's import makes of an after-all without operands; after_all with no operands is
            # the same op in StableHLO, and the interpreter runs it.
            module = ir.Module.parse(text.replace("stablehlo.create_token", "stablehlo.after_all"))
        main = None
        for op in module.body.operations:
            if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == "main":
                main = op
        if main is None:
            raise Unsupported("the imported StableHLO module has no main function")
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        if len(ftype.inputs) != len(arrays):
            raise ValueError(f"main takes {len(ftype.inputs)} arguments, the request gives {len(arrays)}")
        attrs = []
        for arr, t in zip(arrays, ftype.inputs):
            rt = ir.RankedTensorType(t)
            buf = np.ascontiguousarray(arr)
            if buf.dtype == ml_dtypes.bfloat16:
                buf = buf.view(np.uint16)
            attrs.append(ir.DenseElementsAttr.get(buf, type=rt.element_type, shape=list(rt.shape)))
        results = stablehlo.eval_module(module, attrs)
        return [_attr_to_numpy(r, ir) for r in results]


def evaluate(bytecode, arrays):
    """Runs the interpreter on the StableHLO bytecode in a forked child and returns its outputs as
    numpy arrays. A child killed by a signal (the interpreter aborted) fails only this case, with
    the end of what it wrote to stderr."""
    err = tempfile.TemporaryFile()

    def work():
        os.dup2(err.fileno(), 2)
        try:
            return 0, b"R" + pickle.dumps(_evaluate_here(bytecode, arrays))
        except Exception as e:  # an ordinary refusal: the parent reports it
            return 1, b"E" + pickle.dumps(f"{type(e).__name__}: {e}")

    status, msg = in_child(work)
    err.seek(0)
    stderr = err.read().decode(errors="replace").strip()
    err.close()
    if stderr:
        sys.stderr.write(stderr[-4000:] + "\n")
        sys.stderr.flush()
    if os.WIFSIGNALED(status):
        # The interpreter's own message ("LLVM ERROR: ...") comes first; an op it prints after it
        # can be long (a whole fusion), so keep the head.
        at = stderr.find("LLVM ERROR:")
        why = " ".join((stderr[at:at + 400] if at >= 0 else stderr[-400:]).split())
        raise RuntimeError(
            f"the StableHLO interpreter crashed on this module (signal {os.WTERMSIG(status)}): "
            + (why or "no message"))
    if msg.startswith(b"E"):
        raise RuntimeError(pickle.loads(msg[1:]))
    if os.WEXITSTATUS(status) != 0 or not msg.startswith(b"R"):
        raise RuntimeError(f"the interpreter's child exited with status {os.WEXITSTATUS(status)}: "
                           + (stderr[-600:] or "no message"))
    return pickle.loads(msg[1:])


def execute(req):
    replicas = int(req.get("replicas", 1) or 1)
    text = req["hlo"]
    # XLA's parser first, so that an invalid module is refused for what is wrong with it.
    module, _ = to_stablehlo(text, convert=False)
    ops = sorted(set(COLLECTIVE.findall(text)))
    if replicas > 1:
        what = ", ".join(ops) + " over " if ops else ""
        raise Unsupported(
            f"{what}{replicas} replicas: jaxlib's eval_module runs the StableHLO interpreter as one "
            "process, with no way to give it a replica count")
    host = HOST.search(text)
    if host or req.get("infeed"):
        what = host.group(1) if host else "infeed"
        raise Unsupported(f"{what}: jaxlib's eval_module gives the StableHLO interpreter no "
                          "infeed/outfeed queue or channel")
    if ops:
        # Even on one replica: the interpreter aborts ("all_reduce is only supported when run via
        # interpreter.run_parallel"), and eval_module is not run_parallel.
        raise Unsupported(
            f"{', '.join(ops)}: the StableHLO interpreter runs collectives only under its "
            "run_parallel driver, which jaxlib's eval_module does not use")
    params, result_shape = entry_layout(module)
    if any(leaf[0] == "array" and any(leaf[3]) for p in params for leaf in leaves(p)):
        raise Unsupported("a dynamic-shaped parameter cannot be passed to eval_module "
                          "(its arguments are static-shaped dense attributes)")
    if any(leaf[0] == "array" and any(leaf[3]) for leaf in leaves(result_shape)):
        raise Unsupported("a dynamic-shaped result: XLA's StableHLO import aborts on a dynamic "
                          "entry result")
    args = req["args"]
    odd_types = any(leaf[0] == "array" and (leaf[1] in SPLIT or leaf[1] in WIDEN)
                    for leaf in leaves(result_shape))
    if needs_wrapper(params, result_shape) or odd_types:
        text, flat = wrap(drop_entry_layout(text), params, result_shape, args, out_leaf=out_leaf)
    else:
        flat = [l for a in args for l in flatten_literal(a)]
    _, bytecode = to_stablehlo(text)
    outs = evaluate(bytecode, [literal_to_numpy(l) for l in flat])
    if not leaves(result_shape) or all(l[0] == "token" for l in leaves(result_shape)):
        outs = []  # the wrapper's placeholder
    return unwrap(result_shape, outs, output_leaf)


def version():
    return f"jaxlib {jaxlib.__version__}"


def main():
    serve(execute, "stablehlo-interpreter", version())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--version":
        print(f"stablehlo-interpreter via {version()}")
        sys.exit(0)
    main()
