package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loadMain is the small-request client in a process of its own (a coding
// agent is never in the service's process): -load URL CONCURRENCY DURATION,
// the Bearer token in GW_BENCH_TOKEN (not an argument, which anyone on the
// machine can read). It prints "req/s p50-ns p99-ns".
func loadMain(ctx context.Context, args []string, out io.Writer) error {
	if len(args) != 3 {
		return errors.New("-load URL CONCURRENCY DURATION")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(args[2])
	if err != nil {
		return err
	}
	r, err := load(ctx, &target{base: args[0], token: os.Getenv("GW_BENCH_TOKEN")}, n, d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%f %d %d\n", r.rps, int64(r.p50), int64(r.p99))
	return err
}

// loadFrom runs one small-request cell from a client process of its own.
func loadFrom(ctx context.Context, exe string, tg *target, n int, d time.Duration) (loadResult, error) {
	cmd := exec.CommandContext(ctx, exe, "-load", tg.base, strconv.Itoa(n), d.String())
	cmd.Env = append(os.Environ(), "GW_BENCH_TOKEN="+tg.token)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	o, err := cmd.Output()
	if err != nil {
		return loadResult{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r loadResult
	var p50, p99 int64
	if _, err := fmt.Sscan(string(o), &r.rps, &p50, &p99); err != nil {
		return loadResult{}, fmt.Errorf("client printed %q: %w", o, err)
	}
	r.p50, r.p99 = time.Duration(p50), time.Duration(p99)
	return r, nil
}

func client(n int) *http.Client {
	// Requests carry a key or the local token: a redirect is a failure, never followed.
	return &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConns: n + 10, MaxIdleConnsPerHost: n + 10},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type loadResult struct {
	rps      float64
	p50, p99 time.Duration
	lat      []time.Duration
}

func load(ctx context.Context, tg *target, n int, d time.Duration) (loadResult, error) {
	// The garbage of the cell before (when client and stand-in share a
	// process) is collected now, not during this cell.
	runtime.GC()
	hc := client(n)
	defer hc.CloseIdleConnections()
	get := func() error {
		req, _ := http.NewRequestWithContext(ctx, "GET", tg.base+"/models", nil)
		req.Header.Set("Authorization", "Bearer "+tg.token)
		res, err := hc.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	for range n * 4 { // warm up connections
		if err := get(); err != nil {
			return loadResult{}, err
		}
	}
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(deadline) {
				s := time.Now()
				if err := get(); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(s))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if firstErr != nil {
		return loadResult{}, firstErr
	}
	return loadResult{rps: float64(len(lat)) / time.Since(t0).Seconds(), p50: pct(lat, 50), p99: pct(lat, 99), lat: lat}, nil
}
