"""Shared parts of the xla-spec backends that go through XLA's HLO-to-StableHLO import
(backends/xla, backends/stablehlo, backends/iree): the HLO shape parser, JSON literal <-> numpy
conversion, the entry wrapper that makes an ENTRY take and return only arrays, the forked-child
HLO parser and StableHLO import, the module's MLIR text (with the mhlo leftovers CHLO can say
rewritten, for IREE), and the JSON-lines protocol loop.

A backend that needs environment variables set before jax starts (XLA_FLAGS) sets them before
importing this module.
"""

import json
import os
import re
import sys
import warnings

import numpy as np
import ml_dtypes
import jaxlib._hlo as hlo
from jaxlib import _jax

# The adapters fork only to run XLA's parser (or an evaluation) in a child that does nothing else
# and exits.
warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called")

DTYPES = {
    "pred": np.bool_,
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}


class Unsupported(Exception):
    pass


# ---------------------------------------------------------------- shapes


def parse_shape(text):
    """Parses an HLO shape into ('array', type, dims) | ('tuple', [shapes]) | ('token',)."""
    pos = 0

    def skip():
        nonlocal pos
        while pos < len(text) and text[pos] in " \t\n":
            pos += 1

    def shape():
        nonlocal pos
        skip()
        if text.startswith("(", pos):
            pos += 1
            elems = []
            skip()
            if text.startswith(")", pos):
                pos += 1
                return ("tuple", elems)
            while True:
                elems.append(shape())
                skip()
                if text.startswith(",", pos):
                    pos += 1
                    continue
                if text.startswith(")", pos):
                    pos += 1
                    return ("tuple", elems)
                raise ValueError(f"bad tuple shape {text!r}")
        m = re.compile(r"([a-z0-9]+)\[([^\]]*)\](\{[^}]*\})?").match(text, pos)
        if not m:
            raise ValueError(f"bad shape {text[pos:pos + 40]!r}")
        pos = m.end()
        ty = m.group(1)
        if ty == "token":
            return ("token",)
        raw = [d.strip() for d in m.group(2).split(",") if d.strip()]
        dims = [int(d.replace("<=", "")) for d in raw]
        dynamic = [d.startswith("<=") for d in raw]
        return ("array", ty, dims, dynamic, m.group(0))

    s = shape()
    return s


def shape_text(ty, dims):
    return f"{ty}[{','.join(str(d) for d in dims)}]"


def leaves(shape):
    if shape[0] == "tuple":
        out = []
        for s in shape[1]:
            out.extend(leaves(s))
        return out
    return [shape]


# ---------------------------------------------------------------- literals


def scalar_in(ty, v):
    if ty in ("c64", "c128"):
        return complex(float_in(v[0]), float_in(v[1]))
    if ty in ("f16", "bf16", "f32", "f64"):
        return float_in(v)
    return v


def float_in(v):
    if isinstance(v, str):
        return {"nan": float("nan"), "-nan": -float("nan"), "inf": float("inf"), "-inf": -float("inf")}[v]
    return float(v)


def flatten_literal(lit):
    """The array leaves of a (possibly nested tuple) literal, in order; tokens are dropped (the
    entry wrapper makes its own)."""
    if "tuple" in lit:
        out = []
        for e in lit["tuple"]:
            out.extend(flatten_literal(e))
        return out
    if "token" in lit:
        return []
    return [lit]


def literal_to_numpy(lit):
    kind, ty, dims = parse_shape(lit["shape"])[:3]
    dtype = DTYPES[ty]
    data = [scalar_in(ty, v) for v in lit["data"]]
    if ty in ("u64", "s64"):
        arr = np.array(data, dtype=dtype)
    else:
        arr = np.array(data, dtype=np.float64 if ty in ("f16", "bf16") else None).astype(dtype) if data else np.zeros(0, dtype)
    return arr.reshape(dims)


def float_out(x):
    x = float(x)
    if x != x:
        return "-nan" if np.signbit(x) else "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def numpy_to_literal(arr, ty):
    arr = np.asarray(arr)
    want = np.dtype(DTYPES[ty])
    if arr.dtype != want:
        # XLA:CPU hands back some results in a buffer typed by their bits (rng-bit-generator with
        # a signed or float output returns the unsigned bits): reinterpret, as the shape says.
        arr = arr.view(want) if arr.dtype.itemsize == want.itemsize else arr.astype(want)
    flat = arr.reshape(-1)
    if ty == "pred":
        data = [bool(x) for x in flat]
    elif ty in ("c64", "c128"):
        data = [[float_out(x.real), float_out(x.imag)] for x in flat]
    elif ty in ("f16", "bf16", "f32", "f64"):
        # repr of a numpy scalar is its shortest round-trip form.
        data = [float_out(x) if not np.isfinite(x) else float(repr_float(x)) for x in flat]
    else:
        data = [int(x) for x in flat]
    return {"shape": shape_text(ty, list(np.asarray(arr).shape)), "data": data}


def repr_float(x):
    s = str(x)
    return s


def assemble(shape, arrays):
    """Rebuilds the (possibly nested tuple) result from XLA's flattened outputs."""
    it = iter(arrays)

    def build(s):
        if s[0] == "tuple":
            return {"tuple": [build(e) for e in s[1]]}
        if s[0] == "token":
            next(it)
            return {"token": True}
        return numpy_to_literal(next(it), s[1])

    return build(shape)



# ---------------------------------------------------------------- HLO modules


def entry_layout(module):
    """The entry computation's parameter shapes and result shape, from XLA's own parse."""
    text = module.to_string()
    # XLA's printer annotates long tuples with /*index=N*/ comments.
    first = re.sub(r"/\*.*?\*/", "", text.split("\n", 1)[0])
    m = re.search(r"entry_computation_layout=\{\((.*)\)->(.*)\}", first)
    if not m:
        raise Unsupported("cannot read the entry computation layout")
    params = parse_shape("(" + m.group(1) + ")")[1]
    return params, parse_shape(m.group(2))


def shape_str(shape):
    if shape[0] == "tuple":
        return "(" + ", ".join(shape_str(e) for e in shape[1]) + ")"
    if shape[0] == "token":
        return "token[]"
    return shape[4]


def static_str(shape):
    """The shape with every dynamic dimension at its bound (how arguments and results travel)."""
    return f"{shape[1]}[{','.join(str(d) for d in shape[2])}]"


def needs_wrapper(params, result):
    def odd(s, top):
        if s[0] == "tuple":
            return top or any(odd(e, False) for e in s[1])
        if s[0] == "token":
            return top
        return any(s[3])
    # A token cannot be read back as an array: the wrapper leaves tokens out of its result.
    return any(odd(p, True) for p in params) or any(l[0] == "token" for l in leaves(result))


def wrap(text, params, result, args, out_leaf=None):
    """Rewrites the module so its ENTRY takes and returns only arrays: a new ENTRY takes the array
    leaves of the arguments, builds tuples, makes tokens with after-all, calls the original entry,
    and returns its result's array leaves as one flat tuple (tokens left out).

    out_leaf(shape, var, fresh, lines), when given, turns one array leaf of the result into the
    list of (var, shape text) it is returned as (appending any instructions it needs to lines); by
    default each leaf is returned as it is."""
    m = re.search(r"^ENTRY\s+%?([\w.\-]+)", text, re.M)
    if not m:
        raise Unsupported("cannot find the ENTRY computation")
    # The old entry becomes an ordinary computation under a fresh name: the StableHLO import
    # calls its entry function `main` and would confuse an old entry of that name with it.
    name = "xla_adapter_original"
    body = text[: m.start()] + name + text[m.end():]
    body = re.sub(r",\s*entry_computation_layout=\{[^\n]*?\}(?=,|\n|$)", "", body, count=1)
    lines = []
    flat = []
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return f"xla_adapter_{prefix}{counter[0]}"

    def build(shape, lit):
        if shape[0] == "token":
            v = fresh("tok")
            lines.append(f"  {v} = token[] after-all()")
            return v
        if shape[0] == "tuple":
            if "tuple" not in lit or len(lit["tuple"]) != len(shape[1]):
                raise ValueError(f"argument does not match parameter shape {shape_str(shape)}")
            parts = [build(e, l) for e, l in zip(shape[1], lit["tuple"])]
            v = fresh("tuple")
            lines.append(f"  {v} = {shape_str(shape)} tuple({', '.join(parts)})")
            return v
        if "shape" not in lit:
            raise ValueError(f"argument does not match parameter shape {shape_str(shape)}")
        p = fresh("arg")
        lines.append(f"  {p} = {shape_str(shape)} parameter({len(flat)})")
        flat.append(lit)
        return p

    operands = [build(ps, a) for ps, a in zip(params, args)]
    call = fresh("call")
    lines.append(f"  {call} = {shape_str(result)} call({', '.join(operands)}), to_apply={name}")
    # Return the result's array leaves as one flat tuple.
    outs = []

    def walk(shape, v):
        if shape[0] == "tuple":
            for i, e in enumerate(shape[1]):
                g = fresh("gte")
                lines.append(f"  {g} = {shape_str(e)} get-tuple-element({v}), index={i}")
                walk(e, g)
        elif shape[0] == "token":
            pass
        elif out_leaf is not None:
            outs.extend(out_leaf(shape, v, fresh, lines))
        else:
            outs.append((v, shape_str(shape)))

    walk(result, call)
    root_parts = [v for v, _ in outs]
    root_shapes = [shp for _, shp in outs]
    if not outs:
        # XLA's StableHLO import aborts on an empty result tuple: return a placeholder instead.
        lines.append("  xla_adapter_none = pred[] constant(false)")
        root_parts, root_shapes = ["xla_adapter_none"], ["pred[]"]
    lines.append(f"  ROOT xla_adapter_root = ({', '.join(root_shapes)}) tuple({', '.join(root_parts)})")
    entry = "\nENTRY xla_adapter_entry {\n" + "\n".join(lines) + "\n}\n"
    return body.rstrip() + "\n" + entry, flat


def drop_entry_layout(text):
    """The module without its header's entry_computation_layout={...} (braces nest inside it), which
    the wrapper's own removal would cut short at the first inner brace; the wrapped module's new
    ENTRY has another signature anyway."""
    m = re.search(r",\s*entry_computation_layout=\{", text.split("\n", 1)[0])
    if not m:
        return text
    depth, i = 0, m.end() - 1
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[:m.start()] + text[i + 1:]
        i += 1
    return text


def unwrap(result, outs, leaf=None):
    """Rebuilds the result (tuples, tokens) from the wrapper's flat array leaves. leaf(ty, it)
    builds one array literal of type ty from the iterator of outputs (default: the next output
    as it is); a backend whose outputs need joining or narrowing passes its own."""
    it = iter(outs)
    leaf = leaf or (lambda ty, it: numpy_to_literal(next(it), ty))

    def build(s):
        if s[0] == "tuple":
            return {"tuple": [build(e) for e in s[1]]}
        if s[0] == "token":
            return {"token": True}
        return leaf(s[1], it)

    return build(result)


def in_child(work):
    """Runs work() in a forked child and returns (wait status, the bytes it returned). work returns
    (exit code, bytes); an exception in it is the caller's to catch. A child that aborts (XLA and
    the interpreter kill the process on a failed CHECK) shows in the status, and only the child
    dies."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code, out = 1, b""
        try:
            code, out = work()
        finally:
            try:
                view = memoryview(out)
                while view:
                    n = os.write(w, view)
                    view = view[n:]
            finally:
                os._exit(code)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return status, b"".join(chunks)


def to_stablehlo(text, convert=True):
    """XLA's HLO parser and HLO-to-StableHLO import, run in a forked child: both abort the whole
    process on some inputs (a failed CHECK), which then takes down only the child, and the request
    gets an error. Returns the parsed module and the StableHLO bytes."""
    def work():
        try:
            module = hlo.hlo_module_from_text(text)
            out = b"M"
            if convert:
                out += _jax.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
            return 0, out
        except Exception as e:  # an ordinary refusal: the parent reports it
            return 1, f"E{type(e).__name__}: {e}".encode()[:4000]

    status, msg = in_child(work)
    if os.WIFSIGNALED(status):
        raise Unsupported(
            f"XLA's HLO parser or StableHLO import crashed on this module (signal {os.WTERMSIG(status)})")
    if os.WEXITSTATUS(status) != 0 or not msg.startswith(b"M"):
        raise ValueError(msg[1:].decode(errors="replace") or "XLA's HLO parser refused the module")
    return hlo.hlo_module_from_text(text), msg[1:]


def stablehlo_text(bytecode):
    """The StableHLO module as MLIR text, printed by jaxlib's MLIR (which reads its own bytecode).
    A compiler built on another MLIR (IREE) does not promise to read jaxlib's bytecode, while the
    text form of the StableHLO ops is stable."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context():
        module = ir.Module.parse(bytecode)
        return module.operation.get_asm(enable_debug_info=False)


# XLA's StableHLO import keeps erf and topk as mhlo ops (StableHLO has neither); CHLO, the
# companion dialect JAX itself emits them in, has both, with the same operands and results.
_MHLO_ERF = re.compile(r"= mhlo\.erf (%[\w#]+) : (tensor<[^>]*>)$", re.M)
_MHLO_TOPK = re.compile(r"= mhlo\.topk\((%[\w#]+), k = (\d+)(?:, largest = true)?\)")


def mhlo_to_chlo(text):
    """Rewrites the mhlo ops XLA's import leaves behind that CHLO expresses exactly, in the MLIR
    text of a module: mhlo.erf becomes chlo.erf, and mhlo.topk of the largest elements
    chlo.top_k (which has no `largest = false`: a topk of the smallest stays as it is). For a
    compiler that reads CHLO (IREE) and not mhlo."""
    text = _MHLO_ERF.sub(r"= chlo.erf \1 : \2 -> \2", text)
    return _MHLO_TOPK.sub(r"= chlo.top_k(\1, k = \2)", text)


def serve(execute, name, version):
    """The JSON-lines protocol loop: answers the info request with name and version, every other
    request with execute(req) as its result or the exception as its error, and keeps serving."""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            if req.get("info"):
                resp = {"id": rid, "info": {"name": name, "version": version}}
            else:
                resp = {"id": rid, "result": execute(req)}
        except Exception as e:  # report every failure as this case's error and keep serving
            resp = {"id": rid, "error": f"{type(e).__name__}: {e}".replace("\n", " ")[:2000]}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()
