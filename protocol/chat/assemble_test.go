package chat

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// assemble runs the chunks (their JSON) through an Assembler and says each
// piece in a line; end: "end" (End), "cut" (Cut) or "" (neither).
func assemble(t *testing.T, a *Assembler, end string, chunks ...string) []string {
	t.Helper()
	var got []string
	a.On = func(p Piece) {
		dialect := p.Segment.Dialect
		if dialect == "" {
			dialect = "plain"
		}
		switch p.Kind {
		case PieceText:
			got = append(got, "text "+p.Text)
		case PieceRefusal:
			got = append(got, "refusal "+p.Text)
		case PieceSegment:
			got = append(got, "segment "+dialect)
		case PieceReasoning:
			got = append(got, "reasoning "+dialect+" "+p.Text)
		case PieceSegmentEnd:
			got = append(got, fmt.Sprintf("end %s sig=%s format=%s id=%s", dialect, p.Segment.Signature, p.Segment.Format, p.Segment.ID))
		case PieceSealed:
			got = append(got, fmt.Sprintf("sealed %s data=%s format=%s id=%s", dialect, p.Segment.Data, p.Segment.Format, p.Segment.ID))
		case PieceCall:
			got = append(got, fmt.Sprintf("call %d %s %s args=%s", p.Call.N, p.Call.ID, p.Call.Name, p.Call.Args.String()))
		case PieceArgs:
			got = append(got, fmt.Sprintf("args %d %s", p.Call.N, p.Text))
		case PieceCallDone:
			got = append(got, fmt.Sprintf("done %d %s %q sig=%s args=%s", p.Call.N, p.Call.ID, p.Call.Name, p.Call.Signature, p.Call.Args.String()))
		default:
			t.Fatalf("a piece of kind %d", p.Kind)
		}
	}
	for _, s := range chunks {
		var c Chunk
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		a.Chunk(&c)
	}
	switch end {
	case "end":
		a.End()
	case "cut":
		a.Cut()
	}
	return got
}

// delta is a chunk of the first choice with delta d (JSON).
func delta(d string) string { return `{"choices":[{"index":0,"delta":` + d + `}]}` }

func samePieces(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("pieces:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestAssemblerReasoningSegments: each dialect's reasoning becomes
// segments — plain text, OpenRouter's entries by index (the signature,
// format and id said when the entry ends), its summaries, LiteLLM's blocks
// (a signed one ends) — the plain copy a structured dialect repeats is not
// read twice, and text or a sealed entry in between ends a segment; a call
// beginning does not (the calls completing do).
func TestAssemblerReasoningSegments(t *testing.T) {
	var a Assembler
	got := assemble(t, &a, "end",
		delta(`{"reasoning_content":"think "}`),
		delta(`{"reasoning":"more"}`),
		delta(`{"content":"Hi"}`),
		// OpenRouter: entry 0 in pieces, its signature last; the plain copy beside it.
		delta(`{"reasoning":"a","reasoning_details":[{"type":"reasoning.text","text":"a","index":0,"format":"anthropic-claude-v1"}]}`),
		delta(`{"reasoning_details":[{"type":"reasoning.text","text":"b","index":0,"id":"r1"},{"type":"reasoning.text","signature":"S0","index":0,"id":"r2"}]}`),
		delta(`{"reasoning_details":[{"type":"reasoning.text","text":"c","index":1}]}`),
		delta(`{"reasoning_details":[{"type":"reasoning.summary","summary":"sum","index":2},{"type":"reasoning.encrypted","data":"ENC","index":3,"format":"f","id":"e1"}]}`),
		// An empty entry is nothing.
		delta(`{"reasoning_details":[{"type":"reasoning.text","index":4}]}`),
		// LiteLLM: a block's signature in a piece of its own ends it.
		delta(`{"reasoning_content":"x","thinking_blocks":[{"type":"thinking","thinking":"x"}]}`),
		delta(`{"thinking_blocks":[{"type":"thinking","signature":"L1"}]}`),
		delta(`{"thinking_blocks":[{"type":"thinking","thinking":"y"},{"type":"redacted_thinking","data":"RED"}]}`),
		delta(`{"reasoning_content":"before the call"}`),
		delta(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"Read","arguments":"{}"}}]}`),
	)
	samePieces(t, got, []string{
		"segment plain", "reasoning plain think ", "reasoning plain more", "end plain sig= format= id=",
		"text Hi",
		"segment or", "reasoning or a", "reasoning or b", "end or sig=S0 format=anthropic-claude-v1 id=r1",
		"segment or", "reasoning or c", "end or sig= format= id=",
		"segment summary", "reasoning summary sum", "end summary sig= format= id=",
		"sealed or data=ENC format=f id=e1",
		"segment lt", "reasoning lt x", "end lt sig=L1 format= id=",
		"segment lt", "reasoning lt y", "end lt sig= format= id=",
		"sealed lt data=RED format= id=",
		"segment plain", "reasoning plain before the call",
		"call 0 c1 Read args={}",
		"end plain sig= format= id=",
		"done 0 c1 \"Read\" sig= args={}",
	})
}

// TestAssemblerPlainThenSigned: a service that sends the text plain and
// then its signature structured signed that text: one segment, in the
// signature's dialect, and the entry kept for sealing holds the text.
func TestAssemblerPlainThenSigned(t *testing.T) {
	for _, c := range []struct {
		name, sig string
		want      []string
		kept      func(*ReasoningCollector) string
	}{
		{"openrouter", `{"reasoning_details":[{"type":"reasoning.text","signature":"S","index":0,"format":"f"}]}`,
			[]string{"segment plain", "reasoning plain I think", "reasoning plain  so", "end or sig=S format=f id=", "text ok"},
			func(r *ReasoningCollector) string {
				b, _ := json.Marshal(r.Details)
				return string(b)
			}},
		{"litellm", `{"thinking_blocks":[{"type":"thinking","signature":"S"}]}`,
			[]string{"segment plain", "reasoning plain I think", "reasoning plain  so", "end lt sig=S format= id=", "text ok"},
			func(r *ReasoningCollector) string {
				b, _ := json.Marshal(r.Blocks)
				return string(b)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := Assembler{Keep: true}
			got := assemble(t, &a, "end", delta(`{"reasoning_content":"I think"}`), delta(`{"reasoning":" so"}`), delta(c.sig), delta(`{"content":"ok"}`))
			samePieces(t, got, c.want)
			want := map[string]string{
				"openrouter": `[{"type":"reasoning.text","signature":"S","format":"f","index":0,"text":"I think so"}]`,
				"litellm":    `[{"type":"thinking","thinking":"I think so","signature":"S"}]`,
			}[c.name]
			if k := c.kept(&a.Reasoning); k != want {
				t.Errorf("kept %s\nwant %s", k, want)
			}
			if !a.Reasoning.Signed() {
				t.Error("the kept reasoning is not signed")
			}
		})
	}
	// Without Keep nothing is collected.
	var a Assembler
	assemble(t, &a, "end", delta(`{"reasoning_content":"t"}`), delta(`{"reasoning_details":[{"type":"reasoning.text","signature":"S"}]}`))
	if !a.Reasoning.Empty() {
		t.Errorf("collected without Keep: %+v", a.Reasoning)
	}
}

// TestAssemblerToolCalls: calls split across chunks begin once named, their
// arguments follow as they come, and they are complete at the finish
// reason, in the order they began: a name repeated is not doubled, a new id
// under index 0 is another call (gateways that number every call 0), a call
// that never got a name is completed all the same, and the thought
// signature is the latest. A call after the finish reason is another one,
// complete at the end.
func TestAssemblerToolCalls(t *testing.T) {
	var a Assembler
	got := assemble(t, &a, "end",
		delta(`{"content":"Let me look.","tool_calls":[{"index":0,"id":"c1","function":{"name":"Read","arguments":"{\"pa"}}]}`),
		delta(`{"tool_calls":[{"index":0,"function":{"name":"Read","arguments":"th\":1}"},"extra_content":{"google":{"thought_signature":"G1"}}}]}`),
		delta(`{"tool_calls":[{"index":0,"id":"c2","function":{"arguments":""}}]}`),
		delta(`{"tool_calls":[{"index":0,"function":{"name":"Bash","arguments":"{\"c\":"}}]}`),
		delta(`{"tool_calls":[{"index":0,"function":{"arguments":"2}"}}]}`),
		delta(`{"tool_calls":[{"index":1,"id":"c3","function":{"arguments":"{}"}}]}`),
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls","stop_reason":7}]}`,
		`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`,
		delta(`{"tool_calls":[{"index":0,"function":{"name":"Late","arguments":"{}"}}]}`),
	)
	samePieces(t, got, []string{
		"text Let me look.",
		`call 0 c1 Read args={"pa`,
		`args 0 th":1}`,
		`call 1 c2 Bash args={"c":`,
		"args 1 2}",
		`done 0 c1 "Read" sig=G1 args={"path":1}`,
		`done 1 c2 "Bash" sig= args={"c":2}`,
		`done 2 c3 "" sig= args={}`,
		"call 3  Late args={}",
		`done 3  "Late" sig= args={}`,
	})
	if a.FinishReason != "tool_calls" || a.StopReason != float64(7) {
		t.Errorf("finish %q, stop %v", a.FinishReason, a.StopReason)
	}
	if u := a.Usage(); u == nil || u.PromptTokens != 5 || u.TotalTokens != 8 {
		t.Errorf("usage %+v", u)
	}
}

// TestAssemblerCut: a stream that broke off completes no call; one without
// a finish reason that ended normally completes its calls at the end; only
// the first choice is read.
func TestAssemblerCut(t *testing.T) {
	call := delta(`{"reasoning_content":"r","tool_calls":[{"index":0,"id":"c1","function":{"name":"Read","arguments":"{\"pa"}}]}`)
	other := `{"choices":[{"index":1,"delta":{"content":"second choice","tool_calls":[{"index":0,"id":"x","function":{"name":"X"}}]}}]}`
	samePieces(t, assemble(t, &Assembler{}, "cut", call, other), []string{
		"segment plain", "reasoning plain r", `call 0 c1 Read args={"pa`, "end plain sig= format= id=",
	})
	samePieces(t, assemble(t, &Assembler{}, "end", call, other), []string{
		"segment plain", "reasoning plain r", `call 0 c1 Read args={"pa`, "end plain sig= format= id=",
		`done 0 c1 "Read" sig= args={"pa`,
	})
	var a Assembler
	assemble(t, &a, "end", delta(`{"content":"x"}`))
	if a.Usage() != nil || a.FinishReason != "" {
		t.Errorf("usage %v, finish %q from a stream that sent neither", a.Usage(), a.FinishReason)
	}
}

// TestAssemblerReasoningGoesOnAcrossACall: a model that goes on reasoning in
// the same entry while a call is collected, and signs it last, signed the
// whole entry: one segment, ended with its signature when the calls
// complete.
func TestAssemblerReasoningGoesOnAcrossACall(t *testing.T) {
	got := assemble(t, &Assembler{}, "",
		delta(`{"reasoning_details":[{"type":"reasoning.text","text":"Step one.","index":0}]}`),
		delta(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"Read","arguments":"{}"}}]}`),
		delta(`{"reasoning_details":[{"type":"reasoning.text","text":" Step two.","index":0,"signature":"S"}]}`),
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	)
	samePieces(t, got, []string{
		"segment or", "reasoning or Step one.", "call 0 c1 Read args={}", "reasoning or  Step two.",
		"end or sig=S format= id=", `done 0 c1 "Read" sig= args={}`,
	})
}
