package root

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// nobody is the user the squatter runs as: another user than the one running the tests (root).
const nobody = 65534

// squatterMain is a stranger on gw serve's port: it listens on 127.0.0.1:PORT (its one argument) and
// answers like gw serve — gw serve's not_found error, and a hello with a proof it cannot compute — while
// it writes every request it gets, whole, to standard output, one JSON line each, after a first line
// "listening HOST:PORT".
func squatterMain() {
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	enc := json.NewEncoder(os.Stdout)
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		_ = enc.Encode(map[string]any{"method": r.Method, "uri": r.RequestURI, "header": r.Header, "body": string(body)})
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/gw/hello" {
			fmt.Fprintf(w, `{"service":"gw serve","proof":"%s"}`+"\n", strings.Repeat("ab", 32))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintln(w, `{"error":{"message":"not found","type":"gw_error","code":"not_found"}}`)
	}))
}

// squatters are the running squatters, by script.
var squatters sync.Map // *testscript.TestScript → func() (stops it, once its log is written)

// cmdSquat starts the squatter as user nobody on a free port for the rest of the script and sets
// $SQUAT_PORT and $SQUAT_HOSTPORT; what it receives goes to $WORK/squatter.log, whole once "squat stop" has
// stopped it. The script must run as root ([root]).
//
//	squat [stop]
func cmdSquat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || len(args) == 1 && args[0] != "stop" {
		ts.Fatalf("usage: squat [stop]")
	}
	if len(args) == 1 {
		stop, ok := squatters.LoadAndDelete(ts)
		if !ok {
			ts.Fatalf("squat stop: no squatter running")
		}
		stop.(func())()
		return
	}
	// The test binary is the squatter (testscript runs a registered command by the program's name), copied
	// where nobody may run it.
	self, err := os.Executable()
	ts.Check(err)
	dir, err := os.MkdirTemp("", "gw-squatter")
	ts.Check(err)
	ts.Defer(func() { os.RemoveAll(dir) })
	ts.Check(os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "gw-squatter")
	data, err := os.ReadFile(self)
	ts.Check(err)
	ts.Check(os.WriteFile(bin, data, 0o755))

	// A test forking at the moment the copy was written holds it open until
	// its child execs: the start is tried again while the file is busy.
	var (
		cmd *exec.Cmd
		out io.ReadCloser
	)
	for try := 0; ; try++ {
		cmd = exec.Command(bin, "0")
		cmd.Dir = dir
		asUser(cmd, nobody)
		cmd.Stderr = os.Stderr
		out, err = cmd.StdoutPipe()
		ts.Check(err)
		if err = cmd.Start(); err == nil || !textBusy(err) || try == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Check(err)
	logged := make(chan struct{})
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			<-logged
			_ = cmd.Wait()
		})
	}
	ts.Defer(stop)
	squatters.Store(ts, stop)
	lines := bufio.NewReader(out)
	first := make(chan string, 1)
	go func() {
		l, _ := lines.ReadString('\n')
		first <- l
	}()
	var hostport string
	select {
	case l := <-first:
		var ok bool
		if hostport, ok = strings.CutPrefix(strings.TrimSpace(l), "listening "); !ok {
			ts.Fatalf("squatter: %q", l)
		}
	case <-time.After(10 * time.Second):
		ts.Fatalf("the squatter did not listen")
	}
	log, err := os.Create(ts.MkAbs("squatter.log"))
	ts.Check(err)
	go func() {
		defer close(logged)
		defer log.Close()
		_, _ = io.Copy(log, lines)
	}()
	_, port, _ := net.SplitHostPort(hostport)
	ts.Setenv("SQUAT_HOSTPORT", hostport)
	ts.Setenv("SQUAT_PORT", port)
}
