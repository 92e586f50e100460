#!/usr/bin/env bash
# Tries the whole gw flow offline, against the stand-in of the service on 127.0.0.1:
# log in with a demo key, list models, run doctor, see failures diagnosed, and (when the proxy is
# built) stream an answer through gw serve.
#
# Nothing of yours is touched: config and state live in a temporary directory, and on Linux the key goes
# into a private, throwaway gnome-keyring (scripts/with-keyring.sh); elsewhere (where the only keychain is
# your own) the demo uses --insecure-storage inside the temporary directory instead.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "${GW_DEMO_INNER:-}" != 1 ]; then
	if [ "$(uname -s)" = Linux ] && command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
		GW_DEMO_INNER=1 GW_DEMO_KEYCHAIN=os exec "$repo/scripts/with-keyring.sh" bash "$0" "$@"
	fi
	GW_DEMO_INNER=1 GW_DEMO_KEYCHAIN=file exec bash "$0" "$@"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gw-demo.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

export GW_CONFIG_DIR="$tmp/config" GW_STATE_DIR="$tmp/state" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/xdg-config" NO_COLOR=1
unset GW_API_KEY GW_BASE_URL

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { step "$*"; "$@" || printf '(exit %d)\n' "$?"; }

echo "Building gw and the stand-in service..."
(cd "$repo" && go build -o "$tmp/bin/gw" ./cmd/gw && go build -o "$tmp/bin/gw-standin" ./cmd/gw-standin)
export PATH="$tmp/bin:$PATH"

"$tmp/bin/gw-standin" --addr 127.0.0.1:0 >"$tmp/standin.out" 2>"$tmp/standin.err" &
pids+=($!)
for _ in $(seq 100); do grep -q '^base_url=' "$tmp/standin.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^base_url=//p' "$tmp/standin.out")
[ -n "$base" ] || { echo "the stand-in did not start:" >&2; cat "$tmp/standin.err" >&2; exit 1; }
echo "Stand-in service at $base (demo keys: sk-gw-demo-full, sk-gw-demo-partial, sk-gw-demo-nobalance)"

insecure=()
[ "$GW_DEMO_KEYCHAIN" = file ] && insecure=(--insecure-storage)
step "echo sk-gw-demo-partial | gw auth login --base-url $base --with-key ${insecure[*]}"
echo sk-gw-demo-partial | gw auth login --base-url "$base" --with-key "${insecure[@]}"
run gw auth status
run gw models
run gw doctor --model vendor-a/model-a-haiku-4.5

echo
echo "--- Failures, diagnosed ---"
run gw doctor --model vendor-a/model-a-sonet-4.5 --model vendor-b/model-b-3-pro-preview
step "GW_API_KEY=sk-gw-demo-nobalance gw models"
GW_API_KEY=sk-gw-demo-nobalance gw models || printf '(exit %d)\n' "$?"
step "GW_API_KEY=sk-wrong-key gw doctor --json   (the key check)"
(GW_API_KEY=sk-wrong-key gw doctor --json || true) | grep -A5 '"id": "key"'
run gw models --base-url "${base%/v1}"

if gw serve --help >/dev/null 2>&1; then
	echo
	echo "--- The local proxy: the agent never sees the key ---"
	gw serve --port 0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
	pids+=($!)
	for _ in $(seq 100); do grep -qo 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.out" "$tmp/serve.err" 2>/dev/null && break; sleep 0.1; done
	proxy=$(grep -ho 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.out" "$tmp/serve.err" | head -n 1)
	token=$(gw auth status --json | sed -n 's/.*"local_token": "\(.*\)".*/\1/p')
	step "curl -N $proxy/v1/chat/completions -H 'Authorization: Bearer gw-local-…' (stream)"
	curl -sN "$proxy/v1/chat/completions" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
		-d '{"model":"vendor-a/model-a-haiku-4.5","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}' | grep -o '"content":"[^"]*"' | tr -d '\n' || true
	echo
	step "the proxy's request log"
	cat "$tmp/serve.err"
fi

if gw init agent --help >/dev/null 2>&1; then
	echo
	echo "--- Configure OpenCode (dry run: prints the diff, writes nothing) ---"
	run gw init agent --models vendor-a/model-a-haiku-4.5,vendor-a/model-a-sonnet-4.5 --dry-run
fi
echo
echo "Demo done; everything it made is removed."
