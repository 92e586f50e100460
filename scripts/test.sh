#!/usr/bin/env bash
# Runs the whole test suite of gw, installing first what the tests need when it is missing:
#   apt: gnome-keyring dbus libsecret-tools tmux   (the real OS keychain, secret-tool, a real terminal)
#   npm: opencode-ai, @anthropic-ai/claude-code, @openai/codex, @qwen-code/qwen-code, @continuedev/cli, cline,
#        @kilocode/cli-linux-x64, @mariozechner/pi-coding-agent, @github/copilot, @factory/cli-linux-x64,
#        @google/gemini-cli
#        (the real agent CLIs, pinned below, kept in .cache/; Crush's npm package
#        downloads its binary at install, so Crush is checked against its schema only);
#        @anthropic-ai/sdk, openai, ai with @ai-sdk/anthropic and @ai-sdk/openai, @google/genai   (the official
#        SDKs and the AI SDK, driven as clients by the protocol and proxy tests)
# Usage: scripts/test.sh [--quick]   (--quick: skip the release checks: cross-compile, goreleaser snapshot,
#                                     install.sh against the snapshot)
#        scripts/test.sh --latest [--all] [AGENT...]   (the canary, scripts/canary.sh, after the apt tools
#                                     above: the agent tests against each agent's newest release on npm)
# The pins are the *_VERSION= lines below: moving one is one line.
#
# Every step runs even when an earlier one failed (a gofmt or vet finding says nothing about the tests, and a
# failing test says nothing about the release build), and the run ends with a summary: each step's name and
# result, the failed tests by package, and the steps skipped and why. Exit status 1 when any step failed.
set -euo pipefail
cd "$(dirname "$0")/.."

OPENCODE_VERSION=1.18.33
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
QWEN_CODE_VERSION=0.24.4
CONTINUE_VERSION=1.5.47
CLINE_VERSION=3.0.65
KILO_VERSION=7.7.9
PI_VERSION=0.73.1
COPILOT_VERSION=1.0.102
DROID_VERSION=0.225.2
ANTHROPIC_SDK_VERSION=1.14.0
OPENAI_SDK_VERSION=6.49.0
# The AI SDK 6 line (ai 7 and its providers 4 need Node 22), with the zod its schemas are written in.
AI_SDK_VERSION=6.0.326
AI_SDK_ANTHROPIC_VERSION=3.0.140
AI_SDK_OPENAI_VERSION=3.0.141
ZOD_VERSION=4.6.7
GEMINI_CLI_VERSION=0.61.0
# @google/genai, the SDK Gemini CLI bundles (same version), driven as a client by proxy's SDK tests.
GENAI_SDK_VERSION=1.30.0
quick=0 latest=0
case "${1:-}" in
--quick) quick=1 ;;
--latest)
	latest=1
	shift
	;;
esac

log() { printf '==> %s\n' "$*"; }

# results: one "RESULT<TAB>step<TAB>detail<TAB>failures file" line per step, for the summary.
results=()
failed=()
# step NAME CMD [ARG...]: runs CMD as the step NAME and records how it went. CMD may list what failed, one
# item a line, in the file $failures.
step() {
	local name=$1 status=0
	shift
	failures="$tmp/${#results[@]}.failures"
	log "$name"
	"$@" || status=$?
	if [ "$status" = 0 ]; then
		results+=("pass	$name		")
	else
		results+=("FAIL	$name	exit $status	$failures")
		failed+=("$name")
	fi
}
skipped() { results+=("skip	$1	$2	"); }

tmp=$(mktemp -d)
summary() {
	local r res name detail file
	echo
	log "summary"
	for r in "${results[@]}"; do
		IFS=$'\t' read -r res name detail file <<<"$r"
		printf '  %-4s  %s%s\n' "$res" "$name" "${detail:+  ($detail)}"
		if [ -n "$file" ] && [ -s "$file" ]; then
			sed 's/^/          /' "$file"
		fi
	done
	if [ ${#failed[@]} -gt 0 ]; then
		echo "${#failed[@]} step(s) failed: $(IFS=,; echo "${failed[*]}" | sed 's/,/, /g')"
	else
		echo "all steps passed"
	fi
}
on_interrupt() {
	results+=("stop	(interrupted)	the steps after this one did not run	")
	failed+=("(interrupted)")
	summary
	rm -rf "$tmp"
	exit 130
}
trap on_interrupt INT TERM
trap 'rm -rf "$tmp"' EXIT

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		echo "need root to install: $*" >&2; return 1
	fi
}

missing=()
command -v dbus-daemon >/dev/null || missing+=(dbus)
command -v gnome-keyring-daemon >/dev/null || missing+=(gnome-keyring)
command -v secret-tool >/dev/null || missing+=(libsecret-tools)
command -v tmux >/dev/null || missing+=(tmux)
# systemd-analyze verifies the unit gw service install writes (and systemctl is what it runs).
command -v systemd-analyze >/dev/null || missing+=(systemd)
install_missing() {
	as_root apt-get update -qq &&
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" dbus-x11 >/dev/null
}
if [ ${#missing[@]} -gt 0 ]; then
	step "install ${missing[*]} (apt)" install_missing
fi
if [ "$latest" = 1 ]; then
	[ ${#failed[@]} -eq 0 ] || {
		summary
		exit 1
	}
	status=0
	scripts/canary.sh "$@" || status=$?
	exit "$status"
fi

# npm_cli CMD DIR PACKAGE VERSION [BIN]: the pinned PACKAGE@VERSION kept in .cache/DIR (ignored by git), installed
# when missing or of another version, and its BIN directory (default node_modules/.bin) put first on PATH — a
# global install of another version is not used.
npm_cli() {
	local prefix="$PWD/.cache/$2" have="" bin="${5:-node_modules/.bin}"
	# The first "version" member, indented by spaces or (pi's package.json) a tab.
	have=$(awk -F'"' '/^[[:space:]]*"version":/ { print $4; exit }' "$prefix/node_modules/$3/package.json" 2>/dev/null || true)
	if [ "$have" != "$4" ] || [ ! -x "$prefix/$bin/$1" ]; then
		step "install $3@$4 into .cache/$2 (npm)" \
			npm install --silent --no-audit --no-fund --prefix "$prefix" "$3@$4"
	fi
	export PATH="$prefix/$bin:$PATH"
	log "$1 $("$1" --version 2>/dev/null | head -1 || echo '(not runnable)')"
}
npm_cli opencode opencode opencode-ai "$OPENCODE_VERSION"
npm_cli claude claude-code @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION"
npm_cli codex codex @openai/codex "$CODEX_VERSION"
npm_cli qwen qwen-code @qwen-code/qwen-code "$QWEN_CODE_VERSION"
npm_cli cn continue @continuedev/cli "$CONTINUE_VERSION"
npm_cli cline cline cline "$CLINE_VERSION"
# Kilo's own package (@kilocode/cli) fetches this platform package at install; it declares no bin.
npm_cli kilo kilo @kilocode/cli-linux-x64 "$KILO_VERSION" node_modules/@kilocode/cli-linux-x64/bin
npm_cli pi pi @mariozechner/pi-coding-agent "$PI_VERSION"
npm_cli copilot copilot @github/copilot "$COPILOT_VERSION"
# Factory droid's own package (@factory/cli) fetches this platform package in an install script, which npm
# blocks here; it declares no bin.
npm_cli droid droid @factory/cli-linux-x64 "$DROID_VERSION" node_modules/@factory/cli-linux-x64/bin

# npm_sdk DIR PACKAGE@VERSION...: SDKs the tests drive as clients (no CLI), pinned, installed together in
# .cache/DIR when one of them is missing or of another version. None runs an install script.
npm_sdk() {
	local prefix="$PWD/.cache/$1" spec have="" stale=0
	shift
	for spec in "$@"; do
		have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$prefix/node_modules/${spec%@*}/package.json" 2>/dev/null || true)
		[ "$have" = "${spec##*@}" ] || stale=1
	done
	if [ "$stale" = 1 ]; then
		step "install $* into .cache/$(basename "$prefix") (npm)" npm install --silent --no-audit --no-fund --prefix "$prefix" "$@"
	fi
}
npm_sdk anthropic-sdk "@anthropic-ai/sdk@$ANTHROPIC_SDK_VERSION"
npm_sdk openai-sdk "openai@$OPENAI_SDK_VERSION"
npm_sdk ai-sdk "ai@$AI_SDK_VERSION" "@ai-sdk/anthropic@$AI_SDK_ANTHROPIC_VERSION" "@ai-sdk/openai@$AI_SDK_OPENAI_VERSION" \
	"zod@$ZOD_VERSION"
npm_cli gemini gemini-cli @google/gemini-cli "$GEMINI_CLI_VERSION"
npm_sdk genai "@google/genai@$GENAI_SDK_VERSION"

# Tests that need the real parts fail, rather than skip, when they are missing here.
export GW_REQUIRE_REAL_KEYCHAIN=1 GW_REQUIRE_OPENCODE=1 GW_REQUIRE_CLAUDE_CODE=1 GW_REQUIRE_CODEX=1 GW_REQUIRE_TMUX=1 \
	GW_REQUIRE_AGENTS=1 GW_REQUIRE_SDKS=1 GW_REQUIRE_SYSTEMD_ANALYZE=1

check_gofmt() {
	local unformatted
	unformatted=$(gofmt -l $(git ls-files '*.go'))
	if [ -n "$unformatted" ]; then
		echo "gofmt would change:" >&2
		echo "$unformatted" >&2
		echo "$unformatted" >"$failures"
		return 1
	fi
}
# run_tests keeps go test's output to name the failed tests and packages in the summary.
run_tests() {
	local status=0
	go test -race -count=1 -timeout 15m ./... 2>&1 | tee "$tmp/test.out" || status=$?
	# One line per failed package, with its failed tests: go test prints a package's "--- FAIL: Test…"
	# lines before its "FAIL <package>" line.
	awk '
		/^[[:space:]]*--- FAIL: / { tests = tests (tests ? ", " : "") $3; next }
		/^(ok|FAIL)[[:space:]]+[^[:space:]]/ {
			if ($1 == "FAIL") {
				if ($3 ~ /^\[/) print $2 ": " $3 " " $4
				else print $2 ": " (tests ? tests : "failed outside a test (see its output above)")
			}
			tests = ""
		}
		/^panic: / && panics++ < 3 { print }
	' "$tmp/test.out" >"$failures"
	return "$status"
}

# check_workflows: actionlint on the CI workflows (.github/workflows/), installed with go install when
# missing or of another version (it also runs shellcheck on their scripts when shellcheck is installed).
check_workflows() {
	local want=v1.7.12 gobin
	gobin=$(go env GOBIN)
	gobin=${gobin:-$(go env GOPATH)/bin}
	PATH=$PATH:$gobin
	if ! actionlint -version 2>/dev/null | head -1 | grep -qxF "$want"; then
		log "installing actionlint $want (go install)"
		go install "github.com/rhysd/actionlint/cmd/actionlint@$want" || return
		PATH=$gobin:$PATH
	fi
	actionlint .github/workflows/*.yml
}

step gofmt check_gofmt
step "go vet" go vet ./...
# The files of one platform (keychain, terminal, signals, process groups in tests) vetted for the others too.
step "go vet (GOOS=windows)" env GOOS=windows go vet ./...
step "go vet (GOOS=darwin)" env GOOS=darwin go vet ./...
step "actionlint .github/workflows" check_workflows
step "go test -race ./..." run_tests

if [ "$quick" = 0 ]; then
	step "cross-compile of the six release targets" scripts/cross-compile.sh
	step "release check (goreleaser check, snapshot release, install.sh against it)" scripts/release-check.sh
else
	skipped "cross-compile of the six release targets" "--quick"
	skipped "release check (goreleaser check, snapshot release, install.sh against it)" "--quick"
fi

summary
[ ${#failed[@]} -eq 0 ]
