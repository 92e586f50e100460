package proxy

import (
	"bytes"
	"io"
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
	}
	for _, c := range cases {
		// Fed one byte at a time, as a slow client would send it.
		s := &modelScanner{}
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
	var got *Usage
	u := &usageReader{ReadCloser: io.NopCloser(iotest.HalfReader(strings.NewReader(stream))), sse: true,
		onUsage: func(x Usage) { got = &x }}
	var out bytes.Buffer
	if _, err := io.Copy(&out, u); err != nil {
		t.Fatal(err)
	}
	if out.String() != stream {
		t.Errorf("bytes changed in passing")
	}
	if got == nil || got.PromptTokens != 12 || got.CompletionTokens != 34 {
		t.Errorf("usage %+v", got)
	}
}

func TestUsageReaderSkipsOverlongLines(t *testing.T) {
	long := "data: {\"x\":\"" + strings.Repeat("a", maxSniffLine) + "\",\"usage\":{\"prompt_tokens\":1}}\n"
	short := "data: {\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":8}}\n"
	var got *Usage
	u := &usageReader{ReadCloser: io.NopCloser(strings.NewReader(long + short)), sse: true, onUsage: func(x Usage) { got = &x }}
	n, _ := io.Copy(io.Discard, u)
	if int(n) != len(long+short) || got == nil || got.PromptTokens != 7 {
		t.Errorf("copied %d, usage %+v", n, got)
	}
}
