// Package relaytest runs a translator as gw serve does, for the
// translators' tests: in relay's loop, with the stand-in of the service
// behind it and the key added upstream. The translators share it instead
// of each keeping a copy.
package relaytest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/standin"
)

// Upstream sends a translated chat request to the service.
type Upstream = relay.Upstream

// StartService serves the stand-in with o until the test ends.
func StartService(t testing.TB, o standin.Options) *standin.Running {
	t.Helper()
	svc := standin.Start(o)
	t.Cleanup(svc.Close)
	return svc
}

// UpstreamTo sends chat requests to baseURL (ending in /v1) with key, as
// gw serve does: POST …/chat/completions, the call's extra fields kept.
func UpstreamTo(baseURL, key string, hc *http.Client) Upstream {
	return func(ctx context.Context, c *translate.Call) (*http.Response, error) {
		hr, err := relay.NewChatRequest(ctx, baseURL+"/chat/completions", c)
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Authorization", "Bearer "+key)
		return hc.Do(hr)
	}
}

// Serve answers one request with p through the loop: up calls the service
// (nil: the loop's default, which fails), ping is the keep-alive interval
// and maxBody the request cap (0: the loop's defaults).
func Serve(w http.ResponseWriter, r *http.Request, p translate.Protocol, up Upstream, ping time.Duration, maxBody int64) relay.Outcome {
	o := &relay.Options{PingInterval: ping, Limits: relay.Limits{Request: maxBody}}
	if up != nil {
		o.Upstream = up
	}
	return relay.Serve(w, r, p, o)
}
