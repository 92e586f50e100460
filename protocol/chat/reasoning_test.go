package chat

import (
	"runtime"
	"strings"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// TestSealRoundTrip: what Seal gives a client, Unseal reads back with its
// dialect; anything else is refused with the error that says why.
func TestSealRoundTrip(t *testing.T) {
	in := []ReasoningDetail{{Type: DetailText, Text: "t", Signature: "s+/=", Format: "f"}}
	s := Seal(DialectOpenRouter, in)
	if !strings.HasPrefix(s, "gwor1.") || strings.ContainsAny(s[len("gwor1."):], "+/=.") {
		t.Fatalf("sealed %q: want gwor1. and unpadded base64url", s)
	}
	var out []ReasoningDetail
	d, err := Unseal(s, &out)
	if err != nil || d != DialectOpenRouter || len(out) != 1 || out[0] != in[0] {
		t.Fatalf("Unseal: %q %v %+v", d, err, out)
	}
	for _, c := range []struct {
		in   string
		want error
	}{
		{"", ErrNotSealed}, {"EqoBCkgIARAB", ErrNotSealed}, {"gwxx1.e30", ErrNotSealed},
		{"gwor1.", ErrDamaged}, {"gwor1.!!!", ErrDamaged}, {"gwlt1.bm90IGpzb24", ErrDamaged},
		{"gwor1." + strings.Repeat("A", MaxSealed+1), ErrDamaged},
	} {
		if _, err := Unseal(c.in, &out); err != c.want {
			t.Errorf("Unseal(%.20q): %v, want %v", c.in, err, c.want)
		}
	}
}

// TestToolCallID: a thought signature rides in the id in characters every
// tool-use id allows and comes back whole; ids without one, too long a
// signature, or a damaged id are left as they are.
func TestToolCallID(t *testing.T) {
	id := ToolCallID("function-call-1", "CsgB+/==")
	for _, r := range id {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			t.Fatalf("id %q has %q, which Anthropic's tool_use ids do not allow", id, r)
		}
	}
	if orig, sig, err := SplitToolCallID(id); orig != "function-call-1" || sig != "CsgB+/==" || err != nil {
		t.Errorf("SplitToolCallID(%q) = %q, %q, %v", id, orig, sig, err)
	}
	if got := ToolCallID("c", ""); got != "c" {
		t.Errorf("without a signature: %q", got)
	}
	if got := ToolCallID("c", strings.Repeat("A", MaxThoughtSignature+1)); got != "c" {
		t.Errorf("an over-long signature made an id of %d bytes", len(got))
	}
	for _, bad := range []string{"gwts1_%%%", "gwts1_", "gwts1_YWJj", "gwts1_" + strings.Repeat("A", 3*MaxThoughtSignature)} {
		if orig, sig, err := SplitToolCallID(bad); orig != bad || sig != "" || err != ErrDamaged {
			t.Errorf("SplitToolCallID(%.20q) = %q, %q, %v", bad, orig, sig, err)
		}
	}
	if orig, sig, err := SplitToolCallID("toolu_01"); orig != "toolu_01" || sig != "" || err != nil {
		t.Errorf("a plain id: %q %q %v", orig, sig, err)
	}
}

// TestReasoningJSON: reasoning goes back to the service with exactly the
// fields of its type, as OpenRouter and Anthropic (behind LiteLLM) take
// them.
func TestReasoningJSON(t *testing.T) {
	zero := 0
	for _, c := range []struct {
		v    any
		want string
	}{
		{ReasoningDetail{Type: DetailText, Text: "", Signature: "s", Index: &zero}, `{"type":"reasoning.text","signature":"s","index":0,"text":""}`},
		{ReasoningDetail{Type: DetailEncrypted, Data: "d", ID: "rs_1", Format: "f"}, `{"type":"reasoning.encrypted","id":"rs_1","format":"f","data":"d"}`},
		{ReasoningDetail{Type: DetailSummary, Summary: "s"}, `{"type":"reasoning.summary","summary":"s"}`},
		{ThinkingBlock{Type: "thinking", Thinking: "t", Signature: "s"}, `{"type":"thinking","thinking":"t","signature":"s"}`},
		{ThinkingBlock{Type: "redacted_thinking", Data: "d", Thinking: "x"}, `{"type":"redacted_thinking","data":"d"}`},
		{ToolCall{ID: "c", Type: "function", ExtraContent: WithThoughtSignature("g")}, `{"id":"c","type":"function","function":{"name":"","arguments":""},"extra_content":{"google":{"thought_signature":"g"}}}`},
	} {
		b, err := jsonv1.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s %v, want %s", c.v, b, err, c.want)
		}
	}
}

// TestReasoningCollector: the pieces of a stream join into the entries a
// whole answer would have.
func TestReasoningCollector(t *testing.T) {
	zero, one := 0, 1
	var c ReasoningCollector
	c.AddDetail(ReasoningDetail{Type: DetailText, Text: "a", Index: &zero, Format: "f"})
	c.AddDetail(ReasoningDetail{Type: DetailText, Text: "b", Index: &zero})
	c.AddDetail(ReasoningDetail{Type: DetailText, Signature: "s", Index: &zero})
	c.AddDetail(ReasoningDetail{Type: DetailEncrypted, Data: "d", Index: &one})
	c.AddBlock(ThinkingBlock{Type: "thinking", Thinking: "x"})
	c.AddBlock(ThinkingBlock{Type: "thinking", Thinking: "y"})
	c.AddBlock(ThinkingBlock{Type: "thinking", Signature: "t"})
	c.AddBlock(ThinkingBlock{Type: "thinking", Thinking: "z"})
	got, _ := jsonv1.Marshal(c)
	want := `{"Details":[{"type":"reasoning.text","signature":"s","format":"f","index":0,"text":"ab"},{"type":"reasoning.encrypted","index":1,"data":"d"}],` +
		`"Blocks":[{"type":"thinking","thinking":"xy","signature":"t"},{"type":"thinking","thinking":"z","signature":""}]}`
	if string(got) != want {
		t.Errorf("collected\n%s\nwant\n%s", got, want)
	}
	if !c.Signed() || c.Empty() {
		t.Errorf("Signed %v Empty %v", c.Signed(), c.Empty())
	}
}

// FuzzUnseal: whatever a client sends as a signature, call id or
// encrypted_content, reading it never panics, and what gw sealed reads
// back whole.
func FuzzUnseal(f *testing.F) {
	f.Add("gwor1.e30", "x")
	f.Add("gwts1_YWJjAGRlZg", "")
	f.Add(Seal(DialectLiteLLM, []ThinkingBlock{{Type: "thinking", Thinking: "t", Signature: "s"}}), "sig")
	f.Fuzz(func(t *testing.T, s, sig string) {
		var v any
		_, _ = Unseal(s, &v)
		_, _, _ = SplitToolCallID(s)
		if sig != "" && len(sig) <= MaxThoughtSignature && !strings.Contains(s, "\x00") {
			id, got, err := SplitToolCallID(ToolCallID(s, sig))
			if err != nil || id != s || got != sig {
				t.Fatalf("ToolCallID(%q, %q) read back as %q, %q, %v", s, sig, id, got, err)
			}
		}
	})
}

// TestReasoningCollectorLinear: a long reasoning streamed a few bytes at a
// time (OpenRouter sends reasoning_details token by token) is collected in
// memory proportional to its length, not copied whole for every piece; a
// megabyte of it in 20000 pieces was copied about 10 GB worth.
func TestReasoningCollectorLinear(t *testing.T) {
	piece := strings.Repeat("r", 50)
	for name, add := range map[string]func(c *ReasoningCollector){
		"details":         func(c *ReasoningCollector) { c.AddDetail(ReasoningDetail{Type: DetailText, Text: piece}) },
		"details summary": func(c *ReasoningCollector) { c.AddDetail(ReasoningDetail{Type: DetailSummary, Summary: piece}) },
		"blocks":          func(c *ReasoningCollector) { c.AddBlock(ThinkingBlock{Type: "thinking", Thinking: piece}) },
	} {
		t.Run(name, func(t *testing.T) {
			var c ReasoningCollector
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 20000 {
				add(&c)
			}
			runtime.ReadMemStats(&after)
			got := len(c.Details) + len(c.Blocks)
			text := ""
			if len(c.Details) > 0 {
				text = c.Details[0].Text + c.Details[0].Summary
			} else if len(c.Blocks) > 0 {
				text = c.Blocks[0].Thinking
			}
			if got != 1 || text != strings.Repeat(piece, 20000) {
				t.Fatalf("%d entries, %d bytes of text; want one of %d", got, len(text), 20000*len(piece))
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("collecting 1 MB of reasoning allocated %d MiB", grew>>20)
			}
		})
	}
}
