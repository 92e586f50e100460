package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

// The baseline, in a process of its own as the benchmark runs it, passes
// streamed POSTs through whole when several run at once: without full
// duplex, net/http closed each request body as the answer began and the
// transport then cut most of the streams.
func TestBaselineStreamsWholeAtConcurrency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bench := filepath.Join(t.TempDir(), "gw-bench")
	if out, err := exec.Command("go", "build", "-o", bench, "github.com/modelgateway/gw/tools/gw-bench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	upstream, stop, err := serveStandin(standin.New(standin.Options{ContentChunks: 24, ChunkSize: 32}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx := context.Background()
	base, _, err := start(ctx, "baseline", append(os.Environ(), "GW_API_KEY="+standin.DemoKeyFull, "GOMAXPROCS=2"),
		bench, "-baseline", strings.TrimSuffix(upstream, "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer base.stop()
	xs, _, err := drive(ctx, base.base, "unused", protoChat, smallBody(protoChat, true), true, 3, time.Second, nil)
	if err != nil {
		t.Fatalf("after %d whole streams: %v", len(xs), err)
	}
}
