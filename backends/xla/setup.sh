#!/usr/bin/env bash
# Creates the XLA adapter's Python environment under target/xla-venv (pinned versions from PyPI;
# nothing is installed system-wide). Prints the backend command to pass to `xla-spec conform`.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/xla-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r backends/xla/requirements.txt
"$venv/bin/python" backends/xla/xla_backend.py --version >&2
echo "$venv/bin/python backends/xla/xla_backend.py"
