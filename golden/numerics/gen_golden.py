"""Generates golden/numerics/{batch_norm,cholesky,triangular_solve,fft,rng_bit_generator}.json.

Run: target/xla-venv/bin/python golden/numerics/gen_golden.py  (venv from backends/xla/setup.sh)

Expected values come from methods independent of xla-spec:
- batch norm: the seed's formulas written out in numpy float64, rounded once to the case's type;
- cholesky: numpy.linalg.cholesky in float64 / complex128;
- triangular-solve: numpy.linalg.solve on the dense op(triangle(a)), float64 / complex128;
- fft: numpy.fft (pocketfft) in float64 / complex128;
- rng-bit-generator: XLA itself (XLA:CPU through jaxlib, backends/xla/xla_backend.py), bit-exact.
`rng` has no value cases: its outputs depend on the generator an implementation chooses (XLA's
own are backend-specific), so only its refusals are golden (invalid_constraints.json); its
distributions are covered by the statistical property tests in spec-tests/props/numerics.rs.

Inputs are drawn from a fixed seed, so the output is reproducible.
"""
import json
import os
import sys

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
rng = np.random.default_rng(20261122)

NP = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "f64": np.float64,
      "c64": np.complex64, "c128": np.complex128}
REAL_OF = {"c64": "f32", "c128": "f64"}
COMPLEX_OF = {"f32": "c64", "f64": "c128"}


def shape_txt(ty, dims):
    return f"{ty}[{','.join(str(d) for d in dims)}]"


def fnum(x):
    x = float(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def lit(ty, a):
    """A literal of type ty from a float64/complex128 array, rounded once to ty."""
    a = np.asarray(a)
    if ty in ("c64", "c128"):
        r = a.astype(NP[ty]).reshape(-1)
        data = [[fnum(z.real), fnum(z.imag)] for z in r]
    else:
        r = a.astype(NP[ty]).astype(np.float64).reshape(-1)
        data = [fnum(x) for x in r]
    return {"shape": shape_txt(ty, a.shape), "data": data}


def rounded(ty, a):
    """a rounded to ty and back to float64/complex128: the value the case's argument holds."""
    a = np.asarray(a).astype(NP[ty])
    return a.astype(np.complex128 if ty in ("c64", "c128") else np.float64)


def uniform(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape)


def cuniform(shape):
    return uniform(shape) + 1j * uniform(shape)


# Tolerances. The reference computes in f64 and rounds once, so it is within half an ulp of these
# values; the tolerances leave room for implementations that compute in the element type itself.
def tol(ty, scale=1.0):
    base = {"bf16": (2e-2, 2e-2), "f16": (2e-3, 2e-3), "f32": (1e-5, 1e-5),
            "c64": (1e-5, 1e-5), "f64": (1e-12, 1e-12), "c128": (1e-12, 1e-12)}[ty]
    return {"atol": base[0] * scale, "rtol": base[1]}


def module(params, root, extra=""):
    body = "".join(f"  p{i} = {s} parameter({i})\n" for i, s in enumerate(params))
    return f"HloModule m\n\n{extra}ENTRY main {{\n{body}{root}}}\n"


# ------------------------------------------------------------------------------------ batch norm

def bn_axes(rank, f):
    return tuple(d for d in range(rank) if d != f)


def bshape(x, f, v):
    s = [1] * x.ndim
    s[f] = x.shape[f]
    return v.reshape(s)


def batch_norm():
    cases = []
    # epsilon is an f32 attribute in XLA (the HLO text's 0.001 is read as the nearest f32).
    eps_text = "0.001"
    eps = float(np.float32(eps_text))
    layouts = [((4, 3), 1), ((2, 3, 4), 0), ((2, 2, 3, 2), 3), ((5,), 0)]
    for ty in ["f32", "f64", "bf16", "f16"]:
        for dims, f in layouts:
            n = dims[f]
            x = rounded(ty, uniform(dims, -2, 2))
            scale = rounded(ty, uniform((n,), 0.5, 2))
            offset = rounded(ty, uniform((n,), -1, 1))
            axes = bn_axes(len(dims), f)
            name = f"{ty}_{'x'.join(map(str, dims))}_f{f}"
            p = [shape_txt(ty, dims), shape_txt(ty, (n,)), shape_txt(ty, (n,))]
            t = tol(ty, 4)
            why = ("from the seed's formulas in numpy float64, rounded once; tolerance: a few "
                   "units of the type's precision for implementations that accumulate in the "
                   "element type (values are O(1))")
            # training
            mean = x.mean(axis=axes) if axes else x.copy()
            var = ((x - bshape(x, f, mean)) ** 2).mean(axis=axes) if axes else np.zeros_like(x)
            y = (x - bshape(x, f, mean)) / np.sqrt(bshape(x, f, var) + eps) * bshape(x, f, scale) \
                + bshape(x, f, offset)
            tup = f"({p[0]}, {p[1]}, {p[1]})"
            cases.append({
                "name": f"training_{name}",
                "description": f"batch-norm-training, feature_index={f}, epsilon={eps_text} (as f32): {why}",
                "hlo": module(p, f"  ROOT r = {tup} batch-norm-training(p0, p1, p2), "
                                 f"epsilon={eps_text}, feature_index={f}\n"),
                "args": [lit(ty, x), lit(ty, scale), lit(ty, offset)],
                "expected": {"tuple": [lit(ty, y), lit(ty, mean), lit(ty, var)]},
                "tolerance": t,
            })
            # inference with given statistics (not the batch's)
            m = rounded(ty, uniform((n,), -0.5, 0.5))
            v = rounded(ty, uniform((n,), 0.25, 2))
            y = (x - bshape(x, f, m)) / np.sqrt(bshape(x, f, v) + eps) * bshape(x, f, scale) \
                + bshape(x, f, offset)
            cases.append({
                "name": f"inference_{name}",
                "description": f"batch-norm-inference, feature_index={f}, epsilon={eps_text} (as f32): {why}",
                "hlo": module(p + [p[1], p[1]],
                              f"  ROOT r = {p[0]} batch-norm-inference(p0, p1, p2, p3, p4), "
                              f"epsilon={eps_text}, feature_index={f}\n"),
                "args": [lit(ty, x), lit(ty, scale), lit(ty, offset), lit(ty, m), lit(ty, v)],
                "expected": lit(ty, y),
                "tolerance": t,
            })
            # grad, with the seed's formulas (N = elements per feature)
            g = rounded(ty, uniform(dims, -1, 1))
            cnt = x.size // n
            bm, bv, bs = (bshape(x, f, a) for a in (m, v, scale))
            inv = 1.0 / np.sqrt(bv + eps)
            xc = x - bm
            sum_g = g.sum(axis=axes) if axes else g.copy()
            sum_gx = (g * xc).sum(axis=axes) if axes else g * xc
            grad_scale = sum_gx * (1.0 / np.sqrt(v + eps))
            grad_offset = sum_g
            gx = bs * inv / cnt * (cnt * g - bshape(x, f, sum_g) - xc * bshape(x, f, sum_gx) * inv**2)
            cases.append({
                "name": f"grad_{name}",
                "description": f"batch-norm-grad, feature_index={f}, epsilon={eps_text} (as f32): {why}",
                "hlo": module([p[0], p[1], p[1], p[1], p[0]],
                              f"  ROOT r = {tup} batch-norm-grad(p0, p1, p2, p3, p4), "
                              f"epsilon={eps_text}, feature_index={f}\n"),
                "args": [lit(ty, x), lit(ty, scale), lit(ty, m), lit(ty, v), lit(ty, g)],
                "expected": {"tuple": [lit(ty, gx), lit(ty, grad_scale), lit(ty, grad_offset)]},
                "tolerance": tol(ty, 4 * max(1, cnt) ** 0.5),
            })
    return cases


# -------------------------------------------------------------------------------------- cholesky

def mask_hlo(ty, dims, lower):
    """Instructions that zero the triangle cholesky leaves implementation-defined."""
    r = len(dims)
    s = shape_txt(ty, dims)
    si = shape_txt("s32", dims)
    sp = shape_txt("pred", dims)
    zero = "(0, 0)" if ty in ("c64", "c128") else "0"
    return (f"  i = {si} iota(), iota_dimension={r - 2}\n"
            f"  j = {si} iota(), iota_dimension={r - 1}\n"
            f"  m = {sp} compare(i, j), direction={'GE' if lower else 'LE'}\n"
            f"  z = {ty}[] constant({zero})\n"
            f"  zb = {s} broadcast(z), dimensions={{}}\n"
            f"  ROOT r = {s} select(m, c, zb)\n")


def spd(batch, n, complex_):
    m = (cuniform if complex_ else uniform)(batch + (n, n))
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)
    return a


def cholesky():
    cases = []
    for ty in ["f32", "f64", "c64", "c128"]:
        cx = ty in ("c64", "c128")
        for batch, n in [((), 1), ((), 4), ((3,), 5), ((2, 2), 3), ((), 17)]:
            a = rounded(ty, spd(batch, n, cx))
            for lower in (True, False):
                # Garbage in the triangle that is not read: the result must not depend on it.
                tri = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
                junk = rounded(ty, (cuniform if cx else uniform)(a.shape) * 100)
                arg = np.where(tri, a, junk)
                lo = np.linalg.cholesky(a)
                res = lo if lower else np.conj(np.swapaxes(lo, -1, -2))
                dims = a.shape
                cases.append({
                    "name": f"{ty}_{'lower' if lower else 'upper'}_{'x'.join(map(str, dims))}",
                    "description": (
                        f"cholesky, lower={str(lower).lower()}, of a Hermitian positive-definite "
                        "matrix (M·Mᴴ + n·I) whose other triangle holds garbage; numpy.linalg."
                        "cholesky in float64. The implementation-defined triangle of the result is "
                        "masked to zero in the module. Tolerance: a backward-stable Cholesky has "
                        "relative error about n·ε·cond(A)^½; cond(A) is small here."),
                    "hlo": module([shape_txt(ty, dims)],
                                  f"  c = {shape_txt(ty, dims)} cholesky(p0), "
                                  f"lower={str(lower).lower()}\n" + mask_hlo(ty, dims, lower)),
                    "args": [lit(ty, arg)],
                    "expected": lit(ty, res),
                    "tolerance": tol(ty, 4 * n),
                    "rules": [],
                })
    # Not positive definite: XLA gives NaN (a negative pivot).
    cases.append({
        "name": "f32_not_positive_definite",
        "description": "an indefinite matrix: no Cholesky factor exists; XLA:CPU returns NaN in "
                       "every element (see the page), checked on the lower triangle",
        "hlo": module(["f32[2,2]"], "  c = f32[2,2] cholesky(p0), lower=true\n"
                      + mask_hlo("f32", (2, 2), True)),
        "args": [lit("f32", np.array([[1.0, 0.0], [0.0, -1.0]]))],
        "expected": {"shape": "f32[2,2]", "data": ["nan", 0.0, "nan", "nan"]},
    })
    return cases


# ------------------------------------------------------------------------------ triangular solve

def trsm_expected(a, b, left, lower, unit, tr):
    n = a.shape[-1]
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        idx = np.arange(n)
        t = t.copy()
        t[..., idx, idx] = 1
    if tr == "TRANSPOSE":
        t = np.swapaxes(t, -1, -2)
    elif tr == "ADJOINT":
        t = np.conj(np.swapaxes(t, -1, -2))
    if left:
        return np.linalg.solve(t, b)
    # X·T = B  ⇔  Tᵀ·Xᵀ = Bᵀ
    return np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


def triangular_solve():
    cases = []
    for ty in ["f32", "f64", "c64", "c128"]:
        cx = ty in ("c64", "c128")
        gen = cuniform if cx else uniform
        for left in (True, False):
            for lower in (True, False):
                for unit in (False, True):
                    for tr in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
                        if tr == "ADJOINT" and not cx and unit:
                            continue  # same as TRANSPOSE on real types; keep the count down
                        batch = (2,) if (left and lower) else ()
                        n, k = 4, 3
                        # Well conditioned: a diagonal that dominates its row.
                        a = gen(batch + (n, n)) + np.eye(n) * (n + 1)
                        a = rounded(ty, a)
                        bdims = batch + ((n, k) if left else (k, n))
                        b = rounded(ty, gen(bdims))
                        x = trsm_expected(a, b, left, lower, unit, tr)
                        flags = (f"left_side={str(left).lower()}, lower={str(lower).lower()}, "
                                 f"unit_diagonal={str(unit).lower()}, transpose_a={tr}")
                        name = (f"{ty}_{'left' if left else 'right'}_{'lower' if lower else 'upper'}"
                                f"_{'unit' if unit else 'diag'}_{tr.lower()}")
                        cases.append({
                            "name": name,
                            "description": (
                                f"triangular-solve {flags}; the other triangle (and with "
                                "unit_diagonal the diagonal) of a holds values that must not be "
                                "read. numpy.linalg.solve on the dense op(triangle) in float64. "
                                "Tolerance: substitution is backward stable, error ≈ n·ε·cond; "
                                "cond < 3 here."),
                            "hlo": module([shape_txt(ty, a.shape), shape_txt(ty, bdims)],
                                          f"  ROOT r = {shape_txt(ty, bdims)} "
                                          f"triangular-solve(p0, p1), {flags}\n"),
                            "args": [lit(ty, a), lit(ty, b)],
                            "expected": lit(ty, x),
                            "tolerance": tol(ty, 4 * n),
                        })
    return cases


# ------------------------------------------------------------------------------------------- fft

def fft():
    cases = []
    shapes = [((8,), 1), ((6,), 1), ((7,), 1), ((3, 12), 1), ((5, 3), 2), ((2, 4, 6), 2),
              ((3, 4, 5), 3), ((2, 3, 2, 5), 3), ((1,), 1)]
    why = ("numpy.fft in float64/complex128. Tolerance: FFT error grows like ε·log n relative to "
           "the signal's norm; inputs are O(1), so atol scales with √n")
    for cty in ["c64", "c128"]:
        rty = REAL_OF[cty]
        for dims, k in shapes:
            axes = tuple(range(len(dims) - k, len(dims)))
            lens = dims[len(dims) - k:]
            fl = "{" + ",".join(map(str, lens)) + "}"
            n = int(np.prod(lens))
            t = tol(cty, 4 * n ** 0.5)
            tag = f"{cty}_{'x'.join(map(str, dims))}_{k}d"
            x = rounded(cty, cuniform(dims))
            s = shape_txt(cty, dims)
            for ft, f in (("FFT", np.fft.fftn), ("IFFT", np.fft.ifftn)):
                cases.append({
                    "name": f"{ft.lower()}_{tag}",
                    "description": f"{ft} over the {k} innermost axes: {why}",
                    "hlo": module([s], f"  ROOT r = {s} fft(p0), fft_type={ft}, fft_length={fl}\n"),
                    "args": [lit(cty, x)],
                    "expected": lit(cty, f(x, axes=axes)),
                    "tolerance": t,
                })
            xr = rounded(rty, uniform(dims))
            out = np.fft.rfftn(xr, axes=axes)
            cases.append({
                "name": f"rfft_{tag}",
                "description": f"RFFT over the {k} innermost axes ({lens[-1] // 2 + 1} outputs "
                               f"on the innermost): {why}",
                "hlo": module([shape_txt(rty, dims)],
                              f"  ROOT r = {shape_txt(cty, out.shape)} fft(p0), fft_type=RFFT, "
                              f"fft_length={fl}\n"),
                "args": [lit(rty, xr)],
                "expected": lit(cty, out),
                "tolerance": t,
            })
            # IRFFT of a spectrum that really is the RFFT of a real signal (the imaginary parts of
            # the self-conjugate bins are then zero, and every implementation agrees).
            spec = rounded(cty, np.fft.rfftn(uniform(dims), axes=axes))
            back = np.fft.irfftn(spec, s=lens, axes=axes)
            cases.append({
                "name": f"irfft_{tag}",
                "description": f"IRFFT over the {k} innermost axes to length {lens[-1]}: {why}",
                "hlo": module([shape_txt(cty, spec.shape)],
                              f"  ROOT r = {shape_txt(rty, dims)} fft(p0), fft_type=IRFFT, "
                              f"fft_length={fl}\n"),
                "args": [lit(cty, spec)],
                "expected": lit(rty, back),
                "tolerance": tol(rty, 4 * n ** 0.5),
            })
    return cases


# ----------------------------------------------------------------------------- rng-bit-generator

def rng_bit_generator():
    sys.path.insert(0, os.path.join(ROOT, "backends", "xla"))
    import xla_backend  # noqa: E402  (sets XLA_FLAGS before importing jax)

    cases = []
    states = {
        "three_fry": [[0, 0], [1, 2], [0x0123456789ABCDEF, 0xFEDCBA9876543210]],
        "philox": [[0, 0], [1, 2], [0x0123456789ABCDEF, 0xFEDCBA9876543210],
                   [1, 2, 3], [0xFFFFFFFFFFFFFFFF, 7, 0xDEADBEEFCAFEF00D]],
    }
    outs = [("u32", (2, 3)), ("u64", (5,)), ("u8", (3, 5)), ("u16", (7,)), ("s32", (4, 3)),
            ("s64", (3,)), ("s8", (9,)), ("s16", (2, 2, 3)), ("f32", (6,)), ("f64", (2, 3)),
            ("u32", (1,)), ("u32", (0,)), ("u8", (2, 3, 4)), ("f16", (5,)), ("bf16", (3,))]
    for alg, sts in states.items():
        for si, st in enumerate(sts):
            for oi, (ty, dims) in enumerate(outs):
                # Every state with a handful of output types, every type with some state.
                if (si + oi) % 2 and not (ty in ("u32",) and len(dims) == 2):
                    continue
                sshape = f"u64[{len(st)}]"
                res = f"({sshape}, {shape_txt(ty, dims)})"
                hlo = module([sshape], f"  ROOT r = {res} rng-bit-generator(p0), "
                                       f"algorithm=rng_{alg}\n")
                arg = {"shape": sshape, "data": st}
                try:
                    expected = xla_backend.execute({"hlo": hlo, "args": [arg]})
                except Exception as e:  # XLA refuses this combination: no case
                    print(f"skip {alg} {sshape} {ty}{list(dims)}: {e}", file=sys.stderr)
                    continue
                cases.append({
                    "name": f"{alg}_state{len(st)}_{si}_{ty}_{'x'.join(map(str, dims)) or 'empty'}",
                    "description": f"rng-bit-generator {alg.upper()}, state {st}: new state and "
                                   "bits exactly as XLA:CPU (jaxlib) computes them",
                    "hlo": hlo,
                    "args": [arg],
                    "expected": expected,
                })
    return cases


def write(name, cases):
    for c in cases:
        c.setdefault("rules", [])
    with open(os.path.join(HERE, f"{name}.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    write("batch_norm", batch_norm())
    write("cholesky", cholesky())
    write("triangular_solve", triangular_solve())
    write("fft", fft())
    write("rng_bit_generator", rng_bit_generator())
