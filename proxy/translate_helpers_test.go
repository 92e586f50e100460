package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The requests and answers of the three protocols as the tests send and
// read them.

func messagesBody(model string, stream bool) string {
	b, _ := json.Marshal(map[string]any{
		"model": model, "max_tokens": 200, "stream": stream,
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	})
	return string(b)
}

func responsesBody(model string, stream bool) string {
	b, _ := json.Marshal(map[string]any{"model": model, "input": "hi", "stream": stream, "store": false})
	return string(b)
}

// testRoute is one protocol's request for the tests.
type testRoute struct {
	proto string
	path  string
	body  func(model string, stream bool) string
}

var testRoutes = []testRoute{
	{"chat", "/v1/chat/completions", chatBody},
	{"messages", "/v1/messages", messagesBody},
	{"responses", "/v1/responses", responsesBody},
}

// clientError is an error answer as the client of a protocol reads it.
type clientError struct {
	Status  int
	Type    string
	Code    string // OpenAI's shapes only
	Message string
	Retry   string // X-Should-Retry
}

// readClientError decodes an error answer in the shape of protocol p:
// Anthropic's {"type":"error","error":{"type","message"}} for the Messages
// API, OpenAI's {"error":{"message","type","code"}} otherwise.
func readClientError(t *testing.T, p string, res *http.Response) clientError {
	t.Helper()
	body := readAll(t, res)
	ce := clientError{Status: res.StatusCode, Retry: res.Header.Get("X-Should-Retry")}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s error answered as %q, not JSON: %s", p, ct, body)
	}
	var doc struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Error.Message == "" {
		t.Fatalf("%s error is not in the protocol's shape (%v): %s", p, err, body)
	}
	if p == "messages" && doc.Type != "error" {
		t.Fatalf("a Messages API error without \"type\":\"error\": %s", body)
	}
	if p != "messages" && doc.Type != "" {
		t.Fatalf("an OpenAI-shaped error with a top-level type: %s", body)
	}
	ce.Type, ce.Message = doc.Error.Type, doc.Error.Message
	if doc.Error.Code != nil {
		ce.Code = fmt.Sprint(doc.Error.Code)
	}
	return ce
}

// sseEvent is one event of a stream: its event: name (may be "") and data.
type sseEvent struct {
	name string
	data string
}

// readEvents reads a server-sent event stream to its end.
func readEvents(r io.Reader) ([]sseEvent, error) {
	var out []sseEvent
	var cur sseEvent
	have := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if have {
				out = append(out, cur)
			}
			cur, have = sseEvent{}, false
		case strings.HasPrefix(line, "event: "):
			cur.name, have = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			cur.data, have = strings.TrimPrefix(line, "data: "), true
		case strings.HasPrefix(line, ":"): // a comment: keep-alive
		default:
			return out, fmt.Errorf("malformed line %q", line)
		}
	}
	if have {
		return out, fmt.Errorf("the stream ends inside an event: %+v", cur)
	}
	return out, sc.Err()
}

// streamEnd is how a translated stream ended, as its client reads it.
type streamEnd struct {
	text     string // the answer's text
	terminal string // message_stop, error; response.completed, response.failed…
	errMsg   string // the error event's message
	usage    bool   // the terminal event carried usage
}

// readMessagesStream reads a Messages API stream to its end by its rules:
// message_start first; every content block started before its deltas and
// stopped, numbered from 0; exactly one terminal event (message_stop after a
// message_delta, or error) and nothing after it.
func readMessagesStream(r io.Reader) (streamEnd, error) {
	var end streamEnd
	evs, err := readEvents(r)
	if err != nil {
		return end, err
	}
	if len(evs) == 0 || evs[0].name != "message_start" {
		return end, fmt.Errorf("the stream does not start with message_start: %+v", evs)
	}
	open, next, sawDelta := -1, 0, false
	var text strings.Builder
	for i, ev := range evs {
		var d struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
			Usage *struct {
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil || d.Type != ev.name {
			return end, fmt.Errorf("event %d (%s): data %q", i, ev.name, ev.data)
		}
		if end.terminal != "" {
			return end, fmt.Errorf("event %s after the terminal %s", ev.name, end.terminal)
		}
		switch ev.name {
		case "message_start", "ping":
			if ev.name == "message_start" && i != 0 {
				return end, fmt.Errorf("a second message_start")
			}
		case "content_block_start":
			if open >= 0 || d.Index != next {
				return end, fmt.Errorf("block %d started while %d open, %d expected", d.Index, open, next)
			}
			open, next = d.Index, next+1
		case "content_block_delta":
			if d.Index != open {
				return end, fmt.Errorf("a delta for block %d while %d is open", d.Index, open)
			}
			if d.Delta.Type == "text_delta" {
				text.WriteString(d.Delta.Text)
			}
		case "content_block_stop":
			if d.Index != open {
				return end, fmt.Errorf("block %d stopped while %d is open", d.Index, open)
			}
			open = -1
		case "message_delta":
			if open >= 0 {
				return end, fmt.Errorf("message_delta while block %d is open", open)
			}
			sawDelta, end.usage = true, d.Usage != nil
		case "message_stop":
			if !sawDelta {
				return end, fmt.Errorf("message_stop without message_delta")
			}
			end.terminal = ev.name
		case "error":
			end.terminal, end.errMsg = ev.name, d.Error.Message
		default:
			return end, fmt.Errorf("unknown event %s", ev.name)
		}
	}
	end.text = text.String()
	if end.terminal == "" {
		return end, fmt.Errorf("the stream ended without a terminal event (truncated) after %d events", len(evs))
	}
	return end, nil
}

// readResponsesStream reads a Responses API stream to its end by its rules:
// response.created first, sequence numbers counting up from 0, the text
// deltas adding up to the text done, exactly one terminal event
// (response.completed, response.incomplete or response.failed) and nothing
// after it.
func readResponsesStream(r io.Reader) (streamEnd, error) {
	var end streamEnd
	evs, err := readEvents(r)
	if err != nil {
		return end, err
	}
	if len(evs) == 0 || evs[0].name != "response.created" {
		return end, fmt.Errorf("the stream does not start with response.created: %+v", evs)
	}
	var text strings.Builder
	done := ""
	for i, ev := range evs {
		var d struct {
			Type     string `json:"type"`
			Seq      int    `json:"sequence_number"`
			Delta    string `json:"delta"`
			Text     string `json:"text"`
			Response struct {
				Status string `json:"status"`
				Usage  *struct {
					OutputTokens int `json:"output_tokens"`
				} `json:"usage"`
				Error *struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil || d.Type != ev.name {
			return end, fmt.Errorf("event %d (%s): data %q", i, ev.name, ev.data)
		}
		if d.Seq != i {
			return end, fmt.Errorf("event %d (%s) has sequence number %d", i, ev.name, d.Seq)
		}
		if end.terminal != "" {
			return end, fmt.Errorf("event %s after the terminal %s", ev.name, end.terminal)
		}
		switch ev.name {
		case "response.output_text.delta":
			text.WriteString(d.Delta)
		case "response.output_text.done":
			done = d.Text
		case "response.completed", "response.incomplete":
			end.terminal, end.usage = ev.name, d.Response.Usage != nil
		case "response.failed":
			end.terminal = ev.name
			if d.Response.Error != nil {
				end.errMsg = d.Response.Error.Message
			}
		}
	}
	end.text = text.String()
	if end.terminal == "" {
		return end, fmt.Errorf("the stream ended without a terminal event (truncated) after %d events", len(evs))
	}
	if end.terminal != "response.failed" && done != end.text {
		return end, fmt.Errorf("the text deltas add up to %q, the text done is %q", end.text, done)
	}
	return end, nil
}

// readStream reads a translated stream by its protocol's rules.
func readStream(p string, r io.Reader) (streamEnd, error) {
	if p == "messages" {
		return readMessagesStream(r)
	}
	return readResponsesStream(r)
}

// completed is the terminal event of a stream that ended well.
func completed(p string) string {
	if p == "messages" {
		return "message_stop"
	}
	return "response.completed"
}

// failed is the terminal event of a stream that broke off.
func failed(p string) string {
	if p == "messages" {
		return "error"
	}
	return "response.failed"
}
