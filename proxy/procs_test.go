package proxy

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// Go's scheduler runs on one CPU while gw serve has one request in flight,
// on two from the second concurrent one until none is left (also when a
// handler panics), so a lone stream is served on one thread and several
// at once get a second CPU.
func TestCPUsWidenWhileSeveralRequestsRun(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	type req struct{ entered, release, done chan struct{} }
	reqs := map[string]*req{}
	for _, p := range []string{"/a", "/b", "/c"} {
		reqs[p] = &req{make(chan struct{}), make(chan struct{}), make(chan struct{})}
	}
	h := (&cpus{max: 2}).wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := reqs[r.URL.Path]
		close(q.entered)
		<-q.release
		if r.URL.Path == "/c" {
			panic(http.ErrAbortHandler)
		}
	}))
	start := func(path string) {
		go func() {
			defer close(reqs[path].done)
			defer func() { _ = recover() }()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		}()
		<-reqs[path].entered
	}
	finish := func(path string) {
		close(reqs[path].release)
		<-reqs[path].done
	}
	check := func(when string, want int) {
		t.Helper()
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Errorf("%s: Go's scheduler on %d CPUs, want %d", when, got, want)
		}
	}
	check("idle", 1)
	start("/a")
	check("one request", 1)
	start("/b")
	check("two requests", 2)
	finish("/a")
	check("one of two left", 2)
	start("/c")
	finish("/b")
	finish("/c")
	check("none left, the last one panicked", 1)
}
