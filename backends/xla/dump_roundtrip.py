"""Runs XLA's own dumps on xla-spec with NumPy files, as a user would, and compares with JAX.

A jax.pmap program's per-device module runs on 4 replicas, each with its own slice of the
arguments (`replica<k>_arg<i>` in the archive).

For each program below: JAX runs it under XLA_FLAGS=--xla_dump_to=DIR; the module's dumps as XLA
wrote them (`*.before_optimizations.txt` and XLA:CPU's `*.cpu_after_optimizations.txt`) are run
unchanged with `xla-spec run DUMP --args in.npz --out out.npz`, and every array of out.npz is
compared with JAX's own result. This is the path the book's "Running modules from XLA and JAX"
page describes; the golden cases under golden/programs/ pin the values, this checks the files,
the file names and the command line.

Usage: target/xla-venv/bin/python backends/xla/dump_roundtrip.py XLA_SPEC_BINARY
Exit status 0 when every dump gives JAX's answer, 1 otherwise.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

DUMP = tempfile.mkdtemp(prefix="xla-spec-dumps-")
# XLA reads its flags once, when the CPU client starts: set them before jax is imported.
os.environ["XLA_FLAGS"] = f"--xla_dump_to={DUMP} --xla_force_host_platform_device_count={4}"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402


def mlp_loss_and_grad(w1, b1, w2, x, y):
    def loss(w1, b1, w2):
        h = jax.nn.gelu(x @ w1 + b1)
        return jnp.mean((h @ w2 - y) ** 2)

    return jax.value_and_grad(loss, argnums=(0, 1, 2))(w1, b1, w2)


def bf16_softmax_rows(a, b):
    return jax.nn.softmax((a @ b).astype(jnp.float32), axis=-1).astype(jnp.bfloat16)


def integer_mix(a, b, s):
    return (a * b + (a >> s)) // jnp.maximum(b, 1), jnp.argmax(a, axis=1), (a ^ b).astype(jnp.uint8)


def complex_fft(z):
    return jnp.fft.fft(z), jnp.abs(z).sum()


def pmap_step(x, n):
    # One collective of each common kind, as jax.pmap writes them for 4 devices.
    return lax.psum(x, "i"), lax.pmax(n, "i"), lax.all_gather(x, "i"), \
        lax.ppermute(n, "i", [(i, (i + 1) % 4) for i in range(4)])


def programs():
    r = np.random.default_rng(7)
    f32 = lambda *s: r.standard_normal(s).astype(np.float32)  # noqa: E731
    yield "mlp_loss_and_grad", mlp_loss_and_grad, [
        f32(6, 8), f32(8), f32(8, 3), f32(5, 6), f32(5, 3)], 1e-4
    yield "bf16_softmax_rows", bf16_softmax_rows, [
        f32(4, 8).astype(ml_dtypes.bfloat16), f32(8, 16).astype(ml_dtypes.bfloat16)], 2e-2
    yield "integer_mix", integer_mix, [
        r.integers(-1000, 1000, (4, 5)).astype(np.int32),
        r.integers(-9, 9, (4, 5)).astype(np.int32),
        r.integers(0, 31, (4, 5)).astype(np.int32)], 0
    yield "complex_fft", complex_fft, [
        (f32(3, 8) + 1j * f32(3, 8)).astype(np.complex64)], 1e-4


def flat(out):
    leaves = jax.tree_util.tree_leaves(out)
    return [np.asarray(x) for x in leaves]


def compare(name, form, got, want, tol):
    problems = []
    if len(got) != len(want):
        return [f"{name} ({form}): {len(got)} arrays written, JAX has {len(want)}"]
    for i, (g, w) in enumerate(zip(got, want)):
        if w.dtype == ml_dtypes.bfloat16:
            # NumPy keeps ml_dtypes.bfloat16 as two-byte void in .npz: view it back.
            g = g.view(ml_dtypes.bfloat16)
        if g.dtype != w.dtype or g.shape != w.shape:
            problems.append(f"{name} ({form}) out{i}: {g.dtype}{g.shape}, JAX has {w.dtype}{w.shape}")
            continue
        if tol == 0:
            ok = np.array_equal(g, w)
        else:
            ok = np.allclose(g.astype(np.complex128), w.astype(np.complex128), rtol=tol, atol=tol)
        if not ok:
            problems.append(f"{name} ({form}) out{i}: got {g!r}, JAX has {w!r}")
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    xla_spec = sys.argv[1]
    work = tempfile.mkdtemp(prefix="xla-spec-roundtrip-")
    problems, runs = [], 0
    for name, fn, args, tol in programs():
        want = flat(jax.jit(fn)(*args))
        inputs = os.path.join(work, f"{name}.in.npz")
        np.savez(inputs, *args)  # positional arrays: arr_0, arr_1, ...
        for form, suffix in [("before optimizations", "before_optimizations.txt"),
                             ("after XLA:CPU's optimizations", "cpu_after_optimizations.txt")]:
            dumps = glob.glob(os.path.join(DUMP, f"module_*.jit_{name}.{suffix}"))
            if len(dumps) != 1:
                problems.append(f"{name}: expected one {suffix} dump in {DUMP}, found {dumps}")
                continue
            out = os.path.join(work, f"{name}.{suffix}.out.npz")
            run = subprocess.run([xla_spec, "run", dumps[0], "--args", inputs, "--out", out],
                                 capture_output=True, text=True, timeout=300)
            runs += 1
            if run.returncode != 0:
                problems.append(f"{name} ({form}): xla-spec run exited {run.returncode}: "
                                f"{run.stderr.strip()}")
                continue
            with np.load(out) as z:
                got = [z[f"out{i}"] for i in range(len(z.files))]
            problems += compare(name, form, got, want, tol)
    # jax.pmap: only the module after optimisation is per device (before it, the module is the
    # global SPMD program that XLA's partitioner splits). Device k's slice of every argument is
    # `replica<k>_arg<i>`, with the mapped axis kept as a dimension of size 1, as in the module.
    r = np.random.default_rng(11)
    x = r.standard_normal((4, 3)).astype(np.float32)
    n = r.integers(-50, 50, (4, 2)).astype(np.int32)
    before = set(glob.glob(os.path.join(DUMP, "*.cpu_after_optimizations.txt")))
    want = flat(jax.pmap(pmap_step, axis_name="i")(x, n))
    dumps = sorted(set(glob.glob(os.path.join(DUMP, "*.cpu_after_optimizations.txt"))) - before)
    if len(dumps) != 1:
        problems.append(f"pmap_step: expected one new module in {DUMP}, found {dumps}")
    else:
        inputs = os.path.join(work, "pmap_step.in.npz")
        np.savez(inputs, **{f"replica{k}_arg{i}": a[k:k + 1] for k in range(4)
                            for i, a in enumerate([x, n])})
        out = os.path.join(work, "pmap_step.out.npz")
        run = subprocess.run([xla_spec, "run", dumps[0], "--replicas", "4", "--args", inputs,
                              "--out", out], capture_output=True, text=True, timeout=300)
        runs += 1
        if run.returncode != 0:
            problems.append(f"pmap_step: xla-spec run exited {run.returncode}: {run.stderr.strip()}")
        else:
            with np.load(out) as z:
                for k in range(4):
                    got = [z[f"replica{k}_out{i}"][0] for i in range(len(want))]
                    problems += compare("pmap_step", f"replica {k}", got, [w[k] for w in want], 1e-6)
    for p in problems:
        print("MISMATCH", p)
    print(f"{runs} dumps run with .npz arguments, {len(problems)} problems")
    if not problems:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(DUMP, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
