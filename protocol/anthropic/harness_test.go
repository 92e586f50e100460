package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelgateway/gw/protocol/chat"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/standin"
)

// The test harness stands in for gw serve's proxy: a Handler runs the
// Messages translator in gw serve's loop (proxy/relay), and its Upstream
// posts the chat request to the stand-in of the service with the real key,
// as the proxy does.

// Upstream sends a chat request to the service.
type Upstream func(ctx context.Context, req *chat.Request) (*http.Response, error)

// Handler serves the Messages API through gw serve's loop.
type Handler struct {
	Upstream     Upstream
	PingInterval time.Duration
	MaxBody      int64
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.Serve(w, r) }

// Serve answers one request.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) relay.Outcome {
	o := &relay.Options{PingInterval: h.PingInterval, Limits: relay.Limits{Request: h.MaxBody}}
	if h.Upstream != nil {
		o.Upstream = func(ctx context.Context, c *tr.Call) (*http.Response, error) { return h.Upstream(ctx, c.Chat) }
	}
	return relay.Serve(w, r, Protocol{}, o)
}

// Outcome is what the loop returns for the log.
type Outcome = relay.Outcome

// startService serves the stand-in with its demo accounts.
func startService(t *testing.T, o standin.Options) *standin.Running {
	t.Helper()
	svc := standin.Start(o)
	t.Cleanup(svc.Close)
	return svc
}

// upstreamTo sends chat requests to baseURL (ending in /v1) with key.
func upstreamTo(baseURL, key string, hc *http.Client) Upstream {
	return func(ctx context.Context, req *chat.Request) (*http.Response, error) {
		b, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/chat/completions", bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Authorization", "Bearer "+key)
		return hc.Do(hr)
	}
}

// startGateway serves h on loopback: what Claude Code's ANTHROPIC_BASE_URL
// points at (no /v1: Claude Code adds /v1/messages).
func startGateway(t *testing.T, h *Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}
