#!/usr/bin/env bash
# Side-by-side peers for `xla-spec bench`: numpy (OpenBLAS) matmul and jax (XLA:CPU) dot and
# convolution on the same named shapes, as GFLOP/s, one JSON object per line. Creates a venv under
# target/linalg-venv with pinned numpy and jax from PyPI (nothing is installed system-wide).
#   benches/linalg_peers.sh            # all cases
#   benches/linalg_peers.sh dot_f32    # cases whose name contains the text
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/linalg_venv.sh
exec "$venv/bin/python" benches/linalg_peers.py "${1:-}"
