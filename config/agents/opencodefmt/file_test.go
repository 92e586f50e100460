package opencodefmt

// The merge with config/agentfile's locking, writing and diff, as gw init agent uses them.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/config/agentfile"
)

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Lock orders read-merge-write: two merges of different settings at once both end up in the file.
func TestLock_ConcurrentMergesKeepBoth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.jsonc")
	p := Provider{ID: ProviderID, Name: "Model Gateway", BaseURL: "http://127.0.0.1:8787/v1", APIKey: "{env:GW_API_KEY}",
		Models: []Model{{ID: "a/one", Name: "One", Context: 1000, Output: 100}, {ID: "a/two", Name: "Two", Context: 1000, Output: 100}}}
	var wg sync.WaitGroup
	for _, opts := range []MergeOptions{{Model: "a/one", SmallModel: "a/two"}, {}} {
		wg.Go(func() {
			release, err := agentfile.Lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			src, _, err := agentfile.Read(path)
			if err != nil {
				t.Error(err)
				return
			}
			res, err := Merge(src, p, opts)
			if err != nil {
				t.Error(err)
				return
			}
			var original []byte
			if _, err := os.Stat(path); err == nil {
				original = src
			}
			if _, err := agentfile.Write(path, original, res.Data); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	sum, err := ReadModels([]byte(readString(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Model != "gw/a/one" || len(sum.Providers) != 1 || len(sum.Providers[0].Models) != 2 {
		t.Fatalf("after two merges at once: model %q, providers %+v; want the default of the one and both models", sum.Model, sum.Providers)
	}
}

// The --dry-run diff is a real patch: applied with patch(1) to the old file
// it gives the new one, CRLF, BOM and missing final newlines included.
func TestDiffAppliesWithPatch(t *testing.T) {
	patchBin, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch(1) not installed")
	}
	files, _ := filepath.Glob("testdata/corpus/*")
	for _, name := range files {
		src, _ := os.ReadFile(name)
		res, err := Merge(src, testProvider(), MergeOptions{})
		if err != nil || !res.Changed || len(src) == 0 {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "opencode.jsonc"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(patchBin, "-p0", "--binary", "-s")
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(agentfile.Diff("opencode.jsonc", src, res.Data))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch: %v\n%s", err, out)
			}
			if got := readString(t, filepath.Join(dir, "opencode.jsonc")); got != string(res.Data) {
				t.Fatalf("patched file differs from the merge:\n%q\nwant\n%q", got, res.Data)
			}
		})
	}
}
