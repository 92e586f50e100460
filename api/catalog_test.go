package api

import (
	"strings"
	"testing"
)

func TestCatalog_SpecModels(t *testing.T) {
	want := []struct {
		id, name  string
		ctx, out  int
		reasoning bool
	}{
		{"vendor-a/model-a-opus-4.6", "Model A Opus 4.6", 1_000_000, 128_000, false},
		{"vendor-a/model-a-opus-4.5-thinking", "Model A Opus 4.5 Thinking", 200_000, 64_000, true},
		{"vendor-a/model-a-sonnet-4.6", "Model A Sonnet 4.6", 1_000_000, 64_000, false},
		{"vendor-a/model-a-sonnet-4.5", "Model A Sonnet 4.5", 200_000, 64_000, false},
		{"vendor-a/model-a-sonnet-4.5-thinking", "Model A Sonnet 4.5 Thinking", 200_000, 64_000, true},
		{"vendor-a/model-a-haiku-4.5", "Model A Haiku 4.5", 200_000, 64_000, false},
		{"vendor-b/model-b-3-flash-preview", "Model B 3 Flash Preview", 1_048_576, 65_536, true},
		{"vendor-b/model-b-3-pro-preview", "Model B 3 Pro Preview", 1_048_576, 65_536, true},
	}
	got := Catalog()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || g.Name != w.name || g.Context != w.ctx || g.Output != w.out || g.Reasoning != w.reasoning {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
		if g.Vendor != strings.Split(w.id, "/")[0] || !g.Attachment || strings.Join(g.Input, ",") != "text,image,pdf" {
			t.Errorf("entry %d vendor/attachment/input = %q %v %v", i, g.Vendor, g.Attachment, g.Input)
		}
	}
	// A fresh copy: changing it changes nothing for the next caller.
	got[0].Name = "changed"
	got[0].Input[0] = "changed"
	if e, _ := LookupModel(want[0].id); e.Name != want[0].name || e.Input[0] != "text" {
		t.Error("Catalog shares memory between calls")
	}
	if _, ok := LookupModel("Vendor-A/model-a-opus-4.6"); ok {
		t.Error("LookupModel accepted a different spelling")
	}
}

func TestClosestID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"vendor-a/model-a-opus-4.6", "vendor-a/model-a-opus-4.6"},
		{"Vendor-A/Model-A-Opus-4.6", "vendor-a/model-a-opus-4.6"},                       // case
		{"model-a-sonnet-4.5", "vendor-a/model-a-sonnet-4.5"},                            // no vendor prefix
		{"vendor-b/model-a-haiku-4.5", "vendor-a/model-a-haiku-4.5"},                     // wrong vendor
		{"vendor-a/model-a-sonnet-4-5", "vendor-a/model-a-sonnet-4.5"},                   // dashes for dots
		{"vendor-a/model_a_sonnet_4_5_thinking", "vendor-a/model-a-sonnet-4.5-thinking"}, // underscores
		{"vendor-a/model-a-sonet-4.5", "vendor-a/model-a-sonnet-4.5"},                    // typo
		{"vendor-a/model-a-sonnet-4.5-thinkng", "vendor-a/model-a-sonnet-4.5-thinking"},  // typo
		{"vendor-b/model-b-3-pro", "vendor-b/model-b-3-pro-preview"},                     // preview missing
		{"model-b-3-flash", "vendor-b/model-b-3-flash-preview"},                          // both
		{"opus-4.6", "vendor-a/model-a-opus-4.6"},                                        // family prefix missing
		{"vendor-a/model-a-opus-4.7", "vendor-a/model-a-opus-4.6"},                       // nearest version
		{"gpt-4o", ""},
		{"", ""},
		{"vendor-c/something-else-entirely", ""},
	} {
		if got := ClosestID(tc.in, nil); got != tc.want {
			t.Errorf("ClosestID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Candidates restrict the answer: the account's own ids, even ones the
	// catalogue lacks.
	if got := ClosestID("acme/big-model-v2", []string{"acme/big-model-v3", "vendor-a/model-a-opus-4.6"}); got != "acme/big-model-v3" {
		t.Errorf("got %q", got)
	}
	if got := ClosestID("model-a-opus-4.6", []string{"vendor-a/model-a-haiku-4.5"}); got != "" {
		t.Errorf("suggested %q, which is not close", got)
	}
}

func TestModelError(t *testing.T) {
	avail := []string{"vendor-a/model-a-sonnet-4.5", "vendor-a/model-a-haiku-4.5", "acme/house-model"}

	if e := ModelError("vendor-a/model-a-haiku-4.5", avail); e != nil {
		t.Errorf("listed id refused: %v", e)
	}
	if e := ModelError("acme/house-model", avail); e != nil {
		t.Errorf("an id the service lists but the catalogue lacks was refused: %v", e)
	}

	e := ModelError("vendor-a/model-a-sonet-4.5", avail)
	if e == nil || e.Condition != UnknownModel || e.Kind != KindMisspelled || fixText(e) != "use the exact id: vendor-a/model-a-sonnet-4.5" {
		t.Errorf("misspelled: %+v", e)
	}
	if !strings.HasPrefix(e.Error(), "model not found / invalid model: ") {
		t.Errorf("Error() = %q", e.Error())
	}

	// Pasted with whitespace: said so, not called a misspelling of itself.
	e = ModelError(" vendor-a/model-a-haiku-4.5\n", avail)
	if e == nil || e.Kind != KindMisspelled || !strings.Contains(e.Cause, "has whitespace around it") ||
		fixText(e) != "use the exact id, without the whitespace: vendor-a/model-a-haiku-4.5" {
		t.Errorf("whitespace: %+v", e)
	}

	e = ModelError("vendor-a/model-a-opus-4.6", avail)
	if e == nil || e.Kind != KindNotSubscribed || !strings.Contains(e.Cause, "not in this account's subscription") ||
		!strings.Contains(fixText(e), "upgrade the plan") || !strings.Contains(fixText(e), "gw models") {
		t.Errorf("not subscribed: %+v", e)
	}

	// Misspelled, and the model meant is not in the plan either.
	e = ModelError("opus-4.6", avail)
	if e == nil || e.Kind != KindMisspelled || !strings.Contains(e.Cause, "vendor-a/model-a-opus-4.6") || !strings.Contains(e.Cause, "not in this account's subscription") {
		t.Errorf("misspelled and unsubscribed: %+v", e)
	}

	// The model meant is in the catalogue but not the plan, and a listed id is farther away: the catalogue
	// id is named, not the listed one the user did not mean.
	e = ModelError("vendor-a/model-a-sonet-4.6", avail)
	if e == nil || e.Kind != KindMisspelled ||
		e.Cause != `"vendor-a/model-a-sonet-4.6" is not spelled as the service lists it; the closest id is vendor-a/model-a-sonnet-4.6, which is not in this account's subscription` ||
		fixText(e) != "use a model the account has, such as vendor-a/model-a-sonnet-4.5 (run: gw models), or upgrade the plan on the dashboard to use vendor-a/model-a-sonnet-4.6" {
		t.Errorf("misspelled, meant a catalogue id outside the plan: %+v", e)
	}
	// As close in the catalogue as in the list: the listed id wins.
	e = ModelError("vendor-a/model-a-sonnet-4.x", avail) // one edit from sonnet-4.6 and from the listed sonnet-4.5
	if e == nil || fixText(e) != "use the exact id: vendor-a/model-a-sonnet-4.5" {
		t.Errorf("tie: %+v", e)
	}

	e = ModelError("gpt-4o", avail)
	if e == nil || e.Kind != KindMisspelled || !strings.Contains(fixText(e), "gw models") {
		t.Errorf("unknown: %+v", e)
	}

	// Case matters: the spec wants ids exactly as listed.
	e = ModelError("VENDOR-A/MODEL-A-HAIKU-4.5", avail)
	if e == nil || fixText(e) != "use the exact id: vendor-a/model-a-haiku-4.5" {
		t.Errorf("case: %+v", e)
	}
}

func TestRedact_KeepsOrdinaryWords(t *testing.T) {
	for _, s := range []string{
		"vendor-b/model-b-3-flash-preview is not available",
		"key_model_access_denied",
		"api_key_invalid",
		"Invalid URL (POST /v1/chat/completions)",
		"request took 1200ms at 2026-01-01T12:00:00Z",
	} {
		if got := redact(s, ""); got != s {
			t.Errorf("redact(%q) = %q", s, got)
		}
	}
	for _, s := range []string{"sk-proj-AbC123dEf456GhI789", "gw-local-0123456789abcdef0123456789abcdef", "AKIAIOSFODNN7EXAMPLE1234"} {
		if got := redact("token "+s+" here", ""); strings.Contains(got, s) {
			t.Errorf("redact left %q in %q", s, got)
		}
	}
}

func BenchmarkClassifyResponse(b *testing.B) {
	body := []byte(`{"error":{"message":"The model ` + "`vendor-a/model-a-sonet-4.5`" + ` does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	for b.Loop() {
		ClassifyResponse(404, nil, body, "vendor-a/model-a-sonet-4.5")
	}
}
