package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The benchmark runs end to end in a tiny configuration and reports every
// path, so scripts/bench-proxy.sh cannot silently rot. It measures nothing
// here: the numbers are not looked at, only that each path answered.
func TestBenchmarkReportsEveryPath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	dir := t.TempDir()
	gw, bench := filepath.Join(dir, "gw"), filepath.Join(dir, "gw-bench")
	for exe, pkg := range map[string]string{gw: "github.com/modelgateway/gw/cmd/gw", bench: "github.com/modelgateway/gw/tools/gw-bench"} {
		if out, err := exec.Command("go", "build", "-o", exe, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	cmd := exec.Command(bench, "-gw", gw, "-gw-before", gw, "-gw-handler", "-concurrency", "1,3",
		"-duration", "200ms", "-rounds", "1", "-events", "5", "-streams", "3", "-starts", "1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gw-bench: %v\n%s", err, out)
	}
	report := string(out)
	paths := []string{"direct", "gw serve", "gw serve (before)", "gw handler, small process",
		"byte relay, Go net (floor)", "baseline, Go defaults", "baseline"}
	for _, conc := range []string{"1", "3"} {
		want := paths
		if conc == "1" && runtime.GOOS != "windows" {
			want = append(slices.Clone(paths), blockingRelay)
		}
		for _, p := range want {
			row := regexp.MustCompile(`(?m)^\| ` + conc + ` \| ` + regexp.QuoteMeta(p) + ` \| [1-9][0-9]* \| `)
			if !row.MatchString(report) {
				t.Errorf("no small-request row with requests answered for %q at concurrency %s", p, conc)
			}
		}
	}
	for _, p := range []string{"direct", "gw serve", "gw handler, small process", "baseline"} {
		if !strings.Contains(report, "| "+p+" | ") {
			t.Errorf("no per-event or memory row for %q", p)
		}
	}
	if strings.Contains(report, "| 3 | "+blockingRelay) {
		t.Errorf("the blocking relay was measured at concurrency 3, where it starves connections")
	}
	if runtime.GOOS == "linux" && strings.Contains(report, "| gw serve | 0.0 MB") {
		t.Errorf("gw serve's RSS was not read:\n%s", report)
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}
