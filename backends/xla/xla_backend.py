#!/usr/bin/env python3
"""An xla-spec backend that runs each module on XLA's own CPU backend, through jaxlib.

It speaks xla-spec's JSON-lines backend protocol on stdin/stdout:
  request:  {"id": N, "hlo": "...", "args": [LITERAL...], "replicas": R}
  response: {"id": N, "result": LITERAL}  (a list of R literals when R > 1)
            {"id": N, "error": "text"}

The module goes through XLA's HLO text parser (jaxlib._hlo.hlo_module_from_text), is converted to
StableHLO (hlo_to_stablehlo on its serialized proto), compiled by the CPU client and executed.
Multiple replicas need XLA_FLAGS=--xla_force_host_platform_device_count=N, which must be set before
jax starts: this program re-executes itself with the flag when it is not set.

Set up with `bash backends/xla/setup.sh` (a pinned virtual environment under target/).
"""

import json
import os
import re
import sys

MAX_REPLICAS = 8
FLAG = f"--xla_force_host_platform_device_count={MAX_REPLICAS}"
if FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + FLAG).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import ml_dtypes  # noqa: E402
import jax  # noqa: E402
import jaxlib  # noqa: E402
import jaxlib._hlo as hlo  # noqa: E402
from jaxlib import _jax  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402

# Without this jax silently narrows 64-bit arguments to 32 bits.
jax.config.update("jax_enable_x64", True)

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
        dims = [int(d.replace("<=", "")) for d in m.group(2).split(",") if d.strip()]
        return ("array", ty, dims)

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


def literal_to_numpy(lit):
    if "tuple" in lit:
        raise Unsupported("tuple arguments are not supported by the XLA adapter")
    if "token" in lit:
        raise Unsupported("token arguments are not supported by the XLA adapter")
    kind, ty, dims = parse_shape(lit["shape"])
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


# ---------------------------------------------------------------- execution

_client = None


def client():
    global _client
    if _client is None:
        _client = jax.devices("cpu")[0].client
    return _client


def entry_result_shape(module):
    text = module.to_string()
    # XLA's printer annotates long tuples with /*index=N*/ comments.
    first = re.sub(r"/\*.*?\*/", "", text.split("\n", 1)[0])
    m = re.search(r"entry_computation_layout=\{\((.*)\)->(.*)\}", first)
    if not m:
        raise Unsupported("cannot read the entry computation layout")
    return parse_shape(m.group(2))


def execute(req):
    replicas = int(req.get("replicas", 1) or 1)
    if replicas > MAX_REPLICAS:
        raise Unsupported(f"the adapter runs at most {MAX_REPLICAS} replicas")
    if req.get("infeed"):
        raise Unsupported("infeed is not supported by XLA:CPU through this adapter")
    module = hlo.hlo_module_from_text(req["hlo"])
    result_shape = entry_result_shape(module)
    mlir = _jax.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
    devices = jax.devices("cpu")[:replicas]
    opts = xc.CompileOptions()
    build = opts.executable_build_options
    build.num_replicas = replicas
    build.num_partitions = 1
    build.device_assignment = xc.DeviceAssignment.create(np.arange(replicas).reshape(replicas, 1))
    exe = client().compile_and_load(mlir, xc.DeviceList(tuple(devices)), opts)
    per_replica_args = req["args"] if replicas > 1 else [req["args"]]
    if len(per_replica_args) != replicas:
        raise ValueError("args must list one argument list per replica")
    nargs = len(per_replica_args[0])
    arrays = []
    for i in range(nargs):
        shards = [jax.device_put(literal_to_numpy(per_replica_args[r][i]), devices[r]) for r in range(replicas)]
        if replicas == 1:
            arrays.append(shards[0])
        else:
            # Every device holds a whole per-replica value: a "replicated" sharding whose shards
            # differ. jax does not check that replicated shards are equal, and XLA runs each
            # replica on its own device's buffer.
            mesh = jax.sharding.Mesh(np.array(devices), ("r",))
            sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
            arrays.append(jax.make_array_from_single_device_arrays(shards[0].shape, sharding, shards))
    out = exe.execute_sharded(arrays)
    per_output = out.disassemble_into_single_device_arrays()
    results = []
    for r in range(replicas):
        outs = [np.asarray(per_output[k][r]) for k in range(len(per_output))]
        results.append(assemble(result_shape, outs))
    return results[0] if replicas == 1 else results


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            resp = {"id": rid, "result": execute(req)}
        except Exception as e:  # report every failure as this case's error and keep serving
            resp = {"id": rid, "error": f"{type(e).__name__}: {e}".replace("\n", " ")[:2000]}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--version":
        print(f"xla-cpu via jaxlib {jaxlib.__version__}")
        sys.exit(0)
    main()
