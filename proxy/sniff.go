package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/modelgateway/gw/protocol/chat"
)

// maxSniffLine bounds the copy kept of one SSE line (or of a whole JSON
// body). Usage chunks are a few hundred bytes; longer lines are content and
// are passed on without being inspected.
const maxSniffLine = 64 << 10

// Usage is the token count a response reported.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     int64 // of PromptTokens, read from the service's cache
	ReasoningTokens  int64 // of CompletionTokens
}

// usageOf is the request log's Usage of the service's usage object.
func usageOf(u *chat.Usage) Usage {
	out := Usage{PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens), CachedTokens: int64(u.CacheRead())}
	if u.CompletionDetails != nil {
		out.ReasoningTokens = int64(max(0, u.CompletionDetails.ReasoningTokens))
	}
	return out
}

// usageReader passes a response body through unchanged and, on the side,
// looks for the OpenAI usage object: in SSE mode in each "data:" line as it
// goes by, otherwise in the whole (small) JSON body at its end. Nothing is
// held back: every Read returns what the upstream sent; a copy is kept only
// of a line split across reads, or of a JSON body.
type usageReader struct {
	io.ReadCloser
	sse  bool
	e    *entry // receives the usage
	want int64  // JSON: the body's length, -1 when not known
	held []byte // SSE: the start of a line split across reads; JSON: the body so far
	over bool   // held outgrew maxSniffLine: not inspected
	done bool   // JSON: inspected already
}

func (u *usageReader) Read(p []byte) (int, error) {
	n, err := u.ReadCloser.Read(p)
	if n > 0 {
		if u.sse {
			u.feedLines(p[:n])
		} else {
			u.feedBody(p[:n])
		}
	}
	if err == io.EOF && !u.sse && !u.done {
		u.done = true
		if !u.over {
			u.inspect(u.held)
		}
		u.held = nil
	}
	return n, err
}

func (u *usageReader) feedBody(p []byte) {
	if u.done {
		return
	}
	u.add(p)
	if !u.over && int64(len(u.held)) == u.want {
		// Complete without waiting for EOF, which may come with the next
		// read only.
		u.done = true
		u.inspect(u.held)
		u.held = nil
	}
}

func (u *usageReader) feedLines(p []byte) {
	if len(u.held) == 0 && !u.over && !bytes.Contains(p, usageTail) {
		// At a line's start, and no line here holds usage: only the
		// start of a line that goes on in the next read is kept. (A
		// stream's events come one or a few per read, and most have no
		// usage.)
		if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
			p = p[i+1:]
		}
		u.add(p)
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			u.add(p)
			return
		}
		line := p[:i]
		if len(u.held) > 0 || u.over {
			u.add(line)
			line = u.held
		}
		if !u.over {
			u.inspect(bytes.TrimSuffix(line, []byte{'\r'}))
		}
		u.held, u.over = u.held[:0], false
		p = p[i+1:]
	}
}

func (u *usageReader) add(p []byte) {
	if u.over {
		return
	}
	if len(u.held)+len(p) > maxSniffLine {
		u.over = true
		u.held = u.held[:0]
		return
	}
	u.held = append(u.held, p...)
}

var (
	dataPrefix = []byte("data:")
	// usageTail is the key "usage" without its opening quote: searched
	// for instead of the whole key, because a quote is the commonest byte
	// of JSON and bytes.Index looks for a pattern's first byte first; a
	// "u" is rare in a chunk's keys, so a line without usage is passed in
	// one scan.
	usageTail = []byte(`usage"`)
)

// inspect reads the top-level "usage" of one SSE data line or of a whole
// JSON answer with encoding/json; only text that holds a usage object is
// decoded (a stream's many chunks with "usage":null, or none, are not).
func (u *usageReader) inspect(b []byte) {
	if u.sse {
		rest, ok := bytes.CutPrefix(b, dataPrefix)
		if !ok {
			return
		}
		b = rest
	}
	if !hasUsageObject(b) {
		return
	}
	var v struct {
		Usage *chat.Usage `json:"usage"`
	}
	if json.Unmarshal(b, &v) != nil || v.Usage == nil {
		return
	}
	u.e.usage = usageOf(v.Usage)
	u.e.hasUsage = true
}

// hasUsageObject is a cheap pre-check so only the chunk that carries usage
// (not the many with "usage":null) is decoded.
func hasUsageObject(b []byte) bool {
	for {
		i := bytes.Index(b, usageTail)
		if i < 0 {
			return false
		}
		quoted := i > 0 && b[i-1] == '"'
		b = b[i+len(usageTail):]
		if !quoted {
			continue
		}
		b = bytes.TrimLeft(b, " \t\r\n")
		if len(b) > 0 && b[0] == ':' {
			b = bytes.TrimLeft(b[1:], " \t\r\n")
			if len(b) > 0 && b[0] == '{' {
				return true
			}
		}
	}
}

// maxModelBody bounds the copy of a request body kept to read its "model"
// from: far more than a conversation of text; a bigger body (many images)
// is forwarded all the same, without its model in the log or a suggestion.
const maxModelBody = 4 << 20

// modelScanner keeps a copy of a JSON request body as the transport reads
// it (the body is neither buffered nor delayed on its way) and, once the
// body is complete, reads its top-level "model" when the model is first
// asked for: after the answer, off the request's path.
// It is fed by the transport's goroutine and read by the handler's.
type modelScanner struct {
	complete atomic.Pointer[[]byte] // the whole body, once read to its end
	once     sync.Once
	model    string // set in once

	// Only the feeding goroutine touches these.
	want int64 // the body's length, -1 when not known
	body []byte
	over bool // the body outgrew maxModelBody: not kept
}

// newModelScanner is a modelScanner for a body of length want (-1: not
// known). A body of known length is complete once that much has gone by,
// without waiting for the read that returns EOF.
func newModelScanner(want int64) *modelScanner {
	s := &modelScanner{want: want}
	if want > 0 && want <= maxModelBody {
		if p := modelBodies.Get().(*[]byte); int64(cap(*p)) >= want {
			s.body = (*p)[:0]
		} else {
			s.body = make([]byte, 0, want)
		}
	}
	return s
}

// modelBodies keeps the copies of request bodies once their model is read,
// for the next requests': an agent's requests are tens of kilobytes each,
// and allocating them anew made the garbage collector a tenth of gw
// serve's CPU for a request (BenchmarkHandlerOverhead/stream-100KB). Only
// copies up to maxPooledBody are kept.
var modelBodies = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBody = 1 << 20

// Model is the body's top-level "model" string; "" while the body is not
// complete, when it has none, or when it is not a JSON object (one damaged
// after its model still names it: the body is not validated).
func (s *modelScanner) Model() string {
	b := s.complete.Load()
	if b == nil {
		return ""
	}
	s.once.Do(func() {
		s.model = topLevelModel(*b)
		// Nothing reads the copy after this: the feeder stopped at
		// complete, and every later Model returns s.model.
		if body := *b; cap(body) > 0 && cap(body) <= maxPooledBody {
			body = body[:0]
			modelBodies.Put(&body)
		}
	})
	return s.model
}

// topLevelModel is the string value of body's top-level "model" key (the
// last one, as the service's JSON parsers take it), "" when there is none,
// it is not a string, or body does not start as a JSON object (what
// follows the model is not validated). gjson walks the
// object's keys and steps over their values without decoding them: for an
// agent's request (tens of kilobytes of conversation) about a tenth of
// what encoding/json spends decoding the body into a struct
// (BenchmarkTopLevelModel).
func topLevelModel(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	// body is only read from here on (see modelScanner.end): no copy.
	root := gjson.Parse(unsafe.String(&body[0], len(body)))
	if !root.IsObject() {
		return ""
	}
	model := ""
	root.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "model" {
			model = ""
			if v.Type == gjson.String {
				model = v.Str
			}
		}
		return true
	})
	// Bytes that are not UTF-8 become U+FFFD (a run of them one), as with
	// encoding/json: the model goes to serve.log and gw logs' terminal. A copy,
	// so that the log line does not keep the body alive.
	return strings.Clone(strings.ToValidUTF8(model, "\uFFFD"))
}

func (s *modelScanner) feed(p []byte) {
	if s.over || s.complete.Load() != nil {
		return
	}
	if len(s.body)+len(p) > maxModelBody {
		s.over, s.body = true, nil
		return
	}
	s.body = append(s.body, p...)
	if int64(len(s.body)) == s.want {
		s.end()
	}
}

// end marks the body complete.
func (s *modelScanner) end() {
	if !s.over && s.complete.Load() == nil {
		body := s.body // from here on only read, by Model
		s.complete.Store(&body)
	}
}

// scanBody feeds a request body to a modelScanner as it is read.
type scanBody struct {
	io.ReadCloser
	s *modelScanner
}

func (b *scanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.s.feed(p[:n])
	if err == io.EOF {
		b.s.end()
	}
	return n, err
}
