package anthropic

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
	tr "github.com/modelgateway/gw/protocol/translate"
)

func TestErrorBodyShape(t *testing.T) {
	got := string(ErrorBody(429, "", "slow down <now> & then"))
	want := `{"type":"error","error":{"type":"rate_limit_error","message":"slow down <now> & then"}}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestTypeForStatus(t *testing.T) {
	for status, want := range map[int]string{
		400: TypeInvalidRequest, 401: TypeAuthentication, 402: TypeBilling, 403: TypePermission, 404: TypeNotFound,
		413: TypeRequestTooLarge, 422: TypeInvalidRequest, 429: TypeRateLimit, 500: TypeAPI, 502: TypeAPI, 503: TypeAPI,
		504: TypeTimeout, 529: TypeOverloaded,
	} {
		if got := TypeForStatus(status); got != want {
			t.Errorf("%d: %s, want %s", status, got, want)
		}
	}
}

// The spec's message first, then gw's cause, then the fix; the status kept
// (an unknown model's 404 excepted, see FromAPIError); the spec's
// conditions final.
func TestFromAPIError(t *testing.T) {
	cases := []struct {
		name   string
		in     api.Error
		status int
		typ    string
		msg    string
		final  bool
	}{
		{"wrong key", api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey, Status: 401, Cause: "the service refused the key as invalid (401)", Fix: remedy.Remedy{Do: remedy.NewKey}},
			401, TypeAuthentication, "API key invalid or unauthorized: the service refused the key as invalid (401) — create a new key on the dashboard and run: gw auth login (if the key is right, check the balance: some services refuse an empty account the same way)", true},
		{"no balance, 403", api.Error{Condition: api.KeyRejected, Kind: api.KindNoBalance, Status: 403, Cause: "the account's balance is exhausted (403)", Fix: remedy.Remedy{Do: remedy.TopUp}},
			403, TypePermission, "API key invalid or unauthorized: the account's balance is exhausted (403) — top up the account's balance on the dashboard, then retry (the key itself is fine)", true},
		{"unreachable", api.Error{Condition: api.ServiceUnreachable, Kind: api.KindDNS, Cause: "no such host", Fix: remedy.Remedy{Do: remedy.CheckHostName, Value: "https://gw.example/v1"}},
			502, TypeAPI, "unable to connect to API: no such host — check the host name in the base URL for typos; run: gw auth login --base-url https://gw.example/v1", true},
		{"wrong base URL answering 404", api.Error{Condition: api.ServiceUnreachable, Kind: api.KindBaseURL, Status: 404, Cause: "the endpoint does not exist", Fix: remedy.Remedy{Do: remedy.SetBaseURL, Value: "X"}},
			404, TypeNotFound, "unable to connect to API: the endpoint does not exist — run: gw auth login --base-url X", true},
		{"unknown model", api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Status: 404, Cause: "the service does not know the model id", Fix: remedy.Remedy{Do: remedy.UseID, Value: "a/b"}},
			400, TypeInvalidRequest, "model not found / invalid model: the service does not know the model id — use the exact id: a/b", true},
		{"rate limited", api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "the service is rate limiting this key (429)", Fix: remedy.Remedy{Do: remedy.Wait, Value: "30s"}},
			429, TypeRateLimit, "the service is rate limiting this key (429) — wait 30s and retry", false},
		// Said to an agent's user: doing it again is sending the request again, not running a command.
		{"cut", api.Error{Condition: api.ServiceUnreachable, Kind: api.KindReset, Cause: "the connection was reset", Fix: remedy.Remedy{Do: remedy.RunAgain}},
			502, TypeAPI, "unable to connect to API: the connection was reset — send the request again", true},
		{"server error", api.Error{Kind: api.KindServerError, Status: 500, Cause: "the service failed with 500"},
			500, TypeAPI, "the service failed with 500", false},
		{"key refused in a 200", api.Error{Condition: api.KeyRejected, Kind: api.KindKeyOrBalance, Status: 200, Cause: "refused"},
			401, TypeAuthentication, "API key invalid or unauthorized: refused", true},
		{"other error in a 200", api.Error{Kind: api.KindOther, Status: 200, Cause: "the service answered with an error"},
			502, TypeAPI, "the service answered with an error", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := FromAPIError(&c.in)
			if e.Status != c.status || e.Type != c.typ || e.Message != c.msg || e.Final != c.final {
				t.Errorf("got  %d %s %q final=%v\nwant %d %s %q final=%v", e.Status, e.Type, e.Message, e.Final, c.status, c.typ, c.msg, c.final)
			}
		})
	}
}

func TestForClaudeCode(t *testing.T) {
	unknown := &api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Status: 404, Cause: "the service does not know the model id", Fix: remedy.Remedy{Do: remedy.ListModels}}
	e := ForClaudeCode(unknown, "claude-sonnet-4-5-20250929")
	if e.Fix.Do != remedy.SetClaudeModels || e.Cause != `"claude-sonnet-4-5-20250929" is Claude Code's own model id, which the service does not offer` {
		t.Errorf("got %+v", e)
	}
	if unknown.Fix.Do != remedy.ListModels {
		t.Error("ForClaudeCode changed its argument")
	}
	if got := ForClaudeCode(unknown, "vendor-a/model-a-sonet-4.5"); got != unknown {
		t.Error("another id's error was changed")
	}
	key := &api.Error{Condition: api.KeyRejected, Kind: api.KindWrongKey}
	if got := ForClaudeCode(key, "claude-opus-4-1"); got != key {
		t.Error("a key error of a claude- id was changed")
	}
	for id, want := range map[string]bool{"claude-opus-5-5": true, "Claude-3-5-haiku-latest": true, "vendor-a/claude-x": false, "claudeish": false} {
		if IsClaudeModel(id) != want {
			t.Errorf("IsClaudeModel(%q) = %v", id, !want)
		}
	}
}

func TestErrorAnswerFinal(t *testing.T) {
	a := errorAnswer(&tr.Error{Status: 401, Type: TypeAuthentication, Message: "no", Final: true})
	if a.Status != 401 || a.Header.Get("X-Should-Retry") != "false" || a.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%d %v", a.Status, a.Header)
	}
	a = errorAnswer(&tr.Error{Status: http.StatusTooManyRequests, Type: TypeRateLimit, Message: "later"})
	if a.Header.Get("X-Should-Retry") != "" {
		t.Errorf("a retryable error says %q", a.Header.Get("X-Should-Retry"))
	}
}

// A stream that broke off says so with the spec's message first and what to do after it, in gw serve's
// words for an agent's user (the renderer's, Serve).
func TestStreamError_BrokeOffSaysWhatToDo(t *testing.T) {
	for err, want := range map[error]string{
		io.ErrUnexpectedEOF: "unable to connect to API: the service's stream broke off before the answer was complete — retry; if it keeps happening, run: gw doctor",
	} {
		if got := streamError(err); got.Message != want || got.Status != http.StatusBadGateway {
			t.Errorf("%v: %d %q\nwant 502 %q", err, got.Status, got.Message, want)
		}
	}
}

// A Claude Code model id the service does not know is said with the fix
// for Claude Code's own ids, in the exchange's answer.
func TestExchangeErrorOfClaudeModel(t *testing.T) {
	ex, refused := Protocol{}.Translate(&tr.Request{Method: http.MethodPost, Path: "/v1/messages",
		Body: []byte(`{"model":"claude-opus-5-5","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)}, tr.Env{})
	if refused != nil {
		t.Fatalf("refused: %s", refused.Body)
	}
	a := ex.Error(&api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Status: 404, Cause: "the service does not know the model id", Fix: remedy.Remedy{Do: remedy.ListModels}})
	if a.Status != 400 || !strings.Contains(string(a.Body), `\"claude-opus-5-5\" is Claude Code's own model id`) || !strings.Contains(string(a.Body), "ANTHROPIC_DEFAULT_OPUS_MODEL") {
		t.Errorf("%d %s", a.Status, a.Body)
	}
}

// Every way a stream can break off is an api_error, which Claude Code retries; a failure the service
// reported in the stream keeps its own type.
func TestStreamError_TypeByKind(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		typ  string
	}{
		{"ended early", io.ErrUnexpectedEOF, TypeAPI},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, TypeAPI},
		{"timed out", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, TypeAPI},
		{"cancelled", context.Canceled, TypeAPI},
		{"rate limited", &api.Error{Kind: api.KindRateLimited, Status: 429, Cause: "slow down"}, TypeRateLimit},
		{"overflow", &api.Error{Kind: api.KindContextOverflow, Status: 400, Tokens: 9, Limit: 8}, TypeInvalidRequest},
	} {
		if e := streamError(c.err); e.Type != c.typ || e.Message == "" {
			t.Errorf("%s: %s %q, want %s", c.name, e.Type, e.Message, c.typ)
		}
	}
}

// TestStreamUnknownClaudeModel: an unknown model the service reports inside
// the stream of one of Claude Code's own model ids says, as before the
// answer, where the id came from and how to set gw's ids.
func TestStreamUnknownClaudeModel(t *testing.T) {
	var buf bytes.Buffer
	w := NewStreamWriter(&buf, Meta{Model: "claude-opus-5-5", Stream: true})
	_ = w.End(&api.Error{Condition: api.UnknownModel, Kind: api.KindMisspelled, Cause: "the service does not know the model id"})
	a, err := checkStream(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if a.errType != TypeInvalidRequest || !strings.HasPrefix(a.errMessage, `model not found / invalid model: "claude-opus-5-5" is Claude Code's own model id`) ||
		!strings.Contains(a.errMessage, "ANTHROPIC_MODEL") {
		t.Errorf("error event %s %q", a.errType, a.errMessage)
	}
}
