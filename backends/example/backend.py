#!/usr/bin/env python3
"""A tiny xla-spec conformance backend, written only to show the JSON-lines protocol.

It reads one request per line on stdin:
    {"id": N, "hlo": "...", "args": [LITERAL...], "replicas": R}
and answers one line on stdout:
    {"id": N, "result": LITERAL}    (a list of R literals when R > 1)
    {"id": N, "error": "text"}      (anything it does not support, or an invalid module)

It implements a very small subset of HLO itself: an ENTRY computation (no other computations)
made of parameter, constant, add, multiply and tuple, over f32 and s32 arrays. Everything else is
refused with an "error" response.

To test how a harness copes with misbehaving backends, it can be told to misbehave on requests
whose HLO text contains a given substring:
    --crash-on TEXT     exit at once with status 3 (after writing to stderr)
    --hang-on TEXT      never answer
    --garbage-on TEXT   answer a line that is not JSON
Pure Python 3, standard library only.
"""

import argparse
import json
import math
import os
import re
import struct
import sys
import time


class Unsupported(Exception):
    pass


def f32(x):
    """Rounds a Python float (an IEEE double) to the nearest f32, as an f32 add/multiply does.

    The exact sum or product of two f32 values fits in a double's 53 bits (or is rounded once
    there without changing the final f32 rounding), so double arithmetic then one rounding gives
    the correctly rounded f32 result.
    """
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def s32(x):
    """Wraps an integer to 32-bit two's complement."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


SHAPE = re.compile(r"^(f32|s32)\[([0-9,]*)\](\{[0-9,]*\})?$")


def parse_shape(text):
    m = SHAPE.match(text.strip())
    if not m:
        raise Unsupported("unsupported shape %r (only f32 and s32 arrays)" % text)
    dims = [int(d) for d in m.group(2).split(",") if d != ""]
    return m.group(1), dims


def count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def number(ty, tok):
    tok = tok.strip()
    if ty == "s32":
        return s32(int(tok))
    if tok in ("nan", "-nan"):
        return math.nan
    if tok == "inf":
        return math.inf
    if tok == "-inf":
        return -math.inf
    return f32(float(tok))


def from_json(lit):
    if "tuple" in lit:
        return ("tuple", [from_json(e) for e in lit["tuple"]])
    ty, dims = parse_shape(lit["shape"])
    data = [number(ty, str(x)) if isinstance(x, str) else (s32(int(x)) if ty == "s32" else f32(float(x))) for x in lit["data"]]
    if len(data) != count(dims):
        raise ValueError("literal %s has %d elements" % (lit["shape"], len(data)))
    return (ty, dims, data)


def to_json(v):
    if v[0] == "tuple":
        return {"tuple": [to_json(e) for e in v[1]]}
    ty, dims, data = v
    out = []
    for x in data:
        if ty == "f32" and math.isnan(x):
            out.append("nan")
        elif ty == "f32" and math.isinf(x):
            out.append("inf" if x > 0 else "-inf")
        else:
            out.append(x)
    return {"shape": "%s[%s]" % (ty, ",".join(str(d) for d in dims)), "data": out}


INSTRUCTION = re.compile(r"^(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*?)\s+([a-z][a-z\-]*)\((.*)\)(.*)$")


def evaluate(hlo, args):
    text = re.sub(r"//[^\n]*", "", hlo)
    if text.count("{") == 0:
        raise Unsupported("no computation found")
    body_start = text.find("ENTRY")
    if body_start < 0:
        raise Unsupported("only modules with an ENTRY computation are supported")
    if text[:body_start].count("{") != 0:
        raise Unsupported("only modules with a single (ENTRY) computation are supported")
    # The body opens with the last `{` on the ENTRY line (earlier ones may be layouts in a
    # signature such as `ENTRY %main (p: f32[2]{0}) -> f32[2]{0} {`).
    line_end = text.find("\n", body_start)
    header = text[body_start : line_end if line_end >= 0 else len(text)]
    if "{" not in header:
        raise Unsupported("the ENTRY line must end with `{`")
    body = text[body_start + header.rindex("{") + 1 : text.rindex("}")]
    values = {}
    root = None
    last = None
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        m = INSTRUCTION.match(line)
        if not m:
            raise Unsupported("cannot read instruction %r" % line)
        is_root, name, shape_text, opcode, inside, rest = m.groups()
        if opcode == "parameter":
            k = int(inside)
            if k >= len(args):
                raise Unsupported("parameter(%d) has no argument" % k)
            v = args[k]
        elif opcode == "constant":
            ty, dims = parse_shape(shape_text)
            toks = [t for t in re.split(r"[{},\s]+", inside) if t]
            data = [number(ty, t) for t in toks]
            if len(data) != count(dims):
                raise Unsupported("constant %s has %d elements" % (shape_text, len(data)))
            v = (ty, dims, data)
        elif opcode in ("add", "multiply"):
            ops = [values[o.strip().lstrip("%")] for o in inside.split(",")]
            if len(ops) != 2:
                raise Unsupported("%s takes two operands" % opcode)
            (ta, da, xa), (tb, db, xb) = ops
            if ta != tb or da != db:
                raise Unsupported("%s: operand shapes differ" % opcode)
            if opcode == "add":
                fn = (lambda p, q: s32(p + q)) if ta == "s32" else (lambda p, q: f32(p + q))
            else:
                fn = (lambda p, q: s32(p * q)) if ta == "s32" else (lambda p, q: f32(p * q))
            v = (ta, da, [fn(p, q) for p, q in zip(xa, xb)])
        elif opcode == "tuple":
            v = ("tuple", [values[o.strip().lstrip("%")] for o in inside.split(",") if o.strip()])
        else:
            raise Unsupported("unsupported opcode %s" % opcode)
        if v[0] != "tuple" and shape_text and not shape_text.startswith("("):
            ty, dims = parse_shape(shape_text)
            if (ty, dims) != (v[0], v[1]):
                raise Unsupported("shape mismatch: %s is declared %s" % (name, shape_text))
        values[name] = v
        last = name
        if is_root:
            root = name
    return values[root or last]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crash-on", action="append", default=[])
    ap.add_argument("--hang-on", action="append", default=[])
    ap.add_argument("--garbage-on", action="append", default=[])
    opts = ap.parse_args()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid = req.get("id")
        hlo = req.get("hlo", "")
        if any(s in hlo for s in opts.crash_on):
            sys.stderr.write("example backend: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if any(s in hlo for s in opts.hang_on):
            sys.stderr.write("example backend: hanging on purpose\n")
            sys.stderr.flush()
            while True:
                time.sleep(3600)
        if any(s in hlo for s in opts.garbage_on):
            sys.stdout.write("this is not a JSON response\n")
            sys.stdout.flush()
            continue
        try:
            replicas = int(req.get("replicas", 1))
            if replicas > 1:
                results = [to_json(evaluate(hlo, [from_json(a) for a in args])) for args in req["args"]]
                resp = {"id": rid, "result": results}
            else:
                resp = {"id": rid, "result": to_json(evaluate(hlo, [from_json(a) for a in req.get("args", [])]))}
        except Exception as e:  # anything unsupported or invalid is a refusal
            resp = {"id": rid, "error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
