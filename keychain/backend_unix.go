//go:build linux || freebsd || openbsd || netbsd || dragonfly

package keychain

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

const secretsName = "org.freedesktop.secrets"

// osBackendName names the Secret Service and, when D-Bus answers within
// timeout, the program that owns org.freedesktop.secrets ("gnome-keyring",
// "kwalletd6", "keepassxc"), read from /proc.
func osBackendName(timeout time.Duration) string {
	base := platformBackend(runtime.GOOS)
	done := make(chan string, 1)
	go func() { done <- secretServiceOwner() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case owner := <-done:
		if owner != "" {
			return base + " (" + owner + ")"
		}
	case <-timer.C:
	}
	return base
}

func secretServiceOwner() string {
	// A private connection: the shared one (dbus.SessionBus) may autolaunch a bus.
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return ""
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return ""
	}
	defer conn.Close()
	var pid uint32
	err = conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, secretsName).Store(&pid)
	if err != nil {
		return ""
	}
	comm, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(pid), 10) + "/comm")
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(comm))
	return strings.TrimSuffix(name, "-daemon") // gnome-keyring-daemon → gnome-keyring
}
