package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelgateway/gw/protocol/chat"
	"github.com/modelgateway/gw/standin"
)

// The test harness stands in for gw serve's proxy until it routes the
// Messages API itself: a Handler whose Upstream posts the chat request to
// the stand-in of the service with the real key, as the proxy will.

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
