"""Runs one criterion benchmark of ours and writes its medians as a record for the book.

    python3 benches/criterion_record.py elementwise --save benches/results/NAME.json [-- ARGS]

runs `cargo bench --bench elementwise -- ARGS`, then reads criterion's estimates
(target/criterion/<group>/<benchmark>/new/) of every benchmark of that run and writes a record
(benches/record.py, kind "throughput"): per benchmark its group, median time, the bytes it reads
and writes (the benchmark's declared throughput) and GiB/s, and how many times slower it is than
the plain memory copy measured in the same run (the group's own `memcpy*` benchmark, else the one
in the `baseline` group). The book's performance pages render the committed records.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import record  # noqa: E402


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if len(argv) != 3 or argv[1] != "--save":
        sys.exit(__doc__)
    bench, save = argv[0], argv[2]
    crit = os.path.join(ROOT, "target", "criterion")
    started = record.now()
    load0 = os.getloadavg()[0]
    t0 = started.timestamp()
    subprocess.run(["cargo", "bench", "--bench", bench, "--", *extra], cwd=ROOT, check=True)
    finished = record.now()
    load1 = os.getloadavg()[0]
    rows = []
    for dirpath, _, files in os.walk(crit):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in files:
            continue
        # Only what this run measured.
        if os.path.getmtime(os.path.join(dirpath, "estimates.json")) < t0:
            continue
        meta = json.load(open(os.path.join(dirpath, "benchmark.json")))
        est = json.load(open(os.path.join(dirpath, "estimates.json")))
        ns = est["median"]["point_estimate"]
        thr = meta.get("throughput") or {}
        nbytes = thr.get("Bytes") or thr.get("BytesDecimal")
        rows.append({
            "group": meta["group_id"],
            "name": meta["function_id"] or meta["title"],
            "median_ms": round(ns / 1e6, 3),
            "bytes": nbytes,
            "gib_s": round(nbytes / (ns / 1e9) / 2**30, 2) if nbytes else None,
        })

    def copy_rate(group):
        for g in (group, "baseline"):
            for r in rows:
                if r["group"] == g and r["name"].startswith("memcpy") and "fresh" not in r["name"] \
                        and r["gib_s"]:
                    return r["gib_s"]
        return None

    for r in rows:
        c = copy_rate(r["group"])
        r["times_copy"] = round(c / r["gib_s"], 2) if c and r["gib_s"] else None
    rows.sort(key=lambda r: (r["group"] != "baseline", r["group"], not r["name"].startswith("memcpy"),
                             r["name"]))
    method = (f"criterion medians of `cargo bench --bench {bench}`; GiB/s count every byte read and "
              f"written as the benchmark declares; 'times the copy' divides the memory copy's GiB/s "
              f"in the same run by the row's")
    record.save(save, "throughput", rows, started, finished, [load0, load1], ROOT, method)


if __name__ == "__main__":
    main()
