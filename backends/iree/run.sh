#!/usr/bin/env bash
# Runs the whole conformance suite (book examples and golden cases) on IREE (XLA's
# HLO-to-StableHLO import, then iree-compile for llvm-cpu and IREE's local-sync runtime): prepares
# the adapter's Python environment (target/iree-venv) when needed, then runs `xla-spec conform`
# with IREE's expected-failures list, writing backends/iree/report.json and the book's report
# page. Extra arguments go to `xla-spec conform` (e.g. a PATH, --filter TEXT, --jobs 2, or
# --per-file 1 for CI's bounded run).
# XLA_SPEC names the xla-spec binary to use (default: `cargo run --release --`).
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=$(bash backends/iree/setup.sh)
if [ -n "${XLA_SPEC:-}" ]; then
  xla_spec=("$XLA_SPEC")
else
  xla_spec=(cargo run --release --quiet --)
fi
exec "${xla_spec[@]}" conform --backend "$backend" --timeout 60 \
  --expected-failures backends/iree/expected-failures.json \
  --report backends/iree/report.json \
  --report-md book/src/conformance/iree-report.md \
  --report-title "IREE conformance report" "$@"
