//go:build unix

package run

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/config"
)

// A program that listened first on gw serve's configured port and answers like gw serve (its errors, a
// hello with a proof it cannot compute): gw run sends it nothing, points the agent at a gw serve of its own
// and says who holds the port and what to do. (The squatter of another user, whom the socket's owner gives
// away on Linux too, is cmd/root's hostile_squatter script.)
func TestRunRun_SquatterOnTheConfiguredPortGetsNothing(t *testing.T) {
	fakeAgentOnPath(t, "qwen")
	e, opts := runEnv(t, "qwen-code", "report")
	const token = "gw-local-0123456789abcdef0123456789abcdef"
	var mu sync.Mutex
	var seen []string
	sq := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var rec strings.Builder
		fmt.Fprintf(&rec, "%s %s\n", r.Method, r.RequestURI)
		_ = r.Header.Write(&rec)
		rec.Write(body)
		mu.Lock()
		seen = append(seen, rec.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/gw/hello" {
			fmt.Fprintf(w, `{"service":"gw serve","proof":"%s"}`, strings.Repeat("ab", 32))
			return
		}
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"not found","type":"gw_error","code":"not_found"}}`)
	}))
	t.Cleanup(sq.Close)
	port := sq.Listener.Addr().(*net.TCPAddr).Port
	if err := config.Save(filepath.Join(e.Dir, "home", ".config", "gw", "config.json"), config.File{LocalToken: token, Port: port}); err != nil {
		t.Fatal(err)
	}
	if err := runRun(t.Context(), opts); err != nil {
		t.Fatalf("%v\nstderr: %s", err, e.ErrOut)
	}
	var r report
	if err := json.Unmarshal(e.Out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, e.Out)
	}
	if strings.Contains(r.Env["OPENAI_BASE_URL"], sq.Listener.Addr().String()) || r.Status != http.StatusOK {
		t.Errorf("the agent was pointed at %s (status %d), want gw run's own gw serve", r.Env["OPENAI_BASE_URL"], r.Status)
	}
	mu.Lock()
	for _, rec := range seen {
		if strings.Contains(rec, token) || strings.Contains(rec, "0123456789abcdef0123456789abcdef") {
			t.Errorf("the squatter received the local token:\n%s", rec)
		}
	}
	mu.Unlock()
	stderr := e.ErrOut.String()
	addr := sq.Listener.Addr().String()
	if !strings.HasPrefix(stderr, "warning: gw serve refuses the local token on "+addr+": it was started with another local token, or is another program posing as gw serve") ||
		!strings.Contains(stderr, "gw sent it nothing") || !strings.Contains(stderr, "gw run serves the agent on a free port instead\nfix: restart gw serve") {
		t.Errorf("gw run said:\n%s", stderr)
	}
}
