#!/usr/bin/env bash
# Tries the whole gw flow offline, against the stand-in of the service on 127.0.0.1:
# log in with a demo key, list models, run doctor, see failures diagnosed, and (when the proxy is
# built) stream an answer through gw serve.
#
# Nothing of yours is touched: config and state live in a temporary directory, and on Linux the key goes
# into a private, throwaway gnome-keyring (scripts/with-keyring.sh); where that cannot run (macOS, whose
# only keychain is your own, or Linux without gnome-keyring) the demo uses --insecure-storage inside the
# temporary directory instead, and says so and why at the start.
#
# Its output reads the same on a terminal and in a file or pipe: gw's output is shown as on a terminal.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

# install_hint: the command that installs what scripts/with-keyring.sh needs, on this distribution.
install_hint() {
	local ids
	ids=$( (. /etc/os-release 2>/dev/null && echo "${ID:-} ${ID_LIKE:-}") || true)
	case " $ids " in
	*" debian "* | *" ubuntu "*) echo "sudo apt install gnome-keyring dbus" ;;
	*" fedora "* | *" rhel "*) echo "sudo dnf install gnome-keyring dbus-daemon" ;;
	*" arch "*) echo "sudo pacman -S gnome-keyring dbus" ;;
	*) echo "gnome-keyring and dbus with your package manager (Debian, Ubuntu: sudo apt install gnome-keyring dbus)" ;;
	esac
}

if [ "${GW_DEMO_INNER:-}" != 1 ]; then
	if [ "$(uname -s)" != Linux ]; then
		why="the only keychain on $(uname -s) is your own, which the demo leaves alone"
	else
		missing=()
		for tool in dbus-daemon gnome-keyring-daemon; do
			command -v "$tool" >/dev/null || missing+=("$tool")
		done
		if [ ${#missing[@]} -eq 0 ]; then
			GW_DEMO_INNER=1 GW_DEMO_KEYCHAIN=os GW_DEMO_WHY="" exec "$repo/scripts/with-keyring.sh" bash "$0" "$@"
		fi
		why="${missing[*]} not installed, so no throwaway keyring can be started; for the OS keychain in the demo, install: $(install_hint)"
	fi
	GW_DEMO_INNER=1 GW_DEMO_KEYCHAIN=file GW_DEMO_WHY="$why" exec bash "$0" "$@"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gw-demo.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

GW_DEMO_NO_COLOR=${NO_COLOR:-}
export GW_CONFIG_DIR="$tmp/config" GW_STATE_DIR="$tmp/state" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/xdg-config" NO_COLOR=1
unset GW_API_KEY GW_BASE_URL

# Bold command lines only on a terminal that takes colour (NO_COLOR as the user had it, before the export above).
if [ -t 1 ] && [ -z "${GW_DEMO_NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
	step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
else
	step() { printf '\n$ %s\n' "$*"; }
fi
# as_on_terminal CMD...: runs CMD with its stdout on a pseudo-terminal when the demo's own output is not a
# terminal, so that a file or pipe shows what a person sees (gw models prints a table on a terminal, and
# tab-separated lines to a pipe). stderr stays as it is: a spinner never lands in the file.
as_on_terminal() {
	if [ -t 1 ] || ! command -v script >/dev/null; then
		"$@"
		return
	fi
	local cmd status
	cmd="$(printf '%q ' "$@") 2>>$(printf '%q' "$tmp/stderr")"
	: >"$tmp/stderr"
	if script --version >/dev/null 2>&1; then
		script -qefc "$cmd" /dev/null </dev/null | tr -d '\r'  # util-linux
	else
		script -q /dev/null bash -c "$cmd" </dev/null | tr -d '\r' # BSD, macOS
	fi
	status=${PIPESTATUS[0]}
	cat "$tmp/stderr" >&2
	return "$status"
}
run() { step "$*"; as_on_terminal "$@" || printf '(exit %d)\n' "$?"; }

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
if [ "$GW_DEMO_KEYCHAIN" = file ]; then
	insecure=(--insecure-storage)
	echo "Key storage: a plain-text file in the demo's temporary directory (--insecure-storage): $GW_DEMO_WHY."
	# gw would still ask the OS keychain first (a key of yours there would win): on Linux, point it at no bus.
	[ "$(uname -s)" = Linux ] && export DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/no-session-bus"
else
	echo "Key storage: the OS keychain, as gw uses it: a throwaway gnome-keyring private to this demo (scripts/with-keyring.sh)."
fi
step "echo sk-gw-demo-partial | gw auth login --base-url $base --with-key${insecure[*]:+ ${insecure[*]}}"
echo sk-gw-demo-partial | gw auth login --base-url "$base" --with-key "${insecure[@]}"
run gw auth status
run gw models
run gw doctor --model vendor-a/model-a-haiku-4.5

echo
echo "--- Failures, diagnosed ---"
run gw doctor --model vendor-a/model-a-sonet-4.5 --model vendor-b/model-b-3-pro-preview
step "GW_API_KEY=sk-gw-demo-nobalance gw models"
GW_API_KEY=sk-gw-demo-nobalance as_on_terminal gw models || printf '(exit %d)\n' "$?"
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
		-d '{"model":"vendor-a/model-a-haiku-4.5","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}' >"$tmp/stream" || true
	events=$(grep -c '^data: ' "$tmp/stream" || true)
	# Each event is a line of JSON; the part that changes is its "delta".
	grep '^data: {' "$tmp/stream" | head -n 3 | sed -E 's/^data: \{.*("delta":\{[^}]*\}).*/data: {… \1 …}/'
	echo "… $events events in all, the last: $(grep '^data: ' "$tmp/stream" | tail -n 1)"
	echo "The answer, put together from the deltas: $(sed -n 's/.*"delta":{[^}]*"content":"\([^"]*\)".*/\1/p' "$tmp/stream" | tr -d '\n')"
	echo
	echo "gw serve's output meanwhile (stderr; its request log never holds a key or a body):"
	sed 's/^/  /' "$tmp/serve.err"
fi

if gw init agent --help >/dev/null 2>&1; then
	echo
	echo "--- Configure OpenCode (dry run: prints the diff, writes nothing) ---"
	run gw init agent --agent opencode --models vendor-a/model-a-haiku-4.5,vendor-a/model-a-sonnet-4.5 --dry-run
fi
echo
echo "Demo done; everything it made is removed."
