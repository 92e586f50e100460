package usage

import (
	"context"
	"encoding/json"
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
