package api

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// testKey looks like a real key so that a leak would also be caught by the
// secret-looking-token scrubber only if it failed.
const testKey = "sk-gw-test-Q7f3Kd92LmZx81PaWv4R"

// A body may contain {{KEY}}: the server echoes the key it received, as some
// gateways do in their error messages.
type respCase struct {
	name   string
	status int
	header map[string]string
	body   string
	model  string // "" → GET /models; else POST /chat/completions for this model
	noKey  bool   // send no key

	cond      Condition
	kind      Kind
	nilErr    bool
	causeHas  []string
	fixHas    []string
	codeEqual string
}

var dialectCases = []respCase{
	// OpenAI
	{name: "openai/401 invalid_api_key echoing the key", status: 401,
		body: `{"error":{"message":"Incorrect API key provided: {{KEY}}. You can find your API key at https://example.test/keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
		cond: KeyRejected, kind: KindWrongKey, causeHas: []string{"invalid", "Incorrect API key provided"}, fixHas: []string{"gw auth login"}, codeEqual: "invalid_api_key"},
	{name: "openai/429 insufficient_quota", status: 429,
		body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
		cond: KeyRejected, kind: KindNoBalance, causeHas: []string{"balance is exhausted", "429"}, fixHas: []string{"top up"}},
	{name: "openai/429 rate limit with Retry-After", status: 429, header: map[string]string{"Retry-After": "20"},
		body: `{"error":{"message":"Rate limit reached for requests per min (RPM): Limit 3, Used 3","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		cond: "", kind: KindRateLimited, causeHas: []string{"rate limiting", "Rate limit reached"}, fixHas: []string{"20 seconds"}},
	{name: "openai/404 model_not_found misspelled", status: 404, model: "vendor-a/model-a-sonet-4.5",
		body: "{\"error\":{\"message\":\"The model `vendor-a/model-a-sonet-4.5` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
		cond: UnknownModel, kind: KindMisspelled, causeHas: []string{"vendor-a/model-a-sonet-4.5", "closest listed id is vendor-a/model-a-sonnet-4.5"}, fixHas: []string{"use the exact id: vendor-a/model-a-sonnet-4.5"}},
	{name: "openai/404 model_not_found for a real model", status: 404, model: "vendor-a/model-a-opus-4.6",
		body: "{\"error\":{\"message\":\"The model `vendor-a/model-a-opus-4.6` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
		cond: UnknownModel, kind: KindNotSubscribed, causeHas: []string{"not in this account's subscription"}, fixHas: []string{"gw models", "upgrade the plan"}},
	{name: "openai/404 Invalid URL with a model is a wrong base URL", status: 404, model: "vendor-a/model-a-opus-4.6",
		body: `{"error":{"message":"Invalid URL (POST /v1/chat/completions)","type":"invalid_request_error","param":null,"code":null}}`,
		cond: ServiceUnreachable, kind: KindBaseURL, causeHas: []string{"404", "Invalid URL"}, fixHas: []string{"gw auth login --base-url https://gw.example.test/v1"}},
	{name: "openai/404 on /models is a wrong base URL", status: 404,
		body: `{"error":{"message":"Invalid URL (GET /v2/models)","type":"invalid_request_error","param":null,"code":null}}`,
		cond: ServiceUnreachable, kind: KindBaseURL, causeHas: []string{"404", "/models"}, fixHas: []string{"--base-url https://gw.example.test/v1"}},
	{name: "text/404 page not found on /models", status: 404, body: "404 page not found\n",
		cond: ServiceUnreachable, kind: KindBaseURL, causeHas: []string{"404"}},
	{name: "openai/401 credit balance too low", status: 401,
		body: `{"error":{"message":"Your credit balance is too low to access the API.","type":"invalid_request_error"}}`,
		cond: KeyRejected, kind: KindNoBalance, causeHas: []string{"balance is exhausted", "credit balance is too low"}},
	{name: "openai/400 unrelated bad request", status: 400, model: "vendor-a/model-a-haiku-4.5",
		body: `{"error":{"message":"max_tokens is too large: 999999. This model supports at most 64000 completion tokens.","type":"invalid_request_error","param":"max_tokens","code":null}}`,
		cond: "", kind: KindOther, causeHas: []string{"400", "max_tokens is too large"}},

	// OpenRouter: numeric codes.
	{name: "openrouter/402 insufficient credits", status: 402,
		body: `{"error":{"code":402,"message":"Insufficient credits. Add more using https://example.test/credits"}}`,
		cond: KeyRejected, kind: KindNoBalance, causeHas: []string{"402", "Insufficient credits"}, codeEqual: "402"},
	{name: "openrouter/401 no auth credentials", status: 401,
		body: `{"error":{"code":401,"message":"No auth credentials found"}}`,
		cond: KeyRejected, kind: KindWrongKey, causeHas: []string{"No auth credentials found"}},
	{name: "openrouter/400 not a valid model id", status: 400, model: "vendor-a/model-a-opus-4.7",
		body: `{"error":{"code":400,"message":"vendor-a/model-a-opus-4.7 is not a valid model ID"}}`,
		cond: UnknownModel, kind: KindMisspelled, fixHas: []string{"use the exact id: vendor-a/model-a-opus-4.6"}},
	{name: "openrouter/200 with an error body on /models", status: 200,
		body: `{"error":{"code":401,"message":"User not found."}}`,
		cond: KeyRejected, kind: KindKeyOrBalance, causeHas: []string{"either the key is wrong or the account's balance is exhausted"}},

	// LiteLLM: code as a string.
	{name: "litellm/401 auth_error echoing key and hash", status: 401,
		body: `{"error":{"message":"Authentication Error, Invalid proxy server token passed. Received API Key = {{KEY}}, Key Hash (Token) =e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855. Unable to find token in cache","type":"auth_error","param":"None","code":"401"}}`,
		cond: KeyRejected, kind: KindWrongKey, causeHas: []string{"Authentication Error", "[redacted]"},
		codeEqual: "auth_error"},
	{name: "litellm/400 budget exceeded", status: 400,
		body: `{"error":{"message":"Budget has been exceeded! Current cost: 10.5, Max budget: 10.0","type":"budget_exceeded","param":null,"code":"400"}}`,
		cond: KeyRejected, kind: KindNoBalance, causeHas: []string{"Budget has been exceeded"}},
	{name: "litellm/401 key not allowed to access model", status: 401, model: "vendor-a/model-a-opus-4.6",
		body: `{"error":{"message":"key not allowed to access model. This key can only access models=['vendor-a/model-a-haiku-4.5']. Tried to access vendor-a/model-a-opus-4.6","type":"key_model_access_denied","param":"model","code":"401"}}`,
		cond: UnknownModel, kind: KindNotSubscribed},

	// new-api / one-api.
	{name: "new-api/401 invalid token (Chinese)", status: 401,
		body: `{"error":{"message":"无效的令牌 (request id: 2026010112000012345678)","type":"new_api_error","param":"","code":""}}`,
		cond: KeyRejected, kind: KindWrongKey},
	{name: "new-api/403 insufficient user quota", status: 403,
		body: `{"error":{"message":"用户额度不足, 剩余额度: ＄0.000000","type":"new_api_error","param":"","code":"insufficient_user_quota"}}`,
		cond: KeyRejected, kind: KindNoBalance, codeEqual: "insufficient_user_quota"},
	{name: "new-api/503 no channel for the model", status: 503, model: "vendor-b/model-b-3-pro-preview",
		body: `{"error":{"message":"当前分组 default 下对于模型 vendor-b/model-b-3-pro-preview 无可用渠道","type":"new_api_error","param":"","code":"model_not_found"}}`,
		cond: UnknownModel, kind: KindNotSubscribed},
	{name: "one-api/401 token quota used up", status: 401,
		body: `{"error":{"message":"该令牌额度已用尽 (request id: 20260101)","type":"one_api_error"}}`,
		cond: KeyRejected, kind: KindNoBalance},
	{name: "new-api/401 English invalid token", status: 401,
		body: `{"error":{"message":"Invalid token (request id: 20260101)","type":"new_api_error","param":"","code":""}}`,
		cond: KeyRejected, kind: KindWrongKey},

	// Anthropic and Google shapes behind gateways.
	{name: "anthropic/401 authentication_error", status: 401,
		body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
		cond: KeyRejected, kind: KindWrongKey, codeEqual: "authentication_error"},
	{name: "anthropic/404 not_found_error for a model", status: 404, model: "vendor-a/model-a-opus-9",
		body: `{"type":"error","error":{"type":"not_found_error","message":"model: vendor-a/model-a-opus-9"}}`,
		cond: UnknownModel, kind: KindMisspelled, fixHas: []string{"gw models"}},
	{name: "google/429 per-minute quota is a rate limit", status: 429,
		body: `{"error":{"code":429,"message":"Quota exceeded for quota metric 'Generate Content API requests per minute'","status":"RESOURCE_EXHAUSTED"}}`,
		cond: "", kind: KindRateLimited},

	// Flat, detail and plain-text dialects.
	{name: "flat/401 invalid api key", status: 401, body: `{"message":"Invalid API key"}`,
		cond: KeyRejected, kind: KindWrongKey},
	{name: "flat/402 with message", status: 402, body: `{"message":"Payment required: balance is 0"}`,
		cond: KeyRejected, kind: KindNoBalance},
	{name: "flat/400 invalid model", status: 400, model: "gpt-5", body: `{"message":"Invalid model: gpt-5","code":"invalid_model"}`,
		cond: UnknownModel, kind: KindMisspelled, fixHas: []string{"gw models"}},
	{name: "detail/401 not authenticated", status: 401, body: `{"detail":"Not authenticated"}`,
		cond: KeyRejected, kind: KindWrongKey},
	{name: "detail/422 list of problems", status: 422, model: "vendor-a/model-a-haiku-4.5",
		body: `{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]}`,
		cond: "", kind: KindOther, causeHas: []string{"422", "field required"}},
	{name: "text/401 bare Unauthorized", status: 401, body: "Unauthorized",
		cond: KeyRejected, kind: KindKeyOrBalance, causeHas: []string{"either the key is wrong or the account's balance is exhausted"}, fixHas: []string{"check the balance on the dashboard; if it is positive, create a new key and run: gw auth login"}},
	{name: "empty/403", status: 403, body: "",
		cond: KeyRejected, kind: KindKeyOrBalance, causeHas: []string{"403", "either the key is wrong or the account's balance is exhausted"}},
	{name: "error-string/403 Forbidden", status: 403, body: `{"error":"Forbidden"}`,
		cond: KeyRejected, kind: KindKeyOrBalance},
	{name: "empty/402", status: 402, body: "",
		cond: KeyRejected, kind: KindNoBalance},
	{name: "no key sent/401", status: 401, noKey: true, body: `{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error"}}`,
		cond: KeyRejected, kind: KindWrongKey, causeHas: []string{"no API key was sent"}, fixHas: []string{"gw auth login"}},

	{name: "flat/403 not allowed to use this model", status: 403, model: "vendor-b/model-b-3-pro-preview",
		body: `{"message":"You are not allowed to use this model on your current plan"}`,
		cond: UnknownModel, kind: KindNotSubscribed},
	{name: "flat/403 balance words win over model words", status: 403, model: "vendor-b/model-b-3-pro-preview",
		body: `{"message":"Insufficient balance to use this model"}`,
		cond: KeyRejected, kind: KindNoBalance},
	{name: "flat/401 token expired", status: 401, body: `{"message":"token has expired"}`,
		cond: KeyRejected, kind: KindWrongKey},

	// Server errors and things in front of the service.
	{name: "openai/500 server error", status: 500, body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`,
		cond: "", kind: KindServerError, causeHas: []string{"500", "The server had an error"}},
	{name: "html/502 bad gateway", status: 502, body: "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
		cond: "", kind: KindServerError, causeHas: []string{"502"}},
	{name: "text/503 no words", status: 503, body: "",
		cond: "", kind: KindServerError, causeHas: []string{"503", "gave no reason"}},
	{name: "html/200 website instead of the API", status: 200, body: "<!DOCTYPE html><html><head><title>Example Gateway — Home</title></head><body>hi</body></html>",
		cond: ServiceUnreachable, kind: KindBadResponse, causeHas: []string{"HTML page", "Example Gateway"}, fixHas: []string{"--base-url https://gw.example.test/v1"}},
	{name: "html/403 firewall page", status: 403, body: "<html><head><title>Access Denied</title></head><body>blocked by policy</body></html>",
		cond: ServiceUnreachable, kind: KindBadResponse, causeHas: []string{"HTML page", "Access Denied", "firewall"}},
	{name: "text/407 proxy authentication", status: 407, body: "Proxy Authentication Required",
		cond: ServiceUnreachable, kind: KindProxy, fixHas: []string{"HTTPS_PROXY"}},
	{name: "json/200 list is fine", status: 200, body: `{"object":"list","data":[{"id":"vendor-a/model-a-haiku-4.5"}]}`, nilErr: true},
}

func TestClassifyResponse_Dialects(t *testing.T) {
	if len(dialectCases) < 25 {
		t.Fatalf("only %d cases", len(dialectCases))
	}
	for _, tc := range dialectCases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, strings.ReplaceAll(tc.body, "{{KEY}}", got))
			}))
			defer srv.Close()

			key := testKey
			if tc.noKey {
				key = ""
			}
			c := NewClient(srv.URL+"/v1", key, srv.Client())
			c.Canonical = "https://gw.example.test/v1"
			var e *Error
			if tc.model == "" {
				_, err := c.Models(context.Background())
				if err != nil {
					var ok bool
					if e, ok = err.(*Error); !ok {
						t.Fatalf("Models error is %T, want *Error: %v", err, err)
					}
				}
			} else {
				e = chat(t, c, tc.model)
			}
			if tc.nilErr {
				if e != nil {
					t.Fatalf("want no error, got %v", e)
				}
				return
			}
			if e == nil {
				t.Fatal("want an error, got nil")
			}
			assertNoKey(t, e, testKey)
			t.Logf("%s\n   fix: %s\n   code=%q svc=%q", e.Error(), fixText(e), e.Code, e.ServiceMessage)
			if e.Condition != tc.cond || e.Kind != tc.kind {
				t.Errorf("got condition %q kind %q, want %q %q\nerror: %v", e.Condition, e.Kind, tc.cond, tc.kind, e)
			}
			if e.Status != tc.status && !(tc.status == 200) {
				t.Errorf("Status = %d, want %d", e.Status, tc.status)
			}
			if e.Cause == "" || e.Fix.IsZero() {
				t.Errorf("missing cause or fix: %+v", e)
			}
			for _, s := range tc.causeHas {
				if !strings.Contains(e.Cause, s) {
					t.Errorf("cause %q lacks %q", e.Cause, s)
				}
			}
			for _, s := range tc.fixHas {
				if !strings.Contains(fixText(e), s) {
					t.Errorf("fix %q lacks %q", fixText(e), s)
				}
			}
			if tc.codeEqual != "" && e.Code != tc.codeEqual {
				t.Errorf("Code = %q, want %q", e.Code, tc.codeEqual)
			}
			want := tc.cond.Message()
			if want != "" && !strings.HasPrefix(e.Error(), want+": ") {
				t.Errorf("Error() = %q, want prefix %q", e.Error(), want+": ")
			}
			if want == "" && e.Error() != e.Cause {
				t.Errorf("Error() = %q, want the cause alone", e.Error())
			}
		})
	}
}

// chat sends what a coding agent would, through the client, and classifies
// the answer as the proxy does.
func chat(t *testing.T, c *Client, model string) *Error {
	t.Helper()
	req, err := c.newRequest(context.Background(), http.MethodPost, "/chat/completions",
		strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return c.classifyResponse(res.StatusCode, res.Header, body, model)
}

func assertNoKey(t *testing.T, e *Error, key string) {
	t.Helper()
	for name, s := range map[string]string{"Error()": e.Error(), "Cause": e.Cause, "Fix": fixText(e), "ServiceMessage": e.ServiceMessage, "Code": e.Code} {
		if strings.Contains(s, key) {
			t.Errorf("%s contains the key: %q", name, s)
		}
		// Part of the key is a leak too.
		if len(key) > 12 && strings.Contains(s, key[len(key)-12:]) {
			t.Errorf("%s contains the end of the key: %q", name, s)
		}
	}
}

func TestConditionMessages_MatchTheSpec(t *testing.T) {
	for c, want := range map[Condition]string{
		KeyRejected:        "API key invalid or unauthorized",
		ServiceUnreachable: "unable to connect to API",
		UnknownModel:       "model not found / invalid model",
		"":                 "",
	} {
		if got := c.Message(); got != want {
			t.Errorf("%q.Message() = %q, want %q", c, got, want)
		}
	}
}

func TestClassifyResponse_RedirectNamesLocation(t *testing.T) {
	h := http.Header{"Location": []string{"https://gw.example.test/login"}}
	e := ClassifyResponse(302, h, nil, "")
	if e.Condition != ServiceUnreachable || e.Kind != KindBaseURL || !strings.Contains(e.Cause, "https://gw.example.test/login") {
		t.Errorf("got %+v", e)
	}
}

func TestClassifyResponse_ScrubsSecretsWithoutKnowingTheKey(t *testing.T) {
	body := []byte(`{"error":{"message":"Incorrect API key provided: sk-proj-AbC123dEf456GhI789jKl012. Key Hash e3b0c44298fc1c149afbf4c8996fb92427ae41e4 for vendor-b/model-b-3-flash-preview","code":"invalid_api_key"}}`)
	e := ClassifyResponse(401, nil, body, "")
	for _, secret := range []string{"sk-proj-AbC123dEf456GhI789jKl012", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4"} {
		if strings.Contains(e.Error(), secret) || strings.Contains(e.ServiceMessage, secret) {
			t.Errorf("secret %q left in %q", secret, e.ServiceMessage)
		}
	}
	// Words, codes and model ids stay readable.
	for _, keep := range []string{"Incorrect API key provided", "vendor-b/model-b-3-flash-preview"} {
		if !strings.Contains(e.ServiceMessage, keep) {
			t.Errorf("ServiceMessage %q lost %q", e.ServiceMessage, keep)
		}
	}
	if e.Code != "invalid_api_key" {
		t.Errorf("Code = %q", e.Code)
	}
}
