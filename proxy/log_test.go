package proxy

import (
	"bytes"
	"testing"
	"time"
)

// One request, one line: the time the answer ended (RFC 3339, milliseconds,
// the local zone), then the request and what came of it.
func TestLogLine(t *testing.T) {
	var buf bytes.Buffer
	l := &logger{w: &buf}
	start := time.Date(2026, 11, 21, 6, 5, 37, 998_000_000, time.FixedZone("CET", 3600))
	l.write(&entry{start: start, method: "POST", path: "/v1/chat/completions", status: 200,
		usage: Usage{PromptTokens: 12, CompletionTokens: 34}, hasUsage: true}, start.Add(1_234_567*time.Nanosecond))
	l.write(&entry{start: start, method: "GET", path: "/", status: 404, note: "refused=not_found"}, start.Add(2*time.Second).In(time.UTC))
	l.write(&entry{start: start, method: "POST", path: "/v1/messages", modelID: "vendor-a/model-a-sonnet-4.5", status: 200,
		proto: "messages", stream: true, usage: Usage{PromptTokens: 5, CompletionTokens: 6}, hasUsage: true,
		note: "aborted=client_gone"}, start.Add(3*time.Second))
	l.write(&entry{start: start, method: "POST", path: "/v1/responses", modelID: "vendor-a/model-a-haiku-4.5", status: 400,
		proto: "responses", note: "rejected=no_balance"}, start.Add(time.Second))
	want := "2026-11-21T06:05:37.999+01:00 POST /v1/chat/completions status=200 dur=1.235ms prompt_tokens=12 completion_tokens=34 proto=chat stream=false\n" +
		"2026-11-21T05:05:39.998Z GET / status=404 dur=2s proto=chat stream=false refused=not_found\n" +
		"2026-11-21T06:05:40.998+01:00 POST /v1/messages model=vendor-a/model-a-sonnet-4.5 status=200 dur=3s prompt_tokens=5 completion_tokens=6 proto=messages stream=true aborted=client_gone\n" +
		"2026-11-21T06:05:38.998+01:00 POST /v1/responses model=vendor-a/model-a-haiku-4.5 status=400 dur=1s proto=responses stream=false rejected=no_balance\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
