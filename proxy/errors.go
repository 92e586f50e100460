package proxy

import (
	"bytes"
	"encoding/json"
	"github.com/modelgateway/gw/protocol/translate"
	"net/http"

	"github.com/modelgateway/gw/api"
)

// Error codes of the responses gw serve writes itself. Clients see them in
// error.code; error.type is always "gw_error".
const (
	CodeOriginRefused     = "origin_refused"
	CodeCrossSiteRefused  = "cross_site_refused"
	CodeHostRefused       = "host_refused"
	CodeLocalTokenMissing = "local_token_missing"
	CodeLocalTokenInvalid = "local_token_invalid"
	CodeNotFound          = "not_found"
	CodeNoKey             = "no_key"
	CodeKeyUnavailable    = "key_unavailable"
	CodeUnreachable       = "upstream_unreachable"
	CodeBodyWithheld      = "upstream_body_withheld"
)

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
}

// writeError writes an error in the OpenAI shape. It sets no CORS header on
// purpose: a browser must not be able to read any answer of gw serve.
func writeError(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(errorBody{Error: errorDetail{Message: message, Type: "gw_error", Code: code}})
	writeAnswer(w, translate.JSON(status, "application/json", append(b, '\n')))
}

func decodeObject(body []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // keep numbers exactly as sent
	var doc map[string]any
	if dec.Decode(&doc) != nil || doc == nil {
		return nil, false
	}
	return doc, true
}

// appendToMessage adds hint to the first message field it knows, in the
// shapes gateways use: {"error":{"message"}}, {"error":"…"}, {"message"},
// {"detail"}.
func appendToMessage(doc map[string]any, hint string) bool {
	if inner, ok := doc["error"].(map[string]any); ok {
		if m, ok := inner["message"].(string); ok {
			inner["message"] = m + hint
			return true
		}
	}
	for _, k := range []string{"error", "message", "detail"} {
		if m, ok := doc[k].(string); ok {
			doc[k] = m + hint
			return true
		}
	}
	return false
}

// keyRejectedBody is a key-rejected error body of the service with gw's
// explanation as its message (the spec's message first, then the cause and
// the fix), so that an agent that shows the service's message shows it. A
// body in OpenAI's shape keeps its other fields; any other body becomes
// one in OpenAI's shape, and header's Content-Type says so.
func keyRejectedBody(body []byte, e *api.Error, header http.Header) []byte {
	msg := translate.Message(e)
	if doc, ok := decodeObject(body); ok {
		if inner, ok := doc["error"].(map[string]any); ok {
			if _, ok := inner["message"].(string); ok {
				inner["message"] = msg
				if b, err := marshalNoEscape(doc); err == nil {
					return b
				}
			}
		}
	}
	typ, code := "invalid_request_error", "invalid_api_key"
	if e.Kind == api.KindNoBalance {
		typ, code = "insufficient_quota", "insufficient_quota"
	}
	if e.Code != "" {
		code = e.Code
	}
	b, err := marshalNoEscape(errorBody{Error: errorDetail{Message: msg, Type: typ, Code: code}})
	if err != nil {
		return body
	}
	header.Set("Content-Type", "application/json")
	return b
}

// marshalNoEscape is v as encoding/json writes it with HTML characters
// unescaped: the service's own error document, decoded with UseNumber, keeps
// its numbers as numbers (chat.Encode's encoder does not know
// encoding/json's Number).
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
