package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// The -translate benchmark runs end to end in a tiny configuration and
// reports every path, so scripts/bench-translate.sh cannot silently rot.
// claude-code-router is included when scripts/bench-translate.sh has
// installed it (and node runs it). The numbers are not looked at.
func TestTranslateBenchmarkReportsEveryPath(t *testing.T) {
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
	args := []string{"-translate", "-gw", gw, "-repo", filepath.Join("..", ".."), "-rounds", "1", "-events", "5",
		"-cpu-duration", "100ms", "-cpu-concurrency", "2", "-streams", "3",
		"-sched-concurrency", "1,2", "-sched-duration", "100ms", "-sched-events", "3", "-procs", "1,default"}
	ccr, _ := filepath.Abs(filepath.Join("..", "..", ".cache", "ccr", "node_modules", "@musistudio", "claude-code-router", "dist", "cli.js"))
	_, noNode := exec.LookPath("node")
	_, noCCR := os.Stat(ccr)
	withCCR := noNode == nil && noCCR == nil
	if withCCR {
		args = append(args, "-ccr", ccr)
	} else {
		t.Log("claude-code-router is not installed (scripts/bench-translate.sh installs it): its rows are not checked")
	}
	out, err := exec.Command(bench, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gw-bench -translate: %v\n%s", err, out)
	}
	report := string(out)
	paths := []string{"gw serve, chat passed through", "gw serve, Messages → chat", "gw serve, Responses → chat"}
	if withCCR {
		paths = append(paths, "claude-code-router, Messages → chat")
	}
	for _, p := range append([]string{"direct (chat)"}, paths...) {
		// per-event delay: a row with a p50
		if !regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(p) + ` \| [0-9.]+ [µm]s \| `).MatchString(report) {
			t.Errorf("no per-event delay row for %q", p)
		}
	}
	for _, p := range append([]string{floorName}, paths...) {
		// CPU per request: a row with requests answered, for each answer
		for _, answer := range []string{"3 deltas", "5 deltas"} {
			if !regexp.MustCompile(`(?m)^\| ` + answer + ` \| one-line question \| ` + regexp.QuoteMeta(p) + ` \| [1-9][0-9]* \| `).MatchString(report) {
				t.Errorf("no CPU row with requests answered for %q, answers of %s", p, answer)
			}
		}
	}
	// The floor passes the agents' turns through as chat, like gw serve.
	for _, req := range []string{"Claude Code turn", "Codex turn"} {
		if !regexp.MustCompile(`(?m)^\| 5 deltas \| ` + req + ` [^|]*\| ` + regexp.QuoteMeta(floorName) + ` \| [1-9][0-9]* \| `).MatchString(report) {
			t.Errorf("no CPU row of the floor for the %s", req)
		}
	}
	if withCCR {
		for _, p := range []string{floorName, "gw serve, Messages → chat"} {
			if !regexp.MustCompile(`(?m)^\| 5 deltas \| one-line question \| ` + regexp.QuoteMeta(p) + ` \| .* \| [0-9.]+× \[[^]]*\] \|$`).MatchString(report) {
				t.Errorf("the CPU row of %q has no ratio to claude-code-router", p)
			}
		}
		if !strings.Contains(report, "- 5 deltas, one-line question: floor ÷ claude-code-router ") {
			t.Error("no line saying whether a tenth of claude-code-router is below the floor")
		}
	}
	for _, p := range paths {
		mem := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(p) + ` \| ([0-9.]+) MB \| ([0-9.]+) MB \|$`).FindStringSubmatch(report)
		if mem == nil {
			t.Errorf("no memory row for %q", p)
		} else if runtime.GOOS == "linux" && (mem[1] == "0.0" || mem[2] == "0.0") {
			t.Errorf("the RSS of %q was not read", p)
		}
	}
	for _, conc := range []string{"1", "2"} {
		for _, kind := range []string{"Streams", "Small requests"} {
			i := strings.Index(report, "### "+kind+" at concurrency "+conc+"\n")
			if i < 0 {
				t.Errorf("no scheduler table for %s at concurrency %s", kind, conc)
				continue
			}
			table := report[i:]
			if j := strings.Index(table[4:], "###"); j >= 0 {
				table = table[:j+4]
			}
			want := []string{"direct", "ReverseProxy, Go defaults"}
			for _, s := range []string{"GOMAXPROCS=1", "its default"} {
				for _, p := range []string{"chat", "messages", "responses"} {
					want = append(want, "gw serve, "+s+", "+p)
				}
			}
			for _, p := range want {
				if !regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(p) + ` \| [1-9][0-9]* \| `).MatchString(table) {
					t.Errorf("%s at concurrency %s: no row with requests answered for %q", kind, conc, p)
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}
