#!/usr/bin/env bash
# xla-spec's Dot/Convolution kernels next to OpenBLAS (numpy) and XLA:CPU (jax), case by case, in
# one run (see benches/linalg_compare.py). Reuses benches/linalg_peers.sh's venv and pins.
#   benches/linalg_compare.sh [FILTER]       (XLA_SPEC=..., REPS=... to change the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/linalg_venv.sh
exec "$venv/bin/python" benches/linalg_compare.py "$@"
