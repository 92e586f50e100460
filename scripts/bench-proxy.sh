#!/usr/bin/env bash
# Benchmarks gw serve in one run against the stand-in of the service: direct, through gw serve, through a
# minimal httputil.ReverseProxy baseline (with gw serve's scheduler setting and with Go's defaults), and
# through a byte relay (the floor of any proxy hop). Prints a Markdown report (see docs/benchmarks.md).
# Usage: scripts/bench-proxy.sh [gw-bench flags, e.g. -duration 6s -rounds 5 -concurrency 1,8,64]
#   -gw-before PATH   also measure another gw binary in the same run (e.g. one built before a change)
#   -gw-handler       also measure gw serve's handler served by a process like the baseline's
# Linux only for the RSS columns (read from /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d "${TMPDIR:-/tmp}/gw-bench.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gw" ./cmd/gw
go build -o "$bin/gw-bench" ./tools/gw-bench
"$bin/gw-bench" -gw "$bin/gw" "$@"
