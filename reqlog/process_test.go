package reqlog

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writerEnv makes the test binary a writer process of
// TestTwoProcessesRotatingLoseNoLine: "PATH ID LINES".
const writerEnv = "REQLOG_TEST_WRITER"

// TestWriterProcess is one writer when the test binary runs as such; a
// plain test run skips it.
func TestWriterProcess(t *testing.T) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		t.Skip("run by TestTwoProcessesRotatingLoseNoLine")
	}
	var path string
	var id, lines int
	if _, err := fmt.Sscan(spec, &path, &id, &lines); err != nil {
		t.Fatal(err)
	}
	f := &File{Path: path, MaxSize: 8 << 10, Keep: 1000}
	for i := range lines {
		if _, err := f.Write(fmt.Appendf(nil, "p%d %06d %s\n", id, i, strings.Repeat("x", 60))); err != nil {
			t.Fatal(err)
		}
	}
}

// Two gw processes append to one log while it rotates (and compresses the
// older files): every line of each is there once, whole, in its order.
func TestTwoProcessesRotatingLoseNoLine(t *testing.T) {
	if os.Getenv(writerEnv) != "" {
		t.Skip()
	}
	path := filepath.Join(t.TempDir(), Name)
	const procs, lines = 2, 2000
	var cmds []*exec.Cmd
	var out [procs]strings.Builder
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerEnv+"="+path+" "+strconv.Itoa(p)+" "+strconv.Itoa(lines))
		cmd.Stdout, cmd.Stderr = &out[p], &out[p]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", p, err, out[p].String())
		}
	}
	next := make([]int, procs)
	for _, l := range readAll(t, path) {
		var p, i int
		var rest string
		if n, err := fmt.Sscanf(l, "p%d %d %s", &p, &i, &rest); n != 3 || err != nil || rest != strings.Repeat("x", 60) || p < 0 || p >= procs {
			t.Fatalf("a line split or interleaved: %q", l)
		}
		if i != next[p] {
			t.Fatalf("process %d: line %d where %d was due (lost, repeated or out of order)", p, i, next[p])
		}
		next[p]++
	}
	for p, n := range next {
		if n != lines {
			t.Errorf("process %d: %d lines of %d", p, n, lines)
		}
	}
	if files, _ := filepath.Glob(path + ".*.gz"); len(files) < 10 {
		t.Errorf("rotated into %d compressed files only", len(files))
	}
}
