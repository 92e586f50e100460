package responses

import (
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	"github.com/modelgateway/gw/protocol/chat"
)

func strp(s string) *string { return &s }

// TestFromResponse: a non-streamed answer becomes the response object with
// the same items a stream would have produced.
func TestFromResponse(t *testing.T) {
	meta := codexMeta(t)
	r := &chat.Response{ID: "chatcmpl-1", Model: "x", Choices: []chat.Choice{{
		FinishReason: "tool_calls",
		Message: chat.ResponseMsg{Role: "assistant", Content: strp("Running."), ReasoningContent: "Think.",
			ToolCalls: []chat.ToolCall{
				{ID: "c1", Type: "function", Function: chat.FunctionCall{Name: "exec_command", Arguments: `{"cmd":"ls"}`}},
				{ID: "c2", Type: "function", Function: chat.FunctionCall{Name: "apply_patch", Arguments: `{"input":"*** Begin Patch\n*** End Patch\n"}`}},
				{ID: "", Type: "function", Function: chat.FunctionCall{Name: LocalShellTool, Arguments: `{"command":["ls"]}`}},
			}},
	}}, Usage: &chat.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}}
	b, err := FromResponse(meta, r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID     string           `json:"id"`
		Object string           `json:"object"`
		Status string           `json:"status"`
		Model  string           `json:"model"`
		Output []map[string]any `json:"output"`
		Usage  map[string]any   `json:"usage"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range got.Output {
		kinds = append(kinds, it["type"].(string))
	}
	if got.ID != "resp_test" || got.Object != "response" || got.Status != "completed" || got.Model != "vendor-a/model-a-sonnet-4.5" ||
		strings.Join(kinds, ",") != "reasoning,message,function_call,custom_tool_call,local_shell_call" || num(got.Usage["total_tokens"]) != 10 {
		t.Fatalf("%s", b)
	}
	if got.Output[3]["input"] != "*** Begin Patch\n*** End Patch\n" || got.Output[4]["call_id"] != "call_test_2" {
		t.Errorf("custom %v, local shell %v", got.Output[3], got.Output[4])
	}
}

// TestFromAPIError: the three conditions reach Codex with the spec's message
// first and a status Codex does not retry; server errors keep a 5xx other
// than 500 (which Codex would show as "high demand").
func TestFromAPIError(t *testing.T) {
	cases := []struct {
		e          *api.Error
		status     int
		code, text string
	}{
		{&api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Status: 401, Cause: "the service refused the key as invalid (401)", Fix: remedy.Remedy{Do: remedy.NewKey}},
			400, "invalid_api_key", "API key invalid or unauthorized: the service refused the key as invalid (401) — create a new key on the dashboard and run: gw auth login (if the key is right, check the balance: some services refuse an empty account the same way)"},
		{&api.Error{Condition: api.KeyRejected, Kind: api.KindNoBalance, Status: 402, Cause: "the account's balance is exhausted (402)", Fix: remedy.Remedy{Do: remedy.TopUp}},
			400, "insufficient_quota", "API key invalid or unauthorized: the account's balance is exhausted (402) — top up the account's balance on the dashboard, then retry (the key itself is fine)"},
		{&api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Status: 404, Cause: "the service does not know the model id \"m\" (404)", Fix: remedy.Remedy{Do: remedy.UseID, Value: "n"}},
			400, "model_not_found", "model not found / invalid model: the service does not know the model id \"m\" (404) — use the exact id: n"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindRefused, Cause: "nothing listens at 127.0.0.1:1", Fix: remedy.Remedy{Do: remedy.RunDoctor}},
			502, "upstream_unreachable", "unable to connect to API: nothing listens at 127.0.0.1:1 — run: gw doctor"},
		// Said to an agent's user: doing it again is sending the request again, not running a command.
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindReset, Cause: "the connection was reset", Fix: remedy.Remedy{Do: remedy.RunAgain}},
			502, "upstream_unreachable", "unable to connect to API: the connection was reset — send the request again"},
		{&api.Error{Condition: api.ServiceUnreachable, Kind: api.KindTimeout, Cause: "no answer within 10s"}, 504, "upstream_timeout", "unable to connect to API: no answer within 10s"},
		{&api.Error{Kind: api.KindServerError, Status: 500, Cause: "the service failed with 500"}, 502, "server_error", "the service failed with 500"},
		{&api.Error{Kind: api.KindServerError, Status: 503, Cause: "the service failed with 503"}, 503, "server_error", "the service failed with 503"},
		{&api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "rate limited"}, 429, "rate_limit_exceeded", "rate limited"},
		{&api.Error{Kind: api.KindOther, Status: 422, Code: "bad_thing", Cause: "rejected"}, 422, "bad_thing", "rejected"},
	}
	for _, c := range cases {
		pe := FromAPIError(c.e)
		status, body := pe.Status, errorBody(pe)
		var b errorOut
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatal(err)
		}
		if status != c.status || b.Error.Code == nil || *b.Error.Code != c.code || b.Error.Message != c.text {
			t.Errorf("%s: got %d %s", c.e.Kind, status, body)
		}
	}
}

func TestClientStatusAndErrorBody(t *testing.T) {
	for in, want := range map[int]int{401: 400, 402: 400, 403: 400, 404: 400, 500: 502, 502: 502, 503: 503, 429: 429, 400: 400, 413: 400, 415: 400} {
		if got := ClientStatus(in); got != want {
			t.Errorf("ClientStatus(%d) = %d, want %d", in, got, want)
		}
	}
	if got := string(ErrorBody(503, "", "unable to connect to API: x")); got != `{"error":{"message":"unable to connect to API: x","type":"server_error","param":null,"code":null}}` {
		t.Errorf("ErrorBody: %s", got)
	}
}

// TestParseRequest_StoreNotPromised: a request parsed without a Store (gw
// serve keeps nothing then) is answered with store: false even when it
// asked for store: true, so that no client counts on retrieving it.
func TestParseRequest_StoreNotPromised(t *testing.T) {
	for _, body := range []string{`{"model":"m","input":"hi","store":true}`, `{"model":"m","input":"hi"}`} {
		_, meta, perr := ParseRequest(&translate.Request{Body: []byte(body)}, testEnv)
		if perr != nil {
			t.Fatal(perr)
		}
		reply := "Hello"
		out, err := FromResponse(meta, &chat.Response{Choices: []chat.Choice{{Message: chat.ResponseMsg{Role: "assistant", Content: &reply}, FinishReason: "stop"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"store":false`) {
			t.Errorf("%s: the response promises to be kept: %s", body, out)
		}
	}
}
