package statusline

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
)

// A program that listened first on gw serve's configured port and answers like gw serve (its errors, a
// hello with a proof it cannot compute): gw statusline, which Claude Code runs at every turn, says the port
// is taken and sends it nothing — no local token. (Another user's squatter: cmd/root's hostile_squatter.)
func TestStatuslineRun_SquatterOnTheConfiguredPortGetsNothing(t *testing.T) {
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
	port := sq.Listener.Addr().(*net.TCPAddr).Port
	e := cmdtest.New(t)
	configure(t, e, port)
	e.In.WriteString(recordedClaudeCodeStatus)
	if err := statuslineRun(context.Background(), &StatuslineOptions{IO: e.Factory.IOStreams, Config: e.Factory.Config}); err != nil {
		t.Fatal(err)
	}
	if want := "gw ! port " + strconv.Itoa(port) + " taken, run gw doctor · vendor-a/model-a-opus-4.6 · today: no requests\n"; e.Out.String() != want {
		t.Errorf("got  %q\nwant %q", e.Out.String(), want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the squatter was not asked: the test shows nothing")
	}
	for _, r := range seen {
		if strings.Contains(r, "0123456789abcdef0123456789abcdef") || strings.Contains(strings.ToLower(r), "authorization") {
			t.Errorf("the squatter received the local token:\n%s", r)
		}
	}
}
