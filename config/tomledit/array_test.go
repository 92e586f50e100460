package tomledit

import "testing"

// TestSetTable_ArrayOfStrings: an array of strings is written, rewritten when it differs, and left as it
// is (its bytes) when it holds the same strings.
func TestSetTable_ArrayOfStrings(t *testing.T) {
	set := func(src string, v []string) string {
		t.Helper()
		d, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.SetTable([]string{"p", "auth"}, []Field{{Key: "args", Val: v}}, nil); err != nil {
			t.Fatal(err)
		}
		out, err := d.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	got := set("", []string{"auth", "token"})
	if want := "[p.auth]\nargs = [\"auth\", \"token\"]\n"; got != want {
		t.Errorf("new: %q, want %q", got, want)
	}
	if again := set(got, []string{"auth", "token"}); again != got {
		t.Errorf("same strings rewritten: %q", again)
	}
	if changed := set("[p.auth]\nargs = [\n  \"x\",\n] # mine\n", []string{"a b"}); changed != "[p.auth]\nargs = [\"a b\"] # mine\n" {
		t.Errorf("changed: %q", changed)
	}
}
