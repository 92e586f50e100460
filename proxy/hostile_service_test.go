package proxy

// The hostile service, as relayed by gw serve: answers that echo the real
// key back, in every place a response can carry it. The local client holds
// only the local token and must never receive the key.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/modelgateway/gw/keychain"
)

// oddKey has the characters that JSON and URL escaping change, so that each
// escaped form of it differs from the key as is.
const oddKey = "sk-od/d+key&<x>=" + "0123456789abcdef"

// keyForms is the key as a service may write it.
func keyForms(key string) []string {
	j, _ := json.Marshal(key)
	return []string{key, string(j[1 : len(j)-1]), strings.ReplaceAll(key, "/", `\/`), url.QueryEscape(key), url.PathEscape(key)}
}

// echoService answers with what f writes, given the Authorization it got.
func echoRig(t *testing.T, key string, f func(w http.ResponseWriter, r *http.Request, key string)) *rig {
	return newRig(t, rigOpts{
		key: func(context.Context) (string, error) { return key, nil },
		wrapUp: func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f(w, r, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			})
		},
	})
}

// noKey fails the test when text holds the key in any form.
func noKey(t *testing.T, where, text, key string) {
	t.Helper()
	for _, form := range keyForms(key) {
		if strings.Contains(text, form) {
			t.Errorf("%s holds the key (as %q):\n%.400s", where, form, text)
		}
	}
	if strings.Contains(strings.ToLower(text), strings.ToLower(key)) {
		t.Errorf("%s holds the key in another case:\n%.400s", where, text)
	}
}

func headerText(h http.Header) string {
	var b strings.Builder
	_ = h.Write(&b)
	return b.String()
}

func TestHostileServiceErrorBodiesLoseTheKey(t *testing.T) {
	for _, key := range []string{realKey, oddKey} {
		for _, status := range []int{400, 401, 403, 404, 429, 500, 502, 503, 302} {
			t.Run(fmt.Sprintf("%s/%d", key[:6], status), func(t *testing.T) {
				r := echoRig(t, key, func(w http.ResponseWriter, r *http.Request, got string) {
					var body strings.Builder
					fmt.Fprintf(&body, `{"error":{"message":"key %s refused","auth":%q,`, got, "Bearer "+got)
					for i, form := range keyForms(got) {
						fmt.Fprintf(&body, `"form%d":"%s",`, i, form)
					}
					body.WriteString(`"type":"invalid_request_error"}}`)
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					io.WriteString(w, body.String())
				})
				res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
				body := readAll(t, res)
				if res.StatusCode != status {
					t.Fatalf("status %d, want the service's %d", res.StatusCode, status)
				}
				noKey(t, "the body", body, key)
				var doc map[string]any
				if err := json.Unmarshal([]byte(body), &doc); err != nil {
					t.Fatalf("the scrubbed body is no longer JSON: %v\n%s", err, body)
				}
				decoded, _ := json.Marshal(doc)
				if strings.Contains(string(decoded), key) || strings.Contains(fmt.Sprint(doc), key) {
					t.Errorf("the key is in the body once decoded: %v", doc)
				}
				if !strings.Contains(body, keychain.Mask(key)) {
					t.Errorf("the key is not replaced by its masked form %q: %s", keychain.Mask(key), body)
				}
				if cl := res.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
					t.Errorf("Content-Length %s for %d bytes", cl, len(body))
				}
			})
		}
	}
}

func TestHostileServiceHeadersAndTrailersLoseTheKey(t *testing.T) {
	for _, status := range []int{200, 401, 500} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			r := echoRig(t, oddKey, func(w http.ResponseWriter, r *http.Request, got string) {
				h := w.Header()
				h.Set("X-Debug-Authorization", "Bearer "+got)
				h.Set("WWW-Authenticate", `Bearer error="invalid_token", key="`+url.QueryEscape(got)+`"`)
				h.Add("Set-Cookie", "k="+url.PathEscape(got))
				h.Set("X-Key-"+strings.Map(func(r rune) rune {
					if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
						return r
					}
					return -1
				}, got), "1")
				h.Set("Location", "https://example.invalid/?key="+url.QueryEscape(got))
				h.Set("Trailer", "X-Trailer-Auth")
				h.Set("Content-Type", "text/plain")
				// An early hint first, with the key in it.
				h.Set("Link", "</x?k="+got+">; rel=preload")
				w.WriteHeader(http.StatusEarlyHints)
				h.Del("Link")
				w.WriteHeader(status)
				io.WriteString(w, "body\n")
				h.Set("X-Trailer-Auth", got)
				h.Set(http.TrailerPrefix+"X-Undeclared", "Bearer "+got)
			})
			var early []string
			ctx := httptrace.WithClientTrace(waitCtx(t), &httptrace.ClientTrace{
				Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
					early = append(early, headerText(http.Header(h)))
					return nil
				},
			})
			res := r.do(ctx, "GET", "/v1/models", "", nil)
			body := readAll(t, res)
			if res.StatusCode != status {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			noKey(t, "the headers", headerText(res.Header), oddKey)
			noKey(t, "the trailers", headerText(res.Trailer), oddKey)
			if len(early) == 0 {
				t.Error("the 103 Early Hints did not arrive: its scrubbing is untested")
			}
			for _, h := range early {
				noKey(t, "a 1xx answer's headers", h, oddKey)
			}
			if res.Header.Get("X-Debug-Authorization") != "Bearer "+keychain.Mask(oddKey) {
				t.Errorf("X-Debug-Authorization %q, want the masked key", res.Header.Get("X-Debug-Authorization"))
			}
			if status == 200 && body != "body\n" {
				t.Errorf("a 2xx body changed: %q", body)
			}
		})
	}
}

func TestHostileServiceBigErrorBodyLosesTheKeyEverywhere(t *testing.T) {
	// The key at the start, across the read limit, across write
	// boundaries, and at the very end.
	const maxErrorBody = 64 << 10 // what gw serve once read of an error body at a time
	var b bytes.Buffer
	b.WriteString(oddKey)
	for b.Len() < 3*maxErrorBody {
		at := b.Len()
		b.WriteString(strings.Repeat("x", 997))
		if at < maxErrorBody && b.Len() >= maxErrorBody-5 {
			b.Truncate(maxErrorBody - 5)
		}
		b.WriteString(oddKey)
	}
	sent := b.String()
	r := echoRig(t, oddKey, func(w http.ResponseWriter, r *http.Request, got string) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		data := []byte(sent)
		for len(data) > 0 {
			n := min(len(data), 4093) // boundaries that cut keys in two
			w.Write(data[:n])
			w.(http.Flusher).Flush()
			data = data[n:]
		}
	})
	res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
	body := readAll(t, res)
	if res.StatusCode != 500 {
		t.Fatalf("status %d", res.StatusCode)
	}
	noKey(t, "the body", body, oddKey)
	if want := strings.ReplaceAll(sent, oddKey, keychain.Mask(oddKey)); body != want {
		t.Errorf("got %d bytes, want the %d sent with each key masked", len(body), len(want))
	}
}

func TestHostileServiceCompressedErrorBodies(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		io.WriteString(zw, s)
		zw.Close()
		return b.Bytes()
	}
	t.Run("gzip is decoded and scrubbed", func(t *testing.T) {
		r := echoRig(t, realKey, func(w http.ResponseWriter, r *http.Request, got string) {
			if ae := r.Header.Get("Accept-Encoding"); ae != "gzip" {
				t.Errorf("the service was asked for Accept-Encoding %q, want gzip", ae)
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			w.Write(gz(`{"error":{"message":"the backend failed for ` + got + `"}}`))
		})
		res := r.do(waitCtx(t), "GET", "/v1/models", "", http.Header{"Accept-Encoding": {"br, gzip;q=0.5"}})
		body := readAll(t, res) // raw: the client set Accept-Encoding itself
		if res.StatusCode != 500 || res.Header.Get("Content-Encoding") != "" {
			t.Fatalf("status %d, Content-Encoding %q", res.StatusCode, res.Header.Get("Content-Encoding"))
		}
		if body != `{"error":{"message":"the backend failed for `+keychain.Mask(realKey)+`"}}` {
			t.Errorf("body %q", body)
		}
	})
	t.Run("an encoding gw cannot read is withheld", func(t *testing.T) {
		r := echoRig(t, realKey, func(w http.ResponseWriter, r *http.Request, got string) {
			if ae := r.Header.Get("Accept-Encoding"); ae != "identity" {
				t.Errorf("the service was asked for Accept-Encoding %q, want identity", ae)
			}
			w.Header().Set("Content-Encoding", "br") // not asked for: a hostile service
			w.WriteHeader(403)
			io.WriteString(w, "not really brotli: "+got)
		})
		res := r.do(waitCtx(t), "GET", "/v1/models", "", http.Header{"Accept-Encoding": {"br"}})
		body := readAll(t, res)
		if res.StatusCode != 403 {
			t.Fatalf("status %d: %s", res.StatusCode, body)
		}
		noKey(t, "the body", body, realKey)
		if e := gwError(t, body); e.Code != CodeBodyWithheld || !strings.Contains(e.Message, `"br"`) {
			t.Errorf("got %+v", e)
		}
	})
	t.Run("a 2xx gzip body passes as it is", func(t *testing.T) {
		want := gz(`{"data":[]}`)
		r := echoRig(t, realKey, func(w http.ResponseWriter, r *http.Request, got string) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(want)
		})
		res := r.do(waitCtx(t), "GET", "/v1/models", "", http.Header{"Accept-Encoding": {"gzip"}})
		if body := readAll(t, res); body != string(want) || res.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("a compressed 2xx body was changed")
		}
	})
}

func TestHostileServiceStreamsStayByteForByte(t *testing.T) {
	var sent bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&sent, "data: {\"i\":%d,\"text\":\"%s\\u0000\\ud800 \xff\"}\n\n", i, strings.Repeat("é", i%7))
	}
	sent.WriteString("data: [DONE]\n\n")
	r := echoRig(t, realKey, func(w http.ResponseWriter, r *http.Request, got string) {
		w.Header().Set("Content-Type", "text/event-stream")
		data := sent.Bytes()
		for len(data) > 0 {
			n := min(len(data), 313)
			w.Write(data[:n])
			w.(http.Flusher).Flush()
			data = data[n:]
		}
	})
	res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
	if body := readAll(t, res); body != sent.String() {
		t.Errorf("the stream changed on its way: %d bytes sent, %d received", sent.Len(), len(body))
	}
}

func TestScrubFindsEveryForm(t *testing.T) {
	s := newScrubber(oddKey)
	var in strings.Builder
	for i := range 50 {
		in.WriteString(strings.Repeat("y", i))
		in.WriteString(keyForms(oddKey)[i%5])
	}
	in.WriteString(oddKey[:5]) // a start of the key that is not one
	out := string(s.scrub([]byte(in.String())))
	noKey(t, "the text", out, oddKey)
	if !strings.HasSuffix(out, oddKey[:5]) || strings.Count(out, keychain.Mask(oddKey)) != 50 {
		t.Errorf("%q", out)
	}
}

// TestHostileServiceListOf40000ModelsCodexCatalogAtMost500: a service listing 20,000 or 40,000 models
// (well under the list's cap) gets Codex a catalog of at most 500 entries, the first the account lists,
// and the request log says it was cut; before, 20,000 ids made a 56.7 MiB catalog, each entry built by a
// scan of the whole list.
func TestHostileServiceListOf40000ModelsCodexCatalogAtMost500(t *testing.T) {
	for _, n := range []int{20_000, 40_000} {
		var list bytes.Buffer
		list.WriteString(`{"object":"list","data":[`)
		for i := range n {
			if i > 0 {
				list.WriteByte(',')
			}
			fmt.Fprintf(&list, `{"id":"vendor-x/model-%d","object":"model"}`, i)
		}
		list.WriteString(`]}`)
		r := newRig(t, rigOpts{wrapUp: func(up http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.URL.Path == "/v1/models" {
					w.Header().Set("Content-Type", "application/json")
					w.Write(list.Bytes())
					return
				}
				up.ServeHTTP(w, req)
			})
		}})
		res := r.do(waitCtx(t), "GET", "/v1/codex/models?client_version=0.169.0", "", nil)
		body := readAll(t, res)
		var c struct {
			Models []struct {
				Slug string `json:"slug"`
			} `json:"models"`
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil || res.StatusCode != 200 {
			t.Fatalf("%d models listed: %d %.300s", n, res.StatusCode, body)
		}
		if len(c.Models) != 500 || c.Models[0].Slug != "vendor-x/model-0" || c.Models[499].Slug != "vendor-x/model-499" {
			t.Errorf("%d models listed: a catalog of %d entries", n, len(c.Models))
		}
		if len(body) > 2<<20 {
			t.Errorf("%d models listed: a catalog of %d MiB", n, len(body)>>20)
		}
		waitForLog(t, r.log, fmt.Sprintf("catalog=first_500_of_%d", n))
	}
}
