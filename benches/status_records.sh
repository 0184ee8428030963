#!/usr/bin/env bash
# Every record that the performance page's status table of one machine kind draws on, taken in
# one sitting, and the `perf-status` fence that names them:
#   benches/status_records.sh benches/results/DATE-MACHINE
# writes DATE-MACHINE-{gemm-pairs,gemm-pairs-1thread}.json (the kernels this CPU picks; on a CPU
# with AVX-512 also -gemm-pairs-avx2 and -gemm-pairs-avx2-1thread, the AVX2 path against
# OpenBLAS's Haswell kernels), -linalg-conv.json (the convolutions against XLA:CPU, three rounds),
# -programs.json (the recorded programs against XLA:CPU, ten runs a side), -elementwise.json and
# -reduction.json (criterion, against a memory copy), then prints the fence for
# book/src/performance.md. About half an hour on two cores; run nothing else meanwhile. No file
# is overwritten: the run stops before it starts if any of them exists.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: benches/status_records.sh benches/results/DATE-MACHINE" >&2
  exit 2
fi
prefix=$1
avx512=no
grep -qw avx512f /proc/cpuinfo && avx512=yes
names=(gemm-pairs gemm-pairs-1thread linalg-conv programs elementwise reduction)
[ "$avx512" = yes ] && names+=(gemm-pairs-avx2 gemm-pairs-avx2-1thread)
for n in "${names[@]}"; do
  if [ -e "$prefix-$n.json" ]; then
    echo "status_records.sh: $prefix-$n.json exists; nothing was run" >&2
    exit 2
  fi
done
one=(env RAYON_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 taskset -c 1)
avx2=(env XLA_SPEC_GEMM_KERNEL=avx2 OPENBLAS_CORETYPE=Haswell)
cpus=$(nproc)

benches/gemm_pairs.sh dot_ --rounds 15 --save "$prefix-gemm-pairs.json"
"${one[@]}" benches/gemm_pairs.sh dot_ --rounds 15 --save "$prefix-gemm-pairs-1thread.json"
if [ "$avx512" = yes ]; then
  "${avx2[@]}" benches/gemm_pairs.sh dot_ --rounds 15 --save "$prefix-gemm-pairs-avx2.json"
  "${avx2[@]}" "${one[@]}" benches/gemm_pairs.sh dot_ --rounds 15 \
    --save "$prefix-gemm-pairs-avx2-1thread.json"
fi
ROUNDS=3 benches/linalg_compare.sh conv --save "$prefix-linalg-conv.json"
benches/programs_peers.sh --xla-runs 10 --spec-runs 10 --save "$prefix-programs.json"
python3 benches/criterion_record.py elementwise --save "$prefix-elementwise.json"
python3 benches/criterion_record.py reduction --save "$prefix-reduction.json"

path=AVX2
[ "$avx512" = yes ] && path=AVX-512
echo
echo "The status fence for book/src/performance.md:"
echo '```perf-status'
echo "gemm | $path, $cpus threads | $prefix-gemm-pairs.json"
echo "gemm | $path, one thread | $prefix-gemm-pairs-1thread.json"
if [ "$avx512" = yes ]; then
  echo "gemm | AVX2, $cpus threads | $prefix-gemm-pairs-avx2.json"
  echo "gemm | AVX2, one thread | $prefix-gemm-pairs-avx2-1thread.json"
fi
echo "conv | $path, $cpus threads | $prefix-linalg-conv.json"
echo "programs | $cpus threads | $prefix-programs.json"
echo "throughput | element-wise | $prefix-elementwise.json"
echo "throughput | reductions and windows | $prefix-reduction.json"
echo '```'
