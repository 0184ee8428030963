#!/usr/bin/env python3
"""Where `xla-spec run` spends its CPU time on a benchmark program, by kind of work, from `perf`.

Records `perf record --call-graph dwarf` (software cpu-clock event, so it works in VMs without
hardware counters) over --runs runs of

    $XLA_SPEC run benches/programs/NAME.hlo --args target/bench-programs/NAME.in.npz --out ... --force

(the arguments benches/programs_peers.py writes; run it first), then sorts every sample into one
category by the frames of its stack (inlined frames included), and prints the share of CPU time
per category, per thread kind and the top leaf functions. The categories:

  gemm micro-kernel     the register-tiled FMA loop (kernels::gemm::simd)
  gemm packing/driver   the rest of kernels::gemm (packing A and B panels, C updates)
  conv (im2col gather)  kernels::conv outside the GEMM (window-offset tables, panel gathers)
  elementwise           eval::elementwise (maps, select, compare, convert, clamp...)
  reduce                eval::reduction (reduce, reduce-window, select-and-scatter, argmax...)
  movement              eval::movement (broadcast, transpose, reshape copies, slice, concatenate,
                        pad, gather/scatter as copies...) and kernels::pool
  indexing              eval::indexing (gather, scatter, dynamic-slice...)
  literal clone         copies of whole literals (ArrayData::clone)
  npz read / npz write  literal::npy (decoding, CRC, writing the archive)
  parse+verify          the HLO text parser and verifier
  kernel: page faults   first touch of freshly mapped memory (clear_page, do_anonymous_page...):
                        the price of a fresh allocation per op; attributed to the category of the
                        user frames above it in a second table
  kernel: munmap/exit   returning memory and process teardown
  kernel: file I/O      read/write system calls (the .npz and .hlo files)
  process start         the dynamic loader and runtime start-up before main
  threads idle/sched    rayon's and the scheduler's own frames (work stealing, sleeping)
  libc memset/memmove   zeroing or copying with no xla-spec frame in the (truncated) stack
  other

    target/linalg-venv/bin/python benches/programs/perf_summary.py mlp_train [--runs 8]

perf's DWARF unwinding copies 64 KiB of stack per sample; some stacks are still truncated, and
their samples are classified by their leaf frames only.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# (category, regex over one frame), checked in this order against every frame of the stack.
RULES = [
    # the dynamic loader only: every main-thread stack ends in __libc_start_main, so that is no sign
    ("process start", r"_dl_start|_dl_relocate|dl_main|_dl_sysdep_start|_dl_init|execve|load_elf_binary|begin_new_exec"),
    ("gemm micro-kernel", r"kernels::gemm::simd|body<xla_spec::kernels::gemm"),
    ("conv (im2col gather)", r"kernels::conv"),
    ("gemm packing/driver", r"kernels::gemm"),
    ("npz read", r"npy::(Npz::read_args|read_npz_args|read_typed|array_from_npy|read_npy)"),
    ("npz write", r"npy::(write_npz|write_array|write_npy)"),
    ("parse+verify", r"xla_spec::(hlo::parser|syntax::|verify::)"),
    ("literal clone", r"ArrayData as core::clone::Clone"),
    ("indexing", r"eval::indexing"),
    ("movement", r"eval::movement|kernels::pool"),
    ("reduce", r"eval::reduction"),
    ("elementwise", r"eval::elementwise"),
]
KERNEL_RULES = [
    ("kernel: page faults", r"exc_page_fault|asm_exc_page_fault|clear_page|do_anonymous_page|handle_mm_fault"),
    ("kernel: munmap/exit", r"munmap|do_exit|exit_mmap|unmap_page|unmap_vmas|tlb_finish|release_pages"),
    ("kernel: file I/O", r"ksys_read|ksys_write|vfs_read|vfs_write|_copy_to_iter|filemap|copy_folio|__x64_sys_(read|write|pread|openat|close)"),
]
LEAF_RULES = [
    ("libc memset/memmove", r"__mem(set|move|cpy)"),
    ("threads idle/sched", r"rayon|crossbeam|futex|schedule|finish_task_switch|sched_yield|_raw_spin_unlock|std::thread"),
    ("libm", r"libm\.so|exp@@|__ieee754"),
]


def classify(frames):
    """(category, owner): owner is the user-space category under a kernel frame."""
    user = None
    for name, rx in RULES:
        if any(re.search(rx, f) for f in frames):
            user = name
            break
    leaf_is_kernel = frames and "[kernel.kallsyms]" in frames[0]
    if leaf_is_kernel:
        for name, rx in KERNEL_RULES:
            if any(re.search(rx, f) for f in frames if "[kernel.kallsyms]" in f):
                return name, user or "?"
    if user:
        return user, user
    for name, rx in LEAF_RULES:
        if frames and re.search(rx, frames[0]):
            return name, name
    if leaf_is_kernel:
        return "kernel: other", "?"
    return "other", "other"


def parse_script(text):
    for block in text.split("\n\n"):
        lines = [l for l in block.strip("\n").split("\n") if l.strip()]
        if len(lines) < 2:
            continue
        head = lines[0].split()
        comm, period = head[0], int(head[-1]) if head[-1].isdigit() else 1
        frames = [re.sub(r"^\s*[0-9a-f]+\s+", "", l).strip() for l in lines[1:]]
        yield comm, period, frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--freq", type=int, default=1999)
    ap.add_argument("--keep", help="keep the perf script output here")
    ap.add_argument("--from-script", help="summarise an existing perf script output instead of recording")
    ap.add_argument("--top", type=int, default=25)
    opts = ap.parse_args()
    binary = os.environ.get("XLA_SPEC", os.path.join(ROOT, "target", "release", "xla-spec"))
    out_dir = os.path.join(ROOT, "target", "bench-programs")
    if opts.from_script:
        text = open(opts.from_script).read()
        wall = None
    else:
        hlo = os.path.join(ROOT, "benches", "programs", opts.program + ".hlo")
        npz = os.path.join(out_dir, opts.program + ".in.npz")
        if not os.path.exists(npz):
            sys.exit(f"{npz} is missing: run benches/programs_peers.sh {opts.program} first")
        data = os.path.join(out_dir, opts.program + ".perf.data")
        cmd = " ; ".join([f"{binary} run {hlo} --args {npz} --out {out_dir}/{opts.program}.perf-out.npz --force >/dev/null"] * opts.runs)
        t = time.perf_counter()
        subprocess.run(["perf", "record", "-q", "-F", str(opts.freq), "--call-graph", "dwarf,65528", "-o", data,
                        "--", "sh", "-c", cmd], check=True)
        wall = (time.perf_counter() - t) / opts.runs
        text = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,period,ip,sym,dso"],
                              capture_output=True, text=True, check=True).stdout
        if opts.keep:
            open(opts.keep, "w").write(text)
    cats = collections.Counter()
    owners = collections.Counter()
    threads = collections.Counter()
    leaves = collections.Counter()
    total = 0
    for comm, period, frames in parse_script(text):
        if comm in ("sh", "bash", "perf"):
            continue
        cat, owner = classify(frames)
        cats[cat] += period
        if cat.startswith("kernel:"):
            owners[(cat, owner)] += period
        threads[comm] += period
        leaf = re.sub(r"\s*\(.*\)$", "", frames[0])
        leaf = re.sub(r"<.*>", "<..>", leaf)[:110]
        leaves[(leaf, cat)] += period
        total += period
    cpu_ms = total / 1e6 / max(1, opts.runs)  # with --from-script, --runs says how many runs it holds
    print(f"{opts.program}: {total / 1e6:.0f} ms of CPU samples over {opts.runs} runs, {cpu_ms:.0f} ms CPU per run"
          + (f", {wall * 1e3:.0f} ms wall per run" if wall else "")
          + f"; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n| category | share of CPU time | ms CPU per run |\n|---|---:|---:|")
    for cat, v in cats.most_common():
        print(f"| {cat} | {100 * v / total:.1f}% | {v / 1e6 / opts.runs:.1f} |")
    if owners:
        print("\nkernel time by the user-space work above it:")
        for (cat, owner), v in owners.most_common(12):
            print(f"  {100 * v / total:5.1f}%  {cat} under {owner}")
    print("\nby thread:")
    for comm, v in threads.most_common():
        print(f"  {100 * v / total:5.1f}%  {comm}")
    print(f"\ntop {opts.top} leaf functions:")
    for (leaf, cat), v in leaves.most_common(opts.top):
        print(f"  {100 * v / total:5.1f}%  {leaf}  [{cat}]")


if __name__ == "__main__":
    main()
