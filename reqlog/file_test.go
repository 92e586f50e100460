package reqlog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readAll is every line of the log at path, oldest first, across rotations.
func readAll(t *testing.T, path string) []string {
	t.Helper()
	var lines []string
	if err := Scan(path, time.Time{}, func(l *Line) bool {
		lines = append(lines, string(l.Raw))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Two gw serves append to one log (two Files, each taking the lock file as
// another process would) while it rotates every few lines and compresses
// the older files: no line is lost, split, interleaved with another or
// written twice, and each writer's lines stay in their order. A reader
// (gw usage) meanwhile sees each writer's lines in order, none twice, and
// never a file half compressed.
func TestTwoWritersRotatingLoseNoLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	const writers, lines = 2, 300
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			last := [writers]int{-1, -1}
			err := Scan(path, time.Time{}, func(l *Line) bool {
				var w, i int
				if n, _ := fmt.Sscanf(string(l.Raw), "w%d %d", &w, &i); n != 2 || w < 0 || w >= writers {
					t.Errorf("a reader read %q", l.Raw)
					return false
				}
				if i <= last[w] {
					t.Errorf("a reader read writer %d's line %d after %d", w, i, last[w])
					return false
				}
				last[w] = i
				return true
			})
			if err != nil {
				t.Errorf("a reader: %v", err)
				return
			}
		}
	}()
	for w := range writers {
		f := &File{Path: path, MaxSize: 2 << 10, Keep: 1000}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < lines; i++ {
				// Some writes carry several lines, as gw serve's batches do.
				b := fmt.Appendf(nil, "w%d %06d %s\n", w, i, strings.Repeat("x", 40))
				if i%3 == 0 {
					i++
					b = fmt.Appendf(b, "w%d %06d %s\n", w, i, strings.Repeat("x", 40))
				}
				if _, err := f.Write(b); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-readerDone
	got := readAll(t, path)
	next := make([]int, writers)
	seen := 0
	for _, l := range got {
		var w, i int
		var rest string
		if n, err := fmt.Sscanf(l, "w%d %d %s", &w, &i, &rest); n != 3 || err != nil || rest != strings.Repeat("x", 40) || w < 0 || w >= writers {
			t.Fatalf("a line split or interleaved: %q", l)
		}
		if i < next[w] {
			t.Fatalf("writer %d: line %d after %d (repeated or out of order)", w, i, next[w])
		}
		next[w] = i + 1
		seen++
	}
	// Writers skip one number after each double write's second line only
	// when it is their last; count what each wrote instead.
	want := 0
	for range writers {
		for i := 0; i < lines; i++ {
			want++
			if i%3 == 0 {
				i++
				want++
			}
		}
	}
	if seen != want {
		t.Errorf("read %d lines, want %d", seen, want)
	}
	files, _ := filepath.Glob(path + ".*.gz")
	if len(files) < 5 {
		t.Errorf("the log rotated into %d compressed files only; the test did not exercise rotation", len(files))
	}
}

// The log never keeps more than Keep files, however much is written: the
// oldest file goes.
func TestRotationBoundsTheLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	f := &File{Path: path, MaxSize: 1 << 10, Keep: 3}
	line := []byte(strings.Repeat("y", 99) + "\n")
	for range 200 {
		if _, err := f.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), Name) {
			continue
		}
		fi, _ := e.Info()
		total += fi.Size()
		names = append(names, e.Name())
	}
	if total > 3<<10 || len(names) != 3 {
		t.Errorf("the log takes %d bytes in %v, want at most %d in 3 files", total, names, 3<<10)
	}
	if got := len(readAll(t, path)); got < 25 {
		t.Errorf("only %d lines kept", got)
	}
}

// gw logs -f goes on reading across rotations: every line written while it
// follows reaches it, in order.
func TestFollowAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	f := &File{Path: path, MaxSize: 1 << 10, Keep: 100}
	if _, err := f.Write([]byte("before\n")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 200
	got := make(chan string, n+1)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, time.Time{}, time.Millisecond, func(l *Line) bool {
			got <- string(l.Raw)
			return !strings.HasSuffix(string(l.Raw), " "+strconv.Itoa(n-1))
		}, func(err error) { t.Error(err) })
	}()
	// Follow starts at the end: write a marker until it is read, so the
	// lines below are written while it follows.
	for {
		if _, err := f.Write([]byte("marker\n")); err != nil {
			t.Fatal(err)
		}
		select {
		case l := <-got:
			if l != "marker" {
				t.Fatalf("read %q before the marker", l)
			}
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	for i := range n {
		if _, err := f.Write(fmt.Appendf(nil, "line %s %d\n", strings.Repeat("z", 50), i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(got)
	i := 0
	for l := range got {
		if l == "marker" && i == 0 {
			continue
		}
		if want := fmt.Sprintf("line %s %d", strings.Repeat("z", 50), i); l != want {
			t.Fatalf("line %d: got %q, want %q", i, l, want)
		}
		i++
	}
	if i != n {
		t.Errorf("followed %d lines, want %d", i, n)
	}
	if files, _ := filepath.Glob(path + ".*.gz"); len(files) < 5 {
		t.Errorf("rotated into %d compressed files only", len(files))
	}
}

// The log stays open between writes; a user who removes serve.log (or
// gw's whole state directory) while gw serve runs still finds the next
// lines in a new serve.log, not in the removed file.
func TestLogRemovedWhileOpenGetsTheNextLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, Name)
	f := &File{Path: path}
	defer f.Close()
	if _, err := f.Write([]byte("first\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("second\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "second\n" {
		t.Fatalf("after serve.log was removed: %q, %v; want the next line in a new serve.log", b, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("third\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "third\n" {
		t.Fatalf("after the state directory was removed: %q, %v; want the next line in a new serve.log", b, err)
	}
}

// A link planted at serve.log while gw serve has the log open is refused at
// the next line: nothing is written through it.
func TestLinkPlantedWhileOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &File{Path: path}
	defer f.Close()
	if _, err := f.Write([]byte("first\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, path); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := f.Write([]byte("second\n")); err == nil {
		t.Error("a line was written with a link planted at serve.log")
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// BenchmarkFileWrite is the cost of one line through File (lock, the
// check that the file open is still the log, rotation check, write,
// unlock: what every batch of gw serve's lines pays, off the request's
// path) against a bare write to a file kept open, the baseline.
func BenchmarkFileWrite(b *testing.B) {
	e := Entry{Time: time.Now(), Method: "POST", Path: "/v1/messages", Agent: "claude-code", Model: "vendor-a/model-a-sonnet-4.5",
		Status: 200, Dur: time.Second, HasUsage: true, Input: 12000, Cached: 10000, Output: 420, Proto: "messages", Stream: true}
	line := Append(nil, &e)
	b.Run("baseline-open-file", func(b *testing.B) {
		f, err := os.OpenFile(filepath.Join(b.TempDir(), Name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		for b.Loop() {
			if _, err := f.Write(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		f := &File{Path: filepath.Join(b.TempDir(), Name)}
		defer f.Close()
		for b.Loop() {
			if _, err := f.Write(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// gw logs -f --since: the lines since then, across rotated files, then the
// new ones, none missed or repeated between the two.
func TestFollowSinceThenNewLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	f := &File{Path: path, MaxSize: 1 << 10, Keep: 100}
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	write := func(i int) {
		t.Helper()
		e := Entry{Time: t0.Add(time.Duration(i) * time.Minute), Method: "POST", Path: "/v1/messages", Model: "m" + strconv.Itoa(i), Status: 200, Proto: "messages"}
		if _, err := f.Write(Append(nil, &e)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		write(i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := make(chan string, 200)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, t0.Add(10*time.Minute), time.Millisecond, func(l *Line) bool {
			got <- l.Model
			return l.Model != "m99"
		}, func(err error) { t.Error(err) })
	}()
	for i := 50; i < 100; i++ {
		write(i)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(got)
	i := 10
	for m := range got {
		if m != "m"+strconv.Itoa(i) {
			t.Fatalf("line %d: got %s", i, m)
		}
		i++
	}
	if i != 100 {
		t.Errorf("followed up to %d, want 100", i)
	}
}
