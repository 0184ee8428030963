#!/usr/bin/env bash
# xla-spec's GEMM against OpenBLAS's (NumPy's build), timed in pairs in one process (see
# benches/gemm_pairs.rs). Reuses benches/linalg_compare.sh's venv and pins.
#   benches/gemm_pairs.sh [FILTER] [--rounds N] [--pause MS] [--save FILE]
# One thread: RAYON_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 taskset -c 1 benches/gemm_pairs.sh ...
# The AVX2 paths on an AVX-512 machine: XLA_SPEC_GEMM_KERNEL=avx2 OPENBLAS_CORETYPE=Haswell.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/linalg_venv.sh
lib=$("$venv/bin/python" - <<'PY'
import glob, os, numpy
root = os.path.dirname(os.path.dirname(numpy.__file__))
libs = sorted(glob.glob(os.path.join(root, "numpy.libs", "libscipy_openblas64_*.so*")))
print(libs[0] if libs else "")
PY
)
if [ -z "$lib" ]; then
  echo "gemm_pairs.sh: NumPy's OpenBLAS library not found under $venv" >&2
  exit 2
fi
# --save FILE: the bench writes its rows to a scratch file, wrapped here into a record (machine,
# dates, load, commit: benches/record.py) that the book's performance page renders.
args=() save=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--save" ]; then
    [ $# -ge 2 ] || { echo "gemm_pairs.sh: --save needs a file" >&2; exit 2; }
    save=$2
    shift 2
  else
    args+=("$1")
    shift
  fi
done
if [ -z "$save" ]; then
  OPENBLAS_LIB="$lib" exec cargo bench --bench gemm_pairs -- "${args[@]}"
fi
if [ -e "$save" ]; then
  echo "gemm_pairs.sh: $save exists; not overwritten" >&2
  exit 2
fi
rows=target/gemm-pairs-rows.json
rm -f "$rows"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load0=$(cut -d' ' -f1 /proc/loadavg)
OPENBLAS_LIB="$lib" cargo bench --bench gemm_pairs -- "${args[@]}" --rows "$rows"
load1=$(cut -d' ' -f1 /proc/loadavg)
"$venv/bin/python" - "$save" "$rows" "$started" "$load0" "$load1" <<'PY'
import datetime, json, os, sys
sys.path.insert(0, "benches")
import record
save, rows, started, load0, load1 = sys.argv[1:]
data = json.load(open(rows))
start = datetime.datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ")
record.save(save, "pairs", data["rows"], start, record.now(), [float(load0), float(load1)],
            os.getcwd(), data["method"])
PY
