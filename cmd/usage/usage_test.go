package usage

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/reqlog"
)

func TestNewCmdUsage_Flags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		check   func(*UsageOptions) bool
	}{
		{args: nil, check: func(o *UsageOptions) bool { return o.Since == "7d" && o.By == "day" && !o.JSON }},
		{args: []string{"--since", "30d", "--by", "model", "--json"}, check: func(o *UsageOptions) bool { return o.Since == "30d" && o.By == "model" && o.JSON }},
		{args: []string{"--by", "agent"}, check: func(o *UsageOptions) bool { return o.By == "agent" }},
		{args: []string{"--by", "hour"}, wantErr: `--by "hour": give day, model or agent`},
		{args: []string{"--since", "0d"}, wantErr: `--since "0d": give a duration such as 30m, 12h, 7d or 2w`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := cmdtest.New(t)
			var got *UsageOptions
			cmd := NewCmdUsage(e.Factory, func(_ context.Context, o *UsageOptions) error { got = o; return nil })
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

// --since counts back from now: a request of 8 days ago is not in the last
// 7 days' totals, one of an hour ago is.
func TestUsageRun_SinceCountsBackFromNow(t *testing.T) {
	e := cmdtest.New(t)
	f, err := reqlog.Open(filepath.Join(e.Vars["XDG_STATE_HOME"], "gw"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local)
	for _, en := range []reqlog.Entry{
		{Time: now.Add(-8 * 24 * time.Hour), Method: "POST", Path: "/v1/messages", Model: "old", Status: 200, HasUsage: true, Input: 5000, Output: 5, Proto: "messages"},
		{Time: now.Add(-time.Hour), Method: "POST", Path: "/v1/messages", Model: "new", Status: 200, HasUsage: true, Input: 300, Cached: 100, Output: 9, Proto: "messages"},
		{Time: now.Add(time.Hour), Method: "POST", Path: "/v1/messages", Model: "future", Status: 200, HasUsage: true, Input: 7, Output: 7, Proto: "messages"},
	} {
		if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
			t.Fatal(err)
		}
	}
	if err := usageRun(&UsageOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths, Since: "7d", By: "model", JSON: true, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Total.Requests != 1 || r.Total.Input != 300 || r.CacheRatio != 0.333 || len(r.Rows) != 1 || r.Rows[0].Key != "new" {
		t.Errorf("report %+v", r)
	}
}

// A damaged compressed file of the log (serve.log.3.gz) is named in one
// line on stderr; the totals are those of every other request, and the
// report is still printed.
func TestUsageRun_DamagedRotatedFileIsNamedAndTheRestCounted(t *testing.T) {
	e := cmdtest.New(t)
	dir := filepath.Join(e.Vars["XDG_STATE_HOME"], "gw")
	f := &reqlog.File{Path: filepath.Join(dir, reqlog.Name), MaxSize: 100}
	defer f.Close()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local)
	for i := range 6 { // one line a file: serve.log.2.gz … serve.log.5.gz
		en := reqlog.Entry{Time: now.Add(time.Duration(i-6) * time.Hour), Method: "POST", Path: "/v1/messages", Model: "m", Status: 200, HasUsage: true, Input: int64(100 << i), Output: 1, Proto: "messages"}
		if _, err := f.Write(reqlog.Append(nil, &en)); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, reqlog.Name+".3.gz")
	if err := os.WriteFile(bad, []byte("not gzip\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := usageRun(&UsageOptions{IO: e.Factory.IOStreams, Paths: e.Factory.Paths, Since: "7d", By: "model", JSON: true, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	// serve.log.3.gz held the third request: 100<<2.
	if want := int64(100+200+800+1600+3200) * 1; r.Total.Requests != 5 || r.Total.Input != want {
		t.Errorf("totals %+v, want 5 requests, %d tokens in", r.Total, want)
	}
	warn := e.ErrOut.String()
	if strings.Count(warn, "\n") != 1 || !strings.HasPrefix(warn, "! ") || !strings.Contains(warn, bad) || !strings.Contains(warn, "damaged") {
		t.Errorf("stderr %q; want one line naming %s", warn, bad)
	}
}
