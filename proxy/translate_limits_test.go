package proxy

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgateway/gw/proxy/relay"
	"github.com/modelgateway/gw/standin"
)

// endless is a service whose streamed answer never ends: after a first
// chunk, event after event of what piece makes, until gw serve stops
// reading. sent counts the bytes it wrote.
func endless(piece func(i int) string, sent *atomic.Int64) func(http.Handler) http.Handler {
	return endlessRaw(func(i int) string { return "data: " + piece(i) + "\n\n" }, sent)
}

// heapPeak samples the live heap until stop is closed and returns its
// highest value.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// TestTranslatedStreamsBounded: a service that streams a tool call's
// arguments, or text, without end (what grew gw serve by more than 1 GiB
// before) is cut at gw serve's limit: the client gets the protocol's error
// event naming the limit, the log says why, the service is no longer read,
// and gw serve's heap stays within a small multiple of the limit.
func TestTranslatedStreamsBounded(t *testing.T) {
	const args = `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0%s,"function":{%s"arguments":"%s"}}]}}]}`
	pieces := map[string]func(i int) string{
		"tool call arguments": func(i int) string {
			if i == 0 {
				return fmt.Sprintf(args, `,"id":"call_1","type":"function"`, `"name":"Write",`, `{\"content\":\"`)
			}
			return fmt.Sprintf(args, "", "", strings.Repeat("x", 4096))
		},
		"text": func(int) string {
			return `{"id":"c","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("y", 4096) + `"}}]}`
		},
	}
	for _, rt := range testRoutes[1:] {
		for what, piece := range pieces {
			t.Run(rt.proto+"/"+what, func(t *testing.T) {
				var sent atomic.Int64
				r := newRig(t, rigOpts{wrapUp: endless(piece, &sent)})
				runtime.GC()
				s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
				metrics.Read(s)
				before := s[0].Value.Uint64()
				stop := make(chan struct{})
				peak := heapPeak(stop)

				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
				end, err := readStream(rt.proto, res.Body)
				res.Body.Close()
				close(stop)
				grew := int64(<-peak) - int64(before)

				if err != nil || end.terminal != failed(rt.proto) || !strings.Contains(end.errMsg, "limit of 8 MiB") {
					t.Errorf("got %+v, %v; want the stream to end with %s naming the 8 MiB limit", end, err, failed(rt.proto))
				}
				if line := logLine(t, r, rt.path); !strings.Contains(line, "aborted=too_large") {
					t.Errorf("log line %q", line)
				}
				// What the service could write before gw serve stopped
				// reading: the limit, and what the sockets between hold.
				if n := sent.Load(); n > 48<<20 {
					t.Errorf("the service wrote %d MiB; gw serve kept reading past its 8 MiB limit", n>>20)
				}
				if grew > 96<<20 {
					t.Errorf("gw serve's heap grew by %d MiB for a stream cut at 8 MiB", grew>>20)
				}
				t.Logf("heap peak +%d MiB, service wrote %d MiB", grew>>20, sent.Load()>>20)
			})
		}
	}
}

// TestTranslatedStreamIdleTimeout: a service that goes silent mid-stream
// gets pings to the client meanwhile, and past the idle limit the stream
// ends with the protocol's error event saying so, the service's request is
// cancelled and the log says why, instead of the agent hanging.
func TestTranslatedStreamIdleTimeout(t *testing.T) {
	for _, rt := range testRoutes[1:] {
		t.Run(rt.proto, func(t *testing.T) {
			r := newRig(t, rigOpts{standin: standin.Options{BeforeEvent: stallAt(3)},
				proxy: func(o *Options) {
					o.Relay = relay.Options{PingInterval: 5 * time.Millisecond, IdleTimeout: 100 * time.Millisecond}
				}})
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
			raw := readAll(t, res)
			end, err := readStream(rt.proto, strings.NewReader(raw))
			if err != nil || end.terminal != failed(rt.proto) || !strings.Contains(end.errMsg, "the service sent nothing for 100ms") {
				t.Errorf("got %+v, %v; want %s saying the service sent nothing", end, err, failed(rt.proto))
			}
			ping := "event: ping"
			if rt.proto == "responses" {
				ping = ": keep-alive"
			}
			if !strings.Contains(raw, ping) {
				t.Errorf("no ping while the service was silent:\n%s", raw)
			}
			seen, err := r.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 && s[0].Done })
			if err != nil || !seen[0].Cancelled {
				t.Errorf("the upstream request was not cancelled: %+v %v", seen, err)
			}
			if line := logLine(t, r, rt.path); !strings.Contains(line, " status=200 ") || !strings.Contains(line, "aborted=upstream_idle") {
				t.Errorf("log line %q", line)
			}
		})
	}
}

// TestTranslatedWholeAnswerIdleTimeout: a service that goes silent in the
// middle of a whole (not streamed) answer is given up past the idle limit,
// as a silent stream is: the agent gets the protocol's error saying so
// instead of waiting without end, and the log says why.
func TestTranslatedWholeAnswerIdleTimeout(t *testing.T) {
	for _, rt := range testRoutes[1:] {
		t.Run(rt.proto, func(t *testing.T) {
			r := newRig(t, rigOpts{
				wrapUp: func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
						if !strings.HasSuffix(req.URL.Path, "/chat/completions") {
							h.ServeHTTP(w, req)
							return
						}
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[`)
						w.(http.Flusher).Flush()
						<-req.Context().Done() // silent until gw serve gives up
					})
				},
				proxy: func(o *Options) { o.Relay = relay.Options{IdleTimeout: 100 * time.Millisecond} }})
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, false), nil)
			if ce := readClientError(t, rt.proto, res); ce.Status < 500 || !strings.Contains(ce.Message, "the service sent nothing for 100ms") {
				t.Errorf("got %+v; want a 5xx saying the service sent nothing", ce)
			}
			if line := logLine(t, r, rt.path); !strings.Contains(line, "aborted=upstream_idle") {
				t.Errorf("log line %q", line)
			}
		})
	}
}

// TestTranslatedErrorsCarryRetryAfter: a service that asks to be retried
// later (429, 503) has its Retry-After and retry-after-ms passed on by
// both translated routes, as by the chat route, so that the agents' SDKs
// wait as long as asked; a value that is no delay is not passed on.
func TestTranslatedErrorsCarryRetryAfter(t *testing.T) {
	for _, rt := range testRoutes {
		for _, c := range []struct {
			status      int
			after, ms   string
			wantAfter   string
			wantAfterMs string
		}{
			{429, "7", "7000", "7", "7000"},
			{503, "Wed, 21 Oct 2037 07:28:00 GMT", "", "Wed, 21 Oct 2037 07:28:00 GMT", ""},
			{429, "soon, says sk-live-0123456789abcdef", "1.5e3", "", ""},
		} {
			t.Run(fmt.Sprintf("%s/%d/%s", rt.proto, c.status, c.after), func(t *testing.T) {
				r := newRig(t, rigOpts{wrapUp: func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
						if !strings.HasSuffix(req.URL.Path, "/chat/completions") {
							h.ServeHTTP(w, req)
							return
						}
						w.Header().Set("Retry-After", c.after)
						if c.ms != "" {
							w.Header().Set("Retry-After-Ms", c.ms)
						}
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(c.status)
						_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_error"}}`)
					})
				}})
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
				readAll(t, res)
				if rt.proto == "chat" && c.wantAfter == "" {
					return // passed through as the service sent it
				}
				if got := res.Header.Get("Retry-After"); got != c.wantAfter {
					t.Errorf("Retry-After %q, want %q", got, c.wantAfter)
				}
				if got := res.Header.Get("Retry-After-Ms"); got != c.wantAfterMs {
					t.Errorf("retry-after-ms %q, want %q", got, c.wantAfterMs)
				}
			})
		}
	}
}

// TestTranslatedGzipRequests: both translated routes read a gzip request
// body, and refuse one that expands past the one request limit.
func TestTranslatedGzipRequests(t *testing.T) {
	r := newRig(t, rigOpts{})
	zip := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		_ = zw.Close()
		return buf.Bytes()
	}
	for _, rt := range testRoutes[1:] {
		send := func(body []byte) *http.Response {
			req, _ := http.NewRequestWithContext(waitCtx(t), "POST", strings.TrimSuffix(r.base, "/v1")+rt.path, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Encoding", "gzip")
			res, err := r.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		res := send(zip([]byte(rt.body(sonnet, false))))
		if body := readAll(t, res); res.StatusCode != 200 || !strings.Contains(body, standin.Greeting(sonnet)) {
			t.Errorf("%s: a gzip request: %d %s", rt.path, res.StatusCode, body)
		}
		res = send(zip(bytes.Repeat([]byte(" "), int(relay.DefaultLimits.Request)+10)))
		want := 413
		if rt.proto == "responses" {
			want = 400 // Codex sends a 413 again five times; a 400 it shows
		}
		if ce := readClientError(t, rt.proto, res); ce.Status != want || !strings.Contains(ce.Message, "larger than 64 MiB") {
			t.Errorf("%s: a gzip body past the limit: %+v", rt.path, ce)
		}
	}
}

// TestTranslatedRetryWithoutRefusedField: a service that refuses an
// optional field gw adds (here user, with OpenAI's words) is sent the
// request once more without it, the client gets the second answer, the log
// says what was retried, and gw serve leaves the field out from then on.
func TestTranslatedRetryWithoutRefusedField(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	r := newRig(t, rigOpts{
		wrapUp: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if strings.HasSuffix(req.URL.Path, "/chat/completions") {
					b, _ := io.ReadAll(req.Body)
					mu.Lock()
					bodies = append(bodies, string(b))
					mu.Unlock()
					if strings.Contains(string(b), `"user":`) {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(400)
						_, _ = io.WriteString(w, `{"error":{"message":"Unrecognized request argument supplied: user","type":"invalid_request_error"}}`)
						return
					}
					req.Body = io.NopCloser(bytes.NewReader(b))
				}
				h.ServeHTTP(w, req)
			})
		},
	})
	res := r.do(waitCtx(t), "POST", "/v1/responses", `{"model":"`+sonnet+`","input":"hi","user":"someone"}`, nil)
	if body := readAll(t, res); res.StatusCode != 200 || !strings.Contains(body, standin.Greeting(sonnet)) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || !strings.Contains(bodies[0], `"user":"someone"`) || strings.Contains(bodies[1], `"user":`) {
		t.Errorf("the service got %q", bodies)
	}
	if line := logLine(t, r, "/v1/responses"); !strings.Contains(line, "retried_without=user") || !strings.Contains(line, "refused_from_now_on=user") {
		t.Errorf("log line %q", line)
	}
	mu.Unlock()
	// Remembered: the next request leaves the field out at once, one call.
	res = r.do(waitCtx(t), "POST", "/v1/responses", `{"model":"`+sonnet+`","input":"again","user":"someone"}`, nil)
	if body := readAll(t, res); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	mu.Lock()
	if len(bodies) != 3 || strings.Contains(bodies[2], `"user":`) {
		t.Errorf("after the refusal the service got %q", bodies[2:])
	}
}

// TestChatStreamMemoryFlat: on the chat route gw serve passes the service's
// stream through without keeping it: a service that streams without end,
// in events and in one line that never ends, grows gw serve's heap by a
// bounded amount while the client reads 64 MiB, and once the client hangs
// up the service is no longer read.
func TestChatStreamMemoryFlat(t *testing.T) {
	pieces := map[string]func(i int) string{
		"events": func(int) string {
			return "data: " + `{"id":"c","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("y", 4096) + `"}}]}` + "\n\n"
		},
		"one endless line": func(i int) string {
			if i == 0 {
				return "data: " + `{"id":"c","choices":[{"index":0,"delta":{"content":"`
			}
			return strings.Repeat("z", 4096) // never a line's end: the usage sniffer must not keep it
		},
	}
	for what, piece := range pieces {
		t.Run(what, func(t *testing.T) {
			var sent atomic.Int64
			r := newRig(t, rigOpts{wrapUp: endlessRaw(piece, &sent)})
			runtime.GC()
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			metrics.Read(s)
			before := s[0].Value.Uint64()
			stop := make(chan struct{})
			peak := heapPeak(stop)

			res := r.do(waitCtx(t), "POST", "/v1/chat/completions", chatBody(sonnet, true), nil)
			n, err := io.Copy(io.Discard, io.LimitReader(res.Body, 64<<20))
			res.Body.Close()
			close(stop)
			grew := int64(<-peak) - int64(before)
			if err != nil || n != 64<<20 || res.StatusCode != 200 {
				t.Fatalf("the client read %d bytes (%v), status %d; want 64 MiB passed through", n, err, res.StatusCode)
			}
			if grew > 32<<20 {
				t.Errorf("gw serve's heap grew by %d MiB passing 64 MiB through", grew>>20)
			}
			// After the hang-up the service's request ends: what it wrote
			// stops growing.
			deadline := time.Now().Add(10 * time.Second)
			for {
				a := sent.Load()
				time.Sleep(100 * time.Millisecond)
				if sent.Load() == a {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the service was still read 10 s after the client hung up (%d MiB)", sent.Load()>>20)
				}
			}
			t.Logf("heap peak +%d MiB for 64 MiB passed through", grew>>20)
		})
	}
}

// endlessRaw is a service whose streamed answer never ends, written as
// raw makes it, piece after piece, until gw serve stops reading.
func endlessRaw(raw func(i int) string, sent *atomic.Int64) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
				h.ServeHTTP(w, r)
				return
			}
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			for i := 0; r.Context().Err() == nil; i++ {
				n, err := io.WriteString(w, raw(i))
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		})
	}
}
