#!/usr/bin/env bash
# Benchmarks gw serve in one run against the stand-in of the service: direct, through gw serve, and
# through a minimal httputil.ReverseProxy baseline. Prints a Markdown report (see docs/benchmarks.md).
# Usage: scripts/bench-proxy.sh [gw-bench flags, e.g. -duration 6s -concurrency 1,8,64]
# Linux only for the RSS columns (read from /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d "${TMPDIR:-/tmp}/gw-bench.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gw" ./cmd/gw
go build -o "$bin/gw-bench" ./cmd/gw-bench
"$bin/gw-bench" -gw "$bin/gw" "$@"
