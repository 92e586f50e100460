package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Errors of Probe, for gw doctor's proxy check.
var (
	ErrNotRunning    = errors.New("gw serve is not running")
	ErrNotGwServe    = errors.New("something other than gw serve answers")
	ErrTokenRejected = errors.New("gw serve refuses the local token")
)

// Probe checks that a gw serve answers on addr (host:port) and accepts
// token. It asks for "/", which gw serve answers itself with a 404 in its
// own error shape once the token is accepted, so no request reaches the
// hosted service and no key is needed.
func Probe(ctx context.Context, addr, token string) error {
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		return fmt.Errorf("probing %s: %w", addr, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(ProbeHeader, "1") // logged as a probe, not a refusal
	res, err := tr.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("%w on %s: %v; start it with: gw serve", ErrNotRunning, addr, err)
	}
	defer res.Body.Close()
	var body errorBody
	_ = json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&body)
	if body.Error.Type != "gw_error" {
		return fmt.Errorf("%w on %s (HTTP %d); stop it or run gw serve --port on a free port", ErrNotGwServe, addr, res.StatusCode)
	}
	switch body.Error.Code {
	case CodeNotFound:
		return nil
	case CodeLocalTokenInvalid, CodeLocalTokenMissing:
		return fmt.Errorf("%w on %s: it was started with another local token; restart gw serve", ErrTokenRejected, addr)
	}
	return fmt.Errorf("%w on %s: it answered %d %s", ErrNotGwServe, addr, res.StatusCode, body.Error.Code)
}
