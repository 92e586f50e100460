package anthropic

import (
	"bytes"
	"encoding/json"
	tr "github.com/modelgateway/gw/protocol/translate"
	"github.com/modelgateway/gw/protocol/translate/translatetest"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/modelgateway/gw/protocol/chat"
)

// FuzzStreamChunkBoundaries cuts reasoning, text and the arguments of two
// tool calls into pieces where the fuzzer says, packs pieces into chunks as
// it says, and may cut the stream off; the events must keep every rule and
// carry exactly what was sent. Run it for a while locally:
//
//	go test -run '^$' -fuzz FuzzStreamChunkBoundaries -fuzztime 30s ./protocol/anthropic
func FuzzStreamChunkBoundaries(f *testing.F) {
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, "Let me think.", "Hello there, gw.", `{"file_path":"/a/ü.txt"}`, false)
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "", "x", `{}`, false)
	f.Add([]byte{0, 200, 7}, "r", "", `{"command":"ls -la","timeout":1}`, true)
	f.Add([]byte{}, "", "", ``, false)
	f.Add([]byte{255, 0, 255}, "ünï", "çödé 🎉", `not json`, false)
	f.Fuzz(func(t *testing.T, cuts []byte, reasoning, text, args string, cutOff bool) {
		args2 := `{"n":2}`
		next := 0
		take := func() int {
			if len(cuts) == 0 {
				return 1
			}
			v := int(cuts[next%len(cuts)])
			next++
			return v
		}
		// pieces cuts s anywhere, or only between characters: a chunk's
		// text comes out of a JSON string, which cannot hold half of one.
		pieces := func(s string, whole bool) []string {
			var out []string
			for len(s) > 0 {
				n := min(take()%7+1, len(s))
				for whole && n < len(s) && !utf8.RuneStart(s[n]) {
					n++
				}
				out = append(out, s[:n])
				s = s[n:]
			}
			return out
		}
		var deltas []chat.Delta
		for _, p := range pieces(reasoning, true) {
			deltas = append(deltas, chat.Delta{ReasoningContent: &p})
		}
		for _, p := range pieces(text, true) {
			deltas = append(deltas, chat.Delta{Content: &p})
		}
		for i, a := range []string{args, args2} {
			first := chat.ToolCallDelta{Index: i, ID: []string{"call_0", "call_1"}[i], Type: "function"}
			first.Function.Name = "Read"
			deltas = append(deltas, chat.Delta{ToolCalls: []chat.ToolCallDelta{first}})
			for _, p := range pieces(a, false) {
				d := chat.ToolCallDelta{Index: i}
				d.Function.Arguments = p
				deltas = append(deltas, chat.Delta{ToolCalls: []chat.ToolCallDelta{d}})
			}
		}
		// Pack deltas into chunks: a chunk takes the tool calls of the next
		// deltas too when the fuzzer says so.
		var chunks []*chat.Chunk
		for i := 0; i < len(deltas); i++ {
			d := deltas[i]
			for take()%3 == 0 && i+1 < len(deltas) && len(d.ToolCalls) > 0 && len(deltas[i+1].ToolCalls) > 0 {
				i++
				d.ToolCalls = append(append([]chat.ToolCallDelta(nil), d.ToolCalls...), deltas[i].ToolCalls...)
			}
			chunks = append(chunks, &chat.Chunk{Choices: []chat.ChunkChoice{{Delta: d}}})
		}
		var end error
		if cutOff {
			chunks = chunks[:take()%(len(chunks)+1)]
			end = io.ErrUnexpectedEOF
		} else {
			chunks = append(chunks, translatetest.Finish("tool_calls"), translatetest.UsageChunk(10, 3, 0))
		}

		var buf bytes.Buffer
		w := NewStreamWriter(&buf, sonnet)
		for _, c := range chunks {
			if err := w.Chunk(c); err != nil {
				t.Fatal(err)
			}
			if take()%5 == 0 {
				_ = w.Ping()
			}
		}
		_ = w.End(end)
		a, err := checkStream(buf.String())
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		if cutOff {
			if a.errType != TypeAPI || len(a.tools()) != 0 {
				t.Fatalf("cut stream: %+v", a)
			}
			return
		}
		// Text is compared after JSON's round trip, as a client reads it.
		if a.thinking() != validUTF8(reasoning) || a.text() != validUTF8(text) {
			t.Fatalf("thinking %q text %q, sent %q %q", a.thinking(), a.text(), reasoning, text)
		}
		tools := a.tools()
		if len(tools) != 2 || tools[0].input != validUTF8(string(toolInput(args))) || tools[1].input != args2 || a.stopReason != "tool_use" {
			t.Fatalf("tools %+v stop %s", tools, a.stopReason)
		}
	})
}

// validUTF8 is s as it comes out of a JSON encoder: invalid bytes replaced.
func validUTF8(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzParseRequest: whatever the body, ParseRequest answers a chat request
// or a 400 naming what is wrong, and never panics.
func FuzzParseRequest(f *testing.F) {
	// The recorded requests' conversations, without their 40 KB of tools
	// and system prompt (the fuzzer mutates small inputs faster).
	for _, s := range []string{"tool-round-trip", "image", "tool-search", "thinking"} {
		b, err := os.ReadFile(filepath.Join(recordedDir, s, "request-2.json"))
		if err != nil {
			f.Fatal(err)
		}
		var r map[string]json.RawMessage
		if err := json.Unmarshal(b, &r); err != nil {
			f.Fatal(err)
		}
		delete(r, "tools")
		delete(r, "system")
		small, _ := json.Marshal(r)
		f.Add(small)
	}
	f.Add([]byte(`{"model":"m","system":[{"type":"text","text":"s"}],"messages":[{"role":"system","content":null},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_reference","tool_name":"x"},{"type":"image","source":{"type":"url","url":"u"}}],"is_error":true}]}],"tools":[{"name":"x","defer_loading":true,"input_schema":{}}],"tool_choice":{"type":"tool","name":"x"}}`))
	f.Add([]byte(`{"model":"vendor-a/model-a-opus-4.5-thinking","thinking":{"type":"enabled","budget_tokens":-1},"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b/c","input":[1]}]}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"model":"m","system":[{"type":"text","text":"","cache_control":{"type":"ephemeral","ttl":"1h"}}],"tools":[{"type":"web_search_20250305","name":"w","cache_control":{"type":"ephemeral"}},{"name":"x","cache_control":{"type":"x","ttl":"9h"}}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","cache_control":{"type":"ephemeral"},"content":[{"type":"image","source":{"type":"url","url":"u"},"cache_control":{"type":"ephemeral"}}]}]},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"x","input":{},"cache_control":{"type":"ephemeral","ttl":"5m"}}]}],"metadata":{"user_id":"u"}}`))
	f.Add([]byte(`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"gwor1.eyJzIjoiRXFvQiJ9"},` +
		`{"type":"redacted_thinking","data":"gwlt1.eyJkIjoiRW13In0"},{"type":"tool_use","id":"gwts1_ZnVuYwBDc2dC","name":"Read","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"gwts1_ZnVuYwBDc2dC","content":"r"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, _, err := ParseRequest(&tr.Request{Body: body}, tr.Env{})
		if err != nil {
			if err.Status != 400 || err.Type != TypeInvalidRequest || err.Message == "" {
				t.Fatalf("error %+v", err)
			}
			return
		}
		if req.Model == "" || len(req.Messages) == 0 {
			t.Fatalf("accepted without a model or messages: %s", body)
		}
		for _, tl := range req.Tools {
			if !validName.MatchString(tl.Function.Name) {
				t.Fatalf("function name %q", tl.Function.Name)
			}
		}
		if _, err := json.Marshal(req); err != nil {
			t.Fatalf("the chat request does not encode: %v", err)
		}
		// Breakpoints are carried, never invented; without them the
		// request has none left.
		if n, sent := len(breakpoints(req)), bytes.Count(body, []byte(`"cache_control"`)); n > sent {
			t.Fatalf("%d breakpoints from %d in the body", n, sent)
		}
		if plain := chat.Without(req, chat.FieldCacheControl); chat.Has(plain, chat.FieldCacheControl) || len(breakpoints(plain)) != 0 {
			t.Fatal("breakpoints left after Without")
		}
	})
}

// FuzzThinkingPieces cuts signed reasoning of each structured dialect into
// pieces where the fuzzer says; the stream must keep every rule, carry the
// whole text in one block per entry and end each with the service's
// signature, sealed.
func FuzzThinkingPieces(f *testing.F) {
	f.Add([]byte{3, 1, 4}, "Let me think.", "EqoB+/==", true)
	f.Add([]byte{}, "", "s", false)
	f.Add([]byte{1}, "ünï 🎉", "", true)
	f.Fuzz(func(t *testing.T, cuts []byte, text, sig string, openRouter bool) {
		if !utf8.ValidString(text) || !utf8.ValidString(sig) {
			return
		}
		var deltas []string
		quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		for i := 0; len(text) > 0; i++ {
			n := 1
			if len(cuts) > 0 {
				n = int(cuts[i%len(cuts)])%5 + 1
			}
			n = min(n, len(text))
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
			piece := text[:n]
			text = text[n:]
			if openRouter {
				deltas = append(deltas, `{"reasoning_details":[{"type":"reasoning.text","text":`+quote(piece)+`,"index":0}]}`)
			} else {
				deltas = append(deltas, `{"thinking_blocks":[{"type":"thinking","thinking":`+quote(piece)+`}]}`)
			}
		}
		if openRouter {
			deltas = append(deltas, `{"reasoning_details":[{"type":"reasoning.text","signature":`+quote(sig)+`,"index":0}]}`)
		} else {
			deltas = append(deltas, `{"thinking_blocks":[{"type":"thinking","signature":`+quote(sig)+`}]}`)
		}
		stream := streamOf(t, deltas, "stop")
		a, err := checkStream(stream)
		if err != nil {
			t.Fatalf("%v\n%s", err, stream)
		}
		if sig == "" && len(deltas) == 1 {
			if len(a.blocks) != 0 {
				t.Fatalf("blocks from nothing: %+v", a.blocks)
			}
			return
		}
		if len(a.blocks) != 1 {
			t.Fatalf("%d blocks, want 1: %+v", len(a.blocks), a.blocks)
		}
		var s sealedSig
		if _, err := chat.Unseal(a.blocks[0].signature, &s); (err == nil) != (sig != "") || s.Signature != sig {
			t.Fatalf("signature %q (%v), want the seal of %q", a.blocks[0].signature, err, sig)
		}
	})
}
