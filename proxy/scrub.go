package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
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
//
// The key is found by what the text means, not by how it is spelled: each
// of its characters may be written as itself (in either case), as a JSON or
// JavaScript escape (\u002d, \u002D, \x2d, \/), as an HTML character
// reference (&#45;, &#x2d;, &amp;), percent-encoded (%2d, also twice:
// %252d, or with the percent sign itself escaped: \u00252d), or as "+" for
// a space, and every character may be spelled differently from the next.
// So a JSON string that holds the key once its escapes are decoded, or a
// URL-encoded form of it, is caught whatever encoder wrote it.
type scrubber struct {
	key   string
	repl  []byte
	start [256]bool // the bytes a spelling of the key can begin with
}

// newScrubber returns nil for an empty key: nothing to take out.
func newScrubber(key string) *scrubber {
	if key == "" {
		return nil
	}
	s := &scrubber{key: key, repl: []byte(keychain.Mask(key))}
	for _, c := range []byte{'\\', '%', '&', '+', key[0], lower(key[0]), upper(key[0])} {
		s.start[c] = true
	}
	return s
}

// maxSpelling bounds the bytes one character of the key may take in a
// spelling that is recognised: a percent sign and two hex digits, each
// percent-encoded once more, with each of those characters as the longest
// character reference (&#x0000002d;, 12 bytes).
const maxSpelling = 3 * 3 * 12

// spelled is one character as read from the text, and how many bytes
// spelled it.
type spelled struct {
	c byte
	n int
}

// spellings appends to out every character the text at b[j:] may stand
// for, with the length of its spelling. depth is how many layers of
// percent-encoding are decoded.
func spellings[T string | []byte](b T, j, depth int, out []spelled) []spelled {
	if j >= len(b) {
		return out
	}
	out = append(out, spelled{b[j], 1})
	switch b[j] {
	case '+':
		out = append(out, spelled{' ', 1})
	case '\\':
		if c, n := escape(b[j:]); n > 0 {
			out = append(out, spelled{c, n})
		}
	case '&':
		if c, n := charRef(b[j:]); n > 0 {
			out = append(out, spelled{c, n})
		}
	}
	if depth == 0 || b[j] != '%' && b[j] != '\\' && b[j] != '&' {
		return out // only these begin a percent sign
	}
	var pa, ha, la [4]spelled
	for _, p := range spellings(b, j, depth-1, pa[:0]) {
		if p.c != '%' {
			continue
		}
		for _, h := range spellings(b, j+p.n, depth-1, ha[:0]) {
			hi, ok := unhex(h.c)
			if !ok {
				continue
			}
			for _, l := range spellings(b, j+p.n+h.n, depth-1, la[:0]) {
				if lo, ok := unhex(l.c); ok {
					out = append(out, spelled{hi<<4 | lo, p.n + h.n + l.n})
				}
			}
		}
	}
	return out
}

// escape reads a JSON or JavaScript escape of an ASCII character at the
// start of b ("\u002d", "\x2d", "\/", "\n"); n is 0 when there is none.
func escape[T string | []byte](b T) (c byte, n int) {
	if len(b) < 2 {
		return 0, 0
	}
	switch b[1] {
	case 'u':
		if len(b) >= 6 && b[2] == '0' && b[3] == '0' {
			if v, ok := hexByte(b[4], b[5]); ok && v < 0x80 {
				return v, 6
			}
		}
		return 0, 0
	case 'x':
		if len(b) >= 4 {
			if v, ok := hexByte(b[2], b[3]); ok && v < 0x80 {
				return v, 4
			}
		}
		return 0, 0
	case '"', '\\', '/', '\'':
		return b[1], 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	}
	return 0, 0
}

// charRef reads an HTML character reference of an ASCII character at the
// start of b ("&#45;", "&#x2D;", "&amp;"); n is 0 when there is none.
func charRef[T string | []byte](b T) (c byte, n int) {
	end := -1
	for i := 1; i < len(b) && i < 12; i++ {
		if b[i] == ';' {
			end = i
			break
		}
	}
	if end < 0 {
		return 0, 0
	}
	ref := b[1:end]
	if len(ref) >= 2 && ref[0] == '#' {
		v, base, digits := 0, 10, ref[1:]
		if digits[0] == 'x' || digits[0] == 'X' {
			base, digits = 16, digits[1:]
		}
		if len(digits) == 0 {
			return 0, 0
		}
		for i := 0; i < len(digits); i++ {
			d, ok := unhex(digits[i])
			if !ok || int(d) >= base {
				return 0, 0
			}
			v = v*base + int(d)
		}
		if v >= 0x80 {
			return 0, 0
		}
		return byte(v), end + 1
	}
	for _, e := range [...]struct {
		name string
		c    byte
	}{{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"sol", '/'}, {"plus", '+'}, {"equals", '='}} {
		if string(ref) == e.name {
			return e.c, end + 1
		}
	}
	return 0, 0
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func hexByte(h, l byte) (byte, bool) {
	hi, ok1 := unhex(h)
	lo, ok2 := unhex(l)
	return hi<<4 | lo, ok1 && ok2
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// percentDepth is how many layers of percent-encoding are read through.
const percentDepth = 2

// match reads a spelling of the key at b[i:]. It returns the end of the
// longest one, or -1; partial reports that b ends before a spelling that
// has begun could be decided (b may be cut in the middle of the key).
func match[T string | []byte](s *scrubber, b T, i int) (end int, partial bool) {
	// Every way of reading the text is followed at once: cur holds where
	// each reading of the first k characters of the key ends.
	var bufs [2][8]int
	cur := append(bufs[0][:0], i)
	var sp [16]spelled
	for k := 0; k < len(s.key); k++ {
		want := lower(s.key[k])
		next := bufs[(k+1)%2][:0]
		for _, j := range cur {
			found := false
			if j < len(b) && lower(b[j]) == want && !containsInt(next, j+1) {
				next, found = append(next, j+1), true
			}
			if j < len(b) && introduces(b[j]) {
				// Only an escape, a reference or a percent sign spells a
				// character otherwise than as itself: the rest of the
				// text costs one comparison.
				for _, c := range spellings(b, j, percentDepth, sp[:0]) {
					if lower(c.c) == want && !containsInt(next, j+c.n) {
						next, found = append(next, j+c.n), true
					}
				}
			}
			if !found && cutShort(b, j) {
				partial = true
			}
		}
		if len(next) == 0 {
			return -1, partial
		}
		cur = next
	}
	end = cur[0]
	for _, j := range cur[1:] {
		end = max(end, j)
	}
	return end, false
}

// introduces reports whether c may begin a spelling of a character other
// than c itself.
func introduces(c byte) bool { return c == '\\' || c == '&' || c == '%' || c == '+' }

// cutShort reports whether b ends at j, or in what could be the start of an
// escape, a character reference or a percent-encoding begun at j.
func cutShort[T string | []byte](b T, j int) bool {
	if j >= len(b) {
		return true
	}
	switch b[j] {
	case '\\', '&', '%':
		return len(b)-j < maxSpelling
	}
	return false
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// find returns where the first spelling of the key in b begins and ends;
// at is -1 when there is none.
func find[T string | []byte](s *scrubber, b T, from int) (at, end int) {
	for i := from; i < len(b); i++ {
		if !s.start[b[i]] {
			continue
		}
		if !introduces(b[i]) && len(s.key) > 1 && i+1 < len(b) && lower(b[i+1]) != lower(s.key[1]) && !introduces(b[i+1]) {
			continue // the key's first character as itself, and then not the second
		}
		if introduces(b[i]) && !mayBegin(s, b, i) {
			continue
		}
		if e, _ := match(s, b, i); e >= 0 {
			return i, e
		}
	}
	return -1, -1
}

// mayBegin reports, cheaply, whether the escape, reference or percent sign
// at b[i] may begin a spelling of the key's first character: what it
// spells without percent-decoding is that character, or a percent sign.
func mayBegin[T string | []byte](s *scrubber, b T, i int) bool {
	want := lower(s.key[0])
	var sp [4]spelled
	for _, c := range spellings(b, i, 0, sp[:0]) {
		if lower(c.c) == want {
			return true
		}
		if c.c == '%' { // and a hex digit after it
			var hx [4]spelled
			for _, h := range spellings(b, i+c.n, 0, hx[:0]) {
				if _, ok := unhex(h.c); ok {
					return true
				}
			}
		}
	}
	return false
}

// scrub returns b with every spelling of the key replaced by its masked
// form; b itself when it holds none.
func (s *scrubber) scrub(b []byte) []byte {
	if s == nil {
		return b
	}
	at, end := find(s, b, 0)
	if at < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	from := 0
	for at >= 0 {
		out = append(append(out, b[from:at]...), s.repl...)
		from = end
		at, end = find(s, b, from)
	}
	return append(out, b[from:]...)
}

// scrubCut is scrub for text that may have been cut off: an end of it that
// could be the start of the key is dropped too.
func (s *scrubber) scrubCut(b []byte) []byte {
	if s == nil {
		return b
	}
	b = s.scrub(b)
	for i := max(0, len(b)-len(s.key)*maxSpelling); i < len(b); i++ {
		if s.start[b[i]] {
			if _, partial := match(s, b, i); partial {
				return b[:i]
			}
		}
	}
	return b
}

func (s *scrubber) contains(v string) bool {
	at, _ := find(s, v, 0)
	return at >= 0
}

// header scrubs h in place. A header whose name holds the key is dropped.
func (s *scrubber) header(h http.Header) {
	if s == nil {
		return
	}
	for name, vv := range h {
		if s.contains(name) {
			delete(h, name)
			continue
		}
		for i, v := range vv {
			if s.contains(v) {
				vv[i] = string(s.scrub([]byte(v)))
			}
		}
	}
}

// maxDecodedError bounds an error body of the service once decoded: gw
// serve reads that much at most, and withholds a bigger one (a gzip bomb
// would otherwise be decoded and relayed by the gigabyte).
const maxDecodedError = 1 << 20

// maxCodings bounds how many Content-Encodings are decoded one inside the
// other.
const maxCodings = 4

// decoder reads r as its Content-Encoding header says. It reports the
// codings, as the service sent them, when gw cannot decode them all (ok
// false): the body is then not to be relayed, since it could hold the key
// where gw cannot see it. decoded reports whether any coding was undone.
// Every Content-Encoding header and every value in each counts, in the
// order applied; identity is no coding.
func decoder(h http.Header, r io.Reader) (body io.Reader, codings string, decoded, ok bool) {
	vv := h.Values("Content-Encoding")
	var stack []string
	for _, v := range vv {
		for _, c := range strings.Split(v, ",") {
			switch c = strings.ToLower(strings.TrimSpace(c)); c {
			case "", "identity":
			default:
				stack = append(stack, c)
			}
		}
	}
	codings = strings.Join(vv, ", ")
	if len(stack) > maxCodings {
		return nil, codings, false, false
	}
	for _, c := range stack {
		if c != "gzip" && c != "x-gzip" {
			return nil, codings, false, false
		}
	}
	body = r
	for range stack { // gzip only: the order does not matter
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, codings, false, false
		}
		body = zr
	}
	return body, codings, len(stack) > 0, true
}

// errorBody is an error answer's body as a translator quotes it to the
// agent: decoded (a prefix of at most maxDecodedError), with the key taken
// out of it and of header. A body in codings gw cannot decode is dropped:
// the agent is told the service's status without its words.
func (s *scrubber) errorBody(header http.Header, body []byte) []byte {
	r, _, decoded, ok := decoder(header, bytes.NewReader(body))
	switch {
	case !ok:
		body = nil
	case decoded:
		body, _ = io.ReadAll(io.LimitReader(r, maxDecodedError))
	}
	header.Del("Content-Encoding")
	s.header(header)
	// The translator read a bounded prefix: the key may be cut at its end.
	return s.scrubCut(body)
}
