package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
)

// sseEvent is one event of a Messages API stream.
type sseEvent struct {
	name string
	data map[string]any
	raw  string
}

// parseSSE splits a stream into events; every event must have an event:
// line and one data: line of JSON whose type is the event's name.
func parseSSE(stream string) ([]sseEvent, error) {
	var out []sseEvent
	if !strings.HasSuffix(stream, "\n\n") && stream != "" {
		return nil, fmt.Errorf("the stream does not end with a blank line: %q", tail(stream))
	}
	for _, chunk := range strings.Split(strings.TrimSuffix(stream, "\n\n"), "\n\n") {
		if chunk == "" {
			continue
		}
		lines := strings.Split(chunk, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			return nil, fmt.Errorf("malformed event %q", chunk)
		}
		ev := sseEvent{name: strings.TrimPrefix(lines[0], "event: "), raw: strings.TrimPrefix(lines[1], "data: ")}
		if err := json.Unmarshal([]byte(ev.raw), &ev.data); err != nil {
			return nil, fmt.Errorf("event %s: data is not a JSON object: %v", ev.name, err)
		}
		if ev.data["type"] != ev.name {
			return nil, fmt.Errorf("event %s carries type %v", ev.name, ev.data["type"])
		}
		out = append(out, ev)
	}
	return out, nil
}

func tail(s string) string {
	if len(s) > 80 {
		return "…" + s[len(s)-80:]
	}
	return s
}

// answer is what a client makes of a stream.
type answer struct {
	blocks     []answerBlock
	stopReason string
	stopSeq    any
	usage      map[string]any
	errType    string // set when the stream ended with an error event
	errMessage string
	pings      int
}

type answerBlock struct {
	kind, text, thinking, id, name, input string
	signature, data                       string // thinking, redacted_thinking
}

// checkStream applies the Messages API's stream rules and returns the
// answer: message_start first (pings only after it); blocks numbered from
// 0 one after another, each started, given deltas of its own kind and
// stopped before the next starts; exactly one terminal event (message_stop
// after one message_delta, or error) and nothing after it; every tool
// input a JSON object.
func checkStream(stream string) (answer, error) {
	var a answer
	evs, err := parseSSE(stream)
	if err != nil {
		return a, err
	}
	if len(evs) == 0 || evs[0].name != "message_start" {
		return a, fmt.Errorf("the stream does not start with message_start")
	}
	open := -1
	deltas := 0
	terminal := false
	for i, ev := range evs[1:] {
		if terminal {
			return a, fmt.Errorf("event %d (%s) after the terminal event", i+1, ev.name)
		}
		idx := -1
		if f, ok := ev.data["index"].(float64); ok {
			idx = int(f)
		}
		switch ev.name {
		case "ping":
			a.pings++
		case "content_block_start":
			if open >= 0 {
				return a, fmt.Errorf("block %d starts while block %d is open", idx, open)
			}
			if idx != len(a.blocks) {
				return a, fmt.Errorf("block index %d, want %d", idx, len(a.blocks))
			}
			cb, _ := ev.data["content_block"].(map[string]any)
			b := answerBlock{kind: fmt.Sprint(cb["type"])}
			switch b.kind {
			case "text":
				if cb["text"] != "" {
					return a, fmt.Errorf("text block %d starts with text %v", idx, cb["text"])
				}
			case "thinking":
				if cb["thinking"] != "" || cb["signature"] != "" {
					return a, fmt.Errorf("thinking block %d starts with %v", idx, cb)
				}
			case "redacted_thinking":
				data, _ := cb["data"].(string)
				if data == "" || len(cb) != 2 {
					return a, fmt.Errorf("redacted_thinking block %d starts with %v; it has exactly a type and its data", idx, cb)
				}
				b.data = data
			case "tool_use":
				b.id, b.name = fmt.Sprint(cb["id"]), fmt.Sprint(cb["name"])
				if b.id == "" || b.name == "" || fmt.Sprint(cb["input"]) != "map[]" {
					return a, fmt.Errorf("tool_use block %d starts with %v", idx, cb)
				}
			default:
				return a, fmt.Errorf("block %d of unknown type %q", idx, b.kind)
			}
			a.blocks = append(a.blocks, b)
			open = idx
		case "content_block_delta":
			if idx != open || open < 0 {
				return a, fmt.Errorf("delta for block %d while block %d is open", idx, open)
			}
			d, _ := ev.data["delta"].(map[string]any)
			b := &a.blocks[idx]
			want := map[string]string{"text": "text_delta", "thinking": "thinking_delta", "tool_use": "input_json_delta"}[b.kind]
			if b.signature != "" {
				return a, fmt.Errorf("%v after the signature_delta of block %d; the signature comes last", d["type"], idx)
			}
			if b.kind == "thinking" && d["type"] == "signature_delta" {
				if sig, _ := d["signature"].(string); sig == "" {
					return a, fmt.Errorf("an empty signature_delta in block %d", idx)
				}
				b.signature = d["signature"].(string)
				deltas++
				continue
			}
			if d["type"] != want {
				return a, fmt.Errorf("%v in a %s block", d["type"], b.kind)
			}
			switch b.kind {
			case "text":
				b.text += d["text"].(string)
			case "thinking":
				b.thinking += d["thinking"].(string)
			case "tool_use":
				b.input += d["partial_json"].(string)
			}
			deltas++
		case "content_block_stop":
			if idx != open || open < 0 {
				return a, fmt.Errorf("stop of block %d while block %d is open", idx, open)
			}
			if b := a.blocks[idx]; b.kind == "tool_use" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(b.input), &obj); err != nil || obj == nil {
					return a, fmt.Errorf("tool_use block %d's input %q is not a JSON object", idx, b.input)
				}
			}
			open = -1
		case "message_delta":
			if open >= 0 {
				return a, fmt.Errorf("message_delta while block %d is open", open)
			}
			if a.stopReason != "" {
				return a, fmt.Errorf("a second message_delta")
			}
			d, _ := ev.data["delta"].(map[string]any)
			a.stopReason = fmt.Sprint(d["stop_reason"])
			a.stopSeq = d["stop_sequence"]
			a.usage, _ = ev.data["usage"].(map[string]any)
			switch a.stopReason {
			case "end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn":
			default:
				return a, fmt.Errorf("stop_reason %q", a.stopReason)
			}
		case "message_stop":
			if a.stopReason == "" {
				return a, fmt.Errorf("message_stop without message_delta")
			}
			terminal = true
		case "error":
			if open >= 0 {
				return a, fmt.Errorf("error event while block %d is open", open)
			}
			e, _ := ev.data["error"].(map[string]any)
			a.errType, a.errMessage = fmt.Sprint(e["type"]), fmt.Sprint(e["message"])
			terminal = true
		default:
			return a, fmt.Errorf("unknown event %q", ev.name)
		}
	}
	if !terminal {
		return a, fmt.Errorf("no terminal event (message_stop or error)")
	}
	return a, nil
}

// text is all text of the answer's text blocks.
func (a answer) text() string { return a.joined("text") }

// thinking is all text of its thinking blocks.
func (a answer) thinking() string { return a.joined("thinking") }

func (a answer) joined(kind string) string {
	var b strings.Builder
	for _, bl := range a.blocks {
		switch {
		case bl.kind != kind:
		case kind == "text":
			b.WriteString(bl.text)
		case kind == "thinking":
			b.WriteString(bl.thinking)
		}
	}
	return b.String()
}

func (a answer) tools() []answerBlock {
	var out []answerBlock
	for _, bl := range a.blocks {
		if bl.kind == "tool_use" {
			out = append(out, bl)
		}
	}
	return out
}
