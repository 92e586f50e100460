package proxy

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
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

// After a burst of concurrent requests, the second CPU stays while requests
// keep coming with gaps shorter than the linger (every change of the
// setting stops the world), and goes once none has been in flight for it.
func TestCPUsLingerBetweenBursts(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	c := &cpus{max: 2, linger: time.Hour} // the timer never fires here: narrow is called by hand
	t.Cleanup(func() {
		if c.timer != nil {
			c.timer.Stop()
		}
	})
	c.wrap(http.NotFoundHandler())
	check := func(when string, want int) {
		t.Helper()
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Errorf("%s: Go's scheduler on %d CPUs, want %d", when, got, want)
		}
	}
	c.enter()
	c.enter()
	check("two requests", 2)
	c.leave()
	c.leave()
	check("none left, within the linger", 2)
	c.enter()
	check("a lone request within the linger", 2)
	c.leave()
	c.narrow() // what the timer does once the linger is over
	check("none in flight for the linger", 1)
	c.enter()
	c.narrow() // a timer that fires while a request is in flight changes nothing
	check("one request after the linger", 1)
	c.leave()
}
