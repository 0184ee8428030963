#!/usr/bin/env bash
# Runs the whole conformance suite (book examples and golden cases) against XLA's CPU backend:
# creates the adapter's pinned Python environment under target/xla-venv when needed, then runs
# `xla-spec conform` with the XLA expected-failures list, writing backends/xla/report.json and the
# book's report page. Extra arguments go to `xla-spec conform` (e.g. a PATH or --filter).
# XLA_SPEC names the xla-spec binary to use (default: `cargo run --release --`).
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=$(bash backends/xla/setup.sh)
if [ -n "${XLA_SPEC:-}" ]; then
  xla_spec=("$XLA_SPEC")
else
  xla_spec=(cargo run --release --quiet --)
fi
exec "${xla_spec[@]}" conform --backend "$backend" --timeout 20 \
  --expected-failures backends/xla/expected-failures.json \
  --report backends/xla/report.json \
  --report-md book/src/conformance/xla-report.md \
  --report-title "XLA conformance report" "$@"
