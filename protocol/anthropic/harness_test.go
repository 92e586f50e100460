package anthropic

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/proxy/relay/relaytest"
)

// The test harness stands in for gw serve's proxy: a Handler runs the
// Messages translator in gw serve's loop (relaytest), and its Upstream
// posts the chat request to the stand-in of the service with the real key,
// as the proxy does.

// Upstream sends a chat request to the service.
type Upstream = relaytest.Upstream

// Handler serves the Messages API through gw serve's loop.
type Handler struct {
	Upstream     Upstream
	PingInterval time.Duration
	MaxBody      int64
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.Serve(w, r) }

// Serve answers one request.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) relay.Outcome {
	return relaytest.Serve(w, r, Protocol{}, h.Upstream, h.PingInterval, h.MaxBody)
}

// startGateway serves h on loopback: what Claude Code's ANTHROPIC_BASE_URL
// points at (no /v1: Claude Code adds /v1/messages).
func startGateway(t *testing.T, h *Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}
