#!/usr/bin/env bash
# Benchmarks gw serve's translated protocols in one run against the stand-in of the service: the Anthropic
# Messages API (/v1/messages) and the OpenAI Responses API (/v1/responses) translated onto chat completions,
# against chat completions passed through by gw serve and against claude-code-router doing the same Messages →
# chat translation, with a plain httputil.ReverseProxy's CPU per request as the floor; then gw serve's scheduler
# setting against that ReverseProxy at several concurrencies. Prints a Markdown report (see docs/benchmarks.md).
# Usage: scripts/bench-translate.sh [gw-bench -translate flags, e.g. -rounds 5 -sched-concurrency 1,8,64 -procs 1,2,default]
# claude-code-router is installed pinned into .cache/ccr (npm) when missing; without npm and node its rows are
# left out. Linux only for the CPU and RSS columns (read from /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
# 2.0.0: the newest version that installs (3.1.1 depends on @the-next-ai/ai-gateway, which npm does not serve).
CCR_VERSION=2.0.0
prefix="$PWD/.cache/ccr"
pkg="$prefix/node_modules/@musistudio/claude-code-router"
have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$pkg/package.json" 2>/dev/null || true)
if [ "$have" != "$CCR_VERSION" ] && command -v npm >/dev/null; then
	echo "installing @musistudio/claude-code-router@$CCR_VERSION into .cache/ccr" >&2
	npm install --silent --no-audit --no-fund --prefix "$prefix" "@musistudio/claude-code-router@$CCR_VERSION" >&2
fi
ccr=()
if [ -f "$pkg/dist/cli.js" ] && command -v node >/dev/null; then
	ccr=(-ccr "$pkg/dist/cli.js")
else
	echo "claude-code-router is not measured: it needs npm and node" >&2
fi
bin=$(mktemp -d "${TMPDIR:-/tmp}/gw-bench.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gw" ./cmd/gw
go build -o "$bin/gw-bench" ./tools/gw-bench
"$bin/gw-bench" -translate -gw "$bin/gw" ${ccr[@]+"${ccr[@]}"} "$@"
