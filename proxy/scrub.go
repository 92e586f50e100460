package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelgateway/gw/keychain"
)

// scrubber takes the real key out of what gw serve relays from the service
// besides a successful answer's body: error bodies, every response's
// headers and trailers. A service that echoes the Authorization it got (a
// debugging gateway, a misconfigured proxy in front of the service) would
// otherwise hand the key to the local client, which is only ever meant to
// hold the local token. The key is replaced by its masked form ("sk-…abcd",
// as gw auth status shows it), so a user reading the error still sees
// which key the service was given.
type scrubber struct {
	forms  [][]byte // the key as a service may write it: as is, JSON- or URL-escaped
	repl   []byte
	maxLen int
}

// newScrubber returns nil for an empty key: nothing to take out.
func newScrubber(key string) *scrubber {
	if key == "" {
		return nil
	}
	s := &scrubber{repl: []byte(keychain.Mask(key))}
	add := func(form string) {
		for _, f := range s.forms {
			if string(f) == form {
				return
			}
		}
		s.forms = append(s.forms, []byte(form))
		s.maxLen = max(s.maxLen, len(form))
	}
	add(key)
	if b, err := json.Marshal(key); err == nil {
		add(string(b[1 : len(b)-1])) // Go's escaping: \u003c for <, \u0026 for &
	}
	add(strings.ReplaceAll(key, "/", `\/`)) // PHP's json_encode escapes slashes
	add(url.QueryEscape(key))
	add(url.PathEscape(key))
	return s
}

// index returns the earliest occurrence of a form of the key in b, and its
// length; -1 when there is none.
func (s *scrubber) index(b []byte) (int, int) {
	at, n := -1, 0
	for _, f := range s.forms {
		if i := bytes.Index(b, f); i >= 0 && (at < 0 || i < at || i == at && len(f) > n) {
			at, n = i, len(f)
		}
	}
	return at, n
}

// scrub appends b to out with every whole form of the key replaced. Unless
// final, it keeps back, in rest, the end of b that could be the start of a
// key cut off by the end of b.
func (s *scrubber) scrub(out, b []byte, final bool) (res, rest []byte) {
	for {
		i, n := s.index(b)
		if i < 0 {
			break
		}
		out = append(append(out, b[:i]...), s.repl...)
		b = b[i+n:]
	}
	if final {
		return append(out, b...), nil
	}
	if k := len(b) - (s.maxLen - 1); k > 0 {
		out = append(out, b[:k]...)
		b = b[k:]
	}
	return out, b
}

func (s *scrubber) contains(v string) bool {
	for _, f := range s.forms {
		if strings.Contains(v, string(f)) {
			return true
		}
	}
	return false
}

// header scrubs h in place. A header whose name holds the key is dropped.
func (s *scrubber) header(h http.Header) {
	if s == nil {
		return
	}
	for name, vv := range h {
		if containsFold(name, string(s.forms[0])) {
			delete(h, name)
			continue
		}
		for i, v := range vv {
			if s.contains(v) {
				b, _ := s.scrub(nil, []byte(v), true)
				vv[i] = string(b)
			}
		}
	}
}

// scrubReader relays r with the key scrubbed, holding back at most the
// length of the longest form less one byte between reads.
type scrubReader struct {
	r    io.Reader
	s    *scrubber
	buf  []byte
	held []byte // read but not yet scrubbed: may start a key
	out  []byte // scrubbed, not yet returned
	err  error
}

func newScrubReader(r io.Reader, s *scrubber) *scrubReader {
	return &scrubReader{r: r, s: s, buf: make([]byte, 32<<10)}
}

func (z *scrubReader) Read(p []byte) (int, error) {
	for len(z.out) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		n, err := z.r.Read(z.buf)
		z.err = err
		z.out, z.held = z.s.scrub(z.out[:0], append(z.held, z.buf[:n]...), err != nil)
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}
