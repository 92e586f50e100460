package doctor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/standin"
)

// An OpenCode config a project planted as a named pipe, a link to /dev/zero or a 100 MB file: the
// agent_config check answers at once, naming the file and what to do; the run is not held up, and the
// network checks are not blamed.
func TestRun_AgentConfigNotARegularFileAnswersAtOnce(t *testing.T) {
	s := startStandin(t, standin.Options{})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", "opencode.json")
	zero := filepath.Join(dir, "zero", "opencode.json")
	huge := filepath.Join(dir, "huge", "opencode.json")
	for _, p := range []string{fifo, zero, huge} {
		if err := os.Mkdir(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Mkfifo(t, fifo)
	testutil.Symlink(t, "/dev/zero", zero)
	testutil.Sparse(t, huge, 100<<20)
	cases := []struct{ path, cause, fix string }{
		{fifo, "refusing to read " + fifo + ": it is a named pipe (FIFO), not a regular file; replace it with a regular file, or remove it",
			"replace " + fifo + " with a regular file (OpenCode's JSON config), or remove it"},
		{zero, "refusing to read " + zero + ": it is a symlink to /dev/zero, which is a character device, not a regular file; point the link at a regular file, or remove it",
			"replace " + zero + " with a regular file (OpenCode's JSON config), or remove it"},
		{huge, "refusing to read " + huge + ": it is larger than 4 MiB (100 MiB), too large for a config file; check that it is the right file, or move it away and run again",
			"check that " + huge + " is OpenCode's config; move it away if it is not"},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(filepath.Dir(tc.path)), func(t *testing.T) {
			in := input(s.BaseURL, standin.DemoKeyFull)
			in.NoProbe = true
			in.Agents = openCodeFiles(tc.path)
			var rep Report
			testutil.Within(t, 2*in.Timeout, "gw doctor", func() { rep = runDoctor(t, in) })
			c := wantStatus(t, rep, IDAgentConfig, Fail)
			if c.Cause != tc.cause || fixText(in, c) != tc.fix {
				t.Errorf("agent_config: cause %q\nfix %q\nwant cause %q\nfix %q", c.Cause, fixText(in, c), tc.cause, tc.fix)
			}
			for _, id := range []string{IDHTTP, IDKey, IDModels} {
				wantStatus(t, rep, id, Pass)
			}
		})
	}
}
