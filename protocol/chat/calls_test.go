package chat

import (
	"slices"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestToolCallsAssembly: the deltas of a stream become whole calls, the
// way every translator reads them — a name the service repeats in later
// deltas is not doubled (the first is kept), arguments are joined, the
// latest thought signature kept, and a new id under an index in use is a
// new call (gateways that number every call 0).
func TestToolCallsAssembly(t *testing.T) {
	var deltas []ToolCallDelta
	for _, s := range []string{
		`{"index":0,"id":"call_a","function":{"name":"Read","arguments":"{\"pa"}}`,
		`{"index":0,"function":{"name":"Read","arguments":"th\":1}"},"extra_content":{"google":{"thought_signature":"sig1"}}}`,
		`{"index":0,"id":"call_b","function":{"name":"Bash","arguments":"{}"}}`,
		`{"index":2,"function":{"arguments":"{\"x\""}}`,
		`{"index":2,"id":"call_c","function":{"name":"Grep","arguments":":2}"}}`,
	} {
		var d ToolCallDelta
		if err := json.Unmarshal([]byte(s), &d); err != nil {
			t.Fatal(err)
		}
		deltas = append(deltas, d)
	}
	var tc ToolCalls
	var began []bool
	for _, d := range deltas {
		_, b := tc.Add(d)
		began = append(began, b)
	}
	if want := []bool{true, false, true, true, false}; !slices.Equal(began, want) {
		t.Errorf("began %v, want %v", began, want)
	}
	type got struct{ ID, Name, Sig, Args string }
	want := []got{{"call_a", "Read", "sig1", `{"path":1}`}, {"call_b", "Bash", "", "{}"}, {"call_c", "Grep", "", `{"x":2}`}}
	if len(tc.List) != len(want) {
		t.Fatalf("%d calls, want %d", len(tc.List), len(want))
	}
	for i, c := range tc.List {
		if g := (got{c.ID, c.Name, c.Signature, c.Args.String()}); g != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, g, want[i])
		}
	}
	tc.Reset()
	if c, b := tc.Add(deltas[1]); !b || len(tc.List) != 1 || c.Name != "Read" {
		t.Errorf("after Reset: %+v began=%v", c, b)
	}
}
