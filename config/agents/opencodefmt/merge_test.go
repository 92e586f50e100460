package opencodefmt

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/modelgateway/gw/config/agentfile"
	"github.com/modelgateway/gw/config/agents"
	"github.com/modelgateway/gw/config/jsonc"
	"github.com/modelgateway/gw/config/textedit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testProvider is a subscription of three models, one of them reasoning.
func testProvider() Provider {
	return Provider{
		ID:      ProviderID,
		Name:    "Model Gateway",
		BaseURL: "http://127.0.0.1:8787/v1",
		APIKey:  "gw-local-0123456789abcdef0123456789abcdef",
		Models: []Model{
			{ID: "vendor-a/model-a-opus-4.6", Name: "Model A Opus 4.6", Context: 200000, Output: 32000, Reasoning: true, Attachment: true},
			{ID: "vendor-a/model-a-sonnet-4.6", Name: "Model A Sonnet 4.6", Context: 200000, Output: 64000, Attachment: true},
			{ID: "vendor-b/model-b-3-flash-preview", Name: "Model B 3 Flash Preview", Context: 1048576, Output: 65536, Attachment: true},
		},
	}
}

// corpusOptions: the fixtures that ask for a default model.
var corpusOptions = map[string]MergeOptions{
	"with-default.jsonc": {Model: "vendor-a/model-a-opus-4.6", SmallModel: "vendor-b/model-b-3-flash-preview"},
	"bom-crlf.jsonc":     {Model: "vendor-a/model-a-sonnet-4.6"},
}

// TestMergeCorpus merges the provider into every real-world-shaped config in
// testdata/corpus. Each is either merged with everything we do not own left
// byte-identical, or refused. The exact result is in testdata/golden (run
// with -update after reviewing a change).
func TestMergeCorpus(t *testing.T) {
	entries, err := os.ReadDir("testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 25 {
		t.Fatalf("corpus has %d fixtures, want at least 25", len(entries))
	}
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata/corpus", name))
			if err != nil {
				t.Fatal(err)
			}
			orig := bytes.Clone(src)
			p := testProvider()
			opts := corpusOptions[name]
			res, err := Merge(src, p, opts)
			if !bytes.Equal(src, orig) {
				t.Fatal("Merge modified its input")
			}
			var summary strings.Builder
			if err != nil {
				fmt.Fprintf(&summary, "refused: %v\n", err)
			} else {
				checkMerged(t, src, res, p, opts)
				fmt.Fprintf(&summary, "changed: %v\ncreated: %v\nadded: %s\nremoved: %s\nupdated: %s\n",
					res.Changed, res.Created, strings.Join(res.Added, " "), strings.Join(res.Removed, " "), strings.Join(res.Updated, " "))
				for _, w := range res.Warnings {
					fmt.Fprintf(&summary, "warning: %s\n", w)
				}
			}
			golden(t, name+".txt", []byte(summary.String()))
			if err == nil {
				golden(t, name, res.Data)
			}
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata/golden", name)
	if *update {
		if err := os.MkdirAll("testdata/golden", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, agentfile.Diff(name, want, got))
	}
}

// checkMerged asserts the properties every successful merge must have.
func checkMerged(t *testing.T, src []byte, res Result, p Provider, opts MergeOptions) {
	t.Helper()
	if err := preserved(src, res.Data, p.ID); err != nil {
		t.Fatal(err)
	}
	sum, err := ReadModels(res.Data)
	if err != nil {
		t.Fatalf("merged config does not read back: %v", err)
	}
	var ours *ProviderInfo
	for i := range sum.Providers {
		if sum.Providers[i].ID == p.ID {
			ours = &sum.Providers[i]
		}
	}
	if ours == nil {
		t.Fatalf("merged config lacks provider %q", p.ID)
	}
	if ours.BaseURL != p.BaseURL {
		t.Errorf("baseURL = %q, want %q", ours.BaseURL, p.BaseURL)
	}
	if !agents.SameIDs(ours.Models, modelIDs(p)) {
		t.Errorf("models = %v, want %v", ours.Models, modelIDs(p))
	}
	if opts.Model != "" && sum.Model != p.ID+"/"+opts.Model {
		t.Errorf("model = %q, want %q", sum.Model, p.ID+"/"+opts.Model)
	}
	if opts.SmallModel != "" && sum.SmallModel != p.ID+"/"+opts.SmallModel {
		t.Errorf("small_model = %q, want %q", sum.SmallModel, p.ID+"/"+opts.SmallModel)
	}
	again, err := Merge(res.Data, p, opts)
	if err != nil {
		t.Fatalf("second merge refused: %v", err)
	}
	if again.Changed || !bytes.Equal(again.Data, res.Data) || len(again.Added)+len(again.Removed)+len(again.Updated) > 0 {
		t.Errorf("second identical merge changed something:\n%s", agentfile.Diff("config", res.Data, again.Data))
	}
}

// preserved checks that out keeps everything of src that the merge does not
// own: the byte-order mark, the line-ending style, every top-level member
// other than provider/model/small_model and every other provider byte for
// byte, every comment outside our provider in the same order, and in our
// provider the user's own keys.
func preserved(src, out []byte, id string) error {
	if bytes.HasPrefix(src, []byte(textedit.BOM)) != bytes.HasPrefix(out, []byte(textedit.BOM)) {
		return fmt.Errorf("byte-order mark not preserved")
	}
	if bytes.Contains(src, []byte("\r\n")) && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) && bytes.Count(src, []byte("\n")) == bytes.Count(src, []byte("\r\n")) {
		return fmt.Errorf("CRLF file gained bare LF line endings")
	}
	body := bytes.TrimPrefix(src, []byte(textedit.BOM))
	if hujson.Extra(body).IsValid() {
		if len(bytes.TrimSpace(body)) > 0 && !bytes.HasPrefix(bytes.TrimPrefix(out, []byte(textedit.BOM)), body) {
			return fmt.Errorf("leading comments of an otherwise empty file not preserved")
		}
		return nil
	}
	a, _, _, err := jsonc.ParseValue(bytes.Clone(body), "\n")
	if err != nil {
		return fmt.Errorf("source does not parse: %v", err)
	}
	b, _, _, err := jsonc.ParseValue(bytes.Clone(bytes.TrimPrefix(out, []byte(textedit.BOM))), "\n")
	if err != nil {
		return fmt.Errorf("output does not parse: %v\n%s", err, out)
	}
	if !bytes.Equal(a.BeforeExtra, b.BeforeExtra) {
		return fmt.Errorf("text before the top-level object changed: %q -> %q", a.BeforeExtra, b.BeforeExtra)
	}
	if !bytes.Equal(a.AfterExtra, b.AfterExtra) {
		return fmt.Errorf("text after the top-level object changed: %q -> %q", a.AfterExtra, b.AfterExtra)
	}
	ao, bo := a.Value.(*hujson.Object), b.Value.(*hujson.Object)
	owned := map[string]bool{"provider": true, "model": true, "small_model": true}
	if err := sameMembers(ao, bo, owned, ""); err != nil {
		return err
	}
	if ap, bp := a.Find("/provider"), b.Find("/provider"); ap != nil {
		apo, ok := ap.Value.(*hujson.Object)
		if ok {
			if err := sameMembers(apo, bp.Value.(*hujson.Object), map[string]bool{id: true}, "provider."); err != nil {
				return err
			}
		}
	}
	for _, key := range []string{"model", "small_model"} {
		// Only the value may change; the comments around it stay.
		if av, bv := a.Find("/"+key), b.Find("/"+key); av != nil {
			if !bytes.Equal(av.BeforeExtra, bv.BeforeExtra) || !bytes.Equal(bytes.TrimRight(av.AfterExtra, " \t"), bytes.TrimRight(bv.AfterExtra, " \t")) {
				return fmt.Errorf("comments around %q changed", key)
			}
		}
	}
	ac, bc := comments(&a, id), comments(&b, id)
	if !slices.Equal(ac, bc) {
		return fmt.Errorf("comments outside provider %q changed:\nbefore %q\nafter  %q", id, ac, bc)
	}
	// Inside our provider, the user's keys survive with identical values.
	ours := "/provider/" + id
	if ag := a.Find(ours); ag != nil {
		if ago, ok := ag.Value.(*hujson.Object); ok {
			bgo := b.Find(ours).Value.(*hujson.Object)
			if err := sameMembers(ago, bgo, map[string]bool{"npm": true, "name": true, "options": true, "models": true}, ours+"."); err != nil {
				return err
			}
			if aopt, bopt := ag.Find("/options"), b.Find(ours+"/options"); aopt != nil {
				if err := sameMembers(aopt.Value.(*hujson.Object), bopt.Value.(*hujson.Object), map[string]bool{"baseURL": true, "apiKey": true}, ours+".options."); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// sameMembers: the members of a and b not in owned are the same, in the
// same order, with byte-identical values.
func sameMembers(a, b *hujson.Object, owned map[string]bool, where string) error {
	keep := func(o *hujson.Object) []hujson.ObjectMember {
		var out []hujson.ObjectMember
		for _, m := range o.Members {
			if !owned[jsonc.MemberName(m)] {
				out = append(out, m)
			}
		}
		return out
	}
	am, bm := keep(a), keep(b)
	if len(am) != len(bm) {
		return fmt.Errorf("%s: %d members of the user's became %d", where, len(am), len(bm))
	}
	for i := range am {
		name := jsonc.MemberName(am[i])
		if jsonc.MemberName(bm[i]) != name {
			return fmt.Errorf("%s%s moved or was renamed to %s", where, name, jsonc.MemberName(bm[i]))
		}
		if got, want := packTrimmed(bm[i].Value), packTrimmed(am[i].Value); !bytes.Equal(got, want) {
			return fmt.Errorf("%s%s changed: %q -> %q", where, name, want, got)
		}
	}
	return nil
}

func packTrimmed(v hujson.Value) []byte {
	v.BeforeExtra, v.AfterExtra = nil, nil
	return v.Pack()
}

// comments lists every comment in v outside provider.<id>'s value.
func comments(v *hujson.Value, id string) []string {
	skip := v.Find("/provider/" + id)
	var out []string
	var walk func(v *hujson.Value)
	extra := func(e hujson.Extra) {
		out = append(out, commentTokens(e)...)
	}
	walk = func(v *hujson.Value) {
		extra(v.BeforeExtra)
		if v != skip {
			switch c := v.Value.(type) {
			case *hujson.Object:
				for i := range c.Members {
					walk(&c.Members[i].Name)
					walk(&c.Members[i].Value)
				}
				extra(c.AfterExtra)
			case *hujson.Array:
				for i := range c.Elements {
					walk(&c.Elements[i])
				}
				extra(c.AfterExtra)
			}
		}
		extra(v.AfterExtra)
	}
	walk(v)
	return out
}

func commentTokens(b []byte) []string {
	var out []string
	for i := 0; i < len(b); {
		switch {
		case bytes.HasPrefix(b[i:], []byte("//")):
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				j = len(b) - i
			}
			out = append(out, strings.TrimRight(string(b[i:i+j]), "\r"))
			i += j
		case bytes.HasPrefix(b[i:], []byte("/*")):
			j := bytes.Index(b[i+2:], []byte("*/"))
			if j < 0 {
				out = append(out, string(b[i:]))
				return out
			}
			out = append(out, string(b[i:i+2+j+2]))
			i += 2 + j + 2
		default:
			i++
		}
	}
	return out
}

func TestMergeRefusesBadProvider(t *testing.T) {
	src := []byte("{}\n")
	for name, mutate := range map[string]func(*Provider){
		"openai prefix": func(p *Provider) { p.ID = "openai-gw" },
		"no models":     func(p *Provider) { p.Models = nil },
		"no limit":      func(p *Provider) { p.Models[0].Output = 0 },
		"duplicate id":  func(p *Provider) { p.Models[1].ID = p.Models[0].ID },
		"empty key":     func(p *Provider) { p.APIKey = "" },
	} {
		t.Run(name, func(t *testing.T) {
			p := testProvider()
			mutate(&p)
			if _, err := Merge(src, p, MergeOptions{}); err == nil {
				t.Fatal("Merge accepted an invalid provider")
			}
		})
	}
	if _, err := Merge(src, testProvider(), MergeOptions{Model: "vendor-a/model-a-haiku-4.5"}); err == nil ||
		!strings.Contains(err.Error(), "vendor-a/model-a-haiku-4.5") {
		t.Fatalf("default outside the chosen models: err = %v", err)
	}
}

func TestMergeParseErrorNamesLineAndColumn(t *testing.T) {
	src := []byte("{\n  \"theme\": \"dark\"\n  \"share\": \"manual\"\n}\n")
	_, err := Merge(src, testProvider(), MergeOptions{})
	var pe *ParseError
	if !errorsAs(err, &pe) {
		t.Fatalf("err = %v, want *ParseError", err)
	}
	if pe.Line != 3 || pe.Column != 3 {
		t.Fatalf("error at line %d, column %d; want line 3, column 3 (%v)", pe.Line, pe.Column, err)
	}
}

// A subscription change: the map is refreshed and the ids reported.
func TestMergeRefreshReportsAddedAndRemoved(t *testing.T) {
	p := testProvider()
	first, err := Merge(nil, p, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || !slices.Equal(first.Added, modelIDs(p)) {
		t.Fatalf("first run: created=%v added=%v", first.Created, first.Added)
	}
	p2 := testProvider()
	p2.Models = append(p2.Models[1:], Model{ID: "vendor-a/model-a-haiku-4.5", Name: "Model A Haiku 4.5", Context: 200000, Output: 64000, Attachment: true})
	second, err := Merge(first.Data, p2, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if second.Created || !slices.Equal(second.Added, []string{"vendor-a/model-a-haiku-4.5"}) || !slices.Equal(second.Removed, []string{"vendor-a/model-a-opus-4.6"}) || len(second.Updated) != 0 {
		t.Fatalf("refresh: created=%v added=%v removed=%v updated=%v", second.Created, second.Added, second.Removed, second.Updated)
	}
	if bytes.Contains(second.Data, []byte("opus")) {
		t.Fatalf("removed model still in the file:\n%s", second.Data)
	}
	third, err := Merge(second.Data, p2, MergeOptions{})
	if err != nil || third.Changed {
		t.Fatalf("identical run changed the file (err %v)", err)
	}
}

// Switching to direct mode changes only the two option values.
func TestMergeModeSwitchTouchesOnlyOptions(t *testing.T) {
	p := testProvider()
	first, err := Merge([]byte("{\n  // keep me\n  \"theme\": \"dark\"\n}\n"), p, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.BaseURL = "https://gateway.example.com/v1"
	p.APIKey = "{env:GW_API_KEY}"
	second, err := Merge(first.Data, p, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := agentfile.Diff("opencode.jsonc", first.Data, second.Data)
	var changed []string
	for _, l := range strings.Split(d, "\n") {
		if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "+++") {
			changed = append(changed, strings.TrimSpace(l[1:]))
		}
	}
	want := []string{
		`"baseURL": "http://127.0.0.1:8787/v1",`,
		`"apiKey": "gw-local-0123456789abcdef0123456789abcdef"`,
		`"baseURL": "https://gateway.example.com/v1",`,
		`"apiKey": "{env:GW_API_KEY}"`,
	}
	if !slices.Equal(changed, want) {
		t.Fatalf("changed lines = %q\nwant %q\n%s", changed, want, d)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
