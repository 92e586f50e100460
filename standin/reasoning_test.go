package standin

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const toolAsk = `"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],
	"messages":[{"role":"user","content":"use the read tool on ` + "`a.txt`" + `"}]`

// assembled is a chat answer put together from a stream or read whole: what a
// client of each dialect keeps for the next turn.
type assembled struct {
	Reasoning        string
	ReasoningContent string
	Details          []map[string]any
	Blocks           []map[string]any
	Calls            []map[string]any
	Extra            map[string]any
}

func answerOf(t *testing.T, stream bool, body string) assembled {
	t.Helper()
	var a assembled
	type msg struct {
		Reasoning        *string          `json:"reasoning"`
		ReasoningContent *string          `json:"reasoning_content"`
		Details          []map[string]any `json:"reasoning_details"`
		Blocks           []map[string]any `json:"thinking_blocks"`
		Calls            []map[string]any `json:"tool_calls"`
		Extra            map[string]any   `json:"extra_content"`
	}
	add := func(m msg) {
		if m.Reasoning != nil {
			a.Reasoning += *m.Reasoning
		}
		if m.ReasoningContent != nil {
			a.ReasoningContent += *m.ReasoningContent
		}
		a.Details = append(a.Details, m.Details...)
		a.Blocks = append(a.Blocks, m.Blocks...)
		a.Calls = append(a.Calls, m.Calls...)
		if m.Extra != nil {
			a.Extra = m.Extra
		}
	}
	if !stream {
		var r struct {
			Choices []struct {
				Message msg `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Choices) != 1 {
			t.Fatalf("%v: %s", err, body)
		}
		add(r.Choices[0].Message)
		return a
	}
	for _, e := range sse(t, strings.NewReader(body)) {
		if e == "[DONE]" {
			break
		}
		var c struct {
			Choices []struct {
				Delta msg `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("%v: %s", err, e)
		}
		for _, ch := range c.Choices {
			add(ch.Delta)
		}
	}
	return a
}

func googleSig(m map[string]any) string {
	e, _ := m["extra_content"].(map[string]any)
	g, _ := e["google"].(map[string]any)
	s, _ := g["thought_signature"].(string)
	return s
}

func TestReasoning_Dialects(t *testing.T) {
	rs := start(t, Options{})
	for _, stream := range []bool{false, true} {
		for _, dialect := range []string{ReasoningContent, ReasoningField, ReasoningOpenRouter + "+redacted", ReasoningLiteLLM + "+redacted", ReasoningGemini} {
			body := `{"model":"vendor-a/model-a-sonnet-4.5","stream":` + map[bool]string{true: "true", false: "false"}[stream] + `,` + toolAsk + `}`
			status, _, raw := post(t, rs, DemoKeyFull, map[string]string{ReasoningHeader: dialect}, body)
			if status != 200 {
				t.Fatalf("%s: %d %s", dialect, status, raw)
			}
			a := answerOf(t, stream, raw)
			name := dialect + map[bool]string{true: " stream", false: " whole"}[stream]
			const text = "The user wrote"
			switch dialect {
			case ReasoningContent:
				if !strings.HasPrefix(a.ReasoningContent, text) || a.Reasoning != "" {
					t.Errorf("%s: %+v", name, a)
				}
			case ReasoningField:
				if !strings.HasPrefix(a.Reasoning, text) || a.ReasoningContent != "" {
					t.Errorf("%s: %+v", name, a)
				}
			case ReasoningOpenRouter + "+redacted":
				var detailText, sig, data string
				for _, d := range a.Details {
					switch d["type"] {
					case "reasoning.text":
						detailText += d["text"].(string)
						if s, ok := d["signature"].(string); ok {
							sig = s
						}
					case "reasoning.encrypted":
						data = d["data"].(string)
					}
				}
				if !strings.HasPrefix(a.Reasoning, text) || detailText != a.Reasoning || sig != reasoningSignature(a.Reasoning) || data == "" {
					t.Errorf("%s: reasoning %q, details text %q signature %q data %q", name, a.Reasoning, detailText, sig, data)
				}
			case ReasoningLiteLLM + "+redacted":
				var thinking, sig, data string
				for _, b := range a.Blocks {
					switch b["type"] {
					case "thinking":
						thinking += b["thinking"].(string)
						if s, ok := b["signature"].(string); ok {
							sig = s
						}
					case "redacted_thinking":
						data = b["data"].(string)
					}
				}
				if !strings.HasPrefix(a.ReasoningContent, text) || thinking != a.ReasoningContent || sig != reasoningSignature(thinking) || data == "" {
					t.Errorf("%s: reasoning_content %q, thinking %q signature %q data %q", name, a.ReasoningContent, thinking, sig, data)
				}
			case ReasoningGemini:
				if len(a.Calls) == 0 || a.Reasoning+a.ReasoningContent != "" {
					t.Fatalf("%s: %+v", name, a)
				}
				if id, _ := a.Calls[0]["id"].(string); googleSig(a.Calls[0]) != thoughtSignature(id) {
					t.Errorf("%s: first tool call %v lacks its thought_signature", name, a.Calls[0])
				}
			}
			seen := rs.Seen()
			if s := seen[len(seen)-1]; s.Reasoning != strings.TrimSuffix(dialect, "+redacted") {
				t.Errorf("%s: Seen.Reasoning %q", name, s.Reasoning)
			}
		}
	}
	status, _, raw := post(t, rs, DemoKeyFull, map[string]string{ReasoningHeader: "deepseek"}, chatBody("vendor-a/model-a-haiku-4.5", false))
	if status != 400 || !strings.Contains(raw, "X-Standin-Reasoning") {
		t.Errorf("an unknown dialect: %d %s", status, raw)
	}
}

// Gemini-class models sign their first tool call, and refuse the call sent
// back in the current turn without that signature.
func TestReasoning_GeminiRefusesCallWithoutSignature(t *testing.T) {
	rs := start(t, Options{})
	const model = "vendor-b/model-b-3-pro-preview"
	_, _, raw := post(t, rs, DemoKeyFull, nil, `{"model":"`+model+`",`+toolAsk+`}`)
	a := answerOf(t, false, raw)
	if len(a.Calls) != 1 || googleSig(a.Calls[0]) == "" {
		t.Fatalf("a Gemini-class model's tool call must carry a thought_signature: %s", raw)
	}
	call := a.Calls[0]
	id := call["id"].(string)
	second := func(c map[string]any, later string) string {
		msgs := []any{
			map[string]any{"role": "user", "content": "use the read tool on `a.txt`"},
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{c}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": "file text"},
		}
		if later != "" {
			msgs = append(msgs, map[string]any{"role": "user", "content": later})
		}
		return mustMarshal(t, map[string]any{"model": model, "messages": msgs})
	}
	bare := map[string]any{"id": id, "type": "function", "function": call["function"]}
	wrong := map[string]any{"id": id, "type": "function", "function": call["function"],
		"extra_content": map[string]any{"google": map[string]any{"thought_signature": thoughtSignature("call_other")}}}
	skip := map[string]any{"id": id, "type": "function", "function": call["function"],
		"extra_content": map[string]any{"google": map[string]any{"thought_signature": skipThoughtSignature}}}
	for _, tc := range []struct {
		name   string
		body   string
		status int
	}{
		{"signed", second(call, ""), 200},
		{"without signature", second(bare, ""), 400},
		{"another call's signature", second(wrong, ""), 400},
		{"Gemini's skip value", second(skip, ""), 200},
		{"unsigned, in an earlier turn", second(bare, "thanks, now say hello"), 200},
	} {
		status, _, body := post(t, rs, DemoKeyFull, nil, tc.body)
		if status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
		if status == 400 && !strings.Contains(body, "Function call is missing a thought_signature in functionCall parts") {
			t.Errorf("%s: %s; want Gemini's words", tc.name, body)
		}
	}
	seen := rs.Seen()
	if s := seen[1]; len(s.Received) != 1 || s.Received[0].Value != googleSig(call) ||
		s.Received[0].Where != "messages[1].tool_calls[0].extra_content.google.thought_signature" || len(seen[0].Sent) != 1 || seen[0].Sent[0] != googleSig(call) {
		t.Errorf("Seen: first answer sent %v, second request received %+v; want the same signature, recorded where it was", seen[0].Sent, s.Received)
	}
}

// A reasoning signature sent back must sign the text it comes with.
func TestReasoning_SignaturesSentBackAreChecked(t *testing.T) {
	rs := start(t, Options{})
	text := "I think."
	sig := reasoningSignature(text)
	for _, tc := range []struct {
		name, assistant string
		status          int
	}{
		{"openrouter, intact", `"reasoning_details":[{"type":"reasoning.text","text":"I think.","signature":"` + sig + `","format":"anthropic-claude-v1","index":0},{"type":"reasoning.encrypted","data":"` + redactedData("x") + `","index":1}]`, 200},
		{"openrouter, text changed", `"reasoning_details":[{"type":"reasoning.text","text":"I think so.","signature":"` + sig + `"}]`, 400},
		{"openrouter, foreign data", `"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAB-foreign"}]`, 400},
		{"litellm, intact", `"thinking_blocks":[{"type":"thinking","thinking":"I think.","signature":"` + sig + `"},{"type":"redacted_thinking","data":"` + redactedData("x") + `"}]`, 200},
		{"litellm, signature lost", `"thinking_blocks":[{"type":"thinking","thinking":"I think.","signature":""}]`, 400},
	} {
		body := `{"model":"vendor-a/model-a-sonnet-4.5","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello.",` + tc.assistant + `},{"role":"user","content":"again"}]}`
		status, _, raw := post(t, rs, DemoKeyFull, nil, body)
		if status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, status, raw, tc.status)
		}
		if status == 400 && !strings.Contains(raw, "messages[1].") {
			t.Errorf("%s: %s; want the error to name the field", tc.name, raw)
		}
		seen := rs.Seen()
		if s := seen[len(seen)-1]; len(s.Received) == 0 {
			t.Errorf("%s: nothing recorded as received", tc.name)
		}
	}
	seen := rs.Seen()
	if got := seen[0].Received; len(got) != 2 || got[0] != (Received{"messages[1].reasoning_details[0].signature", sig}) {
		t.Errorf("received %+v", got)
	}
}

// A client that keeps a streamed answer's reasoning and sends it back in
// the dialect it came in gets the next turn answered, and the stand-in
// records that the second request carried what the first answer signed.
func TestReasoning_StreamedRoundTrip(t *testing.T) {
	rs := start(t, Options{ReasoningByModel: map[string]string{
		"vendor-a/model-a-sonnet-4.5": ReasoningOpenRouter + "+redacted",
		"vendor-a/model-a-haiku-4.5":  ReasoningLiteLLM + "+redacted",
	}})
	for model, field := range map[string]string{"vendor-a/model-a-sonnet-4.5": "reasoning_details", "vendor-a/model-a-haiku-4.5": "thinking_blocks"} {
		_, _, raw := post(t, rs, DemoKeyFull, nil, `{"model":"`+model+`","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		a := answerOf(t, true, raw)
		// Merge the streamed pieces as clients do: one signed text block, one encrypted.
		var back []map[string]any
		if field == "reasoning_details" {
			var sig, data string
			for _, d := range a.Details {
				if s, ok := d["signature"].(string); ok {
					sig = s
				}
				if s, ok := d["data"].(string); ok {
					data = s
				}
			}
			back = []map[string]any{
				{"type": "reasoning.text", "text": a.Reasoning, "signature": sig, "format": "anthropic-claude-v1", "index": 0},
				{"type": "reasoning.encrypted", "data": data, "format": "anthropic-claude-v1", "index": 1},
			}
		} else {
			var sig, data string
			for _, b := range a.Blocks {
				if s, ok := b["signature"].(string); ok {
					sig = s
				}
				if s, ok := b["data"].(string); ok {
					data = s
				}
			}
			back = []map[string]any{
				{"type": "thinking", "thinking": a.ReasoningContent, "signature": sig},
				{"type": "redacted_thinking", "data": data},
			}
		}
		body := mustMarshal(t, map[string]any{"model": model, "messages": []any{
			map[string]any{"role": "user", "content": "hi"},
			map[string]any{"role": "assistant", "content": "Hello.", field: back},
			map[string]any{"role": "user", "content": "again"},
		}})
		if status, _, got := post(t, rs, DemoKeyFull, nil, body); status != 200 {
			t.Fatalf("%s: the second turn: %d %s", field, status, got)
		}
		seen := rs.Seen()
		first, second := seen[len(seen)-2], seen[len(seen)-1]
		var received []string
		for _, r := range second.Received {
			received = append(received, r.Value)
		}
		if len(first.Sent) != 2 || strings.Join(received, " ") != strings.Join(first.Sent, " ") {
			t.Errorf("%s: the first answer sent %q, the second request carried %+v", field, first.Sent, second.Received)
		}
	}
}

// The mixed dialect carries every signed dialect in one answer, streamed or
// whole: OpenRouter's reasoning_details and LiteLLM's thinking_blocks, each
// signing its own text and with its encrypted block, and Gemini's thought
// signature on the first tool call. Sent back as it came, each in its own
// field, the next turn is answered; each piece lost or damaged is refused
// as its dialect refuses it.
func TestReasoning_MixedCarriesEveryDialect(t *testing.T) {
	rs := start(t, Options{ReasoningByModel: map[string]string{"vendor-a/model-a-sonnet-4.5": ReasoningMixed + "+redacted"}})
	for _, stream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "whole"}[stream]
		body := `{"model":"vendor-a/model-a-sonnet-4.5","stream":` + map[bool]string{true: "true", false: "false"}[stream] + `,` + toolAsk + `}`
		status, _, raw := post(t, rs, DemoKeyFull, nil, body)
		if status != 200 {
			t.Fatalf("%s: %d %s", name, status, raw)
		}
		a := answerOf(t, stream, raw)
		sent := rs.Seen()[len(rs.Seen())-1]
		if sent.Reasoning != ReasoningMixed {
			t.Errorf("%s: Seen.Reasoning %q", name, sent.Reasoning)
		}
		// Merge the pieces as a client of each dialect does.
		var detailText, detailSig, detailData, blockText, blockSig, blockData string
		for _, d := range a.Details {
			s := func(k string) string { v, _ := d[k].(string); return v }
			detailText, detailSig, detailData = detailText+s("text"), detailSig+s("signature"), detailData+s("data")
		}
		for _, b := range a.Blocks {
			s := func(k string) string { v, _ := b[k].(string); return v }
			blockText, blockSig, blockData = blockText+s("thinking"), blockSig+s("signature"), blockData+s("data")
		}
		if len(a.Calls) == 0 { // streamed: the first delta of the one call has its id
			t.Fatalf("%s: no tool call: %s", name, raw)
		}
		id, _ := a.Calls[0]["id"].(string)
		thought := googleSig(a.Calls[0])
		switch {
		case detailText == "" || detailText != a.Reasoning || detailSig != reasoningSignature(detailText) || detailData == "":
			t.Errorf("%s: reasoning %q, reasoning_details text %q signature %q data %q", name, a.Reasoning, detailText, detailSig, detailData)
		case blockText == "" || blockText != a.ReasoningContent || blockText == detailText || blockSig != reasoningSignature(blockText) || blockData == "" || blockData == detailData:
			t.Errorf("%s: reasoning_content %q, thinking_blocks text %q signature %q data %q", name, a.ReasoningContent, blockText, blockSig, blockData)
		case thought != thoughtSignature(id):
			t.Errorf("%s: the tool call %v lacks its thought_signature", name, a.Calls[0])
		}
		wantSigned := []Received{
			{"reasoning_details[0].signature", detailSig}, {"reasoning_details[1].data", detailData},
			{"thinking_blocks[0].signature", blockSig}, {"thinking_blocks[1].data", blockData},
			{"tool_calls[0].extra_content.google.thought_signature", thought},
		}
		if !reflect.DeepEqual(sent.Signed, wantSigned) || len(sent.Sent) != len(wantSigned) {
			t.Errorf("%s: Seen.Signed %+v, Sent %q; want %+v", name, sent.Signed, sent.Sent, wantSigned)
		}

		back := func(details, blocks []map[string]any, sig string) string {
			call := map[string]any{"id": id, "type": "function", "function": a.Calls[0]["function"]}
			if sig != "" {
				call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": sig}}
			}
			return mustMarshal(t, map[string]any{"model": "vendor-a/model-a-sonnet-4.5", "messages": []any{
				map[string]any{"role": "user", "content": "use the read tool on `a.txt`"},
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call},
					"reasoning_details": details, "thinking_blocks": blocks},
				map[string]any{"role": "tool", "tool_call_id": id, "content": "file text"},
			}})
		}
		details := []map[string]any{
			{"type": "reasoning.text", "text": detailText, "signature": detailSig, "format": reasoningFormat, "index": 0},
			{"type": "reasoning.encrypted", "data": detailData, "format": reasoningFormat, "index": 1},
		}
		blocks := []map[string]any{
			{"type": "thinking", "thinking": blockText, "signature": blockSig},
			{"type": "redacted_thinking", "data": blockData},
		}
		if status, _, got := post(t, rs, DemoKeyFull, nil, back(details, blocks, thought)); status != 200 {
			t.Fatalf("%s: sent back as it came: %d %s", name, status, got)
		}
		var want []Received
		for _, s := range wantSigned {
			want = append(want, Received{"messages[1]." + s.Where, s.Value})
		}
		if got := rs.Seen()[len(rs.Seen())-1].Received; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: received %+v, want %+v", name, got, want)
		}
		damaged := []map[string]any{blocks[0], {"type": "redacted_thinking", "data": "damaged"}}
		for _, tc := range []struct{ what, body, says string }{
			{"without the thought signature", back(details, blocks, ""), "Function call is missing a thought_signature"},
			{"the redacted block damaged", back(details, damaged, thought), "messages[1].thinking_blocks[1].data"},
			{"the details' signature on other text", back([]map[string]any{{"type": "reasoning.text", "text": blockText, "signature": detailSig}}, blocks, thought), "messages[1].reasoning_details[0].signature"},
		} {
			if status, _, got := post(t, rs, DemoKeyFull, nil, tc.body); status != 400 || !strings.Contains(got, tc.says) {
				t.Errorf("%s: %s: %d %s; want 400 saying %q", name, tc.what, status, got, tc.says)
			}
		}
	}
}
