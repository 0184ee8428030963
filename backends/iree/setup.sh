#!/usr/bin/env bash
# Creates (or updates) the IREE adapter's Python environment under target/iree-venv from
# backends/iree/requirements.txt: pinned IREE compiler and runtime, and the jaxlib the shared
# HLO-to-StableHLO import needs (its own venv, so the XLA adapter's target/xla-venv is untouched;
# nothing is installed system-wide). Prints the backend command to pass to `xla-spec conform`.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/iree-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r backends/iree/requirements.txt
"$venv/bin/python" backends/iree/iree_backend.py --version >&2
echo "$venv/bin/python backends/iree/iree_backend.py"
