package proxy

import (
	"net/http"
	"runtime"
	"sync"
)

// cpus runs Go's scheduler on one CPU while gw serve has at most one
// request in flight, and on max CPUs from the second concurrent request
// until none is left. A lone request's hand-offs between goroutines stay
// on one thread (another idle CPU would be woken at each); several streams
// at once (an agent's subagents, parallel tool calls) get a second CPU.
// docs/benchmarks.md has the measurements.
type cpus struct {
	max  int
	mu   sync.Mutex
	n    int // requests in flight
	wide bool
}

// wrap starts the scheduler on one CPU and counts h's requests.
func (c *cpus) wrap(h http.Handler) http.Handler {
	runtime.GOMAXPROCS(1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.enter()
		defer c.leave() // also when the handler aborts with a panic
		h.ServeHTTP(w, r)
	})
}

func (c *cpus) enter() {
	c.mu.Lock()
	c.n++
	if c.n == 2 && !c.wide {
		c.wide = true
		runtime.GOMAXPROCS(c.max)
	}
	c.mu.Unlock()
}

func (c *cpus) leave() {
	c.mu.Lock()
	c.n--
	if c.n == 0 && c.wide {
		c.wide = false
		runtime.GOMAXPROCS(1)
	}
	c.mu.Unlock()
}
