#!/usr/bin/env bash
# Runs the whole test suite of gw, installing first what the tests need when it is missing:
#   apt: gnome-keyring dbus libsecret-tools tmux   (the real OS keychain, secret-tool, a real terminal)
#   npm: opencode-ai                               (the real OpenCode CLI)
#        @anthropic-ai/claude-code                 (the real Claude Code CLI)
# Usage: scripts/test.sh [--quick]   (--quick: skip the release checks: cross-compile, goreleaser snapshot,
#                                     install.sh against the snapshot)
set -euo pipefail
cd "$(dirname "$0")/.."

OPENCODE_VERSION=1.18.33
CLAUDE_CODE_VERSION=2.1.330
quick=0
[ "${1:-}" = "--quick" ] && quick=1

log() { printf '==> %s\n' "$*"; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		echo "need root to install: $*" >&2; return 1
	fi
}

missing=()
command -v dbus-run-session >/dev/null || missing+=(dbus)
command -v gnome-keyring-daemon >/dev/null || missing+=(gnome-keyring)
command -v secret-tool >/dev/null || missing+=(libsecret-tools)
command -v tmux >/dev/null || missing+=(tmux)
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" dbus-x11 >/dev/null
fi

# npm_cli CMD DIR PACKAGE@VERSION: a global install of CMD if there is one, else PACKAGE@VERSION kept in
# .cache/DIR (ignored by git), put first on PATH.
npm_cli() {
	if ! command -v "$1" >/dev/null; then
		local prefix="$PWD/.cache/$2"
		if [ ! -x "$prefix/node_modules/.bin/$1" ]; then
			log "installing $3 into .cache/$2"
			npm install --silent --no-audit --no-fund --prefix "$prefix" "$3" >/dev/null
		fi
		export PATH="$prefix/node_modules/.bin:$PATH"
	fi
	log "$1 $("$1" --version 2>/dev/null || echo '(not runnable)')"
}
npm_cli opencode opencode "opencode-ai@$OPENCODE_VERSION"
npm_cli claude claude-code "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"

# Tests that need the real parts fail, rather than skip, when they are missing here.
export GW_REQUIRE_REAL_KEYCHAIN=1 GW_REQUIRE_OPENCODE=1 GW_REQUIRE_CLAUDE_CODE=1 GW_REQUIRE_TMUX=1

log "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
log "go vet"
go vet ./...
log "go test -race ./..."
go test -race -count=1 -timeout 15m ./...

if [ "$quick" = 0 ]; then
	log "cross-compile of the six release targets"
	scripts/cross-compile.sh
	log "release check: goreleaser check, snapshot release, install.sh against it"
	scripts/release-check.sh
fi
log "all tests passed"
