#!/usr/bin/env bash
# with-keyring.sh CMD [ARG...]
#
# Runs CMD inside a fresh, private D-Bus session with its own gnome-keyring
# Secret Service, unlocked with a throwaway password. This is how go-keyring's
# own CI tests on Linux, and how gw's tests reach a real OS keychain without a
# desktop session.
#
# Nothing of the user's is touched: the keyring daemon keeps its files in a
# temporary directory that is removed afterwards, and CMD gets the private bus
# (DBUS_SESSION_BUS_ADDRESS) instead of the user's. CMD also sees
# GW_ISOLATED_KEYRING=1, which tells gw's tests the keychain is a disposable one.
#
# Needs: dbus-run-session, gnome-keyring-daemon (Debian/Ubuntu:
# apt-get install -y dbus gnome-keyring libsecret-tools).
# Exit status: CMD's; 2 for usage; 127 when a needed program is missing.
set -euo pipefail

if [ $# -eq 0 ]; then
	echo "usage: $0 CMD [ARG...]" >&2
	exit 2
fi

need() {
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "with-keyring.sh: $1 not found; install it with: apt-get install -y dbus gnome-keyring libsecret-tools" >&2
		exit 127
	fi
}

if [ "${GW_WITH_KEYRING_INNER:-}" != 1 ]; then
	need dbus-run-session
	need gnome-keyring-daemon
	# Re-enter this script inside the new bus; the bus (and with it the keyring
	# daemon, which exits when its bus goes away) ends when CMD ends.
	GW_WITH_KEYRING_INNER=1 exec dbus-run-session -- bash "${BASH_SOURCE[0]}" "$@"
fi
unset GW_WITH_KEYRING_INNER

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gw-keyring.XXXXXX")
daemon_pid=""
cleanup() {
	if [ -n "$daemon_pid" ]; then
		kill "$daemon_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -m 700 "$tmp/data" "$tmp/runtime" "$tmp/home"

# The daemon alone gets temporary XDG dirs: its keyring files and control
# socket then live in $tmp, and it cannot join a keyring daemon the user
# already runs. HOME only changes for it when HOME is unset.
password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
env_out=$(printf '%s' "$password" |
	XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/runtime" HOME="${HOME:-$tmp/home}" \
		gnome-keyring-daemon --unlock --components=secrets)
unset password
# Remembered so cleanup can stop it even if the bus lingers.
daemon_pid=$(printf '%s\n' "$env_out" | sed -n 's/^GNOME_KEYRING_PID=//p')

# The daemon claims org.freedesktop.secrets on the bus before --unlock returns
# on current versions; wait briefly in case an older one does not.
if command -v dbus-send >/dev/null 2>&1; then
	for _ in $(seq 50); do
		if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
			org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; then
			break
		fi
		sleep 0.1
	done
fi

export GW_ISOLATED_KEYRING=1
set +e
"$@"
status=$?
set -e
exit "$status"
