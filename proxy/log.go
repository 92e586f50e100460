package proxy

import (
	"cmp"
	"io"
	"sync"
	"time"

	"github.com/modelgateway/gw/reqlog"
)

// entry is what the request log says about one request. It never holds the
// key, the local token, a query string or a body.
type entry struct {
	start    time.Time
	method   string
	path     string
	status   int
	note     string // why gw answered itself, or how the stream ended
	peer     string // the client's address (host:port), for counting refusals
	model    *modelScanner
	modelID  string // the model of a translated request (model is nil then)
	proto    string // the client's protocol: its route's name
	stream   bool   // answered as a stream
	usage    Usage
	hasUsage bool
	agent    string // from the client's User-Agent; "" when not known
	cond     string // the service's failure condition (reqlog.KeyRejected, …)
	quiet    bool   // gw's own status probe: not written
}

// logger writes one line per request, in one Write; concurrent requests
// never interleave within a line.
type logger struct {
	mu       sync.Mutex
	w        io.Writer
	buf      []byte      // the line being written, reused: Write must not keep it
	agent    string      // the agent every request comes from (gw run's), over its User-Agent
	refusals refusalRuns // repeated refusals, counted instead of written
}

func (l *logger) write(e *entry, end time.Time) {
	if l == nil || l.w == nil || e.quiet {
		return
	}
	model := e.modelID
	if e.model != nil {
		model = e.model.Model()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	count := 1
	if refused(e) {
		if l.refusals == nil {
			l.refusals = refusalRuns{}
		}
		var ok bool
		if count, ok = l.refusals.admit(e, end); !ok {
			return
		}
	}
	if len(l.refusals) > 0 {
		l.refusals.due(end, false, l.writeSummary)
	}
	l.writeLine(e, end, model, count)
}

// flush writes the counts of refusals not yet written (gw serve stops).
func (l *logger) flush() {
	if l == nil || l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refusals.due(time.Time{}, true, l.writeSummary)
}

func (l *logger) writeSummary(e *entry, end time.Time, count int) { l.writeLine(e, end, "", count) }

// writeLine writes e's line, which stands for count requests; l.mu is held.
func (l *logger) writeLine(e *entry, end time.Time, model string, count int) {
	agent := cmp.Or(l.agent, e.agent)
	l.buf = reqlog.Append(l.buf[:0], &reqlog.Entry{
		Time: end, Method: e.method, Path: e.path, Agent: agent, Model: model,
		Status: e.status, Condition: e.cond, Dur: end.Sub(e.start),
		HasUsage: e.hasUsage, Input: e.usage.PromptTokens, Cached: e.usage.CachedTokens,
		Output: e.usage.CompletionTokens, Reasoning: e.usage.ReasoningTokens,
		Proto: cmp.Or(e.proto, "chat"), Stream: e.stream, Note: e.note, Count: count,
	})
	_, _ = l.w.Write(l.buf)
}
