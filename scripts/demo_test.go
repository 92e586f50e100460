package scripts_test

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// demo runs scripts/demo.sh with its output piped, as in `scripts/demo.sh | less` or a CI log.
func demo(t *testing.T, env ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gw and runs the whole demo")
	}
	if runtime.GOOS == "windows" {
		t.Skip("demo.sh is a bash script")
	}
	for _, tool := range []string{"bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	cmd := exec.Command("bash", "demo.sh")
	cmd.Env = append(os.Environ(), append([]string{"TMPDIR=" + t.TempDir()}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	return string(out)
}

// Piped, the demo reads as it does on a terminal: no escape sequences, gw models as a table, the streamed
// answer as text, no warning of a helper program first, and it says where the key went and why.
func TestDemo_PipedOutputReadsLikeTheTerminal(t *testing.T) {
	out := demo(t)
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences in piped output:\n%q", out)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != "Building gw and the stand-in service..." {
		t.Errorf("first line %q, want the demo's own", first)
	}
	for _, want := range []string{
		"\nKey storage: ",
		"\n$ gw models\nID ",
		"\nvendor-a/model-a-haiku-4.5        Model A Haiku 4.5        200K",
		"\nThe answer, put together from the deltas: Hello from the gw stand-in (vendor-a/model-a-haiku-4.5).\n",
		"\nDemo done; everything it made is removed.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\t200000\t") || strings.Contains(out, `"content":"""content"`) {
		t.Errorf("raw piped formats in the demo:\n%s", out)
	}
}

// Where no throwaway keyring can be started, the demo says that it keeps the key in a file, and why.
func TestDemo_SaysWhyTheKeyIsInAFile(t *testing.T) {
	why := "gnome-keyring-daemon not installed, so no throwaway keyring can be started; for the OS keychain in the demo, install: sudo apt install gnome-keyring dbus"
	out := demo(t, "GW_DEMO_INNER=1", "GW_DEMO_KEYCHAIN=file", "GW_DEMO_WHY="+why)
	if !strings.Contains(out, "\nKey storage: a plain-text file in the demo's temporary directory (--insecure-storage): "+why+".\n") {
		t.Errorf("the demo does not say where the key went and why:\n%s", out)
	}
	if !strings.Contains(out, "gw auth login --base-url http") || !strings.Contains(out, " --with-key --insecure-storage\n") {
		t.Errorf("the login step does not show --insecure-storage:\n%s", out)
	}
}
