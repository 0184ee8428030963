#!/usr/bin/env bash
# Whole programs side by side: XLA:CPU (jaxlib) and `xla-spec run` on the same HLO text files
# (benches/programs/*.hlo), one JSON object per program and a markdown table at the end. Creates
# or reuses the venv of benches/linalg_peers.sh (target/linalg-venv, pinned versions from PyPI;
# nothing is installed system-wide). The xla-spec binary is $XLA_SPEC, default
# target/release/xla-spec.
#   benches/programs_peers.sh                    # every program
#   benches/programs_peers.sh attention          # programs whose name contains the text
#   benches/programs_peers.sh --xla-runs 10 --spec-runs 5 --budget 60
#   benches/programs_peers.sh --regenerate       # rewrite benches/programs/*.hlo first (make.py)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/linalg_venv.sh
if [ "${1:-}" = "--regenerate" ]; then
  shift
  "$venv/bin/python" benches/programs/make.py
fi
exec "$venv/bin/python" benches/programs_peers.py "$@"
