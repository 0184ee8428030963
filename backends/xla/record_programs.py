#!/usr/bin/env python3
"""Records golden cases from small, real JAX programs, with expected values computed by XLA:CPU.

The other golden files hold modules written by hand, one op at a time. The modules here are the
ones JAX and XLA actually produce for whole programs (an MLP and its gradient, a CNN, attention,
an RNN, gathers and scatters, sorting, random numbers, FFTs, control flow, integer and mixed
precision arithmetic, collectives), so the cases exercise what a user's program contains: nested
calls, fusions, long operand forms, metadata, layouts, select-and-scatter, transposed
convolutions, while loops built by scan, threefry bit twiddling and so on.

Each program is recorded in up to two forms, each a case named `<program>_<form>`:

  lowered    the module JAX hands to XLA: jax.jit(f).lower(*args).as_text(dialect="hlo");
  optimized  the module after XLA:CPU's optimisation pipeline, as an XLA dump shows it (the
             compiled executable's module printed with its large constants).

The collective programs are jax.pmap over 4 devices. In this jax, pmap is shard_map under jit: the
lowered module is a global SPMD program with sharding custom-calls, and only XLA's SPMD
partitioner turns it into one program per device. So they get one case, `<program>_pmap`: the
partitioned, optimised per-device module, run on 4 replicas with per-device arguments and
results. That module is written for 4 partitions (`num_partitions=4`, channel ids, global device
ids); with one partition per replica, device i is replica i, which is how the case runs it.

Expected values are the outputs of the compiled executable (the same one whose text is the
optimized form), converted to the golden literal format; arguments come from fixed numpy seeds,
so a rerun writes the same files (as long as jax and jaxlib stay at the pinned version).

    target/xla-venv/bin/python backends/xla/record_programs.py [--only TEXT]

It rewrites golden/programs/<program>.json from scratch (all of them, or those whose program name
contains TEXT). Cases the reference runtime cannot run yet are listed in HELD_BACK with the
construct it refuses, and left out. Check the result with `xla-spec conform golden/programs`;
XLA itself runs the lowered forms through backends/xla/run.sh (its adapter recompiles a module
from StableHLO, which an already optimised module, with its fusions and layouts, does not survive).
"""

import argparse
import json
import os
import re
import sys

# Both must be set before jax is imported: the pmap programs need 4 CPU devices.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip()
os.environ["JAX_PLATFORMS"] = "cpu"

import numpy as np  # noqa: E402
import ml_dtypes  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
import jaxlib._hlo as hlo  # noqa: E402
from jax import lax  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(ROOT, "golden", "programs")
SCRIPT = "backends/xla/record_programs.py"
REPLICAS = 4

# Tolerances. XLA evaluates transcendental functions with its own polynomial approximations,
# reassociates reductions and dots (vectorised partial sums), and fuses elementwise chains; the
# specification leaves all of that open, so floating-point results are compared with a margin.
EXACT = None
F32 = {"atol": 1e-6, "rtol": 1e-5}  # one reduction or transcendental between input and output
# Several dependent layers (a gradient through softmax, layer norm, a 6-step recurrence): the
# small per-op differences compound, so allow a few more units in the last place.
F32_DEEP = {"atol": 1e-5, "rtol": 1e-4}
# XLA:CPU computes bf16 elementwise ops in f32 and rounds once at the end of a fusion, where an
# op-by-op evaluation rounds after every op: a chain of a dozen bf16 roundings (relative step
# 2^-8) is allowed to drift by a few of them.
BF16_DEEP = {"atol": 0.03, "rtol": 0.03}
# Mixed outputs (f16/bf16 results next to f32 ones): one unit in the last place of a half type,
# or the f32 margin.
MIXED = {"atol": 1e-6, "rtol": 1e-5, "ulp": 1}

TYPE_NAMES = {
    np.dtype(np.bool_): "pred",
    np.dtype(np.int8): "s8",
    np.dtype(np.int16): "s16",
    np.dtype(np.int32): "s32",
    np.dtype(np.int64): "s64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.float16): "f16",
    np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "c64",
    np.dtype(np.complex128): "c128",
}


# ---------------------------------------------------------------- literals


def element(x, ty):
    if ty == "pred":
        return bool(x)
    if ty in ("c64", "c128"):
        part = np.float32 if ty == "c64" else np.float64
        return [element(part(x.real), "f"), element(part(x.imag), "f")]
    if ty[0] in "su":
        return int(x)
    if np.isnan(x):
        return "-nan" if np.signbit(x) else "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    # str of a numpy scalar is the shortest text that reads back as the same value in its own
    # type; parsed as f64 and rounded, it still gives that value (f64 has over twice the bits).
    return float(str(x))


def literal(arr, dims=None):
    arr = np.asarray(arr)
    ty = TYPE_NAMES[arr.dtype]
    dims = list(arr.shape) if dims is None else list(dims)
    assert int(np.prod(dims)) == arr.size, (dims, arr.shape)
    data = [element(x, ty) for x in arr.reshape(-1)]
    return {"shape": f"{ty}[{','.join(map(str, dims))}]", "data": data}


def entry_shapes(text):
    """The ENTRY parameter dimensions and whether the result is a tuple, from the module header's
    entry_computation_layout (the leaves of a tuple result are arrays in jit's output order)."""
    header = re.sub(r"/\*.*?\*/", "", text.split("\n", 1)[0])
    m = re.search(r"entry_computation_layout=\{\((.*)\)->(.*?)\}(?:,|$)", header)
    assert m, header
    params = [[int(d) for d in dims.split(",") if d] for dims in re.findall(r"\w+\[([^\]]*)\]", m.group(1))]
    return params, m.group(2).startswith("(")


def result_literal(outs, tuple_result, dims_of=None):
    leaves = jax.tree_util.tree_leaves(outs)
    lits = [literal(np.asarray(x), dims_of(i, x) if dims_of else None) for i, x in enumerate(leaves)]
    if tuple_result:
        return {"tuple": lits}
    assert len(lits) == 1
    return lits[0]


# ---------------------------------------------------------------- module text


def optimized_text(compiled):
    """The optimised module as XLA's dump writes it: like Compiled.as_text(), but with every
    constant printed in full (as_text elides large ones as {...}, which no parser can read)."""
    modules = compiled.runtime_executable().hlo_modules()
    assert len(modules) == 1
    opts = hlo.HloPrintOptions()
    opts.print_large_constants = True
    # The debug-info section names this script by its absolute path: keep the files independent
    # of where the checkout lives.
    return modules[0].to_string(opts).replace(ROOT + os.sep, "")


# ---------------------------------------------------------------- recording

CASES = {}  # program name -> list of cases
PROVENANCE = {
    "backend": "xla-cpu",
    "version": f"jaxlib {jaxlib.__version__}",
    "jax": jax.__version__,
    "tool": SCRIPT,
    "command": f"target/xla-venv/bin/python {SCRIPT}",
}


# Cases XLA printed that the reference runtime refuses, kept out of the files until it accepts
# them (the construct, and where it comes from, is said with each).
HELD_BACK = {}


def add_case(program, form, description, text, args, expected, tolerance, replicas=None):
    if f"{program}_{form}" in HELD_BACK:
        print(f"held back: {program}_{form} ({HELD_BACK[program + '_' + form]})", file=sys.stderr)
        return
    case = {"name": f"{program}_{form}", "description": description, "hlo": text}
    if replicas:
        case["replicas"] = replicas
    case["args"] = args
    case["expected"] = expected
    if tolerance:
        case["tolerance"] = tolerance
    case["provenance"] = dict(PROVENANCE, program=program, form=form)
    CASES.setdefault(program, []).append(case)


def record(program, description, fn, args, tolerance, x64=False):
    """Records `fn(*args)` under jit in the lowered and optimized forms."""
    with jax.enable_x64(x64):
        # keep_unused: every argument stays an ENTRY parameter, so args line up with parameters.
        jitted = jax.jit(fn, keep_unused=True)
        lowered = jitted.lower(*args)
        compiled = lowered.compile()
        outs = compiled(*args)
        forms = {
            "lowered": lowered.as_text(dialect="hlo"),
            "optimized": optimized_text(compiled),
        }
    flat_args = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
    for form, text in forms.items():
        params, tuple_result = entry_shapes(text)
        assert len(params) == len(flat_args), (program, form, params)
        lits = [literal(a) for a in flat_args]
        add_case(program, form, f"{description} ({form} form)", text, lits,
                 result_literal(outs, tuple_result), tolerance)


def record_pmap(program, description, fn, args, tolerance):
    """Records `jax.pmap(fn)(*args)` (every argument mapped over its leading axis of size 4) as
    the per-device module, run on 4 replicas."""
    pmapped = jax.pmap(fn, axis_name="i")
    compiled = pmapped.lower(*args).compile()
    text = optimized_text(compiled)
    outs = compiled(*args)
    params, tuple_result = entry_shapes(text)
    flat_args = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
    assert len(params) == len(flat_args), (program, params)
    # The per-device module keeps the mapped axis as a dimension of size 1: device r's slice
    # of each array, with the module's own dimensions.
    per_args = [[literal(a[r], dims) for a, dims in zip(flat_args, params)] for r in range(REPLICAS)]
    per_out = [result_literal([np.asarray(x)[r] for x in jax.tree_util.tree_leaves(outs)], tuple_result,
                              lambda i, x: (1,) + x.shape)
               for r in range(REPLICAS)]
    add_case(program, "pmap", f"{description} (jax.pmap per-device module on {REPLICAS} replicas)",
             text, per_args, per_out, tolerance, replicas=REPLICAS)


def rng(seed):
    return np.random.default_rng(seed)


def normal(r, *shape, dtype=np.float32, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(dtype)


# ---------------------------------------------------------------- programs


def mlp():
    r = rng(1)
    params = {
        "w1": normal(r, 8, 16, scale=0.3), "b1": normal(r, 16, scale=0.1),
        "w2": normal(r, 16, 4, scale=0.3), "b2": normal(r, 4, scale=0.1),
    }
    x = normal(r, 6, 8)
    y = r.integers(0, 4, size=6).astype(np.int32)

    def loss(p, x, y):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    record("mlp_loss_grad", "a two-layer MLP's softmax cross-entropy loss and its gradient "
           "(jax.value_and_grad)", jax.value_and_grad(loss), (params, x, y), F32_DEEP)


def cnn():
    r = rng(2)
    x = normal(r, 2, 6, 6, 2)
    k1 = normal(r, 3, 3, 2, 4, scale=0.4)
    k2 = normal(r, 2, 2, 4, 3, scale=0.4)
    t = normal(r, 2, 3)
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(k1, k2, x, t):
        h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
        h = jax.nn.relu(h)
        # max pooling (its gradient is select-and-scatter)
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = lax.conv_general_dilated(h, k2, (1, 1), "VALID", dimension_numbers=dn)
        # average pooling
        h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
        return jnp.mean((h.reshape(2, 3) - t) ** 2)

    # Gradients with respect to the input as well as the kernels: the input's gradient is a
    # transposed (lhs-dilated) convolution.
    record("cnn_grad", "a small CNN (conv, relu, max pool, conv, average pool, squared error) "
           "and its gradient with respect to both kernels and the input",
           jax.value_and_grad(loss, argnums=(0, 1, 2)), (k1, k2, x, t), F32_DEEP)


def attention(dtype, name, tolerance):
    r = rng(3)
    seq, dim, heads = 8, 16, 2
    p = {
        "ln_g": (1.0 + normal(r, dim, scale=0.1)), "ln_b": normal(r, dim, scale=0.1),
        "wq": normal(r, dim, dim, scale=0.25), "wk": normal(r, dim, dim, scale=0.25),
        "wv": normal(r, dim, dim, scale=0.25), "wo": normal(r, dim, dim, scale=0.25),
        "w_up": normal(r, dim, 2 * dim, scale=0.25), "w_down": normal(r, 2 * dim, dim, scale=0.25),
    }
    p = {k: v.astype(dtype) for k, v in p.items()}
    x = normal(r, seq, dim).astype(dtype)

    def layer_norm(h, g, b):
        mu = jnp.mean(h, axis=-1, keepdims=True)
        var = jnp.mean((h - mu) ** 2, axis=-1, keepdims=True)
        return (h - mu) * lax.rsqrt(var + 1e-5) * g + b

    def block(p, x):
        h = layer_norm(x, p["ln_g"], p["ln_b"])
        q, k, v = (jnp.dot(h, p[w]).reshape(seq, heads, dim // heads) for w in ("wq", "wk", "wv"))
        s = jnp.einsum("qhd,khd->hqk", q, k) / np.sqrt(dim // heads).astype(dtype)
        causal = jnp.tril(jnp.ones((seq, seq), bool))
        s = jnp.where(causal[None], s, jnp.finfo(dtype).min)
        a = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("hqk,khd->qhd", a, v).reshape(seq, dim)
        x = x + o @ p["wo"]
        h = layer_norm(x, p["ln_g"], p["ln_b"])
        return x + jax.nn.gelu(h @ p["w_up"]) @ p["w_down"]

    record(name, f"a transformer block in {np.dtype(dtype).name}: layer norm, two-head causal "
           "self-attention, residual, GELU MLP", block, (p, x), tolerance)


def scan_rnn():
    r = rng(4)
    w = normal(r, 8, 8, scale=0.3)
    u = normal(r, 4, 8, scale=0.5)
    b = normal(r, 8, scale=0.1)
    h0 = normal(r, 8, scale=0.5)
    xs = normal(r, 6, 4)

    def rnn(w, u, b, h0, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x @ u + b)
            return h, h
        return lax.scan(step, h0, xs)

    record("scan_rnn", "an Elman RNN over 6 steps with lax.scan (final state and every state)",
           rnn, (w, u, b, h0, xs), F32_DEEP)


def embedding():
    r = rng(5)
    table = normal(r, 10, 4)
    ids = np.array([3, 7, 3, 0, 9, 3, 5], np.int32)
    updates = normal(r, 7, 4)
    seg = np.array([0, 0, 1, 3, 3, 3, 4], np.int32)

    def f(table, ids, updates, seg):
        emb = table[ids]
        # repeated ids accumulate (id 3 three times)
        table2 = table.at[ids].add(updates)
        sums = jax.ops.segment_sum(emb * 2.0, seg, num_segments=5)
        counts = jax.ops.segment_sum(jnp.ones_like(ids), seg, num_segments=5)
        return emb, table2, sums, counts

    record("embedding_scatter", "an embedding lookup (gather), scatter-add with repeated indices "
           "(.at[].add) and jax.ops.segment_sum", f, (table, ids, updates, seg), F32)


def sorting():
    r = rng(6)
    x = normal(r, 3, 10)
    n = r.integers(-50, 50, size=(12,)).astype(np.int32)

    def f(x, n):
        vals, idx = lax.top_k(x, 3)
        return (jnp.sort(x, axis=-1), jnp.argsort(x, axis=-1), vals, idx, jnp.argmax(x, axis=1),
                jnp.cumsum(x, axis=1), jnp.cumsum(n), jnp.sort(n)[::-1])

    record("sort_topk", "sort, argsort, lax.top_k, argmax and cumsum (f32 and s32)", f, (x, n), F32)


def random_numbers():
    key = np.asarray(jax.random.PRNGKey(1234))
    x = normal(rng(7), 5)

    def with_key(key):
        k1, k2, k3 = jax.random.split(key, 3)
        return (jax.random.normal(k1, (4, 5)), jax.random.uniform(k2, (6,), minval=-1.0, maxval=2.0),
                jax.random.bits(k3, (4,), dtype=jnp.uint32))

    record("random_key_arg", "threefry random numbers from a key argument: split, normal, "
           "uniform and raw bits", with_key, (key,), F32)

    def with_constant_key(x):
        noise = jax.random.normal(jax.random.PRNGKey(42), x.shape)
        keep = jax.random.bernoulli(jax.random.PRNGKey(7), 0.5, x.shape)
        return jnp.where(keep, x + 0.1 * noise, 0.0)

    record("random_const_key", "threefry random numbers from constant keys (noise and a "
           "bernoulli dropout mask) applied to an argument", with_constant_key, (x,), F32)


def fft():
    r = rng(8)
    x = normal(r, 8)
    z = (normal(r, 2, 8) + 1j * normal(r, 2, 8)).astype(np.complex64)

    def f(x, z):
        return jnp.fft.fft(z), jnp.fft.rfft(x), jnp.fft.ifft(z, axis=0), jnp.fft.irfft(jnp.fft.rfft(x))

    record("fft", "jnp.fft.fft, rfft, ifft (along the first axis) and irfft", f, (x, z), F32)


def control_flow():
    r = rng(9)
    x = normal(r, 4)
    n = np.int32(27)
    flag = np.bool_(True)
    branch = np.int32(2)

    def f(x, n, flag, branch):
        acc = lax.fori_loop(0, 5, lambda i, a: a * 0.5 + x * i.astype(jnp.float32), jnp.zeros_like(x))

        def collatz(s):
            v, steps = s
            return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), steps + 1

        _, steps = lax.while_loop(lambda s: s[0] != 1, collatz, (n, jnp.int32(0)))
        c = lax.cond(flag, lambda v: jnp.sin(v), lambda v: jnp.cos(v), x)
        s = lax.switch(branch, [lambda v: v + 1.0, lambda v: v * v, lambda v: -v, lambda v: jnp.exp(v)], x)
        return acc, steps, c, s

    record("control_flow", "fori_loop, a while_loop counting Collatz steps, cond on an argument "
           "and switch on an index argument", f, (x, n, flag, branch), F32)


def integers():
    r = rng(10)
    a8 = r.integers(-128, 128, size=8).astype(np.int8)
    b8 = r.integers(-128, 128, size=8).astype(np.int8)
    u = r.integers(0, 2**32, size=8, dtype=np.uint64).astype(np.uint32)
    s = r.integers(0, 32, size=8).astype(np.uint32)
    w = r.integers(-2**62, 2**62, size=6).astype(np.int64)
    d = np.array([7, -7, 3, -3, 1, -5], np.int64)

    def f(a8, b8, u, s, w, d):
        # int8 wraps around
        wrap = (a8 + b8, a8 * b8, a8 - b8)
        # an xorshift-style hash step on uint32
        h = u ^ (u << s)
        h = h ^ lax.shift_right_logical(h, jnp.uint32(17))
        h = h * jnp.uint32(0x9E3779B1)
        # int64: shifts past 32 bits, truncating and flooring division, remainders
        big = (w << 3, w >> 40, lax.shift_right_logical(w, jnp.int64(60)), lax.div(w, d), w // d,
               w % d, lax.rem(w, d))
        return wrap + (h, jnp.clip(a8.astype(jnp.int32) * 3, -100, 100).astype(jnp.int8)) + big

    record("int_arith", "integer arithmetic: int8 wrap-around, uint32 shifts and a multiplicative "
           "hash, int64 shifts, division and remainder", f, (a8, b8, u, s, w, d), EXACT, x64=True)


def mixed_precision():
    r = rng(11)
    a = normal(r, 4, 8, dtype=np.float16)
    b = normal(r, 8, 3, dtype=np.float16)
    c = normal(r, 4, 8).astype(ml_dtypes.bfloat16)
    e = normal(r, 8, 3).astype(ml_dtypes.bfloat16)

    def f(a, b, c, e):
        ab = jnp.dot(a, b, preferred_element_type=jnp.float32)
        ce = jnp.dot(c, e, preferred_element_type=jnp.float32)
        mean16 = jnp.mean(a, axis=1, dtype=jnp.float32).astype(jnp.float16)
        scaled = (c * jnp.bfloat16(1.5) + jnp.bfloat16(0.25))
        return ab, ce, ab.astype(jnp.float16), ce.astype(jnp.bfloat16), mean16, scaled

    record("mixed_precision", "f16 and bf16 matrix products accumulated in f32, an f32 mean of "
           "f16 values, and conversions back", f, (a, b, c, e), MIXED)


def collectives():
    r = rng(12)
    x = normal(r, REPLICAS, 3)
    n = r.integers(-20, 20, size=(REPLICAS, 4)).astype(np.int32)
    record_pmap("psum", "jax.lax.psum of an f32 vector over 4 devices",
                lambda x: lax.psum(x, "i"), (x,), F32)
    record_pmap("pmax", "jax.lax.pmax of an s32 vector and pmin of an f32 one over 4 devices",
                lambda n, x: (lax.pmax(n, "i"), lax.pmin(x, "i")), (n, x), EXACT)
    record_pmap("all_gather", "jax.lax.all_gather of an f32 vector over 4 devices",
                lambda x: lax.all_gather(x, "i"), (x,), EXACT)
    record_pmap("ppermute", "jax.lax.ppermute: a ring shift by one device, and a partial "
                "permutation (devices it does not reach get zeros)",
                lambda x, n: (lax.ppermute(x, "i", [(i, (i + 1) % REPLICAS) for i in range(REPLICAS)]),
                              lax.ppermute(n, "i", [(0, 2), (3, 1)])), (x, n), EXACT)
    m = np.arange(REPLICAS * REPLICAS * 2, dtype=np.int32).reshape(REPLICAS, REPLICAS, 2)
    record_pmap("all_to_all", "jax.lax.all_to_all: device i's block j goes to device j",
                lambda m: lax.all_to_all(m, "i", 0, 0), (m,), EXACT)

    # One data-parallel SGD step: each device takes the gradient of its own shard of the batch,
    # pmean averages the gradients, and every device applies the same update.
    w = normal(r, 3, 2, scale=0.5)
    b = normal(r, 2, scale=0.1)
    xs = normal(r, REPLICAS, 5, 3)
    ys = normal(r, REPLICAS, 5, 2)

    def step(w, b, x, y):
        def loss(w, b):
            return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)
        l, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(w, b)
        gw, gb, l = lax.pmean((gw, gb, l), "i")
        return w - 0.1 * gw, b - 0.1 * gb, l

    replicate = lambda a: np.stack([a] * REPLICAS)  # noqa: E731
    record_pmap("dp_sgd_step", "a data-parallel SGD step: per-device gradients of a tanh "
                "regression, averaged with pmean, then applied", step,
                (replicate(w), replicate(b), xs, ys), F32_DEEP)


PROGRAMS = [mlp, cnn, lambda: attention(np.float32, "attention_f32", F32_DEEP),
            lambda: attention(ml_dtypes.bfloat16, "attention_bf16", BF16_DEEP), scan_rnn, embedding,
            sorting, random_numbers, fft, control_flow, integers, mixed_precision, collectives]


# ---------------------------------------------------------------- output


def dump(value, indent=0):
    """JSON with one line per literal's data, so the files stay readable and small."""
    pad = "  " * indent
    if isinstance(value, dict):
        if "data" in value:
            return json.dumps(value, separators=(", ", ": "))
        items = [f'{pad}  {json.dumps(k)}: {dump(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value and isinstance(value[0], (dict, list)):
        items = [pad + "  " + dump(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="write only the programs whose name contains this")
    opts = ap.parse_args()
    for make in PROGRAMS:
        make()
    os.makedirs(OUT_DIR, exist_ok=True)
    if not opts.only:
        # Start afresh: a program renamed or dropped leaves no stale file behind.
        for name in os.listdir(OUT_DIR):
            if name.endswith(".json"):
                os.remove(os.path.join(OUT_DIR, name))
    total = 0
    for program, cases in sorted(CASES.items()):
        if opts.only not in program:
            continue
        path = os.path.join(OUT_DIR, program + ".json")
        with open(path, "w") as f:
            f.write(dump({"cases": cases}) + "\n")
        total += len(cases)
        print(f"{os.path.relpath(path, ROOT)}: {', '.join(c['name'] for c in cases)}")
    print(f"{total} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
