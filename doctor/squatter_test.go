package doctor

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/standin"
)

// A program that listened first on gw serve's port and answers like gw serve (its errors, a hello with a
// proof it cannot compute), with Claude Code's settings pointing there: the proxy check fails, saying the
// listener cannot prove it is this install's gw serve, and the program was sent nothing — no local token,
// no key. (Another user's squatter: cmd/root's hostile_squatter script.)
func TestRun_SquatterOnTheProxyPortGetsNothing(t *testing.T) {
	s := startStandin(t, standin.Options{})
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
			fmt.Fprintf(w, `{"service":"gw serve","proof":"%s"}`+"\n", strings.Repeat("ab", 32))
			return
		}
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"not found","type":"gw_error","code":"not_found"}}`+"\n")
	}))
	defer sq.Close()
	addr := strings.TrimPrefix(sq.URL, "http://")
	in := input(s.BaseURL, standin.DemoKeyFull)
	in.ProxyAddr, in.LocalToken = addr, localToken
	in.Agents = []AgentFiles{agentFiles(t, "claude-code", claudeSettings("http://"+addr, localToken, "vendor-a/model-a-haiku-4.5"))}
	rep := runDoctor(t, in)
	c := wantStatus(t, rep, IDProxy, Fail)
	if !strings.Contains(c.Cause, "refuses the local token on "+addr) {
		t.Errorf("proxy check: %+v", c)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the squatter was not asked: the test shows nothing")
	}
	for _, r := range seen {
		if strings.Contains(r, localToken[len("gw-local-"):]) || strings.Contains(r, standin.DemoKeyFull) || strings.Contains(strings.ToLower(r), "authorization") {
			t.Errorf("the squatter received a credential:\n%s", r)
		}
	}
}
