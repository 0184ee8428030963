#!/usr/bin/env python3
"""Whole JAX programs at realistic sizes, for timing `xla-spec run` against XLA:CPU (issue 19).

Each program is one HLO text file, `benches/programs/<name>.hlo`, in the *lowered* form: what JAX
hands to XLA before any optimisation (`jax.jit(f, keep_unused=True).lower(*args).as_text(
dialect="hlo")`), the module a user dumps (`module_N.jit_f.before_optimizations.txt`). Every array
is an ENTRY parameter (no large constant is baked into the text), so the files stay small.
`benches/programs/programs.json` (the manifest) says, per program, its parameters (name `argI`,
element type, shape and how the benchmark fills it), its results, its comparison tolerance and
its description; `benches/programs_peers.py` (XLA:CPU against `xla-spec run`, in one run) and
`xla-spec bench --programs` read it.

The programs (f32 unless said; parameters in ENTRY order):

  mlp_train         a two-layer MLP training step: x f32[512,1024] -> dense 1024x1024, relu ->
                    dense 1024x1024 -> 1024 logits, softmax cross-entropy against s32[512] labels,
                    jax.value_and_grad and an SGD update (lr 0.1) of w1, b1, w2, b2. "512x1024x1024"
                    is batch 512, input 1024, hidden 1024; the output layer is 1024 wide too, so
                    each of the five products is a 512x1024x1024 GEMM or its transposes (5.4 GFLOP).
                    Results: loss, w1', b1', w2', b2'.
  cnn_train         a CNN training step on x f32[16,32,32,32] (NHWC: 16 images, 32x32, 32 channels):
                    3x3 SAME conv 32->64 + bias, relu, 2x2 max pool, 3x3 SAME conv 64->64 + bias,
                    relu, 2x2 max pool, dense 4096->10, softmax cross-entropy against s32[16]
                    labels; value_and_grad w.r.t. every parameter (the kernels' gradients are
                    window-dilated convolutions, the pooled activations' one a transposed
                    convolution, max pool's a select-and-scatter) and SGD (lr 0.05). Results:
                    loss, k1', c1', k2', c2', wd', bd'.
  attention         a pre-LN transformer block, batch 8, sequence 256, model dim 256, 4 heads of
                    64: layer norm, q/k/v projections, causal softmax attention, output projection,
                    residual, layer norm, GELU (tanh form) MLP 256->1024->256, residual. Forward
                    only. Results: f32[8,256,256].
  attention_bf16    the same block with bf16 parameters and activations.
  scan_rnn          an Elman RNN with lax.scan: batch 16, input 64, width 256, 256 steps,
                    h' = tanh(h W + x U + b); results: the final state f32[16,256] and every state
                    f32[256,16,256].
  embedding_scatter an embedding table f32[10000,128]: a lookup of 16384 ids (gather, repeats),
                    a scatter-add of 16384 update rows (.at[ids].add), and jax.ops.segment_sum of
                    the looked-up rows and of ones into 1024 sorted segments.
  sort_topk         f32[128,1024] (distinct multiples of 2^-17 in (-0.5, 0.5), so every partial
                    sum is exact in f32 and no sort has ties): sort and argsort along rows,
                    lax.top_k 8, argmax and cumsum along rows; s32[1048576]: a descending sort.
                    (The recorded program's 1-D cumsum of the s32 vector is left out: JAX lowers
                    cumsum to a reduce-window as long as the vector, quadratic in its length on an
                    evaluator that takes the window literally. The f32 matrix has 128 rows, not
                    1024: its sorts compare through a float total-order comparator computation,
                    and 1024 rows took the reference 100 s, XLA:CPU 0.5 s.)
  fft               jnp.fft.fft of c64[8,65536] (rows), rfft and irfft(rfft) of f32[1048576],
                    ifft of c64[8,65536] along the first axis.
  random_key_arg    threefry random numbers from a key argument u32[2]: split, normal
                    f32[1024,1024], uniform f32[1048576], raw bits u32[1048576].
  random_const_key  a dropout-style mask on x f32[4194304]: normal noise and a bernoulli mask
                    from constant keys, where(keep, x + 0.1 noise, 0).
  control_flow      fori_loop (16 steps) of an axpy-like update on f32[1048576], a while_loop
                    counting Collatz steps, cond and switch on arguments applied to the vector.
  int_arith         integer arithmetic on 4194304 elements (x64): int8 wrap-around, a uint32
                    xorshift/multiplicative hash, int64 shifts, division and remainder.
  mixed_precision   f16 and bf16 products [512,1024]x[1024,512] accumulated in f32, an f32 mean
                    of the f16 matrix, and conversions back.
  dp_sgd_step       a data-parallel SGD step of a tanh regression written for one device: 4
                    shards of 256 examples, 512 -> 256 features; per-shard gradients with vmap,
                    averaged (what pmean computes across devices) and applied (lr 0.1). Results:
                    w', b', mean loss. (The recorded program is jax.pmap over 4 devices; its
                    lowered module is a global SPMD program that only XLA's partitioner turns into
                    per-device code, so the benchmark uses the single-device form.)

Sizes are chosen so that each program takes at least about 1 ms on XLA:CPU and the whole set runs
on both sides in a few minutes. Arguments are deterministic: parameter i of program P is drawn
from numpy.random.default_rng([SEED[P], i]) as the manifest's "init" says (normal with a scale,
integers in [low, high), distinct values, ...), so a rerun gives the same arrays.

    target/linalg-venv/bin/python benches/programs/make.py            # write .hlo and programs.json
    target/linalg-venv/bin/python benches/programs/make.py --check    # and run each on xla-spec

--check runs every program on `xla-spec run` ($XLA_SPEC, default target/release/xla-spec) with
its arguments and compares the results with jax.jit's own (the program's tolerance). Use the
venv of benches/linalg_peers.sh / benches/programs_peers.sh (pinned jax/jaxlib 0.10.2): another
jax version lowers to other text.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import ml_dtypes  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
MANIFEST = os.path.join(HERE, "programs.json")

# Tolerances, as in backends/xla/record_programs.py (see there for the reasoning), plus one for
# the deepest programs here: a training step's updated parameters are param - lr * grad, where the
# gradient went through a 1024-wide softmax, two GEMMs with K = 512..1024 and relu masks; XLA and
# the reference sum in other orders, so the last few bits of a gradient differ, and near zero the
# absolute error is what counts.
EXACT = None
F32 = {"atol": 1e-6, "rtol": 1e-5}
F32_DEEP = {"atol": 1e-5, "rtol": 1e-4}
F32_TRAIN = {"atol": 1e-4, "rtol": 1e-3}
BF16_DEEP = {"atol": 0.03, "rtol": 0.03}
MIXED = {"atol": 1e-6, "rtol": 1e-5, "ulp": 1}

TYPE_NAMES = {
    np.dtype(np.bool_): "pred", np.dtype(np.int8): "s8", np.dtype(np.int16): "s16",
    np.dtype(np.int32): "s32", np.dtype(np.int64): "s64", np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16", np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
    np.dtype(np.float16): "f16", np.dtype(ml_dtypes.bfloat16): "bf16", np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64", np.dtype(np.complex64): "c64", np.dtype(np.complex128): "c128",
}
DTYPES = {v: k for k, v in TYPE_NAMES.items()}


# ---------------------------------------------------------------- parameters


def normal(scale=1.0, mean=0.0):
    return {"kind": "normal", "scale": scale, "mean": mean}


def integers(low, high, nonzero=False):
    d = {"kind": "integers", "low": low, "high": high}
    if nonzero:
        d["nonzero"] = True
    return d


def distinct(scale=1.0):
    """A random permutation of 0 .. size-1, shifted to be centred on zero and scaled: distinct
    values, so sorts, top_k and argmax have no ties whose order could differ."""
    return {"kind": "distinct", "scale": scale}


def sorted_integers(low, high):
    return {"kind": "sorted_integers", "low": low, "high": high}


def fill(init, ty, shape, rng):
    dtype = DTYPES[ty]
    kind = init["kind"]
    if kind == "normal":
        if ty in ("c64", "c128"):
            re = rng.standard_normal(shape)
            im = rng.standard_normal(shape)
            return ((re + 1j * im) * init["scale"] + init["mean"]).astype(dtype)
        return (rng.standard_normal(shape) * init["scale"] + init["mean"]).astype(np.float32).astype(dtype)
    if kind in ("integers", "sorted_integers"):
        if init.get("nonzero"):
            # draw from [low, high) without zero
            lo, hi = init["low"], init["high"]
            v = rng.integers(lo, hi - 1, size=shape, dtype=np.int64)
            v = np.where(v >= 0, v + 1, v)
        else:
            v = rng.integers(init["low"], init["high"], size=shape, dtype=np.int64 if ty != "u64" else np.uint64)
        if kind == "sorted_integers":
            v = np.sort(v.reshape(-1)).reshape(shape)
        return v.astype(dtype)
    if kind == "distinct":
        n = int(np.prod(shape))
        v = (rng.permutation(n).astype(np.float64) - n / 2) * init["scale"]
        return v.astype(dtype).reshape(shape)
    raise ValueError(kind)


# ---------------------------------------------------------------- programs

PROGRAMS = {}  # name -> dict


def program(name, seed, description, params, tolerance, x64=False):
    """Registers fn(*arrays) as program `name`; params is a list of (type, shape, init)."""
    def deco(fn):
        PROGRAMS[name] = {"name": name, "seed": seed, "description": description, "fn": fn,
                          "params": params, "tolerance": tolerance, "x64": x64}
        return fn
    return deco


def arguments(name):
    """The program's arguments as numpy arrays, in ENTRY parameter order."""
    p = PROGRAMS[name]
    return [fill(init, ty, tuple(shape), np.random.default_rng([p["seed"], i]))
            for i, (ty, shape, init) in enumerate(p["params"])]


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


B, D_IN, D_H, D_OUT = 512, 1024, 1024, 1024


@program("mlp_train", 1,
         "two-layer MLP training step: batch 512, 1024 -> 1024 (relu) -> 1024 logits, softmax "
         "cross-entropy, value_and_grad, SGD update of w1, b1, w2, b2",
         [("f32", (D_IN, D_H), normal(1 / 32)), ("f32", (D_H,), normal(0.01)),
          ("f32", (D_H, D_OUT), normal(1 / 32)), ("f32", (D_OUT,), normal(0.01)),
          ("f32", (B, D_IN), normal()), ("s32", (B,), integers(0, D_OUT))],
         F32_TRAIN)
def mlp_train(w1, b1, w2, b2, x, y):
    def loss(params):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        return cross_entropy(h @ w2 + b2, y)

    params = (w1, b1, w2, b2)
    l, g = jax.value_and_grad(loss)(params)
    return (l,) + tuple(p - 0.1 * gp for p, gp in zip(params, g))


DN = ("NHWC", "HWIO", "NHWC")


@program("cnn_train", 2,
         "CNN training step: 16x32x32x32 NHWC, 3x3 conv 32->64, relu, max pool, 3x3 conv 64->64, "
         "relu, max pool, dense 4096->10, softmax cross-entropy, value_and_grad, SGD",
         [("f32", (3, 3, 32, 64), normal(1 / 17)), ("f32", (64,), normal(0.01)),
          ("f32", (3, 3, 64, 64), normal(1 / 24)), ("f32", (64,), normal(0.01)),
          ("f32", (8 * 8 * 64, 10), normal(1 / 64)), ("f32", (10,), normal(0.01)),
          ("f32", (16, 32, 32, 32), normal()), ("s32", (16,), integers(0, 10))],
         F32_TRAIN)
def cnn_train(k1, c1, k2, c2, wd, bd, x, y):
    def pool(h):
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss(params):
        k1, c1, k2, c2, wd, bd = params
        h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=DN) + c1
        h = pool(jax.nn.relu(h))
        h = lax.conv_general_dilated(h, k2, (1, 1), "SAME", dimension_numbers=DN) + c2
        h = pool(jax.nn.relu(h))
        return cross_entropy(h.reshape(h.shape[0], -1) @ wd + bd, y)

    params = (k1, c1, k2, c2, wd, bd)
    l, g = jax.value_and_grad(loss)(params)
    return (l,) + tuple(p - 0.05 * gp for p, gp in zip(params, g))


def attention_block(dtype, batch=8, seq=256, dim=256, heads=4, mlp=4):
    hd = dim // heads

    def layer_norm(h, g, b):
        mu = jnp.mean(h, axis=-1, keepdims=True)
        var = jnp.mean((h - mu) ** 2, axis=-1, keepdims=True)
        return (h - mu) * lax.rsqrt(var + 1e-5) * g + b

    def block(ln_g, ln_b, wq, wk, wv, wo, w_up, w_down, x):
        h = layer_norm(x, ln_g, ln_b)
        q, k, v = (jnp.dot(h, w).reshape(batch, seq, heads, hd) for w in (wq, wk, wv))
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(hd).astype(dtype)
        causal = jnp.tril(jnp.ones((seq, seq), bool))
        s = jnp.where(causal[None, None], s, jnp.finfo(dtype).min)
        a = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(batch, seq, dim)
        x = x + o @ wo
        h = layer_norm(x, ln_g, ln_b)
        return x + jax.nn.gelu(h @ w_up) @ w_down

    ty = TYPE_NAMES[np.dtype(dtype)]
    s = 1 / 16  # 1/sqrt(dim)
    params = [(ty, (dim,), normal(0.1, 1.0)), (ty, (dim,), normal(0.1)),
              (ty, (dim, dim), normal(s)), (ty, (dim, dim), normal(s)), (ty, (dim, dim), normal(s)),
              (ty, (dim, dim), normal(s)), (ty, (dim, mlp * dim), normal(s)),
              (ty, (mlp * dim, dim), normal(1 / 32)), (ty, (batch, seq, dim), normal())]
    return block, params


_blk, _params = attention_block(np.float32)
program("attention", 3, "transformer block: batch 8, seq 256, dim 256, 4 heads of 64, layer norm, "
        "causal softmax attention, GELU MLP 256->1024->256, f32 forward", _params, F32_DEEP)(_blk)
_blk, _params = attention_block(ml_dtypes.bfloat16)
program("attention_bf16", 3, "the attention block in bf16 (parameters and activations)", _params,
        BF16_DEEP)(_blk)


@program("scan_rnn", 4, "Elman RNN with lax.scan: batch 16, input 64, width 256, 256 steps",
         [("f32", (256, 256), normal(1 / 16)), ("f32", (64, 256), normal(1 / 8)),
          ("f32", (256,), normal(0.1)), ("f32", (16, 256), normal(0.5)),
          ("f32", (256, 16, 64), normal())],
         F32_DEEP)
def scan_rnn(w, u, b, h0, xs):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u + b)
        return h, h
    return lax.scan(step, h0, xs)


@program("embedding_scatter", 5,
         "embedding table 10000x128: gather of 16384 ids, scatter-add of 16384 rows, segment_sum "
         "into 1024 segments",
         [("f32", (10000, 128), normal()), ("s32", (16384,), integers(0, 10000)),
          ("f32", (16384, 128), normal()), ("s32", (16384,), sorted_integers(0, 1024))],
         F32_DEEP)
def embedding_scatter(table, ids, updates, seg):
    emb = table[ids]
    table2 = table.at[ids].add(updates)
    sums = jax.ops.segment_sum(emb * 2.0, seg, num_segments=1024)
    counts = jax.ops.segment_sum(jnp.ones_like(ids), seg, num_segments=1024)
    return emb, table2, sums, counts


@program("sort_topk", 6,
         "sort, argsort, top_k 8, argmax, cumsum along the rows of f32[128,1024]; descending sort "
         "of s32[1048576]",
         [("f32", (128, 1024), distinct(2.0 ** -17)), ("s32", (1 << 20,), integers(-50000, 50000))],
         F32)
def sort_topk(x, n):
    vals, idx = lax.top_k(x, 8)
    return (jnp.sort(x, axis=-1), jnp.argsort(x, axis=-1), vals, idx, jnp.argmax(x, axis=1),
            jnp.cumsum(x, axis=1), jnp.sort(n)[::-1])


@program("fft", 8, "fft of c64[8,65536] rows, rfft and irfft(rfft) of f32[1048576], ifft of "
         "c64[8,65536] along the first axis",
         [("f32", (1 << 20,), normal()), ("c64", (8, 1 << 16), normal())],
         {"atol": 1e-3, "rtol": 1e-4})
def fft(x, z):
    return jnp.fft.fft(z), jnp.fft.rfft(x), jnp.fft.ifft(z, axis=0), jnp.fft.irfft(jnp.fft.rfft(x))


@program("random_key_arg", 7, "threefry from a key argument: split, normal f32[1024,1024], "
         "uniform f32[1048576], bits u32[1048576]",
         [("u32", (2,), integers(0, 1 << 32))], F32)
def random_key_arg(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return (jax.random.normal(k1, (1024, 1024)),
            jax.random.uniform(k2, (1 << 20,), minval=-1.0, maxval=2.0),
            jax.random.bits(k3, (1 << 20,), dtype=jnp.uint32))


@program("random_const_key", 7, "dropout-style noise and bernoulli mask from constant keys on "
         "f32[4194304]", [("f32", (1 << 22,), normal())], F32)
def random_const_key(x):
    noise = jax.random.normal(jax.random.PRNGKey(42), x.shape)
    keep = jax.random.bernoulli(jax.random.PRNGKey(7), 0.5, x.shape)
    return jnp.where(keep, x + 0.1 * noise, 0.0)


@program("control_flow", 9, "fori_loop of 16 steps on f32[1048576], a Collatz while_loop, cond "
         "and switch on arguments",
         [("f32", (1 << 20,), normal()), ("s32", (), integers(27, 28)),
          ("pred", (), integers(1, 2)), ("s32", (), integers(3, 4))],
         F32_DEEP)
def control_flow(x, n, flag, branch):
    acc = lax.fori_loop(0, 16, lambda i, a: a * 0.5 + x * i.astype(jnp.float32), jnp.zeros_like(x))

    def collatz(s):
        v, steps = s
        return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), steps + 1

    _, steps = lax.while_loop(lambda s: s[0] != 1, collatz, (n, jnp.int32(0)))
    c = lax.cond(flag, lambda v: jnp.sin(v), lambda v: jnp.cos(v), acc)
    s = lax.switch(branch, [lambda v: v + 1.0, lambda v: v * v, lambda v: -v, lambda v: jnp.exp(v)], c)
    return acc, steps, c, s


N_INT = 1 << 22


@program("int_arith", 10, "integer arithmetic on 4194304 elements: int8 wrap-around, uint32 "
         "hash, int64 shifts, division and remainder",
         [("s8", (N_INT,), integers(-128, 128)), ("s8", (N_INT,), integers(-128, 128)),
          ("u32", (N_INT,), integers(0, 1 << 32)), ("u32", (N_INT,), integers(0, 32)),
          ("s64", (N_INT,), integers(-(1 << 62), 1 << 62)), ("s64", (N_INT,), integers(-1000, 1000, nonzero=True))],
         EXACT, x64=True)
def int_arith(a8, b8, u, s, w, d):
    wrap = (a8 + b8, a8 * b8, a8 - b8)
    h = u ^ (u << s)
    h = h ^ lax.shift_right_logical(h, jnp.uint32(17))
    h = h * jnp.uint32(0x9E3779B1)
    big = (w << 3, w >> 40, lax.shift_right_logical(w, jnp.int64(60)), lax.div(w, d), w // d,
           w % d, lax.rem(w, d))
    return wrap + (h, jnp.clip(a8.astype(jnp.int32) * 3, -100, 100).astype(jnp.int8)) + big


@program("mixed_precision", 11, "f16 and bf16 products [512,1024]x[1024,512] accumulated in f32, "
         "f32 mean of f16, conversions back",
         [("f16", (512, 1024), normal()), ("f16", (1024, 512), normal()),
          ("bf16", (512, 1024), normal()), ("bf16", (1024, 512), normal())],
         {"atol": 1e-3, "rtol": 1e-4, "ulp": 1})
def mixed_precision(a, b, c, e):
    ab = jnp.dot(a, b, preferred_element_type=jnp.float32)
    ce = jnp.dot(c, e, preferred_element_type=jnp.float32)
    mean16 = jnp.mean(a, axis=1, dtype=jnp.float32).astype(jnp.float16)
    scaled = (c * jnp.bfloat16(1.5) + jnp.bfloat16(0.25))
    return ab, ce, ab.astype(jnp.float16), ce.astype(jnp.bfloat16), mean16, scaled


@program("dp_sgd_step", 12, "data-parallel SGD step on one device: 4 shards x 256 examples, tanh "
         "regression 512 -> 256, per-shard gradients (vmap), averaged, applied",
         [("f32", (512, 256), normal(1 / 32)), ("f32", (256,), normal(0.1)),
          ("f32", (4, 256, 512), normal()), ("f32", (4, 256, 256), normal(0.5))],
         F32_DEEP)
def dp_sgd_step(w, b, xs, ys):
    def loss(w, b, x, y):
        return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)

    ls, (gw, gb) = jax.vmap(jax.value_and_grad(loss, argnums=(0, 1)), in_axes=(None, None, 0, 0))(w, b, xs, ys)
    gw, gb, l = jnp.mean(gw, axis=0), jnp.mean(gb, axis=0), jnp.mean(ls)
    return w - 0.1 * gw, b - 0.1 * gb, l


ORDER = ["mlp_train", "cnn_train", "attention", "attention_bf16", "scan_rnn", "embedding_scatter",
         "sort_topk", "fft", "random_key_arg", "random_const_key", "control_flow", "int_arith",
         "mixed_precision", "dp_sgd_step"]
assert sorted(ORDER) == sorted(PROGRAMS), sorted(set(ORDER) ^ set(PROGRAMS))


# ---------------------------------------------------------------- lowering and checking


def jitted(name):
    return jax.jit(PROGRAMS[name]["fn"], keep_unused=True)


def lower(name):
    p = PROGRAMS[name]
    args = arguments(name)
    with jax.enable_x64(p["x64"]):
        return jitted(name).lower(*args).as_text(dialect="hlo")


def jax_outputs(name, args=None):
    """jax.jit's own results, as a flat list of numpy arrays (the module's result order)."""
    p = PROGRAMS[name]
    args = arguments(name) if args is None else args
    with jax.enable_x64(p["x64"]):
        outs = jitted(name)(*args)
    return [np.asarray(o) for o in jax.tree_util.tree_leaves(outs)]


def shape_str(ty, shape):
    return f"{ty}[{','.join(map(str, shape))}]"


def manifest_entry(name, outs):
    p = PROGRAMS[name]
    return {
        "name": name,
        "file": f"benches/programs/{name}.hlo",
        "description": p["description"],
        "seed": p["seed"],
        "x64": p["x64"],
        "params": [{"name": f"arg{i}", "shape": shape_str(ty, shape), "init": init}
                   for i, (ty, shape, init) in enumerate(p["params"])],
        "results": [shape_str(TYPE_NAMES[o.dtype], o.shape) for o in outs],
        "tolerance": p["tolerance"],
    }


def manifest_text(programs):
    """The manifest as JSON with one line per parameter, so that it reads (and diffs) well."""
    head = {
        "generator": "benches/programs/make.py",
        "jax": jax.__version__,
        "arguments": "parameter i of a program is drawn from numpy.random.default_rng([seed, i]) as its init "
                     "says (make.fill); benches/programs_peers.py writes them to "
                     "target/bench-programs/<name>.in.npz as arg0, arg1, ...",
        "tolerance": "null: exact; else |got - want| <= atol + rtol |want| element-wise (ulp: or within that "
                     "many units in the last place of an f16/bf16 result)",
    }
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()] + [' "programs": [']
    for n, p in enumerate(programs):
        lines.append("  {")
        items = []
        for k, v in p.items():
            if k == "params":
                inner = ",\n".join(f"    {json.dumps(x)}" for x in v)
                items.append(f'   "params": [\n{inner}\n   ]')
            else:
                items.append(f"   {json.dumps(k)}: {json.dumps(v)}")
        lines.append(",\n".join(items))
        lines.append("  }" + ("," if n + 1 < len(programs) else ""))
    lines += [" ]", "}"]
    text = "\n".join(lines) + "\n"
    json.loads(text)
    return text


def save_args(path, args):
    """An .npz with arg0, arg1, ... (what `xla-spec run --args` reads first)."""
    np.savez(path, **{f"arg{i}": a for i, a in enumerate(args)})


def load_out(path):
    """The arrays of an `xla-spec run --out` archive in result order (out0, out1, out1_0 ...)."""
    with np.load(path) as z:
        keys = sorted(z.files, key=lambda k: [int(p) for p in k[3:].split("_")])
        return [z[k] for k in keys]


def compare(name, got, want, tolerance):
    """None when got agrees with want element by element, else a line saying where it does not.
    tolerance None: exact (NaNs equal NaNs); else |got - want| <= atol + rtol |want|, or within
    `ulp` units in the last place of a half type."""
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        g = np.asarray(g)
        if g.dtype.kind == "V" and w.dtype == np.dtype(ml_dtypes.bfloat16):
            g = g.view(ml_dtypes.bfloat16)
        if g.shape != w.shape:
            return f"result {i}: shape {g.shape}, expected {w.shape}"
        if g.dtype != w.dtype:
            return f"result {i}: dtype {g.dtype}, expected {w.dtype}"
        if tolerance is None or w.dtype.kind in "biu":
            # exact: integers, predicates, and every element of an EXACT program (NaN equals NaN)
            eq = g == w
            if w.dtype.kind in "fc":
                eq |= np.isnan(g) & np.isnan(w)
            if not eq.all():
                j = int(np.flatnonzero(~eq.reshape(-1))[0])
                return (f"result {i}: {int((~eq).sum())} of {w.size} differ, first at {j}: "
                        f"{g.reshape(-1)[j]} vs {w.reshape(-1)[j]}")
            continue
        wide = np.complex128 if w.dtype.kind == "c" else np.float64
        gf, wf = g.astype(wide), w.astype(wide)
        err = np.abs(gf - wf)
        ok = err <= tolerance["atol"] + tolerance["rtol"] * np.abs(wf)
        ok |= (np.isnan(gf) & np.isnan(wf)) | (gf == wf)
        if tolerance.get("ulp") and w.dtype in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
            bits = np.dtype(f"i{w.dtype.itemsize}")
            ok |= np.abs(g.view(bits).astype(np.int64) - w.view(bits).astype(np.int64)) <= tolerance["ulp"]
        if not ok.all():
            j = int(np.flatnonzero(~ok.reshape(-1))[0])
            return (f"result {i}: {int((~ok).sum())} of {w.size} outside {tolerance}, first at {j}: "
                    f"{g.reshape(-1)[j]} vs {w.reshape(-1)[j]} (max abs err {float(err.max()):.3g})")
    return None


def xla_spec_binary():
    return os.environ.get("XLA_SPEC", os.path.join(ROOT, "target", "release", "xla-spec"))


def check(name, binary):
    """Runs the written .hlo on xla-spec and compares with jax.jit's results."""
    p = PROGRAMS[name]
    args = arguments(name)
    want = jax_outputs(name, args)
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        save_args(inp, args)
        t = time.perf_counter()
        r = subprocess.run([binary, "run", os.path.join(HERE, name + ".hlo"), "--args", inp, "--out", out],
                           capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            return f"xla-spec run failed (exit {r.returncode}): {r.stderr.strip()}", dt
        return compare(name, load_out(out), want, p["tolerance"]), dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("filter", nargs="?", default="", help="only programs whose name contains this")
    ap.add_argument("--check", action="store_true", help="run each program on xla-spec and compare with jax")
    opts = ap.parse_args()
    manifest = {}
    if os.path.exists(MANIFEST):
        manifest = {p["name"]: p for p in json.load(open(MANIFEST))["programs"]}
    failed = 0
    for name in ORDER:
        if opts.filter not in name:
            continue
        text = lower(name)
        assert "{...}" not in text, f"{name}: an elided constant in the lowered text"
        with open(os.path.join(HERE, name + ".hlo"), "w") as f:
            f.write(text)
        outs = jax_outputs(name)
        manifest[name] = manifest_entry(name, outs)
        line = f"{name}.hlo: {len(text)} bytes, {len(PROGRAMS[name]['params'])} parameters, {len(outs)} results"
        if opts.check:
            err, dt = check(name, xla_spec_binary())
            line += f"; xla-spec {dt * 1e3:.0f} ms: " + ("agrees with jax" if err is None else "DISAGREES: " + err)
            failed += err is not None
        print(line, flush=True)
    with open(MANIFEST, "w") as f:
        f.write(manifest_text([manifest[n] for n in ORDER if n in manifest]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
