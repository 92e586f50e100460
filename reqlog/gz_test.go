package reqlog

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

var (
	realAgents = []string{"claude-code", "claude-code", "claude-code", "codex", "codex", "opencode", "gemini-cli", ""}
	realModels = []string{"vendor-a/model-a-sonnet-4.5", "vendor-a/model-a-opus-4.1", "vendor-a/model-a-haiku-4.5",
		"vendor-b/model-b-3-flash-preview", "vendor-b/model-b-2.5-pro", "vendor-c/model-c-5-codex", "vendor-c/model-c-5-mini", "vendor-d/model-d-coder-480b"}
)

// realEntry is a request as a busy user's agents make them, drawn from r:
// agents and models in uneven shares, token counts and durations that
// vary as real ones do (a generated log of repeating numbers would
// compress far better than a real one), and failures now and then.
func realEntry(r *rand.Rand, t time.Time) Entry {
	e := Entry{Time: t, Method: "POST", Agent: realAgents[r.IntN(len(realAgents))], Model: realModels[r.IntN(len(realModels))],
		Status: 200, Dur: time.Duration(r.Int64N(int64(90*time.Second))) + 150*time.Millisecond, Stream: r.IntN(10) > 0}
	switch e.Agent {
	case "codex":
		e.Proto, e.Path = "responses", "/v1/responses"
	case "gemini-cli":
		e.Proto, e.Path = "gemini", "/v1beta/models/"+e.Model[9:]+":streamGenerateContent"
	case "opencode", "":
		e.Proto, e.Path = "chat", "/v1/chat/completions"
	default:
		e.Proto, e.Path = "messages", "/v1/messages"
	}
	switch k := r.IntN(100); {
	case k < 2:
		e.Status, e.Condition = 502, ServiceUnreachable
		e.Note = "failed=upstream_unreachable"
	case k < 3:
		e.Status = 429
	case k < 4:
		e.Status, e.Note = 499, "aborted=client_gone"
	default:
		e.HasUsage = true
		e.Input = 2000 + r.Int64N(150_000)
		e.Cached = r.Int64N(e.Input)
		e.Output = 1 + r.Int64N(4000)
		if r.IntN(3) == 0 {
			e.Reasoning = r.Int64N(e.Output)
		}
	}
	return e
}

// realLog is at least size bytes of realEntry lines, a few seconds apart,
// from start, and the number of lines.
func realLog(seed uint64, start time.Time, size int) ([]byte, int) {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	n := 0
	t := start
	for b.Len() < size {
		t = t.Add(time.Duration(1+r.IntN(20_000)) * time.Millisecond)
		e := realEntry(r, t)
		b.Write(Append(nil, &e))
		n++
	}
	return b.Bytes(), n
}

// BenchmarkRotateCompress is what one rotation costs gw serve's log
// writer when a full file (MaxSize of realistic lines) moves on to
// serve.log.2 and is compressed, against copying the same file to a new
// one and syncing it (the I/O of the compression without compressing) as
// the baseline. It reports the compression ratio (plain bytes per
// compressed byte) and the lines a compressed file holds.
func BenchmarkRotateCompress(b *testing.B) {
	data, lines := realLog(1, time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), MaxSize-1024)
	b.Run("baseline-copy-and-sync", func(b *testing.B) {
		dir := b.TempDir()
		src := filepath.Join(dir, "src")
		if err := os.WriteFile(src, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			in, err := os.ReadFile(src)
			if err != nil {
				b.Fatal(err)
			}
			out, err := os.Create(filepath.Join(dir, "dst"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := out.Write(in); err != nil {
				b.Fatal(err)
			}
			if err := out.Sync(); err != nil {
				b.Fatal(err)
			}
			out.Close()
		}
	})
	b.Run("rotate-compress", func(b *testing.B) {
		dir := b.TempDir()
		path := filepath.Join(dir, Name)
		f := &File{Path: path}
		b.SetBytes(int64(len(data)))
		var gz int64
		for b.Loop() {
			b.StopTimer()
			if err := os.WriteFile(Rotated(path, 1), data, 0o600); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := f.rotate(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			fi, err := os.Stat(gzName(Rotated(path, 2)))
			if err != nil {
				b.Fatal("not compressed:", err)
			}
			gz = fi.Size()
			b.StartTimer()
		}
		b.ReportMetric(float64(len(data))/float64(gz), "ratio")
		b.ReportMetric(float64(lines), "lines/file")
		b.ReportMetric(float64(len(data))/float64(lines), "bytes/line")
		_ = strconv.Itoa
	})
}
