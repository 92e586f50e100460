package chat

import (
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// TestBadBody: every translator names a bad body the same way — where it
// breaks (line and column, not a byte offset), the field and the kind it
// must be, and what to send.
func TestBadBody(t *testing.T) {
	var v struct {
		Model    string `json:"model"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, c := range []struct{ body, field, want string }{
		{" \n", "", "the request body is empty; send a Messages API request as JSON"},
		{"{\n \"model\": x}", "", "the request body is not valid JSON (line 2, column 11: "},
		{`{"messages":[{"role":3}]}`, "messages[0].role", "is a JSON number where the Messages API expects a string"},
		{`{"model":["a"]}`, "model", "is a JSON array where the Messages API expects a string"},
		{`[1]`, "", "the request body must be a JSON object, not array"},
		{`{"messages":` + deep + `}`, "", "deeper than"},
	} {
		err := json.Unmarshal([]byte(c.body), &v)
		field, msg := BadBody([]byte(c.body), err, "Messages API")
		if field != c.field || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q: %q, %q; want %q, %q", c.body, field, msg, c.field, c.want)
		}
	}
}
