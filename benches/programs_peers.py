"""Whole programs: XLA:CPU against `xla-spec run` on the same HLO text files, in one run (issue 19).

For each program of benches/programs/programs.json (all, or those whose name contains FILTER):

  1. writes its deterministic arguments to target/bench-programs/<name>.in.npz (arg0, arg1, ...:
     the names `xla-spec run --args` reads; the values are drawn as benches/programs/make.py says);
  2. XLA:CPU: parses the .hlo text with XLA's own parser and converts it to StableHLO (the
     conversion backends/xla/xla_backend.py uses, from backends/common/hlo_to_stablehlo.py),
     compiles it once on the CPU client, then executes it (arguments already on the device,
     blocking until every result is ready) best of --xla-runs;
  3. xla-spec: runs `$XLA_SPEC run FILE.hlo --args IN.npz --out OUT.npz --force` as a user would
     (wall time of the whole process: parsing, reading the .npz, evaluating, writing the .npz),
     best of --spec-runs, stopping early once the runs of one program pass --budget seconds;
  4. compares xla-spec's out.npz with XLA's results (the program's tolerance from the manifest).

Prints one JSON object per program and line, then a markdown table with the ratio
xla_spec_run / xla_execute, the CPU model, the date and the load average. Run through
benches/programs_peers.sh, which pins the Python packages:

    benches/programs_peers.sh                 # every program
    benches/programs_peers.sh mlp             # programs whose name contains "mlp"
    XLA_SPEC=/path/to/xla-spec benches/programs_peers.sh --spec-runs 5
    benches/programs_peers.sh --save benches/results/NAME.json   # also a record for the book

Times are milliseconds. xla_execute_ms is XLA:CPU's execution alone (no argument transfer, no
compilation); xla_compile_execute_ms is compilation plus the first execution (what a user who
runs a module once pays, without the HLO-to-StableHLO conversion, reported as xla_convert_ms);
xla_spec_run_ms is the whole `xla-spec run` process; xla_spec_eval_ms is the evaluation alone
(`xla-spec bench --programs`, in one process on the same .npz arguments, best of --spec-runs after
a warm-up), the figure comparable with xla_execute_ms.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(ROOT, "backends", "common"))
sys.path.insert(0, os.path.join(HERE, "programs"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jaxlib  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402

# 64-bit arguments stay 64-bit (int_arith).
jax.config.update("jax_enable_x64", True)

from hlo_to_stablehlo import to_stablehlo  # noqa: E402
import record  # noqa: E402  (benches/record.py: measurement records for the book)
import make  # noqa: E402  (benches/programs/make.py: argument filling and the comparison)

OUT_DIR = os.path.join(ROOT, "target", "bench-programs")


def ms(seconds):
    return round(seconds * 1e3, 3)


def cpu_model():
    """The model name with its family/model/stepping numbers (a VM often names only "AMD EPYC")."""
    info = {}
    try:
        for line in open("/proc/cpuinfo"):
            if ":" in line:
                k, v = (x.strip() for x in line.split(":", 1))
                info.setdefault(k, v)
    except OSError:
        return platform.processor() or "unknown"
    return (f"{info.get('model name', 'unknown')} (family {info.get('cpu family', '?')}, "
            f"model {info.get('model', '?')}, stepping {info.get('stepping', '?')})")


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                keep = ["avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"]
                return [f for f in keep if f in flags]
    except OSError:
        pass
    return []


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


def arguments(entry):
    """The arguments of a manifest entry, in ENTRY parameter order, as numpy arrays."""
    out = []
    for i, p in enumerate(entry["params"]):
        ty, dims = p["shape"].split("[")
        shape = tuple(int(d) for d in dims.rstrip("]").split(",") if d)
        out.append(make.fill(p["init"], ty, shape, np.random.default_rng([entry["seed"], i])))
    return out


def run_xla(text, args, runs):
    """Converts, compiles and executes the module on XLA:CPU: (outputs, timings)."""
    t0 = time.perf_counter()
    _, mlir = to_stablehlo(text)
    t1 = time.perf_counter()
    dev = jax.devices("cpu")[0]
    client = dev.client
    opts = xc.CompileOptions()
    build = opts.executable_build_options
    build.num_replicas = 1
    build.num_partitions = 1
    arrays = [jax.device_put(a, dev) for a in args]
    for a in arrays:
        a.block_until_ready()
    t2 = time.perf_counter()
    exe = client.compile_and_load(mlir, xc.DeviceList((dev,)), opts)
    t3 = time.perf_counter()

    def execute():
        res = exe.execute_sharded(arrays).disassemble_into_single_device_arrays()
        outs = [r[0] for r in res]
        for o in outs:
            o.block_until_ready()
        return outs

    outs = execute()
    t4 = time.perf_counter()
    best = t4 - t3
    times = [best]
    for _ in range(runs):
        s = time.perf_counter()
        outs = execute()
        times.append(time.perf_counter() - s)
    best = min(times[1:]) if runs else best
    return [np.asarray(o) for o in outs], {
        "xla_convert_ms": ms(t1 - t0),
        "xla_compile_ms": ms(t3 - t2),
        "xla_first_execute_ms": ms(t4 - t3),
        "xla_compile_execute_ms": ms(t4 - t2),
        "xla_execute_ms": ms(best),
        "xla_execute_runs_ms": [ms(t) for t in times[1:]],
    }


def run_spec(binary, hlo_path, in_path, out_path, runs, budget):
    """`xla-spec run` as a user runs it: (error or None, timings)."""
    times = []
    spent = 0.0
    for i in range(runs):
        s = time.perf_counter()
        r = subprocess.run([binary, "run", hlo_path, "--args", in_path, "--out", out_path, "--force"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        dt = time.perf_counter() - s
        if r.returncode != 0:
            return f"exit {r.returncode}: {r.stderr.strip()}", {"xla_spec_run_ms": None}
        times.append(dt)
        spent += dt
        if spent > budget and i + 1 < runs:
            break
    return None, {"xla_spec_run_ms": ms(min(times)), "xla_spec_runs_ms": [ms(t) for t in times]}


def spec_eval(binary, name, runs):
    """Evaluation alone, in process, on the arguments this script wrote (None if it fails)."""
    r = subprocess.run([binary, "bench", "--programs", "--json", "--filter", name, "--reps", str(runs),
                        "--args-dir", OUT_DIR], capture_output=True, text=True, cwd=ROOT)
    for line in r.stdout.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("program") == name:
            return round(o["eval_ms"], 2)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("filter", nargs="?", default="", help="only programs whose name contains this")
    ap.add_argument("--xla-runs", type=int, default=5, help="timed XLA:CPU executions (best of)")
    ap.add_argument("--spec-runs", type=int, default=3, help="timed xla-spec runs (best of)")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="stop repeating a program's xla-spec runs once they took this many seconds")
    ap.add_argument("--no-spec", action="store_true", help="time XLA:CPU only")
    ap.add_argument("--save", metavar="FILE", help="also write a record (benches/record.py) for the book")
    opts = ap.parse_args()
    binary = os.environ.get("XLA_SPEC", os.path.join(ROOT, "target", "release", "xla-spec"))
    if not opts.no_spec and not os.access(binary, os.X_OK):
        sys.exit(f"no xla-spec binary at {binary}: build it (cargo build --release) or set XLA_SPEC")
    manifest = json.load(open(os.path.join(HERE, "programs", "programs.json")))
    os.makedirs(OUT_DIR, exist_ok=True)
    trip0 = record.round_trip(binary)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = load_average()
    rows = []
    for entry in manifest["programs"]:
        name = entry["name"]
        if opts.filter not in name:
            continue
        hlo_path = os.path.join(ROOT, entry["file"])
        in_path = os.path.join(OUT_DIR, f"{name}.in.npz")
        out_path = os.path.join(OUT_DIR, f"{name}.out.npz")
        args = arguments(entry)
        make.save_args(in_path, args)
        row = {"program": name}
        text = open(hlo_path).read()
        try:
            want, xt = run_xla(text, args, opts.xla_runs)
            row.update({"xla_execute_ms": xt["xla_execute_ms"],
                        "xla_compile_execute_ms": xt["xla_compile_execute_ms"]})
        except Exception as e:  # report it and go on with the others
            want, xt = None, {}
            row["xla_error"] = f"{type(e).__name__}: {e}"[:2000]
        if not opts.no_spec:
            err, st = run_spec(binary, hlo_path, in_path, out_path, opts.spec_runs, opts.budget)
            row["xla_spec_run_ms"] = st["xla_spec_run_ms"]
            if err:
                row["xla_spec_error"] = err[:2000]
                row["agree"] = False
            elif want is not None:
                diff = make.compare(name, make.load_out(out_path), want, entry["tolerance"])
                row["agree"] = diff is None
                if diff:
                    row["disagreement"] = diff
            row["xla_spec_eval_ms"] = spec_eval(binary, name, opts.spec_runs)
            if row.get("xla_spec_run_ms") and row.get("xla_execute_ms"):
                row["ratio"] = round(row["xla_spec_run_ms"] / row["xla_execute_ms"], 2)
            row.update({k: v for k, v in st.items() if k != "xla_spec_run_ms"})
        row.update({k: v for k, v in xt.items() if k not in row})
        row["load_average"] = load_average()
        rows.append(row)
        print(json.dumps(row), flush=True)

    finished = datetime.datetime.now(datetime.timezone.utc)
    trip1 = record.round_trip(binary)
    print()
    print(f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs; {', '.join(cpu_flags())}); "
          f"jaxlib {jaxlib.__version__}; xla-spec: {binary}")
    print(f"Date: {started:%Y-%m-%d %H:%M}–{finished:%H:%M} UTC; load average (1, 5, 15 min) "
          f"{' '.join(map(str, load_before))} at the start, {' '.join(map(str, load_average()))} at the end")
    print(f"Best of {opts.xla_runs} XLA:CPU executions, best of up to {opts.spec_runs} xla-spec runs "
          f"(fewer past {opts.budget:g} s per program).")
    print()
    if opts.save:
        method = (f"milliseconds; XLA:CPU (jaxlib {jaxlib.__version__}) executes the HLO text compiled once, "
                  f"best of {opts.xla_runs}; xla-spec evaluates it in process (`xla-spec bench "
                  f"--programs`) and runs it as a whole process (`xla-spec run` with .npz arguments "
                  f"and results), best of up to {opts.spec_runs}, right after, program by program")
        record.save(opts.save, "programs", rows, started, finished,
                    [load_before[0], load_average()[0]], ROOT, method, [trip0, trip1])
    print("| program | xla-spec eval (ms) | xla-spec run (ms) | XLA:CPU execute (ms) | XLA:CPU compile + execute (ms) | ratio eval / execute | ratio run / execute | agree |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        def f(k):
            v = r.get(k)
            return "–" if v is None else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")
        ratio = r.get("ratio")
        agree = "yes" if r.get("agree") else ("**no**" if "agree" in r else "–")
        ev, ex = r.get("xla_spec_eval_ms"), r.get("xla_execute_ms")
        eratio = f"{ev / ex:.1f}x" if ev and ex else "–"
        print(f"| {r['program']} | {f('xla_spec_eval_ms')} | {f('xla_spec_run_ms')} | {f('xla_execute_ms')} "
              f"| {f('xla_compile_execute_ms')} | {eratio} | {'–' if ratio is None else f'{ratio:.1f}x'} | {agree} |")
    bad = [r["program"] for r in rows if r.get("agree") is False or "xla_error" in r]
    if bad:
        print(f"\nfailed or disagreed: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
