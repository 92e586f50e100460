package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

func TestModelScannerFindsTopLevelModel(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"model":"vendor-a/model-a-haiku-4.5","messages":[]}`, "vendor-a/model-a-haiku-4.5"},
		// openai-go writes the messages first; nested "model" keys do not count.
		{`{"messages":[{"role":"user","content":"say \"model\": \"x\"","model":"nested"}],"metadata":{"model":"no"},"model" : "vendor-b/model-b-3-pro-preview"}`, "vendor-b/model-b-3-pro-preview"},
		{`{"model":"a\u002fb\"c"}`, `a/b"c`},
		{`{"modelx":"no","model":5}`, ""},
		{`["model","x"]`, ""},
		{`not json`, ""},
		// The last of two wins, as it does in the service's JSON parsers; a
		// key written with escapes is the same key.
		{`{"model":"first","model":"last"}`, "last"},
		{`{"model":"a","model":null}`, ""},
		{` {"mod\u0065l":"escaped-key"}`, "escaped-key"},
		{`{"model":{"id":"x"}}`, ""},
		// Bytes that are not UTF-8 reach serve.log (and gw logs, a terminal)
		// as U+FFFD, as encoding/json gave them, never as they came.
		{"{\"model\":\"a\xffb\x9b[31m\"}", "a\ufffdb\ufffd[31m"},
	}
	for _, c := range cases {
		// Fed one byte at a time, as a slow client would send it.
		s := newModelScanner(-1)
		_, _ = io.Copy(io.Discard, &scanBody{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(c.body))), s: s})
		if got := s.Model(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.body, got, c.want)
		}
	}
}

func TestUsageReaderPassesBytesThroughAndFindsUsage(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"usage\"}}],\"usage\":null}\n\n" +
		": keep-alive comment\n\n" +
		"data: {\"choices\":[],\"usage\": {\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":46}}\r\n\r\n" +
		"data: [DONE]\n\n"
	e := &entry{}
	u := &usageReader{ReadCloser: io.NopCloser(iotest.HalfReader(strings.NewReader(stream))), sse: true, e: e}
	var out bytes.Buffer
	if _, err := io.Copy(&out, u); err != nil {
		t.Fatal(err)
	}
	if out.String() != stream {
		t.Errorf("bytes changed in passing")
	}
	if !e.hasUsage || e.usage.PromptTokens != 12 || e.usage.CompletionTokens != 34 {
		t.Errorf("usage %+v", e.usage)
	}
}

func TestUsageReaderSkipsOverlongLines(t *testing.T) {
	long := "data: {\"x\":\"" + strings.Repeat("a", maxSniffLine) + "\",\"usage\":{\"prompt_tokens\":1}}\n"
	short := "data: {\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":8}}\n"
	e := &entry{}
	u := &usageReader{ReadCloser: io.NopCloser(strings.NewReader(long + short)), sse: true, e: e}
	n, _ := io.Copy(io.Discard, u)
	if int(n) != len(long+short) || !e.hasUsage || e.usage.PromptTokens != 7 {
		t.Errorf("copied %d, usage %+v", n, e.usage)
	}
}

func TestUsageReaderFindsTopLevelUsageInAJSONAnswer(t *testing.T) {
	answer := `{"id":"c1","choices":[{"message":{"content":"the \"usage\": {\"prompt_tokens\":99} field","usage":{"prompt_tokens":98}}}],` +
		`"metadata":{"usage":{"prompt_tokens":97}},` +
		`"usage":{"prompt_tokens":11,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens":22,"total_tokens":33},"x":1}`
	readers := map[string]func() io.Reader{
		"one read":     func() io.Reader { return strings.NewReader(answer) },
		"byte by byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(answer)) },
	}
	for name, rd := range readers {
		for _, length := range []int64{int64(len(answer)), -1} {
			e := &entry{}
			u := &usageReader{ReadCloser: io.NopCloser(rd()), e: e, want: length}
			var out bytes.Buffer
			if _, err := io.Copy(&out, u); err != nil || out.String() != answer {
				t.Fatalf("%s: bytes changed in passing (err %v)", name, err)
			}
			if !e.hasUsage || e.usage != (Usage{PromptTokens: 11, CompletionTokens: 22, CachedTokens: 3}) {
				t.Errorf("%s, length %d: usage %+v (found %v)", name, length, e.usage, e.hasUsage)
			}
		}
	}
}

func TestUsageCountsThatAreNotPlainNumbersAreDecoded(t *testing.T) {
	cases := []struct {
		body  string
		found bool
		want  Usage
	}{
		{`{"usage":{"completion_tokens":3}}`, true, Usage{CompletionTokens: 3}},
		{`{"usage":{"prompt_tokens":-2,"completion_tokens":3}}`, true, Usage{PromptTokens: -2, CompletionTokens: 3}},
		{`{"usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":7},"completion_tokens_details":{"reasoning_tokens":2}}}`,
			true, Usage{PromptTokens: 10, CompletionTokens: 3, CachedTokens: 7, ReasoningTokens: 2}},
		{`{"usage":{"prompt_tokens":10,"completion_tokens":3,"cache_read_input_tokens":4}}`, true, Usage{PromptTokens: 10, CompletionTokens: 3, CachedTokens: 4}},
		{`{"usage":{"prompt_tokens":5.5,"completion_tokens":1}}`, false, Usage{}},
		{`{"usage":{"prompt_tokens":"x","completion_tokens":3}}`, false, Usage{}},
	}
	for _, c := range cases {
		e := &entry{}
		(&usageReader{e: e}).inspect([]byte(c.body))
		if e.hasUsage != c.found || e.usage != c.want {
			t.Errorf("%s: got %+v (found %v), want %+v (found %v)", c.body, e.usage, e.hasUsage, c.want, c.found)
		}
	}
}

// The model is read once the whole body has gone by (its length, or EOF when
// the length is not known), however the network split it, and only then.
func TestModelScannerReadsTheModelOfTheWholeBody(t *testing.T) {
	bodies := []string{
		agentBody(300),
		`{"messages":[{"content":"a\\\\"},{"content":"\\\\\\\"model\\\\\\\": \"x\""}],"model":"m\\\\1"}`,
		`{"x":"\"model\":\"no\"","model":"yes","y":"\\"}`,
	}
	for _, body := range bodies {
		var want struct{ Model string }
		if err := json.Unmarshal([]byte(body), &want); err != nil || want.Model == "" {
			t.Fatalf("test body is not JSON with a model: %v\n%s", err, body)
		}
		for cut := 0; cut <= len(body); cut++ {
			for _, length := range []int64{-1, int64(len(body))} {
				s := newModelScanner(length)
				s.feed([]byte(body[:cut]))
				if got := s.Model(); got != "" && cut < len(body) {
					t.Fatalf("cut at %d: model %q before the body ended", cut, got)
				}
				s.feed([]byte(body[cut:]))
				if length < 0 {
					s.end() // the read that returns EOF
				}
				if got := s.Model(); got != want.Model {
					t.Fatalf("cut at %d of %s (length %d): got %q, want %q", cut, body, length, got, want.Model)
				}
			}
		}
	}
}

// A body larger than the copy kept is forwarded whole, without a model.
func TestModelScannerPassesAHugeBodyWithoutAModel(t *testing.T) {
	body := `{"model":"m","messages":[{"content":"` + strings.Repeat("x", maxModelBody) + `"}]}`
	s := newModelScanner(int64(len(body)))
	n, err := io.Copy(io.Discard, &scanBody{ReadCloser: io.NopCloser(strings.NewReader(body)), s: s})
	if err != nil || int(n) != len(body) {
		t.Fatalf("copied %d of %d: %v", n, len(body), err)
	}
	if got := s.Model(); got != "" || s.body != nil {
		t.Errorf("model %q, %d bytes kept", got, len(s.body))
	}
}

// The transport's goroutine feeds the body while the handler's may already
// ask for the model (an early answer): the handler sees "" or the model,
// never a torn body.
func TestModelScannerFedAndReadConcurrently(t *testing.T) {
	body := agentBody(4 << 10)
	for _, length := range []int64{-1, int64(len(body))} {
		s := newModelScanner(length)
		fed := make(chan struct{})
		go func() {
			defer close(fed)
			_, _ = io.Copy(io.Discard, &scanBody{ReadCloser: io.NopCloser(iotest.HalfReader(strings.NewReader(body))), s: s})
		}()
		for done := false; !done; {
			select {
			case <-fed:
				done = true
			default:
			}
			if got := s.Model(); got != "" && got != sonnet {
				t.Fatalf("model %q while the body was fed", got)
			}
		}
		if got := s.Model(); got != sonnet {
			t.Errorf("length %d: model %q, want %q", length, got, sonnet)
		}
	}
}

// The usage key is found past text that ends like it ("reusage"), a key
// that only starts like it and a "usage" that holds no object.
func TestUsageFoundPastLookalikes(t *testing.T) {
	line := `data: {"choices":[{"delta":{"content":"reusage\" : {x"}}],"usage_x":{"a":1},"usage":null,` +
		`"meta":{"usage" :"n"},"usage" : {"prompt_tokens":5,"completion_tokens":6}}` + "\n\n"
	for _, l := range []string{line, strings.Replace(line, `"usage" : {"prompt`, `"Usage" : {"prompt`, 1)} {
		e := &entry{}
		u := &usageReader{ReadCloser: io.NopCloser(strings.NewReader(l)), sse: true, e: e}
		if _, err := io.Copy(io.Discard, u); err != nil {
			t.Fatal(err)
		}
		want := l == line // a key spelled otherwise is not the service's usage
		if e.hasUsage != want || want && (e.usage.PromptTokens != 5 || e.usage.CompletionTokens != 6) {
			t.Errorf("%s: usage %+v (found %v)", l, e.usage, e.hasUsage)
		}
	}
	if hasUsageObject([]byte(`{"x":"usage","usage_":{},"usage":[{}]}`)) {
		t.Error("the pre-check passed a line with no usage object")
	}
}

// Wherever the reads split a stream (between events, inside one, inside the
// usage key), the usage is found and the bytes pass unchanged.
func TestUsageFoundWhereverTheReadsSplit(t *testing.T) {
	stream := "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}],\"usage\":null}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n"
	for i := 0; i <= len(stream); i++ {
		for j := i; j <= len(stream); j++ {
			e := &entry{}
			r := io.MultiReader(strings.NewReader(stream[:i]), strings.NewReader(stream[i:j]), strings.NewReader(stream[j:]))
			u := &usageReader{ReadCloser: io.NopCloser(r), sse: true, e: e}
			var out bytes.Buffer
			if _, err := io.Copy(&out, u); err != nil || out.String() != stream {
				t.Fatalf("split at %d, %d: bytes changed in passing (err %v)", i, j, err)
			}
			if !e.hasUsage || e.usage.PromptTokens != 3 || e.usage.CompletionTokens != 4 {
				t.Fatalf("split at %d, %d: usage %+v (found %v)", i, j, e.usage, e.hasUsage)
			}
		}
	}
}

// BenchmarkTopLevelModel reads the model of a request recorded from Claude
// Code (48 KB; the walk goes on to the object's end, for a later duplicate)
// against decoding it with encoding/json, the baseline.
func BenchmarkTopLevelModel(b *testing.B) {
	body, err := os.ReadFile("../protocol/anthropic/testdata/claude-code/tool-round-trip/request-2.json")
	if err != nil {
		b.Fatal(err)
	}
	var want struct{ Model string }
	if err := json.Unmarshal(body, &want); err != nil || want.Model == "" {
		b.Fatal("no model in the recorded request")
	}
	b.SetBytes(int64(len(body)))
	b.Run("baseline-encoding-json", func(b *testing.B) {
		for b.Loop() {
			var v struct{ Model string }
			if json.Unmarshal(body, &v) != nil || v.Model != want.Model {
				b.Fatal("wrong model")
			}
		}
	})
	b.Run("gw", func(b *testing.B) {
		for b.Loop() {
			if topLevelModel(body) != want.Model {
				b.Fatal("wrong model")
			}
		}
	})
}
