#!/usr/bin/env python3
"""Where `xla-spec run` spends its time in a module, instruction by instruction.

The reference runtime has no per-instruction timer, and a sampling profiler (perf) sees its kernels
run on pool threads whose stacks do not say which HLO instruction they belong to. This script
measures each instruction in isolation instead: for every instruction of the ENTRY computation and
of every computation reached through `call` (recursively), it writes a module whose ENTRY takes the
instruction's operands as parameters and evaluates K copies of the instruction, returning all K
values as a tuple (the reference skips instructions whose values nothing reads); the instruction's
cost is (time with K copies - time with K zeros of the same shape) / K, best of --runs `xla-spec
run` processes each, every one writing its result with --out, so that both pay the same I/O. All
other computations of the module are copied unchanged, so `to_apply`/`calls` still resolve.

Operands are random: floats standard normal, integers zero (valid indices), predicates random.
Instructions with a tuple-shaped operand (get-tuple-element) and parameters, tuples and scalar
constants are not timed (they copy nothing or next to nothing). A `call` is timed as a whole and
its body instruction by instruction; the totals count leaves only (a call's body, not the call).

With --args (the program's own arguments, as benches/programs_peers.py writes them) it also times
the whole program and its I/O floor: a module with the same parameters and result shapes and no
work (each result is a parameter of its shape, or a broadcast zero), which costs what every run
pays for starting the process, parsing, reading the .npz and writing the results.

    target/linalg-venv/bin/python benches/programs/op_costs.py benches/programs/mlp_train.hlo \
        --args target/bench-programs/mlp_train.in.npz --json target/bench-programs/mlp_train.ops.json

$XLA_SPEC is the binary (default target/release/xla-spec).
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import ml_dtypes

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

DTYPES = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16,
          "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64, "c64": np.complex64,
          "c128": np.complex128}

COMP_RE = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s*(?:\([^{]*\)\s*->\s*[^{]*)?\{\s*$")
ARRAY_RE = re.compile(r"([a-z0-9]+)\[([^\]]*)\](\{[^}]*\})?")


def split_shape(s, pos):
    """The shape text starting at pos (an array shape or a parenthesised tuple) and where it ends."""
    if s[pos] == "(":
        depth = 0
        for i in range(pos, len(s)):
            depth += s[i] == "("
            depth -= s[i] == ")"
            if depth == 0:
                # XLA annotates long tuples with /*index=N*/ comments
                return re.sub(r"/\*.*?\*/", "", s[pos:i + 1]), i + 1
        raise ValueError(s)
    m = ARRAY_RE.match(s, pos)
    return m.group(0), m.end()


def split_top(s, sep=","):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_module(text):
    """[(name, is_entry, [instr])], instr = dict(name, root, shape, opcode, operands, rest, line)."""
    comps = []
    cur = None
    for line in text.split("\n"):
        if cur is None:
            m = COMP_RE.match(line.strip())
            if m and not line.startswith("HloModule"):
                cur = (m.group(2), bool(m.group(1)), [], [line])
            continue
        cur[3].append(line)
        if line.strip() == "}":
            comps.append(cur)
            cur = None
            continue
        m = re.match(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*", line)
        if not m:
            continue
        shape, pos = split_shape(line, m.end())
        m2 = re.compile(r"\s*([\w\-]+)\(").match(line, pos)
        opcode = m2.group(1)
        depth, i = 1, m2.end()
        while depth:
            depth += line[i] == "("
            depth -= line[i] == ")"
            i += 1
        inner = line[m2.end():i - 1]
        # a constant's parentheses hold its literal, a parameter's its number: no operands
        operands = [] if opcode in ("constant", "parameter") else [o.split()[-1].lstrip("%") for o in split_top(inner)]
        cur[2].append({"name": m.group(2), "root": bool(m.group(1)), "shape": shape, "opcode": opcode,
                       "operands": operands, "rest": line[i:], "args_text": line[m2.end():i - 1], "line": line})
    return comps


def leaves(shape):
    if shape.startswith("("):
        return [x for part in split_top(shape[1:-1]) for x in leaves(part)]
    m = ARRAY_RE.match(shape)
    dims = [int(d.replace("<=", "")) for d in m.group(2).split(",") if d.strip()]
    return [(m.group(1), dims)]


def elements(shape):
    return sum(math.prod(d) for _, d in leaves(shape))


def random_array(ty, dims, rng):
    if ty == "pred":
        return rng.integers(0, 2, size=dims).astype(np.bool_)
    if ty[0] in "su":
        return np.zeros(dims, DTYPES[ty])
    if ty in ("c64", "c128"):
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(DTYPES[ty])
    return rng.standard_normal(dims).astype(np.float32).astype(DTYPES[ty])


def flops(ins, shapes):
    """2 x multiply-adds of a dot or convolution (None for other ops)."""
    out = elements(ins["shape"])
    if ins["opcode"] == "dot":
        m = re.search(r"lhs_contracting_dims=\{([\d,]*)\}", ins["rest"])
        lhs = leaves(shapes[ins["operands"][0]])[0][1]
        k = math.prod(lhs[int(d)] for d in m.group(1).split(",") if d) if m else 1
        return 2 * out * k
    if ins["opcode"] == "convolution":
        rhs = leaves(shapes[ins["operands"][1]])[0][1]
        dl = re.search(r"dim_labels=\w+_(\w+)->", ins["rest"]).group(1)
        o = rhs[dl.index("o")]
        # each output element sums over the kernel's other dimensions (its input features are
        # already per group); padding and dilation holes count as work
        return 2 * out * math.prod(rhs) // o
    return None


class Timer:
    def __init__(self, binary, runs, workdir):
        self.binary, self.runs, self.dir = binary, runs, workdir
        self.n = 0

    def time(self, text, args):
        self.n += 1
        hlo = os.path.join(self.dir, f"m{self.n}.hlo")
        npz = os.path.join(self.dir, f"m{self.n}.npz")
        out = os.path.join(self.dir, f"m{self.n}.out.npz")
        open(hlo, "w").write(text)
        np.savez(npz, **{f"arg{i}": a for i, a in enumerate(args)})
        best = math.inf
        for _ in range(self.runs):
            s = time.perf_counter()
            # Results go to a file: printed as text, a large result would cost more than the
            # instruction.
            r = subprocess.run([self.binary, "run", hlo, "--args", npz, "--out", out, "--force"],
                               capture_output=True, text=True)
            dt = time.perf_counter() - s
            if r.returncode != 0:
                os.remove(npz)
                raise RuntimeError(r.stderr.strip()[:500])
            best = min(best, dt)
        os.remove(npz)
        os.remove(hlo)
        if os.path.exists(out):
            os.remove(out)
        return best


def zero_value(shape, name, lines):
    """Appends lines computing a zero of `shape` (a tuple of zeros for a tuple shape) named `name`."""
    if shape.startswith("("):
        parts = []
        for j, part in enumerate(split_top(shape[1:-1])):
            zero_value(part.strip(), f"{name}_{j}", lines)
            parts.append(f"{name}_{j}")
        lines.append(f"  {name} = {shape} tuple({', '.join(parts)})")
        return
    ty = ARRAY_RE.match(shape).group(1)
    lines.append(f"  {name}_z = {ty}[] constant({'false' if ty == 'pred' else '0'})")
    lines.append(f"  {name} = {shape} broadcast({name}_z), dimensions={{}}")


def isolated(comps, ins, shapes, k, zeros=False):
    """A module evaluating k copies of ins on parameters standing for its operands, returning all
    of them as a tuple: the reference skips pure instructions whose values nothing reads (as XLA's
    dead-code elimination does), so copies rooted at a constant would cost nothing. With `zeros`,
    each copy is a zero of the same shape instead: the same parameters and the same result to
    write, so the difference of the two times is the copies' evaluation."""
    params = []
    index = {}
    for o in ins["operands"]:
        if o not in index:
            index[o] = len(params)
            params.append(o)
    lines = ["HloModule op_cost", ""]
    for name, entry, _, text in comps:
        if not entry:
            lines += text + [""]
    lines.append("ENTRY op_cost_entry {")
    for i, o in enumerate(params):
        lines.append(f"  op_cost_p{i} = {shapes[o]} parameter({i})")
    args_text = ", ".join(f"op_cost_p{index[o]}" for o in ins["operands"])
    for c in range(k):
        if zeros:
            zero_value(ins["shape"], f"op_cost_c{c}", lines)
        else:
            lines.append(f"  op_cost_c{c} = {ins['shape']} {ins['opcode']}({args_text}){ins['rest']}")
    if k == 0:
        lines.append("  ROOT op_cost_root = pred[] constant(false)")
    else:
        shape = ", ".join([ins["shape"]] * k)
        copies = ", ".join(f"op_cost_c{c}" for c in range(k))
        lines.append(f"  ROOT op_cost_root = ({shape}) tuple({copies})")
    lines.append("}")
    return "\n".join(lines) + "\n", params


def floor_module(comps):
    """The program's ENTRY parameters and result shape with no work in between: each result leaf is
    a parameter of the same shape when one is left, else a broadcast zero. Its run time is the
    floor every run pays: process start, parsing, reading the arguments, writing the results."""
    entry = next(c for c in comps if c[1])
    params = [i for i in entry[2] if i["opcode"] == "parameter"]
    root = next(i for i in entry[2] if i["root"])
    lines = ["HloModule floor", "", "ENTRY floor_entry {"]
    for i in params:
        lines.append(f"  {i['name']} = {i['shape']} {i['opcode']}({i['args_text']})")
    unused = list(params)
    parts = []
    result_leaves = [root["shape"]] if not root["shape"].startswith("(") else split_top(root["shape"][1:-1])
    for n, leaf in enumerate(result_leaves):
        key = ARRAY_RE.match(leaf)
        match = next((p for p in unused if ARRAY_RE.match(p["shape"]).group(1, 2) == key.group(1, 2)), None)
        if match:
            unused.remove(match)
            parts.append(match["name"])
            continue
        zero = "false" if key.group(1) == "pred" else "0"
        lines.append(f"  floor_z{n} = {key.group(1)}[] constant({zero})")
        lines.append(f"  floor_b{n} = {leaf} broadcast(floor_z{n}), dimensions={{}}")
        parts.append(f"floor_b{n}")
    if root["shape"].startswith("("):
        lines.append(f"  ROOT floor_root = {root['shape']} tuple({', '.join(parts)})")
    else:
        lines.append(f"  ROOT floor_root = {root['shape']} copy({parts[0]})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def time_process(cmd, runs):
    best = math.inf
    for _ in range(runs):
        s = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - s)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip()[:500])
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hlo")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--target-ms", type=float, default=150.0, help="aim for K copies taking about this long")
    ap.add_argument("--max-copies", type=int, default=32)
    ap.add_argument("--min-elements", type=int, default=1024, help="skip instructions smaller than this")
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--args", help="the program's arguments (.npz): also time the whole program and its I/O floor")
    opts = ap.parse_args()
    binary = os.environ.get("XLA_SPEC", os.path.join(ROOT, "target", "release", "xla-spec"))
    text = open(opts.hlo).read()
    comps = parse_module(text)
    by_name = {c[0]: c for c in comps}
    entry = next(c for c in comps if c[1])
    rng = np.random.default_rng(0)
    rows = []
    whole = None
    if opts.args:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.npz")
            floor = os.path.join(tmp, "floor.hlo")
            open(floor, "w").write(floor_module(comps))
            start = time_process([binary, "help"], 5)
            whole = time_process([binary, "run", opts.hlo, "--args", opts.args, "--out", out, "--force"], opts.runs)
            io = time_process([binary, "run", floor, "--args", opts.args, "--out", out, "--force"], opts.runs)
        whole = {"program_ms": round(whole * 1e3, 2), "floor_ms": round(io * 1e3, 2), "start_ms": round(start * 1e3, 2)}
    with tempfile.TemporaryDirectory() as tmp:
        timer = Timer(binary, opts.runs, tmp)

        def visit(comp, calls, path):
            shapes = {i["name"]: i["shape"] for i in comp[2]}
            for ins in comp[2]:
                op = ins["opcode"]
                if op in ("parameter", "tuple", "get-tuple-element"):
                    continue
                big = max([elements(ins["shape"])] + [elements(shapes[o]) for o in ins["operands"]])
                if big < opts.min_elements:
                    continue
                if any(shapes[o].startswith("(") for o in ins["operands"]):
                    continue
                m = re.search(r"to_apply=%?([\w.\-]+)", ins["rest"])
                callee = by_name.get(m.group(1)) if (op == "call" and m) else None
                args = [random_array(*leaves(shapes[o])[0], rng) for o in dict.fromkeys(ins["operands"])]
                def copies(n):
                    # n copies against n zeros of the same shape (same parameters, same result)
                    return (timer.time(isolated(comps, ins, shapes, n)[0], args)
                            - timer.time(isolated(comps, ins, shapes, n, zeros=True)[0], args))
                try:
                    one = copies(1)
                    k = max(1, min(opts.max_copies, int(opts.target_ms / 1e3 / max(one, 1e-4))))
                    cost = one if k == 1 else copies(k) / k
                    err = None
                except RuntimeError as e:
                    cost, k, err = None, 0, str(e)
                row = {"computation": comp[0], "path": path, "calls": calls, "name": ins["name"],
                       "opcode": op, "shape": ins["shape"],
                       "operands": [shapes[o] for o in ins["operands"]], "rest": ins["rest"].strip(", ")[:200],
                       "ms": None if cost is None else round(cost * 1e3, 3), "copies": k,
                       "leaf": callee is None}
                if err:
                    row["error"] = err
                fl = flops(ins, shapes)
                if fl and cost and cost > 0:
                    row["gflops"] = round(fl / cost / 1e9, 1)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                if callee is not None:
                    visit(callee, calls, path + [ins["name"]])

        visit(entry, 1, [])
    total = sum(r["ms"] for r in rows if r["leaf"] and r["ms"])
    print(f"{opts.hlo}: {len(rows)} instructions timed, leaves sum to {total:.1f} ms "
          f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    if whole:
        print(f"whole program {whole['program_ms']:.1f} ms; its I/O floor (same arguments and result shapes, "
              f"no work: start, parse, read .npz, write .npz) {whole['floor_ms']:.1f} ms, of which process "
              f"start (`xla-spec help`) {whole['start_ms']:.1f} ms; program - floor = "
              f"{whole['program_ms'] - whole['floor_ms']:.1f} ms against the leaves' {total:.1f} ms")
    by_op = {}
    for r in rows:
        if r["leaf"] and r["ms"]:
            by_op.setdefault(r["opcode"], [0.0, 0])
            by_op[r["opcode"]][0] += r["ms"]
            by_op[r["opcode"]][1] += 1
    print("\nby opcode (leaves):")
    for op, (ms_, n) in sorted(by_op.items(), key=lambda kv: -kv[1][0]):
        print(f"  {op:24s} {ms_:8.1f} ms  {100 * ms_ / total:5.1f}%  ({n} instructions)")
    print(f"\ntop {opts.top} leaf instructions:")
    for r in sorted((r for r in rows if r["leaf"] and r["ms"]), key=lambda r: -r["ms"])[:opts.top]:
        where = "/".join(r["path"] + [r["name"]])
        extra = f" {r['gflops']} GFLOP/s" if "gflops" in r else ""
        print(f"  {r['ms']:8.2f} ms  {where}: {r['opcode']} {r['shape']} <- {', '.join(r['operands'])}"
              f" [{r['rest'][:90]}]{extra}")
    errs = [r for r in rows if "error" in r]
    for r in errs:
        print(f"  not timed: {r['name']}: {r['error']}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"hlo": opts.hlo, "total_leaf_ms": total, "whole": whole, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
