package proxy

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// loggedRequests is how many requests the log's lines stand for: one each,
// or N for a line ending in ×N.
func loggedRequests(logs string) int {
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(logs, "\n"), "\n") {
		if line == "" {
			continue
		}
		if m := regexp.MustCompile(` ×(\d+)$`).FindStringSubmatch(line); m != nil {
			k, _ := strconv.Atoi(m[1])
			n += k
			continue
		}
		n++
	}
	return n
}

func refusedEntry(peer string, start time.Time) *entry {
	return &entry{start: start, method: "GET", path: "/v1/models", status: 401, note: "refused=local_token_invalid", peer: peer}
}

// A stranger trying tokens: its first refusal is logged at once, the next
// ones within 10 s are counted, and one line says how many; another peer,
// and accepted requests, are logged as ever.
func TestRepeatedRefusalsOfOnePeerAreOneLinePer10s(t *testing.T) {
	var buf bytes.Buffer
	l := &logger{w: &buf}
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	l.write(refusedEntry("192.0.2.7:40001", t0), at(0))
	for i := range 36 { // 36 more within the window, each from a port of its own
		l.write(refusedEntry(fmt.Sprintf("192.0.2.7:%d", 40002+i), at(time.Duration(i)*200*time.Millisecond)), at(time.Duration(i)*200*time.Millisecond))
	}
	l.write(refusedEntry("198.51.100.1:5000", at(time.Second)), at(time.Second)) // another peer: its own first line
	l.write(&entry{start: at(2 * time.Second), method: "GET", path: "/v1/models", status: 200, peer: "192.0.2.7:1"}, at(2*time.Second))
	l.write(refusedEntry("192.0.2.7:41000", at(10*time.Second)), at(10*time.Second)) // the window has passed: ×37

	want := "2026-11-21T06:00:00.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid\n" +
		"2026-11-21T06:00:01.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid\n" +
		"2026-11-21T06:00:02.000Z GET /v1/models status=200 dur=0s proto=chat stream=false\n" +
		"2026-11-21T06:00:10.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid ×37\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A peer that stops: its count is written with the next line after its
// window, or when gw serve stops; nothing is lost.
func TestRefusalCountsAreWrittenWhenTheWindowPassesOrAtStop(t *testing.T) {
	var buf bytes.Buffer
	l := &logger{w: &buf}
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	for i := range 5 {
		d := time.Duration(i) * time.Second
		l.write(refusedEntry("192.0.2.7:1", t0.Add(d)), t0.Add(d))
	}
	// The next line, for anyone, after the window: the 4 counted first.
	l.write(&entry{start: t0, method: "GET", path: "/v1/models", status: 200, peer: "127.0.0.1:2"}, t0.Add(11*time.Second))
	l.write(refusedEntry("192.0.2.8:1", t0.Add(12*time.Second)), t0.Add(12*time.Second))
	l.write(refusedEntry("192.0.2.8:2", t0.Add(13*time.Second)), t0.Add(13*time.Second))
	l.flush() // gw serve stops

	want := "2026-11-21T06:00:00.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid\n" +
		"2026-11-21T06:00:04.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid ×4\n" +
		"2026-11-21T06:00:11.000Z GET /v1/models status=200 dur=11s proto=chat stream=false\n" +
		"2026-11-21T06:00:12.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid\n" +
		"2026-11-21T06:00:13.000Z GET /v1/models status=401 dur=0s proto=chat stream=false refused=local_token_invalid\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// Requests refused at once from many goroutines: every one is accounted
// for, in far fewer lines.
func TestRefusalsCountedConcurrently(t *testing.T) {
	var buf bytes.Buffer
	l := &logger{w: &buf}
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				end := t0.Add(time.Duration(w*each+i) * 10 * time.Millisecond)
				l.write(refusedEntry(fmt.Sprintf("192.0.2.%d:%d", w%2, i), end), end)
			}
		})
	}
	wg.Wait()
	l.flush()
	if n := loggedRequests(buf.String()); n != workers*each {
		t.Errorf("the log accounts for %d of %d refusals:\n%s", n, workers*each, buf.String())
	}
	if lines := strings.Count(buf.String(), "\n"); lines > 20 {
		t.Errorf("%d lines for refusals of 2 peers over 4 s", lines)
	}
}

// gw doctor's probe is logged as a probe, not as a refusal.
func TestProbeIsLoggedAsAProbe(t *testing.T) {
	r := newRig(t, rigOpts{})
	addr := strings.TrimSuffix(strings.TrimPrefix(r.base, "http://"), "/v1")
	if err := Probe(waitCtx(t), addr, testToken); err != nil {
		t.Fatal(err)
	}
	if err := Probe(waitCtx(t), addr, "gw-local-other"); err == nil {
		t.Fatal("a probe with another token was accepted")
	}
	logs := r.log.String()
	// The probe sends no token: gw serve proves itself, and cannot tell a
	// probe that will not believe it.
	if strings.Count(logs, " GET "+HelloPath+" status=200 ") != 2 || strings.Count(logs, " probe\n") != 2 || strings.Contains(logs, "refused=") {
		t.Errorf("the probes were not logged as such:\n%s", logs)
	}
	// A stranger's request to / is still a refusal.
	req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
	res, err := r.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if logs := r.log.String(); !strings.Contains(logs, "refused=local_token_missing") {
		t.Errorf("a request without the probe header:\n%s", logs)
	}
}
