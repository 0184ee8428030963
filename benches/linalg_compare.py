"""xla-spec's Dot/Convolution kernels next to OpenBLAS (numpy) and XLA:CPU (jax), case by case.

For every case of `xla-spec bench` (all, or those whose name contains FILTER), runs xla-spec on it
and then its peers on the same shape, one case after the other, so that all three see the machine
in the same state; prints one JSON object per case and line, then a markdown table with the ratios
and the machine (CPU model and flags, cores, caches, date, load average) the figures belong to.
Run through benches/linalg_compare.sh, which pins the Python packages:

    benches/linalg_compare.sh                 # every case
    benches/linalg_compare.sh dot_f32_m       # the cases whose name contains the text
    XLA_SPEC=target/release/xla-spec REPS=5 benches/linalg_compare.sh
    benches/linalg_compare.sh "" --save benches/results/NAME.json   # also a record for the book

A record (benches/record.py) holds the rows with the machine, the dates, the load and the commit;
the book's performance page renders the committed ones (tables and a GFLOP/s-against-size plot).

GFLOP/s are the best of REPS runs (default 3) after a warm-up, counting a multiply-add as two;
each row also keeps every round's figures (`rounds`), and the table adds the median over rounds of
their ratios.
"""
import datetime
import io
import json
import os
import subprocess
import sys
import time
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import linalg_peers  # noqa: E402
import record  # noqa: E402


def main():
    argv = sys.argv[1:]
    save = None
    if "--save" in argv:
        i = argv.index("--save")
        if i + 1 >= len(argv):
            sys.exit("--save takes a file name")
        save = argv[i + 1]
        del argv[i:i + 2]
    filt = argv[0] if argv else ""
    spec = os.environ.get("XLA_SPEC", os.path.join(ROOT, "target", "release", "xla-spec"))
    reps = os.environ.get("REPS", "3")
    names = [n for n, _ in linalg_peers.CASES if filt in n]
    trip0 = record.round_trip(spec)
    start = datetime.datetime.now(datetime.timezone.utc)
    load0 = os.getloadavg()
    rows = []
    rounds = int(os.environ.get("ROUNDS", "2"))
    for name in names:
        best = {"xla_spec": None, "kernel": None, "openblas": None, "xla_cpu": None}

        def keep(key, value):
            if value is not None and (best[key] is None or value > best[key]):
                best[key] = value

        # Rounds alternate xla-spec and its peers, each keeping its best, so that a passing
        # disturbance of the shared machine costs both sides alike. The peers go first: they time
        # small products over more repetitions (linalg_peers.dot_case: 10 below one GFLOP), and
        # xla-spec then gets at least as many, so neither side's best is of fewer tries.
        # Each round's own figures too: a round's peers and xla-spec run seconds apart, so the
        # median over rounds of their ratio pairs figures from the same state of a shared
        # machine, where the best of each side may come from different spells.
        per_round = []
        for _ in range(rounds):
            this = {"xla_spec": None, "openblas": None, "xla_cpu": None}
            buf = io.StringIO()
            with redirect_stdout(buf):
                dict(linalg_peers.CASES)[name](name)
            peer_reps = 0
            for p in map(json.loads, buf.getvalue().splitlines()):
                key = {"numpy-openblas": "openblas", "jax-xla-cpu": "xla_cpu"}[p["peer"]]
                keep(key, p["gflops"])
                this[key] = p["gflops"]
                peer_reps = max(peer_reps, int(p.get("reps", 0)))
            # The peers' worker threads spin for a while after their last call (OpenBLAS's and
            # Eigen's pools do): give them time to sleep before xla-spec runs beside them.
            time.sleep(1.0)
            n = str(max(int(reps), peer_reps))
            out = subprocess.run([spec, "bench", "--json", "--filter", name, "--reps", n],
                                 capture_output=True, text=True, check=True).stdout
            for o in map(json.loads, filter(str.strip, out.splitlines())):
                if o["name"] == name:
                    keep("xla_spec", o["fast_gflops"])
                    this["xla_spec"] = o["fast_gflops"]
                    best["kernel"] = o["kernel"]
            per_round.append(this)
        row = {"name": name, **best, "rounds": per_round}
        print(json.dumps(row), flush=True)
        rows.append(row)
    end = datetime.datetime.now(datetime.timezone.utc)
    load1 = os.getloadavg()
    trip1 = record.round_trip(spec)
    m = record.machine()
    if save:
        method = (f"GFLOP/s (a multiply-add counts two), best of {rounds} rounds alternating xla-spec "
                  f"(`xla-spec bench`, best of {reps} runs after a warm-up, or of as many as the "
                  f"peers made when they made more) and its peers "
                  f"(benches/linalg_peers.py: numpy {linalg_peers.np.__version__} matmul on its "
                  f"bundled OpenBLAS, jax {getattr(linalg_peers.jax, '__version__', '(absent)')} jitted on XLA:CPU, best of "
                  f"3 to 10 runs), case after case; the median of rounds is the median over the rounds of "
                  f"each round's ratio")
        # A run that restricts the instruction sets (to measure the AVX2 paths on a machine with
        # AVX-512) says so, since its figures are not the machine's best.
        forced = [f"{k}={os.environ[k]}" for k in ("XLA_SPEC_GEMM_KERNEL", "OPENBLAS_CORETYPE", "XLA_FLAGS")
                  if os.environ.get(k)]
        if forced:
            method += "; instruction sets restricted: " + ", ".join(forced)
        record.save(save, "linalg", rows, start, end, [load0[0], load1[0]], ROOT, method,
                    [trip0, trip1])
    print()
    print(f"CPU: {m['model']} (family {m['family']}, model {m['model_number']}); "
          f"{m['cpus']} CPUs; flags {' '.join(m['flags'])}; caches {', '.join(m['caches'])}; "
          f"core round trip {trip0} ns at the start, {trip1} ns at the end")
    print(f"Date: {start:%Y-%m-%d %H:%M}-{end:%H:%M} UTC; load average {load0[0]:.2f} at the start, "
          f"{load1[0]:.2f} at the end; best of {rounds} rounds of {reps} runs or the peers' count if higher (xla-spec) and of "
          f"3 to 10 runs (peers)")
    print()
    print("| case | xla-spec GFLOP/s (kernel) | OpenBLAS | XLA:CPU | vs OpenBLAS | vs XLA:CPU "
          "| vs OpenBLAS, median of rounds | vs XLA:CPU, median of rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "–"

    def round_median(r, peer):
        q = sorted(x["xla_spec"] / x[peer] for x in r["rounds"] if x["xla_spec"] and x[peer])
        if not q:
            return "–"
        mid = len(q) // 2
        return f"{(q[mid] if len(q) % 2 else (q[mid - 1] + q[mid]) / 2):.2f}"

    for r in rows:
        print(f"| `{r['name']}` | {r['xla_spec'] or '–'} ({r['kernel']}) | {r['openblas'] or '–'} | "
              f"{r['xla_cpu'] or '–'} | {ratio(r['xla_spec'], r['openblas'])} | "
              f"{ratio(r['xla_spec'], r['xla_cpu'])} | {round_median(r, 'openblas')} | "
              f"{round_median(r, 'xla_cpu')} |")


if __name__ == "__main__":
    main()
