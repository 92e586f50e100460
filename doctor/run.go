package doctor

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
)

// order is the report's fixed order; model checks go after IDModels.
var order = []string{IDConfig, IDBaseURL, IDDNS, IDTCP, IDTLS, IDHTTP, IDKey, IDModels, IDAgentConfig, IDProxy, IDKeychain}

// titles are the one-line names of the checks in the human checklist.
func title(id string) string {
	switch id {
	case IDConfig:
		return "config file"
	case IDBaseURL:
		return "base URL"
	case IDDNS:
		return "DNS lookup"
	case IDTCP:
		return "TCP connection"
	case IDTLS:
		return "TLS handshake"
	case IDHTTP:
		return "service answers GET /models"
	case IDKey:
		return "API key accepted"
	case IDModels:
		return "models available"
	case IDAgentConfig:
		return "coding agent config"
	case IDProxy:
		return "local proxy (gw serve)"
	case IDKeychain:
		return "key storage"
	}
	if m, ok := strings.CutPrefix(id, ModelIDPrefix); ok {
		return "model " + m
	}
	return id
}

// run is one doctor run: the input, the HTTP client and the checks finished so far.
type run struct {
	in Input
	hc *http.Client

	mu       sync.Mutex
	checks   map[string]Check
	modelIDs []string // in report order: --model ids, then the agent configs' ids
	agent    agentResult
	closed   bool // set when the report was assembled; later results are dropped
}

func (r *run) set(c Check) {
	if c.Title == "" {
		c.Title = title(c.ID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.checks[c.ID] = c
	if r.in.OnCheck != nil {
		r.in.OnCheck(c)
	}
}

func (r *run) addModelIDs(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if id != "" && !slices.Contains(r.modelIDs, id) {
			r.modelIDs = append(r.modelIDs, id)
		}
	}
}

// Run performs every check and returns the report. It returns within in.Timeout (DefaultTimeout when zero):
// a check still running then is reported as failed with a time-out.
func Run(ctx context.Context, in Input) Report {
	if in.Timeout <= 0 {
		in.Timeout = DefaultTimeout
	}
	if in.StepTimeout <= 0 {
		in.StepTimeout = DefaultStepTimeout
	}
	if in.Getenv == nil {
		in.Getenv = func(string) string { return "" }
	}
	// Steps see a deadline a little before the promised one, so they can report their own time-out and the
	// report is still assembled in time when one of them ignores its context.
	stepsDeadline := in.Timeout * 85 / 100
	grace := in.Timeout / 10
	ctx, cancel := context.WithTimeout(ctx, stepsDeadline)
	defer cancel()

	r := &run{in: in, hc: in.Network.HTTPClient, checks: map[string]Check{}}
	if r.hc == nil {
		r.hc = api.NewHTTPClient(r.transport(), 0) // never follows a redirect with the key
	}
	r.addModelIDs(in.Models)

	// The agent configs add model ids to check and say whether the proxy is needed.
	agentReady := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { r.set(r.checkConfig()) })
	wg.Go(func() { r.set(r.checkKeychain()) })
	wg.Go(func() {
		defer close(agentReady)
		a := r.checkAgentConfigs()
		r.mu.Lock()
		r.agent = a
		r.mu.Unlock()
		r.addModelIDs(a.models)
		r.set(a.check)
	})
	wg.Go(func() { r.set(r.checkProxy(ctx, agentReady)) })
	wg.Go(func() { r.walkService(ctx, agentReady) })

	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		select {
		case <-finished:
		case <-time.After(grace):
		}
	}
	return r.assemble()
}

// assemble builds the report from what finished; anything that did not is a time-out failure.
func (r *run) assemble() Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	ids := make([]string, 0, len(order)+len(r.modelIDs))
	for _, id := range order {
		ids = append(ids, id)
		if id == IDModels {
			for _, m := range r.modelIDs {
				ids = append(ids, ModelIDPrefix+m)
			}
		}
	}
	rep := Report{OK: true}
	for _, id := range ids {
		c, ok := r.checks[id]
		if !ok {
			c = r.unfinished(id)
		}
		if c.Status == Fail {
			rep.OK = false
		}
		rep.Checks = append(rep.Checks, c)
	}
	return rep
}

// unfinished is the check that did not finish in time. Network checks carry the service-unreachable
// condition: a client would have given up the same way.
func (r *run) unfinished(id string) Check {
	c := Check{ID: id, Title: title(id), Status: Fail,
		Cause: fmt.Sprintf("the check did not finish within %s", r.in.Timeout),
		Fix:   remedy.Remedy{Do: remedy.NetworkHangs},
	}
	switch id {
	case IDDNS, IDTCP, IDTLS, IDHTTP, IDKey:
		c.Condition = string(api.ServiceUnreachable)
		c.Message = api.ServiceUnreachable.Message()
	}
	return c
}

// step returns a context bounded by the step time-out.
func (r *run) step(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.in.StepTimeout)
}

// transport is the one transport of the service (api.NewTransport) with doctor's time-outs, dialer and proxy.
func (r *run) transport() http.RoundTripper {
	n := r.in.Network
	// A little under the step's own bound, so the transport's error, which names the phase that hung
	// (dial, TLS handshake, waiting for the answer), is the one reported rather than a bare deadline.
	phase := r.in.StepTimeout - r.in.StepTimeout/10
	tr := api.NewTransport(api.TransportOptions{
		DialTimeout:           phase,
		TLSHandshakeTimeout:   phase,
		ResponseHeaderTimeout: phase,
		RootCAs:               n.RootCAs,
		Resolver:              n.Resolver,
		Proxy:                 func(req *http.Request) (*url.URL, error) { return proxyFor(r.in.Getenv, req.URL) },
	})
	if n.Dial != nil {
		tr.DialContext = n.Dial
	}
	// Doctor makes a handful of requests: keep no idle connections around after it returns.
	tr.DisableKeepAlives = true
	return tr
}

// dial opens a TCP connection with the configured dialer or resolver.
func (r *run) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if r.in.Network.Dial != nil {
		return r.in.Network.Dial(ctx, network, addr)
	}
	d := net.Dialer{Timeout: r.in.StepTimeout, Resolver: r.in.Network.Resolver}
	return d.DialContext(ctx, network, addr)
}

func (r *run) resolver() *net.Resolver {
	if r.in.Network.Resolver != nil {
		return r.in.Network.Resolver
	}
	return net.DefaultResolver
}

// skipped is a check that could not run because of an earlier one.
func skipped(id, cause string) Check {
	return Check{ID: id, Status: Skip, Cause: cause}
}

// client is the one client of the service, with doctor's transport.
func (r *run) client(base, key string) *api.Client {
	c := api.NewClient(base, key, r.hc)
	c.Version = r.in.Version
	c.Canonical = r.in.CanonicalURL
	return c
}

// fromAPI turns the one classification of the service's failures into a failed check.
func fromAPI(id string, e *api.Error) Check {
	c := Check{ID: id, Status: Fail, Cause: e.Cause, Fix: e.Fix}
	if e.Condition != "" {
		c.Condition = string(e.Condition)
		c.Message = e.Condition.Message()
	}
	return c
}
