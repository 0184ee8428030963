#!/usr/bin/env bash
# Prepares the StableHLO interpreter adapter: the interpreter ships in the same pinned jaxlib as the
# XLA adapter's, so this reuses (and, when missing, creates) target/xla-venv from
# backends/xla/requirements.txt. Prints the backend command to pass to `xla-spec conform`.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/xla-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r backends/xla/requirements.txt
"$venv/bin/python" backends/stablehlo/stablehlo_backend.py --version >&2
echo "$venv/bin/python backends/stablehlo/stablehlo_backend.py"
