package proxy

// The hostile local client: requests that try to reach past /v1 on the
// service, or to make gw serve hold resources it should let go.

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest sends text as it is (no URL parsing or escaping by a client
// library) on a connection of its own and reads one response.
func rawRequest(t *testing.T, addr, text string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", firstLine(text), err)
	}
	return res, readAll(t, res)
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\r\n"); return l }

func (r *rig) addr() string { return strings.TrimSuffix(strings.TrimPrefix(r.base, "http://"), "/v1") }

func TestHostileClientPathsThatCouldLeaveV1AreRefused(t *testing.T) {
	r := newRig(t, rigOpts{})
	targets := []string{
		`/v1/..\admin`,             // a backslash, as sent
		`/v1/%5c..%5cadmin`,        // encoded backslashes
		`/v1/..%5Cadmin`,           // how gw serve used to forward the first two
		`/v1/models\..\..\admin`,   // climbing with backslashes only
		`/v1/..%2fadmin`,           // an encoded slash making a dot segment
		`/v1/%2e%2e%2fadmin`,       // all of it encoded
		`/v1/models/..%2f..%2fx`,   // two levels up
		`/v1/..%00/admin`,          // NUL: some servers cut the path there
		`/v1/models%00.json`,       // NUL inside a segment
		`/v1/%255c..%255cadmin`,    // encoded twice: a second decoding makes "\"
		`/v1/%252e%252e/admin`,     // encoded twice: a second decoding makes ".."
		`/v1/%c0%ae%c0%ae/admin`,   // overlong UTF-8 for "."
		`/v1/..%c0%afadmin`,        // overlong UTF-8 for "/"
		`/v1/..%c1%9cadmin`,        // overlong UTF-8 for "\"
		`/v1/%ef%bc%8e%ef%bc%8e/x`, // full-width full stops, folded to ".." by NFKC
		`/v1/..%ef%bc%8fadmin`,     // full-width solidus
		`/v1/..;/admin`,            // ";params" dropped by some servers
		`/v1/..;x=1/admin`,
		`/v1/.../admin`,   // trailing dots trimmed on Windows
		`/v1/..%20/admin`, // trailing space trimmed on Windows
		`/v1/%2e/models`,  // "." is a dot segment too
		`/v1/models/..`,   // at the end
		`/v1/..%09/admin`, // a tab
		`/v1/%7f/admin`,   // DEL
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			res, body := rawRequest(t, r.addr(), "GET "+target+" HTTP/1.1\r\nHost: "+r.addr()+
				"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d, want 404: %s", res.StatusCode, body)
			}
			if e := gwError(t, body); e.Code != CodeNotFound || !strings.Contains(e.Message, "could reach past /v1") {
				t.Errorf("got %+v", e)
			}
		})
	}
	if seen := r.up.Seen(); len(seen) != 0 {
		for _, s := range seen {
			t.Errorf("forwarded to the service: %s", s.Path)
		}
	}
}

func TestHostileClientLookalikePathsStillForward(t *testing.T) {
	r := newRig(t, rigOpts{})
	// Paths that look odd but stay under /v1 on any reading.
	for _, target := range []string{
		"/v1/models",
		"/v1/models/vendor-a%2Fmodel-a-sonnet-4.5", // an id with a slash, encoded
		"/v1/models/vendor-a/model-a-sonnet-4.5",
		"/v1/models/a..b",
		"/v1/models/.hidden",
		"/v1/models;x",
		"/%76%31/models", // /v1 itself encoded
	} {
		res, body := rawRequest(t, r.addr(), "GET "+target+" HTTP/1.1\r\nHost: "+r.addr()+
			"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
		if strings.Contains(body, "could reach past /v1") || strings.Contains(body, "gw_error") {
			t.Errorf("%s: refused by gw serve: %d %s", target, res.StatusCode, body)
		}
	}
	for _, s := range r.up.Seen() {
		if !strings.HasPrefix(s.Path, "/v1/") {
			t.Errorf("the service saw %q, outside /v1", s.Path)
		}
	}
}
