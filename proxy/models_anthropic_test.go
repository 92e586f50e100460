package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/standin"
)

// anthropicList is Anthropic's model list as its client libraries decode it.
type anthropicList struct {
	Data []struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	} `json:"data"`
	HasMore bool    `json:"has_more"`
	FirstID *string `json:"first_id"`
	LastID  *string `json:"last_id"`
}

func listAnthropic(t *testing.T, r *rig, query string) (int, anthropicList, string) {
	t.Helper()
	res := r.do(context.Background(), "GET", "/v1/models"+query, "", http.Header{"Anthropic-Version": {"2023-06-01"}})
	body := readAll(t, res)
	var l anthropicList
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatalf("not Anthropic's list: %v\n%s", err, body)
		}
	}
	return res.StatusCode, l, body
}

// With anthropic-version, GET /v1/models answers in Anthropic's shape, from the account's list, with the
// catalogue's names; pages follow after_id and before_id.
func TestModelsAnthropicShape(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return standin.DemoKeyPartial, nil }})
	status, l, body := listAnthropic(t, r, "")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	plan := standin.PartialPlan()
	if len(l.Data) != len(plan) || l.HasMore || l.FirstID == nil || *l.FirstID != plan[0] || l.LastID == nil || *l.LastID != plan[len(plan)-1] {
		t.Fatalf("list %s", body)
	}
	for i, m := range l.Data {
		if m.Type != "model" || m.ID != plan[i] || m.DisplayName == "" || m.DisplayName == m.ID {
			t.Errorf("entry %d: %+v", i, m)
		}
		if _, err := time.Parse(time.RFC3339, m.CreatedAt); err != nil {
			t.Errorf("created_at %q: %v", m.CreatedAt, err)
		}
	}
	if l.Data[0].DisplayName != "Model A Sonnet 4.5" {
		t.Errorf("display name %q", l.Data[0].DisplayName)
	}

	_, l, body = listAnthropic(t, r, "?limit=1")
	if len(l.Data) != 1 || !l.HasMore || *l.LastID != plan[0] {
		t.Errorf("limit=1: %s", body)
	}
	_, l, body = listAnthropic(t, r, "?limit=1&after_id="+plan[0])
	if len(l.Data) != 1 || l.Data[0].ID != plan[1] || !l.HasMore {
		t.Errorf("after_id: %s", body)
	}
	_, l, body = listAnthropic(t, r, "?before_id="+plan[2]+"&limit=1")
	if len(l.Data) != 1 || l.Data[0].ID != plan[1] || !l.HasMore {
		t.Errorf("before_id: %s", body)
	}
	_, l, body = listAnthropic(t, r, "?after_id=nope")
	if len(l.Data) != 0 || l.HasMore || l.FirstID != nil || !strings.Contains(body, `"data":[]`) {
		t.Errorf("unknown after_id: %s", body)
	}
	status, _, body = listAnthropic(t, r, "?limit=0")
	if status != http.StatusBadRequest || !strings.Contains(body, `"type":"error"`) || !strings.Contains(body, "limit must be") {
		t.Errorf("limit=0: %d %s", status, body)
	}

	// Without the header: the service's own answer, passed through.
	res := r.do(context.Background(), "GET", "/v1/models", "", nil)
	body = readAll(t, res)
	if res.StatusCode != http.StatusOK || strings.Contains(body, `"display_name"`) || !strings.Contains(body, `"object"`) {
		t.Errorf("OpenAI shape: %d %s", res.StatusCode, body)
	}
}

// A key the service refuses: Anthropic's error shape with the service's status, and no key in it.
func TestModelsAnthropicRefusedKey(t *testing.T) {
	const bad = "sk-gw-not-a-real-key-0123456789"
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return bad, nil }})
	status, _, body := listAnthropic(t, r, "")
	if status != http.StatusUnauthorized || !strings.Contains(body, `"type":"error"`) || !strings.Contains(body, "authentication_error") || strings.Contains(body, bad) {
		t.Errorf("%d %s", status, body)
	}
}

// Codex's catalog: the account's models, each with its context window and the apply_patch tool; Codex's
// client_version query is ignored; a refused key is the Responses API's error.
func TestCodexCatalog(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return standin.DemoKeyPartial, nil }})
	res := r.do(context.Background(), "GET", "/v1/codex/models?client_version=0.169.0", "", nil)
	body := readAll(t, res)
	var c struct {
		Models []struct {
			Slug               string   `json:"slug"`
			ContextWindow      int      `json:"context_window"`
			ApplyPatchToolType string   `json:"apply_patch_tool_type"`
			InputModalities    []string `json:"input_modalities"`
		} `json:"models"`
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	plan := standin.PartialPlan()
	if len(c.Models) != len(plan) {
		t.Fatalf("catalog %s", body)
	}
	for i, m := range c.Models {
		if m.Slug != plan[i] || m.ContextWindow <= 0 || m.ApplyPatchToolType != "freeform" || len(m.InputModalities) == 0 {
			t.Errorf("entry %d: %+v", i, m)
		}
	}
	if c.Models[0].ContextWindow != 200_000 { // Sonnet 4.5, from gw's catalogue
		t.Errorf("context window %d", c.Models[0].ContextWindow)
	}
	waitForLog(t, r.log, "GET /v1/codex/models")

	const bad = "sk-gw-not-a-real-key-0123456789"
	r = newRig(t, rigOpts{key: func(context.Context) (string, error) { return bad, nil }})
	res = r.do(context.Background(), "GET", "/v1/codex/models", "", nil)
	body = readAll(t, res)
	if res.StatusCode < 400 || !strings.Contains(body, `"error"`) || strings.Contains(body, bad) {
		t.Errorf("refused key: %d %s", res.StatusCode, body)
	}
}

// A client refused before the key is read (a wrong local token) gets the error in its own protocol's shape.
func TestModelListsRefusedInTheirShape(t *testing.T) {
	r := newRig(t, rigOpts{})
	res := r.do(context.Background(), "GET", "/v1/models", "", http.Header{"Anthropic-Version": {"2023-06-01"}, "Authorization": {"Bearer gw-local-wrong"}})
	body := readAll(t, res)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `"type":"error"`) {
		t.Errorf("anthropic: %d %s", res.StatusCode, body)
	}
}

// GET /v1/models/{id} with anthropic-version: the model in Anthropic's shape; an id the account does not
// list is Anthropic's not_found_error, naming the closest id.
func TestModelAnthropicShape(t *testing.T) {
	r := newRig(t, rigOpts{key: func(context.Context) (string, error) { return standin.DemoKeyPartial, nil }})
	hdr := http.Header{"Anthropic-Version": {"2023-06-01"}}
	res := r.do(context.Background(), "GET", "/v1/models/vendor-a/model-a-haiku-4.5", "", hdr)
	body := readAll(t, res)
	var m struct{ Type, ID, Display_name string }
	if err := json.Unmarshal([]byte(body), &m); err != nil || res.StatusCode != http.StatusOK || m.Type != "model" || m.ID != "vendor-a/model-a-haiku-4.5" || m.Display_name != "Model A Haiku 4.5" {
		t.Errorf("%d %s (%v)", res.StatusCode, body, err)
	}
	res = r.do(context.Background(), "GET", "/v1/models/vendor-a/model-a-haiku-4.6", "", hdr)
	body = readAll(t, res)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "not_found_error") || !strings.Contains(body, "use the exact id: vendor-a/model-a-haiku-4.5") {
		t.Errorf("%d %s", res.StatusCode, body)
	}
}
