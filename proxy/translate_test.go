package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelgateway/gw/api/apitest"
	"github.com/modelgateway/gw/keychain"
	"github.com/modelgateway/gw/standin"
)

// upstreamHeaders records the headers of every request the stand-in gets.
type upstreamHeaders struct {
	mu   sync.Mutex
	seen []http.Header
}

func (u *upstreamHeaders) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, r.Header.Clone())
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (u *upstreamHeaders) last() http.Header {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.seen) == 0 {
		return nil
	}
	return u.seen[len(u.seen)-1]
}

// logLine is the log line of the last request to path.
func logLine(t *testing.T, r *rig, path string) string {
	t.Helper()
	waitForLog(t, r.log, " "+path+" ")
	lines := strings.Split(strings.TrimSpace(r.log.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], " "+path+" ") {
			return lines[i]
		}
	}
	return ""
}

// TestTranslatedRoutes: the Messages and Responses APIs are answered by
// translating onto the service's chat completions: one chat request to
// <upstream>/chat/completions with the real key, uncompressed, without the
// client's x-api-key; the answer in the client's protocol, whole or
// streamed; the log line names the protocol, the model, streaming and the
// usage.
func TestTranslatedRoutes(t *testing.T) {
	hdrs := &upstreamHeaders{}
	r := newRig(t, rigOpts{wrapUp: hdrs.wrap})
	for _, rt := range testRoutes[1:] {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s stream=%v", rt.proto, stream), func(t *testing.T) {
				before := len(r.up.Seen())
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, stream),
					http.Header{"User-Agent": {"agent/1.0"}, "X-Api-Key": {testToken}})
				if res.StatusCode != 200 {
					t.Fatalf("status %d: %s", res.StatusCode, readAll(t, res))
				}
				text := ""
				if stream {
					end, err := readStream(rt.proto, res.Body)
					res.Body.Close()
					if err != nil || end.terminal != completed(rt.proto) || !end.usage {
						t.Fatalf("stream %+v: %v", end, err)
					}
					text = end.text
				} else {
					text = wholeText(t, rt.proto, readAll(t, res))
				}
				if want := standin.Greeting(sonnet); text != want {
					t.Errorf("answer %q, want %q", text, want)
				}
				seen := r.up.Seen()
				if len(seen) != before+1 {
					t.Fatalf("the service got %d requests, want 1", len(seen)-before)
				}
				if s := seen[len(seen)-1]; s.Path != "/v1/chat/completions" || s.Key != realKey || s.Model != sonnet || s.Stream != stream {
					t.Errorf("the service got %+v", s)
				}
				h := hdrs.last()
				if h.Get("Accept-Encoding") != "identity" || h.Get("X-Api-Key") != "" || h.Get("Authorization") != "Bearer "+realKey ||
					h.Get("User-Agent") != "agent/1.0" {
					t.Errorf("the service got headers %v", h)
				}
				line := logLine(t, r, rt.path)
				want := regexp.MustCompile(` POST ` + rt.path + ` model=` + regexp.QuoteMeta(sonnet) +
					` status=200 dur=\S+ prompt_tokens=[1-9]\d* completion_tokens=[1-9]\d* proto=` + rt.proto +
					fmt.Sprintf(` stream=%v$`, stream))
				if !want.MatchString(line) {
					t.Errorf("log line %q does not match %s", line, want)
				}
			})
		}
	}

	t.Run("count_tokens is answered by gw serve", func(t *testing.T) {
		before := len(r.up.Seen())
		res := r.do(waitCtx(t), "POST", "/v1/messages/count_tokens", messagesBody(sonnet, false), nil)
		body := readAll(t, res)
		var c struct {
			InputTokens int `json:"input_tokens"`
		}
		if res.StatusCode != 200 || json.Unmarshal([]byte(body), &c) != nil || c.InputTokens <= 0 {
			t.Fatalf("status %d: %s", res.StatusCode, body)
		}
		if n := len(r.up.Seen()) - before; n != 0 {
			t.Errorf("count_tokens sent %d requests to the service", n)
		}
		if line := logLine(t, r, "/v1/messages/count_tokens"); !strings.Contains(line, "status=200") || !strings.Contains(line, "proto=messages stream=false") {
			t.Errorf("log line %q", line)
		}
	})

	t.Run("chat completions pass through", func(t *testing.T) {
		res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), http.Header{"X-Api-Key": {testToken}})
		if _, err := sseEvents(res.Body); err != nil || res.StatusCode != 200 {
			t.Fatalf("status %d: %v", res.StatusCode, err)
		}
		res.Body.Close()
		if h := hdrs.last(); h.Get("X-Api-Key") != "" {
			t.Errorf("the local token in x-api-key was passed on to the service: %v", h)
		}
		if line := logLine(t, r, "/v1/chat/completions"); !strings.Contains(line, " proto=chat stream=true") {
			t.Errorf("log line %q", line)
		}
		if line := logLine(t, r, "/v1/chat/completions"); !regexp.MustCompile(`completion_tokens=\d+ proto=chat stream=true$`).MatchString(line) {
			t.Errorf("log line %q: the new fields do not follow the existing ones", line)
		}
	})

	t.Run("other methods on a translated path are answered in its protocol", func(t *testing.T) {
		before := len(r.up.Seen())
		for _, rt := range testRoutes[1:] {
			res := r.do(waitCtx(t), "GET", rt.path, "", nil)
			ce := readClientError(t, rt.proto, res)
			if ce.Status != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
				t.Errorf("GET %s: %+v, Allow %q", rt.path, ce, res.Header.Get("Allow"))
			}
		}
		if n := len(r.up.Seen()) - before; n != 0 {
			t.Errorf("%d requests reached the service", n)
		}
	})
}

// wholeText is the text of a non-streamed answer of protocol p.
func wholeText(t *testing.T, p string, body string) string {
	t.Helper()
	var doc struct {
		Type    string `json:"type"`
		Object  string `json:"object"`
		Content []struct {
			Type, Text string
		} `json:"content"`
		Output []struct {
			Type    string `json:"type"`
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, body)
	}
	var text strings.Builder
	switch p {
	case "messages":
		if doc.Type != "message" {
			t.Fatalf("not a Messages API answer: %s", body)
		}
		for _, c := range doc.Content {
			text.WriteString(c.Text)
		}
	case "responses":
		if doc.Object != "response" {
			t.Fatalf("not a response object: %s", body)
		}
		for _, o := range doc.Output {
			for _, c := range o.Content {
				text.WriteString(c.Text)
			}
		}
	}
	return text.String()
}

// TestLocalTokenInXAPIKey: the local token is accepted in x-api-key (where
// Claude Code sends ANTHROPIC_API_KEY) as well as as a Bearer token, on
// every route; a wrong one is refused like a wrong Bearer token.
func TestLocalTokenInXAPIKey(t *testing.T) {
	for _, rt := range testRoutes {
		t.Run(rt.proto, func(t *testing.T) {
			r := newRig(t, rigOpts{})
			ok := []http.Header{
				{"Authorization": nil, "X-Api-Key": {testToken}},
				{"Authorization": {"Bearer gw-local-ffff"}, "X-Api-Key": {testToken}},
				{"Authorization": {"Bearer " + testToken}, "X-Api-Key": {"something else"}},
			}
			for _, h := range ok {
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), h)
				if body := readAll(t, res); res.StatusCode != 200 {
					t.Errorf("%v: status %d: %s", h, res.StatusCode, body)
				}
			}
			refused := []struct {
				h    http.Header
				code string
				says string
			}{
				{http.Header{"Authorization": nil, "X-Api-Key": {"gw-local-ffff"}}, CodeLocalTokenInvalid, "is not this install's gw serve local token"},
				{http.Header{"Authorization": nil, "X-Api-Key": {realKey}}, CodeLocalTokenInvalid, "belongs in gw's keychain"},
				{http.Header{"Authorization": nil, "X-Api-Key": {" "}}, CodeLocalTokenMissing, "x-api-key"},
			}
			before := len(r.up.Seen())
			logged := map[string]bool{} // a peer's repeated refusals are one line
			for _, c := range refused {
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), c.h)
				ce := readClientError(t, rt.proto, res)
				want := http.StatusUnauthorized
				if rt.proto == "responses" {
					want = http.StatusBadRequest // Codex retries a 401 five times
				}
				if ce.Status != want || !strings.HasPrefix(ce.Message, "API key invalid or unauthorized: ") || !strings.Contains(ce.Message, c.says) {
					t.Errorf("%v: got %+v, want %d and a message saying %q", c.h, ce, want, c.says)
				}
				if rt.proto != "messages" && ce.Code != c.code {
					t.Errorf("%v: code %q, want %q", c.h, ce.Code, c.code)
				}
				if logged[c.code] {
					continue
				}
				logged[c.code] = true
				if line := logLine(t, r, rt.path); !strings.Contains(line, fmt.Sprintf("status=%d ", want)) || !strings.Contains(line, "refused="+c.code) {
					t.Errorf("log line %q", line)
				}
			}
			if n := len(r.up.Seen()) - before; n != 0 {
				t.Errorf("%d refused requests reached the service", n)
			}
		})
	}
}

// TestOwnErrorsInEachClientsShape: what gw serve refuses or fails itself
// reaches Claude Code as an Anthropic error (not to be retried) and Codex
// as an OpenAI error with gw's code (a 400 for what no retry fixes), with
// the spec's message first.
func TestOwnErrorsInEachClientsShape(t *testing.T) {
	for _, rt := range testRoutes {
		t.Run(rt.proto, func(t *testing.T) { testOwnErrors(t, rt) })
	}
}

// testOwnErrors checks gw serve's own errors on one route, with rigs of its
// own: a peer's repeated refusals are logged as one line.
func testOwnErrors(t *testing.T, rt testRoute) {
	ok := newRig(t, rigOpts{})
	port := ok.base[strings.LastIndex(ok.base, ":")+1 : len(ok.base)-3]
	noKey := newRig(t, rigOpts{key: func(context.Context) (string, error) {
		return "", fmt.Errorf("%w: keychain", keychain.ErrNotFound)
	}})
	locked := newRig(t, rigOpts{key: func(context.Context) (string, error) {
		return "", errors.New("keychain did not answer within 3s")
	}})
	closed := apitest.ClosedAddr(t)
	gone := newRig(t, rigOpts{proxy: func(o *Options) { o.Upstream, _ = url.Parse("http://" + closed + "/v1") }})

	cases := []struct {
		name   string
		r      *rig
		hdr    http.Header
		status int // as gw serve means it; Responses clients get ClientStatus of it
		code   string
		prefix string
		says   string
	}{
		{"foreign host", ok, http.Header{"Host": {"evil.example:" + port}}, 403, CodeHostRefused, "unable to connect to API: ", "DNS rebinding"},
		{"browser origin", ok, http.Header{"Origin": {"https://evil.example"}}, 403, CodeOriginRefused, "API key invalid or unauthorized: ", "web page"},
		{"cross-site fetch", ok, http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403, CodeCrossSiteRefused, "API key invalid or unauthorized: ", "web page"},
		{"no local token", ok, http.Header{"Authorization": nil}, 401, CodeLocalTokenMissing, "API key invalid or unauthorized: ", "local token"},
		{"wrong local token", ok, http.Header{"Authorization": {"Bearer gw-local-ffff"}}, 401, CodeLocalTokenInvalid, "API key invalid or unauthorized: ", "local token"},
		{"no key stored", noKey, nil, 401, CodeNoKey, "API key invalid or unauthorized: ", "no key stored — run gw auth login"},
		{"keychain unavailable", locked, nil, 503, CodeKeyUnavailable, "API key invalid or unauthorized: ", "did not answer within 3s"},
		{"service unreachable", gone, nil, 502, "upstream_unreachable", "unable to connect to API: ", closed},
	}
	for _, c := range cases {
		{
			t.Run(c.name, func(t *testing.T) {
				res := c.r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), c.hdr)
				ce := readClientError(t, rt.proto, res)
				want := c.status
				switch rt.proto {
				case "messages":
					if ce.Type != anthropicType(c.status) || ce.Retry != "false" {
						t.Errorf("type %q, x-should-retry %q; want %q and false", ce.Type, ce.Retry, anthropicType(c.status))
					}
				case "responses":
					if c.status < 500 {
						want = http.StatusBadRequest
					}
					if ce.Code != c.code {
						t.Errorf("code %q, want %q", ce.Code, c.code)
					}
				default:
					if ce.Code != c.code {
						t.Errorf("code %q, want %q", ce.Code, c.code)
					}
				}
				if ce.Status != want || !strings.HasPrefix(ce.Message, c.prefix) || !strings.Contains(ce.Message, c.says) {
					t.Errorf("got %d %q; want %d, %q first, saying %q", ce.Status, ce.Message, want, c.prefix, c.says)
				}
				if c.name == "foreign host" && rt.proto == "messages" && !strings.HasSuffix(ce.Message, "point the client at http://127.0.0.1:"+port) {
					t.Errorf("a Messages client is told a base URL with /v1, which Claude Code adds itself: %q", ce.Message)
				}
				if line := logLine(t, c.r, rt.path); !strings.Contains(line, fmt.Sprintf("status=%d ", want)) || !strings.Contains(line, "proto="+rt.proto+" ") {
					t.Errorf("log line %q", line)
				}
			})
		}
	}
}

// anthropicType is the Messages API's error type of a status.
func anthropicType(status int) string {
	switch status {
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	}
	return "api_error"
}

// TestKeyRejectedSaysWhichKey: when the service refuses the key (a wrong
// key, an exhausted balance), the agent is told, on every protocol, that
// the service refused the key gw serve sends (masked, and where it came
// from) and not the agent's local token, and what to do; the spec's
// message stays first and the service's status is kept (Codex: 400, which
// it does not retry). The accounts are the stand-in's: one whose key is
// wrong, one whose balance is zero, in each of its gateway dialects.
func TestKeyRejectedSaysWhichKey(t *testing.T) {
	const wrongKey = "sk-wrong-key-123456"
	accounts := []struct {
		name, key string
		says      []string
	}{
		{"wrong key", wrongKey, []string{"the service refused the key gw serve sends (" + keychain.Mask(wrongKey) + ", from the keychain)", "run: gw auth login"}},
		{"no balance", standin.DemoKeyNoBalance, []string{"the account of the key gw serve sends (" + keychain.Mask(standin.DemoKeyNoBalance) + ", from the keychain) has no balance left", "top up the account's balance"}},
	}
	for _, d := range standin.Dialects() {
		for _, acc := range accounts {
			r := newRig(t, rigOpts{standin: standin.Options{Dialect: d},
				keyFrom: func(context.Context) (string, keychain.Source, error) { return acc.key, keychain.SourceKeychain, nil }})
			for _, rt := range testRoutes {
				t.Run(d+"/"+acc.name+"/"+rt.proto, func(t *testing.T) {
					direct := directPost(t, r.upURL+"/chat/completions", acc.key, chatBody(sonnet, false))
					res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, rt.proto != "chat"), nil)
					raw := ""
					if rt.proto == "chat" {
						raw = readAll(t, res)
						res.Body = io.NopCloser(strings.NewReader(raw))
					}
					ce := readClientError(t, rt.proto, res)
					want := direct.status
					if rt.proto == "responses" {
						want = http.StatusBadRequest
					}
					if ce.Status != want {
						t.Errorf("status %d, want %d", ce.Status, want)
					}
					if !strings.HasPrefix(ce.Message, "API key invalid or unauthorized: ") || !strings.Contains(ce.Message, "; the agent's local token is fine — ") {
						t.Errorf("message %q", ce.Message)
					}
					for _, s := range acc.says {
						if !strings.Contains(ce.Message, s) {
							t.Errorf("message %q does not say %q", ce.Message, s)
						}
					}
					noKey(t, "the answer", ce.Message, acc.key)
					if rt.proto == "chat" {
						noKey(t, "the body", raw, acc.key)
						sameFieldsBesidesMessage(t, raw, direct.body)
					}
					if line := logLine(t, r, rt.path); !strings.Contains(line, "rejected=") {
						t.Errorf("log line %q does not say the key was rejected", line)
					}
				})
			}
		}
	}

	t.Run("a key from GW_API_KEY", func(t *testing.T) {
		r := newRig(t, rigOpts{keyFrom: func(context.Context) (string, keychain.Source, error) {
			return wrongKey, keychain.SourceEnv, nil
		}})
		for _, rt := range testRoutes {
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), nil)
			ce := readClientError(t, rt.proto, res)
			if !strings.Contains(ce.Message, "("+keychain.Mask(wrongKey)+", from GW_API_KEY)") || !strings.Contains(ce.Message, "set GW_API_KEY to it, or run: unset GW_API_KEY") {
				t.Errorf("%s: %q", rt.proto, ce.Message)
			}
		}
	})
}

type directAnswer struct {
	status int
	body   string
}

func directPost(t *testing.T, u, key, body string) directAnswer {
	t.Helper()
	req, _ := http.NewRequestWithContext(waitCtx(t), "POST", u, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	return directAnswer{res.StatusCode, readAll(t, res)}
}

// sameFieldsBesidesMessage checks that an error body relayed with gw's
// message kept the service's other fields, when the service used OpenAI's
// shape.
func sameFieldsBesidesMessage(t *testing.T, got, direct string) {
	t.Helper()
	var g, d map[string]any
	if json.Unmarshal([]byte(direct), &d) != nil {
		return // not JSON: replaced by OpenAI's shape
	}
	de, ok := d["error"].(map[string]any)
	if _, hasMsg := de["message"]; !ok || !hasMsg {
		return
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("relayed body is not JSON: %s", got)
	}
	ge := g["error"].(map[string]any)
	delete(ge, "message")
	delete(de, "message")
	ids := regexp.MustCompile(`standin\d+`)
	gb, _ := json.Marshal(g)
	db, _ := json.Marshal(d)
	if a, b := ids.ReplaceAllString(string(gb), "standin<id>"), ids.ReplaceAllString(string(db), "standin<id>"); a != b {
		t.Errorf("the service's other fields changed:\n got %s\nwant %s", a, b)
	}
}

// TestTranslatedErrorsNeverCarryTheKey: a service that echoes the key in its
// errors — an error answer, or an error inside its stream — does not hand it
// to a Messages or Responses client: the translators read the service's
// words with the key scrubbed. The key here is one that does not look like
// a credential, so only gw serve's knowledge of it can take it out.
func TestTranslatedErrorsNeverCarryTheKey(t *testing.T) {
	const plainKey = "plainwordsecretpassphrase"
	answers := map[string]func(w http.ResponseWriter, key string){
		"error answer": func(w http.ResponseWriter, key string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"error":{"message":"the backend failed for %s"}}`, key)
		},
		"error inside the stream": func(w http.ResponseWriter, key string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}`+"\n\n")
			fmt.Fprintf(w, `data: {"error":{"message":"the backend failed for %s","code":500}}`+"\n\n", key)
		},
	}
	for name, answer := range answers {
		for _, rt := range testRoutes[1:] {
			t.Run(name+"/"+rt.proto, func(t *testing.T) {
				r := echoRig(t, plainKey, func(w http.ResponseWriter, _ *http.Request, key string) { answer(w, key) })
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
				body := readAll(t, res)
				noKey(t, "the answer", body, plainKey)
				if !strings.Contains(body, "the backend failed for "+keychain.Mask(plainKey)) {
					t.Errorf("the service's words are not in the answer, with the key masked:\n%s", body)
				}
			})
		}
	}
}

// TestTranslatedUnknownModelFromTheAccountsList: an id the service does not
// know is explained from the account's own list of models, as on the chat
// route: an id close to a model the plan lacks is said to be outside the
// subscription, rather than steering the agent to an id whose request
// would fail again.
func TestTranslatedUnknownModelFromTheAccountsList(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return standin.DemoKeyPartial, nil },
		proxy: func(o *Options) {
			o.ModelIDs = func(context.Context) ([]string, error) { return standin.PartialPlan(), nil }
		}})
	const typo = "vendor-a/model-a-opus-4.7" // closest in the catalogue: opus-4.6, which the plan lacks
	for _, rt := range testRoutes[1:] {
		t.Run(rt.proto, func(t *testing.T) {
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(typo, true), nil)
			ce := readClientError(t, rt.proto, res)
			for _, want := range []string{
				"model not found / invalid model: ",
				"the closest id is vendor-a/model-a-opus-4.6, which is not in this account's subscription",
				"upgrade the plan on the dashboard to use vendor-a/model-a-opus-4.6",
			} {
				if !strings.Contains(ce.Message, want) {
					t.Errorf("message %q\nwants %q", ce.Message, want)
				}
			}
			if strings.Contains(ce.Message, "use the exact id: vendor-a/model-a-opus-4.6") {
				t.Errorf("the agent is sent to a model the account lacks: %q", ce.Message)
			}
		})
	}
}
