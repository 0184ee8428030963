"""Generates golden/linalg/{dot,convolution}.json with numpy (an independent implementation).

Run: target/linalg-venv/bin/python golden/linalg/gen_golden.py  (venv from benches/linalg_peers.sh)
Values are small integers, so every expected value is exact in every type.
Dot uses numpy.einsum; convolution is written out below from the definition (dilate, pad or crop,
slide the dilated window with its stride, group), in numpy, without reference to xla-spec.
"""
import itertools
import json
import os

import numpy as np

rng = np.random.default_rng(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))


def ints(shape, lo=-4, hi=5):
    return rng.integers(lo, hi, size=shape)


def lit(ty, a):
    a = np.asarray(a)
    dims = ",".join(str(d) for d in a.shape)
    return {"shape": f"{ty}[{dims}]", "data": [int(x) for x in a.reshape(-1)]}


def shape_txt(ty, a):
    return f"{ty}[{','.join(str(d) for d in np.asarray(a).shape)}]"


def dot_case(name, ty, rty, l, r, attrs, eq, wrap=None):
    out = np.einsum(eq, l.astype(np.int64), r.astype(np.int64))
    if wrap:
        out = out.astype(wrap)
    hlo = (
        "HloModule m\n\nENTRY main {\n"
        f"  a = {shape_txt(ty, l)} parameter(0)\n"
        f"  b = {shape_txt(ty, r)} parameter(1)\n"
        f"  ROOT d = {shape_txt(rty, out)} dot(a, b){attrs}\n}}\n"
    )
    return {"name": name, "hlo": hlo, "args": [lit(ty, l), lit(ty, r)], "expected": lit(rty, out)}


def dots():
    c = []
    c.append(dot_case("batch_matmul", "f32", "f32", ints((2, 3, 4)), ints((2, 4, 5)),
                      ", lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}",
                      "bmk,bkn->bmn"))
    c.append(dot_case("permuted_dims", "f32", "f32", ints((4, 2, 3)), ints((5, 4, 2)),
                      ", lhs_batch_dims={1}, rhs_batch_dims={2}, lhs_contracting_dims={0}, rhs_contracting_dims={1}",
                      "kbm,nkb->bmn"))
    c.append(dot_case("two_contracting", "f64", "f64", ints((3, 2, 4)), ints((4, 3, 5)),
                      ", lhs_contracting_dims={0,2}, rhs_contracting_dims={1,0}",
                      "xmy,yxn->mn"))
    c.append(dot_case("s8_to_s32", "s8", "s32", ints((3, 7), -128, 128), ints((7, 2), -128, 128),
                      ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "mk,kn->mn"))
    big_l = rng.integers(-2**31, 2**31, size=(2, 3))
    big_r = rng.integers(-2**31, 2**31, size=(3, 2))
    c.append(dot_case("s32_wraps", "s32", "s32", big_l, big_r,
                      ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "mk,kn->mn",
                      wrap=np.int32))
    c.append(dot_case("bf16_matrix_vector", "bf16", "f32", ints((3, 5)), ints((5,)),
                      ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "mk,k->m"))
    c.append({
        "name": "batch_size_mismatch",
        "hlo": "HloModule m\n\nENTRY main {\n  a = f32[2,3] parameter(0)\n  b = f32[3,3] parameter(1)\n"
               "  ROOT d = f32[2] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n",
        "expected_error": "dot.batch_dim_sizes",
    })
    for x in c:
        x.setdefault("rules", ["dot.batch_dim_sizes"] if "expected_error" in x else [])
    return c


def conv_ref(x, w, strides, pads, lhs_dil, rhs_dil, rev, fgc=1, bgc=1):
    """x: [B, F, s...], w: [O, I, s...] canonical order; returns [B/bgc, O, s...]."""
    n = x.ndim - 2
    # lhs dilation: zeros between elements
    for d in range(n):
        ax = 2 + d
        if lhs_dil[d] > 1:
            size = (x.shape[ax] - 1) * lhs_dil[d] + 1
            shp = list(x.shape)
            shp[ax] = size
            y = np.zeros(shp, dtype=x.dtype)
            idx = [slice(None)] * x.ndim
            idx[ax] = slice(0, size, lhs_dil[d])
            y[tuple(idx)] = x
            x = y
    # padding (negative crops)
    for d in range(n):
        ax = 2 + d
        lo, hi = pads[d]
        if lo < 0:
            x = np.take(x, range(-lo, x.shape[ax]), axis=ax)
            lo = 0
        if hi < 0:
            x = np.take(x, range(0, x.shape[ax] + hi), axis=ax)
            hi = 0
        pw = [(0, 0)] * x.ndim
        pw[ax] = (lo, hi)
        x = np.pad(x, pw)
    for d in range(n):
        if rev[d]:
            w = np.flip(w, axis=2 + d)
    B, F = x.shape[:2]
    O, I = w.shape[:2]
    ks = w.shape[2:]
    span = [(ks[d] - 1) * rhs_dil[d] + 1 for d in range(n)]
    outs = [max((x.shape[2 + d] - span[d]) // strides[d] + 1, 0) for d in range(n)]
    G = max(fgc, bgc)
    og = O // G
    ob = B // bgc
    out = np.zeros([ob, O] + outs, dtype=np.int64)
    for b in range(ob):
        for o in range(O):
            g = o // og
            lb = g * (B // bgc) + b if bgc > 1 else b
            f0 = 0 if bgc > 1 else g * I
            for pos in itertools.product(*[range(s) for s in outs]):
                acc = 0
                for kpos in itertools.product(*[range(s) for s in ks]):
                    ip = tuple(pos[d] * strides[d] + kpos[d] * rhs_dil[d] for d in range(n))
                    acc += int(np.dot(x[(lb, slice(f0, f0 + I)) + ip], w[(o, slice(None)) + kpos]))
                out[(b, o) + pos] = acc
    return out


def to_layout(a, labels, letters):
    """Canonical [first, second, spatial...] -> the order `labels` names."""
    n = a.ndim - 2
    canon = letters + "".join(str(d) for d in range(n))
    return np.transpose(a, [canon.index(ch) for ch in labels])


def conv_case(name, ty, x, w, labels, window_attr, strides, pads, ld, rd, rev, fgc=1, bgc=1):
    lhs_l, rest = labels.split("_")
    rhs_l, out_l = rest.split("->")
    out = conv_ref(x, w, strides, pads, ld, rd, rev, fgc, bgc)
    X, W, Y = to_layout(x, lhs_l, "bf"), to_layout(w, rhs_l, "oi"), to_layout(out, out_l, "bf")
    extra = ""
    if fgc > 1:
        extra += f", feature_group_count={fgc}"
    if bgc > 1:
        extra += f", batch_group_count={bgc}"
    hlo = (
        "HloModule m\n\nENTRY main {\n"
        f"  x = {shape_txt(ty, X)} parameter(0)\n"
        f"  k = {shape_txt(ty, W)} parameter(1)\n"
        f"  ROOT c = {shape_txt(ty, Y)} convolution(x, k), window={{{window_attr}}}, dim_labels={labels}{extra}\n}}\n"
    )
    return {"name": name, "hlo": hlo, "args": [lit(ty, X), lit(ty, W)], "expected": lit(ty, Y)}


def convs():
    c = []
    c.append(conv_case("nhwc_stride_pad", "f32", ints((2, 3, 5, 4)), ints((2, 3, 3, 2)),
                       "b01f_01io->b01f", "size=3x2 stride=2x1 pad=1_1x0_1",
                       [2, 1], [(1, 1), (0, 1)], [1, 1], [1, 1], [0, 0]))
    c.append(conv_case("nchw_dilations", "f32", ints((1, 2, 4, 3)), ints((3, 2, 2, 2)),
                       "bf01_oi01->bf01", "size=2x2 pad=1_0x0_2 lhs_dilate=2x1 rhs_dilate=1x2",
                       [1, 1], [(1, 0), (0, 2)], [2, 1], [1, 2], [0, 0]))
    c.append(conv_case("depthwise", "f32", ints((1, 4, 4, 4)), ints((8, 1, 3, 3)),
                       "b01f_01io->b01f", "size=3x3 pad=1_1x1_1",
                       [1, 1], [(1, 1), (1, 1)], [1, 1], [1, 1], [0, 0], fgc=4))
    c.append(conv_case("batch_groups", "s32", ints((4, 2, 6)), ints((4, 2, 3)),
                       "bf0_oi0->bf0", "size=3 stride=2",
                       [2], [(0, 0)], [1], [1], [0], bgc=2))
    c.append(conv_case("reversal_negative_pad_odd_layout", "s32", ints((2, 3, 7)), ints((2, 3, 3)),
                       "0bf_0oi->f0b", "size=3 pad=-1_2 rhs_reversal=1",
                       [1], [(-1, 2)], [1], [1], [1]))
    c.append(conv_case("three_d", "f64", ints((1, 2, 3, 3, 3)), ints((2, 2, 2, 2, 2)),
                       "bf012_oi012->bf012", "size=2x2x2 stride=1x2x1 pad=0_0x1_0x0_1",
                       [1, 2, 1], [(0, 0), (1, 0), (0, 1)], [1, 1, 1], [1, 1, 1], [0, 0, 0]))
    c.append({
        "name": "groups_do_not_divide",
        "hlo": "HloModule m\n\nENTRY main {\n  x = f32[1,4,5] parameter(0)\n  k = f32[3,2,1] parameter(1)\n"
               "  ROOT c = f32[1,3,5] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, feature_group_count=2\n}\n",
        "expected_error": "convolution.feature_group_divides_output",
    })
    return c


def fix_rules(cases):
    for x in cases:
        if "expected_error" in x:
            x["rules"] = [x["expected_error"]]
        else:
            x.pop("rules", None)
    return cases


for fname, cases, desc in [
    ("dot.json", dots(), "DotGeneral cases computed with numpy.einsum"),
    ("convolution.json", convs(), "Convolution cases computed by a numpy implementation of the definition"),
]:
    with open(os.path.join(HERE, fname), "w") as f:
        json.dump({"description": desc + " (golden/linalg/gen_golden.py)", "cases": fix_rules(cases)}, f, indent=1)
        f.write("\n")
print("ok")
