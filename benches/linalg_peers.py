"""Peers for `xla-spec bench`: numpy (OpenBLAS) and jax (XLA:CPU) on the same named shapes.

Prints one JSON object per line: name, peer, GFLOP/s (best of a few runs after a warm-up).
Run through benches/linalg_peers.sh, which pins the versions.
"""
import json
import sys
import time

import numpy as np

try:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except Exception:  # jax is optional: numpy alone still gives the OpenBLAS numbers
    jax = None


def best(f, reps=3):
    f()
    t = float("inf")
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


def emit(name, peer, flops, t, extra=None):
    o = {"name": name, "peer": peer, "gflops": round(flops / t / 1e9, 2), "seconds": round(t, 6)}
    if extra:
        o.update(extra)
    print(json.dumps(o), flush=True)


def dot_case(name, dtype, m, b=0, k=None, n=None):
    rng = np.random.default_rng(1)
    k = m if k is None else k
    n = m if n is None else n
    shape_l = (b, m, k) if b else (m, k)
    shape_r = (b, k, n) if b else (k, n)
    a = rng.uniform(-1, 1, shape_l).astype(dtype)
    c = rng.uniform(-1, 1, shape_r).astype(dtype)
    flops = 2.0 * max(b, 1) * m * k * n
    reps = 3 if flops > 1e9 else 10
    if dtype != "bfloat16":
        emit(name, "numpy-openblas", flops, best(lambda: np.matmul(a, c), reps),
             {"numpy": np.__version__, "reps": reps})
    if jax is not None:
        if dtype == "bfloat16":
            ja = jnp.asarray(a.astype(np.float32)).astype(jnp.bfloat16)
            jc = jnp.asarray(c.astype(np.float32)).astype(jnp.bfloat16)
            f = jax.jit(lambda x, y: jnp.matmul(x, y, preferred_element_type=jnp.float32))
        else:
            ja, jc = jnp.asarray(a), jnp.asarray(c)
            f = jax.jit(lambda x, y: jnp.matmul(x, y, precision="highest"))
        emit(name, "jax-xla-cpu", flops, best(lambda: f(ja, jc).block_until_ready(), reps),
             {"jax": jax.__version__, "reps": reps})


def conv_reps(flops):
    """Runs to take the best of for a convolution: ten under 4 GFLOP (every case of the table,
    1.5 to 10 ms a call on two cores). Three calls of a few milliseconds fit inside one spell of
    a shared host's other vCPU being away, and the round then showed either side at half its
    speed (2026-12-06, Zen 4: 3 of 21 rounds a sitting, XLA:CPU's as well as xla-spec's).
    `linalg_compare.py` gives xla-spec as many runs (the "reps" field)."""
    return 3 if flops > 4e9 else 10


def conv_case(name, n, hw, ch):
    if jax is None:
        return
    rng = np.random.default_rng(3)
    x = jnp.asarray(rng.uniform(-1, 1, (n, hw, hw, ch)).astype(np.float32))
    w = jnp.asarray(rng.uniform(-1, 1, (3, 3, ch, ch)).astype(np.float32))
    f = jax.jit(lambda x, w: jax.lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        precision="highest"))
    flops = 2.0 * n * hw * hw * ch * ch * 9
    reps = conv_reps(flops)
    emit(name, "jax-xla-cpu", flops, best(lambda: f(x, w).block_until_ready(), reps),
         {"jax": jax.__version__, "reps": reps})


def conv_general_case(name, lhs, rhs, labels, pad):
    """A convolution as HLO states it (dim_labels like `f01b_i01o->01bf`), stride 1."""
    if jax is None:
        return
    l, rest = labels.split("_")
    r, o = rest.split("->")
    tr = str.maketrans({"b": "N", "f": "C", "i": "I", "o": "O", "0": "H", "1": "W"})
    rng = np.random.default_rng(3)
    x = jnp.asarray(rng.uniform(-1, 1, lhs).astype(np.float32))
    w = jnp.asarray(rng.uniform(-1, 1, rhs).astype(np.float32))
    f = jax.jit(lambda x, w: jax.lax.conv_general_dilated(
        x, w, (1, 1), [(pad, pad), (pad, pad)],
        dimension_numbers=(l.translate(tr), r.translate(tr), o.translate(tr)), precision="highest"))
    out = f(x, w)
    # Multiply-adds: every output element takes (window x input features) of them.
    kin = rhs[r.index("i")]
    window = rhs[r.index("0")] * rhs[r.index("1")]
    flops = 2.0 * out.size * kin * window
    reps = conv_reps(flops)
    emit(name, "jax-xla-cpu", flops, best(lambda: f(x, w).block_until_ready(), reps),
         {"jax": jax.__version__, "reps": reps})


CASES = []
for _dt, _t in (("float32", "f32"), ("float64", "f64")):
    for _s in (256, 512, 1024, 2048, 4096):
        CASES.append((f"dot_{_t}_{_s}", lambda n, d=_dt, s=_s: dot_case(n, d, s)))
    for _side, _m, _n in (("m1", 1, 4096), ("m8", 8, 4096), ("m64", 64, 4096),
                          ("n1", 4096, 1), ("n8", 4096, 8), ("n64", 4096, 64)):
        CASES.append((f"dot_{_t}_{_side}_4096",
                      lambda n, d=_dt, m=_m, nn=_n: dot_case(n, d, m, k=4096, n=nn)))
CASES += [
    ("dot_bf16_1024", lambda n: dot_case(n, "bfloat16", 1024)),
    ("dot_f32_batch64_128", lambda n: dot_case(n, "float32", 128, b=64)),
    ("conv_resnet56", lambda n: conv_case(n, 8, 56, 64)),
    ("conv_resnet28", lambda n: conv_case(n, 8, 28, 128)),
    # benches/programs/cnn_train.hlo's five convolutions (src/cli/bench.rs says which is which).
    ("conv_cnn_fwd1", lambda n: conv_general_case(n, (16, 32, 32, 32), (3, 3, 32, 64), "b01f_01io->b01f", 1)),
    ("conv_cnn_fwd2", lambda n: conv_general_case(n, (16, 16, 16, 64), (3, 3, 64, 64), "b01f_01io->b01f", 1)),
    ("conv_cnn_grad_input2",
     lambda n: conv_general_case(n, (16, 16, 16, 64), (3, 3, 64, 64), "b01f_01oi->b01f", 1)),
    ("conv_cnn_grad_kernel1",
     lambda n: conv_general_case(n, (16, 32, 32, 32), (16, 32, 32, 64), "f01b_i01o->01bf", 1)),
    ("conv_cnn_grad_kernel2",
     lambda n: conv_general_case(n, (16, 16, 16, 64), (16, 16, 16, 64), "f01b_i01o->01bf", 1)),
]

if __name__ == "__main__":
    filt = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, run in CASES:
        if filt in name:
            run(name)
