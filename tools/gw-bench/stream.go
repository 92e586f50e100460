package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// eventClock records when the stand-in is about to write each SSE event.
type eventClock struct {
	mu    sync.Mutex
	sent  []time.Time
	hold  chan struct{} // while non-nil, streams wait before event 1
	count int
}

func (e *eventClock) before(ctx context.Context, n int) {
	e.mu.Lock()
	hold := e.hold
	if hold == nil && e.sent != nil {
		e.sent = append(e.sent, time.Now())
	}
	e.mu.Unlock()
	if hold != nil && n == 1 {
		e.mu.Lock()
		e.count++
		e.mu.Unlock()
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
}

func streamRequest(ctx context.Context, tg *target) *http.Request {
	body := `{"model":"vendor-a/model-a-sonnet-4.5","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequestWithContext(ctx, "POST", tg.base+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tg.token)
	req.Header.Set("Content-Type", "application/json")
	return req
}

func eventDelays(ctx context.Context, tg *target, clock *eventClock) ([]time.Duration, error) {
	runtime.GC()
	hc := client(1)
	defer hc.CloseIdleConnections()
	clock.mu.Lock()
	clock.sent = make([]time.Time, 0, 1024)
	clock.mu.Unlock()
	res, err := hc.Do(streamRequest(ctx, tg))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var recv []time.Time
	br := bufio.NewReader(res.Body)
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, "data: ") {
			recv = append(recv, time.Now())
		}
		if err != nil {
			break
		}
	}
	clock.mu.Lock()
	sent := clock.sent
	clock.sent = nil
	clock.mu.Unlock()
	if len(sent) != len(recv) {
		return nil, fmt.Errorf("stand-in sent %d events, client got %d", len(sent), len(recv))
	}
	d := make([]time.Duration, len(sent))
	for i := range sent {
		d[i] = recv[i].Sub(sent[i])
	}
	return d, nil
}

// rssWithStreams opens n streams that the stand-in holds after their first
// event, samples the proxy's RSS, then lets them finish.
func rssWithStreams(ctx context.Context, tg *target, clock *eventClock, n int) (int64, error) {
	hold := make(chan struct{})
	clock.mu.Lock()
	clock.hold, clock.count = hold, 0
	clock.mu.Unlock()
	hc := client(n)
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			res, err := hc.Do(streamRequest(ctx, tg))
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		})
	}
	for {
		clock.mu.Lock()
		k := clock.count
		clock.mu.Unlock()
		if k >= n || len(errs) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := rss(tg.proc.Process.Pid)
	clock.mu.Lock()
	clock.hold = nil
	clock.mu.Unlock()
	close(hold)
	wg.Wait()
	if len(errs) > 0 {
		return 0, <-errs
	}
	return r, nil
}

// rss is the resident set size of pid in bytes (Linux), 0 when unknown.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb * 1024
}
