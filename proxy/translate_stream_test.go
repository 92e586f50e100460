package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

// post sends a request of protocol rt to gw serve at base (…/v1) with the
// local token; errors are returned, not fatal, for use in goroutines.
func post(ctx context.Context, client *http.Client, base string, rt testRoute, stream bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", strings.TrimSuffix(base, "/v1")+rt.path, strings.NewReader(rt.body(sonnet, stream)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	return client.Do(req)
}

// untilText reads a stream until its first text delta and returns what it
// read and the reader of the rest.
func untilText(t *testing.T, res *http.Response) (*bytes.Buffer, *bufio.Reader) {
	t.Helper()
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, readAll(t, res))
	}
	br := bufio.NewReader(res.Body)
	var got bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			t.Fatalf("the stream ended before any text: %v\n%s", err, got.String())
		}
		if strings.Contains(line, `"text_delta"`) || strings.Contains(line, `"response.output_text.delta"`) {
			return &got, br
		}
	}
}

// stallAt makes the stand-in's model go quiet before event n until its
// request is cancelled.
func stallAt(n int) func(context.Context, int) {
	return func(ctx context.Context, i int) {
		if i == n {
			<-ctx.Done()
		}
	}
}

// TestTranslatedStreamsUnderLoad: 64 translated streams at once (32 Messages,
// 32 Responses), each several seconds long, all complete: every one read by
// its protocol's rules to its terminal event, none cut, none failed, each
// with all of its text and its usage.
func TestTranslatedStreamsUnderLoad(t *testing.T) {
	const (
		chunks    = 60
		chunkSize = 16
		each      = 32
	)
	r := newRig(t, rigOpts{standin: standin.Options{ContentChunks: chunks, ChunkSize: chunkSize,
		// 60 content events 50 ms apart: about 3 s per stream.
		Fault: standin.Fault{Kind: standin.FaultSlowStream, Delay: 50 * time.Millisecond, Path: "/chat/completions"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for i := range 2 * each {
		rt := testRoutes[1+i%2]
		wg.Go(func() {
			res, err := post(ctx, r.client, r.base, rt, true)
			if err != nil {
				errs <- fmt.Errorf("%s %d: %w", rt.proto, i, err)
				return
			}
			defer res.Body.Close()
			if res.StatusCode != 200 {
				b, _ := io.ReadAll(res.Body)
				errs <- fmt.Errorf("%s %d: status %d: %s", rt.proto, i, res.StatusCode, b)
				return
			}
			end, err := readStream(rt.proto, res.Body)
			switch {
			case err != nil:
				errs <- fmt.Errorf("%s %d: %w", rt.proto, i, err)
			case end.terminal != completed(rt.proto):
				errs <- fmt.Errorf("%s %d: ended with %s: %s", rt.proto, i, end.terminal, end.errMsg)
			case len(end.text) != chunks*chunkSize || !strings.HasPrefix(end.text, standin.Greeting(sonnet)):
				errs <- fmt.Errorf("%s %d: %d bytes of text, want %d: %q", rt.proto, i, len(end.text), chunks*chunkSize, end.text)
			case !end.usage:
				errs <- fmt.Errorf("%s %d: no usage at the end", rt.proto, i)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen, err := r.up.WaitFor(ctx, func(s []standin.Seen) bool {
		if len(s) < 2*each {
			return false
		}
		for _, sn := range s {
			if !sn.Done {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("the service saw %d requests: %v", len(seen), err)
	}
	for _, sn := range seen {
		if sn.Cancelled || sn.Status != 200 || !sn.Stream {
			t.Errorf("the service saw %+v", sn)
		}
	}
	waitForLines(t, r, 2*each)
	for _, line := range strings.Split(strings.TrimSpace(r.log.String()), "\n") {
		if !strings.Contains(line, " status=200 ") || !strings.Contains(line, " stream=true") || strings.Contains(line, "aborted=") {
			t.Errorf("log line %q", line)
		}
	}
}

// waitForLines waits for n lines in the rig's log.
func waitForLines(t *testing.T, r *rig, n int) {
	t.Helper()
	ctx := waitCtx(t)
	for strings.Count(r.log.String(), "\n") < n {
		select {
		case <-ctx.Done():
			t.Fatalf("the log has %d lines, want %d:\n%s", strings.Count(r.log.String(), "\n"), n, r.log.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestTranslatedStreamFaults: what a Messages or Responses client gets when
// the service fails: a stream cut by the service ends with the protocol's
// error event (never as if complete); a 5xx before the first byte is an
// HTTP error in the protocol's shape, not a stream; a client that hangs up
// mid-stream has its upstream request cancelled.
func TestTranslatedStreamFaults(t *testing.T) {
	for _, rt := range testRoutes[1:] {
		t.Run(rt.proto+"/upstream reset mid-stream", func(t *testing.T) {
			r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultReset, After: 4, Path: "/chat/completions"}}})
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
			defer res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("status %d: %s", res.StatusCode, readAll(t, res))
			}
			end, err := readStream(rt.proto, res.Body)
			if err != nil || end.terminal != failed(rt.proto) || !strings.HasPrefix(end.errMsg, "unable to connect to API: ") {
				t.Errorf("got %+v, %v; want the stream to end with %s saying unable to connect to API", end, err, failed(rt.proto))
			}
			if line := logLine(t, r, rt.path); !strings.Contains(line, " status=200 ") || !strings.Contains(line, " stream=true aborted=upstream_stream_broken") {
				t.Errorf("log line %q", line)
			}
		})

		for _, status := range []int{500, 503} {
			t.Run(fmt.Sprintf("%s/%d before the first byte", rt.proto, status), func(t *testing.T) {
				r := newRig(t, rigOpts{standin: standin.Options{Fault: standin.Fault{Kind: standin.FaultServerError, Status: status, Path: "/chat/completions"}}})
				res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
				ce := readClientError(t, rt.proto, res)
				want := status
				if rt.proto == "responses" && status == 500 {
					want = 502 // Codex shows a 500 as "high demand", not the message
				}
				if rt.proto == "messages" && status == 503 {
					want = 529 // Anthropic's overloaded_error
				}
				if ce.Status != want || !strings.Contains(ce.Message, fmt.Sprintf("the service failed with %d", status)) {
					t.Errorf("got %+v, want %d saying the service failed", ce, want)
				}
				if line := logLine(t, r, rt.path); !strings.Contains(line, fmt.Sprintf(" status=%d ", want)) || !strings.Contains(line, " stream=false") {
					t.Errorf("log line %q", line)
				}
			})
		}

		t.Run(rt.proto+"/client hangs up mid-stream", func(t *testing.T) {
			r := newRig(t, rigOpts{standin: standin.Options{BeforeEvent: stallAt(3)}})
			ctx, cancel := context.WithCancel(waitCtx(t))
			res, err := post(ctx, r.client, r.base, rt, true)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			untilText(t, res)
			cancel()
			seen, err := r.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 && s[0].Done })
			if err != nil || !seen[0].Cancelled {
				t.Errorf("the upstream request was not cancelled: %+v %v", seen, err)
			}
			if line := logLine(t, r, rt.path); !strings.Contains(line, " status=200 ") || !strings.Contains(line, "aborted=client_gone") {
				t.Errorf("log line %q", line)
			}
		})
	}
}

// TestTranslatedStreamsAtShutdown: streams still running when the grace
// period ends are ended in their protocol, saying gw serve stopped (a
// client that was cut off without a word would retry or report a broken
// stream); a request still waiting for the service gets an error in its
// shape. Their upstream requests are cancelled.
func TestTranslatedStreamsAtShutdown(t *testing.T) {
	for _, rt := range testRoutes {
		if rt.proto == "chat" {
			continue // passed through: a stream cut off is cut off
		}
		t.Run(rt.proto+"/mid-stream", func(t *testing.T) {
			s := startServe(t, standin.Options{BeforeEvent: stallAt(3)}, 50*time.Millisecond)
			res, err := post(waitCtx(t), s.client, "http://"+s.addr+"/v1", rt, true)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, br := untilText(t, res)
			s.stop()
			end, err := readStream(rt.proto, io.MultiReader(got, br))
			if err != nil || end.terminal != failed(rt.proto) ||
				!strings.HasPrefix(end.errMsg, "unable to connect to API: gw serve stopped") {
				t.Errorf("got %+v, %v; want %s saying gw serve stopped", end, err, failed(rt.proto))
			}
			if err := <-s.done; !errors.Is(err, ErrRequestsCut) {
				t.Errorf("Serve returned %v, want ErrRequestsCut", err)
			}
			s.done <- nil
			seen, err := s.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 && s[0].Done })
			if err != nil || !seen[0].Cancelled {
				t.Errorf("the upstream request was not cancelled: %+v", seen)
			}
			if log := s.log.String(); !strings.Contains(log, " status=200 ") || !strings.Contains(log, " stream=true aborted=shutting_down") {
				t.Errorf("log line %q", log)
			}
		})
	}
	for _, rt := range testRoutes {
		t.Run(rt.proto+"/before the service answers", func(t *testing.T) {
			s := startServe(t, standin.Options{Fault: standin.Fault{Kind: standin.FaultHang}}, 50*time.Millisecond)
			answered := make(chan *http.Response, 1)
			go func() {
				res, err := post(context.Background(), s.client, "http://"+s.addr+"/v1", rt, true)
				if err != nil {
					t.Error(err)
				}
				answered <- res
			}()
			if _, err := s.up.WaitFor(waitCtx(t), func(s []standin.Seen) bool { return len(s) == 1 }); err != nil {
				t.Fatal(err)
			}
			s.stop()
			res := <-answered
			if res == nil {
				return
			}
			ce := readClientError(t, rt.proto, res)
			if ce.Status < 500 || !strings.HasPrefix(ce.Message, "unable to connect to API: gw serve stopped") {
				t.Errorf("got %+v", ce)
			}
			if err := <-s.done; !errors.Is(err, ErrRequestsCut) {
				t.Errorf("Serve returned %v, want ErrRequestsCut", err)
			}
			s.done <- nil
		})
	}
}

// TestTranslatedStreamsReuseTheServicesConnection: one streamed answer after
// another, in every protocol, goes over the one connection to the service:
// a translated stream reads the service's answer to its end, so the
// connection goes back to the pool instead of being closed (with the real
// service, each new connection costs a TLS handshake). The service here
// ends its answer a moment after "data: [DONE]", as a service whose last
// bytes come in a packet of their own does: gw serve must wait for them.
func TestTranslatedStreamsReuseTheServicesConnection(t *testing.T) {
	var mu sync.Mutex
	conns := map[string]bool{} // the addresses the service saw requests from
	r := newRig(t, rigOpts{wrapUp: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			conns[req.RemoteAddr] = true
			mu.Unlock()
			h.ServeHTTP(lateEnd{w}, req)
		})
	}})
	for _, rt := range testRoutes {
		for i := 0; i < 5; i++ {
			res := r.do(waitCtx(t), "POST", rt.path, rt.body(sonnet, true), nil)
			body := readAll(t, res)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %s", rt.path, res.StatusCode, body)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 1 {
		t.Errorf("15 streams in turn used %d connections to the service, want 1: %v", len(conns), conns)
	}
}

// lateEnd is a service's answer that pauses after "data: [DONE]" before it
// ends.
type lateEnd struct{ http.ResponseWriter }

func (w lateEnd) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte("[DONE]")) {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
		time.Sleep(20 * time.Millisecond) // not a timing assertion: the end comes in a packet of its own
	}
	return n, err
}

func (w lateEnd) Unwrap() http.ResponseWriter { return w.ResponseWriter }
