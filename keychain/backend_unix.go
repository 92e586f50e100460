//go:build linux || freebsd || openbsd || netbsd || dragonfly

package keychain

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/modelgateway/gw/internal/fsutil"
)

const secretsName = "org.freedesktop.secrets"

// osBackendName names the Secret Service and, when D-Bus answers, the program
// that owns org.freedesktop.secrets ("gnome-keyring", "kwalletd6",
// "keepassxc"), read from /proc. A D-Bus that never answers makes it hang:
// the store bounds the wait.
func osBackendName() string {
	base := platformBackend(runtime.GOOS)
	if owner := secretServiceOwner(); owner != "" {
		return base + " (" + owner + ")"
	}
	return base
}

func secretServiceOwner() string {
	conn, err := connectSessionBus()
	if err != nil {
		return ""
	}
	defer conn.Close()
	return ownerOn(conn)
}

// ownerOn names the program that owns org.freedesktop.secrets, asking over an
// open session-bus connection; "" when it cannot tell.
func ownerOn(conn *dbus.Conn) string {
	var pid uint32
	err := conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, secretsName).Store(&pid)
	if err != nil {
		return ""
	}
	// cmdline, not comm: comm is cut at 15 bytes ("gnome-keyring-d").
	cmdline, err := fsutil.ReadHead("/proc/"+strconv.FormatUint(uint64(pid), 10)+"/cmdline", maxSystemFile)
	if err != nil {
		return ""
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	name := filepath.Base(strings.TrimSpace(argv0))
	if name == "." || name == "/" {
		return ""
	}
	return strings.TrimSuffix(name, "-daemon") // gnome-keyring-daemon → gnome-keyring
}

// connectSessionBus connects to the user's session bus without starting one:
// godbus (and so go-keyring) would otherwise run dbus-launch, leaving a bus
// and a keyring daemon behind that nobody can unlock.
func connectSessionBus() (*dbus.Conn, error) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, err
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// platformPrecheck fails fast, before go-keyring runs, when there is no
// session bus to find a Secret Service on (an SSH login, a container). On
// success the connection stays open until the returned func, called after
// go-keyring has answered (and so activated the service), names the backend
// over it and closes it: naming costs no connection of its own.
func platformPrecheck() (name func() string, err error) {
	conn, err := connectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("no D-Bus session bus (%v), so no Secret Service to keep the key", err)
	}
	return func() string {
		defer conn.Close()
		if owner := ownerOn(conn); owner != "" {
			return platformBackend(runtime.GOOS) + " (" + owner + ")"
		}
		return ""
	}, nil
}
