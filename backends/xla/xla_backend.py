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

The HLO parsing, StableHLO import and literal conversion are shared with the StableHLO
interpreter adapter in backends/common/hlo_to_stablehlo.py.

Set up with `bash backends/xla/setup.sh` (a pinned virtual environment under target/).
"""

import os
import re
import sys

MAX_REPLICAS = 8
FLAG = f"--xla_force_host_platform_device_count={MAX_REPLICAS}"
if FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + FLAG).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# The HLO-to-StableHLO conversion and the helpers both adapters share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jaxlib  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from hlo_to_stablehlo import (  # noqa: E402,F401  (re-exported for scripts importing this module)
    DTYPES, NAMES, Unsupported, assemble, entry_layout, flatten_literal, leaves, literal_to_numpy,
    needs_wrapper, numpy_to_literal, parse_shape, serve, shape_str, shape_text, to_stablehlo,
    unwrap, wrap)

# Without this jax silently narrows 64-bit arguments to 32 bits.
jax.config.update("jax_enable_x64", True)

_client = None


def client():
    global _client
    if _client is None:
        _client = jax.devices("cpu")[0].client
    return _client


# Opcodes XLA:CPU cannot run here: infeed/outfeed/send/recv wait for a host transfer that never
# comes, so they would hang until the harness's timeout. Refuse them at once.
BLOCKING = re.compile(r"=\s*[^=]*?\b(infeed|outfeed|send|recv|send-done|recv-done)\(")


def execute(req):
    replicas = int(req.get("replicas", 1) or 1)
    if replicas > MAX_REPLICAS:
        raise Unsupported(f"the adapter runs at most {MAX_REPLICAS} replicas")
    text = req["hlo"]
    blocking = BLOCKING.search(text)
    if blocking or req.get("infeed"):
        what = blocking.group(1) if blocking else "infeed"
        raise Unsupported(f"{what} needs a host transfer XLA:CPU cannot do through this adapter")
    module, _ = to_stablehlo(text, convert=False)
    params, result_shape = entry_layout(module)
    if any(leaf[0] == "array" and any(leaf[3]) for p in params for leaf in leaves(p)):
        # XLA:CPU pads a dynamic-shaped entry parameter with a PadToStatic custom call it does not
        # implement; setting the size inside a wrapper gives answers nothing vouches for.
        raise Unsupported("a dynamic-shaped parameter cannot be passed to XLA:CPU through this adapter")
    if any(leaf[0] == "array" and any(leaf[3]) for leaf in leaves(result_shape)):
        # XLA's StableHLO import aborts on a dynamic entry result, and XLA:CPU cannot pad one to
        # static (no PadToStatic), so there is no way to read its runtime size back.
        raise Unsupported("a dynamic-shaped result cannot be returned from XLA:CPU through this adapter")
    per_replica_args = req["args"] if replicas > 1 else [req["args"]]
    if len(per_replica_args) != replicas:
        raise ValueError("args must list one argument list per replica")
    wrapped_result = False
    if needs_wrapper(params, result_shape):
        wrapped = [wrap(text, params, result_shape, a) for a in per_replica_args]
        text = wrapped[0][0]
        wrapped_result = True
        module, mlir = to_stablehlo(text)
        per_replica_args = [w[1] for w in wrapped]
        out_shape = entry_layout(module)[1]
    else:
        module, mlir = to_stablehlo(text)
        per_replica_args = [[l for a in args for l in flatten_literal(a)] for args in per_replica_args]
        out_shape = result_shape
    devices = jax.devices("cpu")[:replicas]
    opts = xc.CompileOptions()
    build = opts.executable_build_options
    build.num_replicas = replicas
    build.num_partitions = 1
    build.device_assignment = xc.DeviceAssignment.create(np.arange(replicas).reshape(replicas, 1))
    exe = client().compile_and_load(mlir, xc.DeviceList(tuple(devices)), opts)
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
        if wrapped_result:
            results.append(unwrap(result_shape, outs))
        else:
            results.append(assemble(out_shape, outs))
    return results[0] if replicas == 1 else results


def version():
    return f"jaxlib {jaxlib.__version__}"


def main():
    serve(execute, "xla-cpu", version())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--version":
        print(f"xla-cpu via {version()}")
        sys.exit(0)
    main()
