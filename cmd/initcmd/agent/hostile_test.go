package agent

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/config/agents/opencodefmt"
	"github.com/modelgateway/gw/internal/testutil"
)

// Two gw init agent at once on the same OpenCode config: the second merges into the first one's result,
// so what each set is in the file (the default model of the one, the models of both), and only one of
// them reports the models as added.
func TestAgentRun_TwoAtOnceBothKept(t *testing.T) {
	a, path := env(t)
	b := cmdtest.New(t)
	for k, v := range a.Vars { // the same HOME, service and key
		b.Vars[k] = v
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := []string{"vendor-a/model-a-sonnet-4.5", "vendor-a/model-a-haiku-4.5"}
	var wg sync.WaitGroup
	var errA, errB error
	wg.Go(func() { errA = run(t, a, AgentOptions{Models: ids, Default: ids[0], Yes: true}) })
	wg.Go(func() { errB = run(t, b, AgentOptions{Models: ids, Yes: true}) })
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("errors: %v; %v", errA, errB)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := opencodefmt.ReadModels(data)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Model != "gw/"+ids[0] || len(sum.Providers) != 1 || strings.Join(sum.Providers[0].Models, ",") != strings.Join(ids, ",") {
		t.Errorf("after two runs at once the file has model %q and providers %+v; want the default of the one and both models:\n%s", sum.Model, sum.Providers, data)
	}
	if !strings.Contains(string(data), `"theme": "dark"`) {
		t.Errorf("the user's setting was lost:\n%s", data)
	}
	added := 0
	for _, e := range []*cmdtest.Env{a, b} {
		if strings.Contains(e.Out.String(), "  added:") {
			added++
		}
	}
	if added != 1 {
		t.Errorf("%d runs report the models as added, want 1 (the second merges into the first one's result):\n%s\n%s", added, a.Out, b.Out)
	}
	assertNoLeftovers(t, filepath.Dir(path))
}

// assertNoLeftovers: no temporary or lock file stays beside OpenCode's config.
func assertNoLeftovers(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// A project that ships opencode.json with opencode.json.bak linked to the user's ~/.bashrc: refused, the
// file outside and the project's config untouched, the error says what to do.
func TestAgentRun_ProjectBackupLinkedOutsideIsRefused(t *testing.T) {
	e, _ := env(t)
	project := e.Dir
	bashrc := filepath.Join(e.Dir, "home", ".bashrc")
	if err := os.MkdirAll(filepath.Dir(bashrc), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bashrc, []byte("alias ll='ls -l'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(project, "opencode.json")
	if err := os.WriteFile(cfg, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Symlink(t, bashrc, cfg+".bak")
	err := run(t, e, AgentOptions{Project: true, Models: []string{"all"}, Yes: true})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", scrub(e, cmdutil.ErrorWithFix(err)), "refusing to write the backup $DIR/opencode.json.bak: it is a symlink (to $DIR/home/.bashrc); "+
		"gw writes its backups only as regular files of its own, never through a link or into anything else; remove it (rm $DIR/opencode.json.bak) and run again\n(nothing was changed)")
	if b, _ := os.ReadFile(bashrc); string(b) != "alias ll='ls -l'\n" {
		t.Fatalf("~/.bashrc was written through the link: %q", b)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "{}\n" {
		t.Fatalf("the project's config was changed: %q", b)
	}
	assertNoLeftovers(t, project)
}

// opencode.json as a named pipe: gw init agent refuses it at once instead of waiting for a writer forever.
func TestAgentRun_ProjectConfigNamedPipeIsRefusedAtOnce(t *testing.T) {
	e, _ := env(t)
	cfg := filepath.Join(e.Dir, "opencode.json")
	testutil.Mkfifo(t, cfg)
	var err error
	testutil.Within(t, 20*time.Second, "gw init agent", func() {
		err = run(t, e, AgentOptions{Project: true, Models: []string{"all"}, Yes: true})
	})
	if err == nil {
		t.Fatal("want an error")
	}
	compare(t, "error", scrub(e, cmdutil.ErrorWithFix(err)), "refusing to read $DIR/opencode.json: it is a named pipe (FIFO), not a regular file; replace it with a regular file, or remove it")
	assertNoLeftovers(t, e.Dir)
}
