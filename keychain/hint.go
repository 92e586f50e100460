package keychain

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/modelgateway/gw/internal/fsutil"
)

// SetupCommand is, for a failure of the OS keychain, the command that installs the keychain this machine
// lacks: on Linux, when no Secret Service program is installed at all (a fresh server or container),
// "sudo apt install gnome-keyring", with the package manager of this distribution. It is "" when the failure
// is not the OS keychain's, when one is installed (the failure then says what is wrong with it), and on macOS
// and Windows, whose keychain is part of the system. It goes into the remedy.RepairKeychain of the failure.
func SetupCommand(err error) string {
	return setupCommand(err, runtime.GOOS, secretServiceInstalled, osRelease)
}

func setupCommand(err error, goos string, installed func() bool, release func() string) string {
	var ue *UnavailableError
	if goos != "linux" || !errors.As(err, &ue) || installed() {
		return ""
	}
	return installCommand(release())
}

// maxSystemFile caps what is read of the system's own small files (os-release, a D-Bus service file,
// /proc/PID/cmdline): what gw looks for is at their beginning.
const maxSystemFile = 64 << 10

func osRelease() string {
	for _, f := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if data, err := fsutil.ReadHead(f, maxSystemFile); err == nil {
			return string(data)
		}
	}
	return ""
}

// secretServiceInstalled looks for a program that provides the Secret Service: one on PATH, or one that
// D-Bus would start on demand (a service file claiming org.freedesktop.secrets).
func secretServiceInstalled() bool {
	for _, p := range []string{"gnome-keyring-daemon", "kwalletd6", "kwalletd5", "ksecretd", "keepassxc", "oo7-daemon"} {
		if _, err := exec.LookPath(p); err == nil {
			return true
		}
	}
	return claimsSecrets("/usr/share/dbus-1/services") || claimsSecrets("/usr/local/share/dbus-1/services")
}

// claimsSecrets: a D-Bus service file in dir claims org.freedesktop.secrets.
func claimsSecrets(dir string) bool {
	names, _ := fsutil.ReadDirNames(dir)
	for _, n := range names {
		if !strings.HasSuffix(n, ".service") {
			continue
		}
		if data, err := fsutil.ReadHead(filepath.Join(dir, n), maxSystemFile); err == nil && strings.Contains(string(data), "Name="+secretsBusName) {
			return true
		}
	}
	return false
}

const secretsBusName = "org.freedesktop.secrets"

// installCommand is the command that installs gnome-keyring on the distribution os-release describes (its
// ID and ID_LIKE); the common ones side by side when it is none of them.
func installCommand(osRelease string) string {
	var ids []string
	for line := range strings.SplitSeq(osRelease, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && (k == "ID" || k == "ID_LIKE") {
			ids = append(ids, strings.Fields(strings.ToLower(strings.Trim(v, `"'`)))...)
		}
	}
	for _, id := range ids {
		switch {
		case id == "debian" || id == "ubuntu":
			return "sudo apt install gnome-keyring"
		case id == "fedora" || id == "rhel" || id == "centos":
			return "sudo dnf install gnome-keyring"
		case id == "arch":
			return "sudo pacman -S gnome-keyring"
		case id == "suse" || strings.HasPrefix(id, "opensuse"):
			return "sudo zypper install gnome-keyring"
		case id == "alpine":
			return "sudo apk add gnome-keyring"
		}
	}
	return "sudo apt install gnome-keyring (Debian, Ubuntu), sudo dnf install gnome-keyring (Fedora), sudo pacman -S gnome-keyring (Arch)"
}
