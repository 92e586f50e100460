//go:build unix

package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelgateway/gw/internal/fsutil"
)

// plantWhileAsked answers yes at the prompt, after planting a symlink: what changes in a project while
// the user reads the diff.
type plantWhileAsked struct {
	t            *testing.T
	target, link string
	done         bool
}

func (r *plantWhileAsked) Read(p []byte) (int, error) {
	if !r.done {
		r.done = true
		if err := os.Symlink(r.target, r.link); err != nil {
			r.t.Error(err)
		}
	}
	return copy(p, "y\n"), nil
}

// A project directory whose .claude becomes a link to a directory outside while gw init agent --project
// asks to confirm: the write is refused when the lock is taken, naming the link, and nothing is created
// outside (no config with the local token, no lock file).
func TestAgentRun_ProjectLinkPlantedAtThePromptIsRefused(t *testing.T) {
	e, _ := env(t)
	outside := t.TempDir()
	ios := e.Factory.IOStreams
	for _, f := range []func(bool){ios.SetStdinTTY, ios.SetStdoutTTY, ios.SetStderrTTY} {
		f(true)
	}
	link := filepath.Join(e.Dir, ".claude")
	ios.In = &plantWhileAsked{t: t, target: outside, link: link}
	err := run(t, e, AgentOptions{Agent: "claude-code", Project: true, Models: []string{"vendor-a/model-a-haiku-4.5"}})
	var oe *fsutil.OutsideError
	if !errors.As(err, &oe) || oe.Link != link {
		t.Fatalf("err = %v, want the link %s refused", err, link)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("gw created %s outside the project", entries[0].Name())
	}
}
