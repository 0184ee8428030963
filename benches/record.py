"""Measurement records: what a comparison script measured, and on which machine, as one JSON file.

The book's performance page draws its tables and plots from these files (a ```` ```perf-record ````
fence names one; `xla-spec book` renders it), so a figure in the book always carries the machine,
the date, the load and the commit it was measured at, and the peers measured in the same run.

    {"kind": "linalg" | "programs" | "pairs", "machine": {...}, "started": "...Z", "finished": "...Z",
     "load": [before, after], "commit": "abc1234", "method": "...", "rows": [{...}, ...]}

`machine` holds the CPU model, family and model numbers, the SIMD flags that pick our kernels, the
logical CPU count, the data caches of CPU 0 (sysfs) and, when measured, the round trip of a cache
line between the first two CPUs at the start and the end of the run (`core_round_trip_ns`).
"""
import datetime
import json
import os
import subprocess

FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16")


def machine():
    info = {"model": "?", "family": "?", "model_number": "?", "flags": []}
    try:
        with open("/proc/cpuinfo") as f:
            seen = set()
            for line in f:
                k, _, v = line.partition(":")
                k, v = k.strip(), v.strip()
                if k in seen:
                    continue
                if k == "model name":
                    info["model"] = v
                elif k == "cpu family":
                    info["family"] = v
                elif k == "model":
                    info["model_number"] = v
                elif k == "flags":
                    info["flags"] = [x for x in FLAGS if x in v.split()]
                else:
                    continue
                seen.add(k)
    except OSError:
        pass
    info["cpus"] = os.cpu_count()
    caches = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            read = lambda n: open(f"{base}/{d}/{n}").read().strip()  # noqa: E731
            if read("type") != "Instruction":
                caches.append(f"L{read('level')} {read('size')}")
        except OSError:
            pass
    info["caches"] = caches
    return info


def commit(root):
    try:
        out = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, check=True).stdout.strip()
        return out or "?"
    except (OSError, subprocess.CalledProcessError):
        return "?"


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def round_trip(spec):
    """The time a cache line takes between the first two CPUs and back (`xla-spec bench
    --round-trip`), in ns, or None: the guest's topology does not show whether the two virtual
    CPUs share an L3, and the answer moved within a session (114-125 against 404 ns)."""
    try:
        out = subprocess.run([spec, "bench", "--round-trip", "--json"], capture_output=True,
                             text=True, timeout=60, check=True).stdout
        return json.loads(out).get("core_round_trip_ns")
    except (OSError, subprocess.SubprocessError, ValueError, AttributeError):
        return None


def save(path, kind, rows, started, finished, load, root, method, trips=None):
    """Writes a record (to a temporary name, then renamed, so a reader never sees half a file).
    `trips`: the core round trips (`round_trip`) at the start and at the end, if measured."""
    m = machine()
    if trips and any(t is not None for t in trips):
        m["core_round_trip_ns"] = list(trips)
    rec = {
        "kind": kind,
        "machine": m,
        "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "finished": finished.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "load": [round(x, 2) for x in load],
        "commit": commit(root),
        "method": method,
        "rows": rows,
    }
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    print(f"record written to {path}")
