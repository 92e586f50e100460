package chat

import "testing"

func TestFieldPath(t *testing.T) {
	for _, c := range []struct{ parent, field, want string }{
		{"", "", ""},
		{"", "model", "model"},
		{"", "messages.0.content.1.text", "messages[0].content[1].text"},
		{"messages[0].content", "0.text", "messages[0].content[0].text"},
		{"tools", "3", "tools[3]"},
		{"input[2]", "content", "input[2].content"},
	} {
		if got := FieldPath(c.parent, c.field); got != c.want {
			t.Errorf("FieldPath(%q, %q) = %q, want %q", c.parent, c.field, got, c.want)
		}
	}
}
