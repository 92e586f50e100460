//go:build linux

package proxy

// The broken terminal: gw serve, the real binary, with a standard error that
// goes away (a closed pipe, a closed terminal) or stops taking lines (a
// pipe nobody reads). A proxy outlives its terminal: it keeps serving, and
// serve.log gets every line.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/modelgateway/gw/config"
	"github.com/modelgateway/gw/standin"
)

func TestBrokenTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gw and runs it")
	}
	gw := filepath.Join(t.TempDir(), "gw")
	if out, err := exec.Command("go", "build", "-o", gw, "github.com/modelgateway/gw/cmd/gw").CombinedOutput(); err != nil {
		t.Fatalf("building gw: %v\n%s", err, out)
	}
	svc := standin.Start(standin.Options{})
	t.Cleanup(svc.Close)

	t.Run("stderr a pipe whose reader is gone", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // as after gw serve 2>&1 | head, once head has exited
		p := startGW(t, gw, svc, w, nil)
		p.requests(t, 300)
		p.stop(t)
		p.logHas(t, 300, "standard error failed")
	})

	t.Run("stderr a terminal that was closed", func(t *testing.T) {
		pts := closedTerminal(t)
		p := startGW(t, gw, svc, pts, nil)
		p.requests(t, 300)
		p.stop(t)
		p.logHas(t, 300, "standard error failed")
	})

	t.Run("stderr a pipe nobody reads", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close() // open, never read
		fillPipe(t, w)  // full before gw serve starts: its first line already blocks
		p := startGW(t, gw, svc, w, nil)
		// More lines than the terminal's queue holds, so that some are not
		// shown there; serve.log must have them all.
		n := maxPendingTerm/100 + 500
		p.requests(t, n)
		p.stop(t)
		p.logHas(t, n, "")
	})

	t.Run("SIGTERM as soon as the address is printed", func(t *testing.T) {
		r, w, _ := os.Pipe()
		go func() { _, _ = io.Copy(io.Discard, r) }()
		p := startGW(t, gw, svc, w, nil)
		p.stop(t) // a clean exit, not death by the signal
	})

	t.Run("the soft limit of open files is raised", func(t *testing.T) {
		// Go raises it to the hard limit at start; a lower soft limit
		// inherited from a shell (ulimit -Sn 256) must not stay gw serve's.
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max <= 300 {
			t.Skipf("hard limit %d, %v: nothing to raise", lim.Max, err)
		}
		r, w, _ := os.Pipe()
		go func() { _, _ = io.Copy(io.Discard, r) }()
		p := startGW(t, "/bin/sh", svc, w, []string{"-c", `ulimit -Sn 256 && exec "$0" serve --port 0`, gw})
		limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", p.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`Max open files\s+(\d+)`).FindSubmatch(limits)
		if soft, _ := strconv.Atoi(string(m[1])); m == nil || soft <= 256 {
			t.Errorf("gw serve runs with the soft limit it inherited:\n%s", limits)
		}
		p.stop(t)
	})
}

type gwServe struct {
	cmd      *exec.Cmd
	addr     string
	token    string
	stateDir string
	exited   chan error
}

// startGW starts gw serve (or argv, a command that execs it) with stderr as
// its standard error, on a free port, against svc, in directories of its own.
func startGW(t *testing.T, exe string, svc *standin.Running, stderr *os.File, argv []string) *gwServe {
	t.Helper()
	dir := t.TempDir()
	p := &gwServe{stateDir: filepath.Join(dir, "state"), exited: make(chan error, 1)}
	cfgDir := filepath.Join(dir, "config")
	tok, err := config.EnsureLocalToken(filepath.Join(cfgDir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	p.token = tok
	if argv == nil {
		argv = []string{"serve", "--port", "0"}
	}
	p.cmd = exec.Command(exe, argv...)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "GW_") && !strings.HasPrefix(name, "XDG_") && name != "HOME" {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, "HOME="+dir, "GW_CONFIG_DIR="+cfgDir, "GW_STATE_DIR="+p.stateDir,
		"GW_BASE_URL="+svc.BaseURL, "GW_API_KEY="+standin.DemoKeyFull)
	p.cmd.Stderr = stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr.Close() // gw serve holds the only writer
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		p.exited <- nil
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := regexp.MustCompile(`listening on http://(\S+)/v1`).FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case p.addr = <-addr:
	case err := <-p.exited:
		p.exited <- err
		t.Fatalf("gw serve ended before it listened: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("gw serve printed no address within 30 s")
	}
	return p
}

// requests sends n requests from 4 clients; each must be answered 200.
func (p *gwServe) requests(t *testing.T, n int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 4 {
		wg.Go(func() {
			for range next {
				req, _ := http.NewRequest("GET", "http://"+p.addr+"/v1/models", nil)
				req.Header.Set("Authorization", "Bearer "+p.token)
				res, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					errs <- fmt.Errorf("status %d", res.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("gw serve stopped serving: %v", err)
	}
}

// stop sends SIGTERM and waits for gw serve to exit cleanly.
func (p *gwServe) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Fatalf("gw serve ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("gw serve did not stop within 30 s of SIGTERM")
	}
}

// logHas checks that serve.log holds a line for each of the n requests,
// and says so when want is not "".
func (p *gwServe) logHas(t *testing.T, n int, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.stateDir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), " GET /v1/models status=200 "); got != n {
		t.Errorf("serve.log has %d of the %d request lines", got, n)
	}
	if want != "" && !strings.Contains(string(b), want) {
		t.Errorf("serve.log does not say %q:\n%.2000s", want, b)
	}
}

// fillPipe writes into w until the pipe is full.
func fillPipe(t *testing.T, w *os.File) {
	t.Helper()
	fd := int(w.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := syscall.Write(fd, chunk); errors.Is(err, syscall.EAGAIN) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
}

// closedTerminal returns the terminal end of a pseudo-terminal whose other
// end (the terminal emulator's) is closed: writes to it fail with EIO, as
// after the window of a terminal was closed. It is not gw serve's
// controlling terminal, so no SIGHUP comes with it.
func closedTerminal(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	ptmx.Close()
	if _, err := pts.Write([]byte("x")); !errors.Is(err, syscall.EIO) {
		t.Skipf("a write to a closed terminal gave %v here, not EIO", err)
	}
	return pts
}
