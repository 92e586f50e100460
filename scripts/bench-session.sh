#!/usr/bin/env bash
# The cost of a session: replays a recorded Claude Code session and a Codex session (20 turns each, growing
# context) through gw serve's handler to the stand-in of the service, which caches prompts as the gateways do,
# and bills the same requests as the agent's native API would. Prints a Markdown table of billed input tokens
# through gw ÷ native (see docs/benchmarks.md, "The cost of a session"). Billed input tokens weigh uncached
# prompt tokens 1, cache reads 0.1 and cache writes 1.25, on both sides.
# Usage: scripts/bench-session.sh [-turns]   (-turns also prints every turn's counts)
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=()
if [ "${1:-}" = "-turns" ]; then
	export GW_BENCH_SESSION_TURNS=1
	verbose=(-v)
fi
out=$(go test -run '^$' -bench 'SessionCost' -benchtime 1x -count 1 ${verbose[@]+"${verbose[@]}"} ./proxy)
if [ -n "${GW_BENCH_SESSION_TURNS:-}" ]; then
	printf '%s\n' "$out" | grep 'turn ' | sed 's/^ *session_bench_test.go:[0-9]*: //'
	echo
fi
printf '%s\n' "$out" | awk '
	/^BenchmarkSessionCost\/.*ns\/op/ {
		name = $1; sub(/^BenchmarkSessionCost\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i += 2) v[name, $(i+1)] = $i
		if (!seen[name]++) names[++n] = name
	}
	END {
		if (n == 0) { print "bench-session: no results" > "/dev/stderr"; exit 1 }
		print "| session | prompt tokens, native | prompt tokens, gw | cached, native | cached, gw | billed input, native | billed input, gw | gw ÷ native |"
		print "|---|---|---|---|---|---|---|---|"
		for (k = 1; k <= n; k++) {
			s = names[k]
			printf "| %s | %d | %d | %.0f%% | %.0f%% | %d | %d | **%.2f×** |\n", s,
				v[s, "native-prompt"], v[s, "gw-prompt"], v[s, "native-cached-%"], v[s, "gw-cached-%"],
				v[s, "native-billed"], v[s, "gw-billed"], v[s, "gw/native"]
		}
	}'
