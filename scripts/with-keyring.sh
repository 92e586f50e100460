#!/usr/bin/env bash
# with-keyring.sh CMD [ARG...]
#
# Runs CMD inside a fresh, private D-Bus session with its own gnome-keyring
# Secret Service, unlocked with a throwaway password. This is how go-keyring's
# own CI tests on Linux, and how gw's tests reach a real OS keychain without a
# desktop session.
#
# Nothing of the user's is touched: the bus and the keyring daemon keep their
# files in a temporary directory that is removed afterwards, and CMD gets the
# private bus (DBUS_SESSION_BUS_ADDRESS) instead of the user's. CMD also sees
# GW_ISOLATED_KEYRING=1, which tells gw's tests the keychain is a disposable one.
# Both daemons are stopped when CMD ends, however it ends (killed included), and
# when this script is interrupted or terminated (CMD is then terminated first).
# The bus's own complaints (e.g. "Failed to set fd limit" in a container) go to
# a log that is shown only when the bus does not start.
#
# Needs: dbus-daemon, gnome-keyring-daemon (Debian/Ubuntu:
# apt-get install -y dbus gnome-keyring libsecret-tools).
# Exit status: CMD's (128+N when it was killed by signal N); 2 for usage; 127
# when a needed program is missing; 1 when the bus or the keyring does not start.
set -euo pipefail

if [ $# -eq 0 ]; then
	echo "usage: $0 CMD [ARG...]" >&2
	exit 2
fi

for tool in dbus-daemon gnome-keyring-daemon; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "with-keyring.sh: $tool not found; install it with: apt-get install -y dbus gnome-keyring libsecret-tools" >&2
		exit 127
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gw-keyring.XXXXXX")
sockets="$tmp" bus_pid="" daemon_pid="" cmd_pid=""
stop() {
	local p
	for p in "$@"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || continue
		# Bounded: a daemon that ignores SIGTERM for 5 s is killed.
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
cleanup() {
	trap - EXIT INT TERM HUP
	stop "$cmd_pid"
	stop "$daemon_pid" "$bus_pid"
	rm -rf "$tmp" "$sockets"
}
on_signal() {
	cleanup
	exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP
# A socket's path holds at most 107 bytes: under a long TMPDIR the sockets (the
# bus's, the keyring's control socket in its runtime dir) go to a short one.
if [ ${#tmp} -gt 60 ]; then sockets=$(mktemp -d /tmp/gw-keyring.XXXXXX); fi
mkdir -m 700 "$tmp/data" "$tmp/home" "$sockets/bus" "$sockets/runtime"

fail() {
	echo "with-keyring.sh: $*" >&2
	if [ -s "$tmp/bus.log" ]; then sed 's/^/  /' "$tmp/bus.log" >&2; fi
	exit 1
}

# The bus: a session bus listening in $tmp, started here (not with
# dbus-run-session) so that its PID is known and it can be stopped.
dbus-daemon --session --nofork --nopidfile --address="unix:dir=$sockets/bus" --print-address=3 \
	3>"$tmp/address" 2>"$tmp/bus.log" </dev/null &
bus_pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/address" ] && break
	kill -0 "$bus_pid" 2>/dev/null || fail "the D-Bus daemon did not start:"
	sleep 0.05
done
[ -s "$tmp/address" ] || fail "the D-Bus daemon did not give its address within 5 s:"
DBUS_SESSION_BUS_ADDRESS=$(head -n 1 "$tmp/address")
export DBUS_SESSION_BUS_ADDRESS

# The keyring daemon alone gets temporary XDG dirs: its keyring files and
# control socket then live in $tmp, and it cannot join a keyring daemon the
# user already runs. HOME only changes for it when HOME is unset. In the
# foreground, so that $! is the daemon itself.
password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$password" |
	XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$sockets/runtime" HOME="${HOME:-$tmp/home}" \
		gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>>"$tmp/bus.log" &
daemon_pid=$!
unset password

# Wait until the daemon owns org.freedesktop.secrets on the bus.
if command -v dbus-send >/dev/null 2>&1; then
	owned=""
	for _ in $(seq 100); do
		if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
			org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; then
			owned=1
			break
		fi
		kill -0 "$daemon_pid" 2>/dev/null || fail "gnome-keyring-daemon did not start:"
		sleep 0.05
	done
	[ -n "$owned" ] || fail "gnome-keyring-daemon did not claim the Secret Service within 5 s:"
fi

export GW_ISOLATED_KEYRING=1
# In the background (stdin kept) so that a signal to this script runs its trap
# at once rather than after CMD ends.
"$@" <&0 &
cmd_pid=$!
set +e
wait "$cmd_pid"
status=$?
set -e
cmd_pid=""
exit "$status"
