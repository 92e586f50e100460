package logs

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/reqlog"
)

func TestNewCmdLogs_Flags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		check   func(*LogsOptions) bool
	}{
		{args: []string{"-f", "--since", "2h", "--json", "--agent", "codex", "--model", "m", "--status", "4xx"},
			check: func(o *LogsOptions) bool {
				return o.Follow && o.Since == "2h" && o.JSON && o.Agent == "codex" && o.Model == "m" && o.Status == "4xx"
			}},
		{args: []string{"--since", "7d"}, check: func(o *LogsOptions) bool { return o.Since == "7d" }},
		{args: []string{"--since", "yesterday"}, wantErr: `--since "yesterday": give a duration such as 30m, 12h, 7d or 2w`},
		{args: []string{"--status", "2x"}, wantErr: `--status "2x": give a status code (429), a class (4xx) or error`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := cmdtest.New(t)
			var got *LogsOptions
			cmd := NewCmdLogs(e.Factory, func(_ context.Context, o *LogsOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
					t.Fatalf("err = %v, want usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("err = %v, options %+v", err, got)
			}
		})
	}
}

// writeLog writes entries to the request log of e's state directory.
func writeLog(t *testing.T, e *cmdtest.Env, entries ...reqlog.Entry) *reqlog.File {
	t.Helper()
	f, err := reqlog.Open(filepath.Join(e.Vars["XDG_STATE_HOME"], "gw"))
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local)

// On a terminal the status is coloured by class and the header is bold;
// --since counts back from now.
func TestLogsRun_TerminalColoursAndSince(t *testing.T) {
	e := cmdtest.New(t)
	writeLog(t, e,
		reqlog.Entry{Time: now.Add(-3 * time.Hour), Method: "POST", Path: "/v1/messages", Agent: "claude-code", Model: "m1", Status: 200, Proto: "messages"},
		reqlog.Entry{Time: now.Add(-30 * time.Minute), Method: "POST", Path: "/v1/messages", Agent: "claude-code", Model: "m1", Status: 200,
			HasUsage: true, Input: 100, Cached: 40, Output: 7, Proto: "messages"},
		reqlog.Entry{Time: now.Add(-20 * time.Minute), Method: "POST", Path: "/v1/responses", Agent: "codex", Model: "m2", Status: 429, Proto: "responses"},
		reqlog.Entry{Time: now.Add(-10 * time.Minute), Method: "POST", Path: "/v1/responses", Agent: "codex", Model: "m2", Status: 502,
			Condition: reqlog.ServiceUnreachable, Proto: "responses"},
	)
	e.Factory.IOStreams.SetStdoutTTY(true)
	if err := logsRun(context.Background(), &LogsOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths, Since: "1h", Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	out := e.Out.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want the header and the 3 requests of the last hour:\n%s", len(lines), out)
	}
	for i, want := range []string{"\x1b[1mTIME ", "\x1b[32m200   \x1b[0m", "\x1b[33m429   \x1b[0m", "\x1b[31m502   \x1b[0m"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %q\nwant it to contain %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[1], "     100        40         7") || !strings.Contains(lines[3], "service unreachable") {
		t.Errorf("tokens or condition missing:\n%s", out)
	}
}

// Nothing to show on a terminal says why, on stderr.
func TestLogsRun_NoLogYet(t *testing.T) {
	e := cmdtest.New(t)
	e.Factory.IOStreams.SetStdoutTTY(true)
	if err := logsRun(context.Background(), &LogsOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths}); err != nil {
		t.Fatal(err)
	}
	if e.Out.String() != "" || !strings.HasPrefix(e.ErrOut.String(), "No requests logged yet: gw serve writes them to ") {
		t.Errorf("stdout %q, stderr %q", e.Out, e.ErrOut)
	}
}

// -f shows the lines gw serve writes while it runs, filtered, until it is
// stopped.
func TestLogsRun_Follow(t *testing.T) {
	e := cmdtest.New(t)
	f := writeLog(t, e, reqlog.Entry{Time: now, Method: "GET", Path: "/v1/models", Status: 200, Proto: "chat"})
	var out testutil.SyncBuffer
	e.Factory.IOStreams.Out = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- logsRun(ctx, &LogsOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths, Follow: true, JSON: true, Agent: "codex", Poll: time.Millisecond})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; !strings.Contains(out.String(), `"model":"m2"`); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("followed:\n%s", out.String())
		}
		for _, en := range []reqlog.Entry{
			{Time: now, Method: "POST", Path: "/v1/messages", Agent: "claude-code", Model: "m1", Status: 200, Proto: "messages"},
			{Time: now, Method: "POST", Path: "/v1/responses", Agent: "codex", Model: "m2", Status: 200, Proto: "responses"},
		} {
			if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, `"m1"`) || strings.Contains(got, "/v1/models") || !strings.HasPrefix(got, `{"time":`) {
		t.Errorf("followed more than codex's new lines:\n%s", got)
	}
}

// A named pipe planted at serve.log is refused at once, for gw logs and
// gw logs -f alike: neither waits on it.
func TestLogsRun_NamedPipeRefused(t *testing.T) {
	e := cmdtest.New(t)
	dir := filepath.Join(e.Vars["XDG_STATE_HOME"], "gw")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	testutil.Mkfifo(t, filepath.Join(dir, reqlog.Name))
	testutil.Within(t, 10*time.Second, "gw logs on a named pipe", func() {
		err := logsRun(context.Background(), &LogsOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths})
		if err == nil || !strings.Contains(err.Error(), "named pipe") || e.Out.String() != "" {
			t.Errorf("err = %v, stdout %q", err, e.Out)
		}
	})
}

// A damaged compressed file of the log is named once on stderr (not once
// per pass over the log); every other line is shown, in order.
func TestLogsRun_DamagedRotatedFileIsNamedOnce(t *testing.T) {
	e := cmdtest.New(t)
	dir := filepath.Join(e.Vars["XDG_STATE_HOME"], "gw")
	f := &reqlog.File{Path: filepath.Join(dir, reqlog.Name), MaxSize: 100}
	defer f.Close()
	for i := range 5 { // one line a file: serve.log.2.gz … serve.log.4.gz
		en := reqlog.Entry{Time: now.Add(time.Duration(i-5) * time.Minute), Method: "POST", Path: "/v1/messages", Model: "m" + strconv.Itoa(i), Status: 200, Proto: "messages"}
		if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, reqlog.Name+".3.gz")
	if err := os.WriteFile(bad, []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Factory.IOStreams.SetStdoutTTY(true)
	if err := logsRun(context.Background(), &LogsOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	var models []string
	for _, l := range strings.Split(e.Out.String(), "\n") {
		for _, field := range strings.Fields(l) {
			if len(field) == 2 && field[0] == 'm' {
				models = append(models, field)
			}
		}
	}
	// serve.log.3.gz held the second request, m1.
	if strings.Join(models, ",") != "m0,m2,m3,m4" {
		t.Errorf("shown %v, want m0, m2, m3, m4:\n%s", models, e.Out)
	}
	if warn := e.ErrOut.String(); strings.Count(warn, "\n") != 1 || !strings.Contains(warn, bad) {
		t.Errorf("stderr %q; want one line naming %s", warn, bad)
	}
}

// Under -f the columns keep where the header put them when a longer model id
// arrives: the model column has a fixed width, and a longer id is shortened
// in its middle, its vendor and version kept.
func TestLogsRun_FollowKeepsColumns(t *testing.T) {
	e := cmdtest.New(t)
	f := writeLog(t, e)
	var out testutil.SyncBuffer
	e.Factory.IOStreams.Out = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- logsRun(ctx, &LogsOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths, Follow: true, Poll: time.Millisecond})
	}()
	long := "vendor-b/model-b-3-flash-preview-with-a-very-long-suffix-2026-11"
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "-2026-11") {
		if time.Now().After(deadline) {
			t.Fatalf("followed:\n%s", out.String())
		}
		for _, en := range []reqlog.Entry{
			{Time: now, Method: "POST", Path: "/v1/messages", Agent: "claude-code", Model: "m1", Status: 200, Proto: "messages"},
			{Time: now, Method: "POST", Path: "/v1/responses", Agent: "codex", Model: long, Status: 200, Proto: "responses"},
		} {
			if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	col := strings.Index(lines[0], "STATUS")
	for _, l := range lines[1:] {
		if got := strings.Index(l, "200"); utf8.RuneCountInString(l[:got]) != col {
			t.Errorf("the status is in column %d, the header's in %d:\n%s", utf8.RuneCountInString(l[:got]), col, out.String())
			break
		}
	}
	if !strings.Contains(out.String(), "vendor-b/model-…g-suffix-2026-11  200") {
		t.Errorf("the long id is not shortened in its middle:\n%s", out.String())
	}
}
