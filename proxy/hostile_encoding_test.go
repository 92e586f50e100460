package proxy

// The hostile service, spelling the key otherwise: escaped as other JSON
// encoders escape it, percent-encoded, HTML-escaped, inside a stack of
// Content-Encodings, or inside a gzip bomb. The client must receive the
// key in no spelling its own decoders would undo, on every route.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/modelgateway/gw/keychain"
)

// plainKey looks like no credential, so only gw serve's knowledge of the
// key can take it out (the service's words are also scrubbed of what
// looks like one).
const plainKey = "plainwordsecretpassphrase"

// spellings are ways a service may write the key, none of them Go's.
var keySpellings = map[string]func(key string) string{
	`every character as \u00xx`: func(k string) string { return each(k, `\u%04x`) },
	`every character as \u00XX`: func(k string) string { return each(k, `\u%04X`) },
	`only the hyphen escaped`:   func(k string) string { return strings.ReplaceAll(jsonSafe(k), "-", `\u002d`) },
	`mixed escapes`: func(k string) string {
		var b strings.Builder
		for i := 0; i < len(k); i++ {
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, `\u%04x`, k[i])
			case 1:
				b.WriteString(jsonSafe(k[i : i+1]))
			default:
				fmt.Fprintf(&b, `\u%04X`, k[i])
			}
		}
		return b.String()
	},
	`percent-encoded, every character`:   func(k string) string { return each(k, "%%%02X") },
	`percent-encoded, lower-case hex`:    func(k string) string { return each(k, "%%%02x") },
	`percent-encoded twice`:              func(k string) string { return each(k, "%%25%02X") },
	`form-encoded`:                       func(k string) string { return jsonSafe(url.QueryEscape(k)) },
	`percent sign JSON-escaped`:          func(k string) string { return each(k, `\u0025%02x`) },
	`HTML character references`:          func(k string) string { return each(k, "&#%d;") },
	`HTML-escaped, then JSON-escaped`:    func(k string) string { return jsonSafe(html.EscapeString(k)) },
	`in upper case, percent-encoded too`: func(k string) string { return url.PathEscape(strings.ToUpper(k)) },
}

func each(k, format string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		fmt.Fprintf(&b, format, k[i])
	}
	return b.String()
}

// jsonSafe escapes what JSON requires and nothing more.
func jsonSafe(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)[1:]
}

// meansKey reports whether a client could read the key out of text with
// the decoders it has: JSON (every string value), HTML unescaping and URL
// decoding, each applied again on what the last one gave, in any case.
func meansKey(text, key string) bool {
	texts := []string{text}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
		case map[string]any:
			for k, x := range v {
				texts = append(texts, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, line := range append(strings.Split(text, "\n"), text) {
		var v any
		if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &v) == nil {
			walk(v)
		}
	}
	key = strings.ToLower(key)
	// Every order of the decoders, up to four deep.
	for range 4 {
		var next []string
		for _, s := range texts {
			if strings.Contains(strings.ToLower(s), key) {
				return true
			}
			var v string
			if json.Unmarshal([]byte(`"`+s+`"`), &v) == nil && v != s {
				next = append(next, v)
			}
			if v := html.UnescapeString(s); v != s {
				next = append(next, v)
			}
			if v, err := url.QueryUnescape(s); err == nil && v != s {
				next = append(next, v)
			}
			if v, err := url.PathUnescape(s); err == nil && v != s {
				next = append(next, v)
			}
		}
		texts = next
	}
	return false
}

// The checker itself: it finds the key in each spelling the service
// sends, so that its silence below means something.
func TestMeansKeyReadsEverySpelling(t *testing.T) {
	for name, spell := range keySpellings {
		for _, key := range []string{oddKey, plainKey} {
			if !meansKey(`{"error":{"message":"key `+spell(key)+` refused"}}`, key) {
				t.Errorf("%s: the test's decoder does not find the key in %s", name, spell(key))
			}
		}
	}
}

func TestHostileServiceKeySpelledOtherwiseIsScrubbedOnEveryRoute(t *testing.T) {
	for _, rt := range testRoutes {
		for name, spell := range keySpellings {
			for _, key := range []string{oddKey, plainKey} {
				t.Run(rt.proto+"/"+name+"/"+key[:5], func(t *testing.T) {
					spelled := spell(key)
					r := echoRig(t, key, func(w http.ResponseWriter, r *http.Request, got string) {
						w.Header().Set("Content-Type", "application/json")
						w.Header().Set("X-Debug", "sent "+spell(got))
						w.WriteHeader(500)
						fmt.Fprintf(w, `{"error":{"message":"the backend failed for %s","type":"server_error"}}`, spell(got))
					})
					res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), nil)
					body := readAll(t, res)
					if meansKey(body, key) {
						t.Errorf("the client can read the key (sent as %s) in the body:\n%.600s", spelled, body)
					}
					if meansKey(headerText(res.Header), key) {
						t.Errorf("the client can read the key in the headers:\n%s", headerText(res.Header))
					}
					if !strings.Contains(body, keychain.Mask(key)) {
						t.Errorf("the service's words lost the masked key:\n%.600s", body)
					}
				})
			}
		}
	}
}

func TestHostileServiceKeySpelledOtherwiseInHeaders(t *testing.T) {
	for _, status := range []int{200, 401} {
		r := echoRig(t, oddKey, func(w http.ResponseWriter, r *http.Request, got string) {
			i := 0
			for _, spell := range keySpellings {
				w.Header().Set(fmt.Sprintf("X-Echo-%d", i), spell(got))
				i++
			}
			w.Header().Set("Link", "<https://example.invalid/?k="+url.QueryEscape(got)+">; rel=help")
			w.WriteHeader(status)
			io.WriteString(w, "body\n")
		})
		res := r.do(waitCtx(t), "GET", "/v1/models", "", nil)
		body := readAll(t, res)
		for name, vv := range res.Header {
			for _, v := range vv {
				if meansKey(v, oddKey) {
					t.Errorf("%d: header %s holds the key: %s", status, name, v)
				}
			}
		}
		if status == 200 && body != "body\n" {
			t.Errorf("a 2xx body changed: %q", body)
		}
	}
}

func gzipped(t *testing.T, level int, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(zw, s)
	zw.Close()
	return b.Bytes()
}

// gunzipAll undoes every gzip layer a body has, as a client that honours
// each Content-Encoding would.
func gunzipAll(b []byte) []byte {
	for len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return b
		}
		d, err := io.ReadAll(io.LimitReader(zr, 16<<20))
		if err != nil {
			return b
		}
		b = d
	}
	return b
}

func TestHostileServiceContentEncodingStacks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		headers  []string // the Content-Encoding headers sent, each one a header
		layers   int      // gzip layers applied
		withheld bool
	}{
		{"identity then gzip, two headers", []string{"identity", "gzip"}, 1, false},
		{"identity, gzip in one header", []string{"identity, gzip"}, 1, false},
		{"gzip, identity", []string{"gzip, identity"}, 1, false},
		{"gzip twice", []string{"gzip", "x-gzip"}, 2, false},
		{"GZIP in capitals", []string{" GZIP "}, 1, false},
		{"gzip then br", []string{"gzip", "br"}, 1, true},
		{"identity then deflate", []string{"identity", "deflate"}, 0, true},
		{"five layers", []string{"gzip,gzip,gzip,gzip,gzip"}, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := echoRig(t, realKey, func(w http.ResponseWriter, r *http.Request, got string) {
				body := []byte(`{"error":{"message":"the backend failed for ` + got + `"}}`)
				for range tc.layers {
					body = gzipped(t, gzip.NoCompression, string(body)) // the key stays readable in the bytes
				}
				for _, v := range tc.headers {
					w.Header().Add("Content-Encoding", v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(500)
				w.Write(body)
			})
			for _, rt := range testRoutes {
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), http.Header{"Accept-Encoding": {"gzip"}})
				raw := readAll(t, res) // as sent: the client's transport decodes nothing it did not ask for
				body := string(gunzipAll([]byte(raw)))
				if strings.Contains(raw, realKey) || meansKey(body, realKey) {
					t.Errorf("%s: the client receives the key:\n%.400q", rt.proto, body)
				}
				if ce := res.Header.Values("Content-Encoding"); len(ce) != 0 {
					t.Errorf("%s: Content-Encoding %q on a body that is not encoded", rt.proto, ce)
				}
				switch {
				case rt.proto != "chat":
					// The translators quote what the service said, or only
					// its status when gw could not read it.
					if want := "the backend failed for " + keychain.Mask(realKey); !tc.withheld && !strings.Contains(body, want) {
						t.Errorf("%s: the service's words are not relayed decoded:\n%s", rt.proto, body)
					}
				case tc.withheld:
					if e := gwError(t, body); e.Code != CodeBodyWithheld || res.StatusCode != 500 {
						t.Errorf("%d %+v, want the service's 500 with %s", res.StatusCode, e, CodeBodyWithheld)
					}
				case body != `{"error":{"message":"the backend failed for `+keychain.Mask(realKey)+`"}}`:
					t.Errorf("body %q, want the service's decoded with the key masked", body)
				}
			}
		})
	}
}

// A gzip bomb as an error body: a megabyte on the wire, a gigabyte once
// decoded. gw serve decodes at most a bounded prefix and answers with its
// own short error.
func TestHostileServiceGzipBombErrorBody(t *testing.T) {
	member := gzipped(t, gzip.BestCompression, strings.Repeat("A", 8<<20))
	bomb := bytes.Repeat(member, 128) // 1 GiB decoded: gzip members follow one another
	r := echoRig(t, realKey, func(w http.ResponseWriter, r *http.Request, got string) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		w.Write(bomb)
	})
	for _, rt := range testRoutes {
		t.Run(rt.proto, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), http.Header{"Accept-Encoding": {"gzip"}})
			got, err := io.ReadAll(io.LimitReader(res.Body, 2<<20))
			res.Body.Close()
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			if len(got) > 4<<10 {
				t.Fatalf("the client received %d bytes or more of a gzip bomb, want gw serve's short error", len(got))
			}
			if rt.proto == "chat" {
				if e := gwError(t, string(got)); e.Code != CodeBodyWithheld || !strings.Contains(e.Message, "1 MiB once decoded") {
					t.Errorf("got %+v", e)
				}
			}
			if res.StatusCode < 400 {
				t.Errorf("status %d, want an error", res.StatusCode)
			}
			// Decoding is bounded: a few times the 1 MiB cap, not the bomb.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("gw serve allocated %d MiB for one bombed error answer", alloc>>20)
			}
		})
	}
}

// A body cut off by the service loses, with what gw relays of it, a start
// of the key at its end.
func TestScrubCutDropsTheStartOfTheKey(t *testing.T) {
	s := newScrubber(oddKey)
	for n := 1; n < len(oddKey); n++ {
		for name, spell := range keySpellings {
			whole := spell(oddKey)
			cut := "text before " + whole[:n*len(whole)/len(oddKey)]
			got := string(s.scrubCut([]byte(cut)))
			if !strings.HasPrefix(got, "text before") {
				t.Fatalf("%s: the text before was lost: %q", name, got)
			}
			if n > 4 && strings.Contains(got, whole[:n*len(whole)/len(oddKey)]) {
				t.Errorf("%s: the start of the key stayed: %q", name, got)
			}
		}
	}
	for _, whole := range []string{`{"status":"ok"}`, "no key here.", "sk-od is not the key"} {
		if got := string(s.scrubCut([]byte(whole))); got != whole {
			t.Errorf("%q became %q", whole, got)
		}
	}
}
