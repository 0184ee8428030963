#!/usr/bin/env bash
# Side-by-side peers for `xla-spec bench`: numpy (OpenBLAS) matmul and jax (XLA:CPU) dot and
# convolution on the same named shapes, as GFLOP/s, one JSON object per line. Creates a venv under
# target/linalg-venv with pinned numpy and jax from PyPI (nothing is installed system-wide).
#   benches/linalg_peers.sh            # all cases
#   benches/linalg_peers.sh dot_f32    # cases whose name contains the text
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/linalg-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  numpy==2.4.6 jax==0.10.2 jaxlib==0.10.2 ml_dtypes==0.6.0 scipy==1.17.1 opt_einsum==3.4.0
exec "$venv/bin/python" benches/linalg_peers.py "${1:-}"
