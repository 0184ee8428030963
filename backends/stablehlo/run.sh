#!/usr/bin/env bash
# Runs the whole conformance suite (book examples and golden cases) on StableHLO's reference
# interpreter (jaxlib's stablehlo.eval_module, after XLA's HLO-to-StableHLO import): prepares the
# adapter's Python environment (target/xla-venv, shared with backends/xla) when needed, then runs
# `xla-spec conform` with the interpreter's expected-failures list, writing
# backends/stablehlo/report.json and the book's report page. Extra arguments go to
# `xla-spec conform` (e.g. a PATH, --filter, or --jobs 2).
# XLA_SPEC names the xla-spec binary to use (default: `cargo run --release --`).
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=$(bash backends/stablehlo/setup.sh)
if [ -n "${XLA_SPEC:-}" ]; then
  xla_spec=("$XLA_SPEC")
else
  xla_spec=(cargo run --release --quiet --)
fi
exec "${xla_spec[@]}" conform --backend "$backend" --timeout 60 \
  --expected-failures backends/stablehlo/expected-failures.json \
  --report backends/stablehlo/report.json \
  --report-md book/src/conformance/stablehlo-report.md \
  --report-title "StableHLO interpreter conformance report" "$@"
