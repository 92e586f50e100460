package keychain

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/testutil"
)

// A keychain failure on a Linux machine with no Secret Service installed names what is missing and the
// command that installs it, for this distribution.
func TestSetupCommand(t *testing.T) {
	unusable := &UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")}
	none := func() bool { return false }
	debian := func() string { return "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n" }
	for _, tc := range []struct {
		name      string
		err       error
		goos      string
		installed func() bool
		release   func() string
		want      string
	}{
		{"nothing installed", unusable, "linux", none, debian, "sudo apt install gnome-keyring"},
		{"installed: the failure says what is wrong", unusable, "linux", func() bool { return true }, debian, ""},
		{"timed out: something answers", &TimeoutError{Op: "reading the key", Backend: "Secret Service"}, "linux", none, debian, ""},
		{"not the keychain's failure", errors.New("disk full"), "linux", none, debian, ""},
		{"macOS", unusable, "darwin", none, debian, ""},
	} {
		if got := setupCommand(tc.err, tc.goos, tc.installed, tc.release); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestInstallCommand(t *testing.T) {
	for release, want := range map[string]string{
		"ID=ubuntu\nID_LIKE=debian\n":               "sudo apt install gnome-keyring",
		"ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n": "sudo apt install gnome-keyring",
		"ID=fedora\n": "sudo dnf install gnome-keyring",
		"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"": "sudo dnf install gnome-keyring",
		"ID=arch\n":                  "sudo pacman -S gnome-keyring",
		"ID=manjaro\nID_LIKE=arch\n": "sudo pacman -S gnome-keyring",
		"ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n": "sudo zypper install gnome-keyring",
		"ID=alpine\n": "sudo apk add gnome-keyring",
		"":            "sudo apt install gnome-keyring (Debian, Ubuntu), sudo dnf install gnome-keyring (Fedora), sudo pacman -S gnome-keyring (Arch)",
		"ID=nixos\n":  "sudo apt install gnome-keyring (Debian, Ubuntu), sudo dnf install gnome-keyring (Fedora), sudo pacman -S gnome-keyring (Arch)",
	} {
		if got := installCommand(release); got != want {
			t.Errorf("os-release %q: %q, want %q", release, got, want)
		}
	}
}

// A Secret Service that D-Bus starts on demand is found by its service file; a named pipe among the
// service files (or where the directory should be) is passed over at once, never waited on.
func TestClaimsSecrets(t *testing.T) {
	dir := t.TempDir()
	testutil.Mkfifo(t, filepath.Join(dir, "a-pipe.service"))
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("org.freedesktop.Notifications.service", "[D-BUS Service]\nName=org.freedesktop.Notifications\n")
	testutil.Within(t, 10*time.Second, "reading D-Bus service files", func() {
		if claimsSecrets(dir) {
			t.Error("no service file claims org.freedesktop.secrets, but one was found")
		}
		write("org.freedesktop.secrets.service", "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets\n")
		if !claimsSecrets(dir) {
			t.Error("the service file claiming org.freedesktop.secrets was not found")
		}
		if claimsSecrets(filepath.Join(dir, "a-pipe.service")) || claimsSecrets(filepath.Join(dir, "none")) {
			t.Error("a named pipe or a missing directory claims the Secret Service")
		}
	})
}
