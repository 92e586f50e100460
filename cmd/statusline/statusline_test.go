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

// The JSON Claude Code 2.1.330 piped to its status-line command after a
// turn, recorded with Claude Code run against gw serve; only its paths
// were replaced.
const recordedClaudeCodeStatus = `{"session_id":"2e0ef108-26b4-44b3-b13a-bfbfb5f6dced","transcript_path":"/home/user/.claude/projects/-home-user-project/2e0ef108-26b4-44b3-b13a-bfbfb5f6dced.jsonl","cwd":"/home/user/project","prompt_id":"98eb0cd2-1b77-4a7d-b7c4-6632d8df776d","effort":{"level":"high"},"model":{"id":"vendor-a/model-a-opus-4.6","display_name":"vendor-a/model-a-opus-4.6"},"workspace":{"current_dir":"/home/user/project","project_dir":"/home/user/project","added_dirs":[]},"version":"2.1.330","output_style":{"name":"default"},"cost":{"total_cost_usd":0.08065,"total_duration_ms":17775,"total_api_duration_ms":120,"total_lines_added":0,"total_lines_removed":0},"context_window":{"total_input_tokens":12878,"total_output_tokens":14,"context_window_size":1000000,"current_usage":{"input_tokens":150,"output_tokens":14,"cache_creation_input_tokens":12728,"cache_read_input_tokens":0},"used_percentage":1,"remaining_percentage":99},"exceeds_200k_tokens":false,"prompt_cache":{"warm":true,"caching_observed":true,"ttl":"5m","expires_at":1795675072,"requests":1,"misses":0,"expected_rebuilds":0,"hit_ratio":0,"cache_write_tokens":12728,"miss_recache_tokens":0,"last_miss_at":null,"last_miss_cause":null,"miss_causes":{},"recache_tokens_if_cold":12878},"fast_mode":false,"thinking":{"enabled":true}}`

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
// the request log; yesterday's are not counted, nor what gw serve refused
// itself as a failure.
func TestStatuslineRun_RecordedClaudeCodeJSON_TodaysTokens(t *testing.T) {
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
		// Claude Code's own check at start, without a token: refused by gw serve, no failure.
		{Time: now.Add(-time.Minute), Method: "HEAD", Path: "/api/hello", Status: 401, Proto: "chat", Note: "refused=local_token_missing"},
		{Time: now.Add(-time.Minute), Method: "POST", Path: "/v1/messages", Model: "x", Status: 404, Condition: reqlog.UnknownModel, Proto: "messages"},
	} {
		if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
			t.Fatal(err)
		}
	}
	e.In.WriteString(recordedClaudeCodeStatus)
	if err := statuslineRun(context.Background(), &StatuslineOptions{IO: e.Factory.IOStreams, Config: e.Factory.Config, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if want := "gw ○ down, run gw serve · vendor-a/model-a-opus-4.6 · today 20K in (75% cached), 2K out, 1 failed\n"; e.Out.String() != want {
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
		if err := statuslineRun(context.Background(), &StatuslineOptions{IO: e.Factory.IOStreams, Config: e.Factory.Config}); err != nil {
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
