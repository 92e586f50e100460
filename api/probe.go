package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// Probe asks the service for the smallest answer model can give (one output token) and reports whether it
// serves that model to this key: nil, or the classified *Error — an exhausted balance, a model unknown or
// outside the subscription — in whatever dialect the service speaks. Listing models says little about the
// balance (many gateways list without charging), so this is how gw doctor finds out; it may cost one token.
func (c *Client) Probe(ctx context.Context, model string) error {
	body, err := json.Marshal(map[string]any{
		"model":      model,
		"messages":   []map[string]string{{"role": "user", "content": "Reply with OK."}},
		"max_tokens": 1,
		"stream":     false,
	})
	if err != nil {
		return err
	}
	req, err := c.newRequest(ctx, http.MethodPost, "/chat/completions", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	// An answer to max_tokens 1 is small whatever its status.
	b, err := readBody(res, maxErrorBody)
	if err != nil {
		return c.transportError(err)
	}
	if e := c.classifyResponse(res.StatusCode, res.Header, b, model); e != nil {
		return e
	}
	return nil
}
