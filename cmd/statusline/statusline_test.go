package statusline

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/internal/testutil"
	"github.com/modelgateway/gw/reqlog"
)

// The JSON Claude Code 2.1.330 pipes to a status-line command, built from
// the CLI's own code for it (not recorded from a running Claude Code).
const claudeCodeStatusFromSource = `{"hook_event_name":"Status","session_id":"3f1c2a9e-5b7d-4e2a-9c1f-8d6e4b2a7c10",` +
	`"transcript_path":"/home/user/.claude/projects/p/3f1c2a9e.jsonl","cwd":"/home/user/project",` +
	`"model":{"id":"vendor-a/model-a-sonnet-4.6","display_name":"Model A Sonnet 4.6"},` +
	`"workspace":{"current_dir":"/home/user/project","project_dir":"/home/user/project","added_dirs":[]},"version":"2.1.330",` +
	`"output_style":{"name":"default"},"cost":{"total_cost_usd":0.0123,"total_duration_ms":45000,"total_api_duration_ms":2300,` +
	`"total_lines_added":156,"total_lines_removed":23},"context_window":{"total_input_tokens":15500,"total_output_tokens":1200,` +
	`"context_window_size":200000,"current_usage":{"input_tokens":8500,"output_tokens":1200,"cache_creation_input_tokens":5000,` +
	`"cache_read_input_tokens":2000},"used_percentage":8,"remaining_percentage":92},"exceeds_200k_tokens":false,"fast_mode":false,"thinking":{"enabled":false}}`

func configure(t *testing.T, e *cmdtest.Env, port int) {
	t.Helper()
	dir := filepath.Join(e.Vars["XDG_CONFIG_HOME"], "gw")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"local_token": "gw-local-0123456789abcdef0123456789abcdef", "port": ` + strconv.Itoa(port) + "}"
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Today's tokens (from midnight, local time) and the cache ratio come from
// the request log; yesterday's are not counted.
func TestStatuslineRun_FixtureFromClaudeCodeSource_TodaysTokens(t *testing.T) {
	e := cmdtest.New(t)
	configure(t, e, 1)
	f, err := reqlog.Open(filepath.Join(e.Vars["XDG_STATE_HOME"], "gw"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.Local)
	for _, en := range []reqlog.Entry{
		{Time: now.Add(-10 * time.Hour), Method: "POST", Path: "/v1/messages", Status: 200, HasUsage: true, Input: 999999, Output: 9, Proto: "messages"},
		{Time: now.Add(-time.Hour), Method: "POST", Path: "/v1/messages", Status: 200, HasUsage: true, Input: 12000, Cached: 9000, Output: 1500, Proto: "messages"},
		{Time: now.Add(-time.Minute), Method: "POST", Path: "/v1/messages", Status: 200, HasUsage: true, Input: 8000, Cached: 6000, Output: 500, Proto: "messages"},
	} {
		if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
			t.Fatal(err)
		}
	}
	e.In.WriteString(claudeCodeStatusFromSource)
	if err := statuslineRun(context.Background(), &StatuslineOptions{Factory: e.Factory, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if want := "gw ○ down, run gw serve · Model A Sonnet 4.6 · today 20K in (75% cached), 2K out\n"; e.Out.String() != want {
		t.Errorf("got  %q\nwant %q", e.Out.String(), want)
	}
}

// Claude Code waits for its status line: gw statusline returns even when
// its standard input is never closed and the configured port accepts
// connections but never answers (a hung gw serve).
func TestStatuslineRun_NeverHangs(t *testing.T) {
	e := cmdtest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	configure(t, e, ln.Addr().(*net.TCPAddr).Port)
	r, w := io.Pipe()
	defer w.Close()
	e.Factory.IOStreams.In = r
	go func() { _, _ = w.Write([]byte(`{"model":{"display_name":"Sonnet`)) }() // and never more
	testutil.Within(t, 10*time.Second, "gw statusline", func() {
		if err := statuslineRun(context.Background(), &StatuslineOptions{Factory: e.Factory}); err != nil {
			t.Error(err)
		}
	})
	if got := e.Out.String(); !strings.HasPrefix(got, "gw ○ down, run gw serve") || strings.Count(got, "\n") != 1 {
		t.Errorf("got %q", got)
	}
}

// Whatever Claude Code sends as the model, the line stays one line.
func TestModelNameIsOneBoundedLine(t *testing.T) {
	var v input
	v.Model.DisplayName = "a\nb\x1b[31m" + strings.Repeat("x", 100)
	got := modelName(v)
	if strings.ContainsAny(got, "\n\x1b") || len(got) > 64 {
		t.Errorf("modelName = %q", got)
	}
}
