#!/usr/bin/env bash
# Measures the time to the first token of a streamed chat completion, directly from the service and through
# gw serve, in one run: the stand-in over TLS (HTTP/1.1, and offering HTTP/2) behind a relay adding the
# round-trip time, the official openai SDK in Node as the agent. Prints a Markdown report (see
# docs/benchmarks.md). Needs node and the openai SDK (GW_OPENAI_SDK: a directory whose node_modules has it;
# default .cache/openai-sdk, where scripts/test.sh installs it).
# Usage: scripts/bench-latency.sh [gw-latency flags, e.g. -rounds 5 -rtt 50ms,150ms -long]
#   -long   also measure after 10 minutes idle (the run then takes -long-rounds × 10 min; default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
sdk=${GW_OPENAI_SDK:-$PWD/.cache/openai-sdk}
bin=$(mktemp -d "${TMPDIR:-/tmp}/gw-latency.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gw" ./cmd/gw
go build -o "$bin/gw-latency" ./tools/gw-latency
"$bin/gw-latency" -gw "$bin/gw" -sdk "$sdk" "$@"
