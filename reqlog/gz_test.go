package reqlog

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/fsutil"
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
	})
}

// logNames is the log's files in dir: name → size.
func logNames(t testing.TB, dir string) map[string]int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int64{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), Name) && !strings.HasSuffix(e.Name(), ".lock") {
			fi, _ := e.Info()
			names[e.Name()] = fi.Size()
		}
	}
	return names
}

// numbered checks that lines are "<prefix><i>" for i from first on, with
// none missing, repeated or out of order, and returns the next i.
func numbered(t *testing.T, lines []string, prefix string, first int) int {
	t.Helper()
	i := first
	for _, l := range lines {
		if l != prefix+strconv.Itoa(i) {
			t.Fatalf("line %q where %s%d was due", l, prefix, i)
		}
		i++
	}
	return i
}

// However much is written, the log takes at most MaxDisk: serve.log and
// serve.log.1 plain, the older files compressed, the oldest gone; what is
// kept is the newest lines, every one of them, in order, and far more of
// them than plain files would hold in the same space.
func TestDiskBoundHoldsAfterManyRotations(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	const maxSize, maxDisk = 16 << 10, 200 << 10
	f := &File{Path: path, MaxSize: maxSize, MaxDisk: maxDisk}
	defer f.Close()
	r := rand.New(rand.NewPCG(2, 2))
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	var lineSize int
	const n = 20_000 // about 4 MiB, 270 rotations
	for i := range n {
		e := realEntry(r, t0.Add(time.Duration(i)*time.Second))
		e.Note = "n=" + strconv.Itoa(i)
		b := Append(nil, &e)
		lineSize += len(b)
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	names := logNames(t, dir)
	var total int64
	for name, size := range names {
		total += size
		if rest, ok := strings.CutPrefix(name, Name+"."); ok && rest != "1" && !strings.HasSuffix(rest, ".gz") {
			t.Errorf("%s is not compressed", name)
		}
	}
	if total > maxDisk {
		t.Errorf("the log takes %d bytes in %d files, more than the bound %d", total, len(names), maxDisk)
	}
	var got []int
	if err := Scan(path, time.Time{}, func(l *Line) bool {
		i, err := strconv.Atoi(strings.TrimPrefix(l.Note, "n="))
		if !l.OK || err != nil {
			t.Fatalf("not a line written: %q", l.Raw)
		}
		got = append(got, i)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[len(got)-1] != n-1 {
		t.Fatalf("the newest line is not there (%d lines read)", len(got))
	}
	for k, i := range got {
		if i != got[0]+k {
			t.Fatalf("line %d after %d: lost or out of order", i, got[0]+k-1)
		}
	}
	plainLines := maxDisk / (lineSize / n)
	if len(got) < 3*plainLines {
		t.Errorf("kept %d lines, want at least 3 times the %d that %d bytes of plain files hold", len(got), plainLines, maxDisk)
	}
}

// A directory left by an older gw (plain serve.log.1 … serve.log.9) is read
// whole, then rotated into the new layout (serve.log.2.gz on) by the next
// rotation, without losing or repeating a line; each compressed file keeps
// the time its lines were last written (gw usage --since skips by it).
func TestOldPlainLayoutIsReadThenCompressed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	old := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	k := 0
	for i := 9; i >= 0; i-- {
		var b strings.Builder
		for range 20 {
			fmt.Fprintf(&b, "line %d\n", k)
			k++
		}
		name := Rotated(path, i)
		if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, old.Add(time.Duration(9-i)*time.Hour), old.Add(time.Duration(9-i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if next := numbered(t, readAll(t, path), "line ", 0); next != k {
		t.Fatalf("read %d lines of the old layout, want %d", next, k)
	}
	f := &File{Path: path, MaxSize: 20 * 9}
	defer f.Close()
	if _, err := f.Write(fmt.Appendf(nil, "line %d\n", k)); err != nil {
		t.Fatal(err)
	}
	k++
	names := logNames(t, dir)
	for i := 2; i <= 10; i++ {
		name := filepath.Base(Rotated(path, i))
		if _, ok := names[name+".gz"]; !ok {
			t.Errorf("%s.gz missing after the rotation: %v", name, names)
		}
		if _, ok := names[name]; ok {
			t.Errorf("%s left plain beside its .gz", name)
		}
		fi, err := os.Stat(gzName(Rotated(path, i)))
		if want := old.Add(time.Duration(10-i) * time.Hour); err == nil && !fi.ModTime().Equal(want) {
			t.Errorf("%s.gz has the time %v, want %v (its lines' last write)", name, fi.ModTime(), want)
		}
	}
	if next := numbered(t, readAll(t, path), "line ", 0); next != k {
		t.Fatalf("read %d lines after the rotation, want %d", next, k)
	}
}

// A crash between writing serve.log.N.gz and removing the plain file it
// was made from leaves both: the lines are read once, and the next
// rotation removes the plain one. A temporary file a crash left while
// compressing is not read.
func TestCrashLeftoversAreReadOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	f := &File{Path: path, MaxSize: 64}
	defer f.Close()
	for i := range 6 {
		if _, err := f.Write(fmt.Appendf(nil, "line %d %s\n", i, strings.Repeat("x", 40))); err != nil {
			t.Fatal(err)
		}
	}
	// Now serve.log.2.gz … serve.log.5.gz: put back the plain serve.log.3
	// its .gz was made from, and a half-written temporary file.
	data := readGz(t, gzName(Rotated(path, 3)))
	if err := os.WriteFile(Rotated(path, 3), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "."+Name+".2.gz.tmp-abc"), []byte("\x1f\x8b half"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []string{}
	for i := range 6 {
		want = append(want, fmt.Sprintf("line %d %s", i, strings.Repeat("x", 40)))
	}
	if got := readAll(t, path); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("read %q, want %q", got, want)
	}
	if _, err := f.Write(fmt.Appendf(nil, "line 6 %s\n", strings.Repeat("x", 40))); err != nil {
		t.Fatal(err)
	}
	names := logNames(t, dir)
	if _, ok := names[filepath.Base(Rotated(path, 3))]; ok {
		t.Errorf("the plain leftover is still there: %v", names)
	}
	for i := 2; i <= 4; i++ {
		if _, ok := names[filepath.Base(Rotated(path, i))]; ok {
			t.Errorf("a plain serve.log.%d after the rotation: %v", i, names)
		}
	}
	if got := readAll(t, path); len(got) != 7 || strings.Join(got[:6], "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the rotation: %q", got)
	}
}

func readGz(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rotatedLog writes files lines "line <i>" to a log that rotates after
// each, so that serve.log.2.gz on each hold one line, and returns its path.
func rotatedLog(t *testing.T, files int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), Name)
	f := &File{Path: path, MaxSize: 8}
	defer f.Close()
	for i := range files {
		if _, err := f.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// scanDamaged reads the log, expecting a *DamagedError that names exactly
// the file bad (one line, with why), and returns the lines read.
func scanDamaged(t *testing.T, path, bad, why string) []string {
	t.Helper()
	var got []string
	err := Scan(path, time.Time{}, func(l *Line) bool {
		got = append(got, string(l.Raw))
		return true
	})
	var d *DamagedError
	if !errors.As(err, &d) || len(d.Files) != 1 || d.Files[0].Path != bad {
		t.Fatalf("Scan: %v; want a DamagedError naming %s", err, bad)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, bad) || !strings.Contains(msg, why) {
		t.Errorf("the warning is %q; want one line naming %s, saying %q", msg, bad, why)
	}
	return got
}

// A damaged compressed file (bytes changed, cut short, not gzip at all) is
// named in a one-line warning; every line of every other file is read.
func TestDamagedGzIsNamedAndTheRestRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"flipped", func(b []byte) []byte { b[len(b)-10] ^= 0xff; return b }}, // the compressed data, before the trailer
		{"cut short", func(b []byte) []byte { return b[:len(b)-6] }},
		{"not gzip", func(b []byte) []byte { return []byte("line 999\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := rotatedLog(t, 8)
			bad := gzName(Rotated(path, 4))
			b, err := os.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, tc.damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			// What the damaged file gave before the damage showed (a
			// checksum is checked at its end) is read; then the rest.
			got := slices.DeleteFunc(scanDamaged(t, path, bad, "damaged"), func(l string) bool { return l == "line 3" })
			var want []string
			for i := range 8 {
				if i != 3 { // serve.log.4.gz held line 3
					want = append(want, "line "+strconv.Itoa(i))
				}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("read %q, want %q", got, want)
			}
		})
	}
}

// A gzip bomb at a compressed file's name (a small file that decompresses
// to far more than gw ever writes, or a huge one) is read no further than
// the bound, in a fixed amount of memory, and named; the rest of the log
// is read.
func TestGzipBombIsBoundedAndNamed(t *testing.T) {
	t.Run("expands", func(t *testing.T) {
		path := rotatedLog(t, 5)
		bad := gzName(Rotated(path, 3))
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 3 * maxGzLines >> 20 { // three times the bound, one line with no end
			zw.Write(chunk)
		}
		zw.Close()
		if err := os.WriteFile(bad, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got := scanDamaged(t, path, bad, "holds more than any file gw writes")
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Errorf("reading it allocated %d MiB; want it streamed in a fixed buffer", grew>>20)
		}
		if strings.Join(got, ",") != "line 0,line 2,line 3,line 4" {
			t.Errorf("read %q", got)
		}
	})
	t.Run("huge on disk", func(t *testing.T) {
		path := rotatedLog(t, 5)
		bad := gzName(Rotated(path, 3))
		f, err := os.OpenFile(bad, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(maxGzSize + 1); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		f.Close()
		got := scanDamaged(t, path, bad, "larger than any file gw compresses")
		if strings.Join(got, ",") != "line 0,line 2,line 3,line 4" {
			t.Errorf("read %q", got)
		}
	})
}

// A link planted at a rotated file's name is moved, never followed: the
// file it points to is neither compressed into the log nor written. A
// named pipe at a compressed file's name is refused as at a plain one's:
// readers name it instead of hanging on it.
func TestLinksAndPipesAtRotatedNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &File{Path: path, MaxSize: 8}
	defer f.Close()
	if _, err := f.Write([]byte("line 0\n")); err != nil {
		t.Fatal(err)
	}
	// serve.log.1 is moved on to serve.log.2 (and compressed) at the next
	// rotation; a link at serve.log.2.gz is where that goes.
	if err := os.Symlink(victim, Rotated(path, 1)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink(victim, gzName(Rotated(path, 2))); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := f.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "secret\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	for name := range logNames(t, dir) {
		full := filepath.Join(dir, name)
		if fi, _ := os.Lstat(full); fi.Mode()&fs.ModeSymlink != 0 || !strings.HasSuffix(name, ".gz") {
			continue
		}
		if b := readGz(t, full); bytes.Contains(b, []byte("secret")) {
			t.Errorf("%s holds the link's target", name)
		}
	}

	pipeDir := t.TempDir()
	pipePath := filepath.Join(pipeDir, Name)
	pf := &File{Path: pipePath, MaxSize: 8}
	defer pf.Close()
	for i := range 4 {
		if _, err := pf.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := gzName(Rotated(pipePath, 2))
	os.Remove(fifo)
	if err := mkfifo(fifo); err != nil {
		t.Skip("no named pipes here:", err)
	}
	err := Scan(pipePath, time.Time{}, func(*Line) bool { return true })
	var nr *fsutil.NotRegularError
	if !errors.As(err, &nr) || nr.Path != fifo || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Scan with a named pipe at %s: %v; want it refused by name", fifo, err)
	}
	// The plain path does the same.
	os.Remove(fifo)
	plain := Rotated(pipePath, 1)
	os.Remove(plain)
	if err := mkfifo(plain); err != nil {
		t.Fatal(err)
	}
	if err := Scan(pipePath, time.Time{}, func(*Line) bool { return true }); !errors.As(err, &nr) || nr.Path != plain {
		t.Errorf("Scan with a named pipe at %s: %v", plain, err)
	}
}

// gw logs -f that fell more than one rotation behind (its file rotated
// on to serve.log.2 and compressed before it looked again) finds where its
// file went by the compressed file's header, and reads every line after
// it from the files rotated since.
func TestFollowerTwoRotationsBehindFindsItsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	f := &File{Path: path, MaxSize: 8}
	defer f.Close()
	if _, err := f.Write([]byte("line 0\n")); err != nil {
		t.Fatal(err)
	}
	old, fi, err := fsutil.OpenRegular(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	for i := 1; i <= 3; i++ {
		if _, err := f.Write(fmt.Appendf(nil, "line %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Lstat(gzName(Rotated(path, 3))); err != nil {
		t.Fatalf("the followed file was not compressed: %v", err)
	}
	newer := rotatedSince(path, fi, old)
	defer closeAll(newer)
	var got []string
	var p Parser
	var l Line
	buf := make([]byte, readBuf)
	for _, nf := range newer {
		if _, err := scanFile(nf, buf, &p, &l, time.Time{}, func(l *Line) bool {
			got = append(got, string(l.Raw))
			return true
		}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "line 1,line 2,line 3" {
		t.Errorf("the files rotated since hold %q, want lines 1 to 3", got)
	}
}

// usageYear adds to BenchmarkScanAndTally gw usage --since 365d (read the
// log's files from a year ago on, parse each line, add it up by day, model
// and agent) over a year of 1 M realistic lines (realEntry: generated
// lines of repeating numbers would compress far better than real ones) in
// the log's rotated files. The baseline, "year-plain-files", is the log as
// an older gw kept it, every file plain; "year-compressed-files" is the same
// lines as gw keeps them now: serve.log and serve.log.1 plain, the older
// files .gz. The ratio of the two is what decompressing costs gw usage.
func usageYear(b *testing.B) {
	const n = 1_000_000
	plainDir, gzDir := b.TempDir(), b.TempDir()
	now := time.Now()
	start := now.Add(-364 * 24 * time.Hour)
	r := rand.New(rand.NewPCG(3, 3))
	var chunks [][]byte
	var cur []byte
	for i := range n {
		e := realEntry(r, start.Add(time.Duration(i)*31*time.Second))
		line := Append(nil, &e)
		if len(cur)+len(line) > MaxSize {
			chunks = append(chunks, cur)
			cur = nil
		}
		cur = append(cur, line...)
	}
	chunks = append(chunks, cur)
	var plainSize, gzSize int64
	for j, c := range chunks {
		k := len(chunks) - 1 - j
		for _, dir := range []string{plainDir, gzDir} {
			if err := os.WriteFile(Rotated(filepath.Join(dir, Name), k), c, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		plainSize += int64(len(c))
		if k >= 2 {
			compress(Rotated(filepath.Join(gzDir, Name), k))
		}
	}
	chunks, cur = nil, nil
	for name, size := range logNames(b, gzDir) {
		if rest, ok := strings.CutPrefix(name, Name+"."); ok && rest != "1" && !strings.HasSuffix(rest, ".gz") {
			b.Fatalf("%s not compressed", name)
		}
		gzSize += size
	}
	since := now.Add(-365 * 24 * time.Hour)
	for _, layout := range []struct {
		name, dir string
		size      int64
	}{{"year-plain-files", plainDir, plainSize}, {"year-compressed-files", gzDir, gzSize}} {
		b.Run(layout.name, func(b *testing.B) {
			path := filepath.Join(layout.dir, Name)
			for b.Loop() {
				tally := &Tally{Loc: time.Local}
				if err := Scan(path, since, func(l *Line) bool {
					if l.OK {
						tally.Add(&l.Entry)
					}
					return true
				}); err != nil {
					b.Fatal(err)
				}
				if tally.Total.Requests != n {
					b.Fatalf("%d requests, want %d", tally.Total.Requests, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/line")
			b.ReportMetric(float64(layout.size)/(1<<20), "MiB-on-disk")
		})
	}
}

// A rotated file removed by hand (serve.log.1, the large plain one, say)
// leaves a gap in the numbers that moves up one file at each rotation. The
// files past it are still the log's: gw usage and gw logs read them, and
// the disk bound counts them (with Keep files, a gap would otherwise hide
// them and let the log grow to Keep compressed files for as many rotations).
func TestRemovedRotatedFileHidesNoneAndTheBoundHolds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	const maxSize, maxDisk = 16 << 10, 200 << 10
	f := &File{Path: path, MaxSize: maxSize, MaxDisk: maxDisk}
	defer f.Close()
	r := rand.New(rand.NewPCG(4, 4))
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	i := 0
	write := func(n int) {
		for range n {
			e := realEntry(r, t0.Add(time.Duration(i)*time.Second))
			e.Note = "n=" + strconv.Itoa(i)
			if _, err := f.Write(Append(nil, &e)); err != nil {
				t.Fatal(err)
			}
			i++
		}
	}
	write(1_000) // some 15 rotations
	read := func() int {
		n := 0
		if err := Scan(path, time.Time{}, func(l *Line) bool { n++; return true }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	all := read()
	removed, err := os.ReadFile(Rotated(path, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(Rotated(path, 1)); err != nil {
		t.Fatal(err)
	}
	want := all - bytes.Count(removed, []byte("\n"))
	if got := read(); got != want {
		t.Errorf("read %d lines with serve.log.1 removed, want the other %d", got, want)
	}
	write(200) // a rotation or two: the gap moves on
	if got := read(); got < want+200 {
		t.Errorf("read %d lines after a rotation, want at least %d: the files past the gap are hidden", got, want+200)
	}
	write(8_000) // some 110 rotations more, fewer than Keep
	var total int64
	for _, size := range logNames(t, dir) {
		total += size
	}
	if total > maxDisk {
		t.Errorf("the log takes %d bytes, more than the bound %d", total, maxDisk)
	}
}
