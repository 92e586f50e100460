package proxy

import (
	"net"
	"net/http"
	"strings"
	"time"
)

// ProbeHeader marks gw's own probe of a gw serve (Probe: gw doctor, and gw
// serve finding a running one on its port). gw serve answers it like any
// request of its kind and logs it as "probe", not as a refusal. It proves
// nothing: a stranger sending it is still refused, and the line says so.
const ProbeHeader = "Gw-Probe"

// refusalNote is the request log's note for a request gw serve refused
// itself: "refused=<code>", or "probe" for gw's own probe, which is
// answered not_found by design once its token is accepted.
func refusalNote(r *http.Request, code string) string {
	if r.Header.Get(ProbeHeader) == "" {
		return "refused=" + code
	}
	if code == CodeNotFound {
		return "probe"
	}
	return "probe refused=" + code
}

// Repeated refusals of one peer are logged as one line per refusalWindow:
// a client with the wrong token, or a stranger probing the port, would
// otherwise fill the log with one line per attempt.
const (
	refusalWindow = 10 * time.Second
	// maxRefusalRuns bounds what is remembered; refusals of peers beyond
	// it are logged one line each.
	maxRefusalRuns = 1024
)

// refusalRuns remembers, per peer and refusal, when its last line was
// written and what was refused since without a line. The first refusal is
// logged at once; those within refusalWindow of a line are counted, and
// the next line (the next refusal once the window has passed, or a
// summary when the window has passed without one) says how many it
// stands for: "refused=local_token_invalid ×37". Guarded by logger.mu.
type refusalRuns map[refusalKey]*refusalRun

type refusalKey struct{ peer, note string }

type refusalRun struct {
	lineAt time.Time // when the last line of this run was written
	n      int       // refusals since lineAt without a line
	last   entry     // the last of them, for the summary
	end    time.Time // and when it ended
}

// refused reports whether e is a refusal by gw serve, which the log counts
// instead of writing line by line.
func refused(e *entry) bool { return strings.Contains(e.note, "refused=") }

// admit decides about a refusal ending at end: whether its line is written,
// and how many refusals that line stands for.
func (rs refusalRuns) admit(e *entry, end time.Time) (count int, write bool) {
	k := refusalKey{peer: peerHost(e.peer), note: e.note}
	run := rs[k]
	switch {
	case run == nil:
		if len(rs) < maxRefusalRuns {
			rs[k] = &refusalRun{lineAt: end}
		}
		return 1, true
	case end.Sub(run.lineAt) < refusalWindow:
		run.n++
		run.last, run.end = *e, end
		run.last.model = nil // the model is not logged for a refusal
		return 0, false
	}
	count = run.n + 1
	run.n, run.lineAt = 0, end
	return count, true
}

// due calls write for each run whose window has passed at now with
// refusals not yet written, and forgets the runs that have ended. all: every
// run with refusals not yet written, whatever its window (gw serve stops).
func (rs refusalRuns) due(now time.Time, all bool, write func(e *entry, end time.Time, count int)) {
	for k, run := range rs {
		if !all && now.Sub(run.lineAt) < refusalWindow {
			continue
		}
		if run.n > 0 {
			write(&run.last, run.end, run.n)
		}
		delete(rs, k)
	}
}

// peerHost is the address of a request's peer without its port: each
// attempt of a client comes from a port of its own (a refused request's
// connection is closed).
func peerHost(remoteAddr string) string {
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return h
	}
	return remoteAddr
}
