package proxy

// A stranger on gw serve's port: a process that listened first and answers
// like gw serve, copying its errors and its hello, or passing the hello on
// to the real gw serve listening elsewhere. gw's clients (Probe: gw run, gw
// doctor, a second gw serve) must send it nothing that holds the local
// token. The stranger here is a process of this user, so only the proof
// keeps it out; the test of another user's process, which the socket's
// owner also gives away on Linux, runs the commands themselves
// (cmd/root/testdata/script/hostile_squatter.txtar).

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// squatter records every request it gets, whole.
type squatter struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
}

// newSquatter answers like gw serve: its hello with a made-up proof, or
// (relay set) with the answer of the gw serve at relay, and everything
// else with gw serve's not_found error.
func newSquatter(t *testing.T, relay string) *squatter {
	s := &squatter{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var rec strings.Builder
		fmt.Fprintf(&rec, "%s %s %s\n", r.Method, r.RequestURI, r.Host)
		_ = r.Header.Write(&rec)
		rec.Write(body)
		s.mu.Lock()
		s.seen = append(s.seen, rec.String())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == HelloPath {
			if relay != "" {
				res, err := http.Get("http://" + relay + r.URL.RequestURI())
				if err == nil {
					defer res.Body.Close()
					w.WriteHeader(res.StatusCode)
					io.Copy(w, res.Body)
					return
				}
			}
			fmt.Fprintf(w, `{"service":"gw serve","proof":"%s"}`+"\n", strings.Repeat("ab", 32))
			return
		}
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"not found","type":"gw_error","code":"not_found"}}`+"\n")
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *squatter) addr() string { return s.srv.Listener.Addr().String() }

// requests is what the squatter got; it fails the test if the token is in
// any of it.
func (s *squatter) requests(t *testing.T) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.seen {
		if strings.Contains(r, testToken) || strings.Contains(r, testToken[len("gw-local-"):]) {
			t.Errorf("the squatter received the local token:\n%s", r)
		}
	}
	return s.seen
}

func TestProbeSendsASquatterNothing(t *testing.T) {
	real := newRig(t, rigOpts{})
	realAddr := strings.TrimSuffix(strings.TrimPrefix(real.base, "http://"), "/v1")
	for name, relay := range map[string]string{
		"copying gw serve's answers":       "",
		"passing the hello on to gw serve": realAddr,
	} {
		t.Run(name, func(t *testing.T) {
			sq := newSquatter(t, relay)
			err := Probe(waitCtx(t), sq.addr(), testToken)
			if !errors.Is(err, ErrTokenRejected) {
				t.Fatalf("Probe: %v, want the squatter found out", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "gw sent it nothing") || !strings.Contains(msg, "held by") {
				t.Errorf("the message does not say who holds the port and that nothing was sent: %s", msg)
			}
			if len(sq.requests(t)) != 1 {
				t.Errorf("the squatter got %d requests, want the one hello", len(sq.requests(t)))
			}
		})
	}
	// The real one proves itself.
	if err := Probe(waitCtx(t), realAddr, testToken); err != nil {
		t.Errorf("the real gw serve: %v", err)
	}
}

// A second gw serve on a port a squatter holds does not call the squatter
// a running gw serve, sends it no token, and names the holder.
func TestRunOnASquattersPort(t *testing.T) {
	sq := newSquatter(t, "")
	port := sq.srv.Listener.Addr().(*net.TCPAddr).Port
	up := standin.Start(standin.Options{})
	t.Cleanup(up.Close)
	upstream, _ := url.Parse(up.BaseURL)
	tr := api.NewTransport(api.TransportOptions{})
	t.Cleanup(tr.CloseIdleConnections)
	var out, errOut strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, RunOptions{Out: &out, ErrOut: &errOut, Upstream: upstream, Transport: tr, LocalToken: testToken, Port: port,
		KeySource: func(context.Context) (string, keychain.Source, error) { return realKey, keychain.SourceKeychain, nil }})
	if err == nil || strings.Contains(err.Error(), "already running") {
		t.Fatalf("Run: %v, want the port in use, not gw serve running", err)
	}
	if _, statErr := os.Stat("/proc/net/tcp"); statErr == nil && !strings.Contains(err.Error(), fmt.Sprintf("(pid %d)", os.Getpid())) {
		t.Errorf("the error does not name the process holding the port: %v", err)
	}
	sq.requests(t)
}

func TestProbeOnlyOnLoopback(t *testing.T) {
	for _, addr := range []string{"192.0.2.1:8787", "example.com:8787", "8787", "[2001:db8::1]:8787"} {
		if err := Probe(waitCtx(t), addr, testToken); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("Probe(%q): %v, want ErrNotLoopback", addr, err)
		}
	}
}

func TestReadStateRefusesAnAddressOffLoopback(t *testing.T) {
	dir := t.TempDir()
	for addr, ok := range map[string]bool{"127.0.0.1:8787": true, "[::1]:1": true, "localhost:2": true,
		"192.0.2.7:8787": false, "evil.example:8787": false, "127.0.0.1": false} {
		b, _ := json.Marshal(State{Addr: addr, PID: 1})
		if err := os.WriteFile(filepath.Join(dir, StateName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := ReadState(dir)
		if (err == nil) != ok {
			t.Errorf("ReadState with %q: %v", addr, err)
		}
	}
}

// The hello answers without the token, only on GET with a nonce, and its
// proof is bound to the address the client reached.
func TestHelloProofIsBoundToTheAddress(t *testing.T) {
	r := newRig(t, rigOpts{})
	addr := strings.TrimSuffix(strings.TrimPrefix(r.base, "http://"), "/v1")
	nonce := strings.Repeat("07", 32)
	res, err := http.Get("http://" + addr + HelloPath + "?nonce=" + nonce)
	if err != nil {
		t.Fatal(err)
	}
	var hello helloAnswer
	json.NewDecoder(res.Body).Decode(&hello)
	res.Body.Close()
	n, _ := hex.DecodeString(nonce)
	if hello.Proof != hex.EncodeToString(helloProof(testToken, n, addr)) {
		t.Errorf("proof %q is not the MAC of the nonce and %s", hello.Proof, addr)
	}
	if hello.Proof == hex.EncodeToString(helloProof(testToken, n, "127.0.0.1:1")) {
		t.Error("the proof does not depend on the address")
	}
	for _, q := range []string{"", "?nonce=zz", "?nonce=" + strings.Repeat("0", 8), "?nonce=" + strings.Repeat("0", 200)} {
		res, err := http.Get("http://" + addr + HelloPath + q)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		if res.StatusCode != 400 || strings.Contains(body, "proof") {
			t.Errorf("hello%s: %d %s", q, res.StatusCode, body)
		}
	}
	// A web page cannot ask.
	req, _ := http.NewRequest("GET", "http://"+addr+HelloPath+"?nonce="+nonce, nil)
	req.Header.Set("Origin", "https://evil.example")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, res); res.StatusCode != 403 || strings.Contains(body, "proof") {
		t.Errorf("hello from a page: %d %s", res.StatusCode, body)
	}
}
