package proxy

import (
	"net/http"
	"runtime"
	"sync"
	"time"
)

// cpus runs Go's scheduler on one CPU while gw serve has at most one
// request in flight, and on max CPUs from the second concurrent request
// until none has been in flight for linger. A lone request's hand-offs
// between goroutines stay on one thread (another idle CPU would be woken at
// each); several streams at once (an agent's subagents, parallel tool calls)
// get a second CPU, and keep it through the moments between one burst of
// requests and the next, since every change of the setting stops the
// world. docs/benchmarks.md has the measurements.
type cpus struct {
	max    int
	linger time.Duration // 0: narrow as soon as none is in flight

	mu    sync.Mutex
	n     int // requests in flight
	wide  bool
	timer *time.Timer // narrows after linger
}

// lingerCPUs is how long gw serve keeps the second CPU once no request is
// in flight.
const lingerCPUs = 100 * time.Millisecond

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
	defer c.mu.Unlock()
	c.n--
	if c.n != 0 || !c.wide {
		return
	}
	if c.linger <= 0 {
		c.narrowLocked()
		return
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(c.linger, c.narrow)
	} else {
		c.timer.Reset(c.linger)
	}
}

// narrow goes back to one CPU if no request is in flight.
func (c *cpus) narrow() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.narrowLocked()
}

func (c *cpus) narrowLocked() {
	if c.n == 0 && c.wide {
		c.wide = false
		runtime.GOMAXPROCS(1)
	}
}
