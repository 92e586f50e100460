#!/usr/bin/env bash
# The canary: runs the tests that drive the real agent CLIs (e2e/, and the protocol tests of Claude Code,
# Codex and Gemini CLI) against each agent's newest release on npm instead of the version scripts/test.sh
# pins, one agent at a time (only that agent's tests run, with its newest release first on PATH), and prints
# a table: agent, pinned version, newest version, result (with the failed tests). The newest releases go
# into .cache/latest/ (ignored by git), the go test -v output of each agent's runs into
# .cache/latest/logs/AGENT.log; the pinned copies in .cache/ are not touched.
#
# When an agent's newest release passes, moving its pin is one line: its *_VERSION= line at the top of
# scripts/test.sh. The versions gw's agent files were checked against (each config/agents package's
# tested version, README's agent table) move when someone has checked what the new release reads.
#
# Needs Go, npm, and what the end-to-end tests need (Linux, dbus, gnome-keyring: scripts/test.sh installs
# them); a missing tool fails the agent's row rather than skipping it.
# Usage: scripts/canary.sh [--all] [AGENT...]   (or scripts/test.sh --latest [--all] [AGENT...])
#   --all: also run an agent whose newest release is the pinned one (by default its row says so and
#          scripts/test.sh's run covers it)
#   AGENT: only these agents (gw's names: claude-code, codex, …)
# Exit status 1 when an agent's newest release fails its tests or could not be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The pins, read from scripts/test.sh (NAME_VERSION=x.y.z lines), never sourced.
while IFS='=' read -r name value; do
	printf -v "$name" '%s' "$value"
done < <(grep -E '^[A-Z_]+_VERSION=[0-9A-Za-z.+-]+$' scripts/test.sh)

all=0
only=()
for arg in "$@"; do
	case $arg in
	--all) all=1 ;;
	-*)
		echo "canary: unknown flag $arg; usage: scripts/canary.sh [--all] [AGENT...]" >&2
		exit 2
		;;
	*) only+=("$arg") ;;
	esac
done

# The tests that drive the agents fail, rather than skip, when a part is missing.
export GW_REQUIRE_REAL_KEYCHAIN=1 GW_REQUIRE_AGENTS=1 GW_REQUIRE_OPENCODE=1 GW_REQUIRE_CLAUDE_CODE=1 \
	GW_REQUIRE_CODEX=1 GW_REQUIRE_GEMINI_CLI=1

log() { printf '==> %s\n' "$*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rows=()
failed=()
known=()

# agent NAME PACKAGE DIR BIN CMD VERSIONVAR TESTS...: one agent. PACKAGE is what scripts/test.sh installs
# into .cache/DIR, its command CMD in DIR/BIN; VERSIONVAR names its pin in scripts/test.sh. Each of TESTS is
# "PACKAGE-PATH RUN-PATTERN", one go test run. TestAgents and TestSession name their subtests after the
# agent (gw's name without dashes, then _init or _run).
agent() {
	local name=$1 pkg=$2 dir=$3 bin=$4 cmd=$5 var=$6
	shift 6
	if [ "$listing" = 1 ]; then
		known+=("$name")
		return 0
	fi
	if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qxF "$name"; then
		return 0
	fi
	local pinned=${!var} newest="" prefix="$PWD/.cache/latest/$dir" have="" result
	log "$name: newest release of $pkg"
	if ! newest=$(npm view "$pkg" version 2>"$tmp/npm.err") || [ -z "$newest" ]; then
		rows+=("$name	$pinned	?	FAIL: npm view $pkg: $(tail -1 "$tmp/npm.err")")
		failed+=("$name")
		return 0
	fi
	if [ "$newest" = "$pinned" ] && [ "$all" = 0 ]; then
		rows+=("$name	$pinned	$newest	pinned is newest (scripts/test.sh runs it)")
		return 0
	fi
	have=$(awk -F'"' '/^[[:space:]]*"version":/ { print $4; exit }' "$prefix/node_modules/$pkg/package.json" 2>/dev/null || true)
	if [ "$have" != "$newest" ] || [ ! -x "$prefix/$bin/$cmd" ]; then
		log "$name: install $pkg@$newest into .cache/latest/$dir (npm)"
		if ! npm install --silent --no-audit --no-fund --prefix "$prefix" "$pkg@$newest" >"$tmp/npm.err" 2>&1; then
			cat "$tmp/npm.err" >&2
			rows+=("$name	$pinned	$newest	FAIL: npm install $pkg@$newest: $(tail -1 "$tmp/npm.err")")
			failed+=("$name")
			return 0
		fi
	fi
	log "$name: $("$prefix/$bin/$cmd" --version 2>/dev/null | head -1 || echo '(not runnable)')"
	local spec path pattern status fails=() passes=0 out="$tmp/$name.out" logfile="$PWD/.cache/latest/logs/$name.log"
	mkdir -p "$(dirname "$logfile")"
	: >"$logfile"
	for spec in "$@"; do
		path=${spec%% *}
		pattern=${spec#* }
		log "$name: go test -run '$pattern' $path"
		status=0
		PATH="$prefix/$bin:$PATH" go test -count=1 -v -timeout 30m -run "$pattern" "$path" >"$out" 2>&1 || status=$?
		cat "$out" >>"$logfile"
		# The failed tests, innermost last; the summary lines of go test -v name them all.
		while read -r t; do fails+=("$t"); done < <(sed -n 's/^[[:space:]]*--- FAIL: \([^ ]*\).*/\1/p' "$out")
		passes=$((passes + $(grep -c -E '^[[:space:]]*--- PASS: ' "$out" || true)))
		if [ "$status" != 0 ]; then
			grep -E '^(\s*--- FAIL|\s+\S+_test\.go:[0-9]+:|panic:|FAIL)' "$out" | head -40 >&2 || true
			[ ${#fails[@]} -gt 0 ] || fails+=("$path (exit $status, no test failed: see its output)")
		fi
	done
	if [ ${#fails[@]} -gt 0 ]; then
		# The innermost failed tests, each once: a test whose subtest failed is not named again (an isolated
		# re-run of a test prints its failures twice).
		local uniq=() leaves=() f g
		for f in "${fails[@]}"; do
			[[ " ${uniq[*]-} " == *" $f "* ]] || uniq+=("$f")
		done
		for f in "${uniq[@]}"; do
			for g in "${uniq[@]}"; do
				[[ $g == "$f"/* ]] && continue 2
			done
			leaves+=("$f")
		done
		result="FAIL: $(IFS=,; echo "${leaves[*]}" | sed 's/,/, /g') (go test -v output: .cache/latest/logs/$name.log)"
		failed+=("$name")
	elif [ "$passes" = 0 ]; then
		result="FAIL: no test ran"
		failed+=("$name")
	else
		result="pass"
	fi
	rows+=("$name	$pinned	$newest	$result")
}

# The agents, as scripts/test.sh installs them (TestTestSh_CanaryCoversEveryPin holds the two lists together).
agents() {
	agent opencode opencode-ai opencode node_modules/.bin opencode OPENCODE_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^opencode_' './e2e ^TestOpenCode$'
	agent claude-code @anthropic-ai/claude-code claude-code node_modules/.bin claude CLAUDE_CODE_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^claudecode_' './e2e ^TestClaudeCode$' './protocol/anthropic ^TestClaudeCode'
	agent codex @openai/codex codex node_modules/.bin codex CODEX_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^codex_' './e2e ^TestCodex$' './protocol/responses ^TestCodex'
	agent qwen-code @qwen-code/qwen-code qwen-code node_modules/.bin qwen QWEN_CODE_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^qwencode_'
	agent continue @continuedev/cli continue node_modules/.bin cn CONTINUE_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^continue_'
	agent cline cline cline node_modules/.bin cline CLINE_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^cline_'
	agent kilo @kilocode/cli-linux-x64 kilo node_modules/@kilocode/cli-linux-x64/bin kilo KILO_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^kilo_'
	agent pi @mariozechner/pi-coding-agent pi node_modules/.bin pi PI_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^pi_'
	agent copilot @github/copilot copilot node_modules/.bin copilot COPILOT_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^copilot_'
	agent droid @factory/cli-linux-x64 droid node_modules/@factory/cli-linux-x64/bin droid DROID_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^droid_'
	agent gemini @google/gemini-cli gemini-cli node_modules/.bin gemini GEMINI_CLI_VERSION \
		'./e2e ^(TestAgents|TestSession)$/^gemini_' './e2e ^TestGeminiCLIFailures$' './protocol/gemini ^TestGeminiCLI'
}
listing=1
agents
for name in ${only[@]+"${only[@]}"}; do
	if ! printf '%s\n' "${known[@]}" | grep -qxF "$name"; then
		echo "canary: unknown agent $name; the agents: ${known[*]}" >&2
		exit 2
	fi
done
listing=0
agents

echo
log "canary: $(date -u '+%Y-%m-%d %H:%M UTC')"
for row in $'agent\tpinned\tnewest\tresult' "${rows[@]}"; do
	IFS=$'\t' read -r name pinned newest result <<<"$row"
	printf '%-12s  %-9s  %-9s  %s\n' "$name" "$pinned" "$newest" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "newest release failing: ${failed[*]}"
	exit 1
fi
echo "to move a pin: its *_VERSION= line at the top of scripts/test.sh"
