"""Generates golden/collective/{all_reduce,all_gather,reduce_scatter,all_to_all,collective_permute,
replica_id,collective_broadcast,invalid_layouts}.json.

Run: target/xla-venv/bin/python golden/collective/gen_golden.py  (any python with numpy)

Expected values are computed here in numpy from the definitions in the book (a replica group is a
list of replica ids; the empty list means one group of all replicas in id order; results follow the
group's order), independently of xla-spec. Every case runs as 2, 3 or 4 replicas, with per-replica
arguments and expected values. Values are small integers, so every result is exact in every type.
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261123)

REDUCERS = {"add": np.add, "maximum": np.maximum, "minimum": np.minimum, "multiply": np.multiply,
            "or": np.logical_or, "and": np.logical_and}
INT_NP = {"s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64, "u8": np.uint8,
          "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def shape_txt(ty, dims):
    return f"{ty}[{','.join(str(d) for d in dims)}]"


def lit(ty, a):
    a = np.asarray(a)
    if ty == "pred":
        data = [bool(x) for x in a.reshape(-1)]
    elif ty in INT_NP:
        data = [int(x) for x in a.reshape(-1)]
    else:
        data = [float(x) for x in a.reshape(-1)]
    return {"shape": shape_txt(ty, a.shape), "data": data}


def value(ty, dims):
    if ty == "pred":
        return rng.integers(0, 2, size=dims).astype(bool)
    if ty.startswith("u"):
        return rng.integers(0, 10, size=dims)
    return rng.integers(-9, 10, size=dims)


def groups_of(groups, n):
    return groups if groups else [list(range(n))]


def groups_txt(groups):
    return "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in groups) + "}"


def group_tag(groups):
    return "all" if not groups else "_".join("".join(map(str, g)) for g in groups)


def reducer(name, ty):
    return (f"{name}_{ty} {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n"
            f"  ROOT c = {ty}[] {name}(a, b)\n}}\n\n")


def module(n, params, root, comps=""):
    body = "".join(f"  p{i} = {s} parameter({i})\n" for i, s in enumerate(params))
    return f"HloModule m, replica_count={n}\n\n{comps}ENTRY main {{\n{body}{root}}}\n"


def case(name, n, desc, hlo, args, expected):
    return {"name": name, "description": desc, "hlo": hlo, "replicas": n, "args": args,
            "expected": expected, "rules": []}


def wrap(ty, a):
    """Integer results wrap like the element type (two's complement)."""
    if ty not in INT_NP:
        return a
    bits = np.iinfo(INT_NP[ty]).bits
    signed = ty.startswith("s")

    def one(v):
        v = int(v) % (1 << bits)
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v
    return np.vectorize(one, otypes=[object])(np.asarray(a, dtype=object))


# The layouts every collective is run over: (replica count, groups).
LAYOUTS = [(2, []), (2, [[1, 0]]), (3, []), (3, [[0], [1, 2]]), (3, [[2, 0, 1]]), (4, []),
           (4, [[0, 1], [2, 3]]), (4, [[0, 2], [1, 3]]), (4, [[3, 2, 1, 0]])]
# All-gather, reduce-scatter and all-to-all need groups of one size (their result shape depends on
# it); all-reduce does not.
EQUAL = [(n, g) for n, g in LAYOUTS if len({len(x) for x in groups_of(g, n)}) == 1]


def all_reduce():
    cases = []
    combos = [("add", "s32"), ("add", "f32"), ("add", "u8"), ("maximum", "f32"),
              ("minimum", "s64"), ("multiply", "s16"), ("or", "pred"), ("and", "pred"),
              ("add", "f64"), ("maximum", "bf16"), ("minimum", "u32")]
    for i, (n, groups) in enumerate(LAYOUTS):
        for j, (op, ty) in enumerate(combos):
            if (i + j) % 3:
                continue  # each layout with some reducers, each reducer over some layouts
            dims = (2, 3) if j % 2 else (4,)
            xs = [value(ty, dims) for _ in range(n)]
            out = [None] * n
            for g in groups_of(groups, n):
                acc = xs[g[0]].astype(object) if ty in INT_NP else xs[g[0]]
                for r in g[1:]:
                    acc = REDUCERS[op](acc, xs[r])
                for r in g:
                    out[r] = wrap(ty, acc)
            s = shape_txt(ty, dims)
            cases.append(case(
                f"{op}_{ty}_{n}r_{group_tag(groups)}", n,
                f"all-reduce with {op} over replica_groups={groups_txt(groups)}",
                module(n, [s], f"  ROOT r = {s} all-reduce(p0), replica_groups={groups_txt(groups)}, "
                               f"to_apply={op}_{ty}\n", reducer(op, ty)),
                [[lit(ty, x)] for x in xs], [lit(ty, o) for o in out]))
    # Tuple operands: one reducer, applied to each operand separately.
    for n, groups in [(2, []), (4, [[0, 2], [1, 3]]), (3, [[0], [1, 2]])]:
        xs = [(value("f32", (2,)), value("f32", (3, 1))) for _ in range(n)]
        out = [None] * n
        for g in groups_of(groups, n):
            s0 = sum(xs[r][0] for r in g)
            s1 = sum(xs[r][1] for r in g)
            for r in g:
                out[r] = {"tuple": [lit("f32", s0), lit("f32", s1)]}
        cases.append(case(
            f"tuple_add_{n}r_{group_tag(groups)}", n,
            "all-reduce of two operands at once: a tuple result, each element reduced separately",
            module(n, ["f32[2]", "f32[3,1]"],
                   f"  ROOT r = (f32[2], f32[3,1]) all-reduce(p0, p1), "
                   f"replica_groups={groups_txt(groups)}, to_apply=add_f32\n", reducer("add", "f32")),
            [[lit("f32", a), lit("f32", b)] for a, b in xs], out))
    # channel_id with all replicas: the same result (channel ids only pair up collectives).
    xs = [value("s32", (3,)) for _ in range(2)]
    tot = xs[0] + xs[1]
    cases.append(case(
        "channel_id_2r", 2, "all-reduce with a channel_id: the value does not change",
        module(2, ["s32[3]"], "  ROOT r = s32[3] all-reduce(p0), channel_id=1, replica_groups={}, "
                              "to_apply=add_s32\n", reducer("add", "s32")),
        [[lit("s32", x)] for x in xs], [lit("s32", tot)] * 2))
    return cases


def all_gather():
    cases = []
    for i, (n, groups) in enumerate(EQUAL):
        for dim in (0, 1):
            ty = ["f32", "s32", "u16", "pred"][(i + dim) % 4]
            dims = (2, 2) if dim == 0 else (1, 3)
            xs = [value(ty, dims) for _ in range(n)]
            out = [None] * n
            for g in groups_of(groups, n):
                cat = np.concatenate([xs[r] for r in g], axis=dim)
                for r in g:
                    out[r] = cat
            gsize = len(groups_of(groups, n)[0])
            odims = list(dims)
            odims[dim] *= gsize
            cases.append(case(
                f"{ty}_dim{dim}_{n}r_{group_tag(groups)}", n,
                f"all-gather along dimension {dim} over replica_groups={groups_txt(groups)}: the "
                "members' operands concatenated in the group's order",
                module(n, [shape_txt(ty, dims)],
                       f"  ROOT r = {shape_txt(ty, odims)} all-gather(p0), "
                       f"replica_groups={groups_txt(groups)}, dimensions={{{dim}}}\n"),
                [[lit(ty, x)] for x in xs], [lit(ty, o) for o in out]))
    return cases


def reduce_scatter():
    cases = []
    # The seed's example: two replicas, {1,2,3,4} and {5,6,7,8}, sum, scattered along 0.
    cases.append(case(
        "seed_example", 2, "the seed's example: [1,2,3,4] and [5,6,7,8] summed to [6,8,10,12], "
        "replica 0 keeps [6,8] and replica 1 [10,12]",
        module(2, ["f32[4]"], "  ROOT r = f32[2] reduce-scatter(p0), replica_groups={}, "
                              "dimensions={0}, to_apply=add_f32\n", reducer("add", "f32")),
        [[lit("f32", [1, 2, 3, 4])], [lit("f32", [5, 6, 7, 8])]],
        [lit("f32", [6, 8]), lit("f32", [10, 12])]))
    combos = [("add", "s32"), ("maximum", "f32"), ("minimum", "s8"), ("add", "f64")]
    for i, (n, groups) in enumerate(EQUAL):
        op, ty = combos[i % len(combos)]
        gs = groups_of(groups, n)
        size = len(gs[0])
        dim = i % 2
        dims = (size * 2, 3) if dim == 0 else (2, size)
        xs = [value(ty, dims) for _ in range(n)]
        out = [None] * n
        for g in gs:
            acc = xs[g[0]]
            for r in g[1:]:
                acc = REDUCERS[op](acc, xs[r])
            parts = np.split(acc, size, axis=dim)
            for k, r in enumerate(g):
                out[r] = wrap(ty, parts[k])
        odims = list(dims)
        odims[dim] //= size
        cases.append(case(
            f"{op}_{ty}_dim{dim}_{n}r_{group_tag(groups)}", n,
            f"reduce-scatter with {op} along dimension {dim} over replica_groups="
            f"{groups_txt(groups)}: the k-th member of a group keeps the k-th block of the reduction",
            module(n, [shape_txt(ty, dims)],
                   f"  ROOT r = {shape_txt(ty, odims)} reduce-scatter(p0), replica_groups="
                   f"{groups_txt(groups)}, dimensions={{{dim}}}, to_apply={op}_{ty}\n",
                   reducer(op, ty)),
            [[lit(ty, x)] for x in xs], [lit(ty, o) for o in out]))
    return cases


def all_to_all():
    cases = []
    for i, (n, groups) in enumerate(EQUAL):
        # The array form needs explicit groups: "all replicas" is spelled out.
        groups = groups_of(groups, n)
        gs = groups
        size = len(gs[0])
        ty = ["s32", "f32", "u64", "f16"][i % 4]
        dim = i % 2
        dims = (size * 2, 2) if dim == 0 else (3, size)
        xs = [value(ty, dims) for _ in range(n)]
        out = [None] * n
        for g in gs:
            blocks = {r: np.split(xs[r], size, axis=dim) for r in g}
            for k, r in enumerate(g):
                # Member k receives block k of every member, concatenated in the group's order.
                out[r] = np.concatenate([blocks[s][k] for s in g], axis=dim)
        cases.append(case(
            f"{ty}_dim{dim}_{n}r_{group_tag(groups)}", n,
            f"all-to-all (array form) along dimension {dim} over replica_groups="
            f"{groups_txt(groups)}: member k gets block k of every member, in group order",
            module(n, [shape_txt(ty, dims)],
                   f"  ROOT r = {shape_txt(ty, dims)} all-to-all(p0), replica_groups="
                   f"{groups_txt(groups)}, dimensions={{{dim}}}\n"),
            [[lit(ty, x)] for x in xs], [lit(ty, o) for o in out]))
    # Tuple form: operand j of member i goes to member j as its operand i.
    for n in (2, 3):
        xs = [[value("s32", (2,)) for _ in range(n)] for _ in range(n)]
        out = [{"tuple": [lit("s32", xs[i][j]) for i in range(n)]} for j in range(n)]
        params = ["s32[2]"] * n
        cases.append(case(
            f"tuple_form_{n}r", n,
            "all-to-all with one operand per member: operand j of replica i arrives at replica j as "
            "element i of its result tuple",
            module(n, params, f"  ROOT r = ({', '.join(params)}) all-to-all("
                              f"{', '.join(f'p{k}' for k in range(n))}), replica_groups={{}}\n"),
            [[lit("s32", x) for x in row] for row in xs], out))
    return cases


def collective_permute():
    cases = []
    layouts = [(2, [(0, 1), (1, 0)]), (3, [(0, 1), (1, 2)]), (3, [(0, 1), (1, 2), (2, 0)]),
               (4, [(0, 2), (2, 0), (1, 3)]), (4, [(3, 0)]), (4, []), (2, [(0, 0), (1, 1)])]
    for i, (n, pairs) in enumerate(layouts):
        ty = ["f32", "s32", "u8", "f64", "pred", "s64", "bf16"][i]
        dims = (2, 2) if i % 2 else (3,)
        xs = [value(ty, dims) for _ in range(n)]
        # Replicas that receive nothing get zeros.
        out = [np.zeros(dims, dtype=bool if ty == "pred" else np.int64) for _ in range(n)]
        for s, t in pairs:
            out[t] = xs[s]
        ptxt = "{" + ",".join(f"{{{s},{t}}}" for s, t in pairs) + "}"
        tag = "_".join(f"{s}{t}" for s, t in pairs) or "none"
        cases.append(case(
            f"{ty}_{n}r_{tag}", n,
            f"collective-permute with source_target_pairs={ptxt}: each target gets its source's "
            "operand; a replica that is no pair's target gets zeros (false for pred)",
            module(n, [shape_txt(ty, dims)],
                   f"  ROOT r = {shape_txt(ty, dims)} collective-permute(p0), "
                   f"source_target_pairs={ptxt}\n"),
            [[lit(ty, x)] for x in xs], [lit(ty, o) for o in out]))
    return cases


def replica_id():
    cases = []
    for n in (2, 3, 4):
        cases.append(case(
            f"ids_{n}r", n, "replica-id is the replica's number, 0 to N-1, as u32",
            module(n, [], "  ROOT r = u32[] replica-id()\n"), [[] for _ in range(n)],
            [lit("u32", np.array(r)) for r in range(n)]))
    # Replica id feeding data: each replica selects its own row of a shared table.
    table = value("s32", (4, 3))
    cases.append(case(
        "select_own_row_4r", 4, "dynamic-slice by replica-id: replica r reads row r",
        module(4, ["s32[4,3]"],
               "  id = u32[] replica-id()\n  zero = u32[] constant(0)\n"
               "  ROOT r = s32[1,3] dynamic-slice(p0, id, zero), dynamic_slice_sizes={1,3}\n"),
        [[lit("s32", table)] for _ in range(4)], [lit("s32", table[r:r + 1]) for r in range(4)]))
    return cases


def collective_broadcast():
    cases = []
    for n, groups in [(2, [[0, 1]]), (3, [[2, 0, 1]]), (4, [[0, 1], [2, 3]]), (4, [[3, 1], [2, 0]])]:
        xs = [value("s32", (2,)) for _ in range(n)]
        out = [None] * n
        for g in groups:
            for r in g:
                out[r] = xs[g[0]]
        cases.append(case(
            f"s32_{n}r_{group_tag(groups)}", n,
            f"collective-broadcast over replica_groups={groups_txt(groups)}: every member gets "
            "the operand of its group's first member",
            module(n, ["s32[2]"], f"  ROOT r = s32[2] collective-broadcast(p0), "
                                  f"replica_groups={groups_txt(groups)}\n"),
            [[lit("s32", x)] for x in xs], [lit("s32", o) for o in out]))
    return cases


def invalid():
    add = reducer("add", "f32")
    bad = [
        ("groups_miss_a_replica", 3, "all-reduce", "f32[4]", "f32[4]", "replica_groups={{0,1}}",
         "collective.replica_groups"),
        ("groups_overlap", 4, "all-reduce", "f32[4]", "f32[4]", "replica_groups={{0,1},{1,2,3}}",
         "collective.replica_groups"),
        ("all_gather_unequal_groups_3r", 3, "all-gather", "f32[2]", "f32[4]",
         "replica_groups={{0},{1,2}}, dimensions={0}", "collective.equal_group_sizes"),
        ("reduce_scatter_3_into_4", 3, "reduce-scatter", "f32[4]", "f32[1]",
         "replica_groups={}, dimensions={0}", "reduce-scatter.divisible"),
        ("all_to_all_3_into_4", 3, "all-to-all", "f32[4]", "f32[4]",
         "replica_groups={{0,1,2}}, dimensions={0}", "all-to-all.divisible"),
        ("all_to_all_array_form_needs_groups", 2, "all-to-all", "f32[4]", "f32[4]",
         "replica_groups={}, dimensions={0}", "all-to-all.explicit_groups"),
        ("collective_permute_target_out_of_range", 2, "collective-permute", "f32[4]", "f32[4]",
         "source_target_pairs={{0,2}}", "collective-permute.pairs"),
    ]
    cases = []
    for name, n, op, ins, outs, attrs, rule in bad:
        extra = ", to_apply=add_f32" if op in ("all-reduce", "reduce-scatter") else ""
        cases.append({
            "name": name,
            "description": f"refused: {rule}",
            "hlo": module(n, [ins], f"  ROOT r = {outs} {op}(p0), {attrs}{extra}\n", add),
            "expected_error": rule,
            "rules": [rule],
        })
    return cases


def write(name, cases):
    with open(os.path.join(HERE, f"{name}.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    write("all_reduce", all_reduce())
    write("all_gather", all_gather())
    write("reduce_scatter", reduce_scatter())
    write("all_to_all", all_to_all())
    write("collective_permute", collective_permute())
    write("replica_id", replica_id())
    write("collective_broadcast", collective_broadcast())
    write("invalid_layouts", invalid())
