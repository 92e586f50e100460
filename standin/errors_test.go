package standin

import (
	"encoding/json"
	"strings"
	"testing"
)

// refusal is one way a request is refused, and what the answer must show.
type refusal struct {
	name   string
	method string
	path   string
	key    string
	body   string
}

func refusals() []refusal {
	return []refusal{
		{"missing key", "GET", "/v1/models", "", ""},
		{"wrong key", "GET", "/v1/models", "sk-wrong", ""},
		{"no balance", "POST", "/v1/chat/completions", DemoKeyNoBalance, chatBody("vendor-a/model-a-haiku-4.5", false)},
		{"unknown model", "POST", "/v1/chat/completions", DemoKeyFull, chatBody("vendor-a/model-a-sonnet-4-5", true)},
		{"not in plan", "POST", "/v1/chat/completions", DemoKeyPartial, chatBody("vendor-a/model-a-opus-4.6", true)},
	}
}

func TestErrors_Dialects(t *testing.T) {
	// want[dialect][refusal] = a piece of the body that tells the cause
	want := map[string]map[string]string{
		DialectOpenAI: {
			"missing key":   `"code":null,"message":"You didn't provide an API key.`,
			"wrong key":     `"code":"invalid_api_key"`,
			"no balance":    `"code":"insufficient_quota"`,
			"unknown model": "The model `vendor-a/model-a-sonnet-4-5` does not exist",
			"not in plan":   "The model `vendor-a/model-a-opus-4.6` is not available on your plan.",
		},
		DialectOpenRouter: {
			"missing key":   `{"error":{"code":401,"message":"No auth credentials found"}}`,
			"wrong key":     `{"error":{"code":401,"message":"User not found."}}`,
			"no balance":    `{"error":{"code":402,"message":"Insufficient credits.`,
			"unknown model": `{"error":{"code":404,"message":"vendor-a/model-a-sonnet-4-5 is not a valid model ID"}}`,
			"not in plan":   `"No endpoints found for vendor-a/model-a-opus-4.6 on your plan."`,
		},
		DialectLiteLLM: {
			"missing key":   `"code":"401","message":"Authentication Error, No api key passed in.","param":null,"type":"auth_error"`,
			"wrong key":     `"code":"401","message":"Authentication Error, Invalid proxy server token passed.`,
			"no balance":    `"type":"budget_exceeded"`,
			"unknown model": `"code":"404","message":"Invalid model name passed in model=vendor-a/model-a-sonnet-4-5.`,
			"not in plan":   `This key can only access models=['vendor-a/model-a-sonnet-4.5', 'vendor-a/model-a-haiku-4.5', 'vendor-b/model-b-3-flash-preview']. Tried to access vendor-a/model-a-opus-4.6"`,
		},
		DialectNewAPI: {
			"missing key":   `"code":"","message":"No token provided (request id: standin00000001)","type":"new_api_error"`,
			"wrong key":     `"code":"","message":"Invalid token (request id:`,
			"no balance":    `"code":"insufficient_user_quota"`,
			"unknown model": `"code":"model_not_found","message":"No available channel for model vendor-a/model-a-sonnet-4-5`,
			"not in plan":   `"message":"This token has no permission to access model vendor-a/model-a-opus-4.6`,
		},
		DialectFlat: {
			"missing key":   `{"message":"You didn't provide an API key.`,
			"wrong key":     `{"message":"Incorrect API key provided.`,
			"no balance":    `{"message":"You exceeded your current quota`,
			"unknown model": `{"message":"The model ` + "`vendor-a/model-a-sonnet-4-5`" + ` does not exist`,
			"not in plan":   `is not available on your plan."}`,
		},
		DialectText: {
			"missing key":   "You didn't provide an API key.",
			"wrong key":     "Incorrect API key provided.",
			"no balance":    "Your balance is insufficient.",
			"unknown model": "The model `vendor-a/model-a-sonnet-4-5` does not exist",
			"not in plan":   "is not available on your plan.\n",
		},
	}
	wantStatus := map[string]int{"missing key": 401, "wrong key": 401, "no balance": 402, "unknown model": 404, "not in plan": 404}
	for _, d := range Dialects() {
		t.Run(d, func(t *testing.T) {
			// A fresh server per dialect, so new-api request ids start at 1.
			rs := start(t, Options{Dialect: d})
			for _, rf := range refusals() {
				status, ctype, body := do(t, rs, rf.method, rf.path, rf.key, rf.body)
				if status != wantStatus[rf.name] {
					t.Errorf("%s: status %d, want %d", rf.name, status, wantStatus[rf.name])
				}
				if d == DialectText {
					if !strings.HasPrefix(ctype, "text/plain") {
						t.Errorf("%s: content type %q", rf.name, ctype)
					}
				} else if ctype != "application/json" || !json.Valid([]byte(body)) {
					t.Errorf("%s: want a JSON body, got %q %s", rf.name, ctype, body)
				}
				if !strings.Contains(body, want[d][rf.name]) {
					t.Errorf("%s: body\n%s\nlacks\n%s", rf.name, body, want[d][rf.name])
				}
				if strings.Contains(body, rf.key) && rf.key != "" {
					t.Errorf("%s: the body echoes the key", rf.name)
				}
			}
		})
	}
}

func TestErrors_BalanceStatusOption(t *testing.T) {
	for _, st := range []int{401, 402, 403, 429} {
		rs := start(t, Options{BalanceStatus: st})
		status, _, body := do(t, rs, "POST", "/v1/chat/completions", DemoKeyNoBalance, chatBody("vendor-a/model-a-haiku-4.5", false))
		if status != st || !strings.Contains(body, "insufficient_quota") {
			t.Errorf("BalanceStatus %d: got %d %s", st, status, body)
		}
	}
}

func TestErrors_HideBalanceCause(t *testing.T) {
	rs := start(t, Options{HideBalanceCause: true, Dialect: DialectOpenRouter})
	_, _, wrong := do(t, rs, "GET", "/v1/models", "sk-wrong", "")
	status, _, empty := do(t, rs, "GET", "/v1/models", DemoKeyNoBalance, "")
	if status != 401 || empty != wrong {
		t.Errorf("exhausted balance: %d %s; want the wrong-key answer %s", status, empty, wrong)
	}
}

func TestErrors_ModelStatusOption(t *testing.T) {
	rs := start(t, Options{ModelStatus: 400})
	for _, model := range []string{"vendor-a/Model-A-Haiku-4.5", "model-a-haiku-4.5", "vendor-a/model-a-haiku-4.5 "} {
		status, _, body := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, chatBody(model, false))
		if status != 400 || !strings.Contains(body, "does not exist") {
			t.Errorf("model %q: %d %s, want 400 unknown model", model, status, body)
		}
	}
}

func TestErrors_ModelsAndBalance(t *testing.T) {
	rs := start(t, Options{})
	if status, _, body := do(t, rs, "GET", "/v1/models", DemoKeyNoBalance, ""); status != 402 {
		t.Errorf("listing with no balance: %d %s, want 402 by default", status, body)
	}
	rs = start(t, Options{ModelsIgnoreBalance: true})
	if status, _, body := do(t, rs, "GET", "/v1/models", DemoKeyNoBalance, ""); status != 200 {
		t.Errorf("listing with no balance and ModelsIgnoreBalance: %d %s", status, body)
	}
	if status, _, body := do(t, rs, "POST", "/v1/chat/completions", DemoKeyNoBalance, chatBody("vendor-a/model-a-haiku-4.5", false)); status != 402 {
		t.Errorf("chat with no balance and ModelsIgnoreBalance: %d %s", status, body)
	}
}

func TestErrors_LongModelNotEchoedWhole(t *testing.T) {
	rs := start(t, Options{})
	model := strings.Repeat("x", 5000)
	_, _, body := do(t, rs, "POST", "/v1/chat/completions", DemoKeyFull, chatBody(model, false))
	if len(body) > 1000 {
		t.Errorf("a 5000-byte model id gave a %d-byte error body", len(body))
	}
}
