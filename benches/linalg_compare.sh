#!/usr/bin/env bash
# xla-spec's Dot/Convolution kernels next to OpenBLAS (numpy) and XLA:CPU (jax), case by case, in
# one run (see benches/linalg_compare.py). Reuses benches/linalg_peers.sh's venv and pins.
#   benches/linalg_compare.sh [FILTER]       (XLA_SPEC=..., REPS=... to change the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/linalg-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  numpy==2.4.6 jax==0.10.2 jaxlib==0.10.2 ml_dtypes==0.6.0 scipy==1.17.1 opt_einsum==3.4.0
exec "$venv/bin/python" benches/linalg_compare.py "$@"
