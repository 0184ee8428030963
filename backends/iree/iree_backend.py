#!/usr/bin/env python3
"""An xla-spec backend that compiles each module with IREE (iree-base-compiler, the llvm-cpu
target) and runs it with IREE's runtime (iree-base-runtime, the local-sync driver).

It speaks xla-spec's JSON-lines backend protocol on stdin/stdout:
  request:  {"id": N, "hlo": "...", "args": [LITERAL...], "replicas": R}
  response: {"id": N, "result": LITERAL}
            {"id": N, "error": "text"}

The module goes through XLA's HLO text parser and XLA's HLO-to-StableHLO import, exactly as the
XLA and StableHLO-interpreter adapters' do (backends/common/hlo_to_stablehlo.py); the StableHLO
module is printed as MLIR text (erf and topk, which XLA's import leaves as mhlo ops, rewritten to
their CHLO twins, which IREE reads), compiled by `iree-compile` (which iree.compiler.compile_str
runs as a subprocess) and the resulting VM module run by iree.runtime. Compilation and execution
run in a forked child, so that whatever IREE does to the process (its runtime may abort on a failed
check) costs at most this one case.

What the adapter adds around IREE:
- the entry wrapper (shared with the other adapters) when the ENTRY takes or returns tuples or
  tokens, so that the compiled function takes and returns only arrays;
- compiler flags that keep the element types the module asks for: IREE demotes f64 to f32 before
  anything else by default (--iree-input-demote-f64-to-f32), which would make every f64 case a
  single-precision one; the i64 demotion is off by default and is turned off explicitly anyway;
- a fixed target CPU (`generic`, IREE's own default, named so IREE does not warn): the compiled
  code, and so every answer, does not depend on the machine's CPU features;
- requests with several replicas, collectives (even on one replica), infeed, or host transfers
  are refused, naming the ops: the adapter runs one IREE device and gives the program no channel,
  no infeed/outfeed queue and no host to talk to.

Set up with `bash backends/iree/setup.sh` (a pinned virtual environment under target/iree-venv).
"""

import os
import pickle
import re
import sys
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import numpy as np  # noqa: E402
import jaxlib  # noqa: E402
from hlo_to_stablehlo import (  # noqa: E402
    Unsupported, drop_entry_layout, entry_layout, flatten_literal, in_child, leaves,
    literal_to_numpy, mhlo_to_chlo, needs_wrapper, serve, stablehlo_text, to_stablehlo, unwrap,
    wrap)

# Opcodes whose value comes from, or goes to, the host or another program: the adapter gives the
# compiled program no infeed/outfeed queue and no channel.
HOST = re.compile(r"=\s*[^=]*?\b(infeed|outfeed|send|recv|send-done|recv-done)\(")

# The ops that make a module depend on its replica count, named in the refusal.
COLLECTIVE = re.compile(
    r"=\s*[^=]*?\b(all-reduce|all-gather|all-to-all|reduce-scatter|collective-permute|"
    r"collective-broadcast|replica-id|partition-id)(?:-start)?\(")

# The IREE device the programs run on: one synchronous CPU device, so a run uses one core and
# its order of work is fixed.
DRIVER = "local-sync"

COMPILE_FLAGS = [
    # Keep f64 as f64 (IREE narrows it to f32 by default) and i64 as i64.
    "--iree-input-demote-f64-to-f32=false",
    "--iree-input-demote-i64-to-i32=false",
    # IREE's default CPU, said explicitly: without it IREE warns on every compile.
    "--iree-llvmcpu-target-cpu=generic",
]


# ---------------------------------------------------------------- IREE


def compile_error(e):
    """The gist of iree-compile's complaint: its `error:` lines, without the command line and the
    long IR dumps that follow them; when it crashed instead (a stack dump), the first frame of
    its own code."""
    text = str(e)
    errors = [line.split("error:", 1)[1].strip() for line in text.splitlines() if "error:" in line]
    if errors:
        return "iree-compile refused the module: " + "; ".join(dict.fromkeys(errors))[:1500]
    for frame in re.findall(r"#\d+ 0x[0-9a-f]+ (\S+)", text):
        if not frame.startswith(("llvm::sys::", "SignalHandler", "(")):
            return f"iree-compile crashed (stack dump) in {frame[:200]}"
    return "iree-compile failed: " + " ".join(text.split())[-1500:]


def _run_here(source, arrays):
    """Compiles the MLIR source with iree-compile and runs its main function on the arrays (in the
    forked child). Returns the outputs as numpy arrays."""
    import iree.compiler as ireec
    import iree.runtime as ireert

    try:
        vmfb = ireec.compile_str(source, target_backends=["llvm-cpu"], input_type="stablehlo",
                                 extra_args=COMPILE_FLAGS)
    except ireec.CompilerToolError as e:
        raise RuntimeError(compile_error(e)) from None
    config = ireert.Config(DRIVER)
    ctx = ireert.SystemContext(config=config)
    vm_module = ireert.VmModule.copy_buffer(ctx.instance, vmfb)
    ctx.add_vm_module(vm_module)
    # The VM module is named after the MLIR module (XLA's import names it after the HLO module).
    main = ctx.modules[vm_module.name]["main"]
    outs = main(*arrays)
    if outs is None:
        return []
    if not isinstance(outs, (tuple, list)):
        outs = [outs]
    return [np.asarray(o.to_host()) for o in outs]


def run(bytecode, arrays):
    """Prints, compiles and runs the StableHLO module in a forked child and returns its outputs as
    numpy arrays. A child killed by a signal (IREE's runtime aborted) fails only this case, with
    the end of what it wrote to stderr."""
    err = tempfile.TemporaryFile()

    def work():
        os.dup2(err.fileno(), 2)
        try:
            return 0, b"R" + pickle.dumps(_run_here(mhlo_to_chlo(stablehlo_text(bytecode)), arrays))
        except RuntimeError as e:  # IREE's refusal or runtime error: the parent reports it
            return 1, b"E" + pickle.dumps(str(e))
        except Exception as e:  # anything else, with its type
            return 1, b"E" + pickle.dumps(f"{type(e).__name__}: {e}")

    status, msg = in_child(work)
    err.seek(0)
    stderr = err.read().decode(errors="replace").strip()
    err.close()
    if stderr:
        sys.stderr.write(stderr[-4000:] + "\n")
        sys.stderr.flush()
    if os.WIFSIGNALED(status):
        why = " ".join(stderr[-400:].split())
        raise RuntimeError(f"IREE crashed on this module (signal {os.WTERMSIG(status)}): "
                           + (why or "no message"))
    if msg.startswith(b"E"):
        raise RuntimeError(pickle.loads(msg[1:]))
    if os.WEXITSTATUS(status) != 0 or not msg.startswith(b"R"):
        raise RuntimeError(f"the IREE child exited with status {os.WEXITSTATUS(status)}: "
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
        raise Unsupported(f"{what}{replicas} replicas: the adapter runs one IREE device and has no "
                          "way to run a module as several replicas")
    host = HOST.search(text)
    if host or req.get("infeed"):
        what = host.group(1) if host else "infeed"
        raise Unsupported(f"{what}: the adapter gives the IREE program no infeed/outfeed queue or "
                          "channel")
    if ops:
        raise Unsupported(f"{', '.join(ops)}: the adapter runs one IREE device with no collective "
                          "channel, so it runs no collective")
    params, result_shape = entry_layout(module)
    if any(leaf[0] == "array" and any(leaf[3]) for p in params for leaf in leaves(p)):
        raise Unsupported("a dynamic-shaped parameter: bounded dynamic shapes cannot cross the "
                          "entry boundary through XLA's StableHLO import")
    if any(leaf[0] == "array" and any(leaf[3]) for leaf in leaves(result_shape)):
        raise Unsupported("a dynamic-shaped result: XLA's StableHLO import aborts on a dynamic "
                          "entry result")
    args = req["args"]
    if needs_wrapper(params, result_shape):
        text, flat = wrap(drop_entry_layout(text), params, result_shape, args)
    else:
        flat = [l for a in args for l in flatten_literal(a)]
    _, bytecode = to_stablehlo(text)
    outs = run(bytecode, [literal_to_numpy(l) for l in flat])
    if not leaves(result_shape) or all(l[0] == "token" for l in leaves(result_shape)):
        outs = []  # the wrapper's placeholder
    return unwrap(result_shape, outs)


def version():
    # Read from the package metadata: importing iree.compiler here would load its MLIR libraries
    # into the parent, which only forks.
    from importlib.metadata import version as dist_version
    return (f"iree-base-compiler {dist_version('iree-base-compiler')}, iree-base-runtime "
            f"{dist_version('iree-base-runtime')}, {DRIVER}; jaxlib {jaxlib.__version__}")


def main():
    serve(execute, "iree-llvm-cpu", version())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--version":
        print(f"iree-llvm-cpu via {version()}")
        sys.exit(0)
    main()
